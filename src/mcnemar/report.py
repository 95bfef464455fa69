"""The full analysis of one paired table, in words that cannot be misread.

:func:`analyze` runs every test, picks the p-value to report (and says why), estimates the
difference in accuracy with several confidence intervals, contrasts the result with the
unpaired comparison that ignores the pairing (the common mistake), states what the test set
could have detected, and concludes in plain words which system did better — or that the test
set does not resolve them, which is not evidence that they are equally good.

The :class:`Report` renders as text (``str``), markdown (:meth:`Report.to_markdown`) and JSON
(:meth:`Report.to_dict`, schema ``mcnemar.report/1``, documented in ``docs/report-schema.md``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

# The escaping of names and sentences is shared with the other reports (mcnemar.multiple).
from mcnemar._format import TITLE_CHARS as TITLE_CHARS
from mcnemar._format import clean_name as _clean_name
from mcnemar._format import markdown_text as _md
from mcnemar._format import plain_lines as _plain_lines
from mcnemar._format import shorten as _short
from mcnemar.errors import McNemarError, TableError
from mcnemar.inference import (
    McNemarResult,
    _plain,
    as_table,
    check_alternative,
    format_pvalue,
    mcnemar,
    unpaired_ztest,
)
from mcnemar.table import _MAX_COUNT as _MAX_ITEMS
from mcnemar.table import PairedTable

if TYPE_CHECKING:
    from mcnemar.clustering import ClusteredResult

__all__ = ["SCHEMA", "Conclusion", "Report", "analyze", "json_schema"]

SCHEMA = "mcnemar.report/1"
#: Below this many discordant items the chi-square approximation is not trusted.
EXACT_BELOW = 25
#: Up to this many discordant items the detectable difference is computed with the exact
#: test's power; beyond it with Connor's (1987) normal approximation.
EXACT_POWER_MAX_D = 1_000_000
_TEST_ORDER = ("exact", "midp", "asymptotic", "corrected")
#: The keys of a test's own ``to_dict()`` that the report's ``tests`` blocks show.
_TEST_KEYS = ("name", "convention", "statistic", "pvalue", "log10_pvalue")
_HEADLINE_INTERVALS = ("newcombe", "wald", "tango")
_INTERVAL_LABELS = {
    "wald": "Wald",
    "wald-cc": "Wald, continuity-corrected",
    "agresti-min": "Agresti-Min",
    "bonett-price": "Bonett-Price",
    "newcombe": "Newcombe hybrid score (method 10)",
    "newcombe-plain": "Newcombe, plain correlation",
    "tango": "Tango score",
    "exact": "exact, test-compatible (Fay-Lumbard)",
}
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
    import json
    from importlib import resources

    text = resources.files("mcnemar").joinpath("schemas/report-1.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


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
        return {
            "significant": self.significant,
            "better": self.better,
            "text": self.text,
            "headline": self.headline,
            "direction": self.direction,
            "opposite_direction": self.opposite_direction,
            "interval_contains_zero": self.interval_contains_zero,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Report:
    """The full analysis of one paired table; see :func:`analyze`.

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
    unpaired_z, unpaired_pvalue : float or None
        The pooled two-proportion z-test that ignores the pairing (the pitfall).
    detectable_difference : float or None
        Difference (p10 - p01) that the exact test had ``power_target`` power to detect with
        this N and this discordance rate.
    conclusion : Conclusion
    warnings : tuple of str
    noninferiority, equivalence : NonInferiorityResult, EquivalenceResult or None
        The tests against a margin (:mod:`mcnemar.margin`), when one was given.
    """

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
    extra: dict[str, Any] = field(default_factory=dict)

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
            }
            for key in _TEST_ORDER
        }
        out: dict[str, Any] = {
            "schema": SCHEMA,
            "names": {"a": self.names[0], "b": self.names[1]},
            "table": self.table.to_dict(),
            "words": self.words(),
            "alternative": self.alternative,
            "alpha": self.alpha,
            "confidence_level": self.confidence_level,
            "accuracy": None if acc is None else {"a": acc[0], "b": acc[1]},
            "tests": tests,
            "recommended": {"test": self.recommended, "reason": self.recommendation_reason},
            "difference": {
                "estimate": _plain(self.difference),
                "confidence_level": self.confidence_level,
                "intervals": {k: v.to_dict() for k, v in self.difference_intervals.items()},
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
                "intervals": {k: v.to_dict() for k, v in self.ratio_intervals.items()},
            },
            "odds_ratio": {
                "estimate": _plain(self.odds_ratio),
                "intervals": {k: v.to_dict() for k, v in self.odds_ratio_intervals.items()},
            },
            "unpaired": None
            if self.unpaired_pvalue is None
            else {
                "name": "pooled two-proportion z-test",
                "statistic": _plain(self.unpaired_z),
                "pvalue": _plain(self.unpaired_pvalue),
                "log10_pvalue": _plain(self._unpaired_log10()),
                "alternative": self.alternative,
                "note": self._unpaired_text(),
            },
            "power": None
            if self.detectable_difference is None
            else {
                "detectable_difference": _plain(self.detectable_difference),
                "detectable_difference_text": _size(self.detectable_difference, 3),
                "alternative": self.alternative,
                "power": self.power_target,
                "method": self.power_method,
                "note": self._power_text(),
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
            }
            out["clustered"] = section
        if self.noninferiority is not None:
            from mcnemar.margin import margin_dict

            out.update(margin_dict(self.noninferiority, self.equivalence, self.names))
        if self.bayes is not None:
            out["bayes"] = self.bayes.to_dict()
        if self.alignment is not None:
            out["alignment"] = self.alignment.to_dict()
        out.update(self.extra)
        return out

    def _p_text(self, key: str) -> str:
        r = self.tests[key]
        return format_pvalue(r.pvalue, r.log10_pvalue)

    def _unpaired_log10(self) -> float | None:
        """log10 of the unpaired p-value, from log Phi (finite where the p-value underflows)."""
        if self.unpaired_z is None:
            return None
        from scipy import special

        z, ln10 = float(self.unpaired_z), math.log(10.0)
        if self.alternative == "greater":
            return float(special.log_ndtr(-z)) / ln10
        if self.alternative == "less":
            return float(special.log_ndtr(z)) / ln10
        return min(0.0, math.log10(2.0) + float(special.log_ndtr(-abs(z))) / ln10)

    def _favour(self) -> str:
        """' in A's favour' for a one-sided alternative, '' for a two-sided one."""
        side = {"greater": 0, "less": 1}.get(self.alternative)
        return "" if side is None else f" in {self.names[side]}'s favour"

    def _unpaired_text(self) -> str:
        if self.unpaired_pvalue is None:
            return ""
        paired_sig = self.conclusion.significant
        unpaired_sig = self.unpaired_pvalue < self.alpha
        log10_p = self._unpaired_log10()
        sided = "" if self.alternative == "two-sided" else ", one-sided like the test"
        base = (
            f"Ignoring the pairing (a pooled two-proportion z-test on the two accuracies, as if "
            f"they came from independent samples{sided}) gives "
            + _p_vs_alpha(
                self.unpaired_pvalue, math.nan if log10_p is None else log10_p, self.alpha
            )
        )
        if paired_sig and not unpaired_sig:
            verdict = (
                ", which would miss the difference the paired test finds: the items both systems "
                "got right or both got wrong add variance to the unpaired test but carry no "
                "information about the difference."
            )
        elif unpaired_sig and not paired_sig:
            verdict = ", which would claim a difference that the paired test does not support."
        else:
            verdict = (
                " (the same verdict here, but the unpaired test is the wrong one for items "
                "scored by both systems)."
            )
        return base + verdict

    def _power_text(self) -> str:
        if self.detectable_difference is None:
            return ""
        n = self.table.n
        test = "exact test" if self.power_method == "exact" else "test (normal approximation)"
        sided = "" if self.alternative == "two-sided" else " (one-sided)"
        return (
            f"With {n} items and this discordance rate ({self.table.discordant}/{n} items "
            f"disagree), the {test}{sided} at alpha = {_num(self.alpha)} had "
            f"{_pct(self.power_target)} power only for differences of "
            f"{_size(self.detectable_difference, 3)} points or more{self._favour()}."
        )

    def _clustered_text(self) -> str:
        cl = self.clustered
        if cl is None:
            return ""
        p = self.pvalue
        p_text = format_pvalue(p, math.log10(p)) if p > 0 else "0"
        text = (
            f"The items come in {cl.clusters} clusters. The {cl.name} gives chi-square = "
            f"{float(cl.statistic):.4g}, p = {p_text} (the unclustered chi-square test: "
            f"{float(cl.mcnemar_statistic):.4g}, p = {float(cl.mcnemar_pvalue):.4g})."
        )
        widening = cl.interval_widening(self.confidence_level)
        if cl.design_effect is not None and cl.difference is not None and widening is not None:
            ci = cl.confidence_interval(self.confidence_level)
            text += (
                f" Design effect {cl.design_effect:.3g}: the clustering inflates the variance of "
                f"the difference {cl.design_effect:.3g}-fold, and the cluster-robust "
                f"{_pct(self.confidence_level)} interval {_points_interval(ci.low, ci.high)} is "
                f"{widening:.3g} times as wide as one that treats the items as independent."
            )
        return text

    def _interval_lines(self) -> list[tuple[str, str]]:
        rows = []
        for key, ci in self.difference_intervals.items():
            rows.append((_INTERVAL_LABELS.get(key, key), _points_interval(ci.low, ci.high)))
        return rows

    def __str__(self) -> str:
        na, nb = self.names
        ta, tb = _short(na), _short(nb)
        # Names that already say which side they are (the same model on both sides is shown
        # as "m (A)" and "m (B)") are not labelled twice.
        labelled = (na, nb) == ("A", "B") or (na.endswith(" (A)") and nb.endswith(" (B)"))
        title = f"{ta} vs {tb}" if labelled else f"{ta} (A) vs {tb} (B)"
        lines = [f"McNemar analysis: {title}", ""]
        lines.append(_wrap(self.words()))
        acc = self.accuracy
        if acc is not None:
            # Enough decimals (up to ten) for the two accuracies to differ where the difference
            # does.
            dec = 2
            if self.difference:
                dec = max(2, min(_MAX_DECIMALS, _decimals(abs(100 * self.difference))))
            lines.append(f"Accuracy: {na} {100 * acc[0]:.{dec}f}%, {nb} {100 * acc[1]:.{dec}f}%.")
        lines += ["", "Conclusion:", _wrap(self.conclusion.text), ""]
        lines.append(f"Tests ({self.alternative}; the recommended one is marked *):")
        for key in _TEST_ORDER:
            r = self.tests[key]
            mark = "*" if key == self.recommended else " "
            stat = (
                "undefined"
                if not math.isfinite(float(r.statistic))
                else f"{float(r.statistic):.4g}"
            )
            lines.append(
                f" {mark} {r.name:<48} statistic {stat:>9}   p = {self._p_text(key):<11}"
                f" log10 p = {float(r.log10_pvalue):.4f}"
            )
        lines.append(_wrap("Why: " + self.recommendation_reason))
        lines.append("")
        if self.difference is not None:
            level = _pct(self.confidence_level)
            lines.append(
                f"Difference in accuracy, {na} - {nb}: "
                f"{_points(self.difference, _decimals(abs(100 * self.difference)))} points "
                f"({level} confidence intervals):"
            )
            for label, text in self._interval_lines():
                lines.append(f"   {label:<40} {text}")
        else:
            lines.append(
                "Difference in accuracy: needs the number of items; give a (both right) and "
                "d (both wrong) as well."
            )
        if self.unpaired_pvalue is not None:
            lines += ["", "The wrong comparison:", _wrap(self._unpaired_text())]
        if self.detectable_difference is not None:
            lines += ["", "What this test set could detect:", _wrap(self._power_text())]
        if self.clustered is not None:
            lines += ["", "Clustered items:", _wrap(self._clustered_text())]
        if self.noninferiority is not None:
            from mcnemar.margin import describe_margin, margin_lines

            head = f"Against a margin of {describe_margin(self.noninferiority.margin)}:"
            lines += ["", head] + [
                _wrap(x) for x in margin_lines(self.noninferiority, self.equivalence, self.names)
            ]
        if self.bayes is not None:
            lines += ["", "How likely is a real gain (Bayesian):",
                      _wrap(self.bayes.text(self.names))]
        if self.alignment is not None:
            lines += ["", "Alignment of the two runs:", _plain_lines(str(self.alignment))]
        lines += ["", "Assumptions:"] + [_wrap("- " + a, indent="  ") for a in self.assumptions]
        if self.warnings:
            lines += ["", "Warnings:"] + [_wrap("- " + w, indent="  ") for w in self.warnings]
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """The report as markdown (e.g. for a pull-request comment)."""
        # Names and sentences are plain text: _md makes them inert (no HTML, links, emphasis,
        # table breaks or headings), and titles are shortened.
        na, nb = (_md(x) for x in self.names)
        title = f"{_md(_short(self.names[0]))} vs {_md(_short(self.names[1]))}"
        out = [f"### McNemar analysis: {title}", "", f"**{_md(self.conclusion.text)}**", ""]
        a, b, c, d = self.table.arrays()
        out += [
            f"| | {nb} right | {nb} wrong |",
            "|---|---:|---:|",
            f"| **{na} right** | {_cell(a)} | **{int(b)}** |",
            f"| **{na} wrong** | **{int(c)}** | {_cell(d)} |",
            "",
            _md(self.words()),
            "",
            f"| test ({self.alternative}) | statistic | p-value | log10 p |",
            "|---|---:|---:|---:|",
        ]
        for key in _TEST_ORDER:
            r = self.tests[key]
            stat = "—" if not math.isfinite(float(r.statistic)) else f"{float(r.statistic):.4g}"
            name = f"**{r.name}** (recommended)" if key == self.recommended else r.name
            out.append(f"| {name} | {stat} | {self._p_text(key)} | {float(r.log10_pvalue):.3f} |")
        out += ["", f"_{_md(self.recommendation_reason)}_", ""]
        if self.difference is not None:
            out += [
                f"Difference in accuracy ({na} − {nb}): "
                f"**{_points(self.difference, _decimals(abs(100 * self.difference)))} points**",
                "",
                f"| {_pct(self.confidence_level)} interval | points |",
                "|---|---|",
            ]
            out += [f"| {label} | {text} |" for label, text in self._interval_lines()]
            out.append("")
        if self.unpaired_pvalue is not None:
            out += [f"> {_md(self._unpaired_text())}", ""]
        if self.detectable_difference is not None:
            out += [_md(self._power_text()), ""]
        if self.clustered is not None:
            out += [_md(self._clustered_text()), ""]
        if self.noninferiority is not None:
            from mcnemar.margin import describe_margin, margin_lines

            lines = margin_lines(self.noninferiority, self.equivalence, self.names)
            out += [f"**Against a margin of {describe_margin(self.noninferiority.margin)}**", ""]
            out += [f"- {_md(x)}" for x in lines] + [""]
        if self.bayes is not None:
            out += [f"**How likely is a real gain:** {_md(self.bayes.text(self.names))}", ""]
        if self.alignment is not None:
            out += [
                "<details><summary>Alignment</summary>",
                "",
                *_fenced(_plain_lines(str(self.alignment))),
                "</details>",
                "",
            ]
        out += ["<details><summary>Assumptions</summary>", ""]
        out += [f"- {_md(x)}" for x in self.assumptions]
        out += ["", "</details>"]
        if self.warnings:
            out += [""] + [f"- ⚠ {_md(w)}" for w in self.warnings]
        return "\n".join(out) + "\n"


