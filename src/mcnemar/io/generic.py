"""Generic per-item result files: CSV (or TSV), JSON Lines and Parquet; and data frames.

One record per item (or per item and sample), with an id column and a score column; either
one file per run, or one *long* file holding several runs told apart by a run column
(``--run-column model``). Small CSV/JSONL files are parsed here, line by line, so that a
problem is reported with its line number; Parquet files, directories of Parquet files and
CSV/JSONL files of more than about 200,000 lines are handed to DuckDB as a deferred query
(:class:`~mcnemar.io._run.DeferredSource`) and counted inside the engine.

Ids are compared as text (``12`` in a JSONL file equals ``"12"`` in a CSV file). Scores may be
numbers, booleans or the words true/false, yes/no, pass/fail (any case); an empty cell is a
missing score.

A pandas, polars or pyarrow data frame held in memory (:func:`read_frame`) is read as the file
it would be written to: its rows go through the same column choice and the same per-record
code as a CSV or JSONL file's (a struct column is a nested object).

Fields inside nested JSON objects and Parquet struct columns are named by dotted paths
(``id="doc.id"``, ``score="metric.acc"``) for the id, score, run, task, sample and cluster, on
every path (Python, pyarrow and DuckDB); a column whose own name holds the dots wins, and CSV
columns are always flat names. A CSV header that repeats a column name is refused: which of the
columns was meant cannot be known.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mcnemar.errors import InputFileError, McNemarError, option
from mcnemar.io._run import (
    CLUSTER_COL,
    FALSE_WORDS,
    KEY_PREFIX,
    MISSING,
    SAMPLE_COL,
    SCORE_COL,
    TRUE_WORDS,
    DeferredSource,
    RunResults,
    csv_delimiter,
    field_at,
    has_field,
    iter_json_records,
    name_list,
    read_parquet,
    require_known,
    score_to_float,
    short_repr,
)

__all__ = ["ID_COLUMNS", "SCORE_COLUMNS", "read_frame", "read_generic", "read_long",
           "shared_keys"]

#: Column names tried, in order, when ``id`` is not given.
ID_COLUMNS = ("id", "item_id", "item", "question_id", "sample_id", "doc_id", "example_id",
              "instance_id", "uid", "key")
#: Predicted-label column names tried in a predictions file (:mod:`mcnemar.io.predictions`);
#: here so that a score column that is missing can be told from predicted labels.
PREDICTION_COLUMNS = ("prediction", "pred", "y_pred", "predicted", "output", "label")
#: Column names tried, in order, when ``score`` is not given.
SCORE_COLUMNS = ("score", "correct", "is_correct", "pass", "passed", "acc", "accuracy", "match",
                 "result")

#: Above this many (estimated) lines a CSV/JSONL file is counted by DuckDB.
LARGE_LINES = 200_000


def _columns_list(value: str | Sequence[str] | None) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    return list(value)


def _pick(
    columns: Sequence[str], wanted: list[str] | None, candidates: Sequence[str], what: str,
    argument: str, path: str | Path, nested: bool = True,
) -> list[str]:
    if wanted is not None:
        found = set(columns) | {w for w in wanted if nested and has_field(columns, w)}
        hint = ("" if nested else "; CSV columns are flat, so a dotted name must be a "
                "column's whole name")
        require_known(wanted, found, path=path, message=lambda unknown, known:
                      f"{what} column {unknown} not found; the columns are "
                      f"{name_list(columns)}{hint}")
        return wanted
    lower = {c.lower(): c for c in columns}
    for name in candidates:
        if name in lower:
            return [lower[name]]
    hint = ""
    if argument == "score":
        predicted = [c for c in columns if c.lower() in PREDICTION_COLUMNS and c.lower() != "label"]
        if predicted:
            hint = (f"; column {predicted[0]!r} looks like predicted labels: to score "
                    f"predictions against the true labels, give the labels file with "
                    f"{option('truth', 'LABELS')}")
    raise InputFileError(
        f"no {what} column found (looked for {', '.join(candidates[:6])}, ...); choose one with "
        f"{option(argument, 'COLUMN')}; the columns are {name_list(columns)}{hint}",
        path=str(path),
    )


def _choose_columns(
    columns: Sequence[str], path: str | Path, ids: list[str] | None, score: str | None,
    run_column: str | None, sample: str | None, cluster: str | None,
    task_column: str | None = None, nested: bool = True,
) -> tuple[list[str], str]:
    """The id column(s) and the score column (chosen or detected), after checking the others.

    The run, sample, cluster and task columns named must be there too: the same check
    whichever of the Python, DuckDB or pyarrow paths reads the file. A task column leads the
    item key (unless the ids chosen already hold it).
    """
    id_cols = _pick(columns, ids, ID_COLUMNS, "id", "id", path, nested)
    if task_column is not None and task_column not in id_cols:
        if not (has_field(columns, task_column) if nested else task_column in columns):
            raise InputFileError(f"{option('task_column', repr(task_column))}: no such column; "
                                 f"the columns are {name_list(columns)}", path=str(path))
        id_cols = [task_column, *id_cols]
    score_col = _pick(columns, [score] if score else None, SCORE_COLUMNS, "score", "score",
                      path, nested)[0]
    for extra, what in ((run_column, "run"), (sample, "sample"), (cluster, "cluster")):
        if extra is not None:
            _pick(columns, [extra], (), what, what, path, nested)
    return id_cols, score_col


def _kind(path: Path, format: str) -> str:
    if format in ("csv", "jsonl", "parquet"):
        return format
    raise McNemarError(f"format={format!r} is not a generic format; use csv, jsonl or parquet")


def _estimated_lines(path: Path) -> int:
    size = path.stat().st_size
    with path.open("rb") as handle:
        head = handle.read(1 << 16)
    lines = head.count(b"\n")
    if lines == 0:
        return 1
    return int(size / (len(head) / lines))


def _duckdb_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("duckdb") is not None


def read_generic(
    path: str | Path,
    *,
    format: str,
    id: str | Sequence[str] | None = None,
    score: str | None = None,
    run_column: str | None = None,
    run: str | None = None,
    sample: str | None = None,
    cluster: str | None = None,
    task_column: str | None = None,
    name: str | None = None,
    engine: str = "auto",
    progress: bool | None = None,
) -> RunResults:
    """Read one run from a CSV, JSONL or Parquet file of per-item results.

    Parameters
    ----------
    path : str or Path
        The file; for Parquet also a directory of ``*.parquet`` files (one dataset).
    format : {"csv", "jsonl", "parquet"}
    id : str or list of str, optional
        Item id column(s). Default: the first of :data:`ID_COLUMNS` present.
    score : str, optional
        Score column: 0/1, booleans, or numbers to binarise at alignment with a threshold.
        Default: the first of :data:`SCORE_COLUMNS` present.
    run_column, run : str, optional
        For a long file holding several runs: keep the records whose ``run_column`` equals
        ``run`` (compared as text).
    sample : str, optional
        Column numbering repeated samples (epochs) of the same item; alignment then refuses
        to count them as separate items unless a ``reduce`` policy is chosen.
    cluster : str, optional
        Column holding a cluster label per item (for clustered analyses).
    task_column : str, optional
        Column naming each item's task, for a file of several tasks: it leads the item key
        (``(task, id)``, so an id may repeat across tasks), and a per-task comparison
        (:func:`mcnemar.tasks.compare_tasks` with ``task_column``) splits the run by it.
    name : str, optional
        Display name (default: the run value or the file name).
    engine : {"auto", "python", "duckdb"}
        ``"auto"`` parses small CSV/JSONL files in Python and defers Parquet and large files
        to DuckDB.

    Returns
    -------
    RunResults

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "run.csv"
    >>> _ = p.write_text("id,score\\nq1,1\\nq2,0\\n")
    >>> run = read_generic(p, format="csv")
    >>> run.keys.tolist(), run.scores.tolist()
    (['q1', 'q2'], [1.0, 0.0])
    """
    p = Path(path)
    kind = _kind(p, format)
    if engine not in ("auto", "python", "duckdb"):
        raise McNemarError(f"engine={engine!r} is not valid; use 'auto', 'python' or 'duckdb'")
    if (run_column is None) != (run is None):
        raise McNemarError(
            "run_column and run go together: run_column names the column, run the value to keep "
            f"(got run_column={run_column!r}, run={run!r})"
        )
    ids = _columns_list(id)
    display = name or (str(run) if run is not None else p.name)
    from mcnemar.io._budget import counted

    # Under a budget that must see every read (the web server's), the file is parsed where
    # it is counted: pyarrow by row group, or Python; DuckDB's own work it cannot see.
    use_engine = engine == "duckdb" or (
        engine == "auto" and not counted()
        and (kind == "parquet" or (p.is_file() and _estimated_lines(p) > LARGE_LINES))
        and _duckdb_available()
    )
    if kind == "parquet" and not use_engine:
        return _read_parquet_arrow(p, ids, score, run_column, run, sample, cluster, display,
                                   task_column)
    if use_engine:
        if not _duckdb_available():
            raise McNemarError("engine='duckdb' needs DuckDB: pip install 'mcnemar[frames]'")
        return _deferred(p, kind, ids, score, run_column, run, sample, cluster, display,
                         task_column)
    if kind == "csv":
        columns, rows = _csv_rows(p, progress)
    else:
        columns, rows = _jsonl_rows(p, progress)
    return _from_rows(p, kind, columns, rows, ids, score, run_column, run, sample, cluster,
                      display, task_column)


def read_long(
    path: str | Path,
    *,
    format: str,
    run_column: str,
    runs: Sequence[str] | None = None,
    **options: Any,
) -> list[RunResults]:
    """Read several runs from one long file (a ``run_column`` tells the runs apart).

    Parameters
    ----------
    runs : list of str, optional
        Which runs to return, in this order. Default: every run value, sorted as text.
    **options
        As for :func:`read_generic` (``id``, ``score``, ``sample``, ``cluster``, ``engine``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "long.csv"
    >>> _ = p.write_text("model,id,score\\nx,q1,1\\ny,q1,0\\n")
    >>> [r.name for r in read_long(p, format="csv", run_column="model")]
    ['x', 'y']

    A data frame in memory (:func:`read_frame`) is a long file too.
    """
    from mcnemar.io._objects import is_path

    if not is_path(path):
        return _read_long_frame(path, run_column, runs, options)
    p = Path(path)
    values = _run_values(p, _kind(p, format), run_column, options.get("engine", "auto"))
    if runs is None:
        runs = sorted(values)
    else:
        require_known(runs, sorted(values), path=p, message=lambda unknown, known:
                      f"run(s) {unknown} not found in column {run_column!r}; the runs are {known}")
    return [
        read_generic(p, format=format, run_column=run_column, run=r, **options) for r in runs
    ]


def read_frame(
    frame: Any,
    *,
    id: str | Sequence[str] | None = None,
    score: str | None = None,
    run_column: str | None = None,
    run: str | None = None,
    sample: str | None = None,
    cluster: str | None = None,
    task_column: str | None = None,
    name: str | None = None,
    engine: str = "auto",
    progress: bool | None = None,
) -> RunResults:
    """Read one run from a data frame held in memory, as the CSV file it would be written to.

    The columns are chosen as in a file (:func:`read_generic`: the ``id`` and ``score``
    columns, or the first of :data:`ID_COLUMNS` and :data:`SCORE_COLUMNS` present; a dotted
    path reaches into a struct column) and every row goes through the same per-record code,
    so a frame and the file written from it give the same run, the same checks and the same
    messages (a row is named by its number, from 1). Only the columns named are read. The
    run's ``format`` is ``"frame"`` and its ``path`` names the frame (``<pandas DataFrame>``).

    Parameters
    ----------
    frame : DataFrame
        pandas, polars (a ``LazyFrame`` is collected) or pyarrow: one row per item (or per
        item and sample). An id held in a pandas index is a column after ``reset_index()``.
    id, score, run_column, run, sample, cluster, task_column, name
        As for :func:`read_generic`.
    engine : {"auto", "python"}
        A frame is read where it is held; to count two frames inside their own engine
        instead, use :func:`mcnemar.io.frames.table_from_frames`.
    progress : bool, optional
        Ignored: nothing is parsed.

    Examples
    --------
    >>> import pandas as pd
    >>> run = read_frame(pd.DataFrame({"id": ["q1", "q2"], "correct": [True, False]}))
    >>> run.keys.tolist(), run.scores.tolist(), run.format, run.path
    (['q1', 'q2'], [1.0, 0.0], 'frame', '<pandas DataFrame>')
    """
    from mcnemar.io._frames import _as_narwhals, _collect
    from mcnemar.io._objects import describe

    label = describe(frame)
    if engine not in ("auto", "python"):
        raise McNemarError(f"engine={engine!r} does not apply to a frame in memory, which is read "
                           "where it is held (use 'auto' or 'python'); to count two frames "
                           "inside their engine, use mcnemar.io.frames.table_from_frames")
    if (run_column is None) != (run is None):
        raise McNemarError(
            "run_column and run go together: run_column names the column, run the value to keep "
            f"(got run_column={run_column!r}, run={run!r})"
        )
    native = _collect(_as_narwhals(frame, label))
    columns = [str(c) for c in native.columns]
    repeated = sorted({c for c in columns if columns.count(c) > 1})
    if repeated:
        raise InputFileError(f"the frame repeats the column name(s) "
                             f"{', '.join(map(repr, repeated))}; which one was meant cannot be "
                             "known", path=label)
    id_cols, score_col = _choose_columns(columns, label, _columns_list(id), score, run_column,
                                         sample, cluster, task_column)
    fields = [*id_cols, score_col] + [c for c in (run_column, sample, cluster) if c]
    wanted = list(dict.fromkeys(_split(f, columns)[0] for f in fields))
    rows = list(enumerate(native.select(wanted).iter_rows(named=True), start=1))
    display = name or (str(run) if run is not None else label)
    return _from_rows(label, "frame", columns, rows, id_cols, score_col, run_column, run,
                      sample, cluster, display)


def _read_long_frame(frame: Any, run_column: str, runs: Sequence[str] | None,
                     options: dict[str, Any]) -> list[RunResults]:
    """:func:`read_long` of a data frame: its run values as text, as a file's are."""
    from mcnemar.io._frames import _as_narwhals, _collect
    from mcnemar.io._objects import describe

    label = describe(frame)
    native = _collect(_as_narwhals(frame, label))
    _pick([str(c) for c in native.columns], [run_column], (), "run", "run", label)
    values = {_text(v) for v in native.get_column(run_column).to_list()
              if v is not None and v != ""}
    if runs is None:
        runs = sorted(values)
    else:
        require_known(runs, sorted(values), path=label, message=lambda unknown, known:
                      f"run(s) {unknown} not found in column {run_column!r}; the runs are {known}")
    return [read_frame(frame, run_column=run_column, run=r, **options) for r in runs]


def _run_values(p: Path, kind: str, run_column: str, engine: str) -> set[str]:
    if kind == "parquet" or (engine != "python" and p.is_file() and
                             _estimated_lines(p) > LARGE_LINES and _duckdb_available()):
        if not _duckdb_available():
            return {_text(v) for row in _read_parquet_arrow_columns(p, [run_column])
                    if (v := _get(row, run_column)) is not None}
        from mcnemar.io._engine import connect, engine_error

        con = connect()
        columns = _engine_columns(con, p, kind)
        _pick(columns, [run_column], (), "run", "run", p, kind != "csv")
        try:
            rows = con.sql(
                f"SELECT DISTINCT {_text_sql(run_column, columns, kind)} FROM "
                f"{_scan(p, kind, [run_column], columns)}"
            ).fetchall()
        except Exception as exc:  # duckdb.Error; duckdb is imported lazily
            raise engine_error(exc, p) from None
        return {r[0] for r in rows if r[0] is not None}
    columns, rows = _csv_rows(p, None) if kind == "csv" else _jsonl_rows(p, None)
    _pick(columns, [run_column], (), "run", "run", p, kind != "csv")
    values = set()
    for _, record in rows:
        value = _get(record, run_column)
        if value is not None and value != "":
            values.add(_text(value))
    return values


# --- Python parsing ----------------------------------------------------------------------


def _csv_rows(
    p: Path, progress: bool | None
) -> tuple[list[str], list[tuple[int, dict[str, Any]]]]:
    from mcnemar.io._progress import progress_bar

    try:
        text = p.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise InputFileError("not UTF-8 text", path=str(p)) from None
    except OSError as exc:
        raise InputFileError(f"cannot read the file ({exc.strerror or exc})",
                             path=str(p)) from None
    reader = csv.reader(io.StringIO(text), delimiter=csv_delimiter(p, text[:4096]))
    try:
        header = next(reader)
    except StopIteration:
        raise InputFileError("empty file: expected a header line with column names",
                             path=str(p)) from None
    header = [h.strip() for h in header]
    check_header(header, p)
    from mcnemar.io._budget import PER_VALUE, charge

    # Every cell becomes a string in a row's dict (the text is in memory already): charged
    # before the rows are built.
    charge(len(text) + PER_VALUE * (text.count("\n") + 1) * len(header), what=p.name,
           path=str(p))
    rows: list[tuple[int, dict[str, Any]]] = []
    with progress_bar(p.name, len(text), enabled=progress) as bar:
        try:
            for cells in reader:
                if not cells or (len(cells) == 1 and not cells[0].strip()):
                    continue
                if len(cells) != len(header):
                    raise InputFileError(
                        f"{len(cells)} fields where the header has {len(header)}",
                        path=str(p), line=reader.line_num,
                    )
                rows.append((reader.line_num, dict(zip(header, cells, strict=True))))
                if len(rows) % 8192 == 0:
                    bar.update(8192 * len(text) / max(1, text.count("\n")))
        except csv.Error as exc:
            raise InputFileError(f"malformed CSV ({exc})", path=str(p),
                                 line=reader.line_num) from None
    return header, rows


def check_header(header: Sequence[str], p: Path) -> None:
    """Refuse a header that names a column twice (which one was meant cannot be known).

    Examples
    --------
    >>> try:
    ...     check_header(["id", "Status", "Score", "Status"], Path("r.csv"))
    ... except InputFileError as exc:
    ...     print(str(exc).split(";")[0])
    r.csv, line 1: the header repeats the column name 'Status' (columns 2 and 4)
    """
    seen: dict[str, list[int]] = {}
    for position, name in enumerate(header, start=1):
        seen.setdefault(name, []).append(position)
    repeated = {name: where for name, where in seen.items() if len(where) > 1}
    if not repeated:
        return
    parts = [f"{name!r} (columns {', '.join(map(str, where[:-1]))} and {where[-1]})"
             for name, where in list(repeated.items())[:3]]
    more = f" and {len(repeated) - 3} more" if len(repeated) > 3 else ""
    raise InputFileError(
        f"the header repeats the column name{'s' if len(repeated) > 1 else ''} "
        f"{', '.join(parts)}{more}; rename the columns so that each name is used once (or read "
        f"the file with its tool's reader, e.g. {option('format', repr('promptfoo'))})",
        path=str(p), line=1)


def _get(record: dict[str, Any], path: str) -> Any:
    """A record's field at ``path`` (a dotted path into nested objects); ``None`` if absent."""
    value = record.get(path, MISSING)
    if value is MISSING:
        value = field_at(record, path)
    return None if value is MISSING else value


def _no_field(record: dict[str, Any], path: str) -> str:
    """Why ``path`` is not in ``record``: the keys where the path stops."""
    here: Any = record
    walked: list[str] = []
    for part in path.split("."):
        if not isinstance(here, dict) or part not in here:
            break
        walked.append(part)
        here = here[part]
    where = ".".join(walked)
    if isinstance(here, dict):
        return (f"field {path!r} not found: {where or 'the record'} holds "
                f"{name_list(here) or 'nothing'}")
    return f"field {path!r} not found: {where!r} is {short_repr(here)}, not an object"


def _or_empty(value: Any) -> Any:
    return "" if value is None else value


def _jsonl_rows(
    p: Path, progress: bool | None
) -> tuple[list[str], list[tuple[int, dict[str, Any]]]]:
    rows: list[tuple[int, dict[str, Any]]] = []
    columns: dict[str, None] = {}
    for number, record in iter_json_records(p, what="one record per line", progress=progress):
        if not columns:
            columns = dict.fromkeys(record)
        rows.append((number, record))
    return list(columns), rows


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value) if isinstance(value, list | dict) else str(value)


