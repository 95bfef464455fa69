"""The options of a command grouped into typed objects: :func:`packs` gathers the keyword
arguments click passes into one frozen dataclass per group, so that a command's body reads as
the pipeline it calls (read, pair, analyse, output) instead of a list of forty parameters.

The click options themselves stay where they are declared (their order is the order of
``--help``); each dataclass names the parameters of its group.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["packs"]


def packs(**groups: type) -> Callable[[F], F]:
    """Gather the keyword arguments named by each dataclass's fields into an instance of it,
    passed to the command under the group's name.

    Examples
    --------
    >>> @dataclasses.dataclass(frozen=True)
    ... class Out:
    ...     fmt: str
    ...     flips: int | None
    >>> @packs(output=Out)
    ... def run(path: str, output: Out) -> str:
    ...     return f"{path} {output.fmt} {output.flips}"
    >>> run(path="x.csv", fmt="json", flips=3)
    'x.csv json 3'
    """
    fields = {name: tuple(f.name for f in dataclasses.fields(cls))
              for name, cls in groups.items()}

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for name, cls in groups.items():
                kwargs[name] = cls(**{key: kwargs.pop(key) for key in fields[name]})
            return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate
