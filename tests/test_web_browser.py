"""The calculator page in a real browser: Debian's Chromium driven through Playwright.

The tests start the real server (``python -m mcnemar serve --port 0``) in a subprocess on
127.0.0.1, drive the page as a person would (mostly with the keyboard), and save screenshots
at desktop (1280x900) and phone (390x844) widths under ``tests/artifacts/``. Every request the
page makes is checked to go to the local server only.

Reference values: the 200-item worked example (157, 17, 3, 23) of REFERENCES.md: exact
p = 0.0025768 (shown as 0.0026), Newcombe interval (0.026236, 0.116610), i.e. +2.6 to +11.7
points, candidate better.

Chromium comes from Debian (``scripts/install-browser.sh``); Playwright's own browser
download is not used. Without ``/usr/bin/chromium`` the tests are skipped, loudly.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
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


# ----------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """``mcnemar serve`` on a free loopback port; yields its printed URL."""
    log = ARTIFACTS / "server.log"
    ARTIFACTS.mkdir(exist_ok=True)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    with log.open("w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "mcnemar", "serve", "--port", "0",
             "--max-upload-mb", str(UPLOAD_LIMIT_MB)],
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            env=env,
        )
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            match = re.search(r"http://127\.0\.0\.1:\d+/", line)
            if not match:
                proc.kill()
                pytest.fail(f"mcnemar serve printed {line!r}; see {log}")
            url = match.group(0)
            _wait_until_up(url)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _wait_until_up(url: str) -> None:
    import urllib.request

    deadline = time.monotonic() + 20
    while True:
        try:
            with urllib.request.urlopen(url + "api/v1/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


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
    wait_for_result(page, "0.0026")

    # the recommended test, exact p = 0.0025768 (REFERENCES.md, T1)
    assert text(page, "#headline-p").lower().startswith("exact p = 0.0026")
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
    wait_for_result(page, "0.0026")
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
    wait_for_result(page, "0.0026")
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
    wait_for_result(page, "0.0026")
    assert page.locator("#b-error").is_hidden()
    assert page.get_attribute("#b", "aria-invalid") is None


def test_text_and_fractions_are_field_errors_too(desktop: Page, server: str) -> None:
    page = desktop.page
    page.goto(server + "?b=17&c=3")
    wait_for_result(page, "0.0026")
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
    wait_for_result(page, "0.0026")
    conclusion = text(page, "#conclusion")
    assert "candidate" in conclusion and "better" in conclusion
    # the library mapped "only A wrong" to cell c and "only B wrong" to cell b
    cells = page.locator("#table-chart svg").text_content() or ""
    assert "17" in cells and "b: only candidate right" in cells
    assert parse_qs(urlsplit(page.url).query)["framing"] == ["errors"]


def test_phone_layout(phone: Page, server: str) -> None:
    page = phone.page
    page.goto(server + "?a=157&b=17&c=3&d=23")
    wait_for_result(page, "0.0026")
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
    wait_for_result(page, "0.0026")
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
    page.click("#upload-box summary")
    page.set_input_files("#file_a", str(DATA / "malformed.csv"))
    page.set_input_files("#file_b", str(DATA / "baseline.csv"))
    page.click("#upload-submit")
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
    page.click("#upload-box summary")
    page.set_input_files("#file_a", str(big))
    page.set_input_files("#file_b", str(DATA / "baseline.csv"))
    page.click("#upload-submit")
    page.wait_for_selector("#file_a-error:not([hidden])")
    message = text(page, "#file_a-error")
    assert "big.csv" in message and f"{UPLOAD_LIMIT_MB} MB" in message


def test_every_control_is_reachable_by_keyboard(desktop: Page, server: str) -> None:
    page = desktop.page
    page.goto(server + "?b=17&c=3")
    wait_for_result(page, "0.0026")
    visited = tab_to(page, "copy-link", limit=60)
    for control in ("name_a", "name_b", "framing-passes", "a", "b", "c", "d", "alternative",
                    "confidence_level", "alpha", "copy-markdown", "download-json"):
        assert control in visited, control
    # the framing radios switch with the arrow keys, as radios do
    page.focus("#framing-passes")
    page.keyboard.press("ArrowDown")
    assert page.is_checked("#framing-errors")
    assert page.locator("#cells-errors").is_visible()
