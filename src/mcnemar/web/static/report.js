/* Rendering of the report in the results column. McNemar's report (mcnemar.report/1): the
   verdict, the pictures, the tests, the difference and the decisions beyond significance; a
   comparison of scores (mcnemar.scores/1, mcnemar.score-tasks/1) is scores.js's. Every number
   is a text of the server: the report's *_text fields, or the response's "display" object. */

import { intervals, nullDistribution, table2x2 } from "./charts.js";
import { $, breakable, clear, h } from "./dom.js";
import { FORM_FIELDS } from "./form.js";
import { renderScores, scoreKind } from "./scores.js";
import { clearFieldErrors, setStatus, updateSummary } from "./status.js";
import { asText, capitalize, displayed, pairText, shown } from "./text.js";
import { renderAlignment, renderFlips, renderLists, renderTasks, showVerdict } from "./views.js";

export function renderReport(page, report) {
  page.state.lastReport = report;
  page.state.lastMarkdown = report.markdown || "";
  clearFieldErrors(FORM_FIELDS);
  setStatus(page, "", false);
  page.els.results.classList.remove("stale");
  page.els.report.hidden = false;
  const scores = scoreKind(report) !== null;
  page.els.report.dataset.kind = scores ? "scores" : "pass-fail";
  $("scores-note").hidden = !scores;
  if (scores) {
    page.state.charts = [];
    renderScores(report);
    updateSummary(page);
    return;
  }
  // The cards a per-task comparison of scores does without.
  $("pitfall-card").hidden = false;
  $("power-card").hidden = false;

  const display = report.display || {};
  const names = report.names || { a: "candidate", b: "baseline" };
  const t = report.table;
  const tests = report.tests || {};
  const recKey = (report.recommended && report.recommended.test) || "exact";
  const rec = tests[recKey] || {};
  const conclusion = report.conclusion || {};
  /* Files of several tasks: the answer is the per-task comparison's headline (the one the
     command line's --by-task states: mcnemar.tasks.headline_rule), not the pooled table's.
     The page takes it from the JSON as it is. */
  const byTask = report.tasks && report.tasks.headline ? report.tasks : null;
  $("pooled-note").hidden = !byTask;
  if (byTask) {
    const top = byTask.headline;
    showVerdict({
      significant: top.significant,
      headline: top.words,
      test: capitalize(top.label),
      pText: shown(top.texts.pvalue),
      which: "the headline overall",
      conclusion: byTask.verdict,
      reason: byTask.overall && byTask.overall.reason ? "Why this overall: " + byTask.overall.reason : "",
    }, report.alternative, displayed(display, "alpha"));
    $("pooled-note").textContent = "Below the tasks: all " + displayed(display, "counts", "n") + " items pooled in one table " +
      "(the micro overall), with every test and interval of that table.";
  } else {
    showVerdict({
      significant: conclusion.significant,
      headline: headlineOf(report, names, display),
      test: rec.name ? capitalize(shortTestName(recKey, rec.name)) : recKey,
      pText: shown(rec.pvalue_text),
      which: "the recommended test",
      conclusion: conclusion.text || "",
      reason: report.recommended && report.recommended.reason ? "Why this test: " + report.recommended.reason : "",
    }, report.alternative, displayed(display, "alpha"));
  }

  $("words").textContent = report.words || "";
  page.state.charts = [];
  const draw = (chart) => { page.state.charts.push(chart); chart(); };
  draw(() => table2x2($("table-chart"), t, names, display.counts));

  renderDistribution(report, names, display, draw);
  renderTests(tests, recKey);
  renderDifference(report, display, draw);
  renderRatios(report);
  renderUnpaired(report.unpaired);
  renderPower(report.power, t, display);
  renderAlignment(report.alignment || (byTask && byTask.alignment), names, display.alignment);
  renderFlips(report, names, display.flips);
  renderTasks(report, display.tasks);
  renderMargin(report, display);
  renderBayes(report, names, display);

  renderLists(report.warnings, report.assumptions);
  updateSummary(page);
}

/* The verdict in a few words: the report's own headline (written from the same claims as
   its conclusion). A report without one gets the same words built from its fields, so
   that the headline never says more than the conclusion does. */
