"""``mcnemar.testing``: assertions that pass silently or fail with the short report and the
first items that flipped, on the real harness logs of ``tests/data/io/real/``."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcnemar.errors import McNemarError
from mcnemar.io import read_run
from mcnemar.testing import assert_better, assert_not_worse

REAL = Path(__file__).parent / "data" / "io" / "real"
ARITH_A, ARITH_B = REAL / "inspect" / "arith_a.eval", REAL / "inspect" / "arith_b.eval"
MUL_A = REAL / "inspect_tasks" / "a" / "mul.eval"
MUL_B = REAL / "inspect_tasks" / "b" / "mul.eval"
SUITE_A, SUITE_B = REAL / "inspect_tasks" / "a", REAL / "inspect_tasks" / "b"
NAMES = "mockllm/system-a", "mockllm/system-b"


def test_not_worse_passes_silently() -> None:
    # A is right on 9 items B gets wrong, B on 7: no significant difference.
    assert assert_not_worse(ARITH_A, ARITH_B) is None
    assert assert_not_worse(read_run(ARITH_A), read_run(ARITH_B)) is None  # runs read already
    assert assert_not_worse(read_run(ARITH_A), ARITH_B) is None
    # B is worse on mul (b = 1, c = 8 the other way round), so A is not.
    assert_not_worse(MUL_B, MUL_A)


def test_not_worse_fails_with_the_short_report_and_the_first_flips() -> None:
    with pytest.raises(AssertionError) as caught:
        assert_not_worse(MUL_A, MUL_B)
    message = str(caught.value)
    lines = message.splitlines()
    assert lines[0] == (f"{NAMES[0]} is significantly worse than {NAMES[1]} "
                        "(p = 0.03906 < alpha = 0.05).")
    assert f"{NAMES[1]} did better than {NAMES[0]} by 35.0 accuracy points" in message
    assert "wrong on 1 item; " in message and "both right on 10, both wrong on 1 (20 items)" \
        in message
    # The flips: the one item only A got right, and the first 5 of the 8 only B got right.
    start = lines.index("Items that flipped:")
    assert lines[start + 1] == f"  {NAMES[0]} right, {NAMES[1]} wrong (1):"
    assert lines[start + 2].startswith("    - 17: score 1 vs 0; input 'What is 122 * 192?")
    assert lines[start + 3] == f"  {NAMES[0]} wrong, {NAMES[1]} right (8; the first 5):"
    assert [x.split(":")[0] for x in lines[start + 4:start + 9]] == \
        ["    - 1", "    - 5", "    - 6", "    - 9", "    - 13"]
    assert len(lines) == start + 9


def test_a_margin_asks_for_non_inferiority() -> None:
    assert_not_worse(ARITH_A, ARITH_B, margin=0.5)
    with pytest.raises(AssertionError, match=r"^non-inferiority of mockllm/system-a to "
                       r"mockllm/system-b by 0\.01 is not shown at alpha = 0\.05") as caught:
        assert_not_worse(ARITH_A, ARITH_B, margin=0.01)
    assert "Items that flipped:" in str(caught.value)


def test_by_task() -> None:
    # mul alone is worse (p = 0.039), but not after Holm's adjustment over two tasks.
    assert_not_worse(SUITE_A, SUITE_B, by_task=True)
    with pytest.raises(AssertionError) as caught:
        assert_not_worse(SUITE_A, SUITE_B, by_task=True, adjust="none")
    message = str(caught.value)
    assert message.startswith(f"{NAMES[0]} is significantly worse than {NAMES[1]} on 1 task "
                              "(mul) at alpha = 0.05 without adjustment.")
    assert "1 of 2 tasks significantly worse" in message
    assert "Items that flipped in mul:" in message and "(add)" not in message
    with pytest.raises(AssertionError, match=r"not significantly better than .* overall"):
        assert_better(SUITE_B, SUITE_A, by_task=True)


def test_better() -> None:
    assert_better(MUL_B, MUL_A)
    with pytest.raises(AssertionError) as caught:
        assert_better(ARITH_A, ARITH_B)
    first = str(caught.value).splitlines()[0]
    assert first.startswith(f"{NAMES[0]} is not significantly better than {NAMES[1]} (p = ")
    assert first.endswith(">= alpha = 0.05).")
    with pytest.raises(AssertionError, match="is significantly worse than"):
        assert_better(MUL_A, MUL_B)


def test_reader_and_pairing_options_pass_through() -> None:
    lmeval = REAL / "lmeval" / "renamed"
    assert_not_worse(lmeval / "samples_new.jsonl", lmeval / "samples_old.jsonl",
                     score="exact_match", filter="strict")
    with pytest.raises(McNemarError, match="several"):
        assert_not_worse(lmeval / "samples_new.jsonl", lmeval / "samples_old.jsonl",
                         score="exact_match")  # two filters, none chosen


def test_bad_arguments_are_errors_not_failures() -> None:
    with pytest.raises(McNemarError) as caught:
        assert_not_worse(ARITH_A, ARITH_B, margin=-0.01)
    assert caught.value.argument == "margin"
    with pytest.raises(McNemarError, match="by_task"):
        assert_not_worse(SUITE_A, SUITE_B, by_task=True, margin=0.01)
    with pytest.raises(McNemarError):
        assert_not_worse(42, ARITH_B)
