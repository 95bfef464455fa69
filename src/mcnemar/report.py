"""The full analysis of one paired table, in words that cannot be misread.

:func:`analyze` runs every test, picks the p-value to report (and says why), estimates the
difference in accuracy with several confidence intervals, contrasts the result with the
unpaired comparison that ignores the pairing (the common mistake), states what the test set
could have detected, and concludes in plain words which system did better — or that the test
set does not resolve them, which is not evidence that they are equally good.

The :class:`Report` renders as text (``str``), markdown (:meth:`Report.to_markdown`), HTML in
a notebook and JSON (:meth:`Report.to_dict`, schema ``mcnemar.report/1``, documented in
``docs/report-schema.md``).

Where the parts live: :mod:`mcnemar._analysis` computes every number for an array of tables
at once (``analyze`` is a batch of one, :func:`mcnemar.batch.analyze_many` the batch of
many); :mod:`mcnemar._report_words` decides and words the conclusion;
:mod:`mcnemar._report_render` renders text, markdown and HTML.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import numpy as np

from mcnemar import _report_render as render

# Constants other modules read from here (mcnemar.tasks, the tests).
from mcnemar._analysis import EXACT_POWER_MAX_D as EXACT_POWER_MAX_D
from mcnemar._analysis import TEST_ORDER as _TEST_ORDER
from mcnemar._analysis import Columns, Options, compute, decide
from mcnemar._format import TITLE_CHARS as TITLE_CHARS
from mcnemar._format import Rendered, json_fields
from mcnemar._format import json_value as _plain
from mcnemar._format import shorten as _short
from mcnemar._report_words import CLOSE_FACTOR as CLOSE_FACTOR
from mcnemar._report_words import EXACT_BELOW as EXACT_BELOW
from mcnemar._report_words import (
    Claims,
    _decimals,
    _points,
    _points_limits,
    _size,
    clustered_reason,
    conclusion_text,
    headline,
)
from mcnemar._report_words import recommendation_reason as _recommendation_reason
from mcnemar.errors import McNemarError, TableError
from mcnemar.inference import McNemarResult, as_table
from mcnemar.intervals import ConfidenceInterval
from mcnemar.table import _MAX_COUNT as _MAX_ITEMS
from mcnemar.table import PairedTable

if TYPE_CHECKING:
    from mcnemar.clustering import ClusteredResult

__all__ = ["SCHEMA", "Conclusion", "Report", "analyze", "json_schema"]

SCHEMA = "mcnemar.report/1"
#: The keys of a test's own ``to_dict()`` that the report's ``tests`` blocks show.
_TEST_KEYS = ("name", "convention", "statistic", "pvalue", "log10_pvalue")
ASSUMPTIONS = (
    "The items are independent of one another (no groups of related questions, no repeated "
    "samples of one item counted as separate items); otherwise use the clustered analysis.",
    "Both systems were fixed before scoring and were scored on exactly the same items.",
    "The test set was not used to choose, tune or select either system (an honest held-out set).",
    "The conclusion is about these two trained systems on items like these, not about the "
    "training algorithms that produced them.",
)

CLUSTERED_ASSUMPTIONS = (
    "The clusters are independent of one another; items within a cluster may be related.",
    *ASSUMPTIONS[1:],
)


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of :meth:`Report.to_dict`, shipped with the package.

    Examples
    --------
    >>> json_schema()["$id"]
    'mcnemar.report/1'
    """
    from mcnemar._format import shipped_schema

    return shipped_schema("report-1")


