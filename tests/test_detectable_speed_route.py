"""The route of the detectable difference (:func:`mcnemar.planning.minimum_detectable_effect`):
its value against an independent mpmath computation of the exact power, and the one-element
route (Python floats around the same array sums) against the batch route, bit for bit.

The reference power is computed from scratch: the rejection regions by exact integer sums
of binomial coefficients (compared with the tail alpha as an exact fraction), the binomial
weights of the number of discordant items and the tails of the conditional test by mpmath's
regularized incomplete beta function at 30 digits. The detectable difference is checked by
bracketing: the power is increasing in the difference, so a difference d within 1e-6
(relative) of the root has power below the target at d (1 - 1e-6) and above it at
d (1 + 1e-6).
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from mcnemar._routes import ARRAYS, FLOATS
from mcnemar.planning import _detectable, _power_path, minimum_detectable_effect
from mcnemar.planning._kernel import _connor_mde, _z_alpha

mpmath.mp.dps = 30

# Relative distance from the root of the exact power that the detectable difference may have.
RTOL = 1e-6
# Binomial weights below this are left out of the reference sums (far below what the
# bracket at 1e-6 of the difference can see: the power moves by about 1e-6 there).
WEIGHT_CUT = mpmath.mpf(10) ** -14


@functools.cache
def _region(m: int, tail: float, method: str) -> int:
    """Largest j in -1..m whose one-sided null p-value (exact or mid-p) is <= tail: exact
    integer sums of binomial coefficients over 2^m, compared with the float tail exactly."""
    if m == 0:
        return -1
    bound = Fraction(tail) * 2**m
    below, j = 0, -1  # below: sum of C(m, i) for i < j + 1
    for i in range(m + 1):
        term = math.comb(m, i)
        crit = below + term if method == "exact" else below + Fraction(term, 2)
        if crit > bound:
            break
        j = i
        below += term
    return j


def _reference_power(n: int, psi: float, theta: mpmath.mpf, alpha: float, alternative: str,
                     method: str) -> mpmath.mpf:
    """Exact power at (n, psi, theta) in mpmath: sum over m of P(M = m) times the conditional
    power, M ~ Bin(n, psi), X | m ~ Bin(m, theta), upper region X >= m - j(m) (greater,
    two-sided) and lower region X <= j(m) (less, two-sided)."""
    tail = alpha / 2 if alternative == "two-sided" else alpha
    p = mpmath.mpf(psi)
    mean, sd = n * psi, math.sqrt(n * psi * (1 - psi))
    lo, hi = max(0, int(mean - 10 * sd) - 5), min(n, int(mean + 10 * sd) + 5)
    total = mpmath.mpf(0)
    for m in range(lo, hi + 1):
        weight = mpmath.binomial(n, m) * p**m * (1 - p) ** (n - m)
        if weight < WEIGHT_CUT:
            continue
        j = _region(m, tail, method)
        if j < 0:
            continue
        conditional = mpmath.mpf(0)
        if alternative != "less":  # P(X >= m - j) = I_theta(m - j, j + 1)
            conditional += mpmath.betainc(m - j, j + 1, 0, theta, regularized=True)
        if alternative != "greater":  # P(X <= j) = 1 - I_theta(j + 1, m - j)
            conditional += 1 - mpmath.betainc(j + 1, m - j, 0, theta, regularized=True)
        total += weight * conditional
    return total


def _theta(d: float, psi: float) -> mpmath.mpf:
    """theta = p10/psi of a signed difference d = p10 - p01 at discordance psi."""
    return mpmath.mpf(0.5) + mpmath.mpf(d) / (2 * mpmath.mpf(psi))


def _sample() -> list[tuple[int, int, str, float, float]]:
    """(n, D, alternative, alpha, power): every combination of the alternatives, alpha 0.01,
    0.05, 0.6 and power 0.8, 0.9, each on a seeded draw of a small-D table (D in 0..30), a
    report-sized table and a large-n table."""
    rng = np.random.default_rng(20240611)
    out = []
    for alternative in ("two-sided", "greater", "less"):
        for alpha in (0.01, 0.05, 0.6):
            for power in (0.8, 0.9):
                small_d = int(rng.integers(0, 31))
                out.append((int(rng.integers(max(small_d, 1), 400)), small_d, alternative,
                            alpha, power))
                n = int(rng.integers(100, 2500))
                out.append((n, int(rng.integers(20, 140)), alternative, alpha, power))
                out.append((int(rng.integers(100_000, 3_000_000)), int(rng.integers(1, 120)),
                            alternative, alpha, power))
    return out


SAMPLE = _sample()


@pytest.mark.slow
@pytest.mark.parametrize(("n", "big_d", "alternative", "alpha", "power"), SAMPLE)
def test_detectable_difference_is_the_root_of_the_mpmath_power(
    n: int, big_d: int, alternative: str, alpha: float, power: float
) -> None:
    psi = big_d / n
    res = minimum_detectable_effect(n, psi, power=power, alpha=alpha, alternative=alternative)
    d = res.difference
    if big_d == 0:
        assert math.isnan(d)
        return
    target = mpmath.mpf(power)
    if math.isnan(d):
        # undetectable: even with every discordant item on one side the power falls short
        extreme = 1.0 if alternative != "less" else 0.0
        assert _reference_power(n, psi, mpmath.mpf(extreme), alpha, alternative, "exact") < target
        return
    assert (d < 0) == (alternative == "less")
    at = _reference_power(n, psi, _theta(d, psi), alpha, alternative, "exact")
    if d == 0:
        # the test's size already meets the target
        assert at >= target
        return
    below = _reference_power(n, psi, _theta(d * (1 - RTOL), psi), alpha, alternative, "exact")
    above = _reference_power(n, psi, _theta(d * (1 + RTOL), psi), alpha, alternative, "exact")
    assert below < target <= above
    # the power at the returned difference is the target, to well within what 1e-6 moves it
    assert abs(at - target) <= 1e-3 * (above - below)


@pytest.mark.slow
@pytest.mark.parametrize(("n", "big_d", "power", "alpha"), [
    (300, 40, 0.5, 0.6), (1000, 12, 0.3, 0.6), (60, 20, 0.8, 0.05), (5000, 300, 0.9, 0.01),
])
def test_mid_p_and_low_targets_against_mpmath(n: int, big_d: int, power: float,
                                              alpha: float) -> None:
    psi = big_d / n
    for method in ("exact", "midp"):
        d = minimum_detectable_effect(n, psi, power=power, alpha=alpha, method=method).difference
        target = mpmath.mpf(power)
        if d == 0:
            assert _reference_power(n, psi, mpmath.mpf(0.5), alpha, "two-sided", method) >= target
            continue
        below = _reference_power(n, psi, _theta(d * (1 - RTOL), psi), alpha, "two-sided",
                                 method)
        above = _reference_power(n, psi, _theta(d * (1 + RTOL), psi), alpha, "two-sided",
                                 method)
        assert below < target <= above


# --------------------------------------------------------------------------------------------
# the one-element route gives the batch's bits


def _designs(seed: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(n, psi): n from a few to a million, D from 0 to n, some every item discordant."""
    rng = np.random.default_rng(seed)
    n = np.floor(10 ** rng.uniform(0.3, 6, size))
    d = np.floor(n * 10 ** rng.uniform(-3.5, 0, size))
    d[rng.uniform(size=size) < 0.1] = 0.0
    d = np.where(rng.uniform(size=size) < 0.15, rng.integers(1, 31, size), d)
    d = np.minimum(d, n)
    every = rng.uniform(size=size) < 0.05
    d[every] = n[every]
    return n, d / n


