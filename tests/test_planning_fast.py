"""The fast search for the detectable difference (:mod:`mcnemar.planning._power_path` and
:func:`mcnemar.planning._detectable._solve_theta_fast`), against the precise search it
replaced in :func:`~mcnemar.planning.minimum_detectable_effect`
(:func:`~mcnemar.planning._detectable._solve_theta`, Newton to 1e-13 in theta on the sums of
the exact power) and against :func:`~mcnemar.planning._kernel._exact_power` itself.

Reports print the detectable difference to 3 significant digits; the fast search is held to
1e-9 of the precise one (it aims at 1e-10).
"""

from __future__ import annotations

import numpy as np
import pytest

from mcnemar._routes import ARRAYS
from mcnemar.planning import _detectable, _power_path, minimum_detectable_effect
from mcnemar.planning._kernel import _binom_sf, _connor_mde, _exact_power, _z_alpha
from mcnemar.planning._power_path import (
    chernoff_windows,
    first_rejecting,
    path_width,
    power_path,
)

RTOL = 1e-9


def _random_designs(seed: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(n, psi) of tables of a few to a million items, discordance from 1e-3 to 1 (and some
    exactly 1), in the proportions a batch of reports meets them."""
    rng = np.random.default_rng(seed)
    n = np.floor(10 ** rng.uniform(0.5, 5.5, size))
    d = np.maximum(1.0, np.floor(n * 10 ** rng.uniform(-3, 0, size)))
    d = np.minimum(d, n)
    every = rng.uniform(size=size) < 0.05
    d[every] = n[every]  # every item discordant
    return n, d / n


def _precise(n: np.ndarray, psi: np.ndarray, target: float, alpha: float, alternative: str,
             method: str) -> np.ndarray:
    """The detectable difference by the precise search (what the fast one replaced)."""
    z_a = _z_alpha(alpha, alternative)
    with np.errstate(divide="ignore", invalid="ignore"):
        guess = np.nan_to_num(_connor_mde(ARRAYS, n, psi, target, z_a), nan=0.5) / (2 * psi)
    start = 0.5 + np.where(psi > 0, guess, 0.25)
    theta, _ = _detectable._solve_theta(n, psi, target, alpha, alternative, method, start)
    out: np.ndarray = psi * (2.0 * theta - 1.0)
    return out


@pytest.mark.parametrize(
    ("seed", "target", "alpha", "alternative", "method"),
    [
        (1, 0.8, 0.05, "two-sided", "exact"),
        (2, 0.9, 0.01, "greater", "exact"),
        (3, 0.8, 0.05, "less", "midp"),
        (4, 0.95, 0.1, "two-sided", "asymptotic"),
        (5, 0.5, 0.05, "two-sided", "exact"),
        (6, 0.3, 0.2, "greater", "midp"),
    ],
)
def test_fast_search_matches_the_precise_search(
    seed: int, target: float, alpha: float, alternative: str, method: str
) -> None:
    n, psi = _random_designs(seed, 400)
    res = minimum_detectable_effect(n, psi, power=target, alpha=alpha, alternative=alternative,
                                    method=method)
    fast = np.abs(np.asarray(res.difference))
    slow = _precise(n, psi, target, alpha, alternative, method)
    assert np.array_equal(np.isnan(fast), np.isnan(slow))
    both = np.isfinite(slow)
    assert both.sum() > 100
    np.testing.assert_allclose(fast[both], slow[both], rtol=RTOL, atol=0)


def test_fast_search_on_report_tables() -> None:
    # the batch of the benchmark: a, d in [0, 1000], b, c in [0, 100]
    rng = np.random.default_rng(0)
    cells = rng.integers([0, 0, 0, 0], [1001, 101, 101, 1001], size=(2000, 4))
    n = cells.sum(axis=1).astype(float)
    d = (cells[:, 1] + cells[:, 2]).astype(float)
    keep = (n > 0) & (d > 0)
    n, psi = n[keep], d[keep] / n[keep]
    fast = minimum_detectable_effect(n, psi).difference
    slow = _precise(n, psi, 0.8, 0.05, "two-sided", "exact")
    assert np.array_equal(np.isnan(fast), np.isnan(slow))
    both = np.isfinite(slow)
    np.testing.assert_allclose(fast[both], slow[both], rtol=RTOL, atol=0)


def test_an_element_gives_the_same_bits_alone_and_in_a_batch() -> None:
    n, psi = _random_designs(7, 300)
    batch = minimum_detectable_effect(n, psi).difference
    for i in range(0, 300, 23):
        alone = minimum_detectable_effect(n[i : i + 1], psi[i : i + 1]).difference[0]
        assert (np.isnan(alone) and np.isnan(batch[i])) or alone == batch[i]
    # and in another order (other groups, other neighbours)
    order = np.random.default_rng(1).permutation(300)
    shuffled = minimum_detectable_effect(n[order], psi[order]).difference
    np.testing.assert_array_equal(shuffled, batch[order])


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
@pytest.mark.parametrize("method", ["exact", "midp", "asymptotic"])
def test_power_sums_and_slopes_match_the_exact_power(alternative: str, method: str) -> None:
    rng = np.random.default_rng(3)
    n = np.array([7.0, 40.0, 200.0, 1500.0, 3000.0, 20_000.0, 250_000.0])
    psi = np.array([1.0, 0.6, 0.1, 0.05, 0.3, 0.02, 0.9])
    tail = 0.025 if alternative == "two-sided" else 0.05
    lo, hi = chernoff_windows(n, psi)
    lo = np.maximum(lo, first_rejecting(tail, method))
    width = path_width((hi - lo + 1.0).astype(np.intp))
    for i in range(n.size):
        path = power_path(n[i : i + 1], psi[i : i + 1], lo[i : i + 1], hi[i : i + 1],
                          int(width[i]), tail, method)
        for theta in rng.uniform(0.5, 1.0, 4):
            th = np.array([theta])
            value, slope, curve = _power_path.power_sums(path, th,
                                                                alternative == "two-sided")
            exact = _exact_power(n[i : i + 1], psi[i : i + 1] * th, psi[i : i + 1] * (1 - th),
                                 0.05, alternative, method)[0]
            assert value[0] == pytest.approx(exact[0], abs=1e-12)
            h = 1e-6
            up = _power_path.power_sums(path, th + h, alternative == "two-sided")
            down = _power_path.power_sums(path, th - h, alternative == "two-sided")
            scale = max(abs(slope[0]), 1e-3)
            assert (up[0] - down[0])[0] / (2 * h) == pytest.approx(slope[0], abs=1e-5 * scale)
            scale = max(abs(curve[0]), 1e-3)
            assert (up[1] - down[1])[0] / (2 * h) == pytest.approx(curve[0], abs=1e-4 * scale)


def test_chernoff_windows_keep_all_but_1e_12_of_each_tail() -> None:
    n = np.array([5.0, 60.0, 1000.0, 1e5, 1e7, 1e12])
    psi = np.array([0.5, 0.01, 0.3, 0.001, 0.5, 1e-7])
    lo, hi = chernoff_windows(n, psi)
    below = 1.0 - _binom_sf(lo, n, psi)  # P(M < lo)
    above = _binom_sf(hi + 1.0, n, psi)  # P(M > hi)
    assert np.all(below <= 1e-12) and np.all(above <= 1e-12)
    # and they are not much wider than the exact tails (7 sd where the normal law holds)
    sd = np.sqrt(n * psi * (1 - psi))
    assert np.all((hi - lo)[sd > 100] < 2 * 7.6 * sd[sd > 100])


def test_rows_are_padded_by_their_own_length_only() -> None:
    count = np.array([1, 15, 16, 17, 300])
    np.testing.assert_array_equal(path_width(count), [16, 16, 16, 32, 304])
