"""The two routes of the formulas written once (:mod:`mcnemar._routes`): each operation of the
float route against numpy's on the same numbers, bit for bit (the reference is numpy itself,
on one-element arrays), and :func:`mcnemar._routes.by_table` giving either route's values.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special

from _bits import float_bits as _bits
from mcnemar import _routes
from mcnemar._routes import ARRAYS, FLOAT_ROUTE_ERRORS, FLOATS

special_values = st.sampled_from(
    [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan, 5e-324, 1e308, 709.5, 710.0, 0.5]
)
real = st.one_of(special_values, st.floats(allow_nan=True, allow_infinity=True))


def _numpy(op: str, *args: float) -> Any:
    with np.errstate(all="ignore"):
        return getattr(ARRAYS, op)(*(np.array([x]) for x in args))[0]


@settings(max_examples=500, deadline=None)
@given(x=real, y=real, condition=st.booleans())
def test_float_operations_are_numpys(x: float, y: float, condition: bool) -> None:
    for op in ("maximum", "minimum", "fmax", "fmin", "divide"):
        assert _bits(getattr(FLOATS, op)(x, y)) == _bits(float(_numpy(op, x, y))), (op, x, y)
    # numpy's choice between 0.0 and -0.0 (which the bits above see) and of the NaN's side
    for op in ("maximum", "minimum", "fmax", "fmin"):
        assert math.copysign(1.0, getattr(FLOATS, op)(x, y)) == math.copysign(
            1.0, float(_numpy(op, x, y))) or math.isnan(float(_numpy(op, x, y)))
    assert FLOATS.where(condition, x, y) is (x if condition else y)
    for op in ("isfinite", "isnan", "signbit"):
        assert getattr(FLOATS, op)(x) == bool(_numpy(op, x))
    for op in ("abs", "sign", "exp", "log", "log1p", "finite"):
        assert _bits(getattr(FLOATS, op)(x)) == _bits(float(_numpy(op, x))), (op, x)
    for op, ok in (("sqrt", x >= 0 or math.isnan(x)), ("floor", math.isfinite(x)),
                   ("ceil", math.isfinite(x))):
        if ok:
            assert _bits(getattr(FLOATS, op)(x)) == _bits(float(_numpy(op, x))), (op, x)
        else:
            with pytest.raises(FLOAT_ROUTE_ERRORS):
                getattr(FLOATS, op)(x)


@settings(max_examples=300, deadline=None)
@given(p=st.one_of(st.sampled_from([0.0, 1.0, 1e-300, 0.5, math.nan, -0.1, 1.1]),
                   st.floats(0.0, 1.0)))
def test_the_normal_quantile_is_scipys(p: float) -> None:
    assert _bits(FLOATS.ndtri(p)) == _bits(float(special.ndtri(np.array([p]))[0]))
    assert _bits(float(ARRAYS.ndtri(np.array([p]))[0])) == _bits(float(special.ndtri(p)))


@settings(max_examples=300, deadline=None)
@given(a=st.one_of(st.sampled_from([0.0, 1.0, 0.5, 1e15]), st.floats(1e-3, 1e6)),
       b=st.one_of(st.sampled_from([0.0, 1.0, 2.0, 1e15]), st.floats(1e-3, 1e6)),
       x=st.one_of(st.sampled_from([0.0, 1.0, 0.5, 1e-300, math.nan]), st.floats(0.0, 1.0)))
def test_the_incomplete_beta_its_inverses_and_log_beta_are_scipys(a: float, b: float,
                                                                  x: float) -> None:
    for op in ("betainc", "betaincinv", "betainccinv"):
        want = float(getattr(special, op)(np.array([a]), np.array([b]), np.array([x]))[0])
        assert _bits(getattr(FLOATS, op)(a, b, x)) == _bits(want), (op, a, b, x)
        got = getattr(ARRAYS, op)(np.array([a]), np.array([b]), np.array([x]))
        assert _bits(float(got[0])) == _bits(want)
    want = float(special.betaln(np.array([a]), np.array([b]))[0])
    assert _bits(FLOATS.betaln(a, b)) == _bits(want), (a, b)
    assert _bits(float(ARRAYS.betaln(np.array([a]), np.array([b]))[0])) == _bits(want)


def test_numpy_exp_and_log_of_one_number_are_those_of_an_array() -> None:
    # the float route takes exp and log from numpy, whose SIMD loops may differ from libm's
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.uniform(-745, 709.78, 2000), rng.normal(0, 1, 2000)])
    assert np.array_equal(np.array([FLOATS.exp(v) for v in x.tolist()]), np.exp(x))
    y = np.abs(x) + 1e-300
    assert np.array_equal(np.array([FLOATS.log(v) for v in y.tolist()]), np.log(y))
    z = np.concatenate([y, -0.5 * np.abs(rng.uniform(0, 1.99, 2000))])
    assert np.array_equal(np.array([FLOATS.log1p(v) for v in z.tolist()]), np.log1p(z))


def _formula(xp: _routes.Ops, x: Any, y: Any, flag: Any, *, shift: float) -> tuple[Any, Any]:
    # divides by y: a zero y raises on floats (the table then goes to the arrays)
    return xp.where(flag, x / y + shift, xp.sqrt(xp.abs(x))), xp.floor(x) - y


@pytest.mark.parametrize("few", [1, 4])
def test_by_table_gives_the_values_of_either_route(few: int) -> None:
    rng = np.random.default_rng(3)
    x, y = rng.normal(0, 10, 6), rng.normal(0, 3, 6)
    y[2] = 0.0  # raises on floats, nan or inf on arrays
    flag = rng.random(6) < 0.5
    with np.errstate(all="ignore"):
        want = _formula(ARRAYS, x, y, flag, shift=0.5)
    for size in (1, 3, 6):
        for start in range(0, 6 - size + 1):
            part = slice(start, start + size)
            got = _routes.by_table(_formula, (x[part], y[part], flag[part]), {"shift": 0.5},
                                   few=few)
            assert len(got) == 2
            for g, w in zip(got, want, strict=True):
                assert g.dtype == np.float64
                assert [_bits(v) for v in g.tolist()] == [_bits(v) for v in w[part].tolist()]


def test_by_table_takes_floats_only_up_to_few_tables() -> None:
    calls: list[Any] = []

    def formula(xp: _routes.Ops, x: Any) -> tuple[Any]:
        calls.append(xp)
        return (x + 1.0,)

    _routes.by_table(formula, (np.arange(3.0),), {}, few=3)
    assert calls == [FLOATS] * 3
    calls.clear()
    _routes.by_table(formula, (np.arange(4.0),), {}, few=3)
    assert calls == [ARRAYS]
    calls.clear()
    (empty,) = _routes.by_table(formula, (np.arange(0.0),), {}, few=3)
    assert calls == [ARRAYS] and empty.shape == (0,) and empty.dtype == np.float64


def test_one_table_gives_floats_by_either_route() -> None:
    rng = np.random.default_rng(9)
    x, y = rng.normal(0, 10, 8), rng.normal(0, 3, 8)
    y[3] = 0.0  # raises on floats: the one-element arrays answer
    flag = rng.random(8) < 0.5
    with np.errstate(all="ignore"):
        want = _formula(ARRAYS, x, y, flag, shift=0.25)
    for i in range(8):
        got = _routes.one_table(_formula, (float(x[i]), float(y[i]), bool(flag[i])),
                                {"shift": 0.25})
        assert all(type(v) is float for v in got)
        assert [_bits(v) for v in got] == [_bits(float(w[i])) for w in want]


def test_a_route_has_every_operation_and_keeps_them() -> None:
    ops = _routes.operations(FLOATS)
    assert set(ops) == set(_routes.Ops.__slots__)
    del ops["sqrt"]
    with pytest.raises(TypeError, match="sqrt"):
        _routes.Ops(**ops)
    with pytest.raises(TypeError, match="cube"):
        _routes.Ops(**_routes.operations(FLOATS), cube=lambda x: x**3)
    with pytest.raises(AttributeError):
        FLOATS.sqrt = math.sqrt  # type: ignore[misc]
