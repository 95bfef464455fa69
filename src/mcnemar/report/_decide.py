"""The decision rules of every report, each stated once.

A rule here is a pure function of numbers already computed: which test a report recommends
(:data:`EXACT_BELOW`, :func:`exact_recommended`), when the clustered test overrides it
(:func:`clustered_choice`), the claims of a conclusion (:func:`decide`, vectorized over
tables, and :class:`Claims` for one table), whether an interval and a test disagree
(:func:`interval_disagreement`), a per-task verdict (:func:`verdict`) and which overall answers
a suite's question (:func:`headline_rule`). The single report, the batch, the per-task
comparison and the web page all decide through these functions; the wording modules put the
decisions into words and never decide again.

The module imports nothing of the report's: the numbers come in as arguments, so computing
(:mod:`mcnemar.report._compute`), wording and the suites (:mod:`mcnemar.tasks`) can all use it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]

#: Below this many discordant items the chi-square approximation is not trusted and the exact
#: conditional test is recommended; from here on the uncorrected chi-square test.
EXACT_BELOW = 25
#: The exact and mid-p p-values "agree closely" with the chi-square p-value when they are
#: within this factor of it (compared as log10 p, which stays finite where p underflows).
CLOSE_FACTOR = 1.25

_SIDE = {1: "a", -1: "b", 0: None}
_CLAIM_KEYS = (
    "defined", "significant", "better", "direction", "opposite", "has_interval", "contains_zero"
)


def exact_recommended(discordant: Any) -> BoolArray:
    """Whether the exact test is the recommended one: fewer than :data:`EXACT_BELOW`
    discordant items (else the chi-square test).

    Examples
    --------
    >>> exact_recommended([0, 24, 25]).tolist()
    [True, True, False]
    """
    out: BoolArray = np.asarray(discordant) < EXACT_BELOW
    return out


def recommended_test(discordant: Any) -> NDArray[np.object_]:
    """The key of the recommended test per table: ``"exact"`` or ``"asymptotic"``.

    Examples
    --------
    >>> recommended_test([3, 40]).tolist()
    ['exact', 'asymptotic']
    """
    out: NDArray[np.object_] = np.where(exact_recommended(discordant), "exact",
                                        "asymptotic").astype(object)
    return out


def recommended_pvalues(
    discordant: Any, exact: tuple[Any, Any], asymptotic: tuple[Any, Any]
) -> tuple[FloatArray, FloatArray]:
    """The recommended test's p-value and log10 p-value per table, from the exact test's
    (p, log10 p) and the chi-square test's."""
    use = exact_recommended(discordant)
    p = np.where(use, np.asarray(exact[0]), np.asarray(asymptotic[0])).astype(np.float64)
    log10p = np.where(use, np.asarray(exact[1]), np.asarray(asymptotic[1])).astype(np.float64)
    return p, log10p


@dataclass(frozen=True, slots=True)
class ClusteredChoice:
    """What the clustered test changes in a report whose items come in clusters: it becomes
    the recommended test, and its cluster-robust interval (where defined) the headline one.

    ``low``/``high`` are NaN when no interval is defined; ``variance`` is the cluster-robust
    variance of the difference, or ``None`` when the clustered test gives none.
    """

    pvalue: float
    log10_pvalue: float
    low: float
    high: float
    ci_label: str
    variance: float | None


def clustered_choice(
    clustered: Any, alternative: str, confidence_level: float,
    fallback: tuple[float, float] | None,
) -> ClusteredChoice:
    """The clustered override: the clustered test's p-value, and its cluster-robust interval
    when defined, else ``fallback`` (the plain headline interval, or ``None`` without N)."""
    p = float(clustered.pvalue_for(alternative))
    log10p = math.log10(p) if p > 0 else -math.inf
    low = high = math.nan
    label = "Newcombe"
    variance = None
    if clustered.difference is not None and clustered.standard_error is not None:
        ci = clustered.confidence_interval(confidence_level)
        low, high, label = float(ci.low), float(ci.high), "cluster-robust"
        variance = float(clustered.standard_error) ** 2
    elif fallback is not None:
        low, high = float(fallback[0]), float(fallback[1])
    return ClusteredChoice(p, log10p, low, high, label, variance)


def decide(
    *,
    pvalue: FloatArray,
    b: IntArray,
    c: IntArray,
    alpha: float,
    alternative: str,
    low: FloatArray,
    high: FloatArray,
) -> dict[str, Any]:
    """The claims of the conclusion, decided from the numbers for every table at once.

    ``direction`` is the side the data favour (1: A, b > c; -1: B; 0: b = c); ``better`` is
    that side where the recommended p-value is below ``alpha`` and the alternative is about it
    (two-sided, or one-sided on that side); ``opposite``: a one-sided alternative points against
    the data; ``contains_zero``: the headline interval (``low``, ``high``; NaN when there is
    none) includes 0.

    Examples
    --------
    >>> out = decide(pvalue=np.array([0.01, 0.3]), b=np.array([17, 5]), c=np.array([3, 4]),
    ...              alpha=0.05, alternative="two-sided", low=np.array([0.03, -0.02]),
    ...              high=np.array([0.11, 0.03]))
    >>> out["better"].tolist(), out["contains_zero"].tolist()
    ([1, 0], [False, True])
    """
    direction = np.sign(b.astype(np.int64) - c.astype(np.int64)).astype(np.int8)
    side = {"greater": 1, "less": -1}.get(alternative, 0)
    defined = np.isfinite(pvalue)
    significant = defined & (pvalue < alpha)
    favours = (direction != 0) & ((side == 0) | (direction == side))
    better = np.where(significant & favours, direction, 0).astype(np.int8)
    opposite = (side != 0) & (direction != 0) & (direction != side)
    has_interval = np.isfinite(low) & np.isfinite(high)
    contains_zero = has_interval & (low <= 0.0) & (high >= 0.0)
    return {
        "defined": defined,
        "significant": significant,
        "better": better,
        "direction": direction,
        "opposite": np.asarray(opposite, dtype=bool),
        "has_interval": has_interval,
        "contains_zero": contains_zero,
    }


