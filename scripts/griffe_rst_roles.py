"""A griffe extension for the API pages: Sphinx roles in the docstrings become code spans.

The docstrings are numpydoc with Sphinx cross-reference roles (``:class:`PairedTable```,
``:func:`~mcnemar.io.align```, ``:math:`\\hat\\delta```), which mkdocstrings would print
verbatim. This rewrites each role to an inline code span of its target (the last dotted part
for ``~`` targets), leaving the source docstrings unchanged. Loaded by mkdocs.yml
(``extensions: [scripts/griffe_rst_roles.py]``).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(
    r":(?:class|func|meth|mod|data|attr|exc|obj|math):`(?P<tilde>~?)(?P<target>[^`]+)`"
)


def _code(match: re.Match[str]) -> str:
    target = match["target"]
    if match["tilde"]:
        target = target.rsplit(".", 1)[-1]
    return f"`{target}`"


def rewrite_roles(text: str) -> str:
    """``:class:`~a.B``` -> ```B```; ``:math:`x^2``` -> ```x^2```."""
    return ROLE.sub(_code, text)


class RstRoles(griffe.Extension):
    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = rewrite_roles(obj.docstring.value)
