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
from the block's first point (Loader's form) plus the logs of the ratios of consecutive ones
summed along the block.

Each element (n, psi) is one row of points, m from the first count at which the test can
reject, or the window's start if later, to the window's end. The windows of m are cut by
Chernoff's bound at :data:`WINDOW_TAIL` per side (about 7 standard deviations; Bernstein's
bound, which the exact power of :mod:`._kernel` uses at 5e-16, keeps a fifth more), and the
weights follow from the mode's by the ratios :math:`w_{m+1}/w_m = (n - m)\psi/((m + 1)
(1 - \psi))`, summed along the row in logs. The sums are accurate to about 1e-12 absolute;
the tests compare them with :func:`mcnemar.planning._kernel._exact_power`. Rows are padded
to a length that depends on their own window only (:func:`path_width`) and every sum runs
along one row, so an element's values do not depend on the other elements of the call.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import special

from mcnemar.planning._kernel import _binom_sf, _log_pmf, _pmf_base, _regions

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]

#: Probability of Bin(n, psi) left outside a window, on each side (Chernoff's bound).
WINDOW_TAIL = 1e-12
_WINDOW_LOG = math.log(1.0 / WINDOW_TAIL)
#: Newton steps on Chernoff's exponent, from Bernstein's window inwards (every iterate is a
#: valid window: the exponent is convex, so the steps approach its root from outside).
_CHERNOFF_STEPS = 6
#: Longest block: the log ratios summed along it keep their rounding below ~1e-12 relative.
_BLOCK = 1024
#: Rows (one per element) are padded to a multiple of this many points.
WIDTH_STEP = 16


def chernoff_windows(n: FloatArray, psi: FloatArray) -> tuple[FloatArray, FloatArray]:
    """[lo, hi] of M ~ Bin(n, psi) outside which each tail holds at most :data:`WINDOW_TAIL`.

    Chernoff: P(M >= n q) <= exp(-n KL(q || psi)) for q > psi, and P(M <= n q) likewise for
    q < psi; q solves n KL(q || psi) = log(1/WINDOW_TAIL) by Newton steps from Bernstein's
    (weaker) bound, which start outside the root and stay there.
    """
    big_l = _WINDOW_LOG
    var = n * psi * (1.0 - psi)
    t = big_l / 3.0 + np.sqrt(big_l**2 / 9.0 + 2.0 * big_l * var)
    with np.errstate(divide="ignore", invalid="ignore"):
        q_hi = np.clip((n * psi + t) / n, psi, 1.0)
        q_lo = np.clip((n * psi - t) / n, 0.0, psi)
        # both ends' steps in one call per step (every operation is elementwise)
        q_both = np.stack([q_hi, q_lo])
        for _ in range(_CHERNOFF_STEPS):
            q_both = _chernoff_step(q_both, n, psi, big_l)
        q_hi, q_lo = q_both[0], q_both[1]
    lo = np.clip(np.floor(n * q_lo), 0.0, n)
    hi = np.clip(np.ceil(n * q_hi), 0.0, n)
    lo = np.where(np.isfinite(lo), lo, 0.0)
    hi = np.where(np.isfinite(hi), hi, n)
    # psi = 1: M = n
    lo = np.where(psi >= 1.0, n, lo)
    return lo, np.maximum(hi, lo)


def _chernoff_step(q: FloatArray, n: FloatArray, psi: FloatArray, big_l: float) -> FloatArray:
    """One Newton step on n KL(q || psi) - big_l, kept where the step is not defined."""
    rest_q, rest_psi = 1.0 - q, 1.0 - psi
    kl = special.xlogy(q, q / psi) + special.xlogy(rest_q, rest_q / rest_psi)
    slope = np.log(q / rest_q) - np.log(psi / rest_psi)
    step = (n * kl - big_l) / (n * slope)
    inside = (q > 0.0) & (q < 1.0) & np.isfinite(step) & (n * kl > big_l)
    out: FloatArray = np.where(inside, q - step, q)
    return out


def _log_choose(x: FloatArray, big_n: FloatArray) -> FloatArray:
    """log C(N, x) for whole 0 <= x <= N (-inf outside), from Loader's saddle-point form at
    p = x/N, where its deviance terms vanish: log C = log P(Bin(N, x/N) = x) - x log(x/N)
    - (N - x) log(1 - x/N)."""
    base = _pmf_base(x, big_n)
    with np.errstate(divide="ignore", invalid="ignore"):
        inner = (base.stirling - base.half_log - special.xlogy(base.xi, base.xi / base.ni)
                 - special.xlogy(base.ni - base.xi, (base.ni - base.xi) / base.ni))
    out = np.where(base.inside, inner, 0.0)
    result: FloatArray = np.where((x < 0.0) | (x > big_n), -np.inf, out)
    return result


def path_width(count: IntArray) -> IntArray:
    """The row length of a window of ``count`` points: the next multiple of
    :data:`WIDTH_STEP` (a function of the window alone, so that an element's sums, which run
    over its row, do not depend on the rows beside it)."""
    out: IntArray = -(-count // WIDTH_STEP) * WIDTH_STEP
    return out


class PowerPath(NamedTuple):
    """The theta-free parts of the power sums of elements whose rows have the same length
    (see the module docstring): arrays of one row per element.

    Per point: (x, y) = (k - 1, m - k), the point of its probability P(Bin(x + y, p) = x),
    whose log is ``log_choose + x log p + y log q``, and the weights of the sums
    (``weights``: kept, raised, slope, slope times x, slope times y; 0 on the points past the
    window that fill the row). Per block (``anchor_row``: its element): the anchor's
    threshold, count and the weight of its block.
    """

    log_choose: FloatArray
    x: FloatArray
    y: FloatArray
    weights: FloatArray
    anchor_row: IntArray
    anchor_k: FloatArray
    anchor_m: FloatArray
    anchor_weight: FloatArray
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


class PathStart(NamedTuple):
    """What :func:`power_path` needs of each element besides (n, psi): its window [lo, hi]
    (of :func:`chernoff_windows`, raised to :func:`first_rejecting` at most), the log
    probability of the mode m* = floor((n + 1) psi) clipped to it, and log C(N, x) at the
    first point of the window; computed for all elements at once."""

    lo: FloatArray
    hi: FloatArray
    log_mode: FloatArray
    log_choose: FloatArray

    @classmethod
    def of(cls, n: FloatArray, psi: FloatArray, lo: FloatArray, hi: FloatArray,
           tail_alpha: float, method: str) -> PathStart:
        mode = np.clip(np.floor((n + 1.0) * psi), lo, hi)
        k = lo - _regions(lo, tail_alpha, method)
        return cls(lo, hi, _log_pmf(mode, n, psi, 1.0 - psi), _log_choose(k - 1.0, lo - 1.0))

    def take(self, idx: IntArray) -> PathStart:
        return PathStart(*(part[idx] for part in self))


def power_path(
    n: FloatArray, psi: FloatArray, start: PathStart, width: int, tail_alpha: float,
    method: str,
) -> PowerPath:
    """The :class:`PowerPath` of the elements (n[i], psi[i]) (0 < psi <= 1) over the windows
    of ``start``, in rows of ``width`` points, for a test's region at ``tail_alpha``."""
    lo, hi, log_mode = start.lo, start.hi, start.log_mode
    rows = n.size
    col = np.arange(width, dtype=np.float64)[None, :]
    m = lo[:, None] + col
    real = m <= hi[:, None]
    j = _regions(m.ravel(), tail_alpha, method).reshape(rows, width)
    k = m - j
    # The point of each step, (x, N) = (k - 1, m - 1), y = N - x. Points outside 0..N have
    # probability 0 and start a block (so does the point after one), as do irregular steps
    # and every _BLOCK points.
    x = k - 1.0
    big_n = m - 1.0
    y = big_n - x
    proper = (x >= 0.0) & (y >= 0.0)
    step_k = np.diff(k, axis=1, prepend=k[:, :1])
    kept = step_k == 0.0
    new = (~kept & (step_k != 1.0)) | ~proper
    new[:, 0] = True
    new[:, 1:] |= ~proper[:, :-1]
    if width > _BLOCK:
        last = np.maximum.accumulate(np.where(new, col, 0.0), axis=1)
        new |= (col - last) % _BLOCK == 0.0
    single = bool(new.sum() == rows)
    # Binomial weights from the mode's by the ratios of consecutive ones, and the log ratios
    # of binomial coefficients along a block: C(N, x)/C(N - 1, x) = N/(N - x) = N/y (kept),
    # C(N, x)/C(N - 1, x - 1) = N/x (raised); both summed along the rows.
    n_c = n[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        odds = (np.log(psi) - np.log1p(-psi))[:, None]
        ratio = np.log(np.maximum(n_c - m, 0.0) / (m + 1.0))
        coef = np.log(big_n / np.where(kept, y, x))
    coef[new] = 0.0
    np.cumsum(coef, axis=1, out=coef)
    # the log ratios of the steps before each point, summed
    before = np.zeros((rows, width))
    with np.errstate(invalid="ignore"):
        np.add(ratio[:, :-1], odds, out=before[:, 1:])
    np.cumsum(before, axis=1, out=before)
    # log w = log w_mode + (ratios of the steps before the point) - (those before the mode)
    mode_col = (np.clip(np.floor((n + 1.0) * psi), lo, hi) - lo).astype(np.intp)
    at_mode = before[np.arange(rows), mode_col]
    with np.errstate(invalid="ignore"):
        w = np.where(real, np.exp(log_mode[:, None] + (before - at_mode[:, None])), 0.0)
    w_sum = np.cumsum(w, axis=1)
    if single:
        log_choose = start.log_choose[:, None] + coef
        suffix = w_sum[:, -1:] - w_sum + w
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
        suffix = np.take_along_axis(w_sum, end, axis=1) - w_sum + w
        x = np.where(proper, x, 0.0)
        y = np.where(proper, y, 0.0)
    suffix = np.maximum(suffix, 0.0)
    inner = ~new
    weights = np.empty((5, rows, width))
    np.multiply(suffix, inner & kept, out=weights[0])
    np.multiply(suffix, inner & ~kept, out=weights[1])
    np.multiply(w, m, out=weights[2])
    np.multiply(weights[2], x, out=weights[3])
    np.multiply(weights[2], y, out=weights[4])
    return PowerPath(
        log_choose=log_choose,
        x=x,
        y=y,
        weights=weights,
        anchor_row=np.nonzero(new)[0],
        anchor_k=k[new],
        anchor_m=m[new],
        anchor_weight=suffix[new],
        top=np.einsum("ij,ij->i", w, (j >= 0.0).astype(np.float64)),
    )


def tail_sums(
    path: PowerPath, p: FloatArray, q: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """sum_m w_m P(Bin(m, p) >= k_m) per element (row) of ``path``, and its first two
    derivatives in p (q = 1 - p, given separately to keep its digits).

    The row sums are ``einsum``'s, which adds a row's terms in an order set by the row's
    length alone (the tests check that a row gives the same sums whatever rows are beside
    it).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        log_p, log_q = np.log(p)[:, None], np.log(q)[:, None]
        f = np.exp(path.log_choose + path.x * log_p + path.y * log_q)
    kept, raised, slope, slope_x, slope_y = np.einsum("kij,ij->ki", path.weights, f)
    rows = path.anchor_row
    anchors = np.bincount(rows, weights=path.anchor_weight
                          * _binom_sf(path.anchor_k, path.anchor_m, p[rows]),
                          minlength=p.size)
    value = anchors + p * kept - q * raised
    with np.errstate(divide="ignore", invalid="ignore"):
        curve = slope_x / p - slope_y / q
    # (np.clip and nan_to_num cost more than their work on small arrays)
    value = np.minimum(np.maximum(value, 0.0), 1.0)
    return value, slope, curve if np.isfinite(curve).all() else np.nan_to_num(curve)


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
        anchor_k=path.anchor_k[blocks],
        anchor_m=path.anchor_m[blocks],
        anchor_weight=path.anchor_weight[blocks],
        top=path.top[keep],
    )
