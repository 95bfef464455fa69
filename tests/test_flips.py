"""The items that flipped (:mod:`mcnemar.flips`): equal to the discordant items counted
independently, counted as b and c always, in a stable order, and written to files that read
back.

The independent count reads the real harness logs under ``tests/data/io/real/`` with plain
``json`` (an Inspect ``.eval`` archive is unzipped first), never with :mod:`mcnemar.io`, and
lists the items where exactly one run passed, in the order of run A's file.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from mcnemar.cli import main
from mcnemar.errors import McNemarError
from mcnemar.flips import FILE_FIELDS, Flips
from mcnemar.io import RunResults, align, read_run
from mcnemar.pipeline import compare_runs

REAL = Path(__file__).parent / "data" / "io" / "real"


def invoke(*args: str | Path) -> Any:
    return CliRunner().invoke(main, ["compare", *map(str, args)])


def compare_json(*args: str | Path) -> dict[str, Any]:
    result = invoke(*args, "--format", "json", "--no-progress")
    assert result.exit_code == 0, result.output
    out: dict[str, Any] = json.loads(result.stdout)
    return out


# --- the independent count ---------------------------------------------------------------------


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


def discordant(a: dict[Any, float], b: dict[Any, float]) -> dict[str, list[Any]]:
    """The ids where only A passed and where only B passed, in A's order."""
    return {"a_only": [k for k, v in a.items() if v == 1 and b[k] == 0],
            "b_only": [k for k, v in a.items() if v == 0 and b[k] == 1]}


_INSPECT_A, _INSPECT_B = REAL / "inspect" / "arith_a.json", REAL / "inspect" / "arith_b.eval"
_LMEVAL_A = REAL / "lmeval" / "renamed" / "samples_new.jsonl"
_LMEVAL_B = REAL / "lmeval" / "renamed" / "samples_old.jsonl"
_OPENAI_A, _OPENAI_B = (REAL / "openai_evals" / f"arith_{s}.jsonl" for s in "ab")
_HELM_A, _HELM_B = (REAL / "helm" / "fixture" / f"fixture_add:model=fixture_system-{s}" /
                    "per_instance_stats.json" for s in "ab")

CASES = [
    pytest.param(_INSPECT_A, _INSPECT_B, (), inspect_scores(_INSPECT_A),
                 inspect_scores(_INSPECT_B), lambda f: f.id, id="inspect"),
    pytest.param(_LMEVAL_A, _LMEVAL_B, ("--score", "exact_match", "--filter", "strict"),
                 lmeval_scores(_LMEVAL_A, "exact_match", "strict"),
                 lmeval_scores(_LMEVAL_B, "exact_match", "strict"), lambda f: f.id,
                 id="lm-eval"),
    pytest.param(_OPENAI_A, _OPENAI_B, (), openai_scores(_OPENAI_A), openai_scores(_OPENAI_B),
                 lambda f: f.id, id="openai-evals"),
    pytest.param(_HELM_A, _HELM_B, (), helm_scores(_HELM_A), helm_scores(_HELM_B),
                 lambda f: f.id[0], id="helm"),
]


@pytest.mark.parametrize(("path_a", "path_b", "flags", "scores_a", "scores_b", "item"), CASES)
def test_flips_are_the_discordant_items_counted_independently(
        path_a: Path, path_b: Path, flags: tuple[str, ...], scores_a: dict[Any, float],
        scores_b: dict[Any, float], item: Any) -> None:
    expected = discordant(scores_a, scores_b)
    options = dict(zip(flags[::2], flags[1::2], strict=True))
    read = {k.lstrip("-"): v for k, v in options.items()}
    flips = align(read_run(path_a, **read), read_run(path_b, **read)).flips()
    for side in ("a_only", "b_only"):
        got = flips.items(side)
        assert [item(f) for f in got] == expected[side], side
        assert [(f.score_a, f.score_b) for f in got] == \
            [(scores_a[k], scores_b[k]) for k in expected[side]]
        assert {f.side for f in got} <= {side}
    assert (flips.b, flips.c) == (len(expected["a_only"]), len(expected["b_only"]))
    # The command line's JSON lists the same items, the counts being the table's cells.
    report = compare_json(path_a, path_b, *flags, "--flips", "1000")
    for side, cell in (("a_only", "b"), ("b_only", "c")):
        block = report["flips"][side]
        assert block["count"] == report["table"][cell] == len(expected[side])
        ids = [f["id"] for f in block["items"]]
        assert ids == [json.loads(json.dumps(f.id)) for f in flips.items(side)]


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


def test_per_task_flips_are_each_tasks_discordant_items() -> None:
    """--by-task on a directory of Inspect logs per task: every task's flips, labelled."""
    expected = json.loads((REAL / "inspect_tasks" / "expected.json").read_text())
    report = compare_json(REAL / "inspect_tasks" / "a", REAL / "inspect_tasks" / "b",
                          "--by-task", "--flips", "1000")
    flips = report["flips"]
    assert flips["a_only"]["count"] == expected["pooled"]["b"]
    assert flips["b_only"]["count"] == expected["pooled"]["c"]
    for task, facts in expected["tasks"].items():
        want = discordant(inspect_scores(REAL / "inspect_tasks" / "a" / f"{task}.eval"),
                          inspect_scores(REAL / "inspect_tasks" / "b" / f"{task}.eval"))
        for side, cell in (("a_only", "b"), ("b_only", "c")):
            got = [f["id"] for f in flips[side]["items"] if f["task"] == task]
            assert sorted(got) == sorted(want[side]), (task, side)
            assert len(got) == facts["table"][cell]
    # Task by task in A's order: the items of one task are together.
    tasks = [f["task"] for f in flips["a_only"]["items"] + flips["b_only"]["items"]]
    assert {t for t in tasks} == set(expected["tasks"])
    for side in ("a_only", "b_only"):
        seq = [f["task"] for f in flips[side]["items"]]
        assert seq == sorted(seq, key=list(dict.fromkeys(seq)).index)


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


@pytest.mark.parametrize("ext", [".csv", ".jsonl"])
def test_flips_out_round_trip(tmp_path: Path, ext: str) -> None:
    out = tmp_path / f"flips{ext}"
    report = compare_json(_INSPECT_A, _INSPECT_B, "--flips", "1000", "--flips-out", out)
    flips = align(read_run(_INSPECT_A), read_run(_INSPECT_B)).flips()
    if ext == ".csv":
        with out.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            assert tuple(reader.fieldnames or ()) == FILE_FIELDS
            rows = list(reader)
        back = [{"side": r["side"], "id": json.loads(r["id"]), "task": r["task"] or None,
                 "score_a": float(r["score_a"]), "score_b": float(r["score_b"]),
                 "content_a": r["content_a"] or None, "content_b": r["content_b"] or None}
                for r in rows]
    else:
        back = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        assert all(tuple(r) == FILE_FIELDS for r in back)
    assert back == [f.row() for f in flips]
    assert [r["id"] for r in back if r["side"] == "a_only"] == \
        [f["id"] for f in report["flips"]["a_only"]["items"]]
    assert sum(r["side"] == "b_only" for r in back) == report["table"]["c"]
    # The file holds the content whole; the JSON an excerpt of it.
    for r, f in zip((r for r in back if r["side"] == "a_only"),
                    report["flips"]["a_only"]["items"], strict=True):
        assert r["content_a"].startswith(f["content"].rstrip("…"))


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
