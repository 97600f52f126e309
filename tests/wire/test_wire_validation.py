"""Requests that break botocore's model get AWS's error and message, word for word.

The cases live in fixtures/wire/validation.json; each is sent over HTTP as raw JSON (SDKs
would refuse to send most of them).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers.paths import FIXTURES_ROOT
from helpers.rawhttp import call

FIXTURE = FIXTURES_ROOT / "wire" / "validation.json"
CASES = json.loads(FIXTURE.read_text(encoding="utf-8"))["cases"]
NAMESPACES = {
    "ValidationException": "com.amazon.coral.validate",
    "SerializationException": "com.amazon.coral.service",
}


def expand(value: Any) -> Any:
    """Expand the fixture's {"$repeat": [text, n]} strings, and join a message given as parts."""
    if isinstance(value, dict):
        if set(value) == {"$repeat"}:
            text, count = value["$repeat"]
            return text * count
        return {key: expand(item) for key, item in value.items()}
    if isinstance(value, list):
        return [expand(item) for item in value]
    return value


def expected_message(case: dict[str, Any]) -> str:
    message = expand(case["message"])
    return "".join(message) if isinstance(message, list) else message


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_model_violations_are_answered_as_aws_does(wire_server, case):
    response = call(wire_server.endpoint_url, case["operation"], expand(case["request"]))
    if case["error"] is None:
        assert response.status == 200, response.body
        assert wire_server.service.last.operation == case["operation"]
        return
    assert response.status == 400
    assert response.json() == {
        "__type": f"{NAMESPACES[case['error']]}#{case['error']}",
        "message": expected_message(case),
    }
    assert wire_server.service.calls == [], "a rejected request must not reach the control plane"
