"""Planning benchmarks, side by side in one run (run on demand, not in CI).

1. Sample size for a 2-point difference (p10 = 0.06, p01 = 0.04, exact two-sided test,
   alpha = 0.05, power 0.8): :func:`mcnemar.planning.sample_size` (exact power summed over
   the binomial distribution of D, with the guarantee that the power stays above the target)
   against a seeded Monte Carlo search that simulates the exact test at candidate n (bisection
   on n, 20,000 simulated tables per candidate) until the estimated power reaches 0.8 within
   its standard error. Prints both answers, times and the time ratio.
2. :func:`mcnemar.planning.minimum_detectable_effect` at n up to 1e6 (what every report
   calls), against the same quantity from a Monte Carlo power estimate at one difference; and
   over the 10,000 random tables of ``bench_analyze.py`` at once, against the precise search
   it replaced (Newton to 1e-13 in theta, kept for the tests) in the same run, with the
   largest relative difference of the two.
3. A power curve: exact power at every n = 1..5000 in one vectorized call.

Usage: ``python benchmarks/bench_power.py [--reps 20000] [--seed 1]``.
"""

from __future__ import annotations

import argparse
import math

import numpy as np
from _timing import best_of
from scipy import special

from mcnemar.planning import minimum_detectable_effect, power, sample_size

P10, P01, TARGET, ALPHA = 0.06, 0.04, 0.8, 0.05


def mc_power(
    n: int, reps: int, rng: np.random.Generator, p10: float = P10, p01: float = P01
) -> float:
    """Rejection rate of the exact two-sided McNemar test over simulated tables."""
    draws = rng.multinomial(n, [p10, p01, 1 - p10 - p01], size=reps)
    b, c = draws[:, 0], draws[:, 1]
    m = b + c
    k = np.minimum(b, c)
    # P(X <= k), X ~ Bin(m, 1/2) = I_{1/2}(m - k, k + 1)
    cdf = np.where(k < m, special.betainc(np.maximum(m - k, 1), k + 1, 0.5), 1.0)
    p = np.where(m > 0, np.minimum(1.0, 2.0 * cdf), 1.0)
    return float(np.mean(p <= ALPHA))


