"""One 1,000,000-item Parquet dataset counted by every engine: pandas, polars, pyarrow,
DuckDB (as relations and through ``read_run`` on the directory), Dask on a
``distributed.LocalCluster`` and PySpark in local mode. All must give the numpy truth.

The data are generated with numpy (seeded) and written as several Parquet files per run,
with the items of run B in another order, so the join cannot rely on row order.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mcnemar.io import align, read_run
from mcnemar.io.frames import table_from_frames, table_from_long_frame

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

N = 1_000_000
FILES = 4


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, tuple[int, int, int, int]]:
    rng = np.random.default_rng(31337)
    root = tmp_path_factory.mktemp("parquet")
    correct = {"a": rng.random(N) < 0.72, "b": rng.random(N) < 0.69}
    for run, outcome in correct.items():
        (root / run).mkdir()
        order = rng.permutation(N)
        for k, part in enumerate(np.array_split(order, FILES)):
            table = pa.table({"item": part.astype(np.int64), "ok": outcome[part].astype(np.int8),
                              "model": np.full(len(part), f"model-{run}")})
            pq.write_table(table, root / run / f"part-{k}.parquet")
    ca, cb = correct["a"], correct["b"]
    truth = (int((ca & cb).sum()), int((ca & ~cb).sum()), int((~ca & cb).sum()),
             int((~ca & ~cb).sum()))
    assert sum(truth) == N
    return root, truth


def cells(table: Any) -> tuple[int, int, int, int]:
    return (int(table.a), int(table.b), int(table.c), int(table.d))


def test_pandas_polars_pyarrow(dataset: tuple[Path, Any]) -> None:
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    root, truth = dataset
    frames = {
        "pandas": [pd.read_parquet(root / r) for r in "ab"],
        "polars": [pl.scan_parquet(str(root / r / "*.parquet")) for r in "ab"],
        "pyarrow": [pq.read_table(root / r) for r in "ab"],
    }
    for name, (fa, fb) in frames.items():
        table, summary = table_from_frames(fa, fb, id="item", score="ok")
        assert cells(table) == truth, name
        assert summary.matched == N


def test_duckdb_relations_and_deferred_files(dataset: tuple[Path, Any]) -> None:
    duckdb = pytest.importorskip("duckdb")
    root, truth = dataset
    con = duckdb.connect()
    fa, fb = (con.read_parquet(str(root / r / "*.parquet")) for r in "ab")
    table, _ = table_from_frames(fa, fb, id="item", score="ok")
    assert cells(table) == truth
    run_a, run_b = read_run(root / "a", score="ok"), read_run(root / "b", score="ok")
    assert run_a.deferred and run_a.records == N
    alignment = align(run_a, run_b)
    assert alignment.counts == truth and alignment.summary.engine == "duckdb"


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:The inplace keyword")  # inside dask's parquet reader
def test_dask_on_a_local_cluster(dataset: tuple[Path, Any]) -> None:
    dd = pytest.importorskip("dask.dataframe")
    distributed = pytest.importorskip("distributed")
    root, truth = dataset
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster), warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # narwhals' note on its Dask plugin
        fa, fb = dd.read_parquet(str(root / "a")), dd.read_parquet(str(root / "b"))
        assert fa.npartitions >= 2
        table, summary = table_from_frames(fa, fb, id="item", score="ok")
    assert cells(table) == truth
    assert summary.engine == "dask"


@pytest.mark.spark
@pytest.mark.slow
def test_pyspark_local(dataset: tuple[Path, Any], spark: Any) -> None:
    root, truth = dataset
    fa, fb = spark.read.parquet(str(root / "a")), spark.read.parquet(str(root / "b"))
    table, summary = table_from_frames(fa, fb, id="item", score="ok")
    assert cells(table) == truth
    assert summary.engine == "pyspark"
    # One long frame holding both runs: split by the run column inside Spark.
    long = spark.read.parquet(str(root / "a"), str(root / "b"))
    table_long, summary_long = table_from_long_frame(long, id="item", run="model", score="ok")
    assert cells(table_long) == truth
    assert (summary_long.run_a.name, summary_long.run_b.name) == ("model-a", "model-b")
