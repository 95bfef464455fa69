"""``mcnemar compare``: align two runs' per-item results and print the paired report.

The command only translates: files -> :func:`mcnemar.io.read_run` -> :func:`mcnemar.io.align`
-> :func:`mcnemar.report.analyze` -> text, markdown, JSON or what a GitHub Actions step needs
(``--format github``, :mod:`mcnemar.cli._github`); ``--flips`` lists the items that flipped
and ``--flips-out`` writes them all to a file. Exit codes are
:class:`~mcnemar.cli._common.ExitCode`: 0 OK, 2 bad input (including runs that cannot be
paired), 3 with ``--fail-on worse`` when the candidate is significantly worse, 4 with
``--fail-on different`` when the two differ significantly, 5 with ``--fail-on inferior`` when
non-inferiority by ``--margin`` is not shown.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import click

from mcnemar import vocabulary
from mcnemar.cli._common import ExitCode, command, emit, handle_errors
from mcnemar.cli._groups import packs
from mcnemar.cli._options import (
    BAYES_OPTIONS,
    MARGIN_OPTIONS,
    InputFormatChoice,
    alpha_option,
    alternative_option,
    confidence_level_option,
    format_option,
    identity_options,
    names_option,
    split_pair,
)
from mcnemar.errors import McNemarError

__all__ = ["compare"]



#: Library arguments whose flag here is not "--" + the argument (the rest are found by
#: handle_errors from the command's own options).
_FLAGS = {"format": "--input-format", "limits": "--max-inflated-mb MB", "model": "--runs",
          "max_parsed_bytes": "--max-parsed-mb MB"}

_NO_RUNS = ("compare takes two run files RUN_A RUN_B (for prediction files, add the true "
            "labels with --truth LABELS); see 'mcnemar compare --help'")


def _extras_named(func: Any) -> Any:
    """A reader whose optional dependency is missing names the extra to install."""
    import functools

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except ImportError as exc:
            from mcnemar.io._run import missing_dependency

            raise missing_dependency(exc, what="this input") from None

    return wrapper


#: ``--format``: the command line's formats, and ``github`` (a GitHub Actions step).
FORMAT_OPTION = format_option(
    vocabulary.COMPARE_FORMATS,
    "Output format: a readable report, markdown (e.g. for a pull-request comment), JSON, "
    "or github: for a GitHub Actions step, the markdown report appended to "
    "$GITHUB_STEP_SUMMARY, verdict, difference, low, high, pvalue, worse-tasks and gate in "
    "$GITHUB_OUTPUT, and the text report with ::error/::warning annotations on stdout.",
)


def FLIPS_OPTIONS(func: Any) -> Any:
    """``--flips N`` and ``--flips-out FILE``: the items that flipped (of scores: the items
    scored differently, the largest differences first)."""
    func = click.option(
        "--flips-out", "flips_out", type=click.Path(dir_okay=False), default=None,
        metavar="FILE",
        help="Write every item that flipped, with all its fields (side, id, task, the two "
             "scores, of scores their difference, the content the logs record), to FILE "
             "(.csv or .jsonl).",
    )(func)
    return click.option(
        "--flips", "flips", type=click.IntRange(min=0), default=None, metavar="N",
        help="List the first N items of each side that flipped (A right and B wrong, and the "
             "reverse; of scores, the items A scored higher and those B scored higher, the "
             "largest differences first) in the text and markdown reports, and in the JSON "
             "(which lists 20 without it; the counts are always there).",
    )(func)


def _emit(result: Any, fmt: str, failure: str | None, flips_out: str | None) -> None:
    """Write the flips file, then the output in ``fmt``."""
    if flips_out is not None and result.flips is not None:
        result.flips.write(flips_out, argument="flips_out")
    if fmt.lower() == "github":
        from mcnemar.cli._github import emit_github

        emit_github(result, failure=failure)
    else:
        emit(result, fmt)


def _fail(gate: tuple[ExitCode, str] | None) -> None:
    """Exit with the failed gate's code, its message on stderr."""
    if gate is not None:
        click.echo(f"mcnemar: {gate[1]}", err=True)
        sys.exit(gate[0])


