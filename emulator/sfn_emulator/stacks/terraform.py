"""Terraform's JSON: `terraform show -json` of the state (every value known) or of a saved plan
(`planned_values`: a value computed at apply, such as a definition made by `templatefile()` from
ARNs, is not known yet and is reported so).

Each `aws_*` resource of the state machine's world becomes the CloudFormation resource of the same
kind, its arguments renamed to CloudFormation's properties, so the one resolver and loader serve it.
A state's values name the account and region it was applied in (in ARNs and queue URLs); they
are read as the account and region the stack is loaded into, so the ARNs written into its
definitions are those the emulator gives."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable, Iterator

from sfn_emulator.stacks.intrinsics import KNOWN_AFTER_APPLY
from sfn_emulator.stacks.model import StackError, StackTemplate

_ARN = re.compile(r"arn:[\w-]+:[\w-]+:([a-z0-9-]+):(\d{12}):")  # an ARN with a region and an account


def is_terraform_json(document: Any) -> bool:
    return isinstance(document, dict) and "format_version" in document and \
        ("values" in document or "planned_values" in document)


def read_terraform(path: Path, document: dict[str, Any], *, account: str, region: str) -> StackTemplate:
    """A `terraform show -json` document (state or plan) as one stack named after its file, moved to
    `account` and `region`."""
    document = _moved(document, account, region)
    planned = "planned_values" in document
    root = (document.get("planned_values") if planned else document.get("values")) or {}
    unknown = {change.get("address"): (change.get("change") or {}).get("after_unknown") or {}
               for change in document.get("resource_changes") or []}
    resources: dict[str, Any] = {}
    for resource in _resources(root.get("root_module") or {}):
        if resource.get("mode") != "managed":
            continue
        convert = _CONVERTERS.get(str(resource.get("type")))
        if convert is None:
            continue
        address = str(resource.get("address"))
        values = dict(resource.get("values") or {})
        for name, is_unknown in unknown.get(address, {}).items():
            if is_unknown is True and name not in values:
                values[name] = {KNOWN_AFTER_APPLY: f"{address}.{name}"}
        resources[address] = convert(values)
    if not resources:
        raise StackError(f"{path}: no AWS resource of a kind the emulator loads in this Terraform JSON")
    return StackTemplate(name=re.sub(r"[^A-Za-z0-9-]+", "-", path.stem).strip("-") or "terraform", source=path,
                    resources=resources)


def _moved(document: dict[str, Any], account: str, region: str) -> dict[str, Any]:
    """The document with the account and region of its first ARN replaced by `account` and `region`
    in every ARN and queue URL (`/ACCOUNT/`)."""
    text = json.dumps(document)
    found = _ARN.search(text)
    if found is None:
        return document
    applied_region, applied_account = found.group(1), found.group(2)
    text = re.sub(rf"(arn:[\w-]+:[\w-]+:){re.escape(applied_region)}:{applied_account}:", rf"\g<1>{region}:{account}:", text)
    text = re.sub(rf"(arn:[\w-]+:[\w-]+::){applied_account}:", rf"\g<1>{account}:", text)  # IAM: no region
    text = text.replace(f"/{applied_account}/", f"/{account}/")
    return dict(json.loads(text))


def _resources(module: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield from module.get("resources") or []
    for child in module.get("child_modules") or []:
        yield from _resources(child)


def _first(values: dict[str, Any], name: str) -> dict[str, Any]:
    """A nested block Terraform writes as a list of one object."""
    block = values.get(name)
    return block[0] if isinstance(block, list) and block and isinstance(block[0], dict) else {}


def _present(**properties: Any) -> dict[str, Any]:
    return {key: value for key, value in properties.items() if value not in (None, "", [], {})}


def _resource(kind: str, **properties: Any) -> dict[str, Any]:
    return {"Type": kind, "Properties": _present(**properties)}


def _state_machine(values: dict[str, Any]) -> dict[str, Any]:
    logging = _first(values, "logging_configuration")
    destination = logging.get("log_destination")
    return _resource(
        "AWS::StepFunctions::StateMachine", StateMachineName=values.get("name"),
        DefinitionString=values.get("definition"), StateMachineType=values.get("type"), RoleArn=values.get("role_arn"),
        Tags=[{"Key": key, "Value": value} for key, value in (values.get("tags") or {}).items()],
        LoggingConfiguration=_present(Level=logging.get("level"), IncludeExecutionData=logging.get("include_execution_data"),
                                      Destinations=[{"CloudWatchLogsLogGroup": {"LogGroupArn": destination}}]
                                      if destination else None) if logging.get("level") not in (None, "OFF") else None,
    )


def _function(values: dict[str, Any]) -> dict[str, Any]:
    return _resource(
        "AWS::Lambda::Function", FunctionName=values.get("function_name"), Handler=values.get("handler"),
        Runtime=values.get("runtime"), Timeout=values.get("timeout"), Code=values.get("filename"),
        Environment={"Variables": _first(values, "environment").get("variables") or {}},
    )


def _queue(values: dict[str, Any]) -> dict[str, Any]:
    return _resource("AWS::SQS::Queue", QueueName=values.get("name"), FifoQueue=values.get("fifo_queue") or None,
                     ContentBasedDeduplication=values.get("content_based_deduplication") or None,
                     VisibilityTimeout=values.get("visibility_timeout_seconds"),
                     DelaySeconds=values.get("delay_seconds") or None)


def _topic(values: dict[str, Any]) -> dict[str, Any]:
    return _resource("AWS::SNS::Topic", TopicName=values.get("name"), FifoTopic=values.get("fifo_topic") or None)


def _key_schema(hash_key: Any, range_key: Any) -> list[dict[str, str]]:
    return [{"AttributeName": hash_key, "KeyType": "HASH"}] + \
        ([{"AttributeName": range_key, "KeyType": "RANGE"}] if range_key else [])


def _table(values: dict[str, Any]) -> dict[str, Any]:
    indexes = [{"IndexName": index["name"], "KeySchema": _key_schema(index["hash_key"], index.get("range_key")),
                "Projection": _present(ProjectionType=index.get("projection_type"),
                                       NonKeyAttributes=index.get("non_key_attributes"))}
               for index in values.get("global_secondary_index") or []]
    return _resource(
        "AWS::DynamoDB::Table", TableName=values.get("name"), BillingMode=values.get("billing_mode"),
        KeySchema=_key_schema(values.get("hash_key"), values.get("range_key")),
        AttributeDefinitions=[{"AttributeName": attribute["name"], "AttributeType": attribute["type"]}
                              for attribute in values.get("attribute") or []],
        GlobalSecondaryIndexes=indexes,
        ProvisionedThroughput=None if values.get("billing_mode") == "PAY_PER_REQUEST" else _present(
            ReadCapacityUnits=values.get("read_capacity"), WriteCapacityUnits=values.get("write_capacity")),
        StreamSpecification={"StreamViewType": values.get("stream_view_type")} if values.get("stream_enabled") else None,
    )


_CONVERTERS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "aws_sfn_state_machine": _state_machine,
    "aws_sfn_activity": lambda values: _resource("AWS::StepFunctions::Activity", Name=values.get("name")),
    "aws_lambda_function": _function,
    "aws_sqs_queue": _queue,
    "aws_sns_topic": _topic,
    "aws_dynamodb_table": _table,
    "aws_s3_bucket": lambda values: _resource("AWS::S3::Bucket", BucketName=values.get("bucket")),
    "aws_cloudwatch_event_bus": lambda values: _resource("AWS::Events::EventBus", Name=values.get("name")),
    "aws_secretsmanager_secret": lambda values: _resource("AWS::SecretsManager::Secret", Name=values.get("name")),
    "aws_cloudwatch_log_group": lambda values: _resource("AWS::Logs::LogGroup", LogGroupName=values.get("name")),
}
