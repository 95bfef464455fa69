"""The API's one error shape, and the sentences that explain validation errors.

Every failure of the calculator's API, whatever its cause, is answered as::

    {"error": {"status": 422, "message": "b must be >= 0, got -1; counts cannot be negative",
               "field": "b", "errors": [{"field": "b", "message": "...", "type": "..."}]}}

``field`` names the request field to fix (or is null for the body as a whole). Errors of the
request models (pydantic) are located by pydantic; errors of the library
(:class:`mcnemar.errors.McNemarError`) name the argument they are about
(:attr:`~mcnemar.errors.McNemarError.arguments`), which :func:`field_for_error` maps to the
request's field, never by reading the message.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from fastapi.responses import JSONResponse

from mcnemar.errors import McNemarError
from mcnemar.web.models import ERRORS_FRAMING_CELLS, ErrorResponse

__all__ = [
    "ERROR_RESPONSES",
    "ApiError",
    "describe",
    "error_response",
    "field_for_error",
    "validation_response",
]


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


def error_response(
    status: int,
    message: str,
    field: str | None = None,
    errors: Sequence[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    """The one error shape (``errors`` defaults to the one problem the message states)."""
    if errors is None:
        errors = [{"field": field, "message": message, "type": _status_type(status)}]
    from mcnemar.web.respond import clean_strings

    body = {"error": {"status": status, "message": message, "field": field, "errors": errors}}
    return JSONResponse(clean_strings(body), status_code=status, headers=headers)


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


def describe(err: dict[str, Any]) -> dict[str, Any]:
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
        if field in ERRORS_FRAMING_CELLS:
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


def validation_response(errors: Iterable[dict[str, Any]]) -> JSONResponse:
    """A 422 listing every problem pydantic found, counts first, each stated once."""
    details = [describe(dict(e)) for e in errors]
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
    return error_response(422, message, first["field"], unique)


# ----------------------------------------------------------------------------- the library's errors

#: The request's name of a library argument where it differs from the argument's own.
#: Cells a-d of the errors framing: "only A wrong" is cell c, "only B wrong" cell b.
ERRORS_FRAMING_FIELDS = dict(zip(("a", "b", "c", "d"), ERRORS_FRAMING_CELLS, strict=True))


def field_for_error(
    exc: McNemarError,
    fields: Iterable[str],
    renamed: Mapping[str, str] | None = None,
) -> str | None:
    """The request field a library error is about, from the arguments it names.

    Each argument of :attr:`McNemarError.arguments <mcnemar.errors.McNemarError.arguments>`
    is spelled as the request spells it (``renamed``, else the argument's own name); the first
    that is one of ``fields`` is the answer, ``None`` when none is (the error concerns the
    request as a whole). The message is never read.

    Examples
    --------
    >>> from mcnemar.errors import option
    >>> err = McNemarError(f"{option('b')} must be a whole number >= 0; got -1")
    >>> field_for_error(err, {"a", "b", "c", "d"})
    'b'
    >>> field_for_error(err, {"only_a_wrong", "only_b_wrong"}, ERRORS_FRAMING_FIELDS)
    'only_b_wrong'
    >>> field_for_error(McNemarError("no argument named"), {"b"}) is None
    True
    """
    known = set(fields)
    names = dict(renamed or {})
    for argument in exc.arguments:
        field = names.get(argument, argument)
        if field in known:
            return field
    return None


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorResponse, "description": "Bad request (e.g. a wrong Host header)."},
    403: {"model": ErrorResponse, "description": "Sent by a web page of another origin."},
    408: {"model": ErrorResponse, "description": "The request did not arrive in time."},
    413: {"model": ErrorResponse, "description": "The body (or a file) is over the limit."},
    422: {"model": ErrorResponse, "description": "Invalid input; `field` names the culprit."},
    500: {"model": ErrorResponse, "description": "A bug in mcnemar (please report it)."},
}
