"""evalscope reviews: ``<work_dir>/<YYYYMMDD_HHMMSS>/reviews/<model>/<benchmark>_<subset>.jsonl``.

``evalscope.run_task(TaskConfig(...))`` writes each run into a timestamped directory of its
``work_dir``: ``configs/task_config.yaml`` (written when the run starts),
``predictions/<model>/``, ``reviews/<model>/<benchmark>_<subset>.jsonl`` (one scored line per
answer) and ``reports/<model>/<benchmark>.json`` (written when the benchmark is done). A
review line is ``{index, target, messages, agent_trace, sample_score: {score: {value:
{<metric>: <number>, ...}, status, extracted_prediction, prediction, metadata,
main_score_name}, sample_id, group_id, generation_index, sample_metadata}}``.

Item key
    ``(task, group_id)``: the task is the file name without ``.jsonl`` (``general_mcq_add``,
    i.e. ``<benchmark>_<subset>``), so a subset is a task and a run of several subsets is
    compared subset by subset. ``group_id`` is the item's position in the loaded data set;
    with ``repeats=k`` each item is answered k times, ``sample_id`` then numbers the answers
    and ``generation_index`` (0 .. k-1) is the sample index of the item (``group_id`` equals
    ``sample_id`` without repeats; ``sample_id`` is used where ``group_id`` is missing).
Score
    ``sample_score.score.value[<metric>]``: the metric named by ``score``, else the review's
    ``main_score_name`` (``accuracy`` for multiple choice), else the only metric. A score
    whose ``status`` is not usable (evalscope counts ``success``, ``fallback`` and
    ``degraded`` as usable; ``parse_error``, ``transport_error``, ``excluded``, ... leave the
    metric out of ``value``) and a metric listed in ``score.metadata.metric_errors`` (evalscope
    writes 0.0 for a metric that raised, e.g. BLEU without NLTK data) have no score (NaN) and
    are marked errored.
Model
    The ``reviews/<model>/`` folder name (evalscope's ``model_id``); review lines do not name
    the model.
Task, dataset
    The task is the file name; the benchmark (``TaskIdentity.dataset``) is the report of
    ``reports/<model>/`` whose name prefixes it (else a name of ``datasets`` in
    ``configs/task_config.yaml``).
Status
    ``complete``, unless the run directory shows otherwise: evalscope scores a subset into
    ``<benchmark>_<subset>.jsonl.rerun-<uuid>`` and renames it when the subset is done, and
    writes the benchmark's report when the benchmark is done, so a subset read from such a
    temporary file, or whose benchmark has no report, is ``unfinished``. Samples whose
    generation raised under ``ignore_errors=True`` get no review line at all; the report's
    ``execution_summary`` counts them (``errored``, and ``requested`` as the samples expected).
Content
    The prompt (the user messages before the model's first reply) and the target, as a short
    text with a SHA-256 digest of both, which paired items must agree on.

A path may be a reviews file, a ``reviews/<model>/`` folder, a run directory (it must hold
the reviews of one model) or a work directory holding exactly one run.

Layout: evalscope 1.14.1, ``evalscope/api/evaluator/cache.py`` (``ReviewResult``, review and
report paths, ``delete_review_cache``/``commit_review_reruns``), ``evalscope/api/metric/
scorer.py`` (``Score``, ``SampleScore``), ``evalscope/constants.py`` (``ScoreStatus``),
``evalscope/evaluator/execution_tracker.py``, ``evalscope/run.py``; checked against files the
tool wrote (``tests/data/io/real/evalscope``).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcnemar.errors import InputFileError, option
from mcnemar.io._run import (
    RunResults,
    iter_json_records,
    load_json_document,
    name_list,
    require_known,
    score_to_float,
    short_repr,
    wanted_tasks,
)
from mcnemar.io.identity import RunIdentity, TaskIdentity

__all__ = ["read_evalscope"]

#: The score statuses evalscope counts as usable (``ScoreStatus.is_usable``).
_USABLE = ("success", "fallback", "degraded")
#: How evalscope names a subset's reviews while it is still scoring them.
_RERUN = ".jsonl.rerun-"
_TAIL_CHARS = 40
#: Metrics named in a message (general_qa alone writes 13).
_SHOW_METRICS = 24


@dataclass
class _Layout:
    """The review files chosen from a path, and where they sit."""

    files: dict[str, Path]  # task -> file
    model: str | None = None
    run_dir: Path | None = None
    ignored: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def _task_of(f: Path) -> tuple[str, bool]:
    """The task a reviews file holds (its name without ``.jsonl``), and whether the file is
    the temporary one of a subset still being scored."""
    name = f.name
    if _RERUN in name:
        return name.split(_RERUN)[0], True
    return (name[: -len(".jsonl")] if name.endswith(".jsonl") else f.stem), False


def _model_files(folder: Path, layout: _Layout) -> None:
    """The reviews files of one ``reviews/<model>/`` folder (published, else temporary)."""
    for f in sorted(folder.glob("*.jsonl")):
        if f.is_file():
            layout.files[_task_of(f)[0]] = f
    for f in sorted(folder.glob(f"*{_RERUN}*")):
        task, _ = _task_of(f)
        if task in layout.files:
            layout.ignored.append(str(f))  # a re-scoring under way; the published file stands
        elif f.stat().st_size == 0:
            layout.skipped.append(str(f))  # a subset just started: nothing scored yet
        else:
            layout.files[task] = f
    layout.files = dict(sorted(layout.files.items()))


def _holds_reviews(folder: Path) -> bool:
    return any(folder.glob("*.jsonl")) or any(folder.glob(f"*{_RERUN}*"))


def _run_layout(run_dir: Path) -> _Layout:
    reviews = run_dir / "reviews"
    models = sorted(d.name for d in reviews.iterdir() if d.is_dir() and _holds_reviews(d))
    if not models:
        raise InputFileError("the run directory's reviews/ folder holds no reviews files "
                             "(reviews/<model>/<benchmark>_<subset>.jsonl)", path=str(run_dir))
    if len(models) > 1:
        raise InputFileError(
            f"the run directory holds the reviews of several models ({name_list(models)}); "
            f"give one model's folder, e.g. {reviews / models[0]}",
            path=str(run_dir),
        )
    layout = _Layout(files={}, model=models[0], run_dir=run_dir)
    _model_files(reviews / models[0], layout)
    return layout


def _locate(p: Path) -> _Layout:
    """The reviews files of a file, model folder, run directory or work directory."""
    if not p.is_dir():
        in_reviews = p.parent.parent.name == "reviews"
        return _Layout(files={_task_of(p)[0]: p}, model=p.parent.name if in_reviews else None,
                       run_dir=p.parent.parent.parent if in_reviews else None)
    if (p / "reviews").is_dir():
        return _run_layout(p)
    if p.name == "reviews":
        return _run_layout(p.parent)
    if _holds_reviews(p):
        in_reviews = p.parent.name == "reviews"
        layout = _Layout(files={}, model=p.name if in_reviews else None,
                         run_dir=p.parent.parent if in_reviews else None)
        _model_files(p, layout)
        if not layout.files:
            raise InputFileError("the folder holds no scored reviews yet (only empty "
                                 "files of subsets being scored)", path=str(p))
        return layout
    runs = sorted(d.name for d in p.iterdir() if d.is_dir() and (d / "reviews").is_dir())
    if len(runs) == 1:
        return _run_layout(p / runs[0])
    if runs:
        raise InputFileError(
            f"the folder holds several evalscope runs ({name_list(runs)}); give one run "
            f"directory, e.g. {p / runs[-1]}",
            path=str(p),
        )
    raise InputFileError(
        "no evalscope reviews here: expected a reviews file, a reviews/<model>/ folder, a run "
        "directory (<YYYYMMDD_HHMMSS>/ holding reviews/) or a work directory holding one run",
        path=str(p),
    )


def _config_datasets(run_dir: Path) -> list[str]:
    """The ``datasets`` list of ``configs/task_config.yaml`` (block style, as evalscope
    dumps it), without a YAML parser; empty when the file is not there."""
    config = run_dir / "configs" / "task_config.yaml"
    try:
        text = config.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    match = re.search(r"^datasets:[ \t]*\n((?:[ \t]*- .*\n?)+)", text, flags=re.M)
    if not match:
        return []
    return [line.strip()[2:].strip().strip("'\"") for line in match[1].splitlines()]


@dataclass
class _RunFacts:
    """What the run directory says about each task: benchmark, report, errored, expected."""

    in_run: bool
    reports: dict[str, Path]
    datasets: list[str]
    summaries: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def of(cls, layout: _Layout) -> _RunFacts:
        run_dir = layout.run_dir
        if run_dir is None:
            return cls(in_run=False, reports={}, datasets=[])
        in_run = (run_dir / "configs" / "task_config.yaml").is_file() or \
            (run_dir / "reports").is_dir()
        folder = run_dir / "reports" / (layout.model or "")
        reports = ({f.stem: f for f in sorted(folder.glob("*.json"))}
                   if layout.model and folder.is_dir() else {})
        return cls(in_run=in_run, reports=reports, datasets=_config_datasets(run_dir))

    def benchmark(self, task: str) -> str | None:
        """The benchmark whose name prefixes the task (longest first)."""
        for name in sorted({*self.reports, *self.datasets}, key=len, reverse=True):
            if task.startswith(name + "_"):
                return name
        return None

    def summary(self, benchmark: str) -> dict[str, Any]:
        """The ``execution_summary`` of a benchmark's report."""
        if benchmark not in self.summaries:
            f = self.reports[benchmark]
            report = load_json_document(f)
            summary = report.get("execution_summary") if isinstance(report, dict) else None
            if not isinstance(report, dict) or (summary is not None
                                                and not isinstance(summary, dict)):
                raise InputFileError("not an evalscope report (a JSON object with an "
                                     "'execution_summary')", path=str(f))
            self.summaries[benchmark] = summary or {}
        return self.summaries[benchmark]


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def read_evalscope(
    path: str | Path,
    *,
    score: str | None = None,
    task: str | Sequence[str] | None = None,
    name: str | None = None,
    progress: bool | None = None,
) -> RunResults:
    """Read evalscope reviews: one file, a model's folder, a run directory or a work directory.

    Each review line is one answer, keyed by its task (``<benchmark>_<subset>``, from the file
    name) and ``group_id``; ``generation_index`` is the sample index when the run repeated
    items. The score is one metric of ``sample_score.score.value``. Several files are several
    tasks, compared task by task.

    Parameters
    ----------
    path : str or Path
        A ``reviews/<model>/<benchmark>_<subset>.jsonl`` file, a ``reviews/<model>/`` folder,
        a run directory (``<YYYYMMDD_HHMMSS>/``, holding the reviews of one model) or a work
        directory holding exactly one run.
    score : str, optional
        The metric: a key of ``sample_score.score.value`` (e.g. ``accuracy``,
        ``Rouge-L-R``). Default, per file: the reviews' ``main_score_name``, else the only
        metric.
    task : str or list of str, optional
        The task(s) to read (``general_mcq_add``); default every task. For a single file, a
        check that it holds that task.
    name : str, optional
        Display name; default the model (the ``reviews/<model>/`` folder), else the file name.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp()) / "reviews" / "my-model"
    >>> d.mkdir(parents=True)
    >>> line = {"index": 0, "target": ["B"], "messages": [], "sample_score": {
    ...     "score": {"value": {"accuracy": 1.0}, "status": "success",
    ...               "main_score_name": "accuracy"},
    ...     "sample_id": 0, "group_id": 0, "generation_index": 0}}
    >>> _ = (d / "general_mcq_add.jsonl").write_text(json.dumps(line) + "\\n")
    >>> run = read_evalscope(d)
    >>> run.keys.tolist(), run.scores.tolist(), run.name, run.identity.scorer
    ([('general_mcq_add', 0)], [1.0], 'my-model', 'accuracy')
    """
    p = Path(path)
    wanted = wanted_tasks(task)
    layout = _locate(p)
    files = layout.files
    if wanted is not None:
        if len(files) == 1 and not p.is_dir():
            (recorded,) = files
            if recorded not in wanted:
                raise InputFileError(
                    f"the file holds task {recorded!r} (from its name), not "
                    f"{', '.join(map(repr, wanted))}",
                    path=str(p),
                )
        else:
            require_known(wanted, files, path=p, message=lambda unknown, known:
                          f"task(s) {unknown} not in these reviews; the tasks are {known}")
            files = {t: files[t] for t in wanted}
    facts = _RunFacts.of(layout)
    keys: list[tuple[str, Any]] = []
    scores: list[float] = []
    epochs: list[int] = []
    errored: list[bool] = []
    contents: list[str | None] = []
    tasks: list[TaskIdentity] = []
    unfinished: list[str] = []
    missing = 0
    expected: int | None = 0
    benchmarks: dict[str, str | None] = {}
    for label, f in files.items():
        start = len(keys)
        metric = _read_file(f, label, score, keys, scores, epochs, errored, contents, progress)
        bench = facts.benchmark(label)
        benchmarks[label] = bench
        tasks.append(TaskIdentity(name=label, scorer=metric, dataset=bench,
                                  records=len(keys) - start))
        if _task_of(f)[1]:
            unfinished.append(f"{label} was still being scored")
        elif facts.in_run and (bench is None or bench not in facts.reports):
            unfinished.append(f"no report for {bench or label}")
        if bench is not None and bench in facts.reports:
            subset = facts.summary(bench).get("subsets", {})
            counts = subset.get(label[len(bench) + 1:]) if isinstance(subset, dict) else None
            counts = counts if isinstance(counts, dict) else {}
            missing += _count(counts.get("errored")) or 0
            requested = _count(counts.get("requested"))
            expected = None if expected is None or requested is None else expected + requested
        else:
            expected = None
    status = "unfinished" if unfinished else "complete"
    has_content = any(c is not None for c in contents)
    identity = RunIdentity(
        harness="evalscope", model=layout.model, tasks=tuple(tasks), status=status,
        status_detail="; ".join(dict.fromkeys(unfinished)) or None, expected=expected,
        errored=missing + sum(errored), task_part=0,
        ignored=tuple(f for f in layout.ignored if _task_of(Path(f))[0] in files),
        content_name="input/target" if has_content else None,
    )
    metadata: dict[str, Any] = {"tasks": list(files), "files": [str(f) for f in files.values()],
                                "benchmarks": benchmarks}
    if layout.model is not None:
        metadata["model"] = layout.model
    if layout.run_dir is not None:
        metadata["run"] = str(layout.run_dir)
    if missing:
        metadata["errored_without_review"] = missing
    if layout.skipped:
        metadata["skipped"] = layout.skipped
    repeated = any(e != 0 for e in epochs)
    return RunResults.from_scores(
        keys, scores, epochs=epochs if repeated else None, errored=errored,
        contents=contents if has_content else None, name=name or layout.model or p.name,
        path=str(p), format="evalscope", key_names=("task", "group_id"),
        score_name=",".join(dict.fromkeys(t.scorer or "" for t in tasks)),
        sample_name="generation_index" if repeated else None, metadata=metadata,
        identity=identity,
    )


