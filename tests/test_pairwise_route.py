"""The exact-test route of :func:`mcnemar.pairwise`: its numbers against the stored reference
(tests/data/reference/pairwise_before.npz), its binomial tails against exact fractions, and the
rule that a pair's numbers depend on its own table alone."""

from __future__ import annotations

import importlib.util
import itertools
import math
from fractions import Fraction
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from mcnemar.multiple import _pairs, adjust_pvalues, pairwise

REFERENCE = Path(__file__).parent / "data" / "reference"
#: Every stored number is matched to this relative tolerance.
RTOL = 1e-12


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "make_pairwise_before", REFERENCE / "make_pairwise_before.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GENERATOR = _generator()
CASES = GENERATOR.matrices()
STORED = dict(np.load(REFERENCE / "pairwise_before.npz"))


def _floor(field: str, pairs: int) -> float:
    """Below this magnitude a stored value is compared in absolute terms (RTOL * floor).

    A p-value below the smallest normal double (2.2e-308) is a denormal with fewer digits than
    RTOL asks for, and an adjusted p-value is such a p-value times at most the number of
    pairs; near log10 p = 0 a relative change of RTOL in p moves log10 p by RTOL / ln 10.
    """
    tiny = float(np.finfo(np.float64).tiny)
    if field == "adjusted_pvalue":
        return tiny * pairs
    if field == "log10_pvalue":
        return 1.0 / math.log(10.0)
    return tiny


def _relative_change(new: np.ndarray, old: np.ndarray, floor: float) -> float:
    """Largest |new - old| / max(|old|, floor); equal values (infinities included) and NaNs in
    the same places count as no change."""
    same = (new == old) | (np.isnan(new) & np.isnan(old))
    with np.errstate(invalid="ignore"):
        rel = np.where(same, 0.0, np.abs(new - old) / np.maximum(np.abs(old), floor))
    return float(np.nan_to_num(rel, nan=np.inf).max(initial=0.0))


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_the_stored_reference(name: str) -> None:
    x, kwargs = CASES[name]
    res = pairwise(x, **kwargs)
    i, j = STORED[f"{name}/pairs"].astype(np.intp).T
    for field in GENERATOR.FIELDS:
        new = np.asarray(getattr(res, field))[i, j]
        old = STORED[f"{name}/{field}"]
        change = _relative_change(new, old, _floor(field, res.pairs.shape[0]))
        assert change <= RTOL, (name, field, change)


# --------------------------------------------------------------------------------------------
# the binomial tails of the route against exact fractions


