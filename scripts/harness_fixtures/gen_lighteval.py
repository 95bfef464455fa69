"""Write lighteval ``--save-details`` outputs with lighteval itself, and their expected tables.

Pinned: lighteval 0.13.0 (with torch 2.13.0 CPU and ``xxhash<4``). Run with the Python of a
virtual environment holding it (see README.md)::

    /tmp/harness-venvs/lighteval/bin/python scripts/harness_fixtures/gen_lighteval.py \
        tests/data/io/real/lighteval

Every run is the real command line ``lighteval custom MODEL fixture_model.py TASKS
--custom-tasks fixture_tasks.py --output-dir DIR --save-details`` (through
``lighteval/lighteval_cli.py``, see below), in a subprocess, offline: the model
(``lighteval/fixture_model.py``) returns scripted log-probabilities and is wrong on fixed,
different lists of documents for systems A and B; the tasks (``lighteval/fixture_tasks.py``)
read local JSON Lines files and are scored with ``loglikelihood_acc`` (per-document ``acc``).

Three things the throwaway environment needs, applied here:

* ``xxhash<4`` (installed with pip when a newer one is found);
* an empty ``tinyBenchmarks.pkl`` in lighteval's built-in task folder: the tinyBenchmarks
  task module downloads that file when it is imported, which is whenever the task registry
  is built;
* ``lighteval_cli.py`` runs lighteval's own command line with the built-in task modules that
  fail to import here (they call the Hub at import, with arguments the installed
  ``huggingface_hub`` no longer takes) skipped.

Written (each top folder is an ``--output-dir``; lighteval writes
``details/<model>/<timestamp>/details_<task>|<fewshot>_<timestamp>.parquet`` and
``results/<model>/results_<timestamp>.json``):

* ``output/``: models ``fixture/system-a`` and ``fixture/system-b`` on the tasks
  ``arith_mc|0`` and ``compare_mc|0`` (24 documents each); A also has an older re-run (other
  answers), which a reader of A's model folder must report as ignored.
* ``two_metrics/``: A on ``arith_mc|0`` scored with ``acc`` and ``mrr``.

The expected tables in ``expected.json`` are counted from the Parquet files with plain
``pyarrow`` (``doc.id`` -> ``metric.acc``), never with mcnemar.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _expected import paired_table
from _paths import strip_prefixes

HERE = Path(__file__).resolve().parent / "lighteval"
VERSION = "0.13.0"
N = 24
TASKS = ("arith_mc", "compare_mc")
#: Documents (``doc.id`` 0..N-1) each system answers wrongly, per task.
WRONG = {
    "a": {"arith_mc": [2, 5, 9, 13, 17, 21], "compare_mc": [0, 3, 7, 12, 16, 22]},
    "b": {"arith_mc": [1, 5, 8, 11, 14, 17, 20, 23], "compare_mc": [3, 4, 9, 10, 15, 19, 22]},
}
#: The older re-run of A is wrong on these instead.
WRONG_OLD_A = {task: list(range(8)) for task in TASKS}
MODELS = {"a": "fixture/system-a", "b": "fixture/system-b"}


# --- the environment -------------------------------------------------------------------------


def _workarounds() -> None:
    """``xxhash<4`` and the ``tinyBenchmarks.pkl`` placeholder (see the module docstring)."""
    version = importlib.metadata.version("xxhash")
    if int(version.split(".")[0]) >= 4:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "xxhash<4"], check=True)
    found = importlib.metadata.version("lighteval")
    if found != VERSION:
        sys.exit(f"lighteval {VERSION} is pinned; this environment has {found}")
    spec = importlib.util.find_spec("lighteval")
    assert spec is not None and spec.origin is not None
    placeholder = Path(spec.origin).parent / "tasks" / "tasks" / "tinyBenchmarks.pkl"
    if not placeholder.exists():
        placeholder.write_bytes(b"")


def _write_data(work: Path) -> None:
    (work / "data" / "arith").mkdir(parents=True)
    (work / "data" / "compare").mkdir(parents=True)
    with (work / "data" / "arith" / "test.jsonl").open("w") as f:
        for i in range(N):
            x, y = i + 3, 2 * i + 5
            choices = [str(x * y + k) for k in (-2, 0, 3, 7)]
            f.write(json.dumps({"x": x, "y": y, "choices": choices, "label": 1}) + "\n")
    with (work / "data" / "compare" / "test.jsonl").open("w") as f:
        for i in range(N):
            p, q = 7 * i + 11, 5 * i + 19 + (i % 3) * 6
            f.write(json.dumps({"p": p, "q": q, "label": 0 if p > q else 1}) + "\n")
    for name in ("fixture_model.py", "fixture_tasks.py"):
        shutil.copyfile(HERE / name, work / name)


def _lighteval(work: Path, model: str, wrong: dict[str, list[int]], output: str,
               tasks: str = "arith_mc|0,compare_mc|0", arith_metrics: str = "acc") -> None:
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1",
        "TRANSFORMERS_OFFLINE": "1",
        # lighteval caches model answers under ~/.cache/huggingface/lighteval, keyed by the
        # model's config: a fresh home per run, so that a re-run really answers again.
        "HOME": str(work / "home" / str(time.monotonic_ns())),
        "HF_HOME": str(work / "hf"),
        "LIGHTEVAL_FIXTURE_WRONG": json.dumps(wrong),
        "LIGHTEVAL_FIXTURE_ARITH_METRICS": arith_metrics,
    }
    argv = [sys.executable, str(HERE / "lighteval_cli.py"), "custom", model, "fixture_model.py",
            tasks, "--custom-tasks", "fixture_tasks.py", "--output-dir", output,
            "--save-details"]
    subprocess.run(argv, cwd=work, env=env, check=True)
    time.sleep(1.1)  # distinct timestamps for the next run's folders


# --- independent expectations (plain pyarrow, not mcnemar) ------------------------------------


def rows(path: Path) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    return pq.read_table(path, columns=["doc", "metric"]).to_pylist()  # type: ignore[no-any-return]


def outcomes(path: Path, metric: str = "acc") -> dict[str, float]:
    out = {}
    for r in rows(path):
        assert r["doc"]["id"] not in out, "a document twice in one details file"
        out[r["doc"]["id"]] = float(r["metric"][metric])
    return out


def pooled(files: list[Path]) -> dict[tuple[str, str], float]:
    """Outcomes of several tasks, keyed by (task, id)."""
    out = {}
    for f in files:
        for r in rows(f):
            out[r["doc"]["task_name"], r["doc"]["id"]] = float(r["metric"]["acc"])
    return out


def stamps(output: Path, model: str) -> list[Path]:
    """The timestamp folders of one model, oldest first."""
    return sorted(p for p in (output / "details" / model).iterdir() if p.is_dir())


def details(folder: Path, task: str) -> Path:
    (found,) = folder.glob(f"details_{task}|*.parquet")
    return found


def file_facts(path: Path, out: Path, model: str) -> dict[str, Any]:
    recs = rows(path)
    metrics = sorted({m for r in recs for m in r["metric"]})
    (task,) = {r["doc"]["task_name"] for r in recs}
    return {"format": "lighteval", "task": task, "tasks": [task], "model": model,
            "scorer": metrics[0] if len(metrics) == 1 else None, "metrics": metrics,
            "records": len(recs), "status": "complete", "errored": 0, "ignored": []}


def folder_facts(files: list[Path], out: Path, model: str,
                 ignored: list[Path]) -> dict[str, Any]:
    facts = [file_facts(f, out, model) for f in files]
    tasks = [f["task"] for f in facts]
    return {"format": "lighteval", "task": tasks[0] if len(tasks) == 1 else None,
            "tasks": tasks, "model": model, "scorer": "acc", "metrics": ["acc"],
            "records": sum(f["records"] for f in facts), "status": "complete", "errored": 0,
            "ignored": [str(p.relative_to(out)) for p in ignored]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    out: Path = args.out.resolve()
    _workarounds()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        _write_data(work)
        _lighteval(work, MODELS["a"], WRONG_OLD_A, "output")  # the older re-run
        _lighteval(work, MODELS["a"], WRONG["a"], "output")
        _lighteval(work, MODELS["b"], WRONG["b"], "output")
        _lighteval(work, MODELS["a"], WRONG["a"], "two_metrics", tasks="arith_mc|0",
                   arith_metrics="acc,mrr")
        for folder in ("output", "two_metrics"):
            shutil.copytree(work / folder, out / folder)
        strip_prefixes(out, [tmp, str(out)])

    output = out / "output"
    old_a, new_a = stamps(output, MODELS["a"])
    (new_b,) = stamps(output, MODELS["b"])
    (metrics_a,) = stamps(out / "two_metrics", MODELS["a"])
    rel = {"model_a": f"output/details/{MODELS['a']}", "model_b": f"output/details/{MODELS['b']}",
           "stamp_a": str(new_a.relative_to(out)), "stamp_b": str(new_b.relative_to(out)),
           "stamp_old_a": str(old_a.relative_to(out))}
    files = {(side, task): details(folder, task) for side, folder in (("a", new_a), ("b", new_b))
             for task in TASKS}
    old_files = [details(old_a, t) for t in TASKS]
    metrics_file = details(metrics_a, "arith_mc")

    def r(p: Path) -> str:
        return str(p.relative_to(out))

    runs: dict[str, Any] = {
        rel["model_a"]: folder_facts([files["a", t] for t in TASKS], out, MODELS["a"],
                                     old_files),
        rel["model_b"]: folder_facts([files["b", t] for t in TASKS], out, MODELS["b"], []),
        rel["stamp_a"]: folder_facts([files["a", t] for t in TASKS], out, MODELS["a"], []),
        rel["stamp_b"]: folder_facts([files["b", t] for t in TASKS], out, MODELS["b"], []),
        rel["stamp_old_a"]: folder_facts(old_files, out, MODELS["a"], []),
        "two_metrics": {**file_facts(metrics_file, out, MODELS["a"]), "scorer": "acc"},
        r(metrics_file): file_facts(metrics_file, out, MODELS["a"]),
    }
    for (side, _), f in files.items():
        runs[r(f)] = file_facts(f, out, MODELS[side])

    task_names = [runs[r(files["a", t])]["task"] for t in TASKS]
    per_task = {name: paired_table(outcomes(files["a", t]), outcomes(files["b", t]))
                for name, t in zip(task_names, TASKS, strict=True)}
    both = paired_table(pooled([files["a", t] for t in TASKS]),
                        pooled([files["b", t] for t in TASKS]))
    pairings: list[dict[str, Any]] = [
        {"name": "model folders, both tasks", "a": rel["model_a"], "b": rel["model_b"],
         "read": {}, "align": {}, "table": both, "tasks": per_task},
        {"name": "timestamp folders, both tasks", "a": rel["stamp_a"], "b": rel["stamp_b"],
         "read": {}, "align": {}, "table": both, "tasks": per_task},
    ]
    for name, t in zip(task_names, TASKS, strict=True):
        pairings.append({"name": f"model folders, task {name}", "a": rel["model_a"],
                         "b": rel["model_b"], "read": {"task": name}, "align": {},
                         "table": per_task[name]})
        pairings.append({"name": f"details files, task {name}", "a": r(files["a", t]),
                         "b": r(files["b", t]), "read": {}, "align": {},
                         "table": per_task[name]})
    pairings.append({"name": "model folders, task given without its few-shot count",
                     "a": rel["model_a"], "b": rel["model_b"], "read": {"task": "compare_mc"},
                     "align": {}, "table": per_task[task_names[1]]})
    acc_chosen = paired_table(outcomes(metrics_file), outcomes(files["b", "arith_mc"]))
    pairings.append({"name": "A scored with acc and mrr, acc chosen", "a": r(metrics_file),
                     "b": r(files["b", "arith_mc"]), "read": {"score": "acc"}, "align": {},
                     "table": acc_chosen})
    pairings.append({"name": "output folder of one model, acc chosen", "a": "two_metrics",
                     "b": r(files["b", "arith_mc"]), "read": {"score": "acc"}, "align": {},
                     "table": acc_chosen})
    pairings.append({"name": "older re-run of A (its timestamp folder) vs B",
                     "a": rel["stamp_old_a"], "b": rel["stamp_b"], "read": {}, "align": {},
                     "table": paired_table(pooled(old_files),
                                           pooled([files["b", t] for t in TASKS])),
                     "tasks": {name: paired_table(outcomes(old), outcomes(files["b", t]))
                               for name, old, t in zip(task_names, old_files, TASKS,
                                                       strict=True)}})
    refusals = [
        {"name": "arith_mc A vs compare_mc B (same doc ids, same metric)", "differs": "task",
         "a": r(files["a", "arith_mc"]), "b": r(files["b", "compare_mc"]), "read": {},
         "align": {}, "values": task_names, "allow": "--allow-different-tasks",
         "table": paired_table(outcomes(files["a", "arith_mc"]),
                               outcomes(files["b", "compare_mc"]))},
        {"name": "A scored by mrr vs B scored by acc", "differs": "scorer",
         "a": r(metrics_file), "b": r(files["b", "arith_mc"]), "read_a": {"score": "mrr"},
         "read_b": {}, "align": {"threshold": 1}, "values": ["mrr", "acc"],
         "allow": "--allow-different-scorers",
         "table": paired_table(outcomes(metrics_file, "mrr"), outcomes(files["b", "arith_mc"]))},
    ]
    expected = {
        "harness": "lighteval",
        "version": importlib.metadata.version("lighteval"),
        "python": sys.version.split()[0],
        "generator": "scripts/harness_fixtures/gen_lighteval.py",
        "runs": runs,
        "several_models": {"path": "output", "models": sorted(MODELS.values())},
        "pairings": pairings,
        "refusals": refusals,
    }
    (out / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
    for p in pairings + refusals:
        print(p["name"], p["table"])


if __name__ == "__main__":
    main()
