"""Whole eval suites: which tasks got worse, and is the suite better overall?

An eval suite is many tasks (the 57 subjects of MMLU, the tasks of an lm-eval group, the
scenarios of a HELM suite, one Inspect log per task). :func:`compare_tasks` pairs two runs task
by task and answers three questions at once:

* **per task**: the paired table, accuracy(A) - accuracy(B) with its interval, and the p-value
  that ``mcnemar compare`` of that task alone reports as its headline (exact conditional test
  below 25 discordant items, chi-square from 25 on, the clustered test when the items come in
  clusters), adjusted across tasks (Holm by default, Benjamini-Hochberg on request); the
  tasks where A is significantly worse are listed first;
* **micro overall** (items pooled): McNemar on the summed table, the single-table report of
  :func:`mcnemar.report.analyze`. Tasks are strata of independent items, so the sum of the
  per-task tables is the paired table of all items;
* **macro overall** (the unweighted mean of per-task accuracies, as suites and leaderboards
  report their score): the paired difference :math:`\\hat\\Delta = \\sum_t w_t \\hat\\delta_t`
  with :math:`w_t = 1/T`, whose variance is :math:`\\sum_t w_t^2 \\operatorname{Var}(\\hat
  \\delta_t)` because the tasks hold independent items, with each task's own paired variance

  .. math::

     \\operatorname{Var}(\\hat\\delta_t) = \\frac{1}{n_t}\\left[\\frac{b_t + c_t}{n_t} -
     \\left(\\frac{b_t - c_t}{n_t}\\right)^2\\right]

  (the variance of the difference of two paired proportions; Agresti & Min 2005, the Wald
  interval of Fagerland, Lydersen & Laake 2014). A z-test and a normal interval follow.

Which overall is the headline: the macro one when there are two or more tasks, because that is
the number a suite reports (lm-eval groups, HELM and leaderboards average the task scores, so
each task counts once whatever its size); with one task the two coincide in estimate and the
micro report (the exact or chi-square McNemar test) is the headline. Both are always given,
and ``headline=`` chooses.

Clustered items: when the alignment carries clusters (``reduce="cluster"`` or a cluster
field), each task is analysed with the clustered test of its own items (what ``compare`` of
that task alone reports), its variance in the macro average is the cluster-robust one, and
the micro overall is the clustered test of all items with the clusters nested in their tasks
(a cluster label is only the same cluster within one task): the stratified view.

References
----------
Agresti A, Min Y (2005). Simple improved confidence intervals for comparing matched
proportions. Statistics in Medicine 24:729-740.

Fagerland MW, Lydersen S, Laake P (2014). Recommended tests and confidence intervals for paired
binomial proportions. Statistics in Medicine 33:2850-2875.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import special

from mcnemar import vocabulary
from mcnemar._format import clean_name, format_table_pvalue, markdown_text, shorten
from mcnemar.errors import InputFileError, McNemarError, option

if TYPE_CHECKING:
    from mcnemar.clustering import ClusteredResult
    from mcnemar.io import Alignment, RunResults
    from mcnemar.report import Report

__all__ = [
    "SCHEMA",
    "MacroResult",
    "Overall",
    "TaskAlignment",
    "TaskComparison",
    "TaskResult",
    "compare_tasks",
    "forest_svg",
    "read_suite",
    "read_suite_pair",
]

SCHEMA = "mcnemar.tasks/1"
#: The p-value adjustments across tasks.
ADJUST = vocabulary.names(vocabulary.ADJUSTMENTS)
_ADJUST_LABELS = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg",
                  "none": "no adjustment"}
_HEADLINES = ("macro", "micro")
_INTERSECT = option("on_missing", "'intersect'")


# --------------------------------------------------------------------------------------------
# results


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskResult:
    """One task of a :class:`TaskComparison`.

    Attributes
    ----------
    task : str
    a, b, c, d, n : int
        The task's paired table (both right, only A right, only B right, both wrong) and N.
    difference, low, high : float
        accuracy(A) - accuracy(B) = (b - c)/n and its interval (the interval ``compare``
        states for this task alone).
    pvalue, log10_pvalue : float
        The headline p-value of this task alone (test ``test``).
    test : str
        ``"exact"``, ``"asymptotic"`` or ``"clustered"``.
    adjusted_pvalue : float
        ``pvalue`` adjusted across the tasks.
    worse, better : bool
        A is significantly less (more) accurate than B on this task after adjustment.
    variance : float
        The variance of ``difference`` used in the macro average.
    """

    task: str
    a: int
    b: int
    c: int
    d: int
    n: int
    difference: float
    low: float
    high: float
    pvalue: float
    log10_pvalue: float
    test: str
    adjusted_pvalue: float
    worse: bool
    better: bool
    variance: float
    clustered: ClusteredResult | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe entry of ``tasks`` (schema ``mcnemar.tasks/1``)."""
        return {
            "task": self.task,
            "table": {"a": self.a, "b": self.b, "c": self.c, "d": self.d, "n": self.n},
            "difference": {"estimate": _json(self.difference), "low": _json(self.low),
                           "high": _json(self.high)},
            "pvalue": _json(self.pvalue),
            "adjusted_pvalue": _json(self.adjusted_pvalue),
            "worse": self.worse,
            "better": self.better,
            "test": self.test,
            "log10_pvalue": _json(self.log10_pvalue),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class MacroResult:
    """The macro overall: the unweighted mean of the per-task differences, with a z-test.

    Attributes
    ----------
    estimate : float
        :math:`\\sum_t w_t \\hat\\delta_t`.
    standard_error : float
        :math:`\\sqrt{\\sum_t w_t^2 \\operatorname{Var}(\\hat\\delta_t)}`.
    low, high : float
        ``estimate -/+ z standard_error`` at ``confidence_level`` (two-sided).
    statistic : float or None
        z = estimate / standard_error (``None`` when the standard error is 0).
    pvalue : float or None
        The z-test's p-value for ``alternative`` (``None`` when undefined: every task's
        variance is 0 and the estimate is not).
    weights : tuple of float
        One per task, in the order of ``tasks``.
    """

    estimate: float
    standard_error: float
    low: float
    high: float
    statistic: float | None
    pvalue: float | None
    weights: tuple[float, ...]
    tasks: tuple[str, ...]
    alternative: str
    confidence_level: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe ``overall.macro`` (schema ``mcnemar.tasks/1``)."""
        return {
            "estimate": _json(self.estimate),
            "low": _json(self.low),
            "high": _json(self.high),
            "pvalue": _json(self.pvalue),
            "weights": [{"task": t, "weight": w} for t, w in
                        zip(self.tasks, self.weights, strict=True)],
            "standard_error": _json(self.standard_error),
            "statistic": _json(self.statistic),
            "test": "z-test on the mean of the per-task differences",
            "alternative": self.alternative,
            "confidence_level": self.confidence_level,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Overall:
    """Both overall answers and which one is the headline."""

    micro: Report
    macro: MacroResult
    headline: str
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskAlignment:
    """How the two runs were paired, task by task (``alignment`` of the JSON).

    ``parts`` holds one :class:`~mcnemar.io.Alignment` per task.
    """

    tasks: tuple[str, ...]
    parts: tuple[Alignment, ...]
    only_in_a: tuple[str, ...] = ()
    only_in_b: tuple[str, ...] = ()
    on_missing: str = "error"

    @property
    def warnings(self) -> tuple[str, ...]:
        """The alignments' warnings, each once (same order)."""
        return tuple(dict.fromkeys(w for p in self.parts for w in p.warnings))

    @property
    def matched(self) -> int:
        """Items paired over all tasks."""
        return sum(p.summary.matched for p in self.parts)

    @property
    def dropped(self) -> int:
        """Items left out over all tasks (one run only, or without a score)."""
        return sum(p.summary.dropped for p in self.parts)

    def to_dict(self) -> dict[str, Any]:
        first = self.parts[0].summary
        return {
            "matched": self.matched,
            "dropped_items": self.dropped,
            "on_missing": self.on_missing,
            "dropped_tasks": {"only_in_a": list(self.only_in_a),
                              "only_in_b": list(self.only_in_b)},
            "runs": {side: {"name": run.name, "path": run.path, "format": run.format,
                            "harness": run.identity.harness, "model": run.identity.model}
                     for side, run in (("a", first.run_a), ("b", first.run_b))},
            "tasks": [{"task": t, **p.to_dict()} for t, p in
                      zip(self.tasks, self.parts, strict=True)],
            "warnings": list(self.warnings),
        }

    def __str__(self) -> str:
        lines = [f"Aligned {len(self.tasks)} task{_s(len(self.tasks))} one by one: "
                 f"{self.matched} item{_s(self.matched)} paired, {self.dropped} dropped "
                 f"(on_missing={self.on_missing})."]
        for label, names in (("A", self.only_in_a), ("B", self.only_in_b)):
            if names:
                lines.append(f"  Dropped {len(names)} task{_s(len(names))} found only in "
                             f"{label}: {', '.join(names)}.")
        return "\n".join(lines)


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskComparison:
    """Two runs compared task by task; see :func:`compare_tasks`.

    Attributes
    ----------
    names : tuple of str
        A (candidate) and B (baseline).
    tasks : tuple of TaskResult
        Worst first: the tasks where A is significantly worse (largest drop first), then the
        others by their difference, lowest first.
    overall : Overall
        ``overall.micro`` (a :class:`~mcnemar.report.Report` of the summed table),
        ``overall.macro`` (:class:`MacroResult`), ``overall.headline`` and why.
    adjust : str
        The adjustment of the per-task p-values.
    alignment : TaskAlignment
    """

    names: tuple[str, str]
    tasks: tuple[TaskResult, ...]
    overall: Overall
    adjust: str
    alpha: float
    alternative: str
    confidence_level: float
    interval: str
    alignment: TaskAlignment | None = None
    warnings: tuple[str, ...] = ()

    # -- derived -------------------------------------------------------------------------------
    @property
    def worse(self) -> tuple[TaskResult, ...]:
        """Tasks where A is significantly worse after adjustment (worst first)."""
        return tuple(t for t in self.tasks if t.worse)

    @property
    def better(self) -> tuple[TaskResult, ...]:
        """Tasks where A is significantly better after adjustment."""
        return tuple(t for t in self.tasks if t.better)

    @property
    def headline(self) -> tuple[float, float, float, float | None]:
        """The headline overall: (estimate, low, high, pvalue)."""
        if self.overall.headline == "macro":
            m = self.overall.macro
            return m.estimate, m.low, m.high, m.pvalue
        r = self.overall.micro
        lo, hi = _micro_interval(r)
        return float(r.difference if r.difference is not None else math.nan), lo, hi, r.pvalue

    @property
    def overall_worse(self) -> bool:
        """The headline overall says A is significantly less accurate than B."""
        est, _, _, p = self.headline
        return _verdict(est, p, self.alpha, self.alternative) == "worse"

    @property
    def items(self) -> int:
        """Items compared over all tasks."""
        return sum(t.n for t in self.tasks)

    # -- rendering -----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """JSON-safe result (schema ``mcnemar.tasks/1``, docs/report-schema.md)."""
        micro = self.overall.micro.to_dict()
        lo, hi = _micro_interval(self.overall.micro)
        return {
            "schema": SCHEMA,
            "names": {"a": self.names[0], "b": self.names[1]},
            "alternative": self.alternative,
            "alpha": self.alpha,
            "confidence_level": self.confidence_level,
            "interval": self.interval,
            "adjust": self.adjust,
            "verdict": self.verdict(),
            "tasks": [t.to_dict() for t in self.tasks],
            "worse": [t.task for t in self.worse],
            "better": [t.task for t in self.better],
            "overall": {
                "headline": self.overall.headline,
                "reason": self.overall.reason,
                "micro": {**micro, "low": _json(lo), "high": _json(hi)},
                "macro": self.overall.macro.to_dict(),
            },
            "alignment": None if self.alignment is None else self.alignment.to_dict(),
            "warnings": list(self.warnings),
        }

    def verdict(self) -> str:
        """The answer in two sentences: the headline overall, then which tasks got worse."""
        a, b = (clean_name(n) for n in self.names)
        est, lo, hi, p = self.headline
        kind = self.overall.headline
        side = _verdict(est, p, self.alpha, self.alternative)
        p_text = "undefined" if p is None else format_table_pvalue(p, self.alpha)
        ci = f"{_level(self.confidence_level)} CI {_pt(lo)} to {_pt(hi)}"
        what = {"worse": f"{a} is significantly less accurate than {b}",
                "better": f"{a} is significantly more accurate than {b}",
                "none": f"no significant difference between {a} and {b}"
                if self.alternative == "two-sided" else
                f"no significant evidence that {a} is "
                f"{'more' if self.alternative == 'greater' else 'less'} accurate than {b}",
                "undefined": "the test is undefined"}[side]
        first = (f"Overall ({kind}): {a} - {b} = {_pt(est)} points ({ci}), p = {p_text}: "
                 f"{what} at alpha = {self.alpha:g}.")
        adj = _ADJUST_LABELS[self.adjust]
        adj_text = "without adjustment" if self.adjust == "none" else f"after {adj} adjustment"
        worse = self.worse
        count = f"{len(worse)} of {len(self.tasks)} task{_s(len(self.tasks))}"
        if worse:
            shown = ", ".join(clean_name(t.task) for t in worse[:5])
            more = f" and {len(worse) - 5} more" if len(worse) > 5 else ""
            second = (f"{count} significantly worse for {a} {adj_text}: {shown}{more}.")
        else:
            second = f"{count} significantly worse for {a} {adj_text}."
        if self.better:
            n_b = len(self.better)
            second += f" {n_b} task{_s(n_b)} significantly better."
        return first + " " + second

    def _rows(self, markdown: bool = False) -> list[list[str]]:
        rows = []
        for t in self.tasks:
            flag = "worse" if t.worse else "better" if t.better else ""
            name = clean_name(t.task)
            rows.append([markdown_text(name) if markdown else shorten(name, 48), str(t.n),
                         str(t.b), str(t.c), _pt(t.difference), f"{_pt(t.low)} to {_pt(t.high)}",
                         t.test, format_table_pvalue(t.pvalue, self.alpha),
                         format_table_pvalue(t.adjusted_pvalue, self.alpha), flag])
        return rows

    def _header(self) -> list[str]:
        adj = "adj. p" if self.adjust == "none" else f"adj. p ({_ADJUST_LABELS[self.adjust]})"
        return ["task", "n", "b", "c", "A - B (points)",
                f"{_level(self.confidence_level)} CI", "test", "p", adj, ""]

    def _overall_lines(self) -> list[str]:
        micro, macro = self.overall.micro, self.overall.macro
        lo, hi = _micro_interval(micro)
        est = float(micro.difference) if micro.difference is not None else math.nan
        level = _level(self.confidence_level)
        mark = {"micro": "", "macro": ""}
        mark[self.overall.headline] = ", the headline"
        macro_p = "undefined" if macro.pvalue is None else \
            format_table_pvalue(macro.pvalue, self.alpha)
        return [
            f"Micro{mark['micro']} (items pooled, {micro.table.n} items): {_pt(est)} points "
            f"({level} CI {_pt(lo)} to {_pt(hi)}), "
            f"{_TEST_WORDS.get(micro.recommended, micro.recommended)} "
            f"p = {format_table_pvalue(micro.pvalue, self.alpha)}.",
            f"Macro{mark['macro']} (mean of {len(macro.tasks)} task differences, each weight "
            f"{_weight_text(macro.weights)}): {_pt(macro.estimate)} points ({level} CI "
            f"{_pt(macro.low)} to {_pt(macro.high)}), z-test p = {macro_p}.",
            f"Headline: {self.overall.reason}",
        ]

    def __str__(self) -> str:
        a, b = (clean_name(n) for n in self.names)
        lines = [f"{a} (A) vs {b} (B), task by task: {len(self.tasks)} "
                 f"task{_s(len(self.tasks))}, {self.items} items.", "",
                 self.verdict(), ""]
        lines += self._overall_lines()
        lines.append("")
        header = self._header()
        rows = self._rows()
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        right = {1, 2, 3, 4, 7, 8}

        def line(cells: list[str]) -> str:
            return "  ".join(c.rjust(w) if i in right else c.ljust(w)
                             for i, (c, w) in enumerate(zip(cells, widths, strict=True))).rstrip()

        lines.append(line(header))
        lines += [line(r) for r in rows]
        lines.append("")
        lines.append(f"p: the test {a} vs {b} of each task alone ({_TEST_NOTE}); "
                     f"{self.alternative}.")
        if self.warnings:
            lines += ["", "Warnings:"] + [f"- {w}" for w in self.warnings]
        if self.alignment is not None:
            lines += ["", str(self.alignment)]
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """The result as GitHub-flavoured markdown: verdict, overall, per-task table."""
        a, b = (markdown_text(clean_name(n)) for n in self.names)
        out = [f"### {a} vs {b}, task by task", "", markdown_text(self.verdict()), ""]
        out += [f"- {markdown_text(x)}" for x in self._overall_lines()]
        out.append("")
        header = self._header()
        out.append("| " + " | ".join(header) + " |")
        out.append("|" + "|".join("---:" if i in (1, 2, 3, 4, 7, 8) else "---"
                                  for i in range(len(header))) + "|")
        for r in self._rows(markdown=True):
            r[-1] = f"**{r[-1]}**" if r[-1] else ""
            out.append("| " + " | ".join(r) + " |")
        if self.warnings:
            out += ["", "Warnings:", ""] + [f"- {markdown_text(w)}" for w in self.warnings]
        return "\n".join(out)

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def _repr_html_(self) -> str:
        e = html.escape
        head = "".join(f"<th>{e(h)}</th>" for h in self._header())
        body = []
        for r, t in zip(self._rows(), self.tasks, strict=True):
            style = ' style="color:#b00020"' if t.worse else ""
            body.append(f"<tr{style}>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>")
        overall = "".join(f"<li>{e(x)}</li>" for x in self._overall_lines())
        return (f'<div class="mcnemar-tasks"><p><strong>{e(self.verdict())}</strong></p>'
                f"<ul>{overall}</ul><table><thead><tr>{head}</tr></thead>"
                f"<tbody>{''.join(body)}</tbody></table></div>")

    def __repr__(self) -> str:
        est, _, _, p = self.headline
        return (f"TaskComparison(A={shorten(self.names[0])!r}, B={shorten(self.names[1])!r}, "
                f"tasks={len(self.tasks)}, worse={len(self.worse)}, "
                f"headline={self.overall.headline!r}, estimate={est:.4g}, "
                f"pvalue={'None' if p is None else f'{p:.4g}'})")

    def plot(self, path: str | Path | None = None, *, ax: Any = None, **options: Any) -> Any:
        """The forest plot (:func:`mcnemar.plotting.forest_plot`; needs matplotlib)."""
        from mcnemar.plotting import forest_plot

        return forest_plot(self, ax=ax, path=path, **options)

    def to_svg(self) -> str:
        """The forest plot as a standalone SVG string (:func:`forest_svg`, no dependency)."""
        return forest_svg(self)


_TEST_WORDS = {"exact": "exact McNemar", "asymptotic": "chi-square McNemar",
               "clustered": "clustered McNemar"}
_TEST_NOTE = "exact below 25 discordant items, chi-square from 25, clustered with clusters"


# --------------------------------------------------------------------------------------------
# small helpers


def _s(n: int) -> str:
    return "" if n == 1 else "s"


def _json(x: Any) -> Any:
    if x is None:
        return None
    v = float(x)
    return v if math.isfinite(v) else None


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


def _weight_text(weights: Sequence[float]) -> str:
    w = sorted(set(round(x, 12) for x in weights))
    if len(w) == 1:
        return f"1/{round(1 / w[0])}" if w[0] > 0 else "0"
    return f"{w[0]:.3g} to {w[-1]:.3g}"


def _verdict(est: float, p: float | None, alpha: float, alternative: str) -> str:
    """``"worse"``, ``"better"``, ``"none"`` or ``"undefined"`` for a difference and p."""
    if p is None or not math.isfinite(p) or not math.isfinite(est):
        return "undefined"
    if p >= alpha:
        return "none"
    if est < 0 and alternative in ("two-sided", "less"):
        return "worse"
    if est > 0 and alternative in ("two-sided", "greater"):
        return "better"
    return "none"


def _micro_interval(report: Report) -> tuple[float, float]:
    ci: Any
    if report.recommended_interval == "clustered" and report.clustered is not None:
        ci = report.clustered.confidence_interval(report.confidence_level)
    else:
        ci = report.difference_intervals.get("newcombe")
    if ci is None:
        return math.nan, math.nan
    return float(ci.low), float(ci.high)


def macro_difference(counts: Any, *, weights: Any = None, variances: Any = None,
                     confidence_level: float = 0.95,
                     alternative: str = "two-sided") -> dict[str, Any]:
    """The (macro) weighted mean of per-task paired differences, its variance and z-test.

    .. math::

       \\hat\\Delta = \\sum_t w_t \\frac{b_t - c_t}{n_t}, \\qquad
       \\operatorname{Var}(\\hat\\Delta) = \\sum_t w_t^2 \\frac{1}{n_t}
       \\left[\\frac{b_t + c_t}{n_t} - \\left(\\frac{b_t - c_t}{n_t}\\right)^2\\right]

    (independent tasks; each term the variance of a paired difference of proportions, Agresti
    & Min 2005). ``z = Delta / SE``; the interval is ``Delta -/+ z_{1 - (1 - level)/2} SE``.

    Parameters
    ----------
    counts : array_like, shape (T, 4)
        ``(a, b, c, d)`` per task.
    weights : array_like, optional
        Default ``1/T`` each (the unweighted mean of the task accuracies).
    variances : array_like, optional
        Per-task variances to use instead (e.g. cluster-robust ones).

    Returns
    -------
    dict
        ``estimate``, ``standard_error``, ``low``, ``high``, ``statistic``, ``pvalue``,
        ``weights``.

    Examples
    --------
    >>> r = macro_difference([[80, 15, 5, 0], [40, 2, 6, 2]])
    >>> round(r["estimate"], 4), round(r["standard_error"], 4)
    (0.01, 0.0299)
    """
    x = np.asarray(counts, dtype=np.float64).reshape(-1, 4)
    _, b, c, _ = x.T
    n = x.sum(axis=1)
    delta = (b - c) / n
    var = ((b + c) / n - delta**2) / n if variances is None else \
        np.asarray(variances, dtype=np.float64)
    w = np.full(len(x), 1.0 / len(x)) if weights is None else \
        np.asarray(weights, dtype=np.float64)
    est = float(np.sum(w * delta))
    se = float(math.sqrt(max(0.0, float(np.sum(w**2 * var)))))
    q = float(special.ndtri(1.0 - (1.0 - confidence_level) / 2.0))
    if se > 0:
        z: float | None = est / se
        assert z is not None
        p: float | None = {"two-sided": float(2.0 * special.ndtr(-abs(z))),
                           "greater": float(special.ndtr(-z)),
                           "less": float(special.ndtr(z))}[alternative]
    else:
        # Every task's variance is 0: no evidence either way when the estimate is 0 too;
        # otherwise the normal approximation is undefined.
        z = None
        p = 1.0 if est == 0 else None
    return {"estimate": est, "standard_error": se, "low": max(-1.0, est - q * se),
            "high": min(1.0, est + q * se), "statistic": z, "pvalue": p,
            "weights": tuple(float(v) for v in w), "variances": var}


# --------------------------------------------------------------------------------------------
# runs -> one run per task


def _task_label(run: RunResults) -> str | None:
    tasks = run.identity.tasks
    if len(tasks) == 1 and tasks[0].name is not None:
        return tasks[0].name
    return None


def _subset(run: RunResults, mask: np.ndarray, tasks: tuple[Any, ...]) -> RunResults:
    def cut(x: np.ndarray | None) -> np.ndarray | None:
        return None if x is None else x[mask]

    assert run.keys is not None and run.scores is not None
    return replace(run, keys=run.keys[mask], scores=run.scores[mask], epochs=cut(run.epochs),
                   clusters=cut(run.clusters), errored=cut(run.errored),
                   contents=cut(run.contents), records=int(mask.sum()),
                   identity=replace(run.identity, tasks=tasks))


def _split(run: RunResults, task_column: str | None, side: str) -> dict[str, RunResults]:
    """One run per task: a multi-task run split by the task part of its keys."""
    from mcnemar.io.align import factorize
    from mcnemar.io.identity import TaskIdentity

    run = run.load()
    ident = run.identity
    part = ident.task_part
    if task_column is not None:
        if task_column not in run.key_names:
            raise McNemarError(
                f"{option('task_column', repr(task_column))} is not a part of the item id of "
                f"{run.path} (its id is {'+'.join(run.key_names)}); read the file with the "
                f"task column as part of a composite id (id=[task, item])"
            )
        part = run.key_names.index(task_column)
    if part is None or (task_column is None and len(ident.tasks) <= 1):
        label = _task_label(run)
        if label is None:
            raise McNemarError(
                f"{run.path} ({side}) does not say which task it holds; give runs that record "
                f"their tasks (an lm-eval directory, Inspect logs, HELM runs) or name the id "
                f"column holding the task with {option('task_column', 'COLUMN')}"
            )
        return {label: run}
    assert run.keys is not None
    keys = run.keys.tolist()
    if keys and not isinstance(keys[0], tuple):
        raise McNemarError(f"{run.path}: the item ids are not composite, so no part of them "
                           "holds the task")
    codes, uniq = factorize(np.array([k[part] for k in keys] + [None], dtype=object)[:-1])
    known = {t.name: t for t in ident.tasks}
    out: dict[str, RunResults] = {}
    for i, name in enumerate(uniq.tolist()):
        label = str(name)
        tid = known.get(name) or TaskIdentity(name=label, scorer=ident.scorer)
        out[label] = _subset(run, codes == i, (replace(tid, records=int((codes == i).sum())),))
    return out


def _per_task(side: Any, task_column: str | None, label: str) -> dict[str, RunResults]:
    from mcnemar.io import RunResults

    runs = [side] if isinstance(side, RunResults) else list(side)
    if not runs or not all(isinstance(r, RunResults) for r in runs):
        raise McNemarError(f"run_{label.lower()} must be a RunResults or a sequence of them (one "
                           "per task), as read by mcnemar.io.read_run or read_suite")
    out: dict[str, RunResults] = {}
    for run in runs:
        for name, part in _split(run, task_column, label).items():
            if name in out:
                raise McNemarError(
                    f"task {name!r} appears twice in run {label} ({out[name].path} and "
                    f"{part.path}); give one run of each task"
                )
            out[name] = part
    return out


def _prefixed(exc: McNemarError, task: str) -> McNemarError:
    text = f"task {task!r}: {exc.template}"
    if isinstance(exc, InputFileError):
        return type(exc)(text, path=exc.path, line=exc.line)
    return type(exc)(text)


# --------------------------------------------------------------------------------------------
# the comparison


def compare_tasks(
    run_a: Any,
    run_b: Any,
    *,
    task: str | Sequence[str] | None = None,
    task_column: str | None = None,
    adjust: str = "holm",
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
    alpha: float = 0.05,
    on_missing: str = "error",
    threshold: float | None = None,
    reduce: str | None = None,
    allow_different_tasks: bool = False,
    allow_different_scorers: bool = False,
    cluster_method: str = "obuchowski",
    names: tuple[str, str] | None = None,
    interval: str = "newcombe",
    headline: str | None = None,
) -> TaskComparison:
    """Compare two runs task by task: per-task tests adjusted across tasks, micro and macro.

    Parameters
    ----------
    run_a, run_b : RunResults or sequence of RunResults
        A (candidate) and B (baseline). A run holding several tasks (an lm-eval directory) is
        split by the task part of its item keys; a sequence gives one run per task (Inspect
        logs, HELM runs; see :func:`read_suite`).
    task : str or list of str, optional
        Compare only these tasks.
    task_column : str, optional
        For generic files read with a composite id: the id part that names the task.
    adjust : {"holm", "bonferroni", "bh", "none"}
        Adjustment of the per-task p-values across tasks (:func:`mcnemar.multiple.adjust_pvalues`).
    alternative, confidence_level, alpha
        As in :func:`mcnemar.report.analyze`; ``alpha`` applies to the adjusted p-values.
    on_missing : {"error", "intersect"}
        Tasks (and items) present in one run only: refuse, or drop them and list them.
    threshold, reduce, allow_different_tasks, allow_different_scorers
        Passed to :func:`mcnemar.io.align` for every task.
    cluster_method : str
        The clustered test when the items come in clusters.
    names : (str, str), optional
        Default: the runs' names.
    interval : str
        The per-task difference interval (default ``"newcombe"``, the one the single report
        states; any of :data:`mcnemar.intervals.DIFFERENCE_METHODS`).
    headline : {"macro", "micro"}, optional
        Which overall answers "is A better overall?"; default macro for two tasks or more,
        micro for one (see the module docstring).

    Returns
    -------
    TaskComparison

    Examples
    --------
    >>> import numpy as np
    >>> from mcnemar.io import RunResults
    >>> def run(name, scores):
    ...     keys = np.array([(t, i) for t in ("t1", "t2") for i in range(50)] + [None],
    ...                     dtype=object)[:-1]
    ...     return RunResults(name=name, path=name, format="csv", records=100, keys=keys,
    ...                       scores=np.asarray(scores, float), key_names=("task", "id"))
    >>> a = run("new", [1] * 40 + [0] * 10 + [1] * 30 + [0] * 20)
    >>> b = run("old", [1] * 30 + [0] * 20 + [1] * 45 + [0] * 5)
    >>> res = compare_tasks(a, b, task_column="task")
    >>> [(t.task, t.b, t.c, t.worse) for t in res.tasks]
    [('t2', 0, 15, True), ('t1', 10, 0, True)]
    """
    from mcnemar.intervals import DIFFERENCE_METHODS
    from mcnemar.io import align
    from mcnemar.multiple import adjust_pvalues
    from mcnemar.report import analyze

    if adjust not in ADJUST:
        raise McNemarError(f"{option('adjust', repr(adjust))} is not valid; use one of "
                           f"{', '.join(ADJUST)}")
    if interval not in DIFFERENCE_METHODS:
        raise McNemarError(f"{option('interval', repr(interval))} is not valid; use one of "
                           f"{', '.join(DIFFERENCE_METHODS)}")
    if headline is not None and headline not in _HEADLINES:
        raise McNemarError(f"{option('headline', repr(headline))} is not valid; use 'macro' "
                           "or 'micro'")
    if on_missing not in ("error", "intersect"):
        raise McNemarError(f"{option('on_missing', repr(on_missing))} is not valid; use "
                           "'error' or 'intersect'")
    side_a = _per_task(run_a, task_column, "A")
    side_b = _per_task(run_b, task_column, "B")
    if task is not None:
        wanted = [task] if isinstance(task, str) else list(task)
        unknown = [t for t in wanted if t not in side_a and t not in side_b]
        if unknown:
            raise McNemarError(f"task(s) {', '.join(map(repr, unknown))} not in either run; "
                               f"the tasks are {', '.join(map(repr, side_a))}")
        side_a = {k: v for k, v in side_a.items() if k in wanted}
        side_b = {k: v for k, v in side_b.items() if k in wanted}
    only_a = tuple(t for t in side_a if t not in side_b)
    only_b = tuple(t for t in side_b if t not in side_a)
    if (only_a or only_b) and on_missing == "error":
        parts = []
        if only_a:
            parts.append(f"{', '.join(map(repr, only_a))} only in A")
        if only_b:
            parts.append(f"{', '.join(map(repr, only_b))} only in B")
        raise McNemarError(
            f"the runs hold different tasks: {'; '.join(parts)}; to compare the tasks they "
            f"share (and list the others as dropped) pass {_INTERSECT}"
        )
    common = [t for t in side_a if t in side_b]
    if not common:
        raise McNemarError("the runs share no task; check that both are of the same suite")
    alignments: list[Alignment] = []
    for name in common:
        try:
            alignments.append(align(side_a[name], side_b[name], on_missing=on_missing,
                                    threshold=threshold, reduce=reduce,
                                    allow_different_tasks=allow_different_tasks,
                                    allow_different_scorers=allow_different_scorers))
        except McNemarError as exc:
            raise _prefixed(exc, name) from None
    first_a, first_b = next(iter(side_a.values())), next(iter(side_b.values()))
    display = tuple(names) if names is not None else (first_a.name, first_b.name)
    if len(display) != 2:
        raise McNemarError(f"names must be two names (A, B); got {names!r}")
    if display[0] == display[1]:
        display = (f"{display[0]} (A)", f"{display[1]} (B)")
    task_alignment = TaskAlignment(tasks=tuple(common), parts=tuple(alignments),
                                   only_in_a=only_a, only_in_b=only_b, on_missing=on_missing)
    return _compare(
        common, alignments, names=(str(display[0]), str(display[1])), adjust=adjust,
        alternative=alternative, confidence_level=confidence_level, alpha=alpha,
        cluster_method=cluster_method, interval=interval, headline=headline,
        alignment=task_alignment, analyze=analyze, adjust_pvalues=adjust_pvalues)


def compare_task_tables(
    tables: Mapping[str, Any],
    *,
    names: tuple[str, str] = ("A", "B"),
    adjust: str = "holm",
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
    alpha: float = 0.05,
    interval: str = "newcombe",
    headline: str | None = None,
) -> TaskComparison:
    """:func:`compare_tasks` from the per-task tables ``{task: (a, b, c, d)}`` alone.

    Examples
    --------
    >>> res = compare_task_tables({"arith": (13, 8, 6, 3), "mc": (21, 5, 3, 1)})
    >>> res.overall.micro.table.b, round(res.overall.macro.estimate, 4)
    (13, 0.0667)
    """
    from mcnemar.multiple import adjust_pvalues
    from mcnemar.report import analyze

    if not tables:
        raise McNemarError("tables must hold at least one task")
    if adjust not in ADJUST:
        raise McNemarError(f"{option('adjust', repr(adjust))} is not valid; use one of "
                           f"{', '.join(ADJUST)}")
    counts = []
    for name, t in tables.items():
        cells = [int(x) for x in (t.a, t.b, t.c, t.d)] if hasattr(t, "only_a") else \
            [int(x) for x in np.asarray(t).ravel()]
        if len(cells) != 4 or min(cells) < 0 or sum(cells) == 0:
            raise McNemarError(f"task {name!r}: give four counts a, b, c, d with n > 0; got {t!r}")
        counts.append(cells)
    return _compare(list(tables), None, counts=np.asarray(counts, dtype=np.int64), names=names,
                    adjust=adjust, alternative=alternative, confidence_level=confidence_level,
                    alpha=alpha, cluster_method="obuchowski", interval=interval,
                    headline=headline, alignment=None, analyze=analyze,
                    adjust_pvalues=adjust_pvalues)


def _compare(tasks: list[str], alignments: list[Alignment] | None, *, names: tuple[str, str],
             adjust: str, alternative: str, confidence_level: float, alpha: float,
             cluster_method: str, interval: str, headline: str | None,
             alignment: TaskAlignment | None, analyze: Any, adjust_pvalues: Any,
             counts: np.ndarray | None = None) -> TaskComparison:
    from mcnemar import intervals as iv
    from mcnemar.inference import check_alternative, mcnemar
    from mcnemar.report import EXACT_BELOW
    from mcnemar.table import PairedTable

    alternative = check_alternative(alternative)
    if alignments is not None:
        counts = np.array([al.counts for al in alignments], dtype=np.int64)
    assert counts is not None
    a, b, c, d = (counts[:, i] for i in range(4))
    n = counts.sum(axis=1)
    pooled = PairedTable(a=int(a.sum()), b=int(b.sum()), c=int(c.sum()), d=int(d.sum()))
    # Validate the levels (and names) once, through the single-table report of the pooled
    # table: it is the micro overall.
    clustered_all = None
    clustered_each: list[ClusteredResult | None] = [None] * len(tasks)
    if alignments is not None and any(al.clusters is not None for al in alignments):
        clustered_each, clustered_all = _clustered(alignments, cluster_method)
    micro = analyze(pooled, names=names, alternative=alternative,
                    confidence_level=confidence_level, alpha=alpha, clustered=clustered_all)
    # Per task, all at once: the p-value the single report recommends (exact below
    # EXACT_BELOW discordant items, chi-square from there) and its headline interval.
    tables = PairedTable(a=a, b=b, c=c, d=d)
    exact = mcnemar(tables, method="exact", alternative=alternative)
    chi2 = mcnemar(tables, method="asymptotic", alternative=alternative)
    use_exact = (b + c) < EXACT_BELOW
    p = np.where(use_exact, np.asarray(exact.pvalue), np.asarray(chi2.pvalue)).astype(float)
    log10p = np.where(use_exact, np.asarray(exact.log10_pvalue),
                      np.asarray(chi2.log10_pvalue)).astype(float)
    test = np.where(use_exact, "exact", "asymptotic").astype(object)
    delta = (b - c) / n
    ci = iv.difference_interval(a, b, c, d, confidence_level=confidence_level, method=interval)
    low = np.asarray(ci.low, dtype=float).reshape(-1).copy()
    high = np.asarray(ci.high, dtype=float).reshape(-1).copy()
    var = ((b + c) / n - delta**2) / n
    for i, cl in enumerate(clustered_each):
        if cl is None:
            continue
        p[i] = cl.pvalue_for(alternative)
        log10p[i] = math.log10(p[i]) if p[i] > 0 else -math.inf
        test[i] = "clustered"
        if cl.difference is not None and cl.standard_error is not None:
            cci = cl.confidence_interval(confidence_level)
            low[i], high[i] = cci.low, cci.high
            var[i] = cl.standard_error**2
    adjusted = adjust_pvalues(np.where(np.isnan(p), 1.0, p), adjust)
    sig = adjusted < alpha
    worse = sig & (delta < 0) & (alternative != "greater")
    better = sig & (delta > 0) & (alternative != "less")
    macro_raw = macro_difference(counts, variances=var, confidence_level=confidence_level,
                                 alternative=alternative)
    macro = MacroResult(
        estimate=macro_raw["estimate"], standard_error=macro_raw["standard_error"],
        low=macro_raw["low"], high=macro_raw["high"], statistic=macro_raw["statistic"],
        pvalue=macro_raw["pvalue"], weights=macro_raw["weights"], tasks=tuple(tasks),
        alternative=alternative, confidence_level=confidence_level)
    results = [
        TaskResult(task=str(tasks[i]), a=int(a[i]), b=int(b[i]), c=int(c[i]), d=int(d[i]),
                   n=int(n[i]), difference=float(delta[i]), low=float(low[i]),
                   high=float(high[i]), pvalue=float(p[i]), log10_pvalue=float(log10p[i]),
                   test=str(test[i]), adjusted_pvalue=float(adjusted[i]),
                   worse=bool(worse[i]), better=bool(better[i]), variance=float(var[i]),
                   clustered=clustered_each[i])
        for i in range(len(tasks))
    ]
    # Worst first: significantly worse tasks (largest drop first), then the rest by their
    # difference, lowest first; the task name breaks ties so the order is reproducible.
    results.sort(key=lambda t: (not t.worse, t.difference, t.task))
    chosen = headline or ("macro" if len(tasks) > 1 else "micro")
    if chosen == "macro":
        reason = ("macro, the unweighted mean of the per-task differences, because a suite's "
                  "score is the mean of its task scores (each task counts once whatever its "
                  "size); micro pools the items (each item counts once).")
        if len(tasks) == 1:
            reason = "macro, as asked; with one task it is that task's difference (z-test)."
    else:
        reason = ("micro, McNemar's test on the summed table, "
                  + ("because there is one task." if len(tasks) == 1 else
                     "as asked: each item counts once, so large tasks weigh more."))
    warnings = alignment.warnings if alignment is not None else ()
    return TaskComparison(
        names=names, tasks=tuple(results),
        overall=Overall(micro=micro, macro=macro, headline=chosen, reason=reason),
        adjust=adjust, alpha=float(alpha), alternative=alternative,
        confidence_level=float(confidence_level), interval=interval, alignment=alignment,
        warnings=tuple(warnings))


def _clustered(alignments: list[Alignment], method: str
               ) -> tuple[list[ClusteredResult | None], ClusteredResult]:
    """Per-task clustered tests, and the pooled one with clusters nested in their tasks."""
    from mcnemar.clustering import clustered_from_outcomes
    from mcnemar.io.align import factorize

    each: list[ClusteredResult | None] = []
    ca_all, cb_all, ids_all = [], [], []
    offset = 0
    for al in alignments:
        if al.correct_a is None or al.correct_b is None:
            raise McNemarError("the clustered analysis needs the per-item outcomes, which are "
                               "not kept for files counted inside the engine")
        if al.clusters is None:
            # No clusters in this task: every item is its own cluster.
            codes = np.arange(len(al.correct_a))
        else:
            codes, _ = factorize(al.clusters)
        each.append(None if al.clusters is None else
                    clustered_from_outcomes(al.correct_a, al.correct_b, codes, method=method))
        ca_all.append(al.correct_a)
        cb_all.append(al.correct_b)
        ids_all.append(codes + offset)
        offset += int(codes.max()) + 1 if len(codes) else 0
    pooled = clustered_from_outcomes(np.concatenate(ca_all), np.concatenate(cb_all),
                                     np.concatenate(ids_all), method=method)
    return each, pooled


# --------------------------------------------------------------------------------------------
# reading a suite


def read_suite(path: str | Path, *, format: str = "auto", model: str | None = None,
               **options: Any) -> Any:
    """Read a run of a whole suite: one RunResults, or one per task.

    * a file, an lm-eval output directory (several tasks in one run) or a HELM run directory:
      :func:`mcnemar.io.read_run`;
    * a directory of Inspect logs (``*.eval``, or ``*.json`` logs): one run per log;
    * a HELM suite directory (``runs/<suite>/``, one sub-directory per run): one run per
      scenario of ``model`` (needed when the suite holds several models).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.csv"
    >>> _ = p.write_text("id,correct\\nq1,true\\n")
    >>> read_suite(p).records
    1
    """
    from mcnemar.io import read_run
    from mcnemar.io.detect import detect_format

    p = Path(path)
    if not p.is_dir():
        return read_run(p, format=format, **options)
    helm_runs = sorted(x.parent for x in p.glob("*/per_instance_stats.json"))
    logs = sorted(x for x in p.iterdir() if x.is_file() and x.suffix in (".eval", ".json"))
    if helm_runs and not (p / "per_instance_stats.json").is_file() and \
            format in ("auto", "helm"):
        runs = [read_run(r, format="helm", **options) for r in helm_runs]
        models = list(dict.fromkeys(r.identity.model or r.name for r in runs))
        if model is None and len(models) > 1:
            raise InputFileError(
                f"the suite holds runs of {len(models)} models ({', '.join(models)}); choose "
                f"one with {option('model', 'NAME')}", path=str(p))
        if model is not None:
            runs = [r for r in runs if model in (r.identity.model, r.name)]
            if not runs:
                raise InputFileError(f"no run of model {model!r} in the suite; its models are "
                                     f"{', '.join(models)}", path=str(p))
        return tuple(runs)
    inspect_logs = [x for x in logs if format == "inspect" or
                    (format == "auto" and _is_inspect(x, detect_format))]
    if inspect_logs and format in ("auto", "inspect"):
        return tuple(read_run(x, format="inspect", **options) for x in inspect_logs)
    return read_run(p, format=format, **options)


def splits_into_tasks(path: str | Path) -> bool:
    """True for a directory that :func:`read_suite` reads as one run per task: a directory of
    Inspect logs, or a HELM suite (run sub-directories, no ``per_instance_stats.json`` of its
    own)."""
    from mcnemar.io.detect import detect_format

    p = Path(path)
    if not p.is_dir() or (p / "per_instance_stats.json").is_file():
        return False
    if next(p.glob("*/per_instance_stats.json"), None) is not None:
        return True
    return any(x.is_file() and x.suffix in (".eval", ".json") and _is_inspect(x, detect_format)
               for x in p.iterdir())


def read_suite_pair(
    paths: Sequence[str | Path],
    *,
    runs: Sequence[str] | None = None,
    format: str = "auto",
    options_a: dict[str, Any] | None = None,
    options_b: dict[str, Any] | None = None,
    **reader_options: Any,
) -> tuple[Any, Any]:
    """Read both sides of a per-task comparison: each a RunResults or one per task.

    ``paths`` are two runs (files or directories; see :func:`read_suite`), or one HELM suite
    directory holding both models, with ``runs=(model_a, model_b)``. Anything else (one long
    file with a run column, prediction files) is read by :func:`mcnemar.pipeline.read_runs`.
    """
    given = {k: v for k, v in reader_options.items() if v is not None}
    paths = list(paths)
    sides = [{**given, **(extra or {})} for extra in (options_a, options_b)]
    if len(paths) == 1 and runs is not None and splits_into_tasks(paths[0]):
        if len(runs) != 2:
            raise McNemarError(f"{option('runs', 'A,B')} names the two models to compare; got "
                               f"{len(runs)}")
        return (read_suite(paths[0], format=format, model=runs[0], **sides[0]),
                read_suite(paths[0], format=format, model=runs[1], **sides[1]))
    if len(paths) == 2 and runs is None and any(splits_into_tasks(p) for p in paths):
        return (read_suite(paths[0], format=format, **sides[0]),
                read_suite(paths[1], format=format, **sides[1]))
    from mcnemar.pipeline import read_runs

    return read_runs(paths, format=format, runs=runs, options_a=options_a,
                     options_b=options_b, **reader_options)


def _is_inspect(path: Path, detect: Any) -> bool:
    try:
        return bool(detect(path) == "inspect")
    except McNemarError:
        return False


# --------------------------------------------------------------------------------------------
# the forest plot as SVG (no dependency; the web page shows it)


def forest_rows(comparison: TaskComparison) -> list[dict[str, Any]]:
    """The rows of the forest plot, top to bottom: tasks worst first, then micro and macro.

    Each row: ``label``, ``estimate``, ``low``, ``high`` (proportions), ``significant``,
    ``worse``, ``overall`` (False for tasks).
    """
    rows = [{"label": t.task, "estimate": t.difference, "low": t.low, "high": t.high,
             "significant": t.worse or t.better, "worse": t.worse, "overall": False,
             "pvalue": t.adjusted_pvalue} for t in comparison.tasks]
    micro, macro = comparison.overall.micro, comparison.overall.macro
    lo, hi = _micro_interval(micro)
    est = float(micro.difference) if micro.difference is not None else math.nan
    for label, e, low, high, p in (
            ("Overall, micro (items pooled)", est, lo, hi, micro.pvalue),
            ("Overall, macro (mean of tasks)", macro.estimate, macro.low, macro.high,
             macro.pvalue)):
        side = _verdict(e, p, comparison.alpha, comparison.alternative)
        rows.append({"label": label, "estimate": e, "low": low, "high": high,
                     "significant": side in ("worse", "better"), "worse": side == "worse",
                     "overall": True, "pvalue": p})
    return rows


def forest_svg(comparison: TaskComparison, *, width: int = 720, label_chars: int = 40) -> str:
    """The forest plot of a :class:`TaskComparison` as a standalone SVG document (a string).

    One row per task, worst first, with accuracy(A) - accuracy(B) in points and its interval;
    a filled marker means significant after adjustment (red when A is worse); the micro and
    macro overall rows (diamonds) close the plot; a dashed line marks zero. Labels longer than
    ``label_chars`` are shortened; every text is escaped.

    Examples
    --------
    >>> res = compare_task_tables({"arith": (13, 8, 6, 3), "mc": (21, 5, 3, 1)})
    >>> svg = forest_svg(res)
    >>> svg.startswith("<svg") and svg.count("<line") >= 4
    True
    """
    rows = forest_rows(comparison)
    e = html.escape
    font = 11
    char_w = 0.62 * font  # a generous average advance of a sans-serif character
    labels = [shorten(clean_name(r["label"]), label_chars) for r in rows]
    left = int(max(len(x) for x in labels) * char_w) + 16
    right_col = 70
    row_h = 18
    top = 34
    gap = 10  # between the tasks and the overall rows
    height = top + row_h * len(rows) + gap + 42
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
           f'<text x="{left}" y="16" font-weight="bold">accuracy(A) - accuracy(B), points, '
           f"{_level(comparison.confidence_level)} CI; filled: adjusted p &lt; "
           f"{comparison.alpha:g}</text>"]
    zero = x(0.0)
    bottom = top + row_h * len(rows) + gap
    out.append(f'<line x1="{zero:.1f}" y1="{top - 6}" x2="{zero:.1f}" y2="{bottom}" '
               'stroke="#555" stroke-dasharray="4 3"/>')
    for i, (r, label) in enumerate(zip(rows, labels, strict=True)):
        y = top + row_h * i + row_h / 2 + (gap if r["overall"] else 0)
        color = "#b00020" if r["worse"] else "#1f5fa8"
        out.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">{e(label)}</text>')
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
        out.append(f'<text x="{left + plot_w + 8}" y="{y + 4:.1f}" fill="#444">'
                   f"{e(_pt(r['estimate']))}</text>")
    axis_y = bottom + 6
    out.append(f'<line x1="{left}" y1="{axis_y}" x2="{left + plot_w}" y2="{axis_y}" '
               'stroke="#888"/>')
    for tick in _ticks(lo, hi):
        tx = left + (tick - lo) / (hi - lo) * plot_w
        out.append(f'<line x1="{tx:.1f}" y1="{axis_y}" x2="{tx:.1f}" y2="{axis_y + 4}" '
                   'stroke="#888"/>')
        out.append(f'<text x="{tx:.1f}" y="{axis_y + 16}" text-anchor="middle">'
                   f"{tick:g}</text>")
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
