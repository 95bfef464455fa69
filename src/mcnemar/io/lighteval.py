"""lighteval per-document details (``--save-details``): Parquet files, one per task.

lighteval writes ``<output>/details/<model>/<timestamp>/details_<task>|<fewshot>_<timestamp>
.parquet`` (the model name may hold a ``/``: ``details/org/name/...``) and the aggregates in
``<output>/results/<model>/results_<timestamp>.json``. Each row of a details file is one
document, with struct columns ``doc`` (``id``, ``query``, ``choices``, ``gold_index``,
``task_name``, ...), ``metric`` (one field per metric: ``{acc: 1}``) and ``model_response``.

* Item key: ``(task, doc.id)``; ``doc.id`` is the document's index in the evaluated split, as
  text. A file whose ``doc`` has no ``id`` is keyed by row index (said in the metadata).
  The task is part of the key so that a run of several tasks pairs task by task
  (``RunIdentity.task_part``); two single-task runs pair on ``doc.id``.
* Task: ``<task>|<fewshot>`` from the file name (as lighteval names it, e.g. ``arith_mc|0``:
  the few-shot count is part of what was evaluated), else the file's ``doc.task_name``.
  ``task=`` selects tasks by that name or by the name without ``|<fewshot>``.
* Score: the field of ``metric`` named by ``score=``; default the only one (several need a
  choice). Integers and booleans are 1/0, graded metrics keep their value, null is no score.
* Model: ``config_general.model_name`` of the run's results file, else the folder path
  between ``details/`` and the timestamp folder.
* Status: complete (lighteval writes the details once every document has been scored); the
  details record no per-document error.
* Content: a short hash of ``doc.query`` per document, which paired documents must share.

Given a folder, the reader takes every details file under it; several models are refused
(name one model's folder), and of a task run more than once the newest timestamp is read and
the older files are listed in ``identity.ignored``.

Layout: lighteval 0.13 ``src/lighteval/logging/evaluation_tracker.py`` (``save``,
``save_details``) and ``logging/info_loggers.py`` (``DetailsLogger.Detail``), and the files it
wrote in ``tests/data/io/real/lighteval/``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mcnemar.errors import InputFileError, option
from mcnemar.io._run import (
    RunResults,
    name_list,
    parse_json,
    read_parquet,
    short_repr,
    wanted_tasks,
)
from mcnemar.io.identity import RunIdentity, TaskIdentity

__all__ = ["read_lighteval"]

_DETAILS = re.compile(
    r"^details_(?P<task>.+)_(?P<stamp>\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)\.parquet$")
#: The ``doc`` fields read (the rest of a document, and ``model_response``, are never read).
_DOC_FIELDS = ("id", "task_name", "query")


def _task_and_stamp(path: Path) -> tuple[str | None, str | None]:
    """The task and timestamp in a details file's name, as lighteval writes it."""
    match = _DETAILS.match(path.name)
    return (match["task"], match["stamp"]) if match else (None, None)


def _model_folder(stamp_folder: Path) -> tuple[Path, str | None]:
    """The model folder above a timestamp folder, and the model path under ``details/``."""
    folder = stamp_folder.parent
    for root in (folder, *folder.parents):
        if root.name == "details":
            relative = folder.relative_to(root).as_posix()
            return folder, (relative if relative != "." else None)
    return folder, None


def _results_model(stamp_folder: Path, model_path: str | None) -> str | None:
    """``config_general.model_name`` of the run's results file, when it is there."""
    if model_path is None:
        return None
    details_root = stamp_folder.parents[len(Path(model_path).parts)]
    results = (details_root.parent / "results" / model_path
               / f"results_{stamp_folder.name}.json")
    try:
        data = parse_json(results.read_bytes(), what=results.name, path=str(results))
    except (OSError, ValueError):  # an unreadable sidecar only leaves the model unnamed
        return None
    general = data.get("config_general") if isinstance(data, dict) else None
    if not isinstance(general, dict):
        return None
    name = general.get("model_name")
    if not isinstance(name, str) or not name:
        config = general.get("model_config")
        name = config.get("model_name") if isinstance(config, dict) else None
    return name if isinstance(name, str) and name else None