def _ids(columns: tuple[str, ...]) -> Any:
    if not columns:
        return None
    return columns[0] if len(columns) == 1 else list(columns)


@dataclass(frozen=True, slots=True)
class Reading:
    """How the two runs are read: the files' format, ids, scores, tasks and readers' options."""

    truth: str | None
    input_format: str
    id_columns: tuple[str, ...]
    score: str | None
    id_a: tuple[str, ...]
    id_b: tuple[str, ...]
    score_a: str | None
    score_b: str | None
    tasks: tuple[str, ...]
    task_column: str | None
    max_inflated_mb: float | None
    max_parsed_mb: float | None
    run_column: str | None
    run_values: str | None
    filter_name: str | None
    value_key: str | None
    perturbation: str | None
    on_error: str | None
    sample: str | None
    cluster: str | None
    label_column: str | None
    prediction_column: str | None
    progress: bool | None

    def check(self, runs: tuple[str, ...]) -> None:
        """Refuse combinations of flags that cannot both apply."""
        for per_side, flag, plain in ((self.id_a, "--id-a", "--id"),
                                      (self.id_b, "--id-b", "--id"),
                                      (self.score_a, "--score-a", "--score"),
                                      (self.score_b, "--score-b", "--score")):
            if per_side and (self.id_columns if plain == "--id" else self.score):
                raise McNemarError(f"{flag} and {plain} both given; use {plain} for both files "
                                   f"or {flag} and its pair for each file")
        if (self.id_a or self.id_b or self.score_a or self.score_b) and self.truth is not None:
            raise McNemarError("--id-a/--id-b and --score-a/--score-b do not apply with "
                               "--truth; use --id, --label and --prediction")
        if not runs and self.truth is None and self.run_column is None:
            raise McNemarError(_NO_RUNS)

    def limits(self) -> Any:
        """The read limits asked for with --max-inflated-mb / --max-parsed-mb, or None."""
        if self.max_inflated_mb is None and self.max_parsed_mb is None:
            return None
        from mcnemar.io._archive import DEFAULT_LIMITS, ReadLimits

        return ReadLimits(
            max_inflated_bytes=DEFAULT_LIMITS.max_inflated_bytes if self.max_inflated_mb is None
            else max(1, int(self.max_inflated_mb * 1024**2)),
            max_parsed_bytes=DEFAULT_LIMITS.max_parsed_bytes if self.max_parsed_mb is None
            else max(1, int(self.max_parsed_mb * 1024**2)))

    def sides(self) -> list[dict[str, Any]]:
        """Each side's own id and score options (--id-a/--score-a, --id-b/--score-b)."""
        return [{k: v for k, v in (("id", _ids(side_ids)), ("score", side_score)) if v}
                for side_ids, side_score in ((self.id_a, self.score_a),
                                             (self.id_b, self.score_b))]


@dataclass(frozen=True, slots=True)
class Pairing:
    """How the items of the two runs are paired, and the names of the two sides."""

    on_missing: str
    threshold: float | None
    reduce: str | None
    allow_different_tasks: bool
    allow_different_scorers: bool
    cluster_method: str
    names: str | None


@dataclass(frozen=True, slots=True)
class Analysis:
    """What is computed and decided: the analysis, the levels, margins, Bayes, the gate."""

    analysis: str | None
    by_task: bool
    adjust: str | None
    alternative: str
    alpha: float
    confidence_level: float
    fail_on: str | None
    margin: float | None
    equivalence: bool
    margin_method: str
    bayes: bool
    rope: float


@dataclass(frozen=True, slots=True)
class Output:
    """What is written: the format, the flips listed and their file, the forest plot."""

    fmt: str
    flips: int | None
    flips_out: str | None
    plot_path: str | None


