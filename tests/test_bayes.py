"""The Bayesian summary: posterior probabilities of a real gain, median and credible interval.

References used: mpmath adaptive quadrature of the same one-dimensional integral written
independently (the Beta density of s times mpmath's regularised incomplete beta in theta);
closed forms for the uniform prior (the empty table: P(delta > r) = (1 - r)^3 / 2; rope = 0:
P(theta > 1/2) = I_{1/2}(c + 1, b + 1); symmetry when b = c); a seeded 10^6-draw Dirichlet
simulation (within 4.5 standard errors).
"""

from __future__ import annotations

import json
import math

import mpmath as mp
import numpy as np
import pytest

from mcnemar import McNemarError, PairedTable, analyze
from mcnemar.bayes import bayes

TABLES = [(157, 17, 3, 23), (10, 5, 5, 3), (0, 30, 10, 0), (900, 60, 40, 0),
          (5000, 150, 100, 4750), (3, 0, 7, 1)]


def mp_prob_above(a: int, b: int, c: int, d: int, r: float, k: float = 1.0) -> float:
    """P(delta > r) by mpmath quadrature over s, in 20 digits."""
    with mp.workdps(20):
        sa, sb, ta, tb = b + c + 2 * k, a + d + 2 * k, b + k, c + k
        norm = mp.beta(sa, sb)
        r_ = mp.mpf(r)

        def f(s: mp.mpf) -> mp.mpf:
            # P(theta > (1 + r/s)/2) for theta ~ Beta(ta, tb)
            x = (1 + r_ / s) / 2
            tail = mp.betainc(ta, tb, x, 1, regularized=True)
            return s ** (sa - 1) * (1 - s) ** (sb - 1) / norm * tail

        mode = (sa - 1) / (sa + sb - 2)
        sd = mp.sqrt(sa * sb / ((sa + sb) ** 2 * (sa + sb + 1)))
        cuts = sorted({r_, mp.mpf(1), *(min(1, max(r_, mode + j * sd))
                                        for j in (-10, -4, -2, -1, 0, 1, 2, 4, 10))})
        return float(mp.quad(f, cuts))


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("rope", [0.005, 0.02])
def test_probabilities_match_mpmath_quadrature(table: tuple[int, ...], rope: float) -> None:
    a, b, c, d = table
    res = bayes(PairedTable(a=a, b=b, c=c, d=d), rope=rope)
    above = mp_prob_above(a, b, c, d, rope)
    below = mp_prob_above(a, c, b, d, rope)  # P(delta < -r): exchange b and c
    assert res.prob_a_better == pytest.approx(above, abs=1e-10)
    assert res.prob_b_better == pytest.approx(below, abs=1e-10)
    assert res.prob_equivalent == pytest.approx(1 - above - below, abs=2e-10)
    assert res.prob_a_better + res.prob_equivalent + res.prob_b_better == pytest.approx(1.0)


def test_closed_forms_for_the_uniform_prior() -> None:
    # Empty table, Dirichlet(1,1,1,1): (p10, p01) has density 6(1 - x - y), so
    # P(p10 - p01 > r) = (1 - r)^3 / 2.
    empty = PairedTable(a=0, b=0, c=0, d=0)
    for r in (0.0, 0.005, 0.1, 0.5, 0.9):
        res = bayes(empty, rope=r)
        assert res.prob_a_better == pytest.approx((1 - r) ** 3 / 2, abs=1e-13)
        assert res.prob_b_better == pytest.approx((1 - r) ** 3 / 2, abs=1e-13)
    # Its quantiles solve (1 - x)^3 / 2 = tail: the 97.5% point is 1 - 0.05^(1/3).
    res = bayes(empty, rope=0.0)
    assert res.credible_interval.high == pytest.approx(1 - 0.05 ** (1 / 3), abs=1e-8)
    assert res.credible_interval.low == pytest.approx(-(1 - 0.05 ** (1 / 3)), abs=1e-8)
    assert res.median == pytest.approx(0.0, abs=1e-9)
    # rope = 0: P(delta > 0) = P(theta > 1/2) = I_{1/2}(c + 1, b + 1), whatever a and d.
    for a, b, c, d in [*TABLES, (0, 12, 4, 0), (0, 3, 9, 0)]:
        res = bayes(PairedTable(a=a, b=b, c=c, d=d), rope=0.0)
        want = float(mp.betainc(c + 1, b + 1, 0, 0.5, regularized=True))
        assert res.prob_a_better == pytest.approx(want, abs=1e-14)
        assert res.prob_equivalent == pytest.approx(0.0, abs=1e-14)


