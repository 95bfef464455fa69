"""The melded (Fay & Lumbard 2021) tail P{T(2B - 1) >= delta} in mpmath, for any counts.

B ~ Beta(x + 1, m - x) and T ~ Beta(m + 1, N - m) for delta > 0, Beta(m, N - m + 1) for
delta < 0. For t <= |delta| the probability given T = t is 0 (delta > 0) or 1 (delta < 0);
above, it is S(t) = P(B >= 1/2 + delta/(2t)). So the tail is

    [delta < 0] P(T <= |delta|) + integral over t > |delta| of f_T(t) S(t) dt.

Everything is a quadrature of the densities themselves, written from their definition with
log-gamma normalisation (no incomplete beta function, whose mpmath evaluation does not end
for parameters of 1e6 and more): piecewise Gauss-Legendre on pieces of at most one standard
deviation near the mean, widening into the tails, and dropped where the density is below
e**-60 of its peak; the outer pieces are also cut where S(t) crosses B's break points. S at
the outer nodes comes from one pass over B's support, cut at every
value 1/2 + delta/(2t) the outer rule needs, summed from the top.

The densities are exp((a - 1) log t + (b - 1) log(1 - t) - log B(a, b)), whose terms reach
a few times 1e15 for the largest tables: the working precision is 45 digits.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise

import mpmath
import numpy as np

DPS = 45
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(10)
# Break points in standard deviations from the mean: every one up to 10, then widening.
_STEPS = (*range(0, 11), 12, 14, 17, 20, 24, 28, 34, 40, 50, 60, 80, 100, 130, 160, 200)
# Pieces whose density stays below e**-_DROP of the peak are left out.
_DROP = 60


class _Beta:
    """One Beta(a, b) in mpmath: its log density and the break points of its support."""

    def __init__(self, a: int, b: int) -> None:
        self.a, self.b = mpmath.mpf(a), mpmath.mpf(b)
        self.log_norm = mpmath.loggamma(self.a) + mpmath.loggamma(self.b) - mpmath.loggamma(
            self.a + self.b
        )
        total = self.a + self.b
        self.mean = self.a / total
        self.sd = mpmath.sqrt(self.a * self.b / (total**2 * (total + 1)))
        mode = (self.a - 1) / (total - 2) if total > 2 else self.mean
        self.peak = self.log_pdf(min(max(mode, mpmath.mpf(10) ** -40), 1 - mpmath.mpf(10) ** -40))

    def log_pdf(self, t: mpmath.mpf) -> mpmath.mpf:
        if t <= 0 or t >= 1:
            return mpmath.mpf("-inf")
        return (self.a - 1) * mpmath.log(t) + (self.b - 1) * mpmath.log1p(-t) - self.log_norm

    def pdf(self, t: mpmath.mpf) -> mpmath.mpf:
        return mpmath.exp(self.log_pdf(t))

    def breaks(self, lo: mpmath.mpf, hi: mpmath.mpf) -> list[mpmath.mpf]:
        """[lo, hi] cut at the mean -+ _STEPS standard deviations (clipped to (0, 1))."""
        points = {lo, hi}
        for k in _STEPS:
            for p in (self.mean - k * self.sd, self.mean + k * self.sd):
                if lo < p < hi:
                    points.add(p)
        return sorted(points)

    def negligible(self, lo: mpmath.mpf, hi: mpmath.mpf) -> bool:
        """The density is below e**-_DROP of its peak on all of [lo, hi] (it is unimodal)."""
        if lo <= self.mean <= hi:
            return False
        edge = hi if hi < self.mean else lo
        return bool(self.log_pdf(edge) < self.peak - _DROP)


def _pieces(dist: _Beta, lo: mpmath.mpf, hi: mpmath.mpf) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
    cuts = dist.breaks(lo, hi)
    return [(p, q) for p, q in pairwise(cuts)
            if q > p and not dist.negligible(p, q)]


def _rule(lo: mpmath.mpf, hi: mpmath.mpf) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
    half = (hi - lo) / 2
    return [(lo + half * (1 + mpmath.mpf(float(x))), half * mpmath.mpf(float(w)))
            for x, w in zip(_NODES, _WEIGHTS, strict=True)]


def integrate(dist: _Beta, lo: mpmath.mpf, hi: mpmath.mpf,
              weight: Callable[[mpmath.mpf], mpmath.mpf] | None = None) -> mpmath.mpf:
    """The integral of f(t) weight(t) over [lo, hi]."""
    total = mpmath.mpf(0)
    for p, q in _pieces(dist, lo, hi):
        for t, w in _rule(p, q):
            total += w * dist.pdf(t) * (1 if weight is None else weight(t))
    return total


def _survival_at(dist: _Beta, points: list[mpmath.mpf]) -> dict[mpmath.mpf, mpmath.mpf]:
    """P(X >= p) for every p of ``points``, in one pass over the support from the top."""
    top = mpmath.mpf(1)
    cuts = sorted(set(points) | set(dist.breaks(mpmath.mpf(0), top)))
    out: dict[mpmath.mpf, mpmath.mpf] = {}
    running = mpmath.mpf(0)
    for p, q in reversed(list(pairwise(cuts))):
        if not dist.negligible(p, q):
            running += sum(w * dist.pdf(t) for t, w in _rule(p, q))
        out[p] = running
    out[top] = mpmath.mpf(0)
    return {p: out[p] for p in points}


def melded_tail(delta: mpmath.mpf, x: int, m: int, n: int) -> mpmath.mpf:
    """P{T(2B - 1) >= delta} (module docstring), at mpmath's precision of :data:`DPS`."""
    with mpmath.workdps(DPS):
        delta = mpmath.mpf(delta)
        b_dist = _Beta(x + 1, m - x)
        if delta > 0 and n == m:
            # every item discordant: T is 1, the tail is P(B >= (1 + delta)/2)
            level = min((1 + delta) / 2, mpmath.mpf(1))
            return _survival_at(b_dist, [level])[level]
        t_dist = _Beta(m + 1, n - m) if delta > 0 else _Beta(m, n - m + 1)
        start = abs(delta)
        below = mpmath.mpf(0)
        if delta < 0:
            below = integrate(t_dist, mpmath.mpf(0), start)
        # S(t) moves from 1 to 0 where delta/t crosses the support of 2B - 1, which can be a
        # small part of T's range (one cell small, the other huge): the outer pieces are cut
        # where delta/t meets each break point of B, t = delta/(2b - 1).
        cuts = set(t_dist.breaks(start, mpmath.mpf(1)))
        for b in b_dist.breaks(mpmath.mpf(0), mpmath.mpf(1)):
            e = 2 * b - 1
            if e != 0 and start < delta / e < 1:
                cuts.add(delta / e)
        edges = sorted(cuts)
        nodes = [node for p, q in pairwise(edges)
                 if q > p and not t_dist.negligible(p, q) for node in _rule(p, q)]
        levels = [mpmath.mpf(1) / 2 + delta / (2 * t) for t, _ in nodes]
        survival = _survival_at(b_dist, [min(max(q, mpmath.mpf(0)), mpmath.mpf(1))
                                         for q in levels])
        inside = mpmath.fsum(
            w * t_dist.pdf(t) * survival[min(max(q, mpmath.mpf(0)), mpmath.mpf(1))]
            for (t, w), q in zip(nodes, levels, strict=True)
        )
        return below + inside


def beta_upper_tail(level: mpmath.mpf, a: int, b: int) -> mpmath.mpf:
    """P(X >= level) for X ~ Beta(a, b), by the same quadrature."""
    with mpmath.workdps(DPS):
        level = mpmath.mpf(level)
        return _survival_at(_Beta(a, b), [level])[level]
