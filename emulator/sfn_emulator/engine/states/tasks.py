"""The Task state: one request to its resource (a Lambda function, an activity, or an integration with
its request-response, `.sync` or `.waitForTaskToken` pattern), with the history events AWS records
for each kind."""

from __future__ import annotations

import json
import re
from typing import Any

from sfn_emulator.asl.arns import split_arn
from sfn_emulator.asl.limits import within_payload_limit
from sfn_emulator.asl.model import JSON, TaskState
from sfn_emulator.asl.task_targets import ACTIVITY, LAMBDA_FUNCTION, WAIT_FOR_TASK_TOKEN, ResourceArn
from sfn_emulator.engine.effects import (
    AwaitCompletion,
    AwaitToken,
    FindActivityMock,
    Interpreter,
    Invoke,
    ScheduleActivity,
)
from sfn_emulator.engine.frame import Frame, to_json_text
from sfn_emulator.engine.task_attempt import Attempt, task_attempt
from sfn_emulator.process.randomness import Randomness
from sfn_emulator.protocol.history_events import (
    ACTIVITY_SCHEDULED,
    ACTIVITY_STARTED,
    TASK_SUBMITTED,
    TASK_SUBMITTED_DETAILS,
    TIMESTAMP,
    ActivityEvents,
    LambdaFunctionEvents,
    TaskEvents,
)
from sfn_emulator.resources.base import TaskRequest
from sfn_emulator.resources.outcomes import Pending, settled_result, unless_failed

_ACCOUNT_ID = re.compile(r"\d{12}")

# -- tasks -----------------------------------------------------------------------------------------

def run_task(state: TaskState, raw: JSON, frame: Frame) -> Interpreter:
    resource = state.target
    run = frame.run
    # `$$.Task.Token` exists where someone may answer the task: activities, callbacks and `.sync` jobs
    # (AWS records a `.sync` task completed by SendTaskSuccess with the token it passed on)
    if resource.waits:
        frame.task_token = frame.resumed_token or new_task_token(frame.run.randomness)
    # The attempt under way when the emulator stopped (`persistence.restore`): what it recorded is not
    # recorded again, and what it sent (a callback's message, an activity a worker took, a `.sync` job)
    # is not sent again; the task waits on as it did, with the same token.
    attempt = frame.resumed_attempt or {}
    frame.resumed_token = frame.resumed_attempt = None
    value = state.io.state_input(raw, frame)
    payload = state.io.arguments(value, raw, frame)
    timeout = state.timeout_seconds.evaluate(value, frame) if state.timeout_seconds is not None else None
    heartbeat = state.heartbeat_seconds.evaluate(value, frame) if state.heartbeat_seconds is not None else None
    role = assumed_role(state.credentials.evaluate(value, frame) if state.credentials is not None else None)
    request = TaskRequest(
        resource=resource, payload=payload, execution_arn=run.execution.arn,
        state_machine_name=run.execution.state_machine_name, state_name=state.name,
        account=role_account(role) or run.execution.account, region=resource.region or run.execution.region,
        attempt=frame.retry_count, task_token=frame.task_token, timeout_seconds=timeout, now=run.now(),
        test_case=run.execution.test_case, seed=run.request_seed(), place=frame.place,
        payload_text=to_json_text(payload),  # what the Scheduled event records and a Lambda handler decodes
    )
    if resource.kind == ACTIVITY:
        result = yield from _run_activity(resource, request, frame, timeout, heartbeat, attempt)
    elif resource.kind == LAMBDA_FUNCTION:
        result = yield from _run_lambda_function(resource, request, frame, timeout, role)
    else:
        result = yield from _run_integration(resource, request, frame, timeout, heartbeat, role, attempt)
    return state.io.result_output(raw, result, state.assign, frame), state.next


def assumed_role(credentials: JSON) -> str | None:
    """The role a Task's `Credentials` names (`RoleArn`), which Step Functions assumes to make the call."""
    role = credentials.get("RoleArn") if isinstance(credentials, dict) else None
    return role if isinstance(role, str) else None


def role_account(role: str | None) -> str | None:
    """The account an assumed role belongs to, where the call is then made (cross-account access): the
    12-digit account of an IAM role ARN, or None for anything else."""
    arn = split_arn(role) if role is not None else None
    if arn is None or arn.service != "iam" or not _ACCOUNT_ID.fullmatch(arn.account):
        return None
    return arn.account


