"""`arn:aws:states:::aws-sdk:sfn:*` over HTTP with boto3: the emulator's own Step Functions, called
the way the AWS SDK integration calls it (PascalCase in and out, ISO-8601 timestamps, `Sfn.*` errors)."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable

import pytest
from flow import Flow, Server, outcome, task

CHILD = {"StartAt": "Done", "States": {"Done": {"Type": "Pass", "Result": {"done": True}, "End": True}}}
ISO_INSTANT = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")
REQUEST_ID = r"[0-9a-f-]{36}"


@pytest.fixture(scope="module")
def flow(start_server: Callable[..., Server]) -> Flow:
    return Flow(start_server())


def test_start_execution_starts_a_child_here_and_answers_in_pascal_case(flow: Flow) -> None:
    child = flow.machine(CHILD)
    name = f"child-{uuid.uuid4().hex[:8]}"
    parent = flow.run(task("arn:aws:states:::aws-sdk:sfn:startExecution",
                           Parameters={"StateMachineArn": child, "Input": None, "Name": name}))
    output = outcome(parent)["output"]
    assert sorted(output) == ["ExecutionArn", "StartDate"]
    assert output["ExecutionArn"].endswith(f":execution:{child.rsplit(':', 1)[1]}:{name}")
    assert ISO_INSTANT.match(output["StartDate"]), output["StartDate"]
    assert outcome(flow.describe(output["ExecutionArn"])) == {"status": "SUCCEEDED", "output": {"done": True}}
    assert flow.event_types(parent["executionArn"]) == [
        "ExecutionStarted", "TaskStateEntered", "TaskScheduled", "TaskStarted", "TaskSucceeded", "TaskStateExited",
        "ExecutionSucceeded"]


def test_other_actions_reach_the_control_plane_too(flow: Flow) -> None:
    child = flow.machine(CHILD)
    output = outcome(flow.run(task("arn:aws:states:::aws-sdk:sfn:describeStateMachine",
                                   Parameters={"StateMachineArn": child})))["output"]
    assert output["StateMachineArn"] == child and output["Status"] == "ACTIVE"
    assert ISO_INSTANT.match(output["CreationDate"]), output["CreationDate"]


@pytest.mark.parametrize("action", ["sendTaskSuccess", "sendTaskFailure", "sendTaskHeartbeat"])
def test_an_unknown_token_is_sfn_s_invalid_token_exception(flow: Flow, action: str) -> None:
    parameters = {"TaskToken": "Invalid token", **({"Output": "{}"} if action == "sendTaskSuccess" else {})}
    described = flow.run(task(f"arn:aws:states:::aws-sdk:sfn:{action}", Parameters=parameters))
    assert (described["status"], described["error"]) == ("FAILED", "Sfn.InvalidTokenException")
    assert re.fullmatch(rf"Invalid Token: 'Invalid token' \(Service: Sfn, Status Code: 400, Request ID: {REQUEST_ID}\) "
                        r"\(SDK Attempt Count: 1\)", described["cause"]), described["cause"]


@pytest.mark.parametrize(("token", "error"), [
    ("Invalid token", "Sfn.InvalidTokenException"), ("0" * 64, "Sfn.TaskDoesNotExistException"),
], ids=["malformed", "unknown"])
def test_a_bad_token_is_refused_before_output_that_is_not_json(flow: Flow, token: str, error: str) -> None:
    described = flow.run(task("arn:aws:states:::aws-sdk:sfn:sendTaskSuccess",
                              Parameters={"TaskToken": token, "Output": "{not json"}))
    assert (described["status"], described["error"]) == ("FAILED", error)


@pytest.mark.parametrize(("parameters", "error", "cause"), [
    ({"StateMachineArn": "arn:aws:states:us-east-1:123456789012:stateMachine:absent"},
     "Sfn.StateMachineDoesNotExistException",
     rf"State Machine Does Not Exist: 'arn:aws:states:us-east-1:123456789012:stateMachine:absent' "
     rf"\(Service: Sfn, Status Code: 400, Request ID: {REQUEST_ID}\) \(SDK Attempt Count: 1\)"),
    ({"StateMachineArn": "arn:aws:states:us-east-1:123456789012:stateMachine:absent", "Name": "n" * 81},
     "Sfn.ValidationException",
     rf"1 validation error detected: Value '{'n' * 81}' at 'name' failed to satisfy constraint: Member must have "
     rf"length less than or equal to 80 \(Service: Sfn, Status Code: 400, Request ID: {REQUEST_ID}\) "
     r"\(SDK Attempt Count: 1\)"),
], ids=["missing state machine", "name too long"])
def test_failures_are_named_as_the_sdk_for_java_2_names_them(flow: Flow, parameters: dict[str, str], error: str,
                                                             cause: str) -> None:
    described = flow.run(task("arn:aws:states:::aws-sdk:sfn:startExecution", Parameters=parameters))
    assert (described["status"], described["error"]) == ("FAILED", error)
    assert re.fullmatch(cause, described["cause"]), described["cause"]


def test_a_field_no_member_takes_is_refused(flow: Flow) -> None:
    """The members are PascalCase even where Step Functions' API is camelCase."""
    described = flow.run(task("arn:aws:states:::aws-sdk:sfn:startExecution",
                              Parameters={"stateMachineArn": "arn:aws:states:us-east-1:123456789012:stateMachine:m"}))
    assert (described["status"], described["error"]) == ("FAILED", "States.Runtime")
    assert described["cause"].endswith('The field "stateMachineArn" is not supported by Step Functions'), \
        described["cause"]
