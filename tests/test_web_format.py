"""One headline and one set of digits: the page, the command line and the JSON agree.

The page formats no number itself: it shows the strings the report's JSON carries (the
``*_text`` fields of ``mcnemar.report/1``, the ``texts`` and ``headline`` of
``mcnemar.tasks/1``), and those are the strings the text report prints. These tests check that,
over generated tables and task comparisons (hypothesis), and that the command line
(``mcnemar test``, ``mcnemar compare --task-column``), its JSON and the web API
(``POST /api/v1/analyze``, ``POST /api/v1/compare``) give the same headline and the same
digits for every number they all print. The browser side (the page shows these strings, at
desktop and phone width) is tests/test_web_browser.py.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _harness_cases import suite_csvs
from mcnemar import PairedTable, analyze
from mcnemar.cli import main
from mcnemar.tasks import compare_task_tables, headline_rule

pytest.importorskip("fastapi")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's test client warns about its httpx backend
    from fastapi.testclient import TestClient

from mcnemar.web.app import create_app

CLIENT = TestClient(create_app(cache_size=0))
ORDER = ("exact", "midp", "asymptotic", "corrected")


def cli(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return str(result.output)


def unwrapped(text: str) -> str:
    """A text report with its paragraphs on one line each (the report wraps at 92)."""
    return " ".join(text.split())


def squeezed(text: str) -> str:
    """Text without white space: a wrapped paragraph (broken at a space or after a hyphen)
    compared with the sentence it prints."""
    return "".join(text.split())


def printed_numbers(text: str) -> dict[str, Any]:
    """The numbers a text report prints: each test's statistic and p, the accuracies, the
    difference and each interval's limits."""
    tests = re.findall(r"^ [* ] .+?\s+statistic\s+(\S+)\s+p = (\S+)", text, re.M)
    accuracy = re.search(r"^Accuracy: .+ (\S+%), .+ (\S+%)\.$", text, re.M)
    diff = re.search(r"^Difference in accuracy, .+: (\S+) points \(", text, re.M)
    intervals = re.findall(r"^   (.+?)\s+\[(\S+), (\S+)\] points$", text, re.M)
    return {
        "tests": dict(zip(ORDER, tests, strict=True)),
        "accuracy": None if accuracy is None else (accuracy[1], accuracy[2]),
        "difference": None if diff is None else diff[1],
        "intervals": {label: [lo, hi] for label, lo, hi in intervals},
    }


def json_numbers(d: dict[str, Any]) -> dict[str, Any]:
    """The same numbers as the report's JSON states them for a page."""
    tests = {k: (d["tests"][k]["statistic_text"] or "undefined", d["tests"][k]["pvalue_text"])
             for k in ORDER}
    acc = d["accuracy"]
    diff = d["difference"]
    intervals = {}
    if diff["estimate"] is not None:
        for key, iv in diff["intervals"].items():
            intervals[iv["label"]] = diff["interval_texts"][key]
    return {
        "tests": tests,
        "accuracy": None if acc is None else (acc["a_text"], acc["b_text"]),
        "difference": diff["estimate_text"],
        "intervals": intervals,
    }


# -- one report: the page's strings are the text report's ----------------------------------------

#: The issue's cases: exact p = 0.8036 (the page printed "0.8"), (6 - 7)/80 = -1.25 points
#: (JavaScript's toFixed prints -1.3, Python -1.2), and the corners.
CASES = [(60, 7, 9, 4), (50, 6, 7, 17), (157, 17, 3, 23), (0, 0, 0, 0), (90, 0, 0, 10),
         (10**9, 6 * 10**8, 4 * 10**8, 5), (0, 2**40, 2**40 - 1, 0)]


@pytest.mark.parametrize("cells", CASES)
def test_the_report_json_carries_the_text_reports_digits(cells: tuple[int, ...]) -> None:
    a, b, c, d = cells
    report = analyze(PairedTable(a=a, b=b, c=c, d=d))
    assert json_numbers(report.to_dict()) == printed_numbers(str(report))


