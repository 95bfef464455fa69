"""promptfoo eval results (``promptfoo eval -o FILE``): ``.json``, ``.jsonl`` or ``.csv``.

One eval holds one result per test, prompt and provider; each provider is a run (system A,
system B), chosen with ``run=`` (its label, or its id) when the file holds several, so one
file of an eval with two providers gives both sides of a comparison.

Forms
    ``results.json``: one object ``{evalId, results: {version: 3, timestamp, prompts, results,
    stats}, config, shareableUrl, metadata: {promptfooVersion, ...}, runtimeOptions}``, read
    whole. ``results.results`` holds the results: ``testIdx``, ``promptIdx``, ``provider:
    {id, label}``, ``success``, ``score``, ``namedScores``, ``gradingResult: {pass, score,
    reason, componentResults}``, ``vars``, ``testCase: {description, vars, assert}``,
    ``failureReason`` (0 none, 1 an assertion failed, 2 a provider error), ``error``,
    ``response``, ``id`` (a new UUID per result, never a key). ``results.jsonl``: the same
    result objects, one per line. ``results.csv``: ``Description`` (when some test has one;
    empty for a test without), one column per var, then per output column (one per provider
    and prompt, provider-major) ``[<provider>] <prompt label>`` followed by ``Status``
    (``PASS``, ``FAIL``, ``ERROR``), ``Score`` (two decimals), ``Named Scores``, a ``Metric:
    <name>`` column per named metric, ``Grader Reason`` and ``Comment``: the same header names
    repeat once per output column, so the groups are read by position.
Item key
    ``testIdx``; when the provider answered several prompts, ``(prompt, testIdx)``, the prompt
    being its position among that provider's prompts (0, 1, ...; their labels are in the
    metadata). ``promptIdx`` itself numbers the output columns, provider by provider (the
    second provider's first prompt is ``promptIdx`` 1 in an eval of two providers and one
    prompt), so it is not the prompt. In the CSV, ``testIdx`` is the row's position among the
    data rows: promptfoo writes one row per test in ``testIdx`` order from its database (with
    ``--no-write`` the rows follow the order in which the tests finished, which the vars check
    below catches). ``testCase.description`` (the CSV's ``Description``) names the test in the
    metadata (``descriptions``).
Repeats
    ``promptfoo eval --repeat N`` gives each repeat its own ``testIdx``. Where the file records
    the repeat count (``runtimeOptions.repeat`` of ``results.json``), the repeats of a test
    (same prompt, description and vars) are samples of one item keyed by the first repeat's
    ``testIdx`` (alignment then needs ``reduce``); JSONL and CSV do not record it.
Score
    Default the result's ``success`` (``gradingResult.pass`` when absent) as 1/0;
    ``score="score"`` the graded ``score`` (the CSV's two-decimal ``Score``); any other name a
    named score (``namedScores``, the CSV's ``Metric: <name>`` or ``Named Scores``).
Errored items
    A provider error (``failureReason`` 2, CSV status ``ERROR``) is errored:
    ``on_error="missing"`` (default) gives it no score, ``"fail"`` a failure (0).
Content
    The test's vars (``testCase.vars``; the CSV's var columns): each value written as
    promptfoo writes it into a CSV cell (JavaScript's ``String(value)``, an empty cell for a
    missing var), sorted by name, so the three forms agree; paired tests must have the same
    vars. Long vars are kept as a prefix and a SHA-256 digest of the whole.
Identity
    Model: the provider's label, else its id. Task: the eval's ``description``
    (``config.description`` of ``results.json``; JSONL and CSV do not record it). Scorer: the
    sorted assertion types of the provider's tests (``"equals"``; ``assert-set`` with its inner
    types), with the score chosen when it is not the pass flag; the CSV does not record it.
    Status: complete for ``.json`` and ``.csv``, which promptfoo writes once the eval has
    finished (a paused eval writes neither); not recorded for ``.jsonl``, which is written
    while the eval runs, so a paused or stopped eval leaves a partial one.

Layout: promptfoo 0.121 (``src/util/output.ts``: the outputs; ``src/evaluator.ts``:
``testIdx``, ``promptIdx``, repeats; ``src/util/eval/evalTableUtils.ts``: the CSV;
``src/node/doEval.ts``: a paused eval writes no outputs; ``src/node/evaluatorRuntime.ts``: the
JSONL written while the eval runs), checked against files written by promptfoo 0.121.20.
"""

