"""``mcnemar power``: power, sample size and minimum detectable effect.

Three questions, chosen by the options given:

* ``--n`` with the discordant probabilities: the power of the test with that many items;
* the discordant probabilities without ``--n``: the items needed for the target ``--power``;
* ``--mde`` with ``--n`` and ``--discordance``: the smallest difference in accuracy the test
  detects with the target power.

The discordant probabilities are ``--p10`` (A right, B wrong) and ``--p01`` (the reverse), or
``--difference`` (accuracy of A minus accuracy of B) with ``--discordance`` (``p10 + p01``).
Everything statistical is in :mod:`mcnemar.planning`.
"""

from __future__ import annotations

from typing import Any

import click

from mcnemar import vocabulary
from mcnemar.cli._common import command, emit, handle_errors
from mcnemar.cli._options import FORMAT_OPTION, alpha_option, alternative_option
from mcnemar.errors import McNemarError

__all__ = ["power"]


@command(
    "power",
    (
        "\b\nExamples:\n"
        "  mcnemar power --p10 0.06 --p01 0.04                 # items for 80% power\n"
        "  mcnemar power --n 2000 --difference 0.02 --discordance 0.1\n"
        "  mcnemar power --mde --n 500 --discordance 0.12      # what could 500 items detect?\n"
        "  mcnemar power --difference 0 --discordance 0.1 --margin 0.01  # within 1 point?\n"
        "  mcnemar power --difference 0.5 --sd 2                # scores: the paired t test\n"
        "\nExit status: 0 on success, 2 for bad input (one line on stderr)."
    ),
)
@click.option("--n", "n", type=int, multiple=True, metavar="ITEMS",
              help="Number of items: compute the power at this n (repeat for several), or the "
                   "minimum detectable effect with --mde. Without it, the sample size is "
                   "solved for.")
@click.option("--p10", type=float, default=None,
              help="Probability that A is right and B wrong on an item.")
@click.option("--p01", type=float, default=None,
              help="Probability that A is wrong and B right on an item.")
@click.option("--difference", type=float, default=None,
              help="Instead of --p10/--p01: accuracy(A) - accuracy(B), e.g. 0.02 for 2 points.")
@click.option("--discordance", type=float, default=None,
              help="With --difference or --mde: probability that the systems disagree on an "
                   "item (p10 + p01).")
@alpha_option("Significance level of the test.")
@click.option("--power", "target", type=float, default=None,
              help="Target power for the sample size or --mde (default 0.8).")
@alternative_option("greater: H1 is that A is more accurate than B.")
@click.option("--method", type=click.Choice(vocabulary.names(vocabulary.POWER_METHODS)),
              default="exact", show_default=True,
              help="Test whose power is computed (exactly); connor = Connor's (1987) normal "
                   "approximation.")
@click.option("--margin", type=float, default=None, metavar="PROPORTION",
              help="Plan a non-inferiority test instead: Tango's test that A is not worse than "
                   "B by this margin (0.01 = 1 point), one-sided at --alpha; --method exact "
                   "(exact enumeration) or connor (normal approximation).")
@click.option("--sd", type=float, default=None,
              help="Plan the paired t test of scores that are not pass/fail: the standard "
                   "deviation of the per-item differences A - B (with --difference in score "
                   "units); or give --sd-a, --sd-b and --correlation.")
@click.option("--sd-a", "sd_a", type=float, default=None, help="With --sd-b and --correlation: "
              "the standard deviation of A's scores.")
@click.option("--sd-b", "sd_b", type=float, default=None, help="The standard deviation of B's "
              "scores.")
@click.option("--correlation", type=float, default=None,
              help="The correlation of A's and B's scores over the items.")
@click.option("--t-method", "t_method",
              type=click.Choice(vocabulary.names(vocabulary.SCORE_POWER_METHODS)),
              default="noncentral-t", show_default=True,
              help="The paired t test's power: exact (noncentral t) or the normal "
                   "approximation (both are shown).")
