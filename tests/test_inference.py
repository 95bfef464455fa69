"""McNemar's four tests against worked examples, published values, statsmodels and exact sums."""

from __future__ import annotations

import csv
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcnemar import McNemarError, PairedTable, TableError, mcnemar
from mcnemar.inference import format_pvalue, unpaired_ztest

METHODS = ("exact", "midp", "asymptotic", "corrected")
ALTERNATIVES = ("two-sided", "greater", "less")
DATA = Path(__file__).parent / "data"


def assert_printed(value: float, printed: str) -> None:
    """value agrees with a published number to the digits printed (half a unit in the last)."""
    digits = len(printed.split(".")[1])
    assert abs(value - float(printed)) <= 0.5 * 10.0**-digits + 1e-12, (value, printed)


# -- worked examples -------------------------------------------------------------------------
def test_tutorial_error_framing_examples() -> None:
    # Tutorial (errors framing): 12 A-only errors, 3 B-only errors -> exact p = 0.03515625,
    # in B's favour.
    t = PairedTable.from_errors(only_a_wrong=12, only_b_wrong=3)
    r = mcnemar(t)
    assert r.pvalue == pytest.approx(0.03515625, rel=1e-14)
    assert r.pvalue == pytest.approx(
        float(Fraction(2 * sum(math.comb(15, j) for j in range(4)), 2**15))
    )
    # 72 both right, 8 both wrong, 14 A-only and 6 B-only errors -> exact p = 0.1153.
    t2 = PairedTable.from_errors(only_a_wrong=14, only_b_wrong=6, both_wrong=8, both_right=72)
    assert round(mcnemar(t2).pvalue, 4) == 0.1153
    assert (t2.a + t2.c) / t2.n == pytest.approx(0.86)  # error rate of A 0.14 ... B's
    # 8 A-only and 2 B-only errors -> 0.109375.
    assert mcnemar(PairedTable.from_errors(only_a_wrong=8, only_b_wrong=2)).pvalue == pytest.approx(
        0.109375, rel=1e-14
    )


def test_calculator_example() -> None:
    # The online calculator's 200-item example: a=157, b=17, c=3, d=23.
    t = PairedTable(a=157, b=17, c=3, d=23)
    chi = mcnemar(t, method="asymptotic")
    assert round(chi.statistic, 2) == 9.80 and round(chi.pvalue, 4) == 0.0017
    cc = mcnemar(t, method="asymptotic", correction=True)
    assert round(cc.statistic, 2) == 8.45 and round(cc.pvalue, 4) == 0.0037
    assert round(mcnemar(t, method="exact").pvalue, 4) == 0.0026
    assert round(mcnemar(t, method="midp").pvalue, 4) == 0.0015
    _, p = unpaired_ztest(157, 17, 3, 23)
    assert round(float(p), 3) == 0.059


# docs/references.md: contingencytables' tests (cavo_2012) and re-implementations
# (bentur_2009, T1).
@pytest.mark.parametrize(
    ("cells", "expected"),
    [
        (
            (59, 6, 16, 80),
            {"asymptotic": 0.033006, "corrected": 0.055009, "exact": 0.052479, "midp": 0.034690},
        ),
        (
            (1, 1, 7, 12),
            {"asymptotic": 0.033895, "corrected": 0.077100, "exact": 0.070312, "midp": 0.039063},
        ),
        (
            (157, 17, 3, 23),
            {
                "asymptotic": 0.0017451,
                "corrected": 0.0036504,
                "exact": 0.0025768,
                "midp": 0.0014896,
            },
        ),
    ],
    ids=["cavo_2012", "bentur_2009", "T1"],
)
def test_reference_pvalues(cells: tuple[int, int, int, int], expected: dict[str, float]) -> None:
    t = PairedTable(*cells)
    for method, value in expected.items():
        assert_printed(mcnemar(t, method=method).pvalue, str(value))


def _published_pvalue_rows() -> list[dict[str, str]]:
    with open(DATA / "published.csv", newline="") as fh:
        return [r for r in csv.DictReader(fh) if r["quantity"] == "p_value"]


_CSV_METHODS = {
    "mcnemar_asymptotic": "asymptotic",
    "mcnemar_asymptotic_cc": "corrected",
    "mcnemar_exact_conditional": "exact",
    "mcnemar_midp": "midp",
}


@pytest.mark.parametrize(
    "row",
    [r for r in _published_pvalue_rows() if r["method"] in _CSV_METHODS],
    ids=lambda r: f"{r['method']}-{r['a']},{r['b']},{r['c']},{r['d']}-Fagerland2013",
)
def test_published_csv_pvalues(row: dict[str, str]) -> None:
    # Fagerland, Lydersen & Laake (2013), BMC Med Res Methodol 13:91 (Bentur et al. data).
    t = PairedTable(*(int(row[k]) for k in "abcd"))
    assert_printed(mcnemar(t, method=_CSV_METHODS[row["method"]]).pvalue, row["p"])


