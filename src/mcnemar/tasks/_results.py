"""The results of comparing two runs of a suite task by task: :class:`TaskComparison` with
its :class:`TaskResult` per task, the :class:`Overall` (micro and macro) and the
:class:`TaskAlignment`; frozen, with ``to_dict()`` (schema ``mcnemar.tasks/1``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from mcnemar import vocabulary
from mcnemar._format import Rendered, json_number, shorten
from mcnemar.report._decide import verdict
from mcnemar.tasks import _render as render
from mcnemar.tasks._render import forest_svg, plural

if TYPE_CHECKING:
    from mcnemar.clustering import ClusteredResult
    from mcnemar.io import Alignment
    from mcnemar.report import Report

SCHEMA = "mcnemar.tasks/1"
#: The p-value adjustments across tasks.
ADJUST = vocabulary.names(vocabulary.ADJUSTMENTS)


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of :meth:`TaskComparison.to_dict`, with the report's
    schema (:func:`mcnemar.report.json_schema`) as ``overall.micro``.

    Examples
    --------
    >>> schema = json_schema()
    >>> schema["$id"], schema["properties"]["overall"]["properties"]["micro"]["required"][0]
    ('mcnemar.tasks/1', 'schema')
    """
    from mcnemar._format import shipped_schema
    from mcnemar.report import json_schema as report_schema

    schema = shipped_schema("tasks-1")
    report = report_schema()
    clash = set(report.get("$defs", {})) & set(schema["$defs"])
    assert not clash, clash  # the two schemas' definitions share one namespace here
    schema["$defs"].update(report.get("$defs", {}))
    micro = {k: v for k, v in report.items()
             if k not in ("$schema", "$id", "$defs", "title", "description")}
    # The per-task document adds the headline interval of the pooled table to its report.
    micro.setdefault("properties", {}).update(
        {"low": {"type": ["number", "null"]}, "high": {"type": ["number", "null"]}})
    schema["properties"]["overall"]["properties"]["micro"] = micro
    return schema


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
            "difference": {"estimate": json_number(self.difference), "low": json_number(self.low),
                           "high": json_number(self.high)},
            "pvalue": json_number(self.pvalue),
            "adjusted_pvalue": json_number(self.adjusted_pvalue),
            "worse": self.worse,
            "better": self.better,
            "test": self.test,
            "log10_pvalue": json_number(self.log10_pvalue),
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
            "estimate": json_number(self.estimate),
            "low": json_number(self.low),
            "high": json_number(self.high),
            "pvalue": json_number(self.pvalue),
            "weights": [{"task": t, "weight": w} for t, w in
                        zip(self.tasks, self.weights, strict=True)],
            "standard_error": json_number(self.standard_error),
            "statistic": json_number(self.statistic),
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
        lines = [f"Aligned {len(self.tasks)} task{plural(len(self.tasks))} one by one: "
                 f"{self.matched} item{plural(self.matched)} paired, {self.dropped} dropped "
                 f"(on_missing={self.on_missing})."]
        for label, names in (("A", self.only_in_a), ("B", self.only_in_b)):
            if names:
                lines.append(f"  Dropped {len(names)} task{plural(len(names))} found only in "
                             f"{label}: {', '.join(names)}.")
        return "\n".join(lines)


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskComparison(Rendered):
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
    flips : Flips or None
        The items on which the runs disagree, task by task in A's order, each with its task
        (:class:`mcnemar.flips.Flips`); the counts are the pooled b and c.
    """

    _renderer: ClassVar[Any] = render

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
    flips: Any = None

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
        lo, hi = render.micro_interval(r)
        return float(r.difference if r.difference is not None else math.nan), lo, hi, r.pvalue

    @property
    def overall_worse(self) -> bool:
        """The headline overall says A is significantly less accurate than B."""
        return self.outcome == "worse"

    @property
    def outcome(self) -> str:
        """The headline overall in a word: ``"worse"`` or ``"better"`` (A significantly less
        or more accurate than B), ``"none"`` (not significant) or ``"undefined"``."""
        est, _, _, p = self.headline
        return verdict(est, p, self.alpha, self.alternative)

    @property
    def items(self) -> int:
        """Items compared over all tasks."""
        return sum(t.n for t in self.tasks)

    # -- rendering -----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """JSON-safe result (schema ``mcnemar.tasks/1``, docs/report-schema.md)."""
        micro = self.overall.micro.to_dict()
        lo, hi = render.micro_interval(self.overall.micro)
        return {
            "schema": SCHEMA,
            "names": {"a": self.names[0], "b": self.names[1]},
            "alternative": self.alternative,
            "alpha": self.alpha,
            "confidence_level": self.confidence_level,
            "interval": self.interval,
            "adjust": self.adjust,
            "verdict": self.verdict(),
            "headline": render.headline(self),
            "tasks": [{**t.to_dict(), "texts": render.task_texts(self, t),
                       "note": render.task_note(self, t)} for t in self.tasks],
            "worse": [t.task for t in self.worse],
            "better": [t.task for t in self.better],
            "overall": {
                "headline": self.overall.headline,
                "reason": self.overall.reason,
                "lines": render.overall_lines(self),
                "micro": {**micro, "low": json_number(lo), "high": json_number(hi)},
                "macro": self.overall.macro.to_dict(),
            },
            "alignment": None if self.alignment is None else self.alignment.to_dict(),
            "warnings": list(self.warnings),
            **({} if self.flips is None else {"flips": self.flips.to_dict()}),
        }

    def verdict(self) -> str:
        """The answer in two sentences: the headline overall, then which tasks got worse."""
        return render.verdict(self)

    def forest_rows(self) -> list[dict[str, Any]]:
        """The rows of the forest plot, top to bottom: tasks worst first, then micro and
        macro (``label``, ``estimate``, ``low``, ``high``, ``significant``, ``worse``,
        ``overall``, ``pvalue``)."""
        return render.forest_rows(self)


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


