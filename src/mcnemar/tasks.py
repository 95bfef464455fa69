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

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from scipy import special

from mcnemar import _tasks_render as render
from mcnemar import vocabulary
from mcnemar._format import Rendered, json_number, shorten
from mcnemar._tasks_read import read_suite, read_suite_pair, splits_into_tasks
from mcnemar._tasks_render import _micro_interval, _s, _verdict, forest_svg, headline_rule
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
    "headline_rule",
    "json_schema",
    "read_suite",
    "read_suite_pair",
    "splits_into_tasks",
]

SCHEMA = "mcnemar.tasks/1"
#: The p-value adjustments across tasks.
ADJUST = vocabulary.names(vocabulary.ADJUSTMENTS)
_HEADLINES = ("macro", "micro")
_INTERSECT = option("on_missing", "'intersect'")


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
        lines = [f"Aligned {len(self.tasks)} task{_s(len(self.tasks))} one by one: "
                 f"{self.matched} item{_s(self.matched)} paired, {self.dropped} dropped "
                 f"(on_missing={self.on_missing})."]
        for label, names in (("A", self.only_in_a), ("B", self.only_in_b)):
            if names:
                lines.append(f"  Dropped {len(names)} task{_s(len(names))} found only in "
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
        lo, hi = _micro_interval(r)
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
        return _verdict(est, p, self.alpha, self.alternative)

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
    (0.01, 0.0353)
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
        p: float | None = (float(2.0 * special.ndtr(-abs(z))) if alternative == "two-sided"
                           else float(special.ndtr(-z if alternative == "greater" else z)))
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
    flips: int | None = None,
    show_flips: bool | None = None,
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
    flips : int, optional
        How many items of each side the JSON lists of the items that flipped
        (``result.flips``; default 20); given, the text and markdown list them too.
    show_flips : bool, optional
        Whether the text and markdown list the flips (default: when ``flips`` is given).

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
    >>> [(t.task, t.b, t.c, t.worse, t.better) for t in res.tasks]
    [('t2', 0, 15, True, False), ('t1', 10, 0, False, True)]
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
    from mcnemar.validation import check_choice
    from mcnemar.vocabulary import ON_MISSING

    check_choice(on_missing, "on_missing", ON_MISSING)
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
    from mcnemar.flips import Flips

    flipped = Flips.concat([(name, al.flips()) for name, al in
                            zip(common, alignments, strict=True)])
    result = _compare(
        common, alignments, names=(str(display[0]), str(display[1])), adjust=adjust,
        alternative=alternative, confidence_level=confidence_level, alpha=alpha,
        cluster_method=cluster_method, interval=interval, headline=headline,
        alignment=task_alignment, analyze=analyze, adjust_pvalues=adjust_pvalues)
    shown = flips is not None if show_flips is None else bool(show_flips)
    return replace(result, flips=flipped.listing(flips, shown=shown))


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
    chosen, reason = headline_rule(len(tasks), headline)
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
