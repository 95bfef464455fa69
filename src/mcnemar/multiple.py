"""Many models on the same items: all pairwise McNemar tests, adjustments and letter groups.

Contents
--------
:func:`pairwise`
    every pair of K runs (or each run against a baseline) from one K x N 0/1 correctness
    matrix, with p-values adjusted for multiplicity, intervals for the differences, Cochran's Q
    and the significance groups of a leaderboard. Returns a :class:`PairwiseResult`.
:func:`cochran_q`
    Cochran's Q, the omnibus test that all K runs have the same accuracy
    (:class:`CochranQResult`).
:func:`adjust_pvalues`
    Holm, Bonferroni and Benjamini-Hochberg adjustments, vectorized.
:func:`compact_letter_display`
    significance letters from a boolean "significantly different" matrix
    (:class:`SignificanceGroups` holds them for a result).

All K(K-1)/2 paired tables come from one matrix product over the correctness matrix; the tests
and intervals for all pairs are single vectorized calls of :func:`mcnemar.inference.mcnemar`.
No statistic loops over pairs in Python. The letter display (a graph search, computed only when
:attr:`PairwiseResult.groups` is first read) and the JSON records (one per pair) do.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from mcnemar.errors import McNemarError

__all__ = [
    "CochranQResult",
    "PairwiseResult",
    "SignificanceGroups",
    "adjust_pvalues",
    "cochran_q",
    "compact_letter_display",
    "pairwise",
]

AdjustMethod = Literal["holm", "bonferroni", "bh", "none"]
TestMethod = Literal["exact", "midp", "asymptotic", "corrected"]
Alternative = Literal["two-sided", "greater", "less"]

_ADJUST_METHODS = ("holm", "bonferroni", "bh", "none")
_ADJUST_NAMES = {
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "bh": "Benjamini-Hochberg",
    "none": "no",
}
_TEST_METHODS = ("exact", "midp", "asymptotic", "corrected")
_TEST_NAMES = {
    "exact": "exact conditional McNemar test",
    "midp": "mid-p McNemar test",
    "asymptotic": "asymptotic McNemar test (chi-square, no continuity correction)",
    "corrected": "asymptotic McNemar test with Edwards' continuity correction",
}
_ALTERNATIVES = ("two-sided", "greater", "less")

# float32 represents every integer up to 2**24 exactly, and a sum of 0/1 products never exceeds
# N, so a float32 matrix product gives exact counts while N < 2**24 (and runs on BLAS, unlike
# integer matmul). Larger N switches to float64 (exact up to 2**53).
_FLOAT32_EXACT_LIMIT = 2**24

# Bron-Kerbosch steps allowed (plus 200 per model) before the letters fall back to a greedy
# clique cover; real leaderboards need far fewer (about 60 per model for K = 1,000).
_CLIQUE_SEARCH_BUDGET = 20_000

_MATRIX_TEXT_MAX_MODELS = 30
_LIST_MAX_LINES = 40

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


# --------------------------------------------------------------------------------------------
# input validation


def _as_correctness_matrix(correct: Any, argname: str = "correct") -> npt.NDArray[np.int8]:
    """Validate a K x N 0/1 matrix and return it as int8."""
    try:
        x = np.asarray(correct)
    except (TypeError, ValueError) as exc:
        raise McNemarError(
            f"{argname} must be a K x N matrix of 0/1 (one row per model, one column per item); "
            f"it could not be read as an array: {exc}"
        ) from None
    if x.ndim != 2:
        raise McNemarError(
            f"{argname} must be a 2-D K x N matrix (one row per model, one column per item); "
            f"got an array with {x.ndim} dimension(s) and shape {x.shape}"
        )
    k, n = x.shape
    if k < 2:
        raise McNemarError(
            f"{argname} must have at least 2 rows (one per model) to compare; got shape {x.shape}"
        )
    if n < 1:
        raise McNemarError(
            f"{argname} must have at least 1 column (one per item); got shape {x.shape}"
        )
    if x.dtype == np.bool_:
        return x.astype(np.int8)
    if x.dtype.kind not in "iuf":
        raise McNemarError(
            f"{argname} must hold 0/1 or True/False per model and item; got values of dtype "
            f"{x.dtype} (first value {x.flat[0].item()!r})"
        )
    if x.dtype.kind == "f":
        nan = np.isnan(x)
        if nan.any():
            i, j = np.argwhere(nan)[0]
            raise McNemarError(
                f"{argname} has a missing value (NaN) for model {i}, item {j}; every model "
                "needs a 0/1 outcome on every item (align the runs first)"
            )
    bad = (x != 0) & (x != 1)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise McNemarError(
            f"{argname} must hold only 0 and 1 (or True/False); got {x[i, j].item()!r} for "
            f"model {i}, item {j}"
        )
    return x.astype(np.int8)


def _check_choice(value: Any, argname: str, valid: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in valid:
        choices = ", ".join(repr(v) for v in valid)
        raise McNemarError(f"{argname} must be one of {choices}; got {value!r}")
    return value


def _check_probability(value: Any, argname: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise McNemarError(f"{argname} must be a number strictly between 0 and 1; got {value!r}")
    v = float(value)
    if not 0.0 < v < 1.0:
        raise McNemarError(f"{argname} must be strictly between 0 and 1; got {value!r}")
    return v


def _check_names(names: Sequence[str] | None, k: int) -> tuple[str, ...]:
    if names is None:
        return tuple(f"model {i}" for i in range(k))
    if isinstance(names, str):
        raise McNemarError(
            f"names must be a sequence of {k} strings (one per row of correct); got the single "
            f"string {names!r}"
        )
    out = tuple(names)
    if len(out) != k:
        raise McNemarError(
            f"names must have one entry per model (row of correct): expected {k}, got "
            f"{len(out)}: {list(out)!r}"
        )
    for name in out:
        if not isinstance(name, str) or not name:
            raise McNemarError(f"names must be non-empty strings; got {name!r} in {list(out)!r}")
    seen: set[str] = set()
    for name in out:
        if name in seen:
            raise McNemarError(f"names must be unique; {name!r} appears more than once")
        seen.add(name)
    return out


def _resolve_baseline(baseline: int | str | None, names: tuple[str, ...]) -> int | None:
    if baseline is None:
        return None
    k = len(names)
    if isinstance(baseline, str):
        if baseline in names:
            return names.index(baseline)
        raise McNemarError(
            f"baseline must be a model name or a row index 0..{k - 1}; {baseline!r} is not one of "
            f"the names {list(names)!r}"
        )
    if isinstance(baseline, bool) or not isinstance(baseline, (int, np.integer)):
        raise McNemarError(
            f"baseline must be a model name or a row index 0..{k - 1}; got {baseline!r}"
        )
    idx = int(baseline)
    if not 0 <= idx < k:
        raise McNemarError(f"baseline index must be between 0 and {k - 1}; got {idx}")
    return idx


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
    method = _check_choice(method, "adjust", _ADJUST_METHODS)
    p = np.asarray(pvalues, dtype=np.float64)
    flat = p.ravel()
    if np.isnan(flat).any():
        raise McNemarError("pvalues must not contain NaN; drop the untested entries first")
    if ((flat < 0) | (flat > 1)).any():
        bad = flat[(flat < 0) | (flat > 1)][0]
        raise McNemarError(f"pvalues must lie between 0 and 1; got {bad!r}")
    m = flat.size
    if m == 0 or method == "none":
        return flat.copy().reshape(p.shape)
    if method == "bonferroni":
        return np.minimum(1.0, flat * m).reshape(p.shape)
    # Tied p-values get the same adjusted value whatever their order (the step-down maximum
    # and the step-up minimum absorb the smaller factor), so the faster unstable sort is fine.
    order = np.argsort(flat)
    ranked = flat[order]
    if method == "holm":
        steps = np.maximum.accumulate((m - np.arange(m)) * ranked)
    else:  # bh
        steps = np.minimum.accumulate((m / np.arange(1, m + 1) * ranked)[::-1])[::-1]
    out = np.empty(m, dtype=np.float64)
    out[order] = np.minimum(1.0, steps)
    return out.reshape(p.shape)


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
        stat = self.statistic if math.isfinite(self.statistic) else None
        out: dict[str, Any] = {
            "name": "Cochran's Q",
            "statistic": stat,
            "df": self.df,
            "pvalue": self.pvalue,
            "k": self.k,
            "n": self.n,
        }
        if stat is None:
            out["note"] = "undefined: every item was answered right by all runs or by none"
        return out

    def __str__(self) -> str:
        if not math.isfinite(self.statistic):
            return (
                f"Cochran's Q: undefined (no item separates the {self.k} runs), df = {self.df}, "
                f"p = 1"
            )
        return (
            f"Cochran's Q = {self.statistic:.4g}, df = {self.df}, p = {_fmt_p(self.pvalue)} "
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


# --------------------------------------------------------------------------------------------
# compact letter display


def _bits(mask: int, nbytes: int) -> list[int]:
    """Indices of the set bits of ``mask`` (a vertex set), ascending."""
    if mask.bit_count() < 16:
        out = []
        while mask:
            low = mask & -mask
            out.append(low.bit_length() - 1)
            mask ^= low
        return out
    raw = np.frombuffer(mask.to_bytes(nbytes, "little"), dtype=np.uint8)
    indices: list[int] = np.flatnonzero(np.unpackbits(raw, bitorder="little")).tolist()
    return indices


def _maximal_cliques(adjacent: BoolArray, order: IntArray) -> list[list[int]] | None:
    """All maximal cliques of an undirected graph (Bron-Kerbosch with pivoting).

    The outer loop visits vertices in ``order`` and only searches cliques whose first vertex
    in that order is the current one (Eppstein, Loeffler & Strash 2010); with ``order`` the
    accuracy ranking a leaderboard's "not separable" graph is close to an interval graph, so
    each sub-search stays small. Vertex sets are Python integers used as bit sets, and the
    search keeps its own stack because a clique can be longer than the recursion limit.

    Returns None when the search exceeds its budget (some graphs have exponentially many
    maximal cliques); the caller then covers the edges greedily instead.
    """
    k = adjacent.shape[0]
    nbytes = k // 8 + 1
    budget = _CLIQUE_SEARCH_BUDGET + 200 * k
    neighbours = _ranked_bitsets(adjacent, order)
    cliques: list[list[int]] = []
    for v in range(k):
        later = ~((2 << v) - 1)
        stack = [(1 << v, neighbours[v] & later, neighbours[v] & ~later)]
        while stack:
            budget -= 1
            if budget < 0:
                return None
            r, p, x = stack.pop()
            if not p:
                if not x:
                    cliques.append(_bits(r, nbytes))
                continue
            # Tomita pivot: the vertex covering most of P leaves the fewest branches. A vertex
            # of X adjacent to all of P ends the branch at once; in a leaderboard it is
            # usually the excluded model nearest in rank, so X is searched from the nearest
            # rank down and the search stops at the first full cover.
            size = p.bit_count()
            pivot, best = -1, -1
            for u in itertools.chain(reversed(_bits(x, nbytes)), _bits(p, nbytes)):
                covered = (p & neighbours[u]).bit_count()
                if covered > best:
                    pivot, best = u, covered
                    if covered == size:
                        break
            for u in _bits(p & ~neighbours[pivot], nbytes):
                bit = 1 << u
                stack.append((r | bit, p & neighbours[u], x & neighbours[u]))
                p &= ~bit
                x |= bit
    labels = order.tolist()
    return [[labels[i] for i in clique] for clique in cliques]


def _ranked_bitsets(adjacent: BoolArray, order: IntArray) -> list[int]:
    """Neighbour sets as bit sets, vertices relabelled so that bit i is ``order[i]``."""
    k = adjacent.shape[0]
    ranked = adjacent[np.ix_(order, order)] & ~np.eye(k, dtype=bool)
    packed = np.packbits(ranked, axis=1, bitorder="little")
    return [int.from_bytes(row.tobytes(), "little") for row in packed]


def _greedy_clique_cover(adjacent: BoolArray, order: IntArray) -> list[list[int]]:
    """Cliques covering every edge (and every vertex), built greedily in rank order.

    For each model in rank order and each of its edges not yet covered, the clique grows
    from the edge by adding the best-ranked model adjacent to all members until none is
    left. Polynomial, always a valid letter display; not necessarily the smallest.
    """
    k = adjacent.shape[0]
    nbytes = k // 8 + 1
    neighbours = _ranked_bitsets(adjacent, order)
    uncovered = list(neighbours)
    cliques: list[list[int]] = []
    for v in range(k):
        if not neighbours[v]:
            cliques.append([v])
            continue
        while uncovered[v]:
            u = (uncovered[v] & -uncovered[v]).bit_length() - 1
            members = (1 << v) | (1 << u)
            candidates = neighbours[v] & neighbours[u]
            while candidates:
                w = (candidates & -candidates).bit_length() - 1
                members |= 1 << w
                candidates &= neighbours[w]
            found = _bits(members, nbytes)
            for m in found:
                uncovered[m] &= ~members
            cliques.append(found)
    labels = order.tolist()
    return [[labels[i] for i in clique] for clique in cliques]


def _letter_name(i: int) -> str:
    if i < 26:
        return chr(ord("a") + i)
    if i < 52:
        return chr(ord("A") + i - 26)
    # beyond 52 letters: a lowercase letter followed by a round number (a1, b1, ..., z1, a2)
    return f"{chr(ord('a') + i % 26)}{i // 26 - 1}"


def _letter_sets(different: BoolArray, order: IntArray) -> list[list[int]]:
    """Letters of the compact display as lists of model indices, in letter order."""
    k = different.shape[0]
    same = ~different
    np.fill_diagonal(same, True)
    position = np.empty(k, dtype=np.int64)
    position[order] = np.arange(k)
    cliques = _maximal_cliques(same, order)
    if cliques is None:
        cliques = _greedy_clique_cover(same, order)
    ranked = sorted(
        (sorted(c, key=lambda m: position[m]) for c in cliques),
        key=lambda members: [position[m] for m in members],
    )
    membership = np.zeros((len(ranked), k), dtype=bool)
    for row, members in enumerate(ranked):
        membership[row, members] = True
    # cover[i, j]: number of letters that models i and j share (cover[i, i]: letters of i).
    mf = membership.astype(np.float64)
    cover = np.rint(mf.T @ mf).astype(np.int64)
    # Piepho's sweep: drop a model from a letter when every pair that letter joins it to
    # (and the model itself) is covered by another letter; redundant letters empty out.
    # Coverage only decreases during the sweep, so only models removable at the start of a
    # letter's turn can become removed, and most letters have none.
    for row, members in enumerate(ranked):
        idx = np.asarray(members, dtype=np.int64)
        sub = cover[np.ix_(idx, idx)]
        candidates = np.flatnonzero(sub.min(axis=1) >= 2)
        if candidates.size == 0:
            continue
        kept = np.ones(idx.size, dtype=bool)
        for t in candidates.tolist():
            if sub[t, kept].min() >= 2:
                sub[t, kept] -= 1
                sub[kept, t] -= 1
                sub[t, t] += 1  # the two updates above both hit the diagonal
                kept[t] = False
        cover[np.ix_(idx, idx)] = sub
        membership[row, idx[~kept]] = False
    out = [np.flatnonzero(membership[row]).tolist() for row in range(len(ranked))]
    out = [sorted(s, key=lambda m: position[m]) for s in out if s]
    out.sort(key=lambda members: [position[m] for m in members])
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class SignificanceGroups:
    """Compact letter display of a set of pairwise comparisons.

    Two models share a letter exactly when they are *not* significantly different; models are
    ordered by accuracy and the best one gets ``"a"``.

    Attributes
    ----------
    names : tuple of str
        Model names, in the original order.
    letters : tuple of str
        The letters of each model (same order as ``names``), e.g. ``("a", "ab", "b")``. After 52
        letters (a-z, A-Z) the letters become a lowercase letter followed by a number (``a1``).
    members : tuple of tuple of int
        For each letter in order, the indices of the models that carry it (best first).
    """

    names: tuple[str, ...]
    letters: tuple[str, ...]
    members: tuple[tuple[int, ...], ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dictionary: letters per model and models per letter."""
        return {
            "letters": dict(zip(self.names, self.letters, strict=True)),
            "groups": [
                {"letter": _letter_name(i), "models": [self.names[m] for m in group]}
                for i, group in enumerate(self.members)
            ],
        }

    def __str__(self) -> str:
        lines = [f"{len(self.members)} significance group(s); models sharing a letter are not "
                 "significantly different"]
        for i, group in enumerate(self.members):
            lines.append(f"  {_letter_name(i)}: " + ", ".join(self.names[m] for m in group))
        return "\n".join(lines)


