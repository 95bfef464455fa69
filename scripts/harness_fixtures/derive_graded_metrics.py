"""Derive HELM and lm-eval fixtures with graded (non-binary) metrics from the real ones.

The logs under ``tests/data/io/real/helm`` and ``tests/data/io/real/lmeval`` were written by
the harnesses with pass/fail metrics only (``exact_match``, ``acc``; lm_eval's own per-item
``f1`` is in ``real/lmeval/graded_a``, ``graded_b``, from ``gen_lmeval.py``). The readers
must hand a graded metric (HELM ``f1_score``, ``rouge_l``; lm-eval's per-item ``f1``) to the
paired comparison of scores, and refuse lm-eval's corpus-level metrics, whose per-item value
is a (gold, prediction) pair. This script writes copies of those logs with such metrics added,
into ``tests/data/io/derived/`` (not ``real/``: these files were edited). It needs no
harness: run it from the repository root with any Python 3.11::

    python scripts/harness_fixtures/derive_graded_metrics.py

The edits, and nothing else:

* lm-eval (``real/lmeval/group_a``, ``group_b``: tasks ``arith_gen`` and ``arith_mc``, to
  ``derived/lmeval/group_a``, ``group_b``; file names and the ``results_*.json`` unchanged):
  every record of ``arith_gen`` gets the metric ``f1`` (added to its ``metrics`` list): the
  F1 of the characters of its ``filtered_resps[0]`` against its ``target``, as a per-item
  float like the per-document ``f1`` of SQuAD- or DROP-style tasks (those count tokens; the
  answers here are one token, so characters give the partial credit). Every record of
  ``arith_mc`` gets ``f1`` as lm-eval's multiple-choice tasks log it: the pair
  ``[gold, pred]`` (``target`` and the argmax of the loglikelihoods in ``filtered_resps``),
  which lm-eval aggregates over the whole task (``lm_eval/api/task.py``,
  ``ConfigurableTask.process_results``).
* HELM (``real/helm/fixture/<run>``, the four runs, to ``derived/helm/fixture/<run>``;
  ``run_spec.json`` unchanged): each entry of ``per_instance_stats.json`` keeps its
  ``instance_id``, ``train_trial_index`` and its ``exact_match`` stat, the other stats (token
  counts, timings, never read) are dropped to keep the copies small, and two stats of HELM's
  ``Stat`` shape (count, sum, sum_squared, min, max, mean, variance, stddev) are added:
  ``f1_score`` and ``rouge_l``, the character F1 and the character LCS F-measure of the
  answer against the reference. ``per_instance_stats.json`` does not keep the answers; the
  fixture's client (``helm_fixture_plugin.py``) answers instance ``i`` of ``fixture_add``
  with ``x + y`` (``x = 6i + 2``, ``y = 3i + 9``; ``x * y`` for ``fixture_mul``), plus 1 on
  the instances it gets wrong, which are those whose ``exact_match`` is 0.

``expected.json`` beside each derived folder holds every item's derived score, computed here
with plain ``json`` (never with mcnemar).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from _expected import char_f1

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "tests" / "data" / "io" / "real"
OUT = ROOT / "tests" / "data" / "io" / "derived"


def char_rouge_l(prediction: str, reference: str) -> float:
    """ROUGE-L F-measure (beta 1) over characters: from the longest common subsequence."""
    m, n = len(prediction), len(reference)
    table = [[0] * (n + 1) for _ in range(m + 1)]
    for i in range(m):
        for j in range(n):
            table[i + 1][j + 1] = (table[i][j] + 1 if prediction[i] == reference[j]
                                   else max(table[i][j + 1], table[i + 1][j]))
    lcs = table[m][n]
    if lcs == 0:
        return 0.0
    precision, recall = lcs / m, lcs / n
    return 2 * precision * recall / (precision + recall)


# --- lm-eval -------------------------------------------------------------------------------


def _lmeval_record(record: dict[str, Any], task: str) -> dict[str, Any]:
    out = dict(record)
    out["metrics"] = [*record["metrics"], "f1"]
    if task == "arith_gen":
        out["f1"] = char_f1(str(record["filtered_resps"][0]).strip(), str(record["target"]))
    else:
        lls = [float(resp[0]) for resp in record["filtered_resps"]]
        out["f1"] = [int(record["target"]), max(range(len(lls)), key=lls.__getitem__)]
    return out


def derive_lmeval() -> dict[str, Any]:
    expected: dict[str, Any] = {}
    for group in ("group_a", "group_b"):
        source = REAL / "lmeval" / group
        target = OUT / "lmeval" / group
        if target.exists():
            shutil.rmtree(target)
        for path in sorted(source.rglob("*")):
            if not path.is_file():
                continue
            dest = target / path.relative_to(source)
            dest.parent.mkdir(parents=True, exist_ok=True)
            if not path.name.startswith("samples_"):
                shutil.copyfile(path, dest)
                continue
            task = "arith_gen" if "arith_gen" in path.name else "arith_mc"
            records = [_lmeval_record(json.loads(line), task)
                       for line in path.read_text(encoding="utf-8").splitlines() if line]
            dest.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
            if task == "arith_gen":
                expected[f"{group}/{task}"] = {
                    f"{r['doc_id']}/{r['filter']}": r["f1"] for r in records}
    return expected


# --- HELM ----------------------------------------------------------------------------------


def _stat(name: str, value: float) -> dict[str, Any]:
    return {"name": {"name": name, "split": "test"}, "count": 1, "sum": value,
            "sum_squared": value * value, "min": value, "max": value, "mean": value,
            "variance": 0.0, "stddev": 0.0}


def _helm_entry(entry: dict[str, Any], op: str) -> tuple[dict[str, Any], float, float]:
    i = int(str(entry["instance_id"]).removeprefix("id"))
    x, y = 6 * i + 2, 3 * i + 9
    reference = x + y if op == "add" else x * y
    (exact,) = [s for s in entry["stats"] if s["name"]["name"] == "exact_match"]
    answer = reference if exact["mean"] == 1 else reference + 1
    f1 = char_f1(str(answer), str(reference))
    rouge = char_rouge_l(str(answer), str(reference))
    kept = {k: v for k, v in entry.items() if k != "stats"}
    kept["stats"] = [exact, _stat("f1_score", f1), _stat("rouge_l", rouge)]
    return kept, f1, rouge


def derive_helm() -> dict[str, Any]:
    expected: dict[str, Any] = {}
    source, target = REAL / "helm" / "fixture", OUT / "helm" / "fixture"
    if target.exists():
        shutil.rmtree(target)
    for run in sorted(p for p in source.iterdir() if p.is_dir()):
        dest = target / run.name
        dest.mkdir(parents=True)
        shutil.copyfile(run / "run_spec.json", dest / "run_spec.json")
        op = "add" if run.name.startswith("fixture_add") else "mul"
        entries = json.loads((run / "per_instance_stats.json").read_text(encoding="utf-8"))
        derived, scores = [], {}
        for entry in entries:
            kept, f1, rouge = _helm_entry(entry, op)
            derived.append(kept)
            if entry.get("perturbation") is None:
                scores[entry["instance_id"]] = {"f1_score": f1, "rouge_l": rouge}
        (dest / "per_instance_stats.json").write_text(json.dumps(derived, indent=1) + "\n",
                                                      encoding="utf-8")
        expected[run.name] = scores
    return expected


def main() -> None:
    for name, expected in (("lmeval", derive_lmeval()), ("helm", derive_helm())):
        path = OUT / name / "expected.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(path.relative_to(ROOT))


if __name__ == "__main__":
    main()
