"""Nothing in a history takes a replay down: any field of any event replaced by any JSON value gives
a replay result or a clear `HistoryError`/`ReplayError`, never another exception."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sfn_emulator import Emulator, Settings
from sfn_emulator.replay import HistoryError, ReplayError

from helpers.replay_recordings import LAMBDA, record

DEFINITION = {"StartAt": "P", "States": {"P": {"Type": "Parallel", "Next": "M", "Branches": [
    {"StartAt": "A", "States": {"A": {"Type": "Task", "Resource": LAMBDA, "End": True}}}]},
    "M": {"Type": "Map", "ItemsPath": "$[0].worked.items", "End": True, "ItemProcessor": {
        "StartAt": "I", "States": {"I": {"Type": "Task", "Resource": LAMBDA, "End": True}}}}}}

JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers(-5, 50) | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                           max_leaves=6)


@pytest.fixture(scope="module")
def recorded() -> list[dict[str, Any]]:
    return [dict(event) for event in record(DEFINITION, {"items": [1, 2]})["events"]]


@pytest.fixture(scope="module")
def replayer() -> Any:
    with Emulator(Settings()) as emulator:
        yield emulator


@settings(max_examples=60)
@given(data=st.data())
def test_any_field_replaced_by_any_value_is_a_result_or_a_clear_error(data: Any, recorded: list, replayer: Emulator) -> None:
    events = copy.deepcopy(recorded)
    event = events[data.draw(st.integers(0, len(events) - 1))]
    details = [key for key in event if key.endswith("EventDetails")]
    target = event[details[0]] if details and data.draw(st.booleans()) else event
    target[data.draw(st.sampled_from(sorted(target)))] = data.draw(JSON_VALUES)
    try:
        result = replayer.replay({"events": events}, DEFINITION)
    except (HistoryError, ReplayError) as error:
        assert str(error)
    else:
        json.dumps(result.report(), default=str)


def _with(recorded: list, event_type: str, key: str | None, field: str, value: Any) -> list[dict[str, Any]]:
    events = copy.deepcopy(recorded)
    event = next(event for event in events if event["type"] == event_type)
    (event[key] if key else event)[field] = value
    return events


@pytest.mark.parametrize(("event_type", "key", "field", "value", "outcome"), [
    ("ExecutionStarted", None, "timestamp", 10**30, "event 1's timestamp 10000"),
    ("TaskStateEntered", None, "stateEnteredEventDetails", ["not", "an", "object"], "is not an object"),
    ("MapIterationStarted", "mapIterationStartedEventDetails", "index", "1", "has no iteration index"),
    ("ExecutionStarted", "executionStartedEventDetails", "roleArn", 7, None),  # a default role then
], ids=["epoch out of range", "details not an object", "iteration index not a number", "role not text"])
def test_malformed_fields_are_named(event_type: str, key: str | None, field: str, value: Any, outcome: str | None,
                                    recorded: list, replayer: Emulator) -> None:
    events = _with(recorded, event_type, key, field, value)
    if outcome is None:
        replayer.replay({"events": events}, DEFINITION).assert_matched()
        return
    with pytest.raises(HistoryError, match=outcome):
        replayer.replay({"events": events}, DEFINITION)
