/* The calculator page: read the inputs, ask the JSON API, render its report.
   The page's state lives in the URL query string, so a link reproduces the result.
   Every number shown comes from the server's report (mcnemar.report/1). */
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
  const UPLOAD_FIELDS = ["file_a", "file_b", "on_missing", "threshold", "reduce"];
  const ALL_FIELDS = COUNT_FIELDS.passes.concat(COUNT_FIELDS.errors, OPTION_FIELDS, UPLOAD_FIELDS);
  const DEBOUNCE_MS = 180;

  /* Names of the interval methods, per quantity (the same key can mean different methods). */
  const INTERVAL_LABELS = {
    difference: {
      "wald": "Wald",
      "wald-cc": "Wald, continuity-corrected",
      "agresti-min": "Agresti–Min",
      "bonett-price": "Bonett–Price",
      "newcombe": "Newcombe (hybrid score)",
      "newcombe-plain": "Newcombe, plain correlation",
      "tango": "Tango score",
      "exact": "Exact, test-compatible (Fay–Lumbard)",
    },
    ratio: { "tang": "Tang score", "bonett-price": "Bonett–Price", "wald": "Wald (log)" },
    odds_ratio: { "exact": "Clopper–Pearson", "midp": "Clopper–Pearson mid-p", "wilson": "Wilson" },
  };
  const SHORT_LABELS = {
    "wald-cc": "Wald CC", "newcombe": "Newcombe", "newcombe-plain": "Newcombe plain",
    "exact": "Exact (Fay–Lumbard)",
  };
  const TEST_ORDER = ["exact", "midp", "asymptotic", "corrected"];

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

  /* ------------------------------------------------------------------ formatting */

  const SUPERSCRIPT = { "-": "⁻", "0": "⁰", "1": "¹", "2": "²", "3": "³", "4": "⁴", "5": "⁵", "6": "⁶", "7": "⁷", "8": "⁸", "9": "⁹" };

  function sci(log10) {
    const e = Math.floor(log10);
    let m = Math.pow(10, log10 - e);
    let exp = e;
    if (Number(m.toPrecision(2)) >= 10) { m /= 10; exp += 1; }
    const sup = String(exp).split("").map((ch) => SUPERSCRIPT[ch] || ch).join("");
    return m.toPrecision(2) + " × 10" + sup;
  }

  /* p-values: two significant digits in prose, more in tables; tiny ones from log10 p. */
  function fmtP(p, log10, digits) {
    if (p === null || p === undefined) return "—";
    digits = digits || 2;
    if (p >= 1) return "1";
    if (p < 1e-4) {
      const lg = log10 !== null && log10 !== undefined ? log10 : Math.log10(p);
      return isFinite(lg) ? sci(lg) : "0";
    }
    const s = String(Number(p.toPrecision(digits)));
    if (s === "1") return "> 0.99";
    return s;
  }

  function fmtNum(x, digits) {
    if (x === null || x === undefined) return "—";
    if (typeof x !== "number") return String(x);
    if (Number.isInteger(x)) return x.toLocaleString("en-US");
    return String(Number(x.toPrecision(digits || 4)));
  }

  function points(x, digits) {
    if (x === null || x === undefined) return "—";
    const v = x * 100;
    const s = v.toFixed(digits === undefined ? 1 : digits);
    return (v > 0 && Number(s) !== 0 ? "+" : "") + s;
  }

  function percent(x) {
    return x === null || x === undefined ? "—" : (x * 100).toFixed(1) + "%";
  }

  function clear(node) { node.replaceChildren(); }

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
        $(id).value = v && ["two-sided", "greater", "less"].includes(v) ? v : "two-sided";
      } else {
        $(id).value = v === null ? "" : v;
      }
    }
    showFraming();
    showNames();
  }

  /* ------------------------------------------------------------------ request */

  const NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

  /* Numerals go as JSON numbers; anything else is sent as typed so that the server's
     validation (the only one) can name the field and echo the value. */
  function typed(value) {
    return NUMBER_RE.test(value) ? Number(value) : value;
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

  function buildBody() {
    const f = framing();
    const body = { framing: f };
    for (const id of COUNT_FIELDS[f]) {
      const v = $(id).value.trim();
      if (v !== "") body[id] = typed(v);
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
    body.include = ["distribution", "markdown"];
    return body;
  }

  function schedule() {
    syncUrl();
    clearTimeout(timer);
    timer = setTimeout(run, DEBOUNCE_MS);
  }

  async function run() {
    const f = framing();
    const missing = REQUIRED[f].filter((id) => $(id).value.trim() === "");
    clearFieldErrors();
    if (missing.length) {
      if (controller) controller.abort();
      sequence += 1;
      setStatus(f === "passes"
        ? "Type b and c, the two disagreement counts, to see the result (a and d are optional)."
        : "Type how many items only one system got wrong, for each system, to see the result.", false);
      resultsEl.classList.add("stale");
      return;
    }
    const pair = PAIRED[f].map((id) => $(id).value.trim() !== "");
    if (pair[0] !== pair[1]) {
      // Half a pair is what one sees while typing a, b, c, d in order: wait for the other.
      if (controller) controller.abort();
      sequence += 1;
      const [first, second] = PAIRED[f];
      const missingId = pair[0] ? second : first;
      const givenId = missingId === first ? second : first;
      setStatus("Type " + labelOf(missingId) + " too, or clear " + shortLabelOf(givenId) +
        ": the number of items needs both.", false);
      resultsEl.classList.add("stale");
      return;
    }
    const query = stateToQuery();
    await request("/api/v1/analyze", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(buildBody()),
    }, (ok) => { if (ok) reportEl.dataset.query = query; });
  }

  async function request(url, init, onDone) {
    if (controller) controller.abort();
    controller = new AbortController();
    const mine = ++sequence;
    resultsEl.setAttribute("aria-busy", "true");
    let response, payload;
    try {
      response = await fetch(url, Object.assign({ signal: controller.signal }, init));
      payload = await response.json().catch(() => null);
    } catch (err) {
      if (err && err.name === "AbortError") return false;
      if (mine !== sequence) return false;
      resultsEl.removeAttribute("aria-busy");
      setStatus("Cannot reach the calculator's server. Is `mcnemar serve` still running?", true);
      resultsEl.classList.add("stale");
      if (onDone) onDone(false, null);
      return false;
    }
    if (mine !== sequence) return false;
    resultsEl.removeAttribute("aria-busy");
    if (response.ok && payload && payload.schema) {
      render(payload);
      if (onDone) onDone(true, payload);
      return true;
    }
    delete reportEl.dataset.query;
    const error = payload && payload.error ? payload.error
      : { status: response.status, message: "The server answered " + response.status + ".", field: null, errors: [] };
    showError(error);
    if (onDone) onDone(false, error);
    return false;
  }

  /* ------------------------------------------------------------------ errors */

  function setStatus(message, isError) {
    statusEl.textContent = message;
    statusEl.classList.toggle("error", !!isError);
  }

  function clearFieldErrors() {
    for (const id of ALL_FIELDS) {
      const input = $(id);
      const msg = $(id + "-error");
      if (input) input.removeAttribute("aria-invalid");
      if (msg) { msg.textContent = ""; msg.hidden = true; }
    }
  }

  function showError(error) {
    clearFieldErrors();
    let marked = false;
    for (const item of error.errors && error.errors.length ? error.errors : [error]) {
      const field = item.field;
      if (!field) continue;
      const input = $(field);
      const msg = $(field + "-error");
      if (!input || !msg || input.closest("[hidden]")) continue;
      input.setAttribute("aria-invalid", "true");
      msg.textContent = item.message;
      msg.hidden = false;
      marked = true;
    }
    const prefix = marked ? "Please fix the marked field: " : "";
    setStatus(prefix + error.message, true);
    resultsEl.classList.add("stale");
  }

  /* ------------------------------------------------------------------ rendering */

  function render(report) {
    lastReport = report;
    lastMarkdown = report.markdown || "";
    clearFieldErrors();
    setStatus("", false);
    resultsEl.classList.remove("stale");
    reportEl.hidden = false;

    const names = report.names || { a: "candidate", b: "baseline" };
    const t = report.table;
    const tests = report.tests || {};
    const recKey = (report.recommended && report.recommended.test) || "exact";
    const rec = tests[recKey] || {};
    const conclusion = report.conclusion || {};

    const verdict = document.querySelector(".verdict");
    verdict.classList.toggle("significant", !!conclusion.significant);
    verdict.classList.toggle("not-significant", !conclusion.significant);
    $("verdict-badge").textContent = (conclusion.significant ? "Significant" : "Not significant") +
      " at α = " + fmtNum(report.alpha);
    $("verdict-headline").textContent = conclusion.better === "a" ? names.a + " did better than " + names.b
      : conclusion.better === "b" ? names.b + " did better than " + names.a
      : "No clear difference between " + names.a + " and " + names.b;
    $("conclusion").textContent = conclusion.text || "";
    const headline = $("headline-p");
    clear(headline);
    headline.append(
      (rec.name ? capitalize(shortTestName(recKey, rec.name)) : recKey) + " p = ",
      h("strong", { id: "headline-pvalue" }, [fmtP(rec.pvalue, rec.log10_pvalue, 2)]),
      " (" + report.alternative + ", the recommended test)"
    );
    $("reason").textContent = report.recommended && report.recommended.reason ? "Why this test: " + report.recommended.reason : "";

    $("words").textContent = report.words || "";
    window.McNemarCharts.table2x2($("table-chart"), t, names);

    renderDistribution(report, names);
    renderTests(tests, recKey);
    renderDifference(report);
    renderRatios(report);
    renderUnpaired(report.unpaired);
    renderPower(report.power, t);
    renderAlignment(report.alignment, names);

    const warnings = $("warnings");
    clear(warnings);
    for (const w of report.warnings || []) warnings.appendChild(h("li", {}, [asText(w)]));
    const assumptions = $("assumptions");
    clear(assumptions);
    for (const a of report.assumptions || []) assumptions.appendChild(h("li", {}, [asText(a)]));
  }

  function capitalize(s) { return s ? s.charAt(0).toUpperCase() + s.slice(1) : s; }

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
    window.McNemarCharts.nullDistribution(chart, dist, t, report.alternative, names);
    if (D === 0) {
      caption.textContent = "There are no disagreements: the two systems are right and wrong on exactly the same items, so the data cannot tell which is better (p = 1).";
      return;
    }
    const tails = report.alternative === "two-sided" ? "both tails hold" : "the shaded tail holds";
    caption.textContent = "If " + names.a + " and " + names.b + " were equally good, each of the " +
      D.toLocaleString("en-US") + " disagreements would go either way with probability 1/2, and b would follow this Binomial(" +
      D.toLocaleString("en-US") + ", 1/2) distribution. The observed split is " + t.b.toLocaleString("en-US") + " : " +
      t.c.toLocaleString("en-US") + "; " + tails + " the splits at least as lopsided, with total probability " +
      fmtP(exact.pvalue, exact.log10_pvalue, 2) + " (the exact p-value)" +
      (dist.step > 1 ? ". Only the central part is drawn, every " + dist.step + "th value." : ".");
  }

  function renderTests(tests, recKey) {
    const body = document.querySelector("#tests-table tbody");
    clear(body);
    const keys = TEST_ORDER.filter((k) => k in tests).concat(Object.keys(tests).filter((k) => !TEST_ORDER.includes(k)));
    for (const key of keys) {
      const test = tests[key];
      const nameCell = h("td", {}, [
        test.name || key,
        key === recKey ? h("span", { class: "tag" }, ["recommended"]) : null,
        test.convention ? h("div", { class: "small" }, [test.convention]) : null,
      ]);
      body.appendChild(h("tr", { class: key === recKey ? "recommended" : null, "data-test": key }, [
        nameCell,
        h("td", { class: "num" }, [fmtNum(test.statistic, 4)]),
        h("td", { class: "num" }, [fmtP(test.pvalue, test.log10_pvalue, 4)]),
      ]));
    }
  }

  function renderDifference(report) {
    const diff = report.difference || {};
    const est = diff.estimate;
    const acc = report.accuracy;
    const names = report.names;
    const recommended = diff.recommended_interval;
    const intervals = diff.intervals || {};
    const level = Math.round((diff.confidence_level || report.confidence_level) * 1000) / 10;
    const p = $("diff-estimate");
    clear(p);
    if (est === null || est === undefined) {
      p.textContent = "The difference in accuracy needs the number of items: give a (both right) and d (both wrong) as well.";
    } else {
      const rec = intervals[recommended];
      p.append(
        names.a + " minus " + names.b + ": ",
        h("strong", {}, [points(est) + " points"]),
        acc && acc.a !== null && acc.a !== undefined ? " (" + percent(acc.a) + " vs " + percent(acc.b) + ")" : "",
        rec && rec.low !== null ? "; " + level + "% " + (INTERVAL_LABELS.difference[recommended] || recommended) + " interval " : "",
        rec && rec.low !== null ? h("strong", { id: "recommended-interval" }, ["[" + points(rec.low) + ", " + points(rec.high) + "]"]) : "",
        rec && rec.low !== null ? " points." : "."
      );
    }
    const rows = Object.keys(intervals).map((key) => ({
      key: key,
      label: INTERVAL_LABELS.difference[key] || key,
      short: SHORT_LABELS[key] || INTERVAL_LABELS.difference[key] || key,
      low: intervals[key].low === null ? null : intervals[key].low * 100,
      high: intervals[key].high === null ? null : intervals[key].high * 100,
    }));
    const body = document.querySelector("#ci-table tbody");
    clear(body);
    for (const r of rows) {
      body.appendChild(h("tr", { class: r.key === recommended ? "recommended" : null, "data-interval": r.key }, [
        h("td", {}, [r.label, r.key === recommended ? h("span", { class: "tag" }, ["recommended"]) : null]),
        h("td", { class: "num" }, [r.low === null ? "—" : points(r.low / 100, 1)]),
        h("td", { class: "num" }, [r.high === null ? "—" : points(r.high / 100, 1)]),
      ]));
    }
    const chart = $("ci-chart");
    if (est === null || est === undefined || rows.length === 0) { clear(chart); return; }
    window.McNemarCharts.intervals(chart, rows, est * 100, recommended);
  }

  function renderRatios(report) {
    const box = $("ratios");
    clear(box);
    const parts = [
      ["Ratio of accuracies, A / B", report.ratio, INTERVAL_LABELS.ratio],
      ["Conditional odds ratio, b / c", report.odds_ratio, INTERVAL_LABELS.odds_ratio],
    ];
    for (const [title, block, labels] of parts) {
      if (!block) continue;
      box.appendChild(h("p", {}, [h("strong", {}, [title + ": "]), fmtNum(block.estimate, 4)]));
      const ul = h("ul", {}, []);
      for (const [key, iv] of Object.entries(block.intervals || {})) {
        ul.appendChild(h("li", {}, [(labels[key] || key) + ": [" + fmtNum(iv.low, 4) + ", " + (iv.high === null ? "∞" : fmtNum(iv.high, 4)) + "]"]));
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
    p.append(
      h("strong", {}, [capitalize(unpaired.name || "unpaired test") + ": p = " + fmtP(unpaired.pvalue, null, 2)]),
      unpaired.statistic !== null && unpaired.statistic !== undefined ? " (z = " + fmtNum(unpaired.statistic, 4) + "). " : ". ",
      unpaired.note || ""
    );
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
    p.textContent = power.detectable_difference === null || power.detectable_difference === undefined
      ? asText(power)
      : "Smallest difference detectable with " + Math.round((power.power || 0.8) * 100) +
        "% power on this many items: about " + points(power.detectable_difference).replace("+", "") + " points.";
  }

  function renderAlignment(alignment, names) {
    const card = $("alignment-card");
    const dl = $("alignment");
    clear(dl);
    if (!alignment) { card.hidden = true; return; }
    card.hidden = false;
    const add = (term, value) => dl.append(h("dt", {}, [term]), h("dd", {}, [value]));
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
      add(side === "a" ? "A (" + names.a + ")" : "B (" + names.b + ")", value);
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

  $("copy-markdown").addEventListener("click", async () => {
    if (!lastMarkdown) { announce("Nothing to copy yet."); return; }
    announce(await copyText(lastMarkdown) ? "Markdown report copied to the clipboard." : "Copying failed; select the text by hand.");
  });

  $("download-json").addEventListener("click", () => {
    if (!lastReport) return;
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
    announce(await copyText(location.href) ? "Link copied: it reproduces this result." : "Copying failed; copy the address bar.");
  });

  /* ------------------------------------------------------------------ upload */

  const uploadForm = $("upload-form");
  const uploadStatus = $("upload-status");
  const maxMb = Number(uploadForm.getAttribute("data-max-mb")) || 50;

  function uploadMessage(message, isError) {
    uploadStatus.textContent = message;
    uploadStatus.classList.toggle("error", !!isError);
  }

  uploadForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearFieldErrors();
    const files = { file_a: $("file_a").files[0], file_b: $("file_b").files[0] };
    for (const id of ["file_a", "file_b"]) {
      if (!files[id]) {
        showUploadError({ status: 422, field: id, message: "Choose the results file of " + (id === "file_a" ? namesFromInputs().a : namesFromInputs().b) + ".", errors: [] });
        return;
      }
      if (files[id].size > maxMb * 1e6) {
        showUploadError({ status: 413, field: id, message: files[id].name + " is " + (files[id].size / 1e6).toFixed(1) + " MB, more than the limit of " + maxMb + " MB per file.", errors: [] });
        return;
      }
    }
    const data = new FormData();
    data.append("file_a", files.file_a);
    data.append("file_b", files.file_b);
    for (const id of ["name_a", "name_b", "confidence_level", "alpha"]) {
      const v = $(id).value.trim();
      if (v !== "") data.append(id, v);
    }
    data.append("alternative", $("alternative").value);
    if ($("on_missing").checked) data.append("on_missing", "intersect");
    if ($("threshold").value.trim() !== "") data.append("threshold", $("threshold").value.trim());
    if ($("reduce").value !== "") data.append("reduce", $("reduce").value);
    data.append("include", "distribution,markdown");
    uploadMessage("Reading and aligning the two files…", false);
    await request("/api/v1/compare", { method: "POST", body: data }, (ok, payload) => {
      if (ok) {
        uploadMessage("Compared " + files.file_a.name + " with " + files.file_b.name + ".", false);
        useCounts(payload.table);
        reportEl.dataset.query = stateToQuery();
      } else if (payload) {
        showUploadError(payload);
      } else {
        uploadMessage("The upload failed: cannot reach the server.", true);
      }
    });
  });

  function showUploadError(error) {
    showError(error);
    uploadMessage(error.message, true);
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

  /* ------------------------------------------------------------------ wiring */

  form.addEventListener("submit", (event) => { event.preventDefault(); clearTimeout(timer); run(); });
  form.addEventListener("input", (event) => {
    if (event.target.name === "framing") showFraming();
    if (event.target.id === "name_a" || event.target.id === "name_b") showNames();
    schedule();
  });
  form.addEventListener("change", (event) => {
    if (event.target.tagName === "SELECT" || event.target.type === "radio") {
      showFraming();
      schedule();
    }
  });
  for (const button of document.querySelectorAll("[data-example]")) {
    button.addEventListener("click", () => {
      const keep = new URLSearchParams(location.search);
      const params = new URLSearchParams(button.getAttribute("data-example"));
      for (const id of OPTION_FIELDS) if (keep.get(id)) params.set(id, keep.get(id));
      loadQuery(params.toString());
      syncUrl();
      clearTimeout(timer);
      run();
    });
  }

  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => { if (lastReport && !reportEl.hidden) render(lastReport); }, 150);
  });

  loadQuery(location.search);
  if (location.search) run();
})();
