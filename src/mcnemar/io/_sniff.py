"""What a format's sniffer sees of a file, how strongly it may claim it, and the built-in sniffers.

A sniffer takes a :class:`Probe` (the path, whether it is a directory, the first 64 KiB of a
file, its first JSON line parsed once) and returns how strongly it claims the file, or
``None``. :func:`~mcnemar.io.detect.detect_format` asks every registered format and takes the
strongest claim; equal claims go to the format of higher ``priority`` in the registry.

=============  =================================================================
claim          meaning
=============  =================================================================
``MAGIC``      a binary signature at the start of the file (``PK``, ``PAR1``)
``NAME``       a file name only this format uses (``per_instance_stats.json``)
``EXTENSION``  the file's extension (``.eval``)
``CONTENT``    the structure of the text (keys of the first JSON object, ...)
``GENERIC``    any JSON Lines of objects
``FALLBACK``   any other text (CSV)
=============  =================================================================

Nothing here imports a reader: detection stays cheap, and the readers' optional dependencies
are imported only by the format chosen.
"""

from __future__ import annotations

import csv
import json
from functools import cached_property
from pathlib import Path
from typing import Any

__all__ = ["CONTENT", "EXTENSION", "FALLBACK", "GENERIC", "MAGIC", "MAGIC_LAYOUT", "NAME",
           "Probe", "csv_delimiter"]

#: Claims stronger than any built-in one: a sniffer that recognises a more specific layout
#: inside a generic container (lighteval's columns inside a Parquet file) claims one of these.
MAGIC_LAYOUT = 65

MAGIC = 60
NAME = 50
EXTENSION = 40
CONTENT = 30
GENERIC = 20
FALLBACK = 10

#: How much of a file the sniffers see.
HEAD_BYTES = 1 << 16


