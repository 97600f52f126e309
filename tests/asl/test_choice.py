"""Choice rules (JSONPath): table-driven from fixtures/choice/."""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers.paths import FIXTURES_ROOT
from helpers.scopes import FixedScope

from sfn_emulator.asl.choice import OPERATORS, ChoiceRuleError, compile_choice_rule
from sfn_emulator.asl.errors import StatesError

FIXTURES = FIXTURES_ROOT / "choice"
RULES = json.loads((FIXTURES / "rules.json").read_text())["cases"]
INVALID = json.loads((FIXTURES / "invalid_rules.json").read_text())["cases"]
TYPE_MATRIX = json.loads((FIXTURES / "type_matrix.json").read_text())["cases"]
LOCATION = "/States/C/Choices[0]"


@pytest.mark.parametrize("case", RULES + TYPE_MATRIX, ids=[case["description"] for case in RULES + TYPE_MATRIX])
def test_rule(case: dict[str, Any]) -> None:
    condition = compile_choice_rule(case["rule"], location=LOCATION)
    scope = FixedScope(case.get("context", {}), case.get("variables", {}))
    expect = case["expect"]
    if isinstance(expect, dict):
        with pytest.raises(StatesError) as raised:
            condition.matches(case["input"], scope)
        assert (raised.value.error, raised.value.cause) == (expect["error"], expect["cause"])
    else:
        assert condition.matches(case["input"], scope) is expect


@pytest.mark.parametrize("case", INVALID, ids=[case["description"] for case in INVALID])
def test_invalid_rule(case: dict[str, Any]) -> None:
    with pytest.raises(ChoiceRuleError) as raised:
        compile_choice_rule(case["rule"], location=LOCATION)
    assert raised.value.location == case["location"]
    assert case["message"] in raised.value.message
    assert isinstance(raised.value, ValueError)


def test_every_operator_aws_documents_is_supported() -> None:
    documented = {
        f"{family}{relation}{suffix}"
        for family in ("String", "Numeric", "Timestamp")
        for relation in ("Equals", "LessThan", "GreaterThan", "LessThanEquals", "GreaterThanEquals")
        for suffix in ("", "Path")
    }
    documented |= {"BooleanEquals", "BooleanEqualsPath", "StringMatches"}
    documented |= {"IsNull", "IsPresent", "IsNumeric", "IsString", "IsBoolean", "IsTimestamp"}
    assert OPERATORS == documented
