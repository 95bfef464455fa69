"""lm-evaluation-harness per-sample logs (``--log_samples``): ``samples_<task>_<date>.jsonl``.

Each line is one document of one task under one filter, with the per-document value of every
metric in ``metrics`` as a top-level field (``"acc": 1.0``). The item key is
``(task, doc_id, filter)``. The task comes from a file name of the form
``samples_<task>_<date>.jsonl`` (or ``task=``); a renamed file does not record its task, and
two single-task runs pair on ``(doc_id, filter)`` whatever their files are called (alignment
checks the task as part of the run's identity, and the ``doc_hash`` of every paired item). A
file that holds several filters (e.g. ``gsm8k_cot_self_consistency``) is refused unless one
filter is chosen, because counting each document once per filter would count it twice. The
model name is taken from the sibling ``results_<date>.json`` of the same run when present.

A directory may hold several tasks (e.g. the subtasks of a group): each task's newest file is
read (older re-runs are reported as ignored), ``task=`` selects tasks, and alignment pairs the
items within each task (tasks are strata of independent items; the pooled table is the sum of
the per-task tables).

The result of ``lm_eval.simple_evaluate(..., log_samples=True)`` held in memory
(:func:`read_lmeval_results`) is read as the directory it would be written to: its
``samples`` map each task to the records its ``samples_<task>_<date>.jsonl`` file holds, read
by the same per-record code, and its ``config`` names the model.

File layout and fields: lm-evaluation-harness ``lm_eval/loggers/evaluation_tracker.py`` and
``lm_eval/evaluator.py`` (EleutherAI).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mcnemar.errors import InputFileError, option
from mcnemar.io._run import (
    RunResults,
    iter_json_records,
    parse_json,
    require_known,
    score_to_float,
    short_repr,
    wanted_tasks,
)
from mcnemar.io.identity import RunIdentity, TaskIdentity

__all__ = ["read_lmeval", "read_lmeval_results"]

_SAMPLES = re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.jsonl$")


def _task_and_date(path: Path) -> tuple[str, str | None]:
    match = _SAMPLES.match(path.name)
    if match:
        return match["task"], match["date"]
    stem = path.stem
    return (stem[len("samples_"):] if stem.startswith("samples_") else stem), None


def _sample_files(path: Path) -> tuple[dict[str, Path], dict[str, list[str]]]:
    """The newest samples file of each task in a directory, and the older files per task."""
    files = sorted(path.rglob("samples_*.jsonl"))
    if not files:
        raise InputFileError("directory holds no lm-evaluation-harness samples_*.jsonl files",
                             path=str(path))
    newest: dict[str, Path] = {}
    ignored: dict[str, list[str]] = {}
    for f in files:
        task, date = _task_and_date(f)
        current = newest.get(task)
        if current is None:
            newest[task] = f
            continue
        older = f if (date or "") < (_task_and_date(current)[1] or "") else current
        ignored.setdefault(task, []).append(str(older))
        newest[task] = current if older is f else f
    return dict(sorted(newest.items())), ignored


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
            data = parse_json(results.read_bytes(), what=results.name, path=str(results))
        except (OSError, json.JSONDecodeError, UnicodeDecodeError):
            continue
        name = _model_of(data)
        if name is not None:
            return name
    return None


def _model_of(data: Any) -> str | None:
    """The model a results document names: ``model_name`` (written by lm-eval's tracker),
    else the ``pretrained=``/``model=`` of ``config.model_args`` (text or a dict), else
    ``config.model`` (the model type, e.g. ``hf``)."""
    if not isinstance(data, Mapping):
        return None
    name = data.get("model_name")
    if isinstance(name, str) and name:
        return name
    config = data.get("config")
    if isinstance(config, Mapping):
        args = config.get("model_args")
        if isinstance(args, str):
            for part in args.split(","):
                key, _, value = part.partition("=")
                if key.strip() in ("pretrained", "model") and value:
                    return value.strip()
        if isinstance(args, Mapping):
            for key in ("pretrained", "model"):
                named = args.get(key)
                if isinstance(named, str) and named:
                    return named
        model = config.get("model")
        if isinstance(model, str) and model:
            return model
    return None


def read_lmeval(
    path: str | Path,
    *,
    score: str | None = None,
    filter: str | None = None,
    task: str | Sequence[str] | None = None,
    cluster: str | None = None,
    name: str | None = None,
    progress: bool | None = None,
) -> RunResults:
    """Read lm-evaluation-harness samples (one file, or the newest file per task of a directory).

    Each record is an item keyed by its task, ``doc_id`` and filter; its score is the chosen
    metric. Each task's metric and filter, and the ``doc_hash`` of every record, go into the
    run's identity, which the identity checks compare.

    Parameters
    ----------
    path : str or Path
        A ``samples_<task>_<date>.jsonl`` file or a directory of them (for a directory, each
        task's newest file is read; older re-runs are listed in ``identity.ignored``).
    score : str, optional
        The metric: a top-level field of each record named in its ``metrics`` list. Default,
        per task: ``acc`` when the records have it, else the records' only metric; a task
        with several metrics and no ``acc`` needs a choice. A graded metric (a per-document
        ``f1``, ``rouge1``, ``bleu_max``...) is read as it is, and the comparison of the runs
        is then the paired comparison of scores (:mod:`mcnemar.scores`); a metric lm-eval
        computes over the whole task (its per-record value a (gold, prediction) pair) is
        refused, since no item has a score of its own.
    filter : str, optional
        The filter whose records to keep. A task with one filter uses it; a task with several
        needs a choice. In a directory of several tasks, the chosen filter applies to the
        tasks that have it and the tasks with a single filter keep theirs (each task's filter
        is reported).
    task : str or list of str, optional
        For a directory: the task(s) to read (default: every task). For a single file whose
        name does not follow ``samples_<task>_<date>.jsonl``: its task (otherwise it is not
        recorded, and the file pairs with another single-task run on ``doc_id`` alone).
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
    >>> run = read_lmeval(p)
    >>> run.keys.tolist(), run.identity.task, run.identity.scorer
    ([('arc_easy', 0, 'none')], 'arc_easy', 'acc')
    """
    p = Path(path)
    wanted = wanted_tasks(task)
    chosen: list[_Task] = []
    ignored: list[str] = []
    if p.is_dir():
        newest, older = _sample_files(p)
        if wanted is not None:
            require_known(wanted, newest, path=p, message=lambda unknown, known:
                          f"task(s) {unknown} not in this directory; its tasks are {known}")
            selected = wanted
        else:
            selected = list(newest)
        for t in selected:
            chosen.append(_file_task(t, t, newest[t], progress))
            ignored.extend(older.get(t, []))
    else:
        label, date = _task_and_date(p)
        recorded = label if date is not None else None
        if wanted is not None:
            if recorded is not None and recorded not in wanted:
                raise InputFileError(
                    f"the file holds task {recorded!r} (from its name), not "
                    f"{', '.join(map(repr, wanted))}",
                    path=str(p),
                )
            if recorded is None:
                if len(wanted) > 1:
                    raise InputFileError(
                        f"the file's name does not say which task it holds and "
                        f"{option('task', 'NAME')} names several "
                        f"({', '.join(map(repr, wanted))}); a single file holds one task",
                        path=str(p),
                    )
                label = recorded = wanted[0]
        chosen.append(_file_task(label, recorded, p, progress))
    model = _model_name(Path(chosen[0].file or p))
    return _run(chosen, source=str(p), model=model, ignored=ignored, score=score,
                filter=filter, cluster=cluster, name=name or model or p.name)


def read_lmeval_results(
    results: Mapping[str, Any],
    *,
    score: str | None = None,
    filter: str | None = None,
    task: str | Sequence[str] | None = None,
    cluster: str | None = None,
    name: str | None = None,
    progress: bool | None = None,
) -> RunResults:
    """Read the result of ``lm_eval.simple_evaluate(..., log_samples=True)`` held in memory.

    Read as the output directory it would be written to (:func:`read_lmeval`): each task of
    ``results["samples"]`` is the list of records its ``samples_<task>_<date>.jsonl`` file
    holds, read by the same per-record code (the same metric, filter, ``doc_hash`` and
    cluster rules, the tasks in the order of their names; the run's path is
    ``<lm-eval results>``); the model is the
    ``pretrained=``/``model=`` of ``results["config"]["model_args"]``, else
    ``config["model"]`` (``model_name`` first, for a dict that has one). The records are not
    changed.

    Parameters
    ----------
    results : dict
        ``simple_evaluate``'s return value (``samples`` and ``config``; the aggregate
        ``results`` are not read), or a dict of that shape.
    score, filter, task, cluster, name
        As for :func:`read_lmeval` (``task`` chooses tasks among the keys of ``samples``).
    progress : bool, optional
        Ignored: nothing is parsed.

    Examples
    --------
    >>> out = {"config": {"model": "hf", "model_args": "pretrained=org/m,dtype=float16"},
    ...        "samples": {"arc_easy": [{"doc_id": 0, "filter": "none", "metrics": ["acc"],
    ...                                  "acc": 1.0}]}}
    >>> run = read_lmeval_results(out)
    >>> run.keys.tolist(), run.name, run.identity.task
    ([('arc_easy', 0, 'none')], 'org/m', 'arc_easy')
    """
    source = "<lm-eval results>"
    samples = results.get("samples") if isinstance(results, Mapping) else None
    if not isinstance(samples, Mapping) or not samples:
        raise InputFileError(
            "no per-sample records: the results hold no 'samples' mapping of tasks (run "
            "simple_evaluate with log_samples=True)",
            path=source,
        )
    named = {str(t): records for t, records in samples.items()}
    wanted = wanted_tasks(task)
    if wanted is not None:
        require_known(wanted, named, path=source, message=lambda unknown, known:
                      f"task(s) {unknown} not in the results' samples; their tasks are {known}")
    chosen = [_memory_task(t, named[t], source)
              for t in (wanted if wanted is not None else sorted(named))]
    model = _model_of(results)
    return _run(chosen, source=source, model=model, ignored=[], score=score, filter=filter,
                cluster=cluster, name=name or model or source)


@dataclass(frozen=True, slots=True)
class _Task:
    """One task's records to read, and where they are (for messages)."""

    #: The task part of the item keys.
    label: str
    #: The task as recorded (None: a renamed file, which does not record it).
    recorded: str | None
    #: ``(number, record)`` pairs.
    records: Callable[[], Iterable[tuple[int, Any]]]
    #: ``path=`` and ``line=`` of an error at a record (``None``: about the whole task).
    at: Callable[[int | None], dict[str, Any]]
    #: The samples file (None: the results in memory).
    file: str | None


def _file_task(label: str, recorded: str | None, f: Path, progress: bool | None) -> _Task:
    return _Task(label=label, recorded=recorded,
                 records=lambda: iter_json_records(f, what="one lm-eval sample per line",
                                                   progress=progress),
                 at=lambda line: {"path": str(f), "line": line}, file=str(f))


def _memory_task(task: str, records: Any, source: str) -> _Task:
    def at(number: int | None) -> dict[str, Any]:
        where = f"samples[{task!r}]" + ("" if number is None else f"[{number - 1}]")
        return {"path": f"{source} {where}", "line": None}

    return _Task(label=task, recorded=task,
                 records=lambda: enumerate(records, start=1), at=at, file=None)


def _run(chosen: list[_Task], *, source: str, model: str | None, ignored: list[str],
         score: str | None, filter: str | None, cluster: str | None, name: str) -> RunResults:
    """The run of the chosen tasks' records (files or results in memory alike)."""
    keys: list[tuple[str, Any, str]] = []
    scores: list[float] = []
    clusters: list[str] = []
    contents: list[str | None] = []
    tasks: list[TaskIdentity] = []
    for part in chosen:
        start = len(keys)
        metric, flt = _read_task(part, score, filter, cluster, keys, scores, clusters,
                                 contents, strict_filter=len(chosen) == 1)
        tasks.append(TaskIdentity(name=part.recorded, scorer=metric, filter=flt,
                                  records=len(keys) - start))
    if filter is not None and all(t.filter != filter for t in tasks):
        raise InputFileError(
            f"no task has filter {filter!r}; the filters used are "
            f"{', '.join(dict.fromkeys(repr(t.filter) for t in tasks))}",
            path=source,
        )
    metadata: dict[str, Any] = {"tasks": [c.label for c in chosen]}
    files = [c.file for c in chosen if c.file is not None]
    if files:
        metadata["files"] = files
    if model is not None:
        metadata["model"] = model
    if filter is not None:
        metadata["filter"] = filter
    if ignored:
        metadata["ignored"] = ignored
    has_content = any(c is not None for c in contents)
    identity = RunIdentity(
        harness="lm-eval", model=model, tasks=tuple(tasks), ignored=tuple(ignored),
        task_part=0, filter_part=2, content_name="doc_hash" if has_content else None,
    )
    return RunResults.from_scores(
        keys, scores, clusters=clusters if cluster is not None else None,
        contents=contents if has_content else None, name=name,
        path=source, format="lm-eval", key_names=("task", "doc_id", "filter"),
        score_name=",".join(dict.fromkeys(t.scorer or "acc" for t in tasks)),
        cluster_name=cluster, metadata=metadata, identity=identity,
    )


def _default_metric(record: Mapping[str, Any], at: dict[str, Any]) -> str:
    metrics = record.get("metrics")
    listed = [m for m in metrics if isinstance(m, str)] if isinstance(metrics, list) else []
    if "acc" in listed or (not listed and "acc" in record):
        return "acc"
    if len(listed) == 1:
        return listed[0]
    raise InputFileError(
        f"the records have several metrics ({', '.join(listed) or 'none listed'}) and none is "
        f"acc; choose one with {option('score', 'NAME')}",
        **at,
    )


#: Fields of a record that hold the document, the prompts and the answers: not needed once
#: the record is read (ids, metrics and hashes are), so they are not kept.
_HEAVY = frozenset({"doc", "arguments", "resps", "filtered_resps"})


def _read_task(
    part: _Task, score: str | None, wanted_filter: str | None, cluster: str | None,
    keys: list[tuple[str, Any, str]], scores: list[float], clusters: list[str],
    contents: list[str | None], *, strict_filter: bool,
) -> tuple[str, str]:
    """Append one task's records; return the metric and filter used."""
    task = part.label
    records: list[tuple[int, Any, str, dict[str, Any]]] = []
    filters: dict[str, int] = {}
    for number, record in part.records():
        if not isinstance(record, Mapping):
            raise InputFileError(f"a sample record must be a dict, found {short_repr(record)}",
                                 **part.at(number))
        doc_id = record.get("doc_id")
        if isinstance(doc_id, bool) or not isinstance(doc_id, int | str):
            raise InputFileError(
                f"'doc_id' must be an integer, found {short_repr(doc_id)}; is this an "
                "lm-evaluation-harness samples file?",
                **part.at(number),
            )
        flt = record.get("filter", "none")
        if not isinstance(flt, str):
            raise InputFileError(f"'filter' must be text, found {short_repr(flt)}",
                                 **part.at(number))
        filters[flt] = filters.get(flt, 0) + 1
        # Only ids, metrics and hashes are needed from here on; the record itself is never
        # changed (a record in memory is the caller's).
        kept = {k: v for k, v in record.items() if k not in _HEAVY}
        if cluster is not None:
            doc = record.get("doc")
            if not isinstance(doc, Mapping) or cluster not in doc:
                raise InputFileError(
                    f"cluster field {cluster!r} not found in the record's 'doc'",
                    **part.at(number),
                )
            kept["__mcn_cluster"] = str(doc[cluster])
        records.append((number, doc_id, flt, kept))
    if not filters:
        raise InputFileError("no records: the samples file is empty" if part.file is not None
                             else "no records: the task's list of samples is empty",
                             **part.at(None))
    if wanted_filter is not None and wanted_filter in filters:
        use = wanted_filter
    elif len(filters) == 1 and (wanted_filter is None or not strict_filter):
        use = next(iter(filters))
    elif wanted_filter is None:
        shown = ", ".join(f"{k!r} ({v} records)" for k, v in filters.items())
        raise InputFileError(
            f"the {'file' if part.file is not None else 'task'} holds several "
            f"filters: {shown}; each document appears once per filter, so choose one with "
            f"{option('filter', 'NAME')}",
            **part.at(None),
        )
    else:
        raise InputFileError(
            f"no record has filter {wanted_filter!r}; the filters are "
            f"{', '.join(map(repr, filters))}",
            **part.at(None),
        )
    metric = score
    nan = np.nan
    for number, doc_id, flt, record in records:
        if flt != use:
            continue
        if metric is None:
            metric = _default_metric(record, part.at(number))
        if metric not in record:
            metrics = record.get("metrics")
            listed = (", ".join(map(str, metrics)) if isinstance(metrics, list)
                      else "none listed")
            raise InputFileError(
                f"metric {metric!r} not in this record (its metrics: {listed}); choose one "
                f"with {option('score', 'NAME')}",
                **part.at(number),
            )
        raw = record[metric]
        if type(raw) is float:  # the usual case, as score_to_float has it: NaN is no score
            value: float | None = raw if raw == raw else None
        else:
            try:
                value = score_to_float(raw)
            except ValueError:
                raise InputFileError(_not_per_item(metric, raw), **part.at(number)) from None
        keys.append((task, doc_id, flt))
        scores.append(nan if value is None else value)
        if cluster is not None:
            clusters.append(record["__mcn_cluster"])
        digest = record.get("doc_hash")
        contents.append(digest if isinstance(digest, str) and digest else None)
    assert metric is not None  # at least one record has the chosen filter
    return metric, use


def _not_per_item(metric: str, raw: Any) -> str:
    """Why a metric's value is no item's score, and what to choose instead."""
    choose = f"choose a per-item metric with {option('score', 'NAME')}"
    if isinstance(raw, list) and len(raw) == 2:
        # lm-eval logs the (gold, prediction) pair of a metric it computes over the whole
        # task (lm_eval/api/task.py: "f1": (gold, pred), and the passthrough metrics).
        return (f"metric {metric!r} is {short_repr(raw)}, the (gold, prediction) pair lm-eval "
                "keeps for a metric it computes over the whole task (f1 and mcc of multiple "
                "choice, bleu, chrf, ter, brier_score): no item has a score of its own; "
                f"{choose} (acc, exact_match, or a task's per-document f1)")
    return f"metric {metric!r} is {short_repr(raw)}, not a per-item number; {choose}"
