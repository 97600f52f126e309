"""The engine's observers: each is told the events it overrides, in the order observers were given,
on the engine thread; one that raises is logged and neither the engine nor the other observers notice."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

import pytest

from sfn_emulator.config import Settings
from sfn_emulator.engine.execution import Execution, MapRun
from sfn_emulator.engine.observers import EngineObserver
from sfn_emulator.runtime import Emulator

ROLE = "arn:aws:iam::123456789012:role/r"
PASS = {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}
DISTRIBUTED = {"StartAt": "M", "States": {"M": {
    "Type": "Map", "ItemProcessor": {"ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"},
                                     "StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}},
    "End": True}}}


class Told(EngineObserver):
    """Writes down what it is told, and on which thread."""

    def __init__(self, name: str, told: list[str]) -> None:
        self.name = name
        self.told = told
        self.threads: set[str] = set()

    def _note(self, what: str) -> None:
        self.told.append(f"{self.name}: {what}")
        self.threads.add(threading.current_thread().name)

    def execution_started(self, execution: Execution) -> None:
        self._note(f"started {execution.name}")

    def execution_finished(self, execution: Execution) -> None:
        self._note(f"finished {execution.name} {execution.status}")

    def map_run_began(self, map_run: MapRun) -> None:
        self._note("map run began")

    def map_run_child_started(self, child: Execution, map_run: MapRun) -> None:
        self._note("child started")


class OnlyFinished(EngineObserver):
    """Overrides one event, and fails on it."""

    def execution_finished(self, execution: Execution) -> None:
        raise RuntimeError("an observer's bug")


@pytest.fixture
def emulator() -> Iterator[Emulator]:
    with Emulator(Settings(clock="manual")) as emulator:
        yield emulator


def _run(emulator: Emulator, definition: dict, name: str, execution_input: str = "{}") -> str:
    service = emulator.service
    machine = service.create_state_machine(name=f"m-{name}", definition=json.dumps(definition), roleArn=ROLE)
    execution = service.start_execution(stateMachineArn=machine["stateMachineArn"], name=name, input=execution_input)
    emulator.engine.run_until_idle(timeout=60)
    return service.describe_execution(executionArn=execution["executionArn"])["status"]


def test_observers_are_told_in_order_on_the_engine_thread_and_a_failing_one_harms_nobody(
        emulator: Emulator, caplog: pytest.LogCaptureFixture) -> None:
    told: list[str] = []
    first, second = Told("first", told), Told("second", told)
    emulator.engine.observe(first)
    emulator.engine.observe(OnlyFinished())
    emulator.engine.observe(second)
    assert _run(emulator, PASS, "one") == "SUCCEEDED"
    assert told == ["first: started one", "second: started one",
                    "first: finished one SUCCEEDED", "second: finished one SUCCEEDED"]
    assert first.threads == second.threads == {"sfn-engine"}
    assert "engine observer failed on execution_finished" in caplog.text


def test_a_distributed_map_tells_its_run_and_each_child(emulator: Emulator) -> None:
    told: list[str] = []
    emulator.engine.observe(Told("seen", told))
    assert _run(emulator, DISTRIBUTED, "mapping", json.dumps([1, 2])) == "SUCCEEDED"
    assert told[0] == "seen: started mapping" and told[1] == "seen: map run began"
    assert told.count("seen: child started") == 2
    assert told[-1] == "seen: finished mapping SUCCEEDED"