def _item_id(s: dict[str, Any], f: Path, line: int) -> Any:
    for fld in ("group_id", "sample_id"):
        value = s.get(fld)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise InputFileError(f"'sample_score.{fld}' must be an integer or text, found "
                                 f"{short_repr(value)}", path=str(f), line=line)
        return value
    raise InputFileError("the review has neither 'sample_score.group_id' nor "
                         "'sample_score.sample_id'; is this an evalscope reviews file?",
                         path=str(f), line=line)


def _generation(s: dict[str, Any], f: Path, line: int) -> int:
    value = s.get("generation_index")
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputFileError(f"'sample_score.generation_index' must be an integer, found "
                             f"{short_repr(value)}", path=str(f), line=line)
    return value


def _default_metric(sc: dict[str, Any], values: dict[str, Any], f: Path, line: int) -> str:
    main = sc.get("main_score_name")
    if isinstance(main, str) and main:
        return main
    if len(values) == 1:
        return next(iter(values))
    raise InputFileError(
        f"the reviews name no main score and have several metrics "
        f"({name_list(values, _SHOW_METRICS) or 'none'}); choose one with "
        f"{option('score', 'NAME')}",
        path=str(f), line=line,
    )


def _metric_failed(sc: dict[str, Any], metric: str) -> bool:
    """Whether ``metric`` belongs to a metric that raised (``metadata.metric_errors`` names
    metric families, e.g. ``BLEU`` for ``bleu-1`` ... ``bleu-4``)."""
    meta = sc.get("metadata")
    failed = meta.get("metric_errors") if isinstance(meta, dict) else None
    if not isinstance(failed, dict):
        return False
    low = metric.lower()
    return any(isinstance(k, str) and k and low.startswith(k.lower()) for k in failed)


