"""Reading and pairing a large promptfoo ``results.json``: mcnemar.io against plain ``json.load``.

One eval with two providers and 50,000 tests (100,000 results, about 300 MB) is written
from the record shape of the real small file ``tests/data/io/real/promptfoo/ab.json``
(written by promptfoo 0.121.20): result ``k`` of the big file is a copy of the small file's
result of the same provider for test ``k % 20``, with ``testIdx`` ``k``, its own ``id`` and
vars made unique (``item`` = ``k``), and the config's tests grow to match, so the table is
known in advance. It is cached in ``--data-dir`` (a temporary folder by default).

Approaches, each in its own subprocess so that peak memory (max RSS) is its alone, alternated
over ``--repeat`` rounds (the median is reported):

* ``mcnemar``: ``read_run(path, run=A)``, ``read_run(path, run=B)`` and ``align`` (what
  ``mcnemar compare results.json --runs A,B`` does: the file is read once per provider);
* ``json.load``: ``json.load`` of the file, nothing else (the floor for any reader in Python);
* ``json.load+count``: ``json.load`` and the table counted by hand (``testIdx`` -> success
  per provider, provider errors left out), without any of mcnemar's checks.

Every approach that counts must give the same table.

Usage::

    python benchmarks/bench_promptfoo.py
    python benchmarks/bench_promptfoo.py --tests 10000 --repeat 1
"""

from __future__ import annotations

import argparse
import copy
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "tests/data/io/real/promptfoo/ab.json"
A, B = "system-a", "system-b"
METHODS = ("mcnemar", "json.load", "json.load+count")


def build(n: int, target: Path) -> dict[str, int]:
    """Write the big results.json; return the table it holds (provider errors left out)."""
    doc = json.loads(SOURCE.read_text())
    base: dict[tuple[str, int], dict[str, Any]] = {
        (r["provider"]["label"], r["testIdx"]): r for r in doc["results"]["results"]}
    tests = len(doc["config"]["tests"])
    results = []
    outcome: dict[str, dict[int, bool | None]] = {A: {}, B: {}}
    for k in range(n):
        for label in (A, B):
            r = copy.deepcopy(base[(label, k % tests)])
            r["testIdx"] = k
            r["id"] = f"{r['id'][:24]}{k:012d}"
            for where in (r["vars"], r["testCase"]["vars"]):
                where["item"] = k
            if r["testCase"].get("description"):
                r["testCase"]["description"] = f"sum {k}"
            results.append(r)
            outcome[label][k] = None if r["failureReason"] == 2 else bool(r["success"])
    config_tests = []
    for k in range(n):
        t = copy.deepcopy(doc["config"]["tests"][k % tests])
        t["vars"]["item"] = k
        if t.get("description"):
            t["description"] = f"sum {k}"
        config_tests.append(t)
    doc["results"]["results"] = results
    doc["config"]["tests"] = config_tests
    tmp = target.with_suffix(".partial")
    with tmp.open("w") as handle:
        json.dump(doc, handle, indent=2)  # promptfoo pretty-prints its results.json
    tmp.rename(target)
    return _count(outcome)


def _count(outcome: dict[str, dict[int, bool | None]]) -> dict[str, int]:
    cells = {"a": 0, "b": 0, "c": 0, "d": 0}
    for k, pa in outcome[A].items():
        pb = outcome[B].get(k)
        if pa is None or pb is None:
            continue
        cells["a" if pa and pb else "b" if pa else "c" if pb else "d"] += 1
    return cells


def make_data(n: int, directory: Path) -> tuple[Path, dict[str, int]]:
    directory.mkdir(parents=True, exist_ok=True)
    path, table_file = directory / f"results-{n}.json", directory / f"table-{n}.json"
    if not (path.exists() and table_file.exists()):
        print(f"writing a results.json of {2 * n:,} results in {directory} ...", flush=True)
        start = time.perf_counter()
        table_file.write_text(json.dumps(build(n, path)))
        print(f"  written in {time.perf_counter() - start:.0f} s", flush=True)
    return path, json.loads(table_file.read_text())


def run_one(method: str, path: Path) -> dict[str, Any]:
    start = time.perf_counter()
    counts: list[int] | None = None
    if method == "mcnemar":
        from mcnemar.io import align, read_run

        counts = [int(x) for x in align(read_run(path, run=A), read_run(path, run=B),
                                        on_missing="intersect").counts]
    else:
        with path.open("rb") as handle:
            doc = json.load(handle)
        if method == "json.load+count":
            outcome: dict[str, dict[int, bool | None]] = {A: {}, B: {}}
            for r in doc["results"]["results"]:
                outcome[r["provider"]["label"]][r["testIdx"]] = (
                    None if r["failureReason"] == 2 else bool(r["success"]))
            table = _count(outcome)
            counts = [table[k] for k in "abcd"]
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    return {"seconds": seconds, "peak_mb": peak, "counts": counts}


def measure(method: str, path: Path) -> dict[str, Any]:
    out = subprocess.run([sys.executable, __file__, "--child", method, str(path)],
                         check=True, capture_output=True, text=True)
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tests", type=int, default=50_000, help="tests (2 results each)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data-dir", type=Path,
                        default=Path(tempfile.gettempdir()) / "mcnemar-bench-promptfoo")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        method, path = args.child
        print(json.dumps(run_one(method, Path(path))))
        return
    path, expected = make_data(args.tests, args.data_dir)
    results: dict[str, list[dict[str, Any]]] = {m: [] for m in METHODS}
    for _ in range(args.repeat):
        for method in METHODS:
            results[method].append(measure(method, path))
    want = [expected[k] for k in "abcd"]
    for method, runs in results.items():
        for r in runs:
            if r["counts"] is not None and r["counts"] != want:
                raise SystemExit(f"{method} counted {r['counts']}, expected {want}")
    seconds = {m: statistics.median(r["seconds"] for r in rs) for m, rs in results.items()}
    peak = {m: statistics.median(r["peak_mb"] for r in rs) for m, rs in results.items()}
    base = "json.load"
    print(f"\npromptfoo results.json of {2 * args.tests:,} results (2 providers x "
          f"{args.tests:,} tests, {path.stat().st_size / 2**20:.0f} MB), table {want}, "
          f"median of {args.repeat}")
    print(f"  {'approach':<18}{'seconds':>9}{'peak MB':>10}{'time vs json.load':>20}"
          f"{'memory vs json.load':>22}")
    for m in METHODS:
        print(f"  {m:<18}{seconds[m]:>9.2f}{peak[m]:>10.0f}"
              f"{seconds[m] / seconds[base]:>19.2f}x{peak[m] / peak[base]:>21.2f}x")


if __name__ == "__main__":
    main()
