"""Tests for mcnemar.planning: power, sample size and minimum detectable effect.

Reference values: MESS (R) tests of ``power_mcnemar_test`` and the values in
docs/references.md, 'Power and sample size'; independent checks: exact rational enumeration
of all tables (fractions), the package's own McNemar p-values, mpmath, and a seeded Monte Carlo
simulation.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special

from mcnemar import planning
from mcnemar.errors import McNemarError
from mcnemar.planning import (
    discordant_probabilities,
    minimum_detectable_effect,
    power,
    sample_size,
)

# --------------------------------------------------------------------------------------------
# published reference values


def test_mess_connor_sample_size_two_sided() -> None:
    # MESS tests: power_mcnemar_test(paid=0.05, psi=9, power=0.8)$n rounds to 22
    # (docs/references.md, 'Power and sample size': unrounded 22.0113). paid is the smaller
    # discordant probability.
    res = sample_size(0.05 * 9, 0.05, power=0.8, method="connor")
    assert round(res.n_connor) == 22
    assert res.n_connor == pytest.approx(22.0113, abs=5e-5)
    assert res.n == 23 and res.n_first == 23  # the smallest whole n reaching the target


def test_mess_connor_sample_size_one_sided() -> None:
    # MESS tests: alternative="one.sided" gives 17 (unrounded 17.0948)
    res = sample_size(0.45, 0.05, power=0.8, method="connor", alternative="greater")
    assert round(res.n_connor) == 17
    assert res.n_connor == pytest.approx(17.0948, abs=5e-5)
    # the same with B the better system and the matching one-sided alternative
    res_less = sample_size(0.05, 0.45, power=0.8, method="connor", alternative="less")
    assert res_less.n_connor == pytest.approx(res.n_connor, rel=1e-14)


@pytest.mark.parametrize(
    ("paid", "psi", "target", "expected"),
    [(0.125, 2, 0.9, 247.997), (0.1, 2, 0.8, 233.09)],  # docs/references.md, MESS formula
)
def test_connor_sample_size_other_values(
    paid: float, psi: float, target: float, expected: float
) -> None:
    res = sample_size(paid * psi, paid, power=target, method="connor")
    assert res.n_connor == pytest.approx(expected, abs=6e-3)


def test_mess_exact_power() -> None:
    # MESS tests: power_mcnemar_test(144, paid=0.25, psi=1.8, method="exact",
    # alternative="one.sided", sig.level=0.025)$power rounds to 0.80; docs/references.md
    # ('Power and sample size') gives this project's 0.8009.
    res = power(144, 0.25 * 1.8, 0.25, alpha=0.025, alternative="greater")
    assert round(res.power, 2) == 0.80
    assert res.power == pytest.approx(0.8009, abs=5e-5)


def test_references_exact_power_non_strict() -> None:
    # docs/references.md, 'Power and sample size' (exact2x2 non-strict convention: rejections
    # in the direction of the difference only): pb = 0.5, pc = 0.3, two-sided 0.05 -> 0.569312
    # at n = 100 (Connor 0.611518) and 0.119118 at n = 20.
    res = power([100, 20], 0.5, 0.3)
    assert res.power_directional[0] == pytest.approx(0.569312, abs=5e-7)
    assert res.power_directional[1] == pytest.approx(0.119118, abs=5e-7)
    assert res.power_connor[0] == pytest.approx(0.611518, abs=5e-7)
    # counting rejections in either direction adds the small wrong-direction part
    assert np.all(res.power > res.power_directional)
    assert res.power[1] - res.power_directional[1] < 1e-3


# --------------------------------------------------------------------------------------------
# exact enumeration with fractions


def _null_cdf(j: int, m: int) -> Fraction:
    return Fraction(sum(math.comb(m, i) for i in range(j + 1)), 2**m)


def _pvalue(b: int, c: int, method: str, alternative: str) -> float | Fraction:
    """The package's p-value conventions, computed independently."""
    m = b + c
    if m == 0:
        return Fraction(1)
    if method == "asymptotic":
        z = (b - c) / math.sqrt(m)
        if alternative == "two-sided":
            return math.erfc(abs(z) / math.sqrt(2))
        return 0.5 * math.erfc((z if alternative == "greater" else -z) / math.sqrt(2))
    pmf = [Fraction(math.comb(m, i), 2**m) for i in range(m + 1)]
    if alternative == "two-sided":
        k = min(b, c)
        if method == "exact":
            return min(Fraction(1), 2 * _null_cdf(k, m))
        return min(Fraction(1), 2 * (_null_cdf(k - 1, m) + pmf[k] / 2))
    x = b if alternative == "greater" else c  # both tails are P(X >= x) by symmetry
    upper = sum(pmf[x:], Fraction(0))
    return upper if method == "exact" else upper - pmf[x] / 2