def _newest_per_task(p: Path) -> tuple[dict[str, Path], list[str]]:
    """A folder's details files: the newest of each task, and the older ones (ignored)."""
    files = sorted(f for f in p.rglob("details_*.parquet") if f.is_file())
    if not files:
        raise InputFileError(
            "the folder holds no lighteval details_*.parquet files (lighteval writes them "
            "under <output>/details/<model>/<timestamp>/ when run with --save-details)",
            path=str(p))
    models: dict[Path, str] = {}
    for f in files:
        folder, model = _model_folder(f.parent)
        models.setdefault(folder, model or (folder.relative_to(p).as_posix()
                                            if folder.is_relative_to(p) else folder.name))
    if len(models) > 1:
        first = min(models, key=lambda folder: models[folder])
        raise InputFileError(
            f"the folder holds the details of {len(models)} models "
            f"({name_list(sorted(models.values()))}); give one model's folder (e.g. {first}) "
            "or one timestamp folder",
            path=str(p))
    newest: dict[str, tuple[str, Path]] = {}
    ignored: list[str] = []
    for f in files:
        task, stamp = _task_and_stamp(f)
        label = task if task is not None else f.stem
        order = stamp or f.parent.name
        current = newest.get(label)
        if current is None or (order, str(f)) > (current[0], str(current[1])):
            if current is not None:
                ignored.append(str(current[1]))
            newest[label] = (order, f)
        else:
            ignored.append(str(f))
    return {label: f for label, (_, f) in newest.items()}, sorted(ignored)


def _match_task(wanted: str, labels: Sequence[str]) -> str | None:
    """The task named ``wanted``: its full name, or its name without ``|<fewshot>`` when only
    one task has that name."""
    if wanted in labels:
        return wanted
    matches = [t for t in labels if t.split("|")[0] == wanted]
    return matches[0] if len(matches) == 1 else None


