"""Definitions Step Functions refuses: every problem reported, in AWS's words and locations.

The cases live in fixtures/definitions/invalid.json; each names where its texts come from.
"""

from __future__ import annotations

import json

import pytest
from helpers.paths import FIXTURES_ROOT

from sfn_emulator.asl.parser import InvalidDefinitionError, parse_definition, validate_definition
from sfn_emulator.asl.validation import ERROR, WARNING, Diagnostic

FIXTURES = FIXTURES_ROOT / "definitions"
INVALID = json.loads((FIXTURES / "invalid.json").read_text())["cases"]


def definition_text(case: dict) -> str:
    return case["definition_text"] if "definition_text" in case else json.dumps(case["definition"])


@pytest.mark.parametrize("case", INVALID, ids=[case["name"] for case in INVALID])
def test_validate_definition_reports_every_problem(case: dict) -> None:
    diagnostics = validate_definition(definition_text(case), state_machine_type=case["state_machine_type"])

    assert diagnostics, "the definition must be refused"
    assert all(diagnostic.severity == ERROR for diagnostic in diagnostics)
    if "diagnostics" in case:
        reported = [{key: value for key, value in d.to_api().items() if key != "severity"} for d in diagnostics]
        assert reported == case["diagnostics"]


@pytest.mark.parametrize("case", INVALID, ids=[case["name"] for case in INVALID])
def test_parse_definition_raises_invalid_definition_naming_every_problem(case: dict) -> None:
    with pytest.raises(InvalidDefinitionError) as raised:
        parse_definition(definition_text(case), state_machine_type=case["state_machine_type"])

    error = raised.value
    assert error.message.startswith("Invalid State Machine Definition: '")
    assert error.diagnostics == validate_definition(definition_text(case), state_machine_type=case["state_machine_type"])
    for diagnostic in error.diagnostics:
        assert diagnostic.flattened() in error.message
    if "message" in case:
        assert error.message == case["message"]
    for fragment in case.get("message_contains", []):
        assert fragment in error.message


PROBED = [case for case in INVALID if "probe_hints" in case]


def test_every_definition_case_of_the_error_probe_is_covered() -> None:
    assert len(PROBED) == 14


@pytest.mark.parametrize("case", PROBED, ids=[case["name"] for case in PROBED])
def test_the_message_names_the_culprit_as_the_error_probe_expects(case: dict) -> None:
    with pytest.raises(InvalidDefinitionError) as raised:
        parse_definition(definition_text(case), state_machine_type=case["state_machine_type"])

    message = raised.value.message.lower()
    assert any(hint.lower() in message for hint in case["probe_hints"])


def test_a_diagnostic_without_location_is_printed_with_null_and_omitted_from_the_api_shape() -> None:
    diagnostic = Diagnostic(ERROR, "MISSING_END_STATE", "Workflow has no terminal state")

    assert diagnostic.flattened() == "MISSING_END_STATE: Workflow has no terminal state at null"
    assert diagnostic.to_api() == {"severity": "ERROR", "code": "MISSING_END_STATE", "message": "Workflow has no terminal state"}


SEVERAL_WARNINGS_AND_ERRORS = json.dumps({
    "StartAt": "A",
    "States": {
        "A": {"Type": "Pass", "Parameters": {"path": "$.a", "call": "States.UUID()"}, "Result": {"x.$": "$"}, "Next": "B"},
        "B": {"Type": "Pass", "Next": "Gone1"},
        "C": {"Type": "Pass", "Next": "Gone2"},
    },
})


def test_warnings_are_returned_only_when_asked_for() -> None:
    errors_only = validate_definition(SEVERAL_WARNINGS_AND_ERRORS)
    everything = validate_definition(SEVERAL_WARNINGS_AND_ERRORS, severity=WARNING)

    assert {d.severity for d in errors_only} == {ERROR}
    warnings = [d for d in everything if d.severity == WARNING]
    assert [(d.code, d.location) for d in warnings] == [
        ("NO_DOLLAR", "/States/A/Parameters"),
        ("NO_DOLLAR", "/States/A/Parameters"),
        ("PASS_RESULT_IS_STATIC", "/States/A/Result"),
    ]
    assert [d for d in everything if d.severity == ERROR] == errors_only


def test_a_definition_with_only_warnings_still_parses() -> None:
    text = json.dumps({"StartAt": "A", "States": {"A": {"Type": "Pass", "Parameters": {"p": "$.a"}, "End": True}}})

    assert validate_definition(text) == []
    assert [d.code for d in validate_definition(text, severity=WARNING)] == ["NO_DOLLAR"]
    parse_definition(text)


def test_max_results_truncates_and_zero_means_the_default() -> None:
    all_of_them = validate_definition(SEVERAL_WARNINGS_AND_ERRORS, severity=WARNING)

    assert len(all_of_them) == 6  # 3 warnings, 2 missing targets, no terminal state
    assert validate_definition(SEVERAL_WARNINGS_AND_ERRORS, severity=WARNING, max_results=2) == all_of_them[:2]
    assert validate_definition(SEVERAL_WARNINGS_AND_ERRORS, severity=WARNING, max_results=0) == all_of_them


@pytest.mark.parametrize("field", ["Error", "Cause"])
def test_a_fail_field_that_looks_like_a_path_warns_no_path(field: str) -> None:
    text = json.dumps({"StartAt": "F", "States": {"F": {"Type": "Fail", field: "$.problem"}}})

    assert validate_definition(text) == []
    assert [(d.code, d.location) for d in validate_definition(text, severity=WARNING)] == [("NO_PATH", f"/States/F/{field}")]
    jsonata = json.dumps({"QueryLanguage": "JSONata", "StartAt": "F", "States": {"F": {"Type": "Fail", field: "$.problem"}}})
    assert validate_definition(jsonata, severity=WARNING) == []  # in JSONata, `$.problem` is just text
