"""What a run is: harness, task, scorer, model, status; and the checks made before pairing.

Every reader fills a :class:`RunIdentity` from what the file records (nothing is guessed: a
field the harness does not write stays ``None``). :func:`check_identities` compares two runs'
identities before a single item is counted: runs of different tasks (or datasets) or scored
by different scorers, metrics or filters are refused unless the caller says so explicitly
(``allow_different_tasks=True``, ``allow_different_scorers=True``), and the report then says
it in its warnings.

==============  ============================================================================
harness         task / scorer / status recorded as
==============  ============================================================================
lm-eval         task from ``samples_<task>_<date>.jsonl`` (or ``task=``); metric and filter
                per task; no status; older re-runs of a directory are ``ignored``
inspect         ``eval.task``, ``eval.dataset.name``; the scorer's name; ``status``
                ``success`` -> complete, ``error``, ``cancelled``, ``started`` -> unfinished;
                samples with an ``error`` are counted in ``errored``
openai-evals    ``eval_name``; the ``data`` field; complete when the ``final_report`` line is
                there, unfinished otherwise; samples with ``error`` events in ``errored``
helm            the scenario (``run_spec.json`` ``scenario_spec``: class and arguments); the
                stat; complete (``per_instance_stats.json`` is written at the end of a run)
promptfoo       the eval's description; the assertions; complete; provider errors in
                ``errored``
lighteval       ``<task>|<fewshot>`` from the file name (or ``doc.task_name``); the metric;
                complete (details are written at the end); older re-runs are ``ignored``
evalscope       ``<benchmark>_<subset>`` from the file name; the metric (``main_score_name``);
                unfinished while a subset is still in ``.jsonl.rerun-*`` or its benchmark has
                no report; errored samples from the report's ``execution_summary``
deepeval        not recorded; the metric or the sorted metric names; complete when
                ``testPassed``/``testFailed`` are written, unfinished otherwise; metrics with
                an ``error`` in ``errored``
opencompass     the dataset (file name); the pass field (``correct``, ``is_correct``...);
                complete
==============  ============================================================================
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mcnemar._format import json_fields
from mcnemar.errors import McNemarError, option

__all__ = [
    "STATUSES",
    "IdentityCheck",
    "RunIdentity",
    "TaskIdentity",
    "check_identities",
]

#: Run statuses: finished normally, stopped by an error, cancelled by the user, or never
#: finished (killed, or still running when the log was read).
STATUSES = ("complete", "error", "cancelled", "unfinished")


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskIdentity:
    """One task of a run, as the harness recorded it.

    Attributes
    ----------
    name : str or None
        The task (``None``: the file does not say, e.g. a renamed lm-eval samples file).
    scorer : str or None
        The scorer, metric or stat whose value was read.
    filter : str or None
        lm-eval: the filter whose records were read.
    dataset : str or None
        The dataset, where recorded (Inspect ``eval.dataset.name``).
    records : int or None
        Records read for this task.
    """

    name: str | None = None
    scorer: str | None = None
    filter: str | None = None
    dataset: str | None = None
    records: int | None = None

    def describe_scorer(self) -> str:
        """The scorer in words (``"acc (filter none)"``)."""
        text = self.scorer if self.scorer is not None else "not recorded"
        return text + (f" (filter {self.filter})" if self.filter is not None else "")

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict of the fields."""
        return {"task": self.name, "scorer": self.scorer, "filter": self.filter,
                "dataset": self.dataset, "records": self.records}


