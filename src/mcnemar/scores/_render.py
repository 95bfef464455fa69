"""Rendering of a :class:`~mcnemar.scores.ScoreReport`: text, markdown and HTML.

Every number comes from the report; the sentences are :mod:`mcnemar.scores._words`'.
"""

from __future__ import annotations

import html as _html
import math
from typing import TYPE_CHECKING

from mcnemar import vocabulary
from mcnemar._format import markdown_text as _md
from mcnemar._format import plain_lines as _plain_lines
from mcnemar._format import shorten as _short
from mcnemar._format import wrap
from mcnemar.report._words import _fenced, _fixed, _pct
from mcnemar.scores import _words as words

if TYPE_CHECKING:
    from mcnemar.scores._report import ScoreReport


def _order() -> tuple[str, ...]:
    return vocabulary.names(vocabulary.SCORE_TESTS)


def pvalue_text(rep: ScoreReport, key: str) -> str:
    """A test's p-value as the tests table prints it ("—" when not computed)."""
    r = rep.tests[key]
    if not math.isfinite(r.pvalue):
        return "—"
    return words.pvalue_text(r.pvalue, r.log10_pvalue)


def statistic_text(rep: ScoreReport, key: str) -> str:
    """A test's statistic as the tests table prints it."""
    r = rep.tests[key]
    if not math.isfinite(r.statistic) and r.convention.startswith("not computed"):
        return "not computed"
    value = f"{r.statistic:.4g}" if math.isfinite(r.statistic) else "undefined"
    return f"{r.statistic_name} = {value}"


def detail_text(rep: ScoreReport, key: str) -> str:
    """How a test was computed, as the tests table prints it."""
    r = rep.tests[key]
    if key == "t":
        return f"df {r.df:.4g}"
    if key == "permutation" and r.standard_error is not None:
        return f"Monte Carlo, ± {r.standard_error:.2g}"
    if key in ("wilcoxon", "permutation") and math.isfinite(r.pvalue):
        return "exact" if r.exact else "normal approximation"
    return "exact" if key == "sign" else ""


def _interval_lines(rep: ScoreReport) -> list[tuple[str, str]]:
    out = []
    for key, ci in rep.intervals.items():
        if key == "hodges-lehmann":
            continue
        label = vocabulary.label(vocabulary.SCORE_INTERVALS, key)
        out.append((label, f"[{words.score(ci.low, rep)}, {words.score(ci.high, rep)}]"))
    return out


def _title(rep: ScoreReport) -> str:
    na, nb = rep.names
    return f"{_short(na)} (A) vs {_short(nb)} (B)"


def _means_line(rep: ScoreReport) -> str:
    na, nb = rep.names
    sd = "" if not math.isfinite(rep.correlation) else (
        f" (SD {rep.sd_a:.3g} and {rep.sd_b:.3g}, correlation "
        f"{_fixed(rep.correlation, 2, signed=False)})")
    return (f"Mean score: {na} {words.score(rep.mean_a, rep, signed=False)}, {nb} "
            f"{words.score(rep.mean_b, rep, signed=False)}{sd}.")


def text(rep: ScoreReport) -> str:
    na, nb = rep.names
    lines = [f"Paired comparison of scores: {_title(rep)}", "", wrap(words.counts_text(rep)),
             wrap(_means_line(rep)), "", "Conclusion:", wrap(rep.conclusion.text), ""]
    lines.append(f"Tests ({rep.alternative}; the recommended one is marked *):")
    for key in _order():
        mark = "*" if key == rep.recommended else " "
        lines.append(f" {mark} {rep.tests[key].name:<38} {statistic_text(rep, key):<18} "
                     f"p = {pvalue_text(rep, key):<11} {detail_text(rep, key)}".rstrip())
    lines.append(wrap("Why: " + rep.recommendation_reason))
    lines += ["", wrap(f"Mean difference {na} - {nb}: {words.score(rep.difference, rep)} "
                        f"(SD of the differences {rep.sd_difference:.3g}, standardised "
                        f"{rep.effect_size:.3g}; {_pct(rep.confidence_level)} confidence "
                        "intervals):")]
    lines += [f"   {label:<40} {limits}" for label, limits in _interval_lines(rep)]
    hl = words.hodges_lehmann_text(rep)
    if hl:
        lines.append(wrap(hl))
    lines += ["", "The wrong comparison:", wrap(words.unpaired_text(rep))]
    if rep.detectable_difference is not None:
        lines += ["", "What this test set could detect:", wrap(words.power_text(rep))]
    if rep.epochs is not None:
        lines += ["", "Repeated samples of an item:", wrap(words.epochs_text(rep))]
    if rep.clusters:
        lines += ["", "Clustered items:", wrap(words.clusters_text(rep))]
    if rep.noninferiority is not None:
        lines += ["", f"Against a margin of {rep.noninferiority.margin:g}:",
                  wrap(words.margin_text(rep))]
    if rep.flips is not None and rep.flips.shown:
        lines += ["", f"{rep.flips.title}:",
                  *(_plain_lines(x) for x in rep.flips.lines(rep.names))]
    if rep.alignment is not None:
        lines += ["", "Alignment of the two runs:", _plain_lines(str(rep.alignment))]
    lines += ["", "Assumptions:"] + [wrap("- " + a, indent="  ") for a in rep.assumptions]
    if rep.warnings:
        lines += ["", "Warnings:"] + [wrap("- " + w, indent="  ") for w in rep.warnings]
    return "\n".join(lines)