def compact_letter_display(
    different: npt.ArrayLike, *, order: npt.ArrayLike | None = None
) -> tuple[str, ...]:
    """Significance letters for a leaderboard from a "significantly different" matrix.

    Each letter is a set of models no two of which differ significantly, so that two models
    share a letter if and only if they are not significantly different. The letters are built
    as in Piepho's (2004) insert-and-absorb algorithm, whose result is the set of maximal
    cliques of the "not different" graph: here the cliques are enumerated directly with
    Bron-Kerbosch (with pivoting), then Piepho's sweep removes a model from a letter wherever
    all the pairs that letter joins it to are already joined by another letter, and letters
    left empty disappear. Letters are then named in the order of their best model, so the
    best model (first in ``order``) carries ``"a"``.

    For the nearly "interval" structure of real leaderboards (models close in accuracy are
    inseparable) there are about K maximal cliques. Some graphs have exponentially many (K = 40
    models in 20 separable pairs have 2^20); when the clique search exceeds a fixed budget the
    letters come instead from a greedy clique cover (each uncovered pair grown into a clique
    by adding the best-ranked compatible models), which is still a valid display, followed by
    the same sweep, but may use more letters than necessary.

    Parameters
    ----------
    different : array_like of bool, shape (K, K)
        Symmetric; ``different[i, j]`` is True when models i and j differ significantly. The
        diagonal is ignored.
    order : array_like of int, optional
        Model indices best first (e.g. by accuracy). Default: 0, 1, ..., K-1.

    Returns
    -------
    tuple of str
        The letters of each model, in the original order.

    References
    ----------
    Piepho, H.-P. (2004). An algorithm for a letter-based representation of all-pairwise
    comparisons. Journal of Computational and Graphical Statistics, 13(2), 456-466.

    Eppstein, D., Loeffler, M., & Strash, D. (2010). Listing all maximal cliques in sparse
    graphs in near-optimal time. ISAAC 2010, LNCS 6506, 403-414.

    Examples
    --------
    Three models where the first and the last differ, and the middle one differs from neither:

    >>> from mcnemar.multiple import compact_letter_display
    >>> compact_letter_display([[False, False, True], [False, False, False], [True, False, False]])
    ('a', 'ab', 'b')
    """
    diff, order_arr = _check_different(different, order)
    sets = _letter_sets(diff, order_arr)
    return _letters_per_model(sets, diff.shape[0])


