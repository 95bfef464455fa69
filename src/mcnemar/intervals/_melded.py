"""Fay & Lumbard's (2021) melded interval for the difference in accuracy, the ``"exact"``
method of :func:`~mcnemar.intervals.difference_interval`: its upper limit U solves
P{T(2B - 1) >= U} = alpha (the lower limit is the mirror image, :func:`_melded_upper` for
both), one Gauss-Legendre integral over T per evaluation of the tail.

Below 1e9 items the tail is :func:`_melded_tail` and its root is found by Newton's method
(:class:`_MeldedSearch`, :func:`_melded_newton`) up to 1e5 discordant items, by bracketing
beyond; from 1e9 items on the tail is :func:`_melded_tail_huge`, which integrates only where
P(B >= .) moves and takes the Beta probabilities of huge parameters from
:mod:`mcnemar.intervals._beta`.

References
----------
Fay MP, Lumbard K (2021). Confidence intervals for difference in proportions for matched
pairs compatible with exact McNemar's or sign tests. Statistics in Medicine 40:1147-1159.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Final, NamedTuple, TypeAlias, cast

import numpy as np
from numpy.typing import NDArray

from mcnemar._binomial import lower_tail_half

# (scipy.special, imported on first use: an import statement costs more than most of the
# operations on one table's arrays)
from mcnemar._routes import ARRAYS, FLOATS, Ops, Real, _special
from mcnemar.intervals._beta import HugeTail as _HugeTail
from mcnemar.intervals._beta import (
    b_survival,
    beta_log_mode_density,
    beta_log_pdf,
    beta_ppf,
    cdf_from_mode,
    one_minus_twice_quantile,
)
from mcnemar.intervals._beta import melded_probe as _melded_probe
from mcnemar.intervals._beta import melded_start_and_spread as _melded_start_and_spread
from mcnemar.intervals._result import FloatArray
from mcnemar.intervals._roots import _ROOT_ATOL, _find_root, _normal_score_gap, normal_score

# Fay & Lumbard's melded interval needs one integral per evaluation; Gauss-Legendre on the
# central (1 - 2e-16) range of the Beta variable is accurate to ~1e-13 here (checked against
# mpmath in the tests) because both factors of the integrand are smooth on that range. (Fewer
# nodes move the limits: 32 by up to 2e-9 of them for tables of a few hundred discordant
# items, 48 by 1e-11; both by 1e-5 or more where one of ~1e5 discordant items is rare.)
_GL_POINTS: Final = 64
_TAIL = 1e-16
_CHUNK = 2048
_SQRT_2PI: Final = math.sqrt(2.0 * math.pi)


class _Rule(NamedTuple):
    """A Gauss-Legendre rule on [-1, 1]: its nodes and weights, the nodes' offsets x + 1 from
    the start of the range in half-lengths, and (1 - x)/2, the speed dt/d(delta) of the nodes
    while the integral starts at |delta| (the slope of :class:`_MeldedSearch`)."""

    x: FloatArray
    w: FloatArray
    x1: FloatArray
    speed: FloatArray


def _frozen(v: FloatArray) -> FloatArray:
    """``v``, read-only (the rules are shared by every call)."""
    v.flags.writeable = False
    return v


@functools.cache
def _rule(points: int = _GL_POINTS) -> _Rule:
    """The Gauss-Legendre rule of ``points`` nodes, built on first use: importing
    numpy.polynomial takes milliseconds, a good part of the command line's start."""
    from numpy.polynomial import legendre

    x, w = legendre.leggauss(points)
    return _Rule(*(_frozen(v) for v in (x, w, x + 1.0, (1.0 - x) / 2.0)))


@functools.cache
def _rule_rows(size: int) -> FloatArray:
    """The rule's weights and speeds repeated to ``size`` rows, shape (2, size, points), for
    :class:`_Full` (read-only: shared by every search of that many problems)."""
    rule = _rule()
    return _frozen(np.repeat(np.stack((rule.w, rule.speed))[:, None], size, axis=1))


def _beta_log_pdf(
    t: FloatArray, alpha: FloatArray, beta: FloatArray, log_norm: FloatArray
) -> FloatArray:
    from scipy import special
    return np.asarray(
        special.xlogy(alpha - 1.0, t) + special.xlog1py(beta - 1.0, -t) - log_norm,
        dtype=np.float64,
    )


def _melded_tail(
    delta: FloatArray,
    x: FloatArray,
    m: FloatArray,
    t_alpha: FloatArray,
    t_beta: FloatArray,
    t_lo: FloatArray,
    t_hi: FloatArray,
) -> FloatArray:
    """P(T (2 B - 1) >= delta) with B ~ Beta(x + 1, m - x) and T ~ Beta(t_alpha, t_beta).

    The integrand is P(B >= 1/2 + delta/(2t)) f_T(t); for t <= |delta| it is 0 (delta > 0) or
    f_T(t) (delta < 0), so only t > |delta| is integrated numerically.
    """
    from scipy import special
    rule = _rule()
    out = np.empty_like(delta)
    log_norm = special.betaln(t_alpha, t_beta)
    for start in range(0, delta.size, _CHUNK):
        s = slice(start, start + _CHUNK)
        dl, xs, ms = delta[s], x[s], m[s]
        lo = np.maximum(np.abs(dl), t_lo[s])
        hi = t_hi[s]
        half = np.maximum(hi - lo, 0.0)[:, None] / 2.0
        t = lo[:, None] + half * rule.x1
        # P(B >= q) = I_{1-q}(m - x, x + 1) with 1 - q = (t - delta)/(2t), computed directly.
        upper_b = special.betainc(
            (ms - xs)[:, None], (xs + 1.0)[:, None], np.clip((t - dl[:, None]) / (2.0 * t), 0, 1)
        )
        density = np.exp(
            _beta_log_pdf(t, t_alpha[s][:, None], t_beta[s][:, None], log_norm[s][:, None])
        )
        # A row sum, not a matrix product: BLAS sums a row in an order that depends on how
        # many rows there are, and a table's limits must not depend on the other tables.
        integral = (half[:, 0]) * (upper_b * density * rule.w).sum(axis=1)
        below = np.where(dl < 0, special.betainc(t_alpha[s], t_beta[s], np.abs(dl)), 0.0)
        out[s] = below + integral
    return out


