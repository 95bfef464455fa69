"""The counts of a paired table from data frames, computed inside the frame's own engine.

The engine behind :mod:`mcnemar.io.frames` (and ``PairedTable.from_frame``): it returns counts
``(a, b, c, d)`` and an :class:`~mcnemar.io.align.AlignmentSummary`, never a table, so that it
depends on neither :mod:`mcnemar.table` nor :mod:`mcnemar.io.align`.

Accepts anything narwhals accepts: pandas, polars (eager or lazy), pyarrow tables, DuckDB
relations, Dask and PySpark DataFrames. The join and the count run in the engine; what comes
back to Python is a handful of counts (a few small aggregates, plus up to three example keys
when something is wrong), never the items. The rules are exactly those of
:func:`mcnemar.io.align` (strict by default; ``on_missing``, ``threshold``, ``reduce``).

How one pass over a full outer join finds every problem without grouping the data: each
joined row gets a category per side (absent, no score, not a number, 0, 1, non-binary,
binarised 0/1) and only the category pairs are counted; records without an id never match,
so they are counted among the unmatched rows. Duplicated keys are then
found from the counts: with ``n_A`` records in A, ``M`` joined rows with both sides and ``U_A``
rows with A only, ``M + U_A - n_A`` is the number of extra rows that duplicates in B created
among the matched keys (and symmetrically for A); duplicates among unmatched keys are found
by counting the distinct unmatched keys, which are few whenever the runs are meant to match.

The paired comparison of scores that are not pass/fail (:mod:`mcnemar.scores._frames`) pairs
the runs by the same rules in the same pass, with every number a usable score
(:func:`pair_score_frames`, :func:`pair_scores_in_duckdb`, or :func:`paired_score_columns` for
one frame holding both runs' scores): it gets back a :class:`PairedScores`, the lazy frame of
the pairs inside the engine, which it reduces to a few sums there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from mcnemar.errors import AlignmentError, McNemarError, option
from mcnemar.io._run import CLUSTER_COL, KEY_PREFIX, SAMPLE_COL, SCORE_COL, RunResults
from mcnemar.io._summary import (
    CLUSTER,
    REDUCE_HINT,
    SHOW,
    THRESHOLD_HINT,
    AlignmentSummary,
    RunSummary,
    _plural,
    _verb,
    check_policies,
    intersect_note,
)

__all__ = ["PairedScores", "count_frames", "count_in_duckdb", "count_long_frame",
           "pair_score_frames", "pair_scores_in_duckdb", "paired_score_columns"]

#: ``(a, b, c, d)``: both pass, only A passes, only B passes, both fail.
Counts = tuple[int, int, int, int]
#: The columns of a frame of paired scores: A's score, B's score, the pair's cluster.
SCORE_A, SCORE_B, CLUSTER_PAIR = "__mcn_sa", "__mcn_sb", "__mcn_g"

# Per-side categories of a joined row.
ABSENT, NO_SCORE, NOT_NUMBER, FAIL, PASS, NON_BINARY, BIN_FAIL, BIN_PASS = (
    3, 4, 6, 0, 1, 2, 10, 11)
_SCORED = (FAIL, PASS, BIN_FAIL, BIN_PASS)
_PRESENT = (NO_SCORE, NOT_NUMBER, FAIL, PASS, NON_BINARY, BIN_FAIL, BIN_PASS)


def _nw() -> Any:
    import importlib

    # The stable API keeps working across narwhals releases; plain narwhals is the fallback.
    for module in ("narwhals.stable.v2", "narwhals"):
        try:
            return importlib.import_module(module)
        except ImportError:
            continue
    raise McNemarError("data frames need narwhals: pip install 'mcnemar[frames]'")


def _collect(frame: Any) -> Any:
    nw = _nw()
    return frame.collect() if isinstance(frame, nw.LazyFrame) else frame


def _rows(frame: Any) -> list[dict[str, Any]]:
    out = _collect(frame)
    return list(out.iter_rows(named=True))


@dataclass(slots=True)
class _Side:
    frame: Any          # narwhals frame with KEY_PREFIX{i}, SCORE_COL (item level)
    label: str          # file or frame description, for messages
    records: int
    items: int | None   # None: equal to records once duplicates are excluded
    max_samples: int = 1
    reduced: int = 0
    ties: int = 0
    binarised_early: int = 0
    cluster: bool = False  # the frame has a CLUSTER_COL, carried through the pairing
    deferred: bool = False  # a deferred run's file (its scores not read before counting)


def _keys(n: int, side: str = "") -> list[str]:
    return [f"{KEY_PREFIX}{side}{i}" for i in range(n)]


def _key_text(row: dict[str, Any], cols: list[str]) -> str:
    # An outer join turns integer ids into floats in some engines (pandas, Dask: a missing
    # side is NaN); the id is shown as the file holds it.
    values = [int(v) if isinstance(v, float) and v.is_integer() else v
              for v in (row[c] for c in cols)]
    return repr(values[0]) if len(values) == 1 else repr(tuple(values))


def _examples(frame: Any, cols: list[str], total: int) -> str:
    # Sorted: an engine's row order is its own (a lazy frame's changes from run to run), and
    # a message says the same thing every time.
    rows = _rows(frame.select(cols).sort(cols).head(SHOW))
    shown = ", ".join(_key_text(r, cols) for r in rows)
    return shown + (", ..." if total > SHOW else "")


def _scalar(frame: Any, name: str = "n") -> int:
    rows = _rows(frame)
    value = rows[0][name] if rows else 0
    return int(value or 0)


def _reduce_side(side: _Side, key_count: int, threshold: float | None, reduce: str | None,
                 problems: list[str]) -> _Side:
    """Combine several samples per item inside the engine (or report them)."""
    nw = _nw()
    keys = _keys(key_count)
    frame = side.frame
    per_pair = frame.group_by([*keys, SAMPLE_COL]).agg(nw.len().alias("n"))
    repeated = per_pair.filter(nw.col("n") > 1)
    n_repeated = _scalar(repeated.select(nw.len().alias("n")))
    if n_repeated:
        problems.append(f"{side.label}: {n_repeated} items repeat the same sample (e.g. "
                        f"{_examples(repeated, keys, n_repeated)}); each item and sample may "
                        "appear once")
    per_item = frame.group_by(keys).agg(nw.len().alias("n"))
    stats = _rows(per_item.select(nw.len().alias("items"), nw.col("n").max().alias("max"),
                                  (nw.col("n") > 1).sum().alias("multi")))[0]
    items, max_samples, multi = int(stats["items"]), int(stats["max"] or 0), \
        int(stats["multi"] or 0)
    side.items, side.max_samples = items, max_samples
    if multi == 0:
        return side
    if reduce is None:
        problems.append(
            f"{side.label}: {multi} items have several samples (up to {max_samples} per item, "
            f"e.g. {_examples(per_item.filter(nw.col('n') > 1), keys, multi)}); they are not "
            f"independent items: choose {REDUCE_HINT} or a clustered analysis"
        )
        return side
    side.reduced = multi
    s = nw.col(SCORE_COL)
    if reduce == "first":
        firsts = frame.group_by(keys).agg(nw.col(SAMPLE_COL).min().alias(SAMPLE_COL))
        side.frame = frame.join(firsts, on=[*keys, SAMPLE_COL], how="inner").select(
            [*keys, SCORE_COL])
        return side
    if reduce == "majority":
        nonbinary = ~s.is_null() & ~s.is_nan() & (s != 0) & (s != 1)
        if threshold is None:
            n_bad = _scalar(frame.select(nonbinary.sum().alias("n")))
            if n_bad:
                problems.append(f"{side.label}: {n_bad} scores are not 0/1; pass "
                                f"{THRESHOLD_HINT} to count score >= T as a pass")
                return side
            passed = s
        else:
            side.binarised_early = _scalar(frame.select(nonbinary.sum().alias("n")))
            passed = (s >= threshold).cast(nw.Float64)
        agg = frame.with_columns(passed.alias("__p")).group_by(keys).agg(
            nw.col("__p").mean().alias("__m"))
        side.ties = _scalar(agg.select((nw.col("__m") == 0.5).sum().alias("n")))
        side.frame = agg.select(
            *keys,
            nw.when(nw.col("__m").is_null()).then(nw.lit(None, dtype=nw.Float64))
            .otherwise((nw.col("__m") > 0.5).cast(nw.Float64)).alias(SCORE_COL),
        )
        return side
    # mean: averaged first, binarised (with threshold) at the item level
    side.frame = frame.group_by(keys).agg(s.mean().alias(SCORE_COL))
    return side


def _category(prefix: str, threshold: float | None, keep: bool = False) -> Any:
    nw = _nw()
    s = nw.col(f"{SCORE_COL}{prefix}")
    present = nw.col(f"__mcn_p{prefix}")
    if keep:
        # Scores kept as they are (the comparison of scores): every number is a score, and
        # the table counts 1 or more as a pass, as io.align(keep_scores=True) does.
        graded = nw.when(s >= 1).then(nw.lit(PASS)).otherwise(nw.lit(FAIL))
    elif threshold is None:
        graded = nw.when(s == 1).then(nw.lit(PASS)).when(s == 0).then(nw.lit(FAIL)) \
            .otherwise(nw.lit(NON_BINARY))
    else:
        graded = (
            nw.when(s == 1).then(nw.lit(PASS)).when(s == 0).then(nw.lit(FAIL))
            .when(s >= threshold).then(nw.lit(BIN_PASS)).otherwise(nw.lit(BIN_FAIL))
        )
    # Keys are deliberately absent from this expression: the main join then carries only
    # scores, not key text, which keeps its memory small. A missing id never matches, so
    # records without an id are found among the unmatched rows instead.
    return (
        nw.when(present.is_null()).then(nw.lit(ABSENT))
        .when(s.is_null()).then(nw.lit(NO_SCORE))
        .when(s.is_nan()).then(nw.lit(NOT_NUMBER))
        .otherwise(graded)
        .alias(f"__mcn_c{prefix}")
    )


def _count_sides(
    side_a: _Side, side_b: _Side, *, key_count: int, threshold: float | None, on_missing: str,
    problems: list[str], keep: bool = False,
) -> tuple[tuple[int, int, int, int], dict[str, int], Any]:
    nw = _nw()
    ka, kb = _keys(key_count), _keys(key_count, "b")
    a = side_a.frame.select(*ka, nw.col(SCORE_COL).cast(nw.Float64).alias(f"{SCORE_COL}a"),
                            nw.lit(1).alias("__mcn_pa"),
                            *([nw.col(CLUSTER_COL).alias("__mcn_ga")] if side_a.cluster else []))
    b = side_b.frame.select(*(nw.col(k).alias(k2) for k, k2 in zip(ka, kb, strict=True)),
                            nw.col(SCORE_COL).cast(nw.Float64).alias(f"{SCORE_COL}b"),
                            nw.lit(1).alias("__mcn_pb"),
                            *([nw.col(CLUSTER_COL).alias("__mcn_gb")] if side_b.cluster else []))
    joined = a.join(b, left_on=ka, right_on=kb, how="full")
    grouped = joined.select(_category("a", threshold, keep),
                            _category("b", threshold, keep)).group_by(
        ["__mcn_ca", "__mcn_cb"]).agg(nw.len().alias("n"))
    cells: dict[tuple[int, int], int] = {}
    for row in _rows(grouped):
        cells[(int(row["__mcn_ca"]), int(row["__mcn_cb"]))] = int(row["n"])

    def total(pred_a: Any, pred_b: Any) -> int:
        return sum(n for (x, y), n in cells.items() if pred_a(x) and pred_b(y))

    present = _PRESENT.__contains__
    absent = ABSENT.__eq__
    n_a = side_a.items if side_a.items is not None else side_a.records
    n_b = side_b.items if side_b.items is not None else side_b.records
    matched_rows = total(present, present)
    only_a_rows, only_b_rows = total(present, absent), total(absent, present)
    facts = {"only_a": only_a_rows, "only_b": only_b_rows}
    # Duplicates (see the module docstring for the identity used).
    dup = {"a": matched_rows + only_b_rows > n_b, "b": matched_rows + only_a_rows > n_a}
    only_pred = {"a": (nw.col("__mcn_pb").is_null() & ~nw.col("__mcn_pa").is_null(), ka),
                 "b": (nw.col("__mcn_pa").is_null() & ~nw.col("__mcn_pb").is_null(), kb)}
    with_key = {}
    for name, side, rows_only in (("a", side_a, only_a_rows), ("b", side_b, only_b_rows)):
        pred, cols = only_pred[name]
        has_key = ~nw.col(cols[0]).is_null()
        for col in cols[1:]:
            has_key = has_key & ~nw.col(col).is_null()
        with_key[name] = joined.filter(pred & has_key)
        if not rows_only:
            continue
        distinct = _scalar(with_key[name].select(cols).unique().select(nw.len().alias("n")))
        no_id = _scalar(joined.filter(pred & ~has_key).select(nw.len().alias("n")))
        if no_id:
            problems.append(f"{side.label}: {_verb(no_id, 'record has', 'records have')} no "
                            "item id")
        facts[f"only_{name}"] = distinct
        if distinct + no_id < rows_only:
            dup[name] = True
    for name, side in (("a", side_a), ("b", side_b)):
        if dup[name]:
            keys = _keys(key_count)
            counted = side.frame.group_by(keys).agg(nw.len().alias("n")).filter(nw.col("n") > 1)
            n_dup = _scalar(counted.select(nw.len().alias("n")))
            examples = _rows(counted.head(SHOW))
            shown = ", ".join(f"{_key_text(r, keys)} x{r['n']}" for r in examples)
            problems.append(f"{side.label}: {_plural(n_dup, 'duplicated item key')} ({shown}"
                            f"{', ...' if n_dup > SHOW else ''}); each item may appear once")
    # Scores that cannot be used.
    for name, side, pred_side in (("a", side_a, 0), ("b", side_b, 1)):
        def on_side(code: int, pred_side: int = pred_side) -> int:
            return sum(n for key, n in cells.items() if key[pred_side] == code)

        label = side.label
        cols = ka if name == "a" else kb

        def some(code: int, n: int, name: str = name, cols: list[str] = cols) -> str:
            here = joined.filter(~nw.col(f"__mcn_p{name}").is_null())
            found = here.with_columns(_category(name, threshold)).filter(
                nw.col(f"__mcn_c{name}") == code)
            return _examples(found, cols, n)

        if on_side(NOT_NUMBER):
            n = on_side(NOT_NUMBER)
            problems.append(f"{label}: {_verb(n, 'score is', 'scores are')} not a number (NaN "
                            f"or text; e.g. items {some(NOT_NUMBER, n)})")
        if on_side(NON_BINARY):
            n = on_side(NON_BINARY)
            # A deferred file's scores are not read before this count: say how to compare them.
            scores = (f", or compare the scores themselves ({option('analysis', 'scores')})"
                      if side.deferred else "")
            problems.append(f"{label}: {_verb(n, 'score is', 'scores are')} not 0/1 (e.g. items "
                            f"{some(NON_BINARY, n)}); pass {THRESHOLD_HINT} to count "
                            f"score >= T as a pass{scores}")
        facts[f"binarised_{name}"] = 0 if keep else (on_side(BIN_PASS) + on_side(BIN_FAIL)
                                                     + side.binarised_early)
    no_score_a = total(NO_SCORE.__eq__, present)
    no_score_b = total(present, NO_SCORE.__eq__)
    # Items without a score on a side (not those whose score is unusable: those are errors
    # that on_missing does not drop).
    def scored(code: int) -> bool:
        return bool(present(code)) and code != NO_SCORE

    dropped_no_score = total(present, present) - total(scored, scored)
    facts.update(no_score_a=no_score_a, no_score_b=no_score_b, matched_rows=matched_rows,
                 dropped_no_score=dropped_no_score)
    if on_missing == "error":
        for name, side, other, cols in (("a", side_a, side_b, ka), ("b", side_b, side_a, kb)):
            n = facts[f"only_{name}"]
            if n:
                problems.append(f"{side.label}: {_plural(n, 'item')} not in {other.label} (e.g. "
                                f"{_examples(with_key[name], cols, n)})")
        for name, side, n, cols in (("a", side_a, no_score_a, ka), ("b", side_b, no_score_b, kb)):
            if n:
                lacking = joined.filter(~nw.col("__mcn_pa").is_null()
                                        & ~nw.col("__mcn_pb").is_null()).with_columns(
                    _category(name, threshold)).filter(nw.col(f"__mcn_c{name}") == NO_SCORE)
                problems.append(f"{side.label}: {_verb(n, 'item has', 'items have')} no score "
                                f"(e.g. {_examples(lacking, cols, n)})")
    is_pass = (PASS, BIN_PASS).__contains__
    is_fail = (FAIL, BIN_FAIL).__contains__
    counts = (total(is_pass, is_pass), total(is_pass, is_fail), total(is_fail, is_pass),
              total(is_fail, is_fail))
    # The paired rows with a score on both sides: what the comparison of scores sums up.
    both = (~nw.col("__mcn_pa").is_null() & ~nw.col("__mcn_pb").is_null()
            & ~nw.col(f"{SCORE_COL}a").is_null() & ~nw.col(f"{SCORE_COL}b").is_null())
    kept = [*ka, nw.col(f"{SCORE_COL}a").alias(SCORE_A), nw.col(f"{SCORE_COL}b").alias(SCORE_B),
            *(["__mcn_ga"] if side_a.cluster else []), *(["__mcn_gb"] if side_b.cluster else [])]
    return counts, facts, joined.filter(both).select(*kept)


def _count(
    side_a: _Side, side_b: _Side, *, key_count: int, has_sample: bool, threshold: float | None,
    on_missing: str, reduce: str | None, names: tuple[str, str], paths: tuple[str, str],
    formats: tuple[str, str], key_names: tuple[str, ...], engine: str,
) -> tuple[tuple[int, int, int, int], AlignmentSummary]:
    counts, summary, _ = _align_sides(
        side_a, side_b, key_count=key_count, has_sample=has_sample, threshold=threshold,
        on_missing=on_missing, reduce=reduce, names=names, paths=paths, formats=formats,
        key_names=key_names, engine=engine)
    return counts, summary


def _align_sides(
    side_a: _Side, side_b: _Side, *, key_count: int, has_sample: bool, threshold: float | None,
    on_missing: str, reduce: str | None, names: tuple[str, str], paths: tuple[str, str],
    formats: tuple[str, str], key_names: tuple[str, ...], engine: str, keep: bool = False,
) -> tuple[tuple[int, int, int, int], AlignmentSummary, Any]:
    """The counts, the summary and the (lazy) frame of the scored pairs of two sides
    (``keep``: every number is a score, as for the comparison of scores)."""
    check_policies(on_missing, threshold, reduce)
    problems: list[str] = []
    if has_sample:
        sides = []
        for side in (side_a, side_b):
            before = side.frame
            side = _reduce_side(side, key_count, threshold, reduce, problems)
            if side.cluster and CLUSTER_COL not in side.frame.columns:
                # The samples of an item, reduced to one, keep the item's cluster.
                keys = _keys(key_count)
                clusters = before.group_by(keys).agg(_nw().col(CLUSTER_COL).min())
                side.frame = side.frame.join(clusters, on=keys, how="left")
            sides.append(side)
        side_a, side_b = sides
        if problems:
            raise AlignmentError("cannot pair the runs: " + "; ".join(problems))
    counts, facts, pairs = _count_sides(side_a, side_b, key_count=key_count,
                                        threshold=threshold, on_missing=on_missing,
                                        problems=problems, keep=keep)
    if problems:
        hint = ""
        if on_missing == "error" and (facts["only_a"] or facts["only_b"]
                                      or facts["dropped_no_score"]):
            hint = ("; to drop items present in one run only (or without a score) pass "
                    + option("on_missing", "'intersect'"))
        if on_missing == "intersect":
            hint = "; " + intersect_note(None, facts["only_a"], facts["only_b"],
                                         facts["dropped_no_score"])
        raise AlignmentError("cannot pair the runs: " + "; ".join(problems) + hint)

    if sum(counts) == 0:
        raise AlignmentError(f"cannot pair the runs: {paths[0]} and {paths[1]} share no scored "
                             "item in common; check that both use the same item id")

    def run_summary(i: int, side: _Side, name: str) -> RunSummary:
        items = side.items if side.items is not None else side.records
        return RunSummary(
            name=names[i], path=paths[i], format=formats[i], records=side.records,
            items=items, max_samples=side.max_samples, reduced=side.reduced, ties=side.ties,
            binarised=facts[f"binarised_{name}"], only_here=facts[f"only_{name}"],
            no_score=facts[f"no_score_{name}"],
        )

    summary = AlignmentSummary(
        run_a=run_summary(0, side_a, "a"),
        run_b=run_summary(1, side_b, "b"),
        key=key_names,
        matched=sum(counts),
        dropped_no_score=facts["dropped_no_score"],
        on_missing=on_missing,
        threshold=None if threshold is None else float(threshold),
        reduce=reduce,
        engine=engine,
    )
    return counts, summary, pairs


# --- deferred files (DuckDB) -------------------------------------------------------------


def count_in_duckdb(run_a: RunResults, run_b: RunResults, *, on_missing: str = "error",
                    threshold: float | None = None, reduce: str | None = None,
                    ) -> tuple[Counts, AlignmentSummary]:
    """Pair two deferred runs inside DuckDB and count them (see :func:`mcnemar.io.align`)."""
    _, sides, has_sample = _duckdb_sides(run_a, run_b)
    assert run_a.source is not None  # checked by _duckdb_sides
    try:
        counts, summary = _count(
            sides[0], sides[1], key_count=run_a.source.key_count, has_sample=has_sample,
            threshold=threshold, on_missing=on_missing, reduce=reduce,
            names=(run_a.name, run_b.name), paths=(run_a.path, run_b.path),
            formats=(run_a.format, run_b.format), key_names=run_a.key_names, engine="duckdb",
        )
    except McNemarError:
        raise
    except Exception as exc:  # duckdb.Error while scanning a malformed file
        raise _duckdb_failure(exc, run_a, run_b) from None
    return counts, summary


def _duckdb_failure(exc: Exception, run_a: RunResults, run_b: RunResults) -> McNemarError:
    """A DuckDB error while scanning two runs, as the file (and line) at fault."""
    from mcnemar.io._engine import engine_error

    for run in (run_a, run_b):
        error = engine_error(exc, Path(run.path), run.source.kind if run.source else None)
        if error.line is not None:
            return error
    return engine_error(exc, Path(run_a.path), "other")


def _duckdb_sides(run_a: RunResults, run_b: RunResults) -> tuple[Any, list[_Side], bool]:
    """The DuckDB connection, the two sides of two deferred runs, and whether they have a
    sample column."""
    from mcnemar.io._engine import connect, engine_error, relation

    nw = _nw()
    if run_a.source is None or run_b.source is None:
        raise McNemarError("engine='duckdb' needs two deferred runs (Parquet or large files)")
    if run_a.source.key_count != run_b.source.key_count:
        raise McNemarError(
            f"the runs have keys of different length: {'+'.join(run_a.key_names)} in "
            f"{run_a.path}, {'+'.join(run_b.key_names)} in {run_b.path}"
        )
    has_sample = run_a.source.has_sample or run_b.source.has_sample
    if has_sample and not (run_a.source.has_sample and run_b.source.has_sample):
        raise McNemarError("give the sample column for both runs or for neither")
    con = connect()
    # Ids are compared as text; when both runs hold integer ids (the same values as text),
    # the join runs on the integers themselves, which is markedly faster.
    native_ids = run_a.source.native_sql is not None and run_b.source.native_sql is not None
    sides = []
    for label, run in (("a", run_a), ("b", run_b)):
        if run.source is not None and run.source.kind in ("csv", "jsonl"):
            # Text files are parsed once into a columnar temporary table (ids and scores
            # only); counting and joining then never re-parse the text.
            try:
                con.execute(f"CREATE TEMP TABLE __mcn_run_{label} AS {run.source.sql}")
            except Exception as exc:  # duckdb.Error: a malformed file
                raise engine_error(exc, Path(run.path), run.source.kind) from None
            frame = nw.from_native(con.table(f"__mcn_run_{label}"))
        else:
            frame = nw.from_native(relation(con, run, native_ids=native_ids))
        records = run.records
        if records is None:
            try:
                records = _scalar(frame.select(nw.len().alias("n")))
            except Exception as exc:  # duckdb.Error
                raise engine_error(exc, Path(run.path), run.source.kind if run.source
                                   else None) from None
        sides.append(_Side(frame=frame, label=run.path, records=records, items=None,
                           cluster=run.source is not None and run.source.has_cluster,
                           deferred=True))
    return con, sides, has_sample


# --- paired scores (the comparison of scores that are not pass/fail) ----------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class PairedScores:
    """Two runs' scores paired inside an engine (see :mod:`mcnemar.scores._frames`).

    Attributes
    ----------
    frame : narwhals DataFrame or LazyFrame
        One row per pair: ``SCORE_A`` and ``SCORE_B`` (float), the key columns
        (``__mcn_k0 ...``) and, with clusters, ``CLUSTER_PAIR`` (text). Lazy where the engine
        is: nothing has been collected.
    engine : str
        The engine the frame lives in (``"duckdb"``, ``"polars"``, ...).
    items : tuple of str
        The key columns naming the item, when the rows are samples of items (paired item by
        item and sample); empty when every row is an item.
    cluster : str or None
        The column of the pair's cluster.
    counts : tuple of int or None
        The table with a score of 1 or more counted as a pass (as ``align(keep_scores=True)``).
    summary : AlignmentSummary or None
        What the pairing did (None for one frame holding both runs' scores).
    connection : object
        The DuckDB connection the frame lives in, kept open while the frame is used.
    """

    frame: Any
    engine: str
    items: tuple[str, ...] = ()
    cluster: str | None = None
    counts: Counts | None = None
    summary: AlignmentSummary | None = None
    connection: Any = None


def _has_repeats(side: _Side, keys: list[str]) -> bool:
    nw = _nw()
    per_item = side.frame.group_by(keys).agg(nw.len().alias("n"))
    return _scalar(per_item.filter(nw.col("n") > 1).select(nw.len().alias("n"))) > 0


def _pair_scores(
    side_a: _Side, side_b: _Side, *, key_count: int, has_sample: bool, reduce: str | None,
    on_missing: str, names: tuple[str, str], paths: tuple[str, str],
    formats: tuple[str, str], key_names: tuple[str, ...], sample_name: str | None,
    cluster_name: str | None, engine: str, connection: Any = None,
) -> PairedScores:
    """Pair two sides keeping their scores, by the rules of ``align(keep_scores=True)`` as
    :func:`mcnemar.scores.compare_scores` applies them: several samples of an item are paired
    sample by sample (the rows are then samples of items), or, with clusters, reduced to the
    item's mean within its cluster."""
    nw = _nw()
    check_policies(on_missing, None, reduce)
    clustered = side_a.cluster or side_b.cluster
    keys = _keys(key_count)
    by_sample = False
    if has_sample and reduce in (None, CLUSTER):
        by_sample = reduce == CLUSTER or any(_has_repeats(s, keys) for s in (side_a, side_b))
        if reduce is None and by_sample and clustered:
            reduce, by_sample = "mean", False
        elif not by_sample:
            has_sample = False  # one sample per item: the sample column changes nothing
    items: tuple[str, ...] = ()
    summary_reduce = reduce
    if by_sample:
        # The sample joins the key: pairs are matched by item and sample.
        sample_key = f"{KEY_PREFIX}{key_count}"
        for side in (side_a, side_b):
            side.frame = side.frame.with_columns(nw.col(SAMPLE_COL).alias(sample_key))
        items = () if clustered else tuple(keys)
        key_count += 1
        key_names = (*key_names, sample_name or "sample")
        has_sample, reduce, summary_reduce = False, None, CLUSTER
    counts, summary, pairs = _align_sides(
        side_a, side_b, key_count=key_count, has_sample=has_sample, threshold=None,
        on_missing=on_missing, reduce=reduce, names=names, paths=paths, formats=formats,
        key_names=key_names, engine=engine, keep=True)
    ka = _keys(key_count)
    cluster = None
    if clustered:
        source = "__mcn_ga" if side_a.cluster else "__mcn_gb"
        if side_a.cluster and side_b.cluster:
            differ = pairs.filter(nw.col("__mcn_ga") != nw.col("__mcn_gb"))
            n = _scalar(differ.select(nw.len().alias("n")))
            if n:
                raise AlignmentError(
                    f"{paths[0]} and {paths[1]} put {_plural(n, 'item')} in different clusters "
                    f"(e.g. {_examples(differ, ka, n)}); use the cluster field of one run only")
        pairs = pairs.select(*ka, SCORE_A, SCORE_B,
                             nw.col(source).cast(nw.String).fill_null("").alias(CLUSTER_PAIR))
        cluster = CLUSTER_PAIR
    summary = replace(summary, reduce=summary_reduce,
                      cluster_name=cluster_name if clustered else "item" if items else None)
    return PairedScores(frame=pairs, engine=engine, items=items, cluster=cluster, counts=counts,
                        summary=summary, connection=connection)


def pair_scores_in_duckdb(run_a: RunResults, run_b: RunResults, *, on_missing: str = "error",
                          reduce: str | None = None) -> PairedScores:
    """Pair two deferred runs inside DuckDB keeping their scores (see :class:`PairedScores`).

    The rules are those of :func:`mcnemar.io.align` with ``keep_scores=True``; what comes
    back is the lazy frame of the pairs, inside the engine, and the alignment's summary.
    """
    con, sides, has_sample = _duckdb_sides(run_a, run_b)
    assert run_a.source is not None  # checked by _duckdb_sides
    try:
        return _pair_scores(
            sides[0], sides[1], key_count=run_a.source.key_count, has_sample=has_sample,
            reduce=reduce, on_missing=on_missing, names=(run_a.name, run_b.name),
            paths=(run_a.path, run_b.path), formats=(run_a.format, run_b.format),
            key_names=run_a.key_names, sample_name=run_a.sample_name or run_b.sample_name,
            cluster_name=run_a.cluster_name or run_b.cluster_name, engine="duckdb",
            connection=con)
    except McNemarError:
        raise
    except Exception as exc:  # duckdb.Error while scanning a malformed file
        raise _duckdb_failure(exc, run_a, run_b) from None


def pair_score_frames(
    frame_a: Any,
    frame_b: Any,
    *,
    id: str | Sequence[str],
    score: str,
    sample: str | None = None,
    cluster: str | None = None,
    on_missing: str = "error",
    reduce: str | None = None,
    names: tuple[str, str] = ("A", "B"),
) -> PairedScores:
    """Pair two runs held in data frames by item id inside their engine, keeping the scores.

    The options are those of :func:`count_frames` (``cluster``: a column of the items'
    clusters, in either frame or both); no score is refused for not being 0/1.

    Examples
    --------
    >>> import polars as pl
    >>> a = pl.DataFrame({"id": [1, 2, 3], "s": [0.5, 0.25, 1.0]})
    >>> paired = pair_score_frames(a, a.with_columns(s=0.0), id="id", score="s")
    >>> paired.engine, paired.summary.matched, paired.frame.columns
    ('polars', 3, ['__mcn_k0', '__mcn_sa', '__mcn_sb'])
    """
    check_policies(on_missing, None, reduce)
    fa, fb = _as_narwhals(frame_a, "frame_a"), _as_narwhals(frame_b, "frame_b")
    _same_engine(frame_a, frame_b)
    engine = type(frame_a).__module__.split(".")[0]
    try:
        sides, key_count = _user_sides(fa, fb, frame_a, frame_b, id=id, score=score,
                                       sample=sample, cluster=cluster, names=names)
        return _pair_scores(
            sides[0], sides[1], key_count=key_count, has_sample=sample is not None,
            reduce=reduce, on_missing=on_missing, names=names,
            paths=(_describe(frame_a), _describe(frame_b)), formats=("frame", "frame"),
            key_names=tuple([id] if isinstance(id, str) else id), sample_name=sample,
            cluster_name=cluster, engine=engine)
    except McNemarError:
        raise
    except Exception as exc:  # engine-specific errors (bad types, ...)
        raise _frame_failure(exc, engine) from None


def paired_score_columns(
    frame: Any,
    *,
    score_a: str,
    score_b: str,
    item: str | Sequence[str] | None = None,
    cluster: str | None = None,
    on_missing: str = "error",
) -> PairedScores:
    """One frame holding both runs' scores, a row per item (or per sample of an item), as
    paired scores: nothing to join, so nothing but the scores' columns is checked.

    Parameters
    ----------
    frame : DataFrame
        Any frame narwhals accepts (pandas, polars, pyarrow, DuckDB, Dask, PySpark).
    score_a, score_b : str
        The columns of A's and B's scores.
    item : str or list of str, optional
        The column(s) naming the item when the rows are repeated samples of items.
    cluster : str, optional
        The column of the items' clusters.
    on_missing : {"error", "intersect"}
        Rows without a score on one side: refused, or left out.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"new": [0.5, 1.0, None], "old": [0.25, 0.5, 0.75]})
    >>> paired_score_columns(df, score_a="new", score_b="old", on_missing="intersect").engine
    'pandas'
    """
    nw = _nw()
    check_policies(on_missing, None, None)
    f = _as_narwhals(frame, "frame")
    items = [] if item is None else [item] if isinstance(item, str) else list(item)
    columns = _columns(f)
    for col, role in [(score_a, "score_a"), (score_b, "score_b"), *((c, "item") for c in items),
                      *(((cluster, "cluster"),) if cluster else ())]:
        if col not in columns:
            raise McNemarError(f"{role} column {col!r} not found; the columns are "
                               f"{', '.join(map(repr, columns[:12]))}", argument=role)
    engine = type(frame).__module__.split(".")[0]
    select = [nw.col(c).alias(f"{KEY_PREFIX}{i}") for i, c in enumerate(items)]
    select += [nw.col(score_a).cast(nw.Float64).alias(SCORE_A),
               nw.col(score_b).cast(nw.Float64).alias(SCORE_B)]
    if cluster:
        select.append(nw.col(cluster).cast(nw.String).fill_null("").alias(CLUSTER_PAIR))
    try:
        pairs = f.select(*select)
        a, b = nw.col(SCORE_A), nw.col(SCORE_B)
        stats = _rows(pairs.select(
            (a.is_null() | b.is_null()).cast(nw.Int64).sum().alias("missing"),
            ((~a.is_null() & a.is_nan()) | (~b.is_null() & b.is_nan())).cast(nw.Int64).sum()
            .alias("nan")))[0]
    except McNemarError:
        raise
    except Exception as exc:  # engine-specific errors (text in a score column, ...)
        raise _frame_failure(exc, engine) from None
    missing, nan = int(stats["missing"] or 0), int(stats["nan"] or 0)
    if nan:
        raise McNemarError(f"{_verb(nan, 'row has', 'rows have')} a score that is not a number "
                           f"(NaN) in {score_a!r} or {score_b!r}", argument="frame")
    if missing and on_missing == "error":
        raise McNemarError(f"{_verb(missing, 'row has', 'rows have')} no score in {score_a!r} "
                           f"or {score_b!r}; to leave them out pass "
                           + option("on_missing", "'intersect'"), argument="frame")
    if missing:
        pairs = pairs.filter(~a.is_null() & ~b.is_null())
    return PairedScores(frame=pairs, engine=engine, items=tuple(_keys(len(items))),
                        cluster=CLUSTER_PAIR if cluster else None)


# --- user frames -------------------------------------------------------------------------


def _as_narwhals(frame: Any, what: str) -> Any:
    nw = _nw()
    try:
        return nw.from_native(frame)
    except TypeError:
        raise McNemarError(
            f"{what}: a {type(frame).__module__}.{type(frame).__name__} is not a supported data "
            "frame; pass pandas, polars, pyarrow, DuckDB, Dask or PySpark"
        ) from None


def _columns(frame: Any) -> list[str]:
    return list(frame.columns)


def _prepare(frame: Any, what: str, id: str | Sequence[str], score: str,
             sample: str | None, cluster: str | None = None) -> tuple[Any, int]:
    nw = _nw()
    ids = [id] if isinstance(id, str) else list(id)
    columns = _columns(frame)
    for col, role in [*((c, "id") for c in ids), (score, "score"),
                      *(((sample, "sample"),) if sample else ())]:
        if col not in columns:
            raise McNemarError(f"{what}: {role} column {col!r} not found; the columns are "
                               f"{', '.join(map(repr, columns[:12]))}")
    select = [nw.col(c).alias(f"{KEY_PREFIX}{i}") for i, c in enumerate(ids)]
    select.append(nw.col(score).cast(nw.Float64).alias(SCORE_COL))
    if sample:
        select.append(nw.col(sample).alias(SAMPLE_COL))
    if cluster and cluster in columns:
        select.append(nw.col(cluster).cast(nw.String).alias(CLUSTER_COL))
    return frame.select(*select), len(ids)


def _describe(frame: Any) -> str:
    return f"<{type(frame).__module__.split('.')[0]} {type(frame).__name__}>"


def count_frames(
    frame_a: Any,
    frame_b: Any,
    *,
    id: str | Sequence[str],
    score: str,
    threshold: float | None = None,
    on_missing: str = "error",
    sample: str | None = None,
    reduce: str | None = None,
    names: tuple[str, str] = ("A", "B"),
) -> tuple[Counts, AlignmentSummary]:
    """Pair two runs held in data frames by item id and count them inside the engine.

    The options are those of :func:`mcnemar.io.frames.table_from_frames`, which wraps the
    counts ``(a, b, c, d)`` returned here into a :class:`~mcnemar.table.PairedTable`.

    Examples
    --------
    >>> import polars as pl
    >>> a = pl.DataFrame({"id": [1, 2, 3], "ok": [1, 0, 1]})
    >>> counts, summary = count_frames(a, a.head(2).with_columns(ok=0), id="id", score="ok",
    ...                                on_missing="intersect")
    >>> counts, summary.matched, summary.engine
    ((0, 1, 0, 1), 2, 'polars')
    """
    check_policies(on_missing, threshold, reduce)
    nw = _nw()
    fa, fb = _as_narwhals(frame_a, "frame_a"), _as_narwhals(frame_b, "frame_b")
    _same_engine(frame_a, frame_b)
    pa, key_count = _prepare(fa, "frame_a", id, score, sample)
    pb, _ = _prepare(fb, "frame_b", id, score, sample)
    sides = [
        _Side(frame=f, label=f"{name} {_describe(native)}",
              records=_scalar(f.select(nw.len().alias("n"))), items=None)
        for f, name, native in ((pa, names[0], frame_a), (pb, names[1], frame_b))
    ]
    engine = type(frame_a).__module__.split(".")[0]
    try:
        counts, summary = _count(
            sides[0], sides[1], key_count=key_count, has_sample=sample is not None,
            threshold=threshold, on_missing=on_missing, reduce=reduce, names=names,
            paths=(_describe(frame_a), _describe(frame_b)), formats=("frame", "frame"),
            key_names=tuple([id] if isinstance(id, str) else id), engine=engine,
        )
    except McNemarError:
        raise
    except Exception as exc:  # engine-specific errors (bad types, ...)
        raise _frame_failure(exc, engine) from None
    return counts, summary


def _same_engine(frame_a: Any, frame_b: Any) -> None:
    if type(frame_a).__module__.split(".")[0] != type(frame_b).__module__.split(".")[0]:
        raise McNemarError(
            f"frame_a is {_describe(frame_a)} and frame_b is {_describe(frame_b)}; both frames "
            "must live in the same engine to be joined there"
        )


def _frame_failure(exc: Exception, engine: str) -> McNemarError:
    """An engine's own error while pairing two frames, in words."""
    if "different connections" in str(exc):
        return McNemarError(
            "frame_a and frame_b are relations of different DuckDB connections; create "
            "both from one connection so that DuckDB can join them"
        )
    return McNemarError(f"the {engine} engine could not count the frames: "
                        f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")


def _user_sides(fa: Any, fb: Any, frame_a: Any, frame_b: Any, *, id: str | Sequence[str],
                score: str, sample: str | None, cluster: str | None,
                names: tuple[str, str]) -> tuple[list[_Side], int]:
    """The two sides of two user frames (the cluster column in one frame or both)."""
    nw = _nw()
    if cluster and cluster not in _columns(fa) and cluster not in _columns(fb):
        raise McNemarError(f"cluster column {cluster!r} is in neither frame", argument="cluster")
    pa, key_count = _prepare(fa, "frame_a", id, score, sample, cluster)
    pb, _ = _prepare(fb, "frame_b", id, score, sample, cluster)
    sides = [
        _Side(frame=f, label=f"{name} {_describe(native)}",
              records=_scalar(f.select(nw.len().alias("n"))), items=None,
              cluster=CLUSTER_COL in _columns(f))
        for f, name, native in ((pa, names[0], frame_a), (pb, names[1], frame_b))
    ]
    return sides, key_count


def count_long_frame(
    frame: Any, *, run: str, runs: Sequence[Any] | None = None, **options: Any
) -> tuple[Counts, AlignmentSummary]:
    """Like :func:`count_frames` for one long frame with a run column.

    The frame is split by ``run`` into the two runs ``runs`` (default: the two values
    present, sorted), which are counted by :func:`count_frames` with ``options`` (``id``,
    ``score``, ``threshold``, ...); see :func:`mcnemar.io.frames.table_from_long_frame`.
    """
    nw = _nw()
    f = _as_narwhals(frame, "frame")
    if run not in _columns(f):
        raise McNemarError(f"run column {run!r} not found; the columns are "
                           f"{', '.join(map(repr, _columns(f)[:12]))}")
    if runs is None:
        values = sorted(r[run] for r in _rows(f.select(run).unique()) if r[run] is not None)
        if len(values) != 2:
            raise McNemarError(
                f"column {run!r} holds {len(values)} runs ({', '.join(map(repr, values[:6]))}); "
                "choose two with runs=(A, B)"
            )
        runs = values
    if len(runs) != 2:
        raise McNemarError(f"runs must name exactly two runs (A, B), got {list(runs)!r}")
    name_a, name_b = runs
    native_a = nw.to_native(f.filter(nw.col(run) == name_a))
    native_b = nw.to_native(f.filter(nw.col(run) == name_b))
    return count_frames(native_a, native_b, names=(str(name_a), str(name_b)), **options)
