"""Other AWS services on the emulator's endpoint: routing, and one moto state shared with Task states."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.config import Config
from flask import Flask
from helpers.paths import FIXTURES_ROOT

from sfn_emulator.resources.aws.backends import MotoBackends
from sfn_emulator.wire.aws_passthrough import is_other_aws_service, mount_aws_passthrough
from sfn_emulator.wire.server import HttpServer

ROUTING = json.loads((FIXTURES_ROOT / "aws_services" / "routing.json").read_text())["cases"]
DEFAULT_ACCOUNT = "210999999999"
REGION = "us-east-1"
STEP_FUNCTIONS_ANSWER = '{"sentinel": "step functions app"}'


@pytest.mark.parametrize("case", ROUTING, ids=[case["name"] for case in ROUTING])
def test_routing(case: dict[str, Any]) -> None:
    assert is_other_aws_service(case["environ"]) is case["other_service"]


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    """A stand-in for the Step Functions app with the passthrough mounted, served on a free port."""
    app = Flask("step-functions-stand-in")
    app.add_url_rule("/", "api", lambda: (STEP_FUNCTIONS_ANSWER, 200, {"Content-Type": "application/x-amz-json-1.0"}),
                     methods=["POST"])
    mount_aws_passthrough(app, default_account=DEFAULT_ACCOUNT)
    server = HttpServer(app, "127.0.0.1", 0).start()
    yield server.endpoint_url
    server.stop()


def client(service: str, endpoint: str, access_key: str) -> Any:
    return boto3.session.Session().client(
        service, endpoint_url=endpoint, region_name=REGION, aws_access_key_id=access_key,
        aws_secret_access_key="secret", config=Config(retries={"max_attempts": 0}, s3={"addressing_style": "path"}))


def test_a_queue_made_over_http_is_the_queue_task_states_use(endpoint: str) -> None:
    account = "210888888881"
    sqs = client("sqs", endpoint, access_key=account)
    queue_url = sqs.create_queue(QueueName="over-http")["QueueUrl"]
    sqs.send_message(QueueUrl=queue_url, MessageBody="hello")
    local = MotoBackends().client("sqs", account=account, region=REGION)
    messages = local.receive_message(QueueUrl=f"https://sqs.{REGION}.amazonaws.com/{account}/over-http")["Messages"]
    assert [message["Body"] for message in messages] == ["hello"]


def test_objects_written_in_process_are_read_over_http(endpoint: str) -> None:
    account = "210888888882"
    MotoBackends().client("s3", account=account, region=REGION).create_bucket(Bucket="written-in-process")
    MotoBackends().client("s3", account=account, region=REGION).put_object(Bucket="written-in-process", Key="k", Body=b"v")
    s3 = client("s3", endpoint, access_key=account)
    assert s3.get_object(Bucket="written-in-process", Key="k")["Body"].read() == b"v"


def test_a_key_that_is_not_an_account_acts_in_the_default_account(endpoint: str) -> None:
    client("dynamodb", endpoint, access_key="AKIDEXAMPLE").create_table(
        TableName="in-default-account", KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST")
    tables = MotoBackends().client("dynamodb", account=DEFAULT_ACCOUNT, region=REGION).list_tables()["TableNames"]
    assert "in-default-account" in tables


def test_step_functions_requests_stay_with_the_step_functions_app(endpoint: str) -> None:
    captured: list[str] = []
    sfn = client("stepfunctions", endpoint, access_key="210888888883")
    sfn.meta.events.register("after-call", lambda http_response, **_: captured.append(http_response.text))
    sfn.list_state_machines()
    assert captured == [STEP_FUNCTIONS_ANSWER]
