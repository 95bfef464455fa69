"""`mcnemar serve` under attack, as a real process: what a hostile page, file or client meets.

Each test starts the real server (``python -m mcnemar serve --port 0``) and talks to it over
loopback with raw sockets or ``http.client``, so that what is checked is what a browser or a
script would meet: the status and the one JSON error shape, how long the server took, and its
memory (from ``/proc``). References for the rules: the Fetch standard (``Origin``,
``Sec-Fetch-Site``), RFC 9110 (413, 408), RFC 9112 section 9 (persistent connections and
closing them), RFC 8878 (the Zstandard frame the zip bomb is made of), PKWARE APPNOTE 6.3
(the ZIP layout).
"""

from __future__ import annotations

import contextlib
import functools
import http.client
import json
import os
import re
import socket
import struct
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("uvicorn")

from mcnemar.web._process import ServedProcess, served

EXAMPLE = {"a": 157, "b": 17, "c": 3, "d": 23}


# ----------------------------------------------------------------------------- the server


# `mcnemar serve --port 0 OPTIONS` in its own process, yielded once it answers, then stopped;
# a Server has its process, URL, host, port and stderr.
Server = ServedProcess
serve = served


def request(
    server: Server,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 30,
) -> tuple[int, dict[str, str], Any]:
    """One request on a fresh connection: status, headers (lower-case), decoded JSON body."""
    conn = http.client.HTTPConnection(server.host.strip("[]"), server.port, timeout=timeout)
    try:
        all_headers = {"Host": f"{server.host}:{server.port}"}
        all_headers.update(headers or {})
        conn.request(method, path, body=body, headers=all_headers)
        response = conn.getresponse()
        raw = response.read()
        got = {k.lower(): v for k, v in response.getheaders()}
        try:
            data = json.loads(raw) if raw else None
        except ValueError:
            data = raw
        return response.status, got, data
    finally:
        conn.close()


def post_json(server: Server, body: Any, **headers: str) -> tuple[int, dict[str, str], Any]:
    return request(
        server, "POST", "/api/v1/analyze", json.dumps(body).encode(),
        {"Content-Type": "application/json", **headers},
    )


def assert_error_shape(data: Any, status: int) -> str:
    assert set(data) == {"error"}, data
    error = data["error"]
    assert set(error) == {"status", "message", "field", "errors"}
    assert error["status"] == status
    assert error["errors"] and all(set(e) == {"field", "message", "type"} for e in error["errors"])
    return str(error["message"])


def multipart(files: dict[str, tuple[str, bytes]], boundary: str = "mcnemarboundary") -> bytes:
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; '
        f'filename="{name}"\r\nContent-Type: application/octet-stream\r\n\r\n'.encode()
        + data + b"\r\n"
        for field, (name, data) in files.items()
    ]
    return b"".join(parts) + f"--{boundary}--\r\n".encode()


MULTIPART = "multipart/form-data; boundary=mcnemarboundary"


def raw_connection(server: Server, timeout: float = 40) -> socket.socket:
    sock = socket.create_connection((server.host.strip("[]"), server.port), timeout=timeout)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def read_until_closed(sock: socket.socket) -> bytes:
    """What the server sends until it closes the connection (or resets it)."""
    received = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            return received
        if not chunk:
            return received
        received += chunk


def status_of(raw: bytes) -> int | None:
    match = re.match(rb"HTTP/1\.1 (\d{3}) ", raw)
    return int(match.group(1)) if match else None


# ----------------------------------------------------------------------------- memory


def _tree(pid: int) -> list[int]:
    """A process and its descendants (the server's compute workers and their forkserver).

    Linux lists a child under the thread that started it (``/proc/PID/task/TID/children``),
    and the server starts its workers from threads of its own, so every thread is asked: the
    main thread's list alone misses them until their starting thread has ended, and a
    measurement whose baseline missed them would count them, some 200 MB, as growth.
    Processes that end meanwhile are left out (their memory is gone).
    """
    tasks = Path(f"/proc/{pid}/task")
    try:
        threads = list(tasks.iterdir())
    except FileNotFoundError:
        return []
    if not (tasks / str(pid) / "children").exists() and (tasks / str(pid)).exists():
        raise RuntimeError("this kernel does not list child processes in /proc "
                           "(CONFIG_PROC_CHILDREN): the server's workers cannot be measured")
    pids = [pid]
    for thread in threads:
        try:
            children = (thread / "children").read_text().split()
        except FileNotFoundError:  # the thread ended meanwhile
            continue
        for child in children:
            pids.extend(_tree(int(child)))
    return pids


