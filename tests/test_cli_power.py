"""Tests for ``mcnemar power``: the three modes, output formats and errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from mcnemar.cli import main
from mcnemar.planning import minimum_detectable_effect, power, sample_size


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcnemar", "power", *args],
        capture_output=True, text=True, timeout=120,
    )


def test_sample_size_json() -> None:
    out = CliRunner().invoke(main, ["power", "--p10", "0.06", "--p01", "0.04", "--format", "json"])
    assert out.exit_code == 0, out.stderr
    payload = json.loads(out.stdout)
    expected = sample_size(0.06, 0.04)
    assert payload["n"] == expected.n
    assert payload["n_first"] == expected.n_first
    assert payload["method"] == "exact" and payload["target_power"] == 0.8


def test_entry_point_bad_input_exits_2_with_one_line() -> None:
    out = _run("--n", "100", "--p10", "0.7", "--p01", "0.5")
    assert out.returncode == 2
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("mcnemar: error: p10 + p01 must be at most 1")
    assert "Traceback" not in out.stderr


@pytest.fixture()
def runner() -> CliRunner:
    return CliRunner()


def test_power_text(runner: CliRunner) -> None:
    result = runner.invoke(
        main, ["power", "--n", "144", "--p10", "0.45", "--p01", "0.25", "--alpha", "0.025",
               "--alternative", "greater"],
    )
    assert result.exit_code == 0, result.output
    assert "0.8009" in result.output  # MESS: 0.80 (docs/references.md)
    assert "144 items" in result.output


def test_power_several_n_markdown(runner: CliRunner) -> None:
    result = runner.invoke(
        main, ["power", "--n", "2000", "--n", "3000", "--difference", "0.02", "--discordance",
               "0.1", "--format", "markdown"],
    )
    assert result.exit_code == 0, result.output
    expected = power([2000, 3000], difference=0.02, discordance=0.1).power
    rows = [line for line in result.output.splitlines() if line.startswith("| 2000")
            or line.startswith("| 3000")]
    assert len(rows) == 2
    assert f"{expected[0]:.4f}" in rows[0] and f"{expected[1]:.4f}" in rows[1]


def test_power_json_connor(runner: CliRunner) -> None:
    result = runner.invoke(
        main, ["power", "--n", "100", "--p10", "0.5", "--p01", "0.3", "--method", "connor",
               "--format", "json"],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["power"] == pytest.approx(0.611518, abs=5e-7)  # docs/references.md
    assert payload["method"] == "connor"


def test_sample_size_with_target_and_method(runner: CliRunner) -> None:
    result = runner.invoke(
        main, ["power", "--p10", "0.45", "--p01", "0.05", "--power", "0.8", "--method",
               "connor", "--format", "json"],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["n_connor"] == pytest.approx(22.0113, abs=5e-5)  # MESS
    assert payload["n"] == 23


def test_sample_size_saw_tooth_text(runner: CliRunner) -> None:
    result = runner.invoke(main, ["power", "--p10", "0.6", "--p01", "0.4"])
    assert result.exit_code == 0, result.output
    res = sample_size(0.6, 0.4)
    assert f"n = {res.n} items" in result.output
    assert f"first reaches 80% at n = {res.n_first}" in result.output


def test_mde(runner: CliRunner) -> None:
    result = runner.invoke(
        main, ["power", "--mde", "--n", "500", "--discordance", "0.12", "--power", "0.9",
               "--format", "json"],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    expected = minimum_detectable_effect(500, 0.12, power=0.9)
    assert payload["difference"] == pytest.approx(expected.difference, abs=1e-12)
    assert payload["power"] == 0.9
    text = runner.invoke(main, ["power", "--mde", "--n", "500", "--discordance", "0.12"])
    assert "has 80% power to detect an accuracy difference of" in text.output


def test_mde_undetectable_is_not_an_error(runner: CliRunner) -> None:
    result = runner.invoke(
        main, ["power", "--mde", "--n", "20", "--discordance", "0.1", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["difference"] is None
    assert "too few discordant items" in payload["note"]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--mde", "--discordance", "0.1"], "--mde needs --n"),
        (["--mde", "--n", "100"], "--mde needs --discordance"),
        (["--mde", "--n", "100", "--discordance", "0.1", "--p10", "0.1"], "--mde solves"),
        (["--n", "100", "--p10", "0.1", "--p01", "0.05", "--power", "0.9"],
         "--power is the target"),
        (["--n", "0", "--p10", "0.1", "--p01", "0.05"], "n must be a positive whole number"),
        (["--p10", "0.1", "--p01", "0.1"], "no difference to detect"),
        (["--p10", "0.1"], "p01 is missing"),
        (["--p10", "0.1", "--p01", "0.05", "--alpha", "1.5"], "alpha must be strictly"),
        (["--difference", "0.3", "--discordance", "0.2"], "at most the discordance"),
    ],
)
def test_errors(runner: CliRunner, args: list[str], fragment: str) -> None:
    result = runner.invoke(main, ["power", *args])
    assert result.exit_code == 2
    assert fragment in result.output
    assert result.output.startswith("mcnemar: error:")


def test_usage_errors_from_click(runner: CliRunner) -> None:
    result = runner.invoke(main, ["power", "--n", "ten", "--p10", "0.1", "--p01", "0.05"])
    assert result.exit_code == 2
    result = runner.invoke(main, ["power", "--method", "wald", "--p10", "0.1", "--p01", "0.05"])
    assert result.exit_code == 2


def test_help_lists_the_modes(runner: CliRunner) -> None:
    result = runner.invoke(main, ["power", "--help"])
    assert result.exit_code == 0
    for option in ("--n", "--p10", "--p01", "--difference", "--discordance", "--mde",
                   "--power", "--alternative", "--method", "--format"):
        assert option in result.output
