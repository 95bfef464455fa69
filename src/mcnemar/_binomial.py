"""Exact tails of the symmetric binomial distribution Bin(n, 1/2), accurate for any n.

McNemar's exact conditional test refers the smaller discordant count to X ~ Bin(D, 1/2), so
everything here is specialised to p = 1/2. All functions are vectorized over ``k`` and ``n``
(float64 arrays holding integers, exact up to 2**53) and never sum the distribution term by term.

Two routes give the lower tail L(k) = P(X <= k) for k < n/2:

* **moderate n** (n <= ``FAST_N``): the regularized incomplete beta function,
  L(k) = I_{1/2}(n - k, k + 1) (``scipy.special.betainc``), which is accurate to a few 1e-14
  relative there;
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

References
----------
C. Loader (2000), "Fast and accurate computation of binomial probabilities" (the algorithm
behind R's ``dbinom``). M. Abramowitz & I. Stegun (1964), 26.5.24 (binomial tail as an
incomplete beta function).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

__all__ = [
    "FAST_N",
    "log_lower_tail_half",
    "log_midp_tail_half",
    "log_pmf_half",
    "lower_tail_half",
    "pmf_half",
]

#: Largest n for which the incomplete beta route is used (measured against mpmath: its relative
#: error stays below 1e-13 up to here).
FAST_N = 10_000.0
#: Below this tail probability the fast route switches to the log-space route.
_TINY = 1e-280
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
    checked against mpmath in the tests).
    """
    n = np.asarray(n, dtype=np.float64)
    # the series everywhere (cheap; n > 15 as given), then the few n <= 15 replaced
    big = np.maximum(n, 15.0)
    r = 1.0 / (big * big)
    series = 1.0 / 12.0 - r * (
        1.0 / 360.0
        - r
        * (
            1.0 / 1260.0
            - r * (1.0 / 1680.0 - r * (1.0 / 1188.0 - r * (691.0 / 360360.0 - r / 156.0)))
        )
    )
    out: FloatArray = np.asarray(series / big, dtype=np.float64)
    small = n <= 15.0
    if np.any(small):
        ns = n[small]
        whole = (ns >= 1.0) & (ns == np.floor(ns))
        with np.errstate(divide="ignore", invalid="ignore"):
            by_gamma = special.gammaln(ns + 1.0) - (ns + 0.5) * np.log(ns) + ns - _HALF_LOG_2PI
        out[small] = np.where(
            whole, _STIRLERR_TABLE[np.where(whole, ns, 0.0).astype(np.intp)], by_gamma
        )
    return out


def _bd0(x: FloatArray, mean: FloatArray) -> FloatArray:
    """Deviance term x log(x/mean) + mean - x, computed without cancellation (Loader 2000).

    Where |x - mean| < 0.1 (x + mean) the series (x - mean) v + sum_{j>=1} 2x v^(2j+1)/(2j+1),
    v = (x - mean)/(x + mean), is summed until v^(2j) falls below 1e-17 (at most 9 terms, as
    |v| < 0.1); elsewhere the direct formula has no cancellation. x = 0 gives ``mean``.
    """
    x, mean = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(mean, np.float64))
    diff = x - mean
    close = np.abs(diff) < 0.1 * (x + mean)
    with np.errstate(divide="ignore", invalid="ignore"):
        out: FloatArray = np.where(x > 0, x * np.log(x / mean), 0.0) + mean - x
        v = np.where(close, diff / (x + mean), 0.0)
    if np.any(close):
        v2 = v * v
        term = 2.0 * x * v
        total = diff * v
        # term j is v^(2j) of the first one: stop once that is below 1e-17 (v2 < 0.01)
        largest = float(v2.max())
        terms = 1 if largest <= 0.0 else min(9, max(1, math.ceil(-17.0 / math.log10(largest))))
        for j in range(1, terms + 1):
            term = term * v2
            total = total + term / (2 * j + 1)
        out = np.where(close, total, out)
    return out


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
    if np.any(inner):
        ki, ni = kk[inner], nn[inner]
        mi = ni - ki
        half = ni / 2.0
        out[inner] = (
            _stirlerr(ni)
            - _stirlerr(ki)
            - _stirlerr(mi)
            - _bd0(ki, half)
            - _bd0(mi, half)
            - 0.5 * np.log(2.0 * np.pi * ki * (mi / ni))
        )
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
        ks, ns = k[slow], n[slow]
        # ratio R = L(k) / Pr(X = k) >= 1; M(k) / Pr(X = k) = R - 1/2.
        ratio = (ns - ks) * np.exp(_log_j(ks, ns))
        if mid:
            ratio = ratio - 0.5
        out[slow] = log_pmf_half(ks, ns) + np.log(ratio)
    return out


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
