"""What the task-resource tests share: a running emulator, and a boto3 client that can wait.

`Flow` creates state machines and runs executions over HTTP with boto3; to know an execution has
finished it asks the in-process engine to become idle (no sleeping, no polling), then describes
the execution over HTTP like any client would.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import boto3
from botocore.config import Config
from helpers.clients import TEST_REGION, make_client

if TYPE_CHECKING:
    from sfn_emulator.runtime import Emulator

ACCOUNT = "123456789012"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/sfn-tests"
WAIT_LIMIT_SECONDS = 30.0  # a hang fails the test instead of blocking the suite


@dataclass(frozen=True)
class Server:
    endpoint_url: str
    emulator: Emulator


class Flow:
    """A Step Functions client on one server, with helpers that read like the tests' sentences."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.sfn = make_client(server.endpoint_url)

    def aws_client(self, service: str) -> Any:
        """A client of another AWS service, served by moto on the same endpoint."""
        return boto3.client(service, endpoint_url=self.server.endpoint_url, region_name=TEST_REGION,
                            aws_access_key_id="testing", aws_secret_access_key="testing",
                            config=Config(retries={"max_attempts": 0}))

    def machine(self, definition: dict[str, Any] | str, *, name: str | None = None, type: str = "STANDARD") -> str:
        text = definition if isinstance(definition, str) else json.dumps(definition)
        name = name or f"m-{uuid.uuid4().hex[:12]}"
        return self.sfn.create_state_machine(name=name, definition=text, roleArn=ROLE, type=type)["stateMachineArn"]

    def start(self, machine_arn: str, input: Any = None, **params: Any) -> str:
        text = json.dumps({} if input is None else input)
        return self.sfn.start_execution(stateMachineArn=machine_arn, input=text, **params)["executionArn"]

    def settle(self) -> None:
        """Wait until nothing can run: every execution has ended or waits for time or the world."""
        assert self.server.emulator.engine.run_until_idle(WAIT_LIMIT_SECONDS), "the engine did not become idle"

    def describe(self, execution_arn: str) -> dict[str, Any]:
        return self.sfn.describe_execution(executionArn=execution_arn)

    def run(self, definition: dict[str, Any] | str, input: Any = None) -> dict[str, Any]:
        """Create a machine, run it with `input` until it settles, and describe the execution."""
        execution_arn = self.start(self.machine(definition), input)
        self.settle()
        return self.describe(execution_arn)

    def events(self, execution_arn: str) -> list[dict[str, Any]]:
        return self.sfn.get_execution_history(executionArn=execution_arn, maxResults=1000)["events"]

    def event_types(self, execution_arn: str) -> list[str]:
        return [event["type"] for event in self.events(execution_arn)]


def outcome(described: dict[str, Any]) -> dict[str, Any]:
    """status, output (parsed) or error and cause, as the tables in fixtures/resources write them."""
    result: dict[str, Any] = {"status": described["status"]}
    if "output" in described:
        result["output"] = json.loads(described["output"])
    for key in ("error", "cause"):
        if key in described:
            result[key] = described[key]
    return result


def task(resource: str, **fields: Any) -> dict[str, Any]:
    """A one-state machine around a Task state."""
    return {"StartAt": "Call", "States": {"Call": {"Type": "Task", "Resource": resource, **fields, "End": True}}}
