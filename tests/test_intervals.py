"""Tests for :mod:`mcnemar.intervals`.

Three kinds of evidence: published values (``tests/data/published.csv`` and the numbers of
the R package contingencytables' own tests), independent computations (mpmath, scipy,
statsmodels, Monte Carlo) and properties every interval must have (it contains the estimate,
nests as the confidence level grows, mirrors when the systems swap, and the vectorized call
equals the scalar calls).
"""

from __future__ import annotations

import csv
import dataclasses
import doctest
import importlib
import json
import math
import pkgutil
import re
from pathlib import Path
from typing import Any

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.proportion import proportion_confint

from _references import mp_melded_tail
from mcnemar import intervals
from mcnemar.errors import McNemarError, TableError
from mcnemar.intervals import (
    DIFFERENCE_METHODS,
    ODDS_RATIO_METHODS,
    RATIO_METHODS,
    ConfidenceInterval,
    difference_estimate,
    difference_interval,
    odds_ratio_estimate,
    odds_ratio_interval,
    ratio_estimate,
    ratio_interval,
    wilson_interval,
)

FIXTURE = Path(__file__).parent / "data" / "published.csv"
SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "reference" / "published.csv"

# Method names of published.csv -> this package's names.
CSV_METHODS = {
    "wald": "wald",
    "wald_cc": "wald-cc",
    "bonett_price": "bonett-price",
    "newcombe_method10": "newcombe",
    "newcombe_method8": "newcombe-plain",
    "tango_score": "tango",
    "bonett_price_hybrid_wilson": "bonett-price",
    "tang_score": "tang",
    "mover_wilson": "mover-wilson",
    "transformed_clopper_pearson": "exact",
    "transformed_midp": "midp",
    "transformed_wilson": "wilson",
}
QUANTITIES = ("diff", "ratio", "odds_ratio")

# Published limits that are not the rounded value of the formula but its truncation. Each is
# still checked: printed <= computed < printed + one unit of the last printed digit.
# - Tang, Tang & Chan (2003) Table II, 90% upper limits 0.991 and 1.038: the exact values are
#   0.99191 and 1.03876; the CSV's note (after ratesci) says the authors rounded down.
# - Newcombe (1998) Table III, table (1, 97, 1, 1), method 10 lower 0.8736: here ad - bc < 0,
#   where methods 10 and 8 coincide by definition, and the method 8 column prints 0.8737 for
#   the same value 0.873672; no variant of phi gives 0.8736 (the plain, the corrected and
#   phi = 0 give 0.87367, 0.88141, 0.88927), so the printed digit is truncated.
TRUNCATED = {
    ("446,5,16,690", "ratio", "tang_score", "upper"),
    ("43,0,1,0", "ratio", "tang_score", "upper"),
    ("1,97,1,1", "diff", "newcombe_method10", "lower"),
}


def _read_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return [row for row in csv.DictReader(handle) if row["quantity"] in QUANTITIES]


def _row_id(row: dict[str, str]) -> str:
    author = re.match(r"[A-Za-z]+", row["source"])
    year = re.search(r"\((\d{4})\)", row["source"])
    source = (author.group(0) if author else "source") + (year.group(1) if year else "")
    table = ",".join(row[k] for k in "abcd")
    return f"{source}-{table}-{row['quantity']}-{row['method']}-{row['conf_level']}"


def _compute(row: dict[str, str]) -> ConfidenceInterval:
    a, b, c, d = (int(row[k]) for k in "abcd")
    method = CSV_METHODS[row["method"]]
    level = float(row["conf_level"])
    if row["quantity"] == "diff":
        return difference_interval(a, b, c, d, confidence_level=level, method=method)
    if row["quantity"] == "ratio":
        return ratio_interval(a, b, c, d, confidence_level=level, method=method)
    return odds_ratio_interval(b, c, confidence_level=level, method=method)


def _agrees(value: float, printed: str) -> bool:
    """True when ``value`` rounds to ``printed`` (half a unit of its last digit)."""
    digits = len(printed.split(".")[1]) if "." in printed else 0
    return abs(value - float(printed)) <= 0.5 * 10.0**-digits + 1e-12


def _truncates_to(value: float, printed: str) -> bool:
    digits = len(printed.split(".")[1])
    return float(printed) - 1e-12 <= value < float(printed) + 10.0**-digits


PUBLISHED_ROWS = _read_rows(FIXTURE)


def test_fixture_holds_the_published_rows() -> None:
    assert len(PUBLISHED_ROWS) == 59
    assert {row["method"] for row in PUBLISHED_ROWS} <= set(CSV_METHODS)


@pytest.mark.skipif(not SHARED.exists(), reason=f"shared reference folder absent ({SHARED})")
def test_fixture_is_a_copy_of_the_shared_reference() -> None:
    shared = {tuple(row.items()) for row in _read_rows(SHARED)}
    assert {tuple(row.items()) for row in PUBLISHED_ROWS} <= shared


@pytest.mark.parametrize("row", PUBLISHED_ROWS, ids=[_row_id(r) for r in PUBLISHED_ROWS])
def test_published_interval(row: dict[str, str]) -> None:
    ci = _compute(row)
    table = ",".join(row[k] for k in "abcd")
    for side, value in (("lower", ci.low), ("upper", ci.high)):
        printed = row[side]
        assert isinstance(value, float)
        if (table, row["quantity"], row["method"], side) in TRUNCATED:
            assert _truncates_to(value, printed), (side, value, printed)
        else:
            assert _agrees(value, printed), (side, value, printed)


