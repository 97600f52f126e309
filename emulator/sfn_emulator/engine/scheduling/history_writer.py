"""The one writer of an execution's history: it appends the events the builders of
`sfn_emulator.protocol.history_events` make, giving each its id, its time and its `previousEventId`.
The scheduler's lifecycle writes the Execution* events through it and the interpreters (through their
`Frame`) everything in between.

A STANDARD execution's history holds at most 25,000 events, counted across its Parallel branches and
inline Map iterations (AWS's quota, which also bounds its memory): once 24,999 are written, only an
execution-closing event may follow; any other raises `HistoryLimitReached` and the scheduler fails
the execution with `HISTORY_LIMIT_CAUSE`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Callable

from sfn_emulator.engine.execution import Execution, HistoryEvent
from sfn_emulator.protocol.history_events import EXECUTION_ENDS, EventBody

MAX_HISTORY_EVENTS = 25_000
HISTORY_LIMIT_CAUSE = f"The execution reached the maximum number of history events ({MAX_HISTORY_EVENTS})."


class HistoryLimitReached(BaseException):
    """The history is one event short of the quota and the next event does not close the execution.
    A BaseException so that no Catch, Retry or `except Exception` in the interpreter can hold it:
    it ends the whole execution, not a state."""


class HistoryWriter:
    """Appends one execution's events, each id the next in the history."""

    __slots__ = ("execution", "now")

    def __init__(self, execution: Execution, now: Callable[[], datetime]) -> None:
        self.execution = execution
        self.now = now

    def append(self, event: EventBody, previous_event_id: int | None = None, *,
               timestamp: datetime | None = None) -> int:
        """Append `event` linked to `previous_event_id` (None: to the event before it); returns its id."""
        history = self.execution.history
        event_id = len(history) + 1
        if event_id >= MAX_HISTORY_EVENTS and event.type not in EXECUTION_ENDS and self.execution.type == "STANDARD":
            raise HistoryLimitReached
        stamp = timestamp or self.now()
        if history and history[-1].timestamp == stamp:  # one instant, one object: events share it
            stamp = history[-1].timestamp
        history.append(HistoryEvent(
            stamp, event.type, event_id, previous_event_id if previous_event_id is not None else max(0, event_id - 1),
            event.details_key, event.details,
        ))
        return event_id
