"""The words of a report: numbers in points and percentages, the recommendation and the
conclusion, decided claim by claim from the numbers and then put into sentences.

Nothing here computes a statistic: the functions take p-values, intervals and counts from the
result objects (:mod:`mcnemar.report._compute` computes them) and return text. Shared by
:mod:`mcnemar.report` (one table) and :mod:`mcnemar.batch` (many tables).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from mcnemar._format import format_pvalue
from mcnemar.inference import McNemarResult
from mcnemar.report._decide import (
    CLOSE_FACTOR,
    EXACT_BELOW,
    Claims,
    exact_recommended,
    interval_disagreement,
)


def _cell(x: Any) -> str:
    return "—" if x is None else str(int(x))


#: Beyond this many decimals a quantity in points is printed in e-notation (1.1e-14).
_MAX_DECIMALS = 10


def _decimals(scale: float, digits: int = 2) -> int:
    """Decimals that show a quantity of this size (in points) with ``digits`` significant
    digits; one decimal for everyday sizes, more for the tiny differences of huge test sets
    (more than ``_MAX_DECIMALS`` switches :func:`_fixed` to e-notation)."""
    if not math.isfinite(scale) or scale <= 0:
        return 1
    return max(1, digits - 1 - math.floor(math.log10(scale)))


def _fixed(value: float, decimals: int, *, signed: bool, digits: int = 2) -> str:
    """``value`` with ``decimals`` decimals, but never a bare zero for a non-zero value.

    A non-zero value that would round to zero gets ``digits`` significant digits instead, so
    that no "-0.0" or "+0.0" stands next to a verdict about a real difference and no interval
    limit loses its sign; zero itself prints unsigned ("0.0"). Beyond ``_MAX_DECIMALS``
    decimals the value is printed in e-notation with ``digits`` significant digits.
    """
    if value == 0:
        return f"{0.0:.{min(decimals, _MAX_DECIMALS)}f}"
    sign = "+" if signed else ""
    if decimals <= _MAX_DECIMALS:
        text = f"{value:{sign}.{decimals}f}"
        if float(text) != 0.0:
            return text
        decimals = digits - 1 - math.floor(math.log10(abs(value)))
        if decimals <= _MAX_DECIMALS:
            return f"{value:{sign}.{decimals}f}"
    return f"{value:{sign}.{digits - 1}e}"


def _points(x: float, decimals: int = 1) -> str:
    """A signed difference in points, e.g. '+7.0', '-0.0050', '0.0' (exactly zero)."""
    return _fixed(100 * float(x), decimals, signed=True)


def _size(x: float | None, digits: int = 2) -> str:
    """An unsigned difference in points, e.g. '7.0' or '0.00062' (``digits`` significant)."""
    if x is None:
        return ""
    v = abs(100 * float(x))
    return _fixed(v, _decimals(v, digits), signed=False, digits=digits)


def _points_pair(lo: float, hi: float) -> tuple[str, str]:
    """Both limits of an interval in points, with as many decimals as its width needs."""
    d = _decimals(100 * (hi - lo))
    return _points(lo, d), _points(hi, d)


def _points_limits(low: Any, high: Any) -> list[str] | None:
    """The limits as the report prints them, for the JSON (``None`` if undefined)."""
    lo, hi = float(low), float(high)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return None
    return list(_points_pair(lo, hi))


def _pct(x: float) -> str:
    """A level or a power as a percentage, as given: 0.95 -> '95%', 0.955 -> '95.5%'."""
    return f"{100 * float(x):.10g}%"


def _num(x: float) -> str:
    """A number as given (shortest text that reads back as the same double): 0.05 -> '0.05'."""
    text = f"{float(x):g}"
    return text if float(text) == float(x) else repr(float(x))


def _p_vs_alpha(pvalue: float, log10_pvalue: float, alpha: float) -> str:
    """'p = 0.002577 < 0.05': p with as many digits as it takes for the printed numbers to
    compare the way the exact ones do (p = 0.0499996 never reads '0.05 < 0.05')."""
    a = _num(alpha)
    below = pvalue < alpha
    sym = "<" if below else "≥"
    if pvalue == 0.0 and not math.isfinite(log10_pvalue):
        return f"p < 1e-300 {sym} {a}"
    if pvalue > 1e-300 or not math.isfinite(log10_pvalue):
        for digits in range(4, 18):
            text = f"{pvalue:.{digits}g}"
            if (float(text) < alpha) == below:
                break
    else:
        text = format_pvalue(pvalue, log10_pvalue)
    return f"p = {text} {sym} {a}"


def _fenced(text: str) -> list[str]:
    """A fenced code block whose fence is longer than any run of backticks in ``text``."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, text, fence]


