"""Exact tails of the symmetric binomial distribution Bin(n, 1/2), accurate for any n.

McNemar's exact conditional test refers the smaller discordant count to X ~ Bin(D, 1/2), so
everything here is specialised to p = 1/2. All functions are vectorized over ``k`` and ``n``
(float64 arrays holding integers, exact up to 2**53) and never sum the distribution term by term.

Two routes give the lower tail L(k) = P(X <= k) for k < n/2:

* **moderate n** (n <= ``FAST_N``): the regularized incomplete beta function,
  L(k) = I_{1/2}(n - k, k + 1) (``scipy.special.betainc``), which is accurate to a few 1e-14
  relative for n up to a few hundred and to ~1.2e-16 n beyond (1e-12 at n = 1e4, measured
  against exact sums: the error of a double-precision exponent of size n log 2, which the
  log-space route shares there);
* **large n, or tails that underflow a double**: the factorisation

  .. math::

     L(k) = (n - k)\\,\\Pr(X = k)\\,J, \\qquad
     J = \\int_0^1 (1 - y)^{n-k-1} (1 + y)^{k}\\,dy
       = \\int_0^1 \\exp\\Big(\\tfrac{n-1}{2}\\log(1 - y^2)
         - m\\,\\operatorname{atanh} y\\Big)\\,dy,

  with m = n - 2k - 1 >= 0, obtained from the beta-integral form of I_{1/2} by the substitution
  t = (1 - y)/2. Both terms of the exponent are <= 0, so it is computed without cancellation.
  ``Pr(X = k)`` is evaluated in log space with Loader's saddle-point expansion
  (stirlerr and the deviance ``bd0``), which keeps full relative accuracy where lgamma
  differences would lose every digit (n = 1e15). J is a smooth, decreasing integrand that falls
  from 1 to e^-45 on [0, y_max]; Gauss-Legendre quadrature on that range is exact for
  n <= 2 * nodes (a polynomial of degree n - 1) and accurate to ~1e-15 beyond. The log of the
  tail is therefore finite and accurate even when the tail itself is 1e-1500.

The upper half follows from symmetry: L(k) = 1 - L(n - k - 1), and the mid-p tail
M(k) = L(k) - Pr(X = k)/2 satisfies M(k) = 1 - M(n - k).

Many tails at once (:func:`two_sided_half`, :func:`lower_tail_and_log_half`, for the pairs of
a many-model comparison) take the same two routes but send a tail straight to the log-space
one when Hoeffding's bound exp(-(n - 2k)^2 / (2n)) shows it is below the incomplete beta's
range, and return the incomplete beta's value itself rather than exp of its log.

Small n (n <= ``SMALL_N``, 64) have a route without scipy, for the report of a small table:
:func:`log_tails_half_small` sums the binomial coefficients in exact integers (nothing is lost,
so the usual objection to summing the terms does not apply) and rounds each tail once, and
:func:`proportion_limit_small` gives the Clopper-Pearson and mid-p limits of a proportion of
k in n (any p, not only 1/2) by Newton's method on the tail polynomial in Python floats.
scipy is imported only by the functions of the other routes.

References
----------
C. Loader (2000), "Fast and accurate computation of binomial probabilities" (the algorithm
behind R's ``dbinom``). M. Abramowitz & I. Stegun (1964), 26.5.24 (binomial tail as an
incomplete beta function).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from mcnemar import _routes

__all__ = [
    "FAST_N",
    "SMALL_N",
    "exact_log_tail",
    "log_lower_tail_half",
    "log_midp_tail_half",
    "log_pmf_half",
    "log_tails_half_small",
    "lower_tail_and_log_half",
    "lower_tail_half",
    "pmf_half",
    "proportion_limit_small",
    "two_sided_half",
]

#: Largest n for which the incomplete beta route is used (measured against mpmath: its relative
#: error stays below 1e-13 up to here).
FAST_N = 10_000.0
#: Below this tail probability the fast route switches to the log-space route.
_TINY = 1e-280
_LOG_TINY = math.log(_TINY)
#: The screen sends a tail straight to the log-space route only when its upper bound lies this
#: far (natural log units) below log(_TINY): the bound's own rounding (~1e-13 for n = 1e4) can
#: then never send a tail of _TINY or more there. Tails the screen lets through and that fall
#: below _TINY are caught after the incomplete beta, as before.
_SCREEN_MARGIN = 1.0
#: Gauss-Legendre nodes for J; exact for n <= 2 * _NODES.
_NODES = 32
#: The quadrature range ends where the integrand has fallen to exp(-_CUTOFF).
_CUTOFF = 45.0

_LN2 = math.log(2.0)
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)

FloatArray = NDArray[np.float64]


@functools.cache
def _gauss_legendre() -> tuple[FloatArray, FloatArray]:
    x, w = np.polynomial.legendre.leggauss(_NODES)
    # map from [-1, 1] to [0, 1]
    return (x + 1.0) / 2.0, w / 2.0


# Stirling errors of 1..15 (index = n), correctly rounded from 50-digit values (log-gamma in
# mpmath; the tests recompute them). The gammaln route loses up to 1e-12 relative here.
_STIRLERR_TABLE = np.array([
    0.0,
    0.08106146679532726, 0.0413406959554093, 0.02767792568499834, 0.020790672103765093,
    0.016644691189821193, 0.013876128823070748, 0.01189670994589177, 0.010411265261972096,
    0.009255462182712733, 0.00833056343336287, 0.007573675487951841, 0.00694284010720953,
    0.006408994188004207, 0.0059513701127588475, 0.005554733551962801,
])


def _stirlerr(n: FloatArray) -> FloatArray:
    """log(n!) - log(sqrt(2 pi n) (n/e)^n), the error of Stirling's formula, for n >= 1.

    The one Stirling error of the package (:mod:`mcnemar.planning` uses it too). Whole n <= 15:
    a table of correctly rounded values; other n <= 15: from ``gammaln``; n > 15: the asymptotic
    series 1/(12n) - 1/(360n^3) + 1/(1260n^5) - 1/(1680n^7) + 1/(1188n^9) - 691/(360360n^11)
    + 1/(156n^13), whose first omitted term, 3617/(122400n^15), is below 3e-20 (Loader 2000;
    checked against mpmath in the tests). :func:`_stirlerr_of` on arrays.
    """
    out: FloatArray = np.asarray(_stirlerr_of(_ARRAYS, np.asarray(n, dtype=np.float64)),
                                 dtype=np.float64)
    return out


def _stirlerr_of(xp: _BinomialOps, n: Any) -> Any:
    """:func:`_stirlerr` on either route (on floats, n > 15 or a whole n)."""
    # the series everywhere (cheap; n > 15 as given), then the few n <= 15 replaced
    big = xp.maximum(n, 15.0)
    r = 1.0 / (big * big)
    series = 1.0 / 12.0 - r * (
        1.0 / 360.0
        - r
        * (
            1.0 / 1260.0
            - r * (1.0 / 1680.0 - r * (1.0 / 1188.0 - r * (691.0 / 360360.0 - r / 156.0)))
        )
    )
    out = series / big
    small = n <= 15.0
    if xp.any(small):
        out = xp.small_stirlerr(n, small, out)
    return out


def _small_stirlerr_arrays(n: FloatArray, small: NDArray[np.bool_], out: FloatArray
                           ) -> FloatArray:
    """``out`` with the Stirling errors of the n <= 15 (``small``) put in: the table's for whole
    n, gammaln's for the others."""
    from scipy import special

    ns = n[small]
    whole = (ns >= 1.0) & (ns == np.floor(ns))
    with np.errstate(divide="ignore", invalid="ignore"):
        by_gamma = special.gammaln(ns + 1.0) - (ns + 0.5) * np.log(ns) + ns - _HALF_LOG_2PI
    out = np.array(out, dtype=np.float64)
    out[small] = np.where(whole, _STIRLERR_TABLE[np.where(whole, ns, 0.0).astype(np.intp)],
                          by_gamma)
    return out


