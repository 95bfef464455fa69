"""Doctests over src/mcnemar follow the rule of tests/conftest.py for optional packages.

In a core install the doctests of modules that need an optional package are skipped with the
extra to install (``src/mcnemar/web`` is not collected at all: it imports fastapi at the top);
in CI and in the full test environment a missing package fails them as usual.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

_HERE = Path(__file__).parent
_spec = importlib.util.spec_from_file_location("_test_extras", _HERE / "tests" / "conftest.py")
assert _spec is not None and _spec.loader is not None
_extras: Any = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_extras)

_WEB = _HERE / "src" / "mcnemar" / "web"
_SRC = _HERE / "src"


def pytest_ignore_collect(collection_path: Path) -> bool | None:
    if collection_path == _WEB and not _extras.REQUIRED:
        web = ("fastapi", "uvicorn", "python_multipart")
        if any(importlib.util.find_spec(name) is None for name in web):
            return True
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, None]:
    outcome: Any = yield
    if _SRC in item.path.parents:
        _extras._rewrite(outcome.get_result(), str(item.path))
