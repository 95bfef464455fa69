"""Write lm-evaluation-harness sample logs with lm_eval itself, and their expected tables.

Run with the Python of a virtual environment holding the pinned lm_eval (see README.md)::

    /tmp/harness-venvs/lmeval/bin/python scripts/harness_fixtures/gen_lmeval.py \
        tests/data/io/real/lmeval

The model is registered here with ``@register_model("fixture-lm")``: it answers from a fixed
list of items it gets wrong, so systems A and B differ on known documents. The tasks read a
local JSONL file (``dataset_path: json``), so nothing is downloaded. Runs go through the real
``lm-eval run ... --log_samples`` command line, called in this process so that the model is
registered.

Written (each ``<run>/`` is an ``--output_path``):

* ``a/``, ``b/``: task ``arith_gen`` (``generate_until``, metric ``exact_match``, two filters
  ``strict`` and ``flexible``); ``a/`` also holds an older re-run of A with other answers,
  which a reader of the directory must ignore.
* ``group_a/``, ``group_b/``: the group ``arith_suite`` of ``arith_gen`` and ``arith_mc``
  (``multiple_choice``, metric ``acc``).
* ``renamed/samples_new.jsonl``, ``renamed/samples_old.jsonl``: byte copies of A's and B's
  newest ``arith_gen`` samples files under names that do not follow lm_eval's pattern.
* ``graded_a/``, ``graded_b/``: task ``arith_graded`` (``generate_until`` over the same
  documents, no filter list, so filter ``none``), scored by a non-binary metric: the task's
  ``process_results: !function graded_metric.process_results`` returns ``{"f1": ...}``, the
  F1 of the answer's characters against the target, aggregated by ``mean``; every record of
  the samples files carries that number. A and B answer some documents partly (the sum
  without its last digit, the sum plus 1) or not at all (``GRADED``).

The expected tables in ``expected.json`` are counted from the samples files with plain
``json`` (records keyed by ``(doc_id, filter)``), never with mcnemar. Its key ``graded``
holds, read from the ``arith_graded`` samples files the same way, each document's ``f1``
for A and B, the paired differences A - B, their number and mean, the counts of documents
where A is higher, equal and lower, and the documents with partial credit.

``--graded-only`` writes only ``graded_a/``, ``graded_b/`` and the key ``graded`` of an
existing ``expected.json``, leaving every other folder and key as it is.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _expected import char_f1, paired_table
from _paths import strip_prefixes

N = 30
#: Documents (doc_id 0..N-1) each system answers wrongly.
WRONG = {"a": {2, 6, 10, 18, 22}, "b": {1, 6, 7, 11, 14, 18, 21, 25, 28}}
#: Documents answered in a sentence: the ``strict`` filter rejects them, ``flexible`` takes
#: the last number.
WORDY = {"a": {4, 9, 13, 27}, "b": {3, 13}}
#: The older re-run of A is wrong on these instead.
WRONG_OLD_A = {0, 1, 2, 3, 4, 5}
#: Multiple-choice documents each system gets wrong.
MC_WRONG = {"a": {0, 5, 12, 17}, "b": {5, 8, 9, 16, 20, 24}}
#: Task ``arith_graded`` (scored by a per-document character F1): documents each system
#: answers with the sum's last digit dropped (``short``: partial credit), with the sum plus 1
#: (``wrong``: the digits overlap, partial credit too) or with no number at all (``none``: 0).
GRADED = {"a": {"short": {3, 8, 15, 24}, "wrong": {2, 6, 10, 18, 22}, "none": {27}},
          "b": {"short": {1, 5, 15, 20, 26, 29}, "wrong": {6, 7, 11, 14, 18, 21, 25, 28},
                "none": {12}}}

TASK_GEN = """\
task: arith_gen
dataset_path: json
dataset_kwargs:
  data_files:
    test: arith.jsonl
