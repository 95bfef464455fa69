"""`mcnemar test`: in process through click's test runner, and through the real entry points
(console script and python -m) once each."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from typing import NamedTuple

import pytest
from click.testing import CliRunner

from mcnemar.cli import main

MCNEMAR = shutil.which("mcnemar") or str(
    __import__("pathlib").Path(sys.executable).parent / "mcnemar"
)


class Outcome(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


def run(*args: str) -> Outcome:
    """Run the command line in this process (the group's own error handling included)."""
    result = CliRunner().invoke(main, list(args))
    return Outcome(int(result.exit_code), result.stdout, result.stderr)


def run_process(*args: str, module: bool = False) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "mcnemar", *args] if module else [MCNEMAR, *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60)


def test_text_report_console_script() -> None:
    out = run_process("test", "--a", "157", "--b", "17", "--c", "3", "--d", "23")
    assert out.returncode == 0, out.stderr
    assert "A did better than B by 7.0 accuracy points" in out.stdout
    assert "p = 0.002577" in out.stdout


def test_json_via_python_m() -> None:
    out = run_process(
        "test", "--a", "157", "--b", "17", "--c", "3", "--d", "23", "--format", "json", module=True
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert round(data["tests"]["exact"]["pvalue"], 4) == 0.0026
    assert data["recommended"]["test"] == "exact"


def test_markdown_and_names() -> None:
    out = run(
        "test",
        "--b",
        "17",
        "--c",
        "3",
        "--name-a",
        "candidate",
        "--name-b",
        "baseline",
        "--format",
        "markdown",
    )
    assert out.returncode == 0
    assert out.stdout.startswith("### McNemar analysis: candidate vs baseline")


def test_error_framing_options() -> None:
    out = run("test", "--only-a-wrong", "12", "--only-b-wrong", "3", "--format", "json")
    data = json.loads(out.stdout)
    assert data["table"]["b"] == 3 and data["table"]["c"] == 12
    assert data["tests"]["exact"]["pvalue"] == pytest.approx(0.03515625)
    # p = 0.035 < 0.05 in B's favour (the tutorial's reading).
    assert data["conclusion"]["better"] == "b"


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--b", "-1", "--c", "3"], "--b must be >= 0, got -1"),
        (["--b", "1.5", "--c", "3"], "--b must be a whole number of items, got the fraction 1.5"),
        (["--b", "x", "--c", "3"], "--b must be a whole number of items (>= 0), got 'x'"),
        (["--b", "nan", "--c", "3"], "--b must be a finite whole number"),
        (["--b", "1e300", "--c", "3"], "--b = 1e+300 is too large"),
        (["--c", "3"], "the discordant count b is required"),
        (["--b", "3", "--c", "1", "--a", "5"], "a was given without d"),
        (["--b", "3", "--only-b-wrong", "3", "--c", "1"], "cell b was given twice"),
        (
            ["--b", "3", "--c", "1", "--confidence-level", "2"],
            "--confidence-level must be strictly between 0 and 1 (e.g. 0.95 for 95%), got 2",
        ),
        (
            ["--b", "3", "--c", "1", "--confidence-level", "95"],
            "got 95; for 95% give 0.95",
        ),
        (
            ["--b", "3", "--c", "1", "--alpha", "1.5"],
            "--alpha must be strictly between 0 and 1 (e.g. 0.05), got 1.5",
        ),
        (["--b", "3", "--c", "1", "--alpha", "5"], "got 5; for 5% give 0.05"),
        (["--b", "3", "--c", "1", "--alpha", "nan"], "--alpha must be strictly between 0 and 1"),
        (["--b", "3", "--c", "1", "--alternative", "up"], "'up' is not one of"),
        (["--bogus"], "No such option"),
    ],
)
def test_bad_input_one_line_exit_2(args: list[str], fragment: str) -> None:
    out = run("test", *args)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("mcnemar: error: ")
    assert fragment in lines[0]
    assert "Traceback" not in out.stderr and out.stdout == ""


def test_one_sided_alternative_against_the_data() -> None:
    # A leads by 7 points; "less" asks whether B is better: the data point the other way, and
    # the detectable difference and the unpaired test are the one-sided ones.
    base = ["test", "--a", "157", "--b", "17", "--c", "3", "--d", "23", "--alternative", "less"]
    out = run(*base)
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.split())
    assert "The data point the other way: A was ahead on this test set by 7.0 points" in text
    assert "within what chance produces" not in text
    data = json.loads(run(*base, "--format", "json").stdout)
    assert data["conclusion"]["opposite_direction"] is True
    assert data["conclusion"]["direction"] == "a" and data["conclusion"]["better"] is None
    assert data["unpaired"]["alternative"] == "less"
    assert data["power"]["detectable_difference_text"] == "5.77"
    power = run("power", "--mde", "--n", "200", "--discordance", "0.1", "--alternative", "less")
    assert "difference of 5.77 points" in power.stdout


def test_names_cannot_inject_markdown_or_terminal_control() -> None:
    out = run(
        "test",
        "--b",
        "17",
        "--c",
        "3",
        "--name-a",
        "x\n# owned",
        "--name-b",
        "<img src=x onerror=alert(1)>|\x1b[2J",
        "--format",
        "markdown",
    )
    assert out.returncode == 0, out.stderr
    assert "\n# owned" not in out.stdout and "<img" not in out.stdout
    assert "\x1b" not in out.stdout and "&lt;img src=x onerror=alert(1)>\\|" in out.stdout
    text = run("test", "--b", "17", "--c", "3", "--name-a", "a\rb", "--name-b", "\x1b[31mred")
    assert "\r" not in text.stdout and "\x1b" not in text.stdout
    assert "McNemar analysis: a b (A) vs [31mred (B)" in text.stdout
