"""Logs written by the real evaluation harnesses: tables, run identity, refusals, detection.

The files under ``tests/data/io/real/`` were written by inspect-ai (current, zstd ``.eval``;
and one before 0.3.180, DEFLATE ``.eval``), lm_eval, OpenAI ``evals`` and crfm-helm, with the
generators in ``scripts/harness_fixtures/`` (see its README for versions and how to
regenerate). Each folder's ``expected.json`` holds the paired tables counted by the generator
with the harness's own reader (``inspect_ai.log.read_eval_log``) or plain ``json``, never with
:mod:`mcnemar.io`, and the identity facts (task, scorer/metric/filter, status, errored
samples, ignored re-runs) each run should report.
"""

from __future__ import annotations

import json
import re
import zipfile
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from _harness_cases import compare_args
from mcnemar.cli import main
from mcnemar.io import align, detect_format, read_run

REAL = Path(__file__).parent / "data" / "io" / "real"
HARNESSES = ("inspect", "inspect_old", "lmeval", "openai_evals", "helm")
#: Inspect's ZIP compression method for zstd members (APPNOTE 4.4.5: 93 = Zstandard).
ZIP_ZSTD = 93
#: How the CLI options are spelled for the reader and alignment options of a pairing.
READ_FLAGS = {"score": "--score", "filter": "--filter"}
ALIGN_FLAGS = {"on_missing": "--on-missing", "reduce": "--reduce"}


@cache
def expected(harness: str) -> dict[str, Any]:
    return json.loads((REAL / harness / "expected.json").read_text())


def _cases(kind: str) -> list[Any]:
    return [pytest.param(h, case, id=f"{h}: {case['name']}")
            for h in HARNESSES for case in expected(h)[kind]]


def _table(counts: Any) -> dict[str, int]:
    return dict(zip("abcd", (int(x) for x in counts), strict=True))


def _run_facts(harness: str, path: str, task: str | None) -> dict[str, Any]:
    """The facts the generator recorded for one side of a pairing."""
    runs = expected(harness)["runs"]
    for key in (path, f"{path}:{task}", str(Path(path).parent)):
        if key in runs:
            return runs[key]
    found = [r for r in runs.values() if r.get("file") == path]
    assert len(found) == 1, f"no facts recorded for {path}"
    return found[0]


def _cli_args(harness: str, case: dict[str, Any], a: str, b: str) -> list[str]:
    args = compare_args(REAL / harness / a, REAL / harness / b, case, read_flags=READ_FLAGS,
                        align_flags=ALIGN_FLAGS)
    if case.get("task"):
        args += ["--task", case["task"]]
    return args


def _compare(args: list[str]) -> Any:
    return CliRunner().invoke(main, args)


# --- tables -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("harness", "case"),
                         [c for c in _cases("pairings") if "task" not in c.values[1]])
def test_library_table_equals_the_independent_count(harness: str, case: dict[str, Any]) -> None:
    """read_run + align give the table counted from the log by the harness's own reader."""
    base = REAL / harness
    run_a = read_run(base / case["a"], **case.get("read_a", case.get("read", {})))
    run_b = read_run(base / case["b"], **case.get("read_b", case.get("read", {})))
    alignment = align(run_a, run_b, **case.get("align", {}))
    assert _table(alignment.counts) == case["table"]


@pytest.mark.parametrize(("harness", "case"), _cases("pairings"))
def test_cli_table_and_run_identity(harness: str, case: dict[str, Any]) -> None:
    """``mcnemar compare --format json``: the table, and each side's task, scorer, status,
    errored samples and ignored files as the generator recorded them."""
    result = _compare(_cli_args(harness, case, case["a"], case["b"]))
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    table = report["table"]
    assert {k: table[k] for k in "abcd"} == case["table"]
    assert table["n"] == sum(case["table"].values())
    for side in ("a", "b"):
        got = report["alignment"]["runs"][side]
        facts = _run_facts(harness, case[side], case.get("task"))
        read = case.get(f"read_{side}", case.get("read", {}))
        if facts.get("task") is not None:
            assert got["task"] == facts["task"]
        if "scorers" in facts:  # Inspect: the scorer chosen, or the log's only scorer
            assert got["scorer"] == read.get("score", facts["scorers"][0])
        elif "metrics" in facts:  # lm-eval: the metric and filter read
            assert got["scorer"] == read["score"]
            assert got["filter"] == read.get("filter", facts["filters"][0])
        else:
            assert got["scorer"] == facts["scorer"]
        if facts.get("run_status") or facts.get("status"):
            assert got["status"] == facts.get("run_status", facts["status"])
        assert got["errored"] == facts.get("errored", 0)
        # Only a directory can hold files that are skipped (older re-runs).
        ignored = facts.get("ignored", []) if (REAL / harness / case[side]).is_dir() else []
        assert sorted(Path(p).name for p in got["ignored"]) == \
            sorted(Path(p).name for p in ignored)


