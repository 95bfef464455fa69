"""Tests of mcnemar.tasks: per-task comparisons, the micro and macro overall, their words.

References the numbers are checked against:

* each task's p-value and interval: the single-table report (:func:`mcnemar.report.analyze`)
  of that task's table, and ``mcnemar compare`` of that task alone;
* per-task tables of real harness logs: counted by the fixture generators with the harness's
  own reader or plain json (tests/data/io/real/*/expected.json);
* Holm and Benjamini-Hochberg: statsmodels' ``multipletests``;
* the macro variance: a seeded simulation of whole suites (coverage of the interval, the
  spread of the estimate) and, as a check only, a paired bootstrap resampling items within
  tasks.
"""

from __future__ import annotations

import itertools
import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcnemar.errors import McNemarError
from mcnemar.io import RunResults, read_run
from mcnemar.report import analyze
from mcnemar.table import PairedTable
from mcnemar.tasks import (
    SCHEMA,
    compare_task_tables,
    compare_tasks,
    forest_svg,
    macro_difference,
    read_suite,
)

REAL = Path(__file__).parent / "data" / "io" / "real"


def _expected(folder: str) -> dict:
    return json.loads((REAL / folder / "expected.json").read_text())


def _cells(t) -> dict[str, int]:
    return {"a": t.a, "b": t.b, "c": t.c, "d": t.d}


def _run(name: str, tasks: dict[str, list[int]]) -> RunResults:
    keys = [(t, i) for t, scores in tasks.items() for i in range(len(scores))]
    scores = [s for v in tasks.values() for s in v]
    arr = np.empty(len(keys), dtype=object)
    arr[:] = keys
    return RunResults(name=name, path=f"{name}.csv", format="csv", records=len(keys),
                      keys=arr, scores=np.asarray(scores, float), key_names=("task", "id"))


# --- real harness logs: per-task tables counted independently ------------------------------


def test_lmeval_group_with_different_metrics_per_task() -> None:
    exp = _expected("lmeval")
    want = {p["task"]: p["table"] for p in exp["pairings"]
            if p["a"] == "group_a" and p.get("task") and
            p["read"].get("filter") in (None, "strict")}
    assert set(want) == {"arith_gen", "arith_mc"}
    a = read_run(REAL / "lmeval" / "group_a", filter="strict")
    b = read_run(REAL / "lmeval" / "group_b", filter="strict")
    res = compare_tasks(a, b)
    assert {t.task: _cells(t) for t in res.tasks} == want
    # the metrics differ: exact_match for the generation task, acc for multiple choice
    metrics = {t.name: t.scorer for t in a.identity.tasks}
    assert metrics == {"arith_gen": "exact_match", "arith_mc": "acc"}
    pooled = {k: sum(t[k] for t in want.values()) for k in "abcd"}
    assert res.overall.micro.table.to_dict()["a"] == pooled["a"]
    assert (res.overall.micro.table.b, res.overall.micro.table.c) == (pooled["b"], pooled["c"])


def test_helm_two_scenarios() -> None:
    exp = _expected("helm")
    want = {}
    for p in exp["pairings"]:
        if p["a"].endswith("per_instance_stats.json"):
            continue
        want[exp["runs"][p["a"]]["task"]] = p["table"]
    suite = REAL / "helm" / "fixture"
    a = read_suite(suite, model="fixture/system-a")
    b = read_suite(suite, model="fixture/system-b")
    assert len(a) == len(b) == 2
    res = compare_tasks(a, b)
    assert {t.task: _cells(t) for t in res.tasks} == want
    with pytest.raises(McNemarError, match="2 models"):
        read_suite(suite)


def test_inspect_directory_of_two_tasks() -> None:
    exp = _expected("inspect_tasks")
    a = read_suite(REAL / "inspect_tasks" / "a")
    b = read_suite(REAL / "inspect_tasks" / "b")
    res = compare_tasks(a, b)
    assert {t.task: _cells(t) for t in res.tasks} == {k: v["table"]
                                                      for k, v in exp["tasks"].items()}
    micro = res.overall.micro.table
    assert {"a": micro.a, "b": micro.b, "c": micro.c, "d": micro.d} == exp["pooled"]


# --- per task = the single report of that task ----------------------------------------------


