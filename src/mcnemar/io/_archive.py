"""ZIP archives read under a budget, with every compression method current harnesses write.

Inspect AI writes its ``.eval`` logs as ZIP archives; since inspect-ai 0.3.180 every member is
compressed with Zstandard (ZIP method 93), which the standard library's :mod:`zipfile` reads
only from Python 3.14. On older Pythons the ``backports.zstd`` package (a core dependency there)
provides the same ``zipfile`` module with zstd support.

An archive is untrusted input: a few megabytes on the wire can inflate to gigabytes (a "zip
bomb"), and the sizes an archive declares for its members can lie. :class:`BoundedArchive`
therefore never trusts a declared size. It reads each member in chunks through the
decompressor and stops as soon as the bytes actually produced pass the budget
(:class:`ReadLimits`), counting all members of the archive together, and it refuses archives
with more members than the budget allows before reading any of them.

Memory is bounded by the budget once, not by a multiple of it: a member is inflated into one
buffer allocated at its final size and never grown (growing a buffer chunk by chunk can hold
the old and the new copy at once, wherever the allocator cannot extend it in place). The size
comes from the member's declaration when that fits the budget, and is checked as the member
is read; otherwise a first pass inflates the member only to count its bytes, keeping none, so
that a zip bomb is refused having held a chunk of it at a time.

Examples
--------
>>> import io, tempfile, pathlib, zipfile
>>> p = pathlib.Path(tempfile.mkdtemp()) / "a.zip"
>>> with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as z:
...     z.writestr("big.json", b" " * 10_000)
>>> with BoundedArchive(p, ReadLimits(max_inflated_bytes=5_000)) as arc:
...     arc.read("big.json")
Traceback (most recent call last):
...
mcnemar.errors.InputFileError: ...: archive member big.json inflates past the read budget ...
"""

from __future__ import annotations

import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any

from mcnemar.errors import InputFileError, option

__all__ = ["DEFAULT_LIMITS", "BoundedArchive", "ReadLimits", "zip_module"]

_CHUNK = 1 << 16


def zip_module() -> ModuleType:
    """The :mod:`zipfile` module that reads Zstandard members on this Python."""
    if sys.version_info >= (3, 14):
        return zipfile
    try:
        from backports.zstd import zipfile as zstd_zipfile
    except ImportError:  # the dependency is declared; this only protects a broken install
        return zipfile
    return zstd_zipfile


def _decompressor_errors() -> tuple[type[Exception], ...]:
    """What zlib, lzma and Zstandard raise on corrupt data (bz2 raises OSError)."""
    import lzma
    import zlib

    errors: list[type[Exception]] = [zlib.error, lzma.LZMAError]
    try:
        if sys.version_info >= (3, 14):
            from compression.zstd import ZstdError
        else:
            from backports.zstd import ZstdError
    except ImportError:  # no zstd here: zipfile then refuses its members as NotImplemented
        pass
    else:
        errors.append(ZstdError)
    return tuple(errors)


@dataclass(frozen=True, slots=True)
class ReadLimits:
    """How much work reading one archive may take.

    Parameters
    ----------
    max_inflated_bytes : int
        Bytes that all members read from one archive may inflate to, together. Counted from
        what the decompressor produces, never from the sizes the archive declares.
    max_members : int
        Entries an archive may list at all (a million tiny entries cost time even unread).
    max_parsed_bytes : int
        Bytes of Python objects that parsing the file(s) of one read may build, estimated
        before each parse (:mod:`mcnemar.io._budget`); applies to every reader.
    """

    max_inflated_bytes: int = 2 * 1024**3
    max_members: int = 2_000_000
    max_parsed_bytes: int = 8 * 1024**3

    def __post_init__(self) -> None:
        if self.max_inflated_bytes <= 0 or self.max_members <= 0 or self.max_parsed_bytes <= 0:
            raise ValueError("read limits must be positive")

    def describe(self) -> str:
        """The inflated-size budget in words (``"2048 MB"``)."""
        return _size(self.max_inflated_bytes)


#: The command line's default: generous for real logs (a 100,000-sample Inspect log reads
#: well under it), finite so that a hostile file cannot take the machine's memory.
DEFAULT_LIMITS = ReadLimits()


def _size(n: int) -> str:
    return f"{n / 1024**2:g} MB" if n >= 1024**2 else f"{n} bytes"


