"""The comparison of scores from sums computed in the engine (mcnemar.scores._frames).

Every engine's report is checked against :func:`mcnemar.scores.analyze_scores` on the same
scores in memory: the numbers the sums give (t test, sign test, t interval, Welch, spread,
skewness, detectable difference, non-inferiority, epochs, the cluster-robust standard error)
agree to 1e-12 relative; the tests that need the items are left out and say so. Deferred
files (Parquet) take this path in ``compare_runs`` and ``mcnemar compare --analysis scores``.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcnemar.errors import AlignmentError, McNemarError
from mcnemar.scores import ScoreReport, ScoreSums, analyze_score_sums, analyze_scores, score_sums
from mcnemar.scores._frames import LEFT_OUT

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
duckdb = pytest.importorskip("duckdb")

_CON = duckdb.connect()  # relations to be joined must share a connection
REL = 1e-12


def _duckdb(df: Any) -> Any:
    return _CON.from_arrow(pa.Table.from_pandas(df, preserve_index=False))


BACKENDS: dict[str, Callable[[Any], Any]] = {
    "pandas": lambda df: df,
    "polars": pl.from_pandas,
    "polars-lazy": lambda df: pl.from_pandas(df).lazy(),
    "pyarrow": lambda df: pa.Table.from_pandas(df, preserve_index=False),
    "duckdb": _duckdb,
}


def close(x: float | None, y: float | None, rel: float = REL, scale: float = 1.0) -> bool:
    """Equal to ``rel`` relative, or to ``rel * scale`` absolute for quantities near 0."""
    if x is None or y is None:
        return x is None and y is None
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return math.isclose(x, y, rel_tol=rel, abs_tol=rel * scale)


def assert_same(sums_rep: ScoreReport, mem: ScoreReport) -> None:
    """The sum-based numbers of the two reports agree; the others are left out."""
    scale = max(1.0, abs(mem.mean_a), abs(mem.mean_b))
    assert sums_rep.n == mem.n
    assert (sums_rep.higher_a, sums_rep.equal, sums_rep.higher_b) == \
        (mem.higher_a, mem.equal, mem.higher_b)
    assert sums_rep.binary == mem.binary
    for name in ("mean_a", "mean_b", "difference", "sd_a", "sd_b", "sd_difference",
                 "standard_error", "standard_error_independent", "effect_size"):
        assert close(getattr(sums_rep, name), getattr(mem, name), scale=scale), name
    for name in ("correlation", "skewness"):  # unitless: 1e-12 absolute where near 0
        assert close(getattr(sums_rep, name), getattr(mem, name)), name
    for key in ("t", "sign"):
        got, want = sums_rep.tests[key], mem.tests[key]
        assert close(got.statistic, want.statistic, scale=scale), key
        assert close(got.pvalue, want.pvalue), key
        assert close(got.log10_pvalue, want.log10_pvalue), key
        assert got.df == want.df
    assert close(sums_rep.tests["permutation"].statistic, mem.tests["permutation"].statistic,
                 scale=scale * mem.n)
    for bound in ("low", "high"):
        assert close(getattr(sums_rep.intervals["t"], bound), getattr(mem.intervals["t"], bound),
                     scale=scale)
    for name in ("statistic", "df", "pvalue", "standard_error"):
        assert close(getattr(sums_rep.unpaired, name), getattr(mem.unpaired, name),
                     scale=scale), name
    assert close(sums_rep.detectable_difference, mem.detectable_difference, scale=scale)
    if mem.noninferiority is not None:
        assert sums_rep.noninferiority is not None
        for name in ("statistic", "pvalue", "low", "high"):
            assert close(getattr(sums_rep.noninferiority, name),
                         getattr(mem.noninferiority, name), scale=scale), name
    assert (sums_rep.epochs is None) == (mem.epochs is None)
    if mem.epochs is not None and sums_rep.epochs is not None:
        se = mem.epochs.standard_error
        got_at, want_at = sums_rep.epochs.standard_error_at, mem.epochs.standard_error_at
        assert got_at.keys() == want_at.keys()
        for k, value in want_at.items():
            # SE_k^2 = SE^2 + (within)(1/k - mean 1/k)/n: a difference, near 0 for large k
            assert math.isclose(got_at[k], value, rel_tol=1e-12, abs_tol=1e-12 * se), k
        got_e, want_e = sums_rep.epochs.to_dict(), mem.epochs.to_dict()
        del got_e["standard_error_at"], want_e["standard_error_at"]
        for name, value in want_e.items():
            assert close(got_e[name], value, scale=scale), name
    assert sums_rep.clusters == mem.clusters
    # What the sums cannot give is left out, and said so.
    assert "bootstrap" not in sums_rep.intervals and sums_rep.hodges_lehmann is None
    for key in ("wilcoxon", "permutation"):
        assert math.isnan(sums_rep.tests[key].pvalue)
        assert sums_rep.tests[key].convention.startswith("not computed")
    assert sums_rep.recommended == "t"
    assert f"without collecting the {mem.n} items" in sums_rep.warnings[0]
    assert sums_rep.extra["sums"]["items"] == mem.n
    assert sums_rep.extra["sums"]["left_out"] == list(LEFT_OUT)


@pytest.fixture(scope="module")
def scores() -> tuple[Any, Any, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(20260102)
    n = 1500
    ids = np.array([f"item-{i}" for i in range(n)])
    a = np.round(rng.beta(4, 2, n), 3)
    b = np.clip(np.round(a - 0.02 + rng.normal(0, 0.15, n), 3), 0, 1)
    perm = rng.permutation(n)
    frame_a = pd.DataFrame({"id": ids, "score": a})
    frame_b = pd.DataFrame({"id": ids[perm], "score": b[perm]})
    return frame_a, frame_b, a, b


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_every_backend_gives_the_in_memory_numbers(backend: str, scores: Any) -> None:
    frame_a, frame_b, a, b = scores
    convert = BACKENDS[backend]
    sums = score_sums(convert(frame_a), convert(frame_b), id="id", score="score")
    assert isinstance(sums, ScoreSums) and sums.n == 1500
    assert sums.engine == {"polars-lazy": "polars"}.get(backend, backend)
    assert sums.alignment.summary.matched == 1500 and sums.alignment.summary.engine == \
        sums.engine
    rep = analyze_score_sums(sums, names=("new", "old"), margin=0.05)
    mem = analyze_scores(a, b, names=("new", "old"), margin=0.05, n_resamples=200,
                         random_state=0)
    assert_same(rep, mem)
    assert rep.alignment is sums.alignment


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_one_frame_with_a_column_per_run(backend: str, scores: Any) -> None:
    _, _, a, b = scores
    frame = BACKENDS[backend](pd.DataFrame({"new": a, "old": b}))
    sums = score_sums(frame, score_a="new", score_b="old")
    assert sums.alignment is None
    for alternative in ("two-sided", "greater", "less"):
        assert_same(analyze_score_sums(sums, alternative=alternative, confidence_level=0.9),
                    analyze_scores(a, b, alternative=alternative, confidence_level=0.9,
                                   n_resamples=200, random_state=0))


@pytest.mark.parametrize("backend", ["pandas", "polars-lazy", "duckdb"])
def test_repeated_samples_pair_sample_by_sample(backend: str) -> None:
    rng = np.random.default_rng(7)
    items, k = 60, 3
    item = np.repeat(np.arange(items), k)
    epoch = np.tile(np.arange(k), items)
    hard = rng.normal(0, 1, items)[item]
    a = hard + 0.2 + rng.normal(0, 1, items * k)
    b = hard + rng.normal(0, 1, items * k)
    perm = rng.permutation(items * k)
    convert = BACKENDS[backend]
    fa = convert(pd.DataFrame({"id": item, "epoch": epoch, "s": a}))
    fb = convert(pd.DataFrame({"id": item[perm], "epoch": epoch[perm], "s": b[perm]}))
    sums = score_sums(fa, fb, id="id", score="s", sample="epoch")
    assert (sums.n, sums.rows, sums.max_samples) == (items, items * k, k)
    mem = analyze_scores(a, b, item=item, n_resamples=200, random_state=0)
    rep = analyze_score_sums(sums)
    assert_same(rep, mem)
    summary = sums.alignment.summary
    assert summary.reduce == "cluster" and summary.clusters == items
    assert summary.key == ("id", "epoch") and summary.matched == items * k
    assert "(180 rows)" in rep.warnings[0]
    # One frame holding the samples of each item.
    one = convert(pd.DataFrame({"q": item, "a": a, "b": b}))
    assert_same(analyze_score_sums(score_sums(one, score_a="a", score_b="b", item="q")), mem)


@pytest.mark.parametrize("backend", ["pandas", "polars", "duckdb"])
def test_clusters_get_the_cluster_robust_t_test(backend: str) -> None:
    rng = np.random.default_rng(11)
    n = 240
    cluster = np.array([f"passage-{i // 8}" for i in range(n)])
    a = rng.normal(0.6, 0.2, n)
    b = a - 0.05 + rng.normal(0, 0.2, n) + np.repeat(rng.normal(0, 0.1, n // 8), 8)
    convert = BACKENDS[backend]
    frame = convert(pd.DataFrame({"id": np.arange(n), "c": cluster, "a": a, "b": b}))
    sums = score_sums(frame, score_a="a", score_b="b", cluster="c")
    assert sums.clusters == 30
    mem = analyze_scores(a, b, cluster=cluster, n_resamples=200, random_state=0)
    rep = analyze_score_sums(sums)
    assert_same(rep, mem)
    assert "cluster-robust" in rep.tests["t"].convention
    # The cluster column in one of two frames.
    fa = convert(pd.DataFrame({"id": np.arange(n), "s": a, "c": cluster}))
    fb = convert(pd.DataFrame({"id": np.arange(n)[::-1], "s": b[::-1]}))
    paired = score_sums(fa, fb, id="id", score="s", cluster="c")
    assert_same(analyze_score_sums(paired), mem)
    assert paired.alignment.summary.clusters == 30


def test_items_with_clusters_in_one_frame() -> None:
    rng = np.random.default_rng(5)
    item = np.repeat(np.arange(40), 2)
    cluster = item // 4
    a, b = rng.normal(size=80), rng.normal(size=80)
    frame = pl.DataFrame({"i": item, "c": cluster.astype(str), "a": a, "b": b})
    sums = score_sums(frame, score_a="a", score_b="b", item="i", cluster="c")
    mem = analyze_scores(a, b, item=item, cluster=cluster, n_resamples=200, random_state=0)
    assert_same(analyze_score_sums(sums), mem)
    bad = frame.with_columns(c=pl.Series([str(i) for i in range(80)]))
    with pytest.raises(McNemarError, match="every sample of an item the same cluster"):
        score_sums(bad, score_a="a", score_b="b", item="i", cluster="c")


def test_scores_far_from_zero_keep_their_variance() -> None:
    # Log-probabilities around -1e6 that differ by about 1e-3: raw sums of squares would
    # cancel to nothing; the centred ones keep every digit the in-memory path keeps.
    rng = np.random.default_rng(3)
    a = -1e6 + rng.normal(0, 1e-3, 500)
    b = a - 1e-4 + rng.normal(0, 1e-3, 500)
    sums = score_sums(pl.DataFrame({"a": a, "b": b}), score_a="a", score_b="b")
    rep = analyze_score_sums(sums)
    mem = analyze_scores(a, b, n_resamples=200, random_state=0)
    assert rep.sd_difference == pytest.approx(mem.sd_difference, rel=1e-9)
    assert rep.tests["t"].pvalue == pytest.approx(mem.tests["t"].pvalue, rel=1e-6)


def test_the_alignment_rules_hold_in_the_engine() -> None:
    a = pd.DataFrame({"id": ["x", "y", "z", "v"], "s": [0.5, 0.25, 1.0, 0.75]})
    b = pd.DataFrame({"id": ["x", "y", "y", "w"], "s": [0.5, 0.0, 0.1, 0.5]})
    with pytest.raises(AlignmentError) as info:
        score_sums(pl.from_pandas(a), pl.from_pandas(b), id="id", score="s")
    message = str(info.value)
    assert "1 duplicated item key ('y' x2)" in message and "not 0/1" not in message
    ok = pd.DataFrame({"id": ["x", "y", "w", "v"], "s": [0.5, 0.0, 0.5, None]})
    with pytest.raises(AlignmentError, match="on_missing='intersect'"):
        score_sums(a, ok, id="id", score="s")
    sums = score_sums(a, ok, id="id", score="s", on_missing="intersect")
    assert sums.n == 2 and sums.sum_difference == pytest.approx(0.25)
    summary = sums.alignment.summary
    assert (summary.run_a.only_here, summary.run_b.only_here, summary.dropped_no_score) == \
        (1, 1, 1)
    nan = pd.DataFrame({"id": ["x", "y"], "s": [0.5, float("nan")]})
    with pytest.raises(AlignmentError, match="not a number"):
        score_sums(pl.from_pandas(a.head(2)), pl.from_pandas(nan, nan_to_null=False), id="id",
                   score="s")
    clash = pd.DataFrame({"id": ["x", "y"], "s": [0.5, 0.2], "c": ["p", "q"]})
    other = clash.assign(c=["p", "r"])
    with pytest.raises(AlignmentError, match="put 1 item in different clusters"):
        score_sums(clash, other, id="id", score="s", cluster="c")
    with pytest.raises(McNemarError, match="at least 2 items"):
        score_sums(a.head(1), a.head(1), id="id", score="s")


def test_one_frame_missing_scores_and_arguments() -> None:
    frame = pd.DataFrame({"a": [0.5, 1.0, None, 0.2], "b": [0.25, 0.5, 0.75, None]})
    with pytest.raises(McNemarError, match="2 rows have no score in 'a' or 'b'"):
        score_sums(frame, score_a="a", score_b="b")
    sums = score_sums(frame, score_a="a", score_b="b", on_missing="intersect")
    assert sums.n == 2 and sums.sum_a == pytest.approx(1.5)
    with pytest.raises(McNemarError, match="score_a column 'x' not found"):
        score_sums(frame, score_a="x", score_b="b")
    with pytest.raises(McNemarError, match="name their columns with score_a and score_b"):
        score_sums(frame, score="a")
    with pytest.raises(McNemarError, match="give id and score"):
        score_sums(frame, frame, score_a="a", score_b="b")


def test_pass_fail_data_and_equal_scores_are_said() -> None:
    a, b = [1, 0, 1, 1, 0, 1, 1, 0], [0, 0, 1, 0, 1, 0, 1, 0]
    rep = analyze_score_sums(score_sums(pl.DataFrame({"a": a, "b": b}), score_a="a",
                                        score_b="b"))
    assert rep.binary and any("pass/fail data" in w for w in rep.warnings)
    assert_same(rep, analyze_scores(a, b, n_resamples=200, random_state=0))
    same = analyze_score_sums(score_sums(pl.DataFrame({"a": [0.5, 0.7, 0.1]}), score_a="a",
                                         score_b="a"))
    assert same.tests["t"].pvalue == 1.0 and same.conclusion.headline.endswith("every item")


def test_the_report_says_what_was_left_out_and_validates() -> None:
    import jsonschema

    from mcnemar.scores import json_schema

    rng = np.random.default_rng(2)
    a = rng.normal(size=12)
    rep = analyze_score_sums(score_sums(pd.DataFrame({"a": a, "b": a * 0.5}), score_a="a",
                                        score_b="b"), names=("new", "old"))
    # 12 items are too few for the t test's approximation: the reason says what is missing.
    assert "needs the items in memory" in rep.recommendation_reason
    assert rep.recommended == "t"
    text = str(rep)
    assert "computed from sums in the pandas engine, without collecting the 12 items" in \
        " ".join(text.split())
    doc = rep.to_dict()
    jsonschema.validate(doc, json_schema())
    assert doc["sums"]["left_out"] == ["wilcoxon", "permutation", "bootstrap", "hodges-lehmann"]
    assert doc["tests"]["wilcoxon"]["pvalue"] is None and doc["hodges_lehmann"] is None
    assert rep.to_markdown() and rep._repr_html_()


def test_sums_given_by_hand() -> None:
    # Student's sleep data (R t.test(..., paired = TRUE)): the sums alone give t and p.
    g1 = np.array([0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0])
    g2 = np.array([1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4])
    d = g1 - g2
    sums = ScoreSums(
        n=10, sum_a=float(g1.sum()), sum_b=float(g2.sum()), sum_difference=float(d.sum()),
        squares_a=float(((g1 - g1.mean()) ** 2).sum()),
        squares_b=float(((g2 - g2.mean()) ** 2).sum()),
        squares_difference=float(((d - d.mean()) ** 2).sum()),
        cross=float(((g1 - g1.mean()) * (g2 - g2.mean())).sum()),
        cubes_difference=float(((d - d.mean()) ** 3).sum()),
        higher_a=0, equal=1, higher_b=9, not_binary=19, engine="sql")
    rep = analyze_score_sums(sums)
    assert rep.tests["t"].statistic == pytest.approx(-4.062128, rel=1e-6)
    assert rep.tests["t"].pvalue == pytest.approx(0.002832890, rel=1e-6)
    assert_same(rep, analyze_scores(g1, g2, n_resamples=200, random_state=0))
    assert json.loads(json.dumps(sums.to_dict()))["engine"] == "sql"
    with pytest.raises(McNemarError, match="at least 2 items"):
        analyze_score_sums(ScoreSums(**{**sums.to_dict(), "n": 1}))


# ---------------------------------------------------------------------- the property


pairs = st.integers(min_value=2, max_value=60).flatmap(lambda n: st.tuples(
    st.lists(st.integers(-40, 40), min_size=n, max_size=n),
    st.lists(st.integers(-40, 40), min_size=n, max_size=n),
    st.sampled_from([1.0, 0.25, 0.1, 1e-3]),
    st.integers(min_value=1, max_value=4),
    st.sampled_from(["two-sided", "greater", "less"]),
))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pairs)
def test_the_sums_path_equals_the_in_memory_path(case: Any) -> None:
    xs, ys, unit, groups, alternative = case
    a, b = np.array(xs) * unit, np.array(ys) * unit
    n = len(a)
    cluster = np.arange(n) % groups if groups > 1 and n >= 2 * groups else None
    frame = pl.DataFrame({"a": a, "b": b, "c": np.zeros(n) if cluster is None else cluster})
    sums = score_sums(frame.lazy(), score_a="a", score_b="b",
                      cluster=None if cluster is None else "c")
    rep = analyze_score_sums(sums, alternative=alternative)
    mem = analyze_scores(a, b, alternative=alternative, cluster=cluster, n_resamples=50,
                         random_state=0)
    assert_same(rep, mem)


# ------------------------------------------------------------------ deferred files


@pytest.fixture(scope="module")
def parquet(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, Any]]:
    rng = np.random.default_rng(99)
    root = tmp_path_factory.mktemp("scores")
    items, k = 400, 2
    item = np.repeat(np.arange(items), k)
    epoch = np.tile(np.arange(k), items)
    a = np.round(rng.beta(5, 2, items * k), 4)
    b = np.clip(np.round(a - 0.03 + rng.normal(0, 0.2, items * k), 4), 0, 1)
    perm = rng.permutation(items * k)
    topic = (item % 9).astype(str)
    pq.write_table(pa.table({"id": item, "epoch": epoch, "topic": topic, "score": a}),
                   root / "a.parquet")
    pq.write_table(pa.table({"id": item[perm], "epoch": epoch[perm], "topic": topic[perm],
                             "score": b[perm]}), root / "b.parquet")
    return root / "a.parquet", root / "b.parquet", {"a": a, "b": b, "item": item,
                                                   "topic": topic}


def test_deferred_runs_are_compared_from_sums(parquet: Any) -> None:
    from mcnemar.io import read_run
    from mcnemar.pipeline import compare_runs

    pa_, pb_, data = parquet
    run_a, run_b = read_run(pa_, sample="epoch"), read_run(pb_, sample="epoch")
    assert run_a.deferred and run_b.deferred
    rep = compare_runs(run_a, run_b, analysis="scores")
    assert rep.alignment.summary.engine == "duckdb"
    mem = analyze_scores(data["a"], data["b"], item=data["item"], names=rep.names,
                         n_resamples=200, random_state=0)
    assert_same(rep, mem)
    assert "without collecting the 400 items (800 rows)" in rep.warnings[0]
    # engine="numpy" reads the items into memory: every test, the same sum-based numbers.
    full = compare_runs(run_a, run_b, analysis="scores", engine="numpy")
    assert math.isfinite(full.tests["wilcoxon"].pvalue) and "sums" not in full.to_dict()
    assert rep.tests["t"].pvalue == pytest.approx(full.tests["t"].pvalue, rel=REL)
    assert str(rep.alignment).splitlines()[0] == str(full.alignment).splitlines()[0].replace(
        "numpy", "duckdb")
    # Clusters from the files: the items' means within their clusters, as in memory.
    clustered = compare_runs(read_run(pa_, sample="epoch", cluster="topic"),
                             read_run(pb_, sample="epoch", cluster="topic"), analysis="scores")
    in_memory = compare_runs(read_run(pa_, sample="epoch", cluster="topic"),
                             read_run(pb_, sample="epoch", cluster="topic"), analysis="scores",
                             engine="numpy")
    assert clustered.clusters == in_memory.clusters == 9
    assert clustered.standard_error == pytest.approx(in_memory.standard_error, rel=REL)
    assert clustered.tests["t"].pvalue == pytest.approx(in_memory.tests["t"].pvalue, rel=REL)


def test_the_compare_command_on_deferred_files(parquet: Any) -> None:
    import jsonschema
    from click.testing import CliRunner

    from mcnemar.cli import main
    from mcnemar.scores import json_schema

    pa_, pb_, _ = parquet
    args = ["compare", str(pa_), str(pb_), "--sample", "epoch", "--analysis", "scores"]
    result = CliRunner().invoke(main, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    jsonschema.validate(doc, json_schema())
    assert doc["sums"]["engine"] == "duckdb" and doc["sums"]["items"] == 400
    assert doc["alignment"]["engine"] == "duckdb" and doc["epochs"]["samples"] == 800
    text = CliRunner().invoke(main, args)
    assert text.exit_code == 0, text.output
    assert "computed from sums in the duckdb engine" in " ".join(text.output.split())


# ------------------------------------------------------------------- other engines


def test_dask(scores: Any) -> None:
    dd = pytest.importorskip("dask.dataframe")
    frame_a, frame_b, a, b = scores
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # narwhals' note on its Dask plugin
        sums = score_sums(dd.from_pandas(frame_a, npartitions=3),
                          dd.from_pandas(frame_b, npartitions=2), id="id", score="score")
    assert sums.engine == "dask"
    assert_same(analyze_score_sums(sums), analyze_scores(a, b, n_resamples=200, random_state=0))


@pytest.mark.spark
@pytest.mark.slow
def test_pyspark(scores: Any, spark: Any) -> None:
    frame_a, frame_b, a, b = scores
    sums = score_sums(spark.createDataFrame(frame_a), spark.createDataFrame(frame_b), id="id",
                      score="score")
    assert sums.engine == "pyspark"
    assert_same(analyze_score_sums(sums), analyze_scores(a, b, n_resamples=200, random_state=0))
