"""The vocabulary (:mod:`mcnemar.vocabulary`) is the one place the choices are spelled.

* every quantity's names, labels and short labels are unique, ASCII and non-empty, and every
  reference names a source listed on docs/references.md;
* the library accepts every name of a quantity where it takes that argument (the vocabulary
  cannot list a method the code lacks), and the public tuples derive from it;
* every ``click.Choice`` of the command line is a vocabulary tuple (or, where a command offers
  only part of one, that part in order);
* no module under ``src/mcnemar`` besides the vocabulary spells a whole list of choices: a
  tuple, list or set literal, or a table of labels keyed by the names, whose strings are
  exactly the names of a quantity (the page's scripts are searched for arrays and objects of
  the same names). Docstrings that describe a parameter as
  ``{"two-sided", "greater", "less"}`` are documentation, not lists, and are not counted;
  dispatch tables (a name -> the function computing it) are the implementation's registration
  and are not counted either.
"""

from __future__ import annotations

import ast
import re
import typing
from pathlib import Path

import click
import pytest

from mcnemar import vocabulary
from mcnemar.vocabulary import Term, label, names, short, term

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "mcnemar"

QUANTITIES: dict[str, tuple[Term, ...]] = {
    key: value
    for key, value in vars(vocabulary).items()
    if key.isupper() and isinstance(value, tuple) and value and isinstance(value[0], Term)
}

# Commands that offer part of a quantity, and why.
PARTS = {
    ("test", "--fail-on"): "counts typed in have no tasks and a margin is the only criterion",
    ("monitor", "--reduce"): "the sequential replay has no clustered path",
    ("pairwise", "--reduce"): "the many-model comparison has no clustered path",
    ("pairwise", "--method"): "the tests every report computes (inference.METHODS)",
}


# ----------------------------------------------------------------------------------- terms


def test_the_contract_quantities_exist() -> None:
    for key in ("ALTERNATIVES", "TESTS", "DIFFERENCE_INTERVALS", "RATIO_INTERVALS",
                "ODDS_RATIO_INTERVALS", "ADJUSTMENTS", "CLUSTERED_METHODS", "MARGIN_METHODS",
                "POWER_METHODS", "REDUCE", "ON_MISSING", "OUTPUT_FORMATS"):
        assert key in QUANTITIES
    assert names(vocabulary.ALTERNATIVES) == ("two-sided", "greater", "less")
    assert names(vocabulary.TESTS) == ("exact", "midp", "asymptotic", "corrected",
                                       "unconditional")
    assert names(vocabulary.ADJUSTMENTS) == ("holm", "bonferroni", "bh", "none")


@pytest.mark.parametrize("key", sorted(QUANTITIES))
def test_names_labels_and_shorts_are_unique_ascii_and_non_empty(key: str) -> None:
    terms = QUANTITIES[key]
    for field in ("name", "label", "short"):
        values = [getattr(t, field) for t in terms]
        assert all(v and v == v.strip() and v.isascii() for v in values), (key, field, values)
        assert len(set(values)) == len(values), f"{key}: two terms share a {field}: {values}"
    for t in terms:
        assert re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", t.name), t.name
        assert t.reference == t.reference.strip() and t.reference.isascii()


def test_terms_are_frozen() -> None:
    one = vocabulary.ALTERNATIVES[0]
    with pytest.raises(AttributeError):
        one.label = "x"  # type: ignore[misc]


def test_helpers() -> None:
    assert label(vocabulary.ALTERNATIVES, "greater") == "one-sided, A better"
    assert short(vocabulary.DIFFERENCE_INTERVALS, "newcombe") == "Newcombe"
    assert term(vocabulary.RATIO_INTERVALS, "tang").reference == "Tang, Tang & Chan (2003)"
    with pytest.raises(KeyError, match="'nope' is not one of wald, wald-cc, "):
        label(vocabulary.DIFFERENCE_INTERVALS, "nope")


