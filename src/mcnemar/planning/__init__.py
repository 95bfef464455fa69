"""Planning a paired comparison: power, sample size and the minimum detectable effect.

Contents
--------
:func:`power`
    probability that McNemar's test rejects, for ``n`` items and discordant probabilities
    ``p10`` (A right, B wrong) and ``p01`` (A wrong, B right); vectorized over arrays.
:func:`sample_size`
    the number of items needed for a target power. For the exact tests it reports both the
    first ``n`` that reaches the target and the smallest ``n`` from which the power never drops
    below it again (exact power is saw-toothed in ``n``).
:func:`minimum_detectable_effect`
    the smallest accuracy difference the test detects with the target power, given ``n`` and the
    discordance rate; what a report quotes so that a non-significant result is read honestly.
:func:`discordant_probabilities`
    converts an accuracy difference and a discordance rate into ``(p10, p01)``.
:class:`PowerResult`, :class:`SampleSizeResult`, :class:`MinimumDetectableEffectResult`
    the frozen result objects (``to_dict()``, ``to_markdown()``, ``str()``).
:func:`t_power`, :func:`t_sample_size`, :func:`t_detectable_difference`
    the same three questions for the paired t test of scores that are not pass/fail, exact
    (noncentral t) beside the normal approximation (:mod:`mcnemar.scores._planning`).

How the exact power is computed
-------------------------------
Conditional on ``m`` discordant items, the number favouring A is ``X ~ Bin(m, theta)`` with
``theta = p10 / (p10 + p01)``; the discordant count itself is ``M ~ Bin(n, psi)`` with
``psi = p10 + p01``. Every test of this package rejects when ``X`` falls in a region
``{X <= j(m)} U {X >= m - j(m)}`` (two-sided) or one of its halves (one-sided), where ``j(m)`` is
the largest count whose p-value is ``<= alpha`` under ``theta = 1/2``. So

    power = sum_m Bin(m; n, psi) * P(X in region(m) | m, theta),

a finite sum, vectorized over ``m`` (no simulation). The sum over ``m`` is truncated to the
window where ``Bin(n, psi)`` carries mass (Bernstein's inequality bounds what is left out by
``1e-15``), so one evaluation costs ``O(sqrt(n))`` operations, not ``O(n)``.

Within the window, consecutive ``m`` differ by one item, and ``j(m)`` rises by 0 or 1 per step.
So the tail probabilities follow a two-term recurrence (each one is the previous plus or minus
one binomial probability), restarted from an exact regularized incomplete beta value every 256
steps; binomial probabilities come from Loader's (2000) saddle-point formula, accurate to
~1e-15 for any ``n``. This keeps the sums accurate to ~1e-14 while costing a few array
operations per ``m`` (an incomplete beta function costs up to microseconds each for large
``m``). ``j(m)`` is found the same way along a normal-approximation guess and checked against
the exact criterion, with a vectorized bisection on incomplete beta values wherever the guess
is off or the criterion is within 1e-9 of ``alpha``.

The detectable difference solves this sum for ``theta`` at fixed ``(n, psi)``: it sums the
same recurrence by parts (each step weighted by the binomial mass of the ``m`` after it), so
that the power and its first two derivatives in ``theta`` cost one exponential and a few
multiply-adds per ``m``, over windows cut by Chernoff's bound at ``1e-12``, and Halley's method
from Connor's closed form ends in two evaluations as a rule, to ``1e-10`` of the difference
(reports print 3 digits).

References: Loader, C. (2000). Fast and accurate computation of binomial probabilities.
Technical report, Bell Labs. Bernstein's inequality as in Boucheron, Lugosi & Massart (2013),
*Concentration Inequalities*, Oxford University Press, section 2.8.

Modules
-------
``_validation``
    argument checks; difference and discordance (or a pilot table) to ``(p10, p01)``.
``_settings``
    the settings of a call (n, p10, p01) checked, broadcast and echoed in the input's shape.
``_kernel``
    the exact power sums (binomial probabilities, critical counts, recurrences), Connor's
    approximation and the search over n; :mod:`mcnemar.margin_planning` sums with the same
    binomial probabilities and tails.
``_results``
    :class:`PowerResult`, :class:`SampleSizeResult`, :class:`MinimumDetectableEffectResult`,
    and the text and markdown tables the margin results share.
``_power``, ``_sample_size``, ``_detectable``
    the three public functions.
``_power_path``
    the power sums of the detectable-difference search and their derivatives in ``theta``.
"""

# The public API, and the private names (leading _) that other modules, the tests and the
# benchmarks import from here.
from typing import TYPE_CHECKING

from mcnemar._format import format_points, json_value
from mcnemar.planning._detectable import minimum_detectable_effect
from mcnemar.planning._kernel import _binom_sf as _binom_sf
from mcnemar.planning._kernel import _connor_power as _connor_power
from mcnemar.planning._kernel import _critical_bisect as _critical_bisect
from mcnemar.planning._kernel import _critical_lower as _critical_lower
from mcnemar.planning._kernel import _log_pmf as _log_pmf
from mcnemar.planning._kernel import _path_sf as _path_sf
from mcnemar.planning._kernel import _runs as _runs
from mcnemar.planning._power import power
from mcnemar.planning._results import (
    MinimumDetectableEffectResult,
    PowerResult,
    SampleSizeResult,
)
from mcnemar.planning._sample_size import sample_size
from mcnemar.planning._validation import _check_n as _check_n
from mcnemar.planning._validation import _check_open_unit as _check_open_unit
from mcnemar.planning._validation import _resolve_probabilities as _resolve_probabilities
from mcnemar.planning._validation import discordant_probabilities

if TYPE_CHECKING:
    from mcnemar.scores._planning import (
        TPlan,
        t_detectable_difference,
        t_power,
        t_sample_size,
    )

_json = json_value
_points = format_points

__all__ = [
    "MinimumDetectableEffectResult",
    "PowerResult",
    "SampleSizeResult",
    "TPlan",
    "discordant_probabilities",
    "minimum_detectable_effect",
    "power",
    "sample_size",
    "t_detectable_difference",
    "t_power",
    "t_sample_size",
]

#: The planning of the paired t test of scores that are not pass/fail, defined with the rest of
#: the score analysis (:mod:`mcnemar.scores`) and loaded on first use.
_PAIRED_T = ("TPlan", "t_detectable_difference", "t_power", "t_sample_size")


def __getattr__(name: str) -> object:
    if name in _PAIRED_T:
        from mcnemar.scores import _planning

        return getattr(_planning, name)
    raise AttributeError(f"module 'mcnemar.planning' has no attribute {name!r}")
