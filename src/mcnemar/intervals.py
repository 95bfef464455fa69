"""Confidence intervals for a paired 2x2 table, vectorized over many tables.

Two systems A and B are scored on the same N items; the paired table counts
a = both right, b = A right and B wrong, c = A wrong and B right, d = both wrong.
This module holds the two-sided confidence intervals for the three effect sizes of that table:

* :func:`difference_interval` -- accuracy(A) - accuracy(B) = (b - c)/N;
* :func:`ratio_interval` -- accuracy(A)/accuracy(B) = (a + b)/(a + c);
* :func:`odds_ratio_interval` -- the conditional odds ratio b/c;

together with their point estimates (:func:`difference_estimate`, :func:`ratio_estimate`,
:func:`odds_ratio_estimate`), the Wilson score interval for one proportion
(:func:`wilson_interval`), the result type :class:`ConfidenceInterval` and the tuples of
method names (:data:`DIFFERENCE_METHODS`, :data:`RATIO_METHODS`, :data:`ODDS_RATIO_METHODS`).

Every function accepts scalars or numpy arrays that broadcast together (one table per element)
and works on all tables at once; the score intervals that need root finding use one bracketed
solver over the whole array. Scalar input gives Python floats; array input gives arrays of the
broadcast shape. Where a quantity is undefined (N = 0, no discordant pairs for the odds ratio)
the limits are nan or the whole parameter range; nothing raises for valid counts.

The formulas follow Fagerland, Lydersen & Laake (2014) and their R package contingencytables,
whose published values the tests reproduce.

References
----------
Fagerland MW, Lydersen S, Laake P (2014). Recommended tests and confidence intervals for paired
binomial proportions. Statistics in Medicine 33:2850-2875.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from mcnemar.errors import McNemarError, TableError

__all__ = [
    "DIFFERENCE_METHODS",
    "ODDS_RATIO_METHODS",
    "RATIO_METHODS",
    "ConfidenceInterval",
    "difference_estimate",
    "difference_interval",
    "odds_ratio_estimate",
    "odds_ratio_interval",
    "ratio_estimate",
    "ratio_interval",
    "wilson_interval",
]

FloatArray = NDArray[np.float64]
# One count or confidence level; overloads map all-scalar calls to Python float limits.
_Scalar = int | float | np.integer[Any] | np.floating[Any]
_L = TypeVar("_L", float, FloatArray)

#: Methods of :func:`difference_interval`, in the order reports list them.
DIFFERENCE_METHODS: Final[tuple[str, ...]] = (
    "wald",
    "wald-cc",
    "agresti-min",
    "bonett-price",
    "newcombe",
    "newcombe-plain",
    "tango",
    "exact",
)
#: Methods of :func:`ratio_interval`.
RATIO_METHODS: Final[tuple[str, ...]] = ("wald", "tang", "bonett-price", "mover-wilson")
#: Methods of :func:`odds_ratio_interval`.
ODDS_RATIO_METHODS: Final[tuple[str, ...]] = ("exact", "midp", "wilson", "wald", "wald-laplace")


# ---------------------------------------------------------------------------------------------
# Result type
# ---------------------------------------------------------------------------------------------


def _format_limit(value: float) -> str:
    if np.isnan(value):
        return "nan"
    if np.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value != 0 and abs(value) < 1e-3:
        return f"{value:.3g}"
    if abs(value) >= 1e6:
        return f"{value:.4g}"
    return f"{value:.4f}"


def _json_safe(value: float | FloatArray) -> Any:
    if np.ndim(value) == 0:
        number = float(value)
        return number if np.isfinite(number) else None
    array = np.asarray(value, dtype=float)
    listed = array.astype(object)
    listed[~np.isfinite(array)] = None
    return listed.tolist()


@dataclass(frozen=True, slots=True)
class ConfidenceInterval(Generic[_L]):
    """A two-sided confidence interval ``[low, high]``, for one table or an array of tables.

    Attributes
    ----------
    low, high : float or numpy.ndarray
        The limits: Python floats when the interval was computed from scalars, arrays of the
        broadcast shape otherwise. Undefined limits are ``nan``; an unbounded upper limit of a
        ratio or odds ratio is ``inf``.

    Notes
    -----
    The interval unpacks like a pair (``low, high = ci``). :meth:`to_dict` is the JSON form,
    with ``None`` in place of ``nan`` and ``inf``.

    Examples
    --------
    >>> ci = ConfidenceInterval(0.026236, 0.116610)
    >>> print(ci)
    [0.0262, 0.1166]
    >>> low, high = ci
    >>> ci.to_dict()
    {'low': 0.026236, 'high': 0.11661}
    """

    low: _L
    high: _L

    def __class_getitem__(cls, item: Any) -> Any:
        # ConfidenceInterval[float] is for type checkers; at run time it is the class itself,
        # because typing's alias would try to set __orig_class__ on the frozen, slotted instance.
        return cls

    def __iter__(self) -> Iterator[_L]:
        yield self.low
        yield self.high

    def to_dict(self) -> dict[str, Any]:
        """Return ``{"low": ..., "high": ...}``, JSON-safe (``None`` for nan and infinite limits;
        nested lists for arrays)."""
        return {"low": _json_safe(self.low), "high": _json_safe(self.high)}

    def __str__(self) -> str:
        if np.ndim(self.low) == 0 and np.ndim(self.high) == 0:
            return f"[{_format_limit(float(self.low))}, {_format_limit(float(self.high))}]"
        lows, highs = np.broadcast_arrays(np.asarray(self.low), np.asarray(self.high))
        pairs: list[str] = [
            f"[{_format_limit(float(lo))}, {_format_limit(float(hi))}]"
            for lo, hi in zip(lows.ravel(), highs.ravel(), strict=True)
        ]
        if len(pairs) > 12:
            pairs = [*pairs[:5], "...", *pairs[-5:]]
        prefix = f"shape {lows.shape}: " if lows.ndim > 1 else ""
        return prefix + "[" + ", ".join(pairs) + "]"


# ---------------------------------------------------------------------------------------------
# Input handling
# ---------------------------------------------------------------------------------------------


def _echo(values: FloatArray, bad: NDArray[np.bool_]) -> str:
    first = values[bad].ravel()[0]
    shown = int(first) if np.isfinite(first) and first == int(first) else float(first)
    if values.ndim == 0:
        return repr(shown)
    return f"{shown!r} (at index {np.argwhere(bad)[0].tolist()})"


def _as_counts(names: tuple[str, ...], values: tuple[ArrayLike, ...]) -> list[FloatArray]:
    arrays = []
    for name, value in zip(names, values, strict=True):
        raw = np.asarray(value)
        if raw.dtype.kind not in "iuf" and not (
            raw.dtype.kind == "O" and all(isinstance(v, int | float) for v in raw.ravel())
        ):
            raise TableError(
                f"{name} must be a non-negative whole number of items (or an array of them); "
                f"got {value!r}"
            )
        array = raw.astype(np.float64)
        # Integer input needs only the sign check; the float checks cost three more passes.
        bad: NDArray[np.bool_] | None = None
        if raw.dtype.kind == "i":
            bad = array < 0
        elif raw.dtype.kind != "u":
            bad = ~np.isfinite(array) | (array < 0) | (array != np.floor(array))
        if bad is not None and bad.any():
            raise TableError(
                f"{name} must be a non-negative whole number of items; got {_echo(array, bad)}"
            )
        arrays.append(array)
    return arrays


def _check_confidence_level(confidence_level: ArrayLike) -> FloatArray:
    message = "confidence_level must be a real number strictly between 0 and 1 (e.g. 0.95)"
    raw = np.asarray(confidence_level)
    # bool is an int subclass and complex converts with a warning: both are caller mistakes.
    if raw.dtype.kind not in "iuf":
        raise McNemarError(f"{message}; got {confidence_level!r}")
    level = raw.astype(np.float64)
    bad = ~((level > 0) & (level < 1))
    if bad.any():
        raise McNemarError(f"{message}, not a percentage; got {_echo(level, bad)}")
    return level


def _check_method(method: object, valid: tuple[str, ...], what: str) -> str:
    if not isinstance(method, str) or method not in valid:
        listed = ", ".join(repr(m) for m in valid)
        raise McNemarError(
            f"method for the {what} interval must be one of {listed}; got {method!r}"
        )
    return method


def _prepare(
    count_names: tuple[str, ...],
    counts: tuple[ArrayLike, ...],
    confidence_level: ArrayLike,
) -> tuple[list[FloatArray], FloatArray, tuple[int, ...], bool]:
    """Validate, broadcast and flatten the inputs; remember whether they were all scalars."""
    arrays = _as_counts(count_names, counts)
    level = _check_confidence_level(confidence_level)
    scalar = all(np.ndim(x) == 0 for x in (*counts, confidence_level))
    try:
        *broadcast, level_b = np.broadcast_arrays(*arrays, level)
    except ValueError:
        shapes = ", ".join(f"{n}{np.shape(x)}" for n, x in zip(count_names, arrays, strict=True))
        raise TableError(
            f"the counts and confidence_level must broadcast to one shape; got {shapes}, "
            f"confidence_level{np.shape(level)}"
        ) from None
    shape = level_b.shape
    flat = [np.ascontiguousarray(x, dtype=np.float64).ravel() for x in broadcast]
    return flat, np.ascontiguousarray(level_b).ravel(), shape, scalar


def _finish(
    low: FloatArray, high: FloatArray, shape: tuple[int, ...], scalar: bool
) -> ConfidenceInterval[Any]:
    if scalar:
        return ConfidenceInterval(float(low[0]), float(high[0]))
    return ConfidenceInterval(low.reshape(shape), high.reshape(shape))


def _z(level: FloatArray) -> FloatArray:
    """Two-sided standard normal quantile z = Phi^-1(1 - alpha/2)."""
    if level.size > 1 and np.all(level == level[0]):
        # One level broadcast over many tables: one quantile, not one per table.
        return np.full(level.shape, -special.ndtri((1.0 - level[0]) / 2.0))
    return np.asarray(-special.ndtri((1.0 - level) / 2.0), dtype=np.float64)


# ---------------------------------------------------------------------------------------------
# Numerical tools
# ---------------------------------------------------------------------------------------------

#: f(x, idx) evaluates a function at points x for the problems with positions idx.
_Objective = Callable[[FloatArray, NDArray[np.intp]], FloatArray]


def _find_root(
    f: _Objective,
    lo: FloatArray,
    hi: FloatArray,
    f_lo: FloatArray,
    f_hi: FloatArray,
    *,
    atol: float,
    rtol: float = 4e-16,
    maxiter: int = 400,
) -> FloatArray:
    """Solve f(x) = 0 for many independent brackets at once.

    Each bracket [lo, hi] must hold a sign change (f_lo and f_hi of opposite signs, or one of
    them zero). The step is the Illinois variant of regula falsi; a bisection step replaces it
    whenever the bracket failed to halve over the previous three steps, so the worst case is a
    small multiple of plain bisection. As in Brent's method no point closer than the tolerance
    to an end of the bracket is evaluated, so once an iterate is that close to the root the
    next one lands on its other side and closes the bracket. Every problem stops on its own
    once its bracket is narrower than ``atol + rtol*|x|``, so an element's result does not
    depend on the others in the array.
    """
    result = np.where(f_lo == 0, lo, np.where(f_hi == 0, hi, 0.5 * (lo + hi)))
    tight = np.abs(hi - lo) <= atol + rtol * np.maximum(np.abs(lo), np.abs(hi))
    idx = np.flatnonzero(~((f_lo == 0) | (f_hi == 0) | tight))
    a, b = lo[idx].copy(), hi[idx].copy()
    fa, fb = f_lo[idx].copy(), f_hi[idx].copy()
    widths = [np.full(idx.size, np.inf) for _ in range(3)]
    for _ in range(maxiter):
        if idx.size == 0:
            break
        left, right = np.minimum(a, b), np.maximum(a, b)
        width = right - left
        tol = 0.5 * (atol + rtol * np.maximum(np.abs(a), np.abs(b)))
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            secant = b - fb * (b - a) / (fb - fa)
        inside = np.isfinite(secant) & (secant > left) & (secant < right)
        bisect = ~inside | (width > 0.5 * widths[2])
        x = np.where(bisect, 0.5 * (a + b), secant)
        x = np.where(width > 4.0 * tol, np.clip(x, left + tol, right - tol), 0.5 * (a + b))
        fx = f(x, idx)
        flip = np.signbit(fx) != np.signbit(fb)
        # Illinois: an endpoint kept twice has its function value halved, which pulls the
        # next secant towards it and avoids the one-sided crawl of plain regula falsi.
        fa = np.where(flip, fb, np.where(bisect, fa, 0.5 * fa))
        a = np.where(flip, b, a)
        b, fb = x, fx
        widths = [width, widths[0], widths[1]]
        done = (fx == 0) | (np.abs(b - a) <= 2.0 * tol)
        if done.any():
            result[idx[done]] = b[done]
            keep = ~done
            idx, a, b, fa, fb = idx[keep], a[keep], b[keep], fa[keep], fb[keep]
            widths = [w[keep] for w in widths]
    result[idx] = b
    return result


def _larger_quadratic_root(qa: FloatArray, qb: FloatArray, qc: FloatArray) -> FloatArray:
    """(-B + sqrt(B^2 - 4AC))/(2A) for A > 0, without cancellation when B > 0."""
    root = np.sqrt(np.maximum(qb * qb - 4.0 * qa * qc, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(qb <= 0, (root - qb) / (2.0 * qa), -2.0 * qc / (qb + root))


def _wilson(x: FloatArray, n: FloatArray, z: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Wilson score limits; nan where n = 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        z2 = z * z
        centre = (2.0 * x + z2) / (2.0 * (n + z2))
        half = z * np.sqrt(np.maximum(z2 + 4.0 * x * (1.0 - x / n), 0.0)) / (2.0 * (n + z2))
        low = np.clip(centre - half, 0.0, 1.0)
        high = np.clip(centre + half, 0.0, 1.0)
    undefined = n == 0
    low[undefined] = np.nan
    high[undefined] = np.nan
    return low, high


# ---------------------------------------------------------------------------------------------
# Point estimates and the one-proportion Wilson interval
# ---------------------------------------------------------------------------------------------


def _scalar_or_array(value: FloatArray, scalar: bool) -> Any:
    return float(value) if scalar else value


def _estimate_inputs(
    names: tuple[str, ...], counts: tuple[ArrayLike, ...]
) -> tuple[list[FloatArray], bool]:
    arrays = _as_counts(names, counts)
    scalar = all(np.ndim(x) == 0 for x in counts)
    try:
        broadcast = np.broadcast_arrays(*arrays)
    except ValueError:
        shapes = ", ".join(f"{n}{np.shape(x)}" for n, x in zip(names, arrays, strict=True))
        raise TableError(f"the counts must broadcast to one shape; got {shapes}") from None
    return [np.asarray(x, dtype=np.float64) for x in broadcast], scalar


def _ratio_of_counts(num: FloatArray, den: FloatArray) -> FloatArray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(num / den, dtype=np.float64)


@overload
def difference_estimate(a: _Scalar, b: _Scalar, c: _Scalar, d: _Scalar) -> float: ...
@overload
def difference_estimate(a: ArrayLike, b: ArrayLike, c: ArrayLike, d: ArrayLike) -> Any: ...
def difference_estimate(a: ArrayLike, b: ArrayLike, c: ArrayLike, d: ArrayLike) -> Any:
    """Difference in accuracy, accuracy(A) - accuracy(B) = (b - c)/N.

    Parameters
    ----------
    a, b, c, d : int or array_like of int
        Both right, A right and B wrong, A wrong and B right, both wrong.

    Returns
    -------
    float or numpy.ndarray
        (b - c)/(a + b + c + d); nan where N = 0.

    Examples
    --------
    >>> difference_estimate(157, 17, 3, 23)
    0.07
    """
    (aa, bb, cc, dd), scalar = _estimate_inputs(("a", "b", "c", "d"), (a, b, c, d))
    return _scalar_or_array(_ratio_of_counts(bb - cc, aa + bb + cc + dd), scalar)


@overload
def ratio_estimate(a: _Scalar, b: _Scalar, c: _Scalar, d: _Scalar) -> float: ...
@overload
def ratio_estimate(a: ArrayLike, b: ArrayLike, c: ArrayLike, d: ArrayLike) -> Any: ...
def ratio_estimate(a: ArrayLike, b: ArrayLike, c: ArrayLike, d: ArrayLike) -> Any:
    """Ratio of accuracies, accuracy(A)/accuracy(B) = (a + b)/(a + c).

    Parameters
    ----------
    a, b, c, d : int or array_like of int
        Both right, A right and B wrong, A wrong and B right, both wrong (``d`` does not enter
        the estimate; it is accepted so that every function takes the whole table).

    Returns
    -------
    float or numpy.ndarray
        (a + b)/(a + c); ``inf`` where only B has no correct item, nan where neither has.

    Examples
    --------
    >>> ratio_estimate(157, 17, 3, 23)
    1.0875
    """
    (aa, bb, cc, _dd), scalar = _estimate_inputs(("a", "b", "c", "d"), (a, b, c, d))
    return _scalar_or_array(_ratio_of_counts(aa + bb, aa + cc), scalar)


@overload
def odds_ratio_estimate(b: _Scalar, c: _Scalar) -> float: ...
@overload
def odds_ratio_estimate(b: ArrayLike, c: ArrayLike) -> Any: ...
def odds_ratio_estimate(b: ArrayLike, c: ArrayLike) -> Any:
    """Conditional odds ratio b/c (A right and B wrong, over the reverse).

    Parameters
    ----------
    b, c : int or array_like of int
        The discordant counts.

    Returns
    -------
    float or numpy.ndarray
        b/c; ``inf`` where c = 0 < b, nan where b = c = 0.

    Examples
    --------
    >>> odds_ratio_estimate(25, 2)
    12.5
    """
    (bb, cc), scalar = _estimate_inputs(("b", "c"), (b, c))
    return _scalar_or_array(_ratio_of_counts(bb, cc), scalar)


@overload
def wilson_interval(
    x: _Scalar, n: _Scalar, confidence_level: _Scalar = ...
) -> ConfidenceInterval[float]: ...
@overload
def wilson_interval(
    x: ArrayLike, n: ArrayLike, confidence_level: ArrayLike = ...
) -> ConfidenceInterval[Any]: ...
def wilson_interval(
    x: ArrayLike, n: ArrayLike, confidence_level: ArrayLike = 0.95
) -> ConfidenceInterval[Any]:
    r"""Wilson score interval for one binomial proportion x/n, vectorized.

    .. math::

        \frac{2x + z^2 \mp z\sqrt{z^2 + 4x(1 - x/n)}}{2(n + z^2)},
        \qquad z = \Phi^{-1}(1 - \alpha/2).

    Parameters
    ----------
    x : int or array_like of int
        Successes.
    n : int or array_like of int
        Trials (at least ``x``).
    confidence_level : float or array_like, default 0.95
        Strictly between 0 and 1.

    Returns
    -------
    ConfidenceInterval
        Limits in [0, 1]; nan where n = 0.

    References
    ----------
    Wilson EB (1927). Probable inference, the law of succession, and statistical inference.
    Journal of the American Statistical Association 22:209-212.

    Examples
    --------
    >>> print(wilson_interval(174, 200))
    [0.8163, 0.9097]
    """
    (xx, nn), level, shape, scalar = _prepare(("x", "n"), (x, n), confidence_level)
    if (xx > nn).any():
        bad = xx > nn
        raise TableError(f"x must not exceed n; got x = {_echo(xx, bad)} with n = {_echo(nn, bad)}")
    low, high = _wilson(xx, nn, _z(level))
    return _finish(low, high, shape, scalar)


# ---------------------------------------------------------------------------------------------
# Difference in accuracy
# ---------------------------------------------------------------------------------------------

_Limits = tuple[FloatArray, FloatArray]


def _diff_wald(
    a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray, z: FloatArray, level: FloatArray
) -> _Limits:
    n = a + b + c + d
    with np.errstate(divide="ignore", invalid="ignore"):
        delta = (b - c) / n
        se = np.sqrt(np.maximum(b + c - (b - c) ** 2 / n, 0.0)) / n
    return delta - z * se, delta + z * se


def _diff_wald_cc(
    a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray, z: FloatArray, level: FloatArray
) -> _Limits:
    n = a + b + c + d
    with np.errstate(divide="ignore", invalid="ignore"):
        delta = (b - c) / n
        # b = c = 0 makes the corrected variance negative; it is taken as zero, as in
        # contingencytables.
        se = np.sqrt(np.maximum(b + c - (np.abs(b - c) - 1.0) ** 2 / n, 0.0)) / n
    return delta - z * se, delta + z * se


def _diff_agresti_min(
    a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray, z: FloatArray, level: FloatArray
) -> _Limits:
    n2 = a + b + c + d + 2.0
    centre = (b - c) / n2
    se = np.sqrt(np.maximum(b + c + 1.0 - (b - c) ** 2 / n2, 0.0)) / n2
    return centre - z * se, centre + z * se


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
    n = a + b + c + d
    with np.errstate(divide="ignore", invalid="ignore"):
        p1 = (a + b) / n
        p2 = (a + c) / n
        l1, u1 = _wilson(a + b, n, z)
        l2, u2 = _wilson(a + c, n, z)
        margins = (a + b) * (c + d) * (a + c) * (b + d)
        cross = a * d - b * c
        if corrected:
            # Newcombe's continuity correction applies only to positive association.
            cross = np.where(cross > n / 2, cross - n / 2, np.where(cross >= 0, 0.0, cross))
        phi = np.where(margins > 0, cross / np.sqrt(margins), 0.0)
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


# The score statistic is singular at delta0 = -1 and 1; the search starts this close to them.
_EDGE = 2.0**-40


def _diff_tango(
    a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray, z: FloatArray, level: FloatArray
) -> _Limits:
    n = a + b + c + d
    with np.errstate(divide="ignore", invalid="ignore"):
        delta = (b - c) / n
    low = np.full_like(delta, -1.0)
    high = np.full_like(delta, 1.0)

    # Lower limit: T(L) = z on (-1, delta_hat); T decreases and T(delta_hat) = 0.
    sel = np.flatnonzero((n > 0) & (delta > -1.0))
    if sel.size:
        bs, cs, ns, zs = b[sel], c[sel], n[sel], z[sel]

        def lower(x: FloatArray, idx: NDArray[np.intp]) -> FloatArray:
            return _tango_statistic(x, bs[idx], cs[idx], ns[idx]) - zs[idx]

        start = np.full(sel.size, -1.0 + _EDGE)
        all_idx = np.arange(sel.size)
        f_start = lower(start, all_idx)
        root = _find_root(lower, start, delta[sel], f_start, -zs, atol=1e-17, rtol=1e-13)
        # No sign change means the whole of (-1, delta_hat] is inside the interval.
        low[sel] = np.where(f_start > 0, root, -1.0)

    sel = np.flatnonzero((n > 0) & (delta < 1.0))
    if sel.size:
        bs, cs, ns, zs = b[sel], c[sel], n[sel], z[sel]

        def upper(x: FloatArray, idx: NDArray[np.intp]) -> FloatArray:
            return _tango_statistic(x, bs[idx], cs[idx], ns[idx]) + zs[idx]

        end = np.full(sel.size, 1.0 - _EDGE)
        all_idx = np.arange(sel.size)
        f_end = upper(end, all_idx)
        root = _find_root(upper, delta[sel], end, zs, f_end, atol=1e-17, rtol=1e-13)
        high[sel] = np.where(f_end < 0, root, 1.0)

    undefined = n == 0
    low[undefined] = np.nan
    high[undefined] = np.nan
    return low, high


# Fay & Lumbard's melded interval needs one integral per evaluation; Gauss-Legendre on the
# central (1 - 2e-16) range of the Beta variable is accurate to ~1e-13 here (checked against
# mpmath in the tests) because both factors of the integrand are smooth on that range.
_GL_X, _GL_W = np.polynomial.legendre.leggauss(64)
_TAIL = 1e-16
_CHUNK = 2048


def _beta_log_pdf(
    t: FloatArray, alpha: FloatArray, beta: FloatArray, log_norm: FloatArray
) -> FloatArray:
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
        integral = (half[:, 0]) * ((upper_b * density) @ _GL_W)
        below = np.where(dl < 0, special.betainc(t_alpha[s], t_beta[s], np.abs(dl)), 0.0)
        out[s] = below + integral
    return out


def _normal_score_gap(p: FloatArray, target: FloatArray) -> FloatArray:
    """Phi^-1(p) - Phi^-1(target): a tail probability on the normal-score scale.

    Root finding on this scale instead of p - target sees a nearly linear function where the
    probability is a flat sigmoid, which cuts the number of (costly) evaluations by half.
    """
    # A quadrature sum may pass 1 by a rounding error; ndtri would turn that into nan.
    return np.asarray(special.ndtri(np.clip(p, 0.0, 1.0)) - special.ndtri(target), np.float64)


# Root tolerance of the melded limits: relative, so that limits near 0 (huge N) stay exact.
_EXACT_RTOL: Final = 1e-12


def _melded_upper(x: FloatArray, m: FloatArray, n: FloatArray, alpha: FloatArray) -> FloatArray:
    """Upper limit of Fay & Lumbard's interval: solves P(T(2 B_U - 1) >= U) = alpha (N > 0)."""
    upper = np.empty_like(x)
    # At delta = 0 the tail is P(B_U >= 1/2) = P(Bin(m, 1/2) <= x), the exact one-sided p-value;
    # the sign of p0 - alpha fixes the side of 0 on which U lies, which is what makes the
    # interval agree with the exact McNemar test whatever the quadrature error.
    with np.errstate(divide="ignore", invalid="ignore"):
        p0 = np.where(x >= m, 1.0, special.betainc(m - x, x + 1.0, 0.5))

    # x = m (B_U is 1): the tail is P(T_U >= delta), so U is a Beta quantile.
    degenerate_b = x >= m
    with np.errstate(divide="ignore", invalid="ignore"):
        upper_q = 1.0 - special.betaincinv(n - m, m + 1.0, alpha)
    upper[degenerate_b] = np.where(n > m, upper_q, 1.0)[degenerate_b]

    general = ~degenerate_b
    positive = general & (p0 > alpha)
    # m = n (T_U is 1 for delta > 0): the tail is P(B_U >= (1 + delta)/2).
    all_discordant = positive & (n <= m)
    with np.errstate(divide="ignore", invalid="ignore"):
        closed = 1.0 - 2.0 * special.betaincinv(m - x, x + 1.0, alpha)
    upper[all_discordant] = closed[all_discordant]
    upper[general & (p0 == alpha)] = 0.0

    for side in (1.0, -1.0):
        if side > 0:
            sel = np.flatnonzero(positive & (n > m))
            t_alpha, t_beta = m[sel] + 1.0, n[sel] - m[sel]
        else:
            sel = np.flatnonzero(general & (p0 < alpha))
            t_alpha, t_beta = m[sel], n[sel] - m[sel] + 1.0
        if sel.size == 0:
            continue
        xs, ms, al = x[sel], m[sel], alpha[sel]
        t_lo = special.betaincinv(t_alpha, t_beta, _TAIL)
        t_hi = 1.0 - special.betaincinv(t_beta, t_alpha, _TAIL)

        def excess(
            delta: FloatArray,
            idx: NDArray[np.intp],
            xs: FloatArray = xs,
            ms: FloatArray = ms,
            al: FloatArray = al,
            t_alpha: FloatArray = t_alpha,
            t_beta: FloatArray = t_beta,
            t_lo: FloatArray = t_lo,
            t_hi: FloatArray = t_hi,
        ) -> FloatArray:
            tail = _melded_tail(
                delta, xs[idx], ms[idx], t_alpha[idx], t_beta[idx], t_lo[idx], t_hi[idx]
            )
            return _normal_score_gap(tail, al[idx])

        zero = np.zeros(sel.size)
        f_zero = _normal_score_gap(p0[sel], al)
        f_one = np.full(sel.size, -np.inf if side > 0 else np.inf)
        if side > 0:
            root = _find_root(
                excess, zero, np.ones(sel.size), f_zero, f_one, atol=1e-17, rtol=_EXACT_RTOL
            )
        else:
            root = _find_root(
                excess, -np.ones(sel.size), zero, f_one, f_zero, atol=1e-17, rtol=_EXACT_RTOL
            )
        upper[sel] = root
    return upper


