"""The full paired comparison of two runs' per-item scores: :func:`analyze_scores`.

Every number comes from :mod:`mcnemar.scores._tests` (the tests),
:mod:`mcnemar.scores._intervals` (the intervals), :mod:`mcnemar.scores._epochs` (repeated
samples and clusters) and :mod:`mcnemar.scores._planning` (the detectable difference); the
words are :mod:`mcnemar.scores._words`' and the renderings :mod:`mcnemar.scores._render`'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from mcnemar import vocabulary
from mcnemar._format import Rendered, json_fields
from mcnemar._format import json_value as _plain
from mcnemar.errors import McNemarError
from mcnemar.inference import check_alternative
from mcnemar.intervals import ConfidenceInterval
from mcnemar.report import Conclusion
from mcnemar.report._compute import check_level, system_names
from mcnemar.scores import _epochs, _intervals, _planning, _tests
from mcnemar.scores import _render as render
from mcnemar.scores import _words as words
from mcnemar.scores._epochs import EpochsResult
from mcnemar.scores._tests import ScoreTestResult
from mcnemar.validation import check_choice, check_count, check_scores

FloatArray = NDArray[np.float64]

SCHEMA = "mcnemar.scores/1"
#: The tests and intervals, in the order the report lists them.
TEST_ORDER = vocabulary.names(vocabulary.SCORE_TESTS)
INTERVAL_ORDER = vocabulary.names(vocabulary.SCORE_INTERVALS)
#: Most resampled values (units x resamples) the permutation test and the bootstrap draw; past
#: it they are not computed (and say so).
MAX_RESAMPLING = 250_000_000
#: Most differences whose Hodges-Lehmann estimate is computed.
MAX_HODGES_LEHMANN = 200_000

ASSUMPTIONS = (
    "The items are independent of one another (no groups of related questions, no repeated "
    "samples of one item counted as separate items); otherwise give the clusters or the items.",
    "Both systems were fixed before scoring and were scored on exactly the same items, with "
    "the same scorer.",
    "The test set was not used to choose, tune or select either system (an honest held-out set).",
    "The scores are on one scale for both systems, so that their difference means the same on "
    "every item.",
)
CLUSTERED_ASSUMPTIONS = (
    "The clusters are independent of one another; items within a cluster may be related.",
    *ASSUMPTIONS[1:],
)


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of :meth:`ScoreReport.to_dict`, shipped with the package.

    Examples
    --------
    >>> json_schema()["$id"]
    'mcnemar.scores/1'
    """
    from mcnemar._format import shipped_schema

    return shipped_schema("scores-1")


