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

from _bits import float_bits
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


# -- the route without scipy for small tables --------------------------------------------------
# Tables with D = b + c <= SMALL_N discordant items are computed without scipy (so that the
# report of a small table starts fast): exact integer tails, math.erfc, Newton's method for the
# odds-ratio limits. Each value is checked against the scipy route it replaced (forced by
# setting SMALL_N below every table) and against mpmath or exact fractions.
SMALL_DS = (0, 1, 2, 5, 6, 9, 24, 25, 26, 40, 63, 64)


def _close(got: float, want: float, rtol: float, atol: float = 1e-15) -> bool:
    """Relative agreement, or absolute for values within ``atol`` of 0 (log p of p = 1)."""
    if math.isinf(want) or math.isnan(want):
        return got == want or (math.isnan(want) and math.isnan(got))
    return abs(got - want) <= max(rtol * max(abs(got), abs(want)), atol)


def _small_tables(ds: tuple[int, ...] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Every split (b, c) of every D in ``ds`` (default: all D <= SMALL_N)."""
    from mcnemar._binomial import SMALL_N

    pairs = [(b, d - b) for d in (range(SMALL_N + 1) if ds is None else ds) for b in range(d + 1)]
    return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])


def _scipy_route(monkeypatch: pytest.MonkeyPatch) -> None:
    """Send every table to the scipy route (the one every table took before the small one)."""
    import mcnemar._binomial

    monkeypatch.setattr(mcnemar._binomial, "SMALL_N", -1)


def _exact_tail(k: int, n: int, mid: bool) -> Fraction:
    """P(X <= k), or P(X < k) + P(X = k)/2, X ~ Bin(n, 1/2), as an exact fraction."""
    below = sum(math.comb(n, j) for j in range(k))
    return Fraction(2 * below + math.comb(n, k) * (1 if mid else 2), 2 ** (n + 1))


def test_small_tails_are_the_exact_fractions_rounded() -> None:
    import mpmath as mp

    from mcnemar._binomial import SMALL_N, log_tails_half_small

    for n in range(SMALL_N + 1):
        k = np.arange(n + 1)
        for mid in (False, True):
            got = log_tails_half_small(k, np.full(k.size, n), mid=mid)
            for j in range(n + 1):
                exact = _exact_tail(j, n, mid)
                with mp.workdps(40):
                    want = float(mp.log(mp.mpf(exact.numerator) / exact.denominator))
                assert _close(float(got[j]), want, 1e-15, atol=0.0), (j, n, mid)
    # p = 1 and p = 1/2 come out exactly (and +0, not -0)
    assert math.copysign(1.0, float(log_tails_half_small(5, 5))) == 1.0
    assert float(log_tails_half_small(2, 5)) == math.log(0.5)
    assert float(log_tails_half_small(3, 6, mid=True)) == math.log(0.5)
    with pytest.raises(ValueError, match="small-n"):
        log_tails_half_small(3, SMALL_N + 1)
    with pytest.raises(ValueError, match="small-n"):
        log_tails_half_small(4, 3)


def test_small_tails_agree_with_the_incomplete_beta_route() -> None:
    from mcnemar._binomial import (
        SMALL_N,
        log_lower_tail_half,
        log_midp_tail_half,
        log_tails_half_small,
    )

    b, c = _small_tables()
    n = b + c
    inner = n > 0
    for mid, route in ((False, log_lower_tail_half), (True, log_midp_tail_half)):
        got = log_tails_half_small(b[inner], n[inner], mid=mid)
        want = route(b[inner], n[inner])
        for x, y in zip(got.tolist(), want.tolist(), strict=True):
            assert _close(x, y, 1e-13), (x, y, mid)
    assert n.max() == SMALL_N


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_small_tables_agree_with_the_scipy_route(
    method: str, alternative: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcnemar.inference import pvalues

    b, c = _small_tables()
    rng = np.random.default_rng(11)
    extra_b = rng.integers(0, 65, 300)
    b = np.concatenate([b, extra_b])
    c = np.concatenate([c, rng.integers(0, 65 - extra_b)])  # random D <= 64
    new = pvalues(b, c, method, alternative)
    _scipy_route(monkeypatch)
    old = pvalues(b, c, method, alternative)
    np.testing.assert_array_equal(new[0], old[0])  # the statistic
    np.testing.assert_array_equal(new[3], old[3])  # the z-score
    for got, want in zip(new[1].tolist() + new[2].tolist(), old[1].tolist() + old[2].tolist(),
                         strict=True):
        assert _close(got, want, 1e-12), (got, want)


def test_a_few_small_tables_get_the_values_of_the_table_lookup() -> None:
    """A few tables (a report) are computed alone, many are looked up in tables of every small
    table: the values are the same to the last bit."""
    from mcnemar._binomial import log_tails_half_small
    from mcnemar.inference import pvalues

    b, c = _small_tables()
    for mid in (False, True):
        many = log_tails_half_small(b, b + c, mid=mid)
        for i in range(0, b.size, 5):
            assert log_tails_half_small(b[i], b[i] + c[i], mid=mid) == many[i]
    for method in METHODS:
        for alt in ALTERNATIVES:
            many = pvalues(b, c, method, alt)
            for i in range(0, b.size, 11):
                few = pvalues(b[i : i + 3], c[i : i + 3], method, alt)
                for got, want in zip(few, many, strict=True):
                    np.testing.assert_array_equal(got, want[i : i + 3])


def _same_bits(x: float, y: float) -> bool:
    return float_bits(x) == float_bits(y)


def _large_tables() -> tuple[np.ndarray, np.ndarray]:
    """Tables beyond SMALL_N discordant items: random ones up to FAST_N and past it, even
    splits, one-sided tails above the middle, and tails that underflow the plain route."""
    rng = np.random.default_rng(23)
    d = rng.integers(65, 12_000, size=400)
    b = rng.integers(0, d + 1)
    edges = [(40, 40), (33, 32), (32, 33), (0, 65), (65, 0), (0, 2000), (1, 3000),
             (5000, 5000), (4999, 5001), (6000, 5000), (10, 9990), (1200, 0)]
    b = np.concatenate([b, [e[0] for e in edges]])
    c = np.concatenate([d - b[:d.size], [e[1] for e in edges]])
    return b, c


def _float_route_may_refuse(method: str, alt: str, b: int, c: int) -> bool:
    """Where the float route hands a table to the arrays: only an exact or mid-p tail with no
    cheap route, which every table up to SMALL_N has, and a two-sided one within 3 standard
    deviations of the middle below FAST_N too (an even split aside)."""
    from mcnemar._binomial import FAST_N, SMALL_N

    d = b + c
    if method not in ("exact", "midp") or d <= SMALL_N:
        return False
    return alt != "two-sided" or b == c or d > FAST_N or abs(b - c) > 3 * math.sqrt(d)


@pytest.mark.parametrize("tables", ["small", "large"])
def test_one_table_on_floats_gets_the_bits_of_the_arrays(tables: str) -> None:
    """The tests' formula on Python floats for one table against the same formula on arrays
    of many (which take scipy's routes beyond SMALL_N), bit for bit: every table of at most
    SMALL_N discordant items (a third of them), and larger ones, which run on floats where
    the tail has a cheap route (the incomplete beta of a tail in the lower half up to FAST_N
    that does not underflow; scipy's log Phi) and are handed to the arrays elsewhere. Which
    tables the float route refuses is checked too, so a regression to the arrays is seen."""
    from mcnemar.inference import _TEST_ARRAYS, _TEST_FLOATS, _test_formula, _tests_of

    b, c = _small_tables() if tables == "small" else _large_tables()
    step = 3 if tables == "small" else 1
    bf, cf = b.astype(np.float64), c.astype(np.float64)
    for method in METHODS:
        for alt in ALTERNATIVES:
            options = {"method": method, "alternative": alt}
            with np.errstate(divide="ignore", invalid="ignore"):
                arrays = _test_formula(_TEST_ARRAYS, bf, cf, **options)
            for i in range(0, b.size, step):
                try:
                    floats = _test_formula(_TEST_FLOATS, float(bf[i]), float(cf[i]), **options)
                except ValueError:
                    assert _float_route_may_refuse(method, alt, int(b[i]), int(c[i])), (
                        method, alt, b[i], c[i])
                    floats = tuple(float(v[0]) for v in _tests_of(
                        (bf[i : i + 1], cf[i : i + 1]), method, alt))
                for got, want in zip(floats, arrays, strict=True):
                    assert _same_bits(got, float(want[i])), (method, alt, b[i], c[i])


def test_the_float_tail_refuses_what_has_no_cheap_route() -> None:
    from mcnemar._binomial import FAST_N, log_tail_half_one

    for k, n in ((40.0, 70.0), (0.0, 2000.0), (3.0, FAST_N + 1.0), (35.0, 70.0)):
        with pytest.raises(ValueError):
            log_tail_half_one(k, n, False)
    assert log_tail_half_one(0.0, 900.0, False) == pytest.approx(-900 * math.log(2), rel=1e-14)


def test_the_unpaired_test_on_floats_gets_the_bits_of_the_arrays() -> None:
    from mcnemar import _routes
    from mcnemar.inference import unpaired_formula, unpaired_log10_formula

    rng = np.random.default_rng(8)
    cells = rng.integers(0, 400, size=(300, 4)).astype(np.float64)
    cells[:4] = [[5, 0, 0, 0], [0, 0, 0, 9], [1e12, 3, 1e6, 1e12], [0, 2, 0, 0]]
    for alt in ALTERNATIVES:
        with np.errstate(divide="ignore", invalid="ignore"):
            z, p = unpaired_formula(_routes.ARRAYS, *cells.T, alternative=alt)
            log10 = unpaired_log10_formula(_routes.ARRAYS, z, alt)
        for i, row in enumerate(cells.tolist()):
            z_1, p_1 = unpaired_formula(_routes.FLOATS, *row, alternative=alt)
            log10_1 = unpaired_log10_formula(_routes.FLOATS, z_1, alt)
            assert all(_same_bits(x, float(y[i])) for x, y in
                       ((z_1, z), (p_1, p), (log10_1, log10))), (alt, row)
    # the public function against the pooled two-proportion test by hand: accuracies
    # 174/200 and 160/200, pooled 0.835
    z, p = unpaired_ztest(157, 17, 3, 23)
    z_hand = 0.07 / math.sqrt(0.835 * 0.165 * 2 / 200)
    assert float(z) == pytest.approx(z_hand, rel=1e-13)
    assert float(p) == pytest.approx(math.erfc(z_hand / math.sqrt(2.0)), rel=1e-12)


@pytest.mark.parametrize("d", SMALL_DS)
def test_small_tables_against_exact_fractions_and_mpmath(d: int) -> None:
    """Both tails and every alternative of each split of D: the exact and mid-p p-values
    against exact sums, the chi-square ones against mpmath's erfc."""
    import mpmath as mp

    b, c = _small_tables((d,))
    for method in METHODS:
        for alt in ALTERNATIVES:
            r = mcnemar(PairedTable(b=b, c=c), method=method, alternative=alt)
            for i, (x, y) in enumerate(zip(b.tolist(), c.tolist(), strict=True)):
                if d == 0:
                    assert r.pvalue[i] == 1.0 and r.log10_pvalue[i] == 0.0
                    continue
                with mp.workdps(40):
                    if method in ("exact", "midp"):
                        mid = method == "midp"
                        if alt == "two-sided":
                            want = min(1, 2 * _exact_tail(min(x, y), d, mid))
                        else:
                            want = _exact_tail(y if alt == "greater" else x, d, mid)
                        want_p = mp.mpf(want.numerator) / want.denominator
                    else:
                        diff = x - y
                        if method == "corrected":
                            shift = {"two-sided": 0, "greater": -1, "less": 1}[alt]
                            dev = max(0, abs(diff) - 1) if alt == "two-sided" else diff + shift
                        else:
                            dev = abs(diff) if alt == "two-sided" else diff
                        z = mp.mpf(dev) / mp.sqrt(d)
                        if alt == "two-sided":
                            want_p = mp.erfc(z / mp.sqrt(2))
                        elif alt == "greater":
                            want_p = mp.erfc(z / mp.sqrt(2)) / 2
                        else:
                            want_p = mp.erfc(-z / mp.sqrt(2)) / 2
                    want_p = min(want_p, mp.mpf(1))
                    want_log10 = float(mp.log10(want_p))
                assert _close(float(r.pvalue[i]), float(want_p), 1e-14), (x, y, method, alt)
                assert _close(float(r.log10_pvalue[i]), want_log10, 1e-13), (x, y, method, alt)


def test_log_ndtr_against_scipy_and_mpmath() -> None:
    import mpmath as mp
    from scipy import special

    from mcnemar.inference import log_ndtr

    xs = [-1e4, -500.0, -40.0, -37.6, -36.7, -26.0 * math.sqrt(2), -30.0, -8.0, -5.0, -1.0,
          -0.999999, -0.5, -1e-8, 0.0, 1e-8, 0.5, 1.0, 3.0, 8.0, 20.0, 38.0]
    xs += np.random.default_rng(3).uniform(-60.0, 12.0, 400).tolist()
    for x in xs:
        got = log_ndtr(x)
        # scipy's erfc loses a little beyond x = 10; the small tables stay within |x| <= 8.
        assert _close(got, float(special.log_ndtr(x)), 1e-13, atol=1e-300), x
        with mp.workdps(50):
            y = mp.mpf(x)
            want = float(mp.log1p(-mp.ncdf(-y)) if x > 0 else mp.log(mp.ncdf(y)))
        # x/sqrt 2 is rounded (as in scipy): the upper tail erfc turns that into ~x**2 ulp of
        # log Phi beyond x = 8 (the small tables stay within |x| <= 8)
        rtol = max(1e-14, 3e-16 * x * x) if x > 0 else 1e-14
        assert _close(got, want, rtol, atol=1e-300), x


def test_normal_isf_against_scipy_and_mpmath() -> None:
    import mpmath as mp
    from scipy import special

    from mcnemar.inference import normal_isf

    levels = [0.95, 0.9, 0.99, 0.8, 0.5, 0.999999, 0.955, 1e-6, 1e-12, 1.0 - 1e-15]
    alphas = [(1.0 - level) / 2.0 for level in levels]
    alphas += [0.5, 0.25, 0.2500000001, 0.2499999999, 1e-300, 5e-17]
    alphas += np.random.default_rng(4).uniform(1e-9, 0.5, 300).tolist()
    for alpha in alphas:
        got = normal_isf(alpha)
        assert _close(got, float(-special.ndtri(alpha)), 2e-15, atol=1e-300), alpha
        with mp.workdps(50):
            log_alpha = mp.log(mp.mpf(alpha))
            want = float(mp.findroot(lambda z, t=log_alpha: mp.log(mp.ncdf(-z)) - t, got))
        assert _close(got, want, 2e-15, atol=1e-40), alpha  # (the root at alpha = 1/2 is 0)
    assert normal_isf(0.5) == 0.0
    for bad in (0.0, 1e-310, 0.6, -1.0, float("nan")):
        with pytest.raises(ValueError, match="normal_isf"):
            normal_isf(bad)


def test_proportion_limits_against_scipy_and_mpmath() -> None:
    """Clopper-Pearson limits of every k out of every n <= SMALL_N against scipy's Beta
    quantiles (and their complements), and mid-p limits on a sample against mpmath."""
    import mpmath as mp
    from scipy import special

    from mcnemar._binomial import SMALL_N, proportion_limit_small

    levels = (0.95, 0.9, 0.99, 0.5, 0.999999)
    for level in levels:
        alpha = (1.0 - level) / 2.0
        for n in range(1, SMALL_N + 1):
            for k in range(n + 1):
                low, rest = proportion_limit_small(k, n, alpha, upper=False)
                high, gap = proportion_limit_small(k, n, alpha, upper=True)
                if k == 0:
                    assert (low, rest) == (0.0, 1.0)
                else:
                    assert _close(low, float(special.betaincinv(k, n - k + 1, alpha)), 1e-13)
                    assert _close(rest, float(special.betainccinv(n - k + 1, k, alpha)), 1e-13)
                if k == n:
                    assert (high, gap) == (1.0, 0.0)
                else:
                    assert _close(high, float(special.betainccinv(k + 1, n - k, alpha)), 1e-13)
                    assert _close(gap, float(special.betaincinv(n - k, k + 1, alpha)), 1e-13)

    def mp_limit(k: int, n: int, alpha: float, upper: bool, mid: bool, guess: float) -> mp.mpf:
        terms = range(k + 1) if upper else range(k, n + 1)

        def tail(p: mp.mpf) -> mp.mpf:
            return sum(mp.binomial(n, i) * p**i * (1 - p) ** (n - i)
                       * (mp.mpf(1) / 2 if mid and i == k else 1) for i in terms) - alpha

        return mp.findroot(tail, mp.mpf(guess), tol=mp.mpf(10) ** -25)

    rng = np.random.default_rng(8)
    for _ in range(30):
        n = int(rng.integers(1, SMALL_N + 1))
        k = int(rng.integers(0, n + 1))
        alpha = (1.0 - levels[int(rng.integers(0, len(levels)))]) / 2.0
        for upper in (False, True):
            if (k == n and upper) or (k == 0 and not upper):
                continue
            for mid in (False, True):
                p, q = proportion_limit_small(k, n, alpha, upper=upper, mid=mid)
                with mp.workdps(30):
                    want = mp_limit(k, n, alpha, upper, mid, p)
                    assert _close(p, float(want), 1e-14) and _close(q, float(1 - want), 1e-14)


def _decimal_tie(p: Fraction) -> bool:
    """p printed with 4 significant digits lies exactly half-way between two printed values."""
    exponent = math.floor(math.log10(p))
    return (p * Fraction(10) ** (3 - exponent)).denominator == 2


def _tie_tables(b: np.ndarray, c: np.ndarray, alternative: str) -> set[tuple[int, int]]:
    """Tables whose exact or mid-p p-value is a tie of its 4 printed digits: its last digit is
    decided by the last bit of the double, on either route."""
    ties = set()
    for x, y in zip(b.tolist(), c.tolist(), strict=True):
        for mid in (False, True):
            if x + y == 0:
                continue
            if alternative == "two-sided":
                p = min(Fraction(1), 2 * _exact_tail(min(x, y), x + y, mid))
            else:
                p = _exact_tail(y if alternative == "greater" else x, x + y, mid)
            if _decimal_tie(p):
                ties.add((x, y))
    return ties


def _compare_json(new: object, old: object, path: tuple, skip_text: bool) -> None:
    if isinstance(new, dict):
        assert isinstance(old, dict) and new.keys() == old.keys(), path
        for key in new:
            _compare_json(new[key], old[key], (*path, key), skip_text)
    elif isinstance(new, list):
        assert isinstance(old, list) and len(new) == len(old), path
        for i, (x, y) in enumerate(zip(new, old, strict=True)):
            _compare_json(x, y, (*path, i), skip_text)
    elif isinstance(new, float) and isinstance(old, float):
        assert _close(new, old, 1e-12), (path, new, old)
    elif not (skip_text and isinstance(new, str)):
        assert new == old, (path, new, old)


@pytest.mark.parametrize("level", [0.95, 0.9, 0.99, 0.5, 0.999999, 1e-6])
def test_small_odds_ratio_intervals_agree_with_the_scipy_route(
    level: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every table with 1 <= D <= SMALL_N: each odds-ratio limit within 1e-12 relative."""
    from mcnemar.report._compute import ODDS_RATIO_SHOWN, _odds_ratio_intervals

    b, c = _small_tables()
    has_or = b + c > 0
    new = _odds_ratio_intervals(b, c, has_or, level)
    _scipy_route(monkeypatch)
    old = _odds_ratio_intervals(b, c, has_or, level)
    assert tuple(new) == tuple(old) == ODDS_RATIO_SHOWN
    for method in ODDS_RATIO_SHOWN:
        for got, want in zip(np.concatenate(new[method]).tolist(),
                             np.concatenate(old[method]).tolist(), strict=True):
            assert _close(got, want, 1e-12, atol=0.0), (method, got, want)


@pytest.mark.parametrize(("alternative", "level"), [
    ("two-sided", 0.95), ("greater", 0.9), ("less", 0.5), ("two-sided", 0.999999),
])
def test_reports_of_small_tables_agree_with_the_scipy_route(
    alternative: str, level: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole report of the tables with D in SMALL_DS and of random ones with D <= 64,
    given as b and c or in full: every JSON number within 1e-12 relative of the scipy
    route's, every text equal but where an exact p-value is a tie of its printed digits, and
    but for the sign of a log10 p of 0 (p = 1 exactly: the scipy route's tail may be off by an
    ulp)."""
    from mcnemar import analyze_many

    b, c = _small_tables(SMALL_DS)
    rng = np.random.default_rng(12)
    extra_b = rng.integers(0, 65, 60)
    b = np.concatenate([b, extra_b])
    c = np.concatenate([c, rng.integers(0, 65 - extra_b)])
    tables = [PairedTable(b=b, c=c), PairedTable(a=b + 3, b=b, c=c, d=c * 2 + 1)]
    ties = _tie_tables(b, c, alternative)
    kw = {"alternative": alternative, "confidence_level": level}
    new = [analyze_many(t, **kw) for t in tables]
    _scipy_route(monkeypatch)
    old = [analyze_many(t, **kw) for t in tables]
    for new_batch, old_batch in zip(new, old, strict=True):
        for i, (x, y) in enumerate(zip(b.tolist(), c.tolist(), strict=True)):
            tie = (x, y) in ties
            _compare_json(new_batch[i].to_dict(), old_batch[i].to_dict(), (x, y), tie)
            if not tie:
                texts = [str(r[i]).replace("log10 p = -0.0000", "log10 p = 0.0000")
                         for r in (new_batch, old_batch)]
                assert texts[0] == texts[1], (x, y)
