"""Two runs' files to a score report: pairing that keeps the scores, and the per-task view.

:func:`mcnemar.pipeline.compare_runs` hands runs here when their scores are not all 0/1 (and
no ``threshold`` makes them pass/fail), or when ``analysis="scores"`` asks for it:

* :func:`compare_scores` pairs the runs with :func:`mcnemar.io.align` (``keep_scores=True``:
  the same identity checks and item rules, no score refused for not being 0/1) and analyses
  the paired scores with :func:`mcnemar.scores.analyze_scores`. Items scored several times
  (epochs) are paired sample by sample and analysed on their item means, with the within-
  and between-item variance; a cluster field makes the items' clusters the resampling unit.
  The report's ``flips`` are the items the runs scored differently, the largest differences
  first (:class:`mcnemar.flips.ScoreFlips`).
* :func:`compare_score_tasks` does the same task by task: per-task reports, their p-values
  adjusted across tasks, and the macro overall, the mean of the per-task mean differences
  :math:`\\hat\\Delta = \\frac1T\\sum_t \\bar d_t` with :math:`\\operatorname{Var}(\\hat\\Delta)
  = \\frac{1}{T^2}\\sum_t SE_t^2` (the tasks hold independent items), a z-test and a normal
  interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from mcnemar import vocabulary
from mcnemar._format import json_value, plain_lines, wrap
from mcnemar.errors import McNemarError, option
from mcnemar.report._words import _p_vs_alpha, _pct
from mcnemar.scores._report import ScoreReport, analyze_scores

__all__ = ["ScoreTaskComparison", "compare_score_tasks", "compare_scores", "graded"]

#: The keywords of the pairing (:func:`mcnemar.io.align`) the score analysis takes.
PAIRING = ("on_missing", "reduce", "allow_different_tasks", "allow_different_scorers")
#: The keywords of :func:`analyze_scores` a comparison of runs passes on.
ANALYSIS = ("alternative", "confidence_level", "alpha", "power", "margin", "zero_method",
            "n_resamples", "random_state")
#: Options of the pass/fail analysis that do not apply to scores.
PASS_FAIL_ONLY = ("equivalence", "bayes", "threshold")


def graded(run: Any) -> bool:
    """Whether a run (or a sequence of runs) holds a score other than 0/1 (deferred runs,
    counted inside an engine, are not read for this and count as pass/fail)."""
    runs = run if isinstance(run, list | tuple) else [run]
    for one in runs:
        scores = getattr(one, "scores", None)
        if scores is None:
            continue
        values = np.asarray(scores, dtype=np.float64)
        present = values[~np.isnan(values)]
        if np.any((present != 0) & (present != 1)):
            return True
    return False


def _check_options(options: dict[str, Any]) -> dict[str, Any]:
    given = [k for k in PASS_FAIL_ONLY if options.get(k) not in (None, False)]
    if given:
        raise McNemarError(
            f"{', '.join(option(k) for k in given)} belong(s) to the pass/fail analysis; the "
            f"analysis of the scores takes none (give {option('analysis', 'pass-fail')} with "
            f"{option('threshold', 'T')} to count score >= T as a pass)")
    unknown = sorted(k for k in options if k not in (*PAIRING, *ANALYSIS, *PASS_FAIL_ONLY,
                                                     "cluster_method", "margin_method",
                                                     "engine", "flips", "show_flips")
                     and options[k] is not None)
    if unknown:
        raise McNemarError(f"{', '.join(option(k) for k in unknown)} do(es) not apply to the "
                           "analysis of the scores")
    return options


def _has_samples(run: Any) -> bool:
    epochs = getattr(run, "epochs", None)
    keys = getattr(run, "keys", None)
    if epochs is None or keys is None:
        return False
    return len(set(keys.tolist())) < len(keys)


def _pair(run_a: Any, run_b: Any, options: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The alignment keeping the scores, and the ``item``/``cluster`` labels for the analysis."""
    from mcnemar.io import align

    run_a, run_b = run_a.load(), run_b.load()
    pairing = {k: options[k] for k in PAIRING if options.get(k) is not None}
    reduce = pairing.get("reduce")
    labels: dict[str, Any] = {}
    clustered = run_a.clusters is not None or run_b.clusters is not None
    if reduce is None and (_has_samples(run_a) or _has_samples(run_b)):
        # Several samples of an item: paired sample by sample, analysed on the item means
        # (with a cluster field, the item means within their clusters).
        pairing["reduce"] = "mean" if clustered else "cluster"
    alignment = align(run_a, run_b, keep_scores=True, **pairing)
    if pairing.get("reduce") == "cluster" and not clustered:
        labels["item"] = alignment.clusters
    elif alignment.clusters is not None:
        labels["cluster"] = alignment.clusters
    if alignment.scores_a is None or alignment.scores_b is None:
        raise McNemarError("the runs' scores were not kept by the pairing")
    return alignment, labels


