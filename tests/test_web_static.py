"""The calculator page's JavaScript and the display strings it shows.

* every script in ``static/`` is a native ES module, reached from the page's one
  ``<script type="module">`` by ``import`` (and preloaded by the page); no classic script;
* nothing is hung on ``window`` (``window.name = ...``): the modules talk through ``import``;
* the page formats no number itself: no ``toFixed``, ``toPrecision``, ``toExponential``,
  ``Intl.NumberFormat`` or ``toLocaleString``; the numbers come as text from the server, the
  report's ``*_text`` fields and the response's ``display`` object
  (:mod:`mcnemar.web.display`), which follows the text report's rules;
* the unit tests of the modules' pure functions (``tests/js``, node's own test runner) pass.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "src" / "mcnemar" / "web"
STATIC = WEB / "static"
TEMPLATE = WEB / "templates" / "index.html"
SCRIPTS = sorted(STATIC.glob("*.js"))
NODE = shutil.which("node")

# ----------------------------------------------------------------------------- the modules


class _Scripts(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[dict[str, str | None]] = []
        self.preloads: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "script":
            self.scripts.append(a)
        if tag == "link" and a.get("rel") == "modulepreload":
            self.preloads.append(str(a.get("href")))


def _page() -> _Scripts:
    parser = _Scripts()
    parser.feed(TEMPLATE.read_text(encoding="utf-8"))
    return parser


_IMPORT = re.compile(
    r"""\b(?:import|export)\b[^;"'`]*?\bfrom\s*["']([^"']+)["']|\bimport\s*["']([^"']+)["']""")


def _imports(path: Path) -> set[str]:
    found = set()
    for groups in _IMPORT.findall(path.read_text(encoding="utf-8")):
        name = next(g for g in groups if g)
        assert name.startswith("./") and name.endswith(".js"), (path.name, name)
        found.add(name[2:])
    return found


def test_the_page_loads_one_module_that_reaches_every_script() -> None:
    page = _page()
    assert SCRIPTS, "no scripts in static/"
    assert page.scripts, "the page loads no script"
    for script in page.scripts:
        assert script.get("type") == "module", script  # no classic script, no inline one
        assert str(script.get("src", "")).startswith("/static/"), script
    entries = {str(s["src"]).removeprefix("/static/") for s in page.scripts}
    reached, todo = set(), list(entries)
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        assert (STATIC / name).is_file(), f"{name} is loaded or imported but not in static/"
        reached.add(name)
        todo.extend(_imports(STATIC / name))
    assert reached == {p.name for p in SCRIPTS}, "scripts nothing loads: " + str(
        {p.name for p in SCRIPTS} - reached)
    # The page asks for the modules up front rather than one import at a time.
    assert sorted(p.removeprefix("/static/") for p in page.preloads) == sorted(reached - entries)


def test_every_script_is_a_module_of_its_own() -> None:
    for path in SCRIPTS:
        text = path.read_text(encoding="utf-8")
        assert re.search(r"^(?:import|export)\b", text, re.M), f"{path.name}: no import or export"
        assert not re.search(r"^\(function\s*\(", text, re.M), f"{path.name}: a classic script"
        assert '"use strict"' not in text, f"{path.name}: modules are strict already"


_WINDOW_ASSIGNMENT = re.compile(
    r"\b(?:window|globalThis|self)\s*(?:\.\s*[A-Za-z_$][\w$]*|\[[^\]]+\])\s*(?:[-+*/%&|^]|\*\*|<<|>>>?)?=(?!=)")


def test_nothing_is_hung_on_window() -> None:
    offenders = [
        f"{path.name}:{n}: {line.strip()}"
        for path in SCRIPTS
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _WINDOW_ASSIGNMENT.search(line)
    ]
    assert offenders == []


def test_the_grep_for_window_assignments_finds_them() -> None:
    for line in ("window.McNemarCharts = {};", "window . x=1", 'window["x"] = 2',
                 "globalThis.y += 1"):
        assert _WINDOW_ASSIGNMENT.search(line), line
    for line in ("window.addEventListener('x', f);", "if (window.x === 1) {}",
                 "const w = window.innerWidth;"):
        assert not _WINDOW_ASSIGNMENT.search(line), line


