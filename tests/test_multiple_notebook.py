"""The notebook views of PairwiseResult: the verdict first, then the models ranked.

The verdict's count is checked against the result's own significance matrix (the numbers the
sentence speaks of), the table against the result's ranking and accuracies; the HTML is
parsed with the standard library's parser, and names are shown as text, never as markup.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mcnemar.multiple import pairwise


class _Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []
        self.rows: list[list[str]] = []
        self.tags: list[str] = []
        self._row: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._row.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        if data.strip():
            self.texts.append(data.strip())
        if self._row:
            self._row[-1] += data


@settings(max_examples=40, deadline=None)
@given(k=st.integers(2, 6), n=st.integers(5, 200), seed=st.integers(0, 2**32 - 1),
       baseline=st.booleans(), adjust=st.sampled_from(["holm", "bonferroni", "bh", "none"]))
def test_html_verdict_first_and_true_to_the_numbers(k: int, n: int, seed: int, baseline: bool,
                                                    adjust: str) -> None:
    rng = np.random.default_rng(seed)
    x = (rng.random((k, n)) < rng.uniform(0.3, 0.9, (k, 1))).astype(int)
    names = [f"m{i}<b>&" for i in range(k)]
    result = pairwise(x, names=names, adjust=adjust,  # type: ignore[arg-type]
                      baseline=0 if baseline else None)
    cells = _Cells()
    cells.feed(result._repr_html_())
    assert "b" not in cells.tags  # the names hold "<b>": shown as text, not as a tag
    verdict = cells.texts[0]
    assert verdict == result.verdict()
    i, j = result.pairs[:, 0], result.pairs[:, 1]
    hits = int(np.count_nonzero(result.significant[i, j]))
    m = len(result.pairs)
    if hits == 0:
        assert verdict.startswith(f"None of the {m} ")
    else:
        assert re.match(rf"{hits} of {m} ", verdict)
    body = cells.rows[1:]
    assert len(body) == k
    for row, model in zip(body, result.ranking, strict=True):
        assert row[1].removesuffix(" (baseline)") == names[model]
        assert float(row[2]) == round(float(result.accuracy[model]), 4)
    assert result._repr_markdown_() == result.to_markdown()
