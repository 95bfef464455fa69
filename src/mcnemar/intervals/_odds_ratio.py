"""Intervals for the conditional odds ratio b/c: :func:`odds_ratio_interval`."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final, overload

from numpy.typing import ArrayLike

from mcnemar.intervals._api import log_wald, unbounded_where
from mcnemar.intervals._inputs import _check_method, _finish, _Limits, _prepare, _Scalar, _z
from mcnemar.intervals._result import ConfidenceInterval, FloatArray
from mcnemar.intervals._roots import (
    ARRAYS,
    IntervalOps,
    Limits,
    Real,
    _newton_root,
    _wilson,
    by_table,
    normal_score,
    normal_score_gap,
)
from mcnemar.vocabulary import ODDS_RATIO_INTERVALS, names

_SQRT_2PI: Final = math.sqrt(2.0 * math.pi)

#: Methods of :func:`odds_ratio_interval`.
ODDS_RATIO_METHODS: Final[tuple[str, ...]] = names(ODDS_RATIO_INTERVALS)


# ---------------------------------------------------------------------------------------------
# Conditional odds ratio
# ---------------------------------------------------------------------------------------------


def _midp_excess(xp: IntervalOps, p: Real, x: Real, n: Real, alpha: Real) -> Any:
    """The mid-p tail P(X > x) + P(X = x)/2 of X ~ Bin(n, p) less alpha, on the normal-score
    scale: P(X >= x) = I_p(x, n - x + 1), P(X >= x + 1) = I_p(x + 1, n - x) (0 where x = n)."""
    return normal_score_gap(xp, _midp_tail(xp, p, x, n), alpha)


def _midp_tail(xp: IntervalOps, p: Real, x: Real, n: Real) -> Any:
    at_least = xp.betainc(x, n - x + 1.0, p)
    above = xp.where(x < n, xp.betainc(x + 1.0, n - x, p), 0.0)
    return 0.5 * (at_least + above)


def _midp_excess_and_slope(xp: IntervalOps, p: Real, x: Real, n: Real, alpha: Real,
                           log_norm: Real) -> tuple[Any, Any]:
    """:func:`_midp_excess` and its derivative in p, for Newton's method (0 < p < 1).

    d I_p(a, b)/dp is the Beta(a, b) density; that of (x + 1, n - x) is that of
    (x, n - x + 1), f, times (n - x) p / (x (1 - p)), so the tail's slope is
    f (1 + (n - x) p / (x (1 - p)))/2 with log f = (x - 1) log p + (n - x) log(1 - p) -
    log B(x, n - x + 1) (``log_norm``); on the normal-score scale it is divided by the
    normal density at Phi^-1 of the tail.
    """
    score = normal_score(xp, _midp_tail(xp, p, x, n))
    density = xp.exp((x - 1.0) * xp.log(p) + (n - x) * xp.log1p(-p) - log_norm)
    slope = 0.5 * density * (1.0 + xp.divide((n - x) * p, x * (1.0 - p)))
    return score - xp.ndtri(alpha), slope * _SQRT_2PI * xp.exp(0.5 * score * score)


def _midp_limit(xp: IntervalOps, sign: Real, b: Real, c: Real, alpha: Real) -> Any:
    """The lower mid-p limit of a binomial proportion, P(X > x) + P(X = x)/2 = alpha, for
    x = b successes (sign 1: the lower limit of mu) or x = c (sign -1: 1 - the upper one) out
    of b + c, x > 0. It lies between the Clopper-Pearson limits for x and x + 1 successes,
    where the mid-p tail is below alpha and above it: Newton's method from their midpoint."""
    x = xp.where(sign > 0, b, c)
    n = b + c
    lo = xp.betaincinv(x, n - x + 1.0, alpha)
    hi = xp.where(x < n, xp.betaincinv(x + 1.0, n - x, alpha), 1.0)
    excess = xp.bind(_midp_excess, x, n, alpha)
    with_slope = xp.bind(_midp_excess_and_slope, x, n, alpha, xp.betaln(x, n - x + 1.0))
    # (the excess increases in p: positive on the side of hi, so no problem is a "lower" one)
    rising = x < 0.0
    return _newton_root(xp, with_slope, excess, lo, hi, 0.5 * (lo + hi), rising, atol=1e-300,
                        rtol=1e-13)


def _or_midp_limits(xp: IntervalOps, b: Real, c: Real, alpha: Real) -> Limits:
    """The mid-p limits of the odds ratio: mu's lower limit L_b and 1 - mu's lower limit L_c
    (0 without successes) give L_b/(1 - L_b) and (1 - L_c)/L_c. On arrays both kinds are one
    search (:func:`mcnemar.intervals._roots._two_sided_arrays`)."""
    low_b, low_c = xp.two_sided(_midp_limit, b > 0, c > 0, (b, c, alpha), 0.0, 0.0)
    return xp.divide(low_b, 1.0 - low_b), xp.divide(1.0 - low_c, low_c)


def _or_exact_limits(xp: IntervalOps, b: Real, c: Real, alpha: Real) -> Limits:
    """Clopper-Pearson limits of the odds ratio: those of mu = b/(b + c), mu and 1 - mu both
    taken as Beta quantiles (lower and upper tails) so that mu/(1 - mu) keeps its relative
    precision."""
    mu_low = xp.where(b > 0, xp.betaincinv(b, c + 1.0, alpha), 0.0)
    rest_low = xp.where(b > 0, xp.betainccinv(c + 1.0, b, alpha), 1.0)
    mu_high = xp.where(c > 0, xp.betainccinv(b + 1.0, c, alpha), 1.0)
    rest_high = xp.where(c > 0, xp.betaincinv(c, b + 1.0, alpha), 0.0)
    return xp.divide(mu_low, rest_low), xp.divide(mu_high, rest_high)


