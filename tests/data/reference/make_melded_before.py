"""Write ``melded_before.json``: Fay & Lumbard's exact difference limits of a seeded sample
of tables, as the reference that tests/test_melded_route.py holds later versions to (within
1e-12 relative).

The sample: random tables of the benchmark's kind (a, d up to 1000, b, c up to 100), small
tables (down to one item, with the cases m = N, b = 0, c = 0), discordant counts spread
log-uniformly up to 1e5 with N up to 1e6 (the Newton route), above 1e5 (the bracketing
route) and a few tables of 1e9 items or more (the route for huge tables); each at a level
drawn from 0.8, 0.9, 0.95 and 0.99, and a few fixed tables at all four levels.

The JSON holds the limits of the version of the package this runs with: it was written
before the Newton search of the melded limits was reworked, and rewriting it makes the
current limits the reference.

Usage: ``python tests/data/reference/make_melded_before.py`` (rewrites the JSON next to it).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from mcnemar.intervals import difference_interval

LEVELS = (0.8, 0.9, 0.95, 0.99)
SEED = 20250611
OUT = Path(__file__).with_name("melded_before.json")


def sample() -> tuple[list[tuple[int, int, int, int]], list[float]]:
    """The tables (a, b, c, d) and their confidence levels."""
    rng = np.random.default_rng(SEED)
    tables: list[tuple[int, int, int, int]] = []

    def add(a: int, b: int, c: int, d: int) -> None:
        tables.append((int(a), int(b), int(c), int(d)))

    for _ in range(240):
        a, d = rng.integers(0, 1001, 2)
        b, c = rng.integers(0, 101, 2)
        add(a, b, c, d)
    for _ in range(120):
        a, d = rng.integers(0, 31, 2) * (rng.random(2) < 0.7)
        b, c = rng.integers(0, 11, 2) * (rng.random(2) < 0.85)
        if a + b + c + d == 0:
            b = 1
        add(a, b, c, d)
    for _ in range(160):
        b, c = np.floor(10.0 ** rng.uniform(0.0, 5.0, 2)) * (rng.random(2) < 0.9)
        n = max(b + c + 1, np.floor(10.0 ** rng.uniform(np.log10(b + c + 1), 6.0)))
        rest = int(n - b - c)
        a = int(rng.integers(0, rest + 1))
        add(a, b, c, rest - a)
    for _ in range(24):
        b, c = np.floor(10.0 ** rng.uniform(4.5, 5.6, 2))
        n = np.floor(10.0 ** rng.uniform(np.log10(b + c), 6.0))
        rest = int(max(n - b - c, 0))
        a = int(rng.integers(0, rest + 1))
        add(a, b, c, rest - a)
    for b, c, n in ((120, 80, 10**9), (3, 0, 10**9), (40_000, 39_000, 10**12),
                    (10**6, 0, 10**12)):
        add(n - b - c, b, c, 0)
    levels = [float(x) for x in rng.choice(LEVELS, len(tables))]
    fixed = [(157, 17, 3, 23), (0, 1, 0, 0), (0, 0, 0, 1), (5, 0, 0, 5), (0, 7, 3, 0),
             (90, 10, 0, 0), (0, 64, 64, 0), (1000, 65, 63, 1000), (10, 0, 12, 3)]
    for table in fixed:
        for level in LEVELS:
            tables.append(table)
            levels.append(level)
    return tables, levels


def main() -> None:
    tables, levels = sample()
    a, b, c, d = (np.array(col, dtype=np.int64) for col in zip(*tables, strict=True))
    ci = difference_interval(a, b, c, d, confidence_level=np.array(levels), method="exact")
    rows = [
        {"table": list(t), "level": lv, "low": float(lo), "high": float(hi)}
        for t, lv, lo, hi in zip(tables, levels, ci.low, ci.high, strict=True)
    ]
    lines = ",\n".join(json.dumps(row) for row in rows)
    OUT.write_text(f'{{"seed": {SEED}, "rows": [\n{lines}\n]}}\n')


if __name__ == "__main__":
    main()