def _content(record: dict[str, Any]) -> str | None:
    """The prompt (user messages before the first reply) and the target: a short text and a
    digest of both."""
    messages = record.get("messages")
    prompt: list[Any] = []
    if isinstance(messages, list):
        for m in messages:
            if not isinstance(m, dict):
                continue
            if m.get("role") == "assistant":
                break
            if m.get("role") == "user":
                prompt.append(m.get("content"))
    target = record.get("target")
    if not prompt and target is None:
        return None
    digest = hashlib.sha256(json.dumps([prompt, target], sort_keys=True, ensure_ascii=False,
                                       default=str).encode("utf-8")).hexdigest()
    last = prompt[-1] if prompt else ""
    if isinstance(last, list):  # content parts: keep their text
        last = " ".join(str(c.get("text", "")) for c in last if isinstance(c, dict))
    tail = " ".join(str(last).split())[-_TAIL_CHARS:]
    shown = target[0] if isinstance(target, list) and len(target) == 1 else target
    return f"input ...{tail!r}, target {shown!r} (sha256 {digest[:16]})"


def _read_file(
    f: Path, task: str, score: str | None, keys: list[tuple[str, Any]], scores: list[float],
    epochs: list[int], errored: list[bool], contents: list[str | None],
    progress: bool | None,
) -> str | None:
    """Append one reviews file's records; return the metric read (None when no review has a
    usable score or names its metric)."""
    metric = score
    count = 0
    nan = math.nan
    for number, record in iter_json_records(f, what="one evalscope review per line",
                                            progress=progress):
        s = record.get("sample_score")
        sc = s.get("score") if isinstance(s, dict) else None
        values = sc.get("value") if isinstance(sc, dict) else None
        if not isinstance(s, dict) or not isinstance(sc, dict) or not isinstance(values, dict):
            raise InputFileError(
                "the review has no 'sample_score.score.value' object; is this an evalscope "
                "reviews file (reviews/<model>/<benchmark>_<subset>.jsonl)?",
                path=str(f), line=number,
            )
        status = sc.get("status", "success")
        if not isinstance(status, str):
            raise InputFileError(f"'sample_score.score.status' must be text, found "
                                 f"{short_repr(status)}", path=str(f), line=number)
        usable = status in _USABLE
        if metric is None and (usable or sc.get("main_score_name")):
            metric = _default_metric(sc, values, f, number)
        value: float | None = None
        failed = not usable
        if metric is not None and metric in values:
            raw = values[metric]
            try:
                value = score_to_float(raw)
            except ValueError:
                raise InputFileError(
                    f"metric {metric!r} is {short_repr(raw)}, not a number",
                    path=str(f), line=number,
                ) from None
            if _metric_failed(sc, metric):
                value, failed = None, True
        elif usable:
            assert metric is not None
            raise InputFileError(
                f"metric {metric!r} not in this review (its metrics: "
                f"{name_list(values, _SHOW_METRICS) or 'none'}); choose one with "
                f"{option('score', 'NAME')}",
                path=str(f), line=number,
            )
        keys.append((task, _item_id(s, f, number)))
        epochs.append(_generation(s, f, number))
        scores.append(nan if value is None or not usable else value)
        errored.append(failed)
        contents.append(_content(record))
        count += 1
    if not count:
        raise InputFileError("no records: the reviews file is empty", path=str(f))
    return metric
