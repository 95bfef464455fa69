"""Tests for mcnemar.multiple: all-pairs tests, adjustments, Cochran's Q and letter groups.

Independent references: statsmodels (multipletests, cochrans_q), the core single-pair test
run pair by pair, brute-force counting, exact fractions, and hand-worked letter displays.
"""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from mcnemar.errors import McNemarError
from mcnemar.multiple import (
    _FLOAT32_EXACT_LIMIT,
    adjust_pvalues,
    cochran_q,
    compact_letter_display,
    pairwise,
)

multitest = pytest.importorskip("statsmodels.stats.multitest")
contingency = pytest.importorskip("statsmodels.stats.contingency_tables")

_SM_METHOD = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh"}


def _runs(k: int, n: int, seed: int, spread: tuple[float, float] = (0.55, 0.9)) -> np.ndarray:
    """K correlated runs: a shared item difficulty plus per-model accuracy."""
    rng = np.random.default_rng(seed)
    acc = rng.uniform(*spread, size=k)
    easy = rng.random(n)
    noise = rng.random((k, n))
    # mixing a shared uniform with private noise correlates the runs, as real models are
    u = np.where(rng.random((k, n)) < 0.5, easy[None, :], noise)
    return (u < acc[:, None]).astype(np.int8)


# ---------------------------------------------------------------------------------------------
# adjust_pvalues against statsmodels.stats.multitest.multipletests


@pytest.mark.parametrize("method", ["holm", "bonferroni", "bh"])
def test_adjust_matches_statsmodels_fixed(method: str) -> None:
    p = np.array([0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205, 0.5, 1.0, 0.039])
    expected = multitest.multipletests(p, method=_SM_METHOD[method])[1]
    np.testing.assert_allclose(adjust_pvalues(p, method), expected, rtol=1e-15, atol=0)


def _adjust_by_definition(p: list[float], method: str) -> list[float]:
    """Holm / BH straight from their definitions, one hypothesis at a time (no cumulative ops)."""
    m = len(p)
    ranked = sorted(p)
    out = []
    for value in p:
        i = ranked.index(value)  # ties share the same adjusted value, take the first rank
        if method == "holm":
            out.append(max(min(1.0, (m - j) * ranked[j]) for j in range(i + 1)))
        elif method == "bh":
            last = max(r for r in range(m) if ranked[r] == value)
            out.append(min(min(1.0, m * ranked[j] / (j + 1)) for j in range(last, m)))
        else:
            out.append(min(1.0, m * value))
    return out


@settings(max_examples=150, deadline=None)
@given(
    p=st.lists(st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.0, 0.01, 0.05, 1.0])),
               min_size=1, max_size=30),
    method=st.sampled_from(["holm", "bonferroni", "bh"]),
)
def test_adjust_matches_definition_property(p: list[float], method: str) -> None:
    np.testing.assert_allclose(
        adjust_pvalues(p, method), _adjust_by_definition(p, method), rtol=1e-12, atol=1e-300
    )


# statsmodels' multipletests is slow to call (~0.1 s here), so fewer examples
@settings(max_examples=25, deadline=None)
@given(
    p=hnp.arrays(
        np.float64,
        st.integers(1, 40),
        elements=st.one_of(
            st.floats(0.0, 1.0),
            st.sampled_from([0.0, 0.01, 0.05, 1.0]),  # ties, as exact p-values have
        ),
    ),
    method=st.sampled_from(["holm", "bonferroni", "bh"]),
)
def test_adjust_matches_statsmodels_property(p: np.ndarray, method: str) -> None:
    expected = multitest.multipletests(p, method=_SM_METHOD[method])[1]
    np.testing.assert_allclose(adjust_pvalues(p, method), expected, rtol=1e-12, atol=1e-300)


