"""Every example in the documentation runs, and shows what it prints.

The pages are README.md and every ``docs/**/*.md`` (the site). Their fenced code blocks are
run page by page, top to bottom, in one namespace per page (like a reader working through the
page in one Python session), in a scratch directory that links the repository's ``tests/``,
``examples/`` and ``docs/`` folders, so that relative paths such as
``tests/data/io/inspect/a.eval`` work and files the examples write land in the scratch.

=============  ===============================================================================
block          what is checked
=============  ===============================================================================
``python``     runs without error; when a ``text`` block follows it directly (only blank
               lines between), that block is what it prints to stdout
``pycon``      a doctest (``>>>`` lines and their output), ELLIPSIS enabled
``console``    each ``$ mcnemar ...`` (or ``$ python -m mcnemar ...``) line runs in-process
               through click's CliRunner; the lines below it up to the next ``$`` are its
               output (stdout and stderr as a terminal shows them). A command shown without
               output is parsed against the real command line (unknown options, bad choices
               and bad values fail) but not run. ``$ mcnemar serve`` runs up to the point
               where it would start serving (its address and warnings are printed, then it
               returns as if stopped), without taking the port it names. ``$ curl ...`` is
               sent to the calculator's application in process (``mcnemar.web.app``, through
               a test client: the ``-H``, ``-d`` and ``-F`` options, ``-F name=@FILE`` for a
               file), and its output is the response's body: shown as JSON, it is compared as
               JSON, and a last line ``...`` makes it an excerpt (every key shown must be there
               with the value shown). Any other program in a console block fails the test:
               write install steps and the like as ``sh`` blocks, which are not run.
=============  ===============================================================================

Output comparison is exact after trailing spaces and surrounding blank lines are removed; an
expected output whose last line is ``...`` only has to match the lines above it.

Markers, an HTML comment on the line(s) right before a block (invisible on the site, visible
in the source, counted by :func:`test_skip_markers_are_explained`):

* ``<!-- docs-test: skip REASON -->`` does not run the block (e.g. ``mcnemar serve``).
* ``<!-- docs-test: requires MODULE -->`` runs the block only if MODULE can be imported;
  otherwise it and the rest of the page are skipped (later blocks build on it), with the
  reason shown in the test summary.
* ``<!-- docs-test: without MODULE,MODULE -->`` runs the block as if those modules were not
  installed (what a command says without an optional extra).

Run ``pytest tests/test_docs.py`` (or ``make docs-check``) after any change to the report's
wording: the failure shows the block (file and line) and a diff of the expected and actual
output. ``MCNEMAR_DOCS_UPDATE=1 pytest tests/test_docs.py`` (``make docs-update``) instead
rewrites every shown output of ``console``, ``python``/``text`` and ``pycon`` blocks with what
the code prints now (keeping a final ``...``); an example that raises is not rewritten and
still fails. Review the change with ``git diff`` before committing it.
"""

from __future__ import annotations

import contextlib
import difflib
import doctest
import importlib.util
import io
import json
import os
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import click
import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
RUN_LANGS = {"python", "pycon", "console"}
# Links in the scratch directory, so that the examples' relative paths resolve.
LINKED = ("tests", "examples", "docs")
# An upper bound on skipped blocks over all pages: raising it is a visible decision.
MAX_SKIPS = 12
UPDATE = os.environ.get("MCNEMAR_DOCS_UPDATE") == "1"

FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w+-]*)")
MARKER = re.compile(r"^<!--\s*docs-test:\s*(?P<kind>\w+)\s*(?P<arg>.*?)\s*-->\s*$")


@dataclass
class Fix:
    """Replace lines [start, end) (0-based) of a page with ``lines``."""

    start: int
    end: int
    lines: list[str]


#: Fixes collected in update mode, per page.
FIXES: dict[Path, list[Fix]] = {}


@dataclass
class Block:
    path: Path
    line: int  # 1-based line of the opening fence
    lang: str
    text: str
    marker: tuple[str, str] | None = None
    output: Block | None = None  # the text block that shows a python block's output

    @property
    def where(self) -> str:
        return f"{_page_id(self.path)}:{self.line}"


