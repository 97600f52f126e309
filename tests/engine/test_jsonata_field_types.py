"""Every JSONata field with a type rule, in every state that has it (fixtures/jsonata/field_types.json):
an accepted value runs on; any other fails the state with AWS's "unexpected result type" cause."""

from __future__ import annotations

import json
from typing import Any

import pytest
from engine_harness import Harness, event_types
from helpers.paths import FIXTURES_ROOT

TABLE = json.loads((FIXTURES_ROOT / "jsonata" / "field_types.json").read_text())
EXPRESSION = "$states.input.v"
JSONATA_TYPES = {type(None): "null", bool: "boolean", int: "number", float: "number", str: "string",
                 list: "array", dict: "object"}


def _definition(state: dict[str, Any]) -> dict[str, Any]:
    """A machine of the state under test (and the Succeed state "Done", for a Choice to go to)."""
    states = {"Under": state}
    if state["Type"] == "Choice":
        states["Done"] = {"Type": "Succeed"}
    return {"QueryLanguage": "JSONata", "StartAt": "Under", "States": states}


def _run(row: dict[str, Any], value: Any) -> Any:
    with Harness(functions=row.get("functions"), s3=row.get("s3")) as harness:
        return harness.run(_definition(row["state"]), {"v": value})


def _params(kind: str) -> list[Any]:
    return [pytest.param(row, value, id=f"{row['field']}-{json.dumps(value)}")
            for row in TABLE["rows"] for value in row[kind]]


@pytest.mark.parametrize(("row", "value"), _params("refused"))
def test_a_value_of_another_type_fails_the_state(row: dict[str, Any], value: Any) -> None:
    execution = _run(row, value)
    assert execution.status == "FAILED"
    assert execution.error == "States.QueryEvaluationError"
    assert execution.cause == (
        "An error occurred while executing the state 'Under' (entered at the event id #2). "
        f"The JSONata expression '{EXPRESSION}' specified for the field '{row['field']}' returned an unexpected "
        f"result type. Expected '{row['type']}', but was '{JSONATA_TYPES[type(value)]}' for value: "
        f"{json.dumps(value, separators=(',', ':'))}"
    )
    assert ("MapRunFailed" if row.get("in_map_run") else "EvaluationFailed") in event_types(execution)


@pytest.mark.parametrize(("row", "value"), _params("accepted"))
def test_a_value_of_the_field_type_is_taken(row: dict[str, Any], value: Any) -> None:
    execution = _run(row, value)
    if row["state"]["Type"] == "Fail":  # the value is the failure's error or cause
        assert value in (execution.error, execution.cause)
    else:
        assert execution.status == "SUCCEEDED", (execution.error, execution.cause)
