"""Comparing two runs of a suite task by task: :func:`compare_tasks` (runs or files),
:func:`compare_task_tables` (per-task counts) and :func:`macro_difference` (the macro overall).
See :mod:`mcnemar.tasks` for the method.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import special

from mcnemar.errors import InputFileError, McNemarError, option
from mcnemar.inference import check_alternative, mcnemar
from mcnemar.intervals import DIFFERENCE_METHODS, difference_interval
from mcnemar.multiple import adjust_pvalues
from mcnemar.report import analyze
from mcnemar.report._decide import (
    clustered_choice,
    headline_rule,
    recommended_pvalues,
    recommended_test,
)
from mcnemar.table import PairedTable
from mcnemar.tasks._results import (
    ADJUST,
    MacroResult,
    Overall,
    TaskAlignment,
    TaskComparison,
    TaskResult,
)
from mcnemar.validation import check_choice
from mcnemar.vocabulary import ON_MISSING

if TYPE_CHECKING:
    from mcnemar.clustering import ClusteredResult
    from mcnemar.io import Alignment, RunResults

_HEADLINES = ("macro", "micro")
_INTERSECT = option("on_missing", "'intersect'")


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


def runs_by_task(side: Any, task_column: str | None, label: str) -> dict[str, RunResults]:
    """The runs of one side split into tasks: by ``task_column``, or one run per task."""
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
    from mcnemar.io import align

    _check_options(adjust=adjust, interval=interval, headline=headline)
    check_choice(on_missing, "on_missing", ON_MISSING)
    side_a = runs_by_task(run_a, task_column, "A")
    side_b = runs_by_task(run_b, task_column, "B")
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
        alignment=task_alignment)
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
    if not tables:
        raise McNemarError("tables must hold at least one task", argument="tables")
    _check_options(adjust=adjust, interval=interval, headline=headline)
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
                    headline=headline, alignment=None)


def _check_options(*, adjust: str, interval: str, headline: str | None) -> None:
    check_choice(adjust, "adjust", ADJUST)
    check_choice(interval, "interval", DIFFERENCE_METHODS)
    if headline is not None:
        check_choice(headline, "headline", _HEADLINES)


def _compare(tasks: list[str], alignments: list[Alignment] | None, *, names: tuple[str, str],
             adjust: str, alternative: str, confidence_level: float, alpha: float,
             cluster_method: str, interval: str, headline: str | None,
             alignment: TaskAlignment | None, counts: np.ndarray | None = None
             ) -> TaskComparison:
    alternative = check_alternative(alternative)
    if alignments is not None:
        counts = np.array([al.counts for al in alignments], dtype=np.int64)
    assert counts is not None
    a, b, c, d = (counts[:, i] for i in range(4))
    pooled = PairedTable(a=int(a.sum()), b=int(b.sum()), c=int(c.sum()), d=int(d.sum()))
    clustered_all = None
    clustered_each: list[ClusteredResult | None] = [None] * len(tasks)
    if alignments is not None and any(al.clusters is not None for al in alignments):
        clustered_each, clustered_all = _clustered(alignments, cluster_method)
    # The micro overall is the single-table report of the pooled table; it also validates the
    # levels and names once.
    micro = analyze(pooled, names=names, alternative=alternative,
                    confidence_level=confidence_level, alpha=alpha, clustered=clustered_all)
    p, log10p, test, low, high, var = _per_task_numbers(
        counts, clustered_each, alternative=alternative, confidence_level=confidence_level,
        interval=interval)
    n = counts.sum(axis=1)
    delta = (b - c) / n
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


def _per_task_numbers(counts: np.ndarray, clustered_each: list[ClusteredResult | None], *,
                      alternative: str, confidence_level: float, interval: str
                      ) -> tuple[np.ndarray, ...]:
    """Per task, all at once: the p-value, test and interval that the single report of the
    task alone would state (the rules of :mod:`mcnemar.report._decide`), and the variance of
    its difference (the cluster-robust one where the clustered test defines it)."""
    a, b, c, d = (counts[:, i] for i in range(4))
    n = counts.sum(axis=1)
    tables = PairedTable(a=a, b=b, c=c, d=d)
    exact = mcnemar(tables, method="exact", alternative=alternative)
    chi2 = mcnemar(tables, method="asymptotic", alternative=alternative)
    p, log10p = recommended_pvalues(b + c, (exact.pvalue, exact.log10_pvalue),
                                    (chi2.pvalue, chi2.log10_pvalue))
    test = recommended_test(b + c)
    delta = (b - c) / n
    ci = difference_interval(a, b, c, d, confidence_level=confidence_level, method=interval)
    low = np.asarray(ci.low, dtype=float).reshape(-1).copy()
    high = np.asarray(ci.high, dtype=float).reshape(-1).copy()
    var = ((b + c) / n - delta**2) / n
    for i, cl in enumerate(clustered_each):
        if cl is None:
            continue
        choice = clustered_choice(cl, alternative, confidence_level, (low[i], high[i]))
        p[i], log10p[i], test[i] = choice.pvalue, choice.log10_pvalue, "clustered"
        low[i], high[i] = choice.low, choice.high
        if choice.variance is not None:
            var[i] = choice.variance
    return p, log10p, test, low, high, var


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
