"""Words that follow from the numbers: every claim of a report checked against its own fields.

The conclusion is a set of fields (significant, better, direction, opposite_direction,
interval_contains_zero) rendered into a sentence. The property tests generate tables (huge
counts, zero cells, b = c, D = 0, small D, no N), alternatives, alphas, confidence levels and
clustered items, and check

* the fields against the numbers of the same report (p-value and alpha, the sign of b - c and
  of the estimate, the alternative, the limits of the headline interval), and against
  independent references: the detectable difference against :mod:`mcnemar.planning` called
  with the report's alternative, the unpaired p-value against the textbook pooled z-test on the
  normal distribution (and mpmath for its logarithm in the far tail);
* the sentences against the fields, and every number a sentence prints against the value it
  stands for (p against alpha as printed, sizes and interval limits in points);
* that no non-zero difference prints as "-0.0" or "+0.0";
* that markdown and text renderings cannot be hijacked by the names of the systems
  (checked by parsing the markdown with markdown-it-py, a CommonMark parser with GitHub's
  tables and strikethrough).

The golden files under ``tests/data/golden/`` hold the exact text and markdown of five
reports. After an intended change of wording, regenerate them with
``MCNEMAR_UPDATE_GOLDEN=1 python -m pytest tests/test_report_wording.py -k golden`` and have
the diff of ``tests/data/golden/`` reviewed with the change.
"""

from __future__ import annotations

import json
import math
import os
import re
import unicodedata
from pathlib import Path
from typing import Any

import mpmath
import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from scipy import stats

from mcnemar import PairedTable, analyze, clustered
from mcnemar._format import TITLE_CHARS
from mcnemar.planning import minimum_detectable_effect
from mcnemar.report import CLOSE_FACTOR, Report
from mcnemar.report import _render as render

GOLDEN = Path(__file__).parent / "data" / "golden"
ALTERNATIVES = ("two-sided", "greater", "less")
SIDE = {"two-sided": None, "greater": "a", "less": "b"}

# -- strategies ----------------------------------------------------------------------------------
alphas = st.one_of(
    st.sampled_from([0.05, 0.01, 0.1, 0.001, 1e-10, 0.0500000001, 0.5, 0.9, 0.999]),
    st.floats(1e-6, 0.999),
)
levels = st.one_of(st.sampled_from([0.95, 0.9, 0.99, 0.955, 0.5, 0.999999]), st.floats(0.5, 0.9999))
big = st.integers(0, 2**52)


@st.composite
def tables(draw: Any) -> PairedTable:
    kind = draw(
        st.sampled_from(["small", "tie", "no-discordance", "small-d", "huge", "near-tie", "no-n"])
    )
    small = st.integers(0, 300)
    if kind == "small":
        a, b, c, d = (draw(small) for _ in range(4))
    elif kind == "tie":
        b = draw(st.integers(0, 10**6))
        a, c, d = draw(small), b, draw(small)
    elif kind == "no-discordance":
        a, b, c, d = draw(big), 0, 0, draw(small)
    elif kind == "small-d":  # a few disagreements among many items
        a, b, c, d = draw(big), draw(st.integers(0, 12)), draw(st.integers(0, 12)), draw(big)
    elif kind == "huge":
        a, b, c, d = (draw(big) for _ in range(4))
    elif kind == "near-tie":  # b and c huge and close: tiny differences, huge N
        b = draw(st.integers(10**6, 2**51))
        c = b + draw(st.integers(-(10**6), 10**6))
        a, d = draw(st.sampled_from([0, 10, 2**40])), draw(st.sampled_from([0, 7, 2**40]))
    else:
        return PairedTable(b=draw(st.integers(0, 10**9)), c=draw(st.integers(0, 10**9)))
    return PairedTable(a=a, b=b, c=c, d=d)


@st.composite
def cluster_sets(draw: Any) -> np.ndarray:
    k = draw(st.integers(2, 12))
    cell = st.integers(0, 6)
    rows = [[draw(cell) for _ in range(4)] for _ in range(k)]
    arr = np.array(rows)
    assume((arr.sum(axis=1) > 0).sum() >= 2)  # the clustered test needs two non-empty clusters
    return arr


