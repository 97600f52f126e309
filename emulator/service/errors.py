"""The control plane's API errors, named after botocore's error shapes; the wire layer turns each into
`{"__type", "message"}`. The base and the framework's own two live in `sfn_emulator.protocol.errors`."""

from __future__ import annotations

from sfn_emulator.protocol.errors import ApiError as ApiError
from sfn_emulator.protocol.errors import SerializationException as SerializationException
from sfn_emulator.protocol.errors import ValidationException as ValidationException


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
    pass


class TooManyTags(ApiError):
    pass


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
