r"""Anytime-valid monitoring of a paired comparison: e-values, sequential p-values, stopping.

Re-running McNemar's test after every batch of items and stopping at the first p < 0.05
inflates the false-positive rate far above 5%: every look is another chance to cross the line
by luck. The e-process here may be inspected after every item, and stopping whenever it
crosses ``1/alpha`` still keeps the false-positive rate at most ``alpha``.

The e-process
-------------
Only discordant items carry evidence. Given that an item is discordant, it is "A right, B
wrong" with probability :math:`\theta`; under H0 (equal accuracy) :math:`\theta = 1/2`,
independently from item to item. Mixing the likelihood ratio
:math:`\theta^b (1-\theta)^c / 2^{-D}` over a Beta(:math:`\alpha_0, \beta_0`) prior on
:math:`\theta` gives, after :math:`b` and :math:`c` discordant items (:math:`D = b + c`),

.. math::

    E = 2^D \, \frac{B(b + \alpha_0,\ c + \beta_0)}{B(\alpha_0, \beta_0)},

a non-negative martingale with mean 1 under H0 (a test martingale; computed in log space with
``betaln``). One-sided alternatives restrict the prior to :math:`\theta > 1/2` ("greater": A is
more accurate) or :math:`\theta < 1/2` ("less") and renormalise it:

.. math::

    E_{>} = 2^D \, \frac{B(b + \alpha_0, c + \beta_0)}{B(\alpha_0, \beta_0)}
            \frac{1 - I_{1/2}(b + \alpha_0, c + \beta_0)}{1 - I_{1/2}(\alpha_0, \beta_0)},

with :math:`I_x` the regularised incomplete beta function. Ville's inequality gives
:math:`P_{H_0}(\sup_t E_t \ge 1/\alpha) \le \alpha`, so the test "reject as soon as
:math:`E_t \ge 1/\alpha`" has level :math:`\alpha` however often one looks and whenever one
stops, and :math:`p_t = \min(1, 1/\max_{s \le t} E_s)` is an anytime-valid p-value
(:math:`P_{H_0}(\exists t: p_t \le \alpha) \le \alpha`).

The prior
---------
The default prior is Beta(4, 4) for every alternative (symmetric about 1/2; one-sided tests use
its half on the side of the alternative). A symmetric Beta(a, a) has standard deviation
:math:`1/(2\sqrt{2a+1})`, which for a = 4 is 1/6: the prior weighs most the shares of
discordant items won by A between about 0.35 and 0.65 (and their mirror images), so the test
is quick for the effects that matter in model comparisons (:math:`\theta` about 0.6 to 0.7:
A wins 60-70% of the items on which the systems disagree) without wasting much for larger
ones. Exact expected stopping times (:func:`mcnemar.stopping.stopping_time`) were computed
for Beta(a, a) with a from 0.5 to 32 at :math:`\theta` = 0.6, 0.65 and 0.7 (two-sided,
:math:`\alpha` = 0.05): a = 4 is within 2% of the best a for each of the three (the table is
in docs/decisions.md).

``prior=theta1`` (a number in (0, 1) other than 1/2) plans for one effect: the symmetric
Beta(a, a) whose standard deviation is :math:`|\theta_1 - 1/2|`, i.e.
:math:`a = (1/(4(\theta_1 - 1/2)^2) - 1)/2` (:math:`\theta_1` = 0.65 gives a = 5.06). Any
``(alpha0, beta0)`` pair is accepted as is.

Confidence sequences
--------------------
:meth:`SequentialResult.theta_interval` inverts the same mixture: the set of :math:`\theta_0`
whose mixture likelihood ratio stays below :math:`1/\alpha`,

.. math::

    \Bigl\{\theta_0 : \frac{B(b + \alpha_0, c + \beta_0)}{B(\alpha_0, \beta_0)\,
    \theta_0^b (1 - \theta_0)^c} < \frac1\alpha \Bigr\},

which covers the true :math:`\theta` at every time simultaneously with probability at least
:math:`1 - \alpha` (Robbins 1970; Howard et al. 2021). At :math:`\theta_0 = 1/2` the ratio is
the two-sided e-value, so this sequence excludes 1/2 exactly when the two-sided test rejects.
For the difference :math:`\delta = \psi (2\theta - 1)` (:math:`\psi` the probability that an
item is discordant) :meth:`SequentialResult.confidence_interval` combines a Beta(1, 1) mixture
sequence for :math:`\psi` over all items and the sequence for :math:`\theta`, each at
:math:`\alpha/2` (a union bound), and takes the range of :math:`\psi(2\theta - 1)` over the
two; it needs only the counts, so a streaming :class:`Monitor` keeps it in O(1) memory. It is
a mixture bound for the mean of the per-item differences in {-1, 0, 1}, valid at all times.
``confidence_interval(method="betting")`` gives instead the hedged-capital betting sequence of
Waudby-Smith & Ramdas (2024, Theorem 3) for that mean, which uses the items in order.

Contents
--------
:func:`sequential`
    the e-process, anytime-valid p-value and stopping point over outcomes in observed order.
:class:`Monitor`
    the same, streaming: ``.update(correct_a, correct_b)`` with O(1) state.
:func:`log_evalue`
    the closed form, vectorized over counts.
:func:`mcnemar.stopping.stopping_time`
    planning (in its own module): the distribution of the number of items until the test
    stops at a given effect, by exact dynamic programming over the (b, c) paths, next to the
    fixed-n sample size.

References
----------
P. Grünwald, R. de Heide & W. M. Koolen (2024), "Safe testing", JRSS-B 86:1091-1128.
J. Ville (1939), Étude critique de la notion de collectif, Gauthier-Villars.
H. Robbins (1970), "Statistical methods related to the law of the iterated logarithm",
Ann. Math. Statist. 41:1397-1409.
S. R. Howard, A. Ramdas, J. McAuliffe & J. Sekhon (2021), "Time-uniform, nonparametric,
nonasymptotic confidence sequences", Ann. Statist. 49:1055-1080.
I. Waudby-Smith & A. Ramdas (2024), "Estimating means of bounded random variables by betting",
JRSS-B 86:1-27.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from mcnemar import vocabulary
from mcnemar._format import json_number
from mcnemar.errors import McNemarError, option
from mcnemar.intervals import ConfidenceInterval

__all__ = [
    "DEFAULT_PRIOR",
    "Monitor",
    "SequentialResult",
    "log_evalue",
    "prior_for_effect",
    "sequential",
]

FloatArray = NDArray[np.float64]

#: Beta(4, 4): see the module docstring for why.
DEFAULT_PRIOR = (4.0, 4.0)
_ALTERNATIVES = vocabulary.names(vocabulary.ALTERNATIVES)
_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
# Probability for psi (the discordance rate) in the confidence sequence for the difference.
_PSI_PRIOR = (1.0, 1.0)
_BISECT_STEPS = 64


# --------------------------------------------------------------------------------------------
# validation


def _check_alpha(alpha: Any) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, int | float | np.integer | np.floating):
        raise McNemarError(f"{option('alpha')} must be a number strictly between 0 and 1; got "
                           f"{alpha!r}", argument="alpha")
    a = float(alpha)
    if not 0.0 < a < 1.0:
        raise McNemarError(f"{option('alpha')} must be strictly between 0 and 1; got {a:g}",
                           argument="alpha")
    return a


def _check_alternative(alternative: Any) -> str:
    if alternative not in _ALTERNATIVES:
        raise McNemarError(
            f"alternative must be one of {', '.join(repr(a) for a in _ALTERNATIVES)}; got "
            f"{alternative!r} ('greater' means A is more accurate than B)"
        )
    return str(alternative)


def prior_for_effect(theta: float) -> tuple[float, float]:
    r"""The symmetric Beta(a, a) prior planned for the effect ``theta``.

    ``theta`` is the share of discordant items that A gets right (``p10 / (p10 + p01)``); the
    prior's standard deviation :math:`1/(2\sqrt{2a+1})` is set to :math:`|\theta - 1/2|`.

    Examples
    --------
    >>> [round(v, 4) for v in prior_for_effect(0.65)]
    [5.0556, 5.0556]
    >>> prior_for_effect(0.25)
    (1.5, 1.5)
    """
    if isinstance(theta, bool) or not isinstance(theta, int | float | np.integer | np.floating):
        raise McNemarError(f"a planned effect must be a number in (0, 1); got {theta!r}")
    t = float(theta)
    if not (0.0 < t < 1.0) or t == 0.5:
        raise McNemarError(
            f"a planned effect theta must be in (0, 1) and not 1/2 (theta = p10/(p10 + p01), "
            f"the share of discordant items A gets right); got {theta!r}"
        )
    a = (1.0 / (4.0 * (t - 0.5) ** 2) - 1.0) / 2.0
    return (a, a)


def _check_prior(prior: Any) -> tuple[float, float]:
    if prior is None:
        return DEFAULT_PRIOR
    if isinstance(prior, int | float | np.integer | np.floating) and not isinstance(prior, bool):
        return prior_for_effect(float(prior))
    try:
        a0, b0 = prior
        out = (float(a0), float(b0))
    except (TypeError, ValueError):
        raise McNemarError(
            f"prior must be a pair (alpha0, beta0) of Beta parameters > 0, or a planned effect "
            f"theta in (0, 1); got {prior!r}"
        ) from None
    if not all(math.isfinite(v) and v > 0 for v in out):
        raise McNemarError(f"prior (alpha0, beta0) must both be finite and > 0; got {prior!r}")
    return out


def _outcomes(name: str, values: ArrayLike) -> NDArray[np.bool_]:
    from mcnemar.table import _outcomes as table_outcomes

    arr = np.asarray(values)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    out = table_outcomes(name, arr)
    if out.ndim != 1:
        raise McNemarError(
            f"{name} must be 1-D (one outcome per item, in the order observed); got shape "
            f"{out.shape}"
        )
    return out


def _pair(correct_a: ArrayLike, correct_b: ArrayLike) -> tuple[NDArray[np.bool_], ...]:
    from mcnemar.table import outcome_pair

    return outcome_pair(correct_a, correct_b, _outcomes)


# --------------------------------------------------------------------------------------------
# the closed form


def log_evalue(
    b: ArrayLike,
    c: ArrayLike,
    *,
    alternative: str = "two-sided",
    prior: Any = None,
) -> Any:
    r"""Natural log of the e-value after ``b`` "A only" and ``c`` "B only" discordant items.

    .. math:: \log E = D \log 2 + \log B(b + \alpha_0, c + \beta_0) - \log B(\alpha_0, \beta_0)

    plus, one-sided, the log of the posterior mass on the side of the alternative over the
    prior mass there (see the module docstring). Vectorized over ``b`` and ``c``.

    Examples
    --------
    With the uniform prior, one "A only" item gives E = 2 B(2, 1) / B(1, 1) = 1:

    >>> float(log_evalue(1, 0, prior=(1, 1)))
    0.0

    and with the default Beta(4, 4), 17 against 3 gives E = 2^20 B(21, 7) / B(4, 4):

    >>> round(float(np.exp(log_evalue(17, 3))), 3)
    23.616
    """
    alt = _check_alternative(alternative)
    a0, b0 = _check_prior(prior)
    bf = np.asarray(b, dtype=np.float64)
    cf = np.asarray(c, dtype=np.float64)
    out = _log_e(bf, cf, alt, a0, b0)
    return float(out) if out.ndim == 0 else out


def _log_e(b: FloatArray, c: FloatArray, alternative: str, a0: float, b0: float) -> FloatArray:
    logv = (b + c) * _LN2 + special.betaln(b + a0, c + b0) - special.betaln(a0, b0)
    if alternative == "two-sided":
        return np.asarray(logv, dtype=np.float64)
    # Posterior mass above 1/2 of Beta(x, y) is I_{1/2}(y, x) (symmetry), computed directly
    # rather than as 1 - I_{1/2}(x, y), which loses all digits when the mass is tiny.
    if alternative == "greater":
        post = special.betainc(c + b0, b + a0, 0.5)
        mass = special.betainc(b0, a0, 0.5)
    else:
        post = special.betainc(b + a0, c + b0, 0.5)
        mass = special.betainc(a0, b0, 0.5)
    with np.errstate(divide="ignore"):
        return np.asarray(logv + np.log(post) - math.log(mass), dtype=np.float64)


# --------------------------------------------------------------------------------------------
# confidence sequences by mixture inversion


def _mixture_cs(
    k: ArrayLike, m: ArrayLike, a0: float, b0: float, alpha: float
) -> tuple[FloatArray, FloatArray]:
    """{p : mixture likelihood ratio against p < 1/alpha} for k successes in m trials.

    The log likelihood k log p + (m - k) log(1 - p) is concave with its maximum at k/m, so the
    set is an interval; each end is found by bisection (vectorized over the arrays).
    """
    k_, m_ = np.broadcast_arrays(np.asarray(k, np.float64), np.asarray(m, np.float64))
    return _mixture_cs_arrays(k_, m_, a0, b0, alpha)


def _mixture_cs_arrays(
    k: FloatArray, m: FloatArray, a0: float, b0: float, alpha: float
) -> tuple[FloatArray, FloatArray]:
    level = special.betaln(k + a0, m - k + b0) - special.betaln(a0, b0) + math.log(alpha)

    def loglik(p: FloatArray) -> FloatArray:
        return np.asarray(special.xlogy(k, p) + special.xlog1py(m - k, -p), dtype=np.float64)

    with np.errstate(invalid="ignore", divide="ignore"):
        top = np.where(m > 0, k / np.where(m > 0, m, 1.0), 0.5)
    ends = []
    for lo0, hi0, inside_high in ((np.zeros_like(top), top, True), (top, np.ones_like(top),
                                                                    False)):
        lo, hi = lo0.copy(), hi0.copy()
        # Bisection keeps [lo, hi] straddling the crossing; the end stays inside the set.
        for _ in range(_BISECT_STEPS):
            mid = 0.5 * (lo + hi)
            inside = loglik(mid) > level
            if inside_high:
                hi = np.where(inside, mid, hi)
                lo = np.where(inside, lo, mid)
            else:
                lo = np.where(inside, mid, lo)
                hi = np.where(inside, hi, mid)
        if inside_high:
            end = np.where(loglik(lo0) > level, lo0, lo)
        else:
            end = np.where(loglik(hi0) > level, hi0, hi)
        ends.append(end)
    low = np.where(m > 0, ends[0], 0.0)
    high = np.where(m > 0, ends[1], 1.0)
    return low, high


def _theta_cs(
    b: Any, c: Any, prior: tuple[float, float], alpha: float
) -> tuple[FloatArray, FloatArray]:
    return _mixture_cs(b, np.add(b, c), prior[0], prior[1], alpha)


def _delta_cs(
    n: Any, b: Any, c: Any, prior: tuple[float, float], alpha: float
) -> tuple[FloatArray, FloatArray]:
    t_lo, t_hi = _theta_cs(b, c, prior, alpha / 2.0)
    s_lo, s_hi = _mixture_cs(np.add(b, c), n, _PSI_PRIOR[0], _PSI_PRIOR[1], alpha / 2.0)
    g_lo, g_hi = 2.0 * t_lo - 1.0, 2.0 * t_hi - 1.0
    # psi * g over the box [s_lo, s_hi] x [g_lo, g_hi]: psi >= 0, so the extremes use
    # s_hi where g has the matching sign and s_lo otherwise.
    low = np.where(g_lo < 0, s_hi * g_lo, s_lo * g_lo)
    high = np.where(g_hi > 0, s_hi * g_hi, s_lo * g_hi)
    return low, high


def _betting_cs(diff: FloatArray, alpha: float, c: float = 0.5) -> tuple[float, float]:
    """Hedged-capital betting confidence set for the mean of ``diff`` in [-1, 1], at the end.

    Waudby-Smith & Ramdas (2024), Theorem 3, on x = (diff + 1)/2 in [0, 1]: with predictable
    bets lambda_i = sqrt(2 log(2/alpha) / (sigma2_{i-1} i log(i + 1))) truncated to
    c/m (K+) and c/(1 - m) (K-), the capital K+(m) = prod(1 + lambda (x - m)) falls and
    K-(m) = prod(1 - lambda (x - m)) rises with m, so {m : max(K+/2, K-/2) < 1/alpha} is an
    interval whose ends are found by bisection. Returned on the scale of the difference.
    """
    x = 0.5 * (diff + 1.0)
    t = np.arange(1, x.size + 1, dtype=np.float64)
    mean = (0.5 + np.cumsum(x)) / (t + 1.0)
    var = (0.25 + np.cumsum((x - mean) ** 2)) / (t + 1.0)
    prev_var = np.concatenate([[0.25], var[:-1]])  # predictable: uses items before i only
    lam = np.sqrt(2.0 * math.log(2.0 / alpha) / (prev_var * t * np.log(t + 1.0)))
    bound = math.log(2.0 / alpha)  # K/2 >= 1/alpha  <=>  log K >= log(2/alpha)

    def log_k(m: float, sign: float) -> float:
        cap = c / m if sign > 0 else c / (1.0 - m)
        step = np.minimum(lam, cap)
        return float(np.sum(np.log1p(sign * step * (x - m))))

    lo, hi = 0.0, 1.0
    # Lower end: K+ falls with m (and is at most 1 as m -> 1); the set is where
    # log K+ < bound. Upper end: the same for K-, which rises with m.
    a, b = 1e-12, 1.0 - 1e-12
    if log_k(a, 1.0) >= bound:
        for _ in range(_BISECT_STEPS):
            mid = 0.5 * (a + b)
            if log_k(mid, 1.0) >= bound:
                a = mid
            else:
                b = mid
        lo = b
    a, b = 1e-12, 1.0 - 1e-12
    if log_k(b, -1.0) >= bound:
        for _ in range(_BISECT_STEPS):
            mid = 0.5 * (a + b)
            if log_k(mid, -1.0) >= bound:
                b = mid
            else:
                a = mid
        hi = a
    return 2.0 * lo - 1.0, 2.0 * hi - 1.0


def _ci(low: FloatArray, high: FloatArray) -> ConfidenceInterval[Any]:
    if np.ndim(low) == 0:
        return ConfidenceInterval(float(low), float(high))
    return ConfidenceInterval(low, high)


# --------------------------------------------------------------------------------------------
# results


def _exp(x: float) -> float:
    return math.exp(x) if x < 709.0 else math.inf


class _SequentialState(ABC):
    """What a finished run (:class:`SequentialResult`) and a :class:`Monitor` share: the
    verdict, the confidence sequences from the counts, the JSON and the summary."""

    __slots__ = ()
    # The settings, the counts and the stopping point: fields of a run, attributes of a Monitor.
    alpha: float
    alternative: str
    prior: tuple[float, float]
    n: int
    b: int
    c: int
    stopped_at: int | None
    if TYPE_CHECKING:  # fields of a run, computed properties of a Monitor

        @property
        def evalue(self) -> float: ...

        @property
        def log10_evalue(self) -> float: ...

        @property
        def pvalue(self) -> float: ...

    @abstractmethod
    def _log_max(self) -> float:
        """Natural log of the running maximum of the e-value."""

    @property
    def rejected(self) -> bool:
        """The e-value reached ``1/alpha`` at some point: stop and conclude a difference."""
        return self.stopped_at is not None

    @property
    def items_saved(self) -> int:
        """Items after the stopping point (0 when the test never stopped)."""
        return 0 if self.stopped_at is None else self.n - self.stopped_at

    def _alpha_for(self, confidence_level: float | None) -> float:
        level = 1.0 - self.alpha if confidence_level is None else confidence_level
        return 1.0 - _check_alpha(level)

    def theta_interval(self, confidence_level: float | None = None) -> ConfidenceInterval[Any]:
        """Confidence sequence for theta = P(A right | the systems disagree), now.

        Valid at every item simultaneously; ``confidence_level`` defaults to ``1 - alpha``.
        """
        lo, hi = _theta_cs(np.float64(self.b), np.float64(self.c), self.prior,
                           self._alpha_for(confidence_level))
        return _ci(lo, hi)

    def _mixture_interval(self, confidence_level: float | None) -> ConfidenceInterval[Any]:
        lo, hi = _delta_cs(np.float64(self.n), np.float64(self.b), np.float64(self.c),
                           self.prior, self._alpha_for(confidence_level))
        return _ci(lo, hi)

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval[Any]:
        """Confidence sequence for the difference in accuracy (b - c)/n, now (valid at every
        look; ``confidence_level`` defaults to ``1 - alpha``)."""
        return self._mixture_interval(confidence_level)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe summary (a run's paths are left out; ``inf`` becomes null)."""
        ci = self.confidence_interval()
        th = self.theta_interval()
        return {
            "method": "beta-mixture e-process",
            "alternative": self.alternative,
            "alpha": self.alpha,
            "prior": list(self.prior),
            "n": self.n,
            "b": self.b,
            "c": self.c,
            "evalue": json_number(self.evalue),
            "log10_evalue": json_number(self.log10_evalue),
            "max_log10_evalue": json_number(self._log_max() / _LN10),
            "pvalue": self.pvalue,
            "threshold": 1.0 / self.alpha,
            "rejected": self.rejected,
            "stopped_at": self.stopped_at,
            "items_saved": self.items_saved,
            "confidence_sequence": {
                "confidence_level": 1.0 - self.alpha,
                "difference": ci.to_dict(),
                "theta": th.to_dict(),
            },
        }

    def __str__(self) -> str:
        return _summary(self.n, self.b, self.c, self.log10_evalue, self.pvalue, self.stopped_at,
                        self.alpha, self.alternative, self.prior)


