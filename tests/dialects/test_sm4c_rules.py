"""SM4C's own rules, each read from its runtime (github.com/jplane/StateMachinesForCloud) and checked
across its cases: which events an event definition matches, the shape of the error an error handler
receives, the transitions validation warns can never fire, and the trigger labels of its graphs."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

import pytest
from helpers.dialect_driver import Driver
from sw_functions import behaviour

from sfn_emulator import dialects
from sfn_emulator.config import Settings
from sfn_emulator.coverage.report import write_html
from sfn_emulator.dialects.sm4c.parser import TRANSITION_NEVER_FIRES, validate_document
from sfn_emulator.graphs.render import dot, mermaid
from sfn_emulator.runtime import Emulator
from sfn_emulator.wire.insight_api import machine_graph

ROLE = "arn:aws:iam::123456789012:role/sm4c"


def _start(driver: Driver, document: dict[str, Any]) -> str:
    arn = driver.call("create_state_machine", name="machine", roleArn=ROLE, definition=json.dumps(document))["stateMachineArn"]
    execution = driver.call("start_execution", stateMachineArn=arn, input="{}")["executionArn"]
    driver.settle()
    return execution


# -- an event definition matches on type and source, each only where it is given ------------------------
def _waiting_for(definition: dict[str, Any]) -> dict[str, Any]:
    """A machine whose one state waits for the event `Arrived` (then `Matched`) or a minute (then `Unmatched`)."""
    return {"id": "events", "version": "1.0", "name": "Events", "events": [{"name": "Arrived", **definition}],
            "states": [{"name": "Waiting", "start": True, "transitions": [
                {"eventGroups": [{"events": ["Arrived"]}], "nextState": "Matched"},
                {"timeout": "PT1M", "nextState": "Unmatched"}]},
                {"name": "Matched"}, {"name": "Unmatched"}]}


def _event(**attributes: str) -> dict[str, Any]:
    return {"specversion": "1.0", "id": "e-1", "data": {}, **attributes}


@pytest.mark.parametrize(("definition", "event", "matched"), [
    ({"type": "t"}, _event(type="t", source="anywhere"), True),
    ({"type": "t"}, _event(type="other", source="anywhere"), False),
    ({"source": "s"}, _event(type="anything", source="s"), True),
    ({"source": "s"}, _event(type="anything", source="elsewhere"), False),
    ({"type": "t", "source": "s"}, _event(type="t", source="s"), True),
    ({"type": "t", "source": "s"}, _event(type="t", source="elsewhere"), False),
    ({"type": "t", "source": "s"}, _event(type="other", source="s"), False),
    # The definition's name is never compared: not as the type, not as anything else.
    ({"source": "s"}, _event(type="Arrived", source="elsewhere"), False),
    ({"type": "t"}, _event(type="Arrived", source="s"), False),
    ({}, _event(type="whatever", source="wherever"), True),
], ids=["type given, same", "type given, other", "source given, same", "source given, other", "both, same",
        "both, other source", "both, other type", "name is not the type (source given)",
        "name is not the type (type given)", "neither given: any event"])
def test_an_event_definition_matches_on_type_and_source_where_given(driver: Driver, definition: dict[str, Any],
                                                                    event: dict[str, Any], matched: bool) -> None:
    execution = _start(driver, _waiting_for(definition))
    driver.run_steps([{"publish": event}, {"advance": 60}])
    driver.check_execution(execution, {"status": "SUCCEEDED",
                                       "visited": ["Waiting", "Matched" if matched else "Unmatched"]})


# -- an error handler receives the error as SM4C passes it ------------------------------------------------
def _failing(function: str) -> dict[str, Any]:
    return {"id": "errors", "version": "1.0", "name": "Errors", "functions": [{"name": function, "operation": function}],
            "states": [{"name": "Call", "start": True, "enterAction": {
                "type": "invokeFunction", "functionName": function, "waitForCompletion": True,
                "errorHandlers": [{"condition": "${ .ClassName != null and .Message != null }",
                                   "resultHandler": "${ .caught = $value }"}]}}]}


@pytest.mark.parametrize(("function", "registered", "class_name", "message"), [
    ("f", "fail", "FunctionExecutionError", "Write permission denied"),
    ("missing", None, "States.Runtime", "missing"),
], ids=["the function fails", "no callable for the function"])
def test_an_error_handler_receives_the_exception_as_sm4c_serializes_it(driver: Driver, function: str,
                                                                         registered: str | None, class_name: str,
                                                                         message: str) -> None:
    if registered is not None:
        driver.emulator.functions.register(function, behaviour(registered))
    execution = _start(driver, _failing(function))
    described = driver.call("describe_execution", executionArn=execution)
    assert described["status"] == "SUCCEEDED", described
    caught = json.loads(described["output"])["caught"]
    assert list(caught) == ["ClassName", "Message", "Data", "InnerException", "HelpURL", "StackTraceString",
                            "RemoteStackTraceString", "RemoteStackIndex", "ExceptionMethod", "HResult", "Source",
                            "WatsonBuckets"]
    assert (caught["ClassName"], caught["HResult"], caught["RemoteStackIndex"]) == (class_name, -2146233088, 0)
    assert message in caught["Message"]
    assert ("_fail" in caught["StackTraceString"]) if registered else caught["StackTraceString"] is None
    assert {key: caught[key] for key in ("Data", "InnerException", "HelpURL", "RemoteStackTraceString",
                                         "ExceptionMethod", "Source", "WatsonBuckets")} == dict.fromkeys(
        ("Data", "InnerException", "HelpURL", "RemoteStackTraceString", "ExceptionMethod", "Source", "WatsonBuckets"))


# -- validation warns where a transition can never fire ---------------------------------------------------
def _state(*transitions: dict[str, Any]) -> dict[str, Any]:
    return {"id": "w", "version": "1.0", "name": "W", "events": [{"name": "E", "type": "e"}],
            "states": [{"name": "A", "start": True, "transitions": list(transitions)},
                       {"name": "B", "transitions": [{"nextState": "C"}]}, {"name": "C"}]}


IMPLICIT = {"nextState": "B"}
ALWAYS = {"condition": "${ true }", "nextState": "B"}
BARE_ALWAYS = {"condition": " true ", "nextState": "B"}
CONDITION = {"condition": "${ .go }", "nextState": "B"}
ON_EVENT = {"eventGroups": [{"events": ["E"]}], "nextState": "B"}
ON_TIMEOUT = {"timeout": "PT1M", "nextState": "B"}


@pytest.mark.parametrize(("transitions", "never_firing"), [
    ((IMPLICIT, CONDITION), [1]),
    ((CONDITION, IMPLICIT), [0]),  # the implicit transition is taken first wherever it stands
    ((IMPLICIT, ON_EVENT, ON_TIMEOUT), [1, 2]),
    ((ALWAYS, CONDITION), [1]),
    ((BARE_ALWAYS, CONDITION, ON_EVENT, ON_TIMEOUT), [1, 2, 3]),
    ((CONDITION, ALWAYS, CONDITION), [2]),  # a condition before the constant one can still fire
    ((CONDITION, ON_EVENT, ON_TIMEOUT), []),
    ((IMPLICIT,), []),
], ids=["condition after implicit", "condition before implicit", "events and timeout beside implicit",
        "condition after ${ true }", "everything after bare true", "only what follows true",
        "every trigger kind, none shadowed", "one implicit"])
def test_validation_warns_of_transitions_that_never_fire(transitions: tuple[dict[str, Any], ...],
                                                         never_firing: list[int]) -> None:
    diagnostics = validate_document(json.dumps(_state(*transitions)))
    assert [d.severity for d in diagnostics if d.code != TRANSITION_NEVER_FIRES] == []
    assert [(d.severity, d.location) for d in diagnostics if d.code == TRANSITION_NEVER_FIRES] == [
        ("WARNING", f"/states/0/transitions/{index}") for index in never_firing]


def test_the_api_reports_the_warning_when_asked_for_warnings(driver: Driver) -> None:
    definition = json.dumps(_state(IMPLICIT, CONDITION))
    plain = driver.call("validate_state_machine_definition", definition=definition)
    assert (plain["result"], plain["diagnostics"]) == ("OK", [])
    warned = driver.call("validate_state_machine_definition", definition=definition, severity="WARNING")
    assert warned["result"] == "OK"
    assert [(d["severity"], d["code"], d["location"]) for d in warned["diagnostics"]] == [
        ("WARNING", TRANSITION_NEVER_FIRES, "/states/0/transitions/1")]


# -- graphs, coverage and the console label each transition with its trigger --------------------------------
LABELLED = _state({"condition": "${ .go }", "nextState": "B"},
                  {"eventGroups": [{"events": ["E"]}, {"events": ["E", "E"]}], "nextState": "C"},
                  {"timeout": "PT1M30S", "nextState": "C"})
LABELS = ["${ .go }", "on E & E | E", "after 90s"]


def test_graphs_label_each_transition_with_its_trigger() -> None:
    graph = dialects.graph_of(json.dumps(LABELLED))
    assert [edge.label for edge in graph.edges if edge.source == "A"] == LABELS
    drawn_mermaid, drawn_dot = mermaid(graph), dot(graph)
    for label in LABELS:
        assert f'-->|"{label}"|' in drawn_mermaid
        assert f"label={json.dumps(label)}" in drawn_dot


def test_coverage_pages_and_the_console_draw_the_labels(tmp_path: Path) -> None:
    with Emulator(Settings(clock="manual")) as emulator:
        arn = emulator.service.create_state_machine(name="labelled", roleArn=ROLE,
                                                    definition=json.dumps(LABELLED))["stateMachineArn"]
        emulator.service.start_execution(stateMachineArn=arn, input=json.dumps({"go": True}))
        assert emulator.engine.run_until_idle(timeout=30)
        console_graph = machine_graph(emulator.service, arn, "mermaid")
        write_html(emulator.coverage.json(), tmp_path)
    coverage_page = (tmp_path / "machine-1.html").read_text(encoding="utf-8")
    for label in LABELS:
        assert f'|"{label}"|' in console_graph
        assert html.escape(f'|"{label}"|') in coverage_page
