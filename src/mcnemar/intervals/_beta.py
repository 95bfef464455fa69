r"""The Beta distribution for huge parameters, from deviations: its CDF, log density and
quantile, accurate where both parameters are from 10**8 to 2**52.

The melded (Fay & Lumbard) difference interval integrates over two Beta variables whose
parameters are the counts of the table. With counts near 10**15 the general-purpose
``scipy.special.betainc`` is slow near the centre of the distribution (milliseconds a call)
and, where the two parameters are equal, wrong (``betainc(a, a, 0.499999999)`` is 0.5 for
a = 1.5e15, where the CDF is 0.456); ``betaincinv`` inherits the error. Even the log density
``(a - 1) log t + (b - 1) log(1 - t) - log B(a, b)`` loses ~0.1 in absolute terms there:
each of its terms is ~1e15.

Every function here takes the point as its *deviation* from a centre of the distribution
(``u`` from the mean a/(a + b), ``h`` from the mode), which a caller can form without
cancellation, and writes the exponent with :func:`log1pmx`, so that no digit is lost to
terms of size a.

* :func:`beta_cdf`: Temme's uniform asymptotic expansion (DLMF 8.18.9 with its leading
  coefficient, 8.18.10-8.18.12):

  .. math::

     I_{x_0 + u}(a, b) = \Phi(z) + \varphi(z)\Big(\frac{1}{z} - \frac{1}{w}\Big)
         + O\big(\min(a, b)^{-3/2}\big),

  with :math:`x_0 = a/(a + b)`, :math:`s = \sqrt{x_0(1 - x_0)}`, the standardized
  deviation :math:`w = u\sqrt{a + b}/s` and the signed root of the deviance,
  :math:`z = \operatorname{sign}(u)\sqrt{2E}`,
  :math:`E = a\,g(u/x_0) + b\,g(-u/(1 - x_0))`, :math:`g(v) = v - \log(1 + v)`
  (:math:`z = \eta\sqrt{a + b}` in DLMF's notation; the correction term is
  :math:`\varphi(z) c_0(\eta)/\sqrt{a + b}`). Near :math:`u = 0` the difference
  :math:`1/z - 1/w` is taken from its Taylor series,
  :math:`c_0 = (1 - 2x_0)/(3s) - (1 - s^2)\,\epsilon/(12 s^2) + O(\epsilon^2)`,
  :math:`\epsilon = u/s`. For min(a, b) >= :data:`HUGE` the omitted terms are below 1e-14
  (the tests check against mpmath).
* :func:`beta_log_pdf`: the log density of Beta(A + 1, B + 1) at mode + h,
  :math:`\log f(c) - A\,g(h/c) - B\,g(-h/(1 - c))` with :math:`c = A/(A + B)`, where the
  density at the mode is Loader's (2000) saddle-point binomial probability,
  :math:`f(c) = (R + 1)\Pr\{\mathrm{Bin}(R, c) = A\}
  = (R + 1)\,e^{\delta(R) - \delta(A) - \delta(B)}\sqrt{R/(2\pi A B)}` (R = A + B,
  :math:`\delta` the Stirling error): no term larger than the result.
* :func:`beta_quantile`: Newton's method on :func:`beta_cdf` from the normal quantile.

The melded interval takes the range, probabilities and quantiles of its Beta variables from
:func:`beta_range`, :func:`b_survival`, :func:`cdf_from_mode`, :func:`beta_ppf` and
:func:`one_minus_twice_quantile`: these functions where both parameters are huge, scipy's
elsewhere.

References
----------
Temme NM (1996). *Special Functions: An Introduction to the Classical Functions of
Mathematical Physics*, section 11.3.3. Wiley. NIST Digital Library of Mathematical
Functions, 8.18(ii) (https://dlmf.nist.gov/8.18).
Loader C (2000). Fast and accurate computation of binomial probabilities. Technical report,
Bell Labs.
"""

from __future__ import annotations

import math
from typing import Any, Final, NamedTuple

import numpy as np
from numpy.typing import NDArray

from mcnemar import _routes as routes
from mcnemar._binomial import _ARRAYS as _BINOMIAL_ARRAYS
from mcnemar._binomial import _FLOATS as _BINOMIAL_FLOATS
from mcnemar._binomial import _stirlerr_of
from mcnemar._routes import Real
from mcnemar.intervals._result import FloatArray

