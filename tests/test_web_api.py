"""Tests of the calculator's JSON API, page and ``mcnemar serve`` (in process, no browser).

Reference values: the 200-item worked example (157, 17, 3, 23) and the other tables are from
docs/references.md and ``tests/data/published.csv`` (Newcombe 1998, Table III;
Fagerland, Lydersen & Laake 2013/2014; Tango 1998; contingencytables' test-ch8.R). The API must
return exactly what :func:`mcnemar.report.analyze` returns, so most checks compare the two and
a few check published numbers end to end.
"""

from __future__ import annotations

import asyncio
import csv
import html.parser
import itertools
import json
import math
import re
import socket
import warnings
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's test client warns about its httpx backend
    from fastapi.testclient import TestClient

from click.testing import CliRunner

from mcnemar.errors import McNemarError, TableError, option
from mcnemar.web import app as webapp
from mcnemar.web.app import create_app
from mcnemar.web.models import MAX_COUNT, ReportResponse
from mcnemar.web.upload import MalformedUpload, UploadTooLarge, read_multipart, safe_filename

DATA = Path(__file__).parent / "data" / "web"
REFERENCE = Path(__file__).parent / "data" / "published.csv"
EXAMPLE = {"a": 157, "b": 17, "c": 3, "d": 23}


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(), raise_server_exceptions=False)


def library_report(**kwargs: Any) -> dict[str, Any]:
    from mcnemar.report import analyze
    from mcnemar.table import PairedTable

    names = (kwargs.pop("name_a", "candidate"), kwargs.pop("name_b", "baseline"))
    keys = ("alternative", "confidence_level", "alpha")
    options = {k: kwargs.pop(k) for k in keys if k in kwargs}
    table = PairedTable(**kwargs)
    report = analyze(table, names=names, **options)
    return json.loads(json.dumps(report.to_dict()))


def assert_error(response: Any, status: int, field: str | None) -> dict[str, Any]:
    """The one error shape, with the expected status and field."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"}
    error = body["error"]
    assert set(error) == {"status", "message", "field", "errors"}
    assert error["status"] == status
    assert error["field"] == field
    assert isinstance(error["message"], str) and len(error["message"]) > 5
    assert error["errors"] and all(set(e) == {"field", "message", "type"} for e in error["errors"])
    assert error["errors"][0]["field"] == field
    return error


# ----------------------------------------------------------------------------- the contract


def test_analyze_returns_the_library_report_unchanged(client: TestClient) -> None:
    response = client.post("/api/v1/analyze", json=EXAMPLE)
    assert response.status_code == 200
    assert response.json() == library_report(**EXAMPLE)


def test_analyze_passes_every_option_through(client: TestClient) -> None:
    body = {
        "a": 59, "b": 6, "c": 16, "d": 80,
        "name_a": "new model", "name_b": "old model",
        "alternative": "less", "confidence_level": 0.9, "alpha": 0.01,
    }
    response = client.post("/api/v1/analyze", json=body)
    assert response.status_code == 200
    got = response.json()
    assert got == library_report(**body)
    assert got["names"] == {"a": "new model", "b": "old model"}
    assert got["alternative"] == "less"
    assert got["confidence_level"] == 0.9
    assert got["alpha"] == 0.01


def test_worked_example_200_items(client: TestClient) -> None:
    """docs/references.md, T1 = (157, 17, 3, 23) and the unpaired contrast (z 1.886, p 0.0593)."""
    got = client.post("/api/v1/analyze", json=EXAMPLE).json()
    assert got["schema"] == "mcnemar.report/1"
    assert got["table"] == {"a": 157, "b": 17, "c": 3, "d": 23, "n": 200, "discordant": 20}
    tests = got["tests"]
    assert tests["exact"]["pvalue"] == pytest.approx(0.0025768, rel=1e-4)
    assert tests["midp"]["pvalue"] == pytest.approx(0.0014896, rel=1e-4)
    assert tests["asymptotic"]["pvalue"] == pytest.approx(0.0017451, rel=1e-4)
    assert tests["corrected"]["pvalue"] == pytest.approx(0.0036504, rel=1e-4)
    assert got["recommended"]["test"] == "exact"  # D = 20 < 25
    diff = got["difference"]
    assert diff["estimate"] == pytest.approx(0.07)
    assert diff["intervals"]["newcombe"]["low"] == pytest.approx(0.026236, abs=1e-6)
    assert diff["intervals"]["newcombe"]["high"] == pytest.approx(0.116610, abs=1e-6)
    assert diff["intervals"]["wald"]["low"] == pytest.approx(0.027261, abs=1e-6)
    assert diff["intervals"]["wald"]["high"] == pytest.approx(0.112739, abs=1e-6)
    assert got["unpaired"]["statistic"] == pytest.approx(1.886, abs=5e-4)
    assert got["unpaired"]["pvalue"] == pytest.approx(0.0593, abs=5e-5)
    assert got["conclusion"]["significant"] is True
    assert got["conclusion"]["better"] == "a"
    assert "candidate" in got["conclusion"]["text"]


def _published_rows() -> list[dict[str, str]]:
    return list(csv.DictReader(REFERENCE.open(encoding="utf-8")))


# published.csv method -> where the report holds it
_LOCATIONS = {
    ("diff", "newcombe_method10"): ("difference", "newcombe"),
    ("diff", "newcombe_method8"): ("difference", "newcombe-plain"),
    ("diff", "tango_score"): ("difference", "tango"),
    ("diff", "wald"): ("difference", "wald"),
    ("diff", "wald_cc"): ("difference", "wald-cc"),
    ("diff", "bonett_price"): ("difference", "bonett-price"),
    ("ratio", "tang_score"): ("ratio", "tang"),
    ("ratio", "wald"): ("ratio", "wald"),
    ("ratio", "bonett_price_hybrid_wilson"): ("ratio", "bonett-price"),
    ("odds_ratio", "transformed_wilson"): ("odds_ratio", "wilson"),
    ("odds_ratio", "transformed_clopper_pearson"): ("odds_ratio", "exact"),
    ("odds_ratio", "transformed_midp"): ("odds_ratio", "midp"),
}
_TESTS = {
    "mcnemar_exact_conditional": "exact",
    "mcnemar_midp": "midp",
    "mcnemar_asymptotic": "asymptotic",
    "mcnemar_asymptotic_cc": "corrected",
}


def _tolerance(text: str) -> float:
    decimals = len(text.split(".")[1]) if "." in text else 0
    # one unit of the last printed digit: some published tables truncate rather than round
    return 10.0**-decimals + 1e-9


def _row_id(row: dict[str, str]) -> str:
    return f"{row['a']}-{row['b']}-{row['c']}-{row['d']}-{row['quantity']}-{row['method']}"


_INTERVAL_ROWS = [r for r in _published_rows() if (r["quantity"], r["method"]) in _LOCATIONS]
_PVALUE_ROWS = [r for r in _published_rows() if r["method"] in _TESTS]


@pytest.mark.parametrize("row", _INTERVAL_ROWS, ids=_row_id)
def test_published_intervals_end_to_end(client: TestClient, row: dict[str, str]) -> None:
    """Every interval in reference/published.csv (its `source` column) through the API."""
    body = {k: int(row[k]) for k in "abcd"}
    body["confidence_level"] = float(row["conf_level"])
    got = client.post("/api/v1/analyze", json=body).json()
    section, key = _LOCATIONS[(row["quantity"], row["method"])]
    block = got[section]
    assert block is not None, f"{section} missing for {body}"
    interval = block["intervals"][key]
    assert interval["low"] == pytest.approx(float(row["lower"]), abs=_tolerance(row["lower"]))
    if row["upper"].lower() in {"inf", "infinity"}:
        assert interval["high"] is None
    else:
        assert interval["high"] == pytest.approx(float(row["upper"]), abs=_tolerance(row["upper"]))


@pytest.mark.parametrize("row", _PVALUE_ROWS, ids=_row_id)
def test_published_pvalues_end_to_end(client: TestClient, row: dict[str, str]) -> None:
    """bentur_2009 = (1, 1, 7, 12): Fagerland, Lydersen & Laake (2013), via published.csv."""
    body = {k: int(row[k]) for k in "abcd"}
    got = client.post("/api/v1/analyze", json=body).json()
    pvalue = got["tests"][_TESTS[row["method"]]]["pvalue"]
    assert pvalue == pytest.approx(float(row["p"]), abs=_tolerance(row["p"]))


def test_no_discordant_pairs_is_a_result_not_an_error(client: TestClient) -> None:
    response = client.post("/api/v1/analyze", json={"a": 90, "b": 0, "c": 0, "d": 10})
    assert response.status_code == 200
    got = response.json()
    for test in got["tests"].values():
        assert test["pvalue"] == 1.0
    assert got["tests"]["asymptotic"]["statistic"] is None
    assert got["conclusion"]["significant"] is False
    assert got["conclusion"]["better"] is None


def test_a_and_d_are_optional(client: TestClient) -> None:
    got = client.post("/api/v1/analyze", json={"b": 17, "c": 3}).json()
    assert got["table"]["a"] is None and got["table"]["d"] is None and got["table"]["n"] is None
    assert got["difference"]["estimate"] is None
    assert got["tests"]["exact"]["pvalue"] == pytest.approx(0.0025768, rel=1e-4)
    assert got == library_report(b=17, c=3)


def test_errors_framing_is_mapped_by_the_library(client: TestClient) -> None:
    """"Only A wrong" is cell c and "only B wrong" is cell b (DESIGN.md, the tutorial's framing)."""
    body = {
        "framing": "errors",
        "only_a_wrong": 3,
        "only_b_wrong": 17,
        "both_wrong": 23,
        "both_right": 157,
    }
    errors = client.post("/api/v1/analyze", json=body).json()
    passes = client.post("/api/v1/analyze", json=EXAMPLE).json()
    assert errors == passes
    from mcnemar.table import PairedTable

    t = PairedTable.from_errors(only_a_wrong=3, only_b_wrong=17, both_wrong=23, both_right=157)
    assert (t.a, t.b, t.c, t.d) == (157, 17, 3, 23)


def test_repeated_requests_are_served_from_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Any] = []
    real = webapp._analyze

    def counting(table: Any, options: Any) -> Any:
        calls.append(table)
        return real(table, options)

    monkeypatch.setattr(webapp, "_analyze", counting)
    cached = TestClient(create_app(cache_size=2))
    first = cached.post("/api/v1/analyze", json=EXAMPLE).json()
    assert cached.post("/api/v1/analyze", json=EXAMPLE).json() == first
    assert len(calls) == 1
    # a different option is a different request
    cached.post("/api/v1/analyze", json=dict(EXAMPLE, alpha=0.01))
    assert len(calls) == 2
    # the least recently used entry is evicted
    cached.post("/api/v1/analyze", json=dict(EXAMPLE, alpha=0.02))
    cached.post("/api/v1/analyze", json=EXAMPLE)
    assert len(calls) == 4
    uncached = TestClient(create_app(cache_size=0))
    uncached.post("/api/v1/analyze", json=EXAMPLE)
    uncached.post("/api/v1/analyze", json=EXAMPLE)
    assert len(calls) == 6