def _diff_exact(
    a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray, z: FloatArray, level: FloatArray
) -> _Limits:
    n = a + b + c + d
    m = b + c
    alpha = (1.0 - level) / 2.0
    low = np.full_like(n, np.nan)
    high = np.full_like(n, np.nan)
    ok = n > 0
    high[ok] = _melded_upper(b[ok], m[ok], n[ok], alpha[ok])
    # Mirror symmetry: swapping b and c negates the difference, so L(b, c) = -U(c, b).
    low[ok] = -_melded_upper(c[ok], m[ok], n[ok], alpha[ok])
    return low, high


_DifferenceMethod = Callable[
    [FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, FloatArray], _Limits
]
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


@overload
def difference_interval(
    a: _Scalar,
    b: _Scalar,
    c: _Scalar,
    d: _Scalar,
    *,
    confidence_level: _Scalar = ...,
    method: str = ...,
) -> ConfidenceInterval[float]: ...
@overload
def difference_interval(
    a: ArrayLike,
    b: ArrayLike,
    c: ArrayLike,
    d: ArrayLike,
    *,
    confidence_level: ArrayLike = ...,
    method: str = ...,
) -> ConfidenceInterval[Any]: ...
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
        Gauss-Legendre), and U is found by root finding for all tables at once; this method
        costs about 0.25 ms per table, a hundred times the score intervals.

    Limits are truncated to [-1, 1]. A table with N = 0 gives nan limits.

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
        Python floats for scalar input, arrays of the broadcast shape otherwise.

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
    name = _check_method(method, DIFFERENCE_METHODS, "difference")
    (aa, bb, cc, dd), level, shape, scalar = _prepare(
        ("a", "b", "c", "d"), (a, b, c, d), confidence_level
    )
    low, high = _DIFFERENCE_IMPL[name](aa, bb, cc, dd, _z(level), level)
    low = np.clip(low, -1.0, 1.0)
    high = np.clip(high, -1.0, 1.0)
    # Without items there is no difference to estimate, whatever a method's pseudo-counts say.
    empty = aa + bb + cc + dd == 0
    low[empty] = np.nan
    high[empty] = np.nan
    return _finish(low, high, shape, scalar)


