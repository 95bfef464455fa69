"""Request and response models of the calculator's JSON API.

The models do two jobs: they validate what arrives (so that bad input gets a 422 that names
the field) and they document the API in the OpenAPI schema that FastAPI generates from them.
They hold no statistics: the response body is :meth:`mcnemar.report.Report.to_dict` (schema
``mcnemar.report/1``, see ``docs/report-schema.md``) or, for an upload of scores that are not
pass/fail, :meth:`mcnemar.scores.ScoreReport.to_dict` (``mcnemar.scores/1``; per task
``mcnemar.score-tasks/1``), described here only so that clients and the schema-driven fuzz
tests know its shape.

Counts must arrive as JSON numbers with a whole value (``17`` or ``17.0``); booleans, strings
and fractional numbers are refused, because silently turning ``true`` into 1 or ``"17"`` into
17 hides mistakes in the caller's code.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    StrictBool,
    StringConstraints,
    Tag,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from mcnemar import vocabulary
from mcnemar.validation import MAX_COUNT

__all__ = [
    "ALTERNATIVES",
    "ANALYSIS_CHOICES",
    "CLUSTER_METHODS",
    "INCLUDE",
    "MARGIN_METHODS",
    "MAX_COUNT",
    "ON_MISSING",
    "REDUCE",
    "AnalyzeRequest",
    "BayesOptions",
    "CompareOptions",
    "Display",
    "Distribution",
    "ErrorBody",
    "ErrorDetail",
    "ErrorResponse",
    "ErrorsFramingRequest",
    "PassesFramingRequest",
    "ReportResponse",
    "ScoreDisplay",
    "ScoreReportResponse",
    "ScoreTasksDisplay",
    "ScoreTasksResponse",
]

# Largest count, and largest total, accepted: the library's one limit
# (mcnemar.validation.MAX_COUNT, 2**52), which keeps every sum of cells exact in double
# precision, in the library and in the browser's JavaScript.
_MAX_COUNT_POWER = f"2**{MAX_COUNT.bit_length() - 1}"
#: Largest table the server computes the Bayesian summary for: its cost grows with the counts
#: (measured on 2 cores: 0.7 s at 10**9 items, 1.4 s at 10**10, 5 s at 2**40), so the bound
#: keeps one request's work to about a second.
MAX_ITEMS_BAYES = 10**10

# The choices of the requests are the vocabulary's (one list for the CLI, the library and here).
ALTERNATIVES = vocabulary.names(vocabulary.ALTERNATIVES)
MARGIN_METHODS = vocabulary.names(vocabulary.MARGIN_METHODS)
ON_MISSING = vocabulary.names(vocabulary.ON_MISSING)
ON_ERROR = vocabulary.names(vocabulary.ON_ERROR)
REDUCE = vocabulary.names(vocabulary.REDUCE)
CLUSTER_METHODS = vocabulary.names(vocabulary.CLUSTERED_METHODS)
#: The analysis of an upload: "auto" (the command line's default: the scores' when some score
#: is not 0/1 and no threshold is given), or one of the vocabulary's analyses.
ANALYSIS_CHOICES = ("auto", *vocabulary.names(vocabulary.ANALYSES))
#: The extras a response can carry next to the report (see :mod:`mcnemar.web.respond`).
INCLUDE = ("distribution", "markdown", "text", "display")

if TYPE_CHECKING:
    Alternative = str
    Include = str
    MarginMethod = str
    OnMissing = str
    OnError = str
    Reduce = str
    ClusterMethod = str
    AnalysisChoice = str
else:
    # Literal over a tuple is Literal over its items: pydantic checks them and lists them in
    # the OpenAPI schema as an enum.
    Alternative = Literal[ALTERNATIVES]
    Include = Literal[INCLUDE]
    MarginMethod = Literal[MARGIN_METHODS]
    OnMissing = Literal[ON_MISSING]
    OnError = Literal[ON_ERROR]
    Reduce = Literal[REDUCE]
    ClusterMethod = Literal[CLUSTER_METHODS]
    AnalysisChoice = Literal[ANALYSIS_CHOICES]


def _echo(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _fail(kind: str, message: str) -> PydanticCustomError:
    # The message is complete; no context, so pydantic does not treat braces as placeholders.
    return PydanticCustomError(kind, message)


def _whole_count(value: Any, info: ValidationInfo) -> Any:
    # The library's one check of a count (whole, >= 0, at most MAX_COUNT; booleans, text and
    # fractions refused), naming the field; JSON numbers only, so text is refused as such.
    if type(value) is int and 0 <= value <= MAX_COUNT:
        return value  # what the check accepts as it is, without its array machinery
    from mcnemar.validation import check_count

    return _library_check("mcnemar", check_count, value, info.field_name)


def _open_unit_interval(value: Any, info: ValidationInfo) -> Any:
    """A level strictly between 0 and 1 (the library's check, naming the field and giving a
    valid example of it: "e.g. 0.05" for alpha, "e.g. 0.95" for a confidence level)."""
    from mcnemar.validation import check_open_unit

    if not isinstance(value, int | float) or isinstance(value, bool):
        # The library would take a numeric string; a JSON API takes numbers only.
        example = "0.05" if info.field_name == "alpha" else "0.95"
        raise _fail("mcnemar", f"{info.field_name} must be a number strictly between 0 and 1 "
                               f"(e.g. {example}), got {_echo(value)}")
    return _library_check("mcnemar", check_open_unit, value, info.field_name)


Count = Annotated[
    int,
    BeforeValidator(_whole_count),
    Field(ge=0, le=MAX_COUNT, description="A count of items (a whole number >= 0)."),
]
Level = Annotated[float, BeforeValidator(_open_unit_interval), Field(gt=0, lt=1)]
Alpha = Annotated[float, BeforeValidator(_open_unit_interval), Field(gt=0, lt=1)]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=80)]


def _library_check(kind: str, check: Any, *args: Any) -> Any:
    """Run one of the library's own argument checks; its message becomes the field's error."""
    from mcnemar.errors import McNemarError

    try:
        return check(*args)
    except McNemarError as exc:
        raise _fail(kind, str(exc)) from None


def _margin(value: Any) -> Any:
    if value is None:
        return None
    from mcnemar.margin import _check_margin

    return _library_check("mcnemar", _check_margin, value)


def _rope(value: Any) -> Any:
    from mcnemar.bayes import _check_unit

    return _library_check("mcnemar", _check_unit, "rope", value, False)


def _prior(value: Any) -> Any:
    from mcnemar.bayes import _check_prior

    if isinstance(value, str):
        # A form field: "1" or four numbers "1,1,1,1" (for a, b, c, d).
        parts = [x.strip() for x in value.split(",")]
        try:
            numbers = [float(x) for x in parts]
        except ValueError:
            raise _fail(
                "mcnemar", f"prior must be a number k > 0 or four numbers; got {_echo(value)}"
            ) from None
        value = numbers[0] if len(numbers) == 1 else numbers
    if isinstance(value, list | tuple) and any(
        isinstance(x, bool) or not isinstance(x, int | float) for x in value
    ):
        raise _fail(
            "mcnemar", f"prior values must be numbers (for a, b, c, d); got {_echo(value)}"
        )
    k = _library_check("mcnemar", _check_prior, value)
    return k[0] if len(set(k)) == 1 else list(k)


Margin = Annotated[float | None, BeforeValidator(_margin)]


class BayesOptions(BaseModel):
    """The Bayesian summary (:func:`mcnemar.bayes.bayes`): posterior probabilities that A is
    better, practically equivalent or worse, with a region of practical equivalence."""

    model_config = ConfigDict(extra="forbid")

    rope: Annotated[float, BeforeValidator(_rope)] = Field(
        0.005,
        description="Half-width of the region of practical equivalence, a proportion in "
        "[0, 1) (0.005 = half an accuracy point).",
    )
    prior: Annotated[float | list[float], BeforeValidator(_prior)] = Field(
        1.0,
        description="Dirichlet pseudo-counts: k > 0 for every cell (1 = uniform), or four "
        "numbers for a, b, c, d.",
    )


def _bayes_option(value: Any) -> Any:
    # true asks for the defaults; false and null for nothing; anything else must be an object.
    if value is True:
        return {}
    if value is False or value is None:
        return None
    if isinstance(value, dict | BayesOptions):
        return value
    raise _fail(
        "mcnemar",
        'bayes must be true, false or an object such as {"rope": 0.005, "prior": 1}; got '
        + _echo(value),
    )


Bayes = Annotated[
    BayesOptions | None,
    BeforeValidator(_bayes_option, json_schema_input_type=BayesOptions | bool | None),
]


def _check_decisions(options: Any, known_n: int | None) -> None:
    """Checks across fields (the library's own), each naming the field to fix.

    ``known_n`` is the number of items, or None when a and d were not given (or are not known
    yet, for an upload).
    """
    if options.margin is None:
        if options.equivalence:
            raise _field_error(
                "equivalence",
                "equivalence needs a margin (e.g. margin 0.01 for 1 point): equivalence is "
                "|difference| < margin",
            )
    else:
        from mcnemar.margin import MAX_ITEMS_UNCONDITIONAL, _check_alpha

        try:
            _check_alpha(options.alpha)
        except Exception as exc:
            raise _field_error("alpha", f"with a margin, {exc}") from None
        if known_n is None and options.a_d_missing:
            raise _field_error(
                "margin",
                "a margin is a difference in accuracy, (b - c)/N, which needs N: give a "
                "(both right) and d (both wrong) as well as b and c",
            )
        if (
            options.margin_method == "unconditional"
            and known_n is not None
            and known_n > MAX_ITEMS_UNCONDITIONAL
        ):
            raise _field_error(
                "margin_method",
                f"the exact unconditional test with a margin is limited to N <= "
                f"{MAX_ITEMS_UNCONDITIONAL:,} items (got {known_n:,}); at this size the score "
                "test agrees closely: use margin_method 'score'",
            )
    if options.bayes is not None and known_n is None and options.a_d_missing:
        raise _field_error(
            "bayes",
            "the Bayesian summary needs all four cells (the difference (b - c)/N needs N): "
            "give a (both right) and d (both wrong) as well as b and c",
        )
    if options.bayes is not None and known_n is not None and known_n > MAX_ITEMS_BAYES:
        raise _field_error(
            "bayes",
            f"the Bayesian summary is limited to N <= {MAX_ITEMS_BAYES:,} items here (got "
            f"{known_n:,}), because its incomplete beta functions slow down to seconds per "
            "request beyond; compute it in Python with mcnemar.bayes.bayes",
        )


def _field_error(field: str, message: str) -> PydanticCustomError:
    # A check across fields runs on the whole request; the context names the field to fix.
    return PydanticCustomError("mcnemar", message, {"field": field})


class _Options(BaseModel):
    """Options shared by every analysis request."""

    model_config = ConfigDict(extra="forbid")

    name_a: Name = Field(
        "candidate", description="Name of system A (the candidate; the rows of the table)."
    )
    name_b: Name = Field(
        "baseline", description="Name of system B (the baseline; the columns of the table)."
    )
    alternative: Alternative = Field(
        "two-sided",
        description='"greater": A\'s accuracy is higher; "less": A\'s accuracy is lower.',
    )
    confidence_level: Level = Field(0.95, description="Confidence level of the intervals.")
    alpha: Alpha = Field(0.05, description="Significance level of the conclusion.")
    margin: Margin = Field(
        None,
        description="Non-inferiority margin, a proportion in (0, 1) (0.01 = 1 accuracy point): "
        "adds the test that A is not worse than B by the margin or more (the report's "
        '"noninferiority" block). Needs a and d; alpha < 0.5.',
    )
    equivalence: StrictBool = Field(
        False,
        description='With margin: also test equivalence, |difference| < margin ("equivalence").',
    )
    margin_method: MarginMethod = Field(
        "score",
        description='With margin: "score" (Tango) or "unconditional" (exact, N <= 5,000).',
    )
    bayes: Bayes = Field(
        None,
        description="The Bayesian summary (the report's \"bayes\" block): true for the "
        'defaults, or {"rope": 0.005, "prior": 1}. Needs a and d.',
    )

    @property
    def a_d_missing(self) -> bool:
        return False


class _Extras(BaseModel):
    include: list[Include] = Field(
        default_factory=list,
        max_length=len(INCLUDE),
        description=(
            "Extra keys to add to the response next to the report: "
            '"distribution" (the Bin(D, 1/2) null distribution for the picture), '
            '"markdown" (the report as markdown), "text" (the report as plain text) and '
            '"display" (the numbers the calculator page shows, as text).'
        ),
    )


def _check_total(*counts: int | None) -> None:
    total = sum(x for x in counts if x is not None)
    if total > MAX_COUNT:
        raise _fail(
            "count_total",
            f"the counts add up to {total} items, more than {MAX_COUNT} ({_MAX_COUNT_POWER}), the "
            "largest number of items the calculator handles exactly",
        )


class _Counts(_Options, _Extras):
    """What the two framings share: the total and the decisions are checked on the cells in
    the passes order, which each framing gives with :meth:`cells`."""

    @abstractmethod
    def cells(self) -> tuple[int | None, int, int, int | None]:
        """The counts as cells (a, b, c, d) of the passes table; a and d may be missing."""

    @model_validator(mode="after")
    def _total(self) -> _Counts:
        a, b, c, d = self.cells()
        _check_total(a, b, c, d)
        _check_decisions(self, None if a is None or d is None else a + b + c + d)
        return self

    @property
    def a_d_missing(self) -> bool:
        a, _, _, d = self.cells()
        return a is None or d is None


class PassesFramingRequest(_Counts):
    """Counts of passes: the table as a, b, c, d.

    ``a`` = both right, ``b`` = A right and B wrong, ``c`` = A wrong and B right,
    ``d`` = both wrong. ``a`` and ``d`` are optional; without them the tests still run but the
    quantities that need the number of items are null.
    """

    framing: Literal["passes"] = Field("passes", description="Count passes (the default).")
    a: Count | None = Field(None, description="Both systems right (optional).")
    b: Count = Field(description="A right and B wrong.")
    c: Count = Field(description="A wrong and B right.")
    d: Count | None = Field(None, description="Both systems wrong (optional).")

    def cells(self) -> tuple[int | None, int, int, int | None]:
        return self.a, self.b, self.c, self.d


#: The fields of the errors framing that hold cells a, b, c, d of the passes table: "only A
#: wrong" is cell c and "only B wrong" cell b, as in :meth:`mcnemar.table.PairedTable.from_errors`.
ERRORS_FRAMING_CELLS = ("both_right", "only_b_wrong", "only_a_wrong", "both_wrong")


class ErrorsFramingRequest(_Counts):
    """Counts of errors, as an error analysis reports them.

    "Only A wrong" is cell c of the passes table and "only B wrong" is cell b
    (:data:`ERRORS_FRAMING_CELLS`).
    """

    framing: Literal["errors"] = Field(description="Count errors.")
    both_right: Count | None = Field(None, description="Neither system wrong (optional).")
    only_a_wrong: Count = Field(description="Only system A wrong (B right).")
    only_b_wrong: Count = Field(description="Only system B wrong (A right).")
    both_wrong: Count | None = Field(None, description="Both systems wrong (optional).")

    def cells(self) -> tuple[int | None, int, int, int | None]:
        a, b, c, d = (getattr(self, name) for name in ERRORS_FRAMING_CELLS)
        return a, b, c, d


def _framing_of(value: Any) -> str:
    # Absent framing means passes; an unknown one is returned as is, so that pydantic reports
    # it as an invalid tag (which the error formatter turns into a message about framing).
    if isinstance(value, dict):
        framing = value.get("framing", "passes")
        return framing if isinstance(framing, str) else repr(framing)
    return str(getattr(value, "framing", "passes"))


AnalyzeRequest = Annotated[
    Annotated[PassesFramingRequest, Tag("passes")]
    | Annotated[ErrorsFramingRequest, Tag("errors")],
    Discriminator(_framing_of),
]


def _form_level(value: Any, info: ValidationInfo) -> Any:
    # Form fields arrive as text; turn numerals into numbers and let the common check speak.
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            pass
    return _open_unit_interval(value, info)


FormLevel = Annotated[float, BeforeValidator(_form_level), Field(gt=0, lt=1)]
FormAlpha = FormLevel


def _form_number(value: Any) -> Any:
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            raise _fail("number_type", f"must be a number; got {_echo(value)}") from None
        if not math.isfinite(number):
            raise _fail("number_type", f"must be a finite number; got {_echo(value)}")
        return number
    return value


FormNumber = Annotated[float, BeforeValidator(_form_number)]


def _form_bayes(value: Any) -> Any:
    # The form's bayes=true|false; rope and prior arrive already gathered into an object.
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ("true", "1", "on", "yes"):
            return {}
        if text in ("false", "0", "off", "no", ""):
            return None
    return _bayes_option(value)


class CompareOptions(BaseModel):
    """The text fields of a ``POST /api/v1/compare`` upload (validated like the JSON API)."""

    model_config = ConfigDict(extra="forbid")

    # Not given: the names the files record (a model, a file name), as mcnemar compare shows.
    name_a: Name | None = None
    name_b: Name | None = None
    alternative: Alternative = "two-sided"
    confidence_level: FormLevel = 0.95
    alpha: FormAlpha = 0.05
    format_a: Annotated[str, StringConstraints(max_length=40)] = "auto"
    format_b: Annotated[str, StringConstraints(max_length=40)] = "auto"
    on_missing: OnMissing = "error"
    # Items the tool marks as errored: no score (reported), or failures.
    on_error: OnError | None = None
    # The run to read from each file, for a file that holds several (promptfoo's providers).
    run_a: Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)] | None = None
    run_b: Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)] | None = None
    threshold: FormNumber | None = None
    reduce: Reduce | None = None
    # Items that share this field form a cluster (clustered analysis, as reduce 'cluster').
    cluster: Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)] | None = None
    cluster_method: ClusterMethod = "obuchowski"
    # The column naming each item's task: the files are compared task by task.
    task_column: (
        Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
        | None
    ) = None
    # The reader's score (a column, metric, scorer or stat) and lm-eval's filter, for both files.
    score: Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)] | None = None
    filter: Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)] | None = None
    # pass-fail, scores, or auto: the scores' analysis when some score is not 0/1 (and no
    # threshold), as mcnemar compare --analysis decides.
    analysis: AnalysisChoice = "auto"
    # Pair runs of different tasks / scored differently (refused by default; the report warns).
    allow_different_tasks: bool = False
    allow_different_scorers: bool = False
    include: list[Include] = Field(default_factory=list, max_length=len(INCLUDE))
    margin: Annotated[float | None, BeforeValidator(_margin), BeforeValidator(_form_number)] = None
    equivalence: bool = False
    margin_method: MarginMethod = "score"
    # The form's flat fields bayes, rope and prior arrive here as one object (_parse_options).
    bayes: Annotated[BayesOptions | None, BeforeValidator(_form_bayes)] = None

    @field_validator("threshold", "reduce", "margin", "cluster", "task_column", "on_error",
                     "run_a", "run_b", "name_a", "name_b", "score", "filter", mode="before")
    @classmethod
    def _empty_is_none(cls, value: Any) -> Any:
        # An empty form field means "not given".
        return None if value == "" else value

    @model_validator(mode="after")
    def _decisions(self) -> CompareOptions:
        # The number of items is known only once the files are aligned (the library checks
        # the rest then).
        _check_decisions(self, None)
        return self

    @property
    def a_d_missing(self) -> bool:
        return False


class ErrorDetail(BaseModel):
    """One problem with the request."""

    field: str | None = Field(description="The request field concerned, or null for the body.")
    message: str
    type: str


class ErrorBody(BaseModel):
    status: int = Field(description="The HTTP status code, repeated for convenience.")
    message: str = Field(description="What went wrong and how to fix it, in one sentence.")
    field: str | None = Field(description="The first field concerned, or null.")
    errors: list[ErrorDetail]


class ErrorResponse(BaseModel):
    """The one shape of every error response."""

    error: ErrorBody


class _Interval(BaseModel):
    low: float | None
    high: float | None


class _Test(BaseModel):
    model_config = ConfigDict(extra="allow")

    statistic: float | None
    pvalue: float
    log10_pvalue: float | None
    recommended: bool


class _Table(BaseModel):
    a: int | None
    b: int
    c: int
    d: int | None
    n: int | None
    discordant: int


class _Conclusion(BaseModel):
    model_config = ConfigDict(extra="allow")

    significant: bool
    better: Literal["a", "b"] | None
    text: str


class _Difference(BaseModel):
    model_config = ConfigDict(extra="allow")

    estimate: float | None
    intervals: dict[str, _Interval]


class Distribution(BaseModel):
    """The null distribution Bin(D, 1/2) of cell b, for drawing (``include: ["distribution"]``).

    For large D only a window around the centre is given, sampled every ``step`` values.
    """

    discordant: int = Field(description="D = b + c, the number of trials.")
    observed: int = Field(description="The observed b (A right and B wrong).")
    step: int = Field(description="Spacing of the k values (1 unless D is large).")
    k: list[int] = Field(description="Values of b under the null hypothesis.")
    pmf: list[float] = Field(description="P(X = k) for X ~ Bin(D, 1/2).")


class DisplayTick(BaseModel):
    """One tick of the null distribution's x axis."""

    k: int = Field(description="The value of b the tick stands at.")
    text: str = Field(description="Its label.")


class DisplayDistribution(BaseModel):
    """The labels of the null distribution's picture (with ``"distribution"``)."""

    step: str | None = Field(description="Spacing of the k values drawn.")
    peak: str = Field(description="The tallest bar's probability, two significant digits: "
                      "the y axis's label.")
    ticks: list[DisplayTick] = Field(
        description="The x axis's ticks, most important first (both ends of the window, then "
        "the centre D/2): a tick without room for its label is left out.")


class DisplayFlipSide(BaseModel):
    """One side of the items that flipped."""

    count: str | None = Field(description="How many items flipped this way.")
    scores: list[list[str]] = Field(
        description="Each listed item's scores [A, B], as the text report's list of flips "
        "prints them (six significant digits, or \"no score\").")


class DisplayFlips(BaseModel):
    """The counts and scores of the items that flipped (``flips``, or ``tasks.flips``)."""

    a_only: DisplayFlipSide
    b_only: DisplayFlipSide
    listed: str | None = Field(description="Items listed, both sides.")
    total: str | None = Field(description="Items that flipped, both sides.")


class DisplayTask(BaseModel):
    """The counts of one task's table, in the order of ``tasks.tasks``."""

    b: str | None
    c: str | None
    n: str | None


class Display(BaseModel):
    """Every number the calculator page shows that the report's JSON does not already carry
    as text (its ``*_text`` fields), written by the server by the text report's rules
    (:mod:`mcnemar.web.display`), so that the page formats no number itself.

    Counts have thousands separators; levels are percentages (``"95%"``); a value that is
    not given, or a block the report does not have, is null.
    """

    alpha: str | None = Field(description="The significance level, as given (\"0.05\").")
    confidence_level: str | None = Field(
        description="The intervals' confidence level as a percentage (\"95%\").")
    counts: dict[str, str | None] = Field(
        description="The table's a, b, c, d, n and discordant (D) with thousands separators; "
        "null for a count not given.")
    power_level: str | None = Field(description="The power of the detectable difference.")
    margin: str | None = Field(description="With a margin: it in points (\"1 point\").")
    margin_level: str | None = Field(
        description="With a margin: the level of the interval read against it.")
    rope: str | None = Field(
        description="With bayes: the range of practical equality in points (\"0.5 points\").")
    credible_level: str | None = Field(description="With bayes: the credible level.")
    prior: str | None = Field(description="With bayes: the Dirichlet prior's four counts.")
    distribution: DisplayDistribution | None = Field(description='With "distribution".')
    tasks: list[DisplayTask] | None = Field(description="With tasks: each task's counts.")
    flips: DisplayFlips | None = Field(description="With flips: their counts and scores.")
    alignment: dict[str, Any] | None = Field(
        description="With an upload: the alignment's numbers at their places in "
        "``alignment`` (or ``tasks.alignment``), as text, plus ``task_count`` (files of "
        "several tasks) and ``content_check.agree`` (paired items whose content agrees).")


class ReportResponse(BaseModel):
    """The report, ``mcnemar.report/1`` (``docs/report-schema.md``), plus requested extras."""

    model_config = ConfigDict(extra="allow")

    schema_: str = Field(alias="schema")
    names: dict[str, str]
    table: _Table
    words: str
    alternative: Alternative
    alpha: float
    confidence_level: float
    tests: dict[str, _Test]
    recommended: dict[str, Any]
    difference: _Difference
    conclusion: _Conclusion
    assumptions: list[str]
    warnings: list[Any]
    noninferiority: dict[str, Any] | None = Field(
        None, description="Only with margin: the test that A is not worse by the margin."
    )
    equivalence: dict[str, Any] | None = Field(
        None, description="Only with margin and equivalence: |difference| < margin."
    )
    bayes: dict[str, Any] | None = Field(None, description="Only with bayes: the posterior.")
    distribution: Distribution | None = Field(None, description='Only with "distribution".')
    markdown: str | None = Field(None, description='Only with include "markdown".')
    tasks: dict[str, Any] | None = Field(
        None,
        description="Only for uploads of several tasks: the per-task comparison (schema "
        "mcnemar.tasks/1); the report around it is that of all items pooled.",
    )
    forest_svg: str | None = Field(
        None, description="Only with tasks: the forest plot of the per-task differences (SVG)."
    )
    flips: dict[str, Any] | None = Field(
        None,
        description="Only for uploads of one task: the items on which the runs disagree "
        "(a_only: A right and B wrong, b_only: the reverse), each side's count and its first "
        "items (with several tasks, under tasks.flips).",
    )
    text: str | None = Field(None, description='Only with include "text".')
    display: Display | None = Field(
        None,
        description='Only with include "display": the numbers the calculator page shows, as '
        "text.",
    )


# ----------------------------------------------------------------------------- scores


class DisplayScoreTest(BaseModel):
    """One test of a comparison of scores, as the text report's table of tests prints it."""

    statistic: str = Field(description='Its statistic ("t = 2.214", "V = 234").')
    pvalue: str = Field(description='Its p-value ("0.03698"; "—" when not computed).')
    detail: str = Field(description='How it was computed ("df 23", "exact", "Monte Carlo, '
                        '± 0.0019"; "" for none).')


class DisplayScoreFlipSide(BaseModel):
    """One side of the items scored differently."""

    count: str | None = Field(description="How many items this side scored higher.")
    scores: list[list[str]] = Field(
        description="Each listed item's [score A, score B, difference A - B], as the text "
        "report's list prints them.")


class DisplayScoreFlips(BaseModel):
    """The counts and scores of the items scored differently (``flips``)."""

    a_higher: DisplayScoreFlipSide
    b_higher: DisplayScoreFlipSide
    listed: str | None = Field(description="Items listed, both sides.")
    total: str | None = Field(description="Items scored differently, both sides.")


class ScoreDisplay(BaseModel):
    """Every number the calculator page shows of a comparison of scores that the report's
    JSON does not carry as text, written by the server by the text report's rules
    (:func:`mcnemar.web.display.score_display`)."""

    alpha: str | None = Field(description="The significance level, as given.")
    confidence_level: str | None = Field(description="The intervals' level (\"95%\").")
    counts: dict[str, str | None] = Field(
        description="n (items), higher_a, equal, higher_b and, with clusters, clusters.")
    means: dict[str, str | None] = Field(description="Each system's mean score (a, b).")
    difference: str | None = Field(description="The mean difference A - B (\"+0.059\").")
    intervals: dict[str, list[str | None]] = Field(
        description="Each interval of the report (t, bootstrap, hodges-lehmann) as [low, "
        "high].")
    tests: dict[str, DisplayScoreTest] = Field(description="Each test's texts, by key.")
    power_level: str | None = Field(description="The power of the detectable difference.")
    flips: DisplayScoreFlips | None = Field(description="The items scored differently.")
    alignment: dict[str, Any] | None = Field(
        description="The alignment's numbers at their places, as text (as for pass/fail).")


class DisplayScoreTask(BaseModel):
    """One row of the per-task table of scores, as the text report prints it."""

    n: str | None
    mean_a: str
    mean_b: str
    difference: str
    pvalue: str
    adjusted_pvalue: str


class ScoreTasksDisplay(BaseModel):
    """The numbers the page shows of a per-task comparison of scores."""

    alpha: str | None = Field(description="The significance level, as given.")
    confidence_level: str | None = Field(description="The level of the overall interval.")
    overall: dict[str, Any] = Field(
        description="The macro overall: its p-value as its sentence writes it (\"pvalue\") "
        "and whether it is below alpha (\"significant\").")
    tasks: list[DisplayScoreTask] = Field(description="Each task's row, in the tasks' order.")
    flips: DisplayScoreFlips | None = Field(description="The items scored differently.")


class ScoreReportResponse(BaseModel):
    """The comparison of scores, ``mcnemar.scores/1`` (:meth:`mcnemar.scores.ScoreReport.to_dict`,
    as ``mcnemar compare --analysis scores --format json`` writes it), plus requested extras."""

    model_config = ConfigDict(extra="allow")

    schema_: Literal["mcnemar.scores/1"] = Field(alias="schema")
    names: dict[str, str]
    n: int
    words: str
    tests: dict[str, dict[str, Any]]
    recommended: dict[str, Any]
    difference: dict[str, Any]
    conclusion: _Conclusion
    flips: dict[str, Any] | None = Field(
        None, description="The items scored differently: a_higher (A scored higher) and "
        "b_higher, each side's count and its first items, the largest differences first.")
    markdown: str | None = Field(None, description='Only with include "markdown".')
    text: str | None = Field(None, description='Only with include "text".')
    display: ScoreDisplay | None = Field(None, description='Only with include "display".')


class ScoreTasksResponse(BaseModel):
    """The per-task comparison of scores, ``mcnemar.score-tasks/1`` (as ``mcnemar compare
    --by-task --analysis scores --format json`` writes it), plus requested extras."""

    model_config = ConfigDict(extra="allow")

    schema_: Literal["mcnemar.score-tasks/1"] = Field(alias="schema")
    names: dict[str, str]
    overall: dict[str, Any]
    tasks: list[dict[str, Any]]
    markdown: str | None = Field(None, description='Only with include "markdown".')
    text: str | None = Field(None, description='Only with include "text".')
    display: ScoreTasksDisplay | None = Field(None, description='Only with include "display".')