# -- parsing what a sentence prints --------------------------------------------------------------
NUM = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?(?:e[+-]?[0-9]+)?)"
P_CLAUSE = re.compile(rf"p (?:= (?P<p>{NUM})|< 1e-300) (?P<op><|≥) (?P<alpha>[0-9][0-9.e+-]*[0-9])")
SIZE = re.compile(rf"by (?P<size>{NUM}) (?:accuracy )?points")
CI = re.compile(
    rf"\((?P<level>[0-9.]+)% CI (?P<lo>{NUM}) to (?P<hi>{NUM}) points, (?P<label>[^)]+)\)"
)
DETECT = re.compile(
    rf"power only for differences of (?P<size>{NUM}) points or more(?P<side>[^.:]*)"
)
SIGNED_ZERO = re.compile(r"(?<![0-9.e])[+-]0(?:\.0*)?(?![0-9.e])")


def _log10_printed(text: str) -> float:
    """log10 of a printed number, also for those (like 1.4e-1505) below the double's range."""
    if "e" in text:
        mantissa, exponent = text.split("e")
        return math.log10(float(mantissa)) + int(exponent)
    return math.log10(float(text))


def _tolerance(text: str, value: float) -> float:
    """Half a unit of the last printed digit (fixed), or 5.1% (two significant digits)."""
    if "e" in text:
        return 0.051 * abs(value)
    decimals = len(text.split(".")[1]) if "." in text else 0
    return 0.5 * 10.0**-decimals * 1.001 + 1e-12 * abs(value)


def _check_p_clause(match: re.Match[str], pvalue: float, log10_p: float, alpha: float) -> None:
    assert float(match["alpha"]) == alpha
    below = match["op"] == "<"
    assert below == (pvalue < alpha)
    if match["p"] is None:  # "p < 1e-300"
        assert pvalue < 1e-300
        return
    printed = match["p"]
    if float(printed) == 0.0 or pvalue < 1e-300:  # underflow: printed from log10 p
        assert _log10_printed(printed) == pytest.approx(log10_p, abs=1e-3)
        return
    assert float(printed) == pytest.approx(pvalue, rel=6e-4)
    # the printed numbers compare the way the exact ones do
    assert (float(printed) < float(match["alpha"])) == below


def _headline_interval(rep: Report) -> tuple[float, float] | None:
    if rep.clustered is not None and rep.clustered.standard_error is not None:
        ci = rep.clustered.confidence_interval(rep.confidence_level)
    elif "newcombe" in rep.difference_intervals:
        ci = rep.difference_intervals["newcombe"]
    else:
        return None
    if rep.difference is None:
        return None
    lo, hi = float(ci.low), float(ci.high)
    return (lo, hi) if math.isfinite(lo) and math.isfinite(hi) else None


def _unpaired_reference(a: int, b: int, c: int, d: int, alternative: str) -> tuple[float, float]:
    # The textbook pooled two-proportion z-test (REFERENCES: z = 1.886, p = 0.0593 for the
    # 200-item example), computed here from the counts.
    from fractions import Fraction

    n = a + b + c + d
    p1, p2 = Fraction(a + b, n), Fraction(a + c, n)
    pooled = (p1 + p2) / 2
    variance = pooled * (1 - pooled) * 2 / n  # exact
    z = float((p1 - p2) / Fraction(math.sqrt(variance))) if variance > 0 else 0.0
    if alternative == "greater":
        return z, float(stats.norm.sf(z))
    if alternative == "less":
        return z, float(stats.norm.cdf(z))
    return z, min(1.0, 2 * float(stats.norm.sf(abs(z))))