# ---------------------------------------------------------------------------------------------
# Ratio of accuracies
# ---------------------------------------------------------------------------------------------


def _ratio_wald(
    a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray, z: FloatArray, level: FloatArray
) -> _Limits:
    with np.errstate(divide="ignore", invalid="ignore"):
        estimate = (a + b) / (a + c)
        se = np.sqrt((b + c) / ((a + b) * (a + c)))
        low = estimate * np.exp(-z * se)
        high = estimate * np.exp(z * se)
    # A zero margin leaves the log scale undefined: the interval is the whole half-line.
    whole = ~(np.isfinite(estimate) & (estimate > 0))
    low[whole] = 0.0
    high[whole] = np.inf
    return low, high


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


def _tang_limit(
    a: FloatArray,
    b: FloatArray,
    c: FloatArray,
    n: FloatArray,
    z: FloatArray,
    estimate: FloatArray,
    lower: bool,
) -> FloatArray:
    """One Tang limit, searched on the log scale, for tables with a finite positive estimate."""
    sign = 1.0 if lower else -1.0

    def excess(s: FloatArray, idx: NDArray[np.intp]) -> FloatArray:
        # Lower limit: T(phi) - z, positive below the root; upper: -(T(phi) + z), likewise.
        t = _tang_statistic(np.exp(s), a[idx], b[idx], c[idx], n[idx])
        return np.asarray(sign * t - z[idx], dtype=np.float64)

    centre = np.log(estimate)
    all_idx = np.arange(centre.size)
    # T(phi) tends to +inf as phi -> 0 and to -inf as phi -> inf; widen the bracket by doubling
    # steps on the log scale until the sign changes.
    step = np.ones_like(centre)
    far = centre - sign * step
    f_far = excess(far, all_idx)
    for _ in range(10):
        short = ~(f_far > 0)
        if not short.any():
            break
        step[short] *= 2.0
        far[short] = centre[short] - sign * step[short]
        f_far[short] = excess(far[short], np.flatnonzero(short))
    found = f_far > 0
    f_centre = -z.copy()
    if lower:
        root = _find_root(excess, far, centre, f_far, f_centre, atol=1e-14)
    else:
        root = _find_root(excess, centre, far, f_centre, f_far, atol=1e-14)
    limit = np.exp(root)
    limit[~found] = 0.0 if lower else np.inf
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
        args = (a[inner], b[inner], c[inner], n[inner], z[inner], estimate[inner])
        low[inner] = _tang_limit(*args, lower=True)
        high[inner] = _tang_limit(*args, lower=False)
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
    empty = n_star == 0
    low[empty] = 0.0
    high[empty] = np.inf
    return low, high


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
    n = a + b + c + d
    with np.errstate(divide="ignore", invalid="ignore"):
        p1 = (a + b) / n
        p2 = (a + c) / n
        l1, u1 = _wilson(a + b, n, z)
        l2, u2 = _wilson(a + c, n, z)
        margins = (a + b) * (c + d) * (a + c) * (b + d)
        corr = np.where(margins > 0, (a * d - b * c) / np.sqrt(margins), 0.0)
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
    empty = a + b + c == 0
    low[empty] = 0.0
    high[empty] = np.inf
    return low, high


