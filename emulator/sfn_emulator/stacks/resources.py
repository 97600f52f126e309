"""The resources integrations use, made in the emulator's moto backends under the names the
definitions will use: SQS queues (FIFO too), SNS topics, DynamoDB tables (keys, indexes, streams),
S3 buckets, EventBridge buses and rules, EventBridge Scheduler schedules and their groups, Secrets
Manager secrets and CloudWatch Logs groups (for machines' logging configurations). Rules and
schedules that target state machines start them on the emulator's clock (`sfn_emulator.eventbridge`). Each maker answers the identity the service gave (a queue's URL, a
table's stream ARN, a secret's ARN with its random suffix)."""

from __future__ import annotations

import json
from typing import Any, Callable, Mapping

from sfn_emulator.stacks.intrinsics import Identity
from sfn_emulator.stacks.physical import Place

Clients = Callable[[str], Any]

_QUEUE_ATTRIBUTES = ("FifoQueue", "ContentBasedDeduplication", "DeduplicationScope", "FifoThroughputLimit",
                     "VisibilityTimeout", "MessageRetentionPeriod", "DelaySeconds", "MaximumMessageSize",
                     "ReceiveMessageWaitTimeSeconds", "RedrivePolicy", "RedriveAllowPolicy")
_TOPIC_ATTRIBUTES = ("FifoTopic", "ContentBasedDeduplication", "DisplayName")
_ALREADY_THERE = {"ResourceInUseException", "ResourceAlreadyExistsException", "ResourceExistsException",
                  "BucketAlreadyOwnedByYou"}


def attribute_text(value: Any) -> str:
    """A value as the text an attribute, variable or substitution takes (booleans lower case, objects as JSON)."""
    if isinstance(value, bool):
        return str(value).lower()
    return json.dumps(value) if isinstance(value, (dict, list)) else str(value)


def _queue(clients: Clients, name: str, properties: Mapping[str, Any], identity: Identity, place: Place) -> Identity:
    attributes = {key: attribute_text(properties[key]) for key in _QUEUE_ATTRIBUTES if key in properties}
    url = clients("sqs").create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
    return Identity(url, {**identity.attributes, "QueueUrl": url})


def _topic(clients: Clients, name: str, properties: Mapping[str, Any], identity: Identity, place: Place) -> Identity:
    attributes = {key: attribute_text(properties[key]) for key in _TOPIC_ATTRIBUTES if key in properties}
    arn = clients("sns").create_topic(Name=name, Attributes=attributes)["TopicArn"]
    return Identity(arn, {**identity.attributes, "TopicArn": arn})


def _units(throughput: Any) -> dict[str, int]:
    throughput = throughput if isinstance(throughput, dict) else {}
    return {key: int(throughput.get(key, 5)) for key in ("ReadCapacityUnits", "WriteCapacityUnits")}


def _table(clients: Clients, name: str, properties: Mapping[str, Any], identity: Identity, place: Place) -> Identity:
    on_demand = properties.get("BillingMode") == "PAY_PER_REQUEST"
    request: dict[str, Any] = {"TableName": name, "KeySchema": properties.get("KeySchema", []),
                               "AttributeDefinitions": properties.get("AttributeDefinitions", []),
                               "BillingMode": "PAY_PER_REQUEST" if on_demand else "PROVISIONED"}
    if not on_demand:
        request["ProvisionedThroughput"] = _units(properties.get("ProvisionedThroughput"))
    indexes = []
    for index in properties.get("GlobalSecondaryIndexes") or []:
        index = {key: value for key, value in index.items() if key in ("IndexName", "KeySchema", "Projection")}
        indexes.append(index if on_demand else {**index, "ProvisionedThroughput": _units(index.get("ProvisionedThroughput"))})
    if indexes:
        request["GlobalSecondaryIndexes"] = indexes
    local = [{key: value for key, value in index.items() if key in ("IndexName", "KeySchema", "Projection")}
             for index in properties.get("LocalSecondaryIndexes") or []]
    if local:
        request["LocalSecondaryIndexes"] = local
    stream = properties.get("StreamSpecification")
    if isinstance(stream, dict) and stream.get("StreamViewType"):
        request["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": stream["StreamViewType"]}
    client = clients("dynamodb")
    try:
        description = client.create_table(**request)["TableDescription"]
    except client.exceptions.ResourceInUseException:
        description = client.describe_table(TableName=name)["Table"]
    attributes = {**identity.attributes, "Arn": description["TableArn"]}
    if description.get("LatestStreamArn"):
        attributes["StreamArn"] = description["LatestStreamArn"]
    return Identity(name, attributes)


