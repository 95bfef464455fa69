"""Pairing two (or more) runs item by item: strict by default, every policy reported.

Alignment turns records into items and items into pairs:

1. *records -> items*: records sharing an item key are one item. Without a sample index
   (epoch, trial) a repeated key is a **duplicate** and an error. With one, several samples of
   an item are an error unless ``reduce`` says how to combine them (``"mean"`` then
   ``threshold``, ``"majority"``, ``"first"``); they are never counted as separate items.
2. *scores -> pass/fail*: a score must be 0 or 1 (booleans are 0/1) unless ``threshold`` is
   given, in which case ``score >= threshold`` passes and the number of values binarised is
   reported.
3. *items -> pairs*: an item present in one run only, or without a score, is an error unless
   ``on_missing="intersect"``, which drops it and reports how many were dropped and why.

Every problem found is reported at once, naming the file, counting the offending items and
showing the first few keys. Runs that are both deferred (large files) are aligned inside DuckDB
by :mod:`mcnemar.io._frames`, which applies exactly the same rules; only counts come back.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import repeat
from typing import TYPE_CHECKING, Any

import numpy as np

from mcnemar.errors import AlignmentError, McNemarError, McNemarWarning, option
from mcnemar.io._run import RunResults, name_list, object_array
from mcnemar.io._summary import CLUSTER as CLUSTER
from mcnemar.io._summary import ON_MISSING as ON_MISSING
from mcnemar.io._summary import REDUCE_HINT as REDUCE_HINT
from mcnemar.io._summary import REDUCERS as REDUCERS
from mcnemar.io._summary import SHOW as SHOW
from mcnemar.io._summary import THRESHOLD_HINT as THRESHOLD_HINT
from mcnemar.io._summary import AlignmentSummary as AlignmentSummary
from mcnemar.io._summary import RunSummary as RunSummary
from mcnemar.io._summary import _plural, _verb
from mcnemar.io._summary import check_policies as check_policies
from mcnemar.io._summary import intersect_note as intersect_note
from mcnemar.io.identity import IdentityCheck, check_identities

if TYPE_CHECKING:
    from mcnemar.flips import Flips
    from mcnemar.table import PairedTable

__all__ = [
    "ON_MISSING",
    "REDUCERS",
    "Alignment",
    "AlignmentSummary",
    "RunSummary",
    "align",
    "align_many",
]

@dataclass(frozen=True, slots=True, kw_only=True)
class Alignment:
    """Two runs paired item by item.

    Attributes
    ----------
    counts : tuple of int
        ``(a, b, c, d)``: both pass, only A passes, only B passes, both fail.
    summary : AlignmentSummary
        What was matched, dropped, binarised and reduced.
    keys : numpy.ndarray or None
        The paired item keys, in run A's order (``None`` when aligned inside an engine).
    correct_a, correct_b : numpy.ndarray or None
        0/1 (int8) outcome of each paired item.
    clusters : numpy.ndarray or None
        Cluster label of each paired item, when the runs carry clusters.
    scores_a, scores_b : numpy.ndarray or None
        The score of each paired item before it was counted as a pass or a fail: the score
        read, the mean of its samples (``reduce="mean"``) or the share of its samples that
        passed (``reduce="majority"``).
    contents_a, contents_b : numpy.ndarray or None
        What each run records of each paired item's content (lm-eval ``doc_hash``, Inspect
        ``input``/``target``), when its reader records it.

    ``to_dict()`` and ``str()`` give the summary, so an Alignment can be passed as
    ``analyze(table, alignment=...)``; :meth:`flips` lists the items on which the runs
    disagree.
    """

    counts: tuple[int, int, int, int]
    summary: AlignmentSummary
    keys: np.ndarray | None = None
    correct_a: np.ndarray | None = None
    correct_b: np.ndarray | None = None
    clusters: np.ndarray | None = None
    scores_a: np.ndarray | None = None
    scores_b: np.ndarray | None = None
    contents_a: np.ndarray | None = None
    contents_b: np.ndarray | None = None

    @property
    def table(self) -> PairedTable:
        """The paired 2x2 table of the matched items."""
        from mcnemar.table import PairedTable

        a, b, c, d = self.counts
        return PairedTable(a=a, b=b, c=c, d=d)

    @property
    def warnings(self) -> tuple[str, ...]:
        """What the report's warnings should say (see :attr:`AlignmentSummary.warnings`)."""
        return self.summary.warnings

    def display_names(self, names: Sequence[str] | None = None) -> tuple[str, str]:
        """The names a report of these runs uses: ``names`` if given, else the runs' names,
        told apart (two runs of one model get " (A)" and " (B)" appended, so no sentence
        reads "m is better than m")."""
        if names is not None:
            first, second = names
        else:
            first, second = self.summary.run_a.name, self.summary.run_b.name
        if first == second:
            return f"{first} (A)", f"{second} (B)"
        return first, second

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe summary (see :meth:`AlignmentSummary.to_dict`)."""
        return self.summary.to_dict()

    def flips(self) -> Flips:
        """The items on which the two runs disagree: A right and B wrong (the b cell), and A
        wrong and B right (the c cell), in run A's order (:class:`mcnemar.flips.Flips`).

        Runs counted inside the engine keep no per-item outcomes: the counts are then kept
        and the items are not listed (``Flips.reason`` says why).

        Examples
        --------
        >>> from mcnemar.io import RunResults
        >>> al = align(RunResults.from_scores(["q1", "q2", "q3"], [1, 1, 0], name="a"),
        ...            RunResults.from_scores(["q3", "q2", "q1"], [1, 0, 1], name="b"))
        >>> flips = al.flips()
        >>> flips.b, flips.c, [f.id for f in flips.a_only], [f.id for f in flips.b_only]
        (1, 1, ['q2'], ['q3'])
        """
        from mcnemar.flips import Flips

        return Flips.of(self)

    def __str__(self) -> str:
        return str(self.summary)


# --- records -> items --------------------------------------------------------------------


def factorize(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes and unique keys (in order of first appearance) of an object array.

    Hashing through dicts built in C: no Python-level loop over the records.
    """
    values = keys.tolist()
    try:
        first = dict.fromkeys(values)
    except TypeError:
        raise McNemarError("item keys must be text, numbers or tuples of them") from None
    uniques = list(first)
    position = dict(zip(uniques, range(len(uniques)), strict=True))
    codes = np.fromiter(map(position.__getitem__, values), dtype=np.int64, count=len(values))
    return codes, object_array(uniques)


