"""Make the figures of the documentation under ``docs/img/``, so that none is pasted by hand.

Usage: ``python scripts/make_docs_figures.py [web] [pairwise] [tasks]`` (all by default), or
``make docs-figures``.

``web``
    Screenshots of the web calculator, taken the way ``tests/test_web_browser.py`` drives it:
    the real server (``python -m mcnemar serve --port 0``) on 127.0.0.1 and Debian's Chromium
    (``/usr/bin/chromium``) through Playwright, every request outside the server refused.

    * ``web-calculator.png``: the 200-item example (a, b, c, d) = (157, 17, 3, 23) at desktop
      width (1280 x 900), the first screen;
    * ``web-calculator-full.png``: the same page in full (tests, intervals, charts, report);
    * ``web-null-distribution.png``, ``web-intervals.png``: two of its cards, the null
      distribution Bin(D, 1/2) with the observed split, and the intervals for the difference;
    * ``web-calculator-phone.png``: the first screen at phone width (390 x 844);
    * ``web-upload.png``: two result files dropped on the page, with the alignment.

``pairwise``
    The heatmap and forest plot of ``docs/pairwise.md``, made by running that page's own code
    blocks (six scikit-learn classifiers on the digits data), so the figures are what its code
    draws. Needs scikit-learn (``pip install '.[examples]'``) and matplotlib.

``tasks``
    The forest plot of ``docs/tasks.md`` (``tasks-forest.png``), made by running that page's
    own code blocks. Needs matplotlib.

Needs the ``web``, ``plot`` and ``test`` extras (Playwright) and Chromium
(``scripts/install-browser.sh``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from mcnemar.web._process import served

ROOT = Path(__file__).resolve().parents[1]
IMG = ROOT / "docs" / "img"
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
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
EXAMPLE = "?a=157&b=17&c=3&d=23&name_a=candidate&name_b=baseline"
WEB_DATA = ROOT / "tests" / "data" / "web"
# The page records on #report which query its result belongs to; it has settled when that is
# the query in the address bar (as in tests/test_web_browser.py).
SETTLED = (
    "() => document.getElementById('report').dataset.query === "
    "location.search.replace(/^[?]/, '') && "
    "!document.getElementById('results').classList.contains('stale')"
)


#: Requests the pages made to anywhere but the local server (refused, and an error).
FOREIGN: list[str] = []


def _page(browser: Any, origin: str, viewport: dict[str, int], **kw: Any) -> Any:
    page = browser.new_context(viewport=viewport, **kw).new_page()
    page.set_default_timeout(15_000)

    def guard(route: Any) -> None:
        url = route.request.url
        if url.startswith(origin) or url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            FOREIGN.append(url)
            route.abort()

    page.route("**/*", guard)
    return page


def _shot(page: Any, name: str, **kw: Any) -> None:
    if FOREIGN:
        raise SystemExit(f"make_docs_figures: the page asked for other hosts: {FOREIGN}")
    page.screenshot(path=str(IMG / name), **kw)
    print(f"wrote docs/img/{name}")


def web_figures() -> None:
    if not CHROMIUM.exists():
        raise SystemExit("make_docs_figures: /usr/bin/chromium is missing; run "
                         "scripts/install-browser.sh")
    from playwright.sync_api import sync_playwright

    with served() as running, sync_playwright() as pw:
        url = running.url
        origin = url.rstrip("/")
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = _page(browser, origin, DESKTOP)
            page.goto(url + EXAMPLE)
            page.wait_for_function(SETTLED)
            _shot(page, "web-calculator.png")
            _shot(page, "web-calculator-full.png", full_page=True)
            # two cards of the page, for the guide: the null distribution and the intervals
            for card, name in (("#dist-chart", "web-null-distribution.png"),
                               ("#ci-chart", "web-intervals.png")):
                section = page.locator(f"section.card:has({card})")
                section.scroll_into_view_if_needed()
                if FOREIGN:
                    raise SystemExit(f"make_docs_figures: the page asked for other hosts: "
                                     f"{FOREIGN}")
                section.screenshot(path=str(IMG / name))
                print(f"wrote docs/img/{name}")

            phone = _page(browser, origin, PHONE, is_mobile=True, has_touch=True,
                          device_scale_factor=2)
            phone.goto(url + EXAMPLE)
            phone.wait_for_function(SETTLED)
            _shot(phone, "web-calculator-phone.png")

            upload = _page(browser, origin, DESKTOP)
            upload.goto(url)
            upload.click("#upload-box summary")
            upload.set_input_files("#file_a", str(WEB_DATA / "candidate.csv"))
            upload.set_input_files("#file_b", str(WEB_DATA / "baseline.csv"))
            upload.click("#upload-submit")
            upload.wait_for_selector("#alignment-card:not([hidden])")
            upload.wait_for_function(SETTLED)
            upload.locator("#upload-box").scroll_into_view_if_needed()
            _shot(upload, "web-upload.png")
        finally:
            browser.close()


def pairwise_figures() -> None:
    """Run the code blocks of docs/pairwise.md; keep the two plots they draw."""
    _page_figures("pairwise.md", {"heat.png": "pairwise-heatmap.png",
                                  "forest.png": "pairwise-forest.png"})


def tasks_figures() -> None:
    """Run the code blocks of docs/tasks.md; keep the forest plot they draw."""
    _page_figures("tasks.md", {"tasks-forest.png": "tasks-forest.png"})


def _page_figures(name: str, drawn: dict[str, str]) -> None:
    """Run the python blocks of docs/NAME in a scratch folder; copy the files they draw."""
    sys.path.insert(0, str(ROOT / "tests"))
    from test_docs import parse_blocks

    os.environ.setdefault("MPLBACKEND", "Agg")
    page = ROOT / "docs" / name
    namespace: dict[str, Any] = {"__name__": "__docs__"}
    with tempfile.TemporaryDirectory() as scratch:
        here = Path.cwd()
        os.chdir(scratch)
        for linked in ("tests", "examples", "docs"):
            with contextlib.suppress(OSError):
                os.symlink(ROOT / linked, Path(scratch) / linked)
        try:
            for block in parse_blocks(page):
                if block.lang == "python":
                    with contextlib.redirect_stdout(None):
                        exec(compile(block.text, block.where, "exec"), namespace)
            for made, target in drawn.items():
                if not Path(made).exists():
                    raise SystemExit(f"make_docs_figures: docs/{name} no longer draws "
                                     f"{made}; update {Path(__file__).name}")
                shutil.copyfile(made, IMG / target)
                print(f"wrote docs/img/{target}")
        finally:
            os.chdir(here)


def main(argv: list[str]) -> int:
    wanted = argv[1:] or ["web", "pairwise", "tasks"]
    unknown = set(wanted) - {"web", "pairwise", "tasks"}
    if unknown:
        print(f"make_docs_figures: unknown figure set(s) {sorted(unknown)}; "
              "choose web, pairwise, tasks", file=sys.stderr)
        return 2
    IMG.mkdir(parents=True, exist_ok=True)
    if "web" in wanted:
        web_figures()
    if "pairwise" in wanted:
        pairwise_figures()
    if "tasks" in wanted:
        tasks_figures()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