def _points_interval(low: Any, high: Any) -> str:
    lo, hi = float(low), float(high)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return "undefined"
    lo_text, hi_text = _points_pair(lo, hi)
    return f"[{lo_text}, {hi_text}] points"




def _agreement(tests: dict[str, McNemarResult], alpha: float) -> str:
    """How the exact and mid-p tests compare with the recommended chi-square test, in words
    that hold for these p-values (never "agree closely" when they are orders apart)."""
    ref = float(tests["asymptotic"].log10_pvalue)
    keys = ("exact", "midp")
    gap = max(abs(float(tests[k].log10_pvalue) - ref) for k in keys)
    shown = {k: format_pvalue(tests[k].pvalue, tests[k].log10_pvalue) for k in keys}
    text = f"the exact (p = {shown['exact']}) and mid-p (p = {shown['midp']}) tests "
    if gap <= math.log10(CLOSE_FACTOR):
        text += "agree closely with it"
    elif gap < 1.0:
        text += f"differ from it by up to a factor of {10.0**gap:.2g}"
    else:
        text += f"differ from it by up to {gap:.{1 if gap < 10 else 0}f} orders of magnitude"
    rejects = {k: bool(tests[k].pvalue < alpha) for k in ("asymptotic", *keys)}
    labels = {"exact": "exact", "midp": "mid-p"}
    odd = [labels[k] for k in keys if rejects[k] != rejects["asymptotic"]]
    if not odd:
        return text + f" (the same verdict at alpha = {_num(alpha)})"
    verb = "would not reject" if rejects["asymptotic"] else "would reject"
    return text + f", and at alpha = {_num(alpha)} the {' and '.join(odd)} test {verb}"



def interval_note(
    verb: str,
    claims: Claims,
    *,
    names: tuple[str, str],
    test: str,
    alpha: float,
    alternative: str,
    ci_label: str,
    level: float,
) -> str:
    """Why a test and an interval can disagree (``verb``: :func:`interval_disagreement`): their
    levels differ (a two-sided interval at level L matches a two-sided test at 1 - L, a
    one-sided one at (1 - L)/2), or, at matching levels, they are computed differently."""
    assert claims.interval is not None
    na, nb = names
    side = {"greater": "a", "less": "b"}.get(alternative)
    lo_text, hi_text = _points_pair(*claims.interval)
    matching = 1.0 - (2.0 if side else 1.0) * alpha
    if not math.isclose(level, matching, rel_tol=1e-9, abs_tol=1e-12):
        why = f"the interval is at the {_pct(level)} level and the {test} at alpha = {_num(alpha)}"
    else:
        why = "the interval and the test are computed differently"
    return (
        f"The {_pct(level)} {ci_label} interval of {na} - {nb} ({lo_text} to {hi_text} "
        f"points) {verb} 0: {why}, so they need not agree."
    )


