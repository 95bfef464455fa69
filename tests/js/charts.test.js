import assert from "node:assert/strict";
import { test } from "node:test";

import {
  axisRange, chartWidth, clampX, doubled, fit, fitName, inTail, niceStep, overlaps, span, splitCount, stepTicks,
  stepValue, tailSpans, tickLabel, wrap,
} from "../../src/mcnemar/web/static/charts.js";

/* A measurer without a browser: every character half the font size wide. */
const fake = { width: (s, size) => String(s).length * size * 0.5 };

test("niceStep rounds a fifth of the range up to 1, 2, 2.5 or 5 times a power of ten", () => {
  assert.deepEqual(niceStep(0, 10), { units: 2, exp: 0 });
  assert.deepEqual(niceStep(-3, 9), { units: 25, exp: -1 });
  assert.deepEqual(niceStep(0, 0.004), { units: 1, exp: -3 });
  assert.deepEqual(niceStep(-20, 20), { units: 1, exp: 1 });
  for (const [lo, hi] of [[0, 1], [-0.37, 12.9], [-1e-9, 3e-9], [-80, 45]]) {
    const size = stepValue(niceStep(lo, hi));
    assert.ok(size >= (hi - lo) / 5 && size <= (hi - lo) / 5 * 2.5 + 1e-12, `${lo}, ${hi}: ${size}`);
  }
});

test("tick labels are written exactly from whole numbers, signed", () => {
  assert.equal(tickLabel(0, 0), "0");
  assert.equal(tickLabel(5, 0), "+5");
  assert.equal(tickLabel(-25, -1), "-2.5");
  assert.equal(tickLabel(3, -1), "+0.3");  // not 0.30000000000000004
  assert.equal(tickLabel(5, -3), "+0.005");
  assert.equal(tickLabel(40, -1), "+4");
  assert.equal(tickLabel(6, 1), "+60");
  assert.equal(tickLabel(-25, -10), "-0.0000000025");  // ten decimals
  // Beyond ten decimals: a power of ten, as the report writes such a quantity.
  assert.equal(tickLabel(-25, -11), "-2.5 × 10⁻¹⁰");
  assert.equal(tickLabel(25, -13), "+2.5 × 10⁻¹²");
  assert.equal(tickLabel(-1, -14), "-1 × 10⁻¹⁴");
});

test("the ticks of a step cover the range, zero exactly", () => {
  const ticks = stepTicks(-3.2, 11.9, { units: 5, exp: 0 });
  assert.deepEqual(ticks.map((t) => t.label), ["0", "+5", "+10"]);
  assert.deepEqual(ticks.map((t) => t.value), [0, 5, 10]);
  const fine = stepTicks(-0.31, 0.3, { units: 1, exp: -1 });
  assert.deepEqual(fine.map((t) => t.label), ["-0.3", "-0.2", "-0.1", "0", "+0.1", "+0.2", "+0.3"]);
  assert.ok(Object.is(fine[3].value, 0));
  assert.deepEqual(stepTicks(-3.2, 11.9, doubled({ units: 5, exp: 0 })).map((t) => t.label), ["0", "+10"]);
});

test("the interval axis holds zero, every interval and the estimate", () => {
  const [lo, hi] = axisRange([{ low: 2.6, high: 11.7 }, { low: null, high: null }, { low: 1, high: 12 }], 7);
  assert.ok(lo < 0 && hi > 12);
  assert.ok(Math.abs(lo + 0.72) < 1e-9 && Math.abs(hi - 12.72) < 1e-9);
  const [a, b] = axisRange([], null);
  assert.deepEqual([a, b].map((x) => Math.round(x * 100) / 100), [-1.12, 1.12]);
});

test("labels are laid out in their room", () => {
  assert.deepEqual(span(100, 20, "middle"), [90, 110]);
  assert.deepEqual(span(100, 20, "end"), [80, 100]);
  assert.equal(clampX(5, 20, "middle", 2, 300), 12);
  assert.equal(clampX(295, 20, "middle", 2, 300), 290);
  assert.equal(overlaps([0, 10], [[12, 20]]), true);  // closer than the gap
  assert.equal(overlaps([0, 10], [[30, 40]]), false);
  assert.equal(chartWidth(0, 560), 560);
  assert.equal(chartWidth(1200, 560), 900);
  assert.equal(chartWidth(120, 560), 300);
});

test("names are shortened with an ellipsis, wrapped within their lines", () => {
  assert.equal(fit(fake, "short", 100, 10), "short");
  const cut = fit(fake, "a rather long name of a model", 50, 10);
  assert.ok(cut.endsWith("…") && fake.width(cut, 10) <= 50, cut);
  const named = fitName(fake, "b: only ", "gpt-4o-2024-08-06-instruct", " right", 100, 10);
  assert.ok(named.startsWith("b: only ") && named.endsWith("… right") && fake.width(named, 10) <= 100, named);
  const lines = wrap(fake, "A = candidate candidate candidate model-v2.1", 60, 10, 400, 3);
  assert.ok(lines.length <= 3 && lines.every((l) => fake.width(l, 10) <= 60), lines);
  const unbroken = wrap(fake, "b".repeat(80), 60, 10, 400, 2);
  assert.equal(unbroken.length, 2);
  assert.ok(unbroken[1].endsWith("…"));
  assert.deepEqual(wrap(fake, "", 60, 10, 400, 2), [""]);
});

test("a wide count splits at a thousands comma", () => {
  assert.deepEqual(splitCount("1,234,567,890"), ["1,234,", "567,890"]);
  assert.deepEqual(splitCount("17"), ["17"]);
});

test("the tails of the null distribution", () => {
  assert.deepEqual([0, 3, 4, 16, 17, 20].map((k) => inTail(k, 17, 3, "two-sided")), [true, true, false, false, true, true]);
  assert.deepEqual([16, 17].map((k) => inTail(k, 17, 3, "greater")), [false, true]);
  assert.deepEqual([17, 18].map((k) => inTail(k, 17, 3, "less")), [true, false]);
  assert.deepEqual(tailSpans(17, 3, "two-sided", 0, 20), [[0, 3], [17, 20]]);
  assert.deepEqual(tailSpans(17, 3, "greater", 0, 20), [[17, 20]]);
  assert.deepEqual(tailSpans(17, 3, "less", 0, 20), [[0, 17]]);
});
