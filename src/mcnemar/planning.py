"""Planning a paired comparison: power, sample size and the minimum detectable effect.

Contents
--------
:func:`power`
    probability that McNemar's test rejects, for ``n`` items and discordant probabilities
    ``p10`` (A right, B wrong) and ``p01`` (A wrong, B right); vectorized over arrays.
:func:`sample_size`
    the number of items needed for a target power. For the exact tests it reports both the
    first ``n`` that reaches the target and the smallest ``n`` from which the power never drops
    below it again (exact power is saw-toothed in ``n``).
:func:`minimum_detectable_effect`
    the smallest accuracy difference the test detects with the target power, given ``n`` and the
    discordance rate; what a report quotes so that a non-significant result is read honestly.
:func:`discordant_probabilities`
    converts an accuracy difference and a discordance rate into ``(p10, p01)``.
:class:`PowerResult`, :class:`SampleSizeResult`, :class:`MinimumDetectableEffectResult`
    the frozen result objects (``to_dict()``, ``to_markdown()``, ``str()``).

How the exact power is computed
-------------------------------
Conditional on ``m`` discordant items, the number favouring A is ``X ~ Bin(m, theta)`` with
``theta = p10 / (p10 + p01)``; the discordant count itself is ``M ~ Bin(n, psi)`` with
``psi = p10 + p01``. Every test of this package rejects when ``X`` falls in a region
``{X <= j(m)} U {X >= m - j(m)}`` (two-sided) or one of its halves (one-sided), where ``j(m)`` is
the largest count whose p-value is ``<= alpha`` under ``theta = 1/2``. So

    power = sum_m Bin(m; n, psi) * P(X in region(m) | m, theta),

a finite sum, vectorized over ``m`` (no simulation). The sum over ``m`` is truncated to the
window where ``Bin(n, psi)`` carries mass (Bernstein's inequality bounds what is left out by
``1e-15``), so one evaluation costs ``O(sqrt(n))`` operations, not ``O(n)``.

Within the window, consecutive ``m`` differ by one item, and ``j(m)`` rises by 0 or 1 per step.
So the tail probabilities follow a two-term recurrence (each one is the previous plus or minus
one binomial probability), restarted from an exact regularized incomplete beta value every 256
steps; binomial probabilities come from Loader's (2000) saddle-point formula, accurate to
~1e-15 for any ``n``. This keeps the sums accurate to ~1e-14 while costing a few array
operations per ``m`` (an incomplete beta function costs up to microseconds each for large
``m``). ``j(m)`` is found the same way along a normal-approximation guess and checked against
the exact criterion, with a vectorized bisection on incomplete beta values wherever the guess
is off or the criterion is within 1e-9 of ``alpha``.

References: Loader, C. (2000). Fast and accurate computation of binomial probabilities.
Technical report, Bell Labs. Bernstein's inequality as in Boucheron, Lugosi & Massart (2013),
*Concentration Inequalities*, Oxford University Press, section 2.8.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
from scipy import special

from mcnemar.errors import McNemarError

if TYPE_CHECKING:
    from mcnemar.margin_planning import MarginPowerResult, MarginSampleSizeResult

__all__ = [
    "MinimumDetectableEffectResult",
    "PowerResult",
    "SampleSizeResult",
    "discordant_probabilities",
    "minimum_detectable_effect",
    "power",
    "sample_size",
]

FloatArray = npt.NDArray[np.float64]

_METHODS = ("exact", "midp", "asymptotic", "connor")
_ALTERNATIVES = ("two-sided", "greater", "less")
_METHOD_NAMES = {
    "exact": "exact conditional McNemar test",
    "midp": "mid-p McNemar test",
    "asymptotic": "asymptotic McNemar test (chi-square, no continuity correction)",
    "connor": "normal approximation of Connor (1987)",
}
_ALTERNATIVE_WORDS = {
    "two-sided": "two-sided",
    "greater": "one-sided, A better",
    "less": "one-sided, B better",
}

# Probability of Bin(n, psi) left outside the summation window, on each side.
_TAIL_EPS = 5e-16
_TAIL_LOG = math.log(1.0 / _TAIL_EPS)
# Slack when comparing a computed power with the target (floating-point sums of ~1e4 terms).
_POWER_SLACK = 1e-12
# The sample-size search tabulates the conditional power for m = 0..M; this caps M (memory).
_MAX_DISCORDANT = 4_000_000
# Upper bound on the (element, m) pairs evaluated at once when scanning many n.
_CHUNK_PAIRS = 1 << 18
_LARGEST_BELOW_ONE = float(np.nextafter(1.0, 0.0))


# --------------------------------------------------------------------------------------------
# validation


def _check_choice(value: Any, argname: str, valid: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in valid:
        choices = ", ".join(repr(v) for v in valid)
        raise McNemarError(f"{argname} must be one of {choices}; got {value!r}")
    return value


def _check_open_unit(value: Any, argname: str) -> float:
    """A scalar strictly between 0 and 1 (alpha, target power)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise McNemarError(f"{argname} must be a number strictly between 0 and 1; got {value!r}")
    v = float(value)
    if not 0.0 < v < 1.0:
        raise McNemarError(f"{argname} must be strictly between 0 and 1; got {value!r}")
    return v


def _as_float_array(value: Any, argname: str, valid: str) -> FloatArray:
    if isinstance(value, bool) or value is None:
        raise McNemarError(f"{argname} must be {valid}; got {value!r}")
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        raise McNemarError(f"{argname} must be {valid}; got {value!r}") from None
    if arr.dtype == np.bool_ or arr.dtype.kind not in "iuf":
        raise McNemarError(f"{argname} must be {valid}; got {value!r}")
    out: FloatArray = arr.astype(np.float64)
    if out.size == 0:
        raise McNemarError(f"{argname} must be {valid}; got an empty array")
    return out


def _first_bad(arr: FloatArray, bad: npt.NDArray[np.bool_]) -> float:
    return float(arr[bad].flat[0])


def _check_probabilities(value: Any, argname: str) -> FloatArray:
    valid = "a probability between 0 and 1 (or an array of them)"
    arr = _as_float_array(value, argname, valid)
    bad = ~((arr >= 0.0) & (arr <= 1.0))
    if bad.any():
        raise McNemarError(f"{argname} must be {valid}; got {_first_bad(arr, bad)!r}")
    return arr