# ---------------------------------------------------------------------------------------------
# The values of REFERENCES section 3.3: contingencytables' tests (tests/testthat/test-ch8.R)
# for cavo_2012, ezra_2010 and the edge cases; an independent re-implementation for
# bentur_2009 and the 200-item table T1 (printed to 6 decimals).
# ---------------------------------------------------------------------------------------------

CAVO = (59, 6, 16, 80)
EZRA = (7, 25, 2, 68)
BENTUR = (1, 1, 7, 12)
T1 = (157, 17, 3, 23)

REFERENCE_33: list[tuple[str, tuple[int, int, int, int], str, str, str, str]] = [
    ("cavo_2012", CAVO, "diff", "wald", "-0.1184", "-0.0058"),
    ("cavo_2012", CAVO, "diff", "wald-cc", "-0.1186", "-0.0057"),
    ("cavo_2012", CAVO, "diff", "agresti-min", "-0.1182", "-0.0045"),
    ("cavo_2012", CAVO, "diff", "bonett-price", "-0.1195", "-0.0032"),
    ("cavo_2012", CAVO, "diff", "newcombe", "-0.1186", "-0.0046"),
    ("cavo_2012", CAVO, "diff", "tango", "-0.1240", "-0.0054"),
    ("cavo_2012", CAVO, "ratio", "wald", "0.7597", "0.9886"),
    ("cavo_2012", CAVO, "ratio", "tang", "0.7476", "0.9876"),
    ("cavo_2012", CAVO, "ratio", "bonett-price", "0.7579", "0.9910"),
    ("cavo_2012", CAVO, "ratio", "mover-wilson", "0.7592", "0.9866"),
    ("cavo_2012", CAVO, "odds_ratio", "wilson", "0.1514", "0.9287"),
    ("ezra_2010", EZRA, "odds_ratio", "wald", "2.9608", "52.7731"),
    ("ezra_2010", EZRA, "odds_ratio", "wald-laplace", "2.6232", "28.6333"),
    ("ezra_2010", EZRA, "odds_ratio", "exact", "3.1169", "108.8892"),
    ("ezra_2010", EZRA, "odds_ratio", "midp", "3.4681", "78.2972"),
    ("ezra_2010_reimpl", EZRA, "odds_ratio", "wilson", "3.2791", "47.6508"),
    ("bentur_2009_reimpl", BENTUR, "diff", "wald", "-0.5197", "-0.0517"),
    ("bentur_2009_reimpl", BENTUR, "diff", "agresti-min", "-0.4932", "-0.0285"),
    ("bentur_2009_reimpl", BENTUR, "diff", "bonett-price", "-0.5084", "-0.0134"),
    ("bentur_2009_reimpl", BENTUR, "diff", "newcombe", "-0.5069", "-0.0256"),
    ("bentur_2009_reimpl", BENTUR, "diff", "tango", "-0.5172", "-0.0260"),
    ("T1_reimpl", T1, "diff", "wald", "0.027261", "0.112739"),
    ("T1_reimpl", T1, "diff", "wald-cc", "0.027110", "0.112890"),
    ("T1_reimpl", T1, "diff", "agresti-min", "0.025883", "0.112731"),
    ("T1_reimpl", T1, "diff", "bonett-price", "0.024812", "0.113802"),
    ("T1_reimpl", T1, "diff", "newcombe", "0.026236", "0.116610"),
    ("T1_reimpl", T1, "diff", "tango", "0.029219", "0.119163"),
    ("T1_reimpl", T1, "ratio", "tang", "1.035533", "1.157305"),
    ("T1_reimpl", T1, "ratio", "bonett-price", "1.030778", "1.147344"),
    ("T1_reimpl", T1, "ratio", "wald", "1.031845", "1.146156"),
    ("T1_reimpl", T1, "odds_ratio", "wald", "1.660675", "19.336183"),
    ("T1_reimpl", T1, "odds_ratio", "wald-laplace", "1.522976", "13.296333"),
    ("T1_reimpl", T1, "odds_ratio", "wilson", "1.774550", "18.095359"),
    ("T1_reimpl", T1, "odds_ratio", "exact", "1.639032", "30.180879"),
    # contingencytables test-ch8.R edge cases (tables as (a, b, c, d); R builds them column-major).
    ("ct_tango_edge", (0, 3, 0, 0), "diff", "tango", "-0.1230", "1.0000"),
    ("ct_tango_edge", (0, 0, 3, 0), "diff", "tango", "-1.0000", "0.1230"),
    ("ct_newcombe_edge", (1, 0, 0, 1), "diff", "newcombe", "-0.5734", "0.5734"),
    # StatsDirect's matched-pairs help page (Armitage & Berry 1994 culture-media example):
    # exact 95% interval for the ratio b/c = 6 is 1.335744 to 55.197091.
    ("statsdirect_armitage_berry", (20, 12, 2, 16), "odds_ratio", "exact", "1.335744", "55.197091"),
]


