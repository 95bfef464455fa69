"""The embedded engine (DuckDB) behind deferred runs: connections, loading, error messages.

DuckDB is imported only here and only when a deferred run is used. Its errors are turned into
:class:`~mcnemar.errors.InputFileError`; for a malformed JSONL or CSV file the file is then
scanned in Python to name the offending line, since that is what a user needs to fix it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from mcnemar.errors import InputFileError, McNemarError

if TYPE_CHECKING:
    from mcnemar.io._run import RunResults

__all__ = ["connect", "engine_error", "materialize", "relation"]


def connect() -> Any:
    """A fresh in-memory DuckDB connection tuned for one-pass counting."""
    try:
        import duckdb
    except ImportError:
        raise McNemarError(
            "this input needs DuckDB: pip install 'mcnemar[frames]'"
        ) from None
    con = duckdb.connect(":memory:")
    # Row order never matters for counting; dropping it lets DuckDB stream and parallelise.
    con.execute("SET preserve_insertion_order = false")
    threads = os.environ.get("MCNEMAR_THREADS")
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    return con


def relation(con: Any, run: RunResults, *, native_ids: bool = False) -> Any:
    """The DuckDB relation of a deferred run (columns as described by DeferredSource).

    ``native_ids`` keeps integer id columns in their own type (see
    ``DeferredSource.native_sql``); otherwise ids are text.
    """
    if run.source is None:
        raise McNemarError(f"run {run.name!r} is not deferred")
    sql = run.source.native_sql if native_ids and run.source.native_sql else run.source.sql
    try:
        return con.sql(sql)
    except Exception as exc:  # duckdb.Error
        raise engine_error(exc, Path(run.path), run.source.kind) from None


def engine_error(exc: Exception, path: Path, kind: str | None = None) -> InputFileError:
    """Translate a DuckDB error about ``path`` into an InputFileError with a line if possible."""
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if kind is None:
        kind = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".tsv": "csv"}.get(
            path.suffix.lower(), "other")
    if kind == "jsonl" and path.is_file():
        line = _first_bad_json_line(path)
        if line is not None:
            return InputFileError(
                "line is not valid JSON; a JSONL file needs one complete JSON object per line",
                path=str(path), line=line,
            )
    if kind == "csv" and path.is_file():
        line = _first_bad_csv_line(path)
        if line is not None:
            return InputFileError("line has a different number of fields than the header",
                                  path=str(path), line=line)
    return InputFileError(f"cannot read the file ({message})", path=str(path))


def _first_bad_json_line(path: Path) -> int | None:
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError):
                return number
            if not isinstance(obj, dict):
                return number
    return None


def _first_bad_csv_line(path: Path) -> int | None:
    import csv

    with path.open(newline="", encoding="utf-8", errors="replace") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None:
            return None
        for cells in reader:
            if cells and len(cells) != len(header):
                return reader.line_num
    return None


def materialize(
    run: RunResults,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Fetch a deferred run's keys, scores, samples and clusters as numpy arrays."""
    from mcnemar.io._columns import CLUSTER_COL, KEY_PREFIX, SAMPLE_COL, SCORE_COL, object_array

    if run.source is None:
        raise McNemarError(f"run {run.name!r} is not deferred")
    con = connect()
    try:
        data = relation(con, run).fetchnumpy()
    except InputFileError:
        raise
    except Exception as exc:  # duckdb.Error
        raise engine_error(exc, Path(run.path), run.source.kind) from None
    raw_parts = [data[f"{KEY_PREFIX}{i}"] for i in range(run.source.key_count)]
    null_keys = int(sum(int(np.sum(_is_none(part))) for part in raw_parts))
    if null_keys:
        raise InputFileError(
            f"{null_keys} records have no id in column(s) {', '.join(run.key_names)}",
            path=run.path,
        )
    parts = [np.asarray(np.ma.getdata(part), dtype=object) for part in raw_parts]
    if len(parts) == 1:
        keys = parts[0]
    else:
        keys = object_array(list(zip(*parts, strict=True)))
    scores = np.ma.filled(np.ma.asarray(data[SCORE_COL]).astype(np.float64), np.nan)
    epochs = None
    if run.source.has_sample:
        raw = data[SAMPLE_COL]
        if np.ma.isMaskedArray(raw) and np.ma.getmaskarray(raw).any():
            raise InputFileError(f"some records have no {run.sample_name!r} value",
                                 path=run.path)
        epochs = np.asarray(np.ma.getdata(raw), dtype=np.int64)
    clusters = None
    if run.source.has_cluster:
        clusters = np.asarray(np.ma.filled(np.ma.asarray(data[CLUSTER_COL]), ""), dtype=object)
    bad = np.isnan(scores) & _not_null(data[SCORE_COL])
    if bad.any():
        raise InputFileError(
            f"{int(bad.sum())} records have a score in column {run.score_name!r} that is not a "
            f"number, a boolean or true/false (first key: {keys[int(np.argmax(bad))]!r})",
            path=run.path,
        )
    return keys, scores, epochs, clusters


def _is_none(values: np.ndarray) -> np.ndarray:
    if np.ma.isMaskedArray(values):
        return np.ma.getmaskarray(values)
    return np.fromiter((v is None for v in values), dtype=bool, count=len(values))


def _not_null(values: Any) -> np.ndarray:
    if np.ma.isMaskedArray(values):
        return ~np.ma.getmaskarray(values)
    return np.ones(len(values), dtype=bool)
