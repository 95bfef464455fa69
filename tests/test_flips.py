"""The items that flipped (:mod:`mcnemar.flips`): equal to the discordant items counted
independently, counted as b and c always, in a stable order, and written to files that read
back; and of scores that are not pass/fail, the items scored differently, the largest
differences first (:class:`mcnemar.flips.ScoreFlips`).

The independent count reads the logs the real tools wrote under ``tests/data/io/real/`` with
plain ``json`` (an Inspect ``.eval`` archive is unzipped first) or ``pyarrow`` (lighteval's
Parquet details), never with :mod:`mcnemar.io`, and lists the items where exactly one run
passed, in the order of run A's files (task by task for runs of several tasks). The pairings
of the newer tools are those their ``expected.json`` records (files, options and the tables
counted by their generators), which hold no item lists: the items are counted here.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from _harness_cases import compare_args
from mcnemar.cli import main
from mcnemar.errors import McNemarError
from mcnemar.flips import FILE_FIELDS, SCORE_FILE_FIELDS, Flip, Flips, ScoreFlips
from mcnemar.io import RunResults, align, read_run
from mcnemar.pipeline import compare_runs

REAL = Path(__file__).parent / "data" / "io" / "real"
#: How the command line spells the reader and alignment options of a pairing.
READ_FLAGS = {"score": "--score", "filter": "--filter", "task": "--task"}
ALIGN_FLAGS = {"on_missing": "--on-missing", "reduce": "--reduce"}


def invoke(*args: str | Path) -> Any:
    return CliRunner().invoke(main, ["compare", *map(str, args)])


def compare_json(*args: str | Path) -> dict[str, Any]:
    result = invoke(*args, "--format", "json", "--no-progress")
    assert result.exit_code == 0, result.output
    out: dict[str, Any] = json.loads(result.stdout)
    return out


# --- the independent count ---------------------------------------------------------------------
# Each reader gives a run's pass/fail per item, in the order of its file(s): {key: 1.0, 0.0 or
# None (errored)}, the key being the id, or (task, id) for tools whose runs hold tasks.

Scores = dict[Any, float | None]


def _inspect_samples(path: Path) -> list[dict[str, Any]]:
    """The samples of an Inspect log (.json, or the members of a .eval archive)."""
    if path.suffix == ".json":
        samples: list[dict[str, Any]] = json.loads(path.read_text())["samples"]
        return samples
    from mcnemar.io._archive import zip_module  # zipfile with zstd (Python < 3.14)

    with zip_module().ZipFile(path) as archive:
        names = [n for n in archive.namelist() if n.startswith("samples/")]
        return [json.loads(archive.read(n)) for n in names]


def inspect_scores(path: Path, scorer: str = "match") -> dict[Any, float]:
    grades = {"C": 1.0, "I": 0.0}
    return {s["id"]: grades[s["scores"][scorer]["value"]] for s in _inspect_samples(path)
            if s["epoch"] == 1}


def lmeval_scores(path: Path, metric: str, filter_name: str) -> dict[Any, float]:
    out = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if record["filter"] == filter_name:
            out[record["doc_id"]] = float(record[metric])
    return out


def openai_scores(path: Path) -> dict[Any, float]:
    out = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if record.get("type") == "match":
            out[record["sample_id"]] = float(record["data"]["correct"])
    return out


def helm_scores(path: Path, stat: str = "exact_match") -> dict[Any, float]:
    out = {}
    for instance in json.loads(path.read_text()):
        for s in instance["stats"]:
            if s["name"]["name"] == stat and "perturbation" not in s["name"]:
                out[instance["instance_id"]] = float(s["mean"])
    return out


def promptfoo_scores(path: Path, read: Mapping[str, Any]) -> Scores:
    """promptfoo ``-o results.json`` or ``.jsonl``: a result per test, keyed by ``testIdx``;
    ``success`` as 1/0, a provider error (``failureReason`` 2) errored."""
    if path.suffix == ".json":
        results = json.loads(path.read_text())["results"]["results"]
    else:
        results = [json.loads(line) for line in path.read_text().splitlines() if line]
    return {r["testIdx"]: None if r.get("failureReason") == 2 else float(r["success"])
            for r in results}


def lighteval_scores(path: Path, read: Mapping[str, Any]) -> Scores:
    """lighteval details (``details_<task>_<timestamp>.parquet``, or a folder of them, in
    name order): keyed by (task, ``doc.id``), the ``metric`` field (``acc``) as 1/0."""
    pq = pytest.importorskip("pyarrow.parquet")
    files = [path] if path.is_file() else sorted(path.glob("details_*.parquet"))
    out: Scores = {}
    for file in files:
        task = re.fullmatch(r"details_(.+)_\d{4}-\d\d-\d\dT[\d.-]+\.parquet", file.name)
        assert task is not None, file
        for row in pq.read_table(file, columns=["doc", "metric"]).to_pylist():
            out[(task[1], row["doc"]["id"])] = float(row["metric"][read.get("score", "acc")])
    return out


def evalscope_scores(path: Path, read: Mapping[str, Any]) -> Scores:
    """evalscope reviews (a ``<subset>.jsonl``, or a work folder's ``*/reviews/*/`` files in
    name order): keyed by (the file's stem, ``group_id``), the main score."""
    files = [path] if path.is_file() else sorted(path.glob("*/reviews/*/*.jsonl"))
    out: Scores = {}
    for file in files:
        for line in file.read_text().splitlines():
            score = json.loads(line)["sample_score"]
            value = score["score"]["value"]
            out[(file.stem, score["group_id"])] = float(value[score["score"]["main_score_name"]])
    return out


def deepeval_scores(path: Path, read: Mapping[str, Any]) -> Scores:
    """A deepeval test run: keyed by the test case ``name``; its ``success``, or with a
    ``score`` the named metric's ``success``, as 1/0."""
    files = [path] if path.is_file() else sorted(path.glob("test_run_*.json"))
    out: Scores = {}
    for case in json.loads(files[-1].read_text())["testCases"]:
        if "score" in read:
            (metric,) = [m for m in case["metricsData"] if m["name"] == read["score"]]
            out[case["name"]] = float(metric["success"])
        else:
            out[case["name"]] = float(case["success"])
    return out


def opencompass_scores(path: Path, read: Mapping[str, Any]) -> Scores:
    """OpenCompass ``results/<model>/<dataset>.json`` (or the model folder, the datasets
    ``task`` names, in name order): keyed by (dataset, index), the first replica's
    ``correct`` (else ``is_correct``) as 1/0."""
    wanted = read.get("task")
    files = [path] if path.is_file() else sorted(
        f for f in path.glob("*.json") if wanted is None or f.stem in wanted)
    out: Scores = {}
    for file in files:
        details = json.loads(file.read_text())["details"]
        entries = details if isinstance(details, list) else \
            [dict(v, example_abbr=f"{file.stem}_{k}") for k, v in details.items() if k != "type"]
        for entry in entries:
            index = int(entry["example_abbr"].rsplit("_", 1)[1])
            flag = entry.get("correct", entry.get("is_correct"))
            out[(file.stem, index)] = float(flag[0] if isinstance(flag, list) else flag)
    return out


def discordant(a: Mapping[Any, float | None], b: Mapping[Any, float | None]
               ) -> dict[str, list[Any]]:
    """The keys where only A passed and where only B passed, in A's order (items scored in one
    run only, or errored, are not paired)."""
    return {"a_only": [k for k, v in a.items() if v == 1 and b.get(k) == 0],
            "b_only": [k for k, v in a.items() if v == 0 and b.get(k) == 1]}


@cache
def expected(tool: str) -> dict[str, Any]:
    recorded: dict[str, Any] = json.loads((REAL / tool / "expected.json").read_text())
    return recorded


def _reads(case: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    return (dict(case.get("read_a", case.get("read") or {})),
            dict(case.get("read_b", case.get("read") or {})))


def _by_id(f: Flip) -> Any:
    return f.id


def _by_task(f: Flip) -> Any:
    return (f.task, f.id)


_INSPECT_A, _INSPECT_B = REAL / "inspect" / "arith_a.json", REAL / "inspect" / "arith_b.eval"
_LMEVAL_A = REAL / "lmeval" / "renamed" / "samples_new.jsonl"
_LMEVAL_B = REAL / "lmeval" / "renamed" / "samples_old.jsonl"
_OPENAI_A, _OPENAI_B = (REAL / "openai_evals" / f"arith_{s}.jsonl" for s in "ab")
_HELM_A, _HELM_B = (REAL / "helm" / "fixture" / f"fixture_add:model=fixture_system-{s}" /
                    "per_instance_stats.json" for s in "ab")
_LMEVAL_READ = {"read": {"score": "exact_match", "filter": "strict"}}


def _older(path_a: Path, path_b: Path, case: dict[str, Any],
           scores: Callable[[Path], Scores], item: Callable[[Flip], Any], name: str) -> Any:
    """A pairing of the older harnesses' logs (their tables are checked elsewhere)."""
    return pytest.param(path_a, path_b, case, lambda: (scores(path_a), scores(path_b)), item,
                        id=name)


#: The tool's independent reader, and how an item of its flips is keyed.
TOOLS: dict[str, tuple[Callable[[Path, Mapping[str, Any]], Scores], Callable[[Flip], Any]]] = {
    "promptfoo": (promptfoo_scores, _by_id),
    "lighteval": (lighteval_scores, _by_task),
    "evalscope": (evalscope_scores, _by_task),
    "deepeval": (deepeval_scores, _by_id),
    "opencompass": (opencompass_scores, _by_task),
}

#: The recorded pairings of the newer tools whose flips are checked (by their names in the
#: tool's expected.json): separate files and folders, several tasks, a chosen task or metric,
#: errored items left out.
PAIRINGS = {
    "promptfoo": ["A vs B, one eval each (JSON vs JSONL)"],
    "lighteval": ["timestamp folders, both tasks", "details files, task compare_mc|0"],
    "evalscope": ["general_mcq add+mul, A vs B (work folders)",
                  "general_mcq add, A vs B with two errored samples"],
    "deepeval": ["Exact Match: A vs B", "three metrics, Pattern Match"],
    "opencompass": ["model folders, arith_gen and arith_mc", "arith_acc A vs B"],
}


def _recorded(tool: str, name: str) -> Any:
    (case,) = [c for c in expected(tool)["pairings"] if c["name"] == name]
    path_a, path_b = REAL / tool / case["a"], REAL / tool / case["b"]
    reader, item = TOOLS[tool]
    read_a, read_b = _reads(case)
    return pytest.param(path_a, path_b, case,
                        lambda: (reader(path_a, read_a), reader(path_b, read_b)), item,
                        id=f"{tool}: {name}")


CASES = [
    _older(_INSPECT_A, _INSPECT_B, {}, inspect_scores, _by_id, "inspect"),
    _older(_LMEVAL_A, _LMEVAL_B, _LMEVAL_READ,
           lambda p: lmeval_scores(p, "exact_match", "strict"), _by_id, "lm-eval"),
    _older(_OPENAI_A, _OPENAI_B, {}, openai_scores, _by_id, "openai-evals"),
    _older(_HELM_A, _HELM_B, {}, helm_scores, lambda f: f.id[0], "helm"),
    *(_recorded(tool, name) for tool, names in PAIRINGS.items() for name in names),
]
#: The pairings of runs of several tasks.
TASK_CASES = [c for c in CASES if "tasks" in c.values[2]]


def _cli(path_a: Path, path_b: Path, case: Mapping[str, Any], *extra: str | Path) -> list[str]:
    return [*compare_args(path_a, path_b, case, read_flags=READ_FLAGS, align_flags=ALIGN_FLAGS),
            *map(str, extra)]


def run_json(args: list[str]) -> dict[str, Any]:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    out: dict[str, Any] = json.loads(result.stdout)
    return out


def _library_flips(path_a: Path, path_b: Path, case: Mapping[str, Any]) -> Flips:
    read_a, read_b = _reads(case)
    return align(read_run(path_a, **read_a), read_run(path_b, **read_b),
                 **case.get("align", {})).flips()


def _json_id(value: Any) -> Any:
    return json.loads(json.dumps(value))


@pytest.mark.parametrize(("path_a", "path_b", "case", "scores", "item"), CASES)
def test_flips_are_the_discordant_items_counted_independently(
        path_a: Path, path_b: Path, case: dict[str, Any],
        scores: Callable[[], tuple[Scores, Scores]], item: Callable[[Flip], Any]) -> None:
    scores_a, scores_b = scores()
    want = discordant(scores_a, scores_b)
    flips = _library_flips(path_a, path_b, case)
    for side in ("a_only", "b_only"):
        got = flips.items(side)
        assert [item(f) for f in got] == want[side], side
        assert [(f.score_a, f.score_b) for f in got] == \
            [(scores_a[k], scores_b[k]) for k in want[side]]
        assert {f.side for f in got} <= {side}
    assert (flips.b, flips.c) == (len(want["a_only"]), len(want["b_only"]))
    if "table" in case:  # the generator's own count of the table
        assert (flips.b, flips.c) == (case["table"]["b"], case["table"]["c"])
    # The command line's JSON lists the same items, the counts being the table's cells; a
    # second run lists them in the same order.
    args = _cli(path_a, path_b, case, "--flips", "1000")
    report = run_json(args)
    for side, cell in (("a_only", "b"), ("b_only", "c")):
        block = report["flips"][side]
        assert block["count"] == report["table"][cell] == len(want[side])
        ids = [f["id"] for f in block["items"]]
        assert ids == [_json_id(f.id) for f in flips.items(side)]
        if flips.has_tasks:
            assert [f["task"] for f in block["items"]] == [f.task for f in flips.items(side)]
    assert run_json(args)["flips"] == report["flips"]


@pytest.mark.parametrize(("path_a", "path_b", "case", "scores", "item"), [
    *TASK_CASES,
    pytest.param(REAL / "inspect_tasks" / "a", REAL / "inspect_tasks" / "b",
                 {"tasks": {t: f["table"] for t, f in
                            expected("inspect_tasks")["tasks"].items()}},
                 lambda: tuple({(t, k): v for t in ("add", "mul") for k, v in inspect_scores(
                     REAL / "inspect_tasks" / side / f"{t}.eval").items()} for side in "ab"),
                 _by_task, id="inspect: a directory of logs per task"),
])
def test_per_task_flips_are_each_tasks_discordant_items(
        path_a: Path, path_b: Path, case: dict[str, Any],
        scores: Callable[[], tuple[Scores, Scores]], item: Callable[[Flip], Any]) -> None:
    """--by-task: every task's flips, labelled with the task, counted as its table's b and c,
    the items of one task together, in A's order within it."""
    scores_a, scores_b = scores()
    want = discordant(scores_a, scores_b)
    report = run_json(_cli(path_a, path_b, case, "--by-task", "--flips", "1000"))
    flips = report["flips"]
    tables = {t["task"]: t["table"] for t in report["tasks"]}
    assert set(tables) == set(case["tasks"])
    for task, table in case["tasks"].items():
        assert {k: tables[task][k] for k in "abcd"} == table, task
        for side, cell in (("a_only", "b"), ("b_only", "c")):
            got = [(f["task"], f["id"]) for f in flips[side]["items"] if f["task"] == task]
            assert got == [(t, _json_id(k)) for t, k in want[side] if t == task], (task, side)
            assert len(got) == table[cell]
    for side, cell in (("a_only", "b"), ("b_only", "c")):
        assert flips[side]["count"] == sum(t[cell] for t in case["tasks"].values())
        seq = [f["task"] for f in flips[side]["items"]]
        assert seq == sorted(seq, key=list(dict.fromkeys(seq)).index)  # one task at a time


def test_inspect_flips_show_the_recorded_input_and_target() -> None:
    samples = {s["id"]: s for s in _inspect_samples(_INSPECT_A)}
    flips = align(read_run(_INSPECT_A), read_run(_INSPECT_B)).flips()
    assert flips.content_name == "input/target"
    for f in flips:
        assert f.content is not None and f"target '{samples[f.id]['target']}'" in f.content
    report = compare_json(_INSPECT_A, _INSPECT_B)
    first = report["flips"]["a_only"]["items"][0]
    assert set(first) == {"id", "score_a", "score_b", "content"}
    assert report["flips"]["content"] == "input/target"


def test_lmeval_flips_carry_the_task_and_drop_the_run_parts_of_the_key() -> None:
    flips = align(read_run(_LMEVAL_A, score="exact_match", filter="strict"),
                  read_run(_LMEVAL_B, score="exact_match", filter="strict")).flips()
    assert flips.has_tasks and all(isinstance(f.id, int) for f in flips)
    tasks = {f.task for f in flips}
    assert len(tasks) == 1 and None not in tasks  # the task the file's name gives
    assert flips.content_name == "doc_hash"


# --- counts, order ----------------------------------------------------------------------------


@st.composite
def paired_runs(draw: Any) -> tuple[RunResults, RunResults, dict[str, Any]]:
    n = draw(st.integers(min_value=1, max_value=60))
    keys = [f"item{i}" for i in range(n)]
    a = draw(st.lists(st.sampled_from([0.0, 1.0, None]), min_size=n, max_size=n))
    b = draw(st.lists(st.sampled_from([0.0, 0.25, 0.75, 1.0, None]), min_size=n, max_size=n))
    order = draw(st.permutations(range(n)))
    run_a = RunResults.from_scores(keys, a, name="a")
    run_b = RunResults.from_scores([keys[i] for i in order], [b[i] for i in order], name="b")
    return run_a, run_b, {"a": dict(zip(keys, a, strict=True)),
                          "b": dict(zip(keys, b, strict=True)), "keys": keys}


@settings(max_examples=150, deadline=None)
@given(paired_runs())
def test_counts_are_b_and_c_and_the_items_are_in_as_order(
        runs: tuple[RunResults, RunResults, dict[str, Any]]) -> None:
    run_a, run_b, raw = runs
    try:
        al = align(run_a, run_b, on_missing="intersect", threshold=0.5)
    except McNemarError:
        return  # nothing scored in both
    flips = al.flips()
    _, b, c, _ = al.counts
    assert (flips.b, flips.c) == (b, c) == (len(flips.a_only), len(flips.b_only))
    assert len(flips) == b + c
    position = {k: i for i, k in enumerate(raw["keys"])}
    for side, want in (("a_only", (1, 0)), ("b_only", (0, 1))):
        items = flips.items(side)
        assert [position[f.id] for f in items] == sorted(position[f.id] for f in items)
        for f in items:
            assert (raw["a"][f.id], raw["b"][f.id]) == (f.score_a, f.score_b)
            assert (int(f.score_a >= 0.5), int(f.score_b >= 0.5)) == want
    # Every discordant item, none twice, and the JSON counts are b and c whatever the limit.
    ids = [f.id for f in flips]
    assert len(set(ids)) == len(ids) == b + c
    for limit in (0, 1, 5):
        d = flips.listing(limit).to_dict()
        assert (d["a_only"]["count"], d["b_only"]["count"]) == (b, c)
        assert len(d["a_only"]["items"]) == min(limit, b)
        assert len(d["b_only"]["items"]) == min(limit, c)


def test_the_order_does_not_depend_on_bs_order_nor_on_the_run() -> None:
    rng = np.random.default_rng(7)
    keys = [f"q{i}" for i in range(200)]
    a, b = rng.integers(0, 2, 200).tolist(), rng.integers(0, 2, 200).tolist()
    run_a = RunResults.from_scores(keys, a, name="a")
    seen = []
    for seed in range(3):
        order = np.random.default_rng(seed).permutation(200)
        run_b = RunResults.from_scores([keys[i] for i in order], [b[i] for i in order])
        seen.append([(f.side, f.id) for f in align(run_a, run_b).flips()])
    assert seen[0] == seen[1] == seen[2]
    assert [i for _, i in seen[0]] == [k for k, x, y in zip(keys, a, b, strict=True) if x != y]
    first = compare_json(_INSPECT_A, _INSPECT_B)["flips"]
    assert compare_json(_INSPECT_A, _INSPECT_B)["flips"] == first


def test_json_lists_twenty_by_default_and_the_text_only_when_asked(tmp_path: Path) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("id,score\n" + "".join(f"q{i},{int(i < 30)}\n" for i in range(40)))
    b.write_text("id,score\n" + "".join(f"q{i},{int(i >= 25)}\n" for i in range(40)))
    report = compare_json(a, b)
    assert report["flips"]["a_only"]["count"] == report["table"]["b"] == 25
    assert len(report["flips"]["a_only"]["items"]) == 20
    assert report["flips"]["b_only"]["count"] == report["table"]["c"] == 10
    assert len(report["flips"]["b_only"]["items"]) == 10
    assert "flipped" not in invoke(a, b).stdout
    assert "flipped" not in invoke(a, b, "--format", "markdown").stdout
    text = invoke(a, b, "--flips", "3").stdout
    assert "Items that flipped:" in text and "(25; the first 3):" in text
    assert "    - q0: score 1 vs 0" in text and "    - q30: score 0 vs 1" in text
    md = invoke(a, b, "--flips", "2", "--format", "markdown").stdout
    start = md.index("<details><summary>Items that flipped: 25 only a.csv right, "
                     "10 only b.csv right")
    block = md[start:md.index("</details>", start)]
    assert "| q0 | 1 | 0 |" in block and "| q30 | 0 | 1 |" in block and "| q2 |" not in block
    assert len(compare_json(a, b, "--flips", "0")["flips"]["a_only"]["items"]) == 0


def test_runs_counted_in_the_engine_keep_the_counts_and_say_why() -> None:
    pytest.importorskip("duckdb")
    generic = Path(__file__).parent / "data" / "io" / "generic"
    run_a = read_run(generic / "a.csv", engine="duckdb")
    run_b = read_run(generic / "b.csv", engine="duckdb")
    al = align(run_a, run_b)
    flips = al.flips()
    assert al.keys is None and (flips.b, flips.c) == al.counts[1:3] == (2, 1)
    assert not flips.available and flips.items() == [] and "engine" in (flips.reason or "")
    d = compare_runs(run_a, run_b).to_dict()["flips"]
    assert d["a_only"] == {"count": 2, "items": None} and d["b_only"]["count"] == 1
    assert "DuckDB" in d["reason"] and "\x1f" not in d["reason"]
    with pytest.raises(McNemarError, match="cannot list the flips"):
        flips.write(Path("never.csv"))
    # Paired in numpy, the same runs list their items.
    assert align(run_a, run_b, engine="numpy").flips().available


# --- files ------------------------------------------------------------------------------------


def read_back(path: Path, fields: tuple[str, ...]) -> list[dict[str, Any]]:
    """A flips file read with plain csv or json: in CSV the columns must be ``fields``, the
    scores (and difference) are read as numbers and empty cells as None; the id stays the
    cell's text."""
    if path.suffix == ".jsonl":
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        assert all(tuple(r) == fields for r in rows)
        return rows
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        assert tuple(reader.fieldnames or ()) == fields
        return [{k: (float(v) if v else None) if k in ("score_a", "score_b", "difference")
                 else v or None for k, v in r.items()} for r in reader]


def _as_written(row: dict[str, Any], ext: str) -> dict[str, Any]:
    """A flip's row as its file holds it: in CSV a composite or numeric id as JSON text."""
    ident = row["id"]
    if ext == ".csv" and not isinstance(ident, str):
        return {**row, "id": json.dumps(ident)}
    return row


@pytest.mark.parametrize("ext", [".csv", ".jsonl"])
@pytest.mark.parametrize(("path_a", "path_b", "case", "scores", "item"), CASES)
def test_flips_out_round_trip(tmp_path: Path, ext: str, path_a: Path, path_b: Path,
                              case: dict[str, Any], scores: Any, item: Any) -> None:
    out = tmp_path / f"flips{ext}"
    report = run_json(_cli(path_a, path_b, case, "--flips", "1000", "--flips-out", out))
    flips = _library_flips(path_a, path_b, case)
    back = read_back(out, FILE_FIELDS)
    assert back == [_as_written(f.row(), ext) for f in flips]
    for side, cell in (("a_only", "b"), ("b_only", "c")):
        rows = [r for r in back if r["side"] == side]
        assert len(rows) == report["table"][cell]
        items = report["flips"][side]["items"]
        assert [r["id"] for r in rows] == [_as_written(f, ext)["id"] for f in items]
        assert [r["task"] for r in rows] == [f.get("task") for f in items]
        # The file holds the content whole; the JSON an excerpt of it.
        for r, f in zip(rows, items, strict=True):
            if "content" in f:
                assert (r["content_a"] or r["content_b"]).startswith(f["content"].rstrip("…"))


def test_flips_out_per_task_holds_every_task(tmp_path: Path) -> None:
    out = tmp_path / "flips.jsonl"
    report = compare_json(REAL / "inspect_tasks" / "a", REAL / "inspect_tasks" / "b",
                          "--by-task", "--flips-out", out)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == report["flips"]["a_only"]["count"] + report["flips"]["b_only"]["count"]
    assert {r["task"] for r in rows} == {"add", "mul"}


def test_flips_out_refuses_other_extensions_before_reading(tmp_path: Path) -> None:
    result = invoke(_INSPECT_A, _INSPECT_B, "--flips-out", tmp_path / "flips.txt")
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "--flips-out" in result.stderr
    assert ".csv or .jsonl" in result.stderr and "'.txt'" in result.stderr
    assert result.stdout == "" and not (tmp_path / "flips.txt").exists()
    with pytest.raises(McNemarError) as caught:
        Flips(b=0, c=0).write(tmp_path / "x.parquet")
    assert caught.value.argument == "path"


def test_listing_refuses_a_negative_number() -> None:
    with pytest.raises(McNemarError) as caught:
        Flips(b=1, c=0).listing(-1)
    assert caught.value.argument == "flips"


def test_documents_with_flips_match_the_schemas(tmp_path: Path) -> None:
    jsonschema_rs = pytest.importorskip("jsonschema_rs")
    from mcnemar.report import json_schema as report_schema
    from mcnemar.tasks import json_schema as tasks_schema

    report = jsonschema_rs.validator_for(report_schema())
    for args in ((_INSPECT_A, _INSPECT_B), (_HELM_A, _HELM_B),
                 (_LMEVAL_A, _LMEVAL_B, "--score", "exact_match", "--filter", "strict")):
        document = compare_json(*args)
        assert "flips" in document
        report.validate(document)
    pytest.importorskip("duckdb")
    generic = Path(__file__).parent / "data" / "io" / "generic"
    counted = compare_runs(read_run(generic / "a.csv", engine="duckdb"),
                           read_run(generic / "b.csv", engine="duckdb")).to_dict()
    assert counted["flips"]["a_only"]["items"] is None
    report.validate(counted)
    suite = compare_json(REAL / "inspect_tasks" / "a", REAL / "inspect_tasks" / "b", "--by-task")
    jsonschema_rs.validator_for(tasks_schema()).validate(suite)


# --- scores that are not pass/fail: the items scored differently -----------------------------

_GRADED = REAL / "graded"


@cache
def _graded() -> dict[str, Any]:
    recorded: dict[str, Any] = json.loads((_GRADED / "expected.json").read_text())
    return recorded


def moved(a: Mapping[Any, float], b: Mapping[Any, float]) -> dict[str, list[Any]]:
    """The keys A scored higher and those B scored higher, the largest differences first, equal
    ones in A's order."""
    position = {k: i for i, k in enumerate(a)}
    ranked = sorted((k for k in a if a[k] != b[k]),
                    key=lambda k: (-abs(a[k] - b[k]), position[k]))
    return {"a_higher": [k for k in ranked if a[k] > b[k]],
            "b_higher": [k for k in ranked if a[k] < b[k]]}


def _item_means(scorer: str, side: str) -> dict[str, float]:
    """The mean of each item's samples (epochs), in the order of the recorded items."""
    return {k: sum(v) / len(v) for k, v in _graded()["scores"][side][scorer].items()}


@pytest.mark.parametrize("scorer", ["partial", "closeness"])
def test_score_flips_are_the_items_scored_differently_largest_first(scorer: str) -> None:
    """Inspect logs with partial credit, each item answered three times: every item listed
    once, with the means of its samples, sided and ordered as counted from the raw scores."""
    a, b = _item_means(scorer, "a"), _item_means(scorer, "b")
    want = moved(a, b)
    recorded = _graded()["comparisons"][scorer]
    assert (len(want["a_higher"]), len(want["b_higher"])) == \
        (recorded["higher_a"], recorded["higher_b"])
    paths = [_GRADED / "a.eval", _GRADED / "b.eval"]
    report = compare_runs(*(read_run(p, score=scorer) for p in paths))
    flips = report.flips
    assert isinstance(flips, ScoreFlips) and flips.available and not flips.shown
    assert (flips.b, flips.c) == (report.higher_a, report.higher_b) == \
        (recorded["higher_a"], recorded["higher_b"])
    for side in ("a_higher", "b_higher"):
        got = flips.items(side)
        assert [str(f.id) for f in got] == want[side], side
        assert {f.side for f in got} <= {side}
        for f in got:
            key = str(f.id)
            assert (f.score_a, f.score_b) == pytest.approx((a[key], b[key]), abs=1e-12)
            assert f.difference == f.score_a - f.score_b
            assert f.content is not None and f.content.startswith("input 'What is")
    # The command line's JSON: the same items, the counts the report's, the same every run.
    args = [*paths, "--score", scorer, "--flips", "1000"]
    document = compare_json(*args)
    assert document["schema"] == "mcnemar.scores/1"
    for side, count in (("a_higher", "higher_a"), ("b_higher", "higher_b")):
        block = document["flips"][side]
        assert block["count"] == document["counts"][count] == len(want[side])
        assert [str(f["id"]) for f in block["items"]] == want[side]
        assert all(set(f) == {"id", "score_a", "score_b", "difference", "content"}
                   for f in block["items"])
    assert document["flips"]["content"] == "input/target"
    assert compare_json(*args)["flips"] == document["flips"]


@st.composite
def graded_runs(draw: Any) -> tuple[RunResults, RunResults, dict[str, Any]]:
    n = draw(st.integers(min_value=2, max_value=60))
    keys = [f"item{i}" for i in range(n)]
    grades = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0, 0.3, 0.7])
    a = draw(st.lists(grades, min_size=n, max_size=n))
    b = draw(st.lists(grades, min_size=n, max_size=n))
    order = draw(st.permutations(range(n)))
    run_a = RunResults.from_scores(keys, a, name="a")
    run_b = RunResults.from_scores([keys[i] for i in order], [b[i] for i in order], name="b")
    return run_a, run_b, {"a": dict(zip(keys, a, strict=True)),
                          "b": dict(zip(keys, b, strict=True))}