from __future__ import annotations

import abc
import csv
import hashlib
import json
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcnemar.errors import InputFileError, option
from mcnemar.io._budget import charge_csv
from mcnemar.io._run import (
    RunResults,
    collector_paused,
    errored_scores,
    iter_json_records,
    load_json_document,
    name_list,
    short_repr,
)
from mcnemar.io.identity import RunIdentity, TaskIdentity
from mcnemar.validation import check_choice
from mcnemar.vocabulary import ON_ERROR

__all__ = ["read_promptfoo"]

#: The values of ``score`` that read the pass flag, and the one that reads the graded score.
PASS_SCORES = ("pass", "success")
GRADED = "score"
#: ``failureReason`` of a provider error (``ResultFailureReason.ERROR``).
PROVIDER_ERROR = 2
#: The header names of one output column's group in the CSV, after the output itself.
_GROUP_HEAD = ("Status", "Score", "Named Scores")
_GROUP_TAIL = ("Grader Reason", "Comment")
_METRIC_PREFIX = "Metric: "
#: Vars longer than this (as text) are kept as a prefix and a digest of the whole.
_CONTENT_CHARS = 200
_PREFIX_CHARS = 120


def read_promptfoo(
    path: str | Path,
    *,
    score: str | None = None,
    run: str | None = None,
    on_error: str = "missing",
    name: str | None = None,
    progress: bool | None = None,
) -> RunResults:
    """Read one provider's results from a promptfoo output file (``.json``, ``.jsonl``, ``.csv``).

    Each test (per prompt, when the provider answered several) is an item keyed by its
    ``testIdx``; its score is the result's pass flag, or the graded or named score chosen.
    See the module documentation for the layout and the rules.

    Parameters
    ----------
    score : str, optional
        ``"pass"`` (default: the result's ``success``), ``"score"`` (the graded score) or the
        name of a named score (an assertion's ``metric``).
    run : str, optional
        The provider to read, by label or by id; needed when the file holds several.
    on_error : {"missing", "fail"}, default "missing"
        A provider error: no score (``"missing"``, reported at alignment) or a failure
        (``"fail"``, 0). It is marked errored either way.
    name : str, optional
        Display name; default the provider's label, else its id.
    progress : bool, optional
        A progress bar while a JSONL file is read (a ``.json`` is one document, a CSV is read
        at once).

    Examples
    --------
    >>> import tempfile, pathlib, json
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "results.jsonl"
    >>> def result(test, provider, ok):
    ...     return {"testIdx": test, "promptIdx": 0, "provider": {"id": "echo", "label":
    ...             provider}, "success": ok, "score": float(ok), "failureReason": 0 if ok
    ...             else 1, "testCase": {"vars": {"q": f"q{test}"}, "assert": [{"type":
    ...             "equals", "value": "x"}]}}
    >>> rows = [result(0, "new", True), result(1, "new", False), result(0, "old", True)]
    >>> _ = p.write_text("".join(json.dumps(r) + "\\n" for r in rows))
    >>> run = read_promptfoo(p, run="new")
    >>> run.name, run.keys.tolist(), run.scores.tolist(), run.identity.scorer
    ('new', [0, 1], [1.0, 0.0], 'equals')
    """
    p = Path(path)
    check_choice(on_error, "on_error", ON_ERROR)
    if score is not None and (not isinstance(score, str) or not score):
        raise InputFileError(f"{option('score', 'NAME')} must be 'pass', 'score' or the name "
                             f"of a named score; got {short_repr(score)}", path=str(p))
    if p.is_dir():
        raise InputFileError("this is a directory; give the file written by 'promptfoo eval "
                             "-o results.json' (or .jsonl, .csv)", path=str(p))
    form = _form(p)
    with collector_paused():
        if form == "csv":
            eval_, results = _read_csv(p)
        elif form == "jsonl":
            eval_ = _Eval(form="jsonl")
            results = [_JsonResult(record, f"line {number}", number) for number, record in
                       iter_json_records(p, what="one promptfoo result per line",
                                         progress=progress)]
        else:
            eval_, results = _read_json(p)
        if not results:
            raise InputFileError("the file holds no results (did the eval run any test?)",
                                 path=str(p))
        provider, mine = _choose(p, results, run)
        return _build(p, eval_, provider, mine, score, on_error, name)