def _page_id(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def parse_blocks(path: Path) -> list[Block]:
    """Fenced blocks of a markdown file, with their markers and python outputs attached."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    marker: tuple[str, str] | None = None
    after_block = False  # only blank lines since the last block closed
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        m_marker = MARKER.match(stripped)
        m_fence = FENCE.match(stripped)
        if m_marker:
            marker = (m_marker["kind"], m_marker["arg"])
            after_block = False
        elif m_fence:
            fence, lang = m_fence["fence"], m_fence["lang"].lower()
            indent = len(lines[i]) - len(lines[i].lstrip())
            start = i
            body: list[str] = []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(fence):
                body.append(lines[i][indent:] if lines[i][:indent].isspace() else lines[i])
                i += 1
            block = Block(path, start + 1, lang, "\n".join(body) + "\n", marker)
            previous = blocks[-1] if blocks else None
            if (lang == "text" and after_block and previous is not None
                    and previous.lang == "python" and previous.output is None):
                previous.output = block
            else:
                blocks.append(block)
            marker = None
            after_block = True
        elif stripped:
            marker = None
            after_block = False
        i += 1
    return blocks


def _normalize(text: str) -> list[str]:
    out = [line.rstrip() for line in text.splitlines()]
    while out and not out[0]:
        out.pop(0)
    while out and not out[-1]:
        out.pop()
    return out


def compare_output(expected: str, actual: str, where: str,
                   fix: tuple[Path, int, int] | None = None) -> None:
    """Fail unless ``actual`` shows ``expected``; in update mode record a fix instead.

    ``fix`` is (page, first line, end line), 0-based and end-exclusive, of the shown output.
    """
    want, got = _normalize(expected), _normalize(actual)
    ellipsis = bool(want) and want[-1] == "..."
    if ellipsis:
        want = want[:-1]
        got = got[: len(want)]
    if want != got and UPDATE and fix is not None:
        page, start, end = fix
        FIXES.setdefault(page, []).append(Fix(start, end, got + (["..."] if ellipsis else [])))
        return
    if want != got:
        diff = "\n".join(difflib.unified_diff(want, got, "shown in the docs", "printed now",
                                              lineterm=""))
        pytest.fail(f"{where}: the output shown differs from what the code prints:\n{diff}",
                    pytrace=False)


# ----------------------------------------------------------------------------- runners


def run_python(block: Block, namespace: dict[str, Any]) -> None:
    buffer = io.StringIO()
    code = compile(block.text, block.where, "exec")
    with contextlib.redirect_stdout(buffer):
        exec(code, namespace)
    if block.output is not None:
        out = block.output
        span = (out.path, out.line, out.line + len(out.text.splitlines()))
        compare_output(out.text, buffer.getvalue(), out.where, span)


class _Runner(doctest.DocTestRunner):
    """A doctest runner that also records what each failing example printed."""

    def __init__(self) -> None:
        super().__init__(optionflags=doctest.ELLIPSIS)
        self.got: list[tuple[doctest.Example, str]] = []

    def report_failure(self, out: Any, test: doctest.DocTest, example: doctest.Example,
                       got: str) -> None:
        self.got.append((example, got))
        super().report_failure(out, test, example, got)


def run_pycon(block: Block, namespace: dict[str, Any]) -> None:
    test = doctest.DocTestParser().get_doctest(block.text, namespace, block.where,
                                               str(block.path), block.line)
    runner = _Runner()
    report: list[str] = []
    runner.run(test, out=report.append, clear_globs=False)
    namespace.update(test.globs)  # DocTest ran on a copy of the namespace
    if UPDATE and runner.got and len(runner.got) == runner.failures:
        for example, got in runner.got:
            # the expected output follows the example's source lines in the block body
            start = block.line + example.lineno + example.source.count("\n")
            end = start + example.want.count("\n")
            indent = " " * example.indent
            lines = [indent + line if line else line for line in got.splitlines()]
            FIXES.setdefault(block.path, []).append(Fix(start, end, lines))
        return
    if runner.failures:
        pytest.fail(f"{block.where}: doctest failed:\n" + "".join(report), pytrace=False)


@dataclass
class Command:
    line: int  # 1-based line of the command in the page
    text: str
    output: list[str]
    output_start: int  # 0-based page line where the shown output starts

    @property
    def shown(self) -> str:
        return "\n".join(self.output)


def console_commands(block: Block) -> list[Command]:
    """The ``$`` commands of a console block, each with the output shown below it."""
    commands: list[Command] = []
    continuing = False
    for offset, line in enumerate(block.text.splitlines(), start=1):
        page_line = block.line + offset  # 1-based
        if continuing and commands:
            commands[-1].text += " " + line.strip()
            commands[-1].output_start = page_line
        elif line.startswith("$ "):
            commands.append(Command(page_line, line[2:].strip(), [], page_line))
        elif commands:
            commands[-1].output.append(line)
        else:
            pytest.fail(f"{block.where}: console block does not start with a '$ ' command",
                        pytrace=False)
        continuing = line.rstrip().endswith("\\")
        if continuing:
            commands[-1].text = commands[-1].text.rstrip()[:-1].rstrip()
    return commands


def mcnemar_args(command: str, where: str) -> list[str]:
    tokens = shlex.split(command, comments=True)
    if tokens[:1] == ["curl"]:
        return tokens
    if tokens[:1] == ["mcnemar"]:
        return tokens[1:]
    if tokens[:3] in (["python", "-m", "mcnemar"], ["python3", "-m", "mcnemar"]):
        return tokens[3:]
    pytest.fail(
        f"{where}: `{command}` is not an mcnemar command; show it in an ```sh block "
        "(not run) or mark the block <!-- docs-test: skip REASON -->",
        pytrace=False,
    )


def check_parses(args: list[str], where: str) -> None:
    """Parse a command line against the real CLI without running it."""
    from mcnemar.cli import main

    if not args or args[0].startswith("-"):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, f"{where}: {result.output}"
        return
    group_ctx = click.Context(main, info_name="mcnemar")
    command = main.get_command(group_ctx, args[0])
    if command is None:
        pytest.fail(f"{where}: no such command: mcnemar {args[0]}", pytrace=False)
    try:
        with command.make_context(args[0], list(args[1:]), parent=group_ctx):
            pass
    except click.exceptions.Exit:
        pass  # --help, --version
    except click.ClickException as exc:
        pytest.fail(f"{where}: mcnemar {shlex.join(args)}: {exc.format_message()}",
                    pytrace=False)


def run_console(block: Block) -> None:
    from mcnemar.cli import main

    for command in console_commands(block):
        where = f"{_page_id(block.path)}:{command.line}"
        args = mcnemar_args(command.text, where)
        end = command.output_start + len(command.output)
        fix = (block.path, command.output_start, end)
        if args[:1] == ["curl"]:
            compare_response(command.shown, run_curl(args[1:], where), where, fix)
            continue
        if not command.shown.strip():
            check_parses(args, where)
            continue
        with _without(block), _served_until_stopped(args):
            result = CliRunner().invoke(main, args)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        compare_output(command.shown, result.output, where, fix)


@contextlib.contextmanager
def _without(block: Block) -> Iterator[None]:
    """The block's ``docs-test: without MODULE,...`` marker: those modules look uninstalled."""
    if block.marker is None or block.marker[0] != "without":
        yield
        return
    hidden = {m.strip() for m in block.marker[1].replace(",", " ").split()}
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any, **kwargs: Any) -> Any:
        return None if name.split(".")[0] in hidden else real(name, *args, **kwargs)

    with mock.patch("importlib.util.find_spec", find_spec):
        yield


