"""The words of a score report follow from its numbers (as test_report_wording.py does for
pass/fail): the conclusion's fields against the p-value, alpha, the sign of the difference,
the alternative and the interval; every number a sentence prints against the value it stands
for; no signed zero; the JSON against the shipped schema; names cannot break the markdown."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from mcnemar import analyze_scores
from mcnemar.scores import ScoreReport, json_schema

NUM = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?(?:e[+-]?[0-9]+)?)"
P_CLAUSE = re.compile(rf"p (?:= (?P<p>{NUM})|< 1e-300) (?P<op><|≥) (?P<alpha>[0-9][0-9.e+-]*[0-9])")
BY = re.compile(rf"by (?P<size>{NUM}) on average")
CI = re.compile(rf"\((?P<level>[0-9.]+)% CI (?P<lo>{NUM}) to (?P<hi>{NUM}), (?P<label>[^;]+);")
DETECT = re.compile(rf"power only for mean differences of (?P<size>{NUM}) or more")
SIGNED_ZERO = re.compile(r"(?<![0-9.e])[+-]0(?:\.0*)?(?![0-9.e])")
SIDE = {"two-sided": None, "greater": "a", "less": "b"}


def _tol(text: str) -> float:
    decimals = len(text.split(".")[1]) if "." in text else 0
    return 0.5 * 10.0**-decimals * 1.001


def check(rep: ScoreReport) -> None:
    con = rep.conclusion
    text = con.text
    p, alpha = rep.pvalue, rep.alpha
    side = SIDE[rep.alternative]
    na, nb = rep.names
    name = {"a": na, "b": nb}
    # -- fields against numbers
    assert con.significant == (math.isfinite(p) and p < alpha)
    direction = None if rep.difference == 0 else ("a" if rep.difference > 0 else "b")
    assert con.direction == direction
    favours = direction is not None and side in (None, direction)
    assert con.better == (direction if con.significant and favours else None)
    assert con.opposite_direction == (side is not None and direction not in (None, side))
    ci = rep.intervals.get(rep.recommended_interval)
    if ci is None or not (math.isfinite(ci.low) and math.isfinite(ci.high)):
        assert con.interval_contains_zero is None
    else:
        assert con.interval_contains_zero == (ci.low <= 0.0 <= ci.high)
    # -- the recommended test's p against alpha, as printed
    match = P_CLAUSE.search(text)
    assert match is not None, text
    assert float(match["alpha"]) == alpha
    assert (match["op"] == "<") == (p < alpha)
    if match["p"] is not None and p > 1e-300:
        assert float(match["p"]) == pytest.approx(p, rel=6e-4)
        assert (float(match["p"]) < alpha) == (p < alpha)
    # -- sentences against fields
    if con.better is not None:
        winner, loser = name[con.better], name["b" if con.better == "a" else "a"]
        assert text.startswith(f"{winner} did better than {loser} by ")
        assert con.headline == f"{winner} did better than {loser}"
    else:
        assert " did better than " not in text
    if not con.significant and not con.opposite_direction:
        assert "A non-significant result is not evidence" in text
    if con.opposite_direction and not con.significant:
        assert text.startswith("The data point the other way")
    if con.significant and con.better is None:
        assert "significant only because alpha" in text
    # -- every size printed is the number it stands for
    for m in BY.finditer(text):
        assert float(m["size"]) == pytest.approx(abs(rep.difference), abs=_tol(m["size"]))
    for m in CI.finditer(text):
        assert float(m["level"]) == pytest.approx(100 * rep.confidence_level)
        assert ci is not None
        leader = con.better or con.direction
        sign = 1.0 if leader == "a" else -1.0
        lo, hi = sorted((sign * ci.low, sign * ci.high))
        assert float(m["lo"]) == pytest.approx(lo, abs=_tol(m["lo"]))
        assert float(m["hi"]) == pytest.approx(hi, abs=_tol(m["hi"]))
        assert m["label"] == ("t" if rep.recommended_interval == "t" else "BCa bootstrap")
    for m in DETECT.finditer(text):
        assert rep.detectable_difference is not None
        assert float(m["size"]) == pytest.approx(rep.detectable_difference, abs=_tol(m["size"]))
    # -- the counts
    assert f"{na} scored higher on {rep.higher_a} item" in text
    assert rep.higher_a + rep.equal + rep.higher_b == rep.n
    # -- no signed zero anywhere a number is printed
    for rendered in (text, str(rep), rep.to_markdown()):
        assert not SIGNED_ZERO.search(rendered), rendered


scores = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0, 2.0, 5.0, 9.0, -3.0, 0.001])


@st.composite
def pairs(draw: Any) -> tuple[list[float], list[float]]:
    n = draw(st.integers(2, 60))
    a = draw(st.lists(scores, min_size=n, max_size=n))
    how = draw(st.sampled_from(["independent", "close", "shifted"]))
    if how == "independent":
        b = draw(st.lists(scores, min_size=n, max_size=n))
    elif how == "close":
        noise = draw(st.lists(st.sampled_from([0.0, 0.0, 0.25, -0.25]), min_size=n, max_size=n))
        b = [x + e for x, e in zip(a, noise, strict=True)]
    else:
        b = [x - draw(st.sampled_from([0.5, 1.0])) for x in a]
    return a, b


@settings(max_examples=120, deadline=None)
@given(pairs(), st.sampled_from(["two-sided", "greater", "less"]),
       st.sampled_from([0.05, 0.01, 0.1, 0.5, 0.9, 1e-4]), st.sampled_from([0.95, 0.9, 0.5]))
def test_the_words_follow_the_numbers(pair, alternative, alpha, level) -> None:
    rep = analyze_scores(pair[0], pair[1], alternative=alternative, alpha=alpha,
                         confidence_level=level, n_resamples=200, random_state=0)
    check(rep)


def test_the_worked_examples() -> None:
    g1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
    g2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]
    for alternative in ("two-sided", "greater", "less"):
        check(analyze_scores(g1, g2, alternative=alternative, random_state=0))
    rep = analyze_scores(g1, g2, alternative="greater", random_state=0)
    assert rep.conclusion.opposite_direction
    assert rep.conclusion.headline == "No evidence that A scores higher: the data favour B"
    rng = np.random.default_rng(3)
    a = rng.normal(size=200)
    check(analyze_scores(a, a + rng.normal(0, 1, 200), random_state=0))


@pytest.fixture(scope="module")
def validator() -> Any:
    import jsonschema_rs

    return jsonschema_rs.validator_for(json_schema())


@pytest.mark.parametrize("case", ["sleep", "same", "binary", "epochs", "clusters", "shifted",
                                  "large"])
def test_documents_conform_to_the_shipped_schema(case: str, validator: Any) -> None:
    rng = np.random.default_rng(1)
    kwargs: dict[str, Any] = {"random_state": 0}
    if case == "sleep":
        a = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
        b = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]
    elif case == "same":
        a = b = [1.0, 2.0, 3.0]
    elif case == "binary":
        a, b = [1, 1, 0, 1, 0, 1], [0, 1, 0, 0, 1, 0]
    elif case == "epochs":
        a, b = rng.normal(size=60), rng.normal(size=60)
        kwargs["item"] = np.repeat(np.arange(20), 3)
    elif case == "clusters":
        a, b = rng.normal(size=60), rng.normal(size=60)
        kwargs["cluster"] = np.repeat(np.arange(12), 5)
    elif case == "shifted":
        a, b = [2.0, 3.0, 4.0], [1.0, 2.0, 3.0]
    else:
        a = rng.normal(size=100_000)
        b = a + rng.normal(0, 0.1, a.size)
        kwargs["n_resamples"] = 5000
    document = analyze_scores(a, b, **kwargs).to_dict()
    assert [e.message for e in validator.iter_errors(document)] == []
    assert validator.is_valid(document)
    bad = dict(document, recommended={"test": "wilcoxon", "reason": "x"})
    assert not validator.is_valid(bad)


def test_names_cannot_break_the_markdown_or_the_html() -> None:
    names = ("<script>x</script> | **bold**", "# heading\n- item")
    rep = analyze_scores([1, 2, 3, 4], [0, 1, 3, 3], names=names, random_state=0)
    tokens = MarkdownIt("commonmark").enable("table").parse(rep.to_markdown())
    assert not any(t.type in ("html_block", "html_inline") and "script" in t.content
                   for t in tokens)
    assert "<script>" not in rep._repr_html_()
    assert rep._repr_html_().startswith('<div class="mcnemar-report mcnemar-scores">')
