r"""Planning a monitored eval: how many items until the anytime-valid test stops.

:func:`stopping_time` gives, for cell probabilities ``p10`` (A right, B wrong) and ``p01``
(the reverse), the distribution of the number of items after which the sequential test of
:mod:`mcnemar.sequential` reaches ``1/alpha``: its expectation and quantiles, exactly (by
dynamic programming over the (b, c) paths, not by simulation), next to the sample size of the
fixed-n exact McNemar test (:func:`mcnemar.sample_size`).

References
----------
A. Wald (1947), Sequential Analysis, Wiley (Wald's identity for the expected items).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mcnemar._format import json_fields
from mcnemar.errors import McNemarError
from mcnemar.planning._kernel import _binom_sf, _smallest_n
from mcnemar.sequential import _check_alpha, _check_alternative, _check_prior, _log_e

__all__ = ["StoppingTimeResult", "stopping_time"]

FloatArray = NDArray[np.float64]


@dataclass(frozen=True, slots=True, kw_only=True)
class StoppingTimeResult:
    """Distribution of the number of items after which the sequential test stops.

    Attributes
    ----------
    p10, p01 : float
        Probabilities of "A right, B wrong" and the reverse per item.
    prob_stop : float
        Probability that the test stops within ``max_discordant`` discordant items (its power
        with that horizon; at most ``alpha`` under H0).
    expected_items : float or None
        Expected number of items until it stops; ``None`` when it may never stop (``prob_stop``
        below 1 - 1e-9, e.g. under H0).
    expected_discordant : float or None
        Expected number of discordant items until it stops.
    quantiles : dict of float to int or None
        Items by which the test has stopped with probability q (``None`` if not reached within
        the horizon); ``quantiles[0.8]`` is the number of items at which the sequential test
        has 80% power.
    fixed_n : int or None
        Items the fixed-n exact McNemar test needs for ``power`` (:func:`mcnemar.sample_size`),
        ``None`` when no fixed n reaches it.
    power : float
        Target power for ``fixed_n``.
    alpha, alternative, prior, max_discordant
        Inputs.
    method : str
        How it was computed.
    """

    p10: float
    p01: float
    prob_stop: float
    expected_items: float | None
    expected_discordant: float | None
    quantiles: dict[float, int | None]
    fixed_n: int | None
    power: float
    alpha: float
    alternative: str
    prior: tuple[float, float]
    max_discordant: int
    method: str = "exact dynamic programming over the (b, c) paths"

    @property
    def theta(self) -> float:
        """p10 / (p10 + p01)."""
        return self.p10 / (self.p10 + self.p01)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dictionary."""
        return {
            **json_fields(self, "p10", "p01", "theta", "alpha", "alternative"),
            "prior": list(self.prior),
            **json_fields(self, "prob_stop", "expected_items", "expected_discordant"),
            "quantiles": {f"{q:g}": v for q, v in self.quantiles.items()},
            **json_fields(self, "fixed_n", "power", "max_discordant", "method"),
        }

    def __str__(self) -> str:
        diff = 100.0 * (self.p10 - self.p01)
        head = (
            f"Sequential test ({self.alternative}, alpha = {self.alpha:g}, "
            f"Beta({self.prior[0]:g}, {self.prior[1]:g}) mixture) at p10 = {self.p10:g}, "
            f"p01 = {self.p01:g} (difference {diff:+.2f} points):"
        )
        lines = [head]
        if self.expected_items is not None:
            lines.append(f"  expected items until it stops: {self.expected_items:.1f}")
        lines.append(f"  stops within {self.max_discordant} discordant items with probability "
                     f"{self.prob_stop:.4f}")
        qs = ", ".join(f"{q:.0%}: {'not reached' if v is None else v}"
                       for q, v in self.quantiles.items())
        lines.append(f"  items by which it has stopped, with probability {qs}")
        if self.fixed_n is not None:
            lines.append(f"  fixed-n exact McNemar test, {self.power:.0%} power: n = "
                         f"{self.fixed_n} items")
        lines.append(f"  ({self.method})")
        return "\n".join(lines)


