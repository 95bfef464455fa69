/* The report of a comparison of scores that are not pass/fail (an upload of graded runs): the
   score report (mcnemar.scores/1, ScoreReport.to_dict) or, with several tasks, the per-task
   comparison of scores (mcnemar.score-tasks/1). The verdict first, then the mean difference
   with its intervals and the counts of items each run scored higher, the four tests with the
   recommended one marked, the items with the largest differences (searchable, views.js), the
   unpaired pitfall, what the test set could detect and the notes on repeated samples,
   clusters and a margin. Every number is a text of the server: the report's own sentences and
   *_text fields, or the response's "display" object (mcnemar.web.display.score_display). */

import { $, breakable, clear, h } from "./dom.js";
import { capitalize, displayed, shown } from "./text.js";
import { renderAlignment, renderFlips, renderLists, showVerdict } from "./views.js";

const SCHEMAS = { "mcnemar.scores/1": "scores", "mcnemar.score-tasks/1": "score-tasks" };

/* "scores" (one comparison), "score-tasks" (task by task), or null for McNemar's report. */
export function scoreKind(report) {
  return (report && SCHEMAS[report.schema]) || null;
}

/* What the verdict card says of a comparison of scores: the report's headline and
   conclusion, the recommended test and its p-value (the per-task comparison: its macro
   overall), and why. */
export function scoreVerdict(report) {
  const display = report.display || {};
  if (scoreKind(report) === "score-tasks") {
    const overall = report.overall || {};
    const texts = display.overall || {};
    return {
      significant: !!texts.significant,
      headline: overall.headline || "",
      test: "Overall z-test",
      pText: shown(texts.pvalue),
      which: "the mean of the tasks' mean differences",
      conclusion: overall.text || "",
      reason: "Each task's p-value is its own report's recommended test (the paired t test, or the permutation " +
        "test for few or skewed items), adjusted across tasks (" + (report.adjust || "holm") + ").",
    };
  }
  const conclusion = report.conclusion || {};
  const recommended = report.recommended || {};
  const key = recommended.test || "t";
  const test = (report.tests || {})[key] || {};
  return {
    significant: !!conclusion.significant,
    headline: conclusion.headline || "",
    test: capitalize(test.name || key),
    pText: shown(((display.tests || {})[key] || {}).pvalue),
    which: "the recommended test",
    conclusion: conclusion.text || "",
    reason: recommended.reason ? "Why this test: " + recommended.reason : "",
  };
}

/* The report's intervals of the mean difference (the recommended one marked) and the
   Hodges-Lehmann interval is left to its note: [{ key, label, low, high, recommended }]. */
export function scoreIntervals(report) {
  const diff = report.difference || {};
  const texts = (report.display || {}).intervals || {};
  return Object.keys(diff.intervals || {}).map((key) => {
    const [low, high] = texts[key] || [null, null];
    return {
      key, label: diff.intervals[key].label || key, low: shown(low), high: shown(high),
      recommended: key === diff.recommended_interval,
    };
  });
}

/* The four tests in the report's order: [{ key, name, statistic, pvalue, detail,
   convention, recommended }], the texts as the text report's table writes them. */
export function scoreTests(report) {
  const tests = report.tests || {};
  const texts = (report.display || {}).tests || {};
  const recommended = (report.recommended || {}).test;
  return Object.keys(tests).map((key) => {
    const t = texts[key] || {};
    return {
      key, name: tests[key].name || key, statistic: shown(t.statistic), pvalue: shown(t.pvalue),
      detail: t.detail || "", convention: tests[key].convention || "", recommended: key === recommended,
    };
  });
}

/* The notes of a score report that apply to it: [[heading, text]] (repeated samples of an
   item, clustered items, a margin), each the report's own sentence. */
export function scoreNotes(report) {
  const out = [];
  if (report.epochs && report.epochs.note) out.push(["Repeated samples of an item", report.epochs.note]);
  if (report.clusters && report.clusters.note) out.push(["Clustered items", report.clusters.note]);
  if (report.noninferiority && report.noninferiority.note) out.push(["Against a margin", report.noninferiority.note]);
  return out;
}

/* The per-task comparison's warnings: each task's, prefixed with its task. */
export function taskWarnings(report) {
  const out = [];
  for (const task of report.tasks || []) {
    for (const w of (task.report && task.report.warnings) || []) out.push(task.task + ": " + w);
  }
  return out;
}

export function renderScores(report) {
  const names = report.names || { a: "A", b: "B" };
  const display = report.display || {};
  const byTask = scoreKind(report) === "score-tasks";
  showVerdict(scoreVerdict(report), report.alternative, displayed(display, "alpha"));
  renderScoreTasks(byTask ? report : null, display);
  $("score-difference-card").hidden = byTask;
  $("score-tests-card").hidden = byTask;
  $("pitfall-card").hidden = byTask;
  $("power-card").hidden = byTask;
  if (!byTask) {
    renderScoreDifference(report, names, display);
    renderScoreTests(report);
    $("unpaired").textContent = (report.unpaired && report.unpaired.note) || "Not available.";
    $("power").textContent = (report.power && report.power.note) ||
      "Not available: the differences do not vary, so there is no standard deviation to plan with.";
  }
  renderAlignment(byTask ? null : report.alignment, names, display.alignment);
  renderFlips(report, names, display.flips);
  renderScoreNotes(byTask ? [] : scoreNotes(report));
  const first = byTask ? ((report.tasks || [])[0] || {}).report || {} : report;
  renderLists(byTask ? taskWarnings(report) : report.warnings, first.assumptions);
}