@dataclass(frozen=True, slots=True, kw_only=True)
class UnpairedResult:
    """Welch's t test on the same scores as if they came from independent samples: the
    comparison that ignores the pairing (the pitfall the report shows)."""

    statistic: float
    df: float
    pvalue: float
    log10_pvalue: float
    standard_error: float

    def to_dict(self) -> dict[str, Any]:
        return {"name": "Welch's t test (unpaired)",
                **json_fields(self, "statistic", "df", "pvalue", "log10_pvalue",
                              "standard_error")}


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoreNonInferiority:
    r"""The test that A is not worse than B by ``margin`` or more (in score units): the
    one-sided t test of :math:`H_0: \delta \le -m` against :math:`\delta > -m`,
    :math:`t = (\bar d + m)/SE`, at level alpha, with the matching 1 - 2 alpha t interval."""

    margin: float
    statistic: float
    pvalue: float
    noninferior: bool
    low: float
    high: float
    level: float

    def to_dict(self) -> dict[str, Any]:
        return json_fields(self, "margin", "statistic", "pvalue", "noninferior", "low", "high",
                           "level")


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoreReport(Rendered):
    """The paired comparison of two runs' per-item scores; see :func:`analyze_scores`.

    ``str(report)`` is the text report, :meth:`to_markdown` the markdown, :meth:`to_dict` the
    JSON (schema ``mcnemar.scores/1``); in a notebook it shows as a compact HTML table.

    Attributes
    ----------
    names : tuple of str
    n : int
        Items (item means when items were scored several times).
    mean_a, mean_b : float
        Mean score of each system.
    difference : float
        mean(A) - mean(B), in score units.
    sd_a, sd_b, correlation : float
        The spread of each system's scores and their correlation over the items (NaN where
        undefined).
    sd_difference : float
        Standard deviation of the per-item differences (ddof 1).
    effect_size : float
        difference / sd_difference (the standardised mean difference of paired data).
    standard_error : float
        Of the mean difference (cluster-robust with clusters).
    standard_error_independent : float
        Of the mean difference, treating the items as independent (sd_difference / sqrt(n)).
    skewness : float
        Sample skewness of the differences (of the clusters' mean differences with clusters).
    higher_a, equal, higher_b : int
        Items where A scored higher, where the two were equal, where B scored higher.
    tests : dict of str to ScoreTestResult
        ``"t"``, ``"wilcoxon"``, ``"sign"``, ``"permutation"``.
    intervals : dict of str to ConfidenceInterval
        ``"t"`` and ``"bootstrap"`` for the mean difference, ``"hodges-lehmann"`` for the
        pseudomedian (a different estimand); an interval not computed is absent.
    hodges_lehmann : float or None
        The Hodges-Lehmann estimate (median of the Walsh averages of the differences).
    hodges_lehmann_level : float or None
        The achieved level of its interval.
    recommended, recommendation_reason : str
        The test whose p-value to report, and why.
    recommended_interval : str
        ``"t"`` or ``"bootstrap"``: the interval the conclusion states.
    unpaired : UnpairedResult
    detectable_difference : float or None
        The mean difference the recommended t test had ``power_target`` power to detect.
    conclusion : Conclusion
    epochs : EpochsResult or None
        Within- and between-item variance when items were scored several times.
    noninferiority : ScoreNonInferiority or None
        The test against a margin, when one was given.
    flips : ScoreFlips or None
        The items the two runs scored differently (:class:`mcnemar.flips.ScoreFlips`): those
        A scored higher and those B scored higher, the largest differences first, when the
        report is of paired runs (:func:`mcnemar.scores.compare_scores`); ``None`` for scores
        given as arrays. The JSON lists the first 20 of each side; the text and markdown list
        them when asked for (``flips.shown``).
    clusters : int or None
        Clusters, when the items come in clusters.
    binary : bool
        Every score is 0 or 1 (pass/fail data).
    """

    _renderer: ClassVar[Any] = render

    names: tuple[str, str]
    alternative: str
    alpha: float
    confidence_level: float
    zero_method: str
    n: int
    mean_a: float
    mean_b: float
    difference: float
    sd_a: float
    sd_b: float
    correlation: float
    sd_difference: float
    effect_size: float
    standard_error: float
    standard_error_independent: float
    skewness: float
    higher_a: int
    equal: int
    higher_b: int
    tests: dict[str, ScoreTestResult]
    intervals: dict[str, ConfidenceInterval]
    hodges_lehmann: float | None
    hodges_lehmann_level: float | None
    recommended: str
    recommendation_reason: str
    recommended_interval: str
    unpaired: UnpairedResult
    detectable_difference: float | None
    power_target: float
    conclusion: Conclusion
    epochs: EpochsResult | None = None
    clusters: int | None = None
    binary: bool = False
    n_resamples: int = 10_000
    assumptions: tuple[str, ...] = ASSUMPTIONS
    warnings: tuple[str, ...] = ()
    alignment: Any = None
    noninferiority: ScoreNonInferiority | None = None
    flips: Any = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def pvalue(self) -> float:
        """The recommended p-value."""
        return float(self.tests[self.recommended].pvalue)

    @property
    def log10_pvalue(self) -> float:
        return float(self.tests[self.recommended].log10_pvalue)

    @property
    def headline_interval(self) -> ConfidenceInterval | None:
        """The interval of the mean difference the conclusion states."""
        return self.intervals.get(self.recommended_interval)

    def words(self) -> str:
        """The per-item comparison in words."""
        return words.counts_text(self)

    def score_text(self, value: float, *, signed: bool = True) -> str | None:
        """A quantity in score units as the report prints it (its decimals; ``None`` for a
        value that is not finite), e.g. ``rep.score_text(rep.difference)``: ``"+0.059"``."""
        return words.score(value, self, signed=signed)

    def __repr__(self) -> str:
        return (f"ScoreReport(A={self.names[0]!r}, B={self.names[1]!r}, n={self.n}, "
                f"difference={self.difference:.4g}, pvalue={self.pvalue:.4g}, "
                f"recommended={self.recommended!r})")

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-safe data (schema ``mcnemar.scores/1``)."""
        level = self.confidence_level
        out: dict[str, Any] = {
            "schema": SCHEMA,
            "names": {"a": self.names[0], "b": self.names[1]},
            "n": self.n,
            "words": self.words(),
            "alternative": self.alternative,
            "alpha": self.alpha,
            "confidence_level": level,
            "zero_method": self.zero_method,
            "means": {"a": _plain(self.mean_a), "b": _plain(self.mean_b)},
            "spread": json_fields(self, "sd_a", "sd_b", "correlation", "sd_difference",
                                  "effect_size", "standard_error",
                                  "standard_error_independent", "skewness"),
            "counts": {"higher_a": self.higher_a, "equal": self.equal,
                       "higher_b": self.higher_b},
            "binary": self.binary,
            "tests": {
                key: {**self.tests[key].to_dict(), "recommended": key == self.recommended,
                      # The numbers as the tests table prints them (a page shows these).
                      "statistic_text": render.statistic_text(self, key),
                      "pvalue_text": render.pvalue_text(self, key),
                      "detail_text": render.detail_text(self, key)}
                for key in TEST_ORDER
            },
            "recommended": {"test": self.recommended, "reason": self.recommendation_reason},
            "difference": {
                "estimate": _plain(self.difference),
                "estimate_text": words.score(self.difference, self),
                "confidence_level": level,
                "intervals": {
                    key: {**ci.to_dict(), "method": key,
                          "label": vocabulary.label(vocabulary.SCORE_INTERVALS, key)}
                    for key, ci in self.intervals.items() if key != "hodges-lehmann"
                },
                "recommended_interval": self.recommended_interval,
            },
            "hodges_lehmann": None if self.hodges_lehmann is None else {
                "estimate": _plain(self.hodges_lehmann),
                "low": _plain(self.intervals["hodges-lehmann"].low),
                "high": _plain(self.intervals["hodges-lehmann"].high),
                "achieved_level": _plain(self.hodges_lehmann_level),
                "note": words.hodges_lehmann_text(self),
            },
            "unpaired": {**self.unpaired.to_dict(), "alternative": self.alternative,
                         "note": words.unpaired_text(self)},
            "power": None if self.detectable_difference is None else {
                "detectable_difference": _plain(self.detectable_difference),
                "power": self.power_target,
                "alternative": self.alternative,
                "note": words.power_text(self),
            },
            "epochs": None if self.epochs is None else {
                **self.epochs.to_dict(), "note": words.epochs_text(self)},
            "clusters": None if self.clusters is None else {
                "clusters": self.clusters, "note": words.clusters_text(self)},
            "conclusion": self.conclusion.to_dict(),
            "assumptions": list(self.assumptions),
            "warnings": list(self.warnings),
        }
        if self.noninferiority is not None:
            out["noninferiority"] = {**self.noninferiority.to_dict(),
                                     "note": words.margin_text(self)}
        if self.flips is not None:
            out["flips"] = self.flips.to_dict()
        if self.alignment is not None:
            out["alignment"] = self.alignment.to_dict()
        out.update(self.extra)
        return out


# ------------------------------------------------------------------------------ analysis


def _moments(a: FloatArray, b: FloatArray, d: FloatArray) -> dict[str, FloatArray]:
    n = d.shape[0]
    ddof = 1 if n > 1 else 0
    with np.errstate(invalid="ignore", divide="ignore"):
        sd_a = a.std(axis=0, ddof=ddof)
        sd_b = b.std(axis=0, ddof=ddof)
        cov = ((a - a.mean(axis=0)) * (b - b.mean(axis=0))).sum(axis=0) / max(n - ddof, 1)
        corr = cov / (sd_a * sd_b)
        sd_d = d.std(axis=0, ddof=ddof)
        centred = d - d.mean(axis=0)
        m2 = (centred**2).mean(axis=0)
        skew = (centred**3).mean(axis=0) / m2**1.5
    return {"sd_a": sd_a, "sd_b": sd_b, "corr": corr, "sd_d": sd_d,
            "skew": np.where(m2 > 0, skew, 0.0)}


def _welch(a: FloatArray, b: FloatArray, alternative: str) -> list[UnpairedResult]:
    n = a.shape[0]
    va, vb = a.var(axis=0, ddof=1) / n, b.var(axis=0, ddof=1) / n
    se = np.sqrt(va + vb)
    with np.errstate(invalid="ignore", divide="ignore"):
        df = (va + vb) ** 2 / (va**2 / (n - 1) + vb**2 / (n - 1))
    diff = a.mean(axis=0) - b.mean(axis=0)
    t, p, log10p = _tests.t_test(diff, se, np.where(np.isfinite(df), df, n - 1.0), alternative)
    return [UnpairedResult(statistic=float(t[j]), df=float(df[j]), pvalue=float(p[j]),
                           log10_pvalue=float(log10p[j]), standard_error=float(se[j]))
            for j in range(a.shape[1])]


def _seed(random_state: Any) -> np.random.Generator:
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or (isinstance(random_state, int | np.integer)
                                and not isinstance(random_state, bool)):
        return np.random.default_rng(random_state)
    raise McNemarError(f"random_state must be None, an int or a numpy Generator, got "
                       f"{random_state!r}", argument="random_state")


def analyze_scores(
    scores_a: Any,
    scores_b: Any,
    *,
    names: tuple[str, str] = ("A", "B"),
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
    alpha: float = 0.05,
    cluster: Any = None,
    item: Any = None,
    zero_method: str = "wilcox",
    n_resamples: int = 10_000,
    random_state: Any = None,
    power: float = 0.8,
    margin: float | None = None,
    alignment: Any = None,
) -> Any:
    """Compare two runs' per-item scores (graded, partial credit, continuous) completely.

    Four tests of the paired differences :math:`d_i = a_i - b_i` (the paired t test of the mean,
    the Wilcoxon signed-rank test, the exact sign test and the sign-flip permutation test of
    the mean), the intervals of the mean difference (t, paired BCa bootstrap) and the
    Hodges-Lehmann estimate with its signed-rank interval, the test to report and why,
    Welch's unpaired t test as the pitfall, the detectable difference, and a conclusion in
    words.

    Parameters
    ----------
    scores_a, scores_b : array_like
        One score per item (the same items in the same order), or 2-D arrays ``(items,
        runs)``: one report per column pair. Booleans count as 0/1.
    names : tuple of two str
        Names of A and B in every sentence.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: A scores higher than B on average.
    confidence_level : float
        Of every interval.
    alpha : float
        Significance level of the conclusion.
    cluster : array_like, optional
        A cluster label per row: items in clusters get the cluster-robust (CR1) t test and
        are resampled (and sign-flipped) cluster by cluster.
    item : array_like, optional
        An item label per row, when rows are repeated samples (epochs) of items: the analysis
        runs on the item means and the report adds the within- and between-item variance.
    zero_method : {"wilcox", "pratt"}
        The signed-rank test's treatment of items with equal scores.
    n_resamples : int
        Random sign flips (when there are more than 2**20 flips) and bootstrap resamples.
    random_state : None, int or numpy.random.Generator
        The seed of the resampling.
    power : float
        Power at which the detectable difference is stated.
    margin : float, optional
        A non-inferiority margin in score units: the report adds the one-sided t test that A
        is not worse than B by the margin or more (at level alpha; with clusters, the
        cluster-robust one) and its 1 - 2 alpha interval.
    alignment : object, optional
        How two runs' items were paired (shown in the report and its JSON).

    Returns
    -------
    ScoreReport, or a list of them for 2-D input

    Notes
    -----
    Which test to report: the t test's p-value rests on the normal approximation of the mean
    difference, which Cochran's rule as refined by Sugden, Smith & Jones (2000) trusts once
    there are more than :math:`28 + 25 g_1^2` items (:math:`g_1` the skewness of the
    differences). With fewer, the permutation test of the same mean difference is recommended
    (exact when there are at most 2**20 sign flips), with the bootstrap interval. The
    signed-rank and sign tests answer another question (is the median, or the pseudomedian,
    of the differences zero?) and are shown, never recommended. With clusters the same rule is
    applied to the clusters.

    On 0/1 scores the sign test is McNemar's exact conditional test of the same table, and
    the t interval is the Wald interval of the difference in accuracy widened by
    :math:`t_{n-1}/z \\cdot \\sqrt{n/(n-1)}` (the t quantile, and the variance with ddof 1).

    References
    ----------
    Student (1908); Wilcoxon (1945); Pratt (1959); Dixon & Mood (1946); Fisher (1935); Efron
    (1987); Hodges & Lehmann (1963); Welch BL (1947), The generalization of Student's problem
    when several different population variances are involved, Biometrika 34:28-35; Sugden RA,
    Smith TMF, Jones RP (2000), Cochran's rule for simple random sampling, JRSS B 62:787-793;
    Miller (2024), arXiv:2411.00640.

    Examples
    --------
    Student's sleep data (R ``t.test(extra ~ group, data = sleep, paired = TRUE)``):

    >>> g1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
    >>> g2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]
    >>> rep = analyze_scores(g1, g2, names=("drug 1", "drug 2"), random_state=1)
    >>> t = rep.tests["t"]
    >>> round(t.statistic, 4), t.df, round(t.pvalue, 6)
    (-4.0621, 9.0, 0.002833)
    >>> [round(x, 4) for x in rep.intervals["t"]]
    [-2.4599, -0.7001]
    >>> rep.recommended, rep.conclusion.better
    ('permutation', 'b')
    """
    opts_names = system_names(names)
    alt = check_alternative(alternative)
    level = check_level("confidence_level", confidence_level)
    alpha_ = check_level("alpha", alpha)
    target = check_level("power", power)
    zero = check_choice(zero_method, "zero_method", vocabulary.ZERO_METHODS)
    resamples = check_count(n_resamples, "n_resamples", minimum=1)
    rng = _seed(random_state)
    if margin is not None:
        from mcnemar.validation import check_positive

        margin = check_positive(margin, "margin", what="a margin in score units")
    a = check_scores(scores_a, "scores_a")
    b = check_scores(scores_b, "scores_b")
    if a.shape != b.shape:
        raise McNemarError(f"scores_a and scores_b must have the same shape (the same items); "
                           f"got {a.shape} and {b.shape}", argument="scores_b")
    one = a.ndim == 1
    if one:
        a, b = a[:, None], b[:, None]
    rows = a.shape[0]
    binary = bool(np.all((a == 0) | (a == 1)) and np.all((b == 0) | (b == 1)))
    epoch_results: list[EpochsResult] | None = None
    item_codes = None
    if item is not None:
        item_codes, items = _epochs.codes_of(item, rows, "item")
        a, b, epoch_results = _epochs.epochs(a, b, item_codes, items)
    n = a.shape[0]
    if n < 2:
        raise McNemarError(f"a paired comparison needs at least 2 items, got {n}",
                           argument="scores_a")
    codes, groups = _cluster_codes(cluster, rows, item_codes, n)
    d = a - b
    m = d.shape[1]
    mean = d.mean(axis=0)
    mo = _moments(a, b, d)
    se_iid = mo["sd_d"] / math.sqrt(n)
    se, df, units, weights, skew = _units(d, codes, groups, se_iid, mo["skew"])
    t, tp, tlog = _tests.t_test(mean, se, df, alt)
    sign_stat, sp, slog = _tests.sign_test(d, alt)
    v, wp, wlog, wexact = _tests.wilcoxon_test(d, alt, zero)
    work = units.shape[0] * resamples
    resampling = work <= MAX_RESAMPLING
    if resampling:
        psum, pp, plog, pexact, pse = _tests.permutation_test(units, alt, resamples, rng)
        boot = _intervals.bootstrap_means(units, weights, resamples, rng)
        jack = (units.sum(axis=0) - units) / (weights.sum() - weights)[:, None]
        blo, bhi = _intervals.bca_interval(mean, boot, jack, level)
    tlo, thi = _intervals.t_interval(mean, se, df, level)
    welch = _welch(a, b, alt)
    reports = []
    for j in range(m):
        warn: list[str] = []
        tests = {
            "t": ScoreTestResult(
                test="t", name=_label("t"), statistic=float(t[j]), statistic_name="t",
                pvalue=float(tp[j]),
                log10_pvalue=float(tlog[j]), alternative=alt, df=float(df[j]),
                convention=("mean difference over its cluster-robust (CR1) standard error, t "
                            f"on {groups} - 1 degrees of freedom") if groups else
                           "mean difference over its standard error, t on n - 1 degrees of "
                           "freedom"),
            "wilcoxon": ScoreTestResult(
                test="wilcoxon", name=_label("wilcoxon"), statistic=float(v[j]),
                statistic_name="V",
                pvalue=float(wp[j]), log10_pvalue=float(wlog[j]), alternative=alt,
                exact=bool(wexact[j]),
                convention=words.wilcoxon_convention(bool(wexact[j]), zero)),
            "sign": ScoreTestResult(
                test="sign", name=_label("sign"), statistic=float(sign_stat[j]),
                statistic_name="positives",
                pvalue=float(sp[j]), log10_pvalue=float(slog[j]), alternative=alt,
                convention="positive differences among the non-zero ones, Bin(n, 1/2), "
                           "exact (McNemar's exact test on 0/1 scores)"),
        }
        intervals = {"t": ConfidenceInterval(float(tlo[j]), float(thi[j]))}
        if resampling:
            flips = units.shape[0] - int(np.count_nonzero(units[:, j] == 0))
            tests["permutation"] = ScoreTestResult(
                test="permutation", name=_label("permutation"), statistic=float(psum[j]),
                statistic_name="sum",
                pvalue=float(pp[j]), log10_pvalue=float(plog[j]), alternative=alt,
                exact=bool(pexact[j]),
                resamples=None if pexact[j] else resamples,
                standard_error=None if pexact[j] else float(pse[j]),
                convention=words.permutation_convention(bool(pexact[j]), flips, resamples,
                                                        groups))
            intervals["bootstrap"] = ConfidenceInterval(float(blo[j]), float(bhi[j]))
        else:
            tests["permutation"] = ScoreTestResult(
                test="permutation", name=_label("permutation"), statistic=float(d[:, j].sum()),
                statistic_name="sum",
                pvalue=math.nan, log10_pvalue=math.nan, alternative=alt, exact=False,
                convention=f"not computed: {resamples} resamples of {units.shape[0]} units "
                           f"are more than {MAX_RESAMPLING:.3g} values")
            warn.append(
                f"the permutation test and the bootstrap interval were not computed: "
                f"{resamples} resamples of {units.shape[0]} "
                f"{'clusters' if groups else 'items'} are more than {MAX_RESAMPLING:.3g} "
                "values to draw (lower n_resamples to have them); at this size the t test's "
                "normal approximation holds")
        hl = hl_level = None
        if n <= MAX_HODGES_LEHMANN:
            est, lo, hi, hl_level, _ = _intervals.hodges_lehmann(d[:, j], level)
            hl = est
            intervals["hodges-lehmann"] = ConfidenceInterval(lo, hi)
        higher_a = int(np.count_nonzero(d[:, j] > 0))
        higher_b = int(np.count_nonzero(d[:, j] < 0))
        recommended, reason = words.recommendation(
            units=units.shape[0], skewness=float(skew[j]), tests=tests, n=n,
            equal=n - higher_a - higher_b, distinct=int(np.unique(d[:, j]).size),
            clusters=groups, resampling=resampling, binary=binary)
        rec_interval = "t" if recommended == "t" else "bootstrap"
        detectable = _detectable(n, float(mo["sd_d"][j]), float(se[j]), float(df[j]), groups,
                                 target, alpha_, alt)
        warn += _data_warnings(opts_names, higher_a + higher_b, binary=binary,
                               clustered=bool(groups), alignment=alignment)
        partial = dict(
            names=opts_names, alternative=alt, alpha=alpha_, confidence_level=level,
            zero_method=zero, n=n, mean_a=float(a[:, j].mean()), mean_b=float(b[:, j].mean()),
            difference=float(mean[j]), sd_a=float(mo["sd_a"][j]), sd_b=float(mo["sd_b"][j]),
            correlation=float(mo["corr"][j]), sd_difference=float(mo["sd_d"][j]),
            effect_size=_ratio(float(mean[j]), float(mo["sd_d"][j])),
            standard_error=float(se[j]), standard_error_independent=float(se_iid[j]),
            skewness=float(skew[j]), higher_a=higher_a,
            equal=n - higher_a - higher_b, higher_b=higher_b, tests=tests,
            intervals=intervals, hodges_lehmann=hl, hodges_lehmann_level=hl_level,
            recommended=recommended, recommendation_reason=reason,
            recommended_interval=rec_interval, unpaired=welch[j],
            detectable_difference=detectable, power_target=target,
            epochs=None if epoch_results is None else epoch_results[j], clusters=groups,
            binary=binary, n_resamples=resamples,
            assumptions=CLUSTERED_ASSUMPTIONS if groups else ASSUMPTIONS,
            warnings=tuple(warn), alignment=alignment,
        )
        if margin is not None:
            partial["noninferiority"] = _noninferiority(float(mean[j]), float(se[j]),
                                                        float(df[j]), margin, alpha_)
        conclusion = words.conclusion(partial)
        reports.append(ScoreReport(conclusion=conclusion, **partial))
    return reports[0] if one else reports


def _data_warnings(names: tuple[str, str], differing: int, *, binary: bool, clustered: bool,
                   alignment: Any) -> list[str]:
    """What the report warns of the data: ``differing`` items scored differently (none, or
    too few), 0/1 scores, clustered items, and the pairing's own warnings."""
    warn = []
    if differing == 0:
        warn.append(f"{names[0]} and {names[1]} scored the same on every item: every test "
                    "gives p = 1 and the data say nothing about which is better.")
    elif differing < 6:
        warn.append(f"only {differing} items scored differently: the test set is too small to "
                    "separate these systems.")
    if binary:
        warn.append("every score is 0 or 1: this is pass/fail data, for which McNemar's "
                    "analysis (mcnemar.analyze, or compare --analysis pass-fail) is designed; "
                    "its exact test is the sign test here.")
    if clustered:
        warn.append("the signed-rank and sign tests treat the items as independent; with "
                    "clustered items they overstate the evidence.")
    warn.extend(getattr(alignment, "warnings", None) or ())
    return warn


