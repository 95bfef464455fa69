"""Shared plumbing for the CLI commands: exit codes, error handling and output formats.

Nothing statistical happens here: commands translate options into library calls and render
the result objects' ``to_dict()``, ``to_markdown()`` or ``str()``.
"""

from __future__ import annotations

import enum
import functools
import json
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, overload

import click

from mcnemar import vocabulary
from mcnemar.errors import McNemarError

__all__ = [
    "FORMAT_OPTION",
    "INPUT_FORMATS",
    "MARGIN_OPTIONS",
    "REDUCE_PER_ITEM",
    "ExitCode",
    "InputFormatChoice",
    "alpha_option",
    "alternative_option",
    "command",
    "command_flags",
    "confidence_level_option",
    "emit",
    "handle_errors",
    "names_option",
    "spell_argument",
    "spelled_for_command",
    "split_pair",
]

F = TypeVar("F", bound=Callable[..., Any])


class ExitCode(enum.IntEnum):
    """Process exit codes of every ``mcnemar`` command (a contract for CI pipelines)."""

    OK = 0
    #: An unexpected internal error (a bug: please report it).
    ERROR = 1
    #: Bad input: invalid counts, options or files. One line on stderr says what and how to fix it.
    BAD_INPUT = 2
    #: ``--fail-on worse``: the candidate (A) is significantly worse than the baseline (B).
    WORSE = 3
    #: ``--fail-on different``: the two systems differ significantly (either direction).
    DIFFERENT = 4
    #: ``--fail-on inferior`` (with ``--margin``): non-inferiority of the candidate (A) is not
    #: shown, i.e. it may be worse than the baseline (B) by the margin or more.
    INFERIOR = 5


def command(name: str, epilog: str) -> Callable[[Callable[..., Any]], click.Command]:
    """A ``mcnemar`` command: ``-h`` as well as ``--help`` (also when it is run on its own, not
    through the group), and ``epilog`` (its examples and exit codes) after the options."""
    return click.command(name, context_settings={"help_option_names": ["-h", "--help"]},
                         epilog=epilog)


#: The ``--reduce`` choices of a command without a clustered path: each gives one outcome per
#: item (every choice of :data:`mcnemar.vocabulary.REDUCE` but ``cluster``).
REDUCE_PER_ITEM = tuple(name for name in vocabulary.names(vocabulary.REDUCE) if name != "cluster")


FORMAT_OPTION = click.option(
    "--format",
    "fmt",
    type=click.Choice(vocabulary.names(vocabulary.OUTPUT_FORMATS), case_sensitive=False),
    default="text",
    show_default=True,
    help="Output format: a readable report, markdown (e.g. for a pull-request comment) or JSON.",
)


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


@overload
def handle_errors(func: F) -> F: ...


@overload
def handle_errors(*, flags: Mapping[str, str]) -> Callable[[F], F]: ...


def handle_errors(
    func: F | None = None, *, flags: Mapping[str, str] | None = None
) -> F | Callable[[F], F]:
    """Turn :class:`McNemarError` into one line on stderr and exit code 2 (no traceback).

    The arguments the error names (:attr:`McNemarError.arguments`) are spelled as the running
    command's flags (see :func:`command_flags`); ``flags`` maps the arguments whose flag is
    not their name, e.g. ``@handle_errors(flags={"format": "--input-format"})``. Set
    ``MCNEMAR_DEBUG=1`` to see the traceback of unexpected errors.
    """
    if func is None:
        return functools.partial(_handle_errors, flags=dict(flags or {}))
    return _handle_errors(func, flags={})


def _handle_errors(func: F, flags: dict[str, str]) -> F:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except McNemarError as exc:
            click.echo(f"mcnemar: error: {spelled_for_command(exc, flags)}", err=True)
            sys.exit(ExitCode.BAD_INPUT)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except Exception as exc:  # a bug; keep the user's terminal free of a traceback
            if os.environ.get("MCNEMAR_DEBUG"):
                raise
            click.echo(
                f"mcnemar: internal error: {type(exc).__name__}: {exc} "
                "(set MCNEMAR_DEBUG=1 for the traceback)",
                err=True,
            )
            sys.exit(ExitCode.ERROR)

    return wrapper  # type: ignore[return-value]


def command_flags(
    command: click.Command, overrides: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Library argument -> the flag that sets it in ``command``.

    An argument is set by the option of the same parameter name (``on_missing`` ->
    ``--on-missing``), or else by the option spelled ``"--" + argument.replace("_", "-")``
    (``power`` -> ``--power`` whatever the parameter is called); ``overrides`` comes last, for
    an option named otherwise (``{"format": "--input-format"}``). An override may carry its
    own placeholder (``"--max-inflated-mb MB"``).
    """
    flags: dict[str, str] = {}
    spelled: dict[str, str] = {}
    for param in command.params:
        if not isinstance(param, click.Option):
            continue
        longs = [o for o in param.opts if o.startswith("--")]
        if longs and param.name:
            flags[param.name] = longs[0]
            for flag in longs:
                spelled[flag[2:].replace("-", "_")] = flag
    for argument, flag in spelled.items():
        flags.setdefault(argument, flag)
    flags.update(overrides or {})
    return flags


def spell_argument(keyword: str, value: str, flags: Mapping[str, str]) -> str:
    """One argument named in a message (``keyword``, example ``value``) as a flag of ``flags``;
    a keyword without a flag stays a keyword (``score=NAME``)."""
    flag = flags.get(keyword)
    if flag is None:
        return f"{keyword}={value}" if value else keyword
    if " " in flag or value in ("", "True"):
        return flag
    return f"{flag} {value.replace(chr(39), '')}"


def spelled_for_command(exc: McNemarError, overrides: Mapping[str, str] | None = None) -> str:
    """The message with the library keywords it names spelled as the running command's flags
    (:func:`command_flags`); outside a command, ``str(exc)``."""
    ctx = click.get_current_context(silent=True)
    if not exc.arguments or ctx is None:
        return str(exc)
    flags = command_flags(ctx.command, overrides)
    return exc.spelled(lambda keyword, value: spell_argument(keyword, value, flags))


def emit(
    result: Any,
    fmt: str,
    *,
    document: Callable[[], Any] | None = None,
    text: Callable[[], str] | None = None,
    markdown: Callable[[], str] | None = None,
) -> None:
    """Print ``result`` on stdout in the output format ``fmt`` (text, markdown or json).

    By default the JSON document is ``result.to_dict()``, the markdown ``result.to_markdown()``
    and the text ``str(result)``; a command whose output is not one result object passes
    functions building its own. Every format ends with exactly one newline, so that output
    piped into a file or a pull-request comment does not depend on the command. JSON refuses
    NaN and infinity (the library emits null).
    """
    fmt = fmt.lower()
    if fmt == "json":
        out = json.dumps(result.to_dict() if document is None else document(), indent=2,
                         allow_nan=False)
    elif fmt == "markdown":
        out = result.to_markdown() if markdown is None else markdown()
    else:
        out = str(result) if text is None else text()
    click.echo(out.rstrip("\n") + "\n", nl=False)


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
