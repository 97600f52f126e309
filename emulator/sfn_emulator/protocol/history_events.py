"""The one owner of Step Functions history events: every event type's name, its details key, the
members of an event (`id`, `previousEventId`, ...) and a typed builder per event the emulator writes.

A builder returns an `EventBody` (the type and details); the history writer
(`engine.scheduling.history_writer`, owned by the scheduler) gives it its id, time and
`previousEventId`. Readers of histories (graphs, replay, the console, logs, persistence, results)
read events by the names and helpers below, so no other module spells an event type or a details key. (Amazon SWF's history is another service's and
keeps its own names in `swf.history`.)

Details keep AWS's member order, as GetExecutionHistory answers with them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from msgspec import Struct

JSON = Any

# -- the members of an event ------------------------------------------------------------------------
TIMESTAMP: Final = "timestamp"
TYPE: Final = "type"
ID: Final = "id"
PREVIOUS_EVENT_ID: Final = "previousEventId"
EVENT_MEMBERS: Final = (TIMESTAMP, TYPE, ID, PREVIOUS_EVENT_ID)

_DETAILS_SUFFIX = "EventDetails"
_ENTERED = "StateEntered"
_EXITED = "StateExited"

# -- event types (AWS's HistoryEventType) -----------------------------------------------------------
EXECUTION_STARTED: Final = "ExecutionStarted"
EXECUTION_SUCCEEDED: Final = "ExecutionSucceeded"
EXECUTION_FAILED: Final = "ExecutionFailed"
EXECUTION_TIMED_OUT: Final = "ExecutionTimedOut"
EXECUTION_ABORTED: Final = "ExecutionAborted"
EXECUTION_REDRIVEN: Final = "ExecutionRedriven"

TASK_SCHEDULED: Final = "TaskScheduled"
TASK_START_FAILED: Final = "TaskStartFailed"
TASK_STARTED: Final = "TaskStarted"
TASK_SUBMIT_FAILED: Final = "TaskSubmitFailed"
TASK_SUBMITTED: Final = "TaskSubmitted"
TASK_SUCCEEDED: Final = "TaskSucceeded"
TASK_FAILED: Final = "TaskFailed"
TASK_TIMED_OUT: Final = "TaskTimedOut"
TASK_STATE_ABORTED: Final = "TaskStateAborted"

LAMBDA_FUNCTION_SCHEDULED: Final = "LambdaFunctionScheduled"
LAMBDA_FUNCTION_SCHEDULE_FAILED: Final = "LambdaFunctionScheduleFailed"
LAMBDA_FUNCTION_STARTED: Final = "LambdaFunctionStarted"
LAMBDA_FUNCTION_START_FAILED: Final = "LambdaFunctionStartFailed"
LAMBDA_FUNCTION_SUCCEEDED: Final = "LambdaFunctionSucceeded"
LAMBDA_FUNCTION_FAILED: Final = "LambdaFunctionFailed"
LAMBDA_FUNCTION_TIMED_OUT: Final = "LambdaFunctionTimedOut"

ACTIVITY_SCHEDULED: Final = "ActivityScheduled"
ACTIVITY_SCHEDULE_FAILED: Final = "ActivityScheduleFailed"
ACTIVITY_STARTED: Final = "ActivityStarted"
ACTIVITY_SUCCEEDED: Final = "ActivitySucceeded"
ACTIVITY_FAILED: Final = "ActivityFailed"
ACTIVITY_TIMED_OUT: Final = "ActivityTimedOut"

MAP_STATE_STARTED: Final = "MapStateStarted"
MAP_STATE_SUCCEEDED: Final = "MapStateSucceeded"
MAP_STATE_FAILED: Final = "MapStateFailed"
MAP_STATE_ABORTED: Final = "MapStateAborted"
MAP_ITERATION_STARTED: Final = "MapIterationStarted"
MAP_ITERATION_SUCCEEDED: Final = "MapIterationSucceeded"
MAP_ITERATION_FAILED: Final = "MapIterationFailed"
MAP_ITERATION_ABORTED: Final = "MapIterationAborted"
MAP_RUN_STARTED: Final = "MapRunStarted"
MAP_RUN_SUCCEEDED: Final = "MapRunSucceeded"
MAP_RUN_FAILED: Final = "MapRunFailed"
MAP_RUN_ABORTED: Final = "MapRunAborted"
MAP_RUN_REDRIVEN: Final = "MapRunRedriven"

PARALLEL_STATE_STARTED: Final = "ParallelStateStarted"
PARALLEL_STATE_SUCCEEDED: Final = "ParallelStateSucceeded"
PARALLEL_STATE_FAILED: Final = "ParallelStateFailed"
PARALLEL_STATE_ABORTED: Final = "ParallelStateAborted"
WAIT_STATE_ABORTED: Final = "WaitStateAborted"

EVALUATION_FAILED: Final = "EvaluationFailed"

STATE_TYPES: Final = ("Task", "Choice", "Fail", "Succeed", "Pass", "Wait", "Parallel", "Map")
FAIL_STATE_ENTERED: Final = f"Fail{_ENTERED}"

EXECUTION_ENDS: Final = (EXECUTION_SUCCEEDED, EXECUTION_FAILED, EXECUTION_TIMED_OUT, EXECUTION_ABORTED)
"""The events that close an execution: success, failure, timeout, stop."""
EXECUTION_FAILURES: Final = frozenset({EXECUTION_FAILED, EXECUTION_TIMED_OUT, EXECUTION_ABORTED})
EXECUTION_END_STATUS: Final = {EXECUTION_SUCCEEDED: "SUCCEEDED", EXECUTION_FAILED: "FAILED",
                               EXECUTION_TIMED_OUT: "TIMED_OUT", EXECUTION_ABORTED: "ABORTED"}

TASK_ATTEMPT_STARTS: Final = frozenset({TASK_SCHEDULED, LAMBDA_FUNCTION_SCHEDULED, ACTIVITY_SCHEDULED})
"""The first event of a task attempt, by resource kind (an integration, a Lambda ARN, an activity)."""
TASK_ATTEMPT_SUCCESSES: Final = frozenset({TASK_SUCCEEDED, LAMBDA_FUNCTION_SUCCEEDED, ACTIVITY_SUCCEEDED})
TASK_ATTEMPT_FAILURES: Final = frozenset({
    TASK_FAILED, TASK_TIMED_OUT, TASK_START_FAILED, TASK_SUBMIT_FAILED,
    LAMBDA_FUNCTION_FAILED, LAMBDA_FUNCTION_TIMED_OUT, LAMBDA_FUNCTION_START_FAILED, LAMBDA_FUNCTION_SCHEDULE_FAILED,
    ACTIVITY_FAILED, ACTIVITY_TIMED_OUT, ACTIVITY_SCHEDULE_FAILED,
})
TASK_ATTEMPT_TIMEOUTS: Final = frozenset({TASK_TIMED_OUT, LAMBDA_FUNCTION_TIMED_OUT, ACTIVITY_TIMED_OUT})
TASK_ATTEMPT_ENDS: Final = TASK_ATTEMPT_SUCCESSES | TASK_ATTEMPT_FAILURES

BRANCHING_STATE_TYPES: Final = ("Parallel", "Map")
BRANCHING_STATE_ENDS: Final = frozenset({
    PARALLEL_STATE_SUCCEEDED, PARALLEL_STATE_FAILED, PARALLEL_STATE_ABORTED, f"Parallel{_EXITED}",
    MAP_STATE_SUCCEEDED, MAP_STATE_FAILED, MAP_STATE_ABORTED, f"Map{_EXITED}",
})
"""The events that end a Parallel's or a Map's visit; AWS may link them to the last event of one
of its branches or iterations."""

EVENT_TYPES: Final = frozenset({
    EXECUTION_STARTED, *EXECUTION_ENDS, EXECUTION_REDRIVEN,
    *TASK_ATTEMPT_STARTS, *TASK_ATTEMPT_ENDS, TASK_STARTED, TASK_SUBMITTED, TASK_STATE_ABORTED,
    LAMBDA_FUNCTION_STARTED, ACTIVITY_STARTED,
    MAP_STATE_STARTED, MAP_STATE_SUCCEEDED, MAP_STATE_FAILED, MAP_STATE_ABORTED,
    MAP_ITERATION_STARTED, MAP_ITERATION_SUCCEEDED, MAP_ITERATION_FAILED, MAP_ITERATION_ABORTED,
    MAP_RUN_STARTED, MAP_RUN_SUCCEEDED, MAP_RUN_FAILED, MAP_RUN_ABORTED, MAP_RUN_REDRIVEN,
    PARALLEL_STATE_STARTED, PARALLEL_STATE_SUCCEEDED, PARALLEL_STATE_FAILED, PARALLEL_STATE_ABORTED,
    WAIT_STATE_ABORTED, EVALUATION_FAILED,
    *(f"{state_type}{_ENTERED}" for state_type in STATE_TYPES),
    *(f"{state_type}{_EXITED}" for state_type in STATE_TYPES if state_type != "Fail"),
})
"""Every event type of a Step Functions history (AWS's `HistoryEventType`)."""


# -- details keys -------------------------------------------------------------------------------------
def details_key(event_type: str) -> str:
    """The member an event's details are under: `taskScheduledEventDetails` for `TaskScheduled`; one
    key for every state's entered (`stateEnteredEventDetails`) and exited event."""
    if event_type.endswith(_ENTERED):
        event_type = _ENTERED
    elif event_type.endswith(_EXITED):
        event_type = _EXITED
    return f"{event_type[0].lower()}{event_type[1:]}{_DETAILS_SUFFIX}"


STATE_ENTERED_DETAILS: Final = details_key(_ENTERED)
STATE_EXITED_DETAILS: Final = details_key(_EXITED)
EXECUTION_STARTED_DETAILS: Final = details_key(EXECUTION_STARTED)
TASK_SCHEDULED_DETAILS: Final = details_key(TASK_SCHEDULED)
TASK_SUBMITTED_DETAILS: Final = details_key(TASK_SUBMITTED)
MAP_STATE_STARTED_DETAILS: Final = details_key(MAP_STATE_STARTED)
MAP_ITERATION_STARTED_DETAILS: Final = details_key(MAP_ITERATION_STARTED)
EVALUATION_FAILED_DETAILS: Final = details_key(EVALUATION_FAILED)


def is_details_key(key: str) -> bool:
    """Is this member of an event its details (rather than its id, type, time or link)?"""
    return key.endswith(_DETAILS_SUFFIX)


def details_of(event: Mapping[str, Any]) -> Any:
    """An event's details, whatever their key; None when it has none."""
    return next((value for key, value in event.items() if is_details_key(key)), None)


# -- state events ---------------------------------------------------------------------------------------
def state_entered_type(state_type: str) -> str:
    return f"{state_type}{_ENTERED}"


def state_exited_type(state_type: str) -> str:
    return f"{state_type}{_EXITED}"


def entered_state_type(event_type: str) -> str | None:
    """The state type a `…StateEntered` event enters (`Task` for `TaskStateEntered`); None for any other event."""
    return event_type.removesuffix(_ENTERED) if event_type.endswith(_ENTERED) else None


def exited_state_type(event_type: str) -> str | None:
    """The state type a `…StateExited` event leaves; None for any other event."""
    return event_type.removesuffix(_EXITED) if event_type.endswith(_EXITED) else None


def state_type_of(event_type: str) -> str | None:
    """The state type a state's own event is of: `Map` for `MapStateStarted` or `MapStateExited`,
    `Task` for `TaskStateAborted`; None for any other event (`MapIterationStarted`, `TaskScheduled`)."""
    prefix, state, _ = event_type.partition("State")
    return prefix if state and prefix in STATE_TYPES else None


def branching_state_type(event_type: str) -> str | None:
    """`Parallel` or `Map` for an event of a Parallel's or a Map's own (its entry and exit, its start,
    end, a Map's iterations), which AWS may link into one of its branches or iterations; None for any
    other event (a map run's events are the run's)."""
    if event_type.startswith("Parallel"):
        return "Parallel"
    if event_type.startswith("Map") and not event_type.startswith("MapRun"):
        return "Map"
    return None


def is_state_event(event_type: str) -> bool:
    """Is it a state's entered or exited event (whose details name the state)?"""
    return event_type.endswith((_ENTERED, _EXITED))


def state_name_of(event: Mapping[str, Any]) -> str | None:
    """The state an entered or exited event names."""
    details = event.get(STATE_ENTERED_DETAILS) or event.get(STATE_EXITED_DETAILS)
    return details.get("name") if isinstance(details, Mapping) else None


# -- builders ---------------------------------------------------------------------------------------------
class EventBody(Struct, frozen=True):
    """What one event says: its type and, when it has them, its details (under `details_key`). The
    history writer gives it its id, time and `previousEventId`."""

    type: str
    details_key: str | None = None
    details: dict[str, JSON] | None = None


_NOT_TRUNCATED: Final = {"truncated": False}


def _with_details(event_type: str, details: dict[str, JSON]) -> EventBody:
    return EventBody(event_type, details_key(event_type), details)


def _text(member: str, text: str) -> dict[str, JSON]:
    """A payload member (`input`, `output`) and its details: the emulator never truncates one."""
    return {member: text, f"{member}Details": dict(_NOT_TRUNCATED)}


def _error(error: str | None, cause: str | None) -> dict[str, str]:
    """`error` and `cause`, each only when there is one (as AWS leaves out a missing cause)."""
    return {key: value for key, value in (("error", error), ("cause", cause)) if value is not None}


def _timeouts(timeout: float | None, heartbeat: float | None) -> dict[str, int]:
    limits = {}
    if timeout is not None:
        limits["timeoutInSeconds"] = int(timeout)
    if heartbeat is not None:
        limits["heartbeatInSeconds"] = int(heartbeat)
    return limits


def _credentials(role: str | None) -> dict[str, JSON]:
    return {"taskCredentials": {"roleArn": role}} if role is not None else {}


# Execution events
def execution_started(input_text: str, role_arn: str, alias_arn: str | None = None,
                      version_arn: str | None = None) -> EventBody:
    details: dict[str, JSON] = {**_text("input", input_text), "roleArn": role_arn}
    if alias_arn:
        details["stateMachineAliasArn"] = alias_arn
    if version_arn:
        details["stateMachineVersionArn"] = version_arn
    return _with_details(EXECUTION_STARTED, details)


def execution_succeeded(output_text: str) -> EventBody:
    return _with_details(EXECUTION_SUCCEEDED, _text("output", output_text))


def execution_failed(error: str | None, cause: str | None) -> EventBody:
    return _with_details(EXECUTION_FAILED, _error(error, cause))


def execution_aborted(error: str | None, cause: str | None) -> EventBody:
    return _with_details(EXECUTION_ABORTED, _error(error, cause))


def execution_timed_out() -> EventBody:
    return _with_details(EXECUTION_TIMED_OUT, {})


def execution_redriven(redrive_count: int) -> EventBody:
    return _with_details(EXECUTION_REDRIVEN, {"redriveCount": redrive_count})


# State events
def state_entered(state_type: str, name: str, input_text: str) -> EventBody:
    return EventBody(state_entered_type(state_type), STATE_ENTERED_DETAILS,
                     {"name": name, **_text("input", input_text)})


def state_exited(state_type: str, name: str, output_text: str,
                 assigned_variables: dict[str, str] | None = None) -> EventBody:
    """`assigned_variables`: each variable the state's Assign bound, as JSON text (none: not listed)."""
    details: dict[str, JSON] = {"name": name, **_text("output", output_text)}
    if assigned_variables:
        details["assignedVariables"] = assigned_variables
        details["assignedVariablesDetails"] = dict(_NOT_TRUNCATED)
    return EventBody(state_exited_type(state_type), STATE_EXITED_DETAILS, details)


def state_failed(state_type: str) -> EventBody:
    """`MapStateFailed` or `ParallelStateFailed`: an error left the state's branches."""
    return EventBody(f"{state_type}StateFailed")


def state_aborted(state_type: str) -> EventBody:
    """`TaskStateAborted`, `WaitStateAborted`, `ParallelStateAborted`, `MapStateAborted`."""
    return EventBody(f"{state_type}StateAborted")


def evaluation_failed(error: str | None, cause: str | None, state: str, location: str | None) -> EventBody:
    details: dict[str, JSON] = {"error": error, "cause": cause, "state": state}
    if location:
        details["location"] = location
    return _with_details(EVALUATION_FAILED, details)


def parallel_state_started() -> EventBody:
    return EventBody(PARALLEL_STATE_STARTED)


def parallel_state_succeeded() -> EventBody:
    return EventBody(PARALLEL_STATE_SUCCEEDED)


def map_state_started(length: int) -> EventBody:
    return _with_details(MAP_STATE_STARTED, {"length": length})


def map_state_succeeded() -> EventBody:
    return EventBody(MAP_STATE_SUCCEEDED)


def map_iteration_event(event_type: str, name: str, index: int) -> EventBody:
    """`MapIterationStarted`, `…Succeeded`, `…Failed` or `…Aborted` of iteration `index` of Map `name`."""
    return _with_details(event_type, {"name": name, "index": index})


def map_run_started(map_run_arn: str) -> EventBody:
    return _with_details(MAP_RUN_STARTED, {"mapRunArn": map_run_arn})


def map_run_succeeded() -> EventBody:
    return EventBody(MAP_RUN_SUCCEEDED)


def map_run_failed(error: str | None, cause: str | None) -> EventBody:
    return _with_details(MAP_RUN_FAILED, _error(error, cause))


# Task attempts: one family of events per kind of resource, with the same steps
class TaskEvents(Struct, frozen=True):
    """The events of an attempt at an integration (or a dialect's task written as one): every event
    names the resource (`resourceType`, `resource`)."""

    resource_type: str
    resource: str

    def _ids(self) -> dict[str, JSON]:
        return {"resourceType": self.resource_type, "resource": self.resource}

    def scheduled(self, region: str, parameters: str, timeout: float | None = None, heartbeat: float | None = None,
                  role: str | None = None) -> EventBody:
        return _with_details(TASK_SCHEDULED, {**self._ids(), "region": region, "parameters": parameters,
                                              **_timeouts(timeout, heartbeat), **_credentials(role)})

    def started(self, worker: str | None = None) -> EventBody:
        return _with_details(TASK_STARTED, self._ids())

    def submitted(self, output_text: str) -> EventBody:
        return _with_details(TASK_SUBMITTED, {**self._ids(), **_text("output", output_text)})

    def succeeded(self, output_text: str) -> EventBody:
        return _with_details(TASK_SUCCEEDED, {**self._ids(), **_text("output", output_text)})

    def ended(self, timed_out: bool, error: str | None, cause: str | None) -> EventBody:
        return _with_details(TASK_TIMED_OUT if timed_out else TASK_FAILED, {**self._ids(), **_error(error, cause)})


class LambdaFunctionEvents(Struct, frozen=True):
    """The events of an attempt at a Lambda function named by its ARN (`"Resource": "arn:…:function:…"`)."""

    def scheduled(self, resource: str, input_text: str, timeout: float | None = None,
                  role: str | None = None) -> EventBody:
        return _with_details(LAMBDA_FUNCTION_SCHEDULED, {"resource": resource, **_text("input", input_text),
                                                         **_timeouts(timeout, None), **_credentials(role)})

    def started(self, worker: str | None = None) -> EventBody:
        return EventBody(LAMBDA_FUNCTION_STARTED)

    def succeeded(self, output_text: str) -> EventBody:
        return _with_details(LAMBDA_FUNCTION_SUCCEEDED, _text("output", output_text))

    def ended(self, timed_out: bool, error: str | None, cause: str | None) -> EventBody:
        return _with_details(LAMBDA_FUNCTION_TIMED_OUT if timed_out else LAMBDA_FUNCTION_FAILED, _error(error, cause))


class ActivityEvents(Struct, frozen=True):
    """The events of an attempt at an activity: started when a worker takes it (named when known)."""

    def scheduled(self, resource: str, input_text: str, timeout: float | None = None,
                  heartbeat: float | None = None) -> EventBody:
        return _with_details(ACTIVITY_SCHEDULED, {"resource": resource, **_text("input", input_text),
                                                  **_timeouts(timeout, heartbeat)})

    def started(self, worker: str | None = None) -> EventBody:
        return _with_details(ACTIVITY_STARTED, {"workerName": worker} if worker else {})

    def succeeded(self, output_text: str) -> EventBody:
        return _with_details(ACTIVITY_SUCCEEDED, _text("output", output_text))

    def ended(self, timed_out: bool, error: str | None, cause: str | None) -> EventBody:
        return _with_details(ACTIVITY_TIMED_OUT if timed_out else ACTIVITY_FAILED, _error(error, cause))


TaskFamily = TaskEvents | LambdaFunctionEvents | ActivityEvents
