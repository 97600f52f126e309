"""Mocked Task responses over HTTP, from mock configuration files in AWS Step Functions Local's
format: executions started with `stateMachineArn#CASE` (StartExecution and StartSyncExecution).

- AWS's own documented example, fixtures/mocks/LambdaSQSIntegration.json with
  fixtures/machines/LambdaSQSIntegration.asl.json, unchanged: its happy, retry and hybrid paths.
- fixtures/resources/mocks.json: ranges and Throw, retries consuming successive responses,
  the resolution order (mock test case, then registered callable), an EXPRESS machine answered
  synchronously, a mocked Activity, and the errors for what the file does not define.
- A copy of that file edited while the server runs: re-read on change, and a broken edit named.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flow import ACCOUNT, Flow, Server, outcome
from helpers.paths import FIXTURES_ROOT

AWS_EXAMPLE_MOCKS = FIXTURES_ROOT / "mocks" / "LambdaSQSIntegration.json"
AWS_EXAMPLE_MACHINE = FIXTURES_ROOT / "machines" / "LambdaSQSIntegration.asl.json"
MOCKS = FIXTURES_ROOT / "resources" / "mocks.json"
QUEUE_URL = f"https://sqs.us-east-1.amazonaws.com/{ACCOUNT}/myQueue"

CHECKOUT = {"StartAt": "Charge", "States": {
    "Charge": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
               "Parameters": {"FunctionName": "charge", "Payload.$": "$"},
               "Retry": [{"ErrorEquals": ["CardDeclined"], "IntervalSeconds": 1, "MaxAttempts": 2, "BackoffRate": 1}],
               "ResultSelector": {"charged.$": "$.Payload.charged"}, "ResultPath": "$.charge", "Next": "Ship"},
    "Ship": {"Type": "Task", "Resource": f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:ship",
             "ResultPath": "$.shipment", "End": True}}}
QUICK_QUOTE = {"StartAt": "Price", "States": {"Price": {
    "Type": "Task", "Resource": "arn:aws:states:::lambda:invoke", "Parameters": {"FunctionName": "price"},
    "OutputPath": "$.Payload", "End": True}}}
CALLABLES = {"charge": lambda event, context: {"charged": 1},
             "ship": lambda event, context: {"tracking": "REAL-SHIPMENT"}}
TASK_EVENTS = ["TaskStateEntered", "TaskScheduled", "TaskStarted", "TaskSucceeded", "TaskStateExited"]


@pytest.fixture(scope="module")
def aws_example(start_server: Callable[..., Server]) -> tuple[Flow, str]:
    flow = Flow(start_server(mock_config=AWS_EXAMPLE_MOCKS))
    return flow, flow.machine(AWS_EXAMPLE_MACHINE.read_text(), name="LambdaSQSIntegration")


@pytest.fixture(scope="module")
def flow(start_server: Callable[..., Server]) -> Flow:
    server = start_server(mock_config=MOCKS)
    server.emulator.functions.update(CALLABLES)
    return Flow(server)


@pytest.fixture(scope="module")
def checkout(flow: Flow) -> str:
    return flow.machine(CHECKOUT, name="Checkout")


# -- AWS's documented example, unchanged ----------------------------------------------------------

def test_aws_example_happy_path(aws_example: tuple[Flow, str]) -> None:
    flow, machine = aws_example
    execution = flow.start(f"{machine}#HappyPath", {"order": 1})
    flow.settle()
    assert outcome(flow.describe(execution)) == {"status": "SUCCEEDED", "output": {
        "MD5OfMessageBody": "3bcb6e8e-7h85-4375-b0bc-1a59812c6e51", "MessageId": "3bcb6e8e-8b51-4375-b0bc-1a59812c6e51"}}
    assert flow.event_types(execution) == ["ExecutionStarted", *TASK_EVENTS, *TASK_EVENTS, "ExecutionSucceeded"]


def test_aws_example_retry_path_consumes_one_response_per_attempt(aws_example: tuple[Flow, str]) -> None:
    flow, machine = aws_example
    execution = flow.start(f"{machine}#RetryPath")
    flow.settle()
    assert outcome(flow.describe(execution))["output"]["MessageId"] == "3bcb6e8e-8b51-4375-b0bc-1a59812c6e51"
    failures = [event["taskFailedEventDetails"] for event in flow.events(execution) if event["type"] == "TaskFailed"]
    assert [(failure["error"], failure["cause"]) for failure in failures] == [
        ("Lambda.ResourceNotReadyException", "Lambda resource is not ready."),
        ("Lambda.TimeoutException", "Lambda timed out."),
        ("Lambda.TimeoutException", "Lambda timed out.")]


def test_aws_example_hybrid_path_sends_the_mocked_lambda_result_to_a_real_queue(aws_example: tuple[Flow, str]) -> None:
    flow, machine = aws_example
    sqs = flow.aws_client("sqs")
    sqs.create_queue(QueueName="myQueue")
    execution = flow.start(f"{machine}#HybridPath")
    flow.settle()
    described = outcome(flow.describe(execution))
    assert described["status"] == "SUCCEEDED"
    [message] = sqs.receive_message(QueueUrl=QUEUE_URL, MaxNumberOfMessages=10)["Messages"]
    assert message["MessageId"] == described["output"]["MessageId"]
    assert json.loads(message["Body"]) == {"StatusCode": 200, "Payload": {"StatusCode": 200, "body": "Hello from Lambda!"}}


# -- ranges, Throw, retries and the resolution order ----------------------------------------------

@pytest.mark.parametrize(("case", "expected", "attempts"), [
    ("Approved", {"status": "SUCCEEDED", "output": {"charge": {"charged": 42}, "shipment": {"tracking": "TRACK-1"}}}, 1),
    ("DeclinedThenOk", {"status": "SUCCEEDED", "output": {"charge": {"charged": 42}, "shipment": {"tracking": "TRACK-1"}}},
     3),
    ("AlwaysDeclined", {"status": "FAILED", "error": "CardDeclined", "cause": "insufficient funds"}, 3),
    ("ChargeOnly", {"status": "SUCCEEDED", "output": {"charge": {"charged": 42}, "shipment": {"tracking": "REAL-SHIPMENT"}}},
     1),
    (None, {"status": "SUCCEEDED", "output": {"charge": {"charged": 1}, "shipment": {"tracking": "REAL-SHIPMENT"}}}, 1),
])
def test_a_test_case_answers_the_states_it_lists_and_callables_the_rest(
        flow: Flow, checkout: str, case: str | None, expected: dict[str, Any], attempts: int) -> None:
    execution = flow.start(checkout if case is None else f"{checkout}#{case}")
    flow.settle()
    assert outcome(flow.describe(execution)) == expected
    assert flow.event_types(execution).count("TaskScheduled") == attempts


def test_a_mocked_task_records_the_same_history_as_a_real_one(flow: Flow, checkout: str) -> None:
    mocked, real = flow.start(f"{checkout}#Approved"), flow.start(checkout)
    flow.settle()
    shape = [(event["type"], sorted(event)) for event in flow.events(real)]
    assert [(event["type"], sorted(event)) for event in flow.events(mocked)] == shape
    scheduled = [event["taskScheduledEventDetails"] for event in flow.events(mocked) if event["type"] == "TaskScheduled"]
    assert scheduled[0]["resource"] == "invoke" and scheduled[0]["resourceType"] == "lambda"


ENTERED = "An error occurred while executing the state '{state}' (entered at the event id #{event}). "


@pytest.mark.parametrize(("case", "cause"), [
    ("ShortOfResponses", ENTERED.format(state="Ship", event=7) + "mock config {path}: MockedResponses.NoResponses "
                         "defines no response for invocation 0 of the state 'Ship' (it has no keys)"),
])
def test_what_the_file_does_not_define_fails_the_execution_saying_what_and_where(
        flow: Flow, checkout: str, case: str, cause: str) -> None:
    execution = flow.start(f"{checkout}#{case}")
    flow.settle()
    assert outcome(flow.describe(execution)) == {
        "status": "FAILED", "error": "States.Runtime", "cause": cause.format(path=MOCKS)}


@pytest.mark.parametrize(("case", "expected"), [
    ("Cheap", {"status": "SUCCEEDED", "output": {"price": 1}}),
    ("Broken", {"status": "FAILED", "error": "PricingDown", "cause": "try later"}),
])
def test_start_sync_execution_answers_a_mocked_express_execution(flow: Flow, case: str, expected: dict[str, Any]) -> None:
    machine = flow.machine(QUICK_QUOTE, name="QuickQuote", type="EXPRESS")
    answered = flow.sfn.start_sync_execution(stateMachineArn=f"{machine}#{case}", input="{}")
    assert outcome(answered) == expected


def test_an_activity_state_can_be_mocked(flow: Flow) -> None:
    activity = flow.sfn.create_activity(name="human-review")["activityArn"]
    machine = flow.machine({"StartAt": "HumanReview", "States": {
        "HumanReview": {"Type": "Task", "Resource": activity, "End": True}}}, name="Review")
    execution = flow.start(f"{machine}#Approved")
    flow.settle()
    assert outcome(flow.describe(execution)) == {"status": "SUCCEEDED", "output": {"verdict": "approved"}}
    assert flow.event_types(execution) == [
        "ExecutionStarted", "TaskStateEntered", "ActivityScheduled", "ActivityStarted", "ActivitySucceeded",
        "TaskStateExited", "ExecutionSucceeded"]


# -- the file changes while the server runs -----------------------------------------------------------

def test_the_file_is_read_again_when_it_changes(start_server: Callable[..., Server], tmp_path: Path) -> None:
    path = tmp_path / "mocks.json"
    shutil.copy(MOCKS, path)
    flow = Flow(start_server(mock_config=path))
    flow.server.emulator.functions.update(CALLABLES)
    machine = flow.machine(QUICK_QUOTE, name="QuickQuote", type="EXPRESS")

    document = json.loads(path.read_text())
    document["StateMachines"]["QuickQuote"]["TestCases"]["Dear"] = {"Price": "Dear"}
    document["MockedResponses"]["Dear"] = {"0": {"Return": {"StatusCode": 200, "Payload": {"price": 1000}}}}
    path.write_text(json.dumps(document))
    assert outcome(flow.sfn.start_sync_execution(stateMachineArn=f"{machine}#Dear")) == {
        "status": "SUCCEEDED", "output": {"price": 1000}}

    path.write_text('{"StateMachines": {}, "MockedResponses": ')
    broken = flow.sfn.start_sync_execution(stateMachineArn=f"{machine}#Dear")
    assert (broken["status"], broken["error"]) == ("FAILED", "States.Runtime")
    assert f"mock config {path}: " in broken["cause"]

    path.write_text(json.dumps(document))
    assert outcome(flow.sfn.start_sync_execution(stateMachineArn=f"{machine}#Dear"))["output"] == {"price": 1000}


def test_a_test_case_without_a_mock_configuration_is_refused(start_server: Callable[..., Server]) -> None:
    flow = Flow(start_server())
    machine = flow.machine(QUICK_QUOTE)
    for start in (flow.sfn.start_execution, flow.sfn.start_sync_execution):
        with pytest.raises(flow.sfn.exceptions.ClientError) as refused:
            start(stateMachineArn=f"{machine}#Cheap")
        assert refused.value.response["Error"] == {
            "Code": "ValidationException",
            "Message": "The state machine ARN names the mock test case 'Cheap', but no mock configuration is loaded: "
                       "start sfn-emulator with --mock-config FILE (or SFN_MOCK_CONFIG)"}


NESTED = {"StartAt": "Fan", "States": {"Fan": {"Type": "Parallel", "Next": "Each", "Branches": [
    {"StartAt": "Charge", "States": {"Charge": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
                                                "Parameters": {"FunctionName": "charge"}, "End": True}}}]},
    "Each": {"Type": "Map", "End": True, "ItemProcessor": {"StartAt": "Ship", "States": {
        "Ship": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
                 "Parameters": {"FunctionName": "ship"}, "End": True}}}}}}


@pytest.mark.parametrize(("case", "message"), [
    ("Misspelt", "StateMachines.Nested.TestCases.Misspelt mocks 'ChargeCard', 'Shipping', which the state machine "
                 "'Nested' has no Task state for; its Task states: Charge, Ship"),
    ("NotATask", "StateMachines.Nested.TestCases.NotATask mocks 'Fan', which the state machine 'Nested' has no Task "
                 "state for; its Task states: Charge, Ship"),
    ("Fien", "the execution was started with the test case 'Fien', but StateMachines.Nested.TestCases does not define "
             "it (it defines 'Misspelt', 'NotATask', 'Fine'); did you mean 'Fine'?"),
    ("Other", "the execution was started with the test case 'Other', but StateMachines.Nested.TestCases does not "
              "define it (it defines 'Misspelt', 'NotATask', 'Fine')"),
])
def test_a_test_case_the_machine_lacks_or_mocking_a_state_it_lacks_is_refused_at_start(
        start_server: Callable[..., Server], tmp_path: Path, case: str, message: str) -> None:
    """Else the states it meant to mock would silently run for real."""
    mocks = tmp_path / "mocks.json"
    mocks.write_text(json.dumps({
        "StateMachines": {"Nested": {"TestCases": {"Misspelt": {"Charge": "Ok", "ChargeCard": "Ok", "Shipping": "Ok"},
                                                   "NotATask": {"Fan": "Ok"}, "Fine": {"Ship": "Ok"}}}},
        "MockedResponses": {"Ok": {"0-9": {"Return": "ok"}}}}))
    flow = Flow(start_server(mock_config=mocks))
    machine = flow.machine(NESTED, name="Nested")
    with pytest.raises(flow.sfn.exceptions.ValidationException) as refused:
        flow.sfn.start_execution(stateMachineArn=f"{machine}#{case}", input='{}')
    assert refused.value.response["Error"]["Message"] == f"mock config {mocks}: {message}"
    flow.sfn.start_execution(stateMachineArn=f"{machine}#Fine", input='{}')