def _check_different(
    different: npt.ArrayLike, order: npt.ArrayLike | None
) -> tuple[BoolArray, IntArray]:
    diff = np.asarray(different)
    if diff.ndim != 2 or diff.shape[0] != diff.shape[1] or diff.shape[0] < 1:
        raise McNemarError(
            f"different must be a square K x K boolean matrix; got shape {diff.shape}"
        )
    if diff.dtype != np.bool_:
        if diff.dtype.kind not in "iu" or ((diff != 0) & (diff != 1)).any():
            raise McNemarError(
                f"different must hold booleans (True = significantly different); got dtype "
                f"{diff.dtype}"
            )
        diff = diff.astype(bool)
    diff = diff.copy()
    np.fill_diagonal(diff, False)
    if not np.array_equal(diff, diff.T):
        i, j = np.argwhere(diff != diff.T)[0]
        raise McNemarError(
            f"different must be symmetric; different[{i}, {j}] = {bool(diff[i, j])} but "
            f"different[{j}, {i}] = {bool(diff[j, i])}"
        )
    k = diff.shape[0]
    if order is None:
        order_arr = np.arange(k, dtype=np.int64)
    else:
        order_arr = np.asarray(order)
        if (
            order_arr.shape != (k,)
            or order_arr.dtype.kind not in "iu"
            or not np.array_equal(np.sort(order_arr), np.arange(k))
        ):
            raise McNemarError(
                f"order must be a permutation of 0..{k - 1} (model indices, best first); "
                f"got {order_arr.tolist()!r}"
            )
        order_arr = order_arr.astype(np.int64)
    return diff, order_arr


