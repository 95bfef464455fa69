"""The full report: one table through ``analyze()``, many through ``analyze_many()``, each
against one exact McNemar test of statsmodels in the same run.

0. The yardstick: ``statsmodels.stats.contingency_tables.mcnemar(table, exact=True)`` of the
   200-item example, one call (a p-value only, where a report computes four tests, eleven
   intervals, the unpaired comparison and the detectable difference).
1. ``analyze()`` of the 200-item example (a=157, b=17, c=3, d=23), target at most 2 ms, as a
   multiple of the statsmodels call measured before it, and as a multiple of that call
   measured side by side with it (rounds alternating between the two, the best of each;
   target at most 20); the same for a distinct random table per call (no cache can
   answer); then the time of each block of the report (tests, each interval
   method, the detectable difference), measured one by one on that table.
2. ``analyze_many()`` of 10,000 random tables (a, d in [0, 1000], b, c in [0, 100]): the time
   per table, and that as a multiple of the statsmodels call (target: at most one call per
   table); the same blocks, each one vectorized call over all tables; and ``to_frame()``.

Each figure is the best of a few repeats (the machine is shared: the load average is printed
before and after the figures, and the ratios compare timings of the same run).
``--profile`` adds the cProfile listing of both. Usage:
``python benchmarks/bench_analyze.py [--profile]``.
"""

from __future__ import annotations

import cProfile
import os
import pstats
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

SINGLE_TARGET_MS = 2.0
#: analyze() of the 200-item example, in statsmodels exact McNemar calls (the speed issue).
SINGLE_TARGET_RATIO = 20.0
#: analyze_many() per table, in statsmodels exact McNemar calls.
BATCH_TARGET_RATIO = 1.0
EXAMPLE = (157, 17, 3, 23)


def per_call(fn: Callable[[], Any], calls: int, repeat: int = 5) -> float:
    """Best over ``repeat`` runs of the mean time of ``calls`` calls, in seconds."""
    fn()
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - t0) / calls)
    return float(best)


