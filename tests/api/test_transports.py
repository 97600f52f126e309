"""The in-process path and the HTTP path answer alike: every test here runs on both.

`http`: a boto3 client pointed at the session server's URL. `inprocess`: a boto3 client with no
endpoint at all (AWS's own hosts, botocore's default host prefixes) while `sfn_emulator.inprocess.intercept`
hands its requests to the same emulator. Each test acts in an account of its own.
"""

from __future__ import annotations

import json
import socket
import uuid
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError, EndpointConnectionError
from helpers.clients import make_client
from moto import mock_aws

from sfn_emulator.inprocess import intercept, is_step_functions_endpoint

PASS = {"StartAt": "Greet", "States": {"Greet": {"Type": "Pass", "Parameters": {"hello.$": "$.name"}, "End": True}}}
FAIL = {"StartAt": "Check", "States": {"Check": {"Type": "Fail", "Error": "Invalid", "Cause": "no name"}}}


def new_account() -> str:
    return str(uuid.uuid4().int % 10**12).zfill(12)


def role(account: str) -> str:
    return f"arn:aws:iam::{account}:role/sfn"


@pytest.fixture(params=["http", "inprocess"])
def transport(request: pytest.FixtureRequest, emulator_server: Any) -> Iterator[tuple[Any, str]]:
    """(a Step Functions client, its account), over HTTP or in-process."""
    account = new_account()
    if request.param == "http":
        yield make_client(emulator_server.endpoint_url, access_key=account), account
        return
    session = boto3.session.Session(aws_access_key_id="anything", aws_secret_access_key="x", region_name="us-east-1")
    with intercept(emulator_server.emulator, account=account):
        yield session.client("stepfunctions", config=Config(retries={"max_attempts": 0})), account


def create(sfn: Any, account: str, definition: dict[str, Any], **options: Any) -> str:
    name = f"m{uuid.uuid4().hex[:10]}"
    answer = sfn.create_state_machine(name=name, definition=json.dumps(definition), roleArn=role(account), **options)
    return str(answer["stateMachineArn"])


def error_of(call: Any, **params: Any) -> tuple[str, str]:
    with pytest.raises(ClientError) as raised:
        call(**params)
    return raised.value.response["Error"]["Code"], raised.value.response["Error"]["Message"]


def test_a_state_machine_is_created_in_the_callers_account(transport: tuple[Any, str]) -> None:
    sfn, account = transport
    arn = create(sfn, account, PASS)
    assert arn.startswith(f"arn:aws:states:us-east-1:{account}:stateMachine:")
    assert [machine["stateMachineArn"] for machine in sfn.list_state_machines()["stateMachines"]] == [arn]


def test_an_execution_runs_and_its_history_is_read(transport: tuple[Any, str], emulator_server: Any) -> None:
    sfn, account = transport
    execution = sfn.start_execution(stateMachineArn=create(sfn, account, PASS), input='{"name": "Ada"}')
    emulator_server.emulator.clock.run_until_idle(10)
    described = sfn.describe_execution(executionArn=execution["executionArn"])
    assert (described["status"], json.loads(described["output"])) == ("SUCCEEDED", {"hello": "Ada"})
    events = sfn.get_execution_history(executionArn=execution["executionArn"])["events"]
    assert [event["type"] for event in events] == [
        "ExecutionStarted", "PassStateEntered", "PassStateExited", "ExecutionSucceeded"
    ]
    assert [event["id"] for event in events] == [1, 2, 3, 4]


def test_a_failed_execution_reports_its_error_and_cause(transport: tuple[Any, str], emulator_server: Any) -> None:
    sfn, account = transport
    execution = sfn.start_execution(stateMachineArn=create(sfn, account, FAIL))
    emulator_server.emulator.clock.run_until_idle(10)
    described = sfn.describe_execution(executionArn=execution["executionArn"])
    assert (described["status"], described["error"], described["cause"]) == ("FAILED", "Invalid", "no name")


