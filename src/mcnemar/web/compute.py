"""Computations of the server under a time budget, away from its event loop.

``mcnemar serve`` computes every ``POST /api/v1/analyze`` in one of a few worker processes
(:class:`ComputePool`, :data:`DEFAULT_COMPUTE_PROCESSES` per server process). The event loop
only waits for the answer, so health checks, the page and other requests are served while
analyses run, whatever they cost. A computation that runs past the budget
(``--compute-timeout``, :data:`DEFAULT_COMPUTE_TIMEOUT` seconds) is stopped: its process is
killed and replaced, and the request answered 503. A request that finds every process busy
waits for one (at most :data:`QUEUE_TIMEOUT` seconds, or the budget if that is longer; then
it is answered 503); waiting costs the server nothing but the open connection.

With no worker processes (``create_app(compute_processes=0)``, the default of the library's
own application, as in tests) the computation runs in a thread of the server: past the
budget the request is still answered 503, but the computation runs on to its end.

A job is a module-level function and its arguments (both sent to the worker by pickling); it
returns a picklable value, and should turn the errors it expects into values itself: any
exception it raises reaches the caller as :class:`ComputeFailed`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import threading
import time
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, Final

__all__ = [
    "DEFAULT_COMPUTE_PROCESSES",
    "DEFAULT_COMPUTE_TIMEOUT",
    "QUEUE_TIMEOUT",
    "ComputeBusy",
    "ComputeFailed",
    "ComputeOverBudget",
    "ComputePool",
    "run_in_thread",
]

log = logging.getLogger("mcnemar.web")

#: Seconds one computation may take before it is stopped and its request answered 503. Any
#: analysis of counts up to 2**52 takes well under a second.
DEFAULT_COMPUTE_TIMEOUT: Final = 10.0
#: Worker processes per server process (``mcnemar serve --workers N`` has N times as many).
DEFAULT_COMPUTE_PROCESSES: Final = 2
#: Seconds a request may wait for a free worker (one started or replaced a moment ago takes
#: a second or two to import the library), at least the budget itself.
QUEUE_TIMEOUT: Final = 30.0
#: Seconds a new worker process may take to import the library and say it is ready.
_START_TIMEOUT: Final = 120.0


class ComputeOverBudget(Exception):
    """The computation ran past the budget and was stopped."""


class ComputeBusy(Exception):
    """No worker became free in time."""


class ComputeFailed(Exception):
    """The job raised: ``kind`` is the exception's type name, ``detail`` its traceback."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(kind)
        self.kind = kind
        self.detail = detail


def _worker_main(conn: Connection, warm: tuple[str, ...]) -> None:
    """A worker process: import ``warm``, say ready, then run jobs until told to stop."""
    import importlib

    for name in warm:
        importlib.import_module(name)
    conn.send(("ready", None))
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return  # the server is gone
        if job is None:
            return
        func, args = job
        try:
            answer: tuple[str, Any] = ("ok", func(*args))
        except BaseException as exc:  # a bug in the job: reported, the worker goes on
            answer = ("error", (type(exc).__name__, traceback.format_exc()))
        conn.send(answer)


class _Worker:
    """One worker process and the parent's end of its pipe."""

    def __init__(self, context: Any, warm: tuple[str, ...]) -> None:
        self.conn, child = context.Pipe()
        self.process = context.Process(
            target=_worker_main, args=(child, warm), name="mcnemar-compute", daemon=True
        )
        self.process.start()
        child.close()

    def wait_ready(self, timeout: float) -> bool:
        try:
            return bool(self.conn.poll(timeout)) and self.conn.recv()[0] == "ready"
        except (EOFError, OSError):
            return False

    def exchange(self, job: tuple[Callable[..., Any], tuple[Any, ...]], timeout: float
                 ) -> tuple[str, Any] | None:
        """Send a job; its answer, None when none came within ``timeout`` seconds, or
        ("dead", None) when the process has ended (killed from outside, out of memory)."""
        try:
            self.conn.send(job)
            if not self.conn.poll(timeout):
                return None
            answer: tuple[str, Any] = self.conn.recv()
        except (EOFError, OSError):
            return ("dead", None)
        return answer

    def kill(self) -> None:
        with contextlib.suppress(Exception):
            self.process.kill()
            self.process.join(5)
        with contextlib.suppress(Exception):
            self.conn.close()