# Tables of at least this many items take the route of :func:`_melded_tail_huge` (below it
# the melded limits are those of :func:`_melded_tail`, unchanged).
_HUGE_N: Final = 1e9


def _melded_tail_huge(
    delta: FloatArray,
    x: FloatArray,
    m: FloatArray,
    t_alpha: FloatArray,
    t_beta: FloatArray,
    tail: _HugeTail,
) -> FloatArray:
    r""":func:`_melded_tail` for tables of :data:`_HUGE_N` items or more.

    Given T = t the probability is S(t) = P(E >= delta/t), E = 2B - 1, which is 0 (to
    _TAIL) where delta/t >= e_hi and 1 where delta/t <= e_lo, with [e_lo, e_hi] the range of
    E. So only the t between the two ends of its transition (t_a = delta/e_hi and
    t_b = delta/e_lo for delta >= 0, the other way round below 0, infinite where the end is
    not crossed) are integrated numerically, and the side where S is 1 is T's own
    probability:

    .. math::

        P\{T(2B - 1) \ge \delta\} = P(T \ge t_b) + \int_{t_a}^{t_b} S(t) f_T(t)\,dt
        \quad (\delta \ge 0), \qquad
        P(T \le t_a) + \int_{t_a}^{t_b} S(t) f_T(t)\,dt \quad (\delta < 0).

    With both cells huge this is T's whole range (S changes slowly over it); with one cell
    small and the other huge, S steps from 1 to 0 within a small part of T's range (2e-3 of
    T's standard deviation for b = 1e6, c = 0 and N = 1e12), which a rule over T's whole
    range would miss. T's nodes are placed by their deviation h from T's mode c and its
    density is :func:`beta_log_pdf` (the form ``xlogy(alpha - 1, t) + ... - betaln`` loses
    ~1e-6 of the density for alpha = 1e9 and N = 1e15, all of it for alpha = 1e15); the
    probabilities of B and of T come from :func:`beta_cdf` where both parameters are huge
    (scipy's ``betainc`` is slow there and wrong where they are equal).
    """
    rule = _rule()
    out = np.empty_like(delta)
    for start in range(0, delta.size, _CHUNK):
        s = slice(start, start + _CHUNK)
        dl, tl = delta[s], tail.take(s)
        ta, tb = t_alpha[s], t_beta[s]
        up = dl >= 0
        with np.errstate(divide="ignore", invalid="ignore"):
            near = np.where(up, np.where(tl.e_hi > 0, dl / tl.e_hi, np.inf),
                            np.where(tl.e_lo < 0, dl / tl.e_lo, np.inf))
            far = np.where(up, np.where(tl.e_lo > 0, dl / tl.e_lo, np.inf),
                           np.where(tl.e_hi < 0, dl / tl.e_hi, np.inf))
        # The ends of the transition as deviations from T's mode, inside T's range; the
        # part where S is 1 is cut at the same point as the integral.
        h_a = np.clip(near - tl.mode, tl.h_lo, tl.h_hi)
        h_b = np.clip(far - tl.mode, h_a, tl.h_hi)
        ones = np.zeros_like(dl)
        # delta >= 0: P(T >= t_b), nothing where t_b is beyond T's range; delta < 0:
        # P(T <= t_a), 1 where t_a is beyond T's range, nothing where it is below it.
        cut = np.where(up, h_b < tl.h_hi, (h_a > tl.h_lo) & (h_a < tl.h_hi))
        ones[~up & (h_a >= tl.h_hi)] = 1.0
        if cut.any():
            sub = tl.take(np.flatnonzero(cut))
            cdf = cdf_from_mode(ta[cut], tb[cut], sub.mode, sub.mean_offset,
                                np.where(up, h_b, h_a)[cut])
            ones[cut] = np.where(up[cut], 1.0 - cdf, cdf)
        half = np.maximum(h_b - h_a, 0.0)[:, None] / 2.0
        h = h_a[:, None] + half * rule.x1
        t = tl.mode[:, None] + h
        upper_b = b_survival(dl, t, x[s], m[s])
        density = np.exp(beta_log_pdf(tl.big_a[:, None], tl.big_b[:, None],
                                      tl.log_mode[:, None], h))
        integral = half[:, 0] * (upper_b * density * rule.w).sum(axis=1)
        out[s] = ones + integral
    return out


# Root tolerance of the melded limits: relative, so that limits near 0 (huge N) stay exact.
_EXACT_RTOL: Final = 1e-12


def _betainc_half(x: FloatArray, m: FloatArray) -> FloatArray:
    """P(Bin(m, 1/2) <= x) = I_{1/2}(m - x, x + 1), by scipy (x < m)."""
    out: FloatArray = _special().betainc(m - x, x + 1.0, 0.5)
    return out


