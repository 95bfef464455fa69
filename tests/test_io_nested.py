"""Dotted paths into nested fields, repeated CSV headers, and pass/fail words.

Every reading path of the generic reader must give the same run: Python for small JSONL files,
DuckDB (``engine="duckdb"``) for JSONL and Parquet, and pyarrow for Parquet when DuckDB is
not installed. The nested files are written here with plain ``json`` and pyarrow, the expected
keys and scores taken straight from the records that were written.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from mcnemar.cli import main
from mcnemar.errors import InputFileError
from mcnemar.io import align, read_run
from mcnemar.io import generic as generic_module
from mcnemar.io._run import MISSING, field_at, score_to_float

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _records(wrong: set[int], n: int = 12) -> list[dict[str, Any]]:
    # lighteval's layout: a `doc` struct with the id, a `metric` struct with the outcome.
    return [{"doc": {"id": i, "query": f"q{i}"}, "metric": {"acc": float(i not in wrong)},
             "model_response": {"text": ["x"]}, "flat": i} for i in range(n)]


def _write(tmp: Path, name: str, records: list[dict[str, Any]], kind: str) -> Path:
    path = tmp / f"{name}.{kind}"
    if kind == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    else:
        pq.write_table(pa.Table.from_pylist(records), path)
    return path


ENGINES = [("jsonl", "python"), ("jsonl", "duckdb"), ("parquet", "duckdb"),
           ("parquet", "pyarrow")]


@pytest.mark.parametrize(("kind", "engine"), ENGINES)
def test_dotted_id_and_score_on_every_engine(tmp_path: Path, kind: str, engine: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    if engine == "duckdb":
        pytest.importorskip("duckdb")
    wrong_a, wrong_b = {1, 2, 5}, {2, 7, 8, 9}
    a = _write(tmp_path, "a", _records(wrong_a), kind)
    b = _write(tmp_path, "b", list(reversed(_records(wrong_b))), kind)
    options: dict[str, Any] = {"id": "doc.id", "score": "metric.acc"}
    if engine == "pyarrow":
        monkeypatch.setattr(generic_module, "_duckdb_available", lambda: False)
    else:
        options["engine"] = engine
    run_a, run_b = read_run(a, **options), read_run(b, **options)
    counts = align(run_a, run_b).counts
    expected = (sum(1 for i in range(12) if i not in wrong_a | wrong_b),
                len(wrong_b - wrong_a), len(wrong_a - wrong_b), len(wrong_a & wrong_b))
    assert counts == expected
    loaded = run_a.load()
    assert sorted(map(str, loaded.keys.tolist())) == sorted(str(i) for i in range(12))
    assert loaded.key_names == ("doc.id",) and loaded.score_name == "metric.acc"


@pytest.mark.parametrize(("kind", "engine"), ENGINES)
def test_dotted_run_and_task_columns(tmp_path: Path, kind: str, engine: str,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    if engine == "duckdb":
        pytest.importorskip("duckdb")
    rows = [{"meta": {"model": m, "task": t}, "item": {"id": i},
             "ok": (i + len(m) + len(t)) % 3 > 0}
            for m in ("new", "oldest") for t in ("add", "mul") for i in range(5)]
    path = _write(tmp_path, "long", rows, kind)
    options: dict[str, Any] = {"id": "item.id", "score": "ok", "run_column": "meta.model",
                               "task_column": "meta.task"}
    if engine == "pyarrow":
        monkeypatch.setattr(generic_module, "_duckdb_available", lambda: False)
    else:
        options["engine"] = engine
    new = read_run(path, run="new", **options).load()
    assert new.records == 10
    assert sorted(new.keys.tolist()) == sorted((t, str(i)) for t in ("add", "mul")
                                               for i in range(5))
    truth = {(r["meta"]["task"], str(r["item"]["id"])): float(r["ok"]) for r in rows
             if r["meta"]["model"] == "new"}
    assert dict(zip(new.keys.tolist(), new.scores.tolist(), strict=True)) == truth


def test_cli_reads_dotted_paths(tmp_path: Path) -> None:
    a = _write(tmp_path, "a", _records({1, 2, 5}), "jsonl")
    b = _write(tmp_path, "b", _records({2, 7}), "jsonl")
    result = CliRunner().invoke(main, ["compare", str(a), str(b), "--id", "doc.id", "--score",
                                       "metric.acc", "--format", "json", "--no-progress"])
    assert result.exit_code == 0, result.output
    table = json.loads(result.output)["table"]
    assert (table["a"], table["b"], table["c"], table["d"]) == (8, 1, 2, 1)


def test_a_missing_nested_field_is_named(tmp_path: Path) -> None:
    a = _write(tmp_path, "a", _records(set()), "jsonl")
    with pytest.raises(InputFileError,
                       match=re.escape("field 'doc.name' not found: doc holds 'id', 'query'")):
        read_run(a, id="doc.name", score="metric.acc")
    with pytest.raises(InputFileError, match=re.escape(
            "field 'doc.query.x' not found: 'doc.query' is 'q0', not an object")):
        read_run(a, id="doc.query.x", score="metric.acc")


def test_csv_columns_are_flat(tmp_path: Path) -> None:
    path = tmp_path / "run.csv"
    path.write_text("doc.id,metric.acc\n1,1\n2,0\n")
    run = read_run(path, id="doc.id", score="metric.acc")
    assert run.keys.tolist() == ["1", "2"] and run.scores.tolist() == [1.0, 0.0]
    with pytest.raises(InputFileError, match="CSV columns are flat"):
        read_run(path, id="doc", score="metric.acc.x")


@pytest.mark.parametrize("engine", ["python", "duckdb"])
def test_repeated_csv_header_is_refused(tmp_path: Path, engine: str) -> None:
    if engine == "duckdb":
        pytest.importorskip("duckdb")
    # promptfoo's two-provider CSV repeats its per-provider columns under the same names.
    path = tmp_path / "two.csv"
    path.write_text("id,Status,Score,Status,Score\nq1,PASS,1,FAIL,0\nq2,FAIL,0,PASS,1\n")
    with pytest.raises(InputFileError) as info:
        read_run(path, score="Score", engine=engine)
    message = str(info.value)
    assert "'Status' (columns 2 and 4)" in message and "'Score' (columns 3 and 5)" in message


def test_repeated_header_is_exit_2_on_the_cli(tmp_path: Path) -> None:
    path = tmp_path / "two.csv"
    path.write_text("id,Score,Score\nq1,1,0\n")
    result = CliRunner().invoke(main, ["compare", str(path), str(path), "--score", "Score"])
    assert result.exit_code == 2
    assert "repeats the column name 'Score' (columns 2 and 3)" in result.output


@pytest.mark.parametrize("engine", ["python", "duckdb"])
def test_pass_fail_words_are_outcomes(tmp_path: Path, engine: str) -> None:
    if engine == "duckdb":
        pytest.importorskip("duckdb")
    words = ["PASS", "FAIL", "pass", "fail", "Pass", "true", "no", "YES"]
    path = tmp_path / "run.csv"
    path.write_text("id,Status\n" + "".join(f"q{i},{w}\n" for i, w in enumerate(words)))
    run = read_run(path, score="Status", engine=engine).load()
    assert run.scores.tolist() == [1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0]
    assert [score_to_float(w) for w in words] == run.scores.tolist()


nested = st.recursive(st.integers(0, 9) | st.text("ab", max_size=2),
                      lambda inner: st.dictionaries(st.sampled_from(["a", "b", "a.b"]), inner,
                                                    max_size=3), max_leaves=8)


@settings(max_examples=200, deadline=None)
@given(record=st.dictionaries(st.sampled_from(["a", "b", "a.b"]), nested, max_size=3),
       path=st.lists(st.sampled_from(["a", "b"]), min_size=1, max_size=3))
def test_field_at_follows_the_path(record: dict[str, Any], path: list[str]) -> None:
    # Reference: walk the plain (dot-free) path key by key.
    value: Any = record
    for part in path:
        value = value.get(part, MISSING) if isinstance(value, dict) else MISSING
        if value is MISSING:
            break
    found = field_at(record, ".".join(path))
    if value is not MISSING:
        # A key holding the dots itself may win over the walk; otherwise the walk's value.
        assert found == value or any("." in k for k in _keys(record))
    elif not any("." in k for k in _keys(record)):
        assert found is MISSING


def _keys(value: Any) -> list[str]:
    if not isinstance(value, dict):
        return []
    return [*value, *(k for v in value.values() for k in _keys(v))]


def test_nothing_pairs_names_the_field_that_would(tmp_path: Path) -> None:
    # A new UUID per result under `id` (promptfoo's JSONL); the test index is the item key.
    import uuid

    files = []
    for name, wrong in (("a", {1, 3}), ("b", {2})):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps({"id": str(uuid.uuid4()), "testIdx": i,
                                            "vars": {"q": f"question {i}"},
                                            "success": i not in wrong}) + "\n"
                                for i in range(6)))
        files.append(str(path))
    result = CliRunner().invoke(main, ["compare", *files, "--score", "success"])
    assert result.exit_code == 2
    assert ("no item id is in both runs, but 'testIdx', 'vars.q' hold the same distinct "
            "values in both files: pair on --id testIdx?") in result.output
    paired = CliRunner().invoke(main, ["compare", *files, "--score", "success", "--id",
                                       "testIdx", "--format", "json"])
    assert paired.exit_code == 0, paired.output
    table = json.loads(paired.output)["table"]
    assert (table["a"], table["b"], table["c"], table["d"]) == (3, 1, 2, 0)


def test_no_hint_when_no_field_agrees(tmp_path: Path) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("id,score,n\nx,1,1\ny,0,2\n")
    b.write_text("id,score,n\nz,1,3\nw,0,4\n")
    result = CliRunner().invoke(main, ["compare", str(a), str(b)])
    assert result.exit_code == 2 and "not in" in result.output
    assert "pair on" not in result.output
