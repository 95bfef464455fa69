"""evalscope reviews (mcnemar.io.evalscope), on files written by evalscope 1.14.1 itself.

The folders under ``tests/data/io/real/evalscope/`` are work directories written by
``evalscope.run_task`` with scripted models (scripts/harness_fixtures/gen_evalscope.py), each
holding one timestamped run; its ``expected.json`` holds the tables counted from the review
files with plain ``json``, never with mcnemar, and each run's facts (task, metric, model,
status, errored samples, records). The malformed variants and the layouts of several runs or
several models below are written from those real files into ``tmp_path``.
"""

from __future__ import annotations

import json
import shutil
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from _harness_cases import compare_args
from mcnemar.cli import main
from mcnemar.errors import InputFileError, McNemarError
from mcnemar.io import align, detect_format, read_run
from mcnemar.io.evalscope import read_evalscope

DATA = Path(__file__).parent / "data" / "io" / "real" / "evalscope"
READ_FLAGS = {"score": "--score", "task": "--task"}
ALIGN_FLAGS = {"on_missing": "--on-missing", "reduce": "--reduce"}


@cache
def expected() -> dict[str, Any]:
    return json.loads((DATA / "expected.json").read_text())


def _table(counts: Any) -> dict[str, int]:
    return dict(zip("abcd", (int(x) for x in counts), strict=True))


def _stamp(work: str) -> Path:
    """The run directory (``<YYYYMMDD_HHMMSS>/``) of a work folder."""
    (stamp,) = [d for d in (DATA / work).iterdir() if d.is_dir()]
    return stamp


def _reviews(work: str) -> Path:
    """The ``reviews/<model>/`` folder of a work folder's run."""
    (model,) = [d for d in (_stamp(work) / "reviews").iterdir() if d.is_dir()]
    return model


def _cli_args(case: dict[str, Any]) -> list[str]:
    return compare_args(DATA / case["a"], DATA / case["b"], case, read_flags=READ_FLAGS,
                        align_flags=ALIGN_FLAGS)


def _compare(args: list[str]) -> Any:
    return CliRunner().invoke(main, args)


PAIRINGS = [pytest.param(c, id=c["name"]) for c in expected()["pairings"]]
REFUSALS = [pytest.param(c, id=c["name"]) for c in expected()["refusals"]]


# --- tables and identity ------------------------------------------------------------------


@pytest.mark.parametrize("case", PAIRINGS)
def test_library_table_equals_the_independent_count(case: dict[str, Any]) -> None:
    run_a = read_run(DATA / case["a"], **case["read"])
    run_b = read_run(DATA / case["b"], **case["read"])
    assert _table(align(run_a, run_b, **case["align"]).counts) == case["table"]


@pytest.mark.parametrize("case", PAIRINGS)
def test_cli_table_and_run_identity(case: dict[str, Any]) -> None:
    result = _compare(_cli_args(case))
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    table = report["table"]
    assert {k: table[k] for k in "abcd"} == case["table"]
    for side in ("a", "b"):
        got = report["alignment"]["runs"][side]
        facts = expected()["runs"][case[side]]
        wanted_task = case["read"].get("task")
        assert got["task"] == (wanted_task or facts["task"])
        assert got["model"] == facts["model"]
        assert got["scorer"] == facts["scorer"]
        assert got["status"] == facts["status"]
        assert got["errored"] == facts["errored"]
        if wanted_task is None:
            assert got["expected"] == facts["expected"]
            assert [t["task"] for t in got["tasks"]] == facts["tasks"]


def test_subsets_are_tasks_compared_one_by_one() -> None:
    case = expected()["pairings"][0]
    alignment = align(read_run(DATA / case["a"]), read_run(DATA / case["b"]))
    strata = {name: _table(cells) for name, cells in alignment.summary.strata}
    assert strata == case["tasks"]
    result = _compare(["compare", str(DATA / "a"), str(DATA / "b"), "--by-task",
                       "--format", "json", "--no-progress"])
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "general_mcq_add" in text and "general_mcq_mul" in text


