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
:class:`McNemarWarning`.
"""

from __future__ import annotations

__all__ = [
    "AlignmentError",
    "InputFileError",
    "McNemarError",
    "McNemarWarning",
    "TableError",
]


class McNemarError(ValueError):
    """Invalid input to an :mod:`mcnemar` function; the message says what and how to fix it."""


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
    """

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None):
        self.path = path
        self.line = line
        where = ""
        if path is not None:
            where = f"{path}"
            if line is not None:
                where += f", line {line}"
            where += ": "
        super().__init__(where + message)


class AlignmentError(InputFileError):
    """Two runs whose item keys cannot be paired one to one."""


class McNemarWarning(UserWarning):
    """Valid input that deserves attention (e.g. no discordant pairs, a tiny test set)."""
