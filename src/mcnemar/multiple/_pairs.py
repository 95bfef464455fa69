""":func:`pairwise`: every paired comparison of K models from one correctness matrix.

The paired tables of all pairs come from one matrix product (:func:`_pair_counts`). Their
exact two-sided tests look the binomial tails up in rows shared by the tables with the same
number of discordant items (:class:`_TailRows`, :func:`_two_sided_exact`); the other tests are
those of :func:`mcnemar.inference.pvalues` (:func:`_test_pairs`). :func:`_tested_cells` runs the
tests, the intervals and the adjustment over chunks of pairs on a few threads and fills the
K x K matrices of the result.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from mcnemar.errors import McNemarError
from mcnemar.multiple._adjust import _ADJUST_METHODS, _adjust
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

# The intervals of pairs are computed this many at a time. The interval code makes a few dozen
# temporary arrays per call; on all K(K-1)/2 pairs at once (500,000 for K = 1,000) they spill
# out of the caches, and in chunks of this size the intervals run about three times faster.
# The chunks are independent, so they also run on several cores at once: numpy's and
# scipy.special's loops release the GIL. The tests take a few chunks at a time (two tasks per
# thread): their loops over arrays (the deep-tail series) then cost less per pair.
_CHUNK = 32_768
# More threads than this gain nothing on the few chunks even a large K has.
_MAX_THREADS = 8

_LN10 = math.log(10.0)
_LN2 = math.log(2.0)

_T = TypeVar("_T")


# --------------------------------------------------------------------------------------------
# the computation


def _pair_counts(x: npt.NDArray[np.int8]) -> tuple[IntArray, IntArray]:
    """Both-right counts for every pair (K x K) and right counts per model, exactly."""
    n = x.shape[1]
    dtype = np.float32 if n < _FLOAT32_EXACT_LIMIT else np.float64
    xf: npt.NDArray[np.floating[Any]] = x.astype(dtype)
    # Every entry is an exactly represented integer (see _FLOAT32_EXACT_LIMIT), so the cast
    # needs no rounding; the diagonal, sum of x_i * x_i over 0/1 outcomes, is each model's
    # right count, which spares a second pass over the K x N matrix.
    both = (xf @ xf.T).astype(np.int64)
    return both, np.diagonal(both).copy()


def _readonly(arr: npt.NDArray[Any]) -> npt.NDArray[Any]:
    arr.setflags(write=False)
    return arr


def _threads() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


def _chunks(pairs: int) -> list[slice]:
    """The chunks of _CHUNK pairs whose intervals are computed together."""
    return [slice(start, min(start + _CHUNK, pairs)) for start in range(0, pairs, _CHUNK)]


def _test_chunks(parts: list[slice]) -> list[slice]:
    """The chunks whose tests run together: a few consecutive ``parts``, two per thread."""
    step = max(1, len(parts) // (2 * _workers(len(parts))))
    return [slice(parts[i].start, parts[min(i + step, len(parts)) - 1].stop)
            for i in range(0, len(parts), step)]


def _workers(chunks: int) -> int:
    """How many threads work on ``chunks`` chunks of pairs."""
    return max(1, min(chunks, _threads(), _MAX_THREADS))


@contextlib.contextmanager
def _pool(chunks: int) -> Iterator[ThreadPoolExecutor | None]:
    """A few threads for the work on ``chunks`` chunks of pairs, or None to run it in this
    thread (one chunk: starting threads would cost more than they save)."""
    workers = _workers(chunks)
    if workers <= 1:
        yield None
        return
    with ThreadPoolExecutor(max_workers=workers) as pool:
        yield pool


def _start(pool: ThreadPoolExecutor | None, task: Callable[[], _T]) -> Callable[[], _T]:
    """Start ``task`` (at once, without a pool); return the wait for its end, which returns
    the task's value."""
    if pool is None:
        value = task()
        return lambda: value
    future = pool.submit(task)
    return future.result  # re-raises the task's error here


# --------------------------------------------------------------------------------------------
# exact two-sided p-values of many tables at once

