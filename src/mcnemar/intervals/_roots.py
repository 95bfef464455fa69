"""Numerical tools shared by the score intervals: a bracketed root finder vectorized over
tables, the larger root of a quadratic, Wilson's score limits, and the marginal proportions,
their Wilson limits and the correlation that the MOVER intervals start from.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mcnemar.intervals._result import FloatArray

# ---------------------------------------------------------------------------------------------
# Numerical tools
# ---------------------------------------------------------------------------------------------

# The limits of the Tango and exact intervals scale as 1/N when b and c are small (1e-13 for
# N = 1e12, below 1e-15 for N = 2**52), so their searches stop on a tolerance relative to the
# limit itself (the bracket's end nearer 0); this absolute part only ends a search for a limit
# at 0 itself, far below any 1/N.
_ROOT_ATOL = 1e-30

#: f(x, idx) evaluates a function at points x for the problems with positions idx.
_Objective = Callable[[FloatArray, NDArray[np.intp]], FloatArray]
#: The same function on Python floats: f(xs, positions), one value per point.
_FloatObjective = Callable[[list[float], list[int]], list[float]]


def _find_root(
    f: _Objective,
    lo: FloatArray,
    hi: FloatArray,
    f_lo: FloatArray,
    f_hi: FloatArray,
    *,
    atol: float,
    rtol: float = 4e-16,
    maxiter: int = 400,
    nearer: bool = False,
    f_floats: _FloatObjective | None = None,
) -> FloatArray:
    """Solve f(x) = 0 for many independent brackets at once.

    Each bracket [lo, hi] must hold a sign change (f_lo and f_hi of opposite signs, or one of
    them zero). The step is the Illinois variant of regula falsi; a bisection step replaces it
    whenever the bracket failed to halve over the previous three steps, so the worst case is a
    small multiple of plain bisection. As in Brent's method no point closer than the tolerance
    to an end of the bracket is evaluated, so once an iterate is that close to the root the
    next one lands on its other side and closes the bracket. Every problem stops on its own
    once its bracket is narrower than ``atol + rtol*|x|``, so an element's result does not
    depend on the others in the array.

    By default ``|x|`` is the larger magnitude of the bracket's ends. With ``nearer=True`` it
    is the smaller one, and 0 while the bracket holds 0: the tolerance is then relative to the
    root itself even when the bracket is still far wider than the root (a limit of 1e-14 in
    a bracket reaching to -1), so a tiny ``atol`` leaves every root ``rtol``-accurate.

    ``f_floats``, if given, is ``f`` on Python floats with the same operations in the same
    order (so the same values); the iteration for a few problems calls it instead of ``f``.
    """
    result = np.where(f_lo == 0, lo, np.where(f_hi == 0, hi, 0.5 * (lo + hi)))
    tight = np.abs(hi - lo) <= atol + rtol * _scale(lo, hi, nearer)
    idx = np.flatnonzero(~((f_lo == 0) | (f_hi == 0) | tight))
    if 0 < idx.size <= _FEW:
        # A few problems (the limits of one table, in a report): the same steps in Python
        # floats, without numpy's cost per call on arrays of a few elements; f is still called
        # once per step for all of them.
        result[idx] = _find_few_roots(
            f, idx, lo[idx].tolist(), hi[idx].tolist(), f_lo[idx].tolist(), f_hi[idx].tolist(),
            atol=atol, rtol=rtol, maxiter=maxiter, nearer=nearer, f_floats=f_floats,
        )
        return result
    a, b = lo[idx].copy(), hi[idx].copy()
    fa, fb = f_lo[idx].copy(), f_hi[idx].copy()
    widths = [np.full(idx.size, np.inf) for _ in range(3)]
    for _ in range(maxiter):
        if idx.size == 0:
            break
        left, right = np.minimum(a, b), np.maximum(a, b)
        width = right - left
        tol = 0.5 * (atol + rtol * _scale(a, b, nearer))
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            secant = b - fb * (b - a) / (fb - fa)
        inside = np.isfinite(secant) & (secant > left) & (secant < right)
        bisect = ~inside | (width > 0.5 * widths[2])
        x = np.where(bisect, 0.5 * (a + b), secant)
        x = np.where(width > 4.0 * tol, np.clip(x, left + tol, right - tol), 0.5 * (a + b))
        fx = f(x, idx)
        flip = np.signbit(fx) != np.signbit(fb)
        # Illinois: an endpoint kept twice has its function value halved, which pulls the
        # next secant towards it and avoids the one-sided crawl of plain regula falsi.
        fa = np.where(flip, fb, np.where(bisect, fa, 0.5 * fa))
        a = np.where(flip, b, a)
        b, fb = x, fx
        widths = [width, widths[0], widths[1]]
        done = (fx == 0) | (np.abs(b - a) <= 2.0 * tol)
        if done.any():
            result[idx[done]] = b[done]
            keep = ~done
            idx, a, b, fa, fb = idx[keep], a[keep], b[keep], fa[keep], fb[keep]
            widths = [w[keep] for w in widths]
    result[idx] = b
    return result


def _find_root_from(
    f: _Objective,
    far: FloatArray,
    near: FloatArray,
    f_far: FloatArray,
    f_near: FloatArray,
    lower: NDArray[np.bool_],
    **options: Any,
) -> FloatArray:
    """:func:`_find_root` for brackets found from an estimate outwards: ``near`` is the end
    next to the estimate, ``far`` the other, below it where ``lower`` (a lower limit) and
    above it elsewhere; ``options`` as for :func:`_find_root`."""
    return _find_root(
        f,
        np.where(lower, far, near),
        np.where(lower, near, far),
        np.where(lower, f_far, f_near),
        np.where(lower, f_near, f_far),
        **options,
    )


#: Up to this many problems, :func:`_find_root` iterates in Python floats.
_FEW = 4


def _scale(a: FloatArray, b: FloatArray, nearer: bool) -> FloatArray:
    """What the relative tolerance of :func:`_find_root` multiplies, per bracket [a, b]."""
    if not nearer:
        return np.maximum(np.abs(a), np.abs(b))
    return np.where(np.signbit(a) == np.signbit(b), np.minimum(np.abs(a), np.abs(b)), 0.0)


def _few_scale(a: float, b: float, nearer: bool) -> float:
    """:func:`_scale` for one bracket, in Python floats."""
    if not nearer:
        return max(abs(a), abs(b))
    if (math.copysign(1.0, a) < 0) == (math.copysign(1.0, b) < 0):
        return min(abs(a), abs(b))
    return 0.0


def _find_few_roots(
    f: _Objective,
    idx: NDArray[np.intp],
    a: list[float],
    b: list[float],
    fa: list[float],
    fb: list[float],
    *,
    atol: float,
    rtol: float,
    maxiter: int,
    nearer: bool,
    f_floats: _FloatObjective | None = None,
) -> list[float]:
    """The iteration of :func:`_find_root` for a few problems: the same IEEE operations in the
    same order on Python floats, problem by problem, so the same roots (the tests compare the
    two); ``f`` is called once per step for the problems still running."""
    k = len(a)
    positions = idx.tolist()
    widths = [(math.inf, math.inf, math.inf)] * k
    active = list(range(k))
    for _ in range(maxiter):
        if not active:
            break
        steps = []
        for i in active:
            left, right = min(a[i], b[i]), max(a[i], b[i])
            width = right - left
            tol = 0.5 * (atol + rtol * _few_scale(a[i], b[i], nearer))
            try:
                secant = b[i] - fb[i] * (b[i] - a[i]) / (fb[i] - fa[i])
            except ZeroDivisionError:
                secant = math.nan  # numpy's x/0 is not finite either: a bisection step
            inside = math.isfinite(secant) and left < secant < right
            bisect = not inside or width > 0.5 * widths[i][2]
            x = 0.5 * (a[i] + b[i]) if bisect else secant
            x = min(max(x, left + tol), right - tol) if width > 4.0 * tol else 0.5 * (a[i] + b[i])
            steps.append((x, bisect, width, tol))
        points = [step[0] for step in steps]
        if f_floats is not None:
            values = f_floats(points, [positions[i] for i in active])
        else:
            values = f(np.array(points), idx[active]).tolist()
        still = []
        for i, (x, bisect, width, tol), fx in zip(active, steps, values, strict=True):
            if (math.copysign(1.0, fx) < 0) != (math.copysign(1.0, fb[i]) < 0):
                fa[i], a[i] = fb[i], b[i]
            elif not bisect:
                fa[i] = 0.5 * fa[i]
            b[i], fb[i] = x, fx
            widths[i] = (width, widths[i][0], widths[i][1])
            if not (fx == 0 or abs(b[i] - a[i]) <= 2.0 * tol):
                still.append(i)
        active = still
    return b


def _larger_quadratic_root(qa: FloatArray, qb: FloatArray, qc: FloatArray) -> FloatArray:
    """(-B + sqrt(B^2 - 4AC))/(2A) for A > 0, without cancellation when B > 0."""
    root = np.sqrt(np.maximum(qb * qb - 4.0 * qa * qc, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(qb <= 0, (root - qb) / (2.0 * qa), -2.0 * qc / (qb + root))


def _float_divide(x: float, y: float) -> float:
    """x/y on Python floats as numpy gives it: x/0 is an infinity of the quotient's sign, or
    nan for 0/0 and nan/0."""
    try:
        return x / y
    except ZeroDivisionError:
        if x == 0 or math.isnan(x):
            return math.nan
        return math.copysign(math.inf, x) * math.copysign(1.0, y)


def _float_sqrt(x: float) -> float:
    """np.sqrt on a Python float: nan below 0."""
    return math.sqrt(x) if x >= 0 else math.nan


def _float_maximum(x: float, y: float) -> float:
    """np.maximum on Python floats: nan if either is nan."""
    if math.isnan(x) or math.isnan(y):
        return math.nan
    return x if x > y else y


def _larger_quadratic_root_float(qa: float, qb: float, qc: float) -> float:
    """:func:`_larger_quadratic_root` on Python floats, with the same operations."""
    root = _float_sqrt(_float_maximum(qb * qb - 4.0 * qa * qc, 0.0))
    if qb <= 0:
        return _float_divide(root - qb, 2.0 * qa)
    return _float_divide(-2.0 * qc, qb + root)


def _wilson(x: FloatArray, n: FloatArray, z: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Wilson score limits; nan where n = 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        z2 = z * z
        centre = (2.0 * x + z2) / (2.0 * (n + z2))
        half = z * np.sqrt(np.maximum(z2 + 4.0 * x * (1.0 - x / n), 0.0)) / (2.0 * (n + z2))
        # np.clip(x, 0, 1), without its cost per call on small arrays
        low = np.minimum(np.maximum(centre - half, 0.0), 1.0)
        high = np.minimum(np.maximum(centre + half, 0.0), 1.0)
    undefined = n == 0
    low[undefined] = np.nan
    high[undefined] = np.nan
    return low, high


def _paired_wilson(
    a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray, z: FloatArray
) -> tuple[FloatArray, ...]:
    """What the MOVER intervals of a paired table start from: p1 = (a + b)/N and
    p2 = (a + c)/N with their Wilson limits, (p1, l1, u1, p2, l2, u2)."""
    n = a + b + c + d
    with np.errstate(divide="ignore", invalid="ignore"):
        p1 = (a + b) / n
        p2 = (a + c) / n
    l1, u1 = _wilson(a + b, n, z)
    l2, u2 = _wilson(a + c, n, z)
    return p1, l1, u1, p2, l2, u2


def _paired_correlation(
    a: FloatArray, b: FloatArray, c: FloatArray, d: FloatArray, cross: FloatArray
) -> FloatArray:
    """cross / sqrt((a + b)(c + d)(a + c)(b + d)), the correlation of the two systems'
    outcomes for cross = ad - bc; 0 where a margin is 0."""
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(np.where(margins > 0, cross / np.sqrt(margins), 0.0), np.float64)


def _normal_score_gap(p: FloatArray, target: FloatArray) -> FloatArray:
    """Phi^-1(p) - Phi^-1(target): a tail probability on the normal-score scale.

    Root finding on this scale instead of p - target sees a nearly linear function where the
    probability is a flat sigmoid, which cuts the number of (costly) evaluations by half.
    """
    from scipy import special
    # A quadrature sum may pass 1 by a rounding error; ndtri would turn that into nan.
    return np.asarray(special.ndtri(np.clip(p, 0.0, 1.0)) - special.ndtri(target), np.float64)


