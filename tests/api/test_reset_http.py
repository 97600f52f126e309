"""`POST /_emulator/reset` forgets Step Functions' and moto's resources, of every account or of one;
moto's own `POST /moto-api/reset` forgets Step Functions' too; `Emulator.reset()` in Python.

moto's backends are shared by a whole process, so resets of every account run against a server in a
process of its own; account-scoped resets run in-process, on accounts of their own."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.config import Config
from helpers.clients import make_client
from helpers.real_endpoints import emulator_process

PASS = json.dumps({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})
WAIT = json.dumps({"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 3600, "End": True}}})


def new_account() -> str:
    return f"{uuid.uuid4().int % 10**12:012d}"


def post(endpoint: str, path: str, body: bytes = b"") -> tuple[int, Any]:
    # JSON, as every write to /_emulator/* must be (a cross-site page cannot send it)
    request = urllib.request.Request(endpoint + path, data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def sqs(endpoint: str, account: str) -> Any:
    return boto3.client("sqs", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id=account,
                        aws_secret_access_key="testing", config=Config(retries={"max_attempts": 0}))


def resources(endpoint: str, account: str) -> dict[str, list[str]]:
    machines = make_client(endpoint, access_key=account).list_state_machines()["stateMachines"]
    queues = sqs(endpoint, account).list_queues().get("QueueUrls", [])
    return {"machines": [machine["name"] for machine in machines], "queues": [url.rsplit("/", 1)[1] for url in queues]}


def create(endpoint: str, account: str, name: str, definition: str = PASS) -> str:
    sfn = make_client(endpoint, access_key=account)
    arn = sfn.create_state_machine(name=name, definition=definition,
                                   roleArn=f"arn:aws:iam::{account}:role/r")["stateMachineArn"]
    sqs(endpoint, account).create_queue(QueueName=f"{name}-queue")
    return arn


@pytest.fixture(scope="module")
def own_process_server() -> Iterator[str]:
    with emulator_process() as endpoint:
        yield endpoint


def test_a_reset_of_one_account_leaves_the_others(emulator_server: Any) -> None:
    endpoint, reset, kept = emulator_server.endpoint_url, new_account(), new_account()
    create(endpoint, reset, "a")
    create(endpoint, kept, "b")
    assert post(endpoint, "/_emulator/reset", json.dumps({"account": reset}).encode()) == (200, {"reset": reset})
    assert resources(endpoint, reset) == {"machines": [], "queues": []}
    assert resources(endpoint, kept) == {"machines": ["b"], "queues": ["b-queue"]}


def test_emulator_reset_of_an_account_forgets_its_running_executions(emulator_server: Any) -> None:
    endpoint, account = emulator_server.endpoint_url, new_account()
    sfn = make_client(endpoint, access_key=account)
    machine = sfn.create_state_machine(name="w", definition=WAIT, roleArn=f"arn:aws:iam::{account}:role/r")
    execution = emulator_server.emulator.service.start_execution(
        stateMachineArn=machine["stateMachineArn"], account=account, region="us-east-1")
    emulator_server.emulator.reset(account)
    with pytest.raises(sfn.exceptions.ExecutionDoesNotExist):
        sfn.describe_execution(executionArn=execution["executionArn"])
    with pytest.raises(sfn.exceptions.StateMachineDoesNotExist):
        sfn.list_executions(stateMachineArn=machine["stateMachineArn"])


@pytest.mark.parametrize(("body", "message"), [
    (b"[]", 'The request body must be empty, {} or {"account": "<12-digit account id>"}'),
    (b'{"accounts": "123456789012"}', 'The request body must be empty, {} or {"account": "<12-digit account id>"}'),
    (b'{"account": "12345"}', 'account must be a 12-digit account id, not "12345"'),
    (b'{"account": 123456789012}', "account must be a 12-digit account id, not 123456789012"),
    (b"{", "The request body is not valid JSON: Expecting property name enclosed in double quotes: "
           "line 1 column 2 (char 1)"),
])
def test_a_bad_body_is_refused_and_resets_nothing(emulator_server: Any, body: bytes, message: str) -> None:
    endpoint, account = emulator_server.endpoint_url, new_account()
    create(endpoint, account, "kept")
    assert post(endpoint, "/_emulator/reset", body) == (400, {"message": message})
    assert resources(endpoint, account) == {"machines": ["kept"], "queues": ["kept-queue"]}


@pytest.mark.parametrize("body", [b"", b"{}"])
def test_a_reset_forgets_every_account(own_process_server: str, body: bytes) -> None:
    first, second = new_account(), new_account()
    create(own_process_server, first, "a")
    create(own_process_server, second, "b")
    assert post(own_process_server, "/_emulator/reset", body) == (200, {"reset": "all"})
    assert resources(own_process_server, first) == resources(own_process_server, second) == {"machines": [], "queues": []}


def test_motos_own_reset_forgets_step_functions_too(own_process_server: str) -> None:
    account = new_account()
    create(own_process_server, account, "a")
    status, _ = post(own_process_server, "/moto-api/reset")
    assert status == 200
    assert resources(own_process_server, account) == {"machines": [], "queues": []}
