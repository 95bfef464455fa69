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