def mc_sample_size(reps: int, seed: int) -> tuple[int, float, int]:
    """Bisection on n with Monte Carlo power; returns (n, estimate at n, candidates tried)."""
    rng = np.random.default_rng(seed)
    delta, psi = P10 - P01, P10 + P01
    za, zb = 1.959963984540054, 0.8416212335729143
    guess = math.ceil((za * math.sqrt(psi) + zb * math.sqrt(psi - delta**2)) ** 2 / delta**2)
    tried = 0
    lo, hi = guess // 2, guess
    while mc_power(hi, reps, rng) < TARGET:  # bracket from Connor's guess
        tried += 1
        lo, hi = hi, 2 * hi
    tried += 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        tried += 1
        if mc_power(mid, reps, rng) >= TARGET:
            hi = mid
        else:
            lo = mid
    return hi, mc_power(hi, reps, rng), tried + 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    print(f"1. sample size, p10 = {P10}, p01 = {P01} (2 points), exact test, power {TARGET}")
    t_exact, res = best_of(lambda: sample_size(P10, P01, power=TARGET, alpha=ALPHA), repeat=5)
    t_mc, (n_mc, est, tried) = best_of(lambda: mc_sample_size(args.reps, args.seed), repeat=1)
    se = math.sqrt(TARGET * (1 - TARGET) / args.reps)
    exact_at_mc = power(n_mc, P10, P01).power
    print(f"   exact search : n = {res.n} (first reaching target {res.n_first}), "
          f"power {res.power:.5f}, {t_exact * 1e3:8.1f} ms")
    print(f"   Monte Carlo  : n = {n_mc}, estimated power {est:.4f} +/- {se:.4f} "
          f"({tried} candidates x {args.reps} tables), {t_mc * 1e3:8.1f} ms; exact power at "
          f"that n {exact_at_mc:.5f}")
    print(f"   Connor (1987): n = {res.n_connor:.1f}")
    print(f"   ratio Monte Carlo / exact time: {t_mc / t_exact:.0f}x")
    # what Monte Carlo would need to tell the answer from its neighbour n - 1
    step = power(res.n, P10, P01).power - power(res.n - 1, P10, P01).power
    reps_needed = TARGET * (1 - TARGET) / (step / 2) ** 2
    per_rep = t_mc / (tried * args.reps)
    print(f"   to resolve n from n - 1 (power step {step:.2e}) Monte Carlo needs about "
          f"{reps_needed:.1e} tables per candidate: ~{reps_needed * per_rep * tried:.0f} s "
          f"for the same search")

    print("\n2. minimum detectable effect (exact test, 80% power)")
    for n, psi in [(200, 0.1), (10_000, 0.1), (100_000, 0.05), (1_000_000, 0.1),
                   (1_000_000, 0.5)]:
        t, mde = best_of(lambda n=n, psi=psi: minimum_detectable_effect(n, psi), repeat=5)
        print(f"   n = {n:>9,}  discordance {psi:<4}  difference {mde.difference:.6f} "
              f"(Connor {mde.difference_connor:.6f})  {t * 1e3:7.2f} ms")
    rng = np.random.default_rng(args.seed)
    n, psi = 10_000, 0.1
    _, mde = best_of(lambda: minimum_detectable_effect(n, psi), repeat=1)
    p10, p01 = (psi + mde.difference) / 2, (psi - mde.difference) / 2
    t_one, est = best_of(lambda: mc_power(n, args.reps, rng, p10, p01), repeat=1)
    print(f"   check: Monte Carlo power at the n = {n:,} answer {est:.4f} +/- {se:.4f} "
          f"(one estimate takes {t_one * 1e3:.1f} ms)")

    batch_vs_precise()

    print("\n3. power curve, n = 1..5000, one vectorized call")
    t, curve = best_of(lambda: power(np.arange(1, 5001), P10, P01), repeat=3)
    print(f"   {t * 1e3:.1f} ms for 5000 values ({t / 5000 * 1e6:.1f} us each); "
          f"power at 5000 = {curve.power[-1]:.4f}")


def batch_vs_precise() -> None:
    """The detectable difference of 10,000 report tables, fast search against precise."""
    from mcnemar._routes import ARRAYS
    from mcnemar.planning import _detectable
    from mcnemar.planning._kernel import _connor_mde, _z_alpha

    rng = np.random.default_rng(0)
    cells = rng.integers([0, 0, 0, 0], [1001, 101, 101, 1001], size=(10_000, 4))
    n = cells.sum(axis=1).astype(float)
    d = (cells[:, 1] + cells[:, 2]).astype(float)
    keep = (n > 0) & (d > 0)
    n, psi = n[keep], d[keep] / n[keep]
    t_fast, fast = best_of(lambda: minimum_detectable_effect(n, psi).difference, repeat=3)
    guess = np.nan_to_num(_connor_mde(ARRAYS, n, psi, 0.8, _z_alpha(ALPHA, "two-sided")), nan=0.5)
    start = 0.5 + guess / (2 * psi)

    def precise() -> np.ndarray:
        theta, _ = _detectable._solve_theta(n, psi, 0.8, ALPHA, "two-sided", "exact", start)
        out: np.ndarray = psi * (2.0 * theta - 1.0)
        return out

    t_precise, slow = best_of(precise, repeat=1)
    both = np.isfinite(slow) & np.isfinite(fast)
    worst = float(np.max(np.abs(fast[both] - slow[both]) / slow[both]))
    print(f"   {n.size:,} report tables at once: {t_fast / n.size * 1e6:.1f} us per table "
          f"(the precise search {t_precise / n.size * 1e6:.1f} us, "
          f"{t_precise / t_fast:.1f}x); largest relative difference {worst:.1e}")


if __name__ == "__main__":
    main()
