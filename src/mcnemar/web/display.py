"""The numbers the calculator page shows, written by the server: the ``display`` object.

The report's JSON (``to_dict()``, schema ``mcnemar.report/1``) carries the texts of its results
as the text report prints them (``pvalue_text``, ``interval_texts``, ``tasks[i].texts``, ...).
Everything else the page writes as a number (the counts, the levels as percentages, alpha, the
margin and the range of practical equality in points, the prior, the scores of the items that
flipped, the alignment's counts, the labels of the null distribution's picture) comes in the
response's ``display`` object, asked for with ``include: ["display"]`` and written here by the
rules the text report uses. The page formats no number itself, so that it, the command line
and the JSON show the same digits. ``to_dict()`` itself is unchanged: ``display`` sits beside
it, as the other extras do (:mod:`mcnemar.web.respond`).

Every function takes the JSON body (plain values), so that one builder serves the analysis
of typed counts and of uploaded files, of one task or several.

A comparison of scores (``mcnemar.scores/1``, and per task ``mcnemar.score-tasks/1``) has its
own ``display`` object (:func:`score_display`, :func:`score_tasks_display`): its numbers in
score units are the report's own (:meth:`mcnemar.scores.ScoreReport.score_text`, the decimals
its sentences use), and the texts of its table of tests and of the per-task table are written
as the text report writes them.

Examples
--------
>>> count_text(4503599627370496), level_text(0.95), level_text(0.955), number_text(0.05)
('4,503,599,627,370,496', '95%', '95.5%', '0.05')
>>> rope_text(0.005), rope_text(0.01)
('0.5 points', '1 point')
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from mcnemar._format import format_number, format_pvalue

__all__ = [
    "count_text",
    "display",
    "level_text",
    "max_count_text",
    "number_text",
    "rope_text",
    "score_display",
    "score_tasks_display",
    "score_text",
    "with_display",
]


def count_text(n: Any) -> str | None:
    """A count with thousands separators, as the page writes every count (``None`` for a
    count not given).

    >>> count_text(1234567), count_text(None)
    ('1,234,567', None)
    """
    if n is None or isinstance(n, bool):
        return None
    return f"{int(n):,}"


def level_text(x: Any) -> str | None:
    """A level or a power as a percentage, ten significant digits: the report's rule for its
    "95% interval" and "80% power" (``mcnemar.report._words._pct``).

    >>> level_text(0.9), level_text(0.999), level_text(None)
    ('90%', '99.9%', None)
    """
    if x is None:
        return None
    return format_number(100 * float(x), ".10g") + "%"


def number_text(x: Any) -> str | None:
    """A value as given (alpha, a threshold, a prior count): the shortest text that reads back
    as the same double, the report's rule for alpha (``mcnemar.report._words._num``); whole
    numbers of a count's type get thousands separators.

    >>> number_text(0.05), number_text(1.0), number_text(0.1 + 0.2), number_text(12000)
    ('0.05', '1', '0.30000000000000004', '12,000')
    """
    if x is None or isinstance(x, bool):
        return None
    if isinstance(x, int):
        return count_text(x)
    text = format_number(x, "g")
    return text if float(text) == float(x) else repr(float(x))


def score_text(x: Any) -> str:
    """An item's score as the text report's list of flips prints it (``mcnemar.flips``): six
    significant digits, or "no score".

    >>> score_text(1.0), score_text(0.333333333), score_text(None)
    ('1', '0.333333', 'no score')
    """
    from mcnemar.flips import score_text as flip_score_text

    return flip_score_text(None if x is None else float(x))


def rope_text(rope: Any) -> str | None:
    """The range of practical equality in points, as the Bayesian summary's sentence writes it
    (:meth:`mcnemar.bayes.BayesResult.text`: three significant digits).

    >>> rope_text(0.0025), rope_text(None)
    ('0.25 points', None)
    """
    if rope is None:
        return None
    text = format_number(100.0 * float(rope), ".3g")
    return text + (" point" if text == "1" else " points")


def margin_text(margin: Any) -> str | None:
    """The margin in points, as the report's heading "Against a margin of 1 point" writes it
    (:func:`mcnemar.margin.describe_margin`)."""
    if margin is None:
        return None
    from mcnemar.margin import describe_margin

    return describe_margin(float(margin))


def max_count_text() -> str:
    """The library's largest count, as the page states it in its messages.

    >>> max_count_text()
    '2**52 = 4,503,599,627,370,496'
    """
    from mcnemar.validation import MAX_COUNT

    return f"2**{MAX_COUNT.bit_length() - 1} = {count_text(MAX_COUNT)}"


# ----------------------------------------------------------------------------- the object


def display(body: dict[str, Any]) -> dict[str, Any]:
    """The ``display`` object of a response body (the report's ``to_dict()`` and its extras):
    see :class:`mcnemar.web.models.Display` for its keys.

    >>> from mcnemar.report import analyze
    >>> from mcnemar.table import PairedTable
    >>> shown = display(analyze(PairedTable(a=157, b=17, c=3, d=23)).to_dict())
    >>> shown["counts"], shown["alpha"], shown["confidence_level"]
    ({'a': '157', 'b': '17', 'c': '3', 'd': '23', 'n': '200', 'discordant': '20'}, '0.05', '95%')
    """
    table = body.get("table") or {}
    difference = body.get("difference") or {}
    power = body.get("power") or {}
    ni = body.get("noninferiority") or {}
    bayes = body.get("bayes") or {}
    tasks = body.get("tasks") or {}
    flips = body.get("flips") or tasks.get("flips")
    prior = bayes.get("prior")
    return {
        "alpha": number_text(body.get("alpha")),
        "confidence_level": level_text(
            difference.get("confidence_level", body.get("confidence_level"))),
        "counts": {key: count_text(table.get(key))
                   for key in ("a", "b", "c", "d", "n", "discordant")},
        "power_level": level_text(power.get("power")) if power else None,
        "margin": margin_text(ni.get("margin")),
        "margin_level": level_text((ni.get("confidence_interval") or {}).get("confidence_level")),
        "rope": rope_text(bayes.get("rope")),
        "credible_level": level_text(bayes.get("credible_level")),
        "prior": (", ".join(format_number(k, "g") for k in prior)
                  if isinstance(prior, list) else None),
        "distribution": _distribution(body.get("distribution")),
        "tasks": ([{key: count_text((task.get("table") or {}).get(key)) for key in ("b", "c", "n")}
                   for task in tasks["tasks"]]
                  if isinstance(tasks.get("tasks"), list) else None),
        "flips": _flips(flips),
        "alignment": _alignment(body.get("alignment") or tasks.get("alignment")),
    }


def with_display(body: dict[str, Any], include: Iterable[str]) -> dict[str, Any]:
    """``body`` with its ``display`` object when ``include`` asks for it (``"display"``)."""
    if "display" in set(include):
        body["display"] = display(body)
    return body


def _distribution(dist: Any) -> dict[str, Any] | None:
    """The texts of the null distribution's picture: its step, its tallest bar (the y axis's
    label, two significant digits) and the ticks of its x axis (both ends of the window, then
    the centre D/2, in that order: the picture drops a later tick that has no room)."""
    if not isinstance(dist, dict) or not dist.get("k"):
        return None
    ks = dist["k"]
    k_min, k_max = ks[0], ks[-1]
    middle = (int(dist["discordant"]) + 1) // 2  # D/2, halves rounded up
    ticks = [k for k in (k_min, k_max, middle) if k_min <= k <= k_max]
    peak = max(dist.get("pmf") or [0.0])
    return {
        "step": count_text(dist.get("step", 1)),
        "peak": format_number(peak, ".2g") if peak > 0 else "0",
        "ticks": [{"k": k, "text": count_text(k)} for k in ticks],
    }


def _flips(flips: Any, sides: tuple[str, str] = ("a_only", "b_only")) -> dict[str, Any] | None:
    """The counts and each listed item's scores of the flips (``sides`` of the JSON: the
    pass/fail flips, or the score report's ``a_higher``/``b_higher``, whose items also carry
    their difference), as the text report's list prints them (``mcnemar.flips``)."""
    from mcnemar.flips import difference_text

    if not isinstance(flips, dict) or not all(flips.get(side) for side in sides):
        return None
    out: dict[str, Any] = {}
    listed = total = 0
    for side in sides:
        items = flips[side].get("items") or []
        count = int(flips[side].get("count") or 0)
        listed += len(items)
        total += count
        out[side] = {
            "count": count_text(count),
            "scores": [[score_text(item.get("score_a")), score_text(item.get("score_b"))]
                       + ([difference_text(item["difference"])] if "difference" in item else [])
                       for item in items],
        }
    out["listed"] = count_text(listed)
    out["total"] = count_text(total)
    return out