@dataclass(frozen=True, slots=True)
class Claims:
    """The claims of a conclusion for one table, each decided from the numbers
    (:func:`decide`, vectorized over tables).

    ``better`` and ``direction`` are ``"a"``, ``"b"`` or ``None``; ``interval`` is the headline
    interval of the difference (``None`` when undefined or N unknown).
    """

    defined: bool
    significant: bool
    better: str | None
    direction: str | None
    opposite: bool
    interval: tuple[float, float] | None
    contains_zero: bool | None


def claims_at(decided: Any, i: int, low: float, high: float) -> Claims:
    """Element ``i`` of the claims decided for many tables (a mapping from :func:`decide`, or
    anything with those attributes), with the headline interval they were decided on."""
    get = decided.__getitem__ if isinstance(decided, dict) else decided.__getattribute__
    has_interval = bool(get("has_interval")[i])
    return Claims(
        defined=bool(get("defined")[i]),
        significant=bool(get("significant")[i]),
        better=_SIDE[int(get("better")[i])],
        direction=_SIDE[int(get("direction")[i])],
        opposite=bool(get("opposite")[i]),
        interval=(float(low), float(high)) if has_interval else None,
        contains_zero=bool(get("contains_zero")[i]) if has_interval else None,
    )


def decide_one(*, pvalue: float, b: int, c: int, alpha: float, alternative: str,
               low: float, high: float) -> Claims:
    """:func:`decide` for one table, as its :class:`Claims`."""
    one = decide(pvalue=np.array([pvalue]), b=np.array([b]), c=np.array([c]), alpha=alpha,
                 alternative=alternative, low=np.array([low]), high=np.array([high]))
    return claims_at(one, 0, low, high)


def interval_disagreement(claims: Claims) -> str | None:
    """Whether the headline interval and the test disagree, and how: ``"includes"`` when a
    significant result (one that says which system did better) stands beside an interval
    that includes 0, ``"excludes"`` when a non-significant one (in the direction the
    alternative asks about) stands beside an interval that excludes 0; ``None`` when they
    agree or there is nothing to compare. The one rule of every report that explains it: the
    single-table conclusion and each row of a per-task comparison."""
    if not claims.defined or claims.interval is None:
        return None
    if claims.better is not None:
        return "includes" if claims.contains_zero else None
    if claims.significant or claims.opposite or claims.direction is None:
        return None
    return "excludes" if claims.contains_zero is False else None


def verdict(est: float, p: float | None, alpha: float, alternative: str) -> str:
    """``"worse"``, ``"better"``, ``"none"`` or ``"undefined"`` for a difference and p (A's
    verdict against B, on the side the alternative asks about).

    Examples
    --------
    >>> verdict(-0.02, 0.01, 0.05, "two-sided"), verdict(-0.02, 0.01, 0.05, "greater")
    ('worse', 'none')
    """
    if p is None or not math.isfinite(p) or not math.isfinite(est):
        return "undefined"
    if p >= alpha:
        return "none"
    if est < 0 and alternative in ("two-sided", "less"):
        return "worse"
    if est > 0 and alternative in ("two-sided", "greater"):
        return "better"
    return "none"


def headline_rule(tasks: int, headline: str | None = None) -> tuple[str, str]:
    """Which overall answers "is A better overall?", and why: the one rule behind every
    per-task headline (``compare --by-task``, its JSON and the web page all state the
    headline a :class:`~mcnemar.tasks.TaskComparison` carries, decided here; re-exported as
    ``mcnemar.tasks.headline_rule``).

    The macro overall for two tasks or more (a suite's score is the mean of its task scores),
    the micro one for a single task (McNemar's test of its table); ``headline`` chooses.

    Examples
    --------
    >>> headline_rule(4)[0], headline_rule(1)[0], headline_rule(4, "micro")[0]
    ('macro', 'micro', 'micro')
    """
    chosen = headline or ("macro" if tasks > 1 else "micro")
    if chosen == "macro":
        reason = ("macro, the unweighted mean of the per-task differences, because a suite's "
                  "score is the mean of its task scores (each task counts once whatever its "
                  "size); micro pools the items (each item counts once).")
        if tasks == 1:
            reason = "macro, as asked; with one task it is that task's difference (z-test)."
    else:
        reason = ("micro, McNemar's test on the summed table, "
                  + ("because there is one task." if tasks == 1 else
                     "as asked: each item counts once, so large tasks weigh more."))
    return chosen, reason
