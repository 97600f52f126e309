"""Every JSONata field fails the same two ways, whatever state it sits in (the typed fields of
fixtures/jsonata/field_types.json, the JSON fields of template_fields.json): an expression
that gives nothing fails the state with "returned nothing (undefined)", and one that raises (a
division by zero here, D1001) with "threw an error during evaluation", both naming the expression
and its field (a JSON field by the path to the expression in it, e.g. 'Output/a/b[1]')."""

from __future__ import annotations

import json
from typing import Any

import pytest
from engine_harness import Harness, event_types
from helpers.paths import FIXTURES_ROOT

TABLE = json.loads((FIXTURES_ROOT / "jsonata" / "field_types.json").read_text())
EXPRESSION = "$states.input.v"
PREFIX = "An error occurred while executing the state 'Under' (entered at the event id #2). "


def _run(row: dict[str, Any], expression: str, state_input: Any) -> Any:
    state = json.loads(json.dumps(row["state"]).replace(EXPRESSION, expression))
    states = {"Under": state}
    if state["Type"] == "Choice":
        states["Done"] = {"Type": "Succeed"}
    with Harness(functions=row.get("functions"), s3=row.get("s3")) as harness:
        return harness.run({"QueryLanguage": "JSONata", "StartAt": "Under", "States": states}, state_input)


def _failed_with(execution: Any, row: dict[str, Any], cause: str) -> None:
    assert (execution.status, execution.error) == ("FAILED", "States.QueryEvaluationError")
    assert execution.cause == PREFIX + cause
    assert ("MapRunFailed" if row.get("in_map_run") else "EvaluationFailed") in event_types(execution)


@pytest.mark.parametrize("row", TABLE["rows"], ids=[row["field"] for row in TABLE["rows"]])
def test_an_expression_that_gives_nothing_fails_the_state(row: dict[str, Any]) -> None:
    execution = _run(row, EXPRESSION, {})
    _failed_with(execution, row, f"The JSONata expression '{EXPRESSION}' specified for the field '{row['field']}' "
                                 "returned nothing (undefined).")


@pytest.mark.parametrize("row", TABLE["rows"], ids=[row["field"] for row in TABLE["rows"]])
def test_an_expression_that_raises_fails_the_state(row: dict[str, Any]) -> None:
    expression = "$states.input.n / $states.input.zero"
    execution = _run(row, expression, {"n": 1, "zero": 0})
    _failed_with(execution, row, f"The JSONata expression '{expression}' specified for the field '{row['field']}' "
                                 "threw an error during evaluation. D1001: Number out of range: Infinity")


TEMPLATES = json.loads((FIXTURES_ROOT / "jsonata" / "template_fields.json").read_text())


def _run_template(row: dict[str, Any], expression: str, state_input: Any) -> Any:
    state = json.loads(json.dumps(row["state"]).replace(EXPRESSION, expression))
    states = {"Under": state} if state["Type"] == "Succeed" else {"Under": state, "Done": {"Type": "Succeed"}}
    with Harness(functions=row.get("functions"), s3=row.get("s3")) as harness:
        return harness.run({"QueryLanguage": "JSONata", "StartAt": "Under", "States": states}, state_input)


@pytest.mark.parametrize("row", TEMPLATES["rows"], ids=[row["where"] for row in TEMPLATES["rows"]])
def test_an_expression_in_a_json_field_names_its_place_when_it_gives_nothing(row: dict[str, Any]) -> None:
    execution = _run_template(row, EXPRESSION, {})

    assert (execution.status, execution.error) == ("FAILED", "States.QueryEvaluationError")
    assert execution.cause.endswith(f"The JSONata expression '{EXPRESSION}' specified for the field '{row['field']}' "
                                    "returned nothing (undefined).")


@pytest.mark.parametrize("row", TEMPLATES["rows"], ids=[row["where"] for row in TEMPLATES["rows"]])
def test_an_expression_in_a_json_field_names_its_place_when_it_raises(row: dict[str, Any]) -> None:
    expression = "$states.input.n / $states.input.zero"
    execution = _run_template(row, expression, {"n": -1, "zero": 0})

    assert (execution.status, execution.error) == ("FAILED", "States.QueryEvaluationError")
    assert execution.cause.endswith(f"The JSONata expression '{expression}' specified for the field '{row['field']}' "
                                    "threw an error during evaluation. D1001: Number out of range: -Infinity")
