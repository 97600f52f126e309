"""Executions that never wait: AWS's 25,000-event history quota ends them, and while they run every
other execution, StopExecution and closing the engine still get their turn.

The quota (AWS developer guide, "Avoid reaching the history quota"): once an execution has 24,999
events, event 25,000 may be ExecutionSucceeded; anything else is replaced by ExecutionFailed with
States.Runtime, "The execution reached the maximum number of history events (25000)." Events of
Parallel branches and inline Map iterations count in the execution's own history.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from engine_harness import WAIT_LIMIT_SECONDS, Harness, event_types
from helpers.runaway import HISTORY_LIMIT_CAUSE, LOOP, LOOP_STATES, QUICK, SLOW_LOOP

from sfn_emulator.clock.virtual_clock import wall_monotonic
from sfn_emulator.engine import Execution

LIMIT = 25_000
JSONATA_LOOP = {"QueryLanguage": "JSONata", "StartAt": "Again", "States": {
    "Again": {"Type": "Pass", "Next": "Check"},
    "Check": {"Type": "Choice", "Choices": [{"Condition": "{% $states.input.x = 0 %}", "Next": "Out"}],
              "Default": "Again"},
    "Out": {"Type": "Succeed"},
}}
IN_PARALLEL_BRANCH = {"StartAt": "Both", "States": {"Both": {"Type": "Parallel", "End": True, "Branches": [
    LOOP, {"StartAt": "Quick", "States": {"Quick": {"Type": "Pass", "End": True}}}]}}}
IN_MAP_ITERATION = {"StartAt": "Each", "States": {"Each": {
    "Type": "Map", "ItemsPath": "$.items", "End": True,
    "ItemProcessor": {"ProcessorConfig": {"Mode": "INLINE"}, "StartAt": "Again", "States": LOOP_STATES}}}}


def counting_to(last: int) -> dict[str, Any]:
    """Counts from its input up to `last`: 4 events per count, 4 more to start and end (4 * last + 4)."""
    return {"QueryLanguage": "JSONata", "StartAt": "Count", "States": {
        "Count": {"Type": "Pass", "Output": "{% $states.input + 1 %}", "Next": "Check"},
        "Check": {"Type": "Choice", "Choices": [{"Condition": f"{{% $states.input >= {last} %}}", "Next": "Done"}],
                  "Default": "Count"},
        "Done": {"Type": "Succeed"},
    }}


def run_to_end(harness: Harness, machine: dict[str, Any], execution_input: Any, **kwargs: Any) -> Execution:
    """Tens of thousands of events take a while on a loaded machine: a generous bound, still a bound."""
    execution = harness.start(machine, execution_input, **kwargs)
    assert harness.engine.wait(execution, 20 * WAIT_LIMIT_SECONDS), f"still {execution.status}"
    return execution


def assert_failed_at_the_quota(execution: Execution) -> None:
    assert (execution.status, execution.error, execution.cause) == ("FAILED", "States.Runtime", HISTORY_LIMIT_CAUSE)
    assert len(execution.history) == LIMIT
    assert [event["id"] for event in execution.history] == list(range(1, LIMIT + 1))
    assert execution.history[-1]["type"] == "ExecutionFailed"
    assert execution.history[-1]["executionFailedEventDetails"] == {"error": "States.Runtime", "cause": HISTORY_LIMIT_CAUSE}


@pytest.mark.parametrize(("machine", "execution_input"), [
    pytest.param(LOOP, {"x": 1}, id="jsonpath-top-level"),
    pytest.param(JSONATA_LOOP, {"x": 1}, id="jsonata-top-level"),
    pytest.param(IN_PARALLEL_BRANCH, {"x": 1}, id="parallel-branch"),
    pytest.param(IN_MAP_ITERATION, {"items": [{"x": 0}, {"x": 1}, {"x": 0}]}, id="inline-map-iteration"),
])
def test_a_loop_with_no_wait_fails_at_the_history_quota(machine: dict[str, Any], execution_input: Any) -> None:
    with Harness() as harness:
        execution = run_to_end(harness, machine, execution_input)
    assert_failed_at_the_quota(execution)


@pytest.mark.parametrize(("last", "status", "events"), [
    pytest.param(6249, "SUCCEEDED", LIMIT, id="event-25000-is-ExecutionSucceeded"),
    pytest.param(6250, "FAILED", LIMIT, id="event-25000-would-be-a-state-event"),
])
def test_event_25000_may_only_be_execution_succeeded(last: int, status: str, events: int) -> None:
    with Harness() as harness:
        execution = run_to_end(harness, counting_to(last), 0)
    assert (execution.status, len(execution.history)) == (status, events)
    if status == "SUCCEEDED":
        assert execution.output == str(last)
    else:
        assert_failed_at_the_quota(execution)


def test_express_executions_have_no_history_quota() -> None:
    with Harness() as harness:
        execution = run_to_end(harness, counting_to(6250), 0, state_machine_type="EXPRESS")
    assert (execution.status, execution.output, len(execution.history)) == ("SUCCEEDED", "6250", 6250 * 4 + 4)


def test_other_executions_finish_beside_a_loop_with_no_wait_and_stop_ends_it() -> None:
    with Harness() as harness:
        loop = harness.start(SLOW_LOOP, 1)
        others = [harness.start(QUICK, {"n": n}) for n in range(20)]
        for other in others:
            harness.finish(other)
        assert [json.loads(other.output or "") for other in others] == [{"n": n} for n in range(20)]
        assert loop.is_running
        harness.engine.stop(loop, "Enough", "the test is done")
        assert (loop.status, loop.error, loop.cause) == ("ABORTED", "Enough", "the test is done")
        assert event_types(loop)[-1] == "ExecutionAborted"
        assert len(loop.history) < LIMIT


def test_close_stops_an_engine_busy_with_a_loop() -> None:
    harness = Harness()
    try:
        loop = harness.start(SLOW_LOOP, 1)
        deadline = wall_monotonic() + WAIT_LIMIT_SECONDS
        while len(loop.history) < 10 and wall_monotonic() < deadline:
            harness.engine.run_until_idle(0.05)  # a bounded poll: the loop never becomes idle
        assert len(loop.history) >= 10
    finally:
        harness.close()
    assert not harness.engine.running
    assert loop.is_running  # it stopped where it was; nothing recorded after the engine closed
