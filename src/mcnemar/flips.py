"""The items that flipped: where two paired runs disagree, listed item by item.

Only the discordant items carry the evidence of a paired comparison: the b items (A right,
B wrong) and the c items (A wrong, B right). After "is the difference real?" the next question
is "which items got worse?", and :class:`Flips` answers it: the b items (``a_only``) and the
c items (``b_only``), in run A's order, each with its id, its task where the item key holds
one, the two runs' scores and what the logs record of its content.

Scores that are not pass/fail do not flip, they move: :class:`ScoreFlips` lists the items
that A scored higher (``a_higher``) and those that B scored higher (``b_higher``), the largest
differences first, with the same fields and the difference A - B. It is a :class:`Flips`
with other sides and another order; the listing, the JSON, the text, the markdown and the
files are the same code.

=========================  ===================================================================
name                       what
=========================  ===================================================================
:class:`Flip`              one discordant item (or one item scored differently)
:class:`Flips`             all of them, with the counts b and c (always) and the listing's
                           length (``limit``) and whether the text and markdown show them
:meth:`Flips.of`           from an :class:`~mcnemar.io.Alignment` (``Alignment.flips()``)
:class:`ScoreFlips`        the items two runs scored differently, largest differences first
                           (``ScoreFlips.of(alignment)``; a score report's ``flips``)
:meth:`Flips.concat`       the flips of several tasks, each item labelled with its task
:meth:`Flips.write`        every flip, all fields, to a ``.csv`` or ``.jsonl`` file
=========================  ===================================================================

Runs counted inside the engine (large deferred files, :mod:`mcnemar.io._frames`) keep no
per-item outcomes: their flips keep the counts and say why no item is listed, rather than
fail. Nothing here computes a statistic: the items are the pairs the alignment counted.

Examples
--------
>>> from mcnemar.io import RunResults, align
>>> al = align(RunResults.from_scores(["q1", "q2", "q3", "q4"], [1, 1, 0, 0], name="new"),
...            RunResults.from_scores(["q1", "q2", "q3", "q4"], [1, 0, 1, 0], name="old"))
>>> flips = al.flips()
>>> flips.to_dict()["a_only"]
{'count': 1, 'items': [{'id': 'q2', 'score_a': 1.0, 'score_b': 0.0}]}
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from mcnemar._format import clean_name, markdown_text, shorten
from mcnemar.errors import McNemarError, option

if TYPE_CHECKING:
    from mcnemar.io.align import Alignment

__all__ = ["DEFAULT_LIMIT", "EXCERPT_CHARS", "Flip", "Flips", "ScoreFlips"]

#: How many items of each side the JSON lists unless asked otherwise.
DEFAULT_LIMIT = 20
#: Characters of an item's content the JSON and the reports show (files hold all of it).
EXCERPT_CHARS = 120
#: The sides of a comparison's flips: the b items, then the c items.
SIDES = ("a_only", "b_only")
#: The columns of a flips file, in order.
FILE_FIELDS = ("side", "id", "task", "score_a", "score_b", "content_a", "content_b")
#: The sides of a score comparison's items: those A scored higher, then those B scored higher.
SCORE_SIDES = ("a_higher", "b_higher")
#: The columns of a file of the items scored differently, in order.
SCORE_FILE_FIELDS = ("side", "id", "task", "score_a", "score_b", "difference", "content_a",
                     "content_b")


def _json_part(value: Any) -> Any:
    """One part of an item key, JSON-safe: text, numbers, booleans and None as they are,
    tuples as lists, anything else as its text."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, tuple | list):
        return [_json_part(v) for v in value]
    return str(value)


def _score(value: Any) -> float | None:
    if value is None:
        return None
    x = float(value)
    return x if math.isfinite(x) else None


def _excerpt(value: Any, limit: int = EXCERPT_CHARS) -> str:
    return shorten(clean_name(str(value)), limit)