def _small_stirlerr_float(n: float, small: bool, out: float) -> float:
    """:func:`_small_stirlerr_arrays` of one number: the table's value of a whole n; another
    small n raises (the array route takes it)."""
    if not (n >= 1.0 and n == math.floor(n)):
        raise ValueError("a Stirling error from gammaln: the array route")
    return _STIRLERR_VALUES[int(n)]


def _bd0(x: FloatArray, mean: FloatArray) -> FloatArray:
    """Deviance term x log(x/mean) + mean - x, computed without cancellation (Loader 2000).

    Where |x - mean| < 0.1 (x + mean) the series (x - mean) v + sum_{j>=1} 2x v^(2j+1)/(2j+1),
    v = (x - mean)/(x + mean), is summed until v^(2j) falls below 1e-17 (at most 9 terms, as
    |v| < 0.1); elsewhere the direct formula has no cancellation. x = 0 gives ``mean``.
    :func:`_bd0_of` on arrays (the terms are as many as the largest v of the arrays needs).
    """
    x, mean = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(mean, np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        out: FloatArray = np.asarray(_bd0_of(_ARRAYS, x, mean), dtype=np.float64)
    return out


def _bd0_of(xp: _BinomialOps, x: Any, mean: Any) -> Any:
    """:func:`_bd0` on either route."""
    diff = x - mean
    close = xp.abs(diff) < 0.1 * (x + mean)
    out = xp.where(x > 0, x * xp.log(xp.divide(x, mean)), 0.0) + mean - x
    v = xp.where(close, xp.divide(diff, x + mean), 0.0)
    if xp.any(close):
        v2 = v * v
        term = 2.0 * x * v
        total = diff * v
        # term j is v^(2j) of the first one: stop once that is below 1e-17 (v2 < 0.01)
        largest = xp.largest(v2)
        terms = 1 if largest <= 0.0 else min(9, max(1, math.ceil(-17.0 / math.log10(largest))))
        for j in range(1, terms + 1):
            term = term * v2
            total = total + term / (2 * j + 1)
        out = xp.where(close, total, out)
    return out


def _log_pmf_inner(xp: _BinomialOps, k: Any, n: Any) -> tuple[Any]:
    """log Pr(X = k), X ~ Bin(n, 1/2), for 0 < k < n (Loader's form, :func:`log_pmf_half`), on
    either route."""
    m = n - k
    half = n / 2.0
    return (_stirlerr_of(xp, n) - _stirlerr_of(xp, k) - _stirlerr_of(xp, m) - _bd0_of(xp, k, half)
            - _bd0_of(xp, m, half) - 0.5 * xp.log(2.0 * math.pi * k * (m / n)),)


class _BinomialOps(_routes.Ops):
    """The routes of :mod:`mcnemar._routes` with the Stirling error's small n (``small_stirlerr``)
    and ``largest`` (the largest value of an array; on floats the number itself)."""

    largest: Callable[[Any], float]
    small_stirlerr: Callable[..., Any]

    __slots__ = ("largest", "small_stirlerr")


def _array_largest(x: FloatArray) -> float:
    return float(x.max())


_ARRAYS = _BinomialOps(**_routes.operations(_routes.ARRAYS), largest=_array_largest,
                       small_stirlerr=_small_stirlerr_arrays)
_FLOATS = _BinomialOps(**_routes.operations(_routes.FLOATS), largest=float,
                       small_stirlerr=_small_stirlerr_float)
_STIRLERR_VALUES: tuple[float, ...] = tuple(_STIRLERR_TABLE.tolist())


def _as_float_pair(k: ArrayLike, n: ArrayLike) -> tuple[FloatArray, FloatArray]:
    kk, nn = np.broadcast_arrays(np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64))
    return np.array(kk, dtype=np.float64), np.array(nn, dtype=np.float64)


