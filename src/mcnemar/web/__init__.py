"""The local web calculator: a page and a JSON API over :func:`mcnemar.report.analyze`.

=====================  ==================================================================
module                 holds
=====================  ==================================================================
:mod:`.app`            the ASGI application (:func:`create_app`): the page, ``/api/v1/analyze``,
                       the handlers that give every failure the one error shape
:mod:`.compare`        ``/api/v1/compare``: two uploaded files through the library's pipeline
:mod:`.errors`         the one error shape; validation errors in words; a library error's
                       field from the argument it names
:mod:`.guard`          the security middleware: Host, Origin, body size and pace
:mod:`.respond`        the one success shape: the report's ``to_dict()`` plus the extras asked
:mod:`.models`         pydantic models of the requests and responses (the OpenAPI schema)
:mod:`.upload`         streaming multipart reader with a per-file size limit; archive checks
:mod:`.server`         uvicorn's HTTP protocol with time limits for slow and idle clients
``templates/``         the page (``index.html``)
``static/``            its ES modules (``app.js`` the entry, ``charts.js`` and the rest)
                       and style sheet (``style.css``); numbers come as text (:mod:`.display`)
=====================  ==================================================================

It needs the ``web`` extra (``pip install 'mcnemar[web]'``: FastAPI, uvicorn and
python-multipart). Importing this package does not import them; :func:`create_app` does, and
says how to install them when they are missing. Start it with ``mcnemar serve``.
"""

from __future__ import annotations

from typing import Any

from mcnemar.errors import McNemarError

__all__ = ["WEB_EXTRA_HINT", "create_app", "require_web_extra"]

WEB_EXTRA_HINT = "pip install 'mcnemar[web]'"


def require_web_extra() -> None:
    """Raise :class:`McNemarError` naming the ``web`` extra if FastAPI or uvicorn is missing.

    Examples
    --------
    >>> require_web_extra()  # silent when the extra is installed
    """
    import importlib.util

    missing = [
        name
        for name in ("fastapi", "uvicorn", "python_multipart")
        if importlib.util.find_spec(name) is None
    ]
    if missing:
        raise McNemarError(
            f"the web calculator needs {', '.join(missing)}, which are not installed; "
            f"install the web extra: {WEB_EXTRA_HINT}"
        )


def create_app(**kwargs: Any) -> Any:
    """Build the calculator's ASGI application (see :func:`mcnemar.web.app.create_app`).

    Examples
    --------
    >>> app = create_app(max_upload_mb=5)
    >>> app.title
    'mcnemar calculator'
    """
    require_web_extra()
    from mcnemar.web.app import create_app as _create_app

    return _create_app(**kwargs)