SETTINGS = [
    ("two-sided", 0.05, 0.8, "exact"), ("greater", 0.01, 0.9, "exact"),
    ("less", 0.6, 0.8, "exact"), ("two-sided", 0.6, 0.5, "exact"),
    ("two-sided", 0.05, 0.9, "midp"), ("greater", 0.3, 0.5, "midp"),
    ("two-sided", 0.1, 0.95, "asymptotic"), ("less", 0.05, 0.3, "asymptotic"),
]


@pytest.mark.parametrize(("seed", "alternative", "alpha", "power", "method"),
                         [(i, *setting) for i, setting in enumerate(SETTINGS)])
def test_one_element_gives_the_bits_it_has_in_a_batch(seed: int, alternative: str,
                                                      alpha: float, power: float,
                                                      method: str) -> None:
    n, psi = _designs(seed, 160)
    kw = {"power": power, "alpha": alpha, "alternative": alternative, "method": method}
    batch = minimum_detectable_effect(n, psi, **kw)
    for i in range(n.size):
        alone = minimum_detectable_effect(n[i], psi[i], **kw)
        one = minimum_detectable_effect(n[i : i + 1], psi[i : i + 1], **kw)
        for res in (alone, one):
            got = np.atleast_1d(res.difference)[0]
            assert (np.isnan(got) and np.isnan(batch.difference[i])) or got == batch.difference[i]
            connor = np.atleast_1d(res.difference_connor)[0]
            assert (np.isnan(connor) and np.isnan(batch.difference_connor[i])) or (
                connor == batch.difference_connor[i])


