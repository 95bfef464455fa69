"""The anytime-valid sequential test: closed form, Ville's bound, confidence sequences, planning.

References used: the closed form 2^D B(b + a0, c + b0)/B(a0, b0) evaluated in mpmath (and the
one-sided mixtures by mpmath quadrature over theta, not through the incomplete beta); seeded
simulation under H0 with a look after every item (Ville's inequality) next to the naive
"McNemar after every item"; brute-force enumeration of all discordant paths for the stopping
distribution; seeded simulation for expected stopping times and confidence-sequence coverage.
"""

from __future__ import annotations

import itertools
import json
import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcnemar import McNemarError, PairedTable, mcnemar
from mcnemar.sequential import DEFAULT_PRIOR, Monitor, log_evalue, prior_for_effect, sequential
from mcnemar.stopping import _stopping_distribution, stopping_time

mp.mp.dps = 40


def mp_log_evalue(b: int, c: int, alternative: str, a0: float, b0: float) -> mp.mpf:
    a0, b0 = mp.mpf(a0), mp.mpf(b0)
    two = (b + c) * mp.log(2) + mp.log(mp.beta(b + a0, c + b0)) - mp.log(mp.beta(a0, b0))
    if alternative == "two-sided":
        return two

    def dens(t: mp.mpf, x: int, y: int) -> mp.mpf:
        return t ** (x + a0 - 1) * (1 - t) ** (y + b0 - 1)

    lo, hi = (mp.mpf(1) / 2, mp.mpf(1)) if alternative == "greater" else (mp.mpf(0), mp.mpf(1) / 2)
    # Many short pieces, so that the quadrature resolves the posterior's peak.
    half = mp.mpf(1) / 2
    # Many short pieces, finer towards 1/2, so that the quadrature resolves the integrand.
    near = [half + (hi - lo) * (1 if lo == half else -1) * mp.mpf(2) ** -k for k in range(1, 30)]
    cuts = sorted({*mp.linspace(lo, hi, 40), *near})
    with mp.workdps(20):
        post = mp.quad(lambda t: dens(t, b, c), cuts)
    prior = mp.quad(lambda t: dens(t, 0, 0), [lo, hi])
    whole = mp.beta(a0, b0)
    # E = 2^D * (integral over the side of theta^b (1-theta)^c prior) / (prior mass there)
    return (b + c) * mp.log(2) + mp.log(post / whole) - mp.log(prior / whole)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("prior", [(4.0, 4.0), (1.0, 1.0), (0.5, 2.5)])
def test_log_evalue_matches_mpmath(alternative: str, prior: tuple[float, float]) -> None:
    for b, c in [(0, 0), (1, 0), (0, 1), (17, 3), (3, 17), (40, 40), (250, 180), (3, 90)]:
        got = log_evalue(b, c, alternative=alternative, prior=prior)
        want = float(mp_log_evalue(b, c, alternative, *prior))
        assert got == pytest.approx(want, rel=1e-11, abs=1e-11), (b, c)


def test_log_evalue_is_vectorized_and_finite_for_huge_counts() -> None:
    b = np.array([[10, 20], [1_000_000, 3]])
    c = np.array([[5, 20], [900_000, 0]])
    out = log_evalue(b, c)
    assert out.shape == (2, 2)
    for i, j in itertools.product(range(2), range(2)):
        assert out[i, j] == pytest.approx(log_evalue(int(b[i, j]), int(c[i, j])), rel=1e-14)
    want = float(mp_log_evalue(1_000_000, 900_000, "two-sided", *DEFAULT_PRIOR))
    assert out[1, 0] == pytest.approx(want, rel=1e-12)
    assert math.isfinite(out[1, 0]) and out[1, 0] > 1000


