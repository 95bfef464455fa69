"""The result objects of the planning functions: :class:`PowerResult`,
:class:`SampleSizeResult` and :class:`MinimumDetectableEffectResult`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from mcnemar._format import format_points, json_fields, scalar_or_array
from mcnemar.planning._validation import _ALTERNATIVE_WORDS, _METHOD_NAMES

# --------------------------------------------------------------------------------------------
# output helpers


def _is_scalar(x: Any) -> bool:
    return np.ndim(x) == 0


def _with_test(result: Any, names: tuple[str, ...]) -> dict[str, Any]:
    """JSON of a result: the named fields, then the test (alpha, alternative, method, name)."""
    return {
        **json_fields(result, *names, "alpha", "alternative", "method"),
        "test": _METHOD_NAMES[result.method],
    }


def _setting_rows(*columns: Any) -> list[tuple[float, ...]]:
    """The columns broadcast together, one tuple of floats per setting."""
    cols = np.broadcast_arrays(*(np.asarray(x, np.float64) for x in columns))
    return list(zip(*(c.ravel().tolist() for c in cols), strict=True))


def _power_markdown(title: str, approximation: str, rows: list[tuple[float, ...]]) -> str:
    """Markdown table of (n, p10, p01, power, approximate power) rows under a bold title."""
    lines = [
        title,
        "",
        f"| n | p10 | p01 | difference | power | {approximation} |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for n, a, b, pw, pa in rows:
        lines.append(
            f"| {n:.0f} | {a:.4g} | {b:.4g} | {format_points(a - b)} | {pw:.4f} | {pa:.4f} |"
        )
    return "\n".join(lines)


def _sample_size_lines(result: Any, test: str, setting: str) -> list[str]:
    """The first lines of a sample size's text: n with its power, then the setting."""
    return [
        f"Sample size for {result.target_power:.0%} power of the {test}: n = {result.n} items "
        f"(power {result.power:.4f})",
        f"  A right and B wrong with probability {result.p10:.4g}, the reverse "
        f"{result.p01:.4g} ({setting})",
    ]


def _sample_size_rows(result: Any, needed: str) -> list[tuple[str, str]]:
    """The first rows of a sample size's markdown table: n, the first n reaching the target
    and the power at n."""
    return [
        (needed, f"{result.n}"),
        ("first n reaching the target", f"{result.n_first}"),
        ("power at n", f"{result.power:.4f}"),
    ]


def _quantity_markdown(title: str, rows: list[tuple[str, str]]) -> str:
    """Markdown table of (quantity, value) rows under a bold title."""
    out = [title, "", "| quantity | value |", "|---|---:|"]
    out.extend(f"| {k} | {v} |" for k, v in rows)
    return "\n".join(out)


# --------------------------------------------------------------------------------------------
# results


