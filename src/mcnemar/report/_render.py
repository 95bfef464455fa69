"""Rendering of a :class:`~mcnemar.report.Report`: text, markdown and HTML.

Every number comes from the report's result objects (the tests, intervals, the clustered and
margin results); nothing here computes a statistic. The words are those of
:mod:`mcnemar.report._words`.
"""

from __future__ import annotations

import html as _html
import math
from typing import TYPE_CHECKING, Any

from mcnemar import vocabulary
from mcnemar._format import format_pvalue, wrap
from mcnemar._format import markdown_text as _md
from mcnemar._format import plain_lines as _plain_lines
from mcnemar._format import shorten as _short
from mcnemar.report._compute import TEST_ORDER
from mcnemar.report._words import (
    _MAX_DECIMALS,
    _cell,
    _decimals,
    _fenced,
    _num,
    _p_vs_alpha,
    _pct,
    _points,
    _points_interval,
    _size,
)

if TYPE_CHECKING:
    from mcnemar.report._result import Report
    from mcnemar.vocabulary import Term

#: The vocabulary of each quantity's interval methods (the same key can name different methods
#: for different quantities): their labels and short labels come from mcnemar.vocabulary.
_INTERVAL_TERMS: dict[str, tuple[Term, ...]] = {
    "difference": vocabulary.DIFFERENCE_INTERVALS,
    "ratio": vocabulary.RATIO_INTERVALS,
    "odds_ratio": vocabulary.ODDS_RATIO_INTERVALS,
}


def interval_label(quantity: str, method: str) -> str:
    """The label of an interval method of ``quantity`` (``"difference"``, ``"ratio"``,
    ``"odds_ratio"``), from :mod:`mcnemar.vocabulary`."""
    return vocabulary.label(_INTERVAL_TERMS[quantity], method)


def interval_short(quantity: str, method: str) -> str:
    """The short label of an interval method (table columns, legends)."""
    return vocabulary.short(_INTERVAL_TERMS[quantity], method)


def _p_text(report: Report, key: str) -> str:
    r = report.tests[key]
    return format_pvalue(r.pvalue, r.log10_pvalue)


# The numbers of a report as its text prints them, also given in its JSON (the ``*_text``
# fields) so that a page shows the same digits without rounding anything itself.


def statistic_text(statistic: Any) -> str | None:
    """A test statistic with 4 significant digits, ``None`` where it is undefined."""
    x = float(statistic)
    return f"{x:.4g}" if math.isfinite(x) else None


def clustered_pvalue_text(report: Report) -> str:
    """The clustered test's p-value (the recommended one) as the report prints it."""
    p = report.pvalue
    return format_pvalue(p, math.log10(p)) if p > 0 else "0"


def accuracy_texts(report: Report) -> tuple[str, str] | None:
    """The two accuracies in percent, with enough decimals (up to ten) for them to differ
    where the difference does; ``None`` when N is unknown."""
    acc = report.accuracy
    if acc is None:
        return None
    dec = 2
    if report.difference:
        dec = max(2, min(_MAX_DECIMALS, _decimals(abs(100 * report.difference))))
    return f"{100 * acc[0]:.{dec}f}%", f"{100 * acc[1]:.{dec}f}%"


def effect_texts(estimate: Any, intervals: dict[str, Any]) -> dict[str, Any]:
    """A ratio or odds ratio and its intervals with 4 significant digits (``None`` for an
    undefined estimate or limit, e.g. an unbounded upper one)."""

    def four(x: Any) -> str | None:
        return None if x is None or not math.isfinite(float(x)) else f"{float(x):.4g}"

    return {"estimate_text": four(estimate),
            "interval_texts": {k: [four(ci.low), four(ci.high)] for k, ci in intervals.items()}}


def interval_lines(report: Report) -> list[tuple[str, str]]:
    """(label, limits in points) of each difference interval, as the text and markdown show."""
    return [
        (interval_label("difference", key), _points_interval(ci.low, ci.high))
        for key, ci in report.difference_intervals.items()
    ]


def favour(report: Report) -> str:
    """' in A's favour' for a one-sided alternative, '' for a two-sided one."""
    side = {"greater": 0, "less": 1}.get(report.alternative)
    return "" if side is None else f" in {report.names[side]}'s favour"


