"""Every number of a report, for an array of tables at once.

:func:`compute` runs the four tests, all difference, ratio and odds-ratio intervals, the
unpaired comparison, the detectable difference and the claims of the conclusion over arrays of
tables, each in one vectorized call, and returns them as :class:`Columns`. Both
:func:`mcnemar.report.analyze` (a batch of one) and :func:`mcnemar.batch.analyze_many` build
their reports from these columns, so a table gives the same numbers alone or in a batch.

Quantities that need N (difference, ratio, unpaired test, detectable difference) are computed
for the tables that have it and are NaN elsewhere; ``Columns`` says which tables have them.

scipy is imported only where a number needs it: a table with at most
``mcnemar._binomial.SMALL_N`` discordant items and no N (``mcnemar test --b 17 --c 3``) gets its
tests (:func:`mcnemar.inference.pvalues`) and odds-ratio intervals
(:func:`_odds_ratio_intervals`) without it, and the planning package is loaded only for the
detectable difference.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mcnemar import _binomial, _routes
from mcnemar._format import clean_name
from mcnemar.inference import (
    METHODS,
    check_alternative,
    normal_isf,
    pvalues_by_method,
    unpaired_formula,
    unpaired_log10_formula,
)
from mcnemar.report._decide import decide, exact_recommended
from mcnemar.table import _MAX_COUNT as MAX_ITEMS
from mcnemar.validation import check_names, check_open_unit
from mcnemar.vocabulary import DIFFERENCE_INTERVALS, names

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]

#: Up to this many discordant items the detectable difference is computed with the exact
#: test's power; beyond it with Connor's (1987) normal approximation.
EXACT_POWER_MAX_D = 1_000_000
#: The tests every report computes, in the order it lists them (the vocabulary's, less the
#: unconditional test, which is asked for by name).
TEST_ORDER = METHODS
#: The interval methods the report shows, per quantity: every difference interval
#: (``mcnemar.intervals.DIFFERENCE_METHODS``, named from the vocabulary so that a report of a
#: table without N imports no interval module), three of the ratio and of the odds ratio.
DIFFERENCE_SHOWN = names(DIFFERENCE_INTERVALS)
RATIO_SHOWN = ("tang", "bonett-price", "wald")
ODDS_RATIO_SHOWN = ("exact", "midp", "wilson")
#: A small table's mid-p odds-ratio limits come from :func:`_small_odds_ratio` only while both
#: mid-p limits of the proportion, b/D's lower one and c/D's lower one, are at most this; the
#: search of :mod:`mcnemar.intervals` stops within 1e-13 relative of such a limit l, which
#: l/(1 - l) magnifies by 1/(1 - l), so beyond 7/8 the two routes could differ by more than
#: 1e-12 and the table keeps the intervals package's values.
MIDP_SMALL_MAX = 0.875

_LEVEL_EXAMPLES = {"alpha": "0.05", "confidence_level": "0.95 for 95%", "power": "0.8 for 80%"}


def check_level(name: str, value: Any) -> float:
    """A number strictly between 0 and 1, with a hint when a percentage was given."""
    return check_open_unit(value, name, example=_LEVEL_EXAMPLES.get(name))


def system_names(names: Any) -> tuple[str, str]:
    """The names of A and B: two non-empty strings, cleaned to one line each, that differ."""
    if type(names) is tuple and len(names) == 2 and all(type(x) is str for x in names):
        # (most calls pass the same few pairs: their checked and cleaned names are kept)
        return _checked_pair(names)
    return _check_pair(names)


def _check_pair(names: Any) -> tuple[str, str]:
    return check_names(names, 2, what="system", clean=clean_name)  # type: ignore[return-value]


_checked_pair = functools.lru_cache(maxsize=256)(_check_pair)


@dataclass(frozen=True, slots=True)
class Options:
    """The validated options of an analysis (the same for every table of a batch)."""

    names: tuple[str, str]
    alternative: str
    confidence_level: float
    alpha: float
    power: float

    @classmethod
    def check(
        cls, names: Any, alternative: Any, confidence_level: Any, alpha: Any, power: Any
    ) -> Options:
        return cls(
            names=system_names(names),
            alternative=check_alternative(alternative),
            confidence_level=check_level("confidence_level", confidence_level),
            alpha=check_level("alpha", alpha),
            power=check_level("power", power),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Columns:
    """The numbers of k reports, one element per table (see the module docstring).

    Attributes
    ----------
    a, b, c, d, n : ndarray of int64
        The cells; a, d and n are 0 where N is unknown (``has_n`` False).
    tests : dict of str to tuple of ndarray
        Per test (``TEST_ORDER``): statistic, pvalue, log10_pvalue, zscore.
    exact_recommended : ndarray of bool
        Fewer than ``EXACT_BELOW`` discordant items: the exact test is recommended, else the
        chi-square test.
    pvalue, log10_pvalue : ndarray
        The recommended test's.
    has_difference : ndarray of bool
        N known and positive: difference, ratio, intervals and the unpaired test are defined.
    difference, ratio, odds_ratio : ndarray
        Point estimates (NaN where not computed; the ratios may be infinite).
    difference_intervals, ratio_intervals, odds_ratio_intervals : mapping of str to (low, high)
        Each method's limits, computed when first read (:class:`LazyIntervals`).
    has_odds_ratio : ndarray of bool
        At least one discordant item.
    unpaired_z, unpaired_pvalue, unpaired_log10_pvalue : ndarray
    detectable : ndarray
        The difference the test had ``power`` to detect (NaN where not stated).
    power_exact : ndarray of bool
        The detectable difference uses the exact power (else Connor's approximation).
    too_many : ndarray of bool
        Discordant items but more than ``MAX_ITEMS`` items: the power is not computed.
    defined, significant, opposite, contains_zero, has_interval : ndarray of bool
    better, direction : ndarray of int8
        1 for A, -1 for B, 0 for neither (the claims of the conclusion, :func:`decide`).
    noninferiority, equivalence : result or None
        The tests against a margin, for all tables at once, when one was given.
    """

    options: Options
    a: IntArray
    b: IntArray
    c: IntArray
    d: IntArray
    n: IntArray
    has_n: BoolArray
    tests: dict[str, tuple[FloatArray, FloatArray, FloatArray, FloatArray]]
    exact_recommended: BoolArray
    pvalue: FloatArray
    log10_pvalue: FloatArray
    has_difference: BoolArray
    difference: FloatArray
    difference_intervals: Mapping[str, tuple[FloatArray, FloatArray]]
    ratio: FloatArray
    ratio_intervals: Mapping[str, tuple[FloatArray, FloatArray]]
    has_odds_ratio: BoolArray
    odds_ratio: FloatArray
    odds_ratio_intervals: Mapping[str, tuple[FloatArray, FloatArray]]
    unpaired_z: FloatArray
    unpaired_pvalue: FloatArray
    unpaired_log10_pvalue: FloatArray
    detectable: FloatArray
    power_exact: BoolArray
    too_many: BoolArray
    defined: BoolArray
    significant: BoolArray
    better: NDArray[np.int8]
    direction: NDArray[np.int8]
    opposite: BoolArray
    has_interval: BoolArray
    contains_zero: BoolArray
    noninferiority: Any = None
    equivalence: Any = None

    def __len__(self) -> int:
        return int(self.b.size)

    @property
    def discordant(self) -> IntArray:
        out: IntArray = self.b + self.c
        return out


def _nan(size: int) -> FloatArray:
    out = np.empty(size)  # np.full(size, np.nan), at a third of its cost per call
    out.fill(np.nan)
    return out


class _Subset:
    """The tables an interval is computed for (``where``), their cells as flat float64 arrays
    and their levels: made once, on first use, for every method that reads them."""

    __slots__ = ("_cells", "_floats", "idx", "level", "where")

    def __init__(self, where: BoolArray, cells: tuple[IntArray, ...], level: float) -> None:
        self.where, self._cells, self.level = where, cells, level
        self._floats: tuple[tuple[FloatArray, ...], FloatArray] | None = None
        self.idx: NDArray[np.intp] | None = None

    def floats(self) -> tuple[tuple[FloatArray, ...], FloatArray]:
        """The cells of the tables (of all of them, ``idx`` None, or those at ``idx``) and
        their levels."""
        if self._floats is None:
            size = self.where.size
            if size and self.where.all():
                sub = tuple(x.astype(np.float64) for x in self._cells)
            else:
                self.idx = np.flatnonzero(self.where)
                sub = tuple(x[self.idx].astype(np.float64) for x in self._cells)
            levels = np.full(sub[0].size, self.level)
            # (read-only: every method reads the same arrays)
            for x in (*sub, levels):
                x.setflags(write=False)
            self._floats = sub, levels
        return self._floats

    def spread(self, values: tuple[FloatArray, ...]) -> tuple[FloatArray, ...]:
        """Values of the subset's tables as columns of every table, NaN elsewhere (the arrays
        themselves where the subset is every table: no scatter)."""
        self.floats()
        if self.idx is None:
            return values
        out = tuple(_nan(self.where.size) for _ in values)
        for column, value in zip(out, values, strict=True):
            column[self.idx] = value
        return out


def _subset_intervals(fn: Any, methods: tuple[str, ...], subset: _Subset
                      ) -> dict[str, tuple[FloatArray, FloatArray]]:
    """Each method's interval for the tables of ``subset`` (one call per method), NaN
    elsewhere.

    ``fn(method, *cells, levels)`` is the part of an interval function that runs after its
    checks (the counts here are validated already), on flat float64 arrays.
    """
    sub, levels = subset.floats()
    out = {}
    for m in methods:
        low, high = subset.spread(fn(m, *sub, levels) if sub[0].size else (_nan(0), _nan(0)))
        out[m] = (low, high)
    return out


def _interval_blocks(limits: Any, kind: str, method: str, subset: _Subset
                     ) -> dict[str, tuple[FloatArray, FloatArray]]:
    """The blocks a first read of ``method`` (of the ``kind`` "difference" or "ratio")
    computes: for a single table, every shown method with a closed form at once when
    ``method`` is one of them (:func:`_closed_forms`; one pass on Python floats, where each
    call of a route costs more than a closed form's arithmetic); otherwise that method's
    alone, so that a batch computes only what is read. Either way each method's limits are
    those of its own call of ``limits``."""
    if subset.where.size == 1 and subset.floats()[0][0].size:
        closed, together = _closed_forms(kind)
        if method in closed:
            sub, levels = subset.floats()
            out = {}
            for m, found in zip(closed, together(closed, *sub, levels), strict=True):
                low, high = subset.spread(found)
                out[m] = (low, high)
            return out
    return _subset_intervals(limits, (method,), subset)


@functools.cache
def _closed_forms(kind: str) -> tuple[tuple[str, ...], Any]:
    """The shown methods of ``kind`` whose limits have a closed form (those of the interval
    module's ``CLOSED_FORMS``) and the module's one pass over them, ``closed_form_limits``;
    imported on first use, as :func:`_difference_limits` is."""
    from mcnemar.intervals import _difference, _ratio

    module, shown = ((_difference, DIFFERENCE_SHOWN) if kind == "difference"
                     else (_ratio, RATIO_SHOWN))
    closed = tuple(m for m in shown if m in module.CLOSED_FORMS)
    return closed, module.closed_form_limits


class LazyIntervals(Mapping[str, tuple[FloatArray, FloatArray]]):
    """The interval blocks of a quantity, each method's (low, high) computed when first read
    and kept: a batch whose reader never asks for a method (``to_frame()`` shows Newcombe's
    interval only) does not pay for it, and a report that reads them all computes each once.

    ``compute(method)`` returns the blocks it computed (that method's, or a group's at once);
    a method's numbers are the same whenever they are computed.
    """

    __slots__ = ("_compute", "_done", "_methods")

    def __init__(self, methods: tuple[str, ...],
                 compute: Callable[[str], dict[str, tuple[FloatArray, FloatArray]]]) -> None:
        self._methods = methods
        self._compute = compute
        self._done: dict[str, tuple[FloatArray, FloatArray]] = {}

    def __getitem__(self, method: str) -> tuple[FloatArray, FloatArray]:
        if method not in self._done:
            if method not in self._methods:
                raise KeyError(method)
            self._done.update(self._compute(method))
        return self._done[method]

    def __iter__(self) -> Iterator[str]:
        return iter(self._methods)

    def __len__(self) -> int:
        return len(self._methods)


def _odds_ratios(b: IntArray, c: IntArray, has_or: BoolArray) -> FloatArray:
    """The odds ratio b/c of :func:`mcnemar.intervals.odds_ratio_estimate` for the tables with
    discordant items (their counts checked already), NaN elsewhere."""
    from mcnemar.intervals._estimates import _ratio_of_counts

    odds = _nan(b.size)
    if has_or.any():
        odds[has_or] = _ratio_of_counts(b[has_or].astype(np.float64),
                                        c[has_or].astype(np.float64))
    return odds


def _odds_ratio_intervals(
    b: IntArray, c: IntArray, has_or: BoolArray, level: float
) -> dict[str, tuple[FloatArray, FloatArray]]:
    """Each shown odds-ratio interval (``ODDS_RATIO_SHOWN``) of the tables with discordant
    items, NaN elsewhere.

    Wilson's limits need only the normal quantile, taken from
    :func:`mcnemar.inference.normal_isf`. The Clopper-Pearson and mid-p limits of a table with
    at most :data:`mcnemar._binomial.SMALL_N` discordant items come from
    :func:`_small_odds_ratio`, without scipy, one solve per distinct table (and per process:
    they are cached); the others, and mid-p limits beyond :data:`MIDP_SMALL_MAX`, from
    :mod:`mcnemar.intervals`. Each table's route depends on that table alone, so it gets the
    same limits alone or in a batch; the routes agree to ~1e-13 relative.
    """
    from mcnemar.intervals._odds_ratio import _odds_ratio_limits, _or_wilson

    size = b.size
    alpha = (1.0 - level) / 2.0
    if size and (has_or & (b + c <= _binomial.SMALL_N)).all():
        # Every table small (a report, or a batch of small tables): the limits are the rows'
        # columns, with no gather and no scatter; the mid-p limits past MIDP_SMALL_MAX are
        # those of mcnemar.intervals, as below.
        rows = _small_odds_ratio_rows(b, c, alpha)
        midp_low, midp_high = rows[:, 2].copy(), rows[:, 3].copy()
        redo = np.flatnonzero(rows[:, 4] == 0.0)
        if redo.size:
            midp_low[redo], midp_high[redo] = _odds_ratio_limits(
                "midp", b[redo].astype(np.float64), c[redo].astype(np.float64),
                np.full(redo.size, level))
        wilson = _or_wilson(b.astype(np.float64), c.astype(np.float64),
                            np.full(size, normal_isf(alpha)))
        return {"exact": (rows[:, 0].copy(), rows[:, 1].copy()), "midp": (midp_low, midp_high),
                "wilson": wilson}
    blocks = {m: (_nan(size), _nan(size)) for m in ODDS_RATIO_SHOWN}
    done = {"exact": np.zeros(size, dtype=bool), "midp": np.zeros(size, dtype=bool)}
    small = np.flatnonzero(has_or & (b + c <= _binomial.SMALL_N))
    if small.size:
        rows = _small_odds_ratio_rows(b[small], c[small], alpha)
        for j, method in enumerate(("exact", "midp")):
            low, high = blocks[method]
            low[small], high[small] = rows[:, 2 * j], rows[:, 2 * j + 1]
        done["exact"][small] = True
        done["midp"][small] = rows[:, 4] > 0.0
    for method, ok in done.items():
        rest = has_or & ~ok
        if rest.any():
            low, high = blocks[method]
            other_low, other_high = _subset_intervals(
                _odds_ratio_limits, (method,), _Subset(rest, (b, c), level)
            )[method]
            low[rest], high[rest] = other_low[rest], other_high[rest]
    idx = np.flatnonzero(has_or)
    if idx.size:
        low, high = blocks["wilson"]
        z = np.full(idx.size, normal_isf(alpha))
        low[idx], high[idx] = _or_wilson(b[idx].astype(np.float64), c[idx].astype(np.float64), z)
    return blocks


def _small_odds_ratio_rows(b: IntArray, c: IntArray, alpha: float) -> FloatArray:
    """:func:`_small_odds_ratio` of each table (b[i], c[i]), b + c <= SMALL_N, as rows; each
    distinct table is solved once."""
    if b.size <= _FEW_ROWS:  # a report or a few: no lookup array to build
        return np.array([_small_odds_ratio(x, y, alpha)
                         for x, y in zip(b.tolist(), c.tolist(), strict=True)])
    n = b + c
    keys = n * (n + 1) // 2 + b
    distinct = np.flatnonzero(np.bincount(keys))
    lookup = np.empty((int(distinct[-1]) + 1, 5))
    for key in distinct.tolist():
        d = (math.isqrt(8 * key + 1) - 1) // 2  # key = d(d + 1)/2 + b with 0 <= b <= d
        first = key - d * (d + 1) // 2
        lookup[key] = _small_odds_ratio(first, d - first, alpha)
    rows: FloatArray = lookup[keys]
    return rows


#: Up to this many small tables take their odds-ratio rows one by one.
_FEW_ROWS = 16


@functools.lru_cache(maxsize=4096)
def _small_odds_ratio(b: int, c: int, alpha: float) -> tuple[float, float, float, float, float]:
    """The Clopper-Pearson and mid-p limits of the odds ratio b/c at tail ``alpha`` for
    b + c <= SMALL_N, without scipy: (exact low, exact high, mid-p low, mid-p high, 1.0 if the
    mid-p limits are taken from here else 0.0; see :data:`MIDP_SMALL_MAX`).

    mu = b/(b + c) has the limits of :func:`mcnemar._binomial.proportion_limit_small`, each
    with its complement, so that mu/(1 - mu) keeps its relative precision. The mid-p limits of
    mu are, as in :mod:`mcnemar.intervals`, the lower mid-p limits l_b of b and l_c of c:
    (l_b/(1 - l_b), (1 - l_c)/l_c).
    """
    n = b + c
    limit = _binomial.proportion_limit_small
    mu_low, rest_low = limit(b, n, alpha, upper=False)
    mu_high, rest_high = limit(b, n, alpha, upper=True)
    low_b, rest_b = limit(b, n, alpha, upper=False, mid=True)
    low_c, rest_c = limit(c, n, alpha, upper=False, mid=True)
    return (
        mu_low / rest_low,
        mu_high / rest_high if rest_high > 0.0 else math.inf,
        low_b / rest_b,
        rest_c / low_c if low_c > 0.0 else math.inf,
        1.0 if max(low_b, low_c) <= MIDP_SMALL_MAX else 0.0,
    )


def _estimates_with_n(with_n: _Subset, alternative: str) -> tuple[FloatArray, ...]:
    """Difference, ratio and the unpaired test (z, p, log10 p) of the tables with N > 0, NaN
    elsewhere (:func:`_estimates`; one table on Python floats)."""
    cells, _ = with_n.floats()
    if not cells[0].size:  # (no table has N: nothing computed, scipy not imported)
        return with_n.spread(tuple(_nan(0) for _ in range(5)))
    return with_n.spread(_routes.by_table(_estimates, cells, {"alternative": alternative}))


def _estimates(xp: _routes.Ops, a: Any, b: Any, c: Any, d: Any, *, alternative: str
               ) -> tuple[Any, ...]:
    """difference_estimate and ratio_estimate of :mod:`mcnemar.intervals` and the unpaired
    test (z, p, log10 p) of tables with N > 0, on either route."""
    z, p = unpaired_formula(xp, a, b, c, d, alternative=alternative)
    return (xp.divide(b - c, a + b + c + d), xp.divide(a + b, a + c), z, p,
            unpaired_log10_formula(xp, z, alternative))


def _detectable(
    n: IntArray, big_d: IntArray, has_diff: BoolArray, opts: Options
) -> tuple[FloatArray, BoolArray, BoolArray]:
    """The detectable difference (NaN where not stated), where it uses the exact power, and
    where N is beyond the power calculations (``Columns.too_many``).

    One solve over all tables per power method. The exact power sum costs O(sqrt(D)); beyond a
    million discordant items Connor's normal approximation agrees with it to about 3
    significant digits.
    """
    detectable = _nan(n.size)
    power_exact = big_d <= EXACT_POWER_MAX_D
    too_many = has_diff & (big_d > 0) & (n > MAX_ITEMS)
    wanted = has_diff & (big_d > 0) & ~too_many
    for method, where in (("exact", wanted & power_exact), ("connor", wanted & ~power_exact)):
        sel = np.flatnonzero(where)
        if sel.size == 0:
            continue
        from mcnemar.planning._detectable import detectable_differences

        # minimum_detectable_effect's numbers, without its checks of what is checked already.
        n_sel = n[sel].astype(np.float64)
        d, _, _ = detectable_differences(n_sel, big_d[sel] / n_sel, opts.power, opts.alpha,
                                         opts.alternative, method)
        # The report states the size and, elsewhere, the side.
        detectable[sel] = np.abs(d)
    return detectable, power_exact, too_many


def _margin_tests(
    cells: tuple[IntArray, ...],
    has_n: BoolArray,
    margin: float,
    equivalence: bool,
    margin_method: str,
    alpha: float,
) -> tuple[Any, Any]:
    """The non-inferiority (and, if asked, equivalence) test of all tables against ``margin``."""
    from mcnemar import margin as nim
    from mcnemar.table import PairedTable

    a, b, c, d = cells
    # A table without N gets the margin module's own error (the margin is in accuracy).
    table = PairedTable(a=a, b=b, c=c, d=d) if has_n.all() else PairedTable(b=b, c=c)
    ni = nim.noninferiority(table, margin, method=margin_method, alpha=alpha)
    eq = nim.equivalence(table, margin, method=margin_method, alpha=alpha) if equivalence else None
    return ni, eq


def _difference_limits(*args: Any) -> tuple[FloatArray, FloatArray]:
    """:func:`mcnemar.intervals._difference._difference_limits`, imported when a table first
    needs an interval (a report of a table without N imports no interval module)."""
    from mcnemar.intervals._difference import _difference_limits as limits

    return limits(*args)


def _ratio_limits(*args: Any) -> tuple[FloatArray, FloatArray]:
    """:func:`mcnemar.intervals._ratio._ratio_limits`, imported on first use (see
    :func:`_difference_limits`)."""
    from mcnemar.intervals._ratio import _ratio_limits as limits

    return limits(*args)


def compute(
    a: IntArray,
    b: IntArray,
    c: IntArray,
    d: IntArray,
    has_n: BoolArray,
    options: Options,
    *,
    margin: float | None = None,
    equivalence: bool = False,
    margin_method: str = "score",
) -> Columns:
    """Every number of the reports of the tables (a[i], b[i], c[i], d[i]); see :class:`Columns`.

    The counts are validated one-dimensional int64 arrays (a and d are ignored where ``has_n``
    is False).
    """
    opts = options
    alt, level, alpha = opts.alternative, opts.confidence_level, opts.alpha
    a = np.where(has_n, a, 0)
    d = np.where(has_n, d, 0)
    n = a + b + c + d
    big_d = b + c

    tests = pvalues_by_method(b, c, alt)  # in the order of TEST_ORDER (= METHODS)
    exact_rec = exact_recommended(big_d)
    pvalue = np.where(exact_rec, tests["exact"][1], tests["asymptotic"][1])
    log10_p = np.where(exact_rec, tests["exact"][2], tests["asymptotic"][2])

    # The odds ratio needs discordant items only; the rest needs N > 0.
    has_or = big_d > 0
    odds = _odds_ratios(b, c, has_or)
    or_ci = LazyIntervals(ODDS_RATIO_SHOWN,
                          lambda _: _odds_ratio_intervals(b, c, has_or, level))

    has_diff = has_n & (n > 0)
    cells = (a, b, c, d)
    with_n = _Subset(has_diff, cells, level)
    diff, ratio, uz, up, ulog = _estimates_with_n(with_n, alt)
    diff_ci = LazyIntervals(DIFFERENCE_SHOWN, lambda m: _interval_blocks(
        _difference_limits, "difference", m, with_n))
    ratio_ci = LazyIntervals(RATIO_SHOWN, lambda m: _interval_blocks(
        _ratio_limits, "ratio", m, with_n))
    detectable, power_exact, too_many = _detectable(n, big_d, has_diff, opts)

    low, high = diff_ci["newcombe"]
    claims = decide(pvalue=pvalue, b=b, c=c, alpha=alpha, alternative=alt, low=low, high=high)

    ni = eq = None
    if margin is not None:
        ni, eq = _margin_tests(cells, has_n, margin, equivalence, margin_method, alpha)

    return Columns(
        options=opts,
        a=a,
        b=b,
        c=c,
        d=d,
        n=n,
        has_n=has_n,
        tests=tests,
        exact_recommended=exact_rec,
        pvalue=pvalue,
        log10_pvalue=log10_p,
        has_difference=has_diff,
        difference=diff,
        difference_intervals=diff_ci,
        ratio=ratio,
        ratio_intervals=ratio_ci,
        has_odds_ratio=has_or,
        odds_ratio=odds,
        odds_ratio_intervals=or_ci,
        unpaired_z=uz,
        unpaired_pvalue=up,
        unpaired_log10_pvalue=ulog,
        detectable=detectable,
        power_exact=power_exact,
        too_many=too_many,
        noninferiority=ni,
        equivalence=eq,
        **claims,
    )
