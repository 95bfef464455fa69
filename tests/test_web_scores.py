"""Uploads of scores that are not pass/fail (``POST /api/v1/compare``), and the page that shows
their report.

Reference: ``mcnemar compare --analysis scores --format json`` on the same files, run through
click's runner on copies laid out as the server lays out an upload (``file_a/NAME``,
``file_b/NAME``), with those paths then written as the names uploaded (what the server does
to its temporary paths): the response must equal that JSON key for key. The files are the
real graded logs (Inspect's partial credit and numeric scorer, ``tests/data/io/real/graded``),
the graded lm-eval and HELM metrics derived from the real logs (``tests/data/io/derived``) and
promptfoo's graded ``score``. With ``analysis`` left at ``auto`` the upload takes the scores'
analysis for them, and the pass/fail analysis for binary runs, as the command line does.

The ``display`` object of a score report is checked against the report's own renderers (the
text report's table of tests, its intervals, its list of items, the per-task table), and the
browser test uploads two graded files to a real ``mcnemar serve`` and reads the page.
"""

from __future__ import annotations

import json
import math
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's test client warns about its httpx backend
    from fastapi.testclient import TestClient

from click.testing import CliRunner

from mcnemar import vocabulary
from mcnemar.cli import main
from mcnemar.web.app import _load_page, create_app
from mcnemar.web.compare import WEB_FLIPS
from mcnemar.web.respond import map_strings

DATA = Path(__file__).parent / "data" / "io"
GRADED = DATA / "real" / "graded"
LMEVAL = DATA / "derived" / "lmeval"
HELM = DATA / "derived" / "helm" / "fixture"
PROMPTFOO = DATA / "real" / "promptfoo"
CLIENT = TestClient(create_app(cache_size=0))


def _lmeval(group: str, system: str) -> Path:
    return next((LMEVAL / group / system).glob("samples_arith_gen_*.jsonl"))


def _helm(scenario: str, system: str) -> Path:
    return HELM / f"fixture_{scenario}:model=fixture_{system}" / "per_instance_stats.json"


def _grade(record: dict[str, Any], score: float) -> None:
    """A promptfoo record graded ``score`` (an errored one keeps its error and no grade)."""
    if record.get("gradingResult"):
        record["score"] = record["gradingResult"]["score"] = score


def _promptfoo_graded(tmp_path: Path) -> tuple[Path, Path]:
    """promptfoo's two runs (A's eval JSON, B's JSON Lines) with graded scores, as an
    llm-rubric or similarity assertion records them: ``score`` (and the grading result's) in
    quarters, not 0/1."""
    doc = json.loads((PROMPTFOO / "a.json").read_text())
    for r in doc["results"]["results"]:
        _grade(r, 0.25 * ((7 * r["testIdx"] + 3) % 5))
    a = tmp_path / "graded_a.json"
    a.write_text(json.dumps(doc))
    lines = []
    for line in (PROMPTFOO / "b.jsonl").read_text().splitlines():
        r = json.loads(line)
        _grade(r, 0.25 * ((3 * r["testIdx"]) % 5))
        lines.append(json.dumps(r))
    b = tmp_path / "graded_b.jsonl"
    b.write_text("\n".join(lines) + "\n")
    return a, b


def _upload(a: Path, b: Path, **fields: str) -> Any:
    files = {"file_a": (a.name, a.read_bytes(), "application/octet-stream"),
             "file_b": (b.name, b.read_bytes(), "application/octet-stream")}
    return CLIENT.post("/api/v1/compare", files=files, data=fields)


def _cli_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, a: Path, b: Path,
              *args: str) -> dict[str, Any]:
    """``mcnemar compare --format json`` on copies of ``a`` and ``b`` laid out as an upload,
    with the paths written as the file names (as the server writes them)."""
    where = Path(tempfile.mkdtemp(dir=tmp_path))
    for field, path in (("file_a", a), ("file_b", b)):
        (where / field).mkdir()
        shutil.copy(path, where / field / path.name)
    with monkeypatch.context() as patch:
        patch.chdir(where)
        result = CliRunner().invoke(main, ["compare", f"file_a/{a.name}", f"file_b/{b.name}",
                                           "--format", "json", "--flips", str(WEB_FLIPS), *args])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    return dict(map_strings(doc, lambda s: s.replace(f"file_a/{a.name}", a.name)
                            .replace(f"file_b/{b.name}", b.name)))


