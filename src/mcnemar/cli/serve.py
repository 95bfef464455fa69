"""``mcnemar serve``: start the local web calculator on a real uvicorn server.

The server binds to loopback (127.0.0.1) unless ``--host`` says otherwise. Whatever the
address, it answers only requests addressed to the names it was started for: the loopback
names and the bound address, plus every ``--allowed-host``; binding a non-loopback address
(``0.0.0.0`` included) requires naming them. This protects it from other web pages (DNS
rebinding); :mod:`mcnemar.web.app` also refuses state-changing requests from other origins,
and :mod:`mcnemar.web.server` drops slow and idle connections. FastAPI and uvicorn are imported
only here, when the command runs.
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import threading
import webbrowser
from collections.abc import Callable
from typing import Any, TypeVar

import click

from mcnemar.cli._common import handle_errors
from mcnemar.errors import McNemarError

__all__ = ["serve"]

F = TypeVar("F", bound=Callable[..., Any])

_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]", "::1")
#: The environment variable that carries the settings to the worker processes.
SETTINGS_ENV = "MCNEMAR_SERVE_SETTINGS"


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _bind(host: str, port: int) -> socket.socket:
    """Bind the listening socket ourselves, so that ``--port 0`` can report the real port."""
    bare = host.strip("[]")
    try:
        infos = socket.getaddrinfo(bare, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise McNemarError(f"--host {host!r} cannot be resolved ({exc.strerror})") from exc
    family, _, _, _, address = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise McNemarError(
            f"cannot listen on {host}:{port} ({exc.strerror}); "
            "choose another --port (0 picks a free one)"
        ) from exc
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def _url(host: str, port: int) -> str:
    shown = host.strip("[]")
    if shown in ("0.0.0.0", "::"):
        shown = "127.0.0.1"
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


def _host_name(name: str) -> str:
    """A host name as it appears in a ``Host`` header (IPv6 in brackets, lower case)."""
    name = name.strip().lower()
    bare = name.strip("[]")
    try:
        if ipaddress.ip_address(bare).version == 6:
            return f"[{bare}]"
    except ValueError:
        pass
    return name


def _allowed_hosts(host: str, extra: tuple[str, ...]) -> list[str]:
    """The Host names to answer: loopback names, the bound address, then ``--allowed-host``.

    Examples
    --------
    >>> _allowed_hosts("127.0.0.2", ())
    ['127.0.0.1', 'localhost', '[::1]', '::1', '127.0.0.2']
    >>> _allowed_hosts("0.0.0.0", ("Box.lan",))[-1]
    'box.lan'
    """
    names = list(_LOOPBACK_NAMES)
    bound = host.strip("[]")
    if bound not in ("0.0.0.0", "::"):
        names.append(_host_name(bound))
    for name in extra:
        if not name.strip() or any(c in name for c in "/ \t@?#") or name.count(":") == 1:
            raise McNemarError(
                f"--allowed-host {name!r} is not a host name; give a bare name or address "
                "without scheme or port, e.g. --allowed-host mybox.local"
            )
        names.append(_host_name(name))
    return list(dict.fromkeys(names))


def _raise_open_file_limit() -> None:
    """Let the process hold many connections: raise the soft open-file limit to the hard one."""
    try:
        import resource
    except ImportError:  # not on this platform
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 65536 if hard == resource.RLIM_INFINITY else min(hard, 65536)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError):
            pass


_POSITIVE = click.FloatRange(min=0, min_open=True)


def _setting(
    flag: str, kind: click.ParamType, default: float | None, help: str
) -> Callable[[F], F]:
    """A numeric setting of the server: its range, its default (shown when there is one), help."""
    return click.option(flag, type=kind, default=default, show_default=default is not None,
                        help=help)


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@_setting("--port", click.IntRange(0, 65535), 8000, "Port to listen on (0 picks a free one).")
@click.option("--open", "open_browser", is_flag=True, help="Open the page in a web browser.")
@click.option(
    "--allowed-host",
    "allowed_host",
    multiple=True,
    metavar="NAME",
    help="A host name (or address) the server may be reached by, besides the loopback names; "
    "repeatable. Required with a non-loopback --host such as 0.0.0.0.",
)
@_setting(
    "--max-upload-mb", _POSITIVE, 50.0,
    "Largest result file accepted by the upload, per file, in megabytes.",
)
@_setting(
    "--max-inflated-mb", _POSITIVE, None,
    "Bytes one uploaded archive (.eval) may decompress to, in MB, counted as they are "
    "inflated. Default: 20 x --max-upload-mb, at most 256.",
)
@_setting("--max-archive-members", click.IntRange(min=1), 100_000,
          "Entries one uploaded archive may list.")
@_setting(
    "--max-parsed-mb", _POSITIVE, 300.0,
    "Memory the objects parsed from one upload (both files) may take, in MB, estimated "
    "before each parse; denser files are refused with 413.",
)
@_setting(
    "--request-timeout", _POSITIVE, 10.0,
    "Seconds a client may take to send a request's headers, or pause while sending its "
    "body; slower requests are dropped.",
)
@_setting("--keep-alive-timeout", click.FloatRange(min=1), 20.0,
          "Seconds an idle connection is kept open (advertised 2 s shorter to clients).")
@_setting(
    "--compute-timeout", _POSITIVE, 10.0,
    "Seconds the analysis of one request may compute (in a worker process, away from the "
    "server's event loop) before it is stopped and answered 503.",
)
@_setting("--workers", click.IntRange(1, 64), 1,
          "Worker processes serving requests (more use more CPU cores).")
@handle_errors
def serve(
    host: str,
    port: int,
    open_browser: bool,
    allowed_host: tuple[str, ...],
    max_upload_mb: float,
    max_inflated_mb: float | None,
    max_archive_members: int,
    max_parsed_mb: float,
    request_timeout: float,
    keep_alive_timeout: float,
    compute_timeout: float,
    workers: int,
) -> None:
    """Start the local web calculator and print its URL.

    \b
    The page runs every McNemar test on the counts you type (or on two
    uploaded result files) and updates as you type. The JSON API is
    POST /api/v1/analyze and POST /api/v1/compare; its OpenAPI schema is at
    /api/v1/openapi.json. Only the calculator's own page (and programs that
    are not web pages, such as curl) may use it: requests from other web
    pages are refused.

    \b
    Examples:
      mcnemar serve
      mcnemar serve --port 8080 --open
      mcnemar serve --workers 2
      mcnemar serve --host 0.0.0.0 --allowed-host mybox.local
    """
    from mcnemar.web import require_web_extra

    require_web_extra()
    import uvicorn

    from mcnemar.web.app import create_app, default_inflated_mb
    from mcnemar.web.compute import DEFAULT_COMPUTE_PROCESSES
    from mcnemar.web.server import GuardedH11Protocol, ServeConfig, advertised_keep_alive

    loopback = _is_loopback(host)
    if not loopback and not allowed_host:
        raise McNemarError(
            f"--host {host} listens beyond this computer, so name the host names the server "
            "may be reached by (it refuses all others, against DNS rebinding): add "
            "--allowed-host NAME, repeatable, e.g. --allowed-host mybox.local"
        )
    allowed = _allowed_hosts(host, allowed_host)
    settings: dict[str, Any] = {
        "max_upload_mb": max_upload_mb,
        "allowed_hosts": allowed,
        "max_inflated_mb": (
            max_inflated_mb if max_inflated_mb is not None else default_inflated_mb(max_upload_mb)
        ),
        "max_archive_members": max_archive_members,
        "max_parsed_mb": max_parsed_mb,
        "request_timeout": request_timeout,
        "compute_timeout": compute_timeout,
        "compute_processes": DEFAULT_COMPUTE_PROCESSES,
    }
    app = create_app(**settings)
    sock = _bind(host, port)
    actual_port = sock.getsockname()[1]
    # The bound address is allowed, so this URL answers (0.0.0.0 and :: are reached on loopback).
    url = _url(host, actual_port)
    extra = allowed[len(_LOOPBACK_NAMES):]
    others = [u for u in (f"http://{name}:{actual_port}/" for name in extra) if u != url]
    click.echo(f"mcnemar calculator: {url}  (press Ctrl+C to stop)")
    for other in others:
        click.echo(f"  also at {other}")
    if not loopback:
        click.echo(
            f"warning: listening on {host}, so other machines on the network can reach it; "
            f"it answers requests addressed to {', '.join(extra)} "
            "and the loopback names",
            err=True,
        )
    if open_browser:
        threading.Timer(0.5, webbrowser.open, args=(url,)).start()
    _raise_open_file_limit()
    options: dict[str, Any] = {
        "log_level": "warning",
        "access_log": False,
        "server_header": False,
        "timeout_graceful_shutdown": 3,
        "http": GuardedH11Protocol,
        "timeout_keep_alive": keep_alive_timeout,
        "headers": [("keep-alive", f"timeout={advertised_keep_alive(keep_alive_timeout)}")],
        "request_timeout": request_timeout,
    }
    try:
        if workers == 1:
            uvicorn.Server(ServeConfig(app, **options)).run(sockets=[sock])
        else:
            # Workers are separate processes: they import the application factory and read
            # the settings from the environment they inherit.
            os.environ[SETTINGS_ENV] = json.dumps(settings)
            from uvicorn.supervisors import Multiprocess

            config = ServeConfig(
                "mcnemar.web.app:app_from_environment", factory=True, workers=workers, **options
            )
            Multiprocess(config, sockets=[sock]).run()
    finally:
        sock.close()

