"""What the interpreter asks of the scheduler. The interpreter yields one of these whenever it must
wait for something outside itself; the scheduler resumes it with the answer (or throws a
`StatesError` into it)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable, Generator, Sequence

from msgspec import Struct

from sfn_emulator.asl.model import StateMachine
from sfn_emulator.engine.cloudevents import EventMatch
from sfn_emulator.engine.execution import MapRun
from sfn_emulator.resources.base import TaskRequest
from sfn_emulator.resources.outcomes import BoundCall, Pending

Interpreter = Generator["Effect", Any, Any]


# gc=False: a record of strings, numbers and times (and tuples of them) can never be part of a reference
# cycle, so the cycle collector need not track it.
class Sleep(Struct, frozen=True, gc=False):
    """Resume at virtual time `until` (Wait states, retry intervals). Resumes with None."""

    until: datetime


class Invoke(Struct, frozen=True):
    """Make the call that answers `request` (the router's, or `call` when the interpreter holds it
    already) on a worker thread. Resumes with its outcome (`sfn_emulator.resources.outcomes`):
    `Succeeded`, `Failed` (States.Timeout when `timeout_seconds` of clock time pass first) or
    `Pending`. With `submitted` (a `.sync` job a restored execution had submitted before the
    restart), makes no call: resumes with the `Pending` outcome that follows that job."""

    request: TaskRequest
    timeout_seconds: float | None = None
    call: BoundCall | None = None
    submitted: Any = None


class FindActivityMock(Struct, frozen=True):
    """An activity task: resumes with the call of a mock that answers it whole, or None when an
    activity worker is to take it; throws States.Runtime when the activity does not exist."""

    request: TaskRequest


class Compute(Struct, frozen=True):
    """Evaluate an expression that may run long (SM4C's jq, in its sandbox) on a thread of its own, so
    the engine's thread goes on with other executions meanwhile. Resumes with what `work` returns;
    throws the StatesError it raises."""

    work: Callable[[], Any]


class AwaitToken(Struct, frozen=True, gc=False):
    """Wait for SendTaskSuccess/SendTaskFailure on `token`. Resumes with the output JSON value;
    throws the failure, States.Timeout at `timeout_seconds` or States.HeartbeatTimeout when no
    heartbeat arrives within `heartbeat_seconds`. A deadline only an outside party can meet."""

    token: str
    timeout_seconds: float | None = None
    heartbeat_seconds: float | None = None
    counted_from: datetime | None = None  # when the task started: its timeout runs from there, not from the wait
    heartbeat_from: datetime | None = None  # when its heartbeat starts counting, if not from `counted_from`


class AwaitCompletion(Struct, frozen=True):
    """`.sync`: wait until the job that `Invoke` submitted (its `Pending` outcome) is finished.
    Resumes with the task's result; throws its failure, or States.Timeout when the job is not done
    `timeout_seconds` after the task started (the task's TimeoutSeconds covers the whole job)."""

    request: TaskRequest
    pending: Pending
    timeout_seconds: float | None = None
    counted_from: datetime | None = None
    # (error, cause): the awaited execution is stopped with them when the wait is cancelled (the
    # waiter no longer needs it: SM4C's cancelled parallel children); None: it runs on
    stopped_when_cancelled: tuple[str, str] | None = None


class ScheduleActivity(Struct, frozen=True, gc=False):
    """Queue an activity task for GetActivityTask. Resumes with the worker name once a worker
    takes it; the timeouts count from now and carry on into the following `AwaitToken`."""

    activity_arn: str
    token: str
    input: str
    timeout_seconds: float | None = None
    heartbeat_seconds: float | None = None


class Fork(Struct, frozen=True):
    """Run child interpreters (Parallel branches, Map iterations); resume with their results in
    order. The first child failure aborts the others and is thrown into the parent.
    `interleave`: children take turns state by state (as Parallel branches appear in AWS's
    histories) rather than each running until it blocks (as Map iterations appear)."""

    children: Sequence[Callable[[], Interpreter]]
    max_concurrency: int = 0
    interleave: bool = False
    needed: int | None = None  # resume once this many children succeeded (the rest cancelled, their results None)


class RunMapRun(Struct, frozen=True):
    """A Distributed Map's items, each run as a child execution of `processor`. Resumes with the
    outputs in item order; throws States.ExceedToleratedFailureThreshold when more items fail
    than tolerated (`None` for both limits: no failure is tolerated)."""

    map_run: MapRun
    processor: StateMachine
    inputs: Sequence[Any]
    execution_type: str
    tolerated_failure_count: int | None
    tolerated_failure_percentage: float | None


class AwaitEvent(Struct, frozen=True):
    """Wait for CloudEvents published to the emulator (`POST /_emulator/events`): any one of
    `matches` (`all_of` False) or one event for each of them. Resumes with {match index: event}
    for the events consumed; throws States.Timeout when `timeout_seconds` of clock time pass first.
    Like a task token's, the deadline is one only an outside party can meet."""

    matches: tuple[EventMatch, ...]
    all_of: bool = False
    timeout_seconds: float | None = None


class ProduceEvent(Struct, frozen=True):
    """Publish a CloudEvent an execution produces: it is recorded as the execution's (readable at
    `GET /_emulator/events?executionArn=`) and delivered to every execution waiting for it.
    Resumes with the ARNs of the executions that consumed it."""

    event: dict[str, Any]


class Reschedule(Struct, frozen=True, gc=False):
    """Let sibling children run before continuing (see `Fork.interleave`). Resumes with None."""


class EnterState(Struct, frozen=True, gc=False):
    """A state is about to be entered. The scheduler may end the execution's turn here, so that a
    loop with no Wait cannot starve other executions or the control plane; the execution then
    carries on exactly where it was, before its siblings. Resumes with None."""


ENTER_STATE = EnterState()  # it carries nothing: every state yields this one instance


class Aborted(BaseException):
    """Thrown into a Parallel branch or Map iteration that a sibling's failure cancels: the states
    it is in record AWS's `...StateAborted` / `MapIterationAborted` events on the way out. (A
    stopped or timed-out execution is closed instead, and records no such events, as on AWS.)"""


Effect = (Sleep | Invoke | FindActivityMock | Compute | AwaitToken | AwaitCompletion | ScheduleActivity | Fork | RunMapRun
          | AwaitEvent | ProduceEvent | Reschedule | EnterState)
