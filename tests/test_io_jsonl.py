"""The JSONL record iterator (``mcnemar.io._run.iter_json_records``) against ``json.loads``.

The iterator parses whole blocks of lines and hands over to a line-by-line reader at the
first line that is not plain UTF-8 JSON. Whatever the lines and wherever the blocks end, it
must give what the definition gives: ``json.loads`` of each non-blank line's bytes, in order,
with the same error (message and line number) at the same place. The definition is written
out here independently (:func:`_by_definition`) and compared on generated files: objects with
tricky strings (escaped quotes, backslashes, braces and ``"key": value`` text inside strings,
non-ASCII, line and paragraph separators, escaped surrogates), blank lines of every ASCII
whitespace, CRLF endings, byte-order marks, NUL bytes, invalid and surrogate UTF-8, truncated
lines, non-objects, two documents on one line, ``NaN`` literals; with block sizes from one
byte up, so that blocks end everywhere.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcnemar.errors import InputFileError
from mcnemar.io import _run
from mcnemar.io._run import iter_json_records


def _by_definition(path: Path, what: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """``json.loads`` of each non-blank line's bytes (newline included, as a binary file's
    lines come); errors name the line (the rules)."""
    data = path.read_bytes()
    lines = [line + b"\n" for line in data.split(b"\n")]
    lines[-1] = lines[-1][:-1]  # the text after the last newline has none
    if not lines[-1]:
        lines.pop()
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InputFileError(
                f"line is not valid JSON ({exc.msg} at column {exc.colno}); a JSONL file needs "
                "one complete JSON object per line", path=str(path), line=number) from None
        except UnicodeDecodeError:
            raise InputFileError(
                "line is not valid JSON (not UTF-8 text); a JSONL file needs one complete "
                "JSON object per line", path=str(path), line=number) from None
        if not isinstance(obj, dict):
            raise InputFileError(
                f"expected a JSON object ({what}), found {type(obj).__name__} "
                f"{_run._short(obj)}", path=str(path), line=number)
        yield number, obj


def _outcome(records: Iterator[tuple[int, dict[str, Any]]]) -> tuple[list[Any], Any]:
    """Records yielded (as JSON text, so that NaN compares equal) and the error, if any."""
    out: list[Any] = []
    try:
        for number, record in records:
            out.append((number, json.dumps(record)))
    except InputFileError as exc:
        return out, (str(exc), exc.line)
    return out, None


TRICKY = st.sampled_from([
    '"', '\\', '\\"', '{', '}', '[', ']', ',', ':', '"doc_id": 7', '{"acc": 0}', "\n",
    "\r", "\t", "\x0b", "\x0c", "\u2028", "\u2029", "\x85", "\xa0", "é", "漢", "😀",
    "\ufeff", " ", "NaN",
])
TEXT = st.lists(st.one_of(TRICKY, st.text(max_size=4)), max_size=6).map("".join)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(10**30), 10**30),
                    st.floats(allow_nan=True, allow_infinity=True), TEXT)
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(TEXT, inner, max_size=3)), max_leaves=8)
OBJECTS = st.dictionaries(st.one_of(TEXT, st.sampled_from(["doc_id", "filter", "acc"])),
                          VALUES, max_size=5)


@st.composite
def lines(draw: Any) -> bytes:
    """One line's bytes (no newline): mostly objects, sometimes damaged or odd."""
    obj = draw(OBJECTS)
    text = json.dumps(obj, ensure_ascii=draw(st.booleans()))
    kind = draw(st.sampled_from(
        ["plain"] * 6 + ["spaces", "blank", "truncated", "insert", "bom", "nul", "latin1",
                         "surrogate", "not_object", "two", "escaped_surrogate", "crlf_inside"]))
    raw = text.encode("utf-8")
    if kind == "spaces":
        raw = draw(st.sampled_from([b" ", b"\t", b"\r", b"\x0b", b"\x0c", b""])) + raw + \
            draw(st.sampled_from([b" ", b"\t", b"\r", b"\x0b", b"\x0c", b"\r\r", b""]))
    elif kind == "blank":
        # bytes.strip() removes ASCII whitespace only: \x1c and non-ASCII spaces are text
        raw = draw(st.lists(st.sampled_from([b" ", b"\t", b"\r", b"\x0b", b"\x0c", b"\x1c",
                                             b"\xc2\xa0", b"\xc2\x85", b"\xe2\x80\xa8"]),
                            max_size=3).map(b"".join))
    elif kind == "truncated":
        raw = raw[: draw(st.integers(0, max(len(raw) - 1, 0)))]
    elif kind == "insert":
        at = draw(st.integers(0, len(raw)))
        raw = raw[:at] + draw(st.sampled_from([b'"', b"\\", b"{", b"}", b",", b":", b"x",
                                               b"\xff", b"\x00", b"\x1f"])) + raw[at:]
    elif kind == "bom":
        raw = b"\xef\xbb\xbf" + raw
    elif kind == "nul":
        raw = raw.replace(b"{", b"{\x00", 1) if draw(st.booleans()) else b"\x00" + raw
    elif kind == "latin1":
        raw = json.dumps({"q": "café"}, ensure_ascii=False).encode("latin-1")
    elif kind == "surrogate":
        raw = b'{"q": "\xed\xa0\x80"}'  # a surrogate in UTF-8: json.loads lets it pass
    elif kind == "not_object":
        raw = json.dumps(draw(st.one_of(SCALARS, st.lists(SCALARS, max_size=2)))).encode()
    elif kind == "two":
        raw = raw + draw(st.sampled_from([b" ", b",", b""])) + raw
    elif kind == "escaped_surrogate":
        raw = b'{"q": "\\ud800", "r": "\\udc00\\ud83d\\ude00"}'
    elif kind == "crlf_inside":
        raw = raw[:-1] + b'\r, "z": 1}' if raw.endswith(b"}") else raw
    return raw


