"""Where moto's answers differ from AWS's, amended around each call so a task sees what AWS returns.

moto stays the backend: these are facts about the real services that its in-memory models leave
out, each applied by a rule about the request and the answer, never about particular values:

- a JSON- or Query-protocol service's request validator refuses a request that lacks a required member
  ("Value null at 'item' failed to satisfy constraint: Member must not be null", every violation
  counted; `ValidationException` in JSON, `ValidationError` in Query), and DynamoDB validates a table name given where a name or an ARN may stand
  (`TableName` of `PutItem`, `UpdateItem`, ...) against the model's `TableName` shape, in the same
  pass; a service that kept its Query-protocol errors (`awsQueryCompatible`: SQS) says "The request
  must contain the parameter X." (MissingParameter) instead;
- Secrets Manager accepts only ASCII letters, digits and `-/_+=.@!` in a new secret's name;
- DynamoDB reports `ConsumedCapacity` only when `ReturnConsumedCapacity` asks for it (moto's
  UpdateItem always does);
- S3 encrypts every object at rest, with SSE-S3 (`AES256`) unless the request or the bucket chose
  another encryption (since January 2023: "Using server-side encryption with Amazon S3 managed
  keys"), and says so in every answer about an object; moto only reports an encryption it was asked for;
- S3 reports the checksum type of a checksummed PutObject, which is always `FULL_OBJECT`;
- S3 answers `EncodingType` to a listing (ListObjects, ListObjectsV2, ListObjectVersions) only when the
  request asked for one: the Java SDK asks for none of its own (botocore asks for `url` and decodes the
  keys itself, which is why moto's answer has it);
- S3 answers an object's checksums (`Checksum*`) to GetObject and HeadObject only when the request
  asks with `ChecksumMode: ENABLED`, and every S3 answer, errors included, carries an extended
  request id (`x-amz-id-2`);
- DynamoDB refuses an AttributeValue (in an item, a key, expression values, nested lists and maps) that
  holds no data type ("Supplied AttributeValue is empty, ...": a member the SDK does not know, such as
  `{"Q": "1"}`, is dropped on the way) or more than one;
- SNS refuses a Publish without a target ("Invalid parameter: TopicArn or TargetArn Reason: no value
  for required parameter") or with an empty message ("Invalid parameter: Empty message");
- an S3 error answered without a body (HEAD requests: HeadObject, HeadBucket) has neither code nor
  message: the SDK names it by the operation's declared error of that status (`NoSuchKey`,
  `NoSuchBucket`) and has no message;
- where moto words an error as a client would print it ("An error occurred (CODE) when calling the
  OP operation: MESSAGE"), the service answered CODE and MESSAGE;
- SNS publishing to a topic that does not exist says "Topic does not exist" (moto falls back to
  platform endpoints and says "Endpoint does not exist"); publishing to a FIFO topic answers a
  `SequenceNumber`, and without `MessageGroupId` is an InvalidParameter;
- DynamoDB describes a table (`TableDescription`: CreateTable, DescribeTable, UpdateTable, DeleteTable)
  with only the indexes and replicas it has (moto answers empty `LocalSecondaryIndexes` and
  `GlobalSecondaryIndexes` lists), and answers CreateTable, UpdateTable and DeleteTable while the change is
  under way: `CREATING`, `UPDATING`, `DELETING` (DynamoDB API reference, TableDescription.TableStatus);
- SQS gives a queue's `CreatedTimestamp` and `LastModifiedTimestamp` in whole seconds since the epoch
  (SQS API reference, GetQueueAttributes; moto writes a fraction);
- EventBridge's PutEvents fails, entry by entry, an entry whose `Detail` is not a JSON object
  (`MalformedDetail`, "Detail is malformed."), and puts the others (moto ignores such a Detail).
"""

from __future__ import annotations

import base64
import itertools
import json
import re
from typing import Any, Iterator

from botocore.exceptions import ClientError
from botocore.model import OperationModel, Shape

from sfn_emulator.protocol.validation import StringDecoder
from sfn_emulator.process.randomness import Randomness