def _interval(
    table: tuple[int, int, int, int], quantity: str, method: str, level: float = 0.95
) -> ConfidenceInterval:
    a, b, c, d = table
    if quantity == "diff":
        return difference_interval(a, b, c, d, confidence_level=level, method=method)
    if quantity == "ratio":
        return ratio_interval(a, b, c, d, confidence_level=level, method=method)
    return odds_ratio_interval(b, c, confidence_level=level, method=method)


@pytest.mark.parametrize(
    ("source", "table", "quantity", "method", "low", "high"),
    REFERENCE_33,
    ids=[f"{r[0]}-{r[2]}-{r[3]}" for r in REFERENCE_33],
)
def test_reference_values(
    source: str, table: tuple[int, int, int, int], quantity: str, method: str, low: str, high: str
) -> None:
    ci = _interval(table, quantity, method)
    assert _agrees(ci.low, low), (ci.low, low)
    assert _agrees(ci.high, high), (ci.high, high)


def test_contingencytables_undefined_tables() -> None:
    # test-ch8.R: Newcombe on the all-zero table is NaN; Bonett-Price ratio with n* = 0 is
    # (0, Inf); Wald ratio with a + c = 0 (estimate Inf) is (0, Inf); Wald OR with c = 0 is
    # (0, Inf).
    ci = difference_interval(0, 0, 0, 0, method="newcombe")
    assert math.isnan(ci.low) and math.isnan(ci.high)
    assert tuple(ratio_interval(0, 0, 0, 0, method="bonett-price")) == (0.0, math.inf)
    assert tuple(ratio_interval(0, 0, 0, 2, method="bonett-price")) == (0.0, math.inf)
    assert tuple(ratio_interval(0, 10, 0, 20, method="wald")) == (0.0, math.inf)
    assert tuple(odds_ratio_interval(3, 0, method="wald")) == (0.0, math.inf)


@pytest.mark.parametrize(
    ("method", "points"),
    [
        ("wald", ("+2.7", "+11.3")),
        ("newcombe-plain", ("+2.7", "+11.6")),
        ("newcombe", ("+2.6", "+11.7")),
    ],
)
def test_calculator_example_in_points(method: str, points: tuple[str, str]) -> None:
    # The calculator's worked example: 200 items, A alone right on 17, B alone on 3.
    ci = difference_interval(157, 17, 3, 23, method=method)
    assert (f"{100 * ci.low:+.1f}", f"{100 * ci.high:+.1f}") == points


# ---------------------------------------------------------------------------------------------
# Independent computations
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("b", "c"), [(25, 2), (1, 7), (17, 3), (0, 4), (9, 0), (300, 280)])
@pytest.mark.parametrize("level", [0.9, 0.95, 0.999])
def test_exact_odds_ratio_against_scipy_and_mpmath(b: int, c: int, level: float) -> None:
    ci = odds_ratio_interval(b, c, confidence_level=level, method="exact")
    scipy_ci = stats.binomtest(b, b + c).proportion_ci(confidence_level=level, method="exact")
    mu_low, mu_high = np.float64(scipy_ci.low), np.float64(scipy_ci.high)
    with np.errstate(divide="ignore"):
        expected = (mu_low / (1 - mu_low), mu_high / (1 - mu_high))
    np.testing.assert_allclose(tuple(ci), expected, rtol=1e-9)
    # The Clopper-Pearson limits solve P(X >= b | mu_L) = alpha/2 = P(X <= b | mu_U).
    mpmath.mp.dps = 40
    alpha = mpmath.mpf(1 - level) / 2
    m = b + c

    def tail_at_least(mu: mpmath.mpf) -> mpmath.mpf:
        return mpmath.fsum(
            mpmath.binomial(m, k) * mu**k * (1 - mu) ** (m - k) for k in range(b, m + 1)
        )

    if b > 0:
        mu_low = mpmath.mpf(ci.low) / (1 + mpmath.mpf(ci.low))
        assert abs(tail_at_least(mu_low) - alpha) < 1e-10 * alpha
    if c > 0:
        mu_high = mpmath.mpf(ci.high) / (1 + mpmath.mpf(ci.high))
        at_most = (
            1
            - tail_at_least(mu_high)
            + mpmath.binomial(m, b) * mu_high**b * (1 - mu_high) ** (m - b)
        )
        assert abs(at_most - alpha) < 1e-10 * alpha


@pytest.mark.parametrize(("b", "c"), [(25, 2), (1, 7), (17, 3), (0, 4), (12, 0), (60, 45)])
@pytest.mark.parametrize("level", [0.8, 0.95, 0.99])
def test_midp_odds_ratio_solves_the_midp_equations(b: int, c: int, level: float) -> None:
    ci = odds_ratio_interval(b, c, confidence_level=level, method="midp")
    mpmath.mp.dps = 40
    m = b + c
    alpha = mpmath.mpf(1 - level) / 2

    def pmf(k: int, mu: mpmath.mpf) -> mpmath.mpf:
        return mpmath.binomial(m, k) * mu**k * (1 - mu) ** (m - k)

    if b > 0:
        mu = mpmath.mpf(ci.low) / (1 + mpmath.mpf(ci.low))
        mid = mpmath.fsum(pmf(k, mu) for k in range(b + 1, m + 1)) + pmf(b, mu) / 2
        assert abs(mid - alpha) < 1e-9 * alpha
    else:
        assert ci.low == 0.0
    if c > 0:
        mu = mpmath.mpf(ci.high) / (1 + mpmath.mpf(ci.high))
        mid = mpmath.fsum(pmf(k, mu) for k in range(b)) + pmf(b, mu) / 2
        assert abs(mid - alpha) < 1e-9 * alpha
    else:
        assert ci.high == math.inf
    # mid-p is inside the exact interval.
    exact = odds_ratio_interval(b, c, confidence_level=level, method="exact")
    assert exact.low <= ci.low <= ci.high <= exact.high