def test_report_tables_alone_and_in_a_batch() -> None:
    # the tables of the batch benchmark: a, d in [0, 1000], b, c in [0, 100]
    rng = np.random.default_rng(3)
    cells = rng.integers([0, 0, 0, 0], [1001, 101, 101, 1001], size=(400, 4))
    n = cells.sum(axis=1)
    keep = n > 0
    n, psi = n[keep], (cells[keep, 1] + cells[keep, 2]) / n[keep]
    batch = minimum_detectable_effect(n, psi).difference
    alone = np.array([minimum_detectable_effect(int(a), float(b)).difference
                      for a, b in zip(n, psi, strict=True)])
    np.testing.assert_array_equal(alone, batch)


def test_the_one_element_window_is_the_batch_window() -> None:
    n, psi = _designs(5, 4000)
    n = np.concatenate((n, [1.0, 2.0, 1e12, 1e15, 7.0, 10.0]))
    psi = np.concatenate((psi, [1.0, 0.5, 1e-7, 3e-12, 1 - 2**-52, 2**-40]))
    positive = psi > 0
    n, psi = n[positive], psi[positive]
    lo, hi = _power_path.chernoff_windows(n, psi)
    floats = 0
    for i in range(n.size):
        # the window of one element, on floats where no step leaves them
        alone = _power_path.chernoff_windows(n[i : i + 1], psi[i : i + 1])
        assert (alone[0][0], alone[1][0]) == (lo[i], hi[i])
        try:
            got = _power_path._window(FLOATS, float(n[i]), float(psi[i]))
        except (ValueError, OverflowError, ZeroDivisionError):
            continue
        floats += 1
        assert got == (lo[i], hi[i])
    assert floats > 0.9 * n.size


@pytest.mark.parametrize("two_sided", [True, False])
def test_one_element_sums_are_the_array_sums(two_sided: bool) -> None:
    rng = np.random.default_rng(11)
    n = np.array([7.0, 40.0, 200.0, 1500.0, 20_000.0, 250_000.0, 64.0])
    psi = np.array([1.0, 0.6, 0.1, 0.05, 0.02, 0.9, 0.25])
    for method in ("exact", "midp"):
        tail = 0.025 if two_sided else 0.05
        lo, hi = _power_path.chernoff_windows(n, psi)
        lo = np.maximum(lo, _power_path.first_rejecting(tail, method))
        width = _power_path.path_width((hi - lo + 1.0).astype(np.intp))
        for i in range(n.size):
            path = _power_path.power_path(n[i : i + 1], psi[i : i + 1], lo[i : i + 1],
                                          hi[i : i + 1], int(width[i]), tail, method)
            for theta in [0.5, 1.0, *rng.uniform(0.5, 1.0, 5)]:
                with np.errstate(divide="ignore", invalid="ignore"):
                    arrays = _power_path.power_sums(path, np.array([theta]), two_sided)
                    floats = _power_path.power_sums(path, float(theta), two_sided)
                assert all(isinstance(v, float) for v in floats)
                np.testing.assert_array_equal([a[0] for a in arrays], floats)


