"""lm-evaluation-harness samples reader (mcnemar.io.lmeval).

Fixtures in tests/data/io/lmeval_* mimic ``--log_samples`` output (field layout from
lm-evaluation-harness ``lm_eval/evaluator.py`` and ``loggers/evaluation_tracker.py``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mcnemar.errors import InputFileError
from mcnemar.io import align, detect_format, read_run
from mcnemar.io.lmeval import read_lmeval

DATA = Path(__file__).parent / "data" / "io"
A_DIR = DATA / "lmeval_a" / "org__model-new"
A_FILE = A_DIR / "samples_arc_easy_2026-01-02T10-00-00.123456.jsonl"
B_FILE = DATA / "lmeval_b" / "org__model-old" / "samples_arc_easy_2026-01-03T11-30-00.654321.jsonl"


def test_keys_scores_and_model_from_results_file() -> None:
    run = read_run(A_FILE)
    assert run.format == "lm-eval"
    assert run.name == "org/model-new"  # results_<same date>.json model_name
    assert run.keys.tolist() == [("arc_easy", i, "none") for i in range(6)]
    assert run.scores.tolist() == [1, 1, 1, 1, 0, 0]
    assert run.key_names == ("task", "doc_id", "filter")
    assert run.metadata["tasks"] == ["arc_easy"]


def test_choose_another_metric() -> None:
    run = read_lmeval(A_FILE, score="acc_norm")
    assert run.scores.tolist() == [0, 1, 1, 1, 0, 0]


def test_unknown_metric_lists_the_records_metrics() -> None:
    with pytest.raises(InputFileError, match=r"metric 'f1' not in this record \(its metrics: "
                                             r"acc, acc_norm\)") as info:
        read_lmeval(A_FILE, score="f1")
    assert info.value.line == 1


def test_fixture_pair_table_and_directories() -> None:
    assert align(read_run(A_FILE), read_run(B_FILE)).counts == (2, 2, 1, 1)
    assert detect_format(DATA / "lmeval_a") == "lm-eval"
    assert align(read_run(DATA / "lmeval_a"), read_run(DATA / "lmeval_b")).counts == (2, 2, 1, 1)


def test_directory_reads_the_newest_rerun_of_each_task(tmp_path: Path) -> None:
    shutil.copy(A_FILE, tmp_path / A_FILE.name)
    newer = tmp_path / "samples_arc_easy_2026-02-01T00-00-00.000001.jsonl"
    newer.write_text(json.dumps({"doc_id": 0, "filter": "none", "metrics": ["acc"],
                                 "acc": 0.0}) + "\n")
    run = read_lmeval(tmp_path)
    assert run.keys.tolist() == [("arc_easy", 0, "none")]
    assert run.metadata["ignored"] == [str(tmp_path / A_FILE.name)]


def test_several_filters_need_a_choice() -> None:
    path = next((DATA / "lmeval_filters").glob("*.jsonl"))
    with pytest.raises(InputFileError, match="several filters: 'score-first' \\(4 records\\), "
                                             "'maj@8' \\(4 records\\)"):
        read_run(path)
    run = read_run(path, filter="maj@8")
    assert run.keys.tolist()[0] == ("gsm8k_cot_self_consistency", 0, "maj@8")
    assert run.scores.tolist() == [1, 1, 1, 0]
    with pytest.raises(InputFileError, match="no record has filter 'x'"):
        read_run(path, filter="x")


def test_truncated_line_names_file_and_line() -> None:
    path = DATA / "malformed" / "samples_arc_easy_2026-01-02T10-00-00.123456.jsonl"
    with pytest.raises(InputFileError, match="line 4: line is not valid JSON"):
        read_run(path)


def test_wrong_field_type_names_file_and_line() -> None:
    path = DATA / "malformed" / "samples_wrongtype_2026-01-02T10-00-00.123456.jsonl"
    with pytest.raises(InputFileError, match="'doc_id' must be an integer, found \\[1\\]") as info:
        read_run(path)
    assert info.value.line == 2 and info.value.path == str(path)


def test_non_numeric_metric_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "samples_wmt_2026-01-01T00-00-00.000001.jsonl"
    path.write_text(json.dumps({"doc_id": 0, "filter": "none", "metrics": ["bleu", "x"],
                                "bleu": ["ref", "hyp"], "x": {"a": 1}}) + "\n")
    with pytest.raises(InputFileError, match=r"the \(gold, prediction\) pair lm-eval keeps for "
                                             "a metric it computes over the whole task"):
        read_lmeval(path, score="bleu")
    with pytest.raises(InputFileError, match="not a per-item number"):
        read_lmeval(path, score="x")


def test_cluster_from_a_doc_field() -> None:
    run = read_lmeval(A_FILE, cluster="topic")
    assert run.clusters.tolist() == ["biology", "physics"] * 3
    al = align(run, read_lmeval(B_FILE, cluster="topic"))
    assert al.summary.clusters == 2
    assert al.clusters.tolist() == ["biology", "physics"] * 3


def test_file_name_without_date_uses_the_stem_or_task_option(tmp_path: Path) -> None:
    path = tmp_path / "my_samples.jsonl"
    path.write_text(json.dumps({"doc_id": 3, "filter": "none", "acc": 1}) + "\n")
    assert read_lmeval(path).keys.tolist() == [("my_samples", 3, "none")]
    assert read_lmeval(path, task="hellaswag").keys.tolist() == [("hellaswag", 3, "none")]


# --- graded metrics (tests/data/io/derived/lmeval: the real group logs with an f1 added by
# scripts/harness_fixtures/derive_graded_metrics.py) ------------------------------------------

DERIVED = DATA / "derived" / "lmeval"
GEN_A = DERIVED / "group_a" / "system-a" / "samples_arith_gen_2026-11-30T20-16-09.708629.jsonl"
GEN_B = DERIVED / "group_b" / "system-b" / "samples_arith_gen_2026-11-30T20-16-27.100150.jsonl"
MC_A = DERIVED / "group_a" / "system-a" / "samples_arith_mc_2026-11-30T20-16-09.708629.jsonl"


def _expected_f1(group: str) -> dict[int, float]:
    want = json.loads((DERIVED / "expected.json").read_text())[f"{group}/arith_gen"]
    return {int(k.split("/")[0]): v for k, v in want.items() if k.endswith("/strict")}


def test_a_graded_metric_is_handed_over_as_it_is() -> None:
    run = read_lmeval(GEN_A, score="f1", filter="strict")
    want = _expected_f1("group_a")
    assert {k[1]: s for k, s in zip(run.keys.tolist(), run.scores.tolist(), strict=True)} == want
    assert run.identity.scorer == "f1" and run.score_name == "f1"
    assert any(0 < s < 1 for s in want.values())


def test_the_graded_metric_gets_the_score_report_and_exact_match_stays_pass_fail() -> None:
    import numpy as np

    from mcnemar.pipeline import compare_runs
    from mcnemar.report import Report
    from mcnemar.scores import ScoreReport, analyze_scores

    a, b = (read_lmeval(p, score="f1", filter="strict") for p in (GEN_A, GEN_B))
    rep = compare_runs(a, b)
    assert isinstance(rep, ScoreReport) and rep.to_dict()["schema"] == "mcnemar.scores/1"
    fa, fb = _expected_f1("group_a"), _expected_f1("group_b")
    x, y = np.array([fa[i] for i in sorted(fa)]), np.array([fb[i] for i in sorted(fa)])
    want = analyze_scores(x, y, random_state=0)
    assert rep.difference == pytest.approx(want.difference, rel=1e-12)
    assert rep.tests["t"].pvalue == pytest.approx(want.tests["t"].pvalue, rel=1e-12)
    assert (rep.higher_a, rep.equal, rep.higher_b) == (want.higher_a, want.equal, want.higher_b)
    binary = compare_runs(*(read_lmeval(p, filter="strict", score="exact_match")
                            for p in (GEN_A, GEN_B)))
    assert isinstance(binary, Report)


def test_the_compare_command_picks_the_score_report_for_a_graded_metric() -> None:
    from click.testing import CliRunner

    from mcnemar.cli import main

    def run(*extra: str) -> dict[str, object]:
        result = CliRunner().invoke(main, ["compare", str(GEN_A), str(GEN_B), "--filter",
                                           "strict", "--format", "json", *extra])
        assert result.exit_code == 0, result.output
        doc: dict[str, object] = json.loads(result.output)
        return doc

    assert run("--score", "f1")["schema"] == "mcnemar.scores/1"
    assert run("--score", "exact_match")["schema"] == "mcnemar.report/1"


def test_a_metric_of_the_whole_task_is_refused_with_the_reason() -> None:
    with pytest.raises(InputFileError, match=r"metric 'f1' is \[1, 2\], the \(gold, "
                                             r"prediction\) pair") as info:
        read_lmeval(MC_A, score="f1")
    assert info.value.line == 1 and info.value.path == str(MC_A)
    assert read_lmeval(MC_A).identity.scorer == "acc"  # the default metric is unchanged


# --- a graded metric written by lm_eval itself (tests/data/io/real/lmeval/graded_*: task
# arith_graded, whose process_results logs a per-document character F1; see
# scripts/harness_fixtures/gen_lmeval.py) ------------------------------------------------------

REAL = DATA / "real" / "lmeval"
REAL_GRADED = json.loads((REAL / "expected.json").read_text())["graded"]
REAL_A = REAL / REAL_GRADED["runs"]["a"]["file"]
REAL_B = REAL / REAL_GRADED["runs"]["b"]["file"]


def _real_f1(side: str) -> dict[int, float]:
    return {int(k): v for k, v in REAL_GRADED["scores"][side].items()}


def test_a_real_graded_metric_is_read_as_lm_eval_logged_it() -> None:
    for side, path in (("a", REAL_A), ("b", REAL_B)):
        run = read_lmeval(path)  # one metric, one filter: no option needed
        got = {k[1]: s for k, s in zip(run.keys.tolist(), run.scores.tolist(), strict=True)}
        assert got == _real_f1(side)
        assert {k[2] for k in run.keys.tolist()} == {"none"}
        assert run.identity.scorer == "f1" and run.score_name == "f1"
        assert run.identity.task == "arith_graded"
        assert run.identity.model == f"system-{side}"
    # partial answers on known documents, so the values are not pass/fail
    assert REAL_GRADED["partial_credit"]["a"] and REAL_GRADED["partial_credit"]["b"]
    assert any(0 < s < 1 for s in _real_f1("a").values())


def test_a_real_graded_metric_gets_the_score_report_counted_independently() -> None:
    import numpy as np

    from mcnemar.pipeline import compare_runs
    from mcnemar.scores import ScoreReport, analyze_scores

    rep = compare_runs(read_lmeval(REAL_A), read_lmeval(REAL_B))
    assert isinstance(rep, ScoreReport) and rep.to_dict()["schema"] == "mcnemar.scores/1"
    fa, fb = _real_f1("a"), _real_f1("b")
    assert rep.n == REAL_GRADED["n"] == len(fa)
    assert rep.difference == pytest.approx(REAL_GRADED["mean_difference"], rel=1e-12)
    assert (rep.higher_a, rep.equal, rep.higher_b) == (
        REAL_GRADED["higher_a"], REAL_GRADED["equal"], REAL_GRADED["higher_b"])
    diffs = REAL_GRADED["differences"]
    assert sum(diffs.values()) / len(diffs) == pytest.approx(rep.difference, rel=1e-12)
    x, y = np.array([fa[i] for i in sorted(fa)]), np.array([fb[i] for i in sorted(fa)])
    want = analyze_scores(x, y, random_state=0)
    assert rep.tests["t"].pvalue == pytest.approx(want.tests["t"].pvalue, rel=1e-12)


def test_the_compare_command_picks_the_score_report_for_a_real_graded_metric() -> None:
    from click.testing import CliRunner

    from mcnemar.cli import main

    for a, b in ((REAL_A, REAL_B), (REAL / REAL_GRADED["a"], REAL / REAL_GRADED["b"])):
        result = CliRunner().invoke(main, ["compare", str(a), str(b), "--format", "json"])
        assert result.exit_code == 0, result.output
        doc = json.loads(result.output)
        assert doc["schema"] == "mcnemar.scores/1"
        assert doc["n"] == REAL_GRADED["n"]
        assert doc["difference"]["estimate"] == pytest.approx(REAL_GRADED["mean_difference"],
                                                              rel=1e-12)
        assert doc["means"]["a"] == pytest.approx(REAL_GRADED["mean_a"], rel=1e-12)
        assert doc["means"]["b"] == pytest.approx(REAL_GRADED["mean_b"], rel=1e-12)
