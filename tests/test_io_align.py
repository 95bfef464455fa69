"""Alignment of runs by item key (mcnemar.io.align): strict rules, policies and counts.

Independent checks: a plain-Python re-implementation of the rules on dictionaries (brute
force, no numpy) is compared with :func:`align` on random runs (hypothesis).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcnemar.errors import AlignmentError, McNemarError
from mcnemar.io import RunResults, align, align_many


def run(name: str, keys: list[Any], scores: list[float], epochs: list[int] | None = None,
        clusters: list[str] | None = None) -> RunResults:
    keys_arr = np.empty(len(keys), dtype=object)
    keys_arr[:] = keys
    return RunResults(
        name=name, path=f"{name}.jsonl", format="jsonl", records=len(keys), keys=keys_arr,
        scores=np.asarray(scores, dtype=float),
        epochs=None if epochs is None else np.asarray(epochs),
        sample_name=None if epochs is None else "epoch",
        clusters=None if clusters is None else np.asarray(clusters, dtype=object),
        cluster_name=None if clusters is None else "doc",
    )


def test_reordered_items_are_paired_by_key() -> None:
    a = run("a", ["x", "y", "z", "w"], [1, 1, 0, 0])
    b = run("b", ["w", "z", "y", "x"], [1, 0, 1, 0])
    al = align(a, b)
    # x: (1,0) y: (1,1) z: (0,0) w: (0,1)
    assert al.counts == (1, 1, 1, 1)
    assert al.keys.tolist() == ["x", "y", "z", "w"]
    assert al.correct_a.dtype == np.int8 and al.correct_b.tolist() == [0, 1, 0, 1]


def test_strict_errors_name_files_counts_and_keys() -> None:
    a = run("a", [("t", i, "none") for i in range(5)], [1, 0, 1, 0, 1])
    b_keys = [("t", i, "none") for i in range(5)] + [("t", 9, "none"), ("t", 2, "none")]
    b = run("b", [*b_keys, ("t", 10, "none")], [1] * 8)
    with pytest.raises(AlignmentError) as info:
        align(a, b)
    message = str(info.value)
    assert "b.jsonl: 1 duplicated item key (('t', 2, 'none') x2)" in message
    assert "b.jsonl: 2 items not in a.jsonl (e.g. ('t', 9, 'none'), ('t', 10, 'none'))" in message
    assert "pass on_missing='intersect'" in message  # the keyword, for library callers
    assert info.value.argument == "on_missing"  # which the command line spells as its flag
    assert "\n" not in message  # one line on stderr


def test_intersect_reports_dropped_items_and_still_refuses_duplicates() -> None:
    a = run("a", ["x", "y", "z"], [1, 0, 1])
    b = run("b", ["x", "y", "q", "r"], [0, 0, 1, 1])
    al = align(a, b, on_missing="intersect")
    assert al.counts == (0, 1, 0, 1)
    s = al.summary
    assert (s.matched, s.run_a.only_here, s.run_b.only_here, s.dropped) == (2, 1, 2, 3)
    assert "Dropped 3 items (1 only in A, 2 only in B; on_missing=intersect)" in str(al)
    dup = run("b", ["x", "y", "y"], [1, 1, 1])
    with pytest.raises(AlignmentError, match="duplicated"):
        align(a, dup, on_missing="intersect")


def test_missing_scores_are_errors_or_dropped() -> None:
    a = run("a", ["x", "y", "z"], [1, np.nan, 1])
    b = run("b", ["x", "y", "z"], [1, 1, 0])
    with pytest.raises(AlignmentError, match=r"a.jsonl: 1 item has no score \(e.g. 'y'\)"):
        align(a, b)
    al = align(a, b, on_missing="intersect")
    assert al.counts == (1, 1, 0, 0) and al.summary.dropped_no_score == 1


def test_non_binary_scores_need_a_threshold_which_is_reported() -> None:
    a = run("a", ["x", "y", "z"], [0.9, 0.2, 1.0])
    b = run("b", ["x", "y", "z"], [1, 1, 0])
    with pytest.raises(AlignmentError, match=r"2 scores are not 0/1 \(e.g. 0.2, 0.9\)"):
        align(a, b)
    al = align(a, b, threshold=0.5)
    assert al.counts == (1, 1, 1, 0)
    assert al.summary.run_a.binarised == 2 and al.summary.threshold == 0.5
    assert "Binarised 2 scores at threshold 0.5" in str(al)


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [({"on_missing": "drop"}, "on_missing='drop' is not valid"),
     ({"reduce": "max"}, "reduce='max' is not valid"),
     ({"threshold": float("nan")}, "threshold=nan is not valid"),
     ({"engine": "spark"}, "engine='spark' is not valid")],
)
def test_bad_options(kwargs: dict[str, Any], pattern: str) -> None:
    with pytest.raises(McNemarError, match=pattern):
        align(run("a", ["x"], [1]), run("b", ["x"], [1]), **kwargs)


def test_repeated_sample_index_is_a_duplicate() -> None:
    a = run("a", ["x", "x", "y"], [1, 0, 1], epochs=[1, 1, 1])
    with pytest.raises(AlignmentError, match="1 item repeats the same epoch"):
        align(a, run("b", ["x", "y"], [1, 1]), reduce="first")


def test_summary_is_json_safe_and_complete() -> None:
    al = align(run("a", ["x", "y", "z"], [1, 0, 0.7]), run("b", ["x", "y"], [1, 1]),
               on_missing="intersect", threshold=0.5)
    d = al.to_dict()
    assert json.loads(json.dumps(d, allow_nan=False)) == d
    assert d["matched"] == 2 and d["dropped"] == {"total": 1, "only_in_a": 1, "only_in_b": 0,
                                                  "no_score": 0}
    assert d["runs"]["a"]["records"] == 3 and d["runs"]["a"]["binarised"] == 1
    assert d["on_missing"] == "intersect" and d["threshold"] == 0.5 and d["engine"] == "numpy"


def test_clusters_are_aligned_and_must_agree() -> None:
    a = run("a", ["x", "y", "z"], [1, 0, 1], clusters=["d1", "d1", "d2"])
    b = run("b", ["z", "y", "x"], [1, 0, 1], clusters=["d2", "d1", "d1"])
    al = align(a, b)
    assert al.clusters.tolist() == ["d1", "d1", "d2"] and al.summary.clusters == 2
    bad = run("b", ["z", "y", "x"], [1, 0, 1], clusters=["d9", "d1", "d1"])
    with pytest.raises(AlignmentError, match="1 items in different clusters"):
        align(a, bad)


def test_table_property_builds_the_paired_table() -> None:
    al = align(run("a", list("abcdef"), [1, 1, 1, 1, 0, 0]),
               run("b", list("abcdef"), [1, 1, 0, 0, 1, 0]))
    t = al.table
    assert (t.a, t.b, t.c, t.d) == (2, 2, 1, 1)


# --- brute-force reference -------------------------------------------------------------


def reference(ra: list[tuple[str, int, float]], rb: list[tuple[str, int, float]],
              reduce: str | None, threshold: float | None, intersect: bool) -> Any:
    """The alignment rules written out with dicts and loops (slow, obvious)."""
    problems = set()
    items = []
    for records in (ra, rb):
        by_key: dict[str, list[tuple[int, float]]] = defaultdict(list)
        for key, epoch, score in records:
            by_key[key].append((epoch, score))
        values = {}
        for key, samples in by_key.items():
            epochs = Counter(e for e, _ in samples)
            if max(epochs.values()) > 1:
                problems.add("dup")
            if len(samples) > 1 and reduce is None:
                problems.add("samples")
            samples.sort()
            scores = [s for _, s in samples]
            present = [s for s in scores if not np.isnan(s)]
            if reduce == "mean" and len(samples) > 1:
                mean = sum(present) / len(present) if present else np.nan
                if not np.isnan(mean) and mean not in (0, 1) and threshold is None:
                    problems.add("nonbinary")
                values[key] = mean if np.isnan(mean) or threshold is None else \
                    float(mean >= threshold)
                continue
            for s in present:
                if s not in (0, 1) and threshold is None:
                    problems.add("nonbinary")
            binary = [s if np.isnan(s) or threshold is None else float(s >= threshold)
                      for s in scores]
            if reduce == "majority" and len(samples) > 1:
                got = [s for s in binary if not np.isnan(s)]
                values[key] = float(2 * sum(got) > len(got)) if got else np.nan
            else:
                values[key] = binary[0]
        items.append(values)
    va, vb = items
    common = [k for k in va if k in vb]
    one_sided = len(va) + len(vb) - 2 * len(common)
    unscored = [k for k in common if np.isnan(va[k]) or np.isnan(vb[k])]
    if not intersect and (one_sided or unscored):
        problems.add("missing")
    if problems:
        return ("error", problems)
    cells = Counter((va[k], vb[k]) for k in common if k not in unscored)
    if not cells:
        return ("error", {"empty"})
    return ("ok", (cells[(1, 1)], cells[(1, 0)], cells[(0, 1)], cells[(0, 0)]))


_records = st.lists(
    st.tuples(st.sampled_from("abcdefgh"), st.integers(0, 2),
              st.sampled_from([0.0, 1.0, 1.0, 0.0, 0.5, 0.8, np.nan])),
    min_size=1, max_size=16,
)


@settings(max_examples=300, deadline=None)
@given(ra=_records, rb=_records, reduce=st.sampled_from([None, "mean", "majority", "first"]),
       threshold=st.sampled_from([None, 0.5, 0.75]), intersect=st.booleans())
def test_align_matches_brute_force(ra: list[tuple[str, int, float]],
                                   rb: list[tuple[str, int, float]], reduce: str | None,
                                   threshold: float | None, intersect: bool) -> None:
    expected = reference(ra, rb, reduce, threshold, intersect)
    runs = [run(n, [k for k, _, _ in r], [s for _, _, s in r], epochs=[e for _, e, _ in r])
            for n, r in (("a", ra), ("b", rb))]
    try:
        al = align(*runs, reduce=reduce, threshold=threshold,
                   on_missing="intersect" if intersect else "error")
    except AlignmentError as exc:
        message = str(exc)
        found = {name for name, text in (("dup", "the same epoch"), ("samples", "several "
                 "samples"), ("nonbinary", "not 0/1"), ("missing", " not in "),
                 ("missing", "no score (e.g."), ("empty", "share no scored item in common"))
                 if text in message}
        assert expected[0] == "error", message
        # Duplicates stop the reduction, so later problems may go unreported.
        assert found == expected[1] or ("dup" in found and "dup" in expected[1])
    else:
        assert expected == ("ok", al.counts)


# --- many runs ------------------------------------------------------------------------


def test_align_many_strict_and_intersect() -> None:
    runs = [run("a", ["x", "y", "z"], [1, 0, 1]), run("b", ["z", "x", "y"], [0, 1, 1]),
            run("c", ["x", "z", "w"], [0, 0, 1])]
    with pytest.raises(AlignmentError) as info:
        align_many(runs)
    assert "c.jsonl: 1 item of a.jsonl is missing (e.g. 'y')" in str(info.value)
    assert "c.jsonl: 1 item not in a.jsonl (e.g. 'w')" in str(info.value)
    keys, correct = align_many(runs, on_missing="intersect")
    assert keys.tolist() == ["x", "z"]
    assert correct.dtype == np.int8 and correct.tolist() == [[1, 1], [1, 0], [0, 0]]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.tuples(st.sampled_from("abcdef"), st.sampled_from([0.0, 1.0])),
                         min_size=1, max_size=8, unique_by=lambda t: t[0]),
                min_size=2, max_size=4))
def test_align_many_pairs_agree_with_align(data: list[list[tuple[str, float]]]) -> None:
    runs = [run(f"r{i}", [k for k, _ in r], [s for _, s in r]) for i, r in enumerate(data)]
    keys, correct = align_many(runs, on_missing="intersect")
    common = set.intersection(*({k for k, _ in r} for r in data))
    assert sorted(keys.tolist()) == sorted(common)
    for i in range(1, len(runs)):
        restricted = [run(r.name, [k for k in r.keys if k in common],
                          [s for k, s in zip(r.keys, r.scores, strict=True) if k in common])
                      for r in (runs[0], runs[i])]
        if common:
            al = align(*restricted)
            pair = correct[[0, i]]
            cells = (int(((pair[0] == 1) & (pair[1] == 1)).sum()),
                     int(((pair[0] == 1) & (pair[1] == 0)).sum()),
                     int(((pair[0] == 0) & (pair[1] == 1)).sum()),
                     int(((pair[0] == 0) & (pair[1] == 0)).sum()))
            assert al.counts == cells


def test_no_common_items_is_an_error_even_when_intersecting() -> None:
    a = run("a", [1, 2, 3], [1, 0, 1])
    b = run("b", ["1", "2", "3"], [1, 0, 1])
    with pytest.raises(AlignmentError, match=r"share no scored item in common.*differ in type"):
        align(a, b, on_missing="intersect")


def test_align_many_checks_every_two_runs_identities() -> None:
    from mcnemar.errors import McNemarWarning
    from mcnemar.io import RunIdentity, TaskIdentity

    def logged(name: str, task: str | None, scorer: str) -> RunResults:
        identity = RunIdentity(harness="inspect", tasks=(TaskIdentity(name=task,
                                                                      scorer=scorer),))
        return RunResults(name=name, path=f"{name}.eval", format="inspect", records=2,
                          keys=np.array(["x", "y"], dtype=object),
                          scores=np.array([1.0, 0.0]), identity=identity)

    # the first run names no task, so only comparing b with c finds the difference
    runs = [logged("a", None, "match"), logged("b", "t1", "match"), logged("c", "t2", "match")]
    with pytest.raises(McNemarError, match=r"different tasks: task 't1' in A \(b.eval\) and "
                                           r"'t2' in B \(c.eval\)"):
        align_many(runs)
    with pytest.warns(McNemarWarning, match="b.eval and c.eval: the runs are of different"):
        keys, correct = align_many(runs, allow_different_tasks=True)
    assert keys.tolist() == ["x", "y"] and correct.tolist() == [[1, 0]] * 3
    scored = [logged("a", "t", "match"), logged("b", "t", "includes")]
    with pytest.raises(McNemarError, match=r"^a.eval \(A\) and b.eval \(B\): the runs were "
                                           "scored differently") as info:
        align_many(scored)
    assert info.value.argument == "score"  # the library's own hint survives the prefix
    assert "allow_different_scorers" in info.value.arguments
    with pytest.warns(McNemarWarning, match="scored differently"):
        align_many(scored, allow_different_scorers=True)


def test_run_from_scores_is_the_run_a_reader_would_build(tmp_path) -> None:
    # The same outcomes written to a CSV file and read back, against the in-memory run.
    rng = np.random.default_rng(7)
    keys = [f"q{i}" for i in rng.permutation(40)]
    scores = rng.integers(0, 2, size=40).tolist()
    (tmp_path / "a.csv").write_text(
        "id,score\n" + "".join(f"{k},{s}\n" for k, s in zip(keys, scores, strict=True)))
    from mcnemar.io import read_run

    read = read_run(tmp_path / "a.csv")
    memory = RunResults.from_scores(keys, scores, name="a")
    assert memory.keys.tolist() == read.keys.tolist()
    assert memory.scores.tolist() == read.scores.tolist()
    assert (memory.name, memory.path, memory.records) == ("a", "a", 40)
    other = run("b", list(reversed(keys)), scores)
    assert align(memory, other).counts == align(read, other).counts


def test_run_from_scores_missing_scores_epochs_and_clusters() -> None:
    made = RunResults.from_scores(["x", "x", ("y", 2)], [True, None, float("nan")],
                                  epochs=[1, 2, 1], clusters=["d1", "d1", "d2"])
    assert made.scores[0] == 1.0 and np.isnan(made.scores[1:]).all()
    assert made.keys[2] == ("y", 2) and made.epochs.tolist() == [1, 2, 1]
    assert (made.sample_name, made.cluster_name) == ("sample", "cluster")
    assert made.clusters.tolist() == ["d1", "d1", "d2"]
    # Same alignment as the hand-built run of the same records.
    built = run("run", ["x", "x", ("y", 2)], [1, np.nan, np.nan], epochs=[1, 2, 1],
                clusters=["d1", "d1", "d2"])
    other = run("b", ["x", "x", ("y", 2)], [0, 1, 1], epochs=[1, 2, 1])
    assert (align(made, other, reduce="first", on_missing="intersect").counts
            == align(built, other, reduce="first", on_missing="intersect").counts)


@pytest.mark.parametrize(
    ("scores", "extra", "pattern"),
    [([1, 0], {}, r"scores must hold one value per key \(3\), got 2"),
     ([1, 0, 1], {"epochs": [1]}, r"epochs must hold one value per key \(3\), got 1"),
     ([1, "maybe", 1], {}, "scores must be numbers, booleans or None"),
     ([1, [0], 1], {}, "scores must"),],
)
def test_run_from_scores_refuses_what_does_not_line_up(scores: list[Any], extra: dict[str, Any],
                                                       pattern: str) -> None:
    with pytest.raises(McNemarError, match=pattern):
        RunResults.from_scores(["a", "b", "c"], scores, **extra)
