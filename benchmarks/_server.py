"""A real ``mcnemar serve`` for the web benchmarks: started on a free port, stopped after.

The benchmarks run as scripts (``python benchmarks/bench_web_*.py``), so this module is found
beside them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import urllib.request


def start_server(options: list[str] | None = None,
                 timeout: float = 30.0) -> tuple[subprocess.Popen[str], str]:
    """Start ``mcnemar serve --port 0 OPTIONS``; return the process and the URL it printed,
    once ``/api/v1/health`` answers."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcnemar", "serve", "--port", "0", *(options or [])],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1"),
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:\d+/", line)
    if not match:
        proc.kill()
        raise SystemExit(f"mcnemar serve did not print its URL: {line!r}")
    url = match.group(0)
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url + "api/v1/health", timeout=2):
                return proc, url
        except OSError:
            if time.monotonic() > deadline:
                proc.kill()
                raise
            time.sleep(0.1)


def stop_server(proc: subprocess.Popen[str]) -> None:
    """Terminate the server (and its workers), killing it if it does not stop in 10 s."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