def test_adjust_hand_values_and_shape() -> None:
    # Holm by hand: sorted 0.01, 0.03, 0.04 -> 3*0.01, max(0.03, 2*0.03), max(0.06, 0.04)
    assert adjust_pvalues([0.01, 0.04, 0.03], "holm").tolist() == pytest.approx([0.03, 0.06, 0.06])
    # BH by hand: 3/1*0.01, min(3/3*0.04, 3/2*0.03) twice
    assert adjust_pvalues([0.01, 0.04, 0.03], "bh").tolist() == pytest.approx([0.03, 0.04, 0.04])
    assert adjust_pvalues([0.3, 0.6], "bonferroni").tolist() == [0.6, 1.0]
    assert adjust_pvalues([0.3, 0.6], "none").tolist() == [0.3, 0.6]
    square = adjust_pvalues([[0.01, 0.02], [0.03, 0.04]], "holm")
    assert square.shape == (2, 2)
    assert adjust_pvalues([], "holm").shape == (0,)


@pytest.mark.parametrize(
    ("pvalues", "method", "message"),
    [
        ([0.1, float("nan")], "holm", "NaN"),
        ([0.1, 1.5], "holm", "between 0 and 1"),
        ([0.1, -0.1], "bh", "between 0 and 1"),
        ([0.1], "hochberg", "'holm', 'bonferroni', 'bh', 'none'"),
    ],
)
def test_adjust_refuses_bad_input(pvalues: list[float], method: str, message: str) -> None:
    with pytest.raises(McNemarError, match=message):
        adjust_pvalues(pvalues, method)


# ---------------------------------------------------------------------------------------------
# Cochran's Q against statsmodels, exact fractions and McNemar for K = 2


@pytest.mark.parametrize(("k", "n", "seed"), [(2, 50, 1), (3, 40, 2), (5, 300, 3), (12, 1000, 4)])
def test_cochran_q_matches_statsmodels(k: int, n: int, seed: int) -> None:
    x = _runs(k, n, seed)
    ours = cochran_q(x)
    # statsmodels wants items in rows and models in columns
    theirs = contingency.cochrans_q(x.T)
    assert ours.statistic == pytest.approx(float(theirs.statistic), rel=1e-12)
    assert ours.pvalue == pytest.approx(float(theirs.pvalue), rel=1e-10)
    assert ours.df == int(theirs.df) == k - 1


def test_cochran_q_exact_fraction() -> None:
    x = [[1, 1, 0, 1, 1, 0], [1, 0, 0, 0, 1, 0], [0, 0, 1, 0, 1, 0]]
    k = len(x)
    cols = [sum(row) for row in x]  # per model
    items = [sum(col) for col in zip(*x, strict=True)]  # per item
    total = sum(cols)
    # Cochran (1950): Q = (k-1)(k sum C^2 - T^2) / (k T - sum R^2)
    expected = Fraction((k - 1) * (k * sum(c * c for c in cols) - total**2),
                        k * total - sum(r * r for r in items))
    assert expected == 2
    assert cochran_q(x).statistic == pytest.approx(float(expected), rel=1e-15)


def test_cochran_q_two_models_is_mcnemar_chi_square() -> None:
    x = _runs(2, 500, 7)
    b = int(np.sum((x[0] == 1) & (x[1] == 0)))
    c = int(np.sum((x[0] == 0) & (x[1] == 1)))
    assert cochran_q(x).statistic == pytest.approx((b - c) ** 2 / (b + c), rel=1e-13)


def test_cochran_q_undefined_when_no_item_separates_runs() -> None:
    x = np.array([[1, 0, 1, 1], [1, 0, 1, 1], [1, 0, 1, 1]])
    res = cochran_q(x)
    assert np.isnan(res.statistic)
    assert res.pvalue == 1.0
    d = res.to_dict()
    assert d["statistic"] is None and d["pvalue"] == 1.0 and "undefined" in d["note"]
    json.dumps(d, allow_nan=False)
    assert "undefined" in str(res)


# ---------------------------------------------------------------------------------------------
# compact letter display


def _valid_display(different: np.ndarray, letters: tuple[str, ...]) -> bool:
    """Two models share a letter exactly when they are not different; everyone has a letter."""
    import re

    sets = [set(re.findall(r"[a-zA-Z]\d*", s)) for s in letters]
    k = len(letters)
    if any(not s for s in sets):
        return False
    for i, j in itertools.combinations(range(k), 2):
        if bool(sets[i] & sets[j]) == bool(different[i, j]):
            return False
    return True


