"""The Choice operator × input value table (fixtures/choice/value_matrix.json) through the real
server with boto3: each rule form runs once, as a Map over every value of the table whose iterations
each take the Choice and report which way it went; a path that selects nothing fails the execution
with AWS's States.Runtime cause."""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers.choice_matrix import MISSING, VALUES, Check, checks, missing_cases, missing_cause
from helpers.clients import make_client, run_and_read

ROLE = "arn:aws:iam::123456789012:role/choice-matrix"
CHECKS = checks()


@pytest.fixture(scope="module")
def sfn(emulator_server: Any) -> Any:
    """One client for the module's few hundred runs (a boto3 client takes long to build)."""
    return make_client(emulator_server.endpoint_url)


def _run(sfn: Any, emulator_server: Any, definition: dict[str, Any], value: Any) -> tuple[dict[str, Any], list[dict]]:
    """Run once and delete the machine: the session's server is shared, and its listings with it."""
    described, events = run_and_read(sfn, emulator_server, definition, value, role_arn=ROLE)
    sfn.delete_state_machine(stateMachineArn=described["stateMachineArn"])
    return described, events


def _choice(rule: dict[str, Any]) -> dict[str, Any]:
    return {"Type": "Choice", "Choices": [{**rule, "Next": "Held"}], "Default": "NotHeld"}


def _branches() -> dict[str, Any]:
    return {"Held": {"Type": "Pass", "Result": True, "End": True},
            "NotHeld": {"Type": "Pass", "Result": False, "End": True}}


@pytest.mark.parametrize("check", CHECKS, ids=[check.name for check in CHECKS])
def test_each_value_gives_what_the_rules_say(sfn: Any, emulator_server: Any, check: Check) -> None:
    definition = {"StartAt": "EachValue", "States": {"EachValue": {
        "Type": "Map", "ItemsPath": "$.items", "End": True,
        "ItemProcessor": {"StartAt": "C", "States": {"C": _choice(check.rule), **_branches()}}}}}
    items = [check.input_for(name) for name in VALUES]

    described, _ = _run(sfn, emulator_server, definition, {"items": items})

    assert described["status"] == "SUCCEEDED", described
    assert dict(zip(VALUES, json.loads(described["output"]))) == check.expected()


def _one_per_form() -> list[tuple[str, dict[str, Any], dict[str, Any], Any]]:
    """One missing-path case per operator, side and kind: the others differ only in their operand."""
    seen: set[str] = set()
    kept = []
    for case in missing_cases():
        name, rule, _, _ = case
        key = json.dumps([sorted(rule), rule["Variable"], name.rsplit(", ", 1)[1],
                          rule.get("IsPresent", rule.get("IsNull"))])
        if key not in seen:
            seen.add(key)
            kept.append(case)
    return kept


FORMS = _one_per_form()


@pytest.mark.parametrize(("rule", "value", "expectation"), [case[1:] for case in FORMS], ids=[case[0] for case in FORMS])
def test_a_path_that_selects_nothing(sfn: Any, emulator_server: Any, rule: dict[str, Any], value: dict[str, Any],
                                     expectation: Any) -> None:
    definition = {"StartAt": "C", "States": {"C": _choice(rule), **_branches()}}

    described, events = _run(sfn, emulator_server, definition, value)

    if isinstance(expectation, bool):  # IsPresent
        assert described["status"] == "SUCCEEDED", described
        assert json.loads(described["output"]) is expectation
        return
    assert described["status"] == "FAILED"
    assert described["error"] == "States.Runtime"
    assert described["cause"] == MISSING["http_cause_prefix"].format(state="C") + missing_cause(expectation)
    assert [event["type"] for event in events] == ["ExecutionStarted", "ChoiceStateEntered", "ExecutionFailed"]
