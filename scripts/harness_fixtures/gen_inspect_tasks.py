"""Write a directory of Inspect AI logs for two tasks per run, and their per-task tables.

Run with the Python of a virtual environment holding the pinned inspect-ai (see README.md)::

    /tmp/harness-venvs/inspect/bin/python scripts/harness_fixtures/gen_inspect_tasks.py \
        tests/data/io/real/inspect_tasks

Each of the two systems (``mockllm`` models with a deterministic answer function: no network,
no tokenizer) runs the tasks ``add`` and ``mul`` (N arithmetic questions each), one ``.eval``
log per task, into ``a/`` and ``b/``: the layout of an Inspect log directory of a suite. The
systems are wrong on fixed, different items per task, so every per-task table has discordant
cells on both sides. ``expected.json`` holds each task's table counted from the logs with
inspect-ai's own reader (``read_eval_log``) and ``value_to_float``, never with mcnemar, and
the pooled table (their sum).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import inspect_ai
from _expected import paired_table
from inspect_ai import Task, eval, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import read_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import match, value_to_float
from inspect_ai.solver import generate

N = 20
#: Items (sample ids 1..N) each system gets wrong, per task.
WRONG = {
    ("a", "add"): {3, 7, 11, 19},
    ("b", "add"): {2, 7, 8, 10, 12, 15},
    ("a", "mul"): {1, 4, 5, 6, 9, 13, 14, 16, 18},
    ("b", "mul"): {4, 17},
}
OPS = {"add": "+", "mul": "*"}


def _dataset(name: str) -> MemoryDataset:
    op = OPS[name]
    samples = []
    for i in range(1, N + 1):
        x, y = 7 * i + 3, 11 * i + 5
        total = x + y if op == "+" else x * y
        samples.append(Sample(id=i, input=f"What is {x} {op} {y}? Answer with the number.",
                              target=str(total)))
    return MemoryDataset(samples, name=name)


def _answer_fn(system: str) -> Any:
    def answer(input: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        m = re.search(r"What is (\d+) ([+*]) (\d+)", input[-1].text)
        assert m is not None
        x, op, y = int(m[1]), m[2], int(m[3])
        i = (x - 3) // 7
        name = "add" if op == "+" else "mul"
        total = x + y if op == "+" else x * y
        right = i not in WRONG[(system, name)]
        return ModelOutput.from_content(
            model=f"system-{system}", content=str(total if right else total + 1)
        ).model_copy(update={"usage": ModelUsage(input_tokens=12, output_tokens=3,
                                                 total_tokens=15)})

    return answer


@task
def add() -> Task:
    return Task(dataset=_dataset("add"), solver=[generate()], scorer=match())


@task
def mul() -> Task:
    return Task(dataset=_dataset("mul"), solver=[generate()], scorer=match())


_TO_FLOAT = value_to_float()


def outcomes(path: Path) -> dict[Any, float | None]:
    out: dict[Any, float | None] = {}
    for s in read_eval_log(str(path)).samples or []:
        score = (s.scores or {}).get("match")
        out[s.id] = None if score is None else _TO_FLOAT(score.value)
    return out



def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    out: Path = args.out
    if out.exists():
        shutil.rmtree(out)
    os.environ.setdefault("INSPECT_LOG_LEVEL", "warning")
    files: dict[tuple[str, str], Path] = {}
    for system in ("a", "b"):
        (out / system).mkdir(parents=True)
        for name, make in (("add", add), ("mul", mul)):
            with tempfile.TemporaryDirectory() as tmp:
                eval(make(), model=get_model(f"mockllm/system-{system}",
                                             custom_outputs=_answer_fn(system)),
                     log_dir=tmp, log_format="eval", display="none")
                produced = next(Path(tmp).glob("*.eval"))
                target = out / system / f"{name}.eval"
                shutil.move(produced, target)
            files[(system, name)] = target
    tasks = {}
    for name in ("add", "mul"):
        log = read_eval_log(str(files[("a", name)]), header_only=True)
        tasks[name] = {"task": log.eval.task,
                       "table": paired_table(outcomes(files[("a", name)]),
                                      outcomes(files[("b", name)]))}
    pooled = {k: sum(t["table"][k] for t in tasks.values()) for k in "abcd"}
    expected = {
        "harness": "inspect-ai",
        "version": inspect_ai.__version__,
        "python": sys.version.split()[0],
        "generator": "scripts/harness_fixtures/gen_inspect_tasks.py",
        "a": "a", "b": "b",
        "models": {"a": "mockllm/system-a", "b": "mockllm/system-b"},
        "tasks": tasks,
        "pooled": pooled,
    }
    (out / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
    print(json.dumps(expected, indent=1))


if __name__ == "__main__":
    main()
