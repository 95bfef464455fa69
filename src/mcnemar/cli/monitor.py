"""``mcnemar monitor``: replay two runs item by item with the anytime-valid sequential test.

The command only translates: files -> :func:`mcnemar.io.read_run` -> :func:`mcnemar.io.align`
(the same reading and pairing as ``mcnemar compare``) -> the items in run A's log order, or
sorted by a field (``--order``) -> :func:`mcnemar.sequential.sequential` -> text, markdown or
JSON, and optionally a plot of the e-value over items (:func:`mcnemar.plotting.eprocess`).
"""

from __future__ import annotations

import textwrap
from typing import Any

import click
import numpy as np

from mcnemar import vocabulary
from mcnemar.cli._common import command, emit, handle_errors
from mcnemar.cli._options import (
    FORMAT_OPTION,
    REDUCE_PER_ITEM,
    InputFormatChoice,
    alpha_option,
    alternative_option,
    names_option,
    split_pair,
)
from mcnemar.errors import McNemarError

__all__ = ["monitor"]




def _prior(prior: str | None, effect: float | None) -> Any:
    if prior is not None and effect is not None:
        raise McNemarError("give --prior or --effect, not both")
    if effect is not None:
        return effect
    if prior is None:
        return None
    parts = split_pair(prior, "--prior") or ("", "")
    try:
        return (float(parts[0]), float(parts[1]))
    except ValueError:
        raise McNemarError(f"--prior takes two numbers ALPHA0,BETA0; got {prior!r}") from None


def _order(values: np.ndarray, field: str) -> np.ndarray:
    """Stable order of the items by their ``field`` values: as numbers if every value is one
    (ids 1, 2, 10 in numeric order), otherwise as text (ISO timestamps sort as text)."""
    text = [str(v) for v in values.tolist()]
    missing = [i for i, v in enumerate(text) if v in ("", "None", "nan")]
    if missing:
        raise McNemarError(f"--order {field}: {len(missing)} items have no value for {field!r}")
    try:
        numbers = np.array([float(v) for v in text])
    except ValueError:
        return np.argsort(np.array(text, dtype=object), kind="stable")
    if not np.all(np.isfinite(numbers)):
        raise McNemarError(f"--order {field}: the values must be finite numbers or text")
    return np.argsort(numbers, kind="stable")


def _text(result: Any, names: tuple[str, str], order_words: str) -> str:
    na, nb = names
    lines = [f"Anytime-valid monitoring: {na} (A) vs {nb} (B), {result.n} items {order_words}.",
             ""]
    lines += str(result).split("\n")
    if result.stopped_at is not None:
        k = result.stopped_at - 1
        b, c = int(result.only_a_path[k]), int(result.only_b_path[k])
        better = na if b > c else nb
        lines.append(
            f"  At that point {na} was right and {nb} wrong on {b} items, the reverse on {c}: "
            f"{better} did better, and the test's false-positive rate stays at most "
            f"{result.alpha:g} however often the e-value was looked at."
        )
    ci = result.confidence_interval()
    th = result.theta_interval()
    level = f"{1 - result.alpha:.0%}"
    lines.append(
        f"  Share of the disagreements won by {na} after all {result.n} items: "
        f"{result.b}/{result.b + result.c}; {level} confidence sequence (valid at every item; "
        f"it excludes 1/2 exactly when the two-sided test has rejected) {th.low:.4f} to "
        f"{th.high:.4f}."
    )
    lines.append(
        f"  Difference in accuracy {na} - {nb}: "
        f"{100.0 * (result.b - result.c) / result.n:+.2f} points; {level} confidence sequence "
        f"{100.0 * ci.low:+.2f} to {100.0 * ci.high:+.2f} points (it spends half of alpha on "
        "the discordance rate, so it is wider than the test)."
    )
    return "\n".join(textwrap.fill(x, width=100, subsequent_indent="    ") if x.startswith("  ")
                     else textwrap.fill(x, width=100, subsequent_indent="  ") for x in lines)


def _markdown(result: Any, names: tuple[str, str], order_words: str) -> str:
    na, nb = names
    ci = result.confidence_interval()
    stop = "never (did not reach 1/alpha)" if result.stopped_at is None else \
        f"after item {result.stopped_at}"
    rows = [
        ("items", f"{result.n} ({order_words})"),
        (f"{na} right, {nb} wrong / the reverse", f"{result.b} / {result.c}"),
        ("final e-value", f"{10.0 ** result.log10_evalue:.4g}" if result.log10_evalue < 300
         else f"10^{result.log10_evalue:.1f}"),
        ("anytime-valid p", f"{result.pvalue:.4g}"),
        (f"could stop (e-value >= {1 / result.alpha:g})", stop),
        ("items saved", f"{result.items_saved}"),
        (f"{1 - result.alpha:.0%} confidence sequence for the difference",
         f"{100.0 * ci.low:+.2f} to {100.0 * ci.high:+.2f} points"),
    ]
    out = [f"### Anytime-valid monitoring: {na} vs {nb}", "", "| | |", "|---|---|"]
    out += [f"| {k} | {v} |" for k, v in rows]
    return "\n".join(out) + "\n"


