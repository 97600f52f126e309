"""A stored history event reads as the mapping GetExecutionHistory answers with, in AWS's key order."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from sfn_emulator.engine.execution import HistoryEvent

NOW = datetime(2024, 1, 1, tzinfo=timezone.utc)


@pytest.mark.parametrize(("event", "expected"), [
    (HistoryEvent(NOW, "ExecutionStarted", 1, 0, "executionStartedEventDetails", {"input": "{}"}),
     {"timestamp": NOW, "type": "ExecutionStarted", "id": 1, "previousEventId": 0,
      "executionStartedEventDetails": {"input": "{}"}}),
    (HistoryEvent(NOW, "MapStateSucceeded", 7, 6),
     {"timestamp": NOW, "type": "MapStateSucceeded", "id": 7, "previousEventId": 6}),
])
def test_an_event_reads_as_its_mapping(event: HistoryEvent, expected: dict) -> None:
    assert event == expected and event.as_dict() == expected and dict(event) == expected
    assert list(event) == list(expected) and len(event) == len(expected)
    assert event.as_dict() is not event.as_dict()  # a new dict per answer
    with pytest.raises(KeyError):
        event["executionFailedEventDetails"]
    assert "type" in event and "input" not in event


# Every kind of details an event carries: flat ones (kept compactly), AWS's `{"truncated": false}`
# beside payload text, and nested values other than that (kept as given).
DETAILS = [
    {"input": "{}", "inputDetails": {"truncated": False}, "roleArn": "arn:aws:iam::1:role/r"},
    {"name": "A", "output": "[1,2]", "outputDetails": {"truncated": False}},
    {"resourceType": "lambda", "resource": "invoke", "region": "us-east-1", "parameters": "{}",
     "timeoutInSeconds": 30, "heartbeatInSeconds": None},
    {"name": "A", "index": 0},
    {"redriveCount": 1},
    {"name": "A", "output": "{}", "outputDetails": {"truncated": False},
     "assignedVariables": {"x": "1"}, "assignedVariablesDetails": {"truncated": False}},
    {"error": "States.Timeout", "cause": "a cause", "truncated": True},
    {"outputDetails": {"truncated": True}},  # a marker other than AWS's usual one: kept as given
]


@pytest.mark.parametrize("details", DETAILS)
def test_details_read_back_equal_and_as_a_new_dict_each_time(details: dict) -> None:
    event = HistoryEvent(NOW, "SomeEvent", 2, 1, "someEventDetails", details)
    assert event["someEventDetails"] == details and list(event["someEventDetails"]) == list(details)
    first, second = event["someEventDetails"], event.as_dict()["someEventDetails"]
    assert first == second
    if all(not isinstance(value, dict) or value == {"truncated": False} for value in details.values()):
        assert first is not second  # rebuilt on each read: a reader changing it changes nothing stored
        first["name"] = "changed"
        assert event["someEventDetails"] == details


def test_an_empty_details_dict_stays_empty() -> None:
    event = HistoryEvent(NOW, "TaskStarted", 3, 2, "taskStartedEventDetails", {})
    assert event["taskStartedEventDetails"] == {}
