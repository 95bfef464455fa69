"""The exact power of McNemar's tests (see :mod:`mcnemar.planning` for the method): binomial
probabilities, the critical counts ``j(m)``, the recurrence along runs of ``m``, Connor's
(1987) normal approximation, and the search over the number of items that sample sizes share.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import special

from mcnemar._binomial import _bd0, _stirlerr
from mcnemar._routes import Ops, Real

FloatArray = npt.NDArray[np.float64]


# Probability of Bin(n, psi) left outside the summation window, on each side.
_TAIL_EPS = 5e-16
_TAIL_LOG = math.log(1.0 / _TAIL_EPS)
# Upper bound on the (element, m) pairs evaluated at once when scanning many n.
_CHUNK_PAIRS = 1 << 18


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


class _PmfBase(NamedTuple):
    """The parts of log P(X = x), X ~ Bin(n, p), that do not depend on p (see :func:`_log_pmf`)."""

    x: FloatArray
    n: FloatArray
    inside: npt.NDArray[np.bool_]
    xi: FloatArray
    ni: FloatArray
    stirling: FloatArray
    half_log: FloatArray


def _pmf_base(x: FloatArray, n: FloatArray) -> _PmfBase:
    inside = (x > 0) & (x < n)
    xi = np.where(inside, x, 1.0)
    ni = np.where(inside, n, 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        # the three Stirling errors in one call (it is elementwise)
        errors = _stirlerr(np.stack([ni, xi, ni - xi]))
        stirling = errors[0] - errors[1] - errors[2]
        half_log = 0.5 * np.log(2.0 * math.pi * xi * (ni - xi) / ni)
    return _PmfBase(x, n, inside, xi, ni, stirling, half_log)


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
    return _log_pmf_at(_pmf_base(x_, n_), p_, q_)


def _log_pmf_at(base: _PmfBase, p: Any, q: Any) -> FloatArray:
    """:func:`_log_pmf` at (p, q) from its parts that do not depend on them (``base``), which a
    search over p computes once."""
    x_, n_ = base.x, base.n
    p_ = np.broadcast_to(np.asarray(p, np.float64), x_.shape)
    q_ = np.broadcast_to(np.asarray(q, np.float64), x_.shape)
    interior = base.inside & (p_ > 0) & (q_ > 0)
    xi, ni = base.xi, base.ni
    pi = np.where(interior, p_, 0.5)
    qi = np.where(interior, q_, 0.5)
    with np.errstate(divide="ignore", invalid="ignore"):
        body = base.stirling - _bd0(xi, ni * pi) - _bd0(ni - xi, ni * qi) - base.half_log
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


class _PathPlan(NamedTuple):
    """What :func:`_path_sf` computes from (m, k) alone: the anchors, the layout of the blocks
    and the p-free parts of the point probabilities; a search over p reuses it."""

    kept: npt.NDArray[np.bool_]
    idx: npt.NDArray[np.intp]
    block: npt.NDArray[np.intp]
    offset: npt.NDArray[np.intp]
    width: int
    base: _PmfBase


def _path_plan(m: FloatArray, k: FloatArray, starts: npt.NDArray[np.bool_]) -> _PathPlan:
    size = m.size
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
    # The step's point (k - 1, m - 1) either way: k_prev - 1 kept or k_prev raised. An anchor
    # takes no step; its point is still (k - 1, m - 1), where the derivative of the tail in p
    # needs it (d/dp P(Bin(m, p) >= k) = m P(Bin(m - 1, p) = k - 1)).
    x = np.where(anchor, k - 1.0, np.where(kept, k_prev - 1.0, k_prev))
    n_point = np.where(anchor, m - 1.0, m_prev)
    idx = np.flatnonzero(anchor)
    block = np.cumsum(anchor) - 1
    offset = pos - idx[block]
    return _PathPlan(kept, idx, block, offset, int(offset.max()) + 1, _pmf_base(x, n_point))


def _path_sf(
    m: FloatArray, k: FloatArray, p: FloatArray, q: FloatArray, starts: npt.NDArray[np.bool_],
    plan: _PathPlan | None = None,
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
    if m.size == 0:
        return np.zeros(0)
    if plan is None:
        plan = _path_plan(m, k, starts)
    log_coef = np.where(plan.kept, _safe_log(p), _safe_log(q))
    p_anchor = p[plan.idx] if np.ndim(p) else p
    return _path_sum(plan, m, k, p_anchor, log_coef + _log_pmf_at(plan.base, p, q))


def _path_sum(
    plan: _PathPlan, m: FloatArray, k: FloatArray, p_anchor: Any, log_step: FloatArray
) -> FloatArray:
    """The running sums of :func:`_path_sf` from the logs of its steps (p or q times the point
    probability of ``plan.base``), restarted at the exact anchors (``p_anchor``: p there)."""
    delta = np.exp(log_step)
    delta = np.where(plan.kept, delta, -delta)
    idx = plan.idx
    delta[idx] = 0.0
    # Restart the running sum at every anchor. Each block is summed on its own (one row of a
    # padded grid) so that a value does not depend on the blocks before it: an element of an
    # array of problems gets the same result as when it is computed alone.
    grid = np.zeros((idx.size, plan.width))
    grid[plan.block, plan.offset] = delta
    running = np.cumsum(grid, axis=1)[plan.block, plan.offset]
    exact = _binom_sf(k[idx], m[idx], p_anchor)
    out: FloatArray = np.clip(exact[plan.block] + running, 0.0, 1.0)
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


def _critical_lower(
    m: Any, tail_alpha: float, method: str, block: int | None = None
) -> FloatArray:
    """Largest j in {-1, ..., m} whose one-sided null p-value is <= tail_alpha (-1: none).

    ``m`` must be sorted and unique. For the exact and mid-p tests, the null CDF is evaluated
    along the normal-approximation guess g(m) with :func:`_path_sf` (g rises by 0 or 1 per
    step), at g - 4 .. g + 2 by adding point probabilities; where the answer falls outside that
    band, or a criterion is within 1e-9 (relative) of tail_alpha, the exact bisection of
    :func:`_critical_bisect` decides. With ``block``, the path also restarts at every m that
    is a multiple of it, so that the values of each block of that many consecutive m are
    those of the block computed alone.
    """
    m_arr = np.asarray(m, dtype=np.float64).ravel()
    if method == "asymptotic" or m_arr.size == 0:
        j = _critical_bisect(m_arr, tail_alpha, method)
    else:
        g = np.clip(np.floor(0.5 * m_arr + 0.5 * special.ndtri(tail_alpha) * np.sqrt(m_arr)),
                    -1.0, m_arr)
        half = np.full(m_arr.shape, 0.5)
        base = g - 4.0
        starts = _runs(m_arr)
        if block is not None:
            starts |= m_arr % block == 0.0
        # F(base) = P(X <= base) = P(X >= m - base) under theta = 1/2
        cdf = [_path_sf(m_arr, m_arr - base, half, half, starts)]
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
    starts: npt.NDArray[np.bool_], plan: _PathPlan | None = None,
) -> FloatArray:
    """P(reject | m discordant) when A wins each with probability theta (theta_c = 1 - theta).

    Upper region X >= m - j; the lower region X <= j has the probability of m - X >= m - j with
    m - X ~ Bin(m, 1 - theta). theta_c is passed separately so that it keeps full precision.
    ``m`` runs consecutively between the ``starts`` marks.
    """
    th = np.broadcast_to(np.asarray(theta, np.float64), m.shape)
    thc = np.broadcast_to(np.asarray(theta_c, np.float64), m.shape)
    # Both tails walk the same path: one plan (``plan``: made once for a search over theta).
    if plan is None:
        plan = _path_plan(m, m - j, starts)
    cp = _path_sf(m, m - j, th, thc, starts, plan)
    if two_sided:
        cp = cp + _path_sf(m, m - j, thc, th, starts, plan)
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


# j(m) depends on m, the tail alpha and the test only (not on n, psi or theta): below this m
# it is computed once per block of _REGION_BLOCK consecutive counts and kept (the last
# _REGION_KEPT blocks used), so that repeated power and detectable-difference calls at the
# same alpha look it up. A block always has the values it has computed alone (the blocks a
# call lacks are computed together, with the path restarted at each block), so j(m) does not
# depend on which other m a call needs.
_REGION_BLOCK = 256
_REGION_CACHED_BELOW = 1 << 16
_REGION_KEPT = 256
_region_cache: OrderedDict[tuple[float, str, int], FloatArray] = OrderedDict()
_region_lock = threading.Lock()


def _region_blocks(tail_alpha: float, method: str, first: int, last: int) -> FloatArray:
    """j(m) for m = first .. last + _REGION_BLOCK - 1 (first and last block starts)."""
    if first == last:
        # one block kept: itself (read-only), without the copy a concatenation makes
        key = (tail_alpha, method, first)
        with _region_lock:
            kept_block = _region_cache.get(key)
            if kept_block is not None:
                _region_cache.move_to_end(key)
                return kept_block
    starts = range(first, last + 1, _REGION_BLOCK)
    with _region_lock:
        kept = {s: _region_cache.get((tail_alpha, method, s)) for s in starts}
        if all(block is not None for block in kept.values()):
            # all kept (the rule for a search): one pass under the lock
            for s in starts:
                _region_cache.move_to_end((tail_alpha, method, s))
            out_kept: FloatArray = np.concatenate([kept[s] for s in starts])
            return out_kept
    blocks: dict[int, FloatArray] = {s: block for s, block in kept.items() if block is not None}
    missing = [s for s in starts if s not in blocks]
    if missing:
        m = np.concatenate([np.arange(s, s + _REGION_BLOCK, dtype=np.float64) for s in missing])
        j = _critical_lower(m, tail_alpha, method, block=_REGION_BLOCK)
        for i, s in enumerate(missing):
            block = j[i * _REGION_BLOCK : (i + 1) * _REGION_BLOCK].copy()
            block.setflags(write=False)
            blocks[s] = block
    with _region_lock:
        for s in starts:
            _region_cache[(tail_alpha, method, s)] = blocks[s]
            _region_cache.move_to_end((tail_alpha, method, s))
        while len(_region_cache) > _REGION_KEPT:
            _region_cache.popitem(last=False)
    out: FloatArray = np.concatenate([blocks[s] for s in starts])
    return out


def _regions(m: FloatArray, tail_alpha: float, method: str) -> FloatArray:
    """j(m) for an arbitrary (unsorted, repeated) flat array of m."""
    if m.size and float(m.max()) < _REGION_CACHED_BELOW:
        # Only the blocks that hold some m: a window of Bin(n, psi) around D = 60000 spans
        # ~16 blocks, where all blocks from 0 up would be ~240.
        mi = m.astype(np.intp)
        first = int(mi.min()) // _REGION_BLOCK * _REGION_BLOCK
        last = int(mi.max()) // _REGION_BLOCK * _REGION_BLOCK
        table: FloatArray = _region_blocks(tail_alpha, method, first, last)[mi - first]
        return table
    values, inverse = np.unique(m, return_inverse=True)
    out: FloatArray = _critical_lower(values, tail_alpha, method)[inverse.ravel()]
    return out


def _region_rows(m: FloatArray, lo: FloatArray, tail_alpha: float, method: str) -> FloatArray:
    """:func:`_regions` of rows of consecutive counts, m[i] = lo[i], lo[i] + 1, ... (2-D), whose
    range follows from ``lo`` and the row length alone (not to be written to: one row is a
    view of the kept blocks)."""
    if m.size == 0:
        return np.zeros(m.shape)
    low, high = (float(lo[0]),) * 2 if lo.size == 1 else (float(lo.min()), float(lo.max()))
    top = high + (m.shape[1] - 1)
    if top >= _REGION_CACHED_BELOW:
        return _regions(m.ravel(), tail_alpha, method).reshape(m.shape)
    first = int(low) // _REGION_BLOCK * _REGION_BLOCK
    last = int(top) // _REGION_BLOCK * _REGION_BLOCK
    table = _region_blocks(tail_alpha, method, first, last)
    if lo.size == 1:
        # one row: a run of the table (read-only, as the table is)
        begin = int(low) - first
        return table[begin : begin + m.shape[1]][None, :]
    out: FloatArray = table[m.astype(np.intp) - first]
    return out


def _element_chunks(n: FloatArray, psi: FloatArray, limit: int = _CHUNK_PAIRS) -> list[slice]:
    """Consecutive groups of elements whose windows hold at most ``limit`` values of m.

    Working chunk by chunk keeps the temporaries of the flat layout in cache and bounds the
    memory of a long power curve; a single window larger than the limit is its own chunk.
    """
    lo, hi = _windows(n, psi)
    ends = np.cumsum(hi - lo + 1.0)
    chunks = []
    start = 0
    while start < n.size:
        base = ends[start - 1] if start else 0.0
        stop = int(np.searchsorted(ends, base + limit, side="right"))
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
        plan = _path_plan(m, k, starts) if m.size else None
        upper[part] = np.bincount(seg, weights=w * _path_sf(m, k, th, thc, starts, plan)[pick],
                                  minlength=size)
        if alternative == "two-sided":
            lower[part] = np.bincount(
                seg, weights=w * _path_sf(m, k, thc, th, starts, plan)[pick], minlength=size
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


def _connor_mde(xp: Ops, n: Real, psi: Real, target: float, z_a: float) -> Any:
    r"""Solve Connor's power equation for delta: closed form of a quadratic, on either route
    (one element on floats, many on arrays: the same bits).

    Phi((sqrt(n) d - z_a sqrt(psi)) / sqrt(psi - d^2)) = target squares to
    (n + z_b^2) d^2 - 2 z_a sqrt(n psi) d + (z_a^2 - z_b^2) psi = 0, whose root on the side of
    the target is d = sqrt(psi) (z_a sqrt(n) + z_b sqrt(n + z_b^2 - z_a^2)) / (n + z_b^2);
    NaN where it has none in [0, psi].
    """
    zb = float(special.ndtri(target))
    disc = n + zb * zb - z_a * z_a
    # (a negative discriminant has no root: its square root, taken as 0, is discarded below)
    d = xp.sqrt(psi) * (z_a * xp.sqrt(n) + zb * xp.sqrt(xp.maximum(disc, 0.0))) / (n + zb * zb)
    ok = (disc >= 0) & (psi > 0) & (d <= psi) & (d >= 0)
    return xp.where(ok, d, math.nan)


# --------------------------------------------------------------------------------------------
# search over the number of items


def _smallest_n(predicate: Callable[[int], bool], lo: int, hi: int) -> int:
    """Smallest n > lo with ``predicate(n)``, for a predicate monotone in n (false at lo).

    ``hi`` is doubled until the predicate holds there; then (lo, hi] is bisected. A predicate
    may raise to cap the search.
    """
    while not predicate(hi):
        hi *= 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if predicate(mid):
            hi = mid
        else:
            lo = mid
    return hi


def _first_and_stable(meets: npt.NDArray[np.bool_]) -> tuple[int, int]:
    """Over consecutive n: the first position meeting the target, and the first from which
    every later one meets it (the power is saw-toothed in n)."""
    first = int(np.argmax(meets))
    failing = np.flatnonzero(~meets)
    return first, max(first, int(failing[-1]) + 1 if failing.size else 0)
