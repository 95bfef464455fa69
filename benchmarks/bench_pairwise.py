"""All-pairs McNemar tests for many models: mcnemar.pairwise against a loop over pairs.

Run on demand (not part of the test suite)::

    python benchmarks/bench_pairwise.py            # K = 1,000 models, N = 10,000 items
    python benchmarks/bench_pairwise.py --k 200 --n 5000

Side by side, in one process and on the same random correctness matrix:

* the bare float32 matrix product X @ X.T (the floor for any all-pairs method);
* ``mcnemar.pairwise``: all K(K-1)/2 tables, exact p-values, Newcombe intervals and the Holm
  adjustment (the full result a user gets), best of ``--repeat`` runs;
* the significance letters (``result.groups``), timed separately because they are computed on
  first access;
* the usual loop, ``mlxtend.evaluate.mcnemar_table`` + ``mlxtend.evaluate.mcnemar(exact=True)``
  per pair, timed on a random sample of pairs and extrapolated to all pairs.

Every step is timed in ``--repeat`` interleaved rounds and the best round is reported, so that
other work on the machine distorts the ratios as little as possible.

The exact p-values of the sampled pairs are compared between the two implementations (same
convention: min(1, 2 * smaller binomial tail)). Ratios are printed, not asserted.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np


def correctness_matrix(k: int, n: int, seed: int) -> np.ndarray:
    """K runs with accuracies spread over 0.55-0.90 and a shared item difficulty."""
    rng = np.random.default_rng(seed)
    accuracy = rng.uniform(0.55, 0.90, size=k)
    difficulty = rng.random(n)
    private = rng.random((k, n))
    # half of each run's outcomes follow the shared difficulty: runs agree more than chance
    u = np.where(rng.random((k, n)) < 0.5, difficulty[None, :], private)
    return (u < accuracy[:, None]).astype(np.int8)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--k", type=int, default=1000, help="models")
    parser.add_argument("--n", type=int, default=10_000, help="items")
    parser.add_argument("--sample", type=int, default=300, help="pairs timed in the loop")
    parser.add_argument("--repeat", type=int, default=5, help="rounds; the best is reported")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()

    from mlxtend.evaluate import mcnemar as mlx_mcnemar
    from mlxtend.evaluate import mcnemar_table

    from mcnemar.multiple import pairwise

    k, n = args.k, args.n
    pairs_total = k * (k - 1) // 2
    x = correctness_matrix(k, n, args.seed)
    print(f"K = {k} models, N = {n} items, {pairs_total:,} pairs "
          f"({platform.machine()}, numpy {np.__version__})")

    # where the time goes: the same steps as inside pairwise(), one at a time
    from mcnemar.inference import mcnemar
    from mcnemar.multiple import _pair_counts, adjust_pvalues
    from mcnemar.table import PairedTable

    xf = x.astype(np.float32)
    both, right = _pair_counts(x)
    iu, ju = np.triu_indices(k, 1)
    a = both[iu, ju]
    b = right[iu] - a
    c = right[ju] - a
    d = n - right[iu] - right[ju] + a
    table = PairedTable(a=a, b=b, c=c, d=d)
    test = mcnemar(table, method="exact")

    rng = np.random.default_rng(args.seed + 1)
    sample = min(args.sample, pairs_total)
    chosen = rng.choice(pairs_total, size=sample, replace=False)
    pi, pj = iu[chosen], ju[chosen]
    y_target = np.ones(n, dtype=np.int8)  # "predicting 1" = right, so the tables match
    mlx_p = np.empty(sample)

    def loop() -> None:
        for t, (i, j) in enumerate(zip(pi.tolist(), pj.tolist(), strict=True)):
            table = mcnemar_table(y_target=y_target, y_model1=x[i], y_model2=x[j])
            mlx_p[t] = mlx_mcnemar(table, exact=True)[1]

    steps = {
        "matmul": lambda: xf @ xf.T,
        "pairwise": lambda: pairwise(x, method="exact", adjust="holm"),
        "counts": lambda: _pair_counts(x),
        "table": lambda: PairedTable(a=a, b=b, c=c, d=d),
        "test": lambda: mcnemar(table, method="exact"),
        "ci": lambda: test.confidence_interval(confidence_level=0.95, method="newcombe"),
        "adjust": lambda: adjust_pvalues(np.asarray(test.pvalue), "holm"),
        "loop": loop,
    }
    # Interleaved rounds, best of each: a burst of other work on the machine then slows one
    # round of every step instead of every round of one step.
    best = dict.fromkeys(steps, float("inf"))
    for _ in range(args.repeat):
        for name, func in steps.items():
            start = time.perf_counter()
            func()
            best[name] = min(best[name], time.perf_counter() - start)
    result = pairwise(x, method="exact", adjust="holm")
    start = time.perf_counter()
    groups = result.groups
    t_groups = time.perf_counter() - start
    t_matmul, t_pairwise, t_counts = best["matmul"], best["pairwise"], best["counts"]
    t_table, t_test, t_ci, t_adjust = best["table"], best["test"], best["ci"], best["adjust"]
    t_loop_sample = best["loop"]
    t_loop = t_loop_sample / sample * pairs_total

    ours = result.pvalue[pi, pj]
    rel = np.abs(ours - mlx_p) / np.maximum(np.abs(mlx_p), 1e-300)
    tiny = mlx_p < 1e-300

    def row(label: str, seconds: float, note: str = "") -> None:
        print(f"  {label:<52} {seconds:>10.3f} s  {note}")

    print()
    row("float32 matrix product X @ X.T (bare)", t_matmul)
    row("mcnemar.pairwise: exact p, Newcombe CI, Holm (all)", t_pairwise,
        f"{t_pairwise / t_matmul:.1f}x the bare product")
    row("    counts for all pairs (float32 product, exact)", t_counts)
    row("    PairedTable of all pairs", t_table)
    row("    exact p-values, one vectorized call", t_test)
    row("    Newcombe intervals, one vectorized call", t_ci)
    row("    Holm adjustment", t_adjust)
    row("  + significance letters (result.groups, first access)", t_groups,
        f"{len(groups.members) if groups else 0} letters")
    row(f"mlxtend loop, {sample} pairs measured", t_loop_sample)
    row(f"mlxtend loop, extrapolated to {pairs_total:,} pairs", t_loop,
        f"{t_loop / t_pairwise:.0f}x slower than mcnemar.pairwise")
    print()
    print(f"  target: all pairs with exact p and Holm < 1 s -> "
          f"{'met' if t_pairwise < 1 else 'NOT met'} ({t_pairwise:.3f} s); "
          f">= 100x faster than the loop -> {'met' if t_loop / t_pairwise >= 100 else 'NOT met'}")
    print(f"  exact p-values of the {sample} sampled pairs vs mlxtend: max relative difference "
          f"{rel[~tiny].max() if (~tiny).any() else 0.0:.2e}"
          f" ({int(tiny.sum())} pairs below 1e-300 skipped)")


if __name__ == "__main__":
    main()
