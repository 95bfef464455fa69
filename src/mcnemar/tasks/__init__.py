"""Whole eval suites: which tasks got worse, and is the suite better overall?

An eval suite is many tasks (the 57 subjects of MMLU, the tasks of an lm-eval group, the
scenarios of a HELM suite, one Inspect log per task). :func:`compare_tasks` pairs two runs task
by task and answers three questions at once:

* **per task**: the paired table, accuracy(A) - accuracy(B) with its interval, and the p-value
  that ``mcnemar compare`` of that task alone reports as its headline (exact conditional test
  below 25 discordant items, chi-square from 25 on, the clustered test when the items come in
  clusters), adjusted across tasks (Holm by default, Benjamini-Hochberg on request); the
  tasks where A is significantly worse are listed first;
* **micro overall** (items pooled): McNemar on the summed table, the single-table report of
  :func:`mcnemar.report.analyze`. Tasks are strata of independent items, so the sum of the
  per-task tables is the paired table of all items;
* **macro overall** (the unweighted mean of per-task accuracies, as suites and leaderboards
  report their score): the paired difference :math:`\\hat\\Delta = \\sum_t w_t \\hat\\delta_t`
  with :math:`w_t = 1/T`, whose variance is :math:`\\sum_t w_t^2 \\operatorname{Var}(\\hat
  \\delta_t)` because the tasks hold independent items, with each task's own paired variance

  .. math::

     \\operatorname{Var}(\\hat\\delta_t) = \\frac{1}{n_t}\\left[\\frac{b_t + c_t}{n_t} -
     \\left(\\frac{b_t - c_t}{n_t}\\right)^2\\right]

  (the variance of the difference of two paired proportions; Agresti & Min 2005, the Wald
  interval of Fagerland, Lydersen & Laake 2014). A z-test and a normal interval follow.

Which overall is the headline: the macro one when there are two or more tasks, because that is
the number a suite reports (lm-eval groups, HELM and leaderboards average the task scores, so
each task counts once whatever its size); with one task the two coincide in estimate and the
micro report (the exact or chi-square McNemar test) is the headline. Both are always given,
and ``headline=`` chooses.

Clustered items: when the alignment carries clusters (``reduce="cluster"`` or a cluster
field), each task is analysed with the clustered test of its own items (what ``compare`` of
that task alone reports), its variance in the macro average is the cluster-robust one, and
the micro overall is the clustered test of all items with the clusters nested in their tasks
(a cluster label is only the same cluster within one task): the stratified view.

References
----------
Agresti A, Min Y (2005). Simple improved confidence intervals for comparing matched
proportions. Statistics in Medicine 24:729-740.

Fagerland MW, Lydersen S, Laake P (2014). Recommended tests and confidence intervals for paired
binomial proportions. Statistics in Medicine 33:2850-2875.
"""

from __future__ import annotations

from mcnemar.report._decide import headline_rule
from mcnemar.tasks._compare import (
    compare_task_tables,
    compare_tasks,
    macro_difference,
    runs_by_task,
)
from mcnemar.tasks._read import combine_tasks, read_suite, read_suite_pair, splits_into_tasks
from mcnemar.tasks._render import forest_svg
from mcnemar.tasks._results import (
    ADJUST,
    SCHEMA,
    MacroResult,
    Overall,
    TaskAlignment,
    TaskComparison,
    TaskResult,
    json_schema,
)

__all__ = [
    "ADJUST",
    "SCHEMA",
    "MacroResult",
    "Overall",
    "TaskAlignment",
    "TaskComparison",
    "TaskResult",
    "combine_tasks",
    "compare_task_tables",
    "compare_tasks",
    "forest_svg",
    "headline_rule",
    "json_schema",
    "macro_difference",
    "read_suite",
    "read_suite_pair",
    "runs_by_task",
    "splits_into_tasks",
]
