"""The calculator's ASGI application: the page, its static files and the JSON API.

==========================  =================================================================
route                       what it does
==========================  =================================================================
``GET /``                   the calculator page (plain HTML, CSS and JavaScript; no CDN)
``GET /static/...``         the page's script and style sheet (package data)
``POST /api/v1/analyze``    counts in, the report (:meth:`mcnemar.report.Report.to_dict`) out
``POST /api/v1/compare``    two per-item result files in, aligned, the report out
``GET /api/v1/health``      liveness probe
``GET /api/v1/openapi.json``  the OpenAPI schema of the above
==========================  =================================================================

The web layer only translates: request fields become a :class:`mcnemar.table.PairedTable`,
the library's :func:`mcnemar.report.analyze` does every computation, and its ``to_dict()`` is
returned unchanged (plus, when asked, the markdown/text renderings, the null distribution
for the picture and the numbers the page shows as text, :mod:`mcnemar.web.display`). Every
failure, whatever its cause, has one JSON shape::

    {"error": {"status": 422, "message": "b must be >= 0, got -1; counts cannot be negative",
               "field": "b", "errors": [{"field": "b", "message": "...", "type": "..."}]}}

Bad input is a 4xx naming the field; a 500 only ever means a bug.

Example
-------
>>> from fastapi.testclient import TestClient
>>> from mcnemar.web.app import create_app
>>> client = TestClient(create_app())
>>> r = client.post("/api/v1/analyze", json={"a": 157, "b": 17, "c": 3, "d": 23})
>>> round(r.json()["tests"]["exact"]["pvalue"], 4)
0.0026
"""

from __future__ import annotations

import contextlib
import html
import json
import logging
import threading
from collections.abc import AsyncIterator, Sequence
from importlib import resources
from typing import Annotated, Any

from fastapi import Body, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from mcnemar.errors import McNemarError
from mcnemar.web.compare import (
    DEFAULT_COMPARE_TIMEOUT,
    DEFAULT_MAX_ARCHIVE_MEMBERS,
    DEFAULT_MAX_PARSED_MB,
    DEFAULT_MAX_UPLOAD_MB,
    add_compare_route,
    analysis_options,
    default_inflated_mb,
)
from mcnemar.web.compute import (
    DEFAULT_COMPUTE_TIMEOUT,
    ComputeBusy,
    ComputeFailed,
    ComputeOverBudget,
    ComputePool,
    run_in_thread,
)
from mcnemar.web.display import max_count_text, with_display
from mcnemar.web.errors import (
    ERROR_RESPONSES,
    ERRORS_FRAMING_FIELDS,
    ApiError,
    error_response,
    field_for_error,
    validation_response,
)
from mcnemar.web.guard import (
    DEFAULT_REQUEST_TIMEOUT,
    MAX_JSON_BYTES,
    UPLOAD_PATH,
    Guard,
    same_origin,
)
from mcnemar.web.models import (
    AnalyzeRequest,
    ErrorResponse,
    ErrorsFramingRequest,
    PassesFramingRequest,
    ReportResponse,
)
from mcnemar.web.respond import json_response, report_body

__all__ = [
    "DEFAULT_MAX_UPLOAD_MB",
    "ApiError",
    "app_from_environment",
    "create_app",
    "default_inflated_mb",
    "same_origin",
]

log = logging.getLogger("mcnemar.web")


def _table_from_request(req: PassesFramingRequest | ErrorsFramingRequest) -> Any:
    from mcnemar.table import PairedTable

    a, b, c, d = req.cells()
    return PairedTable(a=a, b=b, c=c, d=d)


#: The analyze request's name of a library argument where it differs from the argument's own.
_REQUEST_FIELDS = {
    "rope": "bayes.rope", "prior": "bayes.prior", "credible_level": "confidence_level",
    "names": "name_b",
}
_COMMON_FIELDS = (
    "name_a", "name_b", "alternative", "confidence_level", "alpha", "margin", "equivalence",
    "margin_method", "bayes", "bayes.rope", "bayes.prior", "include",
)