test_split: test
output_type: generate_until
doc_to_text: "Question: What is {{x}} + {{y}}?\\nAnswer:"
doc_to_target: "{{answer}}"
generation_kwargs:
  until: ["\\n"]
  do_sample: false
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
filter_list:
  - name: strict
    filter:
      - function: regex
        regex_pattern: "^\\\\s*(\\\\d+)\\\\s*$"
      - function: take_first
  - name: flexible
    filter:
      - function: regex
        regex_pattern: "(\\\\d+)"
        group_select: -1
      - function: take_first
metadata:
  version: 1.0
"""

TASK_MC = """\
task: arith_mc
dataset_path: json
dataset_kwargs:
  data_files:
    test: arith_mc.jsonl
test_split: test
output_type: multiple_choice
doc_to_text: "Question: What is {{x}} times {{y}}?\\nAnswer:"
doc_to_choice: "{{choices}}"
doc_to_target: "{{label}}"
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1.0
"""

TASK_OTHER = TASK_MC.replace("task: arith_mc", "task: other_mc").replace(
    "arith_mc.jsonl", "other_mc.jsonl").replace("times", "minus")

TASK_GRADED = """\
task: arith_graded
dataset_path: json
dataset_kwargs:
  data_files:
    test: arith.jsonl
test_split: test
output_type: generate_until
doc_to_text: "Question: What is {{x}} + {{y}}?\\nAnswer:"
doc_to_target: "{{answer}}"
generation_kwargs:
  until: ["\\n"]
  do_sample: false
process_results: !function graded_metric.process_results
metric_list:
  - metric: f1
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1.0
"""

#: The module of ``process_results`` (``!function graded_metric.process_results``).
GRADED_METRIC = '''\
"""Per-document F1 of the answer's characters against the target (task arith_graded)."""

from collections import Counter


