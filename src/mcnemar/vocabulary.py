"""The words of the interfaces, defined once: every choice an argument takes, its label and source.

Each quantity the library lets a user choose is a tuple of :class:`Term`, in the order
reports and menus list them. A term is its machine ``name`` (what a keyword argument, a CLI
flag, a JSON field and the web form take), a ``label`` for a sentence or a table row, a
``short`` label for a chart or a narrow column, and the ``reference`` it follows (author, year
and, where the paper numbers its methods, the method), or ``""`` for a choice that follows
no publication.

| tuple | names (what `names(...)` returns) | argument |
|---|---|---|
| :data:`ALTERNATIVES` | two-sided, greater, less | `alternative` |
| :data:`TESTS` | exact, midp, asymptotic, corrected, unconditional | `method` |
| :data:`DIFFERENCE_INTERVALS` | wald, wald-cc, agresti-min, bonett-price, newcombe, | `method` |
| | newcombe-plain, tango, exact | |
| :data:`RATIO_INTERVALS` | wald, tang, bonett-price, mover-wilson | `method` |
| :data:`ODDS_RATIO_INTERVALS` | exact, midp, wilson, wald, wald-laplace | `method` |
| :data:`ADJUSTMENTS` | holm, bonferroni, bh, none | `adjust` |
| :data:`CLUSTERED_METHODS` | obuchowski, durkalski, yang, eliasziw-donner | `cluster_method` |
| :data:`MARGIN_METHODS` | score, unconditional | `margin_method` |
| :data:`POWER_METHODS` | exact, midp, asymptotic, connor | `method` |
| :data:`REDUCE` | mean, majority, first, cluster | `reduce` |
| :data:`ON_MISSING` | error, intersect | `on_missing` |
| :data:`ON_ERROR` | missing, fail | `on_error` |
| :data:`FAIL_ON` | worse, worse-any, different, inferior | `--fail-on` |
| :data:`PLOT_KINDS` | auto, heatmap, forest | `--plot-kind` |
| :data:`OUTPUT_FORMATS` | text, markdown, json | `--format` |
| :data:`COMPARE_FORMATS` | text, markdown, json, github | `compare --format` |
| :data:`SCORE_TESTS` | t, wilcoxon, sign, permutation | `analyze_scores` tests |
| :data:`SCORE_INTERVALS` | t, bootstrap, hodges-lehmann | `analyze_scores` intervals |
| :data:`ZERO_METHODS` | wilcox, pratt | `zero_method` |
| :data:`SCORE_POWER_METHODS` | noncentral-t, normal | `method` (paired t planning) |
| :data:`ANALYSES` | scores, pass-fail | `--analysis` |
| :func:`input_formats` | the readers' formats (from :mod:`mcnemar.io`) | `format` |

Labels are ASCII (a hyphen joins two authors' names); an interface may typeset them. Within
one quantity no two terms share a label or a short label.

A new choice is one :class:`Term` here plus its implementation: the keyword check, the CLI's
``click.Choice``, the web form and the labels of the report read the tuple. Annotations use
the ``Literal`` types :data:`Alternative`, :data:`Adjustment` and :data:`ReportedTest` (a type
checker needs the names spelled: tests keep them equal to the tuples).

References
----------
McNemar Q (1947). Note on the sampling error of the difference between correlated proportions
or percentages. *Psychometrika* 12:153-157.

Edwards AL (1948). Note on the "correction for continuity" in testing the significance of the
difference between correlated proportions. *Psychometrika* 13:185-187.

Suissa S, Shuster JJ (1991). The 2 x 2 matched-pairs trial: exact unconditional design and
analysis. *Biometrics* 47:361-372.

Berger RL, Boos DD (1994). P values maximised over a confidence set for the nuisance
parameter. *Journal of the American Statistical Association* 89:1012-1016.

Fagerland MW, Lydersen S, Laake P (2013). The McNemar test for binary matched-pairs data:
mid-p and asymptotic are better than exact conditional. *BMC Medical Research Methodology*
13:91.

Wilson EB (1927). Probable inference, the law of succession, and statistical inference.
*Journal of the American Statistical Association* 22:209-212.

Clopper CJ, Pearson ES (1934). The use of confidence or fiducial limits illustrated in the
case of the binomial. *Biometrika* 26:404-413.

Newcombe RG (1998). Improved confidence intervals for the difference between binomial
proportions based on paired data. *Statistics in Medicine* 17:2635-2650.

Tango T (1998). Equivalence test and confidence interval for the difference in proportions
for the paired-sample design. *Statistics in Medicine* 17:891-908.

Agresti A, Min Y (2005). Simple improved confidence intervals for comparing matched
proportions. *Statistics in Medicine* 24:729-740.

Bonett DG, Price RM (2012). Adjusted Wald confidence interval for a difference of binomial
proportions based on paired data. *Journal of Educational and Behavioral Statistics*
37:479-488.

Bonett DG, Price RM (2006). Confidence intervals for a ratio of binomial proportions based on
paired data. *Statistics in Medicine* 25:3039-3047.

Tang NS, Tang ML, Chan ISF (2003). On tests of equivalence via non-unity relative risk for
matched-pair design. *Statistics in Medicine* 22:1217-1233.

Donner A, Zou GY (2012). Closed-form confidence intervals for functions of the normal mean and
standard deviation. *Statistical Methods in Medical Research* 21:347-359.

Fagerland MW, Lydersen S, Laake P (2014). Recommended tests and confidence intervals for
paired binomial proportions. *Statistics in Medicine* 33:2850-2875.

Fay MP, Lumbard K (2021). Confidence intervals for difference in proportions for matched pairs
compatible with exact McNemar's or sign tests. *Statistics in Medicine* 40:1147-1159.

Connor RJ (1987). Sample size for testing differences in proportions for the paired-sample
design. *Biometrics* 43:207-211.

Obuchowski NA (1998). On the comparison of correlated proportions for clustered data.
*Statistics in Medicine* 17:1495-1507.

Durkalski VL, Palesch YY, Lipsitz SR, Rust PF (2003). Analysis of clustered matched-pair data.
*Statistics in Medicine* 22:2417-2428.

Yang Z, Sun X, Hardin JW (2010). A note on the tests for clustered matched-pair binary data.
*Biometrical Journal* 52:638-652.

Eliasziw M, Donner A (1991). Application of the McNemar test to non-independent matched pair
data. *Statistics in Medicine* 10:1981-1991.

Holm S (1979). A simple sequentially rejective multiple test procedure. *Scandinavian Journal
of Statistics* 6:65-70.

Benjamini Y, Hochberg Y (1995). Controlling the false discovery rate: a practical and powerful
approach to multiple testing. *Journal of the Royal Statistical Society B* 57:289-300.

Sidik K (2003). Exact unconditional tests for testing non-inferiority in matched-pairs design.
*Statistics in Medicine* 22:265-278.

Student (1908). The probable error of a mean. *Biometrika* 6:1-25.

Wilcoxon F (1945). Individual comparisons by ranking methods. *Biometrics Bulletin* 1:80-83.

Pratt JW (1959). Remarks on zeros and ties in the Wilcoxon signed rank procedures. *Journal
of the American Statistical Association* 54:655-667.

Dixon WJ, Mood AM (1946). The statistical sign test. *Journal of the American Statistical
Association* 41:557-566.

Fisher RA (1935). *The Design of Experiments*. Oliver & Boyd (section 21: the randomization
test of the paired differences).

Efron B (1987). Better bootstrap confidence intervals. *Journal of the American Statistical
Association* 82:171-185.

Hodges JL, Lehmann EL (1963). Estimates of location based on rank tests. *Annals of
Mathematical Statistics* 34:598-611.

Examples
--------
>>> names(ALTERNATIVES)
('two-sided', 'greater', 'less')
>>> label(DIFFERENCE_INTERVALS, "newcombe"), short(DIFFERENCE_INTERVALS, "newcombe")
('Newcombe hybrid score (method 10)', 'Newcombe')
>>> term(TESTS, "midp").reference
'Fagerland, Lydersen & Laake (2013)'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = [
    "ADJUSTMENTS",
    "ALTERNATIVES",
    "ANALYSES",
    "CLUSTERED_METHODS",
    "COMPARE_FORMATS",
    "DIFFERENCE_INTERVALS",
    "FAIL_ON",
    "MARGIN_METHODS",
    "ODDS_RATIO_INTERVALS",
    "ON_ERROR",
    "ON_MISSING",
    "OUTPUT_FORMATS",
    "PLOT_KINDS",
    "POWER_METHODS",
    "RATIO_INTERVALS",
    "REDUCE",
    "SCORE_INTERVALS",
    "SCORE_POWER_METHODS",
    "SCORE_TESTS",
    "TESTS",
    "ZERO_METHODS",
    "Adjustment",
    "Alternative",
    "ReportedTest",
    "Term",
    "input_formats",
    "label",
    "names",
    "short",
    "term",
]


@dataclass(frozen=True, slots=True)
class Term:
    """One choice of an argument: its name, how to show it and where it comes from.

    Attributes
    ----------
    name : str
        What the argument takes (a keyword value, a CLI choice, a JSON key).
    label : str
        How a sentence or a table row names it.
    short : str
        A shorter label for a chart or a narrow column.
    reference : str
        Author(s) and year it follows (and the method number where the paper numbers its
        methods), or ``""``.
    """

    name: str
    label: str
    short: str
    reference: str = ""


# The Fagerland, Lydersen & Laake (2014) review is the source of the formulas of every paired
# interval as implemented; the original papers are named where there is one.
_FLL2013 = "Fagerland, Lydersen & Laake (2013)"
_FLL2014 = "Fagerland, Lydersen & Laake (2014)"

#: The type of an ``alternative`` argument, for annotations (a type checker needs the names
#: spelled; a test keeps them equal to :data:`ALTERNATIVES`).
Alternative = Literal["two-sided", "greater", "less"]
#: The type of an ``adjust`` argument (the names of :data:`ADJUSTMENTS`).
Adjustment = Literal["holm", "bonferroni", "bh", "none"]
#: The type of a ``method`` argument that takes one of the tests every report computes (the
#: names of :data:`TESTS` but ``unconditional``).
ReportedTest = Literal["exact", "midp", "asymptotic", "corrected"]

#: Direction of a test (``alternative=``): A is system/run A, B is B.
ALTERNATIVES: tuple[Term, ...] = (
    Term("two-sided", "two-sided", "two-sided"),
    Term("greater", "one-sided, A better", "A better"),
    Term("less", "one-sided, B better", "B better"),
)

#: The tests of :func:`mcnemar.mcnemar` (``unconditional`` only through ``method=``, not in
#: :data:`mcnemar.inference.METHODS`, which lists the tests every report computes).
TESTS: tuple[Term, ...] = (
    Term("exact", "exact conditional (binomial) test", "exact", _FLL2013),
    Term("midp", "mid-p test", "mid-p", _FLL2013),
    Term("asymptotic", "chi-square test", "asymptotic", "McNemar (1947)"),
    Term("corrected", "continuity-corrected chi-square test (Edwards)", "continuity-corrected",
         "Edwards (1948)"),
    Term("unconditional", "exact unconditional test (Suissa-Shuster, Berger-Boos)",
         "unconditional", "Suissa & Shuster (1991); Berger & Boos (1994)"),
)

#: Confidence intervals for the difference of accuracies, A - B.
DIFFERENCE_INTERVALS: tuple[Term, ...] = (
    Term("wald", "Wald", "Wald", _FLL2014),
    Term("wald-cc", "Wald, continuity-corrected", "Wald CC", _FLL2014),
    Term("agresti-min", "Agresti-Min", "Agresti-Min", "Agresti & Min (2005)"),
    Term("bonett-price", "Bonett-Price", "Bonett-Price", "Bonett & Price (2012)"),
    Term("newcombe", "Newcombe hybrid score (method 10)", "Newcombe",
         "Newcombe (1998), method 10"),
    Term("newcombe-plain", "Newcombe, plain correlation", "Newcombe plain",
         "Newcombe (1998), method 10 with the plain correlation"),
    Term("tango", "Tango score", "Tango score", "Tango (1998)"),
    Term("exact", "exact, test-compatible (Fay-Lumbard)", "Exact (Fay-Lumbard)",
         "Fay & Lumbard (2021)"),
)

#: Confidence intervals for the ratio of accuracies, A / B.
RATIO_INTERVALS: tuple[Term, ...] = (
    Term("wald", "Wald (log)", "Wald", _FLL2014),
    Term("tang", "Tang score", "Tang", "Tang, Tang & Chan (2003)"),
    Term("bonett-price", "Bonett-Price", "Bonett-Price", "Bonett & Price (2006)"),
    Term("mover-wilson", "MOVER Wilson", "MOVER", "Donner & Zou (2012); Wilson (1927)"),
)

#: Confidence intervals for the conditional odds ratio b / c (the exact, mid-p and Wilson
#: intervals are those of b / (b + c), transformed).
ODDS_RATIO_INTERVALS: tuple[Term, ...] = (
    Term("exact", "Clopper-Pearson", "Clopper-Pearson", "Clopper & Pearson (1934)"),
    Term("midp", "Clopper-Pearson mid-p", "mid-p", _FLL2014),
    Term("wilson", "Wilson", "Wilson", "Wilson (1927)"),
    Term("wald", "Wald (log)", "Wald", _FLL2014),
    Term("wald-laplace", "Wald (log), Laplace-adjusted", "Wald Laplace", _FLL2014),
)

#: Adjustments of pairwise p-values for multiple comparisons (``adjust=``).
ADJUSTMENTS: tuple[Term, ...] = (
    Term("holm", "Holm step-down", "Holm", "Holm (1979)"),
    Term("bonferroni", "Bonferroni", "Bonferroni"),
    Term("bh", "Benjamini-Hochberg (false discovery rate)", "Benjamini-Hochberg",
         "Benjamini & Hochberg (1995)"),
    Term("none", "no adjustment", "unadjusted"),
)

#: Tests for items that come in clusters (``cluster_method=``).
CLUSTERED_METHODS: tuple[Term, ...] = (
    Term("obuchowski", "Obuchowski (1998)", "Obuchowski", "Obuchowski (1998)"),
    Term("durkalski", "Durkalski et al. (2003)", "Durkalski", "Durkalski et al. (2003)"),
    Term("yang", "Yang, Sun & Hardin (2010)", "Yang", "Yang, Sun & Hardin (2010)"),
    Term("eliasziw-donner", "Eliasziw & Donner (1991)", "Eliasziw-Donner",
         "Eliasziw & Donner (1991)"),
)

#: Tests against a non-inferiority margin (``margin_method=``).
MARGIN_METHODS: tuple[Term, ...] = (
    Term("score", "Tango score test", "score", "Tango (1998)"),
    Term("unconditional", "exact unconditional test (Tango score ordering, Berger-Boos)",
         "unconditional", "Sidik (2003); Berger & Boos (1994)"),
)

#: Tests whose power :func:`mcnemar.power` computes: the exact, mid-p and chi-square tests of
#: :data:`TESTS` (the same terms), and ``connor``, the normal approximation.
POWER_METHODS: tuple[Term, ...] = (
    *TESTS[:3],
    Term("connor", "normal approximation of Connor (1987)", "Connor", "Connor (1987)"),
)

#: How several samples (epochs) of one item are combined (``reduce=``).
REDUCE: tuple[Term, ...] = (
    Term("mean", "mean score, then the threshold", "mean"),
    Term("majority", "majority vote (ties fail)", "majority"),
    Term("first", "first sample", "first"),
    Term("cluster", "every sample, the samples of an item as a cluster", "cluster"),
)

#: What to do with items present in one run only (``on_missing=``).
ON_MISSING: tuple[Term, ...] = (
    Term("error", "refuse", "error"),
    Term("intersect", "drop and report how many", "intersect"),
)

#: What an errored item is (``on_error=``): a tool's error (a provider that failed, a sample
#: that raised) is no answer, so by default it has no score (reported, and left out with
#: ``on_missing="intersect"``); ``fail`` counts it as a failure.
ON_ERROR: tuple[Term, ...] = (
    Term("missing", "no score (reported)", "missing"),
    Term("fail", "counted as a failure", "fail"),
)

#: When the command line exits with a failure code after its report (``--fail-on``; the codes
#: are :class:`mcnemar.cli._common.ExitCode`).
FAIL_ON: tuple[Term, ...] = (
    Term("worse", "A significantly worse than B (exit 3)", "worse"),
    Term("worse-any", "A significantly worse on any task, after adjustment, or overall (exit 3)",
         "worse on any task"),
    Term("different", "A and B significantly different, either way (exit 4)", "different"),
    Term("inferior", "non-inferiority by the margin not shown (exit 5)", "inferior"),
)

#: Plots of many comparisons (``pairwise --plot-kind``).
PLOT_KINDS: tuple[Term, ...] = (
    Term("auto", "heatmap for all pairs, forest plot against a baseline", "auto"),
    Term("heatmap", "heatmap of the adjusted p-values of all pairs", "heatmap"),
    Term("forest", "forest plot of the differences with their intervals", "forest"),
)

#: Output formats of the command line (``--format``).
OUTPUT_FORMATS: tuple[Term, ...] = (
    Term("text", "readable text", "text"),
    Term("markdown", "markdown", "markdown"),
    Term("json", "JSON", "JSON"),
)

#: Output formats of ``mcnemar compare`` (``--format``): the command line's, and ``github``
#: for a GitHub Actions step (the markdown report appended to ``$GITHUB_STEP_SUMMARY``, the
#: verdict and numbers written to ``$GITHUB_OUTPUT``, annotations on stdout).
COMPARE_FORMATS: tuple[Term, ...] = (
    *OUTPUT_FORMATS,
    Term("github", "GitHub Actions step: summary, outputs and annotations", "GitHub Actions"),
)

#: The tests of a paired comparison of scores that are not pass/fail
#: (:func:`mcnemar.scores.analyze_scores`), in the order its report lists them.
SCORE_TESTS: tuple[Term, ...] = (
    Term("t", "paired t test", "paired t", "Student (1908)"),
    Term("wilcoxon", "Wilcoxon signed-rank test", "signed-rank", "Wilcoxon (1945)"),
    Term("sign", "sign test (exact binomial)", "sign", "Dixon & Mood (1946)"),
    Term("permutation", "permutation test (sign flips)", "permutation", "Fisher (1935)"),
)

#: Confidence intervals of a paired comparison of scores: the mean difference (t, bootstrap)
#: and the Hodges-Lehmann estimate (the pseudomedian of the differences, another estimand).
SCORE_INTERVALS: tuple[Term, ...] = (
    Term("t", "t interval", "t", "Student (1908)"),
    Term("bootstrap", "paired bootstrap (BCa)", "BCa bootstrap", "Efron (1987)"),
    Term("hodges-lehmann", "Hodges-Lehmann (signed-rank inversion)", "Hodges-Lehmann",
         "Hodges & Lehmann (1963)"),
)

#: How the signed-rank test treats items whose two scores are equal (``zero_method=``).
ZERO_METHODS: tuple[Term, ...] = (
    Term("wilcox", "zero differences dropped", "wilcox", "Wilcoxon (1945)"),
    Term("pratt", "zero differences ranked, then dropped", "pratt", "Pratt (1959)"),
)

#: The power of the paired t test (:func:`mcnemar.scores.t_power`): exact (noncentral t) or
#: the normal approximation.
SCORE_POWER_METHODS: tuple[Term, ...] = (
    Term("noncentral-t", "exact (noncentral t)", "noncentral t", "Student (1908)"),
    Term("normal", "normal approximation", "normal"),
)

#: Which analysis ``mcnemar compare`` runs (``--analysis``): the paired comparison of the
#: scores, or McNemar's test of pass/fail (scores 0/1, or ``--threshold``).
ANALYSES: tuple[Term, ...] = (
    Term("scores", "paired comparison of the scores", "scores"),
    Term("pass-fail", "McNemar's test of pass/fail", "pass/fail", "McNemar (1947)"),
)


def names(terms: tuple[Term, ...]) -> tuple[str, ...]:
    """The names of ``terms``, in their order (what an argument accepts).

    >>> names(ON_MISSING)
    ('error', 'intersect')
    """
    return tuple(t.name for t in terms)


def term(terms: tuple[Term, ...], name: str) -> Term:
    """The term called ``name``; a ``KeyError`` naming the valid ones otherwise.

    >>> term(RATIO_INTERVALS, "tang").label
    'Tang score'
    """
    for t in terms:
        if t.name == name:
            return t
    raise KeyError(f"{name!r} is not one of {', '.join(names(terms))}")


def label(terms: tuple[Term, ...], name: str) -> str:
    """The label of the term called ``name``.

    >>> label(ALTERNATIVES, "greater")
    'one-sided, A better'
    """
    return term(terms, name).label


def short(terms: tuple[Term, ...], name: str) -> str:
    """The short label of the term called ``name``.

    >>> short(DIFFERENCE_INTERVALS, "wald-cc")
    'Wald CC'
    """
    return term(terms, name).short


def input_formats() -> tuple[str, ...]:
    """The format names the readers of :mod:`mcnemar.io` accept (``format=``), without ``auto``.

    They are the reader registry's (:mod:`mcnemar.io._registry`, where a format is registered
    once), imported when called so that the vocabulary does not load the readers.

    >>> "csv" in input_formats() and "auto" not in input_formats()
    True
    """
    from mcnemar.io._registry import formats

    return tuple(formats())
