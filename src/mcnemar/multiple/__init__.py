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
(those of :func:`mcnemar.inference.mcnemar`) and intervals run vectorized over chunks of pairs
that fit the caches, on a few threads for large K. No statistic loops over pairs in Python.
The letter display (a graph search, computed only when :attr:`PairwiseResult.groups` is first
read) and the JSON records (one per pair) do.

Modules
-------
``_validation`` argument checks and test names; ``_adjust`` :func:`adjust_pvalues`;
``_cochran`` :func:`cochran_q`; ``_letters`` the compact letter display; ``_result``
:class:`PairwiseResult`; ``_pairs`` :func:`pairwise`.
"""

# The public API, and the private names (leading _) that other modules, the tests and the
# benchmarks import from here.
from mcnemar._format import format_table_pvalue
from mcnemar.multiple._adjust import adjust_pvalues
from mcnemar.multiple._cochran import CochranQResult, cochran_q
from mcnemar.multiple._letters import SignificanceGroups, compact_letter_display
from mcnemar.multiple._letters import _greedy_clique_cover as _greedy_clique_cover
from mcnemar.multiple._pairs import _FLOAT32_EXACT_LIMIT as _FLOAT32_EXACT_LIMIT
from mcnemar.multiple._pairs import AdjustMethod as AdjustMethod
from mcnemar.multiple._pairs import Alternative as Alternative
from mcnemar.multiple._pairs import TestMethod as TestMethod
from mcnemar.multiple._pairs import _pair_counts as _pair_counts
from mcnemar.multiple._pairs import pairwise
from mcnemar.multiple._result import PairwiseResult

_fmt_p = format_table_pvalue

__all__ = [
    "CochranQResult",
    "PairwiseResult",
    "SignificanceGroups",
    "adjust_pvalues",
    "cochran_q",
    "compact_letter_display",
    "pairwise",
]
