"""Words and pictures of a per-task comparison (:class:`mcnemar.tasks.TaskComparison`).

Text, markdown and HTML of the result, and the dependency-free SVG forest plot
(:func:`forest_svg`, which the web page shows). Every sentence is built from the numbers it
prints: a task is called worse exactly when its adjusted p-value is below alpha and A's
accuracy is lower, and the overall verdict follows the headline's p-value and sign. Which
overall is the headline is one decision (:func:`mcnemar.report._decide.headline_rule`);
:func:`headline` states it for the JSON (and so for the page), and each task's numbers are
given there as the table prints them (:func:`task_texts`), with the single report's
explanation of an interval and a test that disagree (:func:`task_note`). Nothing here
computes a statistic; :mod:`mcnemar.tasks._compare` does.
"""

from __future__ import annotations

import html as _html
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mcnemar._format import (
    clean_name,
    format_label_pvalue,
    format_table_pvalue,
    markdown_text,
    shorten,
    wrap,
)
from mcnemar.report._decide import EXACT_BELOW, decide_one, interval_disagreement
from mcnemar.report._decide import verdict as side_verdict
from mcnemar.report._words import interval_note
from mcnemar.vocabulary import ADJUSTMENTS, DIFFERENCE_INTERVALS, short

if TYPE_CHECKING:
    from mcnemar.report._result import Report
    from mcnemar.tasks._results import TaskComparison

__all__ = ["forest_rows", "forest_svg", "headline", "html", "markdown", "text",
           "verdict"]

_TEST_WORDS = {"exact": "exact McNemar", "asymptotic": "chi-square McNemar",
               "clustered": "clustered McNemar"}
_REPORT_TEST_NAMES = {"exact": "exact", "asymptotic": "chi-square", "clustered": "clustered"}
_TEST_NOTE = (f"exact below {EXACT_BELOW} discordant items, chi-square from {EXACT_BELOW}, "
              "clustered with clusters")


def plural(n: int) -> str:
    """The plural ending of a count's noun."""
    return "" if n == 1 else "s"


def _weight_text(weights: Sequence[float]) -> str:
    w = sorted(set(round(x, 12) for x in weights))
    if len(w) == 1:
        return f"1/{round(1 / w[0])}" if w[0] > 0 else "0"
    return f"{w[0]:.3g} to {w[-1]:.3g}"


def micro_interval(report: Report) -> tuple[float, float]:
    """The headline interval of the pooled (micro) report, NaN where it has none."""
    ci = report.headline_interval
    if ci is None:
        return math.nan, math.nan
    return float(ci.low), float(ci.high)


def _level(level: float) -> str:
    return f"{100 * level:g}%"


def _pt(x: float | None) -> str:
    """A difference of proportions in signed points, with enough decimals that a nonzero value
    never prints as 0 (down to 1e-6 of a point)."""
    if x is None or not math.isfinite(x):
        return "undefined"
    v = 100.0 * x
    if v == 0:
        return "0.0"
    decimals = 1
    while round(abs(v), decimals) == 0 and decimals < 6:
        decimals += 1
    return f"{v:+.{decimals}f}"


def verdict(c: TaskComparison) -> str:
    """The answer in two sentences: the headline overall, then which tasks got worse."""
    return verdict_overall(c) + " " + verdict_tasks(c)


def _headline_p(c: TaskComparison) -> str:
    p = c.headline[3]
    return "undefined" if p is None else format_table_pvalue(p, c.alpha)


def verdict_overall(c: TaskComparison) -> str:
    """The first sentence of the verdict: the headline overall (:attr:`TaskComparison.headline`)
    with its interval and p-value, and what it says at alpha."""
    a, b = (clean_name(n) for n in c.names)
    est, lo, hi, p = c.headline
    kind = c.overall.headline
    side = side_verdict(est, p, c.alpha, c.alternative)
    p_text = _headline_p(c)
    ci = f"{_level(c.confidence_level)} CI {_pt(lo)} to {_pt(hi)}"
    what = {"worse": f"{a} is significantly less accurate than {b}",
            "better": f"{a} is significantly more accurate than {b}",
            "none": f"no significant difference between {a} and {b}"
            if c.alternative == "two-sided" else
            f"no significant evidence that {a} is "
            f"{'more' if c.alternative == 'greater' else 'less'} accurate than {b}",
            "undefined": "the test is undefined"}[side]
    return (f"Overall ({kind}): {a} - {b} = {_pt(est)} points ({ci}), p = {p_text}: "
            f"{what} at alpha = {c.alpha:g}.")