# Below _HUGE_N items and up to _MOVE_MAX_COUNT discordant items the melded limits are found by
# Newton's method on the normal-score gap of the same quadrature (:func:`_melded_tail`, whose
# value each fresh evaluation reproduces operation for operation), from a Cornish-Fisher
# estimate of the limit; the derivative is that of the quadrature sum itself. After the first
# evaluation of a problem, P(B >= .) at the nodes moves from the values there by the integral
# of B's density over the (small) move, by Gauss-Legendre (:func:`_move_rules`) on the density
# relative to its value at the node (from its value at the mode, Loader's form): a few
# exponentials per node instead of an incomplete beta function, within ~1e-16 of it while the
# move stays within _MOVE_REACH of the local scale of that density; else the problem is
# evaluated afresh, as are the problems of fewer than _MOVE_MIN_COUNT discordant items, whose
# incomplete beta functions cost less than a move. Beyond _MOVE_MAX_COUNT discordant items
# betainc's own rounding moves the root by more than the search's tolerance, and the
# bracketing search keeps the limits it has always given (:func:`_melded_bracketed_roots`).
#
# Each problem's steps depend on it alone, and one table takes the operations of a batch
# (numpy's cost per call is most of its time: each step is a few whole-array operations).
_MOVE_REACH: Final = 0.25
# The largest moves of the rules of 2, 4 and 6 points (:func:`_move_rules`).
_MOVE_REACHES: Final = _frozen(np.array([1e-3, 0.05, _MOVE_REACH]))
_MOVE_MAX_COUNT: Final = 1e5
_MOVE_MIN_COUNT: Final = 64
# Moves of at most this many (node, point) pairs are taken in one array.
_MOVE_BLOCK: Final = 4096
# Newton steps before the bracketing search takes over (two evaluations are the rule).
_NEWTON_STEPS: Final = 12
# Problems searched together: their nodes stay in the processor's cache, and a group's arrays
# (64 kB) below the size from which the allocator maps each array afresh, faulting it in.
_NEWTON_GROUP: Final = 128
# A Newton step this small (relative to the limit), or one whose predicted error (quadratic
# convergence: the last step's length cubed over the one before's squared) is below
# _NEWTON_RTOL of the limit, ends the search: the limits are the roots of the quadrature to
# that (the tail's rounding alone, ~1e-16, moves a limit within 1e-2 standard deviations of 0
# by ~1e-12 of itself).
_NEWTON_LAST: Final = 1e-14
_NEWTON_RTOL: Final = 1e-14
# ... the estimate being trusted once the step before was at most this much of the length
# over which the gap bends (the larger of the limit and the spread of T(2B - 1)): from the
# Cornish-Fisher start that is two evaluations for nearly every problem.
_NEWTON_NEAR: Final = 1e-2


@functools.cache
def _move_rules() -> tuple[tuple[FloatArray, FloatArray, float], ...]:
    """Gauss-Legendre rules by the largest move (relative to the local scale) they take, each
    within ~1e-18 of the move's integral there: (nodes + 1, weights, largest move)."""
    from numpy.polynomial import legendre

    rules = []
    for points, reach in zip((2, 4, 6), _MOVE_REACHES, strict=True):
        x, w = legendre.leggauss(points)
        rules.append((_frozen(x + 1.0), _frozen(w), float(reach)))
    return tuple(rules)


# Rows of the per-problem arrays: all of them, or some.
_Index: TypeAlias = "slice | NDArray[np.intp]"
_ALL: Final = slice(None)


class _MeldedNodes(NamedTuple):
    """The evaluations moves start from, one row per problem (used where ``has``: problems
    of _MOVE_MIN_COUNT to _MOVE_MAX_COUNT discordant items): the start of the integral, the points
    y = (t - delta)/(2t) of its nodes t, P(B >= 1/2 + delta/(2t)) = I_y(m - x, x + 1) there,
    the log density of Beta(m - x, x + 1) at y, 1/y and -1/(1 - y), the inverse of its local
    scale (:meth:`_MeldedSearch._scale`), T's density at the nodes; whether the problem has
    one, and whether its scales are finite."""

    lo: FloatArray
    y: FloatArray
    upper_b: FloatArray
    log_b: FloatArray
    inv_y: FloatArray
    inv_rest: FloatArray
    scale: FloatArray
    density: FloatArray
    has: NDArray[np.bool_]
    finite: NDArray[np.bool_]


class _Full(NamedTuple):
    """A few problems' columns of :class:`_MeldedSearch` and the rule's weights and speeds,
    repeated to the nodes' shape (one row a problem)."""

    b_p: FloatArray
    b_q: FloatArray
    t_a1: FloatArray
    t_b1: FloatArray
    log_norm: FloatArray
    big_a: FloatArray
    big_b: FloatArray
    log_norm_b: FloatArray
    w: FloatArray
    speed: FloatArray


