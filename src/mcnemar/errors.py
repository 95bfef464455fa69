"""Errors and warnings raised by :mod:`mcnemar`.

Every problem with user input is a :class:`McNemarError` (a ``ValueError``), whose message
names the argument, echoes the offending value and says what would be valid. Subclasses exist
only where a caller would want to catch them separately:

``TableError``
    counts or per-item vectors that do not form a valid paired 2x2 table;
``InputFileError``
    a result file that cannot be read, parsed or aligned (carries ``path`` and ``line``);
``AlignmentError``
    two runs whose item keys do not match (missing or duplicated items).

Degenerate but valid data (for example no discordant pairs) is not an error; it may emit a
:class:`McNemarWarning`. :func:`missing_dependency` is the one error for an optional module
that is not installed, naming the extra that installs it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = [
    "AlignmentError",
    "InputFileError",
    "McNemarError",
    "McNemarWarning",
    "TableError",
    "missing_dependency",
    "option",
]

# An argument named inside a message: the keyword and an example value, between unit separators
# (a character no file name or value of a user will hold).
_OPTION = re.compile("\x1f([A-Za-z_][A-Za-z0-9_]*)=([^\x1f]*)\x1f")


def option(argument: str, value: str = "") -> str:
    """Name an argument inside an error message, so that each caller can spell it its way.

    ``str(error)`` spells it as the keyword (``score=NAME``); the command line spells the same
    message with its own flags through :meth:`McNemarError.spelled` (``--score NAME``).

    Examples
    --------
    >>> err = McNemarError(f"several scorers; choose one with {option('score', 'NAME')}")
    >>> str(err), err.argument
    ('several scorers; choose one with score=NAME', 'score')
    >>> err.spelled(lambda key, value: f"--{key} {value}")
    'several scorers; choose one with --score NAME'
    """
    return f"\x1f{argument}={value}\x1f"


class McNemarError(ValueError):
    """Invalid input to an :mod:`mcnemar` function; the message says what and how to fix it.

    A message that tells the user which argument to set names it with :func:`option`; the
    names are in :attr:`arguments` (the first also as :attr:`argument`), ``str()`` spells them
    as keywords and :meth:`spelled` lets an interface spell them as its own options. An error
    about an argument its message does not name that way passes it as ``argument=``: it comes
    first in :attr:`arguments`.

    Examples
    --------
    >>> err = McNemarError("counts cannot be negative; got -1", argument="b")
    >>> str(err), err.argument
    ('counts cannot be negative; got -1', 'b')
    """

    def __init__(self, message: str = "", *args: object, argument: str | None = None) -> None:
        self.template = message
        named = tuple(m.group(1) for m in _OPTION.finditer(message))
        if argument is not None:
            named = (argument, *(a for a in named if a != argument))
        self.arguments: tuple[str, ...] = named
        super().__init__(self.spelled(), *args)

    @property
    def argument(self) -> str | None:
        """The (first) argument the message asks the user to set, or ``None``."""
        return self.arguments[0] if self.arguments else None

    def spelled(self, spell: Callable[[str, str], str] | None = None) -> str:
        """The message with each named argument spelled by ``spell(keyword, value)``.

        Without ``spell``, arguments read ``keyword=value`` (the library's spelling), or
        the bare keyword when the message gives no value.
        """
        def one(match: re.Match[str]) -> str:
            key, value = match.group(1), match.group(2)
            if spell is not None:
                return spell(key, value)
            return f"{key}={value}" if value else key

        return _OPTION.sub(one, self.template)


class TableError(McNemarError):
    """Counts or per-item outcomes that do not form a valid paired 2x2 table."""


class InputFileError(McNemarError):
    """A result file that cannot be read or parsed.

    Parameters
    ----------
    message : str
        What is wrong and how to fix it.
    path : str, optional
        The file concerned.
    line : int, optional
        1-based line (or record) number where the problem was found.
    argument : str, optional
        The argument the error is about, when the message does not name it with
        :func:`option`.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        argument: str | None = None,
    ):
        self.path = path
        self.line = line
        where = ""
        if path is not None:
            where = f"{path}"
            if line is not None:
                where += f", line {line}"
            where += ": "
        # The location stays outside the template, so a file name is never read as markup.
        self.where = where
        super().__init__(message, argument=argument)

    def spelled(self, spell: Callable[[str, str], str] | None = None) -> str:
        """The message (after the file and line) with its arguments spelled by ``spell``."""
        return getattr(self, "where", "") + McNemarError.spelled(self, spell)


class AlignmentError(InputFileError):
    """Two runs whose item keys cannot be paired one to one."""


class McNemarWarning(UserWarning):
    """Valid input that deserves attention (e.g. no discordant pairs, a tiny test set)."""


#: Which extra of the package installs a module imported on demand.
_EXTRAS = {"pyarrow": "frames", "duckdb": "frames", "narwhals": "frames", "pandas": "frames",
           "polars": "frames", "tqdm": "progress", "matplotlib": "plot", "fastapi": "web",
           "uvicorn": "web", "dask": "distributed", "pyspark": "distributed"}


def missing_dependency(exc: ImportError, *, what: str = "this") -> McNemarError:
    """The error for an optional module that is not installed, naming the extra to install.

    Examples
    --------
    >>> str(missing_dependency(ModuleNotFoundError("no", name="pyarrow"), what="Parquet"))
    "Parquet needs pyarrow, which is not installed: pip install 'mcnemar[frames]'"
    """
    module = (exc.name or "").split(".")[0]
    extra = _EXTRAS.get(module)
    if extra is not None:
        return McNemarError(f"{what} needs {module}, which is not installed: "
                            f"pip install 'mcnemar[{extra}]'")
    if module == "backports":
        return McNemarError(f"{what} needs backports-zstd (a dependency of mcnemar on Python "
                            "before 3.14), which is not installed: pip install backports-zstd")
    return McNemarError(f"{what} needs the module {module or exc}, which cannot be imported "
                        f"({exc}); reinstall mcnemar with its dependencies")
