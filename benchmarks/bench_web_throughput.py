"""Throughput of the calculator's JSON API for uncached requests like the page's.

Starts the real server (``python -m mcnemar serve --port 0 --workers N``) on 127.0.0.1, and
from a client in another process sends ``POST /api/v1/analyze`` requests over kept-alive
connections (several at once, one thread per connection) for a fixed time. Every request is
a different random table (no two alike, so the server's response cache never answers) with
the fields the page sends while someone types::

    {"framing": "passes", "a": ..., "b": ..., "c": ..., "d": ...,
     "alternative": "two-sided", "include": ["distribution", "markdown"]}

Tables are eval-sized: b and c uniform on 0..``--max-discordant`` (300), a and d uniform on
0..5000. The client checks that every answer is a 200 carrying a report; it prints requests
per second and the latency percentiles, for ``--workers 1`` and ``--workers 2`` side by side.

The client shares the machine's cores with the server, as a browser on the same computer does;
its own cost (a few per cent of one core) is part of what is measured.

Run on demand (not in CI)::

    .venv/bin/python benchmarks/bench_web_throughput.py              # workers 1 and 2, 15 s each
    .venv/bin/python benchmarks/bench_web_throughput.py --workers 2 --duration 30 --json

Target (issue: whole eval suites): at least 300 uncached requests per second with
``--workers 2`` on the 2-core machine.

The anchor (``--anchor``, on by default): a bare FastAPI app under uvicorn with the same number
of workers, answering the same requests with one fixed JSON body of the size of a real
report (a report of a page-sized table, captured once), measured by the same client in the
same run. The ratio mcnemar / anchor is the share of a plain JSON endpoint's throughput that
the calculator keeps while it computes every report (speed issue: at least 0.5 with 2
workers).

Last, once the servers have stopped, the CPU time of each request's job alone (the report,
its extras and the JSON body; :func:`job_cost`) is taken in the benchmark's own process on
distinct page-like requests, beside the CPU time per request that the goal of 0.5 leaves on the
machine's cores (2 cores / (0.5 x the bare app's rate), server, job and client together):
where the job alone takes more than that, no server can meet the goal.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mcnemar.web._process import served

TARGET = 300.0
#: mcnemar's requests per second over the bare app's, with 2 workers (the speed issue's goal).
ANCHOR_TARGET = 0.5


def fixed_body() -> bytes:
    """A real report response of a page-sized table (what the anchor app answers)."""
    from fastapi.testclient import TestClient

    from mcnemar.web import create_app

    body = page_bodies(1, 7, 300)[0]
    with TestClient(create_app()) as http_client:
        response = http_client.post("/api/v1/analyze", content=body,
                                    headers={"content-type": "application/json"})
    response.raise_for_status()
    return response.content


def anchor_app() -> Any:
    """The bare app: FastAPI, one POST route, one fixed body (uvicorn's factory)."""
    from fastapi import FastAPI, Request, Response

    body = Path(os.environ["MCNEMAR_ANCHOR_BODY"]).read_bytes()
    app = FastAPI()

    async def analyze(request: Request) -> Response:
        await request.body()
        return Response(body, media_type="application/json")

    # The module's annotations are strings; FastAPI needs the classes of a local function's.
    analyze.__annotations__ = {"request": Request, "return": Response}
    app.post("/api/v1/analyze")(analyze)
    return app


def serve_anchor(port: int, workers: int) -> None:
    """Run the bare app under uvicorn's h11 protocol with ``TCP_NODELAY`` on every connection,
    as ``mcnemar serve`` sets it (without it each kept-alive response waits ~40 ms for the
    client's delayed acknowledgement, and the anchor would measure that instead)."""
    import uvicorn

    sys.path.insert(0, str(Path(__file__).parent))
    uvicorn.run("bench_web_throughput:anchor_app", factory=True, host="127.0.0.1", port=port,
                workers=workers, log_level="warning",
                http="bench_web_throughput:NoDelayH11Protocol")


def _no_delay_protocol() -> Any:
    import socket

    from uvicorn.protocols.http.h11_impl import H11Protocol

    class NoDelayH11Protocol(H11Protocol):
        def connection_made(self, transport: Any) -> None:
            sock = transport.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            super().connection_made(transport)

    return NoDelayH11Protocol


def __getattr__(name: str) -> Any:
    # uvicorn imports the protocol class by name; it is built on first use so that the
    # benchmark's own start does not import uvicorn.
    if name == "NoDelayH11Protocol":
        return _no_delay_protocol()
    raise AttributeError(name)


def measure_anchor(workers: int, args: argparse.Namespace, body_path: Path) -> dict[str, Any]:
    """The same client against the bare app with ``workers`` uvicorn workers."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "MCNEMAR_ANCHOR_BODY": str(body_path)}
    proc = subprocess.Popen(
        [sys.executable, __file__, "--anchor-server", str(port), "--workers", str(workers)],
        env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 30
        while True:
            try:
                http.client.HTTPConnection("127.0.0.1", port, timeout=1).connect()
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.2)
        run_client(url, args.connections, 2.0, args.seed + 1000, args.max_discordant)
        result = run_client(url, args.connections, args.duration, args.seed, args.max_discordant)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return {"workers": workers, "connections": args.connections, "anchor": True, **result}


def page_bodies(count: int, seed: int, max_discordant: int) -> list[bytes]:
    """``count`` distinct request bodies of random tables, as the page sends them."""
    rng = random.Random(seed)
    seen: set[tuple[int, int, int, int]] = set()
    out = []
    while len(out) < count:
        table = (rng.randint(0, 5000), rng.randint(0, max_discordant),
                 rng.randint(0, max_discordant), rng.randint(0, 5000))
        if table in seen:
            continue
        seen.add(table)
        a, b, c, d = table
        body = {"framing": "passes", "a": a, "b": b, "c": c, "d": d,
                "alternative": "two-sided", "include": ["distribution", "markdown"]}
        out.append(json.dumps(body).encode())
    return out


def job_cost(count: int, seed: int, max_discordant: int, rounds: int = 3) -> dict[str, float]:
    """CPU milliseconds per request of the server's job alone, in this process: the whole job of
    ``POST /api/v1/analyze`` (``mcnemar.web.app._analyze_job``: the report, the extras asked
    for and the JSON body) and the report alone (``analyze``), over ``count`` distinct
    page-like requests (validated beforehand, as the server validates them before the job),
    the best of ``rounds`` passes. CPU time, as the budget it is compared with is (a busy
    neighbour then lengthens the wall time, not the figure). What the job costs is what no
    server can save."""
    from pydantic import TypeAdapter

    from mcnemar.web.app import _analyze, _analyze_job, _table_from_request
    from mcnemar.web.models import AnalyzeRequest

    adapter: TypeAdapter[Any] = TypeAdapter(AnalyzeRequest)
    requests = [adapter.validate_json(b) for b in page_bodies(count, seed, max_discordant)]
    for request in requests[:20]:
        _analyze_job(request)

    def best(fn: Any) -> float:
        times = []
        for _ in range(rounds):
            t0 = time.process_time()
            for request in requests:
                fn(request)
            times.append(time.process_time() - t0)
        return 1e3 * min(times) / len(requests)

    job = best(_analyze_job)
    report = best(lambda r: _analyze(_table_from_request(r), r))
    return {"job_ms": round(job, 3), "report_ms": round(report, 3)}


# ----------------------------------------------------------------------------- the client


def client(url: str, connections: int, duration: float, seed: int,
           max_discordant: int) -> dict[str, Any]:
    """Send requests for ``duration`` seconds over ``connections`` kept-alive connections."""
    parts = urlsplit(url)
    # Enough distinct bodies for the fastest rate this machine could reach, split per thread.
    per_thread = int(duration * 8000 / connections) + 100
    bodies = page_bodies(per_thread * connections, seed, max_discordant)
    latencies: list[list[float]] = [[] for _ in range(connections)]
    failures: list[str] = []
    start_gate = threading.Barrier(connections + 1)
    stop_at = [0.0]

    def worker(i: int) -> None:
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        mine = bodies[i * per_thread:(i + 1) * per_thread]
        headers = {"content-type": "application/json"}
        start_gate.wait()
        for body in mine:
            if time.perf_counter() >= stop_at[0]:
                break
            t0 = time.perf_counter()
            conn.request("POST", "/api/v1/analyze", body=body, headers=headers)
            response = conn.getresponse()
            data = response.read()
            elapsed = time.perf_counter() - t0
            if response.status != 200 or b'"schema":"mcnemar.report/1"' not in data:
                failures.append(f"{response.status}: {data[:200]!r}")
                continue
            if response.getheader("connection", "").lower() == "close":
                failures.append("the server closed a kept-alive connection")
                conn.close()
                conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
            latencies[i].append(elapsed)
        else:
            failures.append("the client ran out of distinct tables; raise per_thread")
        conn.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(connections)]
    for t in threads:
        t.start()
    begin = time.perf_counter()
    cpu_start = time.process_time()
    stop_at[0] = begin + duration
    start_gate.wait()
    for t in threads:
        t.join()
    wall = time.perf_counter() - begin
    cpu = time.process_time() - cpu_start
    done = sorted(x for per in latencies for x in per)

    def pct(q: float) -> float:
        return 1e3 * done[min(len(done) - 1, int(q * len(done)))] if done else float("nan")

    return {
        "requests": len(done),
        "seconds": round(wall, 3),
        "requests_per_second": round(len(done) / wall, 1),
        "p50_ms": round(pct(0.50), 2),
        "p90_ms": round(pct(0.90), 2),
        "p99_ms": round(pct(0.99), 2),
        "client_cpu_ms_per_request": round(1e3 * cpu / max(1, len(done)), 2),
        "failures": len(failures),
        "first_failure": failures[0] if failures else None,
    }


# ----------------------------------------------------------------------------- the server


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) used so far by a process and its descendants (the workers),
    from /proc; what the server spent, whatever else runs on the machine."""
    ticks = os.sysconf("SC_CLK_TCK")
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    total = (int(fields[11]) + int(fields[12])) / ticks
    children = f"/proc/{pid}/task/{pid}/children"
    if os.path.exists(children):
        for child in open(children).read().split():
            try:
                total += cpu_seconds(int(child))
            except OSError:
                pass
    return total


def measure(workers: int, args: argparse.Namespace) -> dict[str, Any]:
    with served("--workers", str(workers)) as server:
        url = server.url
        # Warm up every worker (imports, first analyses) with a short run of the same client.
        run_client(url, args.connections, 2.0, args.seed + 1000, args.max_discordant)
        before = cpu_seconds(server.proc.pid)
        result = run_client(url, args.connections, args.duration, args.seed, args.max_discordant)
        used = cpu_seconds(server.proc.pid) - before
        result["server_cpu_ms_per_request"] = round(1e3 * used / max(1, result["requests"]), 2)
    return {"workers": workers, "connections": args.connections, **result}


def run_client(url: str, connections: int, duration: float, seed: int,
               max_discordant: int) -> dict[str, Any]:
    """The client in its own process (so that it does not share the server's interpreter)."""
    out = subprocess.run(
        [sys.executable, __file__, "--client", url, "--connections", str(connections),
         "--duration", str(duration), "--seed", str(seed),
         "--max-discordant", str(max_discordant)],
        capture_output=True, text=True, check=True,
    )
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, action="append",
                        help="server worker processes (repeatable; default: 1 and 2)")
    parser.add_argument("--connections", type=int, default=8,
                        help="kept-alive connections sending at once (default 8)")
    parser.add_argument("--duration", type=float, default=15.0, help="seconds per run")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--max-discordant", type=int, default=300,
                        help="b and c are drawn from 0..this (default 300)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--no-anchor", dest="anchor", action="store_false",
                        help="skip the bare FastAPI app measured beside the server")
    parser.add_argument("--client", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--anchor-server", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.anchor_server:
        serve_anchor(args.anchor_server, (args.workers or [1])[0])
        return 0
    if args.client:
        print(json.dumps(client(args.client, args.connections, args.duration, args.seed,
                                args.max_discordant)))
        return 0
    results = [measure(w, args) for w in (args.workers or [1, 2])]
    anchors: list[dict[str, Any]] = []
    if args.anchor:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            body_path = Path(tmp) / "body.json"
            body_path.write_bytes(fixed_body())
            anchors = [measure_anchor(w, args, body_path) for w in (args.workers or [1, 2])]
    job = job_cost(300, args.seed + 2000, args.max_discordant)
    if args.json:
        print(json.dumps({"mcnemar": results, "anchor": anchors, "job": job}, indent=2))
    else:
        print(f"POST /api/v1/analyze, uncached random tables as the page sends them, "
              f"{args.connections} kept-alive connections, {args.duration:g} s per run, "
              f"{os.cpu_count()} cores")
        print(f"{'workers':>8} {'requests':>9} {'req/s':>8} {'p50 ms':>8} {'p90 ms':>8} "
              f"{'p99 ms':>8} {'server CPU ms/req':>18} {'client CPU ms/req':>18} "
              f"{'failures':>9}")
        for r in results:
            print(f"{r['workers']:>8} {r['requests']:>9} {r['requests_per_second']:>8} "
                  f"{r['p50_ms']:>8} {r['p90_ms']:>8} {r['p99_ms']:>8} "
                  f"{r['server_cpu_ms_per_request']:>18} {r['client_cpu_ms_per_request']:>18} "
                  f"{r['failures']:>9}")
        print(f"machine load average (1 min) at the end: {os.getloadavg()[0]:.2f} "
              "(other processes share the cores)")
        for r in results:
            # What the CPU time per request allows when the server and the client have the
            # machine to themselves: an estimate, not a measurement.
            server = r["server_cpu_ms_per_request"]
            both = server + r["client_cpu_ms_per_request"]
            cores = os.cpu_count() or 1
            ceiling = min(1000 * r["workers"] / server, 1000 * cores / both)
            print(f"workers {r['workers']}: CPU-bound ceiling on {cores} free cores "
                  f"~{ceiling:.0f} requests/s ({server:.2f} ms of server CPU per request)")
        best = max((r for r in results if r["workers"] == 2), default=None,
                   key=lambda r: r["requests_per_second"])
        if best is not None:
            verdict = "meets" if best["requests_per_second"] >= TARGET else "misses"
            print(f"--workers 2: {best['requests_per_second']} requests/s {verdict} the target "
                  f"of {TARGET:g}")
        for r in results:
            anchor = next((x for x in anchors if x["workers"] == r["workers"]), None)
            if anchor is None or not anchor["requests_per_second"]:
                continue
            ratio = r["requests_per_second"] / anchor["requests_per_second"]
            goal = "" if r["workers"] != 2 else (
                f" ({'meets' if ratio >= ANCHOR_TARGET else 'misses'} the goal of "
                f">= {ANCHOR_TARGET:g})")
            print(f"workers {r['workers']}: bare FastAPI app with a fixed body "
                  f"{anchor['requests_per_second']} requests/s; mcnemar / bare = "
                  f"{ratio:.2f}{goal}")
            if r["workers"] == 2:
                # The goal's budget: at ANCHOR_TARGET of the bare app's rate on these cores,
                # the CPU time each request may take, the server, the job and the client
                # together.
                cores = os.cpu_count() or 1
                budget = 1e3 * cores / (ANCHOR_TARGET * anchor["requests_per_second"])
                print(f"workers 2: the goal leaves {budget:.2f} ms of CPU per request on "
                      f"{cores} cores, everything included; the job alone takes "
                      f"{job['job_ms']:.2f} ms of CPU ({job['job_ms'] / budget:.1f}x that)")
        print(f"the job alone, in this process, per request: {job['job_ms']:.2f} ms of CPU, "
              f"of which the report (analyze) {job['report_ms']:.2f} ms and its extras and JSON "
              f"{job['job_ms'] - job['report_ms']:.2f} ms")
    failed = [r for r in results + anchors if r["failures"]]
    for r in failed:
        print(f"workers {r['workers']}: {r['failures']} failures, first: {r['first_failure']}",
              file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
