"""The reader registry: every input format, registered once.

A format is a :class:`ReaderSpec`: its name and label, the module and function that read it
(imported when a file of that format is read, so that optional dependencies such as pyarrow
stay optional), how to recognise its files (a sniffer, see :mod:`mcnemar.io._sniff`, and/or
extensions), the options its reader accepts and whether it takes a read budget (``limits``),
and, for a format whose tool also hands its results over in memory, an :class:`ObjectReader`
(how to recognise such an object, see :mod:`mcnemar.io._objects`, and the function that reads
it with the same options).
Everything else derives from here: :func:`~mcnemar.io.read_run` and
:func:`~mcnemar.io._dispatch.reader_for`, :data:`mcnemar.io.FORMATS`,
:func:`~mcnemar.io.detect_format`, the command line's ``--input-format`` choices and
:func:`mcnemar.vocabulary.input_formats`.

Adding a format is one module with its reader and one call::

    register(ReaderSpec(
        name="toy", label="Toy results", module="mcnemar.io.toy", function="read_toy",
        options=("score", "name", "progress"), extensions=(".toy",),
    ))

Objects in memory
-----------------
:func:`~mcnemar.io.read_run` given something that is not a path asks every format's
:class:`ObjectReader` whether it claims the object (the claim of higher ``priority`` wins, then
the format registered first) and calls its function as ``function(obj, **options)``, with the
options the format's file reader takes (``limits`` aside: nothing is inflated or parsed). The
built-in claims: Inspect reads an ``EvalLog`` through the code that reads its ``.json`` log,
lm-eval reads ``simple_evaluate``'s results through the code that reads its samples files, and
the generic formats read a data frame through their column logic.

The options a spec declares are the whole contract with the rest of the package:
:func:`~mcnemar.io.read_run` refuses any other, :func:`mcnemar.pipeline.read_runs` passes each
reader only what it takes (a long file's reader gets no harness options), a reader that takes
``run`` without ``run_column`` holds several runs in one file (``compare FILE --runs A,B``),
and the web upload offers a task column only to readers that take ``task_column``.

Readers from other packages
---------------------------
An installed package adds a format through the entry-point group ``mcnemar.readers``: each
entry point names a :class:`ReaderSpec` (or a callable returning one or several), registered
the first time the registry is consulted. In the package's ``pyproject.toml``::

    [project.entry-points."mcnemar.readers"]
    toy = "toy_reader:SPEC"

A plug-in whose entry point fails to load, or that names a format already taken, is left out
with a :class:`~mcnemar.errors.McNemarWarning` naming it; the built-in formats stay as they are.

Examples
--------
>>> formats()[:3]
('csv', 'jsonl', 'parquet')
>>> spec("inspect").limits, spec("inspect").accepts("value_key")
(True, True)
"""

from __future__ import annotations

import functools
import importlib
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcnemar.errors import McNemarError, McNemarWarning, option
from mcnemar.io import _objects, _sniff
from mcnemar.io._sniff import EXTENSION, Probe

if TYPE_CHECKING:
    from mcnemar.io._run import RunResults

__all__ = ["ENTRY_POINT_GROUP", "ObjectReader", "ReaderSpec", "formats", "object_spec",
           "register", "spec", "specs", "unregister"]

#: The entry-point group through which installed packages add readers.
ENTRY_POINT_GROUP = "mcnemar.readers"

#: The options every reader takes.
COMMON_OPTIONS = ("score", "name", "progress")