def verdict_tasks(c: TaskComparison) -> str:
    """The second sentence of the verdict: how many tasks (and which) got worse."""
    a = clean_name(c.names[0])
    adj = short(ADJUSTMENTS, c.adjust)
    adj_text = "without adjustment" if c.adjust == "none" else f"after {adj} adjustment"
    worse = c.worse
    count = f"{len(worse)} of {len(c.tasks)} task{plural(len(c.tasks))}"
    if worse:
        # Up to six names; beyond, five and the number left ("and 1 more" would hide a name
        # that fits in its place).
        named = worse if len(worse) <= 6 else worse[:5]
        shown = ", ".join(clean_name(t.task) for t in named)
        more = f" and {len(worse) - len(named)} more" if len(named) < len(worse) else ""
        second = (f"{count} significantly worse for {a} {adj_text}: {shown}{more}.")
    else:
        second = f"{count} significantly worse for {a} {adj_text}."
    if c.better:
        n_b = len(c.better)
        second += f" {n_b} task{plural(n_b)} significantly better."
    return second


def headline_words(c: TaskComparison) -> str:
    """The headline overall in a few words (a page title, the verdict's first line)."""
    a, b = (clean_name(n) for n in c.names)
    kind = c.overall.headline
    outcome = c.outcome
    if outcome == "undefined":
        return f"No conclusion: the {kind} overall test is undefined for these data"
    if outcome == "better":
        return f"{a} did better than {b} overall ({kind})"
    if outcome == "worse":
        return f"{b} did better than {a} overall ({kind})"
    if c.alternative == "two-sided":
        return f"No clear difference between {a} and {b} overall ({kind})"
    side, other = (a, b) if c.alternative == "greater" else (b, a)
    return f"No clear evidence that {side} is more accurate than {other} overall ({kind})"


def headline(c: TaskComparison) -> dict[str, Any]:
    """The headline overall as the JSON states it (``headline`` of ``mcnemar.tasks/1``): which
    overall it is (:func:`mcnemar.tasks.headline_rule`), its numbers, what it says, and the
    words and digits the text prints, so that every reader shows the same headline."""
    from mcnemar._format import json_number

    est, lo, hi, p = c.headline
    kind = c.overall.headline
    if kind == "macro":
        test = "z-test on the mean of the per-task differences"
        label = "macro z-test"
    else:
        test = _TEST_WORDS.get(c.overall.micro.recommended, c.overall.micro.recommended)
        label = f"micro {test} test"
    return {
        "overall": kind,
        "outcome": c.outcome,
        "significant": c.outcome in ("worse", "better"),
        "estimate": json_number(est),
        "low": json_number(lo),
        "high": json_number(hi),
        "pvalue": json_number(p),
        "test": test,
        "label": label,
        "words": headline_words(c),
        "text": verdict_overall(c),
        "texts": {"estimate": _pt(est), "low": _pt(lo), "high": _pt(hi),
                  "pvalue": _headline_p(c)},
    }


def task_texts(c: TaskComparison, t: Any) -> dict[str, str]:
    """A task's numbers as the per-task table prints them (``texts`` of each task)."""
    return {"difference": _pt(t.difference), "low": _pt(t.low), "high": _pt(t.high),
            "pvalue": format_table_pvalue(t.pvalue, c.alpha),
            "adjusted_pvalue": format_table_pvalue(t.adjusted_pvalue, c.alpha)}


def task_note(c: TaskComparison, t: Any) -> str | None:
    """Why a task's interval and its test disagree (the interval excludes 0 beside p >= alpha,
    or includes it beside p < alpha), in the words the single-table report uses for its own
    headline interval and test (:func:`mcnemar.report._decide.interval_disagreement`); ``None``
    when they agree."""
    claims = decide_one(pvalue=t.pvalue, b=t.b, c=t.c, alpha=c.alpha,
                        alternative=c.alternative, low=t.low, high=t.high)
    verb = interval_disagreement(claims)
    if verb is None:
        return None
    side = "" if c.alternative == "two-sided" else "one-sided "
    # The test's name as the single report of that task alone says it.
    test = f"{side}{_REPORT_TEST_NAMES.get(t.test, t.test)} test"
    robust = t.clustered is not None and t.clustered.difference is not None and \
        t.clustered.standard_error is not None  # the task's interval is the cluster-robust one
    label = "cluster-robust" if robust else short(DIFFERENCE_INTERVALS, c.interval)
    names = (clean_name(c.names[0]), clean_name(c.names[1]))
    return interval_note(verb, claims, names=names, test=test,
                         alpha=c.alpha, alternative=c.alternative, ci_label=label,
                         level=c.confidence_level)


