"""The result of the full analysis of one paired table: :class:`Report` and its
:class:`Conclusion`.

The :class:`Report` renders as text (``str``), markdown (:meth:`Report.to_markdown`), HTML in
a notebook and JSON (:meth:`Report.to_dict`, schema ``mcnemar.report/1``, documented in
``docs/report-schema.md``). It is built by :func:`mcnemar.report.analyze` (and, for many tables,
:func:`mcnemar.report.batch.analyze_many`) in :mod:`mcnemar.report._build`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from mcnemar._format import Rendered, json_fields
from mcnemar._format import json_value as _plain
from mcnemar._format import shorten as _short
from mcnemar.inference import McNemarResult
from mcnemar.intervals import ConfidenceInterval
from mcnemar.report import _render as render
from mcnemar.report._compute import TEST_ORDER as _TEST_ORDER
from mcnemar.report._words import _decimals, _points, _points_limits, _size
from mcnemar.table import PairedTable

if TYPE_CHECKING:
    from mcnemar.bayes import BayesResult
    from mcnemar.clustering import ClusteredResult
    from mcnemar.flips import Flips
    from mcnemar.margin import EquivalenceResult, NonInferiorityResult

__all__ = ["ASSUMPTIONS", "CLUSTERED_ASSUMPTIONS", "SCHEMA", "Conclusion", "Report", "json_schema"]

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


class Alignment(Protocol):
    """What a report needs of the summary of how two runs' items were aligned
    (:class:`mcnemar.io.Alignment`, or anything with ``to_dict()`` and ``__str__``)."""

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
    alignment: Alignment | None = None
    clustered: ClusteredResult | None = None
    noninferiority: NonInferiorityResult | None = None
    equivalence: EquivalenceResult | None = None
    bayes: BayesResult | None = None
    unpaired_log10_pvalue: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    flips: Flips | None = None

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
        acc_texts = render.accuracy_texts(self)
        section = (None if self.clustered is None
                   else self.clustered.to_dict(self.confidence_level))
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
            "tests": self._tests_dict(section),
            "recommended": {"test": self.recommended, "reason": self.recommendation_reason},
            "difference": self._difference_dict(),
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
            "unpaired": self._unpaired_dict(),
            "power": self._power_dict(),
            "conclusion": self.conclusion.to_dict(),
            "assumptions": list(self.assumptions),
            "warnings": list(self.warnings),
        }
        if self.clustered is not None:
            out["clustered"] = section
        out.update(self._sections())
        out.update(self.extra)
        return out

    def _tests_dict(self, section: dict[str, Any] | None) -> dict[str, Any]:
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
        if self.clustered is not None and section is not None:
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
        return tests

    def _difference_dict(self) -> dict[str, Any]:
        texts = {k: _points_limits(v.low, v.high) for k, v in self.difference_intervals.items()}
        if self.clustered is not None and self.recommended_interval == "clustered":
            cci = self.clustered.confidence_interval(self.confidence_level)
            texts["clustered"] = _points_limits(cci.low, cci.high)
        return {
            "estimate": _plain(self.difference),
            "confidence_level": self.confidence_level,
            "intervals": _intervals_dict("difference", self.difference_intervals),
            "recommended_interval": self.recommended_interval,
            "estimate_text": None
            if self.difference is None
            else _points(self.difference, _decimals(abs(100 * self.difference))),
            "interval_texts": texts,
        }

    def _unpaired_dict(self) -> dict[str, Any] | None:
        if self.unpaired_pvalue is None:
            return None
        return {
            "name": "pooled two-proportion z-test",
            "statistic": _plain(self.unpaired_z),
            "pvalue": _plain(self.unpaired_pvalue),
            "log10_pvalue": _plain(self.unpaired_log10_pvalue),
            "alternative": self.alternative,
            "note": render.unpaired_text(self),
        }

    def _power_dict(self) -> dict[str, Any] | None:
        if self.detectable_difference is None:
            return None
        return {
            "detectable_difference": _plain(self.detectable_difference),
            "detectable_difference_text": _size(self.detectable_difference, 3),
            "alternative": self.alternative,
            "power": self.power_target,
            "method": self.power_method,
            "note": render.power_text(self),
        }

    def _sections(self) -> dict[str, Any]:
        """The optional sections, each present when the report has it."""
        out: dict[str, Any] = {}
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




def _pick(block: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """The entries ``keys`` of a result's ``to_dict()``, in that order."""
    return {k: block[k] for k in keys}
