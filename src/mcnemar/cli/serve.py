"""``mcnemar serve``: start the local web calculator on a real uvicorn server.

The server binds to loopback (127.0.0.1) unless ``--host`` says otherwise; it then only
answers requests addressed to the loopback names, which protects it from other web pages
(DNS rebinding). FastAPI and uvicorn are imported only here, when the command runs.
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import threading
import webbrowser
from typing import Any

import click

from mcnemar.cli._common import handle_errors
from mcnemar.errors import McNemarError

__all__ = ["serve"]

_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]", "::1")


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


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8000,
    show_default=True,
    help="Port to listen on (0 picks a free one).",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the page in a web browser.")
@click.option(
    "--max-upload-mb",
    type=click.FloatRange(min=0, min_open=True),
    default=50.0,
    show_default=True,
    help="Largest result file accepted by the upload, per file, in megabytes.",
)
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="Worker processes serving requests (more use more CPU cores).",
)
@handle_errors
def serve(host: str, port: int, open_browser: bool, max_upload_mb: float, workers: int) -> None:
    """Start the local web calculator and print its URL.

    \b
    The page runs every McNemar test on the counts you type (or on two
    uploaded result files) and updates as you type. The JSON API is
    POST /api/v1/analyze and POST /api/v1/compare; its OpenAPI schema is at
    /api/v1/openapi.json.

    \b
    Examples:
      mcnemar serve
      mcnemar serve --port 8080 --open
      mcnemar serve --workers 2
    """
    from mcnemar.web import require_web_extra

    require_web_extra()
    import uvicorn

    from mcnemar.web.app import create_app

    loopback = _is_loopback(host)
    allowed = list(_LOOPBACK_NAMES) if loopback else None
    app = create_app(max_upload_mb=max_upload_mb, allowed_hosts=allowed)
    sock = _bind(host, port)
    actual_port = sock.getsockname()[1]
    url = _url(host, actual_port)
    click.echo(f"mcnemar calculator: {url}  (press Ctrl+C to stop)")
    if not loopback:
        click.echo(
            f"warning: listening on {host}, so other machines on the network can reach it",
            err=True,
        )
    if open_browser:
        threading.Timer(0.5, webbrowser.open, args=(url,)).start()
    options: dict[str, Any] = {
        "log_level": "warning",
        "access_log": False,
        "server_header": False,
        "timeout_graceful_shutdown": 3,
    }
    try:
        if workers == 1:
            uvicorn.Server(uvicorn.Config(app, **options)).run(sockets=[sock])
        else:
            # Workers are separate processes: they import the application factory and read
            # the settings from the environment they inherit.
            os.environ["MCNEMAR_SERVE_MAX_UPLOAD_MB"] = repr(max_upload_mb)
            if allowed is not None:
                os.environ["MCNEMAR_SERVE_ALLOWED_HOSTS"] = json.dumps(allowed)
            from uvicorn.supervisors import Multiprocess

            config = uvicorn.Config(
                "mcnemar.web.app:app_from_environment", factory=True, workers=workers, **options
            )
            Multiprocess(config, sockets=[sock]).run()
    finally:
        sock.close()
