"""What a history says happened, read once into two things a replay needs:

- the *answers* the outside world gave each Task attempt (result, or error and cause), keyed by where
  the Task ran: its place (the Parallel branches and Map iterations it sits in), its state, which
  visit of that state in that place, and the attempt (`AnswerKey`);
- the *steps* to compare, per place, in order: states entered (with input), tasks scheduled (with
  parameters), states exited (with output), Map lengths and the execution's end (`Step`).

A place is a tuple of (Parallel or Map state name, branch or iteration) from the top level down; a
branch is named by its first state (histories do not number branches), an iteration by its index.
Events find their place through `previousEventId`, which AWS points at the last event of the same
branch or iteration.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from msgspec import Struct

from sfn_emulator.protocol.history_events import (
    BRANCHING_STATE_ENDS,
    BRANCHING_STATE_TYPES,
    EXECUTION_ENDS,
    EXECUTION_REDRIVEN,
    EXECUTION_STARTED_DETAILS,
    EXECUTION_SUCCEEDED,
    MAP_ITERATION_STARTED,
    MAP_ITERATION_STARTED_DETAILS,
    MAP_STATE_STARTED,
    MAP_STATE_STARTED_DETAILS,
    PARALLEL_STATE_STARTED,
    PREVIOUS_EVENT_ID,
    STATE_ENTERED_DETAILS,
    STATE_EXITED_DETAILS,
    TASK_ATTEMPT_FAILURES,
    TASK_ATTEMPT_STARTS,
    TASK_ATTEMPT_SUCCESSES,
    TASK_ATTEMPT_TIMEOUTS,
    details_key,
    details_of,
    entered_state_type,
    exited_state_type,
    state_name_of,
    state_type_of,
)
from sfn_emulator.replay.history import HistoryError

JSON = Any
PlaceStep = tuple[str, "int | str"]  # (Map or Parallel state, iteration index or branch's first state)
Place = tuple[PlaceStep, ...]



class AnswerKey(Struct, frozen=True):
    place: Place
    state: str
    visit: int  # 1 for the first entry into the state in this place, 2 for the next (a loop), ...
    attempt: int  # 0, then 1, 2, ... per retry


class Answer(Struct, frozen=True):
    """One Task attempt's outcome as recorded: its result, or its error and cause."""

    scheduled_event_id: int
    parameters: JSON  # what the task was called with
    result: JSON = None
    error: str | None = None
    cause: str | None = None

    @property
    def failed(self) -> bool:
        return self.error is not None


class Step(Struct, frozen=True):
    """One thing to compare: `kind` (entered, scheduled, map, exited, end), the state, the value."""

    event_id: int
    kind: str
    state: str
    value: JSON = None
    detail: str = ""  # entered: the state's type; scheduled: the resource; end: the closing event's type


class Recording(Struct, frozen=True):
    events: list[dict[str, Any]]  # up to the execution's first end
    answers: dict[AnswerKey, Answer]
    steps: dict[Place, list[Step]]
    places: dict[int, Place]  # event id -> its place
    redrive_end: dict[str, Any] | None = None  # how the recording's last redrive ended, if it was redriven

    @property
    def input(self) -> JSON:
        return _json(self.events[0][EXECUTION_STARTED_DETAILS]["input"])

    @property
    def start_time(self) -> Any:
        return self.events[0]["timestamp"]

    @property
    def role_arn(self) -> str | None:
        role = self.events[0][EXECUTION_STARTED_DETAILS].get("roleArn")
        return role if isinstance(role, str) else None

    @property
    def end(self) -> dict[str, Any]:
        return next(event for event in self.events if event["type"] in EXECUTION_ENDS)


def read_recording(events: Sequence[Mapping[str, Any]]) -> Recording:
    """The answers and steps of a checked history (`history.history_events`). The steps end with the
    execution's first end; the answers of its redrives (after ExecutionRedriven) are kept, as the
    next visits of the states they entered again, for a replay's redrive."""
    events = [dict(event) for event in events]
    end = next(index for index, event in enumerate(events) if event["type"] in EXECUTION_ENDS)
    places = _places(events)
    return Recording(events[: end + 1], _answers(events, places), _steps(events[: end + 1], places), places,
                     _last_redrive_end(events[end + 1:]))


def _last_redrive_end(after_end: list[dict[str, Any]]) -> dict[str, Any] | None:
    redriven = any(event["type"] == EXECUTION_REDRIVEN for event in after_end)
    ends = [event for event in after_end if event["type"] in EXECUTION_ENDS]
    return ends[-1] if redriven and ends else None


def _json(text: Any) -> JSON:
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text


def _places(events: list[dict[str, Any]]) -> dict[int, Place]:
    by_id = {event["id"]: event for event in events}
    places: dict[int, Place] = {}
    open_containers: list[tuple[str, str, Place]] = []  # (type, state name, place) of Parallel/Map states entered
    for event in events:
        kind, previous = event["type"], event[PREVIOUS_EVENT_ID]
        place = places.get(previous, ())
        before = by_id.get(previous)
        entered = entered_state_type(kind)
        if kind == MAP_ITERATION_STARTED:  # AWS links it to the Map's start or to the iteration before
            details = event.get(MAP_ITERATION_STARTED_DETAILS) or {}
            name, index = str(details.get("name", "")), details.get("index")
            if not isinstance(index, int) or isinstance(index, bool):
                raise HistoryError(f"event {event['id']} ({MAP_ITERATION_STARTED}) has no iteration index")
            place = _container_place(MAP_STATE_STARTED, name, place, open_containers) + ((name, index),)
        elif entered is not None and before is not None and before["type"] == PARALLEL_STATE_STARTED:
            # a branch's first state: ParallelStateStarted follows its state's ParallelStateEntered
            parallel = by_id.get(before[PREVIOUS_EVENT_ID])
            place = place + ((_state_name(parallel) if parallel else "", _state_name(event)),)
        elif kind in BRANCHING_STATE_ENDS:
            place = _container_place(kind, _state_name(event), place, open_containers)
        if entered in BRANCHING_STATE_TYPES:
            open_containers.append((entered, _state_name(event), place))
        places[event["id"]] = place
    return places