def notes(c: TaskComparison) -> list[str]:
    """``task: note`` for every task whose interval and test disagree (worst first)."""
    out = []
    for t in c.tasks:
        note = task_note(c, t)
        if note is not None:
            out.append(f"{clean_name(t.task)}: {note}")
    return out


def rows(c: TaskComparison, markdown: bool = False) -> list[list[str]]:
    """The cells of the per-task table, one row per task (worst first)."""
    out = []
    for t in c.tasks:
        flag = "worse" if t.worse else "better" if t.better else ""
        name = clean_name(t.task)
        x = task_texts(c, t)
        out.append([markdown_text(name) if markdown else shorten(name, 48), str(t.n),
                     str(t.b), str(t.c), x["difference"], f"{x['low']} to {x['high']}",
                     t.test, x["pvalue"], x["adjusted_pvalue"], flag])
    return out


def header(c: TaskComparison) -> list[str]:
    """The column titles of the per-task table."""
    adj = "adj. p" if c.adjust == "none" else f"adj. p ({short(ADJUSTMENTS, c.adjust)})"
    return ["task", "n", "b", "c", "A - B (points)",
            f"{_level(c.confidence_level)} CI", "test", "p", adj, ""]


def overall_lines(c: TaskComparison) -> list[str]:
    """The micro and macro overall, and which is the headline and why."""
    micro, macro = c.overall.micro, c.overall.macro
    lo, hi = micro_interval(micro)
    est = float(micro.difference) if micro.difference is not None else math.nan
    level = _level(c.confidence_level)
    mark = {"micro": "", "macro": ""}
    mark[c.overall.headline] = ", the headline"
    macro_p = "undefined" if macro.pvalue is None else \
        format_table_pvalue(macro.pvalue, c.alpha)
    return [
        f"Micro{mark['micro']} (items pooled, {micro.table.n} items): {_pt(est)} points "
        f"({level} CI {_pt(lo)} to {_pt(hi)}), "
        f"{_TEST_WORDS.get(micro.recommended, micro.recommended)} "
        f"p = {format_table_pvalue(micro.pvalue, c.alpha)}.",
        f"Macro{mark['macro']} (mean of {len(macro.tasks)} task differences, each weight "
        f"{_weight_text(macro.weights)}): {_pt(macro.estimate)} points ({level} CI "
        f"{_pt(macro.low)} to {_pt(macro.high)}), z-test p = {macro_p}.",
        f"Headline: {c.overall.reason}",
    ]


def text(c: TaskComparison) -> str:
    """The plain-text result: verdict, overall lines, per-task table, notes."""
    a, b = (clean_name(n) for n in c.names)
    lines = [wrap(f"{a} (A) vs {b} (B), task by task: {len(c.tasks)} "
                  f"task{plural(len(c.tasks))}, {c.items} items."), "",
             wrap(verdict(c)), ""]
    # Paragraphs at the width of the single report; the table keeps its own lines.
    lines += [wrap(x) for x in overall_lines(c)]
    lines.append("")
    head = header(c)
    table = rows(c)
    widths = [max(len(r[i]) for r in [head, *table]) for i in range(len(head))]
    right = {1, 2, 3, 4, 7, 8}

    def line(cells: list[str]) -> str:
        return "  ".join(x.rjust(w) if i in right else x.ljust(w)
                         for i, (x, w) in enumerate(zip(cells, widths, strict=True))).rstrip()

    lines.append(line(head))
    lines += [line(r) for r in table]
    lines.append("")
    lines.append(wrap(f"p: the test {a} vs {b} of each task alone ({_TEST_NOTE}); "
                      f"{c.alternative}."))
    # Rows whose interval and test disagree get the single report's explanation.
    lines += [wrap(f"- {x}", indent="  ") for x in notes(c)]
    if c.flips is not None and c.flips.shown:
        lines += ["", "Items that flipped:", *c.flips.lines(c.names)]
    if c.warnings:
        lines += ["", "Warnings:"] + [wrap(f"- {w}", indent="  ") for w in c.warnings]
    if c.alignment is not None:
        lines += ["", str(c.alignment)]
    return "\n".join(lines)