def compare_scores(run_a: Any, run_b: Any, *, names: Sequence[str] | None = None,
                   **options: Any) -> ScoreReport:
    """Pair two runs keeping their scores and analyse them (:func:`analyze_scores`).

    Parameters
    ----------
    run_a, run_b : RunResults
    names : two str, optional
        Default: the runs' names (the same name twice gets " (A)" and " (B)").
    **options
        The pairing's keywords (``on_missing``, ``reduce``, ``allow_different_tasks``,
        ``allow_different_scorers``) and the analysis' (``alternative``,
        ``confidence_level``, ``alpha``, ``power``, ``margin``, ``zero_method``,
        ``n_resamples``, ``random_state``; the resampling is seeded with 0 unless
        ``random_state`` says otherwise, so the same runs give the same report), and
        ``flips``, ``show_flips``: how the items scored differently (``report.flips``,
        :class:`mcnemar.flips.ScoreFlips`) are listed, as for pass/fail
        (:func:`mcnemar.pipeline.analyze_alignment`: ``flips`` items of each side in the JSON,
        default 20; given, the text and markdown list them too).

    Examples
    --------
    >>> from mcnemar.io import RunResults
    >>> new = RunResults.from_scores(["q1", "q2", "q3", "q4"], [0.9, 0.5, 0.7, 1.0], name="new")
    >>> old = RunResults.from_scores(["q4", "q3", "q2", "q1"], [0.5, 0.6, 0.5, 0.4], name="old")
    >>> rep = compare_scores(new, old)
    >>> rep.names, round(rep.difference, 3), rep.higher_a, rep.equal
    (('new', 'old'), 0.275, 3, 1)
    >>> [(f.id, round(f.difference, 2)) for f in rep.flips.a_higher]
    [('q1', 0.5), ('q4', 0.5), ('q3', 0.1)]
    """
    from mcnemar.flips import ScoreFlips

    options = _check_options(dict(options))
    if options.get("engine") != "numpy" and getattr(run_a, "deferred", False) \
            and getattr(run_b, "deferred", False):
        # Two deferred runs (Parquet, large files) are compared from sums computed inside
        # DuckDB, never collected; engine="numpy" reads them into memory for every test.
        from mcnemar.scores._frames import compare_score_sums

        return compare_score_sums(run_a, run_b, names=names, **options)
    alignment, labels = _pair(run_a, run_b, options)
    kwargs = {k: options[k] for k in ANALYSIS if options.get(k) is not None}
    # Seeded, so that the same runs print the same report every time.
    kwargs.setdefault("random_state", 0)
    report: ScoreReport = analyze_scores(alignment.scores_a, alignment.scores_b,
                                         names=_display_names(alignment, names),
                                         alignment=alignment, **labels, **kwargs)
    flips, show = options.get("flips"), options.get("show_flips")
    shown = flips is not None if show is None else bool(show)
    moved = ScoreFlips.of(alignment, item=labels.get("item"))
    return replace(report, flips=moved.listing(flips, shown=shown))


def _display_names(alignment: Any, names: Sequence[str] | None) -> tuple[str, str]:
    """The names given, else the runs' (:meth:`mcnemar.io.Alignment.display_names`)."""
    first, second = alignment.display_names(names)
    return str(first), str(second)