@given(
    x=st.integers(0, 400), extra=st.integers(0, 400), level=st.floats(0.5, 0.9999, allow_nan=False)
)
def test_wilson_interval_against_statsmodels(x: int, extra: int, level: float) -> None:
    n = x + extra
    if n == 0:
        ci = wilson_interval(x, n, level)
        assert math.isnan(ci.low) and math.isnan(ci.high)
        return
    low, high = proportion_confint(x, n, alpha=1 - level, method="wilson")
    ci = wilson_interval(x, n, level)
    assert ci.low == pytest.approx(low, abs=1e-12)
    assert ci.high == pytest.approx(high, abs=1e-12)
    # Transformed Wilson for the odds ratio uses the same limits for mu = b/(b + c).
    orci = odds_ratio_interval(x, extra, confidence_level=level, method="wilson")
    with np.errstate(divide="ignore"):
        assert orci.low == pytest.approx(low / (1 - low), rel=1e-9)
        if extra > 0:
            assert orci.high == pytest.approx(high / (1 - high), rel=1e-9)


def _mp_tango(delta0: mpmath.mpf, b: int, c: int, n: int) -> mpmath.mpf:
    """Tango's score statistic in 50-digit arithmetic, written from Tango (1998)."""
    qa = 2 * n
    qb = -b - c + (2 * n - b + c) * delta0
    qc = -c * delta0 * (1 - delta0)
    p21 = (mpmath.sqrt(qb**2 - 4 * qa * qc) - qb) / (2 * qa)
    return (b - c - n * delta0) / mpmath.sqrt(n * (2 * p21 + delta0 * (1 - delta0)))


def _mp_tang(phi0: mpmath.mpf, a: int, b: int, c: int, n: int) -> mpmath.mpf:
    """Tang, Tang & Chan's score statistic in 50-digit arithmetic."""
    qa = n * (1 + phi0)
    qb = (a + c) * phi0**2 - (a + b + 2 * c)
    qc = c * (1 - phi0) * (a + b + c) / mpmath.mpf(n)
    p21 = (-qb + mpmath.sqrt(qb**2 - 4 * qa * qc)) / (2 * qa)
    return ((a + b) - (a + c) * phi0) / mpmath.sqrt(n * (1 + phi0) * p21 + (a + b + c) * (phi0 - 1))


@pytest.mark.parametrize(
    "table",
    [CAVO, EZRA, BENTUR, T1, (4, 9, 3, 16), (0, 0, 3, 5), (300, 41, 22, 5000), (2, 0, 0, 3)],
)
@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_tango_limits_solve_the_score_equation(
    table: tuple[int, int, int, int], level: float
) -> None:
    mpmath.mp.dps = 50
    a, b, c, d = table
    n = a + b + c + d
    z = -stats.norm.ppf((1 - level) / 2)
    ci = difference_interval(a, b, c, d, confidence_level=level, method="tango")
    if ci.low > -1:
        assert float(_mp_tango(mpmath.mpf(ci.low), b, c, n)) == pytest.approx(z, abs=1e-9)
    if ci.high < 1:
        assert float(_mp_tango(mpmath.mpf(ci.high), b, c, n)) == pytest.approx(-z, abs=1e-9)


@pytest.mark.parametrize(
    "table",
    [
        CAVO,
        BENTUR,
        T1,
        (446, 5, 16, 690),
        (43, 0, 1, 0),
        (0, 3, 0, 4),
        (0, 0, 5, 2),
        (8, 3, 1, 2),
        (3, 0, 0, 0),
    ],
)
@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_tang_limits_solve_the_score_equation(
    table: tuple[int, int, int, int], level: float
) -> None:
    mpmath.mp.dps = 50
    a, b, c, d = table
    n = a + b + c + d
    z = -stats.norm.ppf((1 - level) / 2)
    ci = ratio_interval(a, b, c, d, confidence_level=level, method="tang")
    if 0 < ci.low:
        assert float(_mp_tang(mpmath.mpf(ci.low), a, b, c, n)) == pytest.approx(z, abs=1e-8)
    else:
        assert a + b == 0
    if ci.high < math.inf:
        assert float(_mp_tang(mpmath.mpf(ci.high), a, b, c, n)) == pytest.approx(-z, abs=1e-8)
    else:
        assert a + c == 0


# Tables whose Tango and Tang limits are searched by Newton's method: probes beyond the limit
# and short of it, a zero discordant cell, small and large N.
NEWTON_TABLES = [CAVO, EZRA, BENTUR, T1, (50, 3, 0, 5), (2500, 150, 140, 2500),
                 (1000, 30, 60, 500), (4, 9, 3, 16), (300, 41, 22, 5000), (0, 12, 1, 3),
                 (10**6, 250, 410, 10**6), (43, 0, 7, 2)]