@command(
    "compare",
    """\b
Examples:
  mcnemar compare samples_new.jsonl samples_old.jsonl
  mcnemar compare out_new/ out_old/ --task arc_easy --task boolq
  mcnemar compare new.eval old.eval --score match --reduce majority
  mcnemar compare results.csv --run-column model --runs new,old --format markdown
  mcnemar compare --truth labels.csv pred_new.csv pred_old.csv
  mcnemar compare new.parquet old.parquet --id item --score passed --fail-on worse
  mcnemar compare distilled.jsonl original.jsonl --margin 0.01 --fail-on inferior
  mcnemar compare out_new/ out_old/ --by-task --fail-on worse-any --plot forest.png
  mcnemar compare runs/suite/ --by-task --runs org/model-a,org/model-b
  mcnemar compare results.csv --run-column model --task-column subject --id question
  mcnemar compare new.eval old.eval --flips 10 --flips-out flips.csv
  mcnemar compare new.eval old.eval --fail-on worse --format github

\b
Exit codes: 0 done; 2 bad input or runs that cannot be paired (one line on
stderr); 3 with --fail-on worse when the candidate (A) is significantly worse
than the baseline (B) at --alpha (--by-task: the headline overall; worse-any: any
task after --adjust, or the overall); 4 with --fail-on different when they differ
significantly in either direction; 5 with --fail-on inferior when non-inferiority
by --margin is not shown (A may be worse than B by the margin or more); 1
internal error.""",
)
@click.argument("runs", nargs=-1, metavar="RUN_A RUN_B")
@click.option("--truth", type=click.Path(dir_okay=False),
              help="File of true labels (id, label); RUN_A RUN_B are then prediction files "
                   "(id, prediction), scored against it.")
@click.option("--input-format", "input_format", type=InputFormatChoice(), default="auto",
              show_default=True, help="Format of the run files (detected from content).")
@click.option("--id", "id_columns", multiple=True,
              help="Item id column of CSV/JSONL/Parquet files (repeat for a composite id).")
@click.option("--score",
              help="Score column (generic files), metric (lm-eval, default acc or the "
                   "task's only metric), scorer (Inspect; default the only one, or the other "
                   "run's), data field (OpenAI evals, default correct) or stat (HELM, "
                   "default exact_match).")
@click.option("--id-a", "id_a", multiple=True,
              help="Item id column of RUN_A when the two files name it differently.")
@click.option("--id-b", "id_b", multiple=True, help="Item id column of RUN_B.")
@click.option("--score-a", help="Score column / metric / scorer of RUN_A, when the two differ "
                                "(scorers that differ also need --allow-different-scorers).")
@click.option("--score-b", help="Score column / metric / scorer of RUN_B.")
@click.option("--task", "tasks", multiple=True,
              help="lm-eval: task(s) to compare from directories (repeatable; default every "
                   "task; several tasks are compared task by task with one pooled table). "
                   "Other logs: check that the log is of this task.")
@click.option("--by-task", is_flag=True, default=False,
              help="Compare task by task (lm-eval directories, a directory of Inspect logs, "
                   "a HELM suite, --task-column): per-task tests adjusted across tasks "
                   "(worst first), the pooled (micro) and mean-of-tasks (macro) overall.")
@click.option("--task-column",
              help="Generic files: the column naming each item's task (it leads the item id, "
                   "so ids may repeat across tasks); implies --by-task.")
@click.option("--adjust", type=click.Choice(vocabulary.names(vocabulary.ADJUSTMENTS)),
              default=None,
              help="--by-task: adjustment of the per-task p-values across tasks (default "
                   "holm; bh = Benjamini-Hochberg); implies --by-task.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False),
              help="--by-task: also write the forest plot of the tasks to this file (.svg "
                   "without dependencies; .png or .pdf need matplotlib); implies --by-task.")
@identity_options("", "the report warns")
@click.option("--max-inflated-mb", type=click.FloatRange(min=0, min_open=True), default=None,
              metavar="MB",
              help="Most megabytes an .eval archive may inflate to (default 2048); an archive "
                   "over it is refused.")
@click.option("--max-parsed-mb", type=click.FloatRange(min=0, min_open=True), default=None,
              metavar="MB",
              help="Most megabytes of objects parsing the run files may build, estimated "
                   "before each parse (default 8192); a denser file is refused.")
@click.option("--run-column", help="Column telling the runs apart in one long file.")
@click.option("--runs", "run_values",
              help="With --run-column: the two runs to compare, A,B; with one promptfoo "
                   "file of several providers: the two providers (label or id), A,B; with "
                   "--by-task and one HELM suite directory: the two models, A,B.")
