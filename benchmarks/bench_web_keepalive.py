"""Keep-alive robustness of ``mcnemar serve``: many requests on kept-alive connections, and
connections reused after sitting idle about as long as client pools keep them.

Two measurements against the real server on 127.0.0.1, with Python's ``http.client`` (one
persistent connection per thread, the way a pooled client uses them):

``load``
    ``--requests`` requests (default 2,000) from ``--clients`` threads (default 50), each on
    its own kept-alive connection; counts errors (connection resets, non-200 answers).
``idle``
    ``--probes`` connections (default 100) that make one request, stay idle for a time drawn
    uniformly from ``--idle`` (default 4.9-5.1 s: the 5 s pool expiry of httpx, and uvicorn's
    default keep-alive), and make a second one. A server that closes idle connections at that
    moment makes some second requests fail (a broken pipe or a reset); one whose timeout is
    longer than the clients' never does.

Run on demand (not in CI)::

    .venv/bin/python benchmarks/bench_web_keepalive.py
    .venv/bin/python benchmarks/bench_web_keepalive.py --keep-alive-timeout 5   # the old race
    .venv/bin/python benchmarks/bench_web_keepalive.py --mix page --workers 2 --json
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import threading
import time
from collections import Counter
from typing import Any

from mcnemar.web._process import served


def body_for(mix: str, rng: random.Random) -> bytes:
    if mix == "fixed":
        return json.dumps({"a": 157, "b": 17, "c": 3, "d": 23}).encode()
    scale = 10 ** rng.randint(0, 7)
    return json.dumps({
        "a": rng.randint(0, 10**5), "b": int(rng.random() * scale),
        "c": int(rng.random() * scale), "d": rng.randint(0, 10**5),
        "include": ["distribution", "markdown"],
    }).encode()


HEADERS = {"Content-Type": "application/json"}


def load(port: int, clients: int, requests: int, mix: str) -> dict[str, Any]:
    errors: Counter[str] = Counter()
    lock = threading.Lock()
    per_client = requests // clients

    def client(seed: int) -> None:
        rng = random.Random(seed)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        for _ in range(per_client):
            try:
                conn.request("POST", "/api/v1/analyze", body=body_for(mix, rng), headers=HEADERS)
                response = conn.getresponse()
                response.read()
                if response.status != 200:
                    with lock:
                        errors[f"HTTP {response.status}"] += 1
            except OSError as exc:
                with lock:
                    errors[type(exc).__name__] += 1
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.close()

    started = time.monotonic()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    done = per_client * clients
    return {"requests": done, "clients": clients, "seconds": round(elapsed, 2),
            "requests_per_s": round(done / elapsed, 1), "errors": dict(errors)}


def idle(port: int, probes: int, low: float, high: float) -> dict[str, Any]:
    errors: Counter[str] = Counter()
    lock = threading.Lock()
    body = body_for("fixed", random.Random(0))

    def probe(seed: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("POST", "/api/v1/analyze", body=body, headers=HEADERS)
        conn.getresponse().read()
        time.sleep(random.Random(seed).uniform(low, high))
        try:
            conn.request("POST", "/api/v1/analyze", body=body, headers=HEADERS)
            conn.getresponse().read()
        except OSError as exc:
            with lock:
                errors[type(exc).__name__] += 1
        conn.close()

    threads = [threading.Thread(target=probe, args=(i,)) for i in range(probes)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"probes": probes, "idle_s": [low, high], "failed": sum(errors.values()),
            "errors": dict(errors)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--mix", choices=["fixed", "page"], default="fixed",
                        help="the worked example every time, or a random table per request")
    parser.add_argument("--probes", type=int, default=100)
    parser.add_argument("--idle", type=float, nargs=2, default=[4.9, 5.1], metavar=("LOW", "HIGH"))
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--keep-alive-timeout", type=float, default=None,
                        help="passed to mcnemar serve (default: its own)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    options = ["--workers", str(args.workers)]
    if args.keep_alive_timeout is not None:
        options += ["--keep-alive-timeout", str(args.keep_alive_timeout)]
    with served(*options) as server:
        port = server.port
        results = {
            "server_options": options,
            "load": load(port, args.clients, args.requests, args.mix),
            "idle": idle(port, args.probes, *args.idle),
        }
    if args.json:
        print(json.dumps(results, indent=2))
        return
    lo, hi = args.idle
    r, i = results["load"], results["idle"]
    print(f"mcnemar serve {' '.join(options)} on 127.0.0.1:{port}, {os.cpu_count()} CPUs")
    print(f"load: {r['requests']} requests ({args.mix}) on {r['clients']} kept-alive connections "
          f"in {r['seconds']} s ({r['requests_per_s']} req/s), errors: {r['errors'] or 0}")
    print(f"idle: {i['probes']} connections reused after {lo}-{hi} s idle, "
          f"failed: {i['failed']} {i['errors'] or ''}")


if __name__ == "__main__":
    main()
