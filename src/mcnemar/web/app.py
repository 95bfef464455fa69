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

import asyncio
import inspect
import json
import logging
import re
import shutil
import tempfile
import threading
import time
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
from starlette.requests import ClientDisconnect

from mcnemar.errors import McNemarError
from mcnemar.web.models import (
    AnalyzeRequest,
    BayesOptions,
    CompareOptions,
    ErrorResponse,
    ErrorsFramingRequest,
    PassesFramingRequest,
    ReportResponse,
)
from mcnemar.web.upload import (
    MalformedUpload,
    UploadTooLarge,
    check_archive_directory,
    check_parquet_rows,
    read_multipart,
)

__all__ = [
    "DEFAULT_MAX_UPLOAD_MB",
    "ApiError",
    "app_from_environment",
    "create_app",
    "default_inflated_mb",
    "same_origin",
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
#: Body limit of the JSON endpoints: a request is a few hundred bytes.
MAX_JSON_BYTES = 64 * 1024
#: Seconds a request body may pause before the request is dropped (408).
DEFAULT_REQUEST_TIMEOUT = 10.0
#: Seconds the reading, alignment and analysis of one upload may take (then 503), and how
#: many uploads are worked on at once in one server process.
DEFAULT_COMPARE_TIMEOUT = 120.0
COMPARE_CONCURRENCY = 2


def default_inflated_mb(max_upload_mb: float) -> float:
    """The default archive budget for an upload limit: 20 times it, at most 256 MB.

    Examples
    --------
    >>> default_inflated_mb(50), default_inflated_mb(5)
    (256.0, 100.0)
    """
    return float(min(INFLATE_RATIO * max_upload_mb, MAX_DEFAULT_INFLATED_MB))

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
        403: "forbidden",
        404: "not_found",
        408: "timeout",
        405: "method_not_allowed",
        413: "too_large",
        415: "unsupported_media_type",
        422: "invalid",
        500: "internal",
        503: "unavailable",
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
         "both_right", "name_a", "name_b", "alternative", "confidence_level", "alpha",
         "margin", "equivalence", "margin_method", "bayes", "include")
    )
}


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _describe(err: dict[str, Any]) -> dict[str, Any]:
    """One pydantic error as ``{"field", "message", "type"}`` with a sentence a person reads."""
    kind = str(err.get("type", "invalid"))
    # A check across fields (made on the whole request) names its field in the context.
    field = _loc_to_field(err.get("loc", ())) or (err.get("ctx") or {}).get("field")
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
    elif kind == "mcnemar":
        # The library's own check: its message names the argument and echoes the value.
        message = msg
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
    "margin_method",
    "margin",
    "equivalence",
    "rope",
    "prior",
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
    from mcnemar.inference import null_distribution

    return null_distribution(b, c, points=_DISTRIBUTION_POINTS, full_up_to=_FULL_DISTRIBUTION_MAX)


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


class _Refused(Exception):
    """A request the guard answers itself (status, message), before the application sees it."""

    def __init__(self, status: int, message: str, type: str) -> None:
        self.status = status
        self.message = message
        self.type = type
        super().__init__(message)


class BodyRefused(ApiError):
    """Raised from ``receive`` while the application reads a body too large or too slow."""


#: Bytes per second a request body must average once ``request_timeout`` has passed (a
#: trickle below it holds a connection for nothing; any real network sends far more).
MIN_BODY_RATE = 50_000

_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def _split_host(host: str) -> tuple[str, int | None]:
    """``host[:port]`` (or ``[v6]:port``) as a lower-case name and a port (None if absent)."""
    host = host.strip().lower()
    if host.startswith("["):
        name, _, rest = host.partition("]")
        name += "]"
        port = rest[1:] if rest.startswith(":") else ""
    else:
        name, _, port = host.partition(":")
    return name, int(port) if port.isdigit() else None


