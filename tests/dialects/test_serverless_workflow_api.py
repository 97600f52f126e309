"""Serverless Workflow documents through the rest of the emulator: the API's other operations
(StartSyncExecution, StopExecution, UpdateStateMachine, versions and aliases, the dialect tag),
run_definition, graphs and coverage."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sfn_emulator.api import run_definition
from sfn_emulator.config import Settings
from sfn_emulator.runtime import Emulator

ROLE = "arn:aws:iam::123456789012:role/sw"
GREETER = {
    "id": "greeter", "name": "Greeter",
    "functions": [{"name": "greet", "resource": "greeter"}],
    "states": [{"name": "Greet", "type": "operation", "start": {"kind": "default"},
                "actions": [{"functionRef": {"refName": "greet", "parameters": {"name": "{{ $.name }}"}}}],
                "transition": {"nextState": "Check"}},
               {"name": "Check", "type": "switch",
                "dataConditions": [{"condition": "{{ $[?(@.name == 'Ann')] }}", "transition": {"nextState": "Done"}}],
                "default": {"nextState": "Other"}},
               {"name": "Done", "type": "inject", "data": {"done": True}, "end": {"kind": "default"}},
               {"name": "Other", "type": "inject", "data": {"other": True}, "end": {"kind": "default"}}],
}
AWAITING = {
    "id": "awaiting", "name": "Awaiting",
    "events": [{"name": "Go", "type": "go", "source": "tests"}],
    "states": [{"name": "Await", "type": "event", "start": {"kind": "default"},
                "eventsActions": [{"eventRefs": ["Go"], "actions": []}], "end": {"kind": "default"}}],
}
GO = {"specversion": "1.0", "id": "go-1", "source": "tests", "type": "go", "data": {"went": True}}


def greet(event: Any, context: Any) -> Any:
    return {"greeting": f"Hello {event['name']}!"}


def test_run_definition_runs_a_workflow_and_draws_its_path() -> None:
    result = run_definition(GREETER, {"name": "Ann"}, functions={"greet": greet})
    result.assert_succeeded(output={"name": "Ann", "greeting": "Hello Ann!", "done": True})
    assert result.visited_states == ["Greet", "Check", "Done"]
    graph = result.graph("mermaid")
    assert all(name in graph for name in ("Greet", "Check", "Done", "Other"))


def test_coverage_counts_the_states_and_switch_conditions_taken() -> None:
    with Emulator(Settings()) as emulator:
        emulator.functions.register("greet", greet)
        arn = emulator.service.create_state_machine(name="greeter", roleArn=ROLE, definition=json.dumps(GREETER))["stateMachineArn"]
        emulator.service.start_execution(stateMachineArn=arn, input='{"name": "Ann"}')
        assert emulator.engine.run_until_idle(timeout=30)
        report = emulator.coverage.json()
    machine = next(machine for machine in report["stateMachines"] if machine["name"] == "greeter")
    assert (machine["states"]["covered"], machine["states"]["total"]) == (3, 4)  # the default's target not reached
    assert 0 < machine["transitions"]["covered"] < machine["transitions"]["total"]


def test_start_sync_execution_of_an_express_workflow(emulator_server, sfn) -> None:
    emulator_server.emulator.functions.register("greeter", greet)  # by the function's resource
    try:
        arn = sfn.create_state_machine(name="sync-greeter", roleArn=ROLE, type="EXPRESS",
                                       definition=json.dumps(GREETER))["stateMachineArn"]
        answer = sfn.start_sync_execution(stateMachineArn=arn, input='{"name": "Bo"}')
    finally:
        emulator_server.emulator.functions.unregister("greeter")
    assert answer["status"] == "SUCCEEDED"
    assert json.loads(answer["output"]) == {"name": "Bo", "greeting": "Hello Bo!", "other": True}


def test_a_stopped_workflow_consumes_no_more_events(emulator_server, sfn) -> None:
    arn = sfn.create_state_machine(name="stopped-awaiting", roleArn=ROLE, definition=json.dumps(AWAITING))["stateMachineArn"]
    execution = sfn.start_execution(stateMachineArn=arn)["executionArn"]
    emulator_server.emulator.engine.run_until_idle(timeout=30)
    sfn.stop_execution(executionArn=execution, error="Stopped", cause="by the test")
    assert sfn.describe_execution(executionArn=execution)["status"] == "ABORTED"
    consumers = emulator_server.emulator.events.publish(GO)[0]["consumedBy"]
    assert execution not in consumers


def test_update_versions_and_aliases_run_the_workflow_they_hold(emulator_server, sfn) -> None:
    arn = sfn.create_state_machine(name="versioned", roleArn=ROLE, definition=json.dumps(AWAITING),
                                   publish=True)["stateMachineArn"]
    changed = {**AWAITING, "states": [{"name": "Hello", "type": "inject", "start": {"kind": "default"},
                                       "data": {"v": 2}, "end": {"kind": "default"}}]}
    version = sfn.update_state_machine(stateMachineArn=arn, definition=json.dumps(changed), publish=True)["stateMachineVersionArn"]
    alias = sfn.create_state_machine_alias(name="live", routingConfiguration=[{"stateMachineVersionArn": version, "weight": 100}])
    execution = sfn.start_execution(stateMachineArn=alias["stateMachineAliasArn"])["executionArn"]
    emulator_server.emulator.engine.run_until_idle(timeout=30)
    described = sfn.describe_execution(executionArn=execution)
    assert (described["status"], json.loads(described["output"])) == ("SUCCEEDED", {"v": 2})


def test_the_dialect_tag_decides_over_the_shape(emulator_server, sfn) -> None:
    tag = [{"key": "sfn-emulator:dialect", "value": "serverless-workflow"}]
    asl = json.dumps({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})
    with pytest.raises(sfn.exceptions.InvalidDefinition, match="states"):
        sfn.create_state_machine(name="asl-as-sw", roleArn=ROLE, definition=asl, tags=tag)
    yaml_text = "id: y\nname: Y\nstates:\n- name: A\n  type: inject\n  start: {kind: default}\n  end: {kind: default}\n"
    arn = sfn.create_state_machine(name="yaml-sw", roleArn=ROLE, definition=yaml_text, tags=tag)["stateMachineArn"]
    assert sfn.describe_state_machine(stateMachineArn=arn)["definition"] == yaml_text


def test_the_pytest_plugin_publishes_events_and_reads_produced_ones(sfn_emulator) -> None:
    producer = {"id": "p", "name": "Producer", "events": [{"name": "Done", "type": "done", "kind": "produced"}],
                "states": [{"name": "Finish", "type": "inject", "start": {"kind": "default"}, "data": {"ok": True},
                            "end": {"kind": "event", "produceEvent": {"eventRef": "Done", "data": "{{ $.ok }}"}}}]}
    result = sfn_emulator.run(producer)
    result.assert_succeeded(output={"ok": True})
    [event] = sfn_emulator.produced_events(result.execution_arn)
    assert (event["type"], event["data"], event["specversion"]) == ("done", True, "1.0")
    with pytest.raises(ValueError, match="'source'"):
        sfn_emulator.publish_event({"specversion": "1.0", "id": "x", "type": "t"})
