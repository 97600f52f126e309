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
