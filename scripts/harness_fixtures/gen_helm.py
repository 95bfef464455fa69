"""Write HELM run directories with ``helm-run`` itself, and their expected paired tables.

Run with the Python of a virtual environment holding the pinned crfm-helm (see README.md)::

    /tmp/harness-venvs/helm/bin/python scripts/harness_fixtures/gen_helm.py \
        tests/data/io/real/helm

The scenarios, run specs and client come from ``helm_fixture_plugin.py`` beside this script
(``--plugins``); the two models ``fixture/system-a`` and ``fixture/system-b`` are declared in a
``--local-path`` folder written here, with HELM's own ``simple/tokenizer1``. Two scenarios
(``fixture_add``, ``fixture_mul``) are run for both models in one suite. Of each run
directory only ``per_instance_stats.json`` and ``run_spec.json`` (what a reader needs) are
kept, unchanged.

The expected tables in ``expected.json`` are counted from ``per_instance_stats.json`` with
plain ``json`` (the ``exact_match`` stat's ``mean`` of each unperturbed instance), never with
mcnemar.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _expected import paired_table
from _paths import output_folder

HERE = Path(__file__).resolve().parent
SUITE = "fixture"
KEEP = ("per_instance_stats.json", "run_spec.json")

DEPLOYMENTS = "model_deployments:\n" + "".join(
    f"  - name: fixture/system-{s}\n"
    f"    model_name: fixture/system-{s}\n"
    "    tokenizer_name: simple/tokenizer1\n"
    "    max_sequence_length: 2048\n"
    "    client_spec:\n"
    "      class_name: \"helm_fixture_plugin.FixtureClient\"\n" for s in ("a", "b"))
METADATA = "models:\n" + "".join(
    f"  - name: fixture/system-{s}\n"
    f"    display_name: Fixture system {s.upper()}\n"
    "    description: Answers from a fixed list of wrong items.\n"
    "    creator_organization_name: Fixture\n"
    "    access: open\n"
    "    release_date: 2026-01-01\n"
    "    tags: [TEXT_MODEL_TAG, FULL_FUNCTIONALITY_TEXT_MODEL_TAG]\n" for s in ("a", "b"))


def outcomes(run_dir: Path, stat: str = "exact_match") -> dict[str, float]:
    out = {}
    for entry in json.loads((run_dir / "per_instance_stats.json").read_text()):
        if entry.get("perturbation") is not None:
            continue
        values = [s["mean"] for s in entry["stats"] if s["name"]["name"] == stat
                  and s["name"].get("perturbation") is None]
        assert len(values) == 1, entry["instance_id"]
        assert entry["instance_id"] not in out
        out[entry["instance_id"]] = float(values[0])
    return out


def _scenario(spec: dict[str, Any]) -> str:
    name = spec["class_name"].rsplit(".", 1)[-1]
    args = spec.get("args") or {}
    return name + (":" + ",".join(f"{k}={v}" for k, v in sorted(args.items())) if args else "")



def main() -> None:
    out = output_folder(__doc__ or "")
    entries = [f"fixture_{sc}:model=fixture/system-{s}" for sc in ("add", "mul")
               for s in ("a", "b")]
    with tempfile.TemporaryDirectory() as tmp:
        local = Path(tmp) / "prod_env"
        local.mkdir()
        (local / "model_deployments.yaml").write_text(DEPLOYMENTS)
        (local / "model_metadata.yaml").write_text(METADATA)
        # HELM's metrics module downloads NLTK's punkt_tab unless it finds it; exact match
        # never tokenizes, so an empty placeholder keeps the run offline.
        nltk_data = Path(tmp) / "nltk_data"
        (nltk_data / "tokenizers" / "punkt_tab").mkdir(parents=True)
        env = dict(os.environ, PYTHONPATH=str(HERE), HF_HUB_OFFLINE="1",
                   HF_DATASETS_OFFLINE="1", NLTK_DATA=str(nltk_data))
        subprocess.run(
            [sys.executable, "-c", "from helm.benchmark.run import main; main()",
             "--run-entries", *entries, "--suite", SUITE, "--max-eval-instances", "30",
             "--plugins", "helm_fixture_plugin", "--local-path", str(local),
             "--output-path", str(Path(tmp) / "benchmark_output"), "--disable-cache"],
            check=True, env=env, cwd=tmp)
        runs_dir = Path(tmp) / "benchmark_output" / "runs" / SUITE
        for run in sorted(p for p in runs_dir.iterdir() if (p / KEEP[0]).is_file()):
            target = out / SUITE / run.name
            target.mkdir(parents=True)
            for name in KEEP:
                shutil.copyfile(run / name, target / name)

    runs: dict[str, Any] = {}
    for run in sorted((out / SUITE).iterdir()):
        spec = json.loads((run / "run_spec.json").read_text())
        stats = json.loads((run / "per_instance_stats.json").read_text())
        runs[f"{SUITE}/{run.name}"] = {
            # The scenario (class and arguments) is the task; the run entry's name also
            # names the model.
            "format": "helm", "task": _scenario(spec["scenario_spec"]),
            "scenario": spec["scenario_spec"]["class_name"], "run_spec": spec["name"],
            "model": spec["adapter_spec"]["model"], "scorer": "exact_match",
            "records": len(stats), "status": None,
            "errored": 0, "ignored": [],
        }

    def run_name(sc: str, s: str) -> str:
        found = [k for k, v in runs.items()
                 if v["run_spec"].startswith(f"fixture_{sc}:") and v["model"].endswith(s)]
        assert len(found) == 1, found
        return found[0]

    pairings = []
    for sc in ("add", "mul"):
        ra, rb = run_name(sc, "a"), run_name(sc, "b")
        pairings.append({"name": f"fixture_{sc} A vs B", "a": ra, "b": rb, "read": {},
                         "align": {},
                         "table": paired_table(outcomes(out / ra), outcomes(out / rb))})
        pairings.append({"name": f"fixture_{sc} A vs B, per_instance_stats.json",
                         "a": f"{ra}/per_instance_stats.json",
                         "b": f"{rb}/per_instance_stats.json", "read": {}, "align": {},
                         "table": paired_table(outcomes(out / ra), outcomes(out / rb))})
    refusals = [{
        "name": "fixture_add A vs fixture_mul B (same instance ids)", "differs": "task",
        "a": run_name("add", "a"), "b": run_name("mul", "b"),
        "values": [runs[run_name("add", "a")]["task"], runs[run_name("mul", "b")]["task"]],
        "flag": "--allow-different-tasks",
        "table_if_allowed": paired_table(outcomes(out / run_name("add", "a")),
                                  outcomes(out / run_name("mul", "b")))}]
    expected = {
        "harness": "crfm-helm",
        "version": importlib.metadata.version("crfm-helm"),
        "python": sys.version.split()[0],
        "generator": "scripts/harness_fixtures/gen_helm.py",
        "runs": runs,
        "pairings": pairings,
        "refusals": refusals,
    }
    (out / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
    for p in pairings:
        print(p["name"], p["table"])


if __name__ == "__main__":
    main()
