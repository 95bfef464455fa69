"""Shared plumbing for the CLI commands: exit codes, error handling and output formats (the
options they share are in :mod:`mcnemar.cli._options`).

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

from mcnemar.errors import McNemarError

__all__ = [
    "ExitCode",
    "command",
    "command_flags",
    "emit",
    "handle_errors",
    "spell_argument",
    "spelled_for_command",
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
        except OSError as exc:
            # The system refused a read or a write (a failing disk, a full one, a closed
            # pipe): the input or the output is at fault, not the program.
            click.echo(f"mcnemar: error: {os_error(exc)}", err=True)
            sys.exit(ExitCode.BAD_INPUT)
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


def os_error(exc: OSError) -> str:
    """An error of the system in one line, naming the file (or the output) it is about.

    >>> import errno
    >>> os_error(OSError(errno.EIO, "Input/output error", "runs/a.jsonl"))
    'cannot read or write runs/a.jsonl: Input/output error'
    >>> os_error(OSError(errno.ENOSPC, "No space left on device"))
    'a read or a write failed: No space left on device'
    """
    reason = exc.strerror or str(exc) or type(exc).__name__
    if exc.filename is not None:
        return f"cannot read or write {exc.filename}: {reason}"
    return f"a read or a write failed: {reason}"


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
    try:
        click.echo(out.rstrip("\n") + "\n", nl=False)
    except OSError as exc:
        # A full disk, a closed pipe: say so once, and let nothing more reach the stream.
        sys.stdout = open(os.devnull, "w")  # kept open until the process exits
        raise McNemarError(f"cannot write the output: {exc.strerror or exc}") from None