@settings(max_examples=150, deadline=None)
@given(graded_runs())
def test_score_flips_count_every_item_scored_differently_once_largest_first(
        runs: tuple[RunResults, RunResults, dict[str, Any]]) -> None:
    run_a, run_b, raw = runs
    flips = ScoreFlips.of(align(run_a, run_b, keep_scores=True))
    want = moved(raw["a"], raw["b"])
    assert [f.id for f in flips.a_higher] == want["a_higher"]
    assert [f.id for f in flips.b_higher] == want["b_higher"]
    assert (flips.b, flips.c) == (len(want["a_higher"]), len(want["b_higher"]))
    sizes = [abs(f.difference or 0.0) for f in flips]
    assert sizes == sorted(sizes, reverse=True) and 0.0 not in sizes
    for limit in (0, 1, 5):
        d = flips.listing(limit).to_dict()
        assert (d["a_higher"]["count"], d["b_higher"]["count"]) == (flips.b, flips.c)
        assert len(d["a_higher"]["items"]) == min(limit, flips.b)
        assert len(d["b_higher"]["items"]) == min(limit, flips.c)


def _graded_csvs(folder: Path) -> tuple[Path, Path]:
    a, b = folder / "new.csv", folder / "old.csv"
    a.write_text("id,score\n" + "".join(f"q{i},{i / 10}\n" for i in range(10)))
    b.write_text("id,score\n" + "".join(f"q{i},{(9 - i) / 10 if i % 3 else i / 10}\n"
                                        for i in range(10)))
    return a, b


