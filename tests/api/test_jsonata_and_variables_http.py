"""JSONata and workflow variables over HTTP with boto3: a machine that assigns and reads variables
in both query languages, the assigned variables in the history, AWS's error for an expression that
gives nothing, and definitions refused for mixing the languages' fields."""

from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.exceptions import ClientError
from helpers.clients import run_and_read

ROLE = "arn:aws:iam::123456789012:role/jsonata-tests"



def run(sfn: Any, emulator_server: Any, definition: dict[str, Any], value: Any) -> tuple[dict[str, Any], list[dict]]:
    return run_and_read(sfn, emulator_server, definition, value, role_arn=ROLE)


def test_variables_flow_between_jsonpath_and_jsonata_states(sfn: Any, emulator_server: Any) -> None:
    definition = {"StartAt": "Keep", "States": {
        "Keep": {"Type": "Pass", "Assign": {"user.$": "$.user", "visits": 1}, "Next": "Count"},
        "Count": {"Type": "Pass", "QueryLanguage": "JSONata", "Assign": {"visits": "{% $visits + 1 %}"},
                  "Output": {"before": "{% $visits %}"}, "Next": "Show"},
        "Show": {"Type": "Pass", "Parameters": {"name.$": "$user.name", "visits.$": "$visits", "before.$": "$.before"},
                 "End": True}}}

    described, events = run(sfn, emulator_server, definition, {"user": {"name": "Ada"}})

    assert described["status"] == "SUCCEEDED", described
    assert json.loads(described["output"]) == {"name": "Ada", "visits": 2, "before": 1}
    exits = [event["stateExitedEventDetails"] for event in events if event["type"] == "PassStateExited"]
    assert exits[0]["assignedVariables"] == {"user": '{"name":"Ada"}', "visits": "1"}
    assert exits[0]["assignedVariablesDetails"] == {"truncated": False}
    assert exits[1]["assignedVariables"] == {"visits": "2"}
    assert "assignedVariables" not in exits[2]


def test_an_expression_that_gives_nothing_fails_the_execution(sfn: Any, emulator_server: Any) -> None:
    definition = {"QueryLanguage": "JSONata", "StartAt": "Fallback", "States": {
        "Fallback": {"Type": "Pass", "Output": {"error": "{% $stateError %}"}, "End": True}}}

    described, events = run(sfn, emulator_server, definition, {})

    assert (described["status"], described["error"]) == ("FAILED", "States.QueryEvaluationError")
    assert described["cause"] == ("An error occurred while executing the state 'Fallback' (entered at the event id #2). "
                                  "The JSONata expression '$stateError' specified for the field 'Output/error' "
                                  "returned nothing (undefined).")
    failed = next(event for event in events if event["type"] == "EvaluationFailed")
    assert failed["evaluationFailedEventDetails"] == {
        "error": "States.QueryEvaluationError", "cause": described["cause"], "state": "Fallback",
        "location": "Output/error"}


@pytest.mark.parametrize(("state", "message"), [
    ({"Type": "Pass", "QueryLanguage": "JSONata", "ResultPath": "$.x", "End": True},
     "The QueryLanguage is set to 'JSONata', but field 'ResultPath' is only supported for the 'JSONPath' "
     "QueryLanguage at /States/A"),
    ({"Type": "Pass", "Output": {"x": 1}, "End": True},
     "The QueryLanguage is set to 'JSONPath', but field 'Output' is only supported for the 'JSONata' "
     "QueryLanguage at /States/A"),
])
def test_fields_of_the_other_query_language_are_refused(sfn: Any, state: dict[str, Any], message: str) -> None:
    definition = {"StartAt": "A", "States": {"A": state}}
    with pytest.raises(ClientError) as refused:
        sfn.create_state_machine(name="mixed", definition=json.dumps(definition), roleArn=ROLE)
    assert refused.value.response["Error"]["Code"] == "InvalidDefinition"
    assert refused.value.response["Error"]["Message"] == f"Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: {message}'"


ITEMS_PROCESSOR = {"ProcessorConfig": {"Mode": "INLINE"}, "StartAt": "Each", "States": {"Each": {"Type": "Pass", "End": True}}}


@pytest.mark.parametrize(("state", "field", "value", "expected", "got"), [
    ({"Type": "Map", "Items": "{% $states.input.v %}", "ItemProcessor": ITEMS_PROCESSOR, "End": True},
     "Items", {"foo": "bar"}, "array", "object"),
    ({"Type": "Wait", "Seconds": "{% $states.input.v %}", "End": True}, "Seconds", "10", "integer", "string"),
    ({"Type": "Fail", "Error": "{% $states.input.v %}"}, "Error", 42, "string", "number"),
])
def test_a_typed_field_names_the_type_it_wanted_and_got(sfn: Any, emulator_server: Any, state: dict[str, Any],
                                                        field: str, value: Any, expected: str, got: str) -> None:
    definition = {"QueryLanguage": "JSONata", "StartAt": "Under", "States": {"Under": state}}

    described, events = run(sfn, emulator_server, definition, {"v": value})

    assert (described["status"], described["error"]) == ("FAILED", "States.QueryEvaluationError")
    assert described["cause"] == (
        "An error occurred while executing the state 'Under' (entered at the event id #2). The JSONata expression "
        f"'$states.input.v' specified for the field '{field}' returned an unexpected result type. Expected "
        f"'{expected}', but was '{got}' for value: {json.dumps(value, separators=(',', ':'))}")
    failed = next(event for event in events if event["type"] == "EvaluationFailed")
    assert failed["evaluationFailedEventDetails"]["location"] == field


def test_a_division_by_zero_fails_with_jsonata_out_of_range_error(sfn: Any, emulator_server: Any) -> None:
    definition = {"QueryLanguage": "JSONata", "StartAt": "Average", "States": {
        "Average": {"Type": "Pass", "Output": {"average": "{% $states.input.total / $count($states.input.items) %}"},
                    "End": True}}}

    described, _ = run(sfn, emulator_server, definition, {"total": 10, "items": []})

    assert (described["status"], described["error"]) == ("FAILED", "States.QueryEvaluationError")
    assert described["cause"] == ("An error occurred while executing the state 'Average' (entered at the event id #2). "
                                  "The JSONata expression '$states.input.total / $count($states.input.items)' specified "
                                  "for the field 'Output/average' threw an error during evaluation. D1001: Number out "
                                  "of range: Infinity")


def test_the_role_credentials_name_is_in_the_scheduled_event(sfn: Any, emulator_server: Any) -> None:
    function = "arn:aws:lambda:us-east-1:123456789012:function:credentials-echo"
    emulator_server.emulator.functions.register(function, lambda event, context: event)
    definition = {"QueryLanguage": "JSONata", "StartAt": "Call", "States": {
        "Call": {"Type": "Task", "Resource": function, "Credentials": {"RoleArn": "{% $states.input.role %}"},
                 "End": True}}}
    try:
        described, events = run(sfn, emulator_server, definition, {"role": ROLE})
    finally:
        emulator_server.emulator.functions.unregister(function)

    assert described["status"] == "SUCCEEDED", described
    scheduled = next(event for event in events if event["type"] == "LambdaFunctionScheduled")
    assert scheduled["lambdaFunctionScheduledEventDetails"]["taskCredentials"] == {"roleArn": ROLE}
