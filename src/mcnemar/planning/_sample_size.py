""":func:`sample_size`: the number of items needed for a target power."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
from scipy import special

from mcnemar.errors import McNemarError
from mcnemar.planning._kernel import (
    _CHUNK_PAIRS,
    _conditional_power,
    _connor_n,
    _connor_power,
    _critical_lower,
    _first_and_stable,
    _flat_weights,
    _orient,
    _runs,
    _smallest_n,
    _tail_alpha,
    _windows,
)
from mcnemar.planning._results import SampleSizeResult
from mcnemar.planning._settings import one_setting
from mcnemar.planning._validation import (
    _ALTERNATIVES,
    _METHODS,
    _check_choice,
    _check_open_unit,
)

if TYPE_CHECKING:
    from mcnemar.planning._margin import MarginSampleSizeResult

FloatArray = npt.NDArray[np.float64]


# Slack when comparing a computed power with the target (floating-point sums of ~1e4 terms).
_POWER_SLACK = 1e-12
# The sample-size search tabulates the conditional power for m = 0..M; this caps M (memory).
_MAX_DISCORDANT = 4_000_000


def _expected(
    ns: FloatArray, psi: float, table: FloatArray
) -> FloatArray:
    """E[table[min(M, len - 1)]] for M ~ Bin(n, psi), for each n in ns (table indexed by m)."""
    seg, m, w, _ = _flat_weights(ns, np.full(ns.shape, psi))
    idx = np.minimum(m, table.size - 1).astype(np.intp)
    out: FloatArray = np.asarray(
        np.bincount(seg, weights=w * table[idx], minlength=ns.size), dtype=np.float64
    )
    return out


def _cp_table(
    first: int, last: int, theta: float, theta_c: float, tail: float, method: str,
    two_sided: bool,
) -> FloatArray:
    """Conditional power cp(m) for m = first..last (one consecutive run)."""
    m = np.arange(first, last + 1, dtype=np.float64)
    j = _critical_lower(m, tail, method)
    return _conditional_power(
        m, j, np.full(m.shape, theta), np.full(m.shape, theta_c), two_sided, _runs(m)
    )


def _region_constant(tail_alpha: float, method: str) -> float:
    """c with: every count k >= m/2 + c sqrt(m) lies in the upper rejection region.

    Exact and mid-p: Hoeffding gives P(X <= j) <= exp(-2 (m/2 - j)^2 / m) under theta = 1/2,
    which is <= tail_alpha once j <= m/2 - c sqrt(m), c = sqrt(log(1/tail_alpha)/2); the mid-p
    value is at most the exact one. Asymptotic: the test rejects when (2k - m)/sqrt(m) >= z.
    """
    if method == "asymptotic":
        return 0.5 * float(special.ndtri(1.0 - tail_alpha))
    return math.sqrt(0.5 * math.log(1.0 / tail_alpha))


def _search_sample_size(
    theta: float, theta_c: float, psi: float, target: float, alpha: float, alternative: str,
    method: str,
) -> tuple[int, int, float, float]:
    """(n stable, n first, power at each) for the exact power of `method`; theta > 1/2."""
    two_sided = alternative == "two-sided"
    tail = _tail_alpha(alpha, alternative)
    gap = theta - 0.5
    c = _region_constant(tail, method)
    # Hoeffding for X ~ Bin(m, theta): P(X < m/2 + c sqrt(m)) <= exp(-2 (sqrt(m) gap - c)^2),
    # so cp(m) >= B(m) = 1 - exp(-2 (sqrt(m) gap - c)^2), which increases with m. Tabulate cp up
    # to M, where B already exceeds the target by a margin.
    b_star = 1.0 - (1.0 - target) / 4.0
    r = math.sqrt(0.5 * math.log(1.0 / (1.0 - b_star)))
    m_max = max(1, math.ceil(((c + r) / gap) ** 2))
    if m_max > _MAX_DISCORDANT:
        raise McNemarError(
            f"the difference is too small for an exact sample-size search (it would need about "
            f"{m_max:,} discordant items, beyond {_MAX_DISCORDANT:,}); use method='connor', "
            "which is accurate at such sizes"
        )
    cp = _cp_table(0, m_max, theta, theta_c, tail, method, two_sided)
    bound = 1.0 - math.exp(-2.0 * (math.sqrt(m_max + 1) * gap - c) ** 2)
    # Monotone envelopes of the saw-toothed cp(m): lower from the right (with B beyond M),
    # upper from the left (with 1 beyond M). Their expectations under Bin(n, psi) are
    # non-decreasing in n, since Bin(n, psi) grows stochastically with n.
    lower = np.minimum(np.minimum.accumulate(cp[::-1])[::-1], bound)
    lower = np.append(lower, bound)
    upper = np.append(np.maximum.accumulate(cp), 1.0)

    def lower_ok(n: int) -> bool:
        return bool(_expected(np.array([float(n)]), psi, lower)[0] >= target + _POWER_SLACK)

    def upper_ok(n: int) -> bool:
        return bool(_expected(np.array([float(n)]), psi, upper)[0] >= target - _POWER_SLACK)

    n_hi = _smallest_n(lower_ok, 0, max(2, math.ceil(m_max / psi)))  # power >= target from here
    n_lo = max(1, _smallest_n(upper_ok, 0, n_hi))  # every n < n_lo has power < target

    # cp for the m that the windows of n <= n_hi reach beyond the table
    _, m_top = _windows(np.array([float(n_hi)]), np.array([psi]))
    if m_top[0] > m_max:
        extra = _cp_table(m_max + 1, int(m_top[0]), theta, theta_c, tail, method, two_sided)
        cp = np.concatenate([cp, extra])

    ns = np.arange(n_lo, n_hi + 1, dtype=np.float64)
    w_lo, w_hi = _windows(ns[-1:], np.array([psi]))
    chunk = max(1, _CHUNK_PAIRS // int(w_hi[0] - w_lo[0] + 1.0))
    powers = np.concatenate(
        [_expected(ns[i : i + chunk], psi, cp) for i in range(0, ns.size, chunk)]
    )
    meets = powers >= target
    meets[-1] = True  # n_hi is guaranteed by the lower envelope
    first, stable = _first_and_stable(meets)
    return int(ns[stable]), int(ns[first]), float(powers[stable]), float(powers[first])


def sample_size(
    p10: Any = None,
    p01: Any = None,
    *,
    difference: Any = None,
    discordance: Any = None,
    table: Any = None,
    power: float = 0.8,
    alpha: float = 0.05,
    alternative: str = "two-sided",
    method: str = "exact",
    margin: float | None = None,
) -> SampleSizeResult | MarginSampleSizeResult:
    r"""Number of items needed for McNemar's test to reach a target power.

    For ``method="connor"`` this is Connor's (1987) formula, rounded up:

    .. math::

        n = \frac{\left(z_{1-\alpha/2}\sqrt{\psi} + z_{1-\beta}\sqrt{\psi - \delta^2}\right)^2}
                 {\delta^2}

    (:math:`z_{1-\alpha}` one-sided); Connor's power increases with ``n``, so ``n`` and
    ``n_first`` coincide, and the unrounded value is ``n_connor``.

    For ``"exact"``, ``"midp"`` and ``"asymptotic"`` the exact power of that test (see
    :func:`power`) is searched over ``n``. It is saw-toothed: it can reach the target at some
    ``n`` and fall below it at a larger one. The result gives both the first ``n`` reaching the
    target (``n_first``) and the smallest ``n`` from which it never falls below again (``n``).

    How "never falls below again" is guaranteed, not just checked over a window: write
    :math:`\text{power}(n) = E[cp(M)]` with :math:`M \sim \text{Bin}(n, \psi)` and
    :math:`cp(m)` the conditional power given :math:`m` discordant items. Hoeffding's
    inequality gives an explicit lower bound :math:`B(m) \le cp(m)` that increases with
    :math:`m`. With :math:`cp` tabulated up to the :math:`m` where :math:`B` exceeds the target
    by a margin, :math:`L(m) = \min(\min_{m \le m' \le M} cp(m'), B(M+1))` is a non-decreasing
    lower envelope of :math:`cp`, and :math:`E[L(M)]` is non-decreasing in :math:`n` because
    :math:`\text{Bin}(n, \psi)` is stochastically increasing in :math:`n`. The first ``n`` where
    :math:`E[L(M)] \ge` target therefore bounds the search from above for every larger ``n``;
    symmetrically the running maximum of :math:`cp` bounds it from below. Between the two, every
    ``n`` is evaluated exactly, all at once (vectorized over ``n`` and ``m``).

    Parameters
    ----------
    p10, p01 : float, optional
        Probabilities that A is right and B wrong, and the reverse.
    difference, discordance : float, optional
        Alternative to ``p10, p01``: accuracy(A) - accuracy(B) and ``p10 + p01``.
    table : PairedTable, optional
        Alternative: a pilot table (``p10 = b/N``, ``p01 = c/N``).
    power : float, default 0.8
        Target power, in (0, 1).
    alpha : float, default 0.05
    alternative : {"two-sided", "greater", "less"}
        The effect must point the way of a one-sided alternative (``p10 > p01`` for
        ``"greater"``).
    method : {"exact", "midp", "asymptotic", "connor"}
    margin : float, optional
        A non-inferiority margin: the items needed for Tango's test that A is not worse than
        B by the margin (:func:`mcnemar.margin_planning.sample_size`).

    Returns
    -------
    SampleSizeResult
        ``.n``, ``.n_first``, ``.power``, ``.n_connor``, ...

    Raises
    ------
    McNemarError
        For invalid arguments, or when no sample size reaches the target (no difference, or a
        difference against the one-sided alternative).

    References
    ----------
    Connor, R. J. (1987). Sample size for testing differences in proportions for the
    paired-sample design. *Biometrics* 43(1), 207-211.

    Hoeffding, W. (1963). Probability inequalities for sums of bounded random variables.
    *Journal of the American Statistical Association* 58(301), 13-30.

    Examples
    --------
    >>> res = sample_size(0.45, 0.05, method="connor")
    >>> round(res.n_connor, 4), res.n
    (22.0113, 23)
    >>> res = sample_size(difference=0.2, discordance=0.8, power=0.9)
    >>> res.n_first <= res.n
    True
    """
    if margin is not None:
        from mcnemar.planning import _margin

        return _margin._sample_size(
            lambda: one_setting(p10, p01, difference, discordance, table), margin=margin,
            power=power, alpha=alpha, alternative=alternative, method=method,
        )
    method = _check_choice(method, "method", _METHODS)
    alternative = _check_choice(alternative, "alternative", _ALTERNATIVES)
    alpha = _check_open_unit(alpha, "alpha")
    target = _check_open_unit(power, "power")
    a, b = one_setting(p10, p01, difference, discordance, table)
    psi = a + b
    # The difference the test is to detect, in the direction of the alternative.
    delta = abs(a - b) if alternative == "two-sided" else (a - b if alternative == "greater"
                                                           else b - a)
    if psi <= 0.0 or delta <= 0.0:
        if psi <= 0.0:
            why = "p10 + p01 = 0: the systems never disagree, so the test never rejects"
        elif a == b:
            why = f"p10 = p01 = {a:g}: there is no difference to detect"
        else:
            better = "A" if a > b else "B"
            why = (
                f"the difference favours {better} (p10 = {a:g}, p01 = {b:g}) but "
                f"alternative={alternative!r} looks for the other direction"
            )
        raise McNemarError(f"no sample size reaches power {target:g}: {why}")
    if target <= alpha and method != "connor":
        raise McNemarError(
            f"power must exceed alpha (the rejection rate with no difference); got "
            f"power = {target:g}, alpha = {alpha:g}"
        )
    n_connor = _connor_n(delta, psi, target, alpha, alternative)
    if method == "connor":
        n_int = max(1, math.ceil(n_connor * (1.0 - 1e-12)))
        pw = float(
            _connor_power(np.array([float(n_int)]), np.array([a]), np.array([b]), alpha,
                          alternative)[0]
        )
        return SampleSizeResult(
            n=n_int, n_first=n_int, power=pw, power_first=pw, target_power=target,
            n_connor=n_connor, p10=a, p01=b, alpha=alpha, alternative=alternative,
            method=method,
        )
    _, theta_arr, theta_c_arr = _orient(np.array(a), np.array(b), alternative)
    theta, theta_c = float(theta_arr), float(theta_c_arr)
    if alternative == "two-sided" and theta < 0.5:
        theta, theta_c = theta_c, theta
    n_stable, n_first, p_stable, p_first = _search_sample_size(
        theta, theta_c, psi, target, alpha, alternative, method
    )
    return SampleSizeResult(
        n=n_stable, n_first=n_first, power=p_stable, power_first=p_first, target_power=target,
        n_connor=n_connor, p10=a, p01=b, alpha=alpha, alternative=alternative, method=method,
    )


