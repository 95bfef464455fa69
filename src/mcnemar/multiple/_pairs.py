""":func:`pairwise`: every paired comparison of K models from one correctness matrix."""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

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

# Pairs are tested and their intervals computed this many at a time. The test and interval
# code makes a few dozen temporary arrays per call; on all K(K-1)/2 pairs at once (500,000 for
# K = 1,000) they spill out of the caches, and in chunks of this size the intervals run about
# three times faster, the tests about 1.2 times. The chunks are independent, so they also run
# on several cores at once: numpy's and scipy.special's loops release the GIL.
_CHUNK = 32_768
# More threads than this gain nothing on the few chunks even a large K has.
_MAX_THREADS = 8

_LN10 = math.log(10.0)


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


@contextlib.contextmanager
def _pool(chunks: int) -> Iterator[ThreadPoolExecutor | None]:
    """A few threads for the work on ``chunks`` chunks of pairs, or None to run it in this
    thread (one chunk: starting threads would cost more than they save)."""
    workers = min(chunks, _threads(), _MAX_THREADS)
    if workers <= 1:
        yield None
        return
    with ThreadPoolExecutor(max_workers=workers) as pool:
        yield pool


def _start(pool: ThreadPoolExecutor | None, task: Callable[[], None]) -> Callable[[], None]:
    """Start ``task`` (at once, without a pool); return the wait for its end."""
    if pool is None:
        task()
        return lambda: None
    future = pool.submit(task)
    return lambda: future.result()  # re-raises the task's error here


def _test_pairs(
    b: IntArray, c: IntArray, method: str, alternative: str
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(statistic, pvalue, log10_pvalue) of :func:`mcnemar.inference.mcnemar` for counts b, c.

    The exact test of tables with more than :data:`mcnemar._binomial.SMALL_N` discordant
    items goes to the binomial tails directly: the same routes and conventions as
    :func:`mcnemar.inference.pvalues` (two-sided: min(1, 2 * smaller tail); one-sided: one
    tail, P(X >= b) = P(X <= c)), but with the plain incomplete beta value used as the p-value
    where it does not underflow and no incomplete beta computed where it would (see
    :func:`mcnemar._binomial.two_sided_half`): the same numbers to ~1e-13 relative, in half
    the time. Smaller tables, which the core computes from exact integer tails, and the other
    tests are the core's.
    """
    from mcnemar import _binomial
    from mcnemar.inference import pvalues

    small = b + c <= _binomial.SMALL_N
    if method != "exact" or small.all():
        statistic, pvalue, log10_pvalue, _ = pvalues(b, c, method, alternative)
        return statistic, pvalue, log10_pvalue
    bf = b.astype(np.float64)
    cf = c.astype(np.float64)
    if alternative == "two-sided":
        statistic = np.minimum(bf, cf)
        pvalue, log_p = _binomial.two_sided_half(bf, bf + cf)
    else:
        statistic = bf
        pvalue, log_p = _binomial.lower_tail_and_log_half(
            cf if alternative == "greater" else bf, bf + cf
        )
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

    ``pairs`` are the tested (A, B) row indices. The work runs over chunks of pairs: first the
    tests of every chunk, then their intervals together with the multiplicity adjustment
    (which needs every p-value, and then sorts them) and ``side_tasks``, the caller's other
    independent work.
    """
    # The limits of difference_interval for counts checked here already (as the reports call
    # them): the public function would check and broadcast every chunk's four cells again.
    from mcnemar.intervals._difference import _difference_limits

    k = both.shape[0]
    rows, cols = pairs
    two_sided = alternative == "two-sided"
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

    def chunk(part: slice) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray]:
        """Flat positions of the cells and of their mirror images, and a, right_A, right_B."""
        i, j = rows[part], cols[part]
        upper = i * k + j
        return upper, j * k + i, both_flat[upper], right[i], right[j]

    # Swapping A and B leaves a two-sided McNemar p-value unchanged and reflects the interval
    # for the difference through zero, so the lower triangle is filled without testing again.
    # One-sided tests exist only against a baseline and fill the model-vs-baseline cells.
    def fill(name: str, upper: IntArray, lower: IntArray, values: FloatArray,
             mirror: FloatArray) -> None:
        out = flat[name]
        out[upper] = values
        if two_sided:
            out[lower] = mirror

    def test(part: slice) -> Callable[[], None]:
        def run() -> None:
            upper, lower, a, right_a, right_b = chunk(part)
            statistic, pvalue, log10_pvalue = _test_pairs(
                right_a - a, right_b - a, method, alternative
            )
            p[part] = pvalue
            fill("statistic", upper, lower, statistic, statistic)
            fill("pvalue", upper, lower, pvalue, pvalue)
            fill("log10_pvalue", upper, lower, log10_pvalue, log10_pvalue)
        return run

    def intervals(part: slice) -> Callable[[], None]:
        def run() -> None:
            upper, lower, a, right_a, right_b = chunk(part)
            af = a.astype(np.float64)
            low, high = _difference_limits(
                interval, af, right_a - af, right_b - af, n - right_a - right_b + af,
                np.full(af.size, confidence_level),
            )
            fill("ci_low", upper, lower, low, -high)
            fill("ci_high", upper, lower, high, -low)
        return run

    parts = [slice(start, min(start + _CHUNK, rows.size)) for start in range(0, rows.size, _CHUNK)]
    with _pool(len(parts)) as pool:
        tests = [_start(pool, test(part)) for part in parts]
        others = [_start(pool, task) for task in (*map(intervals, parts), *side_tasks)]
        for wait in tests:
            wait()
        # in this thread, while the pool works through the intervals
        adjusted = _adjust(p, adjust)
        fill("adjusted_pvalue", rows * k + cols, cols * k + rows, adjusted, adjusted)
        for wait in others:
            wait()
    return cells


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
        counts["d"] = n - right[:, None] - right[None, :] + both
        counts["difference"] = accuracy[:, None] - accuracy[None, :]

    def per_item() -> None:
        counts["per_item"] = x.sum(axis=0, dtype=np.int64)

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