def _from_rows(
    p: str | Path, kind: str, columns: list[str], rows: list[tuple[int, dict[str, Any]]],
    ids: list[str] | None, score: str | None, run_column: str | None, run: str | None,
    sample: str | None, cluster: str | None, display: str, task_column: str | None = None,
) -> RunResults:
    # JSONL records may differ in their keys; the first record's keys name the columns.
    id_cols, score_col = _choose_columns(columns, p, ids, score, run_column, sample, cluster,
                                         task_column, kind != "csv")
    if rows:
        # A dotted path that the first record does not hold is a wrong name, not a gap.
        number, first = rows[0]
        for field in (*id_cols, score_col, run_column, sample, cluster):
            if field is not None and field not in first and field_at(first, field) is MISSING:
                raise InputFileError(_no_field(first, field), path=str(p), line=number)
    keys: list[Any] = []
    scores: list[float] = []
    epochs: list[Any] = []
    clusters: list[Any] = []
    for number, record in rows:
        if run_column is not None and _text(_or_empty(_get(record, run_column))) != run:
            continue
        parts = []
        for col in id_cols:
            value = _get(record, col)
            if value is None or value == "" or isinstance(value, list | dict):
                raise InputFileError(
                    f"record has no usable id in column {col!r} (found {short_repr(value)}); "
                    "every record needs a text or number id",
                    path=str(p), line=number,
                )
            parts.append(_text(value))
        keys.append(parts[0] if len(parts) == 1 else tuple(parts))
        try:
            value = score_to_float(_get(record, score_col))
        except ValueError as exc:
            raise InputFileError(f"column {score_col!r}: {exc}", path=str(p),
                                 line=number) from None
        scores.append(np.nan if value is None else value)
        if sample is not None:
            epochs.append(_sample_value(_get(record, sample), p, number, sample))
        if cluster is not None:
            clusters.append(_text(_or_empty(_get(record, cluster))))
    if run_column is not None and not keys:
        raise InputFileError(f"no record has {run_column} = {run!r}", path=str(p))
    return RunResults.from_scores(
        keys, scores, epochs=epochs if sample is not None else None,
        clusters=clusters if cluster is not None else None, name=display, path=str(p),
        format=kind, key_names=tuple(id_cols), score_name=score_col, sample_name=sample,
        cluster_name=cluster, metadata={"run": run} if run is not None else {},
    )