def test_whole_numbers_sent_as_floats_are_counts(client: TestClient) -> None:
    as_floats = client.post("/api/v1/analyze", json={k: float(v) for k, v in EXAMPLE.items()})
    assert as_floats.status_code == 200
    assert as_floats.json() == client.post("/api/v1/analyze", json=EXAMPLE).json()


def test_the_response_matches_the_documented_model(client: TestClient) -> None:
    body = dict(EXAMPLE, include=["distribution", "markdown", "text"])
    got = client.post("/api/v1/analyze", json=body).json()
    ReportResponse.model_validate(got)


# ----------------------------------------------------------------------------- extras


def test_include_markdown_and_text_are_the_library_renderings(client: TestClient) -> None:
    from mcnemar.report import analyze
    from mcnemar.table import PairedTable

    report = analyze(PairedTable(**EXAMPLE), names=("candidate", "baseline"))
    got = client.post("/api/v1/analyze", json=dict(EXAMPLE, include=["markdown", "text"])).json()
    assert got["markdown"] == report.to_markdown()
    assert got["text"] == str(report)
    plain = client.post("/api/v1/analyze", json=EXAMPLE).json()
    assert {k: v for k, v in got.items() if k not in {"markdown", "text"}} == plain
    assert "markdown" not in plain and "distribution" not in plain


def test_distribution_is_binomial_half_exactly(client: TestClient) -> None:
    """Small D: every k, and P(X = k) = C(D, k) / 2**D computed with exact fractions."""
    got = client.post("/api/v1/analyze", json={"b": 17, "c": 3, "include": ["distribution"]})
    dist = got.json()["distribution"]
    assert dist["discordant"] == 20 and dist["observed"] == 17 and dist["step"] == 1
    assert dist["k"] == list(range(21))
    for k, p in zip(dist["k"], dist["pmf"], strict=True):
        assert p == pytest.approx(float(Fraction(comb(20, k), 2**20)), rel=1e-12)


