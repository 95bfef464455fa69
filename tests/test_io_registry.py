"""The reader registry (mcnemar.io._registry): one registration per format, everything derived.

* A toy format registered in a test (and unregistered afterwards) is read by ``read_run``,
  recognised by ``detect_format``, listed in ``FORMATS`` and accepted by
  ``mcnemar compare --input-format toy``, with no other change; its module is imported only
  when a file is read.
* Detection is unchanged: :func:`_reference_detect` is the detector as it was written before
  the registry (a decision tree, kept here verbatim as the reference), and both are run on
  every fixture under ``tests/data`` and on edge cases built to sit between two rules.
* The options registered for each built-in format are its reader's keyword arguments.
"""

from __future__ import annotations

import inspect
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcnemar.errors import InputFileError, McNemarError
from mcnemar.io import _registry, detect_format, read_run
from mcnemar.io._registry import ReaderSpec

DATA = Path(__file__).parent / "data"

# --------------------------------------------------------------------------------------------
# the toy format

TOY_MODULE = "mcnemar_toy_reader_for_tests"
TOY_SOURCE = '''
"""A toy result format: one "id: pass" or "id: fail" per line."""
from pathlib import Path

import numpy as np

from mcnemar.errors import InputFileError
from mcnemar.io._run import RunResults


def read_toy(path, *, score=None, name=None, progress=None):
    keys, scores = [], []
    for number, line in enumerate(Path(path).read_text().splitlines(), start=1):
        if not line.strip():
            continue
        key, _, verdict = line.partition(":")
        if verdict.strip() not in ("pass", "fail"):
            raise InputFileError("expected 'id: pass' or 'id: fail'", path=str(path),
                                 line=number)
        keys.append(key.strip())
        scores.append(1.0 if verdict.strip() == "pass" else 0.0)
    return RunResults(name=name or Path(path).stem, path=str(path), format="toy",
                      keys=np.array(keys, dtype=object), scores=np.array(scores),
                      records=len(keys), score_name=score or "verdict")
'''


def _sniff_toy(probe: object) -> int | None:
    from mcnemar.io._sniff import CONTENT, Probe

    assert isinstance(probe, Probe)
    return CONTENT if probe.head.startswith(b"#toy") else None


