"""Nested executions: `arn:aws:states:::states:startExecution` (request-response, `.sync`, `.sync:2`,
`.waitForTaskToken`), started through the control plane like any other execution."""

from __future__ import annotations

import json
import uuid
from datetime import datetime
from email.utils import format_datetime
from typing import Any

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.protocol.errors import ApiError
from sfn_emulator.resources.base import SYNC2, TaskRequest
from sfn_emulator.resources.control_plane import SUCCEEDED, ControlPlane, FinishedExecution

class StartExecution:
    """Starts the child execution. For `.sync`/`.sync:2` it is also a `SyncResource`: the engine
    waits for the child named here, then asks for the task's result."""

    def __init__(self, service: ControlPlane) -> None:
        self._service = service

    def matches(self, request: TaskRequest) -> bool:
        return request.resource.service == "states" and request.resource.action == "startExecution"

    def invoke(self, request: TaskRequest) -> Any:
        payload = request.payload if isinstance(request.payload, dict) else {}
        child_input = payload.get("Input")
        params: dict[str, Any] = {
            "stateMachineArn": payload.get("StateMachineArn"),
            "input": child_input if isinstance(child_input, str) else json.dumps({} if child_input is None else child_input, separators=(",", ":")),
        }
        if payload.get("Name") is not None:
            params["name"] = payload["Name"]
        try:
            started = self._service.handle("StartExecution", params, account=request.account, region=request.region)
        except ApiError as error:
            raise StatesError(f"StepFunctions.{error.code}Exception".replace("ExceptionException", "Exception"),
                              f"{error.message} (Service: AWSStepFunctions; Status Code: {error.status}; "
                              f"Error Code: {error.code}; Request ID: {uuid.uuid4()}; Proxy: null)") from None
        result = {"ExecutionArn": started["executionArn"], "StartDate": _millis(started["startDate"])}
        return {**result, **_sdk_metadata(len(json.dumps(result)), request.now)}


    def awaited_execution(self, submitted: Any) -> str:
        return submitted["ExecutionArn"]

    def completed(self, request: TaskRequest, execution: FinishedExecution) -> Any:
        return completion_result(execution, json_output=request.resource.pattern == SYNC2)


def completion_result(execution: FinishedExecution, *, json_output: bool) -> dict[str, Any]:
    """`.sync` (output as JSON text) or `.sync:2` (output as JSON): the finished child's
    description; a child that did not succeed fails the task with States.TaskFailed and it."""
    described: dict[str, Any] = {
        "ExecutionArn": execution.arn,
        "Input": _as_output(execution.input, json_output),
        "InputDetails": {"Included": True},
        "Name": execution.name,
        "StartDate": _millis(execution.start_date),
        "StateMachineArn": execution.state_machine_arn,
        "Status": execution.status,
        "StopDate": _millis(execution.stop_date or execution.start_date),
    }
    if execution.status == SUCCEEDED:
        described["Output"] = _as_output(execution.output or "null", json_output)
        described["OutputDetails"] = {"Included": True}
        return described
    if execution.error is not None:
        described["Error"] = execution.error
    if execution.cause is not None:
        described["Cause"] = execution.cause
    raise StatesError(names.TASK_FAILED, json.dumps(described, separators=(",", ":")))


def _as_output(text: str, json_output: bool) -> Any:
    return json.loads(text) if json_output else text


def _millis(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def _sdk_metadata(length: int, now: datetime | None) -> dict[str, Any]:
    request_id = str(uuid.uuid4())
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
