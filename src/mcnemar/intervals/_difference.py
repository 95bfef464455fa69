"""Intervals for the difference in accuracy (b - c)/N: :func:`difference_interval`."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any, Final

import numpy as np
from numpy.typing import ArrayLike

from mcnemar.intervals._api import table_interval, whole_table_interval
from mcnemar.intervals._inputs import _z
from mcnemar.intervals._melded import _melded_upper
from mcnemar.intervals._result import ConfidenceInterval, FloatArray
from mcnemar.intervals._roots import (
    _ROOT_ATOL,
    ARRAYS,
    IntervalOps,
    Limits,
    Real,
    _larger_quadratic_root,
    _newton_from,
    _paired_correlation,
    _paired_wilson,
    by_table,
    by_table_many,
    secant_from_centre,
)
from mcnemar.vocabulary import DIFFERENCE_INTERVALS, names

#: Methods of :func:`difference_interval`, in the order reports list them.
DIFFERENCE_METHODS: Final[tuple[str, ...]] = names(DIFFERENCE_INTERVALS)


# ---------------------------------------------------------------------------------------------
# Difference in accuracy
# ---------------------------------------------------------------------------------------------
# Each method's limits are one formula f(xp, a, b, c, d, z) for both routes of
# mcnemar.intervals._roots (arrays of tables, or one table's Python floats).


def _wald(xp: IntervalOps, b: Real, c: Real, n: Real, z: Real, correction: float) -> Limits:
    """(b - c)/n -+ z sqrt(b + c - (|b - c| - correction)^2/n)/n."""
    gap: Any = b - c
    delta = gap / n
    shrunk = abs(gap) - correction
    # b = c = 0 makes the corrected variance negative; it is taken as zero, as in
    # contingencytables.
    se = xp.sqrt(xp.maximum(b + c - shrunk * shrunk / n, 0.0)) / n
    return delta - z * se, delta + z * se


def _diff_wald(xp: IntervalOps, a: Real, b: Real, c: Real, d: Real, z: Real) -> Limits:
    return _wald(xp, b, c, a + b + c + d, z, correction=0.0)


def _diff_wald_cc(xp: IntervalOps, a: Real, b: Real, c: Real, d: Real, z: Real) -> Limits:
    return _wald(xp, b, c, a + b + c + d, z, correction=1.0)


def _diff_agresti_min(xp: IntervalOps, a: Real, b: Real, c: Real, d: Real, z: Real) -> Limits:
    # Wald after adding 1/2 to every cell: the plain Wald formula on the shifted table.
    return _wald(xp, b + 0.5, c + 0.5, a + b + c + d + 2.0, z, correction=0.0)


def _diff_bonett_price(xp: IntervalOps, a: Real, b: Real, c: Real, d: Real, z: Real) -> Limits:
    n2 = a + b + c + d + 2.0
    p12 = (b + 1.0) / n2
    p21 = (c + 1.0) / n2
    gap = p12 - p21
    se = xp.sqrt(xp.maximum(p12 + p21 - gap * gap, 0.0) / n2)
    return gap - z * se, gap + z * se


def _square_and_add(xp: IntervalOps, a: Real, b: Real, c: Real, d: Real, z: Real,
                    corrected: bool) -> Limits:
    return _square_and_add_of(xp, a, b, c, d, *_paired_wilson(xp, a, b, c, d, z),
                              corrected=corrected)


def _square_and_add_of(xp: IntervalOps, a: Real, b: Real, c: Real, d: Real, p1: Real, l1: Real,
                       u1: Real, p2: Real, l2: Real, u2: Real, *, corrected: bool) -> Limits:
    """Newcombe's square-and-add from the marginal proportions p1 = (a + b)/N and
    p2 = (a + c)/N and their Wilson limits (:func:`_paired_wilson`)."""
    cross = a * d - b * c
    if corrected:
        # Newcombe's continuity correction applies only to positive association.
        half = (a + b + c + d) / 2
        cross = xp.where(cross > half, cross - half, xp.where(cross >= 0, 0.0, cross))
    phi = _paired_correlation(xp, a, b, c, d, cross)
    x1, y1 = p1 - l1, u2 - p2
    x2, y2 = p2 - l2, u1 - p1
    delta = p1 - p2
    # x^2 + y^2 - 2 phi x y written as (x - y)^2 + 2(1 - phi) x y: with phi = 1 and x = y the
    # direct form leaves rounding noise that the square root blows up to ~1e-9.
    g1, g2 = x1 - y1, x2 - y2
    low = delta - xp.sqrt(xp.maximum(g1 * g1 + 2.0 * (1.0 - phi) * x1 * y1, 0.0))
    high = delta + xp.sqrt(xp.maximum(g2 * g2 + 2.0 * (1.0 - phi) * x2 * y2, 0.0))
    return low, high


def _diff_newcombe(xp: IntervalOps, a: Real, b: Real, c: Real, d: Real, z: Real) -> Limits:
    return _square_and_add(xp, a, b, c, d, z, corrected=True)


def _diff_newcombe_plain(xp: IntervalOps, a: Real, b: Real, c: Real, d: Real, z: Real) -> Limits:
    return _square_and_add(xp, a, b, c, d, z, corrected=False)


def _tango_score(xp: IntervalOps, delta0: Real, b: Real, c: Real, n: Real) -> Any:
    """Tango's score statistic for H0: difference = delta0."""
    return _tango_parts(xp, delta0, b, c, n)[0]