def _check_n(value: Any, argname: str = "n") -> FloatArray:
    valid = "a positive whole number of items (or an array of them)"
    arr = _as_float_array(value, argname, valid)
    bad = ~((arr >= 1.0) & (arr == np.floor(arr)) & (arr <= 2.0**52))
    if bad.any():
        raise McNemarError(f"{argname} must be {valid}; got {_first_bad(arr, bad)!r}")
    return arr


def _table_probabilities(table: Any) -> tuple[float, float]:
    """p10 = b/N and p01 = c/N estimated from a pilot table (duck-typed a, b, c, d)."""
    cells = {}
    for name in ("a", "b", "c", "d"):
        if not hasattr(table, name):
            raise McNemarError(
                f"table must be a PairedTable (an object with cells a, b, c, d); "
                f"got {type(table).__name__} without attribute {name!r}"
            )
        cells[name] = getattr(table, name)
    if cells["a"] is None or cells["d"] is None:
        raise McNemarError(
            "table needs all four cells (a and d too) to estimate p10 = b/N and p01 = c/N from "
            "a pilot; got a or d unknown. Give p10 and p01 (or difference and discordance) instead"
        )
    values = {}
    for name, value in cells.items():
        if np.ndim(value) != 0:
            raise McNemarError(
                f"table must hold one pilot table (scalar cells); cell {name} is an array of "
                f"shape {np.shape(value)}"
            )
        v = float(value)
        if not (v >= 0.0 and v == math.floor(v)):
            raise McNemarError(f"table cell {name} must be a whole count >= 0; got {value!r}")
        values[name] = v
    total = values["a"] + values["b"] + values["c"] + values["d"]
    if total == 0:
        raise McNemarError("table is empty (a + b + c + d = 0); a pilot needs at least one item")
    return values["b"] / total, values["c"] / total


def discordant_probabilities(difference: Any, discordance: Any) -> tuple[Any, Any]:
    r"""Convert an accuracy difference and a discordance rate to ``(p10, p01)``.

    .. math:: p_{10} = (\psi + \delta)/2, \qquad p_{01} = (\psi - \delta)/2,

    with :math:`\delta = p_{10} - p_{01}` = accuracy(A) - accuracy(B) and
    :math:`\psi = p_{10} + p_{01}` the probability that the systems disagree on an item.

    Parameters
    ----------
    difference : float or array_like
        Accuracy(A) - accuracy(B), in ``[-1, 1]``.
    discordance : float or array_like
        Probability that exactly one system is right, in ``[0, 1]``; at least ``|difference|``.

    Returns
    -------
    p10, p01 : float or ndarray
        Floats for scalar input, arrays otherwise.

    Examples
    --------
    >>> discordant_probabilities(0.02, 0.10)
    (0.06, 0.04)
    """
    delta = _as_float_array(difference, "difference", "a number between -1 and 1")
    psi = _check_probabilities(discordance, "discordance")
    bad = ~((delta >= -1.0) & (delta <= 1.0))
    if bad.any():
        raise McNemarError(f"difference must be between -1 and 1; got {_first_bad(delta, bad)!r}")
    delta, psi = np.broadcast_arrays(delta, psi)
    bad = np.abs(delta) > psi * (1.0 + 1e-12)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise McNemarError(
            f"difference {float(delta.flat[i])!r} is impossible with discordance "
            f"{float(psi.flat[i])!r}: "
            "|difference| can be at most the discordance (the accuracy gap comes only from "
            "items where the systems disagree)"
        )
    p10 = np.clip((psi + delta) / 2.0, 0.0, 1.0)
    p01 = np.clip((psi - delta) / 2.0, 0.0, 1.0)
    if p10.ndim == 0:
        return round(float(p10), 15), round(float(p01), 15)
    return p10, p01


def _resolve_probabilities(
    p10: Any, p01: Any, difference: Any, discordance: Any, table: Any
) -> tuple[FloatArray, FloatArray]:
    given = {
        "p10/p01": p10 is not None or p01 is not None,
        "difference/discordance": difference is not None or discordance is not None,
        "table": table is not None,
    }
    chosen = [k for k, v in given.items() if v]
    if len(chosen) != 1:
        raise McNemarError(
            "give exactly one of: p10 and p01; difference and discordance; or a pilot table= "
            f"(got {' and '.join(chosen) if chosen else 'none of them'})"
        )
    if table is not None:
        b, c = _table_probabilities(table)
        return np.asarray(b, dtype=np.float64), np.asarray(c, dtype=np.float64)
    if difference is not None or discordance is not None:
        if difference is None or discordance is None:
            missing = "difference" if difference is None else "discordance"
            raise McNemarError(f"difference and discordance go together; {missing} is missing")
        q10, q01 = discordant_probabilities(difference, discordance)
        return np.asarray(q10, dtype=np.float64), np.asarray(q01, dtype=np.float64)
    if p10 is None or p01 is None:
        missing = "p10" if p10 is None else "p01"
        raise McNemarError(f"p10 and p01 go together; {missing} is missing")
    a = _check_probabilities(p10, "p10")
    b_ = _check_probabilities(p01, "p01")
    a, b_ = np.broadcast_arrays(a, b_)
    total = a + b_
    bad = total > 1.0 + 1e-12
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise McNemarError(
            f"p10 + p01 must be at most 1 (they are probabilities of two exclusive cells); got "
            f"p10 = {float(a.flat[i])!r} and p01 = {float(b_.flat[i])!r}"
        )
    return a.astype(np.float64), b_.astype(np.float64)


# --------------------------------------------------------------------------------------------
# binomial machinery


def _binom_sf(k: Any, m: Any, p: Any) -> FloatArray:
    """P(X >= k) for X ~ Bin(m, p), vectorized; k and m whole numbers stored as floats.

    Uses I_p(k, m - k + 1), accurate to a few ulps, unlike ``bdtrc`` (about 1e-12 relative),
    which also fails for m >= 2**31.
    """
    k_, m_, p_ = np.broadcast_arrays(
        np.asarray(k, np.float64), np.asarray(m, np.float64), np.asarray(p, np.float64)
    )
    inside = (k_ >= 1.0) & (k_ <= m_)
    a = np.where(inside, k_, 1.0)
    b = np.where(inside, m_ - k_ + 1.0, 1.0)
    out = special.betainc(a, b, p_)
    out = np.where(k_ <= 0.0, 1.0, np.where(k_ > m_, 0.0, out))
    result: FloatArray = np.asarray(out, dtype=np.float64)
    return result


