"""The two routes of the interval formulas (:mod:`mcnemar.intervals._roots`): Python floats
for one table, numpy arrays for many.

* Every limit of a seeded sample of tables (every pattern of zero cells, b = c, counts up to
  2**50, levels 0.8 to 0.99) is where it was before the routes were written
  (``data/reference/intervals_before.json``, from ``make_intervals_before.py``), alone and
  in a batch.
* The float route gives the array route's limits bit for bit (a nan's sign aside), for each
  formula and for random tables, so a table's numbers do not depend on its neighbours (each
  float operation is numpy's on the same numbers: ``test_routes.py``).
* The root finder's searches on floats (one problem, a few in lockstep) take the steps of the
  vectorized one.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mpmath
import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from _bits import float_bits as _bits
from mcnemar import intervals as iv
from mcnemar.inference import normal_isf
from mcnemar.intervals import _roots
from mcnemar.intervals._difference import _DIFFERENCE_IMPL, _difference
from mcnemar.intervals._inputs import _z_of
from mcnemar.intervals._odds_ratio import (
    _or_exact_limits,
    _or_midp_limits,
    _or_unbounded,
    _or_wald,
    _or_wilson,
    _or_wilson_limits,
)
from mcnemar.intervals._ratio import _RATIO_IMPL
from mcnemar.intervals._roots import ARRAYS, FLOAT_ROUTE_ERRORS, FLOATS

REFERENCE = Path(__file__).parent / "data" / "reference" / "intervals_before.json"
LEVELS = (0.8, 0.9, 0.95, 0.99)
EXAMPLE = (157.0, 17.0, 3.0, 23.0)


# ---------------------------------------------------------------------------------------------
# Against the limits computed before the routes
# ---------------------------------------------------------------------------------------------


def _reference() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(REFERENCE.read_text())
    return data


def _public(name: str, cells: np.ndarray, levels: np.ndarray) -> tuple[Any, Any]:
    """The limits the fixture's entry ``name`` holds, computed now for the tables ``cells``."""
    a, b, c, d = cells.T
    kind, _, method = name.partition(" ")
    if kind == "difference":
        ci = iv.difference_interval(a, b, c, d, confidence_level=levels, method=method)
    elif kind == "ratio":
        ci = iv.ratio_interval(a, b, c, d, confidence_level=levels, method=method)
    elif name.startswith("odds ratio "):
        ci = iv.odds_ratio_interval(b, c, confidence_level=levels, method=name[11:])
    elif name == "wilson a+b of N":
        ci = iv.wilson_interval(a + b, a + b + c + d, confidence_level=levels)
    else:  # the report's Wilson odds-ratio limits, with z from normal_isf
        z = np.array([normal_isf((1.0 - level) / 2.0) for level in levels.tolist()])
        return _or_wilson(b.astype(np.float64), c.astype(np.float64), z)
    return ci.low, ci.high


def _assert_close(got: np.ndarray, want: list[str], what: str) -> None:
    expected = np.array([float.fromhex(x) for x in want])
    got = np.asarray(got, dtype=np.float64).ravel()
    same = (got == expected) | (np.isnan(got) & np.isnan(expected))
    with np.errstate(invalid="ignore"):
        close = np.abs(got - expected) <= 1e-12 * np.abs(expected)
    bad = np.flatnonzero(~(same | close))
    assert bad.size == 0, f"{what}: tables {bad[:5].tolist()} moved"


def _mp_midp_odds_limit(x: int, n: int, level: float, upper: bool, near: float) -> Any:
    """The mid-p limit of the odds ratio in 40-digit arithmetic, for x of the n discordant
    items on the limit's side (b for the lower limit, c for the upper one), from the few
    terms of the other side's count k = n - x: with Y ~ Bin(n, q) the count of the other
    kind, P(Y < k) + P(Y = k)/2 = alpha, and the limit is (1 - q)/q (lower) or q/(1 - q)
    (upper). ``near`` (the limit computed now) brackets the root to 1e-6."""
    mpmath.mp.dps = 40
    k = n - x
    alpha = mpmath.mpf((1.0 - level) / 2.0)

    def tail(q: Any) -> Any:
        term, total = (1 - q) ** n, mpmath.mpf(0)
        for j in range(k):
            total += term
            term *= mpmath.mpf(n - j) / (j + 1) * q / (1 - q)
        return total + term / 2 - alpha

    odds = mpmath.mpf(near)
    q0 = odds / (1 + odds) if upper else 1 / (1 + odds)
    q = mpmath.findroot(tail, (q0 * (1 - mpmath.mpf("1e-6")), q0 * (1 + mpmath.mpf("1e-6"))),
                        solver="anderson")
    return q / (1 - q) if upper else (1 - q) / q


