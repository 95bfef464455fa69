"""``mcnemar compare --by-task``: per-task results equal ``compare`` of each task alone, the
real harness suites give the tables their generators counted, and the options and exit codes
of the per-task mode."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcnemar.cli import main
from mcnemar.cli._common import ExitCode

REAL = Path(__file__).parent / "data" / "io" / "real"
GROUP = ("tests/data/io/real/lmeval/group_a", "tests/data/io/real/lmeval/group_b")


def invoke(*args: str | Path) -> object:
    return CliRunner().invoke(main, ["compare", *map(str, args)])


def as_json(*args: str | Path) -> dict:
    result = invoke(*args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _tables(doc: dict) -> dict[str, dict[str, int]]:
    return {t["task"]: {k: t["table"][k] for k in "abcd"} for t in doc["tasks"]}


def test_lmeval_group_each_task_equals_compare_of_that_task() -> None:
    a, b = REAL / "lmeval" / "group_a", REAL / "lmeval" / "group_b"
    doc = as_json(a, b, "--filter", "strict", "--by-task")
    assert doc["schema"] == "mcnemar.tasks/1"
    exp = json.loads((REAL / "lmeval" / "expected.json").read_text())
    want = {p["task"]: p["table"] for p in exp["pairings"] if p["a"] == "group_a"
            and p.get("task") and p["read"].get("filter") in (None, "strict")}
    assert _tables(doc) == want
    for entry in doc["tasks"]:
        # a task alone with a filter it does not have is refused: choose it where it applies
        flt = ["--filter", "strict"] if entry["task"] == "arith_gen" else []
        alone = as_json(a, b, *flt, "--task", entry["task"])
        test = alone["recommended"]["test"]
        assert entry["pvalue"] == alone["tests"][test]["pvalue"]
        ci = alone["difference"]["intervals"][alone["difference"]["recommended_interval"]]
        assert (entry["difference"]["low"], entry["difference"]["high"]) == \
            (ci["low"], ci["high"])
    pooled = as_json(a, b, "--filter", "strict")
    micro = doc["overall"]["micro"]
    assert micro["table"] == pooled["table"]
    assert micro["tests"] == pooled["tests"]


def test_inspect_directory_each_task_equals_compare_of_its_logs() -> None:
    a, b = REAL / "inspect_tasks" / "a", REAL / "inspect_tasks" / "b"
    doc = as_json(a, b, "--by-task")
    exp = json.loads((REAL / "inspect_tasks" / "expected.json").read_text())
    assert _tables(doc) == {k: v["table"] for k, v in exp["tasks"].items()}
    for entry in doc["tasks"]:
        log = f"{entry['task']}.eval"
        alone = as_json(a / log, b / log)
        assert entry["pvalue"] == alone["tests"][alone["recommended"]["test"]]["pvalue"]
        assert {k: alone["table"][k] for k in "abcdn"} == entry["table"]


def test_helm_suite_with_two_models() -> None:
    suite = REAL / "helm" / "fixture"
    doc = as_json(suite, "--by-task", "--runs", "fixture/system-a,fixture/system-b")
    exp = json.loads((REAL / "helm" / "expected.json").read_text())
    want = {exp["runs"][p["a"]]["task"]: p["table"] for p in exp["pairings"]
            if not p["a"].endswith(".json")}
    assert _tables(doc) == want
    for entry in doc["tasks"]:
        scenario = {"FixtureAddScenario": "fixture_add", "FixtureMulScenario": "fixture_mul"}
        run = scenario[entry["task"]]
        alone = as_json(suite / f"{run}:model=fixture_system-a",
                        suite / f"{run}:model=fixture_system-b")
        assert entry["pvalue"] == alone["tests"][alone["recommended"]["test"]]["pvalue"]
    missing = invoke(suite, "--by-task")
    assert missing.exit_code == ExitCode.BAD_INPUT


def test_fail_on_worse_any_and_overall() -> None:
    a, b = REAL / "inspect_tasks" / "a", REAL / "inspect_tasks" / "b"
    # mul: 1 vs 8 discordant, exact p = 0.039; Holm over two tasks makes it 0.078
    held = invoke(a, b, "--fail-on", "worse-any")
    assert held.exit_code == 0
    unadjusted = invoke(a, b, "--fail-on", "worse-any", "--adjust", "none")
    assert unadjusted.exit_code == ExitCode.WORSE
    assert "on 1 task without adjustment" in unadjusted.stderr and "mul" in unadjusted.stderr
    overall = invoke(a, b, "--fail-on", "worse", "--adjust", "none")
    assert overall.exit_code == 0  # the overall (macro) difference is not significant


def test_tasks_in_one_run_only(tmp_path: Path) -> None:
    a = REAL / "lmeval" / "group_a"
    b = REAL / "lmeval" / "b"  # arith_gen only
    refused = invoke(a, b, "--filter", "strict", "--by-task")
    assert refused.exit_code == ExitCode.BAD_INPUT
    assert "'arith_mc' only in A" in refused.stderr
    assert "--on-missing intersect" in refused.stderr
    doc = as_json(a, b, "--filter", "strict", "--by-task", "--on-missing", "intersect")
    assert [t["task"] for t in doc["tasks"]] == ["arith_gen"]
    assert doc["alignment"]["dropped_tasks"]["only_in_a"] == ["arith_mc"]


def test_long_file_with_a_task_column(tmp_path: Path) -> None:
    rows = ["model,subject,question,correct"]
    outcomes = {("new", "algebra"): [1, 1, 1, 0, 1, 1], ("old", "algebra"): [1, 0, 0, 0, 1, 1],
                ("new", "history"): [0, 0, 1, 0, 1, 0], ("old", "history"): [1, 1, 1, 0, 1, 1]}
    for (model, subject), values in outcomes.items():
        rows += [f"{model},{subject},q{i},{v}" for i, v in enumerate(values)]
    path = tmp_path / "long.csv"
    path.write_text("\n".join(rows) + "\n")
    doc = as_json(path, "--run-column", "model", "--runs", "new,old", "--task-column",
                  "subject", "--id", "question", "--score", "correct")
    assert _tables(doc) == {"algebra": {"a": 3, "b": 2, "c": 0, "d": 1},
                            "history": {"a": 2, "b": 0, "c": 3, "d": 1}}
    # Without --id the item id is detected as compare detects it, behind the task column.
    detected = tmp_path / "detected.csv"
    detected.write_text(path.read_text().replace("question,", "id,", 1))
    assert _tables(as_json(detected, "--run-column", "model", "--runs", "new,old",
                           "--task-column", "subject")) == _tables(doc)
    missing = invoke(path, "--run-column", "model", "--runs", "new,old", "--task-column",
                     "topic", "--id", "question")
    assert missing.exit_code == ExitCode.BAD_INPUT
    assert "--task-column topic: no such column" in missing.stderr


def test_plot_files_and_outputs(tmp_path: Path) -> None:
    a, b = GROUP
    svg = tmp_path / "forest.svg"
    text = invoke(a, b, "--filter", "strict", "--plot", svg)
    assert text.exit_code == 0
    assert text.stdout.splitlines()[2].startswith("Overall (macro)")
    assert svg.read_text().startswith("<svg")
    md = invoke(a, b, "--filter", "strict", "--by-task", "--format", "markdown")
    assert md.stdout.startswith("### system-a vs system-b, task by task")
    bad = invoke(a, b, "--filter", "strict", "--plot", tmp_path / "forest.gif")
    assert bad.exit_code == ExitCode.BAD_INPUT and "--plot" in bad.stderr
    pytest.importorskip("matplotlib")
    png = tmp_path / "forest.png"
    assert invoke(a, b, "--filter", "strict", "--plot", png).exit_code == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_options_that_do_not_apply() -> None:
    a, b = GROUP
    for extra in (["--margin", "0.01"], ["--bayes"], ["--fail-on", "inferior",
                                                      "--margin", "0.01"]):
        result = invoke(a, b, "--filter", "strict", "--by-task", *extra)
        assert result.exit_code == ExitCode.BAD_INPUT, extra
        assert "do not apply to --by-task" in result.stderr
    plain = invoke(a, b, "--filter", "strict", "--fail-on", "worse-any", "--truth", "x.csv")
    assert plain.exit_code == ExitCode.BAD_INPUT
