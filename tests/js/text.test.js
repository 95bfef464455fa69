import assert from "node:assert/strict";
import { test } from "node:test";

import { asText, breakRuns, capitalize, displayed, pairText, pIs, shown } from "../../src/mcnemar/web/static/text.js";

test("shown writes e-notation as a power of ten, with the server's digits", () => {
  assert.equal(shown("2.5e-07"), "2.5 × 10⁻⁷");
  assert.equal(shown("1.416e-1505"), "1.416 × 10⁻¹⁵⁰⁵");
  assert.equal(shown("<1e-300"), "<1 × 10⁻³⁰⁰");
  assert.equal(shown("+2.5e+12"), "+2.5 × 10¹²");
  assert.equal(shown("0.002577"), "0.002577");
  assert.equal(shown("+7.0"), "+7.0");
  assert.equal(shown("more than 0.9999"), "more than 0.9999");
});

test("shown has a dash for what the server did not send", () => {
  for (const missing of [null, undefined, ""]) assert.equal(shown(missing), "—");
});

test("pIs states a bound as a bound", () => {
  assert.equal(pIs("0.002577"), "p = 0.002577");
  assert.equal(pIs(shown("<1e-300")), "p <1 × 10⁻³⁰⁰");
});

test("pairText writes both limits or a dash", () => {
  assert.equal(pairText(["+2.6", "+11.7"]), "[+2.6, +11.7]");
  assert.equal(pairText(["-1e-12", "3e-12"]), "[-1 × 10⁻¹², 3 × 10⁻¹²]");
  assert.equal(pairText(null), "—");
  assert.equal(pairText(["1"]), "—");
});

test("breakRuns cuts after thousands commas and between exponent digits, losing nothing", () => {
  assert.deepEqual(breakRuns("4,503,599,627,370,496"), ["4,", "503,", "599,", "627,", "370,", "496"]);
  assert.deepEqual(breakRuns("5.6 × 10⁻¹³"), ["5.6 × 10⁻¹", "³"]);
  for (const s of ["4,503,599", "5.6 × 10⁻¹³⁵⁵⁷", "0.002577", ""]) assert.equal(breakRuns(s).join(""), s);
});

test("displayed reads the server's text, a dash where there is none", () => {
  const display = { alpha: "0.05", counts: { a: null, b: "1,234" } };
  assert.equal(displayed(display, "alpha"), "0.05");
  assert.equal(displayed(display, "counts", "b"), "1,234");
  assert.equal(displayed(display, "counts", "a"), "—");
  assert.equal(displayed(display, "counts"), "—");  // an object is not a text
  assert.equal(displayed(display, "flips", "listed"), "—");
  assert.equal(displayed(undefined, "alpha"), "—");
});

test("asText writes values that are not numbers shown", () => {
  assert.equal(asText("a note"), "a note");
  assert.equal(asText(["x", "y"]), "x, y");
  assert.equal(asText({ message: "careful" }), "careful");
  assert.equal(asText(null), "—");
  assert.equal(asText({ k: "v" }), '{"k":"v"}');
});

test("capitalize", () => {
  assert.equal(capitalize("exact test"), "Exact test");
  assert.equal(capitalize(""), "");
});