def _library_error(exc: McNemarError, framing: str) -> ApiError:
    """A library error about this request as a 422 naming the request's field."""
    if framing == "errors":
        cells = tuple(ERRORS_FRAMING_FIELDS.values())
        renamed = {**_REQUEST_FIELDS, **ERRORS_FRAMING_FIELDS}
    else:
        cells = ("a", "b", "c", "d")
        renamed = _REQUEST_FIELDS
    field = field_for_error(exc, (*cells, *_COMMON_FIELDS), renamed)
    return ApiError(422, str(exc), field=field, type="mcnemar")


#: Every field of the JSON API, of both framings.
ALL_FIELDS = ("a", "b", "c", "d", "framing", *ERRORS_FRAMING_FIELDS.values(), *_COMMON_FIELDS)


def _analyze(table: Any, options: Any) -> Any:
    from mcnemar.report import analyze

    return analyze(
        table, names=(options.name_a, options.name_b), **analysis_options(options, table)
    )


def _api_error_response(exc: ApiError) -> JSONResponse:
    """An :class:`ApiError` in the one error shape."""
    return error_response(
        exc.status, exc.message, exc.field,
        [{"field": exc.field, "message": exc.message, "type": exc.type}],
    )


def _analyze_job(body: PassesFramingRequest | ErrorsFramingRequest) -> tuple[int, bytes]:
    """The whole answer to ``POST /api/v1/analyze`` from its validated request: the status
    and JSON body (a library error about the request is the 422 naming its field).

    A module-level function of plain values in and out, so that it can run in a worker
    process of :mod:`mcnemar.web.compute`.
    """
    try:
        table = _table_from_request(body)
        report = _analyze(table, body)
        content = report_body(report, body.include, int(table.b), int(table.c))
        response = json_response(with_display(content, body.include))
    except McNemarError as exc:
        response = _api_error_response(_library_error(exc, body.framing))
    return response.status_code, bytes(response.body)


def _load_page(max_upload_mb: float) -> str:
    """The page, with the server's settings and the vocabulary's menus written in."""
    from mcnemar import vocabulary
    from mcnemar.validation import MAX_COUNT

    template = resources.files("mcnemar.web").joinpath("templates/index.html").read_text("utf-8")
    values = {
        "version": _version(),
        "max_upload_mb": f"{max_upload_mb:g}",
        "max_count": str(MAX_COUNT),
        "max_count_text": max_count_text(),
        # The menus list the vocabulary's choices, with its labels.
        "alternative_options": _options(vocabulary.ALTERNATIVES, indent=14),
        "margin_method_options": _options(vocabulary.MARGIN_METHODS, indent=14),
        "reduce_options": _options(vocabulary.REDUCE, indent=16),
        "cluster_method_options": _options(vocabulary.CLUSTERED_METHODS, indent=16),
    }
    for key, value in values.items():
        template = template.replace("{{" + key + "}}", value)
    return template


def _options(terms: Any, indent: int) -> str:
    """``<option>`` elements of a menu: each term's name as the value, its label shown."""
    pad = " " * indent
    return "\n".join(
        f'{pad}<option value="{html.escape(t.name)}">{html.escape(t.label)}</option>'
        for t in terms
    )


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("mcnemar")
    except Exception:
        return ""


#: What a compute worker imports before it takes jobs: the report imports scipy, the planning
#: and the margin and Bayes modules only when a table needs them (so that the command line
#: starts fast), and a first request must not pay for those imports inside its time budget.
_WARM = ("mcnemar.web.app", "mcnemar.report", "scipy.special", "mcnemar.planning",
         "mcnemar.margin", "mcnemar.bayes", "mcnemar.intervals")


