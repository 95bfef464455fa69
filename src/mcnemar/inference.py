"""McNemar's tests of equal accuracy (marginal homogeneity) for paired binary outcomes.

H0: accuracy(A) = accuracy(B), i.e. the discordant split is even: given D = b + c discordant
items, b ~ Bin(D, 1/2). Four tests, each with ``alternative`` two-sided / greater / less
("greater": A is more accurate, b large):

==============  ================================================  =============================
method          p-value (two-sided)                                statistic
==============  ================================================  =============================
``exact``       min(1, 2 P(X <= min(b, c))), X ~ Bin(D, 1/2)      min(b, c) (one-sided: b)
``midp``        min(1, 2 [P(X < k) + P(X = k)/2]), k = min(b,c)   min(b, c) (one-sided: b)
``asymptotic``  P(chi2_1 >= (b - c)^2 / D)                        (b - c)^2 / D
``asymptotic``  with ``correction=True`` (Edwards):               max(0, |b - c| - 1)^2 / D
                P(chi2_1 >= max(0, |b - c| - 1)^2 / D)
==============  ================================================  =============================

One-sided asymptotic p-values use the signed z = (b - c)/sqrt(D) (corrected:
(b - c -/+ 1)/sqrt(D)). With D = 0 every test gives p = 1 (the statistic of the chi-square
tests is undefined and reported as NaN / null). The exact p-values are computed with
:mod:`mcnemar._binomial` (incomplete beta and log-space quadrature, never by summing terms in
floating point), and ``log10_pvalue`` stays finite and accurate where the p-value underflows a
double. Tables with at most 64 discordant items (``mcnemar._binomial.SMALL_N``) are computed
without scipy, from exact integer tails and ``math.erfc`` (see :func:`pvalues`), so that the
report of a small table starts fast.

The mid-p convention here gives 1 when b = c; Fagerland et al. (2013) define the two-sided mid-p
as 1 - P(X = b)/2 in that case, which is smaller than 1; every other table agrees.

References
----------
Q. McNemar (1947), Psychometrika 12:153-157. A. L. Edwards (1948), Psychometrika 13:185-187.
M. W. Fagerland, S. Lydersen & P. Laake (2013), "The McNemar test for binary matched-pairs
data: mid-p and asymptotic are better than exact conditional", BMC Med Res Methodol 13:91.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from mcnemar import _binomial, _routes, vocabulary
from mcnemar._format import format_number as _fmt
from mcnemar._format import format_pvalue, json_fields
from mcnemar._format import json_value as _plain  # noqa: F401  (an import path kept in use)
from mcnemar._format import scalar_or_array as _out
from mcnemar.errors import McNemarError, TableError, option
from mcnemar.table import PairedTable
from mcnemar.validation import check_choice, check_count

__all__ = ["ALTERNATIVES", "METHODS", "McNemarResult", "as_table", "mcnemar", "null_distribution"]

Alternative = vocabulary.Alternative
#: The tests every report computes (the exact unconditional test is asked for by name).
METHODS = tuple(name for name in vocabulary.names(vocabulary.TESTS) if name != "unconditional")
ALTERNATIVES = vocabulary.names(vocabulary.ALTERNATIVES)
# Every test by its name, and a few other spellings users type.
_METHOD_ALIASES = {
    **{name: name for name in vocabulary.names(vocabulary.TESTS)},
    "binomial": "exact",
    "mid-p": "midp",
    "chi2": "asymptotic",
    "chi-square": "asymptotic",
    "edwards": "corrected",
}
FloatArray = NDArray[np.float64]

_LN10 = math.log(10.0)
_LN2 = math.log(2.0)
_LOG10_2 = math.log10(2.0)
_SQRT1_2 = math.sqrt(0.5)
_SQRT_PI = math.sqrt(math.pi)
#: Up to this many small tables the chi-square log Phi is computed for them alone, beyond it
#: looked up in the table of every small table (the same values).
_FEW_TABLES = 32
#: Beyond this argument erfc leaves the normal range of a double: log Phi(-x) from the
#: asymptotic series of erfcx instead.
_ERFC_NORMAL_BELOW = 26.0

#: Human name of each test (the vocabulary's label).
NAMES = {term.name: term.label for term in vocabulary.TESTS}
CONVENTIONS = {
    ("exact", "two-sided"): "two-sided p = min(1, 2 * smaller binomial tail), X ~ Bin(D, 1/2)",
    ("midp", "two-sided"): (
        "two-sided mid-p = min(1, 2 * [P(X < k) + P(X = k)/2]), k = min(b, c); 1 when b = c"
    ),
    ("asymptotic", "two-sided"): "chi-square = (b - c)^2 / D on 1 degree of freedom",
    ("corrected", "two-sided"): "chi-square = max(0, |b - c| - 1)^2 / D on 1 degree of freedom",
    ("exact", "greater"): "one-sided p = P(X >= b), X ~ Bin(D, 1/2)",
    ("exact", "less"): "one-sided p = P(X <= b), X ~ Bin(D, 1/2)",
    ("midp", "greater"): "one-sided mid-p = P(X > b) + P(X = b)/2",
    ("midp", "less"): "one-sided mid-p = P(X < b) + P(X = b)/2",
    ("asymptotic", "greater"): "one-sided p = P(Z >= (b - c)/sqrt(D))",
    ("asymptotic", "less"): "one-sided p = P(Z <= (b - c)/sqrt(D))",
    ("corrected", "greater"): "one-sided p = P(Z >= (b - c - 1)/sqrt(D))",
    ("corrected", "less"): "one-sided p = P(Z <= (b - c + 1)/sqrt(D))",
    ("unconditional", "two-sided"): (
        "max over the discordance rate (99.99% interval, + 1e-4) of P(chi-square >= observed)"
    ),
    ("unconditional", "greater"): "max over the discordance rate of P(Z >= observed z)",
    ("unconditional", "less"): "max over the discordance rate of P(Z <= observed z)",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class McNemarResult:
    """Result of :func:`mcnemar`.

    Attributes
    ----------
    statistic : float or ndarray
        ``min(b, c)`` for the two-sided exact and mid-p tests (``b`` one-sided); the
        chi-square statistic for the asymptotic tests (NaN when D = 0).
    pvalue : float or ndarray
        The p-value, in [0, 1]; 1 when D = 0.
    log10_pvalue : float or ndarray
        log10 of the p-value, finite even when ``pvalue`` underflows to 0.
    zscore : float or ndarray
        Signed normal deviate (b - c)/sqrt(D) (continuity-corrected for ``corrected``); NaN
        when D = 0 or for the exact tests.
    method, alternative : str
        What was computed (``method`` is one of ``"exact"``, ``"midp"``, ``"asymptotic"``,
        ``"corrected"``).
    table : PairedTable
        The table(s) tested.
    """

    statistic: float | NDArray[np.float64]
    pvalue: float | NDArray[np.float64]
    log10_pvalue: float | NDArray[np.float64]
    zscore: float | NDArray[np.float64]
    method: str
    alternative: str
    table: PairedTable

    @property
    def name(self) -> str:
        """Human name of the test."""
        return NAMES[self.method]

    @property
    def convention(self) -> str:
        """How the p-value is defined (which tail, doubling)."""
        return CONVENTIONS[(self.method, self.alternative)]

    def confidence_interval(self, confidence_level: float = 0.95, method: str = "newcombe") -> Any:
        """Confidence interval for the difference in accuracy, (b - c)/N.

        Parameters
        ----------
        confidence_level : float
            Between 0 and 1.
        method : str
            One of :data:`mcnemar.intervals.DIFFERENCE_METHODS` (default Newcombe's hybrid
            score interval, method 10).

        Returns
        -------
        ConfidenceInterval
            ``low`` and ``high`` (arrays for an array of tables).

        Raises
        ------
        McNemarError
            When the table has no a and d (N unknown).
        """
        from mcnemar.intervals import difference_interval

        a, b, c, d = self.table.arrays_with_n(
            "the confidence interval for the difference (b - c)/N needs N"
        )
        return difference_interval(a, b, c, d, confidence_level=confidence_level, method=method)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe summary (NaN and infinity become null)."""
        return {
            **json_fields(self, "method", "name", "alternative", "convention", "statistic",
                          "pvalue", "log10_pvalue"),
            "table": self.table.to_dict(),
        }

    def __str__(self) -> str:
        if self.table.shape:
            return (
                f"McNemar {self.name} ({self.alternative}) for {np.size(self.pvalue)} tables; "
                "see .pvalue"
            )
        return (
            f"McNemar {self.name} ({self.alternative}): b = {self.table.b}, "
            f"c = {self.table.c}, D = {self.table.discordant}; statistic = "
            f"{_fmt(self.statistic)}, p = {format_pvalue(self.pvalue, self.log10_pvalue)}"
        )


