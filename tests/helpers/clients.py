"""boto3 clients for the emulator, configured as users should configure theirs."""

from __future__ import annotations

import json
import uuid
from typing import Any

import boto3
import botocore
from botocore.config import Config

TEST_REGION = "us-east-1"


def make_client(endpoint_url: str, *, region: str = TEST_REGION, access_key: str = "testing", **config: Any) -> Any:
    """A Step Functions client with no retries; a 12-digit `access_key` selects that account.

    `inject_host_prefix=False` keeps StartSyncExecution and TestState on the endpoint's own host.
    """
    session = boto3.session.Session(aws_access_key_id=access_key, aws_secret_access_key="testing", region_name=region)
    options: dict[str, Any] = {"inject_host_prefix": False, "retries": {"max_attempts": 0}, **config}
    return session.client("stepfunctions", endpoint_url=endpoint_url, config=Config(**options))


def run_and_read(sfn: Any, emulator_server: Any, definition: dict[str, Any], value: Any, *,
                 role_arn: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Create a machine, run it once with `value` until the engine is idle, and read it back:
    (DescribeExecution's answer, the history events)."""
    machine = sfn.create_state_machine(name=f"m-{uuid.uuid4().hex[:12]}", definition=json.dumps(definition),
                                       roleArn=role_arn)["stateMachineArn"]
    execution = sfn.start_execution(stateMachineArn=machine, input=json.dumps(value))["executionArn"]
    assert emulator_server.emulator.clock.run_until_idle(10)
    described = sfn.describe_execution(executionArn=execution)
    return described, sfn.get_execution_history(executionArn=execution)["events"]


def call(sfn: Any, operation: str, **params: Any) -> dict[str, Any]:
    """Call `operation` by its API name (`DescribeStateMachine`) and answer its body, without metadata."""
    answer = getattr(sfn, botocore.xform_name(operation))(**params)
    answer.pop("ResponseMetadata")
    return answer
