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
returned unchanged (plus, when asked, the markdown/text renderings and the null distribution
for the picture). Every failure, whatever its cause, has one JSON shape::

    {"error": {"status": 422, "message": "b must be a whole number >= 0; got -1",
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

import json
import logging
import math
import re
import shutil
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, MutableMapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from fastapi import Body, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from mcnemar.errors import McNemarError
from mcnemar.web.models import (
    AnalyzeRequest,
    CompareOptions,
    ErrorResponse,
    ErrorsFramingRequest,
    PassesFramingRequest,
    ReportResponse,
)
from mcnemar.web.upload import MalformedUpload, UploadTooLarge, read_multipart

__all__ = ["DEFAULT_MAX_UPLOAD_MB", "ApiError", "create_app"]

log = logging.getLogger("mcnemar.web")

#: Default per-file upload limit, in megabytes (10**6 bytes).
DEFAULT_MAX_UPLOAD_MB = 50.0

#: Distribution pictures show every value of b up to this many discordant items, and a
#: sampled window around the centre beyond it.
_FULL_DISTRIBUTION_MAX = 200
_DISTRIBUTION_POINTS = 241

_FILE_FIELDS = frozenset({"file_a", "file_b"})

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class ApiError(Exception):
    """An error response in the API's one shape (raised inside handlers)."""

    def __init__(
        self, status: int, message: str, *, field: str | None = None, type: str = "invalid"
    ) -> None:
        self.status = status
        self.message = message
        self.field = field
        self.type = type
        super().__init__(message)


def _error_response(
    status: int,
    message: str,
    field: str | None = None,
    errors: Sequence[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    if errors is None:
        errors = [{"field": field, "message": message, "type": _status_type(status)}]
    body = {"error": {"status": status, "message": message, "field": field, "errors": errors}}
    return JSONResponse(body, status_code=status, headers=headers)


def _status_type(status: int) -> str:
    return {
        400: "bad_request",
        404: "not_found",
        405: "method_not_allowed",
        413: "too_large",
        415: "unsupported_media_type",
        422: "invalid",
        500: "internal",
    }.get(status, "error")


# ----------------------------------------------------------------------------- validation

_TAGS = {"passes", "errors", "function-after", "function-before"}


def _loc_to_field(loc: Sequence[Any]) -> str | None:
    parts = [str(p) for p in loc]
    if parts and parts[0] in {"body", "query", "path", "form"}:
        parts = parts[1:]
    # A tagged union puts the tag (our framing) into the location; users never see it.
    if parts and parts[0] in _TAGS:
        parts = parts[1:]
    if parts and parts[0].startswith(("function-", "tagged-union")):
        parts = parts[1:]
    parts = [p for p in parts if not p.startswith("function-")]
    return ".".join(parts) if parts else None


_ERRORS_FIELDS = ("both_right", "only_a_wrong", "only_b_wrong", "both_wrong")
_PASSES_FIELDS = ("a", "b", "c", "d")
_FIELD_ORDER = {
    name: i
    for i, name in enumerate(
        ("None", "framing", *_PASSES_FIELDS, "only_a_wrong", "only_b_wrong", "both_wrong",
         "both_right", "name_a", "name_b", "alternative", "confidence_level", "alpha", "include")
    )
}


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _describe(err: dict[str, Any]) -> dict[str, Any]:
    """One pydantic error as ``{"field", "message", "type"}`` with a sentence a person reads."""
    kind = str(err.get("type", "invalid"))
    field = _loc_to_field(err.get("loc", ()))
    msg = str(err.get("msg", "invalid value"))
    value = err.get("input")
    if kind == "json_invalid":
        ctx = err.get("ctx") or {}
        detail = ctx.get("error", msg)
        return {
            "field": None,
            "message": f"the request body is not valid JSON ({detail})",
            "type": kind,
        }
    if kind == "union_tag_invalid":
        tag = (err.get("ctx") or {}).get("tag", value)
        return {
            "field": "framing",
            "message": f"framing must be 'passes' or 'errors'; got {_short(tag)}",
            "type": "literal_error",
        }
    if field is None:
        if kind == "missing":
            message = (
                'the request body is missing; send a JSON object such as {"b": 17, "c": 3}'
            )
        elif kind.startswith("count_"):
            message = msg
        elif isinstance(value, bytes | str):
            message = (
                "the request body must be a JSON object sent with "
                "Content-Type: application/json, such as "
                '{"a": 157, "b": 17, "c": 3, "d": 23}'
            )
        elif kind in {"model_attributes_type", "dict_type", "model_type"}:
            message = (
                "the request body must be a JSON object such as "
                '{"a": 157, "b": 17, "c": 3, "d": 23}; got ' + _short(value)
            )
        else:
            message = f"the request body is invalid: {msg}"
        return {"field": None, "message": message, "type": kind}
    if kind == "missing":
        if field in {"b", "c"}:
            message = f"{field} is required (A right and B wrong is b; A wrong and B right is c)"
        elif field in {"only_a_wrong", "only_b_wrong"}:
            message = f"{field} is required when framing is 'errors'"
        else:
            message = f"{field} is required"
    elif kind == "extra_forbidden":
        if field in _ERRORS_FIELDS:
            message = (
                f"{field} belongs to the errors framing; add \"framing\": \"errors\" "
                "or give the passes table as a, b, c, d"
            )
        elif field in _PASSES_FIELDS:
            message = (
                f"{field} belongs to the passes framing; with \"framing\": \"errors\" give "
                "both_right, only_a_wrong, only_b_wrong, both_wrong"
            )
        else:
            message = f"{field} is not a known field; see /api/v1/openapi.json for the valid ones"
    elif kind == "literal_error":
        expected = (err.get("ctx") or {}).get("expected", "")
        message = f"{field} must be one of {expected}; got {_short(value)}"
    elif kind.startswith(("count_", "level_", "number_")):
        message = f"{field} {msg}"
    elif kind in {"string_too_short", "string_too_long", "string_type"}:
        message = f"{field} must be a text of 1 to 80 characters; got {_short(value)}"
    elif kind in {"list_type", "too_long", "too_short"}:
        message = (
            f"{field} must be a list drawn from 'distribution', 'markdown', 'text'; "
            f"got {_short(value)}"
        )
    else:
        message = f"{field}: {msg} (got {_short(value)})"
    return {"field": field, "message": message, "type": kind}


def _validation_response(errors: Iterable[dict[str, Any]]) -> JSONResponse:
    details = [_describe(dict(e)) for e in errors]
    # Counts first: they are what people type, and what the page marks first.
    details.sort(key=lambda d: _FIELD_ORDER.get(str(d["field"]).split(".")[0], len(_FIELD_ORDER)))
    # Several union members may report the same problem; show it once.
    unique: list[dict[str, Any]] = []
    for d in details:
        if d not in unique:
            unique.append(d)
    if not unique:
        unique = [{"field": None, "message": "invalid request", "type": "invalid"}]
    first = unique[0]
    message = first["message"]
    if len(unique) > 1:
        more = len(unique) - 1
        message += f" (and {more} more problem{'s' if more > 1 else ''})"
    return _error_response(422, message, first["field"], unique)


_REQUEST_FIELDS = (
    "only_a_wrong",
    "only_b_wrong",
    "both_right",
    "both_wrong",
    "confidence_level",
    "alternative",
    "alpha",
    "name_a",
    "name_b",
    "file_a",
    "file_b",
    "format_a",
    "format_b",
)


def _field_from_message(message: str) -> str | None:
    """Best guess at the request field a library error message names (or None)."""
    for name in _REQUEST_FIELDS:
        if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", message):
            return name
    # Single letters are also English words ("a"), so only trust them in code-like positions.
    m = re.search(
        r"(?:^|[\s(`'\"])([abcd])(?:\s*=|`|'|\"|\s+must\b|\s+is\b|\s+was\b|:)", message
    )
    if m:
        return m.group(1)
    return None


# ----------------------------------------------------------------------------- helpers


def _json_response(body: Any, status: int = 200) -> Response:
    """Serialize once, refusing NaN and infinity (the report promises it never has them)."""
    content = json.dumps(body, allow_nan=False, ensure_ascii=False, separators=(",", ":"))
    return Response(content.encode("utf-8"), status_code=status, media_type="application/json")


def _distribution(b: int, c: int) -> dict[str, Any]:
    """The null distribution of b, Bin(D, 1/2), on a window fit for a picture."""
    import numpy as np

    from mcnemar._binomial import pmf_half

    n = b + c
    if n <= _FULL_DISTRIBUTION_MAX:
        lo, hi, step = 0, n, 1
    else:
        # Centre +- 6 standard deviations, widened towards the observed split when it is
        # near enough to share the picture; a split further out is drawn as an arrow.
        sd = math.sqrt(n) / 2
        half = 6 * sd
        offset = abs(b - n / 2)
        if offset <= 15 * sd:
            half = max(half, offset + sd)
        lo = max(0, math.floor(n / 2 - half))
        hi = min(n, math.ceil(n / 2 + half))
        step = max(1, math.ceil((hi - lo + 1) / _DISTRIBUTION_POINTS))
    k = np.arange(lo, hi + 1, step, dtype=np.int64)
    pmf = np.asarray(pmf_half(k, n), dtype=float)
    return {
        "discordant": n,
        "observed": b,
        "step": step,
        "k": [int(x) for x in k],
        "pmf": [float(p) if math.isfinite(p) else 0.0 for p in pmf],
    }


def _render(
    report: Any,
    include: Iterable[str],
    b: int,
    c: int,
    scrub: Callable[[str], str] | None = None,
) -> Response:
    body: dict[str, Any] = dict(report.to_dict())
    wanted = set(include)
    if "distribution" in wanted:
        body["distribution"] = _distribution(b, c)
    if "markdown" in wanted:
        body["markdown"] = report.to_markdown()
    if "text" in wanted:
        body["text"] = str(report)
    if scrub is not None:
        body = _map_strings(body, scrub)
    return _json_response(body)


def _map_strings(obj: Any, func: Callable[[str], str]) -> Any:
    if isinstance(obj, str):
        return func(obj)
    if isinstance(obj, dict):
        return {k: _map_strings(v, func) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_map_strings(v, func) for v in obj]
    return obj


def _table_from_request(req: PassesFramingRequest | ErrorsFramingRequest) -> Any:
    from mcnemar.table import PairedTable

    if isinstance(req, ErrorsFramingRequest):
        return PairedTable.from_errors(
            only_a_wrong=req.only_a_wrong,
            only_b_wrong=req.only_b_wrong,
            both_wrong=req.both_wrong,
            both_right=req.both_right,
        )
    return PairedTable(a=req.a, b=req.b, c=req.c, d=req.d)


def _analyze(table: Any, options: Any, alignment: Any = None) -> Any:
    from mcnemar.report import analyze

    kwargs: dict[str, Any] = {
        "names": (options.name_a, options.name_b),
        "alternative": options.alternative,
        "confidence_level": options.confidence_level,
        "alpha": options.alpha,
    }
    if alignment is not None:
        kwargs["alignment"] = alignment
    return analyze(table, **kwargs)


def _load_page(max_upload_mb: float) -> str:
    template = resources.files("mcnemar.web").joinpath("templates/index.html").read_text("utf-8")
    return template.replace("{{version}}", _version()).replace(
        "{{max_upload_mb}}", f"{max_upload_mb:g}"
    )


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("mcnemar")
    except Exception:
        return ""


class _ResponseCache:
    """A small thread-safe LRU of response bodies, keyed by the validated request.

    The report is a pure function of the request, and one analysis costs tens of
    milliseconds (intervals by root finding, the power solve), while a page being typed into,
    a shared link opened by several people or a dashboard polling the same table repeats the
    same requests.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: OrderedDict[str, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> bytes | None:
        if self.size <= 0:
            return None
        with self._lock:
            value = self._data.get(key)
            if value is not None:
                self._data.move_to_end(key)
            return value

    def put(self, key: str, value: bytes) -> None:
        if self.size <= 0:
            return
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)


# ----------------------------------------------------------------------------- middleware


class _Guard:
    """Pure ASGI middleware: refuse unexpected Host headers, add protective headers.

    The Host check (on when the server binds to loopback) defeats DNS rebinding: a web page
    on another origin cannot make the browser talk to the local calculator under its name.
    """

    def __init__(self, app: ASGIApp, allowed_hosts: Sequence[str] | None) -> None:
        self.app = app
        self.allowed = {h.lower() for h in allowed_hosts} if allowed_hosts else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.allowed is not None:
            host = ""
            for key, value in scope.get("headers", []):
                if key == b"host":
                    host = value.decode("latin-1").lower()
                    break
            hostname = host.rsplit(":", 1)[0] if not host.endswith("]") else host
            if hostname not in self.allowed:
                response = _error_response(
                    400,
                    f"unexpected Host header {host!r}; open the calculator at its printed URL",
                    field=None,
                )
                await response(scope, receive, send)
                return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.append((b"x-content-type-options", b"nosniff"))
                headers.append((b"referrer-policy", b"no-referrer"))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)


# ----------------------------------------------------------------------------- the app

_ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorResponse, "description": "Bad request (e.g. a wrong Host header)."},
    422: {"model": ErrorResponse, "description": "Invalid input; `field` names the culprit."},
    500: {"model": ErrorResponse, "description": "A bug in mcnemar (please report it)."},
}

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
    app = FastAPI(
        title="mcnemar calculator",
        summary="McNemar's paired test for two systems scored on the same items.",
        version=_version() or "0",
        docs_url=None,  # the interactive docs load assets from a CDN; the page works offline
        redoc_url=None,
        openapi_url="/api/v1/openapi.json",
        separate_input_output_schemas=False,
    )
    page_cache: dict[str, str] = {}
    responses = _ResponseCache(cache_size)
    static_dir = resources.files("mcnemar.web").joinpath("static")
    app.mount("/static", StaticFiles(directory=str(static_dir)), name="static")

    # --- error handlers: one shape for everything --------------------------------------
    @app.exception_handler(RequestValidationError)
    async def _on_validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        return _validation_response(exc.errors())

    @app.exception_handler(ApiError)
    async def _on_api_error(request: Request, exc: ApiError) -> JSONResponse:
        return _error_response(
            exc.status,
            exc.message,
            exc.field,
            [{"field": exc.field, "message": exc.message, "type": exc.type}],
        )

    @app.exception_handler(McNemarError)
    async def _on_mcnemar_error(request: Request, exc: McNemarError) -> JSONResponse:
        message = str(exc)
        field = _field_from_message(message)
        return _error_response(
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
        return _error_response(status, message, None, headers=headers)

    @app.exception_handler(Exception)
    async def _on_bug(request: Request, exc: Exception) -> JSONResponse:
        log.exception("internal error on %s %s", request.method, request.url.path)
        return _error_response(
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
            **_ERROR_RESPONSES,
        },
    )
    def analyze_counts(
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
        ``include``.
        """
        key = body.framing + body.model_dump_json()
        cached = responses.get(key)
        if cached is not None:
            return Response(cached, media_type="application/json")
        table = _table_from_request(body)
        report = _analyze(table, body)
        response = _render(report, body.include, int(table.b), int(table.c))
        responses.put(key, bytes(response.body))
        return response

    # --- compare -------------------------------------------------------------------------
    compare_body_schema = {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["file_a", "file_b"],
                    "properties": {
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
                        "name_a": {"type": "string", "default": "candidate", "maxLength": 80},
                        "name_b": {"type": "string", "default": "baseline", "maxLength": 80},
                        "alternative": {
                            "type": "string",
                            "enum": ["two-sided", "greater", "less"],
                            "default": "two-sided",
                        },
                        "confidence_level": {"type": "number", "default": 0.95},
                        "alpha": {"type": "number", "default": 0.05},
                        "format_a": {"type": "string", "default": "auto"},
                        "format_b": {"type": "string", "default": "auto"},
                        "on_missing": {
                            "type": "string",
                            "enum": ["error", "intersect"],
                            "default": "error",
                            "description": "Items in one file only: refuse, or drop and report.",
                        },
                        "threshold": {
                            "type": "number",
                            "description": "Scores >= threshold pass (for scores other than 0/1).",
                        },
                        "reduce": {
                            "type": "string",
                            "enum": ["mean", "majority", "first"],
                            "description": "How to combine several samples (epochs) of an item.",
                        },
                        "include": {
                            "type": "array",
                            "items": {
                                "type": "string",
                                "enum": ["distribution", "markdown", "text"],
                            },
                        },
                    },
                }
            }
        },
    }

    @app.post(
        "/api/v1/compare",
        tags=["analysis"],
        summary="Align two per-item result files and return the report",
        response_model=None,
        openapi_extra={"requestBody": compare_body_schema},
        responses={
            200: {"model": ReportResponse, "description": "The report, with its alignment."},
            413: {"model": ErrorResponse, "description": "A file is larger than the limit."},
            501: {"model": ErrorResponse, "description": "File readers not installed."},
            **_ERROR_RESPONSES,
        },
    )
    async def compare_files(request: Request) -> Response:
        """Upload two per-item result files (``file_a``, ``file_b``) as multipart form data.

        The files are read with :func:`mcnemar.io.read_run` (any format it knows; ``format_a``
        and ``format_b`` override the detection), aligned item by item with
        :func:`mcnemar.io.align`, and analysed. The report's ``alignment`` says how many
        items were paired. Each file may be at most the server's ``--max-upload-mb``.
        """
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit():
            if int(declared) > 2 * max_file_bytes + 1_000_000:
                raise ApiError(413, str(UploadTooLarge(None, max_file_bytes)), type="too_large")
        workdir = Path(tempfile.mkdtemp(prefix="mcnemar-upload-"))
        try:
            try:
                upload = await read_multipart(
                    request.headers.get("content-type", ""),
                    request.stream(),
                    workdir,
                    file_fields=_FILE_FIELDS,
                    max_file_bytes=max_file_bytes,
                )
            except UploadTooLarge as exc:
                raise ApiError(413, str(exc), field=exc.field, type="too_large") from exc
            except MalformedUpload as exc:
                raise ApiError(422, str(exc), field=exc.field, type="malformed_upload") from exc
            for name in sorted(_FILE_FIELDS):
                if name not in upload.files:
                    raise ApiError(
                        422,
                        f"{name} is required: upload the per-item results of both systems "
                        "as file_a (candidate) and file_b (baseline)",
                        field=name,
                        type="missing",
                    )
            options = _parse_options(upload.fields)
            return await run_in_threadpool(_compare, upload, options, workdir)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    def _compare(upload: Any, options: CompareOptions, workdir: Path) -> Response:
        try:
            from mcnemar.io import align, read_run
        except ImportError as exc:  # the file readers are an optional part of the package
            raise ApiError(
                501, "this installation of mcnemar cannot read result files", type="unavailable"
            ) from exc
        runs = []
        for field, fmt in (("file_a", options.format_a), ("file_b", options.format_b)):
            path = upload.files[field]
            try:
                runs.append(read_run(path, format=fmt))
            except McNemarError as exc:
                message = _public_message(str(exc), upload, workdir)
                raise ApiError(422, message, field=field, type="malformed_file") from exc
            except (UnicodeDecodeError, ValueError, OSError) as exc:
                # A reader that let a low-level error escape: still the file's fault.
                message = _public_message(
                    f"{upload.filenames[field]}: cannot be read ({exc})", upload, workdir
                )
                raise ApiError(422, message, field=field, type="malformed_file") from exc
        try:
            alignment = align(
                runs[0],
                runs[1],
                on_missing=options.on_missing,
                threshold=options.threshold,
                reduce=options.reduce,
            )
        except McNemarError as exc:
            message = _public_message(str(exc), upload, workdir)
            raise ApiError(422, message, field=None, type="alignment") from exc
        report = _analyze(alignment.table, options, alignment=alignment)
        table = alignment.table
        return _render(
            report,
            options.include,
            int(table.b),
            int(table.c),
            scrub=lambda text: _public_message(text, upload, workdir),
        )

    app.add_middleware(_GuardFactory, allowed_hosts=allowed_hosts)
    return app


class _GuardFactory(_Guard):
    """Keyword-argument constructor for :meth:`FastAPI.add_middleware`."""

    def __init__(self, app: ASGIApp, allowed_hosts: Sequence[str] | None = None) -> None:
        super().__init__(app, allowed_hosts)


def _parse_options(fields: dict[str, list[str]]) -> CompareOptions:
    data: dict[str, Any] = {}
    for name, values in fields.items():
        if name == "include":
            items: list[str] = []
            for v in values:
                items.extend(s.strip() for s in v.split(",") if s.strip())
            data[name] = items
        else:
            data[name] = values[-1]
    try:
        return CompareOptions.model_validate(data)
    except ValidationError as exc:
        details = [_describe(dict(e)) for e in exc.errors()]
        first = details[0]
        raise ApiError(422, first["message"], field=first["field"], type=first["type"]) from exc


def _public_message(message: str, upload: Any, workdir: Path) -> str:
    """Replace our temporary paths with the names the user uploaded."""
    for field, path in upload.files.items():
        message = message.replace(str(path), upload.filenames[field])
    return message.replace(str(workdir) + "/", "")


def app_from_environment() -> Any:
    """Application factory for the worker processes of ``mcnemar serve --workers N``.

    Each worker builds its own application from the settings the parent process put in the
    environment (``MCNEMAR_SERVE_MAX_UPLOAD_MB``, ``MCNEMAR_SERVE_ALLOWED_HOSTS`` as a JSON
    list); a worker process cannot be handed the parent's application object.
    """
    import json
    import os

    max_upload_mb = float(os.environ.get("MCNEMAR_SERVE_MAX_UPLOAD_MB", DEFAULT_MAX_UPLOAD_MB))
    hosts = os.environ.get("MCNEMAR_SERVE_ALLOWED_HOSTS")
    return create_app(
        max_upload_mb=max_upload_mb, allowed_hosts=None if hosts is None else json.loads(hosts)
    )