# eq=False: the paths are arrays, and results are compared by their fields, not as a whole.
@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class SequentialResult(_SequentialState):
    """Result of :func:`sequential`: the e-process over items in the order observed.

    Attributes
    ----------
    evalue : float
        The e-value after the last item (``inf`` beyond a double; see ``log10_evalue``).
    log10_evalue : float
    pvalue : float
        Anytime-valid p-value after the last item: ``min(1, 1/max E)`` over all items so far.
    stopped_at : int or None
        Number of items after which the e-value first reached ``1/alpha`` (the run could have
        stopped there: item ``stopped_at`` in 1-based numbering), or ``None`` if it never did.
    n, b, c : int
        Items seen, "A right, B wrong" and "A wrong, B right" among them.
    alpha, alternative, prior
        The level, the alternative and the Beta prior ``(alpha0, beta0)`` used.
    log_evalue_path : ndarray
        Natural log of the e-value after each item (length ``n``).
    only_a_path, only_b_path : ndarray
        Running counts b and c after each item.
    """

    evalue: float
    log10_evalue: float
    pvalue: float
    stopped_at: int | None
    n: int
    b: int
    c: int
    alpha: float
    alternative: str
    prior: tuple[float, float]
    log_evalue_path: FloatArray = field(repr=False)
    only_a_path: NDArray[np.int64] = field(repr=False)
    only_b_path: NDArray[np.int64] = field(repr=False)

    @property
    def evalue_path(self) -> FloatArray:
        """The e-value after each item (``inf`` where it exceeds a double)."""
        with np.errstate(over="ignore"):
            return np.exp(self.log_evalue_path)

    @property
    def pvalue_path(self) -> FloatArray:
        """The anytime-valid p-value after each item, ``min(1, 1/running max E)``."""
        return np.asarray(
            np.exp(-np.maximum(np.maximum.accumulate(self.log_evalue_path), 0.0)),
            dtype=np.float64,
        )

    def _log_max(self) -> float:
        return float(np.max(self.log_evalue_path, initial=0.0))

    def confidence_interval(
        self, confidence_level: float | None = None, method: str = "mixture"
    ) -> ConfidenceInterval[Any]:
        """Confidence sequence for the difference in accuracy (b - c)/n, now.

        Valid at every item simultaneously; ``confidence_level`` defaults to ``1 - alpha``.

        Parameters
        ----------
        confidence_level : float, optional
        method : {"mixture", "betting"}
            ``"mixture"`` (default): the union of the Beta-mixture sequences for the
            discordance rate and for theta (module docstring); needs only the counts, so
            :class:`Monitor` gives the same. ``"betting"``: the hedged-capital betting
            sequence of Waudby-Smith & Ramdas (2024, Theorem 3, predictable plug-in bets) for
            the mean of the per-item differences in {-1, 0, 1}; it uses the items in order and
            is usually narrower.
        """
        if method == "betting":
            diff = np.diff(self.only_a_path - self.only_b_path, prepend=0)
            b_lo, b_hi = _betting_cs(diff.astype(np.float64), self._alpha_for(confidence_level))
            return ConfidenceInterval(b_lo, b_hi)
        if method != "mixture":
            # The level is checked first, as before the method.
            self._alpha_for(confidence_level)
            raise McNemarError(f"method must be 'mixture' or 'betting'; got {method!r}")
        return self._mixture_interval(confidence_level)


