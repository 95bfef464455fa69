"""``mcnemar serve`` as a process of its own, started as a user starts it.

The tests of the server, the web benchmarks and the script that draws the documentation's
pictures all run the real server this way: :func:`served` starts ``python -m mcnemar serve
--port 0 OPTIONS``, reads the URL the server prints on stdout once it listens, waits until it
answers HTTP, and stops it with SIGTERM (as Ctrl-C would) when the block ends.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

__all__ = ["ServedProcess", "served"]

# The line the server prints: http://HOST:PORT/ (an IPv6 host in brackets).
_URL = re.compile(r"(http://(\[[^\]]+\]|[^:/\s]+):(\d+)/)")


@dataclass
class ServedProcess:
    """A running ``mcnemar serve``: its process, the URL it printed and what it wrote to
    stderr (when that was not sent to a log file)."""

    proc: subprocess.Popen[str]
    url: str
    host: str
    port: int
    output: list[str] = field(default_factory=list)
    _reader: threading.Thread | None = None

    def stderr(self) -> str:
        """Everything the server wrote to stderr so far (all of it once it has stopped)."""
        return "".join(self.output)


@contextlib.contextmanager
def served(*options: str, log: Path | None = None, env: Mapping[str, str] | None = None,
           wait: bool = True, timeout: float = 30.0,
           stop_timeout: float = 20.0) -> Iterator[ServedProcess]:
    """Run ``python -m mcnemar serve --port 0 OPTIONS``; yield it; stop it.

    Parameters
    ----------
    *options : str
        Further options of ``mcnemar serve`` (``"--workers", "2"``, ...).
    log : Path, optional
        A file for the server's stderr; by default it is kept in
        :attr:`ServedProcess.output`.
    env : mapping, optional
        Environment variables for the server over this process's own (e.g. ``TMPDIR``, so
        that its temporary files land in a directory of the caller's).
    wait : bool, default True
        Yield once the server answers an HTTP request (any answer); ``False`` yields as soon
        as it has printed its URL (the socket is bound; requests wait in its backlog).
    timeout : float
        Seconds to wait for the URL and the first answer.
    stop_timeout : float
        Seconds the server has to stop after SIGTERM; then it is killed and
        :class:`RuntimeError` raised, since a server that does not stop is a fault.

    Examples
    --------
    >>> import json, urllib.request
    >>> with served() as server:
    ...     with urllib.request.urlopen(server.url + "api/v1/health") as answer:
    ...         print(answer.status, json.load(answer)["status"])
    200 ok
    """
    with contextlib.ExitStack() as stack:
        stderr: IO[str] | int = subprocess.PIPE
        if log is not None:
            log.parent.mkdir(parents=True, exist_ok=True)
            stderr = stack.enter_context(log.open("w", encoding="utf-8"))
        proc = subprocess.Popen(
            [sys.executable, "-m", "mcnemar", "serve", "--port", "0", *options],
            stdout=subprocess.PIPE, stderr=stderr, text=True,
            env={**os.environ, **(env or {}), "PYTHONUNBUFFERED": "1"},
        )
        server = None
        try:
            server = _started(proc, timeout)
            if wait:
                _wait_until_up(server, timeout)
            yield server
        finally:
            _stop(proc, server, stop_timeout)


def _started(proc: subprocess.Popen[str], timeout: float) -> ServedProcess:
    """The server as it announced itself; its stderr read on from now by a thread (a full
    pipe would block the server)."""
    assert proc.stdout is not None
    line = proc.stdout.readline()
    match = _URL.search(line)
    if not match:
        proc.kill()
        said = proc.stderr.read().strip() if proc.stderr is not None else ""
        raise RuntimeError(f"mcnemar serve printed {line!r} instead of its URL"
                           + (f"; stderr: {said}" if said else ""))
    server = ServedProcess(proc, match.group(1), match.group(2), int(match.group(3)))
    if proc.stderr is not None:
        # list.extend appends line by line, so the lines are visible while the server runs.
        server._reader = threading.Thread(target=server.output.extend, args=(proc.stderr,),
                                          daemon=True)
        server._reader.start()
    return server


def _wait_until_up(server: ServedProcess, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        conn = http.client.HTTPConnection(server.host.strip("[]"), server.port, timeout=2)
        try:
            conn.request("GET", "/api/v1/health",
                         headers={"Host": f"{server.host}:{server.port}"})
            conn.getresponse().read()
            return
        except OSError:
            if server.proc.poll() is not None:
                raise RuntimeError(f"mcnemar serve exited with status {server.proc.returncode} "
                                   "before it answered") from None
            if time.monotonic() > deadline:
                raise RuntimeError(f"mcnemar serve did not answer within {timeout:g} s") from None
            time.sleep(0.1)
        finally:
            conn.close()


def _stop(proc: subprocess.Popen[str], server: ServedProcess | None, timeout: float) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise RuntimeError(f"mcnemar serve did not stop within {timeout:g} s of SIGTERM; "
                           "it was killed") from None
    finally:
        if server is not None and server._reader is not None:
            server._reader.join(5)
