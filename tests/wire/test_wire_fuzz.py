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


# Bodies nested deeper than any parser reads: every target, every route that takes a body, and the
# JSON text some members carry. Each gets AWS's JSON error shape and a 4xx, and the server carries on.
DEPTHS = [10_000, 100_000]
NESTINGS = {"arrays": lambda depth: "[" * depth + "]" * depth,
            "objects": lambda depth: '{"a":' * depth + "1" + "}" * depth}
ADMIN_WRITES = [("POST", "/_emulator/clock"), ("POST", "/_emulator/reset"), ("PUT", "/_emulator/snapshot"), ("POST", "/_emulator/events"),
                *[("POST", f"/_emulator/console/api/{action}") for action in
                  ("stop-execution", "redrive-execution", "send-task-success", "send-task-failure",
                   "send-task-heartbeat", "take-activity-task", "advance-clock-to-next-timer")]]
ROLE = "arn:aws:iam::123456789012:role/r"
PASS = json.dumps({"Type": "Pass", "End": True})
STANDARD = "arn:aws:states:us-east-1:123456789012:stateMachine:deep-standard"
EXPRESS = "arn:aws:states:us-east-1:123456789012:stateMachine:deep-express"
# (operation, the JSON-text member, the rest of a request that reaches it, the error AWS names)
JSON_TEXT_MEMBERS = [
    ("StartExecution", "input", {"stateMachineArn": STANDARD}, "InvalidExecutionInput"),
    ("StartSyncExecution", "input", {"stateMachineArn": EXPRESS}, "InvalidExecutionInput"),
    ("SendTaskSuccess", "output", {"taskToken": "token"}, "InvalidOutput"),
    ("TestState", "input", {"definition": PASS, "roleArn": ROLE}, "InvalidExecutionInput"),
    ("TestState", "variables", {"definition": PASS, "roleArn": ROLE}, "ValidationException"),
    ("CreateStateMachine", "definition", {"name": "deep", "roleArn": ROLE}, "InvalidDefinition"),
    ("ValidateStateMachineDefinition", "definition", {}, None),  # answered 200 with a diagnostic
]


def error_type(response: Any) -> str:
    assert response.headers["content-type"].startswith("application/")
    return response.json()["__type"].rsplit("#", 1)[-1]


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("nesting", sorted(NESTINGS))
@pytest.mark.parametrize("operation", OPERATIONS)
def test_a_body_nested_too_deeply_is_a_serialization_exception(
    fuzz_endpoint: str, operation: str, nesting: str, depth: int
) -> None:
    response = send(fuzz_endpoint, NESTINGS[nesting](depth), target=f"AWSStepFunctions.{operation}", sign_for="states")
    assert (response.status, error_type(response)) == (400, "SerializationException")


@pytest.fixture
def machines(fuzz_endpoint: str) -> None:
    """The machines the members' requests name (CreateStateMachine of the same machine is idempotent)."""
    definition = json.dumps({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})
    for arn, machine_type in ((STANDARD, "STANDARD"), (EXPRESS, "EXPRESS")):
        created = send(fuzz_endpoint, json.dumps({"name": arn.rsplit(":", 1)[1], "roleArn": ROLE, "type": machine_type,
                                                  "definition": definition}),
                       target="AWSStepFunctions.CreateStateMachine")
        assert created.status == 200, created.body


@pytest.mark.parametrize("depth", [1_500, 10_000])  # (100,000 levels are more than a member's 256 KB)
@pytest.mark.parametrize(("operation", "member", "request_rest", "expected"), JSON_TEXT_MEMBERS)
def test_json_text_nested_too_deeply_is_refused_as_aws_refuses_invalid_json(
    fuzz_endpoint: str, machines: None, operation: str, member: str, request_rest: dict[str, Any],
    expected: str | None, depth: int
) -> None:
    payload = {**request_rest, member: NESTINGS["objects"](depth)}
    response = send(fuzz_endpoint, json.dumps(payload), target=f"AWSStepFunctions.{operation}")
    if expected is None:
        assert response.status == 200 and response.json()["result"] == "FAIL"
    else:
        assert (response.status, error_type(response)) == (400, expected), response.body


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize(("method", "path"), ADMIN_WRITES)
def test_an_emulator_route_answers_a_body_nested_too_deeply_with_a_json_4xx(
    fuzz_endpoint: str, method: str, path: str, depth: int
) -> None:
    response = send(fuzz_endpoint, NESTINGS["arrays"](depth), method=method, path=path,
                    headers={"Content-Type": "application/json"})
    assert 400 <= response.status < 500, response.body
    assert response.headers["content-type"].startswith("application/")
    assert isinstance(response.json(), dict)


