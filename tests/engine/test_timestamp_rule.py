"""One timestamp rule for every state that reads a timestamp.

The table in fixtures/timestamps/rfc3339_profile.json (ASL's RFC 3339 profile: uppercase T,
uppercase Z or a numeric offset) is put to each reader in turn: a text accepted by one is accepted
by all, and a text refused by one is refused by all.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import pytest
from helpers.paths import FIXTURES_ROOT

from sfn_emulator import run_definition
from sfn_emulator.asl.parser import parse_definition
from sfn_emulator.asl.validation import InvalidDefinitionError

TABLE = json.loads((FIXTURES_ROOT / "timestamps" / "rfc3339_profile.json").read_text())
CASES = [(text, True) for text in TABLE["accepted"]] + [(text, False) for text in TABLE["refused"]]


def _choice(rule: dict[str, Any]) -> Callable[[str], bool]:
    """A Choice state that takes its `Yes` branch when `rule` holds for the input's `t`."""
    definition = {"StartAt": "Decide", "States": {
        "Decide": {"Type": "Choice", "Choices": [{**rule, "Next": "Yes"}], "Default": "No"},
        "Yes": {"Type": "Pass", "Result": True, "End": True},
        "No": {"Type": "Pass", "Result": False, "End": True},
    }}

    def holds(text: str) -> bool:
        result = run_definition(definition, {"t": text})
        assert result.status == "SUCCEEDED", result.cause
        return result.output

    return holds


def _waits(wait: dict[str, Any], *, refusal: str, query_language: str = "JSONPath") -> Callable[[str], bool]:
    """A Wait state until the input's `t`: it waits (the moments of the table are past) or fails with `refusal`."""
    definition = {"QueryLanguage": query_language, "StartAt": "Until",
                  "States": {"Until": {"Type": "Wait", **wait, "End": True}}}

    def accepted(text: str) -> bool:
        result = run_definition(definition, {"t": text})
        assert result.status == "SUCCEEDED" or result.error == refusal, (result.error, result.cause)
        return result.status == "SUCCEEDED"

    return accepted


def _wait_literal(text: str) -> bool:
    """Wait `Timestamp` written in the definition: a refused text makes the definition invalid."""
    definition = {"StartAt": "Until", "States": {"Until": {"Type": "Wait", "Timestamp": text, "End": True}}}
    try:
        parse_definition(json.dumps(definition))
    except InvalidDefinitionError as error:
        assert "String does not match RFC3339 timestamp" in str(error)
        return False
    return run_definition(definition).status == "SUCCEEDED"


def _choice_literal(text: str) -> bool:
    """A Choice `TimestampEquals` operand written in the definition: as for Wait, a refused text makes
    the definition invalid, an accepted one matches the same instant."""
    definition = {"StartAt": "Decide", "States": {
        "Decide": {"Type": "Choice", "Choices": [{"Variable": "$.t", "TimestampEquals": text, "Next": "Yes"}],
                   "Default": "No"},
        "Yes": {"Type": "Succeed"}, "No": {"Type": "Fail"}}}
    try:
        parse_definition(json.dumps(definition))
    except InvalidDefinitionError as error:
        assert "String does not match RFC3339 timestamp at /States/Decide/Choices[0]/TimestampEquals" in str(error)
        return False
    return run_definition(definition, {"t": text}).status == "SUCCEEDED"


READERS: dict[str, Callable[[str], bool]] = {
    "Choice IsTimestamp": _choice({"Variable": "$.t", "IsTimestamp": True}),
    "Choice TimestampEqualsPath": _choice({"Variable": "$.t", "TimestampEqualsPath": "$.t"}),
    "Choice TimestampGreaterThan": _choice({"Variable": "$.t", "TimestampGreaterThan": "1970-01-01T00:00:00Z"}),
    "Choice TimestampLessThanEquals (literal side)": _choice(
        {"Variable": "$.t", "TimestampLessThanEquals": "2100-01-01T00:00:00Z"}),
    "Wait TimestampPath": _waits({"TimestampPath": "$.t"}, refusal="States.Runtime"),
    "Wait Timestamp (JSONata)": _waits({"Timestamp": "{% $states.input.t %}"}, refusal="States.QueryEvaluationError",
                                       query_language="JSONata"),
    "Wait Timestamp (literal)": _wait_literal,
    "Choice TimestampEquals (literal)": _choice_literal,
}


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("text, accepted", CASES, ids=[repr(text) for text, _ in CASES])
def test_every_reader_applies_the_same_rule(reader: str, text: str, accepted: bool) -> None:
    assert READERS[reader](text) is accepted
