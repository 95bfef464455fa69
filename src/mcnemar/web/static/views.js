/* The views both reports share (the verdict card, the warnings and assumptions) and those of
   an upload: the task-by-task table, the items that flipped (with their search; of scores,
   the items each run scored higher) and how the two files were paired. The numbers are the
   server's texts: the per-task result's texts, and the response's display.tasks,
   display.flips and display.alignment. */

import { $, breakable, clear, h } from "./dom.js";
import { asText, displayed, pIs, shown } from "./text.js";

/* The verdict card: the badge, the headline in a few words, the p-value it rests on, the
   conclusion and why this test (or this overall). v: { significant, headline, test, pText,
   which, conclusion, reason }; alpha: its text as the server wrote it. */
export function showVerdict(v, alternative, alpha) {
  const verdict = document.querySelector(".verdict");
  verdict.classList.toggle("significant", !!v.significant);
  verdict.classList.toggle("not-significant", !v.significant);
  $("verdict-badge").textContent = (v.significant ? "Significant" : "Not significant") + " at α = " + alpha;
  $("verdict-headline").textContent = v.headline;
  $("conclusion").textContent = v.conclusion;
  const headline = $("headline-p");
  clear(headline);
  headline.append(
    v.test + " " + pIs(v.pText).slice(0, -v.pText.length),
    h("strong", { id: "headline-pvalue" }, breakable(v.pText)),
    " (" + alternative + ", " + v.which + ")"
  );
  $("reason").textContent = v.reason;
}

/* The report's warnings and assumptions, each a line of its own. */
export function renderLists(warnings, assumptions) {
  for (const [id, items] of [["warnings", warnings], ["assumptions", assumptions]]) {
    const list = $(id);
    clear(list);
    for (const item of items || []) list.appendChild(h("li", {}, [asText(item)]));
  }
}

/* Files of several tasks: the per-task result (mcnemar.tasks/1) first, under the verdict
   (which states its headline): the micro and macro overall lines, the forest plot (an SVG
   drawn by the server, shown as an image so that nothing in it can run) and the table,
   worst first, every number as the command line prints it; a row whose interval and test
   disagree carries the report's explanation. The pooled table's report follows.
   counts: display.tasks, each task's counts in the order of the tasks. */
export function renderTasks(report, counts) {
  const card = $("tasks-card");
  const result = report.tasks;
  const figure = $("forest-chart");
  const body = document.querySelector("#tasks-table tbody");
  const overall = $("tasks-overall");
  clear(figure);
  clear(body);
  clear(overall);
  if (!result || !Array.isArray(result.tasks)) { card.hidden = true; return; }
  card.hidden = false;
  // The micro and macro lines (the line on the headline's choice is the verdict's "why").
  const why = result.overall && result.overall.reason ? "Headline: " + result.overall.reason : null;
  for (const line of (result.overall && result.overall.lines) || []) {
    if (line !== why) overall.appendChild(h("li", {}, [line]));
  }
  if (report.forest_svg) {
    const url = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(report.forest_svg);
    figure.appendChild(h("img", { src: url, alt: "Forest plot: each task's difference in accuracy with its interval, worst first", class: "forest" }, []));
  }
  result.tasks.forEach((task, i) => {
    const x = task.texts || {};
    const n = (counts && counts[i]) || {};
    const flag = task.worse ? "worse" : task.better ? "better" : null;
    body.appendChild(h("tr", { "data-task": task.task, class: flag }, [
      h("td", {}, [
        task.task,
        flag ? h("span", { class: "tag" }, [flag === "worse" ? "significantly worse" : "significantly better"]) : null,
        h("div", { class: "small" }, ["b = " + displayed(n, "b") + ", c = " + displayed(n, "c") + " of " + displayed(n, "n")]),
      ]),
      h("td", { class: "num", "data-key": "difference" }, [h("span", { class: "value" }, [shown(x.difference)]),
        h("div", { class: "small", "data-key": "interval" }, [shown(x.low) + " to " + shown(x.high)])]),
      h("td", { class: "num", "data-key": "pvalue" }, [h("span", { class: "value" }, breakable(shown(x.pvalue))),
        h("div", { class: "small" }, [task.test])]),
      h("td", { class: "num", "data-key": "adjusted_pvalue" }, [h("span", { class: "value" }, breakable(shown(x.adjusted_pvalue)))]),
    ]));
    if (task.note) {
      body.appendChild(h("tr", { class: "task-note", "data-note-for": task.task }, [
        h("td", { colspan: "4" }, [task.note]),
      ]));
    }
  });
}

