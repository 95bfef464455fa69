"""What the harness tests share: the command line of a pairing recorded in an ``expected.json``
(``tests/data/io/real/<tool>/``) and the CSV files of a suite of tasks."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any


def compare_args(a: Path, b: Path, case: Mapping[str, Any], *, read_flags: Mapping[str, str],
                 align_flags: Mapping[str, str]) -> list[str]:
    """``mcnemar compare`` for a pairing: its reader options (``read``, or ``read_a`` and
    ``read_b`` per side: a score that differs goes to ``--score-a``/``--score-b``; a list is
    the flag repeated) and its alignment options, spelled by the tool's flags."""
    args = ["compare", str(a), str(b), "--format", "json", "--no-progress"]
    read_a = case.get("read_a", case.get("read") or {})
    read_b = case.get("read_b", case.get("read") or {})
    for key in sorted(set(read_a) | set(read_b)):
        if read_a.get(key) == read_b.get(key):
            value = read_a[key]
            for one in value if isinstance(value, list) else [value]:
                args += [read_flags[key], str(one)]
        else:  # e.g. one log with two scorers against a log with one
            assert key == "score"
            if key in read_a:
                args += ["--score-a", str(read_a[key])]
            if key in read_b:
                args += ["--score-b", str(read_b[key])]
    for key, value in (case.get("align") or {}).items():
        args += [align_flags[key], str(value)]
    return args


def suite_csvs(folder: Path, suite: Mapping[str, tuple[int, int, int, int]],
               names: tuple[str, str] = ("new", "old")) -> tuple[Path, Path]:
    """Two CSV files (task, id, correct) whose tasks have the tables ``suite`` gives: cells
    (a, b, c, d) of both right, A only, B only, neither."""
    a, b = folder / f"{names[0]}.csv", folder / f"{names[1]}.csv"
    rows_a, rows_b = ["task,id,correct"], ["task,id,correct"]
    for task, cells in suite.items():
        i = 0
        for (pa, pb), count in zip(((1, 1), (1, 0), (0, 1), (0, 0)), cells, strict=True):
            for _ in range(count):
                rows_a.append(f"{task},q{i},{pa}")
                rows_b.append(f"{task},q{i},{pb}")
                i += 1
    a.write_text("\n".join(rows_a) + "\n")
    b.write_text("\n".join(rows_b) + "\n")
    return a, b
