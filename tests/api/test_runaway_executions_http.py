"""A loop with no Wait, driven over HTTP with boto3: it fails at AWS's 25,000-event history quota,
other executions finish beside it, and StopExecution ends it while it is busy. In-process, closing
the runtime (what SIGTERM and SIGINT do to `sfn-emulator serve`) stops an engine busy with one."""

from __future__ import annotations

import json
import uuid
from typing import Any

import boto3
import pytest
from helpers.clients import make_client
from helpers.runaway import HISTORY_LIMIT_CAUSE, LOOP, QUICK, SLOW_LOOP

from sfn_emulator.clock.virtual_clock import wall_monotonic
from sfn_emulator.config import Settings
from sfn_emulator.inprocess import intercept
from sfn_emulator.runtime import Emulator

ROLE = "arn:aws:iam::123456789012:role/sfn-role"
BOUND_SECONDS = 120.0  # tens of thousands of events on a loaded machine: generous, but a bound


def machine(sfn: Any, definition: dict[str, Any]) -> str:
    name = f"runaway-{uuid.uuid4().hex[:10]}"
    return sfn.create_state_machine(name=name, definition=json.dumps(definition), roleArn=ROLE)["stateMachineArn"]


def finished(sfn: Any, execution_arn: str) -> dict[str, Any]:
    """DescribeExecution once the execution has ended (polled, bounded)."""
    deadline = wall_monotonic() + BOUND_SECONDS
    while True:
        described = sfn.describe_execution(executionArn=execution_arn)
        if described["status"] != "RUNNING" or wall_monotonic() > deadline:
            return described


def test_a_loop_with_no_wait_fails_at_the_quota_while_other_executions_finish(sfn: Any) -> None:
    loop = sfn.start_execution(stateMachineArn=machine(sfn, LOOP), input='{"x": 1}')["executionArn"]
    quick = machine(sfn, QUICK)
    others = [sfn.start_execution(stateMachineArn=quick, input=json.dumps({"n": n}))["executionArn"] for n in range(5)]
    assert [json.loads(finished(sfn, arn)["output"]) for arn in others] == [{"n": n} for n in range(5)]

    described = finished(sfn, loop)
    assert (described["status"], described["error"], described["cause"]) == ("FAILED", "States.Runtime", HISTORY_LIMIT_CAUSE)
    assert (described["redriveStatus"], described["redriveStatusReason"]) == (
        "NOT_REDRIVABLE", "Execution history event limit exceeded")
    newest = sfn.get_execution_history(executionArn=loop, reverseOrder=True, maxResults=1)["events"][0]
    assert (newest["id"], newest["type"]) == (25_000, "ExecutionFailed")
    assert newest["executionFailedEventDetails"] == {"error": "States.Runtime", "cause": HISTORY_LIMIT_CAUSE}


def test_stop_execution_ends_a_busy_loop(emulator_server: Any, sfn: Any) -> None:
    loop = sfn.start_execution(stateMachineArn=machine(sfn, SLOW_LOOP), input="1")["executionArn"]
    quick = sfn.start_execution(stateMachineArn=machine(sfn, QUICK), input="{}")["executionArn"]
    assert finished(sfn, quick)["status"] == "SUCCEEDED"
    # A bounded wait for the answer: an engine that never serves the request fails the test.
    bounded = make_client(emulator_server.endpoint_url, read_timeout=BOUND_SECONDS)
    bounded.stop_execution(executionArn=loop, error="Enough", cause="the test is done")
    described = sfn.describe_execution(executionArn=loop)
    assert (described["status"], described["error"], described["cause"]) == ("ABORTED", "Enough", "the test is done")
    newest = sfn.get_execution_history(executionArn=loop, reverseOrder=True, maxResults=1)["events"][0]
    assert newest["type"] == "ExecutionAborted"
    assert newest["id"] < 25_000


def test_closing_the_runtime_stops_an_engine_busy_with_a_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                        "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)
    with Emulator(Settings()) as local:
        with intercept(local):
            sfn = boto3.client("stepfunctions")
            loop = sfn.start_execution(stateMachineArn=machine(sfn, SLOW_LOOP), input="1")["executionArn"]
            deadline = wall_monotonic() + BOUND_SECONDS
            events: list[Any] = []
            while len(events) < 10 and wall_monotonic() < deadline:  # it is busy: polled, bounded
                events = sfn.get_execution_history(executionArn=loop, maxResults=10)["events"]
            assert len(events) == 10
    assert not local.engine.running
