/* The upload of two result files: checked on the page, sent to /api/v1/compare, and its
   answer put into the form (the aligned counts and the names the files record), so that
   the link reproduces the result. A comparison of scores has no counts: the counts are
   emptied (the form says why), so that none stands beside a report it is no part of. Editing
   the inputs while the files are read cancels the upload, and says so. */

import { $ } from "./dom.js";
import {
  COUNT_FIELDS, REQUIRED, checkDecisions, queryOf, readForm, showFraming, showNames, syncUrl, uploadFields,
} from "./form.js";
import { controlName } from "./messages.js";
import { scoreKind } from "./scores.js";
import { clearFieldErrors, revealVerdict, setStatus, showError, updateExports, uploadMessage } from "./status.js";

export function cancelUpload(page, changedId) {
  const current = page.state.upload;
  if (!current) return;
  page.state.upload = null;
  current.controller.abort();
  $("upload-submit").removeAttribute("aria-disabled");
  uploadMessage(page, "Comparing " + current.names + " was cancelled: you changed " + controlName(changedId) +
    " while the files were being read, so the results follow what you typed. Press “Compare the files” to compare them with the new settings.", "notice");
}

/* The page's own check of the files chosen: null, or the error in the API's shape. */
export function checkFiles(files, limits) {
  for (const id of ["file_a", "file_b"]) {
    if (!files[id]) {
      return { status: 422, field: id, message: "choose the results file of " + (id === "file_a" ? "A" : "B") + ".", errors: [] };
    }
    if (files[id].size > limits.maxUploadBytes) {
      return { status: 413, field: id, message: files[id].name + " is larger than the limit of " + limits.maxUploadText + " per file.", errors: [] };
    }
  }
  return null;
}

export async function submitUpload(page, event) {
  event.preventDefault();
  clearFieldErrors();
  const files = { file_a: $("file_a").files[0], file_b: $("file_b").files[0] };
  const refused = checkFiles(files, page.limits);
  if (refused) {
    showError(page, refused, "upload");
    return;
  }
  const form = readForm(document);
  const decisions = checkDecisions(form);
  if (decisions.length) {
    showError(page, { status: 422, field: decisions[0].field, errors: decisions,
      message: decisions[0].message + " (under “Beyond ‘is there a difference?’” above)." }, "upload");
    return;
  }
  const data = new FormData();
  data.append("file_a", files.file_a);
  data.append("file_b", files.file_b);
  for (const [name, value] of uploadFields(form)) data.append(name, value);
  // An edit typed just before pressing the button is superseded by the upload.
  clearTimeout(page.state.timer);
  if (page.state.upload) page.state.upload.controller.abort();
  const mine = { controller: new AbortController(), names: files.file_a.name + " with " + files.file_b.name };
  page.state.upload = mine;
  uploadMessage(page, "Reading and aligning the two files… (editing the inputs meanwhile cancels this)", false);
  if (page.els.status.classList.contains("error") || !page.state.lastReport) {
    setStatus(page, "Reading and aligning " + mine.names + "…", false);
  }
  await page.actions.request("/api/v1/compare", { method: "POST", body: data }, (ok, payload) => {
    if (page.state.upload !== mine) return;
    page.state.upload = null;
    if (ok) {
      uploadMessage(page, "Compared " + mine.names + ".", false);
      if (scoreKind(payload)) clearCounts();
      else useCounts(payload.table);
      useNames(payload.names);
      page.els.report.dataset.query = queryOf(readForm(document));
      revealVerdict(page);
    } else {
      showError(page, payload || { status: 0, field: null, errors: [],
        message: "cannot reach the calculator's server. Is `mcnemar serve` still running?" }, "upload");
      // An analysis the upload superseded is run again for the typed inputs (typed in
      // full: a prompt to type them would stand where the upload's message is).
      const now = readForm(document);
      const typedInFull = REQUIRED[now.framing].every((id) => now.values[id] !== "");
      if (typedInFull && page.els.report.dataset.query !== queryOf(now)) page.actions.run();
    }
  }, mine.controller, true);
  if (page.state.upload === mine) page.state.upload = null;
  updateExports(page);
}

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

/* After an upload of scores, no counts: the inputs (and the URL) are emptied of them. */
function clearCounts() {
  $("framing-passes").checked = true;
  showFraming();
  for (const id of COUNT_FIELDS.passes.concat(COUNT_FIELDS.errors)) $(id).value = "";
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