def char_f1(prediction, reference):
    common = sum((Counter(prediction) & Counter(reference)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(prediction), common / len(reference)
    return 2 * precision * recall / (precision + recall)


def process_results(doc, results):
    return {"f1": char_f1(results[0].strip(), str(doc["answer"]))}
'''

GROUP = """\
group: arith_suite
task:
  - arith_gen
  - arith_mc
aggregate_metric_list:
  - metric: exact_match
    aggregation: mean
    weight_by_size: true
metadata:
  version: 1.0
"""


def _write_data(d: Path) -> None:
    with (d / "arith.jsonl").open("w") as f:
        for i in range(N):
            x, y = 13 * i + 4, 9 * i + 7
            f.write(json.dumps({"id": i, "x": x, "y": y, "answer": str(x + y)}) + "\n")
    with (d / "arith_mc.jsonl").open("w") as f:
        for i in range(N):
            x, y = i + 3, 2 * i + 5
            right = x * y
            choices = [str(right + k) for k in (-2, 0, 3, 7)]
            f.write(json.dumps({"id": i, "x": x, "y": y, "choices": choices, "label": 1}) + "\n")
    with (d / "other_mc.jsonl").open("w") as f:
        for i in range(N):
            x, y = 5 * i + 40, i + 2
            choices = [str(x - y + k) for k in (-2, 0, 3, 7)]
            f.write(json.dumps({"id": i, "x": x, "y": y, "choices": choices, "label": 1}) + "\n")
    (d / "other_mc.yaml").write_text(TASK_OTHER)
    (d / "arith_gen.yaml").write_text(TASK_GEN)
    (d / "arith_mc.yaml").write_text(TASK_MC)
    (d / "arith_suite.yaml").write_text(GROUP)
    (d / "arith_graded.yaml").write_text(TASK_GRADED)
    (d / "graded_metric.py").write_text(GRADED_METRIC)


def _register() -> None:
    from lm_eval.api.model import LM
    from lm_eval.api.registry import register_model

    @register_model("fixture-lm")
    class FixtureLM(LM):  # type: ignore[misc]
        """Answers from fixed lists of wrong items; no weights, no tokenizer."""

        def __init__(self, pretrained: str = "system-a", variant: str = "", **kwargs: Any):
            super().__init__()
            self.system = pretrained.rsplit("-", 1)[-1]
            self.variant = variant

        def _wrong(self) -> set[int]:
            return WRONG_OLD_A if self.variant == "old" else WRONG[self.system]

        def generate_until(self, requests: list[Any], disable_tqdm: bool = False) -> list[str]:
            out = []
            for r in requests:
                doc = r.doc
                if r.task_name == "arith_graded":
                    out.append(self._graded(doc))
                    continue
                right = int(doc["answer"])
                value = right if doc["id"] not in self._wrong() else right + 1
                if doc["id"] in WORDY[self.system] and self.variant != "old":
                    out.append(f" The sum is {value}.")
                else:
                    out.append(f" {value}")
            return out

        def _graded(self, doc: dict[str, Any]) -> str:
            kinds = GRADED[self.system]
            right = doc["answer"]
            if doc["id"] in kinds["short"]:
                return f" {right[:-1]}"
            if doc["id"] in kinds["wrong"]:
                return f" {int(right) + 1}"
            if doc["id"] in kinds["none"]:
                return " I cannot tell."
            return f" {right}"

        def loglikelihood(self, requests: list[Any],
                          disable_tqdm: bool = False) -> list[tuple[float, bool]]:
            out = []
            for r in requests:
                doc = r.doc
                wanted = doc["choices"][doc["label"]]
                if doc["id"] in MC_WRONG[self.system]:
                    wanted = doc["choices"][(doc["label"] + 1) % len(doc["choices"])]
                chosen = r.arguments[1].strip() == wanted
                out.append((-0.5 if chosen else -3.0, chosen))
            return out

        def loglikelihood_rolling(self, requests: list[Any],
                                  disable_tqdm: bool = False) -> list[float]:
            return [-1.0 for _ in requests]


def _lm_eval(workdir: Path, output: Path, system: str, tasks: str, variant: str = "") -> None:
    from lm_eval._cli import HarnessCLI

    model_args = f"pretrained=system-{system}" + (f",variant={variant}" if variant else "")
    argv = ["run", "--model", "fixture-lm", "--model_args", model_args, "--tasks", tasks,
            "--include_path", str(workdir), "--output_path", str(output), "--log_samples",
            "--seed", "1234"]
    cwd = os.getcwd()
    os.chdir(workdir)  # the task's data_files are relative to it
    try:
        parser = HarnessCLI()
        parser.execute(parser._parser.parse_args(argv))
    finally:
        os.chdir(cwd)
    time.sleep(1.1)  # distinct date stamps for the next run's files


# --- independent expectations (plain json, not mcnemar) --------------------------------------


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def outcomes(path: Path, metric: str, flt: str) -> dict[int, float]:
    out = {}
    for r in records(path):
        if r["filter"] == flt:
            assert r["doc_id"] not in out, "a document twice under one filter"
            out[r["doc_id"]] = float(r[metric])
    return out



def samples(run: Path, task: str) -> list[Path]:
    """The samples files of one task in a run directory, oldest first (by the date stamp)."""
    return sorted(run.rglob(f"samples_{task}_*.jsonl"))


def run_facts(run: Path, task: str, out: Path) -> dict[str, Any]:
    files = samples(run, task)
    newest = files[-1]
    recs = records(newest)
    stamp = newest.name[len(f"samples_{task}_"):-len(".jsonl")]
    results = json.loads((newest.parent / f"results_{stamp}.json").read_text())
    return {
        "task": task,
        "file": str(newest.relative_to(out)),
        "ignored": [str(f.relative_to(out)) for f in files[:-1]],
        "model": results.get("model_name"),
        "metrics": sorted({m for r in recs for m in r["metrics"]}),
        "filters": sorted({r["filter"] for r in recs}),
        "records": len(recs),
        "documents": len({r["doc_id"] for r in recs}),
        # lm_eval records no run status; the results file is written after the samples.
        "status": None,
        "results_file": (newest.parent / f"results_{stamp}.json").name,
    }


def graded_expected(out: Path) -> dict[str, Any]:
    """Each document's ``f1`` in the ``arith_graded`` runs, read with plain ``json``, and the
    paired differences A - B."""
    facts, scores = {}, {}
    for side in ("a", "b"):
        run = out / f"graded_{side}"
        facts[side] = run_facts(run, "arith_graded", out)
        recs = records(samples(run, "arith_graded")[-1])
        for r in recs:  # the logged value is the F1 of the logged answer
            assert r["f1"] == char_f1(r["filtered_resps"][0].strip(), r["target"]), r
        per_doc = {r["doc_id"]: float(r["f1"]) for r in recs}
        assert len(per_doc) == len(recs), "a document twice"
        scores[side] = per_doc
    assert set(scores["a"]) == set(scores["b"]), "the runs hold different documents"
    docs = sorted(scores["a"])
    diffs = {i: scores["a"][i] - scores["b"][i] for i in docs}
    return {
        "task": "arith_graded", "metric": "f1", "filter": "none",
        "a": "graded_a", "b": "graded_b", "runs": facts,
        "scores": {side: {str(i): scores[side][i] for i in docs} for side in ("a", "b")},
        "differences": {str(i): diffs[i] for i in docs},
        "n": len(docs),
        "mean_a": sum(scores["a"].values()) / len(docs),
        "mean_b": sum(scores["b"].values()) / len(docs),
        "mean_difference": sum(diffs.values()) / len(docs),
        "higher_a": sum(d > 0 for d in diffs.values()),
        "equal": sum(d == 0 for d in diffs.values()),
        "higher_b": sum(d < 0 for d in diffs.values()),
        "partial_credit": {side: sorted(i for i in docs if 0 < scores[side][i] < 1)
                           for side in ("a", "b")},
    }


def _graded_runs(work: Path, out: Path) -> None:
    for side in ("a", "b"):
        _lm_eval(work, out / f"graded_{side}", side, "arith_graded")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--graded-only", action="store_true",
                        help="write only graded_a/ and graded_b/ and the key 'graded' of an "
                             "existing expected.json, leaving the other folders as they are")
    args = parser.parse_args()
    out: Path = args.out.resolve()
    os.environ["HF_DATASETS_OFFLINE"] = "1"
    os.environ["HF_HUB_OFFLINE"] = "1"
    if args.graded_only:
        expected_path = out / "expected.json"
        kept = json.loads(expected_path.read_text())
        for side in ("a", "b"):
            if (out / f"graded_{side}").exists():
                shutil.rmtree(out / f"graded_{side}")
        _register()
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            _write_data(work)
            _graded_runs(work, out)
            for side in ("a", "b"):
                strip_prefixes(out / f"graded_{side}", [tmp, str(out)])
        kept["graded"] = graded_expected(out)
        expected_path.write_text(json.dumps(kept, indent=1) + "\n")
        print("graded", kept["graded"]["n"], kept["graded"]["mean_difference"])
        return
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    _register()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        _write_data(work)
        _lm_eval(work, out / "a", "a", "arith_gen", variant="old")  # the older re-run
        _lm_eval(work, out / "a", "a", "arith_gen")
        _lm_eval(work, out / "b", "b", "arith_gen")
        _lm_eval(work, out / "group_a", "a", "arith_suite")
        _lm_eval(work, out / "group_b", "b", "arith_suite")
        _lm_eval(work, out / "other_b", "b", "other_mc")
        _graded_runs(work, out)
        strip_prefixes(out, [tmp, str(out)])
    renamed = out / "renamed"
    renamed.mkdir()
    shutil.copyfile(samples(out / "a", "arith_gen")[-1], renamed / "samples_new.jsonl")
    shutil.copyfile(samples(out / "b", "arith_gen")[-1], renamed / "samples_old.jsonl")

    import lm_eval

    runs = {
        "a": run_facts(out / "a", "arith_gen", out),
        "b": run_facts(out / "b", "arith_gen", out),
    }
    for side in ("a", "b"):
        for task in ("arith_gen", "arith_mc"):
            runs[f"group_{side}:{task}"] = run_facts(out / f"group_{side}", task, out)
    runs["other_b"] = run_facts(out / "other_b", "other_mc", out)
    for name in ("samples_new.jsonl", "samples_old.jsonl"):
        recs = records(renamed / name)
        runs[f"renamed/{name}"] = {
            "task": None, "file": f"renamed/{name}", "ignored": [],
            "model": None, "metrics": sorted({m for r in recs for m in r["metrics"]}),
            "filters": sorted({r["filter"] for r in recs}), "records": len(recs),
            "documents": len({r["doc_id"] for r in recs}), "status": None}

    def newest(run: str, task: str = "arith_gen") -> Path:
        return samples(out / run, task)[-1]

    pairings: list[dict[str, Any]] = []
    for flt in ("strict", "flexible"):
        pairings.append({
            "name": f"arith_gen directories, filter {flt}", "a": "a", "b": "b",
            "read": {"score": "exact_match", "filter": flt}, "align": {},
            "table": paired_table(outcomes(newest("a"), "exact_match", flt),
                           outcomes(newest("b"), "exact_match", flt)),
            "ignored_a": runs["a"]["ignored"]})
        pairings.append({
            "name": f"renamed single files, filter {flt}", "a": "renamed/samples_new.jsonl",
            "b": "renamed/samples_old.jsonl", "read": {"score": "exact_match", "filter": flt},
            "align": {}, "needs": "pairing on (doc_id, filter) whatever the file names",
            "table": paired_table(outcomes(renamed / "samples_new.jsonl", "exact_match", flt),
                           outcomes(renamed / "samples_old.jsonl", "exact_match", flt))})
        pairings.append({
            "name": f"group, task arith_gen, filter {flt}", "a": "group_a", "b": "group_b",
            "read": {"score": "exact_match", "filter": flt}, "task": "arith_gen", "align": {},
            "needs": "--task selecting one task of a directory",
            "table": paired_table(outcomes(newest("group_a"), "exact_match", flt),
                           outcomes(newest("group_b"), "exact_match", flt))})
    pairings.append({
        "name": "group, task arith_mc", "a": "group_a", "b": "group_b",
        "read": {"score": "acc"}, "task": "arith_mc", "align": {},
        "needs": "--task selecting one task of a directory",
        "table": paired_table(outcomes(newest("group_a", "arith_mc"), "acc", "none"),
                       outcomes(newest("group_b", "arith_mc"), "acc", "none"))})
    # The single samples files as lm_eval named them pair today (task from the name).
    pairings.append({
        "name": "arith_gen single files as named by lm_eval, filter strict",
        "a": str(newest("a").relative_to(out)), "b": str(newest("b").relative_to(out)),
        "read": {"score": "exact_match", "filter": "strict"}, "align": {},
        "table": paired_table(outcomes(newest("a"), "exact_match", "strict"),
                       outcomes(newest("b"), "exact_match", "strict"))})
    old_a = samples(out / "a", "arith_gen")[0]
    refusals = [{
        "name": "arith_mc A vs other_mc B (same doc ids, same metric)", "differs": "task",
        "a": str(newest("group_a", "arith_mc").relative_to(out)),
        "b": str(newest("other_b", "other_mc").relative_to(out)),
        "read": {"score": "acc"}, "values": ["arith_mc", "other_mc"],
        "flag": "--allow-different-tasks",
        "table_if_allowed": paired_table(outcomes(newest("group_a", "arith_mc"), "acc", "none"),
                                  outcomes(newest("other_b", "other_mc"), "acc", "none")),
    }]
    expected = {
        "harness": "lm_eval",
        "version": lm_eval.__version__,
        "python": sys.version.split()[0],
        "generator": "scripts/harness_fixtures/gen_lmeval.py",
        "runs": runs,
        "older_rerun": {"file": str(old_a.relative_to(out)),
                        "table_vs_b_strict": paired_table(outcomes(old_a, "exact_match", "strict"),
                                                   outcomes(newest("b"), "exact_match",
                                                            "strict"))},
        "pairings": pairings,
        "refusals": refusals,
        "graded": graded_expected(out),
    }
    (out / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
    for p in pairings:
        print(p["name"], p["table"])


if __name__ == "__main__":
    main()
