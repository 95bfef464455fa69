"""Load test of the calculator's JSON API: ``mcnemar serve`` under a standard load generator.

Starts the real server (``python -m mcnemar serve``) on 127.0.0.1, then runs ``wrk`` (Debian:
``apt-get install wrk``) against ``POST /api/v1/analyze`` with 50 concurrent connections for
30 seconds, and reports requests per second, p50/p99 latency, errors (non-2xx responses and
socket errors) and the server's resident memory before and after. Three request mixes:

``fixed``
    the 200-item worked example, ``{"a": 157, "b": 17, "c": 3, "d": 23}``, every time (after
    the first, answered from the server's response cache: this measures the web stack);
``uncached``
    the same table with a different ``name_a`` each time, so every request is analysed;
``page``
    what the page sends while someone types: a different random table per request (D from 0 to
    10**7) with ``include: ["distribution"]`` (the page asks for the markdown only to copy it).

Run on demand (not in CI)::

    .venv/bin/python benchmarks/bench_web_load.py                 # all mixes, 30 s each
    .venv/bin/python benchmarks/bench_web_load.py --duration 10 --mix fixed --json

The load generator and the server share the machine; on a 2-core box the numbers are a floor.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

from mcnemar.web._process import served

FIXED_LUA = r"""
wrk.method = "POST"
wrk.body = '{"a": 157, "b": 17, "c": 3, "d": 23}'
wrk.headers["Content-Type"] = "application/json"
"""

# The worked example with a unique name per request, so the server's response cache never hits:
# the cost of one full analysis of a small table.
UNCACHED_LUA = r"""
local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
end
function init(args)
  n = 0
end
function request()
  n = n + 1
  local body = string.format(
    '{"a": 157, "b": 17, "c": 3, "d": 23, "name_a": "candidate %d-%d"}', id, n)
  return wrk.format("POST", nil, {["Content-Type"] = "application/json"}, body)
end
"""

# A different table per request, as the page's debounced requests are; seeded per thread.
PAGE_LUA = r"""
local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("seed", counter)
end
function init(args)
  math.randomseed(seed * 7919)
end
function request()
  local scale = 10 ^ math.random(0, 7)
  local b = math.floor(math.random() * scale)
  local c = math.floor(math.random() * scale)
  local a = math.random(0, 100000)
  local d = math.random(0, 100000)
  local body = string.format(
    '{"a": %d, "b": %d, "c": %d, "d": %d, "name_a": "candidate", "name_b": "baseline", ' ..
    '"alternative": "two-sided", "confidence_level": 0.95, ' ..
    '"include": ["distribution"]}',
    a, b, c, d)
  return wrk.format("POST", nil, {["Content-Type"] = "application/json"}, body)
end
"""


def rss_kib(pid: int) -> int:
    """Resident set size of a process and its descendants (worker processes), from /proc."""
    total = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            total = int(line.split()[1])
            break
    else:
        raise RuntimeError(f"no VmRSS for pid {pid}")
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        for child in children.read_text().split():
            try:
                total += rss_kib(int(child))
            except (OSError, RuntimeError):
                pass
    return total


def warm_up(url: str, n: int = 50) -> None:
    body = json.dumps({"a": 157, "b": 17, "c": 3, "d": 23, "include": ["distribution", "markdown"]})
    for _ in range(n):
        request = urllib.request.Request(
            url + "api/v1/analyze", data=body.encode(), headers={"content-type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            response.read()


_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3}


def _ms(text: str) -> float:
    m = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text.strip())
    if not m:
        raise ValueError(f"cannot read latency {text!r}")
    return float(m.group(1)) * _UNITS[m.group(2)]


def parse_wrk(output: str) -> dict[str, Any]:
    result: dict[str, Any] = {}
    m = re.search(r"Requests/sec:\s+([\d.]+)", output)
    result["requests_per_s"] = float(m.group(1)) if m else None
    m = re.search(r"(\d+) requests in ([\d.]+\w+)", output)
    result["requests"] = int(m.group(1)) if m else None
    for pct in ("50", "75", "90", "99"):
        m = re.search(rf"^\s+{pct}(?:\.000)?%\s+(\S+)", output, re.MULTILINE)
        result[f"p{pct}_ms"] = _ms(m.group(1)) if m else None
    m = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    result["non_2xx"] = int(m.group(1)) if m else 0
    m = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output
    )
    result["socket_errors"] = sum(int(g) for g in m.groups()) if m else 0
    return result


def run_wrk(url: str, lua: str, *, threads: int, connections: int, duration: int) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write(lua)
        script = f.name
    try:
        cmd = [
            "wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}s", "--latency",
            "--timeout", "10s", "-s", script, url + "api/v1/analyze",
        ]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(script)
    result = parse_wrk(out)
    result["raw"] = out
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=int, default=30, help="seconds per mix (30)")
    parser.add_argument("--connections", type=int, default=50, help="concurrent clients (50)")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads (2)")
    parser.add_argument("--mix", choices=["fixed", "uncached", "page", "all"], default="all")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--workers", type=int, default=1, help="server worker processes (1)")
    args = parser.parse_args()

    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed: apt-get install -y wrk")
    mixes = {"fixed": FIXED_LUA, "uncached": UNCACHED_LUA, "page": PAGE_LUA}
    chosen = list(mixes) if args.mix == "all" else [args.mix]

    with served("--workers", str(args.workers), timeout=20) as server:
        url, pid = server.url, server.proc.pid
        results: dict[str, Any] = {
            "url": url,
            "connections": args.connections,
            "duration_s": args.duration,
            "cpus": os.cpu_count(),
            "mixes": {},
        }
        results["rss_start_kib"] = rss_kib(pid)
        warm_up(url)
        results["rss_warm_kib"] = rss_kib(pid)
        for name in chosen:
            r = run_wrk(url, mixes[name], threads=args.threads,
                        connections=args.connections, duration=args.duration)
            r["rss_after_kib"] = rss_kib(pid)
            results["mixes"][name] = r
        results["rss_end_kib"] = rss_kib(pid)

    if args.json:
        for r in results["mixes"].values():
            r.pop("raw", None)
        print(json.dumps(results, indent=2))
        return
    print(f"mcnemar serve at {url}: {args.connections} connections, {args.duration} s per mix, "
          f"wrk -t{args.threads}, {args.workers} worker(s), {os.cpu_count()} CPUs shared with "
          "the load generator")
    print(f"server RSS: {results['rss_start_kib'] / 1024:.1f} MiB at start, "
          f"{results['rss_warm_kib'] / 1024:.1f} MiB after warm-up")
    header = f"{'mix':<9} {'req/s':>9} {'requests':>9} {'p50 ms':>8} {'p90 ms':>8} " \
             f"{'p99 ms':>8} {'non-2xx':>8} {'sock err':>8} {'RSS after':>10}"
    print(header)
    for name, r in results["mixes"].items():
        print(f"{name:<9} {r['requests_per_s']:>9.1f} {r['requests']:>9} {r['p50_ms']:>8.2f} "
              f"{r['p90_ms']:>8.2f} {r['p99_ms']:>8.2f} {r['non_2xx']:>8} "
              f"{r['socket_errors']:>8} {r['rss_after_kib'] / 1024:>8.1f} MiB")


if __name__ == "__main__":
    main()
