"""TestState cases from fixtures/test_state/*.json, shared by the in-process and HTTP tests.

Each file is a list of cases, `{"name", "request", "expect"}`. In `request`, JSON values stand for
the JSON text the API takes (`definition`, `input`, `context`, `variables`, `mock.result`); `context_text` and
`mock.result_text` give raw text instead, for malformed JSON. `expect` is either the answer
(`status`, `output` as a JSON value, `error`, `cause`, `nextState`, and optionally a subset of
`inspectionData` with its data-flow steps as JSON values, null for a step that must be absent; null
for the whole `inspectionData` when the answer must have none), or `{"refused": [code, message]}`.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers.paths import FIXTURES_ROOT

CASES_DIR = FIXTURES_ROOT / "test_state"
DATA_FLOW_STEPS = ("input", "afterInputPath", "afterParameters", "afterArguments", "result", "afterResultSelector",
                   "afterResultPath")


def cases() -> list[Any]:
    """Every case, as pytest params named `<file>/<case name>`."""
    found = []
    for path in sorted(CASES_DIR.glob("*.json")):
        for case in json.loads(path.read_text()):
            found.append(pytest.param(case, id=f"{path.stem}/{case['name']}"))
    return found


def api_request(case: dict[str, Any]) -> dict[str, Any]:
    """The TestState parameters of a case, with JSON values written as the JSON text the API takes."""
    request = dict(case["request"])
    for key in ("definition", "input"):
        if key in request and not isinstance(request[key], str):
            request[key] = json.dumps(request[key])
    for key in ("context", "variables"):
        if key in request:
            request[key] = json.dumps(request[key])
    if "context_text" in request:
        request["context"] = request.pop("context_text")
    if "mock" in request:
        mock = dict(request["mock"])
        if "result" in mock:
            mock["result"] = json.dumps(mock["result"])
        if "result_text" in mock:
            mock["result"] = mock.pop("result_text")
        request["mock"] = mock
    return request


def check_answer(answer: dict[str, Any], expect: dict[str, Any]) -> None:
    """The answer says what the case expects: status, output, error, cause, next state, inspection."""
    shown = json.dumps(answer, indent=1, default=str)
    assert answer["status"] == expect["status"], shown
    output = json.loads(answer["output"]) if "output" in answer else None
    assert output == expect.get("output"), shown
    assert (answer.get("error"), answer.get("cause"), answer.get("nextState")) == (
        expect.get("error"), expect.get("cause"), expect.get("nextState")), shown
    if "inspectionData" in expect and expect["inspectionData"] is None:  # INFO: no inspection data at all
        assert "inspectionData" not in answer, shown
    elif "inspectionData" in expect:
        inspection = answer.get("inspectionData", {})
        for key, value in expect["inspectionData"].items():
            if value is None:  # a step the answer must not report
                assert key not in inspection, f"inspectionData.{key}: {shown}"
                continue
            actual = inspection.get(key)
            actual = json.loads(actual) if isinstance(actual, str) else actual
            assert actual == value, f"inspectionData.{key}: {shown}"
        # Beyond the data-flow steps, nothing is reported that the case does not expect.
        assert set(inspection) <= set(expect["inspectionData"]) | set(DATA_FLOW_STEPS), shown