def test_each_task_equals_its_single_report() -> None:
    tables = {"t1": (40, 3, 12, 5), "t2": (100, 30, 12, 8), "t3": (10, 0, 0, 2),
              "t4": (7, 9, 1, 3)}
    for alt in ("two-sided", "less", "greater"):
        res = compare_task_tables(tables, alternative=alt, confidence_level=0.9)
        for t in res.tasks:
            rep = analyze(PairedTable(*tables[t.task]), alternative=alt, confidence_level=0.9)
            assert t.pvalue == rep.pvalue
            assert t.test == rep.recommended
            ci = rep.difference_intervals["newcombe"]
            assert (t.low, t.high) == (ci.low, ci.high)
            assert t.difference == rep.difference


def test_micro_is_the_pooled_report() -> None:
    tables = {"x": (40, 3, 12, 5), "y": (100, 30, 12, 8)}
    res = compare_task_tables(tables)
    rep = analyze(PairedTable(140, 33, 24, 13))
    assert res.overall.micro.pvalue == rep.pvalue
    assert res.overall.micro.to_dict()["tests"] == rep.to_dict()["tests"]


def test_adjusted_pvalues_match_statsmodels() -> None:
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    rng = np.random.default_rng(12)
    counts = rng.integers(0, 30, size=(12, 4))
    counts[:, 0] += 1
    tables = {f"task{i}": tuple(int(x) for x in row) for i, row in enumerate(counts)}
    for adjust, sm in (("holm", "holm"), ("bh", "fdr_bh"), ("bonferroni", "bonferroni")):
        res = compare_task_tables(tables, adjust=adjust)
        p = np.array([t.pvalue for t in res.tasks])
        want = multitest.multipletests(p, method=sm)[1]
        np.testing.assert_allclose([t.adjusted_pvalue for t in res.tasks], want, rtol=1e-12)


def test_order_worse_first_then_by_difference() -> None:
    tables = {"fine": (80, 10, 9, 1), "bad": (40, 1, 30, 29), "worst": (10, 0, 60, 30),
              "good": (50, 30, 2, 18)}
    res = compare_task_tables(tables)
    assert [t.task for t in res.tasks] == ["worst", "bad", "fine", "good"]
    assert [t.task for t in res.worse] == ["worst", "bad"]
    assert [t.task for t in res.better] == ["good"]


# --- macro variance ----------------------------------------------------------------------


def test_macro_formula_by_hand() -> None:
    # Var = sum_t w^2 [(b+c)/n - ((b-c)/n)^2]/n with w = 1/2
    r = macro_difference([[80, 15, 5, 0], [40, 2, 6, 2]])
    v1 = (20 / 100 - (10 / 100) ** 2) / 100
    v2 = (8 / 50 - (4 / 50) ** 2) / 50
    assert r["estimate"] == pytest.approx((0.1 - 0.08) / 2, abs=1e-15)
    assert r["standard_error"] == pytest.approx(math.sqrt((v1 + v2) / 4), rel=1e-13)
    z = r["estimate"] / r["standard_error"]
    assert r["pvalue"] == pytest.approx(math.erfc(abs(z) / math.sqrt(2)), rel=1e-12)


def _simulate(rng: np.random.Generator, probs: np.ndarray, sizes: np.ndarray,
              reps: int) -> np.ndarray:
    """reps x T x 4 paired tables of independent suites."""
    out = np.empty((reps, len(sizes), 4), dtype=np.int64)
    for t, (p, n) in enumerate(zip(probs, sizes, strict=True)):
        out[:, t, :] = rng.multinomial(n, p, size=reps)
    return out


def test_macro_interval_coverage_by_simulation() -> None:
    """Seeded simulation of 3000 suites of 6 tasks: the 95% macro interval covers the true
    macro difference about 95% of the time, and the estimate's spread matches the standard
    error."""
    rng = np.random.default_rng(2024)
    sizes = np.array([60, 120, 200, 80, 300, 150])
    probs = np.array([[0.6, 0.15, 0.1, 0.15], [0.5, 0.1, 0.2, 0.2], [0.7, 0.12, 0.08, 0.1],
                      [0.4, 0.2, 0.2, 0.2], [0.8, 0.05, 0.07, 0.08], [0.55, 0.2, 0.1, 0.15]])
    truth = float(np.mean(probs[:, 1] - probs[:, 2]))
    sims = _simulate(rng, probs, sizes, 3000)
    est, se, covered = [], [], 0
    for counts in sims:
        r = macro_difference(counts)
        est.append(r["estimate"])
        se.append(r["standard_error"])
        covered += r["low"] <= truth <= r["high"]
    coverage = covered / len(sims)
    # 0.95 +/- 4 binomial standard errors (about 0.016)
    assert abs(coverage - 0.95) < 4 * math.sqrt(0.95 * 0.05 / len(sims))
    true_sd = math.sqrt(sum((p[1] + p[2] - (p[1] - p[2]) ** 2) / n
                            for p, n in zip(probs, sizes, strict=True))) / len(sizes)
    assert np.std(est) == pytest.approx(true_sd, rel=0.06)
    assert np.mean(se) == pytest.approx(true_sd, rel=0.03)