_TABLE_NAME_OR_ARN_SHAPE = "TableArn"
_TABLE_NAME_SHAPE = "TableName"
_SECRET_NAME = re.compile(r"[A-Za-z0-9/_+=.@!-]+")
_SECRET_NAME_MESSAGE = ("Invalid name. Must be a valid name containing alphanumeric characters, or any of the "
                        "following: -/_+=.@!")
_DEFAULT_ENCRYPTION = "AES256"
_SINGLE_PART_CHECKSUM_TYPE = "FULL_OBJECT"
_CHECKSUMS_ON_REQUEST = frozenset({"GetObject", "HeadObject"})  # S3 operations with a ChecksumMode member
_FIFO_SUFFIX = ".fifo"
# SNS FIFO sequence numbers: 20 digits that grow with each message
_sns_sequence_numbers = itertools.count(10_000_000_000_000_000_000)
_MALFORMED_DETAIL = {"ErrorCode": "MalformedDetail", "ErrorMessage": "Detail is malformed."}
_VALIDATION_CODES = {"json": "ValidationException", "query": "ValidationError"}
_SNS_TARGETS = ("TopicArn", "TargetArn", "PhoneNumber")
_SNS_NO_TARGET = "Invalid parameter: TopicArn or TargetArn Reason: no value for required parameter"
_SNS_EMPTY_MESSAGE = "Invalid parameter: Empty message"
_ATTRIBUTE_VALUE_SHAPE = "AttributeValue"
_EMPTY_ATTRIBUTE_VALUE = "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
_MANY_TYPED_ATTRIBUTE_VALUE = ("Supplied AttributeValue has more than one datatypes set, must contain exactly one of "
                               "the supported datatypes")
_TABLE_DESCRIPTION_SHAPE = "TableDescription"
_LISTS_OF_WHAT_A_TABLE_HAS = ("LocalSecondaryIndexes", "GlobalSecondaryIndexes", "Replicas")
_TABLE_STATUS_WHILE_CHANGING = {"CreateTable": "CREATING", "UpdateTable": "UPDATING", "DeleteTable": "DELETING"}
_QUEUE_TIMESTAMPS = ("CreatedTimestamp", "LastModifiedTimestamp")
_CLIENT_WORDING = re.compile(r"An error occurred \((?P<code>[^)]+)\) when calling the \w+ operation: (?P<message>.*)",
                             re.DOTALL)


def check_request(operation: OperationModel, params: dict[str, Any], ids: Randomness) -> None:
    """Raise the ClientError AWS answers for a request it rejects before the call reaches a backend."""
    service = operation.service_model.service_name
    if operation.service_model.protocol in _VALIDATION_CODES:
        _check_members(operation, params, ids)
    if service == "sns" and operation.name == "Publish":
        if all(params.get(target) is None for target in _SNS_TARGETS):
            raise _client_error(operation, ids, "InvalidParameter", _SNS_NO_TARGET)
        if params.get("Message") == "":
            raise _client_error(operation, ids, "InvalidParameter", _SNS_EMPTY_MESSAGE)
    if service == "dynamodb" and operation.input_shape is not None:
        for value in _attribute_values(params, operation.input_shape):
            types = sum(1 for item in value.values() if item is not None)
            if types != 1:
                raise _client_error(operation, ids, "ValidationException",
                                    _EMPTY_ATTRIBUTE_VALUE if types == 0 else _MANY_TYPED_ATTRIBUTE_VALUE)
    if service == "secretsmanager" and operation.name == "CreateSecret":
        name = params.get("Name")
        if isinstance(name, str) and not _SECRET_NAME.fullmatch(name):
            raise _client_error(operation, ids, "ValidationException", _SECRET_NAME_MESSAGE)


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
        if "EncodingType" in members and "EncodingType" not in params:
            response.pop("EncodingType", None)
        if operation.name in _CHECKSUMS_ON_REQUEST and params.get("ChecksumMode") != "ENABLED":
            response = {name: value for name, value in response.items() if not name.startswith("Checksum")}
    if service == "sns" and operation.name == "Publish" and _fifo_topic(params) and "SequenceNumber" not in response:
        response["SequenceNumber"] = str(next(_sns_sequence_numbers))
    if service == "dynamodb":
        for name, member in members.items():
            if member.name == _TABLE_DESCRIPTION_SHAPE and isinstance(response.get(name), dict):
                response[name] = _as_dynamodb_describes(operation.name, response[name])
    if service == "sqs" and isinstance(response.get("Attributes"), dict):
        response["Attributes"] = _whole_second_timestamps(response["Attributes"])
    return response


