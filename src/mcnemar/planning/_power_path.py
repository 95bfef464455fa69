r"""The exact power of McNemar's tests and its first two derivatives in theta, for a search
over theta at fixed (n, psi): the sums a solve for the detectable difference evaluates.

With m discordant items, M ~ Bin(n, psi) and the upper rejection region X >= k_m
(X ~ Bin(m, theta)), the upper part of the power is
:math:`P(\theta) = \sum_m w_m S_m(\theta)`, :math:`S_m = P(X \ge k_m)`. Along a run of
consecutive m whose threshold rises by 0 or 1 per step (a *block*),

.. math::

    S_m = S_{m-1} + \theta f_m \ (\text{threshold kept}), \qquad
    S_m = S_{m-1} - (1 - \theta) f_m \ (\text{raised}),

with :math:`f_m = P(\mathrm{Bin}(m - 1, \theta) = k_m - 1)`; and
:math:`dS_m/d\theta = m f_m`. Summed by parts, a block starting at its anchor a gives
:math:`W_a S_a + \sum_{i > a} \tilde W_i \delta_i` with :math:`\tilde W_i = \sum_{j \ge i} w_j`
over the block: every weight is free of theta and computed once, and an evaluation of the
power, its slope and its curvature costs one exponential and a few multiply-adds per m, plus
one incomplete beta function per block (:math:`S_a`). The point probabilities are
:math:`\log f_i = \log\binom{N_i}{x_i} + x_i \log\theta + y_i \log(1 - \theta)` with
:math:`(x_i, y_i) = (k_i - 1, m_i - k_i)`, :math:`N_i = x_i + y_i`, the log binomial coefficient
from the block's first point (a product of ratios or Loader's form) plus the logs of the
ratios of consecutive ones summed along the block.

Each element (n, psi) is one row of points, m from the first count at which the test can
reject, or the window's start if later, to the window's end. The windows of m are cut by
Chernoff's bound at :data:`WINDOW_TAIL` per side (about 7 standard deviations; Bernstein's
bound, which the exact power of :mod:`._kernel` uses at 5e-16, keeps a fifth more), and the
weights follow from the first point's by the ratios :math:`w_{m+1}/w_m = (n - m)\psi/((m + 1)
(1 - \psi))`, summed along the row in logs, scaled to the row's mass
:math:`P(M \ge m_{\text{first}})` (an incomplete beta function). The sums are accurate to
about 1e-12 absolute; the tests compare them with
:func:`mcnemar.planning._kernel._exact_power`. Rows are padded to a length that depends on
their own window only (:func:`path_width`) and every sum runs along one row, so an element's
values do not depend on the other elements of the call.

A search for one element spends most of its time in the overhead of numpy calls on tiny
arrays (about 1 us each), so the window and what follows the sums are written once over the
routes of :mod:`mcnemar._routes` and run on Python floats for one element: the same bits as
the element gets in a batch.
"""

from __future__ import annotations

import functools
import math
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import special

from mcnemar import _routes as routes
from mcnemar._binomial import _stirlerr
from mcnemar._routes import Ops, Real
from mcnemar.planning._kernel import _region_rows, _regions

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]

#: Probability of Bin(n, psi) left outside a window, on each side (Chernoff's bound).
WINDOW_TAIL = 1e-12
_WINDOW_LOG = math.log(1.0 / WINDOW_TAIL)
#: Longest block: the log ratios summed along it keep their rounding below ~1e-12 relative.
_BLOCK = 1024
#: Rows (one per element) are padded to a multiple of this many points.
WIDTH_STEP = 16


def chernoff_windows(n: FloatArray, psi: FloatArray) -> tuple[FloatArray, FloatArray]:
    """[lo, hi] of M ~ Bin(n, psi) outside which each tail holds at most :data:`WINDOW_TAIL`,
    per element (one element on Python floats: :func:`_window`)."""
    lo, hi = routes.by_table(_window, (n, psi), {})
    return lo, hi


