"""The names and ARNs CloudFormation gives resources, by type: what `Ref` and `Fn::GetAtt` answer.

A resource named in its template (`FunctionName`, `QueueName`, ...) has that name; otherwise
CloudFormation makes one from the stack name and logical id with a random suffix. Here the suffix is
drawn from the stack and logical id, so a stack loads under the same names every time."""

from __future__ import annotations

import base64
import hashlib
from typing import Any, Callable, Mapping

from msgspec import Struct

from sfn_emulator.protocol.partitions import partition_for
from sfn_emulator.stacks.intrinsics import Identity, url_suffix_of


class Place(Struct, frozen=True):
    """Where a resource is made: its stack, account and region."""

    stack: str
    account: str
    region: str

    @property
    def partition(self) -> str:
        return partition_for(self.region)

    def arn(self, service: str, resource: str, *, region: bool = True, account: bool = True) -> str:
        return (f"arn:{self.partition}:{service}:{self.region if region else ''}:"
                f"{self.account if account else ''}:{resource}")


def generated_name(place: Place, logical_id: str, limit: int, *, lower: bool = False, suffix: str = "") -> str:
    """`stack-LogicalId-SUFFIX`, cut to `limit` characters as CloudFormation cuts its names."""
    digest = base64.b32encode(hashlib.sha256(f"{place.stack}/{logical_id}".encode()).digest()).decode()[:12]
    room = limit - len(digest) - len(suffix) - 2
    stem = f"{place.stack}-{logical_id}"[:room]
    name = f"{stem}-{digest}{suffix}"
    return name.lower() if lower else name


# Per type: the property that names it, and how long a generated name may be.
NAME_PROPERTIES: Mapping[str, tuple[str, int]] = {
    "AWS::Lambda::Function": ("FunctionName", 64),
    "AWS::Lambda::LayerVersion": ("LayerName", 64),
    "AWS::Lambda::Version": ("FunctionName", 140),  # the version's function, by name or ARN
    "AWS::StepFunctions::StateMachine": ("StateMachineName", 80),
    "AWS::StepFunctions::Activity": ("Name", 80),
    "AWS::SQS::Queue": ("QueueName", 80),
    "AWS::SNS::Topic": ("TopicName", 256),
    "AWS::DynamoDB::Table": ("TableName", 255),
    "AWS::S3::Bucket": ("BucketName", 63),
    "AWS::Events::EventBus": ("Name", 256),
    "AWS::SecretsManager::Secret": ("Name", 256),
    "AWS::IAM::Role": ("RoleName", 64),
    "AWS::Logs::LogGroup": ("LogGroupName", 512),
    "AWS::Events::Rule": ("Name", 64),
    "AWS::Scheduler::Schedule": ("Name", 64),
    "AWS::Scheduler::ScheduleGroup": ("Name", 64),
}


def resource_name(kind: str, logical_id: str, properties: Mapping[str, Any], place: Place) -> str:
    """The physical name of a resource of type `kind`."""
    property_name, limit = NAME_PROPERTIES.get(kind, ("", 128))
    given = properties.get(property_name) if property_name else None
    if isinstance(given, str) and given:
        return given
    if kind == "AWS::StepFunctions::StateMachine":
        return logical_id  # the rule: a machine without StateMachineName is named by its logical id
    fifo = str(properties.get("FifoQueue" if kind == "AWS::SQS::Queue" else "FifoTopic", "")).lower() == "true"
    suffix = ".fifo" if fifo and kind in ("AWS::SQS::Queue", "AWS::SNS::Topic") else ""
    return generated_name(place, logical_id, limit, lower=kind == "AWS::S3::Bucket", suffix=suffix)


def _function(name: str, place: Place, properties: Mapping[str, Any]) -> Identity:
    return Identity(name, {"Arn": place.arn("lambda", f"function:{name}")})


def _state_machine(name: str, place: Place, properties: Mapping[str, Any]) -> Identity:
    arn = place.arn("states", f"stateMachine:{name}")
    return Identity(arn, {"Arn": arn, "Name": name})


def _activity(name: str, place: Place, properties: Mapping[str, Any]) -> Identity:
    arn = place.arn("states", f"activity:{name}")
    return Identity(arn, {"Arn": arn, "Name": name})


