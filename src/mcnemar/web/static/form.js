/* The form: a snapshot of its controls (readForm) and pure functions of that snapshot for
   everything made from it (the link's query string, the page's own checks, the JSON body of
   /api/v1/analyze and the fields of an upload to /api/v1/compare); and, at the end, what the
   controls show of the form's state (the framing's cells, the names in the labels, the
   companions of the decisions, the address bar). */

export const COUNT_FIELDS = {
  passes: ["a", "b", "c", "d"],
  errors: ["only_a_wrong", "only_b_wrong", "both_wrong", "both_right"],
};
export const REQUIRED = { passes: ["b", "c"], errors: ["only_a_wrong", "only_b_wrong"] };
/* The optional cells come as a pair (both give N; one alone is not enough). */
export const PAIRED = { passes: ["a", "d"], errors: ["both_right", "both_wrong"] };
export const OPTION_FIELDS = ["name_a", "name_b", "alternative", "confidence_level", "alpha"];
const DEFAULTS = { alternative: "two-sided" };
export const UPLOAD_FIELDS = ["file_a", "file_b", "on_missing", "on_error", "run_a", "run_b", "threshold", "reduce",
  "allow_different_tasks", "allow_different_scorers", "cluster", "cluster_method", "task_column", "analysis",
  "score", "filter"];
/* The pairing options that belong to McNemar's analysis of pass/fail only (a threshold makes
   scores pass/fail; the clustered test is McNemar's): off while the scores are compared. */
export const PASS_FAIL_FIELDS = ["threshold", "cluster_method"];
export const PAIRING_FIELDS = UPLOAD_FIELDS.slice(2);
/* The decisions beyond significance: a margin and a range of practical equality, both in
   accuracy points on the page (the API takes proportions), and their companions. */
export const DECISION_FIELDS = ["margin", "margin_method", "equivalence", "rope", "prior"];
/* Where the API's name of a field differs from the page's control. */
export const FIELD_CONTROLS = { "bayes.rope": "rope", "bayes.prior": "prior", "bayes": "rope" };
export const FORM_FIELDS = COUNT_FIELDS.passes.concat(COUNT_FIELDS.errors, OPTION_FIELDS, DECISION_FIELDS);
export const ALL_FIELDS = FORM_FIELDS.concat(UPLOAD_FIELDS);

/* The controls read as text (trimmed) and as ticks. */
const TEXT_FIELDS = COUNT_FIELDS.passes.concat(COUNT_FIELDS.errors, OPTION_FIELDS,
  ["margin", "margin_method", "rope", "prior", "run_a", "run_b", "threshold", "reduce", "cluster",
    "cluster_method", "task_column", "analysis", "score", "filter"]);
const CHECKBOXES = ["equivalence", "on_missing", "on_error", "allow_different_tasks", "allow_different_scorers"];

const NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/* ------------------------------------------------------------------ the snapshot */

/* The form as plain values: { framing, values: {id: trimmed text}, checked: {id: bool},
   fromFiles: {name_a, name_b} } (a name the page filled in from uploaded files is marked). */
export function readForm(doc) {
  const get = (id) => doc.getElementById(id);
  const values = {};
  for (const id of TEXT_FIELDS) {
    const node = get(id);
    values[id] = node ? node.value.trim() : "";
  }
  const checked = {};
  for (const id of CHECKBOXES) {
    const node = get(id);
    checked[id] = !!(node && node.checked);
  }
  const fromFiles = {};
  for (const id of ["name_a", "name_b"]) {
    const node = get(id);
    fromFiles[id] = !!(node && node.dataset.fromFiles);
  }
  const errors = get("framing-errors");
  return { framing: errors && errors.checked ? "errors" : "passes", values, checked, fromFiles };
}

/* The names shown in the labels: the ones typed, else the defaults. */
export function namesOf(form) {
  return { a: form.values.name_a || "candidate", b: form.values.name_b || "baseline" };
}

