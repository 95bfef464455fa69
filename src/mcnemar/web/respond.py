"""The one success shape: a report's ``to_dict()``, plus the extras a request asked for.

``include`` may ask for ``"distribution"`` (the null distribution Bin(D, 1/2) of cell b, on
a window fit for a picture: :func:`mcnemar.inference.null_distribution`), ``"markdown"``
(:meth:`~mcnemar.report.Report.to_markdown`) and ``"text"`` (``str(report)``); each is
computed only when asked for. The body is serialised once, refusing NaN and infinity (the
report promises it never has them).

Every string of every body the server sends (its keys too; error bodies as well) is passed
through :func:`mcnemar._format.plain_lines` on the way out: a name a file carries (a model, a
task, a file name) may hold control characters or bidirectional overrides
(``safe`` + U+202E + ``gnp.exe`` shows as "safeexe.png"), and the page renders what it
receives.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from fastapi.responses import Response

from mcnemar._format import plain_lines

__all__ = ["clean_strings", "dumps", "json_response", "map_strings", "render", "report_body"]

#: Distribution pictures show every value of b up to this many discordant items, and a
#: sampled window around the centre beyond it.
FULL_DISTRIBUTION_MAX = 200
DISTRIBUTION_POINTS = 241


def json_response(body: Any, status: int = 200) -> Response:
    """Serialize once, refusing NaN and infinity (the report promises it never has them)."""
    return Response(dumps(body), status_code=status, media_type="application/json")


def dumps(body: Any) -> bytes:
    """Compact UTF-8 JSON, refusing NaN and infinity, every string cleaned (the module's
    description): what every body of the server goes through.

    >>> dumps({"task": "safe\\u202egnp.exe", "text": "a\\nb"})
    b'{"task":"safegnp.exe","text":"a\\\\nb"}'
    """
    text = json.dumps(clean_strings(body), allow_nan=False, ensure_ascii=False,
                      separators=(",", ":"))
    return text.encode("utf-8")


def clean_strings(obj: Any) -> Any:
    """``obj`` with every string, keys included, without control characters other than line
    breaks and tabs, and without bidirectional overrides (:func:`~mcnemar._format.plain_lines`)."""
    # (exact types first: a report's body is some four hundred values, most of them numbers,
    # and every body of the server comes through here)
    kind = type(obj)
    if kind is float or kind is int or kind is bool or obj is None:
        return obj
    if kind is str or isinstance(obj, str):
        return plain_lines(obj)
    if kind is dict or isinstance(obj, dict):
        return {plain_lines(k) if isinstance(k, str) else k: clean_strings(v)
                for k, v in obj.items()}
    if kind is list or kind is tuple or isinstance(obj, list | tuple):
        # (the numbers of a list, a picture's hundreds of them, without a call each)
        return [v if type(v) is float or type(v) is int else clean_strings(v) for v in obj]
    return obj


def distribution(b: int, c: int) -> dict[str, Any]:
    """The null distribution of b, Bin(D, 1/2), on a window fit for a picture."""
    from mcnemar.inference import null_distribution

    return null_distribution(b, c, points=DISTRIBUTION_POINTS, full_up_to=FULL_DISTRIBUTION_MAX)


def report_body(report: Any, include: Iterable[str], b: int, c: int) -> dict[str, Any]:
    """The report's ``to_dict()`` with the extras asked for in ``include``."""
    body: dict[str, Any] = dict(report.to_dict())
    wanted = set(include)
    if "distribution" in wanted:
        body["distribution"] = distribution(b, c)
    if "markdown" in wanted:
        body["markdown"] = report.to_markdown()
    if "text" in wanted:
        body["text"] = str(report)
    return body


def render(
    report: Any,
    include: Iterable[str],
    b: int,
    c: int,
    scrub: Callable[[str], str] | None = None,
) -> Response:
    """The response of an analysis: :func:`report_body`, every string passed through
    ``scrub`` when given (an upload's temporary paths become the names uploaded)."""
    body = report_body(report, include, b, c)
    if scrub is not None:
        body = map_strings(body, scrub)
    return json_response(body)


def map_strings(obj: Any, func: Callable[[str], str]) -> Any:
    """``obj`` with every string in it (keys aside) passed through ``func``."""
    if isinstance(obj, str):
        return func(obj)
    if isinstance(obj, dict):
        return {k: map_strings(v, func) for k, v in obj.items()}
    if isinstance(obj, list):
        return [map_strings(v, func) for v in obj]
    return obj