def _window(xp: Ops, n: Real, psi: Real) -> tuple[Any, Any]:
    """:func:`chernoff_windows` on either route.

    Chernoff: P(M >= u) <= exp(-g(u)) for u > n psi, and P(M <= u) likewise for u < n psi, with
    g(u) = n KL(u/n || psi); u solves g(u) = log(1/WINDOW_TAIL). One Newton step on g from
    Bernstein's (weaker) bound: g is convex, so the step from any point beside the root lands
    on the outer side of it (a valid window), and from Bernstein's it keeps at most a few
    points more than the root (a fraction of a per cent of a batch's points).
    """
    big_l = _WINDOW_LOG
    mean = n * psi
    rest_mean = n - mean
    t = big_l / 3.0 + xp.sqrt(big_l**2 / 9.0 + 2.0 * big_l * (mean * (1.0 - psi)))
    ends = []
    for u in (mean + t, mean - t):
        rest = n - u
        # Where Bernstein's bound passes an end (u < 0 or u > n: a log of a negative number,
        # NaN on arrays), the end itself: the step cannot pass it, and fmin and fmax take the
        # number over the NaN.
        up = xp.log(xp.divide(u, mean))
        down = xp.log(xp.divide(rest, rest_mean))
        ends.append(u - xp.divide(u * up + rest * down - big_l, up - down))
    hi = xp.ceil(xp.fmin(ends[0], n))
    lo = xp.floor(xp.fmax(ends[1], 0.0))
    # psi = 1: M = n (the lower step is not defined there)
    return xp.where(psi >= 1.0, n, lo), hi


# log C(N, x) with min(x, N - x) at most this is a product of as many ratios (see _log_choose).
_FEW = 15
_FEW_FACTORS = np.arange(1.0, _FEW + 1.0)


def _log_choose_few(small: FloatArray, big_n: FloatArray) -> FloatArray:
    """log C(N, s) for 0 < s <= _FEW: the log of prod_{i <= s} (N - s + i)/i, a product of at
    most 15 factors below N (its rounding is below 4e-15 relative; no overflow below 2^53)."""
    factors = np.where(_FEW_FACTORS <= small[:, None],
                       ((big_n - small)[:, None] + _FEW_FACTORS) / _FEW_FACTORS, 1.0)
    out: FloatArray = np.log(factors.prod(axis=1))
    return out


def _log_choose_loader(x: FloatArray, big_n: FloatArray) -> FloatArray:
    """log C(N, x) for 0 < x < N from Loader's saddle-point form at p = x/N, where its
    deviance terms vanish: log C = log P(Bin(N, x/N) = x) - x log(x/N) - (N - x) log(1 - x/N)
    (min(x, N - x) > _FEW: no Stirling error of a small count). With s the smaller of x and
    N - x, the larger side's term is (N - s) log1p(-s/N): log(1 - s/N) of the rounded ratio
    would lose digits to cancellation where s is much smaller than N."""
    y = big_n - x
    # the three Stirling errors in one call (it is elementwise)
    errors = _stirlerr(np.concatenate((big_n, x, y))).reshape(3, x.size)
    small = np.minimum(x, y)
    share = small / big_n
    out: FloatArray = (errors[0] - errors[1] - errors[2]
                       - 0.5 * np.log(2.0 * math.pi * x * y / big_n)
                       - small * np.log(share) - (big_n - small) * np.log1p(-share))
    return out


def _log_choose(x: FloatArray, big_n: FloatArray) -> FloatArray:
    """log C(N, x) for whole x, N (-inf outside 0..N; 0 at x = 0 and x = N): a product of
    ratios where x or N - x is small (:func:`_log_choose_few`), else Loader's form
    (:func:`_log_choose_loader`); which one depends on (x, N) alone."""
    if x.size == 1:
        # one point (an anchor of a one-element search): the same routes, chosen in floats
        x_1, n_1 = float(x[0]), float(big_n[0])
        if not 0.0 < x_1 < n_1:
            return np.array([-math.inf if x_1 < 0.0 or x_1 > n_1 else 0.0])
        if min(x_1, n_1 - x_1) <= _FEW:
            return _log_choose_few(np.minimum(x, big_n - x), big_n)
        return _log_choose_loader(x, big_n)
    out: FloatArray = np.where((x < 0.0) | (x > big_n), -np.inf, 0.0)
    small = np.minimum(x, big_n - x)
    inside = (x > 0.0) & (x < big_n)
    few = inside & (small <= _FEW)
    many = inside & ~few
    if few.any():
        out[few] = _log_choose_few(small[few], big_n[few])
    if many.any():
        out[many] = _log_choose_loader(x[many], big_n[many])
    return out


