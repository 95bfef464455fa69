import assert from "node:assert/strict";
import { test } from "node:test";

import {
  analyzeBody, checkCounts, checkDecisions, exactWhole, exampleQuery, formOfQuery, fromPoints, halfPair,
  missingCounts, namesOf, priorValue, queryOf, typed, uploadFields,
} from "../../src/mcnemar/web/static/form.js";

const LIMITS = { maxCount: 2n ** 52n, maxCountText: "2**52 = 4,503,599,627,370,496" };

/* A snapshot of the form as readForm makes it, with the defaults of the page. */
function formOf(values, { framing = "passes", checked = {}, fromFiles = {} } = {}) {
  const blank = {
    a: "", b: "", c: "", d: "", only_a_wrong: "", only_b_wrong: "", both_wrong: "", both_right: "",
    name_a: "", name_b: "", alternative: "two-sided", confidence_level: "", alpha: "",
    margin: "", margin_method: "score", rope: "", prior: "", run_a: "", run_b: "", threshold: "",
    reduce: "", cluster: "", cluster_method: "obuchowski", task_column: "", analysis: "auto", score: "",
    filter: "",
  };
  return {
    framing,
    values: Object.assign(blank, values),
    checked: Object.assign({ equivalence: false, on_missing: false, on_error: false,
      allow_different_tasks: false, allow_different_scorers: false }, checked),
    fromFiles: Object.assign({ name_a: false, name_b: false }, fromFiles),
  };
}

test("exactWhole reads a count exactly, beyond what a double holds", () => {
  assert.deepEqual(exactWhole("17"), { whole: true, value: 17n });
  assert.deepEqual(exactWhole("9007199254740993"), { whole: true, value: 9007199254740993n });
  assert.deepEqual(exactWhole("1.7e1"), { whole: true, value: 17n });
  assert.deepEqual(exactWhole("17.000"), { whole: true, value: 17n });
  assert.deepEqual(exactWhole("000"), { whole: true, value: 0n });
  assert.deepEqual(exactWhole("4503599627370496.4"), { whole: false });
  assert.deepEqual(exactWhole("1e100"), { whole: true, value: 10n ** 40n });
  for (const other of ["-1", "abc", "", ".", "1,000"]) assert.equal(exactWhole(other), null, other);
});

test("typed sends numerals as numbers and anything else as typed", () => {
  assert.equal(typed("0.95"), 0.95);
  assert.equal(typed("1e-3"), 0.001);
  assert.equal(typed("ninety"), "ninety");
  assert.equal(typed("0,95"), "0,95");
});

test("fromPoints moves the decimal point instead of dividing", () => {
  assert.equal(fromPoints("0.7"), 0.007);
  assert.equal(fromPoints("1"), 0.01);
  assert.equal(fromPoints("5e-1"), 0.005);
  assert.equal(fromPoints("one"), "one");
});

test("priorValue is one number or four", () => {
  assert.equal(priorValue("1"), 1);
  assert.deepEqual(priorValue("1, 2,2 ,1"), [1, 2, 2, 1]);
  assert.deepEqual(priorValue("1,x"), [1, "x"]);
});

test("the counts the page refuses itself, in the API's error shape", () => {
  const ok = checkCounts(formOf({ b: "17", c: "3", a: "157", d: "23" }), ["a", "b", "c", "d"], LIMITS);
  assert.deepEqual(ok, { errors: [], total: 200n });
  const big = checkCounts(formOf({ b: String(2n ** 52n + 1n), c: "3" }), ["b", "c"], LIMITS);
  assert.equal(big.errors.length, 1);
  assert.equal(big.errors[0].field, "b");
  assert.match(big.errors[0].message, /4503599627370497 is too large: counts up to 2\*\*52 = 4,503,599,627,370,496/);
  const fraction = checkCounts(formOf({ b: "4503599627370496.4", c: "3" }), ["b", "c"], LIMITS);
  assert.match(fraction.errors[0].message, /whole number/);
  // Within the limit each, above it together: the total says so.
  const half = String(2n ** 51n);
  const total = checkCounts(formOf({ a: half, b: half, c: "1", d: "0" }), ["a", "b", "c", "d"], LIMITS);
  assert.deepEqual(total.errors, []);
  assert.ok(total.total > LIMITS.maxCount);
  // Text is for the server's validation to answer.
  assert.deepEqual(checkCounts(formOf({ b: "-1", c: "x" }), ["b", "c"], LIMITS).errors, []);
});

test("the margin and the range are checked in points", () => {
  assert.deepEqual(checkDecisions(formOf({ margin: "1", rope: "0.5" })), []);
  const errors = checkDecisions(formOf({ margin: "150", rope: "-1" }));
  assert.deepEqual(errors.map((e) => e.field), ["margin", "rope"]);
  assert.match(errors[0].message, /points.*150/);
  assert.equal(checkDecisions(formOf({ margin: "1%" }))[0].field, "margin");
});