export function headlineOf(report, names, display) {
  const conclusion = report.conclusion || {};
  if (typeof conclusion.headline === "string" && conclusion.headline) return conclusion.headline;
  const t = report.table || {};
  const nameOf = { a: names.a, b: names.b };
  const otherOf = { a: names.b, b: names.a };
  const direction = conclusion.direction !== undefined ? conclusion.direction
    : t.b === t.c ? null : t.b > t.c ? "a" : "b";
  const side = { greater: "a", less: "b" }[report.alternative] || null;
  if (conclusion.better === "a" || conclusion.better === "b") {
    return nameOf[conclusion.better] + " did better than " + otherOf[conclusion.better];
  }
  if (conclusion.significant) {
    return "Significant only because α = " + displayed(display, "alpha") + "; the data do not favour " +
      (side ? nameOf[side] : "either system");
  }
  if (side && direction && direction !== side) {
    return "No evidence that " + nameOf[side] + " is more accurate: the data favour " + nameOf[direction];
  }
  if ((t.b || 0) + (t.c || 0) === 0) return names.a + " and " + names.b + " never disagree on these items";
  if (side) return "No clear evidence that " + nameOf[side] + " is more accurate than " + otherOf[side];
  return "No clear difference between " + names.a + " and " + names.b;
}

function shortTestName(key, name) {
  return { exact: "exact", midp: "mid-p", asymptotic: "chi-square", corrected: "corrected chi-square" }[key] || name;
}

function renderDistribution(report, names, display, draw) {
  const chart = $("dist-chart");
  const caption = $("dist-caption");
  const dist = report.distribution;
  const t = report.table;
  const exact = (report.tests || {}).exact || {};
  if (!dist) { clear(chart); caption.textContent = ""; return; }
  draw(() => nullDistribution(chart, dist, t, report.alternative, names,
    { counts: display.counts, distribution: display.distribution }));
  if (t.discordant === 0) {
    caption.textContent = "There are no disagreements: the two systems are right and wrong on exactly the same items, so the data cannot tell which is better (p = 1).";
    return;
  }
  const D = displayed(display, "counts", "discordant");
  const tails = report.alternative === "two-sided" ? "both tails hold" : "the shaded tail holds";
  caption.textContent = "If " + names.a + " and " + names.b + " were equally good, each of the " +
    D + " disagreements would go either way with probability 1/2, and b would follow this Binomial(" +
    D + ", 1/2) distribution. The observed split is " + displayed(display, "counts", "b") + " : " +
    displayed(display, "counts", "c") + "; " + tails + " the splits at least as lopsided, with total probability " +
    shown(exact.pvalue_text) + " (the exact p-value)" +
    (dist.step > 1 ? ". Only the central part is drawn, one value in every " + displayed(display, "distribution", "step") + "." : ".");
}

function renderTests(tests, recKey) {
  const body = document.querySelector("#tests-table tbody");
  clear(body);
  for (const key of Object.keys(tests)) { /* in the report's own order */
    const test = tests[key];
    const nameCell = h("td", {}, [
      test.name || key,
      key === recKey ? h("span", { class: "tag" }, ["recommended"]) : null,
      test.convention ? h("div", { class: "small" }, [test.convention]) : null,
    ]);
    body.appendChild(h("tr", { class: key === recKey ? "recommended" : null, "data-test": key }, [
      nameCell,
      h("td", { class: "num" }, breakable(shown(test.statistic_text))),
      h("td", { class: "num" }, breakable(shown(test.pvalue_text))),
    ]));
  }
}

/* The limits of one interval in points, as the report prints them. */
export function limitsText(diff, key) {
  const given = diff.interval_texts && diff.interval_texts[key];
  if (Array.isArray(given) && given.length === 2 && given[0] !== null && given[1] !== null) return given.map(shown);
  return ["—", "—"];
}

