"""A seeded run repeats itself: with the same `seed`, two emulators give the same history event for
event, task tokens, generated names and every drawn id and number included; another seed draws other
ones. (Timestamps are the clock's: the auto clock lets the milliseconds spent working pass, so they
are left out of the comparison.)"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from typing import Any

from sfn_emulator import Settings, run_definition

START = datetime(2024, 1, 1, tzinfo=timezone.utc)
# Everything that draws: States.UUID and States.MathRandom, JSONata's $uuid() and $random(), a task
# token, a retry with full jitter, a Distributed Map (its map run id and child execution names).
DEFINITION = {
    "StartAt": "Draw",
    "States": {
        "Draw": {"Type": "Pass", "Parameters": {"id.$": "States.UUID()", "number.$": "States.MathRandom(0, 1000000000)"},
                 "ResultPath": "$.intrinsics", "Next": "DrawJsonata"},
        "DrawJsonata": {"Type": "Pass", "QueryLanguage": "JSONata",
                        "Output": "{% $merge([$states.input, {'jsonata': {'id': $uuid(), 'number': $random()}}]) %}",
                        "Next": "Callback"},
        "Callback": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke.waitForTaskToken",
                     "Parameters": {"FunctionName": "notify", "Payload": {"token.$": "$$.Task.Token"}},
                     "Retry": [{"ErrorEquals": ["Busy"], "IntervalSeconds": 5, "MaxAttempts": 1, "JitterStrategy": "FULL"}],
                     "ResultPath": "$.callback", "Next": "Fan"},
        "Fan": {"Type": "Map", "ItemsPath": "$.items", "ResultPath": "$.fanned", "End": True,
                "ItemProcessor": {"ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"},
                                  "StartAt": "Id", "States": {"Id": {"Type": "Pass", "Parameters": {
                                      "id.$": "States.UUID()", "item.$": "$"}, "End": True}}}},
    },
}
MOCKS = {
    "StateMachines": {"Seeded": {"TestCases": {"Drawn": {"Callback": "BusyThenDone"}}}},
    "MockedResponses": {"BusyThenDone": {"0": {"Throw": {"Error": "Busy", "Cause": "try again"}},
                                         "1": {"Return": {"done": True}}}},
}


def _run(seed: int) -> tuple[list[dict[str, Any]], Any]:
    result = run_definition(DEFINITION, {"items": [1, 2]}, name="Seeded", mock_config=MOCKS, test_case="Drawn",
                            settings=Settings(seed=seed, clock_start=START))
    assert result.status == "SUCCEEDED", (result.error, result.cause)
    return [dict(event) for event in result.history], result


def _drawn(history: list[dict[str, Any]]) -> str:
    """The history as text, without its timestamps."""
    return json.dumps([{key: value for key, value in event.items() if key != "timestamp"} for event in history],
                      sort_keys=True)


def test_the_same_seed_gives_the_same_history_ids_and_tokens_included() -> None:
    first, first_result = _run(seed=7)
    second, second_result = _run(seed=7)

    assert first_result.execution_arn == second_result.execution_arn
    assert _drawn(first) == _drawn(second)
    assert all(re.fullmatch(r"[0-9a-f]{64}", token) for token in _tokens(first)) and len(_tokens(first)) == 2
    assert "mapRunArn" in _drawn(first)
    assert first_result.output == second_result.output


def test_another_seed_draws_other_ids() -> None:
    first, first_result = _run(seed=7)
    other, other_result = _run(seed=8)

    assert first_result.execution_arn != other_result.execution_arn
    for drawn in ("intrinsics", "jsonata"):
        assert first_result.output[drawn] != other_result.output[drawn]
    assert _tokens(first) != _tokens(other)
    assert _drawn(first) != _drawn(other)


def _tokens(history: list[dict[str, Any]]) -> list[str]:
    return [json.loads(event["taskScheduledEventDetails"]["parameters"])["Payload"]["token"]
            for event in history if event["type"] == "TaskScheduled"]