def markdown(rep: ScoreReport) -> str:
    na, nb = (_md(x) for x in rep.names)
    title = f"{_md(_short(rep.names[0]))} vs {_md(_short(rep.names[1]))}"
    out = [f"### Paired comparison of scores: {title}", "", f"**{_md(rep.conclusion.text)}**",
           "", _md(words.counts_text(rep)) + " " + _md(_means_line(rep)), "",
           f"| test ({rep.alternative}) | statistic | p-value | |", "|---|---:|---:|---|"]
    for key in _order():
        name = rep.tests[key].name
        name = f"**{name}** (recommended)" if key == rep.recommended else name
        out.append(f"| {name} | {statistic_text(rep, key)} | {pvalue_text(rep, key)} | "
                   f"{detail_text(rep, key)} |")
    out += ["", f"_{_md(rep.recommendation_reason)}_", "",
            f"Mean difference ({na} − {nb}): **{words.score(rep.difference, rep)}**", "",
            f"| {_pct(rep.confidence_level)} interval | limits |", "|---|---|"]
    out += [f"| {label} | {limits} |" for label, limits in _interval_lines(rep)]
    out.append("")
    hl = words.hodges_lehmann_text(rep)
    if hl:
        out += [_md(hl), ""]
    out += [f"> {_md(words.unpaired_text(rep))}", ""]
    for part in (words.power_text(rep), words.epochs_text(rep), words.clusters_text(rep),
                 words.margin_text(rep)):
        if part:
            out += [_md(part), ""]
    if rep.flips is not None and rep.flips.shown:
        out += [*rep.flips.markdown(rep.names), ""]
    if rep.alignment is not None:
        out += ["<details><summary>Alignment</summary>", "",
                *_fenced(_plain_lines(str(rep.alignment))), "</details>", ""]
    out += ["<details><summary>Assumptions</summary>", ""]
    out += [f"- {_md(x)}" for x in rep.assumptions] + ["", "</details>"]
    if rep.warnings:
        out += [""] + [f"- ⚠ {_md(w)}" for w in rep.warnings]
    return "\n".join(out) + "\n"


def html(rep: ScoreReport) -> str:
    esc = _html.escape
    na, nb = rep.names
    test = rep.tests[rep.recommended]
    rows = [("recommended test",
             f"{test.name} ({rep.alternative}): p = {pvalue_text(rep, rep.recommended)}"),
            ("items", words.counts_text(rep))]
    ci = rep.intervals.get(rep.recommended_interval)
    value = f"{words.score(rep.difference, rep)}"
    if ci is not None:
        value += (f", {_pct(rep.confidence_level)} interval [{words.score(ci.low, rep)}, "
                  f"{words.score(ci.high, rep)}] "
                  f"({vocabulary.short(vocabulary.SCORE_INTERVALS, rep.recommended_interval)})")
    rows.append((f"mean difference {na} − {nb}", value))
    if rep.detectable_difference is not None:
        rows.append((f"detectable at {_pct(rep.power_target)} power",
                     f"{words.score(rep.detectable_difference, rep, signed=False)}"))
    body = "".join(
        f'<tr><th style="text-align:left">{esc(k)}</th><td style="text-align:left">{esc(v)}'
        "</td></tr>" for k, v in rows)
    warnings = "".join(f"<li>{esc(w)}</li>" for w in rep.warnings)
    return ('<div class="mcnemar-report mcnemar-scores">'
            f"<p><strong>{esc(rep.conclusion.headline)}</strong></p>"
            f"<p>{esc(rep.conclusion.text)}</p><table>{body}</table>"
            + (f"<details><summary>Warnings</summary><ul>{warnings}</ul></details>"
               if warnings else "") + "</div>")