def _tango_parts(xp: IntervalOps, delta0: Real, b: Real, c: Real, n: Real
                 ) -> tuple[Any, Any, Any, Any]:
    """Tango's statistic T = (b - c - N delta0)/sqrt(V) and what its slope needs: V,
    p21 (the restricted estimate of the cell, the larger root of 2N p^2 + B p + C) and
    2N p21 + B, the quadratic's slope there."""
    qa = 2.0 * n
    qb = -b - c + (2.0 * n - b + c) * delta0
    p21 = _larger_quadratic_root(xp, qa, qb, -c * delta0 * (1.0 - delta0))
    variance = xp.maximum(n * (2.0 * p21 + delta0 * (1.0 - delta0)), 0.0)
    return (b - c - n * delta0) / xp.sqrt(variance), variance, p21, 2.0 * qa * p21 + qb


def _tango_excess_and_slope(xp: IntervalOps, delta0: Real, sign: Real, b: Real, c: Real,
                            n: Real, z: Real) -> tuple[Any, Any]:
    """:func:`_tango_excess` and its derivative in delta0, for Newton's method.

    With V = N (2 p21 + delta0 (1 - delta0)): p21' = -(B' p21 + C')/(2 A p21 + B) by implicit
    differentiation of the quadratic (A = 2N, B' = 2N - b + c, C' = -c (1 - 2 delta0)),
    V' = N (2 p21' + 1 - 2 delta0) and T' = -N/sqrt(V) - T V'/(2V).
    """
    score, variance, p21, gap = _tango_parts(xp, delta0, b, c, n)
    p21_slope = xp.divide(-((2.0 * n - b + c) * p21 - c * (1.0 - 2.0 * delta0)), gap)
    variance_slope = n * (2.0 * p21_slope + 1.0 - 2.0 * delta0)
    slope = xp.divide(-n, xp.sqrt(variance)) - score * xp.divide(variance_slope, 2.0 * variance)
    return sign * score - z, sign * slope


