"""mcnemar: paired significance testing for two classifiers or two eval runs on the same items.

Two systems A and B scored on the same N items give a paired 2x2 table: a = both right,
b = A right and B wrong, c = A wrong and B right, d = both wrong. Only the discordant cells b
and c carry evidence; the difference in accuracy is (b - c)/N.

>>> from mcnemar import PairedTable, mcnemar, analyze
>>> t = PairedTable(a=157, b=17, c=3, d=23)
>>> r = mcnemar(t, method="exact")
>>> round(r.pvalue, 4)
0.0026
>>> rep = analyze(t, names=("candidate", "baseline"))
>>> rep.conclusion.better
'a'

Where things live:

====================  ==============================================================
module                contents
====================  ==============================================================
``table``             :class:`PairedTable` and its constructors
``inference``         :func:`mcnemar` (exact, mid-p, chi-square, corrected)
``_binomial``         exact Bin(n, 1/2) tails for any n, in log space where needed
``intervals``         intervals for the difference, ratio and odds ratio
``report``            :func:`analyze` and the :class:`Report` (text, markdown, JSON)
``batch``             :func:`analyze_many`: the reports of many tables at once
``scores``            :func:`analyze_scores`: paired scores that are not pass/fail
``planning``          :func:`power`, :func:`sample_size`, :func:`minimum_detectable_effect`
``margin``            :func:`noninferiority`, :func:`equivalence` against a margin
``sequential``        ``sequential``, :class:`Monitor`: the anytime-valid sequential test
``stopping``          :func:`stopping_time`: items until the sequential test stops
``bayes``             ``bayes``: posterior probabilities of a real gain
``clustering``        :func:`clustered` tests for items in clusters
``multiple``          :func:`pairwise` comparisons of many systems, Cochran's Q
``tasks``             :func:`compare_tasks`: two runs of a suite compared task by task
``io``                readers for result files and eval-harness logs, alignment
``cli``, ``web``      the command line and the local web calculator
====================  ==============================================================

Heavy modules are imported on first use so that ``import mcnemar`` stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcnemar._lazy import lazy_attributes
from mcnemar.errors import (
    AlignmentError,
    InputFileError,
    McNemarError,
    McNemarWarning,
    TableError,
)

if TYPE_CHECKING:
    from mcnemar.clustering import clustered
    from mcnemar.inference import McNemarResult, mcnemar
    from mcnemar.intervals import (
        ConfidenceInterval,
        difference_interval,
        odds_ratio_interval,
        ratio_interval,
    )
    from mcnemar.margin import (
        EquivalenceResult,
        NonInferiorityResult,
        equivalence,
        noninferiority,
    )
    from mcnemar.multiple import cochran_q, pairwise
    from mcnemar.planning import minimum_detectable_effect, power, sample_size
    from mcnemar.report import Report, analyze
    from mcnemar.report.batch import BatchReport, analyze_many
    from mcnemar.scores import ScoreReport, analyze_scores
    from mcnemar.sequential import Monitor
    from mcnemar.stopping import stopping_time
    from mcnemar.table import PairedTable
    from mcnemar.tasks import TaskComparison, compare_tasks

__version__ = "0.1.0"

__all__ = [
    "AlignmentError",
    "BatchReport",
    "ConfidenceInterval",
    "EquivalenceResult",
    "InputFileError",
    "McNemarError",
    "McNemarResult",
    "McNemarWarning",
    "Monitor",
    "NonInferiorityResult",
    "PairedTable",
    "Report",
    "ScoreReport",
    "TableError",
    "TaskComparison",
    "analyze",
    "analyze_many",
    "analyze_scores",
    "clustered",
    "cochran_q",
    "compare_tasks",
    "difference_interval",
    "equivalence",
    "mcnemar",
    "minimum_detectable_effect",
    "noninferiority",
    "odds_ratio_interval",
    "pairwise",
    "power",
    "ratio_interval",
    "sample_size",
    "stopping_time",
]

# Even PairedTable: it needs numpy, which ``mcnemar --help`` and ``import mcnemar`` do not.
_LAZY = {
    "PairedTable": "mcnemar.table",
    "mcnemar": "mcnemar.inference",
    "McNemarResult": "mcnemar.inference",
    "analyze": "mcnemar.report",
    "Report": "mcnemar.report",
    "analyze_many": "mcnemar.report.batch",
    "BatchReport": "mcnemar.report.batch",
    "ConfidenceInterval": "mcnemar.intervals",
    "difference_interval": "mcnemar.intervals",
    "ratio_interval": "mcnemar.intervals",
    "odds_ratio_interval": "mcnemar.intervals",
    "power": "mcnemar.planning",
    "sample_size": "mcnemar.planning",
    "minimum_detectable_effect": "mcnemar.planning",
    "clustered": "mcnemar.clustering",
    "pairwise": "mcnemar.multiple",
    "cochran_q": "mcnemar.multiple",
    "noninferiority": "mcnemar.margin",
    "equivalence": "mcnemar.margin",
    "NonInferiorityResult": "mcnemar.margin",
    "EquivalenceResult": "mcnemar.margin",
    "Monitor": "mcnemar.sequential",
    "stopping_time": "mcnemar.stopping",
    "compare_tasks": "mcnemar.tasks",
    "analyze_scores": "mcnemar.scores",
    "ScoreReport": "mcnemar.scores",
    "TaskComparison": "mcnemar.tasks",
}


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, __all__)
