"""The full analysis of one paired table (or of many), in words that cannot be misread.

:func:`analyze` runs every test, picks the p-value to report (and says why), estimates the
difference in accuracy with several confidence intervals, contrasts the result with the
unpaired comparison that ignores the pairing (the common mistake), states what the test set
could have detected, and concludes in plain words which system did better — or that the test
set does not resolve them, which is not evidence that they are equally good.

The :class:`Report` renders as text (``str``), markdown (:meth:`Report.to_markdown`), HTML in
a notebook and JSON (:meth:`Report.to_dict`, schema ``mcnemar.report/1``, documented in
``docs/report-schema.md``).

The package, in the order the data flow through it (each module imports only the ones above
it):

===============  ================================================================================
``_decide``      the decision rules, each once: the recommended test (``EXACT_BELOW``), the
                 clustered override, the claims of a conclusion, interval-test disagreement,
                 a per-task verdict, a suite's headline (macro or micro)
``_compute``     every number of a report, for an array of tables at once (:class:`Columns`)
``_words``       the conclusion, the recommendation and the notes put into sentences
``_render``      text, markdown and HTML of a :class:`Report`
``_result``      :class:`Report` and :class:`Conclusion` (frozen; ``to_dict()``)
``_build``       :func:`analyze` and :func:`report_at`: a report from the columns
``batch``        :func:`analyze_many` and :class:`BatchReport`: many tables at once
===============  ================================================================================
"""

from __future__ import annotations

from mcnemar.report._build import analyze, report_at
from mcnemar.report._compute import EXACT_POWER_MAX_D
from mcnemar.report._decide import CLOSE_FACTOR, EXACT_BELOW
from mcnemar.report._result import (
    ASSUMPTIONS,
    CLUSTERED_ASSUMPTIONS,
    SCHEMA,
    Conclusion,
    Report,
    json_schema,
)

__all__ = [
    "ASSUMPTIONS",
    "CLOSE_FACTOR",
    "CLUSTERED_ASSUMPTIONS",
    "EXACT_BELOW",
    "EXACT_POWER_MAX_D",
    "SCHEMA",
    "Conclusion",
    "Report",
    "analyze",
    "json_schema",
    "report_at",
]