@pytest.mark.parametrize("key", sorted(expected()["runs"]))
def test_every_run_is_read_with_its_facts(key: str) -> None:
    facts = expected()["runs"][key]
    path = DATA / key
    assert detect_format(path) == "evalscope"
    run = read_run(path)
    ident = run.identity
    assert (run.format, ident.harness) == ("evalscope", "evalscope")
    assert run.name == ident.model == facts["model"]
    assert ident.task == facts["task"]
    assert ident.task_names() == facts["tasks"]
    assert ident.scorer == facts["scorer"]
    assert ident.status == facts["status"]
    assert ident.errored == facts["errored"]
    assert ident.expected == facts["expected"]
    assert run.records == facts["records"]
    assert ident.task_part == 0 and run.key_names == ("task", "group_id")
    assert all(t.dataset == t.name.rsplit("_", 1)[0] for t in ident.tasks)


def test_every_layout_level_is_detected_and_reads_the_same_run() -> None:
    stamp = _stamp("a")
    levels = [DATA / "a", stamp, stamp / "reviews", stamp / "reviews" / "system-a"]
    runs = [read_run(p) for p in levels]
    for p in levels:
        assert detect_format(p) == "evalscope"
    for run in runs[1:]:
        assert run.keys.tolist() == runs[0].keys.tolist()
        assert run.scores.tolist() == runs[0].scores.tolist()
        assert run.identity == runs[0].identity
    for f in sorted((stamp / "reviews" / "system-a").iterdir()):
        assert detect_format(f) == "evalscope"


def test_scores_keys_and_content_come_from_the_review_lines() -> None:
    f = _reviews("a") / "general_mcq_add.jsonl"
    lines = [json.loads(x) for x in f.read_text().splitlines()]
    run = read_run(f)
    assert run.keys.tolist() == [("general_mcq_add", x["sample_score"]["group_id"])
                                 for x in lines]
    assert run.scores.tolist() == [x["sample_score"]["score"]["value"]["accuracy"]
                                   for x in lines]
    assert run.epochs is None and not run.errored.any()
    # the content names the item's question and its target
    assert "What is 11 + 5?" in run.contents[3]
    assert f"target {lines[3]['target'][0]!r}" in run.contents[3]
    assert len(set(run.contents.tolist())) == len(lines)


def test_a_mutated_score_changes_the_table(tmp_path: Path) -> None:
    """The table is counted from the file: flipping one line's score moves one item."""
    src = _reviews("a") / "general_mcq_add.jsonl"
    lines = [json.loads(x) for x in src.read_text().splitlines()]
    first_right = next(i for i, x in enumerate(lines)
                       if x["sample_score"]["score"]["value"]["accuracy"] == 1.0)
    lines[first_right]["sample_score"]["score"]["value"]["accuracy"] = 0.0
    mutated = tmp_path / "reviews" / "system-a" / "general_mcq_add.jsonl"
    mutated.parent.mkdir(parents=True)
    mutated.write_text("".join(json.dumps(x) + "\n" for x in lines))
    b = read_run(_reviews("b") / "general_mcq_add.jsonl")
    before = _table(align(read_run(src), b).counts)
    after = _table(align(read_run(mutated), b).counts)
    assert after != before
    assert sum(after.values()) == sum(before.values())
    assert after["a"] + after["b"] == before["a"] + before["b"] - 1


# --- repeats, errored samples, unfinished runs --------------------------------------------


def test_repeats_make_generation_index_the_sample_index() -> None:
    run = read_run(DATA / "repeats_a")
    lines = [json.loads(x) for x in
             (_reviews("repeats_a") / "general_mcq_add.jsonl").read_text().splitlines()]
    assert run.epochs.tolist() == [x["sample_score"]["generation_index"] for x in lines]
    assert run.sample_name == "generation_index"
    # the item is group_id, not sample_id (which numbers the answers)
    assert [k[1] for k in run.keys.tolist()] == [x["sample_score"]["group_id"] for x in lines]
    assert len(set(run.keys.tolist())) == 8
    other = read_run(DATA / "repeats_b")
    with pytest.raises(McNemarError, match="several samples"):
        align(run, other)


def test_repeats_paired_answer_by_answer_are_clustered_by_item() -> None:
    case = next(c for c in expected()["pairings"] if c["align"].get("reduce") == "cluster")
    alignment = align(read_run(DATA / case["a"]), read_run(DATA / case["b"]), reduce="cluster")
    assert _table(alignment.counts) == case["table"]
    assert sum(case["table"].values()) == 16
    assert len(set(alignment.clusters.tolist())) == 8  # the items


