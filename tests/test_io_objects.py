"""Harness objects in memory read as the files they were written to.

An Inspect ``EvalLog`` (``inspect_ai.log.read_eval_log`` of the real logs under
``tests/data/io/real/inspect``), lm-eval's ``simple_evaluate`` result dict (built from the real
``samples_*.jsonl`` and ``results_*.json`` files under ``tests/data/io/real/lmeval``, as lm-eval
holds them before writing them) and pandas / polars / pyarrow frames (written to CSV and JSON
Lines by the frame library itself) must give the same JSON report as their files, for every
pairing and refusal the fixtures record, per task too; only the runs' paths differ.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import random
import re
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mcnemar.errors import InputFileError, McNemarError
from mcnemar.io import RunResults, read_pair, read_run
from mcnemar.io._budget import parse_budget
from mcnemar.io._registry import object_spec, specs
from mcnemar.pipeline import compare_runs, read_runs
from mcnemar.tasks import read_suite
from mcnemar.testing import assert_better, assert_not_worse

REAL = Path(__file__).parent / "data" / "io" / "real"
INSPECT = REAL / "inspect"
SUITE_A, SUITE_B = REAL / "inspect_tasks" / "a", REAL / "inspect_tasks" / "b"
LMEVAL = REAL / "lmeval"

needs_inspect = pytest.mark.skipif(importlib.util.find_spec("inspect_ai") is None,
                                   reason="inspect-ai is not installed (the test extra has it)")


def _without(value: Any, paths: list[str]) -> Any:
    """A report's dict with every run path (wherever it is quoted) replaced by ``<run>``."""
    if isinstance(value, dict):
        return {k: _without(v, paths) for k, v in value.items()}
    if isinstance(value, list):
        return [_without(v, paths) for v in value]
    if isinstance(value, str):
        for p in sorted(paths, key=len, reverse=True):
            value = value.replace(p, "<run>")
    return value


def _same(memory: Any, files: Any) -> None:
    """The two reports (or per-task comparisons) are equal but for the runs' paths."""
    paths = [str(p) for p in _paths(memory) + _paths(files)]
    got, want = _without(memory.to_dict(), paths), _without(files.to_dict(), paths)
    assert got == want
    assert json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)


def _paths(result: Any) -> list[str]:
    """The runs' paths a report's dict names (its "path" fields, and objects' ``<...>``)."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key == "path" and isinstance(item, str):
                    found.append(item)
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    data = result.to_dict()
    walk(data)
    return found + re.findall(r"<[^<>]+>", json.dumps(data))


def _values(column: np.ndarray | None) -> list[Any]:
    """A run's per-record column as a list."""
    assert column is not None
    values: list[Any] = column.tolist()
    return values


def _allow(flag: str) -> dict[str, Any]:
    """The keyword of an override flag (``--allow-different-tasks``), set."""
    return {flag.lstrip("-").replace("-", "_"): True}


