/* The calculator page: read the inputs, ask the JSON API, render its report.
   The page's state lives in the URL query string, so a link reproduces the result.
   Every number shown comes from the server (the report, mcnemar.report/1, and the
   response's "display" object), written as the server wrote it: the page rounds nothing.

   This module starts the page: it makes the page's one object (its elements, its limits,
   its state and its API client) and hands it to the functions of the other modules:
     form.js      the form's snapshot, the requests and the link made from it
     api.js       the client of the JSON API (one request at a time)
     status.js    the status, the errors, the exports' state, the verdict's bar on a phone
     report.js    the report's rendering; scores.js a comparison of scores; views.js the
                  views both share and the upload's; charts.js the pictures
     upload.js    the upload of two files; messages.js the server's messages in the page's words
     text.js, dom.js  text and elements */

import { createClient, postJson } from "./api.js";
import { $, h } from "./dom.js";
import {
  COUNT_FIELDS, DECISION_FIELDS, FORM_FIELDS, analyzeBody, checkCounts, checkDecisions, exampleQuery,
  halfPair, loadQuery, missingCounts, queryOf, readForm, showAnalysis, showDecisions, showFraming, showNames, syncUrl,
} from "./form.js";
import { labelOf, shortLabelOf } from "./messages.js";
import { renderReport, reportOnly } from "./report.js";
import { scoreKind } from "./scores.js";
import {
  announce, clearFieldErrors, exportState, revealVerdict, setStatus, showError, updateExports, updateSummary,
  verdictCurrent,
} from "./status.js";
import { cancelUpload, submitUpload } from "./upload.js";
import { filterFlips } from "./views.js";

const DEBOUNCE_MS = 180;

/* The page: its elements, the limits the server wrote into it, its state and its client. */
function createPage() {
  const form = $("counts-form");
  const uploadForm = $("upload-form");
  const maxMb = uploadForm.getAttribute("data-max-mb") || "50";
  const page = {
    els: {
      form,
      uploadForm,
      status: $("status"),
      results: $("results"),
      report: $("report"),
      uploadStatus: $("upload-status"),
      summary: $("summary-bar-wrap"),
      verdict: document.querySelector(".verdict"),
    },
    /* The library's largest count (and this calculator's largest number of items), as the
       server states it on the page (mcnemar.validation.MAX_COUNT, 2**52: beyond it the sums
       of cells stop being exact in double precision). BigInt, so that what is typed is
       compared exactly, not after rounding to a double; its text as the server wrote it. */
    limits: {
      maxCount: BigInt(form.getAttribute("data-max-count")),
      maxCountText: form.getAttribute("data-max-count-text"),
      maxUploadBytes: Number(maxMb) * 1e6,
      maxUploadText: maxMb + " MB",
    },
    state: {
      timer: null,
      lastReport: null,
      lastMarkdown: "",
      /* The upload in flight, if any: { controller, names } (see upload.js). */
      upload: null,
      /* The pictures are drawn for the width they have: a resize redraws them (and only
         them, so that a message or a stale mark on the page stays as it is). */
      charts: [],
    },
    client: createClient((url, init) => fetch(url, init)),
    narrow: window.matchMedia("(max-width: 959px)"),
    actions: {},
  };
  page.actions.run = (options) => run(page, options);
  page.actions.request = (url, init, onDone, own, quiet) => request(page, url, init, onDone, own, quiet);
  return page;
}

/* ------------------------------------------------------------------ the analysis */

function schedule(page) {
  syncUrl();
  updateExports(page);
  clearTimeout(page.state.timer);
  page.state.timer = setTimeout(() => run(page), DEBOUNCE_MS);
}

/* Nothing to show for these inputs (a hint or an error): forget any request in flight. */
function withdraw(page) {
  page.client.withdraw();
  page.els.results.removeAttribute("aria-busy");
  page.els.results.classList.add("stale");
  updateExports(page);
}