class BoundedArchive:
    """A ZIP archive opened for budgeted reading (a context manager).

    Parameters
    ----------
    path : path-like
        The archive.
    limits : ReadLimits, optional
        The budget; default :data:`DEFAULT_LIMITS`.
    """

    def __init__(self, path: str | Path, limits: ReadLimits | None = None) -> None:
        self.path = Path(path)
        self.limits = limits or DEFAULT_LIMITS
        self.inflated = 0
        zf = zip_module()
        # The backport's zipfile module has its own BadZipFile class: both mean a bad archive;
        # the decompressors raise their own error types on corrupt data.
        self._read_errors: tuple[type[Exception], ...] = (
            zf.BadZipFile, zipfile.BadZipFile, OSError, EOFError, ValueError, RuntimeError,
            *_decompressor_errors())
        try:
            self._zip: Any = zf.ZipFile(self.path)
        except self._read_errors as exc:
            raise InputFileError(f"not a readable ZIP archive ({exc})",
                                 path=str(self.path)) from None
        infos = self._zip.infolist()
        if len(infos) > self.limits.max_members:
            self._zip.close()
            raise InputFileError(
                f"the archive lists {len(infos)} entries, more than the {self.limits.max_members} "
                "allowed; it is not a log this program reads",
                path=str(self.path),
            )
        self._infos = {info.filename: info for info in infos}

    def __enter__(self) -> BoundedArchive:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Close the archive file."""
        self._zip.close()

    def namelist(self) -> list[str]:
        """The member names, in archive order."""
        return list(self._infos)

    def read(self, name: str) -> bytearray:
        """Inflate one member, refusing once the archive's budget is spent.

        The member is read into a buffer of exactly its size, so that reading it takes its
        size in memory and never more than what is left of the budget. A member that
        declares a size within the budget is read once, straight into a buffer of that size,
        and must fill it exactly; any other (one that declares more than the budget, such as
        a zip bomb, or more or less than it holds) is first inflated without keeping the
        bytes, only to count them, and refused as soon as they pass the budget, then read
        again into a buffer of the size counted.

        Parameters
        ----------
        name : str
            The member, as :meth:`namelist` spells it.

        Returns
        -------
        bytearray
            The member's bytes (the buffer itself: a member is in memory once).

        Raises
        ------
        InputFileError
            The member is missing, corrupt, uses a compression method this Python cannot
            read, inflates past the budget (naming the archive and the budget), or inflates
            to a different size on a second reading.
        """
        info = self._infos.get(name)
        if info is None:
            raise InputFileError(f"the archive has no entry {name}", path=str(self.path))
        budget = self.limits.max_inflated_bytes - self.inflated
        try:
            out = self._read_declared(info, budget)
            if out is None:
                size = self._count(info, name, budget)
                out = bytearray(size)
                filled, more = self._fill(info, out)
                if filled != size or more:
                    raise InputFileError(
                        f"archive entry {name} inflated to {size} bytes, then to a different "
                        "size when read again (the file changed while it was read?)",
                        path=str(self.path),
                    )
        except NotImplementedError as exc:
            raise InputFileError(
                f"archive entry {name} uses a compression method this installation cannot "
                f"read ({exc}; ZIP method {info.compress_type}); reinstall mcnemar so that "
                "its dependency backports-zstd is present",
                path=str(self.path),
            ) from None
        except self._read_errors as exc:
            if isinstance(exc, InputFileError):  # the budget refusal (a ValueError) as it is
                raise
            raise InputFileError(f"cannot read archive entry {name} ({exc})",
                                 path=str(self.path)) from None
        self.inflated += len(out)
        return out

    def _read_declared(self, info: Any, budget: int) -> bytearray | None:
        """The member read into a buffer of its declared size, if that is within ``budget``
        and the member holds exactly that; None otherwise (it is then counted first)."""
        declared = int(info.file_size)
        if not 0 <= declared <= budget:
            return None
        out = bytearray(declared)
        filled, more = self._fill(info, out)
        # A member that holds more or less than it declares (and still passes its checksum)
        # is counted instead: the buffer returned holds the member and nothing else.
        return out if filled == declared and not more else None

    def _fill(self, info: Any, out: bytearray) -> tuple[int, bool]:
        """Inflate the member into ``out``: the bytes written, and whether the member holds
        more than ``out`` has room for (never read beyond a single byte)."""
        filled = 0
        with self._zip.open(info) as member, memoryview(out) as view:
            while filled < len(out):
                got = member.readinto(view[filled:filled + _CHUNK])
                if not got:
                    break
                filled += got
            more = bool(member.read(1))
        return filled, more

    def _count(self, info: Any, name: str, budget: int) -> int:
        """The member's inflated size, keeping none of its bytes; refused past ``budget``."""
        size = 0
        with self._zip.open(info) as member:
            # Ask for at most one byte past the budget: the decompressor never produces
            # more than requested, whatever the member claims to hold.
            while chunk := member.read(min(_CHUNK, budget - size + 1)):
                size += len(chunk)
                if size > budget:
                    raise InputFileError(
                        f"archive member {name} inflates past the read budget of "
                        f"{self.limits.describe()} for one archive (a damaged file or a "
                        "zip bomb?); if the log is genuine, raise the budget with "
                        f"{option('limits', 'ReadLimits(max_inflated_bytes=N)')}",
                        path=str(self.path),
                    )
        return size