FILES = st.tuples(st.lists(lines(), max_size=8), st.sampled_from([b"\n", b"\r\n"]),
                  st.booleans())
BLOCKS = st.sampled_from([1, 2, 3, 7, 16, 64, 1 << 20])


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(FILES, BLOCKS)
def test_iterator_gives_what_json_loads_gives_line_by_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, file: Any, block: int) -> None:
    parts, newline, final = file
    data = newline.join(parts) + (newline if final and parts else b"")
    path = tmp_path / "runs.jsonl"
    path.write_bytes(data)
    monkeypatch.setattr(_run, "_BLOCK", block)
    what = "one record per line"
    assert _outcome(iter_json_records(path, what=what)) == \
        _outcome(_by_definition(path, what))


@pytest.mark.parametrize("block", [1, 5, 1 << 20])
def test_errors_name_the_line_after_lines_the_block_reader_took(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int) -> None:
    # Records before the bad line come from the block reader, the error from the
    # line-by-line reader that takes over at that line.
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"doc_id": 0}\n\n{"doc_id": "x \\" }"}\n{"doc_id": 2\n{"doc_id": 3}\n')
    monkeypatch.setattr(_run, "_BLOCK", block)
    seen = []
    with pytest.raises(InputFileError) as info:
        for number, record in iter_json_records(path, what="x"):
            seen.append((number, record["doc_id"]))
    assert seen == [(1, 0), (3, 'x " }')]
    assert info.value.line == 4
    with pytest.raises(json.JSONDecodeError) as plain:
        json.loads(b'{"doc_id": 2\n')  # the line's bytes, newline included
    assert f"({plain.value.msg} at column {plain.value.colno})" in str(info.value)


def test_what_the_line_reader_accepts_after_a_hand_over(tmp_path: Path) -> None:
    # A byte-order mark and a UTF-8 surrogate: json.loads of the bytes accepts both, so the
    # records after them (read line by line) are the same as without them.
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a": 1}\n\xef\xbb\xbf{"a": 2}\n{"a": "\xed\xa0\x80"}\n{"a": 4}\n')
    got = [(n, r["a"]) for n, r in iter_json_records(path, what="x")]
    assert got == [(1, 1), (2, 2), (3, "\ud800"), (4, 4)]


def test_deep_nesting_is_refused_naming_the_line(tmp_path: Path) -> None:
    # json.loads itself gives up with a RecursionError; the reader says which line, once.
    path = tmp_path / "s.jsonl"
    deep = b"[" * 200_000 + b"]" * 200_000
    path.write_bytes(b'{"a": 1}\n{"a": ' + deep + b"}\n")
    with pytest.raises(RecursionError):
        json.loads(path.read_bytes().split(b"\n")[1])
    it = iter_json_records(path, what="x")
    assert next(it) == (1, {"a": 1})
    with pytest.raises(InputFileError, match=r"line 2: line is JSON nested too deeply"):
        next(it)


def test_only_the_first_line_is_parsed_for_the_first_record(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a": 1}\n{"a": \n')
    it = iter_json_records(path, what="x")
    assert next(it) == (1, {"a": 1})  # the broken second line is not looked at yet
    with pytest.raises(InputFileError, match="line 2"):
        next(it)


def test_lmeval_metric_values_are_score_to_float_of_each_json_value(tmp_path: Path) -> None:
    # The reader takes plain floats without calling score_to_float; every value must still
    # come out as score_to_float has it (NaN and null: no score).
    import math

    from mcnemar.io._run import score_to_float
    from mcnemar.io.lmeval import read_lmeval

    values = [1.0, 0.0, -0.0, 0.25, 1e308, 5e-324, float("nan"), 1, 0, True, False, None,
              "0.5", " 1 ", "yes", "NaN", ""]
    path = tmp_path / "samples_t_2026-01-01T00-00-00.jsonl"
    path.write_text("".join(json.dumps({"doc_id": i, "filter": "none", "metrics": ["acc"],
                                        "acc": v}) + "\n" for i, v in enumerate(values)))
    got = read_lmeval(path).scores.tolist()
    want = [score_to_float(v) for v in values]
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert (math.isnan(g) and w is None) or (g == w and math.copysign(1, g) ==
                                                  math.copysign(1, w))


@pytest.mark.parametrize("block", [1, 4, 9, 1 << 20])
@pytest.mark.parametrize("content", [
    b'{"a": 1}\n{"a": 2}\n{"a": 3}',  # no hand-over
    b'{"a": 1}\n\xef\xbb\xbf{"a": 2}\n{"a": 3}\n',  # hand-over at line 2, read to the end
    b'\n\n{"a": "\xed\xa0\x80"}\r\n{"a": 3}\n\n',
])
def test_progress_counts_every_byte_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         block: int, content: bytes) -> None:
    from contextlib import contextmanager

    from mcnemar.io import _progress

    counted: list[int] = []

    class Bar:
        def update(self, n: float = 1) -> None:
            counted.append(int(n))

    @contextmanager
    def bar(*args: Any, **kwargs: Any) -> Iterator[Bar]:
        yield Bar()

    monkeypatch.setattr(_progress, "progress_bar", bar)
    monkeypatch.setattr(_run, "_BLOCK", block)
    path = tmp_path / "s.jsonl"
    path.write_bytes(content)
    records = list(iter_json_records(path, what="x"))
    assert [r["a"] for _, r in records][-1] == 3
    assert sum(counted) == len(content)
