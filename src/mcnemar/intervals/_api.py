"""What the functions of the whole table share: their typed signatures, the checks of an
interval call, the log-scale Wald interval of a ratio and the (0, inf) answer of
a ratio the data leave unbounded.

The interval and estimate functions return Python floats for scalar counts and arrays
otherwise. The two overloads that tell a type checker so are written once, as protocols
(:class:`TableInterval`, :class:`TableEstimate`); a function takes its protocol on with a
decorator that returns the function itself, so its signature, docstring and doctests are
untouched at run time.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Protocol, cast, overload

from numpy.typing import ArrayLike

from mcnemar.intervals._inputs import (
    _check_method,
    _finish,
    _Limits,
    _prepare,
    _Scalar,
)
from mcnemar.intervals._result import ConfidenceInterval, FloatArray
from mcnemar.intervals._roots import IntervalOps, Limits, Real


class TableInterval(Protocol):
    """``f(a, b, c, d, *, confidence_level=..., method=...)``: float limits for scalars."""

    @overload
    def __call__(
        self, a: _Scalar, b: _Scalar, c: _Scalar, d: _Scalar, *,
        confidence_level: _Scalar = ..., method: str = ...,
    ) -> ConfidenceInterval[float]: ...

    @overload
    def __call__(
        self, a: ArrayLike, b: ArrayLike, c: ArrayLike, d: ArrayLike, *,
        confidence_level: ArrayLike = ..., method: str = ...,
    ) -> ConfidenceInterval[Any]: ...


class TableEstimate(Protocol):
    """``f(a, b, c, d)``: a float for scalar counts, an array otherwise."""

    @overload
    def __call__(self, a: _Scalar, b: _Scalar, c: _Scalar, d: _Scalar) -> float: ...

    @overload
    def __call__(self, a: ArrayLike, b: ArrayLike, c: ArrayLike, d: ArrayLike) -> Any: ...


def table_interval(func: Callable[..., ConfidenceInterval[Any]]) -> TableInterval:
    """Give an interval of the whole table the overloads of :class:`TableInterval`."""
    return cast(TableInterval, func)


def table_estimate(func: Callable[..., Any]) -> TableEstimate:
    """Give an estimate of the whole table the overloads of :class:`TableEstimate`."""
    return cast(TableEstimate, func)


def check_table_call(
    methods: tuple[str, ...],
    what: str,
    counts: tuple[ArrayLike, ArrayLike, ArrayLike, ArrayLike],
    confidence_level: ArrayLike,
    method: object,
) -> tuple[
    str, tuple[FloatArray, FloatArray, FloatArray, FloatArray], FloatArray, tuple[int, ...], bool
]:
    """Check ``method``, the table and the level, and broadcast them.

    Returns the method's name, the flat float64 cells a, b, c, d, the flat levels, the
    broadcast shape and whether the input was all scalars (for
    :func:`mcnemar.intervals._inputs._finish`). What follows runs on checked arrays only, so a
    caller that has checked them itself (a report) starts there.
    """
    name = _check_method(method, methods, what)
    (a, b, c, d), level, shape, scalar = _prepare(("a", "b", "c", "d"), counts, confidence_level)
    return name, (a, b, c, d), level, shape, scalar


def whole_table_interval(
    limits: Callable[..., _Limits],
    methods: tuple[str, ...],
    what: str,
    counts: tuple[ArrayLike, ArrayLike, ArrayLike, ArrayLike],
    confidence_level: ArrayLike,
    method: object,
) -> ConfidenceInterval[Any]:
    """Check a call of an interval of the whole table, run ``limits(method, a, b, c, d, level)``
    on the flat checked arrays and shape the result like the input."""
    name, cells, level, shape, scalar = check_table_call(
        methods, what, counts, confidence_level, method
    )
    return _finish(*limits(name, *cells, level), shape, scalar)


def log_wald(xp: IntervalOps, estimate: Real, se: Real, z: Real) -> Limits:
    """The Wald interval of a ratio on the log scale, estimate x exp(-+ z se); (0, inf) where
    the estimate is 0, infinite or undefined (the log scale is then undefined too)."""
    bounded = xp.isfinite(estimate) & (estimate > 0)
    return unbounded_where(xp, estimate * xp.exp(-z * se), estimate * xp.exp(z * se),
                           xp.logical_not(bounded))


def unbounded_where(xp: IntervalOps, low: Real, high: Real, where: Any) -> Limits:
    """The limits of a ratio, (0, inf) where the data leave it unbounded."""
    return xp.where(where, 0.0, low), xp.where(where, math.inf, high)
