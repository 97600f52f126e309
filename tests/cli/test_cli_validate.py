"""`sfn-emulator validate DEFINITION`: ValidateStateMachineDefinition's diagnostics, errors as exit code 1."""

from __future__ import annotations

import json

import pytest
from helpers.paths import FIXTURES_ROOT, REPOSITORY

VALIDATE_CASES = json.loads((FIXTURES_ROOT / "cli" / "validate.json").read_text())


@pytest.mark.parametrize("case", VALIDATE_CASES, ids=[case["name"] for case in VALIDATE_CASES])
def test_validate(sfn_emulator, case):
    completed = sfn_emulator("validate", *case["args"], "--json", stdin=case.get("stdin"))
    assert completed.returncode == case["exit"], completed.stderr
    assert case.get("stderr", "") in completed.stderr
    if "response" in case:
        assert json.loads(completed.stdout) == case["response"]


def test_the_text_report_lists_each_diagnostic_with_its_location(sfn_emulator):
    completed = sfn_emulator("validate", "fixtures/machines/BrokenTransitions.asl.json")
    assert completed.returncode == 1
    assert completed.stdout.splitlines() == [
        "fixtures/machines/BrokenTransitions.asl.json: invalid (3 error(s), 0 warning(s))",
        "  ERROR SCHEMA_VALIDATION_FAILED at /States/Pause: "
        "Exactly one of these fields must be present: [Seconds, SecondsPath, Timestamp, TimestampPath]",
        "  ERROR MISSING_TRANSITION_TARGET at /States/First/Next: Missing 'Next' target: Missing",
        "  ERROR MISSING_END_STATE: Workflow has no terminal state",
    ]


def test_the_text_report_of_a_valid_definition_shows_its_warnings(sfn_emulator):
    completed = sfn_emulator("validate", "-", stdin=(REPOSITORY / "fixtures/machines/StaticResult.asl.json").read_text())
    assert completed.returncode == 0
    assert completed.stdout.splitlines() == [
        "standard input: valid (0 error(s), 1 warning(s))",
        "  WARNING PASS_RESULT_IS_STATIC at /States/Answer/Result: "
        "The 'Result' of a Pass state is static: its fields ending in '.$' are not evaluated",
    ]


def test_the_text_report_says_a_json_errors_location_once(sfn_emulator):
    """AWS's message for a JSON syntax error ends with its location: not repeated before it."""
    completed = sfn_emulator("validate", "-", stdin='{"StartAt": "A",\n "States": {,\n}\n')
    assert completed.returncode == 1
    assert completed.stdout.count("line: 2, column: 14]") == 1
    assert completed.stdout.splitlines()[1] == ("  ERROR INVALID_JSON_DESCRIPTION: Unexpected character (',' (code 44)): "
                                                "was expecting double-quote to start field name")