/* The mean difference, the recommended interval and the counts of items each run scored
   higher; the intervals' table and the Hodges-Lehmann estimate's note. */
function renderScoreDifference(report, names, display) {
  const diff = report.difference || {};
  const rows = scoreIntervals(report);
  const rec = rows.find((r) => r.recommended);
  const means = display.means || {};
  const p = $("score-estimate");
  clear(p);
  p.append(
    names.a + " minus " + names.b + ": ",
    h("strong", { id: "score-difference" }, [shown(diff.estimate_text)]),
    " on average (mean score " + shown(means.a) + " vs " + shown(means.b) + ")",
    rec ? "; " + displayed(display, "confidence_level") + " " + rec.label + " " : ".",
    rec ? h("strong", { id: "score-recommended-interval" }, ["[" + rec.low + ", " + rec.high + "]"]) : null,
    rec ? "." : null
  );
  const counts = display.counts || {};
  const dl = $("score-counts");
  clear(dl);
  const add = (key, term, value) => dl.append(h("dt", {}, [term]), h("dd", { "data-key": key }, breakable(value)));
  add("higher_a", names.a + " scored higher", shown(counts.higher_a) + " items");
  add("equal", "Equal", shown(counts.equal) + " items");
  add("higher_b", names.b + " scored higher", shown(counts.higher_b) + " items");
  if (counts.clusters) add("clusters", "Clusters", shown(counts.clusters) + " (of " + shown(counts.n) + " items)");
  const body = document.querySelector("#score-ci-table tbody");
  clear(body);
  for (const r of rows) {
    body.appendChild(h("tr", { class: r.recommended ? "recommended" : null, "data-interval": r.key }, [
      h("td", {}, [r.label, r.recommended ? h("span", { class: "tag" }, ["recommended"]) : null]),
      h("td", { class: "num" }, [r.low]),
      h("td", { class: "num" }, [r.high]),
    ]));
  }
  $("score-hodges-lehmann").textContent = (report.hodges_lehmann && report.hodges_lehmann.note) || "";
}

function renderScoreTests(report) {
  const body = document.querySelector("#score-tests-table tbody");
  clear(body);
  for (const t of scoreTests(report)) {
    body.appendChild(h("tr", { class: t.recommended ? "recommended" : null, "data-test": t.key }, [
      h("td", {}, [
        t.name,
        t.recommended ? h("span", { class: "tag" }, ["recommended"]) : null,
        t.convention ? h("div", { class: "small" }, [t.convention]) : null,
      ]),
      h("td", { class: "num", "data-key": "statistic" }, breakable(t.statistic)),
      h("td", { class: "num", "data-key": "pvalue" }, [
        h("span", { class: "value" }, breakable(t.pvalue)),
        t.detail ? h("div", { class: "small" }, [t.detail]) : null,
      ]),
    ]));
  }
}

/* Task by task: the table, worst first (the rows as the text report prints them:
   display.tasks), under the verdict that states the macro overall. */
function renderScoreTasks(report, display) {
  const card = $("score-tasks-card");
  const body = document.querySelector("#score-tasks-table tbody");
  clear(body);
  if (!report) { card.hidden = true; return; }
  card.hidden = false;
  const rows = display.tasks || [];
  (report.tasks || []).forEach((task, i) => {
    const x = rows[i] || {};
    const flag = task.worse ? "worse" : task.better ? "better" : null;
    const headline = task.report && task.report.conclusion ? task.report.conclusion.headline : "";
    body.appendChild(h("tr", { "data-task": task.task, class: flag }, [
      h("td", {}, [
        task.task,
        flag ? h("span", { class: "tag" }, [flag === "worse" ? "significantly worse" : "significantly better"]) : null,
        h("div", { class: "small" }, [shown(x.n) + " items" + (headline ? "; " + headline : "")]),
      ]),
      h("td", { class: "num", "data-key": "means" }, [shown(x.mean_a) + ", " + shown(x.mean_b)]),
      h("td", { class: "num", "data-key": "difference" }, [shown(x.difference)]),
      h("td", { class: "num", "data-key": "pvalue" }, breakable(shown(x.pvalue))),
      h("td", { class: "num", "data-key": "adjusted_pvalue" }, breakable(shown(x.adjusted_pvalue))),
    ]));
  });
  $("score-tasks-note").textContent = "Each task's report, with every test and interval, is in the JSON export " +
    "(tasks[].report) and in mcnemar compare --by-task --analysis scores.";
}

/* The notes that apply: one under its own heading, several each under theirs. */
function renderScoreNotes(notes) {
  const card = $("score-notes-card");
  const box = $("score-notes");
  clear(box);
  card.hidden = notes.length === 0;
  $("score-notes-heading").textContent = notes.length === 1 ? notes[0][0] : "Repeated samples, clusters and margin";
  for (const [heading, text] of notes) {
    if (notes.length > 1) box.append(h("h4", {}, [heading]));
    box.append(h("p", {}, [text]));
  }
}
