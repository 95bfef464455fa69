"""Write intervals_before.json: the interval limits of a seeded sample of tables as the
library computed them before the single-table routes of the score and closed-form intervals
were rewritten; ``tests/test_interval_routes.py`` holds every later version to them.

The sample: every pattern of zero cells, equal discordant counts, counts up to 2**50 and
random report-sized tables, each at one of the levels 0.8, 0.9, 0.95, 0.99. Limits are stored
as ``float.hex`` strings (exact, and nan and inf included). Usage:
``python tests/data/reference/make_intervals_before.py`` (overwrites the fixture).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np

from mcnemar import intervals as iv
from mcnemar.inference import normal_isf
from mcnemar.intervals._odds_ratio import _or_wilson

LEVELS = (0.8, 0.9, 0.95, 0.99)
#: The exact difference interval has its own tests (test_intervals_fast.py).
DIFFERENCE = tuple(m for m in iv.DIFFERENCE_METHODS if m != "exact")


def tables() -> list[tuple[int, int, int, int]]:
    """The seeded sample of tables (a, b, c, d)."""
    rng = np.random.default_rng(20240611)
    out: list[tuple[int, int, int, int]] = []
    # every pattern of zero cells, the others small, moderate or large
    for zeros in itertools.product((True, False), repeat=4):
        for scale in (3, 300, 2**30):
            cells = rng.integers(1, scale + 1, 4)
            out.append(tuple(0 if z else int(v) for z, v in zip(zeros, cells, strict=True)))
    # b = c, from none to many discordant items
    for bc in (0, 1, 2, 5, 17, 1000, 2**40):
        for a, d in ((0, 0), (10, 3), (157, 23), (2**45, 2**44)):
            out.append((a, bc, bc, d))
    # counts up to 2**50, each cell log-uniform
    for _ in range(30):
        out.append(tuple(int(x) for x in np.floor(2.0 ** rng.uniform(0, 50, 4))))
    # b or c far from the other, with huge concordant counts
    for small, big in ((0, 2**50), (1, 2**50), (3, 2**36), (1, 2**20)):
        out.append((2**50, small, big, 2**49))
        out.append((2**50, big, small, 2**49))
    # tables of a report's size
    cells = rng.integers([0, 0, 0, 0], [1001, 101, 101, 1001], size=(60, 4))
    out.extend(tuple(int(v) for v in row) for row in cells)
    out.append((157, 17, 3, 23))
    return out


def limits(cells: np.ndarray, levels: np.ndarray) -> dict[str, list[list[str]]]:
    """Each method's [low, high] per table, as hex strings, from one vectorized call."""
    a, b, c, d = cells.T
    out = {}
    calls = [(f"difference {m}", iv.difference_interval, (a, b, c, d), m) for m in DIFFERENCE]
    calls += [(f"ratio {m}", iv.ratio_interval, (a, b, c, d), m) for m in iv.RATIO_METHODS]
    calls += [(f"odds ratio {m}", iv.odds_ratio_interval, (b, c), m)
              for m in iv.ODDS_RATIO_METHODS]
    for name, fn, counts, method in calls:
        low, high = fn(*counts, confidence_level=levels, method=method)
        out[name] = [[float(x).hex() for x in low], [float(x).hex() for x in high]]
    low, high = iv.wilson_interval(a + b, a + b + c + d, confidence_level=levels)
    out["wilson a+b of N"] = [[float(x).hex() for x in low], [float(x).hex() for x in high]]
    # A report's Wilson odds-ratio limits take z from mcnemar.inference.normal_isf.
    z = np.array([normal_isf((1.0 - level) / 2.0) for level in levels.tolist()])
    low, high = _or_wilson(b.astype(np.float64), c.astype(np.float64), z)
    out["report odds ratio wilson"] = [[float(x).hex() for x in low],
                                       [float(x).hex() for x in high]]
    return out


def main() -> None:
    sample = tables()
    cells = np.array(sample, dtype=np.int64)
    levels = np.array([LEVELS[i % len(LEVELS)] for i in range(len(sample))])
    data = {"tables": [list(t) for t in sample], "levels": levels.tolist(),
            "limits": limits(cells, levels)}
    path = Path(__file__).with_name("intervals_before.json")
    path.write_text(json.dumps(data, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