function renderDifference(report, display, draw) {
  const diff = report.difference || {};
  const est = diff.estimate;
  const acc = report.accuracy;
  const names = report.names;
  const recommended = diff.recommended_interval;
  const all = differenceIntervals(report);
  const level = displayed(display, "confidence_level");
  const p = $("diff-estimate");
  clear(p);
  if (est === null || est === undefined) {
    p.textContent = "The difference in accuracy needs the number of items: give a (both right) and d (both wrong) as well.";
  } else {
    const rec = all[recommended];
    const recText = limitsText(diff, recommended);
    p.append(
      names.a + " minus " + names.b + ": ",
      h("strong", {}, [shown(diff.estimate_text) + " points"]),
      acc && acc.a_text ? " (" + acc.a_text + " vs " + acc.b_text + ")" : "",
      rec && rec.low !== null ? "; " + level + " " + intervalLabel(rec, recommended) + " interval " : "",
      rec && rec.low !== null ? h("strong", { id: "recommended-interval" }, ["[" + recText[0] + ", " + recText[1] + "]"]) : "",
      rec && rec.low !== null ? " points." : "."
    );
  }
  // The picture's coordinates are in points; its labels are the table's texts.
  const rows = Object.keys(all).map((key) => ({
    key,
    label: intervalLabel(all[key], key),
    short: all[key].short || intervalLabel(all[key], key),
    low: all[key].low === null ? null : all[key].low * 100,
    high: all[key].high === null ? null : all[key].high * 100,
  }));
  const body = document.querySelector("#ci-table tbody");
  clear(body);
  for (const r of rows) {
    const texts = limitsText(diff, r.key);
    body.appendChild(h("tr", { class: r.key === recommended ? "recommended" : null, "data-interval": r.key }, [
      h("td", {}, [r.label, r.key === recommended ? h("span", { class: "tag" }, ["recommended"]) : null]),
      h("td", { class: "num" }, [texts[0]]),
      h("td", { class: "num" }, [texts[1]]),
    ]));
  }
  const chart = $("ci-chart");
  if (est === null || est === undefined || rows.length === 0) { clear(chart); return; }
  draw(() => intervals(chart, rows, est * 100, recommended));
}

/* The report's intervals of the difference, each with its label and short label (from the
   report). With clustered items the recommended one is the cluster-robust interval, which
   the report gives in its "clustered" block: it joins the list under that key, labelled by
   its method. */
export function differenceIntervals(report) {
  const diff = report.difference || {};
  const out = Object.assign({}, diff.intervals || {});
  const ci = report.clustered && report.clustered.confidence_interval;
  if (ci && !("clustered" in out)) {
    const method = ci.method || "cluster-robust";
    out.clustered = { low: ci.low, high: ci.high, label: method, short: method.split(",")[0] };
  }
  return out;
}

/* An interval's label as the report gives it (its key when a client sends none). */
function intervalLabel(interval, key) {
  return (interval && interval.label) || key;
}

function renderRatios(report) {
  const box = $("ratios");
  clear(box);
  const parts = [
    ["Ratio of accuracies, A / B", report.ratio],
    ["Conditional odds ratio, b / c", report.odds_ratio],
  ];
  for (const [title, block] of parts) {
    if (!block) continue;
    box.appendChild(h("p", {}, [h("strong", {}, [title + ": "]), shown(block.estimate_text)]));
    const ul = h("ul", {}, []);
    const texts = block.interval_texts || {};
    for (const [key, iv] of Object.entries(block.intervals || {})) {
      const [low, high] = texts[key] || [null, null];
      ul.appendChild(h("li", {}, [intervalLabel(iv, key) + ": [" + shown(low) + ", " + (high === null ? "∞" : shown(high)) + "]"]));
    }
    box.appendChild(ul);
  }
}

function renderUnpaired(unpaired) {
  const p = $("unpaired");
  clear(p);
  if (!unpaired) { p.textContent = "Not available."; return; }
  if (unpaired.pvalue === null || unpaired.pvalue === undefined) {
    p.textContent = unpaired.note || "The unpaired comparison needs a and d.";
    return;
  }
  // The report's own sentence, with the p-value in its digits.
  p.textContent = unpaired.note || "";
}

function renderPower(power, table, display) {
  const p = $("power");
  if (!power) {
    p.textContent = table.n === null || table.n === undefined
      ? "Give a and d too: planning needs the number of items."
      : "Not available.";
    return;
  }
  if (power.note) { p.textContent = power.note; return; }
  p.textContent = power.detectable_difference_text
    ? "Smallest difference detectable with " + displayed(display, "power_level") +
      " power on this many items: about " + power.detectable_difference_text + " points."
    : asText(power);
}

