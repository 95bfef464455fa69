"""Paired tables from data frames, counted inside the frame's own engine.

The join and the counting live in :mod:`mcnemar.io._frames`, which returns counts only; this
module wraps them into a :class:`~mcnemar.table.PairedTable` (or an
:class:`~mcnemar.io.align.Alignment`), so imports run one way: input -> counts -> table.

Accepts anything narwhals accepts (pandas, polars, pyarrow, DuckDB, Dask, PySpark); the rules
are those of :func:`mcnemar.io.align`. How the engine finds every problem in one pass over a
full outer join is described in :mod:`mcnemar.io._frames`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mcnemar.io._frames import count_frames, count_in_duckdb, count_long_frame
from mcnemar.io._run import RunResults
from mcnemar.io.align import Alignment

if TYPE_CHECKING:
    from mcnemar.io._summary import AlignmentSummary
    from mcnemar.table import PairedTable

__all__ = ["align_in_duckdb", "table_from_frames", "table_from_long_frame"]


def align_in_duckdb(run_a: RunResults, run_b: RunResults, *, on_missing: str = "error",
                    threshold: float | None = None, reduce: str | None = None) -> Alignment:
    """Align two deferred runs inside DuckDB (see :func:`mcnemar.io.align`)."""
    counts, summary = count_in_duckdb(run_a, run_b, on_missing=on_missing,
                                      threshold=threshold, reduce=reduce)
    return Alignment(counts=counts, summary=summary)


def table_from_frames(
    frame_a: Any,
    frame_b: Any,
    *,
    id: str | Sequence[str],
    score: str,
    threshold: float | None = None,
    on_missing: str = "error",
    sample: str | None = None,
    reduce: str | None = None,
    names: tuple[str, str] = ("A", "B"),
) -> tuple[PairedTable, AlignmentSummary]:
    """Pair two runs held in data frames by item id and count the table inside the engine.

    Parameters
    ----------
    frame_a, frame_b : DataFrame
        One row per item (or per item and sample) of run A (candidate) and run B (baseline);
        pandas, polars, pyarrow, DuckDB relation, Dask or PySpark, both of the same kind.
    id : str or list of str
        Item id column(s).
    score : str
        Score column (0/1, booleans, or numbers with ``threshold``).
    threshold, on_missing, sample, reduce
        As for :func:`mcnemar.io.align`; ``sample`` names a column numbering repeated samples.
    names : tuple of str
        Names of the two runs in the summary.

    Returns
    -------
    (PairedTable, AlignmentSummary)
        Only counts are brought back from the engine.

    Examples
    --------
    >>> import pandas as pd
    >>> a = pd.DataFrame({"id": ["q1", "q2", "q3"], "ok": [1, 1, 0]})
    >>> b = pd.DataFrame({"id": ["q3", "q2", "q1"], "ok": [0, 0, 1]})
    >>> table, summary = table_from_frames(a, b, id="id", score="ok")
    >>> summary.matched, (table.a, table.b, table.c, table.d)
    (3, (1, 1, 0, 1))
    """
    from mcnemar.table import PairedTable

    (a, b, c, d), summary = count_frames(
        frame_a, frame_b, id=id, score=score, threshold=threshold, on_missing=on_missing,
        sample=sample, reduce=reduce, names=names,
    )
    return PairedTable(a=a, b=b, c=c, d=d), summary


def table_from_long_frame(
    frame: Any,
    *,
    id: str | Sequence[str],
    run: str,
    score: str,
    runs: Sequence[Any] | None = None,
    threshold: float | None = None,
    on_missing: str = "error",
    sample: str | None = None,
    reduce: str | None = None,
) -> tuple[PairedTable, AlignmentSummary]:
    """Like :func:`table_from_frames` for one long frame with a run column.

    Parameters
    ----------
    run : str
        Column telling the runs apart.
    runs : pair of values, optional
        ``(A, B)``: the run values to compare, A first. Default: the two values present,
        sorted (an error if there are not exactly two).

    Examples
    --------
    >>> import polars as pl
    >>> long = pl.DataFrame({"model": ["x", "x", "y", "y"], "id": [1, 2, 1, 2],
    ...                      "ok": [True, False, False, False]})
    >>> table, summary = table_from_long_frame(long, id="id", run="model", score="ok")
    >>> (table.a, table.b, table.c, table.d), summary.run_a.name
    ((0, 1, 0, 1), 'x')
    """
    from mcnemar.table import PairedTable

    (a, b, c, d), summary = count_long_frame(
        frame, id=id, run=run, score=score, runs=runs, threshold=threshold,
        on_missing=on_missing, sample=sample, reduce=reduce,
    )
    return PairedTable(a=a, b=b, c=c, d=d), summary