def test_symmetric_tables_give_symmetric_answers() -> None:
    for a, b, d in [(10, 5, 3), (0, 20, 0), (500, 37, 450), (0, 0, 7)]:
        res = bayes(PairedTable(a=a, b=b, c=b, d=d), rope=0.01)
        assert res.prob_a_better == pytest.approx(res.prob_b_better, abs=1e-14)
        assert res.median == pytest.approx(0.0, abs=1e-9)
        lo, hi = res.credible_interval
        assert lo == pytest.approx(-hi, abs=1e-8)
    # Exchanging b and c mirrors everything.
    r1 = bayes(PairedTable(a=40, b=12, c=5, d=9), rope=0.01)
    r2 = bayes(PairedTable(a=40, b=5, c=12, d=9), rope=0.01)
    assert r1.prob_a_better == pytest.approx(r2.prob_b_better, abs=1e-14)
    assert r1.median == pytest.approx(-r2.median, abs=1e-9)


def test_only_discordant_cells() -> None:
    # a = d = 0: s ~ Beta(D + 2, 2) with k = 1, the sums still hold against mpmath.
    res = bayes(PairedTable(a=0, b=9, c=2, d=0), rope=0.05)
    assert res.prob_a_better == pytest.approx(mp_prob_above(0, 9, 2, 0, 0.05), abs=1e-10)
    assert res.mean == pytest.approx((9 - 2) / (11 + 4), abs=1e-15)


@pytest.mark.parametrize("table", [(157, 17, 3, 23), (40, 9, 7, 4)])
def test_against_a_million_dirichlet_draws(table: tuple[int, ...]) -> None:
    draws = 1_000_000
    rng = np.random.default_rng(17)
    a, b, c, d = table
    g = rng.standard_gamma(np.array([a + 1, b + 1, c + 1, d + 1], dtype=float), size=(draws, 4))
    delta = (g[:, 1] - g[:, 2]) / g.sum(axis=1)
    rope = 0.01
    res = bayes(PairedTable(a=a, b=b, c=c, d=d), rope=rope)
    for got, hits in ((res.prob_a_better, delta > rope), (res.prob_b_better, delta < -rope),
                      (res.prob_equivalent, np.abs(delta) <= rope)):
        p = hits.mean()
        se = math.sqrt(max(p * (1 - p), 1e-12) / draws)
        assert abs(got - p) < 4.5 * se + 1e-6
    # Quantiles: the fraction of draws below each computed quantile is its level.
    for q, x in ((0.5, res.median), (0.025, res.credible_interval.low),
                 (0.975, res.credible_interval.high)):
        frac = (delta <= x).mean()
        assert abs(frac - q) < 4.5 * math.sqrt(q * (1 - q) / draws)
    assert res.mean == pytest.approx(delta.mean(), abs=4.5 * delta.std() / math.sqrt(draws))