def _sample_value(value: Any, p: str | Path, line: int, column: str) -> int:
    try:
        if isinstance(value, bool):
            raise ValueError
        out = int(value)
        if isinstance(value, float) and out != value:
            raise ValueError
        return out
    except (TypeError, ValueError):
        raise InputFileError(
            f"sample column {column!r} must hold whole numbers, found {short_repr(value)}",
            path=str(p), line=line,
        ) from None


# --- when nothing pairs --------------------------------------------------------------------

#: Files up to this size are read again for :func:`shared_keys` (only when nothing paired).
HINT_BYTES = 64 << 20


def shared_keys(run_a: RunResults, run_b: RunResults) -> list[str]:
    """The fields, other than the id read, that hold the same distinct values in both files.

    Asked only when two runs share no item: each CSV/JSONL file (of one run, up to
    :data:`HINT_BYTES`) is read again, and a field (a column, or one level inside a nested
    object: ``vars.id``; not the score) qualifies when its values are all different and the
    two files hold the same set of them: it is likely the item key the id should have been
    (promptfoo's ``testIdx`` where each result's ``id`` is new).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> for name, ids in (("a", "xy"), ("b", "zw")):
    ...     _ = (d / f"{name}.csv").write_text("id,testIdx,pass\\n" + "".join(
    ...         f"{u},{i},1\\n" for i, u in enumerate(ids)))
    >>> shared_keys(read_generic(d / "a.csv", format="csv"),
    ...             read_generic(d / "b.csv", format="csv"))
    ['testIdx']
    """
    found = [_distinct_fields(run) for run in (run_a, run_b)]
    first, second = found
    if first is None or second is None:
        return []
    return [name for name, values in first.items() if second.get(name) == values]


