"""Suites of one run per task compared without ``--by-task``: one run per side holding every
task, as an lm-eval directory is. The pooled table is the sum of the per-task tables the
generators counted from the files the harnesses wrote (``tests/data/io/real/*/expected.json``,
never with mcnemar): inspect-ai's log directories, a HELM suite of two models with ``--runs``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from mcnemar.cli import main
from mcnemar.pipeline import compare_runs, read_runs

REAL = Path(__file__).parent / "data" / "io" / "real"


def _expected(folder: str) -> dict[str, Any]:
    return json.loads((REAL / folder / "expected.json").read_text())


def _cli(*args: str) -> Any:
    return CliRunner().invoke(main, ["compare", *args, "--format", "json", "--no-progress"])


def test_two_directories_of_inspect_logs_are_two_runs_of_every_task() -> None:
    facts = _expected("inspect_tasks")
    result = _cli(str(REAL / "inspect_tasks" / "a"), str(REAL / "inspect_tasks" / "b"))
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert {k: report["table"][k] for k in "abcd"} == facts["pooled"]
    tasks = [t["task"] for t in report["alignment"]["runs"]["a"]["tasks"]]
    assert tasks == sorted(facts["tasks"])
    # The same through the library, each task's items paired within the task.
    run_a, run_b = read_runs([REAL / "inspect_tasks" / "a", REAL / "inspect_tasks" / "b"])
    alignment = compare_runs(run_a, run_b).alignment
    strata = {name: dict(zip("abcd", map(int, cells), strict=True))
              for name, cells in alignment.summary.strata}
    assert strata == {name: task["table"] for name, task in facts["tasks"].items()}


def test_a_helm_suite_of_two_models_with_runs() -> None:
    facts = _expected("helm")
    pooled = {k: 0 for k in "abcd"}
    for case in facts["pairings"]:
        if case["a"].endswith("per_instance_stats.json"):
            continue  # the same run as its directory
        for k in "abcd":
            pooled[k] += case["table"][k]
    result = _cli(str(REAL / "helm" / "fixture"), "--runs", "fixture/system-a,fixture/system-b")
    assert result.exit_code == 0, result.output
    assert {k: json.loads(result.stdout)["table"][k] for k in "abcd"} == pooled


def test_one_suite_without_runs_says_how_to_choose() -> None:
    result = CliRunner().invoke(main, ["compare", str(REAL / "helm" / "fixture")])
    assert result.exit_code == 2
    assert "is a suite of several runs: name the two to compare with --runs A,B" in \
        result.output
    by_task = CliRunner().invoke(main, ["compare", str(REAL / "helm" / "fixture"), "--by-task"])
    assert by_task.exit_code == 2 and "--runs A,B" in by_task.output
