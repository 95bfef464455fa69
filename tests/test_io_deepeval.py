"""deepeval test runs (mcnemar.io.deepeval), on files written by deepeval 4.3.1 itself.

The files under ``tests/data/io/real/deepeval/`` were written by ``deepeval.evaluate`` with
scripted answers and metrics that need no LLM judge (scripts/harness_fixtures/gen_deepeval.py);
its ``expected.json`` holds the tables counted from them with plain ``json``, never with
mcnemar, and each run's facts (model, scorer, status, errored items, ignored re-runs). The
malformed variants below are written from those real files into ``tmp_path``.
"""

from __future__ import annotations

import json
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
from mcnemar.io.deepeval import read_deepeval

DATA = Path(__file__).parent / "data" / "io" / "real" / "deepeval"
READ_FLAGS = {"score": "--score", "on_error": "--on-error"}
ALIGN_FLAGS = {"on_missing": "--on-missing", "threshold": "--threshold"}


@cache
def expected() -> dict[str, Any]:
    return json.loads((DATA / "expected.json").read_text())


def _table(counts: Any) -> dict[str, int]:
    return dict(zip("abcd", (int(x) for x in counts), strict=True))


def _file(key: str) -> Path:
    """A run file named in expected.json (a file, or a results folder)."""
    return DATA / key


def _cli_knows(flag: str) -> bool:
    from mcnemar.cli.compare import compare

    return any(flag in p.opts for p in compare.params)


def _cli_args(case: dict[str, Any]) -> list[str]:
    return compare_args(_file(case["a"]), _file(case["b"]), case, read_flags=READ_FLAGS,
                        align_flags=ALIGN_FLAGS)


def _pairings() -> list[Any]:
    return [pytest.param(c, id=c["name"]) for c in expected()["pairings"]]


def _refusals() -> list[Any]:
    return [pytest.param(c, id=c["name"]) for c in expected()["refusals"]]


# --- the real files: tables, identity, detection ---------------------------------------------


@pytest.mark.parametrize("case", _pairings())
def test_library_table_equals_the_independent_count(case: dict[str, Any]) -> None:
    run_a = read_run(_file(case["a"]), **case.get("read_a", case.get("read", {})))
    run_b = read_run(_file(case["b"]), **case.get("read_b", case.get("read", {})))
    assert _table(align(run_a, run_b, **case["align"]).counts) == case["table"]


@pytest.mark.parametrize("case", _pairings())
def test_cli_table_and_run_identity(case: dict[str, Any]) -> None:
    needed = {k for side in ("read", "read_a", "read_b") for k in case.get(side, {})}
    for key in needed:
        if not _cli_knows(READ_FLAGS[key]):
            pytest.skip(f"the command line has no {READ_FLAGS[key]} yet")
    result = CliRunner().invoke(main, _cli_args(case))
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert {k: report["table"][k] for k in "abcd"} == case["table"]
    for side in ("a", "b"):
        got = report["alignment"]["runs"][side]
        facts = expected()["runs"][case[side]]
        read = case.get(f"read_{side}", case.get("read", {}))
        assert got["scorer"] == read.get("score", facts["scorer"])
        assert got["model"] == facts["model"]
        assert got["status"] == facts["status"]
        assert got["errored"] == case["errored"][side]
        assert [Path(p).name for p in got["ignored"]] == \
            [Path(p).name for p in facts["ignored"]]


@pytest.mark.parametrize("key", sorted(expected()["runs"]))
def test_every_run_is_detected_and_its_identity_read(key: str) -> None:
    facts = expected()["runs"][key]
    path = _file(key)
    assert detect_format(path) == "deepeval"
    run = read_run(path)
    assert run.format == "deepeval"
    ident = run.identity
    assert (ident.harness, ident.task, ident.model) == ("deepeval", facts["task"], facts["model"])
    assert ident.scorer == facts["scorer"]
    assert ident.status == facts["status"]
    assert ident.errored == facts["errored"] == int(run.errored.sum())
    assert run.records == ident.tasks[0].records == facts["records"]
    assert [Path(p).name for p in ident.ignored] == [Path(p).name for p in facts["ignored"]]
    assert run.name == (facts["model"] or path.name)
    assert run.metadata["metrics"] and sorted(run.metadata["metrics"]) == facts["metric_names"]


