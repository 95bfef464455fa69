"""Paired comparison of scores at scale, side by side with scipy (run on demand, not in CI).

1. 10^6 items: :func:`mcnemar.analyze_scores` (t, sign and signed-rank tests, the t interval,
   Welch, the detectable difference; the resampling is skipped at this size and says so)
   against scipy's ``ttest_rel`` + ``wilcoxon`` + ``binomtest`` on the same differences.
2. 10^4 random sign flips of 10^4 items: the permutation test of
   :mod:`mcnemar.scores._tests` against ``scipy.stats.permutation_test``.
3. 100 column pairs of 1,000 items in one 2-D call against 100 calls.

The goals: well under a second for 1, about a second for 2.

Usage: ``python benchmarks/bench_scores.py [--seed 1]``.
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import best_of
from scipy import stats

from mcnemar import analyze_scores
from mcnemar.scores import _tests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)

    a = rng.normal(size=10**6)
    b = a + rng.normal(0.001, 1.0, a.size)
    ours, rep = best_of(lambda: analyze_scores(a, b, random_state=0), repeat=3)
    d = a - b

    def scipy_tests() -> float:
        stats.ttest_rel(a, b)
        stats.wilcoxon(d, method="asymptotic")
        return float(stats.binomtest(int((d > 0).sum()), int((d != 0).sum())).pvalue)

    theirs, _ = best_of(scipy_tests, repeat=3)
    print(f"1. 10^6 items: analyze_scores {ours:.3f} s, scipy t + wilcoxon + binomtest "
          f"{theirs:.3f} s (t p = {rep.tests['t'].pvalue:.4g})")

    small = d[:10**4]
    ours, res = best_of(lambda: _tests.permutation_test(small[:, None], "two-sided", 10**4,
                                                         np.random.default_rng(0)), repeat=3)
    theirs, ref = best_of(lambda: stats.permutation_test(
        (small,), lambda x, axis: np.sum(x, axis=axis), permutation_type="samples",
        n_resamples=10**4, rng=np.random.default_rng(0)), repeat=1)
    print(f"2. 10^4 sign flips of 10^4 items: {ours:.3f} s (p = {res[1][0]:.4g}), "
          f"scipy permutation_test {theirs:.3f} s (p = {ref.pvalue:.4g})")

    wide_a = rng.normal(size=(1000, 100))
    wide_b = wide_a + rng.normal(0.05, 1.0, wide_a.shape)
    ours, _ = best_of(lambda: analyze_scores(wide_a, wide_b, n_resamples=2000, random_state=0),
                      repeat=1)
    loop, _ = best_of(lambda: [analyze_scores(wide_a[:, j], wide_b[:, j], n_resamples=2000,
                                              random_state=0) for j in range(100)], repeat=1)
    print(f"3. 100 pairs of 1,000 items: one 2-D call {ours:.3f} s, 100 calls {loop:.3f} s")


if __name__ == "__main__":
    main()