def test_score_flips_in_text_and_markdown_only_when_asked(tmp_path: Path) -> None:
    a, b = _graded_csvs(tmp_path)
    heading = "Items scored differently, the largest differences first:"
    assert heading not in invoke(a, b).stdout
    assert "<details><summary>Items scored" not in invoke(a, b, "--format", "markdown").stdout
    text = invoke(a, b, "--flips", "2").stdout
    assert heading in text
    # q1: 0.1 vs 0.8 and q8: 0.8 vs 0.1 are the largest on each side
    assert "  new.csv scored higher (3; the first 2):\n    - q8: score 0.8 vs 0.1 (+0.7)" in text
    assert "  old.csv scored higher (3; the first 2):\n    - q1: score 0.1 vs 0.8 (-0.7)" in text
    md = invoke(a, b, "--flips", "1", "--format", "markdown").stdout
    start = md.index("<details><summary>Items scored differently: 3 higher for new.csv, 3 "
                     "higher for old.csv (the largest differences first)</summary>")
    block = md[start:md.index("</details>", start)]
    assert "| id | new.csv | old.csv | difference |" in block
    assert "| q8 | 0.8 | 0.1 | +0.7 |" in block and "| q1 | 0.1 | 0.8 | -0.7 |" in block
    assert "| q7 |" not in block
    zero = compare_json(a, b, "--flips", "0")["flips"]
    assert zero["a_higher"] == {"count": 3, "items": []}