@dataclass(frozen=True, slots=True, kw_only=True)
class PowerResult:
    """Power of a McNemar test for given ``n``, ``p10`` and ``p01``.

    Attributes
    ----------
    power : float or ndarray
        Probability that the test rejects H0 (for two-sided tests, in either direction).
    power_directional : float or ndarray
        Probability that it rejects in favour of the truly better system (the one with the
        larger discordant probability; A when ``p10 = p01``): exact2x2's default
        ("non-strict") power. It differs from ``power`` by the tiny chance of a two-sided
        rejection in the wrong direction.
    power_connor : float or ndarray
        Connor's (1987) normal approximation of the same power, for comparison.
    n, p10, p01 : float or ndarray
        Inputs (``n`` as an int for scalar input).
    alpha : float
    alternative : str
    method : str
        ``"exact"``, ``"midp"``, ``"asymptotic"`` (each evaluated exactly) or ``"connor"``.
    """

    power: Any
    power_directional: Any
    power_connor: Any
    n: Any
    p10: Any
    p01: Any
    alpha: float
    alternative: str
    method: str

    @property
    def difference(self) -> Any:
        """Accuracy(A) - accuracy(B) = p10 - p01."""
        return scalar_or_array(np.asarray(self.p10) - np.asarray(self.p01))

    @property
    def discordance(self) -> Any:
        """Probability that the systems disagree, p10 + p01."""
        return scalar_or_array(np.asarray(self.p10) + np.asarray(self.p01))

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dictionary (NaN -> None, arrays -> lists)."""
        return _with_test(self, (
            "power", "power_directional", "power_connor", "n", "p10", "p01", "difference",
            "discordance",
        ))

    def _rows(self) -> list[tuple[float, ...]]:
        return _setting_rows(self.n, self.p10, self.p01, self.power, self.power_connor)

    def __str__(self) -> str:
        head = (
            f"Power of the {_METHOD_NAMES[self.method]}, "
            f"{_ALTERNATIVE_WORDS[self.alternative]}, alpha = {self.alpha:g}"
        )
        if _is_scalar(self.power):
            p10, p01 = float(self.p10), float(self.p01)
            lines = [
                f"{head}: {float(self.power):.4f}",
                f"  {int(self.n)} items; A right and B wrong with probability {p10:.4g}, "
                f"the reverse {p01:.4g}",
                f"  (difference {format_points(p10 - p01)} of accuracy, "
                f"discordance {p10 + p01:.4g})",
            ]
            if self.method != "connor":
                lines.append(
                    f"  normal approximation (Connor 1987): {float(self.power_connor):.4f}"
                )
            return "\n".join(lines)
        rows = self._rows()
        lines = [f"{head}, {len(rows)} settings:", "  n         p10       p01       power   connor"]
        for n, a, b, pw, pc in rows[:40]:
            lines.append(f"  {n:<9.0f} {a:<9.4g} {b:<9.4g} {pw:<7.4f} {pc:.4f}")
        if len(rows) > 40:
            lines.append(f"  ... {len(rows) - 40} more")
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """A markdown table of the setting(s) and the power."""
        title = (
            f"**Power** of the {_METHOD_NAMES[self.method]} "
            f"({_ALTERNATIVE_WORDS[self.alternative]}, alpha = {self.alpha:g})"
        )
        return _power_markdown(title, "Connor approx.", self._rows())


@dataclass(frozen=True, slots=True, kw_only=True)
class SampleSizeResult:
    """Number of items needed for a target power.

    Attributes
    ----------
    n : int
        Smallest ``n`` whose power is at least the target for ``n`` and for every larger ``n``.
    n_first : int
        First ``n`` at which the power reaches the target (``<= n``; it can dip below again,
        because the power of a test of discrete data is saw-toothed in ``n``).
    power : float
        Power at ``n``.
    power_first : float
        Power at ``n_first``.
    target_power : float
    n_connor : float
        Connor's (1987) normal-approximation sample size, unrounded (what MESS reports).
    p10, p01, alpha, alternative, method
        Inputs.
    """

    n: int
    n_first: int
    power: float
    power_first: float
    target_power: float
    n_connor: float
    p10: float
    p01: float
    alpha: float
    alternative: str
    method: str

    @property
    def difference(self) -> float:
        """Accuracy(A) - accuracy(B) = p10 - p01."""
        return self.p10 - self.p01

    @property
    def discordance(self) -> float:
        """p10 + p01."""
        return self.p10 + self.p01

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dictionary."""
        return _with_test(self, (
            "n", "n_first", "power", "power_first", "target_power", "n_connor", "p10", "p01",
            "difference", "discordance",
        ))

    def _sawtooth_note(self) -> str:
        if self.n_first == self.n:
            return ""
        return (
            f"the power first reaches {self.target_power:.0%} at n = {self.n_first} "
            f"({self.power_first:.4f}) but drops below it again for some larger n; "
            f"from n = {self.n} on it stays above"
        )

    def __str__(self) -> str:
        lines = _sample_size_lines(
            self,
            f"{_METHOD_NAMES[self.method]} ({_ALTERNATIVE_WORDS[self.alternative]}, "
            f"alpha = {self.alpha:g})",
            f"difference {format_points(self.difference)}, discordance {self.discordance:.4g}",
        )
        note = self._sawtooth_note()
        if note:
            lines.append(f"  {note}")
        if self.method != "connor":
            lines.append(f"  normal approximation (Connor 1987): n = {self.n_connor:.1f}")
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """A markdown summary table."""
        rows = [
            *_sample_size_rows(self, "items needed (stays above target)"),
            ("target power", f"{self.target_power:g}"),
            ("p10 / p01", f"{self.p10:.4g} / {self.p01:.4g}"),
            ("difference", format_points(self.difference)),
            ("Connor (1987) n, unrounded", f"{self.n_connor:.2f}"),
        ]
        title = (
            f"**Sample size** for the {_METHOD_NAMES[self.method]} "
            f"({_ALTERNATIVE_WORDS[self.alternative]}, alpha = {self.alpha:g})"
        )
        return _quantity_markdown(title, rows)