def _cell(x: Any) -> str:
    return "—" if x is None else str(int(x))


def _wrap(text: str, indent: str = "") -> str:
    import textwrap

    return textwrap.fill(text, width=92, subsequent_indent=indent)


#: Beyond this many decimals a quantity in points is printed in e-notation (1.1e-14).
_MAX_DECIMALS = 10


def _decimals(scale: float, digits: int = 2) -> int:
    """Decimals that show a quantity of this size (in points) with ``digits`` significant
    digits; one decimal for everyday sizes, more for the tiny differences of huge test sets
    (more than ``_MAX_DECIMALS`` switches :func:`_fixed` to e-notation)."""
    if not math.isfinite(scale) or scale <= 0:
        return 1
    return max(1, digits - 1 - math.floor(math.log10(scale)))


def _fixed(value: float, decimals: int, *, signed: bool, digits: int = 2) -> str:
    """``value`` with ``decimals`` decimals, but never a bare zero for a non-zero value.

    A non-zero value that would round to zero gets ``digits`` significant digits instead, so
    that no "-0.0" or "+0.0" stands next to a verdict about a real difference and no interval
    limit loses its sign; zero itself prints unsigned ("0.0"). Beyond ``_MAX_DECIMALS``
    decimals the value is printed in e-notation with ``digits`` significant digits.
    """
    if value == 0:
        return f"{0.0:.{min(decimals, _MAX_DECIMALS)}f}"
    sign = "+" if signed else ""
    if decimals <= _MAX_DECIMALS:
        text = f"{value:{sign}.{decimals}f}"
        if float(text) != 0.0:
            return text
        decimals = digits - 1 - math.floor(math.log10(abs(value)))
        if decimals <= _MAX_DECIMALS:
            return f"{value:{sign}.{decimals}f}"
    return f"{value:{sign}.{digits - 1}e}"


