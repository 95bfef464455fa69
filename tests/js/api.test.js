import assert from "node:assert/strict";
import { test } from "node:test";

import { createClient, postJson } from "../../src/mcnemar/web/static/api.js";

/* A fetch that answers each request when told to (or fails it), honouring its signal. */
function pendingFetch() {
  const calls = [];
  const fetcher = (url, init) => new Promise((resolve, reject) => {
    const call = { url, init, resolve, reject };
    calls.push(call);
    init.signal.addEventListener("abort", () => reject(Object.assign(new Error("aborted"), { name: "AbortError" })));
  });
  return { calls, fetcher };
}

const answer = (status, body) => ({ ok: status < 400, status, json: async () => body });

test("a newer request supersedes the older, whose answer is ignored", async () => {
  const { calls, fetcher } = pendingFetch();
  const client = createClient(fetcher);
  const first = client.send("/api/v1/analyze", postJson({ b: 1, c: 2 }));
  const second = client.send("/api/v1/analyze", postJson({ b: 1, c: 3 }));
  assert.equal(calls[0].init.signal.aborted, true);
  calls[1].resolve(answer(200, { schema: "mcnemar.report/1", table: { c: 3 } }));
  assert.deepEqual(await first, { kind: "superseded", payload: null });
  assert.deepEqual(await second, { kind: "ok", payload: { schema: "mcnemar.report/1", table: { c: 3 } } });
  assert.equal(calls[1].init.method, "POST");
  assert.equal(JSON.parse(calls[1].init.body).c, 3);
});

test("the server's error as it sent it, or one in its shape", async () => {
  const { calls, fetcher } = pendingFetch();
  const client = createClient(fetcher);
  const error = { status: 422, message: "b must be >= 0", field: "b", errors: [] };
  const one = client.send("/x", {});
  calls[0].resolve(answer(422, { error }));
  assert.deepEqual(await one, { kind: "error", payload: error });
  const two = client.send("/x", {});
  calls[1].resolve({ ok: false, status: 502, json: async () => { throw new Error("not JSON"); } });
  assert.deepEqual((await two).payload, { status: 502, message: "The server answered 502.", field: null, errors: [] });
});

test("an unreachable server, a withdrawn request and a cancelled upload", async () => {
  const { calls, fetcher } = pendingFetch();
  const client = createClient(fetcher);
  const lost = client.send("/x", {});
  calls[0].reject(new TypeError("Failed to fetch"));
  assert.equal((await lost).kind, "unreachable");
  const withdrawn = client.send("/x", {});
  client.withdraw();
  assert.equal((await withdrawn).kind, "superseded");
  const own = new AbortController();
  const upload = client.send("/api/v1/compare", { method: "POST" }, own);
  own.abort();
  assert.equal((await upload).kind, "superseded");
});

test("a request beside the others: its JSON, or null", async () => {
  const client = createClient(async (url) => (url === "/ok" ? answer(200, { markdown: "# r" }) : answer(500, {})));
  assert.deepEqual(await client.fetchJson("/ok", {}), { markdown: "# r" });
  assert.equal(await client.fetchJson("/bad", {}), null);
  const broken = createClient(async () => { throw new TypeError("Failed to fetch"); });
  assert.equal(await broken.fetchJson("/ok", {}), null);
});