def _summary(n: int, b: int, c: int, log10_e: float, pvalue: float, stopped_at: int | None,
             alpha: float, alternative: str, prior: tuple[float, float]) -> str:
    e_text = f"{10.0**log10_e:.4g}" if log10_e < 300 else f"10^{log10_e:.1f}"
    # p = 1/max E underflows a double when the e-value is astronomically large.
    p_text = f"= {pvalue:.4g}" if pvalue > 0 else "< 1e-300"
    claim = ("a difference" if alternative == "two-sided" else
             f"that A is {'more' if alternative == 'greater' else 'less'} accurate than B")
    lines = [
        f"Anytime-valid sequential test ({alternative}, alpha = {alpha:g}, "
        f"Beta({prior[0]:g}, {prior[1]:g}) mixture): after {n} items (A right and B wrong on "
        f"{b}, the reverse on {c}) the e-value is {e_text}; anytime-valid p {p_text}.",
    ]
    if stopped_at is None:
        lines.append(
            f"  The e-value never reached 1/alpha = {1 / alpha:g}: the data do not show {claim} "
            "at this level (yet); monitoring may continue."
        )
    else:
        lines.append(
            f"  The e-value first reached 1/alpha = {1 / alpha:g} after item {stopped_at}: the "
            f"run could have stopped there, saving {n - stopped_at} of {n} items."
        )
    return "\n".join(lines)