def _points(x: float, decimals: int = 1) -> str:
    """A signed difference in points, e.g. '+7.0', '-0.0050', '0.0' (exactly zero)."""
    return _fixed(100 * float(x), decimals, signed=True)


def _size(x: float | None, digits: int = 2) -> str:
    """An unsigned difference in points, e.g. '7.0' or '0.00062' (``digits`` significant)."""
    if x is None:
        return ""
    v = abs(100 * float(x))
    return _fixed(v, _decimals(v, digits), signed=False, digits=digits)


def _points_pair(lo: float, hi: float) -> tuple[str, str]:
    """Both limits of an interval in points, with as many decimals as its width needs."""
    d = _decimals(100 * (hi - lo))
    return _points(lo, d), _points(hi, d)


def _points_limits(low: Any, high: Any) -> list[str] | None:
    """The limits as the report prints them, for the JSON (``None`` if undefined)."""
    lo, hi = float(low), float(high)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return None
    return list(_points_pair(lo, hi))


def _pct(x: float) -> str:
    """A level or a power as a percentage, as given: 0.95 -> '95%', 0.955 -> '95.5%'."""
    return f"{100 * float(x):.10g}%"


def _num(x: float) -> str:
    """A number as given (shortest text that reads back as the same double): 0.05 -> '0.05'."""
    text = f"{float(x):g}"
    return text if float(text) == float(x) else repr(float(x))


