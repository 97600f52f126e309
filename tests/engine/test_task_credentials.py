"""A Task's Credentials, evaluated in every query language and resource kind (fixtures/tasks/credentials.json)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from engine_harness import Harness, event_types
from helpers.paths import FIXTURES_ROOT

TABLE = json.loads((FIXTURES_ROOT / "tasks" / "credentials.json").read_text())
FUNCTION = "arn:aws:lambda:us-east-1:111111111111:function:echo"
INPUT = {"role": "arn:aws:iam::111111111111:role/from-input"}


def _run(case: dict[str, Any]) -> Any:
    task: dict[str, Any] = {"Type": "Task", "Resource": case["resource"], "Credentials": case["credentials"], "End": True}
    if case["resource"] != FUNCTION:
        request = {"FunctionName": FUNCTION, "Payload": {}}
        task["Arguments" if case["language"] == "JSONata" else "Parameters"] = request
    definition = {"QueryLanguage": case["language"], "StartAt": "Call", "States": {"Call": task}}
    with Harness(functions={FUNCTION: "identity"}) as harness:
        return harness.run(definition, INPUT)


@pytest.mark.parametrize("case", [case for case in TABLE["cases"] if "role" in case], ids=lambda case: case["name"])
def test_the_scheduled_event_names_the_role(case: dict[str, Any]) -> None:
    execution = _run(case)

    assert execution.status == "SUCCEEDED", execution.cause
    scheduled = next(event for event in execution.history if event["type"] == case["scheduled"])
    details = scheduled[case["scheduled"][0].lower() + case["scheduled"][1:] + "EventDetails"]
    assert details["taskCredentials"] == {"roleArn": case["role"]}


@pytest.mark.parametrize("case", [case for case in TABLE["cases"] if "error" in case], ids=lambda case: case["name"])
def test_credentials_that_name_nothing_fail_before_the_task_is_scheduled(case: dict[str, Any]) -> None:
    execution = _run(case)

    assert (execution.status, execution.error) == ("FAILED", case["error"])
    assert execution.cause == f"An error occurred while executing the state 'Call' (entered at the event id #2). {case['cause']}"
    assert not {"TaskScheduled", "LambdaFunctionScheduled"} & set(event_types(execution))


def test_a_task_without_credentials_reports_none() -> None:
    with Harness(functions={FUNCTION: "identity"}) as harness:
        execution = harness.run({"StartAt": "Call", "States": {"Call": {"Type": "Task", "Resource": FUNCTION, "End": True}}}, {})
    scheduled = next(event for event in execution.history if event["type"] == "LambdaFunctionScheduled")
    assert "taskCredentials" not in scheduled["lambdaFunctionScheduledEventDetails"]
