"""An optional progress bar (tqdm) on stderr for inputs that take more than a second.

The bar is drawn only when ``tqdm`` is installed (``pip install mcnemar[progress]``) and
stderr is a terminal, unless forced with ``enabled=True``; it never writes to stdout, so JSON
output stays clean. It appears only after one second, so small files show nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

__all__ = ["activity", "progress_bar"]

#: Seconds before a bar appears.
DELAY = 1.0


class _Bar(Protocol):
    def update(self, n: float = 1) -> Any: ...


class _NoBar:
    def update(self, n: float = 1) -> None:
        return None


def _wanted(enabled: bool | None) -> bool:
    if enabled is None:
        return sys.stderr.isatty()
    return enabled


def _open_bar(description: str, enabled: bool | None, **options: Any) -> Any:
    """A tqdm bar as every bar here is drawn, or None when none is wanted or tqdm is missing.

    On stderr only (stdout may carry JSON), shown after :data:`DELAY` seconds so that quick
    steps draw nothing, and removed when done (``leave=False``).
    """
    if not _wanted(enabled):
        return None
    try:
        from tqdm import tqdm
    except ImportError as exc:
        if enabled:  # asked for in so many words: say what is missing, as for any extra
            from mcnemar.errors import missing_dependency

            raise missing_dependency(exc, what="a progress bar (--progress)") from None
        return None
    return tqdm(desc=description, file=sys.stderr, delay=DELAY, leave=False, **options)


@contextmanager
def progress_bar(
    description: str, total: float | None, *, unit: str = "B", enabled: bool | None = None
) -> Iterator[_Bar]:
    """Yield an object with ``update(n)``; a tqdm bar on stderr when wanted and available.

    Parameters
    ----------
    description : str
        Shown left of the bar (usually the file name).
    total : float or None
        Expected total (bytes by default); ``None`` for an activity without a known size.
    enabled : bool or None
        ``None`` (default): only when stderr is a terminal. ``True`` forces the bar (when tqdm
        is installed), ``False`` disables it.
    """
    bar = _open_bar(description, enabled, total=total, unit=unit, unit_scale=True)
    if bar is None:
        yield _NoBar()
        return
    try:
        yield bar
    finally:
        bar.close()


@contextmanager
def activity(description: str, *, enabled: bool | None = None) -> Iterator[None]:
    """Show elapsed time on stderr while a blocking step (an engine query) runs > 1 s."""
    bar = _open_bar(description, enabled, total=None, bar_format="{desc}: {elapsed}")
    if bar is None:
        yield
        return
    import threading

    done = threading.Event()

    def tick() -> None:
        while not done.wait(0.25):
            bar.update(0)
            bar.refresh()

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        bar.close()