@pytest.fixture()
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ReaderSpec]:
    (tmp_path / f"{TOY_MODULE}.py").write_text(TOY_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = _registry.register(ReaderSpec(
        name="toy", label="Toy results", module=TOY_MODULE, function="read_toy",
        options=("score", "name", "progress"), extensions=(".toy",), sniff=_sniff_toy,
    ))
    try:
        yield spec
    finally:
        _registry.unregister("toy")
        sys.modules.pop(TOY_MODULE, None)
    assert "toy" not in _registry.formats()


def _toy_file(path: Path, verdicts: dict[str, str], header: str = "") -> Path:
    path.write_text(header + "".join(f"{k}: {v}\n" for k, v in verdicts.items()))
    return path


def test_a_registered_format_is_read_detected_and_listed(toy: ReaderSpec,
                                                         tmp_path: Path) -> None:
    from mcnemar.cli._options import INPUT_FORMATS
    from mcnemar.io import FORMATS
    from mcnemar.io.detect import FORMATS as DETECTED
    from mcnemar.vocabulary import input_formats

    assert FORMATS[-1] == DETECTED[-1] == INPUT_FORMATS[-1] == input_formats()[-1] == "toy"
    path = _toy_file(tmp_path / "a.toy", {"q1": "pass", "q2": "fail"})
    assert TOY_MODULE not in sys.modules
    assert detect_format(path) == "toy"  # by extension
    assert TOY_MODULE not in sys.modules  # detection never imports a reader
    run = read_run(path)
    assert TOY_MODULE in sys.modules
    assert (run.format, run.keys.tolist(), run.scores.tolist()) == ("toy", ["q1", "q2"],
                                                                    [1.0, 0.0])
    # by content, whatever the extension; an explicit format skips detection
    other = _toy_file(tmp_path / "b.txt", {"q1": "fail"}, header="#toy\n")
    assert detect_format(other) == "toy"
    plain = _toy_file(tmp_path / "c.txt", {"q1": "fail"})
    with pytest.raises(InputFileError, match="cannot tell the format"):
        detect_format(plain)  # one field a line: not a table, so not CSV either
    assert read_run(plain, format="toy").scores.tolist() == [0.0]


def test_options_are_checked_against_the_registration(toy: ReaderSpec, tmp_path: Path) -> None:
    from mcnemar.io._archive import ReadLimits

    path = _toy_file(tmp_path / "a.toy", {"q1": "pass"})
    assert read_run(path, score="verdict2", limits=ReadLimits()).score_name == "verdict2"
    with pytest.raises(McNemarError, match=r"option\(s\) id do not apply to toy files .* "
                                           r"valid options: name, progress, score$"):
        read_run(path, id="item")


def test_compare_accepts_the_registered_format(toy: ReaderSpec, tmp_path: Path) -> None:
    from mcnemar.cli import main

    a = _toy_file(tmp_path / "a.toy", {"q1": "pass", "q2": "pass", "q3": "fail", "q4": "pass"})
    b = _toy_file(tmp_path / "b.toy", {"q4": "pass", "q3": "pass", "q2": "fail", "q1": "fail"})
    for flags in (["--input-format", "toy"], []):
        result = CliRunner().invoke(main, ["compare", str(a), str(b), *flags, "--format",
                                           "json"])
        assert result.exit_code == 0, result.output
        table = json.loads(result.stdout)["table"]
        # q1, q2: A only; q3: B only; q4: both
        assert (table["a"], table["b"], table["c"], table["d"]) == (1, 2, 1, 0)
    shown = CliRunner().invoke(main, ["compare", "--help"]).output
    assert "toy" in shown


def test_compare_refuses_a_format_no_longer_registered(tmp_path: Path) -> None:
    from mcnemar.cli import main

    assert "toy" not in _registry.formats()
    result = CliRunner().invoke(main, ["compare", "a", "b", "--input-format", "toy"])
    assert result.exit_code == 2
    assert "'toy' is not one of 'auto', 'csv'" in result.stderr


def test_registration_is_checked() -> None:
    with pytest.raises(McNemarError, match="'csv' is already registered"):
        _registry.register(ReaderSpec(name="csv", label="x", module="m", function="f"))
    with pytest.raises(McNemarError, match="cannot name a format"):
        _registry.register(ReaderSpec(name="auto", label="x", module="m", function="f"))
    with pytest.raises(McNemarError, match="lower case with their dot"):
        _registry.register(ReaderSpec(name="x", label="x", module="m", function="f",
                                      extensions=("TOY",)))
    with pytest.raises(McNemarError, match="format='nope' is not known; use 'auto' or one of "
                                           "csv, jsonl, parquet, lm-eval, inspect"):
        _registry.spec("nope")
    assert "x" not in _registry.formats()


@pytest.mark.parametrize("spec", _registry.specs(), ids=lambda s: s.name)
def test_registered_options_are_the_readers_keywords(spec: ReaderSpec) -> None:
    reader = spec.reader()
    params = inspect.signature(reader).parameters
    keywords = {k for k, p in params.items() if p.kind is p.KEYWORD_ONLY}
    fixed = {k for k, _ in spec.fixed}
    assert set(spec.options) == keywords - fixed - {"limits"}
    assert spec.limits == ("limits" in keywords)
    assert spec.label and spec.module.startswith("mcnemar.io.")


# --------------------------------------------------------------------------------------------
# detection unchanged


def _reference_detect(path: Path) -> str:
    """The detector before the registry, verbatim in its rules (the reference)."""
    p = Path(path)
    if not p.exists():
        raise InputFileError("no such file or directory", path=str(p))
    if p.is_dir():
        if (p / "per_instance_stats.json").is_file():
            return "helm"
        if next(p.rglob("samples_*.jsonl"), None) is not None:
            return "lm-eval"
        if next(p.rglob("*.parquet"), None) is not None:
            return "parquet"
        raise InputFileError("cannot tell the format of this directory", path=str(p))
    with p.open("rb") as handle:
        head = handle.read(1 << 16)
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        return "inspect"
    if head.startswith(b"PAR1"):
        return "parquet"
    if p.name == "per_instance_stats.json":
        return "helm"
    if p.suffix.lower() == ".eval":
        return "inspect"
    if not head.strip():
        raise InputFileError("empty file", path=str(p))
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"["):
        if b'"instance_id"' in head and b'"stats"' in head:
            return "helm"
        raise InputFileError("a JSON list that is not HELM per_instance_stats.json",
                             path=str(p))
    if text.startswith(b"{"):
        first = text.split(b"\n", 1)[0]
        try:
            obj = json.loads(first)
        except (json.JSONDecodeError, UnicodeDecodeError):
            obj = None
        if isinstance(obj, dict):
            if "spec" in obj or ("type" in obj and ("sample_id" in obj or "event_id" in obj)):
                return "openai-evals"
            if "doc_id" in obj and any(k in obj for k in ("filter", "metrics", "resps", "doc")):
                return "lm-eval"
            if "eval" in obj and ("samples" in obj or "status" in obj):
                return "inspect"
            return "jsonl"
        if b'"eval"' in head and (b'"status"' in head or b'"samples"' in head):
            return "inspect"
        raise InputFileError("cannot tell the format: the file starts like JSON but its first "
                             "line is not a complete object", line=1, path=str(p))
    if b"\x00" in head:
        raise InputFileError("binary file of unknown format", path=str(p))
    return "csv"


