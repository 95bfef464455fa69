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
