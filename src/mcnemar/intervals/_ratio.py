"""Intervals for the ratio of accuracies (a + b)/(a + c): :func:`ratio_interval`."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final

from numpy.typing import ArrayLike

from mcnemar.intervals._api import log_wald, table_interval, unbounded_where, whole_table_interval
from mcnemar.intervals._inputs import _z
from mcnemar.intervals._result import ConfidenceInterval, FloatArray
from mcnemar.intervals._roots import (
    IntervalOps,
    Limits,
    Real,
    _larger_quadratic_root,
    _newton_from,
    _paired_correlation,
    _paired_wilson,
    _wilson,
    by_table,
    by_table_many,
    secant_from_centre,
)
from mcnemar.vocabulary import RATIO_INTERVALS, names

#: Methods of :func:`ratio_interval`.
RATIO_METHODS: Final[tuple[str, ...]] = names(RATIO_INTERVALS)


# ---------------------------------------------------------------------------------------------
# Ratio of accuracies
# ---------------------------------------------------------------------------------------------
# Each method's limits are one formula f(xp, a, b, c, d, z) for both routes of
# mcnemar.intervals._roots (arrays of tables, or one table's Python floats).


def _ratio_wald(xp: IntervalOps, a: Real, b: Real, c: Real, d: Real, z: Real) -> Limits:
    estimate = xp.divide(a + b, a + c)
    se = xp.sqrt((b + c) / ((a + b) * (a + c)))
    # A zero margin leaves the log scale undefined: the interval is the whole half-line.
    return log_wald(xp, estimate, se, z)


def _tang_score(xp: IntervalOps, phi0: Real, a: Real, b: Real, c: Real, n: Real) -> Any:
    """Tang, Tang & Chan's score statistic for H0: ratio = phi0."""
    return _tang_parts(xp, phi0, a, b, c, n)[0]


def _tang_parts(xp: IntervalOps, phi0: Real, a: Real, b: Real, c: Real, n: Real
                ) -> tuple[Any, Any, Any, Any]:
    """Tang, Tang & Chan's statistic T = ((a + b) - (a + c) phi0)/sqrt(V) and what its slope
    needs: V, p21 (the larger root of A p^2 + B p + C) and 2 A p21 + B, the quadratic's
    slope there."""
    qa = n * (1.0 + phi0)
    qb = (a + c) * phi0 * phi0 - (a + b + 2.0 * c)
    p21 = _larger_quadratic_root(xp, qa, qb, c * (1.0 - phi0) * (a + b + c) / n)
    variance = xp.maximum(qa * p21 + (a + b + c) * (phi0 - 1.0), 0.0)
    return ((a + b) - (a + c) * phi0) / xp.sqrt(variance), variance, p21, 2.0 * qa * p21 + qb


def _tang_excess(xp: IntervalOps, s: Real, sign: Real, a: Real, b: Real, c: Real, n: Real,
                 z: Real) -> Any:
    """At phi0 = exp(s): T - z for a lower limit (sign 1), -(T + z) for an upper one (sign
    -1); positive below the lower root and above the upper one."""
    return sign * _tang_score(xp, xp.exp(s), a, b, c, n) - z


def _tang_excess_and_slope(xp: IntervalOps, s: Real, sign: Real, a: Real, b: Real, c: Real,
                           n: Real, z: Real) -> tuple[Any, Any]:
    """:func:`_tang_excess` and its derivative in s = log phi0, for Newton's method.

    With V = N (1 + phi0) p21 + (a + b + c)(phi0 - 1): p21' = -(A' p21^2 + B' p21 + C')/
    (2 A p21 + B) by implicit differentiation of the quadratic (A' = N, B' = 2 (a + c) phi0,
    C' = -c (a + b + c)/N), V' = N p21 + A p21' + (a + b + c), dT/dphi0 =
    -(a + c)/sqrt(V) - T V'/(2V), and dT/ds = phi0 dT/dphi0.
    """
    phi0 = xp.exp(s)
    score, variance, p21, gap = _tang_parts(xp, phi0, a, b, c, n)
    total = a + b + c
    p21_slope = xp.divide(-((n * p21 + 2.0 * (a + c) * phi0) * p21 - c * total / n), gap)
    variance_slope = n * p21 + n * (1.0 + phi0) * p21_slope + total
    slope = (xp.divide(-(a + c), xp.sqrt(variance))
             - score * xp.divide(variance_slope, 2.0 * variance))
    return sign * score - z, sign * phi0 * slope