def read_lighteval(
    path: str | Path,
    *,
    score: str | None = None,
    task: str | Sequence[str] | None = None,
    name: str | None = None,
    progress: bool | None = None,
) -> RunResults:
    """Read lighteval details: one ``details_*.parquet`` file, or the files of a folder.

    Each row is a document keyed by its task and ``doc.id``; its score is the chosen field of
    the ``metric`` column. Each task's metric and the ``doc.query`` fingerprint of every
    document go into the run's identity, which the identity checks compare.

    Parameters
    ----------
    path : str or Path
        A details file, a timestamp folder (``details/<model>/<timestamp>/``), a model
        folder (``details/<model>/``) or an ``--output-dir`` holding one model. In a folder,
        each task's newest file is read; older re-runs are listed in ``identity.ignored``.
    score : str, optional
        The metric (a field of the ``metric`` struct, e.g. ``acc``). Default: the only
        metric of each file; a file with several needs a choice.
    task : str or list of str, optional
        The task(s) to read from a folder (default: all), by full name (``arith_mc|0``) or
        without the few-shot count (``arith_mc``) when that is unambiguous; for one file, a
        check that it holds that task.
    name : str, optional
        Display name; default the model, else the file or folder name.
    progress : bool, optional
        Accepted for a uniform signature; Parquet columns are read whole.

    Examples
    --------
    >>> import tempfile, pathlib, pyarrow as pa, pyarrow.parquet as pq
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> p = d / "details_arith|0_2026-01-01T00-00-00.000001.parquet"
    >>> pq.write_table(pa.table({"doc": [{"id": "0", "query": "1+1?"}],
    ...                          "metric": [{"acc": 1}]}), p)
    >>> run = read_lighteval(p)
    >>> run.keys.tolist(), run.scores.tolist(), run.identity.task, run.identity.scorer
    ([('arith|0', '0')], [1.0], 'arith|0', 'acc')
    """
    del progress  # a Parquet column is read in one go
    p = Path(path)
    wanted = wanted_tasks(task)
    ignored: list[str] = []
    if p.is_dir():
        newest, older = _newest_per_task(p)
        labels = list(newest)
        if wanted is None:
            selected = labels
        else:
            found = {w: _match_task(w, labels) for w in wanted}
            for w, t in found.items():
                several = [label for label in labels if label.split("|")[0] == w]
                if t is None and len(several) > 1:
                    raise InputFileError(
                        f"task {w!r} was run with several few-shot counts "
                        f"({name_list(several)}); give the full name", path=str(p))
            unknown = [w for w, t in found.items() if t is None]
            if unknown:
                raise InputFileError(
                    f"task(s) {name_list(unknown)} not in this folder; its tasks are "
                    f"{name_list(labels)}", path=str(p))
            selected = list(dict.fromkeys(t for t in found.values() if t is not None))
        chosen: list[tuple[str | None, Path]] = [(label, newest[label]) for label in selected]
        keep = set(selected)
        ignored = [f for f in older if (_task_and_stamp(Path(f))[0] or Path(f).stem) in keep]
    else:
        if not p.is_file():
            raise InputFileError("no such file or directory", path=str(p))
        label = _task_and_stamp(p)[0]
        chosen = [(label, p)]
    keys: list[tuple[str, Any]] = []
    scores: list[np.ndarray] = []
    contents: list[str | None] = []
    tasks: list[TaskIdentity] = []
    id_sources: list[str] = []
    for label, f in chosen:
        start = len(keys)
        recorded, metric, id_source = _read_file(f, label, score, keys, scores, contents)
        if not p.is_dir() and wanted is not None:
            _check_single_task(f, recorded, wanted)
        tasks.append(TaskIdentity(name=recorded, scorer=metric, records=len(keys) - start))
        id_sources.append(id_source)
    stamp_folder = chosen[0][1].parent
    model_path = _model_folder(stamp_folder)[1]
    model = _results_model(stamp_folder, model_path) or model_path
    metadata: dict[str, Any] = {
        "tasks": [t.name for t in tasks], "files": [str(f) for _, f in chosen],
        "key": "doc.id" if "row" not in id_sources else "row index (doc has no id)",
    }
    if model is not None:
        metadata["model"] = model
    if ignored:
        metadata["ignored"] = ignored
    has_content = any(c is not None for c in contents)
    identity = RunIdentity(
        harness="lighteval", model=model, tasks=tuple(tasks), status="complete",
        ignored=tuple(ignored), task_part=0,
        content_name="doc.query" if has_content else None,
    )
    return RunResults.from_scores(
        keys, np.concatenate(scores) if scores else np.zeros(0),
        contents=contents if has_content else None, name=name or model or p.name,
        path=str(p), format="lighteval",
        key_names=("task", "doc.id" if "row" not in id_sources else "row"),
        score_name=",".join(dict.fromkeys(t.scorer or "" for t in tasks)),
        metadata=metadata, identity=identity,
    )


def _check_single_task(f: Path, recorded: str | None, wanted: list[str]) -> None:
    if recorded is None:
        raise InputFileError(
            f"the file records no task (neither in its name nor in doc.task_name), so "
            f"{option('task', 'NAME')} cannot be checked", path=str(f))
    if not any(_match_task(w, [recorded]) for w in wanted):
        raise InputFileError(f"the file holds task {recorded!r}, not {name_list(wanted)}",
                             path=str(f))


def _struct_fields(schema: Any, column: str) -> list[str] | None:
    """The field names of a struct column, or ``None`` when the column is not a struct."""
    import pyarrow as pa

    kind = schema.field(column).type
    if not pa.types.is_struct(kind):
        return None
    return [kind.field(i).name for i in range(kind.num_fields)]


