"""Paired tables from data frames (mcnemar.io.frames) in the frame's own engine.

Each backend's counts are checked against a numpy truth computed from the same outcome
vectors, and against :func:`mcnemar.io.align` on random data (hypothesis).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcnemar.errors import AlignmentError, McNemarError
from mcnemar.io import RunResults, align
from mcnemar.io.frames import table_from_frames, table_from_long_frame
from mcnemar.table import PairedTable

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")
duckdb = pytest.importorskip("duckdb")


_CON = duckdb.connect()  # relations to be joined must share a connection


def _duckdb(df: Any) -> Any:
    return _CON.from_arrow(pa.Table.from_pandas(df, preserve_index=False))


BACKENDS: dict[str, Callable[[Any], Any]] = {
    "pandas": lambda df: df,
    "polars": pl.from_pandas,
    "polars-lazy": lambda df: pl.from_pandas(df).lazy(),
    "pyarrow": lambda df: pa.Table.from_pandas(df, preserve_index=False),
    "duckdb": _duckdb,
}


def truth(ca: np.ndarray, cb: np.ndarray) -> tuple[int, int, int, int]:
    return (int((ca & cb).sum()), int((ca & ~cb).sum()), int((~ca & cb).sum()),
            int((~ca & ~cb).sum()))


@pytest.fixture(scope="module")
def runs() -> tuple[Any, Any, tuple[int, int, int, int]]:
    rng = np.random.default_rng(20260101)
    n = 2000
    ids = np.array([f"item-{i}" for i in range(n)])
    ca, cb = rng.random(n) < 0.7, rng.random(n) < 0.6
    perm = rng.permutation(n)
    a = pd.DataFrame({"id": ids, "ok": ca})
    b = pd.DataFrame({"id": ids[perm], "ok": cb[perm].astype(np.int64)})
    return a, b, truth(ca, cb)


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_every_backend_counts_the_numpy_truth(backend: str, runs: Any) -> None:
    a, b, expected = runs
    convert = BACKENDS[backend]
    table, summary = table_from_frames(convert(a), convert(b), id="id", score="ok")
    assert isinstance(table, PairedTable)
    assert (table.a, table.b, table.c, table.d) == expected
    assert summary.matched == 2000 and summary.dropped == 0


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_problems_are_found_in_every_backend(backend: str) -> None:
    convert = BACKENDS[backend]
    a = pd.DataFrame({"id": ["x", "y", "z"], "s": [1.0, 0.0, 1.0]})
    b = pd.DataFrame({"id": ["x", "y", "y", "w"], "s": [1.0, 1.0, 0.0, 0.5]})
    with pytest.raises(AlignmentError) as info:
        table_from_frames(convert(a), convert(b), id="id", score="s")
    message = str(info.value)
    assert "1 duplicated item key ('y' x2)" in message
    assert "1 item not in" in message and "'w'" in message and "'z'" in message
    assert "1 score is not 0/1 (e.g. items 'w')" in message
    ok_b = pd.DataFrame({"id": ["x", "y", "w"], "s": [1.0, 1.0, 0.5]})
    table, summary = table_from_frames(convert(a), convert(ok_b), id="id", score="s",
                                       on_missing="intersect", threshold=0.5)
    assert (table.a, table.b, table.c, table.d) == (1, 0, 1, 0)
    assert summary.run_a.only_here == 1 and summary.run_b.only_here == 1
    assert summary.run_b.binarised == 1


def test_frames_from_different_engines_are_refused(runs: Any) -> None:
    a, b, _ = runs
    with pytest.raises(McNemarError, match="same engine"):
        table_from_frames(a, pl.from_pandas(b), id="id", score="ok")


def test_duckdb_relations_of_two_connections_are_explained() -> None:
    a = duckdb.connect().sql("SELECT 'x' AS id, 1 AS s")
    b = duckdb.connect().sql("SELECT 'x' AS id, 1 AS s")
    with pytest.raises(McNemarError, match="different DuckDB connections"):
        table_from_frames(a, b, id="id", score="s")


def test_missing_column_and_unsupported_object() -> None:
    a = pd.DataFrame({"id": [1], "s": [1]})
    with pytest.raises(McNemarError, match="score column 'ok' not found; the columns are 'id'"):
        table_from_frames(a, a, id="id", score="ok")
    with pytest.raises(McNemarError, match="not a supported data frame"):
        table_from_frames([1, 2], a, id="id", score="s")


def test_long_frame_and_classmethods(runs: Any) -> None:
    a, b, expected = runs
    long = pd.concat([a.assign(model="new", ok=a.ok.astype(np.int64)), b.assign(model="old")])
    table, summary = table_from_long_frame(pl.from_pandas(long), id="id", run="model",
                                           score="ok")
    assert (table.a, table.b, table.c, table.d) == expected
    assert (summary.run_a.name, summary.run_b.name) == ("new", "old")
    swapped, _ = table_from_long_frame(long, id="id", run="model", score="ok",
                                       runs=("old", "new"))
    assert (swapped.b, swapped.c) == (expected[2], expected[1])
    assert PairedTable.from_frame(a, b, id="id", score="ok") == table
    assert PairedTable.from_long_frame(long, id="id", run="model", score="ok") == table
    three = pd.concat([long, long.assign(model="third")])
    with pytest.raises(McNemarError, match="holds 3 runs"):
        table_from_long_frame(three, id="id", run="model", score="ok")


def test_samples_and_reduce_in_the_engine() -> None:
    # item x: samples 1, 1, 0 ; item y: 0, 1 ; B one sample per item.
    a = pd.DataFrame({"id": ["x", "x", "x", "y", "y"], "e": [0, 1, 2, 0, 1],
                      "s": [1.0, 1.0, 0.0, 0.0, 1.0]})
    b = pd.DataFrame({"id": ["x", "y"], "e": [0, 0], "s": [0.0, 1.0]})
    for convert in (BACKENDS["pandas"], BACKENDS["duckdb"], BACKENDS["polars-lazy"]):
        with pytest.raises(AlignmentError, match="2 items have several samples"):
            table_from_frames(convert(a), convert(b), id="id", score="s", sample="e")
        first, _ = table_from_frames(convert(a), convert(b), id="id", score="s", sample="e",
                                      reduce="first")
        assert (first.a, first.b, first.c, first.d) == (0, 1, 1, 0)
        majority, s2 = table_from_frames(convert(a), convert(b), id="id", score="s",
                                         sample="e", reduce="majority")
        assert (majority.a, majority.b, majority.c, majority.d) == (0, 1, 1, 0)
        assert s2.run_a.ties == 1 and s2.run_a.reduced == 2
        mean, _ = table_from_frames(convert(a), convert(b), id="id", score="s", sample="e",
                                    reduce="mean", threshold=0.5)
        assert (mean.a, mean.b, mean.c, mean.d) == (1, 1, 0, 0)


_data = st.lists(st.tuples(st.sampled_from("abcdefg"), st.sampled_from([0.0, 1.0, 0.5])),
                 min_size=1, max_size=12)


@settings(max_examples=25, deadline=None)
@given(rows_a=_data, rows_b=_data, intersect=st.booleans(),
       threshold=st.sampled_from([None, 0.5]))
def test_frames_agree_with_align(rows_a: list[tuple[str, float]], rows_b: list[tuple[str, float]],
                                 intersect: bool, threshold: float | None) -> None:
    frames = [pd.DataFrame({"id": [k for k, _ in r], "s": [s for _, s in r]})
              for r in (rows_a, rows_b)]
    runs = [RunResults(name=n, path=n, format="frame", records=len(r),
                       keys=np.array([k for k, _ in r], dtype=object),
                       scores=np.array([s for _, s in r]))
            for n, r in (("A", rows_a), ("B", rows_b))]
    on_missing = "intersect" if intersect else "error"
    try:
        expected: Any = align(*runs, on_missing=on_missing, threshold=threshold).counts
    except AlignmentError as exc:
        expected = ("error", "duplicated" in str(exc))
    for backend in ("pandas", "duckdb"):
        convert = BACKENDS[backend]
        try:
            t, _ = table_from_frames(convert(frames[0]), convert(frames[1]), id="id",
                                     score="s", on_missing=on_missing, threshold=threshold)
            got: Any = (t.a, t.b, t.c, t.d)
        except AlignmentError as exc:
            got = ("error", "duplicated" in str(exc))
        assert got == expected


@pytest.mark.parametrize("backend", ["pandas", "duckdb", "polars"])
def test_records_without_an_id_are_reported(backend: str) -> None:
    convert = BACKENDS[backend]
    a = pd.DataFrame({"id": ["x", None, "z"], "s": [1.0, 0.0, 1.0]})
    b = pd.DataFrame({"id": ["x", "z"], "s": [1.0, 1.0]})
    with pytest.raises(AlignmentError, match="1 record has no item id"):
        table_from_frames(convert(a), convert(b), id="id", score="s", on_missing="intersect")


def test_frames_without_common_items() -> None:
    a = pd.DataFrame({"id": ["x"], "s": [1]})
    b = pd.DataFrame({"id": ["y"], "s": [1]})
    with pytest.raises(AlignmentError, match="share no scored item in common"):
        table_from_frames(a, b, id="id", score="s", on_missing="intersect")


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_non_binary_scores_ask_for_a_threshold_with_an_example(backend: str) -> None:
    # An id column of integers: after the outer join some engines hold it as floats.
    convert = BACKENDS[backend]
    a = pd.DataFrame({"id": [1, 2, 8, 11], "s": [1.0, 0.0, 0.7, 0.2]})
    b = pd.DataFrame({"id": [1, 2, 8, 11, 12], "s": [1.0, 1.0, 1.0, 0.0, 1.0]})
    with pytest.raises(AlignmentError) as info:
        table_from_frames(convert(a), convert(b), id="id", score="s")
    message = str(info.value)
    assert "2 scores are not 0/1 (e.g. items 8, 11)" in message
    assert "1 item not in" in message and "(e.g. 12)" in message
    assert "8.0" not in message and "12.0" not in message
    # Only the item in one run is what on_missing drops: with it the scores still need T.
    with pytest.raises(AlignmentError) as intersected:
        table_from_frames(convert(a), convert(b), id="id", score="s", on_missing="intersect")
    text = str(intersected.value)
    assert "not 0/1" in text and "without a score" not in text
