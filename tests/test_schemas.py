"""The shipped JSON Schemas (src/mcnemar/schemas/) speak the vocabulary's words.

Every ``enum`` of names in a schema is a quantity of :mod:`mcnemar.vocabulary`, whole and in
its order, or a part of one named below with the reason; a schema cannot offer a method the
library lacks, nor miss one it has. (That the documents the library writes validate against
the schemas is checked in test_report.py, test_tasks.py and test_scores_wording.py, and here
for the per-task comparison of scores, ``mcnemar.score-tasks/1``, on the output of the command
for real and derived harness logs.)
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcnemar import vocabulary
from mcnemar.vocabulary import Term, names

SCHEMAS = Path(__file__).resolve().parents[1] / "src" / "mcnemar" / "schemas"

QUANTITIES: dict[str, tuple[str, ...]] = {
    key: names(value)
    for key, value in vars(vocabulary).items()
    if key.isupper() and isinstance(value, tuple) and value and isinstance(value[0], Term)
}

#: (schema, JSON pointer of the enum) -> (the quantity it is part of, extra names, why).
PARTS: dict[tuple[str, str], tuple[str, tuple[str, ...], str]] = {
    ("report-1.schema.json", "/properties/recommended/properties/test/enum"): (
        "TESTS", ("clustered",),
        "a report recommends one of the four tests it computes, or the clustered test; the "
        "unconditional test is asked for by name, never recommended"),
    ("report-1.schema.json", "/properties/power/oneOf/1/properties/method/enum"): (
        "POWER_METHODS", (),
        "the report's detectable difference uses the exact test's power, or Connor's "
        "approximation for very many discordant items"),
    ("scores-1.schema.json", "/properties/recommended/properties/test/enum"): (
        "SCORE_TESTS", (),
        "a score report recommends the t test or the permutation test of the mean difference; "
        "the signed-rank and sign tests are about the (pseudo)median and are never recommended"),
    ("scores-1.schema.json",
     "/properties/difference/properties/recommended_interval/enum"): (
        "SCORE_INTERVALS", (),
        "the headline interval is of the mean difference: t, or the bootstrap with the "
        "permutation test; Hodges-Lehmann is of another estimand"),
    ("scores-1.schema.json", "/properties/sums/properties/left_out/items/enum"): (
        "SCORE_TESTS", ("bootstrap", "hodges-lehmann"),
        "a report from sums leaves out the tests and intervals that need the items in memory: "
        "the signed-rank and permutation tests, the bootstrap and Hodges-Lehmann intervals"),
    ("tasks-1.schema.json", "/$defs/task/properties/test/enum"): (
        "TESTS", ("clustered",),
        "a task's p-value is its report's headline: exact below 25 discordant items, "
        "chi-square from 25, or the clustered test"),
}


def _enums(node: Any, pointer: str = "") -> Iterator[tuple[str, list[Any]]]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "enum" and isinstance(value, list):
                yield f"{pointer}/enum", value
            else:
                yield from _enums(value, f"{pointer}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _enums(value, f"{pointer}/{i}")


def _named_enums() -> list[tuple[str, str, tuple[str, ...]]]:
    found = []
    for path in sorted(SCHEMAS.glob("*.schema.json")):
        for pointer, values in _enums(json.loads(path.read_text("utf-8"))):
            words = tuple(v for v in values if isinstance(v, str))
            # Enums of a quantity's names: two or more of them from one quantity (a run's
            # status "error" is not on_missing's "error").
            if any(len(set(words) & set(q)) >= 2 for q in QUANTITIES.values()):
                found.append((path.name, pointer, words))
    return found


def test_the_schemas_have_enums_of_names() -> None:
    # The search below must see something, or it checks nothing.
    assert len(_named_enums()) >= 6


@pytest.mark.parametrize(("schema", "pointer", "words"), _named_enums(),
                         ids=lambda x: x if isinstance(x, str) else None)
def test_every_enum_is_a_vocabulary_quantity(schema: str, pointer: str,
                                             words: tuple[str, ...]) -> None:
    part = PARTS.get((schema, pointer))
    if part is None:
        matches = [key for key, q in QUANTITIES.items() if q == words]
        assert matches, (f"{schema}{pointer} lists {words}, which is no quantity of the "
                         "vocabulary: write the whole quantity, or name the part in PARTS")
    else:
        key, extra, _why = part
        own = tuple(w for w in words if w not in extra)
        assert set(own) <= set(QUANTITIES[key]), (schema, pointer, own)
        assert own == tuple(w for w in QUANTITIES[key] if w in own), "out of order"


def test_the_parts_are_still_there() -> None:
    seen = {(schema, pointer) for schema, pointer, _ in _named_enums()}
    assert set(PARTS) <= seen


def test_the_flips_object_is_defined_once_for_both_documents() -> None:
    """``flips`` (the items that flipped) is the report schema's definition; the per-task
    document refers to it (its ``$defs`` are merged with the report's when loaded)."""
    from mcnemar.report import json_schema as report_schema
    from mcnemar.tasks import json_schema as tasks_schema

    report = json.loads((SCHEMAS / "report-1.schema.json").read_text("utf-8"))
    tasks = json.loads((SCHEMAS / "tasks-1.schema.json").read_text("utf-8"))
    assert {"flips", "flipSide", "flip"} <= set(report["$defs"])
    assert report["properties"]["flips"] == {"$ref": "#/$defs/flips"}
    assert "flips" not in tasks["$defs"] and tasks["properties"]["flips"]["$ref"] == \
        "#/$defs/flips"
    assert "flips" not in report["required"] and "flips" not in tasks["required"]
    assert tasks_schema()["$defs"]["flips"] == report_schema()["$defs"]["flips"]
    sides = report["$defs"]["flips"]["properties"]
    assert set(sides) == {"a_only", "b_only", "content", "reason"}



# --- the per-task comparison of scores (mcnemar.score-tasks/1) -------------------------------

DATA = Path(__file__).resolve().parent / "data" / "io"


def score_tasks_schema() -> dict[str, Any]:
    """The shipped score-tasks schema with the score report's schema at ``tasks[].report``."""
    from mcnemar.scores import tasks_json_schema

    return tasks_json_schema()


def _by_task(*args: str | Path) -> dict[str, Any]:
    from click.testing import CliRunner

    from mcnemar.cli import main

    result = CliRunner().invoke(main, ["compare", *map(str, args), "--by-task", "--format",
                                       "json"])
    assert result.exit_code == 0, result.output
    doc: dict[str, Any] = json.loads(result.output)
    return doc


SCORE_TASK_RUNS = {
    # HELM's graded stat on the suite of two scenarios (tests/data/io/derived/helm, derived
    # from the real suite by scripts/harness_fixtures/derive_graded_metrics.py)
    "helm-f1_score": (DATA / "derived" / "helm" / "fixture", "--runs",
                      "fixture/system-a,fixture/system-b", "--score", "f1_score"),
    # Inspect logs of two tasks, compared as scores
    "inspect-tasks": (DATA / "real" / "inspect_tasks" / "a", DATA / "real" / "inspect_tasks" / "b",
                      "--analysis", "scores"),
    # an lm-eval group, one directory per run, compared as scores, one-sided
    "lmeval-group": (DATA / "real" / "lmeval" / "group_a", DATA / "real" / "lmeval" / "group_b",
                     "--filter", "strict", "--analysis", "scores", "--alternative", "greater"),
}


@pytest.mark.parametrize("case", list(SCORE_TASK_RUNS))
def test_the_per_task_comparison_of_scores_conforms_to_its_schema(case: str) -> None:
    import jsonschema

    schema = score_tasks_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    doc = _by_task(*SCORE_TASK_RUNS[case])
    assert doc["schema"] == "mcnemar.score-tasks/1" and len(doc["tasks"]) == 2
    assert [e.message for e in validator.iter_errors(doc)] == []
    # The tasks' reports are checked as score reports, not just as objects.
    broken = json.loads(json.dumps(doc))
    broken["tasks"][0]["report"]["recommended"]["test"] = "wilcoxon"
    assert not validator.is_valid(broken)
    missing = {k: v for k, v in doc.items() if k != "overall"}
    assert not validator.is_valid(missing)


def test_the_shipped_score_tasks_schema_alone() -> None:
    """Loaded as shipped (``tasks[].report`` an object), the file is a valid schema of its own."""
    import jsonschema

    from mcnemar._format import shipped_schema

    schema = shipped_schema("score-tasks-1")
    assert schema["$id"] == "mcnemar.score-tasks/1"
    jsonschema.Draft202012Validator.check_schema(schema)
    doc = _by_task(*SCORE_TASK_RUNS["inspect-tasks"])
    jsonschema.validate(doc, schema)
