"""What one task resource's call comes to, typed: the task's result (`Succeeded`), its failure
(`Failed`), or a submission the task must still wait on (`Pending`: a callback's token handed out, a
`.sync` job started, with how to follow the job).

A resource answers a request it serves with a `BoundCall`, found once by the router
(`TaskResources.route`); the engine runs its `invoke` on a worker thread, and keeps its
`WallDeadline` (a Lambda function's timeout) itself: no second thread waits on the worker.
Resources write their answer in plain terms (JSON, or a raised `StatesError`) and `bound_call` or
`whole_task_call` types it once, by the request's pattern, so no caller needs to ask again what an
answer means.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Callable

from msgspec import Struct

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.task_targets import WAITING_PATTERNS

if TYPE_CHECKING:
    from sfn_emulator.resources.base import TaskRequest
    from sfn_emulator.resources.control_plane import FinishedExecution
    from sfn_emulator.resources.http_trace import HttpExchange

log = logging.getLogger(__name__)


class Succeeded(Struct, frozen=True):
    """The task's result (JSON value); `http`: the HTTP exchange made for it (TestState's TRACE shows it)."""

    result: object
    http: HttpExchange | None = None


class Failed(Struct, frozen=True):
    """The task failed with `error`."""

    error: StatesError
    http: HttpExchange | None = None


class ChildExecution(Struct, frozen=True):
    """A `.sync` job that is an execution of this emulator: the engine waits for `execution_arn` to
    finish; `completed` gives the task's result from it (raising `StatesError` when the job failed)."""

    execution_arn: str
    completed: Callable[[FinishedExecution], object]


class WatchedJob(Struct, frozen=True):
    """A `.sync` job another service runs: `watch` follows it to its end on a worker thread and
    returns the task's result (raising `StatesError` when the job failed)."""

    watch: Callable[[], object]


Job = ChildExecution | WatchedJob


class Pending(Struct, frozen=True):
    """The resource accepted the request (`submitted`, its answer: what TaskSubmitted records); the
    task's result comes later, from SendTaskSuccess/SendTaskFailure or the end of `job` (`.sync`)."""

    submitted: object
    job: Job | None = None
    http: HttpExchange | None = None


TaskOutcome = Succeeded | Failed | Pending


class WallDeadline(Struct, frozen=True):
    """How long the call may run in wall time (a Lambda function's timeout, counted from the moment
    its worker starts), and its outcome when that time passes first: the engine then settles the
    call with `outcome()` and drops whatever the worker answers later."""

    seconds: float
    outcome: Callable[[], TaskOutcome]


class BoundCall(Struct, frozen=True):
    """One resource's call for one request, as the router found it: `invoke` makes the call (on a
    worker thread: it may block) and types its answer; `follow`, for a `.sync` job, gives the `Job`
    from what the call submitted (also for a job submitted before a restart); `answers_whole_task`:
    the answer is the whole task's result (a mock), with no callback, job or activity worker to wait
    for; `deadline`: the wall time the call may take, kept by its caller."""

    invoke: Callable[[], TaskOutcome]
    follow: Callable[[object], Job] | None = None
    answers_whole_task: bool = False
    deadline: WallDeadline | None = None


def bound_call(request: TaskRequest, answer: Callable[[], object],
               follow: Callable[[object], Job] | None = None, *,
               timeout: tuple[float, Callable[[], object]] | None = None) -> BoundCall:
    """A resource's call, `answer()`, typed by the request's pattern: a callback or `.sync` request is
    still pending after the call (with the job `follow` gives), a request-response one settled.
    `timeout`: the call's wall-time bound in seconds, with its answer once that passes (typed alike)."""
    def typed(answer: Callable[[], object]) -> TaskOutcome:
        outcome = typed_answer(request, answer)
        if isinstance(outcome, Succeeded) and request.resource.pattern in WAITING_PATTERNS:
            return Pending(outcome.result, follow(outcome.result) if follow is not None else None)
        return outcome

    deadline = None
    if timeout is not None:
        seconds, timed_out = timeout
        deadline = WallDeadline(seconds, lambda: typed(timed_out))
    return BoundCall(lambda: typed(answer), follow, deadline=deadline)


def whole_task_call(request: TaskRequest, answer: Callable[[], object],
                    deadline: WallDeadline | None = None) -> BoundCall:
    """A call whose answer is the whole task's result, whatever the request's pattern (a mock, or a
    replay's fallback, which keeps the `deadline` of the call it falls back on)."""
    return BoundCall(lambda: typed_answer(request, answer), answers_whole_task=True, deadline=deadline)


def failed_call(error: StatesError) -> BoundCall:
    """A call that fails without being made (nothing serves the request)."""
    return BoundCall(lambda: Failed(error))


def typed_answer(request: TaskRequest, answer: Callable[[], object]) -> Succeeded | Failed:
    """`answer()` as `Succeeded`, or its `StatesError` as `Failed`; a resource's own bug fails the task,
    not the engine."""
    try:
        return Succeeded(answer())
    except StatesError as error:
        return Failed(error)
    except Exception as exc:
        log.exception("task resource failed for %s", request.resource.arn)
        return Failed(StatesError(names.TASK_FAILED, f"{type(exc).__name__}: {exc}"))


def settled_result(outcome: TaskOutcome) -> object:
    """The result of a call that waits for nothing more (request-response, or a mock's whole-task
    answer); raises its failure. A `Pending` one here is the engine's bug, not the task's."""
    if isinstance(outcome, Failed):
        raise outcome.error
    if isinstance(outcome, Pending):
        raise StatesError(names.RUNTIME, "sfn-emulator internal error: a request-response task was left pending")
    return outcome.result


def whole_task_answer(outcome: TaskOutcome) -> object:
    """A call's answer taken as the whole task's result (a replay's fallback): what it submitted too."""
    return outcome.submitted if isinstance(outcome, Pending) else settled_result(outcome)


def unless_failed(outcome: TaskOutcome) -> Succeeded | Pending:
    """The outcome of a call that may still be pending; raises its failure."""
    if isinstance(outcome, Failed):
        raise outcome.error
    return outcome
