"""Compact letter display: :func:`compact_letter_display` and :class:`SignificanceGroups`."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from mcnemar.errors import McNemarError
from mcnemar.multiple._validation import BoolArray, IntArray

# Bron-Kerbosch steps allowed (plus 200 per model) before the letters fall back to a greedy
# clique cover; real leaderboards need far fewer (about 60 per model for K = 1,000).
_CLIQUE_SEARCH_BUDGET = 20_000


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


