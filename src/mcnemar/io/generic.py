"""Generic per-item result files: CSV (or TSV), JSON Lines and Parquet.

One record per item (or per item and sample), with an id column and a score column; either
one file per run, or one *long* file holding several runs told apart by a run column
(``--run-column model``). Small CSV/JSONL files are parsed here, line by line, so that a
problem is reported with its line number; Parquet files, directories of Parquet files and
CSV/JSONL files of more than about 200,000 lines are handed to DuckDB as a deferred query
(:class:`~mcnemar.io._run.DeferredSource`) and counted inside the engine.

Ids are compared as text (``12`` in a JSONL file equals ``"12"`` in a CSV file). Scores may be
numbers, booleans or the words true/false/yes/no; an empty cell is a missing score.
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
    KEY_PREFIX,
    SAMPLE_COL,
    SCORE_COL,
    DeferredSource,
    RunResults,
    csv_delimiter,
    iter_json_records,
    name_list,
    read_parquet,
    require_known,
    score_to_float,
    short_repr,
)

__all__ = ["ID_COLUMNS", "SCORE_COLUMNS", "read_generic", "read_long"]

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
    argument: str, path: Path,
) -> list[str]:
    if wanted is not None:
        require_known(wanted, columns, path=path, message=lambda unknown, known:
                      f"{what} column {unknown} not found; the columns are {known}")
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
    columns: Sequence[str], path: Path, ids: list[str] | None, score: str | None,
    run_column: str | None, sample: str | None, cluster: str | None,
    task_column: str | None = None,
) -> tuple[list[str], str]:
    """The id column(s) and the score column (chosen or detected), after checking the others.

    The run, sample, cluster and task columns named must be there too: the same check
    whichever of the Python, DuckDB or pyarrow paths reads the file. A task column leads the
    item key (unless the ids chosen already hold it).
    """
    id_cols = _pick(columns, ids, ID_COLUMNS, "id", "id", path)
    if task_column is not None and task_column not in id_cols:
        if task_column not in columns:
            raise InputFileError(f"{option('task_column', repr(task_column))}: no such column; "
                                 f"the columns are {name_list(columns)}", path=str(path))
        id_cols = [task_column, *id_cols]
    score_col = _pick(columns, [score] if score else None, SCORE_COLUMNS, "score", "score",
                      path)[0]
    for extra, what in ((run_column, "run"), (sample, "sample"), (cluster, "cluster")):
        if extra is not None:
            _pick(columns, [extra], (), what, what, path)
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
    use_engine = engine == "duckdb" or (
        engine == "auto"
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
    """
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


def _run_values(p: Path, kind: str, run_column: str, engine: str) -> set[str]:
    if kind == "parquet" or (engine != "python" and p.is_file() and
                             _estimated_lines(p) > LARGE_LINES and _duckdb_available()):
        if not _duckdb_available():
            return set(_read_parquet_arrow_columns(p, [run_column])[run_column])
        from mcnemar.io._engine import connect, engine_error

        con = connect()
        _pick(_engine_columns(con, p, kind), [run_column], (), "run", "run", p)
        try:
            rows = con.sql(
                f"SELECT DISTINCT CAST({_q(run_column)} AS VARCHAR) FROM "
                f"{_scan(p, kind, [run_column])}"
            ).fetchall()
        except Exception as exc:  # duckdb.Error; duckdb is imported lazily
            raise engine_error(exc, p) from None
        return {r[0] for r in rows if r[0] is not None}
    columns, rows = _csv_rows(p, None) if kind == "csv" else _jsonl_rows(p, None)
    _pick(columns, [run_column], (), "run", "run", p)
    values = set()
    for _, record in rows:
        value = record.get(run_column)
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
    p: Path, kind: str, columns: list[str], rows: list[tuple[int, dict[str, Any]]],
    ids: list[str] | None, score: str | None, run_column: str | None, run: str | None,
    sample: str | None, cluster: str | None, display: str, task_column: str | None = None,
) -> RunResults:
    # JSONL records may differ in their keys; the first record's keys name the columns.
    id_cols, score_col = _choose_columns(columns, p, ids, score, run_column, sample, cluster,
                                         task_column)
    keys: list[Any] = []
    scores: list[float] = []
    epochs: list[Any] = []
    clusters: list[Any] = []
    for number, record in rows:
        if run_column is not None and _text(record.get(run_column, "")) != run:
            continue
        parts = []
        for col in id_cols:
            value = record.get(col)
            if value is None or value == "" or isinstance(value, list | dict):
                raise InputFileError(
                    f"record has no usable id in column {col!r} (found {short_repr(value)}); "
                    "every record needs a text or number id",
                    path=str(p), line=number,
                )
            parts.append(_text(value))
        keys.append(parts[0] if len(parts) == 1 else tuple(parts))
        try:
            value = score_to_float(record.get(score_col))
        except ValueError as exc:
            raise InputFileError(f"column {score_col!r}: {exc}", path=str(p),
                                 line=number) from None
        scores.append(np.nan if value is None else value)
        if sample is not None:
            epochs.append(_sample_value(record.get(sample), p, number, sample))
        if cluster is not None:
            clusters.append(_text(record.get(cluster, "")))
    if run_column is not None and not keys:
        raise InputFileError(f"no record has {run_column} = {run!r}", path=str(p))
    return RunResults.from_scores(
        keys, scores, epochs=epochs if sample is not None else None,
        clusters=clusters if cluster is not None else None, name=display, path=str(p),
        format=kind, key_names=tuple(id_cols), score_name=score_col, sample_name=sample,
        cluster_name=cluster, metadata={"run": run} if run is not None else {},
    )