TASK_TOKEN_PATTERN = r"[0-9a-f]{64}"  # what new_task_token makes: how tokens are told apart in history


def new_task_token(randomness: Randomness) -> str:
    return randomness.hex_token(64)


def _checked_size(result: JSON, resource: ResourceArn) -> str:
    """The result as JSON text, within the payload quota (named as AWS names the resource: the
    function ARN for a Lambda ARN, the service for an integration)."""
    culprit = resource.arn if resource.kind == LAMBDA_FUNCTION else resource.resource_type or resource.arn
    return within_payload_limit(result, culprit)


def _run_lambda_function(resource: ResourceArn, request: TaskRequest, frame: Frame, timeout: float | None,
                         role: str | None) -> Interpreter:
    events = LambdaFunctionEvents()
    scheduled = events.scheduled(resource.arn, request.payload_json(), timeout, role)

    def invoke(attempt: Attempt) -> Interpreter:
        return settled_result((yield Invoke(request, timeout)))

    return (yield from task_attempt(frame, events, scheduled, invoke,
                                    output_text=lambda result: _checked_size(result, resource)))


def _run_integration(resource: ResourceArn, request: TaskRequest, frame: Frame, timeout: float | None,
                     heartbeat: float | None, role: str | None, attempt: dict[str, Any]) -> Interpreter:
    events = TaskEvents(resource.resource_type, resource.resource)
    scheduled = events.scheduled(request.region, request.payload_json(), timeout, heartbeat, role)

    def invoke(task: Attempt) -> Interpreter:
        submitted = attempt.get(TASK_SUBMITTED)
        if submitted is not None and resource.waits:
            job = json.loads(submitted[TASK_SUBMITTED_DETAILS]["output"])
            resumed = Pending(job) if resource.pattern == WAIT_FOR_TASK_TOKEN \
                else unless_failed((yield Invoke(request, timeout, submitted=job)))
            return (yield from _await_job(resource, request, resumed, timeout, heartbeat, task.started_at,
                                          frame.run.now()))
        answered = yield Invoke(request, timeout)
        if answered.http is not None:
            frame.inspect_http(answered.http)
        outcome = unless_failed(answered)
        if isinstance(outcome, Pending):
            task.submitted(outcome.submitted)
            return (yield from _await_job(resource, request, outcome, timeout, heartbeat, task.started_at))
        return settled_result(outcome)

    return (yield from task_attempt(frame, events, scheduled, invoke, resumed=attempt,
                                    output_text=lambda result: _checked_size(result, resource)))


def _await_job(resource: ResourceArn, request: TaskRequest, pending: Pending, timeout: float | None,
               heartbeat: float | None, started_at: Any, heartbeat_from: Any = None) -> Interpreter:
    """Wait for a submitted task's answer: its token's (`.waitForTaskToken`) or its job's end (`.sync`)."""
    if resource.pattern == WAIT_FOR_TASK_TOKEN:
        return (yield AwaitToken(request.task_token or "", timeout, heartbeat, counted_from=started_at,
                                 heartbeat_from=heartbeat_from))
    return (yield AwaitCompletion(request, pending, timeout, counted_from=started_at))


def _run_activity(resource: ResourceArn, request: TaskRequest, frame: Frame, timeout: float | None,
                  heartbeat: float | None, attempt: dict[str, Any]) -> Interpreter:
    text = request.payload_json()
    mock = yield FindActivityMock(request)
    events = ActivityEvents()
    token = frame.task_token or ""

    def perform(task: Attempt) -> Interpreter:
        if mock is not None:
            task.started()
            return settled_result((yield Invoke(request, timeout, call=mock)))
        if ACTIVITY_STARTED in attempt:  # a worker took it before the restart, and may still answer with its token
            scheduled_at = attempt[ACTIVITY_SCHEDULED][TIMESTAMP]  # its timeout counts from there
            return (yield AwaitToken(token, timeout, heartbeat, counted_from=scheduled_at, heartbeat_from=frame.run.now()))
        worker = yield ScheduleActivity(resource.arn, token, text, timeout, heartbeat)
        task.started(worker)
        return (yield AwaitToken(token, timeout, heartbeat))

    return (yield from task_attempt(frame, events, events.scheduled(resource.arn, text, timeout, heartbeat), perform,
                                    starts_at_once=False, resumed=attempt,
                                    output_text=lambda result: _checked_size(result, resource)))