def _letters_per_model(sets: list[list[int]], k: int) -> tuple[str, ...]:
    letters = [""] * k
    for i, members in enumerate(sets):
        for m in members:
            letters[m] += _letter_name(i)
    return tuple(letters)


# --------------------------------------------------------------------------------------------
# the pairwise result


def _fmt_p(p: float, alpha: float | None = None) -> str:
    """A p-value for tables; never rounds a value below ``alpha`` up to it (or vice versa)."""
    p = float(p)
    if not math.isfinite(p):
        return "-"
    if p == 0.0:
        return "<1e-300"
    if p < 1e-4:
        return f"{p:.1e}"
    text = f"{p:.4f}"
    digits = 4
    while alpha is not None and (float(text) < alpha) != (p < alpha) and digits < 17:
        digits += 1
        text = f"{p:.{digits}f}"
    return text


def _fmt_points(x: float) -> str:
    return f"{100 * x:+.1f}"


def _none_if_nan(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class PairwiseResult:
    """All pairwise McNemar comparisons of K models on the same N items.

    K x K matrices are indexed ``[row, column]`` with the row model as system A and the column
    model as system B: ``b[i, j]`` counts items model i got right and model j wrong,
    ``difference[i, j]`` is accuracy(i) - accuracy(j), and ``ci_low[i, j]``/``ci_high[i, j]``
    bound that difference. Entries for pairs that were not tested (the diagonal, and in the
    vs-baseline mode every pair not involving the baseline) are NaN. The arrays are read-only.

    Attributes
    ----------
    names : tuple of str
        Model names (row order of the input).
    n : int
        Number of items.
    correct : ndarray of int64, shape (K,)
        Items each model got right.
    accuracy : ndarray of float64, shape (K,)
        ``correct / n``.
    a, b, c, d : ndarray of int64, shape (K, K)
        The paired table of every pair (row = A, column = B): both right, only the row model
        right, only the column model right, both wrong. ``c`` is ``b.T``.
    difference : ndarray of float64, shape (K, K)
        accuracy(row) - accuracy(column) = (b - c)/n, for every pair.
    statistic, pvalue, log10_pvalue : ndarray of float64, shape (K, K)
        The test of each tested pair, as :func:`mcnemar.inference.mcnemar` returns it with the
        row model as A. Symmetric for the two-sided alternative.
    adjusted_pvalue : ndarray of float64, shape (K, K)
        ``pvalue`` adjusted over the family of tested comparisons (``pairs``).
    ci_low, ci_high : ndarray of float64, shape (K, K)
        Confidence interval of ``difference`` for each tested pair (not adjusted for
        multiplicity), at ``confidence_level`` with the ``interval`` method.
    significant : ndarray of bool, shape (K, K)
        ``adjusted_pvalue < alpha``.
    pairs : ndarray of int64, shape (M, 2)
        The tested comparisons as (A, B) row indices: all ``i < j`` pairs, or ``(i, baseline)``
        for every other model in the vs-baseline mode. ``M`` is the size of the family the
        adjustment is over.
    ranking : tuple of int
        Model indices by accuracy, best first (ties keep the input order).
    cochran_q : CochranQResult
        The omnibus test over all K models.
    baseline : int or None
        Row index of the baseline in the vs-baseline mode, else None.
    method, adjust, alternative, interval : str
        The options used.
    alpha, confidence_level : float
        The options used.
    """

    names: tuple[str, ...]
    n: int
    correct: IntArray
    accuracy: FloatArray
    a: IntArray
    b: IntArray
    c: IntArray
    d: IntArray
    difference: FloatArray
    statistic: FloatArray
    pvalue: FloatArray
    log10_pvalue: FloatArray
    adjusted_pvalue: FloatArray
    ci_low: FloatArray
    ci_high: FloatArray
    significant: BoolArray
    pairs: IntArray
    ranking: tuple[int, ...]
    cochran_q: CochranQResult
    baseline: int | None
    method: str
    adjust: str
    alternative: str
    interval: str
    alpha: float
    confidence_level: float
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    # ---- derived -------------------------------------------------------------------------

    @property
    def k(self) -> int:
        """Number of models."""
        return len(self.names)

    @property
    def groups(self) -> SignificanceGroups | None:
        """Significance letters for the leaderboard (computed on first access).

        Models sharing a letter are not significantly different after adjustment (see
        :func:`compact_letter_display`). None in the vs-baseline mode, where pairs not
        involving the baseline were not tested.
        """
        if self.baseline is not None:
            return None
        cached: SignificanceGroups | None = self._cache.get("groups")
        if cached is None:
            different = self.significant | self.significant.T
            order = np.asarray(self.ranking, dtype=np.int64)
            sets = _letter_sets(different, order)
            cached = SignificanceGroups(
                names=self.names,
                letters=_letters_per_model(sets, self.k),
                members=tuple(tuple(s) for s in sets),
            )
            self._cache["groups"] = cached
        return cached

    def _all_pairs_groups(self) -> SignificanceGroups:
        groups = self.groups
        if groups is None:  # pragma: no cover - only called in the all-pairs mode
            raise RuntimeError("significance groups exist only for all-pairs results")
        return groups

    def comparisons(self) -> list[dict[str, Any]]:
        """One JSON-safe record per tested comparison (A = first model, B = second)."""
        i, j = self.pairs[:, 0], self.pairs[:, 1]
        names = self.names
        rows = zip(
            i.tolist(), j.tolist(),
            self.a[i, j].tolist(), self.b[i, j].tolist(),
            self.c[i, j].tolist(), self.d[i, j].tolist(),
            self.difference[i, j].tolist(), self.ci_low[i, j].tolist(),
            self.ci_high[i, j].tolist(), self.statistic[i, j].tolist(),
            self.pvalue[i, j].tolist(), self.log10_pvalue[i, j].tolist(),
            self.adjusted_pvalue[i, j].tolist(), self.significant[i, j].tolist(),
            strict=True,
        )
        out = []
        for ii, jj, a, b, c, d, diff, lo, hi, stat, p, lp, adj, sig in rows:
            better = None
            if sig:
                better = "a" if diff > 0 else "b" if diff < 0 else None
            out.append({
                "a": names[ii], "b": names[jj],
                "table": {"a": a, "b": b, "c": c, "d": d, "n": self.n, "discordant": b + c},
                "difference": diff,
                "interval": {"low": _none_if_nan(lo), "high": _none_if_nan(hi)},
                "statistic": _none_if_nan(stat),
                "pvalue": p,
                "log10_pvalue": _none_if_nan(lp),
                "adjusted_pvalue": adj,
                "significant": sig,
                "better": better,
            })
        return out

    def _matrix_rows(self, values: FloatArray) -> list[list[float | None]]:
        return [[_none_if_nan(v) for v in row] for row in values.tolist()]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dictionary (schema ``mcnemar.pairwise/1``; NaN becomes ``None``).

        Holds the ranked models (with their letters), one record per tested comparison, the
        matrices of p-values and adjusted p-values (original model order, ``None`` where not
        tested) and Cochran's Q.
        """
        groups = self.groups
        letters = groups.letters if groups is not None else (None,) * self.k
        models = [
            {
                "name": self.names[m],
                "rank": rank + 1,
                "correct": int(self.correct[m]),
                "accuracy": float(self.accuracy[m]),
                "group": letters[m],
            }
            for rank, m in enumerate(self.ranking)
        ]
        return {
            "schema": "mcnemar.pairwise/1",
            "mode": "all-pairs" if self.baseline is None else "baseline",
            "names": list(self.names),
            "baseline": None if self.baseline is None else self.names[self.baseline],
            "n": self.n,
            "method": self.method,
            "adjust": self.adjust,
            "alternative": self.alternative,
            "alpha": self.alpha,
            "confidence_level": self.confidence_level,
            "interval": self.interval,
            "comparisons_count": int(self.pairs.shape[0]),
            "models": models,
            "comparisons": self.comparisons(),
            "matrices": {
                "pvalue": self._matrix_rows(self.pvalue),
                "adjusted_pvalue": self._matrix_rows(self.adjusted_pvalue),
            },
            "cochran_q": self.cochran_q.to_dict(),
            "groups": groups.to_dict() if groups is not None else None,
        }

    # ---- rendering -----------------------------------------------------------------------

    def _header(self) -> list[str]:
        m = int(self.pairs.shape[0])
        test = _TEST_NAMES[self.method]
        adjust = _ADJUST_NAMES[self.adjust]
        if self.baseline is None:
            first = f"Pairwise McNemar tests: {self.k} models on {self.n} items, {m} pairs"
        else:
            first = (
                f"McNemar tests against the baseline {self.names[self.baseline]!r}: "
                f"{self.k - 1} models on {self.n} items"
            )
        return [
            first,
            f"{test}, {self.alternative}; {adjust} adjustment over {m} comparison(s); "
            f"alpha = {self.alpha:g}",
            str(self.cochran_q),
        ]

    def _direction_word(self, i: int, j: int) -> str:
        return ">" if self.difference[i, j] > 0 else "<"

    def _significant_lines(self, markdown: bool = False) -> list[str]:
        i, j = self.pairs[:, 0], self.pairs[:, 1]
        sig = self.significant[i, j]
        idx = np.flatnonzero(sig)
        if idx.size == 0:
            return []
        # strongest evidence first
        idx = idx[np.argsort(self.adjusted_pvalue[i[idx], j[idx]], kind="stable")]
        lines = []
        level = f"{100 * self.confidence_level:g}%"
        for t in idx[:_LIST_MAX_LINES].tolist():
            ii, jj = int(i[t]), int(j[t])
            # name the better model first
            hi_m, lo_m = (ii, jj) if self.difference[ii, jj] >= 0 else (jj, ii)
            diff = self.difference[hi_m, lo_m]
            low, high = self.ci_low[hi_m, lo_m], self.ci_high[hi_m, lo_m]
            ci = f"[{_fmt_points(low)}, {_fmt_points(high)}]"
            adjusted = _fmt_p(self.adjusted_pvalue[ii, jj], self.alpha)
            text = (
                f"{self.names[hi_m]} > {self.names[lo_m]}: {_fmt_points(diff)} points "
                f"({level} CI {ci}), adjusted p = {adjusted}"
            )
            lines.append(f"- {text}" if markdown else f"  {text}")
        if idx.size > _LIST_MAX_LINES:
            more = f"... and {idx.size - _LIST_MAX_LINES} more (see to_dict())"
            lines.append(f"- {more}" if markdown else f"  {more}")
        return lines

    def matrix_text(self, which: str = "adjusted_pvalue") -> str:
        """The K x K matrix of p-values as aligned text, models in rank order.

        Parameters
        ----------
        which : {"adjusted_pvalue", "pvalue"}
            Which p-values to show. Significant adjusted p-values are marked ``*``.
        """
        which = _check_choice(which, "which", ("adjusted_pvalue", "pvalue"))
        values = self.adjusted_pvalue if which == "adjusted_pvalue" else self.pvalue
        order = list(self.ranking)
        labels = [self.names[m] for m in order]
        width = max(8, *(len(s) for s in labels))
        cells = []
        for r in order:
            row = []
            for col in order:
                v = float(values[r, col])
                if r == col:
                    row.append("-")
                elif not math.isfinite(v):
                    row.append("")
                else:
                    star = "*" if self.significant[r, col] or self.significant[col, r] else ""
                    row.append(_fmt_p(v, self.alpha if which == "adjusted_pvalue" else None)
                               + star)
            cells.append(row)
        colw = max(width, *(len(c) for row in cells for c in row))
        head = " " * width + "  " + "  ".join(s.rjust(colw) for s in labels)
        lines = [head]
        for label, row in zip(labels, cells, strict=True):
            lines.append(label.ljust(width) + "  " + "  ".join(c.rjust(colw) for c in row))
        return "\n".join(lines)

    def __str__(self) -> str:
        lines = self._header()
        lines.append("")
        acc_w = 8
        name_w = max(5, *(len(s) for s in self.names))
        level = f"{100 * self.confidence_level:g}%"
        if self.baseline is None:
            groups = self._all_pairs_groups()
            lines.append(
                f"{'rank':>4}  {'model':<{name_w}}  {'accuracy':>{acc_w}}  {'correct':>12}  group"
            )
            for rank, m in enumerate(self.ranking, start=1):
                lines.append(
                    f"{rank:>4}  {self.names[m]:<{name_w}}  {self.accuracy[m]:>{acc_w}.4f}  "
                    f"{f'{self.correct[m]}/{self.n}':>12}  {groups.letters[m]}"
                )
            lines.append("Models that share a letter are not significantly different "
                         f"(adjusted p >= {self.alpha:g}).")
            sig = self._significant_lines()
            lines.append("")
            if sig:
                lines.append(f"Significant differences (adjusted p < {self.alpha:g}):")
                lines.extend(sig)
            else:
                lines.append(f"No pair differs significantly (adjusted p < {self.alpha:g}).")
            lines.append("")
            if self.k <= _MATRIX_TEXT_MAX_MODELS:
                lines.append(
                    f"Adjusted p-values ({_ADJUST_NAMES[self.adjust]}); * = significant:"
                )
                lines.append(self.matrix_text())
            else:
                lines.append(f"(matrix of adjusted p-values omitted for {self.k} models; "
                             "see matrix_text() or to_dict())")
        else:
            base = self.baseline
            lines.append(
                f"{'rank':>4}  {'model':<{name_w}}  {'accuracy':>{acc_w}}  "
                f"{'vs baseline (points)':>22}  {level + ' CI':>16}  {'p':>8}  {'adjusted':>8}"
            )
            for rank, m in enumerate(self.ranking, start=1):
                if m == base:
                    lines.append(
                        f"{rank:>4}  {self.names[m]:<{name_w}}  {self.accuracy[m]:>{acc_w}.4f}  "
                        f"{'(baseline)':>22}"
                    )
                    continue
                ci = f"[{_fmt_points(self.ci_low[m, base])}, {_fmt_points(self.ci_high[m, base])}]"
                star = " *" if self.significant[m, base] else ""
                lines.append(
                    f"{rank:>4}  {self.names[m]:<{name_w}}  {self.accuracy[m]:>{acc_w}.4f}  "
                    f"{_fmt_points(self.difference[m, base]):>22}  {ci:>16}  "
                    f"{_fmt_p(self.pvalue[m, base]):>8}  "
                    f"{_fmt_p(self.adjusted_pvalue[m, base], self.alpha):>8}{star}"
                )
            lines.append(f"* = significant after adjustment (adjusted p < {self.alpha:g}); "
                         "intervals are per comparison, not adjusted.")
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """A markdown summary (ranked table, significant pairs, p-value matrix if small)."""
        out = [f"### {self._header()[0]}", "", f"{self._header()[1]}. {self._header()[2]}.", ""]
        level = f"{100 * self.confidence_level:g}%"
        if self.baseline is None:
            groups = self._all_pairs_groups()
            out += ["| rank | model | accuracy | correct | group |", "|---:|---|---:|---:|:---:|"]
            for rank, m in enumerate(self.ranking, start=1):
                out.append(
                    f"| {rank} | {_md(self.names[m])} | {self.accuracy[m]:.4f} | "
                    f"{self.correct[m]}/{self.n} | {groups.letters[m]} |"
                )
            out += ["", "Models that share a letter are not significantly different.", ""]
            sig = self._significant_lines(markdown=True)
            if sig:
                out.append(f"**Significant differences** (adjusted p < {self.alpha:g}):")
                out += sig
            else:
                out.append(f"No pair differs significantly (adjusted p < {self.alpha:g}).")
            if self.k <= _MATRIX_TEXT_MAX_MODELS:
                order = list(self.ranking)
                out += ["", f"<details><summary>Adjusted p-values "
                        f"({_ADJUST_NAMES[self.adjust]})</summary>", ""]
                out.append("| | " + " | ".join(_md(self.names[m]) for m in order) + " |")
                out.append("|---|" + "---:|" * len(order))
                for r in order:
                    cells = []
                    for col in order:
                        v = float(self.adjusted_pvalue[r, col])
                        if r == col or not math.isfinite(v):
                            cells.append("")
                        else:
                            p = _fmt_p(v, self.alpha)
                            sig_rc = self.significant[r, col] or self.significant[col, r]
                            cells.append(f"**{p}**" if sig_rc else p)
                    out.append(f"| {_md(self.names[r])} | " + " | ".join(cells) + " |")
                out += ["", "</details>"]
        else:
            base = self.baseline
            out += [
                f"| rank | model | accuracy | vs {_md(self.names[base])} (points) | {level} CI "
                "| p | adjusted p |",
                "|---:|---|---:|---:|:---:|---:|---:|",
            ]
            for rank, m in enumerate(self.ranking, start=1):
                if m == base:
                    out.append(f"| {rank} | {_md(self.names[m])} (baseline) | "
                               f"{self.accuracy[m]:.4f} | | | | |")
                    continue
                ci = f"[{_fmt_points(self.ci_low[m, base])}, {_fmt_points(self.ci_high[m, base])}]"
                adj = _fmt_p(self.adjusted_pvalue[m, base], self.alpha)
                if self.significant[m, base]:
                    adj = f"**{adj}**"
                out.append(
                    f"| {rank} | {_md(self.names[m])} | {self.accuracy[m]:.4f} | "
                    f"{_fmt_points(self.difference[m, base])} | {ci} | "
                    f"{_fmt_p(self.pvalue[m, base])} | {adj} |"
                )
            out += ["", f"Bold: significant after adjustment (adjusted p < {self.alpha:g}); "
                    "intervals are per comparison."]
        return "\n".join(out) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|")


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