/* ------------------------------------------------------------------ the link */

/* The page's state as a query string, in the page's own order (a link reproduces it). */
export function queryOf(form) {
  const params = new URLSearchParams();
  const f = form.framing;
  const v = form.values;
  if (f !== "passes") params.set("framing", f);
  for (const id of COUNT_FIELDS[f]) {
    if (v[id] !== "") params.set(id, v[id]);
  }
  for (const id of OPTION_FIELDS) {
    if (v[id] !== "" && v[id] !== DEFAULTS[id]) params.set(id, v[id]);
  }
  for (const id of ["margin", "rope", "prior"]) {
    if (v[id] !== "") params.set(id, v[id]);
  }
  if (v.margin_method !== "score") params.set("margin_method", v.margin_method);
  if (form.checked.equivalence) params.set("equivalence", "1");
  return params.toString();
}

/* What a query string puts in the form: { framing, values, checked }; an alternative that is
   not one of the menu's choices is the default. */
export function formOfQuery(search, alternatives) {
  const params = new URLSearchParams(search);
  const framing = params.get("framing") === "errors" ? "errors" : "passes";
  const values = {};
  for (const id of COUNT_FIELDS.passes.concat(COUNT_FIELDS.errors, OPTION_FIELDS)) {
    const v = params.get(id);
    if (id === "alternative") values[id] = v && alternatives.includes(v) ? v : "two-sided";
    else values[id] = v === null ? "" : v;
  }
  for (const id of ["margin", "rope", "prior"]) values[id] = params.get(id) || "";
  values.margin_method = params.get("margin_method") === "unconditional" ? "unconditional" : "score";
  return { framing, values, checked: { equivalence: ["1", "true"].includes(params.get("equivalence")) } };
}

/* An example's counts with the options and decisions of the current query kept. */
export function exampleQuery(example, current) {
  const keep = new URLSearchParams(current);
  const params = new URLSearchParams(example);
  for (const id of OPTION_FIELDS.concat(DECISION_FIELDS)) if (keep.get(id)) params.set(id, keep.get(id));
  return params.toString();
}

/* ------------------------------------------------------------------ values */

/* Numerals go as JSON numbers; anything else is sent as typed so that the server's
   validation can name the field and echo the value. */
export function typed(value) {
  return NUMBER_RE.test(value) ? Number(value) : value;
}

/* The exact value of a non-negative numeral, as a BigInt when it is a whole number
   ({ whole: true, value }) or { whole: false } when it has a fraction; null for anything
   else (negative numbers, text), which the server's validation answers. */
export function exactWhole(text) {
  const m = /^\+?(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text);
  if (!m || (m[1] || "") + (m[2] || "") === "") return null;
  const frac = m[2] || "";
  const digits = ((m[1] || "") + frac).replace(/^0+/, "");
  const scale = parseInt(m[3] || "0", 10) - frac.length;
  if (digits === "") return { whole: true, value: 0n };
  if (scale >= 0) {
    // Anything longer than 2**52 by far is simply "too large"; no need to build it.
    if (digits.length + scale > 40) return { whole: true, value: 10n ** 40n };
    return { whole: true, value: BigInt(digits) * 10n ** BigInt(scale) };
  }
  const cut = -scale;
  const dropped = cut >= digits.length ? digits : digits.slice(digits.length - cut);
  if (/[^0]/.test(dropped)) return { whole: false };
  return { whole: true, value: cut >= digits.length ? 0n : BigInt(digits.slice(0, digits.length - cut)) };
}

/* A number of points as the proportion the API takes, by moving the decimal point (so that
   0.7 points is exactly the double nearest 0.007, not 0.7 / 100). */
export function fromPoints(text) {
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:e([+-]?\d+))?$/i.exec(text);
  if (!m) return text;
  return Number(m[1] + "e" + (parseInt(m[2] || "0", 10) - 2));
}

