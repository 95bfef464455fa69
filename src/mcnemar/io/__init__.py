"""Per-item results in: readers for result files and eval-harness logs, alignment, frames.

=========================  ===========================================================
module                     holds
=========================  ===========================================================
:mod:`~mcnemar.io._run`     :class:`RunResults`, the neutral per-record data of one run
:mod:`._registry`          the reader registry: every format, its reader, sniffer and options;
                           :func:`register` and :class:`ReaderSpec` add a format, and installed
                           packages add theirs through the entry-point group ``mcnemar.readers``;
                           an :class:`ObjectReader` reads the tool's objects held in memory
:mod:`._objects`           what an object in memory is (``EvalLog``, lm-eval results, frames)
:mod:`.detect`             :func:`detect_format` (from content) and :data:`FORMATS`
:mod:`.generic`            CSV / TSV, JSON Lines and Parquet, one file per run or long
:mod:`.lmeval`             lm-evaluation-harness ``samples_<task>_<date>.jsonl``
:mod:`.inspect_log`        Inspect AI logs, ``.eval`` archives and ``.json``
:mod:`.openai_evals`       OpenAI evals JSONL (``match`` events)
:mod:`.helm`               HELM ``per_instance_stats.json``
:mod:`.promptfoo`          promptfoo ``eval -o`` results (JSON, JSON Lines, CSV)
:mod:`.lighteval`          lighteval ``--save-details`` Parquet details
:mod:`.evalscope`          evalscope review JSON Lines and run directories
:mod:`.deepeval`           deepeval test runs (``test_run_*.json``)
:mod:`.opencompass`        OpenCompass results written with ``dump_details``
:mod:`.identity`           :class:`RunIdentity` (task, scorer, status) and the checks before pairing
:mod:`.align`              :func:`align`, :func:`align_many`, :class:`Alignment`
:mod:`.frames`             :func:`table_from_frames`, :func:`table_from_long_frame`
:mod:`.matrix`             :func:`read_matrix`: a wide 0/1 table, one column per model
=========================  ===========================================================

Readers never compute statistics: they return keys and scores per record. Alignment turns
them into the paired 2x2 table, strictly (see :mod:`mcnemar.io.align`).

Examples
--------
Two runs in any order are paired by item key (a run read from a file, by :func:`read_run`, is
the same object):

>>> a = RunResults.from_scores(["q1", "q2", "q3"], [1, 1, 0], name="a")
>>> b = RunResults.from_scores(["q3", "q2", "q1"], [1, 0, 1], name="b")
>>> align(a, b).counts
(1, 1, 1, 0)
"""

from __future__ import annotations

from mcnemar.io._dispatch import read_pair, read_run
from mcnemar.io._registry import ObjectReader, ReaderSpec, formats, register, unregister
from mcnemar.io._run import RunResults, score_to_float
from mcnemar.io._sniff import CONTENT, EXTENSION, FALLBACK, GENERIC, MAGIC, NAME, Probe
from mcnemar.io.align import Alignment, AlignmentSummary, RunSummary, align, align_many
from mcnemar.io.detect import detect_format
from mcnemar.io.generic import read_long
from mcnemar.io.identity import RunIdentity, TaskIdentity
from mcnemar.io.matrix import read_matrix

__all__ = [
    "CONTENT",
    "EXTENSION",
    "FALLBACK",
    "FORMATS",
    "GENERIC",
    "MAGIC",
    "NAME",
    "Alignment",
    "AlignmentSummary",
    "ObjectReader",
    "Probe",
    "ReaderSpec",
    "RunIdentity",
    "RunResults",
    "RunSummary",
    "TaskIdentity",
    "align",
    "align_many",
    "detect_format",
    "read_long",
    "read_matrix",
    "read_pair",
    "read_run",
    "register",
    "score_to_float",
    "unregister",
]

#: Every format name accepted by ``read_run(format=...)`` (see :mod:`mcnemar.io._registry`).
FORMATS: tuple[str, ...]


def __getattr__(name: str) -> tuple[str, ...]:
    # FORMATS: every format name accepted by read_run(format=...), read from the reader
    # registry when asked (so that it includes formats registered later).
    if name == "FORMATS":
        return formats()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
