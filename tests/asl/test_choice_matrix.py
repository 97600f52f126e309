"""Every Choice operator against the common input values of fixtures/choice/value_matrix.json,
evaluated by the compiled rule (the HTTP twin runs the same table through the server)."""

from __future__ import annotations

from typing import Any

import pytest
from helpers.choice_matrix import VALUES, Check, checks, missing_cases, missing_cause
from helpers.scopes import FixedScope

from sfn_emulator.asl.choice import OPERATORS, compile_choice_rule
from sfn_emulator.asl.errors import StatesError

CHECKS = checks()
LOCATION = "/States/C/Choices[0]"


@pytest.mark.parametrize("check", CHECKS, ids=[check.name for check in CHECKS])
def test_each_value_gives_what_the_rules_say(check: Check) -> None:
    condition = compile_choice_rule(check.rule, location=LOCATION)
    got = {name: condition.matches(check.input_for(name), FixedScope()) for name in VALUES}
    assert got == check.expected()


MISSING = missing_cases()


@pytest.mark.parametrize(("rule", "value", "expectation"), [case[1:] for case in MISSING],
                         ids=[case[0] for case in MISSING])
def test_a_path_that_selects_nothing(rule: dict[str, Any], value: dict[str, Any], expectation: Any) -> None:
    condition = compile_choice_rule(rule, location=LOCATION)
    if isinstance(expectation, bool):  # IsPresent
        assert condition.matches(value, FixedScope()) is expectation
        return
    with pytest.raises(StatesError) as raised:
        condition.matches(value, FixedScope())
    assert (raised.value.error, raised.value.cause) == ("States.Runtime", missing_cause(expectation))


def test_the_table_covers_every_operator() -> None:
    covered = {key for check in CHECKS for key in check.rule if key != "Variable"}
    assert covered == OPERATORS