#: Graded runs: the files, the form's fields and the command line's flags that read them.
CASES = {
    "inspect-closeness": (GRADED / "a.eval", GRADED / "b.eval", {"score": "closeness"}),
    "inspect-partial": (GRADED / "a.eval", GRADED / "b.eval", {"score": "partial"}),
    "lmeval-f1": (_lmeval("group_a", "system-a"), _lmeval("group_b", "system-b"),
                  {"score": "f1", "filter": "flexible"}),
    "helm-f1_score": (_helm("add", "system-a"), _helm("add", "system-b"), {"score": "f1_score"}),
    "helm-rouge_l": (_helm("mul", "system-a"), _helm("mul", "system-b"), {"score": "rouge_l"}),
    "promptfoo-score": (None, None, {"score": "score", "on_missing": "intersect"}),
}


def _files(case: str, tmp_path: Path) -> tuple[Path, Path, dict[str, str], list[str]]:
    a, b, fields = CASES[case]
    if a is None or b is None:
        a, b = _promptfoo_graded(tmp_path)
    flags = [x for key, value in fields.items()
             for x in ("--" + key.replace("_", "-"), value)]
    return a, b, dict(fields), flags


@pytest.mark.parametrize("case", list(CASES))
def test_an_upload_of_graded_runs_is_the_commands_score_report(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b, fields, flags = _files(case, tmp_path)
    want = _cli_json(tmp_path, monkeypatch, a, b, *flags, "--analysis", "scores")
    assert want["schema"] == "mcnemar.scores/1" and not want["binary"]
    response = _upload(a, b, analysis="scores", **fields)
    assert response.status_code == 200, response.text
    got = response.json()
    assert got == want
    # auto (the default) takes the scores' analysis for them, as the command line does.
    assert _upload(a, b, **fields).json() == want
    assert want == _cli_json(tmp_path, monkeypatch, a, b, *flags)
    # The page lists the first WEB_FLIPS items of each side; the counts are the report's.
    for side, count in (("a_higher", "higher_a"), ("b_higher", "higher_b")):
        assert got["flips"][side]["count"] == got["counts"][count]
        assert len(got["flips"][side]["items"]) == min(WEB_FLIPS, got["counts"][count])


def test_the_score_report_validates_against_its_schemas(tmp_path: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from mcnemar.scores import json_schema
    from mcnemar.web.models import ScoreReportResponse

    got = _upload(GRADED / "a.eval", GRADED / "b.eval", score="closeness",
                  include="markdown,text,display,distribution").json()
    ScoreReportResponse.model_validate(got)
    extras = {"markdown", "text", "display"}
    assert extras <= set(got) and "distribution" not in got  # a picture of pass/fail only
    jsonschema.validate({k: v for k, v in got.items() if k not in extras}, json_schema())
    assert got["markdown"].startswith("### Paired comparison of scores")
    assert got["text"].startswith("Paired comparison of scores: mockllm/system-a (A)")


def test_binary_runs_keep_the_pass_fail_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HELM's exact_match and promptfoo's pass/fail are 0/1: auto is McNemar's report, the
    same as pass-fail asked for, and as the command line writes it."""
    pairs = [(_helm("add", "system-a"), _helm("add", "system-b"), {}),
             (PROMPTFOO / "a.json", PROMPTFOO / "b.jsonl", {"on_missing": "intersect"})]
    for a, b, fields in pairs:
        got = _upload(a, b, **fields).json()
        assert got["schema"] == "mcnemar.report/1", got
        assert _upload(a, b, analysis="pass-fail", **fields).json() == got
        flags = [x for k, v in fields.items() for x in ("--" + k.replace("_", "-"), v)]
        assert got == _cli_json(tmp_path, monkeypatch, a, b, *flags)
    # Asked for, the scores' analysis of 0/1 scores is given (and says it is pass/fail data).
    a, b, _ = pairs[0]
    scores = _upload(a, b, analysis="scores").json()
    assert scores["schema"] == "mcnemar.scores/1" and scores["binary"] is True
    assert scores == _cli_json(tmp_path, monkeypatch, a, b, "--analysis", "scores")


def test_pass_fail_asked_for_graded_runs_names_the_threshold() -> None:
    a, b = _helm("add", "system-a"), _helm("add", "system-b")
    response = _upload(a, b, score="f1_score", analysis="pass-fail")
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["field"] == "threshold" and "not 0/1" in error["message"]
    got = _upload(a, b, score="f1_score", analysis="pass-fail", threshold="0.5").json()
    assert got["schema"] == "mcnemar.report/1"
    assert got["alignment"]["runs"]["a"]["binarised"] > 0
    # A threshold makes auto pass/fail too, as on the command line.
    assert _upload(a, b, score="f1_score", threshold="0.5").json() == got


def _task_files(tmp_path: Path) -> tuple[Path, Path]:
    """Three tasks of 30 graded items each (ids repeated across tasks); A is lower on t1."""
    a = tmp_path / "tasks_a.csv"
    b = tmp_path / "tasks_b.csv"
    rows = [(t, i) for t in ("t0", "t1", "t2") for i in range(30)]
    a.write_text("task,id,score\n" + "".join(
        f"{t},q{i},{((i * 7) % 11) / 10 - (0.4 if t == 't1' else 0) + 0.4}\n" for t, i in rows))
    b.write_text("task,id,score\n" + "".join(
        f"{t},q{i},{((i * 5) % 11) / 10 + 0.2}\n" for t, i in rows))
    return a, b


def test_graded_files_of_several_tasks_are_compared_task_by_task(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = _task_files(tmp_path)
    want = _cli_json(tmp_path, monkeypatch, a, b, "--task-column", "task", "--by-task",
                     "--analysis", "scores")
    assert want["schema"] == "mcnemar.score-tasks/1" and len(want["tasks"]) == 3
    response = _upload(a, b, task_column="task", analysis="scores")
    assert response.status_code == 200, response.text
    got = response.json()
    assert got == want
    assert _upload(a, b, task_column="task").json() == want  # auto
    assert {f["task"] for side in ("a_higher", "b_higher")
            for f in got["flips"][side]["items"]} == {"t0", "t1", "t2"}
    from mcnemar.web.models import ScoreTasksResponse

    shown = _upload(a, b, task_column="task", include="display,markdown,text").json()
    ScoreTasksResponse.model_validate(shown)
    assert shown["text"].startswith("tasks_a.csv (A) vs tasks_b.csv (B), scores task by task: 3 "
                                    "tasks.")
    assert shown["markdown"].startswith("### Scores task by task")
    # The decisions of one comparison are refused, naming their field, as --by-task does.
    for fields, field in (({"margin": "0.01"}, "margin"), ({"bayes": "true"}, "bayes")):
        response = _upload(a, b, task_column="task", **fields)
        assert response.status_code == 422, response.text
        assert response.json()["error"]["field"] == field


def _assert_error(response: Any, field: str) -> dict[str, Any]:
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["status"] == 422 and error["field"] == field
    assert error["errors"] and error["errors"][0]["field"] == field
    assert set(error["errors"][0]) == {"field", "message", "type"}
    return dict(error)


def test_bad_analysis_options_name_their_field() -> None:
    a, b = GRADED / "a.eval", GRADED / "b.eval"
    error = _assert_error(_upload(a, b, score="closeness", analysis="graded"), "analysis")
    assert "'graded'" in error["message"]
    for name in ("auto", *vocabulary.names(vocabulary.ANALYSES)):
        assert repr(name) in error["message"]
    error = _assert_error(_upload(a, b, score="closeness", analysis="scores", threshold="0.5"),
                          "threshold")
    assert "analysis=scores" in error["message"]
    # The pass/fail decisions do not apply to scores; the field is named.
    error = _assert_error(_upload(a, b, score="closeness", bayes="true"), "bayes")
    assert "pass/fail" in error["message"]
    _assert_error(_upload(a, b, score="closeness", margin="0.01", equivalence="true"),
                  "equivalence")
    # A scorer the log does not have: the file's error, naming the scorers it has.
    error = _assert_error(_upload(a, b, score="nope"), "file_a")
    assert "nope" in error["message"] and "closeness" in error["message"]
    error = _assert_error(_upload(a, b), "score")
    assert "several scorers" in error["message"] and "score=NAME" in error["message"]


def test_a_margin_in_score_units_is_the_commands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = GRADED / "a.eval", GRADED / "b.eval"
    want = _cli_json(tmp_path, monkeypatch, a, b, "--score", "closeness", "--margin", "0.02")
    got = _upload(a, b, score="closeness", margin="0.02").json()
    assert got == want and got["noninferiority"]["margin"] == 0.02
    assert got["noninferiority"]["note"]


def test_the_openapi_schema_and_the_page_list_the_analyses() -> None:
    schema = CLIENT.get("/api/v1/openapi.json").json()
    post = schema["paths"]["/api/v1/compare"]["post"]
    form = post["requestBody"]["content"]["multipart/form-data"]["schema"]["properties"]
    choices = ["auto", *vocabulary.names(vocabulary.ANALYSES)]
    assert form["analysis"]["enum"] == choices and form["analysis"]["default"] == "auto"
    assert form["score"]["type"] == form["filter"]["type"] == "string"
    answer = json.dumps(post["responses"]["200"])
    for model in ("ReportResponse", "ScoreReportResponse", "ScoreTasksResponse"):
        assert f"#/components/schemas/{model}" in answer, model
    page = _load_page(50)
    for name in choices:
        assert f'<option value="{name}"' in page, name
    for term in vocabulary.ANALYSES:
        assert term.label in page, term.label


# ----------------------------------------------------------------------------- display


def _score_report(case: str, tmp_path: Path) -> tuple[Any, dict[str, Any]]:
    """The library's report of a case (as the server computes it) and the server's answer."""
    from mcnemar.pipeline import compare_runs, read_runs

    a, b, fields, _ = _files(case, tmp_path)
    options = {k: v for k, v in fields.items() if k in ("score", "filter")}
    runs = read_runs([a, b], **options)
    report = compare_runs(*runs, analysis="scores", flips=WEB_FLIPS, show_flips=False,
                          on_missing=fields.get("on_missing", "error"))
    got = _upload(a, b, include="display", **fields).json()
    return report, got


@pytest.mark.parametrize("case", ["inspect-closeness", "lmeval-f1", "helm-rouge_l",
                                  "promptfoo-score"])
def test_the_display_is_the_text_reports(case: str, tmp_path: Path) -> None:
    from mcnemar.flips import score_text as _score_text
    from mcnemar.scores import _render

    report, got = _score_report(case, tmp_path)
    shown = got["display"]
    text = str(report)
    # The table of tests: each row's statistic, p-value and detail are the text report's.
    for key in vocabulary.names(vocabulary.SCORE_TESTS):
        row = shown["tests"][key]
        assert row == {"statistic": _render.statistic_text(report, key),
                       "pvalue": _render.pvalue_text(report, key),
                       "detail": _render.detail_text(report, key)}, key
        name = report.tests[key].name
        line = next(x for x in text.splitlines() if x.startswith((f" * {name} ", f"   {name} ")))
        assert row["statistic"] in line and f"p = {row['pvalue']}" in line, line
        assert line.rstrip().endswith(row["detail"]), line
    # The mean difference and its intervals, in the report's decimals.
    assert shown["difference"] == got["difference"]["estimate_text"]
    for key, (low, high) in shown["intervals"].items():
        if key != "hodges-lehmann":
            assert f"[{low}, {high}]" in text, key
    hl = got["hodges_lehmann"]
    if hl is not None:
        low, high = shown["intervals"]["hodges-lehmann"]
        assert f"interval {low} to {high}" in hl["note"]
    assert f"mean score {shown['means']['a']} vs {shown['means']['b']}" in got["conclusion"]["text"]
    assert shown["counts"] == {"n": f"{report.n:,}", "higher_a": f"{report.higher_a:,}",
                               "equal": f"{report.equal:,}", "higher_b": f"{report.higher_b:,}"}
    assert shown["alpha"] == "0.05" and shown["confidence_level"] == "95%"
    # Each listed item's scores and difference as the text report's list of items prints them.
    flips = shown["flips"]
    listing = report.flips.listing(WEB_FLIPS, shown=True).lines(report.names)
    for side in ("a_higher", "b_higher"):
        items = got["flips"][side]["items"]
        assert len(flips[side]["scores"]) == len(items)
        for item, (score_a, score_b, diff) in zip(items, flips[side]["scores"], strict=True):
            assert score_a == _score_text(item["score_a"])
            assert score_b == _score_text(item["score_b"])
            assert any(f"score {score_a} vs {score_b} ({diff})" in x for x in listing), item
    assert flips["total"] == f"{report.higher_a + report.higher_b:,}"


def test_the_per_task_display_is_the_text_table(tmp_path: Path) -> None:
    a, b = _task_files(tmp_path)
    got = _upload(a, b, task_column="task", include="display,text").json()
    shown = got["display"]
    table = got["text"].splitlines()
    for task, row in zip(got["tasks"], shown["tasks"], strict=True):
        line = next(x for x in table if x.startswith(task["task"] + " "))
        assert line.split()[1:7] == [row["n"], row["mean_a"], row["mean_b"], row["difference"],
                                     row["pvalue"], row["adjusted_pvalue"]], line
    overall = got["overall"]
    assert f"p = {shown['overall']['pvalue']}" in overall["text"]
    assert shown["overall"]["significant"] == (overall["pvalue"] < got["alpha"])


def test_the_overall_p_is_written_as_its_sentence_writes_it() -> None:
    from mcnemar.report._words import _p_vs_alpha
    from mcnemar.web.display import _p_against_alpha

    for p in (0.049996, 0.05, 0.0500001, 0.04999999999, 0.3, 1e-5, 1.0, 0.0, 1e-310):
        log10_p = math.log10(p) if p > 0 else -math.inf
        for alpha in (0.05, 0.01, 0.1):
            assert _p_vs_alpha(p, log10_p, alpha).startswith(
                ("p = " + _p_against_alpha(p, log10_p, alpha) + " ",
                 "p " + _p_against_alpha(p, log10_p, alpha) + " ")), (p, alpha)


# ----------------------------------------------------------------------------- the page

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).parent / "artifacts"
WIDTHS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(scope="module")
def server() -> Any:
    """``mcnemar serve`` on a free loopback port; yields its URL."""
    if not CHROMIUM.exists():
        pytest.skip("BROWSER TESTS NOT RUN: /usr/bin/chromium is missing; run "
                    "scripts/install-browser.sh")
    from mcnemar.web._process import served

    ARTIFACTS.mkdir(exist_ok=True)
    with served(log=ARTIFACTS / "server-scores.log", timeout=20) as running:
        yield running.url


@pytest.fixture(scope="module")
def chromium(server: str) -> Any:
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM),
                                     args=["--headless", "--no-sandbox", "--disable-gpu"])
        yield browser
        browser.close()


@pytest.fixture(params=list(WIDTHS))
def page(request: Any, chromium: Any, server: str) -> Any:
    """The page at desktop and at phone width; script errors fail the test."""
    phone = request.param == "phone"
    context = chromium.new_context(viewport=WIDTHS[request.param], is_mobile=phone,
                                   has_touch=phone)
    tab = context.new_page()
    tab.set_default_timeout(15_000)
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" and not
           msg.text.startswith("Failed to load resource: the server responded with a status of 4")
           else None)
    tab.kind = request.param
    tab.goto(server)
    yield tab
    context.close()
    assert errors == []


def _text(page: Any, selector: str) -> str:
    return str(page.locator(selector).inner_text()).strip()


def _open(page: Any, details: str) -> None:
    """Open a ``<details>`` box (by its summary, as a person would) unless it is open."""
    if page.get_attribute(details, "open") is None:
        page.click(f"{details} > summary")


def _upload_on_page(page: Any, a: Path, b: Path, **fields: str) -> None:
    """Choose the two files, fill the pairing options named and send the upload; wait for
    its result."""
    _open(page, "#upload-box")
    page.set_input_files("#file_a", str(a))
    page.set_input_files("#file_b", str(b))
    if fields:
        _open(page, "#upload-form details.advanced")
        for field, value in fields.items():
            if field == "analysis":
                page.select_option("#analysis", value)
            else:
                page.fill(f"#{field}", value)
    page.click("#upload-submit")
    page.wait_for_function(
        "(files) => document.getElementById('upload-status').textContent"
        " === 'Compared ' + files + '.'",
        arg=f"{a.name} with {b.name}")


def test_the_page_shows_the_score_report_of_two_graded_logs(page: Any) -> None:
    a, b = GRADED / "a.eval", GRADED / "b.eval"
    want = _upload(a, b, score="closeness", include="display").json()
    shown = want["display"]
    _upload_on_page(page, a, b, score="closeness")
    assert page.get_attribute("#report", "data-kind") == "scores"
    page.screenshot(path=str(ARTIFACTS / f"web-{page.kind}-scores.png"), full_page=True)
    # The verdict first: the report's headline, conclusion and recommended test.
    conclusion = want["conclusion"]
    assert _text(page, "#verdict-headline") == conclusion["headline"]
    assert _text(page, "#conclusion") == conclusion["text"]
    assert _text(page, "#verdict-badge") == "Significant at α = 0.05"
    recommended = want["recommended"]["test"]
    assert _text(page, "#headline-pvalue") == shown["tests"][recommended]["pvalue"]
    assert _text(page, "#headline-p").startswith("Permutation test (sign flips) p = ")
    assert _text(page, "#reason") == "Why this test: " + want["recommended"]["reason"]
    # The mean difference is the JSON's text, with the recommended interval.
    assert _text(page, "#score-difference") == want["difference"]["estimate_text"] == "+0.059"
    low, high = shown["intervals"][want["difference"]["recommended_interval"]]
    assert _text(page, "#score-recommended-interval") == f"[{low}, {high}]"
    assert "paired bootstrap (BCa)" in _text(page, "#score-estimate")
    for key, count in (("higher_a", "20"), ("equal", "0"), ("higher_b", "4")):
        assert _text(page, f"#score-counts dd[data-key={key}]") == f"{count} items"
    assert page.locator("#score-ci-table tr.recommended").get_attribute("data-interval") == \
        "bootstrap"
    # The tests table: the four tests in the report's order, the recommended one marked.
    rows = page.locator("#score-tests-table tbody tr")
    assert [rows.nth(i).get_attribute("data-test") for i in range(rows.count())] == list(
        want["tests"])
    marked = page.locator("#score-tests-table tr.recommended")
    assert marked.count() == 1 and marked.get_attribute("data-test") == recommended
    assert "recommended" in str(marked.locator(".tag").inner_text())
    for key, texts in shown["tests"].items():
        row = f"#score-tests-table tr[data-test={key}]"
        assert _text(page, f"{row} td[data-key=statistic]") == texts["statistic"]
        assert _text(page, f"{row} td[data-key=pvalue] .value") == texts["pvalue"]
    # The pitfall, the power and the repeated samples: the report's own sentences.
    assert _text(page, "#unpaired") == want["unpaired"]["note"]
    assert _text(page, "#power") == want["power"]["note"]
    assert want["epochs"]["note"] in _text(page, "#score-notes")
    assert "72" in _text(page, "#alignment")
    # McNemar's cards are not shown, and the counts (which have no part in it) are empty.
    for selector in ("#tests-table", "#table-chart", "#dist-chart", "#ci-table"):
        assert page.locator(selector).is_hidden(), selector
    assert page.locator("#scores-note").is_visible()
    assert page.input_value("#b") == "" and page.input_value("#c") == ""

    # The items with the largest differences, and their search.
    assert _text(page, "#flips-heading") == "Items scored differently"
    items = want["flips"]["a_higher"]["items"] + want["flips"]["b_higher"]["items"]
    rows = page.locator("#flips-table tbody tr.flip")
    assert rows.count() == len(items) == 24
    first = want["flips"]["a_higher"]["items"][0]
    score_a, score_b, diff = shown["flips"]["a_higher"]["scores"][0]
    assert f"{score_a}, {score_b} ({diff})" in str(rows.nth(0).inner_text())
    assert str(first["id"]) in str(rows.nth(0).locator(".flip-id").inner_text())
    assert "mockllm/system-b scored higher (4)" in _text(page, "#flips-table")
    query = "87 + 137"
    page.fill("#flips-search", query)
    matching = sum(query in (item.get("content") or "") for item in items)
    assert matching >= 1
    assert page.locator("#flips-table tbody tr.flip:visible").count() == matching
    assert _text(page, "#flips-count") == f"{matching} of 24 listed items match."
    page.fill("#flips-search", "")
    assert page.locator("#flips-table tbody tr.flip:visible").count() == 24

    # Typing counts goes back to McNemar's calculator.
    page.fill("#b", "17")
    page.fill("#c", "3")
    page.wait_for_function("() => document.getElementById('report').dataset.kind === 'pass-fail'")
    page.wait_for_selector("#tests-table tr[data-test=exact]")
    assert page.locator("#scores-note").is_hidden()
    assert page.locator("#score-tests-table").is_hidden()
    assert page.locator("#tests-table").is_visible()


def test_the_page_compares_graded_tasks_and_offers_the_analysis(page: Any,
                                                                 tmp_path: Path) -> None:
    a, b = _task_files(tmp_path)
    want = _upload(a, b, task_column="task", include="display").json()
    # Comparing scores, the pairing options of pass/fail alone are off.
    _open(page, "#upload-box")
    _open(page, "#upload-form details.advanced")
    page.select_option("#analysis", "scores")
    assert page.is_disabled("#threshold") and page.is_disabled("#cluster_method")
    page.select_option("#analysis", "auto")
    assert not page.is_disabled("#threshold")
    _upload_on_page(page, a, b, task_column="task")
    assert page.get_attribute("#report", "data-kind") == "scores"
    page.screenshot(path=str(ARTIFACTS / f"web-{page.kind}-score-tasks.png"), full_page=True)
    overall = want["overall"]
    assert _text(page, "#verdict-headline") == overall["headline"]
    assert _text(page, "#conclusion") == overall["text"]
    assert _text(page, "#headline-pvalue") == want["display"]["overall"]["pvalue"]
    rows = page.locator("#score-tasks-table tbody tr")
    assert [rows.nth(i).get_attribute("data-task") for i in range(rows.count())] == [
        t["task"] for t in want["tasks"]]
    worst = want["display"]["tasks"][0]
    assert _text(page, f"#score-tasks-table tr[data-task={want['tasks'][0]['task']}] "
                       "td[data-key=difference]") == worst["difference"]
    assert "significantly worse" in str(rows.nth(0).inner_text())
    for selector in ("#score-difference-card", "#score-tests-card", "#pitfall-card",
                     "#alignment-card"):
        assert page.locator(selector).is_hidden(), selector
    assert page.locator("#flips-table tbody tr.flip").count() == (
        len(want["flips"]["a_higher"]["items"]) + len(want["flips"]["b_higher"]["items"]))