/* The prior as the API takes it: one number k, or four separated by commas. */
export function priorValue(text) {
  const parts = text.split(",").map((x) => x.trim());
  return parts.length === 1 ? typed(parts[0]) : parts.map(typed);
}

/* ------------------------------------------------------------------ the page's own checks */

/* The required counts not typed yet. */
export function missingCounts(form) {
  return REQUIRED[form.framing].filter((id) => form.values[id] === "");
}

/* Half of the optional pair (what one sees while typing a, b, c, d in order): null, or
   { missing, given }. */
export function halfPair(form) {
  const [first, second] = PAIRED[form.framing];
  const has = [first, second].map((id) => form.values[id] !== "");
  if (has[0] === has[1]) return null;
  return has[0] ? { missing: second, given: first } : { missing: first, given: second };
}

/* What the page checks itself, because a browser's numbers cannot carry it to the server
   intact: counts above the library's limit (limits.maxCount, a BigInt; limits.maxCountText
   as the server writes it) and fractions a double would round away. Returns
   { errors: [...], total } with the errors in the API's shape and the total a BigInt. */
export function checkCounts(form, ids, limits) {
  const errors = [];
  let total = 0n;
  for (const id of ids) {
    const text = form.values[id];
    if (text === "") continue;
    const exact = exactWhole(text);
    if (exact === null) continue;
    if (!exact.whole) {
      if (Number.isInteger(Number(text))) {
        errors.push({ field: id, message: id + " must be a whole number of items; got " + text });
      }
      continue;
    }
    if (exact.value > limits.maxCount) {
      errors.push({ field: id, message: id + " = " + text + " is too large: counts up to " + limits.maxCountText +
        " are supported (beyond it, sums of counts are no longer exact)" });
      continue;
    }
    total += exact.value;
  }
  return { errors, total };
}

/* The margin and the range are typed in points, so their messages speak of points (the
   API, taking proportions, would speak of those). */
export function checkDecisions(form) {
  const errors = [];
  const margin = form.values.margin;
  if (margin !== "") {
    const v = NUMBER_RE.test(margin) ? Number(margin) : NaN;
    if (!(v > 0 && v < 100)) {
      errors.push({ field: "margin", message: "The margin is a number of accuracy points above 0 and below 100, e.g. 1 for one point; got " + margin });
    }
  }
  const rope = form.values.rope;
  if (rope !== "") {
    const v = NUMBER_RE.test(rope) ? Number(rope) : NaN;
    if (!(v >= 0 && v < 100)) {
      errors.push({ field: "rope", message: "The range of practical equality is a number of accuracy points, at least 0 and below 100, e.g. 0.5; got " + rope });
    }
  }
  return errors;
}

/* ------------------------------------------------------------------ requests */

/* The JSON body of /api/v1/analyze. The picture's distribution and the display strings are
   asked for; the markdown only when it is copied, not on every keystroke. */
export function analyzeBody(form, include = ["distribution", "display"]) {
  const f = form.framing;
  const v = form.values;
  const body = { framing: f };
  for (const id of COUNT_FIELDS[f]) {
    if (v[id] === "") continue;
    const exact = exactWhole(v[id]);
    // A whole number within the limit travels exactly as a JSON number.
    body[id] = exact && exact.whole ? Number(exact.value) : typed(v[id]);
  }
  for (const id of ["name_a", "name_b"]) {
    if (v[id] !== "") body[id] = v[id];
  }
  body.alternative = v.alternative;
  for (const id of ["confidence_level", "alpha"]) {
    if (v[id] !== "") body[id] = typed(v[id]);
  }
  if (v.margin !== "") {
    body.margin = fromPoints(v.margin);
    body.equivalence = form.checked.equivalence;
    body.margin_method = v.margin_method;
  }
  if (v.rope !== "") {
    body.bayes = { rope: fromPoints(v.rope) };
    if (v.prior !== "") body.bayes.prior = priorValue(v.prior);
  }
  body.include = include;
  return body;
}

