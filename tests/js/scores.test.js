import assert from "node:assert/strict";
import { test } from "node:test";

import {
  scoreIntervals, scoreKind, scoreNotes, scoreTests, scoreVerdict, taskWarnings,
} from "../../src/mcnemar/web/static/scores.js";

/* A score report as the server sends it (mcnemar.scores/1 with its display object), cut to
   what the page reads. */
const REPORT = {
  schema: "mcnemar.scores/1",
  names: { a: "new", b: "old" },
  alternative: "two-sided",
  tests: {
    t: { name: "paired t test", convention: "mean difference over its standard error" },
    wilcoxon: { name: "Wilcoxon signed-rank test", convention: "" },
    sign: { name: "sign test (exact binomial)", convention: "" },
    permutation: { name: "permutation test (sign flips)", convention: "sign flips" },
  },
  recommended: { test: "permutation", reason: "24 items and a skewness of 0.29" },
  difference: {
    estimate_text: "+0.059", recommended_interval: "bootstrap",
    intervals: { t: { label: "t interval" }, bootstrap: { label: "paired bootstrap (BCa)" } },
  },
  conclusion: { significant: true, headline: "new did better than old", text: "new did better than old by 0.059." },
  epochs: { note: "Each item was scored 3 times." },
  clusters: null,
  display: {
    alpha: "0.05",
    intervals: { t: ["+0.004", "+0.115"], bootstrap: ["+0.010", "+0.112"], "hodges-lehmann": ["+0.013", "+0.130"] },
    tests: {
      t: { statistic: "t = 2.214", pvalue: "0.03698", detail: "df 23" },
      wilcoxon: { statistic: "V = 234", pvalue: "0.01576", detail: "normal approximation" },
      sign: { statistic: "positives = 20", pvalue: "0.001544", detail: "exact" },
      permutation: { statistic: "sum = 1.427", pvalue: "2.5e-07", detail: "Monte Carlo, ± 0.0019" },
    },
  },
};

test("the two schemas of scores are told from McNemar's report", () => {
  assert.equal(scoreKind(REPORT), "scores");
  assert.equal(scoreKind({ schema: "mcnemar.score-tasks/1" }), "score-tasks");
  assert.equal(scoreKind({ schema: "mcnemar.report/1" }), null);
  assert.equal(scoreKind(null), null);
});

test("the verdict is the report's, with the recommended test's p-value as the server wrote it", () => {
  const v = scoreVerdict(REPORT);
  assert.equal(v.headline, "new did better than old");
  assert.equal(v.test, "Permutation test (sign flips)");
  assert.equal(v.pText, "2.5 × 10⁻⁷");
  assert.equal(v.significant, true);
  assert.equal(v.reason, "Why this test: 24 items and a skewness of 0.29");
  assert.equal(v.conclusion, REPORT.conclusion.text);
});

test("the per-task verdict is the macro overall's", () => {
  const tasks = {
    schema: "mcnemar.score-tasks/1", adjust: "holm",
    overall: { headline: "new did better than old on average over the tasks", text: "Overall (macro...)" },
    display: { overall: { pvalue: "0.0123", significant: true } },
  };
  const v = scoreVerdict(tasks);
  assert.equal(v.headline, tasks.overall.headline);
  assert.equal(v.pText, "0.0123");
  assert.ok(v.significant && v.reason.includes("(holm)"));
  assert.equal(scoreVerdict({ ...tasks, display: {} }).pText, "—");
});

test("the intervals of the mean, the recommended one marked, in the report's decimals", () => {
  assert.deepEqual(scoreIntervals(REPORT), [
    { key: "t", label: "t interval", low: "+0.004", high: "+0.115", recommended: false },
    { key: "bootstrap", label: "paired bootstrap (BCa)", low: "+0.010", high: "+0.112", recommended: true },
  ]);
  assert.deepEqual(scoreIntervals({ difference: { intervals: { t: {} } } }),
    [{ key: "t", label: "t", low: "—", high: "—", recommended: false }]);
});

test("the four tests in the report's order, with the server's texts", () => {
  const rows = scoreTests(REPORT);
  assert.deepEqual(rows.map((r) => r.key), ["t", "wilcoxon", "sign", "permutation"]);
  assert.deepEqual(rows.filter((r) => r.recommended).map((r) => r.key), ["permutation"]);
  assert.equal(rows[0].statistic, "t = 2.214");
  assert.equal(rows[3].pvalue, "2.5 × 10⁻⁷");
  assert.equal(rows[3].detail, "Monte Carlo, ± 0.0019");
  assert.equal(scoreTests({ tests: { t: {} } })[0].pvalue, "—");
});

test("the notes that apply, and the tasks' warnings named by their task", () => {
  assert.deepEqual(scoreNotes(REPORT), [["Repeated samples of an item", "Each item was scored 3 times."]]);
  assert.deepEqual(scoreNotes({ noninferiority: { note: "not worse" }, clusters: { note: "12 clusters" } }),
    [["Clustered items", "12 clusters"], ["Against a margin", "not worse"]]);
  assert.deepEqual(taskWarnings({ tasks: [{ task: "t1", report: { warnings: ["few items"] } }, { task: "t2", report: {} }] }),
    ["t1: few items"]);
});
