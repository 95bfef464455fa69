"""``read_run``: one entry point over every reader, with format detection."""

from __future__ import annotations

import inspect as _pyinspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcnemar.errors import McNemarError
from mcnemar.io._run import RunResults, check_path
from mcnemar.io.detect import FORMATS, detect_format

__all__ = ["read_run", "reader_for"]


def reader_for(format: str) -> Callable[..., RunResults]:
    """The reader function of a format name (see :data:`~mcnemar.io.detect.FORMATS`)."""
    if format in ("csv", "jsonl", "parquet"):
        from mcnemar.io.generic import read_generic

        def generic(path: str | Path, **options: Any) -> RunResults:
            return read_generic(path, format=format, **options)

        generic.__signature__ = _pyinspect.signature(read_generic)  # type: ignore[attr-defined]
        return generic
    if format == "lm-eval":
        from mcnemar.io.lmeval import read_lmeval

        return read_lmeval
    if format == "inspect":
        from mcnemar.io.inspect_log import read_inspect

        return read_inspect
    if format == "openai-evals":
        from mcnemar.io.openai_evals import read_openai_evals

        return read_openai_evals
    if format == "helm":
        from mcnemar.io.helm import read_helm

        return read_helm
    raise McNemarError(f"format={format!r} is not known; use 'auto' or one of {', '.join(FORMATS)}")


def read_run(path: str | Path, *, format: str = "auto", **options: Any) -> RunResults:
    """Read one run's per-item results from a file, detecting its format from the content.

    Parameters
    ----------
    path : str or Path
        A result file (or a directory: lm-eval output, HELM run, Parquet dataset).
    format : str, default "auto"
        ``"auto"`` or one of ``csv``, ``jsonl``, ``parquet``, ``lm-eval``, ``inspect``,
        ``openai-evals``, ``helm``.
    **options
        Passed to the format's reader. Every reader takes ``score`` (column, metric, scorer or
        stat), ``name`` and ``progress``; see :func:`~mcnemar.io.generic.read_generic`,
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
    """
    p = check_path(path)
    fmt = detect_format(p) if format == "auto" else format
    reader = reader_for(fmt)
    given = {k: v for k, v in options.items() if v is not None}
    accepted = _pyinspect.signature(reader).parameters
    unknown = sorted(k for k in given if k not in accepted or k in ("path", "format"))
    if unknown:
        valid = sorted(k for k in accepted if k not in ("path", "format"))
        raise McNemarError(
            f"option(s) {', '.join(unknown)} do not apply to {fmt} files ({p}); "
            f"valid options: {', '.join(valid)}"
        )
    return reader(p, **given)