class _Alignment(Protocol):
    def to_dict(self) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Conclusion:
    """The verdict: is the difference significant, and which system did better.

    Each claim of the sentence is a field, computed from the numbers of the report; the
    sentence (``text``) and the short ``headline`` are rendered from these fields.

    Attributes
    ----------
    significant : bool
        The recommended p-value is below ``alpha``.
    better : {"a", "b"} or None
        The system that did significantly better, ``None`` when the test set does not
        resolve them (or when a one-sided test rejects although the data do not favour the
        system it is about: its p-value is then at least 1/2, so this takes an alpha above 1/2).
    text : str
        The conclusion in words.
    direction : {"a", "b"} or None
        The system the data favour (right on more of the discordant items: b > c is ``"a"``),
        the sign of the estimated difference; ``None`` when b = c.
    opposite_direction : bool
        A one-sided alternative was tested and the data point the other way.
    interval_contains_zero : bool or None
        The headline interval of the difference (Newcombe, or cluster-robust) includes 0;
        ``None`` when there is no interval (N unknown).
    headline : str
        The verdict in a few words, for a page title or a notification.
    """

    significant: bool
    better: str | None
    text: str
    direction: str | None = None
    opposite_direction: bool = False
    interval_contains_zero: bool | None = None
    headline: str = ""

    def to_dict(self) -> dict[str, Any]:
        return json_fields(self, "significant", "better", "text", "headline", "direction",
                           "opposite_direction", "interval_contains_zero")