def test_lmeval_directory_reports_the_ignored_rerun() -> None:
    """A directory holding an older re-run reads the newest file and names the older one."""
    exp = expected("lmeval")
    old = exp["older_rerun"]
    case = next(p for p in exp["pairings"] if p["a"] == "a" and p["read"]["filter"] == "strict")
    result = _compare(_cli_args("lmeval", case, "a", "b"))
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    ignored = [Path(p).name for p in report["alignment"]["runs"]["a"]["ignored"]]
    assert ignored == [Path(old["file"]).name]
    assert any(Path(old["file"]).name in w for w in report["warnings"]), report["warnings"]
    # The older file alone gives another table: the directory really read the newer one.
    assert old["table_vs_b_strict"] != case["table"]
    older = _compare(["compare", str(REAL / "lmeval" / old["file"]),
                      str(REAL / "lmeval" / exp["runs"]["b"]["file"]), "--score",
                      "exact_match", "--filter", "strict", "--format", "json"])
    assert older.exit_code == 0, older.output
    got = json.loads(older.stdout)["table"]
    assert {k: got[k] for k in "abcd"} == old["table_vs_b_strict"]


@pytest.mark.parametrize("name", ["arith_status_error.eval", "arith_status_cancelled.eval",
                                  "arith_status_started.eval", "arith_errored_samples.eval"])
def test_incomplete_runs_and_errored_samples_are_warned(name: str) -> None:
    facts = expected("inspect")["runs"][name]
    case = next(p for p in expected("inspect")["pairings"] if p["a"] == name)
    result = _compare(_cli_args("inspect", case, case["a"], case["b"]))
    assert result.exit_code == 0, result.output
    warnings = " ".join(json.loads(result.stdout)["warnings"])
    if facts["run_status"] != "complete":
        assert facts["run_status"] in warnings or facts["status"] in warnings, warnings
    if facts["errored"]:
        assert "errored" in warnings, warnings


# --- refusals ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("harness", "case"), _cases("refusals"))
def test_different_task_or_scorer_is_refused(harness: str, case: dict[str, Any]) -> None:
    """Exit 2 and one stderr line naming both sides' values; nothing on stdout."""
    result = _compare(_cli_args(harness, case, case["a"], case["b"]))
    assert result.exit_code == 2, result.output
    message = result.stderr.strip()
    assert "\n" not in message, message
    assert "internal error" not in message
    for value in case["values"]:
        assert value in message, message
    assert case["flag"] in message, message
    assert result.stdout == ""


@pytest.mark.parametrize(("harness", "case"), _cases("refusals"))
def test_override_flag_pairs_and_warns(harness: str, case: dict[str, Any]) -> None:
    result = _compare([*_cli_args(harness, case, case["a"], case["b"]), case["flag"]])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert {k: report["table"][k] for k in "abcd"} == case["table_if_allowed"]
    assert any(all(v in w for v in case["values"]) for w in report["warnings"]), \
        report["warnings"]


# --- containers and detection -----------------------------------------------------------------


def _methods(path: Path) -> set[int]:
    with zipfile.ZipFile(path) as archive:
        return {info.compress_type for info in archive.infolist()}


def test_current_inspect_writes_zstd_and_it_reads() -> None:
    """Every member of a current inspect-ai archive is zstd (method 93), and mcnemar reads it."""
    exp = expected("inspect")
    evals = sorted((REAL / "inspect").glob("*.eval"))
    assert len(evals) == sum(1 for k in exp["runs"] if k.endswith(".eval")) >= 10
    for path in evals:
        assert _methods(path) == {ZIP_ZSTD}, path.name
        run = read_run(path, **({"score": "match"} if "two_scorers" in path.name else {}))
        assert run.records == exp["runs"][path.name]["records"]


def test_older_inspect_writes_deflate() -> None:
    for path in sorted((REAL / "inspect_old").glob("*.eval")):
        assert _methods(path) == {zipfile.ZIP_DEFLATED}, path.name
    version = tuple(int(x) for x in expected("inspect_old")["version"].split("."))
    assert version < (0, 3, 180)