@dataclass(frozen=True, slots=True, kw_only=True)
class Flip:
    """One item on which the runs disagree.

    Attributes
    ----------
    side : {"a_only", "b_only", "a_higher", "b_higher"}
        ``"a_only"``: A right and B wrong (the b cell); ``"b_only"``: the reverse (c).
        Of scores (:class:`ScoreFlips`): ``"a_higher"``, A scored higher; ``"b_higher"``,
        B did.
    id : str, number, list or None
        The item's key, JSON-safe, without the parts that describe the run (the task and
        filter parts of an lm-eval key); a composite key is a list.
    task : str or None
        The item's task, where the key holds one (or the task of a per-task comparison).
    score_a, score_b : float or None
        Each run's score of the item, before it was counted as a pass or a fail (of scores:
        the mean of the item's samples, when it was scored several times).
    difference : float or None
        ``score_a - score_b``, for the items of a score comparison (``None`` for pass/fail).
    content_a, content_b : str or None
        What each run's log records of the item's content (whole), where it does.
    """

    side: str
    id: Any
    task: str | None = None
    score_a: float | None = None
    score_b: float | None = None
    difference: float | None = None
    content_a: str | None = None
    content_b: str | None = None

    @property
    def content(self) -> str | None:
        """The item's content as A's log records it, else as B's."""
        return self.content_a if self.content_a is not None else self.content_b

    def to_dict(self, *, excerpt: int | None = EXCERPT_CHARS) -> dict[str, Any]:
        """JSON-safe fields: ``id``, ``task`` (where known), ``score_a``, ``score_b``, the
        ``difference`` (of scores) and the content (cut to ``excerpt`` characters; ``None``:
        whole) where the logs record it; B's content only where it differs from A's."""
        out: dict[str, Any] = {"id": self.id}
        if self.task is not None:
            out["task"] = self.task
        out["score_a"] = self.score_a
        out["score_b"] = self.score_b
        if self.difference is not None:
            out["difference"] = self.difference
        cut: Callable[[str], str] = (lambda x: x) if excerpt is None else \
            (lambda x: _excerpt(x, excerpt))
        if self.content is not None:
            out["content"] = cut(self.content)
        if self.content_a is not None and self.content_b is not None \
                and self.content_b != self.content_a:
            out["content_b"] = cut(self.content_b)
        return out

    def row(self) -> dict[str, Any]:
        """Every field, whole, as a row of a flips file (:data:`FILE_FIELDS`; with the
        ``difference``, :data:`SCORE_FILE_FIELDS`)."""
        out = {"side": self.side, "id": self.id, "task": self.task, "score_a": self.score_a,
               "score_b": self.score_b}
        if self.difference is not None:
            out["difference"] = self.difference
        return {**out, "content_a": self.content_a, "content_b": self.content_b}


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class Flips:
    """The discordant items of a paired comparison, in run A's order.

    Attributes
    ----------
    b, c : int
        How many items only A got right (b) and only B got right (c): always the table's
        cells, whether or not the items can be listed.
    reason : str or None
        Why the items are not listed (``None`` when they are).
    limit : int
        How many items of each side :meth:`to_dict` lists (the counts are always there).
    shown : bool
        Whether the text and markdown reports list them (``--flips`` on the command line).
    content_name : str or None
        What the content is (``"doc_hash"``, ``"input/target"``), where recorded.

    Build it with ``alignment.flips()``; :meth:`listing` sets ``limit`` and ``shown``.
    """

    #: The two sides, as the JSON and the files name them (b's items, then c's).
    sides: ClassVar[tuple[str, str]] = SIDES
    #: The columns of :meth:`write`'s files.
    file_fields: ClassVar[tuple[str, ...]] = FILE_FIELDS
    #: The heading of the items in the text reports.
    title: ClassVar[str] = "Items that flipped"
    #: Whether the items are of scores (each carries its difference A - B).
    graded: ClassVar[bool] = False

    b: int
    c: int
    reason: str | None = None
    limit: int = DEFAULT_LIMIT
    shown: bool = False
    content_name: str | None = None
    # The discordant items, in A's order (None when they are not known). Their ids and tasks
    # are made from the item keys when an item is listed (a pairing of millions of items
    # builds none it does not show), or given whole (``_ids``, ``_tasks``: several tasks).
    _sides: np.ndarray | None = None  # True: A right and B wrong
    _keys: np.ndarray | None = None  # the item keys (object)
    _key_parts: tuple[int | None, tuple[int, ...], bool] = (None, (), False)
    _ids: tuple[Any, ...] | None = None
    _tasks: tuple[str | None, ...] | None = None
    _scores: np.ndarray | None = None  # (D, 2)
    _contents_a: np.ndarray | None = None
    _contents_b: np.ndarray | None = None

    # -- building -----------------------------------------------------------------------------
    @classmethod
    def of(cls, alignment: Alignment) -> Flips:
        """The flips of a pairing (what :meth:`mcnemar.io.Alignment.flips` returns)."""
        _, b, c, _ = (int(x) for x in alignment.counts)
        ca, cb, keys = alignment.correct_a, alignment.correct_b, alignment.keys
        ident = alignment.summary.run_a.identity
        content_name = ident.content_name
        if ca is None or cb is None or keys is None:
            why = ("the runs were counted inside the engine (DuckDB), which returns the counts "
                   "only; pair them with engine='numpy' (on the command line: ask for the "
                   "flips with --flips or --flips-out) to list the items")
            return cls(b=b, c=c, reason=why, content_name=content_name)
        where = np.flatnonzero(ca != cb)
        nested = alignment.summary.reduce == "cluster"  # keys are (item, sample)
        task_part, filter_part = ident.task_part, ident.filter_part
        drop = tuple(sorted({p for p in (task_part, filter_part) if p is not None}))
        scores = np.full((len(where), 2), np.nan)
        for j, column in enumerate((alignment.scores_a, alignment.scores_b)):
            if column is not None:
                scores[:, j] = np.asarray(column, dtype=np.float64)[where]
            else:  # the pass/fail itself, when the score before it is not kept
                scores[:, j] = (ca if j == 0 else cb)[where]
        return cls(b=b, c=c, content_name=content_name, _sides=(ca[where] == 1),
                   _keys=keys[where], _key_parts=(task_part, drop, nested), _scores=scores,
                   _contents_a=None if alignment.contents_a is None else
                   alignment.contents_a[where],
                   _contents_b=None if alignment.contents_b is None else
                   alignment.contents_b[where])

    @classmethod
    def concat(cls, parts: Sequence[tuple[str, Flips]]) -> Flips:
        """The flips of several tasks one after the other, each item labelled with its task.

        Examples
        --------
        >>> from mcnemar.io import RunResults, align
        >>> def flips(a, b):
        ...     keys = ["x", "y"]
        ...     return align(RunResults.from_scores(keys, a), RunResults.from_scores(keys, b)
        ...                  ).flips()
        >>> both = Flips.concat([("t1", flips([1, 0], [0, 0])), ("t2", flips([0, 1], [1, 1]))])
        >>> [(f.task, f.id, f.side) for f in both.items()]
        [('t1', 'x', 'a_only'), ('t2', 'x', 'b_only')]
        """
        b = sum(f.b for _, f in parts)
        c = sum(f.c for _, f in parts)
        names = {f.content_name for _, f in parts}
        content_name = names.pop() if len(names) == 1 else None
        missing = [f.reason for _, f in parts if f.reason is not None]
        if missing or not parts:
            return cls(b=b, c=c, reason=missing[0] if missing else None,
                       content_name=content_name)
        sides = [f._sides for _, f in parts]
        scores = [f._scores for _, f in parts]
        contents = [f._contents() for _, f in parts]
        return cls(
            b=b, c=c, content_name=content_name,
            _sides=np.concatenate([s for s in sides if s is not None]),
            _ids=tuple(f._id(i) for _, f in parts for i in range(f._size)),
            _tasks=tuple(name for name, f in parts for _ in range(f._size)),
            _scores=np.concatenate([s for s in scores if s is not None]),
            _contents_a=_object_concat([x[0] for x in contents]),
            _contents_b=_object_concat([x[1] for x in contents]),
        )

    def of_tasks(self, tasks: Collection[str]) -> Flips:
        """The flips of these tasks only, with their own counts (unchanged when the items
        are not known).

        Examples
        --------
        >>> from mcnemar.io import RunResults, align
        >>> def flips(a, b):
        ...     keys = ["x", "y"]
        ...     return align(RunResults.from_scores(keys, a), RunResults.from_scores(keys, b)
        ...                  ).flips()
        >>> both = Flips.concat([("t1", flips([1, 0], [0, 1])), ("t2", flips([0, 1], [1, 1]))])
        >>> t2 = both.of_tasks(["t2"])
        >>> t2.b, t2.c, [f.id for f in t2]
        (0, 1, ['x'])
        """
        if self._sides is None or self._scores is None:
            return self
        wanted = set(tasks)
        keep = np.fromiter((self._task(i) in wanted for i in range(self._size)), dtype=bool,
                           count=self._size)
        index = np.flatnonzero(keep).tolist()
        sides = self._sides[keep]
        contents_a, contents_b = self._contents()
        return replace(self, b=int(sides.sum()), c=int((~sides).sum()), _sides=sides,
                       _keys=None, _ids=tuple(self._id(i) for i in index),
                       _tasks=tuple(self._task(i) for i in index), _scores=self._scores[keep],
                       _contents_a=contents_a[keep], _contents_b=contents_b[keep])

    def listing(self, limit: int | None = None, *, shown: bool = True) -> Flips:
        """A copy that lists up to ``limit`` items of each side (default: as now), shown in
        the text and markdown reports when ``shown``."""
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                                  or limit < 0):
            raise McNemarError(f"{option('flips', 'N')} must be a whole number of items, 0 or "
                               f"more; got {limit!r}")
        return replace(self, limit=self.limit if limit is None else limit, shown=shown)

    # -- reading ------------------------------------------------------------------------------
    @property
    def available(self) -> bool:
        """Whether the items are known (not only their counts)."""
        return self._sides is not None

    @property
    def has_tasks(self) -> bool:
        """Whether the items carry their task."""
        if self._tasks is not None:
            return any(t is not None for t in self._tasks)
        return self._size > 0 and self._key_parts[0] is not None

    @property
    def has_content(self) -> bool:
        """Whether the logs record the items' content."""
        return any(x is not None and any(v is not None for v in x.tolist())
                   for x in (self._contents_a, self._contents_b))

    # -- one item -----------------------------------------------------------------------------
    @property
    def _size(self) -> int:
        return 0 if self._sides is None else len(self._sides)

    def _split_key(self, i: int) -> tuple[Any, str | None]:
        """Item ``i``'s id (JSON-safe, the run's task and filter parts left out) and task."""
        assert self._keys is not None
        task_part, drop, nested = self._key_parts
        key = self._keys[i]
        inner, extra = (key[0], [key[1]]) if nested and isinstance(key, tuple) else (key, [])
        if isinstance(inner, tuple):
            task = inner[task_part] if task_part is not None and task_part < len(inner) \
                else None
            parts = [p for j, p in enumerate(inner) if j not in drop] + extra
        else:
            task, parts = None, [inner, *extra]
        ident = _json_part(parts[0]) if len(parts) == 1 else _json_part(parts)
        return ident, None if task is None else str(task)

    def _id(self, i: int) -> Any:
        return self._ids[i] if self._ids is not None else self._split_key(i)[0]

    def _task(self, i: int) -> str | None:
        return self._tasks[i] if self._tasks is not None else self._split_key(i)[1]

    def _contents(self) -> tuple[np.ndarray, np.ndarray]:
        """A's and B's contents of every item (None where not recorded)."""
        empty = np.full(self._size, None, dtype=object)
        return (empty if self._contents_a is None else self._contents_a,
                empty if self._contents_b is None else self._contents_b)

    def _first(self, side: str) -> bool:
        """Whether ``side`` is the first of :attr:`sides` (b's items), refusing any other."""
        if side not in self.sides:
            raise McNemarError(f"side must be {self.sides[0]!r} or {self.sides[1]!r}; got "
                               f"{side!r}", argument="side")
        return side == self.sides[0]

    def count(self, side: str) -> int:
        """b for ``"a_only"``, c for ``"b_only"`` (of scores: the items A scored higher for
        ``"a_higher"``, those B scored higher for ``"b_higher"``)."""
        return self.b if self._first(side) else self.c

    def items(self, side: str | None = None, limit: int | None = None) -> list[Flip]:
        """The flips of one side (``"a_only"``, ``"b_only"``) or of both (in A's order), the
        first ``limit`` of them (default all); empty when the items are not known."""
        if self._sides is None or self._scores is None:
            return []
        if side is None:
            index: Any = range(len(self._sides))
        else:
            mask = self._sides if self._first(side) else ~self._sides
            index = np.flatnonzero(mask).tolist()
        out: list[Flip] = []
        contents_a, contents_b = self._contents()
        first, second = self.sides
        for i in index:
            if limit is not None and len(out) >= limit:
                break
            sa, sb = _score(self._scores[i, 0]), _score(self._scores[i, 1])
            ca, cb = contents_a[i], contents_b[i]
            difference = sa - sb if self.graded and sa is not None and sb is not None else None
            out.append(Flip(
                side=first if self._sides[i] else second, id=self._id(i),
                task=self._task(i), score_a=sa, score_b=sb, difference=difference,
                content_a=None if ca is None else str(ca),
                content_b=None if cb is None else str(cb)))
        return out

    @property
    def a_only(self) -> list[Flip]:
        """Every item A got right and B wrong (the b cell), in A's order."""
        return self.items("a_only")

    @property
    def b_only(self) -> list[Flip]:
        """Every item A got wrong and B right (the c cell), in A's order."""
        return self.items("b_only")

    def __len__(self) -> int:
        return self.b + self.c

    def __iter__(self) -> Iterator[Flip]:
        return iter(self.items())

    def __repr__(self) -> str:
        listed = "" if self.available else ", not listed"
        return f"Flips(b={self.b}, c={self.c}{listed})"

    # -- rendering ----------------------------------------------------------------------------
    def to_dict(self, limit: int | None = None) -> dict[str, Any]:
        """JSON-safe: per side the count (always b and c) and the first ``limit`` items
        (default :attr:`limit`), or ``None`` with ``reason`` when they are not known."""
        n = self.limit if limit is None else limit
        out: dict[str, Any] = {}
        for side in self.sides:
            items = None if not self.available else \
                [f.to_dict() for f in self.items(side, n)]
            out[side] = {"count": self.count(side), "items": items}
        if self.content_name is not None:
            out["content"] = self.content_name
        if self.reason is not None:
            out["reason"] = self.reason
        return out

    def _heads(self, na: str, nb: str) -> tuple[str, str]:
        """The heading of each side, for the names ``na`` and ``nb``."""
        return f"{na} right, {nb} wrong", f"{na} wrong, {nb} right"

    def _summary(self, na: str, nb: str) -> str:
        """The line that opens (and folds) the markdown block."""
        return f"Items that flipped: {self.b} only {na} right, {self.c} only {nb} right"

    def lines(self, names: Sequence[str], limit: int | None = None) -> list[str]:
        """The text of the flips: a heading per side and one line per item listed."""
        na, nb = (clean_name(x) for x in names)
        n = self.limit if limit is None else limit
        out = []
        for side, head in zip(self.sides, self._heads(na, nb), strict=True):
            count = self.count(side)
            items = self.items(side, n)
            more = f"; the first {len(items)}" if len(items) < count and self.available else ""
            out.append(f"  {head} ({count}{more}):")
            out += [f"    - {_item_text(f)}" for f in items]
        if self.reason is not None:
            out.append(f"  The items are not listed: {self.reason}.")
        return out

    def markdown(self, names: Sequence[str], limit: int | None = None) -> list[str]:
        """The flips as a collapsible ``<details>`` block of two tables (one per side)."""
        na, nb = (markdown_text(shorten(clean_name(x))) for x in names)
        n = self.limit if limit is None else limit
        out = [f"<details><summary>{self._summary(na, nb)}</summary>", ""]
        tasks, content = self.has_tasks, self.has_content
        head = ["id", *(["task"] if tasks else []), na, nb,
                *(["difference"] if self.graded else []), *(["content"] if content else [])]
        numbers = (na, nb, "difference")
        for side, title in zip(self.sides, self._heads(na, nb), strict=True):
            count = self.count(side)
            items = self.items(side, n)
            more = f"; the first {len(items)}" if len(items) < count and self.available else ""
            out += [f"**{title}** ({count}{more})", ""]
            if not items:
                continue
            out += ["| " + " | ".join(head) + " |",
                    "|" + "|".join("---:" if h in numbers else "---" for h in head) + "|"]
            for f in items:
                cells = [markdown_text(_id_text(f.id))]
                if tasks:
                    cells.append(markdown_text(clean_name(f.task or "")))
                cells += [score_text(f.score_a), score_text(f.score_b)]
                if self.graded:
                    cells.append(difference_text(f.difference))
                if content:
                    cells.append(markdown_text(_excerpt(f.content or "")))
                out.append("| " + " | ".join(cells) + " |")
            out.append("")
        if self.reason is not None:
            out += [markdown_text(f"The items are not listed: {self.reason}."), ""]
        return [*out, "</details>"]

    # -- files --------------------------------------------------------------------------------
    def write(self, path: str | Path, *, argument: str = "path") -> Path:
        """Write every flip, with all its fields whole, to a ``.csv`` or ``.jsonl`` file.

        The columns are :data:`FILE_FIELDS`: ``side`` (``a_only`` or ``b_only``), ``id``
        (in CSV a composite id is written as JSON), ``task``, ``score_a``, ``score_b``,
        ``content_a`` and ``content_b``; empty cells (CSV) or nulls (JSON Lines) where a log
        records nothing. Of scores (:class:`ScoreFlips`) they are :data:`SCORE_FILE_FIELDS`:
        the sides ``a_higher`` and ``b_higher``, and the ``difference`` after the scores.
        ``argument`` names the option in an error.

        Examples
        --------
        >>> import tempfile, csv
        >>> from mcnemar.io import RunResults, align
        >>> al = align(RunResults.from_scores(["q1", "q2"], [1, 0]),
        ...            RunResults.from_scores(["q1", "q2"], [0, 1]))
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     out = al.flips().write(Path(tmp) / "flips.csv")
        ...     rows = list(csv.DictReader(out.open()))
        >>> [(r["side"], r["id"], r["score_a"]) for r in rows]
        [('a_only', 'q1', '1.0'), ('b_only', 'q2', '0.0')]
        """
        target = Path(path)
        writer = _WRITERS.get(target.suffix.lower())
        if writer is None:
            known = " or ".join(_WRITERS)
            raise McNemarError(f"{option(argument, str(path))}: flips are written to a {known} "
                               f"file (the extension says which); got "
                               f"{target.suffix or 'no extension'!r}", argument=argument)
        if not self.available:
            raise McNemarError(f"{option(argument, str(path))}: cannot list the flips: "
                               f"{self.reason}", argument=argument)
        try:
            with target.open("w", encoding="utf-8", newline="") as handle:
                writer(handle, [f.row() for f in self.items()], self.file_fields)
        except OSError as exc:
            raise McNemarError(f"{option(argument, str(path))}: could not write the file: "
                               f"{exc.strerror or exc}", argument=argument) from None
        return target


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class ScoreFlips(Flips):
    """The items two runs scored differently, the largest differences first.

    Scores that are not pass/fail do not flip; what matters is where they moved most. The
    items A scored higher (``a_higher``) and those B scored higher (``b_higher``) are each
    ordered by the size of the difference :math:`|a_i - b_i|`, largest first, ties in run A's
    order; every item carries both scores, the difference A - B, its task where the key holds
    one and what the logs record of its content, as :class:`Flips` does. Items scored several
    times (epochs) are listed once, with the means of their samples, as the analysis uses
    them. Items the two runs scored the same are not listed.

    Attributes
    ----------
    b, c : int
        How many items A scored higher (the score report's ``higher_a``) and how many B
        scored higher (``higher_b``); always there, whether or not the items are listed.

    The other attributes, the listing, the JSON (sides ``a_higher`` and ``b_higher``), the
    text, the markdown and the files (:data:`SCORE_FILE_FIELDS`) are those of :class:`Flips`.

    Examples
    --------
    >>> from mcnemar.io import RunResults, align
    >>> al = align(RunResults.from_scores(["q1", "q2", "q3", "q4"], [0.9, 0.5, 0.2, 0.7]),
    ...            RunResults.from_scores(["q1", "q2", "q3", "q4"], [0.4, 0.5, 0.6, 0.6]),
    ...            keep_scores=True)
    >>> moved = ScoreFlips.of(al)
    >>> [(f.id, round(f.difference, 2)) for f in moved.a_higher], [f.id for f in moved.b_higher]
    ([('q1', 0.5), ('q4', 0.1)], ['q3'])
    >>> moved.to_dict()["b_higher"]["count"]
    1
    """

    sides: ClassVar[tuple[str, str]] = SCORE_SIDES
    file_fields: ClassVar[tuple[str, ...]] = SCORE_FILE_FIELDS
    title: ClassVar[str] = "Items scored differently, the largest differences first"
    graded: ClassVar[bool] = True

    @classmethod
    def of(cls, alignment: Alignment, *, item: Any = None) -> ScoreFlips:
        """The items of a pairing that kept its scores (``align(..., keep_scores=True)``)
        scored differently; ``item`` labels the rows when they are samples of items (the
        items' means are then compared, as :func:`mcnemar.scores.analyze_scores` does)."""
        scores_a, scores_b = alignment.scores_a, alignment.scores_b
        keys = alignment.keys
        ident = alignment.summary.run_a.identity
        if scores_a is None or scores_b is None:
            raise McNemarError("the scores of the items were not kept by the pairing; pair "
                               "the runs with keep_scores=True", argument="alignment")
        a = np.asarray(scores_a, dtype=np.float64)
        b = np.asarray(scores_b, dtype=np.float64)
        contents = [alignment.contents_a, alignment.contents_b]
        nested = alignment.summary.reduce == "cluster"  # keys are (item, sample)
        if item is not None and keys is not None:
            from mcnemar.io._columns import object_array
            from mcnemar.scores._epochs import codes_of, group_sums

            codes, items = codes_of(item, len(a), "item")
            first = np.full(items, len(a))
            np.minimum.at(first, codes, np.arange(len(a)))
            # The item means as the analysis computes them, so that the counts agree.
            sizes = np.bincount(codes, minlength=items).astype(np.float64)
            a = group_sums(a[:, None], codes, items)[:, 0] / sizes
            b = group_sums(b[:, None], codes, items)[:, 0] / sizes
            keys = keys[first]
            if nested:  # the item's key, without its sample
                keys = object_array([k[0] if isinstance(k, tuple) else k for k in keys])
                nested = False
            contents = [None if x is None else x[first] for x in contents]
        d = a - b
        higher_a, higher_b = int(np.count_nonzero(d > 0)), int(np.count_nonzero(d < 0))
        if keys is None:
            why = ("the runs were paired inside the engine, which returns no per-item keys; "
                   "pair them in memory (engine='numpy') to list the items")
            return cls(b=higher_a, c=higher_b, reason=why, content_name=ident.content_name)
        where = np.flatnonzero((d > 0) | (d < 0))
        # The largest differences first; equal ones in A's order.
        where = where[np.lexsort((where, -np.abs(d[where])))]
        task_part, filter_part = ident.task_part, ident.filter_part
        drop = tuple(sorted({p for p in (task_part, filter_part) if p is not None}))
        return cls(b=higher_a, c=higher_b, content_name=ident.content_name,
                   _sides=d[where] > 0, _keys=keys[where], _key_parts=(task_part, drop, nested),
                   _scores=np.column_stack([a[where], b[where]]),
                   _contents_a=None if contents[0] is None else contents[0][where],
                   _contents_b=None if contents[1] is None else contents[1][where])

    def items(self, side: str | None = None, limit: int | None = None) -> list[Flip]:
        """The items of one side (``"a_higher"``, ``"b_higher"``) or of both, the largest
        differences first (task by task after :meth:`concat`), the first ``limit`` of them
        (default all); empty when the items are not known."""
        return Flips.items(self, side, limit)

    @property
    def a_higher(self) -> list[Flip]:
        """Every item A scored higher than B, the largest differences first."""
        return self.items("a_higher")

    @property
    def b_higher(self) -> list[Flip]:
        """Every item B scored higher than A (A's drops), the largest differences first."""
        return self.items("b_higher")

    def __repr__(self) -> str:
        listed = "" if self.available else ", not listed"
        return f"ScoreFlips(a_higher={self.b}, b_higher={self.c}{listed})"

    def _heads(self, na: str, nb: str) -> tuple[str, str]:
        return f"{na} scored higher", f"{nb} scored higher"

    def _summary(self, na: str, nb: str) -> str:
        return (f"Items scored differently: {self.b} higher for {na}, {self.c} higher for "
                f"{nb} (the largest differences first)")


