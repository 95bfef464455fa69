"""Write promptfoo eval outputs with ``promptfoo eval`` itself, and their expected tables.

Pinned: promptfoo 0.121.20 (npm), run by Node.js 20 or newer. Install it into a folder of
its own and run this script with any Python 3.11+ (it imports nothing but the standard
library and the two helpers beside it)::

    npm install --prefix /tmp/harness-venvs/promptfoo promptfoo@0.121.20
    python3 scripts/harness_fixtures/gen_promptfoo.py tests/data/io/real/promptfoo \
        --promptfoo /tmp/harness-venvs/promptfoo/node_modules/.bin/promptfoo

Each eval is a config written to a temporary folder beside a copy of
``promptfoo/provider.js``: a scripted provider that answers ``What is x + y?`` from the test's
vars, wrong on the fixed lists of items below and throwing on A's item 6 (promptfoo records a
provider error: ``failureReason`` 2, CSV status ``ERROR``). Every test carries ``equals``
``{{answer}}`` (``defaultTest``), except A's ``contains`` variant. Each eval is
``promptfoo eval -c config.yaml -o NAME.json -o NAME.jsonl -o NAME.csv --no-cache --no-share``
with telemetry, update checks, sharing and remote generation off, its database, logs and cache
in the temporary folder, and (where ``unshare`` works) no network at all.

The evals (20 tests): ``a`` (system A alone), ``b`` (B alone), ``ab`` (both providers in one
eval), ``a_contains`` (A scored with ``contains``, a different scorer, over the first 10
tests) and ``prompts2`` (both providers and two prompts over the first 4 tests: the prompt is
part of the item key). Every eval writes all three forms; ``KEEP`` lists the files kept, which
are unchanged except that the temporary folders are cut from the provider-error stack traces
(``_paths.py``).

The expected tables in ``expected.json`` are counted from the written files with plain
``json`` and ``csv`` (``success`` / ``Status`` per test and provider, provider errors left
out), never with mcnemar.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _expected import paired_table
from _paths import strip_prefixes

HERE = Path(__file__).resolve().parent
VERSION = "0.121.20"
N = 20
#: Items each system gets wrong, and the item on which A's provider throws.
WRONG = {"a": [1, 4, 9, 13, 17], "b": [4, 5, 8, 11, 15, 18]}
ERRORS = {"a": [6], "b": []}
#: With the second prompt ("terse"), each system is also wrong on these items.
WRONG_TERSE = {"a": [2, 3], "b": [0]}
PROMPT = "What is {{x}} + {{y}}? Answer with the number only."
TERSE = {"id": "terse", "label": "terse", "raw": "{{x}}+{{y}}="}
LABELS = {"a": "system-a", "b": "system-b"}
#: The outputs kept of each eval: a results.json holds about 3 KB per result and a JSONL
#: file half that, so the fixtures keep one JSON and one JSONL form of the runs of one
#: provider each (the other forms stay in the temporary folder), all three forms of the eval
#: with both providers, and small evals for the scorer and prompt variants.
KEEP = {"a": ("json", "csv"), "b": ("jsonl", "csv"), "ab": ("json", "jsonl", "csv"),
        "a_contains": ("jsonl",), "prompts2": ("jsonl", "csv")}


def _tests(n: int) -> list[dict[str, Any]]:
    tests = []
    for i in range(n):
        x, y = 8 * i + 1, 5 * i + 2
        test: dict[str, Any] = {"vars": {"item": i, "x": x, "y": y, "answer": str(x + y)}}
        if i != n - 1:  # the last test has no description (the CSV cell is then empty)
            test = {"description": f"sum {i}", **test}
        tests.append(test)
    return tests


def _provider(system: str, terse: bool = False) -> dict[str, Any]:
    config: dict[str, Any] = {"wrong": WRONG[system], "errors": ERRORS[system]}
    if terse:
        config["wrong_by_prompt"] = {"terse": WRONG_TERSE[system]}
    return {"id": "file://provider.js", "label": LABELS[system], "config": config}


def _configs() -> dict[str, dict[str, Any]]:
    equals = {"assert": [{"type": "equals", "value": "{{answer}}"}]}
    contains = {"assert": [{"type": "contains", "value": "{{answer}}"}]}
    base = {"description": "arith", "prompts": [PROMPT], "tests": _tests(N)}
    return {
        "a": {**base, "providers": [_provider("a")], "defaultTest": equals},
        "b": {**base, "providers": [_provider("b")], "defaultTest": equals},
        "ab": {**base, "providers": [_provider("a"), _provider("b")], "defaultTest": equals},
        "a_contains": {**base, "providers": [_provider("a")], "defaultTest": contains,
                       "tests": _tests(10)},
        "prompts2": {"description": "arith", "prompts": [PROMPT, TERSE], "tests": _tests(4),
                     "providers": [_provider("a", True), _provider("b", True)],
                     "defaultTest": equals},
    }


def _offline_prefix() -> list[str]:
    """``unshare -n`` (a network namespace with no interfaces) where it works, else nothing."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return []
    for args in ([unshare, "-n"], [unshare, "-rn"]):
        if subprocess.run([*args, "true"], capture_output=True).returncode == 0:
            return args
    return []


