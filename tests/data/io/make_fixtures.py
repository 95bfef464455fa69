"""Write the small fixture files of every input format used by tests/test_io_*.py.

Run from the repository root: ``python tests/data/io/make_fixtures.py``. The files mimic the
field layout each tool writes (see docs/inputs.md for the sources); the outcomes are chosen
by hand so that the expected tables are easy to check:

* lm-eval, OpenAI evals, HELM, generic CSV/JSONL: 6 items q0..q5,
  A passes q0 q1 q2 q3, B passes q0 q1 q4  ->  a=2 (q0,q1), b=2 (q2,q3), c=1 (q4), d=1 (q5).
* Inspect: 4 samples x 2 epochs, see INSPECT_A / INSPECT_B below.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

HERE = Path(__file__).parent
A_PASS = {0, 1, 2, 3}
B_PASS = {0, 1, 4}
DATE_A = "2026-01-02T10-00-00.123456"
DATE_B = "2026-01-03T11-30-00.654321"


def jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def lm_eval_record(doc_id: int, passed: bool, filter_name: str = "none") -> dict:
    return {
        "doc_id": doc_id,
        "doc": {"id": f"Mercury_{doc_id}", "question": f"Question {doc_id}?",
                "choices": {"text": ["x", "y"], "label": ["A", "B"]}, "answerKey": "A",
                "topic": "physics" if doc_id % 2 else "biology"},
        "target": "0",
        "arguments": {"gen_args_0": {"arg_0": f"Question: Question {doc_id}?\nAnswer:",
                                     "arg_1": " x"},
                      "gen_args_1": {"arg_0": f"Question: Question {doc_id}?\nAnswer:",
                                     "arg_1": " y"}},
        "resps": [[["-1.5", False]], [["-2.5", False]]],
        "filtered_resps": [["-1.5", False], ["-2.5", False]],
        "filter": filter_name,
        "metrics": ["acc", "acc_norm"],
        "doc_hash": f"{doc_id:064x}",
        "prompt_hash": f"{doc_id + 1000:064x}",
        "target_hash": f"{0:064x}",
        "acc": 1.0 if passed else 0.0,
        "acc_norm": 1.0 if passed and doc_id != 0 else 0.0,
    }


def lm_eval() -> None:
    for folder, date, passes, model in (("lmeval_a", DATE_A, A_PASS, "org/model-new"),
                                        ("lmeval_b", DATE_B, B_PASS, "org/model-old")):
        d = HERE / folder / model.replace("/", "__")
        jsonl(d / f"samples_arc_easy_{date}.jsonl",
              [lm_eval_record(i, i in passes) for i in range(6)])
        (d / f"results_{date}.json").write_text(json.dumps({
            "results": {"arc_easy": {"alias": "arc_easy", "acc,none": len(passes) / 6,
                                     "acc_stderr,none": "N/A"}},
            "model_name": model, "model_name_sanitized": model.replace("/", "__"),
            "config": {"model": "hf", "model_args": f"pretrained={model}"},
            "date": 1767348000.0,
        }, indent=2))
    # several filters in one file (one record per doc per filter)
    rows = []
    for i in range(4):
        rows.append(lm_eval_record(i, i < 2, "score-first"))
        rows.append(lm_eval_record(i, i < 3, "maj@8"))
    jsonl(HERE / "lmeval_filters" / f"samples_gsm8k_cot_self_consistency_{DATE_A}.jsonl", rows)
    # malformed: a truncated last line, and a doc_id of the wrong type
    good = "".join(json.dumps(lm_eval_record(i, True)) + "\n" for i in range(3))
    (HERE / "malformed").mkdir(exist_ok=True)
    (HERE / "malformed" / f"samples_arc_easy_{DATE_A}.jsonl").write_text(
        good + json.dumps(lm_eval_record(3, True))[:80])
    bad = lm_eval_record(1, True)
    bad["doc_id"] = [1]
    jsonl(HERE / "malformed" / f"samples_wrongtype_{DATE_A}.jsonl",
          [lm_eval_record(0, True), bad])


# Inspect: sample id -> per-epoch grades.
INSPECT_A = {1: ["C", "C"], 2: ["C", "I"], 3: ["P", "I"], "q-4": ["I", "I"]}
INSPECT_B = {1: ["C", "I"], 2: ["I", "I"], 3: ["C", "C"], "q-4": ["I", "C"]}


def inspect_sample(sid: object, epoch: int, grade: str, with_events: bool = True) -> dict:
    sample = {
        "id": sid, "epoch": epoch, "input": f"What is {sid}?", "target": "A",
        "metadata": {"document": f"doc-{str(sid)[-1]}"},
        "scores": {"match": {"value": grade, "answer": "A", "explanation": "compared"}},
        "model_usage": {}, "total_time": 1.5, "working_time": 1.2, "uuid": f"u{sid}{epoch}",
    }
    if with_events:
        sample["messages"] = [{"role": "user", "content": f"What is {sid}?"},
                              {"role": "assistant", "content": "A"}]
        sample["events"] = []
    return sample


def inspect_header(model: str, n: int) -> dict:
    return {
        "version": 2, "status": "success",
        "eval": {"run_id": "run1", "eval_id": "ev1", "task": "popularity", "task_id": "t1",
                 "model": model, "dataset": {"name": "pop", "samples": n},
                 "created": "2026-01-02T10:00:00+00:00", "config": {"epochs": 2}},
        "plan": {"name": "plan", "steps": []},
        "results": {"total_samples": n, "completed_samples": n,
                    "scores": [{"name": "match", "scorer": "match", "reducer": "mean",
                                "metrics": {"accuracy": {"name": "accuracy", "value": 0.5}}}]},
        "stats": {"started_at": "2026-01-02T10:00:00+00:00"},
    }


def inspect() -> None:
    d = HERE / "inspect"
    d.mkdir(exist_ok=True)
    for name, grades, model in (("a", INSPECT_A, "openai/model-new"),
                                ("b", INSPECT_B, "openai/model-old")):
        samples = [inspect_sample(sid, e + 1, g) for sid, gs in grades.items()
                   for e, g in enumerate(gs)]
        with zipfile.ZipFile(d / f"{name}.eval", "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("_journal/start.json", json.dumps({"version": 2, "eval": {}}))
            z.writestr("header.json", json.dumps(inspect_header(model, len(grades))))
            for s in samples:
                z.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json", json.dumps(s))
            z.writestr("summaries.json", json.dumps(
                [{k: v for k, v in s.items() if k not in ("messages", "events")}
                 for s in samples]))
            z.writestr("reductions.json", json.dumps([]))
        log = inspect_header(model, len(grades))
        log["samples"] = samples
        (d / f"{name}.json").write_text(json.dumps(log, indent=2))
    # an archive with only summaries (no per-sample entries), and one without a header
    with zipfile.ZipFile(d / "summaries_only.eval", "w") as z:
        z.writestr("header.json", json.dumps(inspect_header("openai/model-new", 4)))
        z.writestr("summaries.json", json.dumps(
            [inspect_sample(sid, e + 1, g, with_events=False)
             for sid, gs in INSPECT_A.items() for e, g in enumerate(gs)]))
    with zipfile.ZipFile(HERE / "malformed" / "no_header.eval", "w") as z:
        z.writestr("samples/1_epoch_1.json", json.dumps(inspect_sample(1, 1, "C")))


def openai_evals() -> None:
    for name, passes, fn in (("a", A_PASS, "gpt-new"), ("b", B_PASS, "gpt-old")):
        rows: list[dict] = [{"spec": {"completion_fns": [fn], "eval_name": "arith.dev.v0",
                                      "base_eval": "arith", "split": "dev",
                                      "run_config": {"seed": 20220722},
                                      "created_by": "", "run_id": f"run{name}",
                                      "created_at": "2026-01-02 10:00:00.000000"}}]
        event = 0
        for i in range(6):
            sid = f"arith.dev.{i}"
            rows.append({"run_id": f"run{name}", "event_id": event, "sample_id": sid,
                         "type": "sampling", "data": {"prompt": f"{i}+1=", "sampled": ["x"]},
                         "created_by": "", "created_at": "2026-01-02 10:00:01.000000+00:00"})
            event += 1
            rows.append({"run_id": f"run{name}", "event_id": event, "sample_id": sid,
                         "type": "match",
                         "data": {"correct": i in passes, "expected": [str(i + 1)],
                                  "picked": str(i + 1) if i in passes else None,
                                  "sampled": "x"},
                         "created_by": "", "created_at": "2026-01-02 10:00:01.000000+00:00"})
            event += 1
        rows.append({"final_report": {"accuracy": len(passes) / 6}})
        jsonl(HERE / "openai_evals" / f"{name}.jsonl", rows)


def helm() -> None:
    for name, passes, model in (("a", A_PASS, "openai/model-new"),
                                ("b", B_PASS, "openai/model-old")):
        d = HERE / "helm" / f"mmlu_{name}"
        d.mkdir(parents=True, exist_ok=True)
        entries = []
        for i in range(6):
            for pert in (None, {"name": "robustness", "robustness": True}):
                passed = (i in passes) if pert is None else (i % 2 == 0)
                stats = [
                    {"name": {"name": "exact_match", "split": "test",
                              **({"perturbation": pert} if pert else {})},
                     "count": 1, "sum": float(passed), "sum_squared": float(passed),
                     "min": float(passed), "max": float(passed), "mean": float(passed),
                     "variance": 0.0, "stddev": 0.0},
                    {"name": {"name": "num_prompt_tokens", "split": "test"}, "count": 1,
                     "sum": 120.0, "sum_squared": 14400.0, "min": 120.0, "max": 120.0,
                     "mean": 120.0, "variance": 0.0, "stddev": 0.0},
                ]
                entries.append({"instance_id": f"id{i}", "perturbation": pert,
                                "train_trial_index": 0, "stats": stats})
        (d / "per_instance_stats.json").write_text(json.dumps(entries, indent=2))
        (d / "run_spec.json").write_text(json.dumps(
            {"name": f"mmlu:subject=anatomy,model={model}",
             "adapter_spec": {"method": "multiple_choice_joint", "model": model,
                              "model_deployment": model}}, indent=2))


def generic() -> None:
    d = HERE / "generic"
    d.mkdir(exist_ok=True)
    order_b = [5, 3, 1, 0, 4, 2]  # B's file lists the items in another order
    (d / "a.csv").write_text("id,score,topic\n" + "".join(
        f"q{i},{int(i in A_PASS)},{'t' + str(i % 2)}\n" for i in range(6)))
    (d / "b.csv").write_text("id,score,topic\n" + "".join(
        f"q{i},{'true' if i in B_PASS else 'false'},{'t' + str(i % 2)}\n" for i in order_b))
    jsonl(d / "a.jsonl", [{"item_id": f"q{i}", "correct": i in A_PASS} for i in range(6)])
    jsonl(d / "b.jsonl", [{"item_id": f"q{i}", "correct": i in B_PASS} for i in order_b])
    (d / "long.csv").write_text("model,question_id,score\n" + "".join(
        f"{m},q{i},{int(i in p)}\n" for m, p in (("new", A_PASS), ("old", B_PASS))
        for i in range(6)))
    (d / "probs.csv").write_text("id,score\n" + "".join(
        f"q{i},{0.9 if i in A_PASS else 0.2}\n" for i in range(6)))
    labels = ["cat", "dog", "cat", "bird", "dog", "cat"]
    (d / "labels.csv").write_text("id,label\n" + "".join(
        f"{i},{lab}\n" for i, lab in enumerate(labels)))
    (d / "pred_a.csv").write_text("id,prediction\n" + "".join(
        f"{i},{lab if i in A_PASS else 'fish'}\n" for i, lab in enumerate(labels)))
    jsonl(d / "pred_b.jsonl", [{"id": i, "prediction": lab if i in B_PASS else "fish"}
                               for i, lab in enumerate(labels)])


if __name__ == "__main__":
    lm_eval()
    inspect()
    openai_evals()
    helm()
    generic()
