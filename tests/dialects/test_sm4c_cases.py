"""Every runnable case under fixtures/cases/sm4c/*.json, over HTTP with boto3 and in-process.

    {"comment": "...", "definition": {...} | "<YAML text>",
     "subflows": {"<state machine name>": {document}},       (created first, in the same account)
     "functions": {"<function name or operation>": "<behaviour>"},          (tests/dialects/sw_functions.py)
     "input": {...},
     "steps": [{"publish": <CloudEvent>} | {"advance": <seconds>}],
     "expect": {"status", "output", "error", "cause", "history": [types], "visited": [state names],
                "task_parameters": [the parameters of each function call], "sent": [events, by their members],
                "elapsed_seconds": <clock time from the start to the end>}}

The bad documents (`expect.diagnostics`) are tests/dialects/test_sm4c_documents.py's, and here
through ValidateStateMachineDefinition and CreateStateMachine. Each case runs on an emulator of its
own with a manual clock: after the start and after every step the engine runs until nothing can run.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers.paths import FIXTURES_ROOT
from sw_functions import behaviour
from helpers.dialect_driver import Driver

CASES_DIR = FIXTURES_ROOT / "cases" / "sm4c"
ROLE = "arn:aws:iam::123456789012:role/sm4c"
ALL_CASES = [(path.stem, json.loads(path.read_text(encoding="utf-8"))) for path in sorted(CASES_DIR.glob("*.json"))]
CASES = [pytest.param(case, id=name) for name, case in ALL_CASES if "diagnostics" not in case["expect"]]
INVALID = [pytest.param(case, id=name) for name, case in ALL_CASES if "diagnostics" in case["expect"]]


def _text(document: Any) -> str:
    return document if isinstance(document, str) else json.dumps(document)


@pytest.mark.parametrize("case", CASES)
def test_case(case: dict[str, Any], driver: Driver) -> None:
    for name, handler in case.get("functions", {}).items():
        driver.emulator.functions.register(name, behaviour(handler))
    for name, document in case.get("subflows", {}).items():
        driver.call("create_state_machine", name=name, roleArn=ROLE, definition=_text(document))
    definition = _text(case["definition"])
    assert driver.call("validate_state_machine_definition", definition=definition)["result"] == "OK"
    arn = driver.call("create_state_machine", name="machine", roleArn=ROLE, definition=definition)["stateMachineArn"]
    execution = driver.call("start_execution", stateMachineArn=arn, input=json.dumps(case.get("input", {})))["executionArn"]
    driver.settle()
    driver.run_steps(case.get("steps", []))
    driver.check_execution(execution, case["expect"])


@pytest.mark.parametrize("case", INVALID)
def test_bad_documents_through_the_api(case: dict[str, Any], driver: Driver) -> None:
    definition = _text(case["definition"])
    answer = driver.call("validate_state_machine_definition", definition=definition)
    assert answer["result"] == "FAIL"
    errors = [d["code"] for d in case["expect"]["diagnostics"] if d["severity"] == "ERROR"]  # the API's default severity
    assert [d["code"] for d in answer["diagnostics"]] == errors
    if driver.api is not None:
        with pytest.raises(driver.api.exceptions.InvalidDefinition):
            driver.call("create_state_machine", name="machine", roleArn=ROLE, definition=definition)
