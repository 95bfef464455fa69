"""McNemar tests for items that come in clusters.

When items are grouped - several questions on the same passage, prompts built from the same
document, or one item sampled several times ("epochs") - outcomes within a group are
correlated, and the plain McNemar test, which counts every item as independent evidence,
overstates the evidence. The statistics here use the per-cluster tables instead.

Contents
--------
:func:`clustered`
    the clustered tests of Obuchowski (1998), Durkalski et al. (2003), Yang, Sun & Hardin (2010)
    and Eliasziw & Donner (1991) from per-cluster counts ``(a_k, b_k, c_k, d_k)``, with a
    cluster-robust interval for the difference in accuracy and the design effect.
:func:`clustered_from_outcomes`
    the same from per-item outcomes and a cluster id per item.
:func:`cluster_counts`
    the per-cluster tables from per-item outcomes (vectorized grouping).
:class:`ClusteredResult`
    the result (``to_dict()``, ``to_markdown()``, ``str()``).

Repeated samples of the same item are handled by using the item id as the cluster id: each
item becomes a cluster of its samples.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import special

from mcnemar import vocabulary
from mcnemar._format import format_number
from mcnemar._format import json_number as _json
from mcnemar.errors import McNemarError, McNemarWarning, TableError
from mcnemar.inference import check_alternative
from mcnemar.intervals import ConfidenceInterval

__all__ = [
    "CLUSTERED_METHODS",
    "ClusteredResult",
    "cluster_counts",
    "clustered",
    "clustered_from_outcomes",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: The clustered statistics :func:`clustered` computes.
CLUSTERED_METHODS = vocabulary.names(vocabulary.CLUSTERED_METHODS)

_METHOD_NAMES = {term.name: term.label for term in vocabulary.CLUSTERED_METHODS}
_NEEDS_N = ("durkalski", "yang", "eliasziw-donner")
_INTERVAL_METHODS = ("t", "normal")


# --------------------------------------------------------------------------------------------
# input


def _whole_counts(value: Any, name: str) -> IntArray:
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        raise TableError(
            f"{name} must be whole counts >= 0 (one per cluster); got {value!r}"
        ) from None
    if arr.dtype == np.bool_ or arr.dtype.kind not in "iuf":
        raise TableError(
            f"{name} must be whole counts >= 0 (one per cluster); got values of type {arr.dtype}"
        )
    flt = arr.astype(np.float64)
    bad = ~np.isfinite(flt) | (flt < 0) | (flt != np.floor(flt))
    if bad.any():
        raise TableError(
            f"{name} must be whole counts >= 0; got {flt[bad].flat[0]!r} "
            f"(cluster {int(np.argwhere(bad)[0][0])})"
        )
    out: IntArray = flt.astype(np.int64)
    return out


def _as_cluster_table(tables: Any) -> tuple[IntArray | None, IntArray, IntArray, IntArray | None]:
    """Per-cluster (a, b, c, d) from a K x 4 array-like or an object with cells a, b, c, d."""
    if all(hasattr(tables, cell) for cell in ("a", "b", "c", "d")) and not isinstance(
        tables, np.ndarray
    ):
        cells = {cell: getattr(tables, cell) for cell in ("a", "b", "c", "d")}
        if cells["b"] is None or cells["c"] is None:
            raise TableError("tables must have the discordant cells b and c for every cluster")
        b = np.atleast_1d(_whole_counts(cells["b"], "tables.b")).ravel()
        c = np.atleast_1d(_whole_counts(cells["c"], "tables.c")).ravel()
        a = d = None
        if cells["a"] is not None and cells["d"] is not None:
            # one of the concordant cells alone does not give the cluster sizes
            a = np.atleast_1d(_whole_counts(cells["a"], "tables.a")).ravel()
            d = np.atleast_1d(_whole_counts(cells["d"], "tables.d")).ravel()
        sizes = {x.size for x in (a, b, c, d) if x is not None}
        if len(sizes) != 1:
            raise TableError(
                "tables must hold one entry per cluster in each cell; got cells of different "
                f"lengths {sorted(sizes)}"
            )
        return a, b, c, d
    try:
        arr = np.asarray(tables)
    except (TypeError, ValueError):
        raise TableError(
            "tables must be a K x 4 array of per-cluster counts (a, b, c, d) or a PairedTable "
            f"of arrays; got {type(tables).__name__}"
        ) from None
    if arr.ndim != 2 or arr.shape[1] != 4:
        raise TableError(
            "tables must be a K x 4 array of per-cluster counts (a, b, c, d), one row per "
            f"cluster, or a PairedTable of arrays; got shape {arr.shape}"
        )
    counts = _whole_counts(arr, "tables")
    return counts[:, 0], counts[:, 1], counts[:, 2], counts[:, 3]


def _check_method(method: Any) -> str:
    if method == "eliasziw":
        return "eliasziw-donner"
    if not isinstance(method, str) or method not in CLUSTERED_METHODS:
        valid = ", ".join(repr(m) for m in CLUSTERED_METHODS)
        raise McNemarError(f"method must be one of {valid}; got {method!r}")
    return method


# --------------------------------------------------------------------------------------------
# statistics (all chi-square with 1 df under H0)


def _obuchowski(d: FloatArray) -> float:
    k = d.size
    return (k - 1) / k * d.sum() ** 2 / float(np.sum(d * d))


def _durkalski(d: FloatArray, n: FloatArray) -> float:
    r = d / n
    return float(r.sum() ** 2 / np.sum(r * r))


def _yang(d: FloatArray, n: FloatArray) -> float:
    k = d.size
    delta = d.sum() / n.sum()
    denominator = 0.5 * float(np.sum((d - n * delta) ** 2 + d * d))
    return (k - 1) / k * d.sum() ** 2 / denominator


def _eliasziw_donner_correction(x: FloatArray) -> float:
    """C_hat = 1 + (n_c - 1) rho of Eliasziw & Donner (1991); x is the K x 4 count matrix.

    rho* is the ANOVA estimator of the intraclass correlation of the four cell indicators
    (pooled between- and within-cluster mean squares, Donner's n0 for unequal sizes), turned
    into rho = rho* / (rho* + (P_b + P_c)(1 - rho*)). The effective cluster size
    n_c = S0 + K_d (S_bar - S0), with S_k = b_k + c_k over the K_d clusters that have
    discordant items, simplifies to sum S_k^2 / sum S_k.
    """
    n = x.sum(axis=1)
    k = n.size
    total = n.sum()
    n_bar = total / k
    s = x[:, 1] + x[:, 2]
    n_c = float(np.sum(s * s) / s.sum())
    if n_c == 1.0:
        # every discordant cluster has exactly one discordant item: no inflation, whatever rho
        return 1.0
    n0 = n_bar - float(np.sum((n - n_bar) ** 2)) / (k * (k - 1) * n_bar)
    p = x.sum(axis=0) / total
    bms = float(np.sum((x - n[:, None] * p) ** 2 / n[:, None])) / k
    wms = float(np.sum(x * (n[:, None] - x) / n[:, None])) / (k * (n_bar - 1.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        rho_star = (bms - wms) / (bms + (n0 - 1.0) * wms)
        rho = rho_star / (rho_star + (p[1] + p[2]) * (1.0 - rho_star))
    return 1.0 + (n_c - 1.0) * float(rho)


# --------------------------------------------------------------------------------------------
# result


def _fmt(x: float | None, spec: str = ".4g") -> str:
    return format_number(x, spec, "n/a")


@dataclass(frozen=True, slots=True, kw_only=True)
class ClusteredResult:
    """A clustered McNemar test, with the unclustered test and a cluster-robust interval.

    Attributes
    ----------
    statistic : float
        The clustered chi-square statistic (1 df); NaN when undefined (no discordant items, or
        no within-cluster variation to estimate its variance).
    pvalue : float
        Upper tail of chi-square(1) at ``statistic``; 1 when there is no evidence (no
        discordant items or ``b_k = c_k`` in every cluster); NaN when the statistic is
        undefined otherwise.
    method : str
        One of :data:`CLUSTERED_METHODS`.
    clusters : int
        Number of clusters K (non-empty ones, when the cluster sizes are known).
    n : int or None
        Number of items N (None when ``a`` and ``d`` were not given).
    b, c : int
        Total discordant counts: A right and B wrong, and the reverse.
    mcnemar_statistic, mcnemar_pvalue : float
        The plain (unclustered) McNemar chi-square (b - c)^2/(b + c) and its p-value.
    difference : float or None
        accuracy(A) - accuracy(B) = (b - c)/N.
    standard_error : float or None
        Cluster-robust (CR1) standard error of ``difference``.
    standard_error_unclustered : float or None
        The same treating items as independent: ``sqrt(sum_i (d_i - mean)^2 / (N (N - 1)))``
        with ``d_i`` in {+1, 0, -1}.
    design_effect : float or None
        ``(standard_error / standard_error_unclustered)^2``: how many times the clustering
        inflates the variance of the difference. 1 for clusters of one item.
    """

    statistic: float
    pvalue: float
    method: str
    clusters: int
    n: int | None
    b: int
    c: int
    mcnemar_statistic: float
    mcnemar_pvalue: float
    difference: float | None
    standard_error: float | None
    standard_error_unclustered: float | None
    design_effect: float | None

    def confidence_interval(
        self, confidence_level: float = 0.95, method: str = "t"
    ) -> ConfidenceInterval[float]:
        r"""Cluster-robust interval for the difference in accuracy (b - c)/N.

        :math:`\hat\delta \pm q \cdot SE_{CR1}` with
        :math:`SE_{CR1}^2 = \frac{K}{K-1} \sum_k (b_k - c_k - n_k \hat\delta)^2 / N^2` (the CR1
        sandwich estimator of a mean, as statsmodels' ``cov_type="cluster"``), and ``q`` the
        t quantile with K - 1 degrees of freedom (``method="t"``, the default recommended by
        Cameron & Miller, 2015) or the normal quantile (``method="normal"``). Limits are
        truncated to [-1, 1].

        References
        ----------
        Cameron, A. C., Miller, D. L. (2015). A practitioner's guide to cluster-robust
        inference. *Journal of Human Resources* 50(2), 317-372.

        Examples
        --------
        >>> res = clustered([[5, 3, 0, 2], [4, 2, 1, 3], [6, 1, 1, 2], [3, 4, 0, 3]])
        >>> print(res.confidence_interval())
        [-0.0905, 0.4905]
        """
        if isinstance(confidence_level, bool) or not isinstance(
            confidence_level, (int, float, np.integer, np.floating)
        ) or not 0.0 < float(confidence_level) < 1.0:
            raise McNemarError(
                f"confidence_level must be a number strictly between 0 and 1 (e.g. 0.95); got "
                f"{confidence_level!r}"
            )
        if method not in _INTERVAL_METHODS:
            valid = ", ".join(repr(m) for m in _INTERVAL_METHODS)
            raise McNemarError(f"method must be one of {valid}; got {method!r}")
        if self.difference is None or self.standard_error is None:
            raise McNemarError(
                "the interval for the difference needs N: give the concordant cells a and d "
                "for every cluster"
            )
        q = self._quantile(float(confidence_level), method)
        half = q * self.standard_error
        low = max(-1.0, self.difference - half)
        high = min(1.0, self.difference + half)
        return ConfidenceInterval(low, high)

    def _quantile(self, confidence_level: float, method: str) -> float:
        upper = 1.0 - (1.0 - confidence_level) / 2.0
        if method == "normal":
            return float(special.ndtri(upper))
        return float(special.stdtrit(self.clusters - 1, upper))

    def interval_widening(self, confidence_level: float = 0.95) -> float | None:
        """Width of the cluster-robust t interval over that of the unclustered normal one.

        The unclustered interval is ``difference +/- z * standard_error_unclustered``; the
        ratio combines the design effect and the t(K - 1) quantile.
        """
        if (
            self.standard_error is None
            or self.standard_error_unclustered is None
            or self.standard_error_unclustered == 0.0
        ):
            return None
        q_t = self._quantile(confidence_level, "t")
        q_z = self._quantile(confidence_level, "normal")
        return q_t * self.standard_error / (q_z * self.standard_error_unclustered)

    @property
    def name(self) -> str:
        """Readable name of the statistic."""
        return f"clustered McNemar test of {_METHOD_NAMES[self.method]}"

    def pvalue_for(self, alternative: str = "two-sided") -> float:
        """The clustered test's p-value for ``alternative``.

        The statistic is a chi-square on 1 df, the square of a signed normal score that is
        positive when A is more accurate (b > c). A one-sided p-value is half the two-sided
        one when the data point the way of ``alternative`` (``"greater"``: b > c; ``"less"``:
        b < c) and one minus that half when they point the other way or not at all (b = c).

        Parameters
        ----------
        alternative : {"two-sided", "greater", "less"}
            ``"greater"``: the hypothesis that A is more accurate.

        Returns
        -------
        float
            The p-value; NaN when the two-sided one is undefined.

        Examples
        --------
        >>> from mcnemar import clustered
        >>> r = clustered([[5, 4, 1, 2], [3, 2, 0, 4], [6, 3, 2, 1], [2, 1, 1, 5]])
        >>> p = r.pvalue_for("greater")
        >>> bool(p == r.pvalue / 2), bool(r.pvalue_for("less") == 1 - p)
        (True, True)
        """
        check_alternative(alternative)
        p = float(self.pvalue)
        if alternative == "two-sided" or not math.isfinite(p):
            return p
        if self.b == self.c:
            return 1.0 - p / 2.0
        toward_a = self.b > self.c
        agrees = toward_a if alternative == "greater" else not toward_a
        return p / 2.0 if agrees else 1.0 - p / 2.0

    def to_dict(self, confidence_level: float = 0.95) -> dict[str, Any]:
        """JSON-safe dictionary (undefined values are None); the interval and its widening
        at ``confidence_level``."""
        interval = None
        if self.difference is not None and self.standard_error is not None:
            interval = {
                **self.confidence_interval(confidence_level).to_dict(),
                "confidence_level": confidence_level,
                "method": "CR1 cluster-robust, t with K - 1 df",
            }
        return {
            "statistic": _json(self.statistic),
            "pvalue": _json(self.pvalue),
            "method": self.method,
            "name": self.name,
            "clusters": self.clusters,
            "n": self.n,
            "b": self.b,
            "c": self.c,
            "discordant": self.b + self.c,
            "unclustered": {
                "statistic": _json(self.mcnemar_statistic),
                "pvalue": _json(self.mcnemar_pvalue),
            },
            "difference": _json(self.difference),
            "standard_error": _json(self.standard_error),
            "standard_error_unclustered": _json(self.standard_error_unclustered),
            "design_effect": _json(self.design_effect),
            "interval_widening": _json(self.interval_widening(confidence_level)),
            "confidence_interval": interval,
        }

    def _design_text(self) -> str | None:
        widening = self.interval_widening()
        if self.design_effect is None or widening is None:
            return None
        return (
            f"design effect {self.design_effect:.3g}: the cluster-robust 95% interval is "
            f"{widening:.3g} times as wide as one treating the {self.n} items as independent"
        )

    def __str__(self) -> str:
        size = f"{self.clusters} clusters" + (f", {self.n} items" if self.n is not None else "")
        lines = [
            f"Clustered McNemar test ({_METHOD_NAMES[self.method]}): chi2 = "
            f"{_fmt(self.statistic)}, p = {_fmt(self.pvalue)} ({size})",
            f"  A right and B wrong on {self.b} items; the reverse on {self.c}",
            f"  unclustered McNemar test: chi2 = {_fmt(self.mcnemar_statistic)}, "
            f"p = {_fmt(self.mcnemar_pvalue)}",
        ]
        if self.difference is not None and self.standard_error is not None:
            ci = self.confidence_interval()
            lines.append(
                f"  difference in accuracy {100 * self.difference:+.2f} points, cluster-robust "
                f"95% CI [{100 * ci.low:+.2f}, {100 * ci.high:+.2f}] (CR1, t with "
                f"{self.clusters - 1} df)"
            )
        design = self._design_text()
        if design:
            lines.append(f"  {design}")
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """A markdown summary table."""
        rows = [
            ("clustered chi-square", _fmt(self.statistic)),
            ("p-value", _fmt(self.pvalue)),
            ("unclustered chi-square (p)",
             f"{_fmt(self.mcnemar_statistic)} ({_fmt(self.mcnemar_pvalue)})"),
            ("clusters / items", f"{self.clusters} / {self.n if self.n is not None else 'n/a'}"),
            ("A right & B wrong / reverse", f"{self.b} / {self.c}"),
        ]
        if self.difference is not None and self.standard_error is not None:
            ci = self.confidence_interval()
            rows.append(("difference (95% CI, CR1-t)",
                         f"{100 * self.difference:+.2f} points "
                         f"[{100 * ci.low:+.2f}, {100 * ci.high:+.2f}]"))
        if self.design_effect is not None:
            rows.append(("design effect", f"{self.design_effect:.3g}"))
        title = self.name[0].upper() + self.name[1:]
        out = [f"**{title}**", "", "| quantity | value |", "|---|---:|"]
        out.extend(f"| {k} | {v} |" for k, v in rows)
        return "\n".join(out)


# --------------------------------------------------------------------------------------------
# public functions


def clustered(tables: Any, *, method: str = "obuchowski") -> ClusteredResult:
    r"""McNemar's test for paired outcomes of items nested in clusters.

    With per-cluster counts :math:`(a_k, b_k, c_k, d_k)`, :math:`n_k` items in cluster k,
    :math:`N = \sum n_k`, :math:`d_k = b_k - c_k` and K clusters, each statistic is referred to
    chi-square with 1 df:

    ``"obuchowski"`` (Obuchowski 1998, in the notation of Yang et al. 2010)
        :math:`X^2 = \frac{K-1}{K} (\sum_k d_k)^2 / \sum_k d_k^2`; needs only b and c.
    ``"durkalski"`` (Durkalski et al. 2003)
        :math:`X^2 = (\sum_k d_k/n_k)^2 / \sum_k (d_k/n_k)^2`.
    ``"yang"`` (Yang, Sun & Hardin 2010), with :math:`\hat\delta = \sum_k d_k / N`
        :math:`X^2 = \frac{K-1}{K} (\sum_k d_k)^2 /
        \left(\tfrac12 \sum_k [(d_k - n_k\hat\delta)^2 + d_k^2]\right)`.
    ``"eliasziw-donner"`` (Eliasziw & Donner 1991)
        the McNemar statistic :math:`(b - c)^2/(b + c)` divided by
        :math:`\hat C = 1 + (n_c - 1)\tilde\rho`, an intraclass-correlation correction (see
        :func:`_eliasziw_donner_correction`).

    With clusters of one item, Durkalski and Eliasziw-Donner equal the plain McNemar statistic
    and Obuchowski equals ``(N - 1)/N`` times it.

    The result also carries the plain McNemar test, a cluster-robust (CR1) standard error and
    interval for the difference (b - c)/N, and the design effect (clustered over unclustered
    variance of the difference).

    Parameters
    ----------
    tables : array_like of shape (K, 4) or PairedTable
        Per-cluster counts (a, b, c, d) - a = both right, b = A right and B wrong,
        c = A wrong and B right, d = both wrong - or a :class:`~mcnemar.table.PairedTable`
        whose cells are arrays with one entry per cluster (``a`` and ``d`` may be None; then
        only ``"obuchowski"`` applies and there is no N). Clusters with no items are dropped.
    method : {"obuchowski", "durkalski", "yang", "eliasziw-donner"}

    Returns
    -------
    ClusteredResult

    Raises
    ------
    McNemarError
        Invalid counts (:class:`~mcnemar.errors.TableError`), fewer than 2 clusters, an
        unknown method, or a method that needs cluster sizes without ``a`` and ``d``.

    References
    ----------
    Obuchowski, N. A. (1998). On the comparison of correlated proportions for clustered data.
    *Statistics in Medicine* 17(13), 1495-1507.

    Durkalski, V. L., Palesch, Y. Y., Lipsitz, S. R., Rust, P. F. (2003). Analysis of clustered
    matched-pair data. *Statistics in Medicine* 22(15), 2417-2428.

    Yang, Z., Sun, X., Hardin, J. W. (2010). A note on the tests for clustered matched-pair
    binary data. *Biometrical Journal* 52(5), 638-652.

    Eliasziw, M., Donner, A. (1991). Application of the McNemar test to non-independent
    matched pair data. *Statistics in Medicine* 10(12), 1981-1991.

    Examples
    --------
    >>> res = clustered([[5, 3, 0, 2], [4, 2, 1, 3], [6, 1, 1, 2], [3, 4, 0, 3]])
    >>> round(res.statistic, 3), round(res.mcnemar_statistic, 3)
    (1.846, 5.333)
    >>> round(clustered([[5, 3, 0, 2], [4, 2, 1, 3]], method="durkalski").statistic, 3)
    1.6
    """
    method = _check_method(method)
    a, b, c, d = _as_cluster_table(tables)
    full: FloatArray | None = None
    if a is not None and d is not None:
        keep = (a + b + c + d) > 0
        a, b, c, d = a[keep], b[keep], c[keep], d[keep]
        full = np.column_stack([a, b, c, d]).astype(np.float64)
    elif method in _NEEDS_N:
        raise McNemarError(
            f"method {method!r} needs the cluster sizes: give the concordant cells a and d "
            "for every cluster (only 'obuchowski' works from b and c alone)"
        )
    k = int(b.size)
    if k < 2:
        raise McNemarError(
            f"a clustered test needs at least 2 (non-empty) clusters to estimate the "
            f"between-cluster variance; got {k}"
        )
    pooled = _pooled_test(int(b.sum()), int(c.sum()))
    plain = pooled["mcnemar_statistic"]
    disc = pooled["b"] + pooled["c"]
    diff_k = (b - c).astype(np.float64)

    if disc == 0 or not np.any(diff_k):
        # no discordant items, or b_k = c_k in every cluster: no evidence either way
        statistic = math.nan if disc == 0 or method != "eliasziw-donner" else 0.0
        pvalue = 1.0
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            if full is None or method == "obuchowski":
                statistic = _obuchowski(diff_k)
            elif method == "durkalski":
                statistic = _durkalski(diff_k, full.sum(axis=1))
            elif method == "yang":
                statistic = _yang(diff_k, full.sum(axis=1))
            else:
                correction = _eliasziw_donner_correction(full)
                statistic = plain / correction if correction > 0 else math.nan
        if math.isfinite(statistic) and statistic >= 0:
            pvalue = float(special.chdtrc(1, statistic))
        else:
            warnings.warn(
                f"the {_METHOD_NAMES[method]} statistic is undefined for these clusters "
                "(its variance estimate is not positive); p-value reported as undefined",
                McNemarWarning,
                stacklevel=2,
            )
            statistic, pvalue = math.nan, math.nan

    return ClusteredResult(
        statistic=float(statistic),
        pvalue=float(pvalue),
        method=method,
        clusters=k,
        **pooled,
        **_item_scale(full, diff_k, pooled["b"], pooled["c"]),
    )


def _pooled_test(b_tot: int, c_tot: int) -> dict[str, Any]:
    """The fields of :class:`ClusteredResult` for the pooled counts: b, c and the plain
    (unclustered) McNemar chi-square (b - c)^2/(b + c) with its p-value (nan and 1 when
    b + c = 0)."""
    disc = b_tot + c_tot
    plain = math.nan if disc == 0 else (b_tot - c_tot) ** 2 / disc
    return {
        "b": b_tot,
        "c": c_tot,
        "mcnemar_statistic": float(plain),
        "mcnemar_pvalue": 1.0 if disc == 0 else float(special.chdtrc(1, plain)),
    }


def _item_scale(
    full: FloatArray | None, diff_k: FloatArray, b_tot: int, c_tot: int
) -> dict[str, Any]:
    """The fields of :class:`ClusteredResult` on the scale of items: ``n``, the difference
    (b - c)/N, its cluster-robust (CR1) and unclustered standard errors and the design effect
    (all None without the cluster sizes, ``full``)."""
    out: dict[str, Any] = dict.fromkeys(
        ("n", "difference", "standard_error", "standard_error_unclustered", "design_effect")
    )
    if full is None:
        return out
    k = diff_k.size
    sizes = full.sum(axis=1)
    n_items = int(sizes.sum())
    total = float(n_items)
    difference = (b_tot - c_tot) / total
    resid = diff_k - sizes * difference
    se = math.sqrt(k / (k - 1) * float(np.sum(resid * resid))) / total
    out.update(n=n_items, difference=difference, standard_error=se)
    if n_items > 1:
        # sum_i (d_i - mean)^2 = (b + c) - N mean^2 for d_i in {+1, 0, -1}
        ss = max(b_tot + c_tot - total * difference**2, 0.0)
        se_iid = math.sqrt(ss / (total * (total - 1.0)))
        out["standard_error_unclustered"] = se_iid
        if se_iid > 0:
            out["design_effect"] = (se / se_iid) ** 2
    return out


def _outcome_vector(values: Any, name: str) -> npt.NDArray[np.bool_]:
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError):
        raise TableError(f"{name} must be a 1-D sequence of 0/1 or booleans") from None
    if arr.ndim != 1 or arr.size == 0:
        raise TableError(
            f"{name} must be a non-empty 1-D sequence (one outcome per item); got shape "
            f"{arr.shape}"
        )
    if arr.dtype == np.bool_:
        return arr
    if arr.dtype.kind not in "iuf":
        raise TableError(f"{name} must hold 0/1 or booleans; got values of type {arr.dtype}")
    bad = (arr != 0) & (arr != 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise TableError(f"{name} must hold 0/1 outcomes; got {arr[i]!r} at item {i}")
    out: npt.NDArray[np.bool_] = arr == 1
    return out


def cluster_counts(
    correct_a: Any, correct_b: Any, cluster_ids: Any
) -> tuple[npt.NDArray[Any], IntArray]:
    """Per-cluster tables from per-item outcomes.

    Parameters
    ----------
    correct_a, correct_b : array_like of 0/1 or bool, length N
        Whether A and B got each item right, in the same item order.
    cluster_ids : array_like, length N
        The cluster of each item (any sortable values: numbers or strings). For repeated
        samples of items, pass the item id: each item is then a cluster of its samples.

    Returns
    -------
    ids : ndarray
        The K distinct cluster ids, sorted.
    counts : ndarray of shape (K, 4)
        ``(a, b, c, d)`` per cluster, in the order of ``ids``.

    Examples
    --------
    >>> ids, counts = cluster_counts([1, 1, 0, 1], [1, 0, 1, 0], ["p1", "p1", "p2", "p2"])
    >>> ids.tolist(), counts.tolist()
    (['p1', 'p2'], [[1, 1, 0, 0], [0, 1, 1, 0]])
    """
    xa = _outcome_vector(correct_a, "correct_a")
    xb = _outcome_vector(correct_b, "correct_b")
    groups = np.asarray(cluster_ids)
    if groups.ndim != 1:
        raise TableError(f"cluster_ids must be 1-D (one id per item); got shape {groups.shape}")
    if not xa.size == xb.size == groups.size:
        raise TableError(
            "correct_a, correct_b and cluster_ids must have one entry per item; got lengths "
            f"{xa.size}, {xb.size} and {groups.size}"
        )
    try:
        ids, inverse = np.unique(groups, return_inverse=True)
    except TypeError:
        raise TableError(
            "cluster_ids must be sortable values of one kind (all numbers or all strings)"
        ) from None
    # cell index 0..3 = a, b, c, d: A wrong adds 2, B wrong adds 1
    cell = 2 * (~xa).astype(np.int64) + (~xb).astype(np.int64)
    flat = np.bincount(inverse.ravel() * 4 + cell, minlength=ids.size * 4)
    return ids, flat.reshape(ids.size, 4).astype(np.int64)


def clustered_from_outcomes(
    correct_a: Any, correct_b: Any, cluster_ids: Any, *, method: str = "obuchowski"
) -> ClusteredResult:
    """Clustered McNemar test from per-item outcomes and a cluster id per item.

    Groups the items with :func:`cluster_counts` and calls :func:`clustered`. For repeated
    samples ("epochs") of the same items, pass the item id as ``cluster_ids``.

    Examples
    --------
    >>> a = [1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1]
    >>> b = [0, 0, 1, 0, 1, 0, 1, 1, 0, 0, 1, 0]
    >>> ids = [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]
    >>> round(clustered_from_outcomes(a, b, ids).statistic, 3)
    2.083
    """
    _, counts = cluster_counts(correct_a, correct_b, cluster_ids)
    return clustered(counts, method=method)
