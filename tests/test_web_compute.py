"""Analyses under the server's time budget (:mod:`mcnemar.web.compute`).

With the real server (``mcnemar serve``, its analyses in worker processes): analyses that
compute for seconds are stopped at ``--compute-timeout`` and answered 503 in the one error
shape, while the event loop keeps answering health checks within a second; the server then
answers as before. Without worker processes (the library's own application): past the budget
the answer is the same 503. The pool itself: a job's error, a job over the budget (its
worker replaced), every worker busy.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import threading
import time
from typing import Any

import pytest

pytest.importorskip("uvicorn")

from mcnemar.web.compute import (
    ComputeBusy,
    ComputeFailed,
    ComputeOverBudget,
    ComputePool,
)

EXAMPLE = {"a": 157, "b": 17, "c": 3, "d": 23}
#: Among the slowest requests the API accepts: the exact unconditional tests of
#: non-inferiority and equivalence at its limit of 5,000 items (~2 s of computing each).
SLOW = {"a": 2000, "b": 500, "c": 480, "d": 2020, "margin": 0.01,
        "margin_method": "unconditional", "equivalence": True}
BUDGET = 0.3


def _request(server: Any, method: str, path: str, body: Any = None,
             timeout: float = 30) -> tuple[int, float, Any]:
    """Status, seconds taken and decoded body of one request on a fresh connection."""
    conn = http.client.HTTPConnection(server.host.strip("[]"), server.port, timeout=timeout)
    start = time.monotonic()
    try:
        conn.request(method, path, body=None if body is None else json.dumps(body).encode(),
                     headers={"Host": f"{server.host}:{server.port}",
                              "Content-Type": "application/json"})
        response = conn.getresponse()
        data = json.loads(response.read())
        return response.status, time.monotonic() - start, data
    finally:
        conn.close()


def _until_answered(server: Any, body: Any, deadline: float = 30.0) -> tuple[int, float, Any]:
    """The first 200 to ``body`` (the workers start with the server, in a second or two)."""
    end = time.monotonic() + deadline
    while True:
        answer = _request(server, "POST", "/api/v1/analyze", body)
        if answer[0] == 200 or time.monotonic() > end:
            return answer
        time.sleep(0.1)


def test_slow_analyses_are_stopped_while_health_checks_are_answered() -> None:
    from mcnemar.web._process import served

    with served("--compute-timeout", str(BUDGET)) as server:
        status, _, before = _until_answered(server, EXAMPLE)
        assert status == 200
        slow: list[tuple[int, float, Any]] = []
        # Four different tables (no answer comes from the cache), all at once.
        threads = [
            threading.Thread(target=lambda i=i: slow.append(
                _request(server, "POST", "/api/v1/analyze", {**SLOW, "d": SLOW["d"] - i})))
            for i in range(4)
        ]
        for thread in threads:
            thread.start()
        waits = []
        while any(thread.is_alive() for thread in threads):
            status, took, data = _request(server, "GET", "/api/v1/health", timeout=5)
            assert status == 200 and data["status"] == "ok"
            waits.append(took)
            time.sleep(0.05)
        for thread in threads:
            thread.join()
        assert len(waits) >= 3 and max(waits) < 1.0, waits
        for status, took, data in slow:
            assert status == 503, data
            error = data["error"]
            assert error["status"] == 503 and error["errors"][0]["type"] == "timeout"
            assert f"limit of {BUDGET:g} s" in error["message"]
            assert "--compute-timeout" in error["message"]
            # two run at once, the other two as soon as a replacement worker is up
            assert took < 15.0
        # The killed workers were replaced: the server answers as before.
        status, _, after = _until_answered(server, {**EXAMPLE, "d": 24})
        assert status == 200 and after["table"]["d"] == 24
        assert before["tests"]["exact"]["pvalue"] == after["tests"]["exact"]["pvalue"]
    assert f"took longer than {BUDGET:g} s; answered 503" in server.stderr()


def test_the_budget_travels_to_the_workers_of_workers_2() -> None:
    from mcnemar.web._process import served

    with served("--workers", "2", "--compute-timeout", "0.2") as server:
        assert _until_answered(server, EXAMPLE)[0] == 200
        status, _, data = _request(server, "POST", "/api/v1/analyze", SLOW)
        assert status == 503 and "limit of 0.2 s" in data["error"]["message"]


def test_without_worker_processes_the_budget_is_a_503_too() -> None:
    from fastapi.testclient import TestClient

    from mcnemar.web.app import create_app

    client = TestClient(create_app(compute_timeout=0.05, cache_size=0))
    # ~0.3 s of computing, which runs on after the answer (a thread cannot be stopped)
    answer = client.post("/api/v1/analyze", json={**SLOW, "a": 400, "b": 100, "c": 96,
                                                   "d": 404})
    assert answer.status_code == 503
    error = answer.json()["error"]
    assert error["errors"][0]["type"] == "timeout" and "0.05 s" in error["message"]
    # an ordinary table is answered as always
    assert client.post("/api/v1/analyze", json=EXAMPLE).status_code == 200


def test_create_app_checks_the_compute_settings() -> None:
    from mcnemar.errors import McNemarError
    from mcnemar.web.app import create_app

    with pytest.raises(McNemarError, match="compute_timeout must be a positive number"):
        create_app(compute_timeout=0)
    with pytest.raises(McNemarError, match="compute_processes must be a whole number"):
        create_app(compute_processes=-1)


# ----------------------------------------------------------------------------- the pool


def test_pool_runs_jobs_reports_errors_and_replaces_a_worker_over_budget() -> None:
    async def scenario() -> None:
        pool = ComputePool(1, timeout=0.5)
        pool.start()
        try:
            assert await pool.run(sum, [1, 2, 3]) == 6
            # A job of the standard library that raises: unpickling a function of this module
            # in the worker would import the test module inside the budget.
            with pytest.raises(ComputeFailed) as failed:
                await pool.run(int, "broken")
            assert failed.value.kind == "ValueError" and "broken" in failed.value.detail
            # the worker survives a job's error
            assert await pool.run(max, [4, 9]) == 9
            start = time.monotonic()
            with pytest.raises(ComputeOverBudget):
                await pool.run(time.sleep, 30)
            assert time.monotonic() - start < 5
            # its replacement takes the next job
            assert await pool.run(min, [4, 9]) == 4
        finally:
            pool.close()

    asyncio.run(scenario())


def test_pool_answers_busy_when_no_worker_frees_up() -> None:
    async def scenario() -> None:
        pool = ComputePool(1, timeout=0.6)
        pool.queue_timeout = 0.2
        pool.start()
        try:
            await pool.run(sum, [1])  # the worker is up
            running = asyncio.ensure_future(pool.run(time.sleep, 30))
            await asyncio.sleep(0.05)
            with pytest.raises(ComputeBusy):
                await pool.run(sum, [1])
            with pytest.raises(ComputeOverBudget):
                await running
        finally:
            pool.close()

    asyncio.run(scenario())