def test_macro_standard_error_against_paired_bootstrap() -> None:
    """A check only: resampling items within tasks (paired: A's and B's outcome of an item
    stay together) gives about the same standard error of the macro difference."""
    rng = np.random.default_rng(7)
    tables = np.array([[50, 12, 6, 12], [120, 9, 21, 30], [30, 8, 2, 10]])
    r = macro_difference(tables)
    reps = 2000
    boot = np.zeros(reps)
    for row in tables:
        n = int(row.sum())
        # resampling n items from the task's items is a multinomial draw of its cells
        draws = rng.multinomial(n, row / n, size=reps)
        boot += (draws[:, 1] - draws[:, 2]) / n / len(tables)
    assert np.std(boot) == pytest.approx(r["standard_error"], rel=0.06)


# --- words follow from numbers (property) ---------------------------------------------------

_table = st.tuples(st.integers(0, 60), st.integers(0, 40), st.integers(0, 40),
                   st.integers(0, 60)).filter(lambda t: sum(t) > 0)


@settings(max_examples=60, deadline=None)
@given(st.lists(_table, min_size=1, max_size=8),
       st.sampled_from(["two-sided", "less", "greater"]),
       st.sampled_from(["holm", "bh", "none"]))
def test_sentences_follow_from_numbers(tables, alternative, adjust) -> None:
    named = {f"t{i}": t for i, t in enumerate(tables)}
    res = compare_task_tables(named, alternative=alternative, adjust=adjust)
    text = res.verdict()
    worse = [t for t in res.tasks if t.adjusted_pvalue < res.alpha and t.difference < 0
             and alternative != "greater"]
    assert [t.task for t in res.worse] == [t.task for t in worse]
    assert f"{len(worse)} of {len(tables)} task" in text
    # Up to six worse tasks are all named; more are five names and the number left.
    named = worse if len(worse) <= 6 else worse[:5]
    for t in named:
        assert t.task in text
    for t in worse[len(named):]:
        assert t.task not in text
    if len(named) < len(worse):
        assert f" and {len(worse) - 5} more." in text
    else:
        assert " more." not in text
    est, _, _, p = res.headline
    if p is None:
        assert "undefined" in text
    elif p >= res.alpha:
        assert "no significant" in text
    elif est < 0 and alternative != "greater":
        assert "significantly less accurate" in text
    elif est > 0 and alternative != "less":
        assert "significantly more accurate" in text
    # the printed headline difference has the estimate's sign
    shown = text.split(" = ")[1].split(" points")[0]
    if est != 0:
        assert shown.startswith("+" if est > 0 else "-")
    json.dumps(res.to_dict(), allow_nan=False)
    _check_printed_table(res)


def _number(text: str) -> float:
    return 0.0 if text == "<1e-300" else float(text)


def _check_printed_table(res) -> None:  # type: ignore[no-untyped-def]
    """Read the printed per-task table back: a row is flagged worse (better) exactly when its
    printed adjusted p is below alpha and its printed difference is negative (positive), and
    the verdict counts the rows flagged worse."""
    lines = str(res).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("task "))
    rows = lines[start + 1:start + 1 + len(res.tasks)]
    flagged = 0
    for line, t in zip(rows, res.tasks, strict=True):
        cells = line[len(max((x.task for x in res.tasks), key=len)):].split()
        flag = cells[-1] if cells[-1] in ("worse", "better") else ""
        adj = _number(cells[-2] if flag else cells[-1])
        diff = cells[3]
        significant = adj < res.alpha
        negative, positive = diff.startswith("-"), diff.startswith("+")
        expect = ("worse" if significant and negative and res.alternative != "greater" else
                  "better" if significant and positive and res.alternative != "less" else "")
        assert flag == expect, (line, t)
        flagged += flag == "worse"
    assert f"{flagged} of {len(res.tasks)} task" in res.verdict()


