"""Format detection from file content (mcnemar.io.detect)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcnemar.errors import InputFileError
from mcnemar.io import FORMATS, detect_format

DATA = Path(__file__).parent / "data" / "io"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("lmeval_a", "lm-eval"),
        ("lmeval_b/org__model-old/samples_arc_easy_2026-01-03T11-30-00.654321.jsonl", "lm-eval"),
        ("inspect/a.eval", "inspect"),
        ("inspect/a.json", "inspect"),
        ("openai_evals/a.jsonl", "openai-evals"),
        ("helm/mmlu_a", "helm"),
        ("helm/mmlu_a/per_instance_stats.json", "helm"),
        ("generic/a.csv", "csv"),
        ("generic/a.jsonl", "jsonl"),
    ],
)
def test_fixtures_are_recognised(path: str, expected: str) -> None:
    assert detect_format(DATA / path) == expected
    assert expected in FORMATS


def test_content_wins_over_the_extension(tmp_path: Path) -> None:
    odd = tmp_path / "results.txt"
    odd.write_text('{"spec": {"completion_fns": ["m"]}}\n')
    assert detect_format(odd) == "openai-evals"
    zipped = tmp_path / "log.bin"
    zipped.write_bytes((DATA / "inspect" / "a.eval").read_bytes())
    assert detect_format(zipped) == "inspect"


@pytest.mark.parametrize(
    ("content", "pattern"),
    [(b"", "empty file"), (b"[1, 2, 3]", "JSON list that is not HELM"),
     (b'{\n  "a": ', "first line is not a complete object"),
     (b"\x00\x01\x02binary", "binary file")],
)
def test_unrecognisable_files(tmp_path: Path, content: bytes, pattern: str) -> None:
    path = tmp_path / "x"
    path.write_bytes(content)
    with pytest.raises(InputFileError, match=pattern):
        detect_format(path)


def test_directory_without_known_files(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="cannot tell the format of this directory"):
        detect_format(tmp_path)


@pytest.mark.parametrize("name", ["README.md", "Makefile", "pyproject.toml"])
def test_prose_is_not_a_table(name: str) -> None:
    # This repository's own prose: one field a line, or lines of different widths.
    from click.testing import CliRunner

    from mcnemar.cli import main

    path = Path(__file__).parents[1] / name
    with pytest.raises(InputFileError, match=r"cannot tell the format \(not a table"):
        detect_format(path)
    result = CliRunner().invoke(main, ["compare", str(path), str(path)])
    assert result.exit_code == 2
    assert "promptfoo" in result.output and "--input-format NAME" in result.output


def test_a_table_of_two_columns_is_csv(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_text("item;passed\nq1;yes\n")
    assert detect_format(path) == "csv"
    one = tmp_path / "one.csv"
    one.write_text("id,correct\n")  # a header alone: still a table, of no rows
    assert detect_format(one) == "csv"
