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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

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

    Attributes
    ----------
    significant : bool
        The recommended p-value is below ``alpha``.
    better : {"a", "b"} or None
        The system that did significantly better, ``None`` when the test set does not
        resolve them.
    text : str
        The conclusion in words.
    """

    significant: bool
    better: str | None
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"significant": self.significant, "better": self.better, "text": self.text}


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
    extra: dict[str, Any] = field(default_factory=dict)

    # -- convenience ---------------------------------------------------------------------------
    @property
    def pvalue(self) -> float:
        """The recommended p-value."""
        if self.recommended == "clustered" and self.clustered is not None:
            return _clustered_pvalue(self.clustered, self.alternative)
        return float(self.tests[self.recommended].pvalue)

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

    # -- rendering -----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-safe data (schema ``mcnemar.report/1``, docs/report-schema.md)."""
        acc = self.accuracy
        tests = {}
        for key in _TEST_ORDER:
            r = self.tests[key]
            tests[key] = {
                "name": r.name,
                "convention": r.convention,
                "statistic": _plain(r.statistic),
                "pvalue": _plain(r.pvalue),
                "log10_pvalue": _plain(r.log10_pvalue),
                "recommended": key == self.recommended,
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
                "recommended_interval": "newcombe",
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
                "note": self._unpaired_text(),
            },
            "power": None
            if self.detectable_difference is None
            else {
                "detectable_difference": _plain(self.detectable_difference),
                "power": self.power_target,
                "method": self.power_method,
                "note": self._power_text(),
            },
            "conclusion": self.conclusion.to_dict(),
            "assumptions": list(self.assumptions),
            "warnings": list(self.warnings),
        }
        if self.clustered is not None:
            cl = self.clustered
            p = self.pvalue
            tests["clustered"] = {
                "name": cl.name,
                "convention": "chi-square on 1 degree of freedom"
                + ("" if self.alternative == "two-sided" else "; one-sided: half the tail"),
                "statistic": _plain(cl.statistic),
                "pvalue": _plain(p),
                "log10_pvalue": _plain(math.log10(p)) if p > 0 else None,
                "recommended": self.recommended == "clustered",
            }
            section = cl.to_dict()
            if cl.difference is not None and cl.standard_error is not None:
                ci = cl.confidence_interval(self.confidence_level)
                section["confidence_interval"] = {
                    **ci.to_dict(),
                    "confidence_level": self.confidence_level,
                    "method": "CR1 cluster-robust, t with K - 1 df",
                }
                section["interval_widening"] = _plain(cl.interval_widening(self.confidence_level))
            out["clustered"] = section
        if self.alignment is not None:
            out["alignment"] = self.alignment.to_dict()
        out.update(self.extra)
        return out

    def _p_text(self, key: str) -> str:
        r = self.tests[key]
        return format_pvalue(r.pvalue, r.log10_pvalue)

    def _unpaired_text(self) -> str:
        if self.unpaired_pvalue is None:
            return ""
        paired_sig = self.conclusion.significant
        unpaired_sig = self.unpaired_pvalue < self.alpha
        base = (
            f"Ignoring the pairing (a pooled two-proportion z-test on the two accuracies, as if "
            f"they came from independent samples) gives p = {self.unpaired_pvalue:.4g}"
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
        return (
            f"With {n} items and this discordance rate ({self.table.discordant}/{n} items "
            f"disagree), the {test} at alpha = {self.alpha:g} had "
            f"{self.power_target:.0%} power only for differences of "
            f"{_size(self.detectable_difference)} points or more."
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
                f"{self.confidence_level:.0%} interval {_points_interval(ci.low, ci.high)} is "
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
        title = f"{na} vs {nb}" if (na, nb) == ("A", "B") else f"{na} (A) vs {nb} (B)"
        lines = [f"McNemar analysis: {title}", ""]
        lines.append(_wrap(self.words()))
        acc = self.accuracy
        if acc is not None:
            lines.append(f"Accuracy: {na} {acc[0]:.2%}, {nb} {acc[1]:.2%}.")
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
            level = f"{self.confidence_level:.0%}"
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
        if self.alignment is not None:
            lines += ["", "Alignment of the two runs:", str(self.alignment)]
        lines += ["", "Assumptions:"] + [_wrap("- " + a, indent="  ") for a in self.assumptions]
        if self.warnings:
            lines += ["", "Warnings:"] + [_wrap("- " + w, indent="  ") for w in self.warnings]
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """The report as markdown (e.g. for a pull-request comment)."""
        na, nb = self.names
        out = [f"### McNemar analysis: {na} vs {nb}", "", f"**{self.conclusion.text}**", ""]
        a, b, c, d = self.table.arrays()
        out += [
            f"| | {nb} right | {nb} wrong |",
            "|---|---:|---:|",
            f"| **{na} right** | {_cell(a)} | **{int(b)}** |",
            f"| **{na} wrong** | **{int(c)}** | {_cell(d)} |",
            "",
            self.words(),
            "",
            f"| test ({self.alternative}) | statistic | p-value | log10 p |",
            "|---|---:|---:|---:|",
        ]
        for key in _TEST_ORDER:
            r = self.tests[key]
            stat = "—" if not math.isfinite(float(r.statistic)) else f"{float(r.statistic):.4g}"
            name = f"**{r.name}** (recommended)" if key == self.recommended else r.name
            out.append(f"| {name} | {stat} | {self._p_text(key)} | {float(r.log10_pvalue):.3f} |")
        out += ["", f"_{self.recommendation_reason}_", ""]
        if self.difference is not None:
            out += [
                f"Difference in accuracy ({na} − {nb}): "
                f"**{_points(self.difference, _decimals(abs(100 * self.difference)))} points**",
                "",
                f"| {self.confidence_level:.0%} interval | points |",
                "|---|---|",
            ]
            out += [f"| {label} | {text} |" for label, text in self._interval_lines()]
            out.append("")
        if self.unpaired_pvalue is not None:
            out += [f"> {self._unpaired_text()}", ""]
        if self.detectable_difference is not None:
            out += [self._power_text(), ""]
        if self.clustered is not None:
            out += [self._clustered_text(), ""]
        if self.alignment is not None:
            out += [
                "<details><summary>Alignment</summary>",
                "",
                "```",
                str(self.alignment),
                "```",
                "</details>",
                "",
            ]
        out += ["<details><summary>Assumptions</summary>", ""]
        out += [f"- {x}" for x in self.assumptions]
        out += ["", "</details>"]
        if self.warnings:
            out += [""] + [f"- ⚠ {w}" for w in self.warnings]
        return "\n".join(out) + "\n"


def _cell(x: Any) -> str:
    return "—" if x is None else str(int(x))


def _wrap(text: str, indent: str = "") -> str:
    import textwrap

    return textwrap.fill(text, width=92, subsequent_indent=indent)


def _decimals(scale: float) -> int:
    """Decimals that show a quantity of this size (in points) with two significant digits;
    one decimal for everyday sizes, more for the tiny differences of huge test sets."""
    if not math.isfinite(scale) or scale <= 0:
        return 1
    return max(1, min(10, 1 - math.floor(math.log10(scale))))


def _points(x: float, decimals: int = 1) -> str:
    return f"{100 * x:+.{decimals}f}"


def _size(x: float) -> str:
    """An unsigned difference in points, e.g. '7.0' or '0.00062'."""
    return f"{abs(100 * x):.{_decimals(abs(100 * x))}f}"


def _points_pair(lo: float, hi: float) -> tuple[str, str]:
    """Both limits of an interval in points, with as many decimals as its width needs."""
    d = _decimals(100 * (hi - lo))
    return _points(lo, d), _points(hi, d)


def _points_interval(low: Any, high: Any) -> str:
    lo, hi = float(low), float(high)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return "undefined"
    lo_text, hi_text = _points_pair(lo, hi)
    return f"[{lo_text}, {hi_text}] points"


def _check_level(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.floating | np.integer):
        raise McNemarError(f"{name} must be a number strictly between 0 and 1, got {value!r}")
    v = float(value)
    if not (0.0 < v < 1.0):
        raise McNemarError(f"{name} must be strictly between 0 and 1, got {value!r}")
    return v


def _check_names(names: Any) -> tuple[str, str]:
    if (
        not isinstance(names, tuple | list)
        or len(names) != 2
        or not all(isinstance(x, str) and x.strip() for x in names)
    ):
        raise McNemarError(f"names must be two non-empty strings (A, B), got {names!r}")
    if names[0] == names[1]:
        raise McNemarError(
            f"names must differ so that the report can say which did better, got {names!r}"
        )
    return (names[0].strip(), names[1].strip())


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

    Returns
    -------
    Report

    Notes
    -----
    Which p-value to report: with fewer than 25 discordant items the chi-square
    approximation is not trusted and the exact conditional test is recommended; from 25 on,
    the uncorrected chi-square test. Fagerland, Lydersen & Laake (2013) found the mid-p test
    closer to the nominal level than the exact test in all situations, and the report names it
    as the less conservative alternative.

    Examples
    --------
    >>> rep = analyze(PairedTable(a=157, b=17, c=3, d=23), names=("candidate", "baseline"))
    >>> rep.recommended, round(rep.pvalue, 4), rep.conclusion.better
    ('exact', 0.0026, 'a')
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
            f"is trusted: report the chi-square test ({tests['asymptotic'].convention}); the "
            "exact and mid-p tests agree closely at this size, and the continuity correction "
            "is needlessly conservative (Fagerland, Lydersen & Laake 2013)."
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
        z, p = unpaired_ztest(a, b, c, d)
        unpaired_z, unpaired_p = float(z), float(p)
        if big_d > 0:
            from mcnemar.planning import minimum_detectable_effect

            # The exact power sum costs O(sqrt(D)); beyond a million discordant items Connor's
            # normal approximation agrees with it to about 3 significant digits.
            power_method = "exact" if big_d <= EXACT_POWER_MAX_D else "connor"
            mde = minimum_detectable_effect(
                n, big_d / n, power=power, alpha=alpha, method=power_method
            )
            detectable = _maybe(mde.difference)
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
        p_value = _clustered_pvalue(clustered, alternative)
        log10_p = math.log10(p_value) if p_value > 0 else -math.inf
        design = clustered.design_effect
        recommended = "clustered"
        reason = (
            f"the {big_d} discordant items come from {clustered.clusters} clusters, so they are "
            "not independent and the plain tests overstate the evidence"
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
    significant = bool(math.isfinite(p_value) and p_value < alpha)
    better: str | None = None
    if significant:
        if alternative == "greater":
            better = "a"
        elif alternative == "less":
            better = "b"
        else:
            better = "a" if b > c else "b"
    conclusion = _conclusion(
        names=names,
        table=t,
        significant=significant,
        better=better,
        test_name=test_name,
        p_text=format_pvalue(p_value, log10_p) if math.isfinite(p_value) else "undefined",
        alpha=alpha,
        alternative=alternative,
        diff=diff,
        ci=headline_ci,
        ci_label=ci_label,
        level=confidence_level,
        detectable=detectable,
        power=power,
    )
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
    )


def _clustered_pvalue(result: ClusteredResult, alternative: str) -> float:
    """The clustered test's p-value for ``alternative`` (one-sided: half the chi-square tail
    in the observed direction, one minus that against it)."""
    p = float(result.pvalue)
    if alternative == "two-sided" or not math.isfinite(p):
        return p
    if result.b == result.c:
        return 1.0 - p / 2.0
    toward_a = result.b > result.c
    agrees = toward_a if alternative == "greater" else not toward_a
    return p / 2.0 if agrees else 1.0 - p / 2.0


def _maybe(x: Any) -> float | None:
    if x is None:
        return None
    v = float(x)
    return v if math.isfinite(v) else None


def _conclusion(
    *,
    names: tuple[str, str],
    table: PairedTable,
    significant: bool,
    better: str | None,
    test_name: str,
    p_text: str,
    alpha: float,
    alternative: str,
    diff: float | None,
    ci: Any,
    ci_label: str,
    level: float,
    detectable: float | None,
    power: float,
) -> Conclusion:
    na, nb = names
    b, c = int(table.arrays()[1]), int(table.arrays()[2])
    split = (
        f"{na} was right on {b} item{'s' if b != 1 else ''} where {nb} was wrong, "
        f"and {nb} on {c} where {na} was wrong"
    )

    def ci_text(sign: int) -> str:
        # The interval of the difference as it is read: leader minus the other (sign = -1
        # turns the interval for A - B into one for B - A).
        if diff is None or ci is None or not math.isfinite(float(ci.low)):
            return ""
        lo, hi = sorted((sign * float(ci.low), sign * float(ci.high)))
        lo_text, hi_text = _points_pair(lo, hi)
        return f" ({level:.0%} CI {lo_text} to {hi_text} points, {ci_label})"

    if significant and better is not None:
        winner, loser = (na, nb) if better == "a" else (nb, na)
        size = ""
        if diff is not None:
            size = f" by {_size(diff)} accuracy points{ci_text(1 if better == 'a' else -1)}"
        text = (
            f"{winner} did better than {loser}{size}: {split}. The {test_name} test gives "
            f"p = {p_text} < {alpha:g}, so a difference this large is unlikely if the two "
            "were equally accurate."
        )
        return Conclusion(significant=True, better=better, text=text)
    where = {
        "two-sided": "in either direction",
        "greater": f"in {na}'s favour",
        "less": f"in {nb}'s favour",
    }[alternative]
    lean = ""
    if b != c:
        ahead = na if b > c else nb
        lean = f" {ahead} was ahead on this test set"
        if diff is not None:
            lean += f" by {_size(diff)} points{ci_text(1 if b > c else -1)}"
        lean += ", but that is within what chance produces."
    text = (
        f"This test set does not resolve {na} and {nb}: {split}; the {test_name} test gives "
        f"p = {p_text} ≥ {alpha:g}, no significant difference {where}.{lean} "
        "A non-significant result is not evidence that the two are equally accurate"
    )
    if detectable is not None:
        text += (
            f": the test had {power:.0%} power only for differences of "
            f"{_size(detectable)} points or more."
        )
    else:
        text += "."
    return Conclusion(significant=False, better=None, text=text)
