"""The wide 0/1 matrix reader (mcnemar.io.read_matrix).

* The same matrix written as CSV, TSV, JSON Lines and Parquet reads back as the same names,
  ids and K x N matrix (checked against the numpy array written).
* A cell is a pass or a fail exactly when the run readers' rule (io._run.score_to_float, and
  read_run on a generic CSV) reads it as 1 or 0: one definition of truth values.
* Bad files are refused with the line (or row) and the column.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from mcnemar.errors import InputFileError, McNemarError
from mcnemar.io import read_matrix, read_run, score_to_float

NAMES = ["large", "medium", "small"]


def _matrix(seed: int = 5, n: int = 60) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.random((len(NAMES), n)) < np.array([0.9, 0.7, 0.5])[:, None]).astype(np.int8)


def _write(path: Path, x: np.ndarray, *, ids: bool = True, spell: dict[int, str] | None = None
           ) -> Path:
    spell = spell or {0: "0", 1: "1"}
    ids_ = [f"q{j}" for j in range(x.shape[1])]
    kind = path.suffix
    if kind in (".csv", ".tsv"):
        sep = "\t" if kind == ".tsv" else ","
        lines = [sep.join((["item"] if ids else []) + NAMES)]
        lines += [sep.join(([ids_[j]] if ids else []) + [spell[int(v)] for v in x[:, j]])
                  for j in range(x.shape[1])]
        path.write_text("\n".join(lines) + "\n")
    elif kind == ".jsonl":
        with path.open("w") as f:
            for j in range(x.shape[1]):
                record = {"item": ids_[j]} if ids else {}
                record.update({name: bool(x[k, j]) if k == 1 else int(x[k, j])
                               for k, name in enumerate(NAMES)})
                f.write(json.dumps(record) + "\n")
    else:
        pa = pytest.importorskip("pyarrow")
        pq = pytest.importorskip("pyarrow.parquet")
        columns = {"item": ids_} if ids else {}
        columns.update({NAMES[0]: x[0].astype(np.int64), NAMES[1]: x[1].astype(bool),
                        NAMES[2]: [spell[int(v)] for v in x[2]]})
        pq.write_table(pa.table(columns), path)
    return path


@pytest.mark.parametrize("ids", [True, False])
def test_every_file_format_reads_the_same_matrix(tmp_path: Path, ids: bool) -> None:
    x = _matrix()
    spell = {0: "false", 1: "TRUE"}
    read = []
    for name in ("m.csv", "m.tsv", "m.jsonl", "m.parquet"):
        path = _write(tmp_path / name, x, ids=ids, spell=spell if name != "m.csv" else None)
        m = read_matrix(path, id_column="item" if ids else None)
        assert m.format == {".tsv": "csv"}.get(path.suffix, path.suffix[1:])
        assert m.names == tuple(NAMES)
        assert m.correct.dtype == np.int8
        np.testing.assert_array_equal(m.correct, x)
        expected = [f"q{j}" for j in range(x.shape[1])] if ids else list(range(1, 61))
        assert m.items.tolist() == expected
        read.append(m)
    # detection by content, not by extension
    odd = tmp_path / "matrix.data"
    odd.write_bytes((tmp_path / "m.jsonl").read_bytes())
    assert read_matrix(odd, id_column="item" if ids else None).format == "jsonl"
    odd.write_bytes((tmp_path / "m.parquet").read_bytes())
    assert read_matrix(odd, id_column="item" if ids else None).format == "parquet"


@pytest.mark.parametrize("name,sep", [("m.csv", ";"), ("m.csv", "|"), ("m.tab", "\t"),
                                      ("m.csv", "\t")])
def test_csv_dialects_are_the_run_readers(tmp_path: Path, name: str, sep: str) -> None:
    # The delimiters a run file may use (mcnemar.io._run.csv_delimiter) work for a matrix too:
    # the same items and outcomes as with commas, and a run file of the same dialect agrees.
    x = _matrix(n=12)
    comma = read_matrix(_write(tmp_path / "comma.csv", x), id_column="item")
    path = tmp_path / name
    path.write_text((tmp_path / "comma.csv").read_text().replace(",", sep))
    m = read_matrix(path, id_column="item")
    assert m.names == tuple(NAMES) and m.items.tolist() == comma.items.tolist()
    np.testing.assert_array_equal(m.correct, comma.correct)
    run = tmp_path / f"run{path.suffix}"
    run.write_text(f"id{sep}score\n" + "".join(f"q{j}{sep}{v}\n" for j, v in enumerate(x[0])))
    assert read_run(run).scores.tolist() == x[0].astype(float).tolist()


CELLS = ["1", "0", "1.0", "0.0", "true", "false", "TRUE", "FALSE", "True", "yes", "no", "Yes",
         "NO", "YES", " 1 ", "1e0", "+1", "-0", "2", "0.5", "-1", "t", "f", "y", "n", "",
         "nan", "inf", "pass", "C", "１"]


@pytest.mark.parametrize("cell", CELLS)
def test_truth_values_are_the_run_readers(tmp_path: Path, cell: str) -> None:
    matrix = tmp_path / "m.csv"
    matrix.write_text(f"a,b\n{cell},1\n")
    try:
        expected = score_to_float(cell)
    except ValueError:
        expected = None
    run = tmp_path / "run.csv"
    run.write_text(f"id,score\nq1,{cell}\n")
    try:
        from_run: float | None = float(read_run(run).scores[0])
    except McNemarError:
        from_run = None
    if from_run is not None and math.isnan(from_run):
        from_run = None
    assert from_run == expected  # the run reader and score_to_float agree
    if expected in (0.0, 1.0):
        assert read_matrix(matrix).correct[:, 0].tolist() == [int(expected), 1]
    else:
        with pytest.raises(InputFileError, match=r"line 2: column 'a' has .*; every model "
                                                 r"column must hold 0/1"):
            read_matrix(matrix)


def test_a_fixed_list_of_spellings(tmp_path: Path) -> None:
    # a fixed list as well, so that a change of the shared rule shows here
    path = tmp_path / "m.csv"
    path.write_text("a,b,c,d,e,f,g\n1,TRUE,yes,No,false,1.0,0\n")
    assert read_matrix(path).correct[:, 0].tolist() == [1, 1, 1, 0, 0, 1, 0]
    for cell in ("2", "0.5", "t", "y", "", "none"):
        path.write_text(f"a,b\n{cell},1\n")
        with pytest.raises(InputFileError, match=f"column 'a' has '{cell}'"):
            read_matrix(path)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("e.csv", "", "the file is empty"),
        ("h.csv", "a,b\n", "header but no items"),
        ("v.csv", "a,b\n1,0\n1,2\n", "line 3: column 'b' has '2'"),
        ("n.csv", "a,b\n1,0\n1\n", "line 3: expected 2 values"),
        ("o.csv", "a,b\n1,0\n1,x\ny,1\n", "line 3: column 'b' has 'x'"),  # first in the file
        ("u.jsonl", '{"a": 1, "b": 0}\n{"a": [1], "b": 0}\n', "line 2: column 'a' has [1]"),
        ("d.csv", "a,a\n1,0\n", "'a' appear more than once"),
        ("i.csv", "id,a\nq1,1\nq1,0\n", "line 3: item id 'q1' repeats (first at line 2)"),
        ("b.csv", "id,a\nq1,1\n,0\n", "line 3: column 'id' has no item id"),
        ("k.jsonl", '{"a": 1, "b": 0}\n{"a": 1}\n', "line 2: record does not have the keys "
                                                     "of the first record (no 'b')"),
        ("x.jsonl", '{"a": 1, "b": 0}\n{"a": 1, "b": 0, "c": 1}\n', "(also 'c')"),
        ("l.jsonl", '{"a": 1, "b": null}\n', "line 1: column 'b' has None"),
        ("t.jsonl", '{"a": 1, "b": 0}\n{"a": 1, "b": 0\n', "line 2: line is not valid JSON"),
        ("s.jsonl", '{"a": 1}\n[1]\n', "line 2: expected a JSON object"),
    ],
)
def test_bad_files(tmp_path: Path, name: str, content: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InputFileError) as info:
        read_matrix(path, id_column="id" if name in ("i.csv", "b.csv") else None)
    assert message in str(info.value) and str(path) in str(info.value)


def test_parquet_refusals_name_the_row(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "m.parquet"
    pq.write_table(pa.table({"a": [1, 0, 3], "b": [1, None, 0]}), path)
    with pytest.raises(InputFileError, match=r"row 2: column 'b' has None; "):
        read_matrix(path)


def test_options_are_checked(tmp_path: Path) -> None:
    path = tmp_path / "m.csv"
    path.write_text("a,b\n1,0\n")
    with pytest.raises(InputFileError, match="id_column 'x' is not a column"):
        read_matrix(path, id_column="x")
    with pytest.raises(McNemarError, match="format='xml' is not a matrix format"):
        read_matrix(path, format="xml")
    with pytest.raises(InputFileError, match="cannot open the file"):
        read_matrix(tmp_path / "missing.csv")
    with pytest.raises(InputFileError, match="a directory"):
        read_matrix(tmp_path)