def _run(promptfoo: Path, name: str, config: dict[str, Any], work: Path,
         env: dict[str, str], prefix: list[str]) -> Path:
    folder = work / name
    folder.mkdir()
    shutil.copy(HERE / "promptfoo" / "provider.js", folder / "provider.js")
    # JSON is YAML: the config needs no YAML writer.
    (folder / "config.yaml").write_text(json.dumps(config, indent=1) + "\n")
    outputs = [f"{name}.{ext}" for ext in ("json", "jsonl", "csv")]
    command = [*prefix, str(promptfoo), "eval", "-c", "config.yaml",
               *[x for o in outputs for x in ("-o", o)], "--no-cache", "--no-share",
               "--no-progress-bar", "--no-table", "-j", "1"]
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
    # promptfoo exits with 100 when some test failed; that is the point of the fixture.
    if done.returncode not in (0, 100) or not (folder / outputs[0]).is_file():
        sys.exit(f"promptfoo eval failed for {name} ({done.returncode}):\n{done.stdout}\n"
                 f"{done.stderr}")
    return folder


# --- the independent count ---------------------------------------------------------------


def json_outcomes(path: Path, label: str) -> dict[Any, float | None]:
    """(prompt position, testIdx) or testIdx -> 1/0 pass, None for a provider error."""
    if path.suffix == ".json":
        results = json.loads(path.read_text())["results"]["results"]
    else:
        results = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    mine = [r for r in results if r["provider"].get("label", r["provider"]["id"]) == label]
    columns = sorted({r["promptIdx"] for r in mine})
    out: dict[Any, float | None] = {}
    for r in mine:
        position = columns.index(r["promptIdx"])
        key = (position, r["testIdx"]) if len(columns) > 1 else r["testIdx"]
        assert key not in out
        out[key] = None if r["failureReason"] == 2 else float(bool(r["success"]))
    return out


def csv_outcomes(path: Path, label: str) -> dict[Any, float | None]:
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    header, body = rows[0], rows[1:]
    outputs = [j for j, h in enumerate(header) if h.startswith(f"[{label}] ")
               and header[j + 1] == "Status"]
    out: dict[Any, float | None] = {}
    for i, row in enumerate(body):
        for position, j in enumerate(outputs):
            status = row[j + 1]
            key = (position, i) if len(outputs) > 1 else i
            out[key] = None if status == "ERROR" else float(status == "PASS")
    return out


def outcomes(path: Path, label: str) -> dict[Any, float | None]:
    return csv_outcomes(path, label) if path.suffix == ".csv" else json_outcomes(path, label)


def table(a: tuple[Path, str], b: tuple[Path, str]) -> dict[str, int]:
    """The table of two runs, items without a pass value (provider errors) left out."""
    oa, ob = outcomes(*a), outcomes(*b)
    keep = [k for k in oa if k in ob and oa[k] is not None and ob[k] is not None]
    return paired_table({k: oa[k] for k in keep}, {k: ob[k] for k in keep})


def _assertion_types(results: list[dict[str, Any]]) -> list[str]:
    return sorted({a["type"] for r in results for a in r["testCase"].get("assert", [])})


