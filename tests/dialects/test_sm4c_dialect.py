"""SM4C among the dialects: recognised by shape or forced by the tag, run by `run_definition` and
the `sfn-emulator` commands, counted by coverage, drawn by the graphs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sfn_emulator import dialects
from sfn_emulator.api import run_definition
from sfn_emulator.cli.main import main
from sfn_emulator.config import Settings
from sfn_emulator.graphs.render import mermaid
from sfn_emulator.graphs.structure import END, NEXT, START
from sfn_emulator.runtime import Emulator

ROLE = "arn:aws:iam::123456789012:role/sm4c"
ORDER = {
    "id": "order", "version": "1.0", "name": "Order",
    "events": [{"name": "Paid", "type": "order.paid"}],
    "states": [
        {"name": "Placed", "start": True, "transitions": [
            {"condition": "${ .prepaid }", "nextState": "Shipped"},
            {"eventGroups": [{"events": ["Paid"]}], "nextState": "Shipped"},
            {"timeout": "PT1H", "nextState": "Cancelled"}]},
        {"name": "Shipped", "states": [{"name": "Packing", "start": True, "transitions": [{"nextState": "Sent"}]},
                                       {"name": "Sent"}]},
        {"name": "Cancelled"}],
}
ASL = json.dumps({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})
SERVERLESS_WORKFLOW = json.dumps({"id": "w", "version": "1.0", "name": "w", "start": "I",
                                  "states": [{"name": "I", "type": "inject", "data": {}, "end": True}]})


@pytest.mark.parametrize(("text", "dialect"), [
    (json.dumps(ORDER), "sm4c"),
    ("name: n\nversion: '1'\nstates:\n  - name: A\n    start: true\n", "sm4c"),
    (json.dumps({"name": "n", "states": [{"name": "A"}]}), "sm4c"),  # no start state: SM4C's own diagnostics
    (ASL, "asl"),
    (json.dumps({**ORDER, "States": {}}), "asl"),  # an ASL definition is never another dialect's
    (SERVERLESS_WORKFLOW, "serverless-workflow-0.x"),  # its states have a `type`, SM4C's never do (0.x: a top-level start)
    (json.dumps({"name": "n", "states": []}), "asl"),
])
def test_recognition_by_shape(text: str, dialect: str) -> None:
    assert dialects.dialect_of(text).name == dialect


def test_the_tag_forces_sm4c(sfn: Any) -> None:
    with pytest.raises(sfn.exceptions.InvalidDefinition, match=r"These fields are required: \[name\]"):
        sfn.create_state_machine(name="forced-sm4c", roleArn=ROLE, definition=ASL,
                                 tags=[{"key": dialects.DIALECT_TAG, "value": "sm4c"}])
    created = sfn.create_state_machine(name="tagged-sm4c", roleArn=ROLE, definition=json.dumps(ORDER),
                                       tags=[{"key": dialects.DIALECT_TAG, "value": "sm4c"}])
    assert sfn.describe_state_machine(stateMachineArn=created["stateMachineArn"])["definition"] == json.dumps(ORDER)


def test_the_graph_draws_states_transitions_and_child_states() -> None:
    graph = dialects.graph_of(json.dumps(ORDER))
    assert [node.name for node in graph.nodes] == ["Placed", "Shipped", "Packing", "Sent", "Cancelled"]
    assert [(edge.source, edge.target, edge.kind, edge.label) for edge in graph.edges] == [
        (None, "Placed", START, ""),
        ("Placed", "Shipped", NEXT, "${ .prepaid }"), ("Placed", "Shipped", NEXT, "on Paid"),
        ("Placed", "Cancelled", NEXT, "after 3600s"), ("Shipped", None, END, ""),
        (None, "Packing", START, ""), ("Packing", "Sent", NEXT, ""), ("Sent", None, END, ""),
        ("Cancelled", None, END, ""),
    ]
    assert [(cluster.id, cluster.owner) for cluster in graph.clusters] == [("Shipped/states", "Shipped")]
    assert "Placed (Task)" in mermaid(graph)


def test_coverage_counts_sm4c_states_and_transitions() -> None:
    with Emulator(Settings(clock="manual")) as emulator:
        arn = emulator.service.create_state_machine(name="order", roleArn=ROLE, definition=json.dumps(ORDER))["stateMachineArn"]
        emulator.service.start_execution(stateMachineArn=arn, input=json.dumps({"prepaid": True}))
        assert emulator.engine.run_until_idle(timeout=30)
        [machine] = emulator.coverage.json()["stateMachines"]
    assert machine["states"] == {"total": 5, "covered": 4, "missed": ["Cancelled"]}
    assert machine["transitions"]["total"] == 6
    assert sorted(machine["transitions"]["missed"], key=str) == [["Cancelled", None], ["Placed", "Cancelled"]]


def test_run_definition_and_the_commands_take_a_yaml_document(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "hello.yaml"
    path.write_text("id: hello\nversion: '1.0'\nname: Hello\nstates:\n  - name: Hello State\n    start: true\n"
                    "    enterAction: {type: injectData, expression: '${ \"Hello World!\" }'}\n"
                    "    enterResultHandler: '${ .result += $value }'\n")
    result = run_definition(path, {})
    result.assert_succeeded(output={"result": "Hello World!"})
    assert result.visited_states == ["Hello State"]
    assert main(["validate", str(path)]) == 0
    assert main(["graph", str(path)]) == 0
    assert "Hello State (Task)" in capsys.readouterr().out
    broken = tmp_path / "broken.yaml"
    broken.write_text("name: Broken\nversion: '1'\nstates:\n  - name: A\n    start: true\n    transitions: [{nextState: B}]\n")
    assert main(["validate", str(broken)]) != 0
    assert "Missing 'nextState' target: B" in capsys.readouterr().out


def test_a_mock_test_case_answers_a_function_by_the_state_or_action_name(sfn_emulator: Any) -> None:
    """Mocks come first in the resolution: the mock configuration names the action (else the state)."""
    document = {"id": "m", "version": "1.0", "name": "Mocked", "functions": [{"name": "charge", "operation": "charge"}],
                "states": [{"name": "Charge", "start": True, "enterAction": {
                    "type": "sequence", "actions": [
                        {"type": "invokeFunction", "functionName": "charge", "waitForCompletion": True},
                        {"name": "Again", "type": "invokeFunction", "functionName": "charge", "waitForCompletion": True}]},
                    "enterResultHandler": ".charges = $value"}]}
    sfn_emulator.use_mock_config({
        "StateMachines": {"mocked-sm4c": {"TestCases": {"Paid": {"Charge": "ByState", "Again": "ByAction"}}}},
        "MockedResponses": {"ByState": {"0": {"Return": {"by": "state"}}}, "ByAction": {"0": {"Return": {"by": "action"}}}},
    })
    result = sfn_emulator.run(document, {}, name="mocked-sm4c", test_case="Paid")
    result.assert_succeeded(output={"charges": {"0": {"by": "state"}, "Again": {"by": "action"}}})
