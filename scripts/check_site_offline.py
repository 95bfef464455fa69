"""Check that the built documentation site loads nothing from another host.

Usage: ``python scripts/check_site_offline.py site``. Every HTML page is scanned for resources
the browser would fetch (``<script src>``, ``<link href>`` of stylesheets, icons, preloads and
preconnects, ``<img src>``, ``<iframe src>``, ``<source src>``) and every CSS file for
``@import`` and ``url(...)``; any of them pointing to an ``http(s)://`` or protocol-relative
address fails the check. Plain hyperlinks (``<a href>``) are allowed: following one is the
reader's choice, not something the page does by itself.
"""

from __future__ import annotations

import re
import sys
from html.parser import HTMLParser
from pathlib import Path

EXTERNAL = re.compile(r"^(?:https?:)?//", re.IGNORECASE)
CSS_URL = re.compile(r"""(?:@import\s+(?:url\()?|url\()\s*['"]?([^'")\s]+)""", re.IGNORECASE)
# <link rel=...> values that make the browser fetch or connect.
FETCHING_RELS = {"stylesheet", "icon", "preload", "preconnect", "dns-prefetch", "prefetch",
                 "modulepreload", "manifest", "apple-touch-icon", "shortcut"}


class _Loads(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag in {"script", "img", "iframe", "source", "audio", "video", "embed"}:
            urls = [a.get("src", "")]
        elif tag == "link" and FETCHING_RELS & set(a.get("rel", "").lower().split()):
            urls = [a.get("href", "")]
        else:
            urls = []
        self.found += [f"<{tag}> {u}" for u in urls if EXTERNAL.match(u)]
        if "style" in a:
            self.found += [f"<{tag} style> {u}" for u in CSS_URL.findall(a["style"])
                           if EXTERNAL.match(u)]


def external_loads(site: Path) -> list[str]:
    """Every resource under ``site`` that would be fetched from another host."""
    problems: list[str] = []
    for page in sorted(site.rglob("*.html")):
        parser = _Loads()
        parser.feed(page.read_text(encoding="utf-8"))
        problems += [f"{page.relative_to(site)}: {what}" for what in parser.found]
    for sheet in sorted(site.rglob("*.css")):
        for url in CSS_URL.findall(sheet.read_text(encoding="utf-8", errors="replace")):
            if EXTERNAL.match(url):
                problems.append(f"{sheet.relative_to(site)}: url({url})")
    return problems


def main(argv: list[str]) -> int:
    site = Path(argv[1] if len(argv) > 1 else "site")
    pages = list(site.rglob("*.html"))
    if not pages:
        print(f"check_site_offline: no HTML pages under {site}/; build the site first",
              file=sys.stderr)
        return 2
    problems = external_loads(site)
    for problem in problems:
        print(f"check_site_offline: loads from another host: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"check_site_offline: {len(pages)} pages load nothing from other hosts")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
