"""Many paired tables analysed at once: :func:`analyze_many` and its :class:`BatchReport`.

Every block of the report (the four tests, all difference, ratio and odds-ratio intervals, the
unpaired comparison, the detectable difference, the recommendation and the claims of the
conclusion) is computed for all tables in one vectorized call per quantity
(:mod:`mcnemar.report._compute`), the same code :func:`mcnemar.report.analyze` runs on a batch of
one; so ``analyze_many(tables)[i]`` equals ``analyze(tables[i])`` field for field. The
sentences of a table's report are written only when that report is asked for.

Examples
--------
>>> from mcnemar import PairedTable, analyze, analyze_many
>>> batch = analyze_many([[157, 17, 3, 23], [72, 6, 14, 8]], names=["math", "law"])
>>> len(batch), batch[0].conclusion.headline
(2, 'A did better than B')
>>> batch[1].to_dict() == analyze(PairedTable(72, 6, 14, 8)).to_dict()
True
>>> print(batch.to_markdown(), end="")
| table | verdict | b | c | n | difference (points) | 95% interval (Newcombe) | p-value | test |
|---|---|---:|---:|---:|---:|---|---:|---|
| math | A did better than B | 17 | 3 | 200 | +7.0 | [+2.6, +11.7] | 0.002577 | exact |
| law | No clear difference between A and B | 6 | 14 | 100 | -8.0 | [-17.0, +1.0] | 0.1153 | exact |
"""

from __future__ import annotations

import html
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

import numpy as np

from mcnemar._format import clean_name, format_pvalue
from mcnemar._format import markdown_text as _md
from mcnemar.errors import McNemarError, TableError
from mcnemar.report._build import report_at
from mcnemar.report._compute import Columns, Options, compute
from mcnemar.report._decide import Claims, claims_at
from mcnemar.report._render import TEST_ORDER
from mcnemar.report._result import Report
from mcnemar.report._words import _decimals, _pct, _points, _points_interval, headline
from mcnemar.table import PairedTable

__all__ = ["SCHEMA", "BatchReport", "analyze_many"]

SCHEMA = "mcnemar.batch/1"

_TEST_LABEL = {"exact": "exact", "asymptotic": "chi-square"}
#: Rows shown by ``str`` and ``_repr_html_`` before "... and k more".
_SHOWN_ROWS = 50