#: Both parameters at least this large: :func:`beta_cdf` is accurate to ~1e-14 absolute (the
#: omitted terms, O(min(a, b)**-1.5) at most, measured below 2e-15 here and 8e-13 at 1e6).
#: Below it scipy's betainc is fast and accurate; above ~1e9 it takes 50 us to milliseconds
#: near the mean.
HUGE: Final = 1e8

_SQRT_2PI: Final = math.sqrt(2.0 * math.pi)
#: |v| up to this: g(v) from the series in w = v/(2 + v) (|w| <= 1/7, 12 terms reach
#: w**26 < 1e-21); beyond it v - log1p(v) loses at most ~2 eps/|v| relative.
_SERIES_BELOW: Final = 0.25
_SERIES_TERMS: Final = 12
#: |z| below this: 1/z - 1/w from its Taylor series (the direct difference would lose
#: ~eps/|z| absolute).
_TAYLOR_BELOW: Final = 0.1


def log1pmx(v: FloatArray) -> FloatArray:
    r"""g(v) = v - log(1 + v) for v >= -1, accurate to a few ulps relative for any v.

    Near 0, with :math:`w = v/(2 + v)` (so that :math:`\log(1 + v) = 2\,\mathrm{atanh}\,w`
    and :math:`v - 2w = vw`): :math:`g(v) = vw - 2\sum_{k\ge1} w^{2k+1}/(2k + 1)`, no
    cancellation (the series of Loader's deviance term); elsewhere the direct difference.
    g(-1) is inf.
    """
    v = np.asarray(v, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        direct = v - np.log1p(v)
        w = v / (2.0 + v)
    w2 = w * w
    series = np.zeros_like(v)
    for k in range(_SERIES_TERMS, 0, -1):
        series = w2 * (1.0 / (2 * k + 1) + series)
    small = v * w - 2.0 * w * series
    out: FloatArray = np.where(np.abs(v) <= _SERIES_BELOW, small, direct)
    return out


def beta_cdf(a: FloatArray, b: FloatArray, u: FloatArray) -> FloatArray:
    r""":math:`I_{x_0 + u}(a, b)`, the Beta(a, b) CDF at the point u from its mean
    :math:`x_0 = a/(a + b)` (see the module docstring); for min(a, b) >= :data:`HUGE`.

    ``u`` is clipped to :math:`[-x_0, 1 - x_0]`. Accurate in absolute terms to ~1e-14.
    """
    from scipy import special
    a, b, u = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (a, b, u)))
    r = a + b
    p = a / r
    q = b / r
    u = np.clip(u, -p, q)
    s = np.sqrt(p * q)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        deviance = a * log1pmx(u / p) + b * log1pmx(-u / q)
        z = np.copysign(np.sqrt(2.0 * np.maximum(deviance, 0.0)), u)
        eps = u / s
        root_r = np.sqrt(r)
        direct = 1.0 / z - 1.0 / (eps * root_r)
        taylor = ((q - p) / (3.0 * s) - (1.0 - s * s) * eps / (12.0 * s * s)) / root_r
        correction = np.where(np.abs(z) < _TAYLOR_BELOW, taylor, direct)
        density = np.exp(-deviance) / _SQRT_2PI
        out = special.ndtr(z) + np.where(density > 0.0, density * correction, 0.0)
    result: FloatArray = np.clip(out, 0.0, 1.0)
    return result


def beta_log_mode_density(big_a: FloatArray, big_b: FloatArray) -> FloatArray:
    r"""log f(c) of Beta(A + 1, B + 1) at its mode c = A/(A + B), for A, B >= 0.

    Both >= 1: :math:`\log(R + 1) + \delta(R) - \delta(A) - \delta(B) + \tfrac12\log(R/(2\pi
    AB))` (Loader's binomial probability at its mean, times R + 1); one of them 0: the
    density at the end, :math:`\log(R + 1)`. A few parameters (those of one table's search)
    on Python floats, more on arrays: the same values (:func:`_log_mode_of`).
    """
    big_a, big_b = np.broadcast_arrays(np.asarray(big_a, np.float64),
                                       np.asarray(big_b, np.float64))
    cells = (np.ravel(big_a), np.ravel(big_b))
    (out,) = routes.by_table(_log_mode_of, cells, {}, few=_FEW,
                             routes=(_BINOMIAL_FLOATS, _BINOMIAL_ARRAYS))
    return out.reshape(big_a.shape)