@pytest.mark.parametrize("table", NEWTON_TABLES)
@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_tango_and_tang_limits_are_the_roots_to_the_last_digits(
    table: tuple[int, int, int, int], level: float
) -> None:
    """Each limit within 2e-13 of the root of the statistic's equation found by mpmath in
    50-digit arithmetic (the Newton search's tolerance is 1e-13 of the limit; the ratio's
    is 1e-14 on the log scale)."""
    mpmath.mp.dps = 50
    a, b, c, d = table
    n = a + b + c + d
    z = mpmath.mpf(-stats.norm.ppf((1 - level) / 2))
    tango = difference_interval(a, b, c, d, confidence_level=level, method="tango")
    tang = ratio_interval(a, b, c, d, confidence_level=level, method="tang")
    checks = [(lambda x: _mp_tango(x, b, c, n), tango.low, z, -1.0),
              (lambda x: _mp_tango(x, b, c, n), tango.high, -z, 1.0),
              (lambda x: _mp_tang(x, a, b, c, n), tang.low, z, 0.0),
              (lambda x: _mp_tang(x, a, b, c, n), tang.high, -z, math.inf)]
    for statistic, limit, target, edge in checks:
        if limit == edge:
            continue
        root = mpmath.findroot(lambda x, f=statistic, t=target: f(x) - t, mpmath.mpf(limit))
        assert abs(limit - root) <= 2e-13 * abs(root), (table, level, limit, root)


def _all_tables(max_n: int) -> tuple[np.ndarray, ...]:
    rows = [
        (a, b, c, n - a - b - c)
        for n in range(1, max_n + 1)
        for a in range(n + 1)
        for b in range(n + 1 - a)
        for c in range(n + 1 - a - b)
    ]
    return tuple(np.array(col) for col in zip(*rows, strict=True))


def _discordant_tables(max_n: int) -> tuple[np.ndarray, ...]:
    """One table per (b, c, N), N <= max_n (a = 0): the exact interval depends on nothing else."""
    rows = [
        (0, b, c, n - b - c)
        for n in range(1, max_n + 1)
        for b in range(n + 1)
        for c in range(n + 1 - b)
    ]
    return tuple(np.array(col) for col in zip(*rows, strict=True))


@pytest.mark.parametrize("level", [0.9, 0.95])
def test_tango_excludes_zero_exactly_when_asymptotic_mcnemar_rejects(level: float) -> None:
    a, b, c, d = _all_tables(14)
    low, high = difference_interval(a, b, c, d, confidence_level=level, method="tango")
    pvalues = np.array(
        [
            1.0
            if bi + ci == 0
            else sm_mcnemar([[ai, bi], [ci, di]], exact=False, correction=False).pvalue
            for ai, bi, ci, di in zip(a, b, c, d, strict=True)
        ]
    )
    assert np.array_equal((low > 0) | (high < 0), pvalues < 1 - level)


@pytest.mark.parametrize("level", [0.95, 0.99])
def test_exact_difference_excludes_zero_exactly_when_exact_mcnemar_rejects(level: float) -> None:
    # Fay & Lumbard (2021): the melded interval is compatible with the exact McNemar test,
    # p = min(1, 2 P(X <= min(b, c))), X ~ Bin(b + c, 1/2); checked for every (b, c, N <= 22).
    a, b, c, d = _discordant_tables(22)
    low, high = difference_interval(a, b, c, d, confidence_level=level, method="exact")
    pvalues = np.minimum(1.0, 2.0 * stats.binom.cdf(np.minimum(b, c), b + c, 0.5))
    rejects = pvalues < 1 - level
    assert rejects.sum() > 100
    assert np.array_equal((low > 0) | (high < 0), rejects)


@pytest.mark.parametrize("table", [T1, CAVO, BENTUR, (3, 4, 2, 1), (500, 40, 20, 440)])
def test_exact_difference_limits_against_mpmath_quadrature(
    table: tuple[int, int, int, int],
) -> None:
    mpmath.mp.dps = 25
    a, b, c, d = table
    n, m = a + b + c + d, b + c
    ci = difference_interval(a, b, c, d, method="exact")
    assert float(mp_melded_tail(ci.high, b, m, n)) == pytest.approx(0.025, abs=1e-11)
    # The lower limit is the mirror image: P(T (2B' - 1) >= -L) for B' ~ Beta(c + 1, b).
    assert float(mp_melded_tail(-ci.low, c, m, n)) == pytest.approx(0.025, abs=1e-11)


@pytest.mark.parametrize("table", [T1, BENTUR, (30, 12, 9, 49)])
def test_exact_difference_against_monte_carlo(table: tuple[int, int, int, int]) -> None:
    # exact2x2's Monte Carlo branch: lower = min over T in {T_L, T_U} of the alpha/2 quantile
    # of T (2 B_L - 1), upper = max of the 1 - alpha/2 quantiles of T (2 B_U - 1).
    a, b, c, d = table
    n, m = a + b + c + d, b + c
    rng = np.random.default_rng(20240601)
    size = 400_000
    t_low = rng.beta(m, n - m + 1, size)
    t_up = rng.beta(m + 1, n - m, size)
    b_low = rng.beta(b, m - b + 1, size)
    b_up = rng.beta(b + 1, m - b, size)
    low = min(np.quantile(t * (2 * b_low - 1), 0.025) for t in (t_low, t_up))
    high = max(np.quantile(t * (2 * b_up - 1), 0.975) for t in (t_low, t_up))
    ci = difference_interval(a, b, c, d, method="exact")
    assert ci.low == pytest.approx(low, abs=2e-3)
    assert ci.high == pytest.approx(high, abs=2e-3)