# Stirling-series coefficients of log(n!) - log(sqrt(2 pi n) (n/e)^n) (Loader 2000).
_S0, _S1, _S2, _S3, _S4 = 1 / 12, 1 / 360, 1 / 1260, 1 / 1680, 1 / 1188
_SMALL_N = np.arange(16, dtype=np.float64)
with np.errstate(divide="ignore", invalid="ignore"):
    _STIRLERR_SMALL = np.where(
        _SMALL_N > 0,
        special.gammaln(_SMALL_N + 1)
        - (_SMALL_N + 0.5) * np.log(_SMALL_N)
        + _SMALL_N
        - 0.5 * math.log(2 * math.pi),
        0.0,
    )


def _stirlerr(n: FloatArray) -> FloatArray:
    """log(n!) - log(sqrt(2 pi n) (n/e)^n): a table below 16, the Stirling series above."""
    big = np.maximum(n, 16.0)
    nn = big * big
    series = (_S0 - (_S1 - (_S2 - (_S3 - _S4 / nn) / nn) / nn) / nn) / big
    small = _STIRLERR_SMALL[np.clip(n, 0, 15).astype(np.intp)]
    out: FloatArray = np.where(n < 16, small, series)
    return out


def _bd0(x: FloatArray, mu: FloatArray) -> FloatArray:
    """x log(x/mu) + mu - x without cancellation when x is close to mu (Loader 2000)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        direct = x * np.log(x / mu) + mu - x
        d = x - mu
        v = d / (x + mu)
    near = np.abs(d) < 0.1 * (x + mu)
    if near.any():
        v = np.where(near, v, 0.0)
        v2 = v * v
        s = d * v
        term = 2.0 * x * v
        # |v| < 0.1: term i is v^(2i) relative to the first, so stop once that is below 1e-17
        largest = float(v2.max())
        terms = 1 if largest <= 0 else min(9, max(1, math.ceil(-17.0 / math.log10(largest))))
        for i in range(1, terms + 1):
            term = term * v2
            s = s + term / (2 * i + 1)
        direct = np.where(near, s, direct)
    return direct


def _log_pmf(x: Any, n: Any, p: Any, q: Any) -> FloatArray:
    """log P(X = x) for X ~ Bin(n, p), q = 1 - p given separately; vectorized.

    Loader's (2000) saddle-point form, accurate to about 1e-15 relative for any n (the
    log-gamma form loses about log10(n) digits):
    log p(x) = stirlerr(n) - stirlerr(x) - stirlerr(n - x) - bd0(x, np) - bd0(n - x, nq)
               - log(2 pi x (n - x) / n) / 2.
    """
    x_, n_, p_, q_ = np.broadcast_arrays(
        np.asarray(x, np.float64), np.asarray(n, np.float64),
        np.asarray(p, np.float64), np.asarray(q, np.float64),
    )
    interior = (x_ > 0) & (x_ < n_) & (p_ > 0) & (q_ > 0)
    xi = np.where(interior, x_, 1.0)
    ni = np.where(interior, n_, 2.0)
    pi = np.where(interior, p_, 0.5)
    qi = np.where(interior, q_, 0.5)
    with np.errstate(divide="ignore", invalid="ignore"):
        body = (
            _stirlerr(ni) - _stirlerr(xi) - _stirlerr(ni - xi)
            - _bd0(xi, ni * pi) - _bd0(ni - xi, ni * qi)
            - 0.5 * np.log(2.0 * math.pi * xi * (ni - xi) / ni)
        )
        log_p = np.where(p_ < 0.5, np.log(p_), np.log1p(-q_))
        log_q = np.where(q_ < 0.5, np.log(q_), np.log1p(-p_))
        at_zero = np.where(n_ > 0, n_ * log_q, 0.0)
        at_n = np.where(n_ > 0, n_ * log_p, 0.0)
    out = np.where(interior, body, -np.inf)
    out = np.where((x_ == 0) & (q_ > 0), at_zero, out)
    out = np.where((x_ == n_) & (p_ > 0), at_n, out)
    out = np.where((x_ == 0) & (n_ == 0), 0.0, out)
    out = np.where((x_ < 0) | (x_ > n_), -np.inf, out)
    result: FloatArray = out
    return result


# Longest stretch of the recurrence between two exact incomplete-beta anchors.
_ANCHOR_EVERY = 256


def _path_sf(
    m: FloatArray, k: FloatArray, p: FloatArray, q: FloatArray, starts: npt.NDArray[np.bool_]
) -> FloatArray:
    """P(Bin(m_i, p_i) >= k_i) along runs of consecutive m whose threshold k rises by 0 or 1.

    Moving from m to m + 1 items,
        P(X' >= k) = P(X >= k) + p P(X = k - 1)      (threshold kept)
        P(X' >= k + 1) = P(X >= k) - q P(X = k)      (threshold raised),
    so along a run each value is the previous one plus one binomial probability. Runs start
    from an exact incomplete-beta value, restarted every _ANCHOR_EVERY steps and wherever the
    step is not of the two kinds above (``starts`` marks where a new run begins). The result
    is accurate to ~1e-14 absolute at the cost of one pmf per value instead of an incomplete
    beta function (whose cost grows with m).
    """
    size = m.size
    if size == 0:
        return np.zeros(0)
    anchor = starts.copy()
    anchor[0] = True
    step_k = np.diff(k, prepend=k[0])
    step_m = np.diff(m, prepend=m[0] - 1.0)
    anchor |= (step_m != 1.0) | ((step_k != 0.0) & (step_k != 1.0))
    pos = np.arange(size)
    last = np.maximum.accumulate(np.where(anchor, pos, 0))
    anchor |= (pos - last) % _ANCHOR_EVERY == 0
    prev = np.maximum(pos - 1, 0)
    m_prev, k_prev = m[prev], k[prev]
    kept = step_k == 0.0
    x = np.where(kept, k_prev - 1.0, k_prev)
    log_coef = np.where(kept, _safe_log(p), _safe_log(q))
    delta = np.exp(log_coef + _log_pmf(x, m_prev, p, q))
    delta = np.where(kept, delta, -delta)
    idx = np.flatnonzero(anchor)
    delta[idx] = 0.0
    # restart the running sum at every anchor: subtract the previous block's total there
    block_sums = np.add.reduceat(delta, idx)
    delta[idx[1:]] = -block_sums[:-1]
    running = np.cumsum(delta)
    exact = _binom_sf(k[idx], m[idx], p[idx] if np.ndim(p) else p)
    block = np.cumsum(anchor) - 1
    out: FloatArray = np.clip(exact[block] + running, 0.0, 1.0)
    return out


def _safe_log(x: Any) -> FloatArray:
    with np.errstate(divide="ignore"):
        out: FloatArray = np.log(np.asarray(x, np.float64))
    return out


def _runs(m: FloatArray) -> npt.NDArray[np.bool_]:
    """True where a sorted array of counts does not continue the previous one by +1."""
    starts = np.ones(m.size, dtype=bool)
    starts[1:] = np.diff(m) != 1.0
    return starts


def _critical_statistic(j: FloatArray, m: FloatArray, method: str) -> FloatArray:
    """One-sided null p-value of observing j (or fewer) for A out of m discordant items.

    The rejection rule of every test is "this value <= tail alpha" (tail alpha = alpha/2 for
    two-sided tests, whose regions are symmetric because theta = 1/2 under H0). Computed
    directly with the incomplete beta function (the reference the fast path is checked by).
    """
    if method == "exact":
        return _binom_sf(m - j, m, 0.5)
    if method == "midp":
        return 0.5 * (_binom_sf(m - j, m, 0.5) + _binom_sf(m - j + 1.0, m, 0.5))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (2.0 * j - m) / np.sqrt(m)
    out: FloatArray = np.where(m > 0, special.ndtr(z), 1.0)
    return out


def _critical_bisect(m: FloatArray, tail_alpha: float, method: str) -> FloatArray:
    """Largest j in {-1, ..., m} with criterion <= tail_alpha, by vectorized bisection."""
    guess = np.floor(0.5 * m + 0.5 * special.ndtri(tail_alpha) * np.sqrt(m))
    lo = np.clip(guess - 3.0, -1.0, m)
    hi = np.clip(guess + 4.0, -1.0, m + 1.0)
    # invariant: crit(lo) <= tail_alpha (lo = -1 is the empty region), crit(hi) > tail_alpha
    # (hi = m + 1 stands for "beyond every count"); a failed guess widens to [-1, m + 1].
    check = lo >= 0.0
    if check.any():
        ok = _critical_statistic(lo[check], m[check], method) <= tail_alpha
        lo[np.flatnonzero(check)[~ok]] = -1.0
    check = hi <= m
    if check.any():
        ok = _critical_statistic(hi[check], m[check], method) > tail_alpha
        hi[np.flatnonzero(check)[~ok]] = m[check][~ok] + 1.0
    hi = np.maximum(hi, lo + 1.0)
    while True:
        active = np.flatnonzero(hi - lo > 1.0)
        if active.size == 0:
            break
        mid = np.floor(0.5 * (lo[active] + hi[active]))
        below = _critical_statistic(mid, m[active], method) <= tail_alpha
        lo[active] = np.where(below, mid, lo[active])
        hi[active] = np.where(below, hi[active], mid)
    return lo


def _critical_lower(m: Any, tail_alpha: float, method: str) -> FloatArray:
    """Largest j in {-1, ..., m} whose one-sided null p-value is <= tail_alpha (-1: none).

    ``m`` must be sorted and unique. For the exact and mid-p tests, the null CDF is evaluated
    along the normal-approximation guess g(m) with :func:`_path_sf` (g rises by 0 or 1 per
    step), at g - 4 .. g + 2 by adding point probabilities; where the answer falls outside that
    band, or a criterion is within 1e-9 (relative) of tail_alpha, the exact bisection of
    :func:`_critical_bisect` decides.
    """
    m_arr = np.asarray(m, dtype=np.float64).ravel()
    if method == "asymptotic" or m_arr.size == 0:
        j = _critical_bisect(m_arr, tail_alpha, method)
    else:
        g = np.clip(np.floor(0.5 * m_arr + 0.5 * special.ndtri(tail_alpha) * np.sqrt(m_arr)),
                    -1.0, m_arr)
        half = np.full(m_arr.shape, 0.5)
        base = g - 4.0
        # F(base) = P(X <= base) = P(X >= m - base) under theta = 1/2
        cdf = [_path_sf(m_arr, m_arr - base, half, half, _runs(m_arr))]
        for off in range(-3, 3):
            cdf.append(cdf[-1] + np.exp(_log_pmf(g + off, m_arr, half, half)))
        cdf_arr = np.minimum(np.stack(cdf), 1.0)  # rows: F(g - 4) .. F(g + 2)
        if method == "exact":
            crit = cdf_arr[1:]
        else:
            crit = 0.5 * (cdf_arr[1:] + cdf_arr[:-1])
        # rows of crit: j = g - 3 .. g + 2
        below = crit <= tail_alpha
        j = g - 3.0 + below.sum(axis=0) - 1.0
        unsure = (
            ~below[0] & (g - 3.0 >= 0.0)  # answer below the band (j = -1 is always allowed)
            | below[-1]  # answer above the band
            | (np.abs(crit - tail_alpha) <= 1e-9 * tail_alpha).any(axis=0)
        )
        j = np.maximum(j, -1.0)
        if unsure.any():
            j[unsure] = _critical_bisect(m_arr[unsure], tail_alpha, method)
    # Convention of the tests: no discordant item means p = 1, never a rejection.
    j[m_arr == 0.0] = -1.0
    out: FloatArray = j.reshape(np.shape(m))
    return out


def _conditional_power(
    m: FloatArray, j: FloatArray, theta: Any, theta_c: Any, two_sided: bool,
    starts: npt.NDArray[np.bool_],
) -> FloatArray:
    """P(reject | m discordant) when A wins each with probability theta (theta_c = 1 - theta).

    Upper region X >= m - j; the lower region X <= j has the probability of m - X >= m - j with
    m - X ~ Bin(m, 1 - theta). theta_c is passed separately so that it keeps full precision.
    ``m`` runs consecutively between the ``starts`` marks.
    """
    th = np.broadcast_to(np.asarray(theta, np.float64), m.shape)
    thc = np.broadcast_to(np.asarray(theta_c, np.float64), m.shape)
    cp = _path_sf(m, m - j, th, thc, starts)
    if two_sided:
        cp = cp + _path_sf(m, m - j, thc, th, starts)
    return cp


def _windows(n: FloatArray, psi: FloatArray) -> tuple[FloatArray, FloatArray]:
    """[lo, hi] range of M ~ Bin(n, psi) outside which each tail holds at most _TAIL_EPS.

    Bernstein: P(M - n psi >= t) <= exp(-t^2 / (2 (sigma^2 + t/3))); solving for the exponent
    L = log(1/eps) gives t = L/3 + sqrt(L^2/9 + 2 L sigma^2), and likewise below the mean.
    """
    var = n * psi * (1.0 - psi)
    t = _TAIL_LOG / 3.0 + np.sqrt(_TAIL_LOG**2 / 9.0 + 2.0 * _TAIL_LOG * var)
    lo = np.clip(np.floor(n * psi - t), 0.0, n)
    hi = np.clip(np.ceil(n * psi + t), 0.0, n)
    return lo, hi


def _flat_weights(
    n: FloatArray, psi: FloatArray
) -> tuple[npt.NDArray[np.intp], FloatArray, FloatArray, npt.NDArray[np.bool_]]:
    """Ragged windows of Bin(n_i, psi_i) laid out flat: (segment, m, P(M = m), run starts)."""
    lo, hi = _windows(n, psi)
    size = (hi - lo + 1.0).astype(np.intp)
    total = int(size.sum())
    seg = np.repeat(np.arange(n.size, dtype=np.intp), size)
    start = np.cumsum(size) - size
    m = lo[seg] + (np.arange(total, dtype=np.float64) - start[seg])
    w = np.exp(_log_pmf(m, n[seg], psi[seg], 1.0 - psi[seg]))
    starts = np.zeros(total, dtype=bool)
    starts[start] = True
    return seg, m, w, starts


def _orient(
    p10: FloatArray, p01: FloatArray, alternative: str
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """psi and (theta, 1 - theta) with the favoured direction of the alternative as 'upper'."""
    psi = p10 + p01
    with np.errstate(divide="ignore", invalid="ignore"):
        theta = np.where(psi > 0, p10 / psi, 0.5)
        theta_c = np.where(psi > 0, p01 / psi, 0.5)
    if alternative == "less":
        theta, theta_c = theta_c, theta
    return psi, theta, theta_c


def _tail_alpha(alpha: float, alternative: str) -> float:
    return alpha / 2.0 if alternative == "two-sided" else alpha


def _regions(m: FloatArray, tail_alpha: float, method: str) -> FloatArray:
    """j(m) for an arbitrary (unsorted, repeated) flat array of m."""
    values, inverse = np.unique(m, return_inverse=True)
    out: FloatArray = _critical_lower(values, tail_alpha, method)[inverse.ravel()]
    return out


def _element_chunks(n: FloatArray, psi: FloatArray) -> list[slice]:
    """Consecutive groups of elements whose windows hold at most _CHUNK_PAIRS values of m.

    Working chunk by chunk keeps the temporaries of the flat layout in cache and bounds the
    memory of a long power curve; a single window larger than the limit is its own chunk.
    """
    lo, hi = _windows(n, psi)
    ends = np.cumsum(hi - lo + 1.0)
    chunks = []
    start = 0
    while start < n.size:
        base = ends[start - 1] if start else 0.0
        stop = int(np.searchsorted(ends, base + _CHUNK_PAIRS, side="right"))
        stop = max(stop, start + 1)
        chunks.append(slice(start, stop))
        start = stop
    return chunks


def _exact_power(
    n: FloatArray, p10: FloatArray, p01: FloatArray, alpha: float, alternative: str, method: str
) -> tuple[FloatArray, FloatArray]:
    """Exact power of the test `method` for flat arrays n, p10, p01; and its directional part.

    The directional part counts only rejections in favour of the system with the larger
    discordant probability (A when p10 = p01); one-sided tests whose alternative points the
    other way get 0.
    """
    psi, theta, theta_c = _orient(p10, p01, alternative)
    upper = np.empty(n.size)
    lower = np.zeros(n.size)
    tail = _tail_alpha(alpha, alternative)
    for part in _element_chunks(n, psi):
        seg, m, w, starts = _flat_weights(n[part], psi[part])
        th, thc = theta[part], theta_c[part]
        size = part.stop - part.start
        values, inverse = np.unique(m, return_inverse=True)
        inverse = inverse.ravel()
        j_values = _critical_lower(values, tail, method)
        if np.all(th == th[0]) and np.all(thc == thc[0]):
            # one setting at many n (a power curve): the conditional power depends on m only,
            # so evaluate it once per distinct m
            m, k, starts = values, values - j_values, _runs(values)
            th = np.full(values.shape, th[0])
            thc = np.full(values.shape, thc[0])
            pick = inverse
        else:
            k = m - j_values[inverse]
            th, thc = th[seg], thc[seg]
            pick = np.arange(seg.size)
        upper[part] = np.bincount(seg, weights=w * _path_sf(m, k, th, thc, starts)[pick],
                                  minlength=size)
        if alternative == "two-sided":
            lower[part] = np.bincount(
                seg, weights=w * _path_sf(m, k, thc, th, starts)[pick], minlength=size
            )
    if alternative == "two-sided":
        total = upper + lower
        directional = np.where(p10 >= p01, upper, lower)
    else:
        total = upper
        favoured = p10 >= p01 if alternative == "greater" else p01 >= p10
        directional = np.where(favoured, upper, 0.0)
    return np.clip(total, 0.0, 1.0), np.clip(directional, 0.0, 1.0)


def _z_alpha(alpha: float, alternative: str) -> float:
    return float(special.ndtri(1.0 - _tail_alpha(alpha, alternative)))


def _connor_power(
    n: FloatArray, p10: FloatArray, p01: FloatArray, alpha: float, alternative: str
) -> FloatArray:
    r"""Connor (1987): Phi((sqrt(n) delta - z sqrt(psi)) / sqrt(psi - delta^2))."""
    psi = p10 + p01
    delta = p10 - p01
    if alternative == "two-sided":
        delta = np.abs(delta)
    elif alternative == "less":
        delta = -delta
    z = _z_alpha(alpha, alternative)
    num = np.sqrt(n) * delta - z * np.sqrt(psi)
    den = np.sqrt(np.maximum(psi - delta**2, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = special.ndtr(num / den)
    # den = 0: every discordant item favours one side (or there are none); the limit is a step.
    out = np.where(den > 0, out, np.where(num > 0, 1.0, 0.0))
    result: FloatArray = np.where(psi > 0, out, 0.0)
    return result


def _connor_n(delta: float, psi: float, target: float, alpha: float, alternative: str) -> float:
    """Connor's (1987) sample size, unrounded; delta > 0 in the direction of the alternative."""
    za = _z_alpha(alpha, alternative)
    zb = float(special.ndtri(target))
    return (za * math.sqrt(psi) + zb * math.sqrt(max(psi - delta**2, 0.0))) ** 2 / delta**2


def _connor_mde(n: FloatArray, psi: FloatArray, target: float, z_a: float) -> FloatArray:
    r"""Solve Connor's power equation for delta: closed form of a quadratic.

    Phi((sqrt(n) d - z_a sqrt(psi)) / sqrt(psi - d^2)) = target squares to
    (n + z_b^2) d^2 - 2 z_a sqrt(n psi) d + (z_a^2 - z_b^2) psi = 0, whose root on the side of
    the target is d = sqrt(psi) (z_a sqrt(n) + z_b sqrt(n + z_b^2 - z_a^2)) / (n + z_b^2).
    """
    zb = float(special.ndtri(target))
    with np.errstate(invalid="ignore"):
        disc = n + zb * zb - z_a * z_a
        d = np.sqrt(psi) * (z_a * np.sqrt(n) + zb * np.sqrt(disc)) / (n + zb * zb)
    ok = (disc >= 0) & (psi > 0) & (d <= psi) & (d >= 0)
    out: FloatArray = np.where(ok, d, np.nan)
    return out


# --------------------------------------------------------------------------------------------
# output helpers


def _py(x: Any) -> Any:
    """Scalar arrays to Python floats; arrays unchanged."""
    arr = np.asarray(x)
    if arr.ndim == 0:
        return float(arr)
    return arr


def _json(x: Any) -> Any:
    """JSON-safe value: NaN/inf -> None, arrays -> nested lists."""
    if x is None or isinstance(x, (str, bool)):
        return x
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, np.ndarray) and x.dtype.kind in "iu":
        return x.tolist()
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim == 0:
        v = float(arr)
        return v if math.isfinite(v) else None
    obj = arr.astype(object)
    obj[~np.isfinite(arr)] = None
    return obj.tolist()


def _points(delta: float) -> str:
    return f"{100.0 * delta:+.2f} points"


def _is_scalar(x: Any) -> bool:
    return np.ndim(x) == 0


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
        return _py(np.asarray(self.p10) - np.asarray(self.p01))

    @property
    def discordance(self) -> Any:
        """Probability that the systems disagree, p10 + p01."""
        return _py(np.asarray(self.p10) + np.asarray(self.p01))

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dictionary (NaN -> None, arrays -> lists)."""
        return {
            "power": _json(self.power),
            "power_directional": _json(self.power_directional),
            "power_connor": _json(self.power_connor),
            "n": _json(self.n),
            "p10": _json(self.p10),
            "p01": _json(self.p01),
            "difference": _json(self.difference),
            "discordance": _json(self.discordance),
            "alpha": self.alpha,
            "alternative": self.alternative,
            "method": self.method,
            "test": _METHOD_NAMES[self.method],
        }

    def _rows(self) -> list[tuple[float, float, float, float, float]]:
        cols = np.broadcast_arrays(
            np.asarray(self.n, np.float64),
            np.asarray(self.p10, np.float64),
            np.asarray(self.p01, np.float64),
            np.asarray(self.power, np.float64),
            np.asarray(self.power_connor, np.float64),
        )
        return list(zip(*(c.ravel().tolist() for c in cols), strict=True))

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
                f"  (difference {_points(p10 - p01)} of accuracy, discordance {p10 + p01:.4g})",
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
        lines = [
            f"**Power** of the {_METHOD_NAMES[self.method]} "
            f"({_ALTERNATIVE_WORDS[self.alternative]}, alpha = {self.alpha:g})",
            "",
            "| n | p10 | p01 | difference | power | Connor approx. |",
            "|---:|---:|---:|---:|---:|---:|",
        ]
        for n, a, b, pw, pc in self._rows():
            lines.append(
                f"| {n:.0f} | {a:.4g} | {b:.4g} | {_points(a - b)} | {pw:.4f} | {pc:.4f} |"
            )
        return "\n".join(lines)


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
        return {
            "n": self.n,
            "n_first": self.n_first,
            "power": _json(self.power),
            "power_first": _json(self.power_first),
            "target_power": self.target_power,
            "n_connor": _json(self.n_connor),
            "p10": self.p10,
            "p01": self.p01,
            "difference": self.difference,
            "discordance": self.discordance,
            "alpha": self.alpha,
            "alternative": self.alternative,
            "method": self.method,
            "test": _METHOD_NAMES[self.method],
        }

    def _sawtooth_note(self) -> str:
        if self.n_first == self.n:
            return ""
        return (
            f"the power first reaches {self.target_power:.0%} at n = {self.n_first} "
            f"({self.power_first:.4f}) but drops below it again for some larger n; "
            f"from n = {self.n} on it stays above"
        )

    def __str__(self) -> str:
        lines = [
            f"Sample size for {self.target_power:.0%} power of the {_METHOD_NAMES[self.method]} "
            f"({_ALTERNATIVE_WORDS[self.alternative]}, alpha = {self.alpha:g}): "
            f"n = {self.n} items (power {self.power:.4f})",
            f"  A right and B wrong with probability {self.p10:.4g}, the reverse {self.p01:.4g} "
            f"(difference {_points(self.difference)}, discordance {self.discordance:.4g})",
        ]
        note = self._sawtooth_note()
        if note:
            lines.append(f"  {note}")
        if self.method != "connor":
            lines.append(f"  normal approximation (Connor 1987): n = {self.n_connor:.1f}")
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """A markdown summary table."""
        rows = [
            ("items needed (stays above target)", f"{self.n}"),
            ("first n reaching the target", f"{self.n_first}"),
            ("power at n", f"{self.power:.4f}"),
            ("target power", f"{self.target_power:g}"),
            ("p10 / p01", f"{self.p10:.4g} / {self.p01:.4g}"),
            ("difference", _points(self.difference)),
            ("Connor (1987) n, unrounded", f"{self.n_connor:.2f}"),
        ]
        out = [
            f"**Sample size** for the {_METHOD_NAMES[self.method]} "
            f"({_ALTERNATIVE_WORDS[self.alternative]}, alpha = {self.alpha:g})",
            "",
            "| quantity | value |",
            "|---|---:|",
        ]
        out.extend(f"| {k} | {v} |" for k, v in rows)
        return "\n".join(out)


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
        return _py((np.asarray(self.discordance) + np.asarray(self.difference)) / 2.0)

    @property
    def p01(self) -> Any:
        """p01 = (discordance - difference)/2 at the detectable difference."""
        return _py((np.asarray(self.discordance) - np.asarray(self.difference)) / 2.0)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dictionary (an undetectable difference is null, with ``note``)."""
        return {
            "difference": _json(self.difference),
            "difference_connor": _json(self.difference_connor),
            "n": _json(self.n),
            "discordance": _json(self.discordance),
            "p10": _json(self.p10),
            "p01": _json(self.p01),
            "power": self.power,
            "alpha": self.alpha,
            "alternative": self.alternative,
            "method": self.method,
            "test": _METHOD_NAMES[self.method],
            "note": self.note or None,
        }

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
            shown = "n/a" if not math.isfinite(d) else _points(d)
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
            ds = _points(d) if math.isfinite(d) else "n/a"
            dcs = _points(dc) if math.isfinite(dc) else "n/a"
            out.append(f"| {n:.0f} | {psi:.4g} | {ds} | {dcs} |")
        if self.note:
            out += ["", f"n/a: {self.note}"]
        return "\n".join(out)


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
        from mcnemar import margin_planning

        return margin_planning.power(
            n, p10, p01, margin=margin, difference=difference, discordance=discordance,
            table=table, alpha=alpha, alternative=alternative, method=method,
        )
    method = _check_choice(method, "method", _METHODS)
    alternative = _check_choice(alternative, "alternative", _ALTERNATIVES)
    alpha = _check_open_unit(alpha, "alpha")
    n_arr = _check_n(n)
    q10, q01 = _resolve_probabilities(p10, p01, difference, discordance, table)
    n_b, a_b, b_b = np.broadcast_arrays(n_arr, q10, q01)
    shape = n_b.shape
    n_f, a_f, b_f = (np.ascontiguousarray(x, dtype=np.float64).ravel() for x in (n_b, a_b, b_b))
    connor = _connor_power(n_f, a_f, b_f, alpha, alternative)
    if method == "connor":
        exact = directional = connor
    else:
        exact, directional = _exact_power(n_f, a_f, b_f, alpha, alternative, method)
    scalar = len(shape) == 0
    return PowerResult(
        power=float(exact[0]) if scalar else exact.reshape(shape),
        power_directional=float(directional[0]) if scalar else directional.reshape(shape),
        power_connor=float(connor[0]) if scalar else connor.reshape(shape),
        n=int(n_f[0]) if scalar else n_b.astype(np.int64),
        p10=float(a_f[0]) if scalar else a_b.copy(),
        p01=float(b_f[0]) if scalar else b_b.copy(),
        alpha=alpha,
        alternative=alternative,
        method=method,
    )


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


def _smallest_n(predicate_value: Any, lo: int, hi: int) -> int:
    """Smallest n in (lo, hi] with predicate true, for a predicate monotone in n (hi true)."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if predicate_value(mid):
            hi = mid
        else:
            lo = mid
    return hi


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

    n_up = max(2, math.ceil(m_max / psi))
    while not lower_ok(n_up):
        n_up *= 2
    n_hi = _smallest_n(lower_ok, 0, n_up)  # every n >= n_hi has power >= target
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
    first = int(np.argmax(meets))
    failing = np.flatnonzero(~meets)
    stable = int(failing[-1]) + 1 if failing.size else 0
    stable = max(stable, first)
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
        from mcnemar import margin_planning

        return margin_planning.sample_size(
            p10, p01, margin=margin, difference=difference, discordance=discordance,
            table=table, power=power, alpha=alpha, alternative=alternative, method=method,
        )
    method = _check_choice(method, "method", _METHODS)
    alternative = _check_choice(alternative, "alternative", _ALTERNATIVES)
    alpha = _check_open_unit(alpha, "alpha")
    target = _check_open_unit(power, "power")
    q10, q01 = _resolve_probabilities(p10, p01, difference, discordance, table)
    if q10.ndim != 0:
        raise McNemarError(
            f"sample_size takes one setting (scalar probabilities); got arrays of shape "
            f"{q10.shape}. Call it once per setting"
        )
    a, b = float(q10), float(q01)
    psi = a + b
    delta = {"two-sided": abs(a - b), "greater": a - b, "less": b - a}[alternative]
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


def _solve_theta(
    n: FloatArray, psi: FloatArray, target: float, alpha: float, alternative: str, method: str,
    start: FloatArray,
) -> tuple[FloatArray, FloatArray]:
    """theta in [1/2, 1] with exact power = target, per element; and the power at theta = 1.

    Safeguarded secant iteration on the probit of the power, vectorized over elements: the
    power increases with theta (the binomial family has monotone likelihood ratio and the
    regions are fixed), and its probit is close to linear in theta, so from Connor's starting
    point a few evaluations reach 1e-13 in theta. A step that leaves the bracket is replaced
    by bisection.
    """
    two_sided = alternative == "two-sided"
    tail = _tail_alpha(alpha, alternative)
    seg, m, w, starts = _flat_weights(n, psi)
    j = _regions(m, tail, method)
    z_target = float(special.ndtri(target))

    def probit_gap(theta: FloatArray) -> FloatArray:
        th = theta[seg]
        cp = _conditional_power(m, j, th, 1.0 - th, two_sided, starts)
        pw = np.bincount(seg, weights=w * cp, minlength=n.size)
        out: FloatArray = special.ndtri(np.clip(pw, 1e-300, _LARGEST_BELOW_ONE)) - z_target
        return out

    # theta = 1: every discordant item favours A, so the test rejects iff its region is not
    # empty (j >= 0); no incomplete beta needed.
    p_top: FloatArray = np.asarray(
        np.bincount(seg, weights=w * (j >= 0), minlength=n.size), dtype=np.float64
    )
    result: FloatArray = np.full(n.shape, np.nan)
    active = p_top >= target
    lo = np.full(n.shape, 0.5)
    hi = np.ones(n.shape)
    if target <= max(0.5, 2.0 * alpha):
        # the test's size itself could meet a low target
        at_null = probit_gap(lo) >= 0
        result[active & at_null] = 0.5
        active &= ~at_null
    if not active.any():
        return result, p_top
    x0 = np.where((start > 0.5) & (start < 1.0), start, 0.75)
    f0 = probit_gap(x0)
    lo = np.where(f0 < 0, x0, lo)
    hi = np.where(f0 < 0, hi, x0)
    x1 = np.where(f0 < 0, x0 + 0.01 * (1.0 - x0), x0 - 0.01 * (x0 - 0.5))
    for _ in range(200):
        f1 = probit_gap(x1)
        lo = np.where(active & (f1 < 0), x1, lo)
        hi = np.where(active & (f1 >= 0), x1, hi)
        with np.errstate(divide="ignore", invalid="ignore"):
            x2 = x1 - f1 * (x1 - x0) / (f1 - f0)
        inside = (x2 >= lo) & (x2 <= hi)
        done = (f1 == 0) | (inside & (np.abs(x2 - x1) <= 1e-13)) | (hi - lo <= 1e-13)
        result = np.where(active & done, np.where(inside, x2, x1), result)
        active &= ~done
        if not active.any():
            break
        x2 = np.where(inside, x2, 0.5 * (lo + hi))
        x0, f0, x1 = x1, f1, np.where(active, x2, x1)
    return result, p_top


def minimum_detectable_effect(
    n: Any,
    discordance: Any,
    *,
    power: float = 0.8,
    alpha: float = 0.05,
    alternative: str = "two-sided",
    method: str = "exact",
) -> MinimumDetectableEffectResult:
    r"""Smallest accuracy difference McNemar's test detects with the target power.

    With :math:`\psi` = ``discordance`` fixed, solves
    :math:`\text{power}(n, p_{10}, p_{01}) = \text{target}` for
    :math:`\delta = p_{10} - p_{01}` with :math:`p_{10} = (\psi + \delta)/2`,
    :math:`p_{01} = (\psi - \delta)/2`, using the exact power of :func:`power`. The power is
    increasing in :math:`|\delta|`, and the rejection regions and binomial weights do not
    depend on :math:`\delta`, so they are computed once; the root is found by a vectorized,
    bracketed secant iteration on the probit of the power (started from Connor's closed form),
    to about 1e-13 in :math:`\theta = p_{10}/\psi`; typically 4 to 6 power evaluations of
    :math:`O(\sqrt{n})` operations each (a few ms for :math:`n = 10^6`).

    Connor's (1987) closed form is returned alongside:

    .. math::

        \delta = \sqrt{\psi}\,
            \frac{z_{1-\alpha/2}\sqrt{n} + z_{1-\beta}\sqrt{n + z_{1-\beta}^2 - z_{1-\alpha/2}^2}}
                 {n + z_{1-\beta}^2}.

    A report quotes this with the observed ``n`` and ``discordance = D/n``: the difference the
    test set had the target power to detect.

    Parameters
    ----------
    n : int or array_like of int
        Number of items.
    discordance : float or array_like
        Probability that the systems disagree on an item, ``p10 + p01`` (e.g. ``D/n``).
    power : float, default 0.8
        Target power.
    alpha : float, default 0.05
    alternative : {"two-sided", "greater", "less"}
        The difference is reported positive except for ``"less"`` (B better), where it is
        negative.
    method : {"exact", "midp", "asymptotic", "connor"}

    Returns
    -------
    MinimumDetectableEffectResult
        ``.difference`` in accuracy units (NaN, with ``.note``, where nothing is detectable:
        no discordance, or too few items even if every discordant item favoured one system).

    References
    ----------
    Connor, R. J. (1987). Sample size for testing differences in proportions for the
    paired-sample design. *Biometrics* 43(1), 207-211.

    Examples
    --------
    >>> res = minimum_detectable_effect(200, 0.1)
    >>> round(res.difference, 3)
    0.064
    >>> print(res)  # doctest: +ELLIPSIS
    With 200 items and discordance 0.1 (expected 20.0 discordant items), the exact ...
    """
    method = _check_choice(method, "method", _METHODS)
    alternative = _check_choice(alternative, "alternative", _ALTERNATIVES)
    alpha = _check_open_unit(alpha, "alpha")
    target = _check_open_unit(power, "power")
    n_arr = _check_n(n)
    psi_arr = _check_probabilities(discordance, "discordance")
    n_b, psi_b = np.broadcast_arrays(n_arr, psi_arr)
    shape = n_b.shape
    n_f = np.ascontiguousarray(n_b, dtype=np.float64).ravel()
    psi_f = np.ascontiguousarray(psi_b, dtype=np.float64).ravel()
    z_a = _z_alpha(alpha, alternative)
    d_connor = _connor_mde(n_f, psi_f, target, z_a)
    notes: list[str] = []
    if method == "connor":
        d = d_connor.copy()
        if np.isnan(d).any():
            notes.append(
                "even a difference equal to the discordance (every discordant item favouring "
                "one system) would not reach the target power"
            )
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            guess = np.nan_to_num(d_connor, nan=0.5) / (2 * psi_f)
        start = 0.5 + np.where(psi_f > 0, guess, 0.25)
        theta, p_top = _solve_theta(n_f, psi_f, target, alpha, alternative, method, start)
        d = psi_f * (2.0 * theta - 1.0)
        undetectable = np.isnan(d) & (psi_f > 0)
        if undetectable.any():
            i = int(np.flatnonzero(undetectable)[0])
            notes.append(
                f"too few discordant items: even if every discordant item favoured one system "
                f"the power would be only {p_top[i]:.3f} (n = {n_f[i]:.0f}, discordance "
                f"{psi_f[i]:.3g})"
            )
    if (psi_f == 0).any():
        d = np.where(psi_f == 0, np.nan, d)
        d_connor = np.where(psi_f == 0, np.nan, d_connor)
        notes.insert(0, "discordance 0: the systems never disagree, so no difference is detectable")
    if alternative == "less":
        d, d_connor = -d, -d_connor
    scalar = len(shape) == 0
    return MinimumDetectableEffectResult(
        difference=float(d[0]) if scalar else d.reshape(shape),
        difference_connor=float(d_connor[0]) if scalar else d_connor.reshape(shape),
        n=int(n_f[0]) if scalar else n_b.astype(np.int64),
        discordance=float(psi_f[0]) if scalar else psi_b.copy(),
        power=target,
        alpha=alpha,
        alternative=alternative,
        method=method,
        note="; ".join(notes),
    )
