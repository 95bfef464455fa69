"""The four paired tests of scores, vectorized over columns of differences.

Every function takes the differences ``d`` (A - B) as an ``(n, m)`` array, one column per pair
of runs, and returns arrays of length ``m``: the statistic, the p-value and its log10 (finite
where the p-value underflows), for the alternative asked (``"greater"``: A scores higher).

=================  ============================================================================
test               statistic and null distribution
=================  ============================================================================
paired t           :math:`t = \\bar d / (s_d / \\sqrt n)` on :math:`n - 1` degrees of freedom
                   (Student 1908); with clusters the cluster-robust (CR1) standard error on
                   :math:`G - 1` degrees of freedom
signed-rank        :math:`V = \\sum_{d_i > 0} r_i`, the ranks of :math:`|d_i|` (Wilcoxon 1945);
                   exact null distribution for at most ``EXACT_RANKS`` non-zero differences
                   without ties, else normal with mean :math:`\\sum r_i / 2` and variance
                   :math:`\\sum r_i^2 / 4` (the tie-corrected variance, no continuity
                   correction); zeros dropped (``"wilcox"``) or ranked and then dropped
                   (``"pratt"``, Pratt 1959)
sign               the number of positive differences among the non-zero ones,
                   :math:`\\mathrm{Bin}(n_{\\neq 0}, 1/2)` (Dixon & Mood 1946): the exact
                   conditional McNemar test when the scores are 0/1
permutation        :math:`\\sum_i d_i` under the :math:`2^n` sign flips of the differences
                   (Fisher 1935): every flip enumerated up to ``EXACT_FLIPS`` flips, else
                   ``n_resamples`` random flips with p = (1 + hits) / (1 + resamples)
=================  ============================================================================

Two-sided p-values are twice the smaller tail (at most 1) for the discrete tests and the
t test, and the share of flips at least as extreme in absolute value for the permutation test.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import special, stats

from mcnemar._format import json_fields
from mcnemar.inference import pvalues

FloatArray = NDArray[np.float64]

_LN10 = math.log(10.0)
#: Most non-zero differences for which the signed-rank test uses its exact null distribution.
EXACT_RANKS = 50
#: Most sign flips the permutation test enumerates (2**20: about a million).
EXACT_FLIPS = 2**20
#: Relative tolerance when a flipped sum is compared with the observed one (sums of the same
#: numbers in another order differ by rounding).
_REL_TOL = 1e-9


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoreTestResult:
    """One test of a paired comparison of scores.

    Attributes
    ----------
    test : str
        Its key (:data:`mcnemar.vocabulary.SCORE_TESTS`).
    name : str
        Its label.
    statistic : float
        t; V (the sum of the ranks of the positive differences); the number of positive
        differences; the sum of the differences (permutation).
    pvalue, log10_pvalue : float
    alternative : str
    convention : str
        How the statistic and its null distribution were computed, in words.
    df : float or None
        Degrees of freedom (t test).
    exact : bool
        The null distribution was exact (not a normal approximation or a Monte Carlo sample).
    resamples : int or None
        Random sign flips drawn (a Monte Carlo permutation test).
    standard_error : float or None
        The Monte Carlo standard error of the p-value, sqrt(p (1 - p) / resamples).
    statistic_name : str
        What the statistic is called in a table (t, V, positives, sum).
    """

    test: str
    name: str
    statistic: float
    pvalue: float
    log10_pvalue: float
    alternative: str
    convention: str
    df: float | None = None
    exact: bool = True
    resamples: int | None = None
    standard_error: float | None = None
    statistic_name: str = "statistic"

    def to_dict(self) -> dict[str, Any]:
        return json_fields(self, "test", "name", "statistic", "pvalue", "log10_pvalue",
                           "alternative", "convention", "df", "exact", "resamples",
                           "standard_error", "statistic_name")


def _sided(logsf_pos: FloatArray, logsf_neg: FloatArray, alternative: str) -> FloatArray:
    """Natural log of the p-value from the log tails P(T >= t) (``logsf_pos``) and P(T <= t)."""
    if alternative == "greater":
        return logsf_pos
    if alternative == "less":
        return logsf_neg
    return np.minimum(0.0, math.log(2.0) + np.minimum(logsf_pos, logsf_neg))


def _out(logp: FloatArray) -> tuple[FloatArray, FloatArray]:
    logp = np.minimum(np.asarray(logp, dtype=np.float64), 0.0)
    return np.exp(logp), logp / _LN10


# ------------------------------------------------------------------------------------ t test


def t_test(mean: FloatArray, se: FloatArray, df: FloatArray, alternative: str
           ) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(t, p, log10 p) of the paired t test from the mean difference and its standard error.

    A zero standard error with a zero mean gives t undefined (NaN) and p = 1; with a non-zero
    mean (every item differs by the same amount) t is infinite and p = 0.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / se
    t = np.where((se == 0) & (mean == 0), np.nan, t)
    tt = np.where(np.isnan(t), 0.0, t)
    dfs = np.where(df > 0, df, np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        logsf = t_logsf(tt, dfs)
        logcdf = t_logsf(-tt, dfs)
    logp = _sided(logsf, logcdf, alternative)
    logp = np.where(np.isnan(t) & ~np.isnan(dfs), 0.0, logp)
    p, log10p = _out(logp)
    return t, p, log10p


def t_logsf(t: FloatArray, df: FloatArray) -> FloatArray:
    """Natural log of P(T > t) for Student's t, finite far into the upper tail.

    Where scipy's value falls below 1e-300 (or underflows), the tail is
    :math:`I_x(\\nu/2, 1/2)/2` with :math:`x = \\nu/(\\nu + t^2)`, summed in log space from the
    series :math:`I_x(a, b) = \\frac{x^a (1-x)^b}{a B(a, b)} \\sum_k \\frac{(a+b)_k}{(a+1)_k}
    x^k` (Abramowitz & Stegun 26.5.4 with the hypergeometric function written out).
    """
    t = np.asarray(t, dtype=np.float64)
    df = np.asarray(df, dtype=np.float64)
    out = np.asarray(stats.t.logsf(t, df), dtype=np.float64)
    far = (t > 0) & np.isfinite(t) & ~(out > -690.0) & np.isfinite(df)
    if far.any():
        tf, nu = np.broadcast_to(t, out.shape)[far], np.broadcast_to(df, out.shape)[far]
        a, b = nu / 2.0, 0.5
        x = nu / (nu + tf * tf)
        log1mx = np.log(tf * tf) - np.log(nu + tf * tf)
        term = np.ones_like(x)
        total = np.ones_like(x)
        for k in range(400):
            term = term * (a + b + k) / (a + 1.0 + k) * x
            total = total + term
            if np.all(term < 1e-17 * total):
                break
        logi = (a * np.log(x) + b * log1mx - np.log(a) - special.betaln(a, b)
                + np.log(total))
        out = out.copy()
        out[far] = logi - math.log(2.0)
    return out


# --------------------------------------------------------------------------------- sign test


def sign_test(d: FloatArray, alternative: str) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(positives, p, log10 p) of the exact sign test, through McNemar's exact test
    (:func:`mcnemar.inference.pvalues` with b = positives, c = negatives)."""
    pos = np.count_nonzero(d > 0, axis=0).astype(np.int64)
    neg = np.count_nonzero(d < 0, axis=0).astype(np.int64)
    _, p, log10p, _ = pvalues(pos, neg, "exact", alternative)
    return pos.astype(np.float64), p, log10p


