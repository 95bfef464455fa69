"""Reference computations in mpmath shared by several test modules.

``mp_melded_tail`` is the tail that defines the exact (Fay & Lumbard 2021) difference interval,
by numeric integration as exact2x2's mcnemarExactDP does it; tests/test_intervals_huge_n.py
keeps its own version, whose quadrature is split around the narrow peak of huge N.
"""

from __future__ import annotations

import mpmath


def mp_melded_tail(delta: float, x: int, m: int, n: int) -> mpmath.mpf:
    """P(T (2B - 1) >= delta) by mpmath quadrature, B ~ Beta(x + 1, m - x),
    T ~ Beta(m + 1, n - m) for delta > 0 and Beta(m, n - m + 1) for delta < 0 (exact2x2's
    mcnemarExactDP, numeric-integration branch)."""
    ta, tb = (m + 1, n - m) if delta > 0 else (m, n - m + 1)
    dl = mpmath.mpf(delta)

    def upper_b(q: mpmath.mpf) -> mpmath.mpf:
        if q >= 1:
            return mpmath.mpf(0)
        if q <= 0:
            return mpmath.mpf(1)
        return mpmath.betainc(x + 1, m - x, q, 1, regularized=True)

    def density(t: mpmath.mpf) -> mpmath.mpf:
        return t ** (ta - 1) * (1 - t) ** (tb - 1) / mpmath.beta(ta, tb)

    start = abs(dl)
    mode = mpmath.mpf(ta - 1) / (ta + tb - 2)
    points = sorted({start, max(start, mode), mpmath.mpf(1)})
    integral = mpmath.quad(lambda t: upper_b(mpmath.mpf(0.5) + dl / (2 * t)) * density(t), points)
    below = mpmath.betainc(ta, tb, 0, start, regularized=True) if delta < 0 else 0
    return below + integral