# --- what a file holds ---------------------------------------------------------------------


@dataclass(slots=True)
class _Eval:
    """What the file says about the eval as a whole."""

    form: str
    description: str | None = None
    eval_id: str | None = None
    version: str | None = None
    repeat: int = 1
    prompt_labels: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Provider:
    label: str | None
    id: str | None

    @property
    def display(self) -> str:
        return self.label or self.id or "unnamed provider"


class _Result(abc.ABC):
    """One result of one provider, as the readers of the three forms see it."""

    __slots__ = ()
    where: str
    line: int | None
    provider: _Provider
    column: int

    @abc.abstractmethod
    def read(self, p: Path, score: str) -> tuple[int, float, bool, str | None, str | None,
                                                 tuple[str, ...] | None]:
        """``(testIdx, score, errored, content, description, assertion types)``."""

    def named_scores(self) -> Iterable[str]:
        """The names of the result's named scores."""
        return ()

    def fail(self, p: Path, message: str) -> InputFileError:
        return InputFileError(f"{self.where}: {message}", path=str(p), line=self.line)


def _form(p: Path) -> str:
    """``json``, ``jsonl`` or ``csv``: from the file name, else from the first line."""
    suffix = p.suffix.lower()
    if suffix in (".csv", ".jsonl"):
        return suffix[1:]
    try:
        with p.open("rb") as handle:
            first = handle.readline(1 << 20)
    except OSError as exc:
        raise InputFileError(f"cannot read the file ({exc.strerror or exc})",
                             path=str(p)) from None
    text = first.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not text.startswith((b"{", b"[")):
        return "json" if suffix == ".json" else "csv"
    try:
        obj = json.loads(text)
    except (ValueError, UnicodeDecodeError):
        return "json"
    # A complete object on the first line: a result (JSON Lines) or a one-line results.json.
    return "jsonl" if isinstance(obj, dict) and "testIdx" in obj else "json"


def _read_json(p: Path) -> tuple[_Eval, list[_Result]]:
    doc = load_json_document(p)
    inner = doc.get("results") if isinstance(doc, dict) else None
    records = inner.get("results") if isinstance(inner, dict) else None
    if not isinstance(records, list):
        raise InputFileError(
            "not a promptfoo results file: expected a JSON object whose 'results' holds a "
            "'results' list (the file 'promptfoo eval -o results.json' writes)", path=str(p))
    assert isinstance(doc, dict) and isinstance(inner, dict)
    eval_ = _Eval(form="json")
    config = doc.get("config")
    if isinstance(config, dict) and isinstance(config.get("description"), str):
        eval_.description = config["description"]
    if isinstance(doc.get("evalId"), str):
        eval_.eval_id = doc["evalId"]
    meta = doc.get("metadata")
    if isinstance(meta, dict) and isinstance(meta.get("promptfooVersion"), str):
        eval_.version = meta["promptfooVersion"]
    options = doc.get("runtimeOptions")
    repeat = options.get("repeat") if isinstance(options, dict) else None
    if isinstance(repeat, int) and not isinstance(repeat, bool) and repeat > 1:
        eval_.repeat = repeat
    prompts = inner.get("prompts")
    if isinstance(prompts, list):
        for i, prompt in enumerate(prompts):
            if isinstance(prompt, dict) and isinstance(prompt.get("label"), str):
                eval_.prompt_labels[i] = prompt["label"]
    return eval_, [_JsonResult(r, f"results.results[{i}]", None) for i, r in enumerate(records)]