# --- inputs, options and errors -------------------------------------------------------------


@pytest.mark.parametrize("k", [6, 7])
def test_worse_tasks_named_up_to_six(k: int) -> None:
    # k tasks each with 0 of 12 discordant items for A: every one significantly worse.
    res = compare_task_tables({f"task{i}": (3, 0, 12, 1) for i in range(k)}, adjust="none")
    assert len(res.worse) == k
    text = res.verdict()
    if k == 6:
        assert "task0, task1, task2, task3, task4, task5." in text
    else:
        assert "task0, task1, task2, task3, task4 and 2 more." in text
        assert "task5" not in text and "task6" not in text


def test_task_column_of_a_generic_run() -> None:
    a = _run("new", {"t1": [1] * 40 + [0] * 10, "t2": [1] * 30 + [0] * 20})
    b = _run("old", {"t1": [1] * 30 + [0] * 20, "t2": [1] * 45 + [0] * 5})
    res = compare_tasks(a, b, task_column="task")
    assert {t.task: (t.b, t.c) for t in res.tasks} == {"t1": (10, 0), "t2": (0, 15)}
    with pytest.raises(McNemarError, match="task_column") as err:
        compare_tasks(a, b)
    assert err.value.argument == "task_column"
    with pytest.raises(McNemarError, match="not a part of the item id"):
        compare_tasks(a, b, task_column="subject")


def test_tasks_in_one_run_only() -> None:
    a = _run("new", {"t1": [1, 0, 1], "t2": [1, 1, 0], "t3": [0, 0, 1]})
    b = _run("old", {"t1": [1, 1, 1], "t2": [0, 1, 0], "t4": [1, 1, 1]})
    with pytest.raises(McNemarError, match="'t3' only in A; 't4' only in B") as err:
        compare_tasks(a, b, task_column="task")
    assert err.value.argument == "on_missing"
    res = compare_tasks(a, b, task_column="task", on_missing="intersect")
    assert sorted(t.task for t in res.tasks) == ["t1", "t2"]
    d = res.to_dict()["alignment"]["dropped_tasks"]
    assert d == {"only_in_a": ["t3"], "only_in_b": ["t4"]}
    assert "found only in A: t3" in str(res)


def test_task_selection_and_bad_options() -> None:
    a = _run("new", {"t1": [1, 0, 1], "t2": [1, 1, 0]})
    b = _run("old", {"t1": [1, 1, 1], "t2": [0, 1, 0]})
    res = compare_tasks(a, b, task_column="task", task="t2")
    assert [t.task for t in res.tasks] == ["t2"]
    assert res.overall.headline == "micro"
    for kwargs, arg in (({"adjust": "fdr"}, "adjust"), ({"interval": "nope"}, "interval"),
                        ({"headline": "both"}, "headline"),
                        ({"on_missing": "drop"}, "on_missing")):
        with pytest.raises(McNemarError) as err:
            compare_tasks(a, b, task_column="task", **kwargs)
        assert err.value.argument == arg
    with pytest.raises(McNemarError, match="not in either run"):
        compare_tasks(a, b, task_column="task", task="t9")


def test_alignment_error_names_the_task() -> None:
    a = _run("new", {"t1": [1, 0, 1], "t2": [1, 1, 0.5]})
    b = _run("old", {"t1": [1, 1, 1], "t2": [0, 1, 0]})
    with pytest.raises(McNemarError, match="task 't2'"):
        compare_tasks(a, b, task_column="task")