@pytest.mark.parametrize(
    ("b", "c"),
    [(0, 0), (1, 0), (600, 400), (5000, 5000), (10**6, 0), (10**9 + 7, 10**9)],
)
def test_distribution_window_for_a_picture(client: TestClient, b: int, c: int) -> None:
    dist = client.post(
        "/api/v1/analyze", json={"b": b, "c": c, "include": ["distribution"]}
    ).json()["distribution"]
    n = b + c
    k = dist["k"]
    assert len(k) <= 242 and len(k) == len(dist["pmf"])
    assert all(0 <= x <= n for x in k) and k == sorted(k)
    assert all(y - x == dist["step"] for x, y in itertools.pairwise(k))
    # the centre of the distribution is always in the window
    assert k[0] <= n / 2 <= k[-1] + dist["step"]
    # the mass drawn is (nearly) all of it: sum of pmf * step over a window of >= 6 sd
    if n:
        assert sum(dist["pmf"]) * dist["step"] == pytest.approx(1.0, abs=0.02)
    # an observed split near the centre is inside the window
    if n and abs(b - n / 2) <= 10 * math.sqrt(n) / 2:
        assert k[0] <= b <= k[-1] + dist["step"]


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("body", "field", "echo"),
    [
        ({"b": -1, "c": 3}, "b", "-1"),
        ({"b": 17, "c": -3}, "c", "-3"),
        ({"b": 1.5, "c": 3}, "b", "1.5"),
        ({"b": True, "c": 3}, "b", "True"),
        ({"b": "17", "c": 3}, "b", "'17'"),
        ({"b": "abc", "c": 3}, "b", "'abc'"),
        ({"b": None, "c": 3}, "b", "None"),
        ({"b": [1], "c": 3}, "b", "array"),
        ({"a": -5, "b": 1, "c": 3}, "a", "-5"),
        ({"b": 1, "c": 3, "d": 2.25}, "d", "2.25"),
        ({"b": MAX_COUNT + 1, "c": 3}, "b", str(MAX_COUNT + 1)),
        ({"c": 3}, "b", None),
        ({"b": 3}, "c", None),
        ({"b": 1, "c": 3, "alternative": "bigger"}, "alternative", "'bigger'"),
        ({"b": 1, "c": 3, "confidence_level": 0}, "confidence_level", "0"),
        ({"b": 1, "c": 3, "confidence_level": 1}, "confidence_level", "1"),
        ({"b": 1, "c": 3, "confidence_level": 95}, "confidence_level", "95"),
        ({"b": 1, "c": 3, "confidence_level": -0.5}, "confidence_level", "-0.5"),
        ({"b": 1, "c": 3, "confidence_level": True}, "confidence_level", "True"),
        ({"b": 1, "c": 3, "confidence_level": "0.95"}, "confidence_level", "'0.95'"),
        ({"b": 1, "c": 3, "alpha": 1.5}, "alpha", "1.5"),
        ({"b": 1, "c": 3, "name_a": ""}, "name_a", "''"),
        ({"b": 1, "c": 3, "name_b": "x" * 81}, "name_b", None),
        ({"b": 1, "c": 3, "include": ["pdf"]}, "include.0", "'pdf'"),
        ({"b": 1, "c": 3, "framing": "wrong"}, "framing", "'wrong'"),
        ({"b": 1, "c": 3, "alternativ": "less"}, "alternativ", None),
        ({"b": 1, "c": 3, "only_a_wrong": 2}, "only_a_wrong", None),
        ({"framing": "errors", "only_a_wrong": 2}, "only_b_wrong", None),
        ({"framing": "errors", "only_a_wrong": -2, "only_b_wrong": 1}, "only_a_wrong", "-2"),
        # refused by the library (PairedTable), not by the request model
        ({"a": 5, "b": 1, "c": 3}, "a", None),
        ({"framing": "errors", "only_a_wrong": 2, "only_b_wrong": 1, "both_right": 3},
         "both_right", None),
    ],
)
def test_bad_input_is_a_422_naming_the_field(
    client: TestClient, body: dict[str, Any], field: str, echo: str | None
) -> None:
    error = assert_error(client.post("/api/v1/analyze", json=body), 422, field)
    if error["errors"][0]["type"] != "mcnemar":  # the library words its own messages
        assert error["message"].startswith(field.split(".")[0])
    if echo is not None:
        assert echo in error["message"]


def test_more_items_than_the_page_can_count_is_a_422(client: TestClient) -> None:
    body = {"a": MAX_COUNT, "b": 1, "c": 3, "d": 0}
    error = assert_error(client.post("/api/v1/analyze", json=body), 422, None)
    assert "add up to" in error["message"] and str(MAX_COUNT + 4) in error["message"]


def test_every_problem_is_listed(client: TestClient) -> None:
    error = assert_error(
        client.post("/api/v1/analyze", json={"b": -1, "c": 1.5, "alternative": "x"}), 422, "b"
    )
    assert {e["field"] for e in error["errors"]} == {"b", "c", "alternative"}
    assert "2 more problems" in error["message"]


@pytest.mark.parametrize(
    ("content", "headers", "needle"),
    [
        (b"{not json", {"content-type": "application/json"}, "not valid JSON"),
        (b"[1, 2, 3]", {"content-type": "application/json"}, "JSON object"),
        (b"17", {"content-type": "application/json"}, "JSON object"),
        (b"b=17&c=3", {"content-type": "application/x-www-form-urlencoded"}, "application/json"),
        (b"", {"content-type": "application/json"}, "missing"),
    ],
)
def test_malformed_bodies(
    client: TestClient, content: bytes, headers: dict[str, str], needle: str
) -> None:
    response = client.post("/api/v1/analyze", content=content, headers=headers)
    error = assert_error(response, 422, None)
    assert needle in error["message"]


def test_undecodable_body_is_a_400(client: TestClient) -> None:
    response = client.post(
        "/api/v1/analyze", content=b"\x80\xff", headers={"content-type": "application/json"}
    )
    assert "UTF-8" in assert_error(response, 400, None)["message"]


def test_unknown_routes_and_methods_have_the_error_shape(client: TestClient) -> None:
    assert "/nowhere" in assert_error(client.get("/nowhere"), 404, None)["message"]
    assert "GET" in assert_error(client.get("/api/v1/analyze"), 405, None)["message"]
    assert_error(client.get("/static/missing.js"), 404, None)


