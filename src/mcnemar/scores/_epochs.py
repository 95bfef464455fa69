"""Repeated samples of an item (epochs) and items in clusters.

Epochs
------
When an item is scored several times (k samples, e.g. ``epochs=5`` in Inspect), the analysis
runs on the item means and the samples are not counted as items. Each score is
:math:`s_{ik} = x_i + \\varepsilon_{ik}`: the item's expected score and the sampling noise with
within-item variance :math:`\\sigma^2`. For the paired difference of the item means,

.. math::

   \\operatorname{Var}(\\bar d_i) = \\omega^2 + \\frac{\\sigma_A^2 + \\sigma_B^2}{k},
   \\qquad SE_k = \\sqrt{\\frac{\\omega^2 + (\\sigma_A^2 + \\sigma_B^2)/k}{n}},

with :math:`\\omega^2` the between-item variance of the difference (Miller 2024, sections on
resampling and paired differences). The within-item variances are the pooled within mean
squares of a one-way analysis of variance, :math:`\\hat\\sigma^2 = \\sum_i \\sum_k (s_{ik} -
\\bar s_i)^2 / \\sum_i (k_i - 1)`; the between-item variance is what is left of the observed
variance of the item means, :math:`\\hat\\omega^2 = \\max(0, s^2_{\\bar d} - (\\hat\\sigma_A^2 +
\\hat\\sigma_B^2)\\,\\overline{1/k})`. :math:`SE_k` for other k says what more (or fewer) samples
per item would buy, computed as :math:`SE_k^2 = SE^2 + (\\hat\\sigma_A^2 + \\hat\\sigma_B^2)
(1/k - \\overline{1/k})/n` from the observed standard error SE (the formula above where
:math:`\\hat\\omega^2 > 0`), and never below the floor :math:`\\sqrt{\\hat\\omega^2 / n}`.

Clusters
--------
Items in clusters (passages with several questions, prompts from one template) are not
independent. The standard error of the mean difference is then the cluster-robust CR1
estimator (Liang & Zeger 1986 with the small-sample factor G/(G - 1); Miller 2024 appendix A;
the estimator of statsmodels' ``cov_type="cluster"`` for a mean):

.. math::

   SE_{CR1} = \\frac{1}{n}\\sqrt{\\frac{G}{G - 1} \\sum_g \\Big(\\sum_{i \\in g} (d_i -
   \\bar d)\\Big)^2},

referred to t on G - 1 degrees of freedom, and the resampling tests use the clusters as their
unit (a cluster's items flip sign, or are drawn, together).

References
----------
Miller E (2024). Adding error bars to evals: a statistical approach to language model
evaluations. arXiv:2411.00640.
Liang KY, Zeger SL (1986). Longitudinal data analysis using generalized linear models.
Biometrika 73:13-22.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mcnemar._format import json_fields, json_value

FloatArray = NDArray[np.float64]

#: The numbers of samples per item whose standard error the epochs section states.
SAMPLES_SHOWN = (1, 2, 5, 10)


def codes_of(labels: Any, n: int, argument: str) -> tuple[NDArray[np.int64], int]:
    """Integer codes (in order of first appearance) of ``n`` labels, and how many distinct."""
    from mcnemar.errors import McNemarError

    values = np.asarray(labels, dtype=object).ravel().tolist()
    if len(values) != n:
        raise McNemarError(f"{argument} must give one label per row of scores: {n} rows, got "
                           f"{len(values)} labels", argument=argument)
    try:
        first = dict.fromkeys(values)
    except TypeError:
        raise McNemarError(f"{argument} labels must be text, numbers or tuples of them",
                           argument=argument) from None
    position = {key: i for i, key in enumerate(first)}
    codes = np.fromiter(map(position.__getitem__, values), dtype=np.int64, count=n)
    return codes, len(position)


def group_sums(x: FloatArray, codes: NDArray[np.int64], groups: int) -> FloatArray:
    """Per-group column sums of ``x`` (rows grouped by ``codes``)."""
    out = np.zeros((groups, x.shape[1]))
    np.add.at(out, codes, x)
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class EpochsResult:
    """The variance of the scores within and between items, and what k samples per item buy.

    Attributes
    ----------
    items, samples : int
        Items, and samples (rows) over all items.
    samples_per_item : float
        The mean number of samples of an item (k).
    within_a, within_b : float
        Within-item variance of each system's scores (pooled; NaN with one sample per item).
    between_a, between_b : float
        Between-item variance of each system's expected score.
    between_difference : float
        :math:`\\omega^2`, the between-item variance of the difference A - B.
    standard_error : float
        The standard error of the mean difference with these samples (from the item means).
    standard_error_at : dict of int to float
        The standard error with k samples per item, for several k (and ``0`` for the floor,
        infinitely many samples).
    """

    items: int
    samples: int
    samples_per_item: float
    within_a: float
    within_b: float
    between_a: float
    between_b: float
    between_difference: float
    standard_error: float
    standard_error_at: dict[int, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = json_fields(self, "items", "samples", "samples_per_item", "within_a", "within_b",
                          "between_a", "between_b", "between_difference", "standard_error")
        out["standard_error_at"] = [
            {"samples_per_item": None if k == 0 else k, "standard_error": json_value(v)}
            for k, v in self.standard_error_at.items()
        ]
        return out


def epochs(a: FloatArray, b: FloatArray, codes: NDArray[np.int64], items: int
           ) -> tuple[FloatArray, FloatArray, list[EpochsResult] | None]:
    """The item means of A and B (``(items, m)``) and, when some item has several samples,
    the decomposition of each column's variance."""
    counts = np.bincount(codes, minlength=items).astype(np.float64)
    mean_a = group_sums(a, codes, items) / counts[:, None]
    mean_b = group_sums(b, codes, items) / counts[:, None]
    if counts.max() <= 1:
        return mean_a, mean_b, None
    dof = float((counts - 1).sum())
    within_a = ((a - mean_a[codes]) ** 2).sum(axis=0) / dof
    within_b = ((b - mean_b[codes]) ** 2).sum(axis=0) / dof
    inv_k = float(np.mean(1.0 / counts))
    d = mean_a - mean_b
    n = items
    ddof = 1 if n > 1 else 0
    var_d = d.var(axis=0, ddof=ddof)
    var_a, var_b = mean_a.var(axis=0, ddof=ddof), mean_b.var(axis=0, ddof=ddof)
    out = []
    for j in range(a.shape[1]):
        wa, wb = float(within_a[j]), float(within_b[j])
        omega = max(0.0, float(var_d[j]) - (wa + wb) * inv_k)
        # SE_k^2 = SE^2 + (sigma_A^2 + sigma_B^2)(1/k - mean(1/k_i))/n: the observed standard
        # error at the samples taken, never below the floor omega^2/n.
        observed = float(var_d[j]) / n
        at = {k: math.sqrt(max(omega / n, observed + (wa + wb) * (1.0 / k - inv_k) / n))
              for k in SAMPLES_SHOWN}
        at[0] = math.sqrt(omega / n)
        out.append(EpochsResult(
            items=n, samples=int(counts.sum()), samples_per_item=float(counts.mean()),
            within_a=wa, within_b=wb,
            between_a=max(0.0, float(var_a[j]) - wa * inv_k),
            between_b=max(0.0, float(var_b[j]) - wb * inv_k),
            between_difference=omega, standard_error=math.sqrt(float(var_d[j]) / n),
            standard_error_at=at,
        ))
    return mean_a, mean_b, out


def cluster_standard_error(d: FloatArray, codes: NDArray[np.int64], groups: int) -> FloatArray:
    """The CR1 standard error of the column means of ``d`` for items in ``groups`` clusters."""
    n = d.shape[0]
    centred = d - d.mean(axis=0)
    sums = group_sums(centred, codes, groups)
    factor = groups / (groups - 1) if groups > 1 else math.nan
    result: FloatArray = np.sqrt(factor * (sums**2).sum(axis=0)) / n
    return result
