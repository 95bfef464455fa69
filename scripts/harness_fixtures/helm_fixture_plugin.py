"""HELM plugin for the fixtures: two arithmetic scenarios, their run specs and a client.

Loaded by ``helm-run --plugins helm_fixture_plugin`` (see gen_helm.py). The client answers
without any model: system A and system B are wrong on fixed lists of instances, so the paired
table has discordant cells on both sides. Models ``fixture/system-a`` and
``fixture/system-b`` are declared in the ``--local-path`` folder that gen_helm.py writes.
"""

from __future__ import annotations

import re
from typing import Any

from helm.benchmark.adaptation.common_adapter_specs import get_generation_adapter_spec
from helm.benchmark.metrics.common_metric_specs import get_exact_match_metric_specs
from helm.benchmark.run_spec import RunSpec, run_spec_function
from helm.benchmark.scenarios.scenario import (
    CORRECT_TAG,
    TEST_SPLIT,
    Input,
    Instance,
    Output,
    Reference,
    Scenario,
    ScenarioSpec,
)
from helm.clients.client import CachingClient
from helm.common.cache import CacheConfig
from helm.common.request import GeneratedOutput, Request, RequestResult, Token

N = 30
#: Instance numbers (0..N-1) each system answers wrongly, per scenario.
WRONG = {
    "add": {"a": {0, 3, 8, 14, 19, 25}, "b": {3, 4, 9, 12, 14, 18, 21, 27}},
    "mul": {"a": {2, 5, 11, 16}, "b": {1, 5, 7, 13, 20, 22, 28}},
}


def _instances(op: str) -> list[Instance]:
    out = []
    for i in range(N):
        x, y = 6 * i + 2, 3 * i + 9
        answer = x + y if op == "+" else x * y
        out.append(Instance(
            input=Input(text=f"Item {i}: what is {x} {op} {y}?"),
            references=[Reference(Output(text=str(answer)), tags=[CORRECT_TAG])],
            split=TEST_SPLIT,
            id=f"id{i}",
        ))
    return out


class FixtureAddScenario(Scenario):
    name = "fixture_add"
    description = "Sums of two numbers (fixtures)."
    tags = ["question answering"]  # noqa: RUF012 (HELM declares a plain list)

    def get_instances(self, output_path: str) -> list[Instance]:
        return _instances("+")


class FixtureMulScenario(Scenario):
    name = "fixture_mul"
    description = "Products of two numbers (fixtures)."
    tags = ["question answering"]  # noqa: RUF012 (HELM declares a plain list)

    def get_instances(self, output_path: str) -> list[Instance]:
        return _instances("*")


def _run_spec(name: str, cls: str) -> RunSpec:
    adapter_spec = get_generation_adapter_spec(input_noun="Question", output_noun="Answer",
                                               max_train_instances=0, max_tokens=10)
    return RunSpec(
        name=name,
        scenario_spec=ScenarioSpec(class_name=f"helm_fixture_plugin.{cls}"),
        adapter_spec=adapter_spec,
        metric_specs=get_exact_match_metric_specs(),
        groups=[name],
    )


@run_spec_function("fixture_add")
def get_fixture_add_spec() -> RunSpec:
    return _run_spec("fixture_add", "FixtureAddScenario")


@run_spec_function("fixture_mul")
def get_fixture_mul_spec() -> RunSpec:
    return _run_spec("fixture_mul", "FixtureMulScenario")


class FixtureClient(CachingClient):
    """Answers the arithmetic questions, wrongly on the listed instances."""

    def __init__(self, cache_config: CacheConfig, **kwargs: Any) -> None:
        super().__init__(cache_config=cache_config)

    def make_request(self, request: Request) -> RequestResult:
        system = request.model_deployment.rsplit("-", 1)[-1]
        m = re.findall(r"Item (\d+): what is (\d+) ([+*]) (\d+)\?", request.prompt)
        i, x, op, y = int(m[-1][0]), int(m[-1][1]), m[-1][2], int(m[-1][3])
        answer = x + y if op == "+" else x * y
        if i in WRONG["add" if op == "+" else "mul"][system]:
            answer += 1
        text = f" {answer}"
        return RequestResult(
            success=True, cached=False, request_time=0.0, request_datetime=0,
            completions=[GeneratedOutput(text=text, logprob=0.0,
                                         tokens=[Token(text=text, logprob=0.0)])],
            embedding=[],
        )