/* The text fields of an upload to /api/v1/compare, as [name, value] pairs (the files go
   first, apart). Names the user typed go; without them the server uses the names the files
   record (and a name the page filled in from earlier files is not one the user typed). The
   analysis goes when it is not the default (auto: as mcnemar compare decides); with the
   scores' analysis the options of pass/fail alone (PASS_FAIL_FIELDS) are off and not sent. */
export function uploadFields(form) {
  const v = form.values;
  const out = [];
  for (const id of ["name_a", "name_b"]) {
    if (v[id] !== "" && !form.fromFiles[id]) out.push([id, v[id]]);
  }
  for (const id of ["confidence_level", "alpha"]) {
    if (v[id] !== "") out.push([id, v[id]]);
  }
  out.push(["alternative", v.alternative]);
  if (form.checked.on_missing) out.push(["on_missing", "intersect"]);
  if (form.checked.on_error) out.push(["on_error", "fail"]);
  const scores = v.analysis === "scores";
  if (v.analysis && v.analysis !== "auto") out.push(["analysis", v.analysis]);
  for (const id of ["run_a", "run_b", "score", "filter", "threshold", "reduce", "cluster"]) {
    if (v[id] !== "" && !(scores && PASS_FAIL_FIELDS.includes(id))) out.push([id, v[id]]);
  }
  if (!scores) out.push(["cluster_method", v.cluster_method]);
  if (v.task_column !== "") out.push(["task_column", v.task_column]);
  for (const id of ["allow_different_tasks", "allow_different_scorers"]) {
    if (form.checked[id]) out.push([id, "true"]);
  }
  if (v.margin !== "") {
    out.push(["margin", String(fromPoints(v.margin))], ["margin_method", v.margin_method]);
    if (form.checked.equivalence) out.push(["equivalence", "true"]);
  }
  if (v.rope !== "") {
    out.push(["bayes", "true"], ["rope", String(fromPoints(v.rope))]);
    if (v.prior !== "") out.push(["prior", v.prior]);
  }
  out.push(["include", "distribution,markdown,display"]);
  return out;
}

/* ------------------------------------------------------------------ the controls */

const byId = (id) => document.getElementById(id);

export function showFraming() {
  const f = readForm(document).framing;
  byId("cells-passes").hidden = f !== "passes";
  byId("cells-errors").hidden = f !== "errors";
}

export function showNames() {
  const names = namesOf(readForm(document));
  for (const span of document.querySelectorAll("[data-name]")) {
    span.textContent = names[span.getAttribute("data-name")];
  }
}

/* The companions of the margin and of the range are used only with them. */
export function showDecisions() {
  const noMargin = byId("margin").value.trim() === "";
  byId("margin_method").disabled = noMargin;
  byId("equivalence").disabled = noMargin;
  byId("prior").disabled = byId("rope").value.trim() === "";
}

/* The pairing options of pass/fail alone are off while the scores are compared. */
export function showAnalysis() {
  const scores = byId("analysis").value === "scores";
  for (const id of PASS_FAIL_FIELDS) byId(id).disabled = scores;
}

/* The address bar holds the page's state, so that a link reproduces the result. */
export function syncUrl() {
  const query = queryOf(readForm(document));
  const url = location.pathname + (query ? "?" + query : "");
  if (url !== location.pathname + location.search) history.replaceState(null, "", url);
}

/* The form as a query string sets it. */
export function loadQuery(search) {
  const alternatives = Array.from(byId("alternative").options).map((o) => o.value);
  const state = formOfQuery(search, alternatives);
  byId("framing-" + state.framing).checked = true;
  for (const [id, value] of Object.entries(state.values)) byId(id).value = value;
  byId("equivalence").checked = state.checked.equivalence;
  showFraming();
  showNames();
  showDecisions();
}
