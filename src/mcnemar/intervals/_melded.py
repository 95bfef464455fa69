"""Fay & Lumbard's (2021) melded interval for the difference in accuracy, the ``"exact"``
method of :func:`~mcnemar.intervals.difference_interval`: its upper limit U solves
P{T(2B - 1) >= U} = alpha (the lower limit is the mirror image, :func:`_melded_upper` for
both), one Gauss-Legendre integral over T per evaluation of the tail.

Below 1e9 items the tail is :func:`_melded_tail` and its root is found by Newton's method
(:class:`_MeldedSearch`, :func:`_melded_newton`) up to 1e5 discordant items, by bracketing
beyond; from 1e9 items on the tail is :func:`_melded_tail_huge`, which integrates only where
P(B >= .) moves and takes the Beta probabilities of huge parameters from
:mod:`mcnemar.intervals._beta`.

References
----------
Fay MP, Lumbard K (2021). Confidence intervals for difference in proportions for matched
pairs compatible with exact McNemar's or sign tests. Statistics in Medicine 40:1147-1159.
"""

from __future__ import annotations

import math
from typing import Final, NamedTuple

import numpy as np
from numpy.typing import NDArray

from mcnemar._binomial import lower_tail_half
from mcnemar.intervals._beta import (
    HUGE,
    beta_cdf,
    beta_log_mode_density,
    beta_log_pdf,
    beta_quantile,
)
from mcnemar.intervals._result import FloatArray
from mcnemar.intervals._roots import _ROOT_ATOL, _find_root, _normal_score_gap

# Fay & Lumbard's melded interval needs one integral per evaluation; Gauss-Legendre on the
# central (1 - 2e-16) range of the Beta variable is accurate to ~1e-13 here (checked against
# mpmath in the tests) because both factors of the integrand are smooth on that range.
_GL_X, _GL_W = np.polynomial.legendre.leggauss(64)
_TAIL = 1e-16
_CHUNK = 2048
_SQRT_2PI: Final = math.sqrt(2.0 * math.pi)


def _beta_log_pdf(
    t: FloatArray, alpha: FloatArray, beta: FloatArray, log_norm: FloatArray
) -> FloatArray:
    from scipy import special
    return np.asarray(
        special.xlogy(alpha - 1.0, t) + special.xlog1py(beta - 1.0, -t) - log_norm,
        dtype=np.float64,
    )


def _melded_tail(
    delta: FloatArray,
    x: FloatArray,
    m: FloatArray,
    t_alpha: FloatArray,
    t_beta: FloatArray,
    t_lo: FloatArray,
    t_hi: FloatArray,
) -> FloatArray:
    """P(T (2 B - 1) >= delta) with B ~ Beta(x + 1, m - x) and T ~ Beta(t_alpha, t_beta).

    The integrand is P(B >= 1/2 + delta/(2t)) f_T(t); for t <= |delta| it is 0 (delta > 0) or
    f_T(t) (delta < 0), so only t > |delta| is integrated numerically.
    """
    from scipy import special
    out = np.empty_like(delta)
    log_norm = special.betaln(t_alpha, t_beta)
    for start in range(0, delta.size, _CHUNK):
        s = slice(start, start + _CHUNK)
        dl, xs, ms = delta[s], x[s], m[s]
        lo = np.maximum(np.abs(dl), t_lo[s])
        hi = t_hi[s]
        half = np.maximum(hi - lo, 0.0)[:, None] / 2.0
        t = lo[:, None] + half * (_GL_X[None, :] + 1.0)
        # P(B >= q) = I_{1-q}(m - x, x + 1) with 1 - q = (t - delta)/(2t), computed directly.
        upper_b = special.betainc(
            (ms - xs)[:, None], (xs + 1.0)[:, None], np.clip((t - dl[:, None]) / (2.0 * t), 0, 1)
        )
        density = np.exp(
            _beta_log_pdf(t, t_alpha[s][:, None], t_beta[s][:, None], log_norm[s][:, None])
        )
        # A row sum, not a matrix product: BLAS sums a row in an order that depends on how
        # many rows there are, and a table's limits must not depend on the other tables.
        integral = (half[:, 0]) * (upper_b * density * _GL_W).sum(axis=1)
        below = np.where(dl < 0, special.betainc(t_alpha[s], t_beta[s], np.abs(dl)), 0.0)
        out[s] = below + integral
    return out


# Tables of at least this many items take the route of :func:`_melded_tail_huge` (below it
# the melded limits are those of :func:`_melded_tail`, unchanged).
_HUGE_N: Final = 1e9
# The range of a Beta variable (where each tail holds at most ~_TAIL), by the shape of its
# parameters. Both at least _NORMAL_RANGE: its mean -+ _RANGE_SD standard deviations (the
# skewness is below 2e-3, which moves the 1e-16 quantiles, 8.2 standard deviations out, by
# less than 0.03 of one; betaincinv takes milliseconds a call at parameters of 1e9). One of
# them more than _SKEWED times the other: the Gamma(k) quantiles of k/(k + L) times the
# smaller-side variable, k the smaller parameter and L the larger (betaincinv returns 2**-26
# for Beta(1000, 1e12) whatever the level), widened by _gamma_margin.
_NORMAL_RANGE: Final = 1e6
_RANGE_SD: Final = 9.0
_SKEWED: Final = 1e4


