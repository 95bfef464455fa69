"""Building a :class:`~mcnemar.report.Report` from the numbers: :func:`analyze` for one table,
:func:`report_at` for table ``i`` of the columns of many (the batch's reports).

The parts follow the data: the numbers of table ``i`` (:func:`_tests_at`, :func:`_block`), the
decisions (:mod:`mcnemar.report._decide`, with the clustered override), the warnings
(:func:`_warnings`), the words (:func:`_conclusion`), then the fields of the report.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from mcnemar.errors import McNemarError, TableError
from mcnemar.inference import McNemarResult, as_table
from mcnemar.intervals import ConfidenceInterval
from mcnemar.report._compute import Columns, Options, compute
from mcnemar.report._decide import Claims, claims_at, clustered_choice, decide_one
from mcnemar.report._result import (
    ASSUMPTIONS,
    CLUSTERED_ASSUMPTIONS,
    Alignment,
    Conclusion,
    Report,
)
from mcnemar.report._words import Evidence, clustered_reason, conclusion_text, headline
from mcnemar.report._words import recommendation_reason as _recommendation_reason
from mcnemar.table import _MAX_COUNT as _MAX_ITEMS
from mcnemar.table import PairedTable

if TYPE_CHECKING:
    from mcnemar.bayes import BayesResult
    from mcnemar.clustering import ClusteredResult
    from mcnemar.flips import Flips

__all__ = ["analyze", "report_at"]


def analyze(
    table: Any,
    *,
    names: tuple[str, str] = ("A", "B"),
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
    alpha: float = 0.05,
    alignment: Alignment | None = None,
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


def _table_at(cols: Columns, i: int) -> PairedTable:
    b, c = int(cols.b[i]), int(cols.c[i])
    if bool(cols.has_n[i]):
        return PairedTable(a=int(cols.a[i]), b=b, c=c, d=int(cols.d[i]))
    return PairedTable(b=b, c=c)


def _tests_at(cols: Columns, i: int, table: PairedTable) -> dict[str, McNemarResult]:
    """The four tests of table ``i`` as results of their own."""
    return {
        key: McNemarResult(
            statistic=float(stat[i]), pvalue=float(p[i]), log10_pvalue=float(logp[i]),
            zscore=float(z[i]), method=key, alternative=cols.options.alternative, table=table,
        )
        for key, (stat, p, logp, z) in cols.tests.items()
    }


def _block(block: Mapping[str, Any], i: int, ok: bool) -> dict[str, ConfidenceInterval]:
    """Each method's interval of table ``i`` (none where the quantity is undefined)."""
    if not ok:
        return {}
    return {k: ConfidenceInterval(float(lo[i]), float(hi[i])) for k, (lo, hi) in block.items()}


def _warnings(cols: Columns, i: int, alignment: Any) -> list[str]:
    """What the reader of table ``i``'s report must know before its numbers."""
    na, nb = cols.options.names
    big_d = int(cols.b[i]) + int(cols.c[i])
    out: list[str] = []
    if bool(cols.too_many[i]):
        out.append(
            f"{int(cols.n[i])} items are more than the power calculations take ({_MAX_ITEMS}, "
            "2**52): the difference this test set could detect is not stated."
        )
    elif not bool(cols.has_n[i]):
        out.append(
            "a (both right) and d (both wrong) were not given: the tests need only b and c, but "
            "the difference in accuracy, its intervals and the unpaired comparison need N."
        )
    if big_d == 0:
        out.append(
            f"{na} and {nb} never disagree (no discordant items): every test gives p = 1 and the "
            "data say nothing about which system is better."
        )
    elif big_d < 10:
        out.append(
            f"only {big_d} discordant items: even a large difference could not reach "
            "significance; the test set is too small to separate these systems."
        )
    return out


class _Decision:
    """The recommended test of table ``i`` and the claims decided on it: the plain tests'
    (decided with the columns), or the clustered test's when the items come in clusters."""

    __slots__ = ("ci_label", "claims", "log10_pvalue", "pvalue", "reason", "recommended",
                 "test_name")

    def __init__(self, cols: Columns, i: int, tests: dict[str, McNemarResult],
                 clustered: ClusteredResult | None, diff_ci: dict[str, ConfidenceInterval]):
        opts = cols.options
        b, c = int(cols.b[i]), int(cols.c[i])
        self.recommended = "exact" if cols.exact_recommended[i] else "asymptotic"
        self.reason = _recommendation_reason(tests, b + c, opts.alpha)
        self.pvalue, self.log10_pvalue = float(cols.pvalue[i]), float(cols.log10_pvalue[i])
        self.test_name = {"exact": "exact", "asymptotic": "chi-square"}[self.recommended]
        self.ci_label = "Newcombe"
        low, high = cols.difference_intervals["newcombe"]
        self.claims: Claims = claims_at(cols, i, low[i], high[i])
        if clustered is None:
            return
        if (clustered.b, clustered.c) != (b, c):
            raise McNemarError(
                f"clustered has b = {clustered.b}, c = {clustered.c} but the table has b = {b}, "
                f"c = {c}; pass the clustered test of the same items"
            )
        newcombe = diff_ci.get("newcombe")
        choice = clustered_choice(clustered, opts.alternative, opts.confidence_level,
                                  None if newcombe is None else (newcombe.low, newcombe.high))
        self.pvalue, self.log10_pvalue = choice.pvalue, choice.log10_pvalue
        self.recommended = self.test_name = "clustered"
        self.reason = clustered_reason(clustered, b + c, opts.alternative)
        lo, hi = (choice.low, choice.high) if diff_ci else (math.nan, math.nan)
        if diff_ci:
            self.ci_label = choice.ci_label
        self.claims = decide_one(pvalue=self.pvalue, b=b, c=c, alpha=opts.alpha,
                                 alternative=opts.alternative, low=lo, high=hi)