def _log_mode_of(xp: Any, big_a: Any, big_b: Any) -> tuple[Any]:
    """:func:`beta_log_mode_density` on either route (the binomial module's, for the Stirling
    error)."""
    inner = (big_a >= 1.0) & (big_b >= 1.0)
    ai = xp.where(inner, big_a, 1.0)
    bi = xp.where(inner, big_b, 1.0)
    ri = ai + bi
    at_mode = (xp.log1p(ri) + _stirlerr_of(xp, ri) - _stirlerr_of(xp, ai) - _stirlerr_of(xp, bi)
               + 0.5 * xp.log(ri / (2.0 * math.pi * ai * bi)))
    return (xp.where(inner, at_mode, xp.log1p(big_a + big_b)),)


def beta_log_pdf(
    big_a: FloatArray, big_b: FloatArray, log_mode: FloatArray, h: FloatArray
) -> FloatArray:
    r"""log f(c + h) of Beta(A + 1, B + 1), c = A/(A + B) its mode, given ``log_mode`` =
    :func:`beta_log_mode_density` (A, B).

    :math:`\log f(c) - A\,g(h/c) - B\,g(-h/(1 - c))` (the terms linear in h cancel since
    A/c = B/(1 - c) = A + B); with B = 0 (c = 1) it is :math:`\log f(1) + A\log(1 + h)`,
    with A = 0 (c = 0) :math:`\log f(0) + B\log(1 - h)`. -inf outside [0, 1].
    """
    big_a, big_b, log_mode, h = np.broadcast_arrays(
        *(np.asarray(v, np.float64) for v in (big_a, big_b, log_mode, h))
    )
    r = big_a + big_b
    c = big_a / r
    c_rest = big_b / r
    with np.errstate(divide="ignore", invalid="ignore"):
        inner = log_mode - big_a * log1pmx(h / c) - big_b * log1pmx(-h / c_rest)
        at_one = log_mode + big_a * np.log1p(h)
        at_zero = log_mode + big_b * np.log1p(-h)
    out = np.where(big_b == 0.0, at_one, np.where(big_a == 0.0, at_zero, inner))
    outside = (h < -c) | (h > c_rest)
    result: FloatArray = np.where(outside | np.isnan(out), -np.inf, out)
    return result


#: Newton steps of :func:`beta_quantile`: from the normal quantile (relative error
#: ~min(a, b)**-0.5 in u) the error squares at every step.
_NEWTON_STEPS: Final = 5


def beta_quantile(a: FloatArray, b: FloatArray, prob: FloatArray) -> FloatArray:
    r"""The deviation u from the mean :math:`x_0 = a/(a + b)` with
    :math:`I_{x_0 + u}(a, b) = p`, for min(a, b) >= :data:`HUGE` and 0 < p < 1.

    Newton's method on :func:`beta_cdf`, whose derivative is the density
    (:func:`beta_log_pdf` of Beta(a, b) at its mode plus :math:`u + x_0 - c`,
    :math:`x_0 - c = (b - a)/((a + b)(a + b - 2))`), from the normal quantile
    :math:`u = \Phi^{-1}(p)\sqrt{x_0(1 - x_0)/(a + b + 1)}`.
    """
    from scipy import special
    a, b, prob = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (a, b, prob)))
    r = a + b
    p = a / r
    u = special.ndtri(prob) * np.sqrt(p * (b / r) / (r + 1.0))
    big_a, big_b = a - 1.0, b - 1.0
    log_mode = beta_log_mode_density(big_a, big_b)
    shift = (b - a) / (r * (r - 2.0))
    for _ in range(_NEWTON_STEPS):
        density = np.exp(beta_log_pdf(big_a, big_b, log_mode, u + shift))
        with np.errstate(divide="ignore", invalid="ignore"):
            step = (beta_cdf(a, b, u) - prob) / density
        u = np.where(np.isfinite(step), u - step, u)
    out: FloatArray = u
    return out


# --------------------------------------------------------------------------------------------
# The melded interval's Beta variables: these functions where both parameters are huge,
# scipy's elsewhere.

#: The range of a Beta variable (where each tail holds at most ``tail``), by the shape of its
#: parameters. Both at least _NORMAL_RANGE: its mean -+ _RANGE_SD standard deviations (the
#: skewness is below 2e-3, which moves the 1e-16 quantiles, 8.2 standard deviations out, by
#: less than 0.03 of one; betaincinv takes milliseconds a call at parameters of 1e9). One of
#: them more than _SKEWED times the other: the Gamma(k) quantiles of k/(k + L) times the
#: smaller-side variable, k the smaller parameter and L the larger (betaincinv returns 2**-26
#: for Beta(1000, 1e12) whatever the level), widened by _gamma_margin.
_NORMAL_RANGE: Final = 1e6
_RANGE_SD: Final = 9.0
_SKEWED: Final = 1e4


