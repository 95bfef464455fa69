""":func:`pairwise`: every paired comparison of K models from one correctness matrix."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from mcnemar.errors import McNemarError
from mcnemar.multiple._adjust import _ADJUST_METHODS, adjust_pvalues
from mcnemar.multiple._cochran import _cochran_q
from mcnemar.multiple._result import PairwiseResult
from mcnemar.multiple._validation import (
    _ALTERNATIVES,
    _TEST_METHODS,
    FloatArray,
    IntArray,
    _as_correctness_matrix,
    _check_choice,
    _check_names,
    _check_probability,
    _resolve_baseline,
)
from mcnemar.vocabulary import Adjustment, Alternative, ReportedTest

#: The type of ``adjust`` (:data:`mcnemar.vocabulary.Adjustment`).
AdjustMethod = Adjustment
#: The type of ``method`` (:data:`mcnemar.vocabulary.ReportedTest`).
TestMethod = ReportedTest

# float32 represents every integer up to 2**24 exactly, and a sum of 0/1 products never exceeds
# N, so a float32 matrix product gives exact counts while N < 2**24 (and runs on BLAS, unlike
# integer matmul). Larger N switches to float64 (exact up to 2**53).
_FLOAT32_EXACT_LIMIT = 2**24


# --------------------------------------------------------------------------------------------
# the computation


def _pair_counts(x: npt.NDArray[np.int8]) -> tuple[IntArray, IntArray]:
    """Both-right counts for every pair (K x K) and right counts per model, exactly."""
    n = x.shape[1]
    dtype = np.float32 if n < _FLOAT32_EXACT_LIMIT else np.float64
    xf: npt.NDArray[np.floating[Any]] = x.astype(dtype)
    both = np.rint(xf @ xf.T).astype(np.int64)
    return both, x.sum(axis=1, dtype=np.int64)


def _readonly(arr: npt.NDArray[Any]) -> npt.NDArray[Any]:
    arr.setflags(write=False)
    return arr


def pairwise(
    correct: npt.ArrayLike,
    *,
    names: Sequence[str] | None = None,
    adjust: AdjustMethod = "holm",
    method: TestMethod = "exact",
    baseline: int | str | None = None,
    alpha: float = 0.05,
    confidence_level: float = 0.95,
    alternative: Alternative = "two-sided",
    interval: str = "newcombe",
) -> PairwiseResult:
    r"""McNemar tests for every pair of K models scored on the same N items.

    With X the K x N 0/1 correctness matrix and :math:`r_i` the items model i got right, the
    paired tables of all pairs come from one matrix product:

    .. math::

        a_{ij} = (X X^\top)_{ij}, \quad b_{ij} = r_i - a_{ij}, \quad
        c_{ij} = r_j - a_{ij}, \quad d_{ij} = N - r_i - r_j + a_{ij}.

    Every pair is then tested with :func:`mcnemar.inference.mcnemar` in one vectorized call,
    its difference in accuracy :math:`(b_{ij} - c_{ij})/N` gets a confidence interval, and the
    p-values are adjusted over the family of comparisons: the K(K-1)/2 pairs, or the K-1
    comparisons with ``baseline``. Cochran's Q tests all K models at once.

    Parameters
    ----------
    correct : array_like, shape (K, N)
        0/1 or bool correctness, one row per model and one column per item (the same items,
        in the same order, for every model). K >= 2, N >= 1, no missing values.
    names : sequence of str, optional
        One unique name per model. Default ``"model 0"``, ``"model 1"``, ...
    adjust : {"holm", "bonferroni", "bh", "none"}
        Multiplicity adjustment: Holm (family-wise error, default), Bonferroni, or
        Benjamini-Hochberg (false discovery rate). See :func:`adjust_pvalues`.
    method : {"exact", "midp", "asymptotic", "corrected"}
        The McNemar test for each pair (see :func:`mcnemar.inference.mcnemar`).
    baseline : int or str, optional
        Compare each other model with this one (row index or name) instead of all pairs: the
        family is then the K - 1 comparisons, model = A and baseline = B.
    alpha : float
        Significance level for ``significant`` and the letter groups.
    confidence_level : float
        Level of each pair's interval for the difference (per comparison, not simultaneous).
    alternative : {"two-sided", "greater", "less"}
        Alternative of each test. One-sided alternatives need ``baseline``: "greater" means
        the model is more accurate than the baseline. In the all-pairs mode a significant
        two-sided test also tells the direction.
    interval : str
        Interval method for the difference, passed to ``confidence_interval(method=...)`` of
        the core test result (default Newcombe's square-and-add interval).

    Returns
    -------
    PairwiseResult

    References
    ----------
    McNemar, Q. (1947). Note on the sampling error of the difference between correlated
    proportions or percentages. Psychometrika, 12(2), 153-157.

    Holm, S. (1979). Scandinavian Journal of Statistics, 6(2), 65-70.

    Cochran, W. G. (1950). Biometrika, 37(3/4), 256-266.

    Piepho, H.-P. (2004). Journal of Computational and Graphical Statistics, 13(2), 456-466.

    Examples
    --------
    >>> import numpy as np
    >>> from mcnemar.multiple import pairwise
    >>> rng = np.random.default_rng(0)
    >>> x = (rng.random((3, 400)) < np.array([[0.9], [0.8], [0.78]])).astype(int)
    >>> res = pairwise(x, names=["big", "mid", "small"])
    >>> res.accuracy.tolist()
    [0.875, 0.815, 0.775]
    >>> res.adjusted_pvalue.round(4).tolist()
    [[nan, 0.0557, 0.0012], [0.0557, nan, 0.1949], [0.0012, 0.1949, nan]]
    >>> res.groups.letters
    ('a', 'ab', 'b')
    """
    from mcnemar.inference import mcnemar
    from mcnemar.table import PairedTable

    x = _as_correctness_matrix(correct)
    k, n = x.shape
    adjust = _check_choice(adjust, "adjust", _ADJUST_METHODS)  # type: ignore[assignment]
    method = _check_choice(method, "method", _TEST_METHODS)  # type: ignore[assignment]
    alternative = _check_choice(alternative, "alternative", _ALTERNATIVES)  # type: ignore[assignment]
    alpha = _check_probability(alpha, "alpha")
    confidence_level = _check_probability(confidence_level, "confidence_level")
    from mcnemar.intervals import DIFFERENCE_METHODS

    interval = _check_choice(interval, "interval", DIFFERENCE_METHODS)
    model_names = _check_names(names, k)
    base = _resolve_baseline(baseline, model_names)
    if base is None and alternative != "two-sided":
        raise McNemarError(
            f"alternative={alternative!r} needs a baseline: with all pairs both directions of "
            "every pair are of interest, so use alternative='two-sided' (a significant pair "
            "also tells which model is better), or pass baseline= to test each model against "
            "one reference in one direction"
        )

    both, right = _pair_counts(x)
    only_row = right[:, None] - both
    only_col = right[None, :] - both
    neither = n - right[:, None] - right[None, :] + both
    accuracy = right / n
    difference = accuracy[:, None] - accuracy[None, :]

    if base is None:
        iu, ju = np.triu_indices(k, 1)
    else:
        ju = np.full(k - 1, base, dtype=np.int64)
        iu = np.delete(np.arange(k, dtype=np.int64), base)
    upper = iu * k + ju  # flat positions of the tested cells, and of their mirror images
    lower = ju * k + iu
    table = PairedTable(
        a=both.take(upper), b=only_row.take(upper), c=only_col.take(upper),
        d=neither.take(upper),
    )
    res = mcnemar(table, method=method, alternative=alternative)
    ci = res.confidence_interval(confidence_level=confidence_level, method=interval)
    p = np.asarray(res.pvalue, dtype=np.float64).reshape(-1)
    adjusted = adjust_pvalues(p, adjust)

    def square(values: npt.ArrayLike, mirror: npt.ArrayLike | None) -> FloatArray:
        out = np.full(k * k, np.nan)
        out[upper] = np.asarray(values, dtype=np.float64).reshape(-1)
        if mirror is not None:
            out[lower] = np.asarray(mirror, dtype=np.float64).reshape(-1)
        return out.reshape(k, k)

    # Swapping A and B leaves a two-sided McNemar p-value unchanged and reflects the interval
    # for the difference through zero, so the lower triangle is filled without testing again.
    # One-sided tests exist only against a baseline and fill the model-vs-baseline cells.
    two_sided = alternative == "two-sided"
    pvalue = square(p, p if two_sided else None)
    adjusted_m = square(adjusted, adjusted if two_sided else None)
    log10_p = square(res.log10_pvalue, res.log10_pvalue if two_sided else None)
    statistic = square(res.statistic, res.statistic if two_sided else None)
    low = np.asarray(ci.low, dtype=np.float64).reshape(-1)
    high = np.asarray(ci.high, dtype=np.float64).reshape(-1)
    ci_low = square(low, -high if two_sided else None)
    ci_high = square(high, -low if two_sided else None)
    with np.errstate(invalid="ignore"):
        significant = adjusted_m < alpha

    order = np.argsort(-right, kind="stable")
    cq = _cochran_q(right, x.sum(axis=0, dtype=np.int64), (k, n))
    return PairwiseResult(
        names=model_names,
        n=int(n),
        correct=_readonly(right),
        accuracy=_readonly(accuracy),
        a=_readonly(both),
        b=_readonly(only_row),
        c=_readonly(only_col),
        d=_readonly(neither),
        difference=_readonly(difference),
        statistic=_readonly(statistic),
        pvalue=_readonly(pvalue),
        log10_pvalue=_readonly(log10_p),
        adjusted_pvalue=_readonly(adjusted_m),
        ci_low=_readonly(ci_low),
        ci_high=_readonly(ci_high),
        significant=_readonly(significant),
        pairs=_readonly(np.stack([iu, ju], axis=1).astype(np.int64)),
        ranking=tuple(int(m) for m in order),
        cochran_q=cq,
        baseline=base,
        method=method,
        adjust=adjust,
        alternative=alternative,
        interval=interval,
        alpha=alpha,
        confidence_level=confidence_level,
    )