def _sym(k: int, pairs: list[tuple[int, int]]) -> np.ndarray:
    d = np.zeros((k, k), dtype=bool)
    for i, j in pairs:
        d[i, j] = d[j, i] = True
    return d


def test_letters_three_models_by_hand() -> None:
    # 1 ~ 2, 2 ~ 3, 1 != 3 -> a, ab, b
    assert compact_letter_display(_sym(3, [(0, 2)])) == ("a", "ab", "b")


def test_letters_four_models_chain_by_hand() -> None:
    # 1 != 3, 1 != 4, 2 != 4 -> cliques {1,2}, {2,3}, {3,4}
    assert compact_letter_display(_sym(4, [(0, 2), (0, 3), (1, 3)])) == ("a", "ab", "bc", "c")


def test_letters_none_and_all_different() -> None:
    assert compact_letter_display(np.zeros((4, 4), bool)) == ("a",) * 4
    assert compact_letter_display(~np.eye(4, dtype=bool)) == ("a", "b", "c", "d")


def test_letters_follow_the_order() -> None:
    # Model 2 is best, then 0, then 1; 2 differs from 1 only.
    letters = compact_letter_display(_sym(3, [(2, 1)]), order=[2, 0, 1])
    assert letters == ("ab", "b", "a")


def test_letters_sweep_drops_a_redundant_maximal_clique() -> None:
    # "Not different" edges: triangle 0-1-2 plus 3~{0,1}, 4~{1,2}, 5~{0,2}. The triangle
    # {0,1,2} is a maximal clique but each of its edges is covered by another letter, so
    # Piepho's sweep needs only three letters.
    same = _sym(6, [(0, 1), (1, 2), (0, 2), (3, 0), (3, 1), (4, 1), (4, 2), (5, 0), (5, 2)])
    different = ~same
    np.fill_diagonal(different, False)
    letters = compact_letter_display(different)
    assert _valid_display(different, letters)
    assert len(set("".join(letters))) == 3


def test_letters_more_than_52() -> None:
    k = 60
    letters = compact_letter_display(~np.eye(k, dtype=bool))
    assert letters[:3] == ("a", "b", "c")
    assert letters[26] == "A" and letters[51] == "Z"
    assert letters[52] == "a1" and letters[59] == "h1"
    assert len(set(letters)) == k


def test_letters_long_clique_has_no_recursion_limit() -> None:
    k = 1500  # one clique longer than Python's default recursion limit
    assert set(compact_letter_display(np.zeros((k, k), bool))) == {"a"}


@settings(max_examples=150, deadline=None)
@given(data=st.data(), k=st.integers(1, 9))
def test_letters_property_valid_and_irreducible(data: st.DataObject, k: int) -> None:
    upper = data.draw(hnp.arrays(np.bool_, (k, k)))
    different = np.triu(upper, 1)
    different = different | different.T
    order = data.draw(st.permutations(range(k)))
    letters = compact_letter_display(different, order=order)
    assert _valid_display(different, letters)
    # the best model carries the first letter
    assert "a" in letters[order[0]]
    # irreducible: no model can lose a letter without breaking the display
    import re

    sets = [re.findall(r"[a-zA-Z]\d*", s) for s in letters]
    for m in range(k):
        for letter in sets[m]:
            trimmed = list(letters)
            trimmed[m] = "".join(x for x in sets[m] if x != letter)
            assert not _valid_display(different, tuple(trimmed))


