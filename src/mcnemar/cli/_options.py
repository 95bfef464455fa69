"""The options that several CLI commands share, defined once: their flags, choices (from
:mod:`mcnemar.vocabulary`) and defaults; each command gives the help that says what the option
means there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from mcnemar import vocabulary
from mcnemar.errors import McNemarError

__all__ = [
    "BAYES_OPTIONS",
    "FORMAT_OPTION",
    "INPUT_FORMATS",
    "MARGIN_OPTIONS",
    "REDUCE_PER_ITEM",
    "InputFormatChoice",
    "alpha_option",
    "alternative_option",
    "confidence_level_option",
    "identity_options",
    "names_option",
    "split_pair",
]

F = TypeVar("F", bound=Callable[..., Any])


#: The ``--reduce`` choices of a command without a clustered path: each gives one outcome per
#: item (every choice of :data:`mcnemar.vocabulary.REDUCE` but ``cluster``).
REDUCE_PER_ITEM = tuple(name for name in vocabulary.names(vocabulary.REDUCE) if name != "cluster")


def format_option(formats: Any, help: str) -> Callable[[F], F]:
    """``--format``: one of ``formats`` (a vocabulary tuple), text by default."""
    return click.option("--format", "fmt",
                        type=click.Choice(vocabulary.names(formats), case_sensitive=False),
                        default="text", show_default=True, help=help)


FORMAT_OPTION = format_option(
    vocabulary.OUTPUT_FORMATS,
    "Output format: a readable report, markdown (e.g. for a pull-request comment) or JSON.")


def alternative_option(help: str) -> Callable[[F], F]:
    """``--alternative``: the direction of the test (the help says what it means here)."""
    return click.option(
        "--alternative", type=click.Choice(vocabulary.names(vocabulary.ALTERNATIVES)),
        default="two-sided", show_default=True, help=help,
    )


def alpha_option(help: str) -> Callable[[F], F]:
    """``--alpha``: the significance level, 0.05 by default."""
    return click.option("--alpha", type=float, default=0.05, show_default=True, help=help)


def confidence_level_option(help: str | None = None) -> Callable[[F], F]:
    """``--confidence-level`` of the intervals, 0.95 by default."""
    return click.option(
        "--confidence-level", type=float, default=0.95, show_default=True, help=help
    )


def names_option(help: str, metavar: str | None = None) -> Callable[[F], F]:
    """``--names``: comma-separated display names of the runs."""
    return click.option("--names", default=None, metavar=metavar, help=help)


def identity_options(scope: str, warned: str) -> Callable[[F], F]:
    """``--allow-different-tasks`` and ``--allow-different-scorers``: let runs through the
    identity checks of :func:`mcnemar.pipeline.pair_runs` that would refuse them.

    ``scope`` follows "refused by default" in each help text (which inputs the flags concern,
    "" for all) and ``warned`` ends it (where the command says what it let through).
    """

    def apply(func: F) -> F:
        func = click.option(
            "--allow-different-scorers", is_flag=True, default=False,
            help=f"Pair runs scored by different scorers, metrics or filters (refused by "
                 f"default{scope}); {warned}.",
        )(func)
        return click.option(
            "--allow-different-tasks", is_flag=True, default=False,
            help=f"Pair runs whose tasks or datasets differ, or whose paired items differ in "
                 f"content (refused by default{scope}); {warned}.",
        )(func)

    return apply


def MARGIN_OPTIONS(func: F) -> F:
    """``--margin``, ``--equivalence`` and ``--margin-method`` (tests against a margin)."""
    func = click.option(
        "--margin-method", type=click.Choice(vocabulary.names(vocabulary.MARGIN_METHODS)),
        default="score",
        show_default=True,
        help="With --margin: Tango's score test, or its exact unconditional version (N <= 5000).",
    )(func)
    func = click.option(
        "--equivalence", is_flag=True, default=False,
        help="With --margin: also test equivalence (|difference| < margin, two one-sided tests).",
    )(func)
    return click.option(
        "--margin", type=float, default=None, metavar="PROPORTION",
        help="Non-inferiority margin as a proportion (0.01 = 1 accuracy point): test that A is "
             "not worse than B by this much (one-sided at --alpha; the report shows the "
             "1 - 2 alpha Tango interval).",
    )(func)


def BAYES_OPTIONS(func: F) -> F:
    """``--bayes`` and ``--rope`` (the Bayesian summary of the report)."""
    func = click.option(
        "--rope", type=float, default=0.005, show_default=True,
        help="With --bayes: half-width of the region of practical equivalence, a "
             "proportion (0.005 = half a point).",
    )(func)
    return click.option(
        "--bayes", is_flag=True,
        help="Add the Bayesian summary: probabilities that A is better, practically "
             "equivalent or worse (Dirichlet posterior; needs all four cells).",
    )(func)


class InputFormatChoice(click.Choice[str]):
    """``--input-format``: ``auto`` or a format of the reader registry.

    The choices (``auto`` and :func:`mcnemar.io._registry.formats`) are read when the option
    is parsed or its help shown, so a format registered after start-up is accepted, and a
    command that reads no runs never imports the registry.
    """

    def __init__(self) -> None:
        super().__init__(())

    @property
    def choices(self) -> tuple[str, ...]:
        from mcnemar.io._registry import formats

        return ("auto", *formats())

    @choices.setter
    def choices(self, value: Any) -> None:
        pass  # click.Choice sets it when built; the registry is the one source


#: ``auto`` and every registered input format (see :class:`InputFormatChoice`).
INPUT_FORMATS: tuple[str, ...]


def __getattr__(name: str) -> tuple[str, ...]:
    # INPUT_FORMATS, the --input-format choices of the commands that read runs, computed when
    # asked (see InputFormatChoice).
    if name == "INPUT_FORMATS":
        return InputFormatChoice().choices
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def split_pair(text: str | None, option: str) -> tuple[str, str] | None:
    """``"A,B"`` -> ``("A", "B")`` for options that take one value per run (``--names``)."""
    if text is None:
        return None
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2 or not all(parts):
        raise McNemarError(f"{option} takes two comma-separated values A,B; got {text!r}")
    return parts[0], parts[1]
