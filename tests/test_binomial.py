"""Exact Bin(n, 1/2) tails against exact fractions (small n) and 50-digit mpmath (any n)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcnemar._binomial import (
    FAST_N,
    log_lower_tail_half,
    log_midp_tail_half,
    log_pmf_half,
    lower_tail_half,
    pmf_half,
)


def exact_lower(k: int, n: int) -> Fraction:
    return Fraction(sum(math.comb(n, j) for j in range(0, k + 1)), 2**n)


def mp_lower_beta(k: int, n: int, dps: int = 50) -> mp.mpf:
    """P(X <= k) as the regularized incomplete beta I_{1/2}(n-k, k+1), integrated in mpmath.

    Independent of the library's route: the beta density over t in [0, 1/2] in 50-digit
    arithmetic, tanh-sinh quadrature with break points around the mode. Reliable near the
    centre of the distribution (|z| <= 8); in deep tails its quadrature loses digits.
    """
    with mp.workdps(dps):
        a, b = mp.mpf(n - k), mp.mpf(k + 1)
        log_b = mp.loggamma(a) + mp.loggamma(b) - mp.loggamma(a + b)

        def f(t: mp.mpf) -> mp.mpf:
            return mp.exp((a - 1) * mp.log(t) + (b - 1) * mp.log(1 - t) - log_b)

        sd = mp.sqrt(mp.mpf(n)) / (2 * n)
        mode = (a - 1) / (a + b - 2)
        inner = [mode - j * sd for j in (400, 100, 30, 10, 3, 1)]
        pts = sorted({mp.mpf(0), mp.mpf(1) / 2, *[x for x in inner if 0 < x < mp.mpf(1) / 2]})
        return mp.quad(f, pts)


def mp_log_lower_j(k: int, n: int, dps: int = 60) -> mp.mpf:
    """log P(X <= k) = log((n-k) C(n,k) 2^-n J), J = int_0^1 (1-y)^(n-k-1) (1+y)^k dy, in mpmath.

    The same representation the library uses for large n, evaluated independently: log-gamma
    in 60 digits and tanh-sinh quadrature (checked against exact integer sums below).
    """
    with mp.workdps(dps):
        m = n - 2 * k - 1

        def f(y: mp.mpf) -> mp.mpf:
            return mp.exp((n - k - 1) * mp.log1p(-y) + k * mp.log1p(y))

        scale = 1 / (mp.mpf(m) + mp.sqrt(n))
        pts = [mp.mpf(0)] + [j * scale for j in (1, 3, 10, 30, 100, 300) if j * scale < 1]
        integral = mp.quad(f, [*pts, mp.mpf(1)])
        log_pmf = mp.loggamma(n + 1) - mp.loggamma(k + 1) - mp.loggamma(n - k + 1) - n * mp.log(2)
        return mp.log(n - k) + log_pmf + mp.log(integral)


def exact_log_lower(k: int, n: int) -> mp.mpf:
    """log P(X <= k) from the exact integer sum of binomial coefficients."""
    coef = total = 1
    for j in range(k):
        coef = coef * (n - j) // (j + 1)
        total += coef
    with mp.workdps(50):
        return mp.log(mp.mpf(total)) - n * mp.log(2)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 10, 25, 64, 127, 128, 129, 200, 501])
def test_lower_tail_equals_exact_fraction(n: int) -> None:
    ks = np.arange(-1, n + 2)
    got = lower_tail_half(ks, n)
    for k, value in zip(ks.tolist(), got.tolist(), strict=True):
        want = 0.0 if k < 0 else float(exact_lower(min(k, n), n))
        assert value == pytest.approx(want, rel=1e-13, abs=0), (k, n)


@pytest.mark.parametrize("n", [1, 2, 7, 20, 99, 300])
def test_midp_tail_equals_exact_fraction(n: int) -> None:
    ks = np.arange(0, n + 1)
    got = np.exp(log_midp_tail_half(ks, n))
    for k, value in zip(ks.tolist(), got.tolist(), strict=True):
        want = (exact_lower(k - 1, n) if k > 0 else Fraction(0)) + Fraction(
            math.comb(n, k), 2 ** (n + 1)
        )
        assert value == pytest.approx(float(want), rel=1e-13), (k, n)


@pytest.mark.parametrize("n", [5, 40, 1000, 12345, 10**6, 10**9, 2 * 10**12, 10**15])
def test_pmf_against_mpmath(n: int) -> None:
    for k in {0, 1, n // 3, n // 2 - int(math.sqrt(n)), n // 2}:
        with mp.workdps(50):
            want = mp.exp(
                mp.loggamma(n + 1) - mp.loggamma(k + 1) - mp.loggamma(n - k + 1) - n * mp.log(2)
            )
            got = log_pmf_half(k, n)
            assert float(abs(mp.mpf(float(got)) - mp.log(want))) < 1e-13 * max(
                1.0, abs(float(mp.log(want)))
            )
    assert float(pmf_half(3, 5)) == pytest.approx(10 / 32, rel=1e-15)


def _check(k: int, n: int, want_log: mp.mpf) -> None:
    got = float(lower_tail_half(k, n))
    log_got = float(log_lower_tail_half(k, n))
    # log p to 1e-14 relative, so p itself to about |log p| * 1e-14 (1e-12 for p > 1e-43,
    # the accuracy a double holds in such tails).
    assert abs(mp.mpf(log_got) - want_log) <= 1e-14 * max(1.0, abs(float(want_log)))
    if want_log > -690:
        want = mp.exp(want_log)
        assert abs(mp.mpf(got) - want) / want < max(1e-12, 2e-15 * abs(float(want_log)))


# Both routes (incomplete beta up to FAST_N, quadrature beyond) against exact integer sums,
# from the centre of the distribution (z = 0.2 standard deviations) to tails far below 1e-300.
@pytest.mark.parametrize(
    ("n", "z"),
    [
        (n, z)
        for n in (300, 9_999, int(FAST_N) + 1, 30_001)
        for z in (0.2, 1.0, 3.0, 8.0, 30.0, 100.0)
        if n / 2 - z * math.sqrt(n) / 2 >= 0  # z inside the support
    ],
)
def test_lower_tail_against_exact_integer_sums(n: int, z: float) -> None:
    k = int(n / 2 - z * math.sqrt(n) / 2)
    _check(k, n, exact_log_lower(k, n))


# The accuracy targets for huge D: 1.2e9, 1e10, 2e12 and 1e15 (scipy's binomial cdf drifts to
# 6e-12 and 7.5e-11 at the first and third). Two mpmath references: the beta integral near the
# centre, and the J representation everywhere.
@pytest.mark.parametrize("n", [10**7, 1_200_000_000, 10**10, 2 * 10**12, 10**15])
@pytest.mark.parametrize("z", [0.2, 1.0, 3.0, 8.0, 30.0, 100.0])
def test_lower_tail_relative_error_against_mpmath(n: int, z: float) -> None:
    k = int(n / 2 - z * math.sqrt(n) / 2)
    want_log = mp_log_lower_j(k, n)
    _check(k, n, want_log)
    if z <= 8:
        beta = mp_lower_beta(k, n)
        assert abs(mp.log(beta) - want_log) < 1e-13
        assert abs(float(lower_tail_half(k, n)) - beta) / beta < 1e-12


def test_log_tail_where_the_double_underflows() -> None:
    # P(X <= 0) for n = 5000 is 2**-5000; two-sided doubles it (b = 0, c = 5000).
    assert float(log_lower_tail_half(0, 5000)) == pytest.approx(-5000 * math.log(2), rel=1e-15)
    # Deep tail with k > 0 in the underflow region, against exact integers.
    n, k = 4000, 300
    want = mp.log(mp.mpf(sum(math.comb(n, j) for j in range(k + 1)))) - n * mp.log(2)
    assert float(log_lower_tail_half(k, n)) == pytest.approx(float(want), rel=1e-13)
    assert float(lower_tail_half(k, n)) == 0.0  # underflows, but the log is finite


@settings(max_examples=200, deadline=None)
@given(n=st.integers(0, 10**12), frac=st.floats(0, 1))
def test_symmetry_and_range(n: int, frac: float) -> None:
    k = int(frac * n)
    lo = float(lower_tail_half(k, n))
    assert 0.0 <= lo <= 1.0
    if n > 0 and k < n:
        # L(k) + L(n - k - 1) = 1
        assert lo + float(lower_tail_half(n - k - 1, n)) == pytest.approx(1.0, abs=1e-12)
        mid = math.exp(float(log_midp_tail_half(k, n)))
        assert mid <= lo + 1e-15
        assert mid + math.exp(float(log_midp_tail_half(n - k, n))) == pytest.approx(1.0, abs=1e-12)


def test_vectorized_equals_scalar() -> None:
    rng = np.random.default_rng(7)
    n = rng.integers(0, 10**6, size=300)
    k = (rng.random(300) * n).astype(np.int64)
    n[:20] = rng.integers(10**9, 10**13, size=20)
    k[:20] = n[:20] // 2 - rng.integers(0, 10**5, size=20)
    vec = log_lower_tail_half(k, n)
    one = np.array([float(log_lower_tail_half(int(x), int(y))) for x, y in zip(k, n, strict=True)])
    np.testing.assert_array_equal(vec, one)


# --------------------------------------------------------------------------------------------
# The Stirling error and the deviance term (Loader 2000): one implementation, used by these
# tails and by mcnemar.planning, checked against 80-digit mpmath over both callers' arguments.


def _mp_stirlerr(n: float) -> mp.mpf:
    with mp.workdps(80):
        x = mp.mpf(n)
        return mp.loggamma(x + 1) - (x + mp.mpf("0.5")) * mp.log(x) + x - mp.log(2 * mp.pi) / 2


_WHOLE_N = sorted(
    {*range(1, 41), *(round(float(v)) for v in np.logspace(1.7, math.log10(2.0**53), 60))}
)


def test_stirlerr_against_mpmath_for_whole_n() -> None:
    from mcnemar._binomial import _stirlerr

    n = np.array(_WHOLE_N, dtype=np.float64)
    got = _stirlerr(n)
    want = np.array([float(_mp_stirlerr(v)) for v in n])
    # The table below 16 and the 7-term series above are correctly rounded or nearly so
    # (the former gammaln route lost up to 1.2e-12 relative at n = 14).
    np.testing.assert_allclose(got, want, rtol=5e-16, atol=0)


def test_stirlerr_of_fractional_n_uses_log_gamma() -> None:
    from mcnemar._binomial import _stirlerr

    n = np.array([1.5, 2.25, 7.5, 14.9, 15.5, 30.5])
    want = np.array([float(_mp_stirlerr(v)) for v in n])
    np.testing.assert_allclose(_stirlerr(n), want, rtol=5e-12, atol=0)


def test_bd0_against_mpmath_on_the_callers_arguments() -> None:
    from mcnemar._binomial import _bd0

    rng = np.random.default_rng(20260)
    n = np.maximum(np.round(10 ** rng.uniform(0.5, 15.0, 300)), 2.0)
    p = np.concatenate([np.full(100, 0.5), rng.uniform(1e-6, 1.0 - 1e-6, 200)])
    spread = rng.choice([0.01, 1.0, 5.0, 50.0], 300) * np.sqrt(n * p * (1.0 - p))
    x = np.clip(np.round(n * p + rng.normal(0.0, 1.0, 300) * spread), 1.0, n - 1.0)
    mean = n * p  # n/2 for the tails here, n p for planning's pmf
    got = _bd0(x, mean)
    with mp.workdps(60):
        want = np.array(
            [float(mp.mpf(a) * mp.log(mp.mpf(a) / mp.mpf(m)) + mp.mpf(m) - mp.mpf(a))
             for a, m in zip(x, mean, strict=True)]
        )
    np.testing.assert_allclose(got, want, rtol=2e-14, atol=0)
    assert float(_bd0(np.array([0.0]), np.array([3.5]))[0]) == 3.5


def test_planning_uses_the_same_kernel() -> None:
    from mcnemar import _binomial
    from mcnemar.planning import _kernel

    assert _kernel._stirlerr is _binomial._stirlerr
    assert _kernel._bd0 is _binomial._bd0


@pytest.mark.parametrize(
    ("x", "n", "p"),
    [(1, 2, 0.5), (7, 14, 0.3), (15, 31, 0.5), (40, 100, 0.45), (123_456, 250_000, 0.5),
     (3_001, 10**9, 3e-6), (10**12 // 2 - 10**6, 10**12, 0.5)],
)
def test_pmf_of_both_callers_to_1e_13(x: int, n: int, p: float) -> None:
    """Both pmfs built on the kernel stay within 1e-13 relative of the exact probability."""
    from mcnemar.planning import _log_pmf

    with mp.workdps(60):
        exact = (
            mp.log(mp.binomial(n, x)) + x * mp.log(mp.mpf(p)) + (n - x) * mp.log(1 - mp.mpf(p))
        )
    assert abs(math.expm1(float(_log_pmf(float(x), float(n), p, 1.0 - p)) - float(exact))) < 1e-13
    if p == 0.5:
        assert abs(math.expm1(float(log_pmf_half(x, n)) - float(exact))) < 1e-13


# --------------------------------------------------------------------------------------------
# The split routes of the many-pairs callers: the plain incomplete beta where the tail does not
# underflow, the log-space quadrature where it does, chosen by a Hoeffding screen.


def _tail_tolerance(n: int) -> float:
    """Relative error allowed for a tail of Bin(n, 1/2) as a double: 1e-12, or 1.5e-16 n.

    Measured against exact sums for every k of n = 1e3 ... 1e4: both routes err by up to
    ~1.2e-16 n relative in tails from 1e-300 to 1e-20 (the incomplete beta 1.0e-12 at
    n = 1e4 where it is used, tails of 1e-280 and more; exp of the log-space value 1.4e-12),
    an error of the double-precision exponent of size n log 2 rather than of either method.
    Beyond FAST_N the log-space route alone is used, and _check's bounds apply.
    """
    return max(1e-12, 1.5e-16 * min(n, FAST_N))


def _switch_k(n: int) -> int:
    """The largest k whose tail P(X <= k) is below _TINY (the plain route's floor), or -1."""
    from mcnemar._binomial import _TINY

    ks = np.arange(0, (n - 1) // 2 + 1)
    below = np.flatnonzero(log_lower_tail_half(ks, n) < math.log(_TINY))
    return int(below[-1]) if below.size else -1


def _assert_close_to(got: np.ndarray, want: np.ndarray, rel: float, atol: float = 0.0) -> None:
    """Relative closeness, with zeros and infinities required to match exactly."""
    same = got == want
    diff = np.abs(got - want) <= rel * np.abs(want) + atol
    assert np.all(same | diff), (got[~(same | diff)], want[~(same | diff)])


def _random_pairs(rng: np.random.Generator, size: int, top: int) -> tuple[np.ndarray, np.ndarray]:
    """(b, c) counts over the whole range: even splits, D = 0, and tails far below 1e-300."""
    n = rng.integers(0, top, size=size)
    b = np.rint(rng.beta(0.7, 0.7, size=size) * n).astype(np.int64)
    return b, n - b


@pytest.mark.parametrize("top", [60, 2_000, int(FAST_N) + 2, 10**6])
def test_split_routes_equal_the_log_space_route(top: int) -> None:
    """The split routes against log_lower_tail_half (and so against the core's p-values)."""
    from mcnemar._binomial import lower_tail_and_log_half, two_sided_half
    from mcnemar.inference import pvalues

    rng = np.random.default_rng(top)
    b, c = _random_pairs(rng, 20_000, top)
    n = b + c
    small = np.minimum(b, c)
    p, log_p = two_sided_half(b, n)
    want_log = np.where(n == 0, 0.0, np.minimum(0.0, math.log(2) + log_lower_tail_half(small, n)))
    _assert_close_to(log_p, want_log, 1e-14)
    _assert_close_to(p, np.exp(want_log), 1e-12)
    # The core takes exact integer tails for small tables: log10 p of a p-value that is 1 - 1
    # ulp there may be 0 in the core (hence atol, far below 1e-12 relative in p).
    core = pvalues(b, c, "exact", "two-sided")
    _assert_close_to(p, core[1], 1e-12)
    _assert_close_to(log_p / math.log(10), core[2], 1e-12, atol=1e-15)
    for alternative, k in (("greater", c), ("less", b)):
        tail, log_tail = lower_tail_and_log_half(k, n)
        # In the upper half, log L = log1p(-L') is as close as L' and exp(log L') are (the
        # round trip's |log L'| * 1e-16); in the lower half the logs are the same numbers.
        _assert_close_to(log_tail, log_lower_tail_half(k, n), 1e-12)
        lower = 2 * k + 1 <= n
        np.testing.assert_array_equal(log_tail[lower], log_lower_tail_half(k, n)[lower])
        _assert_close_to(tail, lower_tail_half(k, n), 1e-12)
        core = pvalues(b, c, "exact", alternative)
        _assert_close_to(tail, core[1], 1e-12)
        _assert_close_to(log_tail / math.log(10), core[2], 1e-12, atol=1e-15)


def test_split_routes_at_the_edges() -> None:
    from mcnemar._binomial import lower_tail_and_log_half, two_sided_half

    # D = 0 and even splits give 1; one discordant item gives 1; min(1, 2 * tail) otherwise
    p, log_p = two_sided_half([0, 3, 5000, 0, 1, 0, 2], [0, 6, 10_000, 1, 1, 2, 5])
    assert p.tolist() == [1.0, 1.0, 1.0, 1.0, 1.0, 0.5, 1.0]
    assert log_p.tolist()[:5] == [0.0] * 5 and log_p[5] == pytest.approx(-math.log(2), rel=1e-15)
    # the tails of every k of one n, both halves, against exact fractions
    n = 41
    ks = np.arange(-1, n + 2)
    tail, log_tail = lower_tail_and_log_half(ks, n)
    for k, value, log_value in zip(ks.tolist(), tail.tolist(), log_tail.tolist(), strict=True):
        want = 0.0 if k < 0 else float(exact_lower(min(k, n), n))
        assert value == pytest.approx(want, rel=1e-14, abs=0), k
        assert log_value == (-math.inf if k < 0 else pytest.approx(math.log(want), rel=1e-14))
    # a tail that underflows a double: p = 0 with a finite log
    p, log_p = two_sided_half(0, 5000)
    assert float(p) == 0.0 and float(log_p) == pytest.approx(-4999 * math.log(2), rel=1e-15)
    # shapes broadcast like the other kernels'
    assert two_sided_half(np.zeros((2, 3), int), 10)[0].shape == (2, 3)


@pytest.mark.parametrize("n", [931, 1_000, 2_345, 5_000, int(FAST_N)])
def test_split_routes_around_the_switch(n: int) -> None:
    """Tails on both sides of the plain route's floor: the same routes as before, and exact."""
    from mcnemar._binomial import _TINY, _lower_small_split, two_sided_half

    k_switch = _switch_k(n)
    assert k_switch >= 0
    ks = np.arange(max(0, k_switch - 3), k_switch + 4)
    nn = np.full(ks.size, n)
    tail, log_tail, plain = _lower_small_split(ks.astype(float), nn.astype(float))
    # plain exactly where the incomplete beta itself is at least _TINY: the routing of
    # log_lower_tail_half, which uses the incomplete beta there and the quadrature below
    from scipy import special

    np.testing.assert_array_equal(plain, special.betainc(n - ks, ks + 1.0, 0.5) >= _TINY)
    assert plain.any() and not plain.all()
    p, log_p = two_sided_half(ks, nn)
    rel = _tail_tolerance(n)
    for k, value, log_value, t, lt in zip(ks.tolist(), p, log_p, tail, log_tail, strict=True):
        want_log = exact_log_lower(k, n)
        assert abs(mp.mpf(float(lt)) - want_log) <= 1e-14 * abs(want_log)
        assert abs(mp.mpf(float(t)) - mp.exp(want_log)) <= rel * mp.exp(want_log)
        want_p = 2 * mp.exp(want_log)
        assert abs(mp.mpf(float(value)) - want_p) <= rel * want_p
        assert abs(mp.mpf(float(log_value)) - mp.log(want_p)) <= 1e-14 * abs(mp.log(want_p))


@pytest.mark.parametrize("n", [2, 77, 930, 4_321, int(FAST_N), int(FAST_N) + 1, 10**5, 10**6])
def test_two_sided_against_mpmath(n: int) -> None:
    """min(1, 2 P(X <= k)) from the centre to tails far below 1e-300, for D up to 1e6."""
    from mcnemar._binomial import two_sided_half

    zs = (0.0, 0.2, 1.0, 3.0, 8.0, 30.0, 100.0)
    ks = sorted({0, 1, *(max(0, int(n / 2 - z * math.sqrt(n) / 2)) for z in zs)} - {n})
    p, log_p = two_sided_half(ks, n)
    for k, value, log_value in zip(ks, p.tolist(), log_p.tolist(), strict=True):
        small = min(k, n - k)
        if 2 * small + 1 > n:
            assert (value, log_value) == (1.0, 0.0)
            continue
        # exact integer sums where they are quick, the mpmath J integral beyond
        want_tail = exact_log_lower(small, n) if n <= 20_000 else mp_log_lower_j(small, n)
        want_log = min(mp.mpf(0), mp.log(2) + want_tail)
        assert abs(mp.mpf(log_value) - want_log) <= 1e-14 * max(1.0, abs(float(want_log)))
        if want_log > -700:
            # exp of the log beyond the plain route's range (|log p| times the log's relative
            # error, as _check allows)
            want = mp.exp(want_log)
            bound = max(_tail_tolerance(n), 2e-15 * abs(float(want_log)))
            assert abs(mp.mpf(value) - want) <= bound * want, (k, n)


@settings(max_examples=300, deadline=None)
@given(n=st.integers(1, int(FAST_N)), frac=st.floats(0, 0.5))
def test_hoeffding_screen_never_drops_a_plain_tail(n: int, frac: float) -> None:
    """The screen's bound is above the true log tail, and by the margin where the tail is
    in the plain range: no tail the plain route handles is sent to the quadrature."""
    from mcnemar._binomial import _LOG_TINY, _SCREEN_MARGIN, _log_hoeffding_half

    k = min(int(frac * n), (n - 1) // 2)
    if 2 * k + 1 > n:
        return
    bound = float(_log_hoeffding_half(np.array([float(k)]), np.array([float(n)]))[0])
    true = float(log_lower_tail_half(k, n))
    assert bound >= true - 1e-9 * abs(true)
    if true >= _LOG_TINY:
        assert bound >= _LOG_TINY - _SCREEN_MARGIN


def test_one_probability_on_floats_gets_the_bits_of_one_element_arrays() -> None:
    """Loader's form of one Pr(X = k) runs on Python floats (:func:`_log_pmf_inner` on
    _FLOATS); the same formula on one-element arrays, bit for bit, for small, whole and huge
    counts (small non-whole Stirling errors leave the floats for the arrays)."""
    from mcnemar import _binomial

    rng = np.random.default_rng(21)
    n = np.concatenate([rng.integers(2, 100, 300), rng.integers(100, 10**7, 200),
                        [2.0**52 - 1, 2.0**40, 31.0, 16.0, 3.0]]).astype(np.float64)
    k = np.maximum(1.0, np.minimum(n - 1.0, np.floor(rng.random(n.size) * n)))
    k[:40] = np.minimum(n[:40] - 1.0, rng.integers(1, 16, 40))  # small k: the table
    floats = 0
    for ki, ni in zip(k.tolist(), n.tolist(), strict=True):
        with np.errstate(divide="ignore", invalid="ignore"):
            (want,) = _binomial._log_pmf_inner(_binomial._ARRAYS, np.array([ki]), np.array([ni]))
        (got,) = _binomial._log_pmf_inner(_binomial._FLOATS, ki, ni)
        floats += 1
        assert got == float(want[0]), (ki, ni)
        assert float(log_pmf_half(ki, ni)) == got
    assert floats == n.size
    with pytest.raises(ValueError):  # a fractional small count: gammaln, on the arrays
        _binomial._stirlerr_of(_binomial._FLOATS, 2.5)
    assert _binomial._stirlerr(np.array([2.5]))[0] == pytest.approx(
        float(mp.log(mp.gamma(3.5)) - mp.log(mp.sqrt(2 * mp.pi * 2.5)) - 2.5 * mp.log(2.5)
              + 2.5), rel=1e-12)