def _message(call: Any) -> str:
    """What a call raises (its type and message), or "" when it passes."""
    try:
        call()
    except (AssertionError, McNemarError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return ""


# --------------------------------------------------------------------------------------------
# the registry: one mechanism, no optional import


def test_every_object_reader_takes_its_formats_options() -> None:
    import inspect as pyinspect

    readers = [s for s in specs() if s.objects is not None]
    assert {s.name for s in readers} >= {"inspect", "lm-eval", "csv", "jsonl", "parquet"}
    for s in readers:
        params = pyinspect.signature(s.object_reader()).parameters
        keywords = {k for k, p in params.items() if p.kind is p.KEYWORD_ONLY}
        assert keywords == set(s.options), s.name
        assert s.objects is not None and s.objects.what


def test_claims_import_nothing_optional() -> None:
    code = (
        "import sys\n"
        "import mcnemar.io, mcnemar.pipeline, mcnemar.testing\n"
        "from mcnemar.io._registry import object_spec\n"
        "from mcnemar.io import read_run\n"
        "assert object_spec({'samples': {'t': []}}).name == 'lm-eval'\n"
        "assert object_spec({'eval': {}, 'samples': []}).name == 'inspect'\n"
        "assert object_spec(object()) is None\n"
        "run = read_run({'config': {'model': 'hf'}, 'samples': {'t': [{'doc_id': 0, "
        "'acc': 1.0}]}})\n"
        "loaded = [m for m in ('inspect_ai', 'lm_eval', 'pandas', 'polars', 'pyarrow', "
        "'narwhals', 'pydantic') if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr


def test_what_is_not_read_is_refused_with_what_is() -> None:
    with pytest.raises(McNemarError, match=r"a run is read from a file \(a path\) or from an "
                                           r"object in memory that a reader takes \(.*\); got "
                                           r"a <builtins int>") as caught:
        read_run(3)
    for what in ("an Inspect EvalLog", "lm-eval's simple_evaluate(..., log_samples=True) "
                 "results", "a pandas, polars or pyarrow data frame"):
        assert what in str(caught.value)
    with pytest.raises(McNemarError, match=r"a list holds several runs: .*by_task=True"):
        read_run([{"eval": {}, "samples": []}])
    with pytest.raises(McNemarError, match=r"format='helm' does not read a <builtins dict> in "
                                           r"memory"):
        read_run({"samples": {"t": []}}, format="helm")
    with pytest.raises(McNemarError, match=r"format='csv' does not read a <builtins dict> in "
                                           r"memory; it reads a pandas, polars or pyarrow"):
        read_run({"samples": {"t": []}}, format="csv")
    with pytest.raises(McNemarError, match=r"option\(s\) value_key do not apply to lm-eval's "
                                           r"simple_evaluate\(\.\.\., log_samples=True\) "
                                           r"results; valid options: cluster, filter"):
        read_run({"samples": {"t": [{"doc_id": 0, "acc": 1.0}]}}, value_key="x")


def test_objects_are_not_charged_to_a_read_budget(tmp_path: Path) -> None:
    records = [{"doc_id": i, "filter": "none", "metrics": ["acc"], "acc": float(i % 2),
                "doc": {"text": "x" * 1000}} for i in range(200)]
    results = {"config": {"model": "hf", "model_args": "pretrained=m"},
               "samples": {"t": records}}
    written = tmp_path / "samples_t_2026-01-01T00-00-00.000001.jsonl"
    written.write_text("".join(json.dumps(r) + "\n" for r in records))
    with parse_budget(10_000):
        assert read_run(results).records == 200
        assert read_run(results, limits=None).records == 200
        with pytest.raises(InputFileError, match="more than the parse budget"):
            read_run(written)  # the file it was written to is charged


# --------------------------------------------------------------------------------------------
# Inspect: EvalLog objects from the real logs


@cache
def _log(name: str) -> Any:
    from inspect_ai.log import read_eval_log

    path = name if Path(name).is_absolute() else str(INSPECT / name)
    return read_eval_log(path)


@cache
def _inspect_expected() -> dict[str, Any]:
    return json.loads((INSPECT / "expected.json").read_text())


def _inspect_cases(kind: str) -> list[Any]:
    return [pytest.param(case, id=case["name"]) for case in _inspect_expected()[kind]]


@needs_inspect
@pytest.mark.parametrize("case", _inspect_cases("pairings"))
def test_an_eval_log_gives_its_files_report(case: dict[str, Any]) -> None:
    read_a = case["read"]
    read_b = {**case["read"], **case.get("read_b", {})}
    files = compare_runs(read_run(INSPECT / case["a"], **read_a),
                         read_run(INSPECT / case["b"], **read_b), **case["align"])
    memory = compare_runs(read_run(_log(case["a"]), **read_a),
                          read_run(_log(case["b"]), **read_b), **case["align"])
    _same(memory, files)
    assert {k: memory.to_dict()["table"][k] for k in "abcd"} == case["table"]
    if not read_a and not case.get("read_b"):
        # The objects themselves, read by compare_runs.
        _same(compare_runs(_log(case["a"]), _log(case["b"]), **case["align"]), files)


@needs_inspect
@pytest.mark.parametrize("case", _inspect_cases("refusals"))
def test_an_eval_log_is_refused_as_its_file_is(case: dict[str, Any]) -> None:
    def compare(a: Any, b: Any, **extra: Any) -> Any:
        return lambda: compare_runs(a, b, **extra)

    files = _message(compare(read_run(INSPECT / case["a"]), read_run(INSPECT / case["b"])))
    memory = _message(compare(_log(case["a"]), _log(case["b"])))
    assert files and memory == files
    for value in case["values"]:
        assert value in memory
    flag = case["flag"]
    _same(compare_runs(_log(case["a"]), _log(case["b"]), **_allow(flag)),
          compare_runs(read_run(INSPECT / case["a"]), read_run(INSPECT / case["b"]),
                       **_allow(flag)))


@needs_inspect
@pytest.mark.parametrize("name", sorted(p.name for p in INSPECT.glob("*.eval")))
def test_an_eval_log_is_the_run_of_its_file(name: str) -> None:
    """Every fixture log, run by run: keys, scores, epochs, errors, content and identity."""
    def read(source: Any) -> RunResults:
        try:
            return read_run(source)
        except InputFileError:  # two scorers
            return read_run(source, score="match")

    file_run, memory_run = read(INSPECT / name), read(_log(name))
    for field in ("keys", "epochs", "errored", "contents"):
        assert getattr(memory_run, field).tolist() == getattr(file_run, field).tolist(), field
    np.testing.assert_array_equal(memory_run.scores, file_run.scores)
    assert memory_run.identity == file_run.identity
    assert memory_run.metadata == file_run.metadata
    assert memory_run.path == _log(name).location == str(INSPECT / name)


@needs_inspect
def test_the_json_twin_and_the_dict_of_a_json_log() -> None:
    (eval_name, json_name), = _inspect_expected()["twins"]
    b = read_run(INSPECT / "arith_b.eval")
    files = compare_runs(read_run(INSPECT / json_name), b)
    _same(compare_runs(_log(json_name), b), files)
    _same(compare_runs(_log(eval_name), b), files)
    document = json.loads((INSPECT / json_name).read_text())
    _same(compare_runs(document, b), files)
    assert read_run(document).path == "<Inspect JSON log>"


@needs_inspect
def test_samples_in_any_order_are_read_in_inspects_order() -> None:
    log = _log("arith_epochs_a.eval").model_copy()
    shuffled = list(log.samples)
    random.Random(7).shuffle(shuffled)
    log.samples = shuffled
    files = compare_runs(read_run(INSPECT / "arith_epochs_a.eval"),
                         read_run(INSPECT / "arith_epochs_b.eval"), reduce="cluster")
    _same(compare_runs(log, _log("arith_epochs_b.eval"), reduce="cluster"), files)


@needs_inspect
def test_a_log_without_samples_says_so() -> None:
    from inspect_ai.log import read_eval_log

    header = read_eval_log(str(INSPECT / "arith_a.eval"), header_only=True)
    with pytest.raises(InputFileError, match=r"no 'samples' .*header_only=True"):
        read_run(header)


@needs_inspect
def test_an_eval_log_task_is_checked() -> None:
    assert read_run(_log("arith_a.eval"), task="arith").identity.task == "arith"
    with pytest.raises(InputFileError, match="the log holds task 'arith', not 'other'"):
        read_run(_log("arith_a.eval"), task="other")


@needs_inspect
def test_lists_of_eval_logs_are_compared_task_by_task_as_their_directories() -> None:
    logs_a = [_log(str(p)) for p in sorted(SUITE_A.glob("*.eval"))]
    logs_b = [_log(str(p)) for p in sorted(SUITE_B.glob("*.eval"))]
    files = compare_runs(read_suite(SUITE_A), read_suite(SUITE_B), by_task=True)
    memory = compare_runs(logs_a, logs_b, by_task=True)
    _same(memory, files)
    expected = json.loads((REAL / "inspect_tasks" / "expected.json").read_text())
    for task in memory.to_dict()["tasks"]:
        assert {k: task["table"][k] for k in "abcd"} == expected["tasks"][task["task"]]["table"]
    # Mixed with a run read already, the same.
    _same(compare_runs(logs_a, [read_run(logs_b[0]), logs_b[1]], by_task=True), files)
    # Without by_task: one run holding every task, as the two directories are read.
    _same(compare_runs(logs_a, logs_b), compare_runs(*read_runs([SUITE_A, SUITE_B])))


@needs_inspect
def test_the_test_helpers_take_eval_logs() -> None:
    arith = ("arith_a.eval", "arith_b.eval")
    mul = (str(SUITE_A / "mul.eval"), str(SUITE_B / "mul.eval"))
    for a, b in (arith, arith[::-1], mul, mul[::-1]):
        for helper in (assert_not_worse, assert_better):
            files = _message(lambda h=helper, a=a, b=b: h(INSPECT / a, INSPECT / b))
            memory = _message(lambda h=helper, a=a, b=b: h(_log(a), _log(b)))
            assert memory == files
    assert _message(lambda: assert_not_worse(_log(mul[0]), _log(mul[1]))).startswith(
        "AssertionError: mockllm/system-a is significantly worse")
    # Reader options reach the objects; lists of logs by task.
    two = ("arith_two_scorers_a.eval", "arith_two_scorers_b.eval")
    assert_not_worse(_log(two[0]), _log(two[1]), score="includes")
    logs_a = [_log(str(p)) for p in sorted(SUITE_A.glob("*.eval"))]
    logs_b = [_log(str(p)) for p in sorted(SUITE_B.glob("*.eval"))]
    for options in ({}, {"adjust": "none"}):
        files = _message(lambda o=options: assert_not_worse(SUITE_A, SUITE_B, by_task=True, **o))
        memory = _message(lambda o=options: assert_not_worse(logs_a, logs_b, by_task=True, **o))
        assert memory == files
    assert _message(lambda: assert_not_worse(logs_a, logs_b, by_task=True, adjust="none"))


# --------------------------------------------------------------------------------------------
# lm-eval: the simple_evaluate result dict, built from the real files


_DATE = re.compile(r"_(\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.jsonl$")


def _run_files(path: Path) -> list[Path]:
    """The samples files of one run of lm-eval: the file itself, or the newest run of a
    directory (the run a simple_evaluate call returns; older re-runs are other calls)."""
    if path.is_file():
        return [path]
    files = sorted(path.rglob("samples_*.jsonl"))
    newest = max(_DATE.search(f.name).group(1) for f in files)  # type: ignore[union-attr]
    return [f for f in files if newest in f.name]


def _results_dict(path: Path) -> dict[str, Any]:
    """What ``simple_evaluate(..., log_samples=True)`` returned for the run written at
    ``path``: its samples by task (the records of each samples file) and its config."""
    files = _run_files(path)
    date = _DATE.search(files[0].name).group(1)  # type: ignore[union-attr]
    results = json.loads((files[0].parent / f"results_{date}.json").read_text())
    samples = {}
    for f in files:
        task = f.name[len("samples_"):_DATE.search(f.name).start()]  # type: ignore[union-attr]
        samples[task] = [json.loads(line) for line in f.read_text().splitlines() if line]
    config = results["config"]
    return {"results": results["results"], "configs": results["configs"],
            "config": {"model": config["model"], "model_args": config["model_args"]},
            "samples": samples}


def _written(path: Path, tmp: Path) -> Path:
    """The files of that one run (a directory holds one more, older re-run of A)."""
    if path.is_file():
        return path
    files = _run_files(path)
    out = tmp / path.name
    out.mkdir(parents=True, exist_ok=True)
    date = _DATE.search(files[0].name).group(1)  # type: ignore[union-attr]
    for f in [*files, files[0].parent / f"results_{date}.json"]:
        shutil.copy(f, out / f.name)
    return out


@cache
def _lmeval_expected() -> dict[str, Any]:
    return json.loads((LMEVAL / "expected.json").read_text())


def _lmeval_cases(kind: str) -> list[Any]:
    # The renamed copies record no task (their names are not lm-eval's): no result dict
    # holds them.
    return [pytest.param(case, id=case["name"]) for case in _lmeval_expected()[kind]
            if not case["a"].startswith("renamed/")]


@pytest.mark.parametrize("case", _lmeval_cases("pairings"))
def test_simple_evaluate_results_give_their_files_report(case: dict[str, Any],
                                                         tmp_path: Path) -> None:
    read = {**case["read"], **({"task": case["task"]} if "task" in case else {})}
    a, b = LMEVAL / case["a"], LMEVAL / case["b"]
    files = compare_runs(read_run(_written(a, tmp_path / "a"), **read),
                         read_run(_written(b, tmp_path / "b"), **read), **case["align"])
    results_a, results_b = _results_dict(a), _results_dict(b)
    before = copy.deepcopy(results_a)
    memory = compare_runs(read_run(results_a, **read), read_run(results_b, **read),
                          **case["align"])
    _same(memory, files)
    assert {k: memory.to_dict()["table"][k] for k in "abcd"} == case["table"]
    assert results_a == before  # the records are the caller's: never changed
    _same(compare_runs(*read_pair(results_a, results_b, options_a=read, options_b=read),
                       **case["align"]), files)


@pytest.mark.parametrize("case", _lmeval_cases("refusals"))
def test_simple_evaluate_results_are_refused_as_their_files(case: dict[str, Any]) -> None:
    a, b = LMEVAL / case["a"], LMEVAL / case["b"]
    files = _message(lambda: compare_runs(read_run(a, **case["read"]),
                                          read_run(b, **case["read"])))
    memory = _message(lambda: compare_runs(read_run(_results_dict(a), **case["read"]),
                                           read_run(_results_dict(b), **case["read"])))
    assert memory and memory == _without(files, [str(a), str(b)]).replace("<run>",
                                                                          "<lm-eval results>")
    flag = case["flag"]
    _same(compare_runs(read_run(_results_dict(a), **case["read"]),
                       read_run(_results_dict(b), **case["read"]), **_allow(flag)),
          compare_runs(read_run(a, **case["read"]), read_run(b, **case["read"]),
                       **_allow(flag)))


def test_simple_evaluate_results_of_a_group_by_task(tmp_path: Path) -> None:
    results_a, results_b = _results_dict(LMEVAL / "group_a"), _results_dict(LMEVAL / "group_b")
    assert sorted(results_a["samples"]) == ["arith_gen", "arith_mc"]
    files = compare_runs(read_run(_written(LMEVAL / "group_a", tmp_path), filter="strict"),
                         read_run(LMEVAL / "group_b", filter="strict"),
                         allow_different_scorers=True, by_task=True)
    memory = compare_runs(read_run(results_a, filter="strict"),
                          read_run(results_b, filter="strict"),
                          allow_different_scorers=True, by_task=True)
    _same(memory, files)
    # The tasks in another order in the dict: read in the order of their names, as files.
    shuffled = {**results_a, "samples": dict(reversed(list(results_a["samples"].items())))}
    assert _values(read_run(shuffled, filter="strict").keys) == \
        _values(read_run(results_a, filter="strict").keys)


def test_simple_evaluate_errors_name_the_task_and_record() -> None:
    results = _results_dict(LMEVAL / "b")
    with pytest.raises(InputFileError, match=r"<lm-eval results> samples\['arith_gen'\]: the task "
                                             r"holds several filters: 'strict' \(30 records\), "
                                             r"'flexible'"):
        read_run(results, score="exact_match")
    broken = copy.deepcopy(results)
    broken["samples"]["arith_gen"][3]["doc_id"] = None
    with pytest.raises(InputFileError, match=r"<lm-eval results> samples\['arith_gen'\]\[3\]: "
                                             r"'doc_id' must be an integer, found None"):
        read_run(broken, filter="strict")
    with pytest.raises(InputFileError, match=r"task\(s\) 'mmlu' not in the results' samples; "
                                             r"their tasks are 'arith_gen'"):
        read_run(results, task="mmlu")
    with pytest.raises(InputFileError, match="log_samples=True"):
        read_run({"results": {}, "samples": {}, "config": {}})


def test_simple_evaluate_records_with_numpy_values() -> None:
    records = [{"doc_id": i, "filter": "none", "metrics": ["acc", "hit"],
                "acc": np.float64(i % 2), "hit": np.bool_(i % 3 == 0)} for i in range(6)]
    results = {"config": {"model": "hf", "model_args": {"pretrained": "org/m"}},
               "samples": {"t": records}}
    assert _values(read_run(results).scores) == [0.0, 1.0, 0.0, 1.0, 0.0, 1.0]
    assert _values(read_run(results, score="hit").scores) == [1.0, 0, 0, 1.0, 0, 0]
    assert read_run(results).name == "org/m"


# --------------------------------------------------------------------------------------------
# frames: the column logic of the generic files


def _rows(path: Path) -> list[dict[str, Any]]:
    """Per-item rows from the real lm-eval samples (both filters: a two-column id)."""
    return [{"doc_id": r["doc_id"], "filter": r["filter"], "exact_match": r["exact_match"],
             "x": r["doc"]["x"]} for r in map(json.loads, path.read_text().splitlines())]


ROWS_A = LMEVAL / "a" / "system-a" / "samples_arith_gen_2026-11-30T20-15-21.039355.jsonl"
ROWS_B = LMEVAL / "b" / "system-b" / "samples_arith_gen_2026-11-30T20-15-44.441922.jsonl"
FRAME_READ: dict[str, Any] = {"id": ["doc_id", "filter"], "score": "exact_match"}


def _frames(kind: str) -> tuple[Any, Any]:
    rows = _rows(ROWS_A), _rows(ROWS_B)
    if kind == "pandas":
        import pandas as pd

        return pd.DataFrame(rows[0]), pd.DataFrame(rows[1])
    import polars as pl

    frames = pl.DataFrame(rows[0]), pl.DataFrame(rows[1])
    if kind == "polars-lazy":
        return frames[0].lazy(), frames[1].lazy()
    if kind == "pyarrow":
        return frames[0].to_arrow(), frames[1].to_arrow()
    return frames


def _write_csv(frame: Any, path: Path) -> Path:
    if type(frame).__module__.startswith("pandas"):
        frame.to_csv(path, index=False)
    else:
        import polars as pl

        data = frame.collect() if isinstance(frame, pl.LazyFrame) else pl.DataFrame(frame)
        data.write_csv(path)
    return path


@pytest.mark.parametrize("kind", ["pandas", "polars", "polars-lazy", "pyarrow"])
def test_a_frame_gives_the_report_of_the_csv_it_was_written_to(kind: str,
                                                                tmp_path: Path) -> None:
    frame_a, frame_b = _frames(kind)
    csv_a = _write_csv(frame_a, tmp_path / "a.csv")
    csv_b = _write_csv(frame_b, tmp_path / "b.csv")
    extras: list[dict[str, Any]] = [{}, {"threshold": 0.5}]
    for extra in extras:
        files = compare_runs(read_run(csv_a, name="new", **FRAME_READ),
                             read_run(csv_b, name="old", **FRAME_READ), **extra)
        memory = compare_runs(read_run(frame_a, name="new", **FRAME_READ),
                              read_run(frame_b, name="old", **FRAME_READ), **extra)
        data = memory.to_dict()
        assert {run["format"] for run in data["alignment"]["runs"].values()} == {"frame"}
        for run in data["alignment"]["runs"].values():
            run["format"] = "csv"
        assert _without(data, _paths(memory) + _paths(files)) == \
            _without(files.to_dict(), _paths(memory) + _paths(files))
    run = read_run(frame_a, **FRAME_READ)
    assert run.format == "frame" and run.path == run.name and run.path.startswith("<")
    assert _values(run.keys) == _values(read_run(csv_a, **FRAME_READ).keys)


def test_a_frame_through_compare_runs_and_the_test_helpers(tmp_path: Path) -> None:
    import pandas as pd

    strict_a = pd.DataFrame([r for r in _rows(ROWS_A) if r["filter"] == "strict"])
    strict_b = pd.DataFrame([r for r in _rows(ROWS_B) if r["filter"] == "strict"])
    strict_a.to_csv(tmp_path / "a.csv", index=False)
    strict_b.to_csv(tmp_path / "b.csv", index=False)
    # doc_id is found among the id columns; the score must be named (exact_match is not one).
    memory = compare_runs(read_run(strict_a, score="exact_match"),
                          read_run(strict_b, score="exact_match"), names=("new", "old"))
    files = compare_runs(read_run(tmp_path / "a.csv", score="exact_match"),
                         read_run(tmp_path / "b.csv", score="exact_match"), names=("new", "old"))
    assert memory.table == files.table
    renamed = strict_a.rename(columns={"exact_match": "correct"})
    table = compare_runs(renamed, strict_b.rename(columns={"exact_match": "correct"})).table
    assert table == files.table
    for helper in (assert_not_worse, assert_better):
        assert _message(lambda h=helper: h(strict_a, strict_b, score="exact_match",
                                           names=("new", "old"))) == \
            _message(lambda h=helper: h(tmp_path / "a.csv", tmp_path / "b.csv",
                                        score="exact_match", names=("new", "old")))


def test_a_frame_struct_column_as_the_jsonl_it_was_written_to(tmp_path: Path) -> None:
    import polars as pl

    rows = [{"doc": {"id": r["doc_id"], "x": r["x"]}, "filter": r["filter"],
             "ok": r["exact_match"]} for r in _rows(ROWS_A) if r["filter"] == "flexible"]
    frame = pl.DataFrame(rows)
    frame.write_ndjson(tmp_path / "a.jsonl")
    options = {"id": "doc.id", "score": "ok", "cluster": "doc.x"}
    memory, file = read_run(frame, **options), read_run(tmp_path / "a.jsonl", **options)
    assert _values(memory.keys) == _values(file.keys)
    assert _values(memory.scores) == _values(file.scores)
    assert _values(memory.clusters) == _values(file.clusters)


def test_a_frame_is_refused_as_its_csv_is(tmp_path: Path) -> None:
    import pandas as pd

    frame = pd.DataFrame({"id": ["q1", "q2"], "answer": ["a", "b"], "model": ["x", "y"]})
    frame.to_csv(tmp_path / "f.csv", index=False)
    files = _message(lambda: read_run(tmp_path / "f.csv"))
    memory = _message(lambda: read_run(frame))
    assert files.replace(str(tmp_path / "f.csv"), "<run>") == \
        memory.replace("<pandas DataFrame>", "<run>")
    assert "no score column found" in memory
    bad = pd.DataFrame({"id": ["q1", "q2"], "score": [1, "maybe"]})
    with pytest.raises(InputFileError, match=r"<pandas DataFrame>, line 2: column 'score': "
                                             r"score 'maybe' is not a number"):
        read_run(bad)
    with pytest.raises(McNemarError, match="engine='duckdb' does not apply to a frame"):
        read_run(frame, score="id", engine="duckdb")
    # A long frame: one run of it, as of its file.
    long = read_run(frame.assign(score=[1, 0]), run_column="model", run="y")
    assert _values(long.keys) == ["q2"] and long.name == "y"
    assert object_spec(frame["id"]) is None  # a series is not a frame


def test_a_long_frame_holds_two_runs_as_its_file(tmp_path: Path) -> None:
    import polars as pl

    rows = [{"model": side, **r} for side, path in (("new", ROWS_A), ("old", ROWS_B))
            for r in _rows(path) if r["filter"] == "strict"]
    frame = pl.DataFrame(rows)
    frame.write_csv(tmp_path / "long.csv")
    options: dict[str, Any] = {"run_column": "model", "score": "exact_match"}
    memory = compare_runs(*read_runs([frame], **options))
    files = compare_runs(*read_runs([tmp_path / "long.csv"], **options))
    assert memory.table == files.table and memory.names == files.names == ("new", "old")
    assert _values(memory.alignment.correct_a) == _values(files.alignment.correct_a)
    with pytest.raises(InputFileError, match=r"<polars DataFrame>: run\(s\) 'mid' not found in "
                                             r"column 'model'; the runs are 'new', 'old'"):
        read_runs([frame], runs=["new", "mid"], **options)
