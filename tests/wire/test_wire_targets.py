"""Which requests the emulator answers and how, over HTTP with raw requests: only requests meant
for another service (signed for it, or moto's own API) reach moto; everything else addressed to
the emulator gets Coral's JSON 1.0 error, never a 5xx (cases: fixtures/wire/targets.json)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers.paths import FIXTURES_ROOT
from helpers.rawhttp import JSON_1_0, send

CASES = json.loads((FIXTURES_ROOT / "wire" / "targets.json").read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_a_request_is_answered_by_the_service_it_names(emulator_server: Any, case: dict[str, Any]) -> None:
    response = send(
        emulator_server.endpoint_url, case["body"], target=case["target"], method=case.get("method", "POST"),
        path=case.get("path", "/"), sign_for=case["sign_for"],
        headers={"Content-Type": case.get("content_type", JSON_1_0)},
    )
    expected = case["expect"]
    assert response.status == expected["status"], response.body
    if "type" in expected:
        assert response.headers["content-type"] == JSON_1_0
        body = response.json()
        assert body["__type"] == expected["type"]
        assert body.get("message") == expected["message"]
        assert response.headers["x-amzn-errortype"].startswith(expected["type"].split("#")[1] + ":")
    if "contains" in expected:
        assert expected["contains"].encode() in response.body
    assert not any(name.startswith("access-control-") for name in response.headers)
