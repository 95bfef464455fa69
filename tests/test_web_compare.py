"""The upload (``POST /api/v1/compare``) goes through the library's pipeline.

Reference: :func:`mcnemar.pipeline.compare_runs` on the same files (what ``mcnemar compare``
prints as JSON): the web's report must equal it key for key, with the clustered analysis when
the files carry a cluster field (``cluster``). The clustered statistic itself is checked against the
definition by :mod:`tests.test_clustering` and the pipeline's own tests; here only the
plumbing is. The menus and the OpenAPI schema list the vocabulary's choices.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's test client warns about its httpx backend
    from fastapi.testclient import TestClient

from mcnemar import vocabulary
from mcnemar.pipeline import compare_runs, read_runs
from mcnemar.web.app import _load_page, create_app
from mcnemar.web.compare import WEB_FLIPS

CLIENT = TestClient(create_app(cache_size=0))


def _clustered_files(tmp_path: Path) -> tuple[Path, Path]:
    """80 items in 20 clusters of 4 (the column "passage"); A right on 2 of 3, B on 1 of 5."""
    a = tmp_path / "a.csv"
    b = tmp_path / "b.csv"
    a.write_text("id,correct,passage\n"
                 + "".join(f"q{i},{int(i % 3 != 0)},p{i // 4}\n" for i in range(80)))
    b.write_text("id,correct,passage\n"
                 + "".join(f"q{i},{int(i % 5 == 0)},p{i // 4}\n" for i in range(80)))
    return a, b


def _upload(a: Path, b: Path, **fields: str) -> Any:
    files = {"file_a": (a.name, a.read_bytes(), "text/csv"),
             "file_b": (b.name, b.read_bytes(), "text/csv")}
    return CLIENT.post("/api/v1/compare", files=files, data=fields)


def _without_paths(report: dict[str, Any]) -> dict[str, Any]:
    # The web names the files as uploaded, the library by their paths: compare the rest.
    out = dict(report)
    alignment = dict(out.pop("alignment"))
    runs = alignment.pop("runs")
    return {**out, "alignment": alignment,
            "runs": {k: {f: v for f, v in run.items() if f != "path"} for k, run in runs.items()}}


@pytest.mark.parametrize("method", ["obuchowski", "durkalski"])
def test_an_upload_with_clusters_is_the_pipelines_clustered_report(
    tmp_path: Path, method: str
) -> None:
    a, b = _clustered_files(tmp_path)
    response = _upload(a, b, cluster="passage", cluster_method=method,
                       name_a="candidate", name_b="baseline")
    assert response.status_code == 200, response.text
    got = response.json()
    run_a, run_b = read_runs([a, b], cluster="passage")
    expected = compare_runs(run_a, run_b, cluster_method=method, flips=WEB_FLIPS,
                            names=("candidate", "baseline")).to_dict()
    assert _without_paths(got) == _without_paths(expected)
    # The page lists the first WEB_FLIPS items of each side that flipped; the counts are b, c.
    assert got["flips"]["a_only"]["count"] == got["table"]["b"] == 43
    assert len(got["flips"]["a_only"]["items"]) == min(WEB_FLIPS, 43)
    assert "Items that flipped" not in got.get("markdown", "")
    # The clustered test is the recommended one, and its interval the headline's.
    assert got["recommended"]["test"] == "clustered"
    assert got["tests"]["clustered"]["recommended"] is True
    assert got["difference"]["recommended_interval"] == "clustered"
    assert got["clustered"]["clusters"] == 20 and got["clustered"]["method"] == method
    ci = got["clustered"]["confidence_interval"]
    assert ci["low"] < got["difference"]["estimate"] < ci["high"]


def test_without_the_cluster_field_the_upload_is_not_clustered(tmp_path: Path) -> None:
    a, b = _clustered_files(tmp_path)
    got = _upload(a, b).json()
    assert "clustered" not in got and got["recommended"]["test"] != "clustered"
    assert got["difference"]["recommended_interval"] == "newcombe"


def test_bad_cluster_options_name_their_field(tmp_path: Path) -> None:
    a, b = _clustered_files(tmp_path)
    response = _upload(a, b, cluster="passage", cluster_method="kmeans")
    assert response.status_code == 422
    assert response.json()["error"]["field"] == "cluster_method"
    response = _upload(a, b, cluster="x" * 201)
    assert response.status_code == 422
    assert response.json()["error"]["field"] == "cluster"


def test_the_upload_schema_and_the_menus_list_the_vocabulary() -> None:
    schema = CLIENT.get("/api/v1/openapi.json").json()
    form = schema["paths"]["/api/v1/compare"]["post"]["requestBody"]["content"][
        "multipart/form-data"]["schema"]["properties"]
    for field, terms in (("alternative", vocabulary.ALTERNATIVES),
                         ("on_missing", vocabulary.ON_MISSING),
                         ("reduce", vocabulary.REDUCE),
                         ("cluster_method", vocabulary.CLUSTERED_METHODS),
                         ("margin_method", vocabulary.MARGIN_METHODS)):
        assert form[field]["enum"] == list(vocabulary.names(terms)), field
    assert form["cluster"]["type"] == "string"
    page = _load_page(50)
    for terms in (vocabulary.ALTERNATIVES, vocabulary.MARGIN_METHODS, vocabulary.REDUCE,
                  vocabulary.CLUSTERED_METHODS):
        for term in terms:
            assert f'<option value="{term.name}">' in page, term.name
    # The JSON API's request model checks the same choices.
    for name in vocabulary.names(vocabulary.ALTERNATIVES):
        assert CLIENT.post("/api/v1/analyze", json={"b": 1, "c": 2,
                                                    "alternative": name}).status_code == 200


def _task_files(tmp_path: Path) -> tuple[Path, Path]:
    """Three tasks of 30 items each, ids repeated across tasks (the task column tells them
    apart); A is worse on t2."""
    a = tmp_path / "a.csv"
    b = tmp_path / "b.csv"
    rows = [(f"t{t}", f"q{i}") for t in range(3) for i in range(30)]
    a.write_text("task,id,correct\n" + "".join(
        f"{t},{q},{int(t != 't2' and int(q[1:]) % 4 != 0)}\n" for t, q in rows))
    b.write_text("task,id,correct\n" + "".join(
        f"{t},{q},{int(int(q[1:]) % 3 != 0)}\n" for t, q in rows))
    return a, b


def test_files_of_several_tasks_are_compared_task_by_task(tmp_path: Path) -> None:
    """Reference: compare_runs(by_task=True) on the same files read with the composite id."""
    from mcnemar.io import read_run

    a, b = _task_files(tmp_path)
    response = _upload(a, b, task_column="task")
    assert response.status_code == 200, response.text
    got = response.json()
    run_a, run_b = (read_run(p, id=["task", "id"]) for p in (a, b))
    # No names typed: the files' own, as compare --by-task shows them.
    expected = compare_runs(run_a, run_b, by_task=True, task_column="task", flips=WEB_FLIPS)
    tasks = got["tasks"]
    assert tasks["names"] == {"a": "a.csv", "b": "b.csv"}
    assert tasks["schema"] == "mcnemar.tasks/1"
    want = expected.to_dict()
    assert [t["task"] for t in tasks["tasks"]] == [t["task"] for t in want["tasks"]]
    assert tasks["tasks"] == want["tasks"] and tasks["overall"] == want["overall"]
    assert tasks["flips"] == want["flips"]
    assert {f["task"] for side in ("a_only", "b_only") for f in tasks["flips"][side]["items"]} \
        == {t["task"] for t in want["tasks"] if t["table"]["b"] + t["table"]["c"]}
    assert tasks["tasks"][0]["task"] == "t2" and tasks["tasks"][0]["worse"] is True
    # The report around it is the pooled table's (the micro overall), the plot the library's.
    assert {k: got["table"][k] for k in "abcd"} == {
        k: want["overall"]["micro"]["table"][k] for k in "abcd"}
    assert got["forest_svg"] == expected.to_svg()
    assert got["forest_svg"].startswith("<svg") and "t2" in got["forest_svg"]


def test_a_bad_task_column_names_its_field(tmp_path: Path) -> None:
    a, b = _task_files(tmp_path)
    response = _upload(a, b, task_column="suite")
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["field"] == "task_column" and "suite" in error["message"]
    # Decisions of one table do not apply to a per-task comparison: the field is named.
    response = _upload(a, b, task_column="task", margin="0.01")
    assert response.status_code == 422 and response.json()["error"]["field"] == "margin"


def test_each_file_may_have_its_own_format(tmp_path: Path) -> None:
    """A CSV against a JSON Lines file, with format_b given: read by read_runs, each side in
    its own format; the table equals the one counted from the two files by hand."""
    a = tmp_path / "a.csv"
    b = tmp_path / "b.data"
    a.write_text("id,correct\nq1,1\nq2,1\nq3,0\nq4,1\nq5,0\n")
    b.write_text("".join(f'{{"id": "q{i}", "correct": {v}}}\n'
                         for i, v in zip(range(1, 6), (1, 0, 1, 0, 0), strict=True)))
    files = {"file_a": (a.name, a.read_bytes(), "text/csv"),
             "file_b": (b.name, b.read_bytes(), "application/octet-stream")}
    response = CLIENT.post("/api/v1/compare", files=files,
                           data={"format_a": "csv", "format_b": "jsonl"})
    assert response.status_code == 200, response.text
    # both right: q1; A only: q2, q4; B only: q3; neither: q5
    assert {k: response.json()["table"][k] for k in "abcd"} == {"a": 1, "b": 2, "c": 1, "d": 1}
    runs = response.json()["alignment"]["runs"]
    assert (runs["a"]["format"], runs["b"]["format"]) == ("csv", "jsonl")
    # A wrong format for one side is that side's error.
    response = CLIENT.post("/api/v1/compare", files=files,
                           data={"format_a": "csv", "format_b": "csv"})
    assert response.status_code == 422
    assert response.json()["error"]["field"] == "file_b"