def _exact_lower_tails(d: int, ks: np.ndarray) -> list[Fraction]:
    """Pr(X <= k) for X ~ Bin(d, 1/2), each k of ``ks``, as exact fractions."""
    terms = [1]
    for j in range(int(ks.max())):
        terms.append(terms[-1] * (d - j) // (j + 1))  # C(d, j + 1), exactly
    cumulative = list(itertools.accumulate(terms))
    return [Fraction(cumulative[int(k)], 1 << d) for k in ks]


def _log10(x: Fraction) -> float:
    """log10 of a positive fraction, to an ulp or two: of the correctly rounded double where it
    is one, else from the logs of numerator and denominator (|log| > 690 then, so their
    rounding is far below an ulp of it)."""
    if x > Fraction(1, 10**300):
        return math.log10(float(x))
    return (math.log(x.numerator) - math.log(x.denominator)) / math.log(10)


@pytest.mark.parametrize("d", [65, 66, 101, 500, 1381, 1382, 2047, 3001, 4400, _pairs._ROW_MAX_D])
def test_row_tails_are_exact(d: int) -> None:
    """Every tail a row holds, to a few ulp (the incomplete beta is off by up to ~1.2e-16 D)."""
    ks = np.arange((d - 2) // 2 + 1, dtype=np.int64)
    rows = _pairs._TailRows.of(np.full(ks.size, d))
    ks = ks[ks >= _pairs._row_starts()[d]]
    tails = rows.lower_tails(ks, np.full(ks.size, d))
    exact = np.array([float(f) for f in _exact_lower_tails(d, ks)])
    used = exact >= 1e-280  # the route takes only these from a row
    assert used.sum() > min(30, d // 2 - 2)
    np.testing.assert_allclose(tails[used], exact[used], rtol=8e-15, atol=0)


@pytest.mark.parametrize("d", [1000, 2047, 4400, _pairs._ROW_MAX_D])
def test_deep_tails_are_exact(d: int) -> None:
    """The log of the tails below 1e-280 (the series route), against exact fractions."""
    ks = np.arange((d - 2) // 2 + 1, dtype=np.int64)
    exact = _exact_lower_tails(d, ks)
    deep = np.array([f < Fraction(1, 10**280) for f in exact])
    ks = ks[deep]
    got = _pairs._log_deep_tail(ks.astype(np.float64), np.full(ks.size, float(d)))
    want = np.array([math.log(f.numerator) - math.log(f.denominator) for f, keep
                     in zip(exact, deep, strict=True) if keep])
    np.testing.assert_allclose(got, want, rtol=8e-15, atol=0)


def test_p_values_of_every_route_are_exact() -> None:
    """Two-sided p-values and log10 p of tables on each route (small D, a row, the deep
    series, D beyond the rows), against exact fractions."""
    b = np.array([0, 3, 20, 64, 40, 700, 30, 1, 2990, 2000, 6001, 7000, 2, 9000, 12_000],
                 dtype=np.int64)
    c = np.array([0, 7, 44, 0, 60, 900, 2500, 5999, 3010, 4000, 0, 3000, 8000, 9001, 7_000],
                 dtype=np.int64)
    statistic, pvalue, log10_pvalue = _pairs._test_pairs(b, c, "exact", "two-sided")
    np.testing.assert_array_equal(statistic, np.minimum(b, c))
    for bi, ci, p, log10_p in zip(b.tolist(), c.tolist(), pvalue.tolist(),
                                  log10_pvalue.tolist(), strict=True):
        d, k = bi + ci, min(bi, ci)
        tail = _exact_lower_tails(d, np.array([k]))[0] if d else Fraction(1)
        want = min(Fraction(1), 2 * tail)
        log10_want = _log10(want)
        assert log10_p == pytest.approx(log10_want, rel=1e-13, abs=1e-13)
        if want > Fraction(1, 10**300):
            assert p == pytest.approx(float(want), rel=1e-12)


# --------------------------------------------------------------------------------------------
# a pair's numbers depend on its table alone


def test_a_table_gets_the_same_numbers_whatever_else_is_computed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same runs among others, in another order, in small chunks on several threads: every
    number of every pair is the same to the bit (the adjusted p-values, which depend on the
    family, aside)."""
    x, _ = CASES["agreeing_k120_n2000"]
    y, _ = CASES["disagreeing_k100_n10000"]
    alone = pairwise(x)
    monkeypatch.setattr(_pairs, "_CHUNK", 777)
    monkeypatch.setattr(_pairs, "_threads", lambda: 3)
    among = pairwise(np.concatenate([x[60:], y[:, :2000], x[:60]]))
    # where each run of x is in the second call
    moved = np.r_[160 + np.arange(60), np.arange(60)]
    for field in ("statistic", "pvalue", "log10_pvalue", "ci_low", "ci_high"):
        np.testing.assert_array_equal(
            np.asarray(getattr(among, field))[np.ix_(moved, moved)],
            np.asarray(getattr(alone, field)),
            err_msg=field,
        )


@pytest.mark.parametrize("interval", ["newcombe", "newcombe-plain"])
@pytest.mark.parametrize("level", [0.95, 0.8])
def test_newcombe_limits_from_the_models_marginals_are_those_of_each_table(
        interval: str, level: float) -> None:
    """pairwise takes each model's Wilson limits once (mover_limits): every pair's interval
    is, to the bit, difference_interval's of its own table."""
    from mcnemar.intervals import difference_interval

    rng = np.random.default_rng(12)
    x = (rng.random((25, 300)) < rng.uniform(0.3, 0.95, (25, 1))).astype(np.int8)
    x[3] = 1  # a model right everywhere (Wilson's upper limit 1)
    x[4] = 0
    res = pairwise(x, interval=interval, confidence_level=level)
    for i in range(25):
        for j in range(25):
            if i == j:
                continue
            ci = difference_interval(int(res.a[i, j]), int(res.b[i, j]), int(res.c[i, j]),
                                     int(res.d[i, j]), method=interval, confidence_level=level)
            assert (res.ci_low[i, j], res.ci_high[i, j]) == (ci.low, ci.high), (i, j)


# --------------------------------------------------------------------------------------------
# the sort of the adjustment


def _textbook_adjust(p: np.ndarray, method: str) -> np.ndarray:
    """Holm or Benjamini-Hochberg by a stable argsort of the p-values."""
    m = p.size
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    if method == "holm":
        steps = np.maximum.accumulate(np.arange(m, 0, -1, dtype=np.float64) * ranked)
    else:
        steps = np.minimum.accumulate((m / np.arange(1.0, m + 1.0) * ranked)[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(1.0, steps)
    return out


@pytest.mark.parametrize("method", ["holm", "bh"])
def test_the_adjustment_sorts_exactly(method: str) -> None:
    """To the bit as by an argsort, also among values that differ only in their last bits,
    denormals, zeros, ones and ties."""
    rng = np.random.default_rng(3)
    tiny = float(np.finfo(np.float64).smallest_subnormal)
    values = rng.permutation(np.concatenate([
        rng.random(2000),
        0.5 + rng.integers(0, 4, 3000) * 2.0**-52,
        rng.integers(1, 2**20, 1500) * tiny,
        np.zeros(300),
        np.ones(200),
        np.repeat(rng.random(40), 25),
        rng.random(500) ** 200,
    ]))
    np.testing.assert_array_equal(adjust_pvalues(values, method), _textbook_adjust(values, method))