# Requests for another AWS service that moto cannot place: Coral's answers, in JSON.
OTHER_SERVICES = [("sqs", "AmazonSQS", "ListQueues"), ("dynamodb", "DynamoDB_20120810", "ListTables"),
                  ("sns", "SNS_20100331", "ListTopics"), ("events", "AWSEvents", "ListRules"),
                  ("logs", "Logs_20140328", "DescribeLogGroups"), ("secretsmanager", "secretsmanager", "ListSecrets")]


@pytest.mark.parametrize(("service", "prefix", "operation"), OTHER_SERVICES)
def test_another_services_unknown_operation_is_an_unknown_operation_exception(
    fuzz_endpoint: str, service: str, prefix: str, operation: str
) -> None:
    for target in (f"{prefix}.NoSuchOperation", "Foo.Bar"):
        response = send(fuzz_endpoint, b"{}", target=target, sign_for=service)
        assert (response.status, error_type(response)) == (400, "UnknownOperationException"), (target, response.body)


# (service, target, body, content type): a request each service answers in a region it has
IN_A_REGION = [*[(service, f"{prefix}.{operation}", b"{}", "application/x-amz-json-1.0")
                 for service, prefix, operation in OTHER_SERVICES if service != "sns"],
               ("sns", None, b"Action=ListTopics&Version=2010-03-31", "application/x-www-form-urlencoded")]


@pytest.mark.parametrize(("service", "target", "body", "content_type"), IN_A_REGION)
def test_another_service_in_an_unknown_region_is_an_invalid_signature(
    fuzz_endpoint: str, service: str, target: str | None, body: bytes, content_type: str
) -> None:
    def sent(region: str) -> Any:
        return send(fuzz_endpoint, body, target=target, sign_for=service, region=region,
                    headers={"Content-Type": content_type})

    response = sent("xx-nowhere-9")
    assert (response.status, error_type(response)) == (400, "InvalidSignatureException")
    assert response.json()["message"] == "Credential should be scoped to a valid region. "
    in_a_region = sent("us-east-1")
    assert in_a_region.status == 200, in_a_region.body


def test_a_request_no_route_of_moto_takes_gets_json_not_html(fuzz_endpoint: str) -> None:
    response = send(fuzz_endpoint, b"{}", sign_for="sns")
    assert (response.status, error_type(response)) == (404, "UnknownOperationException")


other_service_requests = st.fixed_dictionaries({
    "service": st.sampled_from([service for service, _, _ in OTHER_SERVICES]),
    "target": st.one_of(st.none(), st.sampled_from([f"{prefix}.{op}" for _, prefix, op in OTHER_SERVICES]),
                        st.sampled_from([prefix for _, prefix, _ in OTHER_SERVICES]).map(lambda p: f"{p}.Nope"),
                        HEADER_TEXT),
    "region": st.sampled_from(["us-east-1", "eu-west-3", "xx-nowhere-9", "", "cn-north-1"]),
    "body": st.one_of(st.just(b"{}"), any_json.map(lambda body: json.dumps(body).encode()), st.binary(max_size=40)),
})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(request=other_service_requests)
def test_requests_for_other_services_never_get_a_server_error_or_html(
    fuzz_endpoint: str, request: dict[str, Any]
) -> None:
    response = send(fuzz_endpoint, request["body"], target=request["target"], sign_for=request["service"],
                    region=request["region"])
    assert response.status < 500, response.body
    if response.status >= 400:  # (moto labels some JSON answers text/html: its successes are its own)
        assert not response.headers.get("content-type", "").startswith("text/html"), response.body
        assert isinstance(response.json(), dict)


def test_the_server_still_answers_after_the_faults(fuzz_endpoint: str) -> None:
    test_the_server_still_answers_after_the_fuzzing(fuzz_endpoint)
