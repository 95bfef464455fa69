"""``mcnemar pairwise``: compare many runs on the same items.

The runs come either as result files (one per run, read and aligned on their item keys by
:mod:`mcnemar.io`, with the same identity checks as ``compare``) or as one wide table
(``--matrix``: one 0/1 column per model, one row per item, read by
:func:`mcnemar.io.read_matrix`). Everything statistical is
:func:`mcnemar.multiple.pairwise`; the plots are :mod:`mcnemar.plotting`.
"""

from __future__ import annotations

import warnings

import click

from mcnemar import vocabulary
from mcnemar.cli._common import command, emit, handle_errors
from mcnemar.cli._options import (
    FORMAT_OPTION,
    REDUCE_PER_ITEM,
    alpha_option,
    alternative_option,
    confidence_level_option,
    identity_options,
    names_option,
)
from mcnemar.errors import McNemarError, McNemarWarning

__all__ = ["pairwise"]

#: The many-model tests: the four of the report (the unconditional test is for one table).
_TESTS = tuple(name for name in vocabulary.names(vocabulary.TESTS) if name != "unconditional")


def _echo_warnings(caught: list[warnings.WarningMessage]) -> None:
    """Differences let through by --allow-different-* as warning lines on stderr."""
    for warning in caught:
        if issubclass(warning.category, McNemarWarning):
            click.echo(f"mcnemar: warning: {warning.message}", err=True)
        else:
            warnings.warn(warning.message, warning.category, stacklevel=1)


def _baseline(value: str | None, names: list[str]) -> int | str | None:
    if value is None or value in names:
        return value
    try:
        return int(value)
    except ValueError:
        raise McNemarError(
            f"--baseline {value!r} is neither a run name nor an index; the runs are "
            f"{names!r} (indices 0..{len(names) - 1})"
        ) from None


@command("pairwise", "Exit status: 0 on success, 2 for bad input (one line on stderr).")
@click.argument("runs", nargs=-1, type=click.Path(dir_okay=True, path_type=str))
@click.option("--matrix", "matrix_file", type=click.Path(dir_okay=False, path_type=str),
              help="A wide table instead of run files (CSV, JSON Lines or Parquet): one 0/1 "
                   "column per model (named in the header), one row per item.")
@click.option("--id-column", default=None, metavar="NAME",
              help="With --matrix: the column of item ids (not a model; ids may not repeat).")
@names_option("Comma-separated model names, in input order (default: file names, or the "
              "CSV header).", metavar="A,B,...")
@click.option("--baseline", default=None, metavar="NAME_OR_INDEX",
              help="Compare every run with this one (a name, or an index counting from 0 in "
                   "input order) instead of all pairs.")
@click.option("--adjust", type=click.Choice(vocabulary.names(vocabulary.ADJUSTMENTS)),
              default="holm", show_default=True,
              help="Multiplicity adjustment (bh = Benjamini-Hochberg).")
@click.option("--method", type=click.Choice(_TESTS),
              default="exact",
              show_default=True, help="McNemar test for each pair.")
@alternative_option("One-sided alternatives need --baseline (greater: the run beats the "
                    "baseline).")
@alpha_option("Significance level after adjustment.")
@confidence_level_option("Level of each pair's interval for the difference.")
@click.option("--score", default=None, metavar="NAME",
              help="Run files: the column, metric or scorer holding each item's outcome.")
@click.option("--on-missing", type=click.Choice(vocabulary.names(vocabulary.ON_MISSING)),
              default="error",
              show_default=True,
              help="Run files: refuse items missing from some run, or keep only the items "
                   "every run has.")
@click.option("--threshold", type=float, default=None,
              help="Run files: a score >= THRESHOLD counts as right (for non-0/1 scores).")
@click.option("--reduce", type=click.Choice(REDUCE_PER_ITEM), default=None,
              help="Run files: how to combine several samples (epochs) of one item.")
@identity_options(", for run files", "a warning on stderr says so")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False, path_type=str),
              default=None, help="Also draw a plot to this .png/.svg/.pdf file.")