def _numbers(obj: Any) -> Any:
    """``obj`` with every number written as text (:func:`number_text`) and everything else
    left out: a dictionary keeps the keys that hold numbers, a list keeps its places (``None``
    where there is no number)."""
    if isinstance(obj, bool) or obj is None or isinstance(obj, str):
        return None
    if isinstance(obj, int | float):
        return number_text(obj)
    if isinstance(obj, dict):
        out = {key: _numbers(value) for key, value in obj.items()}
        return {key: value for key, value in out.items() if value not in (None, {}, [])} or None
    if isinstance(obj, list):
        items = [_numbers(value) for value in obj]
        return items if any(item is not None for item in items) else None
    return None


def _alignment(alignment: Any) -> dict[str, Any] | None:
    """The alignment's numbers at their places, with two counts the page states that the
    block holds only in parts: the tasks paired (``task_count``, files of several tasks) and
    the paired items whose content agrees (``content_check.agree``)."""
    if not isinstance(alignment, dict):
        return None
    out: dict[str, Any] = _numbers(alignment) or {}
    if isinstance(alignment.get("tasks"), list):
        out["task_count"] = count_text(len(alignment["tasks"]))
    check = alignment.get("content_check")
    if isinstance(check, dict) and isinstance(check.get("checked"), int):
        shown = dict(out.get("content_check") or {})
        shown["agree"] = count_text(check["checked"] - int(check.get("differ") or 0))
        out["content_check"] = shown
    return out