def path_width(count: Any) -> Any:
    """The row length of a window of ``count`` points (an int or an array of them): the next
    multiple of :data:`WIDTH_STEP` (a function of the window alone, so that an element's sums,
    which run over its row, do not depend on the rows beside it)."""
    return -(-count // WIDTH_STEP) * WIDTH_STEP


class PowerPath(NamedTuple):
    """The theta-free parts of the power sums of elements whose rows have the same length
    (see the module docstring): arrays of one row per element.

    Per point: (x, y) = (k - 1, m - k), the point of its probability P(Bin(x + y, p) = x),
    whose log is ``log_choose + x log p + y log q``, and the weights of the sums
    (``weights``: kept, raised, slope, slope times x, slope times y; 0 on the points past the
    window that fill the row). Per block (``anchor_row``: its element): the parameters of the
    incomplete beta function of its anchor's tail, I_p(a, b) where ``anchor_inside``, else the
    tail is ``anchor_fixed`` (True, 1, below the first count; False, 0, beyond the last), and
    the weight of its block. ``single``: every row is one block (anchor_row = 0, 1, ...).
    """

    log_choose: FloatArray
    x: FloatArray
    y: FloatArray
    weights: FloatArray
    anchor_row: IntArray
    anchor_a: FloatArray
    anchor_b: FloatArray
    anchor_inside: npt.NDArray[np.bool_]
    anchor_fixed: npt.NDArray[np.bool_]
    anchor_weight: FloatArray
    single: bool
    top: FloatArray


@functools.lru_cache(maxsize=64)
def first_rejecting(tail_alpha: float, method: str) -> float:
    """The smallest count of discordant items at which the test can reject (j(m) >= 0):
    below it the conditional power is 0 whatever theta."""
    top = 256
    while top <= 1 << 22:
        j = _regions(np.arange(float(top)), tail_alpha, method)
        hit = np.flatnonzero(j >= 0.0)
        if hit.size:
            return float(hit[0])
        top *= 4
    return 0.0


@functools.lru_cache(maxsize=64)
def _columns(width: int) -> FloatArray:
    """0, 1, ..., width - 1 as one row (read-only: shared by every call of that width)."""
    col = np.arange(width, dtype=np.float64)[None, :]
    col.setflags(write=False)
    return col


def _blocks(x: FloatArray, proper: npt.NDArray[np.bool_], width: int
            ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Where the threshold k = x + 1 is kept from the point before (``kept``; the first point
    counts as kept), and where a block starts (``new``): the first point, a step of the
    threshold other than 0 or 1, a point outside 0..N and the point after one, and every
    _BLOCK points."""
    rows = x.shape[0]
    kept = np.empty((rows, width), dtype=bool)
    new = np.empty((rows, width), dtype=bool)
    kept[:, 0] = True
    new[:, 0] = True
    step_k = x[:, 1:] - x[:, :-1]
    np.equal(step_k, 0.0, out=kept[:, 1:])
    regular = (kept[:, 1:] | (step_k == 1.0)) & proper[:, 1:] & proper[:, :-1]
    np.logical_not(regular, out=new[:, 1:])
    if width > _BLOCK:
        col = _columns(width)
        last = np.maximum.accumulate(np.where(new, col, 0.0), axis=1)
        new |= (col - last) % _BLOCK == 0.0
    return kept, new


class _PathShape(NamedTuple):
    """The parts of a :class:`PowerPath` that depend on the windows' starts, the row length
    and the test's region only (not on n or psi): per point m, the point (x, y) of its
    probability and its log binomial coefficient, where the threshold is kept and where a
    block starts; per block, its anchor's parameters; for the suffix sums of a row of many
    blocks, each point's block end (None for rows of one block each)."""

    m: FloatArray
    j: FloatArray
    x: FloatArray
    y: FloatArray
    kept: npt.NDArray[np.bool_]
    new: npt.NDArray[np.bool_]
    single: bool
    log_choose: FloatArray
    end: IntArray | None
    anchor_row: IntArray
    anchor_a: FloatArray
    anchor_b: FloatArray
    anchor_inside: npt.NDArray[np.bool_]
    anchor_fixed: npt.NDArray[np.bool_]


def _path_shape(lo: FloatArray, width: int, tail_alpha: float, method: str) -> _PathShape:
    """The :class:`_PathShape` of rows starting at ``lo`` (one element's is kept:
    :func:`_one_path_shape`, the same values)."""
    if lo.size == 1:
        return _one_path_shape(float(lo[0]), width, tail_alpha, method)
    return _path_shape_of(lo, width, tail_alpha, method)


@functools.lru_cache(maxsize=256)
def _one_path_shape(lo: float, width: int, tail_alpha: float, method: str) -> _PathShape:
    """:func:`_path_shape_of` of one row, kept (read-only) for the next element with the same
    window start and row length: the region of the test along m is the same for every table
    whose window starts there."""
    shape = _path_shape_of(np.array([lo]), width, tail_alpha, method)
    for value in shape:
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
    return shape


def _path_shape_of(lo: FloatArray, width: int, tail_alpha: float, method: str) -> _PathShape:
    """:class:`_PathShape` of rows of ``width`` points from ``lo`` (see :func:`power_path`)."""
    rows = lo.size
    m = lo[:, None] + _columns(width)
    j = _region_rows(m, lo, tail_alpha, method)
    # The point of each step, (x, N) = (k - 1, m - 1) with k = m - j: y = N - x = j (x steps
    # with k).
    big_n = m - 1.0
    x = big_n - j
    y = j
    proper = (x >= 0.0) & (y >= 0.0)
    kept, new = _blocks(x, proper, width)
    single = not new[:, 1:].any()
    with np.errstate(divide="ignore", invalid="ignore"):
        # the log ratios of binomial coefficients along a block: C(N, x)/C(N - 1, x) = N/(N - x)
        # = N/y (kept), C(N, x)/C(N - 1, x - 1) = N/x (raised)
        coef = np.log(big_n / np.where(kept, y, x))
    coef[new] = 0.0
    coef.cumsum(axis=1, out=coef)
    end: IntArray | None = None
    if single:
        anchor_row = np.arange(rows)
        anchor_x, anchor_j, anchor_inside = x[:, 0], j[:, 0], proper[:, 0]
        log_choose = _log_choose(x[:, 0], big_n[:, 0])[:, None] + coef
    else:
        # each point's anchor (last new column at or before it) and its block's last column
        ids = np.arange(width, dtype=np.intp)[None, :]
        anchor = np.maximum.accumulate(np.where(new, ids, 0), axis=1)
        starts = np.where(new, ids, width)
        following = np.minimum.accumulate(starts[:, ::-1], axis=1)[:, ::-1]
        end = np.concatenate((following[:, 1:], np.full((rows, 1), width)), axis=1) - 1
        at_anchor = np.zeros((rows, width))
        at_anchor[new] = _log_choose(x[new], big_n[new])
        log_choose = (np.take_along_axis(at_anchor, anchor, axis=1) + coef
                      - np.take_along_axis(coef, anchor, axis=1))
        anchor_row = np.nonzero(new)[0]
        anchor_x, anchor_j, anchor_inside = x[new], j[new], proper[new]
        x = np.where(proper, x, 0.0)
        y = np.where(proper, y, 0.0)
    # The anchors' tails P(X >= k), X ~ Bin(m, p), as in _binom_sf: I_p(k, m - k + 1) where
    # 1 <= k <= m, that is x >= 0 and j >= 0 (the point is proper), with m - k + 1 = j + 1.
    return _PathShape(
        m=m, j=j, x=x, y=y, kept=kept, new=new, single=single, log_choose=log_choose, end=end,
        anchor_row=anchor_row,
        anchor_a=np.where(anchor_inside, anchor_x + 1.0, 1.0),
        anchor_b=np.where(anchor_inside, anchor_j + 1.0, 1.0),
        anchor_inside=anchor_inside,
        anchor_fixed=anchor_x < 0.0,
    )


def power_path(
    n: FloatArray, psi: FloatArray, lo: FloatArray, hi: FloatArray, width: int,
    tail_alpha: float, method: str,
) -> PowerPath:
    """The :class:`PowerPath` of the elements (n[i], psi[i]) (0 < psi <= 1) over the windows
    [lo, hi] (of :func:`chernoff_windows`, lo raised to :func:`first_rejecting` at least, so
    lo >= 1), in rows of ``width`` points, for a test's region at ``tail_alpha``: the
    :class:`_PathShape` of the windows and the weights of the elements."""
    rows = n.size
    shape = _path_shape(lo, width, tail_alpha, method)
    m, new = shape.m, shape.new
    with np.errstate(divide="ignore", invalid="ignore"):
        # Binomial weights relative to the first point's, by the ratios of consecutive ones
        # summed in logs along the row (at most e^50 or so: the window holds all but 1e-12
        # of each tail), then scaled to the row's mass (past n, on the points that only fill
        # the row, the logs are NaN: weight 0).
        odds = np.log(psi) - np.log1p(-psi)
        ratio = np.log((n[:, None] - m) / (m + 1.0))
        before = np.empty((rows, width))
        before[:, 0] = 0.0
        np.add(ratio[:, :-1], odds[:, None], out=before[:, 1:])
        before.cumsum(axis=1, out=before)
        u = np.where(m <= hi[:, None], np.exp(before), 0.0)
    # The row's mass, P(M >= lo) = I_psi(lo, n - lo + 1) (lo may have been raised above the
    # window's start; lo >= 1, as no test rejects without discordant items; the tail past hi
    # is the window's own 1e-12).
    u_sum = u.cumsum(axis=1)
    scale = (special.betainc(lo, n - lo + 1.0, psi) / u_sum[:, -1])[:, None]
    w = u * scale
    w_sum = u_sum * scale
    if shape.end is None:
        suffix = w_sum[:, -1:] - w_sum + w
    else:
        suffix = np.take_along_axis(w_sum, shape.end, axis=1) - w_sum + w
    suffix = np.maximum(suffix, 0.0)
    weights = np.empty((5, rows, width))
    # kept and raised: the suffix sums on the points that take a step (not the anchors)
    np.multiply(suffix, ~new, out=weights[1])
    np.multiply(weights[1], shape.kept, out=weights[0])
    np.subtract(weights[1], weights[0], out=weights[1])
    np.multiply(w, m, out=weights[2])
    np.multiply(weights[2], shape.x, out=weights[3])
    np.multiply(weights[2], shape.y, out=weights[4])
    return PowerPath(
        log_choose=shape.log_choose,
        x=shape.x,
        y=shape.y,
        weights=weights,
        anchor_row=shape.anchor_row,
        anchor_a=shape.anchor_a,
        anchor_b=shape.anchor_b,
        anchor_inside=shape.anchor_inside,
        anchor_fixed=shape.anchor_fixed,
        anchor_weight=suffix[:, 0] if shape.single else suffix[new],
        single=shape.single,
        top=np.einsum("ij,ij->i", w, (shape.j >= 0.0).astype(np.float64)),
    )


def _tail_sums(
    path: PowerPath, p: FloatArray, q: FloatArray, log_p: FloatArray, log_q: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Per tail (row of p: the upper tail at p = theta, the lower one at p = 1 - theta) and
    element: the five sums of ``path.weights`` times the point probabilities, and the
    anchors' part of the power, for p, q = 1 - p and their logarithms."""
    f = np.exp(path.log_choose + path.x * log_p[:, :, None] + path.y * log_q[:, :, None])
    sums: FloatArray = np.einsum("kij,tij->tki", path.weights, f)
    anchors: FloatArray
    if path.single:
        tail = np.where(path.anchor_inside, special.betainc(path.anchor_a, path.anchor_b, p),
                        path.anchor_fixed)
        anchors = path.anchor_weight * tail
    else:
        tail = np.where(path.anchor_inside,
                        special.betainc(path.anchor_a, path.anchor_b, p[:, path.anchor_row]),
                        path.anchor_fixed)
        tails, rows = p.shape
        anchors = np.asarray(np.bincount(
            (path.anchor_row + rows * np.arange(tails)[:, None]).ravel(),
            weights=(path.anchor_weight * tail).ravel(), minlength=tails * rows,
        ), dtype=np.float64).reshape(tails, rows)
    return sums, anchors


def power_sums(path: PowerPath, theta: Real, two_sided: bool) -> tuple[Any, Any, Any]:
    """The exact power at theta per element (row) of ``path`` and its first two derivatives
    in theta; for a float theta (a path of one element) three floats.

    The upper tail is sum_m w_m P(Bin(m, theta) >= k_m); the lower region X <= j is
    m - X >= m - j with m - X ~ Bin(m, 1 - theta), the same sums at 1 - theta (its slope
    negated): both tails are evaluated together, as the two rows of one array. The row sums
    are ``einsum``'s, which adds a row's terms in an order set by the row's length alone (the
    tests check that a row gives the same sums whatever rows are beside it); what follows
    them (:func:`_tail_power`) runs on Python floats for a float theta, without a dozen numpy
    calls on one-element arrays. At theta = 1 it divides by 0: the searches call it under
    ``np.errstate``.
    """
    # rows: the upper tail, then the lower one (p and q swapped: q is p's rows reversed);
    # the logarithms are taken of contiguous arrays (numpy's are the same on any of those)
    theta_c = 1.0 - theta
    if two_sided:
        p = (np.array([[theta], [theta_c]]) if isinstance(theta, float)
             else np.concatenate((theta, theta_c)).reshape(2, theta.size))
        q = p[::-1]
    else:
        p, q = np.atleast_2d(theta), np.atleast_2d(theta_c)
    log_p = np.log(p)
    log_q = log_p[::-1] if two_sided else np.log(q)
    sums, anchors = _tail_sums(path, p, q, log_p, log_q)
    if isinstance(theta, float):
        # (p and q of the rows as Python floats: 1 - theta rounds as in the array)
        rows = ((theta, theta_c), (theta_c, theta))
        value, slope, curve = zip(*(
            _tail_power(routes.FLOATS, anchor, p_t, q_t, *row)
            for anchor, (p_t, q_t), row in zip(anchors[:, 0].tolist(), rows,
                                               sums[:, :, 0].tolist(), strict=False)
        ), strict=True)
    else:
        value, slope, curve = _tail_power(routes.ARRAYS, anchors, p, q, *sums.transpose(1, 0, 2))
    if two_sided:
        return value[0] + value[1], slope[0] - slope[1], curve[0] + curve[1]
    return value[0], slope[0], curve[0]


def _tail_power(xp: Ops, anchor: Real, p: Real, q: Real, kept: Real, raised: Real,
                slope: Real, slope_x: Real, slope_y: Real) -> tuple[Any, Any, Any]:
    """One tail's power, slope and curvature from its sums (:func:`_tail_sums`) at p and
    q = 1 - p: floats for one element, rows of arrays (the tails) for many."""
    value = anchor + p * kept - q * raised
    curve = xp.divide(slope_x, p) - xp.divide(slope_y, q)
    # (np.clip costs more than its work on small arrays)
    return xp.minimum(xp.maximum(value, 0.0), 1.0), slope, xp.finite(curve)


def path_take(path: PowerPath, keep: npt.NDArray[np.bool_]) -> PowerPath:
    """The :class:`PowerPath` of the elements (rows) where ``keep`` is True (in order)."""
    if keep.all():
        return path
    blocks = keep[path.anchor_row]
    new_id = np.cumsum(keep) - 1
    return PowerPath(
        log_choose=path.log_choose[keep],
        x=path.x[keep],
        y=path.y[keep],
        weights=path.weights[:, keep],
        anchor_row=new_id[path.anchor_row[blocks]],
        anchor_a=path.anchor_a[blocks],
        anchor_b=path.anchor_b[blocks],
        anchor_inside=path.anchor_inside[blocks],
        anchor_fixed=path.anchor_fixed[blocks],
        anchor_weight=path.anchor_weight[blocks],
        single=path.single,
        top=path.top[keep],
    )