def test_samples_that_raised_are_counted_from_the_report() -> None:
    run = read_run(DATA / "b_errored")
    report = json.loads(next((_stamp("b_errored") / "reports" / "system-b").glob("*.json"))
                        .read_text())["execution_summary"]
    assert run.identity.errored == report["errored"] == 2
    assert run.identity.expected == report["requested"] == run.records + 2
    assert run.metadata["errored_without_review"] == 2
    a = read_run(_reviews("a") / "general_mcq_add.jsonl")
    with pytest.raises(McNemarError, match="2 items not in"):
        align(a, run)
    result = _compare(["compare", str(_reviews("a") / "general_mcq_add.jsonl"),
                       str(DATA / "b_errored"), "--on-missing", "intersect", "--format",
                       "json", "--no-progress"])
    assert result.exit_code == 0, result.output
    warnings = " ".join(json.loads(result.stdout)["warnings"])
    assert "2 samples that errored" in warnings


def test_a_run_that_died_is_unfinished() -> None:
    model = _reviews("a_unfinished")
    (temporary,) = model.iterdir()
    assert ".jsonl.rerun-" in temporary.name  # evalscope publishes the .jsonl when done
    run = read_run(DATA / "a_unfinished")
    assert run.identity.status == "unfinished"
    assert run.identity.task == "general_mcq_add"
    assert "still being scored" in run.identity.status_detail
    assert run.records == len(temporary.read_text().splitlines())
    assert read_run(temporary).identity.status == "unfinished"


def test_no_report_means_unfinished_and_a_rescoring_file_is_ignored(tmp_path: Path) -> None:
    run_dir = tmp_path / "20260101_000000"
    shutil.copytree(_stamp("a"), run_dir)
    model = run_dir / "reviews" / "system-a"
    # a re-scoring under way beside the published file, and no report yet
    (model / "general_mcq_add.jsonl.rerun-0123").write_text(
        (model / "general_mcq_add.jsonl").read_text().splitlines()[0] + "\n")
    shutil.rmtree(run_dir / "reports")
    run = read_run(run_dir)
    assert run.identity.status == "unfinished"
    assert run.identity.status_detail == "no report for general_mcq"
    assert run.identity.ignored == (str(model / "general_mcq_add.jsonl.rerun-0123"),)
    assert run.records == 30
    # the benchmark is then known from configs/task_config.yaml
    assert [t.dataset for t in run.identity.tasks] == ["general_mcq", "general_mcq"]


def test_a_review_whose_score_is_unusable_has_no_score(tmp_path: Path) -> None:
    lines = [json.loads(x) for x in
             (_reviews("a") / "general_mcq_add.jsonl").read_text().splitlines()]
    lines[0]["sample_score"]["score"].update(value={}, status="parse_error")
    lines[1]["sample_score"]["score"]["status"] = "fallback"  # usable: keeps its value
    f = tmp_path / "general_mcq_add.jsonl"
    f.write_text("".join(json.dumps(x) + "\n" for x in lines))
    run = read_run(f)
    assert np.isnan(run.scores[0]) and run.errored[0]
    assert run.scores[1] == lines[1]["sample_score"]["score"]["value"]["accuracy"]
    assert not run.errored[1:].any()
    assert run.identity.errored == 1
    assert run.identity.status == "complete" and run.name == f.name
    assert run.identity.model is None


# --- metrics --------------------------------------------------------------------------------


def test_graded_metrics_default_to_the_main_score_and_failed_metrics_are_errored() -> None:
    f = _reviews("qa_a") / "general_qa_default.jsonl"
    lines = [json.loads(x) for x in f.read_text().splitlines()]
    run = read_run(DATA / "qa_a")
    assert run.identity.scorer == lines[0]["sample_score"]["score"]["main_score_name"]
    assert run.scores.tolist() == [x["sample_score"]["score"]["value"]["Rouge-L-R"]
                                   for x in lines]
    rouge1 = read_run(DATA / "qa_a", score="Rouge-1-F")
    assert rouge1.identity.scorer == "Rouge-1-F"
    # BLEU raised (no NLTK data): evalscope wrote 0.0 and named it in metric_errors
    assert "BLEU" in lines[0]["sample_score"]["score"]["metadata"]["metric_errors"]
    bleu = read_run(DATA / "qa_a", score="bleu-4")
    assert np.isnan(bleu.scores).all() and bleu.errored.all()
    assert bleu.identity.errored == len(lines)


def test_unknown_metric_lists_the_metrics() -> None:
    with pytest.raises(InputFileError, match=r"metric 'f1' not in this review \(its metrics: "
                                             r"'bleu-1', .*'Rouge-L-F'\); choose one with"):
        read_run(DATA / "qa_a", score="f1")
    result = _compare(["compare", str(DATA / "qa_a"), str(DATA / "qa_a"), "--score", "f1",
                       "--no-progress"])
    assert result.exit_code == 2
    assert "--score NAME" in result.stderr and "internal error" not in result.stderr