class ComputePool:
    """``processes`` worker processes that run jobs, each within ``timeout`` seconds.

    :meth:`start` (from the event loop, e.g. at the application's startup) launches them;
    :meth:`run` waits for a free one, runs a job there and returns its value; :meth:`close`
    stops them. A worker that overran is killed and a new one started in its place: forked
    from a process that has imported ``warm``, it is ready in milliseconds (spawned afresh,
    where the platform has no such process, in a second or two).

    Parameters
    ----------
    processes : int
        How many jobs run at once.
    timeout : float
        Seconds a job may run.
    warm : tuple of str
        Modules each worker imports before it takes jobs (so that the first job does not pay
        for them within its budget).
    """

    def __init__(self, processes: int, timeout: float, warm: tuple[str, ...] = ()) -> None:
        self.processes = int(processes)
        self.timeout = float(timeout)
        self.queue_timeout = max(self.timeout, QUEUE_TIMEOUT)
        self.warm = warm
        self._context = _context(warm)
        self._idle: asyncio.Queue[_Worker] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._workers: set[_Worker] = set()
        self._lock = threading.Lock()
        self._closed = False

    def start(self) -> asyncio.Queue[_Worker]:
        """Launch the workers (each joins the idle ones, returned, once it has said it is
        ready)."""
        self._loop = asyncio.get_running_loop()
        idle: asyncio.Queue[_Worker] = asyncio.Queue()
        self._idle = idle
        for _ in range(self.processes):
            self._launch()
        return idle

    def _queue(self) -> asyncio.Queue[_Worker]:
        """The idle workers (started here for an application run without its startup
        events)."""
        return self._idle if self._idle is not None else self.start()

    def _launch(self) -> None:
        threading.Thread(target=self._bring_up, name="mcnemar-compute-start",
                         daemon=True).start()

    def _bring_up(self) -> None:
        """Start a worker and hand it to the event loop once it is ready (in a thread)."""
        if self._closed:
            return
        worker = _Worker(self._context, self.warm)
        with self._lock:
            self._workers.add(worker)
        if not worker.wait_ready(_START_TIMEOUT) or self._closed:
            if not self._closed:
                log.error("a compute process did not start within %g s", _START_TIMEOUT)
            self._discard(worker)
            return
        loop, idle = self._loop, self._idle
        if loop is not None and idle is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed: shutting down
                loop.call_soon_threadsafe(idle.put_nowait, worker)

    def _discard(self, worker: _Worker) -> None:
        worker.kill()
        with self._lock:
            self._workers.discard(worker)

    def _replace(self, worker: _Worker) -> None:
        """Kill a worker and bring up another in its place (in a thread)."""
        self._discard(worker)
        self._bring_up()

    async def run(self, func: Callable[..., Any], *args: Any) -> Any:
        """``func(*args)`` in a worker; its value.

        Raises
        ------
        ComputeBusy
            No worker became free within :attr:`queue_timeout` seconds.
        ComputeOverBudget
            The job ran past the budget (its worker was killed and is being replaced).
        ComputeFailed
            The job raised.
        """
        idle = self._queue()
        try:
            worker = await asyncio.wait_for(idle.get(), self.queue_timeout)
        except TimeoutError:
            raise ComputeBusy from None
        answer: tuple[str, Any] | None = None
        try:
            answer = await asyncio.to_thread(worker.exchange, (func, args), self.timeout)
        finally:
            if answer is None or answer[0] == "dead":
                # Over the budget (or cancelled while it ran), or gone: a job cannot be
                # stopped any other way, and the pool keeps its number of workers (in a
                # thread: the event loop does not wait for a process to end).
                threading.Thread(target=self._replace, args=(worker,),
                                 name="mcnemar-compute-replace", daemon=True).start()
            else:
                idle.put_nowait(worker)
        if answer is None:
            raise ComputeOverBudget
        kind, value = answer
        if kind == "dead":
            raise ComputeFailed("WorkerExit", "the compute process ended during the job")
        if kind == "error":
            raise ComputeFailed(*value)
        return value

    def close(self) -> None:
        """Stop every worker: idle ones end at once, one still running a job is killed after
        a second at most."""
        self._closed = True
        with self._lock:
            workers = list(self._workers)
            self._workers.clear()
        for worker in workers:
            with contextlib.suppress(Exception):
                worker.conn.send(None)
        deadline = time.monotonic() + 1.0
        for worker in workers:
            worker.process.join(max(0.0, deadline - time.monotonic()))
            worker.kill()


def _context(warm: tuple[str, ...]) -> Any:
    """How workers are started: forked from a server process that has imported ``warm``
    where the platform has one (a replacement is then ready in milliseconds, not the second
    or two, and the CPU, of importing the library again), else spawned afresh. Never forked
    from the server itself, whose threads may hold locks at the moment of the fork."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(list(warm))
        return context
    return multiprocessing.get_context("spawn")


async def run_in_thread(timeout: float, func: Callable[..., Any], *args: Any) -> Any:
    """``func(*args)`` in a thread of the server; :class:`ComputeOverBudget` past
    ``timeout`` seconds (the thread runs on: a thread cannot be stopped)."""
    from starlette.concurrency import run_in_threadpool

    task = asyncio.ensure_future(run_in_threadpool(func, *args))
    task.add_done_callback(_consume)
    try:
        return await asyncio.wait_for(asyncio.shield(task), timeout)
    except TimeoutError:
        raise ComputeOverBudget from None


def _consume(task: asyncio.Future[Any]) -> None:
    """Retrieve the outcome of a job whose request gave up waiting (no "never retrieved")."""
    if not task.cancelled():
        task.exception()