/* The two sides of a report's flips, in the page's words: McNemar's (a_only: A right and B
   wrong, b_only: the reverse) or, of scores, the items each run scored higher (a_higher,
   b_higher; each item with its difference A - B). null when the report has none. */
export function flipSides(flips, names) {
  if (!flips) return null;
  if (flips.a_higher && flips.b_higher) {
    return {
      graded: true,
      heading: "Items scored differently",
      sides: [["a_higher", names.a + " scored higher", "flip-a"], ["b_higher", names.b + " scored higher", "flip-b"]],
    };
  }
  if (flips.a_only && flips.b_only) {
    return {
      graded: false,
      heading: "Items that flipped",
      sides: [["a_only", names.a + " right, " + names.b + " wrong", "flip-a"], ["b_only", names.a + " wrong, " + names.b + " right", "flip-b"]],
    };
  }
  return null;
}

/* A listed item's scores as the row shows them: "1, 0" (pass/fail), or with the difference
   "0.98, 0.733333 (+0.246667)" (scores); texts of the server. */
export function flipScores(texts, graded) {
  const [scoreA, scoreB, diff] = texts || ["—", "—", "—"];
  return scoreA + ", " + scoreB + (graded ? " (" + (diff || "—") + ")" : "");
}

/* The items that flipped (an upload's flips: each side's count and its first items, for one
   task in report.flips, for several in report.tasks.flips; of scores, the items each run
   scored higher, the largest differences first), listed under the table; the search box
   keeps the rows whose text holds what is typed. texts: display.flips, the counts and each
   item's scores as the text report prints them. */
export function renderFlips(report, names, texts) {
  const card = $("flips-card");
  const body = document.querySelector("#flips-table tbody");
  clear(body);
  $("flips-search").value = "";
  const flips = report.flips || (report.tasks && report.tasks.flips);
  const view = flipSides(flips, names);
  if (!view) { card.hidden = true; return; }
  card.hidden = false;
  const shownFlips = texts || {};
  const [[keyA], [keyB]] = view.sides;
  const sideA = flips[keyA], sideB = flips[keyB];
  $("flips-heading").textContent = view.heading;
  $("flips-summary").textContent = view.graded
    ? names.a + " scored higher on " + displayed(shownFlips, keyA, "count") + (sideA.count === 1 ? " item" : " items") +
      ", " + names.b + " on " + displayed(shownFlips, keyB, "count") + "; the largest differences first."
    : names.a + " right and " + names.b + " wrong on " + displayed(shownFlips, keyA, "count") +
      (sideA.count === 1 ? " item" : " items") + "; " + names.a + " wrong and " + names.b + " right on " +
      displayed(shownFlips, keyB, "count") + ".";
  $("flips-scores-head").textContent = view.graded ? "Scores A, B (A − B)" : "Scores A, B";
  const items = (sideA.items || []).concat(sideB.items || []);
  const withContent = items.some((item) => item.content);
  $("flips-content-head").hidden = !withContent;
  const columns = withContent ? 3 : 2;
  for (const [key, title, kind] of view.sides) {
    const side = flips[key];
    body.appendChild(h("tr", { class: "flip-side", "data-side": key }, [
      h("th", { scope: "rowgroup", colspan: String(columns) }, [title + " (" + displayed(shownFlips, key, "count") + ")"]),
    ]));
    const scores = (shownFlips[key] && shownFlips[key].scores) || [];
    (side.items || []).forEach((item, i) => {
      body.appendChild(h("tr", { class: kind + " flip", "data-side": key }, [
        h("td", { class: "flip-id" }, [asText(item.id), item.task ? h("div", { class: "small" }, ["task " + item.task]) : null]),
        h("td", { class: "num" }, [flipScores(scores[i], view.graded)]),
        withContent ? h("td", { class: "flip-content" }, [item.content ? String(item.content) : "—"]) : null,
      ]));
    });
  }
  const listed = (sideA.items || []).length + (sideB.items || []).length;
  let note = "";
  if (flips.reason) note = "The items are not listed: " + flips.reason + ".";
  else if (listed < sideA.count + sideB.count) {
    note = "The first " + displayed(shownFlips, "listed") + " of " + displayed(shownFlips, "total") +
      " are listed; mcnemar compare --flips-out FILE writes them all.";
  }
  $("flips-note").textContent = note;
  filterFlips();
}

/* Which rows hold the query (case aside; every row for an empty query). */
export function matchingRows(texts, query) {
  const q = query.trim().toLowerCase();
  return texts.map((t) => !q || t.toLowerCase().includes(q));
}

