"""lighteval ``--save-details`` reader (mcnemar.io.lighteval), on files lighteval wrote.

The files under ``tests/data/io/real/lighteval/`` were written by lighteval 0.13.0 itself
(``lighteval custom`` with a scripted model and two local tasks; generator:
``scripts/harness_fixtures/gen_lighteval.py``). ``expected.json`` holds the tables counted
from the Parquet files with plain pyarrow, never with :mod:`mcnemar.io`, and the facts of
each run. Malformed variants are written from the real files into ``tmp_path``.
"""

from __future__ import annotations

import builtins
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
from mcnemar.errors import AlignmentError, InputFileError, McNemarError
from mcnemar.io import align, detect_format, read_run

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

BASE = Path(__file__).parent / "data" / "io" / "real" / "lighteval"
READ_FLAGS = {"score": "--score", "task": "--task"}
ALIGN_FLAGS = {"on_missing": "--on-missing", "threshold": "--threshold"}


@cache
def expected() -> dict[str, Any]:
    return json.loads((BASE / "expected.json").read_text())


def _cases(kind: str) -> list[Any]:
    return [pytest.param(case, id=case["name"]) for case in expected()[kind]]


def _table(counts: Any) -> dict[str, int]:
    return dict(zip("abcd", (int(x) for x in counts), strict=True))


