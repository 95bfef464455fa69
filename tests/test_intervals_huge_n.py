"""The exact (Fay & Lumbard) and Tango difference limits for huge N, against mpmath.

With b and c small and N between 1e9 and 2**52 the limits are of order 1/N (1e-9 down to
1e-16). Each limit is checked to 1e-9 relative: the defining equation, evaluated in mpmath at
L(1 - 1e-9) and L(1 + 1e-9), must change sign between the two points (the equation is monotone
in the limit, so the root lies between them). The equations are written here from the papers:
Tango's score statistic (Tango 1998) equals -+z at the limits; the exact interval's upper limit
U solves P{T(2B - 1) >= U} = alpha/2 with B ~ Beta(b + 1, c) and T ~ Beta(m + 1, N - m) for
U > 0, Beta(m, N - m + 1) for U < 0, and L(b, c) = -U(c, b) (Fay & Lumbard 2021, the melded
form of exact2x2's mcnemarExactDP).

With both b and c huge (up to 2**52) the reference is ``tests/_melded_mpmath.py``: the same
equation by quadrature of the densities themselves (mpmath's incomplete beta function does
not finish for parameters of 1e6 and more), at 45 digits.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from _melded_mpmath import beta_upper_tail
from _melded_mpmath import melded_tail as huge_melded_tail
from mcnemar.intervals import difference_interval

LEVEL = 0.95
REL = 1e-9

#: (b, c, N): a handful of tables, N from 1e9 to 2**52, b and c from 0 to 1000.
TANGO_TABLES = [
    (0, 0, 10**12),
    (1, 0, 10**12),
    (3, 7, 10**12),
    (5, 5, 10**9),
    (20, 3, 10**10),
    (0, 12, 2**52),
    (700, 0, 10**15),
    (1000, 990, 2**52),
]
#: The quadrature of the exact interval's tail costs ~0.1 s at 25 digits for m of a few
#: hundred, so these keep m <= 240.
EXACT_TABLES = [
    (1, 0, 10**12),
    (3, 7, 10**12),
    (5, 5, 10**9),
    (20, 3, 10**10),
    (150, 90, 10**14),
    (0, 40, 2**52),
]


#: (b, c, N) with huge discordant counts, one route of the exact interval each: b ~ c near
#: 2**52 (the table a = 0, d = b of 2**52 items, where the old quadrature took seconds and
#: put U at 5e-31 instead of 2.4e-8), b = c + 13, all discordant (closed form, b = c and
#: b = c + 2), a + d = 1 (T ~ Beta(m + 1, 1) above 0), m = 1e9 with N = 4e15 (T's density,
#: ~1e-6 wrong in the old form), b and c ~3 standard deviations apart with U < 0 below, one
#: cell huge and the other small (the transition of P(B >= .) within T's range) or 0 (the
#: degenerate B: a Beta quantile), and b of 1e6 against c = 0 at N = 1e12.
HUGE_EXACT_TABLES = [
    (1501199875790165, 1501199875790166, 2**52),
    (10**14, 10**14 + 13, 10**15),
    (2**51, 2**51, 2**52),
    (2**51 - 1, 2**51 + 1, 2**52),
    (1501199875790165, 1501199875790166, 3002399751580332),
    (500_000_000, 500_000_007, 4 * 10**15),
    (10**15, 999_999_900_000_000, 4 * 10**15),
    (3 * 10**15, 1000, 2**52),
    (0, 10**15, 2**52),
    (10**6, 0, 10**12),
    (20_000, 1, 10**15),
]


def _z(level: float) -> mpmath.mpf:
    return mpmath.sqrt(2) * mpmath.erfinv(mpmath.mpf(level))


def _tango(delta0: mpmath.mpf, b: int, c: int, n: int) -> mpmath.mpf:
    """Tango's score statistic: the constrained estimate of p21 is the larger root of
    2N p^2 + (-b - c + (2N - b + c) delta0) p - c delta0 (1 - delta0) = 0."""
    qa = 2 * n
    qb = -b - c + (2 * n - b + c) * delta0
    qc = -c * delta0 * (1 - delta0)
    p21 = (mpmath.sqrt(qb**2 - 4 * qa * qc) - qb) / (2 * qa)
    return (b - c - n * delta0) / mpmath.sqrt(n * (2 * p21 + delta0 * (1 - delta0)))


def _melded_tail(delta: mpmath.mpf, x: int, m: int, n: int) -> mpmath.mpf:
    """P(T(2B - 1) >= delta), B ~ Beta(x + 1, m - x), T as in the module docstring.

    For t <= |delta| the conditional probability is 0 (delta > 0) or 1 (delta < 0); above, it
    is P(B >= 1/2 + delta/(2t)). The quadrature is split at the bulk of T, which for huge N is
    a narrow peak near m/N."""
    ta, tb = (m + 1, n - m) if delta > 0 else (m, n - m + 1)
    log_norm = mpmath.log(mpmath.beta(ta, tb))

    def integrand(t: mpmath.mpf) -> mpmath.mpf:
        upper_b = mpmath.betainc(m - x, x + 1, 0, (t - delta) / (2 * t), regularized=True)
        return upper_b * mpmath.exp((ta - 1) * mpmath.log(t) + (tb - 1) * mpmath.log1p(-t)
                                    - log_norm)

    start = abs(delta)
    mean = mpmath.mpf(ta) / (ta + tb)
    sd = mpmath.sqrt(mpmath.mpf(ta) * tb / ((ta + tb) ** 2 * (ta + tb + 1)))
    cuts = [mean + k * sd for k in (-4, -2, 0, 2, 4, 8, 16, 40, 100)]
    points = sorted({start, mpmath.mpf(1), *(p for p in cuts if start < p < 1)})
    below = mpmath.betainc(ta, tb, 0, start, regularized=True) if delta < 0 else 0
    return below + mpmath.quad(integrand, points)


def _around(limit: float) -> tuple[mpmath.mpf, mpmath.mpf]:
    """The points REL relative below and above a limit (in the order of the real line)."""
    x = mpmath.mpf(limit)
    return x - REL * abs(x), x + REL * abs(x)


def _limits(tables: list[tuple[int, int, int]], method: str) -> tuple[np.ndarray, np.ndarray]:
    """The limits of all tables in one call, checked equal to those of each table alone."""
    b, c, n = (np.array([t[k] for t in tables], dtype=np.int64) for k in range(3))
    ci = difference_interval(n - b - c, b, c, 0, confidence_level=LEVEL, method=method)
    for i, (bi, ci_, ni) in enumerate(tables):
        alone = difference_interval(ni - bi - ci_, bi, ci_, 0, confidence_level=LEVEL,
                                    method=method)
        assert (alone.low, alone.high) == (ci.low[i], ci.high[i])
    return ci.low, ci.high


def test_tango_limits_for_huge_n_solve_the_score_equation() -> None:
    mpmath.mp.dps = 50
    z = _z(LEVEL)
    low, high = _limits(TANGO_TABLES, "tango")
    for (b, c, n), lo, hi in zip(TANGO_TABLES, low, high, strict=True):
        assert 0 < abs(lo) < 1e-8 and 0 < abs(hi) < 1e-8
        # T decreases in delta0: T - z changes sign from + to - across the lower limit, and
        # T + z across the upper one.
        left, right = _around(lo)
        assert _tango(left, b, c, n) > z > _tango(right, b, c, n), (b, c, n, lo)
        left, right = _around(hi)
        assert _tango(left, b, c, n) > -z > _tango(right, b, c, n), (b, c, n, hi)


def test_exact_limits_for_huge_n_solve_the_melded_tail_equation() -> None:
    mpmath.mp.dps = 25
    alpha = (1 - mpmath.mpf(LEVEL)) / 2
    low, high = _limits(EXACT_TABLES, "exact")
    for (b, c, n), lo, hi in zip(EXACT_TABLES, low, high, strict=True):
        m = b + c
        # The tail decreases in delta: above alpha just below the root, below it just above.
        # U(b, c) for the upper limit, -U(c, b) for the lower one; where B is degenerate
        # (b = m for U, c = m for L) the limit is a closed-form Beta quantile, not searched.
        for x, u in ((b, hi), (c, -lo)):
            if x == m:
                continue
            assert 0 < abs(u) < 1e-8
            left, right = _around(u)
            assert _melded_tail(left, x, m, n) > alpha > _melded_tail(right, x, m, n), (
                b, c, n, u,
            )


@pytest.mark.parametrize("n", [10**9, 10**12, 2**52])
def test_no_discordant_pairs_for_huge_n(n: int) -> None:
    # b = c = 0: the exact limits are -+ the 1 - alpha/2 quantile of Beta(1, N), which is
    # 1 - (alpha/2)^(1/N) = -expm1(log(alpha/2)/N); Tango's solve T = -+z.
    mpmath.mp.dps = 50
    alpha = (1 - mpmath.mpf(LEVEL)) / 2
    q = -mpmath.expm1(mpmath.log(alpha) / n)
    ci = difference_interval(n, 0, 0, 0, confidence_level=LEVEL, method="exact")
    assert float(abs(ci.high - q) / q) < REL and float(abs(ci.low + q) / q) < REL
    z = _z(LEVEL)
    ci = difference_interval(n, 0, 0, 0, confidence_level=LEVEL, method="tango")
    left, right = _around(ci.low)
    assert _tango(left, 0, 0, n) > z > _tango(right, 0, 0, n)
    left, right = _around(ci.high)
    assert _tango(left, 0, 0, n) > -z > _tango(right, 0, 0, n)


@pytest.mark.parametrize(("b", "c", "n"), HUGE_EXACT_TABLES)
def test_exact_limits_for_huge_counts_solve_the_melded_tail_equation(b: int, c: int,
                                                                      n: int) -> None:
    alpha = (1 - mpmath.mpf(LEVEL)) / 2
    low, high = _limits([(b, c, n)], "exact")
    m = b + c
    for x, u in ((b, float(high[0])), (c, -float(low[0]))):
        left, right = _around(u)
        if x == m:
            # B is 1: U is the 1 - alpha/2 quantile of T ~ Beta(m + 1, N - m)
            tail = (beta_upper_tail(left, m + 1, n - m), beta_upper_tail(right, m + 1, n - m))
        else:
            tail = (huge_melded_tail(left, x, m, n), huge_melded_tail(right, x, m, n))
        assert tail[0] > alpha > tail[1], (b, c, n, u)