@dataclass(frozen=True, slots=True, kw_only=True)
class Report(Rendered):
    """The full analysis of one paired table; see :func:`analyze`.

    ``str(report)`` is the text report, :meth:`to_markdown` the markdown, :meth:`to_dict` the
    JSON; in a notebook it shows as a compact HTML table, the verdict first.

    Attributes
    ----------
    table : PairedTable
    names : tuple of str
        Names of A and B.
    tests : dict of str to McNemarResult
        ``"exact"``, ``"midp"``, ``"asymptotic"``, ``"corrected"``.
    recommended : str
        The key of the test whose p-value to report.
    recommendation_reason : str
    difference : float or None
        accuracy(A) - accuracy(B) = (b - c)/N; ``None`` when N is unknown.
    difference_intervals : dict of str to ConfidenceInterval
    ratio, odds_ratio : float or None
    ratio_intervals, odds_ratio_intervals : dict
    unpaired_z, unpaired_pvalue, unpaired_log10_pvalue : float or None
        The pooled two-proportion z-test that ignores the pairing (the pitfall); the log10 of
        its p-value stays finite where the p-value underflows.
    detectable_difference : float or None
        Difference (p10 - p01) that the exact test had ``power_target`` power to detect with
        this N and this discordance rate.
    conclusion : Conclusion
    warnings : tuple of str
    noninferiority, equivalence : NonInferiorityResult, EquivalenceResult or None
        The tests against a margin (:mod:`mcnemar.margin`), when one was given.
    flips : Flips or None
        The items on which the two runs disagree (:class:`mcnemar.flips.Flips`), when the
        table comes from paired runs (``alignment``): in the JSON always, in the text and
        markdown when asked for (``flips.shown``).
    """

    _renderer: ClassVar[Any] = render

    table: PairedTable
    names: tuple[str, str]
    alternative: str
    alpha: float
    confidence_level: float
    tests: dict[str, McNemarResult]
    recommended: str
    recommendation_reason: str
    difference: float | None
    difference_intervals: dict[str, Any]
    ratio: float | None
    ratio_intervals: dict[str, Any]
    odds_ratio: float | None
    odds_ratio_intervals: dict[str, Any]
    unpaired_z: float | None
    unpaired_pvalue: float | None
    detectable_difference: float | None
    power_target: float
    conclusion: Conclusion
    power_method: str = "exact"
    assumptions: tuple[str, ...] = ASSUMPTIONS
    warnings: tuple[str, ...] = ()
    alignment: Any = None
    clustered: ClusteredResult | None = None
    noninferiority: Any = None
    equivalence: Any = None
    bayes: Any = None
    unpaired_log10_pvalue: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    flips: Any = None

    # -- convenience ---------------------------------------------------------------------------
    @property
    def pvalue(self) -> float:
        """The recommended p-value."""
        if self.recommended == "clustered" and self.clustered is not None:
            return self.clustered.pvalue_for(self.alternative)
        return float(self.tests[self.recommended].pvalue)

    @property
    def recommended_interval(self) -> str:
        """Which interval the headline states: ``"clustered"`` (the cluster-robust interval of
        :attr:`clustered`) when the items come in clusters and it is defined, else
        ``"newcombe"`` (a key of :attr:`difference_intervals`)."""
        cl = self.clustered
        if cl is not None and cl.difference is not None and cl.standard_error is not None:
            return "clustered"
        return "newcombe"

    @property
    def headline_interval(self) -> ConfidenceInterval | None:
        """The interval of the difference the conclusion states (:attr:`recommended_interval`),
        or ``None`` when N is unknown."""
        shown = render.headline_interval(self)
        return None if shown is None else shown[1]

    @property
    def log10_pvalue(self) -> float:
        """log10 of the recommended p-value (finite where the p-value underflows)."""
        if self.recommended == "clustered":
            p = self.pvalue
            return math.log10(p) if p > 0 else -math.inf
        return float(self.tests[self.recommended].log10_pvalue)

    @property
    def accuracy(self) -> tuple[float, float] | None:
        """accuracy(A), accuracy(B), or ``None`` when N is unknown."""
        a, b, c, d = self.table.arrays()
        if a is None or d is None:
            return None
        n = int(a + b + c + d)
        if n == 0:
            return None
        return float((a + b) / n), float((a + c) / n)

    def words(self) -> str:
        """The table restated in words."""
        return self.table.describe(self.names)

    def __repr__(self) -> str:
        # One line: who was compared, the discordant counts, N, the recommended p-value and
        # test (print the report, or use to_dict(), for the rest).
        n = None if self.table.n is None else int(self.table.n)
        p = self.pvalue
        p_text = f"{p:.4g}"
        if p == 0.0 and math.isfinite(self.log10_pvalue):
            p_text += f", log10_pvalue={self.log10_pvalue:.4g}"  # p underflows to 0
        return (
            f"Report(A={_short(self.names[0])!r}, B={_short(self.names[1])!r}, "
            f"b={self.table.b}, c={self.table.c}, n={n}, pvalue={p_text}, "
            f"recommended={self.recommended!r})"
        )

    # -- rendering -----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-safe data (schema ``mcnemar.report/1``, docs/report-schema.md)."""
        acc = self.accuracy
        # Each block is its result's own to_dict(), narrowed to the keys this schema shows
        # (the report states the table and alternative once, at the top).
        tests = {
            key: {
                **_pick(self.tests[key].to_dict(), _TEST_KEYS),
                "recommended": key == self.recommended,
                # The numbers as the text report prints them (a page shows these digits).
                "statistic_text": render.statistic_text(self.tests[key].statistic),
                "pvalue_text": render._p_text(self, key),
            }
            for key in _TEST_ORDER
        }
        acc_texts = render.accuracy_texts(self)
        out: dict[str, Any] = {
            "schema": SCHEMA,
            "names": {"a": self.names[0], "b": self.names[1]},
            "table": self.table.to_dict(),
            "words": self.words(),
            "alternative": self.alternative,
            "alpha": self.alpha,
            "confidence_level": self.confidence_level,
            "accuracy": None if acc is None or acc_texts is None else
            {"a": acc[0], "b": acc[1], "a_text": acc_texts[0], "b_text": acc_texts[1]},
            "tests": tests,
            "recommended": {"test": self.recommended, "reason": self.recommendation_reason},
            "difference": {
                "estimate": _plain(self.difference),
                "confidence_level": self.confidence_level,
                "intervals": _intervals_dict("difference", self.difference_intervals),
                "recommended_interval": self.recommended_interval,
                "estimate_text": None
                if self.difference is None
                else _points(self.difference, _decimals(abs(100 * self.difference))),
                "interval_texts": {
                    k: _points_limits(v.low, v.high) for k, v in self.difference_intervals.items()
                },
            },
            "ratio": {
                "estimate": _plain(self.ratio),
                "intervals": _intervals_dict("ratio", self.ratio_intervals),
                **render.effect_texts(self.ratio, self.ratio_intervals),
            },
            "odds_ratio": {
                "estimate": _plain(self.odds_ratio),
                "intervals": _intervals_dict("odds_ratio", self.odds_ratio_intervals),
                **render.effect_texts(self.odds_ratio, self.odds_ratio_intervals),
            },
            "unpaired": None
            if self.unpaired_pvalue is None
            else {
                "name": "pooled two-proportion z-test",
                "statistic": _plain(self.unpaired_z),
                "pvalue": _plain(self.unpaired_pvalue),
                "log10_pvalue": _plain(self.unpaired_log10_pvalue),
                "alternative": self.alternative,
                "note": render.unpaired_text(self),
            },
            "power": None
            if self.detectable_difference is None
            else {
                "detectable_difference": _plain(self.detectable_difference),
                "detectable_difference_text": _size(self.detectable_difference, 3),
                "alternative": self.alternative,
                "power": self.power_target,
                "method": self.power_method,
                "note": render.power_text(self),
            },
            "conclusion": self.conclusion.to_dict(),
            "assumptions": list(self.assumptions),
            "warnings": list(self.warnings),
        }
        if self.clustered is not None:
            section = self.clustered.to_dict(self.confidence_level)
            p = self.clustered.pvalue_for(self.alternative)
            tests["clustered"] = {
                "name": section["name"],
                "convention": "chi-square on 1 degree of freedom"
                + ("" if self.alternative == "two-sided" else "; one-sided: half the tail"),
                "statistic": section["statistic"],
                "pvalue": _plain(p),
                "log10_pvalue": _plain(math.log10(p)) if p > 0 else None,
                "recommended": self.recommended == "clustered",
                "statistic_text": render.statistic_text(self.clustered.statistic),
                "pvalue_text": render.clustered_pvalue_text(self),
            }
            out["clustered"] = section
            if self.recommended_interval == "clustered":
                cci = self.clustered.confidence_interval(self.confidence_level)
                out["difference"]["interval_texts"]["clustered"] = _points_limits(cci.low,
                                                                                  cci.high)
        if self.noninferiority is not None:
            from mcnemar.margin import margin_dict

            out.update(margin_dict(self.noninferiority, self.equivalence, self.names))
        if self.bayes is not None:
            from mcnemar.bayes import texts as bayes_texts

            out["bayes"] = {**self.bayes.to_dict(), **bayes_texts(self.bayes)}
        if self.alignment is not None:
            out["alignment"] = self.alignment.to_dict()
        if self.flips is not None:
            out["flips"] = self.flips.to_dict()
        out.update(self.extra)
        return out



