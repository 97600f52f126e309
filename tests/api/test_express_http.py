"""EXPRESS executions over HTTP: the five-minute quota, however the execution is started or nested.

Rule (emulator/sfn_emulator/engine/run_time_limit.py): an EXPRESS execution ends TIMED_OUT five minutes of clock
time after its start, unless its TimeoutSeconds ends it sooner; STANDARD executions have no such bound."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from helpers.paths import FIXTURES_ROOT

CASES = json.loads((FIXTURES_ROOT / "express" / "run_time_limit.json").read_text())["cases"]
ROLE = "arn:aws:iam::123456789012:role/sfn-role"


def _machine(sfn: Any, definition: dict[str, Any], machine_type: str) -> str:
    return sfn.create_state_machine(name=f"express-{uuid.uuid4().hex[:12]}", definition=json.dumps(definition),
                                    roleArn=ROLE, type=machine_type)["stateMachineArn"]


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_express_executions_end_at_five_minutes(sfn: Any, case: dict[str, Any]) -> None:
    machine = _machine(sfn, case["definition"], "EXPRESS")
    answer = sfn.start_sync_execution(stateMachineArn=machine, input=json.dumps(case.get("input", {})))
    assert answer["status"] == case["status"]
    assert (answer["stopDate"] - answer["startDate"]).total_seconds() == case["seconds"]
    if case["status"] == "TIMED_OUT":  # ended as a timed-out execution ends: no output, error or cause
        assert not {"output", "error", "cause"} & set(answer)


def test_standard_executions_have_no_such_bound(sfn: Any, emulator_server: Any) -> None:
    machine = _machine(sfn, CASES[0]["definition"], "STANDARD")
    execution = sfn.start_execution(stateMachineArn=machine)["executionArn"]
    assert emulator_server.emulator.clock.run_until_idle(10)
    described = sfn.describe_execution(executionArn=execution)
    assert described["status"] == "SUCCEEDED"
    assert (described["stopDate"] - described["startDate"]).total_seconds() == 400


def test_asynchronous_express_executions_are_bounded_too(sfn: Any, emulator_server: Any) -> None:
    """A STANDARD parent waits (`.sync:2`) for an EXPRESS child started with StartExecution: the child's
    quota ends it, and the parent's task fails as a timed-out child fails it."""
    child = _machine(sfn, CASES[0]["definition"], "EXPRESS")
    parent = _machine(sfn, {"StartAt": "Child", "States": {"Child": {
        "Type": "Task", "Resource": "arn:aws:states:::states:startExecution.sync:2",
        "Parameters": {"StateMachineArn": child}, "End": True}}}, "STANDARD")
    execution = sfn.start_execution(stateMachineArn=parent)["executionArn"]
    assert emulator_server.emulator.clock.run_until_idle(10)
    described = sfn.describe_execution(executionArn=execution)
    assert described["status"] == "FAILED"
    assert described["error"] == "States.TaskFailed"
    assert json.loads(described["cause"])["Status"] == "TIMED_OUT"
    assert 300 <= (described["stopDate"] - described["startDate"]).total_seconds() < 400  # the child started a moment later


def test_distributed_map_express_children_are_bounded(sfn: Any, emulator_server: Any) -> None:
    parent = _machine(sfn, {"StartAt": "M", "States": {"M": {
        "Type": "Map", "End": True, "ItemsPath": "$.items",
        "ItemProcessor": {"ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "EXPRESS"},
                          "StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 400, "End": True}}}}}},
        "STANDARD")
    execution = sfn.start_execution(stateMachineArn=parent, input='{"items": [1]}')["executionArn"]
    assert emulator_server.emulator.clock.run_until_idle(10)
    described = sfn.describe_execution(executionArn=execution)
    assert described["status"] == "FAILED"
    assert (described["stopDate"] - described["startDate"]).total_seconds() == 300


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_the_same_quota_in_process(case: dict[str, Any]) -> None:
    from sfn_emulator.api import run_definition

    result = run_definition(case["definition"], case.get("input", {}), type="EXPRESS")
    assert result.status == case["status"]
