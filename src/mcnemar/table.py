"""The paired 2x2 table of two systems scored on the same items.

========  =====  ==========================  ===========================================
cell      alias  meaning                     in eval terms (A = candidate, B = baseline)
========  =====  ==========================  ===========================================
``a``     both      A right and B right      both pass
``b``     only_a    A right, B wrong         only the candidate passes
``c``     only_b    A wrong, B right         only the baseline passes
``d``     neither   A wrong and B wrong      both fail
========  =====  ==========================  ===========================================

accuracy(A) - accuracy(B) = (b - c)/N. Only the discordant cells b and c carry evidence about
the difference; a and d are optional (without them there is no N, so the tests run but the
quantities that need N say so).

Constructors build the table from what users have: counts (:class:`PairedTable`), counts in the
error framing of textbooks (:meth:`PairedTable.from_errors`), per-item correctness
(:meth:`PairedTable.from_outcomes`) and true labels with two sets of predictions
(:meth:`PairedTable.from_predictions`). Cells may be arrays: one table per element, and every
test and interval is then vectorized over them.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from mcnemar.errors import McNemarError, TableError, option
from mcnemar.validation import MAX_COUNT, check_counts

__all__ = ["PairedTable"]

IntArray = NDArray[np.int64]
Cell = int | IntArray

# The one limit of counts (2**52: every sum of two cells stays exact in double precision);
# the web models and the report read it from here or from mcnemar.validation.
_MAX_COUNT = MAX_COUNT

# Items are processed in blocks this long so that the boolean temporaries stay in cache.
_BLOCK = 1 << 18


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _count(name: str, value: Any) -> IntArray:
    """Validate one cell: non-negative whole numbers (scalar or array), as int64."""
    counts: IntArray = check_counts(value, name, error=TableError, outcomes_hint=True)
    return counts


def _scalar_or_array(x: IntArray | None) -> Cell | None:
    if x is None:
        return None
    return int(x) if x.ndim == 0 else x


class PairedTable:
    """A paired 2x2 table (or an array of them) for two systems A and B on the same items.

    Parameters
    ----------
    a, b, c, d : int or array_like of int, optional
        ``a`` both right, ``b`` A right and B wrong, ``c`` A wrong and B right, ``d`` both
        wrong. ``b`` and ``c`` are required; ``a`` and ``d`` are optional but go together
        (give both or neither). Arrays broadcast together: each element is one table.
    both, only_a, only_b, neither : int or array_like of int, optional
        Named aliases of ``a``, ``b``, ``c`` and ``d``; give each cell once.

    Attributes
    ----------
    a, b, c, d : int or ndarray or None
        The cells (Python ints for a single table); ``a`` and ``d`` are ``None`` when unknown.
    n : int or ndarray or None
        Number of items, ``None`` when ``a`` and ``d`` are unknown.
    discordant : int or ndarray
        D = b + c, the items on which exactly one system was right.

    Raises
    ------
    TableError
        For negative, fractional, non-finite, boolean or missing counts, or shapes that do
        not broadcast.

    Examples
    --------
    >>> t = PairedTable(a=157, b=17, c=3, d=23)
    >>> t.n, t.discordant
    (200, 20)
    >>> print(t)  # doctest: +NORMALIZE_WHITESPACE
    A right and B wrong on 17 items; A wrong and B right on 3; both right on 157,
    both wrong on 23 (200 items).
    >>> PairedTable(only_a=17, only_b=3).n is None
    True
    """

    __slots__ = ("_a", "_b", "_c", "_d")

    _a: IntArray | None
    _b: IntArray
    _c: IntArray
    _d: IntArray | None

    def __init__(
        self,
        a: ArrayLike | None = None,
        b: ArrayLike | None = None,
        c: ArrayLike | None = None,
        d: ArrayLike | None = None,
        *,
        both: ArrayLike | None = None,
        only_a: ArrayLike | None = None,
        only_b: ArrayLike | None = None,
        neither: ArrayLike | None = None,
    ) -> None:
        cells: dict[str, Any] = {}
        for letter, alias, v1, v2 in (
            ("a", "both", a, both),
            ("b", "only_a", b, only_a),
            ("c", "only_b", c, only_b),
            ("d", "neither", d, neither),
        ):
            if v1 is not None and v2 is not None:
                raise TableError(
                    f"cell {letter} was given twice, as {letter}={_describe(v1)} and "
                    f"{alias}={_describe(v2)}; {alias} is an alias of {letter}: give one of them",
                    argument=letter,
                )
            cells[letter] = v1 if v1 is not None else v2
        for letter, alias in (("b", "only_a"), ("c", "only_b")):
            if cells[letter] is None:
                raise TableError(
                    f"the discordant count {letter} ({alias}) is required: "
                    f"{'A right and B wrong' if letter == 'b' else 'A wrong and B right'}",
                    argument=letter,
                )
        if (cells["a"] is None) != (cells["d"] is None):
            given, missing = ("a", "d") if cells["a"] is not None else ("d", "a")
            raise TableError(
                f"{given} was given without {missing}; give both a (both right) and d (both wrong) "
                "so that N is known, or neither (the tests need only b and c)",
                argument=given,
            )
        arrays = {k: (None if v is None else _count(k, v)) for k, v in cells.items()}
        present = [v for v in arrays.values() if v is not None]
        try:
            shape = np.broadcast_shapes(*(v.shape for v in present))
        except ValueError as exc:
            shapes = ", ".join(f"{k}: {v.shape}" for k, v in arrays.items() if v is not None)
            raise TableError(
                f"the cells' shapes do not broadcast together ({shapes}); give scalars or "
                "arrays of one shape (one element per table)"
            ) from exc
        for key in "abcd":
            value = arrays[key]
            if value is not None and value.shape != shape:
                value = np.broadcast_to(value, shape)
            if value is not None:
                value = np.array(value, dtype=np.int64)
                value.setflags(write=False)
            object.__setattr__(self, f"_{key}", value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("PairedTable is immutable")

    # -- cells ---------------------------------------------------------------------------------
    @property
    def a(self) -> Cell | None:
        """Both right (alias ``both``); ``None`` when unknown."""
        return _scalar_or_array(self._a)

    @property
    def b(self) -> Cell:
        """A right and B wrong (alias ``only_a``)."""
        return _scalar_or_array(self._b)  # type: ignore[return-value]

    @property
    def c(self) -> Cell:
        """A wrong and B right (alias ``only_b``)."""
        return _scalar_or_array(self._c)  # type: ignore[return-value]

    @property
    def d(self) -> Cell | None:
        """Both wrong (alias ``neither``); ``None`` when unknown."""
        return _scalar_or_array(self._d)

    both = a
    only_a = b
    only_b = c
    neither = d

    @property
    def n(self) -> Cell | None:
        """Number of items N = a + b + c + d, or ``None`` when a and d are unknown."""
        if self._a is None or self._d is None:
            return None
        return _scalar_or_array(self._a + self._b + self._c + self._d)

    @property
    def discordant(self) -> Cell:
        """D = b + c, the items on which exactly one system was right."""
        return _scalar_or_array(self._b + self._c)  # type: ignore[return-value]

    @property
    def shape(self) -> tuple[int, ...]:
        """Shape of the array of tables; ``()`` for a single table."""
        return self._b.shape

    @property
    def has_n(self) -> bool:
        """Whether a and d (and so N) are known."""
        return self._a is not None

    def arrays(self) -> tuple[IntArray | None, IntArray, IntArray, IntArray | None]:
        """The cells as int64 arrays (0-d for a single table), for vectorized computation."""
        return self._a, self._b, self._c, self._d

    def arrays_with_n(self, needs: str) -> tuple[IntArray, IntArray, IntArray, IntArray]:
        """The four cells as int64 arrays, for a computation that needs N.

        Parameters
        ----------
        needs : str
            What needs N, the start of the error message (``"the unconditional test needs N"``).

        Raises
        ------
        McNemarError
            When a and d are unknown: ``needs``, then how to give them.

        Examples
        --------
        >>> [int(x) for x in PairedTable(157, 17, 3, 23).arrays_with_n("N")]
        [157, 17, 3, 23]
        >>> PairedTable(b=3, c=1).arrays_with_n("the test needs N")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        mcnemar.errors.McNemarError: the test needs N: give a (both right) and d (both wrong) ...
        """
        a, b, c, d = self.arrays()
        if a is None or d is None:
            raise McNemarError(
                f"{needs}: give a (both right) and d (both wrong) as well as b and c"
            )
        return a, b, c, d

    def swap(self) -> PairedTable:
        """The same data with A and B exchanged (b and c swap places)."""
        return PairedTable(a=self._a, b=self._c, c=self._b, d=self._d)

    def __getitem__(self, index: Any) -> PairedTable:
        """Select tables from an array of tables (numpy indexing)."""
        if not self.shape:
            raise TableError("a single table cannot be indexed; build an array of tables first")
        pick = [None if x is None else x[index] for x in (self._a, self._b, self._c, self._d)]
        return PairedTable(a=pick[0], b=pick[1], c=pick[2], d=pick[3])

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("a single PairedTable has no len(); use .n for the number of items")
        return self.shape[0]

    def __iter__(self) -> Iterator[Cell | None]:
        """Unpack as ``a, b, c, d = table``."""
        return iter((self.a, self.b, self.c, self.d))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PairedTable):
            return NotImplemented
        pairs = zip(self.arrays(), other.arrays(), strict=True)
        return all(
            (x is None and y is None)
            or (x is not None and y is not None and x.shape == y.shape and bool(np.all(x == y)))
            for x, y in pairs
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PairedTable(a={self.a!r}, b={self.b!r}, c={self.c!r}, d={self.d!r})"

    def describe(self, names: tuple[str, str] = ("A", "B")) -> str:
        """The table restated in words, e.g. for a report.

        Examples
        --------
        >>> print(PairedTable(b=17, c=3).describe(("candidate", "baseline")))
        ... # doctest: +NORMALIZE_WHITESPACE
        candidate right and baseline wrong on 17 items; candidate wrong and baseline right
        on 3 (both-right and both-wrong counts not given).
        """
        if self.shape:
            return f"{int(np.prod(self.shape))} tables"
        na, nb = names
        text = (
            f"{na} right and {nb} wrong on {self.b} item{'s' if self.b != 1 else ''}; "
            f"{na} wrong and {nb} right on {self.c}"
        )
        if self.has_n:
            text += f"; both right on {self.a}, both wrong on {self.d} ({self.n} items)."
        else:
            text += " (both-right and both-wrong counts not given)."
        return text

    def __str__(self) -> str:
        return self.describe()

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe cells ``{"a", "b", "c", "d", "n", "discordant"}``; a, d, n null if unknown."""

        def plain(x: Cell | None) -> Any:
            if x is None:
                return None
            return x.tolist() if isinstance(x, np.ndarray) else int(x)

        return {
            "a": plain(self.a),
            "b": plain(self.b),
            "c": plain(self.c),
            "d": plain(self.d),
            "n": plain(self.n),
            "discordant": plain(self.discordant),
        }

    # -- constructors --------------------------------------------------------------------------
    @classmethod
    def from_errors(
        cls,
        *,
        only_a_wrong: ArrayLike,
        only_b_wrong: ArrayLike,
        both_wrong: ArrayLike | None = None,
        both_right: ArrayLike | None = None,
    ) -> PairedTable:
        """Build the table from error counts, the framing of many textbooks and tutorials.

        Parameters
        ----------
        only_a_wrong : int or array_like
            Items that only A got wrong ("A-only errors"); this is cell ``c``.
        only_b_wrong : int or array_like
            Items that only B got wrong ("B-only errors"); this is cell ``b``.
        both_wrong, both_right : int or array_like, optional
            Cells ``d`` and ``a``; give both or neither.

        Examples
        --------
        >>> PairedTable.from_errors(only_a_wrong=12, only_b_wrong=3)
        PairedTable(a=None, b=3, c=12, d=None)
        """
        if (both_wrong is None) != (both_right is None):
            given = "both_right" if both_right is not None else "both_wrong"
            raise TableError(
                "give both both_right and both_wrong (so that N is known) or neither",
                argument=given,
            )
        for name, value in (
            ("only_a_wrong", only_a_wrong),
            ("only_b_wrong", only_b_wrong),
            ("both_wrong", both_wrong),
            ("both_right", both_right),
        ):
            if value is not None:
                _count(name, value)
        return cls(a=both_right, b=only_b_wrong, c=only_a_wrong, d=both_wrong)

    @classmethod
    def from_outcomes(cls, correct_a: ArrayLike, correct_b: ArrayLike) -> PairedTable:
        """Build the table from per-item outcomes of A and B (True/1 = right or pass).

        Parameters
        ----------
        correct_a, correct_b : array_like
            One entry per item, in the same item order: booleans, or numbers that are 0 or 1.
            A 2-D input counts each row as a separate set of items (one table per row).

        Raises
        ------
        TableError
            Different lengths, empty input, NaN, or values other than 0/1 (scores in [0, 1]
            must be thresholded first).

        Examples
        --------
        >>> PairedTable.from_outcomes([1, 1, 0, 1, 0], [1, 0, 1, 0, 0])
        PairedTable(a=1, b=2, c=1, d=1)
        """
        xa, xb = outcome_pair(correct_a, correct_b)
        n = xa.shape[-1]
        n_a = np.count_nonzero(xa, axis=-1)
        n_b = np.count_nonzero(xb, axis=-1)
        both = _count_both(xa, xb)
        return cls._from_margins(n, n_a, n_b, both)

    @classmethod
    def from_predictions(
        cls,
        y_true: ArrayLike,
        pred_a: ArrayLike,
        pred_b: ArrayLike,
        *,
        labels: ArrayLike | None = None,
    ) -> PairedTable:
        """Build the table from true labels and two systems' predictions (binary or multiclass).

        An item counts as right for a system when its prediction equals the true label.

        Parameters
        ----------
        y_true, pred_a, pred_b : array_like
            One label per item, any dtype (ints, strings, ...), the same length.
        labels : array_like, optional
            The valid labels; when given, any label outside it is an error (catches typos and
            mismatched encodings such as ``"cat"`` vs ``"Cat"``).

        Raises
        ------
        TableError
            Different lengths, empty input, missing labels (NaN/None), or labels outside
            ``labels``.

        Examples
        --------
        >>> PairedTable.from_predictions([0, 1, 2, 2], [0, 1, 1, 2], [0, 2, 2, 1])
        PairedTable(a=1, b=2, c=1, d=0)
        """
        y = _labels("y_true", y_true)
        pa = _labels("pred_a", pred_a)
        pb = _labels("pred_b", pred_b)
        lengths = {"y_true": y.shape[0], "pred_a": pa.shape[0], "pred_b": pb.shape[0]}
        if len(set(lengths.values())) != 1:
            text = ", ".join(f"{k} has {v}" for k, v in lengths.items())
            raise TableError(f"y_true, pred_a and pred_b must have one label per item; {text}")
        if labels is not None:
            valid = _labels("labels", labels)
            for name, arr in (("y_true", y), ("pred_a", pa), ("pred_b", pb)):
                unknown = ~np.isin(arr, valid)
                if np.any(unknown):
                    bad = np.unique(arr[unknown])[:5].tolist()
                    raise TableError(
                        f"{option(name)} has {int(np.count_nonzero(unknown))} label(s) not in "
                        f"labels, e.g. {bad}; valid labels: {valid.tolist()[:20]}"
                    )
        n = y.shape[0]
        if y.dtype.kind in "biuf" and pa.dtype.kind in "biuf" and pb.dtype.kind in "biuf":
            n_a, n_b, both = _count_matches(y, pa, pb)
        else:
            ca = pa == y
            cb = pb == y
            n_a = int(np.count_nonzero(ca))
            n_b = int(np.count_nonzero(cb))
            both = int(np.count_nonzero(ca & cb))
        return cls._from_margins(n, n_a, n_b, both)

    @classmethod
    def _from_margins(cls, n: int, n_a: Any, n_b: Any, both: Any) -> PairedTable:
        n_a = np.asarray(n_a, dtype=np.int64)
        n_b = np.asarray(n_b, dtype=np.int64)
        both = np.asarray(both, dtype=np.int64)
        b = n_a - both
        c = n_b - both
        return cls(a=both, b=b, c=c, d=n - both - b - c)

    @classmethod
    def from_frame(cls, frame_a: Any, frame_b: Any, **options: Any) -> PairedTable:
        """Build the table from two data frames of per-item results joined on an id column.

        Accepts pandas, polars, pyarrow, DuckDB, Dask and PySpark frames; lazy engines do the
        join and the counting themselves. See :func:`mcnemar.io.frames.table_from_frames`
        for the options (``id=``, ``score=``, ``threshold=``, ``on_missing=``).
        """
        from mcnemar.io._frames import count_frames

        (a, b, c, d), _summary = count_frames(frame_a, frame_b, **options)
        return cls(a=a, b=b, c=c, d=d)

    @classmethod
    def from_long_frame(cls, frame: Any, **options: Any) -> PairedTable:
        """Build the table from one long data frame with a run column.

        See :func:`mcnemar.io.frames.table_from_long_frame` for the options
        (``id=``, ``run=``, ``score=``, ``runs=``).
        """
        from mcnemar.io._frames import count_long_frame

        (a, b, c, d), _summary = count_long_frame(frame, **options)
        return cls(a=a, b=b, c=c, d=d)