def _or_wilson_limits(xp: IntervalOps, b: Real, c: Real, z: Real) -> Limits:
    # Wilson limits are symmetric: 1 - u(b) = l(c), so mu/(1 - mu) = l(b)/u(c) and u(b)/l(c).
    lb, ub = _wilson(xp, b, b + c, z)
    lc, uc = _wilson(xp, c, b + c, z)
    return lb / uc, xp.divide(ub, lc)


def _or_wilson(b: FloatArray, c: FloatArray, z: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The Wilson limits of the odds ratio for flat float64 counts (b + c > 0) and normal
    quantiles."""
    return by_table(_or_wilson_limits, (b, c, z))


def _or_wald(xp: IntervalOps, b: Real, c: Real, z: Real, *, add: float) -> Limits:
    bb, cc = b + add, c + add
    estimate = xp.divide(bb, cc)
    se = xp.sqrt(xp.divide(1.0, bb) + xp.divide(1.0, cc))
    # (0, inf) unless both counts are positive, the only case with a finite positive estimate.
    return log_wald(xp, estimate, se, z)


def _or_unbounded(xp: IntervalOps, b: Real, c: Real, z: Real, *, formula: Callable[..., Limits],
                  **options: float) -> Limits:
    """A formula's limits, and (0, inf) without discordant pairs."""
    low, high = formula(xp, b, c, z, **options)
    return unbounded_where(xp, low, high, b + c == 0)


@overload
def odds_ratio_interval(
    b: _Scalar, c: _Scalar, *, confidence_level: _Scalar = ..., method: str = ...
) -> ConfidenceInterval[float]: ...


@overload
def odds_ratio_interval(
    b: ArrayLike, c: ArrayLike, *, confidence_level: ArrayLike = ..., method: str = ...
) -> ConfidenceInterval[Any]: ...


def odds_ratio_interval(
    b: ArrayLike,
    c: ArrayLike,
    *,
    confidence_level: ArrayLike = 0.95,
    method: str = "exact",
) -> ConfidenceInterval[Any]:
    r"""Confidence interval for the conditional odds ratio b/c.

    Given the m = b + c discordant pairs, b is binomial with :math:`\mu = \theta/(1 + \theta)`
    where :math:`\theta` is the conditional odds ratio; the first three methods compute an
    interval :math:`(L_\mu, U_\mu)` for :math:`\mu` and transform it by
    :math:`\mu/(1 - \mu)`:

    ``"exact"`` (default)
        Clopper-Pearson: :math:`L_\mu = B^{-1}(\alpha/2; b, c + 1)`,
        :math:`U_\mu = B^{-1}(1 - \alpha/2; b + 1, c)` (Beta quantiles; 0 and 1 at b = 0 and
        c = 0). It agrees with the exact McNemar test.
    ``"midp"``
        Clopper-Pearson mid-p: :math:`P(X > b) + P(X = b)/2 = \alpha/2` for the lower limit
        of :math:`\mu` and the mirror equation for the upper one.
    ``"wilson"``
        The Wilson score interval for b out of m.
    ``"wald"``
        :math:`(b/c)\exp(\mp z\sqrt{1/b + 1/c})`; (0, inf) when b or c is 0.
    ``"wald-laplace"``
        The Wald interval after adding 1 to b and to c.

    Parameters
    ----------
    b, c : int or array_like of int
        A right and B wrong; A wrong and B right. Arrays broadcast.
    confidence_level : float or array_like, default 0.95
        As in :func:`difference_interval`.
    method : str, default "exact"
        One of :data:`ODDS_RATIO_METHODS`.

    Returns
    -------
    ConfidenceInterval
        Limits in [0, inf]: (0, inf) with no discordant pairs (b = c = 0), where the data say
        nothing about the odds ratio, and an infinite upper limit when c = 0 < b (except for
        ``"wald-laplace"``).

    Raises
    ------
    McNemarError
        Where :func:`difference_interval` raises (for the counts b and c).

    References
    ----------
    Clopper CJ, Pearson ES (1934). The use of confidence or fiducial limits illustrated in the
    case of the binomial. Biometrika 26:404-413.
    Fagerland MW, Lydersen S, Laake P (2014). Recommended tests and confidence intervals for
    paired binomial proportions. Statistics in Medicine 33:2850-2875.

    Examples
    --------
    >>> print(odds_ratio_interval(25, 2))
    [3.1169, 108.8892]
    >>> print(odds_ratio_interval(25, 2, method="wald-laplace"))
    [2.6232, 28.6333]
    """
    name = _check_method(method, ODDS_RATIO_METHODS, "odds ratio")
    (bb, cc), level, shape, scalar = _prepare(("b", "c"), (b, c), confidence_level)
    return _finish(*_odds_ratio_limits(name, bb, cc, level), shape, scalar)


def _odds_ratio_limits(method: str, b: FloatArray, c: FloatArray, level: FloatArray) -> _Limits:
    """The limits of :func:`odds_ratio_interval` for checked flat float64 counts and levels."""
    if method == "wilson":
        return by_table(_or_unbounded, (b, c, _z(level)), formula=_or_wilson_limits)
    if method in ("wald", "wald-laplace"):
        return by_table(_or_unbounded, (b, c, _z(level)), formula=_or_wald,
                        add=1.0 if method == "wald-laplace" else 0.0)
    alpha = (1.0 - level) / 2.0
    formula = _or_exact_limits if method == "exact" else _or_midp_limits
    low, high = by_table(formula, (b, c, alpha))
    return unbounded_where(ARRAYS, low, high, b + c == 0)
