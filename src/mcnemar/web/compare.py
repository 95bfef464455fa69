"""``POST /api/v1/compare``: two uploaded result files in, the paired report out.

The upload streams to a temporary directory (:func:`mcnemar.web.upload.read_multipart`, with
the per-file limit), and the files go through the library's pipeline, as on the command line:
:func:`mcnemar.pipeline.read_runs` (under the server's read budget, after the archive entries
are counted and the Parquet row groups checked), then :func:`mcnemar.pipeline.pair_runs` and
:func:`mcnemar.pipeline.analyze_alignment`, the two steps of
:func:`mcnemar.pipeline.compare_runs` (taken one by one, so that an error says whether the
pairing or the analysis refused), with the clustered analysis as the recommended one when the
files carry clusters. Files of several tasks are compared task by task
(``compare_runs(by_task=True)``), with the forest plot.

Scores that are not pass/fail (grades, partial credit, F1, the mean of epochs) are compared as
scores, as ``mcnemar compare --analysis`` decides (``analysis``: ``auto``, the default, takes
the scores' analysis when some score is not 0/1 and no ``threshold`` is given): the response
is then the score report (:meth:`mcnemar.scores.ScoreReport.to_dict`, schema
``mcnemar.scores/1``), or with several tasks the per-task comparison of scores (schema
``mcnemar.score-tasks/1``), exactly as ``mcnemar compare --format json`` writes it for the
same files, with its own ``display`` object (:func:`mcnemar.web.display.score_display`).

What the upload adds to the pipeline is only what a server needs: a 413 for a file over the
limit or an archive over the read budget, a 422 naming the file or field at fault, at most
:data:`COMPARE_CONCURRENCY` uploads worked on at once and a time limit (503), and the
temporary paths replaced by the names the user uploaded in every message. The response
lists up to :data:`WEB_FLIPS` items of each side of the flips (the items on which the runs
disagree; of scores, those each run scored higher, the largest differences first), which the
page shows, searchable.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import Response
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect

from mcnemar.errors import McNemarError
from mcnemar.web.display import with_display, with_score_display
from mcnemar.web.errors import ERROR_RESPONSES, ApiError, describe, field_for_error
from mcnemar.web.models import (
    ANALYSIS_CHOICES,
    CLUSTER_METHODS,
    INCLUDE,
    ON_ERROR,
    ON_MISSING,
    REDUCE,
    BayesOptions,
    CompareOptions,
    ErrorResponse,
    ReportResponse,
    ScoreReportResponse,
    ScoreTasksResponse,
)
from mcnemar.web.respond import json_response, map_strings, report_body
from mcnemar.web.upload import (
    MalformedUpload,
    OverBudget,
    UploadTooLarge,
    check_archive_directory,
    check_parquet_rows,
    read_multipart,
)

__all__ = [
    "COMPARE_CONCURRENCY",
    "DEFAULT_COMPARE_TIMEOUT",
    "DEFAULT_MAX_ARCHIVE_MEMBERS",
    "DEFAULT_MAX_PARSED_MB",
    "DEFAULT_MAX_UPLOAD_MB",
    "add_compare_route",
    "compare_body_schema",
    "default_inflated_mb",
]

log = logging.getLogger("mcnemar.web")

#: Default per-file upload limit, in megabytes (10**6 bytes).
DEFAULT_MAX_UPLOAD_MB = 50.0
#: Default archive budget: this many times the upload limit, but never more than
#: :data:`MAX_DEFAULT_INFLATED_MB` (real ``.eval`` logs compress about 5-15 times).
INFLATE_RATIO = 20
MAX_DEFAULT_INFLATED_MB = 256.0
#: Entries an uploaded archive may list (a 100,000-sample ``.eval`` log has about as many).
DEFAULT_MAX_ARCHIVE_MEMBERS = 100_000
#: The default memory the objects parsed from one upload may take (MB): a 50 MB result file
#: of ordinary density parses well under it, a dense 3 KB archive bomb does not.
DEFAULT_MAX_PARSED_MB = 300.0
#: Seconds the reading, alignment and analysis of one upload may take (then 503), and how
#: many uploads are worked on at once in one server process.
DEFAULT_COMPARE_TIMEOUT = 120.0
COMPARE_CONCURRENCY = 2

FILE_FIELDS = frozenset({"file_a", "file_b"})
#: Items of each side of the flips the response lists (the page shows them, searchable).
WEB_FLIPS = 100


def default_inflated_mb(max_upload_mb: float) -> float:
    """The default archive budget for an upload limit: 20 times it, at most 256 MB.

    Examples
    --------
    >>> default_inflated_mb(50), default_inflated_mb(5)
    (256.0, 100.0)
    """
    return float(min(INFLATE_RATIO * max_upload_mb, MAX_DEFAULT_INFLATED_MB))


def compare_body_schema() -> dict[str, Any]:
    """The OpenAPI request body of the upload (multipart form data); every list of choices
    is the one the request model validates against."""
    from mcnemar.web.models import ALTERNATIVES, MARGIN_METHODS

    def choice(values: tuple[str, ...], **extra: Any) -> dict[str, Any]:
        return {"type": "string", "enum": list(values), **extra}

    properties: dict[str, Any] = {
        "file_a": {
            "type": "string",
            "format": "binary",
            "description": "Per-item results of system A (the candidate).",
        },
        "file_b": {
            "type": "string",
            "format": "binary",
            "description": "Per-item results of system B (the baseline).",
        },
        "name_a": {"type": "string", "maxLength": 80,
                   "description": "Name of A; default the name file_a records (its model, or "
                   "the file name), as mcnemar compare shows it."},
        "name_b": {"type": "string", "maxLength": 80,
                   "description": "Name of B; default the name file_b records."},
        "alternative": choice(ALTERNATIVES, default="two-sided"),
        "confidence_level": {"type": "number", "default": 0.95},
        "alpha": {"type": "number", "default": 0.05},
        "format_a": {"type": "string", "default": "auto"},
        "format_b": {"type": "string", "default": "auto"},
        "on_missing": choice(
            ON_MISSING,
            default="error",
            description="Items in one file only: refuse, or drop and report.",
        ),
        "on_error": choice(
            ON_ERROR,
            default="missing",
            description="Items the tool marks as errored (a provider error, a sample that "
            "raised): no score, reported (left out with on_missing 'intersect'), or counted as "
            "failures.",
        ),
        "run_a": {
            "type": "string",
            "maxLength": 200,
            "description": "The run of file_a to read, for a file that holds several "
            "(promptfoo: a provider's label or id); the same file may be uploaded as file_b "
            "with its own run_b.",
        },
        "run_b": {"type": "string", "maxLength": 200,
                  "description": "The run of file_b to read (as run_a)."},
        "threshold": {
            "type": "number",
            "description": "Scores >= threshold pass (for scores other than 0/1): the pass/fail "
            "analysis of the scores so binarised.",
        },
        "analysis": choice(
            ANALYSIS_CHOICES,
            default="auto",
            description="'scores': the paired comparison of the scores themselves (paired t, "
            "Wilcoxon signed-rank, sign and permutation tests; the response is then the score "
            "report, schema mcnemar.scores/1, or per task mcnemar.score-tasks/1); "
            "'pass-fail': McNemar's analysis of pass/fail; 'auto': the scores' analysis when "
            "some score is not 0/1 and no threshold is given, as mcnemar compare decides.",
        ),
        "score": {
            "type": "string",
            "maxLength": 200,
            "description": "The score to read from both files: a column (CSV, JSONL, "
            "Parquet), a metric (lm-eval), a scorer (Inspect), a named score (promptfoo) or a "
            "stat (HELM); as mcnemar compare --score.",
        },
        "filter": {
            "type": "string",
            "maxLength": 200,
            "description": "lm-eval: the filter to keep (e.g. strict-match), as mcnemar "
            "compare --filter.",
        },
        "reduce": choice(
            REDUCE,
            description="How to combine several samples (epochs) of an item; 'cluster' keeps "
            "every sample and analyses the samples of an item as a cluster.",
        ),
        "cluster": {
            "type": "string",
            "maxLength": 200,
            "description": "Cluster field (a column, or an Inspect metadata key): items that "
            "share it are analysed as a cluster, and the clustered test is the recommended one.",
        },
        "task_column": {
            "type": "string",
            "maxLength": 200,
            "description": "Column naming each item's task (CSV, JSONL, Parquet): the files "
            "are compared task by task, with p-values adjusted across tasks, the pooled and the "
            "mean-of-tasks overall, and a forest plot (the response's \"tasks\" and "
            "\"forest_svg\"). Files that record several tasks are compared so by themselves.",
        },
        "cluster_method": choice(
            CLUSTER_METHODS,
            default="obuchowski",
            description="The clustered test used with cluster (or reduce 'cluster').",
        ),
        "allow_different_tasks": {
            "type": "boolean",
            "default": False,
            "description": "Pair runs of different tasks (or whose items "
            "differ in content); refused by default, warned when allowed.",
        },
        "allow_different_scorers": {
            "type": "boolean",
            "default": False,
            "description": "Pair runs scored by different scorers, metrics or "
            "filters; refused by default, warned when allowed.",
        },
        "include": {"type": "array", "items": choice(INCLUDE)},
        "margin": {
            "type": "number",
            "description": "Non-inferiority margin, a proportion (0.01 = 1 "
            "accuracy point); as in /api/v1/analyze.",
        },
        "equivalence": {"type": "boolean", "default": False},
        "margin_method": choice(MARGIN_METHODS, default="score"),
        "bayes": {
            "type": "boolean",
            "default": False,
            "description": "Add the Bayesian summary (with rope and prior).",
        },
        "rope": {
            "type": "number",
            "default": 0.005,
            "description": "With bayes: half-width of the region of "
            "practical equivalence, a proportion.",
        },
        "prior": {
            "type": "string",
            "default": "1",
            "description": "With bayes: Dirichlet pseudo-count k, or four "
            "numbers a,b,c,d separated by commas.",
        },
    }
    return {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["file_a", "file_b"],
                    "properties": properties,
                }
            }
        },
    }


#: The form's name of a library argument, where it differs (the rest are spelled alike).
_FORM_FIELDS = {"credible_level": "confidence_level", "names": "name_b", "format": "format_a",
                "run": "run_a", "runs": "run_a"}
#: Fields of the form an error may name.
_FORM_NAMES = frozenset(
    {"name_a", "name_b", "alternative", "confidence_level", "alpha", "format_a", "format_b",
     "on_missing", "on_error", "run_a", "run_b", "threshold", "reduce", "cluster",
     "cluster_method", "task_column", "analysis", "score", "filter",
     "allow_different_tasks", "allow_different_scorers", "margin", "equivalence",
     "margin_method", "bayes", "rope", "prior", "file_a", "file_b"}
)


def add_compare_route(
    app: FastAPI,
    *,
    max_file_bytes: int,
    read_limits: Any,
    compare_timeout: float,
) -> None:
    """Add ``POST /api/v1/compare`` to ``app`` (see the module's description)."""
    jobs = _Jobs(COMPARE_CONCURRENCY)

    @app.post(
        "/api/v1/compare",
        tags=["analysis"],
        summary="Align two per-item result files and return the report",
        response_model=None,
        openapi_extra={"requestBody": compare_body_schema()},
        responses={
            200: {"model": ReportResponse | ScoreReportResponse | ScoreTasksResponse,
                  "description": "The report, with its alignment: McNemar's report of "
                  "pass/fail (mcnemar.report/1), or the comparison of scores "
                  "(mcnemar.scores/1; per task mcnemar.score-tasks/1)."},
            501: {"model": ErrorResponse, "description": "File readers not installed."},
            503: {"model": ErrorResponse, "description": "Busy, or the files took too long."},
            **ERROR_RESPONSES,
        },
    )
    async def compare_files(request: Request) -> Response:
        """Upload two per-item result files (``file_a``, ``file_b``) as multipart form data.

        The files are read with :func:`mcnemar.pipeline.read_runs` (any format it knows;
        ``format_a`` and ``format_b`` override the detection), paired item by item and analysed by
        :func:`mcnemar.pipeline.compare_runs`'s steps (clustered when ``cluster`` names a
        cluster field or ``reduce`` is ``cluster``). The report's ``alignment`` says how many
        items were paired. Scores that are not 0/1 are compared as scores (``analysis``, as
        ``mcnemar compare --analysis``). Each file may be at most the server's
        ``--max-upload-mb``.
        """
        # The body's size (as declared and as it streams) and pace are checked by the guard.
        workdir = Path(tempfile.mkdtemp(prefix="mcnemar-upload-"))
        handed_over = False
        try:
            try:
                upload = await read_multipart(
                    request.headers.get("content-type", ""),
                    request.stream(),
                    workdir,
                    file_fields=FILE_FIELDS,
                    max_file_bytes=max_file_bytes,
                )
            except UploadTooLarge as exc:
                raise ApiError(413, str(exc), field=exc.field, type="too_large") from exc
            except MalformedUpload as exc:
                raise ApiError(422, str(exc), field=exc.field, type="malformed_upload") from exc
            except ClientDisconnect:
                # Nobody is left to answer: one line in the log, no traceback.
                log.warning("POST %s: the client closed the connection during the upload; "
                            "nothing was read", request.url.path)
                return Response(status_code=400)
            for name in sorted(FILE_FIELDS):
                if name not in upload.files:
                    raise ApiError(
                        422,
                        f"{name} is required: upload the per-item results of both systems "
                        "as file_a (candidate) and file_b (baseline)",
                        field=name,
                        type="missing",
                    )
            options = parse_options(upload.fields)
            if not jobs.claim():
                raise ApiError(
                    503,
                    f"the server is already reading {COMPARE_CONCURRENCY} uploads; "
                    "try again in a moment",
                    type="busy",
                )
            handed_over = True

            def job() -> Response:
                from mcnemar.io._budget import parse_budget

                # One budget for the request: both files' parsing counts against it, and
                # nothing is read where it cannot be counted.
                try:
                    with parse_budget(read_limits.max_parsed_bytes, counted=True):
                        return _compare(upload, options, workdir, read_limits)
                finally:
                    shutil.rmtree(workdir, ignore_errors=True)
                    jobs.release()

            task = asyncio.ensure_future(run_in_threadpool(job))
            task.add_done_callback(_consume)
            try:
                return await asyncio.wait_for(asyncio.shield(task), compare_timeout)
            except TimeoutError:
                log.warning("POST %s: reading the upload took longer than %g s; answered 503",
                            request.url.path, compare_timeout)
                raise ApiError(
                    503,
                    f"reading, aligning and analysing these files took longer than the "
                    f"server's limit of {compare_timeout:g} s; compare them with "
                    "`mcnemar compare` on the command line instead",
                    type="timeout",
                ) from None
        finally:
            if not handed_over:
                shutil.rmtree(workdir, ignore_errors=True)


def _read(upload: Any, options: CompareOptions, read_limits: Any, workdir: Path) -> list[Any]:
    """The two uploaded files as runs (:func:`mcnemar.pipeline.read_runs`), within the
    server's read budget; a file's error names its field (or the form's field it is about).

    With ``task_column`` the reader puts the task in front of the item id, (task, id), so
    that the same id may appear in several tasks and each item knows its task (files of one
    row per item: CSV, JSONL, Parquet).
    """
    from mcnemar.io._registry import spec
    from mcnemar.io.detect import detect_format
    from mcnemar.pipeline import read_runs

    fields = ("file_a", "file_b")
    paths = [upload.files[f] for f in fields]
    formats = []
    for field, path, fmt in zip(fields, paths, (options.format_a, options.format_b),
                                strict=True):
        with _file_errors(upload, workdir, field):
            resolved = detect_format(path) if fmt == "auto" else fmt
            # The upload's own bounds, checked before a reader opens the file.
            # By content, whichever reader takes the file (lighteval's details are Parquet).
            with open(path, "rb") as handle:
                magic = handle.read(4)
            if resolved == "inspect":
                check_archive_directory(path, read_limits.max_members)
            elif magic == b"PAR1":
                check_parquet_rows(path, read_limits.max_inflated_bytes)
        formats.append(resolved)

    column = options.task_column
    if column is not None:
        for field, fmt in zip(fields, formats, strict=True):
            if not spec(fmt).accepts("task_column"):
                raise ApiError(422, f"task_column names a column of a CSV, JSONL or Parquet "
                               f"file; {upload.filenames[field]} is {fmt}, which records its "
                               "own tasks", field="task_column")
    with _file_errors(upload, workdir, None):
        run_a, run_b = read_runs(paths, options_a={"format": formats[0], "run": options.run_a},
                                 options_b={"format": formats[1], "run": options.run_b},
                                 limits=read_limits, cluster=options.cluster,
                                 task_column=column, on_error=options.on_error,
                                 score=options.score, filter=options.filter)
    return [run_a, run_b]


@contextlib.contextmanager
def _file_errors(upload: Any, workdir: Path, field: str | None) -> Iterator[None]:
    """A reading error as the API's error: 413 for a file over the read budget, else 422
    naming the file (``field``, or the file the error names) or the form's field it is
    about (a cluster field the file lacks, a format)."""
    try:
        yield
    except McNemarError as exc:
        field = field or _file_of(exc, upload)
        if _over_budget(exc):
            message = _public_message(exc.spelled(_server_spelling), upload, workdir)
            raise ApiError(413, message, field=field, type="too_large") from exc
        named = field_for_error(exc, _FORM_NAMES, _FORM_FIELDS)
        if named in ("format_a", "format_b") and field is not None:
            # A file whose format cannot be told: the file is what the user just chose (the
            # message says that a format may be chosen).
            named = field
        raise ApiError(422, _public_message(exc.spelled(_server_spelling), upload, workdir),
                       field=named or field, type="malformed_file") from exc
    except (UnicodeDecodeError, ValueError, OSError) as exc:
        # A reader that let a low-level error escape: still a file's fault.
        what = upload.filenames[field] if field else "the files"
        message = _public_message(f"{what}: cannot be read ({exc})", upload, workdir)
        raise ApiError(422, message, field=field, type="malformed_file") from exc


def _file_of(exc: McNemarError, upload: Any) -> str | None:
    """The upload field of the file an error is about (its ``path``), if it names one."""
    path = getattr(exc, "path", None)
    if path is None:
        return None
    for field, saved in upload.files.items():
        if Path(path).resolve() == Path(saved).resolve():
            return str(field)
    return None


def _several_tasks(run: Any) -> bool:
    """Whether a run records items of several tasks (its ids carry the task)."""
    identity = run.identity
    return identity.task_part is not None and len(identity.tasks) > 1


def _compare(upload: Any, options: CompareOptions, workdir: Path, read_limits: Any) -> Response:
    try:
        from mcnemar.pipeline import analyze_alignment, pair_runs
    except ImportError as exc:  # the file readers are an optional part of the package
        raise ApiError(
            501, "this installation of mcnemar cannot read result files", type="unavailable"
        ) from exc

    def public(text: str) -> str:
        return _public_message(text, upload, workdir)

    runs = _read(upload, options, read_limits, workdir)
    names = _names(options, runs)
    analysis = _analysis(runs, options, public)
    if options.task_column is not None or any(_several_tasks(run) for run in runs):
        return _compare_tasks(runs, options, upload, workdir, names, analysis)
    if analysis == "scores":
        return _compare_scores(runs, options, public, names)
    try:
        alignment = pair_runs(
            runs[0],
            runs[1],
            on_missing=options.on_missing,
            threshold=options.threshold,
            reduce=options.reduce,
            allow_different_tasks=options.allow_different_tasks,
            allow_different_scorers=options.allow_different_scorers,
        )
    except McNemarError as exc:
        raise ApiError(422, public(str(exc)), field=field_for_error(exc, _FORM_NAMES, _FORM_FIELDS),
                       type="alignment") from exc
    kwargs = analysis_options(options, alignment.table)
    try:
        report = analyze_alignment(
            alignment,
            names=names,
            cluster_method=options.cluster_method,
            flips=WEB_FLIPS,
            show_flips=False,
            **kwargs,
        )
    except McNemarError as exc:
        raise ApiError(422, public(str(exc)), field=field_for_error(exc, _FORM_NAMES, _FORM_FIELDS),
                       type="mcnemar") from exc
    table = alignment.table
    body = report_body(report, options.include, int(table.b), int(table.c))
    return json_response(map_strings(with_display(body, options.include), public))


def _analysis(runs: list[Any], options: CompareOptions, public: Any) -> str:
    """``"scores"`` or ``"pass-fail"``: the analysis asked for, or with ``auto`` the one
    ``mcnemar compare`` chooses for these runs (:func:`mcnemar.pipeline.compare_runs`' rule:
    the scores' when some score is not 0/1 and no threshold makes them pass/fail)."""
    from mcnemar.pipeline import choose_analysis as choose

    asked = None if options.analysis == "auto" else options.analysis
    try:
        return choose(runs[0], runs[1], asked, options.threshold)
    except McNemarError as exc:
        raise ApiError(422, public(str(exc)), field=field_for_error(exc, _FORM_NAMES, _FORM_FIELDS),
                       type="mcnemar") from exc


#: Fields whose errors are the analysis' (the rest of a comparison of scores' are the pairing's).
_ANALYSIS_FIELDS = frozenset({"margin", "bayes", "equivalence", "threshold", "analysis",
                              "alpha", "confidence_level", "alternative"})


def _score_error(exc: McNemarError, public: Any) -> ApiError:
    field = field_for_error(exc, _FORM_NAMES, _FORM_FIELDS)
    kind = "mcnemar" if field in _ANALYSIS_FIELDS else "alignment"
    return ApiError(422, public(str(exc)), field=field, type=kind)


def _score_options(options: CompareOptions) -> dict[str, Any]:
    """The keywords of :func:`mcnemar.pipeline.compare_runs` for a comparison of scores, as
    ``mcnemar compare`` passes them (the options that belong to pass/fail are passed only
    when given, so that the library refuses them, naming them)."""
    kwargs: dict[str, Any] = {
        "analysis": "scores", "on_missing": options.on_missing, "reduce": options.reduce,
        "allow_different_tasks": options.allow_different_tasks,
        "allow_different_scorers": options.allow_different_scorers,
        "alternative": options.alternative, "confidence_level": options.confidence_level,
        "alpha": options.alpha, "flips": WEB_FLIPS, "show_flips": False,
    }
    if options.margin is not None:
        kwargs["margin"] = options.margin
    if options.equivalence:
        kwargs["equivalence"] = True
    if options.bayes is not None:
        kwargs["bayes"] = True
    return kwargs


def _compare_scores(runs: list[Any], options: CompareOptions, public: Any,
                    names: tuple[str, str] | None) -> Response:
    """Scores that are not pass/fail: the paired comparison of the scores
    (:func:`mcnemar.scores.compare_scores`, through :func:`mcnemar.pipeline.compare_runs`
    with ``analysis="scores"``), its ``to_dict()`` as the response, as ``mcnemar compare
    --analysis scores --format json`` writes it, with the renderings and the ``display``
    object asked for."""
    from mcnemar.pipeline import compare_runs

    try:
        report = compare_runs(runs[0], runs[1], names=names, **_score_options(options))
    except McNemarError as exc:
        raise _score_error(exc, public) from exc
    body = report_body(report, [x for x in options.include if x != "distribution"], 0, 0)
    return json_response(map_strings(with_score_display(body, report, options.include), public))


def _names(options: CompareOptions, runs: list[Any]) -> tuple[str, str] | None:
    """The names typed, each one not typed being the name its file records; ``None`` when
    neither was typed (the pipeline's own default: the runs' names, told apart)."""
    if options.name_a is None and options.name_b is None:
        return None
    return (options.name_a or str(runs[0].name), options.name_b or str(runs[1].name))


def _compare_tasks(runs: list[Any], options: CompareOptions, upload: Any,
                   workdir: Path, names: tuple[str, str] | None, analysis: str) -> Response:
    """Files of several tasks: the per-task comparison (:func:`mcnemar.tasks.compare_tasks`,
    through :func:`mcnemar.pipeline.compare_runs` with ``by_task``). The response is the
    report of all items pooled (the micro overall), with the per-task result under
    ``"tasks"`` (schema ``mcnemar.tasks/1``, whose ``"headline"`` is the answer the page leads
    with) and its forest plot as SVG (``"forest_svg"``); the markdown and text asked for are
    the comparison's, as ``compare --by-task`` prints them. Scores are compared task by task
    as scores (:func:`mcnemar.scores.compare_score_tasks`): the response is then that
    comparison (schema ``mcnemar.score-tasks/1``), as ``compare --by-task --analysis scores
    --format json`` writes it."""
    from mcnemar.pipeline import compare_runs

    def public(text: str) -> str:
        return _public_message(text, upload, workdir)

    if analysis == "scores":
        return _compare_score_tasks(runs, options, public, names)

    # The decisions beyond significance belong to one table; the pipeline refuses them
    # here, naming them.
    extra: dict[str, Any] = {}
    if options.margin is not None:
        extra["margin"] = options.margin
    if options.bayes is not None:
        extra["bayes"] = True
    try:
        comparison = compare_runs(
            runs[0], runs[1], by_task=True, task_column=options.task_column,
            on_missing=options.on_missing, threshold=options.threshold, reduce=options.reduce,
            allow_different_tasks=options.allow_different_tasks,
            allow_different_scorers=options.allow_different_scorers,
            names=names, cluster_method=options.cluster_method,
            alternative=options.alternative, confidence_level=options.confidence_level,
            alpha=options.alpha, flips=WEB_FLIPS, show_flips=False, analysis=analysis, **extra,
        )
    except McNemarError as exc:
        field = field_for_error(exc, _FORM_NAMES, _FORM_FIELDS)
        kind = "mcnemar" if field in ("margin", "bayes") else "alignment"
        raise ApiError(422, public(str(exc)), field=field, type=kind) from exc
    micro = comparison.overall.micro
    body = report_body(micro, options.include, int(micro.table.b), int(micro.table.c))
    body["tasks"] = comparison.to_dict()
    body["forest_svg"] = comparison.to_svg()
    # The renderings asked for are the comparison's (its headline first), as --by-task prints.
    if "markdown" in options.include:
        body["markdown"] = comparison.to_markdown()
    if "text" in options.include:
        body["text"] = str(comparison)
    return json_response(map_strings(with_display(body, options.include), public))


def _compare_score_tasks(runs: list[Any], options: CompareOptions, public: Any,
                         names: tuple[str, str] | None) -> Response:
    """Scores task by task (see :func:`_compare_tasks`). The margin and the Bayesian summary
    apply to one comparison and are refused, as ``compare --by-task`` refuses them."""
    from mcnemar.pipeline import compare_runs

    for field, given in (("margin", options.margin is not None),
                         ("bayes", options.bayes is not None)):
        if given:
            what = "a margin" if field == "margin" else "the Bayesian summary"
            raise ApiError(422, f"{what} applies to one comparison, not to the per-task "
                           "comparison; compare one task at a time for it", field=field,
                           type="mcnemar")
    kwargs = _score_options(options)
    try:
        comparison = compare_runs(runs[0], runs[1], by_task=True,
                                  task_column=options.task_column, names=names, **kwargs)
    except McNemarError as exc:
        raise _score_error(exc, public) from exc
    body = dict(comparison.to_dict())
    if "markdown" in options.include:
        body["markdown"] = comparison.to_markdown()
    if "text" in options.include:
        body["text"] = str(comparison)
    body = with_score_display(body, comparison, options.include)
    return json_response(map_strings(body, public))


def analysis_options(options: Any, table: Any) -> dict[str, Any]:
    """The keywords of :func:`mcnemar.report.analyze` that a request's options ask for."""
    kwargs: dict[str, Any] = {
        "alternative": options.alternative,
        "confidence_level": options.confidence_level,
        "alpha": options.alpha,
    }
    if options.margin is not None:
        kwargs["margin"] = options.margin
        kwargs["equivalence"] = options.equivalence
        kwargs["margin_method"] = options.margin_method
    if isinstance(options.bayes, BayesOptions):
        from mcnemar.bayes import bayes

        # The credible interval at the report's confidence level, as analyze(bayes=True) does.
        kwargs["bayes"] = bayes(
            table,
            rope=options.bayes.rope,
            prior=options.bayes.prior,
            credible_level=options.confidence_level,
        )
    return kwargs


class _Jobs:
    """A count of uploads being worked on, with a ceiling (thread-safe)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.running = 0
        self._lock = threading.Lock()

    def claim(self) -> bool:
        with self._lock:
            if self.running >= self.limit:
                return False
            self.running += 1
            return True

    def release(self) -> None:
        with self._lock:
            self.running -= 1


def _consume(task: asyncio.Future[Any]) -> None:
    """Retrieve the outcome of a job whose request gave up waiting (no "never retrieved")."""
    if not task.cancelled():
        task.exception()


def _server_spelling(key: str, value: str) -> str:
    """Spell the read budget as the server's own option in an error message."""
    if key == "limits":
        return "mcnemar serve --max-inflated-mb MB"
    if key == "max_parsed_bytes":
        return "mcnemar serve --max-parsed-mb MB"
    if key == "format":
        return f"the field format_a or format_b = {value}"
    return f"{key}={value}"


def _over_budget(exc: McNemarError) -> bool:
    """Whether a file was refused for the read budget (not for being malformed): by the
    upload's own checks, or by a reader whose inflated bytes passed its ``limits``."""
    return isinstance(exc, OverBudget) or bool({"limits", "max_parsed_bytes"} &
                                               set(exc.arguments))


def parse_options(fields: dict[str, list[str]]) -> CompareOptions:
    """The form's text fields as validated options (or a 422 naming the field)."""
    data: dict[str, Any] = {}
    bayes: dict[str, Any] = {}
    for name, values in fields.items():
        if name in ("rope", "prior"):
            # The form's flat fields of the Bayesian summary (JSON: "bayes": {"rope", "prior"}).
            value: Any = values[-1].strip()
            if name == "rope":
                try:
                    value = float(value)  # a numeral; anything else is refused by the check
                except ValueError:
                    pass
            if value != "":
                bayes[name] = value
        elif name == "include":
            items: list[str] = []
            for v in values:
                items.extend(s.strip() for s in v.split(",") if s.strip())
            data[name] = items
        else:
            data[name] = values[-1]
    if bayes:
        if data.get("bayes", "true").strip().lower() not in ("true", "1", "on", "yes"):
            raise ApiError(
                422,
                f"{' and '.join(sorted(bayes))} belong to the Bayesian summary: add bayes=true",
                field=sorted(bayes)[0],
            )
        data["bayes"] = bayes
    try:
        return CompareOptions.model_validate(data)
    except ValidationError as exc:
        details = [describe(dict(e)) for e in exc.errors()]
        first = details[0]
        field = first["field"]
        if field and field.startswith("bayes."):
            field = field[len("bayes."):]  # the form's own field name: rope, prior
        raise ApiError(422, first["message"], field=field, type=first["type"]) from exc


def _public_message(message: str, upload: Any, workdir: Path) -> str:
    """Replace our temporary paths with the names the user uploaded."""
    for field, path in upload.files.items():
        message = message.replace(str(path), upload.filenames[field])
    return message.replace(str(workdir) + "/", "")