def test_the_files_are_one_line_each_and_read_as_one_document() -> None:
    """deepeval writes one compact JSON object without a newline; the reader reads it whole
    (a JSON Lines reader would see one record)."""
    path = DATA / expected()["runs"]["exact_a"]["file"]
    raw = path.read_bytes()
    assert b"\n" not in raw and raw.startswith(b'{"testCases": [')
    run = read_run(path)
    assert run.records == expected()["items"] == len(json.loads(raw)["testCases"])


def test_latest_test_run_wrapper_is_the_same_run() -> None:
    """``.deepeval/.latest_test_run.json`` (kept as written, under a visible name) wraps the
    run in ``testRunData``: it reads exactly as the results-folder file of the same run."""
    latest = DATA / "latest_test_run_a.json"
    plain = DATA / expected()["runs"]["exact_a"]["file"]
    doc = json.loads(latest.read_text())
    assert list(doc) == ["testRunData"]
    assert doc["testRunData"] == json.loads(plain.read_text())
    a, b = read_run(latest), read_run(plain)
    assert a.keys.tolist() == b.keys.tolist()
    assert a.scores.tolist() == b.scores.tolist()
    assert a.contents.tolist() == b.contents.tolist()
    assert a.metadata["wrapper"] == "testRunData" and "wrapper" not in b.metadata


def test_scores_follow_the_scripted_answers() -> None:
    """Each system is wrong on the items the generator lists, and nowhere else."""
    exp = expected()
    for key, system in (("exact_a", "a"), ("exact_b", "b")):
        run = read_run(DATA / key)
        wrong = {f"arith-{i:02d}" for i in exp["wrong"][system]}
        assert {k for k, s in zip(run.keys, run.scores, strict=True) if s == 0} == wrong
        assert run.key_names == ("name",) and run.score_name == "success"


def test_graded_score_and_chosen_metric() -> None:
    path = DATA / "three_a"
    graded = read_run(path, score="Closeness:score")
    verdict = read_run(path, score="Closeness")
    assert graded.identity.scorer == "Closeness:score"
    assert set(graded.scores.tolist()) == {0.0, 0.125, 0.5, 1.0}
    # success is score >= the metric's threshold (0.5), as deepeval decided it
    assert np.array_equal(verdict.scores, (graded.scores >= 0.5).astype(float))
    default = read_run(path)
    assert default.identity.scorer == "Closeness, Exact Match, Pattern Match"
    assert default.score_name == "success"


def test_errored_item_is_reported_not_counted_as_wrong() -> None:
    item = expected()["errored_item"]
    path = DATA / "errored_a"
    for score in (None, "Closeness", "Closeness:score"):
        run = read_deepeval(path, score=score)
        at = run.keys.tolist().index(item)
        assert run.errored.tolist() == [k == item for k in run.keys]
        assert np.isnan(run.scores[at])
        failed = read_deepeval(path, score=score, on_error="fail")
        assert failed.scores[at] == 0.0 and failed.errored[at]
        assert np.array_equal(np.delete(failed.scores, at), np.delete(run.scores, at))
    # the other metrics of the errored item were computed: choosing one, nothing errored
    exact = read_deepeval(path, score="Exact Match")
    assert not exact.errored.any() and exact.identity.errored == 0
    other = read_run(DATA / "three_b")
    with pytest.raises(AlignmentError, match=r"no score.*errored.*on_missing"):
        align(read_run(path), other)


def test_cli_reports_the_errored_item() -> None:
    case = next(c for c in expected()["pairings"] if c["a"].startswith("errored_a")
                and c["align"].get("on_missing") == "intersect" and not c["read"])
    result = CliRunner().invoke(main, _cli_args(case))
    assert result.exit_code == 0, result.output
    warnings = " ".join(json.loads(result.stdout)["warnings"])
    assert "errored" in warnings and "left out" in warnings, warnings
    refused = CliRunner().invoke(main, ["compare", str(_file(case["a"])), str(_file(case["b"])),
                                        "--no-progress"])
    assert refused.exit_code == 2
    assert "1 of them errored" in refused.stderr and "--on-missing intersect" in refused.stderr