def test_evalue_under_h0_has_mean_one() -> None:
    # E is a martingale with E_0 = 1: its mean over Bin(D, 1/2) is exactly 1 (enumeration).
    for d in (1, 5, 30):
        b = np.arange(d + 1)
        weights = np.array([math.comb(d, k) for k in range(d + 1)], dtype=float) / 2.0**d
        for alt in ("two-sided", "greater", "less"):
            mean = float(np.dot(weights, np.exp(log_evalue(b, d - b, alternative=alt))))
            assert mean == pytest.approx(1.0, rel=1e-12)


def test_paths_pvalue_and_stopping_point_agree() -> None:
    rng = np.random.default_rng(11)
    xa = rng.random(800) < 0.75
    xb = rng.random(800) < 0.68
    r = sequential(xa, xb)
    only_a = np.cumsum(xa & ~xb)
    only_b = np.cumsum(~xa & xb)
    np.testing.assert_array_equal(r.only_a_path, only_a)
    np.testing.assert_allclose(r.log_evalue_path, log_evalue(only_a, only_b), rtol=1e-14)
    expected_p = np.minimum(1.0, 1.0 / np.maximum.accumulate(np.exp(r.log_evalue_path)))
    np.testing.assert_allclose(r.pvalue_path, expected_p, rtol=1e-12)
    assert r.pvalue == pytest.approx(expected_p[-1], rel=1e-12)
    crossed = np.flatnonzero(r.evalue_path >= 20.0)
    assert r.stopped_at == (int(crossed[0]) + 1 if crossed.size else None)
    if r.stopped_at is not None:
        assert r.pvalue_path[r.stopped_at - 1] <= 0.05
        assert r.pvalue_path[r.stopped_at - 2] > 0.05
        assert r.items_saved == 800 - r.stopped_at
    table = PairedTable.from_outcomes(xa, xb)
    assert (r.b, r.c, r.n) == (table.b, table.c, table.n)
    doc = r.to_dict()
    json.dumps(doc, allow_nan=False)
    assert doc["stopped_at"] == r.stopped_at and doc["threshold"] == 20.0


def test_sequential_validation_errors() -> None:
    with pytest.raises(McNemarError, match="alpha"):
        sequential([1, 0], [0, 0], alpha=1.5)
    with pytest.raises(McNemarError, match="alternative"):
        sequential([1, 0], [0, 0], alternative="bigger")
    with pytest.raises(McNemarError, match="prior"):
        sequential([1, 0], [0, 0], prior=(0, 1))
    with pytest.raises(McNemarError, match="not 1/2"):
        sequential([1, 0], [0, 0], prior=0.5)
    with pytest.raises(McNemarError, match="same items"):
        sequential([1, 0, 1], [0, 0])
    with pytest.raises(McNemarError, match="0/1"):
        sequential([1, 2], [0, 0])
    with pytest.raises(McNemarError, match="1-D"):
        sequential([[1, 0]], [[0, 0]])


def test_prior_for_effect_has_the_planned_spread() -> None:
    for theta in (0.55, 0.6, 0.65, 0.7, 0.8, 0.3):
        a, b = prior_for_effect(theta)
        assert a == b
        sd = math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
        assert sd == pytest.approx(abs(theta - 0.5), rel=1e-12)
    r = sequential([1, 0, 1], [0, 0, 0], prior=0.65)
    assert r.prior == prior_for_effect(0.65)


def test_default_prior_is_near_the_best_symmetric_beta() -> None:
    # The module docstring's claim: Beta(4, 4) is within 2% of the best Beta(a, a) in the
    # expected number of discordant items to stop at theta = 0.6, 0.65, 0.7.
    grid = (0.5, 1, 2, 3, 4, 5, 6, 8, 12, 16, 32)
    for theta in (0.6, 0.65, 0.7):
        means = {}
        for a in grid:
            m, p = _stopping_distribution(theta, "two-sided", (a, a), 0.05, 50_000)
            assert p.sum() > 1 - 1e-9
            means[a] = float(m @ p)
        assert means[4] <= 1.02 * min(means.values())


@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=1, max_size=60),
       st.lists(st.integers(1, 20), max_size=6),
       st.sampled_from(["two-sided", "greater", "less"]))
