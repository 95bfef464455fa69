""":func:`minimum_detectable_effect`: the smallest accuracy difference detected with a target
power.

The exact power is solved for theta = p10/psi by Halley's method on its probit, from Connor's
closed form, over the power sums of :mod:`mcnemar.planning._power_path` (the power and its
first two derivatives in theta at the cost of one exponential per point of each window), to
1e-10 of the difference: :func:`_solve_theta_fast`, two evaluations as a rule. Its steps
(:func:`_halley_step`), Connor's start and the windows are written once over the routes of
:mod:`mcnemar._routes`: one element (the report of one table) takes them on Python floats
(:func:`_solve_theta_one`, :func:`_solve_one`), a batch on arrays
(:func:`_solve_fast_group`), with the same bits for the element.

:func:`_solve_theta` is the search it replaced, kept as the tests' reference: Newton steps to
1e-13 in theta on the probit of the path sums of :mod:`mcnemar.planning._kernel`, the
Bin(n, psi) windows cut to their exact tails (2.5e-16 each side), and after the first step
the point probabilities moved from the previous ones instead of evaluated afresh
(:class:`_MovedTail`); the tests check each part against mpmath or scipy.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import special

from mcnemar import _routes as routes
from mcnemar._routes import ARRAYS, FLOATS, Ops, Real
from mcnemar.planning._kernel import (
    _connor_mde,
    _element_chunks,
    _flat_weights,
    _log_pmf_at,
    _path_plan,
    _path_sum,
    _PmfBase,
    _regions,
    _tail_alpha,
    _z_alpha,
)
from mcnemar.planning._power_path import (
    PowerPath,
    chernoff_windows,
    first_rejecting,
    path_take,
    path_width,
    power_path,
    power_sums,
)
from mcnemar.planning._results import MinimumDetectableEffectResult
from mcnemar.planning._validation import (
    _ALTERNATIVES,
    _METHODS,
    _check_choice,
    _check_n,
    _check_open_unit,
    _check_probabilities,
)

FloatArray = npt.NDArray[np.float64]


_LARGEST_BELOW_ONE = float(np.nextafter(1.0, 0.0))
_SQRT_2PI = math.sqrt(2.0 * math.pi)

# A tail's point probabilities are moved from those at a reference p (see _MovedTail) while
# every m of the table's window keeps m |p - p_r| / p_r and m |q - q_r| / q_r at most this:
# the rounding error of the move is then about 4 eps times it, 1.4e-14 relative, the size of
# the path's own error; beyond it they are evaluated afresh and become the new reference.
_MOVE_REACH = 16.0


# A Newton step of at most this (after one a hundred times larger) ends the search.
_NEWTON_LAST = 1e-8

# (element, m) pairs solved together: the dozens of temporaries of a search step stay in the
# processor's cache (the search costs about half as much as with all elements at once).
_SOLVE_PAIRS = 1 << 15


class _MovedTail:
    """The logs of the steps of one tail's power sum, P(Bin(m, p) >= m - j), along the path of
    the detectable-difference search, for one p per table (each table a segment of the path).

    The point probabilities at p follow from those at a reference p_r of the same table by
        log P(X = x; m, p) = log P(X = x; m, p_r) + x log(p/p_r) + (m - x) log(q/q_r),
    with the logs of the ratios as log1p of the relative changes: two multiply-adds per point
    instead of the saddle-point form (:func:`_log_pmf_at`, two deviance terms), which gives
    the reference values. The search moves by less and less, so after its first steps every
    evaluation is a move; one far from the reference is computed afresh.
    """

    def __init__(self, base: _PmfBase, seg: npt.NDArray[np.intp], reach: FloatArray) -> None:
        self.base = base
        self.seg = seg
        self.reach = reach
        self.ref_p = np.full(reach.size, np.nan)
        self.ref_q = np.full(reach.size, np.nan)
        self.ref = np.full(seg.size, -np.inf)
        self.rest = base.n - base.x

    def log_pmf(self, p: FloatArray, q: FloatArray) -> FloatArray:
        """log P(X = x) at the points (x, n) of ``base``, for p, q = 1 - p per table."""
        seg, base = self.seg, self.base
        with np.errstate(invalid="ignore", divide="ignore"):
            rel_p = (p - self.ref_p) / self.ref_p
            rel_q = (q - self.ref_q) / self.ref_q
            near = (
                (p > 0) & (q > 0)
                & (self.reach * np.abs(rel_p) <= _MOVE_REACH)
                & (self.reach * np.abs(rel_q) <= _MOVE_REACH)
            )
        far = ~near
        if far.any():
            rows = far[seg]
            if rows.all():
                self.ref = _log_pmf_at(base, p[seg], q[seg])
            else:
                sub = _PmfBase(*(f[rows] for f in base))
                self.ref[rows] = _log_pmf_at(sub, p[seg][rows], q[seg][rows])
            interior = (p > 0) & (q > 0)
            self.ref_p = np.where(far, np.where(interior, p, np.nan), self.ref_p)
            self.ref_q = np.where(far, np.where(interior, q, np.nan), self.ref_q)
        if not near.any():
            return self.ref
        move_p = np.where(near, np.log1p(np.where(near, rel_p, 0.0)), 0.0)
        move_q = np.where(near, np.log1p(np.where(near, rel_q, 0.0)), 0.0)
        out: FloatArray = self.ref + base.x * move_p[seg] + self.rest * move_q[seg]
        return out


# Binomial probability of M dropped from each end of a window by _trimmed.
_TRIM = 2.5e-16


def _trimmed(
    seg: npt.NDArray[np.intp], m: FloatArray, w: FloatArray, starts: npt.NDArray[np.bool_]
) -> tuple[npt.NDArray[np.intp], FloatArray, FloatArray, npt.NDArray[np.bool_]]:
    """The windows of :func:`_flat_weights` without their outer points of total probability
    below _TRIM on each side.

    The windows come from a bound (Bernstein's) that keeps about a sixth more points than the
    exact tails need; every later step of the search costs in proportion to the points kept.
    Each window's sums run within it (rows of a padded grid), so a table's points do not
    depend on the other tables; the mode always stays, and what stays is one run of m.
    """
    first = np.flatnonzero(starts)
    offset = np.arange(m.size) - first[seg]
    grid = np.zeros((first.size, int(offset.max()) + 1 if m.size else 1))
    grid[seg, offset] = w
    left = np.cumsum(grid, axis=1)[seg, offset]
    right = np.cumsum(grid[:, ::-1], axis=1)[:, ::-1][seg, offset]
    keep = (left >= _TRIM) & (right >= _TRIM)
    new_start = keep & (starts | ~np.concatenate(([False], keep[:-1])))
    return seg[keep], m[keep], w[keep], new_start[keep]


def _solve_theta(
    n: FloatArray, psi: FloatArray, target: float, alpha: float, alternative: str, method: str,
    start: FloatArray,
) -> tuple[FloatArray, FloatArray]:
    """:func:`_solve_chunk` for groups of elements of at most _CHUNK_PAIRS (element, m) pairs,
    whose temporaries stay in the processor's cache (every element is solved on its own, so
    the grouping does not change its result)."""
    theta = np.empty(n.size)
    p_top = np.empty(n.size)
    for part in _element_chunks(n, psi, _SOLVE_PAIRS):
        theta[part], p_top[part] = _solve_chunk(
            n[part], psi[part], target, alpha, alternative, method, start[part]
        )
    return theta, p_top


def _solve_chunk(
    n: FloatArray, psi: FloatArray, target: float, alpha: float, alternative: str, method: str,
    start: FloatArray,
) -> tuple[FloatArray, FloatArray]:
    """theta in [1/2, 1] with exact power = target, per element; and the power at theta = 1.

    Safeguarded Newton iteration on the probit of the power, vectorized over elements: the
    power increases with theta (the binomial family has monotone likelihood ratio and the
    regions are fixed), its probit is close to linear in theta, and its derivative costs one
    more exponential per point of the path (d/dtheta P(Bin(m, theta) >= k) =
    m P(Bin(m - 1, theta) = k - 1), the path's own point probabilities), so from Connor's
    starting point two to four evaluations reach 1e-13 in theta (a last step too small to
    leave an error of that size is taken without evaluating the power after it). A step that
    leaves the bracket is replaced by bisection.
    """
    two_sided = alternative == "two-sided"
    tail = _tail_alpha(alpha, alternative)
    seg, m, w, starts = _trimmed(*_flat_weights(n, psi))
    j = _regions(m, tail, method)
    z_target = float(special.ndtri(target))
    # The path of the power sum and its theta-free parts, once for the whole search; both
    # tails walk it (the lower region X <= j is m - X >= m - j with m - X ~ Bin(m, 1 - theta)).
    k = m - j
    plan = _path_plan(m, k, starts) if m.size else None
    if plan is not None:
        reach = np.zeros(n.size)
        np.maximum.at(reach, seg, m)
        # The plan's points are (k - 1, m - 1) everywhere, the anchors included: where the
        # steps of the path need them, and where the derivative of the power does,
        # d/dtheta P(Bin(m, theta) >= k) = m P(Bin(m - 1, theta) = k - 1).
        tails = [_MovedTail(plan.base, seg, reach) for _ in range(2 if two_sided else 1)]
        anchor_seg = seg[plan.idx]

    def probit_gap(theta: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Probit of the power minus the target's, and its derivative in theta."""
        pw: FloatArray = np.zeros(n.size)
        slope: FloatArray = np.zeros(n.size)
        if plan is not None:
            theta_c = 1.0 - theta
            for tail, p, q, sign in ((tails[0], theta, theta_c, 1.0),
                                     (tails[-1], theta_c, theta, -1.0))[: 2 if two_sided else 1]:
                log_pmf = tail.log_pmf(p, q)
                with np.errstate(divide="ignore"):
                    log_p, log_q = np.log(p), np.log(q)
                # the step's factor: p where the threshold is kept, q where it rises (the
                # anchors' steps are not taken)
                log_coef = np.where(plan.kept, log_p[seg], log_q[seg])
                cp = _path_sum(plan, m, k, p[anchor_seg], log_coef + log_pmf)
                grad = m * np.exp(log_pmf)
                pw = pw + np.bincount(seg, weights=w * cp, minlength=n.size)
                slope = slope + sign * np.bincount(seg, weights=w * grad, minlength=n.size)
        z = special.ndtri(np.clip(pw, 1e-300, _LARGEST_BELOW_ONE))
        out: FloatArray = z - z_target
        with np.errstate(over="ignore"):
            probit_slope: FloatArray = slope * _SQRT_2PI * np.exp(0.5 * z * z)
        return out, probit_slope

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
        at_null = probit_gap(lo)[0] >= 0
        result[active & at_null] = 0.5
        active &= ~at_null
    if not active.any():
        return result, p_top
    # Newton's method on the probit of the power, kept inside the bracket [lo, hi] (a step
    # that leaves it is replaced by bisection); from Connor's starting point the error squares
    # at every step.
    x = np.where((start > 0.5) & (start < 1.0), start, 0.75)
    previous = np.full(n.shape, np.inf)
    for _ in range(200):
        f, df = probit_gap(x)
        lo = np.where(active & (f < 0), x, lo)
        hi = np.where(active & (f >= 0), x, hi)
        with np.errstate(divide="ignore", invalid="ignore"):
            x_next = x - f / df
        inside = (x_next >= lo) & (x_next <= hi)
        size = np.abs(x_next - x)
        # Converging quadratically (a step under a hundredth of the one before), a step below
        # _NEWTON_LAST leaves an error of the order of its square: the next point is the root
        # to well within 1e-13, without evaluating the power there.
        last = inside & (size <= _NEWTON_LAST) & (size <= 0.01 * previous)
        done = (f == 0) | (inside & (size <= 1e-13)) | last | (hi - lo <= 1e-13)
        result = np.where(active & done, np.where(inside, x_next, x), result)
        active &= ~done
        if not active.any():
            break
        previous = np.where(inside, size, np.inf)
        x = np.where(active, np.where(inside, x_next, 0.5 * (lo + hi)), x)
    return result, p_top


# The fast search (:func:`_solve_theta_fast`) ends once the difference it returns is within
# this (relative) of the root of the exact power; reports print it to 3 digits.
_FAST_RTOL = 1e-10
# The error estimate from the two last steps is trusted once the first of them was at most
# this (relative to theta - 1/2).
_FAST_NEAR = 0.05
# At most this many Halley steps; the search then ends on bisection of its bracket.
_FAST_STEPS = 60
# Points of one group of the fast search: its temporaries stay in the processor's cache.
_FAST_POINTS = 1 << 15


def _solve_theta_fast(
    n: FloatArray, psi: FloatArray, target: float, alpha: float, alternative: str, method: str,
    start: FloatArray,
) -> tuple[FloatArray, FloatArray]:
    """theta in [1/2, 1] with exact power = target to within _FAST_RTOL in theta - 1/2, per
    element; and the power at theta = 1 (the sums of :mod:`mcnemar.planning._power_path`).

    Halley's method on the probit of the power from ``start`` (Connor's closed form), with
    the power's first two derivatives from the same sums: from Connor's point (a few per cent
    off) the error is cubed at every step, so two evaluations are the rule. :func:`_solve_theta`
    is the same search to 1e-13 in theta on the sums of :func:`_solve_chunk`. Elements are
    solved in groups of rows of the same length (:func:`path_width`), each element on its own;
    a single element by :func:`_solve_theta_one`.
    """
    tail = _tail_alpha(alpha, alternative)
    two_sided = alternative == "two-sided"
    # Below the first count at which the test can reject, the power is 0 whatever theta.
    first = first_rejecting(tail, method)
    lo, hi = chernoff_windows(n, psi)
    if n.size == 1:
        return _solve_theta_one(n, psi, routes.maximum(float(lo[0]), first), float(hi[0]),
                                target, alpha, tail, two_sided, method, float(start[0]))
    theta = np.full(n.size, np.nan)
    p_top = np.zeros(n.size)
    lo = np.maximum(lo, first)
    positive = np.flatnonzero((psi > 0.0) & (lo <= hi))
    n_p, psi_p, lo, hi = n[positive], psi[positive], lo[positive], hi[positive]
    width = path_width((hi - lo + 1.0).astype(np.intp))
    order = np.argsort(width, kind="stable")
    bounds = np.flatnonzero(np.diff(width[order], prepend=-1, append=-1))
    for first_row, last_row in itertools.pairwise(bounds):
        row_width = int(width[order[first_row]])
        step = max(1, _FAST_POINTS // row_width)
        for part in range(first_row, last_row, step):
            group = order[part : min(part + step, last_row)]
            path = power_path(n_p[group], psi_p[group], lo[group], hi[group], row_width, tail,
                              method)
            idx = positive[group]
            theta[idx] = _solve_fast_group(path, target, alpha, two_sided, method, start[idx])
            p_top[idx] = path.top
    return theta, p_top


def _solve_theta_one(
    n: FloatArray, psi: FloatArray, lo: float, hi: float, target: float, alpha: float,
    tail: float, two_sided: bool, method: str, start: float,
) -> tuple[FloatArray, FloatArray]:
    """:func:`_solve_theta_fast` of one element, its window [lo, hi] given: its row a group
    of its own, searched by :func:`_solve_one`."""
    theta, p_top = math.nan, 0.0
    if float(psi[0]) > 0.0 and lo <= hi:
        width = int(path_width(int(hi - lo + 1.0)))
        path = power_path(n, psi, np.array([lo]), np.array([hi]), width, tail, method)
        theta = _solve_one(path, target, alpha, two_sided, method, start)
        p_top = float(path.top[0])
    return np.array([theta]), np.array([p_top])


def _size_may_reach(target: float, alpha: float, method: str) -> bool:
    """Whether the test's size (its power at theta = 1/2) could meet the target: the exact
    test's is at most alpha, as every conditional test's is (the sums are right to 1e-12);
    the mid-p and asymptotic tests' may exceed it."""
    if method == "exact":
        return target <= alpha + 1e-9
    return target <= max(0.5, 2.0 * alpha)


def _probit(xp: Ops, power: Real) -> Any:
    """Phi^-1 of a power, kept finite (a sum may pass 1 or 0 by its rounding)."""
    return xp.ndtri(xp.minimum(xp.maximum(power, 1e-300), _LARGEST_BELOW_ONE))


def _first_point(xp: Ops, start: Real) -> Any:
    """The search's first theta: the start where it lies in (1/2, 1), else 3/4."""
    return xp.where((start > 0.5) & (start < 1.0), start, 0.75)


class _Halley(NamedTuple):
    """One step of the fast search, for one element (floats) or many (arrays): the new
    bracket, whether the search ends here and with what theta, the next theta and the length
    of the step that led to it (inf after a bisection)."""

    lo: Any
    hi: Any
    done: Any
    theta: Any
    point: Any
    taken: Any


def _halley_step(xp: Ops, x: Real, lo: Real, hi: Real, previous: Real, value: Real,
                 slope: Real, curve: Real, z_target: float) -> _Halley:
    """Halley's step on f = probit(power) - probit(target) at theta = x in the bracket
    [lo, hi], from the power and its two derivatives there, after a step of ``previous``.

    A step that is not defined (or whose denominator is not positive) is Newton's; one out
    of the bracket a bisection. The search ends where f = 0, or the step is below 1e-3 of the
    tolerance, or the error estimated from cubic convergence (a step below a tenth of the one
    before leaves an error of about size**4 / previous**3) is below it, or the bracket is.
    """
    z = _probit(xp, value)
    f = z - z_target
    scale = _SQRT_2PI * xp.exp(0.5 * z * z)
    f1 = slope * scale
    f2 = curve * scale + z * f1 * f1
    denominator = 2.0 * f1 * f1 - f * f2
    halley = xp.divide(-2.0 * f * f1, denominator)
    step = xp.where(xp.isfinite(halley) & (denominator > 0), halley, xp.divide(-f, f1))
    lo = xp.where(f < 0, x, lo)
    hi = xp.where(f >= 0, x, hi)
    x_next = x + step
    inside = (x_next >= lo) & (x_next <= hi)
    size = xp.abs(step)
    following = xp.where(inside, x_next, 0.5 * (lo + hi))
    tol = _FAST_RTOL * (xp.where(inside, x_next, x) - 0.5)
    square = size * size
    converged = ((previous <= _FAST_NEAR * (x - 0.5)) & (size <= 0.1 * previous)
                 & (square * square <= tol * (previous * previous * previous)))
    done = (f == 0) | (inside & ((size <= 1e-3 * tol) | converged)) | (hi - lo <= tol)
    return _Halley(lo, hi, done, xp.where(f == 0, x, following), following,
                   xp.where(inside, size, math.inf))


def _solve_fast_group(
    path: PowerPath, target: float, alpha: float, two_sided: bool, method: str,
    start: FloatArray,
) -> FloatArray:
    """:func:`_solve_theta_fast` for the elements of ``path`` (NaN where the power at
    theta = 1 is below the target): the steps of :func:`_halley_step` on arrays, each
    element's rows dropped from the sums once fewer than half of them run."""
    p_top: FloatArray = path.top
    shape = p_top.shape
    z_target = float(special.ndtri(target))
    result: FloatArray = np.full(shape, np.nan)
    active = p_top >= target
    if _size_may_reach(target, alpha, method) and active.any():
        size = power_sums(path, np.full(shape, 0.5), two_sided)[0]
        at_null = active & (_probit(ARRAYS, size) >= z_target)
        result[at_null] = 0.5
        active &= ~at_null
    idx = np.flatnonzero(active)
    if idx.size == 0:
        return result
    path = path_take(path, active)
    x = _first_point(ARRAYS, start[idx])
    lo = np.full(idx.size, 0.5)
    hi = np.ones(idx.size)
    previous = np.full(idx.size, np.inf)
    # Rows of ``path`` still searched; the rows are dropped once fewer than half run.
    running = np.ones(idx.size, dtype=bool)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        for _ in range(_FAST_STEPS):
            value, slope, curve = power_sums(path, x, two_sided)
            step = _halley_step(ARRAYS, x, lo, hi, previous, value, slope, curve, z_target)
            lo, hi = step.lo, step.hi
            done = running & step.done
            if done.any():
                result[idx[done]] = step.theta[done]
                running &= ~done
                if not running.any():
                    break
            x, previous = step.point, step.taken
            if 2 * int(running.sum()) < running.size:
                path = path_take(path, running)
                x, lo, hi, previous = x[running], lo[running], hi[running], previous[running]
                idx = idx[running]
                running = np.ones(idx.size, dtype=bool)
    return result


def _solve_one(
    path: PowerPath, target: float, alpha: float, two_sided: bool, method: str, start: float
) -> float:
    """:func:`_solve_fast_group` for a path of one element: the steps of :func:`_halley_step`
    on Python floats (a step of the array search makes some seventy numpy calls, about 1 us
    each on one element, where this one makes a few besides the sums), the same bits."""
    if not path.top[0] >= target:
        return math.nan
    z_target = float(special.ndtri(target))
    if _size_may_reach(target, alpha, method):
        size = power_sums(path, 0.5, two_sided)[0]
        if _probit(FLOATS, size) >= z_target:
            return 0.5
    x = _first_point(FLOATS, start)
    lo, hi, previous = 0.5, 1.0, math.inf
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        for _ in range(_FAST_STEPS):
            value, slope, curve = power_sums(path, x, two_sided)
            step = _halley_step(FLOATS, x, lo, hi, previous, value, slope, curve, z_target)
            if step.done:
                return float(step.theta)
            lo, hi, x, previous = step.lo, step.hi, step.point, step.taken
    return math.nan


def _connor_start(
    n: FloatArray, psi: FloatArray, target: float, z_a: float
) -> tuple[FloatArray, FloatArray]:
    """Connor's detectable difference per element, and the search's start from it
    (:func:`_connor_start_of`, one element on Python floats)."""
    d_connor, start = routes.by_table(_connor_start_of, (n, psi), {"target": target, "z_a": z_a})
    return d_connor, start


def _connor_start_of(xp: Ops, n: Real, psi: Real, *, target: float, z_a: float
                     ) -> tuple[Any, Any]:
    """:func:`_connor_start` on either route: theta = 1/2 + d/(2 psi), with d = 1/2 where
    Connor's form has no root (the search starts at 3/4 from outside (1/2, 1)) and 3/4 where
    psi = 0 (not searched)."""
    d_connor = _connor_mde(xp, n, psi, target, z_a)
    guess = xp.divide(xp.where(xp.isnan(d_connor), 0.5, d_connor), 2 * psi)
    return d_connor, 0.5 + xp.where(psi > 0, guess, 0.25)


def detectable_differences(
    n: FloatArray, psi: FloatArray, power: float, alpha: float, alternative: str, method: str
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The numbers of :func:`minimum_detectable_effect` for checked flat float64 arrays ``n``
    and ``psi`` (discordance > 0 wherever a value is wanted) and checked options: the
    detectable difference by ``method`` and Connor's, both for A better (positive), and the
    power when every discordant item favours one system (NaN for ``"connor"``).

    The report calls it for tables it has validated already, so that the numbers have one
    definition and the checks run once.
    """
    d_connor, start = _connor_start(n, psi, power, _z_alpha(alpha, alternative))
    if method == "connor":
        return d_connor.copy(), d_connor, np.full(n.shape, np.nan)
    theta, p_top = _solve_theta_fast(n, psi, power, alpha, alternative, method, start)
    return psi * (2.0 * theta - 1.0), d_connor, p_top


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
    bracketed Halley iteration on the probit of the power (started from Connor's closed form,
    with the power's first two derivatives from the same sums), to about 1e-10 of
    :math:`\delta` (a report prints 3 digits); typically 2 evaluations of :math:`O(\sqrt{n})`
    operations each (about 10 us per table in a batch of report tables, a few ms for
    :math:`n = 10^6`).

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
    n_b, psi_b = ((n_arr, psi_arr) if n_arr.shape == psi_arr.shape
                  else np.broadcast_arrays(n_arr, psi_arr))
    shape = n_b.shape
    n_f = np.ascontiguousarray(n_b, dtype=np.float64).ravel()
    psi_f = np.ascontiguousarray(psi_b, dtype=np.float64).ravel()
    d, d_connor, p_top = detectable_differences(n_f, psi_f, target, alpha, alternative, method)
    notes: list[str] = []
    if method == "connor":
        if np.isnan(d).any():
            notes.append(
                "even a difference equal to the discordance (every discordant item favouring "
                "one system) would not reach the target power"
            )
    else:
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
