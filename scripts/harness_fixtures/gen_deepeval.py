"""Write deepeval test runs with deepeval itself (4.3.1), and their expected paired tables.

Run with the Python of a virtual environment holding the pinned deepeval (see README.md)::

    /tmp/harness-venvs/deepeval/bin/python scripts/harness_fixtures/gen_deepeval.py \
        tests/data/io/real/deepeval

Every run is ``deepeval.evaluate(test_cases=[LLMTestCase(...)], metrics=[...],
hyperparameters={"model": ...}, display_config=DisplayConfig(results_folder=...))`` over the
same 30 arithmetic questions. The systems are scripted: their answers are fixed here, wrong
on known items (a sum one too high, a sum far off, or no number at all). Only metrics that
need no LLM judge are used: deepeval's ``ExactMatchMetric`` and ``PatternMatchMetric``, and
``Closeness``, a graded metric defined here (1 / (1 + distance to the right sum)). Telemetry,
the .env loader, the update check and the Confident AI upload are off (no key is set), so
nothing leaves the machine; deepeval's working folder (``.deepeval/``) is a temporary one.

Each run is written to its own results folder (``<folder>/test_run_<YYYYMMDD_HHMMSS>.json``,
kept under the name deepeval gave it):

- ``exact_a/``, ``exact_b/``: systems A and B, Exact Match;
- ``pattern_b/``: B scored by Pattern Match only, without hyperparameters (no model named);
- ``three_a/``, ``three_b/``: Exact Match, Pattern Match and Closeness;
- ``errored_a/``: as ``three_a`` but Closeness raises on one item
  (``ErrorConfig(ignore_errors=True)``: deepeval records the metric's ``error``);
- ``rerun_a/``: two runs of A into one results folder (an older draft with other wrong items,
  then A), the way repeated evaluations accumulate there;
- ``conv_a/``, ``conv_b/``: conversational test cases (``ConversationalTestCase``, one
  question and one answer each), scored by a conversational metric defined here;
- ``latest_test_run_a.json``: deepeval's ``.deepeval/.latest_test_run.json`` right after the
  ``exact_a`` run (the same run inside ``{"testRunData": ...}``), byte for byte, under a
  visible name;
- ``temp_test_run_data_a.json``: deepeval's ``.deepeval/.temp_test_run_data.json`` of the
  ``exact_a`` run, copied at the moment ``wrap_up_test_run`` starts (what the file holds while
  a run is still going: no ``testPassed``/``testFailed`` yet).

The expected tables in ``expected.json`` are counted from the written files with plain
``json`` (each test case's ``name`` -> its ``success``, or the chosen metric's ``success`` or
``score`` in ``metricsData``), never with mcnemar.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from _expected import paired_table
from _paths import output_folder, strip_prefixes

N = 30
#: Items (0..N-1) each system answers wrongly; the kind of wrong answer is ``item % 3``:
#: 0 the sum plus one, 1 the sum plus seven, 2 no number at all.
WRONG = {
    "a": {2, 5, 9, 13, 17, 21, 26},
    "b": {5, 7, 11, 13, 19, 24, 27, 28},
    "draft": {0, 1, 3, 4, 8, 16, 22, 29},
}
MODELS = {"a": "fixture/system-a", "b": "fixture/system-b", "draft": "fixture/system-a"}
#: In ``errored_a``, Closeness raises on this item (one that A answers right).
ERRORED_ITEM = 11
#: The conversational runs hold the first items only.
CONVERSATIONS = 20
#: Off for every run: nothing may leave the machine.
OFFLINE_ENV = {
    "DEEPEVAL_TELEMETRY_OPT_OUT": "1",
    "DEEPEVAL_UPDATE_WARNING_OPT_IN": "0",
    "DEEPEVAL_DISABLE_DOTENV": "1",
    "DEEPEVAL_NO_INSPECT_PROMPT": "1",
    "DEEPEVAL_GRPC_LOGGING": "0",
}


def question(i: int) -> tuple[str, int]:
    x, y = 13 * i + 4, 7 * i + 9
    return f"#{i}: What is {x} + {y}? Answer with the number only.", x + y


def answer(system: str, i: int) -> str:
    total = question(i)[1]
    if i not in WRONG[system]:
        return str(total)
    return {0: str(total + 1), 1: str(total + 7), 2: "I am not sure."}[i % 3]


def item_name(i: int) -> str:
    return f"arith-{i:02d}"


def _run(system: str, folder: Path, metrics: list[Any], *, model: bool = True,
         ignore_errors: bool = False) -> Path:
    from deepeval import evaluate
    from deepeval.evaluate.configs import AsyncConfig, CacheConfig, DisplayConfig, ErrorConfig
    from deepeval.test_case import LLMTestCase

    cases = [LLMTestCase(input=question(i)[0], actual_output=answer(system, i),
                         expected_output=str(question(i)[1]), name=item_name(i))
             for i in range(N)]
    before = set(folder.glob("test_run_*.json"))
    evaluate(
        test_cases=cases, metrics=metrics,
        hyperparameters={"model": MODELS[system]} if model else None,
        async_config=AsyncConfig(run_async=False),
        # write_cache (the default) is what makes deepeval keep its files in .deepeval/
        # (.latest_test_run.json, the in-progress .temp_test_run_data.json); never read back.
        cache_config=CacheConfig(write_cache=True, use_cache=False),
        error_config=ErrorConfig(ignore_errors=ignore_errors),
        display_config=DisplayConfig(results_folder=str(folder), print_results=False,
                                     show_indicator=False, inspect_after_run=False),
    )
    (new,) = set(folder.glob("test_run_*.json")) - before
    return new


def _run_conversations(system: str, folder: Path) -> Path:
    """Conversational test cases (one question, one answer each) scored by a metric of
    their own: the last assistant turn must equal the case's ``expected_outcome``."""
    from deepeval import evaluate
    from deepeval.evaluate.configs import AsyncConfig, CacheConfig, DisplayConfig
    from deepeval.metrics import BaseConversationalMetric
    from deepeval.test_case import ConversationalTestCase, Turn

    class FinalAnswerMatch(BaseConversationalMetric):
        def __init__(self) -> None:
            self.threshold = 1.0
            self.strict_mode = False
            self.async_mode = False
            self.verbose_mode = False

        def measure(self, test_case: Any, *args: Any, **kwargs: Any) -> float:
            last = [t.content for t in test_case.turns if t.role == "assistant"][-1]
            self.score = 1.0 if last.strip() == test_case.expected_outcome else 0.0
            self.success = self.score >= self.threshold
            self.reason = "the last answer matches" if self.success else "it does not"
            return self.score

        async def a_measure(self, test_case: Any, *args: Any, **kwargs: Any) -> float:
            return self.measure(test_case)

        def is_successful(self) -> bool:
            return bool(self.success)

        @property
        def __name__(self) -> str:  # type: ignore[override]
            return "Final Answer Match"

    cases = [ConversationalTestCase(
        name=f"chat-{i:02d}", expected_outcome=str(question(i)[1]),
        turns=[Turn(role="user", content=question(i)[0]),
               Turn(role="assistant", content=answer(system, i))])
        for i in range(CONVERSATIONS)]
    evaluate(test_cases=cases, metrics=[FinalAnswerMatch()],
             hyperparameters={"model": MODELS[system]},
             async_config=AsyncConfig(run_async=False),
             cache_config=CacheConfig(write_cache=True, use_cache=False),
             display_config=DisplayConfig(results_folder=str(folder), print_results=False,
                                          show_indicator=False, inspect_after_run=False))
    (new,) = folder.glob("test_run_*.json")
    return new


