"""The exact (melded, Fay & Lumbard) difference limits along their routes
(:mod:`mcnemar.intervals._melded`): held to the limits of a seeded sample of tables written
before the search was reworked (``tests/data/reference/melded_before.json``, its generator
next to it) within 1e-12 relative; a table's limits alone, in a pair or in any batch, the
same to the bit; the tail equation solved against mpmath's melded tail, to the accuracy of
the quadrature; and the quadrature rules built on first use, not at import.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import mpmath
import numpy as np
import pytest

from _melded_mpmath import melded_tail
from mcnemar.intervals import _melded as melded
from mcnemar.intervals import difference_interval

REFERENCE = Path(__file__).parent / "data" / "reference" / "melded_before.json"
#: Relative distance allowed from the reference limits.
RTOL = 1e-12


def _reference() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rows = json.loads(REFERENCE.read_text())["rows"]
    cells = np.array([row["table"] for row in rows], dtype=np.int64)
    level = np.array([row["level"] for row in rows])
    low = np.array([row["low"] for row in rows])
    high = np.array([row["high"] for row in rows])
    return cells, level, low, high


def _relative(new: np.ndarray, ref: np.ndarray) -> np.ndarray:
    gap = np.abs(new - ref)
    return np.where(gap == 0.0, 0.0, gap / np.abs(ref))


def test_reference_sample_covers_the_routes() -> None:
    cells, level, low, high = _reference()
    n, m = cells.sum(axis=1), cells[:, 1] + cells[:, 2]
    assert set(np.unique(level)) == {0.8, 0.9, 0.95, 0.99}
    # Newton with fresh and with moved evaluations, bracketing, huge tables, m = N, b or c 0
    assert np.any(m < melded._MOVE_MIN_COUNT) and np.any(m >= melded._MOVE_MIN_COUNT)
    assert np.any(m > melded._MOVE_MAX_COUNT) and np.any(n >= melded._HUGE_N)
    assert np.any(m == n) and np.any(cells[:, 1] == 0) and np.any(cells[:, 2] == 0)
    assert np.all(np.isfinite(low)) and np.all(np.isfinite(high))


def test_limits_stay_within_1e12_of_the_reference() -> None:
    cells, level, low, high = _reference()
    ci = difference_interval(*cells.T, confidence_level=level, method="exact")
    assert np.max(_relative(ci.low, low)) <= RTOL
    assert np.max(_relative(ci.high, high)) <= RTOL


def test_each_table_alone_gives_its_limits_in_the_batch() -> None:
    cells, level, _, _ = _reference()
    batch = difference_interval(*cells.T, confidence_level=level, method="exact")
    for i in range(0, len(cells), 7):
        one = difference_interval(*(int(v) for v in cells[i]), confidence_level=level[i],
                                  method="exact")
        assert (one.low, one.high) == (batch.low[i], batch.high[i]), cells[i]


def _problems(seed: int, size: int) -> tuple[np.ndarray, ...]:
    """Random (x, m, n, alpha) of the Newton route and its neighbours: discordant counts
    from 1 to 1e5 (below and above the moves' threshold), up to 1e6 items, x from 0 to m."""
    rng = np.random.default_rng(seed)
    m = np.floor(10.0 ** rng.uniform(0.0, 5.0, size))
    n = np.floor(m * 10.0 ** rng.uniform(0.0, 2.5, size)) + 1.0
    x = np.floor(rng.uniform(0.0, 1.0, size) * (m + 1.0))
    alpha = (1.0 - rng.choice([0.8, 0.9, 0.95, 0.99], size)) / 2.0
    return x, m, n, alpha


def test_a_problem_gets_the_same_limit_alone_in_a_pair_or_in_any_order() -> None:
    x, m, n, alpha = _problems(11, 700)
    batch = melded._melded_upper(x, m, n, alpha)
    assert np.all(np.isfinite(batch))
    for i in range(0, x.size, 9):
        alone = melded._melded_upper(x[i:i + 1], m[i:i + 1], n[i:i + 1], alpha[i:i + 1])
        assert alone[0] == batch[i]
        pair = np.array([i, (i * 31 + 5) % x.size])
        np.testing.assert_array_equal(
            melded._melded_upper(x[pair], m[pair], n[pair], alpha[pair]), batch[pair])
    order = np.random.default_rng(3).permutation(x.size)
    np.testing.assert_array_equal(
        melded._melded_upper(x[order], m[order], n[order], alpha[order]), batch[order])


@pytest.mark.parametrize(
    ("a", "b", "c", "d", "level"),
    [(157, 17, 3, 23, 0.8), (40, 90, 70, 800, 0.99), (900, 61, 4, 35, 0.9),
     (0, 12, 8, 0, 0.95), (5000, 1200, 1100, 2700, 0.95)],
)
def test_limits_solve_the_mpmath_tail_equation(a: int, b: int, c: int, d: int,
                                              level: float) -> None:
    ci = difference_interval(a, b, c, d, confidence_level=level, method="exact")
    n, m = a + b + c + d, b + c
    alpha = (1.0 - level) / 2.0
    for limit, x in ((ci.high, b), (-ci.low, c)):
        if x >= m or abs(limit) >= 1.0:
            continue
        # The tail crosses alpha between the limit -+ 1e-11 of the larger of the limit and
        # the standard deviation of the difference: the limits are the roots of a 64-node
        # quadrature, which is that close to the tail (1.6e-12 of the upper limit of the last
        # table, 1e-14 absolute at its lower limit, 0.1 standard deviations from 0).
        width = 1e-11 * max(abs(limit), np.sqrt(m) / n)
        left = melded_tail(mpmath.mpf(limit - width), x, m, n)
        right = melded_tail(mpmath.mpf(limit + width), x, m, n)
        assert left > alpha > right, (a, b, c, d, limit)


@pytest.mark.parametrize("module", ["mcnemar", "mcnemar.intervals", "mcnemar.report"])
def test_numpy_polynomial_waits_for_the_first_interval(module: str) -> None:
    # importing the package, its intervals (the exact one's module too) or the report does
    # not import numpy.polynomial; the first exact interval builds the rule, once
    code = (f"import sys, {module}\n"
            "from mcnemar.intervals import _melded, difference_interval\n"
            "print('numpy.polynomial' in sys.modules, _melded._rule.cache_info().currsize)\n"
            "difference_interval(157, 17, 3, 23, method='exact')\n"
            "difference_interval(72, 6, 14, 8, method='exact')\n"
            "print(_melded._rule.cache_info().currsize)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "0", "1"]


def test_rules_are_built_once_and_read_only() -> None:
    rule = melded._rule()
    assert rule is melded._rule()
    assert rule.x.size == melded._GL_POINTS
    np.testing.assert_allclose(rule.w.sum(), 2.0, rtol=1e-15)
    with pytest.raises(ValueError, match="read-only"):
        rule.w[0] = 0.0
    reaches = [reach for _, _, reach in melded._move_rules()]
    assert reaches == sorted(reaches) and reaches[-1] == melded._MOVE_REACH


@pytest.mark.parametrize("steps", [1, 2])
def test_the_bracketing_search_takes_over_where_newton_stops(
        steps: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # after one step no problem is done, after two most are: the bracket and the gaps at its
    # ends handed over are those of the steps taken, and the roots the same
    x, m, n, alpha = _problems(5, 300)
    full = melded._melded_upper(x, m, n, alpha)
    monkeypatch.setattr(melded, "_NEWTON_STEPS", steps)
    cut = melded._melded_upper(x, m, n, alpha)
    scale = np.maximum(np.abs(full), np.sqrt(m) / n)
    assert np.max(np.abs(cut - full) / scale) <= 1e-13


@pytest.mark.parametrize("steps", [1, 2, 12])
def test_a_few_problems_on_floats_get_the_limits_of_the_arrays(
        steps: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # a search of a few problems takes its steps, start and columns on Python floats or
    # repeated arrays; the same operations as the arrays' route, so the same bits (also
    # when the bracketing search takes over)
    from mcnemar.intervals import _beta

    x, m, n, alpha = _problems(17, 240)
    monkeypatch.setattr(melded, "_NEWTON_STEPS", steps)
    few = np.concatenate([melded._melded_upper(x[k:k + 12], m[k:k + 12], n[k:k + 12],
                                               alpha[k:k + 12]) for k in range(0, x.size, 12)])
    monkeypatch.setattr(melded, "_NEWTON_FEW", 0)
    monkeypatch.setattr(_beta, "_FEW", 0)
    arrays = np.concatenate([melded._melded_upper(x[k:k + 12], m[k:k + 12], n[k:k + 12],
                                                  alpha[k:k + 12]) for k in range(0, x.size, 12)])
    np.testing.assert_array_equal(few, arrays)