def blocks(a: Any, b: Any, c: Any, d: Any, calls: int) -> list[tuple[str, float]]:
    """Time of each vectorized block of the analysis for the tables (a, b, c, d)."""
    from mcnemar import intervals as iv
    from mcnemar.inference import pvalues, unpaired_ztest
    from mcnemar.planning import minimum_detectable_effect
    from mcnemar.report._compute import ODDS_RATIO_SHOWN, RATIO_SHOWN, TEST_ORDER

    a, b, c, d = (np.atleast_1d(np.asarray(x, dtype=np.int64)) for x in (a, b, c, d))
    n = a + b + c + d
    out = []
    for key in TEST_ORDER:
        out.append((f"test {key}", per_call(lambda k=key: pvalues(b, c, k, "two-sided"), calls)))
    for m in iv.DIFFERENCE_METHODS:
        out.append((f"difference {m}",
                    per_call(lambda m=m: iv.difference_interval(a, b, c, d, method=m), calls)))
    for m in RATIO_SHOWN:
        out.append((f"ratio {m}",
                    per_call(lambda m=m: iv.ratio_interval(a, b, c, d, method=m), calls)))
    for m in ODDS_RATIO_SHOWN:
        out.append((f"odds ratio {m}",
                    per_call(lambda m=m: iv.odds_ratio_interval(b, c, method=m), calls)))
    out.append(("unpaired z-test", per_call(lambda: unpaired_ztest(a, b, c, d), calls)))
    out.append(("detectable difference (exact power)",
                per_call(lambda: minimum_detectable_effect(n, (b + c) / n), max(1, calls // 4))))
    return out


def load() -> str:
    """The load averages over 1, 5 and 15 minutes."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def side_by_side(fn: Callable[[], Any], anchor: Callable[[], Any], calls: int, anchor_calls: int,
                 rounds: int = 15) -> tuple[float, float]:
    """Best mean time per call of ``fn`` and of ``anchor`` over ``rounds`` rounds that
    alternate between them (each round some 20 ms of each), in seconds: the two figures of a
    ratio come from the same moments of the run, so a change of the machine's speed during
    the run (a neighbour's load, the clock) moves both."""
    fn()
    anchor()
    best_fn = best_anchor = np.inf
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(anchor_calls):
            anchor()
        t1 = time.perf_counter()
        for _ in range(calls):
            fn()
        t2 = time.perf_counter()
        best_anchor = min(best_anchor, (t1 - t0) / anchor_calls)
        best_fn = min(best_fn, (t2 - t1) / calls)
    return float(best_fn), float(best_anchor)


def _statsmodels_fn() -> Callable[[], Any]:
    """One statsmodels exact McNemar test of the 200-item example, as a call."""
    from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

    a, b, c, d = EXAMPLE
    table = [[a, b], [c, d]]
    return lambda: sm_mcnemar(table, exact=True)


def statsmodels_call() -> float:
    """Seconds per statsmodels exact McNemar test of the 200-item example."""
    t = per_call(_statsmodels_fn(), 2000)
    print("0. statsmodels mcnemar(table, exact=True), 200-item example: "
          f"{t * 1e6:7.1f} us per call (load {load()})")
    return t


def bench_single(profile: bool, reference: float) -> None:
    from mcnemar import PairedTable, analyze

    table = PairedTable(*EXAMPLE)
    t_same = per_call(lambda: analyze(table), 50)
    rng = np.random.default_rng(1)
    distinct = [PairedTable(*map(int, rng.integers([100, 5, 5, 10], [200, 30, 30, 40])))
                for _ in range(400)]
    it = iter(distinct)
    t_distinct = per_call(lambda: analyze(next(it)), 50, repeat=5)
    rep = analyze(table)
    t_dict = per_call(rep.to_dict, 200)
    t_text = per_call(lambda: str(rep), 200)
    t_side, anchor_side = side_by_side(lambda: analyze(table), _statsmodels_fn(), 25, 500)
    print("\n1. analyze() of one table")
    verdict = "met" if t_same * 1e3 <= SINGLE_TARGET_MS else "MISSED"
    print(f"   200-item example:              {t_same * 1e3:7.2f} ms  "
          f"(target {SINGLE_TARGET_MS} ms: {verdict}) = {t_same / reference:6.1f} "
          "statsmodels calls (the call measured before)")
    side_verdict = "met" if t_side <= SINGLE_TARGET_RATIO * anchor_side else "MISSED"
    print(f"   side by side, rounds alternating: {t_side * 1e3:7.2f} ms and "
          f"{anchor_side * 1e6:.1f} us = {t_side / anchor_side:6.1f} statsmodels calls "
          f"(target {SINGLE_TARGET_RATIO:g}: {side_verdict})")
    print(f"   distinct random tables (n~250): {t_distinct * 1e3:7.2f} ms")
    print(f"   report.to_dict():               {t_dict * 1e3:7.3f} ms")
    print(f"   str(report):                    {t_text * 1e3:7.3f} ms")
    print("   blocks of the analysis of the 200-item example, one call each:")
    parts = blocks(157, 17, 3, 23, 40)
    for name, t in sorted(parts, key=lambda x: -x[1]):
        print(f"     {name:<40} {t * 1e3:7.3f} ms")
    total = sum(t for _, t in parts)
    print(f"     {'sum of the blocks':<40} {total * 1e3:7.3f} ms "
          f"(the rest, {max(0.0, t_same - total) * 1e3:.2f} ms: building the report and words)")
    if profile:
        _profile(lambda: [analyze(table) for _ in range(50)])


def bench_batch(profile: bool, reference: float) -> None:
    from mcnemar import analyze_many

    rng = np.random.default_rng(0)
    k = 10_000
    cells = np.column_stack([
        rng.integers(0, 1001, k), rng.integers(0, 101, k), rng.integers(0, 101, k),
        rng.integers(0, 1001, k),
    ])
    # The batch with its table: the interval methods it does not show (all but Newcombe's)
    # are computed only when read; every block read is the third line.
    t_batch = per_call(lambda: analyze_many(cells).to_frame(), 1, repeat=2)
    batch = analyze_many(cells)
    t_frame = per_call(batch.to_frame, 1, repeat=2)
    t_all = per_call(lambda: _every_block(analyze_many(cells)), 1, repeat=2)
    t_items = per_call(lambda: [batch[i] for i in range(100)], 1, repeat=2) / 100
    per = t_batch / k * 1e6
    ratio = t_batch / k / reference
    verdict = "met" if ratio <= BATCH_TARGET_RATIO else "MISSED"
    print(f"\n2. analyze_many() of {k:,} random tables (a, d in [0, 1000], b, c in [0, 100])")
    print(f"   analyze_many().to_frame(): {t_batch:7.2f} s = {per:7.1f} us per table "
          f"= {ratio:5.2f} statsmodels calls (target {BATCH_TARGET_RATIO:g}: {verdict}; "
          f"load {load()})")
    print(f"   to_frame() again:      {t_frame * 1e3:7.1f} ms")
    print(f"   every interval block read: {t_all / k * 1e6:7.1f} us per table "
          f"= {t_all / k / reference:5.2f} statsmodels calls")
    print(f"   batch[i] (one Report): {t_items * 1e6:7.1f} us each, on demand")
    print("   blocks, one vectorized call over all tables, per table:")
    parts = blocks(cells[:, 0], cells[:, 1], cells[:, 2], cells[:, 3], 1)
    for name, t in sorted(parts, key=lambda x: -x[1]):
        print(f"     {name:<40} {t / k * 1e6:8.2f} us")
    if profile:
        _profile(lambda: analyze_many(cells))


def _every_block(batch: Any) -> None:
    """Read every interval method of every quantity (what iterating the reports computes)."""
    cols = batch.columns
    for block in (cols.difference_intervals, cols.ratio_intervals, cols.odds_ratio_intervals):
        for method in block:
            block[method]


def _profile(fn: Callable[[], Any]) -> None:
    prof = cProfile.Profile()
    prof.enable()
    fn()
    prof.disable()
    pstats.Stats(prof).sort_stats("cumulative").print_stats(25)


def main(argv: list[str]) -> int:
    profile = "--profile" in argv
    print(f"(load average {load()} on {os.cpu_count()} cores)")
    reference = statsmodels_call()
    bench_single(profile, reference)
    bench_batch(profile, reference)
    # the yardstick again: the ratios hold if the machine's load did not change in between
    again = statsmodels_call()
    print(f"\n(python {sys.version.split()[0]}, numpy {np.__version__}; best of repeats; "
          f"statsmodels call {reference * 1e6:.1f} us at the start, {again * 1e6:.1f} us at "
          f"the end; load average {load()} on {os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
