"""Every path-taking field is compiled by the one evaluator when the definition is parsed: what
the evaluator cannot read is refused there, with the field's location, and what it reads (a dot
before a bracket, blanks around the path) is accepted. Reference Path fields refuse paths that can
select several nodes; Path fields accept them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sfn_emulator.asl.parser import parse_definition
from sfn_emulator.asl.validation import InvalidDefinitionError

INLINE = {"ProcessorConfig": {"Mode": "INLINE"}, "StartAt": "I", "States": {"I": {"Type": "Pass", "End": True}}}
DISTRIBUTED = {**INLINE, "ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"}}
TASK = {"Type": "Task", "Resource": "arn:aws:lambda:us-east-1:111111111111:function:f", "End": True}
MAP = {"Type": "Map", "ItemProcessor": INLINE, "End": True}

# (field, where it sits: a function from the path to the state, the field's location, reference path?)
FIELDS: list[tuple[str, Any, str, bool]] = [
    ("InputPath", lambda p: {"Type": "Pass", "InputPath": p, "End": True}, "/States/S/InputPath", False),
    ("OutputPath", lambda p: {"Type": "Pass", "OutputPath": p, "End": True}, "/States/S/OutputPath", False),
    ("Parameters", lambda p: {"Type": "Pass", "Parameters": {"x.$": p}, "End": True}, "/States/S/Parameters", False),
    ("ResultSelector", lambda p: {**TASK, "ResultSelector": {"x.$": p}}, "/States/S/ResultSelector", False),
    ("ResultPath", lambda p: {"Type": "Pass", "ResultPath": p, "End": True}, "/States/S/ResultPath", True),
    ("ItemsPath", lambda p: {**MAP, "ItemsPath": p}, "/States/S/ItemsPath", True),
    ("MaxConcurrencyPath", lambda p: {**MAP, "MaxConcurrencyPath": p}, "/States/S/MaxConcurrencyPath", True),
    ("ToleratedFailureCountPath", lambda p: {**MAP, "ItemProcessor": DISTRIBUTED, "ToleratedFailureCountPath": p},
     "/States/S/ToleratedFailureCountPath", True),
    ("MaxItemsPerBatchPath", lambda p: {**MAP, "ItemProcessor": DISTRIBUTED, "ItemBatcher": {"MaxItemsPerBatchPath": p}},
     "/States/S/ItemBatcher/MaxItemsPerBatchPath", True),
    ("TimeoutSecondsPath", lambda p: {**TASK, "TimeoutSecondsPath": p}, "/States/S/TimeoutSecondsPath", True),
    ("HeartbeatSecondsPath", lambda p: {**TASK, "HeartbeatSecondsPath": p}, "/States/S/HeartbeatSecondsPath", True),
    ("SecondsPath", lambda p: {"Type": "Wait", "SecondsPath": p, "End": True}, "/States/S/SecondsPath", True),
    ("TimestampPath", lambda p: {"Type": "Wait", "TimestampPath": p, "End": True}, "/States/S/TimestampPath", True),
    ("ErrorPath", lambda p: {"Type": "Fail", "ErrorPath": p}, "/States/S/ErrorPath", True),
    ("CausePath", lambda p: {"Type": "Fail", "CausePath": p}, "/States/S/CausePath", True),
    ("Choice Variable", lambda p: {"Type": "Choice", "Choices": [{"Variable": p, "IsPresent": True, "Next": "E"}],
                                   "Default": "E"}, "/States/S/Choices[0]", False),
    ("Choice ...Path", lambda p: {"Type": "Choice", "Choices": [{"Variable": "$.v", "StringEqualsPath": p, "Next": "E"}],
                                  "Default": "E"}, "/States/S/Choices[0]", False),
    ("intrinsic argument", lambda p: {"Type": "Pass", "Parameters": {"x.$": f"States.Array({p})"}, "End": True},
     "/States/S/Parameters", False),
]


def _definition(state: dict[str, Any]) -> str:
    states = {"S": state}
    if state.get("Type") == "Choice":
        states["E"] = {"Type": "Succeed"}
    return json.dumps({"StartAt": "S", "States": states})


@pytest.mark.parametrize(("field", "state", "location", "reference"), FIELDS, ids=[f[0] for f in FIELDS])
@pytest.mark.parametrize("path", ["$.a.[0].b", " $.a['b'] ", "$.[0]"])
def test_every_path_field_accepts_what_the_evaluator_reads(field: str, state: Any, location: str, reference: bool,
                                                           path: str) -> None:
    parse_definition(_definition(state(path)))


@pytest.mark.parametrize(("field", "state", "location", "reference"), FIELDS, ids=[f[0] for f in FIELDS])
@pytest.mark.parametrize("path", ["$.a[?(@.x = 1)]", "$[key]", "$[::2]", "$.a["])
def test_every_path_field_refuses_what_the_evaluator_cannot_read(field: str, state: Any, location: str,
                                                                 reference: bool, path: str) -> None:
    with pytest.raises(InvalidDefinitionError) as raised:
        parse_definition(_definition(state(path)))
    assert location in str(raised.value)


@pytest.mark.parametrize(("field", "state", "location", "reference"), FIELDS, ids=[f[0] for f in FIELDS])
def test_reference_path_fields_refuse_paths_that_select_several_nodes(field: str, state: Any, location: str,
                                                                      reference: bool) -> None:
    definition = _definition(state("$.a[*]"))
    if reference:
        with pytest.raises(InvalidDefinitionError) as raised:
            parse_definition(definition)
        assert location in str(raised.value)
    else:
        parse_definition(definition)
