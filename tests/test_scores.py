"""The paired comparison of scores (:mod:`mcnemar.scores`) against its references.

* R 4.x: ``t.test(extra ~ group, data = sleep, paired = TRUE)`` (and unpaired, Welch), and
  ``wilcox.test(x, y, paired = TRUE, conf.int = TRUE)`` on Hollander & Wolfe's depression
  data (their Hodges-Lehmann estimate 0.46), ``power.t.test(..., type = "paired",
  strict = TRUE)``;
* scipy as a second implementation: ``ttest_rel``, ``ttest_ind(equal_var=False)``,
  ``wilcoxon``, ``permutation_test``, ``bootstrap(method="BCa")``;
* brute force: the signed-rank and sign-flip null distributions enumerated with itertools,
  the Walsh averages formed outright; statsmodels' cluster-robust standard error;
* identities: on 0/1 scores the sign test (and the exact permutation test) is McNemar's exact
  test, and the t interval is the Wald interval widened by t/z * sqrt(n/(n-1));
* properties (hypothesis): two-sided p-values do not change when A and B swap, the intervals
  contain their estimates, a constant added to A moves the difference by that constant.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from mcnemar import PairedTable, analyze_scores, difference_interval, mcnemar
from mcnemar.errors import McNemarError
from mcnemar.scores import _intervals, _tests, t_detectable_difference, t_power, t_sample_size

# Student's sleep data (R datasets::sleep): extra hours of sleep with drug 1 and drug 2.
SLEEP_1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
SLEEP_2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]
# Hollander & Wolfe (1999), Table 3.1: Hamilton depression scale, first (x) and second (y) visit.
DEPRESSION_X = [1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30]
DEPRESSION_Y = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29]
ALTERNATIVES = ("two-sided", "greater", "less")
SCIPY_ALT = {"two-sided": "two-sided", "greater": "greater", "less": "less"}


def _rep(a, b, **kw):
    kw.setdefault("random_state", 0)
    return analyze_scores(a, b, **kw)


# -- R -------------------------------------------------------------------------------------------
def test_paired_t_on_the_sleep_data_matches_r() -> None:
    rep = _rep(SLEEP_1, SLEEP_2)
    t = rep.tests["t"]
    assert t.statistic == pytest.approx(-4.06212768338204, rel=1e-12)
    assert t.df == 9
    assert t.pvalue == pytest.approx(0.00283289019738427, rel=1e-10)
    assert rep.difference == pytest.approx(-1.58, rel=1e-12)
    low, high = rep.intervals["t"]
    assert (low, high) == (pytest.approx(-2.459885763276982, rel=1e-12),
                           pytest.approx(-0.700114236723018, rel=1e-12))
    # R: t.test(extra ~ group, data = sleep) (Welch, the pitfall)
    assert rep.unpaired.statistic == pytest.approx(-1.86081346748685, rel=1e-12)
    assert rep.unpaired.df == pytest.approx(17.7764735161785, rel=1e-12)
    assert rep.unpaired.pvalue == pytest.approx(0.0793941401873582, rel=1e-10)
    # R: wilcox.test(g1, g2, paired = TRUE, exact = FALSE, correct = FALSE): V = 0
    w = rep.tests["wilcoxon"]
    assert (w.statistic, w.exact) == (0.0, False)
    assert w.pvalue == pytest.approx(0.00763244164820552, rel=1e-10)


def test_signed_rank_and_hodges_lehmann_on_the_depression_data_match_r() -> None:
    greater = _rep(DEPRESSION_X, DEPRESSION_Y, alternative="greater")
    assert greater.tests["wilcoxon"].statistic == 40
    assert greater.tests["wilcoxon"].exact
    assert greater.tests["wilcoxon"].pvalue == pytest.approx(0.01953125, rel=1e-13)
    rep = _rep(DEPRESSION_X, DEPRESSION_Y)
    assert rep.tests["wilcoxon"].pvalue == pytest.approx(0.0390625, rel=1e-13)
    # Hollander & Wolfe's estimate, and R's conf.int (95% and 90%).
    assert rep.hodges_lehmann == pytest.approx(0.46, abs=1e-12)
    assert tuple(rep.intervals["hodges-lehmann"]) == (pytest.approx(0.010, abs=1e-12),
                                                      pytest.approx(0.786, abs=1e-12))
    assert rep.hodges_lehmann_level == pytest.approx(1 - 2 * 7 / 512)  # P(V <= 5) = 7/512
    ninety = _rep(DEPRESSION_X, DEPRESSION_Y, confidence_level=0.9)
    assert tuple(ninety.intervals["hodges-lehmann"]) == (pytest.approx(0.175, abs=1e-12),
                                                         pytest.approx(0.726, abs=1e-12))


@pytest.mark.parametrize(
    ("call", "want", "rel"),
    [
        # power.t.test(n = 20, delta = 1, sd = 1, type = "paired", strict = TRUE)
        (lambda: t_power(20, 1.0, 1.0).power, 0.988591294779182, 1e-10),
        (lambda: t_power(8, 0.5, 1.0).power, 0.232077004639069, 1e-10),
        (lambda: t_power(20, 0.5, 1.0, alternative="greater").power, 0.695149338244658, 1e-10),
        # ... power = 0.8, delta = 0.5 gives n = 33.37 (34 items); 631.98 for the second
        (lambda: t_sample_size(0.5, 1.0).n, 34, 0),
        (lambda: t_sample_size(0.2, 1.3, power=0.9, alpha=0.01).n, 632, 0),
        # ... n = 50, power = 0.8, sd = 2: delta = 0.80837 (R's uniroot stops at 1e-4 tolerance)
        (lambda: t_detectable_difference(50, 2.0).difference, 0.808367879916475, 1e-5),
        (lambda: t_detectable_difference(12, 1.0, power=0.9, alternative="greater").difference,
         0.902666909122591, 1e-5),
    ],
)
def test_paired_t_planning_matches_r_power_t_test(call, want, rel) -> None:
    assert call() == pytest.approx(want, rel=rel)


def test_planning_from_two_sds_and_their_correlation_and_the_normal_approximation() -> None:
    a = t_power(30, 0.3, sd_a=1.0, sd_b=1.2, correlation=0.5)
    sd = math.sqrt(1 + 1.44 - 2 * 0.5 * 1.2)
    assert a.sd == pytest.approx(sd)
    assert a.power == pytest.approx(t_power(30, 0.3, sd).power)
    z = stats.norm.ppf(0.975)
    lam = 0.3 * math.sqrt(30) / sd
    assert a.normal == pytest.approx(stats.norm.cdf(lam - z) + stats.norm.cdf(-lam - z))
    assert a.normal > a.power  # the normal approximation is optimistic
    plan = t_sample_size(0.5, 1.0)
    assert plan.normal == math.ceil((z + stats.norm.ppf(0.8)) ** 2 / 0.25)
    assert t_power(plan.n - 1, 0.5, 1.0).power < 0.8 <= plan.power
    assert "n = 34" in str(plan) and "| items | 34 |" in plan.to_markdown()
    with pytest.raises(McNemarError, match="sd"):
        t_power(10, 0.5)
    with pytest.raises(McNemarError, match="direction"):
        t_sample_size(0.5, 1.0, alternative="less")


# -- scipy as a second implementation -------------------------------------------------------------
def _data(seed: int, n: int, kind: str = "normal") -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    if kind == "grades":
        a = rng.integers(1, 11, n).astype(float)
        b = np.clip(a + rng.integers(-2, 3, n), 1, 10)
        return a, b
    a = rng.normal(size=n)
    return a + rng.normal(0.2, 1.0, n), a


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("kind", ["normal", "grades"])
def test_t_wilcoxon_and_welch_match_scipy(alternative: str, kind: str) -> None:
    a, b = _data(3, 40, kind)
    rep = _rep(a, b, alternative=alternative)
    ref = stats.ttest_rel(a, b, alternative=alternative)
    assert rep.tests["t"].statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert rep.tests["t"].pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    welch = stats.ttest_ind(a, b, equal_var=False, alternative=alternative)
    assert rep.unpaired.pvalue == pytest.approx(welch.pvalue, rel=1e-10)
    for zero_method in ("wilcox", "pratt"):
        got = _rep(a, b, alternative=alternative, zero_method=zero_method).tests["wilcoxon"]
        method = "exact" if got.exact else "asymptotic"
        want = stats.wilcoxon(a, b, alternative=alternative, zero_method=zero_method,
                              method=method, correction=False)
        assert got.pvalue == pytest.approx(want.pvalue, rel=1e-9), (zero_method, method)
    t_ci = stats.ttest_rel(a, b).confidence_interval(0.95)
    assert tuple(rep.intervals["t"]) == (pytest.approx(t_ci.low), pytest.approx(t_ci.high))


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_exact_wilcoxon_and_permutation_match_scipy(alternative: str) -> None:
    a, b = _data(5, 12)
    rep = _rep(a, b, alternative=alternative)
    w = stats.wilcoxon(a, b, alternative=alternative, method="exact")
    assert rep.tests["wilcoxon"].exact
    assert rep.tests["wilcoxon"].pvalue == pytest.approx(w.pvalue, rel=1e-12)
    perm = stats.permutation_test((a - b,), lambda x, axis: np.sum(x, axis=axis),
                                  permutation_type="samples", alternative=alternative,
                                  n_resamples=np.inf)
    assert rep.tests["permutation"].exact
    assert rep.tests["permutation"].pvalue == pytest.approx(perm.pvalue, rel=1e-12)


def test_monte_carlo_permutation_agrees_with_exact_within_its_standard_error() -> None:
    a, b = _data(8, 21)  # 2**21 flips: more than are enumerated, so Monte Carlo
    rep = _rep(a, b, n_resamples=20_000, random_state=4)
    perm = rep.tests["permutation"]
    assert not perm.exact and perm.resamples == 20_000
    d = a - b
    sums = _tests.flip_sums(d)  # brute force: all 2**21 sums
    want = float(np.mean(np.abs(sums) >= abs(d.sum()) * (1 - 1e-12)))
    assert perm.standard_error == pytest.approx(math.sqrt(perm.pvalue * (1 - perm.pvalue)
                                                          / 20_000))
    assert abs(perm.pvalue - want) < 4 * perm.standard_error + 1 / 20_001


def test_bca_bootstrap_agrees_with_scipy() -> None:
    a, b = _data(11, 60)
    a = a + np.random.default_rng(1).exponential(1.0, 60)  # skewed differences
    rep = _rep(a, b, n_resamples=20_000, random_state=2)
    ref = stats.bootstrap((a - b,), np.mean, method="BCa", n_resamples=20_000,
                          random_state=np.random.default_rng(3)).confidence_interval
    low, high = rep.intervals["bootstrap"]
    width = ref.high - ref.low
    assert abs(low - ref.low) < 0.05 * width
    assert abs(high - ref.high) < 0.05 * width


def test_bca_from_given_resamples_against_the_formula() -> None:
    rng = np.random.default_rng(0)
    d = rng.exponential(size=30)
    boot = _intervals.bootstrap_means(d[:, None], np.ones(30), 4000, rng)
    jack = (d.sum() - d) / 29
    low, high = _intervals.bca_interval(np.array([d.mean()]), boot, jack[:, None], 0.9)
    z0 = stats.norm.ppf(np.mean(boot[:, 0] < d.mean()))
    u = jack.mean() - jack
    acc = (u**3).sum() / (6 * ((u**2).sum()) ** 1.5)
    q = [stats.norm.cdf(z0 + (z0 + z) / (1 - acc * (z0 + z))) for z in stats.norm.ppf([.05, .95])]
    want = np.quantile(boot[:, 0], q)
    assert (low[0], high[0]) == (pytest.approx(want[0]), pytest.approx(want[1]))


# -- brute force ---------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 5, 9, 12])
def test_signed_rank_null_distribution_by_enumeration(n: int) -> None:
    counts = np.zeros(n * (n + 1) // 2 + 1)
    for signs in itertools.product((0, 1), repeat=n):
        counts[sum(r for r, s in zip(range(1, n + 1), signs, strict=True) if s)] += 1
    assert np.array_equal(_tests.signed_rank_counts(n), counts)


def test_exact_permutation_p_by_enumeration() -> None:
    d = np.array([0.3, -0.1, 0.25, 0.7, 0.0, -0.4, 0.15, 0.05, 0.2])
    for alternative in ALTERNATIVES:
        sums = [float(np.dot(s, d)) for s in itertools.product((1, -1), repeat=d.size)]
        obs = float(d.sum())
        tol = 1e-12
        hits = {"two-sided": sum(abs(x) >= abs(obs) - tol for x in sums),
                "greater": sum(x >= obs - tol for x in sums),
                "less": sum(x <= obs + tol for x in sums)}[alternative]
        got = _rep(d, np.zeros_like(d), alternative=alternative).tests["permutation"]
        assert got.exact
        assert got.pvalue == pytest.approx(hits / len(sums), rel=1e-12)


def test_hodges_lehmann_by_brute_force_and_by_selection() -> None:
    rng = np.random.default_rng(7)
    for n in (2, 3, 10, 51, 200):
        d = np.round(rng.normal(size=n), 3)
        walsh = sorted((d[i] + d[j]) / 2 for i in range(n) for j in range(i, n))
        est, low, high, _, _ = _intervals.hodges_lehmann(d, 0.95)
        assert est == pytest.approx(float(np.median(walsh)))
        assert walsh[0] <= low <= est <= high <= walsh[-1]
    # beyond BRUTE_WALSH the order statistics come from bisection; same answers
    d = rng.normal(size=2500)
    sums = np.add.outer(d, d)[np.triu_indices(d.size)]
    sums.sort()
    ks = [1, 17, sums.size // 2, sums.size]
    got = [_intervals._walsh_kth(np.sort(d), k) for k in ks]
    assert got == pytest.approx([sums[k - 1] for k in ks], rel=1e-12, abs=1e-12)


def test_cluster_robust_t_matches_statsmodels() -> None:
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(2)
    clusters = np.repeat(np.arange(15), rng.integers(1, 6, 15))
    n = clusters.size
    shared = rng.normal(size=15)[clusters]
    a = shared + rng.normal(0.3, 1, n)
    b = shared + rng.normal(0, 1, n)
    rep = _rep(a, b, cluster=clusters)
    fit = sm.OLS(a - b, np.ones(n)).fit(cov_type="cluster", cov_kwds={"groups": clusters})
    assert rep.standard_error == pytest.approx(float(fit.bse[0]), rel=1e-10)
    assert rep.tests["t"].df == 14
    assert rep.tests["t"].pvalue == pytest.approx(
        2 * stats.t.sf(abs(rep.difference / rep.standard_error), 14), rel=1e-10)
    assert rep.clusters == 15 and "15 clusters" in str(rep)
    # the permutation test flips whole clusters: 2**15 flips, exact
    assert rep.tests["permutation"].exact
    sums = np.bincount(clusters, weights=a - b)
    flips = _tests.flip_sums(sums)
    want = np.mean(np.abs(flips) >= abs(sums.sum()) * (1 - 1e-9))
    assert rep.tests["permutation"].pvalue == pytest.approx(want)


# -- identities on 0/1 scores --------------------------------------------------------------------
@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize(("a", "b", "c", "d"), [(157, 17, 3, 23), (10, 5, 5, 10), (3, 0, 6, 1),
                                                 (40, 30, 12, 18)])
def test_sign_test_on_binary_scores_is_mcnemars_exact_test(a, b, c, d, alternative) -> None:
    sa = np.array([1] * a + [1] * b + [0] * c + [0] * d)
    sb = np.array([1] * a + [0] * b + [1] * c + [0] * d)
    rep = _rep(sa, sb, alternative=alternative)
    want = mcnemar(PairedTable(a=a, b=b, c=c, d=d), method="exact",
                   alternative=alternative).pvalue
    assert rep.tests["sign"].pvalue == pytest.approx(want, rel=1e-13)
    assert rep.tests["sign"].pvalue == pytest.approx(
        stats.binomtest(b, b + c, alternative=alternative).pvalue if b + c else 1.0, rel=1e-12)
    # the sum of the flipped +-1 differences is the same binomial count
    if b + c <= 20:
        assert rep.tests["permutation"].pvalue == pytest.approx(want, rel=1e-12)
    assert rep.binary and any("pass/fail" in w for w in rep.warnings)


@pytest.mark.parametrize(("a", "b", "c", "d"), [(157, 17, 3, 23), (10, 5, 2, 10), (2, 9, 3, 6)])
def test_t_interval_is_the_wald_interval_widened_by_t_over_z_and_ddof(a, b, c, d) -> None:
    n = a + b + c + d
    sa = np.array([1] * (a + b) + [0] * (c + d))
    sb = np.array([1] * a + [0] * b + [1] * c + [0] * d)
    rep = _rep(sa, sb, confidence_level=0.9)
    wald = difference_interval(a, b, c, d, method="wald",
                               confidence_level=0.9)
    low, high = rep.intervals["t"]
    assert (low + high) / 2 == pytest.approx((wald.low + wald.high) / 2, abs=1e-14)
    assert rep.difference == pytest.approx((b - c) / n, abs=1e-15)
    ratio = stats.t.ppf(0.95, n - 1) / stats.norm.ppf(0.95) * math.sqrt(n / (n - 1))
    assert (high - low) / (wald.high - wald.low) == pytest.approx(ratio, rel=1e-12)
    # Var(d) with ddof 0 is (b + c)/n - ((b - c)/n)^2 (Miller 2024)
    var0 = rep.sd_difference**2 * (n - 1) / n
    assert var0 == pytest.approx((b + c) / n - ((b - c) / n) ** 2, rel=1e-12)


# -- properties ----------------------------------------------------------------------------------
score_lists = st.integers(2, 40).flatmap(lambda n: st.tuples(
    st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.5, 7.0, -1.25]), min_size=n, max_size=n),
    st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.5, 7.0, -1.25]), min_size=n, max_size=n),
))


@settings(max_examples=30, deadline=None)
@given(score_lists)
def test_two_sided_pvalues_do_not_change_when_a_and_b_swap(pair) -> None:
    a, b = pair
    ab = _rep(a, b, n_resamples=200, random_state=1)
    ba = _rep(b, a, n_resamples=200, random_state=1)
    for key in ("t", "wilcoxon", "sign", "permutation"):
        assert ab.tests[key].pvalue == pytest.approx(ba.tests[key].pvalue, rel=1e-9, abs=1e-15)
    assert ab.difference == -ba.difference
    assert ab.unpaired.pvalue == pytest.approx(ba.unpaired.pvalue, rel=1e-9)
    assert (ab.higher_a, ab.equal, ab.higher_b) == (ba.higher_b, ba.equal, ba.higher_a)
    for key in ("greater", "less"):
        flipped = {"greater": "less", "less": "greater"}[key]
        assert _rep(a, b, alternative=key, n_resamples=200).tests["t"].pvalue == pytest.approx(
            _rep(b, a, alternative=flipped, n_resamples=200).tests["t"].pvalue, rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(score_lists, st.sampled_from([0.5, 3.0, -2.25, 100.0]), st.floats(0.5, 0.999))
def test_intervals_contain_their_estimates_and_a_shift_moves_them(pair, shift, level) -> None:
    a, b = (np.array(x) for x in pair)
    rep = _rep(a, b, confidence_level=level, n_resamples=300)
    low, high = rep.intervals["t"]
    if math.isfinite(low):
        assert low <= rep.difference <= high
    hl = rep.intervals["hodges-lehmann"]
    assert hl.low <= rep.hodges_lehmann <= hl.high
    moved = _rep(a + shift, b, confidence_level=level, n_resamples=300)
    assert moved.difference == pytest.approx(rep.difference + shift, abs=1e-9)
    assert moved.mean_a == pytest.approx(rep.mean_a + shift, abs=1e-9)
    if math.isfinite(low):
        assert moved.intervals["t"].low == pytest.approx(low + shift, abs=1e-9)
        assert moved.intervals["t"].high == pytest.approx(high + shift, abs=1e-9)
        assert moved.sd_difference == pytest.approx(rep.sd_difference, rel=1e-9, abs=1e-12)
    assert moved.hodges_lehmann == pytest.approx(rep.hodges_lehmann + shift, abs=1e-9)


# -- epochs, 2-D, validation ---------------------------------------------------------------------
def test_epochs_use_item_means_and_decompose_the_variance() -> None:
    rng = np.random.default_rng(5)
    items, k = 40, 4
    truth = rng.normal(0, 1, items)
    item = np.repeat(np.arange(items), k)
    a = truth[item] + 0.2 + rng.normal(0, 0.8, items * k)
    b = truth[item] + rng.normal(0, 0.5, items * k)
    rep = _rep(a, b, item=item)
    means_a, means_b = a.reshape(items, k).mean(axis=1), b.reshape(items, k).mean(axis=1)
    plain = _rep(means_a, means_b)
    assert rep.n == items
    assert rep.tests["t"].pvalue == pytest.approx(plain.tests["t"].pvalue, rel=1e-12)
    e = rep.epochs
    assert e is not None and e.samples == items * k and e.samples_per_item == k
    # one-way ANOVA within mean squares
    want_a = ((a.reshape(items, k) - means_a[:, None]) ** 2).sum() / (items * (k - 1))
    assert e.within_a == pytest.approx(want_a, rel=1e-12)
    d = means_a - means_b
    omega = d.var(ddof=1) - (e.within_a + e.within_b) / k
    assert e.between_difference == pytest.approx(max(0.0, omega), rel=1e-12)
    assert e.standard_error_at[k if k in e.standard_error_at else 1] > 0
    assert e.standard_error == pytest.approx(d.std(ddof=1) / math.sqrt(items))
    assert e.standard_error_at[0] <= e.standard_error_at[10] <= e.standard_error_at[1]
    assert "Each item was scored 4 times" in str(rep)
    with pytest.raises(McNemarError, match="one label per row"):
        _rep(a, b, item=item[:-1])


def test_two_dimensional_input_gives_one_report_per_column_pair() -> None:
    rng = np.random.default_rng(9)
    a = rng.normal(size=(30, 3))
    b = a + rng.normal(0.1, 1, (30, 3))
    reps = _rep(a, b)
    assert len(reps) == 3
    for j, rep in enumerate(reps):
        one = _rep(a[:, j], b[:, j])
        for key in ("t", "wilcoxon", "sign"):
            assert rep.tests[key].pvalue == pytest.approx(one.tests[key].pvalue, rel=1e-12)
        assert rep.difference == pytest.approx(one.difference, rel=1e-12)


def test_invalid_arguments_name_themselves() -> None:
    for kwargs, argument in [({"alternative": "bigger"}, "alternative"),
                             ({"zero_method": "zsplit"}, "zero_method"),
                             ({"confidence_level": 95}, "confidence_level"),
                             ({"n_resamples": 0}, "n_resamples"),
                             ({"random_state": "x"}, "random_state")]:
        with pytest.raises(McNemarError) as err:
            _rep([1, 2, 3], [2, 2, 2], **kwargs)
        assert err.value.argument == argument
    with pytest.raises(McNemarError) as err:
        _rep([1, 2, float("nan")], [1, 2, 3])
    assert err.value.argument == "scores_a"
    with pytest.raises(McNemarError, match="same shape"):
        _rep([1, 2, 3], [1, 2])
    with pytest.raises(McNemarError, match="at least 2 items"):
        _rep([1], [2])


def test_degenerate_data_is_not_an_error() -> None:
    same = _rep([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    assert all(same.tests[k].pvalue == 1.0 for k in ("t", "wilcoxon", "sign", "permutation"))
    assert same.conclusion.headline == "A and B scored the same on every item"
    shifted = _rep([2.0, 3.0, 4.0, 5.0], [1.0, 2.0, 3.0, 4.0])
    assert shifted.tests["t"].pvalue == 0.0 and math.isinf(shifted.tests["t"].statistic)
    assert shifted.to_dict()["tests"]["t"]["statistic"] is None


def test_large_inputs_skip_the_resampling_and_say_so() -> None:
    rng = np.random.default_rng(0)
    a = rng.normal(size=300_000)
    rep = _rep(a + 0.01, a + rng.normal(0, 0.1, a.size))
    assert math.isnan(rep.tests["permutation"].pvalue) and "bootstrap" not in rep.intervals
    assert rep.recommended == "t"
    assert any("not computed" in w for w in rep.warnings)
    assert rep.hodges_lehmann is None
    assert rep.to_dict()["tests"]["permutation"]["pvalue"] is None


@pytest.mark.parametrize(("n", "noise"), [(60, 0.05), (400, 0.02)])
def test_far_tail_pvalues_against_mpmath(n: int, noise: float) -> None:
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 60
    rng = np.random.default_rng(12)
    b = rng.normal(size=n)
    a = b + 1.0 + rng.normal(0, noise, n)  # t in the hundreds: p down to 1e-80 and 1e-1000
    rep = _rep(a, b, alternative="greater", n_resamples=100)
    t = rep.tests["t"]
    df = n - 1
    # P(T > t) = I_{df / (df + t^2)}(df / 2, 1/2) / 2
    x = mpmath.mpf(df) / (df + mpmath.mpf(t.statistic) ** 2)
    want = mpmath.log10(mpmath.betainc(df / 2, 0.5, 0, x, regularized=True) / 2)
    assert t.log10_pvalue == pytest.approx(float(want), rel=1e-8)
    # the signed-rank normal approximation: every difference positive (n > 50: normal)
    w = rep.tests["wilcoxon"]
    z = (n * (n + 1) / 2 - n * (n + 1) / 4) / math.sqrt(n * (n + 1) * (2 * n + 1) / 24)
    want_w = mpmath.log10(mpmath.erfc(mpmath.mpf(z) / mpmath.sqrt(2)) / 2)
    assert w.log10_pvalue == pytest.approx(float(want_w), rel=1e-12)
    assert "p = 0 " not in str(rep)


def test_two_dimensional_input_with_epochs_and_clusters() -> None:
    rng = np.random.default_rng(3)
    item = np.repeat(np.arange(30), 2)
    cluster = item // 3
    a = rng.normal(size=(60, 2))
    b = a + rng.normal(0.2, 1, (60, 2))
    reps = _rep(a, b, item=item, cluster=cluster)
    for j, rep in enumerate(reps):
        one = _rep(a[:, j], b[:, j], item=item, cluster=cluster)
        assert rep.n == 30 and rep.clusters == 10 and rep.epochs is not None
        assert rep.standard_error == pytest.approx(one.standard_error, rel=1e-12)
        assert rep.tests["t"].df == 9
    with pytest.raises(McNemarError, match="same cluster"):
        _rep(a[:, 0], b[:, 0], item=item, cluster=np.arange(60))
