"""Classifier predictions scored against true labels: ``mcnemar compare --truth``.

The labels file and each predictions file are generic files (CSV, JSONL or Parquet) with an
id column and a label column. A prediction is correct when its label equals the true label
of the same id; labels are compared as text after normalising numbers (``1``, ``1.0`` and
``"1"`` are the same label). A predicted id absent from the labels file is an error; a true
label without a prediction is reported by alignment like any missing item.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mcnemar.errors import InputFileError
from mcnemar.io._run import RunResults, check_path, object_array, read_parquet, short_repr
from mcnemar.io.align import SHOW, factorize, lookup
from mcnemar.io.detect import detect_format
from mcnemar.io.generic import ID_COLUMNS, PREDICTION_COLUMNS, _csv_rows, _jsonl_rows, _pick

__all__ = ["LABEL_COLUMNS", "PREDICTION_COLUMNS", "read_labels", "score_predictions"]

#: Label column names tried in a labels file.
LABEL_COLUMNS = ("label", "y_true", "target", "truth", "gold", "answer", "reference")


def normalise_label(value: Any) -> str | None:
    """Canonical text of a label (numbers normalised; ``None``/empty means no label).

    Examples
    --------
    >>> normalise_label(1), normalise_label("1.0"), normalise_label(" cat ")
    ('1', '1', 'cat')
    """
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return None
        return str(int(value)) if value.is_integer() else repr(value)
    text = str(value).strip()
    if text == "":
        return None
    try:
        number = float(text)
    except ValueError:
        return text
    if math.isnan(number) or math.isinf(number):
        return text
    return str(int(number)) if number.is_integer() else repr(number)


def read_labels(
    path: str | Path, *, id: str | Sequence[str] | None = None, label: str | None = None,
    candidates: Sequence[str] = LABEL_COLUMNS, progress: bool | None = None,
) -> tuple[np.ndarray, np.ndarray, str]:
    """Keys, normalised labels and the label column's name, from a generic file."""
    p = check_path(path)
    kind = detect_format(p)
    if kind == "parquet":
        table = read_parquet(p)
        columns = list(table.column_names)
        data = table.to_pylist()
        rows = [(i + 2, r) for i, r in enumerate(data)]
    elif kind == "csv":
        columns, rows = _csv_rows(p, progress)
    elif kind == "jsonl":
        columns, rows = _jsonl_rows(p, progress)
    else:
        raise InputFileError(f"a {kind} file; labels and predictions must be CSV, JSONL or "
                             "Parquet with an id and a label column", path=str(p))
    ids = [id] if isinstance(id, str) else (list(id) if id else None)
    id_cols = _pick(columns, ids, ID_COLUMNS, "id", "id", p)
    argument = "prediction" if candidates is PREDICTION_COLUMNS else "label"
    label_col = _pick(columns, [label] if label else None, candidates, "label", argument, p)[0]
    keys: list[Any] = []
    labels: list[str | None] = []
    for number, record in rows:
        parts = []
        for col in id_cols:
            value = record.get(col)
            if value is None or value == "":
                raise InputFileError(f"record has no id in column {col!r}", path=str(p),
                                     line=number)
            parts.append(str(value))
        keys.append(parts[0] if len(parts) == 1 else tuple(parts))
        labels.append(normalise_label(record.get(label_col)))
    return object_array(keys), object_array(labels), label_col


def score_predictions(
    truth: str | Path,
    predictions: str | Path,
    *,
    id: str | Sequence[str] | None = None,
    label: str | None = None,
    prediction: str | None = None,
    name: str | None = None,
    progress: bool | None = None,
) -> RunResults:
    """Score one predictions file against the true labels: a run of 0/1 outcomes.

    Parameters
    ----------
    truth, predictions : str or Path
        Files with an id column and a label column.
    id : str or list of str, optional
        Id column(s) in both files (default: detected, see
        :data:`mcnemar.io.generic.ID_COLUMNS`).
    label, prediction : str, optional
        The true-label column (default: the first of :data:`LABEL_COLUMNS`) and the
        predicted-label column (default: the first of :data:`PREDICTION_COLUMNS`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "y.csv").write_text("id,label\\n1,cat\\n2,dog\\n")
    >>> _ = (d / "p.csv").write_text("id,prediction\\n2,dog\\n1,dog\\n")
    >>> run = score_predictions(d / "y.csv", d / "p.csv")
    >>> run.keys.tolist(), run.scores.tolist()
    (['2', '1'], [1.0, 0.0])
    """
    t_keys, t_labels, label_col = read_labels(truth, id=id, label=label, progress=progress)
    p_keys, p_labels, pred_col = read_labels(predictions, id=id, label=prediction,
                                             candidates=PREDICTION_COLUMNS, progress=progress)
    codes, uniq = factorize(t_keys)
    if len(uniq) < len(t_keys):
        counts = np.bincount(codes)
        dup = uniq[counts > 1]
        raise InputFileError(f"{len(dup)} ids have several true labels (e.g. "
                             f"{', '.join(map(short_repr, dup[:SHOW]))})", path=str(truth))
    pos = lookup(t_keys, p_keys)
    unknown = pos < 0
    if unknown.any():
        n = int(unknown.sum())
        raise InputFileError(
            f"{n} predicted ids have no true label in {truth} (e.g. "
            f"{', '.join(map(short_repr, p_keys[unknown][:SHOW]))})",
            path=str(predictions),
        )
    true = t_labels[pos]
    missing = np.fromiter((x is None for x in true), bool, len(true)) | \
        np.fromiter((x is None for x in p_labels), bool, len(p_labels))
    scores = np.where(missing, np.nan, (true == p_labels).astype(np.float64))
    # A true label without a prediction is an item with no score, so that alignment reports
    # it (an error unless on_missing="intersect") instead of it vanishing silently.
    unpredicted = lookup(p_keys, t_keys) < 0
    keys = p_keys
    if unpredicted.any():
        keys = object_array(p_keys.tolist() + t_keys[unpredicted].tolist())
        scores = np.concatenate([scores, np.full(int(unpredicted.sum()), np.nan)])
    path = Path(predictions)
    return RunResults(
        name=name or path.name,
        path=str(path),
        format="predictions",
        keys=keys,
        scores=scores,
        records=len(p_keys),
        key_names=("id",),
        score_name=f"{pred_col} == {label_col}",
        metadata={"truth": str(truth), "prediction": pred_col, "label": label_col},
    )
