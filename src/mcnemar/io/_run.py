"""The neutral per-item data every reader produces, and helpers shared by the readers.

:class:`RunResults` holds one run: an item key and a score per record (plus optional sample
index and cluster). It is either *materialized* (numpy arrays in memory) or *deferred* (a
:class:`DeferredSource`: a SQL query over the file that an embedded engine runs when the two
runs are aligned, so that large Parquet/CSV/JSONL files never pass through Python row by row).
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import (
    Callable,
    Collection,
    Generator,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from mcnemar.errors import InputFileError, McNemarError, option
from mcnemar.errors import missing_dependency as missing_dependency
from mcnemar.io._columns import CLUSTER_COL as CLUSTER_COL
from mcnemar.io._columns import KEY_PREFIX as KEY_PREFIX
from mcnemar.io._columns import SAMPLE_COL as SAMPLE_COL
from mcnemar.io._columns import SCORE_COL as SCORE_COL
from mcnemar.io._columns import object_array as object_array
from mcnemar.io._sniff import csv_delimiter as csv_delimiter
from mcnemar.io.identity import RunIdentity

__all__ = ["DeferredSource", "RunResults", "missing_dependency", "score_to_float"]

#: Which extra of the package installs a module the readers import on demand.
@dataclass(frozen=True, slots=True)
class DeferredSource:
    """A run that stays in a file until an embedded engine (DuckDB) aligns it.

    Attributes
    ----------
    sql : str
        A ``SELECT`` over the file returning the columns ``__mcn_k0 ...`` (item key parts, as
        text), ``__mcn_s`` (the score as a double, NULL when missing), and optionally
        ``__mcn_e`` (sample index) and ``__mcn_c`` (cluster).
    key_count : int
        Number of key columns.
    files : tuple of str
        The files the query reads (to locate a malformed line when the engine rejects one).
    kind : str
        ``"csv"``, ``"jsonl"`` or ``"parquet"``.

    A score present in the file but not a number is returned as NaN, so that alignment can
    report it instead of treating it as missing.
    """

    sql: str
    key_count: int
    files: tuple[str, ...]
    kind: str
    has_sample: bool = False
    has_cluster: bool = False
    #: The same query with the id columns in their own (integer) type, and those types;
    #: two runs whose ids share an integer type are joined on it, which is faster than text.
    native_sql: str | None = None
    key_types: tuple[str, ...] = ()


def _object_vector(values: Iterable[Any]) -> np.ndarray:
    """A per-record column of objects (keys, clusters, contents): tuples stay whole."""
    if isinstance(values, np.ndarray) and values.dtype == object and values.ndim == 1:
        return values
    return object_array(list(values))


def _sized(values: Iterable[Any]) -> Any:
    """``values`` itself when it has a length (a list or an array), else a list of it."""
    return values if hasattr(values, "__len__") else list(values)


def _array_or_none(values: Any, dtype: Any) -> np.ndarray | None:
    """A per-record column, if any, as an array of ``dtype``."""
    if values is None:
        return None
    return _object_vector(values) if dtype is object else np.asarray(values, dtype=dtype)


@dataclass(frozen=True, slots=True, kw_only=True)
class RunResults:
    """Per-record outcomes of one evaluation run, as read from a file (no statistics).

    Attributes
    ----------
    name : str
        Display name: the model named in the file when there is one, else the file name.
    path : str
        The file (or directory) read.
    format : str
        The reader used: ``"csv"``, ``"jsonl"``, ``"parquet"``, ``"lm-eval"``, ``"inspect"``,
        ``"openai-evals"``, ``"helm"`` or ``"frame"``.
    keys : numpy.ndarray or None
        One item key per record (object array). A key is a string for the generic formats
        (a tuple of strings for a composite ``id``), ``(task, doc_id, filter)`` for
        lm-evaluation-harness, the sample ``id`` for Inspect, ``sample_id`` for OpenAI evals and
        ``(instance_id, perturbation)`` for HELM. ``None`` while the run is deferred.
    scores : numpy.ndarray or None
        float64 score per record; NaN where the record has no score (e.g. a failed sample).
    epochs : numpy.ndarray or None
        Sample index per record when the format repeats items (Inspect ``epoch``, HELM
        ``train_trial_index``, repeated OpenAI ``match`` events, a generic ``sample`` column).
    clusters : numpy.ndarray or None
        Cluster label per record (object array), when a cluster field was chosen.
    records : int or None
        Number of records read; ``None`` for a deferred run not yet counted.
    key_names, score_name, sample_name, cluster_name
        What the key parts, score, sample index and cluster are called in the file.
    metadata : mapping
        Format-specific facts (model, task, filters seen, ...), JSON-safe.
    source : DeferredSource or None
        Set for a deferred run (see :meth:`load`).
    identity : RunIdentity
        What the run is, as the harness recorded it: task(s), scorer, model, status, errored
        samples, ignored files (all ``None``/empty for generic files). Alignment checks it
        before pairing (see :func:`~mcnemar.io.identity.check_identities`).
    errored : numpy.ndarray or None
        Per record, True when the harness marked the sample as errored.
    contents : numpy.ndarray or None
        Per record, a fingerprint of the item's content (lm-eval ``doc_hash``, Inspect
        ``input``/``target``) or None; paired items must agree on it.
    """

    name: str
    path: str
    format: str
    keys: np.ndarray | None
    scores: np.ndarray | None
    records: int | None
    key_names: tuple[str, ...] = ("id",)
    score_name: str = "score"
    epochs: np.ndarray | None = None
    sample_name: str | None = None
    clusters: np.ndarray | None = None
    cluster_name: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    source: DeferredSource | None = None
    identity: RunIdentity = field(default_factory=RunIdentity)
    errored: np.ndarray | None = None
    contents: np.ndarray | None = None

    @classmethod
    def from_scores(
        cls,
        keys: Iterable[Any],
        scores: Iterable[Any],
        *,
        name: str = "run",
        path: str | None = None,
        format: str = "memory",
        epochs: Iterable[int] | None = None,
        clusters: Iterable[Any] | None = None,
        errored: Iterable[bool] | None = None,
        contents: Iterable[Any] | None = None,
        **fields: Any,
    ) -> RunResults:
        """A run from one item key and one score per record (the readers build theirs here).

        For outcomes already in Python (a notebook, a test); files go through the readers.
        A score of ``None`` or NaN is a record without a score, as in a file. ``path``
        defaults to ``name``; ``epochs`` (sample index), ``clusters``, ``errored`` and
        ``contents`` are per record. ``fields`` sets the other attributes (``key_names``,
        ``score_name``, ``sample_name``, ``cluster_name``, ``metadata``, ``identity``), as a
        reader records them.

        Examples
        --------
        >>> run = RunResults.from_scores(["q1", "q2", ("q3", 1)], [1, None, True], name="a")
        >>> run.keys.tolist(), run.scores.tolist(), run.records
        (['q1', 'q2', ('q3', 1)], [1.0, nan, 1.0], 3)
        """
        key_array = _object_vector(keys)
        columns = {what: None if values is None else _sized(values) for what, values in (
            ("scores", scores), ("epochs", epochs), ("clusters", clusters),
            ("errored", errored), ("contents", contents))}
        for what, values in columns.items():
            if values is not None and len(values) != len(key_array):
                raise McNemarError(f"{what} must hold one value per key ({len(key_array)}), "
                                   f"got {len(values)}")
        try:
            score_array = np.asarray(columns["scores"], dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise McNemarError(f"scores must be numbers, booleans or None ({exc})") from None
        if score_array.ndim != 1:
            raise McNemarError("scores must hold one number per key, not lists")
        fields.setdefault("sample_name", None if epochs is None else "sample")
        fields.setdefault("cluster_name", None if clusters is None else "cluster")
        return cls(
            name=name, path=path if path is not None else name, format=format,
            keys=key_array, scores=score_array, records=len(key_array),
            epochs=_array_or_none(columns["epochs"], np.int64),
            clusters=_array_or_none(columns["clusters"], object),
            errored=_array_or_none(columns["errored"], bool),
            contents=_array_or_none(columns["contents"], object),
            **fields,
        )

    @property
    def deferred(self) -> bool:
        """True when the records are still in the file (read by an engine on alignment)."""
        return self.source is not None and self.keys is None

    def load(self) -> RunResults:
        """Return a materialized copy (numpy arrays) of a deferred run; itself otherwise."""
        if self.source is None or self.keys is not None:
            return self
        from mcnemar.io._engine import materialize

        keys, scores, epochs, clusters = materialize(self)
        return replace(
            self, keys=keys, scores=scores, epochs=epochs, clusters=clusters,
            records=len(scores), source=None,
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe description of the run (no per-record data)."""
        return {
            "name": self.name,
            "path": self.path,
            "format": self.format,
            "records": self.records,
            "key": list(self.key_names),
            "score": self.score_name,
            "sample": self.sample_name,
            "cluster": self.cluster_name,
            "metadata": dict(self.metadata),
            "identity": self.identity.to_dict(),
        }

    def __str__(self) -> str:
        count = "not yet counted" if self.records is None else f"{self.records} records"
        # An object in memory is named <like this>: it is no file.
        held = "" if self.path.startswith("<") and self.path.endswith(">") else " file"
        return (
            f"{self.name}: {self.format}{held} {self.path} ({count}; key "
            f"{'+'.join(self.key_names)}, score {self.score_name})"
        )