def _bucket(clients: Clients, name: str, properties: Mapping[str, Any], identity: Identity, place: Place) -> Identity:
    client = clients("s3")
    request: dict[str, Any] = {"Bucket": name}
    if place.region != "us-east-1":
        request["CreateBucketConfiguration"] = {"LocationConstraint": place.region}
    try:
        client.create_bucket(**request)
    except client.exceptions.BucketAlreadyOwnedByYou:
        pass
    return identity


def _event_bus(clients: Clients, name: str, properties: Mapping[str, Any], identity: Identity, place: Place) -> Identity:
    client = clients("events")
    if name != "default":
        try:
            client.create_event_bus(Name=name)
        except client.exceptions.ResourceAlreadyExistsException:
            pass
    return Identity(name, {**identity.attributes, "Arn": client.describe_event_bus(Name=name)["Arn"]})


def _secret(clients: Clients, name: str, properties: Mapping[str, Any], identity: Identity, place: Place) -> Identity:
    client = clients("secretsmanager")
    value = properties.get("SecretString")
    generate = properties.get("GenerateSecretString")
    if value is None and isinstance(generate, dict):
        options = {key: generate[key] for key in ("PasswordLength", "ExcludeCharacters", "ExcludeNumbers",
                                                  "ExcludePunctuation", "ExcludeUppercase", "ExcludeLowercase",
                                                  "IncludeSpace", "RequireEachIncludedType") if key in generate}
        password = client.get_random_password(**options)["RandomPassword"]
        template, key = generate.get("SecretStringTemplate"), generate.get("GenerateStringKey")
        value = json.dumps({**json.loads(template), key: password}) if template and key else password
    try:
        arn = client.create_secret(Name=name, SecretString=str(value if value is not None else ""))["ARN"]
    except client.exceptions.ResourceExistsException:
        arn = client.describe_secret(SecretId=name)["ARN"]
    return Identity(arn, {"Id": arn})


def _log_group(clients: Clients, name: str, properties: Mapping[str, Any], identity: Identity, place: Place) -> Identity:
    client = clients("logs")
    try:
        client.create_log_group(logGroupName=name)
    except client.exceptions.ResourceAlreadyExistsException:
        pass
    return identity


_RULE_KEYS = ("ScheduleExpression", "Description", "State", "RoleArn", "EventBusName")
_TARGET_KEYS = ("Id", "Arn", "RoleArn", "Input", "InputPath", "InputTransformer", "DeadLetterConfig", "RetryPolicy",
                "SqsParameters", "HttpParameters")
_SCHEDULE_KEYS = ("GroupName", "ScheduleExpressionTimezone", "StartDate", "EndDate", "State", "Description",
                  "ActionAfterCompletion")


def _rule(clients: Clients, name: str, properties: Mapping[str, Any], identity: Identity, place: Place) -> Identity:
    client = clients("events")
    request: dict[str, Any] = {"Name": name, **{key: properties[key] for key in _RULE_KEYS if key in properties}}
    pattern = properties.get("EventPattern")
    if pattern is not None:
        request["EventPattern"] = pattern if isinstance(pattern, str) else json.dumps(pattern)
    client.put_rule(**request)
    targets = [{key: target[key] for key in _TARGET_KEYS if key in target}
               for target in properties.get("Targets") or [] if isinstance(target, dict)]
    if targets:
        bus = {"EventBusName": request["EventBusName"]} if "EventBusName" in request else {}
        client.put_targets(Rule=name, Targets=targets, **bus)
    return identity


def _schedule(clients: Clients, name: str, properties: Mapping[str, Any], identity: Identity, place: Place) -> Identity:
    client = clients("scheduler")
    request: dict[str, Any] = {"Name": name, "ScheduleExpression": properties.get("ScheduleExpression"),
                               "FlexibleTimeWindow": properties.get("FlexibleTimeWindow") or {"Mode": "OFF"},
                               "Target": properties.get("Target") or {},
                               **{key: properties[key] for key in _SCHEDULE_KEYS if key in properties}}
    try:
        client.create_schedule(**request)
    except client.exceptions.ConflictException:
        pass
    return identity


def _schedule_group(clients: Clients, name: str, properties: Mapping[str, Any], identity: Identity,
                    place: Place) -> Identity:
    client = clients("scheduler")
    try:
        client.create_schedule_group(Name=name)
    except client.exceptions.ConflictException:
        pass
    return identity


MAKERS: Mapping[str, Callable[[Clients, str, Mapping[str, Any], Identity, Place], Identity]] = {
    "AWS::SQS::Queue": _queue, "AWS::SNS::Topic": _topic, "AWS::DynamoDB::Table": _table,
    "AWS::S3::Bucket": _bucket, "AWS::Events::EventBus": _event_bus, "AWS::SecretsManager::Secret": _secret,
    "AWS::Logs::LogGroup": _log_group, "AWS::Events::Rule": _rule, "AWS::Scheduler::Schedule": _schedule,
    "AWS::Scheduler::ScheduleGroup": _schedule_group,
}