def unpaired_text(report: Report) -> str:
    if report.unpaired_pvalue is None:
        return ""
    paired_sig = report.conclusion.significant
    unpaired_sig = report.unpaired_pvalue < report.alpha
    log10_p = report.unpaired_log10_pvalue
    sided = "" if report.alternative == "two-sided" else ", one-sided like the test"
    base = (
        f"Ignoring the pairing (a pooled two-proportion z-test on the two accuracies, as if "
        f"they came from independent samples{sided}) gives "
        + _p_vs_alpha(
            report.unpaired_pvalue, math.nan if log10_p is None else log10_p, report.alpha
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


def power_text(report: Report) -> str:
    if report.detectable_difference is None:
        return ""
    n = report.table.n
    test = "exact test" if report.power_method == "exact" else "test (normal approximation)"
    sided = "" if report.alternative == "two-sided" else " (one-sided)"
    return (
        f"With {n} items and this discordance rate ({report.table.discordant}/{n} items "
        f"disagree), the {test}{sided} at alpha = {_num(report.alpha)} had "
        f"{_pct(report.power_target)} power only for differences of "
        f"{_size(report.detectable_difference, 3)} points or more{favour(report)}."
    )


def clustered_text(report: Report) -> str:
    cl = report.clustered
    if cl is None:
        return ""
    p_text = clustered_pvalue_text(report)
    text = (
        f"The items come in {cl.clusters} clusters. The {cl.name} gives chi-square = "
        f"{float(cl.statistic):.4g}, p = {p_text} (the unclustered chi-square test: "
        f"{float(cl.mcnemar_statistic):.4g}, p = {float(cl.mcnemar_pvalue):.4g})."
    )
    widening = cl.interval_widening(report.confidence_level)
    if cl.design_effect is not None and cl.difference is not None and widening is not None:
        ci = cl.confidence_interval(report.confidence_level)
        text += (
            f" Design effect {cl.design_effect:.3g}: the clustering inflates the variance of "
            f"the difference {cl.design_effect:.3g}-fold, and the cluster-robust "
            f"{_pct(report.confidence_level)} interval {_points_interval(ci.low, ci.high)} is "
            f"{widening:.3g} times as wide as one that treats the items as independent."
        )
    return text


def text(report: Report) -> str:
    na, nb = report.names
    ta, tb = _short(na), _short(nb)
    # Names that already say which side they are (the same model on both sides is shown
    # as "m (A)" and "m (B)") are not labelled twice.
    labelled = (na, nb) == ("A", "B") or (na.endswith(" (A)") and nb.endswith(" (B)"))
    title = f"{ta} vs {tb}" if labelled else f"{ta} (A) vs {tb} (B)"
    lines = [f"McNemar analysis: {title}", ""]
    lines.append(wrap(report.words()))
    acc = accuracy_texts(report)
    if acc is not None:
        lines.append(f"Accuracy: {na} {acc[0]}, {nb} {acc[1]}.")
    lines += ["", "Conclusion:", wrap(report.conclusion.text), ""]
    lines.append(f"Tests ({report.alternative}; the recommended one is marked *):")
    for key in TEST_ORDER:
        r = report.tests[key]
        mark = "*" if key == report.recommended else " "
        stat = statistic_text(r.statistic) or "undefined"
        lines.append(
            f" {mark} {r.name:<48} statistic {stat:>9}   p = {_p_text(report, key):<11}"
            f" log10 p = {float(r.log10_pvalue):.4f}"
        )
    lines.append(wrap("Why: " + report.recommendation_reason))
    lines.append("")
    if report.difference is not None:
        level = _pct(report.confidence_level)
        lines.append(
            f"Difference in accuracy, {na} - {nb}: "
            f"{_points(report.difference, _decimals(abs(100 * report.difference)))} points "
            f"({level} confidence intervals):"
        )
        for label, text in interval_lines(report):
            lines.append(f"   {label:<40} {text}")
    else:
        lines.append(
            "Difference in accuracy: needs the number of items; give a (both right) and "
            "d (both wrong) as well."
        )
    if report.unpaired_pvalue is not None:
        lines += ["", "The wrong comparison:", wrap(unpaired_text(report))]
    if report.detectable_difference is not None:
        lines += ["", "What this test set could detect:", wrap(power_text(report))]
    if report.clustered is not None:
        lines += ["", "Clustered items:", wrap(clustered_text(report))]
    if report.noninferiority is not None:
        from mcnemar.margin import describe_margin, margin_lines

        head = f"Against a margin of {describe_margin(report.noninferiority.margin)}:"
        lines += ["", head] + [
            wrap(x) for x in margin_lines(report.noninferiority, report.equivalence, report.names)
        ]
    if report.bayes is not None:
        lines += ["", "How likely is a real gain (Bayesian):",
                  wrap(report.bayes.text(report.names))]
    if report.flips is not None and report.flips.shown:
        lines += ["", "Items that flipped:", *(_plain_lines(x) for x in
                                                report.flips.lines(report.names))]
    if report.alignment is not None:
        lines += ["", "Alignment of the two runs:", _plain_lines(str(report.alignment))]
    lines += ["", "Assumptions:"] + [wrap("- " + a, indent="  ") for a in report.assumptions]
    if report.warnings:
        lines += ["", "Warnings:"] + [wrap("- " + w, indent="  ") for w in report.warnings]
    return "\n".join(lines)


def markdown(report: Report) -> str:
    """The report as markdown (e.g. for a pull-request comment)."""
    # Names and sentences are plain text: _md makes them inert (no HTML, links, emphasis,
    # table breaks or headings), and titles are shortened.
    na, nb = (_md(x) for x in report.names)
    title = f"{_md(_short(report.names[0]))} vs {_md(_short(report.names[1]))}"
    out = [f"### McNemar analysis: {title}", "", f"**{_md(report.conclusion.text)}**", ""]
    a, b, c, d = report.table.arrays()
    out += [
        f"| | {nb} right | {nb} wrong |",
        "|---|---:|---:|",
        f"| **{na} right** | {_cell(a)} | **{int(b)}** |",
        f"| **{na} wrong** | **{int(c)}** | {_cell(d)} |",
        "",
        _md(report.words()),
        "",
    ]
    acc = accuracy_texts(report)
    if acc is not None:  # the same line as the text report's
        out += [f"Accuracy: {na} {acc[0]}, {nb} {acc[1]}.", ""]
    out += [
        f"| test ({report.alternative}) | statistic | p-value | log10 p |",
        "|---|---:|---:|---:|",
    ]
    for key in TEST_ORDER:
        r = report.tests[key]
        stat = statistic_text(r.statistic) or "—"
        name = f"**{r.name}** (recommended)" if key == report.recommended else r.name
        out.append(f"| {name} | {stat} | {_p_text(report, key)} | {float(r.log10_pvalue):.3f} |")
    out += ["", f"_{_md(report.recommendation_reason)}_", ""]
    if report.difference is not None:
        out += [
            f"Difference in accuracy ({na} − {nb}): "
            f"**{_points(report.difference, _decimals(abs(100 * report.difference)))} points**",
            "",
            f"| {_pct(report.confidence_level)} interval | points |",
            "|---|---|",
        ]
        # The column says "points": the cells do not say it again.
        out += [f"| {label} | {text.removesuffix(' points')} |"
                for label, text in interval_lines(report)]
        out.append("")
    if report.unpaired_pvalue is not None:
        out += [f"> {_md(unpaired_text(report))}", ""]
    if report.detectable_difference is not None:
        out += [_md(power_text(report)), ""]
    if report.clustered is not None:
        out += [_md(clustered_text(report)), ""]
    if report.noninferiority is not None:
        from mcnemar.margin import describe_margin, margin_lines

        lines = margin_lines(report.noninferiority, report.equivalence, report.names)
        out += [f"**Against a margin of {describe_margin(report.noninferiority.margin)}**", ""]
        out += [f"- {_md(x)}" for x in lines] + [""]
    if report.bayes is not None:
        out += [f"**How likely is a real gain:** {_md(report.bayes.text(report.names))}", ""]
    if report.flips is not None and report.flips.shown:
        out += [*report.flips.markdown(report.names), ""]
    if report.alignment is not None:
        out += [
            "<details><summary>Alignment</summary>",
            "",
            *_fenced(_plain_lines(str(report.alignment))),
            "</details>",
            "",
        ]
    out += ["<details><summary>Assumptions</summary>", ""]
    out += [f"- {_md(x)}" for x in report.assumptions]
    out += ["", "</details>"]
    if report.warnings:
        out += [""] + [f"- ⚠ {_md(w)}" for w in report.warnings]
    return "\n".join(out) + "\n"


def headline_interval(report: Report) -> tuple[str, Any] | None:
    """(label, interval) of the difference the headline states, or None (N unknown)."""
    if report.difference is None:
        return None
    if report.recommended_interval == "clustered" and report.clustered is not None:
        return "cluster-robust", report.clustered.confidence_interval(report.confidence_level)
    ci = report.difference_intervals.get("newcombe")
    return (None if ci is None else ("Newcombe", ci))


def _recommended_name(report: Report) -> str:
    if report.recommended == "clustered" and report.clustered is not None:
        return str(report.clustered.name)
    return report.tests[report.recommended].name


def html(report: Report) -> str:
    """A compact HTML summary for notebooks: the verdict first, then the key numbers."""
    esc = _html.escape
    na, nb = report.names
    rows = [
        (
            "recommended test",
            f"{_recommended_name(report)} ({report.alternative}): p = "
            f"{format_pvalue(report.pvalue, report.log10_pvalue)}",
        ),
        ("table", report.words()),
    ]
    shown = headline_interval(report)
    if report.difference is not None:
        diff = _points(report.difference, _decimals(abs(100 * report.difference)))
        value = f"{diff} points"
        if shown is not None:
            label, ci = shown
            value += (
                f", {_pct(report.confidence_level)} interval "
                f"{_points_interval(ci.low, ci.high)} ({label})"
            )
        rows.append((f"difference {na} − {nb}", value))
    if report.detectable_difference is not None:
        rows.append((
            f"detectable at {_pct(report.power_target)} power",
            f"{_size(report.detectable_difference, 3)} points{favour(report)}",
        ))
    body = "".join(
        f'<tr><th style="text-align:left">{esc(k)}</th><td style="text-align:left">{esc(v)}</td>'
        "</tr>"
        for k, v in rows
    )
    warnings = "".join(f"<li>{esc(w)}</li>" for w in report.warnings)
    return (
        '<div class="mcnemar-report">'
        f"<p><strong>{esc(report.conclusion.headline)}</strong></p>"
        f"<p>{esc(report.conclusion.text)}</p>"
        f"<table>{body}</table>"
        + (f"<details><summary>Warnings</summary><ul>{warnings}</ul></details>" if warnings else "")
        + "</div>"
    )