def test_library_errors_become_422_naming_the_field(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(table: Any, options: Any, alignment: Any = None) -> Any:
        raise TableError(f"{option('b')} must be a count of items; got 3000000000000000000000")

    monkeypatch.setattr(webapp, "_analyze", refuse)
    fresh = TestClient(create_app(), raise_server_exceptions=False)
    error = assert_error(fresh.post("/api/v1/analyze", json={"b": 1, "c": 2}), 422, "b")
    assert error["errors"][0]["type"] == "mcnemar"


def test_a_bug_is_a_500_in_the_same_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    def crash(table: Any, options: Any, alignment: Any = None) -> Any:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(webapp, "_analyze", crash)
    fresh = TestClient(create_app(), raise_server_exceptions=False)
    error = assert_error(fresh.post("/api/v1/analyze", json={"b": 1, "c": 2}), 500, None)
    assert "ZeroDivisionError" in error["message"] and "bug" in error["message"]


@pytest.mark.parametrize(
    ("argument", "framing", "field"),
    [
        ("b", "passes", "b"),
        ("b", "errors", "only_b_wrong"),  # cell b is "only B wrong"
        ("c", "errors", "only_a_wrong"),
        ("d", "errors", "both_wrong"),
        ("confidence_level", "passes", "confidence_level"),
        ("credible_level", "passes", "confidence_level"),  # the report's level is the bayes one
        ("rope", "passes", "bayes.rope"),
        ("names", "errors", "name_b"),
        ("method", "passes", None),  # an argument the request does not have
    ],
)
def test_library_error_fields_come_from_the_argument(
    monkeypatch: pytest.MonkeyPatch, argument: str, framing: str, field: str | None
) -> None:
    """The field is the argument the error names, never a word of its message."""

    def refuse(table: Any, options: Any, alignment: Any = None) -> Any:
        # The message mentions other fields by name: they must not be taken for the field.
        raise McNemarError(f"alpha, b and a are fine, but {option(argument)} is not")

    monkeypatch.setattr(webapp, "_analyze", refuse)
    fresh = TestClient(create_app(cache_size=0))
    body: dict[str, Any] = {"b": 1, "c": 2}
    if framing == "errors":
        body = {"framing": "errors", "only_a_wrong": 2, "only_b_wrong": 1}
    assert_error(fresh.post("/api/v1/analyze", json=body), 422, field)


def test_a_library_error_naming_no_argument_names_no_field(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(table: Any, options: Any, alignment: Any = None) -> Any:
        raise McNemarError("b must be >= 0 and confidence_level in (0, 1)")

    monkeypatch.setattr(webapp, "_analyze", refuse)
    fresh = TestClient(create_app(cache_size=0))
    assert_error(fresh.post("/api/v1/analyze", json={"b": 1, "c": 2}), 422, None)


# ----------------------------------------------------------------------------- the page


class _Inputs(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.controls: list[dict[str, str | None]] = []
        self.label_for: set[str] = set()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag in {"input", "select", "textarea"} and a.get("type") != "hidden":
            self.controls.append(a)
        if tag == "label" and a.get("for"):
            self.label_for.add(str(a["for"]))
        for key in ("src", "href"):
            if a.get(key):
                self.urls.append(str(a[key]))


def test_page_every_control_has_a_label_and_nothing_is_remote(client: TestClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in response.headers["content-security-policy"]
    parser = _Inputs()
    parser.feed(response.text)
    ids = {c.get("id") for c in parser.controls}
    assert {"a", "b", "c", "d", "name_a", "name_b", "alternative", "confidence_level"} <= ids
    assert {"only_a_wrong", "only_b_wrong", "both_wrong", "both_right", "file_a", "file_b"} <= ids
    for control in parser.controls:
        if control.get("type") == "radio":
            assert control.get("id") in parser.label_for
        else:
            assert control.get("id") in parser.label_for, control
    # works offline: nothing is fetched from another host
    for url in parser.urls:
        assert not re.match(r"^(https?:)?//", url), url
    for url in [u for u in parser.urls if u.startswith("/static/")]:
        asset = client.get(url)
        assert asset.status_code == 200, url
        text = asset.text.replace("http://www.w3.org/2000/svg", "")  # a name, not a fetch
        assert "http://" not in text and "https://" not in text
    assert "{{" not in response.text  # every placeholder filled


def test_page_states_the_upload_limit() -> None:
    page = TestClient(create_app(max_upload_mb=7.5)).get("/").text
    assert "7.5 MB" in page and 'data-max-mb="7.5"' in page


def test_health_and_protective_headers(client: TestClient) -> None:
    response = client.get("/api/v1/health")
    assert response.json()["status"] == "ok"
    assert response.headers["x-content-type-options"] == "nosniff"


def test_openapi_documents_both_endpoints(client: TestClient) -> None:
    schema = client.get("/api/v1/openapi.json").json()
    analyze_op = schema["paths"]["/api/v1/analyze"]["post"]
    assert "422" in analyze_op["responses"] and "200" in analyze_op["responses"]
    compare_op = schema["paths"]["/api/v1/compare"]["post"]
    body = compare_op["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert body["required"] == ["file_a", "file_b"]
    assert "413" in compare_op["responses"]


def test_host_header_is_checked_when_asked() -> None:
    guarded = TestClient(create_app(allowed_hosts=["127.0.0.1", "localhost"]))
    assert guarded.get("/api/v1/health", headers={"host": "127.0.0.1:8000"}).status_code == 200
    assert guarded.get("/api/v1/health", headers={"host": "localhost"}).status_code == 200
    foreign = guarded.get("/api/v1/health", headers={"host": "attacker.example:8000"})
    assert_error(foreign, 400, None)


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({}, 200),  # curl and scripts send no Origin
        ({"origin": "http://testserver", "sec-fetch-site": "same-origin"}, 200),
        ({"origin": "https://testserver:443"}, 200),
        ({"origin": "http://evil.example"}, 403),
        ({"origin": "http://testserver:8001"}, 403),  # another port is another origin
        ({"origin": "null"}, 403),
        ({"origin": "http://testserver", "sec-fetch-site": "cross-site"}, 403),
        ({"sec-fetch-site": "same-site"}, 403),
        ({"sec-fetch-site": "none"}, 200),  # typed by the user
    ],
)
def test_state_changing_requests_from_other_origins_are_refused(
    client: TestClient, headers: dict[str, str], status: int
) -> None:
    response = client.post("/api/v1/analyze", json=EXAMPLE, headers=headers)
    if status == 200:
        assert response.status_code == 200, response.text
    else:
        error = assert_error(response, 403, None)
        assert error["errors"][0]["type"] == "cross_origin"


def test_the_origin_check_covers_every_unsafe_method_and_no_safe_one(client: TestClient) -> None:
    hostile = {"origin": "http://evil.example", "sec-fetch-site": "cross-site"}
    for method in ("POST", "PUT", "PATCH", "DELETE"):
        assert_error(client.request(method, "/api/v1/compare", headers=hostile), 403, None)
    # Reading is harmless (and CORS keeps the answer from the foreign page).
    assert client.get("/api/v1/health", headers=hostile).status_code == 200
    assert client.get("/", headers=hostile).status_code == 200


def test_json_bodies_are_limited_before_and_while_reading() -> None:
    small = TestClient(create_app(max_json_bytes=1_000))
    assert small.post("/api/v1/analyze", json=EXAMPLE).status_code == 200
    body = json.dumps(dict(EXAMPLE, name_a="x" * 2_000)).encode()
    error = assert_error(
        small.post("/api/v1/analyze", content=body,
                   headers={"content-type": "application/json"}), 413, None)
    assert "1000 bytes" in error["message"]
    # Without a Content-Length (chunked), the bytes are counted as they arrive.
    def chunks() -> Any:
        yield body[:600]
        yield body[600:]

    response = small.post("/api/v1/analyze", content=chunks(),
                          headers={"content-type": "application/json"})
    assert_error(response, 413, None)
    assert response.headers["connection"] == "close"


def test_app_from_environment_reads_every_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = {"max_upload_mb": 0.5, "allowed_hosts": ["127.0.0.1", "calc.test"],
                "max_inflated_mb": 3.0, "max_archive_members": 7, "request_timeout": 4.0}
    monkeypatch.setenv("MCNEMAR_SERVE_SETTINGS", json.dumps(settings))
    guarded = TestClient(webapp.app_from_environment())
    assert guarded.get("/api/v1/health", headers={"host": "calc.test"}).json()[
        "max_upload_mb"] == 0.5
    assert_error(guarded.get("/api/v1/health", headers={"host": "evil.example"}), 400, None)


def test_create_app_refuses_a_bad_limit() -> None:
    with pytest.raises(McNemarError, match="max_upload_mb"):
        create_app(max_upload_mb=0)


# ----------------------------------------------------------------------------- uploads



def _count_cells(path_a: Path, path_b: Path) -> dict[str, int]:
    """Brute-force pairing of the two fixture CSVs (independent of mcnemar.io)."""
    a = {r["id"]: int(r["correct"]) for r in csv.DictReader(path_a.open())}
    b = {r["id"]: int(r["correct"]) for r in csv.DictReader(path_b.open())}
    assert a.keys() == b.keys()
    cells = {"a": 0, "b": 0, "c": 0, "d": 0}
    for key in a:
        cell = {(1, 1): "a", (1, 0): "b", (0, 1): "c", (0, 0): "d"}[(a[key], b[key])]
        cells[cell] += 1
    return cells


def _files(a: str = "candidate.csv", b: str = "baseline.csv") -> dict[str, Any]:
    return {
        "file_a": (a, (DATA / a).read_bytes(), "text/csv"),
        "file_b": (b, (DATA / b).read_bytes(), "text/csv"),
    }


def _zip_with(tmp_path: Path, entries: dict[str, bytes]) -> bytes:
    import zipfile

    path = tmp_path / "run.eval"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return path.read_bytes()


def test_compare_refuses_an_archive_over_the_inflate_budget(tmp_path: Path) -> None:
    # 3 MB of spaces deflate to a few kB; the budget here is 1 MB (1024**2 bytes).
    bomb = _zip_with(tmp_path, {"header.json": b" " * 3_000_000})
    assert len(bomb) < 20_000
    budget = TestClient(create_app(max_inflated_mb=1), raise_server_exceptions=False)
    files = {"file_a": ("mine.eval", bomb), "file_b": _files()["file_b"]}
    error = assert_error(budget.post("/api/v1/compare", files=files), 413, "file_a")
    assert "mine.eval" in error["message"] and "1 MB" in error["message"]
    assert "mcnemar serve --max-inflated-mb" in error["message"]
    # A damaged archive is still a 422 (the file's fault, not a budget).
    files = {"file_a": ("broken.eval", bomb[:-30]), "file_b": _files()["file_b"]}
    assert_error(budget.post("/api/v1/compare", files=files), 422, "file_a")


def test_compare_refuses_an_archive_with_too_many_entries(tmp_path: Path) -> None:
    crowded = _zip_with(tmp_path, {f"samples/{i}.json": b"{}" for i in range(30)})
    limited = TestClient(create_app(max_archive_members=20), raise_server_exceptions=False)
    files = {"file_a": _files()["file_a"], "file_b": ("crowded.eval", crowded)}
    error = assert_error(limited.post("/api/v1/compare", files=files), 413, "file_b")
    assert "crowded.eval" in error["message"] and "20 allowed" in error["message"]


def test_compare_refuses_a_parquet_file_declaring_too_many_rows(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    path = tmp_path / "rows.parquet"
    n = 2_000
    table = pa.table({"id": [f"q{i}" for i in range(n)], "correct": [i % 2 for i in range(n)]})
    pq.write_table(table, path)
    data = path.read_bytes()
    # 0.01 MB = 10,485 bytes: room for 1,310 rows of 8 bytes, fewer than the 2,000 declared.
    tight = TestClient(create_app(max_inflated_mb=0.01), raise_server_exceptions=False)
    files = {"file_a": ("rows.parquet", data), "file_b": ("rows.parquet", data)}
    error = assert_error(tight.post("/api/v1/compare", files=files), 413, "file_a")
    assert "2000 rows" in error["message"] and "1310 rows" in error["message"]
    roomy = TestClient(create_app(max_inflated_mb=0.02), raise_server_exceptions=False)
    response = roomy.post("/api/v1/compare", files=files)
    assert response.status_code == 200, response.text
    assert response.json()["table"]["n"] == n


def test_compare_answers_503_when_the_work_takes_too_long(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading
    import time

    import mcnemar.io

    real_align = mcnemar.io.align
    finished = threading.Event()

    def slow_align(*args: Any, **kwargs: Any) -> Any:
        time.sleep(2.5)
        try:
            return real_align(*args, **kwargs)
        finally:
            finished.set()

    monkeypatch.setattr(mcnemar.io, "align", slow_align)
    hurried = TestClient(create_app(compare_timeout=2), raise_server_exceptions=False)
    error = assert_error(hurried.post("/api/v1/compare", files=_files()), 503, None)
    assert "longer than the server's limit of 2 s" in error["message"]
    assert "mcnemar compare" in error["message"]
    # The work finishes in the background and frees its slot; the next upload is served.
    assert finished.wait(10)
    monkeypatch.setattr(mcnemar.io, "align", real_align)
    time.sleep(0.5)
    again = hurried.post("/api/v1/compare", files=_files())
    assert again.status_code == 200, again.text


def test_archive_directory_is_walked_not_trusted(tmp_path: Path) -> None:
    from mcnemar.io._archive import zip_module
    from mcnemar.web.upload import check_archive_directory

    data = bytearray(_zip_with(tmp_path, {f"e{i}": b"x" * (i % 5) for i in range(500)}))
    at = data.rfind(b"PK\x05\x06")
    data[at + 8:at + 12] = (1).to_bytes(2, "little") * 2  # the record claims 1 entry
    lying = tmp_path / "lying.zip"
    lying.write_bytes(bytes(data))
    assert len(zip_module().ZipFile(lying).infolist()) == 500  # what zipfile would build
    check_archive_directory(lying, 500)
    with pytest.raises(McNemarError, match="at least 500 entries, more than the 499 allowed"):
        check_archive_directory(lying, 499)
    prefixed = tmp_path / "prefixed.zip"  # data before the archive (a self-extractor)
    prefixed.write_bytes(b"#!" * 5_000 + bytes(data))
    with pytest.raises(McNemarError, match="more than the 10 allowed"):
        check_archive_directory(prefixed, 10)
    plain = tmp_path / "plain.csv"
    plain.write_text("id,correct\nq1,1\n")
    check_archive_directory(plain, 1)  # not an archive: left to the reader


def test_compare_aligns_two_files(client: TestClient) -> None:
    response = client.post(
        "/api/v1/compare",
        files=_files(),
        data={"name_a": "new", "name_b": "old", "include": "markdown,distribution"},
    )
    assert response.status_code == 200, response.text
    got = response.json()
    expected = _count_cells(DATA / "candidate.csv", DATA / "baseline.csv")
    assert {k: got["table"][k] for k in "abcd"} == expected
    assert got["names"] == {"a": "new", "b": "old"}
    alignment = got["alignment"]  # the alignment summary travels with the report
    assert alignment["matched"] == 200 and alignment["dropped"]["total"] == 0
    # the server's temporary paths never reach the client: the uploaded names do
    assert alignment["runs"]["a"]["path"] == "candidate.csv"
    assert alignment["runs"]["b"]["path"] == "baseline.csv"
    assert "mcnemar-upload-" not in response.text
    assert "markdown" in got and "distribution" in got
    counts = client.post("/api/v1/analyze", json=dict(expected, name_a="new", name_b="old")).json()
    assert got["tests"] == counts["tests"]


def test_compare_pairing_options(client: TestClient) -> None:
    a = b"id,correct\nq1,1\nq2,0\nq3,1\n"
    b = b"id,correct\nq2,1\nq3,1\nq4,0\n"
    files = {"file_a": ("a.csv", a, "text/csv"), "file_b": ("b.csv", b, "text/csv")}
    # The pairing error names its argument, on_missing: the form's field of the same name.
    error = assert_error(client.post("/api/v1/compare", files=files), 422, "on_missing")
    assert "q1" in error["message"] and "intersect" in error["message"]
    response = client.post("/api/v1/compare", files=files, data={"on_missing": "intersect"})
    assert response.status_code == 200, response.text
    got = response.json()
    assert got["alignment"]["dropped"]["total"] == 2
    assert {k: got["table"][k] for k in "abcd"} == {"a": 1, "b": 0, "c": 1, "d": 0}
    scores = {
        "file_a": ("a.csv", b"id,score\nq1,0.9\nq2,0.2\n", "text/csv"),
        "file_b": ("b.csv", b"id,score\nq1,0.4\nq2,0.7\n", "text/csv"),
    }
    got = client.post("/api/v1/compare", files=scores, data={"threshold": "0.5"}).json()
    assert {k: got["table"][k] for k in "abcd"} == {"a": 0, "b": 1, "c": 1, "d": 0}
    assert_error(
        client.post("/api/v1/compare", files=scores, data={"threshold": "high"}), 422, "threshold"
    )


def test_compare_malformed_file_names_the_field(client: TestClient) -> None:
    response = client.post("/api/v1/compare", files=_files(a="malformed.csv"))
    error = assert_error(response, 422, "file_a")
    assert "malformed.csv" in error["message"]
    assert "mcnemar-upload-" not in error["message"]  # no temporary paths leak


def test_compare_requires_both_files(client: TestClient) -> None:
    files = _files()
    del files["file_b"]
    assert_error(client.post("/api/v1/compare", files=files), 422, "file_b")


def test_compare_refuses_non_multipart(client: TestClient) -> None:
    error = assert_error(client.post("/api/v1/compare", json={"b": 1}), 422, None)
    assert "multipart/form-data" in error["message"]


def test_compare_refuses_unexpected_file_fields(client: TestClient) -> None:
    files = _files()
    files["file_c"] = ("x.csv", b"id,correct\n", "text/csv")
    assert_error(client.post("/api/v1/compare", files=files), 422, "file_c")


def test_compare_validates_options_like_the_json_api(client: TestClient) -> None:
    error = assert_error(
        client.post("/api/v1/compare", files=_files(), data={"confidence_level": "95"}),
        422,
        "confidence_level",
    )
    assert "95" in error["message"]
    assert_error(
        client.post("/api/v1/compare", files=_files(), data={"alternative": "up"}),
        422,
        "alternative",
    )


def test_compare_oversized_file_is_a_413_naming_it() -> None:
    small = TestClient(create_app(max_upload_mb=0.001), raise_server_exceptions=False)  # 1000 B
    big = b"id,correct\n" + b"".join(b"q%05d,1\n" % i for i in range(500))
    files = {
        "file_a": ("a.csv", b"id,correct\nq1,1\n", "text/csv"),
        "file_b": ("b.csv", big, "text/csv"),
    }
    error = assert_error(small.post("/api/v1/compare", files=files), 413, "file_b")
    assert error["message"].startswith("file_b (b.csv) is larger than the limit of 1000 bytes")
    assert "--max-upload-mb" in error["message"]


def test_compare_declared_length_over_the_limit_is_refused_before_reading() -> None:
    small = TestClient(create_app(max_upload_mb=0.001), raise_server_exceptions=False)
    response = small.post(
        "/api/v1/compare",
        content=b"x" * 10,
        headers={"content-type": "multipart/form-data; boundary=zz", "content-length": "99999999"},
    )
    assert_error(response, 413, None)


def _stream(chunks: list[bytes], seen: list[int]) -> Any:
    async def gen() -> Any:
        for chunk in chunks:
            seen.append(len(chunk))
            yield chunk

    return gen()


def _multipart(parts: list[tuple[str, str | None, bytes]], boundary: str = "BOUNDARY") -> bytes:
    out = b""
    for name, filename, payload in parts:
        disp = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename else "")
        out += f"--{boundary}\r\nContent-Disposition: {disp}\r\n\r\n".encode() + payload + b"\r\n"
    return out + f"--{boundary}--\r\n".encode()


def test_upload_limit_is_enforced_while_streaming(tmp_path: Path) -> None:
    body = _multipart([("file_a", "a.csv", b"x" * 5000), ("file_b", "b.csv", b"y" * 10)])
    chunks = [body[i : i + 256] for i in range(0, len(body), 256)]
    seen: list[int] = []
    with pytest.raises(UploadTooLarge) as info:
        asyncio.run(
            read_multipart(
                "multipart/form-data; boundary=BOUNDARY",
                _stream(chunks, seen),
                tmp_path,
                file_fields=frozenset({"file_a", "file_b"}),
                max_file_bytes=1000,
            )
        )
    assert info.value.field == "file_a"
    # what reached the disk stopped at the limit
    assert (tmp_path / "file_a" / "a.csv").stat().st_size <= 1000


def test_upload_reader_saves_files_and_fields(tmp_path: Path) -> None:
    body = _multipart(
        [("name_a", None, b"new"), ("file_a", "../../etc/a b.csv", b"id,correct\n1,1\n"),
         ("file_b", "b.jsonl", b"{}\n")]
    )
    seen: list[int] = []
    parsed = asyncio.run(
        read_multipart(
            "multipart/form-data; boundary=BOUNDARY",
            _stream([body[:7], body[7:]], seen),
            tmp_path,
            file_fields=frozenset({"file_a", "file_b"}),
            max_file_bytes=1000,
        )
    )
    assert parsed.fields == {"name_a": ["new"]}
    assert parsed.files["file_a"] == tmp_path / "file_a" / "a_b.csv"
    assert parsed.files["file_a"].read_bytes() == b"id,correct\n1,1\n"
    assert parsed.filenames["file_a"] == "../../etc/a b.csv"
    assert parsed.files["file_b"].name == "b.jsonl"


@pytest.mark.parametrize(
    ("content_type", "body", "needle"),
    [
        ("application/json", b"{}", "multipart/form-data"),
        ("multipart/form-data", b"", "boundary"),
        ("multipart/form-data; boundary=BOUNDARY", b"garbage without framing", "multipart"),
    ],
)
def test_upload_reader_refuses_malformed(
    tmp_path: Path, content_type: str, body: bytes, needle: str
) -> None:
    with pytest.raises(MalformedUpload, match=needle):
        asyncio.run(
            read_multipart(
                content_type,
                _stream([body], []),
                tmp_path,
                file_fields=frozenset({"file_a"}),
                max_file_bytes=100,
            )
        )


@pytest.mark.parametrize(
    ("name", "safe"),
    [
        ("run.jsonl", "run.jsonl"),
        ("C:\\evals\\run a.csv", "run_a.csv"),
        ("../../.bashrc", "bashrc"),
        ("", "upload"),
        ("результаты.csv", "_.csv"),
        ("x" * 300 + ".parquet", "x" * 92 + ".parquet"),
    ],
)
def test_safe_filename(name: str, safe: str) -> None:
    assert safe_filename(name) == safe


# ----------------------------------------------------------------------------- mcnemar serve


def test_serve_help_lists_the_options() -> None:
    from mcnemar.cli import main

    result = CliRunner().invoke(main, ["serve", "--help"])
    assert result.exit_code == 0
    for flag in ("--host", "--port", "--open", "--max-upload-mb", "--allowed-host",
                 "--max-inflated-mb", "--max-archive-members", "--request-timeout",
                 "--keep-alive-timeout", "--workers"):
        assert flag in result.output


def test_serve_names_the_web_extra_when_fastapi_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from mcnemar.cli import main

    real = importlib.util.find_spec

    def fake_find_spec(name: str, *args: Any, **kwargs: Any) -> Any:
        return None if name in {"fastapi", "uvicorn"} else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", fake_find_spec)
    result = CliRunner().invoke(main, ["serve", "--port", "0"])
    assert result.exit_code == 2
    assert "mcnemar[web]" in result.output
    assert "fastapi" in result.output and "uvicorn" in result.output


def test_serve_reports_a_busy_port() -> None:
    from mcnemar.cli import main

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        result = CliRunner().invoke(main, ["serve", "--port", str(port)])
    assert result.exit_code == 2
    assert f"127.0.0.1:{port}" in result.output and "--port" in result.output


def test_serve_refuses_a_bad_upload_limit() -> None:
    from mcnemar.cli import main

    result = CliRunner().invoke(main, ["serve", "--max-upload-mb", "0"])
    assert result.exit_code == 2


@pytest.mark.parametrize(
    ("host", "loopback", "url"),
    [
        ("127.0.0.1", True, "http://127.0.0.1:8000/"),
        ("localhost", True, "http://localhost:8000/"),
        ("::1", True, "http://[::1]:8000/"),
        ("0.0.0.0", False, "http://127.0.0.1:8000/"),
        ("192.168.1.10", False, "http://192.168.1.10:8000/"),
    ],
)
def test_serve_url_and_loopback(host: str, loopback: bool, url: str) -> None:
    from mcnemar.cli.serve import _is_loopback, _url

    assert _is_loopback(host) is loopback
    assert _url(host, 8000) == url


@pytest.mark.parametrize(
    ("host", "extra", "allowed"),
    [
        ("127.0.0.1", (), ["127.0.0.1", "localhost", "[::1]", "::1"]),
        ("127.0.0.2", (), ["127.0.0.1", "localhost", "[::1]", "::1", "127.0.0.2"]),
        ("::1", ("Calc.Test",), ["127.0.0.1", "localhost", "[::1]", "::1", "calc.test"]),
        ("0.0.0.0", ("box.lan", "fe80::1"),
         ["127.0.0.1", "localhost", "[::1]", "::1", "box.lan", "[fe80::1]"]),
    ],
)
def test_serve_allowed_hosts(host: str, extra: tuple[str, ...], allowed: list[str]) -> None:
    from mcnemar.cli.serve import _allowed_hosts

    assert _allowed_hosts(host, extra) == allowed


@pytest.mark.parametrize("name", ["http://box.lan", "box.lan:8000", "", "a b"])
def test_serve_refuses_an_allowed_host_that_is_not_a_name(name: str) -> None:
    from mcnemar.cli import main

    result = CliRunner().invoke(main, ["serve", "--port", "0", "--allowed-host", name])
    assert result.exit_code == 2
    assert "--allowed-host" in result.output and "not a host name" in result.output


def test_the_response_conforms_to_the_shipped_report_schema(client: TestClient) -> None:
    import jsonschema_rs

    from mcnemar.report import json_schema

    got = client.post("/api/v1/analyze", json=dict(EXAMPLE, include=["distribution"])).json()
    assert jsonschema_rs.validator_for(json_schema()).is_valid(got)


# ----------------------------------------------------------------------------- decisions:
# non-inferiority / equivalence against a margin, and the Bayesian summary

DECISION_TABLE = {"a": 1800, "b": 52, "c": 47, "d": 101}


def _tango_pvalue(b: int, c: int, n: int, delta0: float) -> float:
    """Tango (1998) score test, p = 1 - Phi(Z(delta0)), written out with mpmath from the
    formula (restricted MLE of the "only B right" cell), independent of mcnemar.margin."""
    import mpmath

    mpmath.mp.dps = 40
    b_, c_, n_, d0 = (mpmath.mpf(x) for x in (b, c, n, delta0))
    big_a = 2 * n_
    big_b = -b_ - c_ + (2 * n_ - b_ + c_) * d0
    big_c = -c_ * d0 * (1 - d0)
    p21 = (mpmath.sqrt(big_b**2 - 4 * big_a * big_c) - big_b) / (2 * big_a)
    z = (b_ - c_ - n_ * d0) / mpmath.sqrt(n_ * (2 * p21 + d0 * (1 - d0)))
    return float(mpmath.ncdf(-z))


def test_margin_and_bayes_reach_the_report(client: TestClient) -> None:
    from mcnemar.bayes import bayes
    from mcnemar.report import analyze
    from mcnemar.table import PairedTable

    body = dict(
        DECISION_TABLE, margin=0.01, equivalence=True, confidence_level=0.9,
        bayes={"rope": 0.0, "prior": 0.5}, include=["markdown"],
    )
    got = client.post("/api/v1/analyze", json=body).json()
    table = PairedTable(**DECISION_TABLE)
    posterior = bayes(table, rope=0.0, prior=0.5, credible_level=0.9)
    report = analyze(table, names=("candidate", "baseline"), confidence_level=0.9, margin=0.01,
                     equivalence=True, bayes=posterior)
    expected = json.loads(json.dumps(report.to_dict()))
    assert {k: got[k] for k in expected} == expected
    # the export carries the blocks: the markdown is the library's, sections included
    assert got["markdown"] == report.to_markdown()
    assert "Against a margin of 1 point" in got["markdown"]
    assert "How likely is a real gain" in got["markdown"]
    # independent references: Tango's score test from its formula (mpmath) for both sides ...
    b, c, n = 52, 47, 2000
    ni, eq = got["noninferiority"], got["equivalence"]
    assert ni["pvalue"] == pytest.approx(_tango_pvalue(b, c, n, -0.01), rel=1e-9)
    upper = _tango_pvalue(c, b, n, -0.01)  # H0 delta >= margin is the mirror image
    assert eq["pvalue_upper"] == pytest.approx(upper, rel=1e-9)
    assert eq["pvalue"] == pytest.approx(max(ni["pvalue"], upper), rel=1e-9)
    assert ni["noninferior"] is (ni["pvalue"] < 0.05)
    # ... and, with rope 0, P(delta > 0) = I_{1/2}(c + k, b + k) exactly (theta ~ Beta(b+k, c+k))
    import mpmath

    k = mpmath.mpf("0.5")
    closed = mpmath.betainc(c + k, b + k, 0, mpmath.mpf("0.5"), regularized=True)
    assert got["bayes"]["prob_a_better"] == pytest.approx(float(closed), rel=1e-9)
    assert got["bayes"]["prior"] == [0.5] * 4 and got["bayes"]["credible_level"] == 0.9
    assert got["bayes"]["prob_equivalent"] == pytest.approx(0.0, abs=1e-12)


def test_bayes_true_and_the_errors_framing(client: TestClient) -> None:
    got = client.post("/api/v1/analyze", json=dict(DECISION_TABLE, bayes=True)).json()
    assert got["bayes"]["rope"] == 0.005 and got["bayes"]["prior"] == [1.0] * 4
    assert "noninferiority" not in got or got["noninferiority"] is None
    errors = {"framing": "errors", "only_a_wrong": 47, "only_b_wrong": 52, "both_wrong": 101,
              "both_right": 1800, "margin": 0.01, "bayes": False}
    same = client.post("/api/v1/analyze", json=errors).json()
    margin_only = client.post("/api/v1/analyze", json=dict(DECISION_TABLE, margin=0.01)).json()
    assert same["noninferiority"] == margin_only["noninferiority"]
    assert same.get("bayes") is None and same.get("equivalence") is None


def test_the_bayesian_summary_is_bounded_on_the_server(client: TestClient) -> None:
    """Its cost grows with the counts, so the server computes it up to MAX_ITEMS_BAYES items
    and refuses larger tables on the bayes field, before any work; at the bound it answers."""
    from mcnemar.web.models import MAX_ITEMS_BAYES

    edge = {"a": MAX_ITEMS_BAYES // 2 - 300, "b": 200, "c": 100, "d": MAX_ITEMS_BAYES // 2}
    assert sum(edge.values()) == MAX_ITEMS_BAYES
    ok = client.post("/api/v1/analyze", json=dict(edge, bayes=True))
    # A gain of 1e-8 is far inside the default half-point ROPE.
    assert ok.status_code == 200 and ok.json()["bayes"]["prob_equivalent"] > 0.999
    over = dict(edge, d=edge["d"] + 1, bayes=True)
    error = assert_error(client.post("/api/v1/analyze", json=over), 422, "bayes")
    assert f"{MAX_ITEMS_BAYES:,}" in error["message"] and "mcnemar.bayes" in error["message"]
    # The same table without the summary is analysed as usual.
    assert client.post("/api/v1/analyze", json=dict(over, bayes=False)).status_code == 200


def test_the_unconditional_method_is_passed_through(client: TestClient) -> None:
    from mcnemar.margin import noninferiority

    table = {"a": 60, "b": 9, "c": 4, "d": 27}
    got = client.post(
        "/api/v1/analyze", json=dict(table, margin=0.05, margin_method="unconditional")
    ).json()
    expected = noninferiority([[60, 9], [4, 27]], 0.05, method="unconditional")
    assert got["noninferiority"]["method"] == "unconditional"
    assert got["noninferiority"]["pvalue"] == pytest.approx(float(expected.pvalue), rel=1e-12)


@pytest.mark.parametrize(
    ("extra", "field", "needle"),
    [
        ({"margin": 1}, "margin", "0.01 for 1 point"),
        ({"margin": 0}, "margin", "between 0 and 1"),
        ({"margin": "0.01"}, "margin", "'0.01'"),
        ({"margin": True}, "margin", "True"),
        ({"equivalence": True}, "equivalence", "needs a margin"),
        ({"margin": 0.01, "equivalence": "yes"}, "equivalence", "'yes'"),
        ({"margin": 0.01, "alpha": 0.6}, "alpha", "0.5"),
        ({"margin": 0.01, "margin_method": "exact"}, "margin_method", "'exact'"),
        ({"bayes": 1}, "bayes", '{"rope": 0.005, "prior": 1}'),
        ({"bayes": {"rope": 1.5}}, "bayes.rope", "1.5"),
        ({"bayes": {"rope": -0.01}}, "bayes.rope", "-0.01"),
        ({"bayes": {"rope": "0.01"}}, "bayes.rope", "'0.01'"),
        ({"bayes": {"prior": -1}}, "bayes.prior", "-1"),
        ({"bayes": {"prior": [1, 2]}}, "bayes.prior", "four"),
        ({"bayes": {"prior": [1, 1, "x", 1]}}, "bayes.prior", "'x'"),
        ({"bayes": {"ropes": 0.01}}, "bayes.ropes", None),
    ],
)
def test_bad_decision_options_are_a_422_naming_the_field(
    client: TestClient, extra: dict[str, Any], field: str, needle: str | None
) -> None:
    error = assert_error(client.post("/api/v1/analyze", json=dict(DECISION_TABLE, **extra)),
                         422, field)
    if needle is not None:
        assert needle in error["message"]


@pytest.mark.parametrize("extra", [{"margin": 0.01}, {"bayes": True}])
def test_decisions_need_the_number_of_items(client: TestClient, extra: dict[str, Any]) -> None:
    field = next(iter(extra))
    error = assert_error(client.post("/api/v1/analyze", json=dict(b=52, c=47, **extra)), 422,
                         field)
    assert "a (both right) and d (both wrong)" in error["message"]


def test_the_unconditional_method_refuses_many_items_before_any_work(client: TestClient) -> None:
    body = {"a": 4000, "b": 400, "c": 380, "d": 1000, "margin": 0.01,
            "margin_method": "unconditional"}
    error = assert_error(client.post("/api/v1/analyze", json=body), 422, "margin_method")
    assert "5,000" in error["message"] and "5,780" in error["message"]


def test_compare_takes_the_decision_options_as_form_fields(client: TestClient) -> None:
    from mcnemar.bayes import bayes
    from mcnemar.report import analyze
    from mcnemar.table import PairedTable

    form = {"margin": "0.05", "equivalence": "true", "bayes": "true", "rope": "0.01",
            "prior": "1,2,2,1", "include": "markdown"}
    response = client.post("/api/v1/compare", files=_files(), data=form)
    assert response.status_code == 200, response.text
    got = response.json()
    cells = _count_cells(DATA / "candidate.csv", DATA / "baseline.csv")
    table = PairedTable(**cells)
    # No names typed: the files' own (as mcnemar compare shows them).
    report = analyze(table, names=("candidate.csv", "baseline.csv"), margin=0.05,
                     equivalence=True, bayes=bayes(table, rope=0.01, prior=(1, 2, 2, 1)))
    expected = json.loads(json.dumps(report.to_dict()))
    for key in ("noninferiority", "equivalence", "bayes"):
        assert got[key] == expected[key]
    assert "Against a margin" in got["markdown"]
    # rope alone asks for the summary too; bayes=false with a rope is a contradiction
    alone = client.post("/api/v1/compare", files=_files(), data={"rope": "0.02"}).json()
    assert alone["bayes"]["rope"] == 0.02
    assert_error(client.post("/api/v1/compare", files=_files(),
                             data={"bayes": "false", "rope": "0.02"}), 422, "rope")


@pytest.mark.parametrize(
    ("form", "field"),
    [
        ({"margin": "abc"}, "margin"),
        ({"margin": "1"}, "margin"),
        ({"equivalence": "true"}, "equivalence"),
        ({"margin": "0.01", "alpha": "0.5"}, "alpha"),
        ({"bayes": "true", "rope": "2"}, "rope"),
        ({"bayes": "true", "prior": "0"}, "prior"),
        ({"bayes": "maybe"}, "bayes"),
    ],
)
def test_compare_decision_errors_name_the_form_field(
    client: TestClient, form: dict[str, str], field: str
) -> None:
    assert_error(client.post("/api/v1/compare", files=_files(), data=form), 422, field)


# ----------------------------------------------------------------------------- hints


@pytest.mark.parametrize(
    ("field", "bad"),
    [
        ("alpha", "x"), ("alpha", 2), ("alpha", 0), ("alpha", True),
        ("confidence_level", "x"), ("confidence_level", 95), ("confidence_level", -1),
    ],
)
def test_each_hint_is_a_valid_example_for_its_field(
    client: TestClient, field: str, bad: Any
) -> None:
    """An error's "e.g." is a value the field accepts and that means what the hint says
    (alpha e.g. 0.05, confidence_level e.g. 0.95), in the JSON API and the upload form."""
    error = assert_error(client.post("/api/v1/analyze", json=dict(EXAMPLE, **{field: bad})),
                         422, field)
    form_error = assert_error(
        client.post("/api/v1/compare", files=_files(), data={field: str(bad)}), 422, field
    )
    typical = {"alpha": "0.05", "confidence_level": "0.95"}[field]
    for message in (error["message"], form_error["message"]):
        hints = re.findall(r"e\.g\. ([0-9.]+)(?: for ([0-9.]+)%)?", message)
        assert hints, message
        for example, percent in hints:
            assert example == typical
            if percent:
                assert float(percent) == pytest.approx(100 * float(example))
            ok = client.post("/api/v1/analyze", json=dict(EXAMPLE, **{field: float(example)}))
            assert ok.status_code == 200
            assert ok.json()[field] == float(example)