def test_several_metrics_without_a_main_score_need_a_choice(tmp_path: Path) -> None:
    lines = [json.loads(x) for x in
             (_reviews("qa_a") / "general_qa_default.jsonl").read_text().splitlines()]
    for x in lines:
        x["sample_score"]["score"]["main_score_name"] = None
    f = tmp_path / "general_qa_default.jsonl"
    f.write_text("".join(json.dumps(x) + "\n" for x in lines))
    with pytest.raises(InputFileError, match=r"no main score and have several metrics "
                                             r"\('bleu-1'.*choose one with score=NAME"):
        read_run(f)
    assert read_run(f, score="Rouge-L-R").scores.tolist() == \
        read_run(DATA / "qa_a").scores.tolist()


# --- refusals -------------------------------------------------------------------------------


@pytest.mark.parametrize("case", REFUSALS)
def test_different_task_or_scorer_is_refused(case: dict[str, Any]) -> None:
    result = _compare(_cli_args(case))
    assert result.exit_code == 2, result.output
    message = result.stderr.strip()
    assert "\n" not in message and "internal error" not in message
    for value in case["values"]:
        assert repr(value) in message or value in message, message
    assert case["allow"] in message
    assert result.stdout == ""


@pytest.mark.parametrize("case", REFUSALS)
def test_override_flag_pairs_and_warns(case: dict[str, Any]) -> None:
    result = _compare([*_cli_args(case), case["allow"]])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert {k: report["table"][k] for k in "abcd"} == case["table"]
    assert any(all(v in w for v in case["values"]) for w in report["warnings"])
    if case["differs"] == "task":  # other subsets hold other questions under the same ids
        assert any("different input/target" in w for w in report["warnings"])
    run_a, run_b = read_run(DATA / case["a"]), read_run(DATA / case["b"])
    allow = {f"allow_different_{case['differs']}s": True}
    assert _table(align(run_a, run_b, **allow).counts) == case["table"]


# --- task choice, layouts of several runs or models ----------------------------------------


def test_task_option_selects_and_checks() -> None:
    run = read_run(DATA / "a", task="general_mcq_mul")
    assert run.identity.task == "general_mcq_mul" and run.records == 15
    both = read_run(DATA / "a", task=["general_mcq_mul", "general_mcq_add"])
    assert both.identity.task_names() == ["general_mcq_mul", "general_mcq_add"]
    with pytest.raises(InputFileError, match=r"task\(s\) 'add' not in these reviews; the "
                                             r"tasks are 'general_mcq_add', 'general_mcq_mul'"):
        read_run(DATA / "a", task="add")
    with pytest.raises(InputFileError, match="holds task 'general_mcq_add'"):
        read_run(_reviews("a") / "general_mcq_add.jsonl", task="general_mcq_mul")
    with pytest.raises(McNemarError, match="not valid"):
        read_evalscope(DATA / "a", task=[])


def test_a_work_directory_of_several_runs_names_them(tmp_path: Path) -> None:
    shutil.copytree(_stamp("a"), tmp_path / "20260101_000000")
    shutil.copytree(_stamp("b"), tmp_path / "20260102_000000")
    with pytest.raises(InputFileError, match=r"several evalscope runs \('20260101_000000', "
                                             r"'20260102_000000'\); give one run directory"):
        read_run(tmp_path, format="evalscope")
    result = _compare(["compare", str(tmp_path), str(DATA / "b"), "--input-format",
                       "evalscope", "--no-progress"])
    assert result.exit_code == 2 and "several evalscope runs" in result.stderr
    assert read_run(tmp_path / "20260102_000000").name == "system-b"


def test_a_run_directory_of_several_models_names_them(tmp_path: Path) -> None:
    """evalscope writes two models into one run directory when both runs are given the same
    folder (``no_timestamp=True``, or ``use_cache``)."""
    run_dir = tmp_path / "shared"
    shutil.copytree(_stamp("a"), run_dir)
    shutil.copytree(_reviews("b"), run_dir / "reviews" / "system-b")
    with pytest.raises(InputFileError, match=r"reviews of several models \('system-a', "
                                             r"'system-b'\); give one model's folder"):
        read_run(run_dir)
    assert read_run(run_dir / "reviews" / "system-b").name == "system-b"
    a = read_run(run_dir / "reviews" / "system-a")
    assert a.identity.status == "complete"
    b = read_run(run_dir / "reviews" / "system-b")
    assert b.identity.status == "unfinished"  # no reports/system-b/ in this folder
    assert _table(align(a, b).counts) == expected()["pairings"][0]["table"]


