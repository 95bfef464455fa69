"""The paired comparison of scores at any size: sums computed inside the data's own engine.

Two runs' scores held in data frames (pandas, polars, pyarrow, DuckDB, Dask, PySpark: what
narwhals accepts) or in files DuckDB reads without Python (Parquet, large CSV/JSONL) are
paired inside their engine by the alignment's rules (:mod:`mcnemar.io._frames`) and reduced
there to a few sums (:class:`ScoreSums`); the rows are never collected. From the sums,
:func:`analyze_score_sums` builds the same :class:`~mcnemar.scores.ScoreReport` as
:func:`~mcnemar.scores.analyze_scores`, with the same numbers (to rounding):

=====================  =======================================================================
from the sums          the paired t test (and its cluster-robust form), the t interval, the
                       exact sign test, the mean difference, the standard deviations and the
                       correlation, the skewness (which test to report), Welch's unpaired test,
                       the detectable difference, the non-inferiority test, and with repeated
                       samples of an item the within- and between-item variance
left out               the Wilcoxon signed-rank test (ranks), the permutation test and the
                       bootstrap interval (resamples), the Hodges-Lehmann estimate (Walsh
                       averages): they need the items in memory; the report says so, and for
                       how many items
=====================  =======================================================================

The sums are taken in two passes: the first counts the items and sums the scores, the
second sums the squares and cubes of the deviations from the means of the first. Sums of
raw squares would lose the variance to cancellation where the scores are far from 0
(log-probabilities), which the centred sums do not.

A deferred run (a Parquet file, a large CSV) gets the sums path by default
(:func:`mcnemar.scores.compare_scores`, ``mcnemar compare --analysis scores``): at the size
where files are deferred, collecting the items to rank or resample them is what the engine
is there to avoid. ``engine="numpy"`` reads the items into memory instead and computes every
test.

Examples
--------
>>> import polars as pl
>>> runs = pl.DataFrame({"new": [7.0, 8, 6, 9, 7, 8, 9, 6, 8, 7],
...                      "old": [6.0, 8, 5, 7, 7, 6, 8, 6, 7, 5]}).lazy()
>>> sums = score_sums(runs, score_a="new", score_b="old")
>>> sums.n, sums.sum_difference, (sums.higher_a, sums.equal, sums.higher_b)
(10, 10.0, (7, 3, 0))
>>> rep = analyze_score_sums(sums, names=("new", "old"))
>>> round(rep.tests["t"].pvalue, 6), rep.recommended, "wilcoxon" in rep.extra["sums"]["left_out"]
(0.003772, 't', True)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from mcnemar import vocabulary
from mcnemar._format import json_value
from mcnemar.errors import McNemarError
from mcnemar.inference import check_alternative, pvalues
from mcnemar.intervals import ConfidenceInterval
from mcnemar.report._compute import check_level, system_names
from mcnemar.scores import _intervals, _tests
from mcnemar.scores import _words as words
from mcnemar.scores._epochs import SAMPLES_SHOWN, EpochsResult
from mcnemar.scores._report import (
    ASSUMPTIONS,
    CLUSTERED_ASSUMPTIONS,
    ScoreReport,
    UnpairedResult,
    _detectable,
    _label,
    _noninferiority,
    _ratio,
)
from mcnemar.scores._tests import ScoreTestResult

__all__ = ["LEFT_OUT", "ScoreSums", "analyze_score_sums", "compare_score_sums", "score_sums",
           "sums_of"]

#: What the sums cannot give: the tests and intervals that need the items in memory.
#: What sums cannot give (the rank and resampling tests and intervals need the items): every
#: test and interval of the score report but the t and sign tests and the t interval.
LEFT_OUT = tuple(dict.fromkeys(
    [name for name in vocabulary.names(vocabulary.SCORE_TESTS) if name not in ("t", "sign")]
    + [name for name in vocabulary.names(vocabulary.SCORE_INTERVALS) if name != "t"]))


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoreSums:
    r"""The sums of two runs' paired scores from which a score report is built.

    With :math:`d_i = a_i - b_i` over the n items (the item means, when items were scored
    several times), and the means :math:`\bar a, \bar b, \bar d` of the first pass.

    Attributes
    ----------
    n : int
        Items.
    sum_a, sum_b, sum_difference : float
        :math:`\sum a_i`, :math:`\sum b_i`, :math:`\sum d_i`.
    squares_a, squares_b, squares_difference : float
        :math:`\sum (a_i - \bar a)^2` and likewise for b and d.
    cross : float
        :math:`\sum (a_i - \bar a)(b_i - \bar b)`.
    cubes_difference : float
        :math:`\sum (d_i - \bar d)^3` (the skewness of the differences).
    higher_a, equal, higher_b : int
        Items with :math:`d_i > 0`, :math:`d_i = 0`, :math:`d_i < 0`.
    not_binary : int
        Rows with a score other than 0 or 1 (0: pass/fail data).
    engine : str
        Where the sums were computed.
    rows : int or None
        Rows (samples), when the rows are repeated samples of the items.
    max_samples : int
        The most samples of one item.
    inverse_samples : float or None
        :math:`\sum_i 1/k_i` over the items' numbers of samples :math:`k_i`.
    within_a, within_b : float or None
        :math:`\sum_i \sum_k (s_{ik} - \bar s_i)^2`: each system's scores about their item
        means.
    clusters : int or None
        Clusters G, when the items come in clusters.
    cluster_squares : float or None
        :math:`\sum_g \big(\sum_{i \in g} (d_i - \bar d)\big)^2` (the CR1 standard error).
    cluster_skewness : float or None
        The skewness of the clusters' mean differences (which test to report).
    alignment : Alignment or None
        How two runs' items were paired.
    """

    n: int
    sum_a: float
    sum_b: float
    sum_difference: float
    squares_a: float
    squares_b: float
    squares_difference: float
    cross: float
    cubes_difference: float
    higher_a: int
    equal: int
    higher_b: int
    not_binary: int
    engine: str
    rows: int | None = None
    max_samples: int = 1
    inverse_samples: float | None = None
    within_a: float | None = None
    within_b: float | None = None
    clusters: int | None = None
    cluster_squares: float | None = None
    cluster_skewness: float | None = None
    alignment: Any = None

    @property
    def mean_a(self) -> float:
        return self.sum_a / self.n

    @property
    def mean_b(self) -> float:
        return self.sum_b / self.n

    @property
    def mean_difference(self) -> float:
        return self.sum_difference / self.n

    @property
    def binary(self) -> bool:
        """Every score is 0 or 1 (pass/fail data)."""
        return self.not_binary == 0

    def to_dict(self) -> dict[str, Any]:
        """The sums as JSON-safe data (no alignment)."""
        names = ("n", "sum_a", "sum_b", "sum_difference", "squares_a", "squares_b",
                 "squares_difference", "cross", "cubes_difference", "higher_a", "equal",
                 "higher_b", "not_binary", "engine", "rows", "max_samples", "inverse_samples",
                 "within_a", "within_b", "clusters", "cluster_squares", "cluster_skewness")
        return {k: json_value(getattr(self, k)) for k in names}


# ------------------------------------------------------------------------------ the sums


def _nw() -> Any:
    from mcnemar.io._frames import _nw as narwhals

    return narwhals()


def _one_row(frame: Any) -> dict[str, Any]:
    from mcnemar.io._frames import _rows

    rows = _rows(frame)
    return rows[0] if rows else {}


def _float(value: Any) -> float:
    return math.nan if value is None else float(value)


def _int(value: Any) -> int:
    return 0 if value is None else int(value)


def sums_of(paired: Any) -> ScoreSums:
    """The sums of a :class:`~mcnemar.io._frames.PairedScores`, computed in its engine.

    Two aggregations over the items (the item means first, when the rows are samples of
    items), and two over the clusters when there are clusters; each returns one row.
    """
    from mcnemar.io._frames import SCORE_A, SCORE_B, _frame_failure

    try:
        return _sums(paired, SCORE_A, SCORE_B)
    except McNemarError:
        raise
    except Exception as exc:  # the engine's own errors
        raise _frame_failure(exc, paired.engine) from None


def _sums(paired: Any, col_a: str, col_b: str) -> ScoreSums:
    nw = _nw()
    a, b = nw.col(col_a), nw.col(col_b)
    frame = paired.frame
    not01 = ((a != 0) & (a != 1)) | ((b != 0) & (b != 1))
    k = nw.col("__mcn_k")
    epochs: dict[str, Any] = {}
    if paired.items:
        keys = [*paired.items, *([paired.cluster] if paired.cluster else [])]
        items = frame.with_columns(not01.cast(nw.Int64).alias("__mcn_nb")).group_by(keys).agg(
            a.mean().alias(col_a), b.mean().alias(col_b),
            a.var(ddof=0).alias("__mcn_wa"), b.var(ddof=0).alias("__mcn_wb"),
            nw.len().alias("__mcn_k"), nw.col("__mcn_nb").sum().alias("__mcn_nb"))
        extra = [k.sum().alias("rows"), k.max().alias("max_k"), (1.0 / k).sum().alias("inv_k"),
                 (k * nw.col("__mcn_wa").fill_null(0.0)).sum().alias("within_a"),
                 (k * nw.col("__mcn_wb").fill_null(0.0)).sum().alias("within_b"),
                 nw.col("__mcn_nb").sum().alias("not01")]
    else:
        items = frame
        extra = [not01.cast(nw.Int64).sum().alias("not01")]
    d, i64 = a - b, nw.Int64
    first = _one_row(items.select(
        nw.len().alias("n"), a.sum().alias("sa"), b.sum().alias("sb"), d.sum().alias("sd"),
        # Booleans are cast before they are summed: Spark sums no booleans.
        (d > 0).cast(i64).sum().alias("pos"), (d < 0).cast(i64).sum().alias("neg"),
        (d == 0).cast(i64).sum().alias("zero"),
        *extra))
    n = _int(first.get("n"))
    if n < 2:
        raise McNemarError(f"a paired comparison needs at least 2 items, got {n}",
                           argument="scores_a")
    if paired.items and paired.cluster:
        distinct = _one_row(items.group_by(list(paired.items)).agg(nw.len().alias("k"))
                            .select(nw.len().alias("n")))
        if _int(distinct.get("n")) != n:
            raise McNemarError("cluster must give every sample of an item the same cluster",
                               argument="cluster")
    sa, sb, sd = _float(first["sa"]), _float(first["sb"]), _float(first["sd"])
    ma, mb, md = sa / n, sb / n, sd / n
    second = _one_row(items.select(
        ((a - ma) ** 2).sum().alias("ssa"), ((b - mb) ** 2).sum().alias("ssb"),
        ((a - ma) * (b - mb)).sum().alias("sab"), ((d - md) ** 2).sum().alias("ssd"),
        ((d - md) ** 3).sum().alias("s3d")))
    if paired.items:
        epochs = dict(rows=_int(first["rows"]), max_samples=_int(first["max_k"]),
                      inverse_samples=_float(first["inv_k"]),
                      within_a=_float(first["within_a"]), within_b=_float(first["within_b"]))
    clusters: dict[str, Any] = {}
    if paired.cluster:
        per = items.with_columns((d - md).alias("__mcn_dc"), d.alias("__mcn_d")).group_by(
            paired.cluster).agg(nw.col("__mcn_dc").sum().alias("dc"),
                                nw.col("__mcn_d").sum().alias("ds"), nw.len().alias("w"))
        unit = nw.col("ds") / nw.col("w")
        third = _one_row(per.select(nw.len().alias("G"), (nw.col("dc") ** 2).sum().alias("css"),
                                    unit.sum().alias("su")))
        groups = _int(third["G"])
        mu = _float(third["su"]) / groups
        fourth = _one_row(per.select(((unit - mu) ** 2).sum().alias("m2"),
                                     ((unit - mu) ** 3).sum().alias("m3")))
        m2, m3 = _float(fourth["m2"]) / groups, _float(fourth["m3"]) / groups
        clusters = dict(clusters=groups, cluster_squares=_float(third["css"]),
                        cluster_skewness=m3 / m2**1.5 if m2 > 0 else 0.0)
    return ScoreSums(
        n=n, sum_a=sa, sum_b=sb, sum_difference=sd, squares_a=_float(second["ssa"]),
        squares_b=_float(second["ssb"]), squares_difference=_float(second["ssd"]),
        cross=_float(second["sab"]), cubes_difference=_float(second["s3d"]),
        higher_a=_int(first["pos"]), equal=_int(first["zero"]), higher_b=_int(first["neg"]),
        not_binary=_int(first["not01"]), engine=paired.engine, **epochs, **clusters,
        alignment=_alignment(paired, n, clusters.get("clusters")),
    )


def _alignment(paired: Any, n: int, groups: int | None) -> Any:
    """The pairing's Alignment, its clusters counted (the items, for samples of items)."""
    if paired.summary is None:
        return None
    from mcnemar.io.align import Alignment

    summary = paired.summary
    if paired.items and not paired.cluster:
        summary = replace(summary, clusters=n)
    elif groups is not None:
        summary = replace(summary, clusters=groups)
    return Alignment(counts=paired.counts, summary=summary)


