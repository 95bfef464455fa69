"""Timing of mcnemar.intervals, side by side with the obvious alternatives.

Run on demand (not part of the test suite)::

    .venv/bin/python benchmarks/bench_intervals.py [--tables 100000]

Peers, timed in the same run on the same random tables:

* statsmodels ``proportion_confint`` (Wilson and Clopper-Pearson, vectorized) against
  :func:`wilson_interval` and the ``"exact"`` odds-ratio interval;
* a per-table loop with ``scipy.optimize.brentq`` on Tango's score statistic (the way a
  score interval is usually coded) against the vectorized ``"tango"`` interval.

Prints seconds per call, microseconds per table and the ratio peer/ours.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
from scipy import optimize, stats
from statsmodels.stats.proportion import proportion_confint

from mcnemar.intervals import (
    DIFFERENCE_METHODS,
    ODDS_RATIO_METHODS,
    RATIO_METHODS,
    difference_interval,
    odds_ratio_interval,
    ratio_interval,
    wilson_interval,
)


def _best_of(func: Callable[[], Any], repeat: int = 3) -> float:
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return float(best)


def _tango_statistic(delta0: float, b: int, c: int, n: int, shift: float) -> float:
    qa, qb = 2.0 * n, -b - c + (2.0 * n - b + c) * delta0
    qc = -c * delta0 * (1.0 - delta0)
    p21 = (np.sqrt(max(qb * qb - 4 * qa * qc, 0.0)) - qb) / (2 * qa)
    variance = max(n * (2 * p21 + delta0 * (1 - delta0)), 1e-300)
    return float((b - c - n * delta0) / np.sqrt(variance)) + shift


def _tango_loop(tables: np.ndarray, z: float) -> list[tuple[float, float]]:
    """Tango's interval one table at a time with brentq (the reference style of coding)."""
    out = []
    edge = 1 - 2.0**-40
    for a, b, c, d in tables:
        n = a + b + c + d
        est = (b - c) / n
        low = -1.0
        if est > -1:
            low = optimize.brentq(_tango_statistic, -edge, est, args=(b, c, n, -z), xtol=1e-15)
        high = 1.0
        if est < 1:
            high = optimize.brentq(_tango_statistic, est, edge, args=(b, c, n, z), xtol=1e-15)
        out.append((low, high))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=100_000)
    parser.add_argument("--loop-tables", type=int, default=2_000)
    parser.add_argument("--exact-tables", type=int, default=10_000)
    args = parser.parse_args()

    rng = np.random.default_rng(12345)
    n_items = rng.integers(50, 5000, args.tables)
    p = rng.dirichlet([8, 1, 1, 3], args.tables)
    counts = np.array([rng.multinomial(n, q) for n, q in zip(n_items, p, strict=True)])
    a, b, c, d = counts.T
    print(f"{args.tables} random tables, N from 50 to 5000\n")

    print(f"{'method':32s} {'s/call':>9s} {'us/table':>9s}")
    calls: list[tuple[str, int, Callable[[], Any]]] = []
    for method in DIFFERENCE_METHODS:
        k = args.exact_tables if method == "exact" else args.tables
        calls.append(
            (
                f"difference {method}",
                k,
                partial(difference_interval, a[:k], b[:k], c[:k], d[:k], method=method),
            )
        )
    for method in RATIO_METHODS:
        calls.append(
            (f"ratio {method}", args.tables, partial(ratio_interval, a, b, c, d, method=method))
        )
    for method in ODDS_RATIO_METHODS:
        calls.append(
            (f"odds ratio {method}", args.tables, partial(odds_ratio_interval, b, c, method=method))
        )
    for label, k, call in calls:
        t = _best_of(call, repeat=1 if label.endswith("exact") else 3)
        print(f"{label:32s} {t:9.3f} {1e6 * t / k:9.2f}")

    print("\nside by side (ratio = peer time / our time)")
    m = b + c
    ours = _best_of(lambda: wilson_interval(b, m))
    peer = _best_of(lambda: proportion_confint(b, m, method="wilson"))
    print(
        f"Wilson, statsmodels vs wilson_interval: {peer:.4f} s vs {ours:.4f} s, "
        f"ratio {peer / ours:.1f}"
    )
    ours = _best_of(lambda: odds_ratio_interval(b, c, method="exact"))
    peer = _best_of(lambda: proportion_confint(b, m, method="beta"))
    print(
        f"Clopper-Pearson, statsmodels (mu only) vs exact OR: {peer:.4f} s vs {ours:.4f} s, "
        f"ratio {peer / ours:.1f}"
    )
    k = args.loop_tables
    z = float(stats.norm.ppf(0.975))
    peer = _best_of(lambda: _tango_loop(counts[:k], z), repeat=1)
    ours = _best_of(lambda: difference_interval(a[:k], b[:k], c[:k], d[:k], method="tango"))
    loop = np.array(_tango_loop(counts[:k], z))
    vec = difference_interval(a[:k], b[:k], c[:k], d[:k], method="tango")
    gap = max(np.abs(loop[:, 0] - vec.low).max(), np.abs(loop[:, 1] - vec.high).max())
    print(
        f"Tango on {k} tables, brentq loop vs vectorized: {peer:.3f} s vs {ours:.4f} s, "
        f"ratio {peer / ours:.0f} (largest difference {gap:.1e})"
    )


if __name__ == "__main__":
    main()
