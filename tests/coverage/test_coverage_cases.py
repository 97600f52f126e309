"""Workflow coverage, table-driven (fixtures/coverage/*.json): each case is a definition and
the inputs a test suite would run; after running them over HTTP with boto3, the server's
`GET /_emulator/coverage` must report exactly the expected covered and missed items."""

from __future__ import annotations

import json
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import pytest
from helpers.paths import FIXTURES_ROOT

CASES = sorted((FIXTURES_ROOT / "coverage").glob("*.json"))
CATEGORIES = ("states", "transitions", "choiceRules", "catchers", "retriers")
ROLE = "arn:aws:iam::123456789012:role/coverage"


def _coverage(endpoint_url: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{endpoint_url}/_emulator/coverage", timeout=30) as answer:
        assert answer.headers["Content-Type"] == "application/json"
        return dict(json.loads(answer.read()))


def _finish(sfn: Any, execution_arn: str) -> str:
    deadline = time.monotonic() + 60
    while (status := sfn.describe_execution(executionArn=execution_arn)["status"]) == "RUNNING":
        assert time.monotonic() < deadline, f"{execution_arn} still running"
        time.sleep(0.01)
    return str(status)


@pytest.mark.parametrize("case_file", CASES, ids=[case.stem for case in CASES])
def test_coverage_reports_what_the_inputs_exercised(case_file: Path, sfn: Any, emulator_server: Any) -> None:
    case = json.loads(case_file.read_text())
    name = f"coverage-{case_file.stem}-{uuid.uuid4().hex[:8]}"
    machine = sfn.create_state_machine(name=name, definition=json.dumps(case["definition"]), roleArn=ROLE)
    for given in case["inputs"]:
        execution = sfn.start_execution(stateMachineArn=machine["stateMachineArn"], input=json.dumps(given))
        _finish(sfn, execution["executionArn"])

    report = _coverage(emulator_server.endpoint_url)
    [measured] = [entry for entry in report["stateMachines"] if entry["name"] == name]
    assert {category: measured[category] for category in CATEGORIES} == case["expect"]
    assert json.loads(measured["definition"]) == case["definition"]
    for category in CATEGORIES:
        assert report["totals"][category]["total"] >= measured[category]["total"]


def test_a_name_with_two_definitions_is_reported_per_definition(sfn: Any, emulator_server: Any) -> None:
    name = f"coverage-two-{uuid.uuid4().hex[:8]}"
    first = {"StartAt": "A", "States": {"A": {"Type": "Pass", "End": True}}}
    second = {"StartAt": "A", "States": {"A": {"Type": "Pass", "Next": "B"}, "B": {"Type": "Pass", "End": True}}}
    machine = sfn.create_state_machine(name=name, definition=json.dumps(first), roleArn=ROLE)
    _finish(sfn, sfn.start_execution(stateMachineArn=machine["stateMachineArn"])["executionArn"])
    sfn.update_state_machine(stateMachineArn=machine["stateMachineArn"], definition=json.dumps(second))
    _finish(sfn, sfn.start_execution(stateMachineArn=machine["stateMachineArn"])["executionArn"])

    entries = [entry for entry in _coverage(emulator_server.endpoint_url)["stateMachines"] if entry["name"] == name]
    assert sorted(entry["states"]["total"] for entry in entries) == [1, 2]
    assert len({entry["definitionId"] for entry in entries}) == 2
    assert all(entry["states"]["missed"] == [] for entry in entries)


def test_nested_machines_are_measured_each_for_itself(sfn: Any, emulator_server: Any) -> None:
    suffix = uuid.uuid4().hex[:8]
    child = sfn.create_state_machine(name=f"coverage-child-{suffix}", roleArn=ROLE, definition=json.dumps(
        {"StartAt": "Pick", "States": {
            "Pick": {"Type": "Choice", "Choices": [{"Variable": "$.other", "IsPresent": True, "Next": "Other"}],
                     "Default": "Work"},
            "Work": {"Type": "Pass", "End": True}, "Other": {"Type": "Pass", "End": True}}}))
    parent = sfn.create_state_machine(name=f"coverage-parent-{suffix}", roleArn=ROLE, definition=json.dumps(
        {"StartAt": "Call", "States": {"Call": {
            "Type": "Task", "Resource": "arn:aws:states:::states:startExecution.sync:2", "End": True,
            "Parameters": {"StateMachineArn": child["stateMachineArn"], "Input": {}}}}}))
    assert _finish(sfn, sfn.start_execution(stateMachineArn=parent["stateMachineArn"])["executionArn"]) == "SUCCEEDED"

    entries = {entry["name"]: entry for entry in _coverage(emulator_server.endpoint_url)["stateMachines"]}
    assert entries[f"coverage-parent-{suffix}"]["states"] == {"total": 1, "covered": 1, "missed": []}
    assert entries[f"coverage-child-{suffix}"]["states"] == {"total": 3, "covered": 2, "missed": ["Other"]}
