"""Intervals for the ratio of accuracies (a + b)/(a + c): :func:`ratio_interval`."""

from __future__ import annotations

from typing import Any, Final

import numpy as np
from numpy.typing import ArrayLike, NDArray

from mcnemar.intervals._api import log_wald, table_interval, unbounded_where, whole_table_interval
from mcnemar.intervals._inputs import _DifferenceMethod, _Limits, _z
from mcnemar.intervals._result import ConfidenceInterval, FloatArray
from mcnemar.intervals._roots import (
    _find_root_from,
    _float_divide,
    _float_maximum,
    _float_sqrt,
    _larger_quadratic_root,
    _larger_quadratic_root_float,
    _paired_correlation,
    _paired_wilson,
    _wilson,
)
from mcnemar.vocabulary import RATIO_INTERVALS, names

#: Methods of :func:`ratio_interval`.
RATIO_METHODS: Final[tuple[str, ...]] = names(RATIO_INTERVALS)


# ---------------------------------------------------------------------------------------------
# Ratio of accuracies
# ---------------------------------------------------------------------------------------------


def _ratio_wald(
    a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray, z: FloatArray, level: FloatArray
) -> _Limits:
    with np.errstate(divide="ignore", invalid="ignore"):
        estimate = (a + b) / (a + c)
        se = np.sqrt((b + c) / ((a + b) * (a + c)))
    # A zero margin leaves the log scale undefined: the interval is the whole half-line.
    return log_wald(estimate, se, z)


