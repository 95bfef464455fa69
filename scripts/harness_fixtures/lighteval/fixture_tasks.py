"""Two multiple-choice tasks over local JSON Lines files, for ``lighteval custom --custom-tasks``.

``arith_mc`` (products) reads ``data/arith/test.jsonl`` and ``compare_mc`` (the larger of
two numbers) reads ``data/compare/test.jsonl``, relative to the working directory (written
by ``gen_lighteval.py``), so nothing is downloaded. Both are scored with lighteval's
``loglikelihood_acc`` (per-document metric ``acc``); ``LIGHTEVAL_FIXTURE_ARITH_METRICS=acc,mrr``
scores ``arith_mc`` with ``mrr`` (mean reciprocal rank) as well.
"""

from __future__ import annotations

import os
from typing import Any

from lighteval.metrics.metrics import Metrics
from lighteval.tasks.lighteval_task import LightevalTaskConfig
from lighteval.tasks.requests import Doc

METRICS = {"acc": Metrics.loglikelihood_acc, "mrr": Metrics.mrr}


def arith_prompt(line: dict[str, Any], task_name: str | None = None) -> Doc:
    return Doc(task_name=task_name,
               query=f"Question: What is {line['x']} times {line['y']}?\nAnswer:",
               choices=[f" {c}" for c in line["choices"]], gold_index=line["label"])


def compare_prompt(line: dict[str, Any], task_name: str | None = None) -> Doc:
    return Doc(task_name=task_name,
               query=f"Question: Which is larger, {line['p']} or {line['q']}?\nAnswer:",
               choices=[f" {line['p']}", f" {line['q']}"], gold_index=line["label"])


def _task(name: str, prompt: Any, folder: str, metrics: list[str]) -> LightevalTaskConfig:
    return LightevalTaskConfig(
        name=name, prompt_function=prompt, hf_repo=os.path.join("data", folder),
        hf_subset="default", hf_avail_splits=["test"], evaluation_splits=["test"],
        metrics=[METRICS[m] for m in metrics])


TASKS_TABLE = [
    _task("arith_mc", arith_prompt, "arith",
          os.environ.get("LIGHTEVAL_FIXTURE_ARITH_METRICS", "acc").split(",")),
    _task("compare_mc", compare_prompt, "compare", ["acc"]),
]
