r"""Planning a non-inferiority comparison: power and sample size of Tango's test with a margin.

:func:`mcnemar.planning.power` and :func:`mcnemar.planning.sample_size` delegate here when
given ``margin=``; the test is :func:`mcnemar.margin.noninferiority` (score method):
H0 :math:`\delta \le -\Delta` against H1 :math:`\delta > -\Delta`, rejected when Tango's
:math:`Z(-\Delta) > z_{1-\alpha}`.

Exact power. With discordant probabilities :math:`p_{10}` (A right, B wrong) and
:math:`p_{01}`, the counts (b, c, a + d) of n items are trinomial. For a fixed number
m = b + c of discordant items, b ~ Bin(m, :math:`\theta`), :math:`\theta = p_{10}/\psi`,
:math:`\psi = p_{10} + p_{01}`, and the test rejects exactly when b >= t(m) (Z increases with
b for fixed m), so

.. math:: \text{power} = \sum_m \mathrm{Bin}(m; n, \psi)\, P\{\mathrm{Bin}(m, \theta) \ge t(m)\},

a finite sum over the m where Bin(n, :math:`\psi`) carries mass (the window of
:mod:`mcnemar.planning`: each tail left out holds below 5e-16 by Bernstein's bound), with the
binomial probabilities and tails of :mod:`mcnemar.planning`'s kernel and t(m) found by
bisection.

Normal approximation (the counterpart of Connor's formula for McNemar's test, used by Nam
1997 and Liu et al. 2002 for the score test): the numerator b - c + n :math:`\Delta` has mean
:math:`n(\delta + \Delta)` and variance :math:`n(\psi - \delta^2)`, and the test standardises
it with :math:`\sigma_0^2 = 2\tilde p + \delta_0(1 - \delta_0)`, :math:`\delta_0 = -\Delta`,
where :math:`\tilde p` is the limit of the restricted estimate (Tango's quadratic with b/n,
c/n replaced by :math:`p_{10}, p_{01}`). So

.. math:: \text{power} \approx \Phi\left(\frac{\sqrt n(\delta + \Delta) - z_{1-\alpha}\sigma_0}
          {\sqrt{\psi - \delta^2}}\right), \qquad
          n \approx \frac{(z_{1-\alpha}\sigma_0 + z_{1-\beta}\sqrt{\psi - \delta^2})^2}
          {(\delta + \Delta)^2}.

At :math:`\Delta = 0`, :math:`\sigma_0^2 = \psi` and these are Connor's (1987) one-sided
formulas.

References
----------
Nam J (1997). Establishing equivalence of two treatments and sample size requirements in
matched-pairs design. Biometrics 53:1422-1430.
Liu J-P, Hsueh H-M, Hsieh E, Chen JJ (2002). Tests for equivalence or non-inferiority for
paired binary data. Statistics in Medicine 21:231-245.
Connor RJ (1987). Sample size for testing differences in proportions for the paired-sample
design. Biometrics 43:207-211.
"""

from __future__ import annotations

from typing import Any, cast

from mcnemar.margin import _check_margin
from mcnemar.planning import power as _planning_power
from mcnemar.planning import sample_size as _planning_sample_size
from mcnemar.planning._margin import MarginPowerResult, MarginSampleSizeResult

__all__ = ["MarginPowerResult", "MarginSampleSizeResult", "power", "sample_size"]


def power(n: Any, p10: Any = None, p01: Any = None, *, margin: float,
          **options: Any) -> MarginPowerResult:
    r"""Power of Tango's non-inferiority test: :func:`mcnemar.planning.power` with ``margin``
    required (see the module docstring for the formulas).

    The options are those of :func:`mcnemar.planning.power`; ``alternative`` must be left at
    its default (the test is one-sided) and ``method`` is ``"exact"`` (exact enumeration) or
    ``"connor"`` (the normal approximation alone).

    Examples
    --------
    Equal accuracies, 1-point margin, 10% of items disputed, 2,000 items:

    >>> r = power(2000, difference=0.0, discordance=0.1, margin=0.01)
    >>> round(r.power, 3), round(r.power_approx, 3)
    (0.407, 0.406)
    """
    # Checked here too: margin=None would make planning.power the test without a margin.
    margin = _check_margin(margin)
    return cast(MarginPowerResult, _planning_power(n, p10, p01, margin=margin, **options))


def sample_size(p10: Any = None, p01: Any = None, *, margin: float,
                **options: Any) -> MarginSampleSizeResult:
    r"""Items needed for Tango's non-inferiority test to reach a target power:
    :func:`mcnemar.planning.sample_size` with ``margin`` required.

    ``method="connor"`` rounds up the normal-approximation formula (module docstring). For
    ``"exact"`` the exact power is treated as increasing in n to find, by bisection, the first
    n whose power reaches the target, and then every n within 5% (at least 20, at most 300
    items) on either side is evaluated: ``n_first`` is the first n of that range reaching the
    target, ``n`` the smallest from which every checked n (up to ``n_checked``) stays at or
    above it.

    Examples
    --------
    A candidate 5 points better, 30% of items disputed, a 5-point margin:

    >>> r = sample_size(difference=0.05, discordance=0.3, margin=0.05, power=0.9)
    >>> r.n, round(r.n_approx, 1)
    (256, 260.1)
    """
    margin = _check_margin(margin)
    return cast(MarginSampleSizeResult,
                _planning_sample_size(p10, p01, margin=margin, **options))