@pytest.mark.parametrize("pair", expected("inspect")["twins"], ids=lambda p: " = ".join(p))
def test_eval_archive_equals_its_json_twin(pair: list[str]) -> None:
    """The same log written by inspect-ai as a .eval archive and as .json reads the same."""
    a, b = (read_run(REAL / "inspect" / name) for name in pair)
    sides = []
    for run in (a, b):
        keys, epochs, scores = run.keys, run.epochs, run.scores
        assert keys is not None and epochs is not None and scores is not None
        order = np.lexsort((epochs, keys.astype(str)))
        sides.append((keys[order].tolist(), epochs[order], scores[order]))
    assert a.records == b.records == 30
    assert sides[0][0] == sides[1][0]
    assert np.array_equal(sides[0][1], sides[1][1])
    assert np.array_equal(sides[0][2], sides[1][2])
    assert (a.name, a.score_name) == (b.name, b.score_name)


def _run_files() -> list[Any]:
    out = []
    for harness in HARNESSES:
        base = REAL / harness
        for path in sorted(base.rglob("*")):
            if path.name == "expected.json" or path.is_dir():
                continue
            if path.name.startswith("results_") or path.name == "run_spec.json":
                continue  # sidecars of a run, not runs
            fmt = {"inspect": "inspect", "inspect_old": "inspect", "lmeval": "lm-eval",
                   "openai_evals": "openai-evals", "helm": "helm"}[harness]
            out.append(pytest.param(path, fmt, id=str(path.relative_to(REAL))))
    for folder in ("a", "b", "group_a", "group_b", "other_b", "graded_a", "graded_b"):
        out.append(pytest.param(REAL / "lmeval" / folder, "lm-eval", id=f"lmeval/{folder}/"))
    for run in sorted((REAL / "helm" / "fixture").iterdir()):
        out.append(pytest.param(run, "helm", id=str(run.relative_to(REAL)) + "/"))
    return out


@pytest.mark.parametrize(("path", "fmt"), _run_files())
def test_every_real_file_is_detected(path: Path, fmt: str) -> None:
    assert detect_format(path) == fmt


def test_expected_files_record_the_harness_versions() -> None:
    versions = {h: expected(h)["version"] for h in HARNESSES}
    assert versions["inspect"] == "0.3.285"
    assert versions["lmeval"] == "0.4.13"
    assert versions["openai_evals"].startswith("3.0.1")
    assert versions["helm"] == "0.5.16"


def test_fixtures_stay_small() -> None:
    # One folder per tool (and variant): each under 1.5 MB, all of them under 6 MB.
    sizes = {folder.name: sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
             for folder in REAL.iterdir() if folder.is_dir()}
    assert len(sizes) >= 11
    assert all(size < 1.5 * 1024 * 1024 for size in sizes.values()), sizes
    assert sum(sizes.values()) < 6 * 1024 * 1024


MACHINE_PATH = re.compile(r"(?<![\w.])/(?:tmp|work|root|home|Users)/")


def test_text_fixtures_name_no_machine_paths() -> None:
    """The generators strip the folders they ran in (scripts/harness_fixtures/_paths.py):
    no text log names a temporary folder or a checkout of the machine that wrote it."""
    found = []
    for path in sorted(p for p in REAL.rglob("*") if p.is_file() and p.suffix != ".eval"):
        # Binary files (lighteval's Parquet) are searched too: their strings are plain bytes.
        text = path.read_bytes().decode("utf-8", errors="replace")
        found += [f"{path.relative_to(REAL)}: {m.group(0)}" for m in MACHINE_PATH.finditer(text)]
    assert found == []


def test_archive_members_name_no_machine_paths() -> None:
    """Nor does any member of an .eval archive (the tracebacks of errored and cancelled runs
    are shortened by scripts/harness_fixtures/neutralise_archive_paths.py)."""
    from mcnemar.io._archive import zip_module

    zf = zip_module()
    archives = sorted(REAL.rglob("*.eval"))
    found = []
    tracebacks = 0
    for path in archives:
        with zf.ZipFile(path) as archive:
            for info in archive.infolist():
                text = archive.read(info).decode("utf-8")
                tracebacks += text.count("Traceback (most recent call last)")
                found += [f"{path.relative_to(REAL)}: {info.filename}: "
                          f"{text[m.start():m.start() + 60]}"
                          for m in MACHINE_PATH.finditer(text)]
    assert found == []
    # the members were read: the errored and cancelled runs' tracebacks are there, shortened
    assert len(archives) >= 10 and tracebacks >= 10