def test_clustered_tasks_are_the_clustered_report_of_each_task() -> None:
    from mcnemar.clustering import clustered_from_outcomes

    rng = np.random.default_rng(3)
    n = 60
    keys = [(t, i) for t in ("t1", "t2") for i in range(n)]
    arr = np.empty(len(keys), dtype=object)
    arr[:] = keys
    clusters = np.array([f"c{i // 4}" for _ in range(2) for i in range(n)], dtype=object)

    def run(name: str, p: float) -> RunResults:
        return RunResults(name=name, path=name, format="csv", records=len(keys), keys=arr,
                          scores=(rng.random(len(keys)) < p).astype(float),
                          key_names=("task", "id"), clusters=clusters, cluster_name="group")

    a, b = run("a", 0.7), run("b", 0.6)
    res = compare_tasks(a, b, task_column="task")
    for t in res.tasks:
        mask = np.array([k[0] == t.task for k in keys])
        cl = clustered_from_outcomes(a.scores[mask], b.scores[mask], clusters[mask])
        assert t.test == "clustered"
        assert t.pvalue == pytest.approx(cl.pvalue_for("two-sided"), rel=1e-12)
        assert t.variance == pytest.approx(cl.standard_error**2, rel=1e-12)
    # micro: clusters nested in tasks (c0 of t1 and c0 of t2 are different clusters)
    assert res.overall.micro.clustered is not None
    assert res.overall.micro.clustered.clusters == 2 * (n // 4)


# --- rendering --------------------------------------------------------------------------------


def test_to_dict_schema_and_contract() -> None:
    a = _run("new", {"t1": [1] * 40 + [0] * 10, "t2": [1] * 30 + [0] * 20})
    b = _run("old", {"t1": [1] * 30 + [0] * 20, "t2": [1] * 45 + [0] * 5})
    d = compare_tasks(a, b, task_column="task", adjust="bh").to_dict()
    json.dumps(d, allow_nan=False)
    assert d["schema"] == SCHEMA == "mcnemar.tasks/1"
    assert d["adjust"] == "bh"
    entry = d["tasks"][0]
    assert set(entry) >= {"task", "table", "difference", "pvalue", "adjusted_pvalue", "worse"}
    assert set(entry["table"]) == {"a", "b", "c", "d", "n"}
    assert set(entry["difference"]) == {"estimate", "low", "high"}
    assert d["overall"]["micro"]["schema"] == "mcnemar.report/1"
    macro = d["overall"]["macro"]
    assert set(macro) >= {"estimate", "low", "high", "pvalue", "weights"}
    assert [w["weight"] for w in macro["weights"]] == [0.5, 0.5]
    assert d["alignment"]["matched"] == 100


def test_text_markdown_html_and_svg_escape_names() -> None:
    tables = {"<b>evil</b> & |pipe|": (40, 3, 12, 5), "plain": (100, 30, 12, 8)}
    res = compare_task_tables(tables, names=("new <i>", "old"))
    page = res._repr_html_()
    assert "<b>evil" not in page and "&lt;b&gt;evil" in page
    assert page.index("<strong>") < page.index("<table>")  # the verdict first
    md = res._repr_markdown_()
    assert "\\|pipe\\|" in md
    text = str(res)
    assert text.splitlines()[2].startswith("Overall (macro)")
    svg = forest_svg(res)
    root = ET.fromstring(svg)  # well-formed XML
    labels = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "<b>evil</b> & |pipe|" in labels
    assert repr(res).startswith("TaskComparison(")


def test_svg_rows_are_worst_first_then_overall() -> None:
    tables = {f"task {i:02d} with a long name to shorten ....": (50, i, 20 - i, 10)
              for i in range(20)}
    res = compare_task_tables(tables)
    root = ET.fromstring(forest_svg(res, label_chars=40))
    ns = "{http://www.w3.org/2000/svg}"
    anchored = [t for t in root.iter(f"{ns}text") if t.get("text-anchor") == "end"]
    assert len(anchored) == 22
    assert all(len(t.text or "") <= 40 for t in anchored)
    assert anchored[-2].text.startswith("Overall, micro")
    assert anchored[-1].text.startswith("Overall, macro")
    ys = [float(t.get("y")) for t in anchored]
    assert all(b - a >= 18 for a, b in itertools.pairwise(ys))


def test_documents_match_the_json_schema() -> None:
    import jsonschema_rs

    from mcnemar.tasks import json_schema

    validator = jsonschema_rs.validator_for(json_schema())
    docs = [compare_tasks(read_suite(REAL / "inspect_tasks" / "a"),
                          read_suite(REAL / "inspect_tasks" / "b")).to_dict(),
            compare_task_tables({"x": (40, 3, 12, 5), "y": (0, 0, 0, 7)}, adjust="bh",
                                alternative="less").to_dict(),
            compare_task_tables({"only": (10, 9, 0, 1)}).to_dict()]
    for doc in docs:
        errors = [e.message for e in validator.iter_errors(doc)]
        assert errors == []
    broken = dict(docs[0], tasks=[{**docs[0]["tasks"][0], "worse": "yes"}])
    assert not validator.is_valid(broken)
    no_micro = json.loads(json.dumps(docs[0]))
    del no_micro["overall"]["micro"]["tests"]
    assert not validator.is_valid(no_micro)
