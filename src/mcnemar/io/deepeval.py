"""deepeval test runs: ``<results_folder>/test_run_<YYYYMMDD_HHMMSS>.json`` and friends.

``deepeval.evaluate(..., display_config=DisplayConfig(results_folder=...))`` (or
``DEEPEVAL_RESULTS_FOLDER``, also under ``deepeval test run``) writes each run as one JSON
object, on a single line: ``{testCases: [...], conversationalTestCases: [...], metricsScores,
hyperparameters?, prompts, testPassed, testFailed, runDuration, ...}``. Each test case holds
``name``, ``input``, ``actualOutput``, ``expectedOutput``, ``success``, ``order`` and
``metricsData``, one entry per metric: ``{name, threshold, success, score, reason,
strictMode, flaky, error?}``; a conversational test case holds ``turns`` instead of the
input. ``.deepeval/.latest_test_run.json`` wraps the same object as ``{"testRunData": ...}``,
and ``.deepeval/.temp_test_run_data.json`` is the same object while the run is still going.
The file is read as one JSON document (never as JSON Lines, although it is one line).

Item key
    The test case ``name`` (deepeval writes ``test_case_<order>`` for an unnamed case, and the
    pytest test name under ``deepeval test run``). A case without a name falls back to its
    ``order`` (an integer). Duplicate names are left to alignment, which refuses them.
Score
    By default the test case's ``success`` (deepeval's own verdict: every metric that is not
    ``flaky`` passed), as 1/0. ``score="NAME"`` reads the metric called NAME in
    ``metricsData``: its ``success`` as 1/0, or with ``score="NAME:score"`` its graded
    ``score`` (a float, e.g. for ``align(threshold=...)``). A metric name that itself ends in
    ``:score`` is read as that metric. A case without the chosen metric has no score (NaN).
Errored items
    A metric entry with an ``error`` (deepeval records it with ``ErrorConfig(ignore_errors=
    True)``; its ``success`` is then false and it has no ``score``) makes the item errored:
    for the default score, when any metric that is not ``flaky`` errored; for a chosen
    metric, when that one did. ``on_error="missing"`` (default) gives it no score (NaN), so
    alignment reports it; ``on_error="fail"`` counts it as a failure (0).
Content
    A stable short hash of the ``input`` (the first 16 hex digits of its SHA-256); for a
    conversational case, whose turns hold the system's own answers, of its ``scenario``, else
    of its first user turn. The paired items of two runs must agree on it.
Identity
    Model: the ``model`` hyperparameter (``evaluate(hyperparameters={"model": ...})``), else
    none. Task: not recorded (``datasetAlias``, when deepeval records one, is the dataset).
    Scorer: the chosen metric (``"NAME"`` or ``"NAME:score"``), or for the default the sorted
    names of the run's metrics joined by ``", "``. Status: complete when the file holds
    ``testPassed``/``testFailed`` (set when deepeval wraps the run up), unfinished otherwise
    (an in-progress ``.temp_test_run_data.json``).
Directory
    A results folder: the newest ``test_run_*.json`` in it (by the timestamp in the name, then
    deepeval's ``_2``, ``_3`` suffix for runs saved in the same second); the older ones are
    reported as ignored.

Layout: confident-ai/deepeval 4.3 ``deepeval/evaluate/local_store.py`` (``write_test_run``),
``deepeval/test_run/test_run.py`` (``TestRun``, ``wrap_up_test_run``),
``deepeval/test_run/api.py`` (``LLMApiTestCase``, ``ConversationalApiTestCase``) and
``deepeval/tracing/api.py`` (``MetricData``), checked against files written by deepeval 4.3.1.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np

from mcnemar.errors import InputFileError, option
from mcnemar.io._run import (
    RunResults,
    errored_scores,
    load_json_document,
    name_list,
    short_repr,
)
from mcnemar.io.identity import RunIdentity, TaskIdentity
from mcnemar.validation import check_choice
from mcnemar.vocabulary import ON_ERROR

__all__ = ["read_deepeval"]

#: ``test_run_<YYYYMMDD_HHMMSS>[_<n>].json``, as deepeval names the files of a results folder.
_RUN_FILE = re.compile(r"test_run_(\d{8}_\d{6})(?:_(\d+))?\.json")
#: What a chosen metric's name ends with to read its graded score instead of its success.
GRADED_SUFFIX = ":score"
#: Hex digits of the SHA-256 of an item's input kept as its content fingerprint.
_DIGEST_CHARS = 16
#: What a conversational case's fingerprint is made of.
_CONVERSATION_CONTENT = "scenario or first user turn"


def read_deepeval(
    path: str | Path,
    *,
    score: str | None = None,
    on_error: str = "missing",
    name: str | None = None,
    progress: bool | None = None,
) -> RunResults:
    """Read a deepeval test run (``test_run_*.json``, ``.latest_test_run.json``, or a results
    folder holding ``test_run_*.json`` files).

    Each test case is an item keyed by its ``name``; its score is the case's ``success``, or
    the chosen metric's. See the module documentation for the layout and the rules.

    Parameters
    ----------
    score : str, optional
        A metric name (as in ``metricsData``, e.g. ``"Exact Match"``): that metric's
        ``success``; ``"NAME:score"``: its graded ``score``. Default: the test case's own
        ``success``.
    on_error : {"missing", "fail"}, default "missing"
        An item whose metric errored: no score (``"missing"``, reported at alignment) or a
        failure (``"fail"``, 0). It is marked errored either way.
    name : str, optional
        Display name; default the ``model`` hyperparameter, else the file (or folder) name.
    progress : bool, optional
        Accepted for symmetry with the other readers; a test run is one JSON document.

    Examples
    --------
    >>> import tempfile, pathlib, json
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "test_run_20260101_120000.json"
    >>> case = lambda n, ok: {"name": n, "input": n + "?", "success": ok, "order": 0,
    ...     "metricsData": [{"name": "Exact Match", "success": ok, "score": float(ok)}]}
    >>> _ = p.write_text(json.dumps({"testCases": [case("q1", True), case("q2", False)],
    ...     "hyperparameters": {"model": "m"}, "testPassed": 1, "testFailed": 1}))
    >>> run = read_deepeval(p)
    >>> run.keys.tolist(), run.scores.tolist(), run.name, run.identity.scorer
    (['q1', 'q2'], [1.0, 0.0], 'm', 'Exact Match')
    """
    check_choice(on_error, "on_error", ON_ERROR)
    given = Path(path)
    p, ignored = _run_file(given)
    data, wrapped = _test_run(p)
    cases = _cases(p, data)
    metric_names = _metric_names(p, cases)
    metric, graded = _choose(p, score, metric_names)
    keys: list[Any] = []
    scores: list[float] = []
    errored: list[bool] = []
    contents: list[str | None] = []
    by_order = 0
    for where, case in cases:
        key = case.get("name")
        if not isinstance(key, str) or not key:
            key = case.get("order")
            if isinstance(key, bool) or not isinstance(key, int):
                raise InputFileError(f"{where}: a test case needs a 'name' (text) or an "
                                     f"'order' (integer), found name "
                                     f"{short_repr(case.get('name'))}", path=str(p))
            by_order += 1
        value, failed = _case_score(p, where, case, metric, graded)
        if failed:  # deepeval's false success of an errored metric is no verdict
            value = np.nan
        keys.append(key)
        scores.append(value)
        errored.append(failed)
        contents.append(_content(p, where, case))
    finished = _count(data.get("testPassed")) is not None or \
        _count(data.get("testFailed")) is not None
    model = _model(data)
    dataset = data.get("datasetAlias") if isinstance(data.get("datasetAlias"), str) else None
    if metric is None:
        scorer = ", ".join(sorted(metric_names))
        score_name = "success"
    else:
        scorer = metric + (GRADED_SUFFIX if graded else "")
        score_name = scorer
    kinds = {"conversational" if "conversationalTestCases[" in w else "llm" for w, _ in cases}
    content_name = {"llm": "input", "conversational": _CONVERSATION_CONTENT}.get(
        kinds.pop() if len(kinds) == 1 else "", f"input or {_CONVERSATION_CONTENT}")
    has_content = any(c is not None for c in contents)
    metadata: dict[str, Any] = {
        "file": str(p), "metrics": list(metric_names), "scorer": scorer,
        "key": "name" if not by_order else ("order" if by_order == len(keys) else
                                            "name, else order"),
    }
    if wrapped:
        metadata["wrapper"] = "testRunData"
    for field in ("identifier", "testFile", "datasetAlias", "datasetId", "datasetVersion",
                  "testPassed", "testFailed"):
        recorded = data.get(field)
        if isinstance(recorded, str | int | float) and not isinstance(recorded, bool):
            metadata[field] = recorded
    hyper = data.get("hyperparameters")
    if isinstance(hyper, dict):
        metadata["hyperparameters"] = json.loads(json.dumps(hyper, default=str))
    identity = RunIdentity(
        harness="deepeval", model=model,
        tasks=(TaskIdentity(name=None, scorer=scorer, dataset=dataset, records=len(keys)),),
        status="complete" if finished else "unfinished",
        status_detail=None if finished else (
            "no testPassed/testFailed: the run was not wrapped up (an in-progress file?)"),
        errored=sum(errored), ignored=tuple(str(f) for f in ignored),
        content_name=content_name if has_content else None,
    )
    return RunResults.from_scores(
        keys, errored_scores(scores, errored, on_error), errored=errored,
        contents=contents if has_content else None,
        name=name or model or given.name, path=str(p), format="deepeval",
        key_names=("name",) if by_order < len(keys) else ("order",), score_name=score_name,
        metadata=metadata, identity=identity,
    )


# --- the file ------------------------------------------------------------------------------


def _run_file(p: Path) -> tuple[Path, list[Path]]:
    """The file to read and, for a results folder, the older runs left out."""
    if not p.is_dir():
        return p, []
    found = []
    for child in p.iterdir():
        match = _RUN_FILE.fullmatch(child.name)
        if match and child.is_file():
            found.append(((match[1], int(match[2] or 1)), child))
    if not found:
        inside = sorted({f.parent.name for f in p.glob("*/test_run_*.json")})
        hint = (f"; its subfolders {name_list(inside)} hold test runs: give one of them"
                if inside else "")
        raise InputFileError("the folder holds no deepeval test run (test_run_<date>_<time>"
                             f".json){hint}", path=str(p))
    found.sort()
    return found[-1][1], [f for _, f in found[:-1]]


def _test_run(p: Path) -> tuple[dict[str, Any], bool]:
    """The test run object (unwrapped from ``testRunData``) and whether it was wrapped."""
    doc = load_json_document(p)
    if not isinstance(doc, dict):
        raise InputFileError(f"not a deepeval test run: expected a JSON object, found "
                             f"{type(doc).__name__}", path=str(p))
    wrapped = "testRunData" in doc
    if wrapped:
        doc = doc["testRunData"]
        if not isinstance(doc, dict):
            raise InputFileError(f"'testRunData' must be an object, found "
                                 f"{type(doc).__name__}", path=str(p))
    elif "testRunLink" in doc and "testCases" not in doc:
        raise InputFileError(
            "the file holds only a link to a test run on Confident AI ('testRunLink'), not "
            "its results; save the run locally with DisplayConfig(results_folder=...) or "
            "DEEPEVAL_RESULTS_FOLDER and read its test_run_*.json", path=str(p))
    if "testCases" not in doc and "conversationalTestCases" not in doc:
        raise InputFileError(
            "not a deepeval test run: expected 'testCases' (or 'conversationalTestCases'), "
            f"found the keys {name_list(sorted(doc), limit=8)}", path=str(p))
    return doc, wrapped


def _cases(p: Path, data: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    cases = []
    for field in ("testCases", "conversationalTestCases"):
        raw = data.get(field)
        if raw is None:
            continue
        if not isinstance(raw, list):
            raise InputFileError(f"{field!r} must be a list, found {type(raw).__name__}",
                                 path=str(p))
        for i, case in enumerate(raw):
            where = f"{field}[{i}]"
            if not isinstance(case, dict):
                raise InputFileError(f"{where}: a test case must be a JSON object, found "
                                     f"{short_repr(case)}", path=str(p))
            cases.append((where, case))
    if not cases:
        raise InputFileError("the test run holds no test cases", path=str(p))
    return cases


def _metrics_of(p: Path, where: str, case: dict[str, Any]) -> list[dict[str, Any]]:
    raw = case.get("metricsData")
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise InputFileError(f"{where}: 'metricsData' must be a list, found "
                             f"{type(raw).__name__}", path=str(p))
    for j, entry in enumerate(raw):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise InputFileError(f"{where}.metricsData[{j}]: a metric needs a 'name' (text), "
                                 f"found {short_repr(entry)}", path=str(p))
    return raw


def _metric_names(p: Path, cases: list[tuple[str, dict[str, Any]]]) -> list[str]:
    names: dict[str, None] = {}
    for where, case in cases:
        names.update(dict.fromkeys(m["name"] for m in _metrics_of(p, where, case)))
    if not names:
        raise InputFileError("no test case has metricsData (was the run scored by any "
                             "metric?)", path=str(p))
    return list(names)


def _choose(p: Path, score: str | None, names: list[str]) -> tuple[str | None, bool]:
    """The metric chosen (``None``: the test case's success) and whether graded."""
    if score is None:
        return None, False
    if score in names:
        return score, False
    if score.endswith(GRADED_SUFFIX) and score[: -len(GRADED_SUFFIX)] in names:
        return score[: -len(GRADED_SUFFIX)], True
    raise InputFileError(
        f"metric {score!r} not found; the run's metrics are {name_list(names)} (choose one "
        f"with {option('score', 'NAME')}, or {option('score', 'NAME' + GRADED_SUFFIX)} for "
        "its graded score)", path=str(p))


# --- one test case --------------------------------------------------------------------------


def _verdict(p: Path, where: str, value: Any) -> float:
    """A ``success`` field as 1/0 (NaN when absent or null)."""
    if value is None:
        return np.nan
    if not isinstance(value, bool):
        raise InputFileError(f"{where}: 'success' must be true or false, found "
                             f"{short_repr(value)}", path=str(p))
    return 1.0 if value else 0.0


def _case_score(p: Path, where: str, case: dict[str, Any], metric: str | None,
                graded: bool) -> tuple[float, bool]:
    """The case's score and whether it errored."""
    entries = _metrics_of(p, where, case)
    if metric is None:
        failed = any(m.get("error") and not m.get("flaky") for m in entries)
        return _verdict(p, where, case.get("success")), failed
    chosen = [m for m in entries if m["name"] == metric]
    if not chosen:
        return np.nan, False
    if len(chosen) > 1:
        raise InputFileError(
            f"{where}: {len(chosen)} metrics are named {metric!r} (e.g. two PatternMatchMetric "
            "with different patterns), so which one to read cannot be told; give the metrics "
            "distinct names, or compare the test case's success (no score option)",
            path=str(p))
    entry = chosen[0]
    failed = bool(entry.get("error"))
    mwhere = f"{where}: metric {metric!r}"
    if not graded:
        return _verdict(p, mwhere, entry.get("success")), failed
    value = entry.get("score")
    if value is None:
        return np.nan, failed
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        raise InputFileError(f"{mwhere}: 'score' must be a number, found {short_repr(value)}",
                             path=str(p))
    return float(value), failed


def _content(p: Path, where: str, case: dict[str, Any]) -> str | None:
    """A short stable hash of what the case asks, or None when not recorded: the ``input``;
    for a conversational case (whose turns hold the system's answers) its ``scenario``, else
    its first user turn."""
    if "input" in case or "turns" not in case:
        value = case.get("input")
        field = "input"
    else:
        turns = case["turns"]
        if not isinstance(turns, list):
            raise InputFileError(f"{where}: 'turns' must be a list, found "
                                 f"{type(turns).__name__}", path=str(p))
        value = case.get("scenario")
        field = "scenario"
        if value is None:
            value = next((t.get("content") for t in turns
                          if isinstance(t, dict) and t.get("role") == "user"), None)
            field = "turns[].content"
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputFileError(f"{where}: {field!r} must be text, found {short_repr(value)}",
                             path=str(p))
    digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()
    return digest[:_DIGEST_CHARS]


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _model(data: dict[str, Any]) -> str | None:
    hyper = data.get("hyperparameters")
    if isinstance(hyper, dict):
        model = hyper.get("model")
        if isinstance(model, str) and model:
            return model
    return None
