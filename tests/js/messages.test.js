import assert from "node:assert/strict";
import { test } from "node:test";

import { controlName, labelOf, pageWords } from "../../src/mcnemar/web/static/messages.js";

test("the library's arguments become the page's controls, which are marked", () => {
  const error = {
    status: 422, field: "file_b",
    message: "3 items are only in a.csv; pass on_missing='intersect' (--on-missing intersect) to drop them",
    errors: [{ field: "file_b", message: "3 items are only in a.csv" }],
  };
  const words = pageWords(error);
  assert.equal(words.message, "3 items are only in a.csv; tick “Drop items found in only one file” under Pairing options to drop them");
  assert.deepEqual(words.errors.map((e) => e.field), ["file_b", "on_missing"]);
  // The same rule applies again to the next message (no state is kept between calls).
  assert.equal(pageWords(error).message, words.message);
});

test("a flag the page has no control for is left out; a server flag is the server's", () => {
  const words = pageWords({ status: 413, field: null, errors: [],
    message: "the file is too large (--max-upload-mb on the command line); start the server with a larger --max-upload-mb" });
  assert.equal(words.message, "the file is too large; restart mcnemar serve with a larger --max-upload-mb");
  assert.deepEqual(words.errors, []);
});

test("the controls' names in sentences", () => {
  assert.equal(controlName("alpha"), "the significance level α");
  assert.equal(controlName("nothing"), "the inputs");
  assert.equal(labelOf("d"), "d (both wrong)");
  assert.equal(labelOf("b"), "b");
});

test("the score, the filter and the analysis are the page's controls too", () => {
  const scorer = pageWords({ status: 422, field: "file_a", errors: [],
    message: "a.eval: the log has several scorers ('partial', 'closeness'); choose one with score=NAME" });
  assert.equal(scorer.message, "a.eval: the log has several scorers ('partial', 'closeness'); give its name under “Score” in Pairing options");
  assert.deepEqual(scorer.errors.map((e) => e.field), ["file_a", "score"]);
  const filter = pageWords({ status: 422, field: "filter", errors: [],
    message: "a.jsonl: the file holds several filters: 'strict', 'flexible'; so choose one with filter=NAME" });
  assert.ok(filter.message.endsWith("so give it under “Filter” in Pairing options"));
  const bayes = pageWords({ status: 422, field: "bayes", errors: [{ field: "bayes", message: "m" }],
    message: "bayes belong(s) to the pass/fail analysis; the analysis of the scores takes none " +
      "(give analysis=pass-fail with threshold=T to count score >= T as a pass)" });
  assert.ok(bayes.message.includes("(choose “McNemar's test of pass/fail” under “Analysis” in Pairing options, with a “Pass threshold”)"), bayes.message);
  assert.ok(!bayes.message.includes("threshold=T"));
  assert.deepEqual(bayes.errors.map((e) => e.field), ["bayes", "analysis"]);
  const threshold = pageWords({ status: 422, field: "threshold", errors: [],
    message: "threshold turns the scores into pass/fail; it does not go with analysis=scores" });
  assert.ok(threshold.message.endsWith("it does not go with the “paired comparison of the scores” (under “Analysis”)"));
  assert.equal(controlName("score"), "the score");
});