def _enumerated_power(
    n: int, p10: Fraction, p01: Fraction, alpha: Fraction, method: str, alternative: str
) -> tuple[Fraction, Fraction]:
    rest = 1 - p10 - p01
    total = Fraction(0)
    directional = Fraction(0)
    for b in range(n + 1):
        for c in range(n + 1 - b):
            prob = (
                Fraction(math.factorial(n), math.factorial(b) * math.factorial(c)
                         * math.factorial(n - b - c))
                * p10**b * p01**c * rest ** (n - b - c)
            )
            if _pvalue(b, c, method, alternative) <= alpha:
                total += prob
                if (b > c) == (p10 >= p01) and b != c:
                    directional += prob
    return total, directional


@pytest.mark.parametrize("method", ["exact", "midp", "asymptotic"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_power_matches_exact_enumeration(method: str, alternative: str) -> None:
    n, p10, p01, alpha = 16, Fraction(1, 2), Fraction(3, 10), Fraction(1, 10)
    total, directional = _enumerated_power(n, p10, p01, alpha, method, alternative)
    res = power(n, 0.5, 0.3, alpha=0.1, method=method, alternative=alternative)
    assert res.power == pytest.approx(float(total), abs=1e-14)
    if alternative != "less":  # "less" points against the difference: directional power 0
        assert res.power_directional == pytest.approx(float(directional), abs=1e-14)
    else:
        assert res.power_directional == 0.0


def test_power_enumeration_b_better() -> None:
    # B the better system: the directional power counts rejections with c > b
    n, p10, p01, alpha = 12, Fraction(1, 5), Fraction(1, 2), Fraction(1, 20)
    total, directional = _enumerated_power(n, p10, p01, alpha, "exact", "two-sided")
    res = power(n, 0.2, 0.5)
    assert res.power == pytest.approx(float(total), abs=1e-14)
    assert res.power_directional == pytest.approx(float(directional), abs=1e-14)


@pytest.mark.parametrize("method", ["exact", "midp", "asymptotic"])
@pytest.mark.parametrize(
    ("alpha", "alternative"),
    [(0.01, "two-sided"), (0.05, "two-sided"), (0.2, "two-sided"),
     (0.01, "greater"), (0.05, "greater"), (0.2, "greater"), (0.6, "greater")],
)
def test_rejection_region_brute_force(method: str, alpha: float, alternative: str) -> None:
    # j(m) must be the largest count whose p-value is <= alpha, for every m up to 70
    tail = alpha / 2 if alternative == "two-sided" else alpha
    m_values = np.arange(0, 71, dtype=np.float64)
    j = planning._critical_lower(m_values, tail, method)
    for m in range(71):
        rejected = {
            b for b in range(m + 1) if _pvalue(b, m - b, method, alternative) <= alpha
        }
        jm = int(j[m])
        region = set(range(m - jm, m + 1)) if jm >= 0 else set()
        if alternative == "two-sided" and jm >= 0:
            region |= set(range(jm + 1))
        assert region == rejected, (m, jm)


@pytest.mark.parametrize("method", ["exact", "midp", "asymptotic"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_rejection_region_matches_package_test(method: str, alternative: str) -> None:
    inference = pytest.importorskip("mcnemar.inference")
    from mcnemar.table import PairedTable

    m_max = 200
    m = np.repeat(np.arange(m_max + 1), np.arange(m_max + 1) + 1)
    b = np.concatenate([np.arange(k + 1) for k in range(m_max + 1)])
    pvalues = inference.mcnemar(
        PairedTable(b=b, c=m - b), method=method, alternative=alternative
    ).pvalue
    tail = 0.025 if alternative == "two-sided" else 0.05
    j = planning._critical_lower(np.arange(m_max + 1, dtype=np.float64), tail, method)[m]
    favoured = b if alternative != "less" else m - b  # the count that the one-sided test uses
    in_region = favoured >= m - j
    if alternative == "two-sided":
        in_region |= b <= j
    in_region &= j >= 0
    np.testing.assert_array_equal(in_region, pvalues <= 0.05)


def test_fast_region_equals_bisection_for_large_m() -> None:
    m = np.concatenate([np.arange(1, 3001), np.arange(40_000, 42_000), [10**6, 10**8]])
    m = m.astype(np.float64)
    for method in ("exact", "midp"):
        for tail in (0.025, 0.05, 1e-6):
            fast = planning._critical_lower(m, tail, method)
            slow = planning._critical_bisect(m.copy(), tail, method)
            np.testing.assert_array_equal(fast, slow)


# --------------------------------------------------------------------------------------------
# numerical building blocks


@pytest.mark.parametrize(
    ("x", "n", "p"),
    [
        (0, 10, 0.3), (10, 10, 0.3), (3, 10, 0.3), (7, 15, 0.5), (1, 40, 1e-3),
        (250_000, 500_000, 0.5), (250_900, 500_000, 0.5), (100_000, 1_000_000, 0.1),
        (3_001, 1_000_000_000, 3e-6), (499_990_000, 1_000_000_000, 0.5), (17, 20, 0.999),
    ],
)
def test_log_pmf_against_mpmath(x: int, n: int, p: float) -> None:
    mpmath.mp.dps = 40
    exact = (
        mpmath.log(mpmath.binomial(n, x))
        + x * mpmath.log(mpmath.mpf(p))
        + (n - x) * mpmath.log(1 - mpmath.mpf(p))
    )
    got = planning._log_pmf(float(x), float(n), p, 1.0 - p)
    assert math.exp(float(got) - float(exact)) == pytest.approx(1.0, abs=2e-13)


def test_log_pmf_edges() -> None:
    lp = planning._log_pmf(
        np.array([-1.0, 0.0, 5.0, 6.0, 0.0, 5.0, 0.0]),
        np.array([5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 0.0]),
        np.array([0.3, 0.0, 1.0, 0.3, 1.0, 0.0, 0.4]),
        np.array([0.7, 1.0, 0.0, 0.7, 0.0, 1.0, 0.6]),
    )
    np.testing.assert_array_equal(np.exp(lp), [0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0])


def test_path_recurrence_matches_incomplete_beta() -> None:
    rng = np.random.default_rng(7)
    m = np.arange(2_000, 9_000, dtype=np.float64)
    k = np.floor(m / 2 + 1.3 * np.sqrt(m))
    for theta in (0.5, 0.52, rng.uniform(0.3, 0.7), 0.95, 1.0, 0.0):
        th = np.full(m.shape, theta)
        fast = planning._path_sf(m, k, th, 1.0 - th, planning._runs(m))
        direct = planning._binom_sf(k, m, theta)
        np.testing.assert_allclose(fast, direct, rtol=0, atol=2e-14)


def test_truncated_sum_equals_full_sum() -> None:
    # the Bernstein window may drop at most 1e-15 of the binomial mass
    n, p10, p01 = 3000, 0.07, 0.05
    psi, theta = p10 + p01, p10 / (p10 + p01)
    m = np.arange(n + 1, dtype=np.float64)
    weights = np.exp(planning._log_pmf(m, float(n), psi, 1 - psi))
    j = planning._critical_bisect(m.copy(), 0.025, "exact")
    j[0] = -1
    cp = planning._binom_sf(m - j, m, theta) + planning._binom_sf(m - j, m, 1 - theta)
    assert power(n, p10, p01).power == pytest.approx(float(np.sum(weights * cp)), abs=1e-14)


# --------------------------------------------------------------------------------------------
# Monte Carlo


def test_exact_power_matches_monte_carlo() -> None:
    import scipy.stats

    rng = np.random.default_rng(20240611)
    n, p10, p01, reps = 150, 0.28, 0.16, 40_000
    draws = rng.multinomial(n, [p10, p01, 1 - p10 - p01], size=reps)
    b, c = draws[:, 0], draws[:, 1]
    m = b + c
    p = np.minimum(1.0, 2.0 * scipy.stats.binom.cdf(np.minimum(b, c), m, 0.5))
    p[m == 0] = 1.0
    rate = float(np.mean(p <= 0.05))
    exact = power(n, p10, p01).power
    se = math.sqrt(exact * (1 - exact) / reps)
    assert abs(rate - exact) < 4 * se


def test_midp_one_sided_power_matches_monte_carlo() -> None:
    import scipy.stats

    rng = np.random.default_rng(99)
    n, p10, p01, reps = 90, 0.2, 0.1, 40_000
    draws = rng.multinomial(n, [p10, p01, 1 - p10 - p01], size=reps)
    b, c = draws[:, 0], draws[:, 1]
    m = b + c
    p = scipy.stats.binom.sf(b, m, 0.5) + 0.5 * scipy.stats.binom.pmf(b, m, 0.5)
    p[m == 0] = 1.0
    rate = float(np.mean(p <= 0.05))
    exact = power(n, p10, p01, method="midp", alternative="greater").power
    assert abs(rate - exact) < 4 * math.sqrt(exact * (1 - exact) / reps)


# --------------------------------------------------------------------------------------------
# power: properties and vectorization


def test_power_vectorized_matches_scalar_calls() -> None:
    n = np.array([[40], [400]])
    p10 = np.array([0.1, 0.2, 0.3])
    res = power(n, p10, 0.05, method="midp")
    assert res.power.shape == (2, 3)
    for i in range(2):
        for k in range(3):
            single = power(int(n[i, 0]), float(p10[k]), 0.05, method="midp")
            assert isinstance(single.power, float)
            assert res.power[i, k] == pytest.approx(single.power, abs=1e-15)
            assert res.power_connor[i, k] == pytest.approx(single.power_connor, abs=1e-15)


def test_power_symmetry_and_direction() -> None:
    two = power([30, 300], 0.3, 0.1)
    swapped = power([30, 300], 0.1, 0.3)
    np.testing.assert_allclose(two.power, swapped.power, atol=1e-15)
    greater = power(200, 0.15, 0.1, alternative="greater")
    less = power(200, 0.1, 0.15, alternative="less")
    assert greater.power == pytest.approx(less.power, abs=1e-15)


def test_no_discordance_never_rejects() -> None:
    res = power(1000, 0.0, 0.0)
    assert res.power == 0.0 and res.power_connor == 0.0
    # one-sided mid-p at a large alpha would reject m = 0 without the D = 0 convention
    assert power(5, 0.0, 0.0, method="midp", alternative="greater", alpha=0.7).power == 0.0


def test_size_is_at_most_alpha_for_exact_test() -> None:
    res = power(np.arange(1, 300), 0.2, 0.2)
    assert np.all(res.power <= 0.05 + 1e-15)
    assert res.power.max() > 0.03


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 3000),
    psi=st.floats(0.01, 1.0),
    t1=st.floats(0.0, 1.0),
    t2=st.floats(0.0, 1.0),
    method=st.sampled_from(["exact", "midp", "asymptotic"]),
)
def test_power_increases_with_the_difference(
    n: int, psi: float, t1: float, t2: float, method: str
) -> None:
    lo, hi = sorted((t1, t2))
    d_lo, d_hi = psi * lo, psi * hi
    p_lo = power(n, difference=d_lo, discordance=psi, method=method).power
    p_hi = power(n, difference=d_hi, discordance=psi, method=method).power
    assert p_hi >= p_lo - 1e-12


@settings(max_examples=60, deadline=None)
@given(
    psi=st.floats(0.02, 1.0),
    frac=st.floats(0.05, 0.95),
    target=st.floats(0.5, 0.99),
    alternative=st.sampled_from(["two-sided", "greater"]),
)
def test_connor_sample_size_inverts_connor_power(
    psi: float, frac: float, target: float, alternative: str
) -> None:
    delta = psi * frac
    res = sample_size(difference=delta, discordance=psi, power=target, method="connor",
                      alternative=alternative)
    p10, p01 = discordant_probabilities(delta, psi)
    at = planning._connor_power(np.array([res.n_connor]), np.array([p10]), np.array([p01]),
                                0.05, alternative)
    assert float(at[0]) == pytest.approx(target, abs=1e-9)
    assert res.power >= target


# --------------------------------------------------------------------------------------------
# sample size


@pytest.mark.parametrize(
    ("p10", "p01", "method", "factor"),
    [
        (0.6, 0.4, "exact", 10),
        (0.55, 0.45, "midp", 10),
        (0.7, 0.3, "asymptotic", 10),
        (0.8, 0.2, "exact", 10),
        (0.45, 0.25, "midp", 10),
        (0.06, 0.04, "exact", 2),
    ],
)
def test_sample_size_against_a_scan(p10: float, p01: float, method: str, factor: int) -> None:
    # brute force: evaluate the power at every n up to `factor` times the answer
    res = sample_size(p10, p01, method=method)
    n = np.arange(1, factor * res.n)
    pw = power(n, p10, p01, method=method).power
    meets = pw >= 0.8
    assert res.n_first == n[np.argmax(meets)]
    assert res.n == n[np.flatnonzero(~meets)[-1]] + 1
    assert res.power == pytest.approx(pw[res.n - 1], abs=1e-12)
    assert res.power_first == pytest.approx(pw[res.n_first - 1], abs=1e-12)


def test_sample_size_reports_the_saw_tooth() -> None:
    # discordance close to 1: the exact power dips below 0.8 again after first reaching it
    res = sample_size(0.6, 0.4)
    assert res.n_first < res.n
    text = str(res)
    assert f"first reaches 80% at n = {res.n_first}" in text
    assert f"from n = {res.n} on it stays above" in text
    assert power(res.n - 1, 0.6, 0.4).power < 0.8


def test_sample_size_one_sided_and_b_better() -> None:
    greater = sample_size(0.3, 0.1, alternative="greater")
    less = sample_size(0.1, 0.3, alternative="less")
    two_b = sample_size(0.1, 0.3)
    two_a = sample_size(0.3, 0.1)
    assert greater.n == less.n
    assert two_a.n == two_b.n
    assert greater.n < two_a.n


def test_sample_size_from_difference_and_table() -> None:
    from mcnemar.table import PairedTable

    direct = sample_size(0.06, 0.04)
    via_difference = sample_size(difference=0.02, discordance=0.10)
    pilot = sample_size(table=PairedTable(a=780, b=60, c=40, d=120))
    assert direct.n == via_difference.n == pilot.n


def test_sample_size_methods_order() -> None:
    exact = sample_size(0.06, 0.04, method="exact")
    midp = sample_size(0.06, 0.04, method="midp")
    # the exact test is conservative: it needs more items than the mid-p test
    assert midp.n < exact.n
    assert abs(exact.n - exact.n_connor) / exact.n_connor < 0.1


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"p10": 0.1, "p01": 0.1}, "no difference"),
        ({"p10": 0.0, "p01": 0.0}, "never disagree"),
        ({"p10": 0.1, "p01": 0.2, "alternative": "greater"}, "other direction"),
        ({"p10": 0.2, "p01": 0.1, "power": 1.0}, "power must be strictly between"),
        ({"p10": 0.2, "p01": 0.1, "power": 0.04}, "power must exceed alpha"),
        ({"p10": [0.2, 0.3], "p01": 0.1}, "one setting"),
    ],
)
def test_sample_size_errors(kwargs: dict[str, object], fragment: str) -> None:
    with pytest.raises(McNemarError, match=fragment):
        sample_size(**kwargs)  # type: ignore[arg-type]


