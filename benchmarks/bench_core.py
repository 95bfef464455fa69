"""Core benchmarks, side by side with the peers in one run (run on demand, not in CI).

1. Exact p-values for 1,000,000 random tables, vectorized (validation included), against a
   loop of ``statsmodels.stats.contingency_tables.mcnemar(exact=True)`` over 10,000 of them:
   per-table time ratio.
2. ``PairedTable.from_predictions`` on 10,000,000 int64 multiclass items against
   ``mlxtend.evaluate.mcnemar_table`` and against ``np.count_nonzero`` over the same three
   arrays (a memory-bandwidth floor).
3. Accuracy of the exact p-value against mpmath (50-60 digits) at D = 1.2e9, 1e10, 2e12, 1e15,
   next to scipy's binomial cdf.
4. Whole-process time of ``mcnemar test --b 17 --c 3`` and the modules it imports.

Usage: ``python benchmarks/bench_core.py`` (needs the ``bench`` extra).
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def best_of(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def bench_pvalues() -> None:
    from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

    from mcnemar import PairedTable, mcnemar

    rng = np.random.default_rng(0)
    n_tables = 1_000_000
    b = rng.integers(0, 500, n_tables)
    c = rng.integers(0, 500, n_tables)
    ours = best_of(lambda: mcnemar(PairedTable(b=b, c=c), method="exact").pvalue)
    n_loop = 10_000

    def loop() -> None:
        for i in range(n_loop):
            sm_mcnemar([[0, b[i]], [c[i], 0]], exact=True).pvalue  # noqa: B018

    theirs = best_of(loop, repeat=1)
    check = mcnemar(PairedTable(b=b[:100], c=c[:100])).pvalue
    ref = np.array([sm_mcnemar([[0, b[i]], [c[i], 0]], exact=True).pvalue for i in range(100)])
    per_ours = ours / n_tables
    per_theirs = theirs / n_loop
    print("1. exact p-values, random tables with b, c in [0, 500)")
    print(
        f"   mcnemar (vectorized, {n_tables:,} tables): {ours:.3f} s"
        f"  = {1e6 * per_ours:.3f} us/table"
    )
    print(
        f"   statsmodels loop ({n_loop:,} tables):       {theirs:.3f} s"
        f"  = {1e6 * per_theirs:.1f} us/table"
    )
    print(
        f"   ratio per table: {per_theirs / per_ours:.0f}x   (max rel. diff on 100 tables: "
        f"{np.max(np.abs(check - ref) / ref):.1e})"
    )


def bench_predictions() -> None:
    from mlxtend.evaluate import mcnemar_table

    from mcnemar import PairedTable

    rng = np.random.default_rng(1)
    n = 10_000_000
    y = rng.integers(0, 10, n, dtype=np.int64)
    pa = np.where(rng.random(n) < 0.9, y, rng.integers(0, 10, n))
    pb = np.where(rng.random(n) < 0.85, y, rng.integers(0, 10, n))
    ours = best_of(lambda: PairedTable.from_predictions(y, pa, pb))
    theirs = best_of(lambda: mcnemar_table(y_target=y, y_model1=pa, y_model2=pb))
    floor = best_of(lambda: (np.count_nonzero(y), np.count_nonzero(pa), np.count_nonzero(pb)))
    t = PairedTable.from_predictions(y, pa, pb)
    m = mcnemar_table(y_target=y, y_model1=pa, y_model2=pb)
    # mlxtend's layout: [[both right, 1 right 2 wrong], [1 wrong 2 right, both wrong]]
    same = (m[0, 0], m[0, 1], m[1, 0], m[1, 1]) == (t.a, t.b, t.c, t.d)
    print("2. from_predictions, 10,000,000 int64 multiclass items")
    print(f"   mcnemar:                      {ours:.3f} s")
    print(
        f"   mlxtend mcnemar_table:        {theirs:.3f} s"
        f"   ({theirs / ours:.1f}x slower; same table: {same})"
    )
    print(f"   np.count_nonzero x3 (floor):  {floor:.3f} s   (ours / floor = {ours / floor:.2f})")


def bench_accuracy() -> None:
    import mpmath as mp
    from scipy.stats import binom

    sys.path.insert(0, str(ROOT / "tests"))
    from mcnemar._binomial import lower_tail_half
    from test_binomial import mp_log_lower_j

    print("3. relative error of P(X <= k), X ~ Bin(D, 1/2), against mpmath (worst of z = 0.5..8)")
    for d in (1_200_000_000, 10**10, 2 * 10**12, 10**15):
        worst_ours = worst_scipy = 0.0
        for z in (0.5, 1, 2, 4, 8):
            k = int(d / 2 - z * math.sqrt(d) / 2)
            want = mp.exp(mp_log_lower_j(k, d))
            worst_ours = max(
                worst_ours, float(abs(mp.mpf(float(lower_tail_half(k, d))) - want) / want)
            )
            worst_scipy = max(
                worst_scipy, float(abs(mp.mpf(float(binom.cdf(k, d, 0.5))) - want) / want)
            )
        print(f"   D = {d:.3g}: mcnemar {worst_ours:.1e}   scipy.stats.binom.cdf {worst_scipy:.1e}")


def bench_cli() -> None:
    exe = Path(sys.executable).parent / "mcnemar"
    cmd = [str(exe), "test", "--b", "17", "--c", "3"]
    subprocess.run(cmd, capture_output=True, check=True)  # warm the file cache
    times = []
    for _ in range(7):
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        times.append(time.perf_counter() - t0)
    probe = (
        "import sys; from mcnemar.cli import main\n"
        "try:\n    main(['test', '--b', '17', '--c', '3'])\nexcept SystemExit:\n    pass\n"
        "heavy = ('scipy.stats', 'pandas', 'polars', 'fastapi', 'matplotlib')\n"
        "bad = [m for m in heavy if m in sys.modules]\n"
        "print('HEAVY', bad, file=sys.stderr)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    heavy = [line for line in out.stderr.splitlines() if line.startswith("HEAVY")]
    print("4. `mcnemar test --b 17 --c 3`, whole process")
    print(
        f"   median {np.median(times):.3f} s, best {min(times):.3f} s"
        f"  (imports of heavy modules: {heavy})"
    )


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    bench_pvalues()
    bench_predictions()
    bench_accuracy()
    bench_cli()
