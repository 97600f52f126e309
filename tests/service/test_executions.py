"""StartExecution, StartSyncExecution, DescribeExecution, ListExecutions, StopExecution, GetExecutionHistory,
DescribeStateMachineForExecution, RedriveExecution."""

from __future__ import annotations

import json
import uuid

import pytest
from helpers.service_world import ACCOUNT, FAIL, PASS, ROLE, START, WAIT, machine_arn, settle

from sfn_emulator.service import StepFunctionsService
from sfn_emulator.service.errors import (
    ExecutionAlreadyExists,
    ExecutionDoesNotExist,
    ExecutionNotRedrivable,
    InvalidArn,
    InvalidExecutionInput,
    InvalidName,
    InvalidToken,
    StateMachineDoesNotExist,
    StateMachineTypeNotSupported,
)


def execution_arn(machine: str, name: str) -> str:
    return f"arn:aws:states:us-east-1:{ACCOUNT}:execution:{machine}:{name}"


@pytest.fixture
def machines(service: StepFunctionsService) -> StepFunctionsService:
    for name, definition, kind in [("pass", PASS, "STANDARD"), ("wait", WAIT, "STANDARD"), ("fail", FAIL, "STANDARD"),
                                   ("express", PASS, "EXPRESS")]:
        service.create_state_machine(name=name, definition=definition, roleArn=ROLE, type=kind)
    return service


def test_start_then_describe_a_succeeded_execution(machines: StepFunctionsService, engine) -> None:
    started = machines.start_execution(stateMachineArn=machine_arn("pass"), name="run", input='{"x": 1}')
    assert started == {"executionArn": execution_arn("pass", "run"), "startDate": START}
    settle(engine)
    assert machines.describe_execution(executionArn=started["executionArn"]) == {
        "executionArn": execution_arn("pass", "run"),
        "stateMachineArn": machine_arn("pass"),
        "name": "run",
        "status": "SUCCEEDED",
        "startDate": START,
        "stopDate": START,
        "input": '{"x": 1}',
        "inputDetails": {"included": True},
        "output": '{"greeting":"hello"}',
        "outputDetails": {"included": True},
        "redriveCount": 0,
        "redriveStatus": "NOT_REDRIVABLE",
        "redriveStatusReason": "Execution is SUCCEEDED and cannot be redriven",
    }


def test_default_name_is_a_uuid_and_default_input_is_an_empty_object(machines: StepFunctionsService) -> None:
    started = machines.start_execution(stateMachineArn=machine_arn("wait"))
    name = started["executionArn"].rsplit(":", 1)[1]
    assert str(uuid.UUID(name)) == name
    assert machines.describe_execution(executionArn=started["executionArn"])["input"] == "{}"


def test_same_name_is_idempotent_only_while_running_with_the_same_input(machines, engine) -> None:
    first = machines.start_execution(stateMachineArn=machine_arn("wait"), name="n", input='{"k": 1}')
    assert machines.start_execution(stateMachineArn=machine_arn("wait"), name="n", input='{"k": 1}') == first
    with pytest.raises(ExecutionAlreadyExists) as refused:
        machines.start_execution(stateMachineArn=machine_arn("wait"), name="n", input='{"k": 2}')
    assert refused.value.message == f"Execution Already Exists: '{execution_arn('wait', 'n')}'"
    machines.start_execution(stateMachineArn=machine_arn("pass"), name="done", input="{}")
    settle(engine)
    with pytest.raises(ExecutionAlreadyExists):
        machines.start_execution(stateMachineArn=machine_arn("pass"), name="done", input="{}")


def test_start_refusals(machines: StepFunctionsService) -> None:
    with pytest.raises(InvalidName):
        machines.start_execution(stateMachineArn=machine_arn("pass"), name="bad:name")
    with pytest.raises(InvalidExecutionInput):
        machines.start_execution(stateMachineArn=machine_arn("pass"), input="{not json")
    with pytest.raises(StateMachineDoesNotExist):
        machines.start_execution(stateMachineArn=machine_arn("ghost"))
    with pytest.raises(StateMachineDoesNotExist):
        machines.start_execution(stateMachineArn=machine_arn("pass") + ":3")
    with pytest.raises(InvalidArn):
        machines.start_execution(stateMachineArn="arn:aws:states:us-east-1:123456789012:stateMachine")


def test_mock_test_case_suffix_is_stripped_and_kept_on_the_execution(machines: StepFunctionsService) -> None:
    started = machines.start_execution(stateMachineArn=machine_arn("wait") + "#HappyPath", name="mocked")
    assert started["executionArn"] == execution_arn("wait", "mocked")
    assert machines.registry.store(None, None).executions[started["executionArn"]].execution.test_case == "HappyPath"