test("what is missing before a request is sent", () => {
  assert.deepEqual(missingCounts(formOf({ b: "17" })), ["c"]);
  assert.deepEqual(missingCounts(formOf({}, { framing: "errors" })), ["only_a_wrong", "only_b_wrong"]);
  assert.equal(halfPair(formOf({ b: "1", c: "2" })), null);
  assert.equal(halfPair(formOf({ a: "1", b: "1", c: "2", d: "4" })), null);
  assert.deepEqual(halfPair(formOf({ a: "1", b: "1", c: "2" })), { missing: "d", given: "a" });
  assert.deepEqual(halfPair(formOf({ both_wrong: "3" }, { framing: "errors" })), { missing: "both_right", given: "both_wrong" });
});

test("the analyze request: counts exact, numerals as numbers, points as proportions", () => {
  const form = formOf({ a: "157", b: "17", c: "3", d: "23", name_a: "new", confidence_level: "0.9",
    margin: "1", rope: "0.5", prior: "1,2,2,1" }, { checked: { equivalence: true } });
  assert.deepEqual(analyzeBody(form), {
    framing: "passes", a: 157, b: 17, c: 3, d: 23, name_a: "new", alternative: "two-sided",
    confidence_level: 0.9, margin: 0.01, equivalence: true, margin_method: "score",
    bayes: { rope: 0.005, prior: [1, 2, 2, 1] }, include: ["distribution", "display"],
  });
  const errors = formOf({ only_a_wrong: "3", only_b_wrong: "17.0", both_right: "x" }, { framing: "errors" });
  assert.deepEqual(analyzeBody(errors, ["markdown"]), {
    framing: "errors", only_a_wrong: 3, only_b_wrong: 17, both_right: "x", alternative: "two-sided",
    include: ["markdown"],
  });
});

test("the upload's fields: names typed only, options given only, the display asked for", () => {
  const form = formOf({ name_a: "mine", name_b: "from-file.csv", alpha: "0.01", threshold: "0.5",
    task_column: "task", margin: "2", rope: "0" }, { checked: { on_missing: true, allow_different_tasks: true },
    fromFiles: { name_b: true } });
  assert.deepEqual(uploadFields(form), [
    ["name_a", "mine"], ["alpha", "0.01"], ["alternative", "two-sided"], ["on_missing", "intersect"],
    ["threshold", "0.5"], ["cluster_method", "obuchowski"], ["task_column", "task"],
    ["allow_different_tasks", "true"], ["margin", "0.02"], ["margin_method", "score"],
    ["bayes", "true"], ["rope", "0"], ["include", "distribution,markdown,display"],
  ]);
});

test("the upload's analysis: sent when chosen, with the score and filter to read", () => {
  const auto = formOf({ score: "f1", filter: "strict-match" });
  assert.deepEqual(uploadFields(auto).slice(1, 3), [["score", "f1"], ["filter", "strict-match"]]);
  assert.ok(!uploadFields(auto).some(([name]) => name === "analysis"));
  const passFail = formOf({ analysis: "pass-fail", threshold: "0.5" });
  assert.deepEqual(uploadFields(passFail).slice(1, 3), [["analysis", "pass-fail"], ["threshold", "0.5"]]);
  // Comparing scores, the options of pass/fail alone are off: a threshold typed is not sent.
  const scores = uploadFields(formOf({ analysis: "scores", threshold: "0.5", cluster: "passage" }));
  assert.deepEqual(scores.slice(1, 3), [["analysis", "scores"], ["cluster", "passage"]]);
  assert.ok(!scores.some(([name]) => name === "threshold" || name === "cluster_method"));
});

test("the link holds the state in the page's order and reads back the same", () => {
  const form = formOf({ a: "157", b: "17", c: "3", d: "23", alternative: "greater", alpha: "0.01",
    margin: "1", margin_method: "unconditional" }, { checked: { equivalence: true } });
  const query = queryOf(form);
  assert.equal(query, "a=157&b=17&c=3&d=23&alternative=greater&alpha=0.01&margin=1&margin_method=unconditional&equivalence=1");
  const back = formOfQuery(query, ["two-sided", "greater", "less"]);
  assert.equal(back.framing, "passes");
  assert.equal(queryOf(formOf(back.values, { checked: back.checked })), query);
  assert.equal(queryOf(formOf({ only_a_wrong: "3" }, { framing: "errors" })), "framing=errors&only_a_wrong=3");
});

test("a query cannot choose what the menus do not offer", () => {
  const back = formOfQuery("alternative=sideways&margin_method=other&equivalence=yes", ["two-sided", "greater", "less"]);
  assert.equal(back.values.alternative, "two-sided");
  assert.equal(back.values.margin_method, "score");
  assert.equal(back.checked.equivalence, false);
});

test("an example keeps the options and decisions of the current link", () => {
  assert.equal(exampleQuery("a=90&b=0&c=0&d=10", "?b=5&c=6&alpha=0.01&margin=1&name_a=x"),
    "a=90&b=0&c=0&d=10&name_a=x&alpha=0.01&margin=1");
});

test("the names in the labels default to candidate and baseline", () => {
  assert.deepEqual(namesOf(formOf({ name_b: "old" })), { a: "candidate", b: "old" });
});
