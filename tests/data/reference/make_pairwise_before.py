"""Write pairwise_before.npz: the numbers :func:`mcnemar.pairwise` gave for a few seeded
correctness matrices before its exact-test route was reorganised; ``tests/test_pairwise_route.py``
holds every later version to them (1e-12 relative).

The matrices (:func:`matrices`, which the test imports to rebuild them from their seeds):
K = 50..300 runs on N = 200..10,000 items, runs that agree more than chance, near-identical
runs (a handful of flips apart, identical ones included), runs with huge disagreement (tails
far below the smallest double, complementary runs), ties b = c; two-sided all pairs with the
Holm and the Benjamini-Hochberg adjustment, and one-sided comparisons with a baseline. For each
case the p-values, their log10, the adjusted p-values and the interval limits of a seeded sample
of pairs are stored (all pairs of the small cases), with the sampled pairs' row indices.
Usage: ``python tests/data/reference/make_pairwise_before.py`` (overwrites the fixture).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from mcnemar.multiple import pairwise

FIELDS = ("pvalue", "log10_pvalue", "adjusted_pvalue", "ci_low", "ci_high")
#: Pairs stored per case (all of them where there are fewer).
SAMPLE = 900


def _agreeing(rng: np.random.Generator, k: int, n: int, low: float, high: float) -> np.ndarray:
    """Runs with accuracies in [low, high] whose outcomes half follow a shared difficulty."""
    accuracy = rng.uniform(low, high, size=k)
    difficulty = rng.random(n)
    u = np.where(rng.random((k, n)) < 0.5, difficulty[None, :], rng.random((k, n)))
    return (u < accuracy[:, None]).astype(np.int8)


def _near_identical(rng: np.random.Generator, k: int, n: int) -> np.ndarray:
    """Copies of one run, each with 0 to 40 items flipped (several with none)."""
    base = (rng.random(n) < 0.7).astype(np.int8)
    x = np.tile(base, (k, 1))
    for row, flips in zip(x, rng.integers(0, 41, size=k), strict=True):
        row[rng.choice(n, size=int(flips), replace=False)] ^= 1
    x[1] = x[0]
    x[2] = x[0]
    return x


def _disagreeing(rng: np.random.Generator, k: int, n: int) -> np.ndarray:
    """Independent runs with accuracies 0.02-0.98, some of them exact complements."""
    x = (rng.random((k, n)) < rng.uniform(0.02, 0.98, size=k)[:, None]).astype(np.int8)
    x[1] = 1 - x[0]
    x[3] = 1 - x[2]
    x[4] = 0
    x[5] = 1
    return x


def _ties(rng: np.random.Generator, k: int, n: int) -> np.ndarray:
    """Pairs of runs with b = c: each odd run swaps equal numbers of right and wrong items of
    the run before it."""
    x = _agreeing(rng, k, n, 0.4, 0.8)
    for i in range(1, k, 2):
        x[i] = x[i - 1]
        right = np.flatnonzero(x[i] == 1)
        wrong = np.flatnonzero(x[i] == 0)
        m = int(rng.integers(0, min(right.size, wrong.size, 300) + 1))
        x[i, rng.choice(right, m, replace=False)] = 0
        x[i, rng.choice(wrong, m, replace=False)] = 1
    return x


def matrices() -> dict[str, tuple[np.ndarray, dict[str, Any]]]:
    """Each case: its correctness matrix and the keywords of its :func:`pairwise` call."""
    rng = np.random.default_rng(20250101)
    holm = {"method": "exact", "adjust": "holm"}
    return {
        "agreeing_k50_n200": (_agreeing(rng, 50, 200, 0.3, 0.9), holm),
        "agreeing_k120_n2000": (_agreeing(rng, 120, 2000, 0.55, 0.9), holm),
        "agreeing_k300_n10000": (_agreeing(rng, 300, 10_000, 0.55, 0.9), holm),
        "near_identical_k80_n5000": (_near_identical(rng, 80, 5000), holm),
        "disagreeing_k100_n10000": (_disagreeing(rng, 100, 10_000), holm),
        "ties_k60_n3000_bh": (_ties(rng, 60, 3000), {"method": "exact", "adjust": "bh"}),
        "baseline_greater_k200_n8000": (
            _agreeing(rng, 200, 8000, 0.5, 0.95),
            {"method": "exact", "adjust": "holm", "baseline": 7, "alternative": "greater"},
        ),
        "baseline_less_k150_n600": (
            _disagreeing(rng, 150, 600),
            {"method": "exact", "adjust": "holm", "baseline": 0, "alternative": "less"},
        ),
    }


def main() -> None:
    rng = np.random.default_rng(7)
    out: dict[str, np.ndarray] = {}
    for name, (x, kwargs) in matrices().items():
        res = pairwise(x, **kwargs)
        pairs = res.pairs
        if pairs.shape[0] > SAMPLE:
            pairs = pairs[np.sort(rng.choice(pairs.shape[0], SAMPLE, replace=False))]
        i, j = pairs.T
        out[f"{name}/pairs"] = pairs.astype(np.int16)
        for field in FIELDS:
            out[f"{name}/{field}"] = np.asarray(getattr(res, field))[i, j]
    np.savez_compressed(Path(__file__).with_name("pairwise_before.npz"), **out)


if __name__ == "__main__":
    main()
