"""The package's shape, measured from its source with ``ast`` (nothing is imported to measure).

* no import cycles among the modules of ``mcnemar`` (imports inside functions count);
* ``mcnemar.cli`` and ``mcnemar.web`` import neither scipy nor a private statistics module;
* no module over 900 lines;
* one Stirling error and one deviance term (the binomial kernel);
* every import path that other modules, the tests and the benchmarks use still resolves.

An import edge goes from a module to the module it names: ``from mcnemar.planning._kernel
import x`` is an edge to ``mcnemar.planning._kernel``, ``from mcnemar.io import frames`` one to
``mcnemar.io.frames`` and ``from mcnemar.io import x`` (x not a module) one to ``mcnemar.io``.
Imports under ``if TYPE_CHECKING:`` never run and are not edges.

* the read -> align -> analyze pipeline is written once (:mod:`mcnemar.pipeline`): no module
  of ``mcnemar.cli`` or ``mcnemar.web`` reads, aligns or analyses runs by itself.
"""

from __future__ import annotations

import ast
import importlib
from functools import cache
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "mcnemar"
MAX_LINES = 900

#: The steps of the pipeline: an outer-ring module that imports one of them writes the
#: pipeline again instead of calling mcnemar.pipeline.
PIPELINE_STEPS = {
    ("mcnemar.io", "align"), ("mcnemar.io.align", "align"), ("mcnemar.io", "read_run"),
    ("mcnemar.io", "read_pair"), ("mcnemar.io._dispatch", "read_run"),
    ("mcnemar.io._dispatch", "read_pair"), ("mcnemar.clustering", "clustered_from_outcomes"),
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


@cache
def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imported(module: str, path: Path) -> list[tuple[str, str | None]]:
    """(module named, name imported from it or None) for every import that can run."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[str, str | None]] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for other in child.orelse:
                    visit_one(other)
                continue
            visit_one(child)

    def visit_one(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            found.extend((alias.name, None) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = parts[: len(parts) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.extend((target, alias.name) for alias in node.names)
        visit(node)

    visit_one(tree)
    return found


@cache
def _graph() -> dict[str, frozenset[str]]:
    modules = _modules()
    graph = {}
    for name, path in modules.items():
        edges = set()
        for target, imported in _imported(name, path):
            sub = f"{target}.{imported}" if imported else None
            if sub in modules:
                edges.add(sub)
            elif target in modules:
                edges.add(target)
        edges.discard(name)
        graph[name] = frozenset(edges)
    return graph


def _cycles(graph: dict[str, frozenset[str]]) -> set[frozenset[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.add(frozenset(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def _outer_ring_imports() -> set[tuple[str, str]]:
    """(module of cli/ or web/, scipy or private statistics module it imports)."""
    modules = _modules()
    out = set()
    for name, path in modules.items():
        if not name.startswith(("mcnemar.cli", "mcnemar.web")):
            continue
        for target, imported in _imported(name, path):
            named = f"{target}.{imported}" if f"{target}.{imported}" in modules else target
            if named == "scipy" or named.startswith("scipy."):
                out.add((name, named))
            elif named.startswith("mcnemar.") and not named.startswith(
                ("mcnemar.cli", "mcnemar.web", "mcnemar.io")
            ):
                private = any(part.startswith("_") for part in named.split(".")[1:])
                if private and named not in ("mcnemar._format", "mcnemar.__main__"):
                    out.add((name, named))
    return out


def _long_modules() -> dict[str, int]:
    out = {}
    for name, path in _modules().items():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES:
            out[name] = lines
    return out


# --------------------------------------------------------------------------------------------
# the measuring tools measure what they claim


def test_cycle_finder_on_a_known_graph() -> None:
    graph = {
        "a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset({"a", "d"}),
        "d": frozenset({"e"}), "e": frozenset({"d"}), "f": frozenset({"a"}),
    }
    assert _cycles(graph) == {frozenset({"a", "b", "c"}), frozenset({"d", "e"})}
    assert _cycles({"a": frozenset({"b"}), "b": frozenset()}) == set()


def test_function_level_and_relative_imports_are_edges(tmp_path: Path) -> None:
    src = tmp_path / "pkg" / "sub"
    src.mkdir(parents=True)
    (src / "__init__.py").write_text("")
    (src / "m.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "from . import n\n"
        "if TYPE_CHECKING:\n    from pkg import never\n"
        "def f():\n    from ..other import thing\n    import pkg.deep\n"
    )
    found = _imported("pkg.sub.m", src / "m.py")
    assert ("pkg.sub", "n") in found
    assert ("pkg.other", "thing") in found
    assert ("pkg.deep", None) in found
    assert all(target != "pkg" for target, _ in found)


def test_the_graph_sees_lazy_imports() -> None:
    graph = _graph()
    # McNemarResult.confidence_interval imports the intervals inside the method
    assert "mcnemar.intervals" in graph["mcnemar.inference"]
    # planning.power hands margins to planning._margin inside the function
    assert "mcnemar.planning._margin" in graph["mcnemar.planning._power"]


# --------------------------------------------------------------------------------------------
# the rules


def test_no_import_cycles() -> None:
    assert _cycles(_graph()) == set()


def _reachable(graph: dict[str, frozenset[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in graph[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def test_frames_run_one_way_input_counts_table() -> None:
    """io._frames returns counts; io.frames, io.align and PairedTable.from_frame build tables.

    PairedTable.from_frame reaches the frame engine (io._frames) but neither io.frames nor
    io.align; the engine and the alignment summaries reach no table.
    """
    graph = _graph()
    assert "mcnemar.io._frames" in graph["mcnemar.table"]
    assert not {"mcnemar.io.frames", "mcnemar.io.align"} & _reachable(graph, "mcnemar.table")
    for engine in ("mcnemar.io._frames", "mcnemar.io._summary"):
        assert not {"mcnemar.table", "mcnemar.io.frames", "mcnemar.io.align"} & _reachable(
            graph, engine), engine
    assert "mcnemar.io.frames" not in _reachable(graph, "mcnemar.io.align")


def test_core_packages_have_no_cycles() -> None:
    core = ("mcnemar.planning", "mcnemar.intervals", "mcnemar.multiple", "mcnemar._binomial",
            "mcnemar._format", "mcnemar.inference", "mcnemar.clustering")
    touching = {c for c in _cycles(_graph()) if any(m.startswith(core) for m in c)}
    assert touching == set(), [sorted(c) for c in touching]


def test_outer_ring_imports_no_scipy_and_no_private_statistics_module() -> None:
    assert _outer_ring_imports() == set()


def test_no_module_over_900_lines() -> None:
    assert _long_modules() == {}


def test_the_pipeline_is_written_once() -> None:
    """cli/ and web/ reach reading, alignment and the clustered analysis through the pipeline."""
    copies = set()
    for name, path in _modules().items():
        if name.startswith(("mcnemar.cli", "mcnemar.web")):
            copies |= {(name, step) for step in _imported(name, path) if step in PIPELINE_STEPS}
    assert copies == set(), sorted(copies)


def test_split_packages_stay_short() -> None:
    for package in ("planning", "intervals", "multiple"):
        for path in (PACKAGE / package).glob("*.py"):
            lines = len(path.read_text(encoding="utf-8").splitlines())
            assert lines <= MAX_LINES, (path.name, lines)


def test_one_binomial_kernel() -> None:
    """One Stirling error and one deviance term in the whole package."""
    defined: dict[str, list[str]] = {"stirlerr": [], "bd0": []}
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef):
                for key in defined:
                    if node.name.lstrip("_").lower() == key:
                        defined[key].append(name)
    assert defined == {"stirlerr": ["mcnemar._binomial"], "bd0": ["mcnemar._binomial"]}


# Import paths in use across src/, tests/ and benchmarks/ when the three modules became
# packages, io's shared column names moved to io._columns and the alignment options and
# summaries to io._summary.
_IMPORT_PATHS = {
    "mcnemar.planning": [
        "power", "sample_size", "minimum_detectable_effect", "discordant_probabilities",
        "PowerResult", "SampleSizeResult", "MinimumDetectableEffectResult",
        "_binom_sf", "_check_n", "_check_open_unit", "_connor_power", "_critical_bisect",
        "_critical_lower", "_json", "_log_pmf", "_path_sf", "_points",
        "_resolve_probabilities", "_runs",
    ],
    "mcnemar.intervals": [
        "ConfidenceInterval", "DIFFERENCE_METHODS", "RATIO_METHODS", "ODDS_RATIO_METHODS",
        "difference_estimate", "difference_interval", "odds_ratio_estimate",
        "odds_ratio_interval", "ratio_estimate", "ratio_interval", "wilson_interval",
        "_tango_statistic",
    ],
    "mcnemar.multiple": [
        "pairwise", "PairwiseResult", "cochran_q", "CochranQResult", "adjust_pvalues",
        "compact_letter_display", "SignificanceGroups",
        "_FLOAT32_EXACT_LIMIT", "_fmt_p", "_greedy_clique_cover", "_pair_counts",
    ],
    "mcnemar.inference": ["format_pvalue", "_plain", "as_table", "mcnemar"],
    "mcnemar.io._run": [
        "KEY_PREFIX", "SCORE_COL", "SAMPLE_COL", "CLUSTER_COL", "object_array", "RunResults",
    ],
    "mcnemar.io.predictions": ["PREDICTION_COLUMNS", "LABEL_COLUMNS"],
    "mcnemar.io.align": [
        "ON_MISSING", "REDUCERS", "CLUSTER", "SHOW", "REDUCE_HINT", "THRESHOLD_HINT",
        "check_policies", "intersect_note", "no_common_items", "factorize", "lookup",
        "RunSummary", "AlignmentSummary", "Alignment", "align", "align_many",
    ],
    "mcnemar.io.frames": ["align_in_duckdb", "table_from_frames", "table_from_long_frame"],
    "mcnemar.table": ["PairedTable"],
}


@pytest.mark.parametrize("module", sorted(_IMPORT_PATHS))
def test_import_paths_in_use_resolve(module: str) -> None:
    imported = importlib.import_module(module)
    missing = [name for name in _IMPORT_PATHS[module] if not hasattr(imported, name)]
    assert missing == []


def test_public_names_of_the_packages_are_exported() -> None:
    for package in ("planning", "intervals", "multiple"):
        module = importlib.import_module(f"mcnemar.{package}")
        assert all(hasattr(module, name) for name in module.__all__)


# --------------------------------------------------------------------------------------------
# the report and the suites as packages (decision rules once, short functions)

#: The packages whose functions must each fit on a screen.
SHORT_FUNCTION_PACKAGES = ("report", "tasks")
MAX_FUNCTION_LINES = 80


def _function_lengths(path: Path) -> dict[str, int]:
    """Each function's lines, less its docstring (a long docstring is documentation)."""
    out = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            assert node.end_lineno is not None
            lines = node.end_lineno - node.lineno + 1
            first = node.body[0]
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                assert first.end_lineno is not None
                lines -= first.end_lineno - first.lineno + 1
            out[node.name] = lines
    return out


def test_function_lengths_are_measured_without_the_docstring(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text('def f():\n    """One\n    two."""\n    return 1\n\n'
                    "def g():\n    x = 1\n    return x\n")
    assert _function_lengths(path) == {"f": 2, "g": 3}


def test_no_function_over_80_lines_in_the_report_and_the_suites() -> None:
    long = {f"{path.parent.name}/{path.name}:{name}": lines
            for package in SHORT_FUNCTION_PACKAGES
            for path in sorted((PACKAGE / package).glob("*.py"))
            for name, lines in _function_lengths(path).items() if lines > MAX_FUNCTION_LINES}
    assert long == {}


def _private_imports_back() -> set[tuple[str, str, str]]:
    """(module, private name, module it comes from) where the module it comes from imports
    the importing module back."""
    graph, modules = _graph(), _modules()
    found = set()
    for name, path in modules.items():
        for target, imported in _imported(name, path):
            if imported is None or not imported.startswith("_") or imported.startswith("__"):
                continue
            if f"{target}.{imported}" in modules:  # a private module, not a private name
                continue
            if target in modules and name in graph[target]:
                found.add((name, imported, target))
    return found


def test_no_module_imports_a_private_name_of_a_module_that_imports_it() -> None:
    assert _private_imports_back() == set()


def _assignments(name: str) -> list[str]:
    """The modules that assign the module-level constant ``name``."""
    out = []
    for module, path in _modules().items():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            targets = (node.targets if isinstance(node, ast.Assign) else
                       [node.target] if isinstance(node, ast.AnnAssign) else [])
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                out.append(module)
    return out


def test_each_decision_rule_is_defined_once() -> None:
    assert _assignments("EXACT_BELOW") == ["mcnemar.report._decide"]
    assert _assignments("CLOSE_FACTOR") == ["mcnemar.report._decide"]
    # The recommended-test rule: EXACT_BELOW is compared with a count in one function only.
    compared = []
    for module, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare) and any(
                    isinstance(x, ast.Name) and x.id == "EXACT_BELOW"
                    for x in [node.left, *node.comparators]):
                compared.append(module)
    assert compared == ["mcnemar.report._decide"]
    rules = ("decide", "headline_rule", "interval_disagreement", "exact_recommended",
             "clustered_choice")
    defined = {rule: [m for m, p in _modules().items()
                      for node in ast.parse(p.read_text(encoding="utf-8")).body
                      if isinstance(node, ast.FunctionDef) and node.name == rule]
               for rule in rules}
    assert defined == {rule: ["mcnemar.report._decide"] for rule in rules}


def test_the_import_contracts_hold() -> None:
    """The layering of pyproject.toml's [tool.importlinter] contracts, checked by import-linter
    itself (also run by make lint)."""
    import shutil
    import subprocess
    import sys

    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.skip("import-linter is not installed (it comes with the dev extra)")
    root = SRC.parent
    done = subprocess.run([exe, str(root / "pyproject.toml")], cwd=root,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "broken" in done.stdout and " 0 broken" in done.stdout
