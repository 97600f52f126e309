"""The interpreter is sans-IO: it runs with no scheduler, no thread and no clock of its own.

Each test drives `run_execution` by hand with a tiny loop that answers its effects (sleeping moves
a counter of virtual time, a task calls a Python function, a fork runs its children one after the
other), and reads what it returned and the history it wrote.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

import pytest

from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.parser import parse_definition
from sfn_emulator.engine.effects import EnterState, Fork, Interpreter, Invoke, Reschedule, Sleep
from sfn_emulator.engine.execution import Execution
from sfn_emulator.engine.frame import Run
from sfn_emulator.engine.interpreter import run_execution
from sfn_emulator.resources.outcomes import Succeeded

START = datetime(2024, 1, 1, tzinfo=timezone.utc)
FUNCTION = "arn:aws:lambda:us-east-1:111111111111:function:work"


@dataclass
class World:
    """What answers the interpreter's effects: a virtual time, and the Lambda function's behaviour."""

    function: Callable[[Any], Any] = lambda payload: payload
    now: datetime = START
    calls: list[Any] = field(default_factory=list)

    def drive(self, interpreter: Interpreter) -> Any:
        """Run `interpreter` to its end, answering each effect; returns its result (raises its error)."""
        answer: Any = None
        error: BaseException | None = None
        while True:
            try:
                effect = interpreter.throw(error) if error is not None else interpreter.send(answer)
            except StopIteration as finished:
                return finished.value
            answer, error = None, None
            try:
                answer = self.answer(effect)
            except StatesError as failure:
                error = failure

    def answer(self, effect: Any) -> Any:
        match effect:
            case EnterState() | Reschedule():
                return None
            case Sleep(until=until):
                self.now = max(self.now, until)
                return None
            case Invoke(request=request):
                self.calls.append(request.payload)
                return Succeeded(self.function(request.payload))
            case Fork(children=children):
                return [self.drive(child()) for child in children]
        raise AssertionError(f"unexpected effect {effect!r}")


def execute(definition: dict[str, Any], value: Any, world: World) -> tuple[Any, list[str], Execution]:
    """Run a definition on `value` in `world`; its output, the types of its history events, the record."""
    execution = Execution(
        arn="arn:aws:states:us-east-1:111111111111:execution:m:e", name="e",
        state_machine_arn="arn:aws:states:us-east-1:111111111111:stateMachine:m", state_machine_name="m",
        machine=parse_definition(json.dumps(definition)), definition=json.dumps(definition), input=json.dumps(value),
        start_date=START, account="111111111111", region="us-east-1", role_arn="arn:aws:iam::111111111111:role/r",
    )
    output = world.drive(run_execution(Run(execution, now=lambda: world.now)))
    return output, [event["type"] for event in execution.history], execution


def test_pass_wait_and_choice_run_on_virtual_time_alone() -> None:
    world = World()
    definition = {"StartAt": "Shape", "States": {
        "Shape": {"Type": "Pass", "Parameters": {"n.$": "$.n", "delay": 30}, "Next": "Hold"},
        "Hold": {"Type": "Wait", "SecondsPath": "$.delay", "Next": "Pick"},
        "Pick": {"Type": "Choice", "Choices": [{"Variable": "$.n", "NumericGreaterThan": 1, "Next": "Big"}],
                 "Default": "Small"},
        "Big": {"Type": "Pass", "Result": "big", "ResultPath": "$.size", "End": True},
        "Small": {"Type": "Succeed"},
    }}

    output, events, execution = execute(definition, {"n": 2}, world)

    assert output == {"n": 2, "delay": 30, "size": "big"}
    assert world.now == START + timedelta(seconds=30)
    assert events == ["PassStateEntered", "PassStateExited", "WaitStateEntered", "WaitStateExited",
                      "ChoiceStateEntered", "ChoiceStateExited", "PassStateEntered", "PassStateExited"]
    assert list(execution.rules_taken.values()) == [["Choices[0]"]]


def test_a_task_is_retried_after_its_interval_then_caught() -> None:
    def failing(payload: Any) -> Any:
        raise StatesError("Boom", "it broke")

    world = World(function=failing)
    definition = {"StartAt": "Work", "States": {
        "Work": {"Type": "Task", "Resource": FUNCTION, "End": True,
                 "Retry": [{"ErrorEquals": ["Boom"], "IntervalSeconds": 2, "MaxAttempts": 1}],
                 "Catch": [{"ErrorEquals": ["States.ALL"], "ResultPath": "$.error", "Next": "Recovered"}]},
        "Recovered": {"Type": "Pass", "End": True},
    }}

    output, events, _ = execute(definition, {"job": 1}, world)

    assert output == {"job": 1, "error": {"Error": "Boom", "Cause": "it broke"}}
    assert world.calls == [{"job": 1}, {"job": 1}]
    assert world.now == START + timedelta(seconds=2)
    assert events == ["TaskStateEntered", "LambdaFunctionScheduled", "LambdaFunctionStarted", "LambdaFunctionFailed",
                      "LambdaFunctionScheduled", "LambdaFunctionStarted", "LambdaFunctionFailed", "TaskStateExited",
                      "PassStateEntered", "PassStateExited"]


def test_parallel_branches_and_map_iterations_are_forks_the_loop_runs() -> None:
    world = World(function=lambda payload: payload * 10)
    definition = {"StartAt": "Both", "States": {"Both": {"Type": "Parallel", "End": True, "Branches": [
        {"StartAt": "Each", "States": {"Each": {"Type": "Map", "ItemsPath": "$.items", "End": True, "ItemProcessor": {
            "StartAt": "Times", "States": {"Times": {"Type": "Task", "Resource": FUNCTION, "End": True}}}}}},
        {"StartAt": "Count", "States": {"Count": {"Type": "Pass", "OutputPath": "$.label", "End": True}}},
    ]}}}

    output, events, _ = execute(definition, {"items": [1, 2], "label": "two"}, world)

    assert output == [[10, 20], "two"]
    assert events.count("MapIterationSucceeded") == 2
    assert events[-1] == "ParallelStateExited"


@pytest.mark.parametrize("query_language", ["JSONPath", "JSONata"])
def test_the_same_machine_in_either_language_gives_the_same_output(query_language: str) -> None:
    """The interpreter runs both through each state's input/output processing, without asking which."""
    states = {
        "JSONPath": {"Add": {"Type": "Task", "Resource": FUNCTION, "Parameters": {"n.$": "$.n"},
                             "ResultSelector": {"sum.$": "$.n"}, "ResultPath": "$.result", "OutputPath": "$.result",
                             "Assign": {"seen.$": "$.n"}, "End": True}},
        "JSONata": {"Add": {"Type": "Task", "Resource": FUNCTION, "Arguments": {"n": "{% $states.input.n %}"},
                            "Output": {"sum": "{% $states.result.n %}"}, "Assign": {"seen": "{% $states.result.n %}"},
                            "End": True}},
    }[query_language]
    world = World(function=lambda payload: {"n": payload["n"] + 1})

    output, events, execution = execute({"QueryLanguage": query_language, "StartAt": "Add", "States": states},
                                        {"n": 1}, world)

    assert output == {"sum": 2}
    assert world.calls == [{"n": 1}]
    assert execution.history[-1]["stateExitedEventDetails"]["assignedVariables"] == {"seen": "2"}
    assert events[0] == "TaskStateEntered"
