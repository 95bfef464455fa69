"""Every eval tool's files uploaded to ``POST /api/v1/compare`` give the tables counted
independently of mcnemar (the generators' ``expected.json`` under ``tests/data/io/real/``,
written beside the files the real tools wrote: promptfoo, lighteval, evalscope, deepeval,
OpenCompass). The upload takes what the command line takes: one promptfoo file of two
providers is uploaded twice with ``run_a``/``run_b``, errored items are left out with
``on_missing`` or counted as failures with ``on_error``.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's test client warns about its httpx backend
    from fastapi.testclient import TestClient

from mcnemar.web.app import create_app

REAL = Path(__file__).parent / "data" / "io" / "real"
TOOLS = ("promptfoo", "lighteval", "evalscope", "deepeval", "opencompass")
CLIENT = TestClient(create_app(cache_size=0))
#: The form's fields for the pairing options the generators record.
FORM = {"on_missing": "on_missing", "reduce": "reduce", "on_error": "on_error"}


def _file_pairings() -> list[Any]:
    """Pairings of two files (an upload holds files, not folders) read with options the form
    has (none, or the provider of each side)."""
    found = []
    for tool in TOOLS:
        facts = json.loads((REAL / tool / "expected.json").read_text())
        for case in facts["pairings"]:
            a, b = REAL / tool / case["a"], REAL / tool / case["b"]
            read_a = case.get("read_a", case.get("read") or {})
            read_b = case.get("read_b", case.get("read") or {})
            if not (a.is_file() and b.is_file()):
                continue
            if set(read_a) - {"run"} or set(read_b) - {"run"}:
                continue
            if set(case.get("align", {})) - set(FORM):
                continue
            found.append(pytest.param(tool, case, read_a, read_b,
                                      id=f"{tool}: {case['name']}"))
    return found


PAIRINGS = _file_pairings()


def test_every_tool_has_a_file_pairing() -> None:
    assert {p.values[0] for p in PAIRINGS} == set(TOOLS)


@pytest.mark.parametrize(("tool", "case", "read_a", "read_b"), PAIRINGS)
def test_an_upload_gives_the_independent_table(tool: str, case: dict[str, Any],
                                              read_a: dict[str, Any],
                                              read_b: dict[str, Any]) -> None:
    a, b = REAL / tool / case["a"], REAL / tool / case["b"]
    fields = {FORM[k]: str(v) for k, v in case.get("align", {}).items()}
    for side, read in (("run_a", read_a), ("run_b", read_b)):
        if "run" in read:
            fields[side] = str(read["run"])
    answer = CLIENT.post("/api/v1/compare", data=fields, files={
        "file_a": (a.name, a.read_bytes(), "application/octet-stream"),
        "file_b": (b.name, b.read_bytes(), "application/octet-stream")})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    table = {k: body["table"][k] for k in "abcd"}
    assert table == case["table"]
    if "tasks" not in body:
        runs = body["alignment"]["runs"]
        assert runs["a"]["format"] == runs["b"]["format"] == tool


def test_one_promptfoo_file_of_two_providers_needs_its_runs() -> None:
    path = REAL / "promptfoo" / "ab.json"
    files = {"file_a": (path.name, path.read_bytes(), "application/json"),
             "file_b": (path.name, path.read_bytes(), "application/json")}
    answer = CLIENT.post("/api/v1/compare", files=files)
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert "system-a" in error["message"] and "system-b" in error["message"]
    assert "Traceback" not in error["message"]


@pytest.mark.parametrize("name", ["README.md", "docs/img/web-calculator.png"])
def test_a_file_of_no_known_format_is_refused_naming_the_form_field(name: str) -> None:
    path = Path(__file__).parents[1] / name
    data = path.read_bytes()
    answer = CLIENT.post("/api/v1/compare", files={
        "file_a": (path.name, data, "application/octet-stream"),
        "file_b": (path.name, data, "application/octet-stream")})
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert error["field"] == "file_a"
    assert "format_a or format_b" in error["message"] and "format=" not in error["message"]
    assert "promptfoo" in error["message"]