def _status_kib(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {key} for {pid}")


def _by_process(pid: int, key: str) -> dict[int, int]:
    """``key`` of /proc/PID/status (in KiB) for each process of the tree that has memory: one
    that is ending has released it (its status then has no memory lines), or is gone."""
    values = {}
    for p in _tree(pid):
        with contextlib.suppress(FileNotFoundError, ProcessLookupError, RuntimeError):
            values[p] = _status_kib(p, key)
    return values


def _settled_rss(pid: int, steady: float = 0.5, timeout: float = 60.0) -> dict[int, int]:
    """Resident memory of each process of the tree, once the tree holds still.

    The server answers requests before its compute workers are up (they start in the
    background and import the library, longer on a loaded machine): a baseline taken
    meanwhile would leave out what they are still to take, and the peak would count it.
    Still means the same processes, each within 1 MiB, for ``steady`` seconds.
    """
    deadline = time.monotonic() + timeout
    anchor = _by_process(pid, "VmRSS")
    since = time.monotonic()
    while True:
        time.sleep(0.05)
        now = _by_process(pid, "VmRSS")
        moved = now.keys() != anchor.keys() or any(
            abs(now[p] - anchor[p]) > 1024 for p in now)
        if moved:
            anchor, since = now, time.monotonic()
        elif time.monotonic() - since >= steady:
            return now
        if time.monotonic() > deadline:
            raise RuntimeError(f"the server's processes did not settle within {timeout:g} s "
                               f"(resident KiB by process: {now}); no baseline to measure from")


def rss_kib(pid: int) -> int:
    """Resident memory of a process and its descendants (the worker processes), once none of
    them is still starting or growing (the baseline of a measurement)."""
    return sum(_settled_rss(pid).values())


#: How far above its resident memory a process's peak may sit right after the reset (what
#: it may free in the instant between the reset and the reading).
_RESET_SLACK_KIB = 8 * 1024


@functools.cache
def _check_peak_reset() -> None:
    """Fail unless writing 5 to ``clear_refs`` restarts VmHWM here (Linux >= 4.0; a kernel
    or sandbox that accepts the write and ignores it would leave every peak measured since
    the process started, earlier requests and tests included). Once per test process."""
    block = b"\x01" * (64 * 1024**2)  # written, so resident: a peak 64 MiB above the rest
    del block
    Path("/proc/self/clear_refs").write_text("5")
    peak, resident = _status_kib(os.getpid(), "VmHWM"), _status_kib(os.getpid(), "VmRSS")
    if peak - resident > _RESET_SLACK_KIB:
        raise RuntimeError(
            "writing 5 to /proc/self/clear_refs did not reset the peak resident memory "
            f"(VmHWM {peak} KiB, VmRSS {resident} KiB): this kernel cannot measure a peak "
            "from a point in time, so the memory tests would count everything before it")


def reset_peaks(pid: int) -> None:
    """Restart the peak-RSS counters (``echo 5 > /proc/PID/clear_refs``, Linux >= 4.0).

    Checked twice, since a reset that silently does nothing makes every peak include what
    came before: on this process, and on each process of the tree (whose peak must then
    sit at its resident memory).
    """
    _check_peak_reset()
    for p in _tree(pid):
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            Path(f"/proc/{p}/clear_refs").write_text("5")
    peaks, resident = _by_process(pid, "VmHWM"), _by_process(pid, "VmRSS")
    stale = {p: (peaks[p], resident[p]) for p in peaks.keys() & resident.keys()
             if peaks[p] - resident[p] > _RESET_SLACK_KIB}
    if stale:
        raise RuntimeError(f"the peak of {sorted(stale)} did not restart (VmHWM, VmRSS KiB: "
                           f"{stale}); the measured peak would include earlier activity")


def peak_kib(pid: int) -> int:
    """Peak resident memory since :func:`reset_peaks`, summed over the process tree."""
    return sum(_by_process(pid, "VmHWM").values())


# ----------------------------------------------------------------------------- hostile files


def zstd_run(total: int, byte: bytes = b" ") -> bytes:
    """A Zstandard frame (RFC 8878) that decompresses to ``total`` copies of one byte.

    Every block is an RLE block (type 1): a 3-byte header giving the regenerated size (128 KiB,
    the largest block) and the one byte to repeat. 4 GiB are 32,768 blocks of 4 bytes: 128 kB
    on the wire, built without ever holding the inflated data.
    """
    block = 128 * 1024
    count = total // block
    head = (1 << 1) | (block << 3)
    frame_header = b"\x28\xb5\x2f\xfd" + bytes([0x00, 0x50])  # no content size, 1 MiB window
    return (
        frame_header
        + (head.to_bytes(3, "little") + byte) * (count - 1)
        + (head | 1).to_bytes(3, "little") + byte  # the last block
    )


def zip_of(name: str, data: bytes, method: int, declared_size: int) -> bytes:
    """A one-entry ZIP archive (APPNOTE 4.3) holding ``data`` as compressed with ``method``."""
    encoded = name.encode()
    local = struct.pack(
        "<4sHHHHHIIIHH", b"PK\x03\x04", 63, 0, method, 0, 0x21, 0, len(data), declared_size,
        len(encoded), 0,
    ) + encoded
    central = struct.pack(
        "<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 63, 63, 0, method, 0, 0x21, 0, len(data),
        declared_size, len(encoded), 0, 0, 0, 0, 0, 0,
    ) + encoded
    end = struct.pack(
        "<4sHHHHIIH", b"PK\x05\x06", 0, 0, 1, 1, len(central), len(local) + len(data), 0
    )
    return local + data + central + end


def many_entries(count: int) -> bytes:
    """A ZIP archive whose central directory lists ``count`` empty entries."""
    records = b"".join(
        struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, 0, 0, 0x21, 0, 0, 0,
                    8, 0, 0, 0, 0, 0, 0) + b"%08x" % i
        for i in range(count)
    )
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, len(records), 0, 0)
    return records + end


