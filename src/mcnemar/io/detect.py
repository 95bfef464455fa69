"""Recognise a result file's format from its content (the extension is only a hint).

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

import json
from pathlib import Path

from mcnemar.errors import InputFileError, option

__all__ = ["FORMATS", "detect_format"]

#: Every format name accepted by ``read_run(format=...)``.
FORMATS = ("csv", "jsonl", "parquet", "lm-eval", "inspect", "openai-evals", "helm")


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
    p = Path(path)
    if not p.exists():
        raise InputFileError("no such file or directory", path=str(p))
    if p.is_dir():
        if (p / "per_instance_stats.json").is_file():
            return "helm"
        if next(p.rglob("samples_*.jsonl"), None) is not None:
            return "lm-eval"
        if next(p.rglob("*.parquet"), None) is not None:
            return "parquet"
        raise InputFileError(
            "cannot tell the format of this directory (no per_instance_stats.json, "
            "samples_*.jsonl or *.parquet inside)",
            path=str(p),
        )
    with p.open("rb") as handle:
        head = handle.read(1 << 16)
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        return "inspect"
    if head.startswith(b"PAR1"):
        return "parquet"
    if p.name == "per_instance_stats.json":
        return "helm"
    if p.suffix.lower() == ".eval":
        return "inspect"
    if not head.strip():
        raise InputFileError("empty file", path=str(p))
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"["):
        if b'"instance_id"' in head and b'"stats"' in head:
            return "helm"
        raise InputFileError(
            "a JSON list that is not HELM per_instance_stats.json; for generic results write "
            f"one JSON object per line (JSONL) or pass {option('format', 'NAME')}",
            path=str(p),
        )
    if text.startswith(b"{"):
        first = text.split(b"\n", 1)[0]
        try:
            obj = json.loads(first)
        except (json.JSONDecodeError, UnicodeDecodeError):
            obj = None
        if isinstance(obj, dict):
            if "spec" in obj or ("type" in obj and ("sample_id" in obj or "event_id" in obj)):
                return "openai-evals"
            if "doc_id" in obj and any(k in obj for k in ("filter", "metrics", "resps", "doc")):
                return "lm-eval"
            if "eval" in obj and ("samples" in obj or "status" in obj):
                return "inspect"
            return "jsonl"
        if b'"eval"' in head and (b'"status"' in head or b'"samples"' in head):
            return "inspect"
        raise InputFileError(
            "cannot tell the format: the file starts like JSON but its first line is not a "
            f"complete object (truncated?); pass {option('format', 'NAME')} to choose one",
            line=1, path=str(p),
        )
    if b"\x00" in head:
        raise InputFileError(f"binary file of unknown format; pass {option('format', 'NAME')} "
                             "to choose one",
                             path=str(p))
    return "csv"
