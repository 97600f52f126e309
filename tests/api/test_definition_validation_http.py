"""ValidateStateMachineDefinition and CreateStateMachine over HTTP with boto3 judge a definition alike.

What one accepts the other creates; what one refuses the other refuses with InvalidDefinition, whose
message names the same ERROR diagnostics in AWS's form:
`Invalid State Machine Definition: '<CODE>: <message> at <location>, ...'` (`null` when a diagnostic has
no location; a JSON syntax error's message already ends with its location).

Table-driven from fixtures/definitions/: valid.json and real_world.json (shapes AWS's published
samples use, which AWS accepts) and invalid.json (refusals, with the diagnostics AWS gives).
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError
from helpers.clients import make_client
from helpers.paths import FIXTURES_ROOT

from sfn_emulator.asl.parser import parse_definition

ROLE = "arn:aws:iam::123456789012:role/validation-tests"
FIXTURES = FIXTURES_ROOT / "definitions"


def cases(file_name: str) -> list[dict[str, Any]]:
    return json.loads((FIXTURES / file_name).read_text())["cases"]


ACCEPTED = cases("valid.json") + cases("real_world.json")
REFUSED = cases("invalid.json")


def definition_text(case: dict[str, Any]) -> str:
    return case["definition_text"] if "definition_text" in case else json.dumps(case["definition"])


def machine_type(case: dict[str, Any]) -> str:
    return case.get("state_machine_type", "STANDARD")


def flattened(diagnostic: dict[str, str]) -> str:
    """One diagnostic as CreateStateMachine's message names it."""
    location = diagnostic.get("location", "null")
    if diagnostic["message"].endswith(location):
        return f"{diagnostic['code']}: {diagnostic['message']}"
    return f"{diagnostic['code']}: {diagnostic['message']} at {location}"


def create(sfn: Any, case: dict[str, Any]) -> dict[str, Any]:
    return sfn.create_state_machine(
        name=f"valid-{uuid.uuid4().hex[:12]}", definition=definition_text(case), roleArn=ROLE, type=machine_type(case)
    )


@pytest.mark.parametrize("case", ACCEPTED, ids=[case["name"] for case in ACCEPTED])
def test_an_accepted_definition_validates_ok_and_is_created(sfn: Any, case: dict[str, Any]) -> None:
    answer = sfn.validate_state_machine_definition(definition=definition_text(case), type=machine_type(case))

    assert (answer["result"], answer["diagnostics"], answer["truncated"]) == ("OK", [], False)
    created = create(sfn, case)
    assert json.loads(sfn.describe_state_machine(stateMachineArn=created["stateMachineArn"])["definition"]) == json.loads(
        definition_text(case)
    )
    sfn.delete_state_machine(stateMachineArn=created["stateMachineArn"])


@pytest.mark.parametrize("case", cases("real_world.json"), ids=lambda case: case["name"])
def test_a_published_shape_parses_in_process(case: dict[str, Any]) -> None:
    machine = parse_definition(definition_text(case), state_machine_type=machine_type(case))

    assert set(machine.states) == set(case["definition"]["States"])


@pytest.mark.parametrize("case", REFUSED, ids=[case["name"] for case in REFUSED])
def test_a_refused_definition_names_the_same_problems_both_ways(sfn: Any, case: dict[str, Any]) -> None:
    answer = sfn.validate_state_machine_definition(definition=definition_text(case), type=machine_type(case))

    assert answer["result"] == "FAIL"
    assert answer["diagnostics"] and {diagnostic["severity"] for diagnostic in answer["diagnostics"]} == {"ERROR"}
    if "diagnostics" in case:
        assert [{key: value for key, value in d.items() if key != "severity"} for d in answer["diagnostics"]] == case[
            "diagnostics"
        ]
    with pytest.raises(ClientError) as refused:
        create(sfn, case)
    error = refused.value.response["Error"]
    assert error["Code"] == "InvalidDefinition"
    expected = "Invalid State Machine Definition: '" + ", ".join(map(flattened, answer["diagnostics"])) + "'"
    assert error["Message"] == expected
    if "message" in case:
        assert error["Message"] == case["message"]