class _Address:
    """A stand-in for the listening socket of ``mcnemar serve``: the address asked for,
    without taking the port (the docs' port 8000 may be in use where the tests run)."""

    def __init__(self, host: str, port: int) -> None:
        self.address = (host, port or 8000)

    def getsockname(self) -> tuple[str, int]:
        return self.address

    def close(self) -> None:
        pass


@contextlib.contextmanager
def _served_until_stopped(args: list[str]) -> Iterator[None]:
    """``mcnemar serve``: everything it does before serving, then it returns as if stopped."""
    if args[:1] != ["serve"]:
        yield
        return
    import uvicorn

    with mock.patch("mcnemar.cli.serve._bind", _Address), \
            mock.patch.object(uvicorn.Server, "run", lambda self, sockets=None: None):
        yield


#: The address the pages' curl examples use: the calculator's default.
SERVER = "http://127.0.0.1:8000"


def run_curl(args: list[str], where: str) -> str:
    """A ``curl`` command line sent to the calculator's application in process; the body."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # starlette's test client warns about its backend
        from fastapi.testclient import TestClient

    from mcnemar.web.app import create_app

    headers: dict[str, str] = {}
    data: str | None = None
    form: dict[str, str] = {}
    files: dict[str, tuple[str, bytes]] = {}
    url = None
    items = iter(args)
    for arg in items:
        if arg in ("-s", "--silent"):
            continue
        if arg in ("-H", "--header"):
            name, _, value = next(items).partition(":")
            headers[name.strip()] = value.strip()
        elif arg in ("-d", "--data"):
            data = next(items)
        elif arg in ("-F", "--form"):
            name, _, value = next(items).partition("=")
            if value.startswith("@"):
                path = Path(value[1:])
                files[name] = (path.name, path.read_bytes())
            else:
                form[name] = value
        elif arg.startswith(SERVER):
            url = arg[len(SERVER):]
        else:
            pytest.fail(f"{where}: curl {arg!r} is not an option the docs test knows, or the "
                        f"address is not {SERVER}", pytrace=False)
    if url is None:
        pytest.fail(f"{where}: curl without an address of {SERVER}", pytrace=False)
    client = TestClient(create_app(), base_url=SERVER)
    if data is not None:
        response = client.post(url, content=data.encode(), headers=headers)
    elif files or form:
        response = client.post(url, files=files or None, data=form, headers=headers)
    else:
        response = client.get(url, headers=headers)
    return str(response.text)


def _contains(shown: Any, got: Any) -> bool:
    """Every key of ``shown`` is in ``got`` with the value shown (dicts recursively)."""
    if isinstance(shown, dict):
        return isinstance(got, dict) and all(k in got and _contains(v, got[k])
                                             for k, v in shown.items())
    return bool(shown == got)


def compare_response(expected: str, body: str, where: str,
                     fix: tuple[Path, int, int] | None = None) -> None:
    """A response body against the output shown: as JSON when it is JSON (an excerpt when
    the last line is ``...``), else as text."""
    lines = _normalize(expected)
    excerpt = bool(lines) and lines[-1] == "..."
    shown_text = "\n".join(lines[:-1] if excerpt else lines)
    try:
        shown = json.loads(shown_text)
    except ValueError:
        compare_output(expected, body, where, fix)
        return
    got = json.loads(body)
    if (excerpt and _contains(shown, got)) or (not excerpt and shown == got):
        return
    if UPDATE and fix is not None and not excerpt:
        page, start, end = fix
        FIXES.setdefault(page, []).append(Fix(start, end, json.dumps(got, indent=2).splitlines()))
        return
    pytest.fail(f"{where}: the response shown differs from what the server answers:\n"
                f"shown:  {json.dumps(shown, ensure_ascii=False)}\n"
                f"answer: {body[:2000]}", pytrace=False)


# ----------------------------------------------------------------------------- tests


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in LINKED:
        (tmp_path / name).symlink_to(ROOT / name, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("MCNEMAR_DEBUG", "1")  # a bug in an example shows its traceback
    monkeypatch.delenv("COLUMNS", raising=False)
    return tmp_path


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_page_examples_run(page: Path, scratch: Path) -> None:
    try:
        run_page(page)
    finally:
        apply_fixes(page)


def run_page(page: Path) -> None:
    namespace: dict[str, Any] = {"__name__": "__docs__"}
    skipped: list[str] = []
    for block in parse_blocks(page):
        if block.lang not in RUN_LANGS:
            continue
        if block.marker is not None:
            kind, arg = block.marker
            if kind == "skip":
                skipped.append(f"{block.where} ({arg})")
                continue
            if kind == "requires":
                if importlib.util.find_spec(arg) is None:
                    pytest.skip(f"{block.where} and the rest of the page need {arg}, "
                                "which is not installed")
            elif kind == "without":
                if block.lang != "console":
                    pytest.fail(f"{block.where}: docs-test: without applies to console "
                                "blocks", pytrace=False)
            else:
                pytest.fail(f"{block.where}: unknown marker docs-test: {kind}", pytrace=False)
        if block.lang == "python":
            run_python(block, namespace)
        elif block.lang == "pycon":
            run_pycon(block, namespace)
        else:
            run_console(block)
    if skipped:
        print(f"{_page_id(page)}: {len(skipped)} block(s) not run: " + "; ".join(skipped))


def apply_fixes(page: Path) -> None:
    """Update mode: write the outputs recorded for ``page`` into it (bottom up)."""
    fixes = FIXES.pop(page, [])
    if not fixes:
        return
    lines = page.read_text(encoding="utf-8").splitlines()
    for fix in sorted(fixes, key=lambda f: f.start, reverse=True):
        lines[fix.start:fix.end] = fix.lines
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{_page_id(page)}: updated {len(fixes)} shown output(s)")


def _skipped_blocks() -> list[tuple[str, str]]:
    return [(b.where, b.marker[1]) for page in PAGES for b in parse_blocks(page)
            if b.marker is not None and b.marker[0] == "skip"]


@pytest.mark.parametrize(("where", "reason"), _skipped_blocks())
def test_block_not_run(where: str, reason: str) -> None:
    """One skipped test per block marked ``docs-test: skip``, so that the summary counts them."""
    pytest.skip(f"{where} is not run: {reason}")


def test_skip_markers_are_explained() -> None:
    markers = [(b.where, b.marker) for page in PAGES for b in parse_blocks(page)
               if b.marker is not None]
    for where, (kind, arg) in markers:
        assert kind in {"skip", "requires", "without"}, f"{where}: unknown marker {kind!r}"
        assert arg, f"{where}: a docs-test: {kind} marker needs a reason or a module"
    skips = [where for where, (kind, _) in markers if kind == "skip"]
    assert len(skips) <= MAX_SKIPS, f"{len(skips)} skipped blocks (at most {MAX_SKIPS}): {skips}"


def test_every_page_has_runnable_examples_or_none_hidden() -> None:
    # A block whose language is misspelt (```Python3, ```shell-session) would silently escape
    # the runner; only these languages are allowed for code in the pages.
    allowed = RUN_LANGS | {"text", "sh", "json", "jsonc", "yaml", "toml", "csv", "html", ""}
    for page in PAGES:
        for block in parse_blocks(page):
            assert block.lang in allowed, f"{block.where}: code block language {block.lang!r}"


# ----------------------------------------------------------------------------- the runner


def test_parser_attaches_output_and_markers(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text(
        "text\n\n```python\nprint(1)\n```\n\n```text\n1\n```\n\n"
        "<!-- docs-test: skip needs a server -->\n```console\n$ mcnemar serve\n```\n"
        "```text\nnot output: no python block before it\n```\n"
    )
    blocks = parse_blocks(page)
    assert [b.lang for b in blocks] == ["python", "console", "text"]
    assert blocks[0].output is not None and blocks[0].output.text == "1\n"
    assert blocks[1].marker == ("skip", "needs a server")
    assert blocks[2].marker is None


def test_comparison_fails_on_a_changed_number(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(globals(), "UPDATE", False)  # also under MCNEMAR_DOCS_UPDATE=1
    compare_output("p = 0.0026\n...\n", "p = 0.0026\nmore\n", "x")
    with pytest.raises(pytest.fail.Exception, match="differs"):
        compare_output("p = 0.0026\n", "p = 0.0027\n", "x")


def test_console_runner_catches_a_wrong_flag_and_a_wrong_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(globals(), "UPDATE", False)  # also under MCNEMAR_DOCS_UPDATE=1
    bad_flag = Block(tmp_path / "x.md", 1, "console", "$ mcnemar test --b 17 --cc 3\n")
    with pytest.raises(pytest.fail.Exception, match="No such option"):
        run_console(bad_flag)
    wrong = Block(tmp_path / "x.md", 1, "console",
                  "$ mcnemar power --p10 0.06 --p01 0.04\nSample size: n = 1 item\n")
    with pytest.raises(pytest.fail.Exception, match="differs"):
        run_console(wrong)
    other = Block(tmp_path / "x.md", 1, "console", "$ pip install mcnemar\n")
    with pytest.raises(pytest.fail.Exception, match="not an mcnemar command"):
        run_console(other)


def test_server_blocks_run_against_the_app_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``curl`` is answered by the application itself, ``mcnemar serve`` prints what it prints
    before serving; a wrong answer or a wrong banner fails."""
    monkeypatch.setitem(globals(), "UPDATE", False)  # also under MCNEMAR_DOCS_UPDATE=1
    curl = ("$ curl -s http://127.0.0.1:8000/api/v1/analyze -H 'content-type: "
            "application/json' -d '{\"b\": -1, \"c\": 3}'\n")
    error = '{"error": {"status": 422, "field": "b"}}\n...\n'
    run_console(Block(tmp_path / "x.md", 1, "console", curl + error))
    with pytest.raises(pytest.fail.Exception, match="differs from what the server answers"):
        run_console(Block(tmp_path / "x.md", 1, "console",
                          curl + '{"error": {"status": 422, "type": "count_negative"}}\n...\n'))
    with pytest.raises(pytest.fail.Exception, match="differs from what the server answers"):
        run_console(Block(tmp_path / "x.md", 1, "console", curl + error.replace("...\n", "")))
    banner = "mcnemar calculator: http://127.0.0.1:8123/  (press Ctrl+C to stop)\n"
    run_console(Block(tmp_path / "x.md", 1, "console", "$ mcnemar serve --port 8123\n" + banner))
    with pytest.raises(pytest.fail.Exception, match="differs"):
        run_console(Block(tmp_path / "x.md", 1, "console",
                          "$ mcnemar serve --port 8124\n" + banner))
    missing = Block(tmp_path / "x.md", 1, "console", "$ mcnemar serve\n"
                    "mcnemar: error: the web calculator needs uvicorn, which is not installed\n",
                    marker=("without", "uvicorn"))
    with pytest.raises(pytest.fail.Exception, match="needs uvicorn, which are not installed"):
        run_console(missing)


