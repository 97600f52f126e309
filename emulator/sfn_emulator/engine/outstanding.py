"""What the engine is waiting on from outside, as a snapshot for the console: task tokens awaiting
a callback, activity tasks queued for a worker, and the next timer."""

from __future__ import annotations

from datetime import datetime

from msgspec import Struct


# gc=False: a record of strings, numbers and times (and tuples of them) can never be part of a reference
# cycle, so the cycle collector need not track it.
class WaitingCallback(Struct, frozen=True, gc=False):
    """A task token that SendTaskSuccess, SendTaskFailure or SendTaskHeartbeat can answer."""

    token: str
    execution_arn: str


class QueuedActivityTask(Struct, frozen=True, gc=False):
    """An activity task no worker has taken yet (GetActivityTask takes the oldest first)."""

    activity_arn: str
    execution_arn: str
    input: str


class Outstanding(Struct, frozen=True, gc=False):
    callbacks: tuple[WaitingCallback, ...]
    activity_tasks: tuple[QueuedActivityTask, ...]
    next_timer: datetime | None  # when the earliest pending timer (Wait, retry, timeout) falls due
