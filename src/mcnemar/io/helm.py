"""HELM per-instance statistics: ``benchmark_output/runs/<suite>/<run>/per_instance_stats.json``.

A list of ``PerInstanceStats{instance_id, perturbation, train_trial_index, stats}``; each stat
has a ``name`` (``{name, split, sub_split, perturbation}``) and a ``mean``. The item key is
``(instance_id, perturbation)`` with ``"none"`` for the unperturbed instance, and
``train_trial_index`` is the sample index. By default only unperturbed instances are kept,
since a perturbed copy of an item is not a new item.

Format: stanford-crfm/helm ``src/helm/benchmark/metrics/metric.py`` (``PerInstanceStats``) and
``statistic.py`` (``Stat``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from mcnemar.errors import InputFileError, option
from mcnemar.io._run import RunResults, load_json_document, parse_json, short_repr
from mcnemar.io.identity import RunIdentity, TaskIdentity

__all__ = ["read_helm"]


def _perturbation_label(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, dict):
        # Perturbation descriptions carry flags (robustness, fairness, ...) besides the name;
        # the name identifies the perturbation. Two variants of one name in a run surface as
        # duplicated keys at alignment.
        name = value.get("name")
        if isinstance(name, str):
            return name
        return json.dumps(value, sort_keys=True)
    return str(value)


def read_helm(
    path: str | Path,
    *,
    score: str = "exact_match",
    perturbation: str = "none",
    split: str | None = None,
    name: str | None = None,
    progress: bool | None = None,
) -> RunResults:
    """Read HELM ``per_instance_stats.json`` (or a run directory holding it).

    Each instance is an item keyed by ``(instance_id, perturbation)``; its score is the
    ``mean`` of the chosen stat. The sibling ``run_spec.json``, when present, names the model
    and the scenario, which the identity checks compare.

    Parameters
    ----------
    score : str, default "exact_match"
        The stat name; its ``mean`` is the item's score. A graded stat (``f1_score``,
        ``rouge_l``, ``bleu_4``...) keeps its value, and the comparison of two runs is then
        the paired comparison of scores (:mod:`mcnemar.scores`); 0/1 stats stay pass/fail.
    perturbation : str, default "none"
        ``"none"`` keeps unperturbed instances only; a perturbation name keeps that one;
        ``"all"`` keeps all (each perturbation of an instance is then a separate item).
    split : str, optional
        Keep only stats of this split when an instance has the stat for several splits.
    name : str, optional
        Display name; default the model in the sibling ``run_spec.json``.

    Examples
    --------
    >>> import tempfile, pathlib, json
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "per_instance_stats.json"
    >>> _ = p.write_text(json.dumps([{"instance_id": "id1", "perturbation": None,
    ...     "train_trial_index": 0,
    ...     "stats": [{"name": {"name": "exact_match", "split": "test"}, "mean": 1.0}]}]))
    >>> read_helm(p).keys.tolist()
    [('id1', 'none')]
    """
    p = Path(path)
    if p.is_dir():
        p = p / "per_instance_stats.json"
        if not p.is_file():
            raise InputFileError("directory has no per_instance_stats.json", path=str(p.parent))
    doc = load_json_document(p)
    if not isinstance(doc, list):
        raise InputFileError(
            f"expected a JSON list of per-instance stats, found {type(doc).__name__}",
            path=str(p),
        )
    keys: list[tuple[str, str]] = []
    scores: list[float] = []
    trials: list[int] = []
    stat_names: dict[str, None] = {}
    perturbations: dict[str, int] = {}
    for i, entry in enumerate(doc):
        where = f"entry {i}"
        if not isinstance(entry, dict):
            raise InputFileError(f"{where}: expected an object", path=str(p))
        iid = entry.get("instance_id")
        if not isinstance(iid, str | int) or isinstance(iid, bool):
            raise InputFileError(f"{where}: 'instance_id' must be text, found "
                                 f"{short_repr(iid)}", path=str(p))
        label = _perturbation_label(entry.get("perturbation"))
        perturbations[label] = perturbations.get(label, 0) + 1
        if perturbation != "all" and label != perturbation:
            continue
        trial = entry.get("train_trial_index", 0)
        if isinstance(trial, bool) or not isinstance(trial, int):
            raise InputFileError(f"{where}: 'train_trial_index' must be an integer, found "
                                 f"{short_repr(trial)}", path=str(p))
        stats = entry.get("stats")
        if not isinstance(stats, list):
            raise InputFileError(f"{where}: 'stats' must be a list", path=str(p))
        matches = []
        for stat in stats:
            sname = stat.get("name") if isinstance(stat, dict) else None
            if not isinstance(sname, dict):
                raise InputFileError(f"{where}: a stat without a 'name' object", path=str(p))
            stat_names[str(sname.get("name"))] = None
            if sname.get("name") == score and (split is None or sname.get("split") == split):
                matches.append(stat)
        if len(matches) > 1:
            splits = ", ".join(repr(m["name"].get("split")) for m in matches)
            raise InputFileError(
                f"{where}: stat {score!r} appears {len(matches)} times (splits {splits}); "
                f"choose one with {option('split', 'NAME')}",
                path=str(p),
            )
        value = np.nan
        if matches:
            stat = matches[0]
            mean = stat.get("mean")
            if mean is None and isinstance(stat.get("sum"), int | float) and stat.get("count"):
                mean = stat["sum"] / stat["count"]
            if isinstance(mean, bool) or not isinstance(mean, int | float | type(None)):
                raise InputFileError(f"{where}: stat {score!r} has a non-numeric mean "
                                     f"{short_repr(mean)}", path=str(p))
            value = np.nan if mean is None else float(mean)
        keys.append((str(iid), label))
        scores.append(value)
        trials.append(trial)
    if not keys:
        raise InputFileError(
            f"no instance with perturbation {perturbation!r}; found "
            f"{', '.join(map(repr, perturbations)) or 'no instances'}",
            path=str(p),
        )
    if score not in stat_names:
        raise InputFileError(
            f"stat {score!r} not found; the stats are "
            f"{', '.join(sorted(stat_names)[:15])}; choose one with {option('score', 'NAME')}",
            path=str(p),
        )
    model, task = _model(p)
    metadata: dict[str, Any] = {"perturbations": perturbations}
    if model:
        metadata["model"] = model
    identity = RunIdentity(
        harness="helm", model=model,
        tasks=(TaskIdentity(name=task, scorer=score, records=len(keys)),),
        # HELM writes per_instance_stats.json once the run's metrics are computed.
        status="complete",
    )
    return RunResults.from_scores(
        keys, scores, epochs=trials, name=name or model or p.parent.name or p.name,
        path=str(p), format="helm", key_names=("instance_id", "perturbation"),
        score_name=score, sample_name="train_trial_index", metadata=metadata,
        identity=identity,
    )


def _model(p: Path) -> tuple[str | None, str | None]:
    """The model and the task (the scenario) from the sibling ``run_spec.json``."""
    spec = p.with_name("run_spec.json")
    if not spec.is_file():
        return None, None
    try:
        data = parse_json(spec.read_bytes(), what=spec.name, path=str(spec))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return None, None
    if not isinstance(data, dict):
        return None, None
    model = None
    adapter = data.get("adapter_spec")
    if isinstance(adapter, dict):
        for field in ("model", "model_deployment"):
            if isinstance(adapter.get(field), str):
                model = str(adapter[field])
                break
    return model, _task(data)


def _task(spec: dict[str, Any]) -> str | None:
    """The scenario a run evaluates: its class and arguments (``MMLUScenario:subject=x``).

    The scenario spec names the task; the run name also lists the model and adapter options,
    which name the system, so it is only the fallback (without its ``model=`` parts).
    """
    scenario = spec.get("scenario_spec")
    if isinstance(scenario, dict) and isinstance(scenario.get("class_name"), str):
        name = scenario["class_name"].rsplit(".", 1)[-1]
        args = scenario.get("args")
        if isinstance(args, dict) and args:
            name += ":" + ",".join(f"{k}={v}" for k, v in sorted(args.items()))
        return name
    run_name = spec.get("name")
    if not isinstance(run_name, str) or not run_name:
        return None
    head, sep, rest = run_name.partition(":")
    if not sep:
        return run_name
    kept = [a for a in rest.split(",")
            if a.split("=", 1)[0] not in ("model", "model_deployment")]
    return head + (":" + ",".join(kept) if kept else "")