class _MeldedSearch:
    """The melded tail P(T(2B - 1) >= delta) of each problem (below _HUGE_N items) and its
    derivative in delta, evaluated afresh (what :func:`_melded_tail` computes) or moved from
    the problem's last fresh evaluation (see :func:`_move_rules`).

    Call it where numpy's floating-point warnings are off (at 0 log 0 and the ends of the
    range, whose values are taken care of).
    """

    def __init__(self, x: FloatArray, m: FloatArray, t_alpha: FloatArray, t_beta: FloatArray,
                 t_lo: FloatArray, t_hi: FloatArray) -> None:
        special = _special()
        self.t_alpha, self.t_beta, self.t_lo, self.t_hi = t_alpha, t_beta, t_lo, t_hi
        self.log_norm = special.betaln(t_alpha, t_beta)
        # T's parameters less 1, and as columns against the nodes; B's variable,
        # Beta(m - x, x + 1) = Beta(A + 1, B + 1), A + B = m - 1
        self.t_a1, self.t_b1 = t_alpha - 1.0, t_beta - 1.0
        self.t_a1_col, self.t_b1_col = self.t_a1[:, None], self.t_b1[:, None]
        self.log_norm_col = self.log_norm[:, None]
        self.b_p, self.b_q = (m - x)[:, None], (x + 1.0)[:, None]
        self.big_a, self.big_b = self.b_p - 1.0, x[:, None]
        self.log_norm_b = special.betaln(self.b_p, self.b_q)
        self.full: _Full | None = None
        if x.size <= _NEWTON_FEW:
            # (numpy's broadcasting of a column costs a few problems' steps more than this)
            cols = np.concatenate((self.b_p, self.b_q, self.t_a1_col, self.t_b1_col,
                                   self.log_norm_col, self.big_a, self.big_b,
                                   self.log_norm_b), axis=1).T[:, :, None]
            self.full = _Full(*np.repeat(cols, _GL_POINTS, axis=2), *_rule_rows(x.size))
        self.movable = (m >= _MOVE_MIN_COUNT) & (m <= _MOVE_MAX_COUNT)
        self.any_movable = bool(self.movable.any())
        self.ref: _MeldedNodes | None = None
        if self.any_movable:
            # B's mode c and log density there; c and 1 - c as divisors, 1 where the
            # parameter they go with is 0 (its term is then 0 log(.), and the log finite)
            total = np.maximum(m - 1.0, 1.0)[:, None]
            self.b_mode, b_rest = self.big_a / total, self.big_b / total
            self.b_mode_div = np.where(self.big_a > 0, self.b_mode, 1.0)
            self.b_rest_div = np.where(self.big_b > 0, b_rest, 1.0)
            self.b_log_mode = beta_log_mode_density(self.big_a, self.big_b)

    def _b_log_density_near_mode(self, y: FloatArray, i: _Index) -> FloatArray:
        """log density of Beta(m - x, x + 1) at y from its value at the mode c (Loader's
        form) and the deviation h = y - c, A log(1 + h/c) + B log(1 - h/(1 - c)): its
        rounding grows with sqrt(m), not m."""
        h = y - self.b_mode[i]
        out = (self.b_log_mode[i] + self.big_a[i] * np.log1p(h / self.b_mode_div[i])
               + self.big_b[i] * np.log1p(-h / self.b_rest_div[i]))
        # (fmax: nan, where a rounding takes the log's argument below 0, is -inf here)
        return cast(FloatArray, np.fmax(out, -np.inf))

    def _scale(self, y: FloatArray, i: _Index) -> FloatArray:
        """1/(local scale) of B's log density at y: the largest of |d log f/dy| and
        sqrt(|d^2 log f/dy^2|), whose largest values on an interval are at its ends."""
        big_a, big_b = self.big_a[i], self.big_b[i]
        inv_y, inv_rest = 1.0 / y, 1.0 / (1.0 - y)
        first = np.abs(big_a * inv_y - big_b * inv_rest)
        second = np.sqrt(big_a * inv_y * inv_y + big_b * inv_rest * inv_rest)
        out: FloatArray = np.maximum(first, second)
        return out

    def evaluate(self, delta: FloatArray, i: NDArray[np.intp] | None = None
                 ) -> tuple[FloatArray, FloatArray]:
        """Tail and derivative at delta for the problems ``i`` (all of them for None)."""
        rule = _rule()
        every: _Index = _ALL if i is None else i
        size = np.abs(delta)
        lo = np.maximum(size, self.t_lo[every])
        half = np.maximum(self.t_hi[every] - lo, 0.0)[:, None] / 2.0
        t = lo[:, None] + half * rule.x1
        two_t = 2.0 * t
        # (t >= |delta| at every node, so y is in [0, 1] without clipping)
        y = (t - delta[:, None]) / two_t
        ref = self.ref
        if ref is None or not (moved := ref.has[every].nonzero()[0]).size:
            full = self.full if i is None else None
            upper_b = (_special().betainc(self.b_p[every], self.b_q[every], y) if full is None
                       else _special().betainc(full.b_p, full.b_q, y))
            density = self._t_density(t, every)
            fresh: _Index = _ALL
        else:
            upper_b, density = np.empty_like(t), np.empty_like(t)
            ok = self._move(moved, moved if i is None else i[moved], lo, y, t, upper_b,
                            density)
            left = np.ones(t.shape[0], dtype=bool)
            left[moved[ok]] = False
            fresh = left.nonzero()[0]
            if fresh.size:
                k = fresh if i is None else i[fresh]
                upper_b[fresh] = _special().betainc(self.b_p[k], self.b_q[k], y[fresh])
                density[fresh] = self._t_density(t[fresh], k)
        if self.any_movable:
            self._keep_fresh(fresh, every, i, lo, y, upper_b, density)
        return self._sums(delta, size, every, half, t, y, upper_b, density)

    def _t_density(self, t: FloatArray, i: _Index) -> FloatArray:
        """T's density at the nodes t of the problems ``i``: :func:`_beta_log_pdf`'s
        operations."""
        special = _special()
        if i is _ALL and (full := self.full) is not None:
            a1, b1, log_norm = full.t_a1, full.t_b1, full.log_norm
        else:
            a1, b1, log_norm = self.t_a1_col[i], self.t_b1_col[i], self.log_norm_col[i]
        out: FloatArray = np.exp(special.xlogy(a1, t) + special.xlog1py(b1, -t) - log_norm)
        return out

    def _keep_fresh(self, fresh: _Index, every: _Index, i: NDArray[np.intp] | None,
                    lo: FloatArray, y: FloatArray, upper_b: FloatArray, density: FloatArray
                    ) -> None:
        """Make the fresh evaluations (rows ``fresh``) of the movable problems the
        references of their moves."""
        keep: NDArray[np.bool_] = self.movable[every][fresh]
        if self.ref is None and i is None and isinstance(fresh, slice):
            # every problem, evaluated afresh: the arrays themselves are the references
            # (those of the problems that do not move unused)
            scale = self._scale(y, _ALL)
            self.ref = _MeldedNodes(lo, y, upper_b, self._b_log_density_near_mode(y, _ALL),
                                    1.0 / y, -1.0 / (1.0 - y), scale, density, keep.copy(),
                                    cast(NDArray[np.bool_], np.isfinite(scale).all(axis=1)))
            return
        if not keep.any():
            return
        rows = keep.nonzero()[0] if isinstance(fresh, slice) else fresh[keep]
        k = rows if i is None else i[rows]
        if self.ref is None:
            size, points = self.t_lo.size, y.shape[1]
            nodes = (np.empty((size, points)) for _ in range(7))
            self.ref = _MeldedNodes._make([np.empty(size), *nodes, np.zeros(size, dtype=bool),
                                           np.zeros(size, dtype=bool)])
        ref = self.ref
        y_k = y[rows]
        scale = self._scale(y_k, k)
        for field, value in zip(ref, (lo[rows], y_k, upper_b[rows],
                                      self._b_log_density_near_mode(y_k, k), 1.0 / y_k,
                                      -1.0 / (1.0 - y_k), scale, density[rows]), strict=False):
            field[k] = value
        ref.has[k] = True
        ref.finite[k] = np.isfinite(scale).all(axis=1)

    def _move(self, rows: NDArray[np.intp], j: NDArray[np.intp], lo: FloatArray,
              y: FloatArray, t: FloatArray, upper_b: FloatArray, density: FloatArray
              ) -> NDArray[np.bool_]:
        """Fill ``rows`` of ``upper_b`` and ``density`` (problems ``j``) from their references
        where the move is small enough; which of them were."""
        ref = self.ref
        assert ref is not None
        step = y[rows] - ref.y[j]
        size = np.abs(step)
        # a move far below the first rule's reach at the reference's scale needs no more
        # care; the others are bounded at both ends of the move
        scale = ref.scale[j]
        reach = np.maximum.reduce(size * scale, axis=1)
        wide = (~(reach <= 0.5 * _MOVE_REACHES[0])).nonzero()[0]
        if wide.size:
            both = size[wide] * np.maximum(scale[wide], self._scale(y[rows[wide]], j[wide]))
            reach[wide] = np.maximum.reduce(np.where(size[wide] == 0.0, 0.0, both), axis=1)
        # Each move by the first rule that reaches it (a move of length 0 by the first), none
        # beyond the last, nor from a reference with a point at 0 or 1, where the nodes
        # collapsed onto |delta|.
        which = cast(NDArray[np.intp], np.searchsorted(_MOVE_REACHES, reach))
        ok = (which < len(_MOVE_REACHES)) & ref.finite[j]
        rules = _move_rules()
        first = which[0]
        for rule, (nodes, weights, _) in enumerate(rules):
            here = ok & (which == rule)
            if rule == first and here.all():
                r, k, part = rows, j, step
            elif here.any():
                idx = here.nonzero()[0]
                r, k, part = rows[idx], j[idx], step[idx]
            else:
                continue
            upper_b[r] = self._moved(k, part, nodes, weights)
            # T's density: the reference's while the nodes have not moved (for a few
            # problems, all of them afresh, the same operations on the same nodes)
            if r.size * nodes.size <= _MOVE_BLOCK:
                density[r] = self._t_density(t[r], k)
                continue
            same = ref.lo[k] == lo[r]
            density[r[same]] = ref.density[k[same]]
            other = ~same
            if other.any():
                density[r[other]] = self._t_density(t[r[other]], k[other])
        return ok

    def _moved(self, j: NDArray[np.intp], step: FloatArray, nodes: FloatArray,
               weights: FloatArray) -> FloatArray:
        """I_y at y = y_ref + step for the problems ``j`` (rows of nodes): I_{y_ref} plus the
        integral of B's density over the step, the density at y_ref + d being its value at
        y_ref times (1 + d/y_ref)^(m - x - 1) (1 - d/(1 - y_ref))^x."""
        ref = self.ref
        assert ref is not None
        half = 0.5 * step
        log_b, inv_y, inv_rest = ref.log_b[j], ref.inv_y[j], ref.inv_rest[j]
        big_a, big_b = self.big_a[j], self.big_b[j]
        # (0 log1p(.) where a parameter is 1: nodes are inside (0, 1), so the log is finite)
        if half.size * nodes.size <= _MOVE_BLOCK:
            # the points a leading axis: a sum over it is the running sum of the loop below
            d = nodes[:, None, None] * half
            term = log_b + big_a * np.log1p(d * inv_y) + big_b * np.log1p(d * inv_rest)
            total = np.add.reduce(weights[:, None, None] * np.exp(term), axis=0)
        else:
            total = np.zeros_like(step)
            for node, weight in zip(nodes, weights, strict=True):
                d = node * half
                term = log_b + big_a * np.log1p(d * inv_y) + big_b * np.log1p(d * inv_rest)
                total += weight * np.exp(term)
        out: FloatArray = ref.upper_b[j] + total * half
        return out

    def _sums(self, delta: FloatArray, size: FloatArray, i: _Index, half: FloatArray,
              t: FloatArray, y: FloatArray, upper_b: FloatArray, density: FloatArray
              ) -> tuple[FloatArray, FloatArray]:
        """The quadrature of :func:`_melded_tail` (the same operations) and its derivative."""
        special = _special()
        full = self.full if i is _ALL else None
        if full is None:
            rule = _rule()
            w, speed, a1_col, b1_col = rule.w, rule.speed, self.t_a1_col[i], self.t_b1_col[i]
            big_a, big_b, log_norm_b = self.big_a[i], self.big_b[i], self.log_norm_b[i]
        else:
            w, speed, a1_col, b1_col = full.w, full.speed, full.t_a1, full.t_b1
            big_a, big_b, log_norm_b = full.big_a, full.big_b, full.log_norm_b
        total = np.add.reduce(upper_b * density * w, axis=1)
        negative = delta < 0
        below = np.where(negative, special.betainc(self.t_alpha[i], self.t_beta[i], size), 0.0)
        length = half[:, 0]
        tail = below + length * total
        # d/d(delta) of the sum: P(B >= .) moves with delta (B's density b times
        # dy/d(delta) = -1/(2t) + delta/(2t^2) dt/d(delta)); while the integral starts at
        # |delta| (``along``: the sign of delta there, else 0) the nodes move too
        # (dt/d(delta) = sign(delta) (1 - x)/2), and with them T's density f
        # (d log f/dt = (alpha - 1)/t - (beta - 1)/(1 - t)), and the length
        # (d half/d(delta) = -sign(delta)/2); below 0, P(T <= |delta|) moves. With
        # k = along * half * (1 - x)/2 per node, the nodes' part is one sum with the rest:
        # sum w f [b (k delta/t - half) + P(B >= .) k d log f/dt].
        inv_t = 1.0 / t
        b_log = big_a * np.log(y) + big_b * np.log1p(-y) - log_norm_b
        # (fmax: 0 log 0, nan, is -inf here)
        b_half = np.exp(np.fmax(b_log, -np.inf)) * (0.5 * inv_t)
        at_delta = np.exp(special.xlogy(self.t_a1[i], size)
                          + special.xlog1py(self.t_b1[i], -size) - self.log_norm[i])
        moving = (size > self.t_lo[i]) & (length > 0)
        along = np.where(moving, np.sign(delta), 0.0)
        k = (along * length)[:, None] * speed
        # (1 - t is at least 1e-300 where a node rounds to 1)
        d_log_t = a1_col * inv_t - b1_col / np.maximum(1.0 - t, 1e-300)
        term = (b_half * (k * (delta[:, None] * inv_t) - length[:, None])
                + upper_b * (k * d_log_t))
        slope = (np.add.reduce(density * w * term, axis=1) - negative * at_delta
                 - 0.5 * along * total)
        return tail, slope


