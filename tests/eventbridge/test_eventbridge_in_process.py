"""In-process: the application's own boto3 clients (no endpoint_url), Step Functions answered by the
emulator and the other services by moto's `mock_aws`, see the same events and schedules as over HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta

import boto3
import pytest
from helpers.eventbridge_cloud import START
from moto import mock_aws

from sfn_emulator.config import Settings
from sfn_emulator.inprocess import intercept
from sfn_emulator.resources.aws.reset import reset_moto_backends
from sfn_emulator.runtime import Emulator

ACCOUNT = "123456789012"  # mock_aws's account for any credentials
ROLE = f"arn:aws:iam::{ACCOUNT}:role/events"
PASS = {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}


@pytest.fixture
def local(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                        "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)
    with mock_aws(), Emulator(Settings(clock="manual", clock_start=START)) as emulator, intercept(emulator):
        yield emulator
    reset_moto_backends(ACCOUNT)


def test_status_changes_reach_a_queue_and_a_schedule_starts_a_machine(local: Emulator) -> None:
    sfn, sqs, events = boto3.client("stepfunctions"), boto3.client("sqs"), boto3.client("events")
    url = sqs.create_queue(QueueName="in-process")["QueueUrl"]
    queue = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    events.put_rule(Name="succeeded", EventPattern=json.dumps({"source": ["aws.states"], "detail": {"status": ["SUCCEEDED"]}}))
    events.put_targets(Rule="succeeded", Targets=[{"Id": "q", "Arn": queue, "InputPath": "$.detail.name"}])
    machine = sfn.create_state_machine(name="hourly", definition=json.dumps(PASS), roleArn=ROLE)["stateMachineArn"]
    events.put_rule(Name="hourly", ScheduleExpression="rate(1 hour)")
    events.put_targets(Rule="hourly", Targets=[{"Id": "m", "Arn": machine}])
    local.clock.advance(timedelta(hours=3))
    assert local.clock.run_until_idle(60)
    runs = sfn.list_executions(stateMachineArn=machine)["executions"]
    assert sorted(run["startDate"] for run in runs) == [START + timedelta(hours=hours) for hours in (1, 2, 3)]
    bodies = [json.loads(message["Body"]) for message in
              sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]]
    assert sorted(bodies) == sorted(run["name"] for run in runs)