# ----------------------------------------------------------------------------- per task


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoreTask:
    """One task of a per-task comparison of scores."""

    task: str
    report: ScoreReport
    adjusted_pvalue: float
    worse: bool
    better: bool

    @property
    def difference(self) -> float:
        """The task's mean difference A - B."""
        return self.report.difference


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoreOverall:
    """The macro overall: the mean of the per-task mean differences."""

    estimate: float
    standard_error: float
    statistic: float
    pvalue: float
    low: float
    high: float
    headline: str
    text: str


def tasks_json_schema() -> dict[str, Any]:
    """The JSON Schema of :meth:`ScoreTaskComparison.to_dict` (``mcnemar.score-tasks/1``), with
    the score report's schema (:func:`mcnemar.scores.json_schema`) at ``tasks[].report``.

    Examples
    --------
    >>> schema = tasks_json_schema()
    >>> schema["$id"], "required" in schema["$defs"]["scoreTask"]["properties"]["report"]
    ('mcnemar.score-tasks/1', True)
    """
    from mcnemar._format import shipped_schema
    from mcnemar.scores._report import json_schema as report_schema

    schema = shipped_schema("score-tasks-1")
    report = report_schema()
    clash = set(report["$defs"]) & set(schema["$defs"])
    assert not clash, clash  # the two schemas' definitions share one namespace here
    schema["$defs"].update(report["$defs"])
    schema["$defs"]["scoreTask"]["properties"]["report"] = {
        k: v for k, v in report.items()
        if k not in ("$schema", "$id", "$defs", "title", "description")}
    return schema


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoreTaskComparison:
    """Two runs' scores compared task by task (see :func:`compare_score_tasks`); ``flips``
    lists the items scored differently, task by task, the largest differences first within
    a task (:class:`mcnemar.flips.ScoreFlips`)."""

    names: tuple[str, str]
    tasks: tuple[ScoreTask, ...]
    overall: ScoreOverall
    adjust: str
    alpha: float
    alternative: str
    confidence_level: float
    flips: Any = None

    @property
    def worse(self) -> tuple[ScoreTask, ...]:
        """The tasks where A is significantly worse after adjustment, worst first."""
        return tuple(t for t in self.tasks if t.worse)

    @property
    def outcome(self) -> str:
        """The overall in a word: ``"worse"`` or ``"better"`` (A significantly lower or higher
        on average over the tasks), ``"none"`` or ``"undefined"``."""
        o = self.overall
        if not math.isfinite(o.pvalue):
            return "undefined"
        if o.pvalue >= self.alpha or o.estimate == 0:
            return "none"
        if o.estimate < 0:
            return "none" if self.alternative == "greater" else "worse"
        return "none" if self.alternative == "less" else "better"

    @property
    def overall_worse(self) -> bool:
        return self.outcome == "worse"

    @property
    def headline(self) -> tuple[float, float, float, float | None]:
        """The overall: (estimate, low, high, pvalue), as the pass/fail comparison's."""
        o = self.overall
        return o.estimate, o.low, o.high, o.pvalue

    def to_svg(self) -> str:
        raise McNemarError("the forest plot is drawn for pass/fail comparisons only",
                           argument="plot")

    def plot(self, path: Any) -> None:
        self.to_svg()

    def __str__(self) -> str:
        return _text(self)

    def to_markdown(self) -> str:
        return _markdown(self)

    def _repr_html_(self) -> str:
        import html

        return f"<pre>{html.escape(_text(self))}</pre>"

    def to_dict(self) -> dict[str, Any]:
        o = self.overall
        return {
            "schema": "mcnemar.score-tasks/1",
            "names": {"a": self.names[0], "b": self.names[1]},
            "alternative": self.alternative, "alpha": self.alpha,
            "confidence_level": self.confidence_level, "adjust": self.adjust,
            "overall": {"kind": "macro", "estimate": json_value(o.estimate),
                        "standard_error": json_value(o.standard_error),
                        "statistic": json_value(o.statistic), "pvalue": json_value(o.pvalue),
                        "low": json_value(o.low), "high": json_value(o.high),
                        "headline": o.headline, "text": o.text},
            "tasks": [{"task": t.task, "adjusted_pvalue": json_value(t.adjusted_pvalue),
                       "worse": t.worse, "better": t.better, "report": t.report.to_dict()}
                      for t in self.tasks],
            **({} if self.flips is None else {"flips": self.flips.to_dict()}),
        }


