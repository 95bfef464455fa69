"""Model names cannot hijack the markdown of ``mcnemar pairwise`` (library and CLI).

Names are plain text. Parsed back with markdown-it-py (CommonMark, with GitHub's tables and
strikethrough), the summary has one heading (the title), no HTML other than its own
``<details>`` block, no links, images, code or strikethrough, tables whose rows keep their
number of cells, and every name reads back as given (control characters and line breaks as
spaces); a long baseline name is shortened in the title. The escaping is the one of the
single-pair report (:func:`mcnemar._format.markdown_text`, tested the same way in
``test_report_wording.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from click.testing import CliRunner
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from mcnemar._format import TITLE_CHARS, clean_name, is_control
from mcnemar.cli import main
from mcnemar.multiple import pairwise

# Three models far apart on 300 items: every pair differs, so names also reach the list of
# significant differences, the p-value matrix and the table against a baseline.
_RNG = np.random.default_rng(1)
CORRECT = (_RNG.random((3, 300)) < np.array([0.95, 0.8, 0.6])[:, None]).astype(np.int8)

NASTY = [
    "<script>alert(1)</script>",
    "evil\n# Heading",
    "a|b",
    "**bold** _it_ `code` ~~s~~ [x](http://e.example) ![i](y.png)",
    "- item",
    "1. first",
    "> quote",
    "&amp; &#35; &lt;",
    "x\u202edesrever",
    "tail\\",
    "m" * 80,
]
names_strategy = st.one_of(
    st.sampled_from(NASTY),
    st.text(
        alphabet=st.sampled_from(list("ab_*`|<>[]()!#~$&;\\-+=.1 \n\t\x1b\u202e\u00e9")),
        min_size=1,
        max_size=50,
    ),
)
PARSER = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
FORBIDDEN = {"html_inline", "link_open", "image", "code_inline", "s_open"}


def _inline(token: Any) -> str:
    parts = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append("\n")
    return "".join(parts)


def _as_shown(name: str, suffix: str = "") -> str:
    """A name as a table cell shows it: control characters as spaces, the cell trimmed."""
    return ("".join(" " if is_control(ch) else ch for ch in name) + suffix).strip()


def _tables(tokens: list[Any]) -> list[list[list[str]]]:
    tables: list[list[list[str]]] = []
    row: list[str] = []
    for i, tok in enumerate(tokens):
        if tok.type == "table_open":
            tables.append([])
        elif tok.type == "tr_open":
            row = []
        elif tok.type == "inline" and tokens[i - 1].type in ("th_open", "td_open"):
            row.append(_inline(tok))
        elif tok.type in ("th_close", "td_close") and tokens[i - 1].type in ("th_open", "td_open"):
            row.append("")  # an empty cell has no inline token
        elif tok.type == "tr_close":
            tables[-1].append(row)
    return tables


def check_markdown(md: str, names: list[str], baseline: int | None) -> None:
    tokens = PARSER.parse(md)
    headings = [i for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert len(headings) == 1, md  # a name cannot add a heading
    title = _inline(tokens[headings[0] + 1])
    if baseline is None:
        assert title.startswith("Pairwise McNemar tests: 3 models"), title
    else:
        short = clean_name(names[baseline])
        if len(short) > TITLE_CHARS:
            short = short[: TITLE_CHARS - 1].rstrip() + "…"
        assert title == f"McNemar tests against the baseline '{short}': 2 models on 300 items"
    for tok in tokens:
        if tok.type == "html_block":
            assert tok.content.strip() in {
                "<details><summary>Adjusted p-values (Holm)</summary>", "</details>"
            }, tok.content
        for child in tok.children or []:
            assert child.type not in FORBIDDEN, (child.type, md)
    tables = _tables(tokens)
    result = pairwise(CORRECT, names=names, baseline=baseline)
    ranked = [_as_shown(names[m]) for m in result.ranking]
    rank_table = tables[0]
    width = len(rank_table[0])
    assert all(len(row) == width for row in rank_table), rank_table
    shown = [row[1] for row in rank_table[1:]]
    if baseline is None:
        assert shown == ranked
        # the p-value matrix: names as column and row headers, K + 1 cells a row
        matrix = tables[1]
        assert matrix[0] == ["", *ranked]
        assert [row[0] for row in matrix[1:]] == ranked
        assert all(len(row) == len(ranked) + 1 for row in matrix)
        items = [t for t in tokens if t.type == "list_item_open"]
        assert len(items) == int(result.significant[np.triu_indices(3, 1)].sum())
    else:
        expected = [
            _as_shown(names[m], " (baseline)" if m == baseline else "") for m in result.ranking
        ]
        assert shown == expected
        assert rank_table[0][3].startswith("vs ")
    assert len(tables) == (2 if baseline is None else 1)


@settings(max_examples=40, deadline=None)
@given(
    names=st.lists(names_strategy, min_size=3, max_size=3),
    baseline=st.sampled_from([None, 0, 1, 2]),
)
@example(names=["<script>alert(1)</script>", "evil\n# Heading", "a|b"], baseline=None)
@example(names=["<script>alert(1)</script>", "evil\n# Heading", "m" * 80], baseline=2)
@example(names=["- item", "1. first", "> quote"], baseline=0)
def test_names_cannot_hijack_the_pairwise_markdown(names: list[str], baseline: int | None) -> None:
    shown = [_as_shown(n) for n in names]
    assume(all(shown) and len(set(shown)) == 3 and len(set(names)) == 3)
    md = pairwise(CORRECT, names=names, baseline=baseline).to_markdown()
    check_markdown(md, names, baseline)


def test_the_cli_markdown_escapes_names_from_a_csv_header(tmp_path: Path) -> None:
    names = ["<script>alert(1)</script>", "evil\n# Heading", "a|b"]
    path = tmp_path / "scores.csv"
    header = ",".join('"' + n.replace('"', '""') + '"' for n in names)
    rows = [",".join(str(v) for v in CORRECT[:, j]) for j in range(CORRECT.shape[1])]
    path.write_text(header + "\n" + "\n".join(rows) + "\n")
    for extra, baseline in (([], None), (["--baseline", "a|b"], 2)):
        result = CliRunner().invoke(
            main, ["pairwise", "--matrix", str(path), "--format", "markdown", *extra]
        )
        assert result.exit_code == 0, result.output
        assert "<script>" not in result.stdout and "\n# Heading" not in result.stdout
        check_markdown(result.stdout, names, baseline)
