"""Inspect AI evaluation logs, read directly (``inspect-ai`` is not needed).

Two containers: the ``.eval`` ZIP archive (``header.json`` plus one ``samples/{id}_epoch_{n}.json``
per sample and epoch, and ``summaries.json``; unfinished logs have ``_journal/start.json``
instead of a header) and the ``.json`` log (the whole ``EvalLog`` with a ``samples`` list).
An ``EvalLog`` held in memory (:func:`read_inspect_log`) is read as the ``.json`` log it
would be written to: its serialisation (the one Inspect writes, without the transcripts) goes
through the same code, so every check is the same. The item key is the sample ``id`` and
``epoch`` is the sample index, so several epochs of one item are never counted as separate
items; samples are taken in Inspect's order (epoch, then id) whatever the container. Score
values are mapped as Inspect's ``value_to_float`` maps them: ``C`` 1, ``I`` 0, ``P`` 0.5,
``N`` 0, booleans, numbers, numeric text, yes/no/true/false; anything else is an error rather
than a silent 0.

Layout: Inspect AI ``src/inspect_ai/log/_recorders/eval.py`` (log schema version 2).
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from mcnemar.errors import InputFileError, option
from mcnemar.io._archive import BoundedArchive, ReadLimits
from mcnemar.io._run import (
    RunResults,
    errored_scores,
    load_json_document,
    parse_json,
    score_to_float,
    short_repr,
)
from mcnemar.io.identity import RunIdentity, TaskIdentity

__all__ = ["read_inspect", "read_inspect_log"]

_HEADERS = ("header.json", "_journal/start.json", "start.json")


def read_inspect(
    path: str | Path,
    *,
    score: str | None = None,
    value_key: str | None = None,
    cluster: str | None = None,
    on_error: str = "missing",
    name: str | None = None,
    progress: bool | None = None,
    limits: ReadLimits | None = None,
) -> RunResults:
    """Read an Inspect log (``.eval`` archive or ``.json``).

    Each sample of each epoch is an item keyed by the sample ``id``, its epoch numbering the
    repeats (alignment then needs a ``reduce`` policy). Its score is the chosen scorer's value,
    grade letters mapped as Inspect maps them (:func:`mcnemar.io.score_to_float`). The log
    header gives the model, the task and the run's status, which the identity checks compare.

    Parameters
    ----------
    score : str, optional
        The scorer name (a key of each sample's ``scores``). Default: the only scorer; a log
        with several scorers needs a choice.
    value_key : str, optional
        For scorers whose value is a dict of named values: which one to use.
    cluster : str, optional
        A key of the sample ``metadata`` to use as the item's cluster.
    on_error : {"missing", "fail"}, default "missing"
        A sample that errored before it was scored has no score (reported at alignment, left
        out with ``on_missing="intersect"``), or with ``"fail"`` counts as a failure. A sample
        scored despite its error (``score_on_error``) keeps its score either way.
    name : str, optional
        Display name; default the model in the log header.
    limits : ReadLimits, optional
        Budget for inflating a ``.eval`` archive (default
        :data:`~mcnemar.io._archive.DEFAULT_LIMITS`); members are counted by the bytes they
        actually inflate to, never by their declared sizes.

    Examples
    --------
    >>> import tempfile, pathlib, json
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "log.json"
    >>> _ = p.write_text(json.dumps({"version": 2, "status": "success",
    ...     "eval": {"model": "m", "task": "t"},
    ...     "samples": [{"id": 1, "epoch": 1, "scores": {"match": {"value": "C"}}}]}))
    >>> run = read_inspect(p)
    >>> run.keys.tolist(), run.scores.tolist(), run.name
    ([1], [1.0], 'm')
    """
    p = Path(path)
    if zipfile.is_zipfile(p):
        header, samples, finished = _read_eval_zip(p, limits)
    else:
        finished = True
        header, samples = _json_log(load_json_document(p), str(p))
    return _read_log(header, samples, finished, source=str(p), default_name=p.name, score=score,
                     value_key=value_key, cluster=cluster, on_error=on_error, name=name)


def read_inspect_log(
    log: Any,
    *,
    score: str | None = None,
    value_key: str | None = None,
    cluster: str | None = None,
    on_error: str = "missing",
    name: str | None = None,
    progress: bool | None = None,
) -> RunResults:
    """Read an Inspect ``EvalLog`` held in memory, as the ``.json`` log it would be written to.

    The log is serialised as Inspect writes its ``.json`` logs (pydantic's JSON-safe values,
    ``None`` fields left out), except the samples' transcripts (messages, events, output,
    store, attachments), which no check reads; the result goes through the code that reads a
    ``.json`` log, with the same options (see :func:`read_inspect`). The dict of a JSON log
    (``json.load`` of the file) is read the same way. The run's ``path`` is the log's
    ``location`` (where it was read from or written to), else ``<inspect_ai EvalLog>``
    (``<Inspect JSON log>`` for a dict).

    Parameters
    ----------
    log : EvalLog or dict
        From ``inspect_ai.log.read_eval_log``, or one of the logs ``inspect_ai.eval`` returns.
    score, value_key, cluster, on_error, name
        As for :func:`read_inspect`.
    progress : bool, optional
        Ignored: nothing is parsed.

    Examples
    --------
    >>> log = {"version": 2, "status": "success", "eval": {"model": "m", "task": "t"},
    ...        "samples": [{"id": 1, "epoch": 1, "scores": {"match": {"value": "I"}}}]}
    >>> run = read_inspect_log(log)
    >>> run.keys.tolist(), run.scores.tolist(), run.identity.task, run.path
    ([1], [0.0], 't', '<Inspect JSON log>')
    """
    from mcnemar.io._objects import describe

    if isinstance(log, Mapping):
        source = "<Inspect JSON log>"
    else:
        location = getattr(log, "location", None)
        source = location if isinstance(location, str) and location else describe(log)
    header, samples = _json_log(_log_document(log), source)
    return _read_log(header, samples, True, source=source, default_name=source, score=score,
                     value_key=value_key, cluster=cluster, on_error=on_error, name=name)


#: The fields of a sample that hold its transcript (often nearly all of a log): no check reads
#: them (an ``.eval`` archive is read from its sample summaries, which do not hold them
#: either), so an ``EvalLog`` in memory is serialised without them.
_TRANSCRIPT = frozenset({"messages", "output", "events", "timelines", "store", "attachments",
                         "events_data"})


def _log_document(log: Any) -> Any:
    """The JSON document of a log: an ``EvalLog`` serialised as Inspect writes ``.json`` logs
    (``inspect_ai.log._file.eval_log_json``: JSON-safe values, ``None`` fields left out,
    values that cannot be serialised as ``None``), samples without their transcripts."""
    if isinstance(log, Mapping):
        return log
    from pydantic_core import to_jsonable_python

    def plain(value: Any, exclude: frozenset[str] | set[str]) -> Any:
        return to_jsonable_python(value, exclude=set(exclude), exclude_none=True,
                                  fallback=lambda _value: None)

    doc = plain(log, {"samples", "reductions"})
    samples = getattr(log, "samples", None)
    if isinstance(doc, dict) and samples is not None:
        doc["samples"] = [plain(sample, _TRANSCRIPT) for sample in samples]
    return doc


def _json_log(doc: Any, source: str) -> tuple[Mapping[str, Any], list[tuple[str, Any]]]:
    """The header and the samples of a ``.json`` log's document (or of an ``EvalLog``'s)."""
    if not isinstance(doc, Mapping) or "eval" not in doc:
        raise InputFileError("not an Inspect log: expected a JSON object with 'eval' and "
                             "'samples'", path=source)
    raw = doc.get("samples")
    if raw is None:
        raise InputFileError(
            "the log has no 'samples' (written with --no-log-samples, or read with "
            "header_only=True?); per-item results are needed for a paired test",
            path=source,
        )
    if not isinstance(raw, list):
        raise InputFileError(f"'samples' must be a list, found {type(raw).__name__}",
                             path=source)
    return doc, [(f"samples[{i}]", s) for i, s in enumerate(raw)]


def _read_log(header: Mapping[str, Any], samples: list[tuple[str, Any]], finished: bool, *,
              source: str, default_name: str, score: str | None, value_key: str | None,
              cluster: str | None, on_error: str, name: str | None) -> RunResults:
    """A run from a log's header and samples, wherever they were read from.

    The samples are taken in Inspect's order (by epoch, then id), the order of a ``.json`` log
    and of the ``EvalLog`` that ``read_eval_log`` returns, whichever order a container holds
    them in (an ``.eval`` archive's summaries are in the order the samples finished).
    """
    samples = sorted(samples, key=_inspect_order)
    scorer = _choose_scorer(source, samples, score)
    keys: list[Any] = []
    scores: list[float] = []
    epochs: list[int] = []
    clusters: list[str] = []
    errored: list[bool] = []
    contents: list[str | None] = []
    for where, sample in samples:
        if not isinstance(sample, dict):
            raise InputFileError(f"{where}: a sample must be a JSON object", path=source)
        sid = sample.get("id")
        if isinstance(sid, bool) or not isinstance(sid, int | str):
            raise InputFileError(f"{where}: sample 'id' must be an integer or text, found "
                                 f"{short_repr(sid)}", path=source)
        epoch = sample.get("epoch", 1)
        if isinstance(epoch, bool) or not isinstance(epoch, int):
            raise InputFileError(f"{where}: 'epoch' must be an integer, found "
                                 f"{short_repr(epoch)}", path=source)
        keys.append(sid)
        epochs.append(epoch)
        scores.append(_sample_score(source, where, sample, scorer, value_key))
        errored.append(bool(sample.get("error")))
        contents.append(_content(sample))
        if cluster is not None:
            meta = sample.get("metadata") or {}
            if not isinstance(meta, dict) or cluster not in meta:
                raise InputFileError(f"{where}: metadata key {cluster!r} not found (sample id "
                                     f"{sid!r})", path=source)
            clusters.append(str(meta[cluster]))
    raw_spec = header.get("eval")
    spec: dict[str, Any] = raw_spec if isinstance(raw_spec, dict) else {}
    model = spec.get("model") if isinstance(spec.get("model"), str) else None
    raw_status = header.get("status")
    metadata: dict[str, Any] = {"status": raw_status, "scorer": scorer}
    for field in ("model", "task", "run_id", "eval_id", "created"):
        if isinstance(spec.get(field), str):
            metadata[field] = spec[field]
    dataset = spec.get("dataset")
    dataset_name = dataset.get("name") if isinstance(dataset, dict) else None
    results = header.get("results")
    total = results.get("total_samples") if isinstance(results, dict) else None
    status = _STATUS.get(raw_status) if isinstance(raw_status, str) else None
    if not finished:
        status = "unfinished"
    error = header.get("error")
    detail = raw_status if isinstance(raw_status, str) else ("no header" if not finished
                                                             else None)
    if status == "error" and isinstance(error, dict) and isinstance(error.get("message"), str):
        detail = f"error: {error['message'][:200]}"
    has_content = any(c is not None for c in contents)
    identity = RunIdentity(
        harness="inspect",
        model=model,
        tasks=(TaskIdentity(name=spec.get("task") if isinstance(spec.get("task"), str)
                            else None, scorer=scorer,
                            dataset=dataset_name if isinstance(dataset_name, str) else None,
                            records=len(keys)),),
        status=status,
        status_detail=detail,
        expected=total if isinstance(total, int) and not isinstance(total, bool) else None,
        errored=sum(errored),
        content_name="input/target" if has_content else None,
    )
    return RunResults.from_scores(
        keys, errored_scores(scores, errored, on_error), epochs=epochs,
        clusters=clusters if cluster is not None else None, errored=errored,
        contents=contents if has_content else None,
        name=name or model or default_name, path=source, format="inspect", key_names=("id",),
        score_name=scorer, sample_name="epoch", cluster_name=cluster, metadata=metadata,
        identity=identity,
    )


def _inspect_order(entry: tuple[str, Any]) -> tuple[int, str]:
    """Inspect's order of samples (``inspect_ai.log._log.sort_samples``): by epoch, then by id
    as text, a numeric id as its digits padded to 20 places."""
    sample = entry[1]
    if not isinstance(sample, dict):
        return (0, "")
    epoch, sid = sample.get("epoch", 1), sample.get("id")
    return (epoch if isinstance(epoch, int) else 0,
            sid if isinstance(sid, str) else str(sid).zfill(20))


#: Inspect's log status -> the run status of :mod:`mcnemar.io.identity`.
_STATUS = {"success": "complete", "error": "error", "cancelled": "cancelled",
           "started": "unfinished"}
#: Characters of the input and target text a content fingerprint keeps: Inspect's sample
#: summaries keep up to 5,120 characters of text (and drop images), so a prefix of the text
#: is what a summary and the full sample always share.
_CONTENT_CHARS = 1000


def _text_of(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(_text_of(v) for v in value)
    if isinstance(value, dict):
        if isinstance(value.get("text"), str):
            return str(value["text"])
        return _text_of(value.get("content"))
    return str(value)


def _content(sample: dict[str, Any]) -> str | None:
    """The sample's input and target text (a bounded prefix), or None when not recorded."""
    if "input" not in sample and "target" not in sample:
        return None
    text = " ".join(_text_of(sample.get("input")).split())[:_CONTENT_CHARS]
    target = " ".join(_text_of(sample.get("target")).split())[:_CONTENT_CHARS]
    return f"input {text!r}, target {target!r}"


def _json_entry(p: Path, archive: BoundedArchive, entry: str) -> Any:
    try:
        return parse_json(archive.read(entry), what=f"archive entry {entry}", path=str(p))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        reason = f" ({exc.msg} at line {exc.lineno})" if isinstance(exc, json.JSONDecodeError) \
            else ""
        raise InputFileError(f"archive entry {entry} is not valid JSON{reason}",
                             path=str(p)) from None


def _read_eval_zip(p: Path, limits: ReadLimits | None
                   ) -> tuple[Mapping[str, Any], list[tuple[str, Any]], bool]:
    """Header, samples, and whether the log was finished (a header, not only a journal)."""
    with BoundedArchive(p, limits) as archive:
        names = archive.namelist()
        header_entry = next((h for h in _HEADERS if h in names), None)
        if header_entry is None:
            shown = ", ".join(names[:5]) or "none"
            raise InputFileError(
                f"not an Inspect .eval log: the archive has no header.json or "
                f"_journal/start.json (entries: {shown})",
                path=str(p),
            )
        header = _json_entry(p, archive, header_entry)
        if not isinstance(header, dict):
            raise InputFileError(f"{header_entry} must hold a JSON object", path=str(p))
        sample_entries = sorted(
            n for n in names
            if n.startswith("samples/") and n.endswith(".json") and n.count("/") == 1
        )
        # Summaries carry id, epoch, scores and metadata without the transcripts, so they are
        # much faster to read; the full sample entries are the fallback.
        samples: list[tuple[str, Any]] = []
        summaries = ["summaries.json"] if "summaries.json" in names else sorted(
            n for n in names if n.startswith("_journal/summaries/") and n.endswith(".json"))
        for entry in summaries:
            batch = _json_entry(p, archive, entry)
            if not isinstance(batch, list):
                raise InputFileError(f"{entry} must hold a list of sample summaries",
                                     path=str(p))
            samples.extend((f"{entry}[{i}]", s) for i, s in enumerate(batch))
        scored = any(isinstance(s, dict) and isinstance(s.get("scores"), dict)
                     for _, s in samples)
        if sample_entries and (not scored or len(samples) < len(sample_entries)):
            samples = [(n, _json_entry(p, archive, n)) for n in sample_entries]
        if not samples:
            raise InputFileError(
                "the archive holds no samples (written with --no-log-samples, or not yet "
                "started?); per-item results are needed for a paired test",
                path=str(p),
            )
        finished = header_entry == "header.json" or (header_entry == "start.json"
                                                     and "results.json" in names)
    if not finished and header.get("status") is None:
        # A journal's start record has no status: Inspect reads such a log as "started".
        header = {**header, "status": "started"}
    return header, samples, finished


def _choose_scorer(source: str, samples: list[tuple[str, Any]], wanted: str | None) -> str:
    names: dict[str, None] = {}
    for _, sample in samples:
        if isinstance(sample, dict) and isinstance(sample.get("scores"), dict):
            names.update(dict.fromkeys(sample["scores"]))
    if wanted is not None:
        if wanted not in names:
            raise InputFileError(
                f"scorer {wanted!r} not found; the scorers are "
                f"{', '.join(map(repr, names)) or 'none'}",
                path=source,
            )
        return wanted
    if len(names) == 1:
        return next(iter(names))
    if not names:
        raise InputFileError("no sample has scores (was the eval scored?)", path=source)
    raise InputFileError(
        f"the log has several scorers ({', '.join(map(repr, names))}); choose one with "
        f"{option('score', 'NAME')}",
        path=source,
    )


def _sample_score(source: str, where: str, sample: dict[str, Any], scorer: str,
                  value_key: str | None) -> float:
    scores = sample.get("scores")
    if not isinstance(scores, dict) or scorer not in scores:
        return np.nan  # an errored or unscored sample: reported as "no score" at alignment
    entry = scores[scorer]
    value = entry.get("value") if isinstance(entry, dict) else entry
    if isinstance(value, dict):
        if value_key is None or value_key not in value:
            raise InputFileError(
                f"{where}: scorer {scorer!r} gives named values "
                f"({', '.join(map(repr, value))}); choose one with "
                f"{option('value_key', 'NAME')}",
                path=source,
            )
        value = value[value_key]
    try:
        out = score_to_float(value, letters=True)
    except ValueError as exc:
        raise InputFileError(f"{where}: scorer {scorer!r}: {exc}", path=source) from None
    return np.nan if out is None else out