_NUMBER_FORMATTING = re.compile(
    r"\b(?:toFixed|toPrecision|toExponential|toLocaleString)\b|\bIntl\b")


def test_the_page_formats_no_number_itself() -> None:
    offenders = [
        f"{path.name}:{n}: {line.strip()}"
        for path in SCRIPTS
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _NUMBER_FORMATTING.search(line)
    ]
    assert offenders == []


# ----------------------------------------------------------------------------- node


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_every_script_parses_as_a_module() -> None:
    for path in SCRIPTS:
        run = subprocess.run([str(NODE), "--check", str(path)], capture_output=True, text=True,
                             cwd=ROOT, timeout=60)
        assert run.returncode == 0, f"{path.name}: {run.stderr}"


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_unit_tests_of_the_modules_pass() -> None:
    run = subprocess.run([str(NODE), "--test", "tests/js/"], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    passed = re.search(r"^# pass (\d+)$", run.stdout, re.M)
    failed = re.search(r"^# fail (\d+)$", run.stdout, re.M)
    assert passed and int(passed.group(1)) >= 20, run.stdout[-2000:]
    assert failed and int(failed.group(1)) == 0


def test_the_lint_setup_pins_eslint() -> None:
    package = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))
    assert package["type"] == "module"
    assert re.fullmatch(r"\d+\.\d+\.\d+", package["devDependencies"]["eslint"])
    lock = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))
    eslint = package["devDependencies"]["eslint"]
    assert lock["packages"]["node_modules/eslint"]["version"] == eslint
    config = (ROOT / "eslint.config.js").read_text(encoding="utf-8")
    for rule in ("no-implicit-globals", "prefer-const", "no-var", "eqeqeq"):
        assert rule in config, rule


# ----------------------------------------------------------------------------- display strings


def test_the_display_functions_follow_the_report_rules() -> None:
    from mcnemar.bayes import bayes
    from mcnemar.margin import describe_margin
    from mcnemar.report._words import _num, _pct
    from mcnemar.table import PairedTable
    from mcnemar.web.display import level_text, margin_text, number_text, rope_text

    for x in (0.95, 0.9, 0.99, 0.955, 0.999999, 0.5, 0.8, 1 / 3, 0.123456789012345):
        assert level_text(x) == _pct(x), x
    for x in (0.05, 0.01, 0.1, 0.001, 1e-5, 0.049999, 1 / 3, 0.1 + 0.2, 0.5):
        assert number_text(x) == _num(x), x
    for margin in (0.01, 0.005, 0.0125, 0.1):
        assert margin_text(margin) == describe_margin(margin)
    table = PairedTable(a=1800, b=52, c=47, d=101)
    for rope in (0.005, 0.01, 0.0025, 0.00123456, 0.0):
        words = bayes(table, rope=rope).text()
        assert f"by more than {rope_text(rope)} is" in words, (rope, words)


def test_the_display_counts_and_the_picture_labels() -> None:
    from mcnemar.inference import null_distribution
    from mcnemar.web.display import count_text, display, score_text

    assert count_text(4503599627370496) == "4,503,599,627,370,496" and count_text(None) is None
    assert [score_text(x) for x in (1.0, 0.0, 0.5, 2 / 3, None)] == [
        "1", "0", "0.5", "0.666667", "no score"]
    body = {"table": {"a": None, "b": 1_000_000, "c": 999, "d": None, "n": None,
                      "discordant": 1_000_999},
            "distribution": null_distribution(1_000_000, 999)}
    shown = display(body)
    assert shown["counts"] == {"a": None, "b": "1,000,000", "c": "999", "d": None, "n": None,
                               "discordant": "1,000,999"}
    dist = shown["distribution"]
    ks = body["distribution"]["k"]
    assert [t["k"] for t in dist["ticks"]] == [k for k in (ks[0], ks[-1], 500_500)
                                               if ks[0] <= k <= ks[-1]]
    assert all(t["text"] == f"{t['k']:,}" for t in dist["ticks"])
    assert float(dist["peak"]) == pytest.approx(max(body["distribution"]["pmf"]), rel=0.05)
    assert dist["step"] == f"{body['distribution']['step']:,}"


