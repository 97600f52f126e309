"""Nested executions: `arn:aws:states:::states:startExecution` (request-response, `.sync`, `.sync:2`,
`.waitForTaskToken`), started through the control plane like any other execution."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.task_targets import SYNC2
from sfn_emulator.protocol.errors import ApiError
from sfn_emulator.resources.aws.sdk import check_parameters, request_shape
from sfn_emulator.resources.base import TaskRequest
from sfn_emulator.resources.outcomes import BoundCall, ChildExecution, bound_call
from sfn_emulator.resources.control_plane import SUCCEEDED, ControlPlane, FinishedExecution

class StartExecution:
    """Starts the child execution. For `.sync`/`.sync:2` the call is pending on the child
    (`ChildExecution`): the engine waits for it, and the task's result is made from it."""

    def __init__(self, service: ControlPlane) -> None:
        self._service = service

    def bind(self, request: TaskRequest) -> BoundCall | None:
        if request.resource.service != "states" or request.resource.action != "startExecution":
            return None
        json_output = request.resource.pattern == SYNC2

        def follow(submitted: Any) -> ChildExecution:
            return ChildExecution(submitted["ExecutionArn"],
                                  lambda child: completion_result(child, json_output=json_output))

        return bound_call(request, lambda: self._start(request), follow)

    def _start(self, request: TaskRequest) -> Any:
        check_parameters(request.payload, request_shape("stepfunctions", "StartExecution"))
        params = start_execution_params(request.payload)
        try:
            started = self._service.start_nested_execution(params, parent_execution_arn=request.execution_arn,
                                                           account=request.account, region=request.region)
        except ApiError as error:
            raise start_execution_error(error.code, error.message, error.status, request) from None
        return started_result(started["executionArn"], started["startDate"], request)


def start_execution_params(payload: Any) -> dict[str, Any]:
    """StartExecution's request from the task's parameters: the child's input as JSON text ({} when none)."""
    payload = payload if isinstance(payload, dict) else {}
    child_input = payload.get("Input")
    params: dict[str, Any] = {
        "stateMachineArn": payload.get("StateMachineArn"),
        "input": child_input if isinstance(child_input, str)
        else json.dumps({} if child_input is None else child_input, separators=(",", ":")),
    }
    if payload.get("Name") is not None:
        params["name"] = payload["Name"]
    return params


def start_execution_error(code: str, message: str, status: int, request: TaskRequest) -> StatesError:
    """A refused StartExecution as the 1.x SDK behind `states:startExecution` reports it."""
    return StatesError(f"StepFunctions.{code}Exception".replace("ExceptionException", "Exception"),
                       f"{message} (Service: AWSStepFunctions; Status Code: {status}; "
                       f"Error Code: {code}; Request ID: {request.randomness().uuid()}; Proxy: null)")


def started_result(execution_arn: str, start_date: datetime, request: TaskRequest) -> dict[str, Any]:
    """The result of `states:startExecution` (and what `.sync` submits): ARN, start in epoch millis, HTTP metadata."""
    result = {"ExecutionArn": execution_arn, "StartDate": epoch_millis(start_date)}
    return {**result, **sdk_metadata(len(json.dumps(result)), request.now, request.randomness().uuid())}


def completion_result(execution: FinishedExecution, *, json_output: bool) -> dict[str, Any]:
    """`.sync` (output as JSON text) or `.sync:2` (output as JSON): the finished child's
    description; a child that did not succeed fails the task with States.TaskFailed and it."""
    return job_result({
        "ExecutionArn": execution.arn, "Input": execution.input, "Name": execution.name,
        "StartDate": epoch_millis(execution.start_date), "StateMachineArn": execution.state_machine_arn,
        "Status": execution.status, "StopDate": epoch_millis(execution.stop_date or execution.start_date),
        "Output": execution.output or "null", "Error": execution.error, "Cause": execution.cause,
    }, json_output=json_output)


def job_result(finished: dict[str, Any], *, json_output: bool) -> dict[str, Any]:
    """The result of a `.sync` task from its finished child, wherever it ran: `finished` holds the
    execution's ARN, Name, StateMachineArn, Status, Input and Output (JSON texts), StartDate and StopDate
    (epoch milliseconds), Error and Cause (None when absent)."""
    described: dict[str, Any] = {
        "ExecutionArn": finished["ExecutionArn"],
        "Input": _as_output(finished["Input"], json_output),
        "InputDetails": {"Included": True},
        "Name": finished["Name"],
        "StartDate": finished["StartDate"],
        "StateMachineArn": finished["StateMachineArn"],
        "Status": finished["Status"],
        "StopDate": finished["StopDate"],
    }
    if finished["Status"] == SUCCEEDED:
        described["Output"] = _as_output(finished["Output"] or "null", json_output)
        described["OutputDetails"] = {"Included": True}
        return described
    for key in ("Error", "Cause"):
        if finished.get(key) is not None:
            described[key] = finished[key]
    raise StatesError(names.TASK_FAILED, json.dumps(described, separators=(",", ":")))


def _as_output(text: str, json_output: bool) -> Any:
    return json.loads(text) if json_output else text


def epoch_millis(moment: datetime) -> int:
    """A timestamp as the 1.x SDK writes it in a result: milliseconds since the epoch."""
    return int(moment.timestamp() * 1000)


def sdk_metadata(length: int, now: datetime | None, request_id: str) -> dict[str, Any]:
    """The HTTP metadata the 1.x SDK adds to StartExecution's answer (a body of `length` bytes)."""
    from email.utils import format_datetime  # (email's package, with socket, on the first nested start)

    headers = {
        "connection": "keep-alive",
        "Content-Length": str(length),
        "Content-Type": "application/x-amz-json-1.0",
        "Date": format_datetime(now, usegmt=True) if now else "",
        "x-amzn-RequestId": request_id,
    }
    return {
        "SdkHttpMetadata": {
            "AllHttpHeaders": {key: [value] for key, value in headers.items()},
            "HttpHeaders": headers,
            "HttpStatusCode": 200,
        },
        "SdkResponseMetadata": {"RequestId": request_id},
    }
