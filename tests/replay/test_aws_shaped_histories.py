"""Histories linked as AWS links them, which the emulator's own do not always do: a Map's iterations
one after another (each MapIterationStarted pointing at the iteration before), a Parallel closing
with ParallelStateSucceeded after its last branch event, a first state pointing at event 0, and
answers arriving in another order than the calls were made. Each Task answer must still reach its
iteration and branch."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from sfn_emulator import Emulator, Settings

FUNCTION = "arn:aws:lambda:eu-west-1:111122223333:function:Price"
START = datetime(2024, 3, 4, 10, 0, 0, tzinfo=timezone.utc)
MAP = {"StartAt": "M", "States": {"M": {"Type": "Map", "ItemsPath": "$.items", "End": True, "ItemProcessor": {
    "StartAt": "Item", "States": {"Item": {"Type": "Task", "Resource": FUNCTION, "End": True}}}}}}
PARALLEL = {"StartAt": "P", "States": {"P": {"Type": "Parallel", "End": True, "Branches": [
    {"StartAt": "A", "States": {"A": {"Type": "Task", "Resource": FUNCTION, "End": True}}},
    {"StartAt": "B", "States": {"B": {"Type": "Task", "Resource": FUNCTION, "End": True}}}]}}}


def _history(rows: list[tuple[str, int, dict[str, Any] | None]]) -> dict[str, Any]:
    keys = {"ExecutionStarted": "executionStartedEventDetails", "ExecutionSucceeded": "executionSucceededEventDetails",
            "LambdaFunctionScheduled": "lambdaFunctionScheduledEventDetails",
            "LambdaFunctionSucceeded": "lambdaFunctionSucceededEventDetails",
            "MapStateStarted": "mapStateStartedEventDetails", "MapIterationStarted": "mapIterationStartedEventDetails",
            "MapIterationSucceeded": "mapIterationSucceededEventDetails"}
    events = []
    for index, (kind, previous, details) in enumerate(rows):
        key = keys.get(kind) or ("stateEnteredEventDetails" if kind.endswith("Entered") else "stateExitedEventDetails")
        event = {"timestamp": START + timedelta(milliseconds=10 * index), "type": kind, "id": index + 1,
                 "previousEventId": previous}
        if details is not None:
            event[key] = details
        events.append(event)
    return {"events": events}


def _entered(name: str, value: Any) -> dict[str, Any]:
    return {"name": name, "input": json.dumps(value), "inputDetails": {"truncated": False}}


def _exited(name: str, value: Any) -> dict[str, Any]:
    return {"name": name, "output": json.dumps(value), "outputDetails": {"truncated": False}}


def _called(value: Any) -> dict[str, Any]:
    return {"resource": FUNCTION, "input": json.dumps(value), "inputDetails": {"truncated": False}}


def _answered(value: Any) -> dict[str, Any]:
    return {"output": json.dumps(value), "outputDetails": {"truncated": False}}


ROLE = {"roleArn": "arn:aws:iam::111122223333:role/prices"}
MAP_HISTORY = _history([
    ("ExecutionStarted", 0, {"input": json.dumps({"items": [1, 2]}), "inputDetails": {"truncated": False}, **ROLE}),
    ("MapStateEntered", 0, _entered("M", {"items": [1, 2]})),
    ("MapStateStarted", 2, {"length": 2}),
    ("MapIterationStarted", 3, {"name": "M", "index": 0}),
    ("TaskStateEntered", 4, _entered("Item", 1)),
    ("LambdaFunctionScheduled", 5, _called(1)),
    ("LambdaFunctionStarted", 6, None),
    ("LambdaFunctionSucceeded", 7, _answered({"v": 10})),
    ("TaskStateExited", 8, _exited("Item", {"v": 10})),
    ("MapIterationSucceeded", 9, {"name": "M", "index": 0}),
    ("MapIterationStarted", 10, {"name": "M", "index": 1}),
    ("TaskStateEntered", 11, _entered("Item", 2)),
    ("LambdaFunctionScheduled", 12, _called(2)),
    ("LambdaFunctionStarted", 13, None),
    ("LambdaFunctionSucceeded", 14, _answered({"v": 20})),
    ("TaskStateExited", 15, _exited("Item", {"v": 20})),
    ("MapIterationSucceeded", 16, {"name": "M", "index": 1}),
    ("MapStateSucceeded", 17, None),
    ("MapStateExited", 18, _exited("M", [{"v": 10}, {"v": 20}])),
    ("ExecutionSucceeded", 19, _answered([{"v": 10}, {"v": 20}])),
])
PARALLEL_HISTORY = _history([
    ("ExecutionStarted", 0, {"input": "{}", "inputDetails": {"truncated": False}, **ROLE}),
    ("ParallelStateEntered", 0, _entered("P", {})),
    ("ParallelStateStarted", 2, None),
    ("TaskStateEntered", 3, _entered("A", {})),
    ("TaskStateEntered", 3, _entered("B", {})),
    ("LambdaFunctionScheduled", 4, _called({})),
    ("LambdaFunctionScheduled", 5, _called({})),
    ("LambdaFunctionStarted", 6, None),
    ("LambdaFunctionStarted", 7, None),
    ("LambdaFunctionSucceeded", 9, _answered("b")),  # B answered first
    ("LambdaFunctionSucceeded", 8, _answered("a")),
    ("TaskStateExited", 10, _exited("B", "b")),
    ("TaskStateExited", 11, _exited("A", "a")),
    ("ParallelStateSucceeded", 13, None),
    ("ParallelStateExited", 14, _exited("P", ["a", "b"])),
    ("ExecutionSucceeded", 15, _answered(["a", "b"])),
])


@pytest.fixture(scope="module")
def replayer() -> Any:
    with Emulator(Settings()) as emulator:
        yield emulator


@pytest.mark.parametrize(("history", "definition", "output"), [
    (MAP_HISTORY, MAP, [{"v": 10}, {"v": 20}]),
    (PARALLEL_HISTORY, PARALLEL, ["a", "b"]),
], ids=["map iterations in sequence", "parallel answered out of order"])
def test_aws_linked_histories_replay_to_the_same_outputs(history: dict, definition: dict, output: Any,
                                                         replayer: Emulator) -> None:
    result = replayer.replay(history, definition)
    result.assert_matched()
    assert json.loads(result.history[-1]["executionSucceededEventDetails"]["output"]) == output
    assert result.execution_arn.startswith("arn:aws:states:eu-west-1:111122223333:")


def test_a_divergence_inside_an_iteration_names_the_iteration(replayer: Emulator) -> None:
    edited = json.loads(json.dumps(MAP))
    edited["States"]["M"]["ItemProcessor"]["States"]["Item"]["Parameters"] = {"n.$": "$"}
    result = replayer.replay(MAP_HISTORY, edited)
    assert (result.divergence.kind, result.divergence.state, result.divergence.event_id) == ("parameters", "Item", 6)
    assert result.divergence.place == [["M", 0]]
    assert result.divergence.diff == ['$: expected 1, got {"n": 1}']