# -- the underflow example and huge D ---------------------------------------------------
def test_log10_pvalue_where_the_double_underflows() -> None:
    r = mcnemar(PairedTable(b=0, c=5000))
    assert r.pvalue == 0.0
    assert r.log10_pvalue == pytest.approx(-1504.8489, abs=5e-5)
    assert r.log10_pvalue == pytest.approx(math.log10(2) - 5000 * math.log10(2), rel=1e-14)
    assert format_pvalue(r.pvalue, r.log10_pvalue) == "1.416e-1505"
    for method in METHODS:
        lp = mcnemar(PairedTable(b=0, c=5000), method=method).log10_pvalue
        assert math.isfinite(lp) and lp < -1000


def test_huge_discordant_counts() -> None:
    # D = 2e12, a split 4 standard deviations from even: far beyond term-by-term summation.
    # (mcnemar._binomial is checked against mpmath at this size in test_binomial.py; here the
    # normal approximation, accurate to O(1/sqrt(D)), must agree to its leading digits.)
    d = 2 * 10**12
    k = d // 2 - 2 * int(math.sqrt(d))
    r = mcnemar(PairedTable(b=k, c=d - k))
    z = (d - 2 * k) / math.sqrt(d)
    assert r.pvalue == pytest.approx(math.erfc(z / math.sqrt(2)), rel=1e-5)
    assert r.log10_pvalue == pytest.approx(math.log10(r.pvalue), rel=1e-14)


# -- conventions -------------------------------------------------------------------------------
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_no_discordant_items_gives_p_one(method: str, alternative: str) -> None:
    r = mcnemar(PairedTable(a=50, b=0, c=0, d=10), method=method, alternative=alternative)
    assert r.pvalue == 1.0 and r.log10_pvalue == 0.0
    if method in ("asymptotic", "corrected"):
        assert math.isnan(r.statistic)
        assert r.to_dict()["statistic"] is None


def test_equal_split_gives_p_one_two_sided() -> None:
    for method in METHODS:
        assert mcnemar(PairedTable(b=7, c=7), method=method).pvalue == pytest.approx(1.0)
    assert mcnemar(PairedTable(b=7, c=7), method="corrected").statistic == 0.0


def _exact_one_sided(b: int, c: int, greater: bool, mid: bool) -> float:
    n = b + c
    pmf = [Fraction(math.comb(n, j), 2**n) for j in range(n + 1)]
    if greater:
        tail = sum(pmf[b + 1 :], Fraction(0))
    else:
        tail = sum(pmf[:b], Fraction(0))
    return float(tail + (pmf[b] / 2 if mid else pmf[b]))


@pytest.mark.parametrize("b", range(0, 13, 3))
@pytest.mark.parametrize("c", range(0, 13, 4))
def test_exact_and_midp_against_exact_sums(b: int, c: int) -> None:
    if b + c == 0:
        return
    for mid, method in ((False, "exact"), (True, "midp")):
        g = _exact_one_sided(b, c, True, mid)
        lo = _exact_one_sided(b, c, False, mid)
        assert mcnemar(
            PairedTable(b=b, c=c), method=method, alternative="greater"
        ).pvalue == pytest.approx(g, rel=1e-13)
        assert mcnemar(
            PairedTable(b=b, c=c), method=method, alternative="less"
        ).pvalue == pytest.approx(lo, rel=1e-13)
        two = min(1.0, 2 * min(g, lo)) if b != c else 1.0
        assert mcnemar(PairedTable(b=b, c=c), method=method).pvalue == pytest.approx(two, rel=1e-13)


def test_against_statsmodels() -> None:
    from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

    rng = np.random.default_rng(11)
    for _ in range(200):
        a, b, c, d = (int(x) for x in rng.integers(0, 60, 4))
        table = [[a, b], [c, d]]
        if b + c == 0:
            continue
        assert mcnemar(table).pvalue == pytest.approx(
            sm_mcnemar(table, exact=True).pvalue, rel=1e-12
        )
        chi = sm_mcnemar(table, exact=False, correction=False)
        ours = mcnemar(table, method="asymptotic")
        assert ours.statistic == pytest.approx(chi.statistic, rel=1e-12)
        assert ours.pvalue == pytest.approx(chi.pvalue, rel=1e-10)
        if abs(b - c) >= 1:
            cc = sm_mcnemar(table, exact=False, correction=True)
            assert mcnemar(table, method="corrected").pvalue == pytest.approx(cc.pvalue, rel=1e-10)