def _gamma_margin(k: FloatArray, big: FloatArray) -> FloatArray:
    """Relative widening of the Gamma quantiles: Beta(k, L) is G_k/(G_k + G_L), and G_L
    differs from L by ~z/sqrt(L) relative, G_k/L from G_k/(G_k + L) by ~k/L; ten times
    both."""
    out: FloatArray = 10.0 / np.sqrt(big) + 10.0 * k / big
    return out


def _beta_range(alpha: FloatArray, beta: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The range [lo, hi] of Beta(alpha, beta) as deviations from its mean alpha/(alpha +
    beta), outside which each tail holds at most ~_TAIL (see _NORMAL_RANGE)."""
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
        low = special.gammaincinv(k, _TAIL) / t * (1.0 - widen) - k / t
        high = special.gammainccinv(k, _TAIL) / t * (1.0 + widen) - k / t
        first = alpha[skewed] <= beta[skewed]
        lo[skewed] = np.where(first, low, -high)
        hi[skewed] = np.where(first, high, -low)
    if usual.any():
        a, b = alpha[usual], beta[usual]
        lo[usual] = special.betaincinv(a, b, _TAIL) - mean[usual]
        hi[usual] = rest[usual] - special.betaincinv(b, a, _TAIL)
    return np.maximum(lo, -mean), np.minimum(hi, rest)


class _HugeTail(NamedTuple):
    """What :func:`_melded_tail_huge` needs of each problem, apart from delta.

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
    def of(cls, x: FloatArray, m: FloatArray, t_alpha: FloatArray, t_beta: FloatArray
           ) -> _HugeTail:
        big_a, big_b = t_alpha - 1.0, t_beta - 1.0
        r = big_a + big_b
        mode = big_a / r
        total = t_alpha + t_beta
        # mean - mode = (t_beta - t_alpha)/(total (total - 2)), without cancellation
        mean_offset = (t_beta - t_alpha) / (total * (total - 2.0))
        lo, hi = _beta_range(t_alpha, t_beta)
        h_lo = np.maximum(mean_offset + lo, -mode)
        h_hi = np.minimum(mean_offset + hi, big_b / r)
        # 2B - 1 around its mean 2(x + 1)/(m + 1) - 1 = (x - (m - x) + 1)/(m + 1)
        b_lo, b_hi = _beta_range(x + 1.0, m - x)
        centre = (x - (m - x) + 1.0) / (m + 1.0)
        return cls(big_a, big_b, mode, beta_log_mode_density(big_a, big_b), mean_offset,
                   h_lo, h_hi, centre + 2.0 * b_lo, centre + 2.0 * b_hi)

    def take(self, idx: NDArray[np.intp] | slice) -> _HugeTail:
        return _HugeTail(*(field[idx] for field in self))


def _beta_upper_b(
    delta: FloatArray, t: FloatArray, x: FloatArray, m: FloatArray
) -> FloatArray:
    """P(B >= 1/2 + delta/(2t)) for B ~ Beta(x + 1, m - x), rows (x, m) by nodes t.

    That is I_y(m - x, x + 1) at y = 1/2 - delta/(2t); with both parameters at least
    :data:`~mcnemar.intervals._beta.HUGE` it is :func:`beta_cdf` at y's deviation from the mean
    (m - x)/(m + 1), (2x + 1 - m)/(2(m + 1)) - delta/(2t), whose two terms are each exact to
    a rounding (y itself would carry an error of 1e-16, a few 1e-9 standard deviations of B
    for m = 1e15).
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


def _t_cdf(
    t_alpha: FloatArray, t_beta: FloatArray, tail: _HugeTail, h: FloatArray
) -> FloatArray:
    """P(T <= c + h) for T ~ Beta(t_alpha, t_beta) with mode c: :func:`beta_cdf` at the
    deviation h + (c - mean) where both parameters are huge, else betainc."""
    from scipy import special
    out = np.empty(h.shape)
    huge = np.minimum(t_alpha, t_beta) >= HUGE
    if huge.any():
        out[huge] = beta_cdf(t_alpha[huge], t_beta[huge], h[huge] - tail.mean_offset[huge])
    rest = ~huge
    if rest.any():
        out[rest] = special.betainc(t_alpha[rest], t_beta[rest],
                                    np.clip(tail.mode[rest] + h[rest], 0.0, 1.0))
    return out


def _melded_tail_huge(
    delta: FloatArray,
    x: FloatArray,
    m: FloatArray,
    t_alpha: FloatArray,
    t_beta: FloatArray,
    tail: _HugeTail,
) -> FloatArray:
    r""":func:`_melded_tail` for tables of :data:`_HUGE_N` items or more.

    Given T = t the probability is S(t) = P(E >= delta/t), E = 2B - 1, which is 0 (to
    _TAIL) where delta/t >= e_hi and 1 where delta/t <= e_lo, with [e_lo, e_hi] the range of
    E. So only the t between the two ends of its transition (t_a = delta/e_hi and
    t_b = delta/e_lo for delta >= 0, the other way round below 0, infinite where the end is
    not crossed) are integrated numerically, and the side where S is 1 is T's own
    probability:

    .. math::

        P\{T(2B - 1) \ge \delta\} = P(T \ge t_b) + \int_{t_a}^{t_b} S(t) f_T(t)\,dt
        \quad (\delta \ge 0), \qquad
        P(T \le t_a) + \int_{t_a}^{t_b} S(t) f_T(t)\,dt \quad (\delta < 0).

    With both cells huge this is T's whole range (S changes slowly over it); with one cell
    small and the other huge, S steps from 1 to 0 within a small part of T's range (2e-3 of
    T's standard deviation for b = 1e6, c = 0 and N = 1e12), which a rule over T's whole
    range would miss. T's nodes are placed by their deviation h from T's mode c and its
    density is :func:`beta_log_pdf` (the form ``xlogy(alpha - 1, t) + ... - betaln`` loses
    ~1e-6 of the density for alpha = 1e9 and N = 1e15, all of it for alpha = 1e15); the
    probabilities of B and of T come from :func:`beta_cdf` where both parameters are huge
    (scipy's ``betainc`` is slow there and wrong where they are equal).
    """
    out = np.empty_like(delta)
    for start in range(0, delta.size, _CHUNK):
        s = slice(start, start + _CHUNK)
        dl, tl = delta[s], tail.take(s)
        ta, tb = t_alpha[s], t_beta[s]
        up = dl >= 0
        with np.errstate(divide="ignore", invalid="ignore"):
            near = np.where(up, np.where(tl.e_hi > 0, dl / tl.e_hi, np.inf),
                            np.where(tl.e_lo < 0, dl / tl.e_lo, np.inf))
            far = np.where(up, np.where(tl.e_lo > 0, dl / tl.e_lo, np.inf),
                           np.where(tl.e_hi < 0, dl / tl.e_hi, np.inf))
        # The ends of the transition as deviations from T's mode, inside T's range; the
        # part where S is 1 is cut at the same point as the integral.
        h_a = np.clip(near - tl.mode, tl.h_lo, tl.h_hi)
        h_b = np.clip(far - tl.mode, h_a, tl.h_hi)
        ones = np.zeros_like(dl)
        # delta >= 0: P(T >= t_b), nothing where t_b is beyond T's range; delta < 0:
        # P(T <= t_a), 1 where t_a is beyond T's range, nothing where it is below it.
        cut = np.where(up, h_b < tl.h_hi, (h_a > tl.h_lo) & (h_a < tl.h_hi))
        ones[~up & (h_a >= tl.h_hi)] = 1.0
        if cut.any():
            cdf = _t_cdf(ta[cut], tb[cut], tl.take(np.flatnonzero(cut)),
                         np.where(up, h_b, h_a)[cut])
            ones[cut] = np.where(up[cut], 1.0 - cdf, cdf)
        half = np.maximum(h_b - h_a, 0.0)[:, None] / 2.0
        h = h_a[:, None] + half * (_GL_X[None, :] + 1.0)
        t = tl.mode[:, None] + h
        upper_b = _beta_upper_b(dl, t, x[s], m[s])
        density = np.exp(beta_log_pdf(tl.big_a[:, None], tl.big_b[:, None],
                                      tl.log_mode[:, None], h))
        integral = half[:, 0] * (upper_b * density * _GL_W).sum(axis=1)
        out[s] = ones + integral
    return out


# Root tolerance of the melded limits: relative, so that limits near 0 (huge N) stay exact.
_EXACT_RTOL: Final = 1e-12


def _melded_probe(
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


def _betainc_half(x: FloatArray, m: FloatArray) -> FloatArray:
    """P(Bin(m, 1/2) <= x) = I_{1/2}(m - x, x + 1), by scipy (x < m)."""
    from scipy import special
    out: FloatArray = special.betainc(m - x, x + 1.0, 0.5)
    return out


def _beta_quantile(
    a: FloatArray, b: FloatArray, prob: FloatArray, huge: NDArray[np.bool_]
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


def _one_minus_twice_quantile(
    x: FloatArray, m: FloatArray, alpha: FloatArray, huge: NDArray[np.bool_]
) -> FloatArray:
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


# Below _HUGE_N items and up to _MOVE_MAX_COUNT discordant items the melded limits are found by
# Newton's method on the normal-score gap of the same quadrature (:func:`_melded_tail`, whose
# value each fresh evaluation reproduces operation for operation), from a Cornish-Fisher
# estimate of the limit; the derivative is that of the quadrature sum itself. After the first
# evaluation of a problem, P(B >= .) at the nodes moves from the values there by the integral
# of B's density over the (small) move, by Gauss-Legendre (_MOVE_RULES) on the density
# relative to its value at the node (from its value at the mode, Loader's form): a few
# exponentials per node instead of an incomplete beta function, within ~1e-16 of it while the
# move stays within _MOVE_REACH of the local scale of that density; else the problem is
# evaluated afresh, as are the problems of fewer than _MOVE_MIN_COUNT discordant items, whose
# incomplete beta functions cost less than a move. Beyond _MOVE_MAX_COUNT discordant items
# betainc's own rounding moves the root by more than the search's tolerance, and the
# bracketing search keeps the limits it has always given (:func:`_melded_bracketed_roots`).
#
# Gauss-Legendre rules by the largest move (relative to the local scale) they take, each
# within ~1e-18 of the move's integral there: (nodes, weights, largest move).
_MOVE_RULES: Final = tuple((*np.polynomial.legendre.leggauss(points), reach)
                           for points, reach in ((2, 1e-3), (4, 0.05), (6, 0.25)))
_MOVE_REACH: Final = _MOVE_RULES[-1][2]
_MOVE_MAX_COUNT: Final = 1e5
_MOVE_MIN_COUNT: Final = 64
# dt/d(delta) of the nodes while the integral starts at |delta|.
_NODE_SPEED = (1.0 - _GL_X) / 2.0
# Newton steps before the bracketing search takes over (two or three are the rule).
_NEWTON_STEPS: Final = 12
# Problems searched together (their nodes stay in the processor's cache).
_NEWTON_GROUP: Final = 256
# A Newton step this small (relative to the limit), or one whose predicted error (from the
# two last steps, quadratic convergence) is below _NEWTON_RTOL, ends the search: the limit is
# then the root of the quadrature to rounding.
_NEWTON_LAST: Final = 1e-14
_NEWTON_RTOL: Final = 1e-16
# ... the estimate being trusted after a step of at most this (relative).
_NEWTON_NEAR: Final = 1e-3


def _melded_start(
    x: FloatArray, m: FloatArray, n: FloatArray, alpha: FloatArray, pos: NDArray[np.bool_]
) -> FloatArray:
    """The Cornish-Fisher estimate of the melded upper limit: the 1 - alpha quantile of
    Y = T(2B - 1) from its first four moments (T and B independent Beta variables, of the
    side of 0 the limit lies on), typically within 1e-4 of the limit (relative)."""
    from scipy import special

    t_a = np.where(pos, m + 1.0, m)
    t_b = np.where(pos, n - m, n - m + 1.0)
    t_moment, b_moment = [np.ones_like(x)], [np.ones_like(x)]
    for k in range(4):
        t_moment.append(t_moment[-1] * (t_a + k) / (t_a + t_b + k))
        b_moment.append(b_moment[-1] * (x + 1.0 + k) / (m + 1.0 + k))
    b1, b2, b3, b4 = b_moment[1:]
    v = (2.0 * b1 - 1.0, 4.0 * b2 - 4.0 * b1 + 1.0,
         8.0 * b3 - 12.0 * b2 + 6.0 * b1 - 1.0,
         16.0 * b4 - 32.0 * b3 + 24.0 * b2 - 8.0 * b1 + 1.0)
    y1, y2, y3, y4 = (t_moment[k + 1] * v[k] for k in range(4))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        var = np.maximum(y2 - y1 * y1, 0.0)
        sd = np.sqrt(var)
        skew = (y3 - 3.0 * y1 * y2 + 2.0 * y1**3) / (sd * var)
        kurt = (y4 - 4.0 * y1 * y3 + 6.0 * y1 * y1 * y2 - 3.0 * y1**4) / (var * var) - 3.0
        z = special.ndtri(1.0 - alpha)
        w = (z + (z * z - 1.0) * skew / 6.0 + (z**3 - 3.0 * z) * kurt / 24.0
             - (2.0 * z**3 - 5.0 * z) * skew * skew / 36.0)
        out: FloatArray = y1 + sd * w
    return out


class _MeldedNodes(NamedTuple):
    """One evaluation of the melded tails of some problems: the start of the integral, the
    points y = (t - delta)/(2t) of its nodes t, P(B >= 1/2 + delta/(2t)) = I_y(m - x, x + 1)
    there, the log density of Beta(m - x, x + 1) at y and the inverse of its local scale
    (:meth:`_MeldedSearch._scale`), and T's density at the nodes."""

    lo: FloatArray
    y: FloatArray
    upper_b: FloatArray
    log_b: FloatArray
    scale: FloatArray
    density: FloatArray


class _MeldedSearch:
    """The melded tail P(T(2B - 1) >= delta) of each problem (below _HUGE_N items) and its
    derivative in delta, evaluated afresh (what :func:`_melded_tail` computes) or moved from
    the problem's last fresh evaluation (see _MOVE_RULES)."""

    def __init__(self, x: FloatArray, m: FloatArray, t_alpha: FloatArray, t_beta: FloatArray,
                 t_lo: FloatArray, t_hi: FloatArray) -> None:
        from scipy import special

        # B's variable is Beta(m - x, x + 1) = Beta(A + 1, B + 1), A + B = m - 1
        self.big_a, self.big_b = m - x - 1.0, x
        self.t_alpha, self.t_beta, self.t_lo, self.t_hi = t_alpha, t_beta, t_lo, t_hi
        self.log_norm = special.betaln(t_alpha, t_beta)
        self.log_norm_b = special.betaln(m - x, x + 1.0)
        size = x.size
        self.has_ref = np.zeros(size, dtype=bool)
        self.movable = (m >= _MOVE_MIN_COUNT) & (m <= _MOVE_MAX_COUNT)
        if self.movable.any():
            # B's mode and log density there, and the evaluations moves start from
            total = np.maximum(m - 1.0, 1.0)
            self.b_mode, self.b_rest = self.big_a / total, self.big_b / total
            self.b_log_mode = beta_log_mode_density(self.big_a, self.big_b)
            self.ref = _MeldedNodes(np.empty(size),
                                    *(np.empty((size, _GL_X.size)) for _ in range(5)))

    def _b_log_density(self, y: FloatArray, i: NDArray[np.intp]) -> FloatArray:
        """log density of Beta(m - x, x + 1) at y (0 < y < 1), directly (for the slope)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            out: FloatArray = (self.big_a[i][:, None] * np.log(y)
                               + self.big_b[i][:, None] * np.log1p(-y)
                               - self.log_norm_b[i][:, None])
        return np.where(np.isnan(out), -np.inf, out)

    def _b_log_density_near_mode(self, y: FloatArray, i: NDArray[np.intp]) -> FloatArray:
        """The same from its value at the mode c (Loader's form) and the deviation h = y - c,
        A log(1 + h/c) + B log(1 - h/(1 - c)): its rounding grows with sqrt(m), not m."""
        big_a, big_b = self.big_a[i][:, None], self.big_b[i][:, None]
        c, rest = self.b_mode[i][:, None], self.b_rest[i][:, None]
        h = y - c
        with np.errstate(divide="ignore", invalid="ignore"):
            up = np.where(big_a > 0, big_a * np.log1p(h / c), 0.0)
            down = np.where(big_b > 0, big_b * np.log1p(-h / rest), 0.0)
        out: FloatArray = self.b_log_mode[i][:, None] + up + down
        return np.where(np.isnan(out), -np.inf, out)

    def _scale(self, y: FloatArray, i: NDArray[np.intp]) -> FloatArray:
        """1/(local scale) of B's log density at y: the largest of |d log f/dy| and
        sqrt(|d^2 log f/dy^2|), whose largest values on an interval are at its ends."""
        big_a, big_b = self.big_a[i][:, None], self.big_b[i][:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            inv_y, inv_rest = 1.0 / y, 1.0 / (1.0 - y)
            first = np.abs(big_a * inv_y - big_b * inv_rest)
            second = np.sqrt(big_a * inv_y * inv_y + big_b * inv_rest * inv_rest)
        out: FloatArray = np.maximum(first, second)
        return out

    def evaluate(self, delta: FloatArray, i: NDArray[np.intp]) -> tuple[FloatArray, FloatArray]:
        """Tail and derivative at delta for the problems ``i``."""
        from scipy import special

        lo = np.maximum(np.abs(delta), self.t_lo[i])
        hi = self.t_hi[i]
        half = np.maximum(hi - lo, 0.0)[:, None] / 2.0
        t = lo[:, None] + half * (_GL_X[None, :] + 1.0)
        y = np.clip((t - delta[:, None]) / (2.0 * t), 0, 1)
        fresh = ~(self.has_ref[i] & self.movable[i])
        upper_b = np.empty_like(t)
        density = np.empty_like(t)
        moved = np.flatnonzero(~fresh) if self.has_ref.any() else np.zeros(0, dtype=np.intp)
        if moved.size:
            fresh[moved[~self._move(moved, i[moved], lo, t, y, upper_b, density)]] = True
        new = np.flatnonzero(fresh)
        if new.size:
            j = i[new]
            upper_b[new] = special.betainc((self.big_a[j] + 1.0)[:, None],
                                           (self.big_b[j] + 1.0)[:, None], y[new])
            density[new] = self._t_density(t[new], j)
            keep = self.movable[j]
            if keep.any():
                k, rows = j[keep], new[keep]
                y_k = y[rows]
                self._keep(k, _MeldedNodes(lo[rows], y_k, upper_b[rows],
                                           self._b_log_density_near_mode(y_k, k),
                                           self._scale(y_k, k), density[rows]))
        return self._sums(delta, i, half, t, y, upper_b, density)

    def _move(self, rows: NDArray[np.intp], j: NDArray[np.intp], lo: FloatArray,
              t: FloatArray, y: FloatArray, upper_b: FloatArray, density: FloatArray
              ) -> NDArray[np.bool_]:
        """Fill ``rows`` of ``upper_b`` and ``density`` (problems ``j``) from their references
        where the move is small enough; which of them were."""
        ref = self.ref
        step = y[rows] - ref.y[j]
        size = np.abs(step)
        # a move far below the first rule's reach at the reference's scale needs no more
        # care; the others are bounded at both ends of the move
        with np.errstate(invalid="ignore"):
            reach = np.max(size * ref.scale[j], axis=1)
        wide = np.flatnonzero(~(reach <= 0.5 * _MOVE_RULES[0][2]))
        if wide.size:
            with np.errstate(invalid="ignore"):
                both = size[wide] * np.maximum(ref.scale[j[wide]],
                                               self._scale(y[rows[wide]], j[wide]))
            reach[wide] = np.max(np.where(size[wide] == 0.0, 0.0, both), axis=1)
        # (a reference with a point at 0 or 1, where the nodes collapsed onto |delta|, is
        # not moved)
        ok = (reach <= _MOVE_REACH) & np.isfinite(ref.scale[j]).all(axis=1)
        low = 0.0
        for nodes, weights, top in _MOVE_RULES:
            here = np.flatnonzero(ok & (reach > low) & (reach <= top) | (ok & (reach == 0.0)
                                                                         & (low == 0.0)))
            low = top
            if here.size == 0:
                continue
            r, k = rows[here], j[here]
            upper_b[r] = self._moved(k, step[here], nodes, weights)
            # T's density: the reference's while the nodes have not moved
            same = ref.lo[k] == lo[r]
            density[r[same]] = ref.density[k[same]]
            other = ~same
            if other.any():
                density[r[other]] = self._t_density(t[r[other]], k[other])
        return ok

    def _moved(self, j: NDArray[np.intp], step: FloatArray, nodes: FloatArray,
               weights: FloatArray) -> FloatArray:
        """I_y at y = y_ref + step for the problems ``j`` (rows of nodes): I_{y_ref} plus the
        integral of B's density over the step, the density at y_ref + d being its value at
        y_ref times (1 + d/y_ref)^(m - x - 1) (1 - d/(1 - y_ref))^x."""
        ref = self.ref
        y_r = ref.y[j]
        log_b = ref.log_b[j]
        big_a, big_b = self.big_a[j][:, None], self.big_b[j][:, None]
        inv_y, inv_rest = 1.0 / y_r, -1.0 / (1.0 - y_r)
        half = 0.5 * step
        total = np.zeros_like(step)
        for node, weight in zip(nodes, weights, strict=True):
            d = (node + 1.0) * half
            # 0 log1p(.) where a parameter is 1 (nodes are inside (0, 1), so the log is finite)
            term = log_b + big_a * np.log1p(d * inv_y) + big_b * np.log1p(d * inv_rest)
            total += weight * np.exp(term)
        out: FloatArray = ref.upper_b[j] + total * half
        return out

    def _t_density(self, t: FloatArray, i: NDArray[np.intp]) -> FloatArray:
        return np.exp(_beta_log_pdf(t, self.t_alpha[i][:, None], self.t_beta[i][:, None],
                                    self.log_norm[i][:, None]))

    def _keep(self, i: NDArray[np.intp], nodes: _MeldedNodes) -> None:
        """Make ``nodes`` the reference of the problems ``i``."""
        for field, value in zip(self.ref, nodes, strict=True):
            field[i] = value
        self.has_ref[i] = True

    def _sums(self, delta: FloatArray, i: NDArray[np.intp], half: FloatArray, t: FloatArray,
              y: FloatArray, upper_b: FloatArray, density: FloatArray
              ) -> tuple[FloatArray, FloatArray]:
        """The quadrature of :func:`_melded_tail` (the same operations) and its derivative."""
        from scipy import special

        t_alpha, t_beta = self.t_alpha[i], self.t_beta[i]
        weighted = upper_b * density * _GL_W
        total = weighted.sum(axis=1)
        integral = (half[:, 0]) * total
        negative = delta < 0
        below = np.where(negative, special.betainc(t_alpha, t_beta, np.abs(delta)), 0.0)
        tail = below + integral
        # d/d(delta) of the sum: P(B >= .) moves with delta, and while the integral starts at
        # |delta| the nodes move too (dt/d(delta) = sign(delta) _NODE_SPEED), as does its
        # length.
        b_density = np.exp(self._b_log_density(y, i))
        inner = (b_density * density * (-0.5 / t) * _GL_W).sum(axis=1)
        slope = half[:, 0] * inner
        moving = np.flatnonzero((np.abs(delta) > self.t_lo[i]) & (half[:, 0] > 0))
        if moving.size:
            k = i[moving]
            sign = np.sign(delta[moving])[:, None]
            tm, dens = t[moving], density[moving]
            dt = sign * _NODE_SPEED
            with np.errstate(divide="ignore", invalid="ignore"):
                d_log_t = ((self.t_alpha[k] - 1.0)[:, None] / tm
                           - (self.t_beta[k] - 1.0)[:, None] / (1.0 - tm))
                d_density = np.where(dens > 0, dens * d_log_t * dt, 0.0)
            d_upper = b_density[moving] * dt * delta[moving][:, None] / (2.0 * tm * tm)
            extra = ((d_upper * dens + upper_b[moving] * d_density) * _GL_W).sum(axis=1)
            slope[moving] += half[moving, 0] * extra - 0.5 * sign[:, 0] * total[moving]
        with np.errstate(divide="ignore", invalid="ignore"):
            at_delta = np.exp(_beta_log_pdf(np.abs(delta), t_alpha, t_beta, self.log_norm[i]))
        slope -= np.where(negative, at_delta, 0.0)
        # (nan_to_num only where needed: it costs more than the check on small arrays)
        return tail, slope if np.isfinite(slope).all() else np.nan_to_num(slope)


def _melded_newton(
    x: FloatArray, m: FloatArray, alpha: FloatArray, pos: NDArray[np.bool_],
    t_alpha: FloatArray, t_beta: FloatArray, t_lo: FloatArray, t_hi: FloatArray,
    p_zero: FloatArray, start: FloatArray,
) -> FloatArray:
    """The roots of the normal-score gap of :func:`_melded_tail` in (0, 1) (``pos``) or
    (-1, 0), given the tail at 0 (``p_zero``) and a start: safeguarded Newton steps (a step
    out of the bracket is a bisection), handed to :func:`_find_root` after _NEWTON_STEPS;
    in groups of _NEWTON_GROUP problems, each searched on its own."""
    out = np.empty(x.size)
    for begin in range(0, x.size, _NEWTON_GROUP):
        s = slice(begin, begin + _NEWTON_GROUP)
        out[s] = _melded_newton_group(x[s], m[s], alpha[s], pos[s], t_alpha[s], t_beta[s],
                                      t_lo[s], t_hi[s], p_zero[s], start[s])
    return out


def _melded_newton_group(
    x: FloatArray, m: FloatArray, alpha: FloatArray, pos: NDArray[np.bool_],
    t_alpha: FloatArray, t_beta: FloatArray, t_lo: FloatArray, t_hi: FloatArray,
    p_zero: FloatArray, start: FloatArray,
) -> FloatArray:
    """:func:`_melded_newton` for one group of problems."""
    from scipy import special

    count = x.size
    search = _MeldedSearch(x, m, t_alpha, t_beta, t_lo, t_hi)
    z_alpha = special.ndtri(alpha)
    f_zero = _normal_score_gap(p_zero, alpha)
    # the gap decreases in delta: positive below the root
    lo = np.where(pos, 0.0, -1.0)
    hi = np.where(pos, 1.0, 0.0)
    f_lo = np.where(pos, f_zero, np.inf)
    f_hi = np.where(pos, -np.inf, f_zero)
    inside = np.isfinite(start) & (start > lo) & (start < hi)
    point = np.where(inside, start, 0.5 * (lo + hi))
    result = np.full(count, np.nan)
    previous = np.full(count, np.inf)
    active = np.arange(count)
    for _ in range(_NEWTON_STEPS):
        if active.size == 0:
            break
        at = point[active]
        tail, slope = search.evaluate(at, active)
        z = special.ndtri(np.clip(tail, 0.0, 1.0))
        f = z - z_alpha[active]
        above = f > 0
        below = f < 0
        lo[active] = np.where(above, at, lo[active])
        f_lo[active] = np.where(above, f, f_lo[active])
        hi[active] = np.where(below, at, hi[active])
        f_hi[active] = np.where(below, f, f_hi[active])
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            step = -f / (slope * _SQRT_2PI * np.exp(0.5 * z * z))
            nxt = at + step
            taken = np.abs(step)
            last = previous[active]
            inside = np.isfinite(nxt) & (nxt >= lo[active]) & (nxt <= hi[active])
            scale = np.abs(nxt)
            # the estimate of the error from the last two steps holds once they are small
            done = (f == 0) | (inside & (
                (taken <= _NEWTON_LAST * scale)
                | ((last <= _NEWTON_NEAR * scale) & (taken <= 0.25 * last)
                   & (taken**3 <= _NEWTON_RTOL * scale * last * last))
            ))
        result[active[done]] = np.where(f[done] == 0, at[done], nxt[done])
        point[active] = np.where(inside, nxt, 0.5 * (lo[active] + hi[active]))
        previous[active] = np.where(inside, taken, np.inf)
        active = active[~done]
    if active.size:
        def excess(delta: FloatArray, idx: NDArray[np.intp]) -> FloatArray:
            i = active[idx]
            tail = _melded_tail(delta, x[i], m[i], t_alpha[i], t_beta[i], t_lo[i], t_hi[i])
            return _normal_score_gap(tail, alpha[i])

        result[active] = _find_root(excess, lo[active], hi[active], f_lo[active],
                                    f_hi[active], atol=_ROOT_ATOL, nearer=True)
    return result


def _melded_bracketed_roots(
    xs: FloatArray, ms: FloatArray, ns: FloatArray, al: FloatArray, side: FloatArray,
    t_alpha: FloatArray, t_beta: FloatArray, f_zero: FloatArray, huge: bool,
) -> FloatArray:
    """The melded upper limits (side 1: U > 0, -1: U < 0) by the bracketing search on the
    tails of :func:`_melded_tail_huge` (``huge``: problems of _HUGE_N items or more) or of
    :func:`_melded_tail` (problems of more than _MOVE_MAX_COUNT discordant items, where the
    quadrature's rounding is larger than the Newton search's tolerance: the limits there are
    those this search has always given)."""
    from scipy import special

    pos = side > 0
    if huge:
        t_huge = _HugeTail.of(xs, ms, t_alpha, t_beta)

        def tail(delta: FloatArray, idx: NDArray[np.intp]) -> FloatArray:
            return _melded_tail_huge(delta, xs[idx], ms[idx], t_alpha[idx], t_beta[idx],
                                     t_huge.take(idx))
    else:
        t_lo = special.betaincinv(t_alpha, t_beta, _TAIL)
        t_hi = 1.0 - special.betaincinv(t_beta, t_alpha, _TAIL)

        def tail(delta: FloatArray, idx: NDArray[np.intp]) -> FloatArray:
            return _melded_tail(delta, xs[idx], ms[idx], t_alpha[idx], t_beta[idx], t_lo[idx],
                                t_hi[idx])

    def excess(delta: FloatArray, idx: NDArray[np.intp]) -> FloatArray:
        return _normal_score_gap(tail(delta, idx), al[idx])

    zero = np.zeros(xs.size)
    f_one = np.where(pos, -np.inf, np.inf)
    # One evaluation at a point just beyond a Wald-type guess splits the bracket [0, 1] (or
    # [-1, 0]): usually the root lies between 0 and the probe, where the normal-score gap is
    # finite at both ends and nearly linear, so the secant steps take fewer evaluations.
    # The bracket is its part beyond the probe or the part between 0 and the probe,
    # whichever holds the root.
    probe = _melded_probe(xs, ms, ns, al, side)
    f_probe = excess(probe, np.arange(xs.size))
    beyond = f_probe * side > 0
    between = ~beyond
    lo = np.where(pos, np.where(beyond, probe, zero), np.where(between, probe, -1.0))
    hi = np.where(pos, np.where(between, probe, 1.0), np.where(beyond, probe, zero))
    f_lo = np.where(
        pos, np.where(beyond, f_probe, f_zero), np.where(between, f_probe, f_one)
    )
    f_hi = np.where(
        pos, np.where(between, f_probe, f_one), np.where(beyond, f_probe, f_zero)
    )
    return _find_root(
        excess, lo, hi, f_lo, f_hi, atol=_ROOT_ATOL, rtol=_EXACT_RTOL, nearer=True
    )


def _melded_upper(x: FloatArray, m: FloatArray, n: FloatArray, alpha: FloatArray) -> FloatArray:
    """Upper limit of Fay & Lumbard's interval: solves P(T(2 B_U - 1) >= U) = alpha (N > 0)."""
    from scipy import special
    upper = np.empty_like(x)
    # At delta = 0 the tail is P(B_U >= 1/2) = P(Bin(m, 1/2) <= x), the exact one-sided p-value;
    # the sign of p0 - alpha fixes the side of 0 on which U lies, which is what makes the
    # interval agree with the exact McNemar test whatever the quadrature error.
    huge = n >= _HUGE_N
    degenerate_b = x >= m
    p0 = np.ones_like(x)
    # For huge tables the package's own binomial tail (scipy's betainc takes milliseconds at
    # parameters near 1e15; this is also the tail the exact test reports there).
    for where, tail in ((~degenerate_b & ~huge, _betainc_half), (~degenerate_b & huge,
                                                                  lower_tail_half)):
        if where.any():
            p0[where] = tail(x[where], m[where])

    # x = m (B_U is 1): the tail is P(T_U >= delta), so U is a Beta quantile, taken directly
    # (1 - the complementary quantile of Beta(N - m, m + 1) keeps only ~1e-16 absolute, 5% of
    # U = 8e-16 for N = 2**52).
    upper[degenerate_b] = 1.0
    quantile = np.flatnonzero(degenerate_b & (n > m))
    if quantile.size:
        upper[quantile] = _beta_quantile(m[quantile] + 1.0, n[quantile] - m[quantile],
                                         1.0 - alpha[quantile], huge[quantile])

    general = ~degenerate_b
    positive = general & (p0 > alpha)
    # m = n (T_U is 1 for delta > 0): the tail is P(B_U >= (1 + delta)/2), so
    # U = 1 - 2 q_alpha, q_alpha the alpha quantile of Beta(m - x, x + 1).
    closed = np.flatnonzero(positive & (n <= m))
    if closed.size:
        xc, mc = x[closed], m[closed]
        upper[closed] = _one_minus_twice_quantile(xc, mc, alpha[closed], huge[closed])
    upper[general & (p0 == alpha)] = 0.0

    # The limits on both sides of 0 in one search (each problem's steps are its own, so they
    # are those of separate searches; a single table pays numpy's cost per call once a step).
    sel_pos = np.flatnonzero(positive & (n > m))
    sel_neg = np.flatnonzero(general & (p0 < alpha))
    sel = np.concatenate([sel_pos, sel_neg])
    if sel.size:
        side = np.concatenate([np.ones(sel_pos.size), -np.ones(sel_neg.size)])
        pos = side > 0
        xs, ms, ns, al = x[sel], m[sel], n[sel], alpha[sel]
        t_alpha = np.where(pos, ms + 1.0, ms)
        t_beta = np.where(pos, ns - ms, ns - ms + 1.0)
        # Each problem's T is set up for its own route: the range of T by betaincinv's
        # quantiles (below _HUGE_N items) or by deviations from its mode (_HugeTail).
        big = huge[sel]
        f_zero = _normal_score_gap(p0[sel], al)
        many = ~big & (ms > _MOVE_MAX_COUNT)
        usual = np.flatnonzero(~big & ~many)
        if usual.size:
            ta, tb = t_alpha[usual], t_beta[usual]
            upper[sel[usual]] = _melded_newton(
                xs[usual], ms[usual], al[usual], pos[usual], ta, tb,
                special.betaincinv(ta, tb, _TAIL), 1.0 - special.betaincinv(tb, ta, _TAIL),
                p0[sel[usual]], _melded_start(xs[usual], ms[usual], ns[usual], al[usual],
                                              pos[usual]),
            )
        for where, on_huge in ((many, False), (big, True)):
            idx = np.flatnonzero(where)
            if idx.size:
                upper[sel[idx]] = _melded_bracketed_roots(
                    xs[idx], ms[idx], ns[idx], al[idx], side[idx], t_alpha[idx],
                    t_beta[idx], f_zero[idx], on_huge,
                )
    return upper