def _int_field(result: _Result, p: Path, record: Mapping[str, Any], key: str,
               default: int | None = None) -> int:
    value = record.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        found = "no such field" if key not in record else short_repr(value)
        raise result.fail(p, f"'{key}' must be a whole number >= 0, found {found}")
    return value


class _JsonResult(_Result):
    """A result object of ``results.json`` or of a JSONL line."""

    __slots__ = ("column", "line", "provider", "record", "where")

    def __init__(self, record: Any, where: str, line: int | None) -> None:
        self.where, self.line, self.record = where, line, record
        self.provider = _Provider(None, None)
        self.column = 0

    def prepare(self, p: Path) -> None:
        """Check the record is an object and find its provider and output column."""
        record = self.record
        if not isinstance(record, dict):
            raise self.fail(p, f"a result must be a JSON object, found "
                               f"{type(record).__name__}")
        provider = record.get("provider")
        if isinstance(provider, dict):
            label, pid = provider.get("label"), provider.get("id")
            self.provider = _Provider(label if isinstance(label, str) and label else None,
                                      pid if isinstance(pid, str) and pid else None)
        elif isinstance(provider, str) and provider:
            self.provider = _Provider(None, provider)
        else:
            raise self.fail(p, f"'provider' must be an object with an 'id' (and 'label'), "
                               f"found {short_repr(provider)}")
        self.column = _int_field(self, p, record, "promptIdx", 0)

    def read(self, p: Path, score: str) -> tuple[int, float, bool, str | None, str | None,
                                                 tuple[str, ...] | None]:
        record = self.record
        test = _int_field(self, p, record, "testIdx")
        grading = record.get("gradingResult")
        grading = grading if isinstance(grading, dict) else None
        reason = record.get("failureReason")
        if reason is None:  # files of versions that did not record it: an error, ungraded
            errored = grading is None and bool(record.get("error"))
        elif isinstance(reason, bool) or not isinstance(reason, int):
            raise self.fail(p, f"'failureReason' must be 0, 1 or 2, found {short_repr(reason)}")
        else:
            errored = reason == PROVIDER_ERROR
        value = self._score(p, record, grading, score, errored)
        case = record.get("testCase")
        case = case if isinstance(case, dict) else {}
        variables = case.get("vars", record.get("vars"))
        if variables is not None and not isinstance(variables, dict):
            raise self.fail(p, f"'testCase.vars' must be an object, found "
                               f"{short_repr(variables)}")
        content = _content(variables or {})
        description = case.get("description")
        asserts = case.get("assert")
        types = tuple(_assertion_types(asserts)) if isinstance(asserts, list) else None
        return (test, value, errored, content,
                description if isinstance(description, str) and description else None, types)

    def _score(self, p: Path, record: Mapping[str, Any], grading: Mapping[str, Any] | None,
               score: str, errored: bool) -> float:
        if score in PASS_SCORES:
            value = record.get("success")
            if value is None and grading is not None:
                value = grading.get("pass")
            if isinstance(value, bool):
                return math.nan if errored else float(value)
            if value is None and errored:
                return math.nan
            raise self.fail(p, f"'success' must be true or false, found "
                               f"{'no such field' if value is None else short_repr(value)}")
        if errored:
            return math.nan
        if score == GRADED:
            value = record.get("score")
            if value is None and grading is not None:
                value = grading.get("score")
        else:
            named = record.get("namedScores")
            if not isinstance(named, dict) and grading is not None:
                named = grading.get("namedScores")
            value = named.get(score) if isinstance(named, dict) else None
        if value is None:
            return math.nan
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(p, f"score {score!r} must be a number, found {short_repr(value)}")
        return float(value)

    def named_scores(self) -> Iterable[str]:
        named = self.record.get("namedScores")
        if not isinstance(named, dict):
            grading = self.record.get("gradingResult")
            named = grading.get("namedScores") if isinstance(grading, dict) else None
        return named if isinstance(named, dict) else ()


