"""The words of a score report: the recommendation, the conclusion and the notes.

Nothing here computes a statistic: every function takes the numbers of a
:class:`~mcnemar.scores.ScoreReport` (or of the fields it is being built from) and returns
text. Numbers are in score units, with as many decimals as the width of the interval needs
(three significant digits of it); p-values are printed as the pass/fail report prints them
(never on the other side of alpha than they are).
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

from mcnemar._format import format_pvalue
from mcnemar.report import Conclusion
from mcnemar.report._words import Claims, _decimals, _fixed, _num, _p_vs_alpha, _pct

#: Cochran's rule as refined by Sugden, Smith & Jones (2000): the mean of more than
#: RULE_BASE + RULE_SKEW * g1**2 items is close enough to normal for the t test.
RULE_BASE = 28
RULE_SKEW = 25


def _dec(rep: Any) -> int:
    """Decimals of every score-unit number of a report."""
    ci = rep.intervals.get("t")
    width = float(ci.high - ci.low) if ci is not None else math.nan
    for scale in (width, abs(rep.difference), rep.sd_difference):
        if math.isfinite(scale) and scale > 0:
            return _decimals(scale, 3)
    return 2


def score(x: float | None, rep: Any, *, signed: bool = True) -> str | None:
    """A quantity in score units, as the report prints it."""
    if x is None or not math.isfinite(x):
        return None
    return _fixed(float(x), _dec(rep), signed=signed)


def _size(x: float, rep: Any) -> str:
    return _fixed(abs(float(x)), _dec(rep), signed=False)


def _items(k: int) -> str:
    return f"{k} item{'' if k == 1 else 's'}"


def counts_text(rep: Any) -> str:
    na, nb = rep.names
    return (f"{_items(rep.n)}: {na} scored higher on {rep.higher_a}, {nb} on {rep.higher_b}, "
            f"and the two were equal on {rep.equal}.")


def _split(rep: Any) -> str:
    na, nb = rep.names
    return (f"{na} scored higher on {_items(rep.higher_a)}, {nb} on {rep.higher_b}, and they "
            f"were equal on {rep.equal}")


def wilcoxon_convention(exact: bool, zero_method: str) -> str:
    zeros = ("zero differences dropped" if zero_method == "wilcox" else
             "zero differences ranked, then dropped (Pratt)")
    how = ("exact null distribution" if exact else
           "normal approximation with the tie-corrected variance, no continuity correction")
    return f"V = sum of the ranks of the positive differences; {zeros}; {how}"


def permutation_convention(exact: bool, flips: int, resamples: int, clusters: int | None
                           ) -> str:
    unit = "clusters" if clusters else "items"
    if exact:
        return (f"sum of the differences under all 2^{flips} sign flips of the {unit} that "
                "differ (exact)")
    return (f"sum of the differences under {resamples} random sign flips of the {unit}; "
            "p = (1 + as extreme) / (1 + flips), its Monte Carlo standard error stated")


def recommendation(*, units: int, skewness: float, tests: dict[str, Any], n: int, equal: int,
                   distinct: int, clusters: int | None, resampling: bool, binary: bool
                   ) -> tuple[str, str]:
    """The test to report and why: t when the units (items, or clusters) are more than
    28 + 25 g1**2, else the permutation test of the same mean difference."""
    need = RULE_BASE + RULE_SKEW * skewness * skewness
    unit = "clusters" if clusters else "items"
    rule = (f"{units} {unit} and a skewness of the differences of {skewness:.2g}: Cochran's "
            f"rule as refined by Sugden, Smith & Jones (2000) trusts the t test's normal "
            f"approximation of the mean once there are more than 28 + 25 g1^2 = {need:.3g} "
            f"{unit}")
    perm = tests["permutation"]
    others = (f"The signed-rank (p = {_p(tests['wilcoxon'])}) and sign (p = {_p(tests['sign'])})"
              " tests ask whether the (pseudo)median difference is zero, not the mean: report "
              "them only if that is the question.")
    if equal:
        others += (f" {equal} of {n} items have equal scores: they count in the t and "
                   "permutation tests but not in the sign and signed-rank tests.")
    if (equal or distinct < n) and not tests["wilcoxon"].exact and n - equal <= 50:
        others += " Ties take the signed-rank test to its normal approximation."
    if binary:
        others += " On 0/1 scores the sign test is McNemar's exact test."
    if units > need or not resampling:
        head = rule + (", so report the paired t test" if units > need else
                       "; there are not, but the permutation test was not computed at this "
                       "size, so report the paired t test")
        extra = "" if not math.isfinite(perm.pvalue) else (
            f" The permutation test of the same mean (p = {_p(perm)}) does without the normal "
            "approximation.")
        return "t", head + (" (cluster-robust)" if clusters else "") + "." + extra + " " + others
    how = "exact" if perm.exact else f"{perm.resamples} random sign flips"
    head = (rule + f"; there are not, so report the permutation test of the same mean "
            f"difference ({how}) with the bootstrap interval. The t test gives p = "
            f"{_p(tests['t'])}.")
    return "permutation", head + " " + others


def _p(result: Any) -> str:
    if not math.isfinite(result.pvalue):
        return "not computed"
    return pvalue_text(result.pvalue, result.log10_pvalue)


def pvalue_text(p: float, log10_p: float) -> str:
    """p as the tables print it (``< 1e-300`` where even its logarithm is not finite)."""
    if p == 0.0 and not math.isfinite(log10_p):
        return "< 1e-300"
    return format_pvalue(p, log10_p)


def hodges_lehmann_text(rep: Any) -> str:
    ci = rep.intervals.get("hodges-lehmann")
    if rep.hodges_lehmann is None or ci is None:
        return ""
    return (f"Hodges-Lehmann estimate {score(rep.hodges_lehmann, rep)} (the median of the "
            f"Walsh averages, the pseudomedian of the differences: another estimand than the "
            f"mean), {_pct(rep.hodges_lehmann_level)} interval {score(ci.low, rep)} to "
            f"{score(ci.high, rep)} from the signed-rank test.")


def unpaired_text(rep: Any) -> str:
    u = rep.unpaired
    sided = "" if rep.alternative == "two-sided" else ", one-sided like the test"
    paired_sig = rep.conclusion.significant
    unpaired_sig = u.pvalue < rep.alpha
    base = ("Ignoring the pairing (Welch's t test on the two sets of scores, as if they came "
            f"from independent samples{sided}) gives "
            + _p_vs_alpha(u.pvalue, u.log10_pvalue, rep.alpha))
    if paired_sig and not unpaired_sig:
        verdict = (", which would miss the difference the paired test finds: how hard each item"
                   " is for both systems adds variance to the unpaired test but carries no "
                   "information about the difference.")
    elif unpaired_sig and not paired_sig:
        verdict = ", which would claim a difference that the paired test does not support."
    else:
        verdict = (" (the same verdict here, but the unpaired test is the wrong one for items "
                   "scored by both systems).")
    ratio = ""
    if rep.standard_error > 0 and u.standard_error > 0:
        r = u.standard_error / rep.standard_error
        ratio = (" Its standard error is about the paired one (the two systems' scores are "
                 "hardly correlated)." if 0.95 <= r <= 1.05 else
                 f" Its standard error is {r:.3g} times the paired one.")
    return base + verdict + ratio


def power_text(rep: Any) -> str:
    if rep.detectable_difference is None:
        return ""
    sided = "" if rep.alternative == "two-sided" else " (one-sided)"
    favour = {"greater": f" in {rep.names[0]}'s favour",
              "less": f" in {rep.names[1]}'s favour"}.get(rep.alternative, "")
    spread = ("this cluster-robust standard error" if rep.clusters else
              f"a standard deviation of the differences of {_size(rep.sd_difference, rep)}")
    return (f"With {_items(rep.n)} and {spread}, the paired t test{sided} at alpha = "
            f"{_num(rep.alpha)} had {_pct(rep.power_target)} power only for mean differences of "
            f"{_size(rep.detectable_difference, rep)} or more{favour}.")


def epochs_text(rep: Any) -> str:
    e = rep.epochs
    if e is None:
        return ""
    at = e.standard_error_at
    k = e.samples_per_item
    def g(x: float) -> str:
        return f"{x:.3g}"
    more = ", ".join(f"{g(at[j])} with {j}" for j in sorted(at) if j and at[j] > at[0])
    return (f"Each item was scored {k:.3g} times on average ({e.samples} samples of "
            f"{_items(e.items)}); the analysis uses the item means, not the samples as items. "
            f"Within-item variance: {rep.names[0]} {g(e.within_a)}, {rep.names[1]} "
            f"{g(e.within_b)}; between-item variance of the difference {g(e.between_difference)}."
            f" The standard error of the mean difference is {g(e.standard_error)} with these "
            f"samples; with k samples per item it would be {more}"
            + (f", and no number of samples brings it below {g(at[0])} (more items do)."
               if at[0] > 0 else ". The between-item variance of the difference is estimated "
               "at 0: the items differ little beyond their sampling noise, so more samples "
               "per item keep lowering it."))


def clusters_text(rep: Any) -> str:
    if not rep.clusters:
        return ""
    iid = rep.standard_error_independent
    factor = "" if not iid else (f" ({rep.standard_error / iid:.3g} times the one that treats "
                                 "the items as independent)")
    return (f"The items come in {rep.clusters} clusters: the t test uses the cluster-robust "
            f"(CR1) standard error {rep.standard_error:.3g}{factor} on {rep.clusters - 1} "
            "degrees of freedom, and the permutation test and the bootstrap resample whole "
            "clusters.")


def margin_text(rep: Any) -> str:
    ni = rep.noninferiority
    if ni is None:
        return ""
    na, nb = rep.names
    m = _num(ni.margin)
    interval = (f"the {_pct(ni.level)} t interval of {na} - {nb}, {score(ni.low, rep)} to "
                f"{score(ni.high, rep)}")
    p_clause = _p_vs_alpha(ni.pvalue, math.log10(ni.pvalue) if ni.pvalue > 0 else -math.inf,
                           rep.alpha)
    if ni.noninferior:
        return (f"{na} is not worse than {nb} by {m} or more: the one-sided t test of a mean "
                f"difference above -{m} gives {p_clause}, and {interval}, lies above -{m}.")
    return (f"Non-inferiority by {m} is not shown: the one-sided t test of a mean difference "
            f"above -{m} gives {p_clause}, and {interval}, reaches -{m} or below; {na} may be "
            f"worse than {nb} by the margin or more.")


def conclusion(fields: dict[str, Any]) -> Conclusion:
    """The verdict, decided claim by claim from the numbers and then put into words."""
    rep = SimpleNamespace(**fields)
    na, nb = rep.names
    name_of = {"a": na, "b": nb}
    other_of = {"a": nb, "b": na}
    side = {"greater": "a", "less": "b"}.get(rep.alternative)
    test = rep.tests[rep.recommended]
    p, log10_p = float(test.pvalue), float(test.log10_pvalue)
    ci = rep.intervals.get(rep.recommended_interval)
    interval = None
    if ci is not None and math.isfinite(ci.low) and math.isfinite(ci.high):
        interval = (float(ci.low), float(ci.high))
    diff = rep.difference
    direction = "a" if diff > 0 else "b" if diff < 0 else None
    defined = math.isfinite(p)
    significant = defined and p < rep.alpha
    better = direction if significant and direction is not None and side in (None, direction) \
        else None
    claims = Claims(
        defined=defined, significant=significant, better=better, direction=direction,
        opposite=side is not None and direction is not None and direction != side,
        interval=interval,
        contains_zero=None if interval is None else interval[0] <= 0.0 <= interval[1],
    )
    label = "t" if rep.recommended_interval == "t" else "BCa bootstrap"
    test_name = ("one-sided " if side else "") + test.name
    p_clause = _p_vs_alpha(p, log10_p, rep.alpha) if defined else ""
    split = _split(rep)
    means = f"mean score {score(rep.mean_a, rep, signed=False)} vs " \
            f"{score(rep.mean_b, rep, signed=False)}"

    def ci_text(leader: str) -> str:
        if interval is None:
            return f" ({means})"
        sign = 1.0 if leader == "a" else -1.0
        lo, hi = sorted((sign * interval[0], sign * interval[1]))
        return (f" ({_pct(rep.confidence_level)} CI {score(lo, rep)} to {score(hi, rep)}, "
                f"{label}; {means})")

    def lead(leader: str) -> str:
        return (f"{name_of[leader]} was ahead on this test set by {_size(diff, rep)} on average"
                f"{ci_text(leader)}")

    def power_words() -> str:
        favour = "" if side is None else f" in {name_of[side]}'s favour"
        return (f"{_pct(rep.power_target)} power only for mean differences of "
                f"{_size(rep.detectable_difference, rep)} or more{favour}")

    if not defined:
        text = f"No conclusion: the {test_name} is undefined for these data ({split})."
    elif better is not None:
        winner, loser = name_of[better], other_of[better]
        text = (f"{winner} did better than {loser} by {_size(diff, rep)} on average"
                f"{ci_text(better)}: {split}. The {test_name} gives {p_clause}, so a "
                "difference this large is unlikely if the two scored the same on average.")
        if claims.contains_zero:
            text += (f" The {label} interval includes 0: it and the test are computed "
                     "differently, so they need not agree.")
    elif significant:
        about = name_of[side] if side else "either system"
        text = (f"The {test_name} gives {p_clause}, significant only because alpha = "
                f"{_num(rep.alpha)} is so large: the data do not favour {about}; {split}.")
    elif claims.opposite:
        assert side is not None and direction is not None
        text = (f"The data point the other way: {lead(direction)}, while the alternative "
                f"'{rep.alternative}' asks only whether {name_of[side]} scores higher. {split}; "
                f"the {test_name} gives {p_clause}: no evidence that {name_of[side]} scores "
                f"higher. Testing for {name_of[direction]} being better after seeing this would "
                "overstate the evidence; only a test chosen in advance can support that.")
    else:
        where = "in either direction" if side is None else f"in {name_of[side]}'s favour"
        text = (f"This test set does not resolve {na} and {nb}: {split}; the {test_name} gives "
                f"{p_clause}, no significant difference {where}.")
        if direction is not None:
            text += f" {lead(direction)}, but a lead this size is within what chance produces."
        text += " A non-significant result is not evidence that the two score the same"
        text += f": the test had {power_words()}." if rep.detectable_difference else "."
    if getattr(rep, "noninferiority", None) is not None:
        text += " " + margin_text(rep)
    if not defined:
        head = "No conclusion: the test is undefined for these data"
    elif better is not None:
        head = f"{name_of[better]} did better than {other_of[better]}"
    elif significant:
        head = f"Significant only because α = {_num(rep.alpha)}; the data do not favour " + (
            name_of[side] if side else "either system")
    elif claims.opposite:
        assert side is not None and direction is not None
        head = (f"No evidence that {name_of[side]} scores higher: the data favour "
                f"{name_of[direction]}")
    elif direction is None and rep.higher_a + rep.higher_b == 0:
        head = f"{na} and {nb} scored the same on every item"
    elif side is None:
        head = f"No clear difference between {na} and {nb}"
    else:
        head = f"No clear evidence that {name_of[side]} scores higher than {other_of[side]}"
    return Conclusion(significant=significant, better=better, text=text, direction=direction,
                      opposite_direction=claims.opposite,
                      interval_contains_zero=claims.contains_zero, headline=head)
