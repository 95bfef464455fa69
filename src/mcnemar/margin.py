r"""Non-inferiority and equivalence of two systems' accuracies, with a margin.

A non-significant McNemar test does not show that a candidate is "no worse" than a baseline;
a test against a margin does. With :math:`\delta` = accuracy(A) - accuracy(B) = (b - c)/N and a
margin :math:`\Delta > 0` (a proportion: 0.01 is one accuracy point):

:func:`noninferiority`
    H0: :math:`\delta \le -\Delta` (A is worse by the margin or more) against
    H1: :math:`\delta > -\Delta` (A is not worse than B by :math:`\Delta` or more).
:func:`equivalence`
    H0: :math:`|\delta| \ge \Delta` against H1: :math:`|\delta| < \Delta`, by two one-sided
    tests (the p-value is the larger of the two).

Two methods. ``"score"`` is Tango's (1998) score test: with :math:`\delta_0 = -\Delta`,

.. math:: Z(\delta_0) = \frac{b - c - N\delta_0}{\sqrt{N(2\tilde p + \delta_0(1 - \delta_0))}},
          \qquad \tilde p = \frac{\sqrt{B^2 - 4AC} - B}{2A},

:math:`A = 2N`, :math:`B = -b - c + (2N - b + c)\delta_0`, :math:`C = -c\,\delta_0(1-\delta_0)`
(:math:`\tilde p` is the maximum likelihood estimate of P(A wrong, B right) restricted to
:math:`\delta = \delta_0`), and p = 1 - :math:`\Phi(Z(-\Delta))`. The statistic is the one of the
Tango interval (:func:`mcnemar.intervals.difference_interval`, ``method="tango"``), so the test
rejects at level :math:`\alpha` exactly when the Tango interval at level :math:`1 - 2\alpha`
lies above :math:`-\Delta`.

``"unconditional"`` is the exact unconditional version (Sidik 2003; Chan et al. 2003): tables
are ordered by the same :math:`Z(-\Delta)`, and the p-value is the largest probability of the
tables at least as extreme as the observed one over the nuisance parameter on the boundary
:math:`\delta = -\Delta`. There the cell probabilities are
:math:`(p_{10}, p_{01}) = ((\psi - \Delta)/2, (\psi + \Delta)/2)` with the discordance
:math:`\psi \in [\Delta, 1]`, and the tables are trinomial over (b, c, a + d). As in
:mod:`mcnemar.unconditional` the maximum is taken over a 1 - gamma Clopper-Pearson interval
for :math:`\psi` (Berger & Boos 1994) and gamma is added. For a fixed number m = b + c of
discordant items :math:`Z` increases with b, so the tail is
:math:`\sum_m \mathrm{Bin}(m; N, \psi)\, P\{\mathrm{Bin}(m, \theta) \ge t(m)\}` with
:math:`\theta = (\psi - \Delta)/(2\psi)` and :math:`t(m)` the smallest b of an extreme table
(the tests check this against a direct enumeration of every table).

Planning (power and sample size for a margin) is in :mod:`mcnemar.margin_planning`.

References
----------
Tango T (1998). Equivalence test and confidence interval for the difference in proportions for
the paired-sample design. Statistics in Medicine 17:891-908.
Sidik K (2003). Exact unconditional tests for testing non-inferiority in matched-pairs design.
Statistics in Medicine 22:265-278.
Chan ISF, Tang N-S, Tang M-L, Chan P-S (2003). Statistical analysis of noninferiority trials
with a rate ratio in small-sample matched-pair designs. Biometrics 59:1170-1177.
Berger RL, Boos DD (1994). P values maximised over a confidence set for the nuisance
parameter. JASA 89:1012-1016.
Schuirmann DJ (1987). A comparison of the two one-sided tests procedure and the power
approach for assessing the equivalence of average bioavailability. J Pharmacokinet Biopharm
15:657-680.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray
from scipy import special

from mcnemar import vocabulary
from mcnemar._format import json_fields
from mcnemar.errors import McNemarError, option
from mcnemar.inference import as_table, format_pvalue
from mcnemar.intervals import ConfidenceInterval, _tango_statistic, difference_interval

# The submodule, not the package: mcnemar.planning delegates to mcnemar.planning._margin, which
# imports this module.
from mcnemar.planning._kernel import _binom_sf
from mcnemar.table import PairedTable

__all__ = [
    "METHODS",
    "EquivalenceResult",
    "NonInferiorityResult",
    "boundary_tail",
    "describe_margin",
    "equivalence",
    "margin_dict",
    "margin_lines",
    "margin_sentences",
    "noninferiority",
    "score_statistic",
]

FloatArray = NDArray[np.float64]

#: Methods of :func:`noninferiority` and :func:`equivalence`.
METHODS = vocabulary.names(vocabulary.MARGIN_METHODS)
_NAMES = {t.name: t.label for t in vocabulary.MARGIN_METHODS}
#: Largest N for the exact unconditional test (its cost grows as N x grid per table).
MAX_ITEMS_UNCONDITIONAL = 5_000
#: Berger-Boos: the nuisance parameter is restricted to a 1 - GAMMA interval, GAMMA added.
GAMMA = 1e-4
# The tail is smooth in the nuisance parameter; 200 grid points and a golden-section
# refinement locate its maximum (checked against a 20,000-point grid in the tests).
_GRID = 200


# ---------------------------------------------------------------------------------------------
# validation


def _check_margin(margin: Any) -> float:
    if isinstance(margin, bool) or not isinstance(margin, int | float | np.integer | np.floating):
        raise McNemarError(
            f"{option('margin')} must be a number strictly between 0 and 1, a proportion (0.01 "
            f"= 1 accuracy point); got {margin!r}", argument="margin"
        )
    value = float(margin)
    if not 0.0 < value < 1.0:
        points = f"{value:g} point{'' if value == 1 else 's'}"
        hint = (f" (a proportion: write {value / 100:g} for {points}, not {value:g})"
                if value >= 1.0 else "")
        raise McNemarError(f"{option('margin')} must be strictly between 0 and 1{hint}; got "
                           f"{value:g}", argument="margin")
    return value


def _check_alpha(alpha: Any) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, int | float | np.integer | np.floating):
        raise McNemarError(f"{option('alpha')} must be a number strictly between 0 and 0.5; "
                           f"got {alpha!r}", argument="alpha")
    value = float(alpha)
    if not 0.0 < value < 0.5:
        raise McNemarError(
            f"{option('alpha')} must be strictly between 0 and 0.5 (the one-sided level; the "
            f"matching interval has level 1 - 2 alpha); got {value:g}", argument="alpha"
        )
    return value


def _check_method(method: Any) -> str:
    if not isinstance(method, str) or method not in METHODS:
        valid = ", ".join(repr(m) for m in METHODS)
        raise McNemarError(f"method must be one of {valid}; got {method!r}")
    return method


def _checked(
    table: Any, margin: Any, method: Any, alpha: Any
) -> tuple[dict[str, Any], tuple[FloatArray, FloatArray, FloatArray], tuple[int, ...]]:
    """The checked inputs as fields of a result; b, c and N flattened; the tables' shape."""
    inputs = {
        "margin": _check_margin(margin),
        "alpha": _check_alpha(alpha),
        "method": _check_method(method),
    }
    t, b, c, n = _cells(table)
    inputs["table"] = t
    return inputs, (b.ravel(), c.ravel(), n.ravel()), b.shape


