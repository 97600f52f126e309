"""Step Functions ARNs: building the ones we hand out, and reading the ones clients send.

Reading follows AWS's order of checks, so a bad ARN gets AWS's words: first the prefix
(`arn:<partition>:states:<region>:<account>:`), then the resource type (must be one the operation
accepts), then the shape of the resource part. AWS's texts for the first two are on record:
"Invalid Arn: 'Invalid ARN prefix: X'", "Invalid Arn: 'Resource type can not be empty: X'" and
"Invalid Arn: 'Resource type not valid in this context: T'". AWS's text for a malformed resource
part is not on record; we answer "Invalid Arn: 'X'".

A state machine ARN whose name has a `/LABEL` names the machine a Distributed Map labelled LABEL
runs its children as. Only DescribeStateMachine reads such an ARN; every other operation refuses it
with a ValidationException whose reason is API_DOES_NOT_SUPPORT_LABELED_ARNS (API reference,
StartExecution and UpdateStateMachine: "If you provide a qualified state machine ARN that refers to
a Distributed Map state, the request fails with ValidationException"; the message is ours).
"""

from __future__ import annotations

from typing import Collection

from msgspec import Struct

from sfn_emulator.asl.arns import split_arn
from sfn_emulator.protocol.partitions import partition_for
from sfn_emulator.service.errors import LABELED_ARNS_NOT_SUPPORTED, InvalidArn, ValidationException, invalid_request

STATE_MACHINE = "stateMachine"
EXECUTION = "execution"
EXPRESS = "express"
ACTIVITY = "activity"
MAP_RUN = "mapRun"


def build(region: str, account: str, resource_type: str, *parts: str) -> str:
    """An ARN in the `states` service: `arn:<partition>:states:<region>:<account>:<type>:<parts...>`."""
    return ":".join(("arn", partition_for(region), "states", region, account, resource_type, *parts))


# gc=False: a record of strings, numbers and times (and tuples of them) can never be part of a reference
# cycle, so the cycle collector need not track it.
class StatesArn(Struct, frozen=True, gc=False):
    """An ARN that passed the prefix and resource-type checks."""

    text: str
    partition: str
    region: str
    account: str
    resource_type: str
    resource: tuple[str, ...]  # the colon-separated parts after the resource type


def parse(text: str, allowed_types: Collection[str]) -> StatesArn:
    """Check the prefix and the resource type; raises `InvalidArn` with AWS's message."""
    arn = split_arn(text)
    if arn is None or not arn.partition or arn.service != "states":
        raise InvalidArn(f"Invalid Arn: 'Invalid ARN prefix: {text}'")
    resource_type, *resource = arn.resource_parts
    if not resource_type:
        raise InvalidArn(f"Invalid Arn: 'Resource type can not be empty: {text}'")
    if resource_type not in allowed_types:
        raise InvalidArn(f"Invalid Arn: 'Resource type not valid in this context: {resource_type.lower()}'")
    return StatesArn(text, arn.partition, arn.region, arn.account, resource_type, tuple(resource))


def _labeled(text: str) -> ValidationException:
    return invalid_request(f"This API does not support labeled ARNs: '{text}'", LABELED_ARNS_NOT_SUPPORTED)


def malformed(text: str) -> InvalidArn:
    return InvalidArn(f"Invalid Arn: '{text}'")


class MachineRef(Struct, frozen=True, gc=False):
    """A state machine ARN, possibly qualified by a version number or an alias name."""

    arn: str  # as given, without a mock test case suffix
    base_arn: str  # the unqualified state machine ARN
    name: str
    version: int | None = None
    alias: str | None = None
    test_case: str | None = None  # from `stateMachineArn#CASE` (mocked runs)

    @property
    def qualified(self) -> bool:
        return self.version is not None or self.alias is not None


def state_machine(text: str, *, allow_test_case: bool = False, allow_label: bool = False) -> MachineRef:
    """Read `...:stateMachine:NAME`, `...:stateMachine:NAME:N` (version) or `...:NAME:ALIAS`, and with
    `allow_label` `...:stateMachine:NAME/LABEL`."""
    test_case = None
    arn_text = text
    if allow_test_case and "#" in text:
        arn_text, test_case = text.split("#", 1)
        if not test_case:
            raise malformed(text)
    arn = parse(arn_text, (STATE_MACHINE,))
    if not 1 <= len(arn.resource) <= 2 or not all(arn.resource):
        raise malformed(text)
    name = arn.resource[0]
    if "/" in name and not allow_label:  # (a name never has a slash: `names` refuses it)
        raise _labeled(text)
    base_arn = ":".join(("arn", arn.partition, "states", arn.region, arn.account, STATE_MACHINE, name))
    if len(arn.resource) == 1:
        return MachineRef(arn_text, base_arn, name, test_case=test_case)
    qualifier = arn.resource[1]
    if qualifier.isdigit():
        return MachineRef(arn_text, base_arn, name, version=int(qualifier), test_case=test_case)
    return MachineRef(arn_text, base_arn, name, alias=qualifier, test_case=test_case)


def execution(text: str) -> StatesArn:
    """Read a STANDARD execution ARN (`...:execution:MACHINE:NAME`); an EXPRESS one
    (`...:express:MACHINE:NAME:ID`) is refused as AWS does, by its resource type."""
    arn = parse(text, (EXECUTION,))
    if len(arn.resource) != 2 or not all(arn.resource):
        raise malformed(text)
    return arn


def activity(text: str) -> StatesArn:
    arn = parse(text, (ACTIVITY,))
    if len(arn.resource) != 1 or not arn.resource[0]:
        raise malformed(text)
    return arn


def map_run(text: str) -> StatesArn:
    """Read `...:mapRun:MACHINE/LABEL:ID`."""
    arn = parse(text, (MAP_RUN,))
    if len(arn.resource) != 2 or not all(arn.resource) or "/" not in arn.resource[0]:
        raise malformed(text)
    return arn


def taggable(text: str) -> StatesArn:
    """Read the ARN of a resource that carries tags: a state machine or an activity."""
    arn = parse(text, (STATE_MACHINE, ACTIVITY))
    if not arn.resource or not all(arn.resource):
        raise malformed(text)
    if arn.resource_type == STATE_MACHINE and "/" in arn.resource[0]:
        raise _labeled(text)
    return arn


def role(text: str) -> str:
    """Check that `text` is an IAM role ARN (`arn:<partition>:iam::<account>:role/<name>`)."""
    arn = split_arn(text)
    if arn is None or not arn.partition:
        raise InvalidArn(f"Invalid Arn: 'Invalid ARN prefix: {text}'")
    role_name = arn.resource_parts[0].removeprefix("role/")
    if arn.service != "iam" or not arn.resource.startswith("role/") or not role_name:
        raise malformed(text)
    return text