def test_labels_as_the_report_and_the_page_had_them() -> None:
    # The wording the report and the page used before the vocabulary (typographic dashes of
    # the page written as hyphens).
    assert label(vocabulary.DIFFERENCE_INTERVALS, "newcombe") == "Newcombe hybrid score (method 10)"
    assert label(vocabulary.DIFFERENCE_INTERVALS, "exact") == (
        "exact, test-compatible (Fay-Lumbard)"
    )
    assert short(vocabulary.DIFFERENCE_INTERVALS, "wald-cc") == "Wald CC"
    assert label(vocabulary.ODDS_RATIO_INTERVALS, "exact") == "Clopper-Pearson"
    assert label(vocabulary.TESTS, "unconditional") == (
        "exact unconditional test (Suissa-Shuster, Berger-Boos)"
    )


def test_the_alternative_type_spells_the_alternatives() -> None:
    assert typing.get_args(vocabulary.Alternative) == names(vocabulary.ALTERNATIVES)


_YEAR = re.compile(r"\((?P<year>(?:19|20)\d\d)\)")
_SURNAME = re.compile(r"[A-Z][a-z'-]{2,}")


def test_every_reference_is_on_the_references_page() -> None:
    entries = re.split(r"\n(?=- |\| )", (ROOT / "docs" / "references.md").read_text("utf-8"))
    checked = 0
    for key, terms in QUANTITIES.items():
        for t in terms:
            for part in filter(None, (p.strip() for p in t.reference.split(";"))):
                year = _YEAR.search(part)
                assert year, f"{key}.{t.name}: no (year) in {part!r}"
                surname = _SURNAME.findall(part[: year.start()])[0]
                assert any(surname in e and year["year"] in e for e in entries), (key, part)
                checked += 1
    assert checked >= 30


def test_input_formats_are_the_readers() -> None:
    from mcnemar.io import FORMATS, read_run  # noqa: F401  (the registry is filled on import)

    formats = vocabulary.input_formats()
    assert formats == tuple(FORMATS)
    assert {"csv", "jsonl", "parquet", "lm-eval", "inspect", "openai-evals", "helm"} <= set(
        formats
    )
    assert "auto" not in formats


# ------------------------------------------------------------------- the library uses them


def test_public_tuples_derive_from_the_vocabulary() -> None:
    from mcnemar import clustering, inference, intervals, margin
    from mcnemar.multiple import _adjust
    from mcnemar.planning import _validation as planning_validation

    assert inference.ALTERNATIVES == names(vocabulary.ALTERNATIVES)
    assert inference.METHODS == names(vocabulary.TESTS)[:4]
    assert inference.NAMES == {t.name: t.label for t in vocabulary.TESTS}
    assert intervals.DIFFERENCE_METHODS == names(vocabulary.DIFFERENCE_INTERVALS)
    assert intervals.RATIO_METHODS == names(vocabulary.RATIO_INTERVALS)
    assert intervals.ODDS_RATIO_METHODS == names(vocabulary.ODDS_RATIO_INTERVALS)
    assert tuple(clustering.CLUSTERED_METHODS) == names(vocabulary.CLUSTERED_METHODS)
    assert tuple(margin.METHODS) == names(vocabulary.MARGIN_METHODS)
    assert _adjust._ADJUST_METHODS == names(vocabulary.ADJUSTMENTS)
    assert planning_validation._METHODS == names(vocabulary.POWER_METHODS)


T1 = (157, 17, 3, 23)  # docs/references.md, worked example of 200 items


def test_every_test_and_alternative_runs() -> None:
    from mcnemar import mcnemar

    for method in names(vocabulary.TESTS):
        for alternative in names(vocabulary.ALTERNATIVES):
            result = mcnemar([[T1[0], T1[1]], [T1[2], T1[3]]], method=method,
                             alternative=alternative)
            assert result.method == method and 0.0 <= result.pvalue <= 1.0
            assert result.name == label(vocabulary.TESTS, method)