# --- the CSV -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Group:
    """One output column of the CSV and the columns that follow it."""

    output: int
    provider: _Provider
    prompt: str
    status: int
    score: int
    named: int
    metrics: dict[str, int]


class _CsvResult(_Result):
    """One output group of one CSV row."""

    __slots__ = ("column", "description", "group", "line", "provider", "row", "test",
                 "variables", "where")

    def __init__(self, row: list[str], test: int, line: int, group: _Group, column: int,
                 variables: dict[str, str], description: str | None) -> None:
        self.row, self.test, self.line, self.group = row, test, line, group
        self.where = f"row {test + 1}, column {group.output + 1}"
        self.provider = group.provider
        self.column = column
        self.variables, self.description = variables, description

    def read(self, p: Path, score: str) -> tuple[int, float, bool, str | None, str | None,
                                                 tuple[str, ...] | None]:
        status = self.row[self.group.status]
        errored = status == "ERROR"
        if score in PASS_SCORES:
            value = math.nan if errored else float(status == "PASS")
        elif errored:
            value = math.nan
        else:
            value = self._number(p, score)
        return (self.test, value, errored, _content(self.variables), self.description, None)

    def _number(self, p: Path, score: str) -> float:
        if score == GRADED:
            cell = self.row[self.group.score]
        elif score in self.group.metrics:
            cell = self.row[self.group.metrics[score]]
        else:
            named = _named_cell(self.row[self.group.named])
            if named is None:
                raise self.fail(p, f"'Named Scores' must hold a JSON object, found "
                                   f"{short_repr(self.row[self.group.named])}")
            found = named.get(score)
            if found is None:
                return math.nan
            if isinstance(found, bool) or not isinstance(found, int | float):
                raise self.fail(p, f"score {score!r} must be a number, found "
                                   f"{short_repr(found)}")
            return float(found)
        if cell.strip() == "":
            return math.nan
        try:
            return float(cell)
        except ValueError:
            raise self.fail(p, f"score {score!r} must be a number, found "
                               f"{short_repr(cell)}") from None

    def named_scores(self) -> Iterable[str]:
        named = _named_cell(self.row[self.group.named]) or {}
        return [*self.group.metrics, *named]


def _named_cell(cell: str) -> dict[str, Any] | None:
    if cell.strip() == "":
        return {}
    try:
        value = json.loads(cell)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _csv_rows(p: Path) -> Iterator[tuple[int, list[str]]]:
    try:
        charge_csv(str(p))  # what the rows will build, before they are built
        handle = p.open(newline="", encoding="utf-8-sig")
    except OSError as exc:
        raise InputFileError(f"cannot read the file ({exc.strerror or exc})",
                             path=str(p)) from None
    with handle:
        reader = csv.reader(handle)
        try:
            for row in reader:
                yield reader.line_num, row
        except csv.Error as exc:
            raise InputFileError(f"not a valid CSV file ({exc})", path=str(p),
                                 line=reader.line_num) from None
        except UnicodeDecodeError:
            raise InputFileError("not UTF-8 text", path=str(p)) from None


def _groups(p: Path, header: list[str]) -> tuple[int, list[_Group]]:
    """The first output column and the groups of output columns in a promptfoo CSV header."""
    def starts_group(j: int) -> bool:
        return tuple(header[j + 1:j + 1 + len(_GROUP_HEAD)]) == _GROUP_HEAD

    first = next((j for j in range(len(header)) if starts_group(j)), None)
    if first is None:
        raise InputFileError(
            "not a promptfoo CSV: no output column followed by 'Status', 'Score' and "
            "'Named Scores' (the file 'promptfoo eval -o results.csv' writes)", path=str(p))
    groups = []
    j = first
    while j < len(header) and starts_group(j):
        k = j + 1 + len(_GROUP_HEAD)
        metrics = {}
        while k < len(header) and header[k].startswith(_METRIC_PREFIX):
            metrics[header[k][len(_METRIC_PREFIX):]] = k
            k += 1
        if tuple(header[k:k + len(_GROUP_TAIL)]) != _GROUP_TAIL:
            raise InputFileError(
                f"column {k + 1}: the group of output column {header[j]!r} should go on with "
                f"'Grader Reason' and 'Comment', found {short_repr(header[k:k + 2])}",
                path=str(p), line=1)
        provider, prompt = _output_header(header[j])
        groups.append(_Group(output=j, provider=provider, prompt=prompt, status=j + 1,
                             score=j + 2, named=j + 3, metrics=metrics))
        j = k + len(_GROUP_TAIL)
    # Columns before the first output and after the last are the vars (and, for a red-team
    # eval, its metadata): a group's own name among them is a group that is cut.
    names = set(_GROUP_HEAD + _GROUP_TAIL)
    for k in [*range(first), *range(j, len(header))]:
        if header[k] in names:
            raise InputFileError(
                f"column {k + 1} is {header[k]!r} outside a group of output columns; a "
                f"promptfoo CSV has, per output column, {', '.join(_GROUP_HEAD + _GROUP_TAIL)}",
                path=str(p), line=1)
    return first, groups