# -- validation --------------------------------------------------------------------------------
def test_bad_arguments() -> None:
    t = PairedTable(b=3, c=4)
    with pytest.raises(
        McNemarError,
        match="method must be one of 'exact', 'midp', 'asymptotic', 'corrected', "
        "'unconditional'; got 'fisher'",
    ):
        mcnemar(t, method="fisher")
    with pytest.raises(McNemarError, match="alternative must be one of"):
        mcnemar(t, alternative="bigger")
    with pytest.raises(McNemarError, match="correction=True applies only to method='asymptotic'"):
        mcnemar(t, method="exact", correction=True)
    with pytest.raises(TableError, match=r"shape \(3,\)"):
        mcnemar([1, 2, 3])
    with pytest.raises(TableError, match=r"shape \(3, 3\)"):
        mcnemar(np.ones((3, 3), dtype=int))
    with pytest.raises(TableError, match="must be >= 0"):
        mcnemar([[1, -2], [3, 4]])
    assert mcnemar(t, method="asymptotic", correction=True).method == "corrected"


def test_confidence_interval_needs_n() -> None:
    with pytest.raises(McNemarError, match="needs N"):
        mcnemar(PairedTable(b=3, c=4)).confidence_interval()
    ci = mcnemar(PairedTable(a=157, b=17, c=3, d=23)).confidence_interval(method="newcombe")
    assert (round(ci.low * 100, 1), round(ci.high * 100, 1)) == (2.6, 11.7)


def test_result_rendering() -> None:
    r = mcnemar(PairedTable(a=157, b=17, c=3, d=23))
    d = r.to_dict()
    assert d["method"] == "exact" and d["table"]["n"] == 200
    assert "p = 0.002577" in str(r)
    assert "doubled" not in r.convention and "2 * smaller" in r.convention


# -- properties --------------------------------------------------------------------------------
counts = st.integers(0, 400)


@settings(max_examples=300, deadline=None)
@given(
    b=counts,
    c=counts,
    a=counts,
    d=counts,
    method=st.sampled_from(METHODS),
    alt=st.sampled_from(ALTERNATIVES),
)
def test_properties(b: int, c: int, a: int, d: int, method: str, alt: str) -> None:
    r = mcnemar(PairedTable(a=a, b=b, c=c, d=d), method=method, alternative=alt)
    assert 0.0 <= r.pvalue <= 1.0
    assert r.log10_pvalue <= 0.0
    # a and d do not matter
    assert r.pvalue == mcnemar(PairedTable(b=b, c=c), method=method, alternative=alt).pvalue
    # swapping A and B swaps greater and less and keeps two-sided
    swapped = {"greater": "less", "less": "greater", "two-sided": "two-sided"}[alt]
    s = mcnemar(PairedTable(a=a, b=c, c=b, d=d), method=method, alternative=swapped)
    assert s.pvalue == pytest.approx(r.pvalue, rel=1e-12, abs=1e-300)


@settings(max_examples=300, deadline=None)
@given(b=st.integers(0, 10**6), c=st.integers(0, 10**6), alt=st.sampled_from(ALTERNATIVES))
def test_exact_at_least_midp(b: int, c: int, alt: str) -> None:
    t = PairedTable(b=b, c=c)
    ex = mcnemar(t, method="exact", alternative=alt)
    mid = mcnemar(t, method="midp", alternative=alt)
    assert ex.pvalue >= mid.pvalue
    assert ex.log10_pvalue >= mid.log10_pvalue - 1e-12


def test_vectorized_equals_scalar() -> None:
    rng = np.random.default_rng(5)
    b = rng.integers(0, 200, 500)
    c = rng.integers(0, 200, 500)
    b[:5] = [0, 0, 10**9, 5, 0]
    c[:5] = [0, 5000, 10**9 + 10**5, 5, 3]
    for method in METHODS:
        for alt in ALTERNATIVES:
            vec = mcnemar(PairedTable(b=b, c=c), method=method, alternative=alt)
            for i in range(0, 500, 7):
                one = mcnemar(PairedTable(b=int(b[i]), c=int(c[i])), method=method, alternative=alt)
                assert vec.pvalue[i] == one.pvalue
                assert vec.log10_pvalue[i] == one.log10_pvalue
                assert (np.isnan(vec.statistic[i]) and np.isnan(one.statistic)) or vec.statistic[
                    i
                ] == one.statistic


def test_stack_of_2x2_arrays() -> None:
    stack = np.array([[[157, 17], [3, 23]], [[59, 6], [16, 80]]])
    r = mcnemar(stack)
    assert r.pvalue.shape == (2,)
    assert r.pvalue[1] == pytest.approx(0.052479, abs=5e-7)


