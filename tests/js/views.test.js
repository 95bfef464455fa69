import assert from "node:assert/strict";
import { test } from "node:test";

import { matchCount, matchingRows } from "../../src/mcnemar/web/static/views.js";

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
