"""Lambda's Invoke as Step Functions calls it, through either integration, on a local callable.

Two integrations call the same Invoke (docs, "Invoke Lambda with Step Functions"): the optimized
`arn:aws:states:::lambda:invoke` parses the response's Payload from escaped JSON to JSON and fails
the task when the function fails; `arn:aws:states:::aws-sdk:lambda:invoke` answers Lambda's
response as it is: the Payload as the function's JSON text, and a failed function as a successful
call whose `FunctionError` says so, with the error report as the Payload.

Both honour `InvocationType` (Lambda API reference, Invoke): `RequestResponse` (the default) runs the
function and answers 200 with its result; `Event` queues the function and answers 202 without a
body; `DryRun` only checks that the function may be called and answers 204 without a body.
"""

from __future__ import annotations

import json
from typing import Any

from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.task_targets import ResourceArn

SDK_SERVICE = "aws-sdk:lambda"
REQUEST_RESPONSE = "RequestResponse"
EVENT = "Event"
DRY_RUN = "DryRun"
STATUS_CODES = {REQUEST_RESPONSE: 200, EVENT: 202, DRY_RUN: 204}
UNHANDLED = "Unhandled"  # what Lambda's FunctionError says of an error the function did not catch itself


def is_invoke(resource: ResourceArn) -> bool:
    """Whether `resource` is Lambda's Invoke through one of the two integrations."""
    return resource.is_action("lambda", "invoke") or resource.is_action(SDK_SERVICE, "invoke")


def invocation_type(params: Any) -> str:
    """The invocation's type: the request's `InvocationType`, `RequestResponse` when it has none
    (or names none Lambda knows, which the call itself does not get to judge here)."""
    kind = params.get("InvocationType") if isinstance(params, dict) else None
    return kind if kind in STATUS_CODES else REQUEST_RESPONSE


def invoke_event(params: Any) -> Any:
    """The event the function receives: the request's `Payload`, parsed when it is JSON text, and
    an empty object when there is none."""
    payload = params.get("Payload") if isinstance(params, dict) else None
    if payload is None:
        return {}
    if isinstance(payload, str):
        try:
            return json.loads(payload)
        except ValueError:
            return payload
    return payload


def sdk_invoke_response(outcome: Any, kind: str, log_result: str | None) -> dict[str, Any]:
    """The result of `aws-sdk:lambda:invoke`: Lambda's Invoke response with the SDK's member names.

    `outcome` is the function's JSON result, or the `StatesError` its run failed with (whose cause
    is the error report Lambda answers as the payload); it is not read unless `kind` is
    `RequestResponse`."""
    response: dict[str, Any] = {}
    if kind == REQUEST_RESPONSE:
        response["ExecutedVersion"] = "$LATEST"
        if isinstance(outcome, StatesError):
            response["FunctionError"] = UNHANDLED
            response["Payload"] = outcome.cause or ""
        else:
            response["Payload"] = json.dumps(outcome)  # the Python runtime's serialisation, default spacing
    else:
        response["Payload"] = ""
    if log_result is not None:
        response["LogResult"] = log_result
    response["StatusCode"] = STATUS_CODES[kind]
    return response