def test_the_issues_numbers() -> None:
    d = analyze(PairedTable(a=60, b=7, c=9, d=4)).to_dict()
    assert d["tests"]["exact"]["pvalue"] == pytest.approx(0.8036, abs=5e-5)
    assert d["tests"]["exact"]["pvalue_text"] == "0.8036"
    d = analyze(PairedTable(a=50, b=6, c=7, d=17)).to_dict()
    assert d["difference"]["estimate_text"] == "-1.2"  # -1/80 = -1.25 points


@st.composite
def _requests(draw: Any) -> dict[str, Any]:
    b, c = draw(st.integers(0, 400)), draw(st.integers(0, 400))
    body: dict[str, Any] = {"b": b, "c": c, "name_a": "new", "name_b": "old",
                            "alternative": draw(st.sampled_from(["two-sided", "greater", "less"])),
                            "confidence_level": draw(st.sampled_from([0.9, 0.95, 0.99])),
                            "alpha": draw(st.sampled_from([0.01, 0.05, 0.1]))}
    if draw(st.booleans()):
        body["a"], body["d"] = draw(st.integers(0, 800)), draw(st.integers(0, 800))
    return body


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_requests())
def test_page_cli_and_json_print_the_same_numbers(body: dict[str, Any]) -> None:
    """The web API's report (what the page shows), ``mcnemar test``'s text and its JSON."""
    args = ["test", "--b", str(body["b"]), "--c", str(body["c"]), "--name-a", "new",
            "--name-b", "old", "--alternative", body["alternative"],
            "--confidence-level", str(body["confidence_level"]), "--alpha", str(body["alpha"])]
    if "a" in body:
        args += ["--a", str(body["a"]), "--d", str(body["d"])]
    text = cli(*args)
    document = json.loads(cli(*args, "--format", "json"))
    page = CLIENT.post("/api/v1/analyze", json=body).json()
    assert json_numbers(page) == json_numbers(document) == printed_numbers(text)
    assert page["conclusion"] == document["conclusion"]
    assert squeezed(page["conclusion"]["text"]) in squeezed(text)


def test_the_other_blocks_carry_their_lines_digits() -> None:
    """The margin, the Bayesian summary, the ratio and the clustered interval: the digits of
    the lines that print them."""
    from mcnemar import clustered

    report = analyze(PairedTable(a=1800, b=52, c=47, d=101), margin=0.01, equivalence=True,
                     bayes=True)
    d = report.to_dict()
    text = squeezed(str(report))
    ni, eq, bayes = d["noninferiority"], d["equivalence"], d["bayes"]
    assert f"Z = {ni['statistic_text']}, one-sided p = {ni['pvalue_text']}" in ni["text"]
    assert squeezed(ni["interval_text"]) in text
    assert f"larger p = {eq['pvalue_text']}" in eq["text"]
    assert f"p = {eq['pvalue_lower_text']} (A not worse), {eq['pvalue_upper_text']}" in eq["text"]
    for key in ("prob_a_better", "prob_equivalent", "prob_b_better"):
        assert squeezed(bayes[f"{key}_text"]) in text
    lo, hi = bayes["credible_interval_texts"]
    assert squeezed(f"median of the difference A - B: {bayes['median_text']} points") in text
    assert squeezed(f"credible interval {lo} to {hi} points") in text
    assert d["ratio"]["estimate_text"] == f"{d['ratio']['estimate']:.4g}"
    rows = [[1, 2, 0, 1], [3, 0, 2, 0], [2, 1, 1, 1], [0, 3, 0, 2], [4, 0, 1, 1]]
    import numpy as np

    cells = np.array(rows)
    rep = analyze(PairedTable(*cells.sum(axis=0)), clustered=clustered(cells))
    d = rep.to_dict()
    lo, hi = d["difference"]["interval_texts"]["clustered"]
    assert squeezed(f"interval [{lo}, {hi}] points") in squeezed(str(rep))
    assert squeezed(f"p = {d['tests']['clustered']['pvalue_text']}") in squeezed(str(rep))


# -- tasks: one headline, the table's digits, the explanation of a disagreement ------------------


def test_one_headline_rule() -> None:
    """The rule behind the headline every reader states: macro for two tasks or more."""
    assert headline_rule(1) == ("micro", headline_rule(1)[1])
    assert headline_rule(2)[0] == headline_rule(57)[0] == "macro"
    assert headline_rule(3, "micro")[0] == "micro"
    one = compare_task_tables({"t": (5, 3, 1, 2)})
    assert one.to_dict()["headline"]["overall"] == one.overall.headline == "micro"
    assert one.to_dict()["headline"]["label"] == "micro exact McNemar test"


