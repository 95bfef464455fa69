"""Budgeted archive reading (mcnemar.io._archive): what a member costs in memory.

A member is read into one buffer of exactly its size, never grown, and a member that inflates
past the budget is refused having held a chunk of it at a time, whatever sizes the archive
declares. The archives are built byte by byte (PKWARE APPNOTE 6.3, section 4.3) so that the
declared sizes can lie; the zip bomb is a Zstandard frame of RLE blocks (RFC 8878).
"""

from __future__ import annotations

import os
import struct
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from mcnemar.errors import InputFileError
from mcnemar.io._archive import BoundedArchive, ReadLimits, zip_module

MiB = 1024**2
ZSTD = 93
DEFLATE = 8
STORED = 0


def zstd_run(total: int, byte: bytes = b" ") -> bytes:
    """A Zstandard frame that inflates to ``total`` copies of one byte, a multiple of 128 KiB
    (RLE blocks of 4 bytes each: 1 GiB is 32 kB on the wire)."""
    block = 128 * 1024
    head = (1 << 1) | (block << 3)
    frame_header = b"\x28\xb5\x2f\xfd" + bytes([0x00, 0x50])  # no content size, 1 MiB window
    return (frame_header + (head.to_bytes(3, "little") + byte) * (total // block - 1)
            + (head | 1).to_bytes(3, "little") + byte)


def deflate(data: bytes) -> bytes:
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15)  # raw deflate, as ZIP stores it
    return compressor.compress(data) + compressor.flush()


def one_entry_zip(path: Path, name: str, packed: bytes, method: int, declared: int,
                  crc: int) -> Path:
    """A one-entry archive declaring ``declared`` inflated bytes, whatever ``packed`` holds."""
    encoded = name.encode()
    local = struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 63, 0, method, 0, 0x21, crc,
                        len(packed), declared, len(encoded), 0) + encoded
    central = struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 63, 63, 0, method, 0, 0x21,
                          crc, len(packed), declared, len(encoded), 0, 0, 0, 0, 0, 0) + encoded
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 1, 1, len(central),
                      len(local) + len(packed), 0)
    path.write_bytes(local + packed + central + end)
    return path


