"""A new kind of task resource is one class with `bind`: the engine and the interpreter need nothing
else to run its request-response calls and its `.sync` jobs, and record them as AWS records any
integration's. (`example:count` is no AWS service: the contract is what is under test.)"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import pytest

from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.parser import parse_definition
from sfn_emulator.asl.task_targets import SYNC
from sfn_emulator.clock.virtual_clock import Clock
from sfn_emulator.engine import Engine, Execution
from sfn_emulator.resources.base import TaskRequest, TaskResources
from sfn_emulator.resources.outcomes import BoundCall, WatchedJob, bound_call

ACCOUNT = "123456789012"
REGION = "us-east-1"
WAIT_LIMIT_SECONDS = 10.0  # a hang fails the test instead of blocking the suite


class Counting:
    """`arn:aws:states:::example:count` counts up to `To`; with `.sync` it starts a job that does."""

    def bind(self, request: TaskRequest) -> BoundCall | None:
        if not request.resource.is_action("example", "count"):
            return None
        to = request.payload["To"]
        if request.resource.pattern == SYNC:
            return bound_call(request, lambda: {"JobId": f"count-to-{to}"},
                              lambda submitted: WatchedJob(lambda: _count(to, submitted["JobId"])))
        return bound_call(request, lambda: _count(to, None))


def _count(to: int, job: str | None) -> dict[str, Any]:
    if to < 0:
        raise StatesError("Example.CannotCount", f"cannot count to {to}")
    return {"Counted": list(range(1, to + 1)), **({"JobId": job} if job else {})}


CASES = {
    "request-response": ("arn:aws:states:::example:count", 2, [
        ("TaskScheduled", None), ("TaskStarted", None), ("TaskSucceeded", {"Counted": [1, 2]})]),
    "request-response failing": ("arn:aws:states:::example:count", -1, [
        ("TaskScheduled", None), ("TaskStarted", None), ("TaskFailed", ("Example.CannotCount", "cannot count to -1"))]),
    "a .sync job": ("arn:aws:states:::example:count.sync", 3, [
        ("TaskScheduled", None), ("TaskStarted", None), ("TaskSubmitted", {"JobId": "count-to-3"}),
        ("TaskSucceeded", {"Counted": [1, 2, 3], "JobId": "count-to-3"})]),
    "a .sync job failing": ("arn:aws:states:::example:count.sync", -2, [
        ("TaskScheduled", None), ("TaskStarted", None), ("TaskSubmitted", {"JobId": "count-to--2"}),
        ("TaskFailed", ("Example.CannotCount", "cannot count to -2"))]),
}


@pytest.mark.parametrize("name", CASES)
def test_a_resource_that_binds_its_requests_runs_in_a_task_state(name: str) -> None:
    resource, to, expected = CASES[name]
    definition = json.dumps({"StartAt": "Count", "States": {
        "Count": {"Type": "Task", "Resource": resource, "Parameters": {"To": to}, "End": True}}})
    engine = Engine(Clock("auto", start=datetime(2024, 1, 1, tzinfo=timezone.utc)), TaskResources([Counting()]))
    try:
        execution = Execution(
            arn=f"arn:aws:states:{REGION}:{ACCOUNT}:execution:Counter:run-1", name="run-1",
            state_machine_arn=f"arn:aws:states:{REGION}:{ACCOUNT}:stateMachine:Counter", state_machine_name="Counter",
            machine=parse_definition(definition), definition=definition, input="{}", start_date=engine.clock.now(),
            account=ACCOUNT, region=REGION, role_arn=f"arn:aws:iam::{ACCOUNT}:role/contract-tests",
        )
        engine.start(execution)
        assert engine.wait(execution, WAIT_LIMIT_SECONDS), f"still {execution.status}"
    finally:
        engine.close()

    tasks = [event for event in execution.history if event["type"].startswith("Task") and "State" not in event["type"]]
    assert [event["type"] for event in tasks] == [kind for kind, _ in expected]
    for event, (kind, expectation) in zip(tasks, expected):
        details = event[f"{kind[0].lower()}{kind[1:]}EventDetails"]
        assert (details["resourceType"], details["resource"]) == ("example", resource.rsplit(":", 1)[1])
        if isinstance(expectation, dict):
            assert json.loads(details["output"]) == expectation
        elif isinstance(expectation, tuple):
            assert (details["error"], details["cause"]) == expectation