def check_report(rep: Report) -> None:
    """Every claim of the conclusion against the numbers of the same report."""
    con = rep.conclusion
    text = con.text
    a, b, c, d = rep.table.arrays()
    b, c = int(b), int(c)
    alt, alpha = rep.alternative, rep.alpha
    side = SIDE[alt]
    p, log10_p = rep.pvalue, rep.log10_pvalue
    na, nb = rep.names
    name = {"a": na, "b": nb}

    # -- fields against numbers ----------------------------------------------------------------
    assert con.significant == (math.isfinite(p) and p < alpha)
    direction = None if b == c else ("a" if b > c else "b")
    assert con.direction == direction
    if rep.difference is not None:
        assert (rep.difference > 0, rep.difference < 0) == (direction == "a", direction == "b")
    favours = direction is not None and side in (None, direction)
    assert con.better == (direction if con.significant and favours else None)
    assert con.opposite_direction == (side is not None and direction not in (None, side))
    interval = _headline_interval(rep)
    if interval is None:
        assert con.interval_contains_zero is None
    else:
        assert con.interval_contains_zero == (interval[0] <= 0.0 <= interval[1])

    # -- sentences against fields --------------------------------------------------------------
    sig, better, opposite = con.significant, con.better, con.opposite_direction
    plain_not_sig = not sig and not opposite
    assert ("did better than" in text) == (better is not None)
    assert ("The data point the other way" in text) == (opposite and not sig)
    assert ("within what chance produces" in text) == (plain_not_sig and direction is not None)
    assert ("not evidence that the two are equally accurate" in text) == plain_not_sig
    assert ("significant only because" in text) == (sig and better is None)
    if sig and better is None:  # only a one-sided p of at least 1/2 below an alpha above 1/2
        assert side is not None and p >= 0.5 and alpha > 0.5
    assert ("includes 0" in text) == (better is not None and con.interval_contains_zero is True)
    assert ("excludes 0" in text) == (
        plain_not_sig and direction is not None and con.interval_contains_zero is False
    )
    if "need not agree" in text:  # the reason given: levels that differ, or the methods
        matching = 1.0 - (2.0 if side else 1.0) * alpha
        differ = not math.isclose(rep.confidence_level, matching, rel_tol=1e-9, abs_tol=1e-12)
        assert ("interval is at the" in text) == differ
        assert ("computed differently" in text) == (not differ)
    if better is not None:
        winner, loser = name[better], name["b" if better == "a" else "a"]
        assert text.startswith(f"{winner} did better than {loser}")
        assert con.headline == f"{winner} did better than {loser}"
    elif opposite and not sig:
        assert (
            con.headline
            == f"No evidence that {name[side]} is more accurate: the data favour {name[direction]}"
        )
    elif not sig and b + c == 0:
        assert con.headline == f"{na} and {nb} never disagree on these items"
    elif not sig:
        assert con.headline.startswith("No clear")
    assert con.headline and "\n" not in con.headline

    # -- printed numbers against values ---------------------------------------------------------
    clauses = list(P_CLAUSE.finditer(text))
    assert len(clauses) == 1, text
    _check_p_clause(clauses[0], p, log10_p, alpha)
    size = SIZE.search(text)
    if direction is not None and rep.difference is not None:
        assert size is not None, text
        shown = float(size["size"])
        assert shown > 0
        assert shown == pytest.approx(100 * abs(rep.difference), rel=0.051)
    elif rep.difference is not None:
        assert size is None
    ci = CI.search(text)
    if interval is not None and direction is not None:
        assert ci is not None, text
        assert float(ci["level"]) == pytest.approx(100 * rep.confidence_level, rel=1e-9)
        sign = 1.0 if direction == "a" else -1.0
        lo, hi = sorted((sign * 100 * interval[0], sign * 100 * interval[1]))
        assert float(ci["lo"]) <= float(ci["hi"])
        assert abs(float(ci["lo"]) - lo) <= _tolerance(ci["lo"], lo)
        assert abs(float(ci["hi"]) - hi) <= _tolerance(ci["hi"], hi)
        # the printed limits keep their signs, so "contains 0" can be read off them
        assert (float(ci["lo"]) <= 0 <= float(ci["hi"])) == con.interval_contains_zero

    # -- no signed zeros in any difference ------------------------------------------------------
    doc = rep.to_dict()
    diff_texts = [text, render.power_text(rep), str(doc["difference"]["estimate_text"])]
    for pair in doc["difference"]["interval_texts"].values():
        diff_texts += pair or []
    for piece in diff_texts:
        assert not SIGNED_ZERO.search(piece), piece
    for line in str(rep).splitlines():
        if "points" in line:
            assert not SIGNED_ZERO.search(line), line
    if rep.difference:
        assert float(doc["difference"]["estimate_text"]) != 0
        assert (float(doc["difference"]["estimate_text"]) > 0) == (rep.difference > 0)

    # -- detectable difference: planning with the same alternative ------------------------------
    if rep.detectable_difference is not None:
        n = rep.table.n
        want = minimum_detectable_effect(
            n,
            (b + c) / n,
            power=rep.power_target,
            alpha=alpha,
            alternative=alt,
            method=rep.power_method,
        )
        assert rep.detectable_difference == pytest.approx(abs(want.difference), rel=1e-9)
        favour = "" if side is None else f" in {name[side]}'s favour"
        assert ("power only for" in text) == (not sig)
        for sentence in (render.power_text(rep), text if not sig else None):
            if sentence is None:
                continue
            m = DETECT.search(sentence)
            assert m is not None, sentence
            assert m["side"] == favour
            assert float(m["size"]) == pytest.approx(100 * rep.detectable_difference, rel=0.006)

    # -- the unpaired comparison uses the same alternative --------------------------------------
    if rep.unpaired_pvalue is not None:
        z_ref, p_ref = _unpaired_reference(int(a), b, c, int(d), alt)
        assert rep.unpaired_z == pytest.approx(z_ref, rel=1e-12, abs=1e-12)
        assert doc["unpaired"]["alternative"] == alt
        if p_ref > 1e-290:
            assert rep.unpaired_pvalue == pytest.approx(p_ref, rel=1e-7, abs=1e-300)
        m = P_CLAUSE.search(render.unpaired_text(rep))
        assert m is not None
        _check_p_clause(m, rep.unpaired_pvalue, doc["unpaired"]["log10_pvalue"], alpha)

    # -- "agree closely" only when the log10 p-values agree -------------------------------------
    reason = rep.recommendation_reason
    tests = rep.tests
    gap = max(
        abs(float(tests[k].log10_pvalue) - float(tests["asymptotic"].log10_pvalue))
        for k in ("exact", "midp")
    )
    close = rep.recommended == "asymptotic" and gap <= math.log10(CLOSE_FACTOR)
    assert ("agree closely" in reason) == close
    if rep.recommended == "asymptotic":
        verdicts = {bool(tests[k].pvalue < alpha) for k in ("exact", "midp", "asymptotic")}
        assert ("(the same verdict at alpha" in reason) == (len(verdicts) == 1)
        if not close:
            m = re.search(
                r"by up to (?:a factor of ([0-9.e+]+)|([0-9.]+) orders of magnitude)", reason
            )
            assert m is not None, reason
            if m[1]:  # two significant digits
                assert float(m[1]) == pytest.approx(10**gap, rel=0.051)
            else:  # one decimal below 10 orders, none above
                assert abs(float(m[2]) - gap) <= (0.051 if "." in m[2] else 0.51)

    # -- the JSON says what the report says -----------------------------------------------------
    assert doc["conclusion"] == con.to_dict()
    json.dumps(doc, allow_nan=False)