def score_sums(
    frame_a: Any,
    frame_b: Any = None,
    *,
    id: str | Sequence[str] | None = None,
    score: str | None = None,
    score_a: str | None = None,
    score_b: str | None = None,
    sample: str | None = None,
    item: str | Sequence[str] | None = None,
    cluster: str | None = None,
    on_missing: str = "error",
    reduce: str | None = None,
    names: tuple[str, str] = ("A", "B"),
) -> ScoreSums:
    """The sums of two runs' paired scores, computed inside the frames' engine.

    Either two frames, one per run, paired by item id inside the engine with the rules of
    :func:`mcnemar.io.align` (``id``, ``score``; no score is refused for not being 0/1), or one
    frame with a column per run (``score_a``, ``score_b``), a row per item.

    Parameters
    ----------
    frame_a, frame_b : DataFrame
        pandas, polars (eager or lazy), pyarrow, DuckDB relations, Dask or PySpark; both of
        one kind. Without ``frame_b``, ``frame_a`` holds both runs' scores.
    id : str or list of str
        The item id column(s) of two frames.
    score : str
        The score column of two frames.
    score_a, score_b : str
        The score columns of one frame.
    sample : str, optional
        Two frames: a column numbering repeated samples of an item. Items with several
        samples are paired sample by sample and analysed on their item means (as
        :func:`mcnemar.scores.compare_scores` does), or with ``cluster`` reduced to their
        mean within the cluster.
    item : str or list of str, optional
        One frame: the column(s) naming the item when the rows are its repeated samples.
    cluster : str, optional
        A column of the items' clusters (in one frame, or either of two).
    on_missing : {"error", "intersect"}
        Items in one run only, or without a score: refused, or left out.
    reduce : {None, "mean", "first", "cluster"}
        Two frames with ``sample``: how the samples of an item are combined before pairing
        (see :func:`mcnemar.io.align`); None pairs them sample by sample.
    names : tuple of str
        The runs' names in the alignment's messages.

    Returns
    -------
    ScoreSums
        A handful of numbers: nothing but them comes back from the engine.

    Examples
    --------
    >>> import pandas as pd
    >>> a = pd.DataFrame({"id": ["q1", "q2", "q3", "q4"], "s": [0.9, 0.5, 0.7, 1.0]})
    >>> b = pd.DataFrame({"id": ["q4", "q3", "q2", "q1"], "s": [0.5, 0.6, 0.5, 0.4]})
    >>> sums = score_sums(a, b, id="id", score="s")
    >>> sums.n, round(sums.mean_difference, 3), sums.alignment.summary.matched
    (4, 0.275, 4)
    """
    from mcnemar.io._frames import pair_score_frames, paired_score_columns

    if frame_b is None:
        if score_a is None or score_b is None:
            raise McNemarError("one frame holds both runs: name their columns with score_a and "
                               "score_b", argument="score_a")
        if id is not None or score is not None or sample is not None:
            raise McNemarError("id, score and sample pair two frames; one frame with score_a "
                               "and score_b takes item and cluster", argument="id")
        paired = paired_score_columns(frame_a, score_a=score_a, score_b=score_b, item=item,
                                      cluster=cluster, on_missing=on_missing)
    else:
        if id is None or score is None:
            raise McNemarError("two frames are paired by an id column and a score column: give "
                               "id and score", argument="id")
        if score_a is not None or score_b is not None or item is not None:
            raise McNemarError("score_a, score_b and item are for one frame holding both runs; "
                               "two frames take id, score and sample", argument="score_a")
        paired = pair_score_frames(frame_a, frame_b, id=id, score=score, sample=sample,
                                   cluster=cluster, on_missing=on_missing, reduce=reduce,
                                   names=names)
    return sums_of(paired)


