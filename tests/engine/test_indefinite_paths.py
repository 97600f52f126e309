"""An indefinite JSONPath never fails for missing data (issue #28, rule 1): a path with a wildcard,
slice, filter, deep scan, index list or union gives a list, `[]` when nothing matches, also when a
property before its first indefinite step is missing. AWS's rule, where Jayway's default throws.
Every field that takes such a path is checked: payload templates (Parameters, ResultSelector,
ItemSelector, JSONPath Assign), InputPath, OutputPath, intrinsic arguments and Choice rules."""

from __future__ import annotations

import json
from typing import Any, Callable

import pytest
from engine_harness import Harness

ECHO = "arn:aws:lambda:us-east-1:111111111111:function:echo"
PATHS = ["$.items[*]", "$.items[1:]", "$.a.b[*].c", "$.a..b", "$.a[0,1]", "$.a['b','c'].d", "$.a[?(@.b == 1)]"]
INPUTS = [{}, {"a": {}}, {"a": None}]

# (field, the state reading `path`, the output the state gives when the path selects [] )
FIELDS: list[tuple[str, Callable[[str], dict[str, Any]], Any]] = [
    ("Parameters", lambda p: {"Type": "Pass", "Parameters": {"v.$": p}, "End": True}, {"v": []}),
    ("ResultSelector", lambda p: {"Type": "Task", "Resource": ECHO, "ResultSelector": {"v.$": p}, "End": True},
     {"v": []}),
    ("ItemSelector", lambda p: {"Type": "Map", "ItemsPath": "$$.Execution.Input.list", "ItemSelector": {"v.$": p},
                                "ItemProcessor": {"StartAt": "I", "States": {"I": {"Type": "Pass", "End": True}}},
                                "End": True}, [{"v": []}]),
    ("Assign", lambda p: {"Type": "Pass", "Assign": {"v.$": p}, "Next": "Read"}, {"v": []}),
    ("InputPath", lambda p: {"Type": "Pass", "InputPath": p, "End": True}, []),
    ("OutputPath", lambda p: {"Type": "Pass", "OutputPath": p, "End": True}, []),
    ("intrinsic argument", lambda p: {"Type": "Pass", "Parameters": {"v.$": f"States.ArrayLength({p})"}, "End": True},
     {"v": 0}),
    ("Choice Variable", lambda p: {"Type": "Choice", "Choices": [{"Variable": p, "IsPresent": True, "Next": "Read"}],
                                   "Default": "Absent"}, {"v": "present"}),
]


def _machine(state: dict[str, Any]) -> dict[str, Any]:
    """`state` as "Under", with what it goes on to: "Read" (reading the variable an Assign wrote, or
    saying the Choice found the path present) and "Absent"."""
    states = {"Under": state}
    if "Assign" in state:
        states["Read"] = {"Type": "Pass", "Parameters": {"v.$": "$v"}, "End": True}
    if state["Type"] == "Choice":
        states["Read"] = {"Type": "Pass", "Parameters": {"v": "present"}, "End": True}
        states["Absent"] = {"Type": "Fail", "Error": "Absent"}
    return {"StartAt": "Under", "States": states}


@pytest.mark.parametrize("value", INPUTS, ids=json.dumps)
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("field", "state", "output"), FIELDS, ids=[row[0] for row in FIELDS])
def test_an_indefinite_path_selects_nothing_rather_than_failing(field: str, state: Any, output: Any, path: str,
                                                                value: Any) -> None:
    with Harness(functions={ECHO: "identity"}) as harness:
        execution = harness.run(_machine(state(path)), {**value, "list": [value]})
    assert execution.status == "SUCCEEDED", execution.cause
    assert json.loads(execution.output) == output


@pytest.mark.parametrize(("path", "value", "selected"), [
    ("$.items[*]", {"items": [1, 2]}, [1, 2]),
    ("$.a.b[*].c", {"a": {"b": [{"c": 1}, {}]}}, [1]),
    ("$.a..b", {"a": {"x": {"b": 2}}}, [2]),
])
def test_an_indefinite_path_still_selects_what_is_there(path: str, value: Any, selected: Any) -> None:
    with Harness() as harness:
        execution = harness.run(_machine({"Type": "Pass", "Parameters": {"v.$": path}, "End": True}), value)
    assert json.loads(execution.output) == {"v": selected}


def test_a_definite_path_still_fails_on_missing_data() -> None:
    with Harness() as harness:
        execution = harness.run(_machine({"Type": "Pass", "Parameters": {"v.$": "$.a.b"}, "End": True}), {})
    assert execution.status == "FAILED"
    assert execution.error == "States.Runtime"
    assert "The JSONPath '$.a.b' specified for the field 'v.$' could not be found in the input '{}'" in execution.cause
