"""A scripted model for ``lighteval custom``: fixed log-probabilities, no weights, no tokenizer.

lighteval loads this file (``lighteval custom MODEL_NAME fixture_model.py TASKS``) and uses
its one ``LightevalModel`` subclass. The model answers every multiple-choice document of the
fixture tasks: the gold choice gets the highest log-probability, except on the documents
listed for its task in the environment variable ``LIGHTEVAL_FIXTURE_WRONG`` (a JSON object
``{task: [doc ids]}``, set by ``gen_lighteval.py`` for each run), where the next choice wins
and the gold choice ranks second (even ids) or third (odd ids, when there are three choices).
"""

from __future__ import annotations

import json
import os
from typing import Any

from lighteval.models.abstract_model import LightevalModel
from lighteval.models.model_output import ModelResponse
from lighteval.utils.cache_management import SampleCache


class FixtureModel(LightevalModel):  # type: ignore[misc]
    """Right on every document but the listed ones; log-probabilities only."""

    def __init__(self, config: Any) -> None:
        self.config = config
        self._cache = SampleCache(config)  # the pipeline expects a model to have one
        self._wrong = {task: set(ids) for task, ids in
                       json.loads(os.environ.get("LIGHTEVAL_FIXTURE_WRONG", "{}")).items()}

    @property
    def tokenizer(self) -> None:
        return None

    @property
    def add_special_tokens(self) -> bool:
        return False

    @property
    def max_length(self) -> int:
        return 2048

    def _logprobs(self, doc: Any) -> list[float]:
        n = len(doc.choices)
        gold = doc.gold_index if isinstance(doc.gold_index, int) else doc.gold_index[0]
        task = str(doc.task_name).split("|")[0]
        logprobs = [-6.0] * n
        if int(doc.id) not in self._wrong.get(task, set()):
            logprobs[gold] = -0.5
            return logprobs
        logprobs[(gold + 1) % n] = -0.5
        if n >= 3 and int(doc.id) % 2:
            logprobs[(gold + 2) % n] = -1.5  # the gold choice ranks third
        logprobs[gold] = -2.5
        return logprobs

    def loglikelihood(self, docs: list[Any]) -> list[ModelResponse]:
        out = []
        for doc in docs:
            logprobs = self._logprobs(doc)
            best = max(range(len(logprobs)), key=logprobs.__getitem__)
            out.append(ModelResponse(
                logprobs=logprobs,
                argmax_logits_eq_gold=[i == best for i in range(len(logprobs))],
                input_tokens=[1],
                output_tokens=[[1] for _ in logprobs],
            ))
        return out

    def greedy_until(self, docs: list[Any]) -> list[ModelResponse]:
        raise NotImplementedError("the fixture tasks are scored on log-probabilities only")

    def loglikelihood_rolling(self, docs: list[Any]) -> list[ModelResponse]:
        raise NotImplementedError("the fixture tasks are scored on log-probabilities only")
