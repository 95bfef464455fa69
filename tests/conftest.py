"""Optional packages in the test suite: skipped with a reason in a core install, required elsewhere.

A core install (``pip install mcnemar`` plus pytest, hypothesis and mpmath) runs the core tests;
a test (or a whole module) that needs an optional package is skipped with a reason that names
the extra to install, e.g. ``needs fastapi: pip install 'mcnemar[web]'``.

The full test environment (``pip install -e '.[dev]'``, recognised by any of the packages that
only the ``test`` extra brings) and CI (``CI`` set) skip nothing for a missing package: there the
same test fails, naming the package, as a missing browser does in ``test_web_browser.py``.

Handled: ``pytest.importorskip``, a plain ``import`` at the top of a test module, and a test that
fails with the library's own error for a missing package (which names the extra to install).
"""

from __future__ import annotations

import importlib.util
import os
import re
from collections.abc import Generator
from typing import Any

import pytest

# Top-level module -> the extra of pyproject.toml that installs it.
EXTRA_OF = {
    "fastapi": "web",
    "uvicorn": "web",
    "python_multipart": "web",
    "starlette": "web",
    "pydantic": "web",
    "narwhals": "frames",
    "pandas": "frames",
    "polars": "frames",
    "pyarrow": "frames",
    "duckdb": "frames",
    "dask": "distributed",
    "distributed": "distributed",
    "pyspark": "distributed",
    "matplotlib": "plot",
    "tqdm": "progress",
    "sklearn": "examples",
    "httpx": "test",
    "playwright": "test",
    "schemathesis": "test",
    "statsmodels": "test",
    "jsonschema_rs": "test",
    "markdown_it": "test",
    "markdown": "test",
    "mkdocs_click": "test",
    "yaml": "docs",
}

# Packages that only the `test` extra installs: any of them present means the full environment.
_TEST_ONLY = ("playwright", "schemathesis", "statsmodels", "jsonschema_rs", "markdown_it")

_MISSING = re.compile(
    r"(?:could not import|ModuleNotFoundError: No module named) '([A-Za-z0-9_.]+)'"
)
# The library's own error for a missing optional package names the extra to install.
_LIBRARY_HINT = re.compile(r"pip install '?mcnemar\[([a-z]+)\]")


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() not in ("", "0", "false", "no")


def extras_required() -> bool:
    """True in CI and in the full test environment, where a missing package is a failure."""
    if _truthy(os.environ.get("CI")):
        return True
    return any(importlib.util.find_spec(name) is not None for name in _TEST_ONLY)


REQUIRED = extras_required()


def _missing_extra(text: str) -> tuple[str, str] | None:
    """(package, extra) when ``text`` reports an optional package that cannot be imported."""
    match = _MISSING.search(text)
    if match is None:
        hint = _LIBRARY_HINT.search(text)
        return None if hint is None else (f"the [{hint.group(1)}] extra", hint.group(1))
    top = match.group(1).split(".")[0]
    extra = EXTRA_OF.get(top)
    return None if extra is None else (top, extra)


def _reason(package: str, extra: str) -> str:
    return f"needs {package}: pip install 'mcnemar[{extra}]'"


def _failure(package: str, extra: str) -> str:
    return (
        f"{package} is missing but this environment must have every optional package "
        f"(CI, or the full test environment): pip install -e '.[dev]' (extra [{extra}])"
    )


def _rewrite(report: Any, where: str) -> None:
    """Turn a skip or an import error about an optional package into the right outcome."""
    if not (report.skipped or report.failed) or report.longrepr is None:
        return
    text = str(report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr)
    found = _missing_extra(text)
    if found is None:
        return
    if REQUIRED:
        if report.skipped:
            report.outcome = "failed"
            report.longrepr = _failure(*found)
        return
    report.outcome = "skipped"
    report.longrepr = (where, 0, _reason(*found))


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, None]:
    outcome: Any = yield
    report = outcome.get_result()
    if isinstance(collector, pytest.Module):
        _rewrite(report, str(collector.path))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, None]:
    outcome: Any = yield
    _rewrite(outcome.get_result(), str(item.path))


# One local Spark session per test process, shared by the modules that run PySpark (it takes
# seconds to start).
@pytest.fixture(scope="session")
def spark() -> Generator[Any, None, None]:
    pytest.importorskip("pyspark")
    import warnings

    from pyspark.sql import SparkSession

    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    session = (
        SparkSession.builder.master("local[2]")
        .appName("mcnemar-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