def test_offline_check_flags_resources_from_other_hosts(tmp_path: Path) -> None:
    import importlib.util as iu

    spec = iu.spec_from_file_location("check_site_offline",
                                      ROOT / "scripts" / "check_site_offline.py")
    assert spec is not None and spec.loader is not None
    checker = iu.module_from_spec(spec)
    spec.loader.exec_module(checker)
    (tmp_path / "ok.html").write_text(
        '<a href="https://example.org/">a link</a><script src="assets/app.js"></script>')
    assert checker.external_loads(tmp_path) == []
    (tmp_path / "bad.html").write_text(
        '<link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto">'
        '<script src="//cdn.example.org/x.js"></script>')
    (tmp_path / "bad.css").write_text('@import url("https://fonts.example.org/f.css");')
    assert len(checker.external_loads(tmp_path)) == 3


def test_update_mode_rewrites_shown_outputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = tmp_path / "p.md"
    page.write_text(
        "# t\n\n```console\n$ mcnemar power --mde --n 500 --discordance 0.12\nold words\n"
        "$ mcnemar test --b 17 --c 3\nMcNemar analysis: A vs B\nold line\n...\n```\n\n"
        "```python\nprint(1 + 1)\n```\n\n```text\n3\n```\n\n"
        "```pycon\n>>> x = 2\n>>> for i in range(2):\n...     print(x + i)\n5\n6\n"
        ">>> x\n2\n```\n"
    )
    monkeypatch.setitem(globals(), "UPDATE", True)
    blocks = parse_blocks(page)
    run_console(blocks[0])
    run_python(blocks[1], {})
    run_pycon(blocks[2], {})
    apply_fixes(page)
    fixed = page.read_text()
    assert "old words" not in fixed and "has 80% power to detect" in fixed
    # as many lines as were shown before the "...", then the "..." kept
    assert "$ mcnemar test --b 17 --c 3\nMcNemar analysis: A vs B\n\n...\n```" in fixed
    assert fixed.count("...") == 2 and "```text\n2\n```" in fixed
    assert "...     print(x + i)\n2\n3\n>>> x\n2\n```" in fixed
    monkeypatch.setitem(globals(), "UPDATE", False)
    run_console(parse_blocks(page)[0])  # the rewritten page now passes
    run_python(parse_blocks(page)[1], {})
    run_pycon(parse_blocks(page)[2], {})


