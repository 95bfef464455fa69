"""numpy's float64 operations on Python floats, for the routes that compute one table's numbers
on floats and must give the bits the array route gives.

``+ - * /`` and ``sqrt`` round alike in both; these are the operations whose edge cases differ:
division by zero (numpy gives an infinity or NaN where Python raises) and numpy's choice in
``maximum``/``minimum`` between NaN and between 0.0 and -0.0.
"""

from __future__ import annotations

import math


def divide(x: float, y: float) -> float:
    """x/y as numpy gives it: x/0 is an infinity of the quotient's sign, or NaN for 0/0 and
    NaN/0.

    Examples
    --------
    >>> divide(1.0, -0.0), divide(0.0, 0.0), divide(3.0, 2.0)
    (-inf, nan, 1.5)
    """
    try:
        return x / y
    except ZeroDivisionError:
        if x == 0 or math.isnan(x):
            return math.nan
        return math.copysign(math.inf, x) * math.copysign(1.0, y)


def maximum(x: float, y: float) -> float:
    """np.maximum: NaN if either is NaN, and y of two equal values (numpy's choice between 0.0
    and -0.0)."""
    return x if x > y or x != x else y


def minimum(x: float, y: float) -> float:
    """np.minimum, as :func:`maximum`."""
    return x if x < y or x != x else y
