"""``analyze()`` at huge counts, as a multiple of its time for the 200-item table.

The seeded search of ``tests/test_analysis_huge.py`` (``tests/_huge_tables.py``: N from 1e9
to 2**52, b ~ c, b = c + k, b or c 0 or 1, imbalance, every item discordant, discordance
where the detectable difference takes the exact power), larger: for each shape the median
and largest ratio of a table's time (median of three runs, the rejection regions' cache
emptied before each) to the 200-item table's, then the ten slowest tables. Target: at most 20
times, never more than 50. Usage:
``python benchmarks/bench_analyze_huge.py [TABLES [SEED]]`` (default 400 tables, seed 1).
"""

from __future__ import annotations

import os
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from _huge_tables import SHAPES, empty_region_caches, huge_tables

TARGET = 20.0


def main(argv: list[str]) -> None:
    from mcnemar import analyze
    from mcnemar.table import PairedTable

    count = int(argv[0]) if argv else 400
    seed = int(argv[1]) if len(argv) > 1 else 1

    def median_time(table: PairedTable, runs: int) -> float:
        times = []
        for _ in range(runs):
            empty_region_caches()
            start = time.perf_counter()
            analyze(table)
            times.append(time.perf_counter() - start)
        return sorted(times)[len(times) // 2]

    small = PairedTable(a=157, b=17, c=3, d=23)
    analyze(small)
    base = median_time(small, 15)
    print(f"load average {os.getloadavg()[0]:.1f}; 200-item table {base * 1e3:.2f} ms")
    by_shape: dict[str, list[float]] = defaultdict(list)
    rows = []
    for shape, a, b, c, d in huge_tables(seed, count):
        ratio = median_time(PairedTable(a=a, b=b, c=c, d=d), 3) / base
        by_shape[shape].append(ratio)
        rows.append((ratio, shape, (a, b, c, d)))
    print(f"{'shape':<16} {'tables':>6} {'median x':>9} {'max x':>7}")
    for shape in SHAPES:
        values = sorted(by_shape[shape])
        print(f"{shape:<16} {len(values):>6} {values[len(values) // 2]:>9.1f} "
              f"{values[-1]:>7.1f}")
    rows.sort(reverse=True)
    print("slowest:")
    for ratio, shape, cells in rows[:10]:
        print(f"  {ratio:6.1f} x  {shape:<16} a, b, c, d = {cells}")
    worst = rows[0][0]
    print(f"largest {worst:.1f} x ({'within' if worst <= TARGET else 'over'} the target of "
          f"{TARGET:g} x)")


if __name__ == "__main__":
    main(sys.argv[1:])