# -- the exact unconditional test ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("cells", "gamma", "refine", "printed"),
    [
        # docs/references.md: contingencytables' tests, floor(cavo/10) = (5, 0, 1, 8); gamma 1e-4
        # on its 1000-point grid, and gamma = 0.
        ((5, 0, 1, 8), 1e-4, False, "0.542071"),
        ((5, 0, 1, 8), 0.0, False, "0.54197"),
        # bentur_2009 (re-implementation, docs/references.md; Fagerland et al. 2013 print 0.035).
        ((1, 1, 7, 12), 1e-4, True, "0.035416"),
        ((1, 1, 7, 12), 0.0, True, "0.035316"),
        ((1, 1, 7, 12), 1e-4, True, "0.035"),
        # T1, the calculator's table
        ((157, 17, 3, 23), 1e-4, True, "0.0015925"),
    ],
)
def test_unconditional_reference_values(
    cells: tuple[int, int, int, int], gamma: float, refine: bool, printed: str
) -> None:
    from mcnemar.unconditional import unconditional_pvalue

    a, b, c, d = cells
    got = unconditional_pvalue(b, c, a + b + c + d, gamma=gamma, refine=refine)
    assert_printed(got, printed)


def test_unconditional_refinement_only_raises_the_maximum() -> None:
    from mcnemar.unconditional import unconditional_pvalue

    for b, c, n in [(0, 1, 14), (1, 7, 21), (9, 2, 40)]:
        grid = unconditional_pvalue(b, c, n, refine=False)
        assert unconditional_pvalue(b, c, n) >= grid
        assert unconditional_pvalue(b, c, n) - grid < 1e-5


def test_unconditional_by_brute_force_enumeration() -> None:
    # Independent check: enumerate every (x12, x21) table of N items with the trinomial
    # probability, over the same grid of the nuisance parameter, gamma = 0.
    from scipy.stats import multinomial

    from mcnemar.unconditional import unconditional_pvalue

    n, b, c = 12, 1, 6
    t_obs = (b - c) ** 2 / (b + c)
    pis = np.linspace(0.0, 1.0, 1000)
    best = 0.0
    tables = [(x, y) for x in range(n + 1) for y in range(n + 1 - x) if x + y > 0]
    extreme = [(x, y) for x, y in tables if (x - y) ** 2 / (x + y) >= t_obs - 1e-12]
    for pi in pis:
        probs = [
            multinomial.pmf([x, y, n - x - y], n, [pi / 2, pi / 2, 1 - pi]) for x, y in extreme
        ]
        best = max(best, float(np.sum(probs)))
    assert unconditional_pvalue(b, c, n, gamma=0.0, refine=False) == pytest.approx(best, rel=1e-10)


def test_unconditional_through_mcnemar() -> None:
    r = mcnemar(PairedTable(a=1, b=1, c=7, d=12), method="unconditional")
    assert_printed(r.pvalue, "0.035416")
    assert r.statistic == pytest.approx(36 / 8)
    one = mcnemar(PairedTable(a=1, b=1, c=7, d=12), method="unconditional", alternative="less")
    assert one.pvalue < r.pvalue
    with pytest.raises(McNemarError, match="needs N"):
        mcnemar(PairedTable(b=1, c=7), method="unconditional")
    vec = mcnemar(PairedTable(a=[1, 157], b=[1, 17], c=[7, 3], d=[12, 23]), method="unconditional")
    assert vec.pvalue[1] == pytest.approx(0.0015925, abs=5e-8)
    assert mcnemar(PairedTable(a=5, b=0, c=0, d=5), method="unconditional").pvalue == 1.0


@pytest.mark.parametrize(("b", "c"), [(3, 1), (0, 0), (17, 3), (150, 50), (5000, 4000),
                                      (10**9, 10**9 + 10**5), (10**12, 7)])
def test_null_distribution_against_scipy_binom(b: int, c: int) -> None:
    """The drawn null distribution: every value Pr(X = k), X ~ Bin(b + c, 1/2), as scipy's
    binomial pmf gives it (an independent implementation), on a window that holds the
    observed split when it is near the centre and the mass within 6 standard deviations."""
    from scipy import stats

    from mcnemar.inference import null_distribution

    got = null_distribution(b, c)
    n = b + c
    k = np.asarray(got["k"])
    assert got["discordant"] == n and got["observed"] == b
    assert np.all(np.diff(k) == got["step"])
    expected = stats.binom.pmf(k, n, 0.5)
    assert np.allclose(got["pmf"], expected, rtol=1e-9, atol=1e-300)
    if n <= 200:
        assert k.tolist() == list(range(n + 1))
    else:
        sd = math.sqrt(n) / 2
        assert k[0] <= n / 2 - 6 * sd + got["step"] and k[-1] >= n / 2 + 6 * sd - got["step"]
        if abs(b - n / 2) <= 15 * sd:
            assert k[0] <= b <= k[-1] + got["step"]
        assert len(k) <= 242