def _distinct_fields(run: RunResults) -> dict[str, frozenset[str]] | None:
    p = Path(run.path)
    if run.format not in ("csv", "jsonl") or run.metadata.get("run") is not None:
        return None
    try:
        if not p.is_file() or p.stat().st_size > HINT_BYTES:
            return None
        _, rows = _csv_rows(p, None) if run.format == "csv" else _jsonl_rows(p, None)
    except (OSError, McNemarError):
        return None
    values: dict[str, list[str]] = {}
    for _, record in rows:
        for name, value in record.items():
            inner = value.items() if isinstance(value, dict) else ()
            for field, item in ((name, value), *((f"{name}.{k}", v) for k, v in inner)):
                if item is not None and item != "" and not isinstance(item, list | dict):
                    values.setdefault(field, []).append(_text(item))
    n = len(rows)
    return {name: frozenset(texts) for name, texts in values.items()
            if n > 1 and name not in (*run.key_names, run.score_name) and len(texts) == n
            and len(set(texts)) == n}


# --- engine (DuckDB) ---------------------------------------------------------------------


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _parquet_files(p: Path) -> list[str]:
    if p.is_dir():
        files = sorted(str(f) for f in p.rglob("*.parquet"))
        if not files:
            raise InputFileError("directory holds no *.parquet files", path=str(p))
        return files
    return [str(p)]