_RATIO_IMPL: Final[dict[str, _DifferenceMethod]] = {
    "wald": _ratio_wald,
    "tang": _ratio_tang,
    "bonett-price": _ratio_bonett_price,
    "mover-wilson": _ratio_mover_wilson,
}


@overload
def ratio_interval(
    a: _Scalar,
    b: _Scalar,
    c: _Scalar,
    d: _Scalar,
    *,
    confidence_level: _Scalar = ...,
    method: str = ...,
) -> ConfidenceInterval[float]: ...
@overload
def ratio_interval(
    a: ArrayLike,
    b: ArrayLike,
    c: ArrayLike,
    d: ArrayLike,
    *,
    confidence_level: ArrayLike = ...,
    method: str = ...,
) -> ConfidenceInterval[Any]: ...
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

    Tables with a + b + c = 0 (no item right for either system) give (0, inf) for every
    method.

    Parameters
    ----------
    a, b, c, d : int or array_like of int
        Both right, A right and B wrong, A wrong and B right, both wrong. Arrays broadcast.
    confidence_level : float or array_like, default 0.95
        Strictly between 0 and 1.
    method : str, default "tang"
        One of :data:`RATIO_METHODS`.

    Returns
    -------
    ConfidenceInterval
        Python floats for scalar input, arrays of the broadcast shape otherwise.

    Raises
    ------
    McNemarError
        Unknown ``method`` or a ``confidence_level`` outside (0, 1).

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
    name = _check_method(method, RATIO_METHODS, "ratio")
    (aa, bb, cc, dd), level, shape, scalar = _prepare(
        ("a", "b", "c", "d"), (a, b, c, d), confidence_level
    )
    low, high = _RATIO_IMPL[name](aa, bb, cc, dd, _z(level), level)
    return _finish(low, high, shape, scalar)