def _outcome(detect: object, path: Path) -> str:
    assert callable(detect)
    try:
        return str(detect(path))
    except InputFileError as exc:
        message = str(exc)[len(exc.where):]  # without the path (and line)
        line = f" (line {exc.line})" if exc.line is not None else ""
        return "error: " + message.split(";")[0].split(" (")[0] + line


EDGE_CASES: dict[str, bytes] = {
    # two rules at once: the earlier rule of the decision tree must win
    "par1.eval": b"PAR1 then whatever",
    "per_instance_stats.json": b"PK\x03\x04zip",
    "empty.eval": b"",
    "x.parquet": b"id,score\nq1,1\n",
    "spec_and_doc.jsonl": b'{"spec": 1, "doc_id": 0, "filter": "none"}\n',
    "doc_and_eval.jsonl": b'{"doc_id": 0, "resps": [], "eval": 1, "samples": []}\n',
    "type_no_id.jsonl": b'{"type": "match", "eval": 1, "status": "ok"}\n',
    "event.jsonl": b'{"type": "match", "event_id": 3}\n',
    "doc_only.jsonl": b'{"doc_id": 0}\n',
    "pretty_inspect.json": b'{\n  "eval": {"task": "t"},\n  "samples": []\n}\n',
    "pretty_other.json": b'{\n  "a": 1\n}\n',
    "helm_list.json": b'[{"instance_id": "i", "stats": []}]',
    "other_list.json": b"[1, 2]",
    "bom.csv": b"\xef\xbb\xbfid,score\nq1,1\n",
    "bom_only.csv": b"\xef\xbb\xbf",
    "spaces.csv": b"   \n\t\n",
    "bom_json.jsonl": b'\xef\xbb\xbf{"id": 1, "score": 1}\n',
    "nul.bin": b"id,score\x00\n",
    "nul_json.jsonl": b'{"id": 1}\x00\n',
    "tab.tsv": b"id\tscore\nq1\t1\n",
    "broken_first_line.jsonl": b'{"id": 1\n{"id": 2}\n',
    "EVAL_UPPER.EVAL": b"not a zip",
}


def _edge_directories(root: Path) -> list[Path]:
    made = []
    for name, files in {
        "helm_and_lmeval": ["per_instance_stats.json", "samples_t_1.jsonl", "p.parquet"],
        "lmeval_and_parquet": ["sub/samples_t_1.jsonl", "p.parquet"],
        "parquet_deep": ["a/b/p.parquet"],
        "helm_nested_only": ["run/per_instance_stats.json"],
        "nothing": ["readme.txt"],
    }.items():
        for f in files:
            target = root / name / f
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(b"")
        made.append(root / name)
    return made


#: Formats registered after the reference detector was written, and the folder of the files
#: their tools wrote: those files are theirs now (the reference called them generic or
#: unknown); every other file and edge case must be detected as before.
LATER_FORMATS = {"promptfoo": "promptfoo", "lighteval": "lighteval", "evalscope": "evalscope",
                 "deepeval": "deepeval", "opencompass": "opencompass"}


def _written_by_a_later_format(path: Path, outcome: str) -> bool:
    folder = LATER_FORMATS.get(outcome)
    return folder is not None and (DATA / "io" / "real" / folder) in (path, *path.parents)


def _prose_refused(path: Path, before: str, now: str) -> bool:
    """Text that is not a table, which the reference called CSV and detection now refuses
    (a README, a YAML file, a Python script): no delimiter splits its first two lines into
    the same two or more fields."""
    import csv

    if before != "csv" or not path.is_file():
        return False
    text = path.read_bytes().decode("utf-8", "replace").lstrip("\ufeff")
    if now == "error: empty file":
        return not text.strip()  # a byte-order mark and nothing else
    if now != "error: cannot tell the format":
        return False
    lines = [ln for ln in text.splitlines() if ln.strip()][:2]
    for delimiter in ",;\t|":
        counts = [len(row) for row in csv.reader(lines, delimiter=delimiter)]
        if len(counts) == 2 and counts[0] >= 2 and counts[0] == counts[1]:
            return False
    return True


