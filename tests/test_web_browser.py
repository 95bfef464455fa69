"""The calculator page in a real browser: Debian's Chromium driven through Playwright.

The tests start the real server (``python -m mcnemar serve --port 0``) in a subprocess on
127.0.0.1, drive the page as a person would (mostly with the keyboard), and save screenshots
at desktop (1280x900) and phone (390x844) widths under ``tests/artifacts/``. Every request the
page makes is checked to go to the local server only.

Reference values: the 200-item worked example (157, 17, 3, 23) of docs/references.md: exact
p = 0.0025768 (shown as 0.002577, as the text report prints it), Newcombe interval
(0.026236, 0.116610), i.e. +2.6 to +11.7 points, candidate better.

On a phone (390 px), with counts of 10**9 up to the library's limit (2**52) and names of 40 and
80 characters, the tests also check: the labels of the pictures, measured in the browser (the
bounding box of every SVG text line), never overlap and never leave their picture, and the
page never scrolls sideways; the exports are marked off while the inputs give no result (and
export nothing); counts beyond 2**52 are refused on the page; the verdict reaches the top of the
screen (a bar) while one types; an edit during an upload cancels it and says so; upload
errors name the page's controls, not the library's arguments or command-line flags. Each of
these saves screenshots under ``tests/artifacts/web-phone-*.png``.

Chromium comes from Debian (``scripts/install-browser.sh``); Playwright's own browser
download is not used. Without ``/usr/bin/chromium`` the tests are skipped, loudly.
"""

from __future__ import annotations

import json
import os
import re
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).parent / "artifacts"
DATA = Path(__file__).parent / "data" / "web"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
UPLOAD_LIMIT_MB = 1

if not CHROMIUM.exists() and os.environ.get("CI"):
    # In CI the browser is installed by `make test`; its absence there is a failure.
    pytestmark = [pytest.mark.browser]
elif not CHROMIUM.exists():
    _REASON = (
        "BROWSER TESTS NOT RUN: /usr/bin/chromium is missing; "
        "run scripts/install-browser.sh (apt-get install chromium chromium-driver)"
    )
    warnings.warn(_REASON, stacklevel=1)
    print(f"\n*** {_REASON} ***", file=sys.stderr)
    pytestmark = [pytest.mark.browser, pytest.mark.skip(reason=_REASON)]
else:
    pytestmark = [pytest.mark.browser]

playwright_sync = pytest.importorskip("playwright.sync_api")

from _harness_cases import suite_csvs  # noqa: E402
from mcnemar.web._process import served  # noqa: E402

