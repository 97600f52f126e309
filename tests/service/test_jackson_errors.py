"""One wording of JSON syntax errors: every reader of JSON text (a definition, an execution input, a
task output, TestState's definition, input, Context object and variables) quotes the same Jackson
complaint for the same text (table-driven; `sfn_emulator.asl.json_reading` words them all)."""

from __future__ import annotations

import json

import pytest
from helpers.service_world import ACCOUNT, PASS, ROLE, fixture, settle

from sfn_emulator.service import StepFunctionsService
from sfn_emulator.service.errors import InvalidDefinition, InvalidExecutionInput, InvalidOutput, ValidationException

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


TEST_STATE_PASS = json.dumps({"Type": "Pass", "End": True})
TEST_STATE_TASK = json.dumps({"Type": "Task", "Resource": f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:f", "End": True})
# TestState's JSON texts, each with the refusal that quotes Jackson's complaint about it.
TEST_STATE_TEXTS = {
    "definition": (lambda text: {"definition": text},
                   InvalidDefinition, "Invalid State Machine Definition: 'INVALID_JSON_DESCRIPTION: {message}\n at "),
    "input": (lambda text: {"definition": TEST_STATE_PASS, "input": text},
              InvalidExecutionInput, "Invalid State Machine Execution Input: '{message}'"),
    "context": (lambda text: {"definition": TEST_STATE_TASK, "roleArn": ROLE, "mock": {"result": "{}"}, "context": text},
                ValidationException, "Invalid Context object provided: {message}"),
    "variables": (lambda text: {"definition": TEST_STATE_PASS, "variables": text},
                  ValidationException, "Invalid variables: {message}"),
}


@pytest.mark.parametrize("field", TEST_STATE_TEXTS)
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_each_test_state_json_text_is_refused_with_jacksons_words(service: StepFunctionsService, field: str,
                                                                  case: dict) -> None:
    arguments, refusal, wording = TEST_STATE_TEXTS[field]
    with pytest.raises(refusal) as refused:
        service.test_state(**arguments(case["text"]))
    assert refused.value.message.startswith(wording.format(message=case["message"]))