# ---------------------------------------------------------------------------------------------
# Conditional odds ratio
# ---------------------------------------------------------------------------------------------


def _midp_lower(x: FloatArray, n: FloatArray, alpha: FloatArray) -> FloatArray:
    """Lower mid-p limit for a binomial proportion: P(X > x) + P(X = x)/2 = alpha."""
    low = np.zeros_like(x)
    sel = np.flatnonzero(x > 0)
    if sel.size == 0:
        return low
    xs, ns, al = x[sel], n[sel], alpha[sel]

    def excess(p: FloatArray, idx: NDArray[np.intp]) -> FloatArray:
        # P(X >= x) = I_p(x, n - x + 1); P(X >= x + 1) = I_p(x + 1, n - x), 0 when x = n.
        xi, ni = xs[idx], ns[idx]
        at_least = special.betainc(xi, ni - xi + 1.0, p)
        with np.errstate(invalid="ignore"):
            above = np.where(xi < ni, special.betainc(xi + 1.0, ni - xi, p), 0.0)
        return _normal_score_gap(0.5 * (at_least + above), al[idx])

    # The mid-p limit lies between the exact limits for x and for x + 1 successes.
    lo = special.betaincinv(xs, ns - xs + 1.0, al)
    with np.errstate(invalid="ignore"):
        hi = np.where(xs < ns, special.betaincinv(xs + 1.0, ns - xs, al), 1.0)
    all_idx = np.arange(sel.size)
    root = _find_root(
        excess, lo, hi, excess(lo, all_idx), excess(hi, all_idx), atol=1e-300, rtol=1e-13
    )
    low[sel] = root
    return low


