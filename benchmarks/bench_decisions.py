"""Monitoring and Bayesian-summary benchmarks, side by side in one run (on demand, not in CI).

1. Planning a monitored eval at p10 = 0.06, p01 = 0.04 (a 2-point gain):
   :func:`mcnemar.stopping_time` (exact dynamic programming over the (b, c) paths) against a
   seeded Monte Carlo of the same quantity (runs simulated item by item until the e-value
   reaches 20). Prints both expected stopping times, times and the ratio.
2. The Bayesian summary of the 200-item example: :func:`mcnemar.bayes.bayes` (one-dimensional
   quadrature) against 10^6 Dirichlet draws; then 1,000 tables in one vectorized call.
3. The e-process over 10^6 items (:func:`mcnemar.sequential.sequential`), and the streaming
   :class:`mcnemar.Monitor` fed one item at a time and in batches of 1,000.

Usage: ``python benchmarks/bench_decisions.py [--runs 4000] [--seed 1]``.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from _timing import best_of

from mcnemar import Monitor, PairedTable, stopping_time
from mcnemar.bayes import bayes
from mcnemar.sequential import log_evalue, sequential


def mc_stopping(runs: int, rng: np.random.Generator, p10: float, p01: float) -> np.ndarray:
    """Items until the e-value first reaches 20, for simulated runs (chunks of 2,000 items)."""
    stops = np.full(runs, -1)
    only_a = np.zeros(runs, dtype=np.int64)
    only_b = np.zeros(runs, dtype=np.int64)
    done = 0
    while (stops < 0).any():
        u = rng.random((runs, 2000))
        a = only_a[:, None] + np.cumsum(u < p10, axis=1)
        b = only_b[:, None] + np.cumsum((u >= p10) & (u < p10 + p01), axis=1)
        hit = log_evalue(a, b) >= math.log(20)
        first = np.where(hit.any(axis=1), hit.argmax(axis=1) + 1 + done, -1)
        stops = np.where(stops < 0, first, stops)
        only_a, only_b = a[:, -1], b[:, -1]
        done += 2000
    return stops


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)

    print("1. items until the sequential test stops, p10 = 0.06, p01 = 0.04")
    t_exact, res = best_of(lambda: stopping_time(0.06, 0.04))
    t0 = time.perf_counter()
    stops = mc_stopping(args.runs, rng, 0.06, 0.04)
    t_mc = time.perf_counter() - t0
    se = stops.std(ddof=1) / math.sqrt(args.runs)
    print(f"   exact DP:    E[N] = {res.expected_items:.1f}, median {res.quantiles[0.5]}   "
          f"{t_exact * 1e3:8.1f} ms")
    print(f"   Monte Carlo: E[N] = {stops.mean():.1f} +- {se:.1f}, median {np.median(stops):.0f}"
          f"   {t_mc * 1e3:8.1f} ms ({args.runs} runs)   ratio {t_mc / t_exact:.0f}x")

    print("2. Bayesian summary of (157, 17, 3, 23), rope 0.01")
    table = PairedTable(a=157, b=17, c=3, d=23)
    t_q, br = best_of(lambda: bayes(table, rope=0.01))

    def draws() -> float:
        g = rng.standard_gamma(np.array([158.0, 18.0, 4.0, 24.0]), size=(1_000_000, 4))
        delta = (g[:, 1] - g[:, 2]) / g.sum(axis=1)
        return float((delta > 0.01).mean())

    t_d, p_mc = best_of(draws, repeat=1)
    print(f"   quadrature:  P(A better) = {br.prob_a_better:.6f}   {t_q * 1e3:8.1f} ms")
    print(f"   10^6 draws:  P(A better) = {p_mc:.6f} +- "
          f"{math.sqrt(p_mc * (1 - p_mc) / 1e6):.6f}   {t_d * 1e3:8.1f} ms")
    many = PairedTable(a=rng.integers(0, 5000, 1000), b=rng.integers(0, 300, 1000),
                       c=rng.integers(0, 300, 1000), d=rng.integers(0, 5000, 1000))
    t_v, _ = best_of(lambda: bayes(many), repeat=1)
    print(f"   1,000 tables in one call: {t_v:.2f} s")

    print("3. the e-process")
    xa = rng.random(1_000_000) < 0.80
    xb = rng.random(1_000_000) < 0.79
    t_s, r = best_of(lambda: sequential(xa, xb))
    print(f"   sequential over 10^6 items: {t_s * 1e3:.1f} ms (stopped at {r.stopped_at})")

    def one_by_one() -> Monitor:
        m = Monitor()
        for a, b in zip(xa[:20_000].tolist(), xb[:20_000].tolist(), strict=True):
            m.update(a, b)
        return m

    t_1, _ = best_of(one_by_one, repeat=1)
    print(f"   Monitor, one item per update: {t_1 / 20_000 * 1e6:.1f} us per item")

    def batches() -> Monitor:
        m = Monitor()
        for i in range(0, 1_000_000, 1000):
            m.update(xa[i:i + 1000], xb[i:i + 1000])
        return m

    t_b, _ = best_of(batches, repeat=1)
    print(f"   Monitor, batches of 1,000: {t_b / 1000 * 1e6:.1f} us per batch")


if __name__ == "__main__":
    main()
