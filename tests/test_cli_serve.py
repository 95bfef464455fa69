"""`mcnemar serve` as a real process: one worker and several."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import urllib.request
from collections.abc import Iterator

import pytest

pytest.importorskip("uvicorn")

from mcnemar.web._process import served


def _post(url: str, body: dict, host: str | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(
        url + "api/v1/analyze",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", **({"Host": host} if host else {})},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@contextlib.contextmanager
def _serve(*options: str) -> Iterator[str]:
    """Run `mcnemar serve --port 0 OPTIONS` as a real process; yield its URL as soon as it
    prints it (no waiting for an answer); stop it, which must end it within 20 s."""
    with served(*options, wait=False) as server:
        yield server.url
    assert server.proc.returncode is not None


@pytest.mark.parametrize("workers", [1, 2])
def test_serve_answers_on_loopback_and_stops_cleanly(workers: int) -> None:
    with _serve("--workers", str(workers)) as url:
        # The workers may still be starting: the socket is already bound, so the request
        # waits in the backlog until one of them accepts it.
        status, report = _post(url, {"a": 157, "b": 17, "c": 3, "d": 23})
        assert status == 200
        assert round(report["tests"]["exact"]["pvalue"], 4) == 0.0026
        assert report["conclusion"]["better"] == "a"
        # Loopback binding answers loopback host names only (DNS rebinding protection).
        status, error = _post(url, {"b": 1, "c": 2}, host="evil.example")
        assert status == 400 and "error" in error
        # A second analysis is answered too (with two workers, possibly by the other one).
        status, report = _post(url, {"b": 0, "c": 0})
        assert status == 200 and report["tests"]["exact"]["pvalue"] == 1.0


def test_serve_rejects_bad_worker_counts() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "mcnemar", "serve", "--workers", "0"],
        capture_output=True, text=True, timeout=60,
    )
    assert out.returncode == 2
    assert "--workers" in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_workers_receive_the_upload_limit() -> None:
    # The limit travels to worker processes through the environment: 1 kB here.
    with _serve("--workers", "2", "--max-upload-mb", "0.001") as url:
        big = b"id,correct\n" + b"".join(b"q%d,1\n" % i for i in range(500))
        boundary = "mcnemarboundary"
        parts = []
        for field, name in (("file_a", "a.csv"), ("file_b", "b.csv")):
            parts.append(
                f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; '
                f'filename="{name}"\r\nContent-Type: text/csv\r\n\r\n'.encode() + big + b"\r\n"
            )
        body = b"".join(parts) + f"--{boundary}--\r\n".encode()
        request = urllib.request.Request(
            url + "api/v1/compare", data=body, method="POST",
            headers={"content-type": f"multipart/form-data; boundary={boundary}"},
        )
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(request, timeout=30)
        assert info.value.code == 413
        assert "error" in json.loads(info.value.read())