# ----------------------------------------------------------------------------- references

REFERENCES_PAGE = DOCS / "references.md"
_REF_SECTION = re.compile(r"^[ \t]*References\n[ \t]*-{5,}\n(?P<body>.*?)(?=\n[ \t]*\n[ \t]*"
                          r"[A-Z][a-z]+\n[ \t]*-{5,}|\"\"\"|\Z)", re.S | re.M)
_YEAR = re.compile(r"\((?P<year>(?:19|20)\d\d)[a-z]?\)")
_SURNAME = re.compile(r"[A-ZÀ-Ý][a-zà-ÿ'-]{2,}")


def cited_references() -> set[tuple[str, str]]:
    """(surname, year) of every entry of the References sections in src/mcnemar docstrings.

    The surname is the last capitalised word before the entry's parenthesised year, i.e. one
    of its authors (initials and short particles are skipped).
    """
    cited: set[tuple[str, str]] = set()
    for module in sorted((ROOT / "src" / "mcnemar").rglob("*.py")):
        for section in _REF_SECTION.finditer(module.read_text(encoding="utf-8")):
            body = section["body"]
            for year in _YEAR.finditer(body):
                names = _SURNAME.findall(body[max(0, year.start() - 80):year.start()])
                if names:
                    cited.add((names[-1], year["year"]))
    return cited