# -- the properties -------------------------------------------------------------------------------
@settings(max_examples=100, deadline=None)
@given(table=tables(), alternative=st.sampled_from(ALTERNATIVES), alpha=alphas, level=levels)
@example(table=PairedTable(a=157, b=17, c=3, d=23), alternative="less", alpha=0.05, level=0.95)
@example(table=PairedTable(a=0, b=5000, c=0, d=0), alternative="two-sided", alpha=0.05, level=0.95)
@example(
    table=PairedTable(a=0, b=10**9, c=10**9 + 10**5, d=0),
    alternative="two-sided",
    alpha=0.05,
    level=0.95,
)
@example(table=PairedTable(a=10, b=10, c=10, d=10), alternative="greater", alpha=0.9, level=0.95)
@example(table=PairedTable(a=10, b=9, c=11, d=10), alternative="greater", alpha=0.9, level=0.95)
@example(table=PairedTable(a=0, b=0, c=0, d=0), alternative="less", alpha=0.05, level=0.95)
def test_every_claim_follows_from_the_numbers(
    table: PairedTable, alternative: str, alpha: float, level: float
) -> None:
    check_report(analyze(table, alternative=alternative, alpha=alpha, confidence_level=level))


@settings(max_examples=40, deadline=None)
@given(
    clusters=cluster_sets(),
    alternative=st.sampled_from(ALTERNATIVES),
    alpha=alphas,
    level=levels,
)
def test_every_claim_follows_from_the_numbers_with_clustered_items(
    clusters: np.ndarray, alternative: str, alpha: float, level: float
) -> None:
    result = clustered(clusters)
    table = PairedTable(*clusters.sum(axis=0))
    rep = analyze(
        table, clustered=result, alternative=alternative, alpha=alpha, confidence_level=level
    )
    check_report(rep)