def stopping_time(
    p10: float | None = None,
    p01: float | None = None,
    *,
    difference: float | None = None,
    discordance: float | None = None,
    alpha: float = 0.05,
    alternative: str = "two-sided",
    prior: Any = None,
    power: float = 0.8,
    quantiles: tuple[float, ...] = (0.1, 0.25, 0.5, 0.75, 0.8, 0.9),
    max_discordant: int = 100_000,
) -> StoppingTimeResult:
    r"""How many items until the sequential test stops, for cell probabilities ``p10, p01``.

    Exact, not simulated: the probability of each path of (b, c) counts is propagated one
    discordant item at a time (b + 1 with probability theta = p10/(p10 + p01), c + 1
    otherwise), and the mass that reaches ``E >= 1/alpha`` is absorbed; this gives the
    distribution of the number M of discordant items at stopping, up to ``max_discordant``.
    Items come in between: the number of items until the m-th discordant one is negative
    binomial with success probability :math:`\psi = p_{10} + p_{01}`, so
    :math:`P(N \le n) = \sum_m P(M = m) P(\mathrm{Bin}(n, \psi) \ge m)` and, by Wald's
    identity, :math:`E[N] = E[M]/\psi`. Probabilities below 1e-300 are dropped from the
    paths (the total dropped is below 1e-290).

    Parameters
    ----------
    p10, p01 : float
        Probability per item that A is right and B wrong, and the reverse.
    difference, discordance : float, optional
        Instead of ``p10, p01``: accuracy(A) - accuracy(B) and ``p10 + p01``
        (:func:`mcnemar.planning.discordant_probabilities`).
    alpha, alternative, prior
        As for :func:`mcnemar.sequential.sequential`.
    power : float
        Target power of the fixed-n exact test shown alongside (``fixed_n``).
    quantiles : tuple of float
        Probabilities at which to report the number of items.
    max_discordant : int
        Horizon of the computation in discordant items.

    Returns
    -------
    StoppingTimeResult

    Examples
    --------
    >>> r = stopping_time(0.15, 0.05)
    >>> round(r.expected_items), r.quantiles[0.5], r.quantiles[0.8], r.fixed_n
    (177, 156, 248, 168)
    >>> stopping_time(difference=0.10, discordance=0.20).expected_items == r.expected_items
    True
    """
    from mcnemar.planning import discordant_probabilities, sample_size

    if difference is not None or discordance is not None:
        if p10 is not None or p01 is not None:
            raise McNemarError("give p10 and p01, or difference and discordance, not both")
        if difference is None or discordance is None:
            raise McNemarError("difference and discordance go together; give both")
        p10, p01 = discordant_probabilities(difference, discordance)
    if p10 is None or p01 is None:
        raise McNemarError("give p10 and p01 (or difference and discordance)")
    alpha = _check_alpha(alpha)
    alt = _check_alternative(alternative)
    pr = _check_prior(prior)
    for name, v in (("p10", p10), ("p01", p01)):
        if isinstance(v, bool) or not isinstance(v, int | float | np.integer | np.floating) or \
                not 0.0 <= float(v) <= 1.0:
            raise McNemarError(f"{name} must be a probability in [0, 1]; got {v!r}")
    p10, p01 = float(p10), float(p01)
    psi = p10 + p01
    if psi <= 0.0 or psi > 1.0 + 1e-12:
        raise McNemarError(
            f"p10 + p01 must be in (0, 1] (the systems must disagree on some items); got "
            f"p10 = {p10!r}, p01 = {p01!r}"
        )
    if isinstance(max_discordant, bool) or not isinstance(max_discordant, int | np.integer) or \
            max_discordant < 1:
        raise McNemarError(f"max_discordant must be a whole number >= 1; got {max_discordant!r}")
    qs = tuple(float(q) for q in quantiles)
    if not all(0.0 < q < 1.0 for q in qs):
        raise McNemarError(f"quantiles must be probabilities in (0, 1); got {quantiles!r}")
    theta = p10 / psi
    stop_m, stop_p = _stopping_distribution(theta, alt, pr, alpha, int(max_discordant))
    prob_stop = float(stop_p.sum())
    exp_m: float | None = None
    exp_n: float | None = None
    if prob_stop > 1.0 - 1e-9:
        exp_m = float(np.dot(stop_m, stop_p) / prob_stop)
        exp_n = exp_m / psi
    qmap = {q: _item_quantile(q, stop_m, stop_p, psi) for q in qs}
    fixed: int | None
    try:
        fixed = sample_size(p10, p01, power=power, alpha=alpha, alternative=alt).n
    except McNemarError:
        fixed = None
    return StoppingTimeResult(
        p10=p10, p01=p01, prob_stop=min(1.0, prob_stop), expected_items=exp_n,
        expected_discordant=exp_m, quantiles=qmap, fixed_n=fixed, power=float(power),
        alpha=alpha, alternative=alt, prior=pr, max_discordant=int(max_discordant),
    )


def _stopping_distribution(
    theta: float, alternative: str, prior: tuple[float, float], alpha: float, horizon: int
) -> tuple[FloatArray, FloatArray]:
    """P(M = m) for the discordant count M at which E first reaches 1/alpha (m <= horizon)."""
    bound = -math.log(alpha)
    # mass[j] is the probability of being at b = start + j after m discordant items without
    # having stopped; the window is trimmed to where the mass is not negligible.
    start = 0
    mass = np.ones(1)
    ms: list[int] = []
    ps: list[float] = []
    remaining = 1.0
    for m in range(1, horizon + 1):
        new = np.empty(mass.size + 1)
        new[0] = 0.0
        new[1:] = mass * theta
        new[:-1] += mass * (1.0 - theta)
        b = start + np.arange(new.size, dtype=np.float64)
        stop = _log_e(b, m - b, alternative, *prior) >= bound
        if stop.any():
            p = float(new[stop].sum())
            if p > 0.0:
                ms.append(m)
                ps.append(p)
                remaining -= p
            new[stop] = 0.0
        keep = np.flatnonzero(new > 1e-300)
        if keep.size == 0 or remaining < 1e-12:
            break
        lo, hi = int(keep[0]), int(keep[-1]) + 1
        start += lo
        mass = new[lo:hi]
    return np.asarray(ms, dtype=np.float64), np.asarray(ps, dtype=np.float64)


def _item_quantile(q: float, stop_m: FloatArray, stop_p: FloatArray, psi: float) -> int | None:
    """Smallest n with P(N <= n) >= q, N the items until stopping."""
    if stop_p.sum() < q or stop_m.size == 0:
        return None

    def cdf(n: float) -> float:
        # P(the m-th discordant item has come by item n) = P(Bin(n, psi) >= m).
        return float(np.dot(stop_p, _binom_sf(stop_m, n, psi)))

    # The first stop comes after stop_m[0] items at the earliest.
    return _smallest_n(lambda n: cdf(n) >= q, int(stop_m[0]) - 1, int(stop_m[0]))