def markdown(c: TaskComparison) -> str:
    """GitHub-flavoured markdown: verdict, overall, per-task table."""
    a, b = (markdown_text(clean_name(n)) for n in c.names)
    out = [f"### {a} vs {b}, task by task", "", markdown_text(verdict(c)), ""]
    out += [f"- {markdown_text(x)}" for x in overall_lines(c)]
    out.append("")
    head = header(c)
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "|".join("---:" if i in (1, 2, 3, 4, 7, 8) else "---"
                              for i in range(len(head))) + "|")
    for r in rows(c, markdown=True):
        r[-1] = f"**{r[-1]}**" if r[-1] else ""
        out.append("| " + " | ".join(r) + " |")
    explained = notes(c)
    if explained:
        out += ["", *(f"- {markdown_text(x)}" for x in explained)]
    if c.flips is not None and c.flips.shown:
        out += ["", *c.flips.markdown(c.names)]
    if c.warnings:
        out += ["", "Warnings:", ""] + [f"- {markdown_text(w)}" for w in c.warnings]
    return "\n".join(out)


def html(c: TaskComparison) -> str:
    """A compact HTML fragment, the verdict first (notebooks)."""
    e = _html.escape
    head = "".join(f"<th>{e(h)}</th>" for h in header(c))
    body = []
    for r, t in zip(rows(c), c.tasks, strict=True):
        style = ' style="color:#b00020"' if t.worse else ""
        body.append(f"<tr{style}>" + "".join(f"<td>{e(x)}</td>" for x in r) + "</tr>")
    overall = "".join(f"<li>{e(x)}</li>" for x in overall_lines(c))
    return (f'<div class="mcnemar-tasks"><p><strong>{e(verdict(c))}</strong></p>'
            f"<ul>{overall}</ul><table><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table></div>")


def forest_rows(comparison: TaskComparison) -> list[dict[str, Any]]:
    """The rows of the forest plot, top to bottom: tasks worst first, then micro and macro.

    Each row: ``label``, ``estimate``, ``low``, ``high`` (proportions), ``significant``,
    ``worse``, ``overall`` (False for tasks), ``pvalue`` (adjusted for tasks), ``headline``
    (the overall row the verdict states) and ``p_label`` (``"adj. p = 0.38"``, or ``None``),
    as both forest plots (SVG and PNG) label them.
    """
    alpha = comparison.alpha

    def p_label(p: float | None, overall: bool) -> str | None:
        if p is None or not math.isfinite(p):
            return None
        word = "p" if overall or comparison.adjust == "none" else "adj. p"
        return f"{word} = {format_label_pvalue(p, alpha)}"

    rows = [{"label": t.task, "estimate": t.difference, "low": t.low, "high": t.high,
             "significant": t.worse or t.better, "worse": t.worse, "overall": False,
             "pvalue": t.adjusted_pvalue, "headline": False,
             "p_label": p_label(t.adjusted_pvalue, False)} for t in comparison.tasks]
    micro, macro = comparison.overall.micro, comparison.overall.macro
    lo, hi = micro_interval(micro)
    est = float(micro.difference) if micro.difference is not None else math.nan
    for kind, label, e, low, high, p in (
            ("micro", "Overall, micro (items pooled)", est, lo, hi, micro.pvalue),
            ("macro", "Overall, macro (mean of tasks)", macro.estimate, macro.low, macro.high,
             macro.pvalue)):
        side = side_verdict(e, p, alpha, comparison.alternative)
        rows.append({"label": label, "estimate": e, "low": low, "high": high,
                     "significant": side in ("worse", "better"), "worse": side == "worse",
                     "overall": True, "pvalue": p,
                     "headline": kind == comparison.overall.headline,
                     "p_label": p_label(p, True)})
    return rows


def forest_title(comparison: TaskComparison) -> str:
    """The title of both forest plots: what a filled marker and the ``*`` mean."""
    adjusted = short(ADJUSTMENTS, comparison.adjust)
    return (f"Per task, worst first: filled = significant ({adjusted} adjusted p < "
            f"{comparison.alpha:g}); * = headline overall")


def forest_axis(comparison: TaskComparison) -> str:
    """The x-axis title of both forest plots, naming the two systems."""
    a, b = (shorten(clean_name(n), 30) for n in comparison.names)
    return f"accuracy({a}) - accuracy({b}), points, {_level(comparison.confidence_level)} CI"


