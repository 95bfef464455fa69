"""The full report: recommendation, intervals in points, words, JSON schema, renderings."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcnemar import McNemarError, PairedTable, TableError, analyze
from mcnemar.report import SCHEMA


@pytest.fixture(scope="module")
def calculator() -> object:
    # The online calculator's 200-item example.
    return analyze(PairedTable(a=157, b=17, c=3, d=23), names=("candidate", "baseline"))


def test_calculator_example_numbers(calculator) -> None:
    d = calculator.to_dict()
    assert d["schema"] == SCHEMA
    assert d["table"] == {"a": 157, "b": 17, "c": 3, "d": 23, "n": 200, "discordant": 20}
    tests = d["tests"]
    assert round(tests["asymptotic"]["statistic"], 2) == 9.80
    assert round(tests["asymptotic"]["pvalue"], 4) == 0.0017
    assert round(tests["corrected"]["statistic"], 2) == 8.45
    assert round(tests["corrected"]["pvalue"], 4) == 0.0037
    assert round(tests["exact"]["pvalue"], 4) == 0.0026
    assert round(tests["midp"]["pvalue"], 4) == 0.0015
    assert d["recommended"]["test"] == "exact" and "25" in d["recommended"]["reason"]
    assert tests["exact"]["recommended"] is True and tests["midp"]["recommended"] is False
    iv = d["difference"]["intervals"]
    points = {k: (round(100 * v["low"], 1), round(100 * v["high"], 1)) for k, v in iv.items()}
    assert points["wald"] == (2.7, 11.3)
    assert points["newcombe-plain"] == (2.7, 11.6)
    assert points["newcombe"] == (2.6, 11.7)
    assert d["difference"]["estimate"] == pytest.approx(0.07)
    assert round(d["unpaired"]["pvalue"], 3) == 0.059
    assert d["conclusion"]["better"] == "a" and d["conclusion"]["significant"] is True
    assert d["accuracy"] == {"a": pytest.approx(0.87), "b": pytest.approx(0.80),
                             "a_text": "87.00%", "b_text": "80.00%"}


def test_calculator_example_words(calculator) -> None:
    text = str(calculator)
    assert "candidate did better than baseline by 7.0 accuracy points" in text
    assert "17 items where baseline was wrong" in text
    assert "[+2.6, +11.7] points" in text
    assert "p = 0.05931" in text and "would miss the difference" in text
    md = calculator.to_markdown()
    assert "| **candidate right** | 157 | **17** |" in md
    assert "(recommended)" in md


def test_json_is_strict_json(calculator) -> None:
    json.dumps(calculator.to_dict(), allow_nan=False)


def test_tutorial_non_significant_example() -> None:
    # 72 both right, 8 both wrong, 14 A-only errors, 6 B-only errors: exact p = 0.1153, error
    # rates 0.22 (A) and 0.14 (B), A's accuracy 0.08 lower, no rejection at 0.05.
    rep = analyze(
        PairedTable.from_errors(only_a_wrong=14, only_b_wrong=6, both_wrong=8, both_right=72)
    )
    assert round(rep.pvalue, 4) == 0.1153
    acc_a, acc_b = rep.accuracy
    assert (round(1 - acc_a, 2), round(1 - acc_b, 2)) == (0.22, 0.14)
    assert rep.difference == pytest.approx(-0.08)
    assert rep.conclusion.significant is False and rep.conclusion.better is None
    text = rep.conclusion.text
    assert "does not resolve A and B" in text
    assert "not evidence that the two are equally accurate" in text
    assert "B was ahead on this test set by 8.0 points" in text
    assert rep.detectable_difference is not None and rep.detectable_difference > 0.08


def test_no_discordant_items() -> None:
    rep = analyze(PairedTable(a=90, b=0, c=0, d=10))
    d = rep.to_dict()
    assert all(t["pvalue"] == 1.0 for t in d["tests"].values())
    assert d["tests"]["asymptotic"]["statistic"] is None
    assert any("never disagree" in w for w in d["warnings"])
    assert d["conclusion"]["better"] is None
    json.dumps(d, allow_nan=False)


def test_only_discordant_counts() -> None:
    rep = analyze(PairedTable(b=17, c=3))
    d = rep.to_dict()
    assert d["table"]["n"] is None and d["difference"]["estimate"] is None
    assert d["unpaired"] is None and d["power"] is None
    assert d["difference"]["intervals"] == {}
    assert d["odds_ratio"]["estimate"] == pytest.approx(17 / 3)
    assert any("need N" in w for w in d["warnings"])
    assert "needs the number of items" in str(rep)
    assert rep.conclusion.better == "a"


def test_large_d_recommends_chi_square() -> None:
    rep = analyze(PairedTable(a=500, b=40, c=20, d=40))
    assert rep.recommended == "asymptotic"
    assert rep.to_dict()["tests"]["asymptotic"]["recommended"] is True


def test_one_sided() -> None:
    rep = analyze(PairedTable(a=157, b=17, c=3, d=23), alternative="less")
    assert rep.conclusion.significant is False
    assert "in B's favour" in rep.conclusion.text
    rep2 = analyze(PairedTable(a=157, b=17, c=3, d=23), alternative="greater")
    assert rep2.conclusion.better == "a"


def test_underflowing_p_in_words() -> None:
    rep = analyze(PairedTable(a=0, b=0, c=5000, d=0))
    assert "1.416e-1505" in str(rep)
    assert rep.to_dict()["tests"]["exact"]["pvalue"] == 0.0
    assert rep.to_dict()["tests"]["exact"]["log10_pvalue"] == pytest.approx(-1504.8489, abs=1e-4)


def test_bad_arguments() -> None:
    t = PairedTable(b=1, c=2)
    with pytest.raises(McNemarError, match="names must be two non-empty strings"):
        analyze(t, names=("only one",))  # type: ignore[arg-type]
    with pytest.raises(McNemarError, match="names must differ"):
        analyze(t, names=("x", "x"))
    # Every hint shows a valid value of the argument it is about.
    with pytest.raises(
        McNemarError, match=r"alpha must be strictly between 0 and 1 \(e\.g\. 0\.05\), got 1\.5$"
    ):
        analyze(t, alpha=1.5)
    with pytest.raises(
        McNemarError,
        match=r"confidence_level must be .* \(e\.g\. 0\.95 for 95%\), got 95; for 95% give 0\.95",
    ):
        analyze(t, confidence_level=95)
    with pytest.raises(
        McNemarError, match=r"alpha must be .* \(e\.g\. 0\.05\), got 5; for 5% give 0\.05"
    ):
        analyze(t, alpha=5)
    with pytest.raises(McNemarError, match=r"power must be a number .* \(e\.g\. 0\.8 for 80%\)"):
        analyze(t, power="0.8")
    with pytest.raises(TableError, match="single table"):
        analyze(PairedTable(b=np.array([1, 2]), c=np.array([2, 3])))


def test_alignment_is_carried() -> None:
    class Summary:
        def to_dict(self) -> dict:
            return {"matched": 3}

        def __str__(self) -> str:
            return "3 items matched"

    rep = analyze(PairedTable(a=1, b=1, c=0, d=1), alignment=Summary())
    assert rep.to_dict()["alignment"] == {"matched": 3}
    assert "3 items matched" in str(rep)


def test_clustered_items_change_the_recommendation() -> None:
    # Psychiatry data (Donner & Petryshen 1989; Eliasziw & Donner 1991): 29 clusters.
    from pathlib import Path

    from mcnemar import clustered

    data = json.loads((Path(__file__).parent / "data" / "clustered.json").read_text())
    clusters = np.array(data["datasets"]["psychiatry"]["clusters"])
    result = clustered(clusters)
    rep = analyze(PairedTable(*clusters.sum(axis=0)), clustered=result)
    d = rep.to_dict()
    assert d["recommended"]["test"] == "clustered"
    assert d["tests"]["clustered"]["recommended"] is True
    assert d["tests"]["exact"]["recommended"] is False
    assert round(d["tests"]["clustered"]["statistic"], 2) == 7.19  # published Obuchowski value
    assert rep.pvalue == pytest.approx(result.pvalue)
    assert d["clustered"]["design_effect"] == pytest.approx(result.design_effect)
    assert "cluster-robust" in rep.conclusion.text
    assert "Design effect 1.26" in " ".join(str(rep).split())
    assert rep.assumptions[0].startswith("The clusters are independent")
    json.dumps(d, allow_nan=False)
    # one-sided: half the tail in the observed direction (B better here)
    less = analyze(PairedTable(*clusters.sum(axis=0)), clustered=result, alternative="less")
    assert less.pvalue == pytest.approx(result.pvalue / 2)
    greater = analyze(PairedTable(*clusters.sum(axis=0)), clustered=result, alternative="greater")
    assert greater.pvalue == pytest.approx(1 - result.pvalue / 2)
    with pytest.raises(McNemarError, match="same items"):
        analyze(PairedTable(a=1, b=2, c=3, d=4), clustered=result)


def test_huge_test_sets_report_tiny_differences_readably() -> None:
    # D = 2e10 discordant items: the detectable difference comes from Connor's approximation
    # (the exact power sum would take seconds), and tiny differences keep significant digits.
    from mcnemar.planning import minimum_detectable_effect

    n = 10**12
    table = PairedTable(a=n, b=n // 100, c=n // 100 + 10**6, d=n)
    rep = analyze(table)
    d = rep.to_dict()
    assert d["power"]["method"] == "connor"
    total = 2 * n + 2 * (n // 100) + 10**6
    want = minimum_detectable_effect(total, (2 * (n // 100) + 10**6) / total, method="connor")
    assert rep.detectable_difference == pytest.approx(want.difference)
    assert "by 0.000050 accuracy points" in rep.conclusion.text
    assert "0.0 points" not in str(rep)
    small = analyze(PairedTable(a=157, b=17, c=3, d=23)).to_dict()
    assert small["power"]["method"] == "exact"


# -- the shipped JSON Schema ---------------------------------------------------------------------
def _validator():
    import jsonschema_rs

    from mcnemar.report import json_schema

    return jsonschema_rs.validator_for(json_schema())


@pytest.mark.parametrize(
    ("table", "kwargs"),
    [
        (PairedTable(a=157, b=17, c=3, d=23), {"names": ("candidate", "baseline")}),
        (PairedTable(b=17, c=3), {}),
        (PairedTable(a=90, b=0, c=0, d=10), {}),
        (PairedTable(a=0, b=0, c=0, d=0), {}),
        (PairedTable(a=0, b=0, c=5000, d=0), {"alternative": "less"}),
        (PairedTable(a=500, b=40, c=20, d=40), {"confidence_level": 0.9, "alpha": 0.01}),
        (PairedTable(a=10**12, b=10**10, c=10**10 + 10**6, d=10**12), {}),
    ],
)
def test_reports_conform_to_the_shipped_schema(table: PairedTable, kwargs: dict) -> None:
    validator = _validator()
    document = analyze(table, **kwargs).to_dict()
    errors = [e.message for e in validator.iter_errors(document)]
    assert errors == []


def test_clustered_report_conforms_and_the_schema_rejects_bad_documents() -> None:
    from pathlib import Path

    from mcnemar import clustered

    data = json.loads((Path(__file__).parent / "data" / "clustered.json").read_text())
    clusters = np.array(data["datasets"]["thyroids"]["clusters"])
    document = analyze(PairedTable(*clusters.sum(axis=0)), clustered=clustered(clusters)).to_dict()
    validator = _validator()
    assert validator.is_valid(document)
    broken = json.loads(json.dumps(document))
    broken["tests"]["exact"]["pvalue"] = 1.5
    assert not validator.is_valid(broken)
    del broken["tests"]["exact"]["pvalue"]
    assert not validator.is_valid(broken)
    missing = {k: v for k, v in document.items() if k != "conclusion"}
    assert not validator.is_valid(missing)


@settings(max_examples=60, deadline=None)
@given(
    b=st.integers(0, 300),
    c=st.integers(0, 300),
    a=st.integers(0, 300),
    d=st.integers(0, 300),
    alt=st.sampled_from(["two-sided", "greater", "less"]),
)
def test_random_reports_conform(a: int, b: int, c: int, d: int, alt: str) -> None:
    document = analyze(PairedTable(a=a, b=b, c=c, d=d), alternative=alt).to_dict()
    assert _validator().is_valid(document)