def _split(path: str, columns: Sequence[str]) -> tuple[str, list[str]]:
    """A field's column and the path inside it: ``"doc.id"`` -> ``("doc", ["id"])``; a column
    whose own name is the whole path wins, then the longest column name that starts it."""
    if path in columns:
        return path, []
    parts = path.split(".")
    for i in range(len(parts) - 1, 0, -1):
        head = ".".join(parts[:i])
        if head in columns:
            return head, parts[i:]
    return path, []


def _expr(path: str, columns: Sequence[str], kind: str) -> str:
    """The SQL of a field: its column, a struct's field (Parquet) or a JSON member (JSONL,
    whose nested columns are scanned as JSON)."""
    column, inner = _split(path, columns)
    if not inner:
        return _q(column)
    if kind == "jsonl":
        member = "$" + "".join('."' + part.replace('"', '\\"') + '"' for part in inner)
        return f"json_extract_string({_q(column)}, {_lit(member)})"
    expr = _q(column)
    for part in inner:
        expr = f"struct_extract({expr}, {_lit(part)})"
    return expr


def _text_sql(path: str, columns: Sequence[str], kind: str) -> str:
    return f"CAST({_expr(path, columns, kind)} AS VARCHAR)"


def _scan(p: Path, kind: str, fields: list[str] | None = None,
          columns: Sequence[str] = ()) -> str:
    """The engine's scan of the file; for JSONL only the columns of ``fields`` are read, as
    text, or as JSON where a field lies inside them."""
    if kind == "parquet":
        files = ", ".join(_lit(f) for f in _parquet_files(p))
        return f"read_parquet([{files}], union_by_name = true)"
    if kind == "csv":
        return f"read_csv({_lit(str(p))}, all_varchar = true, header = true)"
    types: dict[str, str] = {}
    for field in fields or []:
        column, inner = _split(field, columns)
        if inner or types.get(column) != "JSON":
            types[column] = "JSON" if inner else types.get(column, "VARCHAR")
    spec = ", ".join(f"{_lit(c)}: '{t}'" for c, t in types.items())
    return f"read_json({_lit(str(p))}, format = 'newline_delimited', columns = {{{spec}}})"