def _tango_statistic(delta0: FloatArray, b: FloatArray, c: FloatArray, n: FloatArray
                     ) -> FloatArray:
    """Tango's score statistic for H0: difference = delta0, on arrays (nan or an infinity
    where its variance is 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(_tango_score(ARRAYS, delta0, b, c, n), dtype=np.float64)


def _tango_excess(xp: IntervalOps, delta0: Real, sign: Real, b: Real, c: Real, n: Real,
                  z: Real) -> Any:
    """T - z for a lower limit (sign 1) and -T - z = -(T + z) for an upper one (sign -1):
    positive beyond the limit, -z at delta_hat."""
    return sign * _tango_score(xp, delta0, b, c, n) - z


# The score statistic is singular at delta0 = -1 and 1; the search starts this close to them.
_EDGE = 2.0**-40


def _tango_probe(xp: IntervalOps, excess: Any, probe: Real, centre: Real, f_centre: Real,
                 edge: Real) -> tuple[Any, Any, Any, Any, Any]:
    """The search brackets of Tango limits: the far ends and the excess there, the near ends
    and the excess there, and whether each limit is inside (-1, 1) at all.

    ``excess`` is positive beyond the limit (towards ``edge``, -1 or 1 per limit) and
    ``f_centre`` at ``centre`` (delta_hat). The probe splits [edge, centre] (the edge within
    _EDGE) where it lies inside; no sign change between the edge and the near end puts the
    limit at the edge.
    """
    far = edge * (1.0 - _EDGE)  # edge -+ _EDGE, exactly
    probed = xp.isfinite(probe) & ((probe - centre) * edge > 0) & ((far - probe) * edge > 0)
    f_probe = xp.call_where(probed, excess, probe)
    beyond = f_probe > 0
    short = probed != beyond  # probed, and not beyond the limit (or no value there)
    far = xp.where(beyond, probe, far)
    f_far = xp.where(beyond, f_probe, math.nan)
    near, f_near = xp.where(short, probe, centre), xp.where(short, f_probe, f_centre)
    rest = xp.logical_not(beyond)
    f_far = xp.where(rest, xp.call_where(rest, excess, far), f_far)
    return far, f_far, near, f_near, f_far > 0


def _tango_limit(xp: IntervalOps, sign: Real, b: Real, c: Real, n: Real, z: Real, delta: Real,
                 half: Real) -> Any:
    """Tango limits of tables with N > 0: lower where ``sign`` is 1 (T(L) = z on
    (-1, delta_hat); T decreases and T(delta_hat) = 0), upper where it is -1 (T(U) = -z on
    (delta_hat, 1))."""
    excess = xp.bind(_tango_excess, sign, b, c, n, z)
    far, f_far, near, f_near, inside = _tango_probe(xp, excess, delta - sign * half, delta,
                                                    -z, -sign)
    # Newton's method from where the line through the centre (excess -z) and the probe meets
    # 0 (T is nearly linear there).
    start = secant_from_centre(xp, delta, -z, far, f_far, near, f_near)
    root = _newton_from(xp, xp.bind(_tango_excess_and_slope, sign, b, c, n, z), excess, far,
                        near, f_far, f_near, start, sign > 0, atol=_ROOT_ATOL, rtol=1e-13,
                        nearer=True)
    # No sign change means the whole of (-1, delta_hat] (or [delta_hat, 1)) is inside the
    # interval.
    return xp.where(inside, root, -sign)


def _diff_tango(xp: IntervalOps, a: Real, b: Real, c: Real, d: Real, z: Real) -> Limits:
    n = a + b + c + d
    delta = (b - c) / n
    # Wald's limits, moved a tenth of their distance from delta_hat outwards: a probe
    # usually just beyond Tango's limit, which narrows the bracket to where T is nearly linear.
    gap = b - c
    half = 1.1 * z * xp.sqrt(xp.maximum(b + c - gap * gap / n, 0.0)) / n
    return xp.two_sided(_tango_limit, (n > 0) & (delta > -1.0), (n > 0) & (delta < 1.0),
                        (b, c, n, z, delta, half), -1.0, 1.0)


def _diff_exact(a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray, level: FloatArray
                ) -> tuple[FloatArray, FloatArray]:
    n = a + b + c + d
    m = b + c
    alpha = (1.0 - level) / 2.0
    # Mirror symmetry: swapping b and c negates the difference, so L(b, c) = -U(c, b); both
    # limits in one call (one search).
    if (n > 0).all():
        # (no selection: it costs a single table a good part of its search)
        both = _melded_upper(np.concatenate((b, c)), np.concatenate((m, m)),
                             np.concatenate((n, n)), np.concatenate((alpha, alpha)))
        return -both[n.size :], both[: n.size]
    low = np.full_like(n, np.nan)
    high = np.full_like(n, np.nan)
    ok = np.flatnonzero(n > 0)
    both = _melded_upper(
        np.concatenate((b[ok], c[ok])), np.concatenate((m[ok], m[ok])),
        np.concatenate((n[ok], n[ok])), np.concatenate((alpha[ok], alpha[ok])),
    )
    high[ok] = both[: ok.size]
    low[ok] = -both[ok.size :]
    return low, high


#: The formulas f(xp, a, b, c, d, z) of the methods but "exact".
_DIFFERENCE_IMPL: Final[dict[str, Callable[..., Limits]]] = {
    "wald": _diff_wald,
    "wald-cc": _diff_wald_cc,
    "agresti-min": _diff_agresti_min,
    "bonett-price": _diff_bonett_price,
    "newcombe": _diff_newcombe,
    "newcombe-plain": _diff_newcombe_plain,
    "tango": _diff_tango,
}


@table_interval
def difference_interval(
    a: ArrayLike,
    b: ArrayLike,
    c: ArrayLike,
    d: ArrayLike,
    *,
    confidence_level: ArrayLike = 0.95,
    method: str = "newcombe",
) -> ConfidenceInterval[Any]:
    r"""Confidence interval for the difference in accuracy, (b - c)/N.

    With N = a + b + c + d, :math:`\hat\delta = (b - c)/N` = accuracy(A) - accuracy(B) and
    :math:`z = \Phi^{-1}(1 - \alpha/2)`:

    ``"wald"``
        :math:`\hat\delta \pm z\sqrt{b + c - (b - c)^2/N}/N`.
    ``"wald-cc"``
        The same with :math:`(|b - c| - 1)^2` in place of :math:`(b - c)^2` (the continuity
        correction as in Fagerland et al. 2014; a negative variance counts as 0).
    ``"agresti-min"``
        Wald after adding 1/2 to every cell (Agresti & Min 2005): centre
        :math:`(b - c)/(N + 2)`, standard error :math:`\sqrt{b + c + 1 - (b - c)^2/(N+2)}/(N+2)`.
    ``"bonett-price"``
        Wald with Laplace estimates :math:`\tilde p_{12} = (b+1)/(N+2)`,
        :math:`\tilde p_{21} = (c+1)/(N+2)`: :math:`\tilde p_{12} - \tilde p_{21} \pm
        z\sqrt{(\tilde p_{12} + \tilde p_{21} - (\tilde p_{12} - \tilde p_{21})^2)/(N+2)}`
        (Bonett & Price 2012).
    ``"newcombe"`` (default)
        Newcombe's (1998) method 10, square-and-add of the Wilson limits
        :math:`(l_1, u_1)` of :math:`p_1 = (a+b)/N` and :math:`(l_2, u_2)` of
        :math:`p_2 = (a+c)/N`:
        :math:`L = \hat\delta - \sqrt{(p_1 - l_1)^2 + (u_2 - p_2)^2 - 2\phi(p_1 - l_1)(u_2 - p_2)}`,
        :math:`U = \hat\delta + \sqrt{(p_2 - l_2)^2 + (u_1 - p_1)^2 - 2\phi(p_2 - l_2)(u_1 - p_1)}`,
        with the continuity-corrected correlation :math:`\phi = (A - N/2)/M` for
        :math:`A = ad - bc > N/2`, 0 for :math:`0 \le A \le N/2`, :math:`A/M` for :math:`A < 0`,
        :math:`M = \sqrt{(a+b)(c+d)(a+c)(b+d)}` (:math:`\phi = 0` when a margin is 0).
    ``"newcombe-plain"``
        The same with the plain correlation :math:`\phi = (ad - bc)/M` (the column Newcombe's
        Table III lists as method 8).
    ``"tango"``
        Tango's (1998) score interval: the :math:`\delta_0` with
        :math:`T(\delta_0) = (b - c - N\delta_0)/\sqrt{N(2\tilde p_{21} + \delta_0(1-\delta_0))}
        = \pm z`, where :math:`\tilde p_{21}` is the constrained maximum likelihood estimate
        (the larger root of :math:`2N p^2 + (-b - c + (2N - b + c)\delta_0) p
        - c\delta_0(1-\delta_0) = 0`). It excludes 0 exactly when the uncorrected asymptotic
        McNemar test rejects. When :math:`\hat\delta = \pm 1` the limit on that side is
        :math:`\pm 1`.
    ``"exact"``
        Fay & Lumbard's (2021) melded interval, compatible with the exact (conditional)
        McNemar test: it excludes 0 exactly when that test rejects at level
        :math:`1 - \text{confidence\_level}`. With m = b + c discordant pairs, the upper limit U
        solves :math:`P\{T(2B - 1) \ge U\} = \alpha/2` for
        :math:`B \sim \mathrm{Beta}(b + 1, c)` and :math:`T \sim \mathrm{Beta}(m + 1, N - m)`
        (U > 0) or :math:`\mathrm{Beta}(m, N - m + 1)` (U < 0); the lower limit is the mirror
        image, :math:`L(b, c) = -U(c, b)`. The probability is one integral over T (64-point
        Gauss-Legendre), and U is its root, for all tables at once: up to :math:`10^5`
        discordant items by Newton's method from a Cornish-Fisher estimate of the
        1 - alpha/2 quantile of :math:`T(2B - 1)` (two evaluations as a rule, the second from
        the first's incomplete beta values moved by a short integral of B's density), beyond
        by a bracketing search; this method costs about 0.04 ms per table in a batch, twenty
        times the score intervals. From
        :math:`10^9` items on, the integral runs over the part of T's range where
        :math:`P(B \ge \cdot)` moves between 0 and 1, T's density is taken from the
        deviation to its mode, and where both parameters of a Beta variable pass
        :math:`10^8` its probabilities and quantiles come from Temme's uniform asymptotic
        expansion (:mod:`mcnemar.intervals._beta`), accurate to ~1e-14 where
        ``scipy.special.betainc`` takes milliseconds a call and, for equal parameters, is
        wrong.

    Parameters
    ----------
    a, b, c, d : int or array_like of int
        Both right, A right and B wrong, A wrong and B right, both wrong. Arrays broadcast.
    confidence_level : float or array_like, default 0.95
        Strictly between 0 and 1.
    method : str, default "newcombe"
        One of :data:`DIFFERENCE_METHODS`.

    Returns
    -------
    ConfidenceInterval
        Python floats for scalar input, arrays of the broadcast shape otherwise. Limits are
        truncated to [-1, 1]; a table with N = 0 gives nan limits.

    Raises
    ------
    McNemarError
        Unknown ``method`` or a ``confidence_level`` outside (0, 1); :class:`TableError` for
        negative or fractional counts.

    References
    ----------
    Newcombe RG (1998). Improved confidence intervals for the difference between binomial
    proportions based on paired data. Statistics in Medicine 17:2635-2650.
    Tango T (1998). Equivalence test and confidence interval for the difference in proportions
    for the paired-sample design. Statistics in Medicine 17:891-908.
    Agresti A, Min Y (2005). Simple improved confidence intervals for comparing matched
    proportions. Statistics in Medicine 24:729-740.
    Bonett DG, Price RM (2012). Adjusted Wald confidence interval for a difference of binomial
    proportions based on paired data. Journal of Educational and Behavioral Statistics
    37:479-488.
    Fagerland MW, Lydersen S, Laake P (2014). Recommended tests and confidence intervals for
    paired binomial proportions. Statistics in Medicine 33:2850-2875.
    Fay MP, Lumbard K (2021). Confidence intervals for difference in proportions for matched
    pairs compatible with exact McNemar's or sign tests. Statistics in Medicine 40:1147-1159.
    Temme NM (1996). Special Functions: An Introduction to the Classical Functions of
    Mathematical Physics, section 11.3.3. Wiley.

    Examples
    --------
    Two systems on 200 items; A alone is right on 17, B alone on 3:

    >>> print(difference_interval(157, 17, 3, 23))
    [0.0262, 0.1166]
    >>> print(difference_interval(157, 17, 3, 23, method="tango"))
    [0.0292, 0.1192]
    >>> low, high = difference_interval([157, 59], [17, 6], [3, 16], [23, 80], method="wald")
    >>> low.round(4), high.round(4)
    (array([ 0.0273, -0.1184]), array([ 0.1127, -0.0058]))
    """
    return whole_table_interval(
        _difference_limits, DIFFERENCE_METHODS, "difference", (a, b, c, d), confidence_level, method
    )


def _difference_limits(
    method: str, a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray, level: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """The limits of :func:`difference_interval` for checked flat float64 cells and levels."""
    if method == "exact":
        low, high = _diff_exact(a, b, c, d, level)
        return _in_range(ARRAYS, low, high, a + b + c + d)
    return by_table(_difference, (a, b, c, d, _z(level)), formula=_DIFFERENCE_IMPL[method])


#: The methods of :func:`difference_interval` with closed-form limits (no search).
CLOSED_FORMS: Final = ("wald", "wald-cc", "agresti-min", "bonett-price", "newcombe",
                       "newcombe-plain")


def closed_form_limits(methods: tuple[str, ...], a: FloatArray, b: FloatArray, c: FloatArray,
                       d: FloatArray, level: FloatArray) -> list[tuple[FloatArray, FloatArray]]:
    """:func:`_difference_limits` of each of ``methods`` (of :data:`CLOSED_FORMS`), in one
    pass over the tables (:func:`mcnemar.intervals._roots.by_table_many`): the same limits,
    the MOVER methods' from one computation of the marginal Wilson limits they share."""
    return by_table_many((functools.partial(_closed_forms_of, methods=methods),),
                         (a, b, c, d, _z(level)))