def test_sample_size_too_small_difference_suggests_connor() -> None:
    with pytest.raises(McNemarError, match="method='connor'"):
        sample_size(0.5001, 0.4999)
    assert sample_size(0.5001, 0.4999, method="connor").n > 10**7


# --------------------------------------------------------------------------------------------
# minimum detectable effect


@pytest.mark.parametrize("method", ["exact", "midp", "asymptotic"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_mde_reaches_the_target_power(method: str, alternative: str) -> None:
    n = np.array([60, 500, 20_000, 1_000_000])
    psi = np.array([0.3, 0.1, 0.05, 0.5])
    res = minimum_detectable_effect(n, psi, method=method, alternative=alternative)
    assert np.all(np.isfinite(res.difference))
    sign = -1.0 if alternative == "less" else 1.0
    assert np.all(sign * res.difference > 0)
    back = power(n, difference=res.difference, discordance=psi, method=method,
                 alternative=alternative)
    np.testing.assert_allclose(back.power, 0.8, atol=1e-9)
    # and a slightly smaller difference falls short
    smaller = power(n, difference=res.difference * (1 - 1e-4), discordance=psi, method=method,
                    alternative=alternative)
    assert np.all(smaller.power < 0.8)


def test_mde_vectorized_matches_scalar() -> None:
    n = [100, 1000, 10_000]
    res = minimum_detectable_effect(n, 0.2, power=0.9, alpha=0.01)
    for i, ni in enumerate(n):
        single = minimum_detectable_effect(ni, 0.2, power=0.9, alpha=0.01)
        assert isinstance(single.difference, float)
        assert res.difference[i] == pytest.approx(single.difference, abs=1e-12)


def test_mde_close_to_connor_for_large_n() -> None:
    res = minimum_detectable_effect(1_000_000, 0.1)
    assert res.difference == pytest.approx(res.difference_connor, rel=2e-3)


@settings(max_examples=50, deadline=None)
@given(
    n=st.integers(20, 10**7),
    psi=st.floats(0.01, 1.0),
    target=st.floats(0.3, 0.99),
    alternative=st.sampled_from(["two-sided", "greater"]),
)
def test_connor_mde_solves_connor_power(
    n: int, psi: float, target: float, alternative: str
) -> None:
    res = minimum_detectable_effect(n, psi, power=target, method="connor",
                                    alternative=alternative)
    if not math.isfinite(res.difference):
        # undetectable: even difference = discordance misses the target
        top = planning._connor_power(np.array([float(n)]), np.array([psi]), np.array([0.0]),
                                     0.05, alternative)
        assert float(top[0]) < target + 1e-9
        return
    p10, p01 = (psi + res.difference) / 2, (psi - res.difference) / 2
    at = planning._connor_power(np.array([float(n)]), np.array([p10]), np.array([p01]), 0.05,
                                alternative)
    assert float(at[0]) == pytest.approx(target, abs=1e-9)


def test_mde_undetectable_cases() -> None:
    none = minimum_detectable_effect(1000, 0.0)
    assert math.isnan(none.difference)
    assert "never disagree" in none.note
    assert none.to_dict()["difference"] is None
    assert "no difference is detectable" in str(none)
    few = minimum_detectable_effect(20, 0.1)  # about 2 discordant items
    assert math.isnan(few.difference)
    assert "too few discordant items" in few.note
    mixed = minimum_detectable_effect([20, 2000], 0.1)
    assert math.isnan(mixed.difference[0]) and math.isfinite(mixed.difference[1])
    json.dumps(mixed.to_dict(), allow_nan=False)


def test_mde_sentence_for_reports() -> None:
    res = minimum_detectable_effect(200, 0.1)
    text = str(res)
    assert text.startswith("With 200 items and discordance 0.1")
    assert f"{100 * res.difference:.2f} points" in text
    assert res.p10 - res.p01 == pytest.approx(res.difference)


# --------------------------------------------------------------------------------------------
# inputs, errors and output


@pytest.mark.parametrize(
    ("call", "fragment"),
    [
        (lambda: power(100, 0.7, 0.5), "p10 \\+ p01 must be at most 1"),
        (lambda: power(0, 0.1, 0.05), "n must be a positive whole number"),
        (lambda: power(10.5, 0.1, 0.05), "got 10.5"),
        (lambda: power(True, 0.1, 0.05), "n must be"),
        (lambda: power(100, -0.1, 0.05), "p10 must be a probability"),
        (lambda: power(100, 0.1, 0.05, alpha=1.0), "alpha must be strictly between"),
        (lambda: power(100, 0.1, 0.05, method="wald"), "method must be one of"),
        (lambda: power(100, 0.1, 0.05, alternative="bigger"), "alternative must be one of"),
        (lambda: power(100, 0.1), "p01 is missing"),
        (lambda: power(100, 0.1, 0.05, difference=0.05, discordance=0.15), "exactly one of"),
        (lambda: power(100, difference=0.3, discordance=0.2), "at most the discordance"),
        (lambda: power(100, difference=0.1), "discordance is missing"),
        (lambda: minimum_detectable_effect(100, 1.5), "discordance must be a probability"),
        (lambda: minimum_detectable_effect(100, 0.1, power=0), "power must be strictly"),
    ],
)
def test_errors_name_the_argument(call: object, fragment: str) -> None:
    with pytest.raises(McNemarError, match=fragment):
        call()  # type: ignore[operator]


def test_table_input() -> None:
    from mcnemar.table import PairedTable

    res = power(300, table=PairedTable(a=150, b=30, c=15, d=5))
    assert res.p10 == pytest.approx(0.15) and res.p01 == pytest.approx(0.075)
    assert res.power == pytest.approx(power(300, 0.15, 0.075).power, abs=1e-15)
    with pytest.raises(McNemarError, match="needs all four cells"):
        power(300, table=PairedTable(b=30, c=15))


def test_discordant_probabilities() -> None:
    assert discordant_probabilities(0.02, 0.10) == (0.06, 0.04)
    p10, p01 = discordant_probabilities(np.array([0.0, -0.1]), 0.2)
    np.testing.assert_allclose(p10, [0.1, 0.05])
    np.testing.assert_allclose(p01, [0.1, 0.15])


def test_results_serialize_and_print() -> None:
    results = [
        power(144, 0.45, 0.25, alpha=0.025, alternative="greater"),
        power([10, 100], 0.45, 0.25),
        sample_size(0.45, 0.25),
        sample_size(0.45, 0.25, method="connor"),
        minimum_detectable_effect(500, 0.12),
        minimum_detectable_effect([5, 500], 0.12, alternative="less"),
    ]
    for res in results:
        payload = json.loads(json.dumps(res.to_dict(), allow_nan=False))
        assert payload["method"] in ("exact", "connor")
        assert str(res)
        assert res.to_markdown().startswith("**")
    text = str(results[0])
    assert "0.8009" in text and "144 items" in text and "Connor 1987" in text
    assert results[1].to_dict()["n"] == [10, 100]
    ss = results[2].to_dict()
    assert ss["n"] == results[2].n and isinstance(ss["n_connor"], float)
    with pytest.raises(AttributeError):
        results[0].power = 0.5  # type: ignore[misc]


def test_import_does_not_load_scipy_stats() -> None:
    import subprocess
    import sys

    code = (
        "import sys, mcnemar.planning, mcnemar.clustering; "
        "mcnemar.planning.minimum_detectable_effect(500, 0.1); "
        "print('scipy.stats' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_binom_sf_handles_huge_n() -> None:
    # scipy's bdtr fails above 2**31 trials; the incomplete beta does not
    n = 2.0**33
    k = n / 2
    got = float(planning._binom_sf(k, n, 0.5))
    assert got == pytest.approx(0.5 + 0.5 * math.exp(float(planning._log_pmf(k, n, 0.5, 0.5))),
                                rel=1e-12)
    assert math.isfinite(float(special.betainc(k, n - k + 1, 0.5)))


# --------------------------------------------------------------------------------------------
# the search over n that the sample sizes share (planning._kernel)


@settings(max_examples=200, deadline=None)
@given(target=st.integers(1, 10_000), lo=st.integers(0, 10_000), hi=st.integers(1, 10_000))
def test_smallest_n_finds_the_threshold_of_a_monotone_predicate(
    target: int, lo: int, hi: int
) -> None:
    from mcnemar.planning._kernel import _smallest_n

    lo = min(lo, target - 1)  # the predicate is false at lo
    calls: list[int] = []

    def at_least(n: int) -> bool:
        calls.append(n)
        return n >= target

    assert _smallest_n(at_least, lo, hi) == target
    assert len(calls) <= 2 * math.ceil(math.log2(max(target, hi) + 2)) + 2


@settings(max_examples=200, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=40))
def test_first_and_stable_against_a_direct_reading(meets: list[bool]) -> None:
    from mcnemar.planning._kernel import _first_and_stable

    arr = np.array(meets)
    first, stable = _first_and_stable(arr)
    # first: the first True (0 when there is none, as numpy's argmax); stable: the first
    # position from which every later one is True, and not before first.
    want_first = meets.index(True) if True in meets else 0
    want_stable = next(i for i in range(len(meets) + 1) if all(meets[i:]))
    assert (first, stable) == (want_first, max(want_first, want_stable))