def _engine_columns(con: Any, p: Path, kind: str) -> list[str]:
    from mcnemar.io._engine import engine_error

    if kind == "jsonl":
        # The first record's keys name the columns; only its line is read.
        for _, first in iter_json_records(p, what="one record per line"):
            return list(first)
        raise InputFileError("empty file: no records", path=str(p))
    if kind == "csv":
        # The engine renames a repeated column ("Status_1"); the header itself is checked.
        with p.open("r", encoding="utf-8-sig", errors="replace", newline="") as handle:
            head = handle.read(1 << 16)
        header: list[str] = next(csv.reader(io.StringIO(head),
                                             delimiter=csv_delimiter(p, head)), [])
        check_header([h.strip() for h in header], p)
    try:
        return [row[0] for row in con.sql(f"DESCRIBE SELECT * FROM {_scan(p, kind)}").fetchall()]
    except Exception as exc:  # duckdb.Error
        raise engine_error(exc, p) from None


def _engine_types(con: Any, p: Path, kind: str) -> dict[str, str]:
    if kind != "parquet":
        return {}
    from mcnemar.io._engine import engine_error

    try:
        rows = con.sql(f"DESCRIBE SELECT * FROM {_scan(p, kind)}").fetchall()
    except Exception as exc:  # duckdb.Error
        raise engine_error(exc, p, kind) from None
    return {row[0]: str(row[1]) for row in rows}


