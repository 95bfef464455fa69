"""Plots of many-model comparisons (needs matplotlib: ``pip install 'mcnemar[plot]'``).

Contents
--------
:func:`pairwise_heatmap`
    the K x K matrix of adjusted p-values of a :class:`~mcnemar.multiple.PairwiseResult`,
    models in accuracy order, significant cells marked.
:func:`forest`
    each model's difference in accuracy from the baseline (or from the best model) with its
    confidence interval, zero marked.
:func:`forest_plot`
    the per-task differences of a :class:`~mcnemar.tasks.TaskComparison`, worst first,
    with the micro and macro overall rows.
:func:`eprocess`
    the e-value of the anytime-valid sequential test (:func:`mcnemar.sequential.sequential`)
    after each item, with the rejection line 1/alpha and the item where the run could have
    stopped.

matplotlib is imported only inside these functions, and only its object-oriented interface
is used (a ``Figure`` drawn on the Agg canvas), so calling them neither needs a display nor
changes the backend or the global state of ``matplotlib.pyplot`` in the caller's session.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from mcnemar import vocabulary
from mcnemar._format import format_label_pvalue
from mcnemar.errors import McNemarError

if TYPE_CHECKING:
    from mcnemar.multiple import PairwiseResult

__all__ = ["eprocess", "forest", "forest_plot", "pairwise_heatmap"]

_FORMATS = ("png", "svg", "pdf")
# Titles and legends name the adjustment and the test by their short labels.
_ADJUST_TITLES = {term.name: term.short for term in vocabulary.ADJUSTMENTS}
_METHOD_TITLES = {term.name: term.short for term in vocabulary.TESTS}


def _figure_class() -> Any:
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise McNemarError(
            "plots need matplotlib, which is not installed; install it with "
            "pip install 'mcnemar[plot]'"
        ) from None
    return Figure, FigureCanvasAgg


def _check_result(result: Any, func: str) -> PairwiseResult:
    from mcnemar.multiple import PairwiseResult

    if not isinstance(result, PairwiseResult):
        raise McNemarError(
            f"{func} needs the result of mcnemar.pairwise(...) (a PairwiseResult); got "
            f"{type(result).__name__}"
        )
    return result


def _check_path(path: Any) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise McNemarError(f"path must be a file name such as 'plot.png'; got {path!r}")
    out = Path(path)
    suffix = out.suffix.lower().lstrip(".")
    if suffix not in _FORMATS:
        valid = ", ".join(f".{f}" for f in _FORMATS)
        raise McNemarError(
            f"path must end in one of {valid} (the image format); got {str(path)!r}"
        )
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.is_dir():
        raise McNemarError(
            f"path {str(path)!r}: the directory {str(parent)!r} does not exist"
        )
    # Refused before any work, as every missing extra is: not after a report was printed.
    try:
        import matplotlib  # noqa: F401 (the drawing needs it; imported here to fail first)
    except ImportError as exc:
        from mcnemar.io._run import missing_dependency

        raise missing_dependency(exc, what=f"drawing {out.name}") from None
    return out


def _check_size(size: Any, default: tuple[float, float]) -> tuple[float, float]:
    if size is None:
        return default
    try:
        w, h = (float(v) for v in size)
    except (TypeError, ValueError):
        raise McNemarError(
            f"size must be (width, height) in inches, two positive numbers; got {size!r}"
        ) from None
    if not (math.isfinite(w) and math.isfinite(h) and w > 0 and h > 0):
        raise McNemarError(
            f"size must be (width, height) in inches, two positive numbers; got {size!r}"
        )
    return w, h


def _check_dpi(dpi: Any) -> float:
    if isinstance(dpi, bool) or not isinstance(dpi, (int, float)) or not dpi > 0:
        raise McNemarError(f"dpi must be a positive number (dots per inch); got {dpi!r}")
    if not math.isfinite(dpi):
        raise McNemarError(f"dpi must be a positive number (dots per inch); got {dpi!r}")
    return float(dpi)


def _new_figure(size: Any, default: tuple[float, float], dpi: Any) -> tuple[Any, Any, Any, float]:
    """A figure of ``size`` inches (``default`` when None) at ``dpi``, with one axes: the
    figure, the axes, the canvas class to save it with and the checked dpi (size and dpi are
    checked before matplotlib is imported)."""
    width, height = _check_size(size, default)
    dpi = _check_dpi(dpi)
    figure_class, canvas_class = _figure_class()
    fig = figure_class(figsize=(width, height), dpi=dpi, layout="constrained")
    return fig, fig.add_subplot(), canvas_class, dpi


def _save(fig: Any, canvas_class: Any, path: Path, dpi: float) -> Path:
    canvas_class(fig)
    try:
        fig.savefig(path, dpi=dpi, format=path.suffix.lower().lstrip("."))
    except OSError as exc:
        raise McNemarError(f"path {str(path)!r}: could not write the image: {exc}") from None
    return path


def _fmt_cell(p: float, alpha: float) -> str:
    """Short p-value label; a value below ``alpha`` never rounds up to it (or vice versa)."""
    return format_label_pvalue(p, alpha)


def _two_part_colormap(vmin: float, alpha: float) -> Any:
    """Blues below alpha (darker = smaller p), pale sand above: significance reads at a glance."""
    from matplotlib import colormaps
    from matplotlib.colors import ListedColormap, to_rgba

    n = 256
    split = math.log(alpha / vmin) / math.log(1.0 / vmin) if alpha > vmin else 0.0
    n_sig = max(1, min(n - 1, round(split * n)))
    significant = colormaps["YlGnBu_r"](np.linspace(0.0, 0.62, n_sig))
    pale, white = np.array(to_rgba("#efe2c0")), np.array(to_rgba("#fffdf7"))
    weights = np.linspace(0.0, 1.0, n - n_sig)[:, None]
    not_significant = pale * (1 - weights) + white * weights
    return ListedColormap(np.vstack([significant, not_significant])).with_extremes(bad="0.7")


def pairwise_heatmap(
    result: PairwiseResult,
    path: str | os.PathLike[str],
    *,
    size: tuple[float, float] | None = None,
    dpi: float = 100,
    annotate: bool | None = None,
) -> Path:
    """Draw the matrix of adjusted p-values of an all-pairs comparison.

    Rows and columns are the models in accuracy order (best at the top left). The colour is
    the adjusted p-value on a log scale, the diagonal is grey, and cells with an adjusted
    p-value below ``result.alpha`` are marked with ``*`` (and the colour bar has a line at
    alpha). Up to 25 models each cell also shows its adjusted p-value.

    Parameters
    ----------
    result : PairwiseResult
        From :func:`mcnemar.pairwise` without ``baseline`` (a vs-baseline result has no full
        matrix: use :func:`forest`).
    path : str or path-like
        The image file; the format follows the extension (.png, .svg or .pdf).
    size : (float, float), optional
        Width and height in inches. Default grows with the number of models K:
        ``(s + 1.6, s)`` with ``s = min(16, max(4, 0.45 K + 2.5))``.
    dpi : float
        Resolution; a PNG is ``width * dpi`` x ``height * dpi`` pixels (rounded down).
    annotate : bool, optional
        Print the p-value in each cell (default: when K <= 25).

    Returns
    -------
    pathlib.Path
        ``path``, now holding the heatmap.

    Examples
    --------
    >>> import numpy as np, mcnemar.multiple, mcnemar.plotting, tempfile, os
    >>> rng = np.random.default_rng(1)
    >>> x = (rng.random((4, 300)) < np.array([[0.9], [0.85], [0.8], [0.7]])).astype(int)
    >>> res = mcnemar.multiple.pairwise(x, names=["w", "x", "y", "z"])
    >>> out = mcnemar.plotting.pairwise_heatmap(res, os.path.join(tempfile.mkdtemp(), "p.png"))
    >>> out.suffix
    '.png'
    """
    res = _check_result(result, "pairwise_heatmap")
    if res.baseline is not None:
        raise McNemarError(
            "pairwise_heatmap needs an all-pairs result; this one compares each model with "
            f"the baseline {res.names[res.baseline]!r} only; draw it with forest() instead"
        )
    out = _check_path(path)
    k = res.k
    s = min(16.0, max(4.0, 0.45 * k + 2.5))
    fig, ax, canvas_class, dpi = _new_figure(size, (s + 1.6, s), dpi)
    if annotate is None:
        annotate = k <= 25
    from matplotlib.colors import LogNorm

    order = np.asarray(res.ranking)
    values = np.array(res.adjusted_pvalue)[np.ix_(order, order)]
    sig = np.array(res.significant | res.significant.T)[np.ix_(order, order)]
    positive = values[np.isfinite(values) & (values > 0)]
    smallest = float(positive.min()) if positive.size else 1.0
    vmin = 10.0 ** math.floor(math.log10(max(1e-16, min(smallest, res.alpha / 10))))
    shown = np.ma.masked_invalid(np.clip(values, vmin, 1.0))

    cmap = _two_part_colormap(vmin, res.alpha)
    image = ax.imshow(shown, cmap=cmap, norm=LogNorm(vmin=vmin, vmax=1.0),
                      interpolation="nearest", aspect="equal")
    clipped = bool(np.any(values[np.isfinite(values)] < vmin))
    bar = fig.colorbar(image, ax=ax, shrink=0.8, extend="min" if clipped else "neither")
    bar.set_label(f"adjusted p-value ({_ADJUST_TITLES[res.adjust]}); line: alpha = {res.alpha:g}")
    bar.ax.axhline(res.alpha, color="black", linewidth=1.2)

    labels = [res.names[m] for m in order]
    fontsize = max(5.0, min(10.0, 220.0 / max(k, 1)))
    if k <= 60:
        ticks = np.arange(k)
        ax.set_xticks(ticks, labels, rotation=60, ha="right", rotation_mode="anchor",
                      fontsize=fontsize)
        ax.set_yticks(ticks, labels, fontsize=fontsize)
    else:
        step = next(s for s in (5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000)
                    if s * 10 >= k) if k <= 50000 else k // 10
        ranks = [1, *range(step, k + 1, step)]
        ticks = np.asarray(ranks) - 1
        ax.set_xticks(ticks, [str(r) for r in ranks], fontsize=8)
        ax.set_yticks(ticks, [str(r) for r in ranks], fontsize=8)
        ax.set_xlabel("models by rank")
    if annotate:
        for r in range(k):
            for c in range(k):
                v = float(values[r, c])
                if r == c or not math.isfinite(v):
                    continue
                dark = v < math.sqrt(vmin)
                text = _fmt_cell(v, res.alpha) + ("*" if sig[r, c] else "")
                ax.text(c, r, text, ha="center", va="center", fontsize=fontsize * 0.85,
                        color="white" if dark else "black",
                        fontweight="bold" if sig[r, c] else "normal")
    elif k <= 40:
        rows, cols = np.nonzero(sig)
        ax.scatter(cols, rows, marker="*", s=max(4.0, 600.0 / k), color="white",
                   linewidths=0)
    marked = " (marked *)" if annotate or k <= 40 else ""
    ax.set_title(
        f"Pairwise {_METHOD_TITLES[res.method]} McNemar tests, {k} models, {res.n} items\n"
        f"blue: adjusted p < {res.alpha:g}{marked}; models in order of accuracy",
        fontsize=10,
    )
    return _save(fig, canvas_class, out, dpi)


def forest(
    result: PairwiseResult,
    path: str | os.PathLike[str],
    *,
    limit: int | None = 40,
    size: tuple[float, float] | None = None,
    dpi: float = 100,
) -> Path:
    """Draw each model's difference in accuracy from a reference model, with intervals.

    The reference is the baseline of a vs-baseline result, else the most accurate model.
    Each row is accuracy(model) - accuracy(reference) in percentage points with its
    confidence interval (``result.confidence_level``, per comparison); a filled marker means
    the adjusted p-value is below ``result.alpha``, and the adjusted p-value is printed on
    the right. A dashed line marks zero (no difference).

    Parameters
    ----------
    result : PairwiseResult
        From :func:`mcnemar.pairwise`.
    path : str or path-like
        The image file; the format follows the extension (.png, .svg or .pdf).
    limit : int or None
        Draw at most this many models (the best ones by accuracy); None draws all.
    size : (float, float), optional
        Width and height in inches. Default ``(7.5, max(2.5, 0.32 rows + 1.6))``.
    dpi : float
        Resolution; a PNG is ``width * dpi`` x ``height * dpi`` pixels (rounded down).

    Returns
    -------
    pathlib.Path
        ``path``, now holding the forest plot.

    Examples
    --------
    Three candidates against a baseline, each scored on the same 6 items (one row per model):

    >>> import tempfile, pathlib
    >>> from mcnemar.multiple import pairwise
    >>> from mcnemar.plotting import forest
    >>> outcomes = [[1, 1, 1, 1, 0, 1], [1, 0, 1, 1, 0, 0], [1, 1, 0, 0, 1, 1], [0, 1, 1, 0, 0, 1]]
    >>> res = pairwise(outcomes, names=["new", "tuned", "small", "old"], baseline=3)
    >>> forest(res, pathlib.Path(tempfile.mkdtemp()) / "forest.svg").suffix
    '.svg'
    """
    res = _check_result(result, "forest")
    out = _check_path(path)
    if limit is not None and (
        isinstance(limit, bool) or not isinstance(limit, int) or limit < 1
    ):
        raise McNemarError(f"limit must be a positive whole number or None; got {limit!r}")
    ref = res.baseline if res.baseline is not None else res.ranking[0]
    rows = [m for m in res.ranking if m != ref]
    total = len(rows)
    if limit is not None:
        rows = rows[:limit]
    fig, ax, canvas_class, dpi = _new_figure(size, (7.5, max(2.5, 0.32 * len(rows) + 1.6)), dpi)

    idx = np.asarray(rows)
    diff = 100 * np.array(res.difference)[idx, ref]
    low = 100 * np.array(res.ci_low)[idx, ref]
    high = 100 * np.array(res.ci_high)[idx, ref]
    sig = np.array(res.significant)[idx, ref] | np.array(res.significant)[ref, idx]
    adj = np.array(res.adjusted_pvalue)[idx, ref]
    y = np.arange(len(rows))[::-1]

    ax.axvline(0.0, color="0.3", linestyle="--", linewidth=1)
    ax.hlines(y, low, high, color="tab:blue", linewidth=1.6)
    ax.scatter(diff[sig], y[sig], marker="o", s=36, color="tab:blue", zorder=3,
               label=f"adjusted p < {res.alpha:g}")
    ax.scatter(diff[~sig], y[~sig], marker="o", s=36, facecolor="white",
               edgecolor="tab:blue", zorder=3, label="not significant")
    fontsize = 9 if len(rows) <= 40 else max(4.0, 360.0 / len(rows))
    ax.set_yticks(y, [res.names[m] for m in rows], fontsize=fontsize)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    for yy, p in zip(y.tolist(), adj.tolist(), strict=True):
        label = "" if not math.isfinite(p) else f"adj. p = {_fmt_cell(p, res.alpha)}"
        ax.annotate(label, xy=(1.0, yy), xycoords=("axes fraction", "data"),
                    xytext=(4, 0), textcoords="offset points", va="center",
                    fontsize=fontsize * 0.9, color="0.25")
    level = f"{100 * res.confidence_level:g}%"
    ref_name = res.names[ref]
    kind = "baseline" if res.baseline is not None else "most accurate model"
    ax.set_xlabel(f"accuracy(model) - accuracy({ref_name}), points, {level} CI")
    shown = "" if len(rows) == total else f" (best {len(rows)} of {total})"
    ax.set_title(
        f"Difference from the {kind} {ref_name!r}{shown}\n"
        f"{_METHOD_TITLES[res.method]} McNemar tests, p adjusted by "
        f"{_ADJUST_TITLES[res.adjust]}",
        fontsize=10,
    )
    ax.legend(loc="best", fontsize=8, frameon=False)
    ax.grid(axis="x", color="0.9")
    return _save(fig, canvas_class, out, dpi)


def eprocess(
    result: Any,
    path: str | os.PathLike[str],
    *,
    names: tuple[str, str] = ("A", "B"),
    size: tuple[float, float] | None = None,
    dpi: float = 100,
) -> Path:
    """Draw the e-value over items with the line ``1/alpha`` where the test rejects.

    The e-value (log scale) after each item of a
    :class:`~mcnemar.sequential.SequentialResult`; a dashed line marks ``1/alpha`` and, when
    the e-value reached it, a dotted vertical line marks the item where the run could have
    stopped.

    Parameters
    ----------
    result : SequentialResult
        From :func:`mcnemar.sequential.sequential`.
    path : str or path-like
        The image file; the format follows the extension (.png, .svg or .pdf).
    names : tuple of two str
        Names of A and B for the title.
    size : (float, float), optional
        Width and height in inches (default 7 x 3.8).
    dpi : float
        Resolution.

    Returns
    -------
    pathlib.Path
        ``path``, now holding the e-process plot.

    Examples
    --------
    >>> import numpy as np, os, tempfile
    >>> from mcnemar.sequential import sequential
    >>> rng = np.random.default_rng(3)
    >>> res = sequential(rng.random(400) < 0.8, rng.random(400) < 0.7)
    >>> eprocess(res, os.path.join(tempfile.mkdtemp(), "e.png")).name
    'e.png'
    """
    from mcnemar.sequential import SequentialResult

    if not isinstance(result, SequentialResult):
        raise McNemarError(
            f"eprocess needs the result of mcnemar.sequential.sequential(...); got "
            f"{type(result).__name__}"
        )
    out = _check_path(path)
    fig, ax, canvas_class, dpi = _new_figure(size, (7.0, 3.8), dpi)
    items = np.arange(1, result.n + 1)
    # Plot log10 E against a log10 axis label: E itself overflows a double for long runs.
    log10_e = result.log_evalue_path / math.log(10.0)
    ax.plot(items, log10_e, color="tab:blue", linewidth=1.4, label="e-value")
    bound = math.log10(1.0 / result.alpha)
    ax.axhline(bound, color="tab:red", linestyle="--", linewidth=1,
               label=f"1/alpha = {1.0 / result.alpha:g}")
    ax.axhline(0.0, color="0.6", linewidth=0.8)
    if result.stopped_at is not None:
        ax.axvline(result.stopped_at, color="0.2", linestyle=":", linewidth=1.2,
                   label=f"could stop after item {result.stopped_at}")
    top = max(bound, float(np.max(log10_e))) + 0.3
    low = min(-1.0, float(np.min(log10_e)) - 0.3)
    ax.set_ylim(max(low, -6.0), top)
    ticks = np.arange(math.ceil(ax.get_ylim()[0]), math.floor(top) + 1)
    ax.set_yticks(ticks, [f"$10^{{{int(t)}}}$" for t in ticks])
    ax.set_xlim(0, result.n)
    ax.set_xlabel("items scored")
    ax.set_ylabel("e-value (log scale)")
    ax.set_title(
        f"Anytime-valid test, {names[0]} vs {names[1]} ({result.alternative}, "
        f"alpha = {result.alpha:g})",
        fontsize=10,
    )
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    ax.grid(color="0.92")
    return _save(fig, canvas_class, out, dpi)


#: Height of one row of the per-task forest plot, in inches: an 8-point label is about 0.15
#: inch tall with its line spacing, so rows never overlap at this pitch.
_TASK_ROW_INCHES = 0.2


def forest_plot(
    comparison: Any,
    ax: Any = None,
    *,
    path: str | os.PathLike[str] | None = None,
    size: tuple[float, float] | None = None,
    dpi: float = 100,
    label_chars: int = 40,
) -> Any:
    """Draw the per-task forest plot of a :class:`~mcnemar.tasks.TaskComparison`.

    One row per task, worst first (the tasks where A is significantly worse at the top),
    with accuracy(A) - accuracy(B) in points and its interval; a filled marker means the
    adjusted p-value is below ``alpha`` (red where A is worse), the adjusted p-value is
    printed on the right, and the micro (items pooled) and macro (mean of the tasks) overall
    rows close the plot as diamonds, the headline one labelled. A dashed line marks zero.

    Parameters
    ----------
    comparison : TaskComparison
        From :func:`mcnemar.tasks.compare_tasks`.
    ax : matplotlib Axes, optional
        Draw on these axes; default a new figure sized to the number of rows (0.2 inch per
        row, so labels never overlap).
    path : str or path-like, optional
        Also save the figure to this file (.png, .svg or .pdf).
    size : (float, float), optional
        Width and height in inches of a new figure.
    dpi : float
        Resolution of a saved PNG.
    label_chars : int
        Task names longer than this are shortened with an ellipsis.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on (``ax.figure`` is the figure).

    Examples
    --------
    >>> from mcnemar.tasks import compare_task_tables
    >>> res = compare_task_tables({"arith": (13, 8, 6, 3), "mc": (21, 5, 3, 1)})
    >>> ax = forest_plot(res)
    >>> [t.get_text() for t in ax.get_yticklabels()][:2]
    ['arith', 'mc']
    """
    from mcnemar._format import clean_name, shorten

    # The result brings its own rows (mcnemar.tasks imports this module to draw itself, so
    # this module does not import it back).
    if not callable(getattr(comparison, "forest_rows", None)) or \
            not hasattr(comparison, "overall"):
        raise McNemarError(
            f"forest_plot needs the result of mcnemar.tasks.compare_tasks(...) (a "
            f"TaskComparison); got {type(comparison).__name__}"
        )
    out = None if path is None else _check_path(path)
    dpi = _check_dpi(dpi)
    rows = comparison.forest_rows()
    n_rows = len(rows)
    if ax is None:
        fig, ax, canvas_class, dpi = _new_figure(
            size, (8.0, _TASK_ROW_INCHES * (n_rows + 1) + 1.5), dpi
        )
        canvas_class(fig)
    else:
        _, canvas_class = _figure_class()
    fig = ax.figure
    # Tasks from the top; a gap of one row, then micro and macro at the bottom.
    y = -(np.arange(n_rows, dtype=float) + np.array([r["overall"] for r in rows], dtype=float))
    est = 100 * np.array([r["estimate"] for r in rows], dtype=float)
    low = 100 * np.array([r["low"] for r in rows], dtype=float)
    high = 100 * np.array([r["high"] for r in rows], dtype=float)
    sig = np.array([r["significant"] for r in rows], dtype=bool)
    worse = np.array([r["worse"] for r in rows], dtype=bool)
    overall = np.array([r["overall"] for r in rows], dtype=bool)
    color = np.where(worse, "tab:red", "tab:blue")
    ax.axvline(0.0, color="0.3", linestyle="--", linewidth=1)
    ax.hlines(y, low, high, colors=color.tolist(), linewidth=1.6)
    for mask, marker, size_pt in ((~overall, "o", 30), (overall, "D", 42)):
        filled = mask & sig
        hollow = mask & ~sig
        ax.scatter(est[filled], y[filled], marker=marker, s=size_pt,
                   color=color[filled].tolist(), zorder=3)
        ax.scatter(est[hollow], y[hollow], marker=marker, s=size_pt, facecolor="white",
                   edgecolor=color[hollow].tolist(), zorder=3)
    # The rows carry their labels (the SVG forest plot draws the same ones).
    labels = [shorten(clean_name(r["label"]), label_chars) + (" *" if r["headline"] else "")
              for r in rows]
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_ylim(min(y) - 0.8, max(y) + 0.8)
    for yy, r in zip(y.tolist(), rows, strict=True):
        if r["p_label"] is None:
            continue
        ax.annotate(r["p_label"], xy=(1.0, yy),
                    xycoords=("axes fraction", "data"), xytext=(4, 0),
                    textcoords="offset points", va="center", fontsize=7, color="0.25")
    level = f"{100 * comparison.confidence_level:g}%"
    a, b = (shorten(clean_name(n), 30) for n in comparison.names)
    ax.set_xlabel(f"accuracy({a}) - accuracy({b}), points, {level} CI")
    adjusted = _ADJUST_TITLES.get(comparison.adjust, comparison.adjust)
    ax.set_title(f"Per task, worst first: filled = significant ({adjusted} adjusted p < "
                 f"{comparison.alpha:g}); * = headline overall", fontsize=9)
    ax.grid(axis="x", color="0.9")
    if out is not None:
        _save(fig, canvas_class, out, dpi)
    return ax
