"""OpenAI evals logs (``oaieval`` with the local recorder): one JSON event per line.

The first line holds the run ``spec``, the last the ``final_report``; per-item correctness is
in the events of type ``match``, keyed by ``sample_id``, in ``data.correct``. An eval that
records several ``match`` events for one sample gets a sample index (0, 1, ...) in the order
of the file, so they are never counted as separate items.

Format: openai/evals ``evals/record.py`` (``LocalRecorder``, ``record_match``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from mcnemar.errors import InputFileError
from mcnemar.io._run import (
    RunResults,
    iter_json_records,
    object_array,
    score_to_float,
    short_repr,
)
from mcnemar.io.identity import RunIdentity, TaskIdentity

__all__ = ["read_openai_evals"]


def read_openai_evals(
    path: str | Path,
    *,
    score: str = "correct",
    name: str | None = None,
    progress: bool | None = None,
) -> RunResults:
    """Read an OpenAI evals JSONL log.

    Each ``match`` event is an item keyed by its ``sample_id`` (a repeated id numbers the
    repeats); its score is the field ``score`` of the event's ``data``. The ``spec`` line names
    the completion function(s) and the eval, and a log without its ``final_report`` line is
    an unfinished run.

    Parameters
    ----------
    score : str, default "correct"
        The field of a ``match`` event's ``data`` holding the outcome.
    name : str, optional
        Display name; default the completion function(s) named in the ``spec`` line.

    Examples
    --------
    >>> import tempfile, pathlib, json
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "log.jsonl"
    >>> lines = [{"spec": {"completion_fns": ["gpt-x"], "eval_name": "e.dev.v0"}},
    ...          {"run_id": "r", "event_id": 0, "sample_id": "e.dev.0", "type": "match",
    ...           "data": {"correct": True, "expected": "A", "picked": "A"}}]
    >>> _ = p.write_text("\\n".join(json.dumps(x) for x in lines) + "\\n")
    >>> run = read_openai_evals(p)
    >>> run.name, run.keys.tolist(), run.scores.tolist()
    ('gpt-x', ['e.dev.0'], [1.0])
    """
    p = Path(path)
    spec: dict[str, Any] = {}
    report: Any = None
    keys: list[str] = []
    scores: list[float] = []
    types: dict[str, int] = {}
    errored_ids: set[str] = set()
    for number, record in iter_json_records(p, what="one event per line", progress=progress):
        if "spec" in record and isinstance(record["spec"], dict):
            spec = record["spec"]
            continue
        if "final_report" in record:
            report = record["final_report"]
            continue
        kind = record.get("type")
        if not isinstance(kind, str):
            raise InputFileError(
                f"event has no 'type' (found keys {', '.join(list(record)[:6])}); is this an "
                "OpenAI evals log?",
                path=str(p), line=number,
            )
        types[kind] = types.get(kind, 0) + 1
        if kind == "error" and isinstance(record.get("sample_id"), str | int):
            errored_ids.add(str(record["sample_id"]))
        if kind != "match":
            continue
        sid = record.get("sample_id")
        if not isinstance(sid, str | int) or isinstance(sid, bool):
            raise InputFileError(f"'match' event without a usable 'sample_id' (found "
                                 f"{short_repr(sid)})", path=str(p), line=number)
        data = record.get("data")
        if not isinstance(data, dict) or score not in data:
            raise InputFileError(f"'match' event without data.{score}", path=str(p),
                                 line=number)
        try:
            value = score_to_float(data[score])
        except ValueError as exc:
            raise InputFileError(f"data.{score}: {exc}", path=str(p), line=number) from None
        keys.append(str(sid))
        scores.append(np.nan if value is None else value)
    if not keys:
        seen = ", ".join(f"{k} ({v})" for k, v in types.items()) or "none"
        raise InputFileError(
            f"no 'match' events, so no per-item correctness (event types seen: {seen})",
            path=str(p),
        )
    key_array = object_array(keys)
    # Repeated match events of one sample get 0, 1, 2, ... in file order.
    _, first_index, inverse = np.unique(key_array.astype(str), return_index=True,
                                        return_inverse=True)
    epochs = None
    if len(first_index) < len(keys):
        order = np.argsort(inverse, kind="stable")
        sorted_codes = inverse[order]
        starts = np.r_[0, np.flatnonzero(np.diff(sorted_codes)) + 1]
        run_start = np.repeat(starts, np.diff(np.r_[starts, len(keys)]))
        epochs = np.empty(len(keys), dtype=np.int64)
        epochs[order] = np.arange(len(keys)) - run_start
    fns = spec.get("completion_fns")
    model = ", ".join(map(str, fns)) if isinstance(fns, list) and fns else None
    metadata: dict[str, Any] = {"event_types": types}
    for field in ("eval_name", "base_eval", "split", "run_id", "created_at"):
        if isinstance(spec.get(field), str):
            metadata[field] = spec[field]
    if model:
        metadata["model"] = model
    if isinstance(report, dict):
        metadata["final_report"] = {k: v for k, v in report.items()
                                    if isinstance(v, int | float | str | bool)}
    eval_name = spec.get("eval_name")
    errored = np.fromiter((k in errored_ids for k in keys), dtype=bool, count=len(keys))
    identity = RunIdentity(
        harness="openai-evals", model=model,
        tasks=(TaskIdentity(name=eval_name if isinstance(eval_name, str) else None,
                            scorer=f"data.{score}", records=len(keys)),),
        # The recorder writes the final report last: without it the run did not finish.
        status="complete" if report is not None else "unfinished",
        status_detail=None if report is not None else "no final_report line",
        errored=len(errored_ids),
    )
    return RunResults.from_scores(
        key_array, scores, epochs=epochs, errored=errored if errored.any() else None,
        name=name or model or p.name, path=str(p), format="openai-evals",
        key_names=("sample_id",), score_name=f"data.{score}",
        sample_name="match event" if epochs is not None else None, metadata=metadata,
        identity=identity,
    )
