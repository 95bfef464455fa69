/* The page's words for its controls, and the server's messages in those words (pure text). */

export function labelOf(id) {
  return {
    a: "a (both right)", d: "d (both wrong)",
    both_right: "both right", both_wrong: "both wrong",
  }[id] || id;
}

export function shortLabelOf(id) {
  return { both_right: "both right", both_wrong: "both wrong" }[id] || id;
}

/* How a control is named in sentences ("you changed ..."). */
export function controlName(id) {
  return {
    name_a: "the name of system A", name_b: "the name of system B",
    "framing-passes": "what was counted", "framing-errors": "what was counted",
    a: "a (both right)", b: "b", c: "c", d: "d (both wrong)",
    only_a_wrong: "only A wrong", only_b_wrong: "only B wrong",
    both_wrong: "both wrong", both_right: "both right",
    alternative: "the alternative", confidence_level: "the confidence level",
    alpha: "the significance level α",
    margin: "the margin", margin_method: "the test against the margin",
    equivalence: "the equivalence test", rope: "the range of practical equality",
    prior: "the prior",
    analysis: "the analysis", score: "the score", filter: "the filter",
    example: "the counts (by picking an example)",
  }[id] || "the inputs";
}

/* The server's messages about files are written for every caller, and some name the
   library's arguments and command-line flags. On the page each of those is one of the
   page's own controls: say that, and mark the control. */
const PAGE_CONTROLS = [
  {
    id: "analysis",
    pattern: /\bgive analysis\s*=\s*['"]?pass-fail['"]? with threshold\s*=\s*T to count score >= T as a pass/gi,
    words: "choose “McNemar's test of pass/fail” under “Analysis” in Pairing options, with a “Pass threshold”",
    note: "Choose pass/fail here, with a pass threshold, for what belongs to McNemar's analysis.",
  },
  {
    id: "analysis",
    pattern: /\banalysis\s*=\s*['"]?scores['"]?(?:\s*\(--analysis scores\))?/gi,
    words: "the “paired comparison of the scores” (under “Analysis”)",
    note: null,
  },
  {
    id: "score",
    pattern: /\bchoose one with score\s*=\s*NAME\b/gi,
    words: "give its name under “Score” in Pairing options",
    note: "Give the score to compare: one of the scorers, metrics or columns the file records.",
  },
  {
    id: "filter",
    pattern: /\bchoose one with filter\s*=\s*NAME\b/gi,
    words: "give it under “Filter” in Pairing options",
    note: "Give the filter to keep, one of those the file records.",
  },
  {
    id: "on_missing",
    pattern: /\bpass on_missing\s*=\s*['"]?intersect['"]?(?:\s*\(--on-missing intersect\))?/gi,
    words: "tick “Drop items found in only one file” under Pairing options",
    note: "Tick this to drop the items found in only one file (the report says how many).",
  },
  {
    id: "on_missing",
    pattern: /\bon_missing\s*=\s*['"]?intersect['"]?(?:\s*\(--on-missing intersect\))?/gi,
    words: "“Drop items found in only one file”",
    note: null,
  },
  {
    id: "threshold",
    pattern: /\b(?:pass\s+)?threshold\s*=\s*T\b(?:\s*\(--threshold T\))?(?:\s+to count score >= T as a pass)?/gi,
    words: "give a “Pass threshold” under Pairing options to count a score at or above it as a pass",
    note: "Give the score at or above which an item counts as a pass, e.g. 0.5.",
  },
  {
    id: "allow_different_tasks",
    pattern: /\bpass allow_different_tasks\s*=\s*True\b(?:\s*\(--allow-different-tasks\))?/gi,
    words: "tick “Pair runs of different tasks” under Pairing options",
    note: "Tick this only if the two runs hold the same items under different task names.",
  },
  {
    id: "allow_different_scorers",
    pattern: /\bpass allow_different_scorers\s*=\s*True\b(?:\s*\(--allow-different-scorers\))?/gi,
    words: "tick “Pair runs scored differently” under Pairing options",
    note: "Tick this to compare the scorers themselves.",
  },
  {
    id: "reduce",
    pattern: /\b(?:choose\s+)?reduce\s*=\s*'mean'\|'majority'\|'first'(?:\s*\(--reduce\))?/gi,
    words: "choose how to combine them under “Several samples per item” in Pairing options",
    note: "Choose how to combine several samples of one item.",
  },
];
const SERVER_FLAG = /\bstart the server with a larger (--max-[a-z-]+)/gi;

/* An error of the server in the page's words: { status, field, message, errors }, with the
   controls its message names marked. */
export function pageWords(error) {
  let message = error.message || "";
  const marks = [];
  for (const rule of PAGE_CONTROLS) {
    if (message.search(rule.pattern) === -1) continue;
    message = message.replace(rule.pattern, rule.words);
    if (rule.note && !marks.some((m) => m.field === rule.id)) marks.push({ field: rule.id, message: rule.note });
  }
  message = message.replace(SERVER_FLAG, "restart mcnemar serve with a larger $1");
  // Any flag left is a command-line option the page has no control for.
  message = message.replace(/\s*\((?:pass )?--[a-z][a-z-]*(?: [^)]*)?(?: on the command line)?\)/gi, "");
  const errors = (error.errors && error.errors.length ? error.errors : [{ field: error.field, message: error.message }])
    .filter((item) => item.field)
    .map((item) => ({ field: item.field, message: pageWords({ message: item.message, errors: [{}] }).message }));
  return { status: error.status, field: error.field, message, errors: errors.concat(marks) };
}