class Probe:
    """A file or directory as the sniffers see it; each fact is computed once, when asked.

    Attributes
    ----------
    path : Path
        The file or directory.
    is_dir : bool
        True for a directory.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.is_dir = path.is_dir()
        self._found: dict[str, bool] = {}

    @cached_property
    def head(self) -> bytes:
        """The first 64 KiB of the file (``b""`` for a directory)."""
        if self.is_dir:
            return b""
        with self.path.open("rb") as handle:
            return handle.read(HEAD_BYTES)

    @cached_property
    def tail(self) -> bytes:
        """The last 64 KiB of the file (``b""`` for a directory): where Parquet keeps its
        schema, so a format can be told by its column names without a Parquet library."""
        if self.is_dir:
            return b""
        with self.path.open("rb") as handle:
            size = handle.seek(0, 2)
            handle.seek(max(0, size - HEAD_BYTES))
            return handle.read(HEAD_BYTES)

    @cached_property
    def text(self) -> bytes:
        """The head without a byte-order mark and leading white space."""
        return self.head.lstrip(b"\xef\xbb\xbf \t\r\n")

    @cached_property
    def first_object(self) -> dict[str, Any] | None:
        """The first line parsed as a JSON object, or ``None`` when it is not one."""
        if not self.text.startswith(b"{"):
            return None
        try:
            obj = json.loads(self.text.split(b"\n", 1)[0])
        except (json.JSONDecodeError, UnicodeDecodeError):
            return None
        return obj if isinstance(obj, dict) else None

    @property
    def suffix(self) -> str:
        """The extension, lower case (``".eval"``)."""
        return self.path.suffix.lower()

    def holds(self, pattern: str) -> bool:
        """For a directory: whether a file matching ``pattern`` is anywhere inside it."""
        if not self.is_dir:
            return False
        if pattern not in self._found:
            self._found[pattern] = next(self.path.rglob(pattern), None) is not None
        return self._found[pattern]


def csv_delimiter(path: Path, head: str) -> str:
    """The delimiter of a CSV file, the same for every reader of CSV.

    A tab for ``.tsv`` and ``.tab`` files; otherwise the one of ``,`` ``;`` tab ``|`` that
    :class:`csv.Sniffer` finds in ``head`` (the file's first few kilobytes), else a comma.

    Examples
    --------
    >>> csv_delimiter(Path("runs.csv"), "id;score\\nq1;1\\nq2;0\\n")
    ';'
    >>> csv_delimiter(Path("runs.tab"), "id,score\\n"), csv_delimiter(Path("m.csv"), "a\\n1\\n")
    ('\\t', ',')
    """
    if path.suffix.lower() in (".tsv", ".tab"):
        return "\t"
    try:
        return csv.Sniffer().sniff(head[:4096], delimiters=",;\t|").delimiter
    except csv.Error:
        return ","


# --- the built-in formats' sniffers (registered in mcnemar.io._registry) -----------------


def sniff_inspect(probe: Probe) -> int | None:
    """Inspect AI: a ZIP archive (``.eval``), or a JSON log with ``eval`` and ``samples``."""
    if probe.is_dir:
        return None
    if probe.head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return MAGIC
    obj = probe.first_object
    if obj is not None:
        return CONTENT if "eval" in obj and ("samples" in obj or "status" in obj) else None
    head = probe.head
    if probe.text.startswith(b"{") and b'"eval"' in head and (b'"status"' in head
                                                              or b'"samples"' in head):
        return CONTENT  # pretty-printed JSON: the first line is not a whole object
    return None


def sniff_parquet(probe: Probe) -> int | None:
    """Parquet: the ``PAR1`` magic bytes, or a directory of ``*.parquet`` files."""
    if probe.is_dir:
        return EXTENSION if probe.holds("*.parquet") else None
    return MAGIC if probe.head.startswith(b"PAR1") else None


def sniff_helm(probe: Probe) -> int | None:
    """HELM: ``per_instance_stats.json`` (or a run directory holding it), or a JSON list of
    objects with ``instance_id`` and ``stats``."""
    if probe.is_dir:
        return NAME if (probe.path / "per_instance_stats.json").is_file() else None
    if probe.path.name == "per_instance_stats.json":
        return NAME
    if probe.text.startswith(b"[") and b'"instance_id"' in probe.head \
            and b'"stats"' in probe.head:
        return CONTENT
    return None


def sniff_openai_evals(probe: Probe) -> int | None:
    """OpenAI evals: JSONL whose first line holds ``spec``, or events with ``type`` and an id."""
    obj = probe.first_object
    if obj is None:
        return None
    if "spec" in obj or ("type" in obj and ("sample_id" in obj or "event_id" in obj)):
        return CONTENT
    return None


def sniff_lmeval(probe: Probe) -> int | None:
    """lm-evaluation-harness: ``samples_*.jsonl`` in a directory, or records with ``doc_id``
    and ``filter``/``metrics``/``resps``/``doc``."""
    if probe.is_dir:
        return NAME if probe.holds("samples_*.jsonl") else None
    obj = probe.first_object
    if obj is not None and "doc_id" in obj and any(
            k in obj for k in ("filter", "metrics", "resps", "doc")):
        return CONTENT
    return None


def sniff_promptfoo(probe: Probe) -> int | None:
    """promptfoo ``eval -o``: ``results.json`` (``evalId`` and ``results``), JSON Lines of
    results (``testIdx`` with ``promptIdx``/``gradingResult``), or the CSV (a ``Status``, a
    ``Score`` and a ``Grader Reason`` column)."""
    if probe.is_dir:
        return None
    obj = probe.first_object
    if obj is not None:
        if "testIdx" in obj and ("promptIdx" in obj or "gradingResult" in obj):
            return CONTENT
        if "evalId" in obj and "results" in obj:
            return CONTENT
        return None
    text = probe.text
    if text.startswith(b"{"):
        head = probe.head
        return CONTENT if b'"evalId"' in head and b'"results"' in head else None
    first = text.split(b"\n", 1)[0]
    if b"Status" in first and b"Score" in first and b"Grader Reason" in first:
        return CONTENT
    return None


def sniff_lighteval(probe: Probe) -> int | None:
    """lighteval ``--save-details``: Parquet files whose schema (in the footer) has the
    ``doc``, ``metric`` and ``model_response`` columns, or a directory of
    ``details_*.parquet`` files: by name when it is part of lighteval's layout (a timestamp
    folder, a folder inside ``details/``, an output folder holding ``details/``), else only as
    strongly as a directory of Parquet files (a folder of several tools' outputs stays
    theirs)."""
    if probe.is_dir:
        if not probe.holds("details_*.parquet"):
            return None
        p = probe.path
        if "details" in p.parts or (p / "details").is_dir() \
                or next(p.glob("details_*.parquet"), None) is not None:
            return NAME
        return EXTENSION
    if not probe.head.startswith(b"PAR1"):
        return None
    tail = probe.tail
    if b"model_response" in tail and b"gold_index" in tail and b"metric" in tail:
        return MAGIC_LAYOUT
    return None


def sniff_evalscope(probe: Probe) -> int | None:
    """evalscope: review JSON Lines (records with ``sample_score`` and ``index``), or a run
    directory holding ``reviews/``, a work directory whose run directories do, ``reviews/``
    itself or a ``reviews/<model>/`` folder (a subset still being scored is in
    ``<benchmark>_<subset>.jsonl.rerun-<uuid>``)."""
    if probe.is_dir:
        p = probe.path
        if "reviews" in (p.name, p.parent.name) and (
                probe.holds("*.jsonl") or probe.holds("*.jsonl.rerun-*")):
            return NAME
        if (p / "reviews").is_dir():
            return NAME
        return NAME if any((d / "reviews").is_dir() for d in p.iterdir() if d.is_dir()) \
            else None
    obj = probe.first_object
    if obj is not None and "sample_score" in obj and "index" in obj:
        return CONTENT
    return None


def sniff_deepeval(probe: Probe) -> int | None:
    """deepeval: a test run (``test_run_*.json``: ``testCases`` with ``metricsData``), or
    ``.latest_test_run.json`` (the same inside ``testRunData``), or a results folder holding
    ``test_run_*.json`` files."""
    if probe.is_dir:
        return NAME if next(probe.path.glob("test_run_*.json"), None) is not None else None
    if not probe.text.startswith(b"{"):
        return None
    obj = probe.first_object
    if obj is not None:
        if "testRunData" in obj:
            obj = obj["testRunData"] if isinstance(obj["testRunData"], dict) else {}
        return CONTENT if "testCases" in obj else None
    head = probe.head
    return CONTENT if b'"testCases"' in head and (b'"metricsData"' in head
                                                 or b'"testRunData"' in head) else None


def sniff_opencompass(probe: Probe) -> int | None:
    """OpenCompass: a result file ``results/<model>/<dataset>.json`` written with
    ``dump_details`` (a JSON object with a ``details`` member: a list or an object of
    per-item entries), or a model folder ``results/<model>/`` of them. A JSON object under
    ``results/<model>/`` without ``details`` is claimed weakly, so that the reader can say
    how to rerun with details."""
    path = probe.path
    if probe.is_dir:
        if path.parent.name == "results" and any(
                not f.name.startswith("results_") for f in path.glob("*.json")):
            return NAME
        return None
    if not probe.text.startswith(b"{"):
        return None
    head = probe.head
    obj = probe.first_object
    if obj is not None:
        return CONTENT if isinstance(obj.get("details"), list | dict) else None
    # mmengine.dump(..., indent=4) writes '"details": [' (evaluator details) or '{' (formatted)
    if (b'"details": [' in head or b'"details": {' in head) and b'"evalId"' not in head:
        return CONTENT
    if path.parent.parent.name == "results" and path.suffix.lower() == ".json" \
            and not path.name.startswith("results_"):
        return GENERIC
    return None


def sniff_jsonl(probe: Probe) -> int | None:
    """Generic JSON Lines: any file whose first line is a JSON object."""
    return GENERIC if probe.first_object is not None else None


def sniff_csv(probe: Probe) -> int | None:
    """Generic CSV/TSV: other text (not JSON, no NUL byte, not empty) that is a table: its
    first line names at least two columns (an id and a score at least) and its next line has
    as many fields. Prose (a README, a Makefile) and binary files are no one's."""
    if probe.is_dir or not probe.head.strip() or b"\x00" in probe.head:
        return None
    if probe.text.startswith((b"[", b"{")):
        return None
    return FALLBACK if _is_table(probe) else None


def _is_table(probe: Probe) -> bool:
    import io

    try:
        text = probe.text.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(probe.text) - 4:  # not merely a character cut at the 64 KiB edge
            return False
        text = probe.text[: exc.start].decode("utf-8")
    lines = [line for line in text.splitlines() if line.strip()][:3]
    if len(lines) < 2:
        return len(lines) == 1 and _fields(lines[0], csv_delimiter(probe.path, text)) >= 2
    delimiter = csv_delimiter(probe.path, text)
    rows = list(csv.reader(io.StringIO("\n".join(lines[:2])), delimiter=delimiter))
    return len(rows) == 2 and len(rows[0]) >= 2 and len(rows[1]) == len(rows[0])


def _fields(line: str, delimiter: str) -> int:
    return len(next(csv.reader([line], delimiter=delimiter), []))
