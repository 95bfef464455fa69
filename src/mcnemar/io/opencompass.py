"""OpenCompass result files with per-item details: ``results/<model>/<dataset>.json``.

OpenCompass's evaluation task (``OpenICLEvalTask``) writes one JSON object per model and
dataset to ``<work_dir>/<timestamp>/results/<model>/<dataset>.json``: the aggregate metrics
(``"accuracy": 83.3``) and, only when it runs with ``eval.runner.task.dump_details=True`` (the
command line's ``--dump-eval-details``, on by default from 0.5), the per-item ``details`` in
one of two layouts:

* a **list**, one entry per dataset example, when the evaluator's ``score()`` returned
  details: ``BaseEvaluator.evaluate`` groups them by example and flattens each field into a
  list with one value per replica (``n`` repeats of the dataset), e.g. ``{"example_abbr":
  "gsm8k_3", "pred": ["72"], "answer": ["72"], "correct": [true]}``. The number ending
  ``example_abbr`` (``<abbr>_<index>``) is the example's row index in the dataset;
* an **object** keyed by the example's position (``"0"``, ``"1"``, ...) plus ``"type"``
  (``"GEN"`` or ``"PPL"``), when the evaluator gave none and the task formatted them: a
  perplexity task's entries hold ``origin_prediction`` (the prompts), ``predictions``,
  ``references`` and a boolean ``correct``; a generation task's hold ``prompt``,
  ``origin_prediction``, ``predictions`` and ``references`` but no correctness at all.

The item key is ``(dataset, index)``: the dataset is the file's stem (the dataset's
``abbr``), the index the number ending ``example_abbr`` (else the entry's key or position).
The score is the entry's pass flag: ``correct``, else ``is_correct``, else
``cascade_correct`` (the fields ``evaluate`` itself counts for G-Pass@k), or the field named
by ``score=`` (a dotted path reaches inside an entry). A per-replica list of several values
gives one record per replica, the replica index being the sample index. The model is the
folder name under ``results/``; the status is complete, since the file is written when the
dataset's evaluation ends. The entry's prompt (``prompt``, ``origin_prompt`` or
``origin_prediction.origin_prompt``, where the evaluator recorded one) is the content
fingerprint. A model folder is read dataset by dataset (``task=`` selects datasets); its
items are paired within each dataset.

Layout: open-compass/opencompass ``opencompass/tasks/openicl_eval.py``
(``OpenICLEvalTask._evaluate_predictions``, ``format_details``, ``_save_results``) and
``opencompass/openicl/icl_evaluator/icl_base_evaluator.py`` (``BaseEvaluator.evaluate``),
version 0.5.4; checked against files written by OpenCompass 0.5.4.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mcnemar.errors import InputFileError, option
from mcnemar.io._run import (
    MISSING,
    RunResults,
    field_at,
    load_json_document,
    name_list,
    require_known,
    score_to_float,
    short_repr,
    wanted_tasks,
)
from mcnemar.io.identity import RunIdentity, TaskIdentity

__all__ = ["read_opencompass"]

#: The pass flags OpenCompass's own ``BaseEvaluator.evaluate`` counts, in its order.
PASS_FLAGS = ("correct", "is_correct", "cascade_correct")
#: Where an entry records the item's prompt, in order of preference.
PROMPT_FIELDS = ("prompt", "origin_prompt", "origin_prediction.origin_prompt")
_INDEX = re.compile(r"_(\d+)$")
_DIGEST_CHARS = 16
_RERUN = ("rerun the evaluation with eval.runner.task.dump_details=True in the config "
          "(opencompass --dump-eval-details)")


def _model_folders(path: Path) -> list[Path]:
    """The ``results/<model>/`` folders under a work dir, a timestamp folder or ``results/``."""
    base = path / "results" if (path / "results").is_dir() else path
    found = [d for d in sorted(base.iterdir()) if d.is_dir() and next(d.glob("*.json"), None)]
    if not found and base is path:
        found = sorted({f.parent for f in path.glob("*/results/*/*.json")})
    return found


def _result_files(path: Path) -> dict[str, Path]:
    """The ``<dataset>.json`` files of a model folder, by dataset."""
    files = sorted(f for f in path.glob("*.json") if f.is_file())
    if files:
        return {f.stem: f for f in files}
    folders = _model_folders(path)
    if folders:
        shown = name_list([str(f) for f in folders], limit=4)
        raise InputFileError(
            f"this folder holds the results of {len(folders)} "
            f"{'model' if len(folders) == 1 else 'models'} ({shown}); "
            "give one model's folder results/<model>/ (or one <dataset>.json in it)",
            path=str(path),
        )
    raise InputFileError("the folder holds no OpenCompass result files (<dataset>.json); give "
                         "a results/<model>/ folder or a file in it", path=str(path))


def _model_of(path: Path, folder: bool) -> str | None:
    model_dir = path if folder else path.parent
    return model_dir.name if model_dir.parent.name == "results" and model_dir.name else None


def read_opencompass(
    path: str | Path,
    *,
    score: str | None = None,
    task: str | Sequence[str] | None = None,
    name: str | None = None,
    progress: bool | None = None,
) -> RunResults:
    """Read an OpenCompass result file with ``details``, or a model folder of them.

    Each per-item entry of ``details`` is an item keyed by ``(dataset, index)``; its score is
    its pass flag (``correct``, ``is_correct`` or ``cascade_correct``) or the field ``score``.
    A per-replica list of several values (a dataset run with ``n`` > 1) gives one record per
    replica, with the replica as the sample index.

    Parameters
    ----------
    path : str or Path
        ``results/<model>/<dataset>.json``, or the folder ``results/<model>/`` (every
        dataset in it; the items are paired within each dataset).
    score : str, optional
        The per-entry field holding the outcome (a dotted path reaches into an entry, e.g.
        ``"G-Pass@4_0.5"`` or ``"origin_prediction.correct"``); default the pass flag.
    task : str or list of str, optional
        The dataset(s) of a model folder to read (default: every dataset); for a single
        file, the dataset it must be.
    name : str, optional
        Display name; default the model (the folder name under ``results/``).
    progress : bool, optional
        Accepted for a uniform interface; a result file is read in one piece.

    Examples
    --------
    >>> import tempfile, pathlib, json
    >>> d = pathlib.Path(tempfile.mkdtemp()) / "results" / "my-model"
    >>> d.mkdir(parents=True)
    >>> details = [{"example_abbr": f"demo_{i}", "pred": ["A"], "correct": [i != 1]}
    ...            for i in range(3)]
    >>> _ = (d / "demo.json").write_text(json.dumps({"accuracy": 66.7, "details": details}))
    >>> run = read_opencompass(d / "demo.json")
    >>> run.name, run.keys.tolist(), run.scores.tolist()
    ('my-model', [('demo', 0), ('demo', 1), ('demo', 2)], [1.0, 0.0, 1.0])
    >>> run.identity.task, run.identity.scorer, run.identity.status
    ('demo', 'correct', 'complete')
    """
    del progress  # one JSON document per dataset
    p = Path(path)
    wanted = wanted_tasks(task, what="dataset")
    folder = p.is_dir()
    if folder:
        files = _result_files(p)
        if wanted is not None:
            require_known(wanted, files, path=p, message=lambda unknown, known:
                          f"dataset(s) {unknown} not in this folder; its datasets are {known}")
            files = {t: files[t] for t in wanted}
    else:
        if wanted is not None and p.stem not in wanted:
            raise InputFileError(
                f"the file holds dataset {p.stem!r} (from its name), not "
                f"{', '.join(map(repr, wanted))}",
                path=str(p),
            )
        files = {p.stem: p}
    keys: list[tuple[str, int]] = []
    scores: list[float] = []
    samples: list[int] = []
    contents: list[str | None] = []
    tasks: list[TaskIdentity] = []
    layouts: dict[str, str] = {}
    for dataset, f in files.items():
        start = len(keys)
        scorer, layout = _read_file(f, dataset, score, keys, scores, samples, contents)
        tasks.append(TaskIdentity(name=dataset, scorer=scorer, records=len(keys) - start))
        layouts[dataset] = layout
    model = _model_of(p, folder)
    metadata: dict[str, Any] = {"datasets": list(files), "files": [str(f) for f in
                                                                  files.values()],
                                "details": layouts}
    if model is not None:
        metadata["model"] = model
    has_content = any(c is not None for c in contents)
    several = any(s > 0 for s in samples)
    identity = RunIdentity(
        harness="opencompass", model=model, tasks=tuple(tasks), status="complete",
        task_part=0, content_name="prompt" if has_content else None,
    )
    return RunResults.from_scores(
        keys, scores, epochs=samples if several else None,
        contents=contents if has_content else None, name=name or model or p.name,
        path=str(p), format="opencompass", key_names=("dataset", "index"),
        score_name=",".join(dict.fromkeys(t.scorer or "correct" for t in tasks)),
        sample_name="replica" if several else None, metadata=metadata, identity=identity,
    )


def _details(f: Path) -> tuple[list[tuple[int, dict[str, Any]]], str]:
    """The entries of a result file with their item index, and the layout's name."""
    data = load_json_document(f)
    if not isinstance(data, dict):
        raise InputFileError(f"expected a JSON object (an OpenCompass result file), found "
                             f"{type(data).__name__}", path=str(f))
    if "details" not in data:
        if "error" in data:
            raise InputFileError(f"OpenCompass recorded an evaluation error instead of "
                                 f"results: {short_repr(data['error'], 200)}", path=str(f))
        fields = name_list(data, limit=6) or "none"
        where = "" if f.parent.parent.name == "results" else (
            " (is it an OpenCompass result file, results/<model>/<dataset>.json?)")
        raise InputFileError(
            f"the result file has no per-item 'details' (only {fields}){where}, so there is "
            f"nothing to pair; {_RERUN}",
            path=str(f),
        )
    details = data["details"]
    entries: list[tuple[int, dict[str, Any]]] = []
    if isinstance(details, list):
        abbrs = [e.get("example_abbr") if isinstance(e, dict) else None for e in details]
        matches = [_INDEX.search(a) if isinstance(a, str) else None for a in abbrs]
        by_abbr = all(m is not None for m in matches)
        for position, entry in enumerate(details):
            if not isinstance(entry, dict):
                raise InputFileError(f"details[{position}] must be an object, found "
                                     f"{short_repr(entry)}", path=str(f))
            found = matches[position]
            entries.append((int(found[1]) if by_abbr and found else position, entry))
        return entries, "list"
    if isinstance(details, dict):
        kind = details.get("type")
        for key, entry in details.items():
            if key == "type" and isinstance(entry, str):
                continue
            if not key.isdecimal():
                raise InputFileError(f"details has a member {short_repr(key)}; its members "
                                     "must be item positions (\"0\", \"1\", ...) and 'type'",
                                     path=str(f))
            if not isinstance(entry, dict):
                raise InputFileError(f"details[{key!r}] must be an object, found "
                                     f"{short_repr(entry)}", path=str(f))
            entries.append((int(key), entry))
        return entries, f"object ({kind})" if isinstance(kind, str) else "object"
    raise InputFileError(f"'details' must be a list or an object of per-item entries, found "
                         f"{short_repr(details)}", path=str(f))


