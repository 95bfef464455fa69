"""The fast paths of a report's two costly numbers, each against an independent reference.

* The detectable difference (exact power solved for the difference): the point probabilities
  of later search steps are moved from those of the first step (``_MovedTail``); checked
  against the saddle-point form evaluated afresh, and the solved difference against the root
  of the exact power written out in mpmath (40 digits), with the rejection regions of the
  bisection that test_planning checks by brute force.
* The exact (Fay-Lumbard melded) difference interval, whose search starts from a probe near
  a Wald-type guess: each limit against the root of the melded tail computed by mpmath
  quadrature (root error = tail gap / slope).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from _references import mp_melded_tail
from mcnemar.intervals import difference_interval
from mcnemar.planning import _detectable as det
from mcnemar.planning import _kernel as kern
from mcnemar.planning import minimum_detectable_effect

# ---------------------------------------------------------------------------------------------
# detectable difference


def _mp_log_step(x: float, m: float, kept: bool, p: float, q: float) -> mpmath.mpf:
    """log((p if kept else q) P(X = x)), X ~ Bin(m, p), in mpmath."""
    mp_p, mp_q = mpmath.mpf(p), mpmath.mpf(q)
    x_, m_ = int(x), int(m)
    log_pmf = (mpmath.log(mpmath.binomial(m_, x_)) + x_ * mpmath.log(mp_p)
               + (m_ - x_) * mpmath.log(mp_q))
    return log_pmf + mpmath.log(mp_p if kept else mp_q)


@pytest.mark.parametrize("n, psi", [(200, 0.1), (5_000, 0.3), (2_000_000, 0.4), (2**52, 1e-13)])
def test_moved_point_probabilities_against_mpmath(n: int, psi: float) -> None:
    # Each step of the search moves the steps of the path from the first evaluation; the
    # moved values must be as close to mpmath as the saddle-point form evaluated afresh (at
    # the same p, or at the reference p they were moved from: its own error, ~1e-15 relative
    # for small m, a few 1e-13 near m = 10**6 from the rounding of m p) plus the move's
    # rounding (a few 1e-14).
    mpmath.mp.dps = 40
    nn, ps = np.array([float(n)]), np.array([psi])
    seg, m, _w, starts = kern._flat_weights(nn, ps)
    j = kern._regions(m, 0.025, "exact")
    plan = kern._path_plan(m, m - j, starts)
    reach = np.array([m.max()])
    rng = np.random.default_rng(5)
    for lower in (False, True):
        tail = det._MovedTail(plan.base, seg, reach)
        theta = 0.5 + 2.0 / math.sqrt(m.max())
        moves = 0
        for _ in range(8):
            p, q = (1.0 - theta, theta) if lower else (theta, 1.0 - theta)
            before = tail.ref_p.copy()
            log_pmf = tail.log_pmf(np.array([p]), np.array([q]))
            log_coef = np.where(plan.kept, np.log(p), np.log(q))
            got = log_coef + log_pmf
            moves += bool(np.array_equal(before, tail.ref_p, equal_nan=True))
            fresh = np.where(plan.kept, np.log(p), np.log(q)) + kern._log_pmf_at(
                plan.base, np.full(m.size, p), np.full(m.size, q)
            )
            # the 40 largest steps and 20 others (the ones the power sum is made of)
            pick = np.unique(np.concatenate([
                np.argsort(fresh)[-40:], rng.choice(np.flatnonzero(fresh > -700.0), 20)
            ]))
            if not moves:
                first, first_pq = fresh, (p, q)  # the reference the moves start from
            for i in pick:
                x_i, m_i, kept = plan.base.x[i], plan.base.n[i], bool(plan.kept[i])
                exact = _mp_log_step(x_i, m_i, kept, p, q)
                err_moved = abs(float(mpmath.exp(mpmath.mpf(got[i]) - exact) - 1))
                err_fresh = abs(float(mpmath.exp(mpmath.mpf(fresh[i]) - exact) - 1))
                at_ref = _mp_log_step(x_i, m_i, kept, *first_pq)
                err_ref = abs(float(mpmath.exp(mpmath.mpf(first[i]) - at_ref) - 1))
                assert err_moved <= max(err_fresh, err_ref) + 5e-14
            theta = theta + rng.normal(0.0, 0.3) / m.max()
        assert moves >= 5  # most steps were moves, not fresh evaluations


def _mp_power(n: int, psi: float, theta: mpmath.mpf, alpha: float, alternative: str) -> mpmath.mpf:
    """Exact power at theta = p10/psi, summed over every m with 40 digits."""
    tail = alpha / 2 if alternative == "two-sided" else alpha
    m_all = np.arange(n + 1, dtype=np.float64)
    j = kern._critical_bisect(m_all.copy(), tail, "exact")
    j[0] = -1.0
    mp_psi = mpmath.mpf(psi)
    total = mpmath.mpf(0)
    for m in range(n + 1):
        weight = mpmath.binomial(n, m) * mp_psi**m * (1 - mp_psi) ** (n - m)
        jm = int(j[m])
        if jm < 0 or weight < mpmath.mpf(10) ** -30:
            continue
        up = mpmath.fsum(
            mpmath.binomial(m, x) * theta**x * (1 - theta) ** (m - x) for x in range(m - jm, m + 1)
        )
        if alternative == "two-sided":
            up += mpmath.fsum(
                mpmath.binomial(m, x) * theta**x * (1 - theta) ** (m - x) for x in range(jm + 1)
            )
        total += weight * up
    return total


@pytest.mark.parametrize(
    "n, discordant, target, alternative",
    [(60, 18, 0.8, "two-sided"), (150, 20, 0.9, "greater"), (120, 40, 0.5, "two-sided")],
)
def test_detectable_difference_against_mpmath_root(
    n: int, discordant: int, target: float, alternative: str
) -> None:
    mpmath.mp.dps = 40
    psi = discordant / n
    res = minimum_detectable_effect(n, psi, power=target, alternative=alternative)
    theta = mpmath.mpf(0.5) + mpmath.mpf(res.difference) / (2 * mpmath.mpf(psi))
    root = mpmath.findroot(lambda t: _mp_power(n, psi, t, 0.05, alternative) - target, theta,
                           tol=mpmath.mpf(10) ** -30)
    d_mp = float(mpmath.mpf(psi) * (2 * root - 1))
    assert res.difference == pytest.approx(d_mp, rel=1e-12, abs=0)


def test_trimmed_windows_drop_only_the_outer_tails() -> None:
    # Of each window (already cut where Bernstein's bound allows), the points kept are the m
    # with P(window start <= M <= m) and P(m <= M <= window end) both at least _TRIM
    # (M ~ Bin(n, psi); scipy's cdf and sf as the reference); one run of m per table.
    from scipy import stats

    n = np.array([30.0, 250.0, 5_000.0, 1e6, 4e15])
    psi = np.array([0.5, 0.1, 0.02, 0.3, 2e-13])
    full = kern._flat_weights(n, psi)
    seg, m, _w, starts = det._trimmed(*full)
    trim = det._TRIM
    for i in range(n.size):
        kept = m[seg == i]
        window = full[1][full[0] == i]
        assert np.array_equal(kept, np.arange(kept[0], kept[-1] + 1))
        assert np.flatnonzero(starts)[i] == np.flatnonzero(seg == i)[0]
        binom = stats.binom(n[i], psi[i])
        outside_low = binom.cdf(window[0] - 1)
        outside_high = binom.sf(window[-1])
        assert binom.cdf(kept[0] - 1) - outside_low < trim * 1.001
        assert binom.sf(kept[-1]) - outside_high < trim * 1.001
        if kept[0] > window[0]:  # one point further out would have been kept
            assert binom.cdf(kept[0]) - outside_low >= trim * 0.999
        if kept[-1] < window[-1]:
            assert binom.sf(kept[-1] - 1) - outside_high >= trim * 0.999


def test_detectable_difference_does_not_depend_on_the_other_tables() -> None:
    # the search runs over groups of tables; each table's result is its own
    rng = np.random.default_rng(11)
    n = rng.integers(50, 3000, 400)
    d = np.minimum(rng.integers(1, 200, 400), n)
    together = minimum_detectable_effect(n, d / n).difference
    for i in (0, 17, 399):
        alone = minimum_detectable_effect(int(n[i]), float(d[i] / n[i])).difference
        assert together[i] == alone


@pytest.mark.parametrize("method", ["exact", "midp"])
def test_rejection_regions_of_a_window_are_those_of_its_blocks_alone(method: str) -> None:
    # The search needs j(m) over the window of M ~ Bin(n, psi) only (not from m = 0): the
    # blocks a call lacks are computed in one call with the path restarted at each block, and
    # are those of each block computed alone; kept, they answer the next call.
    kern._region_cache.clear()
    m = np.arange(59_000.0, 61_500.0)
    together = kern._regions(m, 0.025, method)
    assert len(kern._region_cache) == 11
    for start in range(58_880, 61_500, 256):
        alone = kern._critical_lower(np.arange(start, start + 256.0), 0.025, method)
        inside = (m >= start) & (m < start + 256)
        assert np.array_equal(together[inside], alone[np.isin(np.arange(start, start + 256.0),
                                                                m)])
    assert np.array_equal(kern._regions(m[::-7], 0.025, method), together[::-7])


# ---------------------------------------------------------------------------------------------
# exact (melded) difference interval


@pytest.mark.parametrize(
    "table, level",
    [((38, 2, 21, 38), 0.9), ((902, 53, 84, 151), 0.99), ((0, 8, 25, 15), 0.95),
     ((25, 16, 5, 5), 0.9), ((157, 17, 3, 23), 0.95)],
)
def test_exact_difference_limits_are_the_mpmath_roots(
    table: tuple[int, int, int, int], level: float
) -> None:
    # the limit is the root of tail(delta) = alpha/2; its distance to the true root is the
    # tail's gap there over the tail's slope (both by mpmath), which must be within the
    # search's relative tolerance (1e-12) plus what the quadrature's error in the tail
    # (about 1e-14) moves the root
    mpmath.mp.dps = 30
    a, b, c, d = table
    n, m = a + b + c + d, b + c
    ci = difference_interval(a, b, c, d, confidence_level=level, method="exact")
    alpha = mpmath.mpf(1 - level) / 2
    for limit, x in ((ci.high, b), (-ci.low, c)):
        u = mpmath.mpf(limit)
        h = abs(u) * mpmath.mpf(10) ** -8
        gap = mp_melded_tail(u, x, m, n) - alpha
        slope = (mp_melded_tail(u + h, x, m, n) - mp_melded_tail(u - h, x, m, n)) / (2 * h)
        assert abs(float(gap / slope)) <= 2e-12 * abs(limit) + 2e-14 / abs(float(slope))


# ---------------------------------------------------------------------------------------------
# root finder: a few problems in Python floats, many in arrays


@pytest.mark.parametrize(
    "kind, method",
    [("difference", "exact"), ("difference", "tango"), ("ratio", "tang"),
     ("odds_ratio", "midp")],
)
def test_one_table_gets_the_limits_it_gets_in_a_batch(kind: str, method: str) -> None:
    # One table's limits are searched in Python floats (a few problems), a batch's in arrays:
    # the same IEEE steps, so bit for bit the same limits.
    from mcnemar.intervals import odds_ratio_interval, ratio_interval

    rng = np.random.default_rng(3)
    k = 150
    a, d = rng.integers(0, 400, k), rng.integers(0, 400, k)
    b, c = rng.integers(0, 60, k), rng.integers(0, 60, k)
    b[:5], c[:5] = [0, 7, 0, 40, 1], [0, 0, 9, 40, 1]
    level = rng.choice([0.9, 0.95, 0.99], k)
    if kind == "odds_ratio":
        batch = odds_ratio_interval(b, c, confidence_level=level, method=method)
        alone = [odds_ratio_interval(int(b[i]), int(c[i]), confidence_level=float(level[i]),
                                     method=method) for i in range(k)]
    else:
        fn = difference_interval if kind == "difference" else ratio_interval
        batch = fn(a, b, c, d, confidence_level=level, method=method)
        alone = [fn(int(a[i]), int(b[i]), int(c[i]), int(d[i]),
                    confidence_level=float(level[i]), method=method) for i in range(k)]
    low = np.array([ci.low for ci in alone])
    high = np.array([ci.high for ci in alone])
    np.testing.assert_array_equal(low, batch.low)
    np.testing.assert_array_equal(high, batch.high)
