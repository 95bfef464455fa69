"""Write evalscope review files with ``evalscope.run_task`` itself, and their expected tables.

Pinned: evalscope 1.14.1 (Python 3.11; it does not pull torch). Run with the Python of a
virtual environment holding it (see README.md)::

    /tmp/harness-venvs/evalscope/bin/python scripts/harness_fixtures/gen_evalscope.py \
        tests/data/io/real/evalscope

Each run is ``run_task(TaskConfig(model=<ModelAPI instance>, datasets=[...],
dataset_args={<benchmark>: {"local_path": ..., "subset_list": [...]}}, work_dir=...))``: the
model is a ``ModelAPI`` subclass defined here, which reads the item number from the prompt
and answers from fixed lists of wrong items, so nothing reaches the network (the data sets
are local CSV/JSONL files in a temporary folder, the ModelScope cache points there too).
The benchmark ``general_mcq`` is run on two subsets, ``add`` and ``mul`` (15 items each),
with the English single-answer prompt (shorter lines than the default Chinese one).

Work folders written (each holds one timestamped run directory
``<YYYYMMDD_HHMMSS>/{configs/task_config.yaml, reviews/<model>/<benchmark>_<subset>.jsonl,
reports/<model>/<benchmark>.json}``; predictions, logs and the HTML report are not kept):

- ``a/``, ``b/``: systems A and B on ``general_mcq`` subsets ``add`` and ``mul``;
- ``b_errored/``: B on ``add`` with ``ignore_errors=True`` and a provider that raises on two
  items (evalscope writes no review line for them; the report counts them as errored);
- ``b_multi/``: B on ``add`` with ``extra_params.multiple_correct`` (metric
  ``multi_choice_acc``, answers as lists: JSONL data), for a scorer refusal;
- ``repeats_a/``, ``repeats_b/``: ``add`` limited to 8 items with ``repeats=2`` (each item
  answered twice: ``group_id`` is the item, ``generation_index`` the answer);
- ``qa_a/``: A on ``general_qa`` (graded ``BLEU``/``Rouge`` values, ``main_score_name``
  ``Rouge-L-R``).

The expected tables in ``expected.json`` are counted from the review files with plain
``json`` (``sample_score.group_id`` and ``sample_score.score.value``), never with mcnemar.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _expected import paired_table
from _paths import output_folder, strip_prefixes

N = 15
SUBSETS = ("add", "mul")
#: (subset, item) answered wrongly by each system.
WRONG = {
    "a": {("add", 2), ("add", 5), ("add", 9), ("add", 12), ("mul", 1), ("mul", 4), ("mul", 7),
          ("mul", 11), ("mul", 14)},
    "b": {("add", 3), ("add", 5), ("add", 8), ("add", 10), ("add", 13), ("mul", 2), ("mul", 4),
          ("mul", 6), ("mul", 9), ("mul", 12), ("mul", 13)},
}
#: Items on which B's provider raises in the ``b_errored`` run.
RAISES = {("add", 1), ("add", 6)}
#: (item, generation) answered wrongly in the repeats runs (8 items, 2 generations).
WRONG_REPEATS = {"a": {(1, 0), (1, 1), (4, 1), (6, 0)},
                 "b": {(2, 0), (2, 1), (4, 0), (4, 1), (5, 1), (7, 0)}}
QA_ITEMS = 8


def _question(subset: str, i: int) -> tuple[str, int]:
    x, y = 3 * i + 2, i % 5 + 2
    if subset == "add":
        return f"#{i}: What is {x} + {y}?", x + y
    return f"#{i}: What is {x} * {y}?", x * y


def _choices(answer: int, i: int) -> tuple[list[int], str]:
    """Four options, the right one at position i % 4."""
    pos = i % 4
    options = [answer + k - pos for k in range(4)]
    options = [o if o != answer or k == pos else answer + 10 for k, o in enumerate(options)]
    return options, "ABCD"[pos]


def _write_data(root: Path) -> None:
    mcq, multi, qa = root / "mcq", root / "mcq_multi", root / "qa"
    for d in (mcq, multi, qa):
        d.mkdir(parents=True)
    for subset in SUBSETS:
        rows = ["id,question,A,B,C,D,answer"]
        lines = []
        for i in range(N):
            q, ans = _question(subset, i)
            options, letter = _choices(ans, i)
            rows.append(",".join([str(i), q, *map(str, options), letter]))
            lines.append(json.dumps({"id": i, "question": q,
                                     **dict(zip("ABCD", map(str, options), strict=True)),
                                     "answer": [letter]}))
        (mcq / f"{subset}_val.csv").write_text("\n".join(rows) + "\n")
        (multi / f"{subset}_val.jsonl").write_text("\n".join(lines) + "\n")
    with (qa / "default_test.jsonl").open("w") as f:
        for i in range(QA_ITEMS):
            q, ans = _question("add", i)
            f.write(json.dumps({"question": q + " Answer with the number only.",
                                "answer": f"The answer is {ans}"}) + "\n")


def _scripted_model(name: str, system: str, *, raises: bool = False,
                    repeats: bool = False, exit_after: int | None = None) -> Any:
    """A ModelAPI answering from the prompt: right unless the item is on the wrong list."""
    from evalscope.api.model import ModelAPI, ModelOutput

    class Scripted(ModelAPI):
        seen: dict[str, int]

        def generate(self, input, tools, tool_choice, config):  # type: ignore[no-untyped-def]
            text = input[-1].text
            m = re.search(r"#(\d+): What is (\d+) ([+*]) (\d+)\?", text)
            assert m is not None, text
            i, x, op, y = int(m[1]), int(m[2]), m[3], int(m[4])
            subset = "add" if op == "+" else "mul"
            answer = x + y if op == "+" else x * y
            if "Answer with the number only" in text:  # general_qa
                wrong = (subset, i) in WRONG[system]
                return ModelOutput.from_content(
                    model=self.model_name,
                    content=f"The answer is {answer + 1 if wrong else answer}")
            generation = self.seen.get(text, 0)
            self.seen[text] = generation + 1
            if exit_after is not None and sum(self.seen.values()) > exit_after:
                time.sleep(1)  # let the reviews of the answers given so far be written
                os._exit(1)  # the process dies mid-run, as when it is killed
            if raises and (subset, i) in RAISES:
                raise RuntimeError("scripted provider error")
            wrong = ((i, generation) in WRONG_REPEATS[system] if repeats
                     else (subset, i) in WRONG[system])
            letters = re.findall(r"^([A-D])\) (\d+)$", text, flags=re.M)
            right = next(letter for letter, value in letters if int(value) == answer)
            given = "ABCD"[("ABCD".index(right) + 1) % 4] if wrong else right
            return ModelOutput.from_content(model=self.model_name, content=f"ANSWER: {given}")

    model = Scripted(name)
    model.seen = {}
    return model


def _run(work: Path, tmp: Path, system: str, *, benchmark: str = "general_mcq",
         subsets: tuple[str, ...] = SUBSETS, data: str = "mcq", **options: Any) -> Path:
    from evalscope import TaskConfig, run_task
    from evalscope.utils.multi_choices import MultipleChoiceTemplate

    extra = options.pop("extra_params", None)
    args: dict[str, Any] = {"local_path": str(tmp / "data" / data),
                            "subset_list": list(subsets)}
    if benchmark == "general_mcq":
        args["prompt_template"] = MultipleChoiceTemplate.SINGLE_ANSWER
        if extra:
            args["extra_params"] = extra
    model = _scripted_model(f"system-{system}", system, raises=options.pop("raises", False),
                            repeats=options.get("repeats", 1) > 1,
                            exit_after=options.pop("exit_after", None))
    run_task(TaskConfig(model=model, datasets=[benchmark], dataset_args={benchmark: args},
                        work_dir=str(work), dataset_dir=str(tmp / "cache"),
                        eval_batch_size=1, **options))
    (stamp,) = [d for d in work.iterdir() if d.is_dir()]
    return stamp


def _keep_reader_files(stamp: Path) -> None:
    """Drop what a reader does not need: predictions, logs, the HTML report."""
    for name in ("predictions", "logs"):
        shutil.rmtree(stamp / name, ignore_errors=True)
    (stamp / "reports" / "report.html").unlink(missing_ok=True)


def reviews(path: Path) -> dict[Any, dict[str, Any]]:
    """(group_id, generation_index) -> the review's score of one reviews file (plain json)."""
    out: dict[Any, dict[str, Any]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        s = record["sample_score"]
        key = (s["group_id"], s["generation_index"])
        assert key not in out
        out[key] = s["score"]
    return out


def outcomes(path: Path, *, generation: int | None = 0) -> dict[Any, float]:
    """group_id -> the value of the review's ``main_score_name`` (one generation), or
    (group_id, generation) -> that value."""
    out = {}
    for (group, gen), score in reviews(path).items():
        value = float(score["value"][score["main_score_name"]])
        if generation is None:
            out[(group, gen)] = value
        elif gen == generation:
            out[group] = value
    return out


def _review_files(model_dir: Path) -> dict[str, Path]:
    """Task -> reviews file: the published ``<benchmark>_<subset>.jsonl`` files, else the
    ``<benchmark>_<subset>.jsonl.rerun-<uuid>`` file evalscope writes while scoring a subset
    (and renames to the published name when the subset is done)."""
    files = {f.stem: f for f in sorted(model_dir.glob("*.jsonl"))}
    for f in sorted(model_dir.glob("*.jsonl.rerun-*")):
        files.setdefault(f.name.split(".jsonl.rerun-")[0], f)
    return dict(sorted(files.items()))


def _review_file(out: Path, work: str, benchmark: str, subset: str) -> Path:
    (stamp,) = [d for d in (out / work).iterdir() if d.is_dir()]
    (model,) = [d for d in (stamp / "reviews").iterdir() if d.is_dir()]
    return _review_files(model)[f"{benchmark}_{subset}"]


def _rel(out: Path, p: Path) -> str:
    return p.relative_to(out).as_posix()


def _run_facts(out: Path, work: str) -> dict[str, Any]:
    """The facts of a work folder's run, from its files (plain json)."""
    (stamp,) = [d for d in (out / work).iterdir() if d.is_dir()]
    (model_dir,) = [d for d in (stamp / "reviews").iterdir() if d.is_dir()]
    tasks, records, metrics = [], 0, set()
    published = True
    for task, f in _review_files(model_dir).items():
        tasks.append(task)
        published = published and f.suffix == ".jsonl"
        for score in reviews(f).values():
            records += 1
            metrics.add(score["main_score_name"])
    errored, requested, benchmarks = 0, 0, []
    for report in sorted((stamp / "reports" / model_dir.name).glob("*.json")):
        summary = json.loads(report.read_text())["execution_summary"]
        errored += summary["errored"]
        requested += summary["requested"]
        benchmarks.append(report.stem)
    # evalscope writes a benchmark's report when it has scored all of it.
    finished = published and all(any(t.startswith(b + "_") for b in benchmarks)
                                 for t in tasks)
    (metric,) = metrics
    return {"format": "evalscope", "run": _rel(out, stamp),
            "task": tasks[0] if len(tasks) == 1 else None, "tasks": tasks,
            "model": model_dir.name, "scorer": metric, "records": records,
            "status": "complete" if finished else "unfinished", "errored": errored,
            "expected": requested if finished else None, "ignored": []}


def main() -> None:
    out = output_folder(__doc__ or "")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        os.environ.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
                          MODELSCOPE_CACHE=str(tmp / "cache"), HF_HOME=str(tmp / "hf"),
                          NLTK_DATA=str(tmp / "nltk"), HOME=str(tmp / "home"),
                          DO_NOT_TRACK="1")
        _write_data(tmp / "data")
        runs = [
            ("a", "a", {}), ("b", "b", {}),
            ("b_errored", "b", {"subsets": ("add",), "raises": True, "ignore_errors": True}),
            ("b_multi", "b", {"subsets": ("add",), "data": "mcq_multi",
                              "extra_params": {"multiple_correct": True}}),
            ("repeats_a", "a", {"subsets": ("add",), "repeats": 2, "limit": 8}),
            ("repeats_b", "b", {"subsets": ("add",), "repeats": 2, "limit": 8}),
            ("qa_a", "a", {"benchmark": "general_qa", "subsets": ("default",), "data": "qa"}),
        ]
        for work, system, options in runs:
            _keep_reader_files(_run(out / work, tmp, system, **options))
        # A run that dies after 8 answers: its reviews so far, the config, no report.
        child = multiprocessing.get_context("fork").Process(
            target=_run, args=(out / "a_unfinished", tmp, "a"),
            kwargs={"subsets": ("add",), "exit_after": 8})
        child.start()
        child.join()
        assert child.exitcode == 1, child.exitcode
        (stamp,) = [d for d in (out / "a_unfinished").iterdir() if d.is_dir()]
        _keep_reader_files(stamp)
        # The venv's own folders appear in NLTK's "resource not found" message (BLEU).
        strip_prefixes(out, [str(tmp), str(out), sys.prefix])
    import importlib.metadata

    facts = {w: _run_facts(out, w) for w in [*(w for w, _, _ in runs), "a_unfinished"]}
    rev = {(w, s): _review_file(out, w, "general_mcq", s)
           for w in ("a", "b") for s in SUBSETS}
    add_a, add_b = rev[("a", "add")], rev[("b", "add")]
    mul_a, mul_b = rev[("a", "mul")], rev[("b", "mul")]
    errored_b = _review_file(out, "b_errored", "general_mcq", "add")
    multi_b = _review_file(out, "b_multi", "general_mcq", "add")
    rep_a = _review_file(out, "repeats_a", "general_mcq", "add")
    rep_b = _review_file(out, "repeats_b", "general_mcq", "add")
    unfinished_a = _review_file(out, "a_unfinished", "general_mcq", "add")

    def table(fa: Path, fb: Path, **kw: Any) -> dict[str, int]:
        oa, ob = outcomes(fa, **kw), outcomes(fb, **kw)
        common = set(oa) & set(ob)
        return paired_table({k: oa[k] for k in common}, {k: ob[k] for k in common})

    pooled = {k: table(add_a, add_b)[k] + table(mul_a, mul_b)[k] for k in "abcd"}
    run_files: dict[str, Any] = {}
    for work, f in facts.items():
        run_files[work] = f
    for (work, subset), path in rev.items():
        run_files[_rel(out, path)] = dict(facts[work], task=f"general_mcq_{subset}",
                                          tasks=[f"general_mcq_{subset}"],
                                          records=N, errored=0, expected=N)
    for work, path in (("b_errored", errored_b), ("b_multi", multi_b),
                       ("repeats_a", rep_a), ("repeats_b", rep_b)):
        run_files[_rel(out, path)] = facts[work]
    expected = {
        "harness": "evalscope",
        "version": importlib.metadata.version("evalscope"),
        "python": sys.version.split()[0],
        "generator": "scripts/harness_fixtures/gen_evalscope.py",
        "runs": run_files,
        "pairings": [
            {"name": "general_mcq add+mul, A vs B (work folders)", "a": "a", "b": "b",
             "read": {}, "align": {}, "table": pooled,
             "tasks": {"general_mcq_add": table(add_a, add_b),
                       "general_mcq_mul": table(mul_a, mul_b)}},
            {"name": "general_mcq add, A vs B (review files)", "a": _rel(out, add_a),
             "b": _rel(out, add_b), "read": {}, "align": {}, "table": table(add_a, add_b)},
            {"name": "general_mcq mul, A vs B (task chosen)", "a": "a", "b": "b",
             "read": {"task": "general_mcq_mul"}, "align": {}, "table": table(mul_a, mul_b)},
            {"name": "general_mcq add, A vs B with two errored samples", "a": _rel(out, add_a),
             "b": "b_errored", "read": {}, "align": {"on_missing": "intersect"},
             "table": table(add_a, errored_b)},
            {"name": "general_mcq add, repeats=2, A vs B on the first answer",
             "a": "repeats_a", "b": "repeats_b", "read": {}, "align": {"reduce": "first"},
             "table": table(rep_a, rep_b)},
            {"name": "general_mcq add, repeats=2, A vs B answer by answer",
             "a": "repeats_a", "b": "repeats_b", "read": {}, "align": {"reduce": "cluster"},
             "table": table(rep_a, rep_b, generation=None)},
            {"name": "general_mcq add, A killed mid-run vs B", "a": "a_unfinished",
             "b": _rel(out, add_b), "read": {}, "align": {"on_missing": "intersect"},
             "table": table(unfinished_a, add_b)},
        ],
        "refusals": [
            {"name": "subset add vs subset mul", "a": _rel(out, add_a), "b": _rel(out, mul_b),
             "differs": "task", "allow": "--allow-different-tasks",
             "values": ["general_mcq_add", "general_mcq_mul"],
             "table": table(add_a, mul_b)},
            {"name": "acc vs multi_choice_acc", "a": _rel(out, add_a), "b": "b_multi",
             "differs": "scorer", "allow": "--allow-different-scorers",
             "values": ["accuracy", "multi_choice_acc"],
             "table": table(add_a, multi_b)},
        ],
    }
    (out / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
    for case in expected["pairings"] + expected["refusals"]:
        print(case["name"], case["table"])


if __name__ == "__main__":
    main()