def _cluster_codes(cluster: Any, rows: int, item_codes: NDArray[np.int64] | None, n: int
                   ) -> tuple[NDArray[np.int64] | None, int | None]:
    """The cluster of each of the ``n`` items (the ``rows`` labels, one per sample when
    ``item_codes`` groups the rows into items) and how many clusters; ``(None, None)``
    without clusters."""
    if cluster is None:
        return None, None
    codes, groups = _epochs.codes_of(cluster, rows, "cluster")
    if item_codes is not None:
        first = np.full(n, -1)
        first[item_codes[::-1]] = codes[::-1]
        if np.any(first[item_codes] != codes):
            raise McNemarError("cluster must give every sample of an item the same cluster",
                               argument="cluster")
        codes = first
    if groups < 2:
        raise McNemarError(f"cluster must name at least 2 clusters, got {groups}",
                           argument="cluster")
    return codes, groups


def _units(d: FloatArray, codes: NDArray[np.int64] | None, groups: int | None,
           se_iid: FloatArray, skew_iid: FloatArray
           ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
    """The resampling units of the differences ``d`` and what the tests take of them: the
    standard error, the degrees of freedom, the units' sums, their weights and the skewness.
    With clusters, the units are the clusters (CR1 standard error on G - 1 degrees of
    freedom, the skewness of the clusters' mean differences); else the items."""
    n, m = d.shape
    if codes is None or groups is None:
        return se_iid, np.full(m, n - 1.0), d, np.ones(n), skew_iid
    se = _epochs.cluster_standard_error(d, codes, groups)
    units = _epochs.group_sums(d, codes, groups)
    weights = np.bincount(codes, minlength=groups).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        unit_means = units / weights[:, None]
        c = unit_means - unit_means.mean(axis=0)
        skew = np.where((c**2).mean(axis=0) > 0,
                        (c**3).mean(axis=0) / (c**2).mean(axis=0) ** 1.5, 0.0)
    return se, np.full(m, groups - 1.0), units, weights, skew


def _noninferiority(mean: float, se: float, df: float, margin: float,
                    alpha: float) -> ScoreNonInferiority:
    from scipy import stats

    with np.errstate(divide="ignore", invalid="ignore"):
        t = (mean + margin) / se if se > 0 else math.copysign(math.inf, mean + margin)
    p = float(stats.t.sf(t, df)) if df > 0 else math.nan
    q = float(stats.t.ppf(1.0 - alpha, df)) if df > 0 else math.nan
    return ScoreNonInferiority(margin=margin, statistic=float(t), pvalue=p,
                               noninferior=bool(p < alpha), low=mean - q * se,
                               high=mean + q * se, level=1.0 - 2.0 * alpha)


def _label(key: str) -> str:
    return vocabulary.label(vocabulary.SCORE_TESTS, key)


def _ratio(x: float, y: float) -> float:
    if y > 0:
        return x / y
    return math.nan if x == 0 else math.copysign(math.inf, x)


def _detectable(n: int, sd: float, se: float, df: float, groups: int | None, power: float,
                alpha: float, alternative: str) -> float | None:
    if not (math.isfinite(sd) and sd > 0):
        return None
    if groups:
        value = _planning.detectable_from_standard_error(se, df, power, alpha, alternative)
        return value if math.isfinite(value) else None
    try:
        plan = _planning.t_detectable_difference(n, sd, power=power, alpha=alpha,
                                                 alternative=alternative)
    except McNemarError:
        return None
    return abs(plan.difference)