def sample(size: int) -> bytes:
    """Text that compresses like a log (repetitive, not constant)."""
    line = b'{"id": %d, "score": "C", "input": "what is %d + %d?"}\n'
    out = b"".join(line % (i, i, i % 7) for i in range(size // 40 + 1))
    return out[:size]


def packed(data: bytes, method: int) -> bytes:
    if method == DEFLATE:
        return deflate(data)
    if method == ZSTD:
        zf = zip_module()
        if getattr(zf, "ZIP_ZSTANDARD", None) is None:
            pytest.skip("this Python's zipfile cannot read Zstandard members")
        if sys.version_info >= (3, 14):
            from compression import zstd
        else:
            from backports import zstd
        return bytes(zstd.compress(data))
    return data


def exact(buffer: bytearray) -> bool:
    """Whether a bytearray holds just its bytes (never grown: growing over-allocates)."""
    return buffer.__alloc__() == len(buffer) + 1


@pytest.mark.parametrize("method", [STORED, DEFLATE, ZSTD], ids=["stored", "deflate", "zstd"])
@pytest.mark.parametrize("declared", ["true", "more", "over budget"])
def test_a_member_is_read_into_a_buffer_of_its_size(tmp_path: Path, method: int,
                                                    declared: str) -> None:
    data = sample(3 * MiB + 12_345)
    sizes = {"true": len(data), "more": len(data) + 1000, "over budget": 0xFFFFFFFE}
    path = one_entry_zip(tmp_path / "a.eval", "samples.json", packed(data, method), method,
                         sizes[declared], zlib.crc32(data))
    with BoundedArchive(path, ReadLimits(max_inflated_bytes=8 * MiB)) as archive:
        out = archive.read("samples.json")
        assert archive.inflated == len(data)
    assert out == data
    assert exact(out), (len(out), out.__alloc__())


def test_a_member_declaring_less_than_it_holds_is_refused(tmp_path: Path) -> None:
    data = sample(100_000)
    path = one_entry_zip(tmp_path / "a.eval", "header.json", deflate(data), DEFLATE, 1000,
                         zlib.crc32(data))
    with BoundedArchive(path) as archive, \
            pytest.raises(InputFileError, match=r"cannot read archive entry header\.json"):
        archive.read("header.json")


def test_the_budget_counts_every_member_of_an_archive(tmp_path: Path) -> None:
    zf = zip_module()
    path = tmp_path / "two.eval"
    with zf.ZipFile(path, "w", zf.ZIP_DEFLATED) as z:
        z.writestr("a.json", b"a" * 600)
        z.writestr("b.json", b"b" * 600)
    with BoundedArchive(path, ReadLimits(max_inflated_bytes=1000)) as archive:
        assert archive.read("a.json") == b"a" * 600
        with pytest.raises(InputFileError, match=r"b\.json inflates past the read budget of "
                                                 r"1000 bytes") as info:
            archive.read("b.json")
    assert info.value.path == str(path)


def _peak_growth_kib(work: Callable[[], object]) -> int:
    """How far this process's peak resident memory rose above its resident memory while
    ``work`` ran (Linux: ``clear_refs`` restarts the peak; checked, since a kernel that
    ignored the write would leave the peak of everything before)."""
    status = Path(f"/proc/{os.getpid()}/status")
    if not status.exists():
        pytest.skip("needs /proc (Linux)")

    def kib(key: str) -> int:
        line = next(x for x in status.read_text().splitlines() if x.startswith(key + ":"))
        return int(line.split()[1])

    block = b"\x01" * (64 * MiB)  # a peak to be forgotten
    del block
    Path("/proc/self/clear_refs").write_text("5")
    before = kib("VmRSS")
    if kib("VmHWM") - before > 8 * 1024:
        raise RuntimeError("writing 5 to /proc/self/clear_refs did not reset the peak "
                           "resident memory: this kernel cannot measure it from here")
    work()
    return kib("VmHWM") - before


def test_a_zip_bomb_is_refused_without_holding_it(tmp_path: Path) -> None:
    if getattr(zip_module(), "ZIP_ZSTANDARD", None) is None:
        pytest.skip("this Python's zipfile cannot read Zstandard members")
    budget = 128 * MiB
    path = one_entry_zip(tmp_path / "bomb.eval", "header.json", zstd_run(1024 * MiB), ZSTD,
                         0xFFFFFFFE, 0)

    def read() -> None:
        with BoundedArchive(path, ReadLimits(max_inflated_bytes=budget)) as archive, \
                pytest.raises(InputFileError, match=r"header\.json inflates past the read "
                                                    r"budget of 128 MB"):
            archive.read("header.json")

    growth = _peak_growth_kib(read)
    assert growth < 16 * 1024, f"{growth / 1024:.0f} MiB for a {budget // MiB} MiB budget"


@pytest.mark.parametrize("declared", ["true", "over budget"])
def test_a_large_member_takes_its_size_once(tmp_path: Path, declared: str) -> None:
    size = 96 * MiB
    data = b" " * size
    path = one_entry_zip(tmp_path / "big.eval", "samples.json", deflate(data), DEFLATE,
                         size if declared == "true" else 0xFFFFFFFE, zlib.crc32(data))
    del data
    kept: list[bytearray] = []

    def read() -> None:
        with BoundedArchive(path, ReadLimits(max_inflated_bytes=128 * MiB)) as archive:
            kept.append(archive.read("samples.json"))

    growth = _peak_growth_kib(read)
    assert len(kept[0]) == size and exact(kept[0])
    assert growth < (size + 8 * MiB) // 1024, f"{growth / 1024:.0f} MiB for a 96 MiB member"