def _metrics(kind: str, fail_on: set[str] | None = None) -> list[Any]:
    from deepeval.metrics import BaseMetric, ExactMatchMetric, PatternMatchMetric

    class Closeness(BaseMetric):
        """Graded: 1 / (1 + |answer - expected|) for a numeric answer, 0 otherwise."""

        def __init__(self, threshold: float = 0.5, fail_on: set[str] | None = None) -> None:
            self.threshold = threshold
            self.fail_on = fail_on or set()
            self.strict_mode = False
            self.async_mode = False
            self.verbose_mode = False

        def measure(self, test_case: Any, *args: Any, **kwargs: Any) -> float:
            if test_case.name in self.fail_on:
                raise RuntimeError("scripted judge failure on this item")
            text = test_case.actual_output.strip()
            if re.fullmatch(r"-?\d+", text):
                self.score = 1.0 / (1.0 + abs(int(text) - int(test_case.expected_output)))
            else:
                self.score = 0.0
            self.reason = f"distance score {self.score:.3f}"
            self.success = self.score >= self.threshold
            return self.score

        async def a_measure(self, test_case: Any, *args: Any, **kwargs: Any) -> float:
            return self.measure(test_case)

        def is_successful(self) -> bool:
            return bool(self.success)

        @property
        def __name__(self) -> str:  # type: ignore[override]
            return "Closeness"

    if kind == "exact":
        return [ExactMatchMetric()]
    if kind == "pattern":
        return [PatternMatchMetric(pattern=r"-?\d+")]
    return [ExactMatchMetric(), PatternMatchMetric(pattern=r"-?\d+"),
            Closeness(fail_on=fail_on)]


