import assert from "node:assert/strict";
import { test } from "node:test";

import { flipScores, flipSides, matchCount, matchingRows } from "../../src/mcnemar/web/static/views.js";

const ROWS = ["q018task t01, 0", "q025task t01, 0", "Q106task t20, 1", "other"];

test("the flips search keeps the rows that hold the query, case aside", () => {
  assert.deepEqual(matchingRows(ROWS, "q1"), [false, false, true, false]);
  assert.deepEqual(matchingRows(ROWS, "  T0 "), [true, true, false, false]);
  assert.deepEqual(matchingRows(ROWS, ""), [true, true, true, true]);
  assert.deepEqual(matchingRows(ROWS, "nothing"), [false, false, false, false]);
});

test("the search says how many match, only while there is a query", () => {
  assert.equal(matchCount(matchingRows(ROWS, "t0"), "t0"), "2 of 4 listed items match.");
  assert.equal(matchCount(matchingRows(ROWS, ""), " "), "");
});

test("the flips' sides in the page's words: pass/fail, or the items each run scored higher", () => {
  const names = { a: "new", b: "old" };
  const passFail = flipSides({ a_only: { count: 1 }, b_only: { count: 2 } }, names);
  assert.equal(passFail.graded, false);
  assert.deepEqual(passFail.sides.map(([key, title]) => [key, title]),
    [["a_only", "new right, old wrong"], ["b_only", "new wrong, old right"]]);
  const scores = flipSides({ a_higher: { count: 20 }, b_higher: { count: 4 } }, names);
  assert.equal(scores.graded, true);
  assert.equal(scores.heading, "Items scored differently");
  assert.deepEqual(scores.sides.map(([key, title]) => [key, title]),
    [["a_higher", "new scored higher"], ["b_higher", "old scored higher"]]);
  assert.equal(flipSides(null, names), null);
  assert.equal(flipSides({ reason: "no keys" }, names), null);
});

test("an item's scores as the row shows them, with the difference of scores", () => {
  assert.equal(flipScores(["1", "0"], false), "1, 0");
  assert.equal(flipScores(["0.98", "0.733333", "+0.246667"], true), "0.98, 0.733333 (+0.246667)");
  assert.equal(flipScores(undefined, true), "—, — (—)");
});