def _tang_limit(xp: IntervalOps, sign: Real, a: Real, b: Real, c: Real, n: Real, z: Real,
                estimate: Real) -> Any:
    """Tang limits, searched on the log scale, for tables with a finite positive estimate:
    lower limits where ``sign`` is 1, upper ones where it is -1."""
    lower = sign > 0
    excess = xp.bind(_tang_excess, sign, a, b, c, n, z)
    centre = xp.log(estimate)
    near, f_near = centre, -z
    # A probe a tenth beyond the Wald limit on the log scale usually lands just past the root,
    # where the statistic is nearly linear: then [probe, centre] is the bracket.
    probe = centre - sign * 1.1 * z * xp.sqrt((b + c) / ((a + b) * (a + c)))
    probed = xp.isfinite(probe) & (probe != centre)
    f_probe = xp.call_where(probed, excess, probe)
    hit = f_probe > 0
    far, f_far = xp.where(hit, probe, math.nan), xp.where(hit, f_probe, math.nan)
    # Elsewhere: T(phi) tends to +inf as phi -> 0 and to -inf as phi -> inf; widen the bracket
    # by doubling steps on the log scale, 1 to 2**10, until the sign changes.
    rest = xp.logical_not(hit)
    if xp.any(rest):
        step = 1.0
        short = rest
        for _ in range(11):
            far = xp.where(short, centre - sign * step, far)
            f_far = xp.where(short, xp.call_where(short, excess, far), f_far)
            short = rest & xp.logical_not(f_far > 0)
            if not xp.any(short):
                break
            step = xp.where(short, 2.0 * step, step)
        # a probe short of the root between the centre and the far end is the near end
        between = probed & (f_probe <= 0) & ((probe - far) * sign > 0)
        near, f_near = xp.where(between, probe, near), xp.where(between, f_probe, f_near)
    # Newton's method from where the line through the centre (excess -z) and the probe meets
    # 0 (the probe short of the root between the centre and the far end is the near end).
    start = secant_from_centre(xp, centre, -z, far, f_far, near, f_near)
    root = _newton_from(xp, xp.bind(_tang_excess_and_slope, sign, a, b, c, n, z), excess, far,
                        near, f_far, f_near, start, lower, atol=1e-14)
    return xp.where(f_far > 0, xp.exp(root), xp.where(lower, 0.0, math.inf))


def _ratio_tang(xp: IntervalOps, a: Real, b: Real, c: Real, d: Real, z: Real) -> Limits:
    # The variance in the statistic cancels as phi0 -> 0 (it loses ~6 digits at phi0 ~ 1e-5),
    # while it is well conditioned for large phi0. The interval respects the swap of the
    # systems (L(b, c) = 1/U(c, b)), so tables with an estimate below 1 are solved swapped.
    flip = (a + b) < (a + c)
    b, c = xp.where(flip, c, b), xp.where(flip, b, c)
    n = a + b + c + d
    estimate = xp.divide(a + b, a + c)
    inner = xp.isfinite(estimate) & (estimate > 0)
    low, high = xp.two_sided(_tang_limit, inner, inner, (a, b, c, n, z, estimate), 0.0,
                             math.inf)
    # With a + c = 0 the statistic reduces to sqrt((a + b)/phi0), so L = (a + b)/z^2 (and,
    # swapped back, U = z^2/(a + b) when a + b = 0 < a + c).
    low = xp.where((a + c == 0) & (a + b > 0), xp.divide(a + b, z * z), low)
    return (xp.where(flip, xp.divide(1.0, high), low),
            xp.where(flip, xp.divide(1.0, low), high))


def _ratio_bonett_price(xp: IntervalOps, a: Real, b: Real, c: Real, d: Real, z: Real) -> Limits:
    n_star = a + b + c
    x1 = a + b
    x2 = a + c
    big_a = xp.sqrt((b + c + 2.0) / ((x1 + 1.0) * (x2 + 1.0)))
    big_b = xp.sqrt((1.0 - (x1 + 1.0) / (n_star + 2.0)) / (x1 + 1.0))
    big_c = xp.sqrt((1.0 - (x2 + 1.0) / (n_star + 2.0)) / (x2 + 1.0))
    z_star = big_a / (big_b + big_c) * z
    l1, u1 = _wilson(xp, x1, n_star, z_star)
    l2, u2 = _wilson(xp, x2, n_star, z_star)
    return unbounded_where(xp, l1 / u2, xp.divide(u1, l2), n_star == 0)


