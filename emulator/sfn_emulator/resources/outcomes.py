"""What one task resource's call comes to, typed: the task's result, its failure, or a submission
the task must still wait on (a callback's token handed out, a `.sync` job started).

Resources answer in plain terms (`invoke` returns JSON or raises `StatesError`); `outcome_of` reads
that answer in the terms of the request's pattern, once, so no caller needs to ask again what an
answer means.
"""

from __future__ import annotations

import logging

from msgspec import Struct

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.resources.base import (
    SYNC,
    SYNC2,
    WAIT_FOR_TASK_TOKEN,
    JobResource,
    TaskRequest,
    TaskResource,
    WholeTaskResource,
)

log = logging.getLogger(__name__)

_WAITING_PATTERNS = frozenset({WAIT_FOR_TASK_TOKEN, SYNC, SYNC2})


class Succeeded(Struct, frozen=True):
    """The task's result (JSON value)."""

    result: object


class Failed(Struct, frozen=True):
    """The task failed with `error`."""

    error: StatesError


class Pending(Struct, frozen=True):
    """The resource accepted the request (`submitted`, its answer: what TaskSubmitted records); the
    task's result comes later, from SendTaskSuccess/SendTaskFailure or the `.sync` job's end."""

    submitted: object


TaskOutcome = Succeeded | Failed | Pending


def outcome_of(resource: TaskResource, request: TaskRequest) -> TaskOutcome:
    """Call `resource` for `request` (on a worker thread: it may block) and type its answer. A
    callback or `.sync` request is still pending after the call, unless the resource answers whole
    tasks (a mock). A resource's own bug fails the task, not the engine."""
    try:
        answer = resource.invoke(request)
    except StatesError as error:
        return Failed(error)
    except Exception as exc:
        log.exception("task resource failed for %s", request.resource.arn)
        return Failed(StatesError(names.TASK_FAILED, f"{type(exc).__name__}: {exc}"))
    if request.resource.pattern in _WAITING_PATTERNS and not isinstance(resource, WholeTaskResource):
        return Pending(answer)
    return Succeeded(answer)


def watched_outcome(resource: JobResource, request: TaskRequest, submitted: object) -> object:
    """A `.sync` job's result, as `resource.watch` follows it (on a worker thread), or its `Failed`
    outcome; a resource's own bug fails the task, not the engine."""
    try:
        return resource.watch(request, submitted)
    except StatesError as error:
        return Failed(error)
    except Exception as exc:
        log.exception("task resource failed watching the job of %s", request.resource.arn)
        return Failed(StatesError(names.TASK_FAILED, f"{type(exc).__name__}: {exc}"))


def settled_result(outcome: Succeeded | Pending) -> object:
    """The result of an `Invoke` whose request waits for nothing more (request-response, or a mock's
    whole-task answer); a `Pending` one here is the engine's bug, not the task's."""
    if isinstance(outcome, Pending):
        raise StatesError(names.RUNTIME, "sfn-emulator internal error: a request-response task was left pending")
    return outcome.result
