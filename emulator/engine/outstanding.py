"""What the engine is waiting on from outside, as a snapshot for the console: task tokens awaiting
a callback, activity tasks queued for a worker, and the next timer."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class WaitingCallback:
    """A task token that SendTaskSuccess, SendTaskFailure or SendTaskHeartbeat can answer."""

    token: str
    execution_arn: str


@dataclass(frozen=True, slots=True)
class QueuedActivityTask:
    """An activity task no worker has taken yet (GetActivityTask takes the oldest first)."""

    activity_arn: str
    execution_arn: str
    input: str


@dataclass(frozen=True, slots=True)
class Outstanding:
    callbacks: tuple[WaitingCallback, ...]
    activity_tasks: tuple[QueuedActivityTask, ...]
    next_timer: datetime | None  # when the earliest pending timer (Wait, retry, timeout) falls due