def log_pmf_half(k: ArrayLike, n: ArrayLike) -> FloatArray:
    """Natural log of Pr(X = k) for X ~ Bin(n, 1/2), accurate for n up to 2**53.

    Parameters
    ----------
    k, n : array_like of int
        Counts (broadcast together). ``k`` outside [0, n] gives ``-inf``.

    Returns
    -------
    ndarray of float

    Notes
    -----
    For 0 < k < n, Loader's (2000) form

    .. math:: \\log p = \\delta(n) - \\delta(k) - \\delta(n-k) - \\mathrm{bd0}(k, n/2)
              - \\mathrm{bd0}(n-k, n/2) - \\tfrac12\\log\\big(2\\pi k (n-k)/n\\big),

    with :math:`\\delta` the Stirling error; k in {0, n} gives :math:`-n\\log 2`.

    Examples
    --------
    >>> import numpy as np
    >>> round(float(np.exp(log_pmf_half(3, 20))) * 2**20, 9)  # C(20, 3)
    1140.0
    """
    kk, nn = _as_float_pair(k, n)
    out = np.full(kk.shape, -np.inf)
    edge = ((kk == 0) | (kk == nn)) & (nn >= 0)
    out[edge] = -nn[edge] * _LN2
    inner = (kk > 0) & (kk < nn)
    if kk.size == 1 and inner.all():
        # one probability (a report's table): Loader's form on Python floats
        out[...] = _log_pmf_one(kk.item(), nn.item())
    elif np.any(inner):
        with np.errstate(divide="ignore", invalid="ignore"):
            (out[inner],) = _log_pmf_inner(_ARRAYS, kk[inner], nn[inner])
    return out


def pmf_half(k: ArrayLike, n: ArrayLike) -> FloatArray:
    """Pr(X = k) for X ~ Bin(n, 1/2), vectorized (see :func:`log_pmf_half`).

    Examples
    --------
    >>> round(float(pmf_half(10, 20)) * 2**20, 6)  # C(20, 10)
    184756.0
    """
    return np.exp(log_pmf_half(k, n))


def _log_j(k: FloatArray, n: FloatArray) -> FloatArray:
    """log J for 2k + 1 <= n (see the module docstring)."""
    y01, w = _gauss_legendre()
    m = n - 2.0 * k - 1.0
    half_nm1 = (n - 1.0) / 2.0
    # End of the range: -h(y) = cutoff. The quadratic q(y) = m y + (n-1) y^2/2 bounds -h from
    # below, so its root bounds the true root from above; Newton's method on the convex,
    # increasing -h then converges monotonically from there.
    with np.errstate(divide="ignore", invalid="ignore"):
        disc = np.sqrt(m * m + 2.0 * (n - 1.0) * _CUTOFF)
        yq = np.where(n > 1.0, 2.0 * _CUTOFF / (m + disc), 1.0)
    exact = n <= 2.0 * _NODES  # polynomial of degree n - 1: integrate [0, 1] exactly
    y = np.where(exact | (yq >= 1.0), 1.0 - 1e-16, yq)
    for _ in range(40):
        neg_h = -half_nm1 * np.log1p(-y * y) + m * np.arctanh(y)
        slope = ((n - 1.0) * y + m) / ((1.0 - y) * (1.0 + y))
        step = (neg_h - _CUTOFF) / slope
        y_new = np.where(step > 0, y - step, y)
        done = np.all(np.abs(y_new - y) <= 1e-13 * y)
        y = y_new
        if done:
            break
    ymax = np.where(exact, 1.0, np.minimum(y, 1.0))
    nodes = ymax[..., None] * y01  # shape (..., _NODES)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = half_nm1[..., None] * np.log1p(-nodes * nodes) - m[..., None] * np.arctanh(nodes)
    integral = np.sum(w * np.exp(h), axis=-1) * ymax
    return np.log(integral)


