"""Callbacks, nested executions and synchronous EXPRESS executions over HTTP with boto3.

- `.waitForTaskToken` answered by the test: SendTaskSuccess, SendTaskFailure, SendTaskHeartbeat,
  and AWS's refusals (InvalidToken, TaskDoesNotExist, TaskTimedOut).
- `arn:aws:states:::states:startExecution`: request-response, `.sync` (Output as JSON text),
  `.sync:2` (Output as JSON), `.waitForTaskToken`, `AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID`
  passed in the child's input, and the parent failing with States.TaskFailed and the child's
  description when the child fails, times out or is aborted.
- StartSyncExecution returning output, error and cause.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from flow import ACCOUNT, Flow, Server, outcome, task

TOKEN = {"token.$": "$$.Task.Token"}


@pytest.fixture(scope="module")
def flow(start_server: Callable[..., Server]) -> Flow:
    server = start_server()
    server.emulator.functions.register("hold", lambda event, context: None)
    server.emulator.functions.register("refuse", refuse)
    return Flow(server)


def refuse(event: Any, context: Any) -> Any:
    raise PermissionError(f"{event['who']} may not")


def waiting_for_token(flow: Flow, **fields: Any) -> tuple[str, str]:
    """Start an execution whose Task waits for a token; return (execution ARN, token)."""
    definition = task("arn:aws:states:::lambda:invoke.waitForTaskToken",
                      Parameters={"FunctionName": "hold", "Payload": TOKEN}, **fields)
    execution = flow.start(flow.machine(definition))
    flow.settle()
    scheduled = next(event for event in flow.events(execution) if event["type"] == "TaskScheduled")
    token = json.loads(scheduled["taskScheduledEventDetails"]["parameters"])["Payload"]["token"]
    return execution, token


# -- callbacks ----------------------------------------------------------------------------------------

def test_send_task_success_completes_the_task_with_its_output(flow: Flow) -> None:
    execution, token = waiting_for_token(flow)
    flow.sfn.send_task_heartbeat(taskToken=token)
    flow.sfn.send_task_success(taskToken=token, output='{"approved": true}')
    flow.settle()
    assert outcome(flow.describe(execution)) == {"status": "SUCCEEDED", "output": {"approved": True}}
    with pytest.raises(flow.sfn.exceptions.TaskDoesNotExist):
        flow.sfn.send_task_success(taskToken=token, output="{}")  # a closed task is gone


def test_send_task_failure_fails_the_task_with_its_error_and_cause(flow: Flow) -> None:
    execution, token = waiting_for_token(flow)
    flow.sfn.send_task_failure(taskToken=token, error="Rejected", cause="by a human")
    flow.settle()
    assert outcome(flow.describe(execution)) == {"status": "FAILED", "error": "Rejected", "cause": "by a human"}
    assert flow.event_types(execution)[-2:] == ["TaskFailed", "ExecutionFailed"]


@pytest.mark.parametrize(("token", "code"), [
    ("not a token", "InvalidToken"),
    ("0" * 64, "TaskDoesNotExist"),
])
def test_tokens_nobody_issued_are_refused(flow: Flow, token: str, code: str) -> None:
    for send in (lambda: flow.sfn.send_task_success(taskToken=token, output="{}"),
                 lambda: flow.sfn.send_task_failure(taskToken=token, error="E"),
                 lambda: flow.sfn.send_task_heartbeat(taskToken=token)):
        with pytest.raises(flow.sfn.exceptions.ClientError) as refused:
            send()
        assert refused.value.response["Error"]["Code"] == code


def test_a_callback_that_timed_out_refuses_a_late_answer(start_server: Callable[..., Server]) -> None:
    server = start_server(clock="manual")
    server.emulator.functions.register("hold", lambda event, context: None)
    flow = Flow(server)
    execution, token = waiting_for_token(flow, TimeoutSeconds=60)
    server.emulator.clock.advance(60)
    flow.settle()
    assert outcome(flow.describe(execution)) == {"status": "FAILED", "error": "States.Timeout"}
    assert flow.event_types(execution)[-2:] == ["TaskTimedOut", "ExecutionFailed"]
    with pytest.raises(flow.sfn.exceptions.TaskTimedOut):
        flow.sfn.send_task_success(taskToken=token, output="{}")



def test_a_missed_heartbeat_is_caught_by_its_catch_and_retry_name(start_server: Callable[..., Server]) -> None:
    """Every SendTaskHeartbeat moves the deadline; a missed one is States.Timeout, which a Catcher
    naming States.HeartbeatTimeout catches (AWS names it so only in Catch and Retry)."""
    server = start_server(clock="manual")
    server.emulator.functions.register("hold", lambda event, context: None)
    flow = Flow(server)
    waiting = {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke.waitForTaskToken",
               "Parameters": {"FunctionName": "hold", "Payload": TOKEN}, "TimeoutSeconds": 100, "HeartbeatSeconds": 10,
               "Catch": [{"ErrorEquals": ["States.TaskFailed"], "Next": "Failed"},
                         {"ErrorEquals": ["States.HeartbeatTimeout"], "ResultPath": "$.missed", "Next": "Missed"}],
               "End": True}
    definition = {"StartAt": "Call", "States": {"Call": waiting, "Failed": {"Type": "Fail", "Error": "Wrong"},
                                                "Missed": {"Type": "Pass", "End": True}}}
    execution = flow.start(flow.machine(definition), {"order": 7})
    flow.settle()
    scheduled = next(event for event in flow.events(execution) if event["type"] == "TaskScheduled")
    token = json.loads(scheduled["taskScheduledEventDetails"]["parameters"])["Payload"]["token"]
    for seconds in (8, 8):  # a heartbeat within every 10 s keeps the task alive past its first deadline
        server.emulator.clock.advance(seconds)
        flow.sfn.send_task_heartbeat(taskToken=token)
        flow.settle()  # the engine has taken the heartbeat up before the clock moves on
    server.emulator.clock.advance(9)
    flow.settle()
    assert flow.describe(execution)["status"] == "RUNNING"
    server.emulator.clock.advance(1)
    flow.settle()
    assert outcome(flow.describe(execution)) == {
        "status": "SUCCEEDED", "output": {"order": 7, "missed": {"Error": "States.Timeout", "Cause": ""}}}
    timed_out = next(event for event in flow.events(execution) if event["type"] == "TaskTimedOut")
    assert timed_out["taskTimedOutEventDetails"]["error"] == "States.Timeout"
    with pytest.raises(flow.sfn.exceptions.TaskTimedOut):
        flow.sfn.send_task_success(taskToken=token, output="{}")

# -- nested executions -----------------------------------------------------------------------------------

CHILD = {"StartAt": "Greet", "States": {"Greet": {
    "Type": "Pass", "Parameters": {"greeting.$": "States.Format('hello {}', $.name)",
                                   "parent.$": "$.AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID"}, "End": True}}}
FAILING_CHILD = {"StartAt": "Boom", "States": {"Boom": {"Type": "Fail", "Error": "ChildBroke", "Cause": "on purpose"}}}


def start_child(pattern: str, child_arn: str) -> dict[str, Any]:
    return task(f"arn:aws:states:::states:startExecution{pattern}", Parameters={
        "StateMachineArn": child_arn, "Name": f"child-{uuid.uuid4().hex[:8]}",
        "Input": {"name": "Ada", "AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID.$": "$$.Execution.Id"}})


def test_start_execution_request_response_returns_the_child_arn_at_once(flow: Flow) -> None:
    child = flow.machine(CHILD)
    parent = flow.start(flow.machine(start_child("", child)))
    flow.settle()
    output = outcome(flow.describe(parent))["output"]
    assert set(output) == {"ExecutionArn", "StartDate", "SdkHttpMetadata", "SdkResponseMetadata"}
    assert outcome(flow.describe(output["ExecutionArn"]))["output"] == {"greeting": "hello Ada", "parent": parent}


@pytest.mark.parametrize("pattern", ["", ".sync", ".sync:2", ".waitForTaskToken"])
def test_a_parameter_start_execution_has_no_member_for_is_refused(flow: Flow, pattern: str) -> None:
    child = flow.machine(CHILD)
    parent = flow.start(flow.machine(task(f"arn:aws:states:::states:startExecution{pattern}", Parameters={
        "StateMachineArn": child, "ExecutionName": "child", "Input": {}})))
    flow.settle()
    described = outcome(flow.describe(parent))
    assert (described["status"], described["error"]) == ("FAILED", "States.Runtime")
    assert described["cause"].endswith('The field "ExecutionName" is not supported by Step Functions'), \
        described["cause"]


@pytest.mark.parametrize(("pattern", "as_json"), [(".sync", False), (".sync:2", True)])
def test_sync_waits_for_the_child_and_returns_its_description(flow: Flow, pattern: str, as_json: bool) -> None:
    child = flow.machine(CHILD)
    parent = flow.start(flow.machine(start_child(pattern, child)))
    flow.settle()
    output = outcome(flow.describe(parent))["output"]
    child_output = {"greeting": "hello Ada", "parent": parent}
    assert output["Status"] == "SUCCEEDED" and output["StateMachineArn"] == child
    assert output["Output"] == (child_output if as_json else json.dumps(child_output, separators=(",", ":")))
    assert isinstance(output["Input"], dict if as_json else str)
    assert flow.event_types(parent) == [
        "ExecutionStarted", "TaskStateEntered", "TaskScheduled", "TaskStarted", "TaskSubmitted", "TaskSucceeded",
        "TaskStateExited", "ExecutionSucceeded"]


def test_a_failed_child_fails_the_sync_parent_with_states_task_failed(flow: Flow) -> None:
    child = flow.machine(FAILING_CHILD)
    parent = flow.start(flow.machine(start_child(".sync", child)))
    flow.settle()
    described = flow.describe(parent)
    assert (described["status"], described["error"]) == ("FAILED", "States.TaskFailed")
    cause = json.loads(described["cause"])
    assert (cause["Status"], cause["Error"], cause["Cause"]) == ("FAILED", "ChildBroke", "on purpose")


HOLDING_CHILD = task("arn:aws:states:::lambda:invoke.waitForTaskToken",
                     Parameters={"FunctionName": "hold", "Payload": TOKEN})
CHILD_ENDINGS = {
    "failed": ({"StartAt": "Boom", "States": {"Boom": {"Type": "Fail", "Error": "ChildBroke", "Cause": "on purpose"}}},
               "FAILED"),
    "failed without a cause": ({"StartAt": "Boom", "States": {"Boom": {"Type": "Fail", "Error": "ChildBroke"}}},
                               "FAILED"),
    "timed out": ({"TimeoutSeconds": 5, "StartAt": "Nap", "States": {"Nap": {"Type": "Wait", "Seconds": 60, "End": True}}},
                  "TIMED_OUT"),
    "aborted": (HOLDING_CHILD, "ABORTED"),
}


@pytest.mark.parametrize("pattern", [".sync", ".sync:2"])
@pytest.mark.parametrize("ending", list(CHILD_ENDINGS))
def test_a_child_that_does_not_succeed_fails_the_sync_parent_with_its_description(
        flow: Flow, pattern: str, ending: str) -> None:
    """AWS reports every unsuccessful child the same way (recorded: a failed child, a child failed by a
    task timeout): States.TaskFailed, and as the Cause the child's DescribeExecution in PascalCase,
    with its Error and Cause where it has them."""
    child_definition, status = CHILD_ENDINGS[ending]
    child = flow.machine(child_definition)
    parent = flow.start(flow.machine(start_child(pattern, child)))
    flow.settle()
    [child_execution] = flow.sfn.list_executions(stateMachineArn=child)["executions"]
    if status == "ABORTED":
        flow.sfn.stop_execution(executionArn=child_execution["executionArn"], error="Halt", cause="by the test")
        flow.settle()
    described_child = flow.describe(child_execution["executionArn"])
    described = flow.describe(parent)
    assert (described["status"], described["error"]) == ("FAILED", "States.TaskFailed")
    cause = json.loads(described["cause"])
    expected_input = json.loads(described_child["input"]) if pattern == ".sync:2" else described_child["input"]
    assert {key: cause[key] for key in ("ExecutionArn", "Name", "StateMachineArn", "Status", "Input")} == {
        "ExecutionArn": described_child["executionArn"], "Name": described_child["name"],
        "StateMachineArn": child, "Status": status, "Input": expected_input}
    assert set(cause) == {"ExecutionArn", "Input", "InputDetails", "Name", "StartDate", "StateMachineArn", "Status",
                          "StopDate", *(key.capitalize() for key in ("error", "cause") if key in described_child)}
    assert (cause.get("Error"), cause.get("Cause")) == (described_child.get("error"), described_child.get("cause"))
    assert cause["StopDate"] == int(described_child["stopDate"].timestamp() * 1000)


@pytest.mark.parametrize("pattern", [".sync", ".sync:2"])
@pytest.mark.parametrize(("child_seconds", "status"), [(60, "FAILED"), (2, "SUCCEEDED")])
def test_the_task_timeout_covers_the_whole_child_execution(flow: Flow, pattern: str, child_seconds: int,
                                                           status: str) -> None:
    child = flow.machine({"StartAt": "Nap", "States": {"Nap": {"Type": "Wait", "Seconds": child_seconds, "End": True}}})
    definition = start_child(pattern, child)
    definition["States"]["Call"]["TimeoutSeconds"] = 5
    parent = flow.start(flow.machine(definition))
    flow.settle()
    described = flow.describe(parent)
    assert described["status"] == status
    if status == "FAILED":
        assert (described["error"], "cause" in described) == ("States.Timeout", False)
        assert flow.event_types(parent)[-2:] == ["TaskTimedOut", "ExecutionFailed"]
        started = next(event for event in flow.events(parent) if event["type"] == "TaskStarted")["timestamp"]
        assert (described["stopDate"] - started).total_seconds() == 5  # counted from the task's start


@pytest.mark.parametrize("pattern", [".sync", ".sync:2"])
@pytest.mark.parametrize("answer", ["success", "failure"])
def test_a_sync_task_is_answered_by_its_own_token_too(flow: Flow, pattern: str, answer: str) -> None:
    """AWS recorded a `.sync` parent that passed `$$.Task.Token` to its child and was completed by
    SendTaskSuccess with it while the child still ran."""
    child = flow.machine(HOLDING_CHILD)
    definition = task(f"arn:aws:states:::states:startExecution{pattern}", Parameters={
        "StateMachineArn": child, "Input": {"parent_token.$": "$$.Task.Token"}})
    parent = flow.start(flow.machine(definition))
    flow.settle()
    [child_execution] = flow.sfn.list_executions(stateMachineArn=child)["executions"]
    token = json.loads(flow.describe(child_execution["executionArn"])["input"])["parent_token"]
    if answer == "success":
        flow.sfn.send_task_success(taskToken=token, output='"answered by token"')
    else:
        flow.sfn.send_task_failure(taskToken=token, error="Refused", cause="by the child")
    flow.settle()
    expected = ({"status": "SUCCEEDED", "output": "answered by token"} if answer == "success"
                else {"status": "FAILED", "error": "Refused", "cause": "by the child"})
    assert outcome(flow.describe(parent)) == expected
    assert flow.describe(child_execution["executionArn"])["status"] == "RUNNING"  # the child goes on
    with pytest.raises(flow.sfn.exceptions.TaskDoesNotExist):
        flow.sfn.send_task_success(taskToken=token, output="{}")
    flow.sfn.stop_execution(executionArn=child_execution["executionArn"])
    flow.settle()


def test_a_sync_task_s_token_is_spent_when_the_child_ends(flow: Flow) -> None:
    child = flow.machine({"StartAt": "Echo", "States": {"Echo": {"Type": "Pass", "End": True}}})
    definition = task("arn:aws:states:::states:startExecution.sync:2", Parameters={
        "StateMachineArn": child, "Input": {"parent_token.$": "$$.Task.Token"}})
    output = outcome(flow.run(definition))["output"]
    assert output["Status"] == "SUCCEEDED"
    with pytest.raises(flow.sfn.exceptions.TaskDoesNotExist):
        flow.sfn.send_task_success(taskToken=output["Output"]["parent_token"], output="{}")


def test_start_execution_wait_for_task_token_waits_for_the_childs_callback(flow: Flow) -> None:
    child = flow.machine({"StartAt": "Done", "States": {"Done": {"Type": "Pass", "End": True}}})
    definition = task("arn:aws:states:::states:startExecution.waitForTaskToken", Parameters={
        "StateMachineArn": child, "Input": {"callback.$": "$$.Task.Token"}})
    parent = flow.start(flow.machine(definition))
    flow.settle()
    assert flow.describe(parent)["status"] == "RUNNING"
    [child_execution] = flow.sfn.list_executions(stateMachineArn=child)["executions"]
    token = json.loads(flow.describe(child_execution["executionArn"])["output"])["callback"]
    flow.sfn.send_task_success(taskToken=token, output='"child reported"')
    flow.settle()
    assert outcome(flow.describe(parent)) == {"status": "SUCCEEDED", "output": "child reported"}


# -- EXPRESS, synchronously ---------------------------------------------------------------------------------

def test_start_sync_execution_answers_with_output_error_and_cause(flow: Flow) -> None:
    machine = flow.machine(task(f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:refuse"), type="EXPRESS")
    answered = flow.sfn.start_sync_execution(stateMachineArn=machine, input='{"who": "Eve"}')
    assert (answered["status"], answered["error"]) == ("FAILED", "PermissionError")
    assert json.loads(answered["cause"])["errorMessage"] == "Eve may not"

    greeter = flow.machine(CHILD, type="EXPRESS")
    answered = flow.sfn.start_sync_execution(
        stateMachineArn=greeter, input='{"name": "Bo", "AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID": "none"}')
    assert outcome(answered) == {"status": "SUCCEEDED", "output": {"greeting": "hello Bo", "parent": "none"}}
