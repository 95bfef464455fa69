"""Paired comparison of scores that are not pass/fail: graded, partial-credit and continuous.

Two systems scored on the same items with scores other than 0/1 (rubric grades, F1 or BLEU per
item, Inspect's partial credit, the mean of k epochs, log-probabilities) are compared through
the per-item differences :math:`d_i = a_i - b_i`. :func:`analyze_scores` runs the paired t test,
the Wilcoxon signed-rank test, the exact sign test and the sign-flip permutation test, the t,
bootstrap (BCa) and Hodges-Lehmann intervals, says which test to report and why, contrasts the
result with the unpaired Welch test (the pitfall), and concludes in words.

Modules
-------
``_tests``
    the four tests, vectorized over columns of differences; :class:`ScoreTestResult`.
``_intervals``
    the t interval, the paired BCa bootstrap, the Hodges-Lehmann estimate and interval.
``_epochs``
    repeated samples of an item (item means, within and between variance) and clusters (CR1).
``_planning``
    power, sample size and detectable difference of the paired t test (noncentral t and the
    normal approximation): :func:`t_power`, :func:`t_sample_size`,
    :func:`t_detectable_difference`.
``_report``
    :func:`analyze_scores` and :class:`ScoreReport`; ``_words`` and ``_render`` its sentences
    and renderings.
``_runs``
    two runs' files to a report: :func:`compare_scores`, :func:`compare_score_tasks` (the
    pairing keeps the scores; :func:`mcnemar.pipeline.compare_runs` calls them).
``_frames``
    at any size: :func:`score_sums` pairs data frames inside their engine and returns
    :class:`ScoreSums`, from which :func:`analyze_score_sums` builds the report (the tests
    that need the items in memory are left out, and it says so); deferred files take this
    path in :func:`compare_scores`.

Examples
--------
>>> from mcnemar import analyze_scores
>>> rep = analyze_scores([7, 8, 6, 9, 7, 8, 9, 6, 8, 7], [6, 8, 5, 7, 7, 6, 8, 6, 7, 5],
...                      names=("new", "old"), random_state=0)
>>> round(rep.difference, 2), rep.higher_a, rep.equal, rep.higher_b
(1.0, 7, 3, 0)
"""

from mcnemar.scores._epochs import EpochsResult
from mcnemar.scores._frames import ScoreSums, analyze_score_sums, score_sums
from mcnemar.scores._planning import TPlan, t_detectable_difference, t_power, t_sample_size
from mcnemar.scores._report import (
    SCHEMA,
    ScoreNonInferiority,
    ScoreReport,
    UnpairedResult,
    analyze_scores,
    json_schema,
)
from mcnemar.scores._runs import (
    ScoreTaskComparison,
    compare_score_tasks,
    compare_scores,
    graded,
    tasks_json_schema,
)
from mcnemar.scores._tests import ScoreTestResult

__all__ = [
    "SCHEMA",
    "EpochsResult",
    "ScoreNonInferiority",
    "ScoreReport",
    "ScoreSums",
    "ScoreTaskComparison",
    "ScoreTestResult",
    "TPlan",
    "UnpairedResult",
    "analyze_score_sums",
    "analyze_scores",
    "compare_score_tasks",
    "compare_scores",
    "graded",
    "json_schema",
    "score_sums",
    "t_detectable_difference",
    "t_power",
    "t_sample_size",
    "tasks_json_schema",
]