def _cells(table: Any) -> tuple[PairedTable, FloatArray, FloatArray, FloatArray]:
    """The table, and b, c, N as float arrays; N is required (the margin is in accuracy)."""
    t = as_table(table)
    a, b, c, d = t.arrays_with_n("a margin is a difference in accuracy, (b - c)/N, which needs N")
    bf, cf = b.astype(np.float64), c.astype(np.float64)
    return t, bf, cf, bf + cf + (a + d).astype(np.float64)


# ---------------------------------------------------------------------------------------------
# the score statistic and the exact unconditional tail


def score_statistic(b: Any, c: Any, n: Any, delta0: Any) -> Any:
    r"""Tango's score statistic :math:`Z(\delta_0)` for H0: (b - c)/N = :math:`\delta_0`.

    Large values favour :math:`\delta > \delta_0`. Vectorized; NaN where N = 0.

    Examples
    --------
    At :math:`\delta_0 = 0` it is McNemar's z, (b - c)/sqrt(b + c):

    >>> round(float(score_statistic(17, 3, 200, 0.0)), 6), round(14 / 20**0.5, 6)
    (3.130495, 3.130495)
    """
    arrays = np.broadcast_arrays(*(np.asarray(x, dtype=np.float64) for x in (b, c, n, delta0)))
    bb, cc, nn, dd = (np.ascontiguousarray(x).ravel() for x in arrays)
    z = _tango_statistic(dd, bb, cc, nn).reshape(arrays[0].shape)
    return float(z) if z.ndim == 0 else z