def headline(
    claims: Claims, *, names: tuple[str, str], alternative: str, alpha: float, discordant: int
) -> str:
    """The verdict in a few words (a page title, a notification, a row of a batch table)."""
    na, nb = names
    name_of = {"a": na, "b": nb}
    other_of = {"a": nb, "b": na}
    side = {"greater": "a", "less": "b"}.get(alternative)
    if not claims.defined:
        return "No conclusion: the test is undefined for these data"
    if claims.better is not None:
        return f"{name_of[claims.better]} did better than {other_of[claims.better]}"
    if claims.significant:
        about = name_of[side] if side else "either system"
        return f"Significant only because α = {_num(alpha)}; the data do not favour {about}"
    if claims.opposite:
        assert side is not None and claims.direction is not None
        return (
            f"No evidence that {name_of[side]} is more accurate: the data favour "
            f"{name_of[claims.direction]}"
        )
    if discordant == 0:
        return f"{na} and {nb} never disagree on these items"
    if side is None:
        return f"No clear difference between {na} and {nb}"
    return f"No clear evidence that {name_of[side]} is more accurate than {other_of[side]}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Evidence:
    """The numbers a conclusion rests on, beside its decided :class:`Claims`: the names, the
    discordant counts, the recommended test's p-value and name, the alternative and level,
    the difference with the label of its headline interval, and the detectable difference."""

    names: tuple[str, str]
    b: int
    c: int
    pvalue: float
    log10_pvalue: float
    test_name: str
    alpha: float
    alternative: str
    diff: float | None
    ci_label: str
    level: float
    detectable: float | None
    power: float

    @property
    def side(self) -> str | None:
        """The system a one-sided alternative is about (``None`` for two-sided)."""
        return {"greater": "a", "less": "b"}.get(self.alternative)

    def name(self, who: str) -> str:
        return self.names[0] if who == "a" else self.names[1]

    def other(self, who: str) -> str:
        return self.names[1] if who == "a" else self.names[0]

    @property
    def test(self) -> str:
        return f"{'one-sided ' if self.side else ''}{self.test_name} test"

    @property
    def split(self) -> str:
        na, nb = self.names
        return (f"{na} was right on {self.b} item{'s' if self.b != 1 else ''} where {nb} was "
                f"wrong, and {nb} on {self.c} where {na} was wrong")

    def ci_text(self, claims: Claims, leader: str) -> str:
        """The headline interval as it is read: the leader minus the other."""
        if claims.interval is None:
            return ""
        sign = 1.0 if leader == "a" else -1.0
        lo, hi = sorted((sign * claims.interval[0], sign * claims.interval[1]))
        lo_text, hi_text = _points_pair(lo, hi)
        return f" ({_pct(self.level)} CI {lo_text} to {hi_text} points, {self.ci_label})"

    def lead(self, claims: Claims, leader: str) -> str:
        who = self.name(leader)
        if self.diff is None:
            mine, theirs = (self.b, self.c) if leader == "a" else (self.c, self.b)
            return (f"{who} was ahead on this test set ({mine} to {theirs} on the items where "
                    "they disagree)")
        return (f"{who} was ahead on this test set by {_size(self.diff)} points"
                f"{self.ci_text(claims, leader)}")

    def power_words(self) -> str:
        if self.detectable is None:
            return ""
        favour = "" if self.side is None else f" in {self.name(self.side)}'s favour"
        return (f"{_pct(self.power)} power only for differences of "
                f"{_size(self.detectable, 3)} points or more{favour}")

    def note(self, claims: Claims) -> str:
        """Why the interval and the test disagree, when they do (else empty)."""
        verb = interval_disagreement(claims)
        if verb is None:
            return ""
        return " " + interval_note(verb, claims, names=self.names, test=self.test,
                                   alpha=self.alpha, alternative=self.alternative,
                                   ci_label=self.ci_label, level=self.level)


def _better_text(claims: Claims, ev: Evidence, p_clause: str) -> str:
    assert claims.better is not None
    size = ("" if ev.diff is None else
            f" by {_size(ev.diff)} accuracy points{ev.ci_text(claims, claims.better)}")
    return (
        f"{ev.name(claims.better)} did better than {ev.other(claims.better)}{size}: {ev.split}. "
        f"The {ev.test} gives {p_clause}, so a difference this large is unlikely if the two "
        "were equally accurate." + ev.note(claims)
    )


def _significant_only_text(claims: Claims, ev: Evidence, p_clause: str) -> str:
    # Only a one-sided test at an alpha above 1/2 rejects without the data favouring the
    # system it is about (its p-value is then at least 1/2).
    na, nb = ev.names
    about = ev.name(ev.side) if ev.side else "either system"
    data = (ev.lead(claims, claims.direction) if claims.direction is not None
            else f"{na} and {nb} were each right on {ev.b} of the items where they disagree")
    return (
        f"The {ev.test} gives {p_clause}, significant only because alpha = {_num(ev.alpha)} is "
        f"so large: the data do not favour {about}. {data}; {ev.split}."
    )