@pytest.mark.parametrize("ext", [".csv", ".jsonl"])
def test_score_flips_out_round_trip(tmp_path: Path, ext: str) -> None:
    out = tmp_path / f"flips{ext}"
    paths = [_GRADED / "a.eval", _GRADED / "b.eval"]
    document = compare_json(*paths, "--score", "closeness", "--flips-out", out)
    flips = compare_runs(*(read_run(p, score="closeness") for p in paths)).flips
    back = read_back(out, SCORE_FILE_FIELDS)
    assert back == [_as_written(f.row(), ext) for f in flips]
    assert [r["side"] for r in back] == [f.side for f in flips]
    assert sum(r["side"] == "a_higher" for r in back) == document["counts"]["higher_a"]
    assert sum(r["side"] == "b_higher" for r in back) == document["counts"]["higher_b"]
    assert all(r["difference"] == pytest.approx(r["score_a"] - r["score_b"]) for r in back)
    # Every item in the file, the JSON listing its first 20 of each side.
    assert len(back) == 24 == document["counts"]["higher_a"] + document["counts"]["higher_b"]
    assert [r["id"] for r in back if r["side"] == "a_higher"][:20] == \
        [_as_written(f, ext)["id"] for f in document["flips"]["a_higher"]["items"]]


def test_score_flips_task_by_task(tmp_path: Path) -> None:
    """--by-task on scores: the items of every task, labelled, counted as the task's report
    counts; listed once, on the comparison (not in each task's report)."""
    a, b = tmp_path / "new.csv", tmp_path / "old.csv"
    rows_a, rows_b = ["task,id,score"], ["task,id,score"]
    for t, shift in (("add", 0.3), ("mul", 0.0)):
        for i in range(12):
            rows_a.append(f"{t},q{i},{(i % 5) / 5}")
            rows_b.append(f"{t},q{i},{(i % 5) / 5 + (shift if i % 2 else -0.1)}")
    a.write_text("\n".join(rows_a) + "\n")
    b.write_text("\n".join(rows_b) + "\n")
    out = tmp_path / "flips.jsonl"
    document = compare_json(a, b, "--task-column", "task", "--flips", "1000", "--flips-out", out)
    assert document["schema"] == "mcnemar.score-tasks/1"
    flips = document["flips"]
    for task in document["tasks"]:
        counts = task["report"]["counts"]
        assert "flips" not in task["report"]
        for side, count in (("a_higher", "higher_a"), ("b_higher", "higher_b")):
            items = [f for f in flips[side]["items"] if f["task"] == task["task"]]
            assert len(items) == counts[count]
            sizes = [abs(f["difference"]) for f in items]
            assert sizes == sorted(sizes, reverse=True)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == flips["a_higher"]["count"] + flips["b_higher"]["count"]
    assert {r["task"] for r in rows} == {"add", "mul"}
    text = invoke(a, b, "--task-column", "task", "--flips", "1").stdout
    assert "Items scored differently, the largest differences first:" in text
    assert "Items scored" not in invoke(a, b, "--task-column", "task").stdout


def test_scores_given_as_arrays_list_no_items() -> None:
    from mcnemar import analyze_scores

    rep = analyze_scores([0.5, 0.7, 0.2], [0.4, 0.7, 0.6], random_state=0)
    assert rep.flips is None and "flips" not in rep.to_dict()


def test_score_documents_with_flips_match_the_schema(tmp_path: Path) -> None:
    jsonschema_rs = pytest.importorskip("jsonschema_rs")
    from mcnemar.scores import json_schema

    validator = jsonschema_rs.validator_for(json_schema())
    paths = [_GRADED / "a.eval", _GRADED / "b.eval"]
    for extra in ((), ("--flips", "0"), ("--flips", "3")):
        document = compare_json(*paths, "--score", "closeness", *extra)
        assert "flips" in document
        assert [e.message for e in validator.iter_errors(document)] == []
    a, b = _graded_csvs(tmp_path)
    validator.validate(compare_json(a, b))
    bad = dict(document, flips={"a_only": {"count": 1, "items": []}})
    assert not validator.is_valid(bad)
