"""Make the shipped example: two discriminant classifiers on scikit-learn's digits data.

Linear and quadratic discriminant analysis are fitted on one half of the 1,797 handwritten
digits (8x8 images, 10 classes) that ship with scikit-learn, and both predict the other half.
The per-item predictions are written to ``digits_predictions.csv`` (columns ``item``,
``y_true``, ``lda``, ``qda``) so the demo runs without scikit-learn.

Run with ``python examples/make_digits_predictions.py`` (needs ``pip install scikit-learn``).
"""

from __future__ import annotations

import csv
from pathlib import Path

from sklearn.datasets import load_digits
from sklearn.discriminant_analysis import (
    LinearDiscriminantAnalysis,
    QuadraticDiscriminantAnalysis,
)
from sklearn.model_selection import train_test_split

HERE = Path(__file__).parent


def main() -> None:
    x, y = load_digits(return_X_y=True)
    x_train, x_test, y_train, y_test, _, idx_test = train_test_split(
        x, y, range(len(y)), test_size=0.5, random_state=0, stratify=y
    )
    lda = LinearDiscriminantAnalysis().fit(x_train, y_train)
    # Some pixels are constant within a class; regularising the class covariances keeps QDA
    # well defined.
    qda = QuadraticDiscriminantAnalysis(reg_param=0.05).fit(x_train, y_train)
    pred_lda = lda.predict(x_test)
    pred_qda = qda.predict(x_test)
    out = HERE / "digits_predictions.csv"
    with open(out, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["item", "y_true", "lda", "qda"])
        for row in zip(idx_test, y_test, pred_lda, pred_qda, strict=True):
            writer.writerow([int(v) for v in row])
    print(f"wrote {out} ({len(y_test)} test items)")


if __name__ == "__main__":
    main()
