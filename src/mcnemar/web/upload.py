"""Streaming reader for the calculator's two-file upload (``multipart/form-data``).

The size limit is enforced while the request streams in: each file part is written to disk
chunk by chunk and the upload is refused as soon as one file passes the limit, so that an
oversized upload never sits in memory or fills the disk. Text fields are small and kept in
memory. Nothing here knows about result formats; the saved files are handed to
:func:`mcnemar.io.read_run`.
"""

from __future__ import annotations

import re
import struct
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from python_multipart import MultipartParser
from python_multipart.exceptions import FormParserError
from python_multipart.multipart import parse_options_header

from mcnemar.errors import InputFileError

__all__ = [
    "MalformedUpload",
    "OverBudget",
    "ParsedUpload",
    "UploadTooLarge",
    "check_archive_directory",
    "check_parquet_rows",
    "read_multipart",
]

#: Limit of one text field (names, options); far more than any valid value needs.
MAX_FIELD_BYTES = 64 * 1024
#: Limit on the number of parts, so that a request cannot make us track thousands of them.
MAX_PARTS = 32
#: After a file passes the limit we keep reading (and discarding) at most this many bytes so
#: that the client, which is still sending, receives our error response instead of a reset.
DRAIN_BYTES = 8 * 1024 * 1024


class UploadTooLarge(Exception):
    """A file part (or the whole request) passed the size limit."""

    def __init__(self, field: str | None, limit: int, filename: str | None = None) -> None:
        self.field = field
        self.limit = limit
        self.filename = filename
        if field and filename:
            what = f"{field} ({filename}) is larger than"
        elif field:
            what = f"{field} is larger than"
        else:
            what = "the upload is larger than"
        super().__init__(
            f"{what} the limit of {_megabytes(limit)} per file; "
            "upload smaller files or start the server with a larger --max-upload-mb"
        )


class OverBudget(InputFileError):
    """An uploaded file refused for the server's read budget before it is read (413)."""


class MalformedUpload(Exception):
    """The request is not a usable multipart upload."""

    def __init__(self, message: str, field: str | None = None) -> None:
        self.field = field
        super().__init__(message)


@dataclass
class ParsedUpload:
    """What arrived: saved files (by field name) and text fields (last value wins)."""

    files: dict[str, Path] = field(default_factory=dict)
    filenames: dict[str, str] = field(default_factory=dict)
    fields: dict[str, list[str]] = field(default_factory=dict)


def _megabytes(n: int) -> str:
    mb = n / 1_000_000
    return f"{mb:g} MB" if mb >= 1 else f"{n} bytes"


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_filename(name: str) -> str:
    """A file name that is safe to create in our own temporary directory.

    Only the last path component survives; characters outside ``[A-Za-z0-9._-]`` become ``_``;
    the extension (which the format detection reads) is kept.

    Examples
    --------
    >>> safe_filename("../../evals/run a.jsonl")
    'run_a.jsonl'
    """
    base = re.split(r"[\\/]", name)[-1]
    base = _UNSAFE.sub("_", base).lstrip(".")
    if len(base) > 100:
        stem, dot, ext = base.rpartition(".")
        base = (stem[: 100 - len(ext) - 1] + dot + ext) if dot and len(ext) < 20 else base[-100:]
    return base or "upload"


