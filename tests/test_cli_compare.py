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
    assert "--on-missing intersect matched 1000 items and dropped 3 (3 only in B)" in \
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
        # partial credit (P = 0.5) and epochs: pass/fail only when asked for
        ([DATA / "inspect" / "a.eval", DATA / "inspect" / "b.eval", "--analysis", "pass-fail"],
         "several samples"),
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
    out = invoke(tmp_path / "a.csv", tmp_path / "b.csv", "--id", "id", "--score", "correct",
                 "--cluster", "passage", "--format", "json")
    assert out.exit_code == 0, out.stderr
    report = _json.loads(out.stdout)
    direct = clustered_from_outcomes(a, b, passage)
    assert report["recommended"]["test"] == "clustered"
    assert report["clustered"]["statistic"] == direct.statistic
    assert report["clustered"]["clusters"] == 30


# --- run identity, status and the rough edges of the command line ------------------------


def inspect_json(path: Path, outcomes: dict[int, str], *, task: str = "arith",
                 scorers: tuple[str, ...] = ("match",), status: str = "success",
                 model: str = "m", errored: frozenset[int] = frozenset()) -> Path:
    samples = [{"id": i, "epoch": 1, "input": f"q{i}", "target": "t",
                "scores": {s: {"value": v if s == scorers[0] else ("C" if i % 2 else "I")}
                           for s in scorers},
                **({"error": {"message": "boom"}} if i in errored else {})}
               for i, v in outcomes.items()]
    path.write_text(json.dumps({"version": 2, "status": status,
                                "eval": {"task": task, "model": model}, "samples": samples}))
    return path


def _report_validator() -> object:
    import jsonschema_rs

    from mcnemar.report import json_schema

    return jsonschema_rs.validator_for(json_schema())


OUT_A = {i: "C" if i % 3 else "I" for i in range(1, 31)}
OUT_B = {i: "C" if i % 5 else "I" for i in range(1, 31)}


def test_different_tasks_refused_with_the_flag_to_override(tmp_path: Path) -> None:
    a = inspect_json(tmp_path / "a.json", OUT_A)
    b = inspect_json(tmp_path / "b.json", OUT_B, task="other_task")
    result = invoke(a, b)
    assert result.exit_code == ExitCode.BAD_INPUT
    err = result.stderr
    assert err.count("\n") == 1 and "task 'arith' in A" in err and "'other_task' in B" in err
    assert "pass --allow-different-tasks" in err and "allow_different_tasks=" not in err
    ok = invoke(a, b, "--allow-different-tasks", "--format", "json")
    assert ok.exit_code == 0, ok.stderr
    report = json.loads(ok.stdout)
    assert any("different tasks" in w for w in report["warnings"])
    assert report["alignment"]["runs"]["b"]["task"] == "other_task"
    assert _report_validator().is_valid(report)  # type: ignore[attr-defined]