def test_p_printed_against_alpha_shows_the_digits_that_decide() -> None:
    # Never "p = 0.05 < 0.05": the printed numbers compare as the exact ones do.
    from mcnemar.report._words import _p_vs_alpha

    assert _p_vs_alpha(0.0500000001, math.log10(0.0500000001), 0.050000001) == (
        "p = 0.05 < 0.050000001"
    )
    assert _p_vs_alpha(0.0500000001, math.log10(0.0500000001), 0.05) == "p = 0.05 ≥ 0.05"
    assert _p_vs_alpha(0.0499999999, math.log10(0.0499999999), 0.05) == "p = 0.0499999999 < 0.05"
    assert _p_vs_alpha(0.04999996, math.log10(0.04999996), 0.05) == "p = 0.04999996 < 0.05"
    assert _p_vs_alpha(0.05, math.log10(0.05), 0.05) == "p = 0.05 ≥ 0.05"
    assert _p_vs_alpha(0.0, -1504.8489, 0.05) == "p = 1.416e-1505 < 0.05"


def test_one_sided_against_the_data_says_so() -> None:
    # The report of the issue: A leads by 7.0 points (95% CI +2.6 to +11.7), tested for B better.
    rep = analyze(PairedTable(a=157, b=17, c=3, d=23), alternative="less")
    text = rep.conclusion.text
    assert text.startswith(
        "The data point the other way: A was ahead on this test set by 7.0 points "
        "(95% CI +2.6 to +11.7 points, Newcombe), while the alternative 'less' asks only whether "
        "B is more accurate."
    )
    assert "p = 0.9998 ≥ 0.05: no evidence that B is more accurate" in text
    assert rep.conclusion.headline == "No evidence that B is more accurate: the data favour A"
    # detectable difference: planning's one-sided value (mcnemar power --mde gives 5.77)
    assert rep.to_dict()["power"]["detectable_difference_text"] == "5.77"
    assert "5.77 points or more in B's favour" in text


def test_detectable_difference_and_unpaired_follow_the_alternative() -> None:
    t = PairedTable(a=157, b=17, c=3, d=23)
    got = {alt: analyze(t, alternative=alt) for alt in ALTERNATIVES}
    assert round(100 * got["two-sided"].detectable_difference, 2) == 6.40
    assert round(100 * got["greater"].detectable_difference, 2) == 5.77
    assert round(100 * got["less"].detectable_difference, 2) == 5.77
    # z = 1.886 (REFERENCES): two-sided 0.0593, one-sided 0.0297 and 0.9703
    assert round(got["two-sided"].unpaired_pvalue, 4) == 0.0593
    assert round(got["greater"].unpaired_pvalue, 4) == 0.0297
    assert round(got["less"].unpaired_pvalue, 4) == 0.9703


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_unpaired_log10_p_in_the_far_tail_matches_mpmath(alternative: str) -> None:
    # z is about 99: the p-value underflows, its log10 must not.
    rep = analyze(PairedTable(a=0, b=10**4, c=0, d=10**4), alternative=alternative)
    z = mpmath.mpf(rep.unpaired_z)
    tail = {
        "greater": mpmath.ncdf(-z),
        "less": mpmath.ncdf(z),
        "two-sided": 2 * mpmath.ncdf(-abs(z)),
    }[alternative]
    want = float(mpmath.log10(tail))
    assert rep.to_dict()["unpaired"]["log10_pvalue"] == pytest.approx(want, rel=1e-10, abs=1e-12)


def test_agree_closely_only_when_it_holds() -> None:
    # b = 5000, c = 0: exact log10 p = -1504.85, chi-square about -1088: hundreds of orders apart.
    rep = analyze(PairedTable(a=0, b=5000, c=0, d=0))
    assert "agree closely" not in rep.recommendation_reason
    gap = rep.tests["asymptotic"].log10_pvalue - rep.tests["exact"].log10_pvalue
    assert gap > 400
    assert f"by up to {gap:.0f} orders of magnitude" in rep.recommendation_reason
    near = analyze(PairedTable(a=0, b=530, c=470, d=0))
    assert "agree closely" in near.recommendation_reason


def test_no_signed_zero_for_a_tiny_difference() -> None:
    # b = 1e9, c = 1e9 + 1e5, a = d = 0: B better by 0.0050 points, significant.
    rep = analyze(PairedTable(a=0, b=10**9, c=10**9 + 10**5, d=0))
    assert rep.conclusion.better == "b"
    d = rep.to_dict()
    assert d["difference"]["estimate_text"] == "-0.0050"
    assert "B did better than A by 0.0050 accuracy points" in rep.conclusion.text
    assert "Difference in accuracy, A - B: -0.0050 points" in str(rep)
    assert "Accuracy: A 49.9975%, B 50.0025%." in str(rep)
    from mcnemar.report._words import _points, _size

    assert _points(1e-20) == "+1.0e-18" and _points(-3e-7) == "-0.000030"
    assert _points(0.0) == "0.0" and _points(-0.0) == "0.0" and _size(0.0) == "0.0"
    assert _points(0.00049999, 1) == "+0.050"