def test_exact_difference_closed_forms_of_mcnemar_exact_dp() -> None:
    # mcnemarExactDP: no discordant pairs -> (-q, q) with q the 1 - alpha/2 quantile of
    # Beta(1, n); all pairs discordant and all for A -> upper limit 1.
    n = 40
    q = stats.beta.ppf(0.975, 1, n)
    ci = difference_interval(n, 0, 0, 0, method="exact")
    assert (ci.low, ci.high) == pytest.approx((-q, q), rel=1e-12)
    assert difference_interval(0, 7, 0, 0, method="exact").high == 1.0
    assert difference_interval(0, 0, 7, 0, method="exact").low == -1.0
    # x = m < n: the upper limit is the Beta(m + 1, n - m) quantile.
    ci = difference_interval(10, 5, 0, 5, method="exact")
    assert ci.high == pytest.approx(stats.beta.ppf(0.975, 6, 15), rel=1e-10)


# ---------------------------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------------------------

counts = st.one_of(st.integers(0, 12), st.integers(0, 400), st.integers(0, 100_000))
tables = st.tuples(counts, counts, counts, counts)
nonempty_tables = tables.filter(lambda t: sum(t) > 0)
levels = st.floats(0.5, 0.999, allow_nan=False)

# Intervals built around the raw estimate (the adjusted-centre Agresti-Min and Bonett-Price
# intervals can miss it at low confidence levels, e.g. (0, 1, 0, 0) at 50%).
CONTAINING = ("wald", "wald-cc", "newcombe", "newcombe-plain", "tango", "exact")


@settings(deadline=None, max_examples=60)
@given(table=nonempty_tables, level=levels)
def test_difference_intervals_are_ordered_bounded_and_contain_the_estimate(
    table: tuple[int, int, int, int], level: float
) -> None:
    estimate = difference_estimate(*table)
    for method in DIFFERENCE_METHODS:
        ci = difference_interval(*table, confidence_level=level, method=method)
        assert -1.0 <= ci.low <= ci.high <= 1.0, method
        if method in CONTAINING:
            assert ci.low - 1e-12 <= estimate <= ci.high + 1e-12, method


@settings(deadline=None, max_examples=60)
@given(table=nonempty_tables, level=levels)
def test_ratio_and_odds_ratio_intervals_contain_the_estimate(
    table: tuple[int, int, int, int], level: float
) -> None:
    a, b, c, d = table
    estimate = ratio_estimate(a, b, c, d)
    for method in RATIO_METHODS:
        ci = ratio_interval(a, b, c, d, confidence_level=level, method=method)
        assert 0.0 <= ci.low <= ci.high, method
        if np.isfinite(estimate):
            assert ci.low <= estimate * (1 + 1e-12) and estimate <= ci.high * (1 + 1e-12), method
    estimate = odds_ratio_estimate(b, c)
    for method in ODDS_RATIO_METHODS:
        ci = odds_ratio_interval(b, c, confidence_level=level, method=method)
        assert 0.0 <= ci.low <= ci.high, method
        if np.isfinite(estimate) and method != "wald-laplace":
            assert ci.low <= estimate * (1 + 1e-12) and estimate <= ci.high * (1 + 1e-12), method


def _at_most(x: float, y: float) -> bool:
    return x <= y or (math.isfinite(y) and x <= y + 1e-12 * max(1.0, abs(y)))


@settings(deadline=None, max_examples=25)
@given(table=nonempty_tables, level=st.floats(0.5, 0.99), step=st.floats(0.001, 0.009))
def test_intervals_widen_as_the_confidence_level_grows(
    table: tuple[int, int, int, int], level: float, step: float
) -> None:
    a, b, c, d = table
    pairs = [
        (lambda lv, m=m: difference_interval(a, b, c, d, confidence_level=lv, method=m))
        for m in DIFFERENCE_METHODS
    ]
    pairs += [
        (lambda lv, m=m: ratio_interval(a, b, c, d, confidence_level=lv, method=m))
        for m in RATIO_METHODS
    ]
    pairs += [
        (lambda lv, m=m: odds_ratio_interval(b, c, confidence_level=lv, method=m))
        for m in ODDS_RATIO_METHODS
    ]
    for interval in pairs:
        narrow, wide = interval(level), interval(level + step)
        assert _at_most(wide.low, narrow.low)
        assert _at_most(narrow.high, wide.high)


