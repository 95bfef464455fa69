"""Write OpenCompass result files with per-item details with OpenCompass itself, and their
expected tables.

Pinned: opencompass 0.5.4 (Python 3.11; ``torch==2.13.0`` CPU wheel installed first, and
``pyarrow==19.0.1``, since opencompass pins numpy below 2 and newer pyarrow needs numpy 2).
Run with the Python of a virtual environment holding it (see README.md)::

    /tmp/harness-venvs/opencompass/bin/python scripts/harness_fixtures/gen_opencompass.py \
        tests/data/io/real/opencompass

The model is a ``BaseModel`` subclass registered here in OpenCompass's ``MODELS`` registry:
it computes the answer from the prompt and is wrong on fixed lists of question ids, so
systems A and B differ on known items; its ``get_ppl`` makes the wanted choice the least
perplexing one. The datasets are local JSONL files read by OpenCompass's ``JsonlDataset``,
so nothing is downloaded. Each run goes through the real command line (``opencompass
CONFIG --debug -w WORK_DIR``, called in this process so that the model is registered;
``--debug`` runs the tasks in-process). From 0.5 on the command line dumps the details by
default (``--dump-eval-details``, which sets ``eval.runner.task.dump_details=True``).

Written (each ``<run>/`` holds the ``results/`` folder of one work dir's timestamp folder,
the files unchanged):

* ``main/results/system-{a,b}/``: four datasets per model, one per layout of ``details``:
  ``arith_gen`` (``GenInferencer``, ``EMEvaluator``: a list of entries with
  ``example_abbr`` and per-replica lists ``pred``, ``answer``, ``correct``), ``arith_acc``
  (``AccwithDetailsEvaluator``: ``prompt``, ``pred``, ``refr``, ``is_correct``),
  ``arith_mc`` (``PPLInferencer``, ``AccEvaluator``, which gives no details, so the task
  formats them: an object ``{"type": "PPL", "0": {...}, ...}`` with ``origin_prediction``,
  ``predictions``, ``references`` and a boolean ``correct``) and ``arith_rep`` (the
  ``arith_gen`` questions in other words with ``n=2``: every per-item list holds two
  replicas).
* ``extra/results/system-b/other_gen.json``: another dataset with the same ids and
  evaluator (``EMEvaluator``), for B; ``extra/results/system-a/arith_plain.json``:
  ``AccEvaluator`` on a generation task, whose formatted details (``"type": "GEN"``) hold
  no per-item correctness.
* ``no_details/results/system-a/arith_gen.json``: A's ``arith_gen`` with
  ``--dump-eval-details False`` (only the aggregate score).

The expected tables in ``expected.json`` are counted from the result files with plain
``json`` (entries keyed by the index in ``example_abbr`` or by their key), never with
mcnemar.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from _expected import paired_table
from _paths import output_folder, strip_prefixes

N = 30
#: Question ids (0..N-1) each system answers wrongly, per kind of question.
WRONG = {
    "gen": {"a": {2, 6, 9, 14, 18, 23, 27}, "b": {1, 6, 11, 14, 16, 20, 25, 28, 29}},
    "acc": {"a": {0, 5, 10, 17, 21}, "b": {3, 5, 8, 12, 19, 24, 26}},
    "mc": {"a": {0, 4, 12, 19, 26}, "b": {3, 4, 8, 15, 21, 22}},
    "other": {"a": set(), "b": {2, 7, 13, 20, 27}},
}
#: ``arith_rep`` asks the ``gen`` questions in other words, twice (``n=2``): its first replica
#: is wrong on the ``gen`` lists, the second on these.
WRONG_SECOND = {"a": {2, 5, 9, 13, 22}, "b": {1, 4, 11, 16, 20, 24, 28}}

GEN_PROMPT = "Question {id}: What is {x} + {y}?\nAnswer:"
REP_PROMPT = "Question {id}: What is the sum of {x} and {y}?\nAnswer:"
ACC_PROMPT = "Question {id}: Add {x} and {y}.\nAnswer:"
MC_PROMPT = "Question {id}: What is {x} times {y}?\nAnswer: {%s}"
OTHER_PROMPT = "Question {id}: What is {x} minus {y}?\nAnswer:"

CONFIG = """\
from opencompass.datasets import JsonlDataset
from opencompass.openicl.icl_evaluator import (AccEvaluator, AccwithDetailsEvaluator,
                                               EMEvaluator)
