"""The dialect seam: choosing a definition's dialect, and the CloudEvents bus every dialect shares.

A minimal dialect registered here (a document `{"awaitEvent": {"type": ...}}` that waits for one
event and succeeds with its data) shows how a dialect plugs in, and drives the bus for real:
over HTTP with boto3 and `POST /_emulator/events`, and in-process with `Emulator.events`.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Mapping

import pytest

from sfn_emulator import dialects
from sfn_emulator.asl.model import StateMachine
from sfn_emulator.asl.validation import Diagnostic, InvalidDefinitionError
from sfn_emulator.config import Settings
from sfn_emulator.engine.cloudevents import EventMatch, InvalidEvent
from sfn_emulator.engine.effects import AwaitEvent, Interpreter
from sfn_emulator.engine.frame import Run
from sfn_emulator.graphs.structure import Graph
from sfn_emulator.runtime import Emulator

ASL = json.dumps({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})


@dataclass(frozen=True)
class Awaiting:
    type: str
    wait_seconds: float | None
    timeout_seconds: float | None = None  # the execution's own timeout, which the engine reads from every model


@dataclass(frozen=True)
class AwaitingDialect:
    name: str = "awaiting-test"
    model: type = Awaiting

    def recognises(self, document: Any) -> bool:
        return isinstance(document, Mapping) and set(document) == {"awaitEvent"}

    def parse(self, text: str, *, state_machine_type: str) -> Awaiting:
        document = dialects.load_document(text)
        wanted = document["awaitEvent"]
        return Awaiting(wanted["type"], wanted.get("timeout"))

    def validate(self, text: str, *, state_machine_type: str, severity: str, max_results: int) -> list[Diagnostic]:
        return []

    def run(self, run: Run) -> Interpreter:
        machine = run.execution.machine
        received = yield AwaitEvent((EventMatch(machine.type),), timeout_seconds=machine.wait_seconds)
        return received[0].get("data")

    def graph(self, definition: str) -> Graph:
        return Graph((), (), ())


@pytest.fixture(scope="module", autouse=True)
def awaiting_dialect() -> Iterator[None]:
    dialects.register(AwaitingDialect())
    yield
    dialects.unregister("awaiting-test")


def event(type_: str = "order.placed", **extra: Any) -> dict[str, Any]:
    return {"specversion": "1.0", "id": "e1", "source": "tests", "type": type_, **extra}


# -- choosing the dialect ------------------------------------------------------------------------
def test_an_asl_definition_is_asl_and_other_documents_fall_back_to_asl_diagnostics() -> None:
    assert isinstance(dialects.parse(ASL), StateMachine)
    assert dialects.dialect_of(ASL).name == "asl"
    assert dialects.dialect_of("not: [json").name == "asl"
    with pytest.raises(InvalidDefinitionError):
        dialects.parse("{}")


def test_a_document_is_recognised_by_shape_in_json_or_yaml() -> None:
    assert dialects.dialect_of('{"awaitEvent": {"type": "t"}}').name == "awaiting-test"
    assert dialects.dialect_of("awaitEvent:\n  type: t\n").name == "awaiting-test"
    # An ASL definition is never another dialect's, whatever else it holds.
    assert dialects.dialect_of(json.dumps({"awaitEvent": {}, "StartAt": "P", "States": {}})).name == "asl"


def test_the_tag_forces_the_dialect_and_an_unknown_one_is_refused(emulator_server, sfn) -> None:
    role = "arn:aws:iam::123456789012:role/r"
    with pytest.raises(sfn.exceptions.InvalidDefinition, match="Invalid State Machine Definition"):
        sfn.create_state_machine(name="forced-asl", roleArn=role, definition='{"awaitEvent": {"type": "t"}}',
                                 tags=[{"key": dialects.DIALECT_TAG, "value": "asl"}])
    with pytest.raises(sfn.exceptions.InvalidDefinition, match="Unknown dialect 'nope'"):
        sfn.create_state_machine(name="unknown-dialect", roleArn=role, definition=ASL,
                                 tags=[{"key": dialects.DIALECT_TAG, "value": "nope"}])


# -- the events bus --------------------------------------------------------------------------------
def _post(endpoint: str, body: bytes) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(f"{endpoint}/_emulator/events", data=body, method="POST",
                                     headers={"Content-Type": "application/cloudevents+json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_an_event_reaches_the_execution_waiting_for_it_over_http(emulator_server, sfn) -> None:
    arn = sfn.create_state_machine(name="awaits-order", roleArn="arn:aws:iam::123456789012:role/r",
                                   definition="awaitEvent:\n  type: order.placed\n")["stateMachineArn"]
    execution = sfn.start_execution(stateMachineArn=arn)["executionArn"]
    emulator_server.emulator.engine.run_until_idle(timeout=30)
    status, answer = _post(emulator_server.endpoint_url, json.dumps([event("other"), event(data={"n": 1})]).encode())
    assert status == 200
    assert answer == {"events": [{"id": "e1", "consumedBy": []}, {"id": "e1", "consumedBy": [execution]}]}
    emulator_server.emulator.engine.run_until_idle(timeout=30)
    described = sfn.describe_execution(executionArn=execution)
    assert (described["status"], json.loads(described["output"])) == ("SUCCEEDED", {"n": 1})
    # Delivered once: the same event again finds nobody waiting.
    assert _post(emulator_server.endpoint_url, json.dumps(event()).encode())[1]["events"][0]["consumedBy"] == []


@pytest.mark.parametrize(("body", "message"), [
    (b"{not json", "not valid JSON"),
    (json.dumps({"specversion": "1.0", "id": "x", "source": "s"}).encode(), "'type'"),
    (json.dumps([event(), {"id": "x"}]).encode(), "event 1 lacks the required CloudEvents attribute(s) 'specversion', 'source', 'type'"),
    (json.dumps(event() | {"specversion": "0.3"}).encode(), "specversion '0.3'"),
    (json.dumps([]).encode(), "empty"),
    (json.dumps("text").encode(), "not a JSON object"),
])
def test_a_bad_event_is_refused_with_400_and_nothing_is_delivered(emulator_server, body: bytes, message: str) -> None:
    status, answer = _post(emulator_server.endpoint_url, body)
    assert status == 400
    assert message in answer["message"]


def test_in_process_publish_and_the_event_wait_timeout_on_the_virtual_clock() -> None:
    with Emulator(Settings(clock="manual")) as emulator:
        service = emulator.service
        role = "arn:aws:iam::123456789012:role/r"
        arn = service.create_state_machine(name="waits", roleArn=role,
                                           definition='{"awaitEvent": {"type": "t", "timeout": 60}}')["stateMachineArn"]
        first = service.start_execution(stateMachineArn=arn)["executionArn"]
        second = service.start_execution(stateMachineArn=arn)["executionArn"]
        emulator.engine.run_until_idle(timeout=30)
        assert emulator.events.publish(event("t", data=7)) == [{"id": "e1", "consumedBy": [first, second]}]
        third = service.start_execution(stateMachineArn=arn)["executionArn"]
        emulator.engine.run_until_idle(timeout=30)
        emulator.clock.advance(60)
        results = [service.describe_execution(executionArn=execution) for execution in (first, second, third)]
        assert [result["status"] for result in results] == ["SUCCEEDED", "SUCCEEDED", "FAILED"]
        assert results[2]["error"] == "States.Timeout"
        with pytest.raises(InvalidEvent):
            emulator.events.publish({"type": "t"})