def _shape_text(shape: tuple[int, ...]) -> str:
    return str(shape[0]) if len(shape) == 1 else str(shape)


def outcome_pair(
    correct_a: ArrayLike,
    correct_b: ArrayLike,
    read: Callable[[str, ArrayLike], NDArray[np.bool_]] | None = None,
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """``correct_a`` and ``correct_b`` as boolean arrays of the same shape (the same items).

    ``read(name, values)`` converts and checks one argument (default: 0/1 outcomes of any
    shape); a :class:`~mcnemar.errors.TableError` when the two shapes differ.
    """
    read = _outcomes if read is None else read
    xa = read("correct_a", correct_a)
    xb = read("correct_b", correct_b)
    if xa.shape != xb.shape:
        raise TableError(
            f"correct_a and correct_b must describe the same items, got lengths "
            f"{_shape_text(xa.shape)} and {_shape_text(xb.shape)}"
        )
    return xa, xb


def _outcomes(name: str, values: ArrayLike) -> NDArray[np.bool_]:
    """Per-item outcomes as booleans; refuses anything that is not 0/1."""
    arg = option(name)
    try:
        arr = np.asarray(values)
    except Exception as exc:
        raise TableError(f"{arg} must be a sequence of 0/1 or booleans ({exc})") from exc
    if arr.ndim == 0:
        raise TableError(
            f"{arg} must be one outcome per item (a sequence), got a single value {arr!r}"
        )
    if arr.ndim > 2:
        raise TableError(f"{arg} must be 1-D (one outcome per item) or 2-D, got shape {arr.shape}")
    if arr.shape[-1] == 0:
        raise TableError(f"{arg} is empty; give one outcome per item")
    if arr.dtype == bool:
        return arr
    if arr.dtype.kind in "iu":
        if arr.min() < 0 or arr.max() > 1:
            bad = arr[(arr < 0) | (arr > 1)].flat[0]
            raise TableError(
                f"{arg} must hold 0/1 outcomes, found {bad}; for labels use "
                "PairedTable.from_predictions(y_true, pred_a, pred_b)"
            )
        return arr.astype(bool)
    if arr.dtype.kind == "f":
        if np.isnan(arr).any():
            idx = int(np.flatnonzero(np.isnan(arr.ravel()))[0])
            raise TableError(f"{arg} has NaN at item {idx}; every item needs an outcome (0 or 1)")
        bad_mask = (arr != 0.0) & (arr != 1.0)
        if bad_mask.any():
            bad = arr[bad_mask].flat[0]
            raise TableError(
                f"{arg} must hold 0/1 outcomes, found {bad}; scores in [0, 1] need a threshold "
                "first (e.g. scores >= 0.5)"
            )
        return arr == 1.0
    if arr.dtype == object:
        flat = arr.ravel()
        ok = np.array(
            [
                isinstance(v, bool | np.bool_) or (isinstance(v, numbers.Real) and v in (0, 1))
                for v in flat
            ]
        )
        if not ok.all():
            bad = flat[~ok][0]
            raise TableError(f"{arg} must hold 0/1 or booleans, found {bad!r}")
        return np.array([bool(v) for v in flat]).reshape(arr.shape)
    raise TableError(
        f"{arg} must hold 0/1 or booleans, got values of type {arr.dtype}; "
        "for labels use PairedTable.from_predictions"
    )


def _labels(name: str, values: ArrayLike) -> NDArray[Any]:
    try:
        arr = np.asarray(values)
    except Exception as exc:
        raise TableError(f"{name} must be a sequence of labels ({exc})") from exc
    if arr.ndim != 1:
        raise TableError(f"{name} must be 1-D (one label per item), got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise TableError(f"{name} is empty; give one label per item")
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        idx = int(np.flatnonzero(np.isnan(arr))[0])
        raise TableError(
            f"{name} has a missing label (NaN) at item {idx}; every item needs a label"
        )
    if arr.dtype == object:
        missing = np.array([v is None or (isinstance(v, float) and math.isnan(v)) for v in arr])
        if missing.any():
            idx = int(np.flatnonzero(missing)[0])
            raise TableError(f"{name} has a missing label ({arr[idx]!r}) at item {idx}")
    return arr


def _count_both(xa: NDArray[np.bool_], xb: NDArray[np.bool_]) -> Any:
    return np.count_nonzero(xa & xb, axis=-1)


def _count_matches(y: NDArray[Any], pa: NDArray[Any], pb: NDArray[Any]) -> tuple[int, int, int]:
    """Count items A got right, B got right and both got right, block by block.

    Working through the arrays in cache-sized blocks with preallocated boolean buffers keeps
    the cost close to one read of the three arrays (the memory-bandwidth floor).
    """
    n = y.shape[0]
    ca = np.empty(min(n, _BLOCK), dtype=bool)
    cb = np.empty_like(ca)
    n_a = n_b = both = 0
    for start in range(0, n, _BLOCK):
        stop = min(start + _BLOCK, n)
        m = stop - start
        xa, xb = ca[:m], cb[:m]
        np.equal(pa[start:stop], y[start:stop], out=xa)
        np.equal(pb[start:stop], y[start:stop], out=xb)
        n_a += int(np.count_nonzero(xa))
        n_b += int(np.count_nonzero(xb))
        np.logical_and(xa, xb, out=xa)
        both += int(np.count_nonzero(xa))
    return n_a, n_b, both
