"""Write OpenAI evals logs with ``oaieval`` itself, and their expected paired table.

Run with the Python of a virtual environment holding the pinned ``evals`` (see README.md)::

    /tmp/harness-venvs/evals/bin/python scripts/harness_fixtures/gen_openai_evals.py \
        tests/data/io/real/openai_evals

A registry written to a temporary folder (``--registry_path``) holds a ``Match`` eval
(``evals.elsuite.basic.match:Match``) over local samples and two completion functions,
``fixture/system-a`` and ``fixture/system-b``, defined here: they answer from fixed lists of
wrong items, so nothing reaches the network (``OPENAI_API_KEY`` is a placeholder that only lets
the package import). Each run is ``oaieval <fn> arith --record_path <file>`` in a child process.

The expected table in ``expected.json`` is counted from the logs with plain ``json`` (the
``match`` events' ``sample_id`` and ``data.correct``), never with mcnemar.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _expected import paired_table
from _paths import output_folder, strip_prefixes

N = 30
WRONG = {"a": {1, 4, 9, 15, 20, 26}, "b": {4, 5, 8, 11, 15, 17, 22, 24, 27}}

COMPLETION_MODULE = '''\
"""Completion functions answering from fixed lists of wrong items (no network)."""
import re

WRONG = %r


class Result:
    def __init__(self, text):
        self.text = text

    def get_completions(self):
        return [self.text]


class FixtureCompletionFn:
    def __init__(self, system="a", **kwargs):
        self.system = system

    def __call__(self, prompt, **kwargs):
        text = prompt[-1]["content"] if isinstance(prompt, list) else str(prompt)
        m = re.search(r"#(\\d+): What is (\\d+) \\+ (\\d+)", text)
        i, x, y = int(m[1]), int(m[2]), int(m[3])
        total = x + y if i not in WRONG[self.system] else x + y + 1
        return Result(str(total))
'''


def _write_registry(root: Path) -> None:
    (root / "evals").mkdir(parents=True)
    (root / "completion_fns").mkdir()
    (root / "data" / "arith").mkdir(parents=True)
    with (root / "data" / "arith" / "samples.jsonl").open("w") as f:
        for i in range(N):
            x, y = 8 * i + 1, 5 * i + 2
            f.write(json.dumps({
                "input": [{"role": "system", "content": "Answer with the number only."},
                          {"role": "user", "content": f"#{i}: What is {x} + {y}?"}],
                "ideal": str(x + y)}) + "\n")
    (root / "evals" / "arith.yaml").write_text(
        "arith:\n  id: arith.dev.v0\n  metrics: [accuracy]\n"
        "arith.dev.v0:\n  class: evals.elsuite.basic.match:Match\n"
        "  args:\n    samples_jsonl: arith/samples.jsonl\n")
    (root / "completion_fns" / "fixture.yaml").write_text("".join(
        f"fixture/system-{s}:\n  class: fixture_completion:FixtureCompletionFn\n"
        f"  args:\n    system: {s}\n" for s in ("a", "b")))
    (root / "fixture_completion.py").write_text(COMPLETION_MODULE % (
        {k: sorted(v) for k, v in WRONG.items()},))


def outcomes(path: Path) -> dict[str, bool]:
    out = {}
    for line in path.read_text().splitlines():
        event = json.loads(line)
        if event.get("type") == "match":
            assert event["sample_id"] not in out
            out[event["sample_id"]] = bool(event["data"]["correct"])
    return out



def main() -> None:
    out = output_folder(__doc__ or "")
    # The package lists the API's models when it starts: point it at a closed local port so
    # that nothing leaves the machine.
    env = dict(os.environ, OPENAI_API_KEY="sk-placeholder-not-used", EVALS_THREADS="1",
               OPENAI_BASE_URL="http://127.0.0.1:9/v1", EVALS_SHOW_EVAL_PROGRESS="")
    with tempfile.TemporaryDirectory() as tmp:
        registry = Path(tmp) / "registry"
        _write_registry(registry)
        env["PYTHONPATH"] = str(registry)
        for s in ("a", "b"):
            subprocess.run(
                [sys.executable, "-c", "from evals.cli.oaieval import main; main()",
                 f"fixture/system-{s}", "arith", "--registry_path", str(registry),
                 "--record_path", str(out / f"arith_{s}.jsonl"), "--no-cache"],
                check=True, env=env, cwd=tmp)
        strip_prefixes(out, [tmp, str(out)])
    import importlib.metadata

    runs: dict[str, Any] = {}
    for s in ("a", "b"):
        path = out / f"arith_{s}.jsonl"
        lines = [json.loads(x) for x in path.read_text().splitlines()]
        spec = lines[0]["spec"]
        matches = outcomes(path)
        runs[path.name] = {
            "format": "openai-evals", "task": spec["eval_name"], "base_eval": spec["base_eval"],
            "model": ", ".join(spec["completion_fns"]), "scorer": "data.correct",
            "records": len(matches),
            "status": "complete" if any("final_report" in x for x in lines) else "unfinished",
            "errored": 0, "ignored": [],
        }
    expected = {
        "harness": "evals",
        "version": importlib.metadata.version("evals"),
        "python": sys.version.split()[0],
        "generator": "scripts/harness_fixtures/gen_openai_evals.py",
        "runs": runs,
        "pairings": [{"name": "arith A vs B", "a": "arith_a.jsonl", "b": "arith_b.jsonl",
                      "read": {}, "align": {},
                      "table": paired_table(outcomes(out / "arith_a.jsonl"),
                                     outcomes(out / "arith_b.jsonl"))}],
        "refusals": [],
    }
    (out / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
    print(expected["pairings"][0]["table"])


if __name__ == "__main__":
    main()
