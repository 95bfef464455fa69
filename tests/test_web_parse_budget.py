"""Files small on the wire that parse into a great many objects, against a real `mcnemar serve`.

The inflate budget counts bytes; these files stay far inside it and would still build
gigabytes of Python objects (``[{},{},...]``: a dict of ~64 bytes for every 3 bytes of
text). Each is uploaded to the real server (``python -m mcnemar serve``), which must answer
below 500 within 30 s, grow by at most 400 MB (its peak resident memory, from ``/proc``), and
still answer its health check; deep nesting is refused on the server and the command line.
The parse budget itself is :mod:`mcnemar.io._budget`.
"""

from __future__ import annotations

import io
import json
import threading
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mcnemar.cli import main
from mcnemar.errors import InputFileError
from mcnemar.io import read_run
from mcnemar.io._budget import parse_budget

pytest.importorskip("uvicorn")

from test_web_security import (
    MULTIPART,
    SMALL_CSV,
    Server,
    assert_error_shape,
    multipart,
    peak_kib,
    request,
    reset_peaks,
    rss_kib,
    serve,
)

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

HEADER = {"version": 2, "status": "success",
          "eval": {"task": "arith", "model": "m", "dataset": {"name": "arith"}}}


def empty_objects(megabytes: int) -> bytes:
    """``[{},{},...]`` of about ``megabytes`` MB: ~350,000 dicts a megabyte."""
    count = megabytes * 1024**2 // 3
    return b"[" + b"{}," * (count - 1) + b"{}]"