# ----------------------------------------------------------------------------- scores


def score_display(report: Any, body: dict[str, Any]) -> dict[str, Any]:
    """The ``display`` object of a comparison of scores (a
    :class:`~mcnemar.scores.ScoreReport` and its response ``body``): see
    :class:`mcnemar.web.models.ScoreDisplay` for its keys.

    >>> from mcnemar import analyze_scores
    >>> rep = analyze_scores([0.9, 0.5, 0.7, 1.0, 0.8], [0.5, 0.6, 0.5, 0.4, 0.8],
    ...                      names=("new", "old"), random_state=0)
    >>> shown = score_display(rep, rep.to_dict())
    >>> shown["difference"], shown["means"], shown["tests"]["t"]["statistic"]
    ('+0.220', {'a': '0.780', 'b': '0.560'}, 't = 1.718')
    """
    counts = {"n": count_text(report.n), "higher_a": count_text(report.higher_a),
              "equal": count_text(report.equal), "higher_b": count_text(report.higher_b)}
    if report.clusters:
        counts["clusters"] = count_text(report.clusters)
    return {
        "alpha": number_text(report.alpha),
        "confidence_level": level_text(report.confidence_level),
        "counts": counts,
        "means": {"a": report.score_text(report.mean_a, signed=False),
                  "b": report.score_text(report.mean_b, signed=False)},
        "difference": report.score_text(report.difference),
        "intervals": {key: [report.score_text(ci.low), report.score_text(ci.high)]
                      for key, ci in report.intervals.items()},
        "tests": {key: score_test_texts(test) for key, test in body["tests"].items()},
        "power_level": (level_text(report.power_target)
                        if report.detectable_difference is not None else None),
        "flips": _score_flips(body.get("flips")),
        "alignment": _alignment(body.get("alignment")),
    }


def score_test_texts(block: dict[str, Any]) -> dict[str, str]:
    """A test of scores as a row of the text report's table: its statistic, its p-value ("—"
    when not computed) and how it was computed, from the report's JSON block of that test
    (its ``statistic_text``, ``pvalue_text`` and ``detail_text``).

    >>> score_test_texts({"statistic_text": "t = 2.214", "pvalue_text": "0.03698",
    ...                   "detail_text": "df 23"})
    {'statistic': 't = 2.214', 'pvalue': '0.03698', 'detail': 'df 23'}
    """
    return {"statistic": block["statistic_text"], "pvalue": block["pvalue_text"],
            "detail": block["detail_text"]}


def score_tasks_display(comparison: Any, body: dict[str, Any]) -> dict[str, Any]:
    """The ``display`` object of a per-task comparison of scores (a
    :class:`~mcnemar.scores.ScoreTaskComparison` and its response ``body``): each task's row
    as the text report's table prints it, and the macro overall's p-value as its sentence
    writes it."""
    o = comparison.overall
    log10_p = math.log10(o.pvalue) if o.pvalue > 0 else -math.inf
    return {
        "alpha": number_text(comparison.alpha),
        "confidence_level": level_text(comparison.confidence_level),
        "overall": {"pvalue": _p_against_alpha(o.pvalue, log10_p, comparison.alpha),
                    "significant": bool(o.pvalue < comparison.alpha)},
        "tasks": [{"n": count_text(t.report.n),
                   "mean_a": _g(t.report.mean_a, ".4g"), "mean_b": _g(t.report.mean_b, ".4g"),
                   "difference": _g(t.report.difference, "+.3g"),
                   "pvalue": _g(t.report.pvalue, ".4g"),
                   "adjusted_pvalue": _g(t.adjusted_pvalue, ".4g")}
                  for t in comparison.tasks],
        "flips": _score_flips(body.get("flips")),
    }


def with_score_display(body: dict[str, Any], result: Any, include: Iterable[str]
                       ) -> dict[str, Any]:
    """``body`` with the ``display`` object of its comparison of scores (``result``: a
    report, or a per-task comparison) when ``include`` asks for it."""
    if "display" in set(include):
        tasks = body.get("schema") == "mcnemar.score-tasks/1"
        body["display"] = (score_tasks_display if tasks else score_display)(result, body)
    return body


def _g(x: float, spec: str) -> str:
    return format(x, spec) if math.isfinite(x) else "—"


def _p_against_alpha(p: float, log10_p: float, alpha: float) -> str:
    """p as the sentences write it against alpha: as many digits as it takes to compare with
    alpha the way the exact value does (``mcnemar.report._words._p_vs_alpha``)."""
    if not math.isfinite(p):
        return "—"
    if p == 0.0 and not math.isfinite(log10_p):
        return "< 1e-300"
    if p > 1e-300 or not math.isfinite(log10_p):
        below = p < alpha
        for digits in range(4, 18):
            text = f"{p:.{digits}g}"
            if (float(text) < alpha) == below:
                return text
        return text
    return format_pvalue(p, log10_p)


def _score_flips(flips: Any) -> dict[str, Any] | None:
    """The items scored differently (the score report's ``flips``), as :func:`_flips`."""
    return _flips(flips, ("a_higher", "b_higher"))