def test_express_executions_are_neither_listed_nor_described(machines: StepFunctionsService) -> None:
    started = machines.start_execution(stateMachineArn=machine_arn("express"), name="e")
    prefix = f"arn:aws:states:us-east-1:{ACCOUNT}:express:express:e:"
    assert started["executionArn"].startswith(prefix)
    with pytest.raises(InvalidArn, match="^Invalid Arn: 'Resource type not valid in this context: express'$"):
        machines.describe_execution(executionArn=started["executionArn"])
    with pytest.raises(StateMachineTypeNotSupported, match="^This operation is not supported by this type of state"):
        machines.list_executions(stateMachineArn=machine_arn("express"))


def test_start_sync_execution_runs_express_machines_to_the_end(machines: StepFunctionsService) -> None:
    answer = machines.start_sync_execution(stateMachineArn=machine_arn("express"), name="s", input='{"a": 1}')
    assert answer["executionArn"].startswith(f"arn:aws:states:us-east-1:{ACCOUNT}:express:express:s:")
    assert {key: answer[key] for key in ("stateMachineArn", "name", "status", "input", "output")} == {
        "stateMachineArn": machine_arn("express"), "name": "s", "status": "SUCCEEDED", "input": '{"a": 1}',
        "output": '{"greeting":"hello"}'}
    assert answer["billingDetails"] == {"billedMemoryUsedInMB": 64, "billedDurationInMilliseconds": 100}
    metadata = machines.start_sync_execution(stateMachineArn=machine_arn("express"), includedData="METADATA_ONLY")
    assert "input" not in metadata and metadata["inputDetails"] == {"included": False}
    with pytest.raises(StateMachineTypeNotSupported):
        machines.start_sync_execution(stateMachineArn=machine_arn("pass"))


def test_list_executions_newest_first_with_filters_and_pages(machines: StepFunctionsService, engine) -> None:
    for name in ["one", "two", "three"]:
        machines.start_execution(stateMachineArn=machine_arn("wait"), name=name)
    settle(engine)
    machines.stop_execution(executionArn=execution_arn("wait", "two"))
    listed = machines.list_executions(stateMachineArn=machine_arn("wait"))["executions"]
    assert [e["name"] for e in listed] == ["three", "two", "one"]
    assert set(listed[0]) == {"executionArn", "stateMachineArn", "name", "status", "startDate", "redriveCount"}
    aborted = machines.list_executions(stateMachineArn=machine_arn("wait"), statusFilter="ABORTED")["executions"]
    assert [e["name"] for e in aborted] == ["two"] and aborted[0]["stopDate"] == START
    first = machines.list_executions(stateMachineArn=machine_arn("wait"), maxResults=2)
    rest = machines.list_executions(stateMachineArn=machine_arn("wait"), maxResults=2, nextToken=first["nextToken"])
    assert [e["name"] for e in first["executions"] + rest["executions"]] == ["three", "two", "one"]
    assert machines.list_executions(stateMachineArn=machine_arn("wait"), redriveFilter="REDRIVEN") == {"executions": []}
    with pytest.raises(InvalidToken):
        machines.list_executions(stateMachineArn=machine_arn("wait"), nextToken="bogus")


def test_stop_aborts_a_running_execution_and_leaves_a_finished_one(machines: StepFunctionsService, engine, clock) -> None:
    running = machines.start_execution(stateMachineArn=machine_arn("wait"), name="r")["executionArn"]
    settle(engine)
    clock.advance(10)
    assert machines.stop_execution(executionArn=running, error="Halt", cause="by test") == {"stopDate": clock.now()}
    described = machines.describe_execution(executionArn=running)
    assert (described["status"], described["error"], described["cause"]) == ("ABORTED", "Halt", "by test")
    history = machines.get_execution_history(executionArn=running)["events"]
    assert history[-1]["type"] == "ExecutionAborted"
    finished = machines.start_execution(stateMachineArn=machine_arn("pass"), name="f")["executionArn"]
    settle(engine)
    ended = clock.now()
    clock.advance(10)
    assert machines.stop_execution(executionArn=finished) == {"stopDate": ended}
    assert machines.describe_execution(executionArn=finished)["status"] == "SUCCEEDED"