def _reads(case: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    return case.get("read_a", case.get("read", {})), case.get("read_b", case.get("read", {}))


def _cli_args(case: dict[str, Any]) -> list[str]:
    return compare_args(BASE / case["a"], BASE / case["b"], case, read_flags=READ_FLAGS,
                        align_flags=ALIGN_FLAGS)


def _invoke(args: list[str]) -> Any:
    return CliRunner().invoke(main, args)


def _details(side: str, task: str) -> Path:
    """The newest details file of one side (``a``/``b``) for a task, from expected.json."""
    runs = expected()["runs"]
    found = [k for k, v in runs.items() if k.endswith(".parquet") and k.startswith("output/")
             and v["model"] == f"fixture/system-{side}" and v["task"] == task
             and k not in runs[f"output/details/fixture/system-{side}"]["ignored"]]
    assert len(found) == 1, found
    return BASE / found[0]


# --- tables -----------------------------------------------------------------------------------


@pytest.mark.parametrize("case", _cases("pairings"))
def test_library_table_equals_the_independent_count(case: dict[str, Any]) -> None:
    read_a, read_b = _reads(case)
    alignment = align(read_run(BASE / case["a"], **read_a), read_run(BASE / case["b"], **read_b),
                      **case["align"])
    assert _table(alignment.counts) == case["table"]
    strata = alignment.summary.strata
    if "tasks" in case:
        assert strata is not None
        assert {name: _table(counts) for name, counts in strata} == case["tasks"]
    else:
        assert strata is None


@pytest.mark.parametrize("case", _cases("pairings"))
def test_cli_table_and_run_identity(case: dict[str, Any]) -> None:
    result = _invoke(_cli_args(case))
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert {k: report["table"][k] for k in "abcd"} == case["table"]
    if "tasks" in case:
        assert {s["task"]: {k: s[k] for k in "abcd"} for s in report["alignment"]["strata"]} \
            == case["tasks"]
    for side in ("a", "b"):
        got = report["alignment"]["runs"][side]
        facts = expected()["runs"][case[side]]
        read = _reads(case)[0 if side == "a" else 1]
        assert got["harness"] == "lighteval"
        assert got["model"] == facts["model"]
        assert got["status"] == facts["status"] == "complete"
        assert got["errored"] == facts["errored"] == 0
        assert got["scorer"] == read.get("score", facts["scorer"])
        tasks = [t["task"] for t in got["tasks"]]
        if "task" in read:
            assert len(tasks) == 1 and tasks[0].split("|")[0] == read["task"].split("|")[0]
        else:
            assert tasks == facts["tasks"]
        ignored = facts["ignored"] if "task" not in read else [
            f for f in facts["ignored"] if Path(f).name.startswith(f"details_{tasks[0]}_")]
        assert sorted(Path(p).name for p in got["ignored"]) == sorted(Path(p).name
                                                                       for p in ignored)


@pytest.mark.parametrize("path", sorted(expected()["runs"]))
def test_run_facts(path: str) -> None:
    """Task(s), scorer, model, status, records and ignored files of every run, as recorded."""
    facts = expected()["runs"][path]
    score = facts["scorer"] or facts["metrics"][0]
    run = read_run(BASE / path, score=score)
    assert run.format == facts["format"] == "lighteval"
    assert run.identity.task == facts["task"]
    assert run.identity.task_names() == facts["tasks"]
    assert run.identity.scorer == score
    assert run.identity.model == facts["model"] == run.name
    assert run.identity.status == "complete" and run.identity.errored == 0
    assert run.records == facts["records"] == sum(t.records or 0 for t in run.identity.tasks)
    assert sorted(Path(p).name for p in run.identity.ignored) == \
        sorted(Path(p).name for p in facts["ignored"])
    assert run.identity.task_part == 0 and run.key_names == ("task", "doc.id")
    assert run.identity.content_name == "doc.query"
    assert run.contents is not None and all(isinstance(c, str) and len(c) == 16
                                            for c in run.contents)


def test_the_expected_file_records_the_pinned_version() -> None:
    exp = expected()
    assert (exp["harness"], exp["version"]) == ("lighteval", "0.13.0")
    assert exp["generator"] == "scripts/harness_fixtures/gen_lighteval.py"


def test_directory_reads_the_newest_rerun_and_names_the_older() -> None:
    exp = expected()
    case = next(p for p in exp["pairings"] if p["name"] == "model folders, both tasks")
    old = next(p for p in exp["pairings"] if p["a"].endswith(Path(
        exp["runs"][case["a"]]["ignored"][0]).parent.name))
    assert old["table"] != case["table"]  # the older re-run alone gives another table
    result = _invoke(_cli_args(case))
    report = json.loads(result.stdout)
    ignored = report["alignment"]["runs"]["a"]["ignored"]
    assert len(ignored) == 2 and all(Path(p).parent.name in old["a"] for p in ignored)
    assert any("ignored 2 files" in w for w in report["warnings"]), report["warnings"]


# --- refusals ---------------------------------------------------------------------------------


@pytest.mark.parametrize("case", _cases("refusals"))
def test_different_task_or_scorer_is_refused(case: dict[str, Any]) -> None:
    result = _invoke(_cli_args(case))
    assert result.exit_code == 2, result.output
    message = result.stderr.strip()
    assert "\n" not in message and "internal error" not in message, message
    for value in case["values"]:
        assert value in message, message
    assert case["allow"] in message, message
    assert result.stdout == ""
    read_a, read_b = _reads(case)
    with pytest.raises(McNemarError, match="different"):
        align(read_run(BASE / case["a"], **read_a), read_run(BASE / case["b"], **read_b),
              **case["align"])


@pytest.mark.parametrize("case", _cases("refusals"))
def test_override_flag_pairs_and_warns(case: dict[str, Any]) -> None:
    result = _invoke([*_cli_args(case), case["allow"]])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert {k: report["table"][k] for k in "abcd"} == case["table"]
    assert any(all(v in w for v in case["values"]) for w in report["warnings"]), \
        report["warnings"]


# --- detection --------------------------------------------------------------------------------


def _detected_paths() -> list[Any]:
    files = sorted(BASE.rglob("*.parquet"))
    folders = sorted({q for p in files for q in (p.parent, p.parent.parent, p.parents[2])})
    folders += [BASE / "output", BASE / "two_metrics"]
    return [pytest.param(p, id=str(p.relative_to(BASE))) for p in files + folders]


@pytest.mark.parametrize("path", _detected_paths())
def test_every_file_and_folder_is_detected(path: Path) -> None:
    assert detect_format(path) == "lighteval"


def test_a_generic_parquet_file_is_not_claimed(tmp_path: Path) -> None:
    path = tmp_path / "scores.parquet"
    pq.write_table(pa.table({"id": ["q1"], "score": [1]}), path)
    assert detect_format(path) == "parquet"


# --- choosing what to read --------------------------------------------------------------------


def test_output_folder_of_several_models_is_refused_naming_them() -> None:
    info = expected()["several_models"]
    with pytest.raises(InputFileError, match="details of 2 models") as exc:
        read_run(BASE / info["path"])
    for model in info["models"]:
        assert repr(model) in str(exc.value)
    result = _invoke(["compare", str(BASE / info["path"]), str(BASE / info["path"]),
                      "--no-progress"])
    assert result.exit_code == 2 and "details of 2 models" in result.stderr


def test_several_metrics_need_a_choice_naming_them() -> None:
    case = next(p for p in expected()["pairings"] if p["a"] == "two_metrics")
    with pytest.raises(InputFileError, match=r"several metrics \('acc', 'mrr'\); choose one "
                                             r"with score=NAME"):
        read_run(BASE / case["a"])
    # Against itself nothing says which metric to take (against B, B's only metric is chosen).
    result = _invoke(["compare", str(BASE / case["a"]), str(BASE / case["a"]), "--no-progress"])
    assert result.exit_code == 2
    assert "choose one with --score NAME" in result.stderr
    assert "internal error" not in result.stderr
    result = _invoke(["compare", str(BASE / case["a"]), str(BASE / case["b"]), "--no-progress",
                      "--format", "json"])
    assert result.exit_code == 0, result.output
    assert {k: json.loads(result.stdout)["table"][k] for k in "abcd"} == case["table"]
    with pytest.raises(InputFileError, match="metric 'f1' not in this file; its metrics are "
                                             "'acc', 'mrr'"):
        read_run(BASE / case["a"], score="f1")


def test_graded_metric_keeps_its_values() -> None:
    case = next(p for p in expected()["refusals"] if p["differs"] == "scorer")
    run = read_run(BASE / case["a"], score="mrr")
    acc = read_run(BASE / case["a"], score="acc")
    assert set(np.round(run.scores, 6).tolist()) == {1.0, 0.5, round(1 / 3, 6)}
    assert np.array_equal(run.scores == 1, acc.scores == 1)
    assert run.keys.tolist() == acc.keys.tolist()


def test_task_selection() -> None:
    a = BASE / "output" / "details" / "fixture" / "system-a"
    run = read_run(a, task=["compare_mc", "arith_mc|0"])
    assert run.identity.task_names() == ["compare_mc|0", "arith_mc|0"]
    with pytest.raises(InputFileError, match=r"task\(s\) 'nope' not in this folder; its tasks "
                                             r"are 'arith_mc\|0', 'compare_mc\|0'"):
        read_run(a, task="nope")
    one = _details("a", "arith_mc|0")
    assert read_run(one, task="arith_mc").identity.task == "arith_mc|0"
    with pytest.raises(InputFileError, match=r"holds task 'arith_mc\|0', not 'compare_mc'"):
        read_run(one, task="compare_mc")
    with pytest.raises(McNemarError, match="not valid"):
        read_run(a, task=[""])


def test_a_task_run_with_several_fewshot_counts_needs_its_full_name(tmp_path: Path) -> None:
    src = _details("a", "arith_mc|0")
    stamp = src.parent.name
    shutil.copyfile(src, tmp_path / src.name)
    shutil.copyfile(src, tmp_path / f"details_arith_mc|5_{stamp}.parquet")
    with pytest.raises(InputFileError, match="several few-shot counts"):
        read_run(tmp_path, task="arith_mc")
    assert read_run(tmp_path, task="arith_mc|5").identity.task == "arith_mc|5"


def test_file_outside_the_layout_takes_its_task_from_the_documents(tmp_path: Path) -> None:
    src = _details("a", "compare_mc|0")
    copy = tmp_path / "renamed.parquet"
    shutil.copyfile(src, copy)
    run = read_run(copy)
    assert detect_format(copy) == "lighteval"
    assert run.identity.task == "compare_mc|0"  # doc.task_name
    assert run.identity.model is None and run.name == "renamed.parquet"
    other = read_run(_details("b", "compare_mc|0"))
    assert _table(align(run, other).counts) == next(
        p["table"] for p in expected()["pairings"] if p["name"] == "details files, task "
        "compare_mc|0")


# --- malformed files --------------------------------------------------------------------------


def _rows(side: str = "a", task: str = "arith_mc|0") -> list[dict[str, Any]]:
    return pq.read_table(_details(side, task)).to_pylist()  # type: ignore[no-any-return]


def _write(tmp_path: Path, rows: list[dict[str, Any]], name: str = "") -> Path:
    path = tmp_path / (name or "details_arith_mc|0_2026-01-01T00-00-00.000001.parquet")
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def _cli_error(path: Path, *extra: str) -> str:
    result = _invoke(["compare", str(path), str(_details("b", "arith_mc|0")), "--no-progress",
                      *extra])
    assert result.exit_code == 2, result.output
    message = result.stderr.strip()
    assert "\n" not in message and "internal error" not in message, message
    return message


def test_truncated_file_is_refused(tmp_path: Path) -> None:
    src = _details("a", "arith_mc|0")
    path = tmp_path / src.name
    path.write_bytes(src.read_bytes()[: src.stat().st_size // 2])
    with pytest.raises(InputFileError, match="cannot read Parquet"):
        read_run(path, format="lighteval")
    # Without its footer the file is not recognised as lighteval's; it is still refused.
    result = _invoke(["compare", str(path), str(_details("b", "arith_mc|0")), "--no-progress"])
    assert result.exit_code == 2, result.output
    assert "\n" not in result.stderr.strip() and "internal error" not in result.stderr


def test_missing_metric_column_is_refused(tmp_path: Path) -> None:
    rows = [{k: v for k, v in r.items() if k != "metric"} for r in _rows()]
    path = _write(tmp_path, rows)
    with pytest.raises(InputFileError, match="no 'metric' column"):
        read_run(path, format="lighteval")


def test_metric_that_is_not_a_struct_is_refused(tmp_path: Path) -> None:
    rows = [{**r, "metric": r["metric"]["acc"]} for r in _rows()]
    path = _write(tmp_path, rows)
    with pytest.raises(InputFileError, match="'metric' is int64, not a struct"):
        read_run(path, format="lighteval")
    assert "not a struct" in _cli_error(path)


def test_non_numeric_metric_is_refused(tmp_path: Path) -> None:
    rows = [{**r, "metric": {"acc": "yes" if r["metric"]["acc"] else "no"}} for r in _rows()]
    path = _write(tmp_path, rows)
    assert detect_format(path) == "lighteval"
    with pytest.raises(InputFileError, match="metric 'acc' holds string values, not one number "
                                             "per document"):
        read_run(path)
    assert "not one number per document" in _cli_error(path)
    lists = [{**r, "metric": {"acc": [r["metric"]["acc"]]}} for r in _rows()]
    with pytest.raises(InputFileError, match="holds list"):
        read_run(_write(tmp_path, lists, "details_x|0_2026-01-01T00-00-00.parquet"))


def test_wrong_doc_id_type_is_refused(tmp_path: Path) -> None:
    rows = [{**r, "doc": {**r["doc"], "id": [r["doc"]["id"]]}} for r in _rows()]
    path = _write(tmp_path, rows)
    with pytest.raises(InputFileError, match=r"row 0: doc\.id must be text or an integer"):
        read_run(path)
    assert "doc.id must be text or an integer" in _cli_error(path)


def test_doc_without_id_is_keyed_by_row_index_and_says_so(tmp_path: Path) -> None:
    rows = [{**r, "doc": {k: v for k, v in r["doc"].items() if k != "id"}} for r in _rows()]
    run = read_run(_write(tmp_path, rows))
    assert run.key_names == ("task", "row")
    assert run.metadata["key"] == "row index (doc has no id)"
    assert run.keys.tolist() == [("arith_mc|0", i) for i in range(len(rows))]


def test_null_metric_value_is_no_score(tmp_path: Path) -> None:
    rows = _rows()
    rows[0] = {**rows[0], "metric": {"acc": None}}
    run = read_run(_write(tmp_path, rows))
    assert np.isnan(run.scores[0]) and not np.isnan(run.scores[1:]).any()
    with pytest.raises(AlignmentError, match="no score"):
        align(run, read_run(_details("b", "arith_mc|0")))


def test_a_changed_query_is_caught_by_the_content_check(tmp_path: Path) -> None:
    rows = _rows("b")
    rows[3] = {**rows[3], "doc": {**rows[3]["doc"], "query": "Question: something else?"}}
    b = read_run(_write(tmp_path, rows))
    a = read_run(_details("a", "arith_mc|0"))
    with pytest.raises(AlignmentError, match=r"1 of 24 paired items differ in doc.query"):
        align(a, b)


def test_folder_without_details_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    from mcnemar.io.lighteval import read_lighteval

    with pytest.raises(InputFileError, match="holds no lighteval details"):
        read_lighteval(tmp_path / "empty")


def test_missing_pyarrow_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real = builtins.__import__

    def no_pyarrow(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.split(".")[0] == "pyarrow":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    with pytest.raises(McNemarError, match=r"pip install 'mcnemar\[frames\]'"):
        read_run(_details("a", "arith_mc|0"))
