"""Control-plane fields AWS always answers with, over HTTP with boto3: the encryption configuration of
state machines and activities, alias update dates, ARN partitions per region, and the rules for
publishing versions of an unchanged revision."""

from __future__ import annotations

import json
import uuid
from typing import Any

import botocore.session
import pytest
from botocore.exceptions import ClientError
from helpers.clients import make_client

ROLE = "arn:aws:iam::123456789012:role/sfn-role"
PASS = json.dumps({"StartAt": "A", "States": {"A": {"Type": "Pass", "End": True}}})
PASS_OTHER = json.dumps({"StartAt": "A", "States": {"A": {"Type": "Pass", "Result": 2, "End": True}}})
AWS_OWNED = {"type": "AWS_OWNED_KEY"}
CUSTOMER_KEY = {"type": "CUSTOMER_MANAGED_KMS_KEY", "kmsKeyId": "alias/sfn", "kmsDataKeyReusePeriodSeconds": 120}


@pytest.fixture
def unique() -> str:
    return f"t{uuid.uuid4().hex[:10]}"


def call(sfn: Any, operation: str, **params: Any) -> dict[str, Any]:
    answer = getattr(sfn, botocore.xform_name(operation))(**params)
    answer.pop("ResponseMetadata")
    return answer


def refused(sfn: Any, operation: str, **params: Any) -> str:
    with pytest.raises(ClientError) as error:
        getattr(sfn, botocore.xform_name(operation))(**params)
    return error.value.response["Error"]["Code"]


def _machine(sfn: Any, name: str, **params: Any) -> tuple[str, str]:
    """(the described ARN, DescribeStateMachine's encryptionConfiguration) of a new machine."""
    arn = call(sfn, "CreateStateMachine", name=name, definition=PASS, roleArn=ROLE, **params)["stateMachineArn"]
    return arn, call(sfn, "DescribeStateMachine", stateMachineArn=arn)["encryptionConfiguration"]


def _activity(sfn: Any, name: str, **params: Any) -> tuple[str, str]:
    arn = call(sfn, "CreateActivity", name=name, **params)["activityArn"]
    return arn, call(sfn, "DescribeActivity", activityArn=arn)["encryptionConfiguration"]


CREATORS = pytest.mark.parametrize("create", [_machine, _activity], ids=["state machine", "activity"])


@CREATORS
@pytest.mark.parametrize("given, described", [
    (None, AWS_OWNED),
    (AWS_OWNED, AWS_OWNED),
    (CUSTOMER_KEY, CUSTOMER_KEY),
])
def test_the_encryption_configuration_is_described_and_aws_owns_the_key_by_default(
        sfn: Any, unique: str, create: Any, given: Any, described: Any) -> None:
    params = {} if given is None else {"encryptionConfiguration": given}
    assert create(sfn, unique, **params)[1] == described


@CREATORS
@pytest.mark.parametrize("given, code", [
    ({"type": "CUSTOMER_MANAGED_KMS_KEY"}, "InvalidEncryptionConfiguration"),  # no key to encrypt with
    # the period's range is the service model's, checked before the service looks (boto3 itself refuses < 60)
    ({"type": "CUSTOMER_MANAGED_KMS_KEY", "kmsKeyId": "alias/sfn", "kmsDataKeyReusePeriodSeconds": 901},
     "ValidationException"),
])
def test_an_encryption_configuration_aws_cannot_use_is_refused(
        sfn: Any, unique: str, create: Any, given: Any, code: str) -> None:
    with pytest.raises(ClientError) as error:
        create(sfn, unique, encryptionConfiguration=given)
    assert error.value.response["Error"]["Code"] == code


def test_describe_state_machine_for_execution_has_the_encryption_configuration(sfn: Any, unique: str) -> None:
    arn, _ = _machine(sfn, unique)
    execution = call(sfn, "StartExecution", stateMachineArn=arn)["executionArn"]
    assert call(sfn, "DescribeStateMachineForExecution", executionArn=execution)["encryptionConfiguration"] == AWS_OWNED


def test_update_state_machine_changes_the_encryption_configuration_alone(sfn: Any, unique: str) -> None:
    arn, _ = _machine(sfn, unique)
    updated = call(sfn, "UpdateStateMachine", stateMachineArn=arn, encryptionConfiguration=CUSTOMER_KEY)
    described = call(sfn, "DescribeStateMachine", stateMachineArn=arn)
    assert (described["encryptionConfiguration"], described["revisionId"]) == (CUSTOMER_KEY, updated["revisionId"])
    assert refused(sfn, "UpdateStateMachine", stateMachineArn=arn,
                   encryptionConfiguration={"type": "CUSTOMER_MANAGED_KMS_KEY"}) == "InvalidEncryptionConfiguration"


