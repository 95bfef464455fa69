"""The HTTP connection layer under ``mcnemar serve``: uvicorn's h11 protocol with time limits.

uvicorn drops a kept-alive connection that stays idle after a response, but it has no limit
for a connection that never sends a request, nor for a request whose headers arrive slowly or
stop half-way: such connections are held open for as long as the client likes (the classic
"slowloris" pattern). :class:`GuardedH11Protocol` adds both:

* a connection that sends nothing is closed after the keep-alive timeout, exactly as an idle
  connection after a response is;
* once the first byte of a request has arrived, its headers must be complete within the
  request timeout; otherwise the server answers 408 and closes the connection;
* a client that stops reading its response (the connection's send buffer stays full) is
  dropped once it has read nothing for the request timeout: the response waiting for it would
  otherwise hold the connection, and the work behind it, for as long as the client likes.

The request *body* is timed by the application (:class:`mcnemar.web.guard.Guard`), which knows
when it is waiting for the client and when the client is waiting for it.

Keep-alive without races: the server closes an idle connection only after
``--keep-alive-timeout`` seconds (default 20), longer than the idle expiry of common client
pools (httpx 5 s, Node 4 s, aiohttp 15 s), and every response says
``Keep-Alive: timeout=N`` with N two seconds shorter, so that clients which read the hint close
their side first. A server that closes a connection at the moment the client reuses it makes
the client's request fail with a connection reset; with uvicorn's default of 5 seconds, equal
to httpx's expiry, that race was lost now and then under load.
"""

from __future__ import annotations

import asyncio
import json
import socket
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = [
    "DEFAULT_KEEP_ALIVE_TIMEOUT",
    "DEFAULT_REQUEST_TIMEOUT",
    "GuardedH11Protocol",
    "ServeConfig",
    "advertised_keep_alive",
]

#: Seconds a client may take from the first byte of a request to the end of its headers, and
#: the longest pause allowed while it sends a body.
DEFAULT_REQUEST_TIMEOUT = 10.0
#: Seconds an idle connection (no request in progress) is kept open.
DEFAULT_KEEP_ALIVE_TIMEOUT = 20.0


def advertised_keep_alive(timeout: float) -> int:
    """The ``Keep-Alive: timeout=N`` hint: a margin below the real timeout, at least 1 s.

    Examples
    --------
    >>> advertised_keep_alive(20.0)
    18
    >>> advertised_keep_alive(1.5)
    1
    """
    return max(1, int(timeout) - 2)


class ServeConfig(uvicorn.Config):
    """uvicorn's configuration plus the request timeout the protocol reads.

    A subclass (rather than a module variable) so that the value travels with the
    configuration to the worker processes of ``--workers N``, which receive it pickled.
    """

    def __init__(self, app: Any, *, request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
                 **kwargs: Any) -> None:
        self.request_timeout = float(request_timeout)
        super().__init__(app, **kwargs)


_TIMEOUT_BODY = json.dumps(
    {"error": {"status": 408, "message": "the request headers did not arrive in time",
               "field": None, "errors": [{"field": None,
                                          "message": "the request headers did not arrive in time",
                                          "type": "timeout"}]}}
).encode()
_TIMEOUT_RESPONSE = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\nconnection: close\r\n"
    b"content-length: " + str(len(_TIMEOUT_BODY)).encode() + b"\r\n\r\n" + _TIMEOUT_BODY
)


def _no_delay(transport: asyncio.BaseTransport) -> None:
    """Send each write at once (``TCP_NODELAY``) on a TCP connection.

    A response leaves in two writes (its head, then its body). With Nagle's algorithm on, the
    body waits until the client acknowledges the head, and clients delay that acknowledgement
    (40 ms on Linux): every kept-alive request would take 40 ms longer than its work. asyncio
    sets the option itself only on sockets created with ``IPPROTO_TCP`` as their protocol;
    the connections accepted on the listening socket that ``mcnemar serve`` binds (protocol
    0, as most servers create it) do not get it.
    """
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:  # already closed: nothing to speed up
            pass


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with an idle limit from the first byte and a header deadline."""

    def __init__(self, config: uvicorn.Config, *args: Any, **kwargs: Any) -> None:
        super().__init__(config, *args, **kwargs)
        self.request_timeout = float(getattr(config, "request_timeout", DEFAULT_REQUEST_TIMEOUT))
        self._deadline: asyncio.TimerHandle | None = None
        self._waiting_for_headers = False
        self._write_deadline: asyncio.TimerHandle | None = None

    def _arm(self, seconds: float, handler: Any) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, handler)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self._waiting_for_headers = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        _no_delay(transport)
        super().connection_made(transport)
        # A connection that never sends a request is idle from the start.
        self._arm(self.timeout_keep_alive, self._close_idle)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._stop_write_deadline()
        super().connection_lost(exc)

    def pause_writing(self) -> None:
        # The client reads nothing while the send buffer is full: it has this long to read.
        super().pause_writing()
        self._stop_write_deadline()
        self._write_deadline = self.loop.call_later(self.request_timeout, self._not_reading)

    def resume_writing(self) -> None:
        self._stop_write_deadline()
        super().resume_writing()

    def _stop_write_deadline(self) -> None:
        if self._write_deadline is not None:
            self._write_deadline.cancel()
            self._write_deadline = None

    def _not_reading(self) -> None:
        self._write_deadline = None
        if not self.transport.is_closing():
            self.logger.info("closed a connection whose client read nothing of its response "
                             "for %g s", self.request_timeout)
            self.transport.abort()
        # The response waiting to be sent goes on: it is discarded, not left pending.
        self.flow.resume_writing()

    def data_received(self, data: bytes) -> None:
        between_requests = self.conn.their_state is h11.IDLE
        before = self.cycle
        super().data_received(data)
        if self.transport.is_closing() or self.cycle is not before:
            # Closed, or the headers of a request are complete (the application times its
            # body from here).
            self._disarm()
        elif between_requests and self.conn.their_state is h11.IDLE and data:
            if not self._waiting_for_headers:
                # The first bytes of a request: its headers must follow within the limit.
                self._arm(self.request_timeout, self._headers_too_slow)
                self._waiting_for_headers = True

    def on_response_complete(self) -> None:
        self._disarm()
        super().on_response_complete()

    def _close_idle(self) -> None:
        self._deadline = None
        if not self.transport.is_closing() and (self.cycle is None or self.cycle.response_complete):
            self.transport.close()

    def _headers_too_slow(self) -> None:
        self._deadline = None
        self._waiting_for_headers = False
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        self.logger.info("closed a connection whose request headers did not arrive within %g s",
                         self.request_timeout)
        self.transport.write(_TIMEOUT_RESPONSE)
        self.transport.close()