def test_two_scorers_of_one_log_compared_on_request(tmp_path: Path) -> None:
    log = inspect_json(tmp_path / "log.json", OUT_A, scorers=("match", "includes"))
    several = invoke(log, log)
    assert several.exit_code == 2 and "choose one with --score NAME" in several.stderr
    refused = invoke(log, log, "--score-a", "match", "--score-b", "includes")
    assert refused.exit_code == 2
    assert "scored by match in A and by includes in B" in refused.stderr
    assert "--allow-different-scorers" in refused.stderr
    result = invoke(log, log, "--score-a", "match", "--score-b", "includes",
                    "--allow-different-scorers", "--format", "json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    a = {i: int(v == "C") for i, v in OUT_A.items()}
    b = {i: i % 2 for i in OUT_A}
    expected = (sum(a[i] and b[i] for i in a), sum(a[i] and not b[i] for i in a),
                sum(not a[i] and b[i] for i in a), sum(not a[i] and not b[i] for i in a))
    assert tuple(report["table"][k] for k in "abcd") == expected
    assert report["alignment"]["runs"]["a"]["scorer"] == "match"
    assert report["alignment"]["runs"]["b"]["scorer"] == "includes"
    assert any("scored differently" in w for w in report["warnings"])
    # the same model on both sides is labelled once
    text = invoke(log, log, "--score-a", "match", "--score-b", "includes",
                  "--allow-different-scorers")
    assert "m (A) vs m (B)" in text.stdout and "(A) (A)" not in text.stdout


def test_status_and_errored_samples_in_text_markdown_and_json(tmp_path: Path) -> None:
    a = inspect_json(tmp_path / "a.json", OUT_A, status="cancelled", errored=frozenset({3}))
    b = inspect_json(tmp_path / "b.json", OUT_B, model="m2")
    text = invoke(a, b)
    assert text.exit_code == 0, text.stderr
    assert "status cancelled" in text.stdout  # the run line of the alignment
    warnings = text.stdout.split("Warnings:")[1]
    assert "did not complete: its status is cancelled" in warnings
    assert "1 sample that errored: 1 item counted with the score the harness gave, 1 of" \
        in " ".join(warnings.split())
    markdown = invoke(a, b, "--format", "markdown")
    assert "did not complete" in markdown.stdout
    report = json.loads(invoke(a, b, "--format", "json").stdout)
    run = report["alignment"]["runs"]["a"]
    assert (run["status"], run["errored"], run["errored_counted"]) == ("cancelled", 1, 1)
    assert _report_validator().is_valid(report)  # type: ignore[attr-defined]


def test_renamed_lm_eval_files_and_tasks_from_directories(tmp_path: Path) -> None:
    a = lm_eval_file(tmp_path / "samples_new.jsonl", [(i, float(i % 3 != 0)) for i in range(50)])
    b = lm_eval_file(tmp_path / "samples_old.jsonl", [(i, float(i % 4 != 0)) for i in range(50)])
    result = invoke(a, b, "--format", "json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["table"]["b"] == sum(1 for i in range(50) if i % 3 and not i % 4)
    assert report["table"]["c"] == sum(1 for i in range(50) if not i % 3 and i % 4)
    # two directories of two tasks: compared task by task, one pooled table
    for side, mod in (("A", 3), ("B", 4)):
        (tmp_path / side).mkdir()
        for task, n in (("boolq", 40), ("piqa", 25)):
            lm_eval_file(tmp_path / side / f"samples_{task}_2026-01-0{mod}T00-00-00.000001.jsonl",
                         [(i, float(i % mod != 0)) for i in range(n)])
    pooled = invoke(tmp_path / "A", tmp_path / "B", "--format", "json")
    assert pooled.exit_code == 0, pooled.stderr
    strata = json.loads(pooled.stdout)["alignment"]["strata"]
    assert [s["task"] for s in strata] == ["boolq", "piqa"]
    one = invoke(tmp_path / "A", tmp_path / "B", "--task", "piqa", "--format", "json")
    piqa = json.loads(one.stdout)
    assert piqa["alignment"]["strata"] is None
    assert {k: piqa["table"][k] for k in "abcd"} == {k: strata[1][k] for k in "abcd"}
    assert json.loads(pooled.stdout)["table"]["n"] == 65
    assert "Compared task by task (2 tasks" in invoke(tmp_path / "A", tmp_path / "B").stdout
    bad = invoke(tmp_path / "A", tmp_path / "B", "--task", "nope")
    assert bad.exit_code == 2 and "'nope' not in this directory" in bad.stderr


def test_different_id_and_score_columns_per_file(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("question,ok\nq1,1\nq2,0\nq3,1\n")
    (tmp_path / "b.csv").write_text("qid,passed\nq3,0\nq1,1\nq2,1\n")
    result = invoke(tmp_path / "a.csv", tmp_path / "b.csv", "--id-a", "question", "--id-b",
                    "qid", "--score-a", "ok", "--score-b", "passed", "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert tuple(json.loads(result.stdout)["table"][k] for k in "abcd") == (1, 1, 1, 0)
    missing = invoke(tmp_path / "a.csv", tmp_path / "b.csv")
    assert missing.exit_code == 2 and "choose one with --id COLUMN" in missing.stderr


def test_messages_name_flags_and_plurals(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("id,score\nq1,1\n")
    (tmp_path / "b.csv").write_text("id,score\nq1,0.4\nq2,1\n")
    result = invoke(tmp_path / "a.csv", tmp_path / "b.csv", "--analysis", "pass-fail")
    assert "1 item not in" in result.stderr and "--on-missing intersect" in result.stderr
    assert "1 score is not 0/1" in result.stderr and "--threshold T" in result.stderr
    scores = invoke(tmp_path / "a.csv", tmp_path / "b.csv")  # the score analysis pairs too
    assert "1 item not in" in scores.stderr and "--on-missing intersect" in scores.stderr
    one = invoke(tmp_path / "a.csv", tmp_path / "a.csv", "--names", "x,y")
    assert "1 item matched" in one.stdout and "1 record, 1 item" in one.stdout
    path = next((DATA / "lmeval_filters").glob("*.jsonl"))
    filters = invoke(path, path)
    assert "choose one with --filter NAME" in filters.stderr


def test_prediction_files_without_truth_get_a_hint() -> None:
    g = DATA / "generic"
    result = invoke(g / "pred_a.csv", g / "pred_b.jsonl")
    assert result.exit_code == 2
    assert "looks like predicted labels" in result.stderr and "--truth LABELS" in result.stderr
    assert "--truth" in invoke().stderr


def test_missing_extra_names_the_install(monkeypatch: pytest.MonkeyPatch,
                                         tmp_path: Path) -> None:
    import builtins

    pytest.importorskip("pyarrow")
    import pyarrow as pa
    import pyarrow.parquet as pq

    for name, scores in (("a.parquet", [1, 0]), ("b.parquet", [1, 1])):
        pq.write_table(pa.table({"id": ["q1", "q2"], "score": scores}), tmp_path / name)
    real = builtins.__import__

    def no_frames(name: str, *args: object, **kwargs: object) -> object:
        if name.split(".")[0] in ("pyarrow", "duckdb"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_frames)
    result = invoke(tmp_path / "a.parquet", tmp_path / "b.parquet")  # DuckDB found, not importable
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    assert "pip install 'mcnemar[frames]'" in result.stderr
    assert "internal error" not in result.stderr
    from mcnemar.io import generic

    monkeypatch.setattr(generic, "_duckdb_available", lambda: False)  # neither installed
    result = invoke(tmp_path / "a.parquet", tmp_path / "b.parquet")
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    assert "reading Parquet needs DuckDB or pyarrow: pip install 'mcnemar[frames]'" in \
        result.stderr


def test_archive_over_the_inflate_budget_or_corrupt_is_bad_input(tmp_path: Path) -> None:
    import zipfile

    big = tmp_path / "big.eval"
    with zipfile.ZipFile(big, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("header.json", json.dumps({"version": 2, "status": "success",
                                              "eval": {"task": "t", "model": "m"}}))
        z.writestr("summaries.json", json.dumps(
            [{"id": i, "epoch": 1, "scores": {"match": {"value": "C"}}, "input": " " * 3000}
             for i in range(1000)]))
    result = invoke(big, big, "--max-inflated-mb", "1")
    assert result.exit_code == ExitCode.BAD_INPUT
    assert str(big) in result.stderr and "read budget of 1 MB" in result.stderr
    assert "raise the budget with --max-inflated-mb MB" in result.stderr
    assert invoke(big, big, "--max-inflated-mb", "50").exit_code == 0
    corrupt = tmp_path / "corrupt.eval"
    corrupt.write_bytes(big.read_bytes()[: big.stat().st_size // 2])
    bad = invoke(corrupt, big)
    assert bad.exit_code == ExitCode.BAD_INPUT and "internal error" not in bad.stderr
    assert str(corrupt) in bad.stderr
    assert invoke(big, big, "--max-inflated-mb", "0").exit_code == ExitCode.BAD_INPUT


def test_task_option_checks_logs_of_one_task(tmp_path: Path) -> None:
    a = inspect_json(tmp_path / "a.json", OUT_A)
    b = inspect_json(tmp_path / "b.json", OUT_B)
    assert invoke(a, b, "--task", "arith").exit_code == 0
    other = invoke(a, b, "--task", "other")
    assert other.exit_code == 2 and "the log holds task 'arith', not 'other'" in other.stderr
    g = DATA / "generic"
    csv = invoke(g / "a.csv", g / "b.csv", "--task", "arith")
    assert csv.exit_code == 2 and "--task applies to eval-harness logs" in csv.stderr


def test_other_commands_spell_library_keywords_as_their_own_flags(tmp_path: Path) -> None:
    # pairwise has --threshold but no --filter: the first is spelled as its flag, the second
    # stays the library keyword rather than naming a flag that does not exist.
    (tmp_path / "p1.csv").write_text("id,score\nq1,1\nq2,0.5\n")
    (tmp_path / "p2.csv").write_text("id,score\nq1,1\nq2,1\n")
    result = CliRunner().invoke(main, ["pairwise", str(tmp_path / "p1.csv"),
                                       str(tmp_path / "p2.csv"), str(tmp_path / "p2.csv")])
    assert result.exit_code == 2
    assert "pass --threshold T" in result.stderr and "threshold=T" not in result.stderr
    path = next((DATA / "lmeval_filters").glob("*.jsonl"))
    filters = CliRunner().invoke(main, ["pairwise", str(path), str(path)])
    assert "choose one with filter=NAME" in filters.stderr


REAL = DATA / "real"


@pytest.mark.parametrize("seed", range(4))
def test_damaged_harness_logs_are_bad_input_never_internal_errors(tmp_path: Path,
                                                                  seed: int) -> None:
    """Seeded damage (flipped bytes, truncation, inserted bytes, changed field types) to logs
    written by the real harnesses: every outcome is a report (exit 0) or one line of bad
    input (exit 2)."""
    import random

    sources = [REAL / "inspect" / "arith_a.eval", REAL / "inspect" / "arith_a.json",
               REAL / "inspect_old" / "arith_a.eval", REAL / "lmeval" / "renamed" /
               "samples_new.jsonl", REAL / "openai_evals" / "arith_a.jsonl"]
    rng = random.Random(seed)
    for n in range(15):
        source = rng.choice(sources)
        data = bytearray(source.read_bytes())
        kind = rng.randrange(4)
        if kind == 0:
            for _ in range(rng.randrange(1, 20)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        elif kind == 1:
            data = data[: rng.randrange(len(data))]
        elif kind == 2 and source.suffix in (".json", ".jsonl"):
            text = data.decode()
            for old, new in (('"C"', "[1]"), ("1.0", '"x"'), ('"id"', '"idx"'),
                             ("true", "{}"), ('"doc_id": ', '"doc_id": [')):
                if rng.random() < 0.3:
                    text = text.replace(old, new, rng.randrange(1, 4))
            data = bytearray(text.encode())
        else:
            at = rng.randrange(len(data))
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 50)))
        damaged = tmp_path / f"d{n}{source.suffix}"
        damaged.write_bytes(bytes(data))
        result = invoke(damaged, source, "--on-missing", "intersect")
        assert result.exit_code in (0, 2), (source.name, kind, result.output)
        assert "internal error" not in result.stderr, (source.name, kind, result.stderr)
        if result.exit_code == 2:
            assert result.stderr.count("\n") == 1
