"""Assertions for test suites: fail a test when a candidate run is worse than its baseline.

For pytest or any runner that reports an ``AssertionError``: the helpers pass silently, or
raise one whose message is the short report (the verdict, the table in words) and the first
items that flipped, so that the failure says which items got worse.

=========================  ===================================================================
helper                     fails when
=========================  ===================================================================
:func:`assert_not_worse`   A is significantly less accurate than B (``margin=0``); with a
                           margin, when non-inferiority by the margin is not shown; with
                           ``by_task``, when the headline overall or any task is
                           significantly worse after adjustment
:func:`assert_better`      A is not significantly more accurate than B (with ``by_task``,
                           the headline overall)
=========================  ===================================================================

The runs are paths (read as ``mcnemar compare`` reads them), the harness's own objects in
memory (an Inspect ``EvalLog``, lm-eval's ``simple_evaluate`` results, a data frame; read as
their files are, see :func:`mcnemar.io.read_run`) or :class:`~mcnemar.io.RunResults`; the
comparison is :func:`mcnemar.pipeline.compare_runs`, the one the command line runs.

Examples
--------
>>> from mcnemar.io import RunResults
>>> keys = [f"q{i}" for i in range(40)]
>>> new = RunResults.from_scores(keys, [1] * 30 + [0] * 10, name="new")
>>> old = RunResults.from_scores(keys, [1] * 10 + [0] * 30, name="old")
>>> assert_not_worse(new, old)  # passes silently
>>> try:
...     assert_not_worse(old, new)
... except AssertionError as exc:
...     print(str(exc).splitlines()[0])
old is significantly worse than new (p = 1.907e-06 < alpha = 0.05).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcnemar._format import clean_name, format_pvalue
from mcnemar.errors import McNemarError, option

__all__ = ["assert_better", "assert_not_worse"]

#: Items of each side of the flips a failure message lists.
MESSAGE_FLIPS = 5
#: The keywords that belong to the comparison, not to the readers.
_COMPARE_KEYS = ("on_missing", "threshold", "reduce", "engine", "allow_different_tasks",
                 "allow_different_scorers", "names", "alternative", "confidence_level",
                 "cluster_method", "adjust", "task_column", "headline", "interval")


def _read(run_a: Any, run_b: Any, by_task: bool, options: dict[str, Any]) -> tuple[Any, Any]:
    """The two sides: RunResults as they are, paths (and objects in memory) read as
    ``mcnemar compare`` reads them; a list of objects is one run per task."""
    from mcnemar.io import RunResults, read_run
    from mcnemar.io._objects import is_path
    from mcnemar.io._registry import object_spec
    from mcnemar.pipeline import read_runs
    from mcnemar.tasks import read_suite

    def readable(x: Any) -> bool:
        return is_path(x) or object_spec(x) is not None

    paths = [x for x in (run_a, run_b) if readable(x)]
    if len(paths) == 2:
        if by_task:
            from mcnemar.tasks import read_suite_pair

            suites = read_suite_pair(paths, **options)
            if suites is not None:
                return suites
        return read_runs(paths, **options)
    sides: list[Any] = []
    for run in (run_a, run_b):
        if readable(run):
            sides.append(read_run(run, **options))
        elif isinstance(run, RunResults) or (
                by_task and isinstance(run, Sequence) and not isinstance(run, str)
                and all(isinstance(r, RunResults) for r in run)):
            sides.append(run)
        elif isinstance(run, list | tuple):
            sides.append(read_suite(run, **options))
        else:
            raise McNemarError(f"a run is a path, a RunResults or a harness's object in memory "
                               f"(an Inspect EvalLog, lm-eval results, a data frame); got "
                               f"{type(run).__name__}",
                               argument="run_a" if run is run_a else "run_b")
    return sides[0], sides[1]


def _compare(run_a: Any, run_b: Any, *, by_task: bool, alpha: float, margin: float | None,
             options: dict[str, Any]) -> Any:
    from mcnemar.pipeline import compare_runs

    compare = {k: options.pop(k) for k in _COMPARE_KEYS if k in options}
    if by_task and "task" in options:
        compare["task"] = options.pop("task")
    side_a, side_b = _read(run_a, run_b, by_task, options)
    if by_task:
        return compare_runs(side_a, side_b, by_task=True, alpha=alpha,
                            flips=MESSAGE_FLIPS, **compare)
    return compare_runs(side_a, side_b, alpha=alpha, margin=margin, flips=MESSAGE_FLIPS,
                        **compare)


def _message(why: str, result: Any, tasks: Sequence[str] = ()) -> str:
    """The failure: why, the short report, and the first items that flipped (of ``tasks``
    only, when given)."""
    lines = [why, ""]
    if hasattr(result, "overall"):  # task by task
        lines.append(result.verdict())
    else:
        lines += [result.conclusion.text, "", result.words()]
    flips = result.flips
    if flips is not None:
        head = f"{flips.title}:"
        if tasks:
            flips = flips.of_tasks(tasks)
            head = f"{flips.title} in {', '.join(tasks)}:"
        lines += ["", head, *flips.lines(result.names, MESSAGE_FLIPS)]
    return "\n".join(lines)


def _p(result: Any) -> str:
    p = result.pvalue
    return format_pvalue(p, result.log10_pvalue)


def assert_not_worse(run_a: Any, run_b: Any, *, margin: float = 0.0, by_task: bool = False,
                     alpha: float = 0.05, **read_options: Any) -> None:
    """Assert that run A (the candidate) is not worse than run B (the baseline).

    Parameters
    ----------
    run_a, run_b : str, Path or RunResults
        The candidate and the baseline: result files or directories (read as
        ``mcnemar compare`` reads them, the format detected), or runs already read; with
        ``by_task`` also a sequence of runs, one per task.
    margin : float, default 0.0
        0: fail when A is significantly less accurate than B (McNemar's test at ``alpha``,
        two-sided unless ``alternative`` is given). A positive margin (a proportion, 0.01 = 1
        accuracy point): fail unless non-inferiority by the margin is shown (Tango's score
        test, one-sided at ``alpha``), i.e. also when the test set is too small to tell.
    by_task : bool, default False
        Compare task by task (:func:`mcnemar.tasks.compare_tasks`): fail when the headline
        overall or any task is significantly worse after the adjustment across tasks
        (``mcnemar compare --by-task --fail-on worse-any``). Takes no margin.
    alpha : float, default 0.05
        The significance level.
    **read_options
        The readers' options (``score``, ``id``, ``filter``, ``task``, ``format``...; see
        :func:`mcnemar.pipeline.read_runs`) and the comparison's (``on_missing``,
        ``threshold``, ``reduce``, ``names``, ``alternative``, ``adjust``...).

    Raises
    ------
    AssertionError
        Why, the short report and the first items that flipped each way.
    McNemarError
        The runs cannot be read or paired, or the options are not valid.

    Examples
    --------
    >>> from mcnemar.io import RunResults
    >>> keys = [f"q{i}" for i in range(200)]
    >>> new = RunResults.from_scores(keys, [1] * 190 + [0] * 10, name="new")
    >>> old = RunResults.from_scores(keys, [1] * 189 + [0] * 11, name="old")
    >>> assert_not_worse(new, old, margin=0.05)  # within 5 points: shown
    >>> try:
    ...     assert_not_worse(new, old, margin=0.001)
    ... except AssertionError as exc:
    ...     print(str(exc).splitlines()[0][:64])
    non-inferiority of new to old by 0.001 is not shown at alpha = 0
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this helper's
    if isinstance(margin, bool) or not isinstance(margin, int | float) or not margin >= 0:
        raise McNemarError(f"{option('margin', '0.01')} must be a proportion, 0 or more; got "
                           f"{margin!r}")
    if by_task and margin:
        raise McNemarError(f"{option('margin')} does not apply with by_task=True; assert one "
                           "task at a time against a margin")
    result = _compare(run_a, run_b, by_task=by_task, alpha=alpha,
                      margin=float(margin) if margin else None, options=dict(read_options))
    a, b = (clean_name(n) for n in result.names)
    if by_task:
        worse = [t.task for t in result.worse]
        if result.overall_worse:
            raise AssertionError(_message(
                f"{a} is significantly worse than {b} overall ({result.overall.headline}) at "
                f"alpha = {alpha:g}.", result))
        if worse:
            how = "without adjustment" if result.adjust == "none" else \
                f"after {result.adjust} adjustment"
            raise AssertionError(_message(
                f"{a} is significantly worse than {b} on {len(worse)} "
                f"task{'s' if len(worse) != 1 else ''} "
                f"({', '.join(clean_name(t) for t in worse)}) at alpha = {alpha:g} {how}.",
                result, worse))
        return
    if margin:
        ni = result.noninferiority
        if ni is not None and not ni.noninferior:
            raise AssertionError(_message(
                f"non-inferiority of {a} to {b} by {margin:g} is not shown at alpha = "
                f"{alpha:g} (the test set cannot rule out that {a} is worse by the margin or "
                "more).", result))
        return
    conclusion = result.conclusion
    if conclusion.significant and conclusion.better == "b":
        raise AssertionError(_message(
            f"{a} is significantly worse than {b} (p = {_p(result)} < alpha = {alpha:g}).",
            result))