def test_in_progress_file_is_unfinished_and_warned() -> None:
    case = next(c for c in expected()["pairings"] if c["a"] == "temp_test_run_data_a.json")
    result = CliRunner().invoke(main, _cli_args(case))
    assert result.exit_code == 0, result.output
    warnings = " ".join(json.loads(result.stdout)["warnings"])
    assert "did not complete" in warnings and "unfinished" in warnings, warnings


def test_results_folder_reads_the_newest_run_and_names_the_older() -> None:
    facts = expected()["runs"]["rerun_a"]
    run = read_run(DATA / "rerun_a")
    assert run.path == str(DATA / facts["file"])
    older = read_run(DATA / facts["ignored"][0])
    assert older.scores.tolist() != run.scores.tolist()  # the folder really read the newer
    result = CliRunner().invoke(main, ["compare", str(DATA / "rerun_a"), str(DATA / "exact_b"),
                                       "--format", "json", "--no-progress"])
    assert result.exit_code == 0, result.output
    warnings = " ".join(json.loads(result.stdout)["warnings"])
    assert Path(facts["ignored"][0]).name in warnings


def test_expected_records_the_tool_version() -> None:
    assert expected()["version"] == "4.3.1"
    assert expected()["generator"] == "scripts/harness_fixtures/gen_deepeval.py"


# --- refusals ---------------------------------------------------------------------------------


@pytest.mark.parametrize("case", _refusals())
def test_different_scorer_is_refused(case: dict[str, Any]) -> None:
    with pytest.raises(McNemarError, match="scored differently"):
        align(read_run(_file(case["a"])), read_run(_file(case["b"])))
    result = CliRunner().invoke(main, _cli_args(case))
    assert result.exit_code == 2, result.output
    message = result.stderr.strip()
    assert "\n" not in message and "internal error" not in message
    for value in case["values"]:
        assert value in message, message
    assert case["allow"] in message
    assert result.stdout == ""


@pytest.mark.parametrize("case", _refusals())
def test_override_flag_pairs_and_warns(case: dict[str, Any]) -> None:
    alignment = align(read_run(_file(case["a"])), read_run(_file(case["b"])),
                      allow_different_scorers=True)
    assert _table(alignment.counts) == case["table"]
    result = CliRunner().invoke(main, [*_cli_args(case), case["allow"]])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert {k: report["table"][k] for k in "abcd"} == case["table"]
    assert any(all(v in w for v in case["values"]) for w in report["warnings"])


# --- variants written from the real files -----------------------------------------------------


def _doc(key: str = "exact_b") -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / expected()["runs"][key]["file"]).read_text())
    return data


