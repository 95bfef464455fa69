"""Cochran's Q test that K models have the same accuracy: :func:`cochran_q`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from mcnemar._format import format_table_pvalue, json_number
from mcnemar.multiple._validation import IntArray, _as_correctness_matrix

# --------------------------------------------------------------------------------------------
# Cochran's Q


@dataclass(frozen=True, slots=True, kw_only=True)
class CochranQResult:
    """Cochran's Q test that K runs have the same accuracy on the same N items.

    Attributes
    ----------
    statistic : float
        Q, or NaN when undefined (every item answered right by all runs or by none).
    df : int
        Degrees of freedom, K - 1.
    pvalue : float
        Upper tail of chi-square with ``df`` degrees of freedom; 1.0 when Q is undefined.
    k, n : int
        Number of runs and of items.
    """

    statistic: float
    df: int
    pvalue: float
    k: int
    n: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dictionary; an undefined statistic is ``None``."""
        out: dict[str, Any] = {
            "name": "Cochran's Q",
            "statistic": json_number(self.statistic),
            "df": self.df,
            "pvalue": json_number(self.pvalue),
            "k": self.k,
            "n": self.n,
        }
        if out["statistic"] is None:
            out["note"] = "undefined: every item was answered right by all runs or by none"
        return out

    def __str__(self) -> str:
        if not math.isfinite(self.statistic):
            return (
                f"Cochran's Q: undefined (no item separates the {self.k} runs), df = {self.df}, "
                f"p = 1"
            )
        return (
            f"Cochran's Q = {self.statistic:.4g}, df = {self.df}, "
            f"p = {format_table_pvalue(self.pvalue)} "
            f"({self.k} runs, {self.n} items)"
        )


def cochran_q(correct: npt.ArrayLike) -> CochranQResult:
    r"""Cochran's Q: do K runs scored on the same N items have the same accuracy?

    With :math:`C_j` the number of items run j got right, :math:`R_i` the number of runs that
    got item i right and :math:`\bar C` the mean of the :math:`C_j`,

    .. math::

        Q = \frac{(K - 1)\, K \sum_j (C_j - \bar C)^2}{\sum_i R_i (K - R_i)},

    which is the usual :math:`(K-1)(K\sum C_j^2 - T^2)/(K T - \sum R_i^2)` written so that no
    large numbers cancel. Under the null hypothesis Q is approximately chi-square with K - 1
    degrees of freedom. For K = 2 it equals McNemar's uncorrected statistic
    :math:`(b - c)^2/(b + c)`. Items answered the same by every run add nothing to Q; if no
    item separates the runs Q is undefined (NaN) and the p-value is 1.

    Parameters
    ----------
    correct : array_like, shape (K, N)
        0/1 (or bool) correctness, one row per run and one column per item.

    Returns
    -------
    CochranQResult

    References
    ----------
    Cochran, W. G. (1950). The comparison of percentages in matched samples. Biometrika,
    37(3/4), 256-266.

    Examples
    --------
    >>> from mcnemar.multiple import cochran_q
    >>> res = cochran_q([[1, 1, 0, 1, 1, 0], [1, 0, 0, 0, 1, 0], [0, 0, 1, 0, 1, 0]])
    >>> res.statistic, res.df
    (2.0, 2)
    """
    x = _as_correctness_matrix(correct)
    return _cochran_q(x.sum(axis=1, dtype=np.int64), x.sum(axis=0, dtype=np.int64), x.shape)


def _cochran_q(per_run: IntArray, per_item: IntArray, shape: tuple[int, int]) -> CochranQResult:
    from scipy import stats

    k, n = shape
    denominator = float(np.sum(per_item * (k - per_item), dtype=np.int64))
    dev = per_run - per_run.mean()
    numerator = (k - 1) * k * float(np.dot(dev, dev))
    if denominator == 0.0:
        return CochranQResult(statistic=math.nan, df=k - 1, pvalue=1.0, k=k, n=n)
    q = numerator / denominator
    return CochranQResult(
        statistic=q, df=k - 1, pvalue=float(stats.chi2.sf(q, k - 1)), k=k, n=n
    )


