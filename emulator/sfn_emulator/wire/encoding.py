"""What goes over the wire: JSON 1.0 bodies, timestamps as epoch seconds, errors in AWS's form.

AWS names every error with a namespace: the service's own exceptions are
`com.amazonaws.swf.service.v2.model#Code`, a model-constraint violation is
`com.amazon.coral.validate#ValidationException`, and the framework's own failures (body not
JSON, unknown operation, internal failure) are `com.amazon.coral.service#Code`. SDKs keep only the
part after `#`.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sfn_emulator.service.errors import ApiError
from sfn_emulator.protocol.validation import ConstraintViolations

CONTENT_TYPE = "application/x-amz-json-1.0"

SERVICE_NAMESPACE = "com.amazonaws.swf.service.v2.model"
CORAL_SERVICE_NAMESPACE = "com.amazon.coral.service"
CORAL_VALIDATE_NAMESPACE = "com.amazon.coral.validate"
FRAMEWORK_ERRORS = frozenset({"SerializationException", "UnknownOperationException", "InternalFailure",
                              "AccessDeniedException", "InvalidSignatureException"})


def _epoch_seconds(value: Any) -> float:
    """Timestamps travel as epoch seconds with millisecond precision, as AWS sends them."""
    if isinstance(value, datetime):
        return round(value.timestamp(), 3)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


# ASCII-only output: a lone surrogate that arrived in an input string can still be sent back.
_compact = json.JSONEncoder(separators=(",", ":"), default=_epoch_seconds)


def encode_result(result: dict[str, Any]) -> bytes:
    return _compact.encode(result).encode("utf-8")


def error_namespace(error: ApiError) -> str:
    own = getattr(error, "namespace", None)  # an API whose faults live elsewhere (Amazon SWF's) says so
    if own:
        return own
    if isinstance(error, ConstraintViolations):
        return CORAL_VALIDATE_NAMESPACE
    if error.code in FRAMEWORK_ERRORS:
        return CORAL_SERVICE_NAMESPACE
    return SERVICE_NAMESPACE


def encode_error(error: ApiError) -> tuple[bytes, str]:
    """The body and the `x-amzn-ErrorType` header value of an error answer.

    The framework answers "body not JSON" and "unknown operation" with no message at all.
    """
    namespace = error_namespace(error)
    body: dict[str, str] = {"__type": f"{namespace}#{error.code}"}
    if error.message:
        body["message"] = error.message
    body.update(error.members)
    header = f"{error.code}:http://internal.amazon.com/coral/{namespace}/"
    return _compact.encode(body).encode("utf-8"), header
