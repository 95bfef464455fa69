"""``read_run``: one entry point over every reader, with format detection.

A path is read by the format its content shows (or the one named); an object in memory (an
Inspect ``EvalLog``, lm-eval's ``simple_evaluate`` results, a data frame) by the format whose
:class:`~mcnemar.io._registry.ObjectReader` claims it, through the same code as its files.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from mcnemar.errors import InputFileError, McNemarError, option
from mcnemar.io import _objects
from mcnemar.io._registry import ReaderSpec, object_spec, spec
from mcnemar.io._run import RunResults, check_path, missing_dependency
from mcnemar.io.detect import detect_format

__all__ = ["format_of", "read_pair", "read_run", "reader_for"]


def reader_for(format: str) -> Callable[..., RunResults]:
    """The reader function of a format name (see :mod:`mcnemar.io._registry`).

    The reader's module is imported now; the generic formats' reader comes with its
    ``format`` bound.

    Examples
    --------
    >>> reader_for("helm").__name__
    'read_helm'
    """
    return spec(format).reader()


def read_run(path: Any, *, format: str = "auto", **options: Any) -> RunResults:
    """Read one run's per-item results from a file, detecting its format from the content.

    Parameters
    ----------
    path : str, Path or an object in memory
        A result file (or a directory: lm-eval output, HELM run, Parquet dataset); or the
        harness's own object, read as the file it would be written to: an Inspect ``EvalLog``
        (``inspect_ai.log.read_eval_log``, or the log ``eval()`` returns), lm-eval's
        ``simple_evaluate(..., log_samples=True)`` result dict, a pandas, polars or pyarrow
        data frame of per-item results (an id and a score column, as in a CSV file). Objects
        are already built, so no read budget applies to them.
    format : str, default "auto"
        ``"auto"`` or a registered format (:data:`~mcnemar.io.FORMATS`): ``csv``, ``jsonl``,
        ``parquet``, ``lm-eval``, ``inspect``, ``openai-evals``, ``helm``.
    **options
        Passed to the format's reader. Every reader takes ``score`` (column, metric, scorer or
        stat), ``name`` and ``progress``. ``limits`` (a
        :class:`~mcnemar.io._archive.ReadLimits`) reaches the readers of archives and is
        ignored by the others; ``task`` selects tasks of an lm-eval directory and, for a log
        of one task, checks that it is that task; see :func:`~mcnemar.io.generic.read_generic`,
        :func:`~mcnemar.io.lmeval.read_lmeval`, :func:`~mcnemar.io.inspect_log.read_inspect`,
        :func:`~mcnemar.io.openai_evals.read_openai_evals`, :func:`~mcnemar.io.helm.read_helm`.
        Options that are ``None`` are ignored, so a caller can pass every option it has.

    Returns
    -------
    RunResults
        Keys and scores per record; never statistics.

    Raises
    ------
    InputFileError
        The file is missing, malformed (naming the line), or lacks the chosen fields.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.csv"
    >>> _ = p.write_text("id,correct\\nq1,true\\nq2,false\\n")
    >>> run = read_run(p)
    >>> run.format, run.scores.tolist()
    ('csv', [1.0, 0.0])

    An object in memory, here the shape of lm-eval's ``simple_evaluate`` result:

    >>> out = {"config": {"model": "hf", "model_args": "pretrained=org/m"},
    ...        "samples": {"arc_easy": [{"doc_id": 0, "metrics": ["acc"], "acc": 0.0}]}}
    >>> run = read_run(out)
    >>> run.format, run.name, run.path, run.keys.tolist()
    ('lm-eval', 'org/m', '<lm-eval results>', [('arc_easy', 0, 'none')])
    """
    from mcnemar.io._archive import DEFAULT_LIMITS
    from mcnemar.io._budget import parse_budget

    if not _objects.is_path(path):
        return _read_object(path, format, options)
    p = check_path(path)
    fmt = detect_format(p) if format == "auto" else format
    reader_spec = spec(fmt)
    given = {k: v for k, v in options.items() if v is not None}
    budget = (given.get("limits") or DEFAULT_LIMITS).max_parsed_bytes
    # A read budget concerns only the readers that inflate archives; other formats ignore it.
    if "limits" in given and not reader_spec.limits:
        del given["limits"]
    # A task choice is an option of the lm-eval reader (a directory holds several tasks);
    # for logs of one task it is checked against the task the log records.
    wanted_task = given.pop("task") if "task" in given and not reader_spec.accepts("task") \
        else None
    unknown = sorted(k for k in given if not reader_spec.accepts(k))
    if unknown:
        valid = sorted(reader_spec.options + (("limits",) if reader_spec.limits else ()))
        raise McNemarError(
            f"option(s) {', '.join(option(k) for k in unknown)} do not apply to {fmt} files "
            f"({p}); valid options: {', '.join(option(k) for k in valid)}"
        )
    try:
        # What parsing the file builds is charged against the read's budget (a budget already
        # open, the web request's, is kept: its two files share it).
        with parse_budget(budget, reuse=True):
            run = reader_spec.reader()(p, **given)
    except ImportError as exc:
        raise missing_dependency(exc, what=f"reading {fmt} files") from None
    if str(p) != str(path) and run.path == str(p):
        run = replace(run, path=str(path))  # a pipe's copy: the run is named as it was given
    if wanted_task is not None:
        _check_task(run, wanted_task)
    return run


def format_of(source: Any, format: str = "auto") -> str:
    """The format that reads ``source``: ``format`` itself unless ``"auto"``; else detected
    from a file's content, or the format that claims an object in memory.

    Examples
    --------
    >>> format_of({"samples": {"arc_easy": []}}), format_of("x.csv", "csv")
    ('lm-eval', 'csv')
    """
    if _objects.is_path(source):
        return detect_format(source) if format == "auto" else format
    return _object_format(source, format).name


def _object_format(obj: Any, format: str) -> ReaderSpec:
    """The format that reads ``obj`` (the one named, which must read such objects)."""
    from mcnemar.io._registry import specs

    found = object_spec(obj) if format == "auto" else spec(format)
    if found is not None and found.accepts_object(obj):
        return found
    what = _objects.describe(obj)
    if found is not None:
        raise McNemarError(f"{option('format', repr(format))} does not read a {what} in memory"
                           + (f"; it reads {found.objects.what}" if found.objects else ""))
    hint = ""
    if isinstance(obj, list | tuple):
        hint = ("; a list holds several runs: read each with read_run, or compare them task "
                "by task (by_task=True), one run per task")
    readers = "; ".join(dict.fromkeys(s.objects.what for s in specs() if s.objects))
    raise McNemarError(f"a run is read from a file (a path) or from an object in memory that a "
                       f"reader takes ({readers}); got a {what}{hint}")


def _read_object(obj: Any, format: str, options: dict[str, Any]) -> RunResults:
    """:func:`read_run` of an object in memory: its format's object reader, the same options
    and task check as for its files, and no parse budget (the object is built already)."""
    reader_spec = _object_format(obj, format)
    given = {k: v for k, v in options.items() if v is not None and k != "limits"}
    wanted_task = given.pop("task") if "task" in given and not reader_spec.accepts("task") \
        else None
    unknown = sorted(k for k in given if not reader_spec.accepts(k))
    if unknown:
        raise McNemarError(
            f"option(s) {', '.join(option(k) for k in unknown)} do not apply to "
            f"{reader_spec.objects.what if reader_spec.objects else reader_spec.name}; valid "
            f"options: {', '.join(option(k) for k in sorted(reader_spec.options))}"
        )
    try:
        run = reader_spec.object_reader()(obj, **given)
    except ImportError as exc:
        raise missing_dependency(exc, what=f"reading a {_objects.describe(obj)}") from None
    if wanted_task is not None:
        _check_task(run, wanted_task)
    return run


def _check_task(run: RunResults, wanted: str | Sequence[str]) -> None:
    names = [wanted] if isinstance(wanted, str) else list(wanted)
    recorded = run.identity.task
    if not run.identity.tasks:
        raise McNemarError(
            f"{option('task')} applies to eval-harness logs; {run.path} is a "
            f"{run.format} file, which records no task"
        )
    if recorded is None:
        raise InputFileError(f"the log does not record its task, so it cannot be checked "
                             f"against {', '.join(map(repr, names))}", path=run.path)
    if recorded not in names:
        raise InputFileError(f"the log holds task {recorded!r}, not "
                             f"{', '.join(map(repr, names))}", path=run.path)


def read_pair(path_a: Any, path_b: Any, *, format: str = "auto",
              options_a: dict[str, Any] | None = None,
              options_b: dict[str, Any] | None = None) -> tuple[RunResults, RunResults]:
    """Read the two runs of a comparison, choosing the same scorer for both by default.

    Each file (or object in memory) is read with :func:`read_run` and its options; a
    :class:`~mcnemar.io.RunResults` already read is kept as it is. When a log needs a choice of
    scorer or metric (it has several) that was not given, and the other run was read with a
    scorer this log also has, that scorer is chosen: the two sides are then scored the same
    way, which is what alignment requires anyway (see
    :func:`~mcnemar.io.identity.check_identities`). A ``"format"`` in ``options_a`` or
    ``options_b`` reads that side in its own format.

    Examples
    --------
    >>> import tempfile, pathlib, json
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> def log(name, scorers):
    ...     sample = {"id": 1, "epoch": 1, "scores": {s: {"value": "C"} for s in scorers}}
    ...     (d / name).write_text(json.dumps({"eval": {"task": "t"}, "samples": [sample]}))
    ...     return d / name
    >>> a, b = read_pair(log("a.json", ["includes"]), log("b.json", ["match", "includes"]))
    >>> a.score_name, b.score_name
    ('includes', 'includes')
    """
    opts = [dict(options_a or {}), dict(options_b or {})]
    # A side's own "format" (e.g. a CSV against an Inspect log) overrides the shared one.
    formats = [str(o.pop("format", None) or format) for o in opts]
    paths = [path_a, path_b]
    runs: list[RunResults | None] = [None, None]
    pending: list[tuple[int, McNemarError]] = []
    for i in (0, 1):
        if isinstance(paths[i], RunResults):
            runs[i] = paths[i]
            continue
        try:
            runs[i] = read_run(paths[i], format=formats[i], **opts[i])
        except InputFileError as exc:
            if exc.argument != "score" or opts[i].get("score") is not None:
                raise
            pending.append((i, exc))
    if len(pending) == 2:
        raise pending[0][1]
    for i, first in pending:
        other = runs[1 - i]
        scorer = other.identity.scorer if other is not None else None
        if scorer is None:
            raise first
        try:
            runs[i] = read_run(paths[i], format=formats[i], **{**opts[i], "score": scorer})
        except McNemarError:
            raise first from None
    assert runs[0] is not None and runs[1] is not None
    return runs[0], runs[1]
