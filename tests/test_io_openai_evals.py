"""OpenAI evals JSONL reader (mcnemar.io.openai_evals).

Fixtures in tests/data/io/openai_evals follow the local recorder's layout (openai/evals
``evals/record.py``): a ``spec`` line, events with ``type == "match"`` holding
``data.correct``, and a ``final_report`` line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcnemar.errors import AlignmentError, InputFileError
from mcnemar.io import align, detect_format, read_run

DATA = Path(__file__).parent / "data" / "io" / "openai_evals"


def test_match_events_keyed_by_sample_id() -> None:
    run = read_run(DATA / "a.jsonl")
    assert detect_format(DATA / "a.jsonl") == "openai-evals"
    assert run.name == "gpt-new"
    assert run.keys.tolist() == [f"arith.dev.{i}" for i in range(6)]
    assert run.scores.tolist() == [1, 1, 1, 1, 0, 0]
    assert run.epochs is None
    assert run.metadata["eval_name"] == "arith.dev.v0"
    assert run.metadata["event_types"] == {"sampling": 6, "match": 6}
    assert align(run, read_run(DATA / "b.jsonl")).counts == (2, 2, 1, 1)


def _write(path: Path, events: list[dict]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def test_repeated_match_events_become_samples(tmp_path: Path) -> None:
    events = [{"spec": {"completion_fns": ["m"]}}]
    for sid, ok in [("s1", True), ("s2", False), ("s1", False), ("s1", True), ("s2", False)]:
        events.append({"run_id": "r", "event_id": len(events), "sample_id": sid,
                       "type": "match", "data": {"correct": ok}})
    run = read_run(_write(tmp_path / "e.jsonl", events))
    assert run.epochs.tolist() == [0, 0, 1, 2, 1]
    other = read_run(_write(tmp_path / "o.jsonl", events))
    with pytest.raises(AlignmentError, match="several samples"):
        align(run, other)
    assert align(run, other, reduce="majority").counts == (1, 0, 0, 1)


def test_no_match_events(tmp_path: Path) -> None:
    path = _write(tmp_path / "e.jsonl", [
        {"spec": {"completion_fns": ["m"]}},
        {"run_id": "r", "event_id": 0, "sample_id": "s", "type": "metrics", "data": {"x": 1}},
    ])
    with pytest.raises(InputFileError, match=r"no 'match' events.*metrics \(1\)"):
        read_run(path)


def test_malformed_events_name_the_line(tmp_path: Path) -> None:
    path = _write(tmp_path / "e.jsonl", [
        {"spec": {"completion_fns": ["m"]}},
        {"run_id": "r", "event_id": 0, "sample_id": "s", "type": "match", "data": {}},
    ])
    with pytest.raises(InputFileError, match=r"without data.correct") as info:
        read_run(path)
    assert info.value.line == 2
    truncated = tmp_path / "t.jsonl"
    truncated.write_text(path.read_text().splitlines()[0] + "\n{\"run_id\": \"r\", \"ty")
    with pytest.raises(InputFileError, match="line 2: line is not valid JSON"):
        read_run(truncated, format="openai-evals")
