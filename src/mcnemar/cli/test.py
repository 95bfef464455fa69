"""``mcnemar test``: the full report for counts typed on the command line."""

from __future__ import annotations

import sys
from typing import Any

import click

from mcnemar.cli._common import ExitCode, emit, handle_errors, spelled_for_command
from mcnemar.cli._options import (
    BAYES_OPTIONS,
    FORMAT_OPTION,
    MARGIN_OPTIONS,
    alpha_option,
    alternative_option,
    confidence_level_option,
)
from mcnemar.errors import McNemarError
from mcnemar.validation import check_open_unit

__all__ = ["test"]


def _count_option(name: str, *aliases: str, help: str) -> Any:
    return click.option(name, *aliases, type=str, default=None, metavar="N", help=help)


def _parse_count(option: str, text: str | None) -> int | float | None:
    """Parse a count typed by the user; validation of the value happens in PairedTable."""
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise McNemarError(
            f"{option} must be a whole number of items (>= 0), got {text!r}"
        ) from None


def _pick(values: dict[str, str | None], cell: str) -> tuple[str, str] | None:
    given = [(opt, v) for opt, v in values.items() if v is not None]
    if len(given) > 1:
        opts = " and ".join(opt for opt, _ in given)
        raise McNemarError(f"cell {cell} was given twice ({opts}); they name the same cell")
    return given[0] if given else None


@click.command(
    "test",
    epilog=(
        "Cells: a = both right, b = A right & B wrong, c = A wrong & B right, d = both wrong. "
        "Error framing: --only-a-wrong is c and --only-b-wrong is b. Exit codes: 0 done; 2 bad "
        "input; 5 with --fail-on inferior when non-inferiority by --margin is not shown (A may "
        "be worse than B by the margin or more); 1 internal error."
    ),
)
@_count_option("--a", "a", help="Both right (same as --both-right).")
@_count_option("--b", "b", help="A right and B wrong (same as --only-a-right, --only-b-wrong).")
@_count_option("--c", "c", help="A wrong and B right (same as --only-b-right, --only-a-wrong).")
@_count_option("--d", "d", help="Both wrong (same as --both-wrong).")
@_count_option("--both-right", "both_right", help="Items both systems got right (cell a).")
@_count_option("--only-a-right", "only_a_right", help="Items only A got right (cell b).")
@_count_option("--only-b-right", "only_b_right", help="Items only B got right (cell c).")
@_count_option("--both-wrong", "both_wrong", help="Items both systems got wrong (cell d).")
@_count_option(
    "--only-a-wrong", "only_a_wrong", help="Errors made by A alone ('A-only errors', cell c)."
)
@_count_option(
    "--only-b-wrong", "only_b_wrong", help="Errors made by B alone ('B-only errors', cell b)."
)
@click.option("--name-a", default="A", show_default=True, help="Name of system A (e.g. candidate).")
@click.option("--name-b", default="B", show_default=True, help="Name of system B (e.g. baseline).")
@alternative_option("'greater': A is more accurate than B; 'less': A is less accurate.")
@confidence_level_option("Confidence level of the intervals.")
@alpha_option("Significance level of the conclusion.")
@MARGIN_OPTIONS
@click.option(
    "--fail-on", type=click.Choice(["inferior"]), default=None,
    help="inferior: exit 5 after printing the report if non-inferiority by --margin is not shown.",
)
@BAYES_OPTIONS
@FORMAT_OPTION
@handle_errors
def test(
    a: str | None,
    b: str | None,
    c: str | None,
    d: str | None,
    both_right: str | None,
    only_a_right: str | None,
    only_b_right: str | None,
    both_wrong: str | None,
    only_a_wrong: str | None,
    only_b_wrong: str | None,
    name_a: str,
    name_b: str,
    alternative: str,
    confidence_level: float,
    alpha: float,
    margin: float | None,
    equivalence: bool,
    margin_method: str,
    fail_on: str | None,
    bayes: bool,
    rope: float,
    fmt: str,
) -> None:
    """Run every McNemar test on a paired table and print the full report.

    \b
    Examples:
      mcnemar test --a 157 --b 17 --c 3 --d 23
      mcnemar test --b 17 --c 3 --format json
      mcnemar test --only-a-wrong 12 --only-b-wrong 3 --name-a A --name-b B
      mcnemar test --a 1800 --b 52 --c 47 --d 101 --margin 0.01 --fail-on inferior
    """
    from mcnemar.report import analyze
    from mcnemar.table import PairedTable

    cells = {
        "a": _pick({"--a": a, "--both-right": both_right}, "a"),
        "b": _pick({"--b": b, "--only-a-right": only_a_right, "--only-b-wrong": only_b_wrong}, "b"),
        "c": _pick({"--c": c, "--only-b-right": only_b_right, "--only-a-wrong": only_a_wrong}, "c"),
        "d": _pick({"--d": d, "--both-wrong": both_wrong}, "d"),
    }
    for cell, hint in (("b", "--b (or --only-b-wrong)"), ("c", "--c (or --only-a-wrong)")):
        if cells[cell] is None:
            raise McNemarError(
                f"the discordant count {cell} is required: give {hint}; see 'mcnemar test --help'"
            )
    values = {k: None if v is None else _parse_count(v[0], v[1]) for k, v in cells.items()}
    try:
        table = PairedTable(**values)
    except McNemarError as exc:
        # Name the option the user typed (--only-b-wrong) rather than the cell's (--b).
        typed = {cell: entry[0] for cell, entry in cells.items() if entry is not None}
        raise McNemarError(
            spelled_for_command(exc, typed), argument=exc.argument
        ) from None
    # Checked here, before the report, so that a level typed as a percentage is named first.
    check_open_unit(alpha, "alpha")
    check_open_unit(confidence_level, "confidence_level")
    if fail_on == "inferior" and margin is None:
        raise McNemarError("--fail-on inferior needs --margin (e.g. --margin 0.01 for 1 point)")
    report = analyze(
        table,
        names=(name_a, name_b),
        alternative=alternative,
        confidence_level=confidence_level,
        alpha=alpha,
        margin=margin,
        equivalence=equivalence,
        margin_method=margin_method,
        bayes=rope if bayes else None,
    )
    emit(report, fmt)
    ni = report.noninferiority
    if fail_on == "inferior" and ni is not None and not ni.noninferior:
        click.echo(
            f"mcnemar: non-inferiority of {name_a} to {name_b} by {ni.margin:g} (a proportion) "
            f"is not shown at alpha={alpha:g} (--fail-on inferior)",
            err=True,
        )
        sys.exit(ExitCode.INFERIOR)