# --- helpers shared by the readers -------------------------------------------------------

#: What :func:`field_at` returns for a field that is not there (``None`` is a JSON null).
MISSING: Any = object()


def field_at(record: Mapping[str, Any], path: str) -> Any:
    """The value at ``path`` in a nested record: the key itself, else a dotted path.

    A key of the record that is the whole path wins (a column literally called ``"a.b"``);
    otherwise ``"doc.id"`` is ``record["doc"]["id"]``, the longest key that matches first at
    every level (so ``"sample_score.score.value.accuracy"`` finds ``value["accuracy"]``).
    Returns :data:`MISSING` when no such field exists.

    Examples
    --------
    >>> field_at({"doc": {"id": 7}, "a.b": 1}, "doc.id"), field_at({"a.b": 1}, "a.b")
    (7, 1)
    >>> field_at({"doc": {"id": 7}}, "doc.name") is MISSING
    True
    """
    if path in record:
        return record[path]
    head, dot, rest = path.partition(".")
    while dot:
        if head in record:
            inner = record[head]
            if isinstance(inner, Mapping):
                found = field_at(inner, rest)
                if found is not MISSING:
                    return found
        step, dot, rest = rest.partition(".")
        head = f"{head}.{step}"
    return MISSING


def has_field(columns: Collection[str], path: str) -> bool:
    """Whether ``path`` is a column, or a dotted path whose first part is one."""
    if path in columns:
        return True
    parts = path.split(".")
    return any(".".join(parts[:i]) in columns for i in range(1, len(parts)))



