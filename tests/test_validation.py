"""The one validation module (:mod:`mcnemar.validation`) and the arguments its errors carry.

Property tests (hypothesis): every good value passes unchanged, every bad one (negative,
fractional, NaN, infinite, boolean, beyond the one limit 2**52, text) raises a McNemarError
whose ``argument`` is the argument checked. The limit is the one PairedTable uses (below 2**52
every sum of two cells is exact in double precision: 2**52 + 2**52 = 2**53 is the largest
integer a double holds with all smaller ones). The command line names its flag from that
attribute, tested in-process with click's CliRunner.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from mcnemar import PairedTable, vocabulary
from mcnemar.errors import McNemarError, TableError, option
from mcnemar.validation import (
    MAX_COUNT,
    check_choice,
    check_count,
    check_counts,
    check_names,
    check_open_unit,
    check_open_units,
    check_positive,
    check_probabilities,
    check_probability,
)

FAST = settings(max_examples=150, deadline=None)

good_counts = st.integers(min_value=0, max_value=MAX_COUNT)
bad_numbers = st.one_of(
    st.integers(max_value=-1),
    st.integers(min_value=MAX_COUNT + 1, max_value=2**80),
    st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: x != math.floor(x)),
    st.floats(max_value=-1.0, allow_infinity=False),
    st.floats(min_value=float(MAX_COUNT) * 2, allow_infinity=False),
    st.sampled_from([math.nan, math.inf, -math.inf]),
)
not_numbers = st.one_of(
    st.booleans(),
    st.text(max_size=5),
    st.none(),
    st.just(object()),
    st.just(np.bool_(True)),
)
argument_names = st.sampled_from(["b", "n", "count", "both_right", "x1"])


def _raises(call: Any, argument: str, error: type[McNemarError] = McNemarError) -> McNemarError:
    with pytest.raises(error) as caught:
        call()
    assert caught.value.argument == argument
    assert "\x1f" not in str(caught.value)  # the markup never shows
    return caught.value


# ----------------------------------------------------------------------------------- counts


def test_the_one_limit() -> None:
    assert MAX_COUNT == 2**52
    # 2**52 + 2**52 is exact in a double; one more is not representable next to it.
    assert float(MAX_COUNT) + float(MAX_COUNT) == 2**53
    assert float(2**53 + 1) == float(2**53)
    from mcnemar import table

    assert table._MAX_COUNT is MAX_COUNT


@FAST
@given(value=good_counts, argument=argument_names)
def test_good_counts_pass(value: int, argument: str) -> None:
    assert check_count(value, argument) == value
    assert check_count(np.int64(value), argument) == value
    if value <= 2**53:  # integral floats are counts too
        assert check_count(float(value), argument) == value


@FAST
@given(value=bad_numbers, argument=argument_names)
def test_bad_counts_name_their_argument(value: float, argument: str) -> None:
    err = _raises(lambda: check_count(value, argument), argument)
    assert str(err).startswith(f"{argument} ")


@FAST
@given(value=not_numbers, argument=argument_names)
def test_non_numbers_are_not_counts(value: Any, argument: str) -> None:
    _raises(lambda: check_count(value, argument), argument)


@FAST
@given(values=st.lists(good_counts, min_size=1, max_size=6), bad=bad_numbers,
       where=st.integers(min_value=0, max_value=5))
def test_one_bad_count_in_an_array_is_found(values: list[int], bad: float, where: int) -> None:
    assert check_counts(values, "b").tolist() == values
    where = min(where, len(values))
    values = [*values[:where], bad, *values[where:]]
    err = _raises(lambda: check_counts(values, "b", error=TableError), "b", TableError)
    if isinstance(bad, float) and not math.isnan(bad) and len(values) > 1:
        assert f"at index [{where}]" in str(err)


def test_count_messages() -> None:
    cases = {
        -1: "b must be >= 0, got -1; counts cannot be negative",
        1.5: "b must be a whole number of items, got the fraction 1.5",
        math.nan: "b must be a finite whole number >= 0, got nan",
        2**52 + 1: "b = 4503599627370497 is too large; counts up to 2**52",
        1e300: "b = 1e+300 is too large",
        True: "b must be a count (a whole number >= 0), got the boolean True",
        "7": "b must be a count (a whole number >= 0), got the text '7'",
    }
    for value, message in cases.items():
        with pytest.raises(McNemarError, match=re.escape(message)):
            check_count(value, "b")
    with pytest.raises(McNemarError, match="empty"):
        check_counts([], "b")
    with pytest.raises(McNemarError, match="one count, got an array of shape"):
        check_count([1, 2], "b")
    with pytest.raises(McNemarError, match="n must be a positive whole number of items, got 0"):
        check_count(0, "n", minimum=1)
    with pytest.raises(McNemarError, match=r"got 10\.5"):
        check_count(10.5, "n", minimum=1)


def test_python_integers_beyond_int64_are_compared_exactly() -> None:
    assert check_counts(np.array([MAX_COUNT, 3], dtype=object), "b").tolist() == [MAX_COUNT, 3]
    with pytest.raises(McNemarError, match="too large"):
        check_counts([2**70, 1], "b")
    with pytest.raises(McNemarError, match="too large"):
        check_count(np.uint64(2**63 + 5), "b")


@FAST
@given(value=bad_numbers, cell=st.sampled_from("abcd"))
def test_the_table_refuses_with_its_cell_as_argument(value: float, cell: str) -> None:
    cells: dict[str, Any] = {"a": 1, "b": 2, "c": 3, "d": 4}
    cells[cell] = value
    _raises(lambda: PairedTable(**cells), cell, TableError)


# ----------------------------------------------------------------- levels and probabilities

inside = st.floats(min_value=0.0, max_value=1.0, exclude_min=True, exclude_max=True)
outside = st.one_of(
    st.floats(max_value=0.0), st.floats(min_value=1.0), st.sampled_from([math.nan]),
    st.integers(min_value=1, max_value=10**6), st.integers(max_value=0),
)
levels = st.sampled_from(["alpha", "confidence_level", "power"])


@FAST
@given(value=inside, argument=levels)
def test_levels_inside_pass(value: float, argument: str) -> None:
    assert check_open_unit(value, argument) == value
    assert check_open_units([value, value], argument).tolist() == [value, value]


@FAST
@given(value=st.one_of(outside, not_numbers), argument=levels)
def test_levels_outside_name_their_argument(value: Any, argument: str) -> None:
    _raises(lambda: check_open_unit(value, argument), argument)
    _raises(lambda: check_open_units(value, argument), argument)


def test_level_messages_suggest_the_proportion_for_a_percentage() -> None:
    with pytest.raises(McNemarError) as caught:
        check_open_unit(2, "confidence_level")
    assert str(caught.value) == (
        "confidence_level must be strictly between 0 and 1 (e.g. 0.95 for 95%), got 2; "
        "for 2% give 0.02"
    )
    with pytest.raises(McNemarError, match=r"got 1.5 \(at index \[1\]\)"):
        check_open_units([0.9, 1.5], "confidence_level")
    with pytest.raises(McNemarError, match=r"alpha must be strictly between 0 and 1 \(e.g. 0.05\), "
                                           r"got 1.5$"):
        check_open_unit(1.5, "alpha")


@FAST
@given(value=st.floats(min_value=0.0, max_value=1.0))
def test_probabilities_include_0_and_1(value: float) -> None:
    assert check_probability(value, "p10") == value
    assert check_probabilities([value, 0.0, 1.0], "p10").tolist() == [value, 0.0, 1.0]


@FAST
@given(value=st.one_of(
    st.floats(max_value=0.0, exclude_max=True), st.floats(min_value=1.0, exclude_min=True),
    st.sampled_from([math.nan]), not_numbers,
))
def test_bad_probabilities_name_their_argument(value: Any) -> None:
    _raises(lambda: check_probability(value, "discordance"), "discordance")


@FAST
@given(value=st.floats(min_value=0.0, exclude_min=True, allow_infinity=False))
def test_positive_numbers(value: float) -> None:
    assert check_positive(value, "margin") == value


@pytest.mark.parametrize("value", [0, -0.5, math.nan, math.inf, True, "1", None])
def test_non_positive_numbers_are_refused(value: Any) -> None:
    _raises(lambda: check_positive(value, "rope"), "rope")


# -------------------------------------------------------------------------- choices, names

quantities = st.sampled_from([
    (key, terms) for key, terms in vars(vocabulary).items()
    if key.isupper() and isinstance(terms, tuple) and terms
    and isinstance(terms[0], vocabulary.Term)
])


@FAST
@given(quantity=quantities, text=st.text(max_size=12))
def test_choices_are_the_vocabulary_names(quantity: tuple[str, Any], text: str) -> None:
    key, terms = quantity
    for name in vocabulary.names(terms):
        assert check_choice(name, key.lower(), terms) == name
        assert check_choice(name, key.lower(), vocabulary.names(terms)) == name
    if text not in vocabulary.names(terms):
        err = _raises(lambda: check_choice(text, "method", terms), "method")
        assert all(repr(name) in str(err) for name in vocabulary.names(terms))


@pytest.mark.parametrize("value", [None, 3, ["exact"], b"exact", "Exact"])
def test_choices_refuse_other_types(value: Any) -> None:
    _raises(lambda: check_choice(value, "method", vocabulary.TESTS), "method")


@FAST
@given(names=st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=5, unique=True))
def test_distinct_names_pass(names: list[str]) -> None:
    assert check_names(names, len(names)) == tuple(names)


@pytest.mark.parametrize(
    ("names", "count", "fragment"),
    [
        ("ab", 2, "single string"),
        (["a"], 2, "expected 2, got 1"),
        (["a", "a"], 2, "unique"),
        (["a", ""], 2, "non-empty strings"),
        (["a", 3], 2, "non-empty strings"),
        (5, 2, "sequence of 2 strings"),
    ],
)
def test_bad_names(names: Any, count: int, fragment: str) -> None:
    err = _raises(lambda: check_names(names, count, argument="names"), "names")
    assert fragment in str(err)


# --------------------------------------------------------------- errors carry the argument


def test_the_argument_keyword_and_the_markup_agree() -> None:
    marked = McNemarError(f"{option('alpha')} must be small")
    assert (marked.argument, str(marked)) == ("alpha", "alpha must be small")
    explicit = McNemarError("counts cannot be negative", argument="b")
    assert (explicit.argument, explicit.arguments, str(explicit)) == (
        "b", ("b",), "counts cannot be negative"
    )
    both = McNemarError(f"{option('x')} and {option('y')}", argument="y")
    assert both.arguments == ("y", "x")
    assert McNemarError("plain").argument is None
    assert TableError("bad", argument="c").argument == "c"


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: __import__("mcnemar").mcnemar([[1, 2], [3, 4]], alternative="up"),
         "alternative"),
        (lambda: __import__("mcnemar").mcnemar([[1, 2], [3, 4]], method="wald"), "method"),
        (lambda: __import__("mcnemar").mcnemar([[1, 2], [3, 4]], correction=1), "correction"),
        (lambda: __import__("mcnemar.intervals").intervals.difference_interval(
            1, 2, 3, 4, confidence_level=95), "confidence_level"),
        (lambda: __import__("mcnemar.intervals").intervals.ratio_interval(
            1, -2, 3, 4), "b"),
        (lambda: __import__("mcnemar.planning").planning.power(100, 0.1, 0.05, alpha=2), "alpha"),
        (lambda: __import__("mcnemar.planning").planning.power(0, 0.1, 0.05), "n"),
        (lambda: __import__("mcnemar.planning").planning.sample_size(1.2, 0.05), "p10"),
        (lambda: __import__("mcnemar.planning").planning.sample_size(0.1, 0.05, power=1),
         "power"),
        (lambda: __import__("mcnemar.multiple").multiple.pairwise(
            [[1, 0], [0, 1]], names=["a", "a"]), "names"),
        (lambda: __import__("mcnemar.multiple").multiple.pairwise(
            [[1, 0], [0, 1]], alpha=0), "alpha"),
        (lambda: __import__("mcnemar.multiple").multiple.adjust_pvalues([0.1], "sidak"),
         "method"),
        (lambda: __import__("mcnemar.inference").inference.null_distribution(-1, 3), "b"),
    ],
)
def test_library_errors_name_their_argument(call: Any, argument: str) -> None:
    _raises(call, argument)


# ------------------------------------------------------------------------- the command line


def _run(*args: str) -> Any:
    from mcnemar.cli import main

    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["test", "--b", "3", "--c", "1", "--confidence-level", "2"], "--confidence-level"),
        (["test", "--b", "3", "--c", "1", "--alpha", "0"], "--alpha"),
        (["test", "--only-a-right", "-4", "--c", "1"], "--only-a-right"),
        (["test", "--b", "3", "--only-a-wrong", "2.5"], "--only-a-wrong"),
        (["power", "--p10", "0.1", "--p01", "0.05", "--power", "1.5"], "--power"),
        (["power", "--p10", "0.1", "--p01", "0.05", "--alpha", "2"], "--alpha"),
        (["power", "--n", "0", "--p10", "0.1", "--p01", "0.05"], "--n"),
        (["power", "--difference", "2", "--discordance", "0.1"], "--difference"),
    ],
)
def test_the_cli_names_the_flag_in_one_line(args: list[str], flag: str) -> None:
    result = _run(*args)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"mcnemar: error: {flag} "), result.stderr
    keyword = flag[2:].replace("-", "_")
    if "_" in keyword:
        assert keyword not in lines[0]  # the library's keyword is not shown
    assert result.stdout == ""


def test_command_flags_and_overrides() -> None:
    import click

    from mcnemar.cli._common import command_flags, spell_argument

    @click.command()
    @click.option("--power", "target", type=float)
    @click.option("--on-missing")
    @click.option("--input-format", "input_format")
    @click.option("--format", "fmt")
    def command(**_: Any) -> None:
        pass

    flags = command_flags(command)
    assert flags["target"] == flags["power"] == "--power"
    assert flags["on_missing"] == "--on-missing"
    assert flags["format"] == "--format" and flags["fmt"] == "--format"
    flags = command_flags(command, {"format": "--input-format", "limits": "--max-inflated-mb MB"})
    assert flags["format"] == "--input-format"
    assert spell_argument("format", "'csv'", flags) == "--input-format csv"
    assert spell_argument("limits", "None", flags) == "--max-inflated-mb MB"
    assert spell_argument("on_missing", "", flags) == "--on-missing"
    assert spell_argument("allow", "True", {"allow": "--allow"}) == "--allow"
    assert spell_argument("score", "NAME", flags) == "score=NAME"  # no flag: the keyword


def test_handle_errors_takes_overrides() -> None:
    import click

    from mcnemar.cli._common import handle_errors

    @click.command()
    @click.option("--input-format", "input_format", default="auto")
    @handle_errors(flags={"format": "--input-format"})
    def command(input_format: str) -> None:
        raise McNemarError(f"unknown format; choose one with {option('format', 'csv')}")

    result = CliRunner().invoke(command, [])
    assert result.exit_code == 2
    assert result.stderr == "mcnemar: error: unknown format; choose one with --input-format csv\n"


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: PairedTable(a=5, b=1, c=3), "a"),
        (lambda: PairedTable(b=1, c=3, d=2), "d"),
        (lambda: PairedTable(b=1, only_a=1, c=2), "b"),
        (lambda: PairedTable(b=1), "c"),
        (lambda: PairedTable.from_errors(only_a_wrong=1, only_b_wrong=2, both_right=3),
         "both_right"),
        (lambda: PairedTable.from_errors(only_a_wrong=1, only_b_wrong=-2), "only_b_wrong"),
        (lambda: PairedTable.from_outcomes([1, 2], [1, 0]), "correct_a"),
        (lambda: PairedTable.from_outcomes([1, 0], [1, float("nan")]), "correct_b"),
    ],
)
def test_table_errors_name_the_cell(call: Any, argument: str) -> None:
    _raises(call, argument, TableError)


def test_the_argument_survives_pickling() -> None:
    # An error raised in a worker process reaches the interface with its argument.
    import pickle

    from mcnemar.errors import InputFileError

    for err in (McNemarError("counts cannot be negative", argument="b"),
                TableError(f"{option('c')} must be >= 0"),
                InputFileError(f"choose {option('score', 'NAME')}", path="x.csv", line=3)):
        copy = pickle.loads(pickle.dumps(err))
        assert (type(copy), copy.arguments, str(copy)) == (type(err), err.arguments, str(err))
