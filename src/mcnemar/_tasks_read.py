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

__all__ = ["read_suite", "read_suite_pair", "splits_into_tasks"]


def read_suite(path: str | Path, *, format: str = "auto", model: str | None = None,
               **options: Any) -> Any:
    """Read a run of a whole suite: one RunResults, or one per task.

    * a file, an lm-eval output directory (several tasks in one run) or a HELM run directory:
      :func:`mcnemar.io.read_run`;
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
    from mcnemar.io import read_run
    from mcnemar.io.detect import detect_format

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


def splits_into_tasks(path: str | Path) -> bool:
    """True for a directory that :func:`read_suite` reads as one run per task: a directory of
    Inspect logs, or a HELM suite (run sub-directories, no ``per_instance_stats.json`` of its
    own)."""
    from mcnemar.io.detect import detect_format

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


def _is_inspect(path: Path, detect: Any) -> bool:
    try:
        return bool(detect(path) == "inspect")
    except McNemarError:
        return False


