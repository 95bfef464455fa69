"""Confidence intervals of a paired comparison of scores.

=====================  ========================================================================
interval               of what, and how
=====================  ========================================================================
t                      the mean difference: :math:`\\bar d \\pm t_{df, 1 - (1 - L)/2}\\,SE`,
                       SE = :math:`s_d / \\sqrt n` (or the cluster-robust CR1 standard error
                       on :math:`G - 1` degrees of freedom)
bootstrap              the mean difference: the bias-corrected and accelerated (BCa) interval
                       of Efron (1987) from resamples of the items (or of the clusters), with
                       the acceleration from the jackknife
Hodges-Lehmann         the pseudomedian of the differences (another estimand than the mean):
                       the median of the Walsh averages :math:`(d_i + d_j)/2, i \\le j`, and
                       the interval :math:`[W_{(k)}, W_{(M + 1 - k)}]` that inverts the
                       signed-rank test (Hodges & Lehmann 1963; Hollander & Wolfe 1999, 3.2-3.3),
                       :math:`M = n(n+1)/2`; k from the exact null distribution when the
                       differences are distinct and at most ``EXACT_RANKS``, else
                       :math:`k = \\lfloor M/2 + 1/2 - z\\sqrt{n(n+1)(2n+1)/24} \\rfloor`
=====================  ========================================================================

The Walsh averages of up to ``BRUTE_WALSH`` differences are formed outright; beyond that their
order statistics are found by bisection on a count that takes :math:`O(n \\log n)`, so the
Hodges-Lehmann estimate of a million differences needs no :math:`n^2` memory.

References
----------
Efron B (1987). Better bootstrap confidence intervals. JASA 82:171-185.
Hodges JL, Lehmann EL (1963). Estimates of location based on rank tests. Annals of
Mathematical Statistics 34:598-611.
Hollander M, Wolfe DA (1999). *Nonparametric Statistical Methods*, 2nd ed. Wiley.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray
from scipy import special, stats

from mcnemar.scores._tests import EXACT_RANKS, signed_rank_counts

FloatArray = NDArray[np.float64]

#: Up to this many differences the Walsh averages are formed outright.
BRUTE_WALSH = 2000


def t_interval(mean: FloatArray, se: FloatArray, df: FloatArray, level: float
               ) -> tuple[FloatArray, FloatArray]:
    """The t interval of the mean difference (NaN where df < 1)."""
    q = stats.t.ppf(0.5 + level / 2.0, np.where(df > 0, df, np.nan))
    half = q * se
    return mean - half, mean + half


# ---------------------------------------------------------------------------------- BCa


def bootstrap_means(values: FloatArray, weights: FloatArray, n_resamples: int,
                    rng: np.random.Generator) -> FloatArray:
    """``(n_resamples, m)`` bootstrap means: units resampled with replacement, each resample's
    mean is sum(values) / sum(weights) over the units drawn (weights: items per unit)."""
    u = values.shape[0]
    out = np.empty((n_resamples, values.shape[1]))
    chunk = max(1, min(n_resamples, 2**22 // max(u, 1)))
    done = 0
    while done < n_resamples:
        rows = min(chunk, n_resamples - done)
        idx = rng.integers(0, u, size=(rows, u))
        flat = (idx + (np.arange(rows) * u)[:, None]).ravel()
        counts = np.bincount(flat, minlength=rows * u).reshape(rows, u).astype(np.float64)
        out[done:done + rows] = (counts @ values) / (counts @ weights)[:, None]
        done += rows
    return out


def bca_interval(estimate: FloatArray, resampled: FloatArray, jackknife: FloatArray,
                 level: float) -> tuple[FloatArray, FloatArray]:
    """The BCa interval from the estimate (m,), its resamples (B, m) and its leave-one-unit-out
    jackknife values (u, m).

    :math:`z_0 = \\Phi^{-1}(\\#\\{\\theta^* < \\hat\\theta\\}/B)`,
    :math:`a = \\sum (\\bar\\theta - \\theta_{(i)})^3 / (6 [\\sum (\\bar\\theta -
    \\theta_{(i)})^2]^{3/2})`, and the limits are the quantiles of the resamples at
    :math:`\\Phi(z_0 + (z_0 + z)/(1 - a (z_0 + z)))` for :math:`z = \\pm z_{(1+L)/2}`.
    Resamples that are all equal (every difference the same) give the point interval.
    """
    share = np.mean(resampled < estimate, axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        z0 = special.ndtri(share)
        centred = jackknife.mean(axis=0) - jackknife
        num = np.sum(centred**3, axis=0)
        den = 6.0 * np.sum(centred**2, axis=0) ** 1.5
        accel = np.where(den > 0, num / den, 0.0)
        z = special.ndtri(0.5 + level / 2.0)
        lows: list[FloatArray] = []
        highs: list[FloatArray] = []
        for zz, out in ((-z, lows), (z, highs)):
            arg = z0 + (z0 + zz) / (1.0 - accel * (z0 + zz))
            out.append(special.ndtr(arg))
    lo_q, hi_q = lows[0], highs[0]
    low = np.full(estimate.shape, np.nan)
    high = np.full(estimate.shape, np.nan)
    constant = np.ptp(resampled, axis=0) == 0
    for j in range(estimate.shape[0]):
        if constant[j]:
            low[j] = high[j] = resampled[0, j]
        elif math.isfinite(lo_q[j]) and math.isfinite(hi_q[j]):
            low[j], high[j] = np.quantile(resampled[:, j], [lo_q[j], hi_q[j]])
    # A resampled mean that is 0 but for rounding (1e-17 where the items' sums cancel) is 0.
    scale = np.max(np.abs(resampled), axis=0)
    low = np.where(np.abs(low) <= 1e-12 * scale, 0.0, low)
    high = np.where(np.abs(high) <= 1e-12 * scale, 0.0, high)
    return low, high


# ----------------------------------------------------------------------- Hodges-Lehmann


def _walsh_order_brute(d: FloatArray, ks: list[int]) -> list[float]:
    sums = np.add.outer(d, d)[np.triu_indices(d.size)]
    sums.sort()
    return [float(sums[k - 1]) / 2.0 for k in ks]


def _walsh_count(d: FloatArray, t: float) -> int:
    """#{i <= j: d_i + d_j <= t} for sorted d."""
    j = np.searchsorted(d, t - d, side="right")
    return int(np.maximum(j - np.arange(d.size), 0).sum())