async function run(page, options) {
  const reveal = !!(options && options.reveal);
  // Whatever path led here, an upload in flight is not superseded without a word.
  if (page.state.upload) cancelUpload(page, "inputs");
  const form = readForm(document);
  const f = form.framing;
  clearFieldErrors(FORM_FIELDS);
  if (missingCounts(form).length) {
    withdraw(page);
    setStatus(page, f === "passes"
      ? "Type b and c, the two disagreement counts, to see the result (a and d are optional)."
      : "Type how many items only one system got wrong, for each system, to see the result.", false);
    return;
  }
  const local = checkCounts(form, COUNT_FIELDS[f], page.limits);
  if (local.errors.length) {
    withdraw(page);
    showError(page, { status: 422, message: local.errors[0].message, field: local.errors[0].field, errors: local.errors });
    return;
  }
  if (local.total > page.limits.maxCount) {
    withdraw(page);
    showError(page, {
      status: 422, field: null, errors: [],
      message: "The counts add up to more than " + page.limits.maxCountText +
        " items, the largest number of items the calculator handles exactly.",
    });
    return;
  }
  const decisions = checkDecisions(form);
  if (decisions.length) {
    withdraw(page);
    showError(page, { status: 422, message: decisions[0].message, field: decisions[0].field, errors: decisions });
    return;
  }
  const half = halfPair(form);
  if (half) {
    // Half a pair is what one sees while typing a, b, c, d in order: wait for the other.
    withdraw(page);
    setStatus(page, "Type " + labelOf(half.missing) + " too, or clear " + shortLabelOf(half.given) +
      ": the number of items needs both.", false);
    return;
  }
  const query = queryOf(form);
  await request(page, "/api/v1/analyze", postJson(analyzeBody(form)), (ok) => {
    if (ok) {
      page.els.report.dataset.query = query;
      if (reveal) revealVerdict(page);
    }
  });
}

/* One request at a time (the client's): its answer rendered, or its error shown. A quiet
   request (an upload) reports its own errors; the report shown stays valid. */
async function request(page, url, init, onDone, own, quiet) {
  const { results, report } = page.els;
  const sent = page.client.send(url, init, own);
  results.setAttribute("aria-busy", "true");
  updateExports(page);
  const answer = await sent;
  if (answer.kind === "superseded") return false;
  results.removeAttribute("aria-busy");
  if (answer.kind === "ok") {
    renderReport(page, answer.payload);
    if (onDone) onDone(true, answer.payload);
    updateExports(page);
    return true;
  }
  if (answer.kind === "unreachable") {
    if (!quiet) {
      showError(page, { status: 0, field: null, errors: [],
        message: "Cannot reach the calculator's server. Is `mcnemar serve` still running?" });
    }
    if (onDone) onDone(false, null);
    updateExports(page);
    return false;
  }
  if (!quiet) {
    delete report.dataset.query;
    showError(page, answer.payload);
  }
  if (onDone) onDone(false, answer.payload);
  updateExports(page);
  return false;
}

/* ------------------------------------------------------------------ the exports */

async function copyText(textToCopy) {
  try {
    await navigator.clipboard.writeText(textToCopy);
    return true;
  } catch {
    const area = h("textarea", { "aria-hidden": "true" }, []);
    area.value = textToCopy;
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    let ok;
    try { ok = document.execCommand("copy"); } catch { ok = false; }
    area.remove();
    return ok;
  }
}

function exportRefused(page) {
  const state = exportState(page);
  if (state.ok) return false;
  announce(state.why);
  return true;
}

/* The markdown of the report shown. An upload's report carries it; the typed counts'
   report does not (each keystroke would pay for it), so it is asked for, for the same
   inputs, when it is wanted (the exports are offered only while the report shown is the
   one for the inputs). */
async function markdownOfShown(page) {
  if (page.state.lastMarkdown) return page.state.lastMarkdown;
  const shownReport = page.state.lastReport;
  const payload = await page.client.fetchJson("/api/v1/analyze", postJson(analyzeBody(readForm(document), ["markdown"])));
  if (!payload || typeof payload.markdown !== "string") return "";
  if (page.state.lastReport === shownReport) page.state.lastMarkdown = payload.markdown;
  return payload.markdown;
}

