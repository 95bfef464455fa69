/* What the page says about itself: the status above the results (a hint, a note or an
   error), the fields an error names, the upload's own line, the verdict's bar on a phone and
   whether the exports are offered. Every function takes the page (see app.js). */

import { $ } from "./dom.js";
import { ALL_FIELDS, DECISION_FIELDS, FIELD_CONTROLS, FORM_FIELDS, PAIRING_FIELDS, UPLOAD_FIELDS, queryOf, readForm } from "./form.js";
import { pIs } from "./text.js";
import { pageWords } from "./messages.js";

/* ------------------------------------------------------------------ status and errors */

/* What the results column says instead of (or above) a result: a hint, a note, or an
   error (then "origin" says what it is about: the typed inputs or the uploaded files). */
export function setStatus(page, message, isError, origin) {
  const status = page.els.status;
  status.textContent = message;
  status.classList.toggle("error", !!isError);
  status.dataset.origin = isError ? origin || "inputs" : "";
  updateSummary(page);
}

export function clearFieldErrors(ids) {
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

export function uploadMessage(page, message, kind) {
  const line = page.els.uploadStatus;
  line.textContent = message;
  line.classList.toggle("error", kind === true || kind === "error");
  line.classList.toggle("notice", kind === "notice");
}

/* The one place the page shows a problem, whatever it is about: the message stands at the
   top of the results, where the result would be (so the phone's bar at the top of the screen,
   which carries what the results say, says it too); the fields it names are marked, each with
   its own message; and a problem with the files is also said under the button that sent
   them, next to what the user just did. A problem with the typed inputs fades the report
   shown (it belongs to earlier inputs); one with the files leaves it as it is (it still
   matches the inputs), with the message above it. */
export function showError(page, error, origin) {
  const files = origin === "upload";
  const words = files ? pageWords(error) : error;
  if (files && words.errors.some((e) => PAIRING_FIELDS.includes(e.field))) {
    page.els.uploadForm.querySelector("details.advanced").open = true;
  }
  const marked = markFields(words, files ? UPLOAD_FIELDS.concat(DECISION_FIELDS) : FORM_FIELDS);
  const message = files ? "The files were not compared: " + words.message
    : (marked ? "Please fix the marked field: " : "") + words.message;
  if (files) uploadMessage(page, message, true);
  else page.els.results.classList.add("stale");
  setStatus(page, message, true, files ? "upload" : "inputs");
  updateExports(page);
  // On a wide screen the inputs stay put beside the results: bring the message into view
  // if the results were scrolled away from it (on a phone the bar at the top carries it,
  // and the page does not move away from the form).
  if (files && !isNarrow(page)) {
    const r = page.els.status.getBoundingClientRect();
    if (r.top < 0 || r.top > window.innerHeight - 60) window.scrollBy(0, r.top - 12);
  }
}

/* ------------------------------------------------------------------ the exports */

/* The exports hold the report shown, so they are offered only while that report is the
   one for the inputs: after an edit they wait for the new result, and while the inputs are
   invalid they say why they are off instead of exporting the previous result. The buttons
   stay focusable (aria-disabled), so a keyboard or screen-reader user learns why. */
const EXPORTS = ["copy-markdown", "download-json"];

export function exportState(page) {
  const { results, report } = page.els;
  if (!page.state.lastReport) return { ok: false, why: "There is no result to export yet." };
  if (results.classList.contains("stale") && !results.hasAttribute("aria-busy")) {
    return {
      ok: false,
      why: "Nothing to export: the inputs above give no result (see the message above), and the report shown belongs to earlier inputs.",
    };
  }
  if (page.state.upload) return { ok: false, why: "Wait for the files to be compared." };
  if (report.dataset.query !== queryOf(readForm(document))) {
    return { ok: false, why: "Updating the result for the new inputs…", pending: true };
  }
  return { ok: true, why: "" };
}

export function updateExports(page) {
  const state = exportState(page);
  for (const id of EXPORTS) {
    const button = $(id);
    if (state.ok) button.removeAttribute("aria-disabled");
    else button.setAttribute("aria-disabled", "true");
  }
  const note = $("export-note");
  // A pending update lasts a fraction of a second: no note for it, only for a lasting state.
  note.textContent = state.ok || state.pending ? "" : state.why;
  note.hidden = note.textContent === "";
  updateSummary(page);
}

export function announce(message) {
  const s = $("action-status");
  s.textContent = message;
  setTimeout(() => { if (s.textContent === message) s.textContent = ""; }, 4000);
}

/* ------------------------------------------------------------------ the verdict on a phone */

/* In the one-column layout the verdict is far below the inputs. A slim bar stuck to the
   top of the screen carries it (or the message that stands in for it) while the verdict
   itself is below the screen; tapping it goes there. It never moves what one is typing
   into; only actions that end the typing (an example, Enter, an upload) scroll the verdict
   into view themselves. */

export function isNarrow(page) { return page.narrow.matches; }

/* Whether enough of node is on the screen to read its first lines (not just its edge). */
export function onScreen(page, node) {
  const r = node.getBoundingClientRect();
  const top = page.els.summary.offsetHeight || 0;
  const enough = Math.min(r.height, 100);
  return r.height > 0 && r.top < window.innerHeight - enough && r.bottom > top + enough;
}

/* Whether the verdict shown is what the results say (no problem stands above it). */
export function verdictCurrent(page) {
  const { results, status } = page.els;
  return !!page.state.lastReport && !results.classList.contains("stale") && !status.classList.contains("error");
}

function textOf(id) { const node = $(id); return node ? (node.textContent || "").trim() : ""; }

export function updateSummary(page) {
  const { summary, status, verdict } = page.els;
  if (!summary) return;
  const fresh = verdictCurrent(page);
  const badge = $("summary-badge"), line = $("summary-line");
  if (fresh) {
    const sig = verdict.classList.contains("significant");
    badge.textContent = (sig ? "Significant" : "Not significant") + " · " + pIs(textOf("headline-pvalue"));
    line.textContent = $("verdict-headline").textContent;
    summary.dataset.kind = sig ? "significant" : "not-significant";
  } else {
    const error = status.classList.contains("error");
    badge.textContent = !error ? "No result yet"
      : status.dataset.origin === "upload" ? "The files were not compared" : "No result: fix the inputs";
    line.textContent = error && status.dataset.origin === "upload"
      ? status.textContent.replace(/^The files were not compared: /, "") : status.textContent;
    summary.dataset.kind = error ? "error" : "hint";
  }
  $("summary-go").textContent = fresh || !status.classList.contains("error") ? "Result ↓" : "Details ↓";
  const target = fresh ? verdict : status;
  const below = !target.getBoundingClientRect || target.getBoundingClientRect().top > 0;
  summary.classList.toggle("away", !isNarrow(page) || (onScreen(page, target) || !below) || !line.textContent);
}

export function revealVerdict(page) {
  const { verdict, results } = page.els;
  if (onScreen(page, verdict)) return;
  if (!isNarrow(page)) {
    // Beside the inputs (which stay put): the results scroll back to their verdict.
    verdict.scrollIntoView({ block: "nearest" });
    return;
  }
  const smooth = !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  verdict.scrollIntoView({ block: "start", behavior: smooth ? "smooth" : "auto" });
  // The reader goes with it (and a phone's keyboard closes once the field loses focus).
  results.focus({ preventScroll: true });
}
