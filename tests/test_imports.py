"""What starting the package loads: ``import mcnemar`` and ``mcnemar --help`` need no numpy,
no command's ``--help`` loads scipy or a frame library, the report of a small table typed as
counts (``mcnemar test --b 17 --c 3``) loads neither, and every public name still imports.

Checked in fresh interpreters (``sys.modules`` after the import, or the ``-X importtime``
listing of a whole command), never by timing.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

import mcnemar

HEAVY = ("scipy", "pandas", "polars", "pyarrow", "duckdb", "narwhals", "matplotlib", "fastapi")


def _loaded(code: str) -> set[str]:
    listing = "\nimport sys\nprint(' '.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code + listing],
                         capture_output=True, text=True, check=True).stdout
    return {name.split(".")[0] for name in out.split()}


def test_import_mcnemar_loads_no_numpy() -> None:
    loaded = _loaded("import mcnemar")
    assert "numpy" not in loaded
    assert not loaded & set(HEAVY)


@pytest.mark.parametrize("command", ["", "test", "compare", "power", "pairwise", "monitor",
                                     "serve"])
def test_help_loads_no_heavy_library(command: str) -> None:
    argv = ["--help"] if not command else [command, "--help"]
    code = ("import sys\nfrom mcnemar.cli import main\n"
            f"try:\n    main({argv!r}, prog_name='mcnemar')\nexcept SystemExit:\n    pass\n")
    loaded = _loaded(code)
    assert "click" in loaded  # the listing sees what the command loaded
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))
    if not command:
        assert "numpy" not in loaded


#: Modules the report of a small table must not load: scipy (its array-API layer pulls in
#: numpy.testing, numpy.f2py and numpy.random), the frame libraries, the web stack, plotting,
#: numpy.polynomial (Gauss-Legendre rules are built on first use), and the intervals of the
#: difference and the ratio, which a table without N does not have.
HEAVY_MODULES = (*HEAVY, "pydantic", "starlette", "uvicorn", "numpy.testing", "numpy.f2py",
                 "numpy.random", "numpy.polynomial", "mcnemar.planning", "mcnemar.web",
                 "mcnemar.io", "mcnemar.intervals._difference", "mcnemar.intervals._ratio",
                 "mcnemar.intervals._melded")


def _imported_by_command(argv: list[str]) -> tuple[set[str], str]:
    """Every module ``python -X importtime -m mcnemar ARGV`` imports, and its output."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "mcnemar", *argv],
                          capture_output=True, text=True, check=True)
    names = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines()
             if line.startswith("import time:") and "|" in line}
    return names, done.stdout


@pytest.mark.parametrize("argv", [
    ["test", "--b", "17", "--c", "3"],
    ["test", "--b", "17", "--c", "3", "--format", "json"],
    ["test", "--only-a-wrong", "40", "--only-b-wrong", "24", "--alternative", "less"],
])
def test_report_of_small_counts_loads_no_heavy_module(argv: list[str]) -> None:
    names, out = _imported_by_command(argv)
    assert "mcnemar.report" in names and "numpy" in names  # the listing sees the whole run
    heavy = sorted(n for n in names
                   if any(n == m or n.startswith(m + ".") for m in HEAVY_MODULES))
    assert heavy == [], heavy
    assert "discordant" in out or "McNemar analysis" in out


def test_every_public_name_imports() -> None:
    for name in mcnemar.__all__:
        assert getattr(mcnemar, name) is not None
    namespace: dict[str, object] = {}
    exec("from mcnemar import *", namespace)
    assert set(mcnemar.__all__) <= set(namespace)
    from mcnemar import PairedTable
    from mcnemar.table import PairedTable as Direct

    assert PairedTable is Direct
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = mcnemar.nope  # type: ignore[attr-defined]