def test_every_cited_reference_is_on_the_references_page() -> None:
    cited = cited_references()
    assert len(cited) >= 30, "the References sections were not found in the docstrings"
    text = REFERENCES_PAGE.read_text(encoding="utf-8")
    # one entry per list item or table row (a list item may wrap onto following lines)
    entries = re.split(r"\n(?=- |\| )", text)
    missing = sorted((name, year) for name, year in cited
                     if not any(name in entry and year in entry for entry in entries))
    assert not missing, f"cited in src/mcnemar but not listed in docs/references.md: {missing}"


# ----------------------------------------------------------------------------- site structure


def test_exit_code_table_matches_the_cli() -> None:
    from mcnemar.cli._common import ExitCode

    text = (DOCS / "reference" / "cli.md").read_text(encoding="utf-8")
    section = text.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    shown = {int(m) for m in re.findall(r"^\| (\d+) \|", section, re.M)}
    assert shown == {int(code) for code in ExitCode}


def test_navigation_lists_every_page() -> None:
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))

    def files(node: Any) -> list[str]:
        if isinstance(node, str):
            return [node]
        if isinstance(node, list):
            return [f for item in node for f in files(item)]
        if isinstance(node, dict):
            return [f for value in node.values() for f in files(value)]
        return []

    in_nav = files(config["nav"])
    pages = sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md"))
    assert sorted(set(in_nav)) == pages, "mkdocs.yml nav and docs/*.md differ"
    assert len(in_nav) == len(set(in_nav)), "a page is listed twice in the nav"
    assert config["theme"]["font"] is False, "web fonts would be fetched from another host"