def _or_exact(b: FloatArray, c: FloatArray, alpha: FloatArray) -> _Limits:
    # Clopper-Pearson limits for mu = b/(b + c). mu and 1 - mu are both taken as Beta
    # quantiles (lower and upper tails) so that mu/(1 - mu) keeps its relative precision.
    with np.errstate(divide="ignore", invalid="ignore"):
        mu_low = np.where(b > 0, special.betaincinv(b, c + 1.0, alpha), 0.0)
        rest_low = np.where(b > 0, special.betainccinv(c + 1.0, b, alpha), 1.0)
        mu_high = np.where(c > 0, special.betainccinv(b + 1.0, c, alpha), 1.0)
        rest_high = np.where(c > 0, special.betaincinv(c, b + 1.0, alpha), 0.0)
        return mu_low / rest_low, mu_high / rest_high


def _or_midp(b: FloatArray, c: FloatArray, alpha: FloatArray) -> _Limits:
    low_b = _midp_lower(b, b + c, alpha)
    low_c = _midp_lower(c, b + c, alpha)
    with np.errstate(divide="ignore", invalid="ignore"):
        return low_b / (1.0 - low_b), (1.0 - low_c) / low_c


def _or_wilson(b: FloatArray, c: FloatArray, z: FloatArray) -> _Limits:
    # Wilson limits are symmetric: 1 - u(b) = l(c), so mu/(1 - mu) = l(b)/u(c) and u(b)/l(c).
    lb, ub = _wilson(b, b + c, z)
    lc, uc = _wilson(c, b + c, z)
    with np.errstate(divide="ignore", invalid="ignore"):
        return lb / uc, ub / lc