def test_every_interval_method_runs() -> None:
    from mcnemar.intervals import difference_interval, odds_ratio_interval, ratio_interval

    for method in names(vocabulary.DIFFERENCE_INTERVALS):
        ci = difference_interval(*T1, method=method)
        assert -1.0 <= ci.low < 0.07 < ci.high <= 1.0, method  # the estimate is 14/200
    for method in names(vocabulary.RATIO_INTERVALS):
        ci = ratio_interval(*T1, method=method)
        assert ci.low < 174 / 160 < ci.high, method
    for method in names(vocabulary.ODDS_RATIO_INTERVALS):
        ci = odds_ratio_interval(T1[1], T1[2], method=method)
        assert ci.low < 17 / 3 < ci.high, method


def test_every_adjustment_clustered_margin_and_power_method_runs() -> None:
    from mcnemar import PairedTable, clustering, margin, planning
    from mcnemar.multiple import adjust_pvalues

    for method in names(vocabulary.ADJUSTMENTS):
        adjusted = adjust_pvalues([0.01, 0.04, 0.03], method)
        assert (adjusted >= [0.01, 0.04, 0.03]).all()
    clusters = [[3, 1, 0, 1], [2, 0, 1, 2], [4, 2, 0, 0], [1, 1, 1, 1], [2, 2, 0, 1]]
    for method in names(vocabulary.CLUSTERED_METHODS):
        assert 0.0 <= clustering.clustered(clusters, method=method).pvalue <= 1.0
    for method in names(vocabulary.MARGIN_METHODS):
        result = margin.noninferiority(PairedTable(*T1), 0.05, method=method)
        assert 0.0 <= result.pvalue <= 1.0
    for method in names(vocabulary.POWER_METHODS):
        assert 0.0 < planning.power(200, 0.1, 0.05, method=method).power < 1.0


def test_a_name_outside_the_vocabulary_is_refused_naming_the_choices() -> None:
    from mcnemar import McNemarError, mcnemar
    from mcnemar.intervals import ratio_interval

    with pytest.raises(McNemarError, match="'wald', 'tang', 'bonett-price', 'mover-wilson'"):
        ratio_interval(*T1, method="score")
    with pytest.raises(McNemarError, match="'two-sided', 'greater', 'less'") as caught:
        mcnemar([[1, 2], [3, 4]], alternative="bigger")
    assert caught.value.argument == "alternative"


# ------------------------------------------------------------------------------- the CLI


def _choices() -> list[tuple[str, str, tuple[str, ...]]]:
    from mcnemar.cli import main

    ctx = click.Context(main)
    found = []
    for name in main.list_commands(ctx):
        command = main.get_command(ctx, name)
        assert command is not None
        for param in command.params:
            if isinstance(param.type, click.Choice):
                flag = max(param.opts, key=len)
                found.append((name, flag, tuple(param.type.choices)))
    return found


def test_every_click_choice_is_a_vocabulary_tuple() -> None:
    wholes = {names(terms): key for key, terms in QUANTITIES.items()}
    wholes[("auto", *vocabulary.input_formats())] = "input formats"
    found = _choices()
    assert len(found) >= 20
    for command, flag, choices in found:
        if (command, flag) in PARTS:
            assert any(
                set(choices) < set(whole) and list(choices) == [n for n in whole if n in choices]
                for whole in wholes
            ), (command, flag, choices)
        else:
            assert choices in wholes, f"mcnemar {command} {flag}: {choices} is no vocabulary tuple"


# ------------------------------------------------------- no list spelled outside the vocabulary


