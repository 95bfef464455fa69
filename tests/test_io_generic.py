"""Generic CSV / JSONL / Parquet readers (mcnemar.io.generic) and format detection.

Fixtures: tests/data/io/generic (written by tests/data/io/make_fixtures.py): six items q0..q5,
A passes q0-q3 and B passes q0, q1, q4, so the paired table is a=2, b=2, c=1, d=1.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcnemar.errors import InputFileError, McNemarError
from mcnemar.io import align, detect_format, read_long, read_run
from mcnemar.io import generic as generic_module
from mcnemar.io._progress import progress_bar

DATA = Path(__file__).parent / "data" / "io"
GENERIC = DATA / "generic"


def test_csv_columns_are_detected_and_ids_kept_as_text() -> None:
    run = read_run(GENERIC / "a.csv")
    assert run.format == "csv"
    assert run.key_names == ("id",) and run.score_name == "score"
    assert run.keys.tolist() == [f"q{i}" for i in range(6)]
    assert run.scores.tolist() == [1, 1, 1, 1, 0, 0]
    assert run.records == 6 and not run.deferred


def test_csv_true_false_words_and_jsonl_booleans_are_scores() -> None:
    b_csv = read_run(GENERIC / "b.csv")
    b_jsonl = read_run(GENERIC / "b.jsonl")
    assert b_csv.scores.tolist() == b_jsonl.scores.tolist() == [0, 0, 1, 1, 1, 0]
    assert b_jsonl.key_names == ("item_id",) and b_jsonl.score_name == "correct"


@pytest.mark.parametrize("ext", ["csv", "jsonl"])
def test_fixture_pair_gives_the_hand_counted_table(ext: str) -> None:
    al = align(read_run(GENERIC / f"a.{ext}"), read_run(GENERIC / f"b.{ext}"))
    assert al.counts == (2, 2, 1, 1)
    assert al.keys.tolist() == [f"q{i}" for i in range(6)]  # run A's order
    assert al.correct_b.tolist() == [1, 1, 0, 0, 1, 0]


def test_numeric_ids_in_jsonl_equal_text_ids_in_csv(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text('{"id": 1, "score": 1}\n{"id": 2, "score": 0}\n')
    (tmp_path / "b.csv").write_text("id,score\n2,1\n1,1\n")
    al = align(read_run(tmp_path / "a.jsonl"), read_run(tmp_path / "b.csv"))
    assert al.counts == (1, 0, 1, 0)


def test_composite_id_and_explicit_columns(tmp_path: Path) -> None:
    (tmp_path / "r.csv").write_text("task,n,ok,other\nx,1,1,5\nx,2,0,5\ny,1,1,5\n")
    run = read_run(tmp_path / "r.csv", id=["task", "n"], score="ok")
    assert run.keys.tolist() == [("x", "1"), ("x", "2"), ("y", "1")]
    assert run.key_names == ("task", "n")


def test_long_file_with_run_column() -> None:
    runs = read_long(GENERIC / "long.csv", format="csv", run_column="model")
    assert [r.name for r in runs] == ["new", "old"]
    assert align(*runs).counts == (2, 2, 1, 1)
    old_first = read_long(GENERIC / "long.csv", format="csv", run_column="model",
                          runs=["old", "new"])
    assert align(*old_first).counts == (2, 1, 2, 1)


def test_long_file_unknown_run_is_named() -> None:
    with pytest.raises(InputFileError, match=r"'nope'.*the runs are 'new', 'old'"):
        read_long(GENERIC / "long.csv", format="csv", run_column="model", runs=["nope", "old"])


def test_tsv_and_semicolon_delimiters(tmp_path: Path) -> None:
    (tmp_path / "r.tsv").write_text("id\tscore\nq1\t1\n")
    (tmp_path / "r2.csv").write_text("id;score\nq1;0\n")
    assert read_run(tmp_path / "r.tsv").scores.tolist() == [1.0]
    assert read_run(tmp_path / "r2.csv").scores.tolist() == [0.0]


def test_empty_cell_is_a_missing_score(tmp_path: Path) -> None:
    (tmp_path / "r.csv").write_text("id,score\nq1,\nq2,1\n")
    scores = read_run(tmp_path / "r.csv").scores
    assert np.isnan(scores[0]) and scores[1] == 1


@pytest.mark.parametrize(
    ("name", "content", "pattern", "line"),
    [
        ("short.csv", "id,score\nq1,1\nq2\n", "1 fields where the header has 2", 3),
        ("text.csv", "id,score\nq1,1\nq2,maybe\n", "'maybe' is not a number", 3),
        ("noid.csv", "name,score\nq1,1\n", "no id column found.*'name', 'score'", None),
        ("trunc.jsonl", '{"id": "q1", "score": 1}\n{"id": "q2", "sco', "not valid JSON", 2),
        ("list.jsonl", '{"id": "q1", "score": 1}\n[1, 2]\n', "expected a JSON object", 2),
        ("idlist.jsonl", '{"id": ["q1"], "score": 1}\n', "no usable id", 1),
        ("score.jsonl", '{"id": "q1", "score": [1]}\n', "not a number", 1),
    ],
)
def test_malformed_generic_files_name_file_and_line(
    tmp_path: Path, name: str, content: str, pattern: str, line: int | None
) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InputFileError, match=pattern) as info:
        read_run(path)
    assert info.value.path == str(path)
    assert info.value.line == line
    assert str(path) in str(info.value)


def test_missing_column_lists_the_columns() -> None:
    with pytest.raises(InputFileError, match=r"score column 'nope' not found.*'id', 'score'"):
        read_run(GENERIC / "a.csv", score="nope")


def test_option_of_another_format_is_refused() -> None:
    with pytest.raises(McNemarError, match="filter do not apply to csv"):
        read_run(GENERIC / "a.csv", filter="none")


def test_missing_file() -> None:
    with pytest.raises(InputFileError, match="no such file"):
        read_run(GENERIC / "nope.csv")


# --- the DuckDB path ----------------------------------------------------------------------


@pytest.mark.parametrize("ext", ["csv", "jsonl"])
def test_duckdb_path_equals_python_path(ext: str) -> None:
    python_a, python_b = read_run(GENERIC / f"a.{ext}"), read_run(GENERIC / f"b.{ext}")
    engine_a = read_run(GENERIC / f"a.{ext}", engine="duckdb")
    engine_b = read_run(GENERIC / f"b.{ext}", engine="duckdb")
    assert engine_a.deferred and engine_a.records is None
    loaded = engine_a.load()
    assert loaded.keys.tolist() == python_a.keys.tolist()
    assert loaded.scores.tolist() == python_a.scores.tolist()
    in_engine = align(engine_a, engine_b)
    assert in_engine.summary.engine == "duckdb" and in_engine.keys is None
    assert in_engine.counts == align(python_a, python_b).counts == (2, 2, 1, 1)
    assert in_engine.summary.run_a.records == 6


def test_large_files_are_deferred_automatically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                ) -> None:
    pytest.importorskip("duckdb")  # a large file is deferred to DuckDB only when it is installed
    path = tmp_path / "big.jsonl"
    path.write_text("".join(json.dumps({"id": i, "score": i % 2}) + "\n" for i in range(50)))
    assert not read_run(path).deferred
    monkeypatch.setattr(generic_module, "LARGE_LINES", 10)
    assert read_run(path).deferred
    assert read_run(path, engine="python").deferred is False


def test_parquet_is_read_through_duckdb_and_directories_are_datasets(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    (tmp_path / "ds").mkdir()
    pd.DataFrame({"id": ["q0", "q1", "q2"], "score": [1, 0, 1]}).to_parquet(
        tmp_path / "ds" / "part-0.parquet")
    pd.DataFrame({"id": ["q3", "q4", "q5"], "score": [1, 0, 0]}).to_parquet(
        tmp_path / "ds" / "part-1.parquet")
    pd.DataFrame({"id": [f"q{i}" for i in range(6)],
                  "score": [True, True, False, False, True, False]}).to_parquet(
        tmp_path / "b.parquet")
    run_a, run_b = read_run(tmp_path / "ds"), read_run(tmp_path / "b.parquet")
    assert detect_format(tmp_path / "ds") == detect_format(tmp_path / "b.parquet") == "parquet"
    assert run_a.deferred and run_a.records == 6  # counted from the Parquet footers
    assert align(run_a, run_b).counts == (1, 2, 2, 1)
    assert align(run_a.load(), run_b.load()).counts == (1, 2, 2, 1)


def test_malformed_large_jsonl_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": 1, "score": 1}\n{"id": 2, "score": 0}\n{"id": 3, "sco')
    good = tmp_path / "good.jsonl"
    good.write_text('{"id": 1, "score": 1}\n')
    with pytest.raises(InputFileError, match="not valid JSON") as info:
        align(read_run(path, engine="duckdb"), read_run(good, engine="duckdb"))
    assert info.value.line == 3


@pytest.mark.parametrize(
    ("first", "pattern"),
    [('{"id": 1, "sco', "line is not valid JSON .*one complete JSON object per line"),
     ("[1, 2]", r"expected a JSON object \(one record per line\), found list")],
)
def test_deferred_jsonl_first_line_is_refused_as_the_python_reader_refuses_it(
    tmp_path: Path, first: str, pattern: str
) -> None:
    # The engine path reads the first record for the column names through the same record
    # iterator as the Python path, so both say the same thing about the same line.
    path = tmp_path / "bad.jsonl"
    path.write_text(first + '\n{"id": 2, "score": 0}\n')
    for engine in ("duckdb", "python"):
        with pytest.raises(InputFileError, match=pattern) as info:
            read_run(path, format="jsonl", engine=engine)
        assert info.value.line == 1 and info.value.path == str(path)


def test_long_file_unknown_run_column_lists_the_columns(tmp_path: Path) -> None:
    pattern = r"run column 'who' not found; the columns are 'model', 'question_id'"
    for engine in ("python", "duckdb"):
        with pytest.raises(InputFileError, match=pattern):
            read_long(GENERIC / "long.csv", format="csv", run_column="who", engine=engine)


def test_duckdb_reports_text_scores_as_not_numbers(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("id,score\nq0,1\nq1,maybe\n")
    other = tmp_path / "o.csv"
    other.write_text("id,score\nq0,1\nq1,1\n")
    with pytest.raises(InputFileError,
                       match=r"1 score is not a number \(NaN or text; e\.g\. items .q1.\)"):
        align(read_run(path, engine="duckdb"), read_run(other, engine="duckdb"))
    with pytest.raises(InputFileError, match="not a number"):
        read_run(path, engine="duckdb").load()


_rows = st.lists(
    st.tuples(st.sampled_from([f"q{i}" for i in range(12)]),
              st.sampled_from(["0", "1", "true", "false", "", "0.5", "1.0"])),
    min_size=1, max_size=20,
)


@settings(max_examples=20, deadline=None)  # each example opens DuckDB twice
@given(rows_a=_rows, rows_b=_rows, intersect=st.booleans(), threshold=st.sampled_from([None, 0.5]))
def test_duckdb_and_numpy_alignment_agree(tmp_path_factory: pytest.TempPathFactory,
                                         rows_a: list[tuple[str, str]],
                                         rows_b: list[tuple[str, str]], intersect: bool,
                                         threshold: float | None) -> None:
    """Same counts and summary, or errors with the same problems, on random small files."""
    d = tmp_path_factory.mktemp("prop")
    for name, rows in (("a", rows_a), ("b", rows_b)):
        (d / f"{name}.csv").write_text("id,score\n" + "".join(f"{k},{s}\n" for k, s in rows))
    on_missing = "intersect" if intersect else "error"
    outcomes = []
    for engine in ("python", "duckdb"):
        ra = read_run(d / "a.csv", engine=engine)
        rb = read_run(d / "b.csv", engine=engine)
        try:
            al = align(ra, rb, on_missing=on_missing, threshold=threshold)
        except InputFileError as exc:
            message = str(exc)
            kinds = tuple(k for k in ("duplicated", "not in", "not 0/1", "no score")
                          if k in message)
            outcomes.append(("error", kinds))
        else:
            s = al.summary
            outcomes.append(("ok", al.counts, s.matched, s.dropped, s.run_a.only_here,
                             s.run_b.only_here, s.dropped_no_score,
                             s.run_a.binarised + s.run_b.binarised))
    if outcomes[0][0] == "error" and "duplicated" in outcomes[0][1]:
        # Once a key is duplicated the other counts are not defined; both must say so.
        assert outcomes[1][0] == "error" and "duplicated" in outcomes[1][1]
    else:
        assert outcomes[0] == outcomes[1]


def test_progress_bar_goes_to_stderr_only(capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("tqdm")
    from mcnemar.io import _progress

    monkeypatch.setattr(_progress, "DELAY", 0.0)
    with progress_bar("reading", 100, enabled=True) as bar:
        bar.update(100)
    out, err = capsys.readouterr()
    assert out == ""
    assert "reading" in err
    with progress_bar("quiet", 100, enabled=False) as bar:
        bar.update(100)
    assert capsys.readouterr() == ("", "")


def test_activity_shows_elapsed_time_on_stderr_only(capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("tqdm")
    import time

    from mcnemar.io import _progress

    monkeypatch.setattr(_progress, "DELAY", 0.0)
    with _progress.activity("aligning", enabled=True):
        time.sleep(0.3)  # at least one tick of the elapsed-time thread
    out, err = capsys.readouterr()
    assert out == "" and "aligning: 00:00" in err
    with _progress.activity("quiet", enabled=False):
        pass
    assert capsys.readouterr() == ("", "")


def test_long_file_through_duckdb() -> None:
    runs = read_long(GENERIC / "long.csv", format="csv", run_column="model", engine="duckdb")
    assert [r.name for r in runs] == ["new", "old"] and all(r.deferred for r in runs)
    al = align(*runs)
    assert al.counts == (2, 2, 1, 1) and al.summary.engine == "duckdb"


def test_parquet_integer_ids_join_natively_and_agree_with_text_ids(tmp_path) -> None:
    # Integer ids on both sides are joined as integers (faster); ids given as text on one side
    # are still compared as text. Both give the table counted directly with numpy.
    import pyarrow as pa
    import pyarrow.parquet as pq

    from mcnemar.io import align, read_run

    rng = np.random.default_rng(8)
    n = 5000
    ids = np.arange(n)
    sa = (rng.random(n) < 0.7).astype(np.int8)
    sb = (rng.random(n) < 0.6).astype(np.int8)
    perm = rng.permutation(n)
    pq.write_table(pa.table({"item": ids, "ok": sa}), tmp_path / "a.parquet")
    pq.write_table(pa.table({"item": ids[perm], "ok": sb[perm]}), tmp_path / "b.parquet")
    pq.write_table(pa.table({"item": ids[perm].astype(str), "ok": sb[perm]}),
                   tmp_path / "b_text.parquet")
    want = (int(np.sum((sa == 1) & (sb == 1))), int(np.sum((sa == 1) & (sb == 0))),
            int(np.sum((sa == 0) & (sb == 1))), int(np.sum((sa == 0) & (sb == 0))))
    run_a = read_run(tmp_path / "a.parquet", id="item", score="ok")
    run_b = read_run(tmp_path / "b.parquet", id="item", score="ok")
    assert run_a.source is not None and run_a.source.native_sql is not None
    assert align(run_a, run_b).counts == want
    run_text = read_run(tmp_path / "b_text.parquet", id="item", score="ok")
    assert run_text.source is not None and run_text.source.native_sql is None
    assert align(run_a, run_text).counts == want


def test_unreadable_parquet_is_an_input_error_for_every_parquet_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without DuckDB the generic reader, the labels of predictions and the matrix reader all
    # read Parquet through pyarrow; a damaged file is an InputFileError naming it, never
    # pyarrow's own exception.
    pytest.importorskip("pyarrow")
    from mcnemar.io import read_matrix
    from mcnemar.io.predictions import read_labels

    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1" + b"\x00" * 64 + b"PAR1")
    monkeypatch.setattr(generic_module, "_duckdb_available", lambda: False)
    readers = [lambda: read_run(bad, format="parquet"), lambda: read_labels(bad),
               lambda: read_matrix(bad, format="parquet")]
    for read in readers:
        with pytest.raises(InputFileError, match=r"cannot read Parquet") as info:
            read()
        assert info.value.path == str(bad)


def test_a_named_column_that_is_not_there_is_refused_alike_on_every_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Python (CSV), DuckDB (Parquet) and pyarrow (Parquet without DuckDB) check the columns
    # with one helper, so the cluster column is named the same way on all three.
    pytest.importorskip("pyarrow")
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "r.csv").write_text("id,score\nq1,1\n")
    pq.write_table(pa.table({"id": ["q1"], "score": [1]}), tmp_path / "r.parquet")
    pattern = r"cluster column 'doc' not found; the columns are 'id', 'score'"
    with pytest.raises(InputFileError, match=pattern):
        read_run(tmp_path / "r.csv", cluster="doc")
    if generic_module._duckdb_available():
        with pytest.raises(InputFileError, match=pattern):
            read_run(tmp_path / "r.parquet", cluster="doc")
    monkeypatch.setattr(generic_module, "_duckdb_available", lambda: False)
    with pytest.raises(InputFileError, match=pattern):
        read_run(tmp_path / "r.parquet", cluster="doc")


def test_task_column_leads_the_key_alike_on_every_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The same id in two tasks is two items: the task column leads the key, (task, id), with
    # the id column detected or chosen; the three reading paths agree, and a task column that
    # is not there names the option.
    pytest.importorskip("pyarrow")
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "r.csv").write_text("subject,id,score\nx,q1,1\nx,q2,0\ny,q1,1\n")
    pq.write_table(pa.table({"subject": ["x", "x", "y"], "id": ["q1", "q2", "q1"],
                             "score": [1, 0, 1]}), tmp_path / "r.parquet")
    want = [("x", "q1"), ("x", "q2"), ("y", "q1")]

    def read(name: str, **options: object) -> list[object]:
        run = read_run(tmp_path / name, **options).load()
        assert run.key_names == ("subject", "id") and run.scores.tolist() == [1.0, 0.0, 1.0]
        return sorted(run.keys.tolist())

    assert read("r.csv", task_column="subject") == want
    assert read("r.csv", task_column="subject", id=["subject", "id"]) == want
    paths = ["r.csv"]
    if generic_module._duckdb_available():
        assert read("r.parquet", task_column="subject") == want
        assert read("r.csv", task_column="subject", engine="duckdb") == want
        paths.append("r.parquet")
    for name in paths:
        with pytest.raises(InputFileError, match="task_column='topic': no such column; the "
                           "columns are 'subject', 'id', 'score'") as err:
            read_run(tmp_path / name, task_column="topic")
        assert err.value.argument == "task_column"
    monkeypatch.setattr(generic_module, "_duckdb_available", lambda: False)
    assert read("r.parquet", task_column="subject") == want
    with pytest.raises(McNemarError, match="do not apply to lm-eval files"):
        read_run(DATA / "real" / "lmeval" / "a", task_column="subject")
