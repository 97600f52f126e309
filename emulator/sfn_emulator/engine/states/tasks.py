"""The Task state: one request to its resource (a Lambda function, an activity, or an integration with
its request-response, `.sync` or `.waitForTaskToken` pattern), with the history events AWS records
for each kind."""

from __future__ import annotations

import json
import re
from typing import Any

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.arns import split_arn
from sfn_emulator.asl.errors import StatesError
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
from sfn_emulator.engine.states.processing import error_details
from sfn_emulator.process.randomness import Randomness
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
    )
    credentials = {"taskCredentials": {"roleArn": role}} if role is not None else {}
    if resource.kind == ACTIVITY:
        result = yield from _run_activity(resource, request, frame, timeout, heartbeat, attempt)
    elif resource.kind == LAMBDA_FUNCTION:
        result = yield from _run_lambda_function(resource, request, frame, timeout, credentials)
    else:
        result = yield from _run_integration(resource, request, frame, timeout, heartbeat, credentials, attempt)
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
                         credentials: dict[str, Any]) -> Interpreter:
    details: dict[str, Any] = {"resource": resource.arn, "input": to_json_text(request.payload),
                               "inputDetails": {"truncated": False}}
    if timeout is not None:
        details["timeoutInSeconds"] = int(timeout)
    details.update(credentials)
    frame.emit("LambdaFunctionScheduled", "lambdaFunctionScheduledEventDetails", details)
    frame.emit("LambdaFunctionStarted")
    try:
        result = settled_result((yield Invoke(request, timeout)))
        text = _checked_size(result, resource)
    except StatesError as error:
        kind = "LambdaFunctionTimedOut" if error.error == names.TIMEOUT else "LambdaFunctionFailed"
        frame.emit(kind, f"{kind[0].lower()}{kind[1:]}EventDetails", error_details(error))
        raise
    frame.emit("LambdaFunctionSucceeded", "lambdaFunctionSucceededEventDetails",
               {"output": text, "outputDetails": {"truncated": False}})
    return result


def _run_integration(resource: ResourceArn, request: TaskRequest, frame: Frame, timeout: float | None,
                     heartbeat: float | None, credentials: dict[str, Any], attempt: dict[str, Any]) -> Interpreter:
    ids = {"resourceType": resource.resource_type, "resource": resource.resource}
    scheduled: dict[str, Any] = {**ids, "region": request.region, "parameters": to_json_text(request.payload)}
    if timeout is not None:
        scheduled["timeoutInSeconds"] = int(timeout)
    if heartbeat is not None:
        scheduled["heartbeatInSeconds"] = int(heartbeat)
    scheduled.update(credentials)
    if "TaskScheduled" not in attempt:
        frame.emit("TaskScheduled", "taskScheduledEventDetails", scheduled)
    started = attempt.get("TaskStarted")
    started_at = started["timestamp"] if started is not None else frame.run.now()
    if started is None:
        frame.emit("TaskStarted", "taskStartedEventDetails", dict(ids), timestamp=started_at)
    submitted = attempt.get("TaskSubmitted")
    try:
        if submitted is not None and resource.waits:
            job = json.loads(submitted["taskSubmittedEventDetails"]["output"])
            resumed = Pending(job) if resource.pattern == WAIT_FOR_TASK_TOKEN \
                else unless_failed((yield Invoke(request, timeout, submitted=job)))
            result = yield from _await_job(resource, request, resumed, timeout, heartbeat, started_at, frame.run.now())
        else:
            answered = yield Invoke(request, timeout)
            if answered.http is not None:
                frame.inspect_http(answered.http)
            outcome = unless_failed(answered)
            if isinstance(outcome, Pending):
                frame.emit("TaskSubmitted", "taskSubmittedEventDetails",
                           {**ids, "output": to_json_text(outcome.submitted), "outputDetails": {"truncated": False}})
                result = yield from _await_job(resource, request, outcome, timeout, heartbeat, started_at)
            else:
                result = settled_result(outcome)
        text = _checked_size(result, resource)
    except StatesError as error:
        kind = "TaskTimedOut" if error.error in (names.TIMEOUT, names.HEARTBEAT_TIMEOUT) else "TaskFailed"
        frame.emit(kind, f"{kind[0].lower()}{kind[1:]}EventDetails", {**ids, **error_details(error)})
        raise
    frame.emit("TaskSucceeded", "taskSucceededEventDetails", {**ids, "output": text, "outputDetails": {"truncated": False}})
    return result


def _await_job(resource: ResourceArn, request: TaskRequest, pending: Pending, timeout: float | None,
               heartbeat: float | None, started_at: Any, heartbeat_from: Any = None) -> Interpreter:
    """Wait for a submitted task's answer: its token's (`.waitForTaskToken`) or its job's end (`.sync`)."""
    if resource.pattern == WAIT_FOR_TASK_TOKEN:
        return (yield AwaitToken(request.task_token or "", timeout, heartbeat, counted_from=started_at,
                                 heartbeat_from=heartbeat_from))
    return (yield AwaitCompletion(request, pending, timeout, counted_from=started_at))


def _run_activity(resource: ResourceArn, request: TaskRequest, frame: Frame, timeout: float | None,
                  heartbeat: float | None, attempt: dict[str, Any]) -> Interpreter:
    text = to_json_text(request.payload)
    mock = yield FindActivityMock(request)
    details: dict[str, Any] = {"resource": resource.arn, "input": text, "inputDetails": {"truncated": False}}
    if timeout is not None:
        details["timeoutInSeconds"] = int(timeout)
    if heartbeat is not None:
        details["heartbeatInSeconds"] = int(heartbeat)
    if "ActivityScheduled" not in attempt:
        frame.emit("ActivityScheduled", "activityScheduledEventDetails", details)
    token = frame.task_token or ""
    started = attempt.get("ActivityStarted")
    try:
        if mock is not None:
            if started is None:
                frame.emit("ActivityStarted", "activityStartedEventDetails", {})
            result = settled_result((yield Invoke(request, timeout, call=mock)))
        elif started is not None:  # a worker took it before the restart, and may still answer with its token
            scheduled_at = attempt["ActivityScheduled"]["timestamp"]  # its timeout counts from there
            result = yield AwaitToken(token, timeout, heartbeat, counted_from=scheduled_at, heartbeat_from=frame.run.now())
        else:
            worker = yield ScheduleActivity(resource.arn, token, text, timeout, heartbeat)
            frame.emit("ActivityStarted", "activityStartedEventDetails", {"workerName": worker} if worker else {})
            result = yield AwaitToken(token, timeout, heartbeat)
        output = _checked_size(result, resource)
    except StatesError as error:
        kind = "ActivityTimedOut" if error.error in (names.TIMEOUT, names.HEARTBEAT_TIMEOUT) else "ActivityFailed"
        frame.emit(kind, f"{kind[0].lower()}{kind[1:]}EventDetails", error_details(error))
        raise
    frame.emit("ActivitySucceeded", "activitySucceededEventDetails", {"output": output, "outputDetails": {"truncated": False}})
    return result