# -- markdown and text that names cannot hijack ---------------------------------------------------
NASTY = [
    "<script>alert(1)</script>",
    "a|b",
    "x\n# heading",
    "`code` and ```fence",
    "**bold** _it_ ~~gone~~ ~x~",
    "[link](http://evil.example) ![img](x)",
    "<img src=x onerror=alert(1)>",
    "&lt;tag&gt; &amp; &#60;",
    "- item",
    "1. first",
    "> quote",
    "$x$ \\ backslash",
    "name\u202eevil",
    "tab\there\r\nnext\x1b[2J",
    "=====",
    "_",
    "a" * 120,
]
names_strategy = st.one_of(
    st.sampled_from(NASTY),
    st.text(
        alphabet=st.sampled_from(list("ab_*`|<>[]()!#~$&;\\-+=.1 \n\t\x1b\u202e\u00e9")),
        min_size=1,
        max_size=30,
    ),
)


def _plain_inline(token: Any) -> str:
    parts = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append("\n")
    return "".join(parts)


def _clean(name: str) -> str:
    from mcnemar._format import clean_name as _clean_name

    return _clean_name(name)


@settings(max_examples=60, deadline=None)
@given(name_a=names_strategy, name_b=names_strategy, with_n=st.booleans())
@example(name_a="<script>alert(1)</script>|x", name_b="evil\n# Heading `x` **b**", with_n=True)
def test_names_cannot_hijack_markdown_or_text(name_a: str, name_b: str, with_n: bool) -> None:
    ca, cb = _clean(name_a), _clean(name_b)
    assume(ca and cb and ca != cb)
    table = PairedTable(a=157, b=17, c=3, d=23) if with_n else PairedTable(b=17, c=3)
    rep = analyze(table, names=(name_a, name_b))
    assert rep.names == (ca, cb)
    md = rep.to_markdown()
    parser = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    tokens = parser.parse(md)
    allowed_html = {"<details><summary>Assumptions</summary>", "</details>"}
    headings = [i for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert len(headings) == 1  # a name cannot add a heading
    short = [n if len(n) <= TITLE_CHARS else n[: TITLE_CHARS - 1].rstrip() + "…" for n in (ca, cb)]
    assert _plain_inline(tokens[headings[0] + 1]) == f"McNemar analysis: {short[0]} vs {short[1]}"
    assert all(len(n) <= TITLE_CHARS for n in short)
    for tok in tokens:
        if tok.type == "html_block":
            assert tok.content.strip() in allowed_html, tok.content
        for child in tok.children or []:
            assert child.type not in (
                "html_inline",
                "link_open",
                "image",
                "code_inline",
                "s_open",
            ), (child.type, md)
    # the first table keeps its shape: 3 columns in every row, names in the cells as given
    rows = []
    row: list[str] = []
    first_table_end = next(i for i, t in enumerate(tokens) if t.type == "table_close")
    for i, tok in enumerate(tokens[:first_table_end]):
        if tok.type == "tr_open":
            row = []
        elif tok.type == "inline" and tokens[i - 1].type in ("th_open", "td_open"):
            row.append(_plain_inline(tok))
        elif tok.type == "tr_close":
            rows.append(row)
    assert rows[0] == ["", f"{cb} right", f"{cb} wrong"]
    assert [r[0] for r in rows[1:]] == [f"{ca} right", f"{ca} wrong"]
    assert all(len(r) == 3 for r in rows)
    # the conclusion and the words read back exactly as the report wrote them
    paragraphs = [
        _plain_inline(tokens[i + 1]) for i, t in enumerate(tokens) if t.type == "paragraph_open"
    ]
    assert rep.conclusion.text in paragraphs
    assert rep.words() in paragraphs
    # text: one line per line of the report, no control characters from the names
    text = str(rep)
    assert all(ch == "\n" or unicodedata.category(ch) != "Cc" for ch in text)
    assert "\u202e" not in text and "\u202e" not in md
    assert text.splitlines()[0].startswith("McNemar analysis: ")
    assert "\n" not in rep.conclusion.text and "\n" not in rep.conclusion.headline


def test_alignment_text_cannot_break_its_code_block() -> None:
    class Summary:
        def to_dict(self) -> dict:
            return {"matched": 3}

        def __str__(self) -> str:
            return "file ```\n</details>\n# not a heading\x1b[2J"

    rep = analyze(PairedTable(a=1, b=1, c=0, d=1), alignment=Summary())
    md = rep.to_markdown()
    tokens = MarkdownIt("commonmark", {"html": True}).parse(md)
    fences = [t for t in tokens if t.type == "fence"]
    assert len(fences) == 1 and "# not a heading" in fences[0].content
    assert "\x1b" not in md and "\x1b" not in str(rep)
    assert sum(t.type == "heading_open" for t in tokens) == 1


# -- golden reports --------------------------------------------------------------------------------
def _clustered_report() -> Report:
    data = json.loads((Path(__file__).parent / "data" / "clustered.json").read_text())
    clusters = np.array(data["datasets"]["psychiatry"]["clusters"])
    return analyze(PairedTable(*clusters.sum(axis=0)), clustered=clustered(clusters))


GOLDEN_REPORTS = {
    # two-sided, significant: the online calculator's 200-item example
    "significant": lambda: analyze(
        PairedTable(a=157, b=17, c=3, d=23), names=("candidate", "baseline")
    ),
    # non-significant: the tutorial's example (14 A-only and 6 B-only errors)
    "not_significant": lambda: analyze(
        PairedTable.from_errors(only_a_wrong=14, only_b_wrong=6, both_wrong=8, both_right=72)
    ),
    # one-sided alternative against the observed difference
    "opposite_direction": lambda: analyze(PairedTable(a=157, b=17, c=3, d=23), alternative="less"),
    # no N: only the discordant counts
    "no_n": lambda: analyze(PairedTable(b=40, c=22), names=("new", "old")),
    # clustered items (Donner & Petryshen's psychiatry data)
    "clustered": _clustered_report,
}


@pytest.mark.parametrize("key", sorted(GOLDEN_REPORTS))
def test_golden_text_and_markdown(key: str) -> None:
    rep = GOLDEN_REPORTS[key]()
    check_report(rep)
    rendered = {f"{key}.txt": str(rep) + "\n", f"{key}.md": rep.to_markdown()}
    for filename, content in rendered.items():
        path = GOLDEN / filename
        if os.environ.get("MCNEMAR_UPDATE_GOLDEN"):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
        assert path.exists(), f"{path} is missing: run with MCNEMAR_UPDATE_GOLDEN=1"
        assert content == path.read_text(encoding="utf-8"), (
            f"{filename} differs from the golden file; if the change is intended, regenerate "
            "with MCNEMAR_UPDATE_GOLDEN=1 and have the diff reviewed"
        )


def test_unpaired_ztest_checks_its_alternative() -> None:
    from mcnemar import McNemarError
    from mcnemar.inference import unpaired_ztest

    with pytest.raises(McNemarError, match="alternative must be one of"):
        unpaired_ztest(157, 17, 3, 23, alternative="up")
    # the two one-sided p-values add up to 1 and the smaller one doubled is the two-sided one
    _, p2 = unpaired_ztest(157, 17, 3, 23)
    _, pg = unpaired_ztest(157, 17, 3, 23, alternative="greater")
    _, pl = unpaired_ztest(157, 17, 3, 23, alternative="less")
    assert float(pg + pl) == pytest.approx(1.0, abs=1e-15)
    assert float(p2) == pytest.approx(2 * min(float(pg), float(pl)), rel=1e-15)


def test_the_web_takes_the_library_count_limit() -> None:
    from pydantic import ValidationError

    from mcnemar import TableError
    from mcnemar.web.models import MAX_COUNT, PassesFramingRequest

    assert MAX_COUNT == 2**52
    PairedTable(b=MAX_COUNT, c=0)
    PassesFramingRequest(b=MAX_COUNT, c=0)
    with pytest.raises(TableError, match="2\\*\\*52"):
        PairedTable(b=MAX_COUNT + 1, c=0)
    with pytest.raises(ValidationError, match="2\\*\\*52"):
        PassesFramingRequest(b=MAX_COUNT + 1, c=0)