def _intervals_dict(quantity: str, intervals: dict[str, Any]) -> dict[str, Any]:
    """Each interval's own to_dict() with the method's label and short label."""
    return {
        key: {
            **ci.to_dict(),
            "label": render.interval_label(quantity, key),
            "short": render.interval_short(quantity, key),
        }
        for key, ci in intervals.items()
    }


def analyze(
    table: Any,
    *,
    names: tuple[str, str] = ("A", "B"),
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
    alpha: float = 0.05,
    alignment: _Alignment | None = None,
    power: float = 0.8,
    clustered: ClusteredResult | None = None,
    margin: float | None = None,
    equivalence: bool = False,
    margin_method: str = "score",
    bayes: Any = None,
) -> Report:
    """Analyse one paired table completely: every test, the recommended p-value, intervals,
    the unpaired pitfall, detectable difference and a conclusion in words.

    Parameters
    ----------
    table : PairedTable or array_like
        A single table (``PairedTable(a, b, c, d)`` or ``[[a, b], [c, d]]``); a and d may be
        unknown, in which case the quantities that need N are omitted and say so.
    names : tuple of two str
        Names of A and B used in every sentence (e.g. ``("candidate", "baseline")``).
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: the hypothesis that A is more accurate.
    confidence_level : float
        For all intervals.
    alpha : float
        Significance level of the conclusion.
    alignment : object, optional
        Summary of how two runs' items were aligned (anything with ``to_dict()`` and
        ``__str__``); shown in the report and in the JSON as ``"alignment"``.
    power : float
        Power at which the detectable difference is stated (default 80%).
    clustered : ClusteredResult, optional
        The clustered test of the same items (:func:`mcnemar.clustered`), when items come in
        clusters (related questions, repeated samples of one item). It then becomes the
        recommended test: the plain tests treat the items as independent and overstate the
        evidence. The report states the design effect and the cluster-robust interval.
    margin : float, optional
        A non-inferiority margin (0.01 = 1 accuracy point): the report adds Tango's test that
        A is not worse than B by the margin, at one-sided level ``alpha`` with the matching
        1 - 2 ``alpha`` interval (:func:`mcnemar.margin.noninferiority`), and its
        verdict to the conclusion. Needs a and d.
    equivalence : bool
        With ``margin``: also test equivalence (two one-sided tests, |difference| < margin).
    margin_method : {"score", "unconditional"}
        The test used with ``margin``.
    bayes : bool, float or BayesResult, optional
        Add the Bayesian summary (:func:`mcnemar.bayes.bayes`): ``True`` for the default
        region of practical equivalence (half a point), a number for that half-width
        (0.01 = 1 point), or a ready :class:`~mcnemar.bayes.BayesResult` of this table. Needs
        a and d.

    Returns
    -------
    Report

    Notes
    -----
    Which p-value to report: with fewer than 25 discordant items the chi-square
    approximation is not trusted and the exact conditional test is recommended; from 25 on,
    the uncorrected chi-square test. Fagerland, Lydersen & Laake (2013) found the mid-p test
    closer to the nominal level than the exact test in all situations, and the report names it
    as the less conservative alternative; it says that the exact and mid-p tests agree closely
    with the chi-square test only when their p-values are within a factor of
    ``CLOSE_FACTOR`` (1.25) of it, and otherwise by how much they differ.

    The detectable difference (:func:`mcnemar.planning.minimum_detectable_effect`) and the
    unpaired comparison use the same ``alternative`` as the tests. The conclusion
    (:class:`Conclusion`) is decided claim by claim from the numbers and then put into words;
    when a one-sided alternative points against the observed difference it says that the
    data point the other way, and by how much.

    The numbers come from the vectorized analysis of :func:`mcnemar.analyze_many`, run on a
    batch of one table, so a table gets the same report alone or in a batch.

    Examples
    --------
    >>> rep = analyze(PairedTable(a=157, b=17, c=3, d=23), names=("candidate", "baseline"))
    >>> rep.recommended, round(rep.pvalue, 4), rep.conclusion.better
    ('exact', 0.0026, 'a')
    >>> analyze(PairedTable(a=157, b=17, c=3, d=23), alternative="less").conclusion.headline
    'No evidence that B is more accurate: the data favour A'
    """
    t = as_table(table)
    if t.shape:
        raise TableError(
            f"analyze takes a single table, got an array of tables with shape {t.shape}; "
            "use mcnemar.analyze_many(tables, ...), which analyses many tables at once"
        )
    options = Options.check(names, alternative, confidence_level, alpha, power)
    if equivalence and margin is None:
        raise McNemarError("equivalence=True needs a margin (e.g. margin=0.01 for 1 point)")
    a, b, c, d = t.arrays()
    has_n = a is not None and d is not None
    zero = np.zeros(1, dtype=np.int64)
    cols = compute(
        zero if a is None else a.reshape(1),
        b.reshape(1),
        c.reshape(1),
        zero if d is None else d.reshape(1),
        np.array([has_n]),
        options,
        margin=margin,
        equivalence=equivalence,
        margin_method=margin_method,
    )
    return report_at(cols, 0, table=t, alignment=alignment, clustered=clustered, bayes=bayes)