@dataclass(frozen=True, slots=True, kw_only=True)
class MinimumDetectableEffectResult:
    """Smallest accuracy difference detected with the target power.

    Attributes
    ----------
    difference : float or ndarray
        The minimum detectable difference accuracy(A) - accuracy(B) = p10 - p01 (negative for
        ``alternative="less"``); NaN where no difference is detectable (see ``note``).
    difference_connor : float or ndarray
        The same from Connor's (1987) normal approximation (closed form).
    n, discordance : float or ndarray
        Inputs: number of items and probability ``p10 + p01`` that the systems disagree.
    power : float
        Target power.
    alpha, alternative, method
        Inputs.
    note : str
        Why the difference is undefined where it is NaN (empty when it is defined everywhere).
    """

    difference: Any
    difference_connor: Any
    n: Any
    discordance: Any
    power: float
    alpha: float
    alternative: str
    method: str
    note: str = ""

    @property
    def p10(self) -> Any:
        """p10 = (discordance + difference)/2 at the detectable difference."""
        return scalar_or_array((np.asarray(self.discordance) + np.asarray(self.difference)) / 2.0)

    @property
    def p01(self) -> Any:
        """p01 = (discordance - difference)/2 at the detectable difference."""
        return scalar_or_array((np.asarray(self.discordance) - np.asarray(self.difference)) / 2.0)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dictionary (an undetectable difference is null, with ``note``)."""
        fields = ("difference", "difference_connor", "n", "discordance", "p10", "p01", "power")
        return {**_with_test(self, fields), "note": self.note or None}

    def __str__(self) -> str:
        test = f"{_METHOD_NAMES[self.method]} ({_ALTERNATIVE_WORDS[self.alternative]}, " + (
            f"alpha = {self.alpha:g})"
        )
        if _is_scalar(self.difference):
            d = float(self.difference)
            n, psi = int(self.n), float(self.discordance)
            if not math.isfinite(d):
                return (
                    f"With {n} items and discordance {psi:.3g}, no difference is detectable "
                    f"with {self.power:.0%} power by the {test}: {self.note}"
                )
            return (
                f"With {n} items and discordance {psi:.3g} (expected {n * psi:.1f} discordant "
                f"items), the {test} has {self.power:.0%} power to detect an accuracy "
                f"difference of {abs(d) * 100:.2f} points or more"
                + (" in B's favour" if self.alternative == "less" else "")
                + "."
            )
        d_arr = np.asarray(self.difference, np.float64).ravel()
        n_arr, psi_arr = np.broadcast_arrays(
            np.asarray(self.n, np.float64), np.asarray(self.discordance, np.float64)
        )
        lines = [f"Minimum detectable difference ({self.power:.0%} power) of the {test}:"]
        lines.append("  n          discordance  difference")
        for n, psi, d in list(zip(n_arr.ravel(), psi_arr.ravel(), d_arr, strict=True))[:40]:
            shown = "n/a" if not math.isfinite(d) else format_points(d)
            lines.append(f"  {n:<10.0f} {psi:<12.4g} {shown}")
        if d_arr.size > 40:
            lines.append(f"  ... {d_arr.size - 40} more")
        if self.note:
            lines.append(f"  n/a: {self.note}")
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """A markdown table of the detectable differences."""
        n_arr, psi_arr, d_arr, dc_arr = np.broadcast_arrays(
            np.asarray(self.n, np.float64),
            np.asarray(self.discordance, np.float64),
            np.asarray(self.difference, np.float64),
            np.asarray(self.difference_connor, np.float64),
        )
        out = [
            f"**Minimum detectable difference** ({self.power:.0%} power, "
            f"{_METHOD_NAMES[self.method]}, {_ALTERNATIVE_WORDS[self.alternative]}, "
            f"alpha = {self.alpha:g})",
            "",
            "| n | discordance | difference | Connor approx. |",
            "|---:|---:|---:|---:|",
        ]
        for n, psi, d, dc in zip(
            n_arr.ravel(), psi_arr.ravel(), d_arr.ravel(), dc_arr.ravel(), strict=True
        ):
            ds = format_points(d) if math.isfinite(d) else "n/a"
            dcs = format_points(dc) if math.isfinite(dc) else "n/a"
            out.append(f"| {n:.0f} | {psi:.4g} | {ds} | {dcs} |")
        if self.note:
            out += ["", f"n/a: {self.note}"]
        return "\n".join(out)


