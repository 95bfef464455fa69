"""lm-evaluation-harness per-sample logs (``--log_samples``): ``samples_<task>_<date>.jsonl``.

Each line is one document of one task under one filter, with the per-document value of every
metric in ``metrics`` as a top-level field (``"acc": 1.0``). The item key is
``(task, doc_id, filter)``; the task comes from the file name. A file that holds several
filters (e.g. ``gsm8k_cot_self_consistency``) is refused unless one filter is chosen, because
counting each document once per filter would count it twice. The model name is taken from the
sibling ``results_<date>.json`` of the same run when present.

File layout and fields: lm-evaluation-harness ``lm_eval/loggers/evaluation_tracker.py`` and
``lm_eval/evaluator.py`` (EleutherAI).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from mcnemar.errors import InputFileError
from mcnemar.io._run import (
    RunResults,
    iter_json_lines,
    object_array,
    require_object,
    score_to_float,
    short_repr,
)

__all__ = ["read_lmeval"]

_SAMPLES = re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.jsonl$")


def _task_and_date(path: Path) -> tuple[str, str | None]:
    match = _SAMPLES.match(path.name)
    if match:
        return match["task"], match["date"]
    stem = path.stem
    return (stem[len("samples_"):] if stem.startswith("samples_") else stem), None


def _sample_files(path: Path) -> tuple[list[Path], list[str]]:
    """The newest samples file of each task in a directory, and the files left out."""
    files = sorted(path.rglob("samples_*.jsonl"))
    if not files:
        raise InputFileError("directory holds no lm-evaluation-harness samples_*.jsonl files",
                             path=str(path))
    newest: dict[str, Path] = {}
    ignored: list[str] = []
    for f in files:
        task, date = _task_and_date(f)
        current = newest.get(task)
        if current is None:
            newest[task] = f
            continue
        older = f if (date or "") < (_task_and_date(current)[1] or "") else current
        ignored.append(str(older))
        newest[task] = current if older is f else f
    return sorted(newest.values()), ignored


def _model_name(sample_file: Path) -> str | None:
    _, date = _task_and_date(sample_file)
    candidates = []
    if date is not None:
        candidates.append(sample_file.with_name(f"results_{date}.json"))
    candidates.extend(sorted(sample_file.parent.glob("results_*.json"), reverse=True))
    for results in candidates:
        if not results.is_file():
            continue
        try:
            data = json.loads(results.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError, UnicodeDecodeError):
            continue
        if not isinstance(data, dict):
            continue
        name = data.get("model_name")
        if isinstance(name, str) and name:
            return name
        config = data.get("config")
        if isinstance(config, dict):
            args = config.get("model_args")
            if isinstance(args, str):
                for part in args.split(","):
                    key, _, value = part.partition("=")
                    if key.strip() in ("pretrained", "model") and value:
                        return value.strip()
            model = config.get("model")
            if isinstance(model, str) and model:
                return model
    return None


def read_lmeval(
    path: str | Path,
    *,
    score: str = "acc",
    filter: str | None = None,
    task: str | None = None,
    cluster: str | None = None,
    name: str | None = None,
    progress: bool | None = None,
) -> RunResults:
    """Read lm-evaluation-harness samples (one file, or the newest file per task of a directory).

    Parameters
    ----------
    path : str or Path
        A ``samples_<task>_<date>.jsonl`` file or a directory of them (for a directory, each
        task's newest file is read; older re-runs are listed in ``metadata["ignored"]``).
    score : str, default "acc"
        The metric: a top-level field of each record named in its ``metrics`` list.
    filter : str, optional
        Keep only this filter's records. Required when a file holds several filters.
    task : str, optional
        Task name when the file name does not follow ``samples_<task>_<date>.jsonl``.
    cluster : str, optional
        A field of ``doc`` (the dataset row) to use as the cluster of each item.
    name : str, optional
        Display name; default the model named in the sibling results file, else the file name.

    Examples
    --------
    >>> import tempfile, pathlib, json
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> p = d / "samples_arc_easy_2026-01-01T00-00-00.000001.jsonl"
    >>> _ = p.write_text(json.dumps({"doc_id": 0, "filter": "none", "metrics": ["acc"],
    ...                              "acc": 1.0}) + "\\n")
    >>> read_lmeval(p).keys.tolist()
    [('arc_easy', 0, 'none')]
    """
    p = Path(path)
    if p.is_dir():
        files, ignored = _sample_files(p)
    else:
        files, ignored = [p], []
    keys: list[tuple[str, Any, str]] = []
    scores: list[float] = []
    clusters: list[str] = []
    tasks: list[str] = []
    for f in files:
        file_task = task if task is not None else _task_and_date(f)[0]
        tasks.append(file_task)
        _read_file(f, file_task, score, filter, cluster, keys, scores, clusters, progress)
    model = _model_name(files[0])
    metadata: dict[str, Any] = {"tasks": tasks, "files": [str(f) for f in files]}
    if model is not None:
        metadata["model"] = model
    if filter is not None:
        metadata["filter"] = filter
    if ignored:
        metadata["ignored"] = ignored
    return RunResults(
        name=name or model or p.name,
        path=str(p),
        format="lm-eval",
        keys=object_array(keys),
        scores=np.asarray(scores, dtype=np.float64),
        records=len(keys),
        key_names=("task", "doc_id", "filter"),
        score_name=score,
        clusters=object_array(clusters) if cluster is not None else None,
        cluster_name=cluster,
        metadata=metadata,
    )


def _read_file(
    f: Path, task: str, score: str, wanted_filter: str | None, cluster: str | None,
    keys: list[tuple[str, Any, str]], scores: list[float], clusters: list[str],
    progress: bool | None,
) -> None:
    filters: dict[str, int] = {}
    start = len(keys)
    for number, obj in iter_json_lines(f, progress=progress):
        record = require_object(obj, f, number, "one lm-eval sample per line")
        doc_id = record.get("doc_id")
        if isinstance(doc_id, bool) or not isinstance(doc_id, int | str):
            raise InputFileError(
                f"'doc_id' must be an integer, found {short_repr(doc_id)}; is this an "
                "lm-evaluation-harness samples file?",
                path=str(f), line=number,
            )
        flt = record.get("filter", "none")
        if not isinstance(flt, str):
            raise InputFileError(f"'filter' must be text, found {short_repr(flt)}",
                                 path=str(f), line=number)
        filters[flt] = filters.get(flt, 0) + 1
        if wanted_filter is not None and flt != wanted_filter:
            continue
        if score not in record:
            metrics = record.get("metrics")
            listed = (", ".join(map(str, metrics)) if isinstance(metrics, list)
                      else "none listed")
            raise InputFileError(
                f"metric {score!r} not in this record (its metrics: {listed}); choose one with "
                "score=NAME (--score)",
                path=str(f), line=number,
            )
        try:
            value = score_to_float(record[score])
        except ValueError:
            raise InputFileError(
                f"metric {score!r} is {short_repr(record[score])}, not a per-item number; "
                "choose a per-item metric with score=NAME (--score)",
                path=str(f), line=number,
            ) from None
        keys.append((task, doc_id, flt))
        scores.append(np.nan if value is None else value)
        if cluster is not None:
            doc = record.get("doc")
            if not isinstance(doc, dict) or cluster not in doc:
                raise InputFileError(
                    f"cluster field {cluster!r} not found in the record's 'doc'",
                    path=str(f), line=number,
                )
            clusters.append(str(doc[cluster]))
    if not filters:
        raise InputFileError("no records: the samples file is empty", path=str(f))
    if wanted_filter is None and len(filters) > 1:
        shown = ", ".join(f"{k!r} ({v} records)" for k, v in filters.items())
        raise InputFileError(
            f"the file holds several filters: {shown}; each document appears once per filter, "
            "so choose one with filter=NAME (--filter)",
            path=str(f),
        )
    if len(keys) == start:
        raise InputFileError(
            f"no record has filter {wanted_filter!r}; the filters are "
            f"{', '.join(map(repr, filters))}",
            path=str(f),
        )