@settings(deadline=None, max_examples=50)
@given(table=tables, level=levels)
def test_swapping_the_systems_mirrors_the_intervals(
    table: tuple[int, int, int, int], level: float
) -> None:
    a, b, c, d = table
    for method in DIFFERENCE_METHODS:
        ci = difference_interval(a, b, c, d, confidence_level=level, method=method)
        swapped = difference_interval(a, c, b, d, confidence_level=level, method=method)
        np.testing.assert_allclose(
            (swapped.low, swapped.high), (-ci.high, -ci.low), atol=1e-11, err_msg=method
        )
    with np.errstate(divide="ignore"):
        for method in RATIO_METHODS:
            ci = ratio_interval(a, b, c, d, confidence_level=level, method=method)
            swapped = ratio_interval(a, c, b, d, confidence_level=level, method=method)
            np.testing.assert_allclose(
                (swapped.low, swapped.high),
                (1 / np.float64(ci.high), 1 / np.float64(ci.low)),
                rtol=1e-9,
                err_msg=method,
            )
        for method in ODDS_RATIO_METHODS:
            ci = odds_ratio_interval(b, c, confidence_level=level, method=method)
            swapped = odds_ratio_interval(c, b, confidence_level=level, method=method)
            np.testing.assert_allclose(
                (swapped.low, swapped.high),
                (1 / np.float64(ci.high), 1 / np.float64(ci.low)),
                rtol=1e-9,
                err_msg=method,
            )


@settings(deadline=None, max_examples=20)
@given(many=st.lists(tables, min_size=1, max_size=8), level=levels)
def test_vectorized_call_equals_scalar_calls(
    many: list[tuple[int, int, int, int]], level: float
) -> None:
    a, b, c, d = (np.array(col) for col in zip(*many, strict=True))
    checks: list[tuple[Any, Any]] = []
    for method in DIFFERENCE_METHODS:
        checks.append(
            (
                difference_interval(a, b, c, d, confidence_level=level, method=method),
                [difference_interval(*t, confidence_level=level, method=method) for t in many],
            )
        )
    for method in RATIO_METHODS:
        checks.append(
            (
                ratio_interval(a, b, c, d, confidence_level=level, method=method),
                [ratio_interval(*t, confidence_level=level, method=method) for t in many],
            )
        )
    for method in ODDS_RATIO_METHODS:
        checks.append(
            (
                odds_ratio_interval(b, c, confidence_level=level, method=method),
                [
                    odds_ratio_interval(t[1], t[2], confidence_level=level, method=method)
                    for t in many
                ],
            )
        )
    for vector, scalars in checks:
        assert isinstance(vector.low, np.ndarray) and vector.low.shape == (len(many),)
        np.testing.assert_allclose(vector.low, [s.low for s in scalars], rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(vector.high, [s.high for s in scalars], rtol=1e-10, atol=1e-14)


# ---------------------------------------------------------------------------------------------
# Undefined and degenerate tables
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", DIFFERENCE_METHODS)
def test_difference_without_items_is_nan(method: str) -> None:
    ci = difference_interval([0, 5], [0, 3], [0, 1], [0, 2], method=method)
    assert np.isnan(ci.low[0]) and np.isnan(ci.high[0])
    assert np.isfinite(ci.low[1]) and np.isfinite(ci.high[1])


@pytest.mark.parametrize("method", RATIO_METHODS)
def test_ratio_with_no_correct_item_is_the_half_line(method: str) -> None:
    assert tuple(ratio_interval(0, 0, 0, 4, method=method)) == (0.0, math.inf)
    assert tuple(ratio_interval(0, 0, 0, 0, method=method)) == (0.0, math.inf)


@pytest.mark.parametrize("method", ODDS_RATIO_METHODS)
def test_odds_ratio_without_discordant_pairs_is_the_half_line(method: str) -> None:
    assert tuple(odds_ratio_interval(0, 0, method=method)) == (0.0, math.inf)


@pytest.mark.parametrize("method", ["exact", "midp", "wilson", "wald"])
def test_odds_ratio_with_c_zero_is_unbounded_above(method: str) -> None:
    ci = odds_ratio_interval(4, 0, method=method)
    assert ci.high == math.inf
    assert ci.low < 4.0


def test_tang_closed_forms_at_a_zero_margin() -> None:
    # a + c = 0: T = sqrt((a + b)/phi0), so L = (a + b)/z^2; a + b = 0 mirrors it.
    z = stats.norm.ppf(0.975)
    assert tuple(ratio_interval(0, 5, 0, 3, method="tang")) == pytest.approx((5 / z**2, math.inf))
    assert tuple(ratio_interval(0, 0, 5, 3, method="tang")) == pytest.approx((0.0, z**2 / 5))


def test_estimates() -> None:
    assert difference_estimate(*T1) == pytest.approx(0.07)
    assert ratio_estimate(*T1) == pytest.approx(174 / 160)
    assert odds_ratio_estimate(17, 3) == pytest.approx(17 / 3)
    assert math.isnan(difference_estimate(0, 0, 0, 0))
    assert ratio_estimate(0, 3, 0, 1) == math.inf
    assert math.isnan(ratio_estimate(0, 0, 0, 1))
    assert odds_ratio_estimate(2, 0) == math.inf
    assert math.isnan(odds_ratio_estimate(0, 0))
    np.testing.assert_allclose(odds_ratio_estimate([1, 4], 2), [0.5, 2.0])


# ---------------------------------------------------------------------------------------------
# Types, shapes and the result object
# ---------------------------------------------------------------------------------------------


def test_scalars_in_give_python_floats() -> None:
    for ci in (
        difference_interval(np.int64(157), 17, 3, 23),
        ratio_interval(157, 17, 3, np.array(23)),
        odds_ratio_interval(17, 3, confidence_level=np.float64(0.9)),
        wilson_interval(3, 10),
    ):
        assert type(ci.low) is float and type(ci.high) is float
    assert type(difference_estimate(157, 17, 3, 23)) is float


def test_arrays_broadcast() -> None:
    b = np.arange(1, 4)[:, None]
    c = np.arange(0, 4)[None, :]
    ci = difference_interval(10, b, c, 10, method="tango")
    assert ci.low.shape == ci.high.shape == (3, 4)
    assert ci.low[2, 1] == pytest.approx(difference_interval(10, 3, 1, 10, method="tango").low)
    levels_ci = odds_ratio_interval(17, 3, confidence_level=[0.9, 0.95, 0.99])
    assert levels_ci.low.shape == (3,)
    assert np.all(np.diff(levels_ci.low) < 0) and np.all(np.diff(levels_ci.high) > 0)
    with pytest.raises(TableError, match="broadcast"):
        difference_interval([1, 2], [1, 2, 3], 0, 0)


def test_confidence_interval_object() -> None:
    ci = difference_interval(*T1)
    low, high = ci
    assert (low, high) == (ci.low, ci.high)
    assert str(ci) == "[0.0262, 0.1166]"
    assert ci.to_dict() == {"low": ci.low, "high": ci.high}
    with pytest.raises(dataclasses.FrozenInstanceError):
        ci.low = 0.0  # type: ignore[misc]
    # Subscripting is for type checkers; at run time it builds the same frozen object.
    assert ConfidenceInterval[float](0.25, 0.5) == ConfidenceInterval(0.25, 0.5)
    unbounded = odds_ratio_interval(4, 0)
    assert str(unbounded).endswith(", inf]")
    assert unbounded.to_dict()["high"] is None
    many = difference_interval([0, 157], [0, 17], [0, 3], [0, 23])
    as_dict = many.to_dict()
    assert as_dict["low"][0] is None and as_dict["low"][1] == pytest.approx(0.026236, abs=1e-6)
    json.dumps(as_dict, allow_nan=False)
    assert str(many) == "[[nan, nan], [0.0262, 0.1166]]"
    assert "..." in str(difference_interval(np.arange(30), 1, 1, 5))


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "valid"),
    [
        (lambda m: difference_interval(*T1, method=m), DIFFERENCE_METHODS),
        (lambda m: ratio_interval(*T1, method=m), RATIO_METHODS),
        (lambda m: odds_ratio_interval(17, 3, method=m), ODDS_RATIO_METHODS),
    ],
)
def test_unknown_method_is_named_echoed_and_the_valid_ones_listed(
    call: Any, valid: tuple[str, ...]
) -> None:
    with pytest.raises(McNemarError) as caught:
        call("newcombe_method10")
    message = str(caught.value)
    assert "method" in message and "'newcombe_method10'" in message
    assert all(f"'{name}'" in message for name in valid)
    with pytest.raises(McNemarError, match="method"):
        call(None)