def _walsh_kth(d: FloatArray, k: int) -> float:
    """The k-th smallest Walsh sum d_i + d_j (i <= j, 1-based k) of sorted d, by bisection."""
    lo, hi = 2.0 * float(d[0]) - 1.0, 2.0 * float(d[-1])
    # Invariant: count(lo) < k <= count(hi).
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if not lo < mid < hi:
            break
        if _walsh_count(d, mid) >= k:
            hi = mid
        else:
            lo = mid
    # The k-th sum is the smallest Walsh sum above lo.
    j = np.maximum(np.searchsorted(d, lo - d, side="right"), np.arange(d.size))
    ok = j < d.size
    return float(np.min(d[ok] + d[j[ok]]))


def walsh_order(d: FloatArray, ks: list[int]) -> list[float]:
    """The Walsh averages of ranks ``ks`` (1-based) of the differences ``d`` (1-D)."""
    d = np.sort(d)
    if d.size <= BRUTE_WALSH:
        return _walsh_order_brute(d, ks)
    return [_walsh_kth(d, k) / 2.0 for k in ks]


def hodges_lehmann(d: FloatArray, level: float) -> tuple[float, float, float, float, bool]:
    """(estimate, low, high, achieved level, exact) for the differences of one pair of runs.

    The achieved level of the exact interval is 1 - 2 P(V <= k - 1), at least ``level``; the
    normal approximation states the level asked. With too few items for any interval at this
    level (k < 1), the limits are the smallest and largest Walsh averages and the achieved
    level is below the one asked.
    """
    n = d.size
    total = n * (n + 1) // 2
    alpha = 1.0 - level
    exact = n <= EXACT_RANKS and np.unique(d).size == n
    if exact:
        cdf = np.cumsum(signed_rank_counts(n)) / 2.0**n
        # k: the largest with P(V <= k - 1) <= alpha / 2.
        k = int(np.searchsorted(cdf, alpha / 2.0 * (1.0 + 1e-12), side="right"))
        k = max(k, 1)
        achieved = 1.0 - 2.0 * (float(cdf[k - 2]) if k >= 2 else 0.0)
    else:
        z = float(special.ndtri(1.0 - alpha / 2.0))
        sd = math.sqrt(n * (n + 1) * (2 * n + 1) / 24.0)
        k = max(1, math.floor(total / 2.0 + 0.5 - z * sd))
        achieved = level
    if total % 2:
        ks = [(total + 1) // 2, k, total + 1 - k]
        mid, low, high = walsh_order(d, ks)
        estimate = mid
    else:
        ks = [total // 2, total // 2 + 1, k, total + 1 - k]
        m1, m2, low, high = walsh_order(d, ks)
        estimate = 0.5 * (m1 + m2)
    return estimate, low, high, achieved, exact