# ---------------------------------------------------------------------------- the report


def _not_computed(what: str, n: int, engine: str) -> str:
    return (f"not computed: {what} the {n} items, which the sums computed in the {engine} "
            "engine do not keep")


def _reason(*, units: int, skewness: float, clusters: int | None, sign: ScoreTestResult,
            binary: bool) -> str:
    """Why the t test is the one reported, in the words of :func:`words.recommendation`."""
    need = words.RULE_BASE + words.RULE_SKEW * skewness * skewness
    unit = "clusters" if clusters else "items"
    rule = (f"{units} {unit} and a skewness of the differences of {skewness:.2g}: Cochran's "
            f"rule as refined by Sugden, Smith & Jones (2000) trusts the t test's normal "
            f"approximation of the mean once there are more than 28 + 25 g1^2 = {need:.3g} "
            f"{unit}")
    robust = " (cluster-robust)" if clusters else ""
    if units > need:
        head = rule + ", so report the paired t test" + robust + "."
    else:
        head = (rule + "; there are not, and the permutation test of the same mean difference "
                "that would be reported instead needs the items in memory, which the sums do "
                "not keep: the paired t test" + robust + " is reported, and its p-value rests "
                "on a normal approximation these data may not support.")
    p = words.pvalue_text(sign.pvalue, sign.log10_pvalue)
    tail = (f" The sign test (p = {p}) asks whether the median difference is zero, not the "
            "mean: report it only if that is the question.")
    if binary:
        tail += " On 0/1 scores the sign test is McNemar's exact test."
    return head + tail


