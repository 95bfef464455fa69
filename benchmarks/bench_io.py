"""Reading, aligning and counting two runs: mcnemar.io against pandas, side by side.

Two comparisons (run on demand; not part of the test suite):

1. two 1,000,000-item JSONL runs: ``read_run`` + ``align`` (DuckDB underneath) against
   pandas ``read_json(lines=True)`` + ``merge`` + ``crosstab``;
2. two 10,000,000-row Parquet runs: the same through DuckDB against pandas
   ``read_parquet`` + ``merge`` + ``crosstab``.

pandas is measured twice: the plain recipe (no checks at all), and with the checks mcnemar
always makes (outer merge with ``validate="one_to_one"`` and an indicator for items present
in one run only). Every measurement runs in its own subprocess, so peak memory (max RSS) is
that approach's alone, and the approaches alternate over ``--repeat`` rounds; the median is
reported. Item ids are text (``item-0000042``), the runs list the items in different random
orders, and every approach must produce the same table.

Usage::

    python benchmarks/bench_io.py                 # both comparisons
    python benchmarks/bench_io.py --only jsonl --repeat 5
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SIZES = {"jsonl": 1_000_000, "parquet": 10_000_000}
METHODS = ("mcnemar", "pandas", "pandas-checked")


def make_data(kind: str, directory: Path) -> tuple[Path, Path]:
    n = SIZES[kind]
    paths = (directory / f"a.{kind}", directory / f"b.{kind}")
    if all(p.exists() for p in paths):
        return paths
    rng = np.random.default_rng(7)
    ids = np.char.add("item-", np.char.zfill(np.arange(n).astype(str), 8))
    for path, accuracy in zip(paths, (0.80, 0.76), strict=True):
        order = rng.permutation(n)
        score = (rng.random(n) < accuracy).astype(np.int8)
        if kind == "jsonl":
            with path.open("w") as handle:
                handle.writelines(f'{{"id": "{ids[i]}", "score": {score[i]}}}\n' for i in order)
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            pq.write_table(pa.table({"id": ids[order], "score": score[order]}), path,
                           row_group_size=1_000_000)
    return paths


def run_one(method: str, kind: str, a: Path, b: Path) -> dict[str, object]:
    start = time.perf_counter()
    if method == "mcnemar":
        from mcnemar.io import align, read_run

        counts = list(align(read_run(a), read_run(b)).counts)
    else:
        import pandas as pd

        if kind == "jsonl":
            fa, fb = pd.read_json(a, lines=True), pd.read_json(b, lines=True)
        else:
            fa, fb = pd.read_parquet(a), pd.read_parquet(b)
        if method == "pandas":
            merged = fa.merge(fb, on="id")
        else:
            merged = fa.merge(fb, on="id", how="outer", validate="one_to_one",
                              indicator=True)
            if (merged["_merge"] != "both").any():
                raise SystemExit("items present in one run only")
        table = pd.crosstab(merged["score_x"], merged["score_y"])
        counts = [int(table.loc[1, 1]), int(table.loc[1, 0]), int(table.loc[0, 1]),
                  int(table.loc[0, 0])]
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    return {"seconds": seconds, "peak_mb": peak, "counts": counts}


def measure(method: str, kind: str, a: Path, b: Path) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", method, kind, str(a), str(b)],
        check=True, capture_output=True, text=True,
    )
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def compare(kind: str, directory: Path, repeat: int) -> None:
    a, b = make_data(kind, directory)
    results: dict[str, list[dict[str, object]]] = {m: [] for m in METHODS}
    for _ in range(repeat):
        for method in METHODS:
            results[method].append(measure(method, kind, a, b))
    counts = {json.dumps(r["counts"]) for rs in results.values() for r in rs}
    if len(counts) != 1:
        raise SystemExit(f"approaches disagree: {counts}")
    seconds = {m: statistics.median(float(r["seconds"]) for r in rs)  # type: ignore[arg-type]
               for m, rs in results.items()}
    peak = {m: statistics.median(float(r["peak_mb"]) for r in rs)  # type: ignore[arg-type]
            for m, rs in results.items()}
    print(f"\n{kind}: two runs of {SIZES[kind]:,} items, table {counts.pop()}, "
          f"median of {repeat}")
    print(f"  {'approach':<16}{'seconds':>9}{'peak MB':>10}{'time vs mcnemar':>18}"
          f"{'memory vs mcnemar':>20}")
    for m in METHODS:
        print(f"  {m:<16}{seconds[m]:>9.2f}{peak[m]:>10.0f}"
              f"{seconds[m] / seconds['mcnemar']:>17.2f}x{peak[m] / peak['mcnemar']:>19.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=list(SIZES))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data-dir", type=Path,
                        default=Path(tempfile.gettempdir()) / "mcnemar-bench-io")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        method, kind, a, b = args.child
        print(json.dumps(run_one(method, kind, Path(a), Path(b))))
        return
    args.data_dir.mkdir(parents=True, exist_ok=True)
    for kind in [args.only] if args.only else list(SIZES):
        compare(kind, args.data_dir, args.repeat)


if __name__ == "__main__":
    main()