@settings(max_examples=60, deadline=None)
def test_monitor_in_any_batches_equals_sequential(
    items: list[tuple[int, int]], cuts: list[int], alternative: str
) -> None:
    xa = [x for x, _ in items]
    xb = [y for _, y in items]
    whole = sequential(xa, xb, alternative=alternative)
    m = Monitor(alternative=alternative)
    start = 0
    for size in cuts:
        if start >= len(items):
            break
        stop = min(len(items), start + size)
        if stop - start == 1:
            m.update(xa[start], xb[start])  # scalars
        else:
            m.update(xa[start:stop], xb[start:stop])
        start = stop
    if start < len(items):
        m.update(xa[start:], xb[start:])
    assert (m.n, m.b, m.c, m.stopped_at) == (whole.n, whole.b, whole.c, whole.stopped_at)
    assert m.pvalue == pytest.approx(whole.pvalue, rel=1e-12)
    assert m.log10_evalue == pytest.approx(whole.log10_evalue, rel=1e-12, abs=1e-12)
    assert m.to_dict() == whole.to_dict()


def test_monitor_state_does_not_grow() -> None:
    m = Monitor()
    assert not hasattr(m, "__dict__")  # slots only: counts, log e-values, stopping point
    rng = np.random.default_rng(2)
    for _ in range(5):
        m.update(rng.random(10_000) < 0.7, rng.random(10_000) < 0.69)
    assert m.n == 50_000 and len(Monitor.__slots__) == 9


# --- Ville's inequality and the naive alternative ---------------------------------------------


def test_anytime_valid_under_h0_while_peeking_at_mcnemar_is_not() -> None:
    """Under H0 with a look after every item, the e-process rejects at most alpha (+ 3 SE);
    stopping at the first exact McNemar p < 0.05 rejects far more often."""
    rng = np.random.default_rng(20260101)
    runs, items, psi = 2000, 400, 0.3
    u = rng.random((runs, items))
    only_a = np.cumsum(u < psi / 2, axis=1)
    only_b = np.cumsum((u >= psi / 2) & (u < psi), axis=1)
    alpha = 0.05
    se = math.sqrt(alpha * (1 - alpha) / runs)
    anytime = np.any(log_evalue(only_a, only_b) >= math.log(1 / alpha), axis=1).mean()
    naive_p = mcnemar(PairedTable(b=only_a, c=only_b)).pvalue
    naive = np.any(naive_p < alpha, axis=1).mean()
    assert anytime <= alpha + 3 * se
    assert naive > 3 * alpha  # about 0.25 here: five times the nominal level
    assert naive > 4 * anytime
    for alt in ("greater", "less"):
        one = np.any(log_evalue(only_a, only_b, alternative=alt) >= math.log(1 / alpha), axis=1)
        assert one.mean() <= alpha + 3 * se


# --- confidence sequences ----------------------------------------------------------------------


def test_theta_sequence_excludes_half_exactly_when_the_test_rejects() -> None:
    for b, c in [(17, 3), (12, 3), (11, 3), (30, 30), (60, 35), (0, 9), (5, 0)]:
        r = sequential([1] * b + [0] * c + [1], [0] * b + [1] * c + [1])
        ci = r.theta_interval()
        rejects = log_evalue(b, c) >= math.log(20)
        assert (not ci.low <= 0.5 <= ci.high) == rejects, (b, c)
        # The ends solve mixture ratio = 1/alpha (mpmath), unless they are 0 or 1.
        lr = mp.beta(b + 4, c + 4) / mp.beta(4, 4)
        for end in (ci.low, ci.high):
            if 0 < end < 1:
                val = lr / (mp.mpf(end) ** b * (1 - mp.mpf(end)) ** c)
                assert float(val) == pytest.approx(20.0, rel=1e-9)


