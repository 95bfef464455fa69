"""What alignment reports: its options, their validation, and the summaries of a pairing.

Shared by :mod:`mcnemar.io.align` (runs in memory) and :mod:`mcnemar.io._frames` (runs joined
inside a data-frame engine or DuckDB), so both apply and describe the same policies. The
public names are re-exported by :mod:`mcnemar.io.align`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mcnemar import vocabulary
from mcnemar.errors import McNemarError, option
from mcnemar.io.identity import RunIdentity

#: Valid ``on_missing`` policies.
ON_MISSING = vocabulary.names(vocabulary.ON_MISSING)
#: Keep every sample as a paired observation and cluster the samples by item.
CLUSTER = "cluster"
#: Valid ``reduce`` policies that give one outcome per item (all but :data:`CLUSTER`).
REDUCERS = tuple(name for name in vocabulary.names(vocabulary.REDUCE) if name != CLUSTER)
#: How many offending keys an error message shows.
SHOW = 3


def _plural(n: int, word: str) -> str:
    """``"1 item"``, ``"2 items"``."""
    return f"{n} {word}" + ("" if n == 1 else "s")


def _verb(n: int, one: str, many: str) -> str:
    """``"1 item has"``, ``"2 items have"``."""
    return f"{n} {one if n == 1 else many}"


#: How to ask for a reduce policy or a threshold inside a message (spelled per interface).
REDUCE_HINT = option("reduce", "'mean'|'majority'|'first'")
THRESHOLD_HINT = option("threshold", "T")


def check_policies(on_missing: str, threshold: float | None, reduce: str | None) -> None:
    """Validate the alignment options (shared by files and frames)."""
    if on_missing not in ON_MISSING:
        raise McNemarError(
            f"{option('on_missing', repr(on_missing))} is not valid; use 'error' (refuse items "
            "present in one "
            "run only) or 'intersect' (drop them and report how many)"
        )
    if reduce is not None and reduce not in (*REDUCERS, CLUSTER):
        raise McNemarError(
            f"{option('reduce', repr(reduce))} is not valid; use None, 'mean', 'majority', "
            "'first' or "
            "'cluster' (keep every sample and analyse the samples as clusters of one item)"
        )
    if threshold is not None:
        if isinstance(threshold, bool) or not isinstance(threshold, int | float) \
                or not np.isfinite(threshold):
            raise McNemarError(
                f"{option('threshold', repr(threshold))} is not valid; give a finite number "
                "(e.g. 0.5: "
                "scores >= 0.5 pass)"
            )


@dataclass(frozen=True, slots=True, kw_only=True)
class RunSummary:
    """What alignment did with one run's records (part of :class:`AlignmentSummary`).

    Attributes
    ----------
    records : int
        Records read.
    items : int
        Distinct items (records with the same key, e.g. epochs, make one item).
    max_samples : int
        Most samples (records) of one item.
    reduced : int
        Items whose several samples were combined by ``reduce``.
    ties : int
        Items that ``reduce="majority"`` found tied (counted as fail).
    binarised : int
        Scores other than 0/1 turned into pass/fail by ``threshold``.
    only_here : int
        Items of this run absent from the other run.
    no_score : int
        Items without a score (dropped under ``on_missing="intersect"`` when matched).
    identity : RunIdentity
        The run's task(s), scorer, status, errored samples and ignored files.
    errored_counted : int
        Paired items in the table that have an errored sample (counted with the score the
        harness gave them).
    errored_failed : int
        Of those, items counted as a failure.
    errored_dropped : int
        Items with an errored sample left out of the table (no score, or in one run only).
    """

    name: str
    path: str
    format: str
    records: int
    items: int
    max_samples: int = 1
    reduced: int = 0
    ties: int = 0
    binarised: int = 0
    only_here: int = 0
    no_score: int = 0
    identity: RunIdentity = field(default_factory=RunIdentity)
    errored_counted: int = 0
    errored_failed: int = 0
    errored_dropped: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict of the fields."""
        ident = self.identity
        return {
            "name": self.name, "path": self.path, "format": self.format,
            "records": self.records, "items": self.items, "max_samples": self.max_samples,
            "reduced": self.reduced, "ties": self.ties, "binarised": self.binarised,
            "only_here": self.only_here, "no_score": self.no_score,
            "harness": ident.harness, "model": ident.model, "task": ident.task,
            "scorer": ident.scorer, "filter": ident.filter,
            "tasks": [t.to_dict() for t in ident.tasks],
            "status": ident.status, "status_detail": ident.status_detail,
            "expected": ident.expected,
            "errored": ident.errored,
            "errored_counted": self.errored_counted, "errored_failed": self.errored_failed,
            "errored_dropped": self.errored_dropped,
            "ignored": list(ident.ignored),
            # Task, scorer and status in the words of the text report (a page shows them).
            "description": self.describe(),
        }

    def describe(self) -> str:
        """Task, scorer and status in words (one line of the report)."""
        ident = self.identity
        parts = []
        if len(ident.tasks) > 1:
            shown = "; ".join(
                f"{t.name} scored by {t.scorer or 'a scorer not recorded'}"
                + (f", filter {t.filter}" if t.filter is not None else "") for t in ident.tasks)
            parts.append(f"{len(ident.tasks)} tasks ({shown})")
        elif ident.tasks:
            t = ident.tasks[0]
            parts.append(f"task {t.name}" if t.name is not None else "task not recorded")
            if t.dataset is not None:
                parts.append(f"dataset {t.dataset}")
        if len(ident.tasks) == 1 and ident.scorer is not None:
            scorer = ident.tasks[0].describe_scorer() if ident.filter is not None \
                else ident.scorer
            parts.append(f"scorer {scorer}")
        if ident.status is not None:
            parts.append(f"status {ident.status}")
        return ", ".join(parts)