# --- counting the expected tables from the files, with plain json ------------------------


def test_run_data(path: Path) -> dict[str, Any]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return doc["testRunData"] if "testRunData" in doc else doc


def outcomes(path: Path, score: str | None = None, *, on_error: str = "missing",
             graded_above: float | None = None) -> dict[str, float | None]:
    """name -> 1.0/0.0 (``None``: errored, left out); ``score`` a metric name, or
    ``NAME:score`` for the metric's graded score (passing at ``graded_above``)."""
    out: dict[str, float | None] = {}
    data = test_run_data(path)
    for case in data["testCases"] + data["conversationalTestCases"]:
        entries = case["metricsData"]
        if score is not None:
            metric = score.removesuffix(":score")
            entries = [m for m in entries if m["name"] == metric]
            assert len(entries) == 1
        if any(m.get("error") for m in entries):
            value: float | None = None if on_error == "missing" else 0.0
        elif score is None:
            value = 1.0 if case["success"] else 0.0
        elif score.endswith(":score"):
            assert graded_above is not None
            value = 1.0 if entries[0]["score"] >= graded_above else 0.0
        else:
            value = 1.0 if entries[0]["success"] else 0.0
        assert case["name"] not in out
        out[case["name"]] = value
    return out


def table(a: Path, b: Path, read_a: dict[str, Any] | None = None,
          read_b: dict[str, Any] | None = None, **common: Any) -> dict[str, int]:
    """The paired table of two runs; items errored in either (``None``) are left out, as
    ``on_missing="intersect"`` does."""
    oa = outcomes(a, **{**common, **(read_a or {})})
    ob = outcomes(b, **{**common, **(read_b or {})})
    keep = [k for k in oa if oa[k] is not None and ob.get(k) is not None]
    return paired_table({k: oa[k] for k in keep}, {k: ob[k] for k in keep})


def errored(path: Path, score: str | None = None) -> int:
    """Test cases whose verdict errored: the chosen metric has an ``error`` (default: any
    metric that is not ``flaky``)."""
    data = test_run_data(path)
    count = 0
    for case in data["testCases"] + data["conversationalTestCases"]:
        if score is None:
            entries = [m for m in case["metricsData"] if not m.get("flaky")]
        else:
            entries = [m for m in case["metricsData"]
                       if m["name"] == score.removesuffix(":score")]
        count += any(m.get("error") for m in entries)
    return count


def run_facts(path: Path, folder: Path) -> dict[str, Any]:
    data = test_run_data(path)
    cases = data["testCases"] + data["conversationalTestCases"]
    names = sorted({m["name"] for c in cases for m in c["metricsData"]})
    hyper = data.get("hyperparameters") or {}
    finished = "testPassed" in data and "testFailed" in data
    return {
        "format": "deepeval", "file": path.relative_to(folder).as_posix(), "task": None,
        "model": hyper.get("model"), "scorer": ", ".join(names), "metric_names": names,
        "records": len(cases),
        "status": "complete" if finished else "unfinished",
        "errored": errored(path),
        "ignored": [],
    }


