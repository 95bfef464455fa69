"""Tests for ``mcnemar pairwise``: wide CSV input, run files, options, outputs and errors."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from mcnemar.cli import main
from mcnemar.errors import InputFileError
from mcnemar.io import read_matrix

pytest.importorskip("mcnemar.table")
pytest.importorskip("mcnemar.inference")

from mcnemar.multiple import pairwise as library_pairwise

NAMES = ["large", "medium", "small", "tiny"]


def _matrix(seed: int = 3, n: int = 400) -> np.ndarray:
    rng = np.random.default_rng(seed)
    acc = np.array([0.9, 0.87, 0.8, 0.65])
    return (rng.random((4, n)) < acc[:, None]).astype(np.int8)


def _write_csv(path: Path, x: np.ndarray, names: list[str], id_column: bool = False) -> Path:
    lines = [",".join((["item"] if id_column else []) + names)]
    for j in range(x.shape[1]):
        row = [str(v) for v in x[:, j]]
        lines.append(",".join(([f"q{j}"] if id_column else []) + row))
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture()
def matrix_csv(tmp_path: Path) -> tuple[Path, np.ndarray]:
    x = _matrix()
    return _write_csv(tmp_path / "scores.csv", x, NAMES), x


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["pairwise", *args])
    return result.exit_code, result.stdout, result.stderr


def test_json_equals_the_library(matrix_csv: tuple[Path, np.ndarray]) -> None:
    path, x = matrix_csv
    code, out, err = _run("--matrix", str(path), "--format", "json")
    assert code == 0, err
    expected = library_pairwise(x, names=NAMES).to_dict()
    assert json.loads(out) == json.loads(json.dumps(expected))


def test_text_and_markdown(matrix_csv: tuple[Path, np.ndarray]) -> None:
    path, x = matrix_csv
    code, out, _ = _run("--matrix", str(path))
    assert code == 0
    assert out.strip() == str(library_pairwise(x, names=NAMES))
    assert "Adjusted p-values (Holm)" in out
    code, out, _ = _run("--matrix", str(path), "--format", "markdown", "--adjust", "bh")
    assert code == 0
    assert out == library_pairwise(x, names=NAMES, adjust="bh").to_markdown()


@pytest.mark.parametrize("baseline", ["small", "2"])
def test_baseline_by_name_or_index(matrix_csv: tuple[Path, np.ndarray], baseline: str) -> None:
    path, x = matrix_csv
    code, out, _ = _run("--matrix", str(path), "--baseline", baseline, "--format", "json",
                        "--method", "midp", "--alternative", "greater")
    assert code == 0
    doc = json.loads(out)
    assert doc["mode"] == "baseline" and doc["baseline"] == "small"
    expected = library_pairwise(x, names=NAMES, baseline=2, method="midp",
                                alternative="greater")
    assert doc == json.loads(json.dumps(expected.to_dict()))


def test_options_reach_the_library(matrix_csv: tuple[Path, np.ndarray]) -> None:
    path, x = matrix_csv
    code, out, _ = _run("--matrix", str(path), "--format", "json", "--adjust", "bonferroni",
                        "--method", "asymptotic", "--alpha", "0.01", "--confidence-level",
                        "0.9", "--names", "A,B,C,D")
    assert code == 0
    doc = json.loads(out)
    assert (doc["adjust"], doc["method"], doc["alpha"], doc["confidence_level"]) == (
        "bonferroni", "asymptotic", 0.01, 0.9)
    assert doc["names"] == ["A", "B", "C", "D"]
    expected = library_pairwise(x, names=["A", "B", "C", "D"], adjust="bonferroni",
                                method="asymptotic", alpha=0.01, confidence_level=0.9)
    assert doc == json.loads(json.dumps(expected.to_dict()))


def test_id_column_is_skipped(tmp_path: Path) -> None:
    x = _matrix()
    path = _write_csv(tmp_path / "ids.csv", x, NAMES, id_column=True)
    m = read_matrix(path, id_column="item")
    assert list(m.names) == NAMES
    np.testing.assert_array_equal(m.correct, x)
    code, out, _ = _run("--matrix", str(path), "--id-column", "item", "--format", "json")
    assert code == 0 and json.loads(out)["names"] == NAMES


def test_plot_files(matrix_csv: tuple[Path, np.ndarray], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    path, _ = matrix_csv
    heat = tmp_path / "heat.png"
    code, out, err = _run("--matrix", str(path), "--plot", str(heat), "--format", "json")
    assert code == 0
    json.loads(out)  # stdout stays pure JSON; the note goes to stderr
    assert "heatmap" in err
    data = heat.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", data[16:24])[0] > 100
    fplot = tmp_path / "forest.png"
    code, _, err = _run("--matrix", str(path), "--baseline", "tiny", "--plot", str(fplot))
    assert code == 0 and "forest" in err and fplot.read_bytes()[:4] == b"\x89PNG"
    fplot2 = tmp_path / "forest2.png"
    code, _, _ = _run("--matrix", str(path), "--plot", str(fplot2), "--plot-kind", "forest")
    assert code == 0 and fplot2.exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "the file is empty"),
        ("a,b\n", "header but no items"),
        ("a,b\n1,0\n1,2\n", "line 3: column 'b' has '2'"),
        ("a,b\n1,0\n1\n", "line 3: expected 2 values"),
        ("a,b\n1,0\n1,\n", "line 3: column 'b' has ''"),
    ],
)
def test_bad_matrix_files(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(content)
    code, out, err = _run("--matrix", str(path))
    assert code == 2
    assert out == ""
    assert message in err and str(path) in err
    assert len(err.strip().splitlines()) == 1
    with pytest.raises(InputFileError):
        read_matrix(path)


def test_matrix_as_jsonl_and_parquet(matrix_csv: tuple[Path, np.ndarray],
                                     tmp_path: Path) -> None:
    path, x = matrix_csv
    code, expected, _ = _run("--matrix", str(path), "--format", "json")
    assert code == 0
    jsonl = tmp_path / "scores.jsonl"
    jsonl.write_text("".join(json.dumps({n: int(x[k, j]) for k, n in enumerate(NAMES)}) + "\n"
                             for j in range(x.shape[1])))
    code, out, err = _run("--matrix", str(jsonl), "--format", "json")
    assert code == 0, err
    assert out == expected
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    parquet = tmp_path / "scores.parquet"
    pq.write_table(pa.table({n: x[k].astype(bool) for k, n in enumerate(NAMES)}), parquet)
    code, out, err = _run("--matrix", str(parquet), "--format", "json")
    assert code == 0, err
    assert out == expected


def test_true_false_cells_and_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "tf.csv"
    path.write_text("a,b\ntrue,false\n\nFALSE,1\n1.0,0.0\n")
    path.write_text("a,b\ntrue,false\n\nFALSE,1\n1.0,0.0\nyes,No\n")
    m = read_matrix(path)
    assert m.names == ("a", "b")
    assert m.correct.tolist() == [[1, 0, 1, 1], [0, 1, 0, 0]]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "need at least 2 run files"),
        (("one.jsonl",), "need at least 2 run files"),
        (("--matrix", "{csv}", "x.jsonl"), "not both"),
        (("--matrix", "{csv}", "--names", "a,b"), "--names has 2 name(s) but there are 4"),
        (("--matrix", "{csv}", "--baseline", "nobody"), "neither a run name nor an index"),
        (("--matrix", "{csv}", "--baseline", "9"), "between 0 and 3"),
        (("--matrix", "{csv}", "--alternative", "less"), "needs a baseline"),
        (("--matrix", "{csv}", "--alpha", "2"), "alpha must be strictly between"),
        (("--matrix", "{csv}", "--plot", "out.gif"), ".png, .svg, .pdf"),
        (("--matrix", "{csv}", "--threshold", "0.5"), "only apply to run files"),
        (("--matrix", "{csv}", "--id-column", "nope"), "'nope' is not a column"),
        (("a.csv", "b.csv", "--id-column", "x"), "only applies to --matrix"),
        (("--matrix", "{missing}"), "cannot open the file"),
    ],
)
def test_bad_invocations(matrix_csv: tuple[Path, np.ndarray], tmp_path: Path,
                         args: tuple[str, ...], message: str) -> None:
    path, _ = matrix_csv
    filled = [a.format(csv=path, missing=tmp_path / "missing.csv") for a in args]
    code, _, err = _run(*filled)
    assert code == 2, err
    assert message in err
    assert err.startswith("mcnemar: error:") and len(err.strip().splitlines()) == 1


# ---------------------------------------------------------------------------------------------
# run files through mcnemar.io



def test_run_files_are_aligned_on_their_keys(tmp_path: Path) -> None:
    x = _matrix(n=120)
    rng = np.random.default_rng(9)
    paths = []
    for k, name in enumerate(NAMES):
        order = rng.permutation(x.shape[1])  # each file lists the items in its own order
        lines = ["id,correct"] + [f"q{j},{x[k, j]}" for j in order]
        path = tmp_path / f"{name}.csv"
        path.write_text("\n".join(lines) + "\n")
        paths.append(str(path))
    code, out, err = _run(*paths, "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    from mcnemar.io import read_run

    names = [read_run(p).name for p in paths]  # the readers name each run
    assert doc["names"] == names
    expected = library_pairwise(x, names=names).to_dict()
    assert doc == json.loads(json.dumps(expected))


def test_run_files_missing_items(tmp_path: Path) -> None:
    a = tmp_path / "a.csv"
    b = tmp_path / "b.csv"
    c = tmp_path / "c.csv"
    a.write_text("id,correct\nq1,1\nq2,0\nq3,1\n")
    b.write_text("id,correct\nq1,0\nq2,1\n")
    c.write_text("id,correct\nq3,1\nq2,1\nq1,1\n")
    code, _, err = _run(str(a), str(b), str(c))
    assert code == 2 and "missing" in err
    code, out, err = _run(str(a), str(b), str(c), "--on-missing", "intersect", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["n"] == 2


# ---------------------------------------------------------------------------------------------
# run identities: the checks compare makes, for every two runs


def _inspect_log(path: Path, task: str, scorer: str, outcomes: list[int],
                 inputs: list[str] | None = None) -> str:
    samples = []
    for i, v in enumerate(outcomes):
        sample = {"id": f"q{i}", "epoch": 1, "scores": {scorer: {"value": "C" if v else "I"}}}
        if inputs is not None:
            sample.update({"input": inputs[i], "target": "x"})
        samples.append(sample)
    path.write_text(json.dumps({"eval": {"task": task}, "samples": samples}))
    return str(path)


OUTCOMES = [[1, 1, 0, 1, 0, 1], [0, 1, 0, 1, 1, 0], [1, 0, 0, 0, 1, 1]]


def test_runs_of_different_tasks_are_refused_unless_allowed(tmp_path: Path) -> None:
    paths = [_inspect_log(tmp_path / f"{n}.json", t, "match", o)
             for n, t, o in zip("abc", ["arith", "arith", "geo"], OUTCOMES, strict=True)]
    code, out, err = _run(*paths)
    assert code == 2 and out == ""
    assert err.startswith("mcnemar: error: the runs are of different tasks: task 'arith' in A")
    assert "'geo' in B" in err and paths[2] in err and "--allow-different-tasks" in err
    assert len(err.strip().splitlines()) == 1
    code, out, err = _run(*paths, "--allow-different-tasks", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    expected = library_pairwise(np.array(OUTCOMES, dtype=np.int8), names=doc["names"])
    assert doc == json.loads(json.dumps(expected.to_dict()))
    assert err.count("mcnemar: warning:") == 2  # a and c, b and c
    assert "allow_different_tasks was set" in err


def test_runs_scored_differently_are_refused_unless_allowed(tmp_path: Path) -> None:
    paths = [_inspect_log(tmp_path / f"{n}.json", "arith", s, o)
             for n, s, o in zip("abc", ["match", "includes", "match"], OUTCOMES, strict=True)]
    code, _, err = _run(*paths)
    assert code == 2
    assert err.startswith(f"mcnemar: error: {paths[0]} (A) and {paths[1]} (B): the runs were "
                          "scored differently")
    assert "--allow-different-scorers" in err and len(err.strip().splitlines()) == 1
    code, out, err = _run(*paths, "--allow-different-scorers", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["n"] == 6 and "scored differently" in err


def test_paired_items_must_hold_the_same_content(tmp_path: Path) -> None:
    same = [f"question {i}" for i in range(6)]
    other = [*same[:3], "another question", *same[4:]]
    paths = [_inspect_log(tmp_path / "a.json", "arith", "match", OUTCOMES[0], same),
             _inspect_log(tmp_path / "b.json", "arith", "match", OUTCOMES[1], same),
             _inspect_log(tmp_path / "c.json", "arith", "match", OUTCOMES[2], other)]
    code, _, err = _run(*paths)
    assert code == 2 and "1 of 6 paired items differ in input/target" in err
    assert "'q3'" in err and "--allow-different-tasks" in err
    code, _, err = _run(*paths, "--allow-different-tasks")
    assert code == 0 and "1 of the paired items differ in content" in err


def test_identity_flags_only_apply_to_run_files(matrix_csv: tuple[Path, np.ndarray]) -> None:
    path, _ = matrix_csv
    code, _, err = _run("--matrix", str(path), "--allow-different-tasks")
    assert code == 2 and "--allow-different-tasks only apply to run files" in err