def sequential(
    correct_a: ArrayLike,
    correct_b: ArrayLike,
    *,
    alpha: float = 0.05,
    alternative: str = "two-sided",
    prior: Any = None,
) -> SequentialResult:
    r"""Anytime-valid test of equal accuracy over per-item outcomes in the order observed.

    Parameters
    ----------
    correct_a, correct_b : array_like
        One 0/1 (or boolean) outcome per item for A and B, in the order the items were scored.
    alpha : float
        Level: the test rejects once the e-value reaches ``1/alpha``.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: A is more accurate (the mixture over theta > 1/2).
    prior : None, float or (float, float)
        ``None``: Beta(4, 4) (see the module docstring); a number ``theta1`` in (0, 1): the
        prior planned for that effect (:func:`prior_for_effect`); a pair: Beta(alpha0, beta0).

    Returns
    -------
    SequentialResult
        ``.evalue``, ``.pvalue`` (anytime-valid), ``.stopped_at``, the paths and the
        confidence sequences ``.confidence_interval()`` (difference) and
        ``.theta_interval()``.

    Notes
    -----
    :math:`E_t = 2^{D_t} B(b_t + \alpha_0, c_t + \beta_0)/B(\alpha_0, \beta_0)` after
    :math:`t` items; :math:`P_{H_0}(\sup_t E_t \ge 1/\alpha) \le \alpha` (Ville's
    inequality). Items on which A and B agree leave E unchanged.

    References
    ----------
    Grünwald, de Heide & Koolen (2024), JRSS-B 86:1091-1128; Ville (1939).

    Examples
    --------
    With the uniform prior, E = 2^D b! c! / (D + 1)!; after 8 "A only" items it is
    256/9 = 28.4 >= 20, which happens at item 10 here:

    >>> a = [1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    >>> b = [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]
    >>> r = sequential(a, b, prior=(1, 1))
    >>> r.b, r.c, r.stopped_at, r.items_saved, round(r.evalue, 2), round(r.pvalue, 5)
    (10, 0, 10, 2, 93.09, 0.01074)
    """
    alpha = _check_alpha(alpha)
    alt = _check_alternative(alternative)
    pr = _check_prior(prior)
    xa, xb = _pair(correct_a, correct_b)
    only_a = np.cumsum(xa & ~xb, dtype=np.int64)
    only_b = np.cumsum(~xa & xb, dtype=np.int64)
    path = _log_e(only_a.astype(np.float64), only_b.astype(np.float64), alt, *pr)
    crossed = np.flatnonzero(path >= -math.log(alpha))
    stopped = int(crossed[0]) + 1 if crossed.size else None
    top = max(0.0, float(np.max(path)))
    final = float(path[-1])
    return SequentialResult(
        evalue=_exp(final),
        log10_evalue=final / _LN10,
        pvalue=math.exp(-top),
        stopped_at=stopped,
        n=int(xa.shape[0]),
        b=int(only_a[-1]),
        c=int(only_b[-1]),
        alpha=alpha,
        alternative=alt,
        prior=pr,
        log_evalue_path=path,
        only_a_path=only_a,
        only_b_path=only_b,
    )


