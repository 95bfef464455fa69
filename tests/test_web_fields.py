"""Every 422 of ``/api/v1/analyze`` names the field at fault (hypothesis over bad values).

For each field of the request, in both framings, a strategy draws values that are wrong for
that field only (the rest of the request valid); the answer must be a 422 in the one error
shape whose ``field`` is that field. Some are refused by the request models, others by the
library's own checks (the margin, the Bayesian summary's range and prior, the names, a
margin or summary that needs N): the library's errors name their argument
(:attr:`mcnemar.errors.McNemarError.arguments`), which the web maps to the field without
reading the message. The reference is the request itself: the field whose value was spoiled.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

pytest.importorskip("fastapi")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's test client warns about its httpx backend
    from fastapi.testclient import TestClient

from mcnemar import vocabulary
from mcnemar.web.app import create_app
from mcnemar.web.models import MAX_COUNT

CLIENT = TestClient(create_app(cache_size=0))
PASSES = {"a": 157, "b": 17, "c": 3, "d": 23}
ERRORS = {"framing": "errors", "both_right": 157, "only_a_wrong": 3, "only_b_wrong": 17,
          "both_wrong": 23}

# ---------------------------------------------------------------------------- bad values

not_a_number = st.one_of(
    st.booleans(), st.text(max_size=5), st.none(), st.lists(st.integers(), max_size=2),
)
bad_count = st.one_of(
    st.integers(max_value=-1),
    st.integers(min_value=MAX_COUNT + 1, max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: not x.is_integer()),
    st.booleans(),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=2),
)
outside_unit = st.one_of(
    st.floats(max_value=0.0, allow_nan=False, allow_infinity=False),
    st.floats(min_value=1.0, allow_nan=False, allow_infinity=False),
    not_a_number,
)
bad_choice = st.text(max_size=12).filter(
    lambda s: s not in vocabulary.names(vocabulary.ALTERNATIVES)
    and s not in vocabulary.names(vocabulary.MARGIN_METHODS)
)
bad_name = st.one_of(
    st.just(""), st.just("   "), st.text(min_size=81, max_size=120).filter(lambda s: s.strip()
                                                                        and len(s.strip()) > 80),
    st.integers(), st.booleans(),
)
def finite(**bounds: float) -> Any:
    return st.floats(allow_nan=False, allow_infinity=False, **bounds)


bad_margin = st.one_of(
    finite(max_value=0.0), finite(min_value=1.0),
    st.text(max_size=5), st.booleans(),
)
bad_rope = st.one_of(
    finite(max_value=-1e-9), finite(min_value=1.0),
    st.text(max_size=5).filter(lambda s: s.strip() == "" or not _numeral(s)), st.booleans(),
)
bad_prior = st.one_of(
    finite(max_value=0.0),
    st.lists(finite(max_value=0.0), min_size=4, max_size=4),
    st.lists(st.floats(min_value=0.5, max_value=2.0), min_size=2, max_size=3),
    st.booleans(),
)


def _numeral(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


# (field as the error names it, how to spoil a valid request, the values that spoil it)
CASES: list[tuple[str, dict[str, Any], Any]] = [
    *[(cell, PASSES, bad_count) for cell in ("a", "b", "c", "d")],
    *[(cell, ERRORS, bad_count)
      for cell in ("both_right", "only_a_wrong", "only_b_wrong", "both_wrong")],
    ("confidence_level", PASSES, outside_unit),
    ("alpha", ERRORS, outside_unit),
    ("alternative", PASSES, bad_choice),
    ("name_a", PASSES, bad_name),
    ("name_b", ERRORS, bad_name),
    ("margin", PASSES, bad_margin),
    ("margin_method", PASSES, bad_choice),
    ("include", PASSES, st.lists(bad_choice.filter(
        lambda s: s not in ("distribution", "markdown", "text")), min_size=1, max_size=2)),
]


def _post(body: dict[str, Any]) -> dict[str, Any]:
    response = CLIENT.post("/api/v1/analyze", json=body)
    assert response.status_code == 422, (body, response.text)
    error = response.json()["error"]
    assert error["status"] == 422 and error["errors"][0]["field"] == error["field"]
    assert isinstance(error["message"], str) and error["message"]
    return error


@pytest.mark.parametrize(("field", "base", "values"), CASES, ids=[c[0] for c in CASES])
def test_a_bad_value_is_a_422_naming_its_field(field: str, base: dict[str, Any],
                                               values: Any) -> None:
    @settings(max_examples=15, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow])
    @given(value=values)
    def check(value: Any) -> None:
        body = dict(base, **{field: value})
        if field in ("margin", "margin_method"):
            body.setdefault("margin", 0.01)
            body[field] = value
        named = _post(body)["field"]
        # A list's item is named with its index (include.0).
        assert named == field or named.startswith(field + "."), (body, named)

    check()


@settings(max_examples=15, deadline=None, derandomize=True)
@given(rope=bad_rope)
def test_a_bad_range_of_practical_equivalence_names_bayes_rope(rope: Any) -> None:
    assert _post(dict(PASSES, bayes={"rope": rope}))["field"] == "bayes.rope"


@settings(max_examples=15, deadline=None, derandomize=True)
@given(prior=bad_prior)
def test_a_bad_prior_names_bayes_prior(prior: Any) -> None:
    assert _post(dict(PASSES, bayes={"prior": prior}))["field"] == "bayes.prior"


@settings(max_examples=10, deadline=None, derandomize=True)
@given(value=st.one_of(st.integers(), st.text(max_size=5), st.lists(st.integers(), max_size=2)))
def test_a_bad_bayes_option_names_bayes(value: Any) -> None:
    if value in (0, 1):  # JSON true/false arrive as 1/0 in Python only via bool; ints are bad
        value = [value]
    assert _post(dict(PASSES, bayes=value))["field"] == "bayes"


@settings(max_examples=10, deadline=None, derandomize=True)
@given(name=st.text(min_size=1, max_size=40).filter(lambda s: s.strip() != ""))
def test_the_same_name_twice_names_name_b(name: str) -> None:
    """Refused by the library (``analyze(names=...)``), whose error names ``names``."""
    assert _post(dict(PASSES, name_a=name, name_b=name))["field"] == "name_b"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        # Checks across fields, made by the library's rules: each names the field to fix.
        (dict(PASSES, equivalence=True), "equivalence"),
        ({"b": 17, "c": 3, "margin": 0.01}, "margin"),
        ({"b": 17, "c": 3, "bayes": True}, "bayes"),
        (dict(PASSES, margin=0.01, alpha=0.6), "alpha"),
        (dict(PASSES, margin=0.01, margin_method="unconditional", a=10**6), "margin_method"),
        ({"framing": "errors", "only_a_wrong": 3, "only_b_wrong": 17, "bayes": True}, "bayes"),
        ({"a": MAX_COUNT, "b": 1, "c": 0, "d": 0}, None),  # the total: no single field
    ],
)
def test_checks_across_fields_name_the_field_to_fix(body: dict[str, Any],
                                                    field: str | None) -> None:
    assert _post(body)["field"] == field
