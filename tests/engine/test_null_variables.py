"""A workflow variable holding JSON null is null, not undefined (issue #28, rule 2), in JSONata and
JSONPath alike: `$x` gives null, and every JSONata field with a type rule refuses it with AWS's type
error for 'null' ("Expected 'array', but was 'null' for value: null"), never "returned nothing"."""

from __future__ import annotations

import json
from typing import Any

import pytest
from engine_harness import Harness
from helpers.paths import FIXTURES_ROOT

TABLE = json.loads((FIXTURES_ROOT / "jsonata" / "field_types.json").read_text())


def _after_null_assignment(state: dict[str, Any], *, language: str = "JSONata") -> dict[str, Any]:
    """A machine assigning `x` null in a first state, then running `state` as "Under"."""
    states = {"Assign": {"Type": "Pass", "Assign": {"x": None}, "Next": "Under"}, "Under": state}
    if state["Type"] == "Choice":
        states["Done"] = {"Type": "Succeed"}
    return {"QueryLanguage": language, "StartAt": "Assign", "States": states}


def _with_variable(state: dict[str, Any], field: str) -> dict[str, Any]:
    """The row's state with its field's expression reading the variable `x` instead of the input."""
    return json.loads(json.dumps(state).replace("$states.input.v", "$x"))


@pytest.mark.parametrize("row", TABLE["rows"], ids=[row["field"] for row in TABLE["rows"]])
def test_a_typed_jsonata_field_refuses_a_null_variable_as_null(row: dict[str, Any]) -> None:
    with Harness(functions=row.get("functions"), s3=row.get("s3")) as harness:
        execution = harness.run(_after_null_assignment(_with_variable(row["state"], row["field"])), {})
    assert execution.status == "FAILED"
    assert execution.error == "States.QueryEvaluationError"
    assert execution.cause == (
        "An error occurred while executing the state 'Under' (entered at the event id #4). "
        f"The JSONata expression '$x' specified for the field '{row['field']}' returned an unexpected "
        f"result type. Expected '{row['type']}', but was 'null' for value: null"
    )


@pytest.mark.parametrize(("expression", "output"), [
    ("$x", None),
    ("[$x]", [None]),
    ("{'k': $x}", {"k": None}),
    ("$type($x)", "null"),
    ("$exists($x)", True),
    ("$x = null", True),
])
def test_a_null_variable_is_a_value_in_jsonata(expression: str, output: Any) -> None:
    state = {"Type": "Pass", "Output": f"{{% {expression} %}}", "End": True}
    with Harness() as harness:
        execution = harness.run(_after_null_assignment(state), {})
    assert execution.status == "SUCCEEDED", execution.cause
    assert json.loads(execution.output) == output


@pytest.mark.parametrize(("state", "output"), [
    ({"Type": "Pass", "Parameters": {"v.$": "$x"}, "End": True}, {"v": None}),
    ({"Type": "Pass", "Parameters": {"v.$": "States.Array($x)"}, "End": True}, {"v": [None]}),
    ({"Type": "Pass", "InputPath": "$x", "End": True}, None),
], ids=["payload template", "intrinsic argument", "InputPath"])
def test_a_null_variable_is_a_value_in_jsonpath(state: dict[str, Any], output: Any) -> None:
    machine = _after_null_assignment(state, language="JSONPath")
    with Harness() as harness:
        execution = harness.run(machine, {})
    assert execution.status == "SUCCEEDED", execution.cause
    assert json.loads(execution.output) == output


def test_a_choice_rule_compares_a_null_variable_as_null() -> None:
    choice = {"Type": "Choice", "Choices": [{"Variable": "$x", "IsNull": True, "Next": "Done"}], "Default": "Fail"}
    machine = _after_null_assignment(choice, language="JSONPath")
    machine["States"]["Fail"] = {"Type": "Fail"}
    with Harness() as harness:
        assert harness.run(machine, {}).status == "SUCCEEDED"