def _float(x: Any) -> float | None:
    """A finite number as a float, else None."""
    v = float(x)
    return v if math.isfinite(v) else None


def _item(result: Any, i: int, table: PairedTable) -> Any:
    """Element ``i`` of a result computed for many tables, as the result for one table."""
    if result is None:
        return None
    fields = {
        name: float(np.asarray(value).ravel()[i])
        for name in result.__dataclass_fields__
        if isinstance(value := getattr(result, name), np.ndarray)
    }
    return replace(result, table=table, **fields)


def report_at(
    cols: Columns,
    i: int,
    *,
    table: PairedTable | None = None,
    alignment: _Alignment | None = None,
    clustered: ClusteredResult | None = None,
    bayes: Any = None,
) -> Report:
    """The report of table ``i`` of the columns (``table``: that table, when at hand)."""
    opts = cols.options
    names, alternative, alpha = opts.names, opts.alternative, opts.alpha
    na, nb = names
    b, c = int(cols.b[i]), int(cols.c[i])
    has_n = bool(cols.has_n[i])
    if table is None:
        table = (
            PairedTable(a=int(cols.a[i]), b=b, c=c, d=int(cols.d[i]))
            if has_n
            else PairedTable(b=b, c=c)
        )
    big_d = b + c
    tests = {
        key: McNemarResult(
            statistic=float(stat[i]),
            pvalue=float(p[i]),
            log10_pvalue=float(logp[i]),
            zscore=float(z[i]),
            method=key,
            alternative=alternative,
            table=table,
        )
        for key, (stat, p, logp, z) in cols.tests.items()
    }
    recommended = "exact" if cols.exact_recommended[i] else "asymptotic"
    reason = _recommendation_reason(tests, big_d, alpha)

    def intervals(block: dict[str, Any], ok: bool) -> dict[str, Any]:
        if not ok:
            return {}
        return {k: ConfidenceInterval(float(lo[i]), float(hi[i])) for k, (lo, hi) in block.items()}

    has_diff = bool(cols.has_difference[i])
    diff_ci = intervals(cols.difference_intervals, has_diff)
    n = int(cols.n[i]) if has_n else None
    warnings: list[str] = []
    if bool(cols.too_many[i]):
        warnings.append(
            f"{n} items are more than the power calculations take ({_MAX_ITEMS}, 2**52): the "
            "difference this test set could detect is not stated."
        )
    elif not has_n:
        warnings.append(
            "a (both right) and d (both wrong) were not given: the tests need only b and c, but "
            "the difference in accuracy, its intervals and the unpaired comparison need N."
        )
    if big_d == 0:
        warnings.append(
            f"{na} and {nb} never disagree (no discordant items): every test gives p = 1 and the "
            "data say nothing about which system is better."
        )
    elif big_d < 10:
        warnings.append(
            f"only {big_d} discordant items: even a large difference could not reach "
            "significance; the test set is too small to separate these systems."
        )

    diff = float(cols.difference[i]) if has_diff else None
    detectable = _float(cols.detectable[i])
    p_value, log10_p = float(cols.pvalue[i]), float(cols.log10_pvalue[i])
    test_name = {"exact": "exact", "asymptotic": "chi-square"}[recommended]
    ci_label = "Newcombe"
    claims = _column_claims(cols, i)
    if clustered is not None:
        if (clustered.b, clustered.c) != (b, c):
            raise McNemarError(
                f"clustered has b = {clustered.b}, c = {clustered.c} but the table has b = {b}, "
                f"c = {c}; pass the clustered test of the same items"
            )
        # The clustered test is recommended: its p-value and, when defined, its
        # cluster-robust interval decide the claims (one table, in the vectorized decide).
        p_value = clustered.pvalue_for(alternative)
        log10_p = math.log10(p_value) if p_value > 0 else -math.inf
        recommended = "clustered"
        reason = clustered_reason(clustered, big_d, alternative)
        test_name = "clustered"
        low = high = math.nan
        if diff is not None:
            ci = diff_ci.get("newcombe")
            if clustered.difference is not None and clustered.standard_error is not None:
                ci = clustered.confidence_interval(opts.confidence_level)
                ci_label = "cluster-robust"
            if ci is not None:
                low, high = float(ci.low), float(ci.high)
        one = decide(
            pvalue=np.array([p_value]), b=np.array([b]), c=np.array([c]), alpha=alpha,
            alternative=alternative, low=np.array([low]), high=np.array([high]),
        )
        claims = _claims(one, 0, low, high)
    if not math.isfinite(p_value):
        warnings.append("the recommended test is undefined for these data; no conclusion drawn")
    # What the alignment of two runs let through or found (overrides, runs that did not
    # complete, errored samples, ignored files) belongs with the report's warnings.
    warnings.extend(getattr(alignment, "warnings", None) or ())
    text = conclusion_text(
        claims,
        names=names,
        b=b,
        c=c,
        pvalue=p_value,
        log10_pvalue=log10_p,
        test_name=test_name,
        alpha=alpha,
        alternative=alternative,
        diff=diff,
        ci_label=ci_label,
        level=opts.confidence_level,
        detectable=detectable,
        power=opts.power,
    )
    ni = _item(cols.noninferiority, i, table)
    eq = _item(cols.equivalence, i, table)
    if ni is not None:
        from mcnemar import margin as nim

        text += " " + nim.margin_sentences(ni, eq, names)
        if clustered is not None:
            warnings.append(
                "the test against the margin treats the items as independent; with clustered "
                "items it overstates the evidence"
            )
    conclusion = Conclusion(
        significant=claims.significant,
        better=claims.better,
        text=text,
        direction=claims.direction,
        opposite_direction=claims.opposite,
        interval_contains_zero=claims.contains_zero,
        headline=headline(claims, names=names, alternative=alternative, alpha=alpha,
                          discordant=big_d),
    )
    has_or = bool(cols.has_odds_ratio[i])
    return Report(
        table=table,
        names=names,
        alternative=alternative,
        alpha=alpha,
        confidence_level=opts.confidence_level,
        tests=tests,
        recommended=recommended,
        recommendation_reason=reason,
        difference=diff,
        difference_intervals=diff_ci,
        ratio=_float(cols.ratio[i]) if has_diff else None,
        ratio_intervals=intervals(cols.ratio_intervals, has_diff),
        odds_ratio=_float(cols.odds_ratio[i]) if has_or else None,
        odds_ratio_intervals=intervals(cols.odds_ratio_intervals, has_or),
        unpaired_z=float(cols.unpaired_z[i]) if has_diff else None,
        unpaired_pvalue=float(cols.unpaired_pvalue[i]) if has_diff else None,
        unpaired_log10_pvalue=_float(cols.unpaired_log10_pvalue[i]) if has_diff else None,
        detectable_difference=detectable,
        power_target=opts.power,
        power_method="exact" if cols.power_exact[i] else "connor",
        conclusion=conclusion,
        assumptions=ASSUMPTIONS if clustered is None else CLUSTERED_ASSUMPTIONS,
        warnings=tuple(warnings),
        alignment=alignment,
        clustered=clustered,
        noninferiority=ni,
        equivalence=eq,
        bayes=_bayes_section(table, bayes, opts.confidence_level),
        flips=_flips_of(alignment, b, c),
    )


