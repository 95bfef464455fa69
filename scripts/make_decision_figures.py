"""Make the figures and tables of docs/decisions.md ("Stop the eval early", "How likely is a
real gain?"), so that none is pasted by hand.

Usage: ``python scripts/make_decision_figures.py`` (needs the ``plot`` extra: matplotlib).
Writes ``docs/img/sequential-h0.png``, ``docs/img/sequential-eprocess.png`` and
``docs/img/bayes-posterior.png``, and prints the numbers the page quotes as markdown.

* **Peeking under H0** (seeded simulation): 10,000 pairs of runs of 1,000 items each, equally
  accurate systems that disagree on 30% of the items. After every item, (a) the exact McNemar
  test, stopping at the first p < 0.05, and (b) the anytime-valid sequential test, stopping
  at the first e-value >= 20. The figure shows the fraction of runs that have (falsely)
  declared a difference by each item.
* **One monitored eval** (seeded): a candidate right on 80% of items, a baseline on 70%, the
  e-value over 600 items as ``mcnemar monitor --plot`` draws it.
* **The default prior**: expected discordant items to stop, by exact dynamic programming
  (:func:`mcnemar.stopping.stopping_time`), for Beta(a, a) priors.
* **Stopping times vs the fixed-n test** at a few effects.
* **The posterior of the difference** for the 200-item example with its ROPE.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
IMG = ROOT / "docs" / "img"
sys.path.insert(0, str(ROOT / "src"))

from mcnemar import PairedTable, mcnemar  # noqa: E402
from mcnemar.bayes import bayes  # noqa: E402
from mcnemar.plotting import _figure_class, eprocess  # noqa: E402
from mcnemar.sequential import log_evalue, sequential  # noqa: E402
from mcnemar.stopping import _stopping_distribution, stopping_time  # noqa: E402


def peeking_under_h0(runs: int = 10_000, items: int = 1_000, psi: float = 0.3) -> None:
    rng = np.random.default_rng(20261130)
    alpha = 0.05
    naive_first = np.full(runs, np.inf)
    anytime_first = np.full(runs, np.inf)
    final_only = 0
    block = 500
    for start in range(0, runs, block):
        u = rng.random((block, items))
        only_a = np.cumsum(u < psi / 2, axis=1)
        only_b = np.cumsum((u >= psi / 2) & (u < psi), axis=1)
        p = np.asarray(mcnemar(PairedTable(b=only_a, c=only_b)).pvalue)
        hit = p < alpha
        naive_first[start:start + block] = np.where(hit.any(axis=1), hit.argmax(axis=1) + 1,
                                                    np.inf)
        final_only += int(hit[:, -1].sum())
        e_hit = log_evalue(only_a, only_b) >= math.log(1 / alpha)
        anytime_first[start:start + block] = np.where(e_hit.any(axis=1),
                                                      e_hit.argmax(axis=1) + 1, np.inf)
    t = np.arange(1, items + 1)
    naive_rate = (naive_first[:, None] <= t).mean(axis=0)
    anytime_rate = (anytime_first[:, None] <= t).mean(axis=0)
    se = math.sqrt(alpha * (1 - alpha) / runs)
    print("### Peeking under H0")
    print(f"{runs} runs x {items} items, discordance {psi}, seed 20261130")
    print("| looks | naive McNemar (stop at p < 0.05) | anytime-valid (stop at E >= 20) |")
    print("|---:|---:|---:|")
    for k in (10, 50, 100, 250, 500, 1000):
        print(f"| after every item up to {k} | {naive_rate[k - 1]:.3f} | "
              f"{anytime_rate[k - 1]:.4f} |")
    print(f"one look at item {items}: exact McNemar rejects {final_only / runs:.4f}")
    print(f"standard error of a rate near 0.05: {se:.4f}")

    figure_class, canvas_class = _figure_class()
    fig = figure_class(figsize=(7.0, 3.8), dpi=110, layout="constrained")
    ax = fig.add_subplot()
    ax.plot(t, naive_rate, color="tab:red", linewidth=1.6,
            label="McNemar after every item, stop at p < 0.05")
    ax.plot(t, anytime_rate, color="tab:blue", linewidth=1.6,
            label="anytime-valid, stop at e-value >= 20")
    ax.axhline(alpha, color="0.3", linestyle="--", linewidth=1, label="alpha = 0.05")
    ax.set_xlabel("items scored (a look after every item)")
    ax.set_ylabel("runs that declared a difference")
    ax.set_title(f"Equally accurate systems: false positives while peeking ({runs:,} runs)",
                 fontsize=10)
    ax.set_xlim(0, items)
    ax.set_ylim(0, max(0.3, float(naive_rate[-1]) + 0.03))
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    ax.grid(color="0.92")
    canvas_class(fig)
    fig.savefig(IMG / "sequential-h0.png", dpi=110)


def one_eval() -> None:
    rng = np.random.default_rng(7)
    xa = rng.random(600) < 0.8
    xb = rng.random(600) < 0.7
    res = sequential(xa, xb)
    eprocess(res, IMG / "sequential-eprocess.png", names=("candidate", "baseline"), dpi=110)
    print("### One monitored eval (seed 7)")
    print(res)
    ci = res.confidence_interval()
    print(f"difference {100 * (res.b - res.c) / res.n:+.2f} points, confidence sequence "
          f"{100 * ci.low:+.2f} to {100 * ci.high:+.2f}")


def prior_table() -> None:
    grid = (0.5, 1, 2, 3, 4, 5, 6, 8, 12, 16, 32)
    print("### Expected discordant items to stop, two-sided, alpha = 0.05")
    print("| theta | " + " | ".join(f"a = {a:g}" for a in grid) + " |")
    print("|---|" + "---:|" * len(grid))
    for theta in (0.6, 0.65, 0.7, 0.75):
        row = []
        for a in grid:
            m, p = _stopping_distribution(theta, "two-sided", (a, a), 0.05, 200_000)
            row.append(float(m @ p) / float(p.sum()))
        best = min(row)
        cells = [f"**{v:.1f}**" if v == best else f"{v:.1f}" for v in row]
        print(f"| {theta} | " + " | ".join(cells) + " |")


def stopping_vs_fixed() -> None:
    print("### Items to stop vs the fixed-n exact test (80% power), two-sided, alpha = 0.05")
    print("| p10 | p01 | difference | expected items | median | 80% stopped by | "
          "fixed n (80% power) |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for p10, p01 in ((0.15, 0.05), (0.12, 0.08), (0.06, 0.04), (0.10, 0.05)):
        r = stopping_time(p10, p01)
        print(f"| {p10} | {p01} | {100 * (p10 - p01):+.0f} points | {r.expected_items:.0f} | "
              f"{r.quantiles[0.5]} | {r.quantiles[0.8]} | {r.fixed_n} |")


def posterior_figure() -> None:
    t = PairedTable(a=157, b=17, c=3, d=23)
    res = bayes(t, rope=0.01)
    print("### Bayesian summary of the 200-item example, rope 1 point")
    print(res)
    # The density of delta as the derivative of its distribution function, itself computed
    # by the same quadrature: P(delta <= x) = 1 - P(delta > x) for x >= 0 and
    # P(delta < x) for x < 0.
    xs = np.linspace(-0.04, 0.20, 241)
    cdf = np.array([1.0 - bayes(t, rope=x).prob_a_better if x >= 0 else
                    bayes(t, rope=-x).prob_b_better for x in xs])
    dens = np.gradient(cdf, xs)
    figure_class, canvas_class = _figure_class()
    fig = figure_class(figsize=(7.0, 3.4), dpi=110, layout="constrained")
    ax = fig.add_subplot()
    ax.plot(100 * xs, dens / 100, color="tab:blue", linewidth=1.6)
    ax.fill_between(100 * xs, dens / 100, where=xs > 0.01, color="tab:blue", alpha=0.25,
                    label=f"A better by > 1 point: {res.prob_a_better:.3f}")
    ax.axvspan(-1, 1, color="0.85", label=f"ROPE ±1 point: {res.prob_equivalent:.3f}")
    ax.set_xlabel("difference in accuracy, candidate - baseline (points)")
    ax.set_ylabel("posterior density (per point)")
    ax.set_title("Posterior of the difference, 200-item example, Dirichlet(1, 1, 1, 1) prior",
                 fontsize=10)
    ax.legend(loc="upper right", fontsize=8, frameon=False)
    ax.set_ylim(bottom=0)
    ax.grid(color="0.92")
    canvas_class(fig)
    fig.savefig(IMG / "bayes-posterior.png", dpi=110)


def main() -> None:
    IMG.mkdir(parents=True, exist_ok=True)
    peeking_under_h0()
    one_eval()
    prior_table()
    stopping_vs_fixed()
    posterior_figure()


if __name__ == "__main__":
    main()
