"""One wording of JSON syntax errors: every reader of JSON text (a definition, an execution input, a
task output) quotes the same Jackson complaint for the same text (table-driven)."""

from __future__ import annotations

import json

import pytest
from helpers.service_world import ACCOUNT, PASS, ROLE, fixture, settle

from sfn_emulator.service import StepFunctionsService
from sfn_emulator.service.errors import InvalidDefinition, InvalidExecutionInput, InvalidOutput

CASES = fixture("jackson_errors.json")["cases"]
ACTIVITY = f"arn:aws:states:us-east-1:{ACCOUNT}:activity:work"


def case_id(case: dict) -> str:
    return case["text"].encode("unicode_escape").decode()


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_a_definition_is_refused_with_jacksons_words_and_position(service: StepFunctionsService, case: dict) -> None:
    answer = service.validate_state_machine_definition(definition=case["text"])
    [diagnostic] = answer["diagnostics"]
    message, location = diagnostic["message"].split("\n at ")
    assert (diagnostic["code"], message) == ("INVALID_JSON_DESCRIPTION", case["message"])
    place = f"; line: {case.get('line', 1)}, column: {case['column']}]"
    assert location == diagnostic["location"] and location.endswith(place)
    with pytest.raises(InvalidDefinition) as refused:
        service.create_state_machine(name="m", definition=case["text"], roleArn=ROLE)
    assert refused.value.message == f"Invalid State Machine Definition: 'INVALID_JSON_DESCRIPTION: {message}\n at {location}'"


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_an_execution_input_is_refused_with_jacksons_words(service: StepFunctionsService, case: dict) -> None:
    machine = service.create_state_machine(name="m", definition=PASS, roleArn=ROLE)["stateMachineArn"]
    with pytest.raises(InvalidExecutionInput) as refused:
        service.start_execution(stateMachineArn=machine, input=case["text"])
    assert refused.value.message == f"Invalid State Machine Execution Input: '{case['message']}'"


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_a_task_output_is_refused_with_jacksons_words(service: StepFunctionsService, engine, case: dict) -> None:
    service.create_activity(name="work")
    definition = {"StartAt": "Work", "States": {"Work": {"Type": "Task", "Resource": ACTIVITY, "End": True}}}
    machine = service.create_state_machine(name="worker", definition=json.dumps(definition), roleArn=ROLE)
    service.start_execution(stateMachineArn=machine["stateMachineArn"])
    settle(engine)
    task = service.get_activity_task(activityArn=ACTIVITY)
    with pytest.raises(InvalidOutput) as refused:
        service.send_task_success(taskToken=task["taskToken"], output=case["text"])
    assert refused.value.message == f"Invalid Output: '{case['message']}'"
