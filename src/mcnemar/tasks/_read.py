"""Reading the runs of a suite: one RunResults, or one per task (:mod:`mcnemar.tasks`).

An lm-eval output directory is one run holding several tasks (:func:`mcnemar.io.read_run`
reads it); a directory of Inspect logs holds one log per task, and a HELM suite folder one
run directory per scenario and model: :func:`read_suite` reads those as one run per task.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mcnemar.errors import InputFileError, McNemarError, option

__all__ = ["combine_tasks", "read_suite", "read_suite_pair", "splits_into_tasks"]


def read_suite(path: Any, *, format: str = "auto", model: str | None = None,
               **options: Any) -> Any:
    """Read a run of a whole suite: one RunResults, or one per task.

    * a file, an lm-eval output directory (several tasks in one run) or a HELM run directory:
      :func:`mcnemar.io.read_run`;
    * an object in memory (an Inspect ``EvalLog``, lm-eval's ``simple_evaluate`` results):
      :func:`mcnemar.io.read_run`; a list of them (one ``EvalLog`` per task): one run each,
      as a directory of their logs is read (a RunResults in the list is kept as it is);
    * a directory of Inspect logs (``*.eval``, or ``*.json`` logs): one run per log;
    * a HELM suite directory (``runs/<suite>/``, one sub-directory per run): one run per
      scenario of ``model`` (needed when the suite holds several models).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.csv"
    >>> _ = p.write_text("id,correct\\nq1,true\\n")
    >>> read_suite(p).records
    1
    """
    from mcnemar.io import RunResults, read_run
    from mcnemar.io._objects import is_path
    from mcnemar.io.detect import detect_format

    if isinstance(path, list | tuple):
        return tuple(x if isinstance(x, RunResults) else read_run(x, format=format, **options)
                     for x in path)
    if not is_path(path):
        return read_run(path, format=format, **options)
    p = Path(path)
    if not p.is_dir():
        return read_run(p, format=format, **options)
    helm_runs = sorted(x.parent for x in p.glob("*/per_instance_stats.json"))
    logs = sorted(x for x in p.iterdir() if x.is_file() and x.suffix in (".eval", ".json"))
    if helm_runs and not (p / "per_instance_stats.json").is_file() and \
            format in ("auto", "helm"):
        runs = [read_run(r, format="helm", **options) for r in helm_runs]
        models = list(dict.fromkeys(r.identity.model or r.name for r in runs))
        if model is None and len(models) > 1:
            raise InputFileError(
                f"the suite holds runs of {len(models)} models ({', '.join(models)}); choose "
                f"one with {option('model', 'NAME')}", path=str(p))
        if model is not None:
            runs = [r for r in runs if model in (r.identity.model, r.name)]
            if not runs:
                raise InputFileError(f"no run of model {model!r} in the suite; its models are "
                                     f"{', '.join(models)}", path=str(p))
        return tuple(runs)
    inspect_logs = [x for x in logs if format == "inspect" or
                    (format == "auto" and _is_inspect(x, detect_format))]
    if inspect_logs and format in ("auto", "inspect"):
        return tuple(read_run(x, format="inspect", **options) for x in inspect_logs)
    return read_run(p, format=format, **options)


def splits_into_tasks(path: Any) -> bool:
    """True for a directory that :func:`read_suite` reads as one run per task: a directory of
    Inspect logs, or a HELM suite (run sub-directories, no ``per_instance_stats.json`` of its
    own). False for anything that is not a path (objects in memory)."""
    from mcnemar.io._objects import is_path
    from mcnemar.io.detect import detect_format

    if not is_path(path):
        return False
    p = Path(path)
    if not p.is_dir() or (p / "per_instance_stats.json").is_file():
        return False
    if next(p.glob("*/per_instance_stats.json"), None) is not None:
        return True
    return any(x.is_file() and x.suffix in (".eval", ".json") and _is_inspect(x, detect_format)
               for x in p.iterdir())


def read_suite_pair(
    paths: Sequence[str | Path],
    *,
    runs: Sequence[str] | None = None,
    format: str = "auto",
    options_a: dict[str, Any] | None = None,
    options_b: dict[str, Any] | None = None,
    **reader_options: Any,
) -> tuple[Any, Any] | None:
    """Read both sides of a per-task comparison when the paths are suites of one run per task.

    ``paths`` are two directories of which at least one holds one run per task (a directory
    of Inspect logs, a HELM suite of one model; see :func:`read_suite`), or one HELM suite
    directory holding both models with ``runs=(model_a, model_b)``. Returns ``None`` for
    anything else (files, lm-eval directories, one long file with a run column), which
    :func:`mcnemar.pipeline.read_runs` reads.
    """
    given = {k: v for k, v in reader_options.items() if v is not None}
    paths = list(paths)
    sides = [{**given, **(extra or {})} for extra in (options_a, options_b)]
    if len(paths) == 1 and runs is not None and splits_into_tasks(paths[0]):
        if len(runs) != 2:
            raise McNemarError(f"{option('runs', 'A,B')} names the two models to compare; got "
                               f"{len(runs)}")
        return (read_suite(paths[0], format=format, model=runs[0], **sides[0]),
                read_suite(paths[0], format=format, model=runs[1], **sides[1]))
    if len(paths) == 2 and runs is None and any(splits_into_tasks(p) for p in paths):
        return (read_suite(paths[0], format=format, **sides[0]),
                read_suite(paths[1], format=format, **sides[1]))
    return None


#: Status of a combined run: the least finished of its tasks' statuses.
_STATUS_ORDER = ("unfinished", "cancelled", "error", "complete")


def combine_tasks(side: Any, path: str | Path) -> Any:
    """One run holding every task of a suite read as one run per task (:func:`read_suite`),
    as an lm-eval directory of several tasks is one run: each item keyed by ``(task, key)``,
    the task part named in the identity, so that the two sides are paired within each task
    and the pooled table is the sum of the per-task tables. A side that is one run already
    is returned as it is.

    Examples
    --------
    >>> from mcnemar.io import RunResults, RunIdentity, TaskIdentity
    >>> def log(task, keys, scores):
    ...     ident = RunIdentity(harness="inspect", model="m", tasks=(TaskIdentity(name=task),))
    ...     return RunResults.from_scores(keys, scores, name="m", identity=ident)
    >>> run = combine_tasks((log("add", [1, 2], [1, 0]), log("mul", [1], [1])), "logs/")
    >>> run.keys.tolist(), run.identity.task_names(), run.identity.task_part
    ([('add', 1), ('add', 2), ('mul', 1)], ['add', 'mul'], 0)
    """
    if not isinstance(side, tuple):
        return side
    import numpy as np

    from mcnemar.io import RunResults
    from mcnemar.io.identity import RunIdentity

    runs = [run.load() for run in side]
    labels = [run.identity.task or Path(run.path).stem for run in runs]
    if len(set(labels)) < len(labels):
        repeated = sorted({t for t in labels if labels.count(t) > 1})
        raise InputFileError(f"the suite holds task(s) {', '.join(map(repr, repeated))} more "
                             "than once; keep one log per task", path=str(path))

    def column(name: str) -> Any:
        values = [getattr(run, name) for run in runs]
        if all(v is None for v in values):
            return None
        if any(v is None for v in values):
            raise InputFileError(f"the suite's logs do not all record {name}", path=str(path))
        return np.concatenate(values)

    keys = [(label, *(k if isinstance(k, tuple) else (k,)))
            for label, run in zip(labels, runs, strict=True) for k in run.keys.tolist()]
    identities = [run.identity for run in runs]
    statuses = [i.status for i in identities if i.status is not None]
    models = list(dict.fromkeys(i.model for i in identities if i.model is not None))
    first = runs[0]
    identity = RunIdentity(
        harness=identities[0].harness, model=models[0] if len(models) == 1 else None,
        tasks=tuple(t for i in identities for t in i.tasks),
        status=min(statuses, key=_STATUS_ORDER.index) if statuses else None,
        errored=sum(i.errored for i in identities),
        ignored=tuple(x for i in identities for x in i.ignored), task_part=0,
        content_name=identities[0].content_name,
    )
    return RunResults.from_scores(
        keys, column("scores"), epochs=column("epochs"), clusters=column("clusters"),
        errored=column("errored"), contents=column("contents"), name=first.name,
        path=str(path), format=first.format, key_names=("task", *first.key_names),
        score_name=first.score_name, sample_name=first.sample_name,
        cluster_name=first.cluster_name, metadata={"tasks": labels}, identity=identity,
    )


def _is_inspect(path: Path, detect: Any) -> bool:
    try:
        return bool(detect(path) == "inspect")
    except McNemarError:
        return False