def _words(words: Sequence[str]) -> str:
    return ", ".join(_lit(w) for w in words)


def _score_sql(col: str, dtype: str | None) -> str:
    if dtype is not None and (dtype == "BOOLEAN" or dtype.split("(")[0] in _NUMERIC):
        # NaN stays NaN: it is reported as "not a number", never silently dropped.
        return f"CAST({col} AS DOUBLE)"
    text = f"trim(CAST({col} AS VARCHAR))"
    return (
        f"CASE WHEN {col} IS NULL OR {text} = '' THEN NULL "
        f"WHEN lower({text}) IN ({_words(TRUE_WORDS)}) THEN 1.0 "
        f"WHEN lower({text}) IN ({_words(FALSE_WORDS)}) THEN 0.0 "
        f"ELSE coalesce(TRY_CAST({text} AS DOUBLE), 'NaN'::DOUBLE) END"
    )


INTEGER_TYPES = {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER",
                 "UBIGINT"}
_NUMERIC = {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
            "UINTEGER", "UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE", "DECIMAL"}


def _deferred(
    p: Path, kind: str, ids: list[str] | None, score: str | None, run_column: str | None,
    run: str | None, sample: str | None, cluster: str | None, display: str,
    task_column: str | None = None,
) -> RunResults:
    from mcnemar.io._engine import connect, engine_error

    con = connect()
    columns = _engine_columns(con, p, kind)
    id_cols, score_col = _choose_columns(columns, p, ids, score, run_column, sample, cluster,
                                         task_column, kind != "csv")
    types = _engine_types(con, p, kind)
    needed = [*id_cols, score_col] + [c for c in (run_column, sample, cluster) if c]
    key_types = tuple(types.get(c, "VARCHAR") for c in id_cols)

    def expr(field: str) -> str:
        return _expr(field, columns, kind)

    rest = [f"{_score_sql(expr(score_col), types.get(score_col))} AS {SCORE_COL}"]
    if sample is not None:
        rest.append(f"CAST({expr(sample)} AS BIGINT) AS {SAMPLE_COL}")
    if cluster is not None:
        rest.append(f"CAST({expr(cluster)} AS VARCHAR) AS {CLUSTER_COL}")
    where = ""
    if run_column is not None and run is not None:
        where = f" WHERE CAST({expr(run_column)} AS VARCHAR) = {_lit(run)}"

    def query(text_ids: bool) -> str:
        keys = [
            f"CAST({expr(c)} AS VARCHAR) AS {KEY_PREFIX}{i}" if text_ids
            else f"{expr(c)} AS {KEY_PREFIX}{i}"
            for i, c in enumerate(id_cols)
        ]
        return (f"SELECT {', '.join(keys + rest)} FROM {_scan(p, kind, needed, columns)}"
                f"{where}")

    sql = query(text_ids=True)
    native_sql = query(text_ids=False) if all(t in INTEGER_TYPES for t in key_types) else None
    records = None
    if kind == "parquet" and run_column is None:
        # Parquet keeps row counts in its footer: this does not scan the data.
        try:
            records = int(con.sql(f"SELECT count(*) FROM {_scan(p, kind)}").fetchall()[0][0])
        except Exception as exc:  # duckdb.Error
            raise engine_error(exc, p, kind) from None
    files = tuple(_parquet_files(p)) if kind == "parquet" else (str(p),)
    return RunResults(
        name=display,
        path=str(p),
        format=kind,
        keys=None,
        scores=None,
        records=records,
        key_names=tuple(id_cols),
        score_name=score_col,
        sample_name=sample,
        cluster_name=cluster,
        metadata={"run": run} if run is not None else {},
        source=DeferredSource(sql=sql, key_count=len(id_cols), files=files, kind=kind,
                              has_sample=sample is not None, has_cluster=cluster is not None,
                              native_sql=native_sql, key_types=key_types),
    )