def forest_svg(comparison: TaskComparison, *, width: int = 720, label_chars: int = 40) -> str:
    """The forest plot of a :class:`TaskComparison` as a standalone SVG document (a string).

    One row per task, worst first, with accuracy(A) - accuracy(B) in points and its interval;
    a filled marker means significant after adjustment (red when A is worse), the adjusted
    p-value is written on the right; the micro and macro overall rows (diamonds) close the
    plot, the headline one marked ``*``; a dashed line marks zero, and the axis names the two
    systems. The labels are those of the PNG (:func:`mcnemar.plotting.forest_plot`): both
    draw :func:`forest_rows`. Labels longer than ``label_chars`` are shortened; every text is
    escaped.

    Examples
    --------
    >>> from mcnemar.tasks import compare_task_tables
    >>> res = compare_task_tables({"arith": (13, 8, 6, 3), "mc": (21, 5, 3, 1)})
    >>> svg = forest_svg(res)
    >>> svg.startswith("<svg") and svg.count("<line") >= 4
    True
    >>> "Overall, macro (mean of tasks) *" in svg and "adj. p = 1" in svg
    True
    """
    rows = forest_rows(comparison)
    e = _html.escape
    font = 11
    char_w = 0.62 * font  # a generous average advance of a sans-serif character
    labels = [shorten(clean_name(r["label"]), label_chars) + (" *" if r["headline"] else "")
              for r in rows]
    left = int(max(len(x) for x in labels) * char_w) + 16
    right_col = int(max(len(r["p_label"] or "") for r in rows) * char_w) + 16
    row_h = 18
    top = 34
    gap = 10  # between the tasks and the overall rows
    bottom = top + row_h * len(rows) + gap
    height = bottom + 50
    plot_w = max(120, width - left - right_col - 10)
    vals = [v for r in rows for v in (r["low"], r["high"], r["estimate"])
            if v is not None and math.isfinite(v)] + [0.0]
    lo, hi = 100 * min(vals), 100 * max(vals)
    pad = 0.05 * (hi - lo or 1.0)
    lo, hi = lo - pad, hi + pad

    def x(v: float) -> float:
        return left + (100 * v - lo) / (hi - lo) * plot_w

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="{font}" '
           'role="img">',
           f"<title>{e(clean_name(comparison.names[0]))} - {e(clean_name(comparison.names[1]))}"
           " per task</title>",
           f'<text x="8" y="16" font-weight="bold">{e(forest_title(comparison))}</text>']
    zero = x(0.0)
    out.append(f'<line x1="{zero:.1f}" y1="{top - 6}" x2="{zero:.1f}" y2="{bottom}" '
               'stroke="#555" stroke-dasharray="4 3"/>')
    for i, (r, label) in enumerate(zip(rows, labels, strict=True)):
        y = top + row_h * i + row_h / 2 + (gap if r["overall"] else 0)
        color = "#b00020" if r["worse"] else "#1f5fa8"
        out.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">{e(label)}</text>')
        if r["p_label"] is not None:
            out.append(f'<text x="{left + plot_w + 8}" y="{y + 4:.1f}" fill="#444" '
                       f'data-p="{e(r["p_label"])}">{e(r["p_label"])}</text>')
        if not all(v is not None and math.isfinite(v)
                   for v in (r["low"], r["high"], r["estimate"])):
            continue
        out.append(f'<line x1="{x(r["low"]):.1f}" y1="{y:.1f}" x2="{x(r["high"]):.1f}" '
                   f'y2="{y:.1f}" stroke="{color}" stroke-width="1.6"/>')
        fill = color if r["significant"] else "white"
        cx = x(r["estimate"])
        if r["overall"]:
            out.append(f'<polygon points="{cx - 6:.1f},{y:.1f} {cx:.1f},{y - 6:.1f} '
                       f'{cx + 6:.1f},{y:.1f} {cx:.1f},{y + 6:.1f}" fill="{fill}" '
                       f'stroke="{color}"/>')
        else:
            out.append(f'<circle cx="{cx:.1f}" cy="{y:.1f}" r="4" fill="{fill}" '
                       f'stroke="{color}"/>')
    axis_y = bottom + 6
    out.append(f'<line x1="{left}" y1="{axis_y}" x2="{left + plot_w}" y2="{axis_y}" '
               'stroke="#888"/>')
    for tick in _ticks(lo, hi):
        tx = left + (tick - lo) / (hi - lo) * plot_w
        out.append(f'<line x1="{tx:.1f}" y1="{axis_y}" x2="{tx:.1f}" y2="{axis_y + 4}" '
                   'stroke="#888"/>')
        out.append(f'<text x="{tx:.1f}" y="{axis_y + 16}" text-anchor="middle">'
                   f"{tick:g}</text>")
    out.append(f'<text x="{left + plot_w / 2:.1f}" y="{axis_y + 36}" text-anchor="middle">'
               f"{e(forest_axis(comparison))}</text>")
    out.append("</svg>")
    return "\n".join(out)


def _ticks(lo: float, hi: float, count: int = 6) -> list[float]:
    span = hi - lo
    raw = span / count
    mag = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1.0
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step) * step
    out = []
    v = first
    while v <= hi + 1e-12:
        out.append(round(v, 10))
        v += step
    return out
