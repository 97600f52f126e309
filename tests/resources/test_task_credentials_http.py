"""A Task's `Credentials`: Step Functions assumes the role it names and makes the call with it, so the
call acts in the role's account (cross-account access), and the history's TaskScheduled (or
LambdaFunctionScheduled) event records the role as `taskCredentials`. Over HTTP, with moto's backends
seen from each account with a boto3 client of that account."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import boto3
import pytest
from botocore.config import Config
from flow import ACCOUNT, Flow, Server, outcome, task
from helpers.clients import TEST_REGION

OTHER_ACCOUNT = "222222222222"
ROLE = f"arn:aws:iam::{OTHER_ACCOUNT}:role/cross-account"


@pytest.fixture(scope="module")
def flow(start_server: Callable[..., Server]) -> Flow:
    return Flow(start_server())


def s3_of(flow: Flow, account: str) -> Any:
    """An S3 client acting in `account` (the emulator takes a 12-digit access key id for the account)."""
    return boto3.client("s3", endpoint_url=flow.server.endpoint_url, region_name=TEST_REGION,
                        aws_access_key_id=account, aws_secret_access_key="testing",
                        config=Config(retries={"max_attempts": 0}, s3={"addressing_style": "path"}))


def bucket_names(flow: Flow, account: str) -> set[str]:
    return {bucket["Name"] for bucket in s3_of(flow, account).list_buckets()["Buckets"]}


@pytest.mark.parametrize("state", [
    {"Credentials": {"RoleArn": ROLE}, "Parameters": {"Bucket": "${bucket}"}},
    {"Credentials": {"RoleArn.$": "$.role"}, "Parameters": {"Bucket": "${bucket}"}},
    {"QueryLanguage": "JSONata", "Credentials": {"RoleArn": "{% $states.input.role %}"},
     "Arguments": {"Bucket": "${bucket}"}},
], ids=["JSONPath literal", "JSONPath path", "JSONata"])
def test_the_call_acts_in_the_assumed_roles_account(flow: Flow, state: dict[str, Any]) -> None:
    bucket = f"b{uuid.uuid4().hex[:12]}"
    state = json.loads(json.dumps(state).replace("${bucket}", bucket))
    execution = flow.start(flow.machine(task("arn:aws:states:::aws-sdk:s3:createBucket", **state)), {"role": ROLE})
    flow.settle()
    assert outcome(flow.describe(execution))["status"] == "SUCCEEDED"
    assert bucket in bucket_names(flow, OTHER_ACCOUNT)
    assert bucket not in bucket_names(flow, ACCOUNT)
    scheduled = next(event for event in flow.events(execution) if event["type"] == "TaskScheduled")
    assert scheduled["taskScheduledEventDetails"]["taskCredentials"] == {"roleArn": ROLE}


def test_without_credentials_the_call_acts_in_the_executions_account(flow: Flow) -> None:
    bucket = f"b{uuid.uuid4().hex[:12]}"
    execution = flow.start(flow.machine(task("arn:aws:states:::aws-sdk:s3:createBucket",
                                             Parameters={"Bucket": bucket})))
    flow.settle()
    assert outcome(flow.describe(execution))["status"] == "SUCCEEDED"
    assert bucket in bucket_names(flow, ACCOUNT)
    scheduled = next(event for event in flow.events(execution) if event["type"] == "TaskScheduled")
    assert "taskCredentials" not in scheduled["taskScheduledEventDetails"]


def test_a_lambda_function_task_records_the_role_it_assumed(flow: Flow) -> None:
    function = f"arn:aws:lambda:{TEST_REGION}:{OTHER_ACCOUNT}:function:nobody-serves-{uuid.uuid4().hex[:8]}"
    execution = flow.start(flow.machine(task(function, Credentials={"RoleArn": ROLE})))
    flow.settle()
    scheduled = next(event for event in flow.events(execution) if event["type"] == "LambdaFunctionScheduled")
    assert scheduled["lambdaFunctionScheduledEventDetails"]["taskCredentials"] == {"roleArn": ROLE}
