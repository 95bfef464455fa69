"""The report's JSON is composed of its results' own to_dict(); the recommended interval; repr."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from mcnemar import McNemarError, PairedTable, analyze, clustered
from mcnemar.report._render import interval_label

_TEST_KEYS = ("name", "convention", "statistic", "pvalue", "log10_pvalue")


def _numbers(block: dict[str, Any]) -> dict[str, Any]:
    """A block without the texts the report adds to it (its numbers as the text prints them,
    ``*_text``; checked against the text report in test_web_format.py)."""
    return {k: v for k, v in block.items() if not k.endswith(("_text", "_texts"))}


def _psychiatry() -> np.ndarray:
    # Donner & Petryshen (1989), Eliasziw & Donner (1991): 29 clusters, b = 21, c = 50.
    data = json.loads((Path(__file__).parent / "data" / "clustered.json").read_text())
    return np.array(data["datasets"]["psychiatry"]["clusters"])


@st.composite
def _cases(draw: Any) -> tuple[PairedTable, dict[str, Any]]:
    kind = draw(st.sampled_from(["plain", "unknown_n", "clustered", "margin", "bayes"]))
    kw: dict[str, Any] = {
        "alternative": draw(st.sampled_from(["two-sided", "greater", "less"])),
        "confidence_level": draw(st.sampled_from([0.9, 0.95, 0.99])),
    }
    if kind == "clustered":
        rows = draw(
            st.lists(st.lists(st.integers(0, 6), min_size=4, max_size=4), min_size=2, max_size=10)
        )
        arr = np.array(rows) + np.array([1, 0, 0, 0])  # no empty cluster
        kw["clustered"] = clustered(arr)
        return PairedTable(*arr.sum(axis=0)), kw
    b, c = draw(st.integers(0, 300)), draw(st.integers(0, 300))
    if kind == "unknown_n":
        return PairedTable(b=b, c=c), kw
    table = PairedTable(a=draw(st.integers(0, 500)), b=b, c=c, d=draw(st.integers(0, 500)))
    if kind == "margin":
        kw["margin"] = draw(st.sampled_from([0.005, 0.02, 0.1]))
        kw["equivalence"] = draw(st.booleans())
    elif kind == "bayes":
        kw["bayes"] = True
    return table, kw


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_cases())
def test_blocks_are_the_results_own_to_dict(case: tuple[PairedTable, dict[str, Any]]) -> None:
    table, kw = case
    rep = analyze(table, **kw)
    d = rep.to_dict()
    json.dumps(d, allow_nan=False)
    for key, result in rep.tests.items():
        own = result.to_dict()
        assert _numbers(d["tests"][key]) == {
            **{k: own[k] for k in _TEST_KEYS},
            "recommended": key == rep.recommended,
        }
    for block, parts in (
        ("difference", rep.difference_intervals),
        ("ratio", rep.ratio_intervals),
        ("odds_ratio", rep.odds_ratio_intervals),
    ):
        # The interval's own to_dict(), plus the method's label and short label.
        shown = d[block]["intervals"]
        assert {k: {"low": v["low"], "high": v["high"]} for k, v in shown.items()} == {
            k: v.to_dict() for k, v in parts.items()
        }
        for key, entry in shown.items():
            assert set(entry) == {"low", "high", "label", "short"}
            assert entry["label"] and entry["short"] and len(entry["short"]) <= len(entry["label"])
            assert entry["label"] == interval_label(block, key) != key or block != "difference"
    if rep.clustered is not None:
        own = rep.clustered.to_dict(rep.confidence_level)
        assert d["clustered"] == own
        assert d["tests"]["clustered"]["statistic"] == own["statistic"]
        assert d["tests"]["clustered"]["name"] == own["name"]
        if own["confidence_interval"] is not None:
            assert own["confidence_interval"]["confidence_level"] == rep.confidence_level
    else:
        assert "clustered" not in d
    if rep.noninferiority is not None:
        ni = {k: v for k, v in _numbers(d["noninferiority"]).items() if k != "text"}
        assert ni == rep.noninferiority.to_dict()
        if rep.equivalence is not None:
            eq = {k: v for k, v in _numbers(d["equivalence"]).items() if k != "text"}
            assert eq == rep.equivalence.to_dict()
    if rep.bayes is not None:
        assert _numbers(d["bayes"]) == rep.bayes.to_dict()


def test_clustered_report_names_the_cluster_robust_interval() -> None:
    clusters = _psychiatry()
    result = clustered(clusters)
    rep = analyze(PairedTable(*clusters.sum(axis=0)), clustered=result)
    d = rep.to_dict()
    assert d["difference"]["recommended_interval"] == "clustered"
    assert rep.recommended_interval == "clustered"
    # The headline states the interval the JSON names: the cluster-robust one, in points
    # (B better, so the signs flip), not Newcombe's.
    ci = d["clustered"]["confidence_interval"]
    assert f"+{-100 * ci['high']:.1f} to +{-100 * ci['low']:.1f} points, cluster-robust" in (
        rep.conclusion.text
    )
    low, high = d["difference"]["interval_texts"]["newcombe"]
    assert f"{low} to {high}" not in rep.conclusion.text
    # Without clusters, or when the cluster-robust interval is undefined, it stays Newcombe's.
    plain = analyze(PairedTable(*clusters.sum(axis=0)))
    assert plain.to_dict()["difference"]["recommended_interval"] == "newcombe"
    # Cluster sizes unknown (b and c per cluster only): no difference, no cluster-robust interval.
    no_sizes = clustered(PairedTable(b=np.array([3, 0, 2]), c=np.array([0, 2, 1])))
    assert no_sizes.difference is None
    rep0 = analyze(PairedTable(b=5, c=3), clustered=no_sizes)
    assert rep0.recommended == "clustered"
    assert rep0.to_dict()["difference"]["recommended_interval"] == "newcombe"


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.integers(0, 8), min_size=4, max_size=4), min_size=2, max_size=12))
def test_clustered_one_sided_pvalue_is_the_signed_normal_tail(rows: list[list[int]]) -> None:
    # The statistic is z**2 with z > 0 when b > c (A better): one-sided p-values are normal
    # tails of the signed z (scipy.stats.norm), and the two-sided one is the chi-square tail.
    result = clustered(np.array(rows) + np.array([1, 0, 0, 0]))  # no empty cluster
    p2 = result.pvalue_for("two-sided")
    assert p2 == result.pvalue or (math.isnan(p2) and math.isnan(result.pvalue))
    stat = float(result.statistic)
    if not math.isfinite(stat):
        return
    z = math.copysign(math.sqrt(stat), result.b - result.c) if result.b != result.c else 0.0
    p = float(result.pvalue)
    # Where there is no evidence (b_k = c_k in every cluster) p = 1 whatever the statistic.
    if p == 1.0:
        z = 0.0
    assert result.pvalue_for("greater") == pytest.approx(stats.norm.sf(z), rel=1e-9, abs=1e-15)
    assert result.pvalue_for("less") == pytest.approx(stats.norm.cdf(z), rel=1e-9, abs=1e-15)


def test_clustered_pvalue_for_rejects_unknown_alternatives() -> None:
    with pytest.raises(McNemarError, match="alternative must be one of"):
        clustered(_psychiatry()).pvalue_for("bigger")


def test_repr_is_one_short_line() -> None:
    rep = analyze(PairedTable(a=157, b=17, c=3, d=23), names=("x", "y"))
    assert repr(rep) == (
        f"Report(A='x', B='y', b=17, c=3, n=200, pvalue={rep.pvalue:.4g}, recommended='exact')"
    )
    # exact two-sided p = 2 * P(X <= 3), X ~ Binomial(20, 1/2)
    assert f"pvalue={2 * stats.binom.cdf(3, 20, 0.5):.4g}" in repr(rep)
    assert "pvalue=0.002577" in repr(rep)
    assert len(repr(rep)) < 100
    unknown = analyze(PairedTable(b=17, c=3))
    assert "n=None" in repr(unknown)
    long_names = analyze(PairedTable(a=1, b=2, c=3, d=4), names=("a" * 500, "b" * 500))
    assert len(repr(long_names)) < 160 and "\n" not in repr(long_names)


def test_repr_keeps_an_underflowing_pvalue_readable() -> None:
    n = 10**12
    rep = analyze(PairedTable(a=n, b=n // 100, c=n // 50, d=n))
    assert rep.pvalue == 0.0
    assert f"log10_pvalue={rep.log10_pvalue:.4g}" in repr(rep)
    assert rep.log10_pvalue < -1e8


def test_clustered_report_repr_names_the_clustered_test() -> None:
    clusters = _psychiatry()
    rep = analyze(PairedTable(*clusters.sum(axis=0)), clustered=clustered(clusters))
    assert repr(rep).endswith(f"pvalue={rep.pvalue:.4g}, recommended='clustered')")
    assert "b=21, c=50" in repr(rep)