def test_history_order_pages_and_execution_data(machines: StepFunctionsService, engine) -> None:
    arn = machines.start_execution(stateMachineArn=machine_arn("pass"), name="h", input='{"secret": 1}')["executionArn"]
    settle(engine)
    events = machines.get_execution_history(executionArn=arn)["events"]
    assert [e["type"] for e in events] == ["ExecutionStarted", "PassStateEntered", "PassStateExited", "ExecutionSucceeded"]
    reverse = machines.get_execution_history(executionArn=arn, reverseOrder=True)["events"]
    assert [e["id"] for e in reverse] == [4, 3, 2, 1]
    first = machines.get_execution_history(executionArn=arn, maxResults=3)
    rest = machines.get_execution_history(executionArn=arn, maxResults=3, nextToken=first["nextToken"])
    assert [e["id"] for e in first["events"] + rest["events"]] == [1, 2, 3, 4]
    with pytest.raises(InvalidToken):  # a token of the forward listing does not page the reverse one
        machines.get_execution_history(executionArn=arn, reverseOrder=True, nextToken=first["nextToken"])
    bare = machines.get_execution_history(executionArn=arn, includeExecutionData=False)["events"]
    assert "input" not in bare[0]["executionStartedEventDetails"]
    assert "output" not in bare[-1]["executionSucceededEventDetails"]
    with pytest.raises(ExecutionDoesNotExist):
        machines.get_execution_history(executionArn=execution_arn("pass", "ghost"))


def test_describe_state_machine_for_execution_shows_what_ran(machines: StepFunctionsService, clock) -> None:
    arn = machines.start_execution(stateMachineArn=machine_arn("wait"), name="old")["executionArn"]
    clock.advance(5)
    machines.update_state_machine(stateMachineArn=machine_arn("wait"), definition=PASS)
    ran = machines.describe_state_machine_for_execution(executionArn=arn)
    assert ran == {
        "stateMachineArn": machine_arn("wait"), "name": "wait", "definition": WAIT, "roleArn": ROLE, "updateDate": START,
        "loggingConfiguration": {"level": "OFF", "includeExecutionData": False},
        "tracingConfiguration": {"enabled": False}, "encryptionConfiguration": {"type": "AWS_OWNED_KEY"},
    }


def test_redrive_only_failed_timed_out_or_aborted_executions(machines: StepFunctionsService, engine, clock) -> None:
    failed = machines.start_execution(stateMachineArn=machine_arn("fail"), name="x")["executionArn"]
    done = machines.start_execution(stateMachineArn=machine_arn("pass"), name="y")["executionArn"]
    running = machines.start_execution(stateMachineArn=machine_arn("wait"), name="z")["executionArn"]
    settle(engine)
    assert machines.describe_execution(executionArn=failed)["redriveStatus"] == "REDRIVABLE"
    with pytest.raises(ExecutionNotRedrivable, match="^Execution is SUCCEEDED and cannot be redriven$"):
        machines.redrive_execution(executionArn=done)
    with pytest.raises(ExecutionNotRedrivable, match="^Execution is RUNNING and cannot be redriven$"):
        machines.redrive_execution(executionArn=running)
    clock.advance(60)
    redriven = machines.redrive_execution(executionArn=failed, clientToken="once")
    assert redriven == {"redriveDate": clock.now()}
    assert machines.redrive_execution(executionArn=failed, clientToken="once") == redriven  # the same request
    settle(engine)
    described = machines.describe_execution(executionArn=failed)
    assert (described["redriveCount"], described["redriveDate"], described["status"]) == (1, clock.now(), "FAILED")
    assert [e["name"] for e in machines.list_executions(stateMachineArn=machine_arn("fail"),
                                                        redriveFilter="REDRIVEN")["executions"]] == ["x"]
    clock.advance(15 * 24 * 3600)
    with pytest.raises(ExecutionNotRedrivable, match="^Execution redrivable period exceeded$"):
        machines.redrive_execution(executionArn=failed)


def test_describe_execution_refusals(machines: StepFunctionsService) -> None:
    with pytest.raises(ExecutionDoesNotExist) as refused:
        machines.describe_execution(executionArn=execution_arn("pass", "ghost"))
    assert refused.value.message == f"Execution Does Not Exist: '{execution_arn('pass', 'ghost')}'"
    with pytest.raises(InvalidArn, match="Invalid ARN prefix: not-an-arn"):
        machines.describe_execution(executionArn="not-an-arn")


def test_executions_of_a_scalar_input(machines: StepFunctionsService, engine) -> None:
    arn = machines.start_execution(stateMachineArn=machine_arn("pass"), input="2")["executionArn"]
    settle(engine)
    assert json.loads(machines.describe_execution(executionArn=arn)["input"]) == 2