def check_path(path: str | Path, *, argument: str = "path") -> None:
    """Refuse a flips file whose extension is neither ``.csv`` nor ``.jsonl`` (before the
    comparison is run, so that a typo costs nothing)."""
    suffix = Path(path).suffix.lower()
    if suffix not in _WRITERS:
        raise McNemarError(f"{option(argument, str(path))}: flips are written to a "
                           f"{' or '.join(_WRITERS)} file (the extension says which); got "
                           f"{suffix or 'no extension'!r}", argument=argument)


def _object_concat(arrays: Sequence[np.ndarray]) -> np.ndarray:
    """1-d object arrays end to end (their elements, tuples too, kept whole)."""
    out = np.empty(sum(len(x) for x in arrays), dtype=object)
    start = 0
    for x in arrays:
        out[start:start + len(x)] = x
        start += len(x)
    return out


def _id_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def score_text(value: float | None) -> str:
    return "no score" if value is None else f"{value:g}"


def difference_text(value: float | None) -> str:
    return "" if value is None else f"{value:+g}"


def _item_text(f: Flip) -> str:
    text = _id_text(f.id)
    if f.task is not None:
        text += f" ({clean_name(f.task)})"
    text += f": score {score_text(f.score_a)} vs {score_text(f.score_b)}"
    if f.difference is not None:
        text += f" ({difference_text(f.difference)})"
    if f.content is not None:
        text += f"; {_excerpt(f.content)}"
    return clean_name(text)


def _write_csv(handle: Any, rows: list[dict[str, Any]], fields: Sequence[str]) -> None:
    out = csv.DictWriter(handle, fieldnames=fields, lineterminator="\n")
    out.writeheader()
    for row in rows:
        ident = row["id"]
        out.writerow({**row, "id": ident if isinstance(ident, str) else json.dumps(ident)})


def _write_jsonl(handle: Any, rows: list[dict[str, Any]], fields: Sequence[str]) -> None:
    for row in rows:
        handle.write(json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n")


#: The flips file of each extension (a dispatch table: the extension -> its writer).
_WRITERS = {".csv": _write_csv, ".jsonl": _write_jsonl}