def test_cli_page_lists_every_command() -> None:
    from mcnemar.cli import _COMMANDS

    text = (DOCS / "reference" / "cli.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `mcnemar (\w+)` \|", text, re.M))
    assert listed == set(_COMMANDS), "docs/reference/cli.md: the command table is out of date"


# ----------------------------------------------------------------------------- the command line
#
# The CLI reference (docs/reference/cli.md) is generated by mkdocs-click from the commands'
# click definitions, so what makes it complete is that every command has a docstring, every
# option a help text and every argument a place in its command's help; the tests below check
# that on the real command tree, render the reference the way the site does and look for every
# command and option in it, and check that the hand-written pages show every command.


def _cli_commands() -> list[tuple[str, click.Command]]:
    """(path, command) for the group and every command under it, as ``mcnemar --help`` lists."""
    from mcnemar.cli import main

    found: list[tuple[str, click.Command]] = []

    def walk(path: str, command: click.Command, parent: click.Context | None) -> None:
        found.append((path, command))
        if isinstance(command, click.Group):
            ctx = click.Context(command, info_name=path.split()[-1], parent=parent)
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                assert sub is not None, f"{path} lists {name} but cannot load it"
                walk(f"{path} {name}", sub, ctx)

    walk("mcnemar", main, None)
    return found