# -------------------------------------------------------------------------- signed-rank test


def signed_rank_counts(n: int) -> NDArray[np.float64]:
    """The number of subsets of {1, ..., n} with each sum 0 .. n(n+1)/2: the exact null
    distribution of V times 2**n (exact in float64 while 2**n < 2**53, so for n <= 52)."""
    total = n * (n + 1) // 2
    counts = np.zeros(total + 1, dtype=np.float64)
    counts[0] = 1.0
    for k in range(1, n + 1):
        counts[k:] = counts[k:] + counts[: total + 1 - k].copy()
    return counts


def _midranks(a: FloatArray) -> FloatArray:
    """Midranks of ``a`` along axis 0, NaN entries ranked last and left NaN."""
    ranks: FloatArray = stats.rankdata(a, axis=0, method="average", nan_policy="omit")
    return ranks


def wilcoxon_test(d: FloatArray, alternative: str, zero_method: str
                  ) -> tuple[FloatArray, FloatArray, FloatArray, NDArray[np.bool_]]:
    """(V, p, log10 p, exact) of the signed-rank test for each column of ``d``."""
    absd = np.abs(d)
    zero = d == 0
    if zero_method == "wilcox":
        ranks = _midranks(np.where(zero, np.nan, absd))
    else:
        ranks = _midranks(absd)
    ranks = np.where(zero | np.isnan(ranks), 0.0, ranks)
    v = np.sum(np.where(d > 0, ranks, 0.0), axis=0)
    mean = ranks.sum(axis=0) / 2.0
    var = (ranks * ranks).sum(axis=0) / 4.0
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (v - mean) / np.sqrt(var)
    z = np.where(var > 0, z, 0.0)
    logp = _sided(special.log_ndtr(-z), special.log_ndtr(z), alternative)
    logp = np.where(var > 0, logp, 0.0)
    nonzero = np.count_nonzero(~zero, axis=0)
    sorted_abs = np.sort(np.where(zero, np.nan, absd), axis=0)
    tied = np.any(np.diff(sorted_abs, axis=0) == 0, axis=0)
    exact = (nonzero <= EXACT_RANKS) & ~tied & (nonzero > 0)
    if zero_method == "pratt":
        exact &= ~np.any(zero, axis=0)
    for j in np.flatnonzero(exact):
        logp[j] = _exact_signed_rank_logp(int(nonzero[j]), float(v[j]), alternative)
    p, log10p = _out(logp)
    return v, p, log10p, exact