def _output_header(text: str) -> tuple[_Provider, str]:
    """``[provider] prompt label`` -> the provider (as promptfoo names it) and the label."""
    if text.startswith("["):
        end = text.find("] ")
        if end > 0:
            return _Provider(text[1:end], None), text[end + 2:]
        if text.endswith("]") and len(text) > 2:
            return _Provider(text[1:-1], None), ""
    return _Provider(None, None), text


def _read_csv(p: Path) -> tuple[_Eval, list[_Result]]:
    rows = _csv_rows(p)
    first_row = next(rows, None)
    if first_row is None:
        raise InputFileError("the file is empty", path=str(p))
    header = first_row[1]
    first, groups = _groups(p, header)
    described = header[0] == "Description" and first > 0
    var_columns = list(enumerate(header))[1 if described else 0:first]
    eval_ = _Eval(form="csv")
    for i, group in enumerate(groups):
        eval_.prompt_labels[i] = group.prompt
    results: list[_Result] = []
    test = 0
    for line, row in rows:
        if not row:
            continue
        if len(row) != len(header):
            raise InputFileError(f"the row has {len(row)} cells, the header {len(header)}",
                                 path=str(p), line=line)
        description = row[0] if described and row[0] else None
        variables = {name: _unescape(row[j]) for j, name in var_columns}
        for i, group in enumerate(groups):
            status = row[group.status]
            if status == "":  # the provider did not run this test (or this prompt)
                continue
            if status not in ("PASS", "FAIL", "ERROR"):
                raise InputFileError(
                    f"column {group.status + 1} ('Status' of {header[group.output]!r}) must "
                    f"be PASS, FAIL or ERROR, found {short_repr(status)}", path=str(p),
                    line=line)
            results.append(_CsvResult(row, test, line, group, i, variables, description))
        test += 1
    return eval_, results


def _unescape(cell: str) -> str:
    """A CSV cell as promptfoo had it before guarding it against spreadsheet formulas.

    promptfoo prefixes ``'`` to a text cell that starts (after white space) with ``=`` or
    ``@``, or with ``+``/``-`` when it is not a number (``escapeCsvFormula``).
    """
    if not cell.startswith("'"):
        return cell
    rest = cell[1:]
    bare = rest.lstrip(" \t\n\r\x0b\x0c\u200b\u200c\u200d")
    if bare[:1] in ("=", "@") or (bare[:1] in ("+", "-") and not _numeric(bare)):
        return rest
    return cell


def _numeric(text: str) -> bool:
    try:
        return text.strip() != "" and math.isfinite(float(text))
    except ValueError:
        return False


# --- one provider --------------------------------------------------------------------------


