"""The parse budget: what reading a file may build in memory, charged before it is built.

The inflate budget of :mod:`mcnemar.io._archive` counts bytes, but a byte of JSON can become
far more than a byte of Python objects: ``[{},{},...]`` builds a dictionary of about 64 bytes
for every 3 bytes of text. So every reader that parses JSON, CSV or Parquet charges what the
parse will build *before* building it, against one budget for the whole read, and a file
that would take more is refused with a clear message instead of taking the machine's memory.

What is charged (an upper estimate; the objects Python builds):

==================  =====================================================================
input               charged
==================  =====================================================================
a JSON document     its bytes plus :data:`PER_VALUE` for every ``{ [ , :`` in it (each
                    value of a document is introduced by one of them, or is the whole
                    document; the count ignores that some sit inside strings, which only
                    overestimates), and its bytes once more for the decoded text
JSON Lines          the same, block by block as the file is read
CSV text            its characters plus :data:`PER_VALUE` for every delimiter and line
Parquet             the bytes pyarrow decodes plus :data:`PER_VALUE` for every value,
                    row group by row group as it decodes them (never the footer's counts)
==================  =====================================================================

The budget is a context (:func:`parse_budget`): :func:`mcnemar.io.read_run` opens one for
its file when none is open (:data:`mcnemar.io._archive.DEFAULT_LIMITS`, generous), and the
web server opens one per request (its ``--max-parsed-mb``), so that the two files of an
upload share it. Readers call :func:`charge` (or :func:`charge_json`) and never see the
limit.

Examples
--------
>>> with parse_budget(10_000):
...     charge_json(b'{"a": [1, 2, 3]}', what="x.json")
>>> try:
...     with parse_budget(10_000):
...         charge_json(b"[" + b"{}," * 5_000 + b"{}]", what="bomb.json")
... except InputFileError as exc:
...     print(str(exc).split(", more")[0])
bomb.json: parsing it would build about 0.625 MB of objects
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass

from mcnemar.errors import InputFileError, option

__all__ = ["PER_VALUE", "active", "charge", "charge_csv", "charge_json", "counted",
           "json_cost", "parse_budget"]

#: Bytes of Python objects charged per parsed value: a small dict is 64 bytes, a float 24
#: plus the 8-byte slot that holds it, a short string about 50 plus its text.
PER_VALUE = 64


@dataclass(slots=True)
class _Meter:
    limit: int
    used: int = 0
    counted: bool = False


_ACTIVE: ContextVar[_Meter | None] = ContextVar("mcnemar_parse_budget", default=None)


@contextlib.contextmanager
def parse_budget(max_bytes: int | None, *, reuse: bool = False,
                 counted: bool = False) -> Iterator[None]:
    """Charge every parse inside the block against ``max_bytes`` (``None``: no limit).

    With ``reuse``, a budget already open (the web request's) is kept rather than replaced,
    so that everything read inside it counts against it. With ``counted``, every read must be
    counted: the readers then do not hand files to DuckDB, whose work the budget cannot see
    (the server's budget; the command line's lets DuckDB count large files in its engine).
    """
    if reuse and _ACTIVE.get() is not None:
        yield
        return
    token = _ACTIVE.set(None if max_bytes is None else _Meter(int(max_bytes), counted=counted))
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def active() -> bool:
    """Whether a parse budget is open."""
    return _ACTIVE.get() is not None


def counted() -> bool:
    """Whether the open budget must see every read (readers then avoid DuckDB)."""
    meter = _ACTIVE.get()
    return meter is not None and meter.counted


def _mb(n: int) -> str:
    return f"{n / 1024**2:.3g} MB"


def charge(cost: int, *, what: str, path: str | None = None) -> None:
    """Count ``cost`` bytes against the open budget; refuse once it would be exceeded."""
    meter = _ACTIVE.get()
    if meter is None:
        return
    if meter.used + cost > meter.limit:
        where = f"{what}: " if path is None else ""
        raise InputFileError(
            f"{where}parsing it would build about {_mb(meter.used + cost)} of objects, more "
            f"than the parse budget of {_mb(meter.limit)} allows "
            f"(raise it with {option('max_parsed_bytes', 'N')} if the file is genuine); a "
            "file this dense is not a log this program reads",
            path=path,
        )
    meter.used += cost


def json_cost(data: bytes | bytearray | str) -> int:
    """The bytes :func:`json.loads` may build from ``data`` (see the module's table).

    Examples
    --------
    >>> json_cost(b'[1, 2]') == 6 + PER_VALUE * 2
    True
    """
    if isinstance(data, str):
        marks = data.count("{") + data.count("[") + data.count(",") + data.count(":")
    else:
        marks = data.count(b"{") + data.count(b"[") + data.count(b",") + data.count(b":")
    return len(data) + PER_VALUE * marks


def charge_csv(path: str, *, delimiter: str = ",") -> None:
    """Charge what reading the CSV file at ``path`` into rows will build: its text, and
    :data:`PER_VALUE` for every cell (counted from its delimiters and line breaks, a block at
    a time, before a row is built). Nothing when no budget is open."""
    if _ACTIVE.get() is None:
        return
    sep = delimiter.encode()
    cost = 0
    with open(path, "rb") as handle:
        while block := handle.read(1 << 20):
            cost += len(block) + PER_VALUE * (block.count(sep) + block.count(b"\n") + 1)
    charge(cost, what=path, path=path)


def charge_json(data: bytes | bytearray | str, *, what: str, path: str | None = None) -> None:
    """Charge what parsing the JSON ``data`` will build (nothing when no budget is open)."""
    if _ACTIVE.get() is not None:
        charge(json_cost(data), what=what, path=path)
