"""A JSONata expression that never ends (tail recursion never overflows the stack) is stopped after
a bound number of evaluation steps (sfn_emulator.asl.jsonata_expressions.STEP_BUDGET): the state fails
with States.QueryEvaluationError naming the field, and other executions run on. The bound is made
small here so the test is quick; it counts steps, so where it stops does not depend on the machine."""

from __future__ import annotations

import pytest
from engine_harness import Harness

from sfn_emulator.asl import jsonata_expressions

FOREVER = "($loop := function($n){ $loop($n + 1) }; $loop(0))"
PREFIX = "An error occurred while executing the state 'Spin' (entered at the event id #2). "


@pytest.fixture
def small_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonata_expressions, "STEP_BUDGET", 20_000)


@pytest.mark.parametrize("field, state", [
    ("Output", {"Type": "Pass", "Output": "{% " + FOREVER + " %}", "End": True}),
    ("Assign", {"Type": "Pass", "Assign": {"x": "{% " + FOREVER + " %}"}, "End": True}),
    ("Seconds", {"Type": "Wait", "Seconds": "{% " + FOREVER + " %}", "End": True}),
])
@pytest.mark.usefixtures("small_budget")
def test_a_non_terminating_expression_fails_its_state(field: str, state: dict) -> None:
    with Harness() as harness:
        execution = harness.run({"QueryLanguage": "JSONata", "StartAt": "Spin", "States": {"Spin": state}})
    assert (execution.status, execution.error) == ("FAILED", "States.QueryEvaluationError")
    assert execution.cause.startswith(PREFIX + f"The JSONata expression '{FOREVER}' specified for the field '")
    assert execution.cause.endswith("threw an error during evaluation. Evaluation stopped after 20000 steps: "
                                    "check for a non-terminating recursive function or loop.")
    assert field in execution.cause


@pytest.mark.usefixtures("small_budget")
def test_other_executions_run_on_beside_a_runaway_expression() -> None:
    spin = {"QueryLanguage": "JSONata", "StartAt": "Spin",
            "States": {"Spin": {"Type": "Pass", "Output": "{% " + FOREVER + " %}", "End": True}}}
    count = {"QueryLanguage": "JSONata", "StartAt": "Count",
             "States": {"Count": {"Type": "Pass", "Output": "{% $sum([1..1000]) %}", "End": True}}}
    with Harness() as harness:
        runaways = [harness.start(spin) for _ in range(3)]
        counted = harness.run(count)
        ended = [harness.finish(execution) for execution in runaways]
    assert (counted.status, counted.output) == ("SUCCEEDED", "500500")
    assert {execution.error for execution in ended} == {"States.QueryEvaluationError"}


def test_a_large_but_finite_expression_is_within_the_real_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bound leaves room for real work: a 100,000-item $map fits in the budget. Steps grow linearly
    with the items, so a 1,000-item $map within a hundredth of the budget shows it without spending the
    seconds (a wall-clock cost a loaded machine stretches) of the whole run."""
    monkeypatch.setattr(jsonata_expressions, "STEP_BUDGET", jsonata_expressions.STEP_BUDGET // 100)
    state = {"Type": "Pass", "Output": "{% $count($map([1..1000], function($v){ $v * 2 })) %}", "End": True}
    with Harness() as harness:
        execution = harness.run({"QueryLanguage": "JSONata", "StartAt": "Map", "States": {"Map": state}})
    assert (execution.status, execution.output) == ("SUCCEEDED", "1000")