def _container_place(kind: str, name: str, place: Place, open_containers: list[tuple[str, str, Place]]) -> Place:
    """A Parallel's or Map's closing event, or a Map iteration's start, may follow the last event of
    one of its branches or iterations (`place`): the state's own place is that of the innermost such
    state entered, still open, around `place`."""
    container = state_type_of(kind)
    for index in range(len(open_containers) - 1, -1, -1):
        kind_open, name_open, place_open = open_containers[index]
        if kind_open == container and (not name or name == name_open) and place[: len(place_open)] == place_open:
            if exited_state_type(kind) is not None:
                del open_containers[index]
            return place_open
    return place


def _state_name(event: Mapping[str, Any]) -> str:
    return str(state_name_of(event) or "")


class _Visits:
    """Per place: the state being run, which visit of it, and its attempts so far."""

    def __init__(self) -> None:
        self.current: dict[Place, tuple[str, int]] = {}
        self.entries: dict[tuple[Place, str], int] = {}
        self.attempts: dict[Place, int] = {}

    def enter(self, place: Place, name: str) -> None:
        visit = self.entries.get((place, name), 0) + 1
        self.entries[(place, name)] = visit
        self.current[place] = (name, visit)
        self.attempts[place] = 0

    def schedule(self, place: Place, event_id: int) -> AnswerKey:
        if place not in self.current:
            raise HistoryError(f"event {event_id} schedules a task outside any state: the history is not an "
                               "execution's whole history")
        name, visit = self.current[place]
        attempt = self.attempts[place]
        self.attempts[place] = attempt + 1
        return AnswerKey(place, name, visit, attempt)


def _answers(events: list[dict[str, Any]], places: dict[int, Place]) -> dict[AnswerKey, Answer]:
    visits = _Visits()
    pending: dict[Place, tuple[AnswerKey, int, JSON]] = {}
    answers: dict[AnswerKey, Answer] = {}
    for event in events:
        kind, place = event["type"], places[event["id"]]
        if entered_state_type(kind) is not None:
            visits.enter(place, _state_name(event))
        elif kind in TASK_ATTEMPT_STARTS:
            details = event.get(details_key(kind)) or {}
            parameters = _json(details.get("parameters", details.get("input")))
            pending[place] = (visits.schedule(place, event["id"]), event["id"], parameters)
        elif kind in TASK_ATTEMPT_SUCCESSES and place in pending:
            key, scheduled, parameters = pending.pop(place)
            details = event.get(details_key(kind)) or {}
            if "output" not in details:
                raise HistoryError(f"event {event['id']} ({kind}) has no output: fetch the history with "
                                   "includeExecutionData=true")
            answers[key] = Answer(scheduled, parameters, result=_json(details["output"]))
        elif kind in TASK_ATTEMPT_FAILURES and place in pending:
            key, scheduled, parameters = pending.pop(place)
            details = event.get(details_key(kind)) or {}
            error = details.get("error") or ("States.Timeout" if kind in TASK_ATTEMPT_TIMEOUTS else "States.TaskFailed")
            answers[key] = Answer(scheduled, parameters, error=error, cause=details.get("cause"))
    return answers


def _steps(events: list[dict[str, Any]], places: dict[int, Place]) -> dict[Place, list[Step]]:
    steps: dict[Place, list[Step]] = {}
    current: dict[Place, str] = {}
    for event in events:
        step = _step(event, current.get(places[event["id"]], ""))
        if step is None:
            continue
        place = places[event["id"]]
        if step.kind == "entered":
            current[place] = step.state
        steps.setdefault(place, []).append(step)
    return steps


def _step(event: Mapping[str, Any], state: str) -> Step | None:
    kind, event_id = event["type"], event["id"]
    entered = entered_state_type(kind)
    if entered is not None:
        details = event.get(STATE_ENTERED_DETAILS) or {}
        return Step(event_id, "entered", _state_name(event), _json(details.get("input")), entered)
    if exited_state_type(kind) is not None:
        details = event.get(STATE_EXITED_DETAILS) or {}
        return Step(event_id, "exited", _state_name(event), _json(details.get("output")))
    if kind in TASK_ATTEMPT_STARTS:
        details = event.get(details_key(kind)) or {}
        resource = details.get("resource", "")
        if "resourceType" in details:
            resource = f"{details['resourceType']}:{resource}"
        return Step(event_id, "scheduled", state, _json(details.get("parameters", details.get("input"))), resource)
    if kind == MAP_STATE_STARTED:
        return Step(event_id, "map", state, (event.get(MAP_STATE_STARTED_DETAILS) or {}).get("length"))
    if kind in EXECUTION_ENDS:
        details = details_of(event) or {}
        value = ({"output": _json(details.get("output"))} if kind == EXECUTION_SUCCEEDED
                 else {"error": details.get("error"), "cause": details.get("cause")})
        return Step(event_id, "end", "", value, kind)
    return None