def _choose(p: Path, results: list[_Result],
            run: str | None) -> tuple[_Provider, list[_Result]]:
    """The provider to read (``run``: its label or id) and its results."""
    by_provider: dict[_Provider, list[_Result]] = {}
    first_column: dict[_Provider, int] = {}
    for result in results:
        if isinstance(result, _JsonResult):
            result.prepare(p)
        by_provider.setdefault(result.provider, []).append(result)
        first_column[result.provider] = min(first_column.get(result.provider, result.column),
                                            result.column)
    providers = sorted(by_provider, key=lambda k: first_column[k])
    names = [k.display for k in providers]
    if run is None:
        if len(providers) == 1:
            return providers[0], by_provider[providers[0]]
        raise InputFileError(
            f"the file holds {len(providers)} providers ({name_list(names)}); choose two "
            f"with {option('runs', 'A,B')} to compare them, or read one with "
            f"{option('run', 'NAME')}", path=str(p))
    if not isinstance(run, str):
        raise InputFileError(f"{option('run', 'NAME')} must be a provider's label or id; got "
                             f"{short_repr(run)}", path=str(p))
    found = [k for k in providers if k.label == run] or [k for k in providers if k.id == run]
    if not found:
        raise InputFileError(f"no provider {run!r} in the file; its providers are "
                             f"{name_list(names)} (choose one with {option('run', 'NAME')})",
                             path=str(p))
    if len(found) > 1:
        labels = [k.label for k in found]
        if None in labels or len(set(labels)) < len(labels):
            raise InputFileError(f"{len(found)} providers of the file are called {run!r}; give "
                                 "them different labels in the eval's config", path=str(p))
        raise InputFileError(f"{run!r} is the id of {len(found)} providers (labels "
                             f"{name_list(labels)}); choose one by its label with "
                             f"{option('run', 'LABEL')}", path=str(p))
    return found[0], by_provider[found[0]]


def _check_score(p: Path, results: list[_Result], score: str) -> None:
    if score in PASS_SCORES or score == GRADED:
        return
    named: dict[str, None] = {}
    for result in results:
        named.update(dict.fromkeys(result.named_scores()))
        if score in named:
            return
    listed = f"; its named scores are {name_list(named)}" if named else \
        " (the file records no named scores)"
    raise InputFileError(f"score {score!r} not found: use {option('score', 'pass')} (the "
                         f"default), {option('score', 'score')} (the graded score) or a named "
                         f"score{listed}", path=str(p))


def _build(p: Path, eval_: _Eval, provider: _Provider, results: list[_Result],
           score: str | None, on_error: str, name: str | None) -> RunResults:
    chosen = score if score is not None else "pass"
    _check_score(p, results, chosen)
    columns = sorted({r.column for r in results})
    position = {c: i for i, c in enumerate(columns)}
    several = len(columns) > 1
    tests: list[int] = []
    scores: list[float] = []
    errored: list[bool] = []
    contents: list[str | None] = []
    prompts: list[int] = []
    descriptions: dict[str, str] = {}
    types: set[str] = set()
    typed = False
    for result in results:
        test, value, bad, content, description, kinds = result.read(p, chosen)
        tests.append(test)
        scores.append(value)
        errored.append(bad)
        contents.append(content)
        prompts.append(position[result.column])
        if description is not None:
            descriptions[str(test)] = description
        if kinds is not None:
            typed = True
            types.update(kinds)
    epochs = _repeats(tests, prompts, contents, descriptions) if eval_.repeat > 1 else None
    keys: list[Any] = list(zip(prompts, tests, strict=True)) if several else tests
    scorer = ", ".join(sorted(types)) if typed else None
    if chosen not in PASS_SCORES and scorer is not None:
        scorer += f" ({'graded score' if chosen == GRADED else 'named score ' + chosen})"
    model = provider.label or provider.id
    labels = [eval_.prompt_labels.get(c) or _prompt_label(results, c) for c in columns]
    metadata: dict[str, Any] = {
        "form": eval_.form,
        "provider": {"label": provider.label, "id": provider.id},
        "prompts": labels,
        "score": chosen,
        "assertions": sorted(types) if typed else None,
        "descriptions": descriptions,
    }
    for key, fact in (("description", eval_.description), ("eval_id", eval_.eval_id),
                      ("promptfoo_version", eval_.version)):
        if fact is not None:
            metadata[key] = fact
    if eval_.repeat > 1:
        metadata["repeat"] = eval_.repeat
    identity = RunIdentity(
        harness="promptfoo",
        model=model,
        tasks=(TaskIdentity(name=eval_.description, scorer=scorer, records=len(tests)),),
        status=None if eval_.form == "jsonl" else "complete",
        errored=sum(errored),
        content_name="vars",
    )
    return RunResults.from_scores(
        keys, errored_scores(scores, errored, on_error), errored=errored, contents=contents,
        epochs=epochs, name=name or model or p.name, path=str(p), format="promptfoo",
        key_names=("prompt", "testIdx") if several else ("testIdx",),
        score_name=chosen, sample_name="repeat" if epochs is not None else None,
        metadata=metadata, identity=identity,
    )


