"""No request, however malformed, gets a 5xx or stops the server, and every answer is JSON.

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


HEADER_TEXT = st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=30)
HOST_TEXT = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789.-:[]", min_size=1, max_size=30)
targets = st.one_of(
    st.none(),
    st.sampled_from(OPERATIONS).map(lambda operation: f"AWSStepFunctions.{operation}"),
    st.sampled_from(["AWSStepFunction.ListStateMachines", "Foo.Bar", "AWSStepFunctions", "AWSStepFunctions.",
                     "AmazonSQS.ListQueues", ".ListStateMachines", "DynamoDB_20120810.ListTables"]),
    HEADER_TEXT,
)
content_types = st.one_of(
    st.sampled_from(["application/x-amz-json-1.0", "application/x-amz-json-1.1", "application/json", "text/plain",
                     "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""]),
    HEADER_TEXT,
)
hosts = st.one_of(
    st.none(),
    st.sampled_from(["localhost", "localhost:8083", "127.0.0.1:1", "[::1]:8083", "app.localhost",
                     "rebind.attacker.example", "10.0.0.1:8083", "states.us-east-1.amazonaws.com"]),
    HOST_TEXT,
)
origins = st.one_of(st.none(), st.sampled_from(["http://localhost:3000", "https://attacker.example", "null"]), HEADER_TEXT)
wire_requests = st.fixed_dictionaries({
    "target": targets, "content_type": content_types, "host": hosts, "origin": origins,
    "sign_for": st.sampled_from([None, "states"]),
    "body": st.one_of(any_json.map(lambda body: json.dumps(body).encode()), st.binary(max_size=40)),
    "method": st.sampled_from(["POST", "POST", "GET", "PUT", "DELETE", "OPTIONS"]),
    "path": st.sampled_from(["/", "/", "/_emulator/clock", "/_emulator/health", "/no/such/path"]),
})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(request=wire_requests)
def test_any_target_content_type_and_host_gets_a_json_answer_and_no_server_error(
    fuzz_endpoint: str, request: dict[str, Any]
) -> None:
    headers = {"Content-Type": request["content_type"]}
    if request["host"] is not None:
        headers["Host"] = request["host"]
    if request["origin"] is not None:
        headers["Origin"] = request["origin"]
    clock_change = request["path"] == "/_emulator/clock" and request["method"] == "POST"
    body = b'{"advance": 0}' if clock_change else request["body"]  # the clock's own bodies are tested elsewhere
    response = send(fuzz_endpoint, body if request["method"] != "GET" else None, target=request["target"],
                    headers=headers, method=request["method"], path=request["path"], sign_for=request["sign_for"])
    assert response.status < 500, response.body
    answer: Any = response.json()
    assert isinstance(answer, dict)
    if response.status == 403:
        assert answer["__type"] == "AccessDeniedException" and answer["message"]
    elif response.status >= 400 and request["path"] == "/":
        assert answer["__type"].rsplit("#", 1)[-1]
