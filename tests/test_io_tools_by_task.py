"""Task by task on the tools that record tasks: ``mcnemar compare --by-task`` on runs written
by lighteval (tasks from the details files), evalscope (subsets) and OpenCompass (datasets)
gives, for each task, the table the generator counted for that task alone with plain json /
pyarrow (``expected.json`` under ``tests/data/io/real/<tool>/``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mcnemar.cli import main

REAL = Path(__file__).parent / "data" / "io" / "real"


def _expected(tool: str) -> dict[str, Any]:
    return json.loads((REAL / tool / "expected.json").read_text())


def _single_task_table(tool: str, a: str, b: str, task: str) -> dict[str, int]:
    """The independently counted table of one task: a pairing of that task's files, or of
    the runs read with that task alone."""
    for case in _expected(tool)["pairings"]:
        read = case.get("read") or {}
        files = (Path(case["a"]).stem, Path(case["b"]).stem)
        if read.get("task") == task and (case["a"], case["b"]) == (a, b):
            return dict(case["table"])
        if not read and all(stem.startswith(f"details_{task}") or stem == task
                            for stem in files):
            return dict(case["table"])
    raise AssertionError(f"no pairing of task {task!r} alone in {tool}/expected.json")


CASES = [
    ("lighteval", "output/details/fixture/system-a", "output/details/fixture/system-b", []),
    ("opencompass", "main/results/system-a", "main/results/system-b",
     ["--task", "arith_gen", "--task", "arith_mc"]),
]


@pytest.mark.parametrize(("tool", "a", "b", "flags"), CASES, ids=[c[0] for c in CASES])
def test_by_task_tables_are_the_single_task_tables(tool: str, a: str, b: str,
                                                   flags: list[str]) -> None:
    result = CliRunner().invoke(main, ["compare", str(REAL / tool / a), str(REAL / tool / b),
                                       "--by-task", "--format", "json", "--no-progress",
                                       *flags])
    assert result.exit_code == 0, result.output
    tasks = json.loads(result.stdout)["tasks"]
    assert len(tasks) == 2
    for entry in tasks:
        got = {k: entry["table"][k] for k in "abcd"}
        assert got == _single_task_table(tool, a, b, entry["task"]), entry["task"]


def test_evalscope_subsets_are_the_counted_tasks() -> None:
    case = _expected("evalscope")["pairings"][0]
    result = CliRunner().invoke(main, ["compare", str(REAL / "evalscope" / case["a"]),
                                       str(REAL / "evalscope" / case["b"]), "--by-task",
                                       "--format", "json", "--no-progress"])
    assert result.exit_code == 0, result.output
    tasks = {t["task"]: {k: t["table"][k] for k in "abcd"}
             for t in json.loads(result.stdout)["tasks"]}
    assert tasks == case["tasks"]