def _log_lower_small(k: FloatArray, n: FloatArray, *, mid: bool) -> FloatArray:
    """log L(k) (or log M(k) if ``mid``) for 0 <= k and 2k + 1 <= n."""
    from scipy import special
    out = np.empty_like(k)
    if k.size == 0:
        return out
    slow = n > FAST_N
    fast = np.flatnonzero(~slow)
    if fast.size:
        kf, nf = k[fast], n[fast]
        tail = special.betainc(nf - kf, kf + 1.0, 0.5)
        ok = tail >= _TINY
        value = tail[ok]
        if mid:
            # M(k) = L(k) - Pr(X = k)/2 >= L(k)/2: no cancellation.
            value = value - 0.5 * np.exp(log_pmf_half(kf[ok], nf[ok]))
        out[fast[ok]] = np.log(value)
        slow[fast[~ok]] = True
    if np.any(slow):
        out[slow] = _log_lower_quadrature(k[slow], n[slow], mid=mid)
    return out


def _log_lower_quadrature(k: FloatArray, n: FloatArray, *, mid: bool = False) -> FloatArray:
    """log L(k) (or log M(k) if ``mid``) for 0 <= k, 2k + 1 <= n by the log-space route."""
    # ratio R = L(k) / Pr(X = k) >= 1; M(k) / Pr(X = k) = R - 1/2.
    ratio = (n - k) * np.exp(_log_j(k, n))
    if mid:
        ratio = ratio - 0.5
    out: FloatArray = log_pmf_half(k, n) + np.log(ratio)
    return out


def _log_hoeffding_half(k: FloatArray, n: FloatArray) -> FloatArray:
    """Hoeffding's upper bound on log L(k) for 0 <= k, 2k + 1 <= n: -(n - 2k)^2 / (2n).

    Looser than Chernoff's -n KL(k/n || 1/2) (by at most 28% of the exponent, at k = 0; ~7%
    where the tail crosses _TINY for n of a few thousand) but three arithmetic operations
    instead of two logarithms: the few tails it lets through needlessly cost less than the
    logarithms would.
    """
    gap = n - 2.0 * k
    bound: FloatArray = -(gap * gap) / (2.0 * n)
    return bound


def _lower_small_split(
    k: FloatArray, n: FloatArray
) -> tuple[FloatArray, FloatArray, NDArray[np.bool_]]:
    """L(k), log L(k) and where the plain route gave them, for 0 <= k and 2k + 1 <= n.

    The routes are those of :func:`log_lower_tail_half`: the incomplete beta where n <= FAST_N
    and the tail is at least _TINY, the log-space quadrature elsewhere. Two things differ, both
    for speed: a tail whose Hoeffding bound already lies below _TINY goes straight to the
    quadrature (the incomplete beta would only have been thrown away), and the plain tail is
    returned as it is rather than through exp(log(.)).
    """
    from scipy import special
    tail = np.empty_like(k)
    log_tail = np.empty_like(k)
    plain = (n <= FAST_N) & (_log_hoeffding_half(k, n) >= _LOG_TINY - _SCREEN_MARGIN)
    where = np.flatnonzero(plain)
    if where.size:
        kp = k[where]
        value = special.betainc(n[where] - kp, kp + 1.0, 0.5)
        ok = value >= _TINY
        if not ok.all():
            plain[where[~ok]] = False
            where, value = where[ok], value[ok]
        tail[where] = value
        log_tail[where] = np.log(value)
    rest = np.flatnonzero(~plain)
    if rest.size:
        log_rest = _log_lower_quadrature(k[rest], n[rest])
        log_tail[rest] = log_rest
        tail[rest] = np.exp(log_rest)
    return tail, log_tail, plain