def _client() -> Any:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from mcnemar.web.app import create_app

    return TestClient(create_app())


def test_the_display_is_asked_for_and_leaves_the_report_unchanged() -> None:
    from mcnemar.web.models import ReportResponse

    client = _client()
    body = {"a": 1800, "b": 52, "c": 47, "d": 101, "margin": 0.01, "equivalence": True,
            "bayes": {"rope": 0.005, "prior": 0.5}, "confidence_level": 0.9}
    plain = client.post("/api/v1/analyze", json=body).json()
    assert "display" not in plain
    got = client.post("/api/v1/analyze", json=dict(body, include=["distribution", "display"]))
    assert got.status_code == 200, got.text
    shown = got.json()
    ReportResponse.model_validate(shown)
    assert {k: v for k, v in shown.items() if k not in ("display", "distribution")} == plain
    display = shown["display"]
    assert display["alpha"] == "0.05" and display["confidence_level"] == "90%"
    assert display["counts"] == {"a": "1,800", "b": "52", "c": "47", "d": "101", "n": "2,000",
                                 "discordant": "99"}
    # The interval read against the margin is at 1 - 2 alpha.
    assert display["margin"] == "1 point" and display["margin_level"] == "90%"
    assert display["rope"] == "0.5 points" and display["credible_level"] == "90%"
    assert display["prior"] == "0.5, 0.5, 0.5, 0.5"
    assert display["power_level"] == "80%"
    assert display["distribution"]["ticks"][0] == {"k": 0, "text": "0"}
    assert display["tasks"] is None and display["flips"] is None and display["alignment"] is None
    # The margin's words are the markdown's heading.
    markdown = client.post("/api/v1/analyze", json=dict(body, include=["markdown"])).json()
    assert f"Against a margin of {display['margin']}" in markdown["markdown"]


def test_an_upload_displays_its_flips_and_alignment(tmp_path: Path) -> None:
    client = _client()
    a = tmp_path / "a.csv"
    b = tmp_path / "b.csv"
    a.write_text("id,score\n" + "".join(f"q{i},{(i % 3) / 2}\n" for i in range(1200)))
    b.write_text("id,correct\n" + "".join(f"q{i},{int(i % 2 == 0)}\n" for i in range(1200)))
    with a.open("rb") as fa, b.open("rb") as fb:
        response = client.post("/api/v1/compare", files={"file_a": fa, "file_b": fb},
                               data={"threshold": "0.5", "include": "display"})
    assert response.status_code == 200, response.text
    got = response.json()
    from mcnemar.web.models import ReportResponse

    ReportResponse.model_validate(got)
    display = got["display"]
    alignment = display["alignment"]
    assert alignment["matched"] == "1,200"
    assert alignment["runs"]["a"]["records"] == "1,200"
    assert alignment["threshold"] == "0.5"
    flips = display["flips"]
    side = got["flips"]["a_only"]
    assert flips["a_only"]["count"] == f"{side['count']:,}"
    assert len(flips["a_only"]["scores"]) == len(side["items"])
    assert flips["a_only"]["scores"][0] == [f"{side['items'][0]['score_a']:g}",
                                            f"{side['items'][0]['score_b']:g}"]
    listed = len(side["items"]) + len(got["flips"]["b_only"]["items"])
    assert flips["listed"] == f"{listed:,}"
    assert flips["total"] == f"{side['count'] + got['flips']['b_only']['count']:,}"


def test_the_page_states_the_largest_count_as_the_server_writes_it() -> None:
    from mcnemar.web.display import max_count_text

    page = _client().get("/").text
    assert f'data-max-count-text="{max_count_text()}"' in page
    assert max_count_text() == "2**52 = 4,503,599,627,370,496"
