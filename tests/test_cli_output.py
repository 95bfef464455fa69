"""The output of every command goes through one function (``mcnemar.cli._common.emit``): the
three formats end with exactly one newline, and JSON is the result's ``to_dict()``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from mcnemar.cli import main
from mcnemar.cli._common import emit
from mcnemar.planning import sample_size

DATA = Path(__file__).parent / "data" / "io" / "generic"


class _Result:
    """A result whose renderings end with no newline, one, and two."""

    def __str__(self) -> str:
        return "text"

    def to_markdown(self) -> str:
        return "| md |\n\n"

    def to_dict(self) -> dict[str, object]:
        return {"x": 1.5}


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [("text", "text\n"), ("markdown", "| md |\n"), ("MARKDOWN", "| md |\n"),
     ("json", '{\n  "x": 1.5\n}\n')],
)
def test_emit_ends_with_one_newline(fmt: str, expected: str, capsys: pytest.CaptureFixture[str]
                                    ) -> None:
    emit(_Result(), fmt)
    assert capsys.readouterr().out == expected


def test_emit_own_renderings(capsys: pytest.CaptureFixture[str]) -> None:
    emit(_Result(), "json", document=lambda: {"y": None})
    emit(_Result(), "text", text=lambda: "own\n\n\n")
    emit(_Result(), "markdown", markdown=lambda: "own md")
    assert capsys.readouterr().out == '{\n  "y": null\n}\nown\nown md\n'


def test_emit_refuses_nan(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError):
        emit(_Result(), "json", document=lambda: {"x": float("nan")})


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = np.random.default_rng(3)
    x = (rng.random((3, 60)) < [[0.8], [0.7], [0.6]]).astype(int)
    path = tmp_path_factory.mktemp("matrix") / "m.csv"
    path.write_text("a,b,c\n" + "".join(",".join(map(str, x[:, j])) + "\n" for j in range(60)))
    return path


COMMANDS = {
    "test": ["test", "--a", "157", "--b", "17", "--c", "3", "--d", "23"],
    "compare": ["compare", str(DATA / "a.csv"), str(DATA / "b.csv")],
    "power": ["power", "--p10", "0.06", "--p01", "0.04"],
    "monitor": ["monitor", str(DATA / "a.csv"), str(DATA / "b.csv")],
}


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
@pytest.mark.parametrize("command", [*COMMANDS, "pairwise"])
def test_every_command_ends_with_one_newline(command: str, fmt: str, matrix: Path) -> None:
    args = COMMANDS.get(command, ["pairwise", "--matrix", str(matrix)])
    result = CliRunner().invoke(main, [*args, "--format", fmt])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.endswith("\n") and not result.stdout.endswith("\n\n")
    if fmt == "json":
        json.loads(result.stdout)


def test_power_json_is_the_results_to_dict() -> None:
    result = CliRunner().invoke(main, [*COMMANDS["power"], "--format", "json"])
    assert json.loads(result.stdout) == json.loads(json.dumps(sample_size(0.06, 0.04).to_dict()))


def test_input_format_choices_are_the_readers_formats() -> None:
    """The commands' --input-format choices are 'auto' and exactly the formats read_run
    knows (the CLI spells them out so that starting it does not import the readers)."""
    import click

    from mcnemar.cli._options import INPUT_FORMATS
    from mcnemar.cli.compare import compare
    from mcnemar.cli.monitor import monitor
    from mcnemar.io.detect import FORMATS

    assert INPUT_FORMATS == ("auto", *FORMATS)
    for command in (compare, monitor):
        option = next(p for p in command.params if p.name == "input_format")
        assert isinstance(option.type, click.Choice)
        assert tuple(option.type.choices) == INPUT_FORMATS


# --- the system refusing a read or a write, and pipes --------------------------------------


def _mcnemar(command: str) -> Any:
    import shutil
    import subprocess
    import sys

    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("needs bash (process substitution)")
    return subprocess.run([bash, "-c", command.replace("mcnemar", f"{sys.executable} -m mcnemar",
                                                       1)],
                          capture_output=True, text=True, timeout=120)


def test_a_pipe_reads_as_the_file_it_carries(tmp_path: Path) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("id,correct\n" + "".join(f"q{i},{int(i % 3 > 0)}\n" for i in range(30)))
    b.write_text("id,correct\n" + "".join(f"q{i},{int(i % 4 > 0)}\n" for i in range(30)))
    piped = _mcnemar(f"mcnemar compare <(cat {a}) {b} --format json")
    assert piped.returncode == 0, piped.stderr
    plain = CliRunner().invoke(main, ["compare", str(a), str(b), "--format", "json"])
    assert json.loads(piped.stdout)["table"] == json.loads(plain.stdout)["table"]
    assert json.loads(piped.stdout)["alignment"]["runs"]["a"]["path"].startswith("/dev/fd/")


def test_a_failing_read_is_one_line_naming_the_file() -> None:
    # Reading /proc/self/mem at offset 0 fails with EIO, as a failing disk does.
    if not Path("/proc/self/mem").exists():
        pytest.skip("needs /proc")
    out = _mcnemar("mcnemar compare /proc/self/mem /proc/self/mem")
    assert out.returncode == 2
    assert out.stderr.strip() == ("mcnemar: error: /proc/self/mem: cannot read the file "
                                  "(Input/output error)")


def test_a_full_output_is_one_line() -> None:
    if not Path("/dev/full").exists():
        pytest.skip("needs /dev/full")
    out = _mcnemar("mcnemar test --b 17 --c 3 > /dev/full")
    assert out.returncode == 2
    assert out.stderr.strip() == "mcnemar: error: cannot write the output: No space left on device"


# --- a missing extra is refused before any output, the same way everywhere -----------------


@pytest.mark.parametrize("args", [
    ["pairwise", "--matrix", "{matrix}", "--plot", "{out}/p.png"],
    ["compare", "{a}", "{b}", "--by-task", "--task-column", "task", "--plot", "{out}/f.png"],
    ["compare", "{a}", "{b}", "--progress"],
])
def test_a_missing_extra_is_refused_before_the_report(tmp_path: Path, args: list[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    for module in ("matplotlib", "tqdm"):  # as if the extras were not installed
        monkeypatch.setitem(sys.modules, module, None)
    matrix = tmp_path / "m.csv"
    matrix.write_text("id,x,y\n" + "".join(f"q{i},{i % 2},{i % 3 > 0}\n" for i in range(20)))
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    for path, mod in ((a, 2), (b, 3)):
        path.write_text("task,id,correct\n" + "".join(
            f"t{i % 2},q{i},{int(i % mod > 0)}\n" for i in range(20)))
    filled = [x.format(matrix=matrix, out=tmp_path, a=a, b=b) for x in args]
    result = CliRunner().invoke(main, filled)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""  # nothing printed before the refusal
    assert "pip install 'mcnemar[" in result.stderr


# --- words a first-time user reads ---------------------------------------------------------


def test_by_task_paragraphs_are_as_wide_as_the_single_report() -> None:
    real = Path(__file__).parent / "data" / "io" / "real" / "inspect_tasks"
    result = CliRunner().invoke(main, ["compare", str(real / "a"), str(real / "b"),
                                       "--by-task"])
    assert result.exit_code == 0, result.output
    widths = [len(line) for line in result.stdout.splitlines()]
    assert max(widths) <= 92, max(widths)
    assert "Overall (macro)" in result.stdout


def test_no_discordant_items_is_said_as_such() -> None:
    result = CliRunner().invoke(main, ["test", "--a", "10", "--b", "0", "--c", "0", "--d", "5"])
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    assert "Why: No discordant items: nothing on this test set tells A and B apart" in text
    assert "Only 0 discordant" not in text and "less conservative choice" not in text


@pytest.mark.parametrize(("typed", "said"), [
    ("1", "--margin must be strictly between 0 and 1 (a proportion: write 0.01 for 1 point, "
          "not 1); got 1"),
    ("2.5", "write 0.025 for 2.5 points, not 2.5); got 2.5"),
])
def test_a_margin_in_points_is_named_by_its_flag(typed: str, said: str) -> None:
    result = CliRunner().invoke(main, ["test", "--b", "17", "--c", "3", "--margin", typed])
    assert result.exit_code == 2 and said in result.output


def test_a_scalar_probability_is_not_told_about_arrays() -> None:
    result = CliRunner().invoke(main, ["power", "--discordance", "2", "--difference", "0.1"])
    assert result.exit_code == 2
    assert result.output.strip() == ("mcnemar: error: --discordance must be a probability "
                                     "between 0 and 1; got 2")
