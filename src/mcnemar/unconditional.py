"""The exact unconditional McNemar test (Suissa & Shuster 1991; Berger & Boos 1994 version).

The exact conditional test conditions on the number of discordant items D and is
conservative; the unconditional test instead treats D as random. Under H0 a table has the
trinomial probability

.. math:: \\frac{N!}{x_{12}!\\,x_{21}!\\,(N - x_{12} - x_{21})!}
          \\Big(\\frac{\\pi}{2}\\Big)^{x_{12} + x_{21}} (1 - \\pi)^{N - x_{12} - x_{21}},

with the nuisance parameter :math:`\\pi` = P(discordant item). The p-value is the largest, over
:math:`\\pi`, probability of the tables at least as extreme as the observed one, ordered by the
McNemar statistic (:math:`(x_{12} - x_{21})^2/(x_{12} + x_{21})` two-sided, the signed
:math:`z` one-sided; tables with no discordant items are never more extreme). Berger & Boos
restrict :math:`\\pi` to a 1 - gamma Clopper-Pearson interval for D/N and add gamma.

Conditioning inside the sum makes it one-dimensional:
:math:`P(\\pi) = \\sum_m \\mathrm{Bin}(m; N, \\pi)\\, g(m)`, where g(m) is the probability,
under Bin(m, 1/2), that the split of m discordant items is at least as extreme — computed for
all m at once from the exact binomial tails. The maximum is taken over a grid of 1,000 values
of :math:`\\pi` (as in the R package contingencytables, whose published values this
reproduces) and then refined by golden-section search around the best grid point.

References
----------
S. Suissa & J. J. Shuster (1991), "The 2 x 2 matched-pairs trial: exact unconditional design
and analysis", Biometrics 47:361-372. R. L. Berger & D. D. Boos (1994), "P values maximised
over a confidence set for the nuisance parameter", JASA 89:1012-1016. M. W. Fagerland,
S. Lydersen & P. Laake (2013), BMC Med Res Methodol 13:91.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray
from scipy import special

from mcnemar._binomial import lower_tail_half
from mcnemar.errors import McNemarError, TableError

__all__ = ["MAX_ITEMS", "unconditional_pvalue"]

#: Largest N handled (the cost is grid x N); beyond it the asymptotic test agrees closely.
MAX_ITEMS = 200_000
_GRID = 1000


def _extreme_probability(b: int, c: int, n: int, alternative: str) -> NDArray[np.float64]:
    """g(m), m = 1..n: P(split of m discordant items at least as extreme as (b, c) | H0)."""
    m = np.arange(1, n + 1, dtype=np.float64)
    d = b + c
    if alternative == "two-sided":
        # (m - 2x)^2 / m >= (b - c)^2 / d  <=>  x <= (m - r sqrt(m))/2 or x >= (m + r sqrt(m))/2
        r = abs(b - c) / math.sqrt(d)
        # A small relative slack keeps tables whose statistic equals the observed one (ties
        # count as at least as extreme) despite rounding.
        cut = np.floor((m - r * np.sqrt(m)) / 2.0 + 1e-9 * (1.0 + m))
        lower = lower_tail_half(cut, m)
        return np.where(2.0 * cut >= m, 1.0, np.minimum(1.0, 2.0 * lower))
    z = (b - c) / math.sqrt(d)
    if alternative == "greater":
        # (2x - m)/sqrt(m) >= z  <=>  x >= (m + z sqrt(m))/2; P(X >= t) = P(X <= m - t)
        t = np.ceil((m + z * np.sqrt(m)) / 2.0 - 1e-9 * (1.0 + m))
        return lower_tail_half(m - t, m)
    t = np.floor((m + z * np.sqrt(m)) / 2.0 + 1e-9 * (1.0 + m))
    return lower_tail_half(t, m)


def _binom_pmf_matrix(n: int, pis: NDArray[np.float64]) -> NDArray[np.float64]:
    """Bin(m; n, pi) for m = 1..n (columns) and every pi (rows), via log-gamma."""
    m = np.arange(1, n + 1, dtype=np.float64)
    log_coef = special.gammaln(n + 1.0) - special.gammaln(m + 1.0) - special.gammaln(n - m + 1.0)
    p = pis[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        logp = log_coef + special.xlogy(m, p) + special.xlog1py(n - m, -p)
    return np.exp(logp)


def _nuisance_interval(d: int, n: int, gamma: float) -> tuple[float, float]:
    """Berger-Boos set: the 1 - gamma Clopper-Pearson interval for a rate with d of n items
    ([0, 1] when gamma = 0)."""
    if gamma <= 0:
        return 0.0, 1.0
    low = 0.0 if d == 0 else float(special.betaincinv(d, n - d + 1, gamma / 2.0))
    high = 1.0 if d == n else float(special.betaincinv(d + 1, n - d, 1.0 - gamma / 2.0))
    return low, high


def _maximise(
    prob: Callable[[NDArray[np.float64]], NDArray[np.float64]],
    low: float,
    high: float,
    *,
    grid: int = _GRID,
    refine: bool = True,
) -> float:
    """Maximum of ``prob`` over [low, high]: the best of an equally spaced grid, then (with
    ``refine``) golden-section search between the neighbours of the best grid point."""
    points = np.linspace(low, high, grid)
    values = prob(points)
    best = int(np.argmax(values))
    lo = points[max(best - 1, 0)]
    hi = points[min(best + 1, grid - 1)]
    top = float(values[best])
    if not refine:
        return top
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    x1 = hi - ratio * (hi - lo)
    x2 = lo + ratio * (hi - lo)
    f1, f2 = prob(np.array([x1, x2]))
    for _ in range(40):
        if f1 >= f2:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - ratio * (hi - lo)
            f1 = float(prob(np.array([x1]))[0])
        else:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + ratio * (hi - lo)
            f2 = float(prob(np.array([x2]))[0])
    return max(top, float(f1), float(f2))


def unconditional_pvalue(
    b: int,
    c: int,
    n: int,
    *,
    alternative: str = "two-sided",
    gamma: float = 1e-4,
    refine: bool = True,
) -> float:
    """Exact unconditional p-value of McNemar's test for one table.

    Parameters
    ----------
    b, c : int
        Discordant counts (A right and B wrong; the reverse).
    n : int
        Number of items N (>= b + c).
    alternative : {"two-sided", "greater", "less"}
    gamma : float
        Berger-Boos: maximise over a 1 - gamma Clopper-Pearson interval for the discordance
        rate and add gamma (default 1e-4); 0 maximises over [0, 1].
    refine : bool
        Refine the grid maximum by golden-section search (default). ``False`` gives the plain
        1,000-point grid maximum of contingencytables, a slight underestimate of the supremum.

    Returns
    -------
    float

    Examples
    --------
    Bentur et al. (Fagerland et al. 2013): 1 both right, 1 and 7 discordant, 12 both wrong.

    >>> round(unconditional_pvalue(1, 7, 21), 6)
    0.035416
    """
    if not (0.0 <= gamma < 1.0):
        raise McNemarError(f"gamma must be in [0, 1), got {gamma!r}")
    if n > MAX_ITEMS:
        raise TableError(
            f"the unconditional test is limited to N <= {MAX_ITEMS:,} items (got {n:,}); at this "
            "size it agrees with the asymptotic test: use method='asymptotic'"
        )
    d = b + c
    if d == 0:
        return 1.0
    g = _extreme_probability(b, c, n, alternative)
    low, high = _nuisance_interval(d, n, gamma)

    def prob(pis: NDArray[np.float64]) -> NDArray[np.float64]:
        out: NDArray[np.float64] = _binom_pmf_matrix(n, pis) @ g
        return out

    return min(1.0, _maximise(prob, low, high, refine=refine) + gamma)