def _read_file(
    f: Path, label: str | None, score: str | None, keys: list[tuple[str, Any]],
    scores: list[np.ndarray], contents: list[str | None],
) -> tuple[str | None, str, str]:
    """Append one details file's documents; return its task, metric and id source."""
    columns = read_parquet(f, names_only=True)
    if "metric" not in columns:
        raise InputFileError(
            f"no 'metric' column (its columns: {name_list(columns)}); a lighteval details "
            "file holds the per-document metrics in a 'metric' struct", path=str(f))
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pq.read_schema(f)  # read_parquet has opened it: pyarrow is there, the file valid
    metrics = _struct_fields(schema, "metric")
    if not metrics:
        raise InputFileError(
            f"'metric' is {schema.field('metric').type}, not a struct of per-document "
            "metrics; is this a lighteval details file?", path=str(f))
    if score is None:
        if len(metrics) > 1:
            raise InputFileError(
                f"the documents have several metrics ({name_list(metrics)}); choose one with "
                f"{option('score', 'NAME')}", path=str(f))
        metric = metrics[0]
    elif score in metrics:
        metric = score
    else:
        raise InputFileError(
            f"metric {score!r} not in this file; its metrics are {name_list(metrics)} "
            f"(choose one with {option('score', 'NAME')})", path=str(f))
    doc_fields = (_struct_fields(schema, "doc") or []) if "doc" in columns else []
    wanted_doc = [d for d in _DOC_FIELDS if d in doc_fields]
    # A dotted path selects one field of a struct; a metric whose name holds a dot is
    # taken from the whole (small) metric struct instead.
    metric_column = "metric" if "." in metric else f"metric.{metric}"
    requested = [*(f"doc.{d}" for d in wanted_doc), metric_column]
    read = _selected(read_parquet(f, columns=requested), requested, f)
    got = dict(zip(wanted_doc, read, strict=False))
    values = read[-1]
    if metric_column == "metric":
        values = _child(values, metric)
    kind = values.type
    if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)
            or pa.types.is_boolean(kind) or pa.types.is_null(kind)
            or pa.types.is_decimal(kind)):
        raise InputFileError(
            f"metric {metric!r} holds {kind} values, not one number per document; choose a "
            f"per-document metric with {option('score', 'NAME')}", path=str(f))
    n = len(values)
    scores.append(np.asarray(values.cast(pa.float64()).to_numpy(zero_copy_only=False),
                             dtype=np.float64) if n else np.zeros(0))
    recorded = label
    if recorded is None and "task_name" in got:
        names = {t for t in got["task_name"].to_pylist() if isinstance(t, str) and t}
        recorded = names.pop() if len(names) == 1 else None
    task_label = recorded if recorded is not None else f.stem
    if "id" in got:
        ids = got["id"].to_pylist()
        for row, doc_id in enumerate(ids):
            if isinstance(doc_id, bool) or not isinstance(doc_id, str | int):
                raise InputFileError(
                    f"row {row}: doc.id must be text or an integer, found "
                    f"{short_repr(doc_id)}", path=str(f))
        id_source = "doc.id"
    else:
        ids = list(range(n))
        id_source = "row"
    keys.extend((task_label, doc_id) for doc_id in ids)
    if "query" in got:
        contents.extend(_fingerprint(q) for q in got["query"].to_pylist())
    else:
        contents.extend([None] * n)
    return recorded, metric, id_source


def _child(column: Any, name: str) -> Any:
    """One field of a struct column, as a column."""
    import pyarrow as pa

    return pa.chunked_array([chunk.field(name) for chunk in column.chunks],
                            type=column.type.field(name).type)


def _selected(table: Any, requested: list[str], f: Path) -> list[Any]:
    """The requested columns (``doc.id``, ``metric.acc``, ``metric``) of a table read with
    them, in that order.

    pyarrow returns a selected struct field either as a leaf column of its own, in the order
    asked (``read_table``), or inside its struct column, which then holds the selected fields
    only (``ParquetFile.iter_batches``); both are taken here.
    """
    tops = list(dict.fromkeys(path.partition(".")[0] for path in requested))
    if sorted(table.column_names) == sorted(tops):
        out = []
        for path in requested:
            top, _, child = path.partition(".")
            column = table.column(top)
            out.append(_child(column, child) if child else column)
        return out
    if table.num_columns == len(requested):
        return list(table.columns)
    raise InputFileError(f"cannot read the columns {name_list(requested)} of this file",
                         path=str(f))


def _fingerprint(query: Any) -> str | None:
    """A short stable hash of a document's query."""
    if not isinstance(query, str):
        return None
    return hashlib.sha256(query.encode("utf-8")).hexdigest()[:16]