def _flips_of(alignment: Any, b: int, c: int) -> Any:
    """The flips of the paired runs a report is about (None for a table alone)."""
    flips = getattr(alignment, "flips", None)
    if not callable(flips):
        return None
    found = flips()
    if (found.b, found.c) != (b, c):  # an alignment of other items than the table's
        return None
    return found


_SIDE = {1: "a", -1: "b", 0: None}


_CLAIM_KEYS = (
    "defined", "significant", "better", "direction", "opposite", "has_interval", "contains_zero"
)


def _claims(decided: dict[str, Any], i: int, low: float, high: float) -> Claims:
    """Element ``i`` of the claims decided for many tables (:func:`mcnemar._analysis.decide`),
    with the headline interval (``low``, ``high``) they were decided on."""
    has_interval = bool(decided["has_interval"][i])
    return Claims(
        defined=bool(decided["defined"][i]),
        significant=bool(decided["significant"][i]),
        better=_SIDE[int(decided["better"][i])],
        direction=_SIDE[int(decided["direction"][i])],
        opposite=bool(decided["opposite"][i]),
        interval=(float(low), float(high)) if has_interval else None,
        contains_zero=bool(decided["contains_zero"][i]) if has_interval else None,
    )


def _column_claims(cols: Columns, i: int) -> Claims:
    low, high = cols.difference_intervals["newcombe"]
    return _claims({k: getattr(cols, k) for k in _CLAIM_KEYS}, i, low[i], high[i])


def _bayes_section(table: PairedTable, bayes: Any, level: float) -> Any:
    """The Bayesian summary asked for with ``analyze(..., bayes=...)``, or None."""
    if bayes is None or bayes is False:
        return None
    from mcnemar.bayes import BayesResult
    from mcnemar.bayes import bayes as posterior

    if isinstance(bayes, BayesResult):
        if bayes.table != table:
            raise McNemarError("bayes= holds the summary of a different table; pass bayes=True")
        return bayes
    if bayes is True:
        return posterior(table, credible_level=level)
    if isinstance(bayes, int | float) and not isinstance(bayes, bool):
        return posterior(table, rope=float(bayes), credible_level=level)
    raise McNemarError(
        f"bayes must be True, a region of practical equivalence (e.g. 0.005 for half a point) "
        f"or a BayesResult; got {bayes!r}"
    )


def _pick(block: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """The entries ``keys`` of a result's ``to_dict()``, in that order."""
    return {k: block[k] for k in keys}
