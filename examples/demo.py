"""The main job on the shipped example: is QDA really better than LDA on the digits test set?

Reads ``digits_predictions.csv`` (true labels and both classifiers' predictions for 899 test
items; made by ``make_digits_predictions.py``) and prints the full McNemar report.
"""

from __future__ import annotations

import csv
from pathlib import Path

from mcnemar import PairedTable, analyze

HERE = Path(__file__).parent


def main() -> None:
    with open(HERE / "digits_predictions.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    y_true = [r["y_true"] for r in rows]
    table = PairedTable.from_predictions(y_true, [r["lda"] for r in rows], [r["qda"] for r in rows])
    print(analyze(table, names=("LDA", "QDA")))


if __name__ == "__main__":
    main()
