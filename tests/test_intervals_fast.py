"""The Newton search for the exact (melded) difference limits below 1e9 items and 1e5
discordant items (:func:`mcnemar.intervals._melded._melded_newton` and its moved
evaluations), against the bracketing search on the same quadrature it replaced, run to the
root (4e-16), and against mpmath's melded tail (``tests/_melded_mpmath.py``).

The limits are the roots of the quadrature of :func:`~mcnemar.intervals._melded.
_melded_tail`; they are held to 2e-13 of the bracketing search's, relative to the larger of
the limit and the standard deviation of T(2B - 1) (a limit a thousandth of a standard
deviation from 0 has only the absolute digits of the tail's rounding).
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from scipy import special

from _melded_mpmath import melded_tail
from mcnemar.intervals import _melded as melded
from mcnemar.intervals._difference import _difference_limits
from mcnemar.intervals._roots import _find_root, _normal_score_gap


def _bracketed_upper(x: np.ndarray, m: np.ndarray, n: np.ndarray, alpha: np.ndarray
                     ) -> np.ndarray:
    """The melded upper limits (U != 0, x < m < n) by bracketing to 4e-16 on _melded_tail."""
    p0 = melded._betainc_half(x, m)
    pos = p0 > alpha
    ta = np.where(pos, m + 1.0, m)
    tb = np.where(pos, n - m, n - m + 1.0)
    t_lo = special.betaincinv(ta, tb, melded._TAIL)
    t_hi = 1.0 - special.betaincinv(tb, ta, melded._TAIL)

    def excess(delta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        tail = melded._melded_tail(delta, x[idx], m[idx], ta[idx], tb[idx], t_lo[idx], t_hi[idx])
        return _normal_score_gap(tail, alpha[idx])

    f0 = _normal_score_gap(p0, alpha)
    lo, hi = np.where(pos, 0.0, -1.0), np.where(pos, 1.0, 0.0)
    f_lo, f_hi = np.where(pos, f0, np.inf), np.where(pos, -np.inf, f0)
    out: np.ndarray = _find_root(excess, lo, hi, f_lo, f_hi, atol=1e-300, rtol=4e-16,
                                 nearer=True)
    return out


def _problems(seed: int, size: int) -> tuple[np.ndarray, ...]:
    """Random (x, m, n, alpha) with a root on either side of 0: 2 to 1e5 items, discordance
    1e-3 to all but one item, confidence levels 0.5 to 0.999999."""
    rng = np.random.default_rng(seed)
    n = np.floor(10 ** rng.uniform(0.3, 5, size)) + 1
    m = np.maximum(1.0, np.minimum(n - 1, np.floor(n * 10 ** rng.uniform(-3, 0, size))))
    x = np.floor(rng.uniform(0, 1, size) * m)
    level = rng.choice([0.5, 0.8, 0.9, 0.95, 0.99, 0.999, 0.999999], size)
    alpha = (1 - level) / 2
    keep = (x < m) & (melded._betainc_half(x, m) != alpha)
    return x[keep], m[keep], n[keep], alpha[keep]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_newton_limits_are_the_roots_of_the_quadrature(seed: int) -> None:
    x, m, n, alpha = _problems(seed, 1500)
    new = melded._melded_upper(x, m, n, alpha)
    ref = _bracketed_upper(x, m, n, alpha)
    scale = np.maximum(np.abs(ref), np.sqrt(m) / n)
    assert np.all(np.isfinite(new))
    assert np.max(np.abs(new - ref) / scale) <= 2e-13


def test_report_tables_keep_their_limits() -> None:
    # the tables of the benchmark, both limits of each, as a report computes them
    rng = np.random.default_rng(0)
    a, b, c, d = rng.integers([0, 0, 0, 0], [1001, 101, 101, 1001], size=(1500, 4)).T
    cells = [v.astype(float) for v in (a, b, c, d)]
    low, high = _difference_limits("exact", cells[0], cells[1], cells[2], cells[3],
                                   np.full(a.size, 0.95))
    n, m = cells[0] + cells[1] + cells[2] + cells[3], cells[1] + cells[2]
    for limit, x, sign in ((high, cells[1], 1.0), (-low, cells[2], -1.0)):
        inner = (x < m) & (m < n) & (melded._betainc_half(x, m) != 0.025)
        ref = _bracketed_upper(x[inner], m[inner], n[inner], np.full(inner.sum(), 0.025))
        scale = np.maximum(np.abs(ref), np.sqrt(m[inner]) / n[inner])
        assert np.max(np.abs(limit[inner] - ref) / scale) <= 2e-13, sign


def test_limits_do_not_depend_on_the_other_tables() -> None:
    x, m, n, alpha = _problems(9, 600)
    batch = melded._melded_upper(x, m, n, alpha)
    for i in range(0, x.size, 37):
        s = slice(i, i + 1)
        assert melded._melded_upper(x[s], m[s], n[s], alpha[s])[0] == batch[i]
    order = np.random.default_rng(2).permutation(x.size)
    np.testing.assert_array_equal(melded._melded_upper(x[order], m[order], n[order],
                                                     alpha[order]), batch[order])


def _search(x: float, m: float, n: float, positive: bool) -> melded._MeldedSearch:
    xs, ms, ns = (np.array([v]) for v in (x, m, n))
    ta = ms + 1.0 if positive else ms
    tb = ns - ms if positive else ns - ms + 1.0
    return melded._MeldedSearch(xs, ms, ta, tb, special.betaincinv(ta, tb, melded._TAIL),
                              1.0 - special.betaincinv(tb, ta, melded._TAIL))


@pytest.mark.parametrize(
    ("x", "m", "n", "delta"),
    [(57, 138, 753, -2.0e-5), (42, 61, 1184, 0.0335), (0, 6, 405, -0.00096),
     (3356, 3778, 43283, 0.0705), (422, 3778, 43283, -0.065), (1, 2, 1579, 0.0031),
     (800, 1000, 1001, 0.5)],
)
def test_fresh_and_moved_evaluations(x: int, m: int, n: int, delta: float) -> None:
    search = _search(x, m, n, delta > 0)
    at = np.array([delta])
    fresh, slope = search.evaluate(at, np.array([0]))
    # a fresh evaluation is the quadrature of _melded_tail, operation for operation
    assert fresh[0] == melded._melded_tail(at, np.array([float(x)]), np.array([float(m)]),
                                         search.t_alpha, search.t_beta, search.t_lo,
                                         search.t_hi)[0]
    h = abs(delta) * 1e-6
    up = melded._melded_tail(at + h, np.array([float(x)]), np.array([float(m)]), search.t_alpha,
                           search.t_beta, search.t_lo, search.t_hi)
    down = melded._melded_tail(at - h, np.array([float(x)]), np.array([float(m)]),
                             search.t_alpha, search.t_beta, search.t_lo, search.t_hi)
    assert slope[0] == pytest.approx((up - down)[0] / (2 * h), rel=1e-5)
    # moved by a little: within rounding of a fresh evaluation there
    for factor in (1 + 1e-9, 1 + 1e-5, 1 - 3e-4):
        moved, _ = search.evaluate(at * factor, np.array([0]))
        again = _search(x, m, n, delta > 0).evaluate(at * factor, np.array([0]))[0]
        assert moved[0] == pytest.approx(again[0], rel=1e-14, abs=1e-18)


@pytest.mark.parametrize(
    ("a", "b", "c", "d", "level"),
    [(157, 17, 3, 23, 0.95), (72, 6, 14, 8, 0.95), (0, 1, 0, 3, 0.9), (10, 40, 1, 2, 0.999),
     (500, 2, 9, 700, 0.5), (3, 30, 31, 0, 0.99)],
)
def test_limits_solve_the_mpmath_tail_equation(a: int, b: int, c: int, d: int,
                                              level: float) -> None:
    low, high = _difference_limits("exact", np.array([float(a)]), np.array([float(b)]),
                                   np.array([float(c)]), np.array([float(d)]),
                                   np.array([level]))
    n, m = a + b + c + d, b + c
    alpha = (1 - level) / 2
    for limit, x in ((high[0], b), (-low[0], c)):
        if x >= m or m >= n or abs(limit) >= 1:
            continue
        # the tail crosses alpha between the limit -+ 1e-12 (relative)
        width = 1e-12 * max(abs(limit), 1e-3)
        left = melded_tail(mpmath.mpf(limit - width), x, m, n)
        right = melded_tail(mpmath.mpf(limit + width), x, m, n)
        assert left > alpha > right


def test_start_is_near_the_limit() -> None:
    x, m, n, alpha = _problems(4, 1500)
    p0 = melded._betainc_half(x, m)
    pos = (p0 > alpha) & (n > m)
    x, m, n, alpha, pos = x[pos], m[pos], n[pos], alpha[pos], pos[pos]
    # the Cornish-Fisher estimate of the limit (the 1 - alpha quantile of T(2B - 1))
    start = melded._melded_start_and_spread(x, m, n, special.ndtri(alpha), pos)[0]
    limit = melded._melded_upper(x, m, n, alpha)
    big = m >= 50
    error = np.abs(start - limit) / np.maximum(np.abs(limit), np.sqrt(m) / n)
    assert np.median(error[big]) < 1e-4