def test_not_evalscope_folders(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="no evalscope reviews here"):
        read_evalscope(tmp_path)
    (tmp_path / "reviews" / "m").mkdir(parents=True)
    with pytest.raises(InputFileError, match="holds no reviews files"):
        read_evalscope(tmp_path)


# --- malformed files ------------------------------------------------------------------------


def _write_variant(tmp_path: Path, text: str) -> Path:
    f = tmp_path / "reviews" / "system-a" / "general_mcq_add.jsonl"
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(text)
    return f


def _lines() -> list[str]:
    return (_reviews("a") / "general_mcq_add.jsonl").read_text().splitlines(keepends=True)


def test_truncated_file_names_the_line(tmp_path: Path) -> None:
    lines = _lines()
    f = _write_variant(tmp_path, "".join(lines[:3]) + lines[3][: len(lines[3]) // 2])
    with pytest.raises(InputFileError, match="line is not valid JSON") as info:
        read_run(f)
    assert info.value.line == 4
    result = _compare(["compare", str(f), str(_reviews("b") / "general_mcq_add.jsonl"),
                       "--no-progress"])
    assert result.exit_code == 2
    assert "line 4" in result.stderr and "internal error" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(("change", "message"), [
    (lambda x: x.pop("sample_score"), "no 'sample_score.score.value' object"),
    (lambda x: x["sample_score"]["score"].update(value=[1.0]),
     "no 'sample_score.score.value' object"),
    (lambda x: x["sample_score"]["score"]["value"].update(accuracy="right"),
     "metric 'accuracy' is 'right', not a number"),
    (lambda x: x["sample_score"]["score"]["value"].update(accuracy=[1]),
     "metric 'accuracy' is \\[1\\], not a number"),
    (lambda x: x["sample_score"].update(group_id=[0], sample_id=None),
     "'sample_score.group_id' must be an integer or text"),
    (lambda x: x["sample_score"].update(group_id=None, sample_id=None),
     "neither 'sample_score.group_id' nor 'sample_score.sample_id'"),
    (lambda x: x["sample_score"].update(generation_index="0"),
     "'sample_score.generation_index' must be an integer"),
    (lambda x: x["sample_score"]["score"].update(status=3),
     "'sample_score.score.status' must be text"),
])
def test_wrong_types_are_refused_with_the_line(tmp_path: Path, change: Any,
                                               message: str) -> None:
    lines = _lines()
    record = json.loads(lines[2])
    change(record)
    lines[2] = json.dumps(record) + "\n"
    f = _write_variant(tmp_path, "".join(lines))
    with pytest.raises(InputFileError, match=message) as info:
        read_run(f, format="evalscope")
    assert info.value.line == 3


def test_empty_file_and_not_an_object(tmp_path: Path) -> None:
    f = _write_variant(tmp_path, "")
    with pytest.raises(InputFileError, match="no records: the reviews file is empty"):
        read_evalscope(f)
    f = _write_variant(tmp_path, "[1, 2]\n")
    with pytest.raises(InputFileError, match="expected a JSON object"):
        read_evalscope(f)


def test_malformed_report_is_refused(tmp_path: Path) -> None:
    run_dir = tmp_path / "20260101_000000"
    shutil.copytree(_stamp("a"), run_dir)
    report = run_dir / "reports" / "system-a" / "general_mcq.json"
    report.write_text(report.read_text()[:100])
    with pytest.raises(InputFileError, match="not valid JSON"):
        read_run(run_dir)
    report.write_text("[]")
    with pytest.raises(InputFileError, match="not an evalscope report"):
        read_run(run_dir)


def test_generator_pins_the_version() -> None:
    assert expected()["version"] == "1.14.1"
    assert expected()["generator"] == "scripts/harness_fixtures/gen_evalscope.py"
    generator = Path(__file__).parents[1] / expected()["generator"]
    assert "evalscope 1.14.1" in generator.read_text()


def test_fixtures_stay_small() -> None:
    total = sum(p.stat().st_size for p in DATA.rglob("*") if p.is_file())
    assert total < 300 * 1024