def assert_better(run_a: Any, run_b: Any, *, by_task: bool = False, alpha: float = 0.05,
                  **read_options: Any) -> None:
    """Assert that run A (the candidate) is significantly more accurate than run B.

    The arguments are those of :func:`assert_not_worse` (without a margin): with
    ``by_task`` the headline overall (the mean of the tasks, or the pooled items for one
    task) must be significantly better.

    Raises
    ------
    AssertionError
        A is not significantly better: why (worse, or not resolved by the test set), the
        short report and the first items that flipped.

    Examples
    --------
    >>> from mcnemar.io import RunResults
    >>> keys = [f"q{i}" for i in range(40)]
    >>> new = RunResults.from_scores(keys, [1] * 21 + [0] * 19, name="new")
    >>> old = RunResults.from_scores(keys, [1] * 20 + [0] * 20, name="old")
    >>> try:
    ...     assert_better(new, old)
    ... except AssertionError as exc:
    ...     print(str(exc).splitlines()[0])
    new is not significantly better than old (p = 1 >= alpha = 0.05).
    """
    __tracebackhide__ = True
    result = _compare(run_a, run_b, by_task=by_task, alpha=alpha, margin=None,
                      options=dict(read_options))
    a, b = (clean_name(n) for n in result.names)
    if by_task:
        if result.outcome != "better":
            raise AssertionError(_message(
                f"{a} is not significantly better than {b} overall "
                f"({result.overall.headline}) at alpha = {alpha:g}.", result))
        return
    conclusion = result.conclusion
    if not (conclusion.significant and conclusion.better == "a"):
        worse = conclusion.significant and conclusion.better == "b"
        how = "<" if result.pvalue < alpha else ">="
        raise AssertionError(_message(
            f"{a} is {'significantly worse than' if worse else 'not significantly better than'}"
            f" {b} (p = {_p(result)} {how} alpha = {alpha:g}).", result))
