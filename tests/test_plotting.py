"""Tests for mcnemar.plotting: the files are valid images of the promised size, bad input is
refused, and nothing changes matplotlib's global state."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from mcnemar.errors import McNemarError

pytest.importorskip("matplotlib")
pytest.importorskip("mcnemar.table")
pytest.importorskip("mcnemar.inference")

from mcnemar.multiple import PairwiseResult, pairwise
from mcnemar.plotting import forest, pairwise_heatmap

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert data[-8:-4] == b"IEND"  # the file is complete
    return width, height


@pytest.fixture(scope="module")
def result() -> PairwiseResult:
    rng = np.random.default_rng(5)
    acc = np.array([0.9, 0.86, 0.85, 0.78, 0.6])
    x = (rng.random((5, 500)) < acc[:, None]).astype(np.int8)
    return pairwise(x, names=["large", "medium", "medium-b", "small", "tiny"])


@pytest.fixture(scope="module")
def baseline_result() -> PairwiseResult:
    rng = np.random.default_rng(6)
    acc = np.array([0.8, 0.86, 0.79, 0.7])
    x = (rng.random((4, 400)) < acc[:, None]).astype(np.int8)
    return pairwise(x, names=["base", "new", "tweak", "worse"], baseline="base")


def test_heatmap_png_has_the_requested_size(result: PairwiseResult, tmp_path: Path) -> None:
    out = pairwise_heatmap(result, tmp_path / "heat.png", size=(6, 5), dpi=80)
    assert out == tmp_path / "heat.png"
    assert _png_size(out) == (480, 400)


def test_heatmap_default_size_follows_k(result: PairwiseResult, tmp_path: Path) -> None:
    s = min(16.0, max(4.0, 0.45 * 5 + 2.5))
    out = pairwise_heatmap(result, tmp_path / "heat.png", dpi=100)
    assert s == 4.75
    assert _png_size(out) == (635, 475)


def test_heatmap_many_models_without_labels(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    x = (rng.random((70, 300)) < rng.uniform(0.5, 0.9, 70)[:, None]).astype(np.int8)
    out = pairwise_heatmap(pairwise(x), tmp_path / "big.png", size=(5, 4), dpi=60)
    assert _png_size(out) == (300, 240)


def test_forest_png_all_pairs_and_baseline(result: PairwiseResult,
                                           baseline_result: PairwiseResult,
                                           tmp_path: Path) -> None:
    out = forest(result, tmp_path / "f.png", size=(7, 3), dpi=100)
    assert _png_size(out) == (700, 300)
    out = forest(baseline_result, tmp_path / "b.png", dpi=100)
    # default height: 3 rows -> max(2.5, 0.32 * 3 + 1.6)
    assert _png_size(out) == (750, round(max(2.5, 0.32 * 3 + 1.6) * 100))


def test_forest_limit(tmp_path: Path) -> None:
    rng = np.random.default_rng(8)
    x = (rng.random((30, 200)) < rng.uniform(0.5, 0.9, 30)[:, None]).astype(np.int8)
    out = forest(pairwise(x), tmp_path / "f.png", limit=10, dpi=100)
    assert _png_size(out)[1] == round((0.32 * 10 + 1.6) * 100)


def test_svg_and_pdf(result: PairwiseResult, tmp_path: Path) -> None:
    svg = pairwise_heatmap(result, tmp_path / "h.svg")
    assert b"<svg" in svg.read_bytes()[:500]
    pdf = forest(result, tmp_path / "f.pdf")
    assert pdf.read_bytes()[:5] == b"%PDF-"


def test_global_matplotlib_state_untouched(result: PairwiseResult, tmp_path: Path) -> None:
    import matplotlib

    backend = matplotlib.get_backend()
    pairwise_heatmap(result, tmp_path / "h.png")
    assert matplotlib.get_backend() == backend
    import matplotlib.pyplot as plt

    assert plt.get_fignums() == []


def test_refuses_bad_input(result: PairwiseResult, baseline_result: PairwiseResult,
                           tmp_path: Path) -> None:
    with pytest.raises(McNemarError, match=r"needs the result of mcnemar\.pairwise"):
        pairwise_heatmap(np.zeros((3, 3)), tmp_path / "x.png")  # type: ignore[arg-type]
    with pytest.raises(McNemarError, match=r"needs the result of mcnemar\.pairwise"):
        forest({"pvalue": 1}, tmp_path / "x.png")  # type: ignore[arg-type]
    with pytest.raises(McNemarError, match=r"\.png, \.svg, \.pdf"):
        pairwise_heatmap(result, tmp_path / "x.jpeg")
    with pytest.raises(McNemarError, match="does not exist"):
        forest(result, tmp_path / "missing" / "x.png")
    with pytest.raises(McNemarError, match="file name"):
        forest(result, 42)  # type: ignore[arg-type]
    with pytest.raises(McNemarError, match="forest"):
        pairwise_heatmap(baseline_result, tmp_path / "x.png")
    with pytest.raises(McNemarError, match="size"):
        pairwise_heatmap(result, tmp_path / "x.png", size=(0, 4))
    with pytest.raises(McNemarError, match="size"):
        forest(result, tmp_path / "x.png", size="big")  # type: ignore[arg-type]
    with pytest.raises(McNemarError, match="dpi"):
        forest(result, tmp_path / "x.png", dpi=-1)
    with pytest.raises(McNemarError, match="limit"):
        forest(result, tmp_path / "x.png", limit=0)
    assert list(tmp_path.iterdir()) == []  # nothing was written


def test_cell_labels_never_cross_alpha() -> None:
    from mcnemar.plotting import _fmt_cell

    assert _fmt_cell(0.0486, 0.05) == "0.049"
    assert _fmt_cell(0.04996, 0.05) == "0.04996"
    assert _fmt_cell(0.05, 0.05) == "0.05"
    assert _fmt_cell(0.24, 0.05) == "0.24" and _fmt_cell(0.999, 0.05) == "1"
