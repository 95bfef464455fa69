import assert from "node:assert/strict";
import { test } from "node:test";

import { differenceIntervals, headlineOf, limitsText, reportOnly } from "../../src/mcnemar/web/static/report.js";

const NAMES = { a: "new", b: "old" };
const DISPLAY = { alpha: "0.05" };

test("the headline is the report's own when it has one", () => {
  const report = { conclusion: { headline: "new did better than old", significant: true }, table: { b: 17, c: 3 } };
  assert.equal(headlineOf(report, NAMES, DISPLAY), "new did better than old");
});

test("without one, the same words from its fields, alpha as the server wrote it", () => {
  const base = { alternative: "two-sided", table: { b: 17, c: 3 } };
  assert.equal(headlineOf({ ...base, conclusion: { better: "a" } }, NAMES, DISPLAY), "new did better than old");
  assert.equal(headlineOf({ ...base, alternative: "greater", conclusion: { significant: true, better: null } }, NAMES, { alpha: "0.6" }),
    "Significant only because α = 0.6; the data do not favour new");
  assert.equal(headlineOf({ ...base, alternative: "less", conclusion: {} }, NAMES, DISPLAY),
    "No evidence that old is more accurate: the data favour new");
  assert.equal(headlineOf({ ...base, table: { b: 0, c: 0 }, conclusion: {} }, NAMES, DISPLAY),
    "new and old never disagree on these items");
  assert.equal(headlineOf({ ...base, conclusion: {} }, NAMES, DISPLAY), "No clear difference between new and old");
});

test("the intervals, with the clustered one from its block", () => {
  const report = {
    difference: { intervals: { wald: { low: 0.01, high: 0.1, label: "Wald" } } },
    clustered: { confidence_interval: { low: 0.0, high: 0.2, method: "Obuchowski, cluster-robust" } },
  };
  const all = differenceIntervals(report);
  assert.deepEqual(Object.keys(all), ["wald", "clustered"]);
  assert.equal(all.clustered.short, "Obuchowski");
  assert.deepEqual(limitsText({ interval_texts: { wald: ["+1.0", "+10.0"] } }, "wald"), ["+1.0", "+10.0"]);
  assert.deepEqual(limitsText({ interval_texts: { wald: [null, "+10.0"] } }, "wald"), ["—", "—"]);
  assert.deepEqual(limitsText({}, "wald"), ["—", "—"]);
});

test("the JSON export is the report without the response's extras", () => {
  const response = { schema: "mcnemar.report/1", table: {}, markdown: "#", text: "t", distribution: {}, display: {} };
  assert.deepEqual(reportOnly(response), { schema: "mcnemar.report/1", table: {} });
  assert.ok("display" in response);  // the response itself is left as it is
});
