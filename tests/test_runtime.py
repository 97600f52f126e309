"""The composition root, `sfn_emulator.runtime.Emulator`: it builds the task resources before the engine
and hands them over by constructor; what may change while it runs (the mock configuration in use)
changes through it, in the one chain the engine was given."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sfn_emulator.config import Settings
from sfn_emulator.protocol.errors import ApiError
from sfn_emulator.runtime import Emulator

ASK = {"StartAt": "Ask", "States": {"Ask": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
                                            "Parameters": {"FunctionName": "ask"}, "End": True}}}
HINT = "No Python callable is registered"


def _mocks(directory: Path, name: str, answer: dict[str, Any]) -> Path:
    path = directory / f"{name}.json"
    path.write_text(json.dumps({"StateMachines": {"Asking": {"TestCases": {"Yes": {"Ask": "Answer"}}}},
                                "MockedResponses": {"Answer": {"0": answer}}}))
    return path


@pytest.fixture
def emulator() -> Iterator[Emulator]:
    with Emulator(Settings(), function_hint="--functions") as emulator:
        yield emulator


def _run(emulator: Emulator, machine_arn: str) -> dict[str, Any]:
    arn = emulator.service.start_execution(stateMachineArn=machine_arn)["executionArn"]
    assert emulator.engine.wait(emulator.service.execution_record(arn), timeout=60)
    return dict(emulator.service.describe_execution(executionArn=arn))


def _machine(emulator: Emulator) -> str:
    return str(emulator.service.create_state_machine(name="Asking", definition=json.dumps(ASK),
                                                     roleArn="arn:aws:iam::123456789012:role/r")["stateMachineArn"])


def test_the_mock_configuration_in_use_answers_the_tasks_of_the_running_emulator(emulator: Emulator,
                                                                                  tmp_path: Path) -> None:
    machine = _machine(emulator)
    with pytest.raises(ApiError):  # no configuration: a test case is refused
        _run(emulator, f"{machine}#Yes")

    emulator.use_mock_config(_mocks(tmp_path, "first", {"Return": {"Payload": "yes"}}))
    answered = _run(emulator, f"{machine}#Yes")
    assert (answered["status"], json.loads(answered["output"])) == ("SUCCEEDED", {"Payload": "yes"})

    emulator.use_mock_config(_mocks(tmp_path, "second", {"Throw": {"Error": "Refused", "Cause": "no"}}))
    refused = _run(emulator, f"{machine}#Yes")
    assert (refused["status"], refused["error"], refused["cause"]) == ("FAILED", "Refused", "no")

    emulator.use_mock_config(None)
    with pytest.raises(ApiError):
        _run(emulator, f"{machine}#Yes")


def test_the_hint_for_an_unserved_function_is_logged_once_per_emulator_across_mock_reloads(
        emulator: Emulator, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    machine = _machine(emulator)
    caplog.set_level(logging.WARNING)
    first = _run(emulator, machine)
    emulator.use_mock_config(_mocks(tmp_path, "mocks", {"Return": {}}))
    second = _run(emulator, machine)  # no test case: the function is not mocked, and nothing serves it
    assert first["error"] == second["error"] == "Lambda.ResourceNotFoundException"
    hints = [record.getMessage() for record in caplog.records if HINT in record.getMessage()]
    assert len(hints) == 1 and hints[0].endswith("--functions.")