def _gamma_margin(k: FloatArray, big: FloatArray) -> FloatArray:
    """Relative widening of the Gamma quantiles: Beta(k, L) is G_k/(G_k + G_L), and G_L
    differs from L by ~z/sqrt(L) relative, G_k/L from G_k/(G_k + L) by ~k/L; ten times
    both."""
    out: FloatArray = 10.0 / np.sqrt(big) + 10.0 * k / big
    return out


def beta_range(alpha: FloatArray, beta: FloatArray, tail: float
               ) -> tuple[FloatArray, FloatArray]:
    """The range [lo, hi] of Beta(alpha, beta) as deviations from its mean alpha/(alpha +
    beta), outside which each tail holds at most ~``tail`` (see _NORMAL_RANGE; ``tail`` is
    1e-16 or so, the margins are set for it)."""
    from scipy import special
    total = alpha + beta
    mean, rest = alpha / total, beta / total
    lo, hi = np.empty_like(mean), np.empty_like(mean)
    small, large = np.minimum(alpha, beta), np.maximum(alpha, beta)
    normal = small >= _NORMAL_RANGE
    skewed = ~normal & (large > _SKEWED * small)
    usual = ~normal & ~skewed
    if normal.any():
        a, b, t = alpha[normal], beta[normal], total[normal]
        sd = np.sqrt(a * b / (t * t * (t + 1.0)))
        lo[normal] = -_RANGE_SD * sd
        hi[normal] = _RANGE_SD * sd
    if skewed.any():
        k, big, t = small[skewed], large[skewed], total[skewed]
        widen = _gamma_margin(k, big)
        # deviations of the smaller-side variable (B where alpha is the smaller, else 1 - B)
        low = special.gammaincinv(k, tail) / t * (1.0 - widen) - k / t
        high = special.gammainccinv(k, tail) / t * (1.0 + widen) - k / t
        first = alpha[skewed] <= beta[skewed]
        lo[skewed] = np.where(first, low, -high)
        hi[skewed] = np.where(first, high, -low)
    if usual.any():
        a, b = alpha[usual], beta[usual]
        lo[usual] = special.betaincinv(a, b, tail) - mean[usual]
        hi[usual] = rest[usual] - special.betaincinv(b, a, tail)
    return np.maximum(lo, -mean), np.minimum(hi, rest)


def b_survival(delta: FloatArray, t: FloatArray, x: FloatArray, m: FloatArray) -> FloatArray:
    """P(B >= 1/2 + delta/(2t)) for B ~ Beta(x + 1, m - x), rows (x, m) by nodes t.

    That is I_y(m - x, x + 1) at y = 1/2 - delta/(2t); with both parameters at least
    :data:`HUGE` it is :func:`beta_cdf` at y's deviation from the mean (m - x)/(m + 1),
    (2x + 1 - m)/(2(m + 1)) - delta/(2t), whose two terms are each exact to a rounding (y
    itself would carry an error of 1e-16, a few 1e-9 standard deviations of B for m = 1e15).
    """
    from scipy import special
    a, b = (m - x)[:, None], (x + 1.0)[:, None]
    out = np.empty(t.shape)
    huge = np.minimum(m - x, x + 1.0) >= HUGE
    if huge.any():
        centre = ((x - (m - x) + 1.0) / (2.0 * (m + 1.0)))[huge, None]
        out[huge] = beta_cdf(a[huge], b[huge], centre - delta[huge, None] / (2.0 * t[huge]))
    rest = ~huge
    if rest.any():
        tr, dr = t[rest], delta[rest, None]
        out[rest] = special.betainc(a[rest], b[rest], np.clip((tr - dr) / (2.0 * tr), 0, 1))
    return out


def cdf_from_mode(alpha: FloatArray, beta: FloatArray, mode: FloatArray,
                  mean_offset: FloatArray, h: FloatArray) -> FloatArray:
    """P(T <= c + h) for T ~ Beta(alpha, beta) with mode c and mean c + ``mean_offset``:
    :func:`beta_cdf` at the deviation h - mean_offset from the mean where both parameters
    are huge, else betainc."""
    from scipy import special
    out = np.empty(h.shape)
    huge = np.minimum(alpha, beta) >= HUGE
    if huge.any():
        out[huge] = beta_cdf(alpha[huge], beta[huge], h[huge] - mean_offset[huge])
    rest = ~huge
    if rest.any():
        out[rest] = special.betainc(alpha[rest], beta[rest],
                                    np.clip(mode[rest] + h[rest], 0.0, 1.0))
    return out