from opencompass.openicl.icl_inferencer import GenInferencer, PPLInferencer
from opencompass.openicl.icl_prompt_template import PromptTemplate
from opencompass.openicl.icl_retriever import ZeroRetriever

datasets = [
{datasets}
]
models = [
{models}
]
"""

GEN_DATASET = """\
    dict(type=JsonlDataset, abbr={abbr!r}, path={path!r},{extra}
         reader_cfg=dict(input_columns=["id", "x", "y"], output_column={output!r}),
         infer_cfg=dict(prompt_template=dict(type=PromptTemplate, template={prompt!r}),
                        retriever=dict(type=ZeroRetriever),
                        inferencer=dict(type=GenInferencer, max_out_len=16)),
         eval_cfg=dict(evaluator=dict(type={evaluator}))),"""

MC_DATASET = """\
    dict(type=JsonlDataset, abbr="arith_mc", path={path!r},
         reader_cfg=dict(input_columns=["id", "x", "y", "A", "B", "C", "D"],
                         output_column="label"),
         infer_cfg=dict(prompt_template=dict(type=PromptTemplate, template={templates!r}),
                        retriever=dict(type=ZeroRetriever),
                        inferencer=dict(type=PPLInferencer)),
         eval_cfg=dict(evaluator=dict(type=AccEvaluator))),"""

MODEL = """\
    dict(type="FixtureModel", abbr={name!r}, path={name!r}, max_seq_len=2048, batch_size=8,
         run_cfg=dict(num_gpus=0)),"""


def _config(data: Path, names: list[str]) -> str:
    gen = {  # abbr: (prompt, output column, evaluator, file, extra config)
        "arith_gen": (GEN_PROMPT, "answers", "EMEvaluator", "arith.jsonl", ""),
        "arith_acc": (ACC_PROMPT, "target", "AccwithDetailsEvaluator", "arith.jsonl", ""),
        "arith_rep": (REP_PROMPT, "answers", "EMEvaluator", "arith.jsonl", " n=2,"),
        "other_gen": (OTHER_PROMPT, "answers", "EMEvaluator", "other.jsonl", ""),
        "arith_plain": (GEN_PROMPT, "target", "AccEvaluator", "arith.jsonl", ""),
    }
    parts = []
    for name in names:
        if name == "arith_mc":
            parts.append(MC_DATASET.format(path=str(data / "arith_mc.jsonl"),
                                           templates={k: MC_PROMPT % k for k in "ABCD"}))
        else:
            prompt, output, evaluator, file, extra = gen[name]
            parts.append(GEN_DATASET.format(abbr=name, path=str(data / file), extra=extra,
                                            output=output, prompt=prompt,
                                            evaluator=evaluator))
    models = [MODEL.format(name=f"system-{s}") for s in "ab"]
    return CONFIG.format(datasets="\n".join(parts), models="\n".join(models))


def _write_data(d: Path) -> None:
    with (d / "arith.jsonl").open("w") as f:
        for i in range(N):
            x, y = 13 * i + 4, 9 * i + 7
            f.write(json.dumps({"id": i, "x": x, "y": y, "answers": [str(x + y)],
                                "target": str(x + y)}) + "\n")
    with (d / "arith_mc.jsonl").open("w") as f:
        for i in range(N):
            x, y = i + 3, 2 * i + 5
            right = x * y
            f.write(json.dumps({"id": i, "x": x, "y": y, "A": str(right - 2), "B": str(right),
                                "C": str(right + 3), "D": str(right + 7), "label": "B"}) + "\n")
    with (d / "other.jsonl").open("w") as f:
        for i in range(N):
            x, y = 5 * i + 40, i + 2
            f.write(json.dumps({"id": i, "x": x, "y": y, "answers": [str(x - y)]}) + "\n")


def _register() -> None:
    import numpy as np
    from opencompass.models.base import BaseModel
    from opencompass.registry import MODELS

    patterns = {
        "gen": re.compile(r"Question (\d+): What is (\d+) \+ (\d+)\?"),
        "rep": re.compile(r"Question (\d+): What is the sum of (\d+) and (\d+)\?"),
        "acc": re.compile(r"Question (\d+): Add (\d+) and (\d+)\."),
        "other": re.compile(r"Question (\d+): What is (\d+) minus (\d+)\?"),
    }
    choice = re.compile(r"Question (\d+): What is (\d+) times (\d+)\?\nAnswer: (\d+)")

    @MODELS.register_module()
    class FixtureModel(BaseModel):  # type: ignore[misc]
        """Answers from fixed lists of wrong items; no weights, no tokenizer."""

        def __init__(self, path: str, **kwargs: Any) -> None:
            super().__init__(path=path, **kwargs)
            self.system = path.rsplit("-", 1)[-1]
            self.seen: dict[int, int] = {}

        def generate(self, inputs: list[Any], max_out_len: int) -> list[str]:
            out = []
            for text in map(str, inputs):
                kind, found = next(((k, m) for k, m in ((k, p.search(text))
                                                        for k, p in patterns.items()) if m),
                                   ("", None))
                if found is None:
                    raise ValueError(f"unexpected prompt {text!r}")
                i, x, y = map(int, found.groups())
                right = x - y if kind == "other" else x + y
                if kind == "rep":  # the second sight of a question is its second replica
                    replica = self.seen.get(i, 0)
                    self.seen[i] = replica + 1
                    wrong = WRONG_SECOND if replica % 2 else WRONG["gen"]
                else:
                    wrong = WRONG[kind]
                out.append(str(right + 1 if i in wrong[self.system] else right))
            return out

        def get_ppl(self, inputs: list[Any], mask_length: Any = None) -> Any:
            out = []
            for text in map(str, inputs):
                found = choice.search(text)
                if not found:
                    raise ValueError(f"unexpected prompt {text!r}")
                i, x, y, answer = map(int, found.groups())
                wanted = x * y + (3 if i in WRONG["mc"][self.system] else 0)
                out.append(0.5 if answer == wanted else 3.0)
            return np.array(out)

        def get_token_len(self, prompt: str) -> int:
            return len(str(prompt).split())

        # BaseModel declares these; the fixture's inferencers never call them.
        def encode(self, prompt: str) -> Any:
            raise NotImplementedError("the fixture inferencers use PPL and GEN only")

        def decode(self, tokens: Any) -> str:
            raise NotImplementedError("the fixture inferencers use PPL and GEN only")

        def get_ppl_tokenwise(self, inputs: list[Any], mask_length: Any = None) -> Any:
            raise NotImplementedError("the fixture inferencers use PPL and GEN only")


def _opencompass(work: Path, data: Path, run: str, names: list[str],
                 *extra: str) -> Path:
    """Run ``opencompass CONFIG --debug -w WORK/RUN``; return the timestamp folder."""
    from opencompass.cli.main import main as opencompass_main

    config = work / f"{run}_config.py"
    config.write_text(_config(data, names))
    out = work / "outputs" / run
    argv, cwd = sys.argv, os.getcwd()
    sys.argv = ["opencompass", str(config), "--debug", "-w", str(out), *extra]
    os.chdir(work)  # --debug writes its task configs to ./tmp
    try:
        opencompass_main()
    finally:
        sys.argv = argv
        os.chdir(cwd)
    (stamp,) = [p for p in out.iterdir() if p.is_dir()]
    return stamp


def _keep(stamp: Path, out: Path, run: str, files: list[str]) -> None:
    for rel in files:
        target = out / run / "results" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(stamp / "results" / rel, target)


# --- independent expectations (plain json, not mcnemar) --------------------------------------

_INDEX = re.compile(r"_(\d+)$")


def entries(path: Path) -> dict[int, dict[str, Any]]:
    """The per-item entries of a result file by item index: the number ending
    ``example_abbr`` in a list of details, the key in an object of details."""
    details = json.loads(path.read_text())["details"]
    if isinstance(details, dict):
        return {int(k): v for k, v in details.items() if k != "type"}
    found = {}
    for entry in details:
        match = _INDEX.search(entry["example_abbr"])
        assert match, entry["example_abbr"]
        found[int(match[1])] = entry
    return found


def outcomes(path: Path, field: str, replica: int | None = 0) -> dict[Any, float]:
    """Item -> 1/0 from ``field`` (a replica of a per-replica list); ``replica=None``: every
    (item, replica) pair."""
    out: dict[Any, float] = {}
    for index, entry in entries(path).items():
        value = entry[field]
        values = value if isinstance(value, list) else [value]
        if replica is None:
            for r, v in enumerate(values):
                out[(index, r)] = float(bool(v))
        else:
            out[index] = float(bool(values[replica]))
    return out


def majority(pairs: dict[Any, float]) -> dict[Any, float]:
    """Item -> 1 when more than half of its replicas pass (a tie fails)."""
    passes: dict[Any, list[float]] = {}
    for (index, _), value in pairs.items():
        passes.setdefault(index, []).append(value)
    return {k: float(2 * sum(v) > len(v)) for k, v in passes.items()}


def table_sum(*tables: dict[str, int]) -> dict[str, int]:
    return {cell: sum(t[cell] for t in tables) for cell in "abcd"}


def main() -> None:
    out = output_folder(__doc__ or "")
    for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE",
                "HF_EVALUATE_OFFLINE"):
        os.environ[var] = "1"
    _register()
    main_tasks = ["arith_gen", "arith_acc", "arith_mc", "arith_rep"]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        data = work / "data"
        data.mkdir()
        _write_data(data)
        stamp = _opencompass(work, data, "main", main_tasks)
        _keep(stamp, out, "main", [f"system-{s}/{t}.json" for s in "ab" for t in main_tasks])
        stamp = _opencompass(work, data, "extra", ["other_gen", "arith_plain"])
        _keep(stamp, out, "extra", ["system-b/other_gen.json", "system-a/arith_plain.json"])
        stamp = _opencompass(work, data, "no_details", ["arith_gen"],
                             "--dump-eval-details", "False")
        _keep(stamp, out, "no_details", ["system-a/arith_gen.json"])
        strip_prefixes(out, [tmp, str(out)])

    import opencompass

    def res(system: str, task: str, run: str = "main") -> str:
        return f"{run}/results/system-{system}/{task}.json"

    def read(rel: str, field: str, replica: int | None = 0) -> dict[Any, float]:
        return outcomes(out / rel, field, replica)

    scorers = {"arith_gen": "correct", "arith_acc": "is_correct", "arith_mc": "correct",
               "arith_rep": "correct", "other_gen": "correct"}
    runs: dict[str, Any] = {}
    for s in "ab":
        for t in main_tasks:
            runs[res(s, t)] = {"format": "opencompass", "task": t, "model": f"system-{s}",
                               "scorer": scorers[t], "records": len(read(res(s, t),
                                                                         scorers[t], None)),
                               "items": len(entries(out / res(s, t))),
                               "status": "complete", "errored": 0, "ignored": []}
    runs[res("b", "other_gen", "extra")] = {
        "format": "opencompass", "task": "other_gen", "model": "system-b", "scorer": "correct",
        "records": N, "items": N, "status": "complete", "errored": 0, "ignored": []}

    tables = {t: paired_table(read(res("a", t), scorers[t]), read(res("b", t), scorers[t]))
              for t in main_tasks}
    pairings: list[dict[str, Any]] = [
        {"name": f"{t} A vs B", "a": res("a", t), "b": res("b", t), "read": {}, "align": {},
         "table": tables[t]} for t in ("arith_gen", "arith_acc", "arith_mc")]
    pairings += [
        {"name": "arith_rep (n=2) A vs B, first replica", "a": res("a", "arith_rep"),
         "b": res("b", "arith_rep"), "read": {}, "align": {"reduce": "first"},
         "table": tables["arith_rep"]},
        {"name": "arith_rep (n=2) A vs B, majority of the replicas (a tie fails)",
         "a": res("a", "arith_rep"), "b": res("b", "arith_rep"), "read": {},
         "align": {"reduce": "majority"},
         "table": paired_table(majority(read(res("a", "arith_rep"), "correct", None)),
                               majority(read(res("b", "arith_rep"), "correct", None)))},
        {"name": "arith_rep (n=2) A vs B, every (item, replica) pair",
         "a": res("a", "arith_rep"), "b": res("b", "arith_rep"), "read": {},
         "align": {"reduce": "cluster"},
         "needs": "align(reduce='cluster') keeping the dataset part of (dataset, index) keys",
         "table": paired_table(read(res("a", "arith_rep"), "correct", None),
                               read(res("b", "arith_rep"), "correct", None))},
        {"name": "model folders, arith_gen and arith_mc", "a": "main/results/system-a",
         "b": "main/results/system-b", "read": {"task": ["arith_gen", "arith_mc"]},
         "align": {}, "tasks": {t: tables[t] for t in ("arith_gen", "arith_mc")},
         "table": table_sum(tables["arith_gen"], tables["arith_mc"])},
        {"name": "model folders, every dataset (first replica of arith_rep)",
         "a": "main/results/system-a", "b": "main/results/system-b", "read": {},
         "align": {"reduce": "first"}, "tasks": {t: tables[t] for t in sorted(main_tasks)},
         "table": table_sum(*tables.values())},
    ]
    allowed = paired_table(read(res("a", "arith_gen"), "correct"),
                           read(res("b", "other_gen", "extra"), "correct"))
    refusals = [{
        "name": "arith_gen A vs other_gen B (same ids, same evaluator)", "differs": "task",
        "a": res("a", "arith_gen"), "b": res("b", "other_gen", "extra"), "read": {},
        "align": {}, "values": ["arith_gen", "other_gen"],
        "allow": "--allow-different-tasks", "flag": "--allow-different-tasks",
        "table": allowed, "table_if_allowed": allowed,
    }]
    plain = json.loads((out / res("a", "arith_plain", "extra")).read_text())["details"]
    unreadable = {
        res("a", "arith_plain", "extra"): {
            "why": "formatted details without a per-item correctness field",
            "details_type": plain.get("type"),
            "entry_fields": sorted(plain["0"])},
        res("a", "arith_gen", "no_details"): {
            "why": "written with --dump-eval-details False: no details",
            "fields": sorted(json.loads((out / res("a", "arith_gen", "no_details"))
                                        .read_text()))},
    }
    expected = {
        "harness": "opencompass",
        "version": opencompass.__version__,
        "python": sys.version.split()[0],
        "generator": "scripts/harness_fixtures/gen_opencompass.py",
        "items": N,
        "wrong": {kind: {s: sorted(v) for s, v in lists.items()}
                  for kind, lists in WRONG.items()},
        "wrong_second_replica": {s: sorted(v) for s, v in WRONG_SECOND.items()},
        "runs": runs,
        "pairings": pairings,
        "refusals": refusals,
        "unreadable": unreadable,
    }
    (out / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
    for p in pairings + refusals:
        print(p["name"], p["table"])


if __name__ == "__main__":
    main()