#: A row of tails (one discordant count D) reaches down to where Hoeffding's bound on the tail,
#: exp(-(D - 2k)^2 / (2D)), falls below this: the terms left out sum to less, under 1e-20 of
#: the smallest tail taken from a row (:data:`mcnemar._binomial._TINY`, 1e-280), so leaving
#: them out moves no tail by an ulp.
_LOG_ROW_FLOOR = math.log(1e-300)
#: The largest discordant count whose tails come from a row. The rows are exact to a few
#: 1e-15 relative; the incomplete beta of :func:`mcnemar.inference.mcnemar` is off by up to
#: ~1.2e-16 D (7e-13 here), so up to here the two agree to 1e-12 relative, and beyond, the
#: tables keep the incomplete beta (:func:`mcnemar._binomial.two_sided_half`).
_ROW_MAX_D = 6000
#: Rows of the table of tails whose ratios are computed at once (see :meth:`_TailRows.build`).
_ROW_BAND = 32
#: The deep-tail series stops once every term is below this: added to a sum >= 1, such a term
#: rounds away, so each sum is the same however many terms its neighbours needed.
_NEGLIGIBLE_TERM = 2.0**-54


def _row_length(d: IntArray) -> IntArray:
    """How many tails the row of each discordant count D holds: k from (D - 1)//2 down.

    Down to k = 0, or to two below where Hoeffding's bound reaches _LOG_ROW_FLOOR
    (k = (D - sqrt(-2 D log floor))/2), which leaves out less than the floor: this length never
    decreases with D, so the rows of sorted D end in order (see :meth:`_TailRows.build`).
    """
    reach = np.ceil(np.sqrt(-2.0 * _LOG_ROW_FLOOR * d.astype(np.float64)) / 2.0) + 2.0
    return np.minimum((d - 1) // 2 + 1, reach.astype(np.int64))


@functools.cache
def _row_starts() -> IntArray:
    """The first k of the row of each D = 0.._ROW_MAX_D (see :func:`_row_length`)."""
    d = np.arange(_ROW_MAX_D + 1, dtype=np.int64)
    start = (d - 1) // 2 + 1 - _row_length(d)
    start.setflags(write=False)
    return start


def _row_present(d: IntArray) -> npt.NDArray[np.bool_]:
    """Which D = 0.._ROW_MAX_D of the discordant counts ``d`` take their tails from a row:
    those above SMALL_N (the tables below the centre with a tail above the row's floor; one
    row that only ties or deep tails use costs less than finding out)."""
    from mcnemar import _binomial

    present = np.zeros(_ROW_MAX_D + 1, dtype=bool)
    present[d[(d > _binomial.SMALL_N) & (d <= _ROW_MAX_D)]] = True
    return present


class _TailRows:
    r"""Lower tails L(k) = Pr(X <= k), X ~ Bin(D, 1/2), of every k of a row, for the
    discordant counts D of many tables.

    The tables of many pairs share their D (for K = 1,000 runs on 10,000 items, 500,000 pairs
    have some 3,000 values of D between 1,300 and 4,400), and a row of a thousand tails costs
    about as much as ten incomplete betas, so the tails of the tables are looked up in the rows
    of their D instead. Each row is

    .. math::

        L(k) = \sum_{j = s}^{k} \Pr(X = j), \qquad
        \Pr(X = j - 1) = \Pr(X = j) \, \frac{j}{D - j + 1},

    the probabilities running down from that of m = (D - 1)//2, the largest of the lower half
    (in Loader's saddle-point form, :func:`mcnemar._binomial.log_pmf_half`), to the row's
    start s (see :func:`_row_length`), and summed from there up. Every term is positive and
    every step a ratio of whole numbers, so the error is that of some thousand roundings, most
    of them cancelling: a few 1e-15 relative against exact fractions, where the incomplete
    beta is off by up to ~1.2e-16 D. Each row is a function of its D alone, so a table gets
    the same tail whatever other tables share the call.

    The rows of the sorted D are the columns of one table, k along the slow axis, so that each
    step advances every row at once: the tail of (k, D) is ``table.flat[base[D] - k * width]``.
    """

    __slots__ = ("base", "d", "lengths", "table")

    def __init__(self, present: npt.NDArray[np.bool_]) -> None:
        """Room for the rows of the D where ``present`` (:func:`_row_present`); :meth:`build`
        fills them."""
        self.d = np.flatnonzero(present).astype(np.int64)
        self.lengths = _row_length(self.d)
        width = self.d.size
        self.table = np.empty((int(self.lengths.max(initial=0)), width))
        self.base = np.zeros(_ROW_MAX_D + 1, dtype=np.int64)
        self.base[self.d] = (self.d - 1) // 2 * width + np.arange(width)

    @classmethod
    def of(cls, d: IntArray) -> _TailRows:
        """The rows that tables of the discordant counts ``d`` need, built."""
        rows = cls(_row_present(d))
        rows.build()
        return rows

    def build(self) -> None:
        """Fill the rows: row t of the table holds the tails of k = (D - 1)//2 - t."""
        from mcnemar import _binomial

        if not self.d.size:
            return
        rows = self.table
        d = self.d.astype(np.float64)
        top = np.floor((d - 1.0) / 2.0)
        # Only the columns whose row reaches row t take part in it: since the lengths never
        # decrease with D, the first of them is
        first = np.searchsorted(self.lengths, np.arange(rows.shape[0]), side="right")
        # Row t first holds Pr(X = top - t) / Pr(X = top - t + 1) = (top - t + 1)/(D - top + t),
        # then the probabilities, then the tails. The ratios are computed a band of rows at a
        # time, in scratch space that stays in the caches.
        above, below = top + 1.0, d - top
        scratch = np.empty((_ROW_BAND, d.size))
        for band in range(1, rows.shape[0], _ROW_BAND):
            t = np.arange(band, min(band + _ROW_BAND, rows.shape[0]), dtype=np.float64)[:, None]
            cols = slice(int(first[band]), None)
            part = rows[band : band + t.size, cols]
            np.divide(np.subtract(above[cols], t, out=part),
                      np.add(below[cols], t, out=scratch[: t.size, cols]), out=part)
        rows[0] = np.exp(_binomial.log_pmf_half(top, d))
        for i in range(1, rows.shape[0]):
            cols = slice(int(first[i]), None)
            np.multiply(rows[i - 1, cols], rows[i, cols], out=rows[i, cols])
        for i in range(rows.shape[0] - 2, -1, -1):
            cols = slice(int(first[i + 1]), None)
            np.add(rows[i, cols], rows[i + 1, cols], out=rows[i, cols])

    def lower_tails(self, k: IntArray, d: IntArray) -> FloatArray:
        """L(k) of tables with a row (their D is present) and k from the row's start
        (:func:`_row_starts`) up to (D - 1)//2."""
        out: FloatArray = self.table.reshape(-1)[self.base[d] - k * self.table.shape[1]]
        return out


def _log_deep_tail(k: FloatArray, d: FloatArray) -> FloatArray:
    """log L(k) for tails below the rows' range (under 1e-280), D <= _ROW_MAX_D.

    The factorisation of :mod:`mcnemar._binomial`'s log-space route, L(k) = Pr(X = k) R with
    Pr(X = k) in Loader's form, but with R, the sum of Pr(X = j)/Pr(X = k) over j <= k, summed
    as its series 1 + k/(D - k + 1) + k(k - 1)/((D - k + 1)(D - k + 2)) + ... rather than by
    quadrature: this deep in the tail the terms fall at least as fast as
    (k/(D - k + 1))^i < 0.37^i, so fewer than 40 positive terms give R to a few ulp, for less
    than the quadrature's 32 nodes and the search for their range cost.
    """
    from mcnemar import _binomial

    ratio_sum = np.ones(k.size)
    term = np.ones(k.size)
    step = np.empty(k.size)
    above, below = k.copy(), d - k + 1.0
    while k.size:
        term *= np.divide(above, below, out=step)
        if term.max() < _NEGLIGIBLE_TERM:
            break
        ratio_sum += term
        above -= 1.0
        below += 1.0
    out: FloatArray = _binomial.log_pmf_half(k, d) + np.log(ratio_sum)
    return out


def _two_sided_exact(
    b: IntArray, c: IntArray, rows: _TailRows
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(statistic, pvalue, log10_pvalue) of the two-sided exact test of tables b, c.

    The conventions of :func:`mcnemar.inference.pvalues`: p = min(1, 2 L(min(b, c))) with L
    the lower tail of Bin(b + c, 1/2), statistic min(b, c). Each table's route depends on its
    counts alone: the core's exact integer tails for D <= SMALL_N, the tail of its row
    (:class:`_TailRows`) down to 1e-280 and :func:`_log_deep_tail` below for D <= _ROW_MAX_D,
    and :func:`mcnemar._binomial.two_sided_half` beyond.
    """
    from mcnemar import _binomial
    from mcnemar.inference import pvalues

    k = np.minimum(b, c)
    d = b + c
    statistic = k.astype(np.float64)
    # b = c, and odd D with |b - c| = 1 (where 2 L(k) = 1 exactly): p = 1
    pvalue = np.ones(k.size)
    log_p = np.zeros(k.size)
    below_centre = d - 2 * k >= 2
    # the tables of small and of large D, if any (the usual large comparison has neither)
    small = far = None
    if k.size and d.min() <= _binomial.SMALL_N:
        small = d <= _binomial.SMALL_N
        below_centre &= ~small
    if k.size and d.max() > _ROW_MAX_D:
        far = d > _ROW_MAX_D
        pvalue[far], log_p[far] = _binomial.two_sided_half(statistic[far], d[far])
        below_centre &= ~far
    # the others: from a row down to 1e-280, by the deep-tail series below it
    lower = np.flatnonzero(below_centre)
    k_lower, d_lower = k[lower], d[lower]
    in_row = k_lower >= _row_starts()[d_lower]
    where = lower[in_row]
    tail = rows.lower_tails(k_lower[in_row], d_lower[in_row])
    kept = tail >= _binomial._TINY
    tail = tail[kept]
    pvalue[where[kept]] = np.minimum(1.0, 2.0 * tail)
    log_p[where[kept]] = np.minimum(0.0, _LN2 + np.log(tail))
    deep = np.concatenate([lower[~in_row], where[~kept]])
    if deep.size:
        log_p[deep] = np.minimum(0.0, _LN2 + _log_deep_tail(statistic[deep], d[deep]))
        pvalue[deep] = np.exp(log_p[deep])
    log10_pvalue = log_p / _LN10
    if small is not None:
        _, pvalue[small], log10_pvalue[small], _ = pvalues(
            b[small], c[small], "exact", "two-sided"
        )
    return statistic, pvalue, log10_pvalue


def _test_pairs(
    b: IntArray, c: IntArray, method: str, alternative: str, tails: _TailRows | None = None
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(statistic, pvalue, log10_pvalue) of :func:`mcnemar.inference.mcnemar` for counts b, c.

    The exact test of tables with more than :data:`mcnemar._binomial.SMALL_N` discordant
    items goes to the binomial tails directly, with the same conventions as
    :func:`mcnemar.inference.pvalues` (two-sided: min(1, 2 * smaller tail); one-sided: one
    tail, P(X >= b) = P(X <= c)): two-sided by :func:`_two_sided_exact`, from ``tails``
    (the rows of these tables, or of more; planned and built here if not given); one-sided by
    the plain incomplete beta value where it does not underflow and no incomplete beta
    computed where it would (see :func:`mcnemar._binomial.lower_tail_and_log_half`). Smaller
    tables, which the core computes from exact integer tails, and the other tests are the
    core's.
    """
    from mcnemar import _binomial
    from mcnemar.inference import pvalues

    small = b + c <= _binomial.SMALL_N
    if method != "exact" or small.all():
        statistic, pvalue, log10_pvalue, _ = pvalues(b, c, method, alternative)
        return statistic, pvalue, log10_pvalue
    if alternative == "two-sided":
        return _two_sided_exact(b, c, tails if tails is not None else _TailRows.of(b + c))
    bf = b.astype(np.float64)
    cf = c.astype(np.float64)
    statistic = bf
    pvalue, log_p = _binomial.lower_tail_and_log_half(cf if alternative == "greater" else bf,
                                                       bf + cf)
    log10_pvalue = log_p / _LN10
    if small.any():
        _, pvalue[small], log10_pvalue[small], _ = pvalues(
            b[small], c[small], method, alternative
        )
    return statistic, pvalue, log10_pvalue


def _tested_cells(
    both: IntArray,
    right: IntArray,
    n: int,
    pairs: tuple[IntArray, IntArray],
    *,
    method: str,
    alternative: str,
    adjust: str,
    interval: str,
    confidence_level: float,
    side_tasks: Sequence[Callable[[], None]] = (),
) -> dict[str, FloatArray]:
    """The K x K matrices of the tested cells: statistic, pvalue, log10_pvalue,
    adjusted_pvalue, ci_low and ci_high (NaN where untested).

    ``pairs`` are the tested (A, B) row indices. The work runs over chunks of pairs, on the
    threads of a pool where there are several: the rows of binomial tails that the exact
    two-sided test looks up (in this thread); the tests; then the intervals and ``side_tasks``
    (the caller's other independent work), while this thread makes the multiplicity adjustment
    (which needs every p-value, and then sorts them). Each chunk's cells are computed where
    they are used: arrays of the cells of every pair would cost more to allocate than the few
    operations cost again.
    """
    # The limits of difference_interval for counts checked here already (as the reports call
    # them): the public function would check and broadcast every chunk's four cells again.
    from mcnemar.intervals._difference import MOVER_METHODS, _difference_limits, mover_limits

    k = both.shape[0]
    rows, cols = pairs
    two_sided = alternative == "two-sided"
    exact_two_sided = two_sided and method == "exact"
    # every pair, both ways round: each cell off the diagonal is written below
    every_cell = two_sided and rows.size == k * (k - 1) // 2

    def square() -> FloatArray:
        if not every_cell:
            return np.full((k, k), np.nan)
        out = np.empty((k, k))
        np.fill_diagonal(out, np.nan)
        return out

    names = ("statistic", "pvalue", "log10_pvalue", "adjusted_pvalue", "ci_low", "ci_high")
    cells = {name: square() for name in names}
    flat = {name: arr.reshape(-1) for name, arr in cells.items()}
    both_flat = both.reshape(-1)
    p = np.empty(rows.size)

    def positions(part: slice) -> tuple[IntArray, IntArray]:
        """Flat positions of the cells of the pairs and of their mirror images."""
        i, j = rows[part], cols[part]
        return i * k + j, j * k + i

    def cells_of(part: slice) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray]:
        """Flat positions of the cells and of their mirror images, and a, right_A, right_B."""
        upper, lower = positions(part)
        return upper, lower, both_flat[upper], right[rows[part]], right[cols[part]]

    # Swapping A and B leaves a two-sided McNemar p-value unchanged and reflects the interval
    # for the difference through zero, so the lower triangle is filled without testing again.
    # One-sided tests exist only against a baseline and fill the model-vs-baseline cells.
    def fill(name: str, upper: IntArray, lower: IntArray, values: FloatArray,
             mirror: FloatArray) -> None:
        out = flat[name]
        out[upper] = values
        if two_sided:
            out[lower] = mirror

    def test(part: slice, tails: _TailRows | None) -> Callable[[], None]:
        def run() -> None:
            upper, lower, a, right_a, right_b = cells_of(part)
            statistic, pvalue, log10_pvalue = _test_pairs(
                right_a - a, right_b - a, method, alternative, tails
            )
            p[part] = pvalue
            fill("statistic", upper, lower, statistic, statistic)
            fill("pvalue", upper, lower, pvalue, pvalue)
            fill("log10_pvalue", upper, lower, log10_pvalue, log10_pvalue)
        return run

    # Newcombe's intervals start from each model's accuracy and its Wilson limits: computed
    # once per model, not once per pair (the same numbers, see mover_limits).
    marginals = _model_marginals(right, n, confidence_level) if interval in MOVER_METHODS else None

    def intervals(part: slice) -> Callable[[], None]:
        def run() -> None:
            upper, lower, a, right_a, right_b = cells_of(part)
            af = a.astype(np.float64)
            cells = (af, right_a - af, right_b - af, n - right_a - right_b + af)
            if marginals is None:
                low, high = _difference_limits(interval, *cells,
                                               np.full(af.size, confidence_level))
            else:
                i, j = rows[part], cols[part]
                low, high = mover_limits(interval, *cells,
                                         tuple(m[k] for k in (i, j) for m in marginals))
            fill("ci_low", upper, lower, low, -high)
            fill("ci_high", upper, lower, high, -low)
        return run

    def present(part: slice) -> npt.NDArray[np.bool_]:
        """Which rows of tails the chunk's tables take (their D = b + c)."""
        _, _, a, right_a, right_b = cells_of(part)
        return _row_present(right_a + right_b - 2 * a)

    parts = _chunks(rows.size)
    test_parts = _test_chunks(parts)
    with _pool(len(parts)) as pool:
        tails = None
        if exact_two_sided:
            tails = _TailRows(np.logical_or.reduce([present(part) for part in parts]))
            tails.build()
        tests = [_start(pool, test(part, tails)) for part in test_parts]
        for wait in tests:
            wait()
        # (beside the rows, the side tasks' large arrays slow them down more than they gain)
        others = [_start(pool, task) for task in side_tasks]
        others += [_start(pool, intervals(part)) for part in parts]
        adjusted = _adjust(p, adjust)
        for part in parts:
            fill("adjusted_pvalue", *positions(part), adjusted[part], adjusted[part])
        for wait in others:
            wait()
    return cells


def _model_marginals(right: IntArray, n: int, confidence_level: float
                     ) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Each model's accuracy and its Wilson limits at ``confidence_level``, as the MOVER
    intervals of a pair take them (:func:`mcnemar.intervals._roots._marginal`)."""
    from mcnemar.intervals._inputs import _z_of
    from mcnemar.intervals._roots import ARRAYS, _marginal

    with np.errstate(divide="ignore", invalid="ignore"):
        accuracy, low, high = _marginal(ARRAYS, right.astype(np.float64),
                                        np.full(right.size, float(n)), _z_of(confidence_level))
    return accuracy, low, high


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

    Every pair is then tested as :func:`mcnemar.inference.mcnemar` tests it, its difference in
    accuracy :math:`(b_{ij} - c_{ij})/N` gets a confidence interval, and the p-values are
    adjusted over the family of comparisons: the K(K-1)/2 pairs, or the K-1 comparisons with
    ``baseline``. Cochran's Q tests all K models at once. The tests and intervals are
    vectorized over chunks of pairs, which run on several threads for large K.

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
        Interval method for the difference, as ``method=`` of
        :func:`mcnemar.intervals.difference_interval` (default Newcombe's square-and-add
        interval).

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
    accuracy = right / n
    if base is None:
        iu, ju = np.triu_indices(k, 1)
    else:
        ju = np.full(k - 1, base, dtype=np.int64)
        iu = np.delete(np.arange(k, dtype=np.int64), base)

    # The other cells and the column sums of Cochran's Q: independent of the tests, so they
    # run on the threads beside the intervals.
    counts: dict[str, npt.NDArray[Any]] = {}

    def other_cells() -> None:
        counts["b"] = right[:, None] - both
        counts["c"] = right[None, :] - both
        d = np.subtract(n - right[:, None], right[None, :])
        counts["d"] = np.add(d, both, out=d)
        counts["difference"] = accuracy[:, None] - accuracy[None, :]

    def per_item() -> None:
        # the sums of K < 2**31 outcomes fit an int32, whose additions run twice as fast
        counts["per_item"] = x.sum(axis=0, dtype=np.int32).astype(np.int64)

    cells = _tested_cells(
        both, right, n, (iu, ju), method=method, alternative=alternative, adjust=adjust,
        interval=interval, confidence_level=confidence_level, side_tasks=(other_cells, per_item),
    )
    with np.errstate(invalid="ignore"):
        significant = cells["adjusted_pvalue"] < alpha

    order = np.argsort(-right, kind="stable")
    cq = _cochran_q(right, counts["per_item"], (k, n))
    return PairwiseResult(
        names=model_names,
        n=int(n),
        correct=_readonly(right),
        accuracy=_readonly(accuracy),
        a=_readonly(both),
        b=_readonly(counts["b"]),
        c=_readonly(counts["c"]),
        d=_readonly(counts["d"]),
        difference=_readonly(counts["difference"]),
        statistic=_readonly(cells["statistic"]),
        pvalue=_readonly(cells["pvalue"]),
        log10_pvalue=_readonly(cells["log10_pvalue"]),
        adjusted_pvalue=_readonly(cells["adjusted_pvalue"]),
        ci_low=_readonly(cells["ci_low"]),
        ci_high=_readonly(cells["ci_high"]),
        significant=_readonly(significant),
        pairs=_readonly(np.stack([iu, ju], axis=1).astype(np.int64, copy=False)),
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