def _known_sets() -> dict[frozenset[str], str]:
    known = {frozenset(names(terms)): key for key, terms in QUANTITIES.items()}
    tests = [n for n in names(vocabulary.TESTS) if n != "unconditional"]
    known[frozenset(tests)] = "TESTS (all but unconditional)"
    reducers = [n for n in names(vocabulary.REDUCE) if n != "cluster"]
    known[frozenset(reducers)] = "REDUCE (all but cluster)"
    return known


def _spelled(node: ast.AST, known: dict[frozenset[str], str]) -> str | None:
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        elements: list[ast.expr | None] = list(node.elts)
    elif isinstance(node, ast.Dict):
        # name -> function is a dispatch table (the implementation registers its methods);
        # name -> text is a table of labels, which belongs in the vocabulary.
        if all(isinstance(v, ast.Name | ast.Attribute | ast.Lambda) for v in node.values):
            return None
        elements = list(node.keys)
    else:
        return None
    strings = [
        e.value for e in elements if isinstance(e, ast.Constant) and isinstance(e.value, str)
    ]
    if not strings or len(strings) != len(elements):
        return None
    return known.get(frozenset(strings))


def spelled_lists(root: Path = PACKAGE) -> set[tuple[str, str]]:
    """(module, quantity) for every literal list of a quantity's names outside the vocabulary."""
    known = _known_sets()
    found = set()
    for path in sorted(root.rglob("*.py")):
        if path.name == "vocabulary.py":
            continue
        module = ".".join(path.relative_to(root.parent).with_suffix("").parts)
        module = module.removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            quantity = _spelled(node, known)
            if quantity is not None:
                found.add((module, quantity))
    return found


_JS_LITERAL = re.compile(r"[\[{]([^\[\]{}]*)[\]}]")


def spelled_lists_in_scripts(root: Path = PACKAGE) -> set[tuple[str, str]]:
    """The same for the page's scripts: an array of quoted names, or an object keyed by them
    (innermost brackets only), whose names are exactly a quantity's."""
    known = _known_sets()
    found = set()
    for path in sorted(root.rglob("*.js")):
        text = path.read_text(encoding="utf-8")
        for match in _JS_LITERAL.finditer(text):
            body = match.group(1)
            strings = re.findall(r'"([a-z0-9-]+)"\s*:', body) or [
                item.strip().strip('"') for item in body.split(",")
                if re.fullmatch(r'\s*"[a-z0-9-]+"\s*', item)
            ]
            quantity = known.get(frozenset(strings)) if strings else None
            if quantity is not None:
                found.add((path.relative_to(root).as_posix(), quantity))
    return found


def test_the_script_scanner_finds_what_it_should(tmp_path: Path) -> None:
    (tmp_path / "x.js").write_text(
        'const A = ["two-sided", "greater", "less"];\n'
        'const L = { "tang": "Tang", "bonett-price": "B", "wald": "W", "mover-wilson": "M" };\n'
        'const N = ["two-sided", "greater"];\n',
        encoding="utf-8",
    )
    assert spelled_lists_in_scripts(tmp_path) == {
        ("x.js", "ALTERNATIVES"), ("x.js", "RATIO_INTERVALS"),
    }


def test_the_scanner_finds_what_it_should(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "a.py").write_text(
        'from typing import Literal\n'
        'A = Literal["two-sided", "greater", "less"]\n'
        'LABELS = {"exact": "x", "midp": "y", "asymptotic": "z", "corrected": "w"}\n'
        'REG = {"score": f, "unconditional": g}\n'
        'PART = ("durkalski", "yang", "eliasziw-donner")\n'
        'def f(alternative):\n'
        '    """alternative : {"two-sided", "greater", "less"}"""\n',
        encoding="utf-8",
    )
    assert spelled_lists(package) == {
        ("pkg.a", "ALTERNATIVES"), ("pkg.a", "TESTS (all but unconditional)"),
    }


def test_no_spelled_lists() -> None:
    found = spelled_lists() | spelled_lists_in_scripts()
    assert not found, f"choices spelled outside mcnemar.vocabulary (import them instead): {found}"