def _conclusion(cols: Columns, i: int, decision: _Decision, diff: float | None,
                detectable: float | None, margins: tuple[Any, Any]) -> Conclusion:
    """The conclusion of table ``i`` in words, from its decided claims."""
    opts = cols.options
    b, c = int(cols.b[i]), int(cols.c[i])
    claims = decision.claims
    text = conclusion_text(claims, Evidence(
        names=opts.names, b=b, c=c, pvalue=decision.pvalue,
        log10_pvalue=decision.log10_pvalue, test_name=decision.test_name, alpha=opts.alpha,
        alternative=opts.alternative, diff=diff, ci_label=decision.ci_label,
        level=opts.confidence_level, detectable=detectable, power=opts.power,
    ))
    if margins[0] is not None:
        from mcnemar.margin import margin_sentences

        text += " " + margin_sentences(margins[0], margins[1], opts.names)
    return Conclusion(
        significant=claims.significant, better=claims.better, text=text,
        direction=claims.direction, opposite_direction=claims.opposite,
        interval_contains_zero=claims.contains_zero,
        headline=headline(claims, names=opts.names, alternative=opts.alternative,
                          alpha=opts.alpha, discordant=b + c),
    )


def report_at(
    cols: Columns,
    i: int,
    *,
    table: PairedTable | None = None,
    alignment: Alignment | None = None,
    clustered: ClusteredResult | None = None,
    bayes: Any = None,
) -> Report:
    """The report of table ``i`` of the columns (``table``: that table, when at hand)."""
    opts = cols.options
    table = _table_at(cols, i) if table is None else table
    tests = _tests_at(cols, i, table)
    has_diff, has_or = bool(cols.has_difference[i]), bool(cols.has_odds_ratio[i])
    diff_ci = _block(cols.difference_intervals, i, has_diff)
    decision = _Decision(cols, i, tests, clustered, diff_ci)
    warnings = _warnings(cols, i, alignment)
    if not math.isfinite(decision.pvalue):
        warnings.append("the recommended test is undefined for these data; no conclusion drawn")
    # What the alignment of two runs let through or found (overrides, runs that did not
    # complete, errored samples, ignored files) belongs with the report's warnings.
    warnings.extend(getattr(alignment, "warnings", None) or ())
    diff = float(cols.difference[i]) if has_diff else None
    detectable = _float(cols.detectable[i])
    ni, eq = _item(cols.noninferiority, i, table), _item(cols.equivalence, i, table)
    if ni is not None and clustered is not None:
        warnings.append(
            "the test against the margin treats the items as independent; with clustered "
            "items it overstates the evidence"
        )
    return Report(
        table=table, names=opts.names, alternative=opts.alternative, alpha=opts.alpha,
        confidence_level=opts.confidence_level, tests=tests,
        recommended=decision.recommended, recommendation_reason=decision.reason,
        difference=diff, difference_intervals=diff_ci,
        ratio=_float(cols.ratio[i]) if has_diff else None,
        ratio_intervals=_block(cols.ratio_intervals, i, has_diff),
        odds_ratio=_float(cols.odds_ratio[i]) if has_or else None,
        odds_ratio_intervals=_block(cols.odds_ratio_intervals, i, has_or),
        unpaired_z=float(cols.unpaired_z[i]) if has_diff else None,
        unpaired_pvalue=float(cols.unpaired_pvalue[i]) if has_diff else None,
        unpaired_log10_pvalue=_float(cols.unpaired_log10_pvalue[i]) if has_diff else None,
        detectable_difference=detectable, power_target=opts.power,
        power_method="exact" if cols.power_exact[i] else "connor",
        conclusion=_conclusion(cols, i, decision, diff, detectable, (ni, eq)),
        assumptions=ASSUMPTIONS if clustered is None else CLUSTERED_ASSUMPTIONS,
        warnings=tuple(warnings), alignment=alignment, clustered=clustered,
        noninferiority=ni, equivalence=eq,
        bayes=_bayes_section(table, bayes, opts.confidence_level),
        flips=_flips_of(alignment, int(cols.b[i]), int(cols.c[i])),
    )


def _flips_of(alignment: Any, b: int, c: int) -> Flips | None:
    """The flips of the paired runs a report is about (None for a table alone)."""
    flips = getattr(alignment, "flips", None)
    if not callable(flips):
        return None
    found: Flips = flips()
    if (found.b, found.c) != (b, c):  # an alignment of other items than the table's
        return None
    return found


def _bayes_section(table: PairedTable, bayes: Any, level: float) -> BayesResult | None:
    """The Bayesian summary asked for with ``analyze(..., bayes=...)``, or None."""
    if bayes is None or bayes is False:
        return None
    from mcnemar.bayes import BayesResult
    from mcnemar.bayes import bayes as posterior

    if isinstance(bayes, BayesResult):
        if bayes.table != table:
            raise McNemarError("bayes= holds the summary of a different table; pass bayes=True")
        return bayes
    if isinstance(bayes, bool):  # True
        return posterior(table, credible_level=level)
    if isinstance(bayes, int | float):
        return posterior(table, rope=float(bayes), credible_level=level)
    raise McNemarError(
        f"bayes must be True, a region of practical equivalence (e.g. 0.005 for half a point) "
        f"or a BayesResult; got {bayes!r}"
    )
