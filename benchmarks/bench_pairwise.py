"""All-pairs McNemar tests for many models: mcnemar.pairwise against its floor and a loop.

Run on demand (not part of the test suite)::

    python benchmarks/bench_pairwise.py            # K = 1,000 models, N = 10,000 items
    python benchmarks/bench_pairwise.py --k 200 --n 5000

Side by side, in one process and on the same random correctness matrix:

* the floor: one float32 matrix product of the 0/1 outcome matrix with itself, the K x K
  counts every all-pairs method needs (``x.T @ x`` with x the N x K outcomes, items by runs;
  computed as ``xf @ xf.T`` for the K x N runs matrix as float32, the layout pairwise uses,
  which numpy runs as one BLAS syrk call);
* ``mcnemar.pairwise``: all K(K-1)/2 tables, exact p-values, Newcombe intervals and the Holm
  adjustment (the full result a user gets);
* its steps, each on one thread: the counts, the rows of binomial tails that the exact tests
  look up (one per number of discordant items), the exact tests and the intervals of all
  pairs (in the chunks pairwise uses), the Holm adjustment;
* the significance letters (``result.groups``), timed separately because they are computed on
  first access;
* if mlxtend is installed (``make .venv/.bench``), the usual loop,
  ``mlxtend.evaluate.mcnemar_table`` + ``mlxtend.evaluate.mcnemar(exact=True)`` per pair, timed
  on a random sample of pairs and extrapolated to all pairs; its exact p-values are compared
  with ours (same convention: min(1, 2 * smaller binomial tail)).

Every step is timed in ``--repeat`` interleaved rounds and the best round is reported, so that
other work on the machine distorts the ratios as little as possible; the headline ratio,
pairwise / matrix product, is also given as the median of the rounds' own ratios (the two
timed back to back), and the load average is printed before and after. Other work on the
machine slows the product (whose BLAS threads wait for each other) far more than pairwise, so
that the ratio looks better than it is: compare at light load. The target for K = 1,000 and
N = 10,000 is pairwise <= 3 matrix products. Ratios are printed, not asserted.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

#: pairwise(K = 1,000, N = 10,000) should cost at most this many float32 products X^T X.
TARGET_RATIO = 3.0


def correctness_matrix(k: int, n: int, seed: int) -> np.ndarray:
    """K runs with accuracies spread over 0.55-0.90 and a shared item difficulty."""
    rng = np.random.default_rng(seed)
    accuracy = rng.uniform(0.55, 0.90, size=k)
    difficulty = rng.random(n)
    private = rng.random((k, n))
    # half of each run's outcomes follow the shared difficulty: runs agree more than chance
    u = np.where(rng.random((k, n)) < 0.5, difficulty[None, :], private)
    return (u < accuracy[:, None]).astype(np.int8)


def load_average() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--k", type=int, default=1000, help="models")
    parser.add_argument("--n", type=int, default=10_000, help="items")
    parser.add_argument("--sample", type=int, default=300, help="pairs timed in the loop")
    parser.add_argument("--repeat", type=int, default=9, help="rounds; the best is reported")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()

    try:
        from mlxtend.evaluate import mcnemar as mlx_mcnemar
        from mlxtend.evaluate import mcnemar_table
    except ImportError:
        mlx_mcnemar = mcnemar_table = None

    from mcnemar.intervals._difference import mover_limits
    from mcnemar.multiple import _pair_counts, adjust_pvalues, pairwise
    from mcnemar.multiple._pairs import (
        _CHUNK,
        _chunks,
        _model_marginals,
        _row_present,
        _TailRows,
        _test_chunks,
        _test_pairs,
    )

    k, n = args.k, args.n
    pairs_total = k * (k - 1) // 2
    x = correctness_matrix(k, n, args.seed)
    print(f"K = {k} models, N = {n} items, {pairs_total:,} pairs "
          f"({platform.machine()}, {os.cpu_count()} cores, numpy {np.__version__})")
    print(f"load average before: {load_average()}")

    # the floor: the K x K product of the outcomes with themselves, in float32
    runs = x.astype(np.float32)

    # where the time goes: the steps inside pairwise(), one at a time and on one thread
    both, right = _pair_counts(x)
    iu, ju = np.triu_indices(k, 1)
    a = both[iu, ju]
    b = right[iu] - a
    c = right[ju] - a
    d = n - right[iu] - right[ju] + a
    af, bf, cf, df = (v.astype(np.float64) for v in (a, b, c, d))
    parts = _chunks(pairs_total)
    test_parts = _test_chunks(parts)
    present = [_row_present(b[p] + c[p]) for p in parts]

    def tail_rows() -> _TailRows:
        rows = _TailRows(np.logical_or.reduce(present))
        rows.build()
        return rows

    rows = tail_rows()
    pvalues = np.concatenate(
        [_test_pairs(b[p], c[p], "exact", "two-sided", rows)[1] for p in test_parts]
    )

    def tests() -> None:
        for p in test_parts:
            _test_pairs(b[p], c[p], "exact", "two-sided", rows)

    # (pairwise takes Newcombe's limits from each model's Wilson limits, once per model)
    marginals = _model_marginals(right, n, 0.95)

    def intervals() -> None:
        for p in parts:
            mover_limits("newcombe", af[p], bf[p], cf[p], df[p],
                         tuple(m[k] for k in (iu[p], ju[p]) for m in marginals))

    rng = np.random.default_rng(args.seed + 1)
    sample = min(args.sample, pairs_total)
    chosen = rng.choice(pairs_total, size=sample, replace=False)
    pi, pj = iu[chosen], ju[chosen]
    y_target = np.ones(n, dtype=np.int8)  # "predicting 1" = right, so the tables match
    mlx_p = np.empty(sample)

    def loop() -> None:
        assert mlx_mcnemar is not None and mcnemar_table is not None
        for t, (i, j) in enumerate(zip(pi.tolist(), pj.tolist(), strict=True)):
            table = mcnemar_table(y_target=y_target, y_model1=x[i], y_model2=x[j])
            mlx_p[t] = mlx_mcnemar(table, exact=True)[1]

    steps: dict[str, Callable[[], Any]] = {
        "product": lambda: runs @ runs.T,
        "pairwise": lambda: pairwise(x, method="exact", adjust="holm"),
        "counts": lambda: _pair_counts(x),
        "rows": tail_rows,
        "tests": tests,
        "intervals": intervals,
        "adjust": lambda: adjust_pvalues(pvalues, "holm"),
    }
    if mlx_mcnemar is not None:
        steps["loop"] = loop
    # Interleaved rounds, best of each: a burst of other work on the machine then slows one
    # round of every step instead of every round of one step.
    best = dict.fromkeys(steps, float("inf"))
    ratios = []
    for _ in range(args.repeat):
        times = {}
        for name, func in steps.items():
            start = time.perf_counter()
            func()
            times[name] = time.perf_counter() - start
            best[name] = min(best[name], times[name])
        ratios.append(times["pairwise"] / times["product"])
    load_after = load_average()
    result = pairwise(x, method="exact", adjust="holm")
    start = time.perf_counter()
    groups = result.groups
    t_groups = time.perf_counter() - start
    t_product, t_pairwise = best["product"], best["pairwise"]
    ratio = t_pairwise / t_product

    def row(label: str, seconds: float, note: str = "") -> None:
        print(f"  {label:<58} {seconds:>8.3f} s  {note}")

    print()
    row("float32 product of the outcomes, K x K (floor)", t_product)
    row("mcnemar.pairwise: exact p, Newcombe CI, Holm (all)", t_pairwise,
        f"{ratio:.2f}x the product (median of rounds {statistics.median(ratios):.2f}x)")
    row("    counts for all pairs (float32 product, exact)", best["counts"])
    row("    exact tests: the rows of binomial tails, one thread", best["rows"],
        f"{int(rows.lengths.sum()):,} tails of {rows.d.size:,} values of D")
    row(f"    exact tests, {len(test_parts)} chunks of {test_parts[0].stop:,} pairs, one thread",
        best["tests"])
    row(f"    Newcombe intervals, chunks of {_CHUNK:,} pairs, one thread", best["intervals"])
    row("    Holm adjustment", best["adjust"])
    row("  + significance letters (result.groups, first access)", t_groups,
        f"{len(groups.members) if groups else 0} letters")
    if mlx_mcnemar is not None:
        t_loop_sample = best["loop"]
        t_loop = t_loop_sample / sample * pairs_total
        row(f"mlxtend loop, {sample} pairs measured", t_loop_sample)
        row(f"mlxtend loop, extrapolated to {pairs_total:,} pairs", t_loop,
            f"{t_loop / t_pairwise:.0f}x slower than mcnemar.pairwise")
    print()
    print(f"  load average after: {load_after}")
    print(f"  target: pairwise <= {TARGET_RATIO:g}x one float32 product of the outcomes -> "
          f"{'met' if ratio <= TARGET_RATIO else 'NOT met'} ({ratio:.2f}x, best rounds)")
    if mlx_mcnemar is not None:
        ours = result.pvalue[pi, pj]
        rel = np.abs(ours - mlx_p) / np.maximum(np.abs(mlx_p), 1e-300)
        tiny = mlx_p < 1e-300
        print(f"  exact p-values of the {sample} sampled pairs vs mlxtend: max relative "
              f"difference {rel[~tiny].max() if (~tiny).any() else 0.0:.2e}"
              f" ({int(tiny.sum())} pairs below 1e-300 skipped)")
    else:
        print("  mlxtend is not installed (make .venv/.bench): the per-pair loop was skipped")


if __name__ == "__main__":
    main()
