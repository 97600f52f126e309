"""Where moto's answers differ from AWS's, amended around each call so a task sees what AWS returns.

moto stays the backend: these are facts about the real services that its in-memory models leave
out, each applied by a rule about the request and the answer, never about particular values:

- DynamoDB validates a table name given where a name or an ARN may stand (`TableName` of
  `PutItem`, `UpdateItem`, ...) against the model's `TableName` shape before anything else;
- Secrets Manager accepts only ASCII letters, digits and `-/_+=.@!` in a new secret's name;
- DynamoDB reports `ConsumedCapacity` only when `ReturnConsumedCapacity` asks for it (moto's
  UpdateItem always does);
- S3 encrypts every object at rest, with SSE-S3 (`AES256`) unless the request or the bucket chose
  another encryption (since January 2023: "Using server-side encryption with Amazon S3 managed
  keys"), and says so in every answer about an object; moto only reports an encryption it was asked for;
- S3 reports the checksum type of a checksummed PutObject, which is always `FULL_OBJECT`;
- SNS publishing to a topic that does not exist says "Topic does not exist" (moto falls back to
  platform endpoints and says "Endpoint does not exist").
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from botocore.exceptions import ClientError
from botocore.model import OperationModel

from sfn_emulator.wire.validation import StringDecoder

_TABLE_NAME_OR_ARN_SHAPE = "TableArn"
_TABLE_NAME_SHAPE = "TableName"
_SECRET_NAME = re.compile(r"[A-Za-z0-9/_+=.@!-]+")
_SECRET_NAME_MESSAGE = ("Invalid name. Must be a valid name containing alphanumeric characters, or any of the "
                        "following: -/_+=.@!")
_DEFAULT_ENCRYPTION = "AES256"
_SINGLE_PART_CHECKSUM_TYPE = "FULL_OBJECT"


def check_request(operation: OperationModel, params: dict[str, Any]) -> None:
    """Raise the ClientError AWS answers for a request it rejects before the call reaches a backend."""
    service = operation.service_model.service_name
    if service == "dynamodb":
        _check_table_names(operation, params)
    elif service == "secretsmanager" and operation.name == "CreateSecret":
        name = params.get("Name")
        if isinstance(name, str) and not _SECRET_NAME.fullmatch(name):
            raise _client_error(operation, "ValidationException", _SECRET_NAME_MESSAGE)


def amend_response(operation: OperationModel, params: dict[str, Any], response: dict[str, Any]) -> dict[str, Any]:
    """`response` (botocore's parsed answer) with what AWS would have added or left out."""
    service = operation.service_model.service_name
    output = operation.output_shape
    members = output.members if output is not None else {}
    if service == "dynamodb" and "ReturnConsumedCapacity" in (operation.input_shape.members
                                                               if operation.input_shape is not None else {}):
        if params.get("ReturnConsumedCapacity", "NONE") == "NONE":
            response.pop("ConsumedCapacity", None)
    if service == "s3":
        if "ServerSideEncryption" in members and not {"ServerSideEncryption", "SSECustomerAlgorithm"} & response.keys():
            response["ServerSideEncryption"] = _DEFAULT_ENCRYPTION
        if operation.name == "PutObject" and "ChecksumType" not in response and any(
                name.startswith("Checksum") for name in response):
            response["ChecksumType"] = _SINGLE_PART_CHECKSUM_TYPE
    return response


def amend_error(operation: OperationModel, params: dict[str, Any], error: ClientError) -> ClientError:
    """`error` with the message AWS gives for the same failure."""
    details = error.response.get("Error", {})
    if operation.service_model.service_name == "sns" and operation.name == "Publish" \
            and details.get("Code") == "NotFound" and _names_a_topic(params):
        details["Message"] = "Topic does not exist"
    return error


def _check_table_names(operation: OperationModel, params: dict[str, Any]) -> None:
    """A name (not an ARN) in a name-or-ARN member must satisfy the `TableName` shape's constraints."""
    shape = operation.input_shape
    if shape is None:
        return
    name_shape = operation.service_model.shape_for(_TABLE_NAME_SHAPE)
    violations: list[str] = []
    for member, member_shape in shape.members.items():
        value = params.get(member)
        if member_shape.name == _TABLE_NAME_OR_ARN_SHAPE and isinstance(value, str) and not value.startswith("arn:"):
            StringDecoder(name_shape).decode(value, member[:1].lower() + member[1:], violations)
    if violations:
        count = len(violations)
        raise _client_error(operation, "ValidationException",
                            f"{count} validation error{'s' if count > 1 else ''} detected: {'; '.join(violations)}")


def _names_a_topic(params: dict[str, Any]) -> bool:
    """Publish's target is a topic: `TopicArn`, or a `TargetArn` that is no platform endpoint's."""
    if params.get("TopicArn") is not None:
        return True
    target = params.get("TargetArn")
    return isinstance(target, str) and not target.split(":", 5)[-1].startswith("endpoint/")


def _client_error(operation: OperationModel, code: str, message: str, status: int = 400) -> ClientError:
    """The error as botocore reports a service's answer, so it is named like any other."""
    return ClientError({"Error": {"Code": code, "Message": message},
                        "ResponseMetadata": {"HTTPStatusCode": status, "RequestId": str(uuid.uuid4())}},
                       operation.name)