@dataclass(frozen=True, slots=True, eq=False)
class BatchReport:
    """The reports of many tables, computed together; see :func:`analyze_many`.

    ``len(batch)`` is the number of tables and ``batch[i]`` the :class:`~mcnemar.report.Report`
    of table ``i`` (equal to ``analyze(tables[i])``), built on demand; iteration gives the
    reports in order. :meth:`to_frame` gives one row per table, :meth:`to_markdown` a compact
    table with the verdict first, :meth:`to_dict` the JSON (schema ``mcnemar.batch/1``).

    Attributes
    ----------
    columns : Columns
        Every number of every report, one array element per table.
    labels : tuple of str
        The name of each table (``names`` of :func:`analyze_many`, else ``"1"``, ``"2"``, ...).
    """

    columns: Columns
    labels: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.columns)

    @overload
    def __getitem__(self, index: int) -> Report: ...

    @overload
    def __getitem__(self, index: slice) -> list[Report]: ...

    def __getitem__(self, index: int | slice) -> Report | list[Report]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if isinstance(index, bool) or not isinstance(index, int | np.integer):
            raise TypeError(f"a batch is indexed by an int or a slice, got {index!r}")
        k = len(self)
        i = int(index)
        if not -k <= i < k:
            raise IndexError(f"table {i} out of range for a batch of {k} tables")
        return report_at(self.columns, i % k)

    def __iter__(self) -> Iterator[Report]:
        for i in range(len(self)):
            yield report_at(self.columns, i)

    # -- columns -------------------------------------------------------------------------------
    def _claims(self, i: int) -> Claims:
        low, high = self.columns.difference_intervals["newcombe"]
        return claims_at(self.columns, i, low[i], high[i])

    def verdicts(self) -> list[str]:
        """Each table's verdict in a few words (the headline of its report)."""
        opts = self.columns.options
        big_d = self.columns.discordant
        return [
            headline(
                self._claims(i), names=opts.names, alternative=opts.alternative,
                alpha=opts.alpha, discordant=int(big_d[i]),
            )
            for i in range(len(self))
        ]

    def summary(self) -> dict[str, Any]:
        """One entry per column of :meth:`to_frame`: lists (or arrays) with one value per table.

        Quantities that are undefined for a table are NaN (numbers) or None (counts, names).
        """
        cols = self.columns
        opts = cols.options
        low, high = cols.difference_intervals["newcombe"]

        def counts(x: np.ndarray) -> Any:
            return x.copy() if cols.has_n.all() else [
                int(v) if ok else None for v, ok in zip(x, cols.has_n, strict=True)
            ]

        better_name = {1: opts.names[0], -1: opts.names[1], 0: None}
        out: dict[str, Any] = {
            "name": list(self.labels),
            "verdict": self.verdicts(),
            "significant": cols.significant.copy(),
            "better": [better_name[int(x)] for x in cols.better],
            "a": counts(cols.a),
            "b": cols.b.copy(),
            "c": cols.c.copy(),
            "d": counts(cols.d),
            "n": counts(cols.n),
            "difference": cols.difference.copy(),
            "low": low.copy(),
            "high": high.copy(),
            "pvalue": cols.pvalue.copy(),
            "log10_pvalue": cols.log10_pvalue.copy(),
            "test": np.where(cols.exact_recommended, "exact", "asymptotic").tolist(),
            "detectable_difference": cols.detectable.copy(),
            "unpaired_pvalue": cols.unpaired_pvalue.copy(),
            "ratio": cols.ratio.copy(),
            "odds_ratio": cols.odds_ratio.copy(),
        }
        for key in TEST_ORDER:
            out[f"{key}_pvalue"] = cols.tests[key][1].copy()
        if cols.noninferiority is not None:
            out["noninferiority_pvalue"] = np.atleast_1d(cols.noninferiority.pvalue).copy()
            out["noninferior"] = np.atleast_1d(cols.noninferiority.noninferior).copy()
        if cols.equivalence is not None:
            out["equivalence_pvalue"] = np.atleast_1d(cols.equivalence.pvalue).copy()
            out["equivalent"] = np.atleast_1d(cols.equivalence.equivalent).copy()
        return out

    def to_frame(self) -> Any:
        """One row per table as a pandas DataFrame (or polars, when pandas is not installed).

        Columns: ``name``, ``verdict``, ``significant``, ``better`` (the name of the system
        that did significantly better, else None), the cells ``a, b, c, d, n``, ``difference``
        with its Newcombe interval ``low``, ``high``, the recommended ``pvalue``,
        ``log10_pvalue`` and ``test``, ``detectable_difference``, ``unpaired_pvalue``,
        ``ratio``, ``odds_ratio`` and each test's p-value (``exact_pvalue``, ...).

        Raises
        ------
        McNemarError
            When neither pandas nor polars is installed.
        """
        data = self.summary()
        try:
            import pandas as pd
        except ImportError:
            pass
        else:
            # Counts with unknown entries (no N) stay whole numbers: pandas' nullable integers.
            for key in ("a", "d", "n"):
                if isinstance(data[key], list):
                    data[key] = pd.array(data[key], dtype="Int64")
            return pd.DataFrame(data)
        try:
            import polars as pl
        except ImportError:
            raise McNemarError(
                "to_frame needs pandas or polars: pip install 'mcnemar[frames]'"
            ) from None
        return pl.DataFrame({k: list(v) if isinstance(v, np.ndarray) else v
                             for k, v in data.items()})

    # -- rendering -----------------------------------------------------------------------------
    def _rows(self, limit: int | None = None) -> tuple[list[str], list[list[str]]]:
        """Header and cells of the compact table (verdict first), as plain text."""
        cols = self.columns
        level = _pct(cols.options.confidence_level)
        head = ["table", "verdict", "b", "c", "n", "difference (points)",
                f"{level} interval (Newcombe)", "p-value", "test"]
        low, high = cols.difference_intervals["newcombe"]
        k = len(self) if limit is None else min(limit, len(self))
        verdicts = self.verdicts()[:k]
        rows = []
        for i in range(k):
            has = bool(cols.has_difference[i])
            diff = float(cols.difference[i])
            interval = _points_interval(low[i], high[i]).removesuffix(" points")
            rows.append([
                self.labels[i],
                verdicts[i],
                str(int(cols.b[i])),
                str(int(cols.c[i])),
                str(int(cols.n[i])) if cols.has_n[i] else "—",
                _points(diff, _decimals(abs(100 * diff))) if has else "—",
                interval if has else "—",
                format_pvalue(float(cols.pvalue[i]), float(cols.log10_pvalue[i])),
                _TEST_LABEL["exact" if cols.exact_recommended[i] else "asymptotic"],
            ])
        return head, rows

    def to_markdown(self) -> str:
        """A compact markdown table, one row per table, the verdict first."""
        head, rows = self._rows()
        lines = [
            "| " + " | ".join(head) + " |",
            "|---|---|---:|---:|---:|---:|---|---:|---|",
        ]
        # Names and verdicts are plain text made inert; the numbers are printed as they are.
        lines += [
            "| " + " | ".join([_md(row[0]), _md(row[1]), *row[2:]]) + " |" for row in rows
        ]
        return "\n".join(lines) + "\n"

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def __str__(self) -> str:
        head, rows = self._rows(_SHOWN_ROWS)
        widths = [max(len(h), *(len(r[j]) for r in rows)) for j, h in enumerate(head)]
        right = {2, 3, 4, 5, 7}

        def line(cells: list[str]) -> str:
            return "  ".join(
                c.rjust(w) if j in right else c.ljust(w)
                for j, (c, w) in enumerate(zip(cells, widths, strict=True))
            ).rstrip()

        opts = self.columns.options
        na, nb = opts.names
        who = f"{na} vs {nb}" if (na, nb) == ("A", "B") else f"{na} (A) vs {nb} (B)"
        out = [f"McNemar analyses of {len(self)} tables: {who}, {opts.alternative}, "
               f"alpha = {opts.alpha:g}", ""]
        out += [line(head)] + [line(r) for r in rows]
        if len(self) > _SHOWN_ROWS:
            out.append(f"... and {len(self) - _SHOWN_ROWS} more (to_frame() has them all)")
        return "\n".join(out)

    def __repr__(self) -> str:
        cols = self.columns
        return (
            f"BatchReport(tables={len(self)}, significant={int(cols.significant.sum())}, "
            f"A={cols.options.names[0]!r}, B={cols.options.names[1]!r})"
        )

    def _repr_html_(self) -> str:
        """A compact HTML table for notebooks (the first rows), the verdict first."""
        esc = html.escape
        head, rows = self._rows(_SHOWN_ROWS)
        th = "".join(f"<th>{esc(h)}</th>" for h in head)
        body = "".join(
            "<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in rows
        )
        more = (
            f"<p>... and {len(self) - _SHOWN_ROWS} more (to_frame() has them all)</p>"
            if len(self) > _SHOWN_ROWS else ""
        )
        return (
            f'<div class="mcnemar-batch"><table><thead><tr>{th}</tr></thead>'
            f"<tbody>{body}</tbody></table>{more}</div>"
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe data: ``schema``, ``names`` of A and B, ``tables`` (the table names) and
        ``reports``, each table's :meth:`~mcnemar.report.Report.to_dict` in order."""
        opts = self.columns.options
        return {
            "schema": SCHEMA,
            "names": {"a": opts.names[0], "b": opts.names[1]},
            "tables": list(self.labels),
            "reports": [report.to_dict() for report in self],
        }


def _counts(tables: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(a, b, c, d, has_n) as one-dimensional arrays from any accepted form of ``tables``."""
    if isinstance(tables, PairedTable):
        if len(tables.shape) > 1:
            raise TableError(
                f"tables must be one-dimensional (one table per element), got shape "
                f"{tables.shape}; pass a flattened PairedTable or a sequence of tables"
            )
        a, b, c, d = (None if x is None else np.atleast_1d(x) for x in tables.arrays())
        assert b is not None and c is not None
        has_n = np.full(b.shape, a is not None)
        zero = np.zeros(b.shape, dtype=np.int64)
        return (zero if a is None else a, b, c, zero if d is None else d, has_n)
    if isinstance(tables, Sequence) and not isinstance(tables, str | bytes) and tables and all(
        isinstance(t, PairedTable) for t in tables
    ):
        rows = []
        for i, t in enumerate(tables):
            if t.shape:
                raise TableError(
                    f"tables[{i}] holds an array of tables (shape {t.shape}); give one table "
                    "per element"
                )
            a, b, c, d = t.arrays()
            has = a is not None and d is not None
            rows.append((int(a) if has else 0, int(b), int(c), int(d) if has else 0, has))
        arr = np.array([r[:4] for r in rows], dtype=np.int64).reshape(-1, 4)
        has_n = np.array([r[4] for r in rows], dtype=bool)
        return arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3], has_n
    if isinstance(tables, Sequence) and any(isinstance(t, PairedTable) for t in tables):
        raise TableError("tables mixes PairedTable objects and other values; give one kind")
    try:
        arr = np.asarray(tables)
    except (ValueError, TypeError) as exc:
        raise TableError(
            "tables must be a PairedTable of arrays, a sequence of PairedTables or an (n, 4) "
            f"array of counts a, b, c, d; could not read {type(tables).__name__}"
        ) from exc
    if arr.ndim == 3 and arr.shape[1:] == (2, 2):
        arr = arr.reshape(-1, 4)
    if arr.size == 0:
        raise TableError("tables is empty; give at least one table")
    if arr.ndim != 2 or arr.shape[1] != 4:
        raise TableError(
            "tables must be an (n, 4) array of counts a, b, c, d (one row per table), an "
            f"(n, 2, 2) array, a PairedTable of arrays or a sequence of PairedTables; got an "
            f"array of shape {arr.shape}"
        )
    # PairedTable validates the counts (whole, non-negative, finite, at most 2**52).
    t = PairedTable(a=arr[:, 0], b=arr[:, 1], c=arr[:, 2], d=arr[:, 3])
    a, b, c, d = t.arrays()
    assert a is not None and d is not None
    return a, b, c, d, np.ones(b.shape, dtype=bool)


def _labels(names: Any, k: int) -> tuple[str, ...]:
    if names is None:
        return tuple(str(i + 1) for i in range(k))
    if isinstance(names, str) or not isinstance(names, Sequence | np.ndarray):
        raise McNemarError(
            f"names must be a sequence of {k} table names (one per table), got {names!r}"
        )
    labels = list(names)
    if len(labels) != k:
        raise McNemarError(
            f"names has {len(labels)} entries but there are {k} tables; give one name per table"
        )
    bad = [x for x in labels if not isinstance(x, str) or not clean_name(x)]
    if bad:
        raise McNemarError(f"names must be non-empty strings, got {bad[0]!r}")
    return tuple(clean_name(x) for x in labels)


def analyze_many(
    tables: Any,
    names: Sequence[str] | None = None,
    *,
    systems: tuple[str, str] = ("A", "B"),
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
    alpha: float = 0.05,
    power: float = 0.8,
    margin: float | None = None,
    equivalence: bool = False,
    margin_method: str = "score",
    alignment: Any = None,
    clustered: Any = None,
    bayes: Any = None,
) -> BatchReport:
    """Analyse many paired tables at once: the report of :func:`~mcnemar.report.analyze` for
    each, every block computed for all tables in one vectorized call.

    Parameters
    ----------
    tables : PairedTable, sequence of PairedTable, or array_like
        A :class:`~mcnemar.PairedTable` whose cells are one-dimensional arrays, a sequence of
        single tables (a and d may be missing in some), or an (n, 4) array of counts
        a, b, c, d (one row per table; an (n, 2, 2) array of ``[[a, b], [c, d]]`` also works).
    names : sequence of str, optional
        One name per table (a task, a subject, a pair of models); ``"1"``, ``"2"``, ... by
        default.
    systems : tuple of two str
        The names of A and B, used in every report (``names`` of ``analyze``).
    alternative, confidence_level, alpha, power, margin, equivalence, margin_method
        As for :func:`~mcnemar.report.analyze`, the same for every table; the tests against a
        margin run for all tables in one call.
    alignment, clustered, bayes
        Not accepted: each describes one table (how two runs were aligned, the clustered test
        of one set of items, one posterior); analyse such a table with ``analyze``.

    Returns
    -------
    BatchReport
        ``batch[i]`` equals ``analyze(tables[i], names=systems, ...)`` field for field.

    Raises
    ------
    TableError
        Counts that are negative, fractional, not finite or above 2**52, or tables in a shape
        that is not one table per element.
    McNemarError
        ``names`` not one string per table, invalid options, or an option that describes one
        table only.

    Examples
    --------
    >>> batch = analyze_many([[157, 17, 3, 23], [90, 0, 0, 10]], names=["x", "y"])
    >>> batch.verdicts()
    ['A did better than B', 'A and B never disagree on these items']
    """
    for option, value in (("alignment", alignment), ("clustered", clustered), ("bayes", bayes)):
        if value is not None and value is not False:
            raise McNemarError(
                f"analyze_many does not take {option}=: it describes one table; analyse that "
                f"table with analyze(table, {option}=...)"
            )
    options = Options.check(systems, alternative, confidence_level, alpha, power)
    if equivalence and margin is None:
        raise McNemarError("equivalence=True needs a margin (e.g. margin=0.01 for 1 point)")
    a, b, c, d, has_n = _counts(tables)
    labels = _labels(names, int(b.size))
    cols = compute(
        np.ascontiguousarray(a, dtype=np.int64),
        np.ascontiguousarray(b, dtype=np.int64),
        np.ascontiguousarray(c, dtype=np.int64),
        np.ascontiguousarray(d, dtype=np.int64),
        has_n,
        options,
        margin=margin,
        equivalence=equivalence,
        margin_method=margin_method,
    )
    return BatchReport(columns=cols, labels=labels)
