"""Numerical tools shared by the intervals, and the routes their formulas run on.

Every formula of an interval is written once, over ``+ - * /``, comparisons and the operations
of an :class:`IntervalOps`, and runs on one of two routes: :data:`ARRAYS` (numpy, elementwise
over many tables) or :data:`FLOATS` (Python floats, one table): the routes of
:mod:`mcnemar._routes` with the interval searches' own operations (the root finder and how it
is called). :func:`by_table` picks the route, and a table gets the same limits alone or in a
batch (the tests compare the routes).

Also here: the bracketed root finder (vectorized over problems, each stopping on its own, and
its search for one problem on floats) and, in front of it, Newton's method for objectives that
give their slope (the Tango and Tang score limits, the mid-p limits of the odds ratio: two or
three evaluations where the bracketing search takes eight to twelve; a step that leaves the
bracket hands the problem to the bracketing search, whose root it then is), the larger root
of a quadratic, Wilson's score limits, and the marginal proportions, their Wilson limits and the
correlation that the MOVER intervals start from.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from mcnemar import _routes
from mcnemar._routes import Real
from mcnemar.intervals._result import FloatArray

# ---------------------------------------------------------------------------------------------
# The two routes
# ---------------------------------------------------------------------------------------------

#: A formula's two limits on either route.
Limits = tuple[Any, Any]


class IntervalOps(_routes.Ops):
    """The operations of :class:`mcnemar._routes.Ops` and those of the interval searches.

    ``call_where(mask, f, x)`` is the objective ``f`` at ``x`` where ``mask`` holds and nan
    elsewhere, evaluated only there; ``bind(fn, *params)`` the objective ``fn(xp, x, *params)``
    of the route's root finder (``f(x, idx)`` for the problems ``idx`` on arrays, ``f(x)`` on
    floats); ``find_root`` that root finder (:func:`_find_root` or
    :func:`_find_root_float`), ``bracketed_where(mask, f, lo, hi, f_lo, f_hi, **options)``
    its roots where ``mask`` holds and NaN elsewhere; ``newton`` the route's Newton search,
    for objectives that give their slope too (:func:`_newton_arrays` or
    :func:`_newton_float`); ``two_sided``
    the lower and upper limits of each table (:func:`_two_sided_arrays`).
    """

    call_where: Callable[[Any, Callable[..., Any], Any], Any]
    bind: Callable[..., Callable[..., Any]]
    find_root: Callable[..., Any]
    bracketed_where: Callable[..., Any]
    newton: Callable[..., Any]
    two_sided: Callable[..., Limits]

    __slots__ = ("bind", "bracketed_where", "call_where", "find_root", "newton", "two_sided")


#: The exceptions of the float route where numpy would give an infinity or nan.
FLOAT_ROUTE_ERRORS = _routes.FLOAT_ROUTE_ERRORS


def by_table(formula: Callable[..., Limits], cells: tuple[FloatArray, ...], /,
             **static: Any) -> tuple[FloatArray, FloatArray]:
    """``formula(xp, *cells, **static)``, a formula's (low, high) for flat float64 arrays of
    tables (all of one size): on Python floats for a single table, on the arrays otherwise
    (:func:`mcnemar._routes.by_table`).

    A single table whose float route raises (a zero count where the formula divides by it,
    see :class:`mcnemar._routes.Ops`) is computed on arrays, so each table's route depends on
    that table alone.
    """
    low, high = _routes.by_table(formula, cells, static, routes=(FLOATS, ARRAYS))
    return low, high


def by_table_many(formulas: tuple[Callable[..., Limits], ...], cells: tuple[FloatArray, ...]
                  ) -> list[tuple[FloatArray, FloatArray]]:
    """:func:`by_table` of several formulas of the same cells, in one pass: each formula's
    (low, high), the values of its own :func:`by_table` (the same formula on the same route:
    the float route where every formula of a single table takes it, else the arrays, whose
    bits are the same). For one table the cost per call of a route, paid once here, is most
    of a closed-form interval's time."""

    def together(xp: IntervalOps, *values: Any) -> tuple[Any, ...]:
        return tuple(limit for formula in formulas for limit in formula(xp, *values))

    values = _routes.by_table(together, cells, {}, routes=(FLOATS, ARRAYS))
    # (a formula may give the limits of several methods: every two values are a pair)
    return [(values[2 * i], values[2 * i + 1]) for i in range(len(values) // 2)]


def _array_call_where(mask: NDArray[np.bool_], f: _Objective, x: FloatArray) -> FloatArray:
    idx = np.flatnonzero(mask)
    out = np.empty(mask.shape)
    out.fill(np.nan)
    if idx.size:
        out[idx] = f(x[idx], idx)
    return out


def _array_bind(fn: Callable[..., Any], *params: FloatArray) -> _Objective:
    def objective(x: FloatArray, idx: NDArray[np.intp]) -> FloatArray:
        return np.asarray(fn(ARRAYS, x, *(p[idx] for p in params)), dtype=np.float64)

    return objective


def _two_sided_arrays(solve: Callable[..., FloatArray], lower: NDArray[np.bool_],
                      upper: NDArray[np.bool_], params: tuple[FloatArray, ...],
                      low: float, high: float) -> tuple[FloatArray, FloatArray]:
    """Each table's limits: ``solve(xp, sign, *params)`` for the lower limit (sign 1) where
    ``lower`` holds and the upper one (sign -1) where ``upper`` does, ``low`` and ``high``
    elsewhere.

    On arrays both kinds are one call, the lower limits first: each problem's steps are its
    own, so the limits are those of separate searches, and a batch pays numpy's cost per call
    once per step instead of twice.
    """
    sel_low, sel_up = np.flatnonzero(lower), np.flatnonzero(upper)
    out_low, out_high = np.full(lower.shape, low), np.full(lower.shape, high)
    sel = np.concatenate([sel_low, sel_up])
    if sel.size:
        sign = np.concatenate([np.ones(sel_low.size), -np.ones(sel_up.size)])
        limit = solve(ARRAYS, sign, *(p[sel] for p in params))
        out_low[sel_low] = limit[: sel_low.size]
        out_high[sel_up] = limit[sel_low.size :]
    return out_low, out_high


def _two_sided_floats(solve: Callable[..., float], lower: bool, upper: bool,
                      params: tuple[float, ...], low: float, high: float) -> tuple[float, float]:
    """:func:`_two_sided_arrays` for one table."""
    return (solve(FLOATS, 1.0, *params) if lower else low,
            solve(FLOATS, -1.0, *params) if upper else high)


def _float_call_where(mask: bool, f: Callable[[float], float], x: float) -> float:
    return f(x) if mask else math.nan


def _float_bind(fn: Callable[..., float], *params: float) -> Callable[[float], float]:
    return lambda x: fn(FLOATS, x, *params)


# ---------------------------------------------------------------------------------------------
# Root finding
# ---------------------------------------------------------------------------------------------

# The limits of the Tango and exact intervals scale as 1/N when b and c are small (1e-13 for
# N = 1e12, below 1e-15 for N = 2**52), so their searches stop on a tolerance relative to the
# limit itself (the bracket's end nearer 0); this absolute part only ends a search for a limit
# at 0 itself, far below any 1/N.
_ROOT_ATOL = 1e-30

#: f(x, idx) evaluates a function at points x for the problems with positions idx.
_Objective = Callable[[FloatArray, NDArray[np.intp]], FloatArray]
#: The state of a search: the ends (a, b) with b the latest iterate, f there, and the widths
#: of the bracket over the last three steps.
_State = tuple[Any, Any, Any, Any, Any, Any, Any]

#: Up to this many problems, :func:`_find_root` iterates in Python floats.
_FEW = 4


def _scale(xp: IntervalOps, left: Real, right: Real, nearer: bool) -> Any:
    """What the relative tolerance of :func:`_find_root` multiplies, per bracket [left, right]
    (left <= right).

    Taken from the ends as the step has sorted them, which needs fewer operations than their
    magnitudes: the larger magnitude is the larger of -left and right; the smaller one is left
    when both ends are >= 0, -right when both are <= 0, and 0 when the bracket holds 0 (both
    are negative then). Only the sign of a zero scale may differ from the magnitudes' minimum
    or maximum, and ``atol + rtol*scale`` does not see it.
    """
    if not nearer:
        return xp.maximum(-left, right)
    return xp.maximum(xp.maximum(left, -right), 0.0)


def _start(xp: IntervalOps, lo: Real, hi: Real, f_lo: Real, f_hi: Real, atol: float, rtol: float,
           nearer: bool) -> tuple[Any, Any]:
    """The root of a bracket that needs no search (an end where f is 0, or the midpoint of a
    bracket within the tolerance already), and whether it needs none."""
    scale = _scale(xp, xp.minimum(lo, hi), xp.maximum(lo, hi), nearer)
    tight = abs(hi - lo) <= atol + rtol * scale
    settled = (f_lo == 0) | (f_hi == 0) | tight
    return xp.where(f_lo == 0, lo, xp.where(f_hi == 0, hi, 0.5 * (lo + hi))), settled


def _next_point(xp: IntervalOps, state: _State, atol: float, rtol: float,
                nearer: bool) -> tuple[Any, tuple[Any, Any, Any]]:
    """The next point to evaluate, and what :func:`_advance` needs of this step.

    The Illinois secant point, or the midpoint where the secant leaves the bracket or the
    bracket failed to halve over the last three steps; kept the tolerance away from both ends.
    """
    a, b, fa, fb, _, _, width2 = state
    left, right = xp.minimum(a, b), xp.maximum(a, b)
    width = right - left
    tol = 0.5 * (atol + rtol * _scale(xp, left, right, nearer))
    secant = b - xp.divide(fb * (b - a), fb - fa)
    use_secant = (xp.isfinite(secant) & (secant > left) & (secant < right)
                  & (width <= 0.5 * width2))
    mid = 0.5 * (a + b)
    x = xp.where(use_secant, secant, mid)
    x = xp.where(width > 4.0 * tol, xp.minimum(xp.maximum(x, left + tol), right - tol), mid)
    return x, (use_secant, width, tol)


def _advance(xp: IntervalOps, state: _State, x: Real, fx: Real,
             step: tuple[Any, Any, Any]) -> tuple[_State, Any]:
    """The state after evaluating f(x) = fx, and whether the search has ended (f is 0 there or
    the bracket is within twice the tolerance)."""
    a, b, fa, fb, w0, w1, _ = state
    use_secant, width, tol = step
    flip = xp.signbit(fx) != xp.signbit(fb)
    # Illinois: an endpoint kept twice has its function value halved, which pulls the next
    # secant towards it and avoids the one-sided crawl of plain regula falsi.
    fa = xp.where(flip, fb, xp.where(use_secant, 0.5 * fa, fa))
    a = xp.where(flip, b, a)
    return (a, x, fa, fx, width, w0, w1), (fx == 0) | (abs(x - a) <= 2.0 * tol)


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

    Up to :data:`_FEW` problems (the limits of one table) iterate on Python floats, with the
    same operations (:func:`_find_root_float`), still calling ``f`` once per step for all.
    """
    options = {"atol": atol, "rtol": rtol, "maxiter": maxiter, "nearer": nearer}
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        result, settled = _start(ARRAYS, lo, hi, f_lo, f_hi, atol, rtol, nearer)
        idx = np.flatnonzero(~settled)
        if 0 < idx.size <= _FEW:
            result[idx] = _few_roots(f, idx, lo[idx], hi[idx], f_lo[idx], f_hi[idx], options)
            return np.asarray(result, dtype=np.float64)
        inf = np.full(idx.size, np.inf)
        state: _State = (lo[idx], hi[idx], f_lo[idx], f_hi[idx], inf, inf, inf)
        for _ in range(maxiter):
            if idx.size == 0:
                break
            x, step = _next_point(ARRAYS, state, atol, rtol, nearer)
            state, done = _advance(ARRAYS, state, x, f(x, idx), step)
            if done.any():
                result[idx[done]] = x[done]
                keep = ~done
                idx = idx[keep]
                state = tuple(v[keep] for v in state)
        result[idx] = state[1]
    return np.asarray(result, dtype=np.float64)


def _search(lo: float, hi: float, f_lo: float, f_hi: float, *, atol: float, rtol: float = 4e-16,
            maxiter: int = 400, nearer: bool = False) -> Generator[float, float, float]:
    """The search of :func:`_find_root` for one problem on Python floats: yields each point,
    is sent f there, and returns the root."""
    root, settled = _start(FLOATS, lo, hi, f_lo, f_hi, atol, rtol, nearer)
    if settled:
        return float(root)
    state: _State = (lo, hi, f_lo, f_hi, math.inf, math.inf, math.inf)
    for _ in range(maxiter):
        x, step = _next_point(FLOATS, state, atol, rtol, nearer)
        state, done = _advance(FLOATS, state, x, (yield x), step)
        if done:
            break
    return float(state[1])


def _find_root_float(f: Callable[[float], float], lo: float, hi: float, f_lo: float,
                     f_hi: float, **options: Any) -> float:
    """:func:`_find_root` for one problem on Python floats, ``f`` a function of a float."""
    search = _search(lo, hi, f_lo, f_hi, **options)
    try:
        x = next(search)
        while True:
            x = search.send(f(x))
    except StopIteration as stop:
        return float(stop.value)


def _few_roots(f: _Objective, idx: NDArray[np.intp], lo: FloatArray, hi: FloatArray,
               f_lo: FloatArray, f_hi: FloatArray, options: dict[str, Any]) -> list[float]:
    """:func:`_find_root` for a few problems, each searched on Python floats (the same
    operations in the same order, so the same roots), ``f`` called once per step on an array
    of the points of the problems still running."""
    searches = [_search(*bracket, **options)
                for bracket in zip(lo.tolist(), hi.tolist(), f_lo.tolist(), f_hi.tolist(),
                                   strict=True)]
    roots = [math.nan] * len(searches)
    points: dict[int, float] = {}

    def send(i: int, value: Any) -> None:
        try:
            points[i] = searches[i].send(value)
        except StopIteration as stop:
            roots[i] = stop.value

    for i in range(len(searches)):
        send(i, None)
    while points:
        running = list(points)
        values = f(np.array([points.pop(i) for i in running]), idx[running]).tolist()
        for i, value in zip(running, values, strict=True):
            send(i, value)
    return roots


def _find_root_from(
    xp: IntervalOps,
    f: Any,
    far: Real,
    near: Real,
    f_far: Real,
    f_near: Real,
    lower: Any,
    **options: Any,
) -> Any:
    """The route's root finder for brackets found from an estimate outwards: ``near`` is the
    end next to the estimate, ``far`` the other, below it where ``lower`` (a lower limit) and
    above it elsewhere; ``options`` as for :func:`_find_root`."""
    return xp.find_root(
        f,
        xp.where(lower, far, near),
        xp.where(lower, near, far),
        xp.where(lower, f_far, f_near),
        xp.where(lower, f_near, f_far),
        **options,
    )


# ---------------------------------------------------------------------------------------------
# Newton's method in a bracket, with the bracketing search behind it
# ---------------------------------------------------------------------------------------------

#: The estimate of the error left after a Newton step (from the two last steps) is trusted
#: once the step before was at most this (relative to the root).
_NEWTON_NEAR = 0.05
#: Newton steps before a search that has not ended is handed to the bracketing search.
_NEWTON_STEPS = 12


class _NewtonStep(NamedTuple):
    """A step of :func:`_newton_step`, for one problem (floats) or many (arrays): the new
    bracket, whether the search ends here and with what root (NaN: handed to the bracketing
    search), the next point and the length of the step to it."""

    lo: Any
    hi: Any
    done: Any
    root: Any
    point: Any
    taken: Any


def _newton_step(xp: IntervalOps, x: Real, f: Real, slope: Real, lo: Real, hi: Real,
                 previous: Real, lower: Any, atol: float, rtol: float) -> _NewtonStep:
    """Newton's step from x, where the objective is ``f`` with derivative ``slope``, in the
    bracket [lo, hi] of its root, after a step of length ``previous``.

    The objective is positive on the side of ``lo`` where ``lower`` holds (a lower limit,
    whose excess is positive below it) and on the side of ``hi`` elsewhere; x moves the end
    on its side. The search ends where f = 0, or where the step stays inside the bracket and
    either is below a thousandth of the tolerance ``atol + rtol*|x|`` or leaves an error,
    estimated from quadratic convergence (e_next ~ taken^3 / previous^2), below it. A step
    that leaves the bracket, or is not defined, ends it with NaN: where the objective is not
    smooth at the scale of its rounding (a statistic evaluated with cancellation) Newton's
    steps are not to be trusted, and the bracketing search takes over.
    """
    up, down = f > 0, f < 0
    lo = xp.where(xp.where(lower, up, down), x, lo)
    hi = xp.where(xp.where(lower, down, up), x, hi)
    step = xp.divide(-f, slope)
    nxt = x + step
    inside = (nxt > lo) & (nxt < hi) & xp.isfinite(slope)
    taken = xp.abs(step)
    tol = atol + rtol * xp.abs(nxt)
    converged = (taken <= 1e-3 * tol) | (
        (previous <= _NEWTON_NEAR * xp.abs(nxt)) & (taken <= 0.25 * previous)
        & (taken * taken * taken <= tol * previous * previous))
    found = f == 0
    done = found | xp.logical_not(inside) | converged
    root = xp.where(found, x, xp.where(inside, nxt, math.nan))
    return _NewtonStep(lo, hi, done, root, nxt, taken)


def _newton_arrays(f: _Objective, x: FloatArray, lo: FloatArray, hi: FloatArray,
                   lower: NDArray[np.bool_], *, atol: float, rtol: float,
                   skip: NDArray[np.bool_] | None = None) -> FloatArray:
    """Roots of many problems by :func:`_newton_step`, each stopping on its own (NaN where
    the bracketing search is to take over, and where ``skip`` holds: not searched):
    ``f(x, idx)`` gives the objective and its slope (an array of two rows) at points x of the
    problems ``idx``; ``x`` the starts (a start outside the open bracket is its midpoint)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        x = np.where((x > lo) & (x < hi), x, 0.5 * (lo + hi))
        result = np.full(x.size, np.nan)
        idx = np.arange(x.size) if skip is None else np.flatnonzero(~skip)
        x, lo, hi, lower = x[idx], lo[idx], hi[idx], lower[idx]
        previous = np.full(idx.size, np.inf)
        for _ in range(_NEWTON_STEPS):
            if idx.size == 0:
                break
            value, slope = f(x, idx)
            step = _newton_step(ARRAYS, x, value, slope, lo, hi, previous, lower, atol, rtol)
            x, lo, hi, previous = step.point, step.lo, step.hi, step.taken
            done = step.done
            if done.any():
                result[idx[done]] = step.root[done]
                keep = ~done
                idx, x, lo, hi, previous, lower = (v[keep] for v in (idx, x, lo, hi, previous,
                                                                     lower))
    return result


def _newton_float(f: Callable[[float], tuple[float, float]], x: float, lo: float, hi: float,
                  lower: bool, *, atol: float, rtol: float, skip: bool = False) -> float:
    """:func:`_newton_arrays` for one problem on Python floats (the same steps)."""
    if skip:
        return math.nan
    if not lo < x < hi:
        x = 0.5 * (lo + hi)
    previous = math.inf
    for _ in range(_NEWTON_STEPS):
        value, slope = f(x)
        step = _newton_step(FLOATS, x, value, slope, lo, hi, previous, lower, atol, rtol)
        if step.done:
            return float(step.root)
        x, lo, hi, previous = step.point, step.lo, step.hi, step.taken
    return math.nan


def _newton_root(xp: IntervalOps, f_slope: Any, f: Any, lo: Real, hi: Real, start: Real,
                 lower: Any, ends: tuple[Any, Any] | None = None, **options: Any) -> Any:
    """The root in the bracket [lo, hi]: Newton's steps from ``start`` on the
    objective-and-slope ``f_slope`` (the route's ``newton``; ``lower`` as there), and where
    they do not settle it, the bracketing search on ``f`` from the whole bracket, with the
    objective at its ends ``ends`` (evaluated there when None) and ``options`` as for
    :func:`_find_root`: its root as it would be without the Newton steps."""
    atol, rtol = options["atol"], options.get("rtol", 4e-16)
    # A bracket within the tolerance already (the limits of huge counts) is its midpoint, as
    # the bracketing search has it, without an evaluation.
    tight = hi - lo <= atol + rtol * xp.maximum(xp.abs(lo), xp.abs(hi))
    root = xp.where(tight, 0.5 * (lo + hi), xp.newton(
        f_slope, start, lo, hi, lower, atol=atol, rtol=rtol, skip=tight))
    failed = xp.isnan(root)
    f_lo, f_hi = ((xp.call_where(failed, f, lo), xp.call_where(failed, f, hi)) if ends is None
                  else ends)
    return xp.where(failed, xp.bracketed_where(failed, f, lo, hi, f_lo, f_hi, **options), root)


def _newton_from(xp: IntervalOps, f_slope: Any, f: Any, far: Real, near: Real, f_far: Real,
                 f_near: Real, start: Real, lower: Any, **options: Any) -> Any:
    """:func:`_newton_root` in the bracket between ``far`` and ``near`` (below the estimate
    where ``lower``, as for :func:`_find_root_from`), the objective known at both."""
    return _newton_root(xp, f_slope, f, xp.where(lower, far, near), xp.where(lower, near, far),
                        start, lower, (xp.where(lower, f_far, f_near),
                                       xp.where(lower, f_near, f_far)), **options)


def _array_bracketed_where(mask: NDArray[np.bool_], f: _Objective, lo: FloatArray,
                           hi: FloatArray, f_lo: FloatArray, f_hi: FloatArray, **options: Any
                           ) -> FloatArray:
    """:func:`_find_root` of the problems where ``mask`` holds, NaN elsewhere."""
    out = np.full(mask.shape, np.nan)
    sel = np.flatnonzero(mask)
    if sel.size:
        out[sel] = _find_root(lambda x, j: f(x, sel[j]), lo[sel], hi[sel], f_lo[sel],
                              f_hi[sel], **options)
    return out


def _float_bracketed_where(mask: bool, f: Callable[[float], float], lo: float, hi: float,
                           f_lo: float, f_hi: float, **options: Any) -> float:
    return _find_root_float(f, lo, hi, f_lo, f_hi, **options) if mask else math.nan


# ---------------------------------------------------------------------------------------------
# Formulas shared by the intervals
# ---------------------------------------------------------------------------------------------


def _larger_quadratic_root(xp: IntervalOps, qa: Real, qb: Real, qc: Real) -> Any:
    """(-B + sqrt(B^2 - 4AC))/(2A) for A > 0, without cancellation when B > 0."""
    root = xp.sqrt(xp.maximum(qb * qb - 4.0 * qa * qc, 0.0))
    # the branch for B > 0 divides by 0 where B = -root <= 0 (C = 0), the other branch's case
    return xp.where(qb <= 0, (root - qb) / (2.0 * qa), xp.divide(-2.0 * qc, qb + root))


def _wilson(xp: IntervalOps, x: Real, n: Real, z: Real) -> Limits:
    """Wilson score limits; nan where n = 0."""
    z2 = z * z
    centre = (2.0 * x + z2) / (2.0 * (n + z2))
    half = z * xp.sqrt(xp.maximum(z2 + 4.0 * x * (1.0 - x / n), 0.0)) / (2.0 * (n + z2))
    # np.clip(x, 0, 1), without its cost per call on small arrays
    low = xp.minimum(xp.maximum(centre - half, 0.0), 1.0)
    high = xp.minimum(xp.maximum(centre + half, 0.0), 1.0)
    undefined = n == 0
    return xp.where(undefined, math.nan, low), xp.where(undefined, math.nan, high)


def _marginal(xp: IntervalOps, x: Real, n: Real, z: Real) -> tuple[Any, Any, Any]:
    """One system's accuracy x/N and its Wilson limits, (p, l, u)."""
    low, high = _wilson(xp, x, n, z)
    return x / n, low, high


def _paired_wilson(xp: IntervalOps, a: Real, b: Real, c: Real, d: Real, z: Real) -> tuple[Any, ...]:
    """What the MOVER intervals of a paired table start from: p1 = (a + b)/N and
    p2 = (a + c)/N with their Wilson limits, (p1, l1, u1, p2, l2, u2) (:func:`_marginal`)."""
    n = a + b + c + d
    return (*_marginal(xp, a + b, n, z), *_marginal(xp, a + c, n, z))


def _paired_correlation(xp: IntervalOps, a: Real, b: Real, c: Real, d: Real, cross: Real) -> Any:
    """cross / sqrt((a + b)(c + d)(a + c)(b + d)), the correlation of the two systems'
    outcomes for cross = ad - bc; 0 where a margin is 0."""
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    return xp.where(margins > 0, xp.divide(cross, xp.sqrt(margins)), 0.0)


def _normal_score_gap(p: FloatArray, target: FloatArray) -> FloatArray:
    """Phi^-1(p) - Phi^-1(target): a tail probability on the normal-score scale
    (:func:`normal_score_gap` on arrays).

    Root finding on this scale instead of p - target sees a nearly linear function where the
    probability is a flat sigmoid, which cuts the number of (costly) evaluations by half.
    """
    return np.asarray(normal_score_gap(ARRAYS, p, target), np.float64)


def normal_score_gap(xp: IntervalOps, p: Real, target: Real) -> Any:
    """:func:`_normal_score_gap` on either route."""
    return normal_score(xp, p) - xp.ndtri(target)


def normal_score(xp: _routes.Ops, p: Real) -> Any:
    """Phi^-1(p) of a probability computed as a sum, on either route."""
    # A quadrature sum may pass 1 by a rounding error; ndtri would turn that into nan.
    return xp.ndtri(xp.minimum(xp.maximum(p, 0.0), 1.0))


def secant_from_centre(xp: IntervalOps, centre: Real, f_centre: Real, far: Real, f_far: Real,
                       near: Real, f_near: Real) -> Any:
    """Where the line through the centre of a limit's search (its estimate, the objective
    ``f_centre`` there) and its probe meets 0: a Newton search's start. The probe is the near
    end where it fell short of the limit, else the far end (the probe beyond it, or the
    search's outer end)."""
    end = xp.where(near == centre, far, near)
    f_end = xp.where(near == centre, f_far, f_near)
    return end - f_end * xp.divide(end - centre, f_end - f_centre)


ARRAYS = IntervalOps(
    **_routes.operations(_routes.ARRAYS), call_where=_array_call_where, bind=_array_bind,
    find_root=_find_root, bracketed_where=_array_bracketed_where,
    newton=_newton_arrays, two_sided=_two_sided_arrays,
)
FLOATS = IntervalOps(
    **_routes.operations(_routes.FLOATS), call_where=_float_call_where, bind=_float_bind,
    find_root=_find_root_float, bracketed_where=_float_bracketed_where,
    newton=_newton_float, two_sided=_two_sided_floats,
)
