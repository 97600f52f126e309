"""ValidateStateMachineDefinition, TestState, and the map run operations (no map run exists yet)."""

from __future__ import annotations

import json

import pytest
from helpers.service_world import ACCOUNT, PASS, ROLE, settle

from sfn_emulator.service import StepFunctionsService
from sfn_emulator.service.errors import (
    ExecutionDoesNotExist,
    InvalidArn,
    InvalidDefinition,
    InvalidExecutionInput,
    InvalidToken,
    ResourceNotFound,
    ValidationException,
)

MAP_RUN = f"arn:aws:states:us-east-1:{ACCOUNT}:mapRun:m/Fanout:2f1e8a1c-3a0f-4d5e-8f7a-3c2b1a0f9e8d"


def test_validate_a_valid_definition(service: StepFunctionsService) -> None:
    assert service.validate_state_machine_definition(definition=PASS) == {
        "result": "OK", "diagnostics": [], "truncated": False}


def test_validate_reports_diagnostics_and_truncates(service: StepFunctionsService) -> None:
    broken = json.dumps({"StartAt": "Nope", "States": {"A": {"Type": "Pass", "Next": "Gone"}}})
    answer = service.validate_state_machine_definition(definition=broken, type="STANDARD")
    assert answer["result"] == "FAIL" and len(answer["diagnostics"]) >= 2 and not answer["truncated"]
    assert {"severity", "code", "message"} <= set(answer["diagnostics"][0])
    one = service.validate_state_machine_definition(definition=broken, maxResults=1)
    assert (one["result"], len(one["diagnostics"]), one["truncated"]) == ("FAIL", 1, True)


def test_test_state_runs_one_state(service: StepFunctionsService) -> None:
    state = {"Type": "Pass", "Result": {"b": 2}, "ResultPath": "$.r", "Next": "Elsewhere"}
    answer = service.test_state(definition=json.dumps(state), roleArn=ROLE, input='{"a": 1}')
    assert (answer["status"], json.loads(answer["output"]), answer.get("nextState")) == (
        "SUCCEEDED", {"a": 1, "r": {"b": 2}}, "Elsewhere")


def test_test_state_picks_a_named_state_of_a_machine(service: StepFunctionsService) -> None:
    answer = service.test_state(definition=PASS, roleArn=ROLE, stateName="A")
    assert json.loads(answer["output"]) == {"greeting": "hello"}
    with pytest.raises(ValidationException):
        service.test_state(definition=PASS, roleArn=ROLE, stateName="Missing")


def test_test_state_refusals(service: StepFunctionsService) -> None:
    with pytest.raises(InvalidDefinition):
        service.test_state(definition='{"Type": "Teleport"}', roleArn=ROLE)
    with pytest.raises(InvalidExecutionInput):
        service.test_state(definition='{"Type": "Pass", "End": true}', roleArn=ROLE, input="nope")
    with pytest.raises(InvalidArn):
        service.test_state(definition='{"Type": "Pass", "End": true}', roleArn="not-a-role")


def test_map_runs_that_do_not_exist(service: StepFunctionsService, engine) -> None:
    execution = service.start_execution(
        stateMachineArn=service.create_state_machine(name="m", definition=PASS, roleArn=ROLE)["stateMachineArn"]
    )["executionArn"]
    settle(engine)
    assert service.list_map_runs(executionArn=execution) == {"mapRuns": []}
    with pytest.raises(InvalidToken):
        service.list_map_runs(executionArn=execution, nextToken="bogus")
    with pytest.raises(ExecutionDoesNotExist):
        service.list_map_runs(executionArn=execution + "x")
    for call in (lambda: service.describe_map_run(mapRunArn=MAP_RUN),
                 lambda: service.update_map_run(mapRunArn=MAP_RUN, maxConcurrency=2),
                 lambda: service.list_executions(mapRunArn=MAP_RUN)):
        with pytest.raises(ResourceNotFound, match=f"^Resource not found: '{MAP_RUN}'$"):
            call()
    with pytest.raises(InvalidArn):
        service.describe_map_run(mapRunArn=execution)
