""":func:`power`: the probability that McNemar's test rejects."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcnemar.planning._kernel import _connor_power, _exact_power
from mcnemar.planning._results import PowerResult
from mcnemar.planning._settings import power_settings
from mcnemar.planning._validation import (
    _ALTERNATIVES,
    _METHODS,
    _check_choice,
    _check_open_unit,
)

if TYPE_CHECKING:
    from mcnemar.planning._margin import MarginPowerResult

# --------------------------------------------------------------------------------------------
# public functions


def power(
    n: Any,
    p10: Any = None,
    p01: Any = None,
    *,
    difference: Any = None,
    discordance: Any = None,
    table: Any = None,
    alpha: float = 0.05,
    alternative: str = "two-sided",
    method: str = "exact",
    margin: float | None = None,
) -> PowerResult | MarginPowerResult:
    r"""Power of McNemar's test with ``n`` items.

    With :math:`\psi = p_{10} + p_{01}`, :math:`\theta = p_{10}/\psi` and the rejection
    region :math:`R_m` of the test for :math:`m` discordant items,

    .. math::

        \text{power} = \sum_{m=0}^{n} \binom{n}{m} \psi^m (1-\psi)^{n-m}
                       \sum_{k \in R_m} \binom{m}{k} \theta^k (1-\theta)^{m-k},

    the exact (unconditional) power that exact2x2's ``powerPaired2x2`` and MESS's
    ``power_mcnemar_test(method="exact")`` compute, here vectorized and truncated to the
    window of :math:`m` that carries all but 1e-15 of the binomial mass (see the module
    docstring). :math:`R_m` is the set of counts whose p-value, under the conventions of
    :func:`mcnemar.mcnemar`, is at most ``alpha``; with no discordant item the test never
    rejects. For two-sided tests the power counts rejections in either direction.

    Connor's (1987) normal approximation is returned alongside:

    .. math::

        \text{power} \approx \Phi\left(\frac{\sqrt{n}\,|\delta| - z_{1-\alpha/2}\sqrt{\psi}}
                                          {\sqrt{\psi - \delta^2}}\right),
        \qquad \delta = p_{10} - p_{01}

    (:math:`z_{1-\alpha}` and the signed :math:`\delta` for one-sided tests).

    Parameters
    ----------
    n : int or array_like of int
        Number of items (pairs).
    p10 : float or array_like, optional
        Probability that A is right and B wrong on an item (cell b).
    p01 : float or array_like, optional
        Probability that A is wrong and B right (cell c). ``p10 + p01 <= 1``.
    difference, discordance : float or array_like, optional
        Alternative to ``p10, p01``: accuracy(A) - accuracy(B) and ``p10 + p01``.
    table : PairedTable, optional
        Alternative to ``p10, p01``: a pilot table; ``p10 = b/N``, ``p01 = c/N`` (needs
        ``a`` and ``d``).
    alpha : float, default 0.05
        Significance level (a scalar).
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: H1 is that A is more accurate.
    method : {"exact", "midp", "asymptotic", "connor"}
        The test whose power is computed: exact conditional (binomial), mid-p, asymptotic
        chi-square (its true power, computed exactly), or ``"connor"`` for the approximation
        alone.
    margin : float, optional
        A non-inferiority margin (0.01 = 1 accuracy point): the power of Tango's test that A
        is not worse than B by the margin, computed by
        :func:`mcnemar.margin_planning.power` (``method`` "exact" or "connor").

    Returns
    -------
    PowerResult
        ``.power`` (a float for scalar inputs, an array of the broadcast shape otherwise) and
        ``.power_connor``.

    Raises
    ------
    McNemarError
        For an invalid argument (the message names it and says what is valid).

    References
    ----------
    Connor, R. J. (1987). Sample size for testing differences in proportions for the
    paired-sample design. *Biometrics* 43(1), 207-211.

    Fagerland, M. W., Lydersen, S., Laake, P. (2013). The McNemar test for binary
    matched-pairs data: mid-p and asymptotic are better than exact conditional. *BMC Medical
    Research Methodology* 13, 91.

    Examples
    --------
    >>> res = power(144, 0.45, 0.25, alpha=0.025, alternative="greater")
    >>> round(res.power, 2)
    0.8
    >>> power([50, 100, 200], difference=0.2, discordance=0.8).power.round(3)
    array([0.299, 0.569, 0.876])
    """
    if margin is not None:
        from mcnemar.planning import _margin

        return _margin._power(
            lambda: power_settings(n, p10, p01, difference, discordance, table), margin=margin,
            alpha=alpha, alternative=alternative, method=method,
        )
    method = _check_choice(method, "method", _METHODS)
    alternative = _check_choice(alternative, "alternative", _ALTERNATIVES)
    alpha = _check_open_unit(alpha, "alpha")
    s = power_settings(n, p10, p01, difference, discordance, table)
    connor = _connor_power(s.n, s.p10, s.p01, alpha, alternative)
    if method == "connor":
        exact = directional = connor
    else:
        exact, directional = _exact_power(s.n, s.p10, s.p01, alpha, alternative, method)
    return PowerResult(
        power=s.out(exact),
        power_directional=s.out(directional),
        power_connor=s.out(connor),
        **s.fields(),
        alpha=alpha,
        alternative=alternative,
        method=method,
    )


