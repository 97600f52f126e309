"""Property: whatever the text, parsing yields a model or an InvalidDefinitionError, nothing else."""

from __future__ import annotations

import json
from typing import Any

from helpers.paths import FIXTURES_ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sfn_emulator.asl.model import StateMachine
from sfn_emulator.asl.parser import InvalidDefinitionError, parse_definition, parse_single_state, validate_definition

FIXTURES = FIXTURES_ROOT / "definitions"
SEEDS = [case["definition"] for case in json.loads((FIXTURES / "valid.json").read_text())["cases"]]

ASL_WORDS = [
    "StartAt", "States", "Type", "Next", "End", "Pass", "Task", "Choice", "Wait", "Succeed", "Fail", "Parallel", "Map",
    "Resource", "Parameters", "ResultPath", "InputPath", "OutputPath", "ResultSelector", "Retry", "Catch", "ErrorEquals",
    "Choices", "Default", "Variable", "StringEquals", "NumericEquals", "And", "Not", "Seconds", "Timestamp", "SecondsPath",
    "Branches", "ItemProcessor", "Iterator", "ItemsPath", "ItemSelector", "MaxConcurrency", "ProcessorConfig", "Mode",
    "Error", "Cause", "ErrorPath", "TimeoutSeconds", "HeartbeatSeconds", "QueryLanguage", "States.ALL", "x.$",
    "$", "$.a", "$$.Execution.Id", "$.a[*]", "States.Format('{}', $.a)", "arn:aws:states:::lambda:invoke",
    "2016-03-14T01:59:00Z", "A", "B", "JSONPath", "JSONata", "DISTRIBUTED", "INLINE",
]
words = st.sampled_from(ASL_WORDS) | st.text(max_size=8)
scalars = st.none() | st.booleans() | st.integers(-3, 10**9) | st.floats(allow_nan=False, allow_infinity=False) | words
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(words, children, max_size=5),
    max_leaves=25,
)


def outcome_of(text: str) -> Any:
    try:
        return parse_definition(text)
    except InvalidDefinitionError as error:
        assert error.diagnostics and error.message.startswith("Invalid State Machine Definition: '")
        return error


def mutate(value: Any, data: st.DataObject) -> Any:
    """Replace, drop or keep one randomly chosen part of a JSON value."""
    if isinstance(value, dict) and value and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(sorted(value)))
        action = data.draw(st.sampled_from(["drop", "replace", "descend"]))
        copy = dict(value)
        if action == "drop":
            del copy[key]
        elif action == "replace":
            copy[key] = data.draw(json_values)
        else:
            copy[key] = mutate(value[key], data)
        return copy
    if isinstance(value, list) and value and data.draw(st.booleans()):
        index = data.draw(st.integers(0, len(value) - 1))
        return [mutate(item, data) if i == index else item for i, item in enumerate(value)]
    return data.draw(json_values) if data.draw(st.booleans()) else value


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=60))
def test_any_text(text: str) -> None:
    outcome_of(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_values)
def test_any_json(value: Any) -> None:
    outcome = outcome_of(json.dumps(value))
    assert isinstance(outcome, (StateMachine, InvalidDefinitionError))
    try:
        parse_single_state(value)
    except InvalidDefinitionError:
        pass


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SEEDS), st.data())
def test_mutated_definitions(seed: dict, data: st.DataObject) -> None:
    text = json.dumps(mutate(seed, data))

    outcome = outcome_of(text)

    errors = [d for d in validate_definition(text) if d.severity == "ERROR"]
    assert isinstance(outcome, StateMachine) == (errors == [])