def test_one_element_connor_start_is_the_array_one() -> None:
    n, psi = _designs(8, 2000)
    for target, alpha, alternative in [(0.8, 0.05, "two-sided"), (0.9, 0.6, "greater"),
                                       (0.3, 0.01, "less")]:
        z_a = _z_alpha(alpha, alternative)
        batch = _connor_mde(ARRAYS, n, psi, target, z_a)
        one = np.array([_connor_mde(FLOATS, float(a), float(b), target, z_a)
                        for a, b in zip(n, psi, strict=True)])
        np.testing.assert_array_equal(one, batch)
        d_all, start_all = _detectable._connor_start(n, psi, target, z_a)
        for i in range(0, n.size, 37):
            d_1, start_1 = _detectable._connor_start(n[i : i + 1], psi[i : i + 1], target, z_a)
            assert (np.isnan(d_1[0]) and np.isnan(d_all[i])) or d_1[0] == d_all[i]
            assert start_1[0] == start_all[i]


def test_log_binomial_coefficients_by_either_route() -> None:
    rng = np.random.default_rng(2)
    big_n = np.floor(10 ** rng.uniform(0, 7, 600))
    x = np.floor(rng.uniform(0, 1, 600) * (big_n + 1))
    x[:150] = np.minimum(big_n[:150], rng.integers(0, 20, 150))  # few ratios (x small)
    x[150:300] = big_n[150:300] - np.minimum(big_n[150:300], rng.integers(0, 20, 150))
    x[300:310] = -1.0
    x[310:320] = big_n[310:320] + 1.0
    got = _power_path._log_choose(x, big_n)
    one = np.array([_power_path._log_choose(x[i : i + 1], big_n[i : i + 1])[0]
                    for i in range(x.size)])
    np.testing.assert_array_equal(one, got)
    for value, xi, ni in zip(got, x, big_n, strict=True):
        if not 0 <= xi <= ni:
            assert value == -math.inf
            continue
        exact = float(mpmath.log(mpmath.binomial(int(ni), int(xi))))
        # a few units in the last place of log C (Loader's form), far less for few ratios
        assert value == pytest.approx(exact, rel=4e-16 * 4, abs=3e-14)


def test_a_kept_path_shape_is_the_rows_shape_in_a_batch() -> None:
    """One element's window structure (the test's region along m, the log binomial
    coefficients, the blocks) is kept per window start and row length; it is that row's
    structure among other rows, bit for bit, and cannot be written to."""
    for tail, method in ((0.025, "exact"), (0.05, "midp")):
        for width in (16, 48, 1040):  # (1040: rows of several blocks)
            lo = np.array([1.0, 9.0, 37.0, 400.0, 5000.0])
            many = _power_path._path_shape_of(lo, width, tail, method)
            for i in range(lo.size):
                one = _power_path._path_shape(lo[i : i + 1], width, tail, method)
                assert one is _power_path._path_shape(lo[i : i + 1], width, tail, method)
                alone = _power_path._path_shape_of(lo[i : i + 1], width, tail, method)
                for field, kept, fresh in zip(one._fields, one, alone, strict=True):
                    if isinstance(kept, np.ndarray):
                        assert not kept.flags.writeable, field
                        np.testing.assert_array_equal(kept, fresh, err_msg=field)
                    else:
                        assert kept == fresh or (kept is None and fresh is None), field
                if many.single:
                    for field in ("m", "j", "x", "y", "log_choose"):
                        np.testing.assert_array_equal(getattr(one, field)[0],
                                                      getattr(many, field)[i], err_msg=field)