def _or_wald(b: FloatArray, c: FloatArray, z: FloatArray, add: float) -> _Limits:
    bb, cc = b + add, c + add
    with np.errstate(divide="ignore", invalid="ignore"):
        estimate = bb / cc
        se = np.sqrt(1.0 / bb + 1.0 / cc)
        low = estimate * np.exp(-z * se)
        high = estimate * np.exp(z * se)
    whole = ~((bb > 0) & (cc > 0))
    low[whole] = 0.0
    high[whole] = np.inf
    return low, high


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

    With no discordant pairs (b = c = 0) every method gives (0, inf): the data say nothing
    about the odds ratio. When c = 0 < b the upper limit is inf (except ``"wald-laplace"``).

    Parameters
    ----------
    b, c : int or array_like of int
        A right and B wrong; A wrong and B right. Arrays broadcast.
    confidence_level : float or array_like, default 0.95
        Strictly between 0 and 1.
    method : str, default "exact"
        One of :data:`ODDS_RATIO_METHODS`.

    Returns
    -------
    ConfidenceInterval
        Python floats for scalar input, arrays of the broadcast shape otherwise.

    Raises
    ------
    McNemarError
        Unknown ``method`` or a ``confidence_level`` outside (0, 1).

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
    alpha = (1.0 - level) / 2.0
    if name == "exact":
        low, high = _or_exact(bb, cc, alpha)
    elif name == "midp":
        low, high = _or_midp(bb, cc, alpha)
    elif name == "wilson":
        low, high = _or_wilson(bb, cc, _z(level))
    else:
        low, high = _or_wald(bb, cc, _z(level), 1.0 if name == "wald-laplace" else 0.0)
    no_pairs = bb + cc == 0
    low[no_pairs] = 0.0
    high[no_pairs] = np.inf
    return _finish(
        np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64), shape, scalar
    )
