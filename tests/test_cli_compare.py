"""``mcnemar compare``: every input format end to end, policies, outputs, exit codes.

The issue's acceptance case is built here: two lm-eval samples files sharing 1,000 items,
one with 3 extra items and one duplicated doc_id.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcnemar.cli import main
from mcnemar.cli._common import ExitCode

DATA = Path(__file__).parent / "data" / "io"


def invoke(*args: str | Path) -> object:
    return CliRunner().invoke(main, ["compare", *map(str, args)])


def lm_eval_file(path: Path, outcomes: list[tuple[int, float]]) -> Path:
    path.write_text("".join(
        json.dumps({"doc_id": doc, "doc": {"q": doc}, "filter": "none", "metrics": ["acc"],
                    "acc": acc, "resps": [], "filtered_resps": []}) + "\n"
        for doc, acc in outcomes))
    return path


@pytest.fixture()
def thousand(tmp_path: Path) -> tuple[Path, Path]:
    """1,000 shared docs; B adds docs 1000-1002 and repeats doc 17."""
    a = [(i, float(i % 3 != 0)) for i in range(1000)]
    b = [(i, float(i % 4 != 0)) for i in range(1000)] + [(1000, 1.0), (1001, 0.0),
                                                          (1002, 1.0), (17, 1.0)]
    (tmp_path / "new").mkdir()
    (tmp_path / "old").mkdir()
    return (lm_eval_file(tmp_path / "new" / "samples_mmlu_2026-03-01T12-00-00.000001.jsonl", a),
            lm_eval_file(tmp_path / "old" / "samples_mmlu_2026-02-01T09-00-00.000001.jsonl", b))


def test_acceptance_three_extra_items_and_a_duplicate(thousand: tuple[Path, Path]) -> None:
    a, b = thousand
    result = invoke(a, b)
    assert result.exit_code == ExitCode.BAD_INPUT
    err = result.stderr
    assert err.count("\n") == 1 and err.startswith("mcnemar: error: cannot pair the runs")
    assert "1 duplicated item key (('mmlu', 17, 'none') x2)" in err
    assert "3 items not in" in err and "('mmlu', 1000, 'none')" in err
    assert "Traceback" not in err and result.stdout == ""
    still = invoke(a, b, "--on-missing", "intersect")
    assert still.exit_code == ExitCode.BAD_INPUT
    assert "duplicated" in still.stderr and "items not in" not in still.stderr
    assert "on_missing='intersect' matched 1000 items and dropped 3 (3 only in B)" in \
        still.stderr


def test_acceptance_intersect_reports_matched_and_dropped(tmp_path: Path,
                                                          thousand: tuple[Path, Path]) -> None:
    a, b = thousand
    lines = b.read_text().splitlines()
    fixed = tmp_path / "samples_mmlu_2026-03-01T12-00-00.000002.jsonl"  # a fixed rerun of B
    fixed.write_text("\n".join(lines[:-1]) + "\n")  # drop the duplicate
    result = invoke(a, fixed, "--on-missing", "intersect", "--format", "json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["alignment"]["matched"] == 1000
    assert report["alignment"]["dropped"]["total"] == 3
    assert report["alignment"]["dropped"]["only_in_b"] == 3
    assert report["alignment"]["runs"]["b"]["records"] == 1003
    # the table of the 1,000 matched docs: A passes i % 3 != 0, B passes i % 4 != 0
    a_pass = {i for i in range(1000) if i % 3}
    b_pass = {i for i in range(1000) if i % 4}
    assert report["table"]["b"] == len(a_pass - b_pass)
    assert report["table"]["c"] == len(b_pass - a_pass)
    assert report["table"]["n"] == 1000
    text = invoke(a, fixed, "--on-missing", "intersect")
    assert "1000 items matched" in text.stdout and "Dropped 3 items (3 only in B" in text.stdout


@pytest.mark.parametrize(
    ("a", "b", "options"),
    [
        ("lmeval_a", "lmeval_b", []),
        ("inspect/a.eval", "inspect/b.json", ["--reduce", "first", "--threshold", "0.5"]),
        ("openai_evals/a.jsonl", "openai_evals/b.jsonl", []),
        ("helm/mmlu_a", "helm/mmlu_b", ["--score", "exact_match"]),
        # the CSV names its id "id", the JSONL "item_id": both are detected
        ("generic/a.csv", "generic/b.jsonl", []),
    ],
)
def test_every_format_through_the_command(a: str, b: str, options: list[str]) -> None:
    result = invoke(DATA / a, DATA / b, *options, "--format", "json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    expected = {"inspect/a.eval": (2, 1, 0, 1)}.get(a, (2, 2, 1, 1))
    assert tuple(report["table"][k] for k in "abcd") == expected
    assert report["alignment"]["matched"] == sum(expected)
    assert report["schema"].startswith("mcnemar.report/")


def test_markdown_for_a_pull_request_comment() -> None:
    result = invoke(DATA / "generic" / "a.csv", DATA / "generic" / "b.csv", "--format",
                    "markdown", "--names", "candidate,baseline")
    assert result.exit_code == 0
    assert "|" in result.stdout and "candidate" in result.stdout
    assert "6 items matched" in result.stdout


def _gate_files(tmp_path: Path, a_wins: int, b_wins: int) -> tuple[Path, Path]:
    n = 200
    a = tmp_path / "a.csv"
    b = tmp_path / "b.csv"
    a.write_text("id,score\n" + "".join(
        f"q{i},{0 if a_wins <= i < a_wins + b_wins else 1}\n" for i in range(n)))
    b.write_text("id,score\n" + "".join(
        f"q{i},{0 if i < a_wins else 1}\n" for i in range(n)))
    return a, b


def test_fail_on_worse_and_different_exit_codes(tmp_path: Path) -> None:
    worse_a, worse_b = _gate_files(tmp_path, a_wins=2, b_wins=20)  # A worse, exact p < 0.001
    result = invoke(worse_a, worse_b, "--fail-on", "worse")
    assert result.exit_code == ExitCode.WORSE == 3
    assert "significantly worse" in result.stderr and "McNemar" in result.stdout
    assert invoke(worse_a, worse_b, "--fail-on", "different").exit_code == ExitCode.DIFFERENT == 4
    # the same data with A and B swapped: A is better, so --fail-on worse passes
    assert invoke(worse_b, worse_a, "--fail-on", "worse").exit_code == 0
    assert invoke(worse_b, worse_a, "--fail-on", "different").exit_code == 4
    # a small, non-significant difference passes both gates
    even_a, even_b = _gate_files(tmp_path, a_wins=5, b_wins=6)
    assert invoke(even_a, even_b, "--fail-on", "worse").exit_code == 0
    assert invoke(even_a, even_b, "--fail-on", "different").exit_code == 0
    # a stricter alpha can make a significant result pass the gate
    mid_a, mid_b = _gate_files(tmp_path, a_wins=2, b_wins=10)  # exact p = 0.039
    assert invoke(mid_a, mid_b, "--fail-on", "worse").exit_code == 3
    assert invoke(mid_a, mid_b, "--fail-on", "worse", "--alpha", "0.01").exit_code == 0


def test_truth_labels_and_two_prediction_files() -> None:
    g = DATA / "generic"
    result = invoke("--truth", g / "labels.csv", g / "pred_a.csv", g / "pred_b.jsonl",
                    "--format", "json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert tuple(report["table"][k] for k in "abcd") == (2, 2, 1, 1)
    bad = invoke("--truth", g / "labels.csv", g / "pred_a.csv")
    assert bad.exit_code == 2 and "two prediction files" in bad.stderr


def test_long_file_with_run_column() -> None:
    result = invoke(DATA / "generic" / "long.csv", "--run-column", "model", "--runs", "new,old",
                    "--format", "json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["names"] == {"a": "new", "b": "old"}
    assert tuple(report["table"][k] for k in "abcd") == (2, 2, 1, 1)


def test_threshold_and_reduce_are_reported() -> None:
    result = invoke(DATA / "generic" / "probs.csv", DATA / "generic" / "b.csv",
                    "--threshold", "0.5", "--format", "json")
    assert result.exit_code == 0
    alignment = json.loads(result.stdout)["alignment"]
    assert alignment["threshold"] == 0.5 and alignment["runs"]["a"]["binarised"] == 6
    reduced = invoke(DATA / "inspect" / "a.eval", DATA / "inspect" / "b.eval", "--reduce",
                     "majority", "--threshold", "0.5")
    assert reduced.exit_code == 0
    assert "Reduced samples per item by majority" in reduced.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.csv", "other.csv"], "no such file"),
        ([DATA / "generic" / "a.csv"], "two run files"),
        ([DATA / "malformed" / "no_header.eval", DATA / "inspect" / "a.eval"], "no header.json"),
        ([DATA / "inspect" / "a.eval", DATA / "inspect" / "b.eval"], "several samples"),
        ([DATA / "generic" / "a.csv", DATA / "generic" / "b.csv", "--filter", "x"],
         "do not apply to csv"),
        ([DATA / "generic" / "a.csv", DATA / "generic" / "b.csv", "--names", "x"],
         "--names takes two"),
        ([DATA / "generic" / "a.csv", DATA / "generic" / "b.csv", "--runs", "x,y"],
         "--runs needs --run-column"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str | Path], message: str) -> None:
    result = invoke(*args)
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    assert message in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_json_stays_clean_with_a_forced_progress_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("tqdm")
    from mcnemar.io import _progress

    monkeypatch.setattr(_progress, "DELAY", 0.0)
    result = invoke(DATA / "lmeval_a", DATA / "lmeval_b", "--format", "json", "--progress")
    assert result.exit_code == 0
    json.loads(result.stdout)  # nothing but the JSON document on stdout


def test_help_documents_exit_codes() -> None:
    result = CliRunner().invoke(main, ["compare", "--help"])
    assert result.exit_code == 0
    assert "3 with --fail-on worse" in result.stdout and "4 with --fail-on" in result.stdout


def test_epochs_as_clusters_through_the_cli() -> None:
    # Inspect logs with two epochs per sample: instead of reducing, keep every epoch and let
    # the clustered analysis account for the samples of one item hanging together.
    import json as _json
    import subprocess
    import sys
    from pathlib import Path

    data = Path(__file__).parent / "data" / "io" / "inspect"
    out = subprocess.run(
        [sys.executable, "-m", "mcnemar", "compare", str(data / "a.eval"), str(data / "b.eval"),
         "--reduce", "cluster", "--threshold", "0.5", "--format", "json"],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    report = _json.loads(out.stdout)
    assert report["recommended"]["test"] == "clustered"
    assert report["clustered"]["clusters"] == 4
    assert report["alignment"]["reduce"] == "cluster"
    assert report["table"]["n"] == 8


def test_cluster_column_gives_the_clustered_analysis(tmp_path) -> None:
    # Items grouped by passage: the report's clustered test equals the library's clustered
    # test run directly on the same per-item outcomes.
    import json as _json
    import subprocess
    import sys

    import numpy as np

    from mcnemar.clustering import clustered_from_outcomes

    rng = np.random.default_rng(4)
    n = 300
    passage = rng.integers(0, 30, n)
    effect = rng.random(30)[passage]
    a = (rng.random(n) < 0.55 + 0.3 * effect).astype(int)
    b = (rng.random(n) < 0.5 + 0.3 * effect).astype(int)
    for name, score in (("a.csv", a), ("b.csv", b)):
        rows = ["id,passage,correct"] + [f"q{i},p{passage[i]},{score[i]}" for i in range(n)]
        (tmp_path / name).write_text("\n".join(rows) + "\n")
    out = subprocess.run(
        [sys.executable, "-m", "mcnemar", "compare", str(tmp_path / "a.csv"),
         str(tmp_path / "b.csv"), "--id", "id", "--score", "correct", "--cluster", "passage",
         "--format", "json"],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    report = _json.loads(out.stdout)
    direct = clustered_from_outcomes(a, b, passage)
    assert report["recommended"]["test"] == "clustered"
    assert report["clustered"]["statistic"] == direct.statistic
    assert report["clustered"]["clusters"] == 30
