"""A request's JSON is read once: an execution input (StartExecution's and TestState's) on its way to
the engine, a definition on its way to its dialect, whichever dialect and format it is in; and a
definition is compiled without the service lock held."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
import yaml
from helpers.paths import REPOSITORY
from helpers.service_world import PASS, ROLE, settle

from sfn_emulator import dialects
from sfn_emulator.asl.model import StateMachine
from sfn_emulator.dialects.asl import ASL_DIALECT
from sfn_emulator.service import StepFunctionsService

MARKER = "read-once-marker"
EXAMPLES = REPOSITORY / "examples" / "fixtures"


def decodes_of_marked_text(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every `json.loads` of text carrying MARKER, from here on."""
    seen: list[str] = []
    real = json.loads

    def counting(text: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(text, str) and MARKER in text:
            seen.append(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(json, "loads", counting)
    return seen


def test_an_execution_input_is_decoded_once_from_start_to_end(service: StepFunctionsService, engine,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    machine = service.create_state_machine(name="m", definition=PASS, roleArn=ROLE)["stateMachineArn"]
    decodes = decodes_of_marked_text(monkeypatch)
    execution = service.start_execution(stateMachineArn=machine, input=json.dumps({"marker": MARKER}))
    settle(engine)
    assert service.describe_execution(executionArn=execution["executionArn"])["status"] == "SUCCEEDED"
    assert len(decodes) == 1


def test_a_test_state_input_is_decoded_once(service: StepFunctionsService, monkeypatch: pytest.MonkeyPatch) -> None:
    decodes = decodes_of_marked_text(monkeypatch)
    answer = service.test_state(definition=json.dumps({"Type": "Pass", "End": True}),
                                input=json.dumps({"marker": MARKER}))
    assert len(decodes) == 1
    assert json.loads(answer["output"]) == {"marker": MARKER}


def reads_of(text: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every attempt to read `text` as JSON or as YAML, from here on, by the reader's name."""
    seen: list[str] = []
    real_json, real_yaml = json.loads, yaml.load

    def json_loads(value: Any, *args: Any, **kwargs: Any) -> Any:
        if value == text:
            seen.append("json")
        return real_json(value, *args, **kwargs)

    def yaml_load(value: Any, *args: Any, **kwargs: Any) -> Any:
        if value == text:
            seen.append("yaml")
        return real_yaml(value, *args, **kwargs)

    monkeypatch.setattr(json, "loads", json_loads)
    monkeypatch.setattr(yaml, "load", yaml_load)
    return seen


def _as_json(path: str) -> str:
    return json.dumps(yaml.safe_load((EXAMPLES / path).read_text()))


# Each document of another dialect is read once to choose its dialect, and that value is compiled:
# JSON text by one JSON read; YAML text by one YAML read, after the two JSON readers refused it
# (ASL's, in Jackson's words, then Python's, which also takes NaN and Infinity as the other dialects do).
DOCUMENTS = {
    "sm4c-json": (_as_json("order.sm4c.yaml"), ["json"]),
    "sm4c-yaml": ((EXAMPLES / "order.sm4c.yaml").read_text(), ["json", "json", "yaml"]),
    "serverless-workflow-json": (_as_json("order.workflow.yaml"), ["json"]),
    "serverless-workflow-yaml": ((EXAMPLES / "order.workflow.yaml").read_text(), ["json", "json", "yaml"]),
    "serverless-workflow-dsl1-yaml": ((EXAMPLES / "order.dsl1.yaml").read_text(), ["json", "json", "yaml"]),
}


@pytest.mark.parametrize("operation", ["create", "validate"])
@pytest.mark.parametrize("document", DOCUMENTS, ids=str)
def test_a_document_of_another_dialect_is_read_once(service: StepFunctionsService, document: str, operation: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    text, expected_reads = DOCUMENTS[document]
    reads = reads_of(text, monkeypatch)
    if operation == "create":
        service.create_state_machine(name="m", definition=text, roleArn=ROLE)
    else:
        assert service.validate_state_machine_definition(definition=text)["result"] == "OK"
    assert reads == expected_reads


@pytest.mark.parametrize("operation", ["create", "validate", "update"])
def test_a_definition_is_read_once_to_pick_its_dialect_and_compile(service: StepFunctionsService, operation: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    definition = json.dumps({"Comment": MARKER, "StartAt": "A", "States": {"A": {"Type": "Pass", "End": True}}})
    machine = service.create_state_machine(name="m", definition=PASS, roleArn=ROLE)["stateMachineArn"]
    decodes = decodes_of_marked_text(monkeypatch)
    if operation == "create":
        service.create_state_machine(name="other", definition=definition, roleArn=ROLE)
    elif operation == "validate":
        assert service.validate_state_machine_definition(definition=definition)["result"] == "OK"
    else:
        service.update_state_machine(stateMachineArn=machine, definition=definition)
    assert len(decodes) == 1


class _LockWitness:
    """The ASL dialect, noting whether the service lock was free while it compiled."""

    name = "lock-witness"
    model = StateMachine

    def __init__(self, lock: Any) -> None:
        self._lock = lock
        self.free: list[bool] = []

    def recognises(self, document: Any) -> bool:
        return False

    def parse(self, text: str, *, state_machine_type: str) -> StateMachine:
        def try_lock() -> None:  # another thread: the lock is reentrant for this one
            taken = self._lock.acquire(blocking=False)
            if taken:
                self._lock.release()
            self.free.append(taken)

        other = threading.Thread(target=try_lock)
        other.start()
        other.join()
        return ASL_DIALECT.parse(text, state_machine_type=state_machine_type)

    def __getattr__(self, name: str) -> Any:
        return getattr(ASL_DIALECT, name)


def test_a_definition_is_compiled_without_the_service_lock(service: StepFunctionsService) -> None:
    witness = _LockWitness(service.lock)
    dialects.register(witness)
    try:
        tags = [{"key": dialects.DIALECT_TAG, "value": witness.name}]
        arn = service.create_state_machine(name="m", definition=PASS, roleArn=ROLE, tags=tags)["stateMachineArn"]
        service.update_state_machine(stateMachineArn=arn, definition=PASS.replace("hello", "again"))
    finally:
        dialects.unregister(witness.name)
    assert witness.free == [True, True]
