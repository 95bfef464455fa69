"""``mcnemar compare --by-task`` of two 57-task lm-eval directories (14,000 items in all).

The suite mirrors MMLU: 57 tasks of 200 to 290 documents (14,000 in total), one
``samples_<task>_<date>.jsonl`` per task in each run's directory, lines shaped as
lm-evaluation-harness writes them for a multiple-choice task (``doc``, ``arguments``,
``resps``, ``filtered_resps``, hashes, ``acc``). Measured end to end (read both directories,
pair every task, analyse, print the JSON) in three ways, each run ``--repeat`` times (best and
median shown, with the load average, since the machine may be shared):

* ``library``: ``read_runs`` + ``compare_runs(by_task=True)`` + ``to_dict`` in this
  process (imports warm);
* ``cli in-process``: ``mcnemar compare A B --by-task --format json`` through click's runner;
* ``cli subprocess``: the same command as a new process (includes Python start-up and the
  imports); ``... pooled``: plain ``compare`` (one pooled table) of the same directories.

The target is at most 1 s. ``--profile`` prints the top functions of one in-process run.

Usage::

    python benchmarks/bench_tasks.py [--repeat 5] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import io
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

TASKS = 57
ITEMS = 14_000
DATE = "2026-06-01T10-00-00.000001"


def make_suite(root: Path, name: str, accuracy: np.ndarray, sizes: np.ndarray,
               rng: np.random.Generator) -> Path:
    out = root / name / f"org__{name}"
    out.mkdir(parents=True)
    for t, (n, acc) in enumerate(zip(sizes.tolist(), accuracy.tolist(), strict=True)):
        task = f"mmlu_subject_{t:02d}"
        lines = []
        correct = rng.random(n) < acc
        for doc in range(n):
            question = f"Question {doc} of {task}?"
            choices = ["A", "B", "C", "D"]
            label = doc % 4
            hit = bool(correct[doc])
            resps = [[[f"{-0.5 if (i == label) == hit else -3.0}", "False"]] for i in range(4)]
            record = {
                "doc_id": doc,
                "doc": {"question": question, "choices": choices, "answer": label},
                "target": str(label),
                "arguments": {f"gen_args_{i}": {"arg_0": question + "\nAnswer:",
                                                "arg_1": f" {c}"} for i, c in
                              enumerate(choices)},
                "resps": resps,
                "filtered_resps": [r[0] for r in resps],
                "filter": "none",
                "metrics": ["acc"],
                "doc_hash": hashlib.sha256(question.encode()).hexdigest(),
                "prompt_hash": hashlib.sha256((question + "p").encode()).hexdigest(),
                "target_hash": hashlib.sha256(str(label).encode()).hexdigest(),
                "acc": 1.0 if hit else 0.0,
            }
            lines.append(json.dumps(record))
        (out / f"samples_{task}_{DATE}.jsonl").write_text("\n".join(lines) + "\n")
    (out / f"results_{DATE}.json").write_text(json.dumps({"model_name": f"org/{name}"}))
    return root / name


def run_times(fn, repeat: int) -> list[float]:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(57)
    sizes = rng.integers(200, 291, size=TASKS)
    sizes[-1] += ITEMS - sizes.sum()  # exactly 14,000 documents
    assert sizes.sum() == ITEMS and sizes.min() > 0
    base = rng.uniform(0.4, 0.9, size=TASKS)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        a = make_suite(root, "candidate", np.clip(base + rng.normal(0, 0.04, TASKS), 0, 1),
                       sizes, rng)
        b = make_suite(root, "baseline", base, sizes, rng)
        size_mb = sum(p.stat().st_size for p in root.rglob("*.jsonl")) / 1e6
        print(f"suite: {TASKS} tasks, {ITEMS} items per run, {size_mb:.1f} MB of JSONL in all")

        from click.testing import CliRunner

        from mcnemar.cli import main as cli
        from mcnemar.pipeline import compare_runs, read_runs

        def library() -> None:
            side_a, side_b = read_runs([a, b])
            res = compare_runs(side_a, side_b, by_task=True)
            json.dumps(res.to_dict(), allow_nan=False)

        argv = ["compare", str(a), str(b), "--by-task", "--format", "json"]

        def in_process() -> None:
            result = CliRunner().invoke(cli, argv)
            assert result.exit_code == 0, result.output

        def subprocess_run(args: list[str] = argv) -> None:
            subprocess.run([sys.executable, "-m", "mcnemar", *args], check=True,
                           stdout=subprocess.DEVNULL)

        def subprocess_pooled() -> None:
            subprocess_run(["compare", str(a), str(b), "--format", "json"])

        library()  # warm the imports
        doc = json.loads(CliRunner().invoke(cli, argv).stdout)
        assert len(doc["tasks"]) == TASKS
        assert sum(t["table"]["n"] for t in doc["tasks"]) == ITEMS
        print(f"load average before: {load_average()}")
        rows = [("library", run_times(library, args.repeat)),
                ("cli in-process", run_times(in_process, args.repeat)),
                ("cli subprocess", run_times(subprocess_run, args.repeat)),
                ("... pooled", run_times(subprocess_pooled, args.repeat))]
        print(f"{'way':<16} {'best s':>7} {'median s':>9}  target <= 1 s (median)")
        for name, times in rows:
            best, median = min(times), statistics.median(times)
            print(f"{name:<16} {best:7.3f} {median:9.3f}  {'met' if median <= 1.0 else 'MISSED'}")
        print(f"load average after: {load_average()}")
        if args.profile:
            prof = cProfile.Profile()
            prof.enable()
            in_process()
            prof.disable()
            buf = io.StringIO()
            pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(25)
            print(buf.getvalue())


if __name__ == "__main__":
    main()