def _epochs_result(sums: ScoreSums) -> EpochsResult | None:
    """The variance within and between items (as :func:`mcnemar.scores._epochs.epochs`)."""
    if sums.rows is None or sums.max_samples <= 1 or sums.inverse_samples is None:
        return None
    n = sums.n
    dof = float(sums.rows - n)
    wa = _float(sums.within_a) / dof
    wb = _float(sums.within_b) / dof
    inv_k = sums.inverse_samples / n
    var_d = sums.squares_difference / (n - 1)
    var_a, var_b = sums.squares_a / (n - 1), sums.squares_b / (n - 1)
    omega = max(0.0, var_d - (wa + wb) * inv_k)
    observed = var_d / n
    at = {k: math.sqrt(max(omega / n, observed + (wa + wb) * (1.0 / k - inv_k) / n))
          for k in SAMPLES_SHOWN}
    at[0] = math.sqrt(omega / n)
    return EpochsResult(
        items=n, samples=sums.rows, samples_per_item=sums.rows / n, within_a=wa, within_b=wb,
        between_a=max(0.0, var_a - wa * inv_k), between_b=max(0.0, var_b - wb * inv_k),
        between_difference=omega, standard_error=math.sqrt(var_d / n), standard_error_at=at)


def analyze_score_sums(
    sums: ScoreSums,
    *,
    names: tuple[str, str] = ("A", "B"),
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
    alpha: float = 0.05,
    power: float = 0.8,
    margin: float | None = None,
    alignment: Any = None,
) -> ScoreReport:
    r"""The paired comparison of scores from their sums (:class:`ScoreSums`).

    The same report as :func:`~mcnemar.scores.analyze_scores` on the items the sums were
    taken over, with the same numbers for what sums give: with :math:`n` items,
    :math:`s_d^2 = \sum (d_i - \bar d)^2 / (n - 1)` and :math:`g_1 = m_3 / m_2^{3/2}` (the
    central moments :math:`m_r = \sum (d_i - \bar d)^r / n`), the paired t test
    :math:`t = \bar d / (s_d / \sqrt n)` on :math:`n - 1` degrees of freedom (with clusters,
    the CR1 standard error :math:`\sqrt{G/(G-1) \cdot \sum_g (\sum_{i \in g} (d_i - \bar d))^2}
    / n` on :math:`G - 1`), its interval, the exact sign test on the counts of positive and
    negative differences, Welch's unpaired test from :math:`\sum (a_i - \bar a)^2` and
    :math:`\sum (b_i - \bar b)^2`, the detectable difference, the non-inferiority test and,
    with repeated samples, the within- and between-item variance.

    The Wilcoxon signed-rank test, the permutation test, the bootstrap interval and the
    Hodges-Lehmann estimate need the items themselves: their entries say "not computed",
    a warning says why and for how many items, and ``extra["sums"]`` (the JSON's ``"sums"``)
    lists them. The t test is then the one reported, also where Cochran's rule would have
    preferred the permutation test; the reason says so.

    Parameters
    ----------
    sums : ScoreSums
        From :func:`score_sums` (or computed elsewhere, e.g. in SQL, by the same definitions).
    names, alternative, confidence_level, alpha, power, margin
        As for :func:`~mcnemar.scores.analyze_scores`.
    alignment : object, optional
        How the items were paired (default: the sums').

    Returns
    -------
    ScoreReport

    Examples
    --------
    Student's sleep data, from its sums (R ``t.test(extra ~ group, data = sleep, paired =
    TRUE)``: t = -4.0621, p = 0.002833):

    >>> sums = ScoreSums(n=10, sum_a=7.5, sum_b=23.3, sum_difference=-15.8, squares_a=28.805,
    ...                  squares_b=36.081, squares_difference=13.616, cross=25.635,
    ...                  cubes_difference=-23.38704, higher_a=0, equal=1, higher_b=9,
    ...                  not_binary=19, engine="sql")
    >>> rep = analyze_score_sums(sums, names=("drug 1", "drug 2"))
    >>> t = rep.tests["t"]
    >>> round(t.statistic, 4), round(t.pvalue, 6), [round(x, 4) for x in rep.intervals["t"]]
    (-4.0621, 0.002833, [-2.4599, -0.7001])
    """
    opts_names = system_names(names)
    alt = check_alternative(alternative)
    level = check_level("confidence_level", confidence_level)
    alpha_ = check_level("alpha", alpha)
    target = check_level("power", power)
    if margin is not None:
        from mcnemar.validation import check_positive

        margin = check_positive(margin, "margin", what="a margin in score units")
    if alignment is None:
        alignment = sums.alignment
    n = sums.n
    if n < 2:
        raise McNemarError(f"a paired comparison needs at least 2 items, got {n}",
                           argument="sums")
    groups = sums.clusters
    if groups is not None and groups < 2:
        raise McNemarError(f"the items must come in at least 2 clusters, got {groups}",
                           argument="sums")
    mean = sums.mean_difference
    with np.errstate(invalid="ignore", divide="ignore"):
        f = np.float64
        sd_a = float(np.sqrt(f(sums.squares_a) / (n - 1)))
        sd_b = float(np.sqrt(f(sums.squares_b) / (n - 1)))
        sd_d = float(np.sqrt(f(sums.squares_difference) / (n - 1)))
        corr = float(f(sums.cross / (n - 1)) / f(sd_a * sd_b))
        m2 = sums.squares_difference / n
        skew = float(f(sums.cubes_difference / n) / f(m2) ** 1.5) if m2 > 0 else 0.0
        se_iid = sd_d / math.sqrt(n)
        if groups:
            se = float(np.sqrt(f(groups / (groups - 1) * _float(sums.cluster_squares)))) / n
            df = groups - 1.0
            skew = _float(sums.cluster_skewness)
        else:
            se, df = se_iid, n - 1.0
    tests, intervals = _sum_tests(sums, mean, se, df, groups, alt, level)
    binary = sums.binary
    reason = _reason(units=groups or n, skewness=skew, clusters=groups, sign=tests["sign"],
                     binary=binary)
    warn = [*_warnings(sums, opts_names, groups),
            *(getattr(alignment, "warnings", None) or ())]
    welch = _welch(sums, alt)
    partial: dict[str, Any] = dict(
        names=opts_names, alternative=alt, alpha=alpha_, confidence_level=level,
        zero_method="wilcox", n=n, mean_a=sums.mean_a, mean_b=sums.mean_b, difference=mean,
        sd_a=sd_a, sd_b=sd_b, correlation=corr, sd_difference=sd_d,
        effect_size=_ratio(mean, sd_d), standard_error=se, standard_error_independent=se_iid,
        skewness=skew, higher_a=sums.higher_a, equal=sums.equal, higher_b=sums.higher_b,
        tests=tests, intervals=intervals, hodges_lehmann=None, hodges_lehmann_level=None,
        recommended="t", recommendation_reason=reason, recommended_interval="t",
        unpaired=welch, detectable_difference=_detectable(n, sd_d, se, df, groups, target,
                                                          alpha_, alt),
        power_target=target, epochs=_epochs_result(sums), clusters=groups, binary=binary,
        assumptions=CLUSTERED_ASSUMPTIONS if groups else ASSUMPTIONS, warnings=tuple(warn),
        alignment=alignment,
        extra={"sums": {"engine": sums.engine, "items": n, "rows": sums.rows or n,
                        "left_out": list(LEFT_OUT),
                        "reason": "these need the items in memory (ranks, resamples, Walsh "
                                  "averages); the sums computed in the engine do not keep "
                                  "them"}},
    )
    if margin is not None:
        partial["noninferiority"] = _noninferiority(mean, se, df, margin, alpha_)
    conclusion = words.conclusion(partial)
    return ScoreReport(conclusion=conclusion, **partial)