def as_table(table: Any) -> PairedTable:
    """Accept a :class:`PairedTable` or a 2x2 array ``[[a, b], [c, d]]`` (rows: A right /
    wrong; columns: B right / wrong), or a stack of them with shape (..., 2, 2)."""
    if isinstance(table, PairedTable):
        return table
    try:
        arr = np.asarray(table)
    except Exception as exc:
        raise TableError(
            f"table must be a PairedTable or a 2x2 array [[a, b], [c, d]], got {table!r}",
            argument="table",
        ) from exc
    if arr.ndim < 2 or arr.shape[-2:] != (2, 2):
        raise TableError(
            f"table must be a PairedTable or a 2x2 array [[a, b], [c, d]] (rows: A right/wrong, "
            f"columns: B right/wrong), got an array of shape {arr.shape}",
            argument="table",
        )
    if arr.ndim == 2:  # one table: its cells as scalars, which the checks take fastest
        return PairedTable(a=arr[0, 0], b=arr[0, 1], c=arr[1, 0], d=arr[1, 1])
    return PairedTable(a=arr[..., 0, 0], b=arr[..., 0, 1], c=arr[..., 1, 0], d=arr[..., 1, 1])


def check_alternative(alternative: Any) -> str:
    """Validate ``alternative``; return it."""
    return check_choice(alternative, "alternative", vocabulary.ALTERNATIVES,
                        hint="'greater' means A is more accurate than B")


