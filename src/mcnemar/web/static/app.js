/* The calculator page: read the inputs, ask the JSON API, render its report.
   The page's state lives in the URL query string, so a link reproduces the result.
   Every number shown comes from the server's report (mcnemar.report/1), written as the server
   wrote it (its *_text fields: the digits the command line prints); the page rounds nothing. */
(function () {
  "use strict";

  const COUNT_FIELDS = {
    passes: ["a", "b", "c", "d"],
    errors: ["only_a_wrong", "only_b_wrong", "both_wrong", "both_right"],
  };
  const REQUIRED = { passes: ["b", "c"], errors: ["only_a_wrong", "only_b_wrong"] };
  /* The optional cells come as a pair (both give N; one alone is not enough). */
  const PAIRED = { passes: ["a", "d"], errors: ["both_right", "both_wrong"] };
  const OPTION_FIELDS = ["name_a", "name_b", "alternative", "confidence_level", "alpha"];
  const DEFAULTS = { alternative: "two-sided" };
  const UPLOAD_FIELDS = ["file_a", "file_b", "on_missing", "on_error", "run_a", "run_b", "threshold", "reduce",
    "allow_different_tasks", "allow_different_scorers", "cluster", "cluster_method", "task_column"];
  const PAIRING_FIELDS = UPLOAD_FIELDS.slice(2);
  /* The decisions beyond significance: a margin and a range of practical equality, both in
     accuracy points on the page (the API takes proportions), and their companions. */
  const DECISION_FIELDS = ["margin", "margin_method", "equivalence", "rope", "prior"];
  /* Where the API's name of a field differs from the page's control. */
  const FIELD_CONTROLS = { "bayes.rope": "rope", "bayes.prior": "prior", "bayes": "rope" };
  const FORM_FIELDS = COUNT_FIELDS.passes.concat(COUNT_FIELDS.errors, OPTION_FIELDS, DECISION_FIELDS);
  const ALL_FIELDS = FORM_FIELDS.concat(UPLOAD_FIELDS);
  const DEBOUNCE_MS = 180;


  const $ = (id) => document.getElementById(id);
  const form = $("counts-form");
  const statusEl = $("status");
  const resultsEl = $("results");
  const reportEl = $("report");

  let timer = null;
  let controller = null;
  let sequence = 0;
  let lastReport = null;
  let lastMarkdown = "";
  /* The upload in flight, if any: { controller, names } (see "upload" below). */
  let upload = null;

  /* The library's largest count (and this calculator's largest number of items), as the
     server states it on the page (mcnemar.validation.MAX_COUNT, 2**52: beyond it the sums of
     cells stop being exact in double precision). BigInt, so that what is typed is compared
     exactly, not after rounding to a double. */
  const MAX_COUNT = BigInt(form.getAttribute("data-max-count"));
  const MAX_COUNT_TEXT = "2**" + (MAX_COUNT.toString(2).length - 1) + " = " + MAX_COUNT.toLocaleString("en-US");

  /* ------------------------------------------------------------------ formatting */

  /* The page formats no number of a result itself: the server sends each as the text report
     prints it (tests[k].pvalue_text, difference.interval_texts, tasks[i].texts, ...), so that
     the page, the command line and the JSON show the same digits. Only the typography is the
     page's: e-notation is written as a power of ten (2.5e-07 as 2.5 × 10⁻⁷, same digits). */
  const SUPERSCRIPT = { "-": "⁻", "0": "⁰", "1": "¹", "2": "²", "3": "³", "4": "⁴", "5": "⁵", "6": "⁶", "7": "⁷", "8": "⁸", "9": "⁹" };

  function shown(text) {
    if (text === null || text === undefined || text === "") return "—";
    const m = /^([<>]?[+-]?)(\d+(?:\.\d+)?)e([+-]?)0*(\d+)$/.exec(String(text));
    if (!m) return String(text);
    const exp = (m[3] === "-" ? "-" : "") + m[4];
    return m[1] + m[2] + " × 10" + exp.split("").map((ch) => SUPERSCRIPT[ch]).join("");
  }

  /* "p = 0.002577", but "p < 1 × 10⁻³⁰⁰" for a bound. */
  function pIs(pText) {
    return /^[<>]/.test(pText) ? "p " + pText : "p = " + pText;
  }

  /* Counts (whole numbers, with thousands commas) and the values typed (a level, alpha, a
     prior count), as typed: never a result the server computed. */
  function fmtNum(x) {
    if (x === null || x === undefined) return "—";
    if (typeof x !== "number") return String(x);
    if (Number.isInteger(x)) return x.toLocaleString("en-US");
    return String(x);
  }

  /* A level typed as a proportion, as a percentage: 0.95 -> "95%" (the report's own rule,
     ten significant digits). */
  function levelText(x) {
    return String(Number((100 * x).toPrecision(10))) + "%";
  }

  /* An interval's two limits as the server wrote them, "[+2.6, +11.7]". */
  function pairText(texts) {
    return Array.isArray(texts) && texts.length === 2 ? "[" + shown(texts[0]) + ", " + shown(texts[1]) + "]" : "—";
  }

  function clear(node) { node.replaceChildren(); }

  /* A long number as text nodes with line-break opportunities after each thousands comma
     and between the digits of a long exponent, so that 4,503,599,627,370,496 and
     5.6 × 10⁻¹³⁵⁵⁷¹⁸⁵⁷⁶²⁹⁹⁶⁰⁰ can wrap in a narrow table cell (and still copy as typed). */
  function breakable(s) {
    const nodes = [];
    let run = "";
    for (const ch of String(s)) {
      run += ch;
      if (ch === "," || "⁰¹²³⁴⁵⁶⁷⁸⁹".includes(ch)) {
        nodes.push(document.createTextNode(run), document.createElement("wbr"));
        run = "";
      }
    }
    if (run) nodes.push(document.createTextNode(run));
    return nodes;
  }

  function h(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined) continue;
      if (k === "class") node.className = v; else node.setAttribute(k, v);
    }
    for (const child of children || []) {
      if (child === null || child === undefined) continue;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  function asText(value) {
    if (value === null || value === undefined) return "—";
    if (typeof value === "string") return value;
    if (typeof value === "number" || typeof value === "boolean") return fmtNum(value);
    if (Array.isArray(value)) return value.map(asText).join(", ");
    if (typeof value === "object" && "message" in value) return String(value.message);
    return JSON.stringify(value);
  }

  /* ------------------------------------------------------------------ state and URL */

  function framing() {
    return $("framing-errors").checked ? "errors" : "passes";
  }

  function showFraming() {
    const f = framing();
    $("cells-passes").hidden = f !== "passes";
    $("cells-errors").hidden = f !== "errors";
  }

  function namesFromInputs() {
    return {
      a: $("name_a").value.trim() || "candidate",
      b: $("name_b").value.trim() || "baseline",
    };
  }

  function showNames() {
    const names = namesFromInputs();
    for (const span of document.querySelectorAll("[data-name]")) {
      span.textContent = names[span.getAttribute("data-name")];
    }
  }

  function stateToQuery() {
    const params = new URLSearchParams();
    const f = framing();
    if (f !== "passes") params.set("framing", f);
    for (const id of COUNT_FIELDS[f]) {
      const v = $(id).value.trim();
      if (v !== "") params.set(id, v);
    }
    for (const id of OPTION_FIELDS) {
      const v = $(id).value.trim();
      if (v !== "" && v !== DEFAULTS[id]) params.set(id, v);
    }
    for (const id of ["margin", "rope", "prior"]) {
      const v = $(id).value.trim();
      if (v !== "") params.set(id, v);
    }
    if ($("margin_method").value !== "score") params.set("margin_method", $("margin_method").value);
    if ($("equivalence").checked) params.set("equivalence", "1");
    return params.toString();
  }

  function syncUrl() {
    const query = stateToQuery();
    const url = location.pathname + (query ? "?" + query : "");
    if (url !== location.pathname + location.search) history.replaceState(null, "", url);
  }

  function loadQuery(search) {
    const params = new URLSearchParams(search);
    const f = params.get("framing") === "errors" ? "errors" : "passes";
    $("framing-" + f).checked = true;
    for (const id of COUNT_FIELDS.passes.concat(COUNT_FIELDS.errors, OPTION_FIELDS)) {
      const v = params.get(id);
      if (id === "alternative") {
        // The choices are the menu's (the server writes them from the vocabulary).
        const choices = Array.from($(id).options).map((o) => o.value);
        $(id).value = v && choices.includes(v) ? v : "two-sided";
      } else {
        $(id).value = v === null ? "" : v;
      }
    }
    for (const id of ["margin", "rope", "prior"]) $(id).value = params.get(id) || "";
    $("margin_method").value = params.get("margin_method") === "unconditional" ? "unconditional" : "score";
    $("equivalence").checked = ["1", "true"].includes(params.get("equivalence"));
    showFraming();
    showNames();
    showDecisions();
  }

  /* The companions of the margin and of the range are used only with them. */
  function showDecisions() {
    const noMargin = $("margin").value.trim() === "";
    $("margin_method").disabled = noMargin;
    $("equivalence").disabled = noMargin;
    $("prior").disabled = $("rope").value.trim() === "";
  }

  /* A number of points as the proportion the API takes, by moving the decimal point (so that
     0.7 points is exactly the double nearest 0.007, not 0.7 / 100). */
  function fromPoints(text) {
    const m = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:e([+-]?\d+))?$/i.exec(text);
    if (!m) return text;
    return Number(m[1] + "e" + (parseInt(m[2] || "0", 10) - 2));
  }

  /* A margin or a range given to the API, in points again for the reader. */
  function inPoints(x) {
    return fmtNum(Number((x * 100).toPrecision(12)));
  }

  function pointsWord(text) { return text + (text === "1" ? " point" : " points"); }

  /* What the page checks itself: the margin and the range are typed in points, so their
     messages speak of points (the API, taking proportions, would speak of those). */
  function checkDecisions() {
    const errors = [];
    const margin = $("margin").value.trim();
    if (margin !== "") {
      const v = NUMBER_RE.test(margin) ? Number(margin) : NaN;
      if (!(v > 0 && v < 100)) {
        errors.push({ field: "margin", message: "The margin is a number of accuracy points above 0 and below 100, e.g. 1 for one point; got " + margin });
      }
    }
    const rope = $("rope").value.trim();
    if (rope !== "") {
      const v = NUMBER_RE.test(rope) ? Number(rope) : NaN;
      if (!(v >= 0 && v < 100)) {
        errors.push({ field: "rope", message: "The range of practical equality is a number of accuracy points, at least 0 and below 100, e.g. 0.5; got " + rope });
      }
    }
    return errors;
  }

  /* The prior as the API takes it: one number k, or four separated by commas. */
  function priorValue(text) {
    const parts = text.split(",").map((x) => x.trim());
    return parts.length === 1 ? typed(parts[0]) : parts.map(typed);
  }

  /* ------------------------------------------------------------------ request */

  const NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

  /* Numerals go as JSON numbers; anything else is sent as typed so that the server's
     validation can name the field and echo the value. */
  function typed(value) {
    return NUMBER_RE.test(value) ? Number(value) : value;
  }

  /* The exact value of a non-negative numeral, as a BigInt when it is a whole number
     ({ whole: true, value }) or { whole: false } when it has a fraction; null for anything
     else (negative numbers, text), which the server's validation answers. */
  function exactWhole(text) {
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

  /* What the page checks itself, because a browser's numbers cannot carry it to the server
     intact: counts above the library's limit (2**52) and fractions a double would round
     away. Returns { errors: [...], total } with the errors in the API's shape. */
  function checkCounts(ids) {
    const errors = [];
    let total = 0n;
    for (const id of ids) {
      const text = $(id).value.trim();
      if (text === "") continue;
      const exact = exactWhole(text);
      if (exact === null) continue;
      if (!exact.whole) {
        if (Number.isInteger(Number(text))) {
          errors.push({ field: id, message: id + " must be a whole number of items; got " + text });
        }
        continue;
      }
      if (exact.value > MAX_COUNT) {
        errors.push({ field: id, message: id + " = " + text + " is too large: counts up to " + MAX_COUNT_TEXT +
          " are supported (beyond it, sums of counts are no longer exact)" });
        continue;
      }
      total += exact.value;
    }
    return { errors: errors, total: total };
  }

  function labelOf(id) {
    return {
      a: "a (both right)", d: "d (both wrong)",
      both_right: "both right", both_wrong: "both wrong",
    }[id] || id;
  }

  function shortLabelOf(id) {
    return { both_right: "both right", both_wrong: "both wrong" }[id] || id;
  }

  /* How a control is named in sentences ("you changed ..."). */
  function controlName(id) {
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
      example: "the counts (by picking an example)",
    }[id] || "the inputs";
  }

  function buildBody() {
    const f = framing();
    const body = { framing: f };
    for (const id of COUNT_FIELDS[f]) {
      const v = $(id).value.trim();
      if (v === "") continue;
      const exact = exactWhole(v);
      // A whole number within the limit travels exactly as a JSON number.
      body[id] = exact && exact.whole ? Number(exact.value) : typed(v);
    }
    for (const id of ["name_a", "name_b"]) {
      const v = $(id).value.trim();
      if (v !== "") body[id] = v;
    }
    body.alternative = $("alternative").value;
    for (const id of ["confidence_level", "alpha"]) {
      const v = $(id).value.trim();
      if (v !== "") body[id] = typed(v);
    }
    const margin = $("margin").value.trim();
    if (margin !== "") {
      body.margin = fromPoints(margin);
      body.equivalence = $("equivalence").checked;
      body.margin_method = $("margin_method").value;
    }
    const rope = $("rope").value.trim();
    if (rope !== "") {
      body.bayes = { rope: fromPoints(rope) };
      const prior = $("prior").value.trim();
      if (prior !== "") body.bayes.prior = priorValue(prior);
    }
    // The picture's distribution only: the markdown is asked for when it is copied (see
    // markdownOfShown), not on every keystroke.
    body.include = ["distribution"];
    return body;
  }

  function schedule() {
    syncUrl();
    updateExports();
    clearTimeout(timer);
    timer = setTimeout(run, DEBOUNCE_MS);
  }

  /* Nothing to show for these inputs (a hint or an error): forget any request in flight. */
  function withdraw() {
    if (controller) controller.abort();
    sequence += 1;
    resultsEl.removeAttribute("aria-busy");
    resultsEl.classList.add("stale");
    updateExports();
  }

  async function run(options) {
    const reveal = !!(options && options.reveal);
    // Whatever path led here, an upload in flight is not superseded without a word.
    if (upload) cancelUpload("inputs");
    const f = framing();
    const missing = REQUIRED[f].filter((id) => $(id).value.trim() === "");
    clearFieldErrors(FORM_FIELDS);
    if (missing.length) {
      withdraw();
      setStatus(f === "passes"
        ? "Type b and c, the two disagreement counts, to see the result (a and d are optional)."
        : "Type how many items only one system got wrong, for each system, to see the result.", false);
      return;
    }
    const local = checkCounts(COUNT_FIELDS[f]);
    if (local.errors.length) {
      withdraw();
      showError({ status: 422, message: local.errors[0].message, field: local.errors[0].field, errors: local.errors });
      return;
    }
    if (local.total > MAX_COUNT) {
      withdraw();
      showError({
        status: 422, field: null, errors: [],
        message: "The counts add up to " + local.total.toLocaleString("en-US") + " items, more than " +
          MAX_COUNT_TEXT + ", the largest number of items the calculator handles exactly.",
      });
      return;
    }
    const decisions = checkDecisions();
    if (decisions.length) {
      withdraw();
      showError({ status: 422, message: decisions[0].message, field: decisions[0].field, errors: decisions });
      return;
    }
    const pair = PAIRED[f].map((id) => $(id).value.trim() !== "");
    if (pair[0] !== pair[1]) {
      // Half a pair is what one sees while typing a, b, c, d in order: wait for the other.
      withdraw();
      const [first, second] = PAIRED[f];
      const missingId = pair[0] ? second : first;
      const givenId = missingId === first ? second : first;
      setStatus("Type " + labelOf(missingId) + " too, or clear " + shortLabelOf(givenId) +
        ": the number of items needs both.", false);
      return;
    }
    const query = stateToQuery();
    await request("/api/v1/analyze", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(buildBody()),
    }, (ok) => {
      if (ok) {
        reportEl.dataset.query = query;
        if (reveal) revealVerdict();
      }
    });
  }

  /* One request at a time: a newer one (typing, an example, an upload) supersedes the
     older, whose answer is then ignored. An upload brings its own AbortController, so that
     the page can cancel it deliberately and say so (see cancelUpload). */
  async function request(url, init, onDone, own, quiet) {
    if (controller) controller.abort();
    controller = own || new AbortController();
    const signal = controller.signal;
    const mine = ++sequence;
    resultsEl.setAttribute("aria-busy", "true");
    updateExports();
    let response, payload;
    try {
      response = await fetch(url, Object.assign({ signal: signal }, init));
      payload = await response.json().catch(() => null);
    } catch (err) {
      if (err && err.name === "AbortError") return false;
      if (mine !== sequence) return false;
      resultsEl.removeAttribute("aria-busy");
      if (!quiet) {
        showError({ status: 0, field: null, errors: [],
          message: "Cannot reach the calculator's server. Is `mcnemar serve` still running?" });
      }
      if (onDone) onDone(false, null);
      updateExports();
      return false;
    }
    if (mine !== sequence) return false;
    resultsEl.removeAttribute("aria-busy");
    if (response.ok && payload && payload.schema) {
      render(payload);
      if (onDone) onDone(true, payload);
      updateExports();
      return true;
    }
    const error = payload && payload.error ? payload.error
      : { status: response.status, message: "The server answered " + response.status + ".", field: null, errors: [] };
    // A quiet request (an upload) reports its own errors; the report shown stays valid.
    if (!quiet) {
      delete reportEl.dataset.query;
      showError(error);
    }
    if (onDone) onDone(false, error);
    updateExports();
    return false;
  }

  /* ------------------------------------------------------------------ errors */

  /* What the results column says instead of (or above) a result: a hint, a note, or an
     error (then "origin" says what it is about: the typed inputs or the uploaded files). */
  function setStatus(message, isError, origin) {
    statusEl.textContent = message;
    statusEl.classList.toggle("error", !!isError);
    statusEl.dataset.origin = isError ? origin || "inputs" : "";
    updateSummary();
  }

  function clearFieldErrors(ids) {
    for (const id of ids || ALL_FIELDS) {
      const input = $(id);
      const msg = $(id + "-error");
      if (input) input.removeAttribute("aria-invalid");
      if (msg) { msg.textContent = ""; msg.hidden = true; }
    }
  }

  /* Mark the fields an error names, with its message under each; whether any was marked. */
  function markFields(error, scope) {
    clearFieldErrors(scope);
    let marked = false;
    for (const item of error.errors && error.errors.length ? error.errors : [error]) {
      const field = FIELD_CONTROLS[item.field] || item.field;
      if (!field) continue;
      const input = $(field);
      const msg = $(field + "-error");
      if (!input || !msg || input.closest("[hidden]")) continue;
      input.setAttribute("aria-invalid", "true");
      msg.textContent = item.message;
      msg.hidden = false;
      marked = true;
    }
    return marked;
  }

  /* The one place the page shows a problem, whatever it is about: the message stands at the
     top of the results, where the result would be (so the phone's bar at the top of the screen,
     which carries what the results say, says it too); the fields it names are marked, each with
     its own message; and a problem with the files is also said under the button that sent
     them, next to what the user just did. A problem with the typed inputs fades the report
     shown (it belongs to earlier inputs); one with the files leaves it as it is (it still
     matches the inputs), with the message above it. */
  function showError(error, origin) {
    const files = origin === "upload";
    const words = files ? pageWords(error) : error;
    if (files && words.errors.some((e) => PAIRING_FIELDS.includes(e.field))) {
      uploadForm.querySelector("details.advanced").open = true;
    }
    const marked = markFields(words, files ? UPLOAD_FIELDS.concat(DECISION_FIELDS) : FORM_FIELDS);
    const message = files ? "The files were not compared: " + words.message
      : (marked ? "Please fix the marked field: " : "") + words.message;
    if (files) uploadMessage(message, true);
    else resultsEl.classList.add("stale");
    setStatus(message, true, files ? "upload" : "inputs");
    updateExports();
    // On a wide screen the inputs stay put beside the results: bring the message into view
    // if the results were scrolled away from it (on a phone the bar at the top carries it,
    // and the page does not move away from the form).
    if (files && !isNarrow()) {
      const r = statusEl.getBoundingClientRect();
      if (r.top < 0 || r.top > window.innerHeight - 60) window.scrollBy(0, r.top - 12);
    }
  }

  /* ------------------------------------------------------------------ rendering */

  function render(report) {
    lastReport = report;
    lastMarkdown = report.markdown || "";
    clearFieldErrors(FORM_FIELDS);
    setStatus("", false);
    resultsEl.classList.remove("stale");
    reportEl.hidden = false;

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
      }, report);
      $("pooled-note").textContent = "Below the tasks: all " + fmtNum(t.n) + " items pooled in one table " +
        "(the micro overall), with every test and interval of that table.";
    } else {
      showVerdict({
        significant: conclusion.significant,
        headline: headlineOf(report, names),
        test: rec.name ? capitalize(shortTestName(recKey, rec.name)) : recKey,
        pText: shown(rec.pvalue_text),
        which: "the recommended test",
        conclusion: conclusion.text || "",
        reason: report.recommended && report.recommended.reason ? "Why this test: " + report.recommended.reason : "",
      }, report);
    }

    $("words").textContent = report.words || "";
    charts = [];
    draw(() => window.McNemarCharts.table2x2($("table-chart"), t, names));

    renderDistribution(report, names);
    renderTests(tests, recKey);
    renderDifference(report);
    renderRatios(report);
    renderUnpaired(report.unpaired);
    renderPower(report.power, t);
    renderAlignment(report.alignment || (byTask && byTask.alignment), names);
    renderFlips(report, names);
    renderTasks(report);
    renderMargin(report);
    renderBayes(report, names);

    const warnings = $("warnings");
    clear(warnings);
    for (const w of report.warnings || []) warnings.appendChild(h("li", {}, [asText(w)]));
    const assumptions = $("assumptions");
    clear(assumptions);
    for (const a of report.assumptions || []) assumptions.appendChild(h("li", {}, [asText(a)]));
    updateSummary();
  }

  /* The verdict card: the badge, the headline in a few words, the p-value it rests on, the
     conclusion and why this test (or this overall). */
  function showVerdict(v, report) {
    const verdict = document.querySelector(".verdict");
    verdict.classList.toggle("significant", !!v.significant);
    verdict.classList.toggle("not-significant", !v.significant);
    $("verdict-badge").textContent = (v.significant ? "Significant" : "Not significant") +
      " at α = " + fmtNum(report.alpha);
    $("verdict-headline").textContent = v.headline;
    $("conclusion").textContent = v.conclusion;
    const headline = $("headline-p");
    clear(headline);
    headline.append(
      v.test + " " + pIs(v.pText).slice(0, -v.pText.length),
      h("strong", { id: "headline-pvalue" }, breakable(v.pText)),
      " (" + report.alternative + ", " + v.which + ")"
    );
    $("reason").textContent = v.reason;
  }

  /* The pictures are drawn for the width they have: a resize redraws them (and only them,
     so that a message or a stale mark on the page stays as it is). */
  let charts = [];
  function draw(chart) { charts.push(chart); chart(); }

  function capitalize(s) { return s ? s.charAt(0).toUpperCase() + s.slice(1) : s; }

  /* The verdict in a few words: the report's own headline (written from the same claims as
     its conclusion). A report without one gets the same words built from its fields, so
     that the headline never says more than the conclusion does. */
  function headlineOf(report, names) {
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
      return "Significant only because α = " + fmtNum(report.alpha) + "; the data do not favour " +
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

  function renderDistribution(report, names) {
    const chart = $("dist-chart");
    const caption = $("dist-caption");
    const dist = report.distribution;
    const t = report.table;
    const D = t.discordant;
    const tests = report.tests || {};
    const exact = tests.exact || {};
    if (!dist) { clear(chart); caption.textContent = ""; return; }
    draw(() => window.McNemarCharts.nullDistribution(chart, dist, t, report.alternative, names));
    if (D === 0) {
      caption.textContent = "There are no disagreements: the two systems are right and wrong on exactly the same items, so the data cannot tell which is better (p = 1).";
      return;
    }
    const tails = report.alternative === "two-sided" ? "both tails hold" : "the shaded tail holds";
    caption.textContent = "If " + names.a + " and " + names.b + " were equally good, each of the " +
      D.toLocaleString("en-US") + " disagreements would go either way with probability 1/2, and b would follow this Binomial(" +
      D.toLocaleString("en-US") + ", 1/2) distribution. The observed split is " + t.b.toLocaleString("en-US") + " : " +
      t.c.toLocaleString("en-US") + "; " + tails + " the splits at least as lopsided, with total probability " +
      shown(exact.pvalue_text) + " (the exact p-value)" +
      (dist.step > 1 ? ". Only the central part is drawn, one value in every " + fmtNum(dist.step) + "." : ".");
  }

  function renderTests(tests, recKey) {
    const body = document.querySelector("#tests-table tbody");
    clear(body);
    const keys = Object.keys(tests); /* in the report's own order */
    for (const key of keys) {
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

  function renderDifference(report) {
    const diff = report.difference || {};
    const est = diff.estimate;
    const acc = report.accuracy;
    const names = report.names;
    const recommended = diff.recommended_interval;
    const intervals = differenceIntervals(report);
    const level = levelText(diff.confidence_level || report.confidence_level);
    /* The limits of one interval in points, as the report prints them. */
    function limitsText(key) {
      const given = diff.interval_texts && diff.interval_texts[key];
      if (Array.isArray(given) && given.length === 2 && given[0] !== null && given[1] !== null) return given.map(shown);
      return ["—", "—"];
    }
    const p = $("diff-estimate");
    clear(p);
    if (est === null || est === undefined) {
      p.textContent = "The difference in accuracy needs the number of items: give a (both right) and d (both wrong) as well.";
    } else {
      const rec = intervals[recommended];
      const recText = limitsText(recommended);
      p.append(
        names.a + " minus " + names.b + ": ",
        h("strong", {}, [shown(diff.estimate_text) + " points"]),
        acc && acc.a_text ? " (" + acc.a_text + " vs " + acc.b_text + ")" : "",
        rec && rec.low !== null ? "; " + level + " " + intervalLabel(rec, recommended) + " interval " : "",
        rec && rec.low !== null ? h("strong", { id: "recommended-interval" }, ["[" + recText[0] + ", " + recText[1] + "]"]) : "",
        rec && rec.low !== null ? " points." : "."
      );
    }
    const rows = Object.keys(intervals).map((key) => ({
      key: key,
      label: intervalLabel(intervals[key], key),
      short: intervals[key].short || intervalLabel(intervals[key], key),
      low: intervals[key].low === null ? null : intervals[key].low * 100,
      high: intervals[key].high === null ? null : intervals[key].high * 100,
    }));
    const body = document.querySelector("#ci-table tbody");
    clear(body);
    for (const r of rows) {
      const texts = limitsText(r.key);
      body.appendChild(h("tr", { class: r.key === recommended ? "recommended" : null, "data-interval": r.key }, [
        h("td", {}, [r.label, r.key === recommended ? h("span", { class: "tag" }, ["recommended"]) : null]),
        h("td", { class: "num" }, [texts[0]]),
        h("td", { class: "num" }, [texts[1]]),
      ]));
    }
    const chart = $("ci-chart");
    if (est === null || est === undefined || rows.length === 0) { clear(chart); return; }
    draw(() => window.McNemarCharts.intervals(chart, rows, est * 100, recommended));
  }

  /* The report's intervals of the difference, each with its label and short label (from the
     report). With clustered items the recommended one is the cluster-robust interval, which
     the report gives in its "clustered" block: it joins the list under that key, labelled by
     its method. */
  function differenceIntervals(report) {
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

  function renderPower(power, table) {
    const p = $("power");
    if (!power) {
      p.textContent = table.n === null || table.n === undefined
        ? "Give a and d too: planning needs the number of items."
        : "Not available.";
      return;
    }
    if (power.note) { p.textContent = power.note; return; }
    p.textContent = power.detectable_difference_text
      ? "Smallest difference detectable with " + levelText(power.power || 0.8) +
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
  function renderMargin(report) {
    const card = $("margin-card");
    const ni = report.noninferiority;
    const eq = report.equivalence;
    if (!ni) { card.hidden = true; return; }
    card.hidden = false;
    $("margin-heading").textContent = "Against a margin of " + pointsWord(inPoints(ni.margin));
    const niBadge = $("ni-badge");
    niBadge.textContent = ni.noninferior ? "Non-inferior" : "Non-inferiority not shown";
    niBadge.classList.toggle("shown", !!ni.noninferior);
    $("ni-text").textContent = ni.text || "";
    const ci = ni.confidence_interval || {};
    // The numbers as the report's line prints them (the interval read against ±margin).
    figures($("ni-numbers"), [
      ["pvalue", "One-sided p", shown(ni.pvalue_text)],
      ["statistic", "Z (" + (ni.name || ni.method) + ")", shown(ni.statistic_text)],
      ["confidence_interval", levelText(ci.confidence_level || 0) + " Tango interval", shown(ni.interval_text)],
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
  function renderBayes(report, names) {
    const card = $("bayes-card");
    const b = report.bayes;
    if (!b) { card.hidden = true; return; }
    card.hidden = false;
    const r = pointsWord(inPoints(b.rope));
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
      " (" + levelText(b.credible_level) + " credible interval ",
      h("strong", { "data-key": "credible_interval" }, [pairText(b.credible_interval_texts)]),
      " points)."
    );
    const k = (b.prior || []).map((x) => fmtNum(x)).join(", ");
    $("bayes-prior").textContent = "Prior Dirichlet(" + k + ") on the four cells; " +
      (b.method || "exact posterior") + ", not simulated.";
  }

  /* Files of several tasks: the per-task result (mcnemar.tasks/1) first, under the verdict
     (which states its headline): the micro and macro overall lines, the forest plot (an SVG
     drawn by the server, shown as an image so that nothing in it can run) and the table,
     worst first, every number as the command line prints it; a row whose interval and test
     disagree carries the report's explanation. The pooled table's report follows. */
  function renderTasks(report) {
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
    for (const task of result.tasks) {
      const x = task.texts || {};
      const flag = task.worse ? "worse" : task.better ? "better" : null;
      body.appendChild(h("tr", { "data-task": task.task, class: flag }, [
        h("td", {}, [
          task.task,
          flag ? h("span", { class: "tag" }, [flag === "worse" ? "significantly worse" : "significantly better"]) : null,
          h("div", { class: "small" }, ["b = " + fmtNum(task.table.b) + ", c = " + fmtNum(task.table.c) + " of " + fmtNum(task.table.n)]),
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
    }
  }

  /* The items that flipped (an upload's flips: each side's count and its first items, for one
     task in report.flips, for several in report.tasks.flips), listed under the table; the
     search box keeps the rows whose text holds what is typed. */
  function renderFlips(report, names) {
    const card = $("flips-card");
    const body = document.querySelector("#flips-table tbody");
    clear(body);
    $("flips-search").value = "";
    const flips = report.flips || (report.tasks && report.tasks.flips);
    if (!flips || !flips.a_only || !flips.b_only) { card.hidden = true; return; }
    card.hidden = false;
    const onlyA = flips.a_only, onlyB = flips.b_only;
    $("flips-summary").textContent = names.a + " right and " + names.b + " wrong on " +
      fmtNum(onlyA.count) + (onlyA.count === 1 ? " item" : " items") + "; " + names.a +
      " wrong and " + names.b + " right on " + fmtNum(onlyB.count) + ".";
    const items = (onlyA.items || []).concat(onlyB.items || []);
    const withContent = items.some((item) => item.content);
    $("flips-content-head").hidden = !withContent;
    const columns = withContent ? 3 : 2;
    let listed = 0;
    for (const [side, title, kind] of [[onlyA, names.a + " right, " + names.b + " wrong", "flip-a"],
                                       [onlyB, names.a + " wrong, " + names.b + " right", "flip-b"]]) {
      body.appendChild(h("tr", { class: "flip-side" }, [
        h("th", { scope: "rowgroup", colspan: String(columns) }, [title + " (" + fmtNum(side.count) + ")"]),
      ]));
      for (const item of side.items || []) {
        listed += 1;
        body.appendChild(h("tr", { class: kind + " flip" }, [
          h("td", { class: "flip-id" }, [asText(item.id), item.task ? h("div", { class: "small" }, ["task " + item.task]) : null]),
          h("td", { class: "num" }, [scoreText(item.score_a) + ", " + scoreText(item.score_b)]),
          withContent ? h("td", { class: "flip-content" }, [item.content ? String(item.content) : "—"]) : null,
        ]));
      }
    }
    const total = onlyA.count + onlyB.count;
    let note = "";
    if (flips.reason) note = "The items are not listed: " + flips.reason + ".";
    else if (listed < total) note = "The first " + fmtNum(listed) + " of " + fmtNum(total) + " are listed; mcnemar compare --flips-out FILE writes them all.";
    $("flips-note").textContent = note;
    filterFlips();
  }

  /* An item's score as the file gave it (or the mean of its samples): six significant
     digits, as the text report's list of flips prints it ("no score" when there is none). */
  function scoreText(x) {
    if (x === null || x === undefined) return "no score";
    return Number.isInteger(x) ? String(x) : String(Number(x.toPrecision(6)));
  }

  function filterFlips() {
    const query = $("flips-search").value.trim().toLowerCase();
    const rows = document.querySelectorAll("#flips-table tbody tr.flip");
    let shown = 0;
    for (const row of rows) {
      const match = !query || row.textContent.toLowerCase().includes(query);
      row.hidden = !match;
      if (match) shown += 1;
    }
    $("flips-count").textContent = query ? fmtNum(shown) + " of " + fmtNum(rows.length) + " listed items match." : "";
  }

  /* How the two files were paired, in the words of the command line's alignment summary:
     each run's file, format and counts, with the task, scorer and status its log records. */
  function renderAlignment(alignment, names) {
    const card = $("alignment-card");
    const dl = $("alignment");
    clear(dl);
    if (!alignment) { card.hidden = true; return; }
    card.hidden = false;
    const add = (term, value, key) => dl.append(h("dt", {}, [term]), h("dd", { "data-key": key || null }, Array.isArray(value) ? value : [value]));
    if (Array.isArray(alignment.tasks) && typeof alignment.dropped_items === "number") {
      // Files of several tasks, paired task by task.
      add("Paired items", fmtNum(alignment.matched) + " in " + fmtNum(alignment.tasks.length) +
        (alignment.tasks.length === 1 ? " task" : " tasks") + " (" + alignment.tasks.map((t) => t.task).join(", ") + ")");
      add("Dropped", fmtNum(alignment.dropped_items) + " items");
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
      for (const [key, value] of Object.entries(alignment)) add(key.replace(/_/g, " "), asText(value));
      return;
    }
    const key = Array.isArray(alignment.key) ? alignment.key.join(" + ") : asText(alignment.key);
    add("Paired items", fmtNum(alignment.matched) + " (matched by " + key + ")");
    const dropped = alignment.dropped;
    const why = [];
    if (dropped.only_in_a) why.push(fmtNum(dropped.only_in_a) + " only in A");
    if (dropped.only_in_b) why.push(fmtNum(dropped.only_in_b) + " only in B");
    if (dropped.no_score) why.push(fmtNum(dropped.no_score) + " without a score");
    add("Dropped", fmtNum(dropped.total) + (why.length ? " (" + why.join(", ") + ")" : ""));
    for (const side of ["a", "b"]) {
      const run = alignment.runs[side];
      if (!run) continue;
      let value = (run.path || run.name) + " (" + run.format + "): " + fmtNum(run.records) + " records, " + fmtNum(run.items) + " items";
      if (run.max_samples > 1) value += ", up to " + run.max_samples + " samples per item";
      if (run.binarised) value += ", " + fmtNum(run.binarised) + " scores binarised";
      // Task, scorer and status as the log records them (the summary's words).
      const described = run.description ? h("div", { class: "small", "data-key": "description" }, [run.description + "."]) : null;
      add(side === "a" ? "A (" + names.a + ")" : "B (" + names.b + ")", [value, described], "run-" + side);
    }
    const check = alignment.content_check;
    if (check && check.field && check.checked) {
      add("Content", check.field + " of " + fmtNum(check.checked - check.differ) + " of " + fmtNum(check.checked) +
        " paired items agrees in A and B");
    }
    if (alignment.threshold !== null && alignment.threshold !== undefined) add("Threshold", "score ≥ " + alignment.threshold + " passes");
    if (alignment.reduce) add("Samples combined by", alignment.reduce);
    if (alignment.clusters) add("Clusters", asText(alignment.clusters.count) + " (field " + asText(alignment.clusters.field) + ")");
  }

  /* ------------------------------------------------------------------ actions */

  async function copyText(textToCopy) {
    try {
      await navigator.clipboard.writeText(textToCopy);
      return true;
    } catch (err) {
      const area = h("textarea", { "aria-hidden": "true" }, []);
      area.value = textToCopy;
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      let ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      area.remove();
      return ok;
    }
  }

  function announce(message) {
    const s = $("action-status");
    s.textContent = message;
    setTimeout(() => { if (s.textContent === message) s.textContent = ""; }, 4000);
  }

  function reportOnly(report) {
    const copy = Object.assign({}, report);
    delete copy.markdown;
    delete copy.text;
    delete copy.distribution;
    return copy;
  }

  /* The exports hold the report shown, so they are offered only while that report is the
     one for the inputs: after an edit they wait for the new result, and while the inputs are
     invalid they say why they are off instead of exporting the previous result. The buttons
     stay focusable (aria-disabled), so a keyboard or screen-reader user learns why. */
  const EXPORTS = ["copy-markdown", "download-json"];

  function exportState() {
    if (!lastReport) return { ok: false, why: "There is no result to export yet." };
    if (resultsEl.classList.contains("stale") && !resultsEl.hasAttribute("aria-busy")) {
      return {
        ok: false,
        why: "Nothing to export: the inputs above give no result (see the message above), and the report shown belongs to earlier inputs.",
      };
    }
    if (upload) return { ok: false, why: "Wait for the files to be compared." };
    if (reportEl.dataset.query !== stateToQuery()) {
      return { ok: false, why: "Updating the result for the new inputs…", pending: true };
    }
    return { ok: true, why: "" };
  }

  function updateExports() {
    const state = exportState();
    for (const id of EXPORTS) {
      const button = $(id);
      if (state.ok) button.removeAttribute("aria-disabled");
      else button.setAttribute("aria-disabled", "true");
    }
    const note = $("export-note");
    // A pending update lasts a fraction of a second: no note for it, only for a lasting state.
    note.textContent = state.ok || state.pending ? "" : state.why;
    note.hidden = note.textContent === "";
    updateSummary();
  }

  function exportRefused() {
    const state = exportState();
    if (state.ok) return false;
    announce(state.why);
    return true;
  }

  /* The markdown of the report shown. An upload's report carries it; the typed counts'
     report does not (each keystroke would pay for it), so it is asked for, for the same
     inputs, when it is wanted (the exports are offered only while the report shown is the
     one for the inputs). */
  async function markdownOfShown() {
    if (lastMarkdown) return lastMarkdown;
    const shown = lastReport;
    const body = buildBody();
    body.include = ["markdown"];
    try {
      const response = await fetch("/api/v1/analyze", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const payload = await response.json();
      if (!response.ok || typeof payload.markdown !== "string") return "";
      if (lastReport === shown) lastMarkdown = payload.markdown;
      return payload.markdown;
    } catch (err) {
      return "";
    }
  }

  $("copy-markdown").addEventListener("click", async () => {
    if (exportRefused()) return;
    const markdown = await markdownOfShown();
    if (!markdown) { announce("The markdown report could not be fetched; is `mcnemar serve` still running?"); return; }
    announce(await copyText(markdown) ? "Markdown report copied to the clipboard." : "Copying failed; select the text by hand.");
  });

  $("download-json").addEventListener("click", () => {
    if (exportRefused()) return;
    const blob = new Blob([JSON.stringify(reportOnly(lastReport), null, 2) + "\n"], { type: "application/json" });
    const url = URL.createObjectURL(blob);
    const link = h("a", { href: url, download: "mcnemar-report.json" }, []);
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    announce("JSON report downloaded.");
  });

  $("copy-link").addEventListener("click", async () => {
    announce(await copyText(location.href) ? "Link copied: it reproduces these inputs." : "Copying failed; copy the address bar.");
  });

  /* ------------------------------------------------------------------ upload */

  const uploadForm = $("upload-form");
  const uploadStatus = $("upload-status");
  const maxMb = Number(uploadForm.getAttribute("data-max-mb")) || 50;

  function uploadMessage(message, kind) {
    uploadStatus.textContent = message;
    uploadStatus.classList.toggle("error", kind === true || kind === "error");
    uploadStatus.classList.toggle("notice", kind === "notice");
  }

  /* The server's messages about files are written for every caller, and some name the
     library's arguments and command-line flags. On the page each of those is one of the
     page's own controls: say that, and mark the control. */
  const PAGE_CONTROLS = [
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

  function pageWords(error) {
    let message = error.message || "";
    const marks = [];
    for (const rule of PAGE_CONTROLS) {
      if (!rule.pattern.test(message)) continue;
      rule.pattern.lastIndex = 0;
      message = message.replace(rule.pattern, rule.words);
      if (rule.note && !marks.some((m) => m.field === rule.id)) marks.push({ field: rule.id, message: rule.note });
    }
    message = message.replace(SERVER_FLAG, "restart mcnemar serve with a larger $1");
    // Any flag left is a command-line option the page has no control for.
    message = message.replace(/\s*\((?:pass )?--[a-z][a-z-]*(?: [^)]*)?(?: on the command line)?\)/gi, "");
    const errors = (error.errors && error.errors.length ? error.errors : [{ field: error.field, message: error.message }])
      .filter((item) => item.field)
      .map((item) => ({ field: item.field, message: pageWords({ message: item.message, errors: [{}] }).message }));
    return { status: error.status, field: error.field, message: message, errors: errors.concat(marks) };
  }

  function cancelUpload(changedId) {
    if (!upload) return;
    const current = upload;
    upload = null;
    current.controller.abort();
    $("upload-submit").removeAttribute("aria-disabled");
    uploadMessage("Comparing " + current.names + " was cancelled: you changed " + controlName(changedId) +
      " while the files were being read, so the results follow what you typed. Press “Compare the files” to compare them with the new settings.", "notice");
  }

  uploadForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearFieldErrors();
    const files = { file_a: $("file_a").files[0], file_b: $("file_b").files[0] };
    for (const id of ["file_a", "file_b"]) {
      if (!files[id]) {
        showError({ status: 422, field: id, message: "choose the results file of " + (id === "file_a" ? "A" : "B") + ".", errors: [] }, "upload");
        return;
      }
      if (files[id].size > maxMb * 1e6) {
        showError({ status: 413, field: id, message: files[id].name + " is " + (files[id].size / 1e6).toFixed(1) + " MB, more than the limit of " + maxMb + " MB per file.", errors: [] }, "upload");
        return;
      }
    }
    const decisions = checkDecisions();
    if (decisions.length) {
      showError({ status: 422, field: decisions[0].field, errors: decisions,
        message: decisions[0].message + " (under “Beyond ‘is there a difference?’” above)." }, "upload");
      return;
    }
    const data = new FormData();
    data.append("file_a", files.file_a);
    data.append("file_b", files.file_b);
    // Names the user typed; without them the server uses the names the files record (and a
    // name the page filled in from earlier files is not one the user typed).
    for (const id of ["name_a", "name_b"]) {
      const v = $(id).value.trim();
      if (v !== "" && !$(id).dataset.fromFiles) data.append(id, v);
    }
    for (const id of ["confidence_level", "alpha"]) {
      const v = $(id).value.trim();
      if (v !== "") data.append(id, v);
    }
    data.append("alternative", $("alternative").value);
    if ($("on_missing").checked) data.append("on_missing", "intersect");
    if ($("on_error").checked) data.append("on_error", "fail");
    for (const id of ["run_a", "run_b"]) {
      if ($(id).value.trim() !== "") data.append(id, $(id).value.trim());
    }
    if ($("threshold").value.trim() !== "") data.append("threshold", $("threshold").value.trim());
    if ($("reduce").value !== "") data.append("reduce", $("reduce").value);
    if ($("cluster").value.trim() !== "") data.append("cluster", $("cluster").value.trim());
    data.append("cluster_method", $("cluster_method").value);
    if ($("task_column").value.trim() !== "") data.append("task_column", $("task_column").value.trim());
    for (const id of ["allow_different_tasks", "allow_different_scorers"]) {
      if ($(id).checked) data.append(id, "true");
    }
    const margin = $("margin").value.trim();
    if (margin !== "") {
      data.append("margin", String(fromPoints(margin)));
      data.append("margin_method", $("margin_method").value);
      if ($("equivalence").checked) data.append("equivalence", "true");
    }
    const rope = $("rope").value.trim();
    if (rope !== "") {
      data.append("bayes", "true");
      data.append("rope", String(fromPoints(rope)));
      if ($("prior").value.trim() !== "") data.append("prior", $("prior").value.trim());
    }
    data.append("include", "distribution,markdown");
    // An edit typed just before pressing the button is superseded by the upload.
    clearTimeout(timer);
    if (upload) upload.controller.abort();
    const mine = { controller: new AbortController(), names: files.file_a.name + " with " + files.file_b.name };
    upload = mine;
    uploadMessage("Reading and aligning the two files… (editing the inputs meanwhile cancels this)", false);
    if (statusEl.classList.contains("error") || !lastReport) setStatus("Reading and aligning " + mine.names + "…", false);
    await request("/api/v1/compare", { method: "POST", body: data }, (ok, payload) => {
      if (upload !== mine) return;
      upload = null;
      if (ok) {
        uploadMessage("Compared " + mine.names + ".", false);
        useCounts(payload.table);
        useNames(payload.names);
        reportEl.dataset.query = stateToQuery();
        revealVerdict();
      } else {
        showError(payload || { status: 0, field: null, errors: [],
          message: "cannot reach the calculator's server. Is `mcnemar serve` still running?" }, "upload");
        // An analysis the upload superseded is run again for the typed inputs (typed in
        // full: a prompt to type them would stand where the upload's message is).
        const typedInFull = REQUIRED[framing()].every((id) => $(id).value.trim() !== "");
        if (typedInFull && reportEl.dataset.query !== stateToQuery()) run();
      }
    }, mine.controller, true);
    if (upload === mine) upload = null;
    updateExports();
  });

  /* The names the files record (the report's, as the command line shows them), in the name
     fields the user left empty, so that the labels and the link use them too. A name filled in
     so is marked: the next upload asks for the names its own files record. */
  function useNames(names) {
    if (!names) return;
    for (const side of ["a", "b"]) {
      const input = $("name_" + side);
      const name = String(names[side] || "");
      if (input.value.trim() !== "" && !input.dataset.fromFiles) continue;
      if (name === "" || name.length > Number(input.getAttribute("maxlength") || 80)) {
        input.value = "";
        delete input.dataset.fromFiles;
      } else {
        input.value = name;
        input.dataset.fromFiles = "1";
      }
    }
    showNames();
    syncUrl();
  }

  /* After an upload, the aligned counts go into the inputs (and the URL), so that the
     link reproduces the result. */
  function useCounts(table) {
    $("framing-passes").checked = true;
    showFraming();
    for (const id of COUNT_FIELDS.passes) {
      const v = table[id];
      $(id).value = v === null || v === undefined ? "" : String(v);
    }
    syncUrl();
  }

  /* ------------------------------------------------------------------ the verdict on a phone */

  /* In the one-column layout the verdict is far below the inputs. A slim bar stuck to the
     top of the screen carries it (or the message that stands in for it) while the verdict
     itself is below the screen; tapping it goes there. It never moves what one is typing
     into; only actions that end the typing (an example, Enter, an upload) scroll the verdict
     into view themselves. */
  const narrowQuery = window.matchMedia("(max-width: 959px)");
  const summary = $("summary-bar-wrap");
  const verdictCard = document.querySelector(".verdict");

  function isNarrow() { return narrowQuery.matches; }

  /* Whether enough of node is on the screen to read its first lines (not just its edge). */
  function onScreen(node) {
    const r = node.getBoundingClientRect();
    const top = summary.offsetHeight || 0;
    const enough = Math.min(r.height, 100);
    return r.height > 0 && r.top < window.innerHeight - enough && r.bottom > top + enough;
  }

  /* Whether the verdict shown is what the results say (no problem stands above it). */
  function verdictCurrent() {
    return !!lastReport && !resultsEl.classList.contains("stale") && !statusEl.classList.contains("error");
  }

  function updateSummary() {
    if (!summary) return;
    const fresh = verdictCurrent();
    const badge = $("summary-badge"), line = $("summary-line");
    if (fresh) {
      const sig = verdictCard.classList.contains("significant");
      badge.textContent = (sig ? "Significant" : "Not significant") + " · " + pIs(text$("headline-pvalue"));
      line.textContent = $("verdict-headline").textContent;
      summary.dataset.kind = sig ? "significant" : "not-significant";
    } else {
      const error = statusEl.classList.contains("error");
      badge.textContent = !error ? "No result yet"
        : statusEl.dataset.origin === "upload" ? "The files were not compared" : "No result: fix the inputs";
      line.textContent = error && statusEl.dataset.origin === "upload"
        ? statusEl.textContent.replace(/^The files were not compared: /, "") : statusEl.textContent;
      summary.dataset.kind = error ? "error" : "hint";
    }
    $("summary-go").textContent = fresh || !statusEl.classList.contains("error") ? "Result ↓" : "Details ↓";
    const target = fresh ? verdictCard : statusEl;
    const below = !target.getBoundingClientRect || target.getBoundingClientRect().top > 0;
    summary.classList.toggle("away", !isNarrow() || (onScreen(target) || !below) || !line.textContent);
  }

  function text$(id) { const node = $(id); return node ? (node.textContent || "").trim() : ""; }

  function revealVerdict() {
    if (onScreen(verdictCard)) return;
    if (!isNarrow()) {
      // Beside the inputs (which stay put): the results scroll back to their verdict.
      verdictCard.scrollIntoView({ block: "nearest" });
      return;
    }
    const smooth = !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    verdictCard.scrollIntoView({ block: "start", behavior: smooth ? "smooth" : "auto" });
    // The reader goes with it (and a phone's keyboard closes once the field loses focus).
    resultsEl.focus({ preventScroll: true });
  }

  $("summary-bar").addEventListener("click", () => {
    (verdictCurrent() ? verdictCard : statusEl).scrollIntoView({ block: "start" });
    resultsEl.focus({ preventScroll: true });
  });
  let summaryFrame = 0;
  const summarySoon = () => {
    if (summaryFrame) return;
    summaryFrame = requestAnimationFrame(() => { summaryFrame = 0; updateSummary(); });
  };
  window.addEventListener("scroll", summarySoon, { passive: true });
  narrowQuery.addEventListener("change", summarySoon);

  /* ------------------------------------------------------------------ wiring */

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    clearTimeout(timer);
    run({ reveal: true });
  });
  /* The form has several text fields and no submit button, so Enter does not submit it:
     Enter (a phone keyboard's Go) in a field is taken as "done typing", and the result is
     brought into view. */
  form.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.target.tagName !== "INPUT" || event.isComposing) return;
    event.preventDefault();
    clearTimeout(timer);
    run({ reveal: true });
  });
  $("flips-search").addEventListener("input", filterFlips);

  form.addEventListener("input", (event) => {
    if (upload) cancelUpload(event.target.id);
    if (event.target.name === "framing") showFraming();
    if (event.target.id === "name_a" || event.target.id === "name_b") {
      delete event.target.dataset.fromFiles;  // typed now: the user's own name
      showNames();
    }
    if (DECISION_FIELDS.includes(event.target.id)) showDecisions();
    schedule();
  });
  form.addEventListener("change", (event) => {
    if (event.target.tagName === "SELECT" || event.target.type === "radio") {
      if (upload) cancelUpload(event.target.id);
      showFraming();
      schedule();
    }
  });
  for (const button of document.querySelectorAll("[data-example]")) {
    button.addEventListener("click", () => {
      if (upload) cancelUpload("example");
      const keep = new URLSearchParams(location.search);
      const params = new URLSearchParams(button.getAttribute("data-example"));
      for (const id of OPTION_FIELDS.concat(DECISION_FIELDS)) if (keep.get(id)) params.set(id, keep.get(id));
      loadQuery(params.toString());
      syncUrl();
      clearTimeout(timer);
      run({ reveal: true });
    });
  }

  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => { if (!reportEl.hidden) charts.forEach((chart) => chart()); updateSummary(); }, 150);
  });

  loadQuery(location.search);
  syncUrl();  // the address bar in the page's own order, as edits will write it
  updateExports();
  updateSummary();
  if (location.search) run();
})();