def _sum_tests(sums: ScoreSums, mean: float, se: float, df: float, groups: int | None,
               alt: str, level: float
               ) -> tuple[dict[str, ScoreTestResult], dict[str, ConfidenceInterval]]:
    """The four tests (two of them not computed, and why) and the t interval."""
    n, engine, arr = sums.n, sums.engine, np.array
    t, tp, tlog = _tests.t_test(arr([mean]), arr([se]), arr([df]), alt)
    _, sp, slog, _ = pvalues(arr([sums.higher_a]), arr([sums.higher_b]), "exact", alt)
    tlo, thi = _intervals.t_interval(arr([mean]), arr([se]), arr([df]), level)
    made = (
        ScoreTestResult(
            test="t", name=_label("t"), statistic=float(t[0]), statistic_name="t",
            pvalue=float(tp[0]), log10_pvalue=float(tlog[0]), alternative=alt, df=df,
            convention=("mean difference over its cluster-robust (CR1) standard error, t on "
                        f"{groups} - 1 degrees of freedom") if groups else
                       "mean difference over its standard error, t on n - 1 degrees of "
                       "freedom"),
        ScoreTestResult(
            test="wilcoxon", name=_label("wilcoxon"), statistic=math.nan, statistic_name="V",
            pvalue=math.nan, log10_pvalue=math.nan, alternative=alt, exact=False,
            convention=_not_computed("the signed-rank test ranks", n, engine)),
        ScoreTestResult(
            test="sign", name=_label("sign"), statistic=float(sums.higher_a),
            statistic_name="positives", pvalue=float(sp[0]), log10_pvalue=float(slog[0]),
            alternative=alt,
            convention="positive differences among the non-zero ones, Bin(n, 1/2), exact "
                       "(McNemar's exact test on 0/1 scores)"),
        ScoreTestResult(
            test="permutation", name=_label("permutation"), statistic=sums.sum_difference,
            statistic_name="sum", pvalue=math.nan, log10_pvalue=math.nan, alternative=alt,
            exact=False, convention=_not_computed("the sign flips resample", n, engine)),
    )
    # Keyed by each result's own test name, in the vocabulary's order.
    tests = {r.test: r for r in made}
    return tests, {"t": ConfidenceInterval(float(tlo[0]), float(thi[0]))}