def _sample_value(value: Any, p: Path, line: int, column: str) -> int:
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


def _scan(p: Path, kind: str, columns: list[str] | None = None) -> str:
    if kind == "parquet":
        files = ", ".join(_lit(f) for f in _parquet_files(p))
        return f"read_parquet([{files}], union_by_name = true)"
    if kind == "csv":
        return f"read_csv({_lit(str(p))}, all_varchar = true, header = true)"
    spec = ", ".join(f"{_lit(c)}: 'VARCHAR'" for c in (columns or []))
    return f"read_json({_lit(str(p))}, format = 'newline_delimited', columns = {{{spec}}})"


def _engine_columns(con: Any, p: Path, kind: str) -> list[str]:
    from mcnemar.io._engine import engine_error

    if kind == "jsonl":
        # The first record's keys name the columns; only its line is read.
        for _, first in iter_json_records(p, what="one record per line"):
            return list(first)
        raise InputFileError("empty file: no records", path=str(p))
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


def _score_sql(column: str, dtype: str | None) -> str:
    col = _q(column)
    if dtype is not None and (dtype == "BOOLEAN" or dtype.split("(")[0] in _NUMERIC):
        # NaN stays NaN: it is reported as "not a number", never silently dropped.
        return f"CAST({col} AS DOUBLE)"
    text = f"trim(CAST({col} AS VARCHAR))"
    return (
        f"CASE WHEN {col} IS NULL OR {text} = '' THEN NULL "
        f"WHEN lower({text}) IN ('true', 'yes') THEN 1.0 "
        f"WHEN lower({text}) IN ('false', 'no') THEN 0.0 "
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
                                         task_column)
    types = _engine_types(con, p, kind)
    needed = [*id_cols, score_col] + [c for c in (run_column, sample, cluster) if c]
    key_types = tuple(types.get(c, "VARCHAR") for c in id_cols)
    rest = [f"{_score_sql(score_col, types.get(score_col))} AS {SCORE_COL}"]
    if sample is not None:
        rest.append(f"CAST({_q(sample)} AS BIGINT) AS {SAMPLE_COL}")
    if cluster is not None:
        rest.append(f"CAST({_q(cluster)} AS VARCHAR) AS {CLUSTER_COL}")
    where = ""
    if run_column is not None and run is not None:
        where = f" WHERE CAST({_q(run_column)} AS VARCHAR) = {_lit(run)}"

    def query(text_ids: bool) -> str:
        keys = [
            f"CAST({_q(c)} AS VARCHAR) AS {KEY_PREFIX}{i}" if text_ids
            else f"{_q(c)} AS {KEY_PREFIX}{i}"
            for i, c in enumerate(id_cols)
        ]
        return f"SELECT {', '.join(keys + rest)} FROM {_scan(p, kind, needed)}{where}"

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


def _read_parquet_arrow_columns(p: Path, columns: list[str]) -> dict[str, list[Any]]:
    table = read_parquet(p, files=_parquet_files(p), columns=columns, needs=_PARQUET_NEEDS)
    return {c: table.column(c).to_pylist() for c in columns}


def _read_parquet_arrow(
    p: Path, ids: list[str] | None, score: str | None, run_column: str | None, run: str | None,
    sample: str | None, cluster: str | None, display: str, task_column: str | None = None,
) -> RunResults:
    columns = read_parquet(p, files=_parquet_files(p), names_only=True, needs=_PARQUET_NEEDS)
    id_cols, score_col = _choose_columns(columns, p, ids, score, run_column, sample, cluster,
                                         task_column)
    wanted = list(dict.fromkeys([*id_cols, score_col] + [c for c in (run_column, sample, cluster)
                                                         if c]))
    data = _read_parquet_arrow_columns(p, wanted)
    n = len(data[score_col])
    rows = [(i + 1, {c: data[c][i] for c in wanted}) for i in range(n)]
    return _from_rows(p, "parquet", columns, rows, id_cols, score_col, run_column, run, sample,
                      cluster, display)
