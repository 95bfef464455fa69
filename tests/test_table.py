"""PairedTable: cells, aliases, constructors and validation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from mcnemar import McNemarError, PairedTable, TableError


def test_cells_and_aliases() -> None:
    t = PairedTable(a=157, b=17, c=3, d=23)
    assert (t.a, t.b, t.c, t.d) == (157, 17, 3, 23)
    assert (t.both, t.only_a, t.only_b, t.neither) == (157, 17, 3, 23)
    assert t.n == 200 and t.discordant == 20
    assert PairedTable(both=157, only_a=17, only_b=3, neither=23) == t
    assert list(t) == [157, 17, 3, 23]
    assert t.to_dict() == {"a": 157, "b": 17, "c": 3, "d": 23, "n": 200, "discordant": 20}


def test_a_and_d_optional() -> None:
    t = PairedTable(b=17, c=3)
    assert t.a is None and t.d is None and t.n is None
    assert t.to_dict()["n"] is None
    assert "not given" in str(t)


def test_error_framing_maps_a_only_errors_to_c() -> None:
    # Tutorial framing: "A-only errors" are items A got wrong and B right (cell c).
    t = PairedTable.from_errors(only_a_wrong=14, only_b_wrong=6, both_wrong=8, both_right=72)
    assert (t.a, t.b, t.c, t.d) == (72, 6, 14, 8)


def test_swap() -> None:
    t = PairedTable(a=1, b=2, c=3, d=4).swap()
    assert (t.a, t.b, t.c, t.d) == (1, 3, 2, 4)


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"b": -1, "c": 3}, "b must be >= 0, got -1"),
        ({"b": 1.5, "c": 3}, "fraction 1.5"),
        ({"b": float("nan"), "c": 3}, "finite"),
        ({"b": float("inf"), "c": 3}, "finite"),
        ({"b": True, "c": 3}, "boolean"),
        ({"b": "7", "c": 3}, "text '7'"),
        ({"c": 3}, "b (only_a) is required"),
        ({"b": 3}, "c (only_b) is required"),
        ({"a": 1, "b": 3, "c": 2}, "a was given without d"),
        ({"b": 1, "only_a": 1, "c": 2}, "given twice"),
        ({"b": [1, 2], "c": [1, 2, 3]}, "do not broadcast"),
        ({"b": [], "c": []}, "empty"),
        ({"b": np.array([True]), "c": 1}, "booleans"),
        ({"b": [1, -2], "c": [0, 0]}, "got -2"),
        ({"b": None, "c": 1}, "required"),
        ({"b": object(), "c": 1}, "must be a count"),
    ],
)
def test_bad_counts(kwargs: dict, fragment: str) -> None:
    with pytest.raises(TableError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        PairedTable(**kwargs)


def test_errors_are_value_errors() -> None:
    with pytest.raises(ValueError):
        PairedTable(b=-1, c=0)
    assert issubclass(TableError, McNemarError)


def test_integral_floats_are_accepted() -> None:
    assert PairedTable(b=17.0, c=3.0).b == 17


def test_immutable() -> None:
    t = PairedTable(b=1, c=2)
    with pytest.raises(AttributeError):
        t.b = 5  # type: ignore[misc]
    arr = PairedTable(b=[1, 2], c=[3, 4])
    with pytest.raises(ValueError):
        arr.b[0] = 9  # type: ignore[index]


def test_array_tables_broadcast() -> None:
    t = PairedTable(a=10, b=[1, 2, 3], c=[3, 2, 1], d=5)
    assert t.shape == (3,)
    np.testing.assert_array_equal(t.n, [19, 19, 19])
    assert t[1] == PairedTable(a=10, b=2, c=2, d=5)


def test_from_outcomes() -> None:
    t = PairedTable.from_outcomes([True, True, False, True, False], [1, 0, 1, 0, 0])
    assert (t.a, t.b, t.c, t.d) == (1, 2, 1, 1)
    t2 = PairedTable.from_outcomes(np.array([1.0, 0.0]), np.array([0.0, 0.0]))
    assert (t2.a, t2.b, t2.c, t2.d) == (0, 1, 0, 1)


@pytest.mark.parametrize(
    ("xa", "xb", "fragment"),
    [
        ([1, 0, 1], [1, 0], "lengths 3 and 2"),
        ([], [], "empty"),
        ([1, float("nan")], [1, 0], "NaN at item 1"),
        ([1, 0.5], [1, 0], "threshold"),
        ([1, 2], [1, 0], "found 2"),
        (["yes", "no"], [1, 0], "0/1"),
        (1, 1, "single value"),
    ],
)
def test_from_outcomes_rejects(xa: object, xb: object, fragment: str) -> None:
    with pytest.raises(TableError, match=fragment):
        PairedTable.from_outcomes(xa, xb)  # type: ignore[arg-type]


def test_from_predictions_multiclass_strings() -> None:
    y = ["cat", "dog", "bird", "dog"]
    a = ["cat", "dog", "dog", "bird"]
    b = ["cat", "cat", "bird", "dog"]
    t = PairedTable.from_predictions(y, a, b)
    assert (t.a, t.b, t.c, t.d) == (1, 1, 2, 0)


def test_from_predictions_labels_check() -> None:
    with pytest.raises(TableError, match="pred_b has 1 label"):
        PairedTable.from_predictions([0, 1], [0, 1], [0, 7], labels=[0, 1])
    with pytest.raises(TableError, match="missing label"):
        PairedTable.from_predictions([0.0, np.nan], [0, 1], [0, 1])
    with pytest.raises(TableError, match="missing label"):
        PairedTable.from_predictions(["a", None], ["a", "b"], ["a", "b"])
    with pytest.raises(TableError, match="y_true has 2, pred_a has 3"):
        PairedTable.from_predictions([0, 1], [0, 1, 1], [0, 1])


@settings(max_examples=60, deadline=None)
@given(
    y=hnp.arrays(np.int64, st.integers(1, 3000), elements=st.integers(0, 4)),
    seed=st.integers(0, 2**32 - 1),
)
def test_from_predictions_matches_brute_force(y: np.ndarray, seed: int) -> None:
    rng = np.random.default_rng(seed)
    pa = np.where(rng.random(y.size) < 0.7, y, rng.integers(0, 5, y.size))
    pb = np.where(rng.random(y.size) < 0.6, y, rng.integers(0, 5, y.size))
    t = PairedTable.from_predictions(y, pa, pb)
    ca, cb = pa == y, pb == y
    assert t.a == int(np.sum(ca & cb)) and t.b == int(np.sum(ca & ~cb))
    assert t.c == int(np.sum(~ca & cb)) and t.d == int(np.sum(~ca & ~cb))
    assert t == PairedTable.from_outcomes(ca, cb)
    # object labels take the generic path and agree
    assert t == PairedTable.from_predictions(y.astype(str), pa.astype(str), pb.astype(str))


def test_from_predictions_crosses_block_boundaries() -> None:
    rng = np.random.default_rng(3)
    n = 3 * (1 << 18) + 17
    y = rng.integers(0, 10, n)
    pa = np.where(rng.random(n) < 0.8, y, 0)
    pb = np.where(rng.random(n) < 0.75, y, 1)
    t = PairedTable.from_predictions(y, pa, pb)
    assert t.n == n
    assert t.a == int(np.sum((pa == y) & (pb == y)))


@pytest.mark.parametrize(
    "value", [2**52 + 1, np.int64(2**60), np.uint64(2**63 + 5), float(2**53), 10**30]
)
def test_counts_beyond_double_precision_are_refused(value: object) -> None:
    with pytest.raises(TableError, match=r"too large|larger than"):
        PairedTable(b=value, c=1)
    assert PairedTable(b=2**52, c=2**52).discordant == 2**53