def test_an_alias_has_an_update_date_from_its_creation_on(sfn: Any, unique: str) -> None:
    version = call(sfn, "CreateStateMachine", name=unique, definition=PASS, roleArn=ROLE,
                   publish=True)["stateMachineVersionArn"]
    routing = [{"stateMachineVersionArn": version, "weight": 100}]
    alias = call(sfn, "CreateStateMachineAlias", name="live", routingConfiguration=routing)
    described = call(sfn, "DescribeStateMachineAlias", stateMachineAliasArn=alias["stateMachineAliasArn"])
    assert described["updateDate"] == described["creationDate"] == alias["creationDate"]
    updated = call(sfn, "UpdateStateMachineAlias", stateMachineAliasArn=alias["stateMachineAliasArn"], description="d")
    described = call(sfn, "DescribeStateMachineAlias", stateMachineAliasArn=alias["stateMachineAliasArn"])
    assert described["updateDate"] == updated["updateDate"]


@pytest.mark.parametrize("region, partition", [
    ("us-east-1", "aws"),
    ("eu-central-2", "aws"),
    ("cn-north-1", "aws-cn"),
    ("cn-northwest-1", "aws-cn"),
    ("us-gov-west-1", "aws-us-gov"),
    ("us-iso-east-1", "aws-iso"),
    ("us-isob-east-1", "aws-iso-b"),
])
def test_every_arn_the_emulator_makes_is_in_the_region_s_partition(
        emulator_server: Any, unique: str, region: str, partition: str) -> None:
    sfn = make_client(emulator_server.endpoint_url, region=region)
    prefix = f"arn:{partition}:states:{region}:"
    created = call(sfn, "CreateStateMachine", name=unique, definition=PASS, roleArn=ROLE, publish=True)
    machine = created["stateMachineArn"]
    activity = call(sfn, "CreateActivity", name=unique)["activityArn"]
    alias = call(sfn, "CreateStateMachineAlias", name="live",
                 routingConfiguration=[{"stateMachineVersionArn": created["stateMachineVersionArn"], "weight": 100}])
    execution = call(sfn, "StartExecution", stateMachineArn=machine)["executionArn"]
    made = [machine, created["stateMachineVersionArn"], activity, alias["stateMachineAliasArn"], execution]
    assert all(arn.startswith(prefix) for arn in made), made
    # and the ARNs made are the ARNs accepted
    assert call(sfn, "DescribeExecution", executionArn=execution)["stateMachineArn"] == machine
    assert call(sfn, "DescribeActivity", activityArn=activity)["activityArn"] == activity
    assert call(sfn, "DescribeStateMachineAlias", stateMachineAliasArn=alias["stateMachineAliasArn"])["name"] == "live"


def test_publishing_an_unchanged_revision_returns_its_version_whatever_the_description(sfn: Any, unique: str) -> None:
    created = call(sfn, "CreateStateMachine", name=unique, definition=PASS, roleArn=ROLE, publish=True,
                   versionDescription="first")
    machine, first = created["stateMachineArn"], created["stateMachineVersionArn"]
    republished = call(sfn, "PublishStateMachineVersion", stateMachineArn=machine, description="second")
    assert republished["stateMachineVersionArn"] == first
    updated = call(sfn, "UpdateStateMachine", stateMachineArn=machine, definition=PASS, publish=True,
                   versionDescription="third")
    assert updated["stateMachineVersionArn"] == first
    assert call(sfn, "DescribeStateMachine", stateMachineArn=first)["description"] == "first"
    changed = call(sfn, "UpdateStateMachine", stateMachineArn=machine, definition=PASS_OTHER, publish=True,
                   versionDescription="fourth")
    assert changed["stateMachineVersionArn"] == f"{machine}:2"
    assert call(sfn, "DescribeStateMachine", stateMachineArn=changed["stateMachineVersionArn"])["description"] == "fourth"


def test_revision_id_initial_names_the_revision_of_a_machine_never_updated(sfn: Any, unique: str) -> None:
    machine = call(sfn, "CreateStateMachine", name=unique, definition=PASS, roleArn=ROLE)["stateMachineArn"]
    published = call(sfn, "PublishStateMachineVersion", stateMachineArn=machine, revisionId="INITIAL")
    assert published["stateMachineVersionArn"] == f"{machine}:1"
    revision = call(sfn, "UpdateStateMachine", stateMachineArn=machine, definition=PASS_OTHER)["revisionId"]
    assert refused(sfn, "PublishStateMachineVersion", stateMachineArn=machine, revisionId="INITIAL") == "ConflictException"
    published = call(sfn, "PublishStateMachineVersion", stateMachineArn=machine, revisionId=revision)
    assert published["stateMachineVersionArn"] == f"{machine}:2"
