"""The one pipeline (mcnemar.pipeline): read -> identify -> align -> analyze.

References: the tables are counted independently here from the files' own rows (plain csv /
json), and the clustered analysis is compared with mcnemar.clustering run directly on the same
per-item outcomes; the CLI's JSON must equal the pipeline's to_dict() (one code path).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from mcnemar.cli import main
from mcnemar.errors import McNemarError
from mcnemar.pipeline import (
    analyze_alignment,
    compare_runs,
    display_names,
    pair_runs,
    read_runs,
)

GENERIC = Path(__file__).parent / "data" / "io" / "generic"


def _counted(path_a: Path, path_b: Path, id_col: str = "id", score: str = "score") -> tuple:
    """(a, b, c, d) counted from the two CSV files with the csv module (no mcnemar code)."""
    def rows(p: Path) -> dict[str, int]:
        with p.open(newline="") as f:
            return {r[id_col]: int(float(r[score])) for r in csv.DictReader(f)}

    ra, rb = rows(path_a), rows(path_b)
    assert set(ra) == set(rb)
    cells = [0, 0, 0, 0]
    for key, x in ra.items():
        y = rb[key]
        cells[{(1, 1): 0, (1, 0): 1, (0, 1): 2, (0, 0): 3}[(x, y)]] += 1
    return tuple(cells)


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return path


def test_two_files_give_the_table_counted_from_their_rows(tmp_path: Path) -> None:
    rng = np.random.default_rng(11)
    n = 120
    a = rng.integers(0, 2, n)
    b = rng.integers(0, 2, n)
    order = rng.permutation(n)
    fa = _write(tmp_path / "new.csv", [{"id": f"q{i}", "score": int(a[i])} for i in range(n)])
    fb = _write(tmp_path / "old.csv", [{"id": f"q{i}", "score": int(b[i])} for i in order])
    run_a, run_b = read_runs([fa, fb])
    report = compare_runs(run_a, run_b)
    t = report.table
    assert (t.a, t.b, t.c, t.d) == _counted(fa, fb)
    assert report.names == ("new.csv", "old.csv")
    assert report.to_dict()["alignment"]["matched"] == n


def test_the_cli_is_the_pipeline(tmp_path: Path) -> None:
    # compare's JSON is the pipeline's report, key for key.
    fa, fb = GENERIC / "a.csv", GENERIC / "b.csv"
    out = CliRunner().invoke(main, ["compare", str(fa), str(fb), "--format", "json"])
    assert out.exit_code == 0, out.output
    report = compare_runs(*read_runs([fa, fb]))
    assert json.loads(out.output) == json.loads(json.dumps(report.to_dict()))


def test_long_file_and_truth_modes() -> None:
    run_a, run_b = read_runs([GENERIC / "long.csv"], run_column="model", id="question_id",
                             runs=["new", "old"])
    assert (run_a.name, run_b.name) == ("new", "old")
    with (GENERIC / "long.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    per = {m: {r["question_id"]: int(r["score"]) for r in rows if r["model"] == m}
           for m in ("new", "old")}
    report = compare_runs(run_a, run_b)
    expected = [0, 0, 0, 0]
    for key, x in per["new"].items():
        y = per["old"][key]
        expected[{(1, 1): 0, (1, 0): 1, (0, 1): 2, (0, 0): 3}[(x, y)]] += 1
    t = report.table
    assert [t.a, t.b, t.c, t.d] == expected

    scored = read_runs([GENERIC / "pred_a.csv", GENERIC / "pred_b.jsonl"],
                       truth=GENERIC / "labels.csv")
    assert len(scored) == 2


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"paths": ["x.csv"]}, None),
        ({"paths": ["a", "b"], "truth": "t.csv", "options_a": {"id": "k"}}, "truth"),
        ({"paths": ["a"], "truth": "t.csv"}, "truth"),
        ({"paths": ["a", "b"], "run_column": "model"}, "run_column"),
        ({"paths": ["a", "b"], "runs": ["x", "y"]}, "runs"),
    ],
)
def test_misuse_names_the_argument(kwargs: dict, argument: str | None) -> None:
    paths = kwargs.pop("paths")
    with pytest.raises(McNemarError) as info:
        read_runs(paths, **kwargs)
    assert info.value.argument == argument


def test_clustered_items_get_the_clustered_analysis(tmp_path: Path) -> None:
    from mcnemar.clustering import clustered_from_outcomes

    rng = np.random.default_rng(5)
    n = 240
    passage = rng.integers(0, 24, n)
    effect = rng.random(24)[passage]
    a = (rng.random(n) < 0.5 + 0.4 * effect).astype(int)
    b = (rng.random(n) < 0.45 + 0.4 * effect).astype(int)
    files = []
    for name, score in (("a.csv", a), ("b.csv", b)):
        files.append(_write(tmp_path / name, [
            {"id": f"q{i}", "passage": f"p{passage[i]}", "correct": int(score[i])}
            for i in range(n)]))
    run_a, run_b = read_runs(files, score="correct", cluster="passage")
    alignment = pair_runs(run_a, run_b)
    for method in ("obuchowski", "durkalski"):
        report = analyze_alignment(alignment, cluster_method=method)
        direct = clustered_from_outcomes(a, b, passage, method=method)
        assert report.clustered is not None
        assert report.clustered.statistic == pytest.approx(direct.statistic, rel=1e-12)
        assert report.to_dict()["recommended"]["test"] == "clustered"


def test_display_names_tell_one_model_apart(tmp_path: Path) -> None:
    fa = _write(tmp_path / "a.csv", [{"id": "q1", "score": 1}, {"id": "q2", "score": 0}])
    run_a, run_b = read_runs([fa, fa])
    alignment = pair_runs(run_a, run_b)
    assert display_names(alignment) == ("a.csv (A)", "a.csv (B)")
    assert display_names(alignment, ("x", "y")) == ("x", "y")