def _mover_discriminant(xp: IntervalOps, p1: Real, p2: Real, x: Real, y: Real, rho: Real) -> Any:
    """beta^2 - alpha q of the MOVER ratio quadratic, expanded without cancellation.

    With beta = p1 p2 - rho x y, alpha = p2^2 - y^2 and q = p1^2 - x^2 the discriminant is
    (p1 y - p2 x)^2 + (1 - rho) x y (2 p1 p2 - (1 + rho) x y), which is non-negative and exactly
    (p1 y - p2 x)^2 at rho = 1, where the direct form would leave noise of order 1e-8 after the
    square root.
    """
    gap = p1 * y - p2 * x
    disc = gap * gap + (1.0 - rho) * x * y * (2.0 * p1 * p2 - (1.0 + rho) * x * y)
    return xp.maximum(disc, 0.0)


def _ratio_mover_wilson(xp: IntervalOps, a: Real, b: Real, c: Real, d: Real, z: Real) -> Limits:
    p1, l1, u1, p2, l2, u2 = _paired_wilson(xp, a, b, c, d, z)
    corr = _paired_correlation(xp, a, b, c, d, a * d - b * c)
    div = xp.divide
    # MOVER for a ratio (Donner & Zou 2012): L is the root in (0, phi_hat) of
    # alpha_l L^2 - 2 beta_l L + q_l = 0, and U the root above phi_hat of the analogous
    # quadratic. The roots are written in the form without cancellation, which also keeps
    # L(b, c) = 1/U(c, b) exact.
    x, y = p1 - l1, u2 - p2
    beta_l = p1 * p2 - corr * x * y
    q_l = l1 * (2.0 * p1 - l1)
    alpha_l = u2 * (2.0 * p2 - u2)
    root_l = xp.sqrt(_mover_discriminant(xp, p1, p2, x, y, corr))
    low = xp.where(beta_l > 0, div(q_l, beta_l + root_l), div(beta_l - root_l, alpha_l))
    x, y = u1 - p1, p2 - l2
    beta_u = p1 * p2 - corr * x * y
    q_u = u1 * (2.0 * p1 - u1)
    alpha_u = l2 * (2.0 * p2 - l2)
    root_u = xp.sqrt(_mover_discriminant(xp, p1, p2, x, y, corr))
    high = xp.where(beta_u >= 0, div(beta_u + root_u, alpha_u), div(q_u, beta_u - root_u))
    low = xp.where(xp.isnan(low), 0.0, xp.maximum(low, 0.0))
    high = xp.where(xp.isnan(high) | (high < 0), math.inf, high)
    # With rho = 1 and equal margins the interval shrinks to the estimate; keep rounding from
    # putting the limits on the wrong side of it.
    estimate = div(a + b, a + c)
    inner = xp.isfinite(estimate)
    low = xp.where(inner, xp.minimum(low, estimate), low)
    high = xp.where(inner, xp.maximum(high, estimate), high)
    return unbounded_where(xp, low, high, a + b + c == 0)


#: The formulas f(xp, a, b, c, d, z) of the methods.
_RATIO_IMPL: Final[dict[str, Callable[..., Limits]]] = {
    "wald": _ratio_wald,
    "tang": _ratio_tang,
    "bonett-price": _ratio_bonett_price,
    "mover-wilson": _ratio_mover_wilson,
}