def beta_ppf(a: FloatArray, b: FloatArray, prob: FloatArray, huge: NDArray[np.bool_]
             ) -> FloatArray:
    """The ``prob`` quantile of Beta(a, b): :func:`beta_quantile` for huge tables with both
    parameters huge (scipy's betaincinv is off by 0.2% of the distance from the mean for
    a = b = 1.5e15), else betaincinv."""
    from scipy import special
    out = np.empty(a.shape)
    big = huge & (np.minimum(a, b) >= HUGE)
    if big.any():
        ab, bb = a[big], b[big]
        out[big] = ab / (ab + bb) + beta_quantile(ab, bb, prob[big])
    if (~big).any():
        out[~big] = special.betaincinv(a[~big], b[~big], prob[~big])
    return out


def one_minus_twice_quantile(x: FloatArray, m: FloatArray, alpha: FloatArray,
                             huge: NDArray[np.bool_]) -> FloatArray:
    """1 - 2 q for q the alpha quantile of Beta(m - x, x + 1): for huge tables with both
    parameters huge from the quantile's deviation u from the mean (m - x)/(m + 1), as
    (2x + 1 - m)/(m + 1) - 2u, which keeps the digits 1 - 2q would cancel."""
    from scipy import special
    out = np.empty(x.shape)
    big = huge & (np.minimum(m - x, x + 1.0) >= HUGE)
    if big.any():
        xb, mb = x[big], m[big]
        u = beta_quantile(mb - xb, xb + 1.0, alpha[big])
        out[big] = (xb - (mb - xb) + 1.0) / (mb + 1.0) - 2.0 * u
    rest = ~big
    if rest.any():
        xr, mr = x[rest], m[rest]
        out[rest] = 1.0 - 2.0 * special.betaincinv(mr - xr, xr + 1.0, alpha[rest])
    return out


def melded_start_and_spread(
    x: FloatArray, m: FloatArray, n: FloatArray, z_alpha: FloatArray, pos: NDArray[np.bool_]
) -> tuple[FloatArray, FloatArray]:
    """The Cornish-Fisher estimate of the melded upper limit (the 1 - alpha quantile of
    Y = T(2B - 1) from its first four moments) from z_alpha = Phi^-1(alpha), and the standard
    deviation of Y (T and B independent Beta variables, of the side of 0 the limit lies on).

    T ~ Beta(t_a, N + 1 - t_a) has the moments prod_{j < k} (t_a + j)/(N + 1 + j); those of
    E = 2B - 1, B ~ Beta(p, q), follow E[E^(k+1)] = ((p - q) E[E^k] + k E[E^(k-1)])/(p + q + k),
    free of the cancellation of the binomial sums of B's moments (E is near 0 when B is near
    1/2). Up to _FEW problems on Python floats (numpy's cost per call is nearly all of the
    time on a few), each problem by the same formula (:func:`_cornish_fisher`).
    """
    start, spread = routes.by_table(_cornish_fisher, (x, m, n, z_alpha, pos), {}, few=_FEW)
    return start, spread


# Up to this many problems (those of one table's melded search) :func:`melded_start_and_spread`
# and :func:`beta_log_mode_density` take Python floats.
_FEW: Final = 16


def _cornish_fisher(xp: routes.Ops, x: Real, m: Real, n: Real, z_alpha: Real, pos: Any
                    ) -> tuple[Any, Any]:
    """:func:`melded_start_and_spread` of one problem (floats) or many (arrays)."""
    t_a, t_n = m + pos, n + 1.0
    # T's moments E[T^k] = E[T^(k-1)] (t_a + k - 1)/(t_n + k - 1)
    t1 = (t_a + 0.0) / (t_n + 0.0)
    t2 = t1 * ((t_a + 1.0) / (t_n + 1.0))
    t3 = t2 * ((t_a + 2.0) / (t_n + 2.0))
    t4 = t3 * ((t_a + 3.0) / (t_n + 3.0))
    gap, s = (x - m) + (x + 1.0), m + 1.0
    e1 = gap / s
    e2 = (gap * e1 + 1.0) / (s + 1.0)
    e3 = (gap * e2 + 2.0 * e1) / (s + 2.0)
    e4 = (gap * e3 + 3.0 * e2) / (s + 3.0)
    y1, y2, y3, y4 = t1 * e1, t2 * e2, t3 * e3, t4 * e4
    mean2 = y1 * y1
    var = xp.maximum(y2 - mean2, 0.0)
    sd = xp.sqrt(var)
    # the standardized third and fourth central moments
    skew = xp.divide(y3 - y1 * (3.0 * y2 - 2.0 * mean2), sd * var)
    kurt = xp.divide(y4 - y1 * (4.0 * y3 - y1 * (6.0 * y2 - 3.0 * mean2)), var * var) - 3.0
    z = -z_alpha
    z2 = z * z
    w = (z + (z2 - 1.0) * skew / 6.0 + (z2 - 3.0) * z * kurt / 24.0
         - (2.0 * z2 - 5.0) * z * skew * skew / 36.0)
    return y1 + sd * w, sd