def _assert_closer(got: np.ndarray, want: list[str], cells: np.ndarray, levels: np.ndarray,
                   upper: bool, what: str) -> None:
    """The mid-p odds-ratio limits: where one moved by more than 1e-12 of its value before,
    the limit now is nearer the root of its equation (mpmath) than the one before (the
    search's tolerance of 1e-13 on mu became up to 1e-5 on mu/(1 - mu) where mu is near 1;
    Newton's last step leaves the rounding of the tail alone)."""
    expected = np.array([float.fromhex(x) for x in want])
    got = np.asarray(got, dtype=np.float64).ravel()
    same = (got == expected) | (np.isnan(got) & np.isnan(expected))
    with np.errstate(invalid="ignore"):
        close = np.abs(got - expected) <= 1e-12 * np.abs(expected)
    for i in np.flatnonzero(~(same | close)).tolist():
        b, c = (int(v) for v in cells[i, 1:3])
        x = c if upper else b
        root = _mp_midp_odds_limit(x, b + c, float(levels[i]), upper, float(got[i]))
        now, before = abs(got[i] - root), abs(expected[i] - root)
        assert now <= max(before, 1e-12 * abs(root)), (what, b, c, got[i], expected[i])


@pytest.mark.parametrize("name", list(_reference()["limits"]))
def test_limits_are_those_computed_before(name: str) -> None:
    data = _reference()
    cells = np.array(data["tables"], dtype=np.int64)
    levels = np.array(data["levels"])
    want_low, want_high = data["limits"][name]

    def check(got: np.ndarray, want: list[str], upper: bool, what: str) -> None:
        if name == "odds ratio midp":
            _assert_closer(got, want, cells, levels, upper, what)
        else:
            _assert_close(got, want, what)

    low, high = _public(name, cells, levels)
    check(low, want_low, False, f"{name} low, in a batch")
    check(high, want_high, True, f"{name} high, in a batch")
    alone = [_public(name, cells[i : i + 1], levels[i : i + 1]) for i in range(len(cells))]
    low, high = (np.array([float(x[k][0]) for x in alone]) for k in (0, 1))
    check(low, want_low, False, f"{name} low, alone")
    check(high, want_high, True, f"{name} high, alone")


# ---------------------------------------------------------------------------------------------
# The float route against the array route
# ---------------------------------------------------------------------------------------------

#: Each formula as f(xp, a, b, c, d, z).
FORMULAS: dict[str, Callable[..., Any]] = {
    **{f"difference {m}": (lambda xp, *cells, f=f: _difference(xp, *cells, formula=f))
       for m, f in _DIFFERENCE_IMPL.items()},
    **{f"ratio {m}": f for m, f in _RATIO_IMPL.items()},
    "odds ratio wilson": lambda xp, a, b, c, d, z: _or_unbounded(
        xp, b, c, z, formula=_or_wilson_limits),
    "odds ratio wald": lambda xp, a, b, c, d, z: _or_unbounded(
        xp, b, c, z, formula=_or_wald, add=0.0),
    "odds ratio wald-laplace": lambda xp, a, b, c, d, z: _or_unbounded(
        xp, b, c, z, formula=_or_wald, add=1.0),
    # (the Clopper-Pearson and mid-p formulas take the tail alpha = Phi(-z))
    "odds ratio exact": lambda xp, a, b, c, d, z: _or_unbounded(
        xp, b, c, xp.ndtr(-z), formula=_or_exact_limits),
    "odds ratio midp": lambda xp, a, b, c, d, z: _or_unbounded(
        xp, b, c, xp.ndtr(-z), formula=_or_midp_limits),
    "wilson": lambda xp, a, b, c, d, z: _roots._wilson(xp, a + b, a + b + c + d, z),
}


def _routes(name: str, tables: list[tuple[int, ...]], z: list[float]
            ) -> tuple[tuple[float, float] | None, tuple[float, float]]:
    """The first table's limits by the float route (None if it hands the table to arrays)
    and by the array route, in a batch with the other tables."""
    formula = FORMULAS[name]
    cells = np.array(tables, dtype=np.float64).T
    try:
        low, high = formula(FLOATS, *cells[:, 0].tolist(), z[0])
        floats = (float(low), float(high))
    except FLOAT_ROUTE_ERRORS:
        floats = None
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        low_a, high_a = formula(ARRAYS, *cells, np.array(z))
    return floats, (float(low_a[0]), float(high_a[0]))


count = st.one_of(st.integers(0, 3), st.integers(0, 300), st.integers(0, 2**20),
                  st.integers(0, 2**50))