@dataclass(frozen=True, slots=True, kw_only=True)
class ObjectReader:
    """How a format reads its tool's results held in memory (not written to a file).

    Attributes
    ----------
    claims : callable
        ``claims(obj) -> bool``: whether the object is one this format reads. It must be cheap
        and must not import the tool (test the class and its module name, see
        :mod:`mcnemar.io._objects`).
    function : str
        The reader, in the spec's module: ``function(obj, **options)`` with the options of the
        spec (``limits`` aside), returning a :class:`~mcnemar.io._run.RunResults`.
    what : str
        What the objects are, for people (``"an Inspect EvalLog"``).
    """

    claims: Callable[[Any], bool]
    function: str
    what: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ReaderSpec:
    """One input format.

    Attributes
    ----------
    name : str
        The format name (``read_run(format=...)``, ``--input-format``).
    label : str
        What the format is, for people (``"Inspect AI log"``).
    module, function : str
        Where the reader is; imported on first use. The reader is called as
        ``function(path, **fixed, **options)`` and returns a
        :class:`~mcnemar.io._run.RunResults`.
    options : tuple of str
        The keyword options the reader accepts; :func:`~mcnemar.io.read_run` refuses any
        other (except ``task``, checked against the task a log records, and ``limits``).
    limits : bool
        Whether the reader takes ``limits`` (a :class:`~mcnemar.io._archive.ReadLimits`, for
        readers that inflate archives); other readers are not given it.
    sniff : callable, optional
        ``sniff(probe) -> claim or None`` (see :mod:`mcnemar.io._sniff`).
    extensions : tuple of str
        File extensions (``".toy"``) claimed at the ``EXTENSION`` level.
    priority : int
        Breaks ties between equal claims (higher wins).
    fixed : tuple of (str, object)
        Keyword arguments always passed to the reader (``format="csv"`` for the generic
        reader shared by three formats).
    directory : str
        What a directory of this format holds, for people (``"samples_*.jsonl"``); empty for
        a format read from files only. A directory no format claims is refused with these.
    objects : ObjectReader, optional
        How the format reads its tool's objects in memory (``read_run(obj)``); ``fixed`` does
        not apply to them.
    """

    name: str
    label: str
    module: str
    function: str
    options: tuple[str, ...] = COMMON_OPTIONS
    limits: bool = False
    sniff: Callable[[Probe], int | None] | None = None
    extensions: tuple[str, ...] = ()
    priority: int = 0
    fixed: tuple[tuple[str, Any], ...] = field(default=())
    directory: str = ""
    objects: ObjectReader | None = None

    def accepts(self, keyword: str) -> bool:
        """Whether the reader takes the option ``keyword`` (``limits`` included)."""
        return keyword in self.options or (keyword == "limits" and self.limits)

    @property
    def long(self) -> bool:
        """Whether one file may hold several runs told apart by a column (``run_column``)."""
        return "run_column" in self.options

    @property
    def several_runs(self) -> bool:
        """Whether one file may hold several runs that the file itself names (``run=``
        chooses one; promptfoo's providers), so that one file can be compared with
        ``runs=(A, B)``."""
        return "run" in self.options and not self.long

    def given(self, options: dict[str, Any]) -> dict[str, Any]:
        """The options of ``options`` this reader takes (``None`` values dropped)."""
        return {k: v for k, v in options.items() if v is not None and self.accepts(k)}

    def claim(self, probe: Probe) -> int | None:
        """How strongly this format claims the probed file (``None``: not at all)."""
        found = self.sniff(probe) if self.sniff is not None else None
        if self.extensions and not probe.is_dir and probe.suffix in self.extensions:
            found = EXTENSION if found is None else max(found, EXTENSION)
        return found

    def reader(self) -> Callable[..., RunResults]:
        """The reader function (its module imported now), with the fixed arguments bound."""
        function: Callable[..., RunResults] = getattr(importlib.import_module(self.module),
                                                      self.function)
        if not self.fixed:
            return function
        return functools.partial(function, **dict(self.fixed))

    def accepts_object(self, obj: Any) -> bool:
        """Whether this format reads ``obj``, an object in memory (never a path)."""
        return self.objects is not None and bool(self.objects.claims(obj))

    def object_reader(self) -> Callable[..., RunResults]:
        """The reader of objects in memory (its module imported now)."""
        if self.objects is None:
            raise McNemarError(f"the {self.name} format reads files only, not objects in memory")
        function: Callable[..., RunResults] = getattr(importlib.import_module(self.module),
                                                      self.objects.function)
        return function