@pytest.fixture(scope="module")
def server_tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The server's temporary directory (its TMPDIR): its own, so that what it leaves there
    is told apart from the files of tests running beside it."""
    return tmp_path_factory.mktemp("server-tmp")


@pytest.fixture(scope="module")
def server(server_tmp: Path) -> Iterator[Server]:
    """One server with the default settings, shared by the tests that need nothing else."""
    with serve(env={"TMPDIR": str(server_tmp)}) as running:
        yield running


SMALL_CSV = b"id,correct\n" + b"".join(b"q%d,%d\n" % (i, i % 3 != 0) for i in range(50))


# ----------------------------------------------------------------------------- the tests


def test_zip_bomb_upload_is_refused_quickly_with_bounded_memory(server: Server) -> None:
    inflated = 4 * 1024**3
    bomb = zip_of("header.json", zstd_run(inflated), 93, 0xFFFFFFFE)
    assert len(bomb) < 200_000  # small on the wire: 4 GiB inflated
    # Warm up: the first upload imports the file readers, which is not the bomb's doing.
    status, _, _ = request(server, "POST", "/api/v1/compare",
                           multipart({"file_a": ("a.csv", SMALL_CSV),
                                      "file_b": ("b.csv", SMALL_CSV)}),
                           {"Content-Type": MULTIPART})
    assert status == 200
    before = rss_kib(server.proc.pid)
    reset_peaks(server.proc.pid)
    started = time.monotonic()
    status, _, data = request(
        server, "POST", "/api/v1/compare",
        multipart({"file_a": ("bomb.eval", bomb), "file_b": ("b.csv", SMALL_CSV)}),
        {"Content-Type": MULTIPART},
    )
    elapsed = time.monotonic() - started
    growth_mb = (peak_kib(server.proc.pid) - before) / 1024
    processes = len(_tree(server.proc.pid))
    message = assert_error_shape(data, 413)
    assert data["error"]["field"] == "file_a"
    assert "bomb.eval" in message and "256 MB" in message and "--max-inflated-mb" in message
    assert "/tmp" not in message
    print(f"zip bomb ({len(bomb)} bytes, {inflated / 1024**3:g} GiB inflated): 413 after "
          f"{elapsed:.2f} s, peak memory growth {growth_mb:.0f} MB over {processes} processes")
    assert growth_mb < 400
    assert elapsed < 20


def test_archive_budget_flags_reach_the_reader() -> None:
    bomb = zip_of("header.json", zstd_run(64 * 1024**2), 93, 0xFFFFFFFE)
    crowded = many_entries(3_000)
    with serve("--max-inflated-mb", "16", "--max-archive-members", "2000") as server:
        status, _, data = request(
            server, "POST", "/api/v1/compare",
            multipart({"file_a": ("a.csv", SMALL_CSV), "file_b": ("run.eval", bomb)}),
            {"Content-Type": MULTIPART},
        )
        assert status == 413 and data["error"]["field"] == "file_b"
        assert "run.eval" in data["error"]["message"] and "16 MB" in data["error"]["message"]
        # Too many entries: refused from the central directory, before zipfile parses it.
        status, _, data = request(
            server, "POST", "/api/v1/compare",
            multipart({"file_a": ("many.eval", crowded), "file_b": ("b.csv", SMALL_CSV)}),
            {"Content-Type": MULTIPART},
        )
        message = assert_error_shape(data, 413)
        assert "many.eval" in message and "2000 allowed" in message
        assert "--max-archive-members" in message


def test_oversized_json_body_is_refused_before_it_is_read(server: Server) -> None:
    # Declared: 100 MB announced, 1 kB sent; the answer comes without the rest.
    sock = raw_connection(server, timeout=10)
    started = time.monotonic()
    sock.sendall(
        b"POST /api/v1/analyze HTTP/1.1\r\nHost: localhost\r\n"
        b"Content-Type: application/json\r\nContent-Length: 100000000\r\n\r\n" + b" " * 1000
    )
    raw = read_until_closed(sock)
    elapsed = time.monotonic() - started
    sock.close()
    assert status_of(raw) == 413, raw[:200]
    head, _, body = raw.partition(b"\r\n\r\n")
    assert b"connection: close" in head.lower()
    assert_error_shape(json.loads(body), 413)
    assert elapsed < 5
    # Streamed without a length (chunked): refused once 64 KiB have arrived.
    sock = raw_connection(server, timeout=10)
    sock.sendall(
        b"POST /api/v1/analyze HTTP/1.1\r\nHost: localhost\r\n"
        b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    sent = 0
    raw = b""
    chunk = b"4000\r\n" + b" " * 0x4000 + b"\r\n"
    with contextlib.suppress(OSError):
        for _ in range(64):  # up to 1 MB, but the server answers after 64 KiB
            sock.sendall(chunk)
            sent += 0x4000
            sock.settimeout(0.05)
            try:
                first = sock.recv(65536)
            except TimeoutError:
                continue
            finally:
                sock.settimeout(10)
            if first:
                raw = first + read_until_closed(sock)
                break
    sock.close()
    assert status_of(raw) == 413, raw[:200]
    assert sent <= 256 * 1024
    # Small bodies still pass, and a GET's body is limited too.
    assert post_json(server, EXAMPLE)[0] == 200
    status, _, data = request(server, "GET", "/api/v1/health", b"x" * 100_000)
    assert status == 413 and assert_error_shape(data, 413)


def test_cross_site_posts_are_refused_and_same_origin_ones_served(server: Server) -> None:
    own = f"http://{server.host}:{server.port}"
    cases = {
        "foreign origin": {"Origin": "http://evil.example"},
        "cross-site": {"Sec-Fetch-Site": "cross-site"},
        "both": {"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"},
        "same-site": {"Origin": f"http://localhost:{server.port + 1}",
                      "Sec-Fetch-Site": "same-site"},
        "another port": {"Origin": f"http://{server.host}:{server.port + 1}"},
        "opaque origin": {"Origin": "null"},
    }
    for name, headers in cases.items():
        status, _, data = post_json(server, EXAMPLE, **headers)
        assert status == 403, name
        assert "only the calculator's own page" in assert_error_shape(data, 403)
        assert data["error"]["errors"][0]["type"] == "cross_origin"
    # The upload is refused the same way, before its body is read.
    status, _, data = request(
        server, "POST", "/api/v1/compare",
        multipart({"file_a": ("a.csv", SMALL_CSV), "file_b": ("b.csv", SMALL_CSV)}),
        {"Content-Type": MULTIPART, "Origin": "http://evil.example",
         "Sec-Fetch-Site": "cross-site"},
    )
    assert status == 403 and assert_error_shape(data, 403)
    # The page itself (same origin) and programs without Origin are served.
    same = {"Origin": own, "Sec-Fetch-Site": "same-origin"}
    status, _, data = post_json(server, EXAMPLE, **same)
    assert status == 200 and data["conclusion"]["better"] == "a"
    assert post_json(server, EXAMPLE)[0] == 200
    status, _, _ = request(
        server, "POST", "/api/v1/compare",
        multipart({"file_a": ("a.csv", SMALL_CSV), "file_b": ("b.csv", SMALL_CSV)}),
        {"Content-Type": MULTIPART, "Origin": own, "Sec-Fetch-Site": "same-origin"},
    )
    assert status == 200
    # Reading is not state-changing: a cross-site GET of the page is answered.
    status, _, _ = request(server, "GET", "/", headers={"Sec-Fetch-Site": "cross-site"})
    assert status == 200


def test_half_sent_requests_and_idle_connections_are_dropped() -> None:
    timeout = 2.0
    # On 127.0.0.2: any loopback address prints a URL that answers (it is an allowed host).
    with serve("--host", "127.0.0.2", "--request-timeout", str(timeout),
               "--keep-alive-timeout", "3") as server:
        assert server.url == f"http://127.0.0.2:{server.port}/"
        conn = http.client.HTTPConnection("127.0.0.2", server.port, timeout=30)
        conn.request("POST", "/api/v1/analyze", body=json.dumps(EXAMPLE),
                     headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        assert response.status == 200
        # 2 * P(Bin(20, 1/2) <= 3) = 2 * 1351 / 2**20
        assert json.loads(response.read())["tests"]["exact"]["pvalue"] == pytest.approx(
            2 * 1351 / 2**20, rel=1e-13)
        conn.close()
        probes = {
            "headers stop half-way": b"POST /api/v1/analyze HTTP/1.1\r\nHost: localhost\r\n",
            "body stops half-way": (
                b"POST /api/v1/analyze HTTP/1.1\r\nHost: localhost\r\n"
                b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"b\": 1"
            ),
            "upload stops half-way": (
                b"POST /api/v1/compare HTTP/1.1\r\nHost: localhost\r\n"
                b"Content-Type: " + MULTIPART.encode() + b"\r\nContent-Length: 100000\r\n\r\n"
                + multipart({"file_a": ("a.csv", SMALL_CSV)})[:-30]
            ),
            "nothing sent": b"",
        }
        results: dict[str, tuple[float, bytes]] = {}

        def probe(name: str, data: bytes) -> None:
            sock = raw_connection(server)
            started = time.monotonic()
            if data:
                sock.sendall(data)
            raw = read_until_closed(sock)
            results[name] = (time.monotonic() - started, raw)
            sock.close()

        def trickle() -> None:
            # One byte of body every 0.4 s: never a pause of 2 s, but far below any real
            # network's rate, so the minimum rate drops it.
            sock = raw_connection(server)
            started = time.monotonic()
            sock.sendall(b"POST /api/v1/analyze HTTP/1.1\r\nHost: localhost\r\n"
                         b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
            raw = b""
            sock.settimeout(0.4)
            for _ in range(100):
                try:
                    sock.sendall(b" ")
                    raw = sock.recv(65536)
                except TimeoutError:
                    continue
                except OSError:
                    break
                break
            sock.settimeout(40)
            raw += read_until_closed(sock)
            results["body trickles"] = (time.monotonic() - started, raw)
            sock.close()

        threads = [threading.Thread(target=probe, args=item) for item in probes.items()]
        threads.append(threading.Thread(target=trickle))
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        # Still serving everyone else.
        assert post_json(server, EXAMPLE)[0] == 200
    for name, (elapsed, raw) in sorted(results.items()):
        print(f"{name}: dropped after {elapsed:.1f} s, status {status_of(raw)}")
    assert set(results) == {*probes, "body trickles"}
    for name, (elapsed, raw) in results.items():
        assert elapsed < 30, name
        if name == "nothing sent":
            assert raw == b"" and 2.5 <= elapsed < 6, (name, elapsed)
        else:
            assert status_of(raw) == 408, (name, raw[:200])
            assert timeout - 0.2 <= elapsed < timeout + 4, (name, elapsed)
    stderr = server.stderr()
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr


def test_default_time_limits_reach_the_protocol(monkeypatch: pytest.MonkeyPatch) -> None:
    """The defaults (10 s for a request, 20 s idle) without waiting for them: the configuration
    handed to uvicorn is inspected instead of started."""
    import uvicorn
    from click.testing import CliRunner

    from mcnemar.cli import main
    from mcnemar.web.server import (
        DEFAULT_KEEP_ALIVE_TIMEOUT,
        DEFAULT_REQUEST_TIMEOUT,
        GuardedH11Protocol,
    )

    seen: dict[str, Any] = {}

    class FakeServer:
        def __init__(self, config: Any) -> None:
            seen["config"] = config

        def run(self, sockets: Any = None) -> None:
            seen["ran"] = True

    monkeypatch.setattr(uvicorn, "Server", FakeServer)
    result = CliRunner().invoke(main, ["serve", "--port", "0"])
    assert result.exit_code == 0, result.output
    config = seen["config"]
    assert DEFAULT_REQUEST_TIMEOUT == config.request_timeout == 10.0
    assert DEFAULT_KEEP_ALIVE_TIMEOUT == config.timeout_keep_alive == 20.0
    assert config.http is GuardedH11Protocol
    assert ("keep-alive", "timeout=18") in config.headers
    # A half-sent request is dropped within the limit asked for: well under 30 s.
    assert config.request_timeout + 4 < 30


def test_foreign_host_is_refused_whatever_the_bind_address() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "mcnemar", "serve", "--host", "0.0.0.0", "--port", "0"],
        capture_output=True, text=True, timeout=60,
    )
    assert out.returncode == 2
    assert "--allowed-host" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    # With two workers: the settings travel to them through the environment.
    with serve("--host", "0.0.0.0", "--allowed-host", "calc.test", "--workers", "2") as server:
        assert server.url == f"http://127.0.0.1:{server.port}/"
        for host, expected in (
            ("evil.example", 400),
            (f"evil.example:{server.port}", 400),
            (f"calc.test:{server.port}", 200),
            (f"127.0.0.1:{server.port}", 200),
            ("localhost", 200),
        ):
            status, _, data = post_json(server, EXAMPLE, Host=host)
            assert status == expected, host
            if expected == 400:
                assert "unexpected Host" in assert_error_shape(data, 400)
    stdout_rest = server.proc.stdout.read() if server.proc.stdout else ""
    assert f"http://calc.test:{server.port}/" in stdout_rest
    assert "calc.test" in server.stderr()  # the warning names what it answers to


def test_keep_alive_2000_requests_at_50_concurrent_without_errors(server: Server) -> None:
    per_client, clients = 40, 50
    errors: Counter[str] = Counter()
    kept = Counter[bool]()
    lock = threading.Lock()
    body = json.dumps(EXAMPLE).encode()
    headers = {"Content-Type": "application/json", "Host": f"127.0.0.1:{server.port}"}

    def client() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        for _ in range(per_client):
            try:
                conn.request("POST", "/api/v1/analyze", body=body, headers=headers)
                response = conn.getresponse()
                response.read()
                with lock:
                    if response.status != 200:
                        errors[f"status {response.status}"] += 1
                    kept[response.getheader("connection") != "close"] += 1
            except OSError as exc:
                with lock:
                    errors[type(exc).__name__] += 1
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        conn.close()

    # Meanwhile one connection stays idle for 6 s, past uvicorn's former 5 s keep-alive (equal
    # to the 5 s pool expiry of httpx, so the two raced): the server must not close it first.
    idle = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    idle.request("POST", "/api/v1/analyze", body=body, headers=headers)
    first = idle.getresponse()
    first.read()
    idle_since = time.monotonic()
    started = time.monotonic()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    elapsed = time.monotonic() - started
    time.sleep(max(0.0, 6 - (time.monotonic() - idle_since)))
    idle.request("POST", "/api/v1/analyze", body=body, headers=headers)
    assert idle.getresponse().status == 200
    idle.close()
    print(f"{clients * per_client} keep-alive requests, {clients} concurrent: "
          f"{sum(errors.values())} errors in {elapsed:.1f} s")
    assert not errors, errors
    assert kept[True] == clients * per_client
    assert first.getheader("keep-alive") == "timeout=18"


def test_an_abandoned_upload_is_one_line_in_the_log(server: Server, server_tmp: Path) -> None:
    before = set(server_tmp.glob("mcnemar-upload-*"))
    logged = len(server.output)
    sock = raw_connection(server)
    sock.sendall(
        b"POST /api/v1/compare HTTP/1.1\r\nHost: localhost\r\n"
        b"Content-Type: " + MULTIPART.encode() + b"\r\nContent-Length: 10000000\r\n\r\n"
        + multipart({"file_a": ("a.csv", SMALL_CSV * 100)})[:-30]
    )
    time.sleep(0.5)
    sock.close()
    deadline = time.monotonic() + 10
    while len(server.output) == logged and time.monotonic() < deadline:
        time.sleep(0.1)
    assert post_json(server, EXAMPLE)[0] == 200
    time.sleep(0.3)
    stderr = "".join(server.output[logged:])
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    assert len(stderr.strip().splitlines()) == 1, stderr
    assert "closed the connection during the upload" in stderr
    # The upload's temporary directory is gone.
    assert not set(server_tmp.glob("mcnemar-upload-*")) - before


def test_accepted_connections_send_without_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each response leaves in two writes (head, body); with Nagle's algorithm on, the body
    waits for the client's delayed acknowledgement of the head (40 ms on Linux) on every
    kept-alive request. The listening socket is bound as ``mcnemar serve`` binds it (protocol
    0, on whose connections asyncio does not set TCP_NODELAY itself); the protocol sets it on
    every connection it accepts (checked on the real socket, after the protocol's hook)."""
    import uvicorn

    from mcnemar.cli.serve import _bind
    from mcnemar.web import server as web_server
    from mcnemar.web.server import GuardedH11Protocol, ServeConfig

    seen: list[int] = []
    real = web_server._no_delay

    def recording(transport: Any) -> None:
        real(transport)
        sock = transport.get_extra_info("socket")
        seen.append(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

    monkeypatch.setattr(web_server, "_no_delay", recording)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    listener = _bind("127.0.0.1", 0)
    assert listener.proto == 0
    port = listener.getsockname()[1]
    server = uvicorn.Server(ServeConfig(app, http=GuardedH11Protocol, log_level="warning",
                                        lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    try:
        for _ in range(200):
            if server.started:
                break
            time.sleep(0.05)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        for _ in range(2):  # two requests on one kept-alive connection
            conn.request("GET", "/")
            assert conn.getresponse().read() == b"ok"
        conn.close()
    finally:
        server.should_exit = True
        thread.join(10)
        listener.close()
    assert seen == [1]


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=200))
def test_plain_lines_removes_exactly_the_control_characters_but_line_breaks_and_tabs(
        text: str) -> None:
    """The one-pass form equals its definition: every character is_control accepts goes,
    except the line break and the tab (every string the server sends passes through it)."""
    from mcnemar._format import is_control, plain_lines

    assert plain_lines(text) == "".join(ch for ch in text if ch in "\n\t" or not is_control(ch))


def test_plain_lines_on_every_control_character() -> None:
    from mcnemar._format import is_control, plain_lines

    every = "".join(chr(i) for i in range(0x3000))
    assert plain_lines(every) == "".join(ch for ch in every
                                         if ch in "\n\t" or not is_control(ch))


class _Name(str):
    """A string subclass, as a library may hand one over."""


def _cleaned_by_definition(obj: object) -> object:
    """Every string of ``obj`` (keys too, subclasses too) through plain_lines, tuples as lists:
    what clean_strings promises, written the plain way."""
    from mcnemar._format import plain_lines

    if isinstance(obj, str):
        return plain_lines(obj)
    if isinstance(obj, dict):
        return {plain_lines(k) if isinstance(k, str) else k: _cleaned_by_definition(v)
                for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_cleaned_by_definition(v) for v in obj]
    return obj


_text = st.text(alphabet=st.characters(codec="utf-8"), max_size=20)
_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), _text,
                  _text.map(_Name))
_bodies = st.recursive(_leaf, lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.tuples(inner, inner),
    st.dictionaries(st.one_of(_text, _text.map(_Name), st.integers()), inner, max_size=5)),
    max_leaves=40)


@settings(deadline=None)
@given(_bodies)
def test_every_string_of_a_body_is_cleaned(body: object) -> None:
    from mcnemar.web.respond import clean_strings

    got = clean_strings(body)
    assert got == _cleaned_by_definition(body)
    assert repr(got) == repr(_cleaned_by_definition(body))  # (the same types: no str subclass)