def _melded_newton(
    x: FloatArray, m: FloatArray, alpha: FloatArray, pos: NDArray[np.bool_],
    t_alpha: FloatArray, t_beta: FloatArray, t_lo: FloatArray, t_hi: FloatArray,
    p_zero: FloatArray, start: FloatArray, spread: FloatArray, z_alpha: FloatArray,
) -> FloatArray:
    """The roots of the normal-score gap of :func:`_melded_tail` in (0, 1) (``pos``) or
    (-1, 0), given the tail at 0 (``p_zero``), a start, the standard deviation of T(2B - 1)
    (``spread``) and Phi^-1(alpha): safeguarded Newton steps (a step out of the bracket is a
    bisection), handed to :func:`_find_root` after _NEWTON_STEPS; in groups of _NEWTON_GROUP
    problems, each searched on its own."""
    if x.size <= _NEWTON_GROUP:
        return _melded_newton_group(x, m, alpha, z_alpha, pos, t_alpha, t_beta, t_lo, t_hi,
                                    p_zero, start, spread)
    out = np.empty(x.size)
    for begin in range(0, x.size, _NEWTON_GROUP):
        s = slice(begin, begin + _NEWTON_GROUP)
        out[s] = _melded_newton_group(x[s], m[s], alpha[s], z_alpha[s], pos[s], t_alpha[s],
                                      t_beta[s], t_lo[s], t_hi[s], p_zero[s], start[s],
                                      spread[s])
    return out