_SPECS: dict[str, ReaderSpec] = {}
_PLUGINS_LOADED = False


def load_entry_points() -> tuple[str, ...]:
    """Register the readers that installed packages declare (group ``mcnemar.readers``).

    Called once, the first time the registry is consulted; calling it again looks again (for
    a package installed since). Returns the names of the formats it registered.
    """
    global _PLUGINS_LOADED
    _PLUGINS_LOADED = True
    from importlib.metadata import entry_points

    added: list[str] = []
    for point in entry_points(group=ENTRY_POINT_GROUP):
        try:
            found = point.load()
            if callable(found) and not isinstance(found, ReaderSpec):
                found = found()
            new = [found] if isinstance(found, ReaderSpec) else list(found)
            if not all(isinstance(item, ReaderSpec) for item in new):
                raise TypeError("it names no ReaderSpec")
        except Exception as exc:  # a broken plug-in must not break the built-in readers
            warnings.warn(f"the reader plug-in {point.name!r} ({point.value}) was not loaded: "
                          f"{exc}", McNemarWarning, stacklevel=2)
            continue
        for item in new:
            if _SPECS.get(item.name) == item:
                continue
            try:
                register(item)
            except McNemarError as exc:
                warnings.warn(f"the reader plug-in {point.name!r} ({point.value}) was not "
                              f"registered: {exc}", McNemarWarning, stacklevel=2)
                continue
            added.append(item.name)
    return tuple(added)


def _all() -> dict[str, ReaderSpec]:
    if not _PLUGINS_LOADED:
        load_entry_points()
    return _SPECS


def register(reader: ReaderSpec, *, replace: bool = False) -> ReaderSpec:
    """Add a format (refusing a name already taken unless ``replace``); returns it."""
    if reader.name in ("", "auto") or reader.name != reader.name.strip():
        raise McNemarError(f"{reader.name!r} cannot name a format")
    if reader.name in _SPECS and not replace:
        raise McNemarError(f"the format {reader.name!r} is already registered; pass "
                           f"{option('replace', 'True')} to replace it")
    bad = [e for e in reader.extensions if not e.startswith(".") or e != e.lower()]
    if bad:
        raise McNemarError(f"extensions are written lower case with their dot ('.toy'), "
                           f"not {', '.join(map(repr, bad))}")
    _SPECS[reader.name] = reader
    return reader


def unregister(name: str) -> ReaderSpec:
    """Remove a format; returns its spec."""
    return _SPECS.pop(spec(name).name)


def formats() -> tuple[str, ...]:
    """The registered format names, in registration order (without ``auto``)."""
    return tuple(_all())


def specs() -> tuple[ReaderSpec, ...]:
    """The registered formats, in registration order."""
    return tuple(_all().values())


def object_spec(obj: Any) -> ReaderSpec | None:
    """The format that claims ``obj``, an object in memory (``None``: no format does).

    The claim of higher ``priority`` wins, then the format registered first.

    Examples
    --------
    >>> object_spec({"samples": {"arc_easy": []}}).name
    'lm-eval'
    >>> object_spec(3) is None
    True
    """
    found = [s for s in specs() if s.accepts_object(obj)]
    return max(found, key=lambda s: s.priority) if found else None


def spec(name: str) -> ReaderSpec:
    """The format called ``name``; refuses an unknown name, listing the known ones."""
    known = _all()
    found = known.get(name)
    if found is None:
        raise McNemarError(f"{option('format', repr(name))} is not known; use 'auto' or one of "
                           f"{', '.join(known)}")
    return found


# --- the built-in formats ----------------------------------------------------------------

_GENERIC_OPTIONS = ("id", "score", "run_column", "run", "sample", "cluster", "task_column",
                    "name", "engine", "progress")