def _as_dynamodb_describes(operation: str, table: dict[str, Any]) -> dict[str, Any]:
    """A table's description without the empty lists of indexes or replicas it does not have, in the
    status the operation leaves it in."""
    described = {name: value for name, value in table.items()
                 if not (name in _LISTS_OF_WHAT_A_TABLE_HAS and value == [])}
    if operation in _TABLE_STATUS_WHILE_CHANGING and "TableStatus" in described:
        described["TableStatus"] = _TABLE_STATUS_WHILE_CHANGING[operation]
    return described


def _whole_second_timestamps(attributes: dict[str, Any]) -> dict[str, Any]:
    """A queue's attributes with its timestamps cut to whole epoch seconds."""
    return {name: (value.split(".")[0] if name in _QUEUE_TIMESTAMPS and isinstance(value, str) else value)
            for name, value in attributes.items()}


def amend_error(operation: OperationModel, params: dict[str, Any], error: ClientError, ids: Randomness) -> ClientError:
    """`error` with the message AWS gives for the same failure."""
    details = error.response.get("Error", {})
    service = operation.service_model.service_name
    worded = _CLIENT_WORDING.fullmatch(str(details.get("Message", "")))
    if worded:
        details["Code"], details["Message"] = worded["code"], worded["message"]
        details.pop("QueryErrorCode", None)
    if service == "sns" and operation.name == "Publish":
        if details.get("Code") == "NotFound" and _names_a_topic(params):
            details["Message"] = "Topic does not exist"
        if details.get("Code") == "MissingParameter" and _fifo_topic(params) and params.get("MessageGroupId") is None:
            details["Code"] = "InvalidParameter"
            details["Message"] = "Invalid parameter: The MessageGroupId parameter is required for FIFO topics"
    if service == "s3":
        metadata = error.response.setdefault("ResponseMetadata", {})
        if not metadata.get("RequestId"):
            metadata["RequestId"] = ids.hex_token(16).upper()
        if not metadata.get("HostId"):
            metadata["HostId"] = _extended_request_id(ids)
        declared = _declared_error_of_status(operation, str(details.get("Code", "")))
        if declared is not None:
            details["Code"], details["Message"] = declared, None
    return error


def _declared_error_of_status(operation: OperationModel, code: str) -> str | None:
    """The operation's declared error for a bodiless error answer (a HEAD request's: no code, only a
    status, which botocore gives as the code), as the SDK picks it; None for any other answer."""
    if not code.isdigit():
        return None
    for shape in operation.error_shapes:
        if str(shape.metadata.get("error", {}).get("httpStatusCode")) == code:
            return shape.name
    return None


def refused_entries(operation: OperationModel,
                    params: dict[str, Any]) -> tuple[dict[str, Any] | None, dict[int, dict[str, str]]]:
    """The request to send on, without the entries AWS fails on their own (None when none is left);
    and those entries' failures by position (PutEvents: a `Detail` that is not a JSON object)."""
    if operation.service_model.service_name != "events" or operation.name != "PutEvents":
        return params, {}
    entries = params.get("Entries")
    if not isinstance(entries, list):
        return params, {}
    refused = {index: dict(_MALFORMED_DETAIL) for index, entry in enumerate(entries)
               if isinstance(entry, dict) and not _is_json_object_text(entry.get("Detail"))}
    if not refused:
        return params, {}
    kept = [entry for index, entry in enumerate(entries) if index not in refused]
    return ({**params, "Entries": kept} if kept else None), refused