def main() -> None:
    out = output_folder(__doc__ or "")
    for key in [k for k in os.environ if k.startswith(("CONFIDENT_", "OPENAI_"))]:
        del os.environ[key]
    os.environ.update(OFFLINE_ENV)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        os.chdir(work)  # deepeval keeps its .deepeval/ folder in the working directory
        os.environ["DEEPEVAL_CACHE_FOLDER"] = str(work / ".deepeval")
        hidden = work / ".deepeval"

        from deepeval.test_run import global_test_run_manager

        # Copy the in-progress file when the run is being wrapped up (only for exact_a).
        original = global_test_run_manager.wrap_up_test_run
        snapshot: dict[str, Path] = {}

        def wrap_up(*a: Any, **k: Any) -> Any:
            if "target" in snapshot:
                shutil.copyfile(hidden / ".temp_test_run_data.json", snapshot.pop("target"))
            return original(*a, **k)

        global_test_run_manager.wrap_up_test_run = wrap_up  # type: ignore[method-assign]

        files: dict[str, Path] = {}
        snapshot["target"] = out / "temp_test_run_data_a.json"
        files["exact_a"] = _run("a", out / "exact_a", _metrics("exact"))
        shutil.copyfile(hidden / ".latest_test_run.json", out / "latest_test_run_a.json")
        files["exact_b"] = _run("b", out / "exact_b", _metrics("exact"))
        files["pattern_b"] = _run("b", out / "pattern_b", _metrics("pattern"), model=False)
        files["three_a"] = _run("a", out / "three_a", _metrics("three"))
        files["three_b"] = _run("b", out / "three_b", _metrics("three"))
        files["errored_a"] = _run("a", out / "errored_a",
                                  _metrics("three", fail_on={item_name(ERRORED_ITEM)}),
                                  ignore_errors=True)
        files["rerun_a_old"] = _run("draft", out / "rerun_a", _metrics("exact"))
        files["rerun_a"] = _run("a", out / "rerun_a", _metrics("exact"))
        files["conv_a"] = _run_conversations("a", out / "conv_a")
        files["conv_b"] = _run_conversations("b", out / "conv_b")
        for lock in out.rglob(".test_run.lock"):
            lock.unlink()  # deepeval's (empty) lock file, not part of the run
        strip_prefixes(out, [tmp, str(out)])
    files["latest_a"] = out / "latest_test_run_a.json"
    files["temp_a"] = out / "temp_test_run_data_a.json"

    rel = {k: p.relative_to(out).as_posix() for k, p in files.items()}
    runs = {rel[k]: run_facts(p, out) for k, p in files.items()}
    # A results folder reads as its newest run (the older ones are ignored).
    for key in ("exact_a", "exact_b", "pattern_b", "three_a", "three_b", "errored_a",
                "rerun_a", "conv_a", "conv_b"):
        folder = rel[key].split("/")[0]
        runs[folder] = {**runs[rel[key]],
                        "ignored": [rel["rerun_a_old"]] if key == "rerun_a" else []}
    t = lambda a, b, **kw: table(files[a], files[b], **kw)  # noqa: E731
    pairings = [
        {"name": "Exact Match: A vs B", "a": rel["exact_a"], "b": rel["exact_b"],
         "read": {}, "align": {}, "table": t("exact_a", "exact_b")},
        {"name": "results folders A vs B", "a": "exact_a", "b": "exact_b",
         "read": {}, "align": {}, "table": t("exact_a", "exact_b")},
        {"name": ".latest_test_run.json of A vs B", "a": rel["latest_a"], "b": rel["exact_b"],
         "read": {}, "align": {}, "table": t("latest_a", "exact_b")},
        {"name": "in-progress file of A vs B", "a": rel["temp_a"], "b": rel["exact_b"],
         "read": {}, "align": {}, "table": t("temp_a", "exact_b")},
        {"name": "folder with a re-run (newest) vs B", "a": "rerun_a", "b": "exact_b",
         "read": {}, "align": {}, "table": t("rerun_a", "exact_b")},
        {"name": "three metrics, test case success", "a": rel["three_a"], "b": rel["three_b"],
         "read": {}, "align": {}, "table": t("three_a", "three_b")},
        *({"name": f"three metrics, {metric}", "a": rel["three_a"], "b": rel["three_b"],
           "read": {"score": metric}, "align": {},
           "table": t("three_a", "three_b", score=metric)}
          for metric in ("Exact Match", "Pattern Match", "Closeness")),
        {"name": "three metrics, Closeness graded score >= 0.4", "a": rel["three_a"],
         "b": rel["three_b"], "read": {"score": "Closeness:score"}, "align": {"threshold": 0.4},
         "table": t("three_a", "three_b", score="Closeness:score", graded_above=0.4)},
        {"name": "Exact Match chosen in A's three metrics vs B's only metric",
         "a": rel["three_a"], "b": rel["exact_b"], "read_a": {"score": "Exact Match"},
         "read_b": {}, "align": {},
         "table": t("three_a", "exact_b", read_a={"score": "Exact Match"})},
        {"name": "errored item left out (test case success)", "a": rel["errored_a"],
         "b": rel["three_b"], "read": {}, "align": {"on_missing": "intersect"},
         "table": t("errored_a", "three_b")},
        {"name": "errored item left out (Closeness)", "a": rel["errored_a"],
         "b": rel["three_b"], "read": {"score": "Closeness"}, "align": {"on_missing": "intersect"},
         "table": t("errored_a", "three_b", score="Closeness")},
        {"name": "errored item counted as a failure", "a": rel["errored_a"],
         "b": rel["three_b"], "read": {"on_error": "fail"}, "align": {},
         "table": t("errored_a", "three_b", on_error="fail")},
        {"name": "errored run, Exact Match (not errored)", "a": rel["errored_a"],
         "b": rel["three_b"], "read": {"score": "Exact Match"}, "align": {},
         "table": t("errored_a", "three_b", score="Exact Match")},
        {"name": "conversational test cases A vs B", "a": rel["conv_a"], "b": rel["conv_b"],
         "read": {}, "align": {}, "table": t("conv_a", "conv_b")},
    ]
    for p in pairings:  # errored items under the options each side is read with
        reads = {side: p.get(f"read_{side}", p.get("read", {})) for side in ("a", "b")}
        p["errored"] = {side: errored(out / runs[p[side]]["file"], read.get("score"))
                        for side, read in reads.items()}
    refusals = [
        {"name": "Exact Match A vs Pattern Match B", "differs": "scorer",
         "a": rel["exact_a"], "b": rel["pattern_b"], "values": ["Exact Match", "Pattern Match"],
         "allow": "--allow-different-scorers", "flag": "--allow-different-scorers",
         "table": t("exact_a", "pattern_b"), "table_if_allowed": t("exact_a", "pattern_b")},
        {"name": "test case success over three metrics vs Exact Match only", "differs": "scorer",
         "a": rel["three_a"], "b": rel["exact_b"],
         "values": ["Closeness, Exact Match, Pattern Match", "Exact Match"],
         "allow": "--allow-different-scorers", "flag": "--allow-different-scorers",
         "table": t("three_a", "exact_b"), "table_if_allowed": t("three_a", "exact_b")},
    ]
    expected = {
        "harness": "deepeval",
        "version": importlib.metadata.version("deepeval"),
        "python": sys.version.split()[0],
        "generator": "scripts/harness_fixtures/gen_deepeval.py",
        "items": N, "wrong": {k: sorted(v) for k, v in WRONG.items()},
        "errored_item": item_name(ERRORED_ITEM),
        "runs": runs, "pairings": pairings, "refusals": refusals,
    }
    (out / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
    for p in pairings:
        print(f"{p['name']}: {p['table']}")


if __name__ == "__main__":
    main()