@dataclass(frozen=True, slots=True, kw_only=True)
class AlignmentSummary:
    """Items read per run, matched, dropped (and why), binarised and reduced.

    ``to_dict()`` is JSON-safe and is what reports show under ``"alignment"``; ``str()`` gives
    the same as readable lines.
    """

    run_a: RunSummary
    run_b: RunSummary
    key: tuple[str, ...]
    matched: int
    dropped_no_score: int
    on_missing: str
    threshold: float | None
    reduce: str | None
    engine: str
    clusters: int | None = None
    cluster_name: str | None = None
    #: Per task (tasks are strata of independent items): the task and its (a, b, c, d);
    #: the table is their sum. ``None`` when the runs hold one task each.
    strata: tuple[tuple[str | None, tuple[int, int, int, int]], ...] | None = None
    #: Differences of task or scorer let through by ``allow_different_*``, in words.
    overridden: tuple[str, ...] = ()
    #: The content check: field compared (``doc_hash``, ``input/target``), items compared,
    #: items that differ (only nonzero under ``allow_different_tasks``).
    content_field: str | None = None
    content_checked: int = 0
    content_differ: int = 0

    @property
    def warnings(self) -> tuple[str, ...]:
        """Sentences for the report's warnings: overrides, unfinished runs, errored samples,
        ignored files."""
        out = list(self.overridden)
        if self.content_differ:
            out.append(f"{self.content_differ} of {self.content_checked} paired items have a "
                       f"different {self.content_field} in A and B, and were counted because "
                       "allow_different_tasks was set")
        for label, run in (("A", self.run_a), ("B", self.run_b)):
            ident = run.identity
            if ident.status is not None and ident.status != "complete":
                detail = (f" ({ident.status_detail})" if ident.status_detail
                          and ident.status_detail != ident.status else "")
                out.append(f"run {label} ({run.name}) did not complete: its status is "
                           f"{ident.status}{detail}; its results may not cover every item")
            if ident.errored:
                what = _plural(ident.errored, "sample")
                parts = []
                if run.errored_counted:
                    failed = (f", {run.errored_failed} of them as failures"
                              if run.errored_failed else "")
                    parts.append(f"{_plural(run.errored_counted, 'item')} counted with the score "
                                 f"the harness gave{failed}")
                if run.errored_dropped:
                    parts.append(f"{_plural(run.errored_dropped, 'item')} left out of the table")
                tail = ": " + "; ".join(parts) if parts else ""
                out.append(f"run {label} ({run.name}) has {what} that errored{tail}")
            if ident.ignored:
                shown = ", ".join(ident.ignored[:SHOW]) + (", ..." if len(ident.ignored) > SHOW
                                                           else "")
                files = _plural(len(ident.ignored), "file")
                out.append(f"run {label} ({run.name}): ignored {files} (older re-runs of the "
                           f"same task): {shown}")
        return tuple(out)

    @property
    def dropped(self) -> int:
        """Items left out of the table: present in one run only, or without a score."""
        return self.run_a.only_here + self.run_b.only_here + self.dropped_no_score

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict (the ``"alignment"`` object of the report)."""
        return {
            "key": list(self.key),
            "matched": self.matched,
            "dropped": {
                "total": self.dropped,
                "only_in_a": self.run_a.only_here,
                "only_in_b": self.run_b.only_here,
                "no_score": self.dropped_no_score,
            },
            "runs": {"a": self.run_a.to_dict(), "b": self.run_b.to_dict()},
            "on_missing": self.on_missing,
            "threshold": self.threshold,
            "reduce": self.reduce,
            "clusters": None if self.clusters is None else
            {"field": self.cluster_name, "count": self.clusters},
            "engine": self.engine,
            "strata": None if self.strata is None else [
                {"task": task, "a": a, "b": b, "c": c, "d": d}
                for task, (a, b, c, d) in self.strata
            ],
            "content_check": None if self.content_field is None else {
                "field": self.content_field, "checked": self.content_checked,
                "differ": self.content_differ,
            },
            "warnings": list(self.warnings),
        }

    def __str__(self) -> str:
        lines = [f"Alignment: {_plural(self.matched, 'item')} matched by "
                 f"{'+'.join(self.key)} (engine: {self.engine})."]
        for label, run in (("A", self.run_a), ("B", self.run_b)):
            extra = ""
            if run.max_samples > 1:
                extra = f", up to {run.max_samples} samples per item"
            lines.append(f"  {label}: {run.name} ({run.format}, {run.path}): "
                         f"{_plural(run.records, 'record')}, {_plural(run.items, 'item')}{extra}")
            described = run.describe()
            if described:
                lines.append(f"     {described}.")
        if self.strata is not None:
            lines.append(f"  Compared task by task ({_plural(len(self.strata), 'task')}; tasks "
                         "are strata of independent items, so the table is the sum of the "
                         "per-task tables and McNemar's test applies to it):")
            for task, (a, b, c, d) in self.strata:
                lines.append(f"    {task}: a={a}, b={b}, c={c}, d={d}")
        if self.content_field is not None:
            agree = self.content_checked - self.content_differ
            unknown = self.matched - self.content_checked
            extra = (f" ({_verb(unknown, 'other has', 'others have')} no "
                     f"{self.content_field} in one run)" if unknown > 0 else "")
            lines.append(f"  Content ({self.content_field}) of {agree} of "
                         f"{_plural(self.content_checked, 'paired item')} agrees in A and "
                         f"B{extra}.")
        if self.dropped:
            why = []
            if self.run_a.only_here:
                why.append(f"{self.run_a.only_here} only in A")
            if self.run_b.only_here:
                why.append(f"{self.run_b.only_here} only in B")
            if self.dropped_no_score:
                why.append(f"{self.dropped_no_score} without a score")
            lines.append(f"  Dropped {_plural(self.dropped, 'item')} ({', '.join(why)}; "
                         f"on_missing={self.on_missing}).")
        else:
            lines.append("  Dropped 0 items.")
        binarised = self.run_a.binarised + self.run_b.binarised
        if self.threshold is not None:
            lines.append(f"  Binarised {binarised} scores at threshold {self.threshold:g} "
                         f"(A {self.run_a.binarised}, B {self.run_b.binarised}); "
                         f"score >= {self.threshold:g} passes.")
        if self.reduce == CLUSTER:
            lines.append("  Kept every sample as a paired observation (pairs matched by item and "
                         "sample); the samples of an item form a cluster.")
        elif self.reduce is not None:
            ties = self.run_a.ties + self.run_b.ties
            tie_text = f"; {ties} ties counted as fail" if self.reduce == "majority" else ""
            lines.append(f"  Reduced samples per item by {self.reduce}: A {self.run_a.reduced} "
                         f"items, B {self.run_b.reduced} items{tie_text}.")
        if self.clusters is not None:
            lines.append(f"  Clusters: {self.clusters} (field {self.cluster_name}).")
        return "\n".join(lines)


def intersect_note(matched: int | None, only_a: int, only_b: int, unscored: int) -> str:
    """What ``on_missing="intersect"`` did before another problem stopped the alignment."""
    why = [f"{n} {text}" for n, text in ((only_a, "only in A"), (only_b, "only in B"),
                                         (unscored, "without a score")) if n]
    dropped = only_a + only_b + unscored
    head = option("on_missing", "'intersect'") + " " + (f"matched {matched} items and "
                                                        if matched is not None
                                        else "")
    return head + f"dropped {dropped}" + (f" ({', '.join(why)})" if why else "")
