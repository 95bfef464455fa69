"""The all-pairs result: :class:`PairwiseResult` (matrices, records, text and markdown)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mcnemar._format import (
    clean_name,
    format_table_pvalue,
    json_number,
    markdown_text,
    shorten,
)
from mcnemar.multiple._adjust import _ADJUST_NAMES
from mcnemar.multiple._cochran import CochranQResult
from mcnemar.multiple._letters import SignificanceGroups, _letter_sets, _letters_per_model
from mcnemar.multiple._validation import _TEST_NAMES, BoolArray, FloatArray, IntArray, _check_choice

_MATRIX_TEXT_MAX_MODELS = 30
_LIST_MAX_LINES = 40


# --------------------------------------------------------------------------------------------
# the pairwise result


def _fmt_points(x: float) -> str:
    return f"{100 * x:+.1f}"


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class PairwiseResult:
    """All pairwise McNemar comparisons of K models on the same N items.

    K x K matrices are indexed ``[row, column]`` with the row model as system A and the column
    model as system B: ``b[i, j]`` counts items model i got right and model j wrong,
    ``difference[i, j]`` is accuracy(i) - accuracy(j), and ``ci_low[i, j]``/``ci_high[i, j]``
    bound that difference. Entries for pairs that were not tested (the diagonal, and in the
    vs-baseline mode every pair not involving the baseline) are NaN. The arrays are read-only.

    Attributes
    ----------
    names : tuple of str
        Model names (row order of the input).
    n : int
        Number of items.
    correct : ndarray of int64, shape (K,)
        Items each model got right.
    accuracy : ndarray of float64, shape (K,)
        ``correct / n``.
    a, b, c, d : ndarray of int64, shape (K, K)
        The paired table of every pair (row = A, column = B): both right, only the row model
        right, only the column model right, both wrong. ``c`` is ``b.T``.
    difference : ndarray of float64, shape (K, K)
        accuracy(row) - accuracy(column) = (b - c)/n, for every pair.
    statistic, pvalue, log10_pvalue : ndarray of float64, shape (K, K)
        The test of each tested pair, as :func:`mcnemar.inference.mcnemar` returns it with the
        row model as A. Symmetric for the two-sided alternative.
    adjusted_pvalue : ndarray of float64, shape (K, K)
        ``pvalue`` adjusted over the family of tested comparisons (``pairs``).
    ci_low, ci_high : ndarray of float64, shape (K, K)
        Confidence interval of ``difference`` for each tested pair (not adjusted for
        multiplicity), at ``confidence_level`` with the ``interval`` method.
    significant : ndarray of bool, shape (K, K)
        ``adjusted_pvalue < alpha``.
    pairs : ndarray of int64, shape (M, 2)
        The tested comparisons as (A, B) row indices: all ``i < j`` pairs, or ``(i, baseline)``
        for every other model in the vs-baseline mode. ``M`` is the size of the family the
        adjustment is over.
    ranking : tuple of int
        Model indices by accuracy, best first (ties keep the input order).
    cochran_q : CochranQResult
        The omnibus test over all K models.
    baseline : int or None
        Row index of the baseline in the vs-baseline mode, else None.
    method, adjust, alternative, interval : str
        The options used.
    alpha, confidence_level : float
        The options used.
    """

    names: tuple[str, ...]
    n: int
    correct: IntArray
    accuracy: FloatArray
    a: IntArray
    b: IntArray
    c: IntArray
    d: IntArray
    difference: FloatArray
    statistic: FloatArray
    pvalue: FloatArray
    log10_pvalue: FloatArray
    adjusted_pvalue: FloatArray
    ci_low: FloatArray
    ci_high: FloatArray
    significant: BoolArray
    pairs: IntArray
    ranking: tuple[int, ...]
    cochran_q: CochranQResult
    baseline: int | None
    method: str
    adjust: str
    alternative: str
    interval: str
    alpha: float
    confidence_level: float
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    # ---- derived -------------------------------------------------------------------------

    @property
    def k(self) -> int:
        """Number of models."""
        return len(self.names)

    @property
    def groups(self) -> SignificanceGroups | None:
        """Significance letters for the leaderboard (computed on first access).

        Models sharing a letter are not significantly different after adjustment (see
        :func:`compact_letter_display`). None in the vs-baseline mode, where pairs not
        involving the baseline were not tested.
        """
        if self.baseline is not None:
            return None
        cached: SignificanceGroups | None = self._cache.get("groups")
        if cached is None:
            different = self.significant | self.significant.T
            order = np.asarray(self.ranking, dtype=np.int64)
            sets = _letter_sets(different, order)
            cached = SignificanceGroups(
                names=self.names,
                letters=_letters_per_model(sets, self.k),
                members=tuple(tuple(s) for s in sets),
            )
            self._cache["groups"] = cached
        return cached

    def _all_pairs_groups(self) -> SignificanceGroups:
        groups = self.groups
        if groups is None:  # pragma: no cover - only called in the all-pairs mode
            raise RuntimeError("significance groups exist only for all-pairs results")
        return groups

    def comparisons(self) -> list[dict[str, Any]]:
        """One JSON-safe record per tested comparison (A = first model, B = second)."""
        i, j = self.pairs[:, 0], self.pairs[:, 1]
        names = self.names
        rows = zip(
            i.tolist(), j.tolist(),
            self.a[i, j].tolist(), self.b[i, j].tolist(),
            self.c[i, j].tolist(), self.d[i, j].tolist(),
            self.difference[i, j].tolist(), self.ci_low[i, j].tolist(),
            self.ci_high[i, j].tolist(), self.statistic[i, j].tolist(),
            self.pvalue[i, j].tolist(), self.log10_pvalue[i, j].tolist(),
            self.adjusted_pvalue[i, j].tolist(), self.significant[i, j].tolist(),
            strict=True,
        )
        out = []
        for ii, jj, a, b, c, d, diff, lo, hi, stat, p, lp, adj, sig in rows:
            better = None
            if sig:
                better = "a" if diff > 0 else "b" if diff < 0 else None
            out.append({
                "a": names[ii], "b": names[jj],
                "table": {"a": a, "b": b, "c": c, "d": d, "n": self.n, "discordant": b + c},
                "difference": diff,
                "interval": {"low": json_number(lo), "high": json_number(hi)},
                "statistic": json_number(stat),
                "pvalue": p,
                "log10_pvalue": json_number(lp),
                "adjusted_pvalue": adj,
                "significant": sig,
                "better": better,
            })
        return out

    def _matrix_rows(self, values: FloatArray) -> list[list[float | None]]:
        return [[json_number(v) for v in row] for row in values.tolist()]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dictionary (schema ``mcnemar.pairwise/1``; NaN becomes ``None``).

        Holds the ranked models (with their letters), one record per tested comparison, the
        matrices of p-values and adjusted p-values (original model order, ``None`` where not
        tested) and Cochran's Q.
        """
        groups = self.groups
        letters = groups.letters if groups is not None else (None,) * self.k
        models = [
            {
                "name": self.names[m],
                "rank": rank + 1,
                "correct": int(self.correct[m]),
                "accuracy": float(self.accuracy[m]),
                "group": letters[m],
            }
            for rank, m in enumerate(self.ranking)
        ]
        return {
            "schema": "mcnemar.pairwise/1",
            "mode": "all-pairs" if self.baseline is None else "baseline",
            "names": list(self.names),
            "baseline": None if self.baseline is None else self.names[self.baseline],
            "n": self.n,
            "method": self.method,
            "adjust": self.adjust,
            "alternative": self.alternative,
            "alpha": self.alpha,
            "confidence_level": self.confidence_level,
            "interval": self.interval,
            "comparisons_count": int(self.pairs.shape[0]),
            "models": models,
            "comparisons": self.comparisons(),
            "matrices": {
                "pvalue": self._matrix_rows(self.pvalue),
                "adjusted_pvalue": self._matrix_rows(self.adjusted_pvalue),
            },
            "cochran_q": self.cochran_q.to_dict(),
            "groups": groups.to_dict() if groups is not None else None,
        }

    # ---- rendering -----------------------------------------------------------------------

    def _header(self, short: bool = False) -> list[str]:
        # short: the baseline's name cut to TITLE_CHARS characters, for a title.
        m = int(self.pairs.shape[0])
        test = _TEST_NAMES[self.method]
        adjust = _ADJUST_NAMES[self.adjust]
        if self.baseline is None:
            first = f"Pairwise McNemar tests: {self.k} models on {self.n} items, {m} pairs"
        else:
            name = self.names[self.baseline]
            # In a title the name goes on one line, shortened; elsewhere as given (repr).
            shown = f"'{shorten(clean_name(name))}'" if short else repr(name)
            first = (
                f"McNemar tests against the baseline {shown}: "
                f"{self.k - 1} models on {self.n} items"
            )
        return [
            first,
            f"{test}, {self.alternative}; {adjust} adjustment over {m} comparison(s); "
            f"alpha = {self.alpha:g}",
            str(self.cochran_q),
        ]

    def _direction_word(self, i: int, j: int) -> str:
        return ">" if self.difference[i, j] > 0 else "<"

    def _significant_lines(self, markdown: bool = False) -> list[str]:
        i, j = self.pairs[:, 0], self.pairs[:, 1]
        sig = self.significant[i, j]
        idx = np.flatnonzero(sig)
        if idx.size == 0:
            return []
        # strongest evidence first
        idx = idx[np.argsort(self.adjusted_pvalue[i[idx], j[idx]], kind="stable")]
        lines = []
        level = f"{100 * self.confidence_level:g}%"
        for t in idx[:_LIST_MAX_LINES].tolist():
            ii, jj = int(i[t]), int(j[t])
            # name the better model first
            hi_m, lo_m = (ii, jj) if self.difference[ii, jj] >= 0 else (jj, ii)
            diff = self.difference[hi_m, lo_m]
            low, high = self.ci_low[hi_m, lo_m], self.ci_high[hi_m, lo_m]
            ci = f"[{_fmt_points(low)}, {_fmt_points(high)}]"
            adjusted = format_table_pvalue(self.adjusted_pvalue[ii, jj], self.alpha)
            text = (
                f"{self.names[hi_m]} > {self.names[lo_m]}: {_fmt_points(diff)} points "
                f"({level} CI {ci}), adjusted p = {adjusted}"
            )
            # Names are plain text: inert in markdown (no HTML, table breaks or headings).
            lines.append(f"- {markdown_text(text)}" if markdown else f"  {text}")
        if idx.size > _LIST_MAX_LINES:
            more = f"... and {idx.size - _LIST_MAX_LINES} more (see to_dict())"
            lines.append(f"- {more}" if markdown else f"  {more}")
        return lines

    # The cells of the tables that __str__ and to_markdown lay out, each in its own format.

    def _matrix_cells(self, adjusted: bool) -> list[list[tuple[str, bool] | None]]:
        """The p-value matrix in rank order: (p, significant) per cell, "" for an undefined p,
        None on the diagonal. Adjusted p-values are printed against alpha."""
        values = self.adjusted_pvalue if adjusted else self.pvalue
        cutoff = self.alpha if adjusted else None
        rows: list[list[tuple[str, bool] | None]] = []
        for r in self.ranking:
            row: list[tuple[str, bool] | None] = []
            for col in self.ranking:
                v = float(values[r, col])
                if r == col:
                    row.append(None)
                elif not math.isfinite(v):
                    row.append(("", False))
                else:
                    significant = bool(self.significant[r, col] or self.significant[col, r])
                    row.append((format_table_pvalue(v, cutoff), significant))
            rows.append(row)
        return rows

    def _baseline_rows(self) -> list[tuple[int, int, tuple[str, str, str, str, bool] | None]]:
        """(rank, model, cells) in rank order against the baseline: cells are the difference
        in points, its interval, p, adjusted p and whether it is significant (None for the
        baseline itself)."""
        base = self.baseline
        if base is None:
            return []
        rows: list[tuple[int, int, tuple[str, str, str, str, bool] | None]] = []
        for rank, m in enumerate(self.ranking, start=1):
            if m == base:
                rows.append((rank, m, None))
                continue
            ci = f"[{_fmt_points(self.ci_low[m, base])}, {_fmt_points(self.ci_high[m, base])}]"
            rows.append((rank, m, (
                _fmt_points(self.difference[m, base]),
                ci,
                format_table_pvalue(self.pvalue[m, base]),
                format_table_pvalue(self.adjusted_pvalue[m, base], self.alpha),
                bool(self.significant[m, base]),
            )))
        return rows

    def matrix_text(self, which: str = "adjusted_pvalue") -> str:
        """The K x K matrix of p-values as aligned text, models in rank order.

        Parameters
        ----------
        which : {"adjusted_pvalue", "pvalue"}
            Which p-values to show. Significant adjusted p-values are marked ``*``.
        """
        which = _check_choice(which, "which", ("adjusted_pvalue", "pvalue"))
        adjusted = which == "adjusted_pvalue"
        labels = [self.names[m] for m in self.ranking]
        width = max(8, *(len(s) for s in labels))
        cells = [
            ["-" if cell is None else cell[0] + ("*" if cell[1] else "") for cell in row]
            for row in self._matrix_cells(adjusted)
        ]
        colw = max(width, *(len(c) for row in cells for c in row))
        head = " " * width + "  " + "  ".join(s.rjust(colw) for s in labels)
        lines = [head]
        for label, row in zip(labels, cells, strict=True):
            lines.append(label.ljust(width) + "  " + "  ".join(c.rjust(colw) for c in row))
        return "\n".join(lines)

    def __str__(self) -> str:
        lines = self._header()
        lines.append("")
        acc_w = 8
        name_w = max(5, *(len(s) for s in self.names))
        level = f"{100 * self.confidence_level:g}%"
        if self.baseline is None:
            groups = self._all_pairs_groups()
            lines.append(
                f"{'rank':>4}  {'model':<{name_w}}  {'accuracy':>{acc_w}}  {'correct':>12}  group"
            )
            for rank, m in enumerate(self.ranking, start=1):
                lines.append(
                    f"{rank:>4}  {self.names[m]:<{name_w}}  {self.accuracy[m]:>{acc_w}.4f}  "
                    f"{f'{self.correct[m]}/{self.n}':>12}  {groups.letters[m]}"
                )
            lines.append("Models that share a letter are not significantly different "
                         f"(adjusted p >= {self.alpha:g}).")
            sig = self._significant_lines()
            lines.append("")
            if sig:
                lines.append(f"Significant differences (adjusted p < {self.alpha:g}):")
                lines.extend(sig)
            else:
                lines.append(f"No pair differs significantly (adjusted p < {self.alpha:g}).")
            lines.append("")
            if self.k <= _MATRIX_TEXT_MAX_MODELS:
                lines.append(
                    f"Adjusted p-values ({_ADJUST_NAMES[self.adjust]}); * = significant:"
                )
                lines.append(self.matrix_text())
            else:
                lines.append(f"(matrix of adjusted p-values omitted for {self.k} models; "
                             "see matrix_text() or to_dict())")
        else:
            lines.append(
                f"{'rank':>4}  {'model':<{name_w}}  {'accuracy':>{acc_w}}  "
                f"{'vs baseline (points)':>22}  {level + ' CI':>16}  {'p':>8}  {'adjusted':>8}"
            )
            for rank, m, row in self._baseline_rows():
                start = f"{rank:>4}  {self.names[m]:<{name_w}}  {self.accuracy[m]:>{acc_w}.4f}  "
                if row is None:
                    lines.append(f"{start}{'(baseline)':>22}")
                    continue
                diff, ci, p, adj, significant = row
                star = " *" if significant else ""
                lines.append(f"{start}{diff:>22}  {ci:>16}  {p:>8}  {adj:>8}{star}")
            lines.append(f"* = significant after adjustment (adjusted p < {self.alpha:g}); "
                         "intervals are per comparison, not adjusted.")
        return "\n".join(lines)

    def _ranked_table(
        self, name: Callable[[str], str], bold: Callable[[str], str]
    ) -> tuple[list[str], list[list[str]]]:
        """Header and rows of the ranked table that the markdown and the HTML lay out: names
        pass through ``name`` (each format's escaping), a significant adjusted p through
        ``bold``."""
        if self.baseline is None:
            letters = self._all_pairs_groups().letters
            header = ["rank", "model", "accuracy", "correct", "group"]
            rows = [[str(rank), name(self.names[m]), f"{self.accuracy[m]:.4f}",
                     f"{self.correct[m]}/{self.n}", letters[m]]
                    for rank, m in enumerate(self.ranking, start=1)]
            return header, rows
        base = name(shorten(self.names[self.baseline]))
        level = f"{100 * self.confidence_level:g}%"
        header = ["rank", "model", "accuracy", f"vs {base} (points)", f"{level} CI", "p",
                  "adjusted p"]
        rows = []
        for rank, m, entry in self._baseline_rows():
            if entry is None:
                rows.append([str(rank), f"{name(self.names[m])} (baseline)",
                             f"{self.accuracy[m]:.4f}", "", "", "", ""])
                continue
            diff, ci, p, adj, significant = entry
            rows.append([str(rank), name(self.names[m]), f"{self.accuracy[m]:.4f}", diff, ci,
                         p, bold(adj) if significant else adj])
        return header, rows

    def verdict(self) -> str:
        """One sentence: how many comparisons differ significantly after adjustment."""
        i, j = self.pairs[:, 0], self.pairs[:, 1]
        m = int(self.pairs.shape[0])
        hits = int(np.count_nonzero(self.significant[i, j]))
        noun = "pair" if self.baseline is None else "comparison"
        noun += "s" if m != 1 else ""
        where = "" if self.baseline is None else " with the baseline"
        rule = f"{_ADJUST_NAMES[self.adjust]}-adjusted p < {self.alpha:g}"
        if self.adjust == "none":
            rule = f"unadjusted p < {self.alpha:g}"
        verb = "differs" if hits == 1 else "differ"
        if hits == 0:
            return f"None of the {m} {noun}{where} differs significantly ({rule})."
        return f"{hits} of {m} {noun}{where} {verb} significantly ({rule})."

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def _repr_html_(self) -> str:
        """A compact HTML table for notebooks: the verdict first, then the models ranked."""
        import html

        esc = html.escape
        header, rows = self._ranked_table(esc, lambda text: f"<strong>{esc(text)}</strong>")
        out = [f"<div><p><strong>{esc(self.verdict())}</strong></p>",
               f"<p>{esc(self._header(short=True)[0])}.</p>", "<table>",
               "<tr>" + "".join(f"<th>{cell}</th>" for cell in header) + "</tr>"]
        out += ["<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows]
        note = ("Models that share a letter are not significantly different."
                if self.baseline is None else "Bold: significant after adjustment.")
        out += ["</table>", f"<p>{esc(note)}</p></div>"]
        return "\n".join(out)

    def to_markdown(self) -> str:
        """A markdown summary (ranked table, significant pairs, p-value matrix if small)."""
        title, method, cochran = self._header(short=True)
        out = [f"### {markdown_text(title)}", "",
               f"{markdown_text(method)}. {markdown_text(cochran)}.", ""]
        header, rows = self._ranked_table(markdown_text, lambda text: f"**{text}**")
        out.append("| " + " | ".join(header) + " |")
        out.append("|---:|---|---:|---:|:---:|" if self.baseline is None
                   else "|---:|---|---:|---:|:---:|---:|---:|")
        # An empty cell is one space between its bars, as markdown tables write it.
        out += ["|" + "|".join(f" {cell} " if cell else " " for cell in row) + "|"
                for row in rows]
        if self.baseline is None:
            out += ["", "Models that share a letter are not significantly different.", ""]
            sig = self._significant_lines(markdown=True)
            if sig:
                out.append(f"**Significant differences** (adjusted p < {self.alpha:g}):")
                out += sig
            else:
                out.append(f"No pair differs significantly (adjusted p < {self.alpha:g}).")
            if self.k <= _MATRIX_TEXT_MAX_MODELS:
                order = list(self.ranking)
                out += ["", f"<details><summary>Adjusted p-values "
                        f"({_ADJUST_NAMES[self.adjust]})</summary>", ""]
                out.append("| | " + " | ".join(markdown_text(self.names[m]) for m in order) + " |")
                out.append("|---|" + "---:|" * len(order))
                for r, row in zip(order, self._matrix_cells(adjusted=True), strict=True):
                    cells = [
                        "" if cell is None else f"**{cell[0]}**" if cell[1] else cell[0]
                        for cell in row
                    ]
                    out.append(f"| {markdown_text(self.names[r])} | " + " | ".join(cells) + " |")
                out += ["", "</details>"]
        else:
            out += ["", f"Bold: significant after adjustment (adjusted p < {self.alpha:g}); "
                    "intervals are per comparison."]
        return "\n".join(out) + "\n"