class _Step(NamedTuple):
    """A Newton step of one problem (floats) or many (arrays): the gap f, the new bracket,
    whether the search ends and with what limit, the next point and the step to it (inf:
    a bisection)."""

    f: Any
    lo: Any
    hi: Any
    done: Any
    limit: Any
    point: Any
    taken: Any


def _normal_scores(tail: FloatArray) -> tuple[FloatArray, FloatArray]:
    """z = Phi^-1(tail) and exp(z^2/2) of the problems' tails, for :func:`_newton_step`."""
    z = normal_score(ARRAYS, tail)
    return z, np.exp(0.5 * z * z)


def _newton_step(xp: Ops, point: Real, lo: Real, hi: Real, z: Real, grow: Real, slope: Real,
                 z_alpha: Real, previous: Real, spread: Real) -> _Step:
    """The Newton step of :func:`_melded_newton_group` from ``point`` (z, exp(z^2/2) and the
    tail's slope there) in the bracket [lo, hi], after a step of length ``previous``.

    The gap f = z - Phi^-1(alpha) decreases in delta, d(gap)/d(delta) = slope / phi(z); a
    step out of the bracket is a bisection. The search ends where the gap is 0, the step is
    below _NEWTON_LAST of the limit, or the error estimate from the two last steps is below
    _NEWTON_RTOL of it (once the steps are small against the length over which the gap
    bends: the spread of T(2B - 1) or the limit); ``done`` counts from the second step on.
    """
    f = z - z_alpha
    lo = xp.where(f > 0, point, lo)
    hi = xp.where(f < 0, point, hi)
    step = xp.divide(-f, slope * _SQRT_2PI * grow)
    nxt = point + step
    taken = xp.abs(step)
    inside = (nxt >= lo) & (nxt <= hi)
    scale = xp.abs(nxt)
    done = (f == 0) | (inside & (
        (taken <= _NEWTON_LAST * scale)
        | ((previous <= _NEWTON_NEAR * xp.maximum(scale, spread))
           & (taken <= 0.25 * previous)
           & (taken * taken * taken <= _NEWTON_RTOL * scale * previous * previous))
    ))
    return _Step(f, lo, hi, done, xp.where(f == 0, point, nxt),
                 xp.where(inside, nxt, 0.5 * (lo + hi)), xp.where(inside, taken, math.inf))


def _melded_newton_group(
    x: FloatArray, m: FloatArray, alpha: FloatArray, z_alpha: FloatArray,
    pos: NDArray[np.bool_], t_alpha: FloatArray, t_beta: FloatArray, t_lo: FloatArray,
    t_hi: FloatArray, p_zero: FloatArray, start: FloatArray, spread: FloatArray,
) -> FloatArray:
    """:func:`_melded_newton` for one group of problems (z_alpha = Phi^-1(alpha)): steps of
    :func:`_newton_step`, on Python floats for a few problems (:func:`_newton_floats`), else
    on arrays (:func:`_newton_arrays`)."""
    # the gap decreases in delta: positive below the root; the bracket is [lo, hi]
    lo, hi = cast(FloatArray, pos - 1.0), cast(FloatArray, pos + 0.0)
    history: list[tuple[NDArray[np.intp] | None, FloatArray]] = []  # (gaps, for the brackets)
    result = np.empty(x.size)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        search = _MeldedSearch(x, m, t_alpha, t_beta, t_lo, t_hi)
        steps = _newton_floats if x.size <= _NEWTON_FEW else _newton_arrays
        left = steps(search, start, lo, hi, z_alpha, spread, result, history)
    if left is None:
        return result
    active, lo, hi = left
    # The bracketing search from the bracket, with the gaps at its ends.
    remaining = np.arange(x.size) if active is None else active
    f_zero = _normal_score_gap(p_zero, alpha)
    f_lo = np.where(pos, f_zero, np.inf)
    f_hi = np.where(pos, -np.inf, f_zero)
    for where, f in history:
        idx = _ALL if where is None else where
        f_lo[idx] = np.where(f > 0, f, f_lo[idx])
        f_hi[idx] = np.where(f < 0, f, f_hi[idx])

    def excess(delta: FloatArray, idx: NDArray[np.intp]) -> FloatArray:
        i = remaining[idx]
        tail = _melded_tail(delta, x[i], m[i], t_alpha[i], t_beta[i], t_lo[i], t_hi[i])
        return _normal_score_gap(tail, alpha[i])

    result[remaining] = _find_root(excess, lo, hi, f_lo[remaining], f_hi[remaining],
                                   atol=_ROOT_ATOL, nearer=True)
    return result