def melded_probe(
    x: FloatArray, m: FloatArray, n: FloatArray, alpha: FloatArray, side: FloatArray
) -> FloatArray:
    """A point a little beyond the melded upper limit U on its side of 0 (side 1: U > 0,
    side -1: U < 0, per problem).

    Bonett and Price's upper limit with x for b and m - x for c, moved away from 0 by a tenth
    of itself and a quarter of its standard error; only a starting point (the root is
    bracketed on whichever side of it the melded tail says), kept strictly inside (-1, 1).
    """
    from scipy import special
    n2 = n + 2.0
    p12 = (x + 1.0) / n2
    p21 = (m - x + 1.0) / n2
    se = np.sqrt(np.maximum(p12 + p21 - (p12 - p21) ** 2, 0.0) / n2)
    guess = p12 - p21 + special.ndtri(1.0 - alpha) * se
    probe = np.where(
        side > 0,
        np.maximum(guess, 0.0) + 0.1 * np.abs(guess) + 0.25 * se,
        np.minimum(guess, 0.0) - 0.1 * np.abs(guess) - 0.25 * se,
    )
    out: FloatArray = np.clip(probe, -1.0 + _PROBE_EDGE, 1.0 - _PROBE_EDGE)
    out = np.where(out == 0.0, side * _PROBE_EDGE, out)
    return out


# The probe stays this far inside (-1, 1).
_PROBE_EDGE = 2.0**-30


class HugeTail(NamedTuple):
    """What the melded tail of huge tables (:func:`mcnemar.intervals._melded._melded_tail_huge`)
    needs of each problem, apart from delta.

    T ~ Beta(A + 1, B + 1): A, B, its mode c, the log density there, the offset of its mean
    from the mode, and its range as deviations [h_lo, h_hi] from the mode; the range
    [e_lo, e_hi] of 2B - 1 for B ~ Beta(x + 1, m - x).
    """

    big_a: FloatArray
    big_b: FloatArray
    mode: FloatArray
    log_mode: FloatArray
    mean_offset: FloatArray
    h_lo: FloatArray
    h_hi: FloatArray
    e_lo: FloatArray
    e_hi: FloatArray

    @classmethod
    def of(cls, x: FloatArray, m: FloatArray, t_alpha: FloatArray, t_beta: FloatArray,
           tail: float) -> HugeTail:
        """The fields for the problems (x, m) and T ~ Beta(t_alpha, t_beta), ranges to
        ``tail`` on each side."""
        big_a, big_b = t_alpha - 1.0, t_beta - 1.0
        r = big_a + big_b
        mode = big_a / r
        total = t_alpha + t_beta
        # mean - mode = (t_beta - t_alpha)/(total (total - 2)), without cancellation
        mean_offset = (t_beta - t_alpha) / (total * (total - 2.0))
        lo, hi = beta_range(t_alpha, t_beta, tail)
        h_lo = np.maximum(mean_offset + lo, -mode)
        h_hi = np.minimum(mean_offset + hi, big_b / r)
        # 2B - 1 around its mean 2(x + 1)/(m + 1) - 1 = (x - (m - x) + 1)/(m + 1)
        b_lo, b_hi = beta_range(x + 1.0, m - x, tail)
        centre = (x - (m - x) + 1.0) / (m + 1.0)
        return cls(big_a, big_b, mode, beta_log_mode_density(big_a, big_b), mean_offset,
                   h_lo, h_hi, centre + 2.0 * b_lo, centre + 2.0 * b_hi)

    def take(self, idx: NDArray[np.intp] | slice) -> HugeTail:
        """The fields of the problems ``idx``."""
        return HugeTail(*(field[idx] for field in self))
