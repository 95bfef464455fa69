"""Tests for mcnemar.clustering: clustered McNemar tests and the cluster-robust interval.

Reference values: tests/data/clustered.json (see docs/references.md, 'Clustered items'): the
thyroids data of Obuchowski (1998) and the psychiatry data of Donner & Petryshen (1989), with
the statistics published by Obuchowski (1998), Durkalski et al. (2003), Yang, Sun & Hardin
(2010) and Eliasziw & Donner (1991) as collected in the R package clust.bin.pair's tests.
Independent checks: statsmodels' cluster-robust OLS, closed forms for clusters of one item, a
step-by-step transcription of the Eliasziw-Donner recipe, and a seeded simulation under H0.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from mcnemar.clustering import (
    CLUSTERED_METHODS,
    cluster_counts,
    clustered,
    clustered_from_outcomes,
)
from mcnemar.errors import McNemarError, McNemarWarning, TableError

DATA = json.loads((Path(__file__).parent / "data" / "clustered.json").read_text())
PUBLISHED_DIGITS = {  # decimals to which each published statistic was printed
    ("thyroids", "obuchowski"): 2, ("thyroids", "durkalski"): 2, ("thyroids", "yang"): 2,
    ("thyroids", "eliasziw-donner"): 2, ("psychiatry", "obuchowski"): 2,
    ("psychiatry", "durkalski"): 3, ("psychiatry", "yang"): 2,
    ("psychiatry", "eliasziw-donner"): 2,
}


@pytest.mark.parametrize(("dataset", "method"), sorted(PUBLISHED_DIGITS))
def test_published_statistics(dataset: str, method: str) -> None:
    # thyroids: Obuchowski 2.86 (as reported by Durkalski et al. 2003), Durkalski 2.32,
    # Yang 3.13, Eliasziw-Donner 3.66; psychiatry: 7.19, 7.542, 8.43, 10.23
    ds = DATA["datasets"][dataset]
    res = clustered(ds["clusters"], method=method)
    published = ds["published"][method.replace("-", "_")]
    assert round(res.statistic, PUBLISHED_DIGITS[dataset, method]) == published
    assert res.pvalue == pytest.approx(math.erfc(math.sqrt(res.statistic / 2)), rel=1e-12)


@pytest.mark.parametrize("dataset", ["thyroids", "psychiatry"])
def test_published_unclustered_mcnemar(dataset: str) -> None:
    # Durkalski et al. (2003): 4.5 (thyroids) and 11.8451 (psychiatry)
    ds = DATA["datasets"][dataset]
    res = clustered(ds["clusters"])
    assert round(res.mcnemar_statistic, 4) == ds["published"]["mcnemar"]
    counts = np.array(ds["clusters"])
    assert res.clusters == counts.shape[0]
    assert res.n == counts.sum()
    assert (res.b, res.c) == tuple(counts[:, 1:3].sum(axis=0))


def test_thyroids_totals_from_references() -> None:
    # docs/references.md, 'Clustered items': K = 21, N = 51, sum (a, b, c, d) = (39, 1, 7, 4)
    counts = np.array(DATA["datasets"]["thyroids"]["clusters"])
    assert counts.shape[0] == 21
    assert counts.sum(axis=0).tolist() == [39, 1, 7, 4]


def _eliasziw_steps(x: np.ndarray) -> float:
    """The Eliasziw-Donner recipe transcribed step by step (docs/references.md)."""
    a, b, c, d = (x[:, i].astype(float) for i in range(4))
    n = a + b + c + d
    s = b + c
    kd = np.sum(s >= 1)
    k = n.size
    n_bar = n.mean()
    n0 = n_bar - np.sum((n - n_bar) ** 2) / (k * (k - 1) * n_bar)
    total = n.sum()
    p_hat = x.sum(axis=0) / total
    bms = np.sum((x - np.outer(n, p_hat)) ** 2 / n[:, None]) / k
    wms = np.sum(x * (n[:, None] - x) / n[:, None]) / (k * (n_bar - 1))
    rho_star = (bms - wms) / (bms + (n0 - 1) * wms)
    rho = 1 / (1 + p_hat[1] * (1 - rho_star) / rho_star + p_hat[2] * (1 - rho_star) / rho_star)
    s_bar = s.sum() / kd
    s0 = s_bar - (np.sum((s - s_bar) ** 2) - (k - kd) * s_bar**2) / (kd * (kd - 1) * s_bar)
    n_c = s0 + kd * (s_bar - s0)
    c_hat = 1 + (n_c - 1) * rho
    return float((b.sum() - c.sum()) ** 2 / (b.sum() + c.sum()) / c_hat)


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(np.int64, st.tuples(st.integers(3, 12), st.just(4)),
               elements=st.integers(0, 6))
)
def test_eliasziw_donner_matches_step_by_step_recipe(x: np.ndarray) -> None:
    x = x[x.sum(axis=1) > 0]
    s = x[:, 1] + x[:, 2]
    if x.shape[0] < 2 or np.sum(s >= 1) < 2 or x[:, 1].sum() == x[:, 2].sum():
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = clustered(x, method="eliasziw-donner")
        with np.errstate(all="ignore"):
            expected = _eliasziw_steps(x)
    if math.isfinite(expected) and expected > 0:
        assert res.statistic == pytest.approx(expected, rel=1e-10)


def test_eliasziw_closed_form_of_effective_cluster_size() -> None:
    # n_c = S0 + K_d (S_bar - S0) equals sum S_k^2 / sum S_k (used by the implementation)
    x = np.array(DATA["datasets"]["psychiatry"]["clusters"])
    assert clustered(x, method="eliasziw-donner").statistic == pytest.approx(
        _eliasziw_steps(x), rel=1e-12
    )


def _singletons(b: int, c: int, a: int = 5, d: int = 3) -> np.ndarray:
    rows = [[1, 0, 0, 0]] * a + [[0, 1, 0, 0]] * b + [[0, 0, 1, 0]] * c + [[0, 0, 0, 1]] * d
    return np.array(rows)


@pytest.mark.parametrize(("b", "c"), [(17, 3), (4, 9), (1, 0), (6, 6)])
def test_clusters_of_one_item(b: int, c: int) -> None:
    x = _singletons(b, c)
    n = x.shape[0]
    plain = (b - c) ** 2 / (b + c)
    # derived in the docstring of clustered(): Durkalski and Eliasziw-Donner reduce to
    # McNemar, Obuchowski to (N - 1)/N times it, Yang to
    # ((N - 1)/N) (b - c)^2 / ((b + c) - (b - c)^2 / (2N))
    expected = {
        "obuchowski": (n - 1) / n * plain,
        "durkalski": plain,
        "eliasziw-donner": plain,
        "yang": (n - 1) / n * (b - c) ** 2 / ((b + c) - (b - c) ** 2 / (2 * n)),
    }
    for method in CLUSTERED_METHODS:
        res = clustered(x, method=method)
        if b == c:
            assert res.pvalue == 1.0
            continue
        assert res.statistic == pytest.approx(expected[method], rel=1e-12)
    res = clustered(x)
    assert res.mcnemar_statistic == pytest.approx(plain)
    assert res.design_effect == pytest.approx(1.0, rel=1e-12)


def test_cluster_robust_se_matches_statsmodels() -> None:
    sm = pytest.importorskip("statsmodels.api")
    for name in ("thyroids", "psychiatry"):
        counts = np.array(DATA["datasets"][name]["clusters"])
        # expand to items: d_i = +1 (A only right), -1 (B only right), 0 (concordant)
        values = np.concatenate([np.repeat([0, 1, -1, 0], row) for row in counts])
        groups = np.concatenate([np.full(row.sum(), k) for k, row in enumerate(counts)])
        fit = sm.OLS(values.astype(float), np.ones((values.size, 1))).fit(
            cov_type="cluster", cov_kwds={"groups": groups}
        )
        res = clustered(counts)
        assert res.difference == pytest.approx(fit.params[0], rel=1e-12)
        assert res.standard_error == pytest.approx(fit.bse[0], rel=1e-10)
        iid = sm.OLS(values.astype(float), np.ones((values.size, 1))).fit()
        assert res.standard_error_unclustered == pytest.approx(iid.bse[0], rel=1e-10)


def test_confidence_interval_t_and_normal() -> None:
    from scipy import special

    res = clustered(DATA["datasets"]["psychiatry"]["clusters"])
    ci = res.confidence_interval(0.9)
    q = special.stdtrit(res.clusters - 1, 0.95)
    assert ci.low == pytest.approx(res.difference - q * res.standard_error)
    assert ci.high == pytest.approx(res.difference + q * res.standard_error)
    normal = res.confidence_interval(0.9, method="normal")
    assert normal.high - normal.low < ci.high - ci.low
    with pytest.raises(McNemarError, match="confidence_level"):
        res.confidence_interval(95)
    with pytest.raises(McNemarError, match="method must be one of"):
        res.confidence_interval(method="wald")


def test_repeated_samples_as_clusters_of_one_item() -> None:
    # an item sampled m times with identical outcomes carries no more information than one
    # sample: clustering by item gives the interval of the original items, and the design
    # effect is (mN - 1)/(N - 1)
    rng = np.random.default_rng(5)
    n_items, m = 60, 4
    ya = rng.random(n_items) < 0.8
    yb = rng.random(n_items) < 0.7
    single = clustered_from_outcomes(ya, yb, np.arange(n_items))
    repeated = clustered_from_outcomes(np.repeat(ya, m), np.repeat(yb, m),
                                       np.repeat(np.arange(n_items), m))
    assert repeated.difference == pytest.approx(single.difference)
    ci_single, ci_repeated = single.confidence_interval(), repeated.confidence_interval()
    assert ci_repeated.low == pytest.approx(ci_single.low, rel=1e-12)
    assert ci_repeated.high == pytest.approx(ci_single.high, rel=1e-12)
    assert repeated.design_effect == pytest.approx((m * n_items - 1) / (n_items - 1), rel=1e-12)
    assert repeated.mcnemar_statistic == pytest.approx(m * single.mcnemar_statistic)
    assert "design effect" in str(repeated)


def test_cluster_counts_against_a_loop() -> None:
    rng = np.random.default_rng(11)
    ya = rng.integers(0, 2, 500)
    yb = rng.integers(0, 2, 500)
    ids = rng.choice(np.array(["doc-a", "doc-b", "doc-c", "doc-d", "doc-e"]), 500)
    keys, counts = cluster_counts(ya, yb, ids)
    assert keys.tolist() == sorted(set(ids.tolist()))
    for key, row in zip(keys, counts, strict=True):
        sel = ids == key
        expected = [
            np.sum((ya[sel] == 1) & (yb[sel] == 1)), np.sum((ya[sel] == 1) & (yb[sel] == 0)),
            np.sum((ya[sel] == 0) & (yb[sel] == 1)), np.sum((ya[sel] == 0) & (yb[sel] == 0)),
        ]
        assert row.tolist() == expected
    for method in CLUSTERED_METHODS:
        a = clustered_from_outcomes(ya.astype(bool), yb, ids, method=method)
        b = clustered(counts, method=method)
        assert a.statistic == b.statistic


def test_order_and_empty_clusters_do_not_matter() -> None:
    x = np.array(DATA["datasets"]["psychiatry"]["clusters"])
    perm = np.random.default_rng(2).permutation(x.shape[0])
    padded = np.vstack([x, np.zeros((3, 4), dtype=int)])
    for method in CLUSTERED_METHODS:
        ref = clustered(x, method=method)
        assert clustered(x[perm], method=method).statistic == pytest.approx(ref.statistic)
        padded_res = clustered(padded, method=method)
        assert padded_res.statistic == pytest.approx(ref.statistic)
        assert padded_res.clusters == ref.clusters


def test_paired_table_input() -> None:
    from mcnemar.table import PairedTable

    x = np.array(DATA["datasets"]["thyroids"]["clusters"])
    table = PairedTable(a=x[:, 0], b=x[:, 1], c=x[:, 2], d=x[:, 3])
    for method in CLUSTERED_METHODS:
        assert clustered(table, method=method).statistic == clustered(x, method=method).statistic
    partial = clustered(PairedTable(b=x[:, 1], c=x[:, 2]))
    assert partial.statistic == pytest.approx(2.8571428571, rel=1e-9)
    assert partial.n is None and partial.difference is None
    assert partial.to_dict()["confidence_interval"] is None
    with pytest.raises(McNemarError, match="needs N"):
        partial.confidence_interval()
    with pytest.raises(McNemarError, match="needs the cluster sizes"):
        clustered(PairedTable(b=x[:, 1], c=x[:, 2]), method="yang")


class _Cells:
    """Any object with cells a, b, c, d is accepted (duck typing)."""

    def __init__(self, **cells: Any) -> None:
        self.__dict__.update(cells)


def test_duck_typed_cells() -> None:
    res = clustered(_Cells(a=[1, 2], b=[3, 0], c=[0, 1], d=[1, 1]), method="durkalski")
    assert res.clusters == 2
    with pytest.raises(TableError, match="different lengths"):
        clustered(_Cells(a=[1, 2], b=[3, 0, 1], c=[0, 1], d=[1, 1]))


@settings(max_examples=80, deadline=None)
@given(
    hnp.arrays(np.int64, st.tuples(st.integers(2, 15), st.just(4)),
               elements=st.integers(0, 9))
)
def test_statistic_bounds(x: np.ndarray) -> None:
    x = x[x.sum(axis=1) > 0]
    if x.shape[0] < 2:
        return
    k = x.shape[0]
    obu = clustered(x, method="obuchowski")
    dur = clustered(x, method="durkalski")
    if math.isfinite(obu.statistic):
        # Cauchy-Schwarz: (sum d_k)^2 <= K sum d_k^2
        assert -1e-12 <= obu.statistic <= k - 1 + 1e-9
        assert 0.0 <= obu.pvalue <= 1.0
    if math.isfinite(dur.statistic):
        assert -1e-12 <= dur.statistic <= k + 1e-9
    json.dumps(obu.to_dict(), allow_nan=False)


def test_no_discordant_items() -> None:
    x = np.array([[3, 0, 0, 1], [2, 0, 0, 2], [4, 0, 0, 0]])
    for method in CLUSTERED_METHODS:
        res = clustered(x, method=method)
        assert res.pvalue == 1.0
        assert math.isnan(res.statistic)
        payload = json.loads(json.dumps(res.to_dict(), allow_nan=False))
        assert payload["statistic"] is None and payload["design_effect"] is None
        assert str(res)


def test_balanced_clusters_give_no_evidence() -> None:
    x = np.array([[3, 1, 1, 1], [2, 2, 2, 2], [4, 0, 0, 0]])
    for method in CLUSTERED_METHODS:
        assert clustered(x, method=method).pvalue == 1.0


def test_clustering_controls_size_under_h0() -> None:
    # Seeded simulation under H0 with strong within-cluster correlation: each cluster has its
    # own probability that a discordant item favours A, symmetric about 1/2. The plain test
    # over-rejects; Obuchowski's stays near the nominal 5%.
    rng = np.random.default_rng(1998)
    reps, k, size = 1500, 40, 6
    plain = obu = 0
    for _ in range(reps):
        disc = rng.binomial(size, 0.5, k)
        theta = rng.beta(0.4, 0.4, k)
        b = rng.binomial(disc, theta)
        c = disc - b
        x = np.column_stack([size - disc, b, c, np.zeros(k, dtype=int)])
        res = clustered(x)
        plain += res.mcnemar_pvalue <= 0.05
        obu += res.pvalue <= 0.05
    assert plain / reps > 0.2
    assert 0.02 < obu / reps < 0.08


@pytest.mark.parametrize(
    ("tables", "kwargs", "error", "fragment"),
    [
        ([[1, 2, 3, 4]], {}, McNemarError, "at least 2"),
        ([[1, 2, 3]], {}, TableError, "K x 4"),
        ([[1, -2, 3, 4], [1, 1, 1, 1]], {}, TableError, "whole counts >= 0"),
        ([[1, 2.5, 3, 4], [1, 1, 1, 1]], {}, TableError, "2.5"),
        ([[1, 2, 3, 4], [1, 1, 1, 1]], {"method": "mantel"}, McNemarError, "method must be"),
        ("thyroids", {}, TableError, "K x 4"),
    ],
)
def test_errors(tables: Any, kwargs: dict[str, Any], error: type, fragment: str) -> None:
    with pytest.raises(error, match=fragment):
        clustered(tables, **kwargs)


def test_outcome_errors() -> None:
    with pytest.raises(TableError, match="one entry per item"):
        clustered_from_outcomes([1, 0, 1], [1, 0], [1, 1, 2])
    with pytest.raises(TableError, match="0/1"):
        clustered_from_outcomes([1, 2, 1], [1, 0, 1], [1, 1, 2])
    with pytest.raises(TableError, match="sortable"):
        cluster_counts([1, 0, 1], [1, 0, 1], np.array([1, "a", 2.5], dtype=object))


def test_method_alias_and_output() -> None:
    x = DATA["datasets"]["thyroids"]["clusters"]
    res = clustered(x, method="eliasziw")
    assert res.method == "eliasziw-donner"
    text = str(res)
    assert "chi2 = 3.662" in text and "21 clusters, 51 items" in text
    assert "A right and B wrong on 1 items; the reverse on 7" in text
    md = res.to_markdown()
    assert md.startswith("**Clustered McNemar test of Eliasziw & Donner (1991)**")
    payload = res.to_dict()
    assert payload["unclustered"]["statistic"] == 4.5
    assert payload["confidence_interval"]["method"].startswith("CR1")
    widening = res.interval_widening()
    assert widening is not None and widening > 1


def test_undefined_statistic_warns() -> None:
    # a strongly negative intraclass correlation makes the Eliasziw-Donner correction C_hat
    # negative (here about -1.30): the statistic is undefined, not an error
    x = np.array([[2, 0, 2, 1], [1, 0, 1, 0]])
    with pytest.warns(McNemarWarning, match="undefined"):
        res = clustered(x, method="eliasziw-donner")
    assert math.isnan(res.statistic) and math.isnan(res.pvalue)
    assert res.to_dict()["pvalue"] is None
    # the other statistics are defined for the same clusters
    assert math.isfinite(clustered(x, method="yang").statistic)
