"""Run identity: what each reader records, and the checks made before two runs are paired.

Hand-made logs in the layouts of the harnesses (Inspect log schema version 2, lm-eval
``--log_samples``, OpenAI evals ``LocalRecorder``, HELM ``per_instance_stats.json``; see
the module docstrings of the readers). Every expected table is counted here from the
generated outcomes with plain Python, independently of :mod:`mcnemar.io`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcnemar.errors import AlignmentError, InputFileError, McNemarError
from mcnemar.io import align, read_run
from mcnemar.io.identity import RunIdentity, TaskIdentity, check_identities


def inspect_log(path: Path, outcomes: dict[Any, Any], *, task: str = "arith",
                scorer: str = "match", status: str = "success", model: str = "m",
                dataset: str | None = "arith_data", errored: set[Any] = frozenset(),
                inputs: dict[Any, str] | None = None) -> Path:
    """An Inspect .json log; outcomes maps sample id -> score value (None: no score)."""
    samples = []
    for sid, value in outcomes.items():
        sample: dict[str, Any] = {
            "id": sid, "epoch": 1,
            "input": (inputs or {}).get(sid, f"What is {sid} + {sid}?"),
            "target": str(2 * sid) if isinstance(sid, int) else "x",
            "scores": None if value is None else {scorer: {"value": value}},
        }
        if sid in errored:
            sample["error"] = {"message": "RuntimeError: the model failed", "traceback": ""}
        samples.append(sample)
    doc = {"version": 2, "status": status,
           "eval": {"task": task, "model": model, "dataset": {"name": dataset,
                                                              "samples": len(samples)}},
           "results": {"total_samples": len(samples)}, "samples": samples}
    if status == "error":
        doc["error"] = {"message": "KeyboardInterrupt", "traceback": ""}
    path.write_text(json.dumps(doc))
    return path


def table(a: dict[Any, int], b: dict[Any, int]) -> tuple[int, int, int, int]:
    """(a, b, c, d) of two id -> 0/1 maps over their common ids, counted directly."""
    common = [k for k in a if k in b]
    return (sum(a[k] and b[k] for k in common), sum(a[k] and not b[k] for k in common),
            sum(not a[k] and b[k] for k in common), sum(not a[k] and not b[k] for k in common))


A_OUT = {i: "C" if i % 3 else "I" for i in range(1, 41)}
B_OUT = {i: "C" if i % 4 else "I" for i in range(1, 41)}
A01 = {k: int(v == "C") for k, v in A_OUT.items()}
B01 = {k: int(v == "C") for k, v in B_OUT.items()}


# --- Inspect: tasks, scorers, status, errored samples, content ----------------------------


def test_same_task_and_scorer_pair_and_report_identity(tmp_path: Path) -> None:
    a = read_run(inspect_log(tmp_path / "a.json", A_OUT, model="new"))
    b = read_run(inspect_log(tmp_path / "b.json", B_OUT, model="old"))
    assert a.identity.task == "arith" and a.identity.scorer == "match"
    assert a.identity.status == "complete" and a.identity.errored == 0
    al = align(a, b)
    assert al.counts == table(A01, B01)
    runs = al.to_dict()["runs"]
    assert runs["a"]["task"] == "arith" and runs["b"]["scorer"] == "match"
    assert runs["a"]["status"] == "complete" and runs["a"]["errored"] == 0
    assert runs["a"]["ignored"] == []
    assert al.to_dict()["content_check"] == {"field": "input/target", "checked": 40,
                                             "differ": 0}
    assert al.warnings == ()


def test_different_tasks_are_refused_naming_both_unless_allowed(tmp_path: Path) -> None:
    a = read_run(inspect_log(tmp_path / "a.json", A_OUT))
    b = read_run(inspect_log(tmp_path / "b.json", B_OUT, task="other_task"))
    with pytest.raises(McNemarError) as info:
        align(a, b)
    text = str(info.value)
    assert "task 'arith' in A" in text and "'other_task' in B" in text
    assert "allow_different_tasks=True" in text and info.value.argument == \
        "allow_different_tasks"
    al = align(a, b, allow_different_tasks=True)
    assert al.counts == table(A01, B01)
    assert any("different tasks" in w and "allow_different_tasks" in w for w in al.warnings)


def test_different_datasets_count_as_different_tasks(tmp_path: Path) -> None:
    a = read_run(inspect_log(tmp_path / "a.json", A_OUT))
    b = read_run(inspect_log(tmp_path / "b.json", B_OUT, dataset="arith_v2"))
    with pytest.raises(McNemarError, match="dataset 'arith_data' in A and 'arith_v2' in B"):
        align(a, b)


def test_different_scorers_are_refused_unless_allowed(tmp_path: Path) -> None:
    a = read_run(inspect_log(tmp_path / "a.json", A_OUT, scorer="includes"))
    b = read_run(inspect_log(tmp_path / "b.json", B_OUT, scorer="match"))
    with pytest.raises(McNemarError) as info:
        align(a, b)
    assert "scored by includes in A and by match in B" in str(info.value)
    assert "allow_different_scorers=True" in str(info.value)
    al = align(a, b, allow_different_scorers=True)
    assert al.counts == table(A01, B01)
    assert any("scored differently" in w for w in al.warnings)


@pytest.mark.parametrize(("status", "expected"), [("error", "error"),
                                                  ("cancelled", "cancelled"),
                                                  ("started", "unfinished")])
def test_runs_that_did_not_complete_are_named_in_the_warnings(tmp_path: Path, status: str,
                                                              expected: str) -> None:
    a = read_run(inspect_log(tmp_path / "a.json", A_OUT, status=status))
    b = read_run(inspect_log(tmp_path / "b.json", B_OUT))
    assert a.identity.status == expected
    al = align(a, b)
    assert al.to_dict()["runs"]["a"]["status"] == expected
    assert [w for w in al.warnings if "did not complete" in w] == [
        w for w in al.warnings if w.startswith("run A")]
    assert any(f"its status is {expected}" in w for w in al.warnings)


def test_unfinished_eval_archive_without_header(tmp_path: Path) -> None:
    import zipfile

    path = tmp_path / "running.eval"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("_journal/start.json", json.dumps(
            {"version": 2, "eval": {"task": "arith", "model": "m"}}))
        z.writestr("_journal/summaries/1.json", json.dumps(
            [{"id": 1, "epoch": 1, "scores": {"match": {"value": "C"}}}]))
    run = read_run(path)
    assert run.identity.status == "unfinished"


def test_errored_samples_counted_with_their_score_are_reported(tmp_path: Path) -> None:
    errored = {3, 6, 7}  # 3 and 6 scored I (failures), 7 scored C
    a = read_run(inspect_log(tmp_path / "a.json", A_OUT, errored=errored))
    b = read_run(inspect_log(tmp_path / "b.json", B_OUT))
    assert a.identity.errored == 3
    al = align(a, b)
    assert al.counts == table(A01, B01)
    run = al.to_dict()["runs"]["a"]
    assert (run["errored"], run["errored_counted"], run["errored_failed"],
            run["errored_dropped"]) == (3, 3, 2, 0)
    assert any("3 samples that errored: 3 items counted with the score the harness gave, "
               "2 of them as failures" in w for w in al.warnings)


def test_errored_samples_without_a_score_are_refused_or_dropped_visibly(
        tmp_path: Path) -> None:
    outcomes = dict(A_OUT)
    outcomes[5] = None  # errored, never scored
    a = read_run(inspect_log(tmp_path / "a.json", outcomes, errored={5}))
    b = read_run(inspect_log(tmp_path / "b.json", B_OUT))
    with pytest.raises(AlignmentError, match=r"1 item has no score .*1 of them errored"):
        align(a, b)
    al = align(a, b, on_missing="intersect")
    kept = {k: v for k, v in A01.items() if k != 5}
    assert al.counts == table(kept, B01)
    run = al.to_dict()["runs"]["a"]
    assert (run["errored"], run["errored_counted"], run["errored_dropped"]) == (1, 0, 1)
    assert any("1 sample that errored: 1 item left out of the table" in w for w in al.warnings)


def test_paired_items_must_hold_the_same_content(tmp_path: Path) -> None:
    a = read_run(inspect_log(tmp_path / "a.json", A_OUT))
    b = read_run(inspect_log(tmp_path / "b.json", B_OUT, inputs={7: "Spell 'cat'."}))
    with pytest.raises(AlignmentError) as info:
        align(a, b)
    text = str(info.value)
    assert "1 of 40 paired items differ in input/target" in text
    assert "the first is item 7" in text and "Spell 'cat'." in text
    assert "What is 7 + 7?" in text and "allow_different_tasks=True" in text
    al = align(a, b, allow_different_tasks=True)
    assert al.to_dict()["content_check"] == {"field": "input/target", "checked": 40,
                                             "differ": 1}
    assert any("1 of 40 paired items have a different input/target" in w for w in al.warnings)


def test_content_check_ignores_whitespace_and_text_past_the_summary_prefix(
        tmp_path: Path) -> None:
    long = "x" * 1200
    a = read_run(inspect_log(tmp_path / "a.json", A_OUT, inputs={1: long + "tail A"}))
    b = read_run(inspect_log(tmp_path / "b.json", B_OUT, inputs={1: long + "  tail B"}))
    assert align(a, b).counts == table(A01, B01)


# --- lm-eval: file names, doc_hash, several tasks -----------------------------------------


def lm_file(path: Path, outcomes: dict[int, float], *, metric: str = "acc",
            filters: tuple[str, ...] = ("none",), extra_metric: str | None = None,
            hash_of: Any = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for flt in filters:
        for doc, value in outcomes.items():
            record = {"doc_id": doc, "doc": {"q": doc}, "filter": flt,
                      "metrics": [metric] + ([extra_metric] if extra_metric else []),
                      metric: value,
                      "doc_hash": (hash_of or (lambda d: f"h{d:04d}"))(doc)}
            if extra_metric:
                record[extra_metric] = 1 - value
            lines.append(json.dumps(record))
    path.write_text("\n".join(lines) + "\n")
    return path


LM_A = {i: float(i % 3 != 0) for i in range(60)}
LM_B = {i: float(i % 5 != 0) for i in range(60)}


def test_renamed_lm_eval_files_pair_on_doc_id(tmp_path: Path) -> None:
    a = lm_file(tmp_path / "samples_new.jsonl", LM_A)
    b = lm_file(tmp_path / "samples_old.jsonl", LM_B)
    run_a = read_run(a)
    assert run_a.format == "lm-eval" and run_a.identity.task is None
    al = align(run_a, read_run(b))
    assert al.counts == table({k: int(v) for k, v in LM_A.items()},
                              {k: int(v) for k, v in LM_B.items()})
    # a renamed file against a file named by lm-eval (task arc_easy): still pairs
    named = lm_file(tmp_path / "x" / "samples_arc_easy_2026-01-01T00-00-00.000001.jsonl", LM_B)
    assert align(run_a, read_run(named)).counts == al.counts


def test_lm_eval_doc_hash_must_agree(tmp_path: Path) -> None:
    a = lm_file(tmp_path / "samples_new.jsonl", LM_A)
    b = lm_file(tmp_path / "samples_old.jsonl", LM_B,
                hash_of=lambda d: "changed" if d == 11 else f"h{d:04d}")
    with pytest.raises(AlignmentError, match=r"1 of 60 paired items differ in doc_hash .*"
                                             r"item \('new', 11, 'none'\): h0011 in A, "
                                             r"changed in B"):
        align(read_run(a), read_run(b))


def test_lm_eval_tasks_named_differently_are_refused(tmp_path: Path) -> None:
    a = lm_file(tmp_path / "a" / "samples_arc_easy_2026-01-01T00-00-00.000001.jsonl", LM_A)
    b = lm_file(tmp_path / "b" / "samples_hellaswag_2026-01-01T00-00-00.000001.jsonl", LM_B)
    with pytest.raises(McNemarError, match=r"task 'arc_easy' in A .* 'hellaswag' in B"):
        align(read_run(a), read_run(b))


def _task_dir(root: Path, outcomes: dict[str, dict[int, float]], date: str) -> Path:
    for task, out in outcomes.items():
        if task == "gsm8k":  # two filters, metric exact_match
            lm_file(root / f"samples_gsm8k_{date}.jsonl", out, metric="exact_match",
                    filters=("strict-match", "flexible-extract"))
        elif task == "arc_easy":  # acc and acc_norm: acc is the default
            lm_file(root / f"samples_arc_easy_{date}.jsonl", out, extra_metric="acc_norm")
        else:
            lm_file(root / f"samples_{task}_{date}.jsonl", out)
    return root


TASKS_A = {"arc_easy": LM_A, "gsm8k": {i: float(i % 2) for i in range(30)},
           "boolq": {i: float(i % 7 != 0) for i in range(25)}}
TASKS_B = {"arc_easy": LM_B, "gsm8k": {i: float(i % 3 == 0) for i in range(30)},
           "boolq": {i: float(i % 4 != 0) for i in range(25)}}


def test_several_tasks_pooled_table_is_the_sum_of_independent_per_task_tables(
        tmp_path: Path) -> None:
    da = _task_dir(tmp_path / "a", TASKS_A, "2026-01-01T00-00-00.000001")
    db = _task_dir(tmp_path / "b", TASKS_B, "2026-02-01T00-00-00.000001")
    with pytest.raises(InputFileError, match=r"several filters.*choose one with filter=NAME"):
        read_run(da)
    run_a = read_run(da, filter="strict-match")
    ident = run_a.identity
    assert [(t.name, t.scorer, t.filter) for t in ident.tasks] == [
        ("arc_easy", "acc", "none"), ("boolq", "acc", "none"),
        ("gsm8k", "exact_match", "strict-match")]
    al = align(run_a, read_run(db, filter="strict-match"))
    per_task = {t: table({k: int(v) for k, v in TASKS_A[t].items()},
                         {k: int(v) for k, v in TASKS_B[t].items()}) for t in TASKS_A}
    assert dict(al.summary.strata) == per_task
    assert al.counts == tuple(sum(c[i] for c in per_task.values()) for i in range(4))
    # each task compared on its own gives the same per-task table
    for t in TASKS_A:
        flt = "strict-match" if t == "gsm8k" else None  # a filter must exist in some task
        alone = align(read_run(da, task=t, filter=flt), read_run(db, task=t, filter=flt))
        assert alone.counts == per_task[t] and alone.summary.strata is None
    assert "Compared task by task (3 tasks" in str(al)
    assert al.to_dict()["strata"][0] == {"task": "arc_easy", **dict(zip("abcd",
                                                                        per_task["arc_easy"],
                                                                        strict=True))}


def test_task_selection_and_tasks_in_one_run_only(tmp_path: Path) -> None:
    da = _task_dir(tmp_path / "a", TASKS_A, "2026-01-01T00-00-00.000001")
    db = _task_dir(tmp_path / "b", {"arc_easy": LM_B, "boolq": TASKS_B["boolq"]},
                   "2026-02-01T00-00-00.000001")
    with pytest.raises(McNemarError, match=r"'gsm8k' only in A .*choose the tasks to compare "
                                           r"with task=NAME"):
        align(read_run(da, filter="strict-match"), read_run(db))
    chosen = ["arc_easy", "boolq"]
    al = align(read_run(da, task=chosen), read_run(db, task=chosen))
    assert [t for t, _ in al.summary.strata] == chosen
    with pytest.raises(InputFileError, match="task\\(s\\) 'nope' not in this directory"):
        read_run(da, task="nope")


def test_older_reruns_are_ignored_and_reported(tmp_path: Path) -> None:
    da = _task_dir(tmp_path / "a", {"boolq": TASKS_A["boolq"]}, "2026-01-01T00-00-00.000001")
    old = lm_file(da / "samples_boolq_2025-12-01T00-00-00.000001.jsonl", {0: 0.0})
    db = _task_dir(tmp_path / "b", {"boolq": TASKS_B["boolq"]}, "2026-02-01T00-00-00.000001")
    al = align(read_run(da), read_run(db))
    assert al.to_dict()["runs"]["a"]["ignored"] == [str(old)]
    assert any("ignored 1 file (older re-runs of the same task)" in w and str(old) in w
               for w in al.warnings)


def test_lm_eval_metric_defaults_per_task(tmp_path: Path) -> None:
    only = lm_file(tmp_path / "samples_x_2026-01-01T00-00-00.000001.jsonl", LM_A,
                   metric="exact_match")
    assert read_run(only).identity.scorer == "exact_match"  # the only metric
    two = lm_file(tmp_path / "d" / "samples_y_2026-01-01T00-00-00.000001.jsonl", LM_A,
                  metric="f1", extra_metric="em")
    with pytest.raises(InputFileError, match="several metrics \\(f1, em\\) and none is acc"):
        read_run(two)
    assert read_run(two, score="em").identity.scorer == "em"


def test_different_metrics_are_refused(tmp_path: Path) -> None:
    a = lm_file(tmp_path / "a" / "samples_arc_easy_2026-01-01T00-00-00.000001.jsonl", LM_A,
                extra_metric="acc_norm")
    b = lm_file(tmp_path / "b" / "samples_arc_easy_2026-01-02T00-00-00.000001.jsonl", LM_B,
                extra_metric="acc_norm")
    with pytest.raises(McNemarError, match=r"scored by acc_norm \(filter none\) in A and by "
                                           r"acc \(filter none\) in B"):
        align(read_run(a, score="acc_norm"), read_run(b))
    al = align(read_run(a, score="acc_norm"), read_run(b), allow_different_scorers=True)
    expected_a = {k: int(1 - v) for k, v in LM_A.items()}
    assert al.counts == table(expected_a, {k: int(v) for k, v in LM_B.items()})


# --- OpenAI evals and HELM ----------------------------------------------------------------


def test_openai_evals_unfinished_log_and_error_events(tmp_path: Path) -> None:
    lines = [{"spec": {"completion_fns": ["m"], "eval_name": "arith.dev.v0"}}]
    for i in range(5):
        lines.append({"sample_id": f"arith.dev.{i}", "type": "match", "event_id": i,
                      "data": {"correct": i % 2 == 0}})
    lines.append({"sample_id": "arith.dev.5", "type": "error", "event_id": 9,
                  "data": {"message": "timeout"}})
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    run = read_run(path)
    assert run.identity.task == "arith.dev.v0" and run.identity.scorer == "data.correct"
    assert run.identity.status == "unfinished" and run.identity.errored == 1
    path.write_text(path.read_text() + json.dumps({"final_report": {"accuracy": 0.6}}) + "\n")
    assert read_run(path).identity.status == "complete"


def test_helm_task_leaves_the_model_out_of_the_run_name() -> None:
    data = Path(__file__).parent / "data" / "io" / "helm"
    a, b = read_run(data / "mmlu_a"), read_run(data / "mmlu_b")
    assert a.identity.task == b.identity.task == "mmlu:subject=anatomy"
    assert a.identity.model == "openai/model-new"


# --- the rules on their own ---------------------------------------------------------------


def test_generic_files_have_no_identity_and_are_not_checked() -> None:
    empty = RunIdentity()
    assert check_identities(empty, empty).overridden == ()
    one = RunIdentity(tasks=(TaskIdentity(name="t", scorer="s"),))
    assert check_identities(one, empty).strata is False


def test_a_run_without_a_task_name_against_several_tasks_needs_task() -> None:
    several = RunIdentity(tasks=(TaskIdentity(name="t1"), TaskIdentity(name="t2")))
    unnamed = RunIdentity(tasks=(TaskIdentity(name=None),))
    with pytest.raises(McNemarError, match="does not say which task it holds") as info:
        check_identities(unnamed, several, path_a="renamed.jsonl")
    assert info.value.argument == "task"


def test_status_must_be_one_of_the_statuses() -> None:
    with pytest.raises(McNemarError, match="status='done' is not valid"):
        RunIdentity(status="done")


def test_the_web_upload_gets_the_same_identity_checks(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from mcnemar.web.app import create_app

    a = inspect_log(tmp_path / "a.json", A_OUT)
    b = inspect_log(tmp_path / "b.json", B_OUT, task="other_task")
    client = TestClient(create_app(), raise_server_exceptions=False)
    files = {"file_a": ("a.json", a.read_bytes()), "file_b": ("b.json", b.read_bytes())}
    response = client.post("/api/v1/compare", files=files)
    assert response.status_code == 422
    body = response.text
    assert "'arith'" in body and "'other_task'" in body and "different tasks" in body
    same = inspect_log(tmp_path / "c.json", B_OUT, status="cancelled")
    files = {"file_a": ("a.json", a.read_bytes()), "file_b": ("c.json", same.read_bytes())}
    ok = client.post("/api/v1/compare", files=files)
    assert ok.status_code == 200, ok.text
    report = ok.json()
    assert report["alignment"]["runs"]["b"]["status"] == "cancelled"
    assert any("did not complete" in w for w in report["warnings"])


def test_helm_task_is_the_scenario_with_its_arguments(tmp_path: Path) -> None:
    from mcnemar.io.helm import _task

    spec = {"name": "mmlu:subject=anatomy,method=multiple_choice_joint,model=org/m",
            "scenario_spec": {"class_name": "helm.benchmark.scenarios.mmlu_scenario.MMLUScenario",
                              "args": {"subject": "anatomy"}}}
    assert _task(spec) == "MMLUScenario:subject=anatomy"
    assert _task({"name": "mmlu:subject=anatomy,model=org/m"}) == "mmlu:subject=anatomy"
    assert _task({}) is None


def test_read_pair_gives_a_log_of_several_scorers_the_other_runs_scorer(tmp_path: Path) -> None:
    from mcnemar.io import read_pair

    def two(path: Path) -> Path:
        doc = json.loads(inspect_log(path, A_OUT).read_text())
        for sample in doc["samples"]:
            sample["scores"]["includes"] = {"value": "C"}
        path.write_text(json.dumps(doc))
        return path

    both = two(tmp_path / "both.json")
    single = inspect_log(tmp_path / "one.json", B_OUT, scorer="includes")
    a, b = read_pair(both, single)
    assert (a.identity.scorer, b.identity.scorer) == ("includes", "includes")
    a, b = read_pair(single, both)
    assert b.score_name == "includes"
    with pytest.raises(InputFileError, match="several scorers"):
        read_pair(both, both)
    other = inspect_log(tmp_path / "other.json", B_OUT, scorer="exact")
    with pytest.raises(InputFileError, match="several scorers"):
        read_pair(both, other)  # the other run's scorer is not in this log


def test_content_is_checked_only_where_both_runs_record_it(tmp_path: Path) -> None:
    a = lm_file(tmp_path / "samples_new.jsonl", LM_A)
    b = lm_file(tmp_path / "samples_old.jsonl", LM_B)
    lines = [json.loads(x) for x in b.read_text().splitlines()]
    for record in lines[:10]:
        del record["doc_hash"]  # an older lm-eval wrote no hashes
    b.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    al = align(read_run(a), read_run(b))
    assert al.to_dict()["content_check"] == {"field": "doc_hash", "checked": 50, "differ": 0}
    assert "Content (doc_hash) of 50 of 50 paired items agrees in A and B (10 others have " \
        "no doc_hash in one run)." in str(al)


def test_the_web_upload_takes_the_overrides(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from mcnemar.web.app import create_app

    a = inspect_log(tmp_path / "a.json", A_OUT)
    b = inspect_log(tmp_path / "b.json", B_OUT, task="other_task")
    client = TestClient(create_app(), raise_server_exceptions=False)
    files = {"file_a": ("a.json", a.read_bytes()), "file_b": ("b.json", b.read_bytes())}
    ok = client.post("/api/v1/compare", files=files, data={"allow_different_tasks": "true"})
    assert ok.status_code == 200, ok.text
    report = ok.json()
    assert tuple(report["table"][k] for k in "abcd") == table(A01, B01)
    assert any("different tasks" in w for w in report["warnings"])