_TABLES = st.tuples(st.integers(0, 60), st.integers(0, 40), st.integers(0, 40),
                    st.integers(0, 60)).filter(lambda t: sum(t) > 0)


@st.composite
def _suites(draw: Any) -> dict[str, tuple[int, int, int, int]]:
    tables = draw(st.lists(_TABLES, min_size=1, max_size=6))
    return {f"t{i}": t for i, t in enumerate(tables)}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_suites(), st.sampled_from(["two-sided", "greater", "less"]),
       st.sampled_from([0.05, 0.1]), st.sampled_from(["holm", "bh", "none"]))
def test_the_headline_and_the_table_are_the_texts(suite: dict[str, Any], alternative: str,
                                                  alpha: float, adjust: str) -> None:
    c = compare_task_tables(suite, names=("new", "old"), alternative=alternative, alpha=alpha,
                            adjust=adjust)
    d = c.to_dict()
    top = d["headline"]
    text = str(c)
    # one headline: the rule's, stated by the JSON, the verdict and the text alike
    assert top["overall"] == d["overall"]["headline"] == headline_rule(len(suite))[0]
    assert d["verdict"].startswith(top["text"])
    assert top["text"].startswith(f"Overall ({top['overall']}): new - old = "
                                  f"{top['texts']['estimate']} points")
    assert f"p = {top['texts']['pvalue']}:" in top["text"]
    assert squeezed(text).split("items.", 1)[1].startswith(squeezed(d["verdict"]))
    assert top["significant"] == (top["outcome"] in ("worse", "better")) == \
        (top["outcome"] == c.outcome != "none" and c.outcome != "undefined")
    for line in d["overall"]["lines"]:
        assert squeezed(line) in squeezed(text)
    # the table: each row's cells are the task's texts
    rows = [line.split() for line in text.splitlines() if line.split()[:1] in
            ([t] for t in suite)]
    assert [r[0] for r in rows] == [t["task"] for t in d["tasks"]]
    for row, task in zip(rows, d["tasks"], strict=True):
        x = task["texts"]
        assert row[4:8] == [x["difference"], x["low"], "to", x["high"]]
        assert row[9:11] == [x["pvalue"], x["adjusted_pvalue"]]
        if task["note"] is not None:
            assert squeezed(f"- {task['task']}: {task['note']}") in squeezed(text)
    # a task's explanation is the single report's for that table alone (the same rule)
    for task in d["tasks"]:
        if task["test"] == "clustered":
            continue
        cells = suite[task["task"]]
        alone = analyze(PairedTable(*cells), names=("new", "old"), alternative=alternative,
                        alpha=alpha).conclusion.text
        if task["note"] is None:
            assert "need not agree" not in alone
        else:
            assert task["note"] in alone


def test_a_disagreement_is_explained_in_every_rendering() -> None:
    """The issue's row: an interval that excludes 0 beside a non-significant exact test."""
    c = compare_task_tables({"logic": (10, 0, 5, 5), "qa": (40, 18, 26, 11)},
                            names=("new", "old"))
    (logic,) = [t for t in c.to_dict()["tasks"] if t["task"] == "logic"]
    assert logic["texts"]["pvalue"] == "0.0625" and logic["texts"]["high"] == "-3.2"
    note = logic["note"]
    assert note == ("The 95% Newcombe interval of new - old (-43.4 to -3.2 points) excludes 0: "
                    "the interval and the test are computed differently, so they need not "
                    "agree.")
    assert note in analyze(PairedTable(10, 0, 5, 5), names=("new", "old")).conclusion.text
    assert squeezed(f"- logic: {note}") in squeezed(str(c))
    assert f"- logic: {note}" in c.to_markdown()
    # at another level the reason given is the levels'
    other = compare_task_tables({"logic": (10, 0, 5, 5), "qa": (40, 18, 26, 11)},
                                names=("new", "old"), confidence_level=0.9)
    notes = [t["note"] for t in other.to_dict()["tasks"] if t["note"]]
    assert all("the interval is at the 90% level" in n for n in notes)