def _read_file(f: Path, dataset: str, score: str | None, keys: list[tuple[str, int]],
               scores: list[float], samples: list[int],
               contents: list[str | None]) -> tuple[str, str]:
    """Append one dataset's records; return the field read and the layout of details."""
    entries, layout = _details(f)
    if not entries:
        raise InputFileError("'details' holds no entries", path=str(f))
    field = score
    if field is None:
        first = entries[0][1]
        field = next((flag for flag in PASS_FLAGS if flag in first), None)
        if field is None:
            raise InputFileError(
                f"the details of {dataset!r} hold no per-item pass flag ({', '.join(PASS_FLAGS)}"
                f"; an entry has {name_list(first, limit=8)}): its evaluator reported none. "
                f"Choose a per-item field with {option('score', 'NAME')}, or evaluate with an "
                "evaluator whose score() returns per-item details",
                path=str(f),
            )
    for index, entry in entries:
        where = f"the entry of item {index}"
        raw = field_at(entry, field)
        if raw is MISSING:
            raise InputFileError(
                f"{where} has no field {field!r} (it has {name_list(entry, limit=8)}); choose "
                f"one with {option('score', 'NAME')}",
                path=str(f),
            )
        values = raw if isinstance(raw, list) else [raw]
        if not values:
            raise InputFileError(f"{where}: {field!r} is an empty list", path=str(f))
        prompt = _prompt(entry)
        for replica, value in enumerate(values):
            try:
                number = score_to_float(value)
            except ValueError:
                raise InputFileError(
                    f"{where}: {field!r} is {short_repr(value)}, not a pass flag or a number; "
                    f"choose a per-item field with {option('score', 'NAME')}",
                    path=str(f),
                ) from None
            keys.append((dataset, index))
            scores.append(np.nan if number is None else number)
            samples.append(replica)
            contents.append(None if prompt is None else
                            prompt[replica] if replica < len(prompt) else prompt[0])
    return field, layout


def _prompt(entry: dict[str, Any]) -> list[str] | None:
    """The digests of the entry's prompt (one per replica when it is a per-replica list)."""
    for name in PROMPT_FIELDS:
        value = field_at(entry, name)
        if value is MISSING or value is None:
            continue
        # A per-replica list of prompts (evaluator details) or one prompt; a chat prompt is a
        # list of {"role", "prompt"} turns.
        texts = value if isinstance(value, list) and value and all(
            isinstance(v, str) or isinstance(v, list) for v in value) else [value]
        return [_digest(t) for t in texts]
    return None


def _digest(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False,
                                                           sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:_DIGEST_CHARS]
