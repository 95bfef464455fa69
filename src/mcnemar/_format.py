"""Numbers for people and for JSON, in one place: p-values, plain numbers and JSON-safe values.

Every result object's ``to_dict()`` and ``__str__`` goes through these helpers, so that a NaN
becomes ``null`` the same way everywhere and a p-value reads the same in every table.

JSON
----
:func:`json_number`
    a float quantity (scalar or array): ``None`` for NaN, inf or ``None``; arrays as nested lists.
:func:`json_value`
    any value of a result, element by element: NaN and inf as ``None``, numpy scalars as Python
    ones, arrays as lists; strings, Python ints, booleans and ``None`` unchanged.
:func:`json_fields`
    named attributes of a result through :func:`json_value`, as the start of its ``to_dict()``.
:func:`scalar_or_array`
    a 0-d result as a Python float, an array unchanged (scalars in, scalars out).

Text
----
:func:`format_pvalue`
    p with 4 significant digits, or ``m e-x`` from log10 p where the double underflows.
:func:`format_table_pvalue`
    p for a column of a table (4 decimals, ``x.xe-y`` below 1e-4), never printed on the other
    side of ``alpha`` than it is.
:func:`digits_against_alpha`
    the rule behind the last one, for any rendering: add digits until the printed p compares
    with ``alpha`` the way the exact p does.
:func:`format_number`
    a statistic with a given format spec, a word where it is undefined.
:func:`format_points`
    a difference of proportions in percentage points, signed.

Names and sentences
-------------------
:func:`markdown_text`
    plain text made inert in markdown (names and sentences in reports and tables).
:func:`shorten`
    a name cut to ``TITLE_CHARS`` characters with an ellipsis (titles).
:func:`clean_name`, :func:`plain_lines`, :func:`is_control`
    names on one line, text for a terminal, and the characters both remove.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

__all__ = [
    "TEXT_WIDTH",
    "TITLE_CHARS",
    "clean_name",
    "digits_against_alpha",
    "format_label_pvalue",
    "format_number",
    "format_points",
    "format_pvalue",
    "format_table_pvalue",
    "is_control",
    "json_number",
    "json_value",
    "markdown_text",
    "plain_lines",
    "scalar_or_array",
    "shipped_schema",
    "shorten",
    "wrap",
]


def json_number(x: Any) -> Any:
    """A float quantity, JSON-safe: a float, ``None`` for NaN/inf/``None``; arrays as lists.

    Examples
    --------
    >>> json_number(0.25), json_number(float("nan")), json_number(None)
    (0.25, None, None)
    >>> json_number(np.array([[1.0, np.inf], [np.nan, 2]]))
    [[1.0, None], [None, 2.0]]
    """
    if x is None:
        return None
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim == 0:
        v = float(arr)
        return v if math.isfinite(v) else None
    obj = arr.astype(object)
    obj[~np.isfinite(arr)] = None
    return obj.tolist()


def json_value(x: Any) -> Any:
    """Any value of a result, JSON-safe, element by element.

    Arrays and lists become lists; floats (Python or numpy) that are NaN or inf become
    ``None``; numpy integers and booleans become Python ones; anything else (``None``,
    strings, Python ints and bools) is returned as it is.

    Examples
    --------
    >>> json_value(np.int64(7)), json_value(np.array([1, 2])), json_value("holm")
    (7, [1, 2], 'holm')
    >>> json_value([np.float64(0.5), np.nan, 3]), json_value(np.array([[np.inf, 0.25]]))
    ([0.5, None, 3], [[None, 0.25]])
    """
    if isinstance(x, np.ndarray):
        return [json_value(v) for v in x.tolist()] if x.ndim else json_value(x.item())
    if isinstance(x, list):
        return [json_value(v) for v in x]
    if isinstance(x, float | np.floating):
        return float(x) if math.isfinite(x) else None
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    return x


def json_fields(obj: Any, *names: str) -> dict[str, Any]:
    """The named attributes of a result, JSON-safe (:func:`json_value`), in the order given.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> json_fields(SimpleNamespace(n=np.int64(3), p=np.nan, method="exact"), "n", "p", "method")
    {'n': 3, 'p': None, 'method': 'exact'}
    """
    return {name: json_value(getattr(obj, name)) for name in names}


class Rendered:
    """``str()``, ``to_markdown()`` and the notebook's HTML and markdown of a result, drawn by
    the functions ``text``, ``markdown`` and ``html`` of its renderer module (a result class
    names it as ``_renderer``; the rendering lives beside, not inside, the numbers)."""

    __slots__ = ()
    _renderer: ClassVar[Any]

    def __str__(self) -> str:
        return str(self._renderer.text(self))

    def to_markdown(self) -> str:
        """The result as GitHub-flavoured markdown (e.g. for a pull-request comment)."""
        return str(self._renderer.markdown(self))

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def _repr_html_(self) -> str:
        """A compact HTML table for notebooks, the verdict first."""
        return str(self._renderer.html(self))


def scalar_or_array(x: Any) -> Any:
    """A 0-d value as a Python float; an array unchanged (the same object).

    Examples
    --------
    >>> scalar_or_array(np.float64(0.5)), scalar_or_array(np.array(2))
    (0.5, 2.0)
    >>> scalar_or_array(np.array([0.5, 1.0])).shape
    (2,)
    """
    arr = np.asarray(x)
    if arr.ndim == 0:
        return float(arr)
    return arr


def format_pvalue(pvalue: Any, log10_pvalue: Any) -> str:
    """p for humans: 4 significant digits, or 10^x where the double underflows.

    Examples
    --------
    >>> format_pvalue(0.0025768, -2.5889)
    '0.002577'
    >>> format_pvalue(0.0, -1504.8489)
    '1.416e-1505'
    """
    p = float(pvalue)
    lp = float(log10_pvalue)
    if p > 1e-300:
        return f"{p:.4g}"
    exponent = math.floor(lp)
    mantissa = 10.0 ** (lp - exponent)
    return f"{mantissa:.4g}e{exponent}"


def digits_against_alpha(
    p: float, alpha: float | None, render: Callable[[int], str], digits: int
) -> str:
    """``render(digits)``, with more digits while the printed p and p lie on opposite sides of
    ``alpha`` (so p = 0.04996 never reads 0.05 against alpha = 0.05); at most 17 digits.

    Examples
    --------
    >>> digits_against_alpha(0.049996, 0.05, lambda d: f"{0.049996:.{d}f}", 4)
    '0.049996'
    >>> digits_against_alpha(0.049996, None, lambda d: f"{0.049996:.{d}f}", 4)
    '0.0500'
    """
    text = render(digits)
    while alpha is not None and (float(text) < alpha) != (p < alpha) and digits < 17:
        digits += 1
        text = render(digits)
    return text


def format_table_pvalue(p: float, alpha: float | None = None) -> str:
    """A p-value for a column of a table: ``-`` if undefined, ``<1e-300`` for 0, ``x.xe-y``
    below 1e-4, else 4 decimals (more where needed to stay on the right side of ``alpha``).

    Examples
    --------
    >>> format_table_pvalue(0.012345), format_table_pvalue(2.5e-7), format_table_pvalue(0.0)
    ('0.0123', '2.5e-07', '<1e-300')
    >>> format_table_pvalue(0.049996, alpha=0.05)
    '0.049996'
    """
    p = float(p)
    if not math.isfinite(p):
        return "-"
    if p == 0.0:
        return "<1e-300"
    if p < 1e-4:
        return f"{p:.1e}"
    return digits_against_alpha(p, alpha, lambda d: f"{p:.{d}f}", 4)


def format_label_pvalue(p: float, alpha: float | None = None) -> str:
    """A short p-value for a label in a figure (two digits, ``x e-y`` below 1e-3, ``1`` from
    0.995); never printed on the other side of ``alpha`` than it is. The PNG and the SVG forest
    plots and the heatmap label their p-values with it.

    Examples
    --------
    >>> format_label_pvalue(0.0003), format_label_pvalue(0.0421), format_label_pvalue(0.3823)
    ('3e-04', '0.042', '0.38')
    >>> format_label_pvalue(0.0496, alpha=0.05), format_label_pvalue(0.999)
    ('0.0496', '1')
    """
    if p == 0.0:
        return "<1e-300"
    if p < 1e-3:
        return f"{p:.0e}"
    if p >= 0.995:
        return "1"
    first = f"{p:.2g}" if p < 0.1 else f"{p:.2f}"
    return digits_against_alpha(p, alpha, lambda d: first if d == 2 else f"{p:.{d}g}", 2)


def format_number(x: Any, spec: str = ".6g", undefined: str = "undefined") -> str:
    """``format(x, spec)``, or the word ``undefined`` for NaN, inf or ``None``.

    Examples
    --------
    >>> format_number(3.14159265), format_number(float("nan")), format_number(None, ".4g", "n/a")
    ('3.14159', 'undefined', 'n/a')
    """
    if x is None:
        return undefined
    v = float(x)
    if not math.isfinite(v):
        return undefined
    return format(v, spec)


def format_points(delta: float) -> str:
    """A difference of proportions in signed percentage points.

    Examples
    --------
    >>> format_points(0.0235), format_points(-0.1)
    ('+2.35 points', '-10.00 points')
    """
    return f"{100.0 * delta:+.2f} points"


# ---------------------------------------------------------------------------------------------
# names and sentences as text and markdown


#: Names longer than this are shortened with an ellipsis in titles.
TITLE_CHARS = 40
# Bidirectional overrides and isolates reorder what a terminal or an editor shows.
_BIDI = frozenset("\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_ENTITY = re.compile(r"&(#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")
_MD_ALWAYS = frozenset("\\`*[]|#$")


def is_control(ch: str) -> bool:
    """A control character, line or paragraph separator, or bidirectional override."""
    return ch in _BIDI or unicodedata.category(ch) in ("Cc", "Zl", "Zp")


def clean_name(name: str) -> str:
    """A name on one line: control characters, line breaks and bidirectional overrides
    become spaces, runs of white space one space."""
    return " ".join("".join(" " if is_control(ch) else ch for ch in name).split())


#: The width of every text report's paragraphs (a terminal of 100 columns keeps a margin).
TEXT_WIDTH = 92


def wrap(text: str, indent: str = "") -> str:
    """A paragraph of a text report, wrapped at :data:`TEXT_WIDTH` (``indent`` before the
    lines after the first)."""
    import textwrap

    return textwrap.fill(text, width=TEXT_WIDTH, subsequent_indent=indent)


def plain_lines(text: str) -> str:
    """Text for a terminal: control characters other than line breaks and tabs removed (an
    escape sequence in a file name must not drive the terminal).

    The characters removed are those :func:`is_control` accepts less ``\\n`` and ``\\t``, as
    one character class, so that a whole response is scanned by the regular-expression engine
    (every string the server sends passes through here).

    >>> plain_lines("a\\x1b[31mb\\u202ec\\n\\td")
    'a[31mbc\\n\\td'
    """
    return _PLAIN_STRIP.sub("", text)


def shorten(name: str, limit: int = TITLE_CHARS) -> str:
    """``name`` cut to ``limit`` characters with an ellipsis."""
    return name if len(name) <= limit else name[: limit - 1].rstrip() + "…"


# The characters is_control accepts (categories Cc, Zl, Zp and the bidirectional controls),
# as one class, so that whole sentences are scanned by the regular-expression engine.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029" + "".join(sorted(_BIDI)) + "]")
# The same less the line break and the tab: what plain_lines removes.
_PLAIN_STRIP = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029"
                          + "".join(sorted(_BIDI)) + "]")
# The characters markdown_text may have to escape; every other character is kept as it is.
_MD_SPECIAL = re.compile(r"[\\`*\[\]|#$_~<&]")


def markdown_text(text: str) -> str:
    """Plain text made inert in markdown (CommonMark and GitHub's tables, strikethrough and
    math): no HTML, links, emphasis, code, table breaks, headings, quotes or list items.

    Examples
    --------
    >>> print(markdown_text("<script>|x*y_z #1"))
    &lt;script>\\|x\\*y_z \\#1
    """
    text = _CONTROL.sub(" ", text)

    def escape(match: re.Match[str]) -> str:
        ch, i = match.group(), match.start()
        prev = text[i - 1] if i else " "
        nxt = text[i + 1] if i + 1 < len(text) else " "
        if ch in _MD_ALWAYS:
            return "\\" + ch
        if ch == "_":
            # Between letters or digits "_" can neither open nor close emphasis.
            return ch if prev.isalnum() and nxt.isalnum() else "\\_"
        if ch == "~":
            return ch if prev.isspace() and nxt.isspace() else "\\~"
        if ch == "<":
            # Only "<" before a letter, "/", "!" or "?" can start a tag or an autolink.
            return "&lt;" if nxt.isalpha() or nxt in "/!?" else ch
        # "&"
        return "&amp;" if _ENTITY.match(text, i) else ch

    result = _MD_SPECIAL.sub(escape, text)
    # At the start of a line these would begin a quote, a list item or a heading underline.
    result = re.sub(r"^(\s*)([>+=-])", r"\1\\\2", result)
    return re.sub(r"^(\s*[0-9]{1,9})([.)])", r"\1\\\2", result)


def shipped_schema(name: str) -> dict[str, Any]:
    """The JSON Schema ``schemas/<name>.schema.json`` shipped with the package (the one
    loader of the reports' ``json_schema()``).

    >>> shipped_schema("report-1")["$id"]
    'mcnemar.report/1'
    """
    import json
    from importlib import resources

    text = resources.files("mcnemar").joinpath(f"schemas/{name}.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