@st.composite
def tables(draw: st.DrawFn) -> tuple[int, int, int, int]:
    a, b, c, d = (draw(count) for _ in range(4))
    return (a, b, b, d) if draw(st.booleans()) and draw(st.booleans()) else (a, b, c, d)


@settings(max_examples=300, deadline=None)
@given(table=tables(), others=st.lists(tables(), min_size=1, max_size=6),
       level=st.one_of(st.sampled_from(LEVELS), st.floats(0.5, 0.9999)),
       name=st.sampled_from(sorted(FORMULAS)))
def test_float_route_is_the_array_route_bit_for_bit(
    table: tuple[int, ...], others: list[tuple[int, ...]], level: float, name: str
) -> None:
    z = [_z_of(level)] * (1 + len(others))
    floats, arrays = _routes(name, [table, *others], z)
    event("float route" if floats is not None else "handed to arrays")
    if floats is not None:
        assert [_bits(x) for x in floats] == [_bits(x) for x in arrays], (table, level)


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_a_report_table_takes_the_float_route(name: str) -> None:
    # the example, and tables with a zero cell that reports meet, run on floats throughout
    for table in (EXAMPLE, (40, 0, 9, 3), (40, 9, 0, 3), (0, 5, 7, 0), (12, 4, 4, 9)):
        floats, arrays = _routes(name, [table], [_z_of(0.95)])
        if name == "odds ratio wald" and 0 in table[1:3]:
            continue  # log(b/c) is infinite: the array route's answer
        assert floats is not None, (name, table)
        assert [_bits(x) for x in floats] == [_bits(x) for x in arrays]


def test_by_table_takes_either_route_for_the_same_limits() -> None:
    for formula in FORMULAS.values():
        one = tuple(np.array([x]) for x in (*EXAMPLE, _z_of(0.9)))
        alone = _roots.by_table(formula, one)
        batch = _roots.by_table(formula, tuple(np.repeat(x, 3) for x in one))
        assert [_bits(float(x[0])) for x in alone] == [_bits(float(x[1])) for x in batch]


# ---------------------------------------------------------------------------------------------
# The root finder's three searches
# ---------------------------------------------------------------------------------------------


def _cubic(x: np.ndarray, idx: np.ndarray, shifts: np.ndarray) -> np.ndarray:
    out: np.ndarray = (x - shifts[idx]) ** 3 + 0.1 * (x - shifts[idx])
    return out


@settings(max_examples=60, deadline=None)
@given(shifts=st.lists(st.floats(-0.9, 0.9), min_size=1, max_size=12),
       nearer=st.booleans(), rtol=st.sampled_from([4e-16, 1e-13]))
def test_root_searches_take_the_same_steps(shifts: list[float], nearer: bool,
                                           rtol: float) -> None:
    s = np.array(shifts)
    lo, hi = np.full(s.size, -1.0), np.full(s.size, 1.0)
    idx = np.arange(s.size)
    f_lo, f_hi = _cubic(lo, idx, s), _cubic(hi, idx, s)
    options: dict[str, Any] = {"atol": 1e-30, "rtol": rtol, "nearer": nearer}
    # _find_root: lockstep on floats up to _FEW problems, vectorized beyond; padded with
    # copies so that every problem is also solved vectorized
    together = _roots._find_root(lambda x, i: _cubic(x, i, s), lo, hi, f_lo, f_hi, **options)
    padded = np.concatenate([s] * (1 + _roots._FEW))
    many = _roots._find_root(lambda x, i: _cubic(x, i, padded), np.tile(lo, 1 + _roots._FEW),
                             np.tile(hi, 1 + _roots._FEW), np.tile(f_lo, 1 + _roots._FEW),
                             np.tile(f_hi, 1 + _roots._FEW), **options)
    one = [_roots._find_root_float(lambda x, k=k: float(_cubic(np.array([x]),
                                                               np.array([0]), s[k:k + 1])[0]),
                                   -1.0, 1.0, float(f_lo[k]), float(f_hi[k]), **options)
           for k in range(s.size)]
    assert together.tolist() == many[: s.size].tolist() == one


def _newton_cubic(x: Any, shift: Any) -> tuple[Any, Any]:
    """(x - s)^3 + 0.1 (x - s) and its slope: increasing, so positive above its root."""
    u = x - shift
    return u * u * u + 0.1 * u, 3.0 * u * u + 0.1


@settings(max_examples=60, deadline=None)
@given(shifts=st.lists(st.floats(-0.9, 0.9), min_size=1, max_size=12),
       starts=st.lists(st.floats(-1.5, 1.5), min_size=12, max_size=12),
       lower=st.booleans(), rtol=st.sampled_from([4e-16, 1e-13]))
