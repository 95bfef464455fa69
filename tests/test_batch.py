"""analyze_many: the reports of many tables, each equal to analyze() of that table alone.

The reference for every number of a batch is :func:`mcnemar.analyze` run on the table alone
(itself checked against published values and mpmath in test_report*.py); the batch must agree
with it exactly (``to_dict()``, text and markdown equal), whatever the other tables are.
"""

from __future__ import annotations

import builtins
import json
import math
from html.parser import HTMLParser
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcnemar import BatchReport, McNemarError, PairedTable, TableError, analyze, analyze_many
from mcnemar import clustered as clustered_test

BIG = 2**52


@st.composite
def table_cells(draw: Any, with_n: bool = True) -> tuple[int, int, int, int] | tuple[int, int]:
    kind = draw(st.sampled_from(["small", "tie", "no-discordance", "small-d", "huge", "big-d"]))
    small = st.integers(0, 300)
    if kind == "small":
        a, b, c, d = (draw(small) for _ in range(4))
    elif kind == "tie":
        b = draw(st.integers(0, 5000))
        a, c, d = draw(small), b, draw(small)
    elif kind == "no-discordance":
        a, b, c, d = draw(st.integers(0, BIG)), 0, 0, draw(small)
    elif kind == "small-d":
        a, b, c, d = draw(st.integers(0, BIG // 2)), draw(st.integers(0, 12)), draw(
            st.integers(0, 12)
        ), draw(st.integers(0, BIG // 2))
    elif kind == "huge":
        # up to 2**52 items in all (beyond it PairedTable refuses the counts)
        a, b, c, d = (draw(st.integers(0, BIG // 4)) for _ in range(4))
    else:  # past the exact power's limit of a million discordant items: Connor's approximation
        b = draw(st.integers(600_000, 3_000_000))
        a, c, d = draw(small), b + draw(st.integers(-5000, 5000)), draw(small)
    return (a, b, c, d) if with_n else (b, c)


options = st.fixed_dictionaries(
    {
        "alternative": st.sampled_from(["two-sided", "greater", "less"]),
        "confidence_level": st.sampled_from([0.95, 0.9, 0.99, 0.8]),
        "alpha": st.sampled_from([0.05, 0.01, 0.1, 0.6]),
        "power": st.sampled_from([0.8, 0.9]),
    }
)


def _table(cells: tuple[int, ...]) -> PairedTable:
    return PairedTable(*cells) if len(cells) == 4 else PairedTable(b=cells[0], c=cells[1])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.one_of(table_cells(), table_cells(with_n=False)), min_size=1, max_size=5
    ),
    options,
)
def test_each_report_equals_analyze_of_its_table(cells: list[tuple[int, ...]], kw: dict) -> None:
    tables = [_table(x) for x in cells]
    batch = analyze_many(tables, systems=("cand", "base"), **kw)
    assert len(batch) == len(tables)
    for i, table in enumerate(tables):
        alone = analyze(table, names=("cand", "base"), **kw)
        got = batch[i]
        assert got.to_dict() == alone.to_dict()
        assert str(got) == str(alone)
        assert got.to_markdown() == alone.to_markdown()
        assert repr(got) == repr(alone)
    json.dumps(batch.to_dict(), allow_nan=False)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(table_cells(), min_size=1, max_size=6), options)
def test_every_input_form_gives_the_same_batch(cells: list[tuple[int, ...]], kw: dict) -> None:
    arr = np.array(cells, dtype=np.int64)
    forms = [
        arr,
        arr.reshape(-1, 2, 2),
        [list(x) for x in cells],
        [PairedTable(*x) for x in cells],
        PairedTable(a=arr[:, 0], b=arr[:, 1], c=arr[:, 2], d=arr[:, 3]),
    ]
    first = analyze_many(forms[0], **kw).to_dict()
    for form in forms[1:]:
        assert analyze_many(form, **kw).to_dict() == first
    # The batch's columns are those of the reports.
    batch = analyze_many(arr, **kw)
    summary = batch.summary()
    for i, rep in enumerate(batch):
        assert summary["verdict"][i] == rep.conclusion.headline
        assert summary["pvalue"][i] == rep.pvalue
        assert summary["test"][i] == rep.recommended
        assert bool(summary["significant"][i]) == rep.conclusion.significant
        better = {"a": rep.names[0], "b": rep.names[1], None: None}[rep.conclusion.better]
        assert summary["better"][i] == better
        if rep.difference is not None:
            ci = rep.difference_intervals["newcombe"]
            assert (summary["low"][i], summary["high"][i]) == (ci.low, ci.high)
        det = rep.detectable_difference
        assert (det is None and math.isnan(summary["detectable_difference"][i])) or (
            summary["detectable_difference"][i] == det
        )


def test_a_table_gives_the_same_numbers_whatever_its_neighbours() -> None:
    # The exact (Fay-Lumbard) interval and the exact power are computed for all tables at
    # once; the last digits of one table's numbers must not depend on the others.
    rng = np.random.default_rng(7)
    cells = np.column_stack(
        [rng.integers(0, 400, 40), rng.integers(0, 60, 40), rng.integers(0, 60, 40),
         rng.integers(0, 100, 40)]
    )
    batch = analyze_many(cells, alternative="greater")
    for i in (0, 13, 39):
        alone = analyze(PairedTable(*cells[i]), alternative="greater")
        assert batch[i].to_dict() == alone.to_dict()


def test_margin_and_equivalence_in_a_batch() -> None:
    cells = [[1800, 52, 47, 101], [900, 10, 30, 60], [50, 0, 0, 50]]
    batch = analyze_many(cells, margin=0.01, equivalence=True, names=["x", "y", "z"])
    for i, row in enumerate(cells):
        alone = analyze(PairedTable(*row), margin=0.01, equivalence=True)
        assert batch[i].to_dict() == alone.to_dict()
        assert str(batch[i]) == str(alone)
    summary = batch.summary()
    assert summary["noninferior"].tolist() == [
        bool(analyze(PairedTable(*r), margin=0.01).noninferiority.noninferior) for r in cells
    ]
    with pytest.raises(McNemarError, match=r"a and d|N"):
        analyze_many([PairedTable(b=3, c=4)], margin=0.01)


def test_names_label_the_tables() -> None:
    batch = analyze_many([[157, 17, 3, 23], [72, 6, 14, 8]], names=["math", "law"],
                         systems=("new", "old"))
    assert batch.labels == ("math", "law")
    assert batch[0].names == ("new", "old")
    assert batch.to_dict()["tables"] == ["math", "law"]
    assert batch.to_dict()["names"] == {"a": "new", "b": "old"}
    assert analyze_many([[1, 2, 3, 4]] * 3).labels == ("1", "2", "3")
    # indexing like a sequence
    assert batch[-1].to_dict() == batch[1].to_dict()
    assert [r.table for r in batch[0:2]] == [batch[0].table, batch[1].table]
    with pytest.raises(IndexError):
        batch[2]
    assert isinstance(batch, BatchReport) and len(repr(batch)) < 120


# -- frames --------------------------------------------------------------------------------------
CELLS = [[157, 17, 3, 23], [72, 6, 14, 8], [90, 0, 0, 10]]


def test_to_frame_with_pandas() -> None:
    pd = pytest.importorskip("pandas")
    batch = analyze_many(CELLS, names=["a", "b", "c"])
    frame = batch.to_frame()
    assert isinstance(frame, pd.DataFrame)
    assert list(frame["name"]) == ["a", "b", "c"]
    assert list(frame.columns[:2]) == ["name", "verdict"]
    for i, rep in enumerate(batch):
        assert frame["pvalue"][i] == rep.pvalue
        assert frame["verdict"][i] == rep.conclusion.headline
        assert frame["n"][i] == rep.table.n
    assert math.isnan(frame["odds_ratio"][2])  # no discordant items
    # Unknown N: the counts stay whole numbers, missing where unknown.
    mixed = analyze_many([PairedTable(1, 2, 3, 4), PairedTable(b=5, c=1)]).to_frame()
    assert str(mixed["n"].dtype) == "Int64"
    assert mixed["n"][0] == 10 and mixed["n"].isna().tolist() == [False, True]


def test_to_frame_with_polars_when_pandas_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    pl = pytest.importorskip("polars")
    real_import = builtins.__import__

    def no_pandas(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError("no pandas here")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pandas)
    tables = [PairedTable(*x) for x in CELLS] + [PairedTable(b=4, c=9)]
    batch = analyze_many(tables, names=["a", "b", "c", "d"])
    frame = batch.to_frame()
    assert isinstance(frame, pl.DataFrame)
    assert frame["name"].to_list() == ["a", "b", "c", "d"]
    assert frame["n"].to_list() == [200, 100, 100, None]  # N unknown for the last table
    assert frame["pvalue"].to_list() == [r.pvalue for r in batch]


def test_to_frame_without_any_frame_library(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def none(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.split(".")[0] in ("pandas", "polars"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", none)
    with pytest.raises(McNemarError, match=r"pip install 'mcnemar\[frames\]'"):
        analyze_many(CELLS).to_frame()


# -- rendering -----------------------------------------------------------------------------------
class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        if data.strip():
            self.texts.append(data.strip())


def _parse(markup: str) -> _Text:
    parser = _Text()
    parser.feed(markup)
    parser.close()
    return parser


def test_batch_html_parses_and_puts_the_verdict_first() -> None:
    batch = analyze_many(CELLS, names=["x<y", "law", "z"])
    parsed = _parse(batch._repr_html_())
    assert parsed.tags.count("tr") == 1 + len(CELLS)
    head = parsed.texts[:9]
    assert head[:2] == ["table", "verdict"]
    rows = parsed.texts[9:]
    # each row: the table's name, then its verdict
    assert rows[0] == "x<y" and rows[1] == batch[0].conclusion.headline
    assert "<y" not in batch._repr_html_().replace("&lt;y", "")  # the name is escaped
    many = analyze_many([[5, 3, 1, 2]] * 60)
    assert "10 more" in many._repr_html_() and "10 more" in str(many)
    assert len(many.to_markdown().splitlines()) == 62


def test_report_html_and_markdown() -> None:
    rep = analyze(PairedTable(a=157, b=17, c=3, d=23), names=("cand<b>", "base"))
    parsed = _parse(rep._repr_html_())
    assert parsed.texts[0] == rep.conclusion.headline == "cand<b> did better than base"
    assert parsed.texts[1] == rep.conclusion.text
    assert "<b>did" not in rep._repr_html_()
    assert "table" in parsed.tags and "p = 0.002577" in " ".join(parsed.texts)
    assert rep._repr_markdown_() == rep.to_markdown()
    unknown = _parse(analyze(PairedTable(b=17, c=3))._repr_html_())
    assert unknown.texts[0] == "A did better than B"


def test_batch_markdown_and_text() -> None:
    batch = analyze_many(CELLS, names=["m|x", "law", "z"])
    md = batch.to_markdown()
    lines = md.splitlines()
    assert lines[0].startswith("| table | verdict |")
    assert lines[2].startswith("| m\\|x | A did better than B | 17 | 3 | 200 | +7.0 |")
    assert "| 0 | 0 | 100 | 0.0 |" in lines[4]
    text = str(batch)
    assert text.splitlines()[0] == (
        "McNemar analyses of 3 tables: A vs B, two-sided, alpha = 0.05"
    )
    assert batch._repr_markdown_() == md


# -- errors --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("tables", "match"),
    [
        ([[1, -2, 3, 4]], "b"),
        ([[1, 2.5, 3, 4]], "whole|integer"),
        ([[1, 2, float("nan"), 4]], "c"),
        ([[1, 2, 3]], r"\(n, 4\)"),
        ([], "empty"),
        (np.zeros((0, 4)), "empty"),
        ([[2**53, 0, 0, 0]], "2\\*\\*52|at most"),
        (PairedTable(b=np.ones((2, 2), dtype=int), c=np.ones((2, 2), dtype=int)),
         "one-dimensional"),
        ([PairedTable(b=1, c=2), [1, 2, 3, 4]], "mixes"),
        ("abcd", r"\(n, 4\)"),
    ],
)
def test_bad_tables_are_refused(tables: Any, match: str) -> None:
    with pytest.raises(TableError, match=match):
        analyze_many(tables)


def test_bad_names_and_options_are_refused() -> None:
    with pytest.raises(McNemarError, match="names has 1 entries but there are 2 tables"):
        analyze_many(CELLS[:2], names=["only one"])
    with pytest.raises(McNemarError, match="one per table"):
        analyze_many(CELLS[:2], names="ab")
    with pytest.raises(McNemarError, match="non-empty strings"):
        analyze_many(CELLS[:2], names=["x", 3])
    with pytest.raises(McNemarError, match="confidence_level"):
        analyze_many(CELLS, confidence_level=95)
    with pytest.raises(McNemarError, match="alternative"):
        analyze_many(CELLS, alternative="bigger")
    with pytest.raises(McNemarError, match="names must differ"):
        analyze_many(CELLS, systems=("m", "m"))
    with pytest.raises(McNemarError, match="needs a margin"):
        analyze_many(CELLS, equivalence=True)
    clusters = np.array([[5, 4, 1, 2], [3, 2, 0, 4]])
    for option, value in (
        ("clustered", clustered_test(clusters)),
        ("bayes", True),
        ("alignment", object()),
    ):
        with pytest.raises(McNemarError, match=f"does not take {option}=.*analyze"):
            analyze_many(CELLS, **{option: value})


def test_analyze_points_an_array_of_tables_to_analyze_many() -> None:
    with pytest.raises(TableError, match="analyze_many"):
        analyze(PairedTable(a=[1, 2], b=[3, 4], c=[5, 6], d=[7, 8]))


def test_interval_blocks_are_computed_when_read_and_equal_the_single_reports() -> None:
    """A batch computes an interval method when it is first read (to_frame() reads Newcombe's
    alone), and the methods read later equal those of each table's own report."""
    from mcnemar.intervals import DIFFERENCE_METHODS

    batch = analyze_many(CELLS)
    cols = batch.columns
    batch.to_frame()
    assert set(cols.difference_intervals._done) == {"newcombe"}  # type: ignore[attr-defined]
    assert cols.ratio_intervals._done == {}  # type: ignore[attr-defined]
    assert cols.odds_ratio_intervals._done == {}  # type: ignore[attr-defined]
    assert tuple(cols.difference_intervals) == DIFFERENCE_METHODS
    for i, cells in enumerate(CELLS):
        single = analyze(PairedTable(*cells))
        for method, ci in single.difference_intervals.items():
            low, high = cols.difference_intervals[method]
            assert (low[i], high[i]) == (ci.low, ci.high) or (
                np.isnan(low[i]) and np.isnan(ci.low)), method
        for method, ci in single.odds_ratio_intervals.items():
            low, high = cols.odds_ratio_intervals[method]
            assert (low[i], high[i]) == (ci.low, ci.high), method
    with pytest.raises(KeyError):
        cols.difference_intervals["nope"]
