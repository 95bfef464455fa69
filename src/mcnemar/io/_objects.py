"""What an object held in memory is, as the readers' object claims see it.

A harness's own objects (an Inspect ``EvalLog``, lm-eval's ``simple_evaluate`` results, a data
frame of samples) are read as their files are: a format that reads them registers an
:class:`~mcnemar.io._registry.ObjectReader` whose ``claims`` is one of the tests here, and
:func:`~mcnemar.io.read_run` asks the registry which format claims an object that is not a path.

The tests are duck typing on the object's class and its module name: nothing here imports
inspect_ai, lm_eval, pandas or polars (they are optional, and a test must stay cheap), and an
object of a package that is not installed can never reach them.

=========================  ===================================================================
test                       claims
=========================  ===================================================================
:func:`is_inspect_log`     an Inspect ``EvalLog``, or the dict of its JSON log (``json.load``
                           of a ``.json`` log): a mapping with an ``eval`` mapping
:func:`is_lmeval_results`  lm-eval's ``simple_evaluate(..., log_samples=True)`` result: a
                           mapping whose ``samples`` maps each task to its list of records
:func:`is_frame`           a pandas, polars or pyarrow data frame (a polars ``LazyFrame`` too)
=========================  ===================================================================

Examples
--------
>>> is_lmeval_results({"samples": {"arc_easy": []}, "config": {"model": "hf"}})
True
>>> is_inspect_log({"eval": {"task": "t"}, "samples": []}), is_frame([1, 2])
(True, False)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

__all__ = ["describe", "is_frame", "is_inspect_log", "is_lmeval_results", "is_path"]

#: The packages whose data frames are read (through narwhals).
FRAME_PACKAGES = ("pandas", "polars", "pyarrow", "narwhals")


def is_path(obj: Any) -> bool:
    """Whether ``obj`` names a file: text or a path (``os.PathLike``)."""
    return isinstance(obj, str | os.PathLike)


def _package(obj: Any) -> str:
    return type(obj).__module__.split(".")[0]


def is_inspect_log(obj: Any) -> bool:
    """An Inspect ``EvalLog`` (or a subclass), or the dict of an Inspect JSON log."""
    if any(cls.__name__ == "EvalLog" and cls.__module__.split(".")[0] == "inspect_ai"
           for cls in type(obj).__mro__):
        return True
    return (isinstance(obj, Mapping) and isinstance(obj.get("eval"), Mapping)
            and not isinstance(obj.get("samples"), Mapping))


def is_lmeval_results(obj: Any) -> bool:
    """lm-eval's results dict with its samples: ``samples`` maps task names to lists."""
    if not isinstance(obj, Mapping) or "eval" in obj:
        return False
    samples = obj.get("samples")
    return isinstance(samples, Mapping) and all(isinstance(v, list | tuple)
                                                for v in samples.values())


def is_frame(obj: Any) -> bool:
    """A data frame of pandas, polars, pyarrow or narwhals (not a series: it has columns)."""
    # The class's attribute: a lazy frame's columns are not resolved to answer.
    return _package(obj) in FRAME_PACKAGES and hasattr(type(obj), "columns")


def describe(obj: Any) -> str:
    """How messages and reports name an object in memory: ``<pandas DataFrame>``.

    Examples
    --------
    >>> describe({"samples": {}}), describe([{"eval": {}}, {"eval": {}}])
    ('<builtins dict>', '<list of 2 builtins dict>')
    """
    if isinstance(obj, list | tuple) and obj:
        kinds = dict.fromkeys(describe(x)[1:-1] for x in obj)
        return f"<{type(obj).__name__} of {len(obj)} {' or '.join(kinds)}>"
    return f"<{_package(obj)} {type(obj).__name__}>"
