"""The control plane's API errors, named after botocore's error shapes; the wire layer turns each into
`{"__type", "message"}` plus the shape's other members. The base and the framework's own two live in
`sfn_emulator.protocol.errors`.

Three shapes have members beside `message` (API reference, Errors): `ValidationException.reason`,
why the service refused a request the model allowed; `ResourceNotFound.resourceName` and
`TooManyTags.resourceName`, the ARN of the resource concerned. Every raise of these gives them.
"""

from __future__ import annotations

from sfn_emulator.protocol.errors import ApiError as ApiError
from sfn_emulator.protocol.errors import SerializationException as SerializationException
from sfn_emulator.protocol.errors import ValidationException as ValidationException


# ValidationException's reasons (the `ValidationExceptionReason` enum of the service model).
LABELED_ARNS_NOT_SUPPORTED = "API_DOES_NOT_SUPPORT_LABELED_ARNS"
MISSING_REQUIRED_PARAMETER = "MISSING_REQUIRED_PARAMETER"
COMPLETED_MAP_RUN = "CANNOT_UPDATE_COMPLETED_MAP_RUN"
INVALID_ROUTING_CONFIGURATION = "INVALID_ROUTING_CONFIGURATION"


def invalid_request(message: str, reason: str) -> ValidationException:
    """The service's own ValidationException, with the `reason` that classifies it."""
    return ValidationException(message, members={"reason": reason})


class UnknownOperationException(ApiError):
    pass


class MissingRequiredParameter(ApiError):
    pass


class InvalidArn(ApiError):
    pass


class InvalidName(ApiError):
    pass


class InvalidDefinition(ApiError):
    pass


class InvalidExecutionInput(ApiError):
    pass


class InvalidOutput(ApiError):
    pass


class InvalidToken(ApiError):
    pass


class InvalidLoggingConfiguration(ApiError):
    pass


class InvalidTracingConfiguration(ApiError):
    pass


class InvalidEncryptionConfiguration(ApiError):
    pass


class StateMachineAlreadyExists(ApiError):
    pass


class StateMachineDoesNotExist(ApiError):
    pass


class StateMachineDeleting(ApiError):
    pass


class StateMachineLimitExceeded(ApiError):
    pass


class StateMachineTypeNotSupported(ApiError):
    pass


class ExecutionAlreadyExists(ApiError):
    pass


class ExecutionDoesNotExist(ApiError):
    pass


class ExecutionLimitExceeded(ApiError):
    pass


class ExecutionNotRedrivable(ApiError):
    pass


class ActivityDoesNotExist(ApiError):
    pass


class ActivityAlreadyExists(ApiError):
    pass


class ActivityLimitExceeded(ApiError):
    pass


class ActivityWorkerLimitExceeded(ApiError):
    pass


class TaskDoesNotExist(ApiError):
    pass


class TaskTimedOut(ApiError):
    pass


class ResourceNotFound(ApiError):
    def __init__(self, message: str, *, resource_name: str) -> None:
        super().__init__(message, members={"resourceName": resource_name})


class TooManyTags(ApiError):
    def __init__(self, message: str, *, resource_name: str) -> None:
        super().__init__(message, members={"resourceName": resource_name})


class ConflictException(ApiError):
    pass


class ServiceQuotaExceededException(ApiError):
    pass


class InternalFailure(ApiError):
    status = 500


class AccessDeniedException(ApiError):
    """IAM's refusal, answered before the service looks at the request (HTTP 400, as Coral answers it)."""


class InvalidSignatureException(ApiError):
    """The SigV4 signature or its scope does not fit the endpoint (Coral's, HTTP 400)."""