@dataclass(frozen=True, slots=True, kw_only=True)
class RunIdentity:
    """What a run is, as recorded by its harness (a typed part of :class:`RunResults`).

    Attributes
    ----------
    harness : str or None
        ``"lm-eval"``, ``"inspect"``, ``"openai-evals"``, ``"helm"``; ``None`` for generic
        files.
    model : str or None
        The model the harness names.
    tasks : tuple of TaskIdentity
        The run's tasks (one for most logs; several for an lm-eval directory).
    status : str or None
        One of :data:`STATUSES`; ``None`` when the format records no status.
    status_detail : str or None
        The harness's own word or message (e.g. Inspect ``started``, an error message).
    expected : int or None
        Samples the harness planned (Inspect ``results.total_samples``), where recorded.
    errored : int
        Samples (records) that errored; counted as failures if the harness scored them,
        without a score otherwise (see the alignment summary).
    ignored : tuple of str
        Files left out (e.g. older re-runs of a task in an lm-eval directory).
    task_part, filter_part : int or None
        Index of the item-key part that holds the task / the filter (lm-eval keys are
        ``(task, doc_id, filter)``): these parts describe the run rather than the item, and
        alignment checks them as identity.
    content_name : str or None
        What the per-record content fingerprint is (``"doc_hash"``, ``"input/target"``).
    """

    harness: str | None = None
    model: str | None = None
    tasks: tuple[TaskIdentity, ...] = ()
    status: str | None = None
    status_detail: str | None = None
    expected: int | None = None
    errored: int = 0
    ignored: tuple[str, ...] = ()
    task_part: int | None = None
    filter_part: int | None = None
    content_name: str | None = None

    def __post_init__(self) -> None:
        if self.status is not None and self.status not in STATUSES:
            raise McNemarError(f"status={self.status!r} is not valid; use one of "
                               f"{', '.join(STATUSES)} or None")

    @property
    def task(self) -> str | None:
        """The task when the run holds exactly one (``None`` otherwise or when unknown)."""
        return self.tasks[0].name if len(self.tasks) == 1 else None

    @property
    def scorer(self) -> str | None:
        """The scorer (metric) when every task uses the same one."""
        names = {t.scorer for t in self.tasks}
        return names.pop() if len(names) == 1 else None

    @property
    def filter(self) -> str | None:
        """The lm-eval filter when every task uses the same one."""
        names = {t.filter for t in self.tasks}
        return names.pop() if len(names) == 1 else None

    @property
    def complete(self) -> bool:
        """False only when the harness recorded that the run did not finish normally."""
        return self.status in (None, "complete")

    def task_names(self) -> list[str | None]:
        """The task names, in order."""
        return [t.name for t in self.tasks]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict (the run's part of the report's ``alignment.runs``)."""
        return {
            **json_fields(self, "harness", "model", "task", "scorer", "filter"),
            "tasks": [t.to_dict() for t in self.tasks],
            **json_fields(self, "status", "status_detail", "expected", "errored"),
            "ignored": list(self.ignored),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class IdentityCheck:
    """What :func:`check_identities` found and let through.

    Attributes
    ----------
    strata : bool
        The runs hold several tasks and are paired task by task (the task stays in the key).
    tasks : tuple of str or None
        The tasks compared (in A's order), when known.
    overridden : tuple of str
        Sentences for the report's warnings: differences let through by an override.
    """

    strata: bool
    tasks: tuple[str | None, ...] = ()
    overridden: tuple[str, ...] = ()


def _names(values: Sequence[str | None]) -> str:
    shown = [repr(v) if v is not None else "not recorded" for v in values]
    return ", ".join(shown) if shown else "none"


def _refuse_unless(text: str, *, allowed: bool, override: str, why: str, compared: str) -> str:
    """Refuse a difference between two runs, or, when its override is set, word it as a warning.

    ``text`` says what differs, ``why`` why that stops the pairing and how to go on (naming
    the ``override`` option). Returns the report's warning sentence.
    """
    if not allowed:
        raise McNemarError(f"{text}; {why}")
    return f"{text} ({compared} because {override} was set)"


def check_identities(a: RunIdentity, b: RunIdentity, *, path_a: str = "A", path_b: str = "B",
                     allow_different_tasks: bool = False,
                     allow_different_scorers: bool = False) -> IdentityCheck:
    """Refuse to pair two runs of different tasks or scorers (unless allowed).

    Rules:

    * Both runs hold one task: their task names (and datasets, where both record one) must be
      equal when both are recorded; a run whose file does not name its task is paired on the
      item ids alone (its content is still checked where recorded).
    * Either run holds several tasks: both must hold the same set of tasks (choose them with
      ``task=``); items are then paired within each task, and the tasks are strata of
      independent items.
    * Paired tasks must use the same scorer (metric) and, for lm-eval, the same filter.

    Raises
    ------
    McNemarError
        One message naming both sides' values and the override.

    Examples
    --------
    >>> a = RunIdentity(harness="inspect", tasks=(TaskIdentity(name="arith", scorer="match"),))
    >>> b = RunIdentity(harness="inspect", tasks=(TaskIdentity(name="arith", scorer="includes"),))
    >>> try:
    ...     check_identities(a, b)
    ... except McNemarError as exc:
    ...     print(str(exc).split(";")[0])
    the runs were scored differently: task 'arith' is scored by match in A and by includes in B
    >>> check_identities(a, b, allow_different_scorers=True).overridden[0][-50:]
    '(compared because allow_different_scorers was set)'
    """
    overridden: list[str] = []
    names_a, names_b = a.task_names(), b.task_names()
    several = len(a.tasks) > 1 or len(b.tasks) > 1
    pairs: list[tuple[TaskIdentity, TaskIdentity]] = []
    if not a.tasks or not b.tasks:
        return IdentityCheck(strata=False)
    if several:
        if None in names_a or None in names_b:
            one = path_a if None in names_a else path_b
            raise McNemarError(
                f"{one} does not say which task it holds, and the other run holds several "
                f"tasks ({_names(names_a if one == path_b else names_b)}); name its task with "
                f"{option('task', 'NAME')}"
            )
        only_a = [t for t in names_a if t not in names_b]
        only_b = [t for t in names_b if t not in names_a]
        if only_a or only_b:
            parts = []
            if only_a:
                parts.append(f"{_names(only_a)} only in A ({path_a})")
            if only_b:
                parts.append(f"{_names(only_b)} only in B ({path_b})")
            raise McNemarError(
                f"the runs hold different tasks: {'; '.join(parts)}; choose the tasks to "
                f"compare with {option('task', 'NAME')} (repeatable)"
            )
        by_name = {t.name: t for t in b.tasks}
        pairs = [(t, by_name[t.name]) for t in a.tasks]
    else:
        ta, tb = a.tasks[0], b.tasks[0]
        pairs = [(ta, tb)]
        differs = []
        if ta.name is not None and tb.name is not None and ta.name != tb.name:
            differs.append(f"task {ta.name!r} in A ({path_a}) and {tb.name!r} in B ({path_b})")
        if ta.dataset is not None and tb.dataset is not None and ta.dataset != tb.dataset:
            differs.append(f"dataset {ta.dataset!r} in A and {tb.dataset!r} in B")
        if differs:
            overridden.append(_refuse_unless(
                "the runs are of different tasks: " + "; ".join(differs),
                allowed=allow_different_tasks, override="allow_different_tasks",
                why="pairing them by item id would compare different questions. If they do hold "
                    f"the same items, pass {option('allow_different_tasks', 'True')}",
                compared="compared as the same items"))
    scorer_diffs = []
    for ta, tb in pairs:
        if ta.scorer is None or tb.scorer is None:
            continue
        if (ta.scorer, ta.filter) != (tb.scorer, tb.filter):
            label = ta.name if ta.name is not None else tb.name
            where = f"task {label!r} is" if label is not None else "the runs are"
            scorer_diffs.append(f"{where} scored by {ta.describe_scorer()} in A and by "
                                f"{tb.describe_scorer()} in B")
    if scorer_diffs:
        overridden.append(_refuse_unless(
            "the runs were scored differently: " + "; ".join(scorer_diffs),
            allowed=allow_different_scorers, override="allow_different_scorers",
            why="a difference in scoring is not a difference between the systems. Choose the "
                f"same scorer for both ({option('score', 'NAME')}), or, to compare the scorers "
                f"themselves, pass {option('allow_different_scorers', 'True')}",
            compared="compared"))
    tasks = tuple(t.name for t, _ in pairs)
    return IdentityCheck(strata=several, tasks=tasks, overridden=tuple(overridden))
