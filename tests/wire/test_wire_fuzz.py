"""No request, however malformed, gets a 5xx or stops the server.

Bodies are generated from botocore's input shapes (valid, or mangled the ways clients get them
wrong) and from plain garbage, for every operation, and sent to an emulator of its own so that the
resources they happen to create disturb no other test.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import botocore.session
import pytest
from helpers.botocore_requests import any_json, mangled_body, valid_body
from helpers.rawhttp import send
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sfn_emulator.config import Settings

MODEL = botocore.session.get_session().get_service_model("stepfunctions")
OPERATIONS = sorted(MODEL.operation_names)


def body_for(operation: str) -> st.SearchStrategy[bytes]:
    shape = MODEL.operation_model(operation).input_shape
    structured = st.one_of(valid_body(shape), mangled_body(shape), any_json)
    return st.one_of(structured.map(lambda body: json.dumps(body).encode()), st.binary(max_size=40))


requests = st.sampled_from(OPERATIONS).flatmap(lambda operation: st.tuples(st.just(operation), body_for(operation)))


@pytest.fixture(scope="module")
def fuzz_endpoint() -> Iterator[str]:
    from sfn_emulator.runtime import Emulator
    from sfn_emulator.wire import HttpServer

    with Emulator(Settings()) as emulator:
        server = HttpServer(emulator.app, "127.0.0.1", 0).start()
        try:
            yield server.endpoint_url
        finally:
            server.stop()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(request=requests)
def test_generated_requests_never_get_a_server_error(fuzz_endpoint: str, request: tuple[str, bytes]) -> None:
    operation, body = request
    response = send(fuzz_endpoint, body, target=f"AWSStepFunctions.{operation}")
    assert response.status < 500, response.body
    answer: Any = response.json()
    assert isinstance(answer, dict)
    if response.status != 200:
        assert answer["__type"].rsplit("#", 1)[-1]


def test_the_server_still_answers_after_the_fuzzing(fuzz_endpoint: str) -> None:
    response = send(fuzz_endpoint, b"{}", target="AWSStepFunctions.ListStateMachines")
    assert response.status == 200
    assert "stateMachines" in response.json()
