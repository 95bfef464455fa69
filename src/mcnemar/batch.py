"""The reports of many paired tables at once: :func:`analyze_many` and :class:`BatchReport`.

The public home of the batch; the code lives in :mod:`mcnemar.report.batch`, beside the single
report it shares every number with.
"""

from __future__ import annotations

from mcnemar.report.batch import SCHEMA, BatchReport, analyze_many

__all__ = ["SCHEMA", "BatchReport", "analyze_many"]