# Up to this many problems the steps are on Python floats (numpy's cost per call dominates).
_NEWTON_FEW: Final = 16


def _newton_arrays(search: _MeldedSearch, start: FloatArray, lo: FloatArray, hi: FloatArray,
                   z_alpha: FloatArray, spread: FloatArray, result: FloatArray,
                   history: list[tuple[NDArray[np.intp] | None, FloatArray]],
                   ) -> tuple[NDArray[np.intp] | None, FloatArray, FloatArray] | None:
    """:func:`_newton_floats` on arrays, all problems at each step (for many problems)."""
    point = np.where((start > lo) & (start < hi), start, 0.5 * (lo + hi))
    previous = np.full(start.size, np.inf)
    active: NDArray[np.intp] | None = None
    for count in range(_NEWTON_STEPS):
        tail, slope = search.evaluate(point, active)
        step = _newton_step(ARRAYS, point, lo, hi, *_normal_scores(tail), slope, z_alpha,
                            previous, spread)
        history.append((active, step.f))
        lo, hi, point, previous = step.lo, step.hi, step.point, step.taken
        if count:
            done = step.done
            if done.all():
                result[_ALL if active is None else active] = step.limit
                return None
            if done.any():
                here = done.nonzero()[0]
                result[here if active is None else active[here]] = step.limit[here]
                rest = (~done).nonzero()[0]
                active = rest if active is None else active[rest]
                z_alpha, lo, hi, spread = z_alpha[rest], lo[rest], hi[rest], spread[rest]
                point, previous = point[rest], previous[rest]
    return active, lo, hi


def _newton_floats(search: _MeldedSearch, start: FloatArray, lo: FloatArray, hi: FloatArray,
                   z_alpha: FloatArray, spread: FloatArray, result: FloatArray,
                   history: list[tuple[NDArray[np.intp] | None, FloatArray]],
                   ) -> tuple[NDArray[np.intp] | None, FloatArray, FloatArray] | None:
    """The steps of :func:`_melded_newton_group` on Python floats, problem by problem
    (:func:`_newton_step` on :data:`~mcnemar._routes.FLOATS`: the same limits), from the
    starts (a start outside the open bracket is its midpoint). Writes the limits found to
    ``result`` and the gaps to ``history``; returns None once every problem is done, else the
    problems left after _NEWTON_STEPS (None: all) and their brackets."""
    los, his, z_as, spreads = lo.tolist(), hi.tolist(), z_alpha.tolist(), spread.tolist()
    points: list[float] = [s if lo_k < s < hi_k else 0.5 * (lo_k + hi_k)
                           for s, lo_k, hi_k in zip(start.tolist(), los, his, strict=True)]
    previous = [math.inf] * len(points)
    active = list(range(len(points)))
    rows: NDArray[np.intp] | None = None
    for count in range(_NEWTON_STEPS):
        tail, slope = search.evaluate(np.array(points), rows)
        z, grow = _normal_scores(tail)
        gaps, nexts, takens, keep = [], [], [], []
        for k, (j, z_k, grow_k, slope_k) in enumerate(
                zip(active, z.tolist(), grow.tolist(), slope.tolist(), strict=True)):
            step = _newton_step(FLOATS, points[k], los[j], his[j], z_k, grow_k, slope_k,
                                z_as[j], previous[k], spreads[j])
            gaps.append(step.f)
            los[j], his[j] = step.lo, step.hi
            if count and step.done:
                result[j] = step.limit
                continue
            keep.append(j)
            nexts.append(step.point)
            takens.append(step.taken)
        history.append((rows, np.array(gaps)))
        if not keep:
            return None
        if len(keep) < len(active):
            active, rows = keep, np.array(keep, dtype=np.intp)
        points, previous = nexts, takens
    return rows, np.array([los[j] for j in active]), np.array([his[j] for j in active])


def _melded_bracketed_roots(
    xs: FloatArray, ms: FloatArray, ns: FloatArray, al: FloatArray, side: FloatArray,
    t_alpha: FloatArray, t_beta: FloatArray, f_zero: FloatArray, huge: bool,
) -> FloatArray:
    """The melded upper limits (side 1: U > 0, -1: U < 0) by the bracketing search on the
    tails of :func:`_melded_tail_huge` (``huge``: problems of _HUGE_N items or more) or of
    :func:`_melded_tail` (problems of more than _MOVE_MAX_COUNT discordant items, where the
    quadrature's rounding is larger than the Newton search's tolerance: the limits there are
    those this search has always given)."""
    from scipy import special

    pos = side > 0
    if huge:
        t_huge = _HugeTail.of(xs, ms, t_alpha, t_beta, _TAIL)

        def tail(delta: FloatArray, idx: NDArray[np.intp]) -> FloatArray:
            return _melded_tail_huge(delta, xs[idx], ms[idx], t_alpha[idx], t_beta[idx],
                                     t_huge.take(idx))
    else:
        t_lo = special.betaincinv(t_alpha, t_beta, _TAIL)
        t_hi = 1.0 - special.betaincinv(t_beta, t_alpha, _TAIL)

        def tail(delta: FloatArray, idx: NDArray[np.intp]) -> FloatArray:
            return _melded_tail(delta, xs[idx], ms[idx], t_alpha[idx], t_beta[idx], t_lo[idx],
                                t_hi[idx])

    def excess(delta: FloatArray, idx: NDArray[np.intp]) -> FloatArray:
        return _normal_score_gap(tail(delta, idx), al[idx])

    zero = np.zeros(xs.size)
    f_one = np.where(pos, -np.inf, np.inf)
    # One evaluation at a point just beyond a Wald-type guess splits the bracket [0, 1] (or
    # [-1, 0]): usually the root lies between 0 and the probe, where the normal-score gap is
    # finite at both ends and nearly linear, so the secant steps take fewer evaluations.
    # The bracket is its part beyond the probe or the part between 0 and the probe,
    # whichever holds the root.
    probe = _melded_probe(xs, ms, ns, al, side)
    f_probe = excess(probe, np.arange(xs.size))
    beyond = f_probe * side > 0
    between = ~beyond
    lo = np.where(pos, np.where(beyond, probe, zero), np.where(between, probe, -1.0))
    hi = np.where(pos, np.where(between, probe, 1.0), np.where(beyond, probe, zero))
    f_lo = np.where(
        pos, np.where(beyond, f_probe, f_zero), np.where(between, f_probe, f_one)
    )
    f_hi = np.where(
        pos, np.where(between, f_probe, f_one), np.where(beyond, f_probe, f_zero)
    )
    return _find_root(
        excess, lo, hi, f_lo, f_hi, atol=_ROOT_ATOL, rtol=_EXACT_RTOL, nearer=True
    )