def _prompt_label(results: list[_Result], column: int) -> str | None:
    for result in results:
        if result.column == column and isinstance(result, _JsonResult):
            prompt = result.record.get("prompt")
            if isinstance(prompt, dict) and isinstance(prompt.get("label"), str):
                return str(prompt["label"])
            return None
    return None


def _repeats(tests: list[int], prompts: list[int], contents: list[str | None],
             descriptions: dict[str, str]) -> list[int]:
    """Number the repeats of each test: the n-th result (by ``testIdx``) of the same prompt,
    description and vars is repeat n, and all take the first repeat's ``testIdx``."""
    first: dict[tuple[Any, ...], int] = {}
    seen: dict[tuple[Any, ...], int] = {}
    epochs = [0] * len(tests)
    for i in sorted(range(len(tests)), key=tests.__getitem__):
        what = (prompts[i], descriptions.get(str(tests[i])), contents[i])
        epochs[i] = seen.get(what, 0)
        seen[what] = epochs[i] + 1
        tests[i] = first.setdefault(what, tests[i])
    return epochs


# --- content -------------------------------------------------------------------------------


def _assertion_types(asserts: list[Any]) -> Iterator[str]:
    """The type of each assertion; an ``assert-set`` with its inner types."""
    for item in asserts:
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            continue
        kind = item["type"]
        inner = item.get("assert")
        if isinstance(inner, list):
            kind += "(" + ", ".join(sorted(set(_assertion_types(inner)))) + ")"
        yield kind


def _content(variables: Mapping[str, Any]) -> str:
    """The vars as promptfoo writes them into CSV cells, sorted by name (a missing var and
    an empty text are both an empty cell, and left out)."""
    cells = {str(k): text for k, v in variables.items() if (text := _js_string(v)) != ""}
    whole = json.dumps(dict(sorted(cells.items())), ensure_ascii=False)
    if len(whole) <= _CONTENT_CHARS:
        return whole
    digest = hashlib.sha256(whole.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{whole[:_PREFIX_CHARS]}... (sha256 {digest})"


def _js_string(value: Any) -> str:
    """JavaScript's ``String(value)`` of a JSON value (what promptfoo writes into a cell)."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _js_number(value)
    if isinstance(value, list):
        return ",".join("" if v is None else _js_string(v) for v in value)
    return "[object Object]"


def _js_number(x: float) -> str:
    """JavaScript's ``Number.prototype.toString()`` (ECMA-262 Number::toString, radix 10).

    Both languages print the shortest digits that read back as the same double; they differ
    only in where exponent notation starts and how the exponent is written.

    >>> [_js_number(v) for v in (1.0, 0.1, 1e-7, 1.5e21, 1e16, 123.456, -0.000001)]
    ['1', '0.1', '1e-7', '1.5e+21', '10000000000000000', '123.456', '-0.000001']
    """
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    mantissa, _, exp_text = repr(abs(x)).partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    exponent = int(exp_text or 0) - len(frac)  # value = int(digits) * 10**exponent
    stripped = digits.rstrip("0")
    exponent += len(digits) - len(stripped)
    digits = stripped
    k = len(digits)
    n = exponent + k  # value = 0.d1d2...dk * 10**n
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        text = digits[0] + ("." + digits[1:] if k > 1 else "") + ("e+" if e >= 0 else "e-") \
            + str(abs(e))
    return sign + text