def _opposite_text(claims: Claims, ev: Evidence, p_clause: str) -> str:
    assert ev.side is not None and claims.direction is not None
    about, leader = ev.name(ev.side), ev.name(claims.direction)
    text = (
        f"The data point the other way: {ev.lead(claims, claims.direction)}, while the "
        f"alternative '{ev.alternative}' asks only whether {about} is more accurate. "
        f"{ev.split}; the {ev.test} gives {p_clause}: no evidence that {about} is more "
        f"accurate. Testing for {leader} being better after seeing this would overstate the "
        "evidence; only a test chosen in advance (such as the two-sided one) can support that."
    )
    if ev.detectable is not None:
        text += f" The test had {ev.power_words()}."
    return text


def _unresolved_text(claims: Claims, ev: Evidence, p_clause: str) -> str:
    na, nb = ev.names
    where = "in either direction" if ev.side is None else f"in {ev.name(ev.side)}'s favour"
    text = (
        f"This test set does not resolve {na} and {nb}: {ev.split}; the {ev.test} gives "
        f"{p_clause}, no significant difference {where}."
    )
    if claims.direction is not None:
        text += (f" {ev.lead(claims, claims.direction)}, but a lead this size is within what "
                 "chance produces." + ev.note(claims))
    text += " A non-significant result is not evidence that the two are equally accurate"
    return text + (f": the test had {ev.power_words()}." if ev.detectable is not None else ".")


def conclusion_text(claims: Claims, evidence: Evidence) -> str:
    """The conclusion as a paragraph, rendered from the claims and the numbers they rest on:
    one sentence pattern per verdict (undefined, better, significant only through a large
    alpha, a one-sided test against the data, not resolved)."""
    ev = evidence
    if not claims.defined:
        return f"No conclusion: the {ev.test} is undefined for these data ({ev.split})."
    p_clause = _p_vs_alpha(ev.pvalue, ev.log10_pvalue, ev.alpha)
    if claims.better is not None:
        return _better_text(claims, ev, p_clause)
    if claims.significant:
        return _significant_only_text(claims, ev, p_clause)
    if claims.opposite:
        return _opposite_text(claims, ev, p_clause)
    return _unresolved_text(claims, ev, p_clause)


def recommendation_reason(tests: dict[str, McNemarResult], discordant: int, alpha: float) -> str:
    """Why the recommended test (exact below ``EXACT_BELOW`` discordant items, else chi-square)."""
    big_d = discordant
    if big_d == 0:
        reason = (
            "no discordant items: nothing on this test set tells A and B apart, and every "
            "test gives p = 1; the exact conditional test is reported "
            f"({tests['exact'].convention})."
        )
    elif exact_recommended(big_d):
        reason = (
            f"only {big_d} discordant item{'s' if big_d != 1 else ''} (fewer than {EXACT_BELOW}), "
            "so the chi-square approximation is not trusted: report the exact conditional "
            f"test ({tests['exact'].convention}). The mid-p test (p = "
            f"{format_pvalue(tests['midp'].pvalue, tests['midp'].log10_pvalue)}) is the less "
            "conservative choice that Fagerland, Lydersen & Laake (2013) recommend."
        )
    else:
        reason = (
            f"{big_d} discordant items (at least {EXACT_BELOW}), so the chi-square approximation "
            f"is trusted: report the chi-square test ({tests['asymptotic'].convention}); "
            + _agreement(tests, alpha)
            + "; the continuity correction is needlessly conservative (Fagerland, Lydersen & "
            "Laake 2013)."
        )
    return reason[0].upper() + reason[1:]


def clustered_reason(clustered: Any, discordant: int, alternative: str) -> str:
    """Why the clustered test is recommended when the items come in clusters."""
    design = clustered.design_effect
    reason = (
        # The cluster count is of all clusters, not of those holding discordant items.
        f"the items come in {clustered.clusters} clusters ("
        + (f"{clustered.n} items, " if clustered.n is not None else "")
        + f"{discordant} discordant), so they are not independent and the plain tests "
        "overstate the evidence"
        + (f" (design effect {design:.3g})" if design is not None else "")
        + f": report the {clustered.name} (chi-square on 1 degree of freedom"
        + ("" if alternative == "two-sided" else ", halved for the one-sided alternative")
        + ")."
    )
    return reason[0].upper() + reason[1:]
