"""promptfoo eval outputs (mcnemar.io.promptfoo), on files written by promptfoo 0.121.20.

The files under ``tests/data/io/real/promptfoo/`` were written by ``promptfoo eval -o`` with a
scripted provider (scripts/harness_fixtures/gen_promptfoo.py): system A alone, system B
alone, both providers in one eval, A scored with ``contains`` instead of ``equals``, and an
eval of two prompts. Its ``expected.json`` holds the tables counted from the files with plain
``json`` and ``csv``, never with mcnemar, and each run's facts. The malformed variants below
are written from those real files into ``tmp_path``.
"""

from __future__ import annotations

import csv
import io
import json
import math
import random
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from mcnemar.cli import main
from mcnemar.errors import AlignmentError, InputFileError, McNemarError
from mcnemar.io import align, detect_format, read_run
from mcnemar.io.promptfoo import _js_number, _js_string, read_promptfoo

DATA = Path(__file__).parent / "data" / "io" / "real" / "promptfoo"
ALIGN_FLAGS = {"on_missing": "--on-missing"}
A, B = "system-a", "system-b"


@cache
def expected() -> dict[str, Any]:
    return json.loads((DATA / "expected.json").read_text())


def _table(counts: Any) -> dict[str, int]:
    return dict(zip("abcd", (int(x) for x in counts), strict=True))


def _read(case: dict[str, Any], side: str) -> Any:
    options = case.get(f"read_{side}", case.get("read", {}))
    return read_run(DATA / case[side], **options)


def _align_flags(case: dict[str, Any]) -> list[str]:
    return [x for key, value in case.get("align", {}).items()
            for x in (ALIGN_FLAGS[key], str(value))]


def _cases(kind: str, *, one_file: bool | None = None) -> list[Any]:
    out = []
    for case in expected()[kind]:
        if one_file is not None and (case["a"] == case["b"]) != one_file:
            continue
        out.append(pytest.param(case, id=case["name"]))
    return out


def _compare(args: list[str]) -> Any:
    return CliRunner().invoke(main, args)


def _run_files() -> list[Path]:
    return sorted(p for p in DATA.iterdir() if p.name != "expected.json")


# --- the real files: tables, identity, detection ---------------------------------------------


@pytest.mark.parametrize("case", _cases("pairings"))
def test_library_table_equals_the_independent_count(case: dict[str, Any]) -> None:
    """read_run + align give the table counted from the files with plain json / csv."""
    alignment = align(_read(case, "a"), _read(case, "b"), **case.get("align", {}))
    assert _table(alignment.counts) == case["table"]