def test_detection_is_unchanged_on_every_fixture_and_edge_case(tmp_path: Path) -> None:
    for name, content in EDGE_CASES.items():
        (tmp_path / name).write_bytes(content)
    paths = sorted(DATA.rglob("*")) + sorted(tmp_path.glob("*")) + _edge_directories(tmp_path)
    assert len(paths) > 100
    differ = [(str(p), _outcome(_reference_detect, p), _outcome(detect_format, p))
              for p in paths if _outcome(_reference_detect, p) != _outcome(detect_format, p)
              and not _written_by_a_later_format(p, _outcome(detect_format, p))
              and not _prose_refused(p, _outcome(_reference_detect, p),
                                     _outcome(detect_format, p))]
    assert differ == []
    kinds = {_outcome(detect_format, p) for p in paths}
    # the comparison covered every format and every refusal
    assert {"csv", "jsonl", "parquet", "lm-eval", "inspect", "openai-evals", "helm"} <= kinds
    assert {"error: empty file", "error: binary file of unknown format",
            "error: cannot tell the format of this directory",
            "error: a JSON list that is not HELM per_instance_stats.json",
            "error: cannot tell the format: the file starts like JSON but its first line is "
            "not a complete object (line 1)"} <= kinds


def test_reader_for_binds_the_generic_format(tmp_path: Path) -> None:
    from mcnemar.io._dispatch import reader_for

    path = tmp_path / "a.txt"
    path.write_text('{"id": "q1", "score": 1}\n')
    assert reader_for("jsonl")(path).format == "jsonl"
    with pytest.raises(McNemarError, match="format='xml' is not known"):
        reader_for("xml")


# --------------------------------------------------------------------------------------------
# readers from other packages: the entry-point group mcnemar.readers

PLUGIN_SOURCE = TOY_SOURCE + '''

from mcnemar.io import CONTENT, ReaderSpec


def _sniff(probe):
    return CONTENT if probe.head.startswith(b"#plug") else None


SPEC = ReaderSpec(name="plug", label="Plug-in results", module=__name__, function="read_toy",
                  options=("score", "name", "progress"), extensions=(".plug",), sniff=_sniff)


def broken():
    raise RuntimeError("this plug-in is broken")
'''


def _install(site: Path, name: str, entry_points: str) -> None:
    """An installed distribution as importlib.metadata finds it on sys.path: its module, and
    a dist-info folder with METADATA and entry_points.txt (what pip writes)."""
    (site / f"{name}.py").write_text(PLUGIN_SOURCE)
    info = site / f"{name}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[mcnemar.readers]\n{entry_points}\n")


def test_an_installed_package_adds_a_reader(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from mcnemar.cli import main
    from mcnemar.errors import McNemarWarning

    site = tmp_path / "site"
    site.mkdir()
    _install(site, "mcnemar_plug_for_tests", "plug = mcnemar_plug_for_tests:SPEC\n"
             "bad = mcnemar_plug_for_tests:broken\nmissing = no_such_module_xyz:SPEC")
    monkeypatch.syspath_prepend(str(site))
    try:
        with pytest.warns(McNemarWarning) as caught:
            assert _registry.load_entry_points() == ("plug",)
        messages = sorted(str(w.message) for w in caught)
        assert len(messages) == 2
        assert "'bad'" in messages[0] and "this plug-in is broken" in messages[0]
        assert "'missing'" in messages[1]
        a = _toy_file(tmp_path / "a.plug", {"q1": "pass", "q2": "fail", "q3": "pass"})
        b = _toy_file(tmp_path / "b.plug", {"q1": "fail", "q2": "fail", "q3": "pass"})
        sniffed = _toy_file(tmp_path / "c.txt", {"q1": "fail"}, header="#plug\n")
        assert detect_format(a) == detect_format(sniffed) == "plug"
        result = CliRunner().invoke(main, ["compare", str(a), str(b), "--format", "json"])
        assert result.exit_code == 0, result.output
        table = json.loads(result.stdout)["table"]
        assert (table["a"], table["b"], table["c"], table["d"]) == (1, 1, 0, 1)
        # Looking again registers nothing twice.
        with pytest.warns(McNemarWarning):
            assert _registry.load_entry_points() == ()
    finally:
        if "plug" in _registry.formats():
            _registry.unregister("plug")
        sys.modules.pop("mcnemar_plug_for_tests", None)


def test_a_plugin_cannot_take_a_builtin_name(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from mcnemar.errors import McNemarWarning

    site = tmp_path / "site"
    site.mkdir()
    (site / "mcnemar_csv_thief.py").write_text(
        "from mcnemar.io import ReaderSpec\n"
        "SPEC = ReaderSpec(name='csv', label='x', module='x', function='y')\n")
    info = site / "mcnemar_csv_thief-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mcnemar_csv_thief\n"
                                   "Version: 0.1\n")
    (info / "entry_points.txt").write_text("[mcnemar.readers]\ncsv = mcnemar_csv_thief:SPEC\n")
    monkeypatch.syspath_prepend(str(site))
    before = _registry.spec("csv")
    with pytest.warns(McNemarWarning, match="'csv' is already registered"):
        assert _registry.load_entry_points() == ()
    assert _registry.spec("csv") is before
    sys.modules.pop("mcnemar_csv_thief", None)