@pytest.mark.parametrize(
    "level", [95, 0, 1, 1.0, -0.5, float("nan"), float("inf"), True, "0.95", [0.9, 1.5], 0.9j]
)
def test_bad_confidence_level(level: Any) -> None:
    for call in (
        lambda: difference_interval(*T1, confidence_level=level),
        lambda: ratio_interval(*T1, confidence_level=level),
        lambda: odds_ratio_interval(17, 3, confidence_level=level),
        lambda: wilson_interval(3, 10, level),
    ):
        with pytest.raises(McNemarError, match="confidence_level") as caught:
            call()
        shown = "1.5" if isinstance(level, list) else None
        if shown:
            assert shown in str(caught.value)


@pytest.mark.parametrize(
    ("cell", "value"), [("b", -1), ("c", 2.5), ("a", float("nan")), ("d", "many")]
)
def test_bad_counts_are_table_errors(cell: str, value: Any) -> None:
    table = dict(zip("abcd", T1, strict=True))
    table[cell] = value
    with pytest.raises(TableError, match=f"^{cell} must be"):
        difference_interval(table["a"], table["b"], table["c"], table["d"])
    with pytest.raises(TableError, match="x must not exceed n"):
        wilson_interval(5, 3)


def test_docstring_examples_run() -> None:
    # The package keeps its functions in submodules; testmod only runs a module's own objects.
    modules = [intervals] + [
        importlib.import_module(f"mcnemar.intervals.{info.name}")
        for info in pkgutil.iter_modules(intervals.__path__)
    ]
    attempted = failed = 0
    for module in modules:
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
        attempted += result.attempted
        failed += result.failed
    assert attempted >= 10
    assert failed == 0


def test_typed_signatures_leave_the_functions_as_they_are() -> None:
    # The overloads are a protocol for type checkers (intervals._api); at run time each
    # function keeps its own signature, docstring and doctests.
    import inspect

    from mcnemar.intervals import _api

    assert _api.table_interval(difference_interval) is difference_interval
    for f, default in [(difference_interval, "newcombe"), (ratio_interval, "tang")]:
        params = inspect.signature(f).parameters
        assert list(params) == ["a", "b", "c", "d", "confidence_level", "method"]
        assert params["method"].default == default
        assert params["confidence_level"].kind is inspect.Parameter.KEYWORD_ONLY
        assert f.__doc__ and ">>> print(" in f.__doc__
