"""The calculator's security middleware: what a request must satisfy before the app sees it.

:class:`Guard` checks the ``Host`` and ``Origin`` of every request and the size and pace of
its body; :func:`same_origin` is the origin rule it applies. Its refusals have the API's one
error shape (:mod:`mcnemar.web.errors`).
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Any

from mcnemar.web.errors import ApiError, error_response
from mcnemar.web.upload import UploadTooLarge

__all__ = [
    "DEFAULT_REQUEST_TIMEOUT",
    "MAX_HEADER_BYTES",
    "MAX_JSON_BYTES",
    "MIN_BODY_RATE",
    "BodyRefused",
    "Guard",
    "same_origin",
]

log = logging.getLogger("mcnemar.web")

#: Body limit of the JSON endpoints: a request is a few hundred bytes.
MAX_JSON_BYTES = 64 * 1024
#: Request header limit (names, values and their separators): a browser sends about 1 KiB.
MAX_HEADER_BYTES = 16 * 1024
#: Seconds a request body may pause before the request is dropped (408).
DEFAULT_REQUEST_TIMEOUT = 10.0
#: Path of the upload, whose body streams to the application (and whose limit is per file).
UPLOAD_PATH = "/api/v1/compare"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


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


#: What a Host header (RFC 9110 7.2: uri-host [ ":" port ]) may be: a name or an IPv4
#: address, or an IPv6 address in brackets, then at most one port of digits. Anything else
#: (``127.0.0.1:8000@evil.example``, a user-info part, a path, a second port) is malformed.
_HOST = re.compile(r"(\[[0-9a-f:.]+\]|[a-z0-9._~!$&'()*+,;=%-]*)(?::([0-9]{1,5}))?")


def _split_host(host: str) -> tuple[str, int | None]:
    """``host[:port]`` (or ``[v6]:port``) as a lower-case name and a port (None if absent);
    a header that is not of that form gives the name ``""``, which no server is called.

    >>> _split_host("127.0.0.1:8000"), _split_host("[::1]"), _split_host("a:1@evil.example")
    (('127.0.0.1', 8000), ('[::1]', None), ('', None))
    """
    match = _HOST.fullmatch(host.strip().lower())
    if match is None:
        return "", None
    name, port = match.group(1), match.group(2)
    return name, int(port) if port is not None else None


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


class Guard:
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
        allowed_hosts: Sequence[str] | None = None,
        *,
        max_body_bytes: int = MAX_JSON_BYTES,
        streamed: dict[str, int] | None = None,
        request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
    ) -> None:
        self.app = app
        self.allowed = {h.lower() for h in allowed_hosts} if allowed_hosts else None
        self.max_body_bytes = max_body_bytes
        self.streamed = dict(streamed or {})
        self.request_timeout = request_timeout

    def _check(self, scope: Scope) -> None:
        # The header limit, whichever way the headers arrived (the HTTP parser bounds only
        # what it holds incomplete, so headers read in one piece could pass it).
        size = sum(len(k) + len(v) + 4 for k, v in scope.get("headers", []))
        if size > MAX_HEADER_BYTES:
            raise _Refused(431, f"the request headers take {size} bytes, more than the "
                           f"{MAX_HEADER_BYTES // 1024} KiB this server accepts",
                           "headers_too_large")
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
            await error_response(
                exc.status, exc.message, None,
                [{"field": None, "message": exc.message, "type": exc.type}],
            )(scope, receive, guarded_send)
            return
        await self.app(scope, app_receive, guarded_send)


def _too_large(path: str, limit: int) -> str:
    if path == UPLOAD_PATH:
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
