"""The result type of every interval: :class:`ConfidenceInterval`."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import numpy as np
from numpy.typing import NDArray

from mcnemar._format import json_number

FloatArray = NDArray[np.float64]
_L = TypeVar("_L", float, FloatArray)


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
        return {"low": json_number(self.low), "high": json_number(self.high)}

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


