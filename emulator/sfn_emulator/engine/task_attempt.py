"""One attempt at a task, between the history events AWS records for it, shared by every interpreter
that writes tasks: ASL's Task state (an integration, a Lambda ARN, an activity), Serverless Workflow's
function calls, events and sub-workflows, SM4C's actions.

The sequence is the same for each family of events (`Task…`, `LambdaFunction…`, `Activity…`):
scheduled, started, then (an integration's job or callback) submitted, then succeeded with the
result's text, or timed out (States.Timeout, States.HeartbeatTimeout) or failed with the error that
left the work. The work itself (what is invoked and awaited) is the caller's.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Callable

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.engine.effects import Aborted, Interpreter
from sfn_emulator.engine.frame import Frame, to_json_text
from sfn_emulator.protocol.history_events import TIMESTAMP, EventBody, TaskEvents, TaskFamily

JSON = Any
_TIMEOUTS = (names.TIMEOUT, names.HEARTBEAT_TIMEOUT)


class Attempt:
    """What the work of an attempt writes while it runs (its start, when it is not at once; its
    job's submission), and what it may read: when the attempt started, the events of it a restart
    found already written (`resumed`, by type)."""

    __slots__ = ("frame", "events", "resumed", "started_at")

    def __init__(self, frame: Frame, events: TaskFamily, resumed: Mapping[str, Mapping[str, Any]]) -> None:
        self.frame = frame
        self.events = events
        self.resumed = resumed
        self.started_at: datetime | None = None  # once started

    def started(self, worker: str | None = None) -> None:
        """The attempt started (an activity: a worker took it, named when known); not written again
        when the history has it."""
        event = self.events.started(worker)
        started = self.resumed.get(event.type) if self.resumed else None
        if started is not None:
            self.started_at = started[TIMESTAMP]
            return
        self.started_at = self.frame.run.now()
        self.frame.emit(event, timestamp=self.started_at)

    def submitted(self, job: JSON) -> None:
        """An integration's job (`.sync`) or callback (`.waitForTaskToken`) was submitted."""
        assert isinstance(self.events, TaskEvents), "only an integration's attempt is submitted"
        self.frame.emit(self.events.submitted(to_json_text(job)))


def task_attempt(frame: Frame, events: TaskFamily, scheduled: EventBody, work: Callable[[Attempt], Interpreter], *,
                 starts_at_once: bool = True, output_text: Callable[[JSON], str] = to_json_text,
                 resumed: Mapping[str, Mapping[str, Any]] | None = None,
                 cancelled_as: StatesError | None = None) -> Interpreter:
    """Run `work` as one attempt, written as `events`; returns its result.

    `scheduled`: the attempt's first event (its details are the family's own). `starts_at_once`:
    it is started as soon as scheduled (else `work` calls `Attempt.started`). `output_text`: the
    result as the success event's text (a check of its size may fail the attempt). `resumed`: the
    attempt's events already in the history (an execution continued after a restart), not written
    again. `cancelled_as`: the failure written when a sibling's failure cancels the attempt."""
    resumed = resumed or {}
    attempt = Attempt(frame, events, resumed)
    if scheduled.type not in resumed:
        frame.emit(scheduled)
    if starts_at_once:
        attempt.started()
    try:
        result = yield from work(attempt)
        text = output_text(result)
    except StatesError as error:
        frame.emit(events.ended(error.error in _TIMEOUTS, error.error, error.cause))
        raise
    except Aborted:
        if cancelled_as is not None:
            frame.emit(events.ended(False, cancelled_as.error, cancelled_as.cause))
        raise
    frame.emit(events.succeeded(text))
    return result