@click.option("--filter", "filter_name", help="lm-eval: the filter to keep (e.g. strict-match).")
@click.option("--value-key", help="Inspect: key of a scorer's named values.")
@click.option("--perturbation",
              help="HELM: perturbation to keep (default none = unperturbed; all = every one).")
@click.option("--on-error", type=click.Choice(vocabulary.names(vocabulary.ON_ERROR)),
              default=None,
              help="Items the tool marks as errored (a provider error, a sample that raised): "
                   "missing = no score, reported (default; --on-missing intersect leaves them "
                   "out), fail = counted as failures.")
@click.option("--sample", help="Column numbering repeated samples of an item (generic files).")
@click.option("--cluster", help="Cluster field: a column, an Inspect metadata key, or an "
                                "lm-eval doc field.")
@click.option("--label", "label_column", help="--truth: the true-label column.")
@click.option("--prediction", "prediction_column", help="--truth: the predicted-label column.")
@click.option("--on-missing", type=click.Choice(vocabulary.names(vocabulary.ON_MISSING)),
              default="error",
              show_default=True,
              help="Items present in one run only (or without a score): refuse, or drop and "
                   "report how many.")
@click.option("--analysis", type=click.Choice(vocabulary.names(vocabulary.ANALYSES)),
              default=None,
              help="scores: compare the scores themselves (paired t, signed-rank, sign and "
                   "permutation tests; the default when some score is not 0/1 and no "
                   "--threshold is given); pass-fail: McNemar's test of pass/fail.")
@click.option("--threshold", type=float,
              help="Count score >= THRESHOLD as a pass (for scores other than 0/1); the "
                   "number binarised is reported.")
@click.option("--reduce", type=click.Choice(vocabulary.names(vocabulary.REDUCE)),
              help="Combine several samples (epochs) of an item: mean (then --threshold), "
                   "majority (ties fail) or first; or 'cluster': keep every sample and "
                   "analyse the samples of an item as a cluster. Reported.")
@click.option("--cluster-method", default="obuchowski", show_default=True,
              type=click.Choice(vocabulary.names(vocabulary.CLUSTERED_METHODS)),
              help="Clustered test used with --cluster or --reduce cluster.")
@names_option("Display names A,B (default: model names from the files).")
@alternative_option("greater: A (candidate) is more accurate than B (baseline).")
@alpha_option("Significance level of the conclusion and of --fail-on.")
@confidence_level_option("Confidence level of the intervals.")
@click.option("--fail-on", type=click.Choice(vocabulary.names(vocabulary.FAIL_ON)),
              help="Exit 3 if A is significantly worse than B (worse; --by-task: the "
                   "headline overall) or, with worse-any, on any task after adjustment or "
                   "overall (implies --by-task); 4 if they differ "
                   "significantly (different), or 5 if non-inferiority by --margin is not "
                   "shown (inferior), after printing the report.")
@MARGIN_OPTIONS
@BAYES_OPTIONS
@FLIPS_OPTIONS
@FORMAT_OPTION
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on stderr for inputs taking over a second (default: when "
                   "stderr is a terminal).")
