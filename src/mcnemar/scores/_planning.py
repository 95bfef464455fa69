"""Power, sample size and the detectable difference of the paired t test of scores.

With n items, a true mean difference :math:`\\delta` and a standard deviation :math:`\\sigma`
of the per-item differences (or the two systems' standard deviations and their correlation,
:math:`\\sigma^2 = \\sigma_A^2 + \\sigma_B^2 - 2\\rho\\sigma_A\\sigma_B`), the t statistic follows
the noncentral t distribution on n - 1 degrees of freedom with noncentrality
:math:`\\lambda = \\delta\\sqrt n/\\sigma`, so the two-sided power at level :math:`\\alpha` is

.. math::

   P(T'_{n-1,\\lambda} > t_{n-1, 1-\\alpha/2}) + P(T'_{n-1,\\lambda} < -t_{n-1, 1-\\alpha/2})

(both tails: R's ``power.t.test(..., type = "paired", strict = TRUE)``), one tail for a
one-sided alternative. The normal approximation replaces both t distributions by the normal,
:math:`\\Phi(\\lambda - z_{1-\\alpha/2}) + \\Phi(-\\lambda - z_{1-\\alpha/2})`, and gives the
familiar :math:`n = (z_{1-\\alpha/2} + z_{1-\\beta})^2\\sigma^2/\\delta^2` (Miller 2024); it is
always optimistic, most for small n. Both are stated.

Repeated samples of an item enter through :math:`\\sigma`: with k samples per item,
:math:`\\sigma^2 = \\omega^2 + (\\sigma_A^2 + \\sigma_B^2)/k` (see :mod:`mcnemar.scores._epochs`).

References
----------
Student (1908). The probable error of a mean. Biometrika 6:1-25.
Miller E (2024). Adding error bars to evals. arXiv:2411.00640 (section on power analysis).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import optimize, special, stats

from mcnemar import vocabulary
from mcnemar._format import json_fields
from mcnemar.errors import McNemarError
from mcnemar.validation import check_choice, check_count, check_open_unit, check_positive

__all__ = ["TPlan", "t_detectable_difference", "t_power", "t_sample_size"]

#: The largest number of items a sample size search returns.
MAX_ITEMS = 10**9


def _alternative(alternative: Any) -> str:
    return check_choice(alternative, "alternative", vocabulary.ALTERNATIVES,
                        hint="'greater' means A scores higher than B")


def _sd(sd: Any, sd_a: Any, sd_b: Any, correlation: Any) -> float:
    """The standard deviation of the differences, given or from the two SDs and rho."""
    if sd is not None:
        if sd_a is not None or sd_b is not None or correlation is not None:
            raise McNemarError("give sd (of the differences) or sd_a, sd_b and correlation, "
                               "not both", argument="sd")
        return check_positive(sd, "sd", what="a standard deviation")
    if sd_a is None or sd_b is None or correlation is None:
        raise McNemarError("give sd, the standard deviation of the per-item differences A - B, "
                           "or sd_a, sd_b and correlation", argument="sd")
    sa = check_positive(sd_a, "sd_a", what="a standard deviation")
    sb = check_positive(sd_b, "sd_b", what="a standard deviation")
    if isinstance(correlation, bool) or not isinstance(correlation, int | float) \
            or not -1.0 <= float(correlation) <= 1.0:
        raise McNemarError(f"correlation must be a number from -1 to 1, got {correlation!r}",
                           argument="correlation")
    var = sa * sa + sb * sb - 2.0 * float(correlation) * sa * sb
    if var <= 0:
        raise McNemarError("sd_a, sd_b and correlation give differences without variance "
                           "(equal SDs, correlation 1)", argument="correlation")
    return math.sqrt(var)


def _nct_sf(c: float, df: float, nc: float) -> float:
    """P(T' > c) for the noncentral t; where scipy's series gives NaN (few degrees of freedom,
    a large noncentrality) by quadrature of P(Z + nc > c sqrt(V/df)) over V ~ chi2(df)."""
    with warnings.catch_warnings():
        # Where its series does not converge scipy warns and returns NaN: handled below.
        warnings.simplefilter("ignore", RuntimeWarning)
        value = float(stats.nct.sf(c, df, nc))
    if math.isfinite(value):
        return value
    from scipy import integrate

    half = df / 2.0
    log_norm = -math.lgamma(half) - half * math.log(2.0)
    root2 = math.sqrt(2.0)

    def inner(v: float) -> float:
        if v <= 0.0:
            return 0.0
        density = math.exp(log_norm + (half - 1.0) * math.log(v) - v / 2.0)
        return 0.5 * math.erfc(-(nc - c * math.sqrt(v / df)) / root2) * density

    total, _ = integrate.quad(inner, 0.0, math.inf, limit=200)
    return min(1.0, max(0.0, float(total)))


def _power_exact(n: float, delta: float, sd: float, alpha: float, alternative: str) -> float:
    df = n - 1.0
    nc = delta * math.sqrt(n) / sd
    if alternative == "two-sided":
        tc = float(stats.t.ppf(1.0 - alpha / 2.0, df))
        return _nct_sf(tc, df, nc) + _nct_sf(tc, df, -nc)
    tc = float(stats.t.ppf(1.0 - alpha, df))
    if alternative == "greater":
        return _nct_sf(tc, df, nc)
    return _nct_sf(tc, df, -nc)


def _power_normal(n: float, delta: float, sd: float, alpha: float, alternative: str) -> float:
    lam = delta * math.sqrt(n) / sd
    if alternative == "two-sided":
        z = float(special.ndtri(1.0 - alpha / 2.0))
        return float(special.ndtr(lam - z) + special.ndtr(-lam - z))
    z = float(special.ndtri(1.0 - alpha))
    return float(special.ndtr(lam - z) if alternative == "greater" else special.ndtr(-lam - z))


def _power(method: str) -> Any:
    return _power_exact if method == "noncentral-t" else _power_normal


@dataclass(frozen=True, slots=True, kw_only=True)
class TPlan:
    """A plan for the paired t test: its power, the items it needs or what it detects.

    Attributes
    ----------
    question : {"power", "sample_size", "detectable_difference"}
    n : int
        Items.
    difference : float
        The true mean difference A - B (in score units).
    sd : float
        The standard deviation of the per-item differences.
    power : float
    alpha : float
    alternative : str
    method : str
        ``"noncentral-t"`` (exact) or ``"normal"``.
    normal : float
        The same answer by the normal approximation (power, n or difference).
    target_power : float or None
        The power asked for (sample size and detectable difference); ``power`` is the power
        reached at ``n`` for a sample size.
    """

    question: str
    n: int
    difference: float
    sd: float
    power: float
    alpha: float
    alternative: str
    method: str
    normal: float
    target_power: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return json_fields(self, "question", "n", "difference", "sd", "power", "alpha",
                           "alternative", "method", "normal", "target_power")

    def _rows(self) -> list[tuple[str, str]]:
        label = vocabulary.label(vocabulary.SCORE_POWER_METHODS, self.method)
        rows = [("items", f"{self.n}"), ("mean difference A - B", f"{self.difference:.4g}"),
                ("SD of the differences", f"{self.sd:.4g}"), ("power", f"{self.power:.4f}"),
                ("alpha", f"{self.alpha:g} ({self.alternative})"), ("method", label)]
        approx = {"power": f"{self.normal:.4f}", "sample_size": f"{self.normal:.0f}",
                  "detectable_difference": f"{self.normal:.4g}"}[self.question]
        if self.method != "normal":
            rows.append((f"normal approximation ({self.question.replace('_', ' ')})", approx))
        return rows

    def __str__(self) -> str:
        head = {
            "power": f"Power of the paired t test with {self.n} items: {self.power:.4f}",
            "sample_size": f"Items for {self.target_power:.0%} power of the paired t test: "
                           f"n = {self.n}",
            "detectable_difference": f"Smallest mean difference the paired t test detects "
                                     f"with {self.power:.0%} power and {self.n} items: "
                                     f"{self.difference:.4g}",
        }[self.question]
        return "\n".join([head] + [f"  {k}: {v}" for k, v in self._rows()])

    def to_markdown(self) -> str:
        out = ["**Paired t test: " + self.question.replace("_", " ") + "**", "",
               "| quantity | value |", "|---|---:|"]
        out += [f"| {k} | {v} |" for k, v in self._rows()]
        return "\n".join(out) + "\n"


def _common(alpha: Any, alternative: Any, method: Any) -> tuple[float, str, str]:
    return (check_open_unit(alpha, "alpha"), _alternative(alternative),
            check_choice(method, "method", vocabulary.SCORE_POWER_METHODS))


def t_power(n: Any, difference: Any, sd: Any = None, *, sd_a: Any = None, sd_b: Any = None,
            correlation: Any = None, alpha: float = 0.05, alternative: str = "two-sided",
            method: str = "noncentral-t") -> TPlan:
    """The power of the paired t test with ``n`` items (see the module docstring).

    Parameters
    ----------
    n : int
        Items (at least 2).
    difference : float
        The true mean difference A - B, in score units.
    sd : float, optional
        The standard deviation of the per-item differences; or give ``sd_a``, ``sd_b`` and
        their ``correlation``.
    alpha, alternative, method
        Level, direction (``"greater"``: A scores higher) and ``"noncentral-t"`` (exact) or
        ``"normal"``.

    Returns
    -------
    TPlan

    Examples
    --------
    R's ``power.t.test(n = 20, delta = 1, sd = 1, type = "paired", strict = TRUE)``:

    >>> round(t_power(20, 1.0, 1.0).power, 6)
    0.988591
    """
    items = check_count(n, "n", minimum=2)
    a, alt, m = _common(alpha, alternative, method)
    s = _sd(sd, sd_a, sd_b, correlation)
    delta = _finite(difference, "difference")
    value = _power(m)(items, delta, s, a, alt)
    other = _power("normal" if m == "noncentral-t" else "noncentral-t")(items, delta, s, a, alt)
    return TPlan(question="power", n=items, difference=delta, sd=s, power=value, alpha=a,
                 alternative=alt, method=m, normal=other if m == "noncentral-t" else value)


def _finite(value: Any, argument: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.floating) \
            or not math.isfinite(float(value)):
        raise McNemarError(f"{argument} must be a finite number, got {value!r}",
                           argument=argument)
    return float(value)


def _target(power: Any) -> float:
    return check_open_unit(power, "power", example="0.8")


def _sign(alternative: str) -> float:
    return -1.0 if alternative == "less" else 1.0


def t_sample_size(difference: Any, sd: Any = None, *, sd_a: Any = None, sd_b: Any = None,
                  correlation: Any = None, power: float = 0.8, alpha: float = 0.05,
                  alternative: str = "two-sided", method: str = "noncentral-t") -> TPlan:
    """The fewest items for which the paired t test has ``power`` to detect ``difference``.

    Examples
    --------
    R's ``power.t.test(power = 0.8, delta = 0.5, sd = 1, type = "paired")`` gives n = 33.37,
    so 34 items:

    >>> t_sample_size(0.5, 1.0).n
    34
    """
    a, alt, m = _common(alpha, alternative, method)
    s = _sd(sd, sd_a, sd_b, correlation)
    delta = _finite(difference, "difference")
    target = _target(power)
    if delta == 0 or (alt != "two-sided" and delta * _sign(alt) < 0):
        raise McNemarError(f"difference = {delta:g} cannot be detected with the alternative "
                           f"{alt!r}; give a difference in its direction", argument="difference")
    zsum = float(special.ndtri(1.0 - (a / 2.0 if alt == "two-sided" else a))
                 + special.ndtri(target))
    normal_n = max(2, math.ceil((zsum * s / delta) ** 2))
    f = _power(m)
    n = normal_n
    if m == "noncentral-t":
        while f(n, delta, s, a, alt) < target:
            n += 1 if n < 1000 else max(1, n // 1000)
            if n > MAX_ITEMS:
                raise McNemarError(f"more than {MAX_ITEMS} items would be needed")
        while n > 2 and f(n - 1, delta, s, a, alt) >= target:
            n -= 1
    return TPlan(question="sample_size", n=n, difference=delta, sd=s,
                 power=f(n, delta, s, a, alt), alpha=a, alternative=alt, method=m,
                 normal=normal_n, target_power=target)


def t_detectable_difference(n: Any, sd: Any = None, *, sd_a: Any = None, sd_b: Any = None,
                            correlation: Any = None, power: float = 0.8, alpha: float = 0.05,
                            alternative: str = "two-sided", method: str = "noncentral-t") -> TPlan:
    """The smallest mean difference the paired t test with ``n`` items detects with ``power``
    (positive; negative for ``alternative="less"``).

    Examples
    --------
    R's ``power.t.test(n = 50, power = 0.8, sd = 2, type = "paired", strict = TRUE)``:

    >>> round(t_detectable_difference(50, 2.0).difference, 4)
    0.8084
    """
    items = check_count(n, "n", minimum=2)
    a, alt, m = _common(alpha, alternative, method)
    s = _sd(sd, sd_a, sd_b, correlation)
    target = _target(power)
    zsum = float(special.ndtri(1.0 - (a / 2.0 if alt == "two-sided" else a))
                 + special.ndtri(target))
    # With alpha above the target power even a zero difference "has" the power: 0.
    normal = max(0.0, zsum * s / math.sqrt(items))
    sign = _sign(alt)
    value = normal
    f = _power_exact
    if m == "noncentral-t" and f(items, 0.0, s, a, alt) >= target:
        value = 0.0
    elif m == "noncentral-t":
        hi = max(normal, s / math.sqrt(items)) * 2.0
        for _ in range(60):
            if f(items, sign * hi, s, a, alt) >= target:
                break
            hi *= 2.0
        else:
            raise McNemarError(f"no difference reaches power {target:g} with {items} items "
                               f"at alpha = {a:g}", argument="n")
        value = float(optimize.brentq(lambda x: f(items, sign * x, s, a, alt) - target,
                                      0.0, hi, xtol=1e-14 * hi, rtol=1e-13))
    return TPlan(question="detectable_difference", n=items, difference=sign * value, sd=s,
                 power=target, alpha=a, alternative=alt, method=m, normal=sign * normal,
                 target_power=target)


def detectable_from_standard_error(se: float, df: float, power: float, alpha: float,
                                   alternative: str) -> float:
    """The detectable difference of a t test with this standard error and these degrees of
    freedom: :math:`(t_{df, 1-\\alpha/2} + t_{df, power})\\,SE` (one-sided: :math:`1 - \\alpha`),
    the shifted-t approximation used where no per-item SD applies (clusters)."""
    if not (math.isfinite(se) and se > 0 and df >= 1):
        return math.nan
    q = 1.0 - (alpha / 2.0 if alternative == "two-sided" else alpha)
    return float((stats.t.ppf(q, df) + stats.t.ppf(power, df)) * se)