def compare_score_tasks(run_a: Any, run_b: Any, *, task_column: str | None = None,
                        task: str | Sequence[str] | None = None, adjust: str = "holm",
                        names: Sequence[str] | None = None, headline: str | None = None,
                        **options: Any) -> ScoreTaskComparison:
    """Compare two runs' scores task by task: per-task reports (:func:`compare_scores`), their
    p-values adjusted across tasks, and the macro overall (the module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from mcnemar.io import RunResults
    >>> keys = np.empty(40, dtype=object)
    >>> keys[:] = [(t, i) for t in ("t1", "t2") for i in range(20)]
    >>> def run(name, scores):
    ...     return RunResults(name=name, path=name, format="csv", records=40, keys=keys,
    ...                       scores=np.asarray(scores, float), key_names=("task", "id"))
    >>> a = run("new", [0.8, 0.6, 0.9, 0.7] * 5 + [0.5, 0.4, 0.6, 0.5] * 5)
    >>> b = run("old", [0.6, 0.6, 0.7, 0.5] * 5 + [0.5, 0.5, 0.6, 0.4] * 5)
    >>> res = compare_score_tasks(a, b, task_column="task", random_state=0)
    >>> [t.task for t in res.tasks], round(res.overall.estimate, 3)
    (['t1', 't2'], 0.075)
    """
    from mcnemar.multiple import adjust_pvalues
    from mcnemar.tasks import runs_by_task
    from mcnemar.validation import check_choice

    check_choice(adjust, "adjust", vocabulary.ADJUSTMENTS)
    if headline not in (None, "macro"):
        raise McNemarError(f"{option('headline', repr(headline))}: the per-task comparison of "
                           "scores has the macro overall only")
    options = _check_options(dict(options))
    side_a, side_b = runs_by_task(run_a, task_column, "A"), runs_by_task(run_b, task_column, "B")
    if task is not None:
        wanted = [task] if isinstance(task, str) else list(task)
        side_a = {k: v for k, v in side_a.items() if k in wanted}
        side_b = {k: v for k, v in side_b.items() if k in wanted}
    common = [t for t in side_a if t in side_b]
    missing = [t for t in (*side_a, *side_b) if t not in common]
    if missing and options.get("on_missing", "error") == "error":
        raise McNemarError(f"the runs hold different tasks ({', '.join(map(repr, missing))} in "
                           f"one only); pass {option('on_missing', repr('intersect'))}")
    if not common:
        raise McNemarError("the runs share no task; check that both are of the same suite")
    reports = []
    for name in common:
        try:
            reports.append(compare_scores(side_a[name], side_b[name], names=names, **options))
        except McNemarError as exc:
            raise McNemarError(f"task {name!r}: {exc.template}") from None
    from mcnemar.flips import ScoreFlips

    # The items scored differently, task by task, listed once: on the comparison (when every
    # task's report has them).
    parts = [(name, r.flips) for name, r in zip(common, reports, strict=True)]
    moved = None
    if all(f is not None for _, f in parts):
        moved = ScoreFlips.concat(parts).listing(parts[0][1].limit, shown=parts[0][1].shown)
    reports = [replace(r, flips=None) for r in reports]
    display = reports[0].names
    alternative = reports[0].alternative
    alpha = reports[0].alpha
    level = reports[0].confidence_level
    pvalues = np.array([r.pvalue for r in reports])
    adjusted = np.asarray(adjust_pvalues(pvalues, method=adjust), dtype=np.float64)
    tasks = []
    for name, rep, p_adj in zip(common, reports, adjusted, strict=True):
        sig = bool(p_adj < alpha)
        tasks.append(ScoreTask(task=name, report=rep, adjusted_pvalue=float(p_adj),
                               worse=sig and rep.difference < 0 and alternative != "greater",
                               better=sig and rep.difference > 0 and alternative != "less"))
    tasks.sort(key=lambda t: (not t.worse, t.report.difference if t.worse else 0.0))
    overall = _macro(reports, display, alternative, alpha, level)
    return ScoreTaskComparison(names=display, tasks=tuple(tasks), overall=overall,
                               adjust=adjust, alpha=alpha, alternative=alternative,
                               confidence_level=level, flips=moved)


