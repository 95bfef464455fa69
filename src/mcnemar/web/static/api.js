/* The client of the calculator's JSON API. One request at a time: a newer one (typing, an
   example, an upload) supersedes the older, whose answer is then ignored. Its state (the
   request in flight and how many were sent) is private to the client made at start. */

/* A client over fetcher (the browser's fetch). */
export function createClient(fetcher) {
  const own = { controller: null, sequence: 0 };
  return {
    /* Forget the request in flight: it is aborted and its answer, if any, ignored. */
    withdraw() {
      if (own.controller) own.controller.abort();
      own.sequence += 1;
    },

    /* Send a request, superseding the one in flight. An upload brings its own
       AbortController, so that the page can cancel it deliberately and say so. Resolves to
       { kind, payload }: kind "ok" (payload: a report), "error" (payload: the error in the
       API's shape, made up in that shape if the server sent none), "unreachable", or
       "superseded" (a newer request was sent, or this one was cancelled). */
    async send(url, init, controller) {
      if (own.controller) own.controller.abort();
      own.controller = controller || new AbortController();
      const signal = own.controller.signal;
      const mine = ++own.sequence;
      let response, payload;
      try {
        response = await fetcher(url, Object.assign({ signal }, init));
        payload = await response.json().catch(() => null);
      } catch (err) {
        if ((err && err.name === "AbortError") || mine !== own.sequence) return { kind: "superseded", payload: null };
        return { kind: "unreachable", payload: null };
      }
      if (mine !== own.sequence) return { kind: "superseded", payload: null };
      if (response.ok && payload && payload.schema) return { kind: "ok", payload };
      const error = payload && payload.error ? payload.error
        : { status: response.status, message: "The server answered " + response.status + ".", field: null, errors: [] };
      return { kind: "error", payload: error };
    },

    /* A request beside the others (it supersedes none): its JSON, or null. */
    async fetchJson(url, init) {
      try {
        const response = await fetcher(url, init);
        const payload = await response.json();
        return response.ok ? payload : null;
      } catch {
        return null;
      }
    },
  };
}

/* The JSON request of an analysis. */
export function postJson(body) {
  return { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
}
