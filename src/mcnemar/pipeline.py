"""From result files to a report, the one way: read -> identify -> align -> analyze.

The command line (``mcnemar compare``, ``mcnemar monitor``) and the web calculator's upload
both go through these functions, so that a file read, paired and analysed by one of them is
read, paired and analysed the same way by the others.

=========================  ===================================================================
function                   does
=========================  ===================================================================
:func:`read_runs`          two runs from two files, from one long file (a run column), or
                           from two prediction files scored against true labels
:func:`pair_runs`          the runs' identities checked and their items paired
                           (:func:`mcnemar.io.align`)
:func:`analyze_alignment`  the report of a pairing, with the clustered analysis when the
                           items come in clusters
:func:`compare_runs`       :func:`pair_runs` then :func:`analyze_alignment`
:func:`pair_many`          K runs read and paired: the outcome matrix of many-model comparisons
=========================  ===================================================================

Readers never compute statistics and the statistics never read files; this module only
connects them, and it neither prints nor knows about flags or form fields. Errors name the
library's arguments (:func:`mcnemar.errors.option`), which each interface spells its own way.

Examples
--------
Two runs held in memory (files come through :func:`read_runs` the same way):

>>> from mcnemar.io import RunResults
>>> new = RunResults.from_scores(["q1", "q2", "q3", "q4"], [1, 1, 0, 1], name="new")
>>> old = RunResults.from_scores(["q3", "q2", "q1", "q4"], [1, 0, 1, 0], name="old")
>>> report = compare_runs(new, old)
>>> report.table.b, report.table.c, report.names
(2, 1, ('new', 'old'))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

from mcnemar.errors import McNemarError, option

if TYPE_CHECKING:
    from mcnemar.io import Alignment, RunResults
    from mcnemar.report import Report
    from mcnemar.tasks import TaskComparison

__all__ = [
    "PAIRING_OPTIONS",
    "analyze_alignment",
    "choose_analysis",
    "compare_runs",
    "display_names",
    "pair_many",
    "pair_runs",
    "read_runs",
]



def read_runs(
    paths: Sequence[str | Path],
    *,
    format: str = "auto",
    truth: str | Path | None = None,
    label: str | None = None,
    prediction: str | None = None,
    run_column: str | None = None,
    runs: Sequence[str] | None = None,
    options_a: dict[str, Any] | None = None,
    options_b: dict[str, Any] | None = None,
    **reader_options: Any,
) -> tuple[RunResults, RunResults]:
    """Read the two runs of a comparison, candidate (A) first.

    Parameters
    ----------
    paths : sequence of str or Path
        Two run files (A, B); two prediction files with ``truth``; one long file with
        ``run_column``.
    format : str, default "auto"
        Format of the files (:data:`mcnemar.io.FORMATS`); detected from content by default.
    truth : str or Path, optional
        A file of true labels (id, label): ``paths`` are then prediction files, each scored
        against it (:func:`mcnemar.io.predictions.score_predictions`).
    label, prediction : str, optional
        With ``truth``: the true-label and predicted-label columns.
    run_column : str, optional
        The column telling the runs apart in one long CSV/JSONL/Parquet file.
    runs : sequence of two str, optional
        With ``run_column``: the two runs to compare, A first (needed when it holds more).
        Without it, for one file of a format that holds several runs itself (promptfoo's
        providers): the two runs, each read with ``run=``.
    options_a, options_b : dict, optional
        Reader options for one side only (e.g. its own ``id`` or ``score``), over
        ``reader_options``.
    **reader_options
        Options for both readers (``id``, ``score``, ``filter``, ``value_key``,
        ``perturbation``, ``sample``, ``cluster``, ``task``, ``limits``, ``progress``; see
        :func:`mcnemar.io.read_run`). ``None`` values are dropped.

    Returns
    -------
    (RunResults, RunResults)
        A and B, ready for :func:`pair_runs`.
    """
    from mcnemar.io import read_long, read_pair, read_run
    from mcnemar.io._registry import spec
    from mcnemar.io.detect import detect_format

    given = {k: v for k, v in reader_options.items() if v is not None}
    paths = list(paths)
    if truth is not None:
        if options_a or options_b:
            raise McNemarError(f"per-file options do not apply with {option('truth')}; give "
                               f"{option('id')}, {option('label')} and {option('prediction')}")
        if len(paths) != 2:
            raise McNemarError(f"{option('truth')} needs two prediction files (A, B); got "
                               f"{len(paths)} file(s)")
        from mcnemar.io.predictions import score_predictions

        scored = [score_predictions(truth, path, id=given.get("id"), label=label,
                                    prediction=prediction, progress=given.get("progress"))
                  for path in paths]
        return scored[0], scored[1]
    if run_column is not None:
        if options_a or options_b or given.get("task"):
            raise McNemarError(f"per-file options and {option('task')} do not apply with "
                               f"{option('run_column')} (one file, the same columns)")
        if len(paths) != 1:
            raise McNemarError(f"{option('run_column')} reads two runs from one long file; got "
                               f"{len(paths)} files")
        from mcnemar.io._dispatch import format_of
        from mcnemar.io._objects import describe, is_path

        fmt = format_of(paths[0], format)
        where = paths[0] if is_path(paths[0]) else describe(paths[0])
        if not spec(fmt).long:
            raise McNemarError(f"{option('run_column')} applies to CSV, JSONL or Parquet files "
                               f"and data frames; {where} is {fmt}")
        # A long file's reader gets the options it takes; the others belong to harness logs.
        long_options = spec(fmt).given({k: v for k, v in given.items() if k != "run"})
        found = read_long(paths[0], format=fmt, run_column=run_column,
                          runs=list(runs) if runs else None, **long_options)
        if len(found) != 2:
            held = ", ".join(r.name for r in found)
            raise McNemarError(f"{where}: column {run_column!r} holds {len(found)} runs "
                               f"({held}); choose two with {option('runs', 'A,B')}")
        return found[0], found[1]
    from mcnemar.tasks import combine_tasks, read_suite_pair, splits_into_tasks

    # Suites of one run per task (a directory of Inspect logs, a HELM suite with --runs) are
    # one run per side holding every task, as an lm-eval directory is.
    suites = read_suite_pair(paths, runs=runs, format=format, options_a=options_a,
                             options_b=options_b, **given)
    if suites is not None:
        return (combine_tasks(suites[0], paths[0]),
                combine_tasks(suites[1], paths[-1]))
    if runs is not None:
        fmt = detect_format(paths[0]) if len(paths) == 1 and format == "auto" else format
        if len(paths) != 1 or fmt == "auto" or not spec(fmt).several_runs:
            raise McNemarError(f"{option('runs')} needs {option('run_column')}, or one file of "
                               "a format that holds several runs itself (promptfoo)")
        pair = list(runs)
        if len(pair) != 2:
            raise McNemarError(f"{option('runs', 'A,B')} names two runs; got {len(pair)}")
        sides = [{**given, **(extra or {})} for extra in (options_a, options_b)]
        read = [read_run(paths[0], format=fmt, run=pair[i], **sides[i]) for i in (0, 1)]
        return read[0], read[1]
    if len(paths) != 2:
        hint = ""
        if len(paths) == 1 and splits_into_tasks(paths[0]):
            hint = (f"; {paths[0]} is a suite of several runs: name the two to compare with "
                    f"{option('runs', 'A,B')}")
        raise McNemarError(f"a comparison takes two run files (A, B); got {len(paths)}{hint}")
    sides = [{**given, **(extra or {})} for extra in (options_a, options_b)]
    return read_pair(paths[0], paths[1], format=format, options_a=sides[0], options_b=sides[1])


def pair_runs(
    run_a: RunResults, run_b: RunResults, *, progress: bool | None = None, **align_options: Any
) -> Alignment:
    """Check that the runs are of the same task and scorer, and pair their items.

    The checks and the pairing are :func:`mcnemar.io.align`'s, with its keywords and defaults
    (``on_missing``, ``threshold``, ``reduce``, ``engine``, ``allow_different_tasks``,
    ``allow_different_scorers``); ``progress`` shows an activity line on stderr when the
    pairing takes over a second.
    """
    from mcnemar.io import align
    from mcnemar.io._progress import activity

    with activity("aligning", enabled=progress):
        return align(run_a, run_b, **align_options)


def pair_many(
    paths: Sequence[str | Path],
    *,
    score: str | None = None,
    format: str = "auto",
    **align_options: Any,
) -> tuple[list[str], Any]:
    """Read K runs and pair their items: the K x N outcome matrix of many-model comparisons.

    Each file is read with :func:`mcnemar.io.read_run` and the runs are paired by
    :func:`mcnemar.io.align_many` (its keywords: ``on_missing``, ``threshold``, ``reduce``,
    ``allow_different_tasks``, ``allow_different_scorers``; the same identity checks as for
    two runs, every two runs). Differences let through by ``allow_different_*`` are
    :class:`~mcnemar.errors.McNemarWarning` warnings.

    Returns
    -------
    names : list of str
        One per run: the run's name, or its file's stem; names that repeat get their path.
    correct : numpy.ndarray
        K x N int8, 1 where run k passed item n (for :func:`mcnemar.multiple.pairwise`).
    """
    from mcnemar.io import align_many, read_run

    runs = [read_run(p, format=format, score=score) if score is not None
            else read_run(p, format=format) for p in paths]
    _, correct = align_many(runs, **align_options)
    names = [str(run.name) if run.name else Path(path).stem
             for path, run in zip(paths, runs, strict=True)]
    return _told_apart(names, [Path(p) for p in paths]), correct


def _told_apart(names: list[str], paths: list[Path]) -> list[str]:
    """``names``, each that repeats followed by the shortest end of its path that tells it
    from the others of that name (``model (a/log.eval)``), not the whole path.

    >>> _told_apart(["m", "m", "x"], [Path("/r/a/log.eval"), Path("/r/b/log.eval"), Path("x")])
    ['m (a/log.eval)', 'm (b/log.eval)', 'x']
    """
    out = list(names)
    for name in set(names):
        same = [i for i, n in enumerate(names) if n == name]
        if len(same) < 2:
            continue
        depth = 1
        while depth < max(len(paths[i].parts) for i in same):
            ends = [Path(*paths[i].parts[-depth:]) for i in same]
            if len(set(ends)) == len(ends):
                break
            depth += 1
        for i in same:
            out[i] = f"{name} ({Path(*paths[i].parts[-depth:])})"
    return out


def display_names(
    alignment: Alignment, names: Sequence[str] | None = None
) -> tuple[str, str]:
    """The names a report uses: ``names`` if given, else the runs' names, told apart.

    Two runs of one model get " (A)" and " (B)" appended, so no sentence reads "m is better
    than m" (:meth:`mcnemar.io.Alignment.display_names`).
    """
    return alignment.display_names(names)


def analyze_alignment(
    alignment: Alignment,
    *,
    names: Sequence[str] | None = None,
    cluster_method: str = "obuchowski",
    flips: int | None = None,
    show_flips: bool | None = None,
    **analyze_options: Any,
) -> Report:
    """The report of a pairing, clustered when the alignment carries clusters.

    Parameters
    ----------
    alignment : Alignment
        From :func:`pair_runs` (or :func:`mcnemar.io.align`).
    names : two str, optional
        Display names of A and B (default: the runs' names, see :func:`display_names`).
    cluster_method : str, default "obuchowski"
        The clustered test (:data:`mcnemar.clustering.CLUSTERED_METHODS`) used when the items
        come in clusters (a cluster field was read, or samples were kept as clusters).
    flips : int, optional
        How many items of each side the JSON lists of the items that flipped
        (``report.flips``, :meth:`mcnemar.io.Alignment.flips`; default 20, the counts are
        always there); given, the text and markdown list them too.
    show_flips : bool, optional
        Whether the text and markdown list the flips (default: when ``flips`` is given).
    **analyze_options
        :func:`mcnemar.report.analyze`'s options (``alternative``, ``confidence_level``,
        ``alpha``, ``margin``, ``equivalence``, ``margin_method``, ``bayes``, ``power``).
    """
    from mcnemar.report import analyze

    clustered = None
    if alignment.clusters is not None:
        if alignment.correct_a is None or alignment.correct_b is None:
            raise McNemarError(
                "the clustered analysis needs the per-item outcomes, which are not kept for "
                "files counted inside the engine; convert the runs to smaller files or use "
                "mcnemar.clustering.clustered on per-cluster counts"
            )
        from mcnemar.clustering import clustered_from_outcomes

        clustered = clustered_from_outcomes(alignment.correct_a, alignment.correct_b,
                                            alignment.clusters, method=cluster_method)
    report = analyze(alignment.table, names=display_names(alignment, names),
                     alignment=alignment, clustered=clustered, **analyze_options)
    if report.flips is None or (flips is None and not show_flips):
        return report
    shown = flips is not None if show_flips is None else bool(show_flips)
    return replace(report, flips=report.flips.listing(flips, shown=shown))


#: The keywords of :func:`compare_runs` that belong to the pairing (:func:`mcnemar.io.align`).
PAIRING_OPTIONS = ("on_missing", "threshold", "reduce", "engine", "allow_different_tasks",
                   "allow_different_scorers")


@overload
def compare_runs(
    run_a: Any, run_b: Any, *, names: Sequence[str] | None = ...,
    cluster_method: str = ..., progress: bool | None = ..., by_task: Literal[False] = ...,
    **options: Any,
) -> Report: ...


@overload
def compare_runs(
    run_a: Any, run_b: Any, *, names: Sequence[str] | None = ..., cluster_method: str = ...,
    progress: bool | None = ..., by_task: Literal[True], **options: Any,
) -> TaskComparison: ...


def compare_runs(
    run_a: Any,
    run_b: Any,
    *,
    names: Sequence[str] | None = None,
    cluster_method: str = "obuchowski",
    progress: bool | None = None,
    by_task: bool = False,
    analysis: str | None = None,
    **options: Any,
) -> Report | TaskComparison:
    """Pair two runs and analyse them: :func:`pair_runs` then :func:`analyze_alignment`.

    Parameters
    ----------
    run_a, run_b : RunResults, or what :func:`mcnemar.io.read_run` reads
        The candidate (A) and the baseline (B), e.g. from :func:`read_runs`; or the harness's
        own objects in memory (an Inspect ``EvalLog``, lm-eval's ``simple_evaluate`` results,
        a data frame), read with :func:`mcnemar.io.read_pair` and no reader options (read
        them with :func:`mcnemar.io.read_run` for a scorer, filter...).
    names, cluster_method
        As for :func:`analyze_alignment`.
    progress : bool, optional
        An activity line on stderr while pairing takes long (default: when stderr is a
        terminal).
    **options
        The pairing's keywords (:data:`PAIRING_OPTIONS`, see :func:`mcnemar.io.align`), the
        analysis' (:func:`mcnemar.report.analyze`) and ``flips``, ``show_flips`` (how the
        items that flipped are listed, see :func:`analyze_alignment`).

    by_task : bool, default False
        Compare task by task instead (:func:`mcnemar.tasks.compare_tasks`, which takes
        ``adjust``, ``task``, ``task_column`` and ``headline`` besides the pairing's and the
        tests' keywords): the runs may then also be sequences of runs, one per task
        (:func:`mcnemar.tasks.read_suite_pair`), or lists of the harness's objects, one per
        task (a list of Inspect ``EvalLog``, as a directory of logs is read).
    analysis : {None, "scores", "pass-fail"}
        ``"scores"``: the paired comparison of the scores themselves
        (:func:`mcnemar.scores.compare_scores`, per task
        :func:`mcnemar.scores.compare_score_tasks`); ``"pass-fail"``: McNemar's analysis of
        pass/fail. ``None`` chooses the scores when some score is not 0/1 and no ``threshold``
        turns them into pass/fail.

    Returns
    -------
    Report or TaskComparison
        The report, with the alignment attached (``report.alignment``) and, when the items
        come in clusters, the clustered analysis as the recommended one; with ``by_task``
        the per-task result.
    """
    run_a, run_b = _as_runs(run_a, run_b, by_task=by_task)
    if choose_analysis(run_a, run_b, analysis, options.get("threshold")) == "scores":
        from mcnemar.scores import compare_score_tasks, compare_scores

        if by_task:
            return compare_score_tasks(run_a, run_b, names=names, **options)  # type: ignore[return-value]
        return compare_scores(run_a, run_b, names=names, **options)  # type: ignore[return-value]
    if by_task:
        from mcnemar.tasks import compare_tasks

        extra = sorted(k for k, v in options.items() if v not in (None, False) and k in
                       ("margin", "equivalence", "bayes", "power", "engine"))
        if extra:
            raise McNemarError(f"{', '.join(option(k) for k in extra)} do(es) not apply to the "
                               "per-task comparison; compare one task at a time for them")
        for k in ("margin", "equivalence", "bayes", "power", "engine", "margin_method"):
            options.pop(k, None)
        return compare_tasks(run_a, run_b, names=None if names is None else
                             (str(names[0]), str(names[1])), cluster_method=cluster_method,
                             **options)
    pairing = {k: options.pop(k) for k in PAIRING_OPTIONS if k in options}
    alignment = pair_runs(run_a, run_b, progress=progress, **pairing)
    return analyze_alignment(alignment, names=names, cluster_method=cluster_method, **options)


def _as_runs(run_a: Any, run_b: Any, *, by_task: bool) -> tuple[Any, Any]:
    """The two sides of :func:`compare_runs` as runs: RunResults (or, by task, sequences of
    them) as they are, anything else read as :func:`mcnemar.io.read_run` reads it (objects in
    memory; by task, a list of them is one run per task, as :func:`mcnemar.tasks.read_suite`
    reads a directory of logs)."""
    from mcnemar.io import RunResults, read_pair

    def unread(side: Any) -> bool:
        if isinstance(side, RunResults):
            return False
        return not (by_task and isinstance(side, Sequence) and not isinstance(side, str)
                    and all(isinstance(r, RunResults) for r in side))

    if not (unread(run_a) or unread(run_b)):
        return run_a, run_b
    from mcnemar.tasks import combine_tasks, read_suite

    if by_task:
        return (read_suite(run_a) if unread(run_a) else run_a,
                read_suite(run_b) if unread(run_b) else run_b)
    from mcnemar.io._objects import describe

    # A list of runs (one per task) is one run holding every task, as a directory of logs is.
    sides = [combine_tasks(read_suite(side), describe(side))
             if isinstance(side, list | tuple) else side for side in (run_a, run_b)]
    return read_pair(sides[0], sides[1])


def choose_analysis(run_a: Any, run_b: Any, analysis: str | None, threshold: Any) -> str:
    """The analysis to run: the one asked for, else the scores' when some score is not 0/1
    and no threshold turns them into pass/fail (runs counted inside an engine stay pass/fail)."""
    from mcnemar import vocabulary
    from mcnemar.validation import check_choice

    if analysis is not None:
        chosen = check_choice(analysis, "analysis", vocabulary.ANALYSES)
        if chosen == "scores" and threshold is not None:
            raise McNemarError(f"{option('threshold')} turns the scores into pass/fail; it does "
                               f"not go with {option('analysis', 'scores')}")
        return chosen
    if threshold is not None:
        return "pass-fail"
    from mcnemar.scores import graded

    return "scores" if graded(run_a) or graded(run_b) else "pass-fail"
