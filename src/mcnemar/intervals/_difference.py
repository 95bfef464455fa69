"""Intervals for the difference in accuracy (b - c)/N: :func:`difference_interval`."""

from __future__ import annotations

from typing import Any, Final

import numpy as np
from numpy.typing import ArrayLike, NDArray

from mcnemar.intervals._api import table_interval, whole_table_interval
from mcnemar.intervals._inputs import _DifferenceMethod, _Limits, _z
from mcnemar.intervals._melded import _melded_upper
from mcnemar.intervals._result import ConfidenceInterval, FloatArray
from mcnemar.intervals._roots import (
    _ROOT_ATOL,
    _find_root_from,
    _float_divide,
    _float_maximum,
    _float_sqrt,
    _larger_quadratic_root,
    _larger_quadratic_root_float,
    _paired_correlation,
    _paired_wilson,
)
from mcnemar.vocabulary import DIFFERENCE_INTERVALS, names

#: Methods of :func:`difference_interval`, in the order reports list them.
DIFFERENCE_METHODS: Final[tuple[str, ...]] = names(DIFFERENCE_INTERVALS)


# ---------------------------------------------------------------------------------------------
# Difference in accuracy
# ---------------------------------------------------------------------------------------------


def _wald(b: FloatArray, c: FloatArray, n: FloatArray, z: FloatArray, correction: float) -> _Limits:
    """(b - c)/n -+ z sqrt(b + c - (|b - c| - correction)^2/n)/n."""
    with np.errstate(divide="ignore", invalid="ignore"):
        delta = (b - c) / n
        # b = c = 0 makes the corrected variance negative; it is taken as zero, as in
        # contingencytables.
        se = np.sqrt(np.maximum(b + c - (np.abs(b - c) - correction) ** 2 / n, 0.0)) / n
    return delta - z * se, delta + z * se


def _diff_wald(
    a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray, z: FloatArray, level: FloatArray
) -> _Limits:
    return _wald(b, c, a + b + c + d, z, correction=0.0)


def _diff_wald_cc(
    a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray, z: FloatArray, level: FloatArray
) -> _Limits:
    return _wald(b, c, a + b + c + d, z, correction=1.0)


def _diff_agresti_min(
    a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray, z: FloatArray, level: FloatArray
) -> _Limits:
    # Wald after adding 1/2 to every cell: the plain Wald formula on the shifted table.
    return _wald(b + 0.5, c + 0.5, a + b + c + d + 2.0, z, correction=0.0)


def _diff_bonett_price(
    a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray, z: FloatArray, level: FloatArray
) -> _Limits:
    n2 = a + b + c + d + 2.0
    p12 = (b + 1.0) / n2
    p21 = (c + 1.0) / n2
    se = np.sqrt(np.maximum(p12 + p21 - (p12 - p21) ** 2, 0.0) / n2)
    return p12 - p21 - z * se, p12 - p21 + z * se


def _square_and_add(
    a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray, z: FloatArray, corrected: bool
) -> _Limits:
    p1, l1, u1, p2, l2, u2 = _paired_wilson(a, b, c, d, z)
    cross = a * d - b * c
    if corrected:
        # Newcombe's continuity correction applies only to positive association.
        half = (a + b + c + d) / 2
        cross = np.where(cross > half, cross - half, np.where(cross >= 0, 0.0, cross))
    phi = _paired_correlation(a, b, c, d, cross)
    with np.errstate(invalid="ignore"):
        x1, y1 = p1 - l1, u2 - p2
        x2, y2 = p2 - l2, u1 - p1
        delta = p1 - p2
        # x^2 + y^2 - 2 phi x y written as (x - y)^2 + 2(1 - phi) x y: with phi = 1 and
        # x = y the direct form leaves rounding noise that the square root blows up to ~1e-9.
        low = delta - np.sqrt(np.maximum((x1 - y1) ** 2 + 2.0 * (1.0 - phi) * x1 * y1, 0.0))
        high = delta + np.sqrt(np.maximum((x2 - y2) ** 2 + 2.0 * (1.0 - phi) * x2 * y2, 0.0))
    return low, high


