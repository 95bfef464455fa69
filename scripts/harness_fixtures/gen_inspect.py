"""Write Inspect AI logs with inspect-ai itself, and their expected paired tables.

Run with the Python of a virtual environment holding the pinned inspect-ai (see README.md)::

    /tmp/harness-venvs/inspect/bin/python scripts/harness_fixtures/gen_inspect.py \
        tests/data/io/real/inspect
    /tmp/harness-venvs/inspect-old/bin/python scripts/harness_fixtures/gen_inspect.py \
        tests/data/io/real/inspect_old --legacy

Every model is ``mockllm`` with a deterministic answer function (no network, no tokenizer:
each output carries its ``usage``). Systems A and B answer the same arithmetic questions and
are wrong on known items, so the paired table has discordant cells on both sides. The
expected tables in ``expected.json`` are counted from the logs with inspect-ai's own reader
(``read_eval_log``) and scorer-value conversion (``value_to_float``), never with mcnemar.

``--legacy`` (an inspect-ai before 0.3.180, whose ``.eval`` members are DEFLATE) writes only
the plain A/B pair.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import anyio
import inspect_ai
from _expected import paired_table
from inspect_ai import Task, eval, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import includes, match, value_to_float
from inspect_ai.solver import Generate, TaskState, generate, solver

N = 30
#: Items (sample ids 1..N) each system gets wrong.
WRONG = {"a": {3, 7, 11, 19, 23, 27}, "b": {2, 7, 8, 10, 12, 15, 19, 22, 26, 29}}
#: Items where A states the right sum first, then a wrong one: ``includes`` passes, ``match``
#: (which looks at the end of the answer) fails.
HEDGED = {"a": {5, 9, 14}, "b": {6}}
#: Items whose answer changes on the second epoch (right <-> wrong).
FLIP = {"a": {2, 8, 13}, "b": {4, 13, 20}}
ERROR_IDS = {17}          # the solver raises on these samples
ERRORED_IDS = {4, 21}     # samples that error in a run that tolerates errors
STOP_AFTER = 12           # the killed run exits while working on this sample


def _operands(i: int, op: str) -> tuple[int, int, int]:
    x, y = 7 * i + 3, 11 * i + 5
    return x, y, (x + y if op == "+" else x * y)


def _dataset(op: str) -> MemoryDataset:
    samples = []
    for i in range(1, N + 1):
        x, y, total = _operands(i, op)
        samples.append(Sample(id=i, input=f"What is {x} {op} {y}? Answer with the number.",
                              target=str(total)))
    return MemoryDataset(samples, name="arith" if op == "+" else "other")


def _answer_fn(system: str) -> Any:
    """A mockllm answer function: deterministic per question (and per repeat of it)."""
    seen: dict[str, int] = {}

    def answer(input: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        text = input[-1].text
        m = re.search(r"What is (\d+) ([+*]) (\d+)", text)
        assert m is not None, text
        x, op, y = int(m[1]), m[2], int(m[3])
        i = (x - 3) // 7
        total = x + y if op == "+" else x * y
        repeat = seen.get(text, 0)
        seen[text] = repeat + 1
        right = i not in WRONG[system]
        if repeat == 1 and i in FLIP[system]:
            right = not right
        if i in HEDGED[system] and right:
            content = f"{total}, or perhaps {total + 1}"
        else:
            content = str(total if right else total + 1)
        return ModelOutput.from_content(model=f"system-{system}", content=content).model_copy(
            update={"usage": ModelUsage(input_tokens=12, output_tokens=3, total_tokens=15)})

    return answer


def _model(system: str) -> Any:
    return get_model(f"mockllm/system-{system}", custom_outputs=_answer_fn(system))


@solver
def fail_on(ids: frozenset[int], exc: str = "error") -> Any:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if state.sample_id in ids:
            if exc == "cancel":
                # What ctrl+c does: Inspect cancels the run and writes a "cancelled" log.
                os.kill(os.getpid(), signal.SIGINT)
                await anyio.sleep(30)
            if exc == "exit":
                os._exit(3)  # the process dies: the log stays "started"
            raise RuntimeError(f"solver failed on sample {state.sample_id}")
        return state

    return solve


@task
def arith(scorers: str = "match", fail: str = "", exc: str = "error") -> Task:
    ids = frozenset(int(x) for x in fail.split(",") if x)
    chosen = {"match": match(), "includes": includes()}
    return Task(dataset=_dataset("+"), solver=[fail_on(ids, exc), generate()],
                scorer=[chosen[s] for s in scorers.split(",")])


@task
def other_task() -> Task:
    return Task(dataset=_dataset("*"), solver=[generate()], scorer=match())


def _run(t: Task, system: str, out: Path, name: str, fmt: str = "eval",
         **options: Any) -> Path:
    with tempfile.TemporaryDirectory() as tmp:
        try:
            eval(t, model=_model(system), log_dir=tmp, log_format=fmt, display="none",
                 **options)
        except KeyboardInterrupt:
            pass  # the cancelled run: Inspect writes its log, then re-raises
        produced = next(Path(tmp).glob(f"*.{fmt}"))
        target = out / f"{name}.{fmt}"
        shutil.move(produced, target)
    return target


# --- independent expectations (inspect-ai's reader, not mcnemar) -----------------------------

_TO_FLOAT = value_to_float()


def facts(path: Path) -> dict[str, Any]:
    """Identity facts of one log, as inspect-ai reads them."""
    log = read_eval_log(str(path))
    samples = log.samples or []
    scorers = sorted({k for s in samples for k in (s.scores or {})})
    return {
        "format": "inspect",
        "task": log.eval.task,
        "model": log.eval.model,
        "scorers": scorers,
        "status": log.status,
        "run_status": {"success": "complete", "started": "unfinished"}.get(log.status,
                                                                           log.status),
        "records": len(samples),
        "epochs": log.eval.config.epochs or 1,
        "errored": sum(1 for s in samples if s.error is not None),
        "errored_ids": sorted(s.id for s in samples if s.error is not None),
        "unscored": sum(1 for s in samples if not s.scores),
    }


def outcomes(path: Path, scorer: str) -> dict[tuple[Any, int], float | None]:
    out: dict[tuple[Any, int], float | None] = {}
    for s in read_eval_log(str(path)).samples or []:
        score = (s.scores or {}).get(scorer)
        out[(s.id, s.epoch)] = None if score is None else _TO_FLOAT(score.value)
    return out


def table(a: dict[Any, float | None], b: dict[Any, float | None], *,
          intersect: bool = False) -> dict[str, int]:
    keys = set(a) & set(b)
    if not intersect:
        assert set(a) == set(b), "the runs hold different items"
    scored = [k for k in keys if a[k] is not None and b[k] is not None]
    assert intersect or len(scored) == len(keys), "an item has no score"
    return paired_table({k: a[k] for k in scored}, {k: b[k] for k in scored})


def by_item(o: dict[tuple[Any, int], float | None], rule: str) -> dict[Any, float | None]:
    """Reduce epochs: ``first`` (lowest epoch) or ``majority`` (strictly more than half pass)."""
    items: dict[Any, list[tuple[int, float | None]]] = {}
    for (sid, epoch), v in o.items():
        items.setdefault(sid, []).append((epoch, v))
    out: dict[Any, float | None] = {}
    for sid, vals in items.items():
        vals.sort()
        if rule == "first":
            out[sid] = vals[0][1]
        else:
            passes = sum(1 for _, v in vals if v == 1.0)
            out[sid] = 1.0 if 2 * passes > len(vals) else 0.0
    return out


def first_epoch_only(o: dict[tuple[Any, int], float | None]) -> dict[Any, float | None]:
    return {sid: v for (sid, _), v in o.items()}


def compression(path: Path) -> list[str]:
    with zipfile.ZipFile(path) as z:
        methods = {i.compress_type for i in z.infolist()}
    names = {zipfile.ZIP_DEFLATED: "deflate", zipfile.ZIP_STORED: "stored", 93: "zstd"}
    return sorted(names.get(m, str(m)) for m in methods)


def _child_run(out: Path, name: str, exc: str) -> Path | None:
    """Run arith for A in a child process interrupted on sample STOP_AFTER; return its log."""
    with tempfile.TemporaryDirectory() as tmp:
        here = str(Path(__file__).parent)
        code = (
            f"import sys; sys.path.insert(0, {here!r})\n"
            "import gen_inspect as g\n"
            "from inspect_ai import eval\n"
            f"eval(g.arith(fail={str(STOP_AFTER)!r}, exc={exc!r}), model=g._model('a'),\n"
            f"     log_dir={tmp!r}, log_format='eval', display='none', max_samples=1,\n"
            "     log_buffer=1)\n"
        )
        subprocess.run([sys.executable, "-c", code], check=False)
        produced = sorted(Path(tmp).glob("*.eval"))
        if not produced:
            return None
        target = out / f"{name}.eval"
        shutil.move(produced[0], target)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--legacy", action="store_true",
                        help="older inspect-ai: only the plain A/B pair")
    args = parser.parse_args()
    out: Path = args.out
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    os.environ.setdefault("INSPECT_LOG_LEVEL", "warning")

    files: dict[str, Path] = {}
    pairings: list[dict[str, Any]] = []
    refusals: list[dict[str, Any]] = []

    def rel(p: Path) -> str:
        return p.name

    for s in ("a", "b"):
        files[f"arith_{s}"] = _run(arith(), s, out, f"arith_{s}")
    # The .json twin of A: the same log written by Inspect's writer in its other container.
    twin = out / "arith_a.json"
    if not args.legacy:
        write_eval_log(read_eval_log(str(files["arith_a"])), str(twin), format="json")
    match_a, match_b = (outcomes(files[f"arith_{s}"], "match") for s in "ab")
    pairings.append({"name": "arith eval A vs B", "a": "arith_a.eval", "b": "arith_b.eval",
                     "read": {}, "align": {},
                     "table": table(first_epoch_only(match_a), first_epoch_only(match_b))})
    if not args.legacy:
        pairings.append({"name": "arith json A vs eval B", "a": "arith_a.json",
                         "b": "arith_b.eval", "read": {}, "align": {},
                         "table": table(first_epoch_only(outcomes(twin, "match")),
                                        first_epoch_only(match_b))})

        # Epochs: two samples per item; B's second epoch differs on some items.
        for s in ("a", "b"):
            files[f"epochs_{s}"] = _run(arith(), s, out, f"arith_epochs_{s}", epochs=2)
        ea, eb = (outcomes(files[f"epochs_{s}"], "match") for s in "ab")
        for rule in ("first", "majority"):
            pairings.append({"name": f"epochs=2, reduce={rule}", "a": "arith_epochs_a.eval",
                             "b": "arith_epochs_b.eval", "read": {}, "align": {"reduce": rule},
                             "table": table(by_item(ea, rule), by_item(eb, rule))})
        pairings.append({"name": "epochs=2, every (item, epoch) pair",
                         "a": "arith_epochs_a.eval", "b": "arith_epochs_b.eval", "read": {},
                         "align": {"reduce": "cluster"}, "table": table(ea, eb)})

        # Two scorers in one log, and a log re-scored with another scorer.
        for s in ("a", "b"):
            files[f"two_{s}"] = _run(arith(scorers="match,includes"), s, out,
                                     f"arith_two_scorers_{s}")
        for scorer in ("match", "includes"):
            pairings.append({
                "name": f"two scorers, {scorer}", "a": "arith_two_scorers_a.eval",
                "b": "arith_two_scorers_b.eval", "read": {"score": scorer}, "align": {},
                "table": table(first_epoch_only(outcomes(files["two_a"], scorer)),
                               first_epoch_only(outcomes(files["two_b"], scorer)))})
        from inspect_ai import score as rescore

        rescored = rescore(read_eval_log(str(files["arith_a"])), includes(),
                           action="overwrite", display="none")
        files["rescored_a"] = out / "arith_a_rescored_includes.eval"
        write_eval_log(rescored, str(files["rescored_a"]), format="eval")
        inc_a = first_epoch_only(outcomes(files["rescored_a"], "includes"))
        pairings.append({
            "name": "re-scored A (includes) vs B's includes scorer",
            "a": "arith_a_rescored_includes.eval", "b": "arith_two_scorers_b.eval",
            "read_b": {"score": "includes"}, "read": {}, "align": {},
            "table": table(inc_a, first_epoch_only(outcomes(files["two_b"], "includes")))})
        refusals.append({
            "name": "re-scored A (includes) vs B (match)", "differs": "scorer",
            "a": "arith_a_rescored_includes.eval", "b": "arith_b.eval",
            "values": ["includes", "match"], "flag": "--allow-different-scorers",
            "table_if_allowed": table(inc_a, first_epoch_only(match_b))})

        # Another task with the same sample ids.
        files["other_b"] = _run(other_task(), "b", out, "other_task_b")
        refusals.append({
            "name": "arith A vs other_task B (same ids)", "differs": "task",
            "a": "arith_a.eval", "b": "other_task_b.eval", "values": ["arith", "other_task"],
            "flag": "--allow-different-tasks",
            "table_if_allowed": table(first_epoch_only(match_a), first_epoch_only(
                outcomes(files["other_b"], "match")))})

        # A run that failed (status error), one cancelled, one killed, one with errored samples.
        files["error"] = _run(arith(fail=",".join(map(str, ERROR_IDS))), "a", out,
                              "arith_status_error", max_samples=1)
        for key, exc in (("cancelled", "cancel"), ("started", "exit")):
            child = _child_run(out, f"arith_status_{key}", exc)
            if child is not None:
                files[key] = child
        # Errored samples that Inspect still scored (score_on_error), in a run that succeeds.
        files["errored"] = _run(arith(fail=",".join(map(str, sorted(ERRORED_IDS)))), "a",
                                out, "arith_errored_samples", fail_on_error=False,
                                score_on_error=True)
        for key in ("error", "cancelled", "started", "errored"):
            if key not in files:
                continue
            fa = outcomes(files[key], "match")
            if not fa:
                continue
            pairings.append({
                "name": f"{files[key].stem} vs B (items present and scored in both)",
                "a": files[key].name, "b": "arith_b.eval", "read": {},
                "align": {"on_missing": "intersect"},
                "table": table(first_epoch_only(fa), first_epoch_only(match_b),
                               intersect=True)})

    runs = {}
    for p in sorted(out.iterdir()):
        if p.suffix in (".eval", ".json") and p.name != "expected.json":
            info = facts(p)
            if p.suffix == ".eval":
                info["compression"] = compression(p)
            runs[rel(p)] = info
    expected = {
        "harness": "inspect-ai",
        "version": inspect_ai.__version__,
        "python": sys.version.split()[0],
        "generator": "scripts/harness_fixtures/gen_inspect.py" + (" --legacy" if args.legacy
                                                                  else ""),
        "runs": runs,
        "pairings": pairings,
        "refusals": refusals,
        "twins": [] if args.legacy else [["arith_a.eval", "arith_a.json"]],
    }
    (out / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=False) + "\n")
    print(json.dumps({k: v["status"] for k, v in runs.items()}, indent=1))


if __name__ == "__main__":
    main()