def test_vectorized_over_tables_and_prior_argument() -> None:
    a = np.array([157, 10, 900])
    b = np.array([17, 5, 60])
    c = np.array([3, 5, 40])
    d = np.array([23, 3, 0])
    res = bayes(PairedTable(a=a, b=b, c=c, d=d), rope=0.005, prior=0.5)
    assert res.prob_a_better.shape == (3,)
    for i in range(3):
        one = bayes(PairedTable(a=int(a[i]), b=int(b[i]), c=int(c[i]), d=int(d[i])),
                    rope=0.005, prior=0.5)
        assert res.prob_a_better[i] == pytest.approx(one.prob_a_better, abs=1e-15)
        assert res.median[i] == pytest.approx(one.median, abs=1e-12)
        assert res.credible_interval.high[i] == pytest.approx(one.credible_interval.high,
                                                              abs=1e-12)
    # Four pseudo-counts: Dirichlet(a + 2, b + 1, c + 1, d + 2) equals the table with a + 1,
    # d + 1 under the uniform prior.
    r4 = bayes(PairedTable(a=20, b=6, c=2, d=5), prior=(2, 1, 1, 2))
    r1 = bayes(PairedTable(a=21, b=6, c=2, d=6))
    assert r4.prob_a_better == pytest.approx(r1.prob_a_better, abs=1e-14)
    assert "Bayesian summary of 3 tables" in res.text()


def test_bad_input_is_a_clear_error() -> None:
    with pytest.raises(McNemarError, match="needs all four cells"):
        bayes(PairedTable(b=3, c=1))
    with pytest.raises(McNemarError, match="rope"):
        bayes(PairedTable(1, 2, 3, 4), rope=-0.1)
    with pytest.raises(McNemarError, match="rope"):
        bayes(PairedTable(1, 2, 3, 4), rope=1.0)
    with pytest.raises(McNemarError, match="prior"):
        bayes(PairedTable(1, 2, 3, 4), prior=0)
    with pytest.raises(McNemarError, match="four values"):
        bayes(PairedTable(1, 2, 3, 4), prior=(1, 1, 1))
    with pytest.raises(McNemarError, match="credible_level"):
        bayes(PairedTable(1, 2, 3, 4), credible_level=1.0)


def test_report_section_text_and_schema() -> None:
    import jsonschema_rs

    from mcnemar.report import json_schema

    t = PairedTable(a=157, b=17, c=3, d=23)
    rep = analyze(t, names=("candidate", "baseline"), bayes=0.01)
    doc = rep.to_dict()
    json.dumps(doc, allow_nan=False)
    assert jsonschema_rs.validator_for(json_schema()).is_valid(doc)
    section = doc["bayes"]
    assert section["rope"] == 0.01
    res = bayes(t, rope=0.01)
    assert section["prob_a_better"] == res.prob_a_better
    text = str(rep)
    assert "How likely is a real gain (Bayesian):" in text
    flat = " ".join(text.split())
    assert (f"the probability that candidate is more accurate than baseline by more than 1 "
            f"point is {res.prob_a_better:.4f}") in flat
    assert f"+{100 * res.median:.2f} points" in flat
    assert "How likely is a real gain" in rep.to_markdown()
    assert "bayes" not in analyze(t).to_dict()
    assert analyze(t, bayes=res).bayes is res
    with pytest.raises(McNemarError, match="different table"):
        analyze(PairedTable(a=1, b=2, c=3, d=4), bayes=res)
    with pytest.raises(McNemarError, match="bayes must be"):
        analyze(t, bayes="yes")


def test_quantiles_on_a_tiny_scale() -> None:
    # Two billion items and 40 discordant: the posterior of delta has a standard deviation of
    # about 3e-9; the quantiles must resolve it (checked against 10^6 Dirichlet draws).
    a, b, c, d = 10**9, 30, 10, 10**9
    res = bayes(PairedTable(a=a, b=b, c=c, d=d))
    rng = np.random.default_rng(4)
    draws = 1_000_000
    g = rng.standard_gamma(np.array([a + 1, b + 1, c + 1, d + 1], dtype=float), size=(draws, 4))
    delta = (g[:, 1] - g[:, 2]) / g.sum(axis=1)
    for q, x in ((0.5, res.median), (0.025, res.credible_interval.low),
                 (0.975, res.credible_interval.high)):
        assert abs((delta <= x).mean() - q) < 4.5 * math.sqrt(q * (1 - q) / draws)