def _warnings(sums: ScoreSums, names: tuple[str, str], groups: int | None) -> list[str]:
    """What was left out and for how many items, then the in-memory report's warnings."""
    n = sums.n
    rows = f" ({sums.rows} rows)" if sums.rows is not None and sums.rows != n else ""
    warn = [f"computed from sums in the {sums.engine} engine, without collecting the {n} items"
            f"{rows}: the Wilcoxon signed-rank test, the permutation test, the bootstrap "
            f"interval and the Hodges-Lehmann estimate need the {n} items in memory and were "
            "left out (mcnemar.scores.compare_scores with engine='numpy', or analyze_scores "
            "on the collected scores, computes them)"]
    differ = sums.higher_a + sums.higher_b
    if differ == 0:
        warn.append(f"{names[0]} and {names[1]} scored the same on every item: every test "
                    "gives p = 1 and the data say nothing about which is better.")
    elif differ < 6:
        warn.append(f"only {differ} items scored differently: the test set is too small to "
                    "separate these systems.")
    if sums.binary:
        warn.append("every score is 0 or 1: this is pass/fail data, for which McNemar's "
                    "analysis (mcnemar.analyze, or compare --analysis pass-fail) is "
                    "designed; its exact test is the sign test here.")
    if groups:
        warn.append("the sign test treats the items as independent; with clustered items it "
                    "overstates the evidence.")
    return warn


