"""Non-inferiority and equivalence with a margin: Tango's score test, its exact unconditional
version, planning, the report section and the CLI gates.

References checked against:
- Tango (1998)'s formula for Z, re-derived here in mpmath (60 digits) from the formula as
  printed (A = 2N, B = -b - c + (2N - b + c) d0, C = -c d0 (1 - d0));
- the duality with the project's Tango interval (every table of tests/data/published.csv and
  random tables, also as a hypothesis property), and published Tango intervals (Tango 1998's
  own example and four others, as encoded in the ratesci test-suite) with the verdicts either
  side of their lower limits;
- a direct, slow enumeration of every table with exact trinomial probabilities (mpmath) for
  the exact unconditional test, N <= 30;
- the exact size of the unconditional test (a property of Berger-Boos p-values);
- exact enumeration and seeded simulation for the power.
No published exact unconditional non-inferiority p-value could be obtained here to test
against (Sidik 2003 tabulates sizes and powers, not p-values of worked tables); the brute
force below is the reference.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import mpmath
import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mcnemar import McNemarError, PairedTable, analyze
from mcnemar.cli import main
from mcnemar.cli._common import ExitCode
from mcnemar.intervals import difference_interval
from mcnemar.margin import (
    GAMMA,
    boundary_tail,
    equivalence,
    noninferiority,
    score_statistic,
)

mpmath.mp.dps = 60
DATA = Path(__file__).parent / "data"


# -- Tango's statistic, independently --------------------------------------------------------
def tango_mp(b: int, c: int, n: int, delta0: float) -> mpmath.mpf:
    """Z(delta0) from the formula as printed, in 60-digit arithmetic."""
    b_, c_, n_, d0 = mpmath.mpf(b), mpmath.mpf(c), mpmath.mpf(n), mpmath.mpf(delta0)
    qa = 2 * n_
    qb = -b_ - c_ + (2 * n_ - b_ + c_) * d0
    qc = -c_ * d0 * (1 - d0)
    p = (mpmath.sqrt(qb**2 - 4 * qa * qc) - qb) / (2 * qa)
    return (b_ - c_ - n_ * d0) / mpmath.sqrt(n_ * (2 * p + d0 * (1 - d0)))


TABLES = [(157, 17, 3, 23), (1, 1, 7, 12), (59, 6, 16, 80), (1800, 52, 47, 101),
          (0, 0, 0, 5), (0, 9, 0, 0), (0, 0, 9, 0), (3, 0, 1, 0), (10**6, 4000, 4100, 10**5)]


@pytest.mark.parametrize("cells", TABLES)
@pytest.mark.parametrize("margin", [0.001, 0.01, 0.1, 0.4])
def test_score_statistic_and_pvalue_match_mpmath(cells: tuple[int, ...], margin: float) -> None:
    a, b, c, d = cells
    n = a + b + c + d
    z = tango_mp(b, c, n, -margin)
    r = noninferiority([[a, b], [c, d]], margin)
    assert r.statistic == pytest.approx(float(z), rel=1e-10, abs=1e-12)
    assert r.pvalue == pytest.approx(float(mpmath.ncdf(-z)), rel=1e-9, abs=1e-300)
    e = equivalence([[a, b], [c, d]], margin)
    z_up = tango_mp(b, c, n, margin)
    assert e.statistic_upper == pytest.approx(float(z_up), rel=1e-10, abs=1e-12)
    assert e.pvalue_upper == pytest.approx(float(mpmath.ncdf(z_up)), rel=1e-9, abs=1e-300)


def test_at_zero_margin_the_statistic_is_mcnemars_z() -> None:
    b = np.array([17, 6, 40])
    c = np.array([3, 16, 40])
    n = b + c + 100
    z = score_statistic(b, c, n, 0.0)
    assert np.allclose(z, (b - c) / np.sqrt(b + c), rtol=1e-12)


# -- duality with the Tango interval ----------------------------------------------------------
def published_tables() -> list[tuple[int, int, int, int]]:
    with open(DATA / "published.csv", newline="") as f:
        rows = {tuple(int(r[k]) for k in "abcd") for r in csv.DictReader(f)}
    return sorted(t for t in rows if sum(t) > 0)


def _check_duality(a, b, c, d, margins, alpha):  # type: ignore[no-untyped-def]
    ci = difference_interval(a, b, c, d, confidence_level=1 - 2 * alpha, method="tango")
    checked = 0
    for margin in margins:
        r = noninferiority(PairedTable(a=a, b=b, c=c, d=d), margin, alpha=alpha)
        e = equivalence(PairedTable(a=a, b=b, c=c, d=d), margin, alpha=alpha)
        low, high = np.asarray(ci.low), np.asarray(ci.high)
        # Limits within root-finding tolerance of the margin are not decidable by the interval.
        clear = (np.abs(low + margin) > 1e-9) & (np.abs(high - margin) > 1e-9)
        assert np.array_equal(np.asarray(r.noninferior)[clear], (low > -margin)[clear])
        inside = (low > -margin) & (high < margin)
        assert np.array_equal(np.asarray(e.equivalent)[clear], inside[clear])
        checked += int(clear.sum())
    return checked


@pytest.mark.parametrize("alpha", [0.025, 0.05, 0.1])
def test_duality_on_every_published_table(alpha: float) -> None:
    tables = np.array(published_tables())
    a, b, c, d = tables.T
    margins = [0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.9]
    # and margins just either side of each table's own lower limit
    ci = difference_interval(a, b, c, d, confidence_level=1 - 2 * alpha, method="tango")
    for low in np.asarray(ci.low):
        if -1 < low < 0:
            margins += [-low * (1 + 1e-6), -low * (1 - 1e-6)]
    assert _check_duality(a, b, c, d, margins, alpha) > 500


def test_duality_on_random_tables() -> None:
    rng = np.random.default_rng(11)
    size = 3000
    n = rng.integers(1, 5000, size)
    p = rng.dirichlet([5, 1, 1, 2], size)
    counts = np.array([rng.multinomial(k, q) for k, q in zip(n, p, strict=True)])
    a, b, c, d = counts.T
    margins = [0.003, 0.01, 0.03, 0.1, 0.25]
    assert _check_duality(a, b, c, d, margins, 0.05) > 0.99 * size * len(margins)


# -- equivalence is two one-sided tests ---------------------------------------------------------
@pytest.mark.parametrize("method", ["score", "unconditional"])
def test_equivalence_is_the_larger_of_two_noninferiority_tests(method: str) -> None:
    for a, b, c, d in [(20, 5, 3, 2), (10, 1, 6, 3), (0, 4, 4, 0), (25, 0, 0, 5)]:
        e = equivalence([[a, b], [c, d]], 0.1, method=method)
        lower = noninferiority([[a, b], [c, d]], 0.1, method=method)
        upper = noninferiority([[a, c], [b, d]], 0.1, method=method)  # B against A
        assert e.pvalue_lower == lower.pvalue
        assert e.pvalue_upper == pytest.approx(upper.pvalue, rel=1e-14)
        assert e.pvalue == max(lower.pvalue, upper.pvalue)
        assert e.equivalent == (lower.noninferior and upper.noninferior)


# -- the exact unconditional test against brute force ----------------------------------------
def brute_tail(b: int, c: int, n: int, margin: float, psi: mpmath.mpf) -> mpmath.mpf:
    """Sum of trinomial probabilities of every table with Z >= Z_obs, boundary delta = -margin."""
    z_obs = tango_mp(b, c, n, -margin)
    p10, p01 = (psi - margin) / 2, (psi + margin) / 2
    total = mpmath.mpf(0)
    for x in range(n + 1):
        for y in range(n + 1 - x):
            if tango_mp(x, y, n, -margin) >= z_obs - mpmath.mpf(10) ** -40:
                coef = mpmath.factorial(n) / (
                    mpmath.factorial(x) * mpmath.factorial(y) * mpmath.factorial(n - x - y)
                )
                total += coef * p10**x * p01**y * (1 - psi) ** (n - x - y)
    return total


BRUTE = [(9, 1, 20, 0.1), (3, 5, 12, 0.05), (0, 0, 15, 0.1), (2, 9, 30, 0.2), (7, 7, 25, 0.03),
         (0, 6, 8, 0.25), (11, 2, 14, 0.5)]


@pytest.mark.parametrize(("b", "c", "n", "margin"), BRUTE)
def test_unconditional_tail_matches_enumeration(b: int, c: int, n: int, margin: float) -> None:
    psis = [margin, margin + 0.01, 0.3, 0.55, 0.8, 0.999]
    psis = [p for p in psis if margin <= p <= 1]
    got = boundary_tail(b, c, n, margin, psis)
    for psi, value in zip(psis, got, strict=True):
        want = brute_tail(b, c, n, margin, mpmath.mpf(psi))
        assert value == pytest.approx(float(want), rel=1e-10, abs=1e-14)


@pytest.mark.parametrize(("b", "c", "n", "margin"), BRUTE[:4])
def test_unconditional_pvalue_is_the_maximum_over_the_berger_boos_set(
    b: int, c: int, n: int, margin: float
) -> None:
    from scipy import special

    d = b + c
    low = 0.0 if d == 0 else float(special.betaincinv(d, n - d + 1, GAMMA / 2))
    high = 1.0 if d == n else float(special.betaincinv(d + 1, n - d, 1 - GAMMA / 2))
    grid = np.linspace(max(low, margin), high, 20001)
    fine = float(np.max(boundary_tail(b, c, n, margin, grid))) + GAMMA
    got = noninferiority([[n - d, b], [c, 0]], margin, method="unconditional").pvalue
    assert fine - 1e-12 <= got <= fine + 1e-7
    # the maximum itself, by enumeration at the best grid point
    best = grid[int(np.argmax(boundary_tail(b, c, n, margin, grid)))]
    assert got >= float(brute_tail(b, c, n, margin, mpmath.mpf(best))) + GAMMA - 1e-12


def test_the_boundary_is_the_worst_case_of_the_null() -> None:
    # Sup of the tail over the interior of H0 (delta < -margin) does not exceed the boundary's.
    b, c, n, margin = 4, 2, 12, 0.1
    z_obs = tango_mp(b, c, n, -margin)
    region = [(x, y) for x in range(n + 1) for y in range(n + 1 - x)
              if tango_mp(x, y, n, -margin) >= z_obs - mpmath.mpf(10) ** -40]
    xs = np.array([x for x, _ in region], dtype=float)
    ys = np.array([y for _, y in region], dtype=float)
    from scipy import special

    logc = special.gammaln(n + 1) - special.gammaln(xs + 1) - special.gammaln(ys + 1) \
        - special.gammaln(n - xs - ys + 1)
    worst_interior = 0.0
    for p10 in np.linspace(0, (1 - margin) / 2, 46):
        for p01 in np.linspace(p10 + margin, 1 - p10, 40):  # delta = p10 - p01 <= -margin
            tail = np.exp(logc + special.xlogy(xs, p10) + special.xlogy(ys, p01)
                          + special.xlogy(n - xs - ys, 1 - p10 - p01)).sum()
            worst_interior = max(worst_interior, tail)
    boundary = float(np.max(boundary_tail(b, c, n, margin, np.linspace(margin, 1, 4001))))
    assert worst_interior <= boundary + 1e-9


def test_unconditional_test_has_exact_size_at_most_alpha() -> None:
    n, margin, alpha = 15, 0.1, 0.05
    cells = [(x, y) for x in range(n + 1) for y in range(n + 1 - x)]
    table = np.array([[[n - x - y, x], [y, 0]] for x, y in cells])
    p = np.asarray(noninferiority(table, margin, method="unconditional").pvalue)
    reject = np.array(cells)[p < alpha]
    assert len(reject) > 0
    from scipy import special

    x, y = reject[:, 0].astype(float), reject[:, 1].astype(float)
    logc = special.gammaln(n + 1) - special.gammaln(x + 1) - special.gammaln(y + 1) \
        - special.gammaln(n - x - y + 1)
    sizes = [
        np.exp(logc + special.xlogy(x, (s - margin) / 2) + special.xlogy(y, (s + margin) / 2)
               + special.xlogy(n - x - y, 1 - s)).sum()
        for s in np.linspace(margin, 1, 901)
    ]
    assert max(sizes) <= alpha
    # the score test at this size is not so careful, which is why the exact version exists
    p_score = np.asarray(noninferiority(table, margin).pvalue)
    assert (p_score < alpha).sum() >= len(reject)


def test_unconditional_agrees_with_score_for_large_n() -> None:
    t = [[1800, 52], [47, 101]]
    exact = noninferiority(t, 0.01, method="unconditional").pvalue
    score = noninferiority(t, 0.01).pvalue
    assert abs(exact - score) < 0.1 * score


def test_unconditional_vectorizes_over_distinct_tables() -> None:
    tables = np.array([[[10, 9], [1, 0]], [[5, 1], [2, 12]], [[10, 9], [1, 0]]])
    r = noninferiority(tables, 0.1, method="unconditional")
    one = [noninferiority(t, 0.1, method="unconditional").pvalue for t in tables]
    assert np.allclose(r.pvalue, one, rtol=0, atol=0)
    assert r.pvalue[0] == r.pvalue[2]


# -- results -----------------------------------------------------------------------------------
def test_result_objects() -> None:
    r = noninferiority([[1800, 52], [47, 101]], 0.01)
    assert r.confidence_level == pytest.approx(0.9)
    ci = r.confidence_interval()
    assert tuple(ci) == tuple(difference_interval(1800, 52, 47, 101, confidence_level=0.9,
                                                  method="tango"))
    d = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    assert d["noninferior"] is True and d["margin"] == 0.01
    assert "non-inferior by the 1-point margin" in str(r)
    e = equivalence([[1800, 52], [47, 101]], 0.01)
    assert "equivalence not shown" in str(e)
    json.dumps(e.to_dict(), allow_nan=False)
    many = noninferiority(np.array([[[1800, 52], [47, 101]], [[0, 0], [0, 0]]]), 0.01)
    assert many.pvalue.shape == (2,) and many.pvalue[1] == 1.0 and np.isnan(many.statistic[1])
    assert json.dumps(many.to_dict(), allow_nan=False)
    assert "1 of 2 tables" in str(many)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"margin": 1}, "write 0.01 for 1 point"),
        ({"margin": 0}, "strictly between 0 and 1"),
        ({"margin": "0.01"}, "margin must be a number"),
        ({"margin": 0.01, "alpha": 0.5}, "alpha must be strictly between 0 and 0.5"),
        ({"margin": 0.01, "method": "exact"}, "method must be one of 'score', 'unconditional'"),
    ],
)
def test_bad_arguments(kwargs: dict, message: str) -> None:
    with pytest.raises(McNemarError, match=message):
        noninferiority([[5, 1], [2, 3]], **kwargs)


def test_needs_n() -> None:
    with pytest.raises(McNemarError, match="needs N"):
        noninferiority(PairedTable(b=3, c=4), 0.01)


def test_unconditional_size_limit() -> None:
    with pytest.raises(McNemarError, match="use method='score'"):
        noninferiority([[6000, 1], [1, 0]], 0.01, method="unconditional")


# -- planning ----------------------------------------------------------------------------------
def test_exact_power_matches_enumeration_of_every_table() -> None:
    from scipy import special

    from mcnemar.margin_planning import power

    for n, p10, p01, margin in [(30, 0.2, 0.1, 0.1), (40, 0.05, 0.08, 0.05), (25, 0.3, 0.3, 0.2)]:
        cells = [(x, y) for x in range(n + 1) for y in range(n + 1 - x)]
        x = np.array([c[0] for c in cells], dtype=float)
        y = np.array([c[1] for c in cells], dtype=float)
        table = np.stack([n - x - y, x, y, 0 * x], axis=1).astype(int).reshape(-1, 2, 2)
        reject = np.asarray(noninferiority(table, margin).pvalue) < 0.05
        logp = (special.gammaln(n + 1) - special.gammaln(x + 1) - special.gammaln(y + 1)
                - special.gammaln(n - x - y + 1) + special.xlogy(x, p10) + special.xlogy(y, p01)
                + special.xlogy(n - x - y, 1 - p10 - p01))
        want = float(np.exp(logp)[reject].sum())
        assert power(n, p10, p01, margin=margin).power == pytest.approx(want, abs=1e-12)


def test_exact_power_to_full_precision_against_mpmath() -> None:
    """Large n: the sum over m with 60-digit binomial weights and tails (the thresholds t(m)
    are the function's own, checked above by enumeration) agrees to ~1e-14 relative."""
    from scipy import special

    from mcnemar.margin import _thresholds
    from mcnemar.margin_planning import power

    for n, p10, p01, margin in [(2000, 0.05, 0.05, 0.01), (500, 0.105, 0.095, 0.01)]:
        psi, theta = mpmath.mpf(p10) + mpmath.mpf(p01), mpmath.mpf(p10) / (
            mpmath.mpf(p10) + mpmath.mpf(p01))
        cut = float(np.nextafter(special.ndtri(0.95), np.inf))
        m = np.arange(n + 1, dtype=float)
        t = _thresholds(m, float(n), margin, cut).astype(int)
        want = mpmath.mpf(0)
        for mi, ti in zip(range(n + 1), t, strict=True):
            weight = mpmath.binomial(n, mi) * psi**mi * (1 - psi) ** (n - mi)
            if weight < mpmath.mpf(10) ** -25 or ti > mi:
                continue
            tail = 1 if ti <= 0 else mpmath.betainc(ti, mi - ti + 1, 0, theta, regularized=True)
            want += weight * tail
        got = power(n, p10, p01, margin=margin).power
        assert got == pytest.approx(float(want), rel=1e-14, abs=0)


def test_exact_power_matches_simulation() -> None:
    from mcnemar.margin_planning import power

    rng = np.random.default_rng(2024)
    n, p10, p01, margin, reps = 600, 0.06, 0.07, 0.02, 20000
    counts = rng.multinomial(n, [p10, p01, 1 - p10 - p01], size=reps)
    tables = np.stack([counts[:, 2], counts[:, 0], counts[:, 1], 0 * counts[:, 0]], axis=1)
    rate = float(np.mean(np.asarray(noninferiority(tables.reshape(-1, 2, 2), margin).pvalue)
                         < 0.05))
    exact = power(n, p10, p01, margin=margin).power
    se = math.sqrt(exact * (1 - exact) / reps)
    assert abs(rate - exact) < 4 * se


def test_normal_approximation_against_exact_and_connor() -> None:
    from mcnemar.margin_planning import power
    from mcnemar.planning import _connor_power

    r = power([500, 2000, 8000], difference=0.0, discordance=0.1, margin=0.01)
    assert np.max(np.abs(r.power - r.power_approx)) < 0.01
    # margin -> 0: Connor's one-sided formula
    tiny = power(800, 0.08, 0.05, margin=1e-12, method="connor").power
    connor = _connor_power(np.array([800.0]), np.array([0.08]), np.array([0.05]), 0.05, "greater")
    assert tiny == pytest.approx(float(connor[0]), rel=1e-8)


def test_sample_size_and_delegation() -> None:
    from mcnemar import planning

    r = planning.sample_size(difference=0.05, discordance=0.3, margin=0.05, power=0.9)
    pw = planning.power([r.n, r.n_first, r.n_first - 1], difference=0.05, discordance=0.3,
                        margin=0.05).power
    assert pw[0] >= 0.9 and pw[1] >= 0.9 and pw[2] < 0.9
    assert r.n_first <= r.n <= r.n_checked
    assert abs(r.n - r.n_approx) < 0.05 * r.n
    assert all(planning.power(k, difference=0.05, discordance=0.3, margin=0.05).power >= 0.9
               for k in range(r.n, min(r.n + 15, r.n_checked) + 1))
    approx = planning.sample_size(difference=0.05, discordance=0.3, margin=0.05, power=0.9,
                                  method="connor")
    assert approx.n == math.ceil(approx.n_approx)
    with pytest.raises(McNemarError, match="non-inferiority is false"):
        planning.sample_size(difference=-0.02, discordance=0.3, margin=0.01)
    with pytest.raises(McNemarError, match="one-sided"):
        planning.power(100, difference=0.0, discordance=0.3, margin=0.01, alternative="less")
    json.dumps(r.to_dict(), allow_nan=False)
    assert "normal approximation" in str(r)
    # mcnemar.margin_planning's functions are planning's with the margin required: the same
    # results, and no margin is an error, not the test without a margin.
    from mcnemar import margin_planning

    assert margin_planning.sample_size(difference=0.05, discordance=0.3, margin=0.05,
                                       power=0.9) == r
    assert margin_planning.power(r.n, difference=0.05, discordance=0.3, margin=0.05).power \
        == pytest.approx(float(pw[0]), abs=0)
    for call in (lambda: margin_planning.power(100, 0.2, 0.1, margin=None),
                 lambda: margin_planning.sample_size(0.2, 0.1, margin=None)):
        with pytest.raises(McNemarError, match="margin must be a number"):
            call()


# -- report and CLI ----------------------------------------------------------------------------
def test_report_section_and_schema() -> None:
    import jsonschema_rs

    from mcnemar.report import json_schema

    rep = analyze([[1800, 52], [47, 101]], names=("distilled", "original"), margin=0.01,
                  equivalence=True)
    text = rep.conclusion.text
    assert "distilled is non-inferior to original by the 1-point margin" in text
    assert "[-0.58, +1.08] points, lies above -1 point" in text
    assert "Equivalence within 1 point not shown" in text
    doc = rep.to_dict()
    assert doc["noninferiority"]["noninferior"] is True
    assert doc["equivalence"]["equivalent"] is False
    validator = jsonschema_rs.validator_for(json_schema())
    assert [e.message for e in validator.iter_errors(doc)] == []
    bad = json.loads(json.dumps(doc))
    bad["noninferiority"]["pvalue"] = "small"
    assert not validator.is_valid(bad)
    assert "Against a margin of 1 point" in str(rep)
    assert "**Against a margin of 1 point**" in rep.to_markdown()
    worse = analyze([[1800, 40], [60, 100]], margin=0.01)
    assert "Non-inferiority not shown for the 1-point margin" in worse.conclusion.text
    assert "reaches below -1 point" in worse.conclusion.text
    assert "noninferiority" not in analyze([[1800, 40], [60, 100]]).to_dict()


def test_report_sentence_never_contradicts_its_interval() -> None:
    import re

    # Tables whose lower limit falls closest to the margin, on either side: the limits are shown
    # with as many decimals as it takes to keep them on their side of -1 point.
    lows = {c: float(difference_interval(9000, 300, c, 700, confidence_level=0.9,
                                         method="tango").low) for c in range(300, 420)}
    closest = sorted(lows, key=lambda c: abs(lows[c] + 0.01))[:4]
    assert {lows[c] > -0.01 for c in closest} == {True, False}
    for c in closest:
        rep = analyze([[9000, 300], [c, 700]], margin=0.01)
        ni = rep.noninferiority
        assert (lows[c] > -0.01) == ni.noninferior
        found = re.search(r"Tango interval for A - B, \[([-+0-9.]+),", rep.conclusion.text)
        assert found is not None
        shown = float(found.group(1))
        assert shown != -1.0
        assert (shown > -1.0) == ni.noninferior


def cli(*args: str) -> object:
    return CliRunner().invoke(main, list(args))


def test_cli_test_fail_on_inferior() -> None:
    ok = cli("test", "--a", "1800", "--b", "52", "--c", "47", "--d", "101", "--margin", "0.01",
             "--fail-on", "inferior")
    assert ok.exit_code == 0, ok.output
    assert "non-inferior to B by the 1-point margin" in ok.output
    bad = cli("test", "--a", "1800", "--b", "40", "--c", "60", "--d", "100", "--margin", "0.01",
              "--fail-on", "inferior", "--format", "json")
    assert bad.exit_code == ExitCode.INFERIOR == 5
    assert json.loads(bad.stdout)["noninferiority"]["noninferior"] is False
    assert "--fail-on inferior" in bad.stderr
    for args, message in [
        (("--margin", "1"), "write 0.01 for 1 point"),
        (("--fail-on", "inferior"), "needs --margin"),
        (("--equivalence",), "needs a margin"),
    ]:
        r = cli("test", "--a", "5", "--b", "1", "--c", "2", "--d", "3", *args)
        assert r.exit_code == ExitCode.BAD_INPUT
        assert message in r.stderr and r.stderr.count("\n") == 1
    assert "5 with --fail-on inferior" in cli("test", "--help").output


def test_cli_compare_fail_on_inferior(tmp_path: Path) -> None:
    def write(name: str, values: list[int]) -> Path:
        path = tmp_path / name
        path.write_text("id,correct\n" + "".join(f"q{i},{v}\n" for i, v in enumerate(values)))
        return path

    base = [1] * 1800 + [0] * 52 + [1] * 47 + [0] * 101
    good = [1] * 1800 + [1] * 52 + [0] * 47 + [0] * 101
    worse = [1] * 1800 + [1] * 30 + [0] * 69 + [0] * 101
    original = write("original.csv", base)
    ok = cli("compare", str(write("good.csv", good)), str(original), "--margin", "0.01",
             "--fail-on", "inferior", "--equivalence")
    assert ok.exit_code == 0, ok.output
    assert "Equivalence within 1 point not shown" in " ".join(ok.output.split())
    r = cli("compare", str(write("worse.csv", worse)), str(original), "--margin", "0.01",
            "--fail-on", "inferior")
    assert r.exit_code == ExitCode.INFERIOR
    assert "Non-inferiority not shown" in " ".join(r.output.split())
    r = cli("compare", str(original), str(original), "--fail-on", "inferior")
    assert r.exit_code == ExitCode.BAD_INPUT and "needs --margin" in r.stderr
    assert "5 with --fail-on inferior" in cli("compare", "--help").output


def test_cli_power_margin() -> None:
    r = cli("power", "--n", "2000", "--difference", "0", "--discordance", "0.1", "--margin",
            "0.01", "--format", "json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["margin"] == 0.01 and 0.3 < d["power"] < 0.5
    r = cli("power", "--mde", "--n", "500", "--discordance", "0.1", "--margin", "0.01")
    assert r.exit_code == ExitCode.BAD_INPUT


def test_package_exports_stay_functions_after_the_module_is_imported() -> None:
    import mcnemar
    import mcnemar.margin  # the report imports it too

    assert callable(mcnemar.noninferiority) and callable(mcnemar.equivalence)
    assert mcnemar.noninferiority([[5, 1], [2, 3]], 0.1).margin == 0.1


@settings(max_examples=150, deadline=None)
@given(
    a=st.integers(0, 60), b=st.integers(0, 60), c=st.integers(0, 60), d=st.integers(0, 60),
    margin=st.floats(0.0005, 0.999), alpha=st.sampled_from([0.01, 0.025, 0.05, 0.2]),
)
def test_duality_property(a: int, b: int, c: int, d: int, margin: float, alpha: float) -> None:
    if a + b + c + d == 0:
        return
    ci = difference_interval(a, b, c, d, confidence_level=1 - 2 * alpha, method="tango")
    assume(abs(ci.low + margin) > 1e-9 and abs(ci.high - margin) > 1e-9)
    r = noninferiority([[a, b], [c, d]], margin, alpha=alpha)
    assert r.noninferior == (ci.low > -margin)
    e = equivalence([[a, b], [c, d]], margin, alpha=alpha)
    assert e.equivalent == (ci.low > -margin and ci.high < margin)


def test_clustered_items_get_a_warning_with_a_margin() -> None:
    from mcnemar.clustering import clustered_from_outcomes

    rng = np.random.default_rng(3)
    clusters = np.repeat(np.arange(40), 10)
    ya = rng.random(400) < 0.8
    yb = rng.random(400) < 0.8
    cl = clustered_from_outcomes(ya, yb, clusters)
    rep = analyze(PairedTable.from_outcomes(ya, yb), clustered=cl, margin=0.05)
    assert any("treats the items as independent" in w for w in rep.warnings)


# Tango's score intervals as published (Tango 1998's example with an off-diagonal zero, at 90%;
# Agresti & Min 2005; Fagerland et al. 2014; Chang 2024; Tang et al. 2010), as encoded in the
# test-suite of the R package ratesci (petelaud/ratesci, tests/testthat/test3.R, pairbinci
# with skew = FALSE, bcf = FALSE); a, b, c, d, level, low, high to 3 or 4 decimals.
PUBLISHED_TANGO = [
    ((43, 0, 1, 0), 0.90, -0.096, 0.037, 3),
    ((4, 9, 3, 16), 0.95, -0.027, 0.390, 3),
    ((53, 16, 8, 9), 0.95, -0.020, 0.207, 3),
    ((1, 1, 7, 12), 0.95, -0.517, -0.026, 3),
    ((7, 25, 2, 68), 0.95, 0.139, 0.321, 3),
    ((8, 3, 1, 2), 0.95, -0.1670, 0.4327, 4),
]


@pytest.mark.parametrize(("cells", "level", "low", "high", "digits"), PUBLISHED_TANGO)
def test_published_tango_intervals_and_the_matching_noninferiority_verdicts(
    cells: tuple[int, int, int, int], level: float, low: float, high: float, digits: int
) -> None:
    a, b, c, d = cells
    alpha = (1 - level) / 2
    r = noninferiority([[a, b], [c, d]], 0.5, alpha=alpha)
    ci = r.confidence_interval()
    assert (round(ci.low, digits), round(ci.high, digits)) == (low, high)
    # -margin on either side of the published lower limit (half a unit of its last digit away):
    # shown when -margin lies below the limit, not shown when above it
    step = 0.5 * 10.0**-digits
    if -1 < low - step < 0:
        assert noninferiority([[a, b], [c, d]], -(low - step), alpha=alpha).noninferior is True
    if -1 < low + step < 0:
        assert noninferiority([[a, b], [c, d]], -(low + step), alpha=alpha).noninferior is False


def test_tango_example_with_a_ten_point_margin() -> None:
    # 44 pairs, one discordant (Tango 1998): the 90% interval [-0.0957, 0.0365] lies above
    # -0.1, so non-inferiority with a 10-point margin is shown at alpha = 0.05; not at 9 points.
    assert noninferiority([[43, 0], [1, 0]], 0.10).noninferior is True
    assert noninferiority([[43, 0], [1, 0]], 0.09).noninferior is False


def test_log10_pvalue_where_the_pvalue_underflows() -> None:
    cells = [[10**9, 3 * 10**7], [10**7, 10**8]]
    r = noninferiority(cells, 0.01)
    z = tango_mp(3 * 10**7, 10**7, 10**9 + 4 * 10**7 + 10**8, -0.01)
    assert r.pvalue == 0.0
    assert r.log10_pvalue == pytest.approx(float(mpmath.log10(mpmath.ncdf(-z))), rel=1e-10)
    assert "e-" in str(r) and "p = 0 " not in str(r)
    e = equivalence(cells, 0.01)
    assert e.log10_pvalue == max(e.log10_pvalue_lower, e.log10_pvalue_upper)


def test_no_items() -> None:
    rep = analyze(PairedTable(a=0, b=0, c=0, d=0), margin=0.01, equivalence=True)
    assert "there are no items to test" in rep.conclusion.text
    assert "nan" not in str(rep).lower()
    import jsonschema_rs

    from mcnemar.report import json_schema

    doc = json.loads(json.dumps(rep.to_dict(), allow_nan=False))
    assert jsonschema_rs.validator_for(json_schema()).is_valid(doc)
    assert doc["noninferiority"]["pvalue"] == 1.0 and doc["noninferiority"]["statistic"] is None
