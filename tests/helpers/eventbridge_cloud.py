"""What the EventBridge tests share: boto3 clients of any service on an emulator's endpoint, in an
account of the test's own, and a queue that collects what a rule delivers (the fixtures `new_cloud`
and `cloud`, given to tests by tests/eventbridge/conftest.py)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any, Callable

import boto3
import pytest
from botocore.config import Config

from sfn_emulator.resources.aws.reset import reset_moto_backends

REGION = "us-east-1"
START = datetime(2024, 2, 25, tzinfo=timezone.utc)
_accounts = itertools.count(330000000001)


class Cloud:
    """Clients of the emulator's endpoint, all acting in one account."""

    def __init__(self, endpoint_url: str, account: str) -> None:
        self.endpoint_url = endpoint_url
        self.account = account
        self._session = boto3.session.Session(aws_access_key_id=account, aws_secret_access_key="testing",
                                              region_name=REGION)

    def client(self, service: str) -> Any:
        return self._session.client(service, endpoint_url=self.endpoint_url,
                                    config=Config(retries={"max_attempts": 0}, inject_host_prefix=False))

    def arn(self, service: str, resource: str) -> str:
        return f"arn:aws:{service}:{REGION}:{self.account}:{resource}"

    @property
    def role(self) -> str:
        return f"arn:aws:iam::{self.account}:role/events"

    def machine(self, name: str, definition: dict[str, Any], **options: Any) -> str:
        return self.client("stepfunctions").create_state_machine(
            name=name, definition=json.dumps(definition), roleArn=self.role, **options)["stateMachineArn"]

    def queue(self, name: str) -> tuple[str, str]:
        """A new queue: (URL, ARN)."""
        sqs = self.client("sqs")
        url = sqs.create_queue(QueueName=name)["QueueUrl"]
        return url, sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]

    def messages(self, url: str) -> list[dict[str, Any]]:
        """Every message on the queue (read once), bodies parsed where they are JSON."""
        sqs, read = self.client("sqs"), []
        while True:
            batch = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, MessageAttributeNames=["All"]).get("Messages", [])
            if not batch:
                return read
            for message in batch:
                sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
                try:
                    message["Body"] = json.loads(message["Body"])
                except ValueError:
                    pass
                read.append(message)

    def rule(self, name: str, targets: list[dict[str, Any]], **rule: Any) -> None:
        events = self.client("events")
        events.put_rule(Name=name, **rule)
        events.put_targets(Rule=name, Targets=[{"Id": str(index), **target} for index, target in enumerate(targets)])


@pytest.fixture
def new_cloud() -> Iterator[Callable[[str], Cloud]]:
    """Clients for an endpoint, in an account no other test uses; its rules, schedules and queues are
    forgotten after the test (moto's backends are the process's)."""
    made: list[Cloud] = []

    def new(endpoint_url: str) -> Cloud:
        made.append(Cloud(endpoint_url, str(next(_accounts))))
        return made[-1]

    yield new
    for cloud in made:
        reset_moto_backends(cloud.account)


@pytest.fixture
def cloud(emulator_server: Any, new_cloud: Callable[[str], Cloud]) -> Iterator[Cloud]:
    yield new_cloud(emulator_server.endpoint_url)
