"""Property-based fuzzing of the calculator's JSON API.

Two fuzzers: schemathesis generates requests from the OpenAPI schema the app publishes
(valid ones and, in negative mode, invalid ones) and checks every response against that
schema; a hypothesis strategy throws arbitrary JSON at ``/api/v1/analyze``. Whatever
arrives, the server must never answer 500 and every error must have the one error shape.
"""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("fastapi")
schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.specs.openapi.checks import (  # noqa: E402
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's test client warns about its httpx backend
    from fastapi.testclient import TestClient

from mcnemar.web.app import create_app  # noqa: E402
from mcnemar.web.models import ReportResponse  # noqa: E402

APP = create_app(max_upload_mb=0.05)
SCHEMA = schemathesis.openapi.from_asgi("/api/v1/openapi.json", APP)
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    derandomize=True,
)


def _assert_error_shape(body: dict, status: int) -> None:
    error = body["error"]
    assert error["status"] == status
    assert isinstance(error["message"], str) and error["message"]
    assert error["field"] is None or isinstance(error["field"], str)
    assert isinstance(error["errors"], list) and error["errors"]
    for item in error["errors"]:
        assert set(item) == {"field", "message", "type"}


@FUZZ
@given(case=SCHEMA["/api/v1/analyze"]["POST"].as_strategy())
def test_analyze_valid_requests_conform_to_the_schema(case) -> None:
    """Schema-valid bodies: never a 500, every response (report or error) as documented."""
    response = case.call_and_validate(checks=CHECKS)
    if response.status_code != 200:
        _assert_error_shape(response.json(), response.status_code)


@FUZZ
@given(
    case=SCHEMA["/api/v1/analyze"]["POST"].as_strategy(
        generation_mode=schemathesis.GenerationMode.NEGATIVE
    )
)
def test_analyze_invalid_requests_are_rejected_with_4xx(case) -> None:
    """Schema-invalid bodies: a 4xx in the one error shape, never a 500 or a 200."""
    response = case.call_and_validate(checks=[*CHECKS, negative_data_rejection])
    assert 400 <= response.status_code < 500
    _assert_error_shape(response.json(), response.status_code)



@settings(FUZZ, max_examples=60)
@given(case=SCHEMA["/api/v1/compare"]["POST"].as_strategy())
def test_compare_uploads_never_crash(case) -> None:
    """Generated uploads (random bytes as result files) are a report or a 4xx, never a 500."""
    response = case.call_and_validate(checks=CHECKS)
    if response.status_code != 200:
        assert response.status_code < 500
        _assert_error_shape(response.json(), response.status_code)


# ----------------------------------------------------------------------------- raw JSON fuzz

_FIELDS = [
    "a", "b", "c", "d", "framing", "both_right", "only_a_wrong", "only_b_wrong", "both_wrong",
    "name_a", "name_b", "alternative", "confidence_level", "alpha", "include",
]
_json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
_json = st.recursive(
    _json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
# Mostly plausible values for the known fields, so that the fuzz also reaches the statistics.
_plausible = {
    "a": st.integers(0, 10**6) | _json_scalars,
    "b": st.integers(0, 10**7) | _json_scalars,
    "c": st.integers(0, 10**7) | _json_scalars,
    "d": st.integers(0, 10**6) | _json_scalars,
    "only_a_wrong": st.integers(0, 10**6) | _json_scalars,
    "only_b_wrong": st.integers(0, 10**6) | _json_scalars,
    "framing": st.sampled_from(["passes", "errors", "PASSES", ""]) | _json_scalars,
    "alternative": st.sampled_from(["two-sided", "greater", "less"]) | _json_scalars,
    "confidence_level": st.floats(0, 1) | _json_scalars,
    "alpha": st.floats(0, 1) | _json_scalars,
    "include": st.lists(st.sampled_from(["distribution", "markdown", "text", "x"]), max_size=4),
}
_bodies = st.fixed_dictionaries(
    {},
    optional={name: _plausible.get(name, _json) for name in _FIELDS},
) | _json


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(APP, raise_server_exceptions=False)


@FUZZ
@given(body=_bodies)
def test_arbitrary_json_never_gives_a_500(client: TestClient, body: object) -> None:
    response = client.post("/api/v1/analyze", json=body)
    assert response.status_code in (200, 422), response.text
    payload = response.json()
    if response.status_code == 200:
        report = ReportResponse.model_validate(payload)
        assert report.table.discordant == report.table.b + report.table.c
        assert 0 <= report.tests["exact"].pvalue <= 1
    else:
        _assert_error_shape(payload, 422)


@settings(FUZZ, max_examples=80)
@given(raw=st.binary(max_size=200))
def test_arbitrary_bytes_never_give_a_500(client: TestClient, raw: bytes) -> None:
    response = client.post(
        "/api/v1/analyze", content=raw, headers={"content-type": "application/json"}
    )
    assert response.status_code in (200, 400, 422)
    if response.status_code != 200:
        _assert_error_shape(response.json(), response.status_code)