def test_confidence_sequences_cover_at_all_times() -> None:
    from mcnemar.sequential import _delta_cs, _theta_cs

    rng = np.random.default_rng(5)
    runs, items, p10, p01 = 400, 300, 0.28, 0.12
    u = rng.random((runs, items))
    b = np.cumsum(u < p10, axis=1).astype(float)
    c = np.cumsum((u >= p10) & (u < p10 + p01), axis=1).astype(float)
    n = np.arange(1, items + 1, dtype=float)
    t_lo, t_hi = _theta_cs(b, c, DEFAULT_PRIOR, 0.05)
    theta = p10 / (p10 + p01)
    miss_theta = np.any((t_lo > theta) | (t_hi < theta), axis=1).mean()
    d_lo, d_hi = _delta_cs(n, b, c, DEFAULT_PRIOR, 0.05)
    delta = p10 - p01
    miss_delta = np.any((d_lo > delta) | (d_hi < delta), axis=1).mean()
    se = math.sqrt(0.05 * 0.95 / runs)
    assert miss_theta <= 0.05 + 3 * se
    assert miss_delta <= 0.05 + 3 * se
    # ... and they shrink: after all items the difference sequence excludes 0 in most runs.
    assert (d_lo[:, -1] > 0).mean() > 0.5


# --- planning: stopping times ------------------------------------------------------------------


def test_stopping_distribution_matches_brute_force_enumeration() -> None:
    horizon, theta = 14, 0.72
    for alt, prior in (("two-sided", (1.0, 1.0)), ("greater", DEFAULT_PRIOR),
                       ("two-sided", (0.5, 0.5))):
        bound = math.log(20)
        want = np.zeros(horizon + 1)
        for path in itertools.product((0, 1), repeat=horizon):
            b = np.cumsum(path)
            m = np.arange(1, horizon + 1)
            hit = np.flatnonzero(log_evalue(b, m - b, alternative=alt, prior=prior) >= bound)
            if hit.size:
                k = sum(path)
                prob = theta ** k * (1 - theta) ** (horizon - k)
                want[hit[0] + 1] += prob
        ms, ps = _stopping_distribution(theta, alt, prior, 0.05, horizon)
        got = np.zeros(horizon + 1)
        got[ms.astype(int)] = ps
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def test_expected_items_to_stop_against_simulation() -> None:
    r = stopping_time(0.15, 0.05)
    rng = np.random.default_rng(1234)
    runs, items = 3000, 2000
    u = rng.random((runs, items))
    only_a = np.cumsum(u < 0.15, axis=1)
    only_b = np.cumsum((u >= 0.15) & (u < 0.2), axis=1)
    hit = log_evalue(only_a, only_b) >= math.log(20)
    assert hit.any(axis=1).all()  # every run stopped within 2000 items
    stops = hit.argmax(axis=1) + 1
    assert r.expected_items is not None
    se = stops.std(ddof=1) / math.sqrt(runs)
    assert abs(stops.mean() - r.expected_items) < 3.5 * se
    for q in (0.25, 0.5, 0.8, 0.9):
        n_q = r.quantiles[q]
        assert n_q is not None
        frac = (stops <= n_q).mean()
        assert abs(frac - q) < 3.5 * math.sqrt(q * (1 - q) / runs) + 0.01, q
    # Wald's identity: E[N] = E[M] / psi.
    assert r.expected_items == pytest.approx(r.expected_discordant / 0.2, rel=1e-12)
    assert r.fixed_n is not None and r.fixed_n > 100
    json.dumps(r.to_dict(), allow_nan=False)
    assert "expected items until it stops" in str(r)


def test_stopping_time_under_h0_is_bounded_by_alpha() -> None:
    r = stopping_time(0.05, 0.05, max_discordant=5000)
    assert 0 < r.prob_stop <= 0.05
    assert r.expected_items is None and r.quantiles[0.5] is None
    assert r.fixed_n is None
    with pytest.raises(McNemarError, match="p10"):
        stopping_time(1.2, 0.1)
    with pytest.raises(McNemarError, match="disagree"):
        stopping_time(0.0, 0.0)