class _ResponseCache:
    """A small thread-safe LRU of response bodies, keyed by the validated request.

    The report is a pure function of the request, and one analysis costs tens of
    milliseconds (intervals by root finding, the power solve), while a page being typed into,
    a shared link opened by several people or a dashboard polling the same table repeats the
    same requests.
    """

    def __init__(self, size: int) -> None:
        from cachetools import LRUCache

        self.size = size
        self._data: LRUCache[str, bytes] | None = LRUCache(size) if size > 0 else None
        # The cache is shared by the server's threads; LRUCache itself is not thread-safe.
        self._lock = threading.Lock()

    def get(self, key: str) -> bytes | None:
        if self._data is None:
            return None
        with self._lock:
            value: bytes | None = self._data.get(key)
            return value

    def put(self, key: str, value: bytes) -> None:
        if self._data is None:
            return
        with self._lock:
            self._data[key] = value

# ----------------------------------------------------------------------------- the app

_PAGE_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)


def create_app(
    *,
    max_upload_mb: float = DEFAULT_MAX_UPLOAD_MB,
    allowed_hosts: Sequence[str] | None = None,
    cache_size: int = 512,
    max_inflated_mb: float | None = None,
    max_archive_members: int = DEFAULT_MAX_ARCHIVE_MEMBERS,
    max_parsed_mb: float = DEFAULT_MAX_PARSED_MB,
    max_json_bytes: int = MAX_JSON_BYTES,
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
    compare_timeout: float = DEFAULT_COMPARE_TIMEOUT,
    compute_timeout: float = DEFAULT_COMPUTE_TIMEOUT,
    compute_processes: int = 0,
) -> Any:
    """Build the calculator's FastAPI application.

    Parameters
    ----------
    max_upload_mb : float, default 50
        Per-file limit of ``POST /api/v1/compare``, in megabytes (10**6 bytes). It is
        enforced while the upload streams in.
    allowed_hosts : sequence of str, optional
        Host names the server answers to (e.g. ``["127.0.0.1", "localhost"]``); any other
        ``Host`` header gets a 400. ``None`` accepts any host (tests, reverse proxies).
    cache_size : int, default 512
        How many ``/api/v1/analyze`` responses to keep for repeated requests (0: none).
    max_inflated_mb : float, optional
        Budget for decompressing one uploaded archive (an Inspect ``.eval``), in MB, counted
        from the bytes actually inflated; default :func:`default_inflated_mb` (20 times
        ``max_upload_mb``, at most 256).
    max_archive_members : int, default 100000
        Entries an uploaded archive may list (counted in its central directory before it is
        opened).
    max_parsed_mb : float, default 300
        Memory, in MB, that the objects parsed from one upload's two files may take together,
        estimated before each parse (:mod:`mcnemar.io._budget`); a denser upload is a 413.
    max_json_bytes : int, default 65536
        Body limit of every endpoint but the upload.
    request_timeout : float, default 10
        Seconds a request body may pause (see :class:`mcnemar.web.guard.Guard`).
    compare_timeout : float, default 120
        Seconds an upload's reading, alignment and analysis may take before the answer is
        a 503; at most :data:`COMPARE_CONCURRENCY` run at once per process.
    compute_timeout : float, default 10
        Seconds the analysis of one ``/api/v1/analyze`` request may compute, and wait for a
        free worker, before the answer is a 503 (:mod:`mcnemar.web.compute`).
    compute_processes : int, default 0
        Worker processes that compute the analyses, away from the event loop; one over the
        budget is killed and replaced. 0 computes in the server's threads (a request over the
        budget is still a 503, but its computation runs on); ``mcnemar serve`` uses
        :data:`~mcnemar.web.compute.DEFAULT_COMPUTE_PROCESSES`.

    Returns
    -------
    fastapi.FastAPI
        The ASGI application (serve it with uvicorn, or ``mcnemar serve``).

    Examples
    --------
    >>> from fastapi.testclient import TestClient
    >>> client = TestClient(create_app())
    >>> client.post("/api/v1/analyze", json={"b": 0, "c": 0}).json()["tests"]["exact"]["pvalue"]
    1.0
    """
    if not (isinstance(max_upload_mb, int | float) and max_upload_mb > 0):
        raise McNemarError(
            f"max_upload_mb must be a positive number of megabytes; got {max_upload_mb!r}"
        )
    max_file_bytes = int(max_upload_mb * 1_000_000)
    if max_inflated_mb is None:
        max_inflated_mb = default_inflated_mb(max_upload_mb)
    for name, value in (("max_inflated_mb", max_inflated_mb), ("max_parsed_mb", max_parsed_mb),
                        ("request_timeout", request_timeout),
                        ("compare_timeout", compare_timeout), ("max_json_bytes", max_json_bytes),
                        ("max_archive_members", max_archive_members),
                        ("compute_timeout", compute_timeout)):
        if not (isinstance(value, int | float) and value > 0):
            raise McNemarError(f"{name} must be a positive number; got {value!r}")
    if not (isinstance(compute_processes, int) and compute_processes >= 0):
        raise McNemarError(f"compute_processes must be a whole number >= 0; got "
                           f"{compute_processes!r}")
    budget = float(compute_timeout)
    # The analyses compute in worker processes (started with the application, stopped with
    # it), or in the server's threads.
    pool = (ComputePool(compute_processes, budget, warm=_WARM) if compute_processes else None)

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        if pool is not None:
            pool.start()
        try:
            yield
        finally:
            if pool is not None:
                pool.close()

    async def compute(body: Any) -> tuple[int, bytes]:
        if pool is None:
            answer: tuple[int, bytes] = await run_in_thread(budget, _analyze_job, body)
        else:
            answer = await pool.run(_analyze_job, body)
        return answer

    from mcnemar.io._archive import ReadLimits

    read_limits = ReadLimits(
        max_inflated_bytes=int(max_inflated_mb * 1024**2), max_members=int(max_archive_members),
        max_parsed_bytes=int(max_parsed_mb * 1024**2),
    )
    app = FastAPI(
        title="mcnemar calculator",
        summary="McNemar's paired test for two systems scored on the same items.",
        version=_version() or "0",
        docs_url=None,  # the interactive docs load assets from a CDN; the page works offline
        redoc_url=None,
        openapi_url="/api/v1/openapi.json",
        separate_input_output_schemas=False,
        lifespan=lifespan,
    )
    page_cache: dict[str, str] = {}
    responses = _ResponseCache(cache_size)
    static_dir = resources.files("mcnemar.web").joinpath("static")
    app.mount("/static", StaticFiles(directory=str(static_dir)), name="static")

    # --- error handlers: one shape for everything --------------------------------------
    @app.exception_handler(RequestValidationError)
    async def _on_validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        return validation_response(exc.errors())

    @app.exception_handler(ApiError)
    async def _on_api_error(request: Request, exc: ApiError) -> JSONResponse:
        return _api_error_response(exc)

    @app.exception_handler(McNemarError)
    async def _on_mcnemar_error(request: Request, exc: McNemarError) -> JSONResponse:
        # A library error that no endpoint placed: its arguments still name the field.
        message = str(exc)
        field = field_for_error(exc, ALL_FIELDS, _REQUEST_FIELDS)
        return error_response(
            422, message, field, [{"field": field, "message": message, "type": "mcnemar"}]
        )

    @app.exception_handler(StarletteHTTPException)
    async def _on_http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        status = exc.status_code
        if status == 404:
            message = f"no such page or endpoint: {request.url.path}"
        elif status == 405:
            message = f"{request.method} is not allowed on {request.url.path}"
        elif status == 400 and "parsing the body" in str(exc.detail):
            message = "the request body cannot be read as JSON; send UTF-8 encoded JSON text"
        else:
            message = str(exc.detail)
        headers = dict(exc.headers) if exc.headers else None
        return error_response(status, message, None, headers=headers)

    @app.exception_handler(Exception)
    async def _on_bug(request: Request, exc: Exception) -> JSONResponse:
        log.exception("internal error on %s %s", request.method, request.url.path)
        return error_response(
            500,
            f"internal error ({type(exc).__name__}); this is a bug in mcnemar, please report it",
            None,
        )

    # --- the page ------------------------------------------------------------------------
    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def page() -> HTMLResponse:
        if "page" not in page_cache:
            page_cache["page"] = _load_page(max_upload_mb)
        return HTMLResponse(
            page_cache["page"],
            headers={"content-security-policy": _PAGE_CSP, "cache-control": "no-cache"},
        )

    @app.get("/api/v1/health", tags=["meta"], summary="Liveness probe")
    def health() -> dict[str, Any]:
        """Returns ``{"status": "ok"}`` and the version and upload limit of this server."""
        return {"status": "ok", "version": _version(), "max_upload_mb": max_upload_mb}

    # --- analyze -------------------------------------------------------------------------
    @app.post(
        "/api/v1/analyze",
        tags=["analysis"],
        summary="The full McNemar report for a paired 2x2 table",
        response_model=None,
        responses={
            200: {"model": ReportResponse, "description": "The report."},
            503: {"model": ErrorResponse,
                  "description": "The analysis took longer than the server's limit."},
            **ERROR_RESPONSES,
        },
    )
    async def analyze_counts(
        body: Annotated[
            AnalyzeRequest,
            Body(
                openapi_examples={
                    "passes": {
                        "summary": "200 items, counted as passes",
                        "value": {"a": 157, "b": 17, "c": 3, "d": 23},
                    },
                    "errors": {
                        "summary": "counted as errors",
                        "value": {"framing": "errors", "only_a_wrong": 3, "only_b_wrong": 17},
                    },
                }
            ),
        ],
    ) -> Response:
        """Run every McNemar test on the counts and return the report.

        Counts as passes (``a`` both right, ``b`` A right and B wrong, ``c`` A wrong and B
        right, ``d`` both wrong; ``a`` and ``d`` optional) or, with ``"framing": "errors"``,
        as errors (``only_a_wrong`` is cell c, ``only_b_wrong`` is cell b). The response is
        the report's ``to_dict()`` (schema ``mcnemar.report/1``), plus the keys asked for in
        ``include``. The analysis computes within the server's ``--compute-timeout`` (503
        past it).
        """
        key = body.framing + body.model_dump_json()
        cached = responses.get(key)
        if cached is not None:
            return Response(cached, media_type="application/json")
        try:
            status, content = await compute(body)
        except ComputeOverBudget:
            log.warning("POST /api/v1/analyze: the analysis took longer than %g s; "
                        "answered 503", budget)
            raise ApiError(
                503,
                f"this analysis took longer than the server's limit of {budget:g} s of "
                "computing (mcnemar serve --compute-timeout); run it with `mcnemar test` on "
                "the command line instead",
                type="timeout",
            ) from None
        except ComputeBusy:
            raise ApiError(
                503,
                "every analysis process of the server stayed busy for "
                f"{pool.queue_timeout if pool else budget:g} s; try again in a moment",
                type="busy",
            ) from None
        except ComputeFailed as exc:
            log.error("internal error on POST /api/v1/analyze:\n%s", exc.detail)
            raise ApiError(
                500,
                f"internal error ({exc.kind}); this is a bug in mcnemar, please report it",
                type="internal",
            ) from None
        if status == 200:
            responses.put(key, content)
        return Response(content, status_code=status, media_type="application/json")

    # --- compare -------------------------------------------------------------------------
    add_compare_route(
        app,
        max_file_bytes=max_file_bytes,
        read_limits=read_limits,
        compare_timeout=float(compare_timeout),
    )

    app.add_middleware(
        Guard,
        allowed_hosts=allowed_hosts,
        max_body_bytes=int(max_json_bytes),
        streamed={UPLOAD_PATH: 2 * max_file_bytes + 1_000_000},
        request_timeout=float(request_timeout),
    )
    return app


def app_from_environment() -> Any:
    """Application factory for the worker processes of ``mcnemar serve --workers N``.

    Each worker builds its own application from the settings the parent process put in the
    environment (``MCNEMAR_SERVE_SETTINGS``, a JSON object of :func:`create_app` keywords); a
    worker process cannot be handed the parent's application object.
    """
    import os

    settings = json.loads(os.environ.get("MCNEMAR_SERVE_SETTINGS", "{}"))
    return create_app(**settings)
