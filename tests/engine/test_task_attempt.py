"""The one Task attempt sequence every interpreter writes (`engine.task_attempt`), driven by hand:
the work yields one effect, answered with a result or an error; the events it leaves in the history
are those AWS records, for each family of task events."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any, Callable

import pytest

from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.parser import parse_definition
from sfn_emulator.engine.effects import Aborted, Interpreter, Sleep
from sfn_emulator.engine.execution import Execution
from sfn_emulator.engine.frame import Frame, Run
from sfn_emulator.engine.task_attempt import Attempt, task_attempt
from sfn_emulator.protocol import history_events as events

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
DEFINITION = json.dumps({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})
TASK = events.TaskEvents("lambda", "invoke")
LAMBDA = events.LambdaFunctionEvents()
ACTIVITY = events.ActivityEvents()
SCHEDULED = {TASK: TASK.scheduled("us-east-1", "{}"), LAMBDA: LAMBDA.scheduled("arn:fn", "{}"),
             ACTIVITY: ACTIVITY.scheduled("arn:act", "{}")}


def _frame() -> Frame:
    execution = Execution(
        arn="arn:aws:states:us-east-1:111111111111:execution:m:e", name="e",
        state_machine_arn="arn:aws:states:us-east-1:111111111111:stateMachine:m", state_machine_name="m",
        machine=parse_definition(DEFINITION), definition=DEFINITION, input="{}", start_date=NOW,
        account="111111111111", region="us-east-1", role_arn="arn:aws:iam::111111111111:role/r",
    )
    return Frame(Run(execution, now=lambda: NOW), prev_event_id=0)


def _waiting(attempt: Attempt) -> Interpreter:
    return (yield Sleep(NOW))


def _submitting(attempt: Attempt) -> Interpreter:
    attempt.submitted({"JobId": "1"})
    return (yield Sleep(NOW))


def _worker_taking(attempt: Attempt) -> Interpreter:
    attempt.started("worker-1")
    return (yield Sleep(NOW))


def _over_the_quota() -> str:
    raise StatesError("States.DataLimitExceeded", "The state/task returned a result too large")


def _run(family: Any, work: Callable[[Attempt], Interpreter], answer: Any, **options: Any) -> tuple[list[str], Any]:
    frame = _frame()
    attempt = task_attempt(frame, family, SCHEDULED[family], work, **options)
    next(attempt)
    outcome: Any
    try:
        if isinstance(answer, BaseException):
            attempt.throw(answer)
        else:
            attempt.send(answer)
    except StopIteration as stop:
        outcome = stop.value
    except (StatesError, Aborted) as error:
        outcome = type(error).__name__
    history = frame.run.execution.history
    assert [event.previous_event_id for event in history] == list(range(len(history)))  # one line of events
    return [event.type for event in history], outcome


CASES = [
    ("an integration succeeds", TASK, _waiting, {"a": 1}, {},
     ["TaskScheduled", "TaskStarted", "TaskSucceeded"], {"a": 1}),
    ("an integration's job is submitted", TASK, _submitting, 1, {},
     ["TaskScheduled", "TaskStarted", "TaskSubmitted", "TaskSucceeded"], 1),
    ("an integration fails", TASK, _waiting, StatesError("Boom", "why"), {},
     ["TaskScheduled", "TaskStarted", "TaskFailed"], "StatesError"),
    ("an integration times out", TASK, _waiting, StatesError("States.Timeout"), {},
     ["TaskScheduled", "TaskStarted", "TaskTimedOut"], "StatesError"),
    ("a heartbeat is missed", TASK, _waiting, StatesError("States.HeartbeatTimeout"), {},
     ["TaskScheduled", "TaskStarted", "TaskTimedOut"], "StatesError"),
    ("a cancelled attempt writes nothing more by default", TASK, _waiting, Aborted(), {},
     ["TaskScheduled", "TaskStarted"], "Aborted"),
    ("a cancelled attempt written as failed", TASK, _waiting, Aborted(),
     {"cancelled_as": StatesError("SM4C.Cancelled", "cancelled")},
     ["TaskScheduled", "TaskStarted", "TaskFailed"], "Aborted"),
    ("an output too large fails the attempt", TASK, _waiting, "x",
     {"output_text": lambda result: _over_the_quota()},
     ["TaskScheduled", "TaskStarted", "TaskFailed"], "StatesError"),
    ("a Lambda function succeeds", LAMBDA, _waiting, 2, {},
     ["LambdaFunctionScheduled", "LambdaFunctionStarted", "LambdaFunctionSucceeded"], 2),
    ("a Lambda function times out", LAMBDA, _waiting, StatesError("States.Timeout"), {},
     ["LambdaFunctionScheduled", "LambdaFunctionStarted", "LambdaFunctionTimedOut"], "StatesError"),
    ("an activity starts when a worker takes it", ACTIVITY, _worker_taking, 3, {"starts_at_once": False},
     ["ActivityScheduled", "ActivityStarted", "ActivitySucceeded"], 3),
    ("an activity fails", ACTIVITY, _worker_taking, StatesError("E"), {"starts_at_once": False},
     ["ActivityScheduled", "ActivityStarted", "ActivityFailed"], "StatesError"),
]


@pytest.mark.parametrize(("family", "work", "answer", "options", "written", "outcome"),
                         [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_the_attempt_writes_the_events_of_its_family(family: Any, work: Any, answer: Any, options: dict[str, Any],
                                                     written: list[str], outcome: Any) -> None:
    assert _run(family, work, answer, **options) == (written, outcome)


def test_events_a_restart_found_written_are_not_written_again() -> None:
    frame = _frame()
    earlier = datetime(2025, 12, 31, tzinfo=timezone.utc)
    resumed = {"TaskScheduled": {"timestamp": earlier}, "TaskStarted": {"timestamp": earlier}}
    started_at = []

    def work(attempt: Attempt) -> Interpreter:
        started_at.append(attempt.started_at)
        return (yield Sleep(NOW))

    attempt = task_attempt(frame, TASK, SCHEDULED[TASK], work, resumed=resumed)
    next(attempt)
    with pytest.raises(StopIteration):
        attempt.send("done")
    assert [event.type for event in frame.run.execution.history] == ["TaskSucceeded"]
    assert started_at == [earlier]  # the task's timeout counts from its first start