def _capital_reference(d: list[int], m: float, alpha: float, sign: int) -> float:
    """log K+(m) (sign 1) or log K-(m) (sign -1) of Waudby-Smith & Ramdas (2024, Theorem 3),
    item by item in plain Python, on x = (d + 1)/2 with predictable plug-in bets, c = 1/2."""
    total, sum_x, sum_sq, out = 0, 0.0, 0.25, 0.0  # sums of mu-hat's and sigma-hat's
    var_prev = 0.25
    for i, di in enumerate(d, start=1):
        x = (di + 1) / 2
        lam = math.sqrt(2 * math.log(2 / alpha) / (var_prev * i * math.log(i + 1)))
        lam = min(lam, 0.5 / m if sign > 0 else 0.5 / (1 - m))
        out += math.log(1 + sign * lam * (x - m))
        total += 1
        sum_x += x
        mean = (0.5 + sum_x) / (total + 1)
        sum_sq += (x - mean) ** 2
        var_prev = sum_sq / (total + 1)
    return out


def test_betting_sequence_ends_cross_the_threshold() -> None:
    rng = np.random.default_rng(3)
    xa = rng.random(300) < 0.8
    xb = rng.random(300) < 0.7
    r = sequential(xa, xb)
    ci = r.confidence_interval(method="betting")
    d = (xa.astype(int) - xb.astype(int)).tolist()
    bound = math.log(2 / 0.05)
    lo_m, hi_m = (ci.low + 1) / 2, (ci.high + 1) / 2
    assert _capital_reference(d, lo_m - 1e-6, 0.05, 1) >= bound
    assert _capital_reference(d, lo_m + 1e-6, 0.05, 1) < bound
    assert _capital_reference(d, hi_m + 1e-6, 0.05, -1) >= bound
    assert _capital_reference(d, hi_m - 1e-6, 0.05, -1) < bound
    assert ci.low < (r.b - r.c) / r.n < ci.high
    with pytest.raises(McNemarError, match="betting"):
        r.confidence_interval(method="bets")


def test_betting_sequence_covers_at_every_checkpoint() -> None:
    rng = np.random.default_rng(8)
    runs, items, p10, p01 = 200, 240, 0.3, 0.14
    misses = 0
    for _ in range(runs):
        u = rng.random(items)
        xa = u < p10
        xb = (u >= p10) & (u < p10 + p01)
        missed = False
        for t in (30, 60, 120, 240):
            ci = sequential(xa[:t], xb[:t]).confidence_interval(method="betting")
            missed |= not ci.low <= p10 - p01 <= ci.high
        misses += missed
    assert misses / runs <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / runs)


def test_summary_words_follow_the_numbers() -> None:
    against = sequential([0] * 50, [1] * 50, alternative="greater")
    text = str(against)
    assert against.stopped_at is None and against.pvalue == 1.0
    assert "do not show that A is more accurate than B at this level" in text
    huge = sequential([1] * 5000, [0] * 5000)
    assert huge.pvalue == 0.0 and "anytime-valid p < 1e-300" in str(huge)
    assert f"e-value is 10^{huge.log10_evalue:.1f}" in str(huge)
    assert huge.to_dict()["evalue"] is None  # beyond a double: null, with log10 given
    assert "after item 11" in str(huge) and huge.stopped_at == 11


def test_stopping_time_takes_a_difference_and_a_discordance() -> None:
    a = stopping_time(difference=0.02, discordance=0.1, max_discordant=3000)
    b = stopping_time(0.06, 0.04, max_discordant=3000)
    assert (a.p10, a.p01) == (b.p10, b.p01) and a.quantiles == b.quantiles
    with pytest.raises(McNemarError, match="not both"):
        stopping_time(0.06, 0.04, difference=0.02, discordance=0.1)
    with pytest.raises(McNemarError, match="go together"):
        stopping_time(difference=0.02)
    with pytest.raises(McNemarError, match="give p10 and p01"):
        stopping_time()