@click.option("--plot-kind", type=click.Choice(vocabulary.names(vocabulary.PLOT_KINDS)),
              default="auto",
              show_default=True,
              help="auto: heatmap of adjusted p-values for all pairs, forest plot with "
                   "--baseline.")
@FORMAT_OPTION
@handle_errors
def pairwise(
    runs: tuple[str, ...],
    matrix_file: str | None,
    id_column: str | None,
    names: str | None,
    baseline: str | None,
    adjust: str,
    method: str,
    alternative: str,
    alpha: float,
    confidence_level: float,
    score: str | None,
    on_missing: str,
    threshold: float | None,
    reduce: str | None,
    allow_different_tasks: bool,
    allow_different_scorers: bool,
    plot_path: str | None,
    plot_kind: str,
    fmt: str,
) -> None:
    """Compare many runs on the same items: all pairs, adjusted p-values, letter groups.

    RUNS are result files, one per run, in any format that 'mcnemar compare' reads; they are
    paired on their item ids with the same checks (same task, same scorer). Or give one wide
    table with --matrix FILE instead: a 0/1 column per model, a row per item.

    \b
    Examples:
      mcnemar pairwise base.jsonl big.jsonl small.jsonl
      mcnemar pairwise --matrix scores.csv --format markdown --plot heatmap.png
      mcnemar pairwise --matrix scores.csv --baseline base --plot forest.png
    """
    from mcnemar.multiple import pairwise as compute

    if matrix_file is not None and runs:
        raise McNemarError("give either run files or --matrix FILE, not both")
    if matrix_file is None and len(runs) < 2:
        raise McNemarError(
            f"need at least 2 run files to compare (got {len(runs)}), or --matrix FILE"
        )
    if id_column is not None and matrix_file is None:
        raise McNemarError("--id-column only applies to --matrix FILE")
    if matrix_file is not None:
        used = [opt for opt, value in (("--score", score), ("--threshold", threshold),
                                       ("--reduce", reduce)) if value is not None]
        if on_missing != "error":
            used.append("--on-missing")
        used += [flag for flag, on in (("--allow-different-tasks", allow_different_tasks),
                                       ("--allow-different-scorers", allow_different_scorers))
                 if on]
        if used:
            raise McNemarError(
                f"{', '.join(used)} only apply to run files, not to --matrix FILE"
            )
    if plot_path is not None:
        from mcnemar import plotting

        plotting._check_path(plot_path)  # refuse a bad file name before any work
    if matrix_file is not None:
        from mcnemar.io import read_matrix

        matrix = read_matrix(matrix_file, id_column=id_column)
        model_names, correct = list(matrix.names), matrix.correct
    else:
        from mcnemar.pipeline import pair_many

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", McNemarWarning)
            model_names, correct = pair_many(
                runs, score=score, on_missing=on_missing, threshold=threshold, reduce=reduce,
                allow_different_tasks=allow_different_tasks,
                allow_different_scorers=allow_different_scorers)
        _echo_warnings(caught)
    if names is not None:
        given = [n.strip() for n in names.split(",")]
        if len(given) != len(model_names):
            raise McNemarError(
                f"--names has {len(given)} name(s) but there are {len(model_names)} runs: "
                f"{names!r}"
            )
        model_names = given
    result = compute(
        correct,
        names=model_names,
        adjust=adjust,  # type: ignore[arg-type]
        method=method,  # type: ignore[arg-type]
        baseline=_baseline(baseline, model_names),
        alpha=alpha,
        confidence_level=confidence_level,
        alternative=alternative,  # type: ignore[arg-type]
    )
    emit(result, fmt)
    if plot_path is not None:
        from mcnemar import plotting

        kind = plot_kind
        if kind == "auto":
            kind = "heatmap" if result.baseline is None else "forest"
        draw = plotting.pairwise_heatmap if kind == "heatmap" else plotting.forest
        written = draw(result, plot_path)
        click.echo(f"mcnemar: wrote the {kind} plot to {written}", err=True)
