"""The expected paired table of two runs, counted by hand from the harness's own files.

Every generator writes, beside the logs, the table each pair of runs must give; it counts it
here from the outcomes it read with plain ``json`` (item -> score), never with ``mcnemar``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any


def paired_table(a: Mapping[Any, Any], b: Mapping[Any, Any]) -> dict[str, int]:
    """Cells a (both pass), b (only A), c (only B), d (neither) of runs holding the same
    items; a score passes when it equals 1 (``True`` does), anything else fails."""
    assert set(a) == set(b), "the runs hold different items"
    cells = {"a": 0, "b": 0, "c": 0, "d": 0}
    for k in a:
        pa, pb = a[k] == 1.0, b[k] == 1.0
        cells["a" if pa and pb else "b" if pa else "c" if pb else "d"] += 1
    return cells


def char_f1(prediction: str, reference: str) -> float:
    """F1 of the bags of characters (the SQuAD F1 with characters for tokens): the graded
    metric the lm-eval fixture task logs, counted again here to check and derive its values."""
    common = sum((Counter(prediction) & Counter(reference)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(prediction), common / len(reference)
    return 2 * precision * recall / (precision + recall)
