"""Task integrations beside the application's own `mock_aws`: moto's handler, which moto adds to every
botocore session, must not answer the emulator's requests a second time (botocore calls every
before-send handler): one SendMessage Task is one message."""

from __future__ import annotations

import json
from collections.abc import Iterator

import boto3
import pytest
from moto import mock_aws

from sfn_emulator.config import Settings
from sfn_emulator.inprocess import intercept
from sfn_emulator.resources.aws.reset import reset_moto_backends
from sfn_emulator.runtime import Emulator

ACCOUNT = "123456789012"  # mock_aws's account for any credentials


@pytest.fixture
def local(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                        "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)
    with mock_aws(), Emulator(Settings()) as emulator, intercept(emulator):
        yield emulator
    reset_moto_backends(ACCOUNT)


def test_a_send_message_task_sends_one_message(local: Emulator) -> None:
    sqs, sfn = boto3.client("sqs"), boto3.client("stepfunctions")
    url = sqs.create_queue(QueueName="once")["QueueUrl"]
    definition = {"StartAt": "Send", "States": {"Send": {
        "Type": "Task", "Resource": "arn:aws:states:::sqs:sendMessage", "End": True,
        "Parameters": {"QueueUrl": url, "MessageBody": "hello"}}}}
    machine = sfn.create_state_machine(name="sender", definition=json.dumps(definition),
                                       roleArn=f"arn:aws:iam::{ACCOUNT}:role/r")["stateMachineArn"]
    execution = sfn.start_execution(stateMachineArn=machine)["executionArn"]
    assert local.clock.run_until_idle(60)
    assert sfn.describe_execution(executionArn=execution)["status"] == "SUCCEEDED"
    messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert [message["Body"] for message in messages] == ["hello"]
