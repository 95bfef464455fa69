"""Power and sample size of Tango's non-inferiority test: the computations behind
:mod:`mcnemar.margin_planning` (whose docstring has the formulas and references).

:func:`mcnemar.planning.power` and :func:`mcnemar.planning.sample_size` call :func:`_power`
and :func:`_sample_size` here when given ``margin=``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import special

from mcnemar._format import format_points as _points
from mcnemar._format import json_fields
from mcnemar._format import json_value as _json
from mcnemar.errors import McNemarError
from mcnemar.margin import _check_margin, _thresholds, describe_margin
from mcnemar.planning._kernel import (
    _binom_sf,
    _first_and_stable,
    _flat_weights,
    _smallest_n,
)
from mcnemar.planning._results import (
    _power_markdown,
    _quantity_markdown,
    _sample_size_lines,
    _sample_size_rows,
    _setting_rows,
)
from mcnemar.planning._settings import Settings
from mcnemar.planning._validation import _check_open_unit

__all__ = ["MarginPowerResult", "MarginSampleSizeResult"]

FloatArray = NDArray[np.float64]
_TEST = "Tango score test of non-inferiority"
_METHODS = ("exact", "asymptotic", "connor")


def _check(method: Any, alternative: Any, alpha: Any) -> tuple[str, float]:
    if not isinstance(method, str) or method not in _METHODS:
        raise McNemarError(
            "with a margin, method must be 'exact' (the exact power of the score test, also "
            f"accepted as 'asymptotic') or 'connor' (its normal approximation); got {method!r}"
        )
    if alternative not in ("two-sided", "greater"):
        raise McNemarError(
            "with a margin the test is one-sided (H1: A is not worse than B by the margin); "
            f"leave alternative at its default; got {alternative!r}"
        )
    a = _check_open_unit(alpha, "alpha")
    if a >= 0.5:
        raise McNemarError(f"alpha must be below 0.5 for a one-sided test; got {alpha!r}")
    return ("connor" if method == "connor" else "exact"), a


def _sigma0(p10: FloatArray, p01: FloatArray, margin: float) -> FloatArray:
    """sqrt(2 p~ + d0 (1 - d0)) at d0 = -margin, with p~ the limiting restricted estimate."""
    d0 = -margin
    qb = -(p10 + p01) + (2.0 - p10 + p01) * d0
    qc = -p01 * d0 * (1.0 - d0)
    root = np.sqrt(np.maximum(qb * qb - 8.0 * qc, 0.0))
    p_tilde = np.where(qb <= 0, (root - qb) / 4.0, -2.0 * qc / (qb + root))
    out: FloatArray = np.sqrt(np.maximum(2.0 * p_tilde + d0 * (1.0 - d0), 0.0))
    return out


def _approx_power(
    n: FloatArray, p10: FloatArray, p01: FloatArray, margin: float, alpha: float
) -> FloatArray:
    z = float(special.ndtri(1.0 - alpha))
    delta = p10 - p01
    num = np.sqrt(n) * (delta + margin) - z * _sigma0(p10, p01, margin)
    den = np.sqrt(np.maximum(p10 + p01 - delta**2, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = special.ndtr(num / den)
    result: FloatArray = np.where(den > 0, out, np.where(num > 0, 1.0, 0.0))
    return result


def _approx_n(p10: float, p01: float, margin: float, alpha: float, target: float) -> float:
    delta = p10 - p01
    s0 = float(_sigma0(np.array(p10), np.array(p01), margin))
    z_a = float(special.ndtri(1.0 - alpha))
    z_b = float(special.ndtri(target))
    return (z_a * s0 + z_b * math.sqrt(max(p10 + p01 - delta**2, 0.0))) ** 2 / (
        delta + margin
    ) ** 2


def _exact_power_one(n: int, p10: float, p01: float, margin: float, alpha: float) -> float:
    """Exact rejection probability of the score test for one setting (see the module notes)."""
    psi = p10 + p01
    cut = float(np.nextafter(special.ndtri(1.0 - alpha), np.inf))  # reject when Z > z
    if psi <= 0.0:
        # Every item concordant: only the table b = c = 0 occurs.
        t0 = float(_thresholds(np.array([0.0]), float(n), margin, cut)[0])
        return 1.0 if t0 == 0.0 else 0.0
    # The m where Bin(n, psi) carries mass, with their probabilities, as for McNemar's test.
    _, m, weights, _ = _flat_weights(np.array([float(n)]), np.array([psi]))
    t = _thresholds(m, float(n), margin, cut)
    theta = min(1.0, p10 / psi)
    total = float(np.sum(weights * _binom_sf(t, m, theta)))
    return min(1.0, max(0.0, total))


@dataclass(frozen=True, slots=True, kw_only=True)
class _MarginPlan:
    """What the two results share: the setting and the test, as fields, in JSON and in words."""

    p10: Any
    p01: Any
    margin: float
    alpha: float
    method: str

    def _setting_json(self) -> dict[str, Any]:
        return {
            **json_fields(self, "p10", "p01"),
            "difference": _json(np.asarray(self.p10) - np.asarray(self.p01)),
            **json_fields(self, "margin", "alpha"),
            "alternative": "noninferiority",
            "method": self.method,
            "test": _TEST,
        }

    def _conditions(self, one_sided: bool = True) -> str:
        level = "one-sided alpha" if one_sided else "alpha"
        return f"margin {describe_margin(self.margin)}, {level} = {self.alpha:g}"


@dataclass(frozen=True, slots=True, kw_only=True)
class MarginPowerResult(_MarginPlan):
    """Power of the non-inferiority test for ``n`` items.

    Attributes
    ----------
    power : float or ndarray
        Exact rejection probability (``method="exact"``) or the normal approximation.
    power_approx : float or ndarray
        The normal approximation (Nam 1997), for comparison.
    n, p10, p01, margin, alpha, method
        Inputs.
    """

    power: Any
    power_approx: Any
    n: Any

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dictionary."""
        return {**json_fields(self, "power", "power_approx", "n"), **self._setting_json()}

    def _rows(self) -> list[tuple[float, ...]]:
        return _setting_rows(self.n, self.p10, self.p01, self.power, self.power_approx)

    def __str__(self) -> str:
        lines = [f"Power of the {_TEST} ({self._conditions()}):"]
        for n, a, b, pw, pa in self._rows()[:40]:
            lines.append(
                f"  n = {n:.0f}, p10 = {a:.4g}, p01 = {b:.4g} (difference {_points(a - b)}): "
                f"power {pw:.4f}"
                + ("" if self.method == "connor" else f" (normal approximation {pa:.4f})")
            )
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """A markdown table."""
        title = f"**Power** of the {_TEST} ({self._conditions(one_sided=False)})"
        return _power_markdown(title, "normal approx.", self._rows())