/* "3 of 12 listed items match." (the counts are of the rows listed, at most a few hundred:
   written as they are). */
export function matchCount(matches, query) {
  if (!query.trim()) return "";
  return matches.filter(Boolean).length + " of " + matches.length + " listed items match.";
}

export function filterFlips() {
  const query = $("flips-search").value;
  const rows = Array.from(document.querySelectorAll("#flips-table tbody tr.flip"));
  const matches = matchingRows(rows.map((row) => row.textContent), query);
  rows.forEach((row, i) => { row.hidden = !matches[i]; });
  $("flips-count").textContent = matchCount(matches, query);
}

/* How the two files were paired, in the words of the command line's alignment summary:
   each run's file, format and counts, with the task, scorer and status its log records.
   counts: display.alignment, the block's numbers at their places, as text. */
export function renderAlignment(alignment, names, counts) {
  const card = $("alignment-card");
  const dl = $("alignment");
  clear(dl);
  if (!alignment) { card.hidden = true; return; }
  card.hidden = false;
  const n = counts || {};
  const add = (term, value, key) => dl.append(h("dt", {}, [term]), h("dd", { "data-key": key || null }, Array.isArray(value) ? value : [value]));
  if (Array.isArray(alignment.tasks) && typeof alignment.dropped_items === "number") {
    // Files of several tasks, paired task by task.
    add("Paired items", displayed(n, "matched") + " in " + displayed(n, "task_count") +
      (alignment.tasks.length === 1 ? " task" : " tasks") + " (" + alignment.tasks.map((t) => t.task).join(", ") + ")");
    add("Dropped", displayed(n, "dropped_items") + " items");
    const tasksDropped = alignment.dropped_tasks || {};
    for (const [side, label] of [["only_in_a", "A"], ["only_in_b", "B"]]) {
      const only = tasksDropped[side] || [];
      if (only.length) add("Tasks only in " + label, only.join(", "));
    }
    for (const side of ["a", "b"]) {
      const run = alignment.runs && alignment.runs[side];
      if (!run) continue;
      add(side === "a" ? "A (" + names.a + ")" : "B (" + names.b + ")", (run.path || run.name) + " (" + run.format + ")", "run-" + side);
    }
    return;
  }
  const known = alignment.runs && alignment.dropped && typeof alignment.matched === "number";
  if (!known) {
    for (const [key, value] of Object.entries(alignment)) {
      add(key.replace(/_/g, " "), typeof value === "number" ? displayed(n, key) : asText(value));
    }
    return;
  }
  const key = Array.isArray(alignment.key) ? alignment.key.join(" + ") : asText(alignment.key);
  add("Paired items", displayed(n, "matched") + " (matched by " + key + ")");
  const dropped = alignment.dropped;
  const why = [];
  if (dropped.only_in_a) why.push(displayed(n, "dropped", "only_in_a") + " only in A");
  if (dropped.only_in_b) why.push(displayed(n, "dropped", "only_in_b") + " only in B");
  if (dropped.no_score) why.push(displayed(n, "dropped", "no_score") + " without a score");
  add("Dropped", displayed(n, "dropped", "total") + (why.length ? " (" + why.join(", ") + ")" : ""));
  for (const side of ["a", "b"]) {
    const run = alignment.runs[side];
    if (!run) continue;
    let value = (run.path || run.name) + " (" + run.format + "): " + displayed(n, "runs", side, "records") + " records, " +
      displayed(n, "runs", side, "items") + " items";
    if (run.max_samples > 1) value += ", up to " + displayed(n, "runs", side, "max_samples") + " samples per item";
    if (run.binarised) value += ", " + displayed(n, "runs", side, "binarised") + " scores binarised";
    // Task, scorer and status as the log records them (the summary's words).
    const described = run.description ? h("div", { class: "small", "data-key": "description" }, [run.description + "."]) : null;
    add(side === "a" ? "A (" + names.a + ")" : "B (" + names.b + ")", [value, described], "run-" + side);
  }
  const check = alignment.content_check;
  if (check && check.field && check.checked) {
    add("Content", check.field + " of " + displayed(n, "content_check", "agree") + " of " + displayed(n, "content_check", "checked") +
      " paired items agrees in A and B");
  }
  if (alignment.threshold !== null && alignment.threshold !== undefined) add("Threshold", "score ≥ " + displayed(n, "threshold") + " passes");
  if (alignment.reduce) add("Samples combined by", alignment.reduce);
  if (alignment.clusters) add("Clusters", displayed(n, "clusters", "count") + " (field " + asText(alignment.clusters.field) + ")");
}