def _check_method(method: Any, correction: bool) -> str:
    if not isinstance(method, str) or method not in _METHOD_ALIASES:
        check_choice(method, "method", vocabulary.TESTS)  # refuses it, naming the choices
    key = _METHOD_ALIASES[method]
    if not isinstance(correction, bool | np.bool_):
        raise McNemarError(f"{option('correction')} must be True or False, got {correction!r}",
                           argument="correction")
    if correction:
        if key == "asymptotic":
            key = "corrected"
        elif key != "corrected":
            raise McNemarError(
                f"correction=True applies only to method='asymptotic' (the chi-square test); "
                f"got method={method!r}. The {key} test needs no continuity correction"
            )
    return key


def pvalues(
    b: NDArray[np.int64], c: NDArray[np.int64], method: str, alternative: str
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Vectorized core: (statistic, pvalue, log10_pvalue, zscore) for validated counts.

    ``method`` is one of :data:`METHODS` and ``alternative`` one of :data:`ALTERNATIVES`.

    Tables with at most :data:`mcnemar._binomial.SMALL_N` discordant items take a route without
    scipy, table by table (so a table gets the same numbers alone or among many): the exact
    and mid-p tails from exact integer sums (:func:`mcnemar._binomial.log_tails_half_small`),
    and log Phi of the chi-square tests from ``math.erfc`` (:func:`log_ndtr`), both looked up
    in tables of every such table. The others use the incomplete beta and
    ``scipy.special.log_ndtr``. The two routes agree to ~1e-13 relative (the tests compare
    them, and both with mpmath). Each test is one formula (:func:`_test_formula`), on Python
    floats for a single small table, on arrays otherwise.
    """
    shape = np.shape(b)
    values = _tests_of((np.ravel(b).astype(np.float64), np.ravel(c).astype(np.float64)),
                       method, alternative)
    statistic, pvalue, log10_pvalue, zscore = (v.reshape(shape) for v in values)
    return statistic, pvalue, log10_pvalue, zscore


def pvalues_by_method(
    b: NDArray[np.int64], c: NDArray[np.int64], alternative: str
) -> dict[str, tuple[FloatArray, FloatArray, FloatArray, FloatArray]]:
    """:func:`pvalues` of every method of :data:`METHODS`, in that order, for validated flat
    counts (converted once)."""
    cells = (b.astype(np.float64), c.astype(np.float64))
    return {key: _tests_of(cells, key, alternative) for key in METHODS}


def _tests_of(cells: tuple[FloatArray, FloatArray], method: str, alternative: str
              ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """:func:`_test_formula` of flat float cells (b, c), by the route of :func:`by_table`."""
    statistic, pvalue, log10_pvalue, zscore = _routes.by_table(
        _test_formula, cells, {"method": method, "alternative": alternative},
        routes=(_TEST_FLOATS, _TEST_ARRAYS))
    return statistic, pvalue, log10_pvalue, zscore


def _test_formula(xp: _TestOps, bf: Any, cf: Any, *, method: str, alternative: str
                  ) -> tuple[Any, Any, Any, Any]:
    """(statistic, pvalue, log10_pvalue, zscore) of one table (floats) or many (arrays) for
    the conditional tests (see :func:`pvalues`)."""
    n = bf + cf
    zero = n == 0
    if method in ("exact", "midp"):
        mid = method == "midp"
        if alternative == "two-sided":
            k = xp.minimum(bf, cf)
            logp = xp.minimum(0.0, _LN2 + xp.log_tail(k, n, mid))
            statistic = k
        else:
            # P(X >= b) = P(X <= c) by the symmetry of Bin(D, 1/2).
            logp = xp.log_tail(cf if alternative == "greater" else bf, n, mid)
            statistic = bf + 0.0  # (a copy of the array)
        zscore = xp.where(zero, math.nan, math.nan)  # (NaN of the route's shape)
    else:
        statistic, z, x = _chi_square_parts(xp, bf, cf, method, alternative)
        log_phi = xp.log_phi(x, bf, n, method, alternative)
        # two-sided: chi2_1 survival = 2 * Phi(-|z|), with log Phi accurate far into the tail.
        logp = xp.minimum(0.0, _LN2 + log_phi) if alternative == "two-sided" else log_phi
        statistic = xp.where(zero, math.nan, statistic)
        zscore = xp.where(zero, math.nan, z)
    logp = xp.where(zero, 0.0, logp)
    return statistic, xp.exp(logp), logp / _LN10, zscore


def _log_tail(k: FloatArray, n: FloatArray, mid: bool) -> FloatArray:
    """log L(k) (or log M(k) if ``mid``) of Bin(n, 1/2), by the route of each table."""
    small = n <= _binomial.SMALL_N
    if small.all():
        return _binomial.log_tails_half_small(k, n, mid=mid)
    log_tail_of = _binomial.log_midp_tail_half if mid else _binomial.log_lower_tail_half
    if not small.any():
        return log_tail_of(k, n)
    out = np.empty(k.shape)
    out[small] = _binomial.log_tails_half_small(k[small], n[small], mid=mid)
    out[~small] = log_tail_of(k[~small], n[~small])
    return out


def _float_log_tail(k: float, n: float, mid: bool) -> float:
    """:func:`_log_tail` of one table on Python floats, where it has a cheap route
    (:func:`mcnemar._binomial.log_tail_half_one`: the same value); elsewhere it raises, for the
    array route."""
    return _binomial.log_tail_half_one(k, n, mid)


def _chi_square_parts(
    xp: _routes.Ops, bf: Any, cf: Any, method: str, alternative: str
) -> tuple[Any, Any, Any]:
    """The statistic, the signed z and the x whose log Phi(x) is the (one-sided) log p-value
    of the chi-square test (``"asymptotic"``) or its corrected version (``"corrected"``)."""
    n = bf + cf
    root = xp.sqrt(n)
    diff = bf - cf
    if method == "asymptotic":
        statistic = xp.divide(diff * diff, n)
        z = xp.divide(diff, root)
        z_greater = z_less = z
    else:
        excess = xp.maximum(0.0, xp.abs(diff) - 1.0)
        statistic = xp.divide(excess * excess, n)
        z = xp.divide(xp.sign(diff) * excess, root)
        z_greater = xp.divide(diff - 1.0, root)
        z_less = xp.divide(diff + 1.0, root)
    if alternative == "two-sided":
        x = -xp.sqrt(statistic)
    elif alternative == "greater":
        x = -z_greater
    else:
        x = z_less
    return statistic, z, x


def _log_ndtr_of(
    x: FloatArray,
    bf: FloatArray,
    n: FloatArray,
    method: str,
    alternative: str,
) -> FloatArray:
    """log Phi(x) for the chi-square parts of tables (b, n - b): small tables from
    :func:`_small_log_ndtr`, the others from scipy."""
    small = n <= _binomial.SMALL_N
    out = np.empty(x.shape)
    count = int(np.count_nonzero(small))
    if 0 < count <= _FEW_TABLES:
        # a few tables (a report): log Phi of their x alone, the values the table would hold
        out[small] = [log_ndtr(v) for v in x[small].tolist()]
    elif count:
        table = _small_log_ndtr(method, alternative, _table_size(n[small]))
        out[small] = table[_triangle_index(bf[small], n[small])]
    if not small.all():
        from scipy import special

        out[~small] = special.log_ndtr(x[~small])
    return out


def _float_log_ndtr_of(x: float, bf: float, n: float, method: str, alternative: str
                       ) -> float:
    """:func:`_log_ndtr_of` of one table on Python floats: the value of the small tables
    (:func:`log_ndtr`) up to SMALL_N, scipy's beyond (its kernel, as on the arrays)."""
    if n <= _binomial.SMALL_N:
        return log_ndtr(x)
    return float(_routes.FLOATS.log_ndtr(x))


def _table_size(n: FloatArray) -> int:
    """The smallest of 16, 32, ... (at most SMALL_N) that holds every n (n <= SMALL_N)."""
    top = int(n.max())
    size = 16
    while size < top:
        size *= 2
    return min(size, _binomial.SMALL_N)


def _triangle_index(b: FloatArray, n: FloatArray) -> NDArray[np.intp]:
    """Position of the table (b, n - b) in tables ordered by n, then b: n(n + 1)/2 + b."""
    return (n * (n + 1.0) / 2.0 + b).astype(np.intp)


@functools.lru_cache(maxsize=32)
def _small_log_ndtr(method: str, alternative: str, size: int) -> FloatArray:
    """log Phi(x) of the chi-square test ``method`` for every table with D <= ``size``, in the
    order of :func:`_triangle_index`; x from the same array code as every other table."""
    n = np.repeat(np.arange(size + 1.0), np.arange(1, size + 2))
    b = np.arange(n.size) - n * (n + 1.0) / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        _, _, x = _chi_square_parts(_routes.ARRAYS, b, n - b, method, alternative)
    table = np.array([log_ndtr(v) for v in x.tolist()])
    table.flags.writeable = False
    return table


def log_ndtr(x: float) -> float:
    """log Phi(x), the log of the standard normal CDF, in Python floats (no scipy).

    The formula of ``scipy.special.log_ndtr``: log1p(-erfc(x/sqrt 2)/2) for x >= -1, and for
    x < -1 log(erfc(-x/sqrt 2)/2), where erfc of the C library is accurate to a few ulp until
    it leaves the normal range of a double (-x/sqrt 2 > 26); beyond, log erfcx(u)/2 - u^2 with
    the asymptotic series erfcx(u) = (1 - 1/(2u^2) + 3/(2u^2)^2 - ...)/(u sqrt pi), whose ten
    terms leave an error below 1e-22 there. The tests check it against scipy and mpmath.

    Examples
    --------
    >>> round(log_ndtr(0.0), 15) == round(math.log(0.5), 15)
    True
    >>> round(log_ndtr(-40.0), 6)
    -804.608442
    """
    t = x * _SQRT1_2
    if not x < -1.0:
        return math.log1p(-0.5 * math.erfc(t))
    u = -t
    if u < _ERFC_NORMAL_BELOW:
        return math.log(0.5 * math.erfc(u))
    w = 0.5 / (u * u)
    term = series = 1.0
    for j in range(1, 10):
        term *= -(2 * j - 1) * w
        series += term
    return math.log(0.5 * series / (u * _SQRT_PI)) - u * u


@functools.lru_cache(maxsize=64)
def normal_isf(alpha: float) -> float:
    """The z with P(Z > z) = alpha, Z standard normal, for 1e-300 <= alpha <= 1/2 (no scipy);
    kept per alpha (reports ask for the same few levels again and again).

    Newton's method from Abramowitz & Stegun's 26.2.23 (error below 5e-4): on
    erf(z/sqrt 2) = 1 - 2 alpha (exact for alpha >= 1/4) near the centre, so that a small z
    keeps its relative precision, and on log(erfc(z/sqrt 2)/2) = log alpha in the tail. The
    result agrees with ``-scipy.special.ndtri(alpha)`` to a few ulp (the tests check).

    Examples
    --------
    >>> round(normal_isf(0.025), 10)
    1.9599639845
    """
    if not 1e-300 <= alpha <= 0.5:
        raise ValueError(f"normal_isf needs 1e-300 <= alpha <= 1/2, got {alpha!r}")
    s = math.sqrt(-2.0 * math.log(alpha))
    z = s - (2.515517 + s * (0.802853 + s * 0.010328)) / (
        1.0 + s * (1.432788 + s * (0.189269 + s * 0.001308)))
    central = alpha > 0.25
    target = 1.0 - 2.0 * alpha if central else math.log(alpha)
    for _ in range(8):
        density = math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
        if central:
            step = (math.erf(z * _SQRT1_2) - target) / (2.0 * density)
        else:
            tail = 0.5 * math.erfc(z * _SQRT1_2)
            step = (math.log(tail) - target) * tail / -density
        z -= step
        if abs(step) <= 1e-16 * abs(z):
            break
    return z


def mcnemar(
    table: Any,
    *,
    method: str = "exact",
    alternative: str = "two-sided",
    correction: bool = False,
) -> McNemarResult:
    """McNemar's test that two systems scored on the same items are equally accurate.

    Parameters
    ----------
    table : PairedTable or array_like
        The paired table(s): a :class:`PairedTable` (cells may be arrays) or a 2x2 array
        ``[[a, b], [c, d]]`` with rows A right / A wrong and columns B right / B wrong, or a
        stack of them with shape (..., 2, 2).
    method : {"exact", "midp", "asymptotic", "corrected", "unconditional"}
        ``"exact"``: exact conditional binomial test (default; trust it below 25 discordant
        items); ``"midp"``: mid-p test (less conservative, recommended by Fagerland et al.
        2013); ``"asymptotic"``: chi-square; ``"corrected"``: chi-square with Edwards'
        continuity correction (same as ``method="asymptotic", correction=True``);
        ``"unconditional"``: exact unconditional test (Suissa & Shuster 1991, Berger-Boos
        gamma = 1e-4; needs a and d; see :mod:`mcnemar.unconditional`), computed table by
        table.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: A is more accurate than B (b > c); ``"less"``: A is less accurate.
    correction : bool
        Continuity correction; only with ``method="asymptotic"``.

    Returns
    -------
    McNemarResult
        ``statistic``, ``pvalue``, ``log10_pvalue`` (arrays for arrays of tables) and
        ``confidence_interval(confidence_level, method)`` for (b - c)/N.

    Notes
    -----
    Only the discordant counts matter: the p-value does not depend on a or d. With
    X ~ Bin(D, 1/2), D = b + c, the exact two-sided p is min(1, 2 P(X <= min(b, c))), and
    D = 0 gives p = 1.

    References
    ----------
    Q. McNemar (1947), Psychometrika 12:153-157; A. L. Edwards (1948), Psychometrika
    13:185-187; M. W. Fagerland, S. Lydersen & P. Laake (2013), BMC Med Res Methodol 13:91.

    Examples
    --------
    Errors framing of a tutorial: A alone wrong on 12 items, B alone wrong on 3:

    >>> r = mcnemar(PairedTable.from_errors(only_a_wrong=12, only_b_wrong=3))
    >>> r.pvalue
    0.03515625
    >>> round(mcnemar([[157, 17], [3, 23]], method="asymptotic").statistic, 2)
    9.8
    >>> round(mcnemar(PairedTable(b=0, c=5000)).log10_pvalue, 4)
    -1504.8489
    """
    t = as_table(table)
    key = _check_method(method, correction)
    alt = check_alternative(alternative)
    a, b, c, d = t.arrays()
    if key == "unconditional":
        statistic, pvalue, log10p, zscore = _unconditional(a, b, c, d, alt)
    else:
        statistic, pvalue, log10p, zscore = pvalues(b, c, key, alt)
    return McNemarResult(
        statistic=_out(statistic),
        pvalue=_out(pvalue),
        log10_pvalue=_out(log10p),
        zscore=_out(zscore),
        method=key,
        alternative=alt,
        table=t,
    )


def _unconditional(
    a: NDArray[np.int64] | None,
    b: NDArray[np.int64],
    c: NDArray[np.int64],
    d: NDArray[np.int64] | None,
    alternative: str,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    from mcnemar.unconditional import unconditional_pvalue

    if a is None or d is None:
        raise McNemarError(
            "the unconditional test needs N: give a (both right) and d (both wrong) as well as "
            "b and c"
        )
    statistic, _, _, zscore = pvalues(b, c, "asymptotic", alternative)
    n = a + b + c + d
    # Each table maximises over its own nuisance parameter: one solve per table.
    flat = [
        unconditional_pvalue(int(x), int(y), int(m), alternative=alternative)
        for x, y, m in zip(b.ravel(), c.ravel(), n.ravel(), strict=True)
    ]
    pvalue = np.array(flat, dtype=np.float64).reshape(b.shape)
    with np.errstate(divide="ignore"):
        log10p = np.log10(pvalue)
    return statistic, pvalue, log10p, zscore


class _TestOps(_routes.Ops):
    """The routes of :mod:`mcnemar._routes` with the tests' tails: ``log_tail(k, n, mid)``
    (:func:`_log_tail`) and ``log_phi(x, b, n, method, alternative)``
    (:func:`_log_ndtr_of`); on floats, of one table whose tails have a cheap route (where
    they have none the float route raises, and :func:`mcnemar._routes.by_table` takes the
    array route)."""

    log_tail: Callable[..., Any]
    log_phi: Callable[..., Any]

    __slots__ = ("log_phi", "log_tail")


_TEST_ARRAYS = _TestOps(**_routes.operations(_routes.ARRAYS), log_tail=_log_tail,
                        log_phi=_log_ndtr_of)
_TEST_FLOATS = _TestOps(**_routes.operations(_routes.FLOATS), log_tail=_float_log_tail,
                        log_phi=_float_log_ndtr_of)


def unpaired_ztest(
    a: ArrayLike, b: ArrayLike, c: ArrayLike, d: ArrayLike, *, alternative: str = "two-sided"
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The wrong comparison: a pooled two-proportion z-test treating A and B as independent.

    Compares accuracy(A) = (a + b)/N with accuracy(B) = (a + c)/N as if they came from two
    independent samples of N items each, ignoring the pairing. Shown in reports as the pitfall
    that the paired test avoids.

    Parameters
    ----------
    a, b, c, d : array_like
        The cells of the paired table(s).
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: A is more accurate, p = P(Z >= z); ``"less"``: p = P(Z <= z);
        two-sided: p = 2 P(Z >= |z|), capped at 1.

    Returns
    -------
    z, pvalue : ndarray
        z = 0 (so p = 1 two-sided, 1/2 one-sided) when both accuracies are 0 or 1.

    Examples
    --------
    >>> z, p = unpaired_ztest(157, 17, 3, 23)
    >>> round(float(z), 3), round(float(p), 4)
    (1.886, 0.0593)
    >>> round(float(unpaired_ztest(157, 17, 3, 23, alternative="greater")[1]), 4)
    0.0297
    """
    alternative = check_alternative(alternative)
    af, bf, cf, df = (np.asarray(x, dtype=np.float64) for x in (a, b, c, d))
    with np.errstate(divide="ignore", invalid="ignore"):
        z, p = unpaired_formula(_routes.ARRAYS, af, bf, cf, df, alternative=alternative)
    return np.asarray(z, dtype=np.float64), np.asarray(p, dtype=np.float64)


def unpaired_formula(xp: _routes.Ops, af: Any, bf: Any, cf: Any, df: Any, *,
                     alternative: str) -> tuple[Any, Any]:
    """(z, p) of :func:`unpaired_ztest` for one table (floats) or many (arrays), cells as
    floats and a checked alternative."""
    n = af + bf + cf + df
    # p1 - p2 = (b - c)/N and the pooled accuracy and its complement straight from the cells:
    # subtracting two accuracies near 1/2 (or 1 - pooled) would cancel the digits of a tiny
    # difference on a huge test set.
    pooled = xp.divide(2.0 * af + bf + cf, 2.0 * n)
    complement = xp.divide(bf + cf + 2.0 * df, 2.0 * n)
    se = xp.sqrt(xp.divide(pooled * complement * 2.0, n))
    z = xp.where(se > 0, xp.divide(xp.divide(bf - cf, n), se), 0.0)
    if alternative == "greater":
        p = xp.ndtr(-z)
    elif alternative == "less":
        p = xp.ndtr(z)
    else:
        p = xp.minimum(1.0, 2.0 * xp.ndtr(-xp.abs(z)))
    return z, p


def unpaired_log10_formula(xp: _routes.Ops, z: Any, alternative: str) -> Any:
    """log10 of the unpaired test's p-value from log Phi (finite where the p-value underflows),
    on either route: the same tails as :func:`unpaired_formula`, P(Z >= z), P(Z <= z) or
    min(1, 2 P(Z >= |z|))."""
    if alternative == "greater":
        return xp.log_ndtr(-z) / _LN10
    if alternative == "less":
        return xp.log_ndtr(z) / _LN10
    return xp.minimum(0.0, _LOG10_2 + xp.log_ndtr(-xp.abs(z)) / _LN10)


def null_distribution(b: int, c: int, *, points: int = 241, full_up_to: int = 200
                      ) -> dict[str, Any]:
    """The null distribution of b given D = b + c, X ~ Bin(D, 1/2), on a window fit to draw.

    The exact test refers b to this distribution; a picture of it shows where the observed
    split falls. Up to ``full_up_to`` discordant items every value is given; beyond, the window
    is the centre D/2 +- 6 standard deviations (sqrt(D)/2), widened to reach the observed
    split when it lies within 15 standard deviations, sampled at about ``points`` values.
    Probabilities come from the exact kernel (relative error ~1e-14 for any D); those below
    the double range are 0.

    Returns
    -------
    dict
        ``discordant`` (D), ``observed`` (b), ``step`` (spacing of the values), ``k`` (the
        values) and ``pmf`` (Pr(X = k)), JSON-safe.

    Examples
    --------
    >>> d = null_distribution(3, 1)
    >>> d["k"], [round(p * 16) for p in d["pmf"]]
    ([0, 1, 2, 3, 4], [1, 4, 6, 4, 1])
    """
    b, c = check_count(b, "b"), check_count(c, "c")
    n = b + c
    if n <= full_up_to:
        lo, hi, step = 0, n, 1
    else:
        sd = math.sqrt(n) / 2
        half = 6 * sd
        offset = abs(b - n / 2)
        if offset <= 15 * sd:
            half = max(half, offset + sd)
        lo = max(0, math.floor(n / 2 - half))
        hi = min(n, math.ceil(n / 2 + half))
        step = max(1, math.ceil((hi - lo + 1) / points))
    k = np.arange(lo, hi + 1, step, dtype=np.int64)
    pmf = np.asarray(_binomial.pmf_half(k, n), dtype=float)
    return {
        "discordant": n,
        "observed": b,
        "step": step,
        "k": [int(x) for x in k],
        "pmf": [float(p) if math.isfinite(p) else 0.0 for p in pmf],
    }