# A definition with one problem of each severity: a NO_DOLLAR and a PASS_RESULT_IS_STATIC warning, and an
# ERROR for a field a Succeed state does not take.
MIXED = json.dumps({"StartAt": "A", "States": {
    "A": {"Type": "Pass", "Parameters": {"p": "$.x"}, "Result": {"r.$": "$.y"}, "Next": "B"},
    "B": {"Type": "Succeed", "Next": "A"}}})
WARNED = json.dumps({"StartAt": "A", "States": {"A": {"Type": "Pass", "Parameters": {"p": "$.x"}, "End": True}}})


@pytest.mark.parametrize(
    ("definition", "options", "result", "severities", "truncated"),
    [
        (MIXED, {}, "FAIL", ["ERROR"], False),  # severity defaults to ERROR: warnings are left out
        (MIXED, {"severity": "ERROR"}, "FAIL", ["ERROR"], False),
        (MIXED, {"severity": "WARNING"}, "FAIL", ["WARNING", "WARNING", "ERROR"], False),
        (MIXED, {"severity": "WARNING", "maxResults": 2}, "FAIL", ["WARNING", "WARNING"], True),
        (MIXED, {"severity": "WARNING", "maxResults": 0}, "FAIL", ["WARNING", "WARNING", "ERROR"], False),  # 0 = 100
        (WARNED, {}, "OK", [], False),
        (WARNED, {"severity": "WARNING"}, "OK", ["WARNING"], False),  # warnings alone do not fail the definition
    ],
    ids=["default", "errors", "warnings", "truncated", "max_results_zero", "warnings_hidden", "warnings_only"],
)
def test_severity_and_max_results_shape_the_diagnostics(
    sfn: Any, definition: str, options: dict[str, Any], result: str, severities: list[str], truncated: bool
) -> None:
    answer = sfn.validate_state_machine_definition(definition=definition, **options)

    assert answer["result"] == result
    assert [diagnostic["severity"] for diagnostic in answer["diagnostics"]] == severities
    assert answer["truncated"] is truncated


def test_the_diagnostics_of_an_ok_definition_with_warnings_do_not_stop_its_creation(sfn: Any) -> None:
    answer = sfn.validate_state_machine_definition(definition=WARNED, severity="WARNING")

    assert [(d["code"], d["location"]) for d in answer["diagnostics"]] == [("NO_DOLLAR", "/States/A/Parameters")]
    created = sfn.create_state_machine(name=f"warned-{uuid.uuid4().hex[:12]}", definition=WARNED, roleArn=ROLE)
    sfn.delete_state_machine(stateMachineArn=created["stateMachineArn"])


@pytest.mark.parametrize(
    ("options", "field", "constraint"),
    [
        ({"maxResults": 101}, "maxResults", "Member must have value less than or equal to 100"),
        ({"maxResults": -1}, "maxResults", "Member must have value greater than or equal to 0"),
        ({"severity": "INFO"}, "severity", "Member must satisfy enum value set: [ERROR, WARNING]"),
        ({"type": "BATCH"}, "type", "Member must satisfy enum value set: [STANDARD, EXPRESS]"),
    ],
    ids=["max_results_over_100", "max_results_negative", "unknown_severity", "unknown_type"],
)
def test_out_of_range_options_are_a_validation_exception(
    emulator_server: Any, options: dict[str, Any], field: str, constraint: str
) -> None:
    unchecked = make_client(emulator_server.endpoint_url, parameter_validation=False)  # as a client of another SDK
    with pytest.raises(ClientError) as refused:
        unchecked.validate_state_machine_definition(definition=WARNED, **options)

    error = refused.value.response["Error"]
    assert error["Code"] == "ValidationException"
    assert f"at '{field}' failed to satisfy constraint: {constraint}" in error["Message"]