def _suite_files(folder: Path, suite: dict[str, tuple[int, int, int, int]]) -> tuple[Path, Path]:
    return suite_csvs(folder, suite)


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(_suites().filter(lambda s: len(s) >= 2))
def test_cli_json_and_upload_give_one_headline(tmp_path: Path, suite: dict[str, Any]) -> None:
    """``compare --task-column`` (text and JSON) and the upload the page sends: the same
    headline, the same rows, the same digits."""
    a, b = _suite_files(tmp_path, suite)
    text = cli("compare", str(a), str(b), "--task-column", "task")
    document = json.loads(cli("compare", str(a), str(b), "--task-column", "task",
                              "--format", "json"))
    files = {"file_a": (a.name, a.read_bytes(), "text/csv"),
             "file_b": (b.name, b.read_bytes(), "text/csv")}
    response = CLIENT.post("/api/v1/compare", files=files,
                           data={"task_column": "task", "include": "markdown"})
    assert response.status_code == 200, response.text
    upload = response.json()
    page = upload["tasks"]
    for key in ("headline", "verdict", "tasks", "names"):
        assert page[key] == document[key], key
    assert page["overall"]["lines"] == document["overall"]["lines"]
    assert squeezed(text).split("items.", 1)[1].startswith(squeezed(page["verdict"]))
    assert upload["markdown"].startswith("### new.csv vs old.csv, task by task")
    assert page["headline"]["text"] in upload["markdown"]


# -- the forest plot: what docs/tasks.md shows for the PNG, in the SVG too -----------------------


def test_the_svg_forest_plot_has_the_pngs_labels() -> None:
    suite = {"abstract_algebra": (52, 6, 31, 11), "anatomy": (101, 9, 7, 18),
             "clinical_knowledge": (190, 12, 40, 23), "college_biology": (111, 10, 6, 17)}
    c = compare_task_tables(suite, names=("candidate", "baseline"))
    svg = c.to_svg()
    rows = c.forest_rows()
    assert [r["headline"] for r in rows].count(True) == 1
    assert "Overall, macro (mean of tasks) *" in svg
    assert "Overall, micro (items pooled) *" not in svg
    assert "accuracy(candidate) - accuracy(baseline), points, 95% CI" in svg
    assert "* = headline overall" in svg and "Holm adjusted p &lt; 0.05" in svg
    labels = re.findall(r'data-p="([^"]+)"', svg)
    assert labels == [r["p_label"] for r in rows if r["p_label"] is not None]
    assert labels[0].startswith("adj. p = ") and labels[-1].startswith("p = ")
    micro = compare_task_tables(suite, headline="micro").to_svg()
    assert "Overall, micro (items pooled) *" in micro and "(mean of tasks) *" not in micro
    pytest.importorskip("matplotlib")
    ax = c.plot()
    png = [t.get_text() for t in ax.texts]
    assert png == labels
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    assert "Overall, macro (mean of tasks) *" in ticks


# -- names and identity of uploaded logs ---------------------------------------------------------

INSPECT = Path(__file__).parent / "data" / "io" / "real" / "inspect"


def test_an_upload_without_names_uses_the_logs_names() -> None:
    a, b = INSPECT / "arith_a.eval", INSPECT / "arith_b.eval"
    document = json.loads(cli("compare", str(a), str(b), "--format", "json"))
    files = {"file_a": (a.name, a.read_bytes(), "application/zip"),
             "file_b": (b.name, b.read_bytes(), "application/zip")}
    got = CLIENT.post("/api/v1/compare", files=files).json()
    assert got["names"] == document["names"] == {"a": "mockllm/system-a",
                                                 "b": "mockllm/system-b"}
    assert got["conclusion"] == document["conclusion"]
    typed = CLIENT.post("/api/v1/compare", files=files, data={"name_a": "new"}).json()
    assert typed["names"] == {"a": "new", "b": "mockllm/system-b"}
    assert CLIENT.post("/api/v1/compare", files=files, data={"name_a": ""}).json()["names"] == \
        document["names"]
    text = cli("compare", str(a), str(b))
    for side in "ab":
        described = got["alignment"]["runs"][side]["description"]
        assert described == document["alignment"]["runs"][side]["description"]
        assert f"     {described}." in text
