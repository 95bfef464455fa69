"""Write Inspect AI logs with graded scores (partial credit and a numeric scorer, three
epochs), and the per-item scores read back from the archives with plain ``json``.

Run with the Python of a virtual environment holding the pinned inspect-ai (see README.md)::

    /tmp/harness-venvs/inspect/bin/python scripts/harness_fixtures/gen_graded.py \
        tests/data/io/real/graded

Systems A and B (``mockllm`` with deterministic answer functions) answer 24 arithmetic
questions three times each (``epochs=3``). Two scorers grade every answer:

* ``partial``: ``C`` for the right sum, ``P`` (partial credit) within 10 of it, ``I``
  otherwise, Inspect's ``CORRECT``/``PARTIAL``/``INCORRECT`` values;
* ``closeness``: a number, ``max(0, 1 - |answer - sum| / 50)``.

``expected.json`` holds every score of every sample as written in the logs (``samples/*.json``
members of each ``.eval`` archive, read with ``zipfile`` and ``json``), the mapping of the
letter grades to numbers (C 1, P 0.5, I 0, as Inspect's ``value_to_float``), each item's mean
over its epochs and what the score comparison must find: the items where A's mean is higher,
equal and lower, and the mean difference.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import inspect_ai
from inspect_ai import Task, eval, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    PARTIAL,
    Score,
    Target,
    accuracy,
    mean,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState, generate

N = 24
EPOCHS = 3
#: How far off each system's answer to item i is, per epoch (0 = right).
OFF = {
    "a": lambda i, e: 0 if (i + e) % 4 else (3 if i % 2 else 25),
    "b": lambda i, e: 0 if (i + 2 * e) % 3 else (5 if i % 3 else 40),
}
LETTERS = {"C": 1.0, "P": 0.5, "I": 0.0}


def _dataset() -> MemoryDataset:
    samples = [Sample(id=i, input=f"What is {7 * i + 3} + {11 * i + 5}? Answer with the number.",
                      target=str(18 * i + 8)) for i in range(1, N + 1)]
    return MemoryDataset(samples, name="graded_arith")


def _answer_fn(system: str) -> Any:
    seen: dict[str, int] = {}

    def answer(input: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        text = input[-1].text
        m = re.search(r"What is (\d+) \+ (\d+)", text)
        assert m is not None, text
        x, y = int(m[1]), int(m[2])
        i = (x - 3) // 7
        epoch = seen.get(text, 0) + 1
        seen[text] = epoch
        content = str(x + y + OFF[system](i, epoch))
        return ModelOutput.from_content(model=f"system-{system}", content=content).model_copy(
            update={"usage": ModelUsage(input_tokens=12, output_tokens=3, total_tokens=15)})

    return answer


def _number(state: TaskState) -> int | None:
    m = re.search(r"-?\d+", state.output.completion)
    return int(m[0]) if m else None


@scorer(metrics=[accuracy(), stderr()])
def partial() -> Any:
    async def score(state: TaskState, target: Target) -> Score:
        got, want = _number(state), int(target.text)
        if got == want:
            return Score(value=CORRECT, answer=str(got))
        if got is not None and abs(got - want) <= 10:
            return Score(value=PARTIAL, answer=str(got))
        return Score(value=INCORRECT, answer=str(got))

    return score


@scorer(metrics=[mean(), stderr()])
def closeness() -> Any:
    async def score(state: TaskState, target: Target) -> Score:
        got, want = _number(state), int(target.text)
        value = 0.0 if got is None else max(0.0, 1.0 - abs(got - want) / 50.0)
        return Score(value=value, answer=str(got))

    return score


@task
def graded_arith() -> Task:
    return Task(dataset=_dataset(), solver=[generate()], scorer=[partial(), closeness()],
                epochs=EPOCHS)


def _run(system: str, out: Path) -> Path:
    with tempfile.TemporaryDirectory() as tmp:
        eval(graded_arith(), model=get_model(f"mockllm/system-{system}",
                                             custom_outputs=_answer_fn(system)),
             log_dir=tmp, log_format="eval", display="none")
        produced = next(Path(tmp).glob("*.eval"))
        target = out / f"{system}.eval"
        shutil.move(produced, target)
    return target


def read_scores(path: Path) -> dict[str, dict[str, list[float]]]:
    """{scorer: {sample id: [score of epoch 1, 2, ...]}} from the archive, with plain json."""
    found: dict[str, dict[str, dict[int, float]]] = {}
    with zipfile.ZipFile(path) as archive:
        for name in archive.namelist():
            if not (name.startswith("samples/") and name.endswith(".json")):
                continue
            sample = json.loads(archive.read(name))
            for key, score in sample["scores"].items():
                value = score["value"]
                number = LETTERS[value] if isinstance(value, str) else float(value)
                found.setdefault(key, {}).setdefault(str(sample["id"]), {})[
                    sample["epoch"]] = number
    return {k: {sid: [v[e] for e in sorted(v)] for sid, v in sorted(items.items(), key=lambda
                                                                     kv: int(kv[0]))}
            for k, items in found.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    out = parser.parse_args().out
    out.mkdir(parents=True, exist_ok=True)
    paths = {s: _run(s, out) for s in ("a", "b")}
    scores = {s: read_scores(p) for s, p in paths.items()}
    expected: dict[str, Any] = {
        "harness": "inspect-ai", "version": inspect_ai.__version__,
        "files": {s: p.name for s, p in paths.items()}, "epochs": EPOCHS, "items": N,
        "letters": LETTERS, "scores": scores, "comparisons": {},
    }
    for key in ("partial", "closeness"):
        means = {s: {sid: sum(v) / len(v) for sid, v in scores[s][key].items()}
                 for s in ("a", "b")}
        diffs = [means["a"][sid] - means["b"][sid] for sid in means["a"]]
        expected["comparisons"][key] = {
            "item_means": means,
            "higher_a": sum(d > 0 for d in diffs), "equal": sum(d == 0 for d in diffs),
            "higher_b": sum(d < 0 for d in diffs),
            "difference": sum(diffs) / len(diffs),
        }
    (out / "expected.json").write_text(json.dumps(expected, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