def _newton_limits(x: FloatArray, m: FloatArray, n: FloatArray, alpha: FloatArray,
                   p0: FloatArray, pos: NDArray[np.bool_]) -> FloatArray:
    """The melded upper limits by :func:`_melded_newton` (below _HUGE_N items, x < m, at most
    _MOVE_MAX_COUNT discordant items, p0 != alpha, and N > m where U > 0 (``pos``)); T's
    range from betaincinv's quantiles."""
    special = _special()
    t_alpha = m + pos
    t_beta = (n - m) + ~pos
    z_alpha = special.ndtri(alpha)
    start, spread = _melded_start_and_spread(x, m, n, z_alpha, pos)
    return _melded_newton(x, m, alpha, pos, t_alpha, t_beta,
                          special.betaincinv(t_alpha, t_beta, _TAIL),
                          1.0 - special.betaincinv(t_beta, t_alpha, _TAIL), p0, start, spread,
                          z_alpha)


def _melded_upper(x: FloatArray, m: FloatArray, n: FloatArray, alpha: FloatArray) -> FloatArray:
    """Upper limit of Fay & Lumbard's interval: solves P(T(2 B_U - 1) >= U) = alpha (N > 0)."""
    huge = n >= _HUGE_N
    degenerate_b = x >= m
    if not (huge | degenerate_b).any():
        # The usual tables, all of them by Newton's method: no selection (which costs a
        # single table more than its search).
        p0 = _betainc_half(x, m)
        pos = p0 > alpha
        if (((p0 < alpha) | (pos & (n > m))) & (m <= _MOVE_MAX_COUNT)).all():
            return _newton_limits(x, m, n, alpha, p0, pos)
    return _melded_upper_by_route(x, m, n, alpha, huge, degenerate_b)


def _melded_upper_by_route(x: FloatArray, m: FloatArray, n: FloatArray, alpha: FloatArray,
                           huge: NDArray[np.bool_], degenerate_b: NDArray[np.bool_]
                           ) -> FloatArray:
    """:func:`_melded_upper`, each problem by its route."""
    upper = np.empty_like(x)
    # At delta = 0 the tail is P(B_U >= 1/2) = P(Bin(m, 1/2) <= x), the exact one-sided p-value;
    # the sign of p0 - alpha fixes the side of 0 on which U lies, which is what makes the
    # interval agree with the exact McNemar test whatever the quadrature error.
    p0 = np.ones_like(x)
    # For huge tables the package's own binomial tail (scipy's betainc takes milliseconds at
    # parameters near 1e15; this is also the tail the exact test reports there).
    for where, tail in ((~degenerate_b & ~huge, _betainc_half), (~degenerate_b & huge,
                                                                  lower_tail_half)):
        if where.any():
            p0[where] = tail(x[where], m[where])

    # x = m (B_U is 1): the tail is P(T_U >= delta), so U is a Beta quantile, taken directly
    # (1 - the complementary quantile of Beta(N - m, m + 1) keeps only ~1e-16 absolute, 5% of
    # U = 8e-16 for N = 2**52).
    upper[degenerate_b] = 1.0
    quantile = np.flatnonzero(degenerate_b & (n > m))
    if quantile.size:
        upper[quantile] = beta_ppf(m[quantile] + 1.0, n[quantile] - m[quantile],
                                   1.0 - alpha[quantile], huge[quantile])

    general = ~degenerate_b
    positive = general & (p0 > alpha)
    # m = n (T_U is 1 for delta > 0): the tail is P(B_U >= (1 + delta)/2), so
    # U = 1 - 2 q_alpha, q_alpha the alpha quantile of Beta(m - x, x + 1).
    closed = np.flatnonzero(positive & (n <= m))
    if closed.size:
        xc, mc = x[closed], m[closed]
        upper[closed] = one_minus_twice_quantile(xc, mc, alpha[closed], huge[closed])
    upper[general & (p0 == alpha)] = 0.0

    # The limits on both sides of 0 in one search (each problem's steps are its own, so they
    # are those of separate searches).
    sel = np.flatnonzero((positive & (n > m)) | (general & (p0 < alpha)))
    if sel.size:
        xs, ms, ns, al, ps = x[sel], m[sel], n[sel], alpha[sel], p0[sel]
        pos = ps > al
        side = np.where(pos, 1.0, -1.0)
        big = huge[sel]
        many = ~big & (ms > _MOVE_MAX_COUNT)
        usual = np.flatnonzero(~big & ~many)
        if usual.size:
            upper[sel[usual]] = _newton_limits(xs[usual], ms[usual], ns[usual], al[usual],
                                               ps[usual], pos[usual])
        # Each problem's T is set up for its own route: the range of T by betaincinv's
        # quantiles (below _HUGE_N items) or by deviations from its mode (_HugeTail).
        for where, on_huge in ((many, False), (big, True)):
            idx = np.flatnonzero(where)
            if idx.size:
                ta = np.where(pos[idx], ms[idx] + 1.0, ms[idx])
                tb = np.where(pos[idx], ns[idx] - ms[idx], ns[idx] - ms[idx] + 1.0)
                upper[sel[idx]] = _melded_bracketed_roots(
                    xs[idx], ms[idx], ns[idx], al[idx], side[idx], ta, tb,
                    _normal_score_gap(ps[idx], al[idx]), on_huge,
                )
    return upper