@command(
    "monitor",
    """\b
Examples:
  mcnemar monitor new.jsonl old.jsonl
  mcnemar monitor new.csv old.csv --id item --score passed --order timestamp
  mcnemar monitor new.eval old.eval --plot evalue.png --format markdown

\b
Exit codes: 0 done; 2 bad input or runs that cannot be paired (one line on
stderr); 1 internal error.""",
)
@click.argument("runs", nargs=-1, metavar="RUN_A RUN_B")
@click.option("--input-format", "input_format", type=InputFormatChoice(), default="auto",
              show_default=True, help="Format of the run files (detected from content).")
@click.option("--id", "id_columns", multiple=True,
              help="Item id column of CSV/JSONL/Parquet files (repeat for a composite id).")
@click.option("--score", help="Score column, metric, scorer, data field or stat (as for "
                              "compare).")
@click.option("--filter", "filter_name", help="lm-eval: the filter to keep (e.g. strict-match).")
@click.option("--value-key", help="Inspect: key of a scorer's named values.")
@click.option("--perturbation", help="HELM: perturbation to keep.")
@click.option("--sample", help="Column numbering repeated samples of an item (generic files).")
@click.option("--on-missing", type=click.Choice(vocabulary.names(vocabulary.ON_MISSING)),
              default="error",
              show_default=True, help="Items present in one run only: refuse, or drop them.")
@click.option("--threshold", type=float, help="Count score >= THRESHOLD as a pass.")
@click.option("--reduce", type=click.Choice(REDUCE_PER_ITEM),
              help="Combine several samples (epochs) of an item.")
@click.option("--order", "order_field",
              help="Order the items by this field of RUN_A's records (a column, an Inspect "
                   "metadata key or an lm-eval doc field; numbers numerically, otherwise as "
                   "text) instead of RUN_A's log order.")
@names_option("Display names A,B (default: model names from the files).")
@alternative_option("greater: A (candidate) is more accurate than B (baseline).")
@alpha_option("Level: the test stops once the e-value reaches 1/alpha.")
@click.option("--prior", help="Beta prior ALPHA0,BETA0 of the mixture (default 4,4).")
@click.option("--effect", type=float,
              help="Plan the prior for this share of discordant items won by A (e.g. 0.65).")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False, path_type=str),
              default=None, help="Draw the e-value over items to this .png/.svg/.pdf file.")
@FORMAT_OPTION
@handle_errors
def monitor(
    runs: tuple[str, ...],
    input_format: str,
    id_columns: tuple[str, ...],
    score: str | None,
    filter_name: str | None,
    value_key: str | None,
    perturbation: str | None,
    sample: str | None,
    on_missing: str,
    threshold: float | None,
    reduce: str | None,
    order_field: str | None,
    names: str | None,
    alternative: str,
    alpha: float,
    prior: str | None,
    effect: float | None,
    plot_path: str | None,
    fmt: str,
) -> None:
    """Where could the eval of RUN_A (candidate) against RUN_B (baseline) have stopped?

    Pairs the two runs' items as 'mcnemar compare' does, replays them in RUN_A's log order
    (or by --order FIELD) and runs the anytime-valid sequential test, whose false-positive
    rate stays at most alpha however often it is looked at: prints where the e-value first
    reached 1/alpha, the items that stopping there would have saved, and the confidence
    sequence for the difference.
    """
    from mcnemar.pipeline import display_names, pair_runs, read_runs
    from mcnemar.sequential import sequential

    if len(runs) != 2:
        raise McNemarError(f"monitor takes two run files RUN_A RUN_B; got {len(runs)}")
    ids: Any = None
    if id_columns:
        ids = id_columns[0] if len(id_columns) == 1 else list(id_columns)
    try:
        # The order field is read from RUN_A as compare reads a cluster field.
        run_a, run_b = read_runs(
            runs, format=input_format,
            options_a={"cluster": order_field} if order_field is not None else None,
            id=ids, score=score, filter=filter_name, value_key=value_key,
            perturbation=perturbation, sample=sample)
    except McNemarError as exc:
        if order_field is None:
            raise
        message = str(exc).replace("cluster column", "--order column")
        raise McNemarError(message.replace("cluster field", "--order field")) from None
    # The per-item outcomes are needed in order, so the pairing runs in numpy even for
    # files that compare would count inside DuckDB.
    alignment = pair_runs(run_a, run_b, on_missing=on_missing, threshold=threshold,
                          reduce=reduce, engine="numpy")
    if alignment.correct_a is None or alignment.correct_b is None:
        raise McNemarError("monitor needs the per-item outcomes of both runs")
    correct_a, correct_b = alignment.correct_a, alignment.correct_b
    if order_field is not None:
        if alignment.clusters is None:
            raise McNemarError(f"--order {order_field}: the field was not found in {runs[0]}")
        idx = _order(alignment.clusters, order_field)
        correct_a, correct_b = correct_a[idx], correct_b[idx]
        order_words = f"ordered by {order_field}"
    else:
        order_words = f"in the log order of {run_a.name}"
    display = display_names(alignment, split_pair(names, "--names"))
    result = sequential(correct_a, correct_b, alpha=alpha, alternative=alternative,
                        prior=_prior(prior, effect))
    if plot_path is not None:
        from mcnemar.plotting import eprocess

        eprocess(result, plot_path, names=display)
    emit(
        result,
        fmt,
        document=lambda: {
            "names": {"a": display[0], "b": display[1]},
            "order": order_field,
            "sequential": result.to_dict(),
            "alignment": alignment.to_dict(),
        },
        markdown=lambda: _markdown(result, display, order_words),
        text=lambda: _text(result, display, order_words),
    )