def _thresholds(m: FloatArray, n: float, margin: float, cut: float) -> FloatArray:
    """t(m): the smallest b with Z(-margin) >= cut among tables with b + c = m (m + 1 if none).

    Z increases with b for fixed m, so a vectorized bisection over b finds every t(m) at once.
    """
    lo = np.full(m.shape, -1.0)  # Z(lo) < cut (or lo below the range)
    hi = m + 1.0  # Z(hi) >= cut (or hi above the range)
    delta0 = np.full(m.shape, -margin)
    nn = np.full(m.shape, n)
    while True:
        active = hi - lo > 1.0
        if not active.any():
            return hi
        mid = np.floor((lo + hi) / 2.0)
        z = _tango_statistic(delta0, mid, m - mid, nn)
        ok = z >= cut
        hi = np.where(active & ok, mid, hi)
        lo = np.where(active & ~ok, mid, lo)


def _cut(z_obs: float) -> float:
    # Tables whose statistic equals the observed one count as at least as extreme; the slack
    # keeps them despite rounding in the square roots.
    return z_obs - 1e-10 * (1.0 + abs(z_obs))


def _tail_function(b: int, c: int, n: int, margin: float) -> Any:
    """psi -> P(tables at least as extreme as (b, c)), on the boundary delta = -margin."""
    from mcnemar.unconditional import _binom_pmf_matrix

    z_obs = float(_tango_statistic(np.array([-margin]), np.array([float(b)]),
                                   np.array([float(c)]), np.array([float(n)]))[0])
    m = np.arange(0, n + 1, dtype=np.float64)
    t = _thresholds(m, float(n), margin, _cut(z_obs))

    def tail(psi: FloatArray) -> FloatArray:
        psi = np.asarray(psi, dtype=np.float64)
        weights = np.empty((psi.size, n + 1))
        with np.errstate(divide="ignore"):
            weights[:, 0] = np.exp(n * np.log1p(-psi))
        weights[:, 1:] = _binom_pmf_matrix(n, psi)
        with np.errstate(divide="ignore", invalid="ignore"):
            theta = np.where(psi > 0, (psi - margin) / (2.0 * psi), 0.0)
        theta = np.clip(theta, 0.0, 1.0)
        sf = _binom_sf(t[None, :], m[None, :], theta[:, None])
        out: FloatArray = np.minimum(1.0, np.sum(weights * sf, axis=1))
        return out

    return tail


def boundary_tail(b: int, c: int, n: int, margin: float, psi: Any) -> FloatArray:
    r"""Probability of the tables at least as extreme as (b, c) on the boundary
    :math:`\delta = -\Delta`, for each discordance :math:`\psi \ge \Delta` (the function the
    exact unconditional p-value maximises).

    Examples
    --------
    >>> boundary_tail(9, 1, 20, 0.1, [0.1, 0.5, 0.9]).round(6)
    array([0.      , 0.000731, 0.000919])
    """
    margin = _check_margin(margin)
    return np.asarray(_tail_function(int(b), int(c), int(n), margin)(np.atleast_1d(psi)))


def _unconditional_pvalue(b: int, c: int, n: int, margin: float, gamma: float) -> float:
    from mcnemar.unconditional import _maximise, _nuisance_interval

    if n > MAX_ITEMS_UNCONDITIONAL:
        raise McNemarError(
            f"the exact unconditional test with a margin is limited to N <= "
            f"{MAX_ITEMS_UNCONDITIONAL:,} items (got {n:,}); at this size the score test agrees "
            "closely: use method='score' (--margin-method score)"
        )
    low, high = _nuisance_interval(b + c, n, gamma)
    low = max(low, margin)
    if high < low:
        # No discordance in the Berger-Boos set is compatible with the null (|delta| <= psi):
        # the supremum over an empty set is 0.
        return gamma
    top = _maximise(_tail_function(b, c, n, margin), low, high, grid=_GRID)
    return min(1.0, top + gamma)