def _macro(reports: list[ScoreReport], names: tuple[str, str], alternative: str, alpha: float,
           level: float) -> ScoreOverall:
    from scipy import special

    t = len(reports)
    estimate = float(np.mean([r.difference for r in reports]))
    se = math.sqrt(sum(r.standard_error**2 for r in reports)) / t
    z = estimate / se if se > 0 else (0.0 if estimate == 0 else math.copysign(math.inf, estimate))
    if alternative == "greater":
        p = float(special.ndtr(-z))
    elif alternative == "less":
        p = float(special.ndtr(z))
    else:
        p = float(min(1.0, 2.0 * special.ndtr(-abs(z))))
    q = float(special.ndtri(0.5 + level / 2.0))
    low, high = estimate - q * se, estimate + q * se
    na, nb = names
    significant = p < alpha
    direction = "a" if estimate > 0 else "b" if estimate < 0 else None
    side = {"greater": "a", "less": "b"}.get(alternative)
    if significant and direction is not None and side in (None, direction):
        winner, loser = (na, nb) if direction == "a" else (nb, na)
        head = f"{winner} did better than {loser} on average over the tasks"
    elif side is None:
        head = f"No clear difference between {na} and {nb} over the tasks"
    else:
        head = f"No clear evidence that {na if side == 'a' else nb} scores higher over the tasks"
    text = (f"Overall (macro, the mean of the {t} tasks' mean differences): {na} - {nb} = "
            f"{estimate:+.4g} ({_pct(level)} CI {low:+.4g} to {high:+.4g}), z-test "
            + _p_vs_alpha(p, math.log10(p) if p > 0 else -math.inf, alpha) + ".")
    return ScoreOverall(estimate=estimate, standard_error=se, statistic=z, pvalue=p, low=low,
                        high=high, headline=head, text=text)


def _text(res: ScoreTaskComparison) -> str:
    na, nb = res.names
    worse = len(res.worse)
    how = "without adjustment" if res.adjust == "none" else f"after {res.adjust} adjustment"
    lines = [f"{na} (A) vs {nb} (B), scores task by task: {len(res.tasks)} tasks.", "",
             wrap(f"{res.overall.headline}. " + res.overall.text + f" {worse} of "
                   f"{len(res.tasks)} tasks significantly worse for {na} {how}."), "",
             f"{'task':<28} {'n':>6} {'mean A':>9} {'mean B':>9} {'A - B':>9} {'p':>9} "
             f"{'adjusted':>9}"]
    for t in res.tasks:
        r = t.report
        mark = " worse" if t.worse else " better" if t.better else ""
        lines.append(f"{t.task[:28]:<28} {r.n:>6} {r.mean_a:>9.4g} {r.mean_b:>9.4g} "
                     f"{r.difference:>+9.3g} {r.pvalue:>9.4g} {t.adjusted_pvalue:>9.4g}{mark}")
    lines += ["", wrap("Each task's p-value is its report's recommended test (the paired t "
                        "test, or the permutation test for few or skewed items).")]
    if res.flips is not None and res.flips.shown:
        lines += ["", f"{res.flips.title}:",
                  *(plain_lines(x) for x in res.flips.lines(res.names))]
    return "\n".join(lines)


def _markdown(res: ScoreTaskComparison) -> str:
    from mcnemar._format import markdown_text as md

    out = [f"### Scores task by task: {md(res.names[0])} vs {md(res.names[1])}", "",
           f"**{md(res.overall.text)}**", "",
           "| task | n | mean A | mean B | A − B | p | adjusted p |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for t in res.tasks:
        r = t.report
        out.append(f"| {md(t.task)} | {r.n} | {r.mean_a:.4g} | {r.mean_b:.4g} | "
                   f"{r.difference:+.3g} | {r.pvalue:.4g} | {t.adjusted_pvalue:.4g} |")
    if res.flips is not None and res.flips.shown:
        out += ["", *res.flips.markdown(res.names)]
    return "\n".join(out) + "\n"