# The three generic formats share one reader, told which format it reads by `format=`; each
# reads a data frame in memory with the same column logic.
_FRAMES = ObjectReader(claims=_objects.is_frame, function="read_frame",
                       what="a pandas, polars or pyarrow data frame")
for _name, _label, _sniffer in (("csv", "CSV / TSV", _sniff.sniff_csv),
                                ("jsonl", "JSON Lines", _sniff.sniff_jsonl),
                                ("parquet", "Parquet", _sniff.sniff_parquet)):
    register(ReaderSpec(name=_name, label=f"{_label} per-item results",
                        module="mcnemar.io.generic", function="read_generic",
                        fixed=(("format", _name),), options=_GENERIC_OPTIONS, sniff=_sniffer,
                        directory="*.parquet files (one dataset)" if _name == "parquet"
                        else "", objects=_FRAMES))
del _name, _label, _sniffer
register(ReaderSpec(name="lm-eval", label="lm-evaluation-harness samples",
                    module="mcnemar.io.lmeval", function="read_lmeval",
                    options=("score", "filter", "task", "cluster", "name", "progress"),
                    sniff=_sniff.sniff_lmeval, priority=2,
                    directory="lm-eval samples_*.jsonl",
                    objects=ObjectReader(claims=_objects.is_lmeval_results,
                                         function="read_lmeval_results",
                                         what="lm-eval's simple_evaluate(..., log_samples=True) "
                                              "results")))
register(ReaderSpec(name="inspect", label="Inspect AI log",
                    module="mcnemar.io.inspect_log", function="read_inspect",
                    options=("score", "value_key", "cluster", "on_error", "name", "progress"),
                    limits=True,
                    sniff=_sniff.sniff_inspect, extensions=(".eval",), priority=1,
                    objects=ObjectReader(claims=_objects.is_inspect_log,
                                         function="read_inspect_log",
                                         what="an Inspect EvalLog (or the dict of its JSON log)")))
register(ReaderSpec(name="openai-evals", label="OpenAI evals log",
                    module="mcnemar.io.openai_evals", function="read_openai_evals",
                    sniff=_sniff.sniff_openai_evals, priority=3))
register(ReaderSpec(name="helm", label="HELM per-instance statistics",
                    module="mcnemar.io.helm", function="read_helm",
                    options=("score", "perturbation", "split", "name", "progress"),
                    sniff=_sniff.sniff_helm, priority=4,
                    directory="HELM per_instance_stats.json"))
register(ReaderSpec(name="promptfoo", label="promptfoo eval results",
                    module="mcnemar.io.promptfoo", function="read_promptfoo",
                    options=("score", "run", "on_error", "name", "progress"),
                    sniff=_sniff.sniff_promptfoo, priority=5))
register(ReaderSpec(name="lighteval", label="lighteval details",
                    module="mcnemar.io.lighteval", function="read_lighteval",
                    options=("score", "task", "name", "progress"),
                    sniff=_sniff.sniff_lighteval, priority=5,
                    directory="lighteval details/<model>/<stamp>/details_*.parquet"))
register(ReaderSpec(name="evalscope", label="evalscope reviews",
                    module="mcnemar.io.evalscope", function="read_evalscope",
                    options=("score", "task", "name", "progress"),
                    sniff=_sniff.sniff_evalscope, priority=5,
                    directory="evalscope reviews/<model>/*.jsonl"))
register(ReaderSpec(name="deepeval", label="deepeval test run",
                    module="mcnemar.io.deepeval", function="read_deepeval",
                    options=("score", "on_error", "name", "progress"),
                    sniff=_sniff.sniff_deepeval, priority=5,
                    directory="deepeval test_run_*.json"))
register(ReaderSpec(name="opencompass", label="OpenCompass results with details",
                    module="mcnemar.io.opencompass", function="read_opencompass",
                    options=("score", "task", "name", "progress"),
                    sniff=_sniff.sniff_opencompass, priority=1,
                    directory="OpenCompass results/<model>/<dataset>.json"))
