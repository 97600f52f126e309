"""Task tokens read from an execution's history, so a test (or `sfn-emulator run`) can answer a callback.

A `.waitForTaskToken` task hands `$$.Task.Token` to someone through its parameters, and its
`TaskScheduled` event records those parameters resolved: the token is the string there that has the
form this emulator gives tokens. A `TaskScheduled` event belongs to the state whose `*StateEntered`
event its `previousEventId` chain leads back to (through the task's earlier attempts), which holds
in Parallel branches and Map iterations too, where events of several states interleave.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator, Mapping, Sequence

from sfn_emulator.protocol.history_events import (
    PREVIOUS_EVENT_ID,
    STATE_ENTERED_DETAILS,
    TASK_FAILED,
    TASK_SCHEDULED,
    TASK_SCHEDULED_DETAILS,
    TASK_STATE_ABORTED,
    TASK_SUCCEEDED,
    TASK_TIMED_OUT,
)

Event = Mapping[str, Any]


class NoTaskToken(LookupError):
    """No token was handed out in that state; the message says what the history shows instead."""


def task_token(history: Sequence[Event], state_name: str) -> str:
    """The token of the latest task scheduled in state `state_name`."""
    by_id = _by_id(history)
    scheduled = [event for event in history
                 if event["type"] == TASK_SCHEDULED and _state_of(event, by_id) == state_name]
    if not scheduled:
        entered = list(dict.fromkeys(name for event in history if (name := _entered_name(event)) is not None))
        raise NoTaskToken(f"no task was scheduled in state {state_name!r}; states entered: "
                          f"{', '.join(entered) or '(none)'}")
    tokens = _tokens_in(scheduled[-1][TASK_SCHEDULED_DETAILS].get("parameters"))
    if not tokens:
        raise NoTaskToken(f"the task of state {state_name!r} was given no task token: its parameters do not "
                          "hold $$.Task.Token (an activity's token goes to the worker, by GetActivityTask)")
    return tokens[0]


def open_token_waits(history: Sequence[Event]) -> dict[str, str]:
    """State name -> token, for each task scheduled with a token that has not ended yet."""
    by_id = _by_id(history)
    ended = {_scheduled_of(event, by_id) for event in history if event["type"] in _TASK_ENDS}
    waits: dict[str, str] = {}
    for event in history:
        if event["type"] != TASK_SCHEDULED or event["id"] in ended:
            continue
        tokens = _tokens_in(event[TASK_SCHEDULED_DETAILS].get("parameters"))
        state = _state_of(event, by_id)
        if tokens and state is not None:
            waits[state] = tokens[0]
    return waits


_TASK_ENDS = {TASK_SUCCEEDED, TASK_FAILED, TASK_TIMED_OUT, TASK_STATE_ABORTED}


def _by_id(history: Sequence[Event]) -> dict[int, Event]:
    return {event["id"]: event for event in history}


def _scheduled_of(event: Event, by_id: Mapping[int, Event]) -> int | None:
    """The id of the TaskScheduled event an ending event's chain leads back to."""
    current: Event | None = event
    while current is not None and _entered_name(current) is None:
        if current["type"] == TASK_SCHEDULED:
            return int(current["id"])
        current = by_id.get(current.get(PREVIOUS_EVENT_ID, 0))
    return None


def _state_of(event: Event, by_id: Mapping[int, Event]) -> str | None:
    current: Event | None = event
    while current is not None:
        name = _entered_name(current)
        if name is not None:
            return name
        current = by_id.get(current.get(PREVIOUS_EVENT_ID, 0))
    return None


def _entered_name(event: Event) -> str | None:
    details = event.get(STATE_ENTERED_DETAILS)
    return str(details["name"]) if details else None


def _tokens_in(parameters: str | None) -> list[str]:
    from sfn_emulator.engine.states.tasks import TASK_TOKEN_PATTERN

    if not parameters:
        return []
    pattern = re.compile(TASK_TOKEN_PATTERN)
    return list(dict.fromkeys(text for text in _strings(json.loads(parameters)) if pattern.fullmatch(text)))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