def _exact_signed_rank_logp(n: int, v: float, alternative: str) -> float:
    counts = signed_rank_counts(n)
    k = round(v)
    total = 2.0**n
    upper = counts[k:].sum() / total  # P(V >= v)
    lower = counts[: k + 1].sum() / total  # P(V <= v)
    if alternative == "greater":
        p = upper
    elif alternative == "less":
        p = lower
    else:
        p = min(1.0, 2.0 * min(upper, lower))
    return math.log(p)


# ---------------------------------------------------------------------- permutation test


def flip_sums(x: FloatArray) -> FloatArray:
    """Every sum sum_i s_i x_i over the 2**len(x) sign vectors s (x: one column, 1-D)."""
    sums = np.zeros(1)
    for value in x:
        sums = np.concatenate((sums + value, sums - value))
    return sums


def permutation_test(units: FloatArray, alternative: str, n_resamples: int,
                     rng: np.random.Generator
                     ) -> tuple[FloatArray, FloatArray, FloatArray, NDArray[np.bool_], FloatArray]:
    """(sum, p, log10 p, exact, Monte Carlo standard error) of the sign-flip permutation test.

    ``units`` is ``(u, m)``: the differences of the items, or their sums per cluster when the
    clusters are the resampling unit (the signs of a whole cluster flip together). Units
    whose difference is 0 do not change any flipped sum and are left out of the enumeration.
    """
    u, m = units.shape
    observed = units.sum(axis=0)
    nonzero = np.count_nonzero(units, axis=0)
    exact = nonzero <= int(math.log2(EXACT_FLIPS))
    p = np.ones(m)
    se = np.zeros(m)
    scale = np.abs(units).sum(axis=0)
    tol = _REL_TOL * np.where(scale > 0, scale, 1.0)
    for j in np.flatnonzero(exact):
        col = units[:, j]
        sums = flip_sums(col[col != 0])
        p[j] = _share(sums, observed[j], tol[j], alternative, sums.size, 0)
    todo = np.flatnonzero(~exact)
    if todo.size:
        block = units[:, todo]
        hits = np.zeros(todo.size)
        chunk = max(1, min(n_resamples, 2**22 // max(u, 1)))
        done = 0
        while done < n_resamples:
            rows = min(chunk, n_resamples - done)
            signs = 2.0 * rng.integers(0, 2, size=(rows, u), dtype=np.int8) - 1.0
            sums = signs @ block
            hits += _count(sums, observed[todo], tol[todo], alternative)
            done += rows
        mc = (hits + 1.0) / (n_resamples + 1.0)
        p[todo] = mc
        se[todo] = np.sqrt(mc * (1.0 - mc) / n_resamples)
    p = np.minimum(p, 1.0)
    with np.errstate(divide="ignore"):
        log10p = np.log10(p)
    return observed, p, log10p, exact, se


def _count(sums: FloatArray, observed: FloatArray, tol: FloatArray, alternative: str
           ) -> FloatArray:
    """Flipped sums (rows) at least as extreme as the observed one, per column."""
    if alternative == "greater":
        hit = sums >= observed - tol
    elif alternative == "less":
        hit = sums <= observed + tol
    else:
        hit = np.abs(sums) >= np.abs(observed) - tol
    return np.asarray(hit.sum(axis=0), dtype=np.float64)


def _share(sums: FloatArray, observed: float, tol: float, alternative: str, total: int,
           add: int) -> float:
    hits = float(_count(sums[:, None], np.array([observed]), np.array([tol]), alternative)[0])
    return (hits + add) / (total + add)