def _p_vs_alpha(pvalue: float, log10_pvalue: float, alpha: float) -> str:
    """'p = 0.002577 < 0.05': p with as many digits as it takes for the printed numbers to
    compare the way the exact ones do (p = 0.0499996 never reads '0.05 < 0.05')."""
    a = _num(alpha)
    below = pvalue < alpha
    sym = "<" if below else "≥"
    if pvalue == 0.0 and not math.isfinite(log10_pvalue):
        return f"p < 1e-300 {sym} {a}"
    if pvalue > 1e-300 or not math.isfinite(log10_pvalue):
        for digits in range(4, 18):
            text = f"{pvalue:.{digits}g}"
            if (float(text) < alpha) == below:
                break
    else:
        text = format_pvalue(pvalue, log10_pvalue)
    return f"p = {text} {sym} {a}"


def _fenced(text: str) -> list[str]:
    """A fenced code block whose fence is longer than any run of backticks in ``text``."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, text, fence]


def _points_interval(low: Any, high: Any) -> str:
    lo, hi = float(low), float(high)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return "undefined"
    lo_text, hi_text = _points_pair(lo, hi)
    return f"[{lo_text}, {hi_text}] points"


_LEVEL_EXAMPLES = {"alpha": "0.05", "confidence_level": "0.95 for 95%", "power": "0.8 for 80%"}


def _check_level(name: str, value: Any) -> float:
    example = _LEVEL_EXAMPLES.get(name, "0.5")
    if isinstance(value, bool) or not isinstance(value, int | float | np.floating | np.integer):
        raise McNemarError(
            f"{name} must be a number strictly between 0 and 1 (e.g. {example}), got {value!r}"
        )
    v = float(value)
    if not (0.0 < v < 1.0):
        hint = f"; for {v:g}% give {v / 100:g}" if 2.0 <= v < 100.0 else ""
        raise McNemarError(
            f"{name} must be strictly between 0 and 1 (e.g. {example}), got {value!r}{hint}"
        )
    return v


def _check_names(names: Any) -> tuple[str, str]:
    if (
        not isinstance(names, tuple | list)
        or len(names) != 2
        or not all(isinstance(x, str) and _clean_name(x) for x in names)
    ):
        raise McNemarError(f"names must be two non-empty strings (A, B), got {names!r}")
    clean = (_clean_name(names[0]), _clean_name(names[1]))
    if clean[0] == clean[1]:
        raise McNemarError(
            f"names must differ so that the report can say which did better, got {names!r}"
        )
    return clean


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
            "use mcnemar(table, ...) which is vectorized over many tables"
        )
    names = _check_names(names)
    alternative = check_alternative(alternative)
    confidence_level = _check_level("confidence_level", confidence_level)
    alpha = _check_level("alpha", alpha)
    power = _check_level("power", power)

    tests = {key: mcnemar(t, method=key, alternative=alternative) for key in _TEST_ORDER}
    a, b, c, d = t.arrays()
    big_d = int(b + c)
    warnings: list[str] = []
    na, nb = names

    if big_d < EXACT_BELOW:
        recommended = "exact"
        reason = (
            f"only {big_d} discordant item{'s' if big_d != 1 else ''} (fewer than {EXACT_BELOW}), "
            "so the chi-square approximation is not trusted: report the exact conditional "
            f"test ({tests['exact'].convention}). The mid-p test (p = "
            f"{format_pvalue(tests['midp'].pvalue, tests['midp'].log10_pvalue)}) is the less "
            "conservative choice that Fagerland, Lydersen & Laake (2013) recommend."
        )
    else:
        recommended = "asymptotic"
        reason = (
            f"{big_d} discordant items (at least {EXACT_BELOW}), so the chi-square approximation "
            f"is trusted: report the chi-square test ({tests['asymptotic'].convention}); "
            + _agreement(tests, alpha)
            + "; the continuity correction is needlessly conservative (Fagerland, Lydersen & "
            "Laake 2013)."
        )

    from mcnemar import intervals as iv

    diff = ratio = odds = None
    diff_ci: dict[str, Any] = {}
    ratio_ci: dict[str, Any] = {}
    odds_ci: dict[str, Any] = {}
    unpaired_z = unpaired_p = None
    detectable = None
    power_method = "exact"
    n = None
    if b + c > 0:
        odds = _maybe(iv.odds_ratio_estimate(b, c))
        for m in ("exact", "midp", "wilson"):
            odds_ci[m] = iv.odds_ratio_interval(b, c, confidence_level=confidence_level, method=m)
    if a is not None and d is not None:
        n = int(a + b + c + d)
    if n and a is not None and d is not None:
        diff = float(iv.difference_estimate(a, b, c, d))
        for m in iv.DIFFERENCE_METHODS:
            diff_ci[m] = iv.difference_interval(
                a, b, c, d, confidence_level=confidence_level, method=m
            )
        ratio = _maybe(iv.ratio_estimate(a, b, c, d))
        for m in ("tang", "bonett-price", "wald"):
            ratio_ci[m] = iv.ratio_interval(a, b, c, d, confidence_level=confidence_level, method=m)
        z, p = unpaired_ztest(a, b, c, d, alternative=alternative)
        unpaired_z, unpaired_p = float(z), float(p)
        if big_d > 0 and n > _MAX_ITEMS:
            warnings.append(
                f"{n} items are more than the power calculations take ({_MAX_ITEMS}, 2**52): the "
                "difference this test set could detect is not stated."
            )
        elif big_d > 0:
            from mcnemar.planning import minimum_detectable_effect

            # The exact power sum costs O(sqrt(D)); beyond a million discordant items Connor's
            # normal approximation agrees with it to about 3 significant digits.
            power_method = "exact" if big_d <= EXACT_POWER_MAX_D else "connor"
            mde = minimum_detectable_effect(
                n,
                big_d / n,
                power=power,
                alpha=alpha,
                alternative=alternative,
                method=power_method,
            )
            # planning signs it (negative for "less"); the report states the size and the side.
            detectable = _maybe(mde.difference)
            if detectable is not None:
                detectable = abs(detectable)
    elif a is None:
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

    rec = tests[recommended]
    p_value, log10_p = float(rec.pvalue), float(rec.log10_pvalue)
    test_name = {"exact": "exact", "asymptotic": "chi-square"}[recommended]
    headline_ci = diff_ci.get("newcombe")
    ci_label = "Newcombe"
    if clustered is not None:
        if (clustered.b, clustered.c) != (int(b), int(c)):
            raise McNemarError(
                f"clustered has b = {clustered.b}, c = {clustered.c} but the table has b = {b}, "
                f"c = {c}; pass the clustered test of the same items"
            )
        p_value = clustered.pvalue_for(alternative)
        log10_p = math.log10(p_value) if p_value > 0 else -math.inf
        design = clustered.design_effect
        recommended = "clustered"
        reason = (
            # The cluster count is of all clusters, not of those holding discordant items.
            f"the items come in {clustered.clusters} clusters ("
            + (f"{clustered.n} items, " if clustered.n is not None else "")
            + f"{big_d} discordant), so they are not independent and the plain tests "
            "overstate the evidence"
            + (f" (design effect {design:.3g})" if design is not None else "")
            + f": report the {clustered.name} (chi-square on 1 degree of freedom"
            + ("" if alternative == "two-sided" else ", halved for the one-sided alternative")
            + ")."
        )
        test_name = "clustered"
        if clustered.difference is not None and clustered.standard_error is not None:
            headline_ci = clustered.confidence_interval(confidence_level)
            ci_label = "cluster-robust"
    if not math.isfinite(p_value):
        warnings.append("the recommended test is undefined for these data; no conclusion drawn")
    # What the alignment of two runs let through or found (overrides, runs that did not
    # complete, errored samples, ignored files) belongs with the report's warnings.
    warnings.extend(getattr(alignment, "warnings", None) or ())
    conclusion = _conclusion(
        names=names,
        table=t,
        pvalue=p_value,
        log10_pvalue=log10_p,
        test_name=test_name,
        alpha=alpha,
        alternative=alternative,
        diff=diff,
        ci=headline_ci,
        ci_label=ci_label,
        level=confidence_level,
        detectable=detectable,
        power=power,
    )
    ni = eq = None
    if margin is not None:
        from dataclasses import replace

        from mcnemar import margin as nim

        ni = nim.noninferiority(t, margin, method=margin_method, alpha=alpha)
        if equivalence:
            eq = nim.equivalence(t, margin, method=margin_method, alpha=alpha)
        conclusion = replace(
            conclusion, text=conclusion.text + " " + nim.margin_sentences(ni, eq, names)
        )
        if clustered is not None:
            warnings.append(
                "the test against the margin treats the items as independent; with clustered "
                "items it overstates the evidence"
            )
    elif equivalence:
        raise McNemarError("equivalence=True needs a margin (e.g. margin=0.01 for 1 point)")
    return Report(
        table=t,
        names=names,
        alternative=alternative,
        alpha=alpha,
        confidence_level=confidence_level,
        tests=tests,
        recommended=recommended,
        recommendation_reason=reason[0].upper() + reason[1:],
        difference=diff,
        difference_intervals=diff_ci,
        ratio=ratio,
        ratio_intervals=ratio_ci,
        odds_ratio=odds,
        odds_ratio_intervals=odds_ci,
        unpaired_z=unpaired_z,
        unpaired_pvalue=unpaired_p,
        detectable_difference=detectable,
        power_target=power,
        power_method=power_method,
        conclusion=conclusion,
        assumptions=ASSUMPTIONS if clustered is None else CLUSTERED_ASSUMPTIONS,
        warnings=tuple(warnings),
        alignment=alignment,
        clustered=clustered,
        noninferiority=ni,
        equivalence=eq,
        bayes=_bayes_section(t, bayes, confidence_level),
    )


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


def _maybe(x: Any) -> float | None:
    if x is None:
        return None
    v = float(x)
    return v if math.isfinite(v) else None


#: The exact and mid-p p-values "agree closely" with the chi-square p-value when they are
#: within this factor of it (compared as log10 p, which stays finite where p underflows).
CLOSE_FACTOR = 1.25


def _agreement(tests: dict[str, McNemarResult], alpha: float) -> str:
    """How the exact and mid-p tests compare with the recommended chi-square test, in words
    that hold for these p-values (never "agree closely" when they are orders apart)."""
    ref = float(tests["asymptotic"].log10_pvalue)
    keys = ("exact", "midp")
    gap = max(abs(float(tests[k].log10_pvalue) - ref) for k in keys)
    shown = {k: format_pvalue(tests[k].pvalue, tests[k].log10_pvalue) for k in keys}
    text = f"the exact (p = {shown['exact']}) and mid-p (p = {shown['midp']}) tests "
    if gap <= math.log10(CLOSE_FACTOR):
        text += "agree closely with it"
    elif gap < 1.0:
        text += f"differ from it by up to a factor of {10.0**gap:.2g}"
    else:
        text += f"differ from it by up to {gap:.{1 if gap < 10 else 0}f} orders of magnitude"
    rejects = {k: bool(tests[k].pvalue < alpha) for k in ("asymptotic", *keys)}
    labels = {"exact": "exact", "midp": "mid-p"}
    odd = [labels[k] for k in keys if rejects[k] != rejects["asymptotic"]]
    if not odd:
        return text + f" (the same verdict at alpha = {_num(alpha)})"
    verb = "would not reject" if rejects["asymptotic"] else "would reject"
    return text + f", and at alpha = {_num(alpha)} the {' and '.join(odd)} test {verb}"


def _conclusion(
    *,
    names: tuple[str, str],
    table: PairedTable,
    pvalue: float,
    log10_pvalue: float,
    test_name: str,
    alpha: float,
    alternative: str,
    diff: float | None,
    ci: Any,
    ci_label: str,
    level: float,
    detectable: float | None,
    power: float,
) -> Conclusion:
    """Decide each claim from the numbers, then render the sentence from the claims."""
    na, nb = names
    name_of = {"a": na, "b": nb}
    other_of = {"a": nb, "b": na}
    b, c = int(table.arrays()[1]), int(table.arrays()[2])

    # -- the claims ---------------------------------------------------------------------------
    direction = None if b == c else ("a" if b > c else "b")
    side = {"greater": "a", "less": "b"}.get(alternative)
    defined = math.isfinite(pvalue)
    significant = bool(defined and pvalue < alpha)
    favours_side = direction is not None and (side is None or side == direction)
    better = direction if significant and favours_side else None
    opposite = side is not None and direction is not None and direction != side
    interval: tuple[float, float] | None = None
    if diff is not None and ci is not None:
        lo, hi = float(ci.low), float(ci.high)
        if math.isfinite(lo) and math.isfinite(hi):
            interval = (lo, hi)
    contains_zero = None if interval is None else bool(interval[0] <= 0.0 <= interval[1])

    # -- the words ----------------------------------------------------------------------------
    split = (
        f"{na} was right on {b} item{'s' if b != 1 else ''} where {nb} was wrong, "
        f"and {nb} on {c} where {na} was wrong"
    )
    test = f"{'one-sided ' if side else ''}{test_name} test"
    p_clause = _p_vs_alpha(pvalue, log10_pvalue, alpha) if defined else ""
    favour = "" if side is None else f" in {name_of[side]}'s favour"

    def ci_text(leader: str) -> str:
        # The interval as it is read: the leader minus the other (B - A when B leads).
        if interval is None:
            return ""
        sign = 1.0 if leader == "a" else -1.0
        lo_text, hi_text = _points_pair(*sorted((sign * interval[0], sign * interval[1])))
        return f" ({_pct(level)} CI {lo_text} to {hi_text} points, {ci_label})"

    def lead(leader: str) -> str:
        who = name_of[leader]
        if diff is None:
            mine, theirs = (b, c) if leader == "a" else (c, b)
            return (
                f"{who} was ahead on this test set ({mine} to {theirs} on the items where they "
                "disagree)"
            )
        return f"{who} was ahead on this test set by {_size(diff)} points{ci_text(leader)}"

    def interval_note(verb: str) -> str:
        # Why a test and an interval can disagree: their levels differ (a two-sided interval
        # at level L matches a two-sided test at 1 - L, a one-sided one at (1 - L)/2), or, at
        # matching levels, they are computed differently.
        assert interval is not None
        lo_text, hi_text = _points_pair(*interval)
        matching = 1.0 - (2.0 if side else 1.0) * alpha
        if not math.isclose(level, matching, rel_tol=1e-9, abs_tol=1e-12):
            why = (
                f"the interval is at the {_pct(level)} level and the {test} at alpha = "
                f"{_num(alpha)}"
            )
        else:
            why = "the interval and the test are computed differently"
        return (
            f" The {_pct(level)} {ci_label} interval of {na} - {nb} ({lo_text} to {hi_text} "
            f"points) {verb} 0: {why}, so they need not agree."
        )

    def power_words() -> str:
        if detectable is None:
            return ""
        return (
            f"{_pct(power)} power only for differences of {_size(detectable, 3)} points or more"
            f"{favour}"
        )

    if not defined:
        text = f"No conclusion: the {test} is undefined for these data ({split})."
        headline = "No conclusion: the test is undefined for these data"
    elif better is not None:
        winner, loser = name_of[better], other_of[better]
        size = "" if diff is None else f" by {_size(diff)} accuracy points{ci_text(better)}"
        text = (
            f"{winner} did better than {loser}{size}: {split}. The {test} gives {p_clause}, "
            "so a difference this large is unlikely if the two were equally accurate."
        )
        if contains_zero:
            text += interval_note("includes")
        headline = f"{winner} did better than {loser}"
    elif significant:
        # Only a one-sided test at an alpha above 1/2 rejects without the data favouring the
        # system it is about (its p-value is then at least 1/2).
        about = name_of[side] if side else "either system"
        data = (
            lead(direction)
            if direction is not None
            else f"{na} and {nb} were each right on {b} of the items where they disagree"
        )
        text = (
            f"The {test} gives {p_clause}, significant only because alpha = {_num(alpha)} is so "
            f"large: the data do not favour {about}. {data}; {split}."
        )
        headline = f"Significant only because α = {_num(alpha)}; the data do not favour {about}"
    elif opposite:
        assert side is not None and direction is not None
        about, leader = name_of[side], name_of[direction]
        text = (
            f"The data point the other way: {lead(direction)}, while the alternative "
            f"'{alternative}' asks only whether {about} is more accurate. {split}; the {test} "
            f"gives {p_clause}: no evidence that {about} is more accurate. Testing for {leader} "
            "being better after seeing this would overstate the evidence; only a test chosen "
            "in advance (such as the two-sided one) can support that."
        )
        if detectable is not None:
            text += f" The test had {power_words()}."
        headline = f"No evidence that {about} is more accurate: the data favour {leader}"
    else:
        where = "in either direction" if side is None else f"in {name_of[side]}'s favour"
        text = (
            f"This test set does not resolve {na} and {nb}: {split}; the {test} gives "
            f"{p_clause}, no significant difference {where}."
        )
        if direction is not None:
            text += f" {lead(direction)}, but a lead this size is within what chance produces."
            if contains_zero is False:
                text += interval_note("excludes")
        text += " A non-significant result is not evidence that the two are equally accurate"
        text += f": the test had {power_words()}." if detectable is not None else "."
        if b + c == 0:
            headline = f"{na} and {nb} never disagree on these items"
        elif side is None:
            headline = f"No clear difference between {na} and {nb}"
        else:
            headline = (
                f"No clear evidence that {name_of[side]} is more accurate than {other_of[side]}"
            )
    return Conclusion(
        significant=significant,
        better=better,
        text=text,
        direction=direction,
        opposite_direction=opposite,
        interval_contains_zero=contains_zero,
        headline=headline,
    )
