"""One module owns the names of a Step Functions history: no other module of the package spells an
event type, a details key or `previousEventId` (Amazon SWF's history, another service's, keeps its own
names in `swf/`). The builders write AWS's shapes."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import sfn_emulator
from sfn_emulator.protocol import history_events as events

PACKAGE = Path(sfn_emulator.__file__).parent
OWNER = Path(events.__file__)
OTHER_SERVICES = (PACKAGE / "swf",)
FRAGMENTS = ("EventDetails", "StateEntered", "StateExited")


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the strings that stand alone as statements: docstrings (prose may name events)."""
    return {id(node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}


def _spelled_history_names(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    prose = _docstrings(tree)
    spelled = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str) or id(node) in prose:
            continue
        text = node.value
        if (text in events.EVENT_TYPES or text == events.PREVIOUS_EVENT_ID
                or any(fragment in text for fragment in FRAGMENTS)):
            spelled.append((node.lineno, text))
    return sorted(spelled)


def _package_modules() -> list[Path]:
    return sorted(path for path in PACKAGE.rglob("*.py")
                  if path != OWNER and not any(path.is_relative_to(other) for other in OTHER_SERVICES))


def test_no_module_but_the_owner_spells_an_event_type_or_a_details_key() -> None:
    offenders = {str(path.relative_to(PACKAGE)): spelled
                 for path in _package_modules() if (spelled := _spelled_history_names(path))}
    assert offenders == {}, f"history names spelled outside {OWNER.name}: {offenders}"


def test_the_scan_finds_a_spelled_event_type(tmp_path: Path) -> None:
    module = tmp_path / "reader.py"
    module.write_text('"""A reader that names TaskScheduled in prose only."""\n'
                      'KINDS = ("TaskScheduled", f"{kind}StateEntered")\n'
                      'DETAILS = "taskScheduledEventDetails"\n'
                      'LINK = "previousEventId"\n')
    assert _spelled_history_names(module) == [(2, "StateEntered"), (2, "TaskScheduled"),
                                              (3, "taskScheduledEventDetails"), (4, "previousEventId")]


NOT_TRUNCATED = {"truncated": False}
TASK = events.TaskEvents("lambda", "invoke")
BUILT = [
    (events.execution_started("{}", "arn:aws:iam::123456789012:role/r"),
     ("ExecutionStarted", "executionStartedEventDetails",
      {"input": "{}", "inputDetails": NOT_TRUNCATED, "roleArn": "arn:aws:iam::123456789012:role/r"})),
    (events.execution_started("{}", "role", "alias", "version"),
     ("ExecutionStarted", "executionStartedEventDetails",
      {"input": "{}", "inputDetails": NOT_TRUNCATED, "roleArn": "role", "stateMachineAliasArn": "alias",
       "stateMachineVersionArn": "version"})),
    (events.execution_succeeded("1"), ("ExecutionSucceeded", "executionSucceededEventDetails",
                                       {"output": "1", "outputDetails": NOT_TRUNCATED})),
    (events.execution_failed("E", None), ("ExecutionFailed", "executionFailedEventDetails", {"error": "E"})),
    (events.execution_aborted(None, None), ("ExecutionAborted", "executionAbortedEventDetails", {})),
    (events.execution_timed_out(), ("ExecutionTimedOut", "executionTimedOutEventDetails", {})),
    (events.execution_redriven(2), ("ExecutionRedriven", "executionRedrivenEventDetails", {"redriveCount": 2})),
    (events.state_entered("Pass", "P", "{}"), ("PassStateEntered", "stateEnteredEventDetails",
                                              {"name": "P", "input": "{}", "inputDetails": NOT_TRUNCATED})),
    (events.state_exited("Choice", "C", "{}"), ("ChoiceStateExited", "stateExitedEventDetails",
                                               {"name": "C", "output": "{}", "outputDetails": NOT_TRUNCATED})),
    (events.state_exited("Pass", "P", "{}", {"x": "1"}),
     ("PassStateExited", "stateExitedEventDetails",
      {"name": "P", "output": "{}", "outputDetails": NOT_TRUNCATED, "assignedVariables": {"x": "1"},
       "assignedVariablesDetails": NOT_TRUNCATED})),
    (events.state_exited("Pass", "P", "{}", {}), ("PassStateExited", "stateExitedEventDetails",
                                                 {"name": "P", "output": "{}", "outputDetails": NOT_TRUNCATED})),
    (events.state_failed("Map"), ("MapStateFailed", None, None)),
    (events.state_aborted("Wait"), ("WaitStateAborted", None, None)),
    (events.evaluation_failed("States.QueryEvaluationError", "c", "S", "Arguments"),
     ("EvaluationFailed", "evaluationFailedEventDetails",
      {"error": "States.QueryEvaluationError", "cause": "c", "state": "S", "location": "Arguments"})),
    (events.parallel_state_started(), ("ParallelStateStarted", None, None)),
    (events.parallel_state_succeeded(), ("ParallelStateSucceeded", None, None)),
    (events.map_state_started(3), ("MapStateStarted", "mapStateStartedEventDetails", {"length": 3})),
    (events.map_state_succeeded(), ("MapStateSucceeded", None, None)),
    (events.map_iteration_event(events.MAP_ITERATION_ABORTED, "M", 1),
     ("MapIterationAborted", "mapIterationAbortedEventDetails", {"name": "M", "index": 1})),
    (events.map_run_started("arn"), ("MapRunStarted", "mapRunStartedEventDetails", {"mapRunArn": "arn"})),
    (events.map_run_succeeded(), ("MapRunSucceeded", None, None)),
    (events.map_run_failed("E", "c"), ("MapRunFailed", "mapRunFailedEventDetails", {"error": "E", "cause": "c"})),
    (TASK.scheduled("us-east-1", "{}", 10.5, 3, "role"),
     ("TaskScheduled", "taskScheduledEventDetails",
      {"resourceType": "lambda", "resource": "invoke", "region": "us-east-1", "parameters": "{}",
       "timeoutInSeconds": 10, "heartbeatInSeconds": 3, "taskCredentials": {"roleArn": "role"}})),
    (TASK.started(), ("TaskStarted", "taskStartedEventDetails", {"resourceType": "lambda", "resource": "invoke"})),
    (TASK.submitted("{}"), ("TaskSubmitted", "taskSubmittedEventDetails",
                            {"resourceType": "lambda", "resource": "invoke", "output": "{}",
                             "outputDetails": NOT_TRUNCATED})),
    (TASK.succeeded("{}"), ("TaskSucceeded", "taskSucceededEventDetails",
                            {"resourceType": "lambda", "resource": "invoke", "output": "{}",
                             "outputDetails": NOT_TRUNCATED})),
    (TASK.ended(True, "States.Timeout", None), ("TaskTimedOut", "taskTimedOutEventDetails",
                                                {"resourceType": "lambda", "resource": "invoke",
                                                 "error": "States.Timeout"})),
    (TASK.ended(False, "E", "c"), ("TaskFailed", "taskFailedEventDetails",
                                   {"resourceType": "lambda", "resource": "invoke", "error": "E", "cause": "c"})),
    (events.LambdaFunctionEvents().scheduled("arn:fn", "{}", 5, None),
     ("LambdaFunctionScheduled", "lambdaFunctionScheduledEventDetails",
      {"resource": "arn:fn", "input": "{}", "inputDetails": NOT_TRUNCATED, "timeoutInSeconds": 5})),
    (events.LambdaFunctionEvents().started(), ("LambdaFunctionStarted", None, None)),
    (events.LambdaFunctionEvents().succeeded("1"), ("LambdaFunctionSucceeded", "lambdaFunctionSucceededEventDetails",
                                                    {"output": "1", "outputDetails": NOT_TRUNCATED})),
    (events.LambdaFunctionEvents().ended(True, "States.Timeout", None),
     ("LambdaFunctionTimedOut", "lambdaFunctionTimedOutEventDetails", {"error": "States.Timeout"})),
    (events.ActivityEvents().scheduled("arn:act", "{}", None, 7),
     ("ActivityScheduled", "activityScheduledEventDetails",
      {"resource": "arn:act", "input": "{}", "inputDetails": NOT_TRUNCATED, "heartbeatInSeconds": 7})),
    (events.ActivityEvents().started("worker-1"), ("ActivityStarted", "activityStartedEventDetails",
                                                   {"workerName": "worker-1"})),
    (events.ActivityEvents().started(), ("ActivityStarted", "activityStartedEventDetails", {})),
    (events.ActivityEvents().ended(False, "E", None), ("ActivityFailed", "activityFailedEventDetails", {"error": "E"})),
]


@pytest.mark.parametrize(("built", "recorded"), BUILT, ids=[recorded[0] for _, recorded in BUILT])
def test_each_builder_writes_the_event_as_aws_records_it(built: events.EventBody, recorded: tuple) -> None:
    assert (built.type, built.details_key, built.details) == recorded
    assert built.type in events.EVENT_TYPES
    # members in AWS's order, as GetExecutionHistory answers them
    assert list(built.details or {}) == list(recorded[2] or {})


@pytest.mark.parametrize(("event_type", "key"), [
    ("TaskScheduled", "taskScheduledEventDetails"), ("LambdaFunctionScheduleFailed", "lambdaFunctionScheduleFailedEventDetails"),
    ("MapRunRedriven", "mapRunRedrivenEventDetails"), ("TaskStateEntered", "stateEnteredEventDetails"),
    ("ParallelStateExited", "stateExitedEventDetails"), ("FailStateEntered", "stateEnteredEventDetails"),
])
def test_details_key_of_an_event_type(event_type: str, key: str) -> None:
    assert events.details_key(event_type) == key


@pytest.mark.parametrize(("event_type", "entered", "exited", "state_type", "branching"), [
    ("MapStateEntered", "Map", None, "Map", "Map"), ("MapStateExited", None, "Map", "Map", "Map"),
    ("MapIterationStarted", None, None, None, "Map"), ("MapRunStarted", None, None, None, None),
    ("ParallelStateFailed", None, None, "Parallel", "Parallel"), ("TaskStateAborted", None, None, "Task", None),
    ("TaskScheduled", None, None, None, None), ("ExecutionStarted", None, None, None, None),
])
def test_what_an_event_type_says_of_its_state(event_type: str, entered: str | None, exited: str | None,
                                               state_type: str | None, branching: str | None) -> None:
    assert (events.entered_state_type(event_type), events.exited_state_type(event_type),
            events.state_type_of(event_type), events.branching_state_type(event_type)) == \
        (entered, exited, state_type, branching)
