"""Definitions Step Functions accepts parse into the immutable model, expressions compiled once."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from helpers.paths import FIXTURES_ROOT
from helpers.scopes import FixedScope

from sfn_emulator.asl.model import (
    ChoiceState,
    FailState,
    MapState,
    ParallelState,
    PassState,
    StateMachine,
    TaskState,
    WaitState,
)
from sfn_emulator.asl.parser import InvalidDefinitionError, parse_definition, parse_single_state, validate_definition

FIXTURES = FIXTURES_ROOT / "definitions"
VALID = json.loads((FIXTURES / "valid.json").read_text())["cases"]


SCOPE = FixedScope()


def parse(definition: dict, **options: Any) -> StateMachine:
    return parse_definition(json.dumps(definition), **options)


@pytest.mark.parametrize("case", VALID, ids=[case["name"] for case in VALID])
def test_accepted_definitions_parse_without_errors(case: dict) -> None:
    text = json.dumps(case["definition"])
    machine_type = case.get("state_machine_type", "STANDARD")

    machine = parse_definition(text, state_machine_type=machine_type)

    assert validate_definition(text, state_machine_type=machine_type) == []
    assert set(machine.states) == set(case["definition"]["States"])
    assert machine.raw == case["definition"]


def test_the_model_is_immutable() -> None:
    machine = parse({"StartAt": "A", "States": {"A": {"Type": "Pass", "End": True}}})

    with pytest.raises(AttributeError):
        machine.states["A"].end = False  # type: ignore[misc]


def test_absent_paths_are_the_whole_input_and_null_paths_are_none() -> None:
    machine = parse({"StartAt": "A", "States": {
        "A": {"Type": "Pass", "Next": "B"},
        "B": {"Type": "Pass", "InputPath": None, "OutputPath": None, "ResultPath": None, "End": True},
    }})
    absent, null = machine.states["A"], machine.states["B"]

    assert absent.io.input_path.evaluate({"k": 1}, SCOPE) == {"k": 1}
    assert absent.io.output_path.evaluate({"k": 1}, SCOPE) == {"k": 1}
    assert absent.io.result_path.apply({"k": 1}, "result") == "result"
    assert (null.io.input_path, null.io.output_path, null.io.result_path) == (None, None, None)


def test_pass_result_is_kept_even_when_it_is_null() -> None:
    machine = parse({"StartAt": "A", "States": {
        "A": {"Type": "Pass", "Result": None, "Next": "B"},
        "B": {"Type": "Pass", "End": True},
    }})

    assert isinstance(machine.states["A"], PassState)
    assert machine.states["A"].result is not None and machine.states["A"].result.value is None
    assert machine.states["B"].result is None


def test_templates_are_compiled_into_expressions() -> None:
    machine = parse({"StartAt": "A", "States": {"A": {
        "Type": "Pass", "Parameters": {"copy.$": "$.a", "name.$": "States.Format('x{}', $.a)", "fixed": 1}, "End": True,
    }}})

    assert machine.states["A"].io.parameters.evaluate({"a": 2}, SCOPE) == {"copy": 2, "name": "x2", "fixed": 1}


def test_task_fields_and_error_handling() -> None:
    machine = parse({"StartAt": "T", "States": {
        "T": {
            "Type": "Task", "Resource": "arn:aws:lambda:us-east-1:123456789012:function:f",
            "TimeoutSeconds": 30, "HeartbeatSecondsPath": "$.h",
            "Retry": [{"ErrorEquals": ["E"], "MaxAttempts": 5}, {"ErrorEquals": ["States.ALL"], "JitterStrategy": "FULL"}],
            "Catch": [{"ErrorEquals": ["States.ALL"], "Next": "F", "ResultPath": "$.error"}],
            "End": True,
        },
        "F": {"Type": "Fail", "Error": "Failed"},
    }})
    task = machine.states["T"]

    assert isinstance(task, TaskState)
    assert task.resource == "arn:aws:lambda:us-east-1:123456789012:function:f"
    assert task.timeout_seconds.evaluate({}, SCOPE) == 30  # a literal and a path are each one field
    assert task.heartbeat_seconds.evaluate({"h": 4}, SCOPE) == 4
    first, last = task.retry
    assert (first.error_equals, first.max_attempts, first.interval_seconds, first.backoff_rate, first.jitter_strategy) == (
        ("E",), 5, 1, 2.0, "NONE")
    assert (last.error_equals, last.jitter_strategy) == (("States.ALL",), "FULL")
    (catcher,) = task.catch
    assert (catcher.error_equals, catcher.next) == (("States.ALL",), "F")
    assert catcher.result_path.apply({"in": 1}, {"Error": "E"}) == {"in": 1, "error": {"Error": "E"}}
    assert isinstance(machine.states["F"], FailState) and machine.states["F"].error.evaluate({}, SCOPE) == "Failed"


def test_choice_rules_are_compiled_conditions() -> None:
    machine = parse({"StartAt": "C", "States": {
        "C": {"Type": "Choice", "Choices": [{"Variable": "$.n", "NumericGreaterThan": 1, "Next": "Big", "Comment": "big"}],
              "Default": "Small"},
        "Big": {"Type": "Succeed"},
        "Small": {"Type": "Succeed"},
    }})
    choice = machine.states["C"]

    assert isinstance(choice, ChoiceState)
    (branch,) = choice.choices
    assert (branch.next, branch.comment, choice.default) == ("Big", "big", "Small")
    assert branch.condition.matches({"n": 2}, SCOPE) is True
    assert branch.condition.matches({"n": 0}, SCOPE) is False


def test_wait_durations() -> None:
    machine = parse({"StartAt": "A", "States": {
        "A": {"Type": "Wait", "Seconds": 0, "Next": "B"},
        "B": {"Type": "Wait", "Timestamp": "2024-02-29T23:59:59.5-01:00", "End": True},
    }})

    assert isinstance(machine.states["A"], WaitState)
    assert machine.states["A"].seconds.evaluate({}, SCOPE) == 0
    assert machine.states["B"].timestamp.evaluate({}, SCOPE) == datetime(
        2024, 2, 29, 23, 59, 59, 500000, tzinfo=timezone(timedelta(hours=-1)))


def test_parallel_branches_are_whole_machines() -> None:
    branch = {"StartAt": "B", "States": {"B": {"Type": "Pass", "End": True}}}
    machine = parse({"StartAt": "P", "States": {"P": {"Type": "Parallel", "Branches": [branch], "End": True}}})
    parallel = machine.states["P"]

    assert isinstance(parallel, ParallelState)
    (only,) = parallel.branches
    assert isinstance(only, StateMachine)
    assert (only.start_at, list(only.states), only.raw) == ("B", ["B"], branch)


@pytest.mark.parametrize("processor_field, selector_field", [("Iterator", "Parameters"), ("ItemProcessor", "ItemSelector")])
def test_both_spellings_of_a_map_fill_the_same_fields(processor_field: str, selector_field: str) -> None:
    machine = parse({"StartAt": "M", "States": {"M": {
        "Type": "Map", processor_field: {"StartAt": "I", "States": {"I": {"Type": "Pass", "End": True}}},
        selector_field: {"v.$": "$.v"}, "End": True,
    }}})
    map_state = machine.states["M"]

    assert isinstance(map_state, MapState)
    assert map_state.item_processor.start_at == "I"
    assert map_state.item_selector.evaluate({"v": 3}, SCOPE) == {"v": 3}
    assert map_state.max_concurrency.evaluate({}, SCOPE) == 0  # no MaxConcurrency: no limit
    assert (map_state.processor_mode, map_state.execution_type) == ("INLINE", None)


def test_distributed_map_configuration() -> None:
    machine = parse({"StartAt": "M", "States": {"M": {
        "Type": "Map", "MaxConcurrency": 7, "ToleratedFailureCount": 2, "Label": "L",
        "ItemReader": {"Resource": "arn:aws:states:::s3:getObject", "Parameters": {"Bucket": "b", "Key": "k"}},
        "ItemProcessor": {"ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"},
                          "StartAt": "I", "States": {"I": {"Type": "Pass", "End": True}}},
        "End": True,
    }}})
    map_state = machine.states["M"]

    assert (map_state.processor_mode, map_state.execution_type, map_state.label) == ("DISTRIBUTED", "STANDARD", "L")
    assert map_state.max_concurrency.evaluate({}, SCOPE) == 7
    assert map_state.tolerated_failure_count.evaluate({}, SCOPE) == 2
    assert map_state.item_reader is not None and map_state.item_reader.resource == "arn:aws:states:::s3:getObject"


def test_machine_level_fields() -> None:
    machine = parse({"Comment": "c", "Version": "1.0", "TimeoutSeconds": 9, "StartAt": "A",
                     "States": {"A": {"Type": "Succeed", "Comment": "done"}}})

    assert (machine.start_at, machine.comment, machine.version, machine.timeout_seconds) == ("A", "c", "1.0", 9)
    assert machine.query_language == "JSONPath"
    assert machine.states["A"].comment == "done"


# --- TestState: one state on its own


def test_a_single_state_may_point_anywhere() -> None:
    state = parse_single_state({"Type": "Pass", "Result": 1, "Next": "Elsewhere"}, name="Probe")

    assert isinstance(state, PassState)
    assert (state.name, state.next, state.result.value) == ("Probe", "Elsewhere", 1)


def test_a_single_state_is_validated_with_the_same_rules() -> None:
    with pytest.raises(InvalidDefinitionError) as raised:
        parse_single_state('{"Type": "Task", "Catch": [{"ErrorEquals": ["States.ALL"], "Next": "X"}], "End": true}')

    assert raised.value.message == (
        "Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: These fields are required: [Resource] at /States/StateName'"
    )


def test_a_single_state_that_is_not_json_is_refused() -> None:
    with pytest.raises(InvalidDefinitionError) as raised:
        parse_single_state("{oops")

    assert [d.code for d in raised.value.diagnostics] == ["INVALID_JSON_DESCRIPTION"]