# --- Parquet without DuckDB --------------------------------------------------------------


#: What a Parquet file needs when DuckDB does not read it.
_PARQUET_NEEDS = "reading Parquet needs DuckDB or pyarrow"


def _read_parquet_arrow_columns(p: Path, fields: list[str]) -> list[dict[str, Any]]:
    """The rows of the columns that hold ``fields`` (struct columns whole, as dicts)."""
    files = _parquet_files(p)
    names = read_parquet(p, files=files, names_only=True, needs=_PARQUET_NEEDS)
    columns = list(dict.fromkeys(_split(f, names)[0] for f in fields))
    table = read_parquet(p, files=files, columns=columns, needs=_PARQUET_NEEDS)
    rows: list[dict[str, Any]] = table.select(columns).to_pylist()
    return rows


def _read_parquet_arrow(
    p: Path, ids: list[str] | None, score: str | None, run_column: str | None, run: str | None,
    sample: str | None, cluster: str | None, display: str, task_column: str | None = None,
) -> RunResults:
    columns = read_parquet(p, files=_parquet_files(p), names_only=True, needs=_PARQUET_NEEDS)
    id_cols, score_col = _choose_columns(columns, p, ids, score, run_column, sample, cluster,
                                         task_column)
    wanted = [*id_cols, score_col] + [c for c in (run_column, sample, cluster) if c]
    rows = list(enumerate(_read_parquet_arrow_columns(p, wanted), start=1))
    return _from_rows(p, "parquet", columns, rows, id_cols, score_col, run_column, run, sample,
                      cluster, display)
