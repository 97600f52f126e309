"""Every case under fixtures/cases/serverless_workflow/*.json, run over HTTP with boto3 and in-process.

A case is a workflow, what the test does to it, and what the emulator must answer:

    {"comment": "...", "workflow": {...} | "workflow_yaml": "...",
     "subflows": {"<state machine name>": {workflow}},      (created first, in the same account)
     "functions": {"<function name or resource>": "<behaviour>"},          (tests/dialects/sw_functions.py)
     "mocks": {<mock configuration>}, "test_case": "<its test case the execution runs under>",
     "input": {...},
     "steps": [{"publish": <CloudEvent or list>, "consumedBy": <number of executions>} | {"advance": <seconds>}],
     "expect": {"status": "...", "output": ... | "error": "...", "history": ["ExecutionStarted", ...],
                "produced": ["<event type>", ...]},
     "invalid": [{"code": "...", "location": "..."}, ...]}    (a bad document: its diagnostics, and no machine)

Each case runs on an emulator of its own with a manual clock: after the start and after every step
the engine runs until nothing can run, so what a step finds is exact.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.dialect_driver import Driver
from helpers.paths import FIXTURES_ROOT
from sw_functions import behaviour

from sfn_emulator.api import write_mock_config

CASES_DIR = FIXTURES_ROOT / "cases" / "serverless_workflow"
ROLE = "arn:aws:iam::123456789012:role/sw"
CASES = [pytest.param(json.loads(path.read_text(encoding="utf-8")), id=path.stem) for path in sorted(CASES_DIR.glob("*.json"))]


def _text(case: dict[str, Any], key: str = "workflow") -> str:
    return case["workflow_yaml"] if "workflow_yaml" in case else json.dumps(case[key])


@pytest.mark.parametrize("case", CASES)
def test_case(case: dict[str, Any], driver: Driver, tmp_path: Path) -> None:
    for name, handler in case.get("functions", {}).items():
        driver.emulator.functions.register(name, behaviour(handler))
    if "mocks" in case:
        driver.emulator.use_mock_config(write_mock_config(case["mocks"], tmp_path))
    definition = _text(case)
    if "invalid" in case:
        _check_invalid(driver, definition, case["invalid"])
        return
    for name, workflow in case.get("subflows", {}).items():
        driver.call("create_state_machine", name=name, roleArn=ROLE, definition=json.dumps(workflow))
    arn = driver.call("create_state_machine", name="workflow", roleArn=ROLE, definition=definition)["stateMachineArn"]
    assert driver.call("validate_state_machine_definition", definition=definition)["result"] == "OK"
    started = f"{arn}#{case['test_case']}" if "test_case" in case else arn
    execution = driver.call("start_execution", stateMachineArn=started, input=json.dumps(case.get("input", {})))["executionArn"]
    driver.settle()
    driver.run_steps(case.get("steps", []))
    driver.check_execution(execution, case["expect"])


def _check_invalid(driver: Driver, definition: str, expected: list[dict[str, str]]) -> None:
    answer = driver.call("validate_state_machine_definition", definition=definition)
    assert answer["result"] == "FAIL"
    found = [{"code": d["code"], "location": d.get("location")} for d in answer["diagnostics"]]
    assert found == expected, answer["diagnostics"]
    if driver.api is not None:
        with pytest.raises(driver.api.exceptions.InvalidDefinition):
            driver.call("create_state_machine", name="workflow", roleArn=ROLE, definition=definition)
