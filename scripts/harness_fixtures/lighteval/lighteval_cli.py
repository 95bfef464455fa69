"""The real ``lighteval`` command line, with the built-in task modules that cannot be imported
here skipped.

``lighteval custom ...`` imports every built-in task module to build its task registry, and a
few of them fail to import offline or with the installed ``huggingface_hub`` (e.g. modules
that list models on the Hub at import). A module that raises is skipped with a note on
stderr; the fixture tasks come from ``--custom-tasks`` and need none of them. Everything else
is lighteval's own command line (``lighteval.__main__.app``).

Usage: ``python lighteval_cli.py custom MODEL_NAME fixture_model.py "arith_mc|0" ...``
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lighteval.tasks.registry import Registry


def _one_by_one(load: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    def load_each(paths: list[Path], *args: Any) -> dict[str, Any]:
        configs: dict[str, Any] = {}
        for path in paths:
            try:
                configs.update(load([path], *args))
            except Exception as exc:  # any import failure of a built-in module
                print(f"lighteval_cli: skipped built-in tasks {path.name} "
                      f"({type(exc).__name__}: {str(exc)[:120]})", file=sys.stderr)
        return configs
    return load_each


Registry._load_from_files = staticmethod(_one_by_one(Registry._load_from_files))
Registry._load_from_subdirs = staticmethod(_one_by_one(Registry._load_from_subdirs))

if __name__ == "__main__":
    from lighteval.__main__ import app

    app(prog_name="lighteval")