def same_origin(origin: str, host: str) -> bool:
    """Whether an ``Origin`` header names the server reached through ``Host``.

    Only the host and port are compared (the scheme may differ behind a TLS proxy);
    ``null`` (sandboxed frames, ``file:`` pages) is never the server's own origin.

    Examples
    --------
    >>> same_origin("http://127.0.0.1:8000", "127.0.0.1:8000")
    True
    >>> same_origin("http://localhost:8000", "127.0.0.1:8000")
    False
    >>> same_origin("http://box.lan", "box.lan:80")
    True
    >>> same_origin("null", "127.0.0.1:8000")
    False
    """
    scheme, sep, rest = origin.strip().lower().partition("://")
    if not sep or scheme not in ("http", "https") or not rest or "/" in rest:
        return False
    default = 443 if scheme == "https" else 80
    o_name, o_port = _split_host(rest)
    h_name, h_port = _split_host(host)
    return o_name == h_name and (o_port or default) == (h_port or default)


class _Guard:
    """Pure ASGI middleware: what a request must satisfy before the application sees it.

    * **Host** (when ``allowed_hosts`` is given): only the names the server was started for.
      This defeats DNS rebinding, where a page on another origin makes the browser talk to
      the local calculator under a name the attacker controls.
    * **Origin**: a state-changing request (any method but GET, HEAD, OPTIONS) sent by a
      browser from another origin is refused with 403: ``Origin`` must name this server, and
      ``Sec-Fetch-Site`` must not be ``cross-site`` or ``same-site``. ``same-site`` is refused
      too: it is another origin on the same site (another port of localhost, a sibling
      host name), which is no more the calculator's page than a foreign site is. Requests
      without these headers (curl, scripts) are not from a web page and pass.
    * **Body size**, before reading: a declared ``Content-Length`` over the endpoint's limit is
      refused with 413 at once; bodies without one are counted while they stream.
    * **Body time**: the body must keep arriving (no pause longer than ``request_timeout``)
      and average at least :data:`MIN_BODY_RATE` bytes per second after the first
      ``request_timeout`` seconds; otherwise 408 and the connection is closed.

    Bodies of all endpoints but the upload are read here (at most ``max_body_bytes``) and
    handed to the application whole; the upload's stream is checked as the application
    reads it. A response sent before its request body was read in full closes the
    connection, so that an unread body is never drained on a kept-alive connection.
    """

    def __init__(
        self,
        app: ASGIApp,
        allowed_hosts: Sequence[str] | None,
        *,
        max_body_bytes: int = 64 * 1024,
        streamed: dict[str, int] | None = None,
        request_timeout: float = 10.0,
    ) -> None:
        self.app = app
        self.allowed = {h.lower() for h in allowed_hosts} if allowed_hosts else None
        self.max_body_bytes = max_body_bytes
        self.streamed = dict(streamed or {})
        self.request_timeout = request_timeout

    def _check(self, scope: Scope) -> None:
        host = _header(scope, b"host") or ""
        if self.allowed is not None:
            name, _ = _split_host(host)
            if name not in self.allowed:
                raise _Refused(
                    400,
                    f"unexpected Host header {host!r}; open the calculator at its printed URL",
                    "bad_host",
                )
        if scope["method"] not in _SAFE_METHODS:
            site = _header(scope, b"sec-fetch-site")
            origin = _header(scope, b"origin")
            if site is not None and site.strip().lower() in ("cross-site", "same-site"):
                raise _Refused(
                    403,
                    f"refused a {site.strip().lower()} request: only the calculator's own page "
                    "(or a program that is not a web page) may use this server",
                    "cross_origin",
                )
            if origin is not None and not same_origin(origin, host):
                raise _Refused(
                    403,
                    f"refused a request from another origin ({origin[:100]}); only the "
                    "calculator's own page (or a program that is not a web page) may use "
                    "this server",
                    "cross_origin",
                )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state = {"body_done": False}

        async def guarded_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.append((b"x-content-type-options", b"nosniff"))
                headers.append((b"referrer-policy", b"no-referrer"))
                if not state["body_done"]:
                    headers.append((b"connection", b"close"))
                message["headers"] = headers
            await send(message)

        try:
            self._check(scope)
            limit = self.streamed.get(scope["path"], self.max_body_bytes)
            declared = _header(scope, b"content-length")
            if declared is not None and declared.strip().isdigit() and int(declared) > limit:
                raise _Refused(413, _too_large(scope["path"], limit), "too_large")
            clock = _BodyClock(receive, limit, self.request_timeout, scope["path"], state)
            if scope["path"] in self.streamed:
                app_receive: Receive = clock.receive
            else:
                body = await clock.read_all()
                if body is None:  # the client went away; nobody is left to answer
                    log.info("%s %s: the client closed the connection before sending its body",
                             scope["method"], scope["path"])
                    return
                app_receive = _replay(body, receive)
        except _Refused as exc:
            await _error_response(
                exc.status, exc.message, None,
                [{"field": None, "message": exc.message, "type": exc.type}],
            )(scope, receive, guarded_send)
            return
        await self.app(scope, app_receive, guarded_send)