def _tang_statistic(
    phi0: FloatArray, a: FloatArray, b: FloatArray, c: FloatArray, n: FloatArray
) -> FloatArray:
    """Tang, Tang & Chan's score statistic for H0: ratio = phi0."""
    p21 = _larger_quadratic_root(
        n * (1.0 + phi0),
        (a + c) * phi0 * phi0 - (a + b + 2.0 * c),
        c * (1.0 - phi0) * (a + b + c) / n,
    )
    variance = np.maximum(n * (1.0 + phi0) * p21 + (a + b + c) * (phi0 - 1.0), 0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.asarray(((a + b) - (a + c) * phi0) / np.sqrt(variance), dtype=np.float64)


def _tang_statistic_float(phi0: float, a: float, b: float, c: float, n: float) -> float:
    """:func:`_tang_statistic` on Python floats, with the same operations."""
    p21 = _larger_quadratic_root_float(
        n * (1.0 + phi0),
        (a + c) * phi0 * phi0 - (a + b + 2.0 * c),
        _float_divide(c * (1.0 - phi0) * (a + b + c), n),
    )
    variance = _float_maximum(n * (1.0 + phi0) * p21 + (a + b + c) * (phi0 - 1.0), 0.0)
    return _float_divide((a + b) - (a + c) * phi0, _float_sqrt(variance))


def _tang_limit(
    a: FloatArray,
    b: FloatArray,
    c: FloatArray,
    n: FloatArray,
    z: FloatArray,
    estimate: FloatArray,
    sign: FloatArray,
) -> FloatArray:
    """Tang limits, searched on the log scale, for tables with a finite positive estimate:
    lower limits where ``sign`` is 1, upper ones where it is -1 (each problem's search is its
    own, so one call for both gives the limits of separate calls)."""
    lower = sign > 0

    def excess(s: FloatArray, idx: NDArray[np.intp]) -> FloatArray:
        # Lower limit: T(phi) - z, positive below the root; upper: -(T(phi) + z), likewise.
        t = _tang_statistic(np.exp(s), a[idx], b[idx], c[idx], n[idx])
        return np.asarray(sign[idx] * t - z[idx], dtype=np.float64)

    fa, fb, fc, fn, fz, fsign = (v.tolist() for v in (a, b, c, n, z, sign))

    def excess_floats(xs: list[float], positions: list[int]) -> list[float]:
        phis = np.exp(np.array(xs)).tolist()
        return [
            fsign[i] * _tang_statistic_float(phi, fa[i], fb[i], fc[i], fn[i]) - fz[i]
            for phi, i in zip(phis, positions, strict=True)
        ]

    centre = np.log(estimate)
    near, f_near = centre.copy(), -z.copy()
    # A probe a tenth beyond the Wald limit on the log scale usually lands just past the root,
    # where the statistic is nearly linear: then [probe, centre] is the bracket.
    with np.errstate(divide="ignore", invalid="ignore"):
        probe = centre - sign * 1.1 * z * np.sqrt((b + c) / ((a + b) * (a + c)))
    probed = np.flatnonzero(np.isfinite(probe) & (probe != centre))
    f_probe = excess(probe[probed], probed) if probed.size else np.zeros(0)
    hit = np.zeros(centre.size, dtype=bool)
    hit[probed[f_probe > 0]] = True
    far = np.where(hit, probe, np.nan)
    f_far = np.full(centre.size, np.nan)
    f_far[probed[f_probe > 0]] = f_probe[f_probe > 0]
    # Elsewhere: T(phi) tends to +inf as phi -> 0 and to -inf as phi -> inf; widen the bracket
    # by doubling steps on the log scale from 1 until the sign changes.
    rest = np.flatnonzero(~hit)
    if rest.size:
        step = np.ones(rest.size)
        far[rest] = centre[rest] - sign[rest] * step
        f_far[rest] = excess(far[rest], rest)
        for _ in range(10):
            short = ~(f_far[rest] > 0)
            if not short.any():
                break
            step[short] *= 2.0
            far[rest[short]] = centre[rest[short]] - sign[rest[short]] * step[short]
            f_far[rest[short]] = excess(far[rest[short]], rest[short])
        # a probe short of the root between the centre and the far end is the near end
        missed = probed[f_probe <= 0]
        between = (probe[missed] - far[missed]) * sign[missed] > 0
        near[missed[between]] = probe[missed[between]]
        f_near[missed[between]] = f_probe[f_probe <= 0][between]
    found = f_far > 0
    root = _find_root_from(excess, far, near, f_far, f_near, lower, atol=1e-14,
                           f_floats=excess_floats)
    limit = np.exp(root)
    limit[~found] = np.where(lower, 0.0, np.inf)[~found]
    return np.asarray(limit, dtype=np.float64)


def _ratio_tang(
    a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray, z: FloatArray, level: FloatArray
) -> _Limits:
    # The variance in the statistic cancels as phi0 -> 0 (it loses ~6 digits at phi0 ~ 1e-5),
    # while it is well conditioned for large phi0. The interval respects the swap of the
    # systems (L(b, c) = 1/U(c, b)), so tables with an estimate below 1 are solved swapped.
    flip = (a + b) < (a + c)
    b, c = np.where(flip, c, b), np.where(flip, b, c)
    n = a + b + c + d
    with np.errstate(divide="ignore", invalid="ignore"):
        estimate = (a + b) / (a + c)
    low = np.zeros_like(estimate)
    high = np.full_like(estimate, np.inf)
    inner = np.flatnonzero(np.isfinite(estimate) & (estimate > 0))
    if inner.size:
        # both limits in one search: a single table pays numpy's cost per call once per step
        aa, bb, cc, nn, zz, ee = (np.tile(x[inner], 2) for x in (a, b, c, n, z, estimate))
        both = _tang_limit(aa, bb, cc, nn, zz, ee, sign=np.repeat([1.0, -1.0], inner.size))
        low[inner], high[inner] = both[: inner.size], both[inner.size :]
    # With a + c = 0 the statistic reduces to sqrt((a + b)/phi0), so L = (a + b)/z^2 (and,
    # swapped back, U = z^2/(a + b) when a + b = 0 < a + c).
    only_a = (a + c == 0) & (a + b > 0)
    low[only_a] = (a + b)[only_a] / z[only_a] ** 2
    with np.errstate(divide="ignore"):
        return np.where(flip, 1.0 / high, low), np.where(flip, 1.0 / low, high)


def _ratio_bonett_price(
    a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray, z: FloatArray, level: FloatArray
) -> _Limits:
    n_star = a + b + c
    x1 = a + b
    x2 = a + c
    with np.errstate(divide="ignore", invalid="ignore"):
        big_a = np.sqrt((b + c + 2.0) / ((x1 + 1.0) * (x2 + 1.0)))
        big_b = np.sqrt((1.0 - (x1 + 1.0) / (n_star + 2.0)) / (x1 + 1.0))
        big_c = np.sqrt((1.0 - (x2 + 1.0) / (n_star + 2.0)) / (x2 + 1.0))
        z_star = big_a / (big_b + big_c) * z
        l1, u1 = _wilson(x1, n_star, z_star)
        l2, u2 = _wilson(x2, n_star, z_star)
        low = l1 / u2
        high = u1 / l2
    return unbounded_where(low, high, n_star == 0)


def _mover_discriminant(
    p1: FloatArray, p2: FloatArray, x: FloatArray, y: FloatArray, rho: FloatArray
) -> FloatArray:
    """beta^2 - alpha q of the MOVER ratio quadratic, expanded without cancellation.

    With beta = p1 p2 - rho x y, alpha = p2^2 - y^2 and q = p1^2 - x^2 the discriminant is
    (p1 y - p2 x)^2 + (1 - rho) x y (2 p1 p2 - (1 + rho) x y), which is non-negative and exactly
    (p1 y - p2 x)^2 at rho = 1, where the direct form would leave noise of order 1e-8 after the
    square root.
    """
    disc = (p1 * y - p2 * x) ** 2 + (1.0 - rho) * x * y * (2.0 * p1 * p2 - (1.0 + rho) * x * y)
    return np.asarray(np.maximum(disc, 0.0), dtype=np.float64)


def _ratio_mover_wilson(
    a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray, z: FloatArray, level: FloatArray
) -> _Limits:
    p1, l1, u1, p2, l2, u2 = _paired_wilson(a, b, c, d, z)
    corr = _paired_correlation(a, b, c, d, a * d - b * c)
    with np.errstate(divide="ignore", invalid="ignore"):
        # MOVER for a ratio (Donner & Zou 2012): L is the root in (0, phi_hat) of
        # alpha_l L^2 - 2 beta_l L + q_l = 0, and U the root above phi_hat of the analogous
        # quadratic. The roots are written in the form without cancellation, which also
        # keeps L(b, c) = 1/U(c, b) exact.
        x, y = p1 - l1, u2 - p2
        beta_l = p1 * p2 - corr * x * y
        q_l = l1 * (2.0 * p1 - l1)
        alpha_l = u2 * (2.0 * p2 - u2)
        root_l = np.sqrt(_mover_discriminant(p1, p2, x, y, corr))
        low = np.where(beta_l > 0, q_l / (beta_l + root_l), (beta_l - root_l) / alpha_l)
        x, y = u1 - p1, p2 - l2
        beta_u = p1 * p2 - corr * x * y
        q_u = u1 * (2.0 * p1 - u1)
        alpha_u = l2 * (2.0 * p2 - l2)
        root_u = np.sqrt(_mover_discriminant(p1, p2, x, y, corr))
        high = np.where(beta_u >= 0, (beta_u + root_u) / alpha_u, q_u / (beta_u - root_u))
    low = np.where(np.isnan(low), 0.0, np.maximum(low, 0.0))
    high = np.where(np.isnan(high) | (high < 0), np.inf, high)
    # With rho = 1 and equal margins the interval shrinks to the estimate; keep rounding from
    # putting the limits on the wrong side of it.
    with np.errstate(divide="ignore", invalid="ignore"):
        estimate = (a + b) / (a + c)
    inner = np.isfinite(estimate)
    low[inner] = np.minimum(low, estimate)[inner]
    high[inner] = np.maximum(high, estimate)[inner]
    return unbounded_where(low, high, a + b + c == 0)


_RATIO_IMPL: Final[dict[str, _DifferenceMethod]] = {
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


def _ratio_limits(
    method: str, a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray, level: FloatArray
) -> _Limits:
    """The limits of :func:`ratio_interval` for checked flat float64 cells and levels."""
    return _RATIO_IMPL[method](a, b, c, d, _z(level), level)