def _queue(name: str, place: Place, properties: Mapping[str, Any]) -> Identity:
    url = f"https://sqs.{place.region}.{url_suffix_of(place.region)}/{place.account}/{name}"
    return Identity(url, {"Arn": place.arn("sqs", name), "QueueName": name, "QueueUrl": url})


def _topic(name: str, place: Place, properties: Mapping[str, Any]) -> Identity:
    arn = place.arn("sns", name)
    return Identity(arn, {"TopicArn": arn, "TopicName": name})


def _table(name: str, place: Place, properties: Mapping[str, Any]) -> Identity:
    return Identity(name, {"Arn": place.arn("dynamodb", f"table/{name}")})


def _bucket(name: str, place: Place, properties: Mapping[str, Any]) -> Identity:
    suffix = url_suffix_of(place.region)
    return Identity(name, {"Arn": f"arn:{place.partition}:s3:::{name}", "DomainName": f"{name}.s3.{suffix}",
                           "RegionalDomainName": f"{name}.s3.{place.region}.{suffix}",
                           "WebsiteURL": f"http://{name}.s3-website-{place.region}.{suffix}"})


def _event_bus(name: str, place: Place, properties: Mapping[str, Any]) -> Identity:
    return Identity(name, {"Arn": place.arn("events", f"event-bus/{name}"), "Name": name})


def _secret(name: str, place: Place, properties: Mapping[str, Any]) -> Identity:
    arn = place.arn("secretsmanager", f"secret:{name}")  # the loader answers the ARN with Secrets Manager's suffix
    return Identity(arn, {"Id": arn})


def _role(name: str, place: Place, properties: Mapping[str, Any]) -> Identity:
    path = properties.get("Path") if isinstance(properties.get("Path"), str) else "/"
    return Identity(name, {"Arn": place.arn("iam", f"role{path}{name}", region=False),
                           "RoleId": "AROA" + hashlib.sha256(name.encode()).hexdigest()[:17].upper()})


def _log_group(name: str, place: Place, properties: Mapping[str, Any]) -> Identity:
    return Identity(name, {"Arn": place.arn("logs", f"log-group:{name}:*")})


def _rule(name: str, place: Place, properties: Mapping[str, Any]) -> Identity:
    return Identity(name, {"Arn": place.arn("events", f"rule/{name}")})


def _schedule(name: str, place: Place, properties: Mapping[str, Any]) -> Identity:
    group = properties.get("GroupName") if isinstance(properties.get("GroupName"), str) else "default"
    return Identity(name, {"Arn": place.arn("scheduler", f"schedule/{group}/{name}")})


def _schedule_group(name: str, place: Place, properties: Mapping[str, Any]) -> Identity:
    return Identity(name, {"Arn": place.arn("scheduler", f"schedule-group/{name}")})


def _version(name: str, place: Place, properties: Mapping[str, Any]) -> Identity:
    """A published version (the first, `1`: each load publishes the code once)."""
    function = name if name.startswith("arn:") else place.arn("lambda", f"function:{name}")
    return Identity(f"{function}:1", {"Version": "1"})


def _layer(name: str, place: Place, properties: Mapping[str, Any]) -> Identity:
    return Identity(place.arn("lambda", f"layer:{name}:1"))


IDENTITIES: Mapping[str, Callable[[str, Place, Mapping[str, Any]], Identity]] = {
    "AWS::Lambda::Function": _function, "AWS::StepFunctions::StateMachine": _state_machine,
    "AWS::StepFunctions::Activity": _activity, "AWS::SQS::Queue": _queue, "AWS::SNS::Topic": _topic,
    "AWS::DynamoDB::Table": _table, "AWS::S3::Bucket": _bucket, "AWS::Events::EventBus": _event_bus,
    "AWS::SecretsManager::Secret": _secret, "AWS::IAM::Role": _role, "AWS::Logs::LogGroup": _log_group,
    "AWS::Events::Rule": _rule, "AWS::Scheduler::Schedule": _schedule,
    "AWS::Scheduler::ScheduleGroup": _schedule_group, "AWS::Lambda::LayerVersion": _layer, "AWS::Lambda::Version": _version,
}


def identity_of(kind: str, logical_id: str, properties: Mapping[str, Any], place: Place) -> Identity:
    """What `Ref` and `Fn::GetAtt` answer for a resource; a type not listed answers its name to
    `Ref` and no attributes."""
    name = resource_name(kind, logical_id, properties, place)
    build = IDENTITIES.get(kind)
    return build(name, place, properties) if build is not None else Identity(name)
