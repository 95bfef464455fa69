"""Predictions scored against true labels (mcnemar.io.predictions, ``compare --truth``).

Independent check: PairedTable.from_predictions on the same label vectors, aligned by hand.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mcnemar.errors import AlignmentError, InputFileError
from mcnemar.io import align
from mcnemar.io.predictions import normalise_label, score_predictions
from mcnemar.table import PairedTable

DATA = Path(__file__).parent / "data" / "io" / "generic"


def test_fixture_agrees_with_from_predictions() -> None:
    run_a = score_predictions(DATA / "labels.csv", DATA / "pred_a.csv")
    run_b = score_predictions(DATA / "labels.csv", DATA / "pred_b.jsonl")
    al = align(run_a, run_b)
    y = ["cat", "dog", "cat", "bird", "dog", "cat"]
    pa = [lab if i in {0, 1, 2, 3} else "fish" for i, lab in enumerate(y)]
    pb = [lab if i in {0, 1, 4} else "fish" for i, lab in enumerate(y)]
    assert al.table == PairedTable.from_predictions(np.array(y), np.array(pa), np.array(pb))
    assert run_a.score_name == "prediction == label"


@pytest.mark.parametrize(("value", "expected"),
                         [(1, "1"), (1.0, "1"), ("1.0", "1"), (" 2.5 ", "2.5"), (True, "true"),
                          ("", None), (None, None), (float("nan"), None), ("cat", "cat")])
def test_label_normalisation(value: object, expected: str | None) -> None:
    assert normalise_label(value) == expected


def test_unknown_ids_and_unpredicted_items(tmp_path: Path) -> None:
    (tmp_path / "p.csv").write_text("id,prediction\n0,cat\n99,dog\n")
    with pytest.raises(InputFileError, match=r"1 predicted ids have no true label.*'99'"):
        score_predictions(DATA / "labels.csv", tmp_path / "p.csv")
    (tmp_path / "partial.csv").write_text("id,prediction\n0,cat\n1,dog\n")
    partial = score_predictions(DATA / "labels.csv", tmp_path / "partial.csv")
    full = score_predictions(DATA / "labels.csv", DATA / "pred_a.csv")
    with pytest.raises(AlignmentError, match="4 items have no score"):
        align(partial, full)
    assert align(partial, full, on_missing="intersect").summary.matched == 2


def test_duplicated_true_labels(tmp_path: Path) -> None:
    (tmp_path / "y.csv").write_text("id,label\n1,a\n1,b\n")
    with pytest.raises(InputFileError, match="1 ids have several true labels"):
        score_predictions(tmp_path / "y.csv", DATA / "pred_a.csv")
