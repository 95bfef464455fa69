"""Multiplicity adjustment of p-values: :func:`adjust_pvalues` (Holm, Bonferroni,
Benjamini-Hochberg).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from mcnemar import vocabulary
from mcnemar.errors import McNemarError, option
from mcnemar.multiple._validation import FloatArray, _check_choice

_ADJUST_METHODS = vocabulary.names(vocabulary.ADJUSTMENTS)
# How the results name the adjustment ("Holm adjustment", "Adjusted p-values (Holm)").
_ADJUST_NAMES = {
    term.name: "no" if term.name == "none" else term.short for term in vocabulary.ADJUSTMENTS
}


# --------------------------------------------------------------------------------------------
# multiplicity adjustment


def adjust_pvalues(pvalues: npt.ArrayLike, method: str = "holm") -> FloatArray:
    r"""Adjust a family of p-values for multiple comparisons.

    With the m p-values sorted, :math:`p_{(1)} \le \dots \le p_{(m)}`:

    - Bonferroni: :math:`\tilde p_i = \min(1, m p_i)`;
    - Holm (step-down): :math:`\tilde p_{(i)} = \max_{j \le i} \min(1, (m - j + 1) p_{(j)})`;
    - Benjamini-Hochberg (step-up, false discovery rate):
      :math:`\tilde p_{(i)} = \min_{j \ge i} \min(1, m p_{(j)} / j)`;
    - ``"none"``: the p-values unchanged.

    Rejecting where the adjusted p-value is below alpha controls the family-wise error rate
    (Bonferroni, Holm) or the false discovery rate (BH, for independent or positively
    dependent tests) at alpha.

    Parameters
    ----------
    pvalues : array_like
        The family of p-values, any shape (all of them form one family). No NaN.
    method : {"holm", "bonferroni", "bh", "none"}
        The adjustment.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, float64, same shape as ``pvalues``.

    References
    ----------
    Holm, S. (1979). A simple sequentially rejective multiple test procedure.
    Scandinavian Journal of Statistics, 6(2), 65-70.

    Benjamini, Y., & Hochberg, Y. (1995). Controlling the false discovery rate: a practical
    and powerful approach to multiple testing. Journal of the Royal Statistical Society B,
    57(1), 289-300.

    Examples
    --------
    >>> from mcnemar.multiple import adjust_pvalues
    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").round(4).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_pvalues([0.01, 0.04, 0.03], "bh").round(4).tolist()
    [0.03, 0.04, 0.04]
    """
    method = _check_choice(method, "method", _ADJUST_METHODS)
    try:
        p = np.asarray(pvalues, dtype=np.float64)
    except (TypeError, ValueError):
        raise McNemarError(f"{option('pvalues')} must be numbers between 0 and 1; got "
                           f"{pvalues!r}") from None
    flat = p.ravel()
    if np.isnan(flat).any():
        raise McNemarError(
            f"{option('pvalues')} must not contain NaN; drop the untested entries first"
        )
    if ((flat < 0) | (flat > 1)).any():
        bad = flat[(flat < 0) | (flat > 1)][0]
        raise McNemarError(f"{option('pvalues')} must lie between 0 and 1; got {float(bad)!r}")
    return _adjust(flat, method).reshape(p.shape)


def _adjust(flat: FloatArray, method: str) -> FloatArray:
    """:func:`adjust_pvalues` of a checked 1-D float64 array and a checked method name."""
    m = flat.size
    if m == 0 or method == "none":
        return flat.copy()
    if method == "bonferroni":
        return np.minimum(1.0, flat * m)
    # Tied p-values get the same adjusted value whatever their order (the step-down maximum
    # and the step-up minimum absorb the smaller factor), so the faster unstable sort is fine.
    # The bits of a double >= 0 (or -0.0, which sorts first) order as the values do, and sort
    # faster as integers.
    order = np.argsort(flat.view(np.int64))
    ranked = flat[order]
    if method == "holm":
        steps = np.maximum.accumulate(np.arange(m, 0, -1, dtype=np.float64) * ranked)
    else:  # bh
        steps = np.minimum.accumulate((m / np.arange(1.0, m + 1.0) * ranked)[::-1])[::-1]
    out = np.empty(m, dtype=np.float64)
    out[order] = np.minimum(1.0, steps)
    return out


