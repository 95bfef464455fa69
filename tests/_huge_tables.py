"""Seeded tables with huge counts, in the shapes that have made the analysis slow or wrong.

N runs log-uniformly from 1e9 to 2**52, and each table takes one shape: b ~ c (within a few
items, or a few standard deviations), b = c + a few, b or c equal to 0 or 1 against a huge
other, extreme imbalance (a few hundred against a huge count), every item discordant
(a = d = 0), a = 0 or d = 0, and discordance in the range where the detectable difference
takes the exact power (D from 1e4 to 1e6, where the rejection regions are computed).
"""

from __future__ import annotations

import numpy as np

MAX_COUNT = 2**52
SHAPES = ("b~c", "b=c+k", "b~c by sd", "b or c 0/1", "imbalance", "all discordant",
          "exact power", "any")


def empty_region_caches() -> None:
    """Empty what the power calculations keep of the tests' rejection regions (the blocks of
    j(m) and the windows' structure built from them), so that a timed analysis builds the
    regions it needs, as a new table's does."""
    from mcnemar.planning import _kernel, _power_path

    _kernel._region_cache.clear()
    _power_path._one_path_shape.cache_clear()


def huge_tables(seed: int, count: int) -> list[tuple[str, int, int, int, int]]:
    """``count`` tables (shape, a, b, c, d), cycling through :data:`SHAPES`."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        shape = SHAPES[i % len(SHAPES)]
        n = int(10 ** rng.uniform(9.0, np.log10(MAX_COUNT)))
        if shape == "b~c":
            m = int(n * rng.uniform(0.01, 1.0))
            b = m // 2 + int(rng.integers(-3, 4))
        elif shape == "b=c+k":
            c = int(n * rng.uniform(0.0, 0.49))
            m = 2 * c + int(rng.integers(0, 50))
            b = m - c
        elif shape == "b~c by sd":
            m = int(n * rng.uniform(0.001, 1.0))
            b = int(m / 2 + rng.normal() * np.sqrt(m) * rng.uniform(0.0, 5.0))
        elif shape == "b or c 0/1":
            m = int(n * rng.uniform(0.0, 1.0))
            b = int(rng.integers(0, 2))
        elif shape == "imbalance":
            m = int(n * rng.uniform(0.0, 1.0))
            b = int(rng.integers(0, 1000))
        elif shape == "all discordant":
            m = n
            b = int(m / 2 + rng.normal() * np.sqrt(m) * rng.uniform(0.0, 5.0))
        elif shape == "exact power":
            m = int(10 ** rng.uniform(4.0, 6.0))
            b = int(m / 2 + rng.normal() * np.sqrt(m))
        else:
            m = int(n * rng.uniform(0.0, 1.0))
            b = int(rng.integers(0, m + 1))
        b = min(max(b, 0), m)
        c = m - b
        if rng.random() < 0.5:
            b, c = c, b
        rest = n - m
        kind = int(rng.integers(0, 3))
        a = 0 if kind == 0 else rest if kind == 1 else int(rest * rng.uniform())
        out.append((shape, a, b, c, rest - a))
    return out