def _lower_test(
    b: FloatArray, c: FloatArray, n: FloatArray, margin: float, method: str
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(Z(-margin), p, log10 p) of H0: delta <= -margin, for flat arrays of tables."""
    z = _tango_statistic(np.full(b.shape, -margin), b, c, n)
    if method == "score":
        # log Phi stays finite far into the tail, where p underflows a double.
        log10p = np.where(n == 0, 0.0, special.log_ndtr(-z) / math.log(10.0))
        p = np.where(n == 0, 1.0, np.exp(log10p * math.log(10.0)))
        return np.where(n == 0, np.nan, z), p, log10p
    else:
        # One maximisation per distinct table.
        keys = np.stack([b, c, n], axis=1)
        unique, inverse = np.unique(keys, axis=0, return_inverse=True)
        values = np.array(
            [
                _unconditional_pvalue(int(x), int(y), int(m), margin, GAMMA) if m > 0 else 1.0
                for x, y, m in unique
            ],
            dtype=np.float64,
        )
        p = values[np.ravel(inverse)]
    p = np.asarray(np.where(n == 0, 1.0, p), dtype=np.float64)
    return np.where(n == 0, np.nan, z), p, np.log10(p)


def _tango_interval(table: PairedTable, level: float) -> ConfidenceInterval[Any]:
    a, b, c, d = table.arrays()
    if a is None or d is None:  # excluded when the result was made
        raise McNemarError("the interval for the difference needs a and d")
    if table.shape:
        return difference_interval(a, b, c, d, confidence_level=level, method="tango")
    return difference_interval(int(a), int(b), int(c), int(d), confidence_level=level,
                               method="tango")


def _out(x: FloatArray, shape: tuple[int, ...]) -> Any:
    return float(x[0]) if shape == () else x.reshape(shape)


def _pct(x: float) -> str:
    return f"{100.0 * x:.4g}"


def _ptext(p: Any, log10p: Any) -> str:
    return format_pvalue(float(p), float(log10p))


# ---------------------------------------------------------------------------------------------
# results


@dataclass(frozen=True, slots=True, kw_only=True)
class _MarginResult(ABC):
    """What the two results share: the fields of :class:`NonInferiorityResult` (which adds
    none), Tango's interval at level 1 - 2 alpha, the JSON fields around each result's own
    ones and the frame of the summary line."""

    statistic: Any
    pvalue: Any
    log10_pvalue: Any
    margin: float
    method: str
    alpha: float
    table: PairedTable
    #: The null hypothesis in the JSON, the word for a table where it is rejected, and the
    #: verdict of one table ({pct}: the margin in points, {points}: in words).
    _HYPOTHESIS: ClassVar[str]
    _SHOWN: ClassVar[str]
    _SHOWN_WORDS: ClassVar[str]
    _NOT_SHOWN_WORDS: ClassVar[str]
    #: The result's own fields in the JSON, between the p-values and the interval.
    _OWN_FIELDS: ClassVar[tuple[str, ...]]
    #: The start of the summary line ({name}: the test, {margin}: the margin in words).
    _HEAD: ClassVar[str]

    @property
    def name(self) -> str:
        """Human name of the test (of each one-sided test, for equivalence)."""
        return _NAMES[self.method]

    @property
    def confidence_level(self) -> float:
        """1 - 2 alpha, the level of the interval that matches the one-sided test(s)."""
        return 1.0 - 2.0 * self.alpha

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval[Any]:
        """Tango's score interval for the difference, at level 1 - 2 alpha by default.

        For ``method="score"`` non-inferiority is shown exactly when its lower limit lies
        above ``-margin``, and equivalence exactly when it lies inside ``(-margin, margin)``.
        For ``"unconditional"`` it is the interval of the same statistic (asymptotic), given
        for reference.
        """
        level = self.confidence_level if confidence_level is None else confidence_level
        return _tango_interval(self.table, level)

    def _rejected(self) -> Any:
        """``pvalue < alpha`` (bool, or an array of them)."""
        out = np.asarray(self.pvalue) < self.alpha
        return bool(out) if out.ndim == 0 else out

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe summary (NaN becomes null)."""
        return {
            **json_fields(self, "method", "name"),
            "hypothesis": self._HYPOTHESIS,
            **json_fields(self, "margin", "alpha", "statistic", "pvalue", "log10_pvalue"),
            **json_fields(self, *self._OWN_FIELDS),
            "confidence_interval": {
                **self.confidence_interval().to_dict(),
                "confidence_level": self.confidence_level,
                "method": "tango",
            },
        }

    def _head(self) -> str:
        return self._HEAD.format(name=self.name, margin=describe_margin(self.margin))

    @abstractmethod
    def _summary(self, ci: ConfidenceInterval[Any]) -> str:
        """The summary line after the head: the p-value(s), the verdict and ``ci``."""

    def _verdict(self) -> str:
        words = self._SHOWN_WORDS if self._rejected() else self._NOT_SHOWN_WORDS
        verdict = words.format(pct=_pct(self.margin), points=describe_margin(self.margin))
        return f"{verdict} at alpha = {self.alpha:g}"

    def _interval_words(self, ci: ConfidenceInterval[Any]) -> str:
        return (
            f"{self.confidence_level:.0%} Tango interval [{100 * float(ci.low):+.4g}, "
            f"{100 * float(ci.high):+.4g}] points"
        )

    def __str__(self) -> str:
        head = self._head()
        if self.table.shape:
            shown = int(np.sum(self._rejected()))
            return (
                f"{head}, alpha = {self.alpha:g}: {shown} of {np.size(self.pvalue)} tables "
                f"{self._SHOWN}; see .pvalue"
            )
        if not np.isfinite(float(self.statistic)):
            return f"{head}: no items, nothing to test (p = 1)"
        return f"{head}: {self._summary(self.confidence_interval())}"


@dataclass(frozen=True, slots=True, kw_only=True)
class NonInferiorityResult(_MarginResult):
    r"""Result of :func:`noninferiority`.

    Attributes
    ----------
    statistic : float or ndarray
        Tango's :math:`Z(-\Delta)` (NaN when N = 0); large values favour non-inferiority.
    pvalue : float or ndarray
        One-sided p-value of H0: :math:`\delta \le -\Delta` (1 when N = 0).
    log10_pvalue : float or ndarray
        Its log10, finite where the p-value underflows a double (score method).
    margin : float
        :math:`\Delta`, a proportion (0.01 = 1 accuracy point).
    method : {"score", "unconditional"}
    alpha : float
        One-sided significance level; the matching interval has level 1 - 2 alpha.
    table : PairedTable
    """

    _HYPOTHESIS: ClassVar[str] = "H0: accuracy(A) - accuracy(B) <= -margin"
    _SHOWN: ClassVar[str] = "non-inferior"
    _SHOWN_WORDS: ClassVar[str] = "non-inferior by the {pct}-point margin"
    _NOT_SHOWN_WORDS: ClassVar[str] = "non-inferiority not shown"
    _OWN_FIELDS: ClassVar[tuple[str, ...]] = ("noninferior", "difference")
    _HEAD: ClassVar[str] = "Non-inferiority, {name}, margin {margin}"

    @property
    def noninferior(self) -> Any:
        """``pvalue < alpha``: non-inferiority shown (bool, or an array of them)."""
        return self._rejected()

    @property
    def difference(self) -> Any:
        """accuracy(A) - accuracy(B) = (b - c)/N (NaN when N = 0)."""
        _, b, c, n = _cells(self.table)
        with np.errstate(divide="ignore", invalid="ignore"):
            d = (b - c) / n
        return float(d) if d.ndim == 0 else d

    def _summary(self, ci: ConfidenceInterval[Any]) -> str:
        return (
            f"Z = {float(self.statistic):.4f}, one-sided p = "
            f"{_ptext(self.pvalue, self.log10_pvalue)} ({self._verdict()}); "
            f"difference {100 * float(self.difference):+.4g} points, {self._interval_words(ci)}"
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class EquivalenceResult(_MarginResult):
    r"""Result of :func:`equivalence` (two one-sided tests).

    Attributes
    ----------
    statistic : float or ndarray
        The statistic of the one-sided test with the larger p-value, oriented so that large
        values favour equivalence: :math:`\min(Z(-\Delta), -Z(\Delta))`.
    pvalue : float or ndarray
        The larger of the two one-sided p-values.
    pvalue_lower, pvalue_upper : float or ndarray
        H0: :math:`\delta \le -\Delta` and H0: :math:`\delta \ge \Delta`.
    log10_pvalue, log10_pvalue_lower, log10_pvalue_upper : float or ndarray
        Their log10 (finite where a p-value underflows).
    statistic_lower, statistic_upper : float or ndarray
        :math:`Z(-\Delta)` and :math:`Z(\Delta)`.
    margin, method, alpha, table
        As in :class:`NonInferiorityResult`.
    """

    _HYPOTHESIS: ClassVar[str] = "H0: |accuracy(A) - accuracy(B)| >= margin"
    _SHOWN: ClassVar[str] = "equivalent"
    _SHOWN_WORDS: ClassVar[str] = "equivalent within {points}"
    _NOT_SHOWN_WORDS: ClassVar[str] = "equivalence not shown"
    _OWN_FIELDS: ClassVar[tuple[str, ...]] = ("pvalue_lower", "pvalue_upper", "equivalent")
    _HEAD: ClassVar[str] = "Equivalence, two one-sided {name}s, margin {margin}"

    pvalue_lower: Any
    pvalue_upper: Any
    log10_pvalue_lower: Any
    log10_pvalue_upper: Any
    statistic_lower: Any
    statistic_upper: Any

    @property
    def equivalent(self) -> Any:
        """``pvalue < alpha``: equivalence within the margin shown."""
        return self._rejected()

    def _summary(self, ci: ConfidenceInterval[Any]) -> str:
        return (
            f"p = {_ptext(self.pvalue, self.log10_pvalue)} (lower "
            f"{_ptext(self.pvalue_lower, self.log10_pvalue_lower)}, upper "
            f"{_ptext(self.pvalue_upper, self.log10_pvalue_upper)}; {self._verdict()}); "
            f"{self._interval_words(ci)}"
        )


# ---------------------------------------------------------------------------------------------
# public tests


def noninferiority(
    table: Any, margin: float, *, method: str = "score", alpha: float = 0.05
) -> NonInferiorityResult:
    r"""Test that A is not worse than B by the margin or more (non-inferiority).

    H0: :math:`\delta \le -\Delta` against H1: :math:`\delta > -\Delta`, with
    :math:`\delta` = accuracy(A) - accuracy(B) = (b - c)/N and :math:`\Delta` = ``margin``.
    The score test's p-value is :math:`1 - \Phi(Z(-\Delta))` with Tango's statistic (see the
    module docstring); it rejects at ``alpha`` exactly when Tango's interval at level
    1 - 2 ``alpha`` lies above :math:`-\Delta`.

    Parameters
    ----------
    table : PairedTable or array_like
        Paired table(s) with all four cells (``[[a, b], [c, d]]`` or a stack of them).
    margin : float
        :math:`\Delta`, strictly between 0 and 1 (0.01 = 1 accuracy point).
    method : {"score", "unconditional"}
        Tango's score test (default; vectorized) or its exact unconditional version
        (Berger-Boos gamma = 1e-4, N <= 5,000; one maximisation per distinct table).
    alpha : float, default 0.05
        One-sided level, in (0, 0.5).

    Returns
    -------
    NonInferiorityResult
        ``statistic``, ``pvalue``, ``noninferior``, ``confidence_interval()``.

    Raises
    ------
    McNemarError
        Invalid margin, alpha or method, or a table without a and d.

    References
    ----------
    Tango (1998), Stat Med 17:891-908; Sidik (2003), Stat Med 22:265-278.

    Examples
    --------
    A distilled model (A) against the original (B) on 2,000 items:

    >>> r = noninferiority([[1800, 52], [47, 101]], 0.01)
    >>> round(r.statistic, 4), round(r.pvalue, 4), r.noninferior
    (2.4587, 0.007, True)
    >>> print(r.confidence_interval())
    [-0.0058, 0.0108]
    """
    inputs, (b, c, n), shape = _checked(table, margin, method, alpha)
    z, p, log10p = _lower_test(b, c, n, inputs["margin"], inputs["method"])
    return NonInferiorityResult(
        statistic=_out(z, shape), pvalue=_out(p, shape), log10_pvalue=_out(log10p, shape),
        **inputs,
    )


def equivalence(
    table: Any, margin: float, *, method: str = "score", alpha: float = 0.05
) -> EquivalenceResult:
    r"""Test that the accuracies differ by less than the margin (two one-sided tests).

    H0: :math:`|\delta| \ge \Delta` against H1: :math:`|\delta| < \Delta`. The lower test is
    :func:`noninferiority` of A against B; the upper one (H0: :math:`\delta \ge \Delta`) is the
    same test of B against A (b and c swapped), whose score statistic is :math:`-Z(\Delta)`.
    The p-value is the larger of the two (Schuirmann 1987), and for the score method the test
    rejects at ``alpha`` exactly when Tango's interval at level 1 - 2 ``alpha`` lies inside
    :math:`(-\Delta, \Delta)`.

    Parameters
    ----------
    table, margin, method, alpha
        As in :func:`noninferiority`.

    Returns
    -------
    EquivalenceResult

    Examples
    --------
    >>> r = equivalence([[1800, 52], [47, 101]], 0.01)
    >>> round(r.pvalue_lower, 4), round(r.pvalue_upper, 4), r.equivalent
    (0.007, 0.0684, False)
    """
    inputs, (b, c, n), shape = _checked(table, margin, method, alpha)
    z_lo, p_lo, lp_lo = _lower_test(b, c, n, inputs["margin"], inputs["method"])
    # The upper test is the lower one of B against A.
    z_swap, p_hi, lp_hi = _lower_test(c, b, n, inputs["margin"], inputs["method"])
    z_hi = -z_swap
    p = np.maximum(p_lo, p_hi)
    stat = np.minimum(z_lo, -z_hi)
    return EquivalenceResult(
        statistic=_out(stat, shape),
        pvalue=_out(p, shape),
        log10_pvalue=_out(np.maximum(lp_lo, lp_hi), shape),
        pvalue_lower=_out(p_lo, shape),
        pvalue_upper=_out(p_hi, shape),
        log10_pvalue_lower=_out(lp_lo, shape),
        log10_pvalue_upper=_out(lp_hi, shape),
        statistic_lower=_out(z_lo, shape),
        statistic_upper=_out(z_hi, shape),
        **inputs,
    )


def describe_margin(margin: float) -> str:
    """The margin in words, e.g. '1 point' or '0.5 points'.

    Examples
    --------
    >>> describe_margin(0.01), describe_margin(0.005)
    ('1 point', '0.5 points')
    """
    value = 100.0 * margin
    text = f"{value:.4g}"
    return f"{text} point" if math.isclose(value, 1.0) else f"{text} points"


# ---------------------------------------------------------------------------------------------
# words for the report (mcnemar.report renders these when a margin is given)


def _limit_decimals(values: list[float], margin: float) -> int:
    """Decimals (in points) that keep every shown limit on its true side of +-margin."""
    for decimals in range(2, 9):
        scale = 10.0**decimals
        if all(
            round(100 * v * scale) != round(100 * s * margin * scale)
            or 100 * v == 100 * s * margin
            for v in values
            for s in (-1.0, 1.0)
        ):
            return decimals
    return 8


def _interval_text(low: float, high: float, margin: float) -> str:
    decimals = _limit_decimals([low, high], margin)
    return f"[{100 * low:+.{decimals}f}, {100 * high:+.{decimals}f}] points"


def margin_sentences(
    ni: NonInferiorityResult, eq: EquivalenceResult | None, names: tuple[str, str]
) -> str:
    """The verdicts in words, for the conclusion of a report (one table).

    Examples
    --------
    >>> r = noninferiority([[1800, 52], [47, 101]], 0.01)
    >>> print(margin_sentences(r, None, ("distilled", "original")))
    ... # doctest: +NORMALIZE_WHITESPACE
    distilled is non-inferior to original by the 1-point margin: the 90% Tango interval for
    distilled - original, [-0.58, +1.08] points, lies above -1 point (one-sided score test
    p = 0.006972 < 0.05), so distilled is not worse by 1 point or more.
    """
    na, nb = names
    margin = describe_margin(ni.margin)
    if not math.isfinite(float(ni.statistic)):
        return (
            f"Non-inferiority not shown for the {_pct(ni.margin)}-point margin: there are no "
            "items to test."
        )
    ci = ni.confidence_interval()
    low, high = float(ci.low), float(ci.high)
    level = f"{ni.confidence_level:.0%}"
    interval = f"the {level} Tango interval for {na} - {nb}, {_interval_text(low, high, ni.margin)}"
    test = "one-sided score test" if ni.method == "score" else "one-sided exact unconditional test"
    p = _ptext(ni.pvalue, ni.log10_pvalue)
    if ni.method == "score" and math.isfinite(low):
        where = (
            "lies above" if low > -ni.margin else "ends at" if low == -ni.margin
            else "reaches below"
        )
        evidence = f"{interval}, {where} -{margin} ({test} p = {p} {{cmp}} {ni.alpha:g})"
    else:
        evidence = f"the {test} gives p = {p} {{cmp}} {ni.alpha:g} ({interval})"
    if ni.noninferior:
        text = (
            f"{na} is non-inferior to {nb} by the {_pct(ni.margin)}-point margin: "
            + evidence.format(cmp="<")
            + f", so {na} is not worse by {margin} or more."
        )
    else:
        text = (
            f"Non-inferiority not shown for the {_pct(ni.margin)}-point margin: "
            + evidence.format(cmp="≥")
            + f", so the data cannot rule out that {na} is worse than {nb} by {margin} or more."
        )
    if eq is not None:
        both = f"larger one-sided p = {_ptext(eq.pvalue, eq.log10_pvalue)}"
        inside = low > -eq.margin and high < eq.margin
        band = f"(-{_pct(eq.margin)}, +{_pct(eq.margin)}) points"
        if eq.equivalent:
            text += (
                f" Equivalent within {margin}: both one-sided tests reject ({both} < "
                f"{eq.alpha:g})"
                + (f" and the interval lies inside {band}." if eq.method == "score" else ".")
            )
        else:
            where = "is not inside" if not inside else "lies inside"
            text += (
                f" Equivalence within {margin} not shown: {both} ≥ {eq.alpha:g}"
                + (f" and the interval {where} {band}." if eq.method == "score" else ".")
            )
    return text


def margin_dict(
    ni: NonInferiorityResult, eq: EquivalenceResult | None, names: tuple[str, str]
) -> dict[str, Any]:
    """The report's JSON blocks ``noninferiority`` and (when tested) ``equivalence``."""
    # The numbers as the report's lines print them (a page shows these digits).
    ci = ni.confidence_interval()
    ni_texts = {
        "pvalue_text": _ptext(ni.pvalue, ni.log10_pvalue),
        "statistic_text": f"{float(ni.statistic):.4f}" if math.isfinite(float(ni.statistic))
        else None,
        "interval_text": _interval_text(float(ci.low), float(ci.high), ni.margin)
        if math.isfinite(float(ci.low)) and math.isfinite(float(ci.high)) else None,
    }
    out: dict[str, Any] = {"noninferiority": {**ni.to_dict(), "text": _ni_line(ni, names),
                                              **ni_texts}}
    if eq is not None:
        out["equivalence"] = {**eq.to_dict(), "text": _eq_line(eq, names),
                              "pvalue_text": _ptext(eq.pvalue, eq.log10_pvalue),
                              "pvalue_lower_text": _ptext(eq.pvalue_lower, eq.log10_pvalue_lower),
                              "pvalue_upper_text": _ptext(eq.pvalue_upper, eq.log10_pvalue_upper)}
    return out


def _h0_line(result: _MarginResult, h0: str, tests: str, shown: str, not_shown: str) -> str:
    """'H0: ...; the test(s): the verdict at alpha = ...', the report's line of one result."""
    verdict = shown if result._rejected() else not_shown
    return f"H0: {h0}; {tests}: {verdict} at alpha = {result.alpha:g}."


def _ni_line(ni: NonInferiorityResult, names: tuple[str, str]) -> str:
    na, nb = names
    return _h0_line(
        ni,
        f"{na} is worse than {nb} by {describe_margin(ni.margin)} or more",
        f"{ni.name}: Z = {float(ni.statistic):.4f}, one-sided p = "
        f"{_ptext(ni.pvalue, ni.log10_pvalue)}",
        f"{na} is non-inferior to {nb} by the {_pct(ni.margin)}-point margin",
        f"non-inferiority not shown for the {_pct(ni.margin)}-point margin",
    )


def _eq_line(eq: EquivalenceResult, names: tuple[str, str]) -> str:
    na, nb = names
    within = f"within {describe_margin(eq.margin)}"
    return _h0_line(
        eq,
        f"{na} and {nb} differ by {describe_margin(eq.margin)} or more",
        f"two one-sided {eq.name}s: p = {_ptext(eq.pvalue_lower, eq.log10_pvalue_lower)} "
        f"({na} not worse), {_ptext(eq.pvalue_upper, eq.log10_pvalue_upper)} ({na} not "
        f"better); larger p = {_ptext(eq.pvalue, eq.log10_pvalue)}",
        f"equivalent {within}",
        f"equivalence {within} not shown",
    )


def margin_lines(
    ni: NonInferiorityResult, eq: EquivalenceResult | None, names: tuple[str, str]
) -> list[str]:
    """Plain-text lines of the report section (also used, as bullets, in markdown)."""
    if not math.isfinite(float(ni.statistic)):
        return [f"No items: nothing to test against the margin of {describe_margin(ni.margin)}."]
    ci = ni.confidence_interval()
    lines = [
        _ni_line(ni, names),
        f"{ni.confidence_level:.0%} Tango interval for {names[0]} - {names[1]}: "
        f"{_interval_text(float(ci.low), float(ci.high), ni.margin)} (margin: "
        f"-{describe_margin(ni.margin)}).",
    ]
    if eq is not None:
        lines.append(_eq_line(eq, names))
    return lines