/* A list of figures, each marked with the key of the JSON field it shows. */
function figures(dl, items) {
  clear(dl);
  for (const [key, term, value] of items) {
    dl.append(h("dt", {}, [term]), h("dd", { "data-key": key }, breakable(value)));
  }
}

/* The tests against the margin: the report's own sentences and its numbers. */
function renderMargin(report, display) {
  const card = $("margin-card");
  const ni = report.noninferiority;
  const eq = report.equivalence;
  if (!ni) { card.hidden = true; return; }
  card.hidden = false;
  $("margin-heading").textContent = "Against a margin of " + displayed(display, "margin");
  const niBadge = $("ni-badge");
  niBadge.textContent = ni.noninferior ? "Non-inferior" : "Non-inferiority not shown";
  niBadge.classList.toggle("shown", !!ni.noninferior);
  $("ni-text").textContent = ni.text || "";
  // The numbers as the report's line prints them (the interval read against ±margin).
  figures($("ni-numbers"), [
    ["pvalue", "One-sided p", shown(ni.pvalue_text)],
    ["statistic", "Z (" + (ni.name || ni.method) + ")", shown(ni.statistic_text)],
    ["confidence_interval", displayed(display, "margin_level") + " Tango interval", shown(ni.interval_text)],
  ]);
  const box = $("eq-box");
  if (!eq) { box.hidden = true; return; }
  box.hidden = false;
  const eqBadge = $("eq-badge");
  eqBadge.textContent = eq.equivalent ? "Equivalent" : "Equivalence not shown";
  eqBadge.classList.toggle("shown", !!eq.equivalent);
  $("eq-text").textContent = eq.text || "";
  figures($("eq-numbers"), [
    ["pvalue", "Larger one-sided p", shown(eq.pvalue_text)],
    ["pvalue_lower", "p, not worse by the margin", shown(eq.pvalue_lower_text)],
    ["pvalue_upper", "p, not better by the margin", shown(eq.pvalue_upper_text)],
  ]);
}

/* The Bayesian summary: three probabilities that add up to 1, the median and the credible
   interval, all from the report's "bayes" block. */
function renderBayes(report, names, display) {
  const card = $("bayes-card");
  const b = report.bayes;
  if (!b) { card.hidden = true; return; }
  card.hidden = false;
  const r = displayed(display, "rope");
  const rows = [
    ["prob_a_better", "a-side", names.a + " is more accurate by more than " + r, b.prob_a_better, b.prob_a_better_text],
    ["prob_equivalent", "equal", "they are within ±" + r + " of each other (practically equal)", b.prob_equivalent, b.prob_equivalent_text],
    ["prob_b_better", "b-side", names.b + " is more accurate by more than " + r, b.prob_b_better, b.prob_b_better_text],
  ];
  const bar = $("bayes-bar");
  clear(bar);
  const body = document.querySelector("#bayes-table tbody");
  clear(body);
  for (const [key, kind, words, p, pText] of rows) {
    const segment = h("span", { class: "prob-" + kind }, []);
    // The bar's geometry, not a number shown.
    segment.style.width = (100 * Math.max(0, Math.min(1, p || 0))) + "%";
    bar.appendChild(segment);
    body.appendChild(h("tr", { "data-key": key }, [
      h("td", {}, [h("span", { class: "swatch prob-" + kind }, []), words]),
      h("td", { class: "num" }, breakable(shown(pText))),
    ]));
  }
  const median = $("bayes-median");
  clear(median);
  median.append(
    "Posterior median of " + names.a + " minus " + names.b + ": ",
    h("strong", { "data-key": "median" }, [shown(b.median_text) + " points"]),
    " (" + displayed(display, "credible_level") + " credible interval ",
    h("strong", { "data-key": "credible_interval" }, [pairText(b.credible_interval_texts)]),
    " points)."
  );
  $("bayes-prior").textContent = "Prior Dirichlet(" + displayed(display, "prior") + ") on the four cells; " +
    (b.method || "exact posterior") + ", not simulated.";
}

/* The report as the JSON export holds it: the response without its extras (the renderings,
   the picture's distribution and the display strings). */
export function reportOnly(report) {
  const copy = Object.assign({}, report);
  for (const key of ["markdown", "text", "distribution", "display"]) delete copy[key];
  return copy;
}