def _closed_forms_of(xp: IntervalOps, a: Real, b: Real, c: Real, d: Real, z: Real, *,
                     methods: tuple[str, ...]) -> tuple[Any, ...]:
    """The limits of ``methods`` (low, high, low, high, ...), as :func:`_difference` gives
    each (the marginals of :func:`_paired_wilson` computed once for the MOVER methods)."""
    marginals = (_paired_wilson(xp, a, b, c, d, z)
                 if any(m in MOVER_METHODS for m in methods) else ())
    n = a + b + c + d
    out: list[Any] = []
    for m in methods:
        if m in MOVER_METHODS:
            out.extend(_mover_of(xp, m, a, b, c, d, marginals))
        else:
            out.extend(_in_range(xp, *_DIFFERENCE_IMPL[m](xp, a, b, c, d, z), n))
    return tuple(out)


#: The methods whose limits start from each system's accuracy and its Wilson limits alone.
MOVER_METHODS = ("newcombe", "newcombe-plain")


def mover_limits(method: str, a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray,
                 marginals: tuple[FloatArray, ...]) -> tuple[FloatArray, FloatArray]:
    """The limits of :func:`_difference_limits` for a method of :data:`MOVER_METHODS`, given
    each table's (p1, l1, u1, p2, l2, u2) of :func:`_paired_wilson`: pairs of K models share
    them, so :func:`mcnemar.multiple.pairwise` computes them once per model (the same
    numbers: (a + b)/N and its limits depend on a + b and N alone)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out_low, out_high = _mover_of(ARRAYS, method, a, b, c, d, marginals)
    return out_low, out_high


def _mover_of(xp: IntervalOps, method: str, a: Real, b: Real, c: Real, d: Real,
              marginals: tuple[Any, ...]) -> Limits:
    """The limits of a method of :data:`MOVER_METHODS` from the marginals (p1, l1, u1, p2, l2,
    u2) of :func:`_paired_wilson`, truncated as :func:`_difference` truncates."""
    low, high = _square_and_add_of(xp, a, b, c, d, *marginals, corrected=method == "newcombe")
    return _in_range(xp, low, high, a + b + c + d)


def _difference(xp: IntervalOps, a: Real, b: Real, c: Real, d: Real, z: Real, *,
                formula: Callable[..., Limits]) -> Limits:
    """A method's limits, truncated to [-1, 1] and nan without items."""
    low, high = formula(xp, a, b, c, d, z)
    return _in_range(xp, low, high, a + b + c + d)


def _in_range(xp: IntervalOps, low: Real, high: Real, n: Real) -> Limits:
    # np.clip(x, -1, 1), without its cost per call on small arrays. Without items there is
    # no difference to estimate, whatever a method's pseudo-counts say.
    empty = n == 0
    return (xp.where(empty, math.nan, xp.minimum(xp.maximum(low, -1.0), 1.0)),
            xp.where(empty, math.nan, xp.minimum(xp.maximum(high, -1.0), 1.0)))
