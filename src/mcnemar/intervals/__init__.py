"""Confidence intervals for a paired 2x2 table, vectorized over many tables.

Two systems A and B are scored on the same N items; the paired table counts
a = both right, b = A right and B wrong, c = A wrong and B right, d = both wrong.
This module holds the two-sided confidence intervals for the three effect sizes of that table:

* :func:`difference_interval` -- accuracy(A) - accuracy(B) = (b - c)/N;
* :func:`ratio_interval` -- accuracy(A)/accuracy(B) = (a + b)/(a + c);
* :func:`odds_ratio_interval` -- the conditional odds ratio b/c;

together with their point estimates (:func:`difference_estimate`, :func:`ratio_estimate`,
:func:`odds_ratio_estimate`), the Wilson score interval for one proportion
(:func:`wilson_interval`), the result type :class:`ConfidenceInterval` and the tuples of
method names (:data:`DIFFERENCE_METHODS`, :data:`RATIO_METHODS`, :data:`ODDS_RATIO_METHODS`).

Every function accepts scalars or numpy arrays that broadcast together (one table per element)
and works on all tables at once; the score intervals that need root finding use one bracketed
solver over the whole array. Scalar input gives Python floats; array input gives arrays of the
broadcast shape. Where a quantity is undefined (N = 0, no discordant pairs for the odds ratio)
the limits are nan or the whole parameter range; nothing raises for valid counts.

The formulas follow Fagerland, Lydersen & Laake (2014) and their R package contingencytables,
whose published values the tests reproduce.

References
----------
Fagerland MW, Lydersen S, Laake P (2014). Recommended tests and confidence intervals for paired
binomial proportions. Statistics in Medicine 33:2850-2875.

Modules
-------
``_result`` the :class:`ConfidenceInterval` type; ``_inputs`` checks and broadcasting of the
arguments; ``_api`` the typed signatures the functions share, the checks of a whole-table call
and the log-scale Wald interval; ``_roots`` the vectorized root finder (Python floats for a
few problems), Wilson's limits and what the MOVER intervals start from; ``_estimates`` the
point estimates and :func:`wilson_interval`; ``_difference``, ``_ratio``, ``_odds_ratio`` the
intervals of each effect size and their method names; ``_melded`` the exact (Fay-Lumbard)
difference interval's tail, its quadrature and the searches for its limits; ``_beta`` the
Beta distribution for huge parameters that interval needs from 1e9 items on.
"""

# The public API, and the private names (leading _) that other modules, the tests and the
# benchmarks import from here. Each is imported from its module on first use: a report of a
# table without N (``mcnemar test --b 17 --c 3``) needs only ConfidenceInterval, and the
# interval modules are a good part of the package's start-up.
from typing import TYPE_CHECKING

from mcnemar._lazy import lazy_attributes

if TYPE_CHECKING:
    from mcnemar.intervals._difference import DIFFERENCE_METHODS, difference_interval
    from mcnemar.intervals._difference import _tango_statistic as _tango_statistic
    from mcnemar.intervals._estimates import (
        difference_estimate,
        odds_ratio_estimate,
        ratio_estimate,
        wilson_interval,
    )
    from mcnemar.intervals._odds_ratio import ODDS_RATIO_METHODS, odds_ratio_interval
    from mcnemar.intervals._ratio import RATIO_METHODS, ratio_interval
    from mcnemar.intervals._result import ConfidenceInterval

_LAZY = {
    "DIFFERENCE_METHODS": "_difference",
    "difference_interval": "_difference",
    "_tango_statistic": "_difference",
    "difference_estimate": "_estimates",
    "odds_ratio_estimate": "_estimates",
    "ratio_estimate": "_estimates",
    "wilson_interval": "_estimates",
    "ODDS_RATIO_METHODS": "_odds_ratio",
    "odds_ratio_interval": "_odds_ratio",
    "RATIO_METHODS": "_ratio",
    "ratio_interval": "_ratio",
    "ConfidenceInterval": "_result",
}

__all__ = [
    "DIFFERENCE_METHODS",
    "ODDS_RATIO_METHODS",
    "RATIO_METHODS",
    "ConfidenceInterval",
    "difference_estimate",
    "difference_interval",
    "odds_ratio_estimate",
    "odds_ratio_interval",
    "ratio_estimate",
    "ratio_interval",
    "wilson_interval",
]


__getattr__, __dir__ = lazy_attributes(
    __name__, {name: f"{__name__}.{module}" for name, module in _LAZY.items()}, __all__
)