#: The words that are outcomes (any case): every reader and the engine's query use these.
TRUE_WORDS = ("true", "yes", "pass")
FALSE_WORDS = ("false", "no", "fail")
_TRUE = set(TRUE_WORDS)
_FALSE = set(FALSE_WORDS)


def score_to_float(value: Any, *, letters: bool = False) -> float | None:
    """Convert one score value to a float; ``None`` means "no score".

    Booleans become 1/0, numbers pass through, and the strings ``"true"/"yes"/"pass"`` and
    ``"false"/"no"/"fail"`` (any case: promptfoo's ``PASS``/``FAIL``) and numeric strings are
    converted. With ``letters=True`` the
    Inspect grades are mapped as Inspect's ``value_to_float`` does: ``"C"`` (correct) 1,
    ``"I"`` (incorrect) 0, ``"P"`` (partial) 0.5, ``"N"`` (no answer) 0.

    Raises ``ValueError`` for anything else (lists, dicts, other text): the caller turns it
    into an :class:`~mcnemar.errors.InputFileError` naming file and line.

    Examples
    --------
    >>> score_to_float(True), score_to_float("0.5"), score_to_float("C", letters=True)
    (1.0, 0.5, 1.0)
    >>> score_to_float("PASS"), score_to_float("fail")
    (1.0, 0.0)
    """
    if value is None:
        return None
    if isinstance(value, np.generic):
        value = value.item()  # a NumPy scalar (records and frames held in memory)
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        out = float(value)
        return None if math.isnan(out) else out
    if isinstance(value, str):
        text = value.strip()
        if text == "":
            return None
        if letters and text in _LETTERS:
            return _LETTERS[text]
        low = text.lower()
        if low in _TRUE:
            return 1.0
        if low in _FALSE:
            return 0.0
        try:
            out = float(text)
        except ValueError:
            pass
        else:
            return None if math.isnan(out) else out
    raise ValueError(f"score {value!r} is not a number, a boolean or a known grade")