def _write(tmp_path: Path, doc: Any, name: str = "test_run_20260101_000000.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def test_the_table_follows_the_file(tmp_path: Path) -> None:
    """Flip one verdict in B: the table changes by exactly that item (no fixed result)."""
    doc = _doc()
    case = next(c for c in doc["testCases"] if c["success"])
    case["success"] = False
    a = read_run(DATA / "exact_a")
    before = _table(align(a, read_run(DATA / "exact_b")).counts)
    after = _table(align(a, read_run(_write(tmp_path, doc))).counts)
    passed_a = dict(zip(a.keys.tolist(), a.scores.tolist(), strict=True))[case["name"]] == 1
    moved = ("a", "b") if passed_a else ("c", "d")
    assert after[moved[0]] == before[moved[0]] - 1 and after[moved[1]] == before[moved[1]] + 1


def test_a_large_file_is_detected_and_read(tmp_path: Path) -> None:
    """Past the sniffer's 64 KiB head the first line is not a whole object any more."""
    doc = _doc()
    doc["testCases"] = [{**c, "name": f"{c['name']}-{k}"} for k in range(12)
                        for c in doc["testCases"]]
    path = _write(tmp_path, doc)
    assert path.stat().st_size > 1 << 16
    assert detect_format(path) == "deepeval"
    assert read_run(path).records == 12 * expected()["items"]


def test_unnamed_cases_fall_back_to_order(tmp_path: Path) -> None:
    doc = _doc()
    for case in doc["testCases"]:
        del case["name"]
    run = read_run(_write(tmp_path, doc))
    assert run.keys.tolist() == [c["order"] for c in doc["testCases"]]
    assert run.key_names == ("order",) and run.metadata["key"] == "order"


def test_duplicate_names_are_left_to_alignment(tmp_path: Path) -> None:
    """``deepeval test run`` names a case after its pytest test: a loop in one test repeats
    the name. The reader keeps both; alignment refuses them."""
    doc = _doc()
    doc["testCases"][1]["name"] = doc["testCases"][0]["name"]
    run = read_run(_write(tmp_path, doc))
    assert run.records == expected()["items"]
    with pytest.raises(AlignmentError, match=r"duplicated item key \('arith-00' x2\)"):
        align(read_run(DATA / "exact_a"), run)


def test_different_input_under_the_same_name_is_refused(tmp_path: Path) -> None:
    doc = _doc()
    doc["testCases"][3]["input"] += " (reworded)"
    other = read_run(_write(tmp_path, doc))
    with pytest.raises(AlignmentError, match=r"differ in input.*arith-03"):
        align(read_run(DATA / "exact_a"), other)
    allowed = align(read_run(DATA / "exact_a"), other, allow_different_tasks=True)
    assert sum(allowed.counts) == expected()["items"]


def test_several_metrics_of_one_name_are_refused(tmp_path: Path) -> None:
    doc = _doc("three_b")
    for case in doc["testCases"]:
        case["metricsData"][2]["name"] = "Pattern Match"
    path = _write(tmp_path, doc)
    with pytest.raises(InputFileError, match="2 metrics are named 'Pattern Match'"):
        read_run(path, score="Pattern Match")
    assert read_run(path, score="Exact Match").records == expected()["items"]


def test_metric_name_ending_in_score_suffix(tmp_path: Path) -> None:
    doc = _doc()
    for case in doc["testCases"]:
        case["metricsData"][0]["name"] = "Judge:score"
    run = read_run(_write(tmp_path, doc), score="Judge:score")
    assert run.identity.scorer == "Judge:score"
    assert run.scores.tolist() == read_run(DATA / "exact_b").scores.tolist()


def test_unknown_metric_names_the_metrics() -> None:
    with pytest.raises(InputFileError, match=r"'Nope' not found.*'Exact Match', 'Pattern "
                                             r"Match', 'Closeness'.*score=NAME:score"):
        read_run(DATA / "three_a", score="Nope")
    with pytest.raises(McNemarError, match="on_error must be one of 'missing', 'fail'"):
        read_deepeval(DATA / "exact_a", on_error="skip")


MALFORMED = [
    ("a list", [1, 2], "expected a JSON object, found list"),
    ("no test cases key", {"runDuration": 1.0}, "expected 'testCases'"),
    ("testCases not a list", {"testCases": {"a": 1}}, "'testCases' must be a list"),
    ("a case not an object", {"testCases": ["x"]}, r"testCases\[0\]: a test case must be"),
    ("no test cases", {"testCases": [], "conversationalTestCases": []}, "holds no test cases"),
    ("no metrics", {"testCases": [{"name": "q", "success": True}]}, "no test case has"),
    ("link only", {"testRunLink": "https://app.confident-ai.com/x"}, "only a link"),
    ("wrapper not an object", {"testRunData": [1]}, "'testRunData' must be an object"),
]


@pytest.mark.parametrize(("what", "doc", "message"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_documents_are_refused(tmp_path: Path, what: str, doc: Any,
                                         message: str) -> None:
    path = _write(tmp_path, doc)
    with pytest.raises(InputFileError, match=message):
        read_deepeval(path)


def _mutated(tmp_path: Path, change: Any) -> Path:
    doc = _doc()
    change(doc)
    return _write(tmp_path, doc)


WRONG_TYPES = [
    ("success as text", lambda d: d["testCases"][2].update(success="yes"), {},
     r"testCases\[2\]: 'success' must be true or false"),
    ("metric success as text", lambda d: d["testCases"][4]["metricsData"][0].update(
        success="no"), {"score": "Exact Match"}, r"metric 'Exact Match': 'success' must be"),
    ("score as text", lambda d: d["testCases"][4]["metricsData"][0].update(score="1"),
     {"score": "Exact Match:score"}, "'score' must be a number"),
    ("metricsData not a list", lambda d: d["testCases"][5].update(metricsData={}), {},
     r"testCases\[5\]: 'metricsData' must be a list"),
    ("metric without a name", lambda d: d["testCases"][6]["metricsData"][0].pop("name"), {},
     r"metricsData\[0\]: a metric needs a 'name'"),
    ("input not text", lambda d: d["testCases"][7].update(input=["a"]), {},
     r"testCases\[7\]: 'input' must be text"),
    ("neither name nor order", lambda d: [d["testCases"][8].pop(k) for k in ("name", "order")],
     {}, r"testCases\[8\]: a test case needs a 'name'"),
]


@pytest.mark.parametrize(("what", "change", "read", "message"), WRONG_TYPES,
                         ids=[m[0] for m in WRONG_TYPES])
def test_wrong_types_are_refused(tmp_path: Path, what: str, change: Any, read: dict[str, Any],
                                 message: str) -> None:
    with pytest.raises(InputFileError, match=message):
        read_deepeval(_mutated(tmp_path, change), **read)


def test_truncated_file_is_refused_in_one_line(tmp_path: Path) -> None:
    raw = (DATA / expected()["runs"]["exact_b"]["file"]).read_bytes()
    path = tmp_path / "test_run_20260101_000000.json"
    path.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(InputFileError, match="not valid JSON"):
        read_deepeval(path)
    result = CliRunner().invoke(main, ["compare", str(DATA / "exact_a"), str(path),
                                       "--input-format", "deepeval", "--no-progress"])
    assert result.exit_code == 2, result.output
    message = result.stderr.strip()
    assert "\n" not in message and "internal error" not in message
    assert "not valid JSON" in message


def test_cli_refuses_a_wrong_type_in_one_line(tmp_path: Path) -> None:
    path = _mutated(tmp_path, lambda d: d["testCases"][2].update(success="yes"))
    result = CliRunner().invoke(main, ["compare", str(DATA / "exact_a"), str(path),
                                       "--no-progress"])
    assert result.exit_code == 2, result.output
    message = result.stderr.strip()
    assert "\n" not in message and "internal error" not in message
    assert "'success' must be true or false" in message


def test_folder_order_follows_deepeval_names(tmp_path: Path) -> None:
    """Runs saved in the same second get ``_2``, ``_3``, ... (``local_store.py``
    ``resolve_test_run_path``): ``_10`` is newer than ``_2``, and both newer than the plain
    name; other JSON files in the folder are not runs."""
    raw = (DATA / expected()["runs"]["exact_b"]["file"]).read_bytes()
    for stem in ("test_run_20260101_000000", "test_run_20260101_000000_2",
                 "test_run_20260101_000000_10", "test_run_20251231_235959_3"):
        (tmp_path / f"{stem}.json").write_bytes(raw)
    (tmp_path / "test_run_notes.json").write_text("[]")
    run = read_run(tmp_path)
    assert Path(run.path).name == "test_run_20260101_000000_10.json"
    assert sorted(Path(p).name for p in run.identity.ignored) == [
        "test_run_20251231_235959_3.json", "test_run_20260101_000000.json",
        "test_run_20260101_000000_2.json"]


def test_folder_without_runs(tmp_path: Path) -> None:
    (tmp_path / "runs" / "a").mkdir(parents=True)
    src = next((DATA / "exact_a").glob("test_run_*.json"))
    (tmp_path / "runs" / "a" / src.name).write_bytes(src.read_bytes())
    with pytest.raises(InputFileError, match=r"holds no deepeval test run.*'a' hold test runs"):
        read_deepeval(tmp_path / "runs")
    assert detect_format(tmp_path / "runs" / "a") == "deepeval"
    assert read_run(tmp_path / "runs" / "a").records == expected()["items"]
