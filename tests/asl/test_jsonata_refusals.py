"""JSONata that AWS refuses when a definition is created (issue #28, rule 4), in every field of every
state that takes an expression: an expression that does not parse (`INVALID_JSONATA_EXPRESSION`, JSONata's
message without its code) and a reference to the context at the top level (`UNSUPPORTED_JSONATA_EXPRESSION`,
"Reference to 'phone' at the top level is not supported."), each at the expression's own place. What
reads a name from an item (a path's later steps, predicates, group-by, lambda bodies) is accepted.
Over HTTP the same refusals come from fixtures/definitions/invalid.json."""

from __future__ import annotations

import json
from typing import Any, Callable

import pytest

from sfn_emulator.asl.parser import validate_definition

LAMBDA = "arn:aws:lambda:us-east-1:111111111111:function:f"
PROCESSOR = {"ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"}, "StartAt": "I",
             "States": {"I": {"Type": "Pass", "End": True}}}
READER = {"Resource": "arn:aws:states:::s3:getObject", "ReaderConfig": {"InputType": "JSON"},
          "Arguments": {"Bucket": "b", "Key": "k"}}

# (where, the state holding expression `e` there, its location in the definition)
FIELDS: list[tuple[str, Callable[[str], dict[str, Any]], str]] = [
    ("Pass Output", lambda e: {"Type": "Pass", "Output": e, "End": True}, "/States/S/Output"),
    ("Pass Output nested", lambda e: {"Type": "Pass", "Output": {"a": [1, {"b": e}]}, "End": True},
     "/States/S/Output/a[1]/b"),
    ("Pass Assign", lambda e: {"Type": "Pass", "Assign": {"x": e}, "End": True}, "/States/S/Assign/x"),
    ("Task Arguments", lambda e: {"Type": "Task", "Resource": LAMBDA, "Arguments": {"p": e}, "End": True},
     "/States/S/Arguments/p"),
    ("Task TimeoutSeconds", lambda e: {"Type": "Task", "Resource": LAMBDA, "TimeoutSeconds": e, "End": True},
     "/States/S/TimeoutSeconds"),
    ("Task HeartbeatSeconds", lambda e: {"Type": "Task", "Resource": LAMBDA, "HeartbeatSeconds": e, "End": True},
     "/States/S/HeartbeatSeconds"),
    ("Choice Condition", lambda e: {"Type": "Choice", "Choices": [{"Condition": e, "Next": "E"}], "Default": "E"},
     "/States/S/Choices[0]/Condition"),
    ("Wait Seconds", lambda e: {"Type": "Wait", "Seconds": e, "End": True}, "/States/S/Seconds"),
    ("Wait Timestamp", lambda e: {"Type": "Wait", "Timestamp": e, "End": True}, "/States/S/Timestamp"),
    ("Fail Error", lambda e: {"Type": "Fail", "Error": e}, "/States/S/Error"),
    ("Fail Cause", lambda e: {"Type": "Fail", "Cause": e}, "/States/S/Cause"),
    ("Map Items", lambda e: {"Type": "Map", "Items": e, "ItemProcessor": PROCESSOR, "End": True}, "/States/S/Items"),
    ("Map ItemSelector", lambda e: {"Type": "Map", "ItemSelector": {"v": e}, "ItemProcessor": PROCESSOR, "End": True},
     "/States/S/ItemSelector/v"),
    ("Map MaxConcurrency", lambda e: {"Type": "Map", "MaxConcurrency": e, "ItemProcessor": PROCESSOR, "End": True},
     "/States/S/MaxConcurrency"),
    ("Map ToleratedFailureCount", lambda e: {"Type": "Map", "ToleratedFailureCount": e, "ItemProcessor": PROCESSOR,
                                             "End": True}, "/States/S/ToleratedFailureCount"),
    ("Map ItemReader Arguments", lambda e: {"Type": "Map", "ItemReader": {**READER, "Arguments": {"Bucket": e, "Key": "k"}},
                                            "ItemProcessor": PROCESSOR, "End": True},
     "/States/S/ItemReader/Arguments/Bucket"),
    ("Parallel Arguments", lambda e: {"Type": "Parallel", "Arguments": {"p": e}, "End": True,
                                      "Branches": [{"StartAt": "B", "States": {"B": {"Type": "Pass", "End": True}}}]},
     "/States/S/Arguments/p"),
]

REFUSED = [
    ("{% phone %}", "UNSUPPORTED_JSONATA_EXPRESSION", "Reference to 'phone' at the top level is not supported."),
    ("{% phone.number & '!' %}", "UNSUPPORTED_JSONATA_EXPRESSION",
     "Reference to 'phone' at the top level is not supported."),
    ("{% $count(items) %}", "UNSUPPORTED_JSONATA_EXPRESSION", "Reference to 'items' at the top level is not supported."),
    ("{% 1 + %}", "INVALID_JSONATA_EXPRESSION", "Unexpected end of expression"),
    ("{% $states.input[1,2) %}", "INVALID_JSONATA_EXPRESSION", 'Expected "]", got ","'),
    ("{% {\"a\":} %}", "INVALID_JSONATA_EXPRESSION", 'The symbol "}" cannot be used as a unary operator'),
    ("{% $match('a', /abc %}", "INVALID_JSONATA_EXPRESSION", "No terminating / in regular expression"),
]

ACCEPTED = [
    "{% $states.input.items[status = 'OPEN'].amount %}",
    "{% $states.input{kind: $count(id)} %}",
    "{% $map($states.input.list, function($v) { $v.name }) %}",
    "{% ($n := 2; $n * $states.input.k) %}",
    "{% $states.input.list[$ > 1] %}",
    "{% $states.context.Execution.Id %}",
]


def _definition(state: dict[str, Any]) -> str:
    states: dict[str, Any] = {"S": state}
    if state["Type"] == "Choice":
        states["E"] = {"Type": "Succeed"}
    return json.dumps({"QueryLanguage": "JSONata", "StartAt": "S", "States": states})


@pytest.mark.parametrize(("expression", "code", "message"), REFUSED, ids=[row[0] for row in REFUSED])
@pytest.mark.parametrize(("where", "state", "location"), FIELDS, ids=[row[0] for row in FIELDS])
def test_what_aws_refuses_is_refused_at_create_time(where: str, state: Any, location: str, expression: str,
                                                    code: str, message: str) -> None:
    diagnostics = validate_definition(_definition(state(expression)))
    assert [(d.code, d.message, d.location) for d in diagnostics] == [(code, message, location)]


@pytest.mark.parametrize("expression", ACCEPTED)
@pytest.mark.parametrize(("where", "state", "location"), FIELDS, ids=[row[0] for row in FIELDS])
def test_names_read_from_an_item_are_accepted(where: str, state: Any, location: str, expression: str) -> None:
    assert validate_definition(_definition(state(expression))) == []