def test_start_sync_execution_answers_with_the_ended_execution(transport: tuple[Any, str]) -> None:
    sfn, account = transport
    machine = create(sfn, account, PASS, type="EXPRESS")
    answer = sfn.start_sync_execution(stateMachineArn=machine, input='{"name": "Bo"}')
    assert (answer["status"], json.loads(answer["output"])) == ("SUCCEEDED", {"hello": "Bo"})


def test_test_state_runs_one_state(transport: tuple[Any, str]) -> None:
    sfn, account = transport
    answer = sfn.test_state(definition=json.dumps(PASS["States"]["Greet"]), roleArn=role(account),
                            input='{"name": "Cy"}')
    assert (answer["status"], json.loads(answer["output"])) == ("SUCCEEDED", {"hello": "Cy"})


def test_an_unknown_state_machine_is_state_machine_does_not_exist(transport: tuple[Any, str]) -> None:
    sfn, account = transport
    arn = f"arn:aws:states:us-east-1:{account}:stateMachine:nothing"
    assert error_of(sfn.describe_state_machine, stateMachineArn=arn) == (
        "StateMachineDoesNotExist", f"State Machine Does Not Exist: '{arn}'"
    )


def test_a_request_outside_the_model_is_a_validation_exception(transport: tuple[Any, str]) -> None:
    sfn, _ = transport
    code, message = error_of(sfn.list_state_machines, maxResults=1001)
    assert code == "ValidationException"
    assert message.startswith("1 validation error detected: Value '1001' at 'maxResults' failed to satisfy constraint")


def test_a_broken_definition_is_invalid_definition(transport: tuple[Any, str]) -> None:
    sfn, account = transport
    broken = {"StartAt": "Nowhere", "States": {"A": {"Type": "Pass", "End": True}}}
    code, message = error_of(sfn.create_state_machine, name="broken", definition=json.dumps(broken),
                             roleArn=role(account))
    assert code == "InvalidDefinition"
    assert "MISSING_TRANSITION_TARGET" in message


class TestWhatInProcessModeLeavesAlone:
    def test_a_client_with_an_endpoint_url_goes_to_that_endpoint(self, emulator_server: Any) -> None:
        with socket.socket() as unused:  # bound, not listening: a connection there is refused
            unused.bind(("127.0.0.1", 0))
            endpoint = f"http://127.0.0.1:{unused.getsockname()[1]}"
            with intercept(emulator_server.emulator):
                with pytest.raises(EndpointConnectionError):
                    make_client(endpoint).list_state_machines()

    def test_other_services_go_on_to_moto_and_step_functions_too_after_the_block(self, emulator_server: Any) -> None:
        session = boto3.session.Session(aws_access_key_id="a", aws_secret_access_key="b", region_name="us-east-1")
        account = new_account()
        with mock_aws():
            sfn, sqs = session.client("stepfunctions"), session.client("sqs")
            with intercept(emulator_server.emulator, account=account):
                arn = create(sfn, account, PASS)
                queue = sqs.create_queue(QueueName="answered-by-moto")["QueueUrl"]
                assert [m["stateMachineArn"] for m in sfn.list_state_machines()["stateMachines"]] == [arn]
            assert sfn.list_state_machines()["stateMachines"] == []  # moto's own Step Functions
            assert sqs.list_queues()["QueueUrls"] == [queue]

    @pytest.mark.parametrize("url, intercepted", [
        ("https://states.us-east-1.amazonaws.com/", True),
        ("https://sync-states.eu-west-3.amazonaws.com/", True),
        ("https://states.cn-north-1.amazonaws.com.cn/", True),
        ("https://states-fips.us-gov-west-1.amazonaws.com/", True),
        ("http://localhost:8083/", False),
        ("https://sqs.us-east-1.amazonaws.com/", False),
        ("https://states.us-east-1.amazonaws.com.example.org/", False),
    ])
    def test_only_aws_step_functions_hosts_are_intercepted(self, url: str, intercepted: bool) -> None:
        assert is_step_functions_endpoint(url) is intercepted