@table_interval
def ratio_interval(
    a: ArrayLike,
    b: ArrayLike,
    c: ArrayLike,
    d: ArrayLike,
    *,
    confidence_level: ArrayLike = 0.95,
    method: str = "tang",
) -> ConfidenceInterval[Any]:
    r"""Confidence interval for the ratio of accuracies, (a + b)/(a + c).

    With :math:`\hat\phi = (a + b)/(a + c)` = accuracy(A)/accuracy(B), N = a + b + c + d and
    :math:`z = \Phi^{-1}(1 - \alpha/2)`:

    ``"wald"``
        On the log scale: :math:`\hat\phi\exp(\mp z\sqrt{(b + c)/((a + b)(a + c))})`;
        (0, inf) when :math:`\hat\phi` is 0, infinite or undefined.
    ``"tang"`` (default)
        Tang, Tang & Chan's (2003) score interval: the :math:`\phi_0` with
        :math:`T(\phi_0) = ((a + b) - (a + c)\phi_0)/\sqrt{N(1 + \phi_0)\tilde p_{21}
        + (a + b + c)(\phi_0 - 1)} = \pm z`, :math:`\tilde p_{21}` the larger root of
        :math:`N(1+\phi_0)p^2 + ((a+c)\phi_0^2 - (a+b+2c))p + c(1-\phi_0)(a+b+c)/N = 0`.
        L = 0 when a + b = 0; U = inf when a + c = 0.
    ``"bonett-price"``
        Bonett & Price's (2006) hybrid Wilson interval: Wilson limits :math:`(l_1, u_1)` for
        a + b and :math:`(l_2, u_2)` for a + c out of :math:`n^* = a + b + c`, computed with
        :math:`z^* = z\,A/(B + C)`, :math:`A = \sqrt{(b + c + 2)/((a+b+1)(a+c+1))}`,
        :math:`B = \sqrt{(1 - (a+b+1)/(n^*+2))/(a+b+1)}`,
        :math:`C = \sqrt{(1 - (a+c+1)/(n^*+2))/(a+c+1)}`; the interval is
        :math:`(l_1/u_2, u_1/l_2)`, and (0, inf) when :math:`n^* = 0`.
    ``"mover-wilson"``
        MOVER (Donner & Zou 2012) with the Wilson limits of :math:`p_1 = (a+b)/N` and
        :math:`p_2 = (a+c)/N` and their plain correlation
        :math:`\rho = (ad - bc)/\sqrt{(a+b)(c+d)(a+c)(b+d)}`:
        :math:`L = (g + \sqrt{g^2 - l_1(2p_1 - l_1)u_2(2p_2 - u_2)})/(u_2(u_2 - 2p_2))`,
        :math:`g = \rho(p_1 - l_1)(u_2 - p_2) - p_1 p_2`, and U likewise with
        :math:`(u_1, l_2)`; L is at least 0 and an undefined or negative U becomes inf.

    Parameters
    ----------
    a, b, c, d, confidence_level
        As in :func:`difference_interval`.
    method : str, default "tang"
        One of :data:`RATIO_METHODS`.

    Returns
    -------
    ConfidenceInterval
        Limits in [0, inf], shaped as :func:`difference_interval`'s; (0, inf) for every
        method where a + b + c = 0 (no item right for either system).

    Raises
    ------
    McNemarError
        Where :func:`difference_interval` raises.

    References
    ----------
    Tang NS, Tang ML, Chan ISF (2003). On tests of equivalence via non-unity relative risk for
    matched-pair design. Statistics in Medicine 22:1217-1233.
    Bonett DG, Price RM (2006). Confidence intervals for a ratio of binomial proportions based
    on paired data. Statistics in Medicine 25:3039-3047.
    Donner A, Zou GY (2012). Closed-form confidence intervals for functions of the normal mean
    and standard deviation. Statistical Methods in Medical Research 21:347-359.
    Fagerland MW, Lydersen S, Laake P (2014). Recommended tests and confidence intervals for
    paired binomial proportions. Statistics in Medicine 33:2850-2875.

    Examples
    --------
    >>> print(ratio_interval(157, 17, 3, 23))
    [1.0355, 1.1573]
    >>> print(ratio_interval(1, 1, 7, 12, method="bonett-price"))
    [0.0677, 0.9227]
    """
    return whole_table_interval(
        _ratio_limits, RATIO_METHODS, "ratio", (a, b, c, d), confidence_level, method
    )


#: The methods of :func:`ratio_interval` with closed-form limits (no search).
CLOSED_FORMS: Final = ("wald", "bonett-price", "mover-wilson")


def closed_form_limits(methods: tuple[str, ...], a: FloatArray, b: FloatArray, c: FloatArray,
                       d: FloatArray, level: FloatArray) -> list[tuple[FloatArray, FloatArray]]:
    """:func:`_ratio_limits` of each of ``methods`` (of :data:`CLOSED_FORMS`), in one pass
    over the tables (:func:`mcnemar.intervals._roots.by_table_many`): the same limits."""
    return by_table_many(tuple(_RATIO_IMPL[m] for m in methods), (a, b, c, d, _z(level)))


def _ratio_limits(
    method: str, a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray, level: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """The limits of :func:`ratio_interval` for checked flat float64 cells and levels."""
    return by_table(_RATIO_IMPL[method], (a, b, c, d, _z(level)))
