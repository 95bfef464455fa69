"""A wide 0/1 outcome table: one column per model, one row per item (CSV, JSON Lines, Parquet).

The input of a many-model comparison when the outcomes are already lined up::

    item,large,medium,small
    q1,1,1,0
    q2,true,false,false

Every model cell is read by :func:`~mcnemar.io._run.score_to_float`, the same rule as the
run readers (booleans, numbers, and ``true``/``false``/``yes``/``no`` in any case), and must
be a pass (1) or a fail (0): a blank cell, another number or other text is refused, naming the
line (or row) and column. An optional column of item ids (``id_column``) is kept as the items'
keys and must not repeat an id.

Readers never compute statistics: :func:`read_matrix` returns names, ids and the K x N matrix
that :func:`mcnemar.multiple.pairwise` takes.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np

from mcnemar.errors import InputFileError, McNemarError, option
from mcnemar.io._budget import charge_csv
from mcnemar.io._run import (
    csv_delimiter,
    iter_json_records,
    object_array,
    read_parquet,
    score_to_float,
    short_repr,
)
from mcnemar.io._sniff import Probe

__all__ = ["MATRIX_FORMATS", "OutcomeMatrix", "read_matrix"]

#: The file formats :func:`read_matrix` reads.
MATRIX_FORMATS = ("csv", "jsonl", "parquet")

_RULE = "every model column must hold 0/1 (or true/false, yes/no) for every item"


@dataclass(frozen=True, slots=True, kw_only=True)
class OutcomeMatrix:
    """The outcomes of K models on N items, as read from a wide file.

    Attributes
    ----------
    names : tuple of str
        The model columns, in file order.
    items : numpy.ndarray
        One id per item (object array): the ``id_column`` values as text, or the item's
        1-based position in the file when there is no id column.
    correct : numpy.ndarray
        K x N int8, 1 where model k passed item n.
    path : str
        The file read.
    format : str
        ``"csv"``, ``"jsonl"`` or ``"parquet"``.
    id_column : str or None
        The column of item ids, if one was chosen.
    """

    names: tuple[str, ...]
    items: np.ndarray
    correct: np.ndarray
    path: str
    format: str
    id_column: str | None = None

    def __str__(self) -> str:
        k, n = self.correct.shape
        return (f"{self.path}: {self.format} matrix of {k} models x {n} items "
                f"({', '.join(self.names)})")


def read_matrix(path: str | Path, *, id_column: str | None = None,
                format: str = "auto") -> OutcomeMatrix:
    """Read a wide 0/1 table: a column per model, a row (record) per item.

    Parameters
    ----------
    path : str or Path
        A CSV (``.tsv``: tab-separated), JSON Lines or Parquet file.
    id_column : str, optional
        A column of item ids; it is not a model. Without it every column is a model.
    format : {"auto", "csv", "jsonl", "parquet"}
        ``"auto"`` tells them apart by content: Parquet's magic bytes, a JSON object on the
        first line, else CSV.

    Returns
    -------
    OutcomeMatrix
        ``names``, ``items`` and the K x N int8 ``correct`` matrix.

    Raises
    ------
    InputFileError
        The file cannot be read, has no items, a row of the wrong length, a repeated id, or a
        cell that is not a pass or a fail (naming the line or row and the column).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "m.csv"
    >>> _ = p.write_text("item,big,small\\nq1,1,0\\nq2,TRUE,yes\\nq3,0,false\\n")
    >>> m = read_matrix(p, id_column="item")
    >>> m.names, m.items.tolist(), m.correct.tolist()
    (('big', 'small'), ['q1', 'q2', 'q3'], [[1, 1, 0], [0, 1, 0]])
    """
    p = Path(path)
    if format not in ("auto", *MATRIX_FORMATS):
        raise McNemarError(f"{option('format', repr(format))} is not a matrix format; use "
                           f"'auto' or one of {', '.join(MATRIX_FORMATS)}")
    try:
        probe = Probe(p)
        if format == "auto" and not probe.is_dir:
            format = _detect(probe)
    except OSError as exc:
        raise InputFileError(f"cannot open the file: {exc.strerror or exc}", path=str(p)) \
            from None
    if probe.is_dir:
        raise InputFileError("a directory; a matrix is one file", path=str(p))
    if format == "parquet":
        header, rows = _parquet(p)
    elif format == "jsonl":
        header, rows = _jsonl(p)
    else:
        header, rows = _csv(p)
    return _build(p, format, header, rows, id_column)


def _detect(probe: Probe) -> str:
    if probe.head.startswith(b"PAR1"):
        return "parquet"
    if probe.text.startswith(b"{"):
        return "jsonl"
    return "csv"


# A row: (where, cells) with `where` the line (CSV/JSONL) or row (Parquet) number and the
# cells in header order.
_Row = tuple[int, Sequence[Any]]


def _csv(p: Path) -> tuple[list[str], Iterable[_Row]]:
    try:
        handle = p.open(newline="", encoding="utf-8-sig")
    except OSError as exc:
        raise InputFileError(f"cannot open the file: {exc.strerror or exc}", path=str(p)) \
            from None
    with handle:
        try:
            delimiter = csv_delimiter(p, handle.read(4096))
            handle.seek(0)
            charge_csv(str(p), delimiter=delimiter)  # what the rows will build
        except UnicodeDecodeError as exc:
            raise InputFileError(f"not a readable CSV file: {exc}", path=str(p), line=1) \
                from None
        reader = csv.reader(handle, delimiter=delimiter)
        try:
            header = next(reader)
        except StopIteration:
            raise InputFileError(
                "the file is empty; expected a header of model names, then one row of 0/1 "
                "per item",
                path=str(p),
            ) from None
        except (csv.Error, UnicodeDecodeError) as exc:
            raise InputFileError(f"not a readable CSV file: {exc}", path=str(p), line=1) \
                from None
        rows: list[_Row] = []
        line = 1
        try:
            for row in reader:
                line = reader.line_num
                if not row or all(not cell.strip() for cell in row):
                    continue
                if len(row) != len(header):
                    raise InputFileError(
                        f"expected {len(header)} values (one per column of the header), got "
                        f"{len(row)}",
                        path=str(p), line=line,
                    )
                rows.append((line, row))
        except (csv.Error, UnicodeDecodeError) as exc:
            raise InputFileError(f"not a readable CSV file: {exc}", path=str(p),
                                 line=line + 1) from None
    return [h.strip() for h in header], rows


def _jsonl(p: Path) -> tuple[list[str], Iterable[_Row]]:
    header: list[str] | None = None
    rows: list[_Row] = []
    for line, record in iter_json_records(p, what="one item per line, a key per model",
                                          progress=False):
        if header is None:
            header = list(record)
        elif len(record) != len(header) or any(k not in record for k in header):
            extra = [k for k in record if k not in header]
            lacking = [k for k in header if k not in record]
            what = "; ".join(part for part in (
                f"no {', '.join(map(repr, lacking))}" if lacking else "",
                f"also {', '.join(map(repr, extra))}" if extra else "") if part)
            raise InputFileError(f"record does not have the keys of the first record ({what});"
                                 " every item needs one value per model",
                                 path=str(p), line=line)
        rows.append((line, [record[k] for k in header]))
    if header is None:
        raise InputFileError("the file is empty; expected one JSON object per item, a key "
                             "per model", path=str(p))
    return header, rows


def _parquet(p: Path) -> tuple[list[str], Iterable[_Row]]:
    table = read_parquet(p)
    header = [str(c) for c in table.column_names]
    columns = [table.column(i).to_pylist() for i in range(table.num_columns)]
    return header, [(i + 1, [c[i] for c in columns]) for i in range(table.num_rows)]


def _build(p: Path, kind: str, header: list[str], rows: Iterable[_Row],
           id_column: str | None) -> OutcomeMatrix:
    where = "line" if kind != "parquet" else "row"
    repeated = sorted({h for h in header if header.count(h) > 1})
    if repeated:
        raise InputFileError(f"column name(s) {', '.join(map(repr, repeated))} appear more "
                             "than once; each model needs its own column",
                             path=str(p), line=1 if kind == "csv" else None)
    keep = list(range(len(header)))
    id_at = None
    if id_column is not None:
        if id_column not in header:
            raise InputFileError(f"{option('id_column')} {id_column!r} is not a column; the "
                                 f"columns are {header!r}", path=str(p),
                                 line=1 if kind == "csv" else None)
        id_at = header.index(id_column)
        keep.remove(id_at)
    names = tuple(header[i] for i in keep)
    rows = list(rows)
    if not rows:
        raise InputFileError("the file has a header but no items" if kind == "csv"
                             else "the file has no items", path=str(p))
    numbers = [number for number, _ in rows]
    columns = list(zip(*(cells for _, cells in rows), strict=True))
    correct = np.empty((len(keep), len(rows)), dtype=np.int8)
    first_bad: tuple[int, int] | None = None  # (row index, model position): file order
    for pos, i in enumerate(keep):
        column = columns[i]
        # Each distinct cell is converted once: a column holds few distinct spellings.
        try:
            table = {cell: _outcome(cell) for cell in set(column)}
        except TypeError:  # an unhashable JSON value (list, object) is never an outcome
            table = None
        if table is not None and None not in table.values():
            outcome = cast(dict[Any, int], table)
            correct[pos] = [outcome[cell] for cell in column]
            continue
        j = next(j for j, cell in enumerate(column) if _outcome(cell) is None)
        first_bad = min(first_bad or (j, pos), (j, pos))
    if first_bad is not None:
        j, pos = first_bad
        cell = columns[keep[pos]][j]
        shown = repr(cell) if kind == "csv" else short_repr(cell)
        raise _located(p, where, numbers[j],
                       f"column {header[keep[pos]]!r} has {shown}; {_RULE}")
    items: list[Any] = list(range(1, len(rows) + 1))
    if id_at is not None:
        first_at: dict[str, int] = {}
        for j, item in enumerate(columns[id_at]):
            text = item.strip() if isinstance(item, str) else (
                "" if item is None else json.dumps(item) if isinstance(item, list | dict)
                else str(item))
            if text == "":
                raise _located(p, where, numbers[j], f"column {id_column!r} has no item id")
            if text in first_at:
                raise _located(p, where, numbers[j],
                               f"item id {text!r} repeats (first at {where} "
                               f"{first_at[text]}); each item may appear once")
            first_at[text] = numbers[j]
            items[j] = text
    return OutcomeMatrix(names=names, items=object_array(items), correct=correct, path=str(p),
                         format=kind, id_column=id_column)


def _outcome(cell: Any) -> int | None:
    """1 or 0 for a pass or a fail as the run readers read it, else None."""
    try:
        value = score_to_float(cell)
    except ValueError:
        return None
    return 1 if value == 1.0 else 0 if value == 0.0 else None


def _located(p: Path, where: str, number: int, message: str) -> InputFileError:
    if where == "line":
        return InputFileError(message, path=str(p), line=number)
    return InputFileError(f"row {number}: {message}", path=str(p))