function wireExports(page) {
  $("copy-markdown").addEventListener("click", async () => {
    if (exportRefused(page)) return;
    const markdown = await markdownOfShown(page);
    if (!markdown) { announce("The markdown report could not be fetched; is `mcnemar serve` still running?"); return; }
    announce(await copyText(markdown) ? "Markdown report copied to the clipboard." : "Copying failed; select the text by hand.");
  });

  $("download-json").addEventListener("click", () => {
    if (exportRefused(page)) return;
    const blob = new Blob([JSON.stringify(reportOnly(page.state.lastReport), null, 2) + "\n"], { type: "application/json" });
    const url = URL.createObjectURL(blob);
    const link = h("a", { href: url, download: "mcnemar-report.json" }, []);
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    announce("JSON report downloaded.");
  });

  $("copy-link").addEventListener("click", async () => {
    // A comparison of scores comes from the files, which no link carries.
    const what = scoreKind(page.state.lastReport) && page.els.report.dataset.query === queryOf(readForm(document))
      ? "Link copied: it holds the names and options typed, not the uploaded files; upload them again to see this comparison of scores."
      : "Link copied: it reproduces these inputs.";
    announce(await copyText(location.href) ? what : "Copying failed; copy the address bar.");
  });
}

/* ------------------------------------------------------------------ wiring */

function wireForm(page) {
  const { form } = page.els;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    clearTimeout(page.state.timer);
    run(page, { reveal: true });
  });
  /* The form has several text fields and no submit button, so Enter does not submit it:
     Enter (a phone keyboard's Go) in a field is taken as "done typing", and the result is
     brought into view. */
  form.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.target.tagName !== "INPUT" || event.isComposing) return;
    event.preventDefault();
    clearTimeout(page.state.timer);
    run(page, { reveal: true });
  });
  form.addEventListener("input", (event) => {
    if (page.state.upload) cancelUpload(page, event.target.id);
    if (event.target.name === "framing") showFraming();
    if (event.target.id === "name_a" || event.target.id === "name_b") {
      delete event.target.dataset.fromFiles;  // typed now: the user's own name
      showNames();
    }
    if (DECISION_FIELDS.includes(event.target.id)) showDecisions();
    schedule(page);
  });
  form.addEventListener("change", (event) => {
    if (event.target.tagName === "SELECT" || event.target.type === "radio") {
      if (page.state.upload) cancelUpload(page, event.target.id);
      showFraming();
      schedule(page);
    }
  });
  for (const button of document.querySelectorAll("[data-example]")) {
    button.addEventListener("click", () => {
      if (page.state.upload) cancelUpload(page, "example");
      loadQuery(exampleQuery(button.getAttribute("data-example"), location.search));
      syncUrl();
      clearTimeout(page.state.timer);
      run(page, { reveal: true });
    });
  }
  $("flips-search").addEventListener("input", filterFlips);
  $("analysis").addEventListener("change", showAnalysis);
  page.els.uploadForm.addEventListener("submit", (event) => submitUpload(page, event));
}

function wireWindow(page) {
  const { results, report, status, verdict } = page.els;
  $("summary-bar").addEventListener("click", () => {
    (verdictCurrent(page) ? verdict : status).scrollIntoView({ block: "start" });
    results.focus({ preventScroll: true });
  });
  const frames = { summary: 0, resize: null };
  const summarySoon = () => {
    if (frames.summary) return;
    frames.summary = requestAnimationFrame(() => { frames.summary = 0; updateSummary(page); });
  };
  window.addEventListener("scroll", summarySoon, { passive: true });
  page.narrow.addEventListener("change", summarySoon);
  window.addEventListener("resize", () => {
    clearTimeout(frames.resize);
    frames.resize = setTimeout(() => {
      if (!report.hidden) page.state.charts.forEach((chart) => chart());
      updateSummary(page);
    }, 150);
  });
}

function start() {
  const page = createPage();
  wireForm(page);
  wireExports(page);
  wireWindow(page);
  loadQuery(location.search);
  showAnalysis();  // a browser may restore the menu's choice
  syncUrl();  // the address bar in the page's own order, as edits will write it
  updateExports(page);
  updateSummary(page);
  if (location.search) run(page);
}

// A module runs once the document is parsed (as a deferred script would).
start();