def eval_archive(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def deep(levels: int) -> bytes:
    return b"[" * levels + b"]" * levels


def _summaries_bomb() -> tuple[str, bytes]:
    return "bomb.eval", eval_archive({"header.json": json.dumps(HEADER).encode(),
                                      "summaries.json": empty_objects(24)})


def _header_bomb() -> tuple[str, bytes]:
    header = json.dumps({**HEADER, "plan": {"steps": []}}).encode()[:-1] + b', "x": ' \
        + empty_objects(24) + b"}"
    return "bomb.eval", eval_archive({"header.json": header, "summaries.json": b"[]"})


def _inspect_json_bomb() -> tuple[str, bytes]:
    body = json.dumps(HEADER).encode()[:-1] + b', "samples": ' + empty_objects(20) + b"}"
    return "bomb.json", body


def _helm_bomb() -> tuple[str, bytes]:
    first = json.dumps({"instance_id": "i0", "perturbation": None, "train_trial_index": 0,
                        "stats": [{"name": {"name": "exact_match"}, "mean": 1.0}]}).encode()
    return "per_instance_stats.json", b"[" + first + b"," + empty_objects(20)[1:]


def _parquet_rows() -> tuple[str, bytes]:
    # 30 million rows of one repeated value: run-length encoded into a few hundred KB.
    rows = 30_000_000
    table = pa.table({"id": pa.repeat(pa.scalar(7, pa.int64()), rows),
                      "score": pa.repeat(pa.scalar(1, pa.int8()), rows)})
    buffer = io.BytesIO()
    pq.write_table(table, buffer, compression="zstd", row_group_size=1_000_000)
    return "rows.parquet", buffer.getvalue()


def _footer_declares_one_row() -> tuple[str, bytes]:
    """5 million rows whose file footer says 1 (the Thrift compact FileMetaData of the Parquet
    format: field 3, num_rows, an i64 written as 0x16 and a zigzag varint, after the schema);
    the row group still holds all of them, as a patched file would."""
    import struct

    rows = 5_000_000
    table = pa.table({"id": pa.repeat(pa.scalar(7, pa.int64()), rows),
                      "score": pa.repeat(pa.scalar(1, pa.int8()), rows)})
    buffer = io.BytesIO()
    pq.write_table(table, buffer, compression="zstd", row_group_size=rows)
    data = buffer.getvalue()
    length = struct.unpack("<I", data[-8:-4])[0]
    start = len(data) - 8 - length
    footer = data[start:-8]

    def varint(n: int) -> bytes:
        out = b""
        while True:
            low, n = n & 0x7F, n >> 7
            if not n:
                return out + bytes([low])
            out += bytes([low | 0x80])

    declared = b"\x16" + varint(rows << 1)
    at = footer.find(declared)  # the first: the file's num_rows (the schema precedes it)
    assert at > 0
    patched = footer[:at] + b"\x16" + varint(1 << 1) + footer[at + len(declared):]
    out = data[:start] + patched + struct.pack("<I", len(patched)) + b"PAR1"
    assert pq.ParquetFile(io.BytesIO(out)).metadata.num_rows == 1
    return "one_row.parquet", out


ATTACKS: dict[str, Callable[[], tuple[str, bytes]]] = {
    "summaries.json of 24 MB of empty objects in a small .eval": _summaries_bomb,
    "the same in header.json": _header_bomb,
    "an Inspect .json log of 20 MB of empty samples": _inspect_json_bomb,
    "a HELM JSON of 20 MB of empty objects": _helm_bomb,
    "a Parquet file of 30 million rows": _parquet_rows,
    "a Parquet file whose footer declares 1 row of 5 million": _footer_declares_one_row,
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serve(env={"TMPDIR": str(tmp_path_factory.mktemp("server-tmp"))}) as running:
        # Warm up: the first upload imports the readers, which is not the attack's doing.
        status, _, _ = upload(running, ("a.csv", SMALL_CSV))
        assert status == 200
        yield running


def upload(server: Server, file_a: tuple[str, bytes],
           file_b: tuple[str, bytes] = ("b.csv", SMALL_CSV)) -> tuple[int, dict[str, str], Any]:
    return request(server, "POST", "/api/v1/compare",
                   multipart({"file_a": file_a, "file_b": file_b}),
                   {"Content-Type": MULTIPART}, timeout=60)


def healthy(server: Server) -> bool:
    status, _, data = request(server, "GET", "/api/v1/health", timeout=5)
    return status == 200 and data["status"] == "ok"


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_dense_uploads_are_refused_with_bounded_memory(server: Server, attack: str) -> None:
    name, data = ATTACKS[attack]()
    assert len(data) < 21 * 1024**2
    before = rss_kib(server.proc.pid)
    reset_peaks(server.proc.pid)
    started = time.monotonic()
    status, _, answer = upload(server, (name, data))
    elapsed = time.monotonic() - started
    growth_mb = (peak_kib(server.proc.pid) - before) / 1024
    print(f"{attack} ({len(data)} bytes): {status} after {elapsed:.2f} s, peak memory growth "
          f"{growth_mb:.0f} MB")
    assert status < 500
    message = assert_error_shape(answer, status)
    assert status == 413 and answer["error"]["field"] == "file_a", message
    assert "parse budget" in message and "--max-parsed-mb" in message, message
    assert growth_mb < 400 and elapsed < 30
    assert healthy(server)


def test_two_dense_uploads_at_once_stay_bounded(server: Server) -> None:
    name, data = _summaries_bomb()
    before = rss_kib(server.proc.pid)
    reset_peaks(server.proc.pid)
    answers: list[int] = []
    threads = [threading.Thread(target=lambda: answers.append(upload(server, (name, data))[0]))
               for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    growth_mb = (peak_kib(server.proc.pid) - before) / 1024
    print(f"two dense uploads at once: {answers}, peak memory growth {growth_mb:.0f} MB")
    assert sorted(answers) == [413, 413] and growth_mb < 800
    assert healthy(server)


@pytest.mark.parametrize("where", ["eval", "helm", "jsonl"])
def test_deep_nesting_is_a_4xx_on_the_server(server: Server, where: str) -> None:
    nested = deep(100_000)
    if where == "eval":
        file_a = ("deep.eval", eval_archive({"header.json": nested}))
    elif where == "helm":
        file_a = ("per_instance_stats.json", b'[{"instance_id": "i", "stats": ' + nested + b"}]")
    else:
        file_a = ("deep.jsonl", b'{"id": 1, "correct": 1}\n{"id": 2, "correct": ' + nested
                  + b"}\n")
    status, _, answer = upload(server, file_a)
    message = assert_error_shape(answer, status)
    assert status == 422 and "nested too deeply" in message, message
    assert healthy(server)


@pytest.mark.parametrize("where", ["eval", "helm", "jsonl"])
def test_deep_nesting_is_exit_2_on_the_command_line(tmp_path: Path, where: str) -> None:
    nested = deep(100_000)
    if where == "eval":
        path = tmp_path / "deep.eval"
        path.write_bytes(eval_archive({"header.json": nested}))
    elif where == "helm":
        path = tmp_path / "per_instance_stats.json"
        path.write_bytes(b'[{"instance_id": "i", "stats": ' + nested + b"}]")
    else:
        path = tmp_path / "deep.jsonl"
        path.write_bytes(b'{"id": 1, "correct": 1}\n{"id": 2, "correct": ' + nested + b"}\n")
    result = CliRunner().invoke(main, ["compare", str(path), str(path)])
    assert result.exit_code == 2, result.output
    assert "nested too deeply" in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_the_parse_budget_counts_decoded_parquet_rows(tmp_path: Path) -> None:
    # The rows counted are those decoded, batch by batch, not the footer's.
    path = tmp_path / "rows.parquet"
    path.write_bytes(_parquet_rows()[1])
    with parse_budget(64 * 1024**2, counted=True), \
            pytest.raises(InputFileError, match="parse budget"):
        read_run(path)


def test_an_ordinary_file_reads_under_the_server_budget(tmp_path: Path) -> None:
    # 200,000 items of a generic JSONL file: far under the server's default budget.
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps({"id": f"q{i}", "correct": i % 3 > 0,
                                        "input": "What is 2 + 2? " * 4}) + "\n"
                            for i in range(200_000)))
    with parse_budget(300 * 1024**2, counted=True):
        assert read_run(path).records == 200_000


def test_the_command_line_budget_is_named_by_its_flag(tmp_path: Path) -> None:
    path = tmp_path / "per_instance_stats.json"
    path.write_bytes(_helm_bomb()[1])
    result = CliRunner().invoke(main, ["compare", str(path), str(path), "--max-parsed-mb",
                                       "50"])
    assert result.exit_code == 2
    assert "parse budget of 50 MB" in result.output and "--max-parsed-mb" in result.output


def test_two_archives_near_the_inflate_budget_at_once(server: Server) -> None:
    # 250 MB of white space in one member: under the 256 MB inflate budget, and cheap objects;
    # the inflated bytes and their decoded text are what it costs, charged before decoding.
    from test_web_security import zip_of, zstd_run

    archive = zip_of("header.json", zstd_run(250 * 1024**2), 93, 0xFFFFFFFE)
    before = rss_kib(server.proc.pid)
    reset_peaks(server.proc.pid)
    answers: list[int] = []
    threads = [threading.Thread(target=lambda: answers.append(
        upload(server, ("space.eval", archive))[0])) for _ in range(2)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    growth_mb = (peak_kib(server.proc.pid) - before) / 1024
    print(f"two 250 MB archives at once: {answers} after {time.monotonic() - started:.1f} s, "
          f"peak memory growth {growth_mb:.0f} MB")
    assert len(answers) == 2 and all(400 <= s < 500 for s in answers)
    assert growth_mb < 800
    assert healthy(server)
