"""`arn:aws:states:::aws-sdk:sfn:<action>`: Step Functions called through the AWS SDK integration.

The service called is this emulator's own control plane (so `aws-sdk:sfn:startExecution` starts an
execution here, like `states:startExecution`), reached the way the SDK for Java 2.x reaches it: the
parameters in PascalCase, checked like a request on the wire; the answer in PascalCase with ISO-8601
timestamps; a failure named `Sfn.<exception>` with the 2.x SDK's cause text, which for Step Functions
ends with the SDK's attempt count: "... (Service: Sfn, Status Code: 400, Request ID: ...) (SDK Attempt
Count: 1)", as AWS recorded it in November 2025 (`aws-sdk:sfn:sendTaskSuccess` with an unknown token).
The other `aws-sdk:` services' causes on record (2023 to January 2025) have no attempt count, so
`sfn_emulator.resources.aws_services` gives none.
"""

from __future__ import annotations

from typing import Any

from botocore.model import OperationModel

from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.task_targets import INTEGRATION, REQUEST_RESPONSE, WAIT_FOR_TASK_TOKEN
from sfn_emulator.resources.aws.sdk import (
    check_parameters,
    SdkServices,
    from_response,
    modelled_error_shape,
    sdk_v2_exception_name,
    sdk_v2_service_name,
    to_request,
)
from sfn_emulator.protocol.errors import ApiError
from sfn_emulator.protocol.validation import RequestDecoder, compile_request_decoders
from sfn_emulator.resources.base import TaskRequest
from sfn_emulator.resources.outcomes import BoundCall, bound_call
from sfn_emulator.resources.control_plane import ControlPlane

_ARN_SERVICE = "aws-sdk:sfn"
_BOTOCORE_SERVICE = "stepfunctions"
_PATTERNS = frozenset({REQUEST_RESPONSE, WAIT_FOR_TASK_TOKEN})
_ATTEMPTS = 1  # the control plane answers at once: no retried attempt


class StepFunctionsSdk:
    """The task resource for `aws-sdk:sfn:*`, answered by `service` in the execution's account and region."""

    def __init__(self, service: ControlPlane) -> None:
        self._service = service
        self._model = SdkServices().model(_BOTOCORE_SERVICE)
        self._decoders: dict[str, RequestDecoder] = compile_request_decoders(self._model)

    def bind(self, request: TaskRequest) -> BoundCall | None:
        resource = request.resource
        if (resource.kind == INTEGRATION and resource.service == _ARN_SERVICE and resource.pattern in _PATTERNS
                and _operation_name(resource.action) in self._decoders):
            return bound_call(request, lambda: self._call(request))
        return None

    def _call(self, request: TaskRequest) -> Any:
        operation = self._model.operation_model(_operation_name(request.resource.action))
        payload = request.payload if isinstance(request.payload, dict) else {}
        check_parameters(payload, operation.input_shape)
        params = to_request(payload, operation.input_shape) if operation.input_shape is not None else {}
        try:
            decoded = self._decoders[operation.name](params)
            if operation.name == "StartExecution":  # a child of this execution, as `states:startExecution` starts
                result = self._service.start_nested_execution(decoded, parent_execution_arn=request.execution_arn,
                                                              account=request.account, region=request.region)
            else:
                result = self._service.handle(operation.name, decoded, account=request.account, region=request.region)
        except ApiError as error:
            raise _sdk_v2_error(error, operation, request) from None
        return from_response(result, operation.output_shape)


def _operation_name(action: str) -> str:
    return action[:1].upper() + action[1:]


def _sdk_v2_error(error: ApiError, operation: OperationModel, request: TaskRequest) -> StatesError:
    """The control plane's error as the SDK for Java 2.x reports it: `Sfn.<class>` and its message with facts."""
    service = sdk_v2_service_name(operation.service_model)
    shape = modelled_error_shape(operation.service_model, error.code)
    name = sdk_v2_exception_name(shape) if shape else f"{service}Exception"
    return StatesError(f"{service}.{name}", f"{error.message} (Service: {service}, Status Code: {error.status}, "
                                            f"Request ID: {request.randomness().uuid()}) (SDK Attempt Count: {_ATTEMPTS})")
