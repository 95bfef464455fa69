"""``mcnemar compare --format github``: what a GitHub Actions step needs, and nothing more.

=========================  ===================================================================
where                      what
=========================  ===================================================================
``$GITHUB_STEP_SUMMARY``   the markdown report, appended (and the failed gate, if any)
``$GITHUB_OUTPUT``         ``verdict``, ``difference``, ``low``, ``high``, ``pvalue``,
                           ``worse-tasks`` and ``gate``, one ``key=value`` line each (a value
                           holding a line break is written between delimiters)
stdout                     the text report, then ``::error`` for a failed gate and
                           ``::warning`` for each task (or comparison) where A is worse
=========================  ===================================================================

Each file is written only when its variable is set, so the same command runs outside GitHub.
The exit codes are those of ``--fail-on``. Every value is read from the result objects
(nothing is computed here): ``verdict`` is ``better``, ``worse`` (A significantly more or less
accurate than B at ``--alpha``), ``none`` or ``undefined``; ``difference``, ``low`` and
``high`` are accuracy(A) - accuracy(B) and the interval the report states, as proportions
(of scores that are not pass/fail, ``--analysis scores``: the mean difference of the scores
and its interval, in score units); ``pvalue`` the recommended (headline) p-value;
``worse-tasks`` the tasks significantly worse after adjustment, comma-separated (empty
without ``--by-task``); ``gate`` ``pass`` or ``fail``. The per-task warnings state each
task's difference in the same units: accuracy points, or score units for scores.
"""

from __future__ import annotations

import math
import os
import uuid
from collections.abc import Mapping
from typing import Any

import click

from mcnemar._format import clean_name, markdown_text

__all__ = ["annotation", "emit_github", "outputs"]

#: The words of ``verdict`` for the side the conclusion says did better.
_BETTER = {"a": "better", "b": "worse"}


def _number(x: Any) -> str:
    """A number for an output: up to 6 significant digits; empty where there is none."""
    if x is None:
        return ""
    v = float(x)
    return f"{v:.6g}" if math.isfinite(v) else ""


def outputs(result: Any, *, failed: bool = False) -> dict[str, str]:
    """The step's outputs of a report or of a per-task comparison.

    Examples
    --------
    >>> from mcnemar import PairedTable, analyze
    >>> outputs(analyze(PairedTable(a=157, b=17, c=3, d=23)))["verdict"]
    'better'
    """
    if hasattr(result, "overall"):  # a per-task comparison
        est, low, high, p = result.headline
        verdict = result.outcome
        worse = ", ".join(clean_name(t.task) for t in result.worse)
    else:
        est, p = result.difference, result.pvalue
        ci = result.headline_interval
        low, high = (None, None) if ci is None else (ci.low, ci.high)
        verdict = _BETTER.get(str(result.conclusion.better), "none")
        if p is None or not math.isfinite(float(p)):
            verdict = "undefined"
        worse = ""
    return {"verdict": verdict, "difference": _number(est), "low": _number(low),
            "high": _number(high), "pvalue": _number(p), "worse-tasks": worse,
            "gate": "fail" if failed else "pass"}


def _escape(text: str, *, property: bool = False) -> str:
    """A workflow command's message (or property value), escaped as the runner reads it."""
    out = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property:
        out = out.replace(":", "%3A").replace(",", "%2C")
    return out


def annotation(level: str, message: str, title: str = "mcnemar compare") -> str:
    """One ``::error`` / ``::warning`` / ``::notice`` line.

    Examples
    --------
    >>> annotation("error", "A is worse: 50% of items\\nsee the summary")
    '::error title=mcnemar compare::A is worse: 50%25 of items%0Asee the summary'
    """
    return f"::{level} title={_escape(title, property=True)}::{_escape(message)}"


def _task_difference(task: Any) -> str:
    """A task's difference A - B in its own units: accuracy points for pass/fail, the mean
    difference in score units (as the task's score report prints it) for scores."""
    from mcnemar.scores import ScoreReport

    report = getattr(task, "report", None)
    if isinstance(report, ScoreReport):
        return f"mean score difference {report.score_text(task.difference)}"
    return f"{100 * task.difference:+.1f} points"


def _warnings(result: Any) -> list[str]:
    """What deserves a warning: each task where A is significantly worse, or A worse."""
    a, b = (clean_name(n) for n in result.names)
    if hasattr(result, "overall"):
        how = "without adjustment" if result.adjust == "none" else \
            f"after {result.adjust} adjustment"
        return [f"{a} is significantly worse than {b} on task {clean_name(t.task)}: "
                f"{_task_difference(t)}, adjusted p = {t.adjusted_pvalue:.4g} "
                f"({how}, alpha = {result.alpha:g})" for t in result.worse]
    conclusion = result.conclusion
    if conclusion.significant and conclusion.better == "b":
        return [clean_name(conclusion.headline or f"{a} is significantly worse than {b}")]
    return []


def _write_outputs(path: str, values: Mapping[str, str]) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        for key, value in values.items():
            if "\n" in value or "\r" in value:
                delimiter = f"ghadelimiter_{uuid.uuid4()}"
                handle.write(f"{key}<<{delimiter}\n{value}\n{delimiter}\n")
            else:
                handle.write(f"{key}={value}\n")


def emit_github(result: Any, *, failure: str | None = None,
                environ: Mapping[str, str] | None = None) -> None:
    """Write the step summary and outputs (where their variables point) and print the text
    report with the annotations; ``failure`` is the failed gate's message, if any."""
    env = os.environ if environ is None else environ
    summary = env.get("GITHUB_STEP_SUMMARY")
    if summary:
        text = result.to_markdown().rstrip("\n") + "\n"
        if failure is not None:
            text += f"\n**Check failed:** {markdown_text(clean_name(failure))}\n"
        with open(summary, "a", encoding="utf-8") as handle:
            handle.write(text + "\n")
    target = env.get("GITHUB_OUTPUT")
    if target:
        _write_outputs(target, outputs(result, failed=failure is not None))
    click.echo(str(result).rstrip("\n"))
    if failure is not None:
        click.echo(annotation("error", failure))
    for message in _warnings(result):
        click.echo(annotation("warning", message))