def with_refused_entries(response: dict[str, Any], refused: dict[int, dict[str, str]]) -> dict[str, Any]:
    """PutEvents' answer with the refused entries' failures back in their places, and counted."""
    if not refused:
        return response
    answered = iter(response.get("Entries", []))
    total = len(response.get("Entries", [])) + len(refused)
    entries = [refused[index] if index in refused else next(answered) for index in range(total)]
    return {**response, "Entries": entries, "FailedEntryCount": response.get("FailedEntryCount", 0) + len(refused)}


def _is_json_object_text(detail: Any) -> bool:
    if detail is None:
        return True  # no Detail at all is another check's business
    try:
        return isinstance(json.loads(detail), dict)
    except (TypeError, ValueError):
        return False


def _fifo_topic(params: dict[str, Any]) -> bool:
    topic = params.get("TopicArn") or params.get("TargetArn")
    return isinstance(topic, str) and topic.endswith(_FIFO_SUFFIX)


def _extended_request_id(ids: Randomness) -> str:
    """An `x-amz-id-2` value as S3 sends it: base64 text."""
    return base64.b64encode(bytes.fromhex(ids.hex_token(114))).decode("ascii")


def _check_members(operation: OperationModel, params: dict[str, Any], ids: Randomness) -> None:
    """The top-level members as a JSON or Query service's request validator checks them, in the shape's order:
    required members present; a table name (not an ARN) in a name-or-ARN member fit for `TableName`."""
    shape = operation.input_shape
    if shape is None:
        return
    query_compatible = "awsQueryCompatible" in operation.service_model.metadata
    required = set(shape.required_members)
    violations: list[str] = []
    for member, member_shape in shape.members.items():
        value = params.get(member)
        java_path = member[:1].lower() + member[1:]
        if member in required and value is None:
            if query_compatible:
                raise _client_error(operation, ids, "MissingParameter", f"The request must contain the parameter {member}.")
            violations.append(f"Value null at '{java_path}' failed to satisfy constraint: Member must not be null")
        elif (operation.service_model.service_name == "dynamodb" and member_shape.name == _TABLE_NAME_OR_ARN_SHAPE
              and isinstance(value, str) and not value.startswith("arn:")):
            StringDecoder(operation.service_model.shape_for(_TABLE_NAME_SHAPE)).decode(value, java_path, violations)
    if violations:
        count = len(violations)
        raise _client_error(operation, ids, _VALIDATION_CODES[operation.service_model.protocol],
                            f"{count} validation error{'s' if count > 1 else ''} detected: {'; '.join(violations)}")


def _attribute_values(value: Any, shape: Shape) -> Iterator[dict[str, Any]]:
    """Every DynamoDB AttributeValue in a request (`value`, bound to `shape`), nested ones too."""
    if shape.type_name == "structure" and isinstance(value, dict):
        if shape.name == _ATTRIBUTE_VALUE_SHAPE:
            yield value
        for name, member in shape.members.items():
            if name in value:
                yield from _attribute_values(value[name], member)
    elif shape.type_name == "list" and isinstance(value, list):
        for item in value:
            yield from _attribute_values(item, shape.member)
    elif shape.type_name == "map" and isinstance(value, dict):
        for item in value.values():
            yield from _attribute_values(item, shape.value)


def _names_a_topic(params: dict[str, Any]) -> bool:
    """Publish's target is a topic: `TopicArn`, or a `TargetArn` that is no platform endpoint's."""
    if params.get("TopicArn") is not None:
        return True
    target = params.get("TargetArn")
    return isinstance(target, str) and not target.split(":", 5)[-1].startswith("endpoint/")


def _client_error(operation: OperationModel, ids: Randomness, code: str, message: str, status: int = 400) -> ClientError:
    """The error as botocore reports a service's answer, so it is named like any other."""
    return ClientError({"Error": {"Code": code, "Message": message},
                        "ResponseMetadata": {"HTTPStatusCode": status, "RequestId": ids.uuid()}},
                       operation.name)