@pytest.mark.parametrize("case", _cases("pairings", one_file=False))
def test_cli_table_of_two_files(case: dict[str, Any]) -> None:
    if "read_a" in case or "read_b" in case:
        pytest.skip("a provider chosen in one file of two: the library's run= (no CLI flag)")
    result = _compare(["compare", str(DATA / case["a"]), str(DATA / case["b"]), "--format",
                       "json", "--no-progress", *_align_flags(case)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert {k: report["table"][k] for k in "abcd"} == case["table"]
    assert report["table"]["n"] == sum(case["table"].values())


@pytest.mark.parametrize("case", _cases("pairings", one_file=True))
def test_one_file_two_providers_library(case: dict[str, Any]) -> None:
    """One eval with both providers: read twice, once per provider, by label."""
    path = DATA / case["a"]
    run_a, run_b = read_run(path, run=A), read_run(path, run=B)
    assert (run_a.name, run_b.name) == (A, B)
    assert _table(align(run_a, run_b, **case["align"]).counts) == case["table"]


@pytest.mark.parametrize("case", _cases("pairings", one_file=True))
def test_one_file_two_providers_cli(case: dict[str, Any]) -> None:
    result = _compare(["compare", str(DATA / case["a"]), "--runs", f"{A},{B}", "--format",
                       "json", "--no-progress", *_align_flags(case)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert {k: report["table"][k] for k in "abcd"} == case["table"]
    assert report["alignment"]["runs"]["a"]["model"] == A
    assert report["alignment"]["runs"]["b"]["model"] == B


def _run_params() -> list[Any]:
    return [pytest.param(key, facts, id=key) for key, facts in expected()["runs"].items()]


@pytest.mark.parametrize(("key", "facts"), _run_params())
def test_run_identity_matches_the_generator(key: str, facts: dict[str, Any]) -> None:
    """Task, scorer, model, status, records and errored items as the generator recorded."""
    run = read_run(DATA / facts["file"], run=facts["run"] if "@" in key else None)
    assert run.format == "promptfoo"
    ident = run.identity
    assert ident.harness == "promptfoo"
    assert (ident.task, ident.scorer, ident.model, ident.status) == (
        facts["task"], facts["scorer"], facts["model"], facts["status"])
    assert run.records == ident.tasks[0].records == facts["records"]
    assert ident.errored == facts["errored"]
    assert ident.content_name == "vars"
    keys = run.keys.tolist()
    errored = [keys[i] for i in np.flatnonzero(run.errored)]
    assert sorted(errored) == sorted(tuple(k) if isinstance(k, list) else k
                                     for k in facts["errored_keys"])
    assert all(math.isnan(run.scores[i]) for i in np.flatnonzero(run.errored))


def test_every_run_file_is_described_and_detected() -> None:
    files = {f["file"] for f in expected()["runs"].values()}
    assert files == {p.name for p in _run_files()}
    assert len(files) >= 9
    for path in _run_files():
        assert detect_format(path) == "promptfoo", path.name


def test_expected_records_the_pinned_version() -> None:
    assert expected()["version"] == "0.121.20"
    assert expected()["runs"]["a.json"]["promptfoo_version"] == "0.121.20"
    assert read_run(DATA / "a.json").metadata["promptfoo_version"] == "0.121.20"


def test_fixtures_stay_small() -> None:
    assert sum(p.stat().st_size for p in DATA.iterdir()) < 350 * 1024


# --- refusals --------------------------------------------------------------------------------


@pytest.mark.parametrize("case", _cases("refusals"))
def test_different_scorer_is_refused(case: dict[str, Any]) -> None:
    with pytest.raises(McNemarError, match="scored differently") as info:
        align(_read(case, "a"), _read(case, "b"), **case["align"])
    for value in case["values"]:
        assert value in str(info.value)
    result = _compare(["compare", str(DATA / case["a"]), str(DATA / case["b"]), "--format",
                       "json", "--no-progress", *_align_flags(case)])
    assert result.exit_code == 2, result.output
    message = result.stderr.strip()
    assert "\n" not in message and "internal error" not in message
    assert case["allow"] in message and all(v in message for v in case["values"])
    assert result.stdout == ""


@pytest.mark.parametrize("case", _cases("refusals"))
def test_override_counts_the_refused_pairing(case: dict[str, Any]) -> None:
    alignment = align(_read(case, "a"), _read(case, "b"), allow_different_scorers=True,
                      **case["align"])
    assert _table(alignment.counts) == case["table"]
    result = _compare(["compare", str(DATA / case["a"]), str(DATA / case["b"]), "--format",
                       "json", "--no-progress", case["allow"], *_align_flags(case)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert {k: report["table"][k] for k in "abcd"} == case["table"]
    assert any(all(v in w for v in case["values"]) for w in report["warnings"])


# --- providers -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["ab.json", "ab.jsonl", "ab.csv", "prompts2.csv"])
def test_several_providers_need_a_choice(name: str) -> None:
    with pytest.raises(InputFileError) as info:
        read_run(DATA / name)
    message = str(info.value)
    assert f"'{A}'" in message and f"'{B}'" in message
    assert "runs=A,B" in message and "run=NAME" in message
    result = _compare(["compare", str(DATA / name), str(DATA / "b.jsonl"), "--no-progress"])
    assert result.exit_code == 2
    assert "--runs A,B" in result.stderr and "internal error" not in result.stderr


def test_unknown_and_ambiguous_providers() -> None:
    with pytest.raises(InputFileError, match=r"no provider 'system-c'.*'system-a', 'system-b'"):
        read_run(DATA / "ab.json", run="system-c")
    # Both providers run the same file://provider.js: its id names two of them.
    with pytest.raises(InputFileError, match=r"id of 2 providers.*choose one by its label"):
        read_run(DATA / "ab.jsonl", run="file://provider.js")
    # A file of one provider is read by its id too.
    assert read_run(DATA / "b.jsonl", run="file://provider.js").name == B


def test_the_other_forms_of_one_eval_read_alike() -> None:
    """The JSON, JSONL and CSV of the two-provider eval give the same items, scores,
    errored items and vars for each provider."""
    for label in (A, B):
        runs = [read_run(DATA / f"ab.{ext}", run=label) for ext in ("json", "jsonl", "csv")]
        for run in runs:
            order = np.argsort(run.keys)
            run_sorted = (run.keys[order].tolist(), run.scores[order].tolist(),
                          run.errored[order].tolist(), run.contents[order].tolist())
            first = runs[0]
            o = np.argsort(first.keys)
            assert run_sorted[0] == first.keys[o].tolist()
            np.testing.assert_array_equal(run_sorted[1], first.scores[o])
            assert run_sorted[2] == first.errored[o].tolist()
            assert run_sorted[3] == first.contents[o].tolist()


def test_prompt_is_part_of_the_key() -> None:
    """promptIdx numbers provider x prompt columns; the key holds the prompt's position."""
    for name in ("prompts2.jsonl", "prompts2.csv"):
        a, b = read_run(DATA / name, run=A), read_run(DATA / name, run=B)
        assert a.key_names == ("prompt", "testIdx")
        assert sorted(a.keys.tolist()) == sorted(b.keys.tolist()) == [
            (p, t) for p in (0, 1) for t in range(4)]
        assert a.metadata["prompts"][1] == "terse"
    raw = [json.loads(x) for x in (DATA / "prompts2.jsonl").read_text().splitlines()]
    assert sorted({r["promptIdx"] for r in raw if r["provider"]["label"] == B}) == [2, 3]


def test_descriptions_are_kept_for_display() -> None:
    for name in ("a.json", "a.csv"):
        run = read_run(DATA / name)
        assert run.metadata["descriptions"]["0"] == "sum 0"
        assert str(run.records - 1) not in run.metadata["descriptions"]  # no description


# --- errored items ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a.json", "a.csv", "ab.jsonl"])
def test_provider_errors_follow_on_error(name: str) -> None:
    run = read_promptfoo(DATA / name, run=A)
    failed = read_promptfoo(DATA / name, run=A, on_error="fail")
    facts = expected()["runs"][name if "@" not in name and name in expected()["runs"]
                               else f"{name}@{A}"]
    bad = np.flatnonzero(run.errored)
    assert run.keys[bad].tolist() == facts["errored_keys"]
    assert np.isnan(run.scores[bad]).all()
    assert (failed.scores[bad] == 0).all() and failed.errored[bad].all()
    good = np.flatnonzero(~run.errored)
    np.testing.assert_array_equal(run.scores[good], failed.scores[good])
    with pytest.raises(McNemarError, match="on_error"):
        read_promptfoo(DATA / name, run=A, on_error="skip")


def test_errored_items_are_refused_by_default_and_reported() -> None:
    a, b = read_run(DATA / "a.json"), read_run(DATA / "b.jsonl")
    with pytest.raises(AlignmentError, match="1 of them errored"):
        align(a, b)
    counted = align(read_run(DATA / "a.json", on_error="fail"), b)
    intersect = align(a, b, on_missing="intersect")
    assert counted.counts[0] + counted.counts[1] == intersect.counts[0] + intersect.counts[1]
    assert sum(counted.counts) == sum(intersect.counts) + 1
    result = _compare(["compare", str(DATA / "a.json"), str(DATA / "b.jsonl"), "--format",
                       "json", "--no-progress", "--on-missing", "intersect"])
    assert result.exit_code == 0, result.output
    warnings = " ".join(json.loads(result.stdout)["warnings"])
    assert "errored" in warnings and "left out of the table" in warnings


# --- scores ----------------------------------------------------------------------------------


def test_graded_and_named_scores(tmp_path: Path) -> None:
    graded = read_run(DATA / "a.json", score="score")
    default = read_run(DATA / "a.json")
    np.testing.assert_array_equal(graded.scores, default.scores)  # equals scores 1 or 0
    assert graded.identity.scorer == "equals (graded score)"
    assert read_run(DATA / "a.csv", score="score").identity.scorer is None
    with pytest.raises(InputFileError, match=r"score 'accuracy' not found.*no named scores"):
        read_run(DATA / "a.json", score="accuracy")
    # A named metric, as promptfoo records an assertion's `metric:`.
    lines = (DATA / "b.jsonl").read_text().splitlines()
    records = [json.loads(x) for x in lines]
    for i, r in enumerate(records):
        r["namedScores"] = {"accuracy": 0.25 * (i % 5)}
    path = tmp_path / "named.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    run = read_run(path, score="accuracy")
    assert sorted(run.scores.tolist()) == sorted(0.25 * (i % 5) for i in range(len(records)))
    assert run.identity.scorer == "equals (named score accuracy)"


# --- content fingerprints --------------------------------------------------------------------


def test_vars_agree_across_forms_and_differences_are_refused(tmp_path: Path) -> None:
    doc = json.loads((DATA / "a.json").read_text())
    for r in doc["results"]["results"]:
        if r["testIdx"] == 3:
            r["testCase"]["vars"]["x"] = 999
    changed = tmp_path / "a_changed.json"
    changed.write_text(json.dumps(doc))
    with pytest.raises(AlignmentError, match=r"differ in vars.*item 3"):
        align(read_run(changed), read_run(DATA / "b.jsonl"), on_missing="intersect")


def test_csv_rows_out_of_order_are_caught(tmp_path: Path) -> None:
    """With --no-write promptfoo writes CSV rows in the order the tests finished: the row
    positions are then not test indices, and the vars check refuses the pairing."""
    rows = list(csv.reader(io.StringIO((DATA / "a.csv").read_text())))
    body = rows[1:]
    random.Random(4).shuffle(body)
    shuffled = tmp_path / "a_shuffled.csv"
    with shuffled.open("w", newline="") as handle:
        csv.writer(handle).writerows([rows[0], *body])
    with pytest.raises(AlignmentError, match="differ in vars"):
        align(read_run(shuffled), read_run(DATA / "b.jsonl"), on_missing="intersect")


def test_csv_formula_guard_is_undone(tmp_path: Path) -> None:
    """promptfoo prefixes ' to a cell starting with =, @, or a non-numeric +/-."""
    header = ["Description", "q", "[m] {{q}}", "Status", "Score", "Named Scores",
              "Grader Reason", "Comment"]
    path = tmp_path / "guarded.csv"
    with path.open("w", newline="") as handle:
        csv.writer(handle).writerows([header, ["d", "'=1+1", "2", "PASS", "1.00", "", "", ""],
                                      ["e", "-3", "x", "FAIL", "0.00", "", "", ""],
                                      ["f", "'-x", "x", "FAIL", "0.00", "", "", ""]])
    run = read_run(path)
    assert run.contents.tolist() == ['{"q": "=1+1"}', '{"q": "-3"}', '{"q": "-x"}']
    assert run.scores.tolist() == [1.0, 0.0, 0.0]


@pytest.mark.parametrize(("value", "text"), [
    (1.0, "1"), (0.1, "0.1"), (1e-7, "1e-7"), (1e21, "1e+21"), (1.5e21, "1.5e+21"),
    (1e16, "10000000000000000"), (123.456, "123.456"), (-0.000001, "-0.000001"),
    (1e-6, "0.000001"), (2.5e-7, "2.5e-7"), (0.0, "0"), (-12.0, "-12"),
    (123456789012345680000.0, "123456789012345680000"),
])
def test_numbers_are_written_as_javascript_writes_them(value: float, text: str) -> None:
    assert _js_number(value) == text


def test_var_values_as_csv_cells() -> None:
    assert [_js_string(v) for v in ("a", 3, True, None, [1, None, "b"], {"k": 1})] == [
        "a", "3", "true", "null", "1,,b", "[object Object]"]


def test_long_vars_are_digested(tmp_path: Path) -> None:
    records = [json.loads(x) for x in (DATA / "b.jsonl").read_text().splitlines()]
    for r in records:
        r["testCase"]["vars"]["document"] = "word " * 100 + str(r["testIdx"])
    path = tmp_path / "long.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    contents = read_run(path).contents.tolist()
    assert all("sha256" in c and len(c) < 160 for c in contents)
    assert len(set(contents)) == len(contents)


# --- repeats ---------------------------------------------------------------------------------


def test_repeats_recorded_in_results_json_are_samples(tmp_path: Path) -> None:
    """--repeat 2 gives every repeat its own testIdx (test t -> 2t, 2t + 1); results.json
    records the count, so the repeats become samples of one item."""
    doc = json.loads((DATA / "a.json").read_text())
    repeated = []
    for r in doc["results"]["results"]:
        for k in (0, 1):
            repeated.append({**r, "testIdx": 2 * r["testIdx"] + k})
    doc["results"]["results"] = repeated
    doc["runtimeOptions"]["repeat"] = 2
    path = tmp_path / "repeat.json"
    path.write_text(json.dumps(doc))
    run = read_run(path)
    assert run.records == 40 and run.sample_name == "repeat"
    pairs = sorted(zip(run.keys.tolist(), run.epochs.tolist(), strict=True))
    assert pairs == [(2 * t, k) for t in range(20) for k in (0, 1)]
    with pytest.raises(AlignmentError, match="several samples"):
        align(run, run)
    assert sum(align(run, run, reduce="first", on_missing="intersect").counts) == 19
    # Without the recorded count (as in a JSONL file) each repeat is its own test.
    del doc["runtimeOptions"]["repeat"]
    path.write_text(json.dumps(doc))
    assert read_run(path).epochs is None


# --- malformed files -------------------------------------------------------------------------


def _cli_refuses(path: Path, *extra: str) -> str:
    result = _compare(["compare", str(path), str(DATA / "b.jsonl"), "--no-progress", *extra])
    assert result.exit_code == 2, result.output
    message = result.stderr.strip()
    assert message.startswith("mcnemar: error: ") and "\n" not in message
    assert "internal error" not in message and "Traceback" not in message
    return message


def test_truncated_files(tmp_path: Path) -> None:
    text = (DATA / "a.json").read_text()
    cut = tmp_path / "a.json"
    cut.write_text(text[: len(text) // 2])
    with pytest.raises(InputFileError, match="not valid JSON") as info:
        read_promptfoo(cut)
    assert info.value.line is not None
    assert "not valid JSON" in _cli_refuses(cut, "--input-format", "promptfoo")
    lines = (DATA / "b.jsonl").read_text()
    cut_lines = tmp_path / "b.jsonl"
    cut_lines.write_text(lines[: len(lines) - 200])
    with pytest.raises(InputFileError, match="line is not valid JSON") as info:
        read_run(cut_lines)
    assert info.value.line == 20


def _rewrite_first(tmp_path: Path, change: Any, name: str = "b.jsonl") -> Path:
    records = [json.loads(x) for x in (DATA / name).read_text().splitlines()]
    change(records[0])
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.mark.parametrize(("change", "message"), [
    (lambda r: r.update(testIdx="0"), "'testIdx' must be a whole number"),
    (lambda r: r.pop("testIdx"), "'testIdx' must be a whole number >= 0, found no such field"),
    (lambda r: r.update(promptIdx=-1), "'promptIdx' must be a whole number"),
    (lambda r: r.update(success="yes"), "'success' must be true or false"),
    (lambda r: r.update(provider=None), "'provider' must be an object"),
    (lambda r: r.update(failureReason="2"), "'failureReason' must be 0, 1 or 2"),
    (lambda r: r["testCase"].update(vars=[1, 2]), "'testCase.vars' must be an object"),
])
def test_wrong_types_are_refused_naming_the_line(tmp_path: Path, change: Any,
                                                 message: str) -> None:
    path = _rewrite_first(tmp_path, change)
    with pytest.raises(InputFileError, match=message) as info:
        read_run(path, format="promptfoo")
    assert info.value.line == 1
    assert message in _cli_refuses(path, "--input-format", "promptfoo")


def test_wrong_score_type_is_refused(tmp_path: Path) -> None:
    path = _rewrite_first(tmp_path, lambda r: r.update(score="high"))
    with pytest.raises(InputFileError, match="score 'score' must be a number"):
        read_run(path, score="score")


@pytest.mark.parametrize(("doc", "message"), [
    ([], "expected a JSON object whose 'results' holds a 'results' list"),
    ({"evalId": "x", "results": {"results": {}}}, "holds a 'results' list"),
    ({"evalId": "x", "results": {"results": []}}, "holds no results"),
    ({"evalId": "x", "results": {"results": [7]}}, r"results.results\[0\]: a result must be"),
])
def test_malformed_results_json(tmp_path: Path, doc: Any, message: str) -> None:
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(InputFileError, match=message):
        read_promptfoo(path)


def _csv_variant(tmp_path: Path, change: Any) -> Path:
    rows = list(csv.reader(io.StringIO((DATA / "ab.csv").read_text())))
    change(rows)
    path = tmp_path / "ab.csv"
    with path.open("w", newline="") as handle:
        csv.writer(handle).writerows(rows)
    return path


@pytest.mark.parametrize(("change", "message"), [
    (lambda rows: rows[3].pop(), "the row has 16 cells, the header 17"),
    (lambda rows: rows[2].__setitem__(6, "MAYBE"), "must be PASS, FAIL or ERROR"),
    (lambda rows: rows[0].__setitem__(6, "State"), "column 8 is 'Score' outside a group"),
    (lambda rows: [r.__setitem__(slice(None), r[:5]) for r in rows],
     "no output column followed by 'Status'"),
    (lambda rows: rows[0].__setitem__(10, "Notes"), "should go on with 'Grader Reason'"),
])
def test_malformed_csv(tmp_path: Path, change: Any, message: str) -> None:
    path = _csv_variant(tmp_path, change)
    with pytest.raises(InputFileError, match=message):
        read_promptfoo(path, run=A)
    assert message in _cli_refuses(path, "--input-format", "promptfoo")


def test_csv_row_errors_name_the_line(tmp_path: Path) -> None:
    path = _csv_variant(tmp_path, lambda rows: rows[3].pop())
    with pytest.raises(InputFileError) as info:
        read_promptfoo(path, run=A)
    assert info.value.line == 4


def test_directory_and_bad_options(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="directory"):
        read_promptfoo(tmp_path)
    with pytest.raises(InputFileError, match="score=NAME must be"):
        read_promptfoo(DATA / "a.json", score="")  # type: ignore[arg-type]