def _too_large(path: str, limit: int) -> str:
    if path == "/api/v1/compare":
        return str(UploadTooLarge(None, (limit - 1_000_000) // 2))
    return (
        f"the request body is larger than the {limit} bytes this endpoint accepts; "
        "send a JSON object with the fields documented at /api/v1/openapi.json"
    )


class _BodyClock:
    """``receive`` with the guard's size and time limits on the request body."""

    def __init__(self, receive: Receive, limit: int, timeout: float, path: str,
                 state: dict[str, bool]) -> None:
        self._receive = receive
        self.limit = limit
        self.timeout = timeout
        self.path = path
        self.state = state
        self.seen = 0
        self.started = time.monotonic()

    def _wait(self) -> float:
        rate_deadline = self.started + self.timeout + self.seen / MIN_BODY_RATE
        return max(0.0, min(self.timeout, rate_deadline - time.monotonic()))

    async def receive(self) -> Message:
        if self.state["body_done"]:
            return await self._receive()
        message: Message | None = None
        try:
            async with asyncio.timeout(self._wait()):
                message = await self._receive()
        except TimeoutError:
            message = None
        if message is None:
            log.info("%s: the request body did not arrive in time (%d bytes received)",
                     self.path, self.seen)
            raise BodyRefused(
                408,
                f"the request body did not arrive in time ({self.seen} bytes received); the "
                f"server waits at most {self.timeout:g} s for the next part of a body",
                type="timeout",
            )
        if message["type"] == "http.request":
            self.seen += len(message.get("body", b""))
            if self.seen > self.limit:
                raise BodyRefused(413, _too_large(self.path, self.limit), type="too_large")
            if not message.get("more_body", False):
                self.state["body_done"] = True
        return message

    async def read_all(self) -> bytes | None:
        """The whole body (None if the client disconnected), or :class:`_Refused`."""
        chunks = []
        while True:
            try:
                message = await self.receive()
            except BodyRefused as exc:
                raise _Refused(exc.status, exc.message, exc.type) from None
            if message["type"] == "http.disconnect":
                return None
            chunks.append(message.get("body", b""))
            if self.state["body_done"]:
                return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


# ----------------------------------------------------------------------------- the app

_ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorResponse, "description": "Bad request (e.g. a wrong Host header)."},
    403: {"model": ErrorResponse, "description": "Sent by a web page of another origin."},
    408: {"model": ErrorResponse, "description": "The request did not arrive in time."},
    413: {"model": ErrorResponse, "description": "The body (or a file) is over the limit."},
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
    max_inflated_mb: float | None = None,
    max_archive_members: int = DEFAULT_MAX_ARCHIVE_MEMBERS,
    max_json_bytes: int = MAX_JSON_BYTES,
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
    compare_timeout: float = DEFAULT_COMPARE_TIMEOUT,
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
    max_json_bytes : int, default 65536
        Body limit of every endpoint but the upload.
    request_timeout : float, default 10
        Seconds a request body may pause (see :class:`_Guard`).
    compare_timeout : float, default 120
        Seconds an upload's reading, alignment and analysis may take before the answer is
        a 503; at most :data:`COMPARE_CONCURRENCY` run at once per process.

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
    for name, value in (("max_inflated_mb", max_inflated_mb), ("request_timeout", request_timeout),
                        ("compare_timeout", compare_timeout), ("max_json_bytes", max_json_bytes),
                        ("max_archive_members", max_archive_members)):
        if not (isinstance(value, int | float) and value > 0):
            raise McNemarError(f"{name} must be a positive number; got {value!r}")
    from mcnemar.io._archive import ReadLimits

    read_limits = ReadLimits(
        max_inflated_bytes=int(max_inflated_mb * 1024**2), max_members=int(max_archive_members)
    )
    jobs = _Jobs(COMPARE_CONCURRENCY)
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
                        "include": {
                            "type": "array",
                            "items": {
                                "type": "string",
                                "enum": ["distribution", "markdown", "text"],
                            },
                        },
                        "margin": {
                            "type": "number",
                            "description": "Non-inferiority margin, a proportion (0.01 = 1 "
                            "accuracy point); as in /api/v1/analyze.",
                        },
                        "equivalence": {"type": "boolean", "default": False},
                        "margin_method": {
                            "type": "string",
                            "enum": ["score", "unconditional"],
                            "default": "score",
                        },
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
            501: {"model": ErrorResponse, "description": "File readers not installed."},
            503: {"model": ErrorResponse, "description": "Busy, or the files took too long."},
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
        # The body's size (as declared and as it streams) and pace are checked by _Guard.
        workdir = Path(tempfile.mkdtemp(prefix="mcnemar-upload-"))
        handed_over = False
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
            except ClientDisconnect:
                # Nobody is left to answer: one line in the log, no traceback.
                log.warning("POST %s: the client closed the connection during the upload; "
                            "nothing was read", request.url.path)
                return Response(status_code=400)
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
            if not jobs.claim():
                raise ApiError(
                    503,
                    f"the server is already reading {COMPARE_CONCURRENCY} uploads; "
                    "try again in a moment",
                    type="busy",
                )
            handed_over = True

            def job() -> Response:
                try:
                    return _compare(upload, options, workdir)
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

    def _read(path: Path, fmt: str) -> Any:
        from mcnemar.io import read_run
        from mcnemar.io._dispatch import reader_for
        from mcnemar.io.detect import detect_format

        resolved = detect_format(path) if fmt == "auto" else fmt
        if resolved == "inspect":
            check_archive_directory(path, read_limits.max_members)
        elif resolved == "parquet":
            check_parquet_rows(path, read_limits.max_inflated_bytes)
        reader = reader_for(resolved)
        if "limits" in inspect.signature(reader).parameters:
            return read_run(path, format=resolved, limits=read_limits)
        return read_run(path, format=resolved)

    def _compare(upload: Any, options: CompareOptions, workdir: Path) -> Response:
        try:
            from mcnemar.io import align
        except ImportError as exc:  # the file readers are an optional part of the package
            raise ApiError(
                501, "this installation of mcnemar cannot read result files", type="unavailable"
            ) from exc
        runs = []
        for field, fmt in (("file_a", options.format_a), ("file_b", options.format_b)):
            path = upload.files[field]
            try:
                runs.append(_read(path, fmt))
            except McNemarError as exc:
                if _over_budget(exc):
                    message = _public_message(exc.spelled(_server_spelling), upload, workdir)
                    raise ApiError(413, message, field=field, type="too_large") from exc
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
                allow_different_tasks=options.allow_different_tasks,
                allow_different_scorers=options.allow_different_scorers,
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

    app.add_middleware(
        _GuardFactory,
        allowed_hosts=allowed_hosts,
        max_body_bytes=int(max_json_bytes),
        streamed={"/api/v1/compare": 2 * max_file_bytes + 1_000_000},
        request_timeout=float(request_timeout),
    )
    return app


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
    return f"{key}={value}"


def _over_budget(exc: McNemarError) -> bool:
    """Whether a reader refused an archive for the read budget (not for being malformed)."""
    text = exc.template
    return "read budget" in text or "entries, more than" in text


class _GuardFactory(_Guard):
    """Keyword-argument constructor for :meth:`FastAPI.add_middleware`."""

    def __init__(
        self,
        app: ASGIApp,
        allowed_hosts: Sequence[str] | None = None,
        max_body_bytes: int = MAX_JSON_BYTES,
        streamed: dict[str, int] | None = None,
        request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
    ) -> None:
        super().__init__(app, allowed_hosts, max_body_bytes=max_body_bytes, streamed=streamed,
                         request_timeout=request_timeout)


def _parse_options(fields: dict[str, list[str]]) -> CompareOptions:
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
        details = [_describe(dict(e)) for e in exc.errors()]
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


def app_from_environment() -> Any:
    """Application factory for the worker processes of ``mcnemar serve --workers N``.

    Each worker builds its own application from the settings the parent process put in the
    environment (``MCNEMAR_SERVE_SETTINGS``, a JSON object of :func:`create_app` keywords); a
    worker process cannot be handed the parent's application object.
    """
    import os

    settings = json.loads(os.environ.get("MCNEMAR_SERVE_SETTINGS", "{}"))
    return create_app(**settings)