def lookup(table_keys: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Index of each ``query`` key in ``table_keys`` (unique), -1 when absent."""
    position = dict(zip(table_keys.tolist(), range(len(table_keys)), strict=True))
    return np.fromiter(map(position.get, query.tolist(), repeat(-1)), dtype=np.int64,
                       count=len(query))


def _show(keys: Sequence[Any] | np.ndarray, total: int) -> str:
    shown = ", ".join(repr(k) for k in list(keys[:SHOW]))
    return f"{shown}, ..." if total > SHOW else shown


@dataclass(slots=True)
class _Items:
    keys: np.ndarray
    value: np.ndarray  # 0.0 / 1.0 / NaN (no score) per item
    clusters: np.ndarray | None
    summary: dict[str, int]
    contents: np.ndarray | None = None  # content fingerprint of the item's first record
    errored: np.ndarray | None = None  # True where any sample of the item errored
    raw: np.ndarray | None = None  # the item's score before pass/fail (NaN: no score)


def _items(run: RunResults, threshold: float | None, reduce: str | None,
           problems: list[str], keep: bool = False) -> _Items:
    if run.keys is None or run.scores is None:
        raise McNemarError(f"run {run.name!r} is deferred; call .load() first")
    keys, scores, epochs = run.keys, np.asarray(run.scores, dtype=np.float64), run.epochs
    where = f"{run.path}"
    codes, uniq = factorize(keys)
    m = len(uniq)
    counts = np.bincount(codes, minlength=m)
    missing = np.isnan(scores)
    summary = {"records": len(keys), "items": m,
               "max_samples": int(counts.max()) if m else 0,
               "reduced": 0, "ties": 0, "binarised": 0}
    multi = counts > 1
    if multi.any():
        if epochs is None:
            dup = np.flatnonzero(multi)
            examples = [f"{uniq[i]!r} x{counts[i]}" for i in dup[:SHOW]]
            problems.append(
                f"{where}: {_plural(len(dup), 'duplicated item key')} ({', '.join(examples)}"
                f"{', ...' if len(dup) > SHOW else ''}); each item may appear once"
            )
        else:
            order = np.lexsort((epochs, codes))
            same = (np.diff(codes[order]) == 0) & (np.diff(epochs[order]) == 0)
            if same.any():
                bad = np.unique(codes[order][1:][same])
                problems.append(
                    f"{where}: {_verb(len(bad), 'item repeats', 'items repeat')} the same "
                    f"{run.sample_name or 'sample'} "
                    f"(e.g. the items with ids {_show(uniq[bad], len(bad))}); each item and "
                    "sample may appear once"
                )
            elif reduce is None:
                n_multi = int(multi.sum())
                problems.append(
                    f"{where}: {_verb(n_multi, 'item has', 'items have')} several samples "
                    f"({run.sample_name or 'sample'}, up to {summary['max_samples']} per item; "
                    f"e.g. the items with ids {_show(uniq[multi], n_multi)}); they are not "
                    "independent items: "
                    f"choose {REDUCE_HINT} or a clustered analysis"
                )
    rank = epochs if epochs is not None else np.arange(len(keys))
    value = np.full(m, np.nan)
    if reduce == "mean" and multi.any():
        present = ~missing
        total = np.bincount(codes, weights=present, minlength=m)
        sums = np.bincount(codes, weights=np.where(present, scores, 0.0), minlength=m)
        with np.errstate(invalid="ignore", divide="ignore"):
            value = np.where(total > 0, sums / np.maximum(total, 1), np.nan)
        summary["reduced"] = int(multi.sum())
        raw = value
        value = _binarise(value, threshold, where, "item means", problems, summary, keep)
    else:
        record_value = _binarise(scores, threshold, where, "scores", problems, summary, keep)
        if multi.any() and reduce == "majority":
            present = ~np.isnan(record_value)
            total = np.bincount(codes, weights=present, minlength=m)
            passes = np.bincount(codes, weights=np.where(present, record_value, 0.0),
                                 minlength=m)
            value = np.where(total > 0, (2 * passes > total).astype(np.float64), np.nan)
            raw = np.where(total > 0, passes / np.maximum(total, 1), np.nan)
            summary["ties"] = int(np.sum((total > 0) & (2 * passes == total)))
            summary["reduced"] = int(multi.sum())
        else:
            # One record per item, or reduce="first": the lowest sample index wins.
            order = np.lexsort((rank, codes))
            starts = order[np.r_[True, np.diff(codes[order]) != 0]] if len(order) else order
            value = record_value[starts]
            raw = scores[starts]
            if reduce == "first":
                summary["reduced"] = int(multi.sum())
    clusters = None
    if run.clusters is not None:
        clusters = object_array([None] * m)
        clusters[codes[::-1]] = run.clusters[::-1]  # first record of each item wins
    contents = None
    if run.contents is not None:
        contents = object_array([None] * m)
        contents[codes[::-1]] = run.contents[::-1]
    errored = None
    if run.errored is not None and len(run.errored) == len(codes):
        errored = np.bincount(codes, weights=run.errored.astype(np.float64), minlength=m) > 0
    return _Items(keys=uniq, value=value, clusters=clusters, summary=summary,
                  contents=contents, errored=errored, raw=raw)


def _binarise(values: np.ndarray, threshold: float | None, where: str, what: str,
              problems: list[str], summary: dict[str, int], keep: bool = False) -> np.ndarray:
    present = ~np.isnan(values)
    nonbinary = present & (values != 0) & (values != 1)
    if threshold is None:
        if nonbinary.any() and not keep:
            n = int(nonbinary.sum())
            examples = ", ".join(f"{v:g}" for v in np.unique(values[nonbinary])[:SHOW])
            problems.append(
                f"{where}: {n} {what.rstrip('s') if n == 1 else what} "
                f"{'is' if n == 1 else 'are'} not 0/1 (e.g. {examples}); "
                f"pass {THRESHOLD_HINT} to count score >= T as a pass"
            )
        return values
    summary["binarised"] += int(nonbinary.sum())
    return np.where(present, (values >= threshold).astype(np.float64), np.nan)


# --- items -> pairs ----------------------------------------------------------------------


def align(
    run_a: RunResults,
    run_b: RunResults,
    *,
    on_missing: str = "error",
    threshold: float | None = None,
    reduce: str | None = None,
    engine: str = "auto",
    allow_different_tasks: bool = False,
    allow_different_scorers: bool = False,
    keep_scores: bool = False,
) -> Alignment:
    """Pair two runs by item key and count the paired 2x2 table.

    Before anything is counted, the runs' identities are checked
    (:func:`~mcnemar.io.identity.check_identities`): runs of different tasks (or datasets),
    or scored by different scorers, metrics or filters, are refused; where the harness
    records the items' content (lm-eval ``doc_hash``, Inspect ``input``/``target``), every
    paired item must have the same content in both runs, and the first that differs is named.
    Runs holding several tasks (an lm-eval directory) are paired within each task; the tasks
    are strata of independent items, and the per-task tables are in ``summary.strata``.

    Parameters
    ----------
    run_a, run_b : RunResults
        A is the candidate, B the baseline (the table's rows and columns).
    on_missing : {"error", "intersect"}
        What to do with items present in one run only, or without a score: refuse (default)
        or drop them and report how many.
    threshold : float, optional
        Count ``score >= threshold`` as a pass; needed for scores other than 0/1.
    reduce : {None, "mean", "majority", "first", "cluster"}
        How to combine several samples (epochs) of one item: the mean score (then
        ``threshold``), a strict majority of passes (ties fail), or the lowest sample index.
        ``"cluster"`` keeps every sample, pairs the runs by (item, sample) and returns the item
        as each pair's cluster, for the clustered analysis. ``None`` refuses items with
        several samples.
    engine : {"auto", "numpy", "duckdb"}
        ``"auto"`` counts two deferred (large) runs inside DuckDB and everything else in
        numpy. Only counts come back from DuckDB: ``keys`` and ``correct_*`` are then None.
    allow_different_tasks : bool, default False
        Pair runs whose tasks or datasets differ, or whose paired items differ in content
        (the report's warnings then say so).
    allow_different_scorers : bool, default False
        Pair runs scored by different scorers, metrics or filters (e.g. to compare two
        scorers on the same outputs); the report's warnings say so.
    keep_scores : bool, default False
        Pair scores that are not 0/1 as they are, for the paired comparison of scores
        (:func:`mcnemar.scores.analyze_scores`): none is refused for not being 0/1, and the
        paired scores (or item means) are ``scores_a`` and ``scores_b``. Without
        ``threshold`` the table then counts a score of 1 or more as a pass. The runs are
        paired in numpy (the per-item scores are needed).

    Returns
    -------
    Alignment

    Raises
    ------
    McNemarError
        The runs are of different tasks, or scored differently (naming both sides' values).
    AlignmentError
        Listing every problem: duplicated keys, items in one run only, missing or non-binary
        scores, several samples per item without ``reduce``; or paired items whose content
        differs.

    Examples
    --------
    >>> from mcnemar.io import RunResults
    >>> al = align(RunResults.from_scores(["q1", "q2", "q3"], [1, 1, 0], name="a"),
    ...            RunResults.from_scores(["q3", "q2", "q1"], [0, 0, 1], name="b"))
    >>> al.counts, al.correct_b.tolist()
    ((1, 1, 0, 1), [1, 0, 0])
    """
    check_policies(on_missing, threshold, reduce)
    if engine not in ("auto", "numpy", "duckdb"):
        raise McNemarError(f"engine={engine!r} is not valid; use 'auto', 'numpy' or 'duckdb'")
    check = check_identities(run_a.identity, run_b.identity, path_a=run_a.path,
                             path_b=run_b.path, allow_different_tasks=allow_different_tasks,
                             allow_different_scorers=allow_different_scorers)
    policy = reduce
    if reduce == CLUSTER:
        # Every sample becomes its own paired observation, keyed by (item, sample) and
        # clustered by item, so the clustered analysis sees how the samples of an item hang
        # together; this needs the per-item data, so it never runs inside the engine.
        run_a, run_b = _samples_as_clustered_items(run_a), _samples_as_clustered_items(run_b)
        reduce = None
        engine = "numpy"
    if keep_scores:
        engine = "numpy"
    both_deferred = run_a.deferred and run_b.deferred
    if engine == "duckdb" or (engine == "auto" and both_deferred):
        from mcnemar.io._frames import count_in_duckdb

        counts, counted = count_in_duckdb(run_a, run_b, on_missing=on_missing,
                                          threshold=threshold, reduce=reduce)
        summary = replace(
            counted,
            run_a=replace(counted.run_a, identity=run_a.identity),
            run_b=replace(counted.run_b, identity=run_b.identity),
            overridden=check.overridden,
        )
        return Alignment(counts=counts, summary=summary)
    run_a, run_b = run_a.load(), run_b.load()
    run_a, run_b = _harmonize(run_a, run_b, check)
    problems: list[str] = []
    items_a = _items(run_a, threshold, reduce, problems, keep=keep_scores)
    items_b = _items(run_b, threshold, reduce, problems, keep=keep_scores)
    pos = lookup(items_a.keys, items_b.keys)  # B's items in A
    found = pos >= 0
    in_b = np.zeros(len(items_a.keys), dtype=bool)
    in_b[pos[found]] = True
    only_a = np.flatnonzero(~in_b)
    only_b = np.flatnonzero(~found)
    ib = np.flatnonzero(found)
    ia = pos[found]
    order = np.argsort(ia, kind="stable")
    ia, ib = ia[order], ib[order]
    va, vb = items_a.value[ia], items_b.value[ib]
    no_a, no_b = np.isnan(va), np.isnan(vb)
    if on_missing == "error":
        for items, idx, here, there in ((items_a, only_a, run_a, run_b),
                                        (items_b, only_b, run_b, run_a)):
            if len(idx):
                problems.append(
                    f"{here.path}: {_plural(len(idx), 'item')} not in {there.path} (e.g. "
                    f"{_show(items.keys[idx], len(idx))})"
                )
        for items, idx_all, mask, run in ((items_a, ia, no_a, run_a), (items_b, ib, no_b, run_b)):
            if mask.any():
                bad = idx_all[mask]
                why = ""
                if items.errored is not None and items.errored[bad].any():
                    why = f", {int(items.errored[bad].sum())} of them errored"
                problems.append(
                    f"{run.path}: {_verb(len(bad), 'item has', 'items have')} no score (e.g. "
                    f"{_show(items.keys[bad], len(bad))}{why})"
                )
    if problems:
        hint = ""
        if on_missing == "error" and (len(only_a) or len(only_b) or no_a.any() or no_b.any()):
            hint = ("; to drop items present in one run only (or without a score) pass "
                    + option("on_missing", "'intersect'"))
        if on_missing == "intersect":
            unscored = int((no_a | no_b).sum())
            hint = "; " + intersect_note(int((~(no_a | no_b)).sum()), len(only_a), len(only_b),
                                         unscored)
        if len(items_a.keys) and len(items_b.keys) and not found.any():
            # Nothing pairs: the ids read are not the item key (a new UUID per result, say).
            hint += _key_hint(run_a, run_b)
        raise AlignmentError("cannot pair the runs: " + "; ".join(problems) + hint)
    keep = ~(no_a | no_b)
    ia, ib = ia[keep], ib[keep]
    if len(ia) == 0:
        raise AlignmentError(no_common_items(run_a, run_b, items_a.keys, items_b.keys))
    content_field, checked, differ = _check_content(run_a, run_b, items_a, items_b, ia, ib,
                                                    allow_different_tasks)
    if keep_scores and threshold is None:
        # Scores kept as they are (for mcnemar.scores): the table counts 1 or more as a pass.
        ca = (items_a.value[ia] >= 1).astype(np.int8)
        cb = (items_b.value[ib] >= 1).astype(np.int8)
    else:
        ca = items_a.value[ia].astype(np.int8)
        cb = items_b.value[ib].astype(np.int8)
    counts = _counts(ca, cb)
    clusters = _clusters(items_a, items_b, ia, ib, run_a, run_b)
    strata = _strata(run_a, items_a.keys[ia], ca, cb) if check.strata else None
    summary = AlignmentSummary(
        run_a=_run_summary(run_a, items_a, len(only_a), int(no_a.sum()), ia, ca),
        run_b=_run_summary(run_b, items_b, len(only_b), int(no_b.sum()), ib, cb),
        key=run_a.key_names,
        matched=len(ia),
        dropped_no_score=int((~keep).sum()),
        on_missing=on_missing,
        threshold=None if threshold is None else float(threshold),
        reduce=policy,
        engine="numpy",
        clusters=None if clusters is None else len(set(clusters.tolist())),
        cluster_name=run_a.cluster_name or run_b.cluster_name,
        strata=strata,
        overridden=check.overridden,
        content_field=content_field,
        content_checked=checked,
        content_differ=differ,
    )
    return Alignment(counts=counts, summary=summary, keys=items_a.keys[ia], correct_a=ca,
                     correct_b=cb, clusters=clusters,
                     scores_a=None if items_a.raw is None else items_a.raw[ia],
                     scores_b=None if items_b.raw is None else items_b.raw[ib],
                     contents_a=None if items_a.contents is None else items_a.contents[ia],
                     contents_b=None if items_b.contents is None else items_b.contents[ib])


def _harmonize(run_a: RunResults, run_b: RunResults,
               check: IdentityCheck) -> tuple[RunResults, RunResults]:
    """Make the key parts that describe the run (task, filter) agree, so items pair by id.

    Runs holding one task each pair on the item id alone: B's task and filter parts take A's
    labels (a renamed lm-eval file, or a difference let through by an override, then pairs).
    Runs holding several tasks keep the task in the key (items pair within their task); only
    the filter part of B takes A's filter for the same task.
    """
    ia, ib = run_a.identity, run_b.identity
    if ia.task_part is None or ia.task_part != ib.task_part or ia.filter_part != ib.filter_part \
            or run_a.keys is None or run_b.keys is None or not len(run_a.keys) \
            or not len(run_b.keys):
        return run_a, run_b
    tp, fp = ia.task_part, ia.filter_part
    first = run_a.keys[0]
    if not isinstance(first, tuple):
        return run_a, run_b
    if not check.strata:
        fixed = {tp: first[tp]}
        if fp is not None:
            fixed[fp] = first[fp]
        keys = [tuple(fixed.get(i, part) for i, part in enumerate(k))
                for k in run_b.keys.tolist()]
    elif fp is not None:
        by_task = {t.name: t.filter for t in ia.tasks}
        keys = [tuple(by_task.get(k[tp], k[fp]) if i == fp else part
                      for i, part in enumerate(k)) for k in run_b.keys.tolist()]
    else:
        return run_a, run_b
    return run_a, replace(run_b, keys=object_array(keys))


def _check_content(run_a: RunResults, run_b: RunResults, items_a: _Items, items_b: _Items,
                   ia: np.ndarray, ib: np.ndarray,
                   allowed: bool) -> tuple[str | None, int, int]:
    """Compare the content fingerprints of the paired items; refuse the first that differs.

    Returns the field compared, the number of paired items whose content both runs record,
    and the number of those that differ (nonzero only when ``allowed``).
    """
    if items_a.contents is None or items_b.contents is None:
        return None, 0, 0
    name_a, name_b = run_a.identity.content_name, run_b.identity.content_name
    if name_a is None or name_a != name_b:
        return None, 0, 0
    ca, cb = items_a.contents[ia], items_b.contents[ib]
    known = np.fromiter((x is not None and y is not None for x, y in zip(ca, cb, strict=True)),
                        dtype=bool, count=len(ca))
    differ = known & (ca != cb)
    n = int(differ.sum())
    if n and not allowed:
        first = int(np.flatnonzero(differ)[0])
        raise AlignmentError(
            f"cannot pair the runs: {n} of {_plural(int(known.sum()), 'paired item')} differ in "
            f"{name_a} between A ({run_a.path}) and B ({run_b.path}); the first is item "
            f"{items_a.keys[ia][first]!r}: {_short_text(ca[first])} in A, "
            f"{_short_text(cb[first])} in B. The runs do not hold the same items under these "
            f"ids; if they should be paired anyway, pass {option('allow_different_tasks', 'True')}"
        )
    return name_a, int(known.sum()), n


def _short_text(value: Any, limit: int = 90) -> str:
    text = str(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _strata(run_a: RunResults, keys: np.ndarray, ca: np.ndarray,
            cb: np.ndarray) -> tuple[tuple[str | None, tuple[int, int, int, int]], ...]:
    """The (a, b, c, d) of each task, in A's task order."""
    tp = run_a.identity.task_part
    labels = [k[tp] for k in keys.tolist()] if tp is not None else [None] * len(keys)
    out = []
    seen = dict.fromkeys(t.name for t in run_a.identity.tasks)
    codes = {name: i for i, name in enumerate(seen)}
    index = np.fromiter((codes.get(x, -1) for x in labels), dtype=np.int64, count=len(labels))
    for name, i in codes.items():
        mask = index == i
        out.append((name, _counts(ca[mask], cb[mask])))
    return tuple(out)


def _samples_as_clustered_items(run: RunResults) -> RunResults:
    """Key each record by (item, sample) and use the item (or the chosen cluster) as cluster."""
    from dataclasses import replace

    run = run.load()
    if run.epochs is None or run.keys is None:
        return run
    # The sample joins the key's parts (a task part stays where the identity says it is).
    keys = object_array([(*k, e) if isinstance(k, tuple) else (k, e)
                         for k, e in zip(run.keys.tolist(), run.epochs.tolist(), strict=True)])
    # repr keeps keys of different types apart (1 vs "1") and gives sortable labels.
    clusters = run.clusters if run.clusters is not None else \
        object_array([repr(k) for k in run.keys.tolist()])
    return replace(
        run,
        keys=keys,
        epochs=None,
        clusters=clusters,
        cluster_name=run.cluster_name or "item",
        key_names=(*run.key_names, run.sample_name or "sample"),
    )


def no_common_items(run_a: RunResults, run_b: RunResults, keys_a: np.ndarray | None = None,
                    keys_b: np.ndarray | None = None) -> str:
    """The message for two runs without a single scored item in common."""
    text = (f"cannot pair the runs: {run_a.path} and {run_b.path} share no scored item in "
            "common; check that both use the same item id")
    if keys_a is not None and keys_b is not None and len(keys_a) and len(keys_b):
        text += f" (e.g. {keys_a[0]!r} in A, {keys_b[0]!r} in B)"
        as_text = {str(k) for k in keys_a.tolist()}
        if any(str(k) in as_text for k in keys_b.tolist()):
            text += "; the ids agree as text but differ in type (number vs text)"
    return text + _key_hint(run_a, run_b)


def _key_hint(run_a: RunResults, run_b: RunResults) -> str:
    """For runs that share no item: the fields that would pair them, if any."""
    from mcnemar.io.generic import shared_keys

    fields = shared_keys(run_a, run_b)
    if not fields:
        return ""
    return (f"; no item id is in both runs, but {name_list(fields, limit=3)} "
            f"{'holds' if len(fields) == 1 else 'hold'} the same distinct values in both "
            f"files: pair on {option('id', repr(fields[0]))}?")


def _counts(ca: np.ndarray, cb: np.ndarray) -> tuple[int, int, int, int]:
    cell = np.bincount(2 * (1 - ca.astype(np.int64)) + (1 - cb.astype(np.int64)), minlength=4)
    return int(cell[0]), int(cell[1]), int(cell[2]), int(cell[3])


def _clusters(items_a: _Items, items_b: _Items, ia: np.ndarray, ib: np.ndarray,
              run_a: RunResults, run_b: RunResults) -> np.ndarray | None:
    if items_a.clusters is None and items_b.clusters is None:
        return None
    if items_a.clusters is not None and items_b.clusters is not None:
        ka, kb = items_a.clusters[ia], items_b.clusters[ib]
        differ = ka != kb
        if differ.any():
            n = int(differ.sum())
            raise AlignmentError(
                f"{run_a.path} and {run_b.path} put {n} items in different clusters (e.g. "
                f"{_show(items_a.keys[ia][differ], n)}); use the cluster field of one run only"
            )
        return ka
    return items_a.clusters[ia] if items_a.clusters is not None else \
        items_b.clusters[ib]  # type: ignore[index]


def _run_summary(run: RunResults, items: _Items, only_here: int, no_score: int,
                 paired: np.ndarray, correct: np.ndarray) -> RunSummary:
    s = items.summary
    counted = failed = dropped = 0
    if items.errored is not None:
        in_table = items.errored[paired]
        counted = int(in_table.sum())
        failed = int((in_table & (correct == 0)).sum())
        dropped = int(items.errored.sum()) - counted
    return RunSummary(
        name=run.name, path=run.path, format=run.format, records=s["records"], items=s["items"],
        max_samples=s["max_samples"], reduced=s["reduced"], ties=s["ties"],
        binarised=s["binarised"], only_here=only_here, no_score=no_score,
        identity=run.identity, errored_counted=counted, errored_failed=failed,
        errored_dropped=dropped,
    )


def align_many(
    runs: Sequence[RunResults],
    *,
    on_missing: str = "error",
    threshold: float | None = None,
    reduce: str | None = None,
    allow_different_tasks: bool = False,
    allow_different_scorers: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Pair K runs on their common items: the key of each item and a K x N 0/1 matrix.

    Same rules as :func:`align`: strict by default (every run must have every item, once,
    with a 0/1 score), ``on_missing="intersect"`` keeps the items present and scored in all
    runs. Items are in the first run's order; row k of ``correct`` is ``runs[k]``.

    The runs' identities are checked two by two as :func:`align` checks two
    (:func:`~mcnemar.io.identity.check_identities`): runs of different tasks or datasets, or
    scored differently, are refused unless ``allow_different_tasks`` /
    ``allow_different_scorers``, and items recorded with their content must have the same
    content in every run. What an override lets through is issued as a
    :class:`~mcnemar.errors.McNemarWarning`.

    Examples
    --------
    >>> from mcnemar.io import RunResults
    >>> runs = {"a": (["x", "y"], [1, 0]), "b": (["y", "x"], [1, 1]), "c": (["x", "y"], [0, 0])}
    >>> keys, correct = align_many([RunResults.from_scores(k, s, name=name)
    ...                             for name, (k, s) in runs.items()])
    >>> keys.tolist(), correct.tolist()
    (['x', 'y'], [[1, 0], [1, 1], [0, 0]])
    """
    check_policies(on_missing, threshold, reduce)
    if len(runs) < 2:
        raise McNemarError(f"align_many needs at least two runs, got {len(runs)}")
    loaded = [r.load() for r in runs]
    overridden = _check_many(loaded, allow_different_tasks, allow_different_scorers)
    problems: list[str] = []
    items = [_items(r, threshold, reduce, problems) for r in loaded]
    base = items[0]
    index = np.empty((len(runs), len(base.keys)), dtype=np.int64)
    index[0] = np.arange(len(base.keys))
    present = np.ones(len(base.keys), dtype=bool)
    for k in range(1, len(runs)):
        index[k] = lookup(items[k].keys, base.keys)
        absent = index[k] < 0
        extra = len(items[k].keys) - int((~absent).sum())
        if on_missing == "error":
            if absent.any():
                n = int(absent.sum())
                problems.append(f"{loaded[k].path}: {_verb(n, 'item', 'items')} of "
                                f"{loaded[0].path} {'is' if n == 1 else 'are'} missing "
                                f"(e.g. {_show(base.keys[absent], n)})")
            if extra:
                mine = lookup(base.keys, items[k].keys) < 0
                problems.append(f"{loaded[k].path}: {_plural(extra, 'item')} not in "
                                f"{loaded[0].path} "
                                f"(e.g. {_show(items[k].keys[mine], extra)})")
        present &= ~absent
    values = np.full(index.shape, np.nan)
    for k in range(len(runs)):
        ok = index[k] >= 0
        values[k, ok] = items[k].value[index[k][ok]]
    scored = ~np.isnan(values)
    if on_missing == "error":
        for k in range(len(runs)):
            lacking = present & ~scored[k]
            if lacking.any():
                n = int(lacking.sum())
                problems.append(f"{loaded[k].path}: {_verb(n, 'item has', 'items have')} no "
                                "score (e.g. "
                                f"{_show(base.keys[lacking], n)})")
    if problems:
        raise AlignmentError("cannot pair the runs: " + "; ".join(problems))
    keep = present & scored.all(axis=0)
    for k in range(1, len(runs)):
        ia = np.flatnonzero(keep)
        _, _, differ = _check_content(loaded[0], loaded[k], base, items[k], ia, index[k][ia],
                                      allow_different_tasks)
        if differ:
            overridden.append(f"{differ} of the paired items differ in content between "
                              f"{loaded[0].path} and {loaded[k].path} (compared because "
                              "allow_different_tasks was set)")
    for text in dict.fromkeys(overridden):
        warnings.warn(text, McNemarWarning, stacklevel=2)
    return base.keys[keep], values[:, keep].astype(np.int8)


def _check_many(runs: list[RunResults], allow_different_tasks: bool,
                allow_different_scorers: bool) -> list[str]:
    """Check the identities of every two runs; make each run's keys pair with the first's.

    Returns what the overrides let through. A refusal names the two runs.
    """
    overridden: list[str] = []
    for i in range(len(runs)):
        for k in range(i + 1, len(runs)):
            a, b = runs[i], runs[k]
            try:
                check = check_identities(a.identity, b.identity, path_a=a.path, path_b=b.path,
                                         allow_different_tasks=allow_different_tasks,
                                         allow_different_scorers=allow_different_scorers)
            except McNemarError as exc:
                if b.path in exc.template:
                    raise
                raise McNemarError(f"{a.path} (A) and {b.path} (B): {exc.template}") from None
            overridden.extend(f"{a.path} and {b.path}: {text}" for text in check.overridden)
            if i == 0:
                runs[0], runs[k] = _harmonize(a, b, check)
    return overridden
