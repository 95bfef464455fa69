"""``mcnemar monitor`` end to end, and ``--bayes`` on ``mcnemar test`` and ``mcnemar compare``.

Every number the command prints is checked against the library on the same items in the same
order (:func:`mcnemar.sequential.sequential`), whose e-values are checked against the closed
form in tests/test_sequential.py.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from mcnemar.cli import main
from mcnemar.cli._common import ExitCode
from mcnemar.sequential import sequential


def invoke(*args: str | Path) -> object:
    return CliRunner().invoke(main, [*map(str, args)])


@pytest.fixture()
def runs(tmp_path: Path) -> tuple[Path, Path, np.ndarray, np.ndarray, np.ndarray]:
    """600 items; run A lists them in a shuffled log order with a timestamp field, run B in
    another order (alignment must follow A)."""
    rng = np.random.default_rng(7)
    n = 600
    xa = (rng.random(n) < 0.8).astype(int)
    xb = (rng.random(n) < 0.7).astype(int)
    stamp = rng.permutation(n)
    log_order = rng.permutation(n)
    a = tmp_path / "new.csv"
    b = tmp_path / "old.csv"
    a.write_text("id,score,ts\n" + "".join(f"q{i},{xa[i]},{stamp[i]}\n" for i in log_order))
    b.write_text("id,score\n" + "".join(f"q{i},{xb[i]}\n" for i in rng.permutation(n)))
    return a, b, xa[log_order], xb[log_order], np.argsort(stamp[log_order], kind="stable")


def test_log_order_text_matches_the_library(runs: tuple) -> None:
    a, b, xa, xb, _ = runs
    result = invoke("monitor", a, b)
    assert result.exit_code == 0, result.stderr
    ref = sequential(xa, xb)
    out = " ".join(result.stdout.split())
    assert "600 items in the log order of new.csv" in out
    assert f"A right and B wrong on {ref.b}, the reverse on {ref.c}" in out
    assert ref.stopped_at is not None
    assert (f"first reached 1/alpha = 20 after item {ref.stopped_at}: the run could have "
            f"stopped there, saving {600 - ref.stopped_at} of 600 items") in out
    assert f"anytime-valid p = {ref.pvalue:.4g}" in out
    k = ref.stopped_at - 1
    assert (f"new.csv was right and old.csv wrong on {ref.only_a_path[k]} items, the reverse "
            f"on {ref.only_b_path[k]}") in out
    ci = ref.confidence_interval()
    assert f"{100 * ci.low:+.2f} to {100 * ci.high:+.2f} points" in out


def test_order_field_json_and_schema(runs: tuple) -> None:
    import jsonschema_rs

    from mcnemar.report import json_schema

    a, b, xa, xb, by_stamp = runs
    result = invoke("monitor", a, b, "--order", "ts", "--format", "json", "--alternative",
                    "greater", "--effect", "0.65")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    ref = sequential(xa[by_stamp], xb[by_stamp], alternative="greater", prior=0.65)
    assert doc["sequential"] == json.loads(json.dumps(ref.to_dict()))
    assert doc["order"] == "ts" and doc["alignment"]["matched"] == 600
    schema = json_schema()
    validator = jsonschema_rs.validator_for({"$ref": "#/$defs/sequential",
                                             "$defs": schema["$defs"]})
    assert validator.is_valid(doc["sequential"])
    md = invoke("monitor", a, b, "--order", "ts", "--format", "markdown", "--prior", "1,1")
    ref1 = sequential(xa[by_stamp], xb[by_stamp], prior=(1, 1))
    assert md.exit_code == 0
    stop = "never" if ref1.stopped_at is None else f"after item {ref1.stopped_at}"
    assert stop in md.stdout and f"| items saved | {ref1.items_saved} |" in md.stdout


def test_plot_is_written(runs: tuple, tmp_path: Path) -> None:
    a, b, *_ = runs
    out = tmp_path / "e.png"
    result = invoke("monitor", a, b, "--plot", out)
    assert result.exit_code == 0, result.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_matplotlib_names_the_extra(runs: tuple, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    a, b, *_ = runs
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = invoke("monitor", a, b, "--plot", tmp_path / "e.png")
    assert result.exit_code == ExitCode.BAD_INPUT
    assert "pip install 'mcnemar[plot]'" in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


@pytest.mark.parametrize("args, message", [
    (("ONE",), "two run files"),
    (("A", "B", "--prior", "x,y"), "--prior takes two numbers"),
    (("A", "B", "--prior", "1,1", "--effect", "0.6"), "not both"),
    (("A", "B", "--order", "missing"), "--order column 'missing' not found"),
    (("A", "B", "--alpha", "2"), "alpha must be strictly between 0 and 1"),
    (("A", "B", "--effect", "0.5"), "not 1/2"),
])
def test_bad_input_is_one_line_and_exit_2(runs: tuple, args: tuple, message: str) -> None:
    a, b, *_ = runs
    real = [str(a) if x == "A" or x == "ONE" else str(b) if x == "B" else x for x in args]
    result = invoke("monitor", *real)
    assert result.exit_code == ExitCode.BAD_INPUT, result.stdout
    assert message in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_monitor_is_listed_in_help() -> None:
    result = invoke("--help")
    assert "monitor" in result.stdout


def test_bayes_flag_on_test_and_compare(runs: tuple) -> None:
    from mcnemar import PairedTable
    from mcnemar.bayes import bayes

    result = invoke("test", "--a", "157", "--b", "17", "--c", "3", "--d", "23", "--bayes",
                    "--rope", "0.01", "--format", "json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    ref = bayes(PairedTable(a=157, b=17, c=3, d=23), rope=0.01)
    assert doc["bayes"]["prob_a_better"] == ref.prob_a_better
    text = invoke("test", "--a", "157", "--b", "17", "--c", "3", "--d", "23", "--bayes")
    assert "How likely is a real gain (Bayesian):" in text.stdout
    assert "bayes" not in json.loads(invoke("test", "--b", "17", "--c", "3", "--a", "1", "--d",
                                            "1", "--format", "json").stdout)
    no_n = invoke("test", "--b", "17", "--c", "3", "--bayes")
    assert no_n.exit_code == ExitCode.BAD_INPUT and "needs all four cells" in no_n.stderr
    a, b, xa, xb, _ = runs
    cmp = invoke("compare", a, b, "--bayes", "--format", "json")
    assert cmp.exit_code == 0, cmp.stderr
    ref2 = bayes(PairedTable.from_outcomes(xa, xb))
    assert json.loads(cmp.stdout)["bayes"]["prob_a_better"] == ref2.prob_a_better
