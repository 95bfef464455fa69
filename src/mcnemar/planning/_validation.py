"""Argument checks of the planning functions, and the conversion of a difference and a
discordance rate (or a pilot table) into the discordant probabilities ``(p10, p01)``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from mcnemar import vocabulary
from mcnemar.errors import McNemarError, option
from mcnemar.validation import check_choice, check_counts, check_open_unit, check_probabilities

FloatArray = npt.NDArray[np.float64]


_METHODS = vocabulary.names(vocabulary.POWER_METHODS)
_ALTERNATIVES = vocabulary.names(vocabulary.ALTERNATIVES)
# How the results name the test and the direction (the vocabulary's labels).
_METHOD_NAMES = {term.name: term.label for term in vocabulary.POWER_METHODS}
_ALTERNATIVE_WORDS = {term.name: term.label for term in vocabulary.ALTERNATIVES}

# --------------------------------------------------------------------------------------------
# validation (the checks of mcnemar.validation, under the names the planning modules use)

_check_choice = check_choice
_check_open_unit = check_open_unit
_check_probabilities = check_probabilities


def _as_float_array(value: Any, argname: str, valid: str) -> FloatArray:
    if isinstance(value, bool) or value is None:
        raise McNemarError(f"{option(argname)} must be {valid}; got {value!r}", argument=argname)
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        raise McNemarError(f"{option(argname)} must be {valid}; got {value!r}",
                           argument=argname) from None
    if arr.dtype == np.bool_ or arr.dtype.kind not in "iuf":
        raise McNemarError(f"{option(argname)} must be {valid}; got {value!r}", argument=argname)
    out: FloatArray = arr.astype(np.float64)
    if out.size == 0:
        raise McNemarError(f"{option(argname)} must be {valid}; got an empty array",
                           argument=argname)
    return out


def _first_bad(arr: FloatArray, bad: npt.NDArray[np.bool_]) -> float:
    return float(arr[bad].flat[0])


def _check_n(value: Any, argname: str = "n") -> FloatArray:
    """Numbers of items: whole numbers from 1 to the library's limit, as float64."""
    n: FloatArray = check_counts(value, argname, minimum=1, dtype=np.float64)
    return n


def _table_probabilities(table: Any) -> tuple[float, float]:
    """p10 = b/N and p01 = c/N estimated from a pilot table (duck-typed a, b, c, d)."""
    pilot = option("table")
    cells = {}
    for name in ("a", "b", "c", "d"):
        if not hasattr(table, name):
            raise McNemarError(
                f"{pilot} must be a PairedTable (an object with cells a, b, c, d); "
                f"got {type(table).__name__} without attribute {name!r}"
            )
        cells[name] = getattr(table, name)
    if cells["a"] is None or cells["d"] is None:
        raise McNemarError(
            f"{pilot} needs all four cells (a and d too) to estimate p10 = b/N and p01 = c/N from "
            "a pilot; got a or d unknown. Give p10 and p01 (or difference and discordance) instead"
        )
    values = {}
    for name, value in cells.items():
        if np.ndim(value) != 0:
            raise McNemarError(
                f"{pilot} must hold one pilot table (scalar cells); cell {name} is an array of "
                f"shape {np.shape(value)}"
            )
        v = float(value)
        if not (v >= 0.0 and v == math.floor(v)):
            raise McNemarError(f"{pilot} cell {name} must be a whole count >= 0; got {value!r}")
        values[name] = v
    total = values["a"] + values["b"] + values["c"] + values["d"]
    if total == 0:
        raise McNemarError(f"{pilot} is empty (a + b + c + d = 0); a pilot needs at least one item")
    return values["b"] / total, values["c"] / total


def discordant_probabilities(difference: Any, discordance: Any) -> tuple[Any, Any]:
    r"""Convert an accuracy difference and a discordance rate to ``(p10, p01)``.

    .. math:: p_{10} = (\psi + \delta)/2, \qquad p_{01} = (\psi - \delta)/2,

    with :math:`\delta = p_{10} - p_{01}` = accuracy(A) - accuracy(B) and
    :math:`\psi = p_{10} + p_{01}` the probability that the systems disagree on an item.

    Parameters
    ----------
    difference : float or array_like
        Accuracy(A) - accuracy(B), in ``[-1, 1]``.
    discordance : float or array_like
        Probability that exactly one system is right, in ``[0, 1]``; at least ``|difference|``.

    Returns
    -------
    p10, p01 : float or ndarray
        Floats for scalar input, arrays otherwise.

    Examples
    --------
    >>> discordant_probabilities(0.02, 0.10)
    (0.06, 0.04)
    """
    delta = _as_float_array(difference, "difference", "a number between -1 and 1")
    psi = _check_probabilities(discordance, "discordance")
    bad = ~((delta >= -1.0) & (delta <= 1.0))
    if bad.any():
        raise McNemarError(
            f"{option('difference')} must be between -1 and 1; got {_first_bad(delta, bad)!r}"
        )
    delta, psi = np.broadcast_arrays(delta, psi)
    bad = np.abs(delta) > psi * (1.0 + 1e-12)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise McNemarError(
            f"difference {float(delta.flat[i])!r} is impossible with discordance "
            f"{float(psi.flat[i])!r}: "
            "|difference| can be at most the discordance (the accuracy gap comes only from "
            "items where the systems disagree)"
        )
    p10 = np.clip((psi + delta) / 2.0, 0.0, 1.0)
    p01 = np.clip((psi - delta) / 2.0, 0.0, 1.0)
    if p10.ndim == 0:
        return round(float(p10), 15), round(float(p01), 15)
    return p10, p01


def _resolve_probabilities(
    p10: Any, p01: Any, difference: Any, discordance: Any, table: Any
) -> tuple[FloatArray, FloatArray]:
    given = {
        "p10/p01": p10 is not None or p01 is not None,
        "difference/discordance": difference is not None or discordance is not None,
        "table": table is not None,
    }
    chosen = [k for k, v in given.items() if v]
    if len(chosen) != 1:
        raise McNemarError(
            "give exactly one of: p10 and p01; difference and discordance; or a pilot table= "
            f"(got {' and '.join(chosen) if chosen else 'none of them'})"
        )
    if table is not None:
        b, c = _table_probabilities(table)
        return np.asarray(b, dtype=np.float64), np.asarray(c, dtype=np.float64)
    if difference is not None or discordance is not None:
        if difference is None or discordance is None:
            missing = "difference" if difference is None else "discordance"
            raise McNemarError(
                f"{option('difference')} and {option('discordance')} go together; "
                f"{option(missing)} is missing",
                argument=missing,
            )
        q10, q01 = discordant_probabilities(difference, discordance)
        return np.asarray(q10, dtype=np.float64), np.asarray(q01, dtype=np.float64)
    if p10 is None or p01 is None:
        missing = "p10" if p10 is None else "p01"
        raise McNemarError(
            f"{option('p10')} and {option('p01')} go together; {option(missing)} is missing",
            argument=missing,
        )
    a = _check_probabilities(p10, "p10")
    b_ = _check_probabilities(p01, "p01")
    a, b_ = np.broadcast_arrays(a, b_)
    total = a + b_
    bad = total > 1.0 + 1e-12
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise McNemarError(
            f"p10 + p01 must be at most 1 (they are probabilities of two exclusive cells); got "
            f"p10 = {float(a.flat[i])!r} and p01 = {float(b_.flat[i])!r}"
        )
    return a.astype(np.float64), b_.astype(np.float64)


