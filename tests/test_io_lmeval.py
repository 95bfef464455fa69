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
    path.write_text(json.dumps({"doc_id": 0, "filter": "none", "metrics": ["bleu"],
                                "bleu": ["ref", "hyp"]}) + "\n")
    with pytest.raises(InputFileError, match="not a per-item number"):
        read_lmeval(path, score="bleu")


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
