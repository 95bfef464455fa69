"""Argument checks of the many-model functions, and the names of the tests they run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from mcnemar import vocabulary
from mcnemar.errors import McNemarError, option
from mcnemar.validation import check_choice, check_names, check_open_unit

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

_TEST_METHODS = tuple(n for n in vocabulary.names(vocabulary.TESTS) if n != "unconditional")
# How the results name the test (the vocabulary's labels).
_TEST_NAMES = {term.name: term.label for term in vocabulary.TESTS if term.name in _TEST_METHODS}
_ALTERNATIVES = vocabulary.names(vocabulary.ALTERNATIVES)


# --------------------------------------------------------------------------------------------
# input validation


def _as_correctness_matrix(correct: Any, argname: str = "correct") -> npt.NDArray[np.int8]:
    """Validate a K x N 0/1 matrix and return it as int8."""
    arg = option(argname)
    try:
        x = np.asarray(correct)
    except (TypeError, ValueError) as exc:
        raise McNemarError(
            f"{arg} must be a K x N matrix of 0/1 (one row per model, one column per item); "
            f"it could not be read as an array: {exc}"
        ) from None
    if x.ndim != 2:
        raise McNemarError(
            f"{arg} must be a 2-D K x N matrix (one row per model, one column per item); "
            f"got an array with {x.ndim} dimension(s) and shape {x.shape}"
        )
    k, n = x.shape
    if k < 2:
        raise McNemarError(
            f"{arg} must have at least 2 rows (one per model) to compare; got shape {x.shape}"
        )
    if n < 1:
        raise McNemarError(
            f"{arg} must have at least 1 column (one per item); got shape {x.shape}"
        )
    if x.dtype == np.bool_:
        return x.astype(np.int8)
    if x.dtype.kind not in "iuf":
        raise McNemarError(
            f"{arg} must hold 0/1 or True/False per model and item; got values of dtype "
            f"{x.dtype} (first value {x.flat[0].item()!r})"
        )
    if x.dtype.kind == "f":
        nan = np.isnan(x)
        if nan.any():
            i, j = np.argwhere(nan)[0]
            raise McNemarError(
                f"{arg} has a missing value (NaN) for model {i}, item {j}; every model "
                "needs a 0/1 outcome on every item (align the runs first)"
            )
    if x.dtype.kind in "iu":
        # one comparison instead of two: seen as unsigned, a negative value is above 1 too
        bad = x.view(x.dtype.str.replace("i", "u")) > 1
    else:
        bad = (x != 0) & (x != 1)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise McNemarError(
            f"{arg} must hold only 0 and 1 (or True/False); got {x[i, j].item()!r} for "
            f"model {i}, item {j}"
        )
    # read only by the callers, so an int8 input need not be copied
    return x.astype(np.int8, copy=False)


# The checks of mcnemar.validation, under the names the many-model modules use.
_check_choice = check_choice
_check_probability = check_open_unit


def _check_names(names: Sequence[str] | None, k: int) -> tuple[str, ...]:
    if names is None:
        return tuple(f"model {i}" for i in range(k))
    return check_names(names, k, what="model (row of correct)")


def _resolve_baseline(baseline: int | str | None, names: tuple[str, ...]) -> int | None:
    arg = option("baseline")
    if baseline is None:
        return None
    k = len(names)
    if isinstance(baseline, str):
        if baseline in names:
            return names.index(baseline)
        raise McNemarError(
            f"{arg} must be a model name or a row index 0..{k - 1}; {baseline!r} is not one of "
            f"the names {list(names)!r}"
        )
    if isinstance(baseline, bool) or not isinstance(baseline, (int, np.integer)):
        raise McNemarError(
            f"{arg} must be a model name or a row index 0..{k - 1}; got {baseline!r}"
        )
    idx = int(baseline)
    if not 0 <= idx < k:
        raise McNemarError(f"{arg} index must be between 0 and {k - 1}; got {idx}")
    return idx