class Monitor(_SequentialState):
    """Streaming anytime-valid test: feed outcomes as they arrive, look whenever you like.

    Holds O(1) state (counts, the current and the largest log e-value, the stopping point),
    whatever the number of items. ``update`` takes one item (two scalars) or a batch (two
    arrays, in the order observed) and returns the monitor, so calls chain.

    Parameters
    ----------
    alpha, alternative, prior
        As for :func:`sequential`.

    Examples
    --------
    >>> m = Monitor(prior=(1, 1))
    >>> for a, b in [(1, 0)] * 7 + [(0, 0), (1, 1)]:
    ...     _ = m.update(a, b)
    >>> m.b, m.stopped_at, m.rejected
    (7, None, False)
    >>> m.update([1], [0]).stopped_at
    10
    """

    __slots__ = ("_log_e", "_max_log_e", "alpha", "alternative", "b", "c", "n", "prior",
                 "stopped_at")

    def __init__(self, *, alpha: float = 0.05, alternative: str = "two-sided",
                 prior: Any = None) -> None:
        self.alpha = _check_alpha(alpha)
        self.alternative = _check_alternative(alternative)
        self.prior = _check_prior(prior)
        self.n = 0
        self.b = 0
        self.c = 0
        self._log_e = 0.0
        self._max_log_e = 0.0
        self.stopped_at: int | None = None

    def update(self, correct_a: ArrayLike, correct_b: ArrayLike) -> Monitor:
        """Add the outcomes of one item (scalars) or of a batch (arrays, in order)."""
        xa, xb = _pair(correct_a, correct_b)
        only_a = self.b + np.cumsum(xa & ~xb, dtype=np.int64)
        only_b = self.c + np.cumsum(~xa & xb, dtype=np.int64)
        path = _log_e(only_a.astype(np.float64), only_b.astype(np.float64), self.alternative,
                      *self.prior)
        if self.stopped_at is None:
            crossed = np.flatnonzero(path >= -math.log(self.alpha))
            if crossed.size:
                self.stopped_at = self.n + int(crossed[0]) + 1
        self._max_log_e = max(self._max_log_e, float(np.max(path)))
        self._log_e = float(path[-1])
        self.n += int(xa.shape[0])
        self.b = int(only_a[-1])
        self.c = int(only_b[-1])
        return self

    @property
    def evalue(self) -> float:
        """The current e-value."""
        return _exp(self._log_e)

    @property
    def log10_evalue(self) -> float:
        return self._log_e / _LN10

    @property
    def pvalue(self) -> float:
        """Anytime-valid p-value, ``min(1, 1/max E)`` so far."""
        return math.exp(-self._max_log_e)

    def _log_max(self) -> float:
        return self._max_log_e

    def __repr__(self) -> str:
        return (f"Monitor(n={self.n}, b={self.b}, c={self.c}, evalue={self.evalue:.4g}, "
                f"stopped_at={self.stopped_at})")
