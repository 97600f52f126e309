"""`previousEventId` as AWS writes it: each table row's history is the one AWS recorded for the
same kind of machine (LocalStack's AWS-validated snapshots of its base scenarios, assign, callback
and error-handling tests), as (event type, previousEventId) in order; ids run 1, 2, 3, ..."""

from __future__ import annotations

from typing import Any

import pytest
from engine_harness import Harness

LAMBDA_INVOKE = "arn:aws:states:::lambda:invoke"
FAIL = {"Type": "Fail", "Error": "Boom"}
DONE = {"Type": "Pass", "End": True}
AGAIN = [{"ErrorEquals": ["States.ALL"], "IntervalSeconds": 1, "MaxAttempts": 2, "BackoffRate": 1}]
CAUGHT = [{"ErrorEquals": ["States.ALL"], "Next": "Handled"}]


def map_of(processor: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"Type": "Map", "ItemsPath": "$.items", "ItemProcessor": {"StartAt": "Item", "States": {"Item": processor}},
            **fields}


HISTORIES = [
    ("the first state links to no event",
     {"StartAt": "P", "States": {"P": DONE}},
     [("ExecutionStarted", 0), ("PassStateEntered", 0), ("PassStateExited", 2), ("ExecutionSucceeded", 3)]),
    ("Map iterations link one after the other",
     {"StartAt": "M", "States": {"M": map_of({"Type": "Pass", "End": True}, End=True)}},
     [("ExecutionStarted", 0), ("MapStateEntered", 0), ("MapStateStarted", 2), ("MapIterationStarted", 3),
      ("PassStateEntered", 4), ("PassStateExited", 5), ("MapIterationSucceeded", 6), ("MapIterationStarted", 6),
      ("PassStateEntered", 8), ("PassStateExited", 9), ("MapIterationSucceeded", 10), ("MapStateSucceeded", 11),
      ("MapStateExited", 11), ("ExecutionSucceeded", 13)]),
    ("a retried Map starts again from the failed iteration",
     {"StartAt": "M", "States": {"M": map_of(FAIL, End=True, Retry=AGAIN)}},
     [("ExecutionStarted", 0), ("MapStateEntered", 0), ("MapStateStarted", 2), ("MapIterationStarted", 3),
      ("FailStateEntered", 4), ("MapIterationFailed", 5), ("MapStateStarted", 5), ("MapIterationStarted", 7),
      ("FailStateEntered", 8), ("MapIterationFailed", 9), ("MapStateStarted", 9), ("MapIterationStarted", 11),
      ("FailStateEntered", 12), ("MapIterationFailed", 13), ("MapStateFailed", 13), ("ExecutionFailed", 15)]),
    ("a caught Map failure",
     {"StartAt": "M", "States": {"M": map_of(FAIL, Next="Done", Catch=CAUGHT), "Handled": DONE, "Done": DONE}},
     [("ExecutionStarted", 0), ("MapStateEntered", 0), ("MapStateStarted", 2), ("MapIterationStarted", 3),
      ("FailStateEntered", 4), ("MapIterationFailed", 5), ("MapStateFailed", 5), ("MapStateExited", 7),
      ("PassStateEntered", 8), ("PassStateExited", 9), ("ExecutionSucceeded", 10)]),
    ("a retried Parallel starts again from the failed branch",
     {"StartAt": "P", "States": {"P": {"Type": "Parallel", "End": True, "Retry": AGAIN,
                                       "Branches": [{"StartAt": "F", "States": {"F": FAIL}}]}}},
     [("ExecutionStarted", 0), ("ParallelStateEntered", 0), ("ParallelStateStarted", 2), ("FailStateEntered", 3),
      ("ParallelStateStarted", 4), ("FailStateEntered", 5), ("ParallelStateStarted", 6), ("FailStateEntered", 7),
      ("ParallelStateFailed", 8), ("ExecutionFailed", 9)]),
    ("a caught Parallel failure",
     {"StartAt": "P", "States": {"P": {"Type": "Parallel", "Next": "Done", "Catch": CAUGHT,
                                       "Branches": [{"StartAt": "F", "States": {"F": FAIL}}]},
                                 "Handled": DONE, "Done": DONE}},
     [("ExecutionStarted", 0), ("ParallelStateEntered", 0), ("ParallelStateStarted", 2), ("FailStateEntered", 3),
      ("ParallelStateFailed", 4), ("ParallelStateExited", 5), ("PassStateEntered", 6), ("PassStateExited", 7),
      ("ExecutionSucceeded", 8)]),
    ("a caught Task failure",
     {"StartAt": "T", "States": {"T": {"Type": "Task", "Resource": LAMBDA_INVOKE, "Next": "Done", "Catch": CAUGHT,
                                       "Parameters": {"FunctionName": "raise_exception"}},
                                 "Handled": DONE, "Done": DONE}},
     [("ExecutionStarted", 0), ("TaskStateEntered", 0), ("TaskScheduled", 2), ("TaskStarted", 3), ("TaskFailed", 4),
      ("TaskStateExited", 5), ("PassStateEntered", 6), ("PassStateExited", 7), ("ExecutionSucceeded", 8)]),
    ("a JSONata Output failing in a Pass",
     {"QueryLanguage": "JSONata", "StartAt": "P", "States": {"P": {"Type": "Pass", "Output": "{% $x.y() %}",
                                                                   "End": True}}},
     [("ExecutionStarted", 0), ("PassStateEntered", 0), ("EvaluationFailed", 0), ("ExecutionFailed", 3)]),
    ("a JSONata Timestamp failing in a Wait",
     {"QueryLanguage": "JSONata", "StartAt": "W", "States": {"W": {"Type": "Wait", "Timestamp": "{% 'not a date' %}",
                                                                   "End": True}}},
     [("ExecutionStarted", 0), ("WaitStateEntered", 0), ("EvaluationFailed", 2), ("ExecutionFailed", 3)]),
]


@pytest.mark.parametrize(("machine", "expected"), [case[1:] for case in HISTORIES], ids=[case[0] for case in HISTORIES])
def test_previous_event_ids_are_aws_s(machine: dict[str, Any], expected: list[tuple[str, int]]) -> None:
    with Harness(mode="auto", functions={"raise_exception": "raise_exception"}) as harness:
        execution = harness.run(machine, {"items": [1, 2]})
    history = [(event["type"], event["previousEventId"]) for event in execution.history]
    assert history == expected
    assert [event["id"] for event in execution.history] == list(range(1, len(expected) + 1))


def test_a_stopped_execution_s_aborted_event_links_to_no_event() -> None:
    with Harness(mode="manual") as harness:
        execution = harness.start({"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 60, "End": True}}})
        harness.settle()
        harness.engine.stop(execution)
    assert [(event["type"], event["previousEventId"]) for event in execution.history] == [
        ("ExecutionStarted", 0), ("WaitStateEntered", 0), ("ExecutionAborted", 0)]