def _diff_newcombe(
    a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray, z: FloatArray, level: FloatArray
) -> _Limits:
    return _square_and_add(a, b, c, d, z, corrected=True)


def _diff_newcombe_plain(
    a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray, z: FloatArray, level: FloatArray
) -> _Limits:
    return _square_and_add(a, b, c, d, z, corrected=False)


def _tango_statistic(delta0: FloatArray, b: FloatArray, c: FloatArray, n: FloatArray) -> FloatArray:
    """Tango's score statistic for H0: difference = delta0."""
    p21 = _larger_quadratic_root(
        2.0 * n, -b - c + (2.0 * n - b + c) * delta0, -c * delta0 * (1.0 - delta0)
    )
    variance = np.maximum(n * (2.0 * p21 + delta0 * (1.0 - delta0)), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray((b - c - n * delta0) / np.sqrt(variance), dtype=np.float64)


def _tango_statistic_float(delta0: float, b: float, c: float, n: float) -> float:
    """:func:`_tango_statistic` on Python floats, with the same operations."""
    p21 = _larger_quadratic_root_float(
        2.0 * n, -b - c + (2.0 * n - b + c) * delta0, -c * delta0 * (1.0 - delta0)
    )
    variance = _float_maximum(n * (2.0 * p21 + delta0 * (1.0 - delta0)), 0.0)
    return _float_divide(b - c - n * delta0, _float_sqrt(variance))


# The score statistic is singular at delta0 = -1 and 1; the search starts this close to them.
_EDGE = 2.0**-40


def _tango_probe(
    excess: Any, probe: FloatArray, centre: FloatArray, f_centre: FloatArray, edge: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, NDArray[np.bool_]]:
    """The search brackets of Tango limits: the far ends and the excess there, the near ends
    and the excess there, and whether each limit is inside (-1, 1) at all.

    ``excess`` is positive beyond the limit (towards ``edge``, -1 or 1 per limit) and
    ``f_centre`` at ``centre`` (delta_hat). The probe splits [edge, centre] (the edge within
    _EDGE) where it lies inside; no sign change between the edge and the near end puts the
    limit at the edge.
    """
    size = centre.size
    far = edge - np.copysign(_EDGE, edge)
    f_far = np.full(size, np.nan)
    near, f_near = centre.copy(), f_centre.copy()
    probed = np.flatnonzero(
        np.isfinite(probe) & ((probe - centre) * edge > 0) & ((far - probe) * edge > 0)
    )
    if probed.size:
        f_probe = excess(probe[probed], probed)
        beyond = f_probe > 0
        hit, short = probed[beyond], probed[~beyond]
        far[hit], f_far[hit] = probe[hit], f_probe[beyond]
        near[short], f_near[short] = probe[short], f_probe[~beyond]
    rest = np.flatnonzero(np.isnan(f_far))
    if rest.size:
        f_far[rest] = excess(far[rest], rest)
    return far, f_far, near, f_near, f_far > 0


def _diff_tango(
    a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray, z: FloatArray, level: FloatArray
) -> _Limits:
    n = a + b + c + d
    with np.errstate(divide="ignore", invalid="ignore"):
        delta = (b - c) / n
    low = np.full_like(delta, -1.0)
    high = np.full_like(delta, 1.0)

    # Wald's limits, moved a tenth of their distance from delta_hat outwards: a probe
    # usually just beyond Tango's limit, which narrows the bracket to where T is nearly linear.
    with np.errstate(divide="ignore", invalid="ignore"):
        half = 1.1 * z * np.sqrt(np.maximum(b + c - (b - c) ** 2 / n, 0.0)) / n

    # Lower limit: T(L) = z on (-1, delta_hat); T decreases and T(delta_hat) = 0. Upper limit:
    # T(U) = -z on (delta_hat, 1). Both are searched at once, the lower ones first: each
    # problem's steps are its own, so the limits are those of separate searches, and a single
    # table pays numpy's cost per call once per step instead of twice.
    sel_low = np.flatnonzero((n > 0) & (delta > -1.0))
    sel_up = np.flatnonzero((n > 0) & (delta < 1.0))
    sel = np.concatenate([sel_low, sel_up])
    if sel.size:
        bs, cs, ns, zs = b[sel], c[sel], n[sel], z[sel]
        # +1 for a lower limit (excess T - z), -1 for an upper one (excess -T - z, which is
        # -(T + z) exactly): positive beyond the limit, -z at delta_hat
        sign = np.concatenate([np.ones(sel_low.size), -np.ones(sel_up.size)])

        def excess(x: FloatArray, idx: NDArray[np.intp]) -> FloatArray:
            return sign[idx] * _tango_statistic(x, bs[idx], cs[idx], ns[idx]) - zs[idx]

        fb, fc, fn, fz, fsign = (v.tolist() for v in (bs, cs, ns, zs, sign))

        def excess_floats(xs: list[float], positions: list[int]) -> list[float]:
            return [
                fsign[i] * _tango_statistic_float(x, fb[i], fc[i], fn[i]) - fz[i]
                for x, i in zip(xs, positions, strict=True)
            ]

        far, f_far, near, f_near, inside = _tango_probe(
            excess, delta[sel] - sign * half[sel], delta[sel], -zs, -sign
        )
        lower = sign > 0
        root = _find_root_from(excess, far, near, f_far, f_near, lower, atol=_ROOT_ATOL,
                               rtol=1e-13, nearer=True, f_floats=excess_floats)
        # No sign change means the whole of (-1, delta_hat] (or [delta_hat, 1)) is inside the
        # interval.
        limit = np.where(inside, root, -sign)
        low[sel_low] = limit[: sel_low.size]
        high[sel_up] = limit[sel_low.size :]

    undefined = n == 0
    low[undefined] = np.nan
    high[undefined] = np.nan
    return low, high


def _diff_exact(
    a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray, z: FloatArray, level: FloatArray
) -> _Limits:
    n = a + b + c + d
    m = b + c
    alpha = (1.0 - level) / 2.0
    low = np.full_like(n, np.nan)
    high = np.full_like(n, np.nan)
    ok = np.flatnonzero(n > 0)
    # Mirror symmetry: swapping b and c negates the difference, so L(b, c) = -U(c, b); both
    # limits in one call (one search).
    both = _melded_upper(
        np.concatenate([b[ok], c[ok]]), np.tile(m[ok], 2), np.tile(n[ok], 2),
        np.tile(alpha[ok], 2),
    )
    high[ok] = both[: ok.size]
    low[ok] = -both[ok.size :]
    return low, high


_DIFFERENCE_IMPL: Final[dict[str, _DifferenceMethod]] = {
    "wald": _diff_wald,
    "wald-cc": _diff_wald_cc,
    "agresti-min": _diff_agresti_min,
    "bonett-price": _diff_bonett_price,
    "newcombe": _diff_newcombe,
    "newcombe-plain": _diff_newcombe_plain,
    "tango": _diff_tango,
    "exact": _diff_exact,
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
) -> _Limits:
    """The limits of :func:`difference_interval` for checked flat float64 cells and levels."""
    low, high = _DIFFERENCE_IMPL[method](a, b, c, d, _z(level), level)
    # np.clip(x, -1, 1), without its cost per call on small arrays
    low = np.minimum(np.maximum(low, -1.0), 1.0)
    high = np.minimum(np.maximum(high, -1.0), 1.0)
    # Without items there is no difference to estimate, whatever a method's pseudo-counts say.
    empty = a + b + c + d == 0
    low[empty] = np.nan
    high[empty] = np.nan
    return low, high