def test_letters_exponential_clique_count_falls_back_to_greedy_cover() -> None:
    # 40 models in 20 separable pairs: the "not different" graph has 2**20 maximal cliques.
    k = 40
    different = _sym(k, [(2 * i, 2 * i + 1) for i in range(k // 2)])
    letters = compact_letter_display(different)
    assert _valid_display(different, letters)
    assert letters[0].startswith("a")


@settings(max_examples=100, deadline=None)
@given(data=st.data(), k=st.integers(1, 10))
def test_greedy_cover_property_valid(data: st.DataObject, k: int) -> None:
    from mcnemar.multiple import _greedy_clique_cover

    upper = data.draw(hnp.arrays(np.bool_, (k, k)))
    different = np.triu(upper, 1)
    different = different | different.T
    same = ~different
    np.fill_diagonal(same, True)
    order = np.asarray(data.draw(st.permutations(range(k))), dtype=np.int64)
    cliques = _greedy_clique_cover(same, order)
    letters = ["".join(chr(97 + c % 26) + str(c) for c in range(len(cliques)) if m in cliques[c])
               for m in range(k)]
    assert _valid_display(different, tuple(letters))


def test_letters_refuse_bad_input() -> None:
    with pytest.raises(McNemarError, match="square"):
        compact_letter_display(np.zeros((2, 3), bool))
    with pytest.raises(McNemarError, match="symmetric"):
        compact_letter_display(np.array([[False, True], [False, False]]))
    with pytest.raises(McNemarError, match="booleans"):
        compact_letter_display(np.array([[0.0, 0.5], [0.5, 0.0]]))
    with pytest.raises(McNemarError, match="permutation"):
        compact_letter_display(np.zeros((3, 3), bool), order=[0, 0, 1])


# ---------------------------------------------------------------------------------------------
# pairwise: counts, and equality with the core test run pair by pair

@pytest.fixture()
def core() -> tuple[object, object]:
    """The core single-pair API (table and inference modules)."""
    return pytest.importorskip("mcnemar.table"), pytest.importorskip("mcnemar.inference")


def test_pair_counts_match_brute_force(core: tuple[object, object]) -> None:
    x = _runs(7, 257, 11)
    res = pairwise(x)
    for i, j in itertools.product(range(7), repeat=2):
        xi, xj = x[i].astype(bool), x[j].astype(bool)
        assert res.a[i, j] == np.sum(xi & xj)
        assert res.b[i, j] == np.sum(xi & ~xj)
        assert res.c[i, j] == np.sum(~xi & xj)
        assert res.d[i, j] == np.sum(~xi & ~xj)
        assert res.difference[i, j] == pytest.approx((xi.sum() - xj.sum()) / 257, abs=1e-15)
    assert res.correct.tolist() == x.sum(axis=1).tolist()


def test_float64_product_path_gives_the_same_counts(
    monkeypatch: pytest.MonkeyPatch, core: tuple[object, object]
) -> None:
    # Counts stay exact in float32 only below 2**24 items; beyond that the product is float64.
    assert _FLOAT32_EXACT_LIMIT == 2**24
    x = _runs(6, 300, 12)
    expected = pairwise(x)
    monkeypatch.setattr("mcnemar.multiple._pairs._FLOAT32_EXACT_LIMIT", 100)
    forced = pairwise(x)
    np.testing.assert_array_equal(forced.a, expected.a)
    np.testing.assert_array_equal(forced.pvalue, expected.pvalue)


@pytest.mark.parametrize("method", ["exact", "midp", "asymptotic", "corrected"])
def test_all_190_pairs_equal_core_test_pair_by_pair(
    method: str, core: tuple[object, object]
) -> None:
    """K = 20 models: every one of the 190 pairs equals the single-pair core test."""
    k = 20
    x = _runs(k, 600, 20, spread=(0.6, 0.8))
    res = pairwise(x, method=method)
    assert res.pairs.shape == (190, 2)
    for i, j in itertools.combinations(range(k), 2):
        table = core[0].PairedTable.from_outcomes(x[i], x[j])
        single = core[1].mcnemar(table, method=method)
        ci = single.confidence_interval(confidence_level=0.95, method="newcombe")
        assert res.pvalue[i, j] == pytest.approx(single.pvalue, rel=1e-12, abs=1e-300)
        assert res.statistic[i, j] == pytest.approx(single.statistic, rel=1e-12)
        assert res.ci_low[i, j] == pytest.approx(ci.low, rel=1e-10, abs=1e-12)
        assert res.ci_high[i, j] == pytest.approx(ci.high, rel=1e-10, abs=1e-12)
        # the lower triangle is the swapped table (B as A)
        swapped = core[1].mcnemar(
            core[0].PairedTable.from_outcomes(x[j], x[i]), method=method
        )
        swapped_ci = swapped.confidence_interval(confidence_level=0.95, method="newcombe")
        assert res.pvalue[j, i] == pytest.approx(swapped.pvalue, rel=1e-12, abs=1e-300)
        assert res.ci_low[j, i] == pytest.approx(swapped_ci.low, rel=1e-10, abs=1e-12)
        assert res.ci_high[j, i] == pytest.approx(swapped_ci.high, rel=1e-10, abs=1e-12)
    upper = res.pvalue[res.pairs[:, 0], res.pairs[:, 1]]
    expected = multitest.multipletests(upper, method="holm")[1]
    np.testing.assert_allclose(
        res.adjusted_pvalue[res.pairs[:, 0], res.pairs[:, 1]], expected, rtol=1e-13
    )
    assert np.isnan(np.diag(res.pvalue)).all() and np.isnan(np.diag(res.adjusted_pvalue)).all()
    np.testing.assert_array_equal(res.adjusted_pvalue, res.adjusted_pvalue.T)
    np.testing.assert_array_equal(res.significant, res.adjusted_pvalue < 0.05)


_RESULT_MATRICES = ("statistic", "pvalue", "log10_pvalue", "adjusted_pvalue", "ci_low",
                    "ci_high", "significant", "a", "b", "c", "d", "difference")


def _far_apart_runs(seed: int) -> np.ndarray:
    """40 runs from 5% to 95% accuracy on 3,000 items: pairs from an even split to p-values
    far below 1e-300, on both routes of the exact test and across the switch between them."""
    return _runs(40, 3000, seed, spread=(0.05, 0.95))


@pytest.mark.parametrize(
    ("method", "kwargs"),
    [("exact", {}), ("midp", {}), ("asymptotic", {}), ("corrected", {}),
     ("exact", {"baseline": 3, "alternative": "greater"}),
     ("exact", {"baseline": 7, "alternative": "less", "interval": "tango"})],
)
def test_chunks_and_threads_change_nothing(
    method: str, kwargs: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pairs are tested chunk by chunk on a few threads: the result is the same whatever
    the chunk size and the number of threads."""
    x = _far_apart_runs(40)
    whole = pairwise(x, method=method, **kwargs)  # type: ignore[arg-type]
    monkeypatch.setattr("mcnemar.multiple._pairs._CHUNK", 97)  # 780 pairs: 9 chunks
    monkeypatch.setattr("mcnemar.multiple._pairs._threads", lambda: 3)
    chunked = pairwise(x, method=method, **kwargs)  # type: ignore[arg-type]
    monkeypatch.setattr("mcnemar.multiple._pairs._threads", lambda: 1)
    serial = pairwise(x, method=method, **kwargs)  # type: ignore[arg-type]
    for name in _RESULT_MATRICES:
        np.testing.assert_array_equal(getattr(chunked, name), getattr(whole, name), err_msg=name)
        np.testing.assert_array_equal(getattr(serial, name), getattr(whole, name), err_msg=name)
    assert chunked.cochran_q == whole.cochran_q and chunked.ranking == whole.ranking


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_small_tables_get_the_core_numbers(alternative: str, core: tuple[object, object]) -> None:
    """Tables the core computes by its own small-table route get exactly its numbers, the
    others the same to 1e-13 relative, in one call."""
    from mcnemar._binomial import SMALL_N
    from mcnemar.multiple._pairs import _test_pairs

    rng = np.random.default_rng(27)
    b, c = rng.integers(0, 90, 4000), rng.integers(0, 90, 4000)
    got = _test_pairs(b, c, "exact", alternative)
    want = core[1].pvalues(b, c, "exact", alternative)
    small = b + c <= SMALL_N
    assert 0.1 < small.mean() < 0.9
    np.testing.assert_array_equal(got[0], want[0])
    for ours, theirs in zip(got[1:], want[1:3], strict=True):
        np.testing.assert_array_equal(ours[small], theirs[small])
        np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=1e-15)


def test_chunk_errors_reach_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("broken test")

    monkeypatch.setattr("mcnemar.multiple._pairs._CHUNK", 50)
    monkeypatch.setattr("mcnemar.multiple._pairs._threads", lambda: 2)
    monkeypatch.setattr("mcnemar.multiple._pairs._test_pairs", broken)
    with pytest.raises(RuntimeError, match="broken test"):
        pairwise(_runs(20, 100, 41))


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_exact_p_values_on_both_routes_equal_the_core_test(
    alternative: str, core: tuple[object, object]
) -> None:
    """The exact p-values of pairwise (the plain incomplete beta where the tail does not
    underflow, log space where it does) against the core test's (log space throughout), and
    against exact fractions."""
    x = _far_apart_runs(42)
    base = None if alternative == "two-sided" else 0
    res = pairwise(x, alternative=alternative, baseline=base)  # type: ignore[arg-type]
    i, j = res.pairs[:, 0], res.pairs[:, 1]
    table = core[0].PairedTable(a=res.a[i, j], b=res.b[i, j], c=res.c[i, j], d=res.d[i, j])
    single = core[1].mcnemar(table, alternative=alternative)
    p, log10_p = res.pvalue[i, j], res.log10_pvalue[i, j]
    want_p = np.asarray(single.pvalue)
    want_log = np.asarray(single.log10_pvalue)
    np.testing.assert_allclose(p, want_p, rtol=1e-12, atol=0)
    np.testing.assert_allclose(log10_p, want_log, rtol=1e-12, atol=0)
    np.testing.assert_array_equal(res.statistic[i, j], single.statistic)
    if alternative == "two-sided":
        # both routes are in use: p-values above the plain route's floor and far below it
        assert (want_log > -200).sum() > 50 and (want_log < -300).sum() > 50
        assert (want_p == 1.0).any()
    # every tested pair against exact fractions (D <= 3,000: tails to ~1e-12 relative; log10
    # p to 1e-13 relative, or 1e-12 relative in p where log10 p is near 0)
    mpmath = pytest.importorskip("mpmath")
    for b, c, got, got_log in zip(res.b[i, j].tolist(), res.c[i, j].tolist(), p.tolist(),
                                  log10_p.tolist(), strict=True):
        k = min(b, c) if alternative == "two-sided" else (c if alternative == "greater" else b)
        total = Fraction(sum(math.comb(b + c, m) for m in range(k + 1)), 2 ** (b + c))
        want = min(Fraction(1), 2 * total) if alternative == "two-sided" else total
        with mpmath.workdps(40):
            log_want = float(mpmath.log10(mpmath.mpf(want.numerator) / want.denominator))
        assert got_log == pytest.approx(log_want, rel=1e-13, abs=1e-12 / math.log(10))
        if want > Fraction(1, 10**300):
            assert got == pytest.approx(float(want), rel=1e-12)


@pytest.mark.parametrize("adjust", ["holm", "bonferroni", "bh", "none"])
def test_adjustment_is_over_the_pairs(adjust: str, core: tuple[object, object]) -> None:
    x = _runs(6, 400, 21)
    res = pairwise(x, adjust=adjust)
    i, j = res.pairs[:, 0], res.pairs[:, 1]
    raw = res.pvalue[i, j]
    if adjust == "none":
        np.testing.assert_array_equal(res.adjusted_pvalue[i, j], raw)
    else:
        expected = multitest.multipletests(raw, method=_SM_METHOD[adjust])[1]
        np.testing.assert_allclose(res.adjusted_pvalue[i, j], expected, rtol=1e-13)


def test_cochran_q_on_the_result_matches_statsmodels(core: tuple[object, object]) -> None:
    x = _runs(8, 700, 22)
    res = pairwise(x)
    theirs = contingency.cochrans_q(x.T)
    assert res.cochran_q.statistic == pytest.approx(float(theirs.statistic), rel=1e-12)
    assert res.cochran_q.pvalue == pytest.approx(float(theirs.pvalue), rel=1e-10)


def test_baseline_mode_tests_k_minus_1_pairs(core: tuple[object, object]) -> None:
    k = 6
    x = _runs(k, 500, 23)
    names = [f"m{i}" for i in range(k)]
    res = pairwise(x, names=names, baseline="m2")
    assert res.baseline == 2
    assert res.pairs.tolist() == [[0, 2], [1, 2], [3, 2], [4, 2], [5, 2]]
    raw = np.array([
        core[1].mcnemar(core[0].PairedTable.from_outcomes(x[i], x[2])).pvalue
        for i in (0, 1, 3, 4, 5)
    ])
    np.testing.assert_allclose(res.pvalue[[0, 1, 3, 4, 5], 2], raw, rtol=1e-12)
    np.testing.assert_allclose(
        res.adjusted_pvalue[[0, 1, 3, 4, 5], 2],
        multitest.multipletests(raw, method="holm")[1],
        rtol=1e-13,
    )
    # pairs without the baseline were not tested
    assert np.isnan(res.pvalue[0, 1]) and np.isnan(res.ci_low[3, 4])
    assert res.groups is None
    # by index gives the same
    by_index = pairwise(x, names=names, baseline=2)
    np.testing.assert_array_equal(by_index.adjusted_pvalue, res.adjusted_pvalue)
    d = res.to_dict()
    assert d["mode"] == "baseline" and d["baseline"] == "m2" and d["groups"] is None
    assert [c["b"] for c in d["comparisons"]] == ["m2"] * 5
    json.dumps(d, allow_nan=False)
    text = str(res)
    assert "(baseline)" in text and "m2" in text
    assert "m2 (baseline)" in res.to_markdown()


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_baseline_one_sided(alternative: str, core: tuple[object, object]) -> None:
    x = _runs(4, 300, 24)
    res = pairwise(x, baseline=0, alternative=alternative)
    for i in (1, 2, 3):
        single = core[1].mcnemar(
            core[0].PairedTable.from_outcomes(x[i], x[0]), alternative=alternative
        )
        assert res.pvalue[i, 0] == pytest.approx(single.pvalue, rel=1e-12)
        assert np.isnan(res.pvalue[0, i])  # only model-vs-baseline was tested


def test_one_sided_with_two_models_leaves_the_reverse_untested() -> None:
    res = pairwise(_runs(2, 300, 26), baseline=1, alternative="greater")
    assert np.isfinite(res.pvalue[0, 1]) and np.isnan(res.pvalue[1, 0])
    assert np.isnan(res.ci_low[1, 0]) and np.isnan(res.adjusted_pvalue[1, 0])
    two_sided = pairwise(_runs(2, 300, 26), baseline=1)
    assert two_sided.pvalue[1, 0] == two_sided.pvalue[0, 1]
    assert np.isnan(np.diag(two_sided.pvalue)).all()


def test_one_sided_without_baseline_is_refused(core: tuple[object, object]) -> None:
    with pytest.raises(McNemarError, match="needs a baseline"):
        pairwise(_runs(3, 50, 25), alternative="greater")


def test_groups_ranking_and_rendering(core: tuple[object, object]) -> None:
    rng = np.random.default_rng(30)
    # two clearly separated tiers of two models each
    acc = np.array([0.6, 0.9, 0.61, 0.91])
    x = (rng.random((4, 1500)) < acc[:, None]).astype(np.int8)
    res = pairwise(x, names=["low1", "high1", "low2", "high2"])
    assert res.ranking[:2] in ((3, 1), (1, 3)) and set(res.ranking[2:]) == {0, 2}
    groups = res.groups
    assert groups is not None
    assert groups.letters[1] == groups.letters[3] == "a"
    assert groups.letters[0] == groups.letters[2] == "b"
    assert res.groups is groups  # computed once
    text = str(res)
    assert "high2" in text and "Adjusted p-values" in text and "Cochran's Q" in text
    md = res.to_markdown()
    assert "| rank | model |" in md and "**Significant differences**" in md
    matrix = res.matrix_text()
    assert matrix.count("*") == 8  # 4 separated pairs, both triangles
    d = res.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["schema"] == "mcnemar.pairwise/1"
    assert [m["name"] for m in d["models"]][2:] in (["low2", "low1"], ["low1", "low2"])
    assert d["groups"]["letters"]["high1"] == "a"
    assert d["matrices"]["adjusted_pvalue"][0][0] is None
    assert len(d["comparisons"]) == 6
    better = {(c["a"], c["b"]): c["better"] for c in d["comparisons"]}
    assert better[("low1", "high1")] == "b"
    assert better[("high1", "high2")] is None


def test_identical_models_are_degenerate_not_errors(core: tuple[object, object]) -> None:
    x = np.tile(np.array([1, 0, 1, 1, 0], dtype=np.int8), (3, 1))
    res = pairwise(x)
    assert np.nanmax(res.pvalue) == 1.0 and np.nanmin(res.pvalue) == 1.0
    assert res.groups is not None and res.groups.letters == ("a", "a", "a")
    assert np.isnan(res.cochran_q.statistic)
    json.dumps(res.to_dict(), allow_nan=False)
    assert "No pair differs significantly" in str(res)


def test_result_arrays_are_read_only(core: tuple[object, object]) -> None:
    res = pairwise(_runs(3, 40, 31))
    with pytest.raises(ValueError, match="read-only"):
        res.pvalue[0, 1] = 0.0


def test_accepts_bool_and_float_matrices(core: tuple[object, object]) -> None:
    x = _runs(3, 80, 32)
    ref = pairwise(x)
    np.testing.assert_array_equal(pairwise(x.astype(bool)).pvalue, ref.pvalue)
    np.testing.assert_array_equal(pairwise(x.astype(float).tolist()).pvalue, ref.pvalue)


@pytest.mark.parametrize(
    ("correct", "kwargs", "message"),
    [
        ([1, 0, 1], {}, "2-D"),
        ([[1, 0, 1]], {}, "at least 2 rows"),
        (np.zeros((2, 0)), {}, "at least 1 column"),
        ([[1, 0], [1, float("nan")]], {}, r"NaN\) for model 1, item 1"),
        ([[1, 0], [2, 0]], {}, "got 2 for model 1, item 0"),
        ([["1", "0"], ["0", "1"]], {}, "dtype"),
        ([[1, 0], [0, 1]], {"names": ["a"]}, "expected 2, got 1"),
        ([[1, 0], [0, 1]], {"names": ["a", "a"]}, "unique"),
        ([[1, 0], [0, 1]], {"names": "ab"}, "single string"),
        ([[1, 0], [0, 1]], {"baseline": "zz"}, "not one of the names"),
        ([[1, 0], [0, 1]], {"baseline": 5}, "between 0 and 1"),
        ([[1, 0], [0, 1]], {"baseline": True}, "name or a row index"),
        ([[1, 0], [0, 1]], {"adjust": "sidak"}, "adjust must be one of"),
        ([[1, 0], [0, 1]], {"method": "chi2"}, "method must be one of"),
        ([[1, 0], [0, 1]], {"alternative": "both"}, "alternative must be one of"),
        ([[1, 0], [0, 1]], {"alpha": 1.5}, "alpha must be strictly between"),
        ([[1, 0], [0, 1]], {"confidence_level": 95}, "confidence_level must be"),
        ([[1, 0], [0, 1]], {"interval": "bogus"}, "bogus"),
    ],
)
def test_pairwise_refuses_bad_input(correct: object, kwargs: dict[str, object],
                                    message: str, core: tuple[object, object]) -> None:
    with pytest.raises(McNemarError, match=message):
        pairwise(correct, **kwargs)  # type: ignore[arg-type]


def test_p_value_text_never_crosses_alpha() -> None:
    from mcnemar.multiple import _fmt_p

    # 0.049996 would print as 0.0500 with four decimals and read as not significant
    assert _fmt_p(0.049996, 0.05) == "0.049996"
    assert _fmt_p(0.05, 0.05) == "0.0500"
    assert _fmt_p(0.0486, 0.05) == "0.0486"
    assert _fmt_p(3e-7) == "3.0e-07" and _fmt_p(0.0) == "<1e-300"


def test_the_argument_types_spell_the_vocabulary() -> None:
    # A type checker needs the names spelled in the Literal; they must stay the vocabulary's.
    import typing

    from mcnemar import inference, vocabulary
    from mcnemar.multiple import AdjustMethod, TestMethod

    assert typing.get_args(AdjustMethod) == vocabulary.names(vocabulary.ADJUSTMENTS)
    assert typing.get_args(TestMethod) == inference.METHODS
    assert typing.get_args(vocabulary.ReportedTest) == tuple(
        n for n in vocabulary.names(vocabulary.TESTS) if n != "unconditional"
    )