def _welch(sums: ScoreSums, alternative: str) -> UnpairedResult:
    """Welch's t test from the sums (as :func:`mcnemar.scores._report._welch`)."""
    n = sums.n
    va = sums.squares_a / (n - 1) / n
    vb = sums.squares_b / (n - 1) / n
    se = np.sqrt(np.array([va + vb]))
    with np.errstate(invalid="ignore", divide="ignore"):
        df = np.array([va + vb]) ** 2 / (np.array([va]) ** 2 / (n - 1) + vb**2 / (n - 1))
    diff = np.array([sums.mean_a - sums.mean_b])
    t, p, log10p = _tests.t_test(diff, se, np.where(np.isfinite(df), df, n - 1.0),
                                 alternative)
    return UnpairedResult(statistic=float(t[0]), df=float(df[0]), pvalue=float(p[0]),
                          log10_pvalue=float(log10p[0]), standard_error=float(se[0]))


# ------------------------------------------------------------------------ deferred runs


#: The keywords of :func:`analyze_score_sums` a comparison of runs passes on.
ANALYSIS = ("alternative", "confidence_level", "alpha", "power", "margin")


def compare_score_sums(run_a: Any, run_b: Any, *, names: Sequence[str] | None = None,
                       **options: Any) -> ScoreReport:
    """Pair two deferred runs inside DuckDB and compare their scores from the sums.

    The path :func:`mcnemar.scores.compare_scores` takes for two deferred runs (Parquet,
    large CSV/JSONL) unless ``engine="numpy"``: the identity checks and the pairing rules
    are :func:`mcnemar.io.align`'s (``keep_scores=True``), the sums are computed inside DuckDB
    and the report is :func:`analyze_score_sums`'. The options are ``compare_scores``'; those
    of the tests that need the items (``zero_method``, ``n_resamples``, ``random_state``)
    have nothing to act on.
    """
    from mcnemar.io._frames import pair_scores_in_duckdb
    from mcnemar.io.identity import check_identities

    check = check_identities(
        run_a.identity, run_b.identity, path_a=run_a.path, path_b=run_b.path,
        allow_different_tasks=bool(options.get("allow_different_tasks")),
        allow_different_scorers=bool(options.get("allow_different_scorers")))
    paired = pair_scores_in_duckdb(run_a, run_b, on_missing=options.get("on_missing") or "error",
                                   reduce=options.get("reduce"))
    sums = sums_of(paired)
    alignment = sums.alignment
    summary = alignment.summary
    summary = replace(summary, run_a=replace(summary.run_a, identity=run_a.identity),
                      run_b=replace(summary.run_b, identity=run_b.identity),
                      overridden=check.overridden)
    alignment = replace(alignment, summary=summary)
    kwargs = {k: options[k] for k in ANALYSIS if options.get(k) is not None}
    if names is None:
        # The runs' names, told apart when they are the same (as compare_scores tells them).
        first, second = summary.run_a.name, summary.run_b.name
        names = (f"{first} (A)", f"{second} (B)") if first == second else (first, second)
    return analyze_score_sums(replace(sums, alignment=alignment),
                              names=(str(names[0]), str(names[1])), **kwargs)

