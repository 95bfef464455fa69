"""The per-task forest plot (mcnemar.plotting.forest_plot): it draws on the Agg canvas, rows
are worst first with the overall rows last, and no two labels overlap for a 57-task suite
with 40-character task names (their rendered bounding boxes)."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from mcnemar.errors import McNemarError
from mcnemar.tasks import compare_task_tables

pytest.importorskip("matplotlib")

from mcnemar.plotting import forest_plot


@pytest.fixture(scope="module")
def suite():  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(57)
    tables = {}
    for i in range(57):
        name = f"subject_{i:02d}_" + "abcdefghijklmnopqrstuvwxyz"[i % 26] * 40
        n = int(rng.integers(100, 400))
        b, c = rng.integers(0, n // 5, size=2)
        if i < 3:
            b, c = 2, 40  # a few clearly worse tasks
        tables[name[:40]] = (n - b - c - 10, int(b), int(c), 10)
    return compare_task_tables(tables, names=("candidate", "baseline"))


def _overlaps(boxes) -> list[tuple[int, int]]:  # type: ignore[no-untyped-def]
    return [(i, j) for (i, a), (j, b) in itertools.combinations(enumerate(boxes), 2)
            if a.overlaps(b)]


def test_57_tasks_labels_do_not_overlap(suite) -> None:  # type: ignore[no-untyped-def]
    ax = forest_plot(suite, dpi=72)
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    fig.draw(renderer)
    ticks = [t for t in ax.get_yticklabels() if t.get_text()]
    assert len(ticks) == 59  # 57 tasks + micro + macro
    boxes = [t.get_window_extent(renderer) for t in ticks]
    assert _overlaps(boxes) == []
    notes = [t.get_window_extent(renderer) for t in ax.texts]
    assert len(notes) == 59
    assert _overlaps(notes) == []
    # labels stay inside the figure
    width, height = fig.bbox.width, fig.bbox.height
    assert all(b.x0 >= 0 and b.y0 >= 0 and b.x1 <= width and b.y1 <= height for b in boxes)


def test_rows_worst_first_and_overall_last(suite) -> None:  # type: ignore[no-untyped-def]
    ax = forest_plot(suite)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[:3] == [t.task for t in suite.worse][:3]
    assert labels[-2].startswith("Overall, micro")
    assert labels[-1].startswith("Overall, macro") and labels[-1].endswith("*")  # headline
    ys = [t.get_position()[1] for t in ax.get_yticklabels()]
    assert ys == sorted(ys, reverse=True)


def test_draws_on_given_axes_and_svg(tmp_path: Path) -> None:
    from matplotlib.figure import Figure

    suite = compare_task_tables({"x": (40, 3, 12, 5), "y": (100, 30, 12, 8)})
    fig = Figure(figsize=(8, 3))
    ax = fig.add_subplot()
    assert suite.plot(ax=ax) is ax
    out = tmp_path / "f.svg"
    suite.plot(out)
    assert out.read_text().lstrip().startswith("<?xml")
    png = tmp_path / "f.png"
    suite.plot(png, dpi=50)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_refuses_other_results() -> None:
    with pytest.raises(McNemarError, match="TaskComparison"):
        forest_plot(object())