def lower_tail_and_log_half(k: ArrayLike, n: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """L(k) = Pr(X <= k), X ~ Bin(n, 1/2), and its natural log, in one pass.

    The log equals :func:`log_lower_tail_half` (the same routes); the tail is the incomplete
    beta itself where that route is used, which spares the exp(log(.)) round trip of
    :func:`lower_tail_half` (their values agree to ~1e-14 relative), and exp of the log
    elsewhere. Tails whose Hoeffding bound, exp(-(n - 2k)^2 / (2n)), shows they lie below the
    plain route's range never reach the incomplete beta (about a sixth of the pairs of a large
    many-model comparison).

    Parameters
    ----------
    k, n : array_like of int
        Broadcast together; n >= 0. ``k < 0`` gives (0, -inf), ``k >= n`` gives (1, 0).

    Returns
    -------
    tail, log_tail : ndarray of float

    Examples
    --------
    >>> tail, log_tail = lower_tail_and_log_half([3, 0], [15, 5000])
    >>> round(float(tail[0]) * 2**15, 9), round(float(log_tail[1] / np.log(2)), 9)
    (576.0, -5000.0)
    """
    kk, nn = _as_float_pair(k, n)
    tail = np.zeros(kk.shape)
    log_tail = np.zeros(kk.shape)
    log_tail[kk < 0] = -np.inf
    tail[kk >= nn] = 1.0
    lower = (kk >= 0) & (2.0 * kk + 1.0 <= nn)
    if np.any(lower):
        tail[lower], log_tail[lower], _ = _lower_small_split(kk[lower], nn[lower])
    upper = (kk >= 0) & (2.0 * kk + 1.0 > nn) & (kk < nn)
    if np.any(upper):
        # L(k) = 1 - L(n - k - 1), and n - k - 1 is in the lower half.
        comp, _, _ = _lower_small_split(nn[upper] - kk[upper] - 1.0, nn[upper])
        tail[upper] = 1.0 - comp
        log_tail[upper] = np.log1p(-comp)
    return tail, log_tail


def two_sided_half(k: ArrayLike, n: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Two-sided exact p = min(1, 2 Pr(X <= min(k, n - k))), X ~ Bin(n, 1/2), and log p.

    The p-value of the exact binomial test of X = k against p = 1/2 (McNemar's exact test
    with k = b and n = b + c): the smaller tail doubled and capped at 1; n = 0, and any k with
    2 min(k, n - k) + 1 > n (k = n/2), gives p = 1. The log is min(0, log 2 + log L), L by the
    route of :func:`log_lower_tail_half`. Where L comes from the incomplete beta, p = 2L
    directly; elsewhere (tails below 1e-280, or n > FAST_N) p = exp(log p), which may
    underflow to 0 while log p stays finite.

    Parameters
    ----------
    k, n : array_like of int
        Broadcast together, 0 <= k <= n.

    Returns
    -------
    pvalue, log_pvalue : ndarray of float
        The p-value and its natural log.

    Examples
    --------
    >>> p, log_p = two_sided_half([3, 12, 5, 0], [15, 15, 10, 0])
    >>> (p * 2**14).round(9).tolist()  # 2 * (1 + 15 + 105 + 455) / 2**15
    [576.0, 576.0, 16384.0, 16384.0]
    >>> round(float(two_sided_half(0, 5000)[1] / np.log(10)), 4)
    -1504.8489
    """
    # Read-only views, not the copies of _as_float_pair: this runs on many chunks of pairs.
    kk, nn = np.broadcast_arrays(np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64))
    small = np.minimum(kk, nn - kk).reshape(-1)
    flat_n = nn.reshape(-1)
    pvalue = np.ones(small.size)
    log_p = np.zeros(small.size)
    lower = np.flatnonzero(2.0 * small + 1.0 <= flat_n)
    if lower.size:
        every = lower.size == small.size  # the usual case: no even split, no D = 0
        tail, log_tail, plain = _lower_small_split(
            small if every else small[lower], flat_n if every else flat_n[lower]
        )
        log_lower = np.minimum(0.0, _LN2 + log_tail)
        # the same p as exp(log p) to ~1e-14 relative, without the round trip's error
        p_lower = np.where(plain, np.minimum(1.0, 2.0 * tail), np.exp(log_lower))
        if every:
            pvalue, log_p = p_lower, log_lower
        else:
            pvalue[lower], log_p[lower] = p_lower, log_lower
    return pvalue.reshape(kk.shape), log_p.reshape(kk.shape)


def log_lower_tail_half(k: ArrayLike, n: ArrayLike) -> FloatArray:
    """Natural log of L(k) = Pr(X <= k), X ~ Bin(n, 1/2); finite where the tail underflows.

    Parameters
    ----------
    k, n : array_like of int
        Broadcast together; n >= 0. ``k < 0`` gives ``-inf``, ``k >= n`` gives 0.

    Returns
    -------
    ndarray of float

    Examples
    --------
    >>> round(float(log_lower_tail_half(0, 5000) / np.log(10)), 10)  # log10(2**-5000)
    -1505.1499783199
    """
    kk, nn = _as_float_pair(k, n)
    out = np.zeros(kk.shape)
    out[kk < 0] = -np.inf
    lower = (kk >= 0) & (2.0 * kk + 1.0 <= nn)
    out[lower] = _log_lower_small(kk[lower], nn[lower], mid=False)
    upper = (kk >= 0) & (2.0 * kk + 1.0 > nn) & (kk < nn)
    if np.any(upper):
        # L(k) = 1 - L(n - k - 1), and n - k - 1 is in the lower half.
        comp = _log_lower_small(nn[upper] - kk[upper] - 1.0, nn[upper], mid=False)
        out[upper] = np.log1p(-np.exp(comp))
    return out


def lower_tail_half(k: ArrayLike, n: ArrayLike) -> FloatArray:
    """Pr(X <= k) for X ~ Bin(n, 1/2), vectorized, relative error ~1e-14 for any n.

    Examples
    --------
    >>> round(float(lower_tail_half(3, 15)) * 2**15, 9)  # 1 + 15 + 105 + 455
    576.0
    """
    return np.exp(log_lower_tail_half(k, n))


def log_midp_tail_half(k: ArrayLike, n: ArrayLike) -> FloatArray:
    """Natural log of the mid-p tail M(k) = Pr(X < k) + Pr(X = k)/2, X ~ Bin(n, 1/2).

    Uses M(k) + M(n - k) = 1 for the upper half; M(n/2) = 1/2 exactly.

    Examples
    --------
    >>> round(float(np.exp(log_midp_tail_half(3, 20))) * 2**21)  # 2 P(X < 3) + P(X = 3)
    1562
    """
    kk, nn = _as_float_pair(k, n)
    out = np.zeros(kk.shape)
    out[kk < 0] = -np.inf
    lower = (kk >= 0) & (2.0 * kk + 1.0 <= nn)
    out[lower] = _log_lower_small(kk[lower], nn[lower], mid=True)
    out[(kk >= 0) & (2.0 * kk == nn) & (nn > 0)] = -_LN2
    upper = (kk >= 0) & (2.0 * kk > nn)
    # k > n: M(k) = 1 (out already 0); n < k handled since M(n) = 1 - 2**-n/2 for k == n.
    upper &= kk <= nn
    if np.any(upper):
        comp = _log_lower_small(nn[upper] - kk[upper], nn[upper], mid=True)
        out[upper] = np.log1p(-np.exp(comp))
    return out


# ---------------------------------------------------------------------------------------------
# Small n without scipy: exact tails in integers, limits of a proportion in Python floats
# ---------------------------------------------------------------------------------------------

#: Up to this many trials the tails of Bin(n, 1/2) also have an exact route in integers
#: (:func:`log_tails_half_small`) and the limits of a binomial proportion one in Python floats
#: (:func:`proportion_limit_small`), so that the report of a table with at most this many
#: discordant items needs no scipy. The cost of the exact tables grows as n**2 and that of a
#: limit as n; at 64 every table of the range together takes a few milliseconds.
SMALL_N = 64
#: Up to this many tails :func:`log_tails_half_small` computes their rows alone, not the table.
_FEW_TAILS = 32
#: :func:`proportion_limit_small` takes a last Newton step once a step (in log t) is below this:
#: the error after it is then far below the rounding noise of the tail (~1e-16 relative).
_LIMIT_LAST_STEP = 1e-10
_LIMIT_STEPS = 100


def log_tail_half_one(k: float, n: float, mid: bool) -> float:
    """log L(k) (or log M(k) if ``mid``) of Bin(n, 1/2) for one whole 0 <= k <= n on Python
    floats: the value the array routes give (:func:`log_tails_half_small` up to SMALL_N,
    :func:`log_lower_tail_half` and :func:`log_midp_tail_half` beyond, by the same operations)
    where it has a cheap route: up to SMALL_N the exact integer tail, beyond it, for tails in
    the lower half (2k + 1 <= n <= FAST_N) that do not underflow, the incomplete beta.

    Raises
    ------
    ValueError
        Elsewhere (a tail above the middle, beyond FAST_N or below 1e-280, which the
        log-space route of the arrays takes): the caller's route falls back to the arrays.

    Examples
    --------
    >>> round(math.exp(log_tail_half_one(3.0, 15.0, False)) * 2**15, 9)  # 1 + 15 + 105 + 455
    576.0
    >>> bool(log_tail_half_one(30.0, 100.0, True) == float(log_midp_tail_half(30, 100)))
    True
    """
    if n <= SMALL_N:
        return exact_log_tail(int(k), int(n), mid)
    if not (k >= 0.0 and 2.0 * k + 1.0 <= n <= FAST_N):
        raise ValueError("a tail beyond the lower half or FAST_N takes the array route")
    tail = _FLOATS.betainc(n - k, k + 1.0, 0.5)
    if not tail >= _TINY:
        raise ValueError("a tail below 1e-280 takes the log-space route of the arrays")
    if mid:
        # M(k) = L(k) - Pr(X = k)/2, as in _log_lower_small
        tail = tail - 0.5 * _FLOATS.exp(_log_pmf_one(k, n))
    return float(_FLOATS.log(tail))


def _log_pmf_one(k: float, n: float) -> float:
    """:func:`log_pmf_half` of one whole 0 <= k <= n on Python floats (its values)."""
    if k == 0.0 or k == n:
        return -n * _LN2
    (value,) = _routes.one_table(_log_pmf_inner, (k, n), {}, routes=(_FLOATS, _ARRAYS))
    return float(value)


def exact_log_tail(k: int, n: int, mid: bool) -> float:
    """One value of :func:`log_tails_half_small`, for whole 0 <= k <= n <= SMALL_N (not
    checked: the callers' counts are)."""
    return _exact_half_logs(n)[mid][k]


@functools.lru_cache(maxsize=SMALL_N + 1)
def _exact_half_logs(n: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """(log L(k), log M(k)) for k = 0..n, X ~ Bin(n, 1/2), from exact integer sums."""
    total = 1 << n
    cum = list(itertools.accumulate(math.comb(n, i) for i in range(n + 1)))
    lower = tuple(_log_fraction(x, total) for x in cum)
    # 2^(n+1) M(k) = 2 sum_{i<k} C(n, i) + C(n, k) = cum[k] + cum[k-1]
    mid = tuple(_log_fraction(x + y, 2 * total) for x, y in zip(cum, [0, *cum[:-1]], strict=True))
    return lower, mid


def _log_fraction(num: int, den: int) -> float:
    """log(num/den) for integers 0 < num <= den: the ratio (or, above 1/2, its complement) is
    rounded once (Python's division of integers is correctly rounded), then log or log1p."""
    if 2 * num <= den:
        return math.log(num / den)
    return math.log1p((num - den) / den)


@functools.lru_cache(maxsize=8)
def _half_log_table(size: int, mid: bool) -> FloatArray:
    """log L(k) (or log M(k)) for 0 <= k <= n <= size, flat: entry n(n + 1)/2 + k."""
    rows = (_exact_half_logs(n)[mid] for n in range(size + 1))
    count = (size + 1) * (size + 2) // 2
    table = np.fromiter(itertools.chain.from_iterable(rows), dtype=np.float64, count=count)
    table.flags.writeable = False
    return table


def log_tails_half_small(k: ArrayLike, n: ArrayLike, *, mid: bool = False) -> FloatArray:
    """log L(k) = log Pr(X <= k), or with ``mid`` log M(k) = log(Pr(X < k) + Pr(X = k)/2),
    X ~ Bin(n, 1/2), for 0 <= k <= n <= :data:`SMALL_N`, without scipy.

    Each value is the logarithm of the exact tail, a sum of binomial coefficients over 2**n in
    integers, rounded once to a double: for tails up to 1/2 the log of the rounded ratio, above
    1/2 log1p of the rounded complement, so the result is correct to an ulp or two however
    close the tail is to 0 or 1 (M(n/2) = 1/2 and L((n - 1)/2) = 1/2 exactly, L(n) = 1 gives
    +0). The values of every n up to the largest asked for are computed once and then looked
    up (a few tails: the rows of their n only, the same values), which is cheaper than the
    incomplete beta for any number of tails. They agree with
    :func:`log_lower_tail_half` and :func:`log_midp_tail_half` (the incomplete beta route) to
    ~1e-14 relative (the tests check every k and n, and mpmath).

    Parameters
    ----------
    k, n : array_like of int
        Broadcast together; whole numbers with 0 <= k <= n <= SMALL_N.

    Returns
    -------
    ndarray of float

    Raises
    ------
    ValueError
        For counts outside that range (a caller routes only small tables here).

    Examples
    --------
    >>> round(float(np.exp(log_tails_half_small(3, 15))) * 2**15, 9)  # 1 + 15 + 105 + 455
    576.0
    >>> float(log_tails_half_small(10, 20, mid=True)) == math.log(0.5)
    True
    """
    if (isinstance(k, np.ndarray) and isinstance(n, np.ndarray) and k.shape == n.shape
            and 0 < k.size <= _FEW_TAILS):
        # a few tails (a report): their rows only, the same values as the table's, checked
        # one by one
        pairs = list(zip(k.ravel().tolist(), n.ravel().tolist(), strict=True))
        if not all(0 <= j <= m <= SMALL_N and j == int(j) and m == int(m) for j, m in pairs):
            raise ValueError(f"the exact small-n tails need whole 0 <= k <= n <= {SMALL_N}")
        rows = [exact_log_tail(int(j), int(m), mid) for j, m in pairs]
        return np.array(rows, dtype=np.float64).reshape(k.shape)
    kk, nn = _as_float_pair(k, n)
    if kk.size == 0:
        return np.zeros(kk.shape)
    whole = np.all(kk == np.floor(kk)) and np.all(nn == np.floor(nn))
    if not (whole and np.all((kk >= 0) & (kk <= nn) & (nn <= SMALL_N))):
        raise ValueError(f"the exact small-n tails need whole 0 <= k <= n <= {SMALL_N}")
    top = int(nn.max())
    size = 16
    while size < top:
        size *= 2
    table = _half_log_table(min(size, SMALL_N), mid)
    out: FloatArray = table[(nn * (nn + 1.0) / 2.0 + kk).astype(np.intp)]
    return out


@functools.lru_cache(maxsize=SMALL_N + 1)
def _comb_floats(n: int) -> tuple[float, ...]:
    return tuple(float(math.comb(n, i)) for i in range(n + 1))


def proportion_limit_small(
    k: int, n: int, alpha: float, *, upper: bool, mid: bool = False
) -> tuple[float, float]:
    r"""A Clopper-Pearson (or mid-p) limit p of a proportion of k in n, and 1 - p, without scipy.

    With X ~ Bin(n, p), the lower limit solves P(X >= k) = alpha (0 when k = 0) and the upper
    one P(X <= k) = alpha (1 when k = n): the Beta quantiles
    :math:`B^{-1}(\alpha; k, n - k + 1)` and :math:`B^{-1}(1 - \alpha; k + 1, n - k)`. With
    ``mid`` the term P(X = k) counts half (P(X > k) + P(X = k)/2 = alpha for the lower limit),
    the mid-p limits.

    The equation is solved for t = min(p, 1 - p) <= 1/2, using
    P(X in [i, j]; p) = P(X in [n - j, n - i]; 1 - p), so that both p and 1 - p come out with
    full relative precision. With r = t/(1 - t) <= 1 the tail is
    :math:`t^i (1 - t)^{n - i} \sum_{m=i}^{j} w_m \binom{n}{m} r^{m - i}`, a polynomial with
    positive coefficients summed by Horner's rule (relative error below 2 (j - i) ulp, no
    underflow: it is evaluated in logs). Newton's method on log P against log t, safeguarded
    by bisection in a bracket, ends with the first step below 1e-10
    in log t (quadratic convergence leaves an error far below rounding after it): the root
    is accurate to about 1e-15 relative (the tests compare with mpmath and with
    scipy's ``betaincinv``).

    Parameters
    ----------
    k, n : int
        Successes and trials, 0 <= k <= n, 1 <= n <= :data:`SMALL_N`.
    alpha : float
        The tail probability, 0 < alpha < 1.
    upper : bool
        The upper limit (else the lower one).
    mid : bool
        The mid-p limit.

    Returns
    -------
    p, complement : float
        The limit and 1 - p.

    Examples
    --------
    >>> low, rest = proportion_limit_small(17, 20, 0.025, upper=False)
    >>> round(low, 6), round(rest, 6)
    (0.621073, 0.378927)
    """
    if n < 1 or n > SMALL_N or not 0 <= k <= n or not 0.0 < alpha < 1.0:
        raise ValueError(f"need 0 <= k <= n, 1 <= n <= {SMALL_N} and 0 < alpha < 1")
    if not upper and k == 0:
        return 0.0, 1.0
    if upper and k == n:
        return 1.0, 0.0
    # P(X in [lo, hi]), the term `half` halved (mid-p); it increases with p for a lower limit.
    lo, hi, increasing = (0, k, False) if upper else (k, n, True)
    half = k if mid else -1
    target = math.log(alpha)
    # The root lies above p = 1/2 when the tail at 1/2 is on the far side of alpha: solve for
    # 1 - p then, with the mirrored range.
    at_half = _log_weighted_tail(_weights(n, lo, hi, half), lo, n, 0.5)[0]
    flipped = (at_half < target) if increasing else (at_half > target)
    if flipped:
        lo, hi, half, increasing = n - hi, n - lo, (n - half if half >= 0 else -1), not increasing
    start = _limit_start(k, n, alpha, upper, mid)
    t = _solve_limit(_weights(n, lo, hi, half), lo, n, target, increasing,
                     1.0 - start if flipped else start)
    return (1.0 - t, t) if flipped else (t, 1.0 - t)


def _weights(n: int, lo: int, hi: int, half: int) -> list[float]:
    """C(n, m) for m = lo..hi, the one at ``half`` halved."""
    weights = list(_comb_floats(n)[lo : hi + 1])
    if lo <= half <= hi:
        weights[half - lo] *= 0.5
    return weights


def _log_weighted_tail(weights: list[float], lo: int, n: int, t: float) -> tuple[float, float]:
    """log of sum_m w_m t^m (1 - t)^(n - m), m = lo.. (weights from m = lo), for 0 < t <= 1/2,
    and its derivative with respect to log t."""
    r = t / (1.0 - t)
    p = dp = 0.0
    for w in reversed(weights):
        dp = dp * r + p
        p = p * r + w
    log_tail = lo * math.log(t) + (n - lo) * math.log1p(-t) + math.log(p)
    slope = (lo + r * dp / p - n * t) / (1.0 - t)
    return log_tail, slope


def _limit_start(k: int, n: int, alpha: float, upper: bool, mid: bool) -> float:
    """A starting point for the limit: Wilson's score limit with a continuity correction
    (half of it for mid-p), with an approximate normal quantile (Abramowitz & Stegun
    26.2.23, error below 5e-4)."""
    s = math.sqrt(-2.0 * math.log(min(alpha, 1.0 - alpha)))
    z = s - (2.515517 + s * (0.802853 + s * 0.010328)) / (
        1.0 + s * (1.432788 + s * (0.189269 + s * 0.001308)))
    if alpha > 0.5:
        z = -z
    shift = 0.25 if mid else 0.5
    x = min(max(k + shift if upper else k - shift, 0.0), float(n))
    z2 = z * z
    spread = z * math.sqrt(x * (n - x) / n + z2 / 4.0)
    centre = x + z2 / 2.0
    p = (centre + spread if upper else centre - spread) / (n + z2)
    return min(max(p, 1e-300), 1.0 - 1e-16)


def _solve_limit(weights: list[float], lo: int, n: int, target: float, increasing: bool,
                 start: float) -> float:
    """t in (0, 1/2] where the log tail of :func:`_log_weighted_tail` equals ``target``."""
    low, high = 0.0, 0.5
    t = min(max(start, 1e-300), 0.5)
    for _ in range(_LIMIT_STEPS):
        log_tail, slope = _log_weighted_tail(weights, lo, n, t)
        gap = log_tail - target
        if gap == 0.0:
            return t
        if (gap < 0.0) == increasing:
            low = t
        else:
            high = t
        step = -gap / slope if slope != 0.0 else math.nan
        if abs(step) <= _LIMIT_LAST_STEP:
            return t * math.exp(step)
        new = t * math.exp(step) if step < 30.0 else math.nan
        if not low < new < high:
            new = math.sqrt(low) * math.sqrt(high) if low > 0.0 else high / 16.0
        t = new
    return t
