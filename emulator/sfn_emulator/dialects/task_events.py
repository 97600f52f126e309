"""How the workflow dialects (Serverless Workflow, SM4C) write their work as Step Functions tasks, so
a history reads the same whichever language the execution runs: a function call is a task of the
`function` resource named after the function; waiting for events and producing one are tasks of the
`events` resource (the emulator's CloudEvents bus)."""

from __future__ import annotations

from sfn_emulator.protocol.history_events import TaskEvents

EVENTS_RESOURCE = "events"
AWAIT_EVENT_TASK = TaskEvents(EVENTS_RESOURCE, "awaitEvent")
PRODUCE_EVENT_TASK = TaskEvents(EVENTS_RESOURCE, "produceEvent")


def function_task(name: str) -> TaskEvents:
    """The events of a call of the function `name`."""
    return TaskEvents("function", name)