def run_facts(path: Path, label: str) -> dict[str, Any]:
    facts: dict[str, Any] = {"format": "promptfoo", "file": path.name, "run": label,
                             "model": label}
    found = outcomes(path, label)
    facts["records"] = len(found)
    facts["errored"] = sum(v is None for v in found.values())
    facts["errored_keys"] = [k for k, v in found.items() if v is None]
    if path.suffix == ".json":
        doc = json.loads(path.read_text())
        results = [r for r in doc["results"]["results"] if r["provider"]["label"] == label]
        facts.update(task=doc["config"].get("description"),
                     scorer=", ".join(_assertion_types(results)), status="complete",
                     promptfoo_version=doc["metadata"]["promptfooVersion"])
    elif path.suffix == ".jsonl":
        results = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
        results = [r for r in results if r["provider"]["label"] == label]
        # A JSONL file is written while the eval runs: it does not say whether it finished.
        facts.update(task=None, scorer=", ".join(_assertion_types(results)), status=None)
    else:  # the CSV records neither the eval's description nor its assertions
        facts.update(task=None, scorer=None, status="complete")
    facts["ignored"] = []
    return facts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--promptfoo", type=Path, required=True,
                        help="the promptfoo executable (node_modules/.bin/promptfoo)")
    args = parser.parse_args()
    out: Path = args.out.resolve()
    promptfoo = args.promptfoo.absolute()
    # <folder>/node_modules/promptfoo/dist/src/entrypoint.js: the folder npm installed into
    npm_folder = promptfoo.resolve().parents[4]
    version = json.loads((promptfoo.resolve().parents[2] / "package.json").read_text())["version"]
    if version != VERSION:
        sys.exit(f"promptfoo {version} found; this generator is pinned to {VERSION}")
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    prefix = _offline_prefix()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        env = dict(os.environ, PROMPTFOO_DISABLE_TELEMETRY="1", PROMPTFOO_DISABLE_UPDATE="1",
                   PROMPTFOO_DISABLE_SHARING="1", PROMPTFOO_DISABLE_REMOTE_GENERATION="1",
                   PROMPTFOO_DISABLE_REDTEAM_REMOTE_GENERATION="1",
                   PROMPTFOO_CONFIG_DIR=str(work / ".promptfoo"),
                   PROMPTFOO_CACHE_PATH=str(work / ".promptfoo-cache"),
                   NODE_NO_WARNINGS="1", NO_COLOR="1")
        for name, config in _configs().items():
            folder = _run(promptfoo, name, config, work, env, prefix)
            for ext in KEEP[name]:
                shutil.copy(folder / f"{name}.{ext}", out / f"{name}.{ext}")
        strip_prefixes(out, [str(work), str(npm_folder), tmp])
    a, b = LABELS["a"], LABELS["b"]
    runs: dict[str, Any] = {}
    for name in ("a", "b", "a_contains"):
        label = a if name != "b" else b
        for ext in KEEP[name]:
            runs[f"{name}.{ext}"] = run_facts(out / f"{name}.{ext}", label)
    for name in ("ab", "prompts2"):
        for ext in KEEP[name]:
            for label in (a, b):
                runs[f"{name}.{ext}@{label}"] = run_facts(out / f"{name}.{ext}", label)
    intersect = {"on_missing": "intersect"}

    def pairing(name: str, file_a: str, file_b: str, run_a: str | None = None,
                run_b: str | None = None) -> dict[str, Any]:
        case: dict[str, Any] = {"name": name, "a": file_a, "b": file_b}
        if run_a is None and run_b is None:
            case["read"] = {}
        if run_a is not None:
            case["read_a"] = {"run": run_a}
        if run_b is not None:
            case["read_b"] = {"run": run_b}
        case["align"] = intersect
        case["table"] = table((out / file_a, a), (out / file_b, b))
        return case

    pairings = [pairing("A vs B, one eval each (JSON vs JSONL)", "a.json", "b.jsonl"),
                pairing("A vs B, one eval each (CSV)", "a.csv", "b.csv"),
                pairing("A (CSV) vs B (JSONL)", "a.csv", "b.jsonl")]
    for ext in KEEP["ab"]:
        pairings.append(pairing(f"A vs B, both providers in one eval ({ext})", f"ab.{ext}",
                                f"ab.{ext}", a, b))
    pairings.append(pairing("A alone vs B of the two-provider eval", "a.json", "ab.json",
                            None, b))
    for ext in KEEP["prompts2"]:
        pairings.append(pairing(f"two prompts, A vs B ({ext})", f"prompts2.{ext}",
                                f"prompts2.{ext}", a, b))
    refusals = [{**pairing("A scored with contains vs B scored with equals",
                           "a_contains.jsonl", "b.jsonl"),
                 "differs": "scorer", "values": ["contains", "equals"],
                 "allow": "--allow-different-scorers"}]
    expected = {
        "harness": "promptfoo",
        "version": version,
        "node": subprocess.run(["node", "--version"], capture_output=True,
                               text=True).stdout.strip(),
        "python": sys.version.split()[0],
        "generator": "scripts/harness_fixtures/gen_promptfoo.py",
        "offline": "unshare -n" if prefix else "environment variables only",
        "runs": runs,
        "pairings": pairings,
        "refusals": refusals,
    }
    (out / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
    for p in pairings:
        print(p["name"], p["table"])


if __name__ == "__main__":
    main()