@dataclass(frozen=True, slots=True, kw_only=True)
class MarginSampleSizeResult(_MarginPlan):
    """Items needed for a target power of the non-inferiority test.

    Attributes
    ----------
    n : int
        Smallest n from which the exact power stays at or above the target over the checked
        range (up to ``n_checked``).
    n_first : int
        First n reaching the target (the exact power is saw-toothed in n).
    power, power_first : float
        Exact power at ``n`` and ``n_first``.
    n_approx : float
        The normal-approximation sample size, unrounded.
    n_checked : int
        Largest n at which the exact power was evaluated.
    target_power, p10, p01, margin, alpha, method
        Inputs.
    """

    n: int
    n_first: int
    power: float
    power_first: float
    n_approx: float
    n_checked: int
    target_power: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dictionary."""
        return {
            **json_fields(
                self, "n", "n_first", "power", "power_first", "n_approx", "n_checked",
                "target_power",
            ),
            **self._setting_json(),
        }

    def __str__(self) -> str:
        lines = _sample_size_lines(
            self, f"{_TEST} ({self._conditions()})", f"difference {_points(self.p10 - self.p01)}"
        )
        if self.n_first != self.n:
            lines.append(
                f"  the power first reaches the target at n = {self.n_first} "
                f"({self.power_first:.4f}) but dips below it again before n = {self.n}"
            )
        if self.method != "connor":
            lines.append(f"  normal approximation (Nam 1997): n = {self.n_approx:.1f}")
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """A markdown summary table."""
        rows = [
            *_sample_size_rows(self, "items needed"),
            ("margin", describe_margin(self.margin)),
            ("difference", _points(self.p10 - self.p01)),
            ("normal approximation n, unrounded", f"{self.n_approx:.2f}"),
        ]
        return _quantity_markdown(f"**Sample size** for the {_TEST} (alpha = {self.alpha:g})", rows)


def _power(
    settings: Callable[[], Settings], *, margin: float, alpha: float, alternative: str,
    method: str,
) -> MarginPowerResult:
    """:func:`mcnemar.margin_planning.power` once :func:`mcnemar.planning.power` has its
    settings (checked when called, after the options of the margin)."""
    method, alpha = _check(method, alternative, alpha)
    margin = _check_margin(margin)
    s = settings()
    approx = _approx_power(s.n, s.p10, s.p01, margin, alpha)
    if method == "connor":
        exact = approx
    else:
        exact = np.array([
            _exact_power_one(int(k), float(x), float(y), margin, alpha)
            for k, x, y in zip(s.n, s.p10, s.p01, strict=True)
        ])
    return MarginPowerResult(
        power=s.out(exact),
        power_approx=s.out(approx),
        **s.fields(),
        margin=margin,
        alpha=alpha,
        method=method,
    )


def _sample_size(
    setting: Callable[[], tuple[float, float]], *, margin: float, power: float, alpha: float,
    alternative: str, method: str,
) -> MarginSampleSizeResult:
    """:func:`mcnemar.margin_planning.sample_size` once :func:`mcnemar.planning.sample_size`
    has its setting (checked when called, after the options of the margin)."""
    method, alpha = _check(method, alternative, alpha)
    margin = _check_margin(margin)
    target = _check_open_unit(power, "power")
    a, b = setting()
    if a - b + margin <= 0.0:
        raise McNemarError(
            f"no sample size reaches power {target:g}: the difference {_points(a - b)} is at "
            f"or below -margin ({_points(-margin)}), where non-inferiority is false"
        )
    if target <= alpha:
        raise McNemarError(f"power must exceed alpha; got power = {target:g}, alpha = {alpha:g}")
    n_approx = _approx_n(a, b, margin, alpha, target)
    if method == "connor":
        k = max(1, math.ceil(n_approx * (1.0 - 1e-12)))
        pw = float(_approx_power(np.array([float(k)]), np.array([a]), np.array([b]), margin,
                                 alpha)[0])
        return MarginSampleSizeResult(
            n=k, n_first=k, power=pw, power_first=pw, n_approx=n_approx, n_checked=k,
            target_power=target, p10=a, p01=b, margin=margin, alpha=alpha, method=method,
        )

    def exact(k: int) -> float:
        return _exact_power_one(k, a, b, margin, alpha)

    def reaches(k: int) -> bool:
        if k > 2**40:
            raise McNemarError("no sample size below 2**40 items reaches the target power")
        return exact(k) >= target

    hi = _smallest_n(reaches, 0, max(2, math.ceil(n_approx)))
    width = min(300, max(20, hi // 20))
    ns = np.arange(max(1, hi - width), hi + width + 1)
    powers = np.array([exact(int(k)) for k in ns])
    while powers[-1] < target:  # the range must end above the target: extend it
        more = np.arange(ns[-1] + 1, ns[-1] + width + 1)
        ns = np.concatenate([ns, more])
        powers = np.concatenate([powers, [exact(int(k)) for k in more]])
    first, stable = _first_and_stable(powers >= target)
    return MarginSampleSizeResult(
        n=int(ns[stable]), n_first=int(ns[first]), power=float(powers[stable]),
        power_first=float(powers[first]), n_approx=n_approx, n_checked=int(ns[-1]),
        target_power=target, p10=a, p01=b, margin=margin, alpha=alpha, method=method,
    )