# ----------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """``mcnemar serve`` on a free loopback port (its stderr in tests/artifacts/server.log);
    yields its printed URL."""
    with served("--max-upload-mb", str(UPLOAD_LIMIT_MB), log=ARTIFACTS / "server.log",
                timeout=20) as running:
        yield running.url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_sync.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Page:
    """A page plus what it did: console errors, and requests to anywhere but the server."""

    def __init__(self, page: Any, origin: str) -> None:
        self.page = page
        self.kind = ""
        self.errors: list[str] = []
        self.foreign: list[str] = []
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        page.on("console", self._console)

        def guard(route: Any) -> None:
            url = route.request.url
            if url.startswith(origin) or url.startswith(("data:", "blob:")):
                route.continue_()
            else:
                self.foreign.append(url)
                route.abort()

        page.route("**/*", guard)

    def _console(self, msg: Any) -> None:
        # Chromium logs every 4xx response as a console error; those are the API answering
        # bad input as designed. Anything else (a script error) is a failure.
        if msg.type == "error" and not msg.text.startswith(
            "Failed to load resource: the server responded with a status of 4"
        ):
            self.errors.append(msg.text)


def _new_page(browser: Any, server: str, viewport: dict[str, int], **kw: Any) -> Any:
    context = browser.new_context(viewport=viewport, accept_downloads=True, **kw)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.rstrip("/"))
    page = context.new_page()
    page.set_default_timeout(15_000)
    return Page(page, server.rstrip("/"))


@pytest.fixture
def desktop(browser: Any, server: str) -> Iterator[Page]:
    p = _new_page(browser, server, DESKTOP)
    yield p
    p.page.context.close()
    assert not p.errors, p.errors
    assert not p.foreign, p.foreign


@pytest.fixture
def phone(browser: Any, server: str) -> Iterator[Page]:
    p = _new_page(browser, server, PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    yield p
    p.page.context.close()
    assert not p.errors, p.errors
    assert not p.foreign, p.foreign


@pytest.fixture(params=["desktop", "phone"])
def each_width(request: Any, browser: Any, server: str) -> Iterator[Page]:
    """The page at desktop (1280 px) and at phone (390 px) width; ``.kind`` says which."""
    if request.param == "desktop":
        p = _new_page(browser, server, DESKTOP)
    else:
        p = _new_page(browser, server, PHONE, is_mobile=True, has_touch=True,
                      device_scale_factor=2)
    p.kind = request.param
    yield p
    p.page.context.close()
    assert not p.errors, p.errors
    assert not p.foreign, p.foreign


# ----------------------------------------------------------------------------- helpers


def api(server: str, body: dict[str, Any]) -> dict[str, Any]:
    import urllib.request

    request = urllib.request.Request(
        server + "api/v1/analyze",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        result: dict[str, Any] = json.loads(response.read())
        return result


def tab_to(page: Any, element_id: str, limit: int = 40) -> list[str]:
    """Press Tab until ``element_id`` has the focus; return the ids visited on the way."""
    visited: list[str] = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        current = page.evaluate("document.activeElement && document.activeElement.id")
        visited.append(current)
        if current == element_id:
            return visited
    raise AssertionError(f"Tab never reached #{element_id}; visited {visited}")


# The page records on #report which query string its result belongs to; the page has
# settled when that is the query in the address bar (no request pending or lost).
_SETTLED = (
    "document.getElementById('report').dataset.query === location.search.replace(/^[?]/, '')"
    " && !document.getElementById('results').classList.contains('stale')"
)


def wait_settled(page: Any) -> None:
    page.wait_for_function(f"() => {_SETTLED}")


def wait_for_result(page: Any, expected_p: str) -> None:
    wait_settled(page)
    assert text(page, "#headline-pvalue") == expected_p


def text(page: Any, selector: str) -> str:
    return str(page.inner_text(selector)).strip()


# ----------------------------------------------------------------------------- tests


def test_worked_example_typed_with_the_keyboard(desktop: Page, server: str) -> None:
    page = desktop.page
    page.goto(server)
    assert page.title() == "McNemar calculator"
    visited = tab_to(page, "a")
    assert {"name_a", "name_b", "framing-passes"} <= set(visited)
    page.keyboard.type("157")
    page.keyboard.press("Tab")
    page.keyboard.type("17")
    page.keyboard.press("Tab")
    page.keyboard.type("3")
    # a without d is what one has half-way through typing: a hint, not an error
    page.wait_for_function(
        "() => document.getElementById('status').textContent.includes('d (both wrong) too')"
    )
    assert page.locator("[aria-invalid='true']").count() == 0
    page.keyboard.press("Tab")
    page.keyboard.type("23")
    wait_for_result(page, "0.002577")

    # the recommended test, exact p = 0.0025768 (docs/references.md, T1)
    assert text(page, "#headline-p").lower().startswith("exact p = 0.002577")
    assert "0.002577" in text(page, "#tests-table tr[data-test='exact']")
    # Newcombe (0.026236, 0.116610) in points
    assert text(page, "#recommended-interval") == "[+2.6, +11.7]"
    assert "Newcombe" in text(page, "#diff-estimate")
    row = text(page, "#ci-table tr[data-interval='newcombe']")
    assert "+2.6" in row and "+11.7" in row
    conclusion = text(page, "#conclusion")
    assert "candidate" in conclusion and "better" in conclusion
    assert "Significant" in text(page, "#verdict-badge")
    assert "17" in text(page, "#words") and "3" in text(page, "#words")
    # the pictures: 2x2 with discordant cells, null distribution with tails, intervals with 0
    assert page.locator("#table-chart svg rect[data-cell='b']").count() == 1
    assert page.locator("#dist-chart svg rect[data-tail='1']").count() == 8  # k<=3, k>=17
    assert page.locator("#dist-chart svg rect[data-k]").count() == 21
    assert page.locator("#ci-chart svg line[data-method='newcombe']").count() == 1
    assert "0 = no difference" in (page.locator("#ci-chart svg").text_content() or "")
    # the state is in the URL
    query = parse_qs(urlsplit(page.url).query)
    assert query == {"a": ["157"], "b": ["17"], "c": ["3"], "d": ["23"]}

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "web-desktop.png"), full_page=True)
    page.screenshot(path=str(ARTIFACTS / "web-desktop-viewport.png"))


def test_copy_markdown_and_download_json(desktop: Page, server: str) -> None:
    page = desktop.page
    page.goto(server + "?a=157&b=17&c=3&d=23")
    wait_for_result(page, "0.002577")
    expected = api(server, dict(a=157, b=17, c=3, d=23, include=["markdown"]))

    page.focus("#copy-markdown")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.getElementById('action-status').textContent !== ''")
    assert "copied" in text(page, "#action-status")
    assert page.evaluate("navigator.clipboard.readText()") == expected["markdown"]

    with page.expect_download() as info:
        page.focus("#download-json")
        page.keyboard.press("Enter")
    download = info.value
    assert download.suggested_filename == "mcnemar-report.json"
    saved = json.loads(Path(download.path()).read_text())
    del expected["markdown"]
    assert saved == expected


def test_no_disagreements_gives_p_1_without_error(desktop: Page, server: str) -> None:
    page = desktop.page
    page.goto(server)
    page.fill("#b", "0")
    page.fill("#c", "0")
    wait_for_result(page, "1")
    assert text(page, "#status") == ""
    assert page.locator("[aria-invalid='true']").count() == 0
    assert "Not significant" in text(page, "#verdict-badge")
    assert "no disagreements" in text(page, "#dist-caption").lower()
    for key in ("exact", "midp", "asymptotic", "corrected"):
        assert text(page, f"#tests-table tr[data-test='{key}'] td:last-child") == "1"


def test_negative_count_shows_the_field_error(desktop: Page, server: str) -> None:
    page = desktop.page
    page.goto(server + "?b=17&c=3")
    wait_for_result(page, "0.002577")
    page.fill("#b", "-1")
    page.wait_for_selector("#b-error:not([hidden])")
    assert page.get_attribute("#b", "aria-invalid") == "true"
    message = text(page, "#b-error")
    assert message.startswith("b ") and "-1" in message
    assert "error" in (page.get_attribute("#status", "class") or "")
    assert page.locator("#results.stale").count() == 1
    page.screenshot(path=str(ARTIFACTS / "web-field-error.png"))
    # fixing the value clears the error
    page.fill("#b", "17")
    wait_for_result(page, "0.002577")
    assert page.locator("#b-error").is_hidden()
    assert page.get_attribute("#b", "aria-invalid") is None


def test_text_and_fractions_are_field_errors_too(desktop: Page, server: str) -> None:
    page = desktop.page
    page.goto(server + "?b=17&c=3")
    wait_for_result(page, "0.002577")
    page.fill("#c", "2.5")
    page.wait_for_selector("#c-error:not([hidden])")
    assert "2.5" in text(page, "#c-error")
    page.fill("#c", "three")
    page.wait_for_function(
        "() => document.getElementById('c-error').textContent.includes('three')"
    )
    page.fill("#c", "3")
    page.fill("#confidence_level", "95")
    page.wait_for_selector("#confidence_level-error:not([hidden])")
    assert "between 0 and 1" in text(page, "#confidence_level-error")


def test_a_shared_link_reproduces_the_result(desktop: Page, browser: Any, server: str) -> None:
    page = desktop.page
    page.goto(server)
    page.fill("#name_a", "new model")
    page.fill("#name_b", "old model")
    page.select_option("#alternative", "greater")
    page.fill("#confidence_level", "0.9")
    for cell, value in zip("abcd", ("59", "6", "16", "80"), strict=True):
        page.fill(f"#{cell}", value)
    expected = api(
        server,
        dict(a=59, b=6, c=16, d=80, name_a="new model", name_b="old model",
             alternative="greater", confidence_level=0.9),
    )
    wait_settled(page)
    link = page.url
    sections = ["#headline-p", "#conclusion", "#tests-table", "#ci-table", "#words"]
    before = {s: text(page, s) for s in sections}
    assert expected["names"]["a"] in before["#words"]

    other = _new_page(browser, server, DESKTOP)
    try:
        other.page.goto(link)
        wait_settled(other.page)
        after = {s: text(other.page, s) for s in sections}
        assert after == before
        assert other.page.input_value("#name_a") == "new model"
        assert other.page.input_value("#alternative") == "greater"
        assert other.page.input_value("#confidence_level") == "0.9"
        assert not other.errors and not other.foreign
    finally:
        other.page.context.close()


def test_errors_framing(desktop: Page, server: str) -> None:
    page = desktop.page
    page.goto(server)
    page.check("#framing-errors")
    assert page.locator("#cells-passes").is_hidden()
    page.fill("#only_a_wrong", "3")
    page.fill("#only_b_wrong", "17")
    wait_for_result(page, "0.002577")
    conclusion = text(page, "#conclusion")
    assert "candidate" in conclusion and "better" in conclusion
    # the library mapped "only A wrong" to cell c and "only B wrong" to cell b
    cells = page.locator("#table-chart svg").text_content() or ""
    assert "17" in cells and "b: only candidate right" in cells
    assert parse_qs(urlsplit(page.url).query)["framing"] == ["errors"]


def test_phone_layout(phone: Page, server: str) -> None:
    page = phone.page
    page.goto(server + "?a=157&b=17&c=3&d=23")
    wait_for_result(page, "0.002577")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"horizontal scrolling on a phone: {width}px"
    for selector in ("#a", "#b", "#c", "#d", "#alternative", "#copy-markdown", "#dist-chart svg"):
        box = page.locator(selector).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "web-phone.png"), full_page=True)
    page.screenshot(path=str(ARTIFACTS / "web-phone-viewport.png"))


def test_huge_counts_show_a_log_scale_p_value(desktop: Page, server: str) -> None:
    page = desktop.page
    page.goto(server + "?b=600000&c=400000")
    wait_settled(page)
    assert "× 10⁻" in text(page, "#headline-pvalue")
    assert "off the chart" in (page.locator("#dist-chart svg").text_content() or "")



def test_upload_two_files_shows_the_alignment(desktop: Page, server: str) -> None:
    page = desktop.page
    page.goto(server)
    page.click("#upload-box summary")
    assert str(UPLOAD_LIMIT_MB) + " MB" in text(page, "#upload-limit")
    page.set_input_files("#file_a", str(DATA / "candidate.csv"))
    page.set_input_files("#file_b", str(DATA / "baseline.csv"))
    page.click("#upload-submit")
    page.wait_for_selector("#alignment-card:not([hidden])")
    # the fixture files hold the 200-item example, shuffled and in different orders
    wait_for_result(page, "0.002577")
    assert parse_qs(urlsplit(page.url).query)["b"] == ["17"]
    alignment = text(page, "#alignment")
    assert "200 (matched by id)" in alignment
    assert "candidate.csv" in alignment and "baseline.csv" in alignment
    assert "Compared candidate.csv with baseline.csv" in text(page, "#upload-status")
    assert page.input_value("#b") == "17" and page.input_value("#c") == "3"
    page.screenshot(path=str(ARTIFACTS / "web-upload.png"), full_page=True)


def test_upload_malformed_file_shows_a_message(desktop: Page, server: str) -> None:
    page = desktop.page
    page.goto(server)
    submit_upload(page, DATA / "malformed.csv", DATA / "baseline.csv")
    page.wait_for_selector("#file_a-error:not([hidden])")
    assert "malformed.csv" in text(page, "#file_a-error")
    assert "error" in (page.get_attribute("#upload-status", "class") or "")


def test_upload_over_the_limit_is_refused_on_the_page(
    desktop: Page, server: str, tmp_path: Path
) -> None:
    big = tmp_path / "big.csv"
    big.write_bytes(b"id,correct\n" + b"".join(b"q%07d,1\n" % i for i in range(120_000)))
    assert big.stat().st_size > UPLOAD_LIMIT_MB * 1_000_000
    page = desktop.page
    page.goto(server)
    submit_upload(page, big, DATA / "baseline.csv")
    page.wait_for_selector("#file_a-error:not([hidden])")
    message = text(page, "#file_a-error")
    assert "big.csv" in message and f"{UPLOAD_LIMIT_MB} MB" in message


def test_every_control_is_reachable_by_keyboard(desktop: Page, server: str) -> None:
    page = desktop.page
    page.goto(server + "?b=17&c=3")
    wait_for_result(page, "0.002577")
    visited = tab_to(page, "copy-link", limit=60)
    for control in ("name_a", "name_b", "framing-passes", "a", "b", "c", "d", "alternative",
                    "confidence_level", "alpha", "copy-markdown", "download-json"):
        assert control in visited, control
    # the framing radios switch with the arrow keys, as radios do
    page.focus("#framing-passes")
    page.keyboard.press("ArrowDown")
    assert page.is_checked("#framing-errors")
    assert page.locator("#cells-errors").is_visible()


# ----------------------------------------------------------------------------- phone, huge counts,
# long names: labels that never collide, exports that never hold a stale result, the verdict
# within reach, uploads that are never dropped silently, errors in the page's own words.

NAME_A = "gpt-4o-2024-08-06-instruct-finetune-r017"  # 40 characters, as real model names run
NAME_B = "claude-3-5-sonnet-20241022-baseline-v2.1"
LONG_A = "candidate " * 7 + "model-v2.1"  # 80 characters with spaces
LONG_B = "b" * 80  # 80 characters and no place to break
LIMIT = 2**52  # the library's largest count (mcnemar.table)
HUGE = {"a": 1_234_567_890, "b": 1_000_000_000, "c": 999_000_000, "d": 987_654_321}

# Every text of the three pictures, line by line (tspans), as the browser draws it: a list
# of problems (a label outside its picture, two labels that overlap) and how many were seen.
_LABEL_CHECK = """() => {
  const problems = [];
  let seen = 0;
  for (const fig of document.querySelectorAll("#table-chart, #dist-chart, #ci-chart")) {
    const svg = fig.querySelector("svg");
    if (!svg) continue;
    const box = svg.getBoundingClientRect();
    const boxes = [];
    for (const t of svg.querySelectorAll("text")) {
      const spans = t.querySelectorAll("tspan");
      for (const part of spans.length ? [...spans] : [t]) {
        if (!part.textContent.trim()) continue;
        const r = part.getBoundingClientRect();
        boxes.push({ s: part.textContent, l: r.left, r: r.right, t: r.top, b: r.bottom });
      }
    }
    seen += boxes.length;
    for (const q of boxes) {
      const inside = q.l >= box.left - 0.5 && q.r <= box.right + 0.5
        && q.t >= box.top - 0.5 && q.b <= box.bottom + 0.5;
      if (!inside) {
        problems.push(fig.id + ": outside the picture: " + q.s);
      }
    }
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const p = boxes[i], q = boxes[j];
        const w = Math.min(p.r, q.r) - Math.max(p.l, q.l);
        const h = Math.min(p.b, q.b) - Math.max(p.t, q.t);
        if (w > 0.5 && h > 0.5) problems.push(fig.id + ": overlap: " + p.s + " | " + q.s);
      }
    }
  }
  return { problems: problems, seen: seen };
}"""


def query(**params: Any) -> str:
    from urllib.parse import urlencode

    return "?" + urlencode(params)


def assert_labels_clear(page: Any, what: str) -> None:
    result = page.evaluate(_LABEL_CHECK)
    assert result["seen"] >= 20, f"{what}: only {result['seen']} labels drawn"
    assert result["problems"] == [], f"{what}: {result['problems']}"


def assert_no_sideways_scroll(page: Any, what: str) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    viewport = page.evaluate("window.innerWidth")
    assert width <= viewport == PHONE["width"], f"{what}: page {width}px wide in {viewport}px"


def test_the_label_check_sees_overlaps(phone: Page, server: str) -> None:
    """The collision check itself: two labels drawn on top of each other, and one outside
    its picture, are reported (so that the checks below can fail)."""
    page = phone.page
    page.goto(server + query(**HUGE))
    wait_settled(page)
    # Injected and checked in one synchronous script, so that no redraw of the chart (a
    # resize, a late font) can come between the two and wipe the injected labels.
    problems = page.evaluate(f"""() => {{
      const svg = document.querySelector("#ci-chart svg");
      const add = (x, y, s) => {{
        const t = document.createElementNS("http://www.w3.org/2000/svg", "text");
        t.setAttribute("x", x); t.setAttribute("y", y); t.textContent = s;
        svg.appendChild(t);
      }};
      add(40, 60, "first label"); add(44, 62, "second label"); add(-30, 80, "outside");
      return ({_LABEL_CHECK})();
    }}""")["problems"]
    assert any("overlap: first label | second label" in p for p in problems), problems
    assert any("outside the picture: outside" in p for p in problems), problems


_SCENARIOS = [
    ("huge-40", dict(HUGE, name_a=NAME_A, name_b=NAME_B)),
    ("huge-40-greater", dict(HUGE, name_a=NAME_A, name_b=NAME_B, alternative="greater")),
    ("huge-40-less", dict(HUGE, name_a=NAME_A, name_b=NAME_B, alternative="less")),
    ("close-1e9", dict(a=10**9, b=10**9, c=10**9 + 10**5, d=10**9, name_a=NAME_A, name_b=NAME_B)),
    ("lopsided-1e9", dict(a=3 * 10**9, b=2 * 10**9, c=7, d=5, name_a=NAME_A, name_b=NAME_B)),
    ("limit-80", dict(a=1, b=LIMIT - 10, c=3, d=1, name_a=LONG_A, name_b=LONG_B)),
    ("bc-only-80", dict(b=999_999_999, c=1_000_000_000, name_a=LONG_B, name_b=LONG_A)),
    ("small-80", dict(a=157, b=17, c=3, d=23, name_a=LONG_A, name_b=LONG_B)),
    ("none-80", dict(a=90, b=0, c=0, d=10, name_a=LONG_B, name_b=LONG_A)),
    # counts on two lines in a small font (their lines once touched)
    ("two-lines", dict(a=2_564_796, b=1, c=3, d=657_502_377_848_218, name_a="gdfbd",
                       name_b=NAME_B)),
    ("errors-40", dict(framing="errors", only_a_wrong=999_000_000, only_b_wrong=10**9,
                       both_wrong=987_654_321, both_right=1_234_567_890,
                       name_a=NAME_A, name_b=NAME_B)),
]


def test_chart_labels_never_collide_on_a_phone(phone: Page, server: str) -> None:
    """At 390 px, with counts of 10**9 and up to the library's limit and names of 40 and 80
    characters: no label of the three pictures overlaps another or leaves its picture, and
    the page never scrolls sideways."""
    page = phone.page
    assert len(NAME_A) == len(NAME_B) == 40 and len(LONG_A) == len(LONG_B) == 80
    for what, params in _SCENARIOS:
        page.goto(server + query(**params))
        wait_settled(page)
        assert_labels_clear(page, what)
        assert_no_sideways_scroll(page, what)
        if what in ("huge-40", "limit-80"):
            page.screenshot(path=str(ARTIFACTS / f"web-phone-{what}.png"), full_page=True)
        if what in ("huge-40", "limit-80", "close-1e9"):
            for chart in ("table-chart", "dist-chart", "ci-chart"):
                page.locator(f"#{chart}").screenshot(
                    path=str(ARTIFACTS / f"web-phone-{what}-{chart}.png")
                )
    # the same pages on a desktop-sized window keep their labels apart too
    page.set_viewport_size(DESKTOP)
    for what, params in _SCENARIOS[:2] + _SCENARIOS[5:6]:
        page.goto(server + query(**params))
        wait_settled(page)
        assert_labels_clear(page, what + " (desktop)")


def test_chart_labels_never_collide_for_random_tables(phone: Page, server: str) -> None:
    """Seeded random tables (counts log-uniform up to 2**52 in total, a and d sometimes
    left out), names of 1 to 80 characters with and without spaces, each alternative."""
    import random

    rng = random.Random(20261130)
    page = phone.page
    for case in range(12):
        cells = [rng.choice([0, 1, 3, int(10 ** rng.uniform(0, 15.6))]) for _ in range(4)]
        while sum(cells) > LIMIT:
            cells = [c // 2 for c in cells]
        params: dict[str, Any] = dict(zip("abcd", cells, strict=True))
        if case % 4 == 3:
            del params["a"], params["d"]
        names = []
        for _ in range(2):
            alphabet = rng.choice(["abcdefghij", "ab cd-ef_gh ", "WM", "0123456789.-"])
            length = rng.choice([1, 12, 40, 80])
            names.append("".join(rng.choice(alphabet) for _ in range(length)).strip() or "x")
        if names[0] == names[1]:
            names[1] += "2"
        params.update(name_a=names[0], name_b=names[1],
                      alternative=("two-sided", "greater", "less")[case % 3])
        page.goto(server + query(**params))
        wait_settled(page)
        assert_labels_clear(page, f"random case {case}: {params}")
        assert_no_sideways_scroll(page, f"random case {case}: {params}")


def test_tiny_differences_never_print_as_zero(phone: Page, server: str) -> None:
    """b = 10**9, c = 10**9 + 10**5: the difference is -0.0025 points, significant; the page
    shows it with two significant digits (the report's rule), never as -0.0."""
    page = phone.page
    params = dict(a=10**9, b=10**9, c=10**9 + 10**5, d=10**9)
    page.goto(server + query(**params))
    wait_settled(page)
    expected = api(server, params)
    assert expected["conclusion"]["significant"]
    estimate = text(page, "#diff-estimate")
    # (b - c) / N in points, from the counts (independent of the page's formatting)
    points = 100 * (params["b"] - params["c"]) / sum(params.values())
    assert f"{points:.2g}" == "-0.0025"
    assert "-0.0025 points" in estimate, estimate
    for cell in page.locator("#ci-table td.num").all_inner_texts():
        assert re.fullmatch(r"[+-]0\.0+", cell.strip()) is None, cell
    assert "0.0 points" not in estimate


def test_one_sided_headline_follows_the_report(phone: Page, server: str) -> None:
    """157/17/3/23 with alternative 'less': A leads by 7 points, so the one-sided test
    about B says nothing; the headline must not claim 'no clear difference'."""
    page = phone.page
    params = dict(a=157, b=17, c=3, d=23, alternative="less", name_a=NAME_A, name_b=NAME_B)
    page.goto(server + query(**params))
    wait_settled(page)
    conclusion = api(server, params)["conclusion"]
    headline = text(page, "#verdict-headline")
    assert not conclusion["significant"]
    assert "No clear difference" not in headline
    if conclusion.get("headline"):
        assert headline == conclusion["headline"]
    else:
        assert f"favour {NAME_A}" in headline, headline
    assert "Not significant" in text(page, "#verdict-badge")


def _export_buttons_off(page: Any) -> bool:
    return bool(page.evaluate(
        "['copy-markdown', 'download-json'].every("
        "(id) => document.getElementById(id).getAttribute('aria-disabled') === 'true')"
    ))


def test_exports_are_off_while_the_inputs_are_invalid(phone: Page, server: str) -> None:
    page = phone.page
    params = dict(HUGE, name_a=NAME_A, name_b=NAME_B)
    page.goto(server + query(**params))
    wait_settled(page)
    assert not _export_buttons_off(page)
    assert page.locator("#export-note").is_hidden()

    downloads: list[Any] = []
    page.on("download", lambda d: downloads.append(d))
    analyze_requests: list[str] = []
    page.on("request", lambda r: analyze_requests.append(r.url) if "/api/" in r.url else None)
    page.evaluate("navigator.clipboard.writeText('untouched')")

    # an edit makes the shown report stale at once, before any answer arrives
    page.fill("#b", "-1")
    assert _export_buttons_off(page)
    page.wait_for_selector("#b-error:not([hidden])")
    assert _export_buttons_off(page)
    note = text(page, "#export-note")
    assert "Nothing to export" in note and "earlier inputs" in note
    page.wait_for_timeout(500)  # the buttons fade to their "off" look after 0.3 s
    page.screenshot(path=str(ARTIFACTS / "web-phone-exports-off.png"), full_page=True)
    # (force: a browser-automation click waits for buttons marked disabled; a person's does not)
    page.click("#download-json", force=True)
    page.click("#copy-markdown", force=True)
    page.wait_for_timeout(300)
    assert downloads == []
    assert page.evaluate("navigator.clipboard.readText()") == "untouched"
    assert "Nothing to export" in text(page, "#action-status")

    # above the library's limit: refused on the page itself, no request sent
    analyze_requests.clear()
    page.fill("#b", str(LIMIT + 1))
    page.wait_for_function(
        "() => document.getElementById('b-error').textContent.includes('2**52')"
    )
    assert str(LIMIT + 1) in text(page, "#b-error")
    assert _export_buttons_off(page)
    page.fill("#b", str(2**53 + 1))  # a double would round this to 2**53
    page.wait_for_function(
        f"() => document.getElementById('b-error').textContent.includes('{2**53 + 1}')"
    )
    page.fill("#b", str(LIMIT) + ".4")  # a double would drop the fraction
    page.wait_for_function(
        "() => document.getElementById('b-error').textContent.includes('whole number')"
    )
    page.fill("#b", str(LIMIT // 2))
    page.fill("#a", str(LIMIT // 2))  # each within the limit, the total above it
    page.wait_for_function(
        "() => document.getElementById('status').textContent.includes('add up to')"
    )
    assert _export_buttons_off(page)
    page.wait_for_timeout(300)
    assert analyze_requests == [], analyze_requests

    # up to the limit itself the library answers, and the exports hold that answer
    near = LIMIT - 1 - HUGE["c"] - HUGE["d"]  # a + b + c + d = 2**52
    page.fill("#a", "1")
    page.fill("#b", str(near))
    wait_settled(page)
    assert not _export_buttons_off(page)
    assert page.locator("#export-note").is_hidden()
    body = dict(params, b=near, a=1, include=["markdown"])
    expected = api(server, body)
    with page.expect_download() as info:
        page.click("#download-json")
    saved = json.loads(Path(info.value.path()).read_text())
    assert saved["table"]["b"] == near and saved["table"]["n"] == LIMIT
    del expected["markdown"]
    assert saved == expected


def _visible_in_viewport(page: Any, selector: str) -> bool:
    return bool(page.evaluate(
        "(sel) => { const r = document.querySelector(sel).getBoundingClientRect();"
        " return r.height > 0 && r.top >= 0 && r.top < window.innerHeight; }",
        selector,
    ))


def wait_bar(page: Any, *, shown: bool) -> None:
    """Wait until the verdict bar at the top of a phone's screen is shown (or put away)."""
    away = "document.getElementById('summary-bar-wrap').classList.contains('away')"
    page.wait_for_function(f"() => {'!' if shown else ''}{away}")


def test_the_verdict_is_within_reach_on_a_phone(phone: Page, server: str) -> None:
    """Typing the counts at the top of a phone's screen: the verdict is summarised in a bar
    stuck to the top of the screen (the page does not scroll away from the field being
    typed in); tapping the bar, or picking an example, brings the verdict itself into view."""
    page = phone.page
    page.goto(server)
    page.fill("#name_a", NAME_A)
    page.fill("#name_b", NAME_B)
    for cell in "abcd":
        page.fill(f"#{cell}", str(HUGE[cell]))
    page.focus("#d")
    wait_settled(page)
    expected = api(server, dict(HUGE, name_a=NAME_A, name_b=NAME_B))
    assert not _visible_in_viewport(page, ".verdict")  # far below the inputs
    wait_bar(page, shown=True)
    bar = page.locator("#summary-bar").bounding_box()
    assert bar is not None and bar["y"] >= 0 and bar["y"] + bar["height"] <= 80
    summary = text(page, "#summary-bar")
    assert text(page, "#verdict-headline") in summary
    assert text(page, "#headline-pvalue") in summary
    verdict = "Significant" if expected["conclusion"]["significant"] else "Not significant"
    assert summary.startswith(verdict)
    field = page.locator("#d").bounding_box()
    assert field is not None and field["y"] >= bar["y"] + bar["height"]  # not hidden under it
    assert field["y"] + field["height"] <= PHONE["height"]
    assert_no_sideways_scroll(page, "typing")
    page.screenshot(path=str(ARTIFACTS / "web-phone-summary-bar.png"))

    # an invalid edit: the bar says there is no result instead of showing the old verdict
    page.fill("#c", "three")
    page.wait_for_function(
        "() => document.getElementById('summary-bar').textContent.includes('fix the inputs')"
    )
    page.fill("#c", str(HUGE["c"]))
    wait_settled(page)
    page.wait_for_function(
        "() => document.getElementById('summary-bar').textContent.includes('p = ')"
    )

    page.evaluate("window.scrollTo(0, 0)")
    wait_bar(page, shown=True)
    page.click("#summary-bar")
    page.wait_for_function(
        "() => document.querySelector('.verdict').getBoundingClientRect().top < innerHeight / 2"
    )
    assert _visible_in_viewport(page, ".verdict")
    wait_bar(page, shown=False)

    # Enter (a phone keyboard's Go) ends the typing: the page scrolls to the verdict
    page.evaluate("window.scrollTo(0, 0)")
    page.focus("#b")
    wait_bar(page, shown=True)
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => { const r = document.querySelector('.verdict').getBoundingClientRect();"
        " return r.top >= 0 && r.top < innerHeight / 2; }"
    )
    assert _visible_in_viewport(page, ".verdict")

    # so does an example: its verdict is on the screen when it arrives
    page.evaluate("window.scrollTo(0, 0)")
    page.click("button[data-example]")
    wait_for_result(page, "0.002577")
    page.wait_for_function(
        "() => { const r = document.querySelector('.verdict').getBoundingClientRect();"
        " return r.top >= 0 && r.top < innerHeight - 150; }"
    )
    page.screenshot(path=str(ARTIFACTS / "web-phone-example-verdict.png"))


def test_no_summary_bar_on_a_desktop(desktop: Page, server: str) -> None:
    page = desktop.page
    page.goto(server + query(**HUGE))
    wait_settled(page)
    assert page.locator("#summary-bar").is_hidden()
    assert _visible_in_viewport(page, ".verdict")


def test_typing_during_an_upload_says_it_was_cancelled(phone: Page, server: str) -> None:
    page = phone.page
    held: list[Any] = []
    page.route("**/api/v1/compare", lambda route: held.append(route))  # held until released
    page.goto(server + query(name_a=NAME_A, name_b=NAME_B))
    submit_upload(page, DATA / "candidate.csv", DATA / "baseline.csv")
    page.wait_for_function(
        "() => document.getElementById('upload-status').textContent.includes('Reading')"
    )
    for _ in range(100):  # the route handler runs as the request leaves the page
        if held:
            break
        page.wait_for_timeout(50)
    assert len(held) == 1

    page.fill("#name_b", "old model")
    status = text(page, "#upload-status")
    assert "cancelled" in status and "name of system B" in status
    assert "Compare the files" in status
    assert "notice" in (page.get_attribute("#upload-status", "class") or "")
    page.screenshot(path=str(ARTIFACTS / "web-phone-upload-cancelled.png"), full_page=True)
    for cell, value in HUGE.items():
        page.fill(f"#{cell}", str(value))
    wait_settled(page)
    # the late answer of the cancelled upload changes nothing
    try:
        held[0].continue_()
    except Exception:  # the browser already dropped the request
        pass
    page.wait_for_timeout(300)
    assert page.input_value("#b") == str(HUGE["b"])
    assert page.locator("#alignment-card").is_hidden()
    assert "old model" in text(page, "#words")
    assert "cancelled" in text(page, "#upload-status")

    # without edits the upload runs to its end and its result shows
    page.unroute("**/api/v1/compare")
    page.click("#upload-submit")
    page.wait_for_selector("#alignment-card:not([hidden])")
    wait_for_result(page, "0.002577")
    assert "Compared candidate.csv with baseline.csv" in text(page, "#upload-status")
    assert not _export_buttons_off(page)


def test_upload_errors_name_the_page_controls(phone: Page, server: str, tmp_path: Path) -> None:
    """The server's alignment errors name the library's arguments (on_missing='intersect',
    threshold=T); the page names its own controls instead and marks them."""
    only = tmp_path / "a.csv", tmp_path / "b.csv"
    only[0].write_text("id,correct\nq1,1\nq2,0\nq3,1\n")
    only[1].write_text("id,correct\nq2,1\nq3,1\nq4,0\n")
    scores = tmp_path / "sa.csv", tmp_path / "sb.csv"
    scores[0].write_text("id,score\nq1,0.9\nq2,0.2\n")
    scores[1].write_text("id,score\nq1,0.4\nq2,0.7\n")
    page = phone.page
    page.goto(server + query(name_a=NAME_A, name_b=NAME_B))
    submit_upload(page, only[0], only[1])
    page.wait_for_selector("#on_missing-error:not([hidden])")
    message = text(page, "#upload-status")
    assert "q1" in message and "Drop items found in only one file" in message
    for flag in ("--on-missing", "on_missing", "intersect"):
        assert flag not in message, message
    assert page.get_attribute("#on_missing", "aria-invalid") == "true"
    assert page.locator("#on_missing").is_visible()  # the pairing options were opened
    page.screenshot(path=str(ARTIFACTS / "web-phone-upload-error.png"), full_page=True)
    page.check("#on_missing")
    page.click("#upload-submit")
    wait_compared(page, "a.csv with b.csv")
    assert "2 only" not in text(page, "#alignment")
    assert "1 only in A" in text(page, "#alignment") and "1 only in B" in text(page, "#alignment")
    assert page.locator("#on_missing-error").is_hidden()

    page.uncheck("#on_missing")
    # Graded scores are compared as scores unless pass/fail is asked for, which needs a
    # threshold.
    page.select_option("#analysis", "pass-fail")
    page.set_input_files("#file_a", str(scores[0]))
    page.set_input_files("#file_b", str(scores[1]))
    page.click("#upload-submit")
    page.wait_for_selector("#threshold-error:not([hidden])")
    message = text(page, "#upload-status")
    assert "Pass threshold" in message and "threshold=" not in message and "--" not in message
    page.fill("#threshold", "0.5")
    page.click("#upload-submit")
    wait_compared(page, "sa.csv with sb.csv")
    assert page.locator("#threshold-error").is_hidden()
    assert page.input_value("#b") == "1" and page.input_value("#c") == "1"

    # two eval logs of differently named tasks: the page's checkbox, not the argument
    logs = _inspect_log(tmp_path / "ta.json", "arith"), _inspect_log(tmp_path / "tb.json", "other")
    page.fill("#threshold", "")
    page.set_input_files("#file_a", str(logs[0]))
    page.set_input_files("#file_b", str(logs[1]))
    page.click("#upload-submit")
    page.wait_for_selector("#allow_different_tasks-error:not([hidden])")
    message = text(page, "#upload-status")
    assert "Pair runs of different tasks" in message and "allow_different" not in message
    # the report of the previous files still matches the fields: it stays, exportable
    assert page.locator("#results.stale").count() == 0 and not _export_buttons_off(page)
    page.check("#allow_different_tasks")
    page.click("#upload-submit")
    wait_compared(page, "ta.json with tb.json")
    assert "different tasks" in text(page, "#warnings")

    # several samples of each item: the page's "Several samples per item" choice
    page.uncheck("#allow_different_tasks")
    page.set_input_files("#file_a", str(_inspect_log(tmp_path / "ea.json", "arith", epochs=3)))
    page.set_input_files("#file_b", str(_inspect_log(tmp_path / "eb.json", "arith")))
    page.click("#upload-submit")
    page.wait_for_selector("#reduce-error:not([hidden])")
    message = text(page, "#upload-status")
    assert "Several samples per item" in message and "reduce=" not in message, message
    page.select_option("#reduce", "majority")
    page.click("#upload-submit")
    wait_compared(page, "ea.json with eb.json")
    assert "3 samples per item" in text(page, "#alignment")


def submit_upload(page: Any, file_a: Path, file_b: Path, **advanced: str) -> None:
    """Open the upload box, choose the two files, fill the named fields of its advanced
    options (if any) and send the form."""
    page.click("#upload-box summary")
    page.set_input_files("#file_a", str(file_a))
    page.set_input_files("#file_b", str(file_b))
    if advanced:
        page.click("#upload-form details.advanced summary")
        for field, value in advanced.items():
            page.fill(f"#{field}", value)
    page.click("#upload-submit")


def resubmit(page: Any, file_a: Path, file_b: Path) -> None:
    """Choose two other files in the upload form already open and send it."""
    page.set_input_files("#file_a", str(file_a))
    page.set_input_files("#file_b", str(file_b))
    page.click("#upload-submit")


def wait_compared(page: Any, files: str) -> None:
    """Wait until an upload of ``files`` ("a.csv with b.csv") has shown its result."""
    page.wait_for_function(
        "(files) => document.getElementById('upload-status').textContent"
        " === 'Compared ' + files + '.'",
        arg=files,
    )
    wait_settled(page)


def _inspect_log(path: Path, task: str, epochs: int = 1) -> Path:
    """A minimal Inspect .json log of 20 items for ``task``, each scored ``epochs`` times
    (the fields the Inspect reader reads)."""
    samples = [
        {"id": i, "epoch": e, "input": f"What is {i} + {i}?", "target": str(2 * i),
         "scores": {"match": {"value": "C" if (i + e) % 3 else "I"}}}
        for i in range(1, 21)
        for e in range(1, epochs + 1)
    ]
    doc = {"version": 2, "status": "success",
           "eval": {"task": task, "model": "m", "dataset": {"name": "data", "samples": 20}},
           "results": {"total_samples": len(samples)}, "samples": samples}
    path.write_text(json.dumps(doc))
    return path


# ----------------------------------------------------------------------------- beyond
# significance: a margin (non-inferiority, equivalence) and the Bayesian summary on the page

_NUMBER = re.compile(r"[+\-−]?\d+(?:\.\d+)?")


def _numbers(shown: str) -> list[float]:
    return [float(x.replace("−", "-")) for x in _NUMBER.findall(shown.replace(",", ""))]


def _agrees(shown: str, value: float, scale: float = 1.0) -> bool:
    """``shown`` is ``value * scale`` to the digits it prints (half a unit in its last place)."""
    (number,) = _numbers(shown)
    text = _NUMBER.search(shown.replace(",", ""))
    assert text is not None
    decimals = len(text.group(0).split(".")[1]) if "." in text.group(0) else 0
    return abs(number - value * scale) <= 0.5 * 10.0**-decimals * (1 + 1e-9)


def _pair_agrees(shown: str, low: float, high: float) -> bool:
    """An interval shown in points is [100 low, 100 high] to the digits it prints."""
    parts = _NUMBER.findall(shown.replace(",", ""))
    assert len(parts) == 2, shown
    return _agrees(parts[0], low, 100) and _agrees(parts[1], high, 100)


def test_margin_and_bayes_on_a_phone(phone: Page, server: str) -> None:
    page = phone.page
    cells = {"a": 1800, "b": 52, "c": 47, "d": 101}
    page.goto(server + query(**cells, name_a=NAME_A, name_b=NAME_B))
    wait_settled(page)
    assert page.locator("#margin-card").is_hidden() and page.locator("#bayes-card").is_hidden()
    assert page.is_disabled("#equivalence") and page.is_disabled("#prior")

    page.fill("#margin", "1")
    page.check("#equivalence")
    page.fill("#rope", "0.5")
    wait_settled(page)
    params = parse_qs(urlsplit(page.url).query)
    assert params["margin"] == ["1"] and params["equivalence"] == ["1"]
    assert params["rope"] == ["0.5"]

    got = api(server, dict(cells, name_a=NAME_A, name_b=NAME_B, margin=0.01, equivalence=True,
                           bayes={"rope": 0.005}, include=["markdown"]))
    ni, eq, bayes = got["noninferiority"], got["equivalence"], got["bayes"]
    assert text(page, "#conclusion") == got["conclusion"]["text"]
    # the margin: badges from the booleans, sentences and numbers from the report
    assert text(page, "#margin-heading") == "Against a margin of 1 point"
    assert text(page, "#ni-badge") == ("Non-inferior" if ni["noninferior"] else
                                       "Non-inferiority not shown")
    assert text(page, "#ni-text") == ni["text"]
    assert _agrees(text(page, "#ni-numbers [data-key=pvalue]"), ni["pvalue"])
    assert _agrees(text(page, "#ni-numbers [data-key=statistic]"), ni["statistic"])
    shown = text(page, "#ni-numbers [data-key=confidence_interval]")
    ci = ni["confidence_interval"]
    assert _pair_agrees(shown, ci["low"], ci["high"]), (shown, ci)
    # read against the margin with the report's own digits: [-0.58, +1.08] for 1 point
    assert shown.replace("−", "-") in ni["text"] + got["conclusion"]["text"], shown
    assert text(page, "#eq-badge") == ("Equivalent" if eq["equivalent"] else
                                       "Equivalence not shown")
    assert text(page, "#eq-text") == eq["text"]
    for key in ("pvalue", "pvalue_lower", "pvalue_upper"):
        assert _agrees(text(page, f"#eq-numbers [data-key={key}]"), eq[key]), key
    # the Bayesian summary: three probabilities, the median and the credible interval
    for key in ("prob_a_better", "prob_equivalent", "prob_b_better"):
        shown = text(page, f"#bayes-table tr[data-key={key}] td.num")
        assert _agrees(shown, bayes[key]), (key, shown, bayes[key])
    total = sum(bayes[k] for k in ("prob_a_better", "prob_equivalent", "prob_b_better"))
    assert total == pytest.approx(1.0, abs=1e-9)
    assert "by more than 0.5 points" in text(page, "#bayes-table tr[data-key=prob_a_better]")
    assert _agrees(text(page, "#bayes-median [data-key=median]"), bayes["median"], 100)
    shown = text(page, "#bayes-median [data-key=credible_interval]")
    ci = bayes["credible_interval"]
    assert _pair_agrees(shown, ci["low"], ci["high"]), (shown, ci)

    assert_no_sideways_scroll(page, "margin and Bayesian summary")
    page.screenshot(path=str(ARTIFACTS / "web-phone-decisions.png"), full_page=True)
    for card in ("margin-card", "bayes-card"):
        page.locator(f"#{card}").screenshot(path=str(ARTIFACTS / f"web-phone-{card}.png"))

    # the exports hold the blocks: the markdown is the API's, sections included
    page.click("#copy-markdown")
    page.wait_for_function("() => document.getElementById('action-status').textContent !== ''")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == got["markdown"] and "How likely is a real gain" in copied

    # the link reproduces it all
    page.reload()
    wait_settled(page)
    assert page.input_value("#margin") == "1" and page.is_checked("#equivalence")
    assert page.input_value("#rope") == "0.5"
    assert text(page, "#ni-text") == ni["text"]

    # a margin that is not a number of points is marked on the page, and nothing is exported
    page.fill("#margin", "150")
    page.wait_for_selector("#margin-error:not([hidden])")
    assert "points" in text(page, "#margin-error") and "150" in text(page, "#margin-error")
    assert _export_buttons_off(page)
    # the API's own checks reach the page's controls too (alpha of 0.5 or more with a margin)
    page.fill("#margin", "1")
    page.fill("#alpha", "0.6")
    page.wait_for_selector("#alpha-error:not([hidden])")
    assert "0.5" in text(page, "#alpha-error")
    assert_no_sideways_scroll(page, "decision errors")

    # the prior's error (the API's bayes.prior) marks the prior's field; a margin without a
    # and d marks the margin
    page.fill("#alpha", "")
    page.fill("#prior", "-1")
    page.wait_for_selector("#prior-error:not([hidden])")
    assert "-1" in text(page, "#prior-error")
    page.fill("#prior", "")
    page.fill("#a", "")
    page.fill("#d", "")
    page.wait_for_selector("#margin-error:not([hidden])")
    assert "a (both right) and d (both wrong)" in text(page, "#margin-error")

    # an upload takes the same options: the files' 200-item table against a 5-point margin
    page.fill("#a", "1800")
    page.fill("#d", "101")
    page.fill("#margin", "5")
    wait_settled(page)
    submit_upload(page, DATA / "candidate.csv", DATA / "baseline.csv")
    wait_compared(page, "candidate.csv with baseline.csv")
    counted = api(server, dict(a=157, b=17, c=3, d=23, name_a=NAME_A, name_b=NAME_B,
                               margin=0.05, equivalence=True, bayes={"rope": 0.005}))
    assert text(page, "#ni-text") == counted["noninferiority"]["text"]
    assert text(page, "#eq-text") == counted["equivalence"]["text"]
    shown = text(page, "#bayes-table tr[data-key=prob_a_better] td.num")
    assert _agrees(shown, counted["bayes"]["prob_a_better"])


def _points_pair(low: float, high: float) -> str:
    """An interval in points as the page prints it: decimals for two significant digits of its
    width, at least one (the rule of the report's own interval texts)."""
    import math

    width = abs(high - low) * 100
    decimals = max(1, 1 - math.floor(math.log10(width)))
    return "[" + ", ".join(f"{100 * x:+.{decimals}f}" for x in (low, high)) + "]"


def test_upload_with_clusters_shows_the_clustered_verdict(
    desktop: Page, server: str, tmp_path: Path
) -> None:
    """Files whose items come in clusters (a cluster field): the recommended test is the
    clustered one and the headline interval the cluster-robust one, as in the report the
    pipeline gives for the same files (the reference)."""
    from mcnemar.pipeline import compare_runs, read_runs

    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("id,correct,passage\n"
                 + "".join(f"q{i},{int(i % 3 != 0)},p{i // 4}\n" for i in range(80)))
    b.write_text("id,correct,passage\n"
                 + "".join(f"q{i},{int(i % 5 == 0)},p{i // 4}\n" for i in range(80)))
    run_a, run_b = read_runs([a, b], cluster="passage")
    expected = compare_runs(run_a, run_b, names=(NAME_A, NAME_B)).to_dict()
    ci = expected["clustered"]["confidence_interval"]

    page = desktop.page
    page.goto(server + query(name_a=NAME_A, name_b=NAME_B))
    submit_upload(page, a, b, cluster="passage")
    wait_compared(page, "a.csv with b.csv")

    headline = text(page, "#headline-p")
    assert expected["tests"]["clustered"]["name"].lower() in headline.lower(), headline
    assert page.get_attribute("#tests-table tr[data-test=clustered]", "class") == "recommended"
    # the headline interval is the cluster-robust one, labelled by its method
    assert text(page, "#recommended-interval") == _points_pair(ci["low"], ci["high"])
    assert ci["method"] in text(page, "#diff-estimate")
    row = "#ci-table tr[data-interval=clustered]"
    assert page.get_attribute(row, "class") == "recommended"
    assert "recommended" in text(page, row)
    # the other intervals keep the report's own labels
    newcombe = expected["difference"]["intervals"]["newcombe"]["label"]
    assert newcombe in text(page, "#ci-table tr[data-interval=newcombe]")
    assert "20 (field passage)" in text(page, "#alignment")
    page.screenshot(path=str(ARTIFACTS / "web-desktop-upload-clusters.png"), full_page=True)


def test_upload_lists_the_flips_with_a_search(phone: Page, server: str) -> None:
    """Under the table: the items on which the files disagree (17 + 3 here), as the report's
    JSON lists them, and a search box that keeps the rows holding what is typed."""
    from mcnemar.pipeline import compare_runs, read_runs

    flips = compare_runs(*read_runs([DATA / "candidate.csv", DATA / "baseline.csv"]),
                         flips=100).flips
    page = phone.page
    page.goto(server)
    submit_upload(page, DATA / "candidate.csv", DATA / "baseline.csv")
    wait_compared(page, "candidate.csv with baseline.csv")
    assert page.locator("#flips-card").is_visible()
    # no names typed: the files' own, as mcnemar compare shows them
    assert text(page, "#flips-summary") == ("candidate.csv right and baseline.csv wrong on 17 "
                                            "items; candidate.csv wrong and baseline.csv right "
                                            "on 3.")
    ids = page.eval_on_selector_all("#flips-table tbody tr.flip",
                                    "rows => rows.map(r => r.cells[0].textContent)")
    sides = page.eval_on_selector_all("#flips-table tbody tr.flip-side",
                                      "rows => rows.map(r => r.textContent)")
    assert sides == ["candidate.csv right, baseline.csv wrong (17)",
                     "candidate.csv wrong, baseline.csv right (3)"]
    assert flips is not None
    assert ids == [str(f.id) for f in flips.a_only] + [str(f.id) for f in flips.b_only]
    first_b = str(flips.b_only[0].id)
    page.fill("#flips-search", first_b)
    shown = page.eval_on_selector_all("#flips-table tbody tr.flip:not([hidden])",
                                      "rows => rows.map(r => r.cells[0].textContent)")
    assert first_b in shown and len(shown) < len(ids)
    assert "listed items match" in text(page, "#flips-count")
    page.fill("#flips-search", "")
    assert page.locator("#flips-table tbody tr.flip:not([hidden])").count() == len(ids) == 20
    assert_no_sideways_scroll(page, "flips")
    page.locator("#flips-card").screenshot(path=str(ARTIFACTS / "web-phone-flips.png"))
    # Typed counts have no items: the list goes away.
    page.goto(server + "?b=17&c=3")
    wait_for_result(page, "0.002577")
    assert page.locator("#flips-card").is_hidden()


# ----------------------------------------------------------------------------- one answer, in
# the same digits as the command line, errors where the eye is, the logs' own names


def cli(*args: str) -> str:
    """What ``mcnemar ARGS`` prints (in process), asserting it succeeded."""
    from click.testing import CliRunner

    from mcnemar.cli import main

    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return str(result.output)


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def typeset(text: str) -> str:
    """A number as the command line prints it, as the page writes it: the same digits, with
    e-notation as a power of ten (2.5e-07 as 2.5 × 10⁻⁷)."""
    m = re.fullmatch(r"([<>]?[+-]?)(\d+(?:\.\d+)?)e([+-]?)0*(\d+)", text)
    if m is None:
        return text
    exponent = ("-" if m[3] == "-" else "") + m[4]
    return f"{m[1]}{m[2]} × 10{exponent.translate(_SUPERSCRIPT)}"


def paragraphs(text: str) -> list[str]:
    """The paragraphs of a text report, each on one line (the report wraps them)."""
    return [" ".join(line.strip() for line in block.splitlines())
            for block in text.strip().split("\n\n")]


#: Four tasks, 335 items (the first hour's upload): "arith" has (6 - 7)/80, which Python
#: prints -1.2 and JavaScript's toFixed -1.3; "logic" has an interval that excludes 0 beside
#: an exact p of 0.0625 (the disagreement the report explains).
TASKS = {"arith": (50, 6, 7, 17), "logic": (10, 0, 5, 5), "qa": (40, 18, 26, 11),
         "code": (90, 20, 16, 14)}


def _task_csvs(folder: Path) -> tuple[Path, Path]:
    return suite_csvs(folder, TASKS, names=("suite_new", "suite_old"))


def _top(page: Any, selector: str) -> float:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return float(box["y"])


def test_a_per_task_upload_leads_with_the_per_task_headline(
    each_width: Page, server: str, tmp_path: Path
) -> None:
    """Items 1, 6, 7 and 11: the per-task verdict and table at the top, with the headline the
    command line's --by-task states (its JSON's "headline"), every number of the table in
    the command line's digits, the disagreement of a row's interval and test explained, and
    the forest plot with the headline marked."""
    a, b = _task_csvs(tmp_path)
    printed = cli("compare", str(a), str(b), "--task-column", "task")
    document = json.loads(cli("compare", str(a), str(b), "--task-column", "task",
                              "--format", "json"))
    top = document["headline"]
    page = each_width.page
    page.goto(server)
    submit_upload(page, a, b, task_column="task")
    wait_compared(page, "suite_new.csv with suite_old.csv")

    # One headline: the command line's, from the JSON, at the top of the results.
    verdict = paragraphs(printed)[1]
    assert text(page, "#conclusion") == document["verdict"] == verdict
    assert text(page, "#verdict-headline") == top["words"]
    assert top["overall"] == "macro" and "Overall (macro)" in verdict
    assert text(page, "#headline-pvalue") == typeset(top["texts"]["pvalue"])
    assert f"p = {top['texts']['pvalue']}:" in verdict
    assert text(page, "#headline-p").startswith("Macro z-test p = ")
    badge = "Significant" if top["significant"] else "Not significant"
    assert text(page, "#verdict-badge").startswith(badge)
    assert _top(page, ".verdict") < _top(page, "#tasks-card") < _top(page, "#table-heading")
    assert _top(page, "#tasks-card") < _top(page, "#tests-heading")
    assert page.locator("#pooled-note").is_visible()

    # The table: worst first, each number as the command line prints it.
    rows = page.eval_on_selector_all("#tasks-table tbody tr[data-task]", """rows => rows.map(r => ({
        task: r.dataset.task,
        difference: r.querySelector('[data-key=difference] .value').textContent,
        interval: r.querySelector('[data-key=interval]').textContent,
        pvalue: r.querySelector('[data-key=pvalue] .value').textContent,
        adjusted: r.querySelector('[data-key=adjusted_pvalue] .value').textContent}))""")
    table = [line.split() for line in printed.splitlines() if line.split()[:1] in
             ([t] for t in TASKS)]
    assert [r["task"] for r in rows] == [t["task"] for t in document["tasks"]] == \
        [line[0] for line in table]
    for row, line in zip(rows, table, strict=True):
        # task n b c A-B low "to" high test p adj [flag]
        assert row["difference"] == line[4], (row, line)
        assert row["interval"] == f"{line[5]} to {line[7]}", (row, line)
        assert row["pvalue"] == typeset(line[9]) and row["adjusted"] == typeset(line[10])
    arith = next(r for r in rows if r["task"] == "arith")
    assert arith["difference"] == "-1.2"  # (6 - 7)/80 = -1.25, as Python rounds it

    # The row whose interval excludes 0 beside p = 0.0625 says why, as the CLI does.
    (logic,) = [t for t in document["tasks"] if t["task"] == "logic"]
    assert logic["note"] and "excludes 0" in logic["note"]
    assert text(page, "tr[data-note-for=logic]") == logic["note"]
    assert f"- logic: {logic['note']}" in " ".join(printed.split())
    assert page.locator("tr.task-note").count() == 1

    # The forest plot marks the headline and labels the adjusted p-values, naming the systems.
    svg = page.evaluate("decodeURIComponent(document.querySelector('#forest-chart img')"
                        ".src.split(',')[1])")
    assert "Overall, macro (mean of tasks) *" in svg and "adj. p = " in svg
    assert "accuracy(suite_new.csv) - accuracy(suite_old.csv)" in svg
    size = page.eval_on_selector(
        "#forest-chart img",
        "img => [img.complete, img.naturalWidth, img.getBoundingClientRect().right]")
    assert size[0] and size[1] > 0
    # The copied markdown is the comparison's, its headline first.
    page.click("#copy-markdown")
    page.wait_for_function("() => document.getElementById('action-status').textContent !== ''")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("### suite_new.csv vs suite_old.csv, task by task")

    if each_width.kind == "phone":
        assert_no_sideways_scroll(page, "tasks")
        # the bar at the top of the screen carries the same headline
        page.evaluate("window.scrollTo(0, 0)")
        wait_bar(page, shown=True)
        summary = text(page, "#summary-bar")
        assert top["words"] in summary and typeset(top["texts"]["pvalue"]) in summary
        page.screenshot(path=str(ARTIFACTS / "web-phone-tasks-bar.png"))
    page.evaluate("document.querySelector('.verdict').scrollIntoView()")
    page.screenshot(path=str(ARTIFACTS / f"web-{each_width.kind}-tasks.png"))
    page.locator("#tasks-card").screenshot(
        path=str(ARTIFACTS / f"web-{each_width.kind}-tasks-card.png"))


EPOCHS = Path(__file__).parent / "data" / "io" / "real" / "inspect"


def test_a_failed_upload_says_so_where_the_eye_is(each_width: Page, server: str) -> None:
    """Item 2: two Inspect logs with epochs and no way chosen to combine them. The message
    stands at the top of the results (not the "type b and c" prompt), the phone's bar says
    the files were not compared and why, and the control to fix is marked in the form."""
    page = each_width.page
    logs = (EPOCHS / "arith_epochs_a.eval", EPOCHS / "arith_epochs_b.eval")
    page.goto(server)
    submit_upload(page, *logs)
    page.wait_for_selector("#reduce-error:not([hidden])")
    status = text(page, "#status")
    assert status.startswith("The files were not compared: ")
    assert "Several samples per item" in status and "Type b and c" not in status
    assert "error" in (page.get_attribute("#status", "class") or "")
    assert text(page, "#upload-status") == status  # and under the button that sent them
    assert page.get_attribute("#reduce", "aria-invalid") == "true"
    if each_width.kind == "desktop":
        assert _visible_in_viewport(page, "#status")
    else:
        wait_bar(page, shown=True)
        assert text(page, "#summary-badge") == "The files were not compared"
        assert "Several samples per item" in text(page, "#summary-line")
        assert page.get_attribute("#summary-bar-wrap", "data-kind") == "error"
        assert_no_sideways_scroll(page, "upload error")
    page.screenshot(path=str(ARTIFACTS / f"web-{each_width.kind}-upload-failed.png"))

    # Fixed: the result replaces the message.
    page.select_option("#reduce", "majority")
    page.click("#upload-submit")
    wait_compared(page, "arith_epochs_a.eval with arith_epochs_b.eval")
    assert text(page, "#status") == "" and page.locator("#reduce-error").is_hidden()

    # With a result on the page, a failed upload says so above it and leaves it as it is.
    shown_p = text(page, "#headline-pvalue")
    page.select_option("#reduce", "")
    page.click("#upload-submit")
    page.wait_for_selector("#reduce-error:not([hidden])")
    assert text(page, "#status").startswith("The files were not compared: ")
    assert page.locator("#results.stale").count() == 0 and not _export_buttons_off(page)
    assert text(page, "#headline-pvalue") == shown_p
    if each_width.kind == "phone":
        page.evaluate("window.scrollTo(0, 0)")
        wait_bar(page, shown=True)
        assert text(page, "#summary-badge") == "The files were not compared"
    else:
        assert _visible_in_viewport(page, "#status")


def test_uploaded_logs_keep_their_names_and_identity(each_width: Page, server: str) -> None:
    """Item 5: no names typed, the report uses the names the logs record, as the command line
    does, and the alignment card shows each run's task, scorer and status in the words of the
    command line's alignment summary."""
    logs = (EPOCHS / "arith_a.eval", EPOCHS / "arith_b.eval")
    printed = cli("compare", *map(str, logs))
    document = json.loads(cli("compare", *map(str, logs), "--format", "json"))
    names = document["names"]
    assert names == {"a": "mockllm/system-a", "b": "mockllm/system-b"}
    page = each_width.page
    page.goto(server)
    submit_upload(page, *logs)
    wait_compared(page, "arith_a.eval with arith_b.eval")
    assert text(page, "#conclusion") == document["conclusion"]["text"]
    assert text(page, "#words") == document["words"]
    assert page.input_value("#name_a") == names["a"] and page.input_value("#name_b") == names["b"]
    assert parse_qs(urlsplit(page.url).query)["name_a"] == [names["a"]]
    assert names["a"] in text(page, "#flips-summary")
    alignment = text(page, "#alignment")
    for side in "ab":
        described = document["alignment"]["runs"][side]["description"]
        assert described == "task arith, dataset arith, scorer match, status complete"
        assert f"     {described}." in printed  # the command line's line under the run
        assert text(page, f"#alignment [data-key=run-{side}] [data-key=description]") == \
            described + "."
        assert f"{'A' if side == 'a' else 'B'} ({names[side]})" in alignment
    assert "input/target of 30 of 30 paired items agrees in A and B" in alignment
    if each_width.kind == "phone":
        assert_no_sideways_scroll(page, "alignment")
    page.locator("#alignment-card").screenshot(
        path=str(ARTIFACTS / f"web-{each_width.kind}-alignment.png"))

    # Other logs: their own names, not the ones filled in from the first.
    page.evaluate("document.querySelector('#upload-form details.advanced').open = true")
    page.select_option("#reduce", "majority")
    resubmit(page, EPOCHS / "arith_epochs_a.eval", EPOCHS / "arith_epochs_b.eval")
    wait_compared(page, "arith_epochs_a.eval with arith_epochs_b.eval")
    other = json.loads(cli("compare", str(EPOCHS / "arith_epochs_a.eval"),
                           str(EPOCHS / "arith_epochs_b.eval"), "--reduce", "majority",
                           "--format", "json"))["names"]
    assert page.input_value("#name_a") == other["a"]
    assert text(page, "#words").startswith(other["a"])
    # A name typed is the user's: the next upload keeps it.
    page.fill("#name_a", "mine")
    resubmit(page, *logs)
    wait_compared(page, "arith_a.eval with arith_b.eval")
    assert text(page, "#words").startswith("mine right and mockllm/system-b wrong")


#: Tables whose numbers JavaScript and Python print differently, or that the page used to
#: round to two digits: exact p = 0.8036 (was "0.8"), (6 - 7)/80 = -1.25 points (toFixed:
#: -1.3), and a spread of sizes, tiny p-values and huge counts.
GRID = [(60, 7, 9, 4), (50, 6, 7, 17), (157, 17, 3, 23), (0, 0, 0, 0), (90, 0, 0, 10),
        (1, 1, 0, 0), (5, 40, 12, 3), (1000, 125, 75, 800), (10**6, 3 * 10**5, 2 * 10**5, 7),
        (12, 1, 1, 12), (3, 2, 5, 1)]


def test_every_number_is_the_command_lines(each_width: Page, server: str) -> None:
    """Item 6: over a grid of tables, the headline p-value, the four tests, the difference,
    the accuracies and every interval are what ``mcnemar test`` prints (the page shows the
    server's strings); and item 12: a message under b leaves the field beside it in place."""
    page = each_width.page
    for a, b, c, d in GRID:
        printed = cli("test", "--a", str(a), "--b", str(b), "--c", str(c), "--d", str(d),
                      "--name-a", "new", "--name-b", "old")
        page.goto(server + query(a=a, b=b, c=c, d=d, name_a="new", name_b="old"))
        wait_settled(page)
        where = (a, b, c, d)
        tests = re.findall(r"^ ([* ]) (.+?)\s+statistic\s+(\S+)\s+p = (\S+)", printed, re.M)
        assert len(tests) == 4, printed
        recommended = next(p for mark, _, _, p in tests if mark == "*")
        assert text(page, "#headline-pvalue") == typeset(recommended), where
        for key, (_, _, stat, p) in zip(("exact", "midp", "asymptotic", "corrected"), tests,
                                        strict=True):
            cells = page.eval_on_selector_all(f"#tests-table tr[data-test={key}] td.num",
                                              "cells => cells.map(c => c.textContent)")
            assert cells == [typeset(stat) if stat != "undefined" else "—", typeset(p)], where
        if a + d == 0 and b + c == 0:
            continue
        diff = re.search(r"^Difference in accuracy, new - old: (\S+) points", printed, re.M)
        assert diff is not None, printed
        estimate = text(page, "#diff-estimate")
        assert estimate.startswith(f"new minus old: {diff[1]} points"), (where, estimate)
        accuracy = re.search(r"^Accuracy: new (\S+), old (\S+)\.$", printed, re.M)
        assert accuracy is not None and f"({accuracy[1]} vs {accuracy[2]})" in estimate
        for label, low, high in re.findall(r"^   (.+?)\s+\[(\S+), (\S+)\] points$", printed,
                                           re.M):
            row = page.locator("#ci-table tbody tr", has_text=label).first
            cells = row.locator("td.num").all_text_contents()
            assert cells == [typeset(low), typeset(high)], (where, label)
    # The two numbers, as the page shows them now.
    page.goto(server + query(a=60, b=7, c=9, d=4))
    wait_settled(page)
    assert text(page, "#headline-p").startswith("Exact p = 0.8036")
    page.screenshot(path=str(ARTIFACTS / f"web-{each_width.kind}-numbers.png"))

    # A message under b: a (beside it) and b stay where they were, side by side.
    page.goto(server + query(a=157, b=17, c=3, d=23))
    wait_settled(page)
    before = {f: page.locator(f"#{f}").bounding_box() for f in ("a", "b", "c", "d")}
    page.fill("#b", "-1")
    page.wait_for_selector("#b-error:not([hidden])")
    after = {f: page.locator(f"#{f}").bounding_box() for f in ("a", "b", "c", "d")}
    assert after["a"] == before["a"] and after["b"] == before["b"], (before, after)
    assert after["a"] is not None and after["b"] is not None
    assert after["a"]["y"] == after["b"]["y"]
    error = page.locator("#b-error").bounding_box()
    assert error is not None and error["y"] >= after["b"]["y"] + after["b"]["height"]
    assert after["c"] is not None and after["c"]["y"] >= error["y"] + error["height"]
    page.locator("#cells-passes").screenshot(
        path=str(ARTIFACTS / f"web-{each_width.kind}-field-error.png"))
