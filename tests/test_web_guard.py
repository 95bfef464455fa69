"""The guard's rules at their edges, against a real `mcnemar serve`: the Host header parsed
exactly (RFC 9110 section 7.2: ``uri-host [ ":" port ]``), the header limit whatever way the
headers arrive, and names from files cleaned of control and bidirectional characters in
every JSON body the page renders (Unicode Standard Annex #9: U+202E reorders what follows).
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

pytest.importorskip("uvicorn")

from test_web_security import (
    EXAMPLE,
    MULTIPART,
    Server,
    assert_error_shape,
    multipart,
    post_json,
    read_until_closed,
    request,
    serve,
    status_of,
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serve(env={"TMPDIR": str(tmp_path_factory.mktemp("server-tmp"))}) as running:
        yield running


@pytest.mark.parametrize("host", [
    "127.0.0.1:{port}@evil.example", "127.0.0.1:{port}:80", "127.0.0.1:abc",
    "127.0.0.1:{port}/x", "user@127.0.0.1:{port}", "127.0.0.1 :{port}", "[::1]x:{port}",
    "127.0.0.1:{port}#", "",
])
def test_malformed_host_headers_are_refused(server: Server, host: str) -> None:
    status, _, data = post_json(server, EXAMPLE, Host=host.format(port=server.port))
    assert status == 400, host
    assert "unexpected Host" in assert_error_shape(data, 400)


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST",
                                  "127.0.0.1"])
def test_well_formed_host_headers_are_served(server: Server, host: str) -> None:
    status, _, _ = post_json(server, EXAMPLE, Host=host.format(port=server.port))
    assert status == 200, host


@pytest.mark.parametrize("kib", [17, 30, 60])
def test_headers_over_16_kib_are_refused_in_one_piece(server: Server, kib: int) -> None:
    # All headers in one send: the HTTP parser never holds them incomplete.
    head = (f"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
            f"X-Padding: {'a' * (kib * 1024)}\r\n\r\n").encode()
    with socket.create_connection((server.host, server.port), timeout=20) as sock:
        sock.sendall(head)
        raw = read_until_closed(sock)
    assert status_of(raw) in (400, 431), raw[:200]


def test_headers_under_the_limit_are_served(server: Server) -> None:
    status, _, data = request(server, "GET", "/api/v1/health", headers={"X-Padding": "a" * 8000})
    assert status == 200 and data["status"] == "ok"


def test_names_from_files_reach_the_page_without_control_characters(server: Server) -> None:
    # A task named to look like "safeexe.png" on screen, a model with an escape sequence.
    trick = "safe\u202egnp.exe"
    rows = "".join(f"{trick},q{i},{i % 2},{int(i % 3 > 0)}\n" for i in range(12))
    file_a = ("a\u202eb.csv", ("task,id,correct,other\n" + rows).encode())
    file_b = ("b.csv", ("task,id,correct,other\n" + rows.replace(",1\n", ",0\n")).encode())
    body = multipart({"file_a": file_a, "file_b": file_b})
    body = body.replace(b'name="file_b"', b'name="task_column"\r\n\r\ntask\r\n--mcnemarboundary'
                        b'\r\nContent-Disposition: form-data; name="file_b"', 1)
    status, _, data = request(server, "POST", "/api/v1/compare", body,
                              {"Content-Type": MULTIPART})
    assert status == 200, data
    found: list[str] = []

    def strings(obj: object) -> None:
        if isinstance(obj, str):
            found.append(obj)
        elif isinstance(obj, dict):
            for key, value in obj.items():
                strings(key)
                strings(value)
        elif isinstance(obj, list):
            for value in obj:
                strings(value)

    strings(data)
    assert any("safegnp.exe" in s for s in found)
    bad = [s for s in found if any(ch in s for ch in "\u202e\u202d\u2066\u2067\u2068\u2069\x1b")]
    assert bad == []


def test_errors_are_cleaned_too(server: Server) -> None:
    file_a = ("a\u202e.csv", b"nothing,here\n1,2\n")
    status, _, data = request(server, "POST", "/api/v1/compare",
                              multipart({"file_a": file_a, "file_b": ("b.csv", b"id,score\n")}),
                              {"Content-Type": MULTIPART})
    message = assert_error_shape(data, status)
    assert status == 422 and "\u202e" not in message


def test_a_client_that_reads_nothing_is_dropped() -> None:
    # Pipelined requests for a large file, none of the answers read: once the server's send
    # buffer is full it waits for the client only --request-timeout seconds.
    import time
    import urllib.request

    with serve("--request-timeout", "1") as short:
        with urllib.request.urlopen(short.url + "static/app.js", timeout=10) as answer:
            one = len(answer.read())
        ask = f"GET /static/app.js HTTP/1.1\r\nHost: 127.0.0.1:{short.port}\r\n\r\n".encode()
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connecting
        sock.connect((short.host, short.port))
        with sock:
            sock.setblocking(False)
            try:
                for _ in range(3000):
                    sock.send(ask)
            except BlockingIOError:
                pass
            time.sleep(3)
            status, _, data = request(short, "GET", "/api/v1/health", timeout=5)
            assert status == 200 and data["status"] == "ok"
            sock.setblocking(True)
            sock.settimeout(10)
            received = len(read_until_closed(sock))
    # Far less than the 3000 answers asked for: the connection was dropped.
    assert one > 10_000 and received < 1000 * one