_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}


def errored_scores(scores: Sequence[float], errored: Sequence[bool],
                   on_error: str = "missing") -> np.ndarray:
    """The scores of a run whose tool marked some records as errored, by ``on_error``.

    An errored record without a score (a provider that failed, a sample that raised) stays
    without one with ``"missing"`` (NaN: alignment reports it, ``on_missing="intersect"``
    leaves it out), or scores 0 with ``"fail"`` (a failure). Every reader with errored
    records goes through here, so that a tool's error is never a wrong answer unless asked.

    Examples
    --------
    >>> errored_scores([1.0, float("nan"), 0.0], [False, True, True], "fail").tolist()
    [1.0, 0.0, 0.0]
    """
    from mcnemar.validation import check_choice
    from mcnemar.vocabulary import ON_ERROR

    check_choice(on_error, "on_error", ON_ERROR)
    out = np.asarray(scores, dtype=np.float64).copy()
    if on_error == "fail" and len(out):
        out[np.asarray(errored, dtype=bool) & np.isnan(out)] = 0.0
    return out


def iter_json_records(path: Path, *, what: str,
                      progress: bool | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, record)`` for each non-blank line of a JSONL file.

    Every JSONL reader goes through here, so that they all refuse the same things the same
    way, naming the file and line: a line that is not valid JSON (e.g. a truncated last line)
    and a line that is valid JSON but not an object (``what`` says what a line should hold,
    e.g. ``"one record per line"``). Lines are parsed as they are read, so a caller that needs
    only the first record parses only the first line.

    The rules are those of ``json.loads`` on each line's bytes (:func:`_records_by_line`).
    Files are read in blocks and each block's lines are parsed straight from its decoded text
    (:func:`_records_by_block`), which skips ``json.loads``'s per-line encoding detection,
    decoding and wrappers (about a fifth of the time on large lm-eval logs) and yields the
    same records; at the first line that path does not accept as plain UTF-8 JSON (a NUL byte,
    invalid UTF-8, a byte-order mark, bad JSON, not an object) the line-by-line reader takes
    over from that line, so every error, and every oddity ``json.loads`` accepts, is exactly
    as before.
    """
    from mcnemar.io._progress import progress_bar

    try:
        size = path.stat().st_size
        handle = path.open("rb")
    except OSError as exc:
        raise InputFileError(f"cannot read the file ({exc.strerror or exc})",
                             path=str(path)) from None
    from mcnemar.io._budget import charge_json

    def spend(data: bytes) -> None:
        # What the records of these lines will build, before they are built.
        charge_json(data, what=path.name, path=str(path))

    try:
        with handle, progress_bar(path.name, size, enabled=progress) as bar:
            resume = yield from _records_by_block(handle, bar.update, spend)
            if resume is not None:
                line, counted, charged = resume
                handle.seek(0)
                yield from _records_by_line(handle, path, what, bar.update, start=line,
                                            count_from=counted, spend=spend, charged=charged)
    except OSError as exc:  # the disk failed while the file was being read
        raise InputFileError(f"cannot read the file ({exc.strerror or exc})",
                             path=str(path)) from None


#: What ``bytes.strip()`` removes: a line of only these is blank.
_BLANK = " \t\n\r\x0b\x0c"
#: The whitespace ``json`` allows around a document.
_JSON_SPACE = " \t\n\r"
#: Bytes read at a time by the block reader.
_BLOCK = 1 << 20
_DECODER = json.JSONDecoder()


def _records_by_block(
    handle: BinaryIO, update: Callable[[int], Any], spend: Callable[[bytes], Any]
) -> Generator[tuple[int, dict[str, Any]], None, tuple[int, int, int] | None]:
    """Records parsed from whole blocks of lines; the line to hand over at, if any.

    A block ends at its last newline (a line is never split). A line is yielded only when
    ``json.loads`` of its bytes would give the same object: the block decodes as UTF-8 with
    ``surrogatepass`` (``json.loads``'s own decoding of UTF-8), and the whole line is one JSON
    object between JSON whitespace, parsed by the same decoder. Such a line has no byte-order
    mark and no NUL byte (JSON allows neither outside escapes), which is what makes
    ``json.loads``'s encoding detection choose UTF-8 for it. Returns ``None``
    at the end of the file, else ``(line, first line of its block, last line of its block)``
    for the first line that is not such a line; the line-by-line reader takes over there (its
    progress counts bytes from the first line of that block, the ones not counted here; it
    charges the parse budget for the lines after that block, the block being charged here).
    """
    decode = _DECODER.raw_decode
    pending: list[bytes] = []  # the start of a line that goes on in the next read
    number = 0  # lines read so far
    while True:
        chunk = handle.read(_BLOCK)
        if chunk:
            cut = chunk.rfind(b"\n") + 1
            if cut == 0:
                pending.append(chunk)  # no complete line yet
                continue
            # (a whole chunk ending in a newline, e.g. a small file, is used without a copy)
            data = b"".join([*pending, chunk[:cut]]) if pending else chunk[:cut]
            pending = [chunk[cut:]] if cut < len(chunk) else []
        elif pending:
            data = b"".join(pending)
            pending = []
        else:
            return None
        first = number + 1
        spend(data)
        # The last line of this block: the line reader does not charge it again.
        charged = first + data.count(b"\n") - (1 if data.endswith(b"\n") else 0)
        try:
            text = data.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            return first, first, charged
        lines = text.split("\n")
        if text.endswith("\n"):
            lines.pop()  # the empty text after the last newline is not a line
        for line in lines:
            number += 1
            if not line.strip(_BLANK):
                continue
            try:
                record, end = decode(line, len(line) - len(line.lstrip(_JSON_SPACE)))
            except (ValueError, RecursionError):  # json.JSONDecodeError is a ValueError
                return number, first, charged
            if line[end:].strip(_JSON_SPACE) or not isinstance(record, dict):
                return number, first, charged
            yield number, record
        update(len(data))


def _records_by_line(handle: BinaryIO, path: Path, what: str, update: Callable[[int], Any],
                     *, start: int = 1, count_from: int = 1,
                     spend: Callable[[bytes], Any] | None = None, charged: int = 0,
                     ) -> Iterator[tuple[int, dict[str, Any]]]:
    """``json.loads`` of each line's bytes from line ``start`` on, errors naming the line."""
    done = 0
    for number, raw in enumerate(handle, start=1):
        if number >= count_from:
            done += len(raw)
        if number % 4096 == 0:
            update(done)
            done = 0
        if number < start or not raw.strip():
            continue
        if spend is not None and number > charged:
            spend(raw)  # the lines of the block the block reader charged are paid for
        try:
            obj = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise InputFileError(
                f"line is not valid JSON ({_json_reason(exc)}); a JSONL file needs one "
                "complete JSON object per line",
                path=str(path),
                line=number,
            ) from None
        except RecursionError:
            raise InputFileError("line is JSON nested too deeply to parse (a damaged or "
                                 "hostile file?)", path=str(path), line=number) from None
        yield number, require_object(obj, path, number, what)
    update(done)


def _json_reason(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at column {exc.colno}"
    return "not UTF-8 text"


def parse_json(data: bytes | bytearray | str, *, what: str, path: str | None = None) -> Any:
    """``json.loads`` of a document, charged to the parse budget and bounded in depth.

    Every reader parses whole JSON documents here (files, archive members), so that a dense
    document is refused by the budget (:mod:`mcnemar.io._budget`) before it is built, a
    document nested deeper than Python's parser goes (its recursion limit) is refused with a
    clear message rather than a crash, and bytes are decoded once and released before the
    objects are built. Syntax errors are raised as :class:`json.JSONDecodeError` for the
    caller to word.

    Examples
    --------
    >>> parse_json(b'{"a": [1]}', what="x")
    {'a': [1]}
    >>> try:
    ...     parse_json("[" * 100_000 + "]" * 100_000, what="deep.json")
    ... except InputFileError as exc:
    ...     print(exc)
    deep.json: JSON nested too deeply to parse (a damaged or hostile file?)
    """
    from mcnemar.io._budget import charge, charge_json

    charge_json(data, what=what, path=path)
    if not isinstance(data, str):
        charge(len(data), what=what, path=path)  # the decoded text, beside the bytes a while
    # json.loads would decode bytes itself; decoding here lets the bytes go before the
    # objects are built (a BOM or another encoding goes to json.loads as it was).
    try:
        text: str | bytes | bytearray = data if isinstance(data, str) else data.decode("utf-8")
    except UnicodeDecodeError:
        text = data
    del data
    try:
        with collector_paused():
            return json.loads(text)
    except RecursionError:  # the C parser's own depth check
        where = "" if path is not None and what == Path(path).name else f"{what}: "
        raise InputFileError(f"{where}JSON nested too deeply to parse (a damaged or hostile "
                             "file?)", path=path) from None


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cycle collector while a file is parsed and its records are built.

    A results file becomes millions of dicts, lists and strings, and each collection walks
    all of them again: on a 300 MB JSON document that is most of the time ``json.loads``
    takes. Parsed JSON and the records built from it hold no reference cycles, so a
    collection in between would free nothing; the collector runs again as before afterwards.
    """
    import gc

    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def load_json_document(path: Path) -> Any:
    """Parse a whole JSON file, naming the line of a syntax error (see :func:`parse_json`)."""
    try:
        with path.open("rb") as handle:
            return parse_json(handle.read(), what=path.name, path=str(path))
    except OSError as exc:
        raise InputFileError(f"cannot read the file ({exc.strerror or exc})",
                             path=str(path)) from None
    except json.JSONDecodeError as exc:
        raise InputFileError(
            f"not valid JSON ({exc.msg} at column {exc.colno})", path=str(path), line=exc.lineno
        ) from None
    except UnicodeDecodeError:
        raise InputFileError("not UTF-8 text", path=str(path)) from None


def require_object(obj: Any, path: Path, line: int | None, what: str) -> dict[str, Any]:
    """Check that a parsed record is a JSON object."""
    if not isinstance(obj, dict):
        raise InputFileError(
            f"expected a JSON object ({what}), found {type(obj).__name__} {_short(obj)}",
            path=str(path),
            line=line,
        )
    return obj


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def short_repr(value: Any, limit: int = 60) -> str:
    """A bounded ``repr`` for error messages."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def wanted_tasks(task: str | Sequence[str] | None, *,
                 what: str = "task") -> list[str] | None:
    """The task names a reader's ``task=`` option selects (``None``: every task), in order,
    each once; refuses anything but a name or a list of names (``what`` words it: "dataset").

    Examples
    --------
    >>> wanted_tasks("add"), wanted_tasks(["add", "mul", "add"]), wanted_tasks(None)
    (['add'], ['add', 'mul'], None)
    """
    if task is None:
        return None
    names = [task] if isinstance(task, str) else list(task)
    if not names or not all(isinstance(t, str) and t for t in names):
        raise McNemarError(f"{option('task', repr(task))} is not valid; give a {what} name or a "
                           "list of names")
    return list(dict.fromkeys(names))


def name_list(names: Iterable[Any], limit: int = 12) -> str:
    """Names quoted for a message: at most ``limit`` of them, then how many more.

    Examples
    --------
    >>> name_list(["a", "b", "c"], limit=2)
    "'a', 'b' and 1 more"
    """
    names = list(names)
    shown = ", ".join(map(repr, names[:limit]))
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def require_known(wanted: Iterable[Any], known: Collection[Any], *, path: str | Path,
                  message: Callable[[str, str], str]) -> None:
    """Refuse the ``wanted`` names that are not among ``known`` (columns, runs, tasks).

    ``message(unknown, known)`` words the error from the names not found and the names there
    are (both quoted, see :func:`name_list`), so that every reader says what it did not find
    and what it could have chosen in one sentence.

    Examples
    --------
    >>> try:
    ...     require_known(["x", "nope"], ["x", "y"], path="runs.csv",
    ...                   message=lambda unknown, known: f"{unknown} not found; runs: {known}")
    ... except InputFileError as exc:
    ...     print(exc)
    runs.csv: 'nope' not found; runs: 'x', 'y'
    """
    unknown = [name for name in wanted if name not in known]
    if unknown:
        raise InputFileError(message(", ".join(map(repr, unknown)), name_list(known)),
                             path=str(path))


def read_parquet(path: Path, *, files: Sequence[str] | None = None,
                 columns: Sequence[str] | None = None, names_only: bool = False,
                 needs: str | None = None) -> Any:
    """Read Parquet with pyarrow: the file, or ``files`` (one dataset) on behalf of ``path``.

    Returns the pyarrow Table (only ``columns``, when given) or, with ``names_only``, the
    column names from the (first) file's footer without reading any data. Every reader of
    Parquet without DuckDB goes through here, so that a missing pyarrow is a
    :class:`~mcnemar.errors.McNemarError` naming the extra to install (``needs`` words it,
    e.g. when DuckDB would serve as well) and a file pyarrow cannot read is an
    :class:`~mcnemar.errors.InputFileError` naming the file, never pyarrow's own exception.
    """
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:
        if needs is not None:
            raise McNemarError(f"{needs}: pip install 'mcnemar[frames]'") from None
        raise missing_dependency(exc, what="reading Parquet") from None
    source: str | list[str] = list(files) if files else str(path)
    try:
        if names_only:
            return list(pq.read_schema(source[0] if isinstance(source, list) else source).names)
        return _read_counted(pq, [source] if isinstance(source, str) else source,
                             None if columns is None else list(columns), path)
    except InputFileError:
        raise
    except Exception as exc:  # pyarrow.ArrowInvalid, OSError and friends
        raise InputFileError(f"cannot read Parquet ({exc})", path=str(path)) from None


#: Rows pyarrow decodes at a time when a read is counted against the parse budget.
_PARQUET_BATCH = 1 << 16


def _read_counted(pq: Any, files: list[str], columns: list[str] | None, path: Path) -> Any:
    """The files' rows as one table, decoded batch by batch and each batch charged to the
    parse budget as it is decoded: the rows counted are the rows decoded, whatever the
    footer declares, and the values charged are those the readers will turn into objects."""
    import pyarrow as pa

    from mcnemar.io._budget import PER_VALUE, charge

    tables = []
    for name in files:
        batches = []
        for batch in pq.ParquetFile(name).iter_batches(batch_size=_PARQUET_BATCH,
                                                       columns=columns):
            charge(batch.nbytes + PER_VALUE * batch.num_rows * max(1, batch.num_columns),
                   what=Path(name).name, path=str(path))
            batches.append(batch)
        if not batches:
            empty = pq.read_schema(name).empty_table()
            batches_table = empty if columns is None else empty.select(columns)
        else:
            batches_table = pa.Table.from_batches(batches)
        tables.append(batches_table)
    if len(tables) == 1:
        return tables[0]
    return pa.concat_tables(tables, promote_options="default")


def check_path(path: str | Path) -> Path:
    """Resolve a user path, raising :class:`InputFileError` when it does not exist.

    A pipe or a FIFO (``compare <(cat a.csv) b.csv``) can be read only once, and a reader
    reads its file again after the format was detected from its first bytes: its content is
    copied once into a temporary file (at most :data:`MAX_SPOOLED_BYTES`), which every later
    look at the same path reads.
    """
    p = Path(path)
    if not p.exists():
        raise InputFileError("no such file or directory", path=str(p))
    if p.is_file() or p.is_dir():
        return p
    return _spooled(p)


#: Most bytes copied from a pipe given as a run file.
MAX_SPOOLED_BYTES = 2 * 1024**3
_SPOOLED: dict[str, Path] = {}


def _spooled(p: Path) -> Path:
    """The temporary copy of what the pipe ``p`` holds (made on the first call)."""
    import atexit
    import shutil
    import tempfile

    found = _SPOOLED.get(str(p))
    if found is not None:
        return found
    folder = Path(tempfile.mkdtemp(prefix="mcnemar-pipe-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    copy = folder / (p.name or "input")
    written = 0
    try:
        with p.open("rb") as source, copy.open("wb") as target:
            while chunk := source.read(1 << 20):
                written += len(chunk)
                if written > MAX_SPOOLED_BYTES:
                    raise InputFileError(f"the pipe holds more than {MAX_SPOOLED_BYTES >> 20} MB;"
                                         " write the run to a file first", path=str(p))
                target.write(chunk)
    except OSError as exc:
        raise InputFileError(f"cannot read the file ({exc.strerror or exc})",
                             path=str(p)) from None
    _SPOOLED[str(p)] = copy
    return copy
