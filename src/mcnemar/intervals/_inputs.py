"""Checks and broadcasting of the counts, confidence levels and method names of the interval
functions, and the normal quantile of a confidence level.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from mcnemar.errors import TableError
from mcnemar.intervals._result import ConfidenceInterval
from mcnemar.validation import check_choice, check_counts, check_open_units

FloatArray = NDArray[np.float64]
# One count or confidence level; overloads map all-scalar calls to Python float limits.
_Scalar = int | float | np.integer[Any] | np.floating[Any]


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
    """Whole numbers of items >= 0 (up to the library's one limit), as float64 arrays."""
    return [
        check_counts(value, name, error=TableError, dtype=np.float64)
        for name, value in zip(names, values, strict=True)
    ]


def _check_confidence_level(confidence_level: ArrayLike) -> FloatArray:
    return check_open_units(confidence_level, "confidence_level")


def _check_method(method: object, valid: tuple[str, ...], what: str) -> str:
    return check_choice(method, "method", valid, hint=f"the methods of the {what} interval")


def _prepare(
    count_names: tuple[str, ...],
    counts: tuple[ArrayLike, ...],
    confidence_level: ArrayLike,
) -> tuple[list[FloatArray], FloatArray, tuple[int, ...], bool]:
    """Validate, broadcast and flatten the inputs; remember whether they were all scalars."""
    arrays = _as_counts(count_names, counts)
    level = _check_confidence_level(confidence_level)
    scalar = all(x.ndim == 0 for x in (*arrays, level))
    shape = arrays[0].shape
    if all(x.shape == shape for x in arrays) and level.shape in ((), shape):
        # Counts of one shape (one table, say) and one level: what np.broadcast_arrays would
        # give, without its cost per call (several times that of the rest).
        broadcast, level_b = arrays, np.full(shape, level)
    else:
        try:
            *broadcast, level_b = np.broadcast_arrays(*arrays, level)
        except ValueError:
            shapes = ", ".join(f"{n}{np.shape(x)}"
                               for n, x in zip(count_names, arrays, strict=True))
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
    if level.size == 1 or (level.size > 1 and bool((level == level.flat[0]).all())):
        # One level broadcast over many tables: one quantile, not one per table (filled in
        # rather than by np.full, whose Python-level cost is most of a one-table call's).
        z = np.empty(level.shape)
        z.fill(_z_of(float(level.flat[0])))
        return z
    from scipy import special
    return np.asarray(-special.ndtri((1.0 - level) / 2.0), dtype=np.float64)


@functools.lru_cache(maxsize=64)
def _z_of(level: float) -> float:
    """:func:`_z` of one level (a report asks for the same few levels again and again)."""
    from scipy import special
    return float(-special.ndtri((1.0 - np.float64(level)) / 2.0))


_Limits = tuple[FloatArray, FloatArray]
