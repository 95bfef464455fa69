"""Recognise a result file's format from its content (the extension is only a hint).

Every format of the reader registry (:mod:`mcnemar.io._registry`) is asked how strongly it
claims the file (:mod:`mcnemar.io._sniff`); the strongest claim wins, and equal claims go to
the format of higher priority. The built-in formats:

==============  ==================================================================
format          recognised by
==============  ==================================================================
inspect         a ZIP archive (``.eval``), or a JSON object with ``eval`` and ``samples``
parquet         the ``PAR1`` magic bytes, or a directory of ``*.parquet`` files
helm            a JSON list of objects with ``instance_id`` and ``stats``
openai-evals    JSONL whose first line holds ``spec``, or events with ``type`` and ``sample_id``
lm-eval         JSONL records with ``doc_id`` and ``filter``/``metrics``/``resps``
jsonl           any other JSONL of objects
csv             anything else that is text (delimiter sniffed; ``.tsv`` is tab-separated)
==============  ==================================================================
"""

from __future__ import annotations

from pathlib import Path

from mcnemar.errors import InputFileError, option
from mcnemar.io._registry import formats, specs
from mcnemar.io._sniff import Probe

__all__ = ["FORMATS", "detect_format"]

#: Every format name accepted by ``read_run(format=...)``: the registry's, when asked.
FORMATS: tuple[str, ...]


def __getattr__(name: str) -> tuple[str, ...]:
    # FORMATS is read from the registry when asked, so that it includes formats registered
    # after this module was imported.
    if name == "FORMATS":
        return formats()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def detect_format(path: str | Path) -> str:
    """Return the format name of a result file or directory.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.jsonl"
    >>> _ = p.write_text('{"doc_id": 0, "filter": "none", "acc": 1.0}\\n')
    >>> detect_format(p)
    'lm-eval'
    """
    from mcnemar.io._run import check_path

    p = check_path(path)  # a pipe is read once, into a file every later look reads
    probe = Probe(p)
    best: tuple[int, int] | None = None
    found = None
    try:
        for reader in specs():
            claim = reader.claim(probe)
            if claim is not None and (best is None or (claim, reader.priority) > best):
                best, found = (claim, reader.priority), reader.name
    except OSError as exc:  # the disk failed, or the file cannot be read at all
        raise InputFileError(f"cannot read the file ({exc.strerror or exc})",
                             path=str(p)) from None
    if found is not None:
        return found
    raise _unrecognised(probe)


def _unrecognised(probe: Probe) -> InputFileError:
    p = str(probe.path)
    if probe.is_dir:
        held = "; ".join(s.directory for s in specs() if s.directory)
        return InputFileError(
            f"cannot tell the format of this directory (it holds none of what a directory of "
            f"results holds: {held})",
            path=p,
        )
    if not probe.text.strip():
        return InputFileError("empty file", path=p)
    if probe.text.startswith(b"[") and probe.text[1:].lstrip()[:1] in (
            b"{", b"[", b"]", b'"', b"-", *(str(d).encode() for d in range(10))):
        return InputFileError(
            "a JSON list that is not HELM per_instance_stats.json; for generic results write "
            f"one JSON object per line (JSONL) or pass {option('format', 'NAME')}",
            path=p,
        )
    if probe.text.startswith(b"{"):
        return InputFileError(
            "cannot tell the format: the file starts like JSON but its first line is not a "
            f"complete object (truncated?); pass {option('format', 'NAME')} to choose one",
            line=1, path=p,
        )
    known = ", ".join(formats())
    if b"\x00" in probe.head:
        return InputFileError(f"binary file of unknown format (the formats read are {known}); "
                              f"pass {option('format', 'NAME')} to choose one", path=p)
    return InputFileError(
        "cannot tell the format (not a table of per-item results: CSV needs a header of at "
        "least two columns, an id and a score, and rows as wide; nor a file of the other "
        f"formats read: {known}); pass {option('format', 'NAME')} to choose one", path=p)
