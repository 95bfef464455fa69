"""OpenCompass result files with details (mcnemar.io.opencompass).

The files under ``tests/data/io/real/opencompass/`` were written by OpenCompass 0.5.4 itself
(``scripts/harness_fixtures/gen_opencompass.py``: the real command line with a scripted
model over local JSONL datasets); ``expected.json`` holds the tables the generator counted
from them with plain ``json``. Malformed variants are written from those files here.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from _harness_cases import compare_args
from mcnemar.cli import main
from mcnemar.errors import AlignmentError, InputFileError, McNemarError
from mcnemar.io import align, detect_format, read_run

DATA = Path(__file__).parent / "data" / "io" / "real" / "opencompass"
A_GEN = DATA / "main" / "results" / "system-a" / "arith_gen.json"
B_GEN = DATA / "main" / "results" / "system-b" / "arith_gen.json"
READ_FLAGS = {"score": "--score", "task": "--task"}
ALIGN_FLAGS = {"on_missing": "--on-missing", "reduce": "--reduce"}


@cache
def expected() -> dict[str, Any]:
    return json.loads((DATA / "expected.json").read_text())


def _cases(kind: str) -> list[Any]:
    return [pytest.param(case, id=case["name"]) for case in expected()[kind]]


def _table(counts: Any) -> dict[str, int]:
    return dict(zip("abcd", (int(x) for x in counts), strict=True))


def _cli(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


def _cli_args(case: dict[str, Any]) -> list[str]:
    return compare_args(DATA / case["a"], DATA / case["b"], case, read_flags=READ_FLAGS,
                        align_flags=ALIGN_FLAGS)


# --- tables -----------------------------------------------------------------------------------


@pytest.mark.parametrize("case", _cases("pairings"))
def test_library_table_equals_the_independent_count(case: dict[str, Any]) -> None:
    run_a = read_run(DATA / case["a"], **case["read"])
    run_b = read_run(DATA / case["b"], **case["read"])
    alignment = align(run_a, run_b, **case["align"])
    assert _table(alignment.counts) == case["table"]
    if "tasks" in case:  # a model folder: the items pair within each dataset
        assert alignment.summary.strata is not None
        assert {name: _table(cells) for name, cells in alignment.summary.strata} == \
            case["tasks"]


@pytest.mark.parametrize("case", _cases("pairings"))
def test_cli_table_and_run_identity(case: dict[str, Any]) -> None:
    result = _cli(*_cli_args(case))
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert {k: report["table"][k] for k in "abcd"} == case["table"]
    runs = expected()["runs"]
    for side in ("a", "b"):
        got = report["alignment"]["runs"][side]
        assert got["harness"] == "opencompass"
        assert got["status"] == "complete"
        assert got["errored"] == 0
        facts = runs.get(case[side])
        if facts is not None:  # a single result file
            assert (got["task"], got["scorer"], got["model"]) == \
                (facts["task"], facts["scorer"], facts["model"])
            assert got["records"] == facts["records"]
        else:  # a model folder
            assert got["model"] == Path(case[side]).name
            wanted = case["read"].get("task") or sorted(case["tasks"])
            assert [t["task"] for t in got["tasks"]] == wanted


@pytest.mark.parametrize("path", sorted(expected()["runs"]))
def test_run_identity_and_detection(path: str) -> None:
    facts = expected()["runs"][path]
    assert detect_format(DATA / path) == "opencompass"
    run = read_run(DATA / path)
    ident = run.identity
    assert (ident.harness, ident.task, ident.scorer, ident.model, ident.status) == \
        ("opencompass", facts["task"], facts["scorer"], facts["model"], facts["status"])
    assert ident.errored == facts["errored"]
    assert run.records == facts["records"]
    assert len(set(run.keys.tolist())) == facts["items"]
    assert run.name == facts["model"]


def test_model_folders_are_detected() -> None:
    for side in ("a", "b"):
        assert detect_format(DATA / "main" / "results" / f"system-{side}") == "opencompass"


@pytest.mark.parametrize("case", _cases("refusals"))
def test_different_dataset_is_refused_unless_allowed(case: dict[str, Any]) -> None:
    result = _cli(*_cli_args(case))
    assert result.exit_code == 2, result.output
    message = result.stderr.strip()
    assert "\n" not in message and "internal error" not in message, message
    for value in (*case["values"], case["allow"]):
        assert value in message, message
    allowed = _cli(*_cli_args(case), case["allow"])
    assert allowed.exit_code == 0, allowed.output
    report = json.loads(allowed.stdout)
    assert {k: report["table"][k] for k in "abcd"} == case["table"]
    assert any(all(v in w for v in case["values"]) for w in report["warnings"])


# --- what the reader reads --------------------------------------------------------------------


def test_keys_scores_and_layouts() -> None:
    run = read_run(A_GEN)
    assert run.key_names == ("dataset", "index")
    assert run.keys.tolist()[:2] == [("arith_gen", 0), ("arith_gen", 1)]
    wrong = set(expected()["wrong"]["gen"]["a"])
    assert [i for (_, i), s in zip(run.keys.tolist(), run.scores.tolist(), strict=True)
            if s == 0] == sorted(wrong)
    assert run.metadata["details"] == {"arith_gen": "list"}
    mc = read_run(DATA / "main" / "results" / "system-a" / "arith_mc.json")
    assert mc.metadata["details"] == {"arith_mc": "object (PPL)"}
    assert mc.identity.content_name == "prompt"
    assert sorted(i for (_, i), s in zip(mc.keys.tolist(), mc.scores.tolist(), strict=True)
                  if s == 0) == expected()["wrong"]["mc"]["a"]


def test_replicas_are_samples_of_one_item() -> None:
    path = DATA / "main" / "results" / "system-a" / "arith_rep.json"
    run = read_run(path)
    assert run.records == 60 and run.sample_name == "replica"
    assert run.epochs.tolist()[:4] == [0, 1, 0, 1]
    with pytest.raises(AlignmentError, match="several samples"):
        align(run, read_run(DATA / "main" / "results" / "system-b" / "arith_rep.json"))


def test_score_option_and_task_option() -> None:
    acc = DATA / "main" / "results" / "system-a" / "arith_acc.json"
    assert read_run(acc).identity.scorer == "is_correct"
    assert read_run(acc, score="is_correct").scores.tolist() == read_run(acc).scores.tolist()
    with pytest.raises(InputFileError, match=r"no field 'correct'.*score=NAME"):
        read_run(acc, score="correct")
    with pytest.raises(InputFileError, match=r"'prompt' is 'Question 0.*not a pass flag"):
        read_run(acc, score="prompt")
    folder = DATA / "main" / "results" / "system-a"
    assert read_run(folder, task="arith_mc").identity.task == "arith_mc"
    with pytest.raises(InputFileError, match=r"'nope' not in this folder; its datasets are"):
        read_run(folder, task=["arith_gen", "nope"])
    with pytest.raises(InputFileError, match=r"holds dataset 'arith_gen'"):
        read_run(A_GEN, task="arith_mc")
    with pytest.raises(McNemarError, match="task="):
        read_run(A_GEN, task=[])


def test_content_fingerprint_must_agree(tmp_path: Path) -> None:
    """Paired items whose prompts differ are refused (the runs hold other items)."""
    source = DATA / "main" / "results" / "system-b" / "arith_acc.json"
    data = json.loads(source.read_text())
    data["details"][4]["prompt"] = ["Question 4: Add 1 and 2.\nAnswer:"]
    changed = tmp_path / "results" / "system-b" / "arith_acc.json"
    changed.parent.mkdir(parents=True)
    changed.write_text(json.dumps(data, indent=4))
    run_a = read_run(DATA / "main" / "results" / "system-a" / "arith_acc.json")
    with pytest.raises(AlignmentError, match=r"differ in prompt"):
        align(run_a, read_run(changed))


def test_a_changed_outcome_changes_the_table(tmp_path: Path) -> None:
    """The tables come from the file: flipping one item of B moves it between cells."""
    data = json.loads(B_GEN.read_text())
    entry = next(e for e in data["details"] if e["example_abbr"] == "arith_gen_0")
    assert entry["correct"] == [True]
    entry["correct"] = [False]
    changed = tmp_path / "results" / "system-b" / "arith_gen.json"
    changed.parent.mkdir(parents=True)
    changed.write_text(json.dumps(data, indent=4))
    base = _table(align(read_run(A_GEN), read_run(B_GEN)).counts)
    moved = _table(align(read_run(A_GEN), read_run(changed)).counts)
    assert moved == {**base, "a": base["a"] - 1, "b": base["b"] + 1}


# --- refusals of files that cannot be paired --------------------------------------------------


def test_result_without_details_says_how_to_rerun() -> None:
    path = DATA / "no_details" / "results" / "system-a" / "arith_gen.json"
    assert detect_format(path) == "opencompass"
    with pytest.raises(InputFileError, match=r"no per-item 'details'.*dump_details=True"):
        read_run(path)
    result = _cli("compare", str(path), str(B_GEN), "--no-progress")
    assert result.exit_code == 2
    assert "dump_details" in result.stderr and "\n" not in result.stderr.strip()


def test_details_without_a_pass_flag_are_refused() -> None:
    path = DATA / "extra" / "results" / "system-a" / "arith_plain.json"
    with pytest.raises(InputFileError, match=r"no per-item pass flag .*score=NAME"):
        read_run(path)


def test_folder_of_several_models_is_refused() -> None:
    with pytest.raises(InputFileError, match=r"results of 2 models .*system-a.*one model's"):
        read_run(DATA / "main" / "results", format="opencompass")
    with pytest.raises(InputFileError, match=r"results of 2 models"):
        read_run(DATA / "main", format="opencompass")


def _variant(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "results" / "system-a" / "arith_gen.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=4))
    return path


def _real() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(A_GEN.read_text())
    return data


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: A_GEN.read_text()[:700], r"not valid JSON"),
    (lambda d: [d], r"expected a JSON object"),
    (lambda d: {**d, "details": "none"}, r"'details' must be a list or an object"),
    (lambda d: {**d, "details": []}, r"holds no entries"),
    (lambda d: {**d, "details": [1, 2]}, r"details\[0\] must be an object"),
    (lambda d: {**d, "details": {"type": "GEN", "first": {}}}, r"member 'first'"),
    (lambda d: {**d, "details": [{**d["details"][0], "correct": [{"ok": 1}]}]},
     r"'correct' is \{'ok': 1\}, not a pass flag"),
    (lambda d: {**d, "details": [{**d["details"][0], "correct": []}]}, r"empty list"),
    (lambda d: {"error": "preds and refrs have different length."},
     r"evaluation error instead of results: 'preds and refrs"),
])
def test_malformed_files_are_refused_clearly(tmp_path: Path, change: Any, message: str) -> None:
    path = _variant(tmp_path, change(_real()))
    with pytest.raises(InputFileError, match=message):
        read_run(path, format="opencompass")
    result = _cli("compare", str(path), str(B_GEN), "--input-format", "opencompass",
                  "--no-progress")
    assert result.exit_code == 2, result.output
    text = result.stderr.strip()
    assert "\n" not in text and "internal error" not in text and "Traceback" not in text, text
