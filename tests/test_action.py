"""The GitHub Action (``action.yml``) and ``mcnemar compare --format github``.

The action's own run steps are read from ``action.yml`` and run in bash as the runner runs
them (``bash --noprofile --norc -eo pipefail``), with the ``${{ ... }}`` expressions of their
``env`` replaced by the inputs and ``$GITHUB_STEP_SUMMARY`` / ``$GITHUB_OUTPUT`` pointing at
temporary files; the setup-python and install steps are skipped (the ``mcnemar`` of this
checkout's environment is first on ``PATH``). Checked for each case: the exit code, the
summary, the outputs the action maps, and the annotations on stdout.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcnemar.cli._github import _write_outputs, annotation

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[1]
REAL = "tests/data/io/real"
BASH = shutil.which("bash")
EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


def action() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    return loaded


def parse_outputs(text: str) -> dict[str, str]:
    """``$GITHUB_OUTPUT`` as the runner reads it: ``key=value`` or ``key<<DELIM`` lines."""
    out: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            key, delimiter = line.split("<<", 1)
            value = []
            while lines[i] != delimiter:
                value.append(lines[i])
                i += 1
            i += 1
            out[key] = "\n".join(value)
        else:
            key, value_text = line.split("=", 1)
            out[key] = value_text
    return out


def run_action(tmp_path: Path, **inputs: str) -> tuple[subprocess.CompletedProcess[str],
                                                     str, dict[str, str]]:
    """Run the action's steps; (the last step's process, the summary, the action's outputs)."""
    spec = action()
    values = {name: str(field.get("default", "")) for name, field in spec["inputs"].items()}
    for name, value in inputs.items():
        name = name.replace("_", "-")
        assert name in values, f"action.yml has no input {name!r}"
        values[name] = value
    missing = [n for n, f in spec["inputs"].items() if f.get("required") and not values[n]]
    assert not missing, missing
    context = {f"inputs.{k}": v for k, v in values.items()}
    context["github.action_path"] = str(ROOT)

    def resolve(text: str) -> str:
        return EXPRESSION.sub(lambda m: context[m.group(1)], text)

    summary, output = tmp_path / "summary.md", tmp_path / "output.txt"
    summary.write_text("# Earlier step\n", encoding="utf-8")
    output.write_text("", encoding="utf-8")
    venv_bin = str(Path(sys.executable).parent)
    steps = spec["runs"]["steps"]
    ran = None
    for step in steps:
        if "uses" in step or "pip install" in step.get("run", ""):
            continue  # set up Python and install: the checkout's environment stands in
        assert step["shell"] == "bash"
        env = {**os.environ, "PATH": venv_bin + os.pathsep + os.environ.get("PATH", ""),
               "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(output),
               "GITHUB_ACTION_PATH": str(ROOT)}
        env.update({k: resolve(str(v)) for k, v in (step.get("env") or {}).items()})
        script = tmp_path / "step.sh"
        script.write_text(resolve(step["run"]), encoding="utf-8")
        assert BASH is not None
        ran = subprocess.run([BASH, "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
        if ran.returncode:
            break
    assert ran is not None
    step_outputs = parse_outputs(output.read_text(encoding="utf-8"))
    mapped = {}
    for name, field in spec["outputs"].items():
        match = EXPRESSION.fullmatch(field["value"])
        assert match, field
        _, step_id, _, key = match.group(1).split(".")
        assert step_id == "compare"
        mapped[name] = step_outputs.get(key, "")
    return ran, summary.read_text(encoding="utf-8"), mapped


pytestmark = pytest.mark.skipif(BASH is None, reason="the action's steps run in bash")


def test_the_action_is_a_composite_action_with_the_inputs_and_outputs() -> None:
    spec = action()
    assert spec["runs"]["using"] == "composite"
    assert {"run-a", "run-b", "fail-on", "margin", "by-task", "alpha", "extra-args"} <= \
        set(spec["inputs"])
    assert {"verdict", "difference", "low", "high", "pvalue", "worse-tasks"} <= \
        set(spec["outputs"])
    steps = spec["runs"]["steps"]
    assert steps[0]["uses"].startswith("actions/setup-python@")
    install = next(s for s in steps if "pip install" in s.get("run", ""))
    assert "github.action_path" in str(install.get("env"))
    compare = next(s for s in steps if s.get("id") == "compare")
    assert "--format github" in compare["run"]
    # Inputs reach the script through the environment, never spliced into its text.
    assert "${{" not in compare["run"]


def test_pass(tmp_path: Path) -> None:
    ran, summary, out = run_action(tmp_path, run_a=f"{REAL}/inspect/arith_a.eval",
                                   run_b=f"{REAL}/inspect/arith_b.eval", fail_on="worse")
    assert ran.returncode == 0, ran.stderr
    assert summary.startswith("# Earlier step\n")  # appended, not overwritten
    assert "### McNemar analysis: mockllm/system-a vs mockllm/system-b" in summary
    assert "Check failed" not in summary
    assert out["verdict"] == "none" and out["gate"] == "pass" and out["worse-tasks"] == ""
    assert float(out["difference"]) == pytest.approx((9 - 7) / 30, abs=1e-6)
    assert float(out["low"]) < float(out["difference"]) < float(out["high"])
    assert 0.05 < float(out["pvalue"]) <= 1
    assert "::error" not in ran.stdout and "::warning" not in ran.stdout
    assert "McNemar analysis" in ran.stdout  # the text report in the step's log


def test_fail_on_worse(tmp_path: Path) -> None:
    ran, summary, out = run_action(tmp_path, run_a=f"{REAL}/inspect_tasks/a/mul.eval",
                                   run_b=f"{REAL}/inspect_tasks/b/mul.eval", fail_on="worse",
                                   extra_args="--flips 3")
    assert ran.returncode == 3, ran.stderr
    assert out["verdict"] == "worse" and out["gate"] == "fail"
    assert float(out["difference"]) == pytest.approx((1 - 8) / 20, abs=1e-6)
    assert float(out["pvalue"]) < 0.05
    errors = [line for line in ran.stdout.splitlines() if line.startswith("::error")]
    assert errors == ["::error title=mcnemar compare::mockllm/system-a is significantly worse "
                      "than mockllm/system-b at alpha=0.05 (--fail-on worse)"]
    assert "mcnemar: mockllm/system-a is significantly worse" in ran.stderr
    assert "**Check failed:**" in summary
    # extra-args reach the command: the flips, in a collapsible block of the summary.
    assert "<details><summary>Items that flipped: 1 only mockllm/system-a right, 8 only" in \
        summary


def test_fail_on_inferior_with_a_margin(tmp_path: Path) -> None:
    run = {"run_a": f"{REAL}/inspect_tasks/a/mul.eval",
           "run_b": f"{REAL}/inspect_tasks/b/mul.eval"}
    ran, summary, out = run_action(tmp_path, **run, fail_on="inferior", margin="0.05")
    assert ran.returncode == 5, ran.stderr
    assert out["gate"] == "fail"
    assert any(line.startswith("::error title=mcnemar compare::non-inferiority of "
                               "mockllm/system-a to mockllm/system-b by 0.05")
               for line in ran.stdout.splitlines())
    assert "Against a margin of" in summary
    ran, _, out = run_action(tmp_path, run_a=f"{REAL}/inspect/arith_a.eval",
                             run_b=f"{REAL}/inspect/arith_b.eval", fail_on="inferior",
                             margin="0.5")
    assert ran.returncode == 0, ran.stderr
    assert out["gate"] == "pass" and "::error" not in ran.stdout


def test_per_task_worse(tmp_path: Path) -> None:
    run = {"run_a": f"{REAL}/inspect_tasks/a", "run_b": f"{REAL}/inspect_tasks/b",
           "by_task": "true"}
    ran, summary, out = run_action(tmp_path, **run, fail_on="worse-any",
                                   extra_args="--adjust none")
    assert ran.returncode == 3, ran.stderr
    assert out["worse-tasks"] == "mul" and out["gate"] == "fail"
    assert out["verdict"] == "none"  # the headline overall (macro) is not significant
    assert float(out["difference"]) == pytest.approx(-0.125, abs=1e-6)
    lines = ran.stdout.splitlines()
    warnings = [line for line in lines if line.startswith("::warning")]
    assert len(warnings) == 1 and "on task mul: -35.0 points" in warnings[0]
    assert any(line.startswith("::error") and "(--fail-on worse-any)" in line for line in lines)
    assert "task by task" in summary and "| mul |" in summary
    # Without a gate the worse task is still annotated, and the step passes.
    ran, _, out = run_action(tmp_path, **run, extra_args="--adjust none")
    assert ran.returncode == 0, ran.stderr
    assert out["worse-tasks"] == "mul" and out["gate"] == "pass"
    assert sum(line.startswith("::warning") for line in ran.stdout.splitlines()) == 1


def test_without_the_github_files_only_stdout_is_written(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from mcnemar.cli import main

    env = {"GITHUB_STEP_SUMMARY": "", "GITHUB_OUTPUT": ""}
    result = CliRunner(env=env).invoke(main, [
        "compare", f"{ROOT}/{REAL}/inspect/arith_a.eval", f"{ROOT}/{REAL}/inspect/arith_b.eval",
        "--format", "github"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("McNemar analysis")


def test_outputs_and_annotations_are_multi_line_safe(tmp_path: Path) -> None:
    path = tmp_path / "out"
    _write_outputs(str(path), {"verdict": "worse", "worse-tasks": "a, b\nc=d", "x": "y<<z"})
    assert parse_outputs(path.read_text()) == {"verdict": "worse", "worse-tasks": "a, b\nc=d",
                                               "x": "y<<z"}
    assert annotation("warning", "50%\r\nmore", title="a: b, c") == \
        "::warning title=a%3A b%2C c::50%25%0D%0Amore"