@handle_errors(flags=_FLAGS)
@_extras_named
@packs(reading=Reading, pairing=Pairing, analysis=Analysis, output=Output)
def compare(runs: tuple[str, ...], reading: Reading, pairing: Pairing, analysis: Analysis,
            output: Output) -> None:
    """Align two runs' per-item results by item id and run McNemar's paired test.

    RUN_A is the candidate, RUN_B the baseline. Each is a result file: lm-evaluation-harness
    samples_*.jsonl, an Inspect .eval/.json log, an OpenAI evals JSONL log, HELM
    per_instance_stats.json, or a CSV/JSONL/Parquet file with an id and a score column. Items
    present in one run only, duplicated ids and repeated samples are errors unless a policy
    (--on-missing, --reduce) is chosen; the report says what each policy did. Scores other
    than 0/1 (grades, partial credit, F1) are compared as scores (paired t, signed-rank,
    sign and permutation tests; epochs on their item means) unless --threshold makes them
    pass/fail; --analysis chooses one.
    """
    if analysis.fail_on == "inferior" and analysis.margin is None:
        raise McNemarError("--fail-on inferior needs --margin (e.g. --margin 0.01 for 1 point)")
    if output.flips_out is not None:
        from mcnemar.flips import check_path

        check_path(output.flips_out, argument="flips_out")
    reading.check(runs)
    if (analysis.by_task or reading.task_column or analysis.adjust or output.plot_path
            or analysis.fail_on == "worse-any"):
        _compare_by_task(runs, reading, pairing, analysis, output)
        return
    if analysis.fail_on == "worse-any":
        raise McNemarError("--fail-on worse-any applies to --by-task")
    from mcnemar.pipeline import compare_runs, read_runs

    sides, r = reading.sides(), reading
    run_a, run_b = read_runs(
        runs, format=r.input_format, truth=r.truth, label=r.label_column,
        prediction=r.prediction_column, run_column=r.run_column,
        runs=split_pair(r.run_values, "--runs"), options_a=sides[0] or None,
        options_b=sides[1] or None, id=_ids(r.id_columns), score=r.score, filter=r.filter_name,
        value_key=r.value_key, perturbation=r.perturbation, on_error=r.on_error,
        sample=r.sample, cluster=r.cluster, task=list(r.tasks) if r.tasks else None,
        limits=r.limits(), progress=r.progress)
    report = compare_runs(
        run_a, run_b, **_pairing_kwargs(pairing), progress=r.progress,
        alternative=analysis.alternative, confidence_level=analysis.confidence_level,
        alpha=analysis.alpha, margin=analysis.margin, equivalence=analysis.equivalence,
        margin_method=analysis.margin_method, bayes=analysis.rope if analysis.bayes else None,
        flips=output.flips, analysis=analysis.analysis,
        # Runs counted inside the engine keep no items: read them whole to list the flips.
        engine="numpy" if output.flips is not None or output.flips_out is not None else "auto")
    gate = report_gate(report, analysis.fail_on, analysis.alpha)
    _emit(report, output.fmt, None if gate is None else gate[1], output.flips_out)
    _fail(gate)


def _pairing_kwargs(pairing: Pairing) -> dict[str, Any]:
    return {"on_missing": pairing.on_missing, "threshold": pairing.threshold,
            "reduce": pairing.reduce, "allow_different_tasks": pairing.allow_different_tasks,
            "allow_different_scorers": pairing.allow_different_scorers,
            "names": split_pair(pairing.names, "--names"),
            "cluster_method": pairing.cluster_method}


def report_gate(report: Any, fail_on: str | None,
                alpha: float) -> tuple[ExitCode, str] | None:
    """The exit code and message of a failed ``--fail-on`` for a report, or ``None``."""
    display = report.names
    conclusion = report.conclusion
    if fail_on == "worse" and conclusion.significant and conclusion.better == "b":
        return ExitCode.WORSE, (f"{display[0]} is significantly worse than {display[1]} at "
                                f"alpha={alpha:g} (--fail-on worse)")
    if fail_on == "different" and conclusion.significant:
        return ExitCode.DIFFERENT, (f"{display[0]} and {display[1]} differ significantly at "
                                    f"alpha={alpha:g} (--fail-on different)")
    ni = report.noninferiority
    if fail_on == "inferior" and ni is not None and not ni.noninferior:
        return ExitCode.INFERIOR, (f"non-inferiority of {display[0]} to {display[1]} by "
                                   f"{ni.margin:g} (a proportion) is not shown at "
                                   f"alpha={alpha:g} (--fail-on inferior)")
    return None


