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
    # and the step-up minimum absorb the smaller factor), so any order that sorts them will do.
    if method == "holm":
        # p = 0 ranks first and stays 0, and p = 1 becomes 1 whatever its rank: only the others
        # are sorted (many pairs of a large comparison have a p-value that underflows to 0).
        out = flat.copy()
        inner = np.flatnonzero((flat > 0.0) & (flat < 1.0))
        order, ranked = _sorted(flat[inner])
        first = m - int(np.count_nonzero(flat == 0.0))  # the factor of the smallest of them
        factors = np.arange(first, first - inner.size, -1, dtype=np.float64)
        out[inner[order]] = np.minimum(1.0, np.maximum.accumulate(factors * ranked))
        return out
    order, ranked = _sorted(flat)
    steps = np.minimum.accumulate((m / np.arange(1.0, m + 1.0) * ranked)[::-1])[::-1]  # bh
    out = np.empty(m, dtype=np.float64)
    out[order] = np.minimum(1.0, steps)
    return out


def _sorted(values: FloatArray) -> tuple[npt.NDArray[np.intp], FloatArray]:
    """Indices that sort ``values`` (doubles >= 0, or -0.0) ascending, ties in any order, and
    the values in that order.

    The bits of a double >= 0 order as its value does. Each value's bits with the low ones
    replaced by its index form one integer key, and sorting the keys (a plain sort, which takes
    less than half as long as an argsort) gives the order at once. Values that differ only in
    the replaced bits come out in the order of their indices: the runs of such values where
    that is not their order (there are few, if any) are sorted again exactly.
    """
    m = values.size
    shift = max(1, (m - 1).bit_length())
    keys = values.view(np.int64) >> shift << shift
    keys |= np.arange(m, dtype=np.int64)
    keys.sort()
    order: npt.NDArray[np.intp] = (keys & ((1 << shift) - 1)).astype(np.intp, copy=False)
    ranked = values[order]
    down = np.flatnonzero(ranked[1:] < ranked[:-1])
    if down.size:
        # the runs of equal high bits around the places where the values go down
        coarse = keys >> shift
        high = np.unique(coarse[down])
        starts = np.searchsorted(coarse, high, side="left")
        ends = np.searchsorted(coarse, high, side="right")
        for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
            again = np.argsort(ranked[start:end], kind="stable")
            order[start:end] = order[start:end][again]
            ranked[start:end] = ranked[start:end][again]
    return order, ranked