def test_newton_searches_take_the_same_steps_and_find_the_roots(
        shifts: list[float], starts: list[float], lower: bool, rtol: float) -> None:
    """The Newton search of an objective with its slope (:func:`_roots._newton_arrays`, many
    problems stopping each on its own) takes on floats (:func:`_roots._newton_float`) the
    steps it takes in a batch, and its roots are the bracketing search's within the
    tolerance; where it gives up (NaN) the bracketing search has the root."""
    s = np.array(shifts)
    x0 = np.array(starts[: s.size])
    sign = -1.0 if lower else 1.0  # a lower limit's objective is positive below the root
    lo, hi = np.full(s.size, -1.0), np.full(s.size, 1.0)
    options: dict[str, Any] = {"atol": 1e-30, "rtol": rtol}

    def pair(x: Any, i: Any) -> Any:
        value, slope = _newton_cubic(x, s[i])
        return np.array([sign * value, sign * slope])

    many = _roots._newton_arrays(pair, x0, lo, hi, np.full(s.size, lower), **options)
    one = [_roots._newton_float(lambda x, k=k: tuple(float(v) for v in pair(x, k)),
                                float(x0[k]), -1.0, 1.0, lower, **options)
           for k in range(s.size)]
    assert [_bits(v) for v in many.tolist()] == [_bits(v) for v in one]
    tol = 1e-30 + max(rtol, 4e-16) * np.abs(s) + 1e-15
    found = ~np.isnan(many)
    assert np.all(np.abs(many[found] - s[found]) <= 4 * tol[found])


def test_newton_hands_a_rough_objective_to_the_bracketing_search() -> None:
    """An objective whose slope is not defined (as a statistic evaluated with cancellation
    has it) ends the Newton steps, and the limit is the bracketing search's own root, bit for
    bit, on either route."""
    def rough(xp: Any, x: Any) -> Any:
        return x - 0.3

    def pair(xp: Any, x: Any) -> tuple[Any, Any]:
        return rough(xp, x), xp.divide(1.0, x - x) * 0.0 - math.inf

    for xp in (FLOATS, ARRAYS):
        def one(v: Any, xp: Any = xp) -> Any:
            return v if xp is FLOATS else np.array([v])

        f, f_slope = xp.bind(rough), xp.bind(pair)
        got = _roots._newton_from(xp, f_slope, f, one(1.0), one(0.0), one(0.7), one(-0.3),
                                  one(0.5), one(False), atol=1e-30, rtol=1e-13, nearer=True)
        want = _roots._find_root_float(lambda v: v - 0.3, 0.0, 1.0, -0.3, 0.7, atol=1e-30,
                                       rtol=1e-13, nearer=True)
        assert _bits(float(np.asarray(got).ravel()[0])) == _bits(want)


# -- several closed forms in one pass ----------------------------------------------------------


def test_the_closed_forms_in_one_pass_are_each_methods_own_limits() -> None:
    """``closed_form_limits`` (a single table's report computes its closed-form intervals in
    one pass on floats) gives each method's limits of its own call, bit for bit, alone and in
    batches, zero cells included (where a float route raises and the pass takes the
    arrays); and the report's lists of closed forms are the interval modules' ones."""
    from mcnemar.intervals import _difference, _ratio
    from mcnemar.report import _compute

    rng = np.random.default_rng(31)
    cells = rng.integers(0, 60, size=(200, 4)).astype(np.float64)
    cells[:6] = [[0, 0, 0, 0], [5, 0, 0, 0], [0, 3, 0, 0], [0, 0, 0, 9], [0, 2, 2, 0],
                 [1e12, 3, 1e6, 1e12]]
    levels = np.where(rng.random(200) < 0.5, 0.95, 0.9)
    for module, shown in ((_difference, _compute.DIFFERENCE_SHOWN),
                          (_ratio, _compute.RATIO_SHOWN)):
        closed = tuple(m for m in shown if m in module.CLOSED_FORMS)
        kind = "difference" if module is _difference else "ratio"
        assert _compute._closed_forms(kind) == (closed, module.closed_form_limits)
        own = _difference._difference_limits if module is _difference else _ratio._ratio_limits
        for rows in [slice(i, i + 1) for i in range(12)] + [slice(0, 200), slice(3, 5)]:
            sub = tuple(np.ascontiguousarray(cells[rows, k]) for k in range(4))
            together = module.closed_form_limits(closed, *sub, levels[rows])
            for method, (low, high) in zip(closed, together, strict=True):
                want_low, want_high = own(method, *sub, levels[rows])
                for got, want in ((low, want_low), (high, want_high)):
                    assert ([_bits(x) for x in got.tolist()]
                            == [_bits(x) for x in want.tolist()]), (method, rows)