class _Collector:
    """Callbacks for :class:`python_multipart.MultipartParser` that write files to disk."""

    def __init__(self, directory: Path, file_fields: frozenset[str], max_file_bytes: int):
        self.directory = directory
        self.file_fields = file_fields
        self.max_file_bytes = max_file_bytes
        self.result = ParsedUpload()
        self.parts = 0
        self._header_name = b""
        self._header_value = b""
        self._disposition = b""
        self._name: str | None = None
        self._file: IO[bytes] | None = None
        self._size = 0
        self._text = bytearray()

    # python-multipart calls these with (data, start, end) slices.
    def on_part_begin(self) -> None:
        self.parts += 1
        if self.parts > MAX_PARTS:
            raise MalformedUpload(f"too many parts in the upload (at most {MAX_PARTS})")
        self._disposition = b""
        self._name = None
        self._file = None
        self._size = 0
        self._text = bytearray()

    def on_header_field(self, data: bytes, start: int, end: int) -> None:
        self._header_name += data[start:end]

    def on_header_value(self, data: bytes, start: int, end: int) -> None:
        self._header_value += data[start:end]

    def on_header_end(self) -> None:
        if self._header_name.strip().lower() == b"content-disposition":
            self._disposition = self._header_value
        self._header_name = b""
        self._header_value = b""

    def on_headers_finished(self) -> None:
        _, options = parse_options_header(self._disposition)
        raw_name = options.get(b"name")
        if raw_name is None:
            raise MalformedUpload("a part of the upload has no name in its Content-Disposition")
        name = raw_name.decode("utf-8", "replace")
        self._name = name
        filename = options.get(b"filename")
        if name in self.file_fields:
            if filename is None:
                raise MalformedUpload(f"{name} must be a file, not a text field", field=name)
            if name in self.result.files:
                raise MalformedUpload(f"{name} was sent twice; send one file per field", field=name)
            original = filename.decode("utf-8", "replace")
            folder = self.directory / name
            folder.mkdir()
            path = folder / safe_filename(original)
            self._file = path.open("wb")
            self.result.files[name] = path
            self.result.filenames[name] = original or path.name
        elif filename is not None:
            expected = " and ".join(sorted(self.file_fields))
            raise MalformedUpload(
                f"unexpected file field {name!r}; send the files as {expected}", field=name
            )

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        chunk = data[start:end]
        if self._file is not None:
            self._size += len(chunk)
            if self._size > self.max_file_bytes:
                filename = self.result.filenames.get(self._name or "")
                raise UploadTooLarge(self._name, self.max_file_bytes, filename)
            self._file.write(chunk)
        else:
            self._text += chunk
            if len(self._text) > MAX_FIELD_BYTES:
                raise MalformedUpload(
                    f"text field {self._name!r} is longer than {MAX_FIELD_BYTES} bytes",
                    field=self._name,
                )

    def on_part_end(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        elif self._name is not None:
            value = self._text.decode("utf-8", "replace")
            self.result.fields.setdefault(self._name, []).append(value)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


async def read_multipart(
    content_type: str,
    stream: AsyncIterator[bytes],
    directory: Path,
    *,
    file_fields: frozenset[str],
    max_file_bytes: int,
) -> ParsedUpload:
    """Parse a ``multipart/form-data`` body, saving file parts under ``directory``.

    Parameters
    ----------
    content_type : str
        The request's ``Content-Type`` header (it carries the boundary).
    stream : async iterator of bytes
        The request body as it arrives.
    directory : pathlib.Path
        An empty directory owned by the caller; file ``f`` is saved as ``directory/f/<name>``.
    file_fields : frozenset of str
        The field names that must be files; any other file part is refused.
    max_file_bytes : int
        Per-file limit in bytes.

    Raises
    ------
    UploadTooLarge
        A file passed ``max_file_bytes`` (raised while streaming, before the rest is stored).
    MalformedUpload
        Not multipart, no boundary, broken framing, or unexpected parts.
    """
    kind, params = parse_options_header(content_type)
    if kind != b"multipart/form-data":
        raise MalformedUpload(
            "send the two files as multipart/form-data (an HTML form with "
            f"enctype=multipart/form-data, or curl -F); got Content-Type {content_type!r}"
        )
    boundary = params.get(b"boundary")
    if not boundary:
        raise MalformedUpload("the multipart Content-Type has no boundary")
    collector = _Collector(directory, file_fields, max_file_bytes)
    callbacks = {
        "on_part_begin": collector.on_part_begin,
        "on_part_data": collector.on_part_data,
        "on_part_end": collector.on_part_end,
        "on_header_field": collector.on_header_field,
        "on_header_value": collector.on_header_value,
        "on_header_end": collector.on_header_end,
        "on_headers_finished": collector.on_headers_finished,
    }
    try:
        parser = MultipartParser(boundary, callbacks)  # type: ignore[arg-type]
    except FormParserError as exc:
        raise MalformedUpload(f"unusable multipart boundary: {exc}") from exc
    try:
        async for chunk in stream:
            if chunk:
                parser.write(chunk)
        parser.finalize()
    except UploadTooLarge:
        collector.close()
        await _drain(stream)
        raise
    except FormParserError as exc:
        collector.close()
        raise MalformedUpload(f"the upload is not valid multipart/form-data: {exc}") from exc
    finally:
        collector.close()
    return collector.result


async def _drain(stream: AsyncIterator[bytes]) -> None:
    seen = 0
    try:
        async for chunk in stream:
            seen += len(chunk)
            if seen > DRAIN_BYTES:
                break
    except Exception:  # the client may hang up first; there is nothing left to do then
        return


_EOCD = b"PK\x05\x06"
_EOCD64_LOCATOR = b"PK\x06\x07"
_EOCD64 = b"PK\x06\x06"
_CENTRAL = b"PK\x01\x02"


def check_archive_directory(path: Path, max_members: int) -> None:
    """Refuse a ZIP archive whose central directory holds more than ``max_members`` entries.

    :mod:`zipfile` builds an object for every entry of the central directory as soon as an
    archive is opened, whatever the entry count the archive declares: a 50 MB upload of
    600,000 empty entries took 325 MB and 11 s to open. This walks the directory's records
    without building anything and stops at the first one past the limit. A file that is not
    a ZIP archive (no end-of-directory record) is left to the reader.

    Raises
    ------
    mcnemar.errors.InputFileError
        More entries than allowed (naming the file and the limit).

    Examples
    --------
    >>> import tempfile, pathlib, zipfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.eval"
    >>> with zipfile.ZipFile(p, "w") as z:
    ...     for i in range(3):
    ...         z.writestr(f"samples/{i}.json", "{}")
    >>> check_archive_directory(p, 3)
    >>> check_archive_directory(p, 2)
    Traceback (most recent call last):
    ...
    mcnemar.web.upload.OverBudget: ...: the archive lists 3 entries, more than the 2 allowed...
    """
    with path.open("rb") as f:
        f.seek(0, 2)
        size = f.tell()
        tail_start = max(0, size - (22 + 65535))
        f.seek(tail_start)
        tail = f.read()
        at = tail.rfind(_EOCD)
        if at < 0 or len(tail) - at < 22:
            return
        declared, cd_size, _ = struct.unpack_from("<HII", tail, at + 10)
        total: int = declared
        end = tail_start + at  # the central directory ends where this record starts
        locator = at - 20
        if locator >= 0 and tail[locator:locator + 4] == _EOCD64_LOCATOR:
            (record_at,) = struct.unpack_from("<Q", tail, locator + 8)
            f.seek(record_at)
            record = f.read(56)
            if record[:4] == _EOCD64 and len(record) == 56:
                total, cd_size = struct.unpack_from("<QQ", record, 32)
                end = tail_start + locator - 56
        if total > max_members:
            _refuse(path, str(total), max_members)
        # zipfile parses every record in the directory, whatever the count says: walk them.
        f.seek(max(0, end - cd_size))
        remaining = cd_size
        data = b""
        pos = 0

        def have(n: int) -> bool:
            nonlocal data, pos, remaining
            if len(data) - pos >= n:
                return True
            data = data[pos:]
            pos = 0
            while len(data) < n and remaining > 0:
                chunk = f.read(min(remaining, 1 << 20))
                if not chunk:
                    break
                remaining -= len(chunk)
                data += chunk
            return len(data) >= n

        count = 0
        while have(46) and data[pos:pos + 4] == _CENTRAL:
            count += 1
            if count > max_members:
                _refuse(path, f"at least {count}", max_members)
            n, m, k = struct.unpack_from("<HHH", data, pos + 28)
            skip = 46 + n + m + k
            if not have(skip):
                return
            pos += skip


def _refuse(path: Path, count: str, limit: int) -> None:
    raise OverBudget(
        f"the archive lists {count} entries, more than the {limit} allowed (a damaged file "
        "or a zip bomb?); if the log is genuine, raise the limit with mcnemar serve "
        "--max-archive-members N",
        path=str(path),
    )


#: Bytes each declared Parquet row is counted at against the read budget: one 8-byte value of
#: the key, the least any reader holds per row.
PARQUET_ROW_BYTES = 8


def check_parquet_rows(path: Path, max_inflated_bytes: int) -> None:
    """Refuse a Parquet file whose footer declares more rows than the read budget allows.

    Run-length and dictionary encodings let a few megabytes describe billions of rows, which
    the readers would then decode and align. The footer is read alone (no data pages), and
    each row is counted at :data:`PARQUET_ROW_BYTES` bytes.

    Raises
    ------
    OverBudget
        Too many rows (naming the file, the count and the budget).
    """
    try:
        import pyarrow.parquet as pq
    except ImportError:  # the reader will say what is missing
        return
    try:
        rows = pq.ParquetFile(path).metadata.num_rows
    except Exception:  # not readable as Parquet: the reader reports it in its own words
        return
    if rows * PARQUET_ROW_BYTES > max_inflated_bytes:
        raise OverBudget(
            f"the Parquet file declares {rows} rows, more than the read budget of "
            f"{max_inflated_bytes / 1024**2:g} MB allows ({max_inflated_bytes // PARQUET_ROW_BYTES}"
            " rows); if the file is genuine, raise the budget with mcnemar serve "
            "--max-inflated-mb MB",
            path=str(path),
        )