def tasks_gate(result: Any, fail_on: str | None, alpha: float,
               adjust: str) -> tuple[ExitCode, str] | None:
    """The exit code and message of a failed ``--fail-on`` for a per-task comparison."""
    a, b = result.names
    worse_tasks = [t.task for t in result.worse]
    if fail_on in ("worse", "worse-any") and result.overall_worse:
        return ExitCode.WORSE, (f"{a} is significantly worse than {b} overall "
                                f"({result.overall.headline}) at alpha={alpha:g} "
                                f"(--fail-on {fail_on})")
    if fail_on == "worse-any" and worse_tasks:
        shown = ", ".join(worse_tasks[:5]) + (", ..." if len(worse_tasks) > 5 else "")
        how = "without adjustment" if adjust == "none" else f"after {adjust} adjustment"
        return ExitCode.WORSE, (f"{a} is significantly worse than {b} on {len(worse_tasks)} "
                                f"task{'s' if len(worse_tasks) != 1 else ''} {how} "
                                f"at alpha={alpha:g}: {shown} (--fail-on worse-any)")
    p = result.headline[3]
    if fail_on == "different" and p is not None and p < alpha:
        return ExitCode.DIFFERENT, (f"{a} and {b} differ significantly overall "
                                    f"({result.overall.headline}) at alpha={alpha:g} "
                                    "(--fail-on different)")
    return None


def _compare_by_task(runs: tuple[str, ...], reading: Reading, pairing: Pairing,
                     analysis: Analysis, output: Output) -> None:
    """``--by-task``: read both sides (one run or one per task), compare task by task, print,
    draw the forest plot, and exit by ``--fail-on``."""
    from pathlib import Path

    from mcnemar.pipeline import compare_runs, read_runs
    from mcnemar.tasks import read_suite_pair

    r, plot_path = reading, output.plot_path
    if r.truth is not None:
        raise McNemarError("--by-task compares result files task by task; it does not apply "
                           "with --truth")
    if analysis.margin is not None or analysis.bayes or analysis.fail_on == "inferior":
        raise McNemarError("--margin, --bayes and --fail-on inferior do not apply to --by-task; "
                           "compare one task at a time (--task NAME without --by-task)")
    if plot_path is not None and Path(plot_path).suffix.lower() not in (".svg", ".png", ".pdf"):
        raise McNemarError(f"--plot {plot_path}: the file must end in .svg, .png or .pdf")
    if plot_path is not None and not plot_path.lower().endswith(".svg"):
        from mcnemar import plotting

        plotting._check_path(plot_path)  # a missing matplotlib refused before any work
    read_options = {"id": _ids(r.id_columns), "task_column": r.task_column,
                    "score": r.score, "filter": r.filter_name, "value_key": r.value_key,
                    "perturbation": r.perturbation, "on_error": r.on_error,
                    "sample": r.sample, "cluster": r.cluster,
                    "limits": r.limits(), "progress": r.progress}
    if r.run_column is not None:
        # read_runs gives the long file's reader only the options it takes.
        read_options["run_column"] = r.run_column
    sides = r.sides()
    pair: dict[str, Any] = {"runs": split_pair(r.run_values, "--runs"), "format": r.input_format,
                            "options_a": sides[0] or None, "options_b": sides[1] or None}
    # Directories of one run per task (Inspect logs, HELM suites) first; anything else (files,
    # lm-eval directories, one long file) as compare reads it.
    suites = read_suite_pair(runs, **pair, **read_options)
    side_a, side_b = suites if suites is not None else read_runs(runs, **pair, **read_options)
    adjust = analysis.adjust or "holm"
    alpha, fail_on, fmt = analysis.alpha, analysis.fail_on, output.fmt
    flips, flips_out = output.flips, output.flips_out
    result = compare_runs(side_a, side_b, by_task=True, task=list(r.tasks) or None,
                          task_column=r.task_column, adjust=adjust, alpha=alpha, flips=flips,
                          **_pairing_kwargs(pairing), alternative=analysis.alternative,
                          confidence_level=analysis.confidence_level,
                          analysis=analysis.analysis)
    if plot_path is not None:
        if plot_path.lower().endswith(".svg"):
            try:
                Path(plot_path).write_text(result.to_svg() + "\n", encoding="utf-8")
            except OSError as exc:
                raise McNemarError(f"--plot {plot_path}: could not write the file: "
                                   f"{exc.strerror or exc}") from None
        else:
            result.plot(plot_path)
    gate = tasks_gate(result, fail_on, alpha, adjust)
    _emit(result, fmt, None if gate is None else gate[1], flips_out)
    _fail(gate)
