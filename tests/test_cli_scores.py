"""``mcnemar compare`` on scores that are not pass/fail: the score analysis by default,
``--threshold`` keeps pass/fail, ``--analysis`` forces one; ``--fail-on``, ``--margin`` and
``--by-task`` on scores; the real Inspect logs with partial credit and a numeric scorer
(tests/data/io/real/graded, written by inspect-ai, per-item scores in expected.json read
with plain json)."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from mcnemar import analyze, analyze_scores
from mcnemar.cli import main
from mcnemar.cli._common import ExitCode

GRADED = Path(__file__).parent / "data" / "io" / "real" / "graded"


def invoke(*args: str | Path) -> object:
    return CliRunner().invoke(main, ["compare", *map(str, args)])


def _write(path: Path, rows: list[tuple[object, ...]], header: tuple[str, ...]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
    return path


@pytest.fixture
def grades(tmp_path: Path) -> tuple[Path, Path, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(4)
    a = np.clip(np.round(rng.normal(7, 1.5, 40)), 1, 10)
    b = np.clip(a - rng.integers(-1, 3, 40), 1, 10)
    pa = _write(tmp_path / "new.csv", [(i, x) for i, x in enumerate(a)], ("id", "score"))
    # B's rows in another order: the items pair by id
    pb = _write(tmp_path / "old.csv", [(i, b[i]) for i in reversed(range(40))], ("id", "score"))
    return pa, pb, a, b


def test_non_binary_scores_get_the_score_analysis(grades) -> None:
    pa, pb, a, b = grades
    result = invoke(pa, pb, "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["schema"] == "mcnemar.scores/1"
    want = analyze_scores(a, b, random_state=0)
    assert doc["tests"]["t"]["pvalue"] == pytest.approx(want.tests["t"].pvalue, rel=1e-12)
    assert doc["difference"]["estimate"] == pytest.approx(float(np.mean(a - b)))
    assert doc["counts"] == {"higher_a": int((a > b).sum()), "equal": int((a == b).sum()),
                             "higher_b": int((a < b).sum())}
    assert doc["alignment"]["matched"] == 40
    text = invoke(pa, pb)
    assert text.output.startswith("Paired comparison of scores: new.csv (A) vs old.csv (B)")


def test_threshold_keeps_the_pass_fail_analysis(grades) -> None:
    pa, pb, a, b = grades
    result = invoke(pa, pb, "--threshold", "7", "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["schema"] == "mcnemar.report/1"
    pa_, pb_ = a >= 7, b >= 7
    table = {"a": int((pa_ & pb_).sum()), "b": int((pa_ & ~pb_).sum()),
             "c": int((~pa_ & pb_).sum()), "d": int((~pa_ & ~pb_).sum())}
    assert {k: doc["table"][k] for k in "abcd"} == table
    want = analyze([[table["a"], table["b"]], [table["c"], table["d"]]])
    assert doc["tests"]["exact"]["pvalue"] == pytest.approx(want.tests["exact"].pvalue)
    same = invoke(pa, pb, "--threshold", "7", "--analysis", "pass-fail", "--format", "json")
    assert json.loads(same.output) == doc


def test_analysis_forces_one(grades, tmp_path: Path) -> None:
    pa, pb, _, _ = grades
    refused = invoke(pa, pb, "--analysis", "pass-fail")
    assert refused.exit_code == ExitCode.BAD_INPUT
    assert "--threshold" in refused.output
    both = invoke(pa, pb, "--analysis", "scores", "--threshold", "5")
    assert both.exit_code == ExitCode.BAD_INPUT and "--threshold" in both.output
    # 0/1 scores: pass/fail by default, the scores when asked
    ones = _write(tmp_path / "x.csv", [(i, i % 2) for i in range(20)], ("id", "score"))
    twos = _write(tmp_path / "y.csv", [(i, int(i % 3 == 0)) for i in range(20)], ("id", "score"))
    assert json.loads(invoke(ones, twos, "--format", "json").output)["schema"] == \
        "mcnemar.report/1"
    doc = json.loads(invoke(ones, twos, "--analysis", "scores", "--format", "json").output)
    assert doc["schema"] == "mcnemar.scores/1" and doc["binary"]
    passfail = json.loads(invoke(ones, twos, "--format", "json").output)
    assert doc["tests"]["sign"]["pvalue"] == pytest.approx(passfail["tests"]["exact"]["pvalue"])


def test_fail_on_and_margin(grades) -> None:
    pa, pb, _, _ = grades
    assert invoke(pa, pb, "--fail-on", "worse").exit_code == 0
    worse = invoke(pb, pa, "--fail-on", "worse")
    assert worse.exit_code == ExitCode.WORSE
    assert "significantly worse" in worse.output
    assert invoke(pa, pb, "--fail-on", "different").exit_code == ExitCode.DIFFERENT
    ok = invoke(pa, pb, "--margin", "0.5", "--fail-on", "inferior", "--format", "json")
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.output)["noninferiority"]["noninferior"] is True
    inferior = invoke(pb, pa, "--margin", "0.1", "--fail-on", "inferior")
    assert inferior.exit_code == ExitCode.INFERIOR
    assert "Non-inferiority by 0.1 is not shown" in inferior.output
    assert invoke(pa, pb, "--bayes").exit_code == ExitCode.BAD_INPUT


def test_by_task_macro_is_the_mean_of_the_task_differences(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    rows_a, rows_b, diffs, ses = [], [], [], []
    for task, shift, n in (("easy", 0.3, 30), ("hard", -0.1, 50), ("mid", 0.0, 20)):
        a = rng.uniform(0, 1, n)
        b = np.clip(a - shift + rng.normal(0, 0.2, n), 0, 1)
        rows_a += [(task, i, x) for i, x in enumerate(a)]
        rows_b += [(task, i, x) for i, x in enumerate(b)]
        diffs.append(float(np.mean(a - b)))
        ses.append(float(np.std(a - b, ddof=1) / math.sqrt(n)))
    pa = _write(tmp_path / "a.csv", rows_a, ("task", "id", "score"))
    pb = _write(tmp_path / "b.csv", rows_b, ("task", "id", "score"))
    result = invoke(pa, pb, "--task-column", "task", "--id", "task", "--id", "id",
                    "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["overall"]["estimate"] == pytest.approx(np.mean(diffs), rel=1e-12)
    assert doc["overall"]["standard_error"] == pytest.approx(
        math.sqrt(sum(s * s for s in ses)) / 3, rel=1e-12)
    assert {t["task"] for t in doc["tasks"]} == {"easy", "hard", "mid"}
    assert doc["tasks"][0]["report"]["schema"] == "mcnemar.scores/1"
    text = invoke(pa, pb, "--task-column", "task", "--id", "task", "--id", "id")
    assert "scores task by task: 3 tasks" in text.output
    worse = invoke(pb, pa, "--task-column", "task", "--id", "task", "--id", "id",
                   "--fail-on", "worse-any")
    assert worse.exit_code == ExitCode.WORSE, worse.output


# -- real logs written by inspect-ai ---------------------------------------------------------------
@pytest.fixture(scope="module")
def expected() -> dict:
    return json.loads((GRADED / "expected.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("scorer", ["partial", "closeness"])
def test_inspect_logs_with_partial_credit_and_epochs(expected: dict, scorer: str) -> None:
    files = expected["files"]
    result = invoke(GRADED / files["a"], GRADED / files["b"], "--score", scorer,
                    "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    want = expected["comparisons"][scorer]
    assert doc["schema"] == "mcnemar.scores/1"
    assert doc["n"] == expected["items"]
    assert doc["counts"] == {k: want[k] for k in ("higher_a", "equal", "higher_b")}
    assert doc["difference"]["estimate"] == pytest.approx(want["difference"], abs=1e-12)
    # the epochs: item means, with the variance within and between items
    epochs = doc["epochs"]
    assert epochs["samples"] == expected["items"] * expected["epochs"]
    assert epochs["samples_per_item"] == expected["epochs"]
    scores = expected["scores"]
    within_a = np.mean([np.var(v, ddof=1) for v in scores["a"][scorer].values()])
    assert epochs["within_a"] == pytest.approx(within_a, rel=1e-12)
    means = want["item_means"]
    ids = sorted(means["a"], key=int)
    report = analyze_scores([means["a"][i] for i in ids], [means["b"][i] for i in ids],
                            random_state=0)
    assert doc["tests"]["t"]["pvalue"] == pytest.approx(report.tests["t"].pvalue, rel=1e-10)
    text = invoke(GRADED / files["a"], GRADED / files["b"], "--score", scorer)
    assert f"Each item was scored {expected['epochs']} times" in text.output


# -- mcnemar power for the paired t test ---------------------------------------------------------
def power_cli(*args: str) -> object:
    return CliRunner().invoke(main, ["power", *args])


def test_power_plans_the_paired_t_test() -> None:
    from mcnemar import planning

    result = power_cli("--n", "20", "--difference", "1", "--sd", "1", "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    # R: power.t.test(n = 20, delta = 1, sd = 1, type = "paired", strict = TRUE)
    assert doc["power"] == pytest.approx(0.988591294779182, rel=1e-10)
    assert doc["method"] == "noncentral-t" and doc["normal"] > doc["power"]
    size = power_cli("--difference", "0.5", "--sd", "1")
    assert size.exit_code == 0 and "n = 34" in size.output  # R: n = 33.37
    mde = json.loads(power_cli("--mde", "--n", "50", "--sd", "2", "--format", "json").output)
    assert mde["difference"] == pytest.approx(0.808367879916475, rel=1e-5)
    two = json.loads(power_cli("--n", "30", "--difference", "0.3", "--sd-a", "1", "--sd-b", "1.2",
                               "--correlation", "0.5", "--format", "json").output)
    assert two["power"] == pytest.approx(planning.t_power(30, 0.3, sd_a=1, sd_b=1.2,
                                                          correlation=0.5).power)
    normal = json.loads(power_cli("--n", "20", "--difference", "1", "--sd", "1", "--t-method",
                                  "normal", "--format", "json").output)
    assert normal["power"] == pytest.approx(doc["normal"])
    for bad in (["--sd", "1"], ["--sd", "1", "--difference", "1", "--p10", "0.1"],
                ["--mde", "--sd", "1"], ["--sd", "-1", "--difference", "1"]):
        refused = power_cli(*bad)
        assert refused.exit_code == ExitCode.BAD_INPUT, (bad, refused.output)


def test_github_format_states_the_score_verdict(grades, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    pa, pb, a, b = grades
    out, summary = tmp_path / "out.txt", tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = invoke(pa, pb, "--format", "github")
    assert result.exit_code == 0, result.output
    values = dict(line.split("=", 1) for line in out.read_text().splitlines())
    assert values["verdict"] == "better"
    assert float(values["difference"]) == pytest.approx(float(np.mean(a - b)), rel=1e-5)
    assert "Paired comparison of scores" in summary.read_text()


def test_alignment_keeps_the_scores_without_changing_the_pass_fail_counts() -> None:
    from mcnemar.errors import AlignmentError
    from mcnemar.io import RunResults, align

    binary_a = RunResults.from_scores(["q1", "q2", "q3", "q4"], [1, 0, 1, 1], name="a")
    binary_b = RunResults.from_scores(["q4", "q3", "q2", "q1"], [0, 1, 1, 0], name="b")
    plain, kept = align(binary_a, binary_b), align(binary_a, binary_b, keep_scores=True)
    assert kept.counts == plain.counts and kept.summary == plain.summary
    graded_a = RunResults.from_scores(["q1", "q2", "q3"], [0.9, 0.5, 0.25], name="a")
    graded_b = RunResults.from_scores(["q3", "q2", "q1"], [0.5, 0.5, 1.0], name="b")
    with pytest.raises(AlignmentError, match="not 0/1"):
        align(graded_a, graded_b)
    al = align(graded_a, graded_b, keep_scores=True)
    assert al.scores_a.tolist() == [0.9, 0.5, 0.25] and al.scores_b.tolist() == [1.0, 0.5, 0.5]
    assert al.summary.run_a.binarised == 0


def test_github_warnings_state_a_tasks_score_difference_in_score_units(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--by-task on scores: the ::warning of a task A is worse on gives its mean difference in
    score units, as the task's report states it, never accuracy points."""
    rng = np.random.default_rng(2)
    rows_a, rows_b = [], []
    for task, drop in (("add", 0.3), ("mul", 0.0)):
        for i in range(30):
            x = float(np.round(rng.uniform(0.3, 1.0), 2))
            rows_a.append((task, f"q{i}", x))
            rows_b.append((task, f"q{i}", float(np.round(x + drop + rng.uniform(-0.05, 0.05),
                                                         2))))
    header = ("task", "id", "score")
    pa, pb = _write(tmp_path / "new.csv", rows_a, header), _write(tmp_path / "old.csv", rows_b,
                                                                   header)
    monkeypatch.delenv("GITHUB_OUTPUT", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    result = invoke(pa, pb, "--task-column", "task", "--format", "github")
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.output.splitlines() if line.startswith("::warning")]
    doc = json.loads(invoke(pa, pb, "--task-column", "task", "--format", "json").output)
    (add,) = [t for t in doc["tasks"] if t["task"] == "add"]
    assert len(warnings) == 1 and "on task add: mean score difference " in warnings[0]
    assert add["report"]["difference"]["estimate_text"] in warnings[0]
    assert "points" not in warnings[0]
