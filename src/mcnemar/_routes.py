"""The two routes a formula written once runs on: numpy arrays (many tables) or Python floats
(one table, without numpy's cost per call on arrays of one element).

A formula is written over ``+ - * /``, comparisons, ``&``/``|`` of conditions and the
operations of an :class:`Ops`, passed to it as ``xp``: :data:`ARRAYS` runs it elementwise on
float64 arrays, :data:`FLOATS` on Python floats. Python floats and numpy's float64 round
``+ - * /`` and the square root alike (IEEE 754), and each operation of :data:`FLOATS` gives
numpy's result bit for bit (numpy's own exponential and logarithm, numpy's choices between
NaN, 0.0 and -0.0), so a table gets the same numbers alone or in a batch. :func:`by_table`
picks the route. The intervals, the exact interval's search and the detectable difference
are written this way.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
#: A Python float (one table, :data:`FLOATS`) or a float64 array (many, :data:`ARRAYS`).
Real = float | FloatArray

# ---------------------------------------------------------------------------------------------
# numpy's float64 operations on Python floats
# ---------------------------------------------------------------------------------------------


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


def fmax(x: float, y: float) -> float:
    """np.fmax: the number where one of the two is NaN, and x of two equal values (numpy's
    choice between 0.0 and -0.0, the other way round from np.maximum's)."""
    if x != x:
        return y
    return x if x >= y or y != y else y


def fmin(x: float, y: float) -> float:
    """np.fmin, as :func:`fmax`."""
    if x != x:
        return y
    return x if x <= y or y != y else y


def _sign(x: float) -> float:
    """np.sign: -1.0, 0.0 (for either zero) or 1.0, NaN for NaN."""
    if x > 0:
        return 1.0
    if x < 0:
        return -1.0
    return x if x != x else 0.0


def _where(condition: bool, x: float, y: float) -> float:
    return x if condition else y


def _signbit(x: float) -> bool:
    # Only 0, -0 and nan need the sign bit itself; comparisons settle the rest sooner.
    return x < 0.0 or (not x > 0.0 and math.copysign(1.0, x) < 0.0)


# np.exp overflows from 709.78 on; what is near it goes to numpy under its own errstate.
_EXP_MAX = 709.0


def _exp(x: float) -> float:
    """np.exp on a Python float: numpy's own, since on CPUs with AVX-512 its SIMD exp and
    math.exp differ in the last bit for some arguments (inf where it overflows)."""
    if x > _EXP_MAX:
        with np.errstate(over="ignore"):
            return float(np.exp(x))
    return float(np.exp(x))


def _log(x: float) -> float:
    """np.log on a Python float (numpy's, as for :func:`_exp`): -inf at 0, NaN below."""
    if x > 0:
        return float(np.log(x))
    return -math.inf if x == 0 else math.nan


def _log1p(x: float) -> float:
    """np.log1p on a Python float (numpy's, as for :func:`_exp`): -inf at -1, NaN below."""
    if x > -1.0:
        return float(np.log1p(x))
    return -math.inf if x == -1.0 else math.nan


def _floor(x: float) -> float:
    # math.floor raises on nan and infinities (the array route takes those); a zero keeps
    # the sign of x, as numpy's: floor(-0.0) and ceil(-0.5) are -0.0
    out = float(math.floor(x))
    return out if out else math.copysign(0.0, x)


def _ceil(x: float) -> float:
    out = float(math.ceil(x))
    return out if out else math.copysign(0.0, x)


_LARGEST = float(np.finfo(np.float64).max)


def _finite(x: float) -> float:
    """np.nan_to_num of one number."""
    if x != x:
        return 0.0
    if math.isinf(x):
        return math.copysign(_LARGEST, x)
    return x


def _finite_array(x: FloatArray) -> FloatArray:
    # (np.nan_to_num costs more than the check on arrays that are finite, as most are)
    return x if np.isfinite(x).all() else np.nan_to_num(x)


def _array_any(mask: npt.NDArray[np.bool_]) -> bool:
    return bool(mask.any())


@functools.cache
def _special() -> Any:
    # scipy.special loads on the first call: the command line's `test` path never makes one
    from scipy import special

    return special


def _scipy_op(name: str) -> Callable[..., Any]:
    """scipy.special's function ``name`` on arrays (scipy loaded on the first call)."""

    def op(*args: Any) -> Any:
        return getattr(_special(), name)(*args)

    op.__name__ = op.__qualname__ = name
    return op


def _scipy_float_op(name: str) -> Callable[..., float]:
    """:func:`_scipy_op` on Python floats: the kernel's value for one element, as a float."""

    def op(*args: float) -> float:
        return float(getattr(_special(), name)(*args))

    op.__name__ = op.__qualname__ = f"float_{name}"
    return op


#: The scipy.special functions of the routes (see :class:`Ops`).
_SCIPY_OPS = ("ndtri", "ndtr", "log_ndtr", "betainc", "betaincinv", "betainccinv", "betaln")


# ---------------------------------------------------------------------------------------------
# The two routes
# ---------------------------------------------------------------------------------------------


class Ops:
    """The operations, beyond ``+ - * /``, comparisons and ``&``/``|`` of conditions, of the
    formulas written once for both routes; ``xp`` in their signatures.

    On :data:`FLOATS` each gives numpy's float64 result bit for bit, with one difference:
    where numpy would take the square root of a negative number or the floor or ceiling of a
    NaN or an infinity, Python raises (ValueError, OverflowError; ZeroDivisionError for ``/``
    by zero), and :func:`by_table` computes that table on arrays instead. ``divide`` is the
    division that never raises, for the quotients that a valid table may leave undefined
    (x/0 is then an infinity or nan, as in numpy; its nan for 0/0 may differ from numpy's in
    the sign bit, so the formulas only ever discard one or test it with ``isnan``).
    ``finite`` is ``np.nan_to_num``; ``ndtr``, ``log_ndtr`` and ``ndtri`` are scipy's normal
    distribution function, its log and its inverse, and ``betainc``, ``betaincinv`` and
    ``betainccinv`` its regularized incomplete beta function I_x(a, b) and the inverses of
    I and 1 - I in x, ``betaln`` the log of the beta function B(a, b) (one element on floats
    is the kernel's value for it in an array).
    """

    sqrt: Callable[[Any], Any]
    maximum: Callable[[Any, Any], Any]
    minimum: Callable[[Any, Any], Any]
    fmax: Callable[[Any, Any], Any]
    fmin: Callable[[Any, Any], Any]
    where: Callable[[Any, Any, Any], Any]
    isfinite: Callable[[Any], Any]
    isnan: Callable[[Any], Any]
    signbit: Callable[[Any], Any]
    logical_not: Callable[[Any], Any]
    any: Callable[[Any], bool]
    divide: Callable[[Any, Any], Any]
    abs: Callable[[Any], Any]
    sign: Callable[[Any], Any]
    exp: Callable[[Any], Any]
    log: Callable[[Any], Any]
    log1p: Callable[[Any], Any]
    floor: Callable[[Any], Any]
    ceil: Callable[[Any], Any]
    finite: Callable[[Any], Any]
    ndtri: Callable[[Any], Any]
    ndtr: Callable[[Any], Any]
    log_ndtr: Callable[[Any], Any]
    betainc: Callable[[Any, Any, Any], Any]
    betaincinv: Callable[[Any, Any, Any], Any]
    betainccinv: Callable[[Any, Any, Any], Any]
    betaln: Callable[[Any, Any], Any]

    # (a slotted class, not a dataclass: one of some twenty fields costs the command line's
    # start about 3 ms to generate)
    __slots__ = ("abs", "any", "betainc", "betainccinv", "betaincinv", "betaln", "ceil",
                 "divide", "exp", "finite", "floor", "fmax", "fmin", "isfinite", "isnan", "log",
                 "log1p", "log_ndtr", "logical_not", "maximum", "minimum", "ndtr", "ndtri",
                 "sign", "signbit", "sqrt", "where")

    def __init__(self, **ops: Callable[..., Any]) -> None:
        names = _names(type(self))
        if set(ops) != set(names):
            raise TypeError(f"a route needs the operations {sorted(names)}; got {sorted(ops)}")
        for name, op in ops.items():
            object.__setattr__(self, name, op)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("the operations of a route are fixed")


def _names(cls: type) -> tuple[str, ...]:
    """The operations of a route class: the slots of it and of its bases."""
    return tuple(name for klass in reversed(cls.__mro__)
                 for name in getattr(klass, "__slots__", ()))


ARRAYS = Ops(
    sqrt=np.sqrt, maximum=np.maximum, minimum=np.minimum, fmax=np.fmax, fmin=np.fmin,
    where=np.where, isfinite=np.isfinite, isnan=np.isnan, signbit=np.signbit,
    logical_not=np.logical_not, any=_array_any, divide=np.divide, abs=np.abs, sign=np.sign,
    exp=np.exp, log=np.log, log1p=np.log1p, floor=np.floor, ceil=np.ceil, finite=_finite_array,
    **{name: _scipy_op(name) for name in _SCIPY_OPS},
)
FLOATS = Ops(
    sqrt=math.sqrt, maximum=maximum, minimum=minimum, fmax=fmax, fmin=fmin, where=_where,
    isfinite=math.isfinite, isnan=math.isnan, signbit=_signbit, logical_not=operator.not_,
    any=bool, divide=divide, abs=abs, sign=_sign, exp=_exp, log=_log, log1p=_log1p,
    floor=_floor, ceil=_ceil, finite=_finite,
    **{name: _scipy_float_op(name) for name in _SCIPY_OPS},
)

#: The exceptions of the float route where numpy would give an infinity or nan.
FLOAT_ROUTE_ERRORS = (ZeroDivisionError, ValueError, OverflowError)


def operations(ops: Ops) -> dict[str, Any]:
    """The operations of ``ops`` by name, to build a route with more of them (a subclass)."""
    return {name: getattr(ops, name) for name in Ops.__slots__}


def by_table(formula: Callable[..., tuple[Any, ...]], cells: tuple[npt.NDArray[Any], ...],
             static: dict[str, Any], *, few: int = 1,
             routes: tuple[Ops, Ops] = (FLOATS, ARRAYS)) -> tuple[FloatArray, ...]:
    """``formula(xp, *cells, **static)``, a formula's values for flat float64 arrays of tables
    (all of one size; boolean cells are passed as Python bools on floats): on Python floats,
    table by table, for at most ``few`` tables, on the arrays otherwise.

    ``routes`` are the float and the array route (:data:`FLOATS` and :data:`ARRAYS`, or a
    subclass's with more operations). Tables whose float route raises (a zero count where the
    formula divides by it, see :class:`Ops`) are computed on arrays: the route changes the
    time, not the bits. The array route runs under one ``np.errstate``: the formulas let x/0
    and the like give infinities and nans and choose among them.
    """
    floats, arrays = routes
    size = cells[0].size
    if size == 1:
        return tuple([np.array([v], dtype=np.float64) for v in one_table(
            formula, tuple([x.item() for x in cells]), static, routes=routes)])
    if 1 < size <= few:
        try:
            rows = [formula(floats, *values, **static)
                    for values in zip(*[x.tolist() for x in cells], strict=True)]
        except FLOAT_ROUTE_ERRORS:
            pass
        else:
            return tuple([np.array(column, dtype=np.float64)
                          for column in zip(*rows, strict=True)])
    return _on_arrays(formula, cells, static, arrays)


def _on_arrays(formula: Callable[..., tuple[Any, ...]], cells: Any, static: dict[str, Any],
               arrays: Ops) -> tuple[FloatArray, ...]:
    """The array route of :func:`by_table` and :func:`one_table`."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        values = formula(arrays, *cells, **static)
    return tuple(np.asarray(v, dtype=np.float64) for v in values)


def one_table(formula: Callable[..., tuple[Any, ...]], values: tuple[Any, ...],
              static: dict[str, Any], *, routes: tuple[Ops, Ops] = (FLOATS, ARRAYS)
              ) -> tuple[float, ...]:
    """:func:`by_table` of one table given as Python numbers, its values as Python floats:
    the float route, or the array route on one-element arrays where that raises."""
    floats, arrays = routes
    try:
        return tuple([float(v) for v in formula(floats, *values, **static)])
    except FLOAT_ROUTE_ERRORS:
        pass
    cells = [np.array([v], dtype=np.bool_ if isinstance(v, bool) else np.float64)
             for v in values]
    return tuple([float(v.reshape(-1)[0]) for v in _on_arrays(formula, cells, static, arrays)])