def _options(command: click.Command) -> list[click.Option]:
    return [p for p in command.params if isinstance(p, click.Option) and not p.hidden]


def _flag(option: click.Option) -> str:
    """The primary long flag (``--progress`` of ``--progress/--no-progress``)."""
    longs = [o for o in option.opts if o.startswith("--")]
    return longs[0] if longs else option.opts[0]


def test_the_command_tree_is_walked() -> None:
    from mcnemar.cli import _COMMANDS

    paths = [path for path, _ in _cli_commands()]
    assert paths == ["mcnemar", *(f"mcnemar {name}" for name in _COMMANDS)]
    assert sum(len(_options(c)) for _, c in _cli_commands()) > 60


def test_every_command_option_and_argument_is_described() -> None:
    problems = []
    for path, command in _cli_commands():
        text = (command.help or "").strip()
        if not text:
            problems.append(f"{path}: no docstring (help)")
        for option in _options(command):
            if not (option.help or "").strip():
                problems.append(f"{path} {_flag(option)}: no help text")
        for argument in (p for p in command.params if isinstance(p, click.Argument)):
            # click arguments have no help of their own: the command's help names each
            names = (argument.metavar or argument.make_metavar(click.Context(command))).split()
            for name in (n.strip("[].") for n in names):
                if name not in text:
                    problems.append(f"{path}: the help does not say what {name} is")
    assert problems == []


def _reference_directive() -> dict[str, str]:
    text = (DOCS / "reference" / "cli.md").read_text(encoding="utf-8")
    block = text.split("::: mkdocs-click", 1)[1].split("\n\n", 1)[0]
    return dict(re.findall(r"^\s+:(\w+):\s*(.+?)\s*$", block, re.M))


def test_the_cli_reference_shows_every_command_and_option() -> None:
    """Render docs/reference/cli.md as the site does; every command and option is in it."""
    markdown = pytest.importorskip("markdown")
    pytest.importorskip("mkdocs_click")
    directive = _reference_directive()
    assert directive["module"] == "mcnemar.cli" and directive["command"] == "main"
    html = markdown.markdown((DOCS / "reference" / "cli.md").read_text(encoding="utf-8"),
                             extensions=["mkdocs-click"])
    # one section per command (titled with its name), from its heading to the next
    sections = re.split(r"<h\d[^>]*>", html)
    for path, command in _cli_commands():
        name = path.split()[-1]
        mine = [s for s in sections if s.startswith(name + "</h")]
        assert len(mine) == 1, f"the CLI reference has no section for {path}"
        section = mine[0]
        for option in _options(command):
            assert _flag(option) in section, f"{path} {_flag(option)} is not in the reference"
        first_line = (command.help or "").strip().splitlines()[0]
        assert first_line.split(" (")[0][:40] in section, f"{path}: help not rendered"


def test_the_hand_written_pages_show_every_command() -> None:
    """Every command appears (``mcnemar NAME``) in a page besides the generated reference, and
    the guide that the reference's command table links shows it."""
    from mcnemar.cli import _COMMANDS

    reference = DOCS / "reference" / "cli.md"
    pages = {p: p.read_text(encoding="utf-8") for p in PAGES if p != reference}
    table = reference.read_text(encoding="utf-8")
    for name in _COMMANDS:
        shown = [p for p, text in pages.items() if re.search(rf"\bmcnemar {name}\b", text)]
        assert shown, f"no page besides the reference shows `mcnemar {name}`"
        row = re.search(rf"^\| `mcnemar {name}` \|.*\]\((?P<link>[^)#]+)", table, re.M)
        assert row is not None, f"the reference's table links no guide for {name}"
        guide = (reference.parent / row["link"]).resolve()
        assert guide in pages, f"{name}: the linked guide {row['link']} is not a page"
        assert f"mcnemar {name}" in pages[guide], f"{guide.name} does not show mcnemar {name}"