@click.option("--mde", is_flag=True, default=False,
              help="Minimum detectable difference for --n and --discordance.")
@FORMAT_OPTION
@handle_errors
def power(
    n: tuple[int, ...],
    p10: float | None,
    p01: float | None,
    difference: float | None,
    discordance: float | None,
    alpha: float,
    target: float | None,
    alternative: str,
    method: str,
    margin: float | None,
    sd: float | None,
    sd_a: float | None,
    sd_b: float | None,
    correlation: float | None,
    t_method: str,
    mde: bool,
    fmt: str,
) -> None:
    """Power, sample size or minimum detectable effect of McNemar's test (or, with --sd, of
    the paired t test of scores)."""
    from mcnemar import planning

    if any(x is not None for x in (sd, sd_a, sd_b, correlation)):
        emit(_paired_t(n, p10, p01, difference, discordance, alpha, target, alternative,
                       margin, mde, sd=sd, sd_a=sd_a, sd_b=sd_b, correlation=correlation,
                       method=t_method), fmt)
        return

    n_arg: Any = None
    if n:
        n_arg = n[0] if len(n) == 1 else list(n)
    if mde and margin is not None:
        raise McNemarError("--mde is not available with --margin; use --n for the power or leave "
                           "out --n for the sample size")
    if mde:
        if not n:
            raise McNemarError("--mde needs --n (the number of items) and --discordance")
        if discordance is None:
            raise McNemarError(
                "--mde needs --discordance: the probability that the systems disagree on an "
                "item (the observed share of discordant items, D/n)"
            )
        if p10 is not None or p01 is not None or difference is not None:
            raise McNemarError(
                "--mde solves for the difference: give only --n and --discordance (not --p10, "
                "--p01 or --difference)"
            )
        result: Any = planning.minimum_detectable_effect(
            n_arg, discordance, power=0.8 if target is None else target, alpha=alpha,
            alternative=alternative, method=method,
        )
    elif n:
        if target is not None:
            raise McNemarError(
                "--power is the target for a sample size (leave out --n) or for --mde; with "
                "--n the power is what gets computed"
            )
        result = planning.power(
            n_arg, p10, p01, difference=difference, discordance=discordance, alpha=alpha,
            alternative=alternative, method=method, margin=margin,
        )
    else:
        result = planning.sample_size(
            p10, p01, difference=difference, discordance=discordance,
            power=0.8 if target is None else target, alpha=alpha, alternative=alternative,
            method=method, margin=margin,
        )
    emit(result, fmt)


def _paired_t(n: tuple[int, ...], p10: float | None, p01: float | None,
              difference: float | None, discordance: float | None, alpha: float,
              target: float | None, alternative: str, margin: float | None, mde: bool,
              **spread: Any) -> Any:
    """``--sd``: the paired t test's power (--n), sample size, or detectable difference."""
    from mcnemar import planning

    if p10 is not None or p01 is not None or discordance is not None or margin is not None:
        raise McNemarError("--sd plans the paired t test of scores: give --difference (in score "
                           "units), not --p10, --p01, --discordance or --margin")
    if len(n) > 1:
        raise McNemarError("--sd takes one --n")
    power = 0.8 if target is None else target
    if mde:
        if not n or difference is not None:
            raise McNemarError("--mde with --sd needs --n and solves for the difference (leave "
                               "out --difference)")
        return planning.t_detectable_difference(n[0], power=power, alpha=alpha,
                                                alternative=alternative, **spread)
    if difference is None:
        raise McNemarError("--sd needs --difference: the mean difference A - B to plan for")
    if n:
        if target is not None:
            raise McNemarError("--power is the target for a sample size; with --n the power is "
                               "what gets computed")
        return planning.t_power(n[0], difference, alpha=alpha, alternative=alternative,
                                **spread)
    return planning.t_sample_size(difference, power=power, alpha=alpha,
                                  alternative=alternative, **spread)
