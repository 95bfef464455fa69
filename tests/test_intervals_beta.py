"""The Beta distribution for huge parameters (:mod:`mcnemar.intervals._beta`), against mpmath.

The references are quadratures of the density written from its definition with log-gamma
normalisation, at 45 digits (``tests/_melded_mpmath.py``): mpmath's own incomplete beta
function does not finish for parameters of 1e6 and more. Points are given as deviations from
the mean, as the functions take them; the reference adds them to the exact mean a/(a + b).
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from scipy import special

from _melded_mpmath import DPS, beta_upper_tail
from mcnemar.intervals._beta import (
    beta_cdf,
    beta_log_mode_density,
    beta_log_pdf,
    beta_quantile,
    log1pmx,
)

#: (a, b): equal parameters of 1.5e15 (where scipy's betainc returns 0.5 for 0.456), nearly
#: equal ones, one of 1e9 against 4e15, unequal huge ones, and the smallest sizes used.
CDF_CASES = [
    (1.5e15, 1.5e15),
    (1501199875790166.0, 1501199875790166.0 + 1.0),
    (1e9, 4e15),
    (1e15, 4e14),
    (1e8, 1e15),
    (1e8, 1e8 + 7.0),
]
#: Standard deviations from the mean: the far left, the usual levels, the Taylor branch
#: (|z| < 0.1) and the right.
CDF_Z = (-7.0, -1.96, 0.04, 2.5)


def _exact_cdf(a: float, b: float, u: float) -> mpmath.mpf:
    with mpmath.workdps(DPS):
        x = mpmath.mpf(a) / (mpmath.mpf(a) + mpmath.mpf(b)) + mpmath.mpf(u)
        return 1 - beta_upper_tail(x, int(a), int(b))


def test_log1pmx_against_mpmath() -> None:
    values = [1e-20, 1e-9, -3e-6, 0.01, -0.2, 0.25, -0.25, 0.2500001, -0.2500001, 0.5,
              -0.9, 3.0, 1e5]
    got = log1pmx(np.array(values))
    with mpmath.workdps(40):
        for v, g in zip(values, got, strict=True):
            exact = mpmath.mpf(v) - mpmath.log1p(mpmath.mpf(v))
            assert abs(g - exact) <= 4e-16 * exact, v
    assert log1pmx(np.array([-1.0]))[0] == np.inf


@pytest.mark.parametrize(("a", "b"), CDF_CASES)
def test_beta_cdf_against_mpmath(a: float, b: float) -> None:
    sd = np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1.0)))
    u = np.array(CDF_Z) * sd
    got = beta_cdf(np.full(u.size, a), np.full(u.size, b), u)
    for ui, g in zip(u, got, strict=True):
        assert abs(g - float(_exact_cdf(a, b, ui))) < 1e-13, (a, b, ui / sd)


def test_scipy_is_wrong_where_the_parameters_are_equal() -> None:
    # Why the module exists: at a = b = 1.5e15 scipy gives 0.5 where the CDF is 0.456.
    a, x = 1.5e15, 0.499999999
    exact = float(_exact_cdf(a, a, x - 0.5))
    assert abs(special.betainc(a, a, x) - exact) > 0.01
    assert abs(beta_cdf(np.array([a]), np.array([a]), np.array([x - 0.5]))[0] - exact) < 1e-13


@pytest.mark.parametrize(("big_a", "big_b", "h"), [
    (1.5e15, 3.0e15, 2e-8),
    (1e9, 4.5e15, -3e-12),
    (40.0, 4.5e15, 5e-15),
    (4.5e15, 0.0, -1e-16),
    (0.0, 4.5e15, 2e-16),
    (3.0, 7.0, 0.1),
])
def test_beta_log_pdf_against_mpmath(big_a: float, big_b: float, h: float) -> None:
    log_mode = beta_log_mode_density(np.array([big_a]), np.array([big_b]))
    got = beta_log_pdf(np.array([big_a]), np.array([big_b]), log_mode, np.array([h]))[0]
    with mpmath.workdps(DPS):
        a, b = mpmath.mpf(big_a) + 1, mpmath.mpf(big_b) + 1
        t = (a - 1) / (a + b - 2) + mpmath.mpf(h)
        exact = ((a - 1) * mpmath.log(t) + (b - 1) * mpmath.log1p(-t)
                 + mpmath.loggamma(a + b) - mpmath.loggamma(a) - mpmath.loggamma(b))
    assert abs(got - float(exact)) < 1e-13 * max(1.0, abs(float(exact)))


def test_the_log_density_at_the_mode_against_mpmath_on_either_route() -> None:
    """A few parameter pairs (one table's search) take Python floats, many the arrays: the
    same bits, and both within 1e-14 of mpmath's log of the Beta(A + 1, B + 1) density at
    its mode."""
    rng = np.random.default_rng(12)
    big_a = np.concatenate([[0.0, 1.0, 0.0, 3.0, 15.0, 16.0, 1e9, 4.5e15],
                            rng.integers(0, 400, 60).astype(np.float64)])
    big_b = np.concatenate([[0.0, 0.0, 7.0, 7.0, 2.0, 15.0, 1e9, 3.0],
                            rng.integers(0, 400, 60).astype(np.float64)])
    together = beta_log_mode_density(big_a, big_b)
    for i in range(big_a.size):
        alone = beta_log_mode_density(big_a[i : i + 1, None], big_b[i : i + 1, None])
        assert alone.shape == (1, 1)
        assert alone[0, 0].tobytes() == together[i].tobytes(), (big_a[i], big_b[i])
        with mpmath.workdps(DPS):
            a, b = mpmath.mpf(big_a[i]), mpmath.mpf(big_b[i])
            r = a + b
            if r == 0:
                exact = mpmath.mpf(0)
            else:
                c = a / r
                exact = (mpmath.loggamma(r + 2) - mpmath.loggamma(a + 1) - mpmath.loggamma(b + 1)
                         + (a * mpmath.log(c) if a else 0) + (b * mpmath.log1p(-c) if b else 0))
        assert abs(together[i] - float(exact)) <= 1e-14 * max(1.0, abs(float(exact))), i


@pytest.mark.parametrize(("a", "b", "prob"), [
    (1.5e15, 1.5e15, 0.025),
    (1501199875790165.0, 1501199875790167.0, 0.975),
    (1e15 + 1.0, 3e15, 0.975),
])
def test_beta_quantile_against_mpmath(a: float, b: float, prob: float) -> None:
    u = beta_quantile(np.array([a]), np.array([b]), np.array([prob]))[0]
    assert abs(float(_exact_cdf(a, b, u)) - prob) < 1e-13
