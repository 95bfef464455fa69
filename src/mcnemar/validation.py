"""The checks of the arguments every function takes, written once, with one set of limits.

| check | accepts |
|---|---|
| :func:`check_counts` | whole numbers from `minimum` (0) to :data:`MAX_COUNT`, scalar or array |
| :func:`check_count` | one such count, as an `int` |
| :func:`check_open_unit` | one number strictly between 0 and 1 (`alpha`, `confidence_level`) |
| :func:`check_open_units` | the same, a scalar or an array |
| :func:`check_probability` | one probability in [0, 1] |
| :func:`check_probabilities` | probabilities in [0, 1], a scalar or an array |
| :func:`check_positive` | one finite real number > 0 |
| :func:`check_choice` | one of the names of a vocabulary tuple (:mod:`mcnemar.vocabulary`) |
| :func:`check_names` | display names: non-empty, distinct strings, one per system |
| :func:`check_scores` | finite real scores (booleans as 0/1), a 1-D or 2-D array |

Every refusal is a :class:`~mcnemar.errors.McNemarError` (or the subclass the caller asks
for) whose :attr:`~mcnemar.errors.McNemarError.argument` is the argument concerned, so that an
interface names its own flag or field without reading the message. The message names the
argument, echoes the value and says what would be valid.

Booleans are refused wherever a number is expected (``True`` is an ``int`` to Python, never
a count or a level to a user), and so are NaN, infinities and text.

Examples
--------
>>> check_count(17, "b")
17
>>> try:
...     check_open_unit(95, "confidence_level")
... except McNemarError as err:
...     print(err)
...     print(err.argument)
confidence_level must be strictly between 0 and 1 (e.g. 0.95 for 95%), got 95; for 95% give 0.95
confidence_level
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

import numpy as np
from numpy.typing import DTypeLike, NDArray

from mcnemar.errors import McNemarError, option

if TYPE_CHECKING:
    from mcnemar.vocabulary import Term

__all__ = [
    "MAX_COUNT",
    "MAX_COUNT_TEXT",
    "check_choice",
    "check_count",
    "check_counts",
    "check_names",
    "check_open_unit",
    "check_open_units",
    "check_positive",
    "check_probabilities",
    "check_probability",
    "check_scores",
]

#: The largest count of items anything accepts. Up to 2**52 every sum of two cells (the
#: discordant count D = b + c) is exact in double precision, which the exact tail computations
#: use.
MAX_COUNT: Final[int] = 2**52
MAX_COUNT_TEXT: Final[str] = "counts up to 2**52 (about 4.5e15) are supported"

# A valid example for the levels a user sets most often.
_EXAMPLES: Final[dict[str, str]] = {
    "alpha": "0.05",
    "confidence_level": "0.95 for 95%",
    "power": "0.8",
}
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


def _named(argument: str) -> str:
    """The argument inside a message: marked with :func:`option` when it is a keyword, so
    that an interface can spell it as its own flag."""
    return option(argument) if _IDENTIFIER.fullmatch(argument) else argument


def _number(value: float) -> str:
    """A number as a user typed it: 2 rather than 2.0, 1.5, nan, inf."""
    v = float(value)
    if math.isfinite(v) and v == math.floor(v) and abs(v) < 1e16:
        return str(int(v))
    return repr(v)


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _first(values: NDArray[Any], bad: NDArray[np.bool_]) -> str:
    """The first offending value, and where it is in an array."""
    first = values[bad].flat[0]
    shown = _number(first) if values.dtype.kind == "f" else str(first)
    if values.ndim == 0:
        return shown
    return f"{shown} (at index {np.argwhere(bad)[0].tolist()})"


# ------------------------------------------------------------------------------------ counts

#: Scalar types whose every in-range value is a valid count as it is.
_WHOLE_SCALARS = frozenset({int, np.int64, np.int32, np.int16, np.int8, np.uint64, np.uint32,
                            np.uint16, np.uint8})


def check_counts(
    value: Any,
    argument: str,
    *,
    minimum: int = 0,
    error: type[McNemarError] = McNemarError,
    dtype: DTypeLike = np.int64,
    outcomes_hint: bool = False,
) -> NDArray[Any]:
    """Whole numbers of items from ``minimum`` (0 or 1) to :data:`MAX_COUNT`, as an array.

    Parameters
    ----------
    value : int, float or array_like
        A count or an array of counts. Integral floats (``3.0``) are accepted; fractions, NaN,
        infinities, booleans and text are not.
    argument : str
        The argument's name, for the message and the error's ``argument``.
    minimum : int
        0 for a cell of a table, 1 for a number of items to plan.
    error : type of McNemarError
        The class raised (e.g. :class:`~mcnemar.errors.TableError` for a table's cells).
    dtype : dtype
        The dtype returned (int64 by default; float64 saves a conversion for float code).
    outcomes_hint : bool
        Refusing booleans, point to :meth:`~mcnemar.table.PairedTable.from_outcomes`.

    Returns
    -------
    numpy.ndarray
        The counts, 0-d for a scalar.

    Examples
    --------
    >>> check_counts([3, 4.0], "b").tolist()
    [3, 4]
    >>> check_counts(-1, "c")
    Traceback (most recent call last):
    ...
    mcnemar.errors.McNemarError: c must be >= 0, got -1; counts cannot be negative
    """
    if type(value) in _WHOLE_SCALARS and minimum <= value <= MAX_COUNT:
        # The common case of one table's cells, without the array checks below (bool and
        # numpy.bool_ are other types, refused there).
        return np.array(value, dtype=dtype)
    name = _named(argument)
    whole = "a positive whole number of items" if minimum > 0 else "a count (a whole number >= 0)"
    hint = "; pass per-item outcomes to PairedTable.from_outcomes instead" if outcomes_hint else ""

    def fail(message: str) -> McNemarError:
        return error(message, argument=argument)

    if isinstance(value, bool | np.bool_):
        raise fail(f"{name} must be {whole}, got the boolean {value!r}{hint}")
    if isinstance(value, str | bytes):
        raise fail(f"{name} must be {whole}, got the text {value!r}")
    try:
        arr = np.asarray(value)
    except Exception:  # ragged nested lists and the like
        raise fail(
            f"{name} must be a count or an array of counts, got {_describe(value)}"
        ) from None
    if arr.dtype == np.bool_:
        raise fail(f"{name} must hold counts (whole numbers >= 0), got booleans{hint}")
    if arr.size == 0:
        raise fail(f"{name} is empty; give {whole}")
    if arr.dtype == object:
        items = arr.ravel().tolist()
        if not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in items):
            raise fail(f"{name} must be {whole} or an array of them, got {_describe(value)}")
        if all(isinstance(v, numbers.Integral) for v in items):
            # Python integers beyond int64: compare exactly before converting.
            for v in items:
                if int(v) < minimum:
                    break
                if int(v) > MAX_COUNT:
                    raise fail(f"{name} = {int(v)} is too large; {MAX_COUNT_TEXT}")
            else:
                return arr.astype(np.int64).astype(dtype, copy=False)
        arr = arr.astype(np.float64)
    if arr.dtype.kind in "iu":
        if arr.dtype == np.uint64 and np.any(arr > MAX_COUNT):
            bad = arr > MAX_COUNT
            raise fail(f"{name} = {_first(arr, bad)} is too large; {MAX_COUNT_TEXT}")
        out = arr.astype(np.int64, copy=False)
        low = out < minimum
        if np.any(low):
            raise fail(_too_small(name, minimum, _first(out, low)))
        high = out > MAX_COUNT
        if np.any(high):
            raise fail(f"{name} = {_first(out, high)} is too large; {MAX_COUNT_TEXT}")
        return out.astype(dtype, copy=False)
    if arr.dtype.kind == "f":
        flt = arr.astype(np.float64, copy=False)
        infinite = ~np.isfinite(flt)
        if np.any(infinite):
            raise fail(f"{name} must be a finite whole number >= {minimum}, "
                       f"got {_first(flt, infinite)}")
        low = flt < minimum
        if np.any(low):
            raise fail(_too_small(name, minimum, _first(flt, low)))
        fraction = flt != np.floor(flt)
        if np.any(fraction) and minimum > 0:
            raise fail(_too_small(name, minimum, _first(flt, fraction)))
        if np.any(fraction):
            raise fail(f"{name} must be a whole number of items, got the fraction "
                       f"{_first(flt, fraction)}; counts of items cannot be fractional")
        high = flt > MAX_COUNT
        if np.any(high):
            raise fail(f"{name} = {_first(flt, high)} is too large; {MAX_COUNT_TEXT}")
        return flt.astype(dtype, copy=False)
    raise fail(f"{name} must be {whole} or an array of them, got {_describe(value)}")


def _too_small(name: str, minimum: int, shown: str) -> str:
    if minimum > 0:
        return f"{name} must be a positive whole number of items, got {shown}"
    return f"{name} must be >= 0, got {shown}; counts cannot be negative"


def check_count(value: Any, argument: str, *, minimum: int = 0) -> int:
    """One count (see :func:`check_counts`), as a Python ``int``.

    >>> check_count(12.0, "n", minimum=1)
    12
    """
    arr = check_counts(value, argument, minimum=minimum)
    if arr.ndim != 0:
        raise McNemarError(
            f"{_named(argument)} must be one count, got an array of shape {arr.shape}",
            argument=argument,
        )
    return int(arr)


# ------------------------------------------------------------------- levels and probabilities


def _example(argument: str, example: str | None) -> str:
    return example if example is not None else _EXAMPLES.get(argument, "0.5")


def _percent_hint(v: float) -> str:
    # 2 to 100 is almost always a percentage typed for a proportion.
    return f"; for {_number(v)}% give {v / 100:g}" if 2.0 <= v < 100.0 else ""


def check_open_unit(value: Any, argument: str, *, example: str | None = None) -> float:
    """One real number strictly between 0 and 1 (a significance level, a confidence level,
    a target power), as a ``float``.

    >>> check_open_unit(0.05, "alpha")
    0.05
    >>> check_open_unit(1.5, "alpha")
    Traceback (most recent call last):
    ...
    mcnemar.errors.McNemarError: alpha must be strictly between 0 and 1 (e.g. 0.05), got 1.5
    """
    if type(value) is float and 0.0 < value < 1.0:
        # (the usual call: a level as a Python float, checked before any message is made)
        return value
    name, ex = _named(argument), _example(argument, example)
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise McNemarError(
            f"{name} must be a number strictly between 0 and 1 (e.g. {ex}), got {value!r}",
            argument=argument,
        )
    v = float(value)
    if not 0.0 < v < 1.0:
        raise McNemarError(
            f"{name} must be strictly between 0 and 1 (e.g. {ex}), got {_number(v)}"
            f"{_percent_hint(v)}",
            argument=argument,
        )
    return v


def check_open_units(value: Any, argument: str, *, example: str | None = None) -> FloatArray:
    """Real numbers strictly between 0 and 1, a scalar or an array (0-d for a scalar).

    >>> check_open_units([0.9, 0.95], "confidence_level").tolist()
    [0.9, 0.95]
    """
    name, ex = _named(argument), _example(argument, example)
    if isinstance(value, str | bytes):
        raw = np.asarray(None)
    else:
        try:
            raw = np.asarray(value)
        except Exception:
            raw = np.asarray(None)
    # bool is an int subclass and complex converts with a warning: both are caller mistakes.
    if raw.dtype.kind not in "iuf" or raw.size == 0:
        raise McNemarError(
            f"{name} must be a number strictly between 0 and 1 (e.g. {ex}), "
            f"got {_describe(value)}",
            argument=argument,
        )
    level = raw.astype(np.float64)
    bad = ~((level > 0.0) & (level < 1.0))
    if bad.any():
        first = float(level[bad].flat[0])
        raise McNemarError(
            f"{name} must be strictly between 0 and 1 (e.g. {ex}), got {_first(level, bad)}"
            f"{_percent_hint(first)}",
            argument=argument,
        )
    return level


def check_probabilities(value: Any, argument: str) -> FloatArray:
    """Probabilities in [0, 1], a scalar or an array (0-d for a scalar), as float64.

    >>> try:
    ...     check_probabilities([0.2, -0.1], "p10")
    ... except McNemarError as err:
    ...     print(err)
    p10 must be a probability between 0 and 1 (or an array of them); got -0.1 (at index [1])
    """
    name = _named(argument)
    valid = "a probability between 0 and 1"
    if np.ndim(value) if not isinstance(value, str | bytes) else 0:
        valid += " (or an array of them)"  # said only to whom gave an array
    raw: NDArray[Any] | None = None
    if value is not None and not isinstance(value, bool | np.bool_ | str | bytes):
        try:
            raw = np.asarray(value)
        except Exception:
            raw = None
    if raw is None or raw.dtype.kind not in "iuf":
        raise McNemarError(f"{name} must be {valid}; got {_describe(value)}", argument=argument)
    if raw.size == 0:
        raise McNemarError(f"{name} must be {valid}; got an empty array", argument=argument)
    arr = raw.astype(np.float64)
    bad = ~((arr >= 0.0) & (arr <= 1.0))
    if bad.any():
        raise McNemarError(f"{name} must be {valid}; got {_first(arr, bad)}", argument=argument)
    return arr


def check_probability(value: Any, argument: str) -> float:
    """One probability in [0, 1], as a ``float``.

    >>> check_probability(0, "discordance")
    0.0
    """
    arr = check_probabilities(value, argument)
    if arr.ndim != 0:
        raise McNemarError(
            f"{_named(argument)} must be one probability, got an array of shape {arr.shape}",
            argument=argument,
        )
    return float(arr)


def check_positive(value: Any, argument: str, *, what: str = "a number") -> float:
    """One finite real number greater than 0, as a ``float``.

    >>> check_positive(0.01, "margin")
    0.01
    """
    name = _named(argument)
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise McNemarError(f"{name} must be {what} > 0, got {_describe(value)}",
                           argument=argument)
    v = float(value)
    if not (math.isfinite(v) and v > 0.0):
        raise McNemarError(f"{name} must be {what} > 0, got {_number(v)}", argument=argument)
    return v


# ---------------------------------------------------------------------------- names, choices


def check_choice(
    value: Any, argument: str, terms: Sequence[Term] | Sequence[str], *, hint: str = ""
) -> str:
    """``value`` if it is the name of one of ``terms`` (a vocabulary tuple or plain names).

    ``hint`` (e.g. what the choices mean) is added to the message in parentheses.

    >>> from mcnemar.vocabulary import ALTERNATIVES
    >>> check_choice("less", "alternative", ALTERNATIVES)
    'less'
    >>> try:
    ...     check_choice("both", "alternative", ALTERNATIVES)
    ... except McNemarError as err:
    ...     print(err, "|", err.argument)
    alternative must be one of 'two-sided', 'greater', 'less'; got 'both' | alternative
    """
    valid = tuple(t if isinstance(t, str) else t.name for t in terms)
    if not isinstance(value, str) or value not in valid:
        listed = ", ".join(repr(v) for v in valid)
        extra = f" ({hint})" if hint else ""
        raise McNemarError(
            f"{_named(argument)} must be one of {listed}; got {_describe(value)}{extra}",
            argument=argument,
        )
    return str(value)


def check_names(
    names: Any, count: int, *, argument: str = "names", what: str = "model",
    clean: Callable[[str], str] | None = None,
) -> tuple[str, ...]:
    """Display names: a sequence of ``count`` non-empty, distinct strings, as a tuple.

    ``clean`` (e.g. :func:`mcnemar._format.clean_name`, one line each) is applied first, and
    the names must still be non-empty and distinct after it. ``what="system"`` with
    ``count=2`` is the report's pair (A, B): its messages say that the report must be able to
    say which did better.

    >>> check_names(["new", "old"], 2)
    ('new', 'old')
    >>> check_names(["m", "m"], 2)
    Traceback (most recent call last):
    ...
    mcnemar.errors.McNemarError: names must be unique; 'm' appears more than once
    >>> try:
    ...     check_names(("x", "x"), 2, what="system")
    ... except McNemarError as err:
    ...     print(str(err)[:50])
    names must differ so that the report can say which
    """
    name = _named(argument)
    pair = what == "system" and count == 2
    if pair and (
        not isinstance(names, tuple | list)
        or len(names) != 2
        or not all(isinstance(x, str) and (clean or str)(x) for x in names)
    ):
        raise McNemarError(f"{name} must be two non-empty strings (A, B), got {names!r}",
                           argument=argument)
    if isinstance(names, str | bytes):
        raise McNemarError(
            f"{name} must be a sequence of {count} strings (one per {what}); got the single "
            f"string {names!r}",
            argument=argument,
        )
    try:
        out = tuple(names)
    except TypeError:
        raise McNemarError(
            f"{name} must be a sequence of {count} strings (one per {what}); got "
            f"{_describe(names)}",
            argument=argument,
        ) from None
    if len(out) != count:
        raise McNemarError(
            f"{name} must have one entry per {what}: expected {count}, got {len(out)}: "
            f"{_describe(list(out))}",
            argument=argument,
        )
    for one in out:
        if not isinstance(one, str) or not (clean or str)(one):
            raise McNemarError(
                f"{name} must be non-empty strings; got {one!r} in {_describe(list(out))}",
                argument=argument,
            )
    if clean is not None:
        out = tuple(clean(one) for one in out)
    seen: set[str] = set()
    for one in out:
        if one in seen:
            if pair:
                raise McNemarError(
                    f"{name} must differ so that the report can say which did better, got "
                    f"{names!r}",
                    argument=argument,
                )
            raise McNemarError(f"{name} must be unique; {one!r} appears more than once",
                               argument=argument)
        seen.add(one)
    return out


def check_scores(value: Any, argument: str) -> FloatArray:
    """Per-item scores: finite real numbers, one per item (1-D) or one column per run (2-D),
    as float64. Booleans are scores too (pass = 1, fail = 0).

    >>> check_scores([0.5, 1, True], "scores_a").tolist()
    [0.5, 1.0, 1.0]
    >>> try:
    ...     check_scores([1.0, float("nan")], "scores_b")
    ... except McNemarError as err:
    ...     print(err.argument, "|", str(err)[:44])
    scores_b | scores_b must be finite numbers, got nan (at
    """
    name = _named(argument)
    if isinstance(value, str | bytes):
        raise McNemarError(f"{name} must be an array of scores, got the text {value!r}",
                           argument=argument)
    try:
        raw = np.asarray(value)
    except Exception:
        raw = np.asarray(None)
    if raw.dtype == object:
        try:
            raw = raw.astype(np.float64)
        except (TypeError, ValueError):
            raise McNemarError(f"{name} must hold numbers, got {_describe(value)}",
                               argument=argument) from None
    if raw.dtype.kind not in "biuf":
        raise McNemarError(f"{name} must hold numbers, got {_describe(value)}",
                           argument=argument)
    if raw.ndim not in (1, 2) or raw.size == 0:
        raise McNemarError(f"{name} must be a non-empty 1-D array (one score per item) or a 2-D "
                           f"array (items x runs); got shape {raw.shape}", argument=argument)
    arr = raw.astype(np.float64)
    bad = ~np.isfinite(arr)
    if bad.any():
        raise McNemarError(f"{name} must be finite numbers, got {_first(arr, bad)}; drop the "
                           "items without a score first", argument=argument)
    return arr
