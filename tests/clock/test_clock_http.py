"""The virtual clock over HTTP with boto3: waits, back-off and timeouts skip ahead, and every
timestamp is the expected virtual instant to the millisecond.

Each test runs its own server whose clock starts at `T0`. An idle auto-mode clock keeps up with
the wall clock, so an execution starts a little after T0; from its start on, the clock stands still
while nothing needs wall time, so every instant is exact relative to the execution's startDate.
`settle` is a `POST /_emulator/clock` of zero seconds, which answers once every execution has run
until it blocks.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from datetime import datetime, timedelta, timezone
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from helpers.clients import make_client
from helpers.paths import FIXTURES_ROOT
from helpers.rawhttp import RawResponse, send

from sfn_emulator.clock.virtual_clock import format_time
from sfn_emulator.config import Settings
from sfn_emulator.runtime import Emulator
from sfn_emulator.wire import HttpServer

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
ROLE = "arn:aws:iam::123456789012:role/clock-tests"
CLOCK_PATH = "/_emulator/clock"
BAD_BODIES = json.loads((FIXTURES_ROOT / "clock" / "bad_bodies.json").read_text())


@dataclass
class Server:
    url: str
    emulator: Emulator

    @cached_property
    def sfn(self) -> Any:
        """A boto3 Step Functions client (made on first use: the clock endpoint tests need none)."""
        return make_client(self.url)

    def clock(self, change: dict[str, Any] | None = None) -> RawResponse:
        """GET the clock, or POST a change to it."""
        if change is None:
            return send(self.url, method="GET", path=CLOCK_PATH)
        return send(self.url, json.dumps(change), path=CLOCK_PATH, headers={"Content-Type": "application/json"})

    def settle(self) -> None:
        assert self.clock({"advance": 0}).status == 200

    def now(self) -> datetime:
        return datetime.fromisoformat(self.clock().json()["now"].replace("Z", "+00:00"))

    def machine(self, definition: dict[str, Any], name: str = "machine") -> str:
        return self.sfn.create_state_machine(name=name, definition=json.dumps(definition), roleArn=ROLE)[
            "stateMachineArn"]

    def start(self, machine_arn: str, payload: Any = None, *, settle: bool = True) -> str:
        arn = self.sfn.start_execution(stateMachineArn=machine_arn, input=json.dumps(payload or {}))["executionArn"]
        if settle:
            self.settle()
        return arn

    def status(self, execution_arn: str) -> str:
        return self.sfn.describe_execution(executionArn=execution_arn)["status"]

    def started(self, execution_arn: str) -> datetime:
        return self.sfn.describe_execution(executionArn=execution_arn)["startDate"]

    def history(self, execution_arn: str) -> list[tuple[str, timedelta]]:
        """(event type, time since the execution's startDate) of every event."""
        start = self.started(execution_arn)
        events = self.sfn.get_execution_history(executionArn=execution_arn, maxResults=1000)["events"]
        return [(event["type"], event["timestamp"] - start) for event in events]

    def events(self, execution_arn: str) -> list[dict[str, Any]]:
        return self.sfn.get_execution_history(executionArn=execution_arn, maxResults=1000)["events"]


@pytest.fixture
def serve() -> Iterator[Callable[..., Server]]:
    """Start servers whose clock starts at T0: `serve(clock="manual", ...)` takes Settings fields."""
    started: list[tuple[HttpServer, Emulator]] = []

    def start(**settings: Any) -> Server:
        emulator = Emulator(Settings(clock_start=T0, **settings))
        http = HttpServer(emulator.app, "127.0.0.1", 0).start()
        started.append((http, emulator))
        return Server(http.endpoint_url, emulator)

    yield start
    for http, emulator in started:
        http.stop()
        emulator.close()


def seconds(value: float) -> timedelta:
    return timedelta(seconds=value)


def wait(seconds_: int, **fields: Any) -> dict[str, Any]:
    return {"StartAt": "Wait", **fields,
            "States": {"Wait": {"Type": "Wait", "Seconds": seconds_, "Next": "Done"}, "Done": {"Type": "Pass", "End": True}}}


# -- the clock endpoint -----------------------------------------------------------------------------

def test_get_shows_the_time_and_mode(serve: Callable[..., Server]) -> None:
    server = serve(clock="manual")
    answer = server.clock()
    assert (answer.status, answer.headers["content-type"]) == (200, "application/json")
    assert answer.json() == {"now": "2024-01-01T00:00:00.000Z", "mode": "manual"}


def test_an_idle_auto_clock_keeps_up_with_the_wall_clock(serve: Callable[..., Server]) -> None:
    server = serve(clock="auto")
    assert server.clock().json()["mode"] == "auto"
    assert T0 <= server.now() < T0 + seconds(60)


def test_post_applies_mode_then_set_then_advance(serve: Callable[..., Server]) -> None:
    server = serve(clock="auto")
    answer = server.clock({"advance": 1.5, "set": "2024-06-01T12:00:00Z", "mode": "manual"})
    assert answer.status == 200
    assert answer.json() == {"now": "2024-06-01T12:00:01.500Z", "mode": "manual"}
    assert server.clock().json() == answer.json()


@pytest.mark.parametrize("case", BAD_BODIES, ids=[case["case"] for case in BAD_BODIES])
def test_a_bad_body_is_refused_and_changes_nothing(serve: Callable[..., Server], case: dict[str, str]) -> None:
    server = serve(clock="manual")
    answer = send(server.url, case["body"], path=CLOCK_PATH, headers={"Content-Type": "application/json"})
    assert (answer.status, answer.json()) == (400, {"message": case["message"]})
    assert server.clock().json() == {"now": "2024-01-01T00:00:00.000Z", "mode": "manual"}


# -- auto mode: long waits finish at once, at exact virtual instants ---------------------------------

def test_a_wait_of_a_day(serve: Callable[..., Server]) -> None:
    server = serve(clock="auto")
    execution = server.start(server.machine(wait(86_400)))
    day = seconds(86_400)
    assert server.history(execution) == [
        ("ExecutionStarted", seconds(0)), ("WaitStateEntered", seconds(0)), ("WaitStateExited", day),
        ("PassStateEntered", day), ("PassStateExited", day), ("ExecutionSucceeded", day)]
    described = server.sfn.describe_execution(executionArn=execution)
    assert (described["status"], described["stopDate"] - described["startDate"]) == ("SUCCEEDED", day)
    assert server.now() >= described["stopDate"]


def test_a_wait_until_a_timestamp_a_year_ahead(serve: Callable[..., Server]) -> None:
    server = serve(clock="auto")
    machine = {"StartAt": "Until", "States": {"Until": {"Type": "Wait", "Timestamp": "2025-01-01T00:00:00Z", "End": True}}}
    execution = server.start(server.machine(machine))
    year = datetime(2025, 1, 1, tzinfo=timezone.utc) - server.started(execution)
    assert server.history(execution) == [
        ("ExecutionStarted", seconds(0)), ("WaitStateEntered", seconds(0)), ("WaitStateExited", year),
        ("ExecutionSucceeded", year)]


def test_a_failing_parallel_retried_with_backoff(serve: Callable[..., Server]) -> None:
    server = serve(clock="auto")
    machine = {"StartAt": "Both", "States": {"Both": {
        "Type": "Parallel", "End": True,
        "Retry": [{"ErrorEquals": ["Boom"], "IntervalSeconds": 60, "MaxAttempts": 5, "BackoffRate": 2}],
        "Branches": [{"StartAt": "Fine", "States": {"Fine": {"Type": "Pass", "End": True}}},
                     {"StartAt": "Broken", "States": {"Broken": {"Type": "Fail", "Error": "Boom", "Cause": "always"}}}],
    }}}
    execution = server.start(server.machine(machine))
    history = server.history(execution)
    attempts = [at for kind, at in history if kind == "ParallelStateStarted"]
    assert attempts == [seconds(s) for s in (0, 60, 180, 420, 900, 1860)]  # waits of 60, 120, 240, 480, 960
    assert history[-2:] == [("ParallelStateFailed", seconds(1860)), ("ExecutionFailed", seconds(1860))]
    described = server.sfn.describe_execution(executionArn=execution)
    assert (described["status"], described["error"], described["stopDate"] - described["startDate"]) == (
        "FAILED", "Boom", seconds(1860))


def test_the_state_machine_timeout(serve: Callable[..., Server]) -> None:
    server = serve(clock="auto")
    execution = server.start(server.machine(wait(3_600, TimeoutSeconds=30)))
    assert server.history(execution) == [
        ("ExecutionStarted", seconds(0)), ("WaitStateEntered", seconds(0)), ("ExecutionTimedOut", seconds(30))]
    described = server.sfn.describe_execution(executionArn=execution)
    assert (described["status"], described["stopDate"] - described["startDate"]) == ("TIMED_OUT", seconds(30))


def test_an_activity_heartbeat_timeout_with_external_deadlines_skipped(serve: Callable[..., Server]) -> None:
    server = serve(clock="auto", clock_skip_external_deadlines=True)
    activity = server.sfn.create_activity(name="worker")["activityArn"]
    machine = {"StartAt": "Work", "States": {"Work": {"Type": "Task", "Resource": activity, "HeartbeatSeconds": 10,
                                                      "End": True}}}
    execution = server.start(server.machine(machine))
    task = server.sfn.get_activity_task(activityArn=activity, workerName="silent")  # and never a heartbeat
    assert task["taskToken"]
    server.settle()
    assert server.history(execution) == [
        ("ExecutionStarted", seconds(0)), ("TaskStateEntered", seconds(0)), ("ActivityScheduled", seconds(0)),
        ("ActivityStarted", seconds(0)), ("ActivityTimedOut", seconds(10)), ("ExecutionFailed", seconds(10))]
    assert server.events(execution)[-2]["activityTimedOutEventDetails"] == {"error": "States.Timeout"}
    with pytest.raises(ClientError) as late:
        server.sfn.send_task_heartbeat(taskToken=task["taskToken"])
    assert late.value.response["Error"]["Code"] == "TaskTimedOut"


# -- deadlines someone outside can still meet ---------------------------------------------------------

def callback_machine(**fields: Any) -> dict[str, Any]:
    """One callback task that hands its token to the Python callable `take_token`."""
    return {"StartAt": "Callback", "States": {"Callback": {
        "Type": "Task", "Resource": "arn:aws:states:::lambda:invoke.waitForTaskToken", "End": True,
        "Parameters": {"FunctionName": "take_token", "Payload": {"token.$": "$$.Task.Token"}}, **fields}}}


def collect_tokens(server: Server) -> list[str]:
    tokens: list[str] = []
    server.emulator.functions.register("take_token", lambda event, context: tokens.append(event["token"]))
    return tokens


def test_auto_mode_waits_for_a_callback_the_test_can_still_answer(serve: Callable[..., Server]) -> None:
    server = serve(clock="auto")
    tokens = collect_tokens(server)
    execution = server.start(server.machine(callback_machine(TimeoutSeconds=300)))
    assert server.status(execution) == "RUNNING"
    assert server.now() < server.started(execution) + seconds(300)  # the clock did not jump to the deadline
    server.sfn.send_task_success(taskToken=tokens[0], output='"answered"')
    server.settle()
    described = server.sfn.describe_execution(executionArn=execution)
    assert (described["status"], described["output"]) == ("SUCCEEDED", '"answered"')


def test_auto_mode_waits_for_an_activity_worker(serve: Callable[..., Server]) -> None:
    server = serve(clock="auto")
    activity = server.sfn.create_activity(name="worker")["activityArn"]
    machine = {"StartAt": "Work", "States": {"Work": {"Type": "Task", "Resource": activity, "TimeoutSeconds": 60,
                                                      "HeartbeatSeconds": 10, "End": True}}}
    execution = server.start(server.machine(machine))
    task = server.sfn.get_activity_task(activityArn=activity, workerName="busy")
    server.settle()
    assert server.status(execution) == "RUNNING"
    assert server.now() < server.started(execution) + seconds(10)
    server.sfn.send_task_success(taskToken=task["taskToken"], output="{}")
    server.settle()
    assert server.status(execution) == "SUCCEEDED"


def test_the_skip_setting_jumps_to_a_callback_deadline(serve: Callable[..., Server]) -> None:
    server = serve(clock="auto")
    collect_tokens(server)
    assert server.clock({"skipExternalDeadlines": True}).status == 200
    execution = server.start(server.machine(callback_machine(TimeoutSeconds=300)))
    history = dict(server.history(execution))
    # The deadline counts from TaskStarted, though the callable that took the token ran in wall time.
    assert history["TaskTimedOut"] == history["ExecutionFailed"] == history["TaskStarted"] + seconds(300)
    assert server.sfn.describe_execution(executionArn=execution)["error"] == "States.Timeout"


def test_advancing_by_hand_reaches_an_outside_deadline(serve: Callable[..., Server]) -> None:
    server = serve(clock="manual")
    tokens = collect_tokens(server)
    execution = server.start(server.machine(callback_machine(HeartbeatSeconds=20)))
    assert tokens and server.status(execution) == "RUNNING"
    server.clock({"advance": 20})
    assert server.history(execution)[-2:] == [("TaskTimedOut", seconds(20)), ("ExecutionFailed", seconds(20))]


# -- manual mode, step by step ------------------------------------------------------------------------

def test_manual_mode_moves_only_when_advanced(serve: Callable[..., Server]) -> None:
    server = serve(clock="manual")
    execution = server.start(server.machine(wait(60)))
    assert server.history(execution) == [("ExecutionStarted", seconds(0)), ("WaitStateEntered", seconds(0))]

    assert server.clock({"advance": 59}).json() == {"now": "2024-01-01T00:00:59.000Z", "mode": "manual"}
    assert server.status(execution) == "RUNNING"
    assert [kind for kind, _ in server.history(execution)] == ["ExecutionStarted", "WaitStateEntered"]

    server.clock({"advance": 1})
    assert server.status(execution) == "SUCCEEDED"
    assert server.history(execution)[2:] == [
        ("WaitStateExited", seconds(60)), ("PassStateEntered", seconds(60)), ("PassStateExited", seconds(60)),
        ("ExecutionSucceeded", seconds(60))]


def test_an_advance_answers_after_branches_iterations_and_child_executions_have_run(
        serve: Callable[..., Server]) -> None:
    server = serve(clock="manual")
    child = server.machine(wait(20), name="child")
    parent = server.machine({"StartAt": "Branches", "States": {
        "Branches": {"Type": "Parallel", "Next": "Items", "ResultPath": None, "Branches": [
            {"StartAt": "W30", "States": {"W30": {"Type": "Wait", "Seconds": 30, "End": True}}},
            {"StartAt": "W45", "States": {"W45": {"Type": "Wait", "Seconds": 45, "End": True}}}]},
        "Items": {"Type": "Map", "ItemsPath": "$.items", "Next": "Child", "ResultPath": None,
                  "ItemProcessor": {"StartAt": "W10", "States": {"W10": {"Type": "Wait", "Seconds": 10, "End": True}}}},
        "Child": {"Type": "Task", "Resource": "arn:aws:states:::states:startExecution.sync:2", "End": True,
                  "Parameters": {"StateMachineArn": child}},
    }}, name="parent")
    execution = server.start(parent, {"items": [1, 2, 3]})

    def count(kind: str) -> int:
        return sum(1 for event_kind, _ in server.history(execution) if event_kind == kind)

    server.clock({"advance": 30})
    assert (count("WaitStateExited"), count("ParallelStateExited")) == (1, 0)
    server.clock({"advance": 15})
    assert (count("ParallelStateExited"), count("MapIterationStarted"), count("MapIterationSucceeded")) == (1, 3, 0)
    server.clock({"advance": 10})
    assert (count("MapStateExited"), count("TaskSubmitted")) == (1, 1)
    assert server.status(execution) == "RUNNING"
    server.clock({"advance": 20})
    assert server.status(execution) == "SUCCEEDED"
    assert server.history(execution)[-1] == ("ExecutionSucceeded", seconds(75))


# -- what executions see is clock time --------------------------------------------------------------

def test_context_object_and_callables_see_clock_time(serve: Callable[..., Server]) -> None:
    server = serve(clock="auto")
    server.emulator.functions.register("what_time", lambda event, context: {"now": datetime.now(timezone.utc).isoformat()})
    machine = {"StartAt": "Later", "States": {
        "Later": {"Type": "Wait", "Seconds": 3_600, "Next": "Look"},
        "Look": {"Type": "Pass", "Next": "Ask",
                 "Parameters": {"start.$": "$$.Execution.StartTime", "entered.$": "$$.State.EnteredTime"}},
        "Ask": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke", "End": True, "ResultPath": "$.asked",
                "Parameters": {"FunctionName": "what_time"}, "ResultSelector": {"now.$": "$.Payload.now"}},
    }}
    execution = server.start(server.machine(machine))
    output = json.loads(server.sfn.describe_execution(executionArn=execution)["output"])
    start = server.started(execution)
    assert (output["start"], output["entered"]) == (format_time(start), format_time(start + seconds(3_600)))
    events = {event["type"]: event["timestamp"] for event in server.events(execution)}
    asked = datetime.fromisoformat(output["asked"]["now"])
    assert events["TaskStarted"] <= asked <= events["TaskSucceeded"] + timedelta(milliseconds=1)
    assert asked - start >= seconds(3_600)


# -- retention of finished executions on clock time ---------------------------------------------------

def test_a_finished_execution_is_gone_after_90_days(serve: Callable[..., Server]) -> None:
    server = serve(clock="manual", execution_retention_days=90)
    machine = server.machine({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})
    execution = server.start(machine)
    server.sfn.start_execution(stateMachineArn=machine, name="kept")
    server.settle()  # both finished at the clock's start, before it moves

    server.clock({"advance": 90 * 86_400 - 0.001})
    assert server.status(execution) == "SUCCEEDED"
    assert len(server.sfn.list_executions(stateMachineArn=machine)["executions"]) == 2

    server.clock({"advance": 0.001})
    with pytest.raises(ClientError) as gone:
        server.sfn.describe_execution(executionArn=execution)
    assert gone.value.response["Error"] == {"Code": "ExecutionDoesNotExist",
                                            "Message": f"Execution Does Not Exist: '{execution}'"}
    with pytest.raises(ClientError) as no_history:
        server.sfn.get_execution_history(executionArn=execution)
    assert no_history.value.response["Error"]["Code"] == "ExecutionDoesNotExist"
    assert server.sfn.list_executions(stateMachineArn=machine)["executions"] == []
    again = server.sfn.start_execution(stateMachineArn=machine, name="kept")  # the name is free again
    server.settle()
    assert server.status(again["executionArn"]) == "SUCCEEDED"


def test_a_running_execution_is_never_purged(serve: Callable[..., Server]) -> None:
    server = serve(clock="manual", execution_retention_days=1)
    activity = server.sfn.create_activity(name="nobody")["activityArn"]
    execution = server.start(server.machine({"StartAt": "T", "States": {"T": {"Type": "Task", "Resource": activity,
                                                                             "End": True}}}))
    server.clock({"advance": 10 * 86_400})
    assert server.status(execution) == "RUNNING"
    server.sfn.stop_execution(executionArn=execution)
    server.clock({"advance": 86_400})
    with pytest.raises(ClientError) as gone:
        server.status(execution)
    assert gone.value.response["Error"]["Code"] == "ExecutionDoesNotExist"


def test_by_default_executions_are_kept_forever(serve: Callable[..., Server]) -> None:
    server = serve(clock="manual")
    execution = server.start(server.machine({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}))
    server.clock({"advance": 3_650 * 86_400})
    assert server.status(execution) == "SUCCEEDED"


# -- time moves through every due moment (issue 28, rule 11) --------------------------------------------

BOOM = "arn:aws:lambda:us-east-1:123456789012:function:boom"
CAUGHT = [{"ErrorEquals": ["States.ALL"], "Next": "After"}]
AFTER = {"After": {"Type": "Wait", "Seconds": 10, "End": True}}

# Each machine, moved by one jump of 100 s, and the instants (seconds after its start) its events
# carry: every timer fires at its own due time, and what follows counts from there. The retried
# Lambda functions run in manual mode only: in auto mode a task resource's run takes its wall time
# (rule 1), which the instants after it then include.
RETRIES = ("retry back-off of a failing Lambda", "retry then a Wait after the catch")
DUE_MOMENTS = [
    ("waits in a row", {"StartAt": "A", "States": {
        "A": {"Type": "Wait", "Seconds": 10, "Next": "B"}, "B": {"Type": "Wait", "Seconds": 20, "End": True}}},
     [("WaitStateExited", 10), ("WaitStateExited", 30), ("ExecutionSucceeded", 30)]),
    ("retry back-off of a failing Lambda", {"StartAt": "T", "States": {"T": {
        "Type": "Task", "Resource": BOOM, "End": True,
        "Retry": [{"ErrorEquals": ["States.ALL"], "IntervalSeconds": 2, "BackoffRate": 2, "MaxAttempts": 3}]}}},
     [("LambdaFunctionScheduled", 0), ("LambdaFunctionScheduled", 2), ("LambdaFunctionScheduled", 6),
      ("LambdaFunctionScheduled", 14), ("ExecutionFailed", 14)]),
    ("retry then a Wait after the catch", {"StartAt": "T", "States": {"T": {
        "Type": "Task", "Resource": BOOM, "Next": "After", "Catch": CAUGHT,
        "Retry": [{"ErrorEquals": ["States.ALL"], "IntervalSeconds": 5, "MaxAttempts": 1}]}, **AFTER}},
     [("LambdaFunctionScheduled", 0), ("LambdaFunctionScheduled", 5), ("WaitStateEntered", 5),
      ("WaitStateExited", 15), ("ExecutionSucceeded", 15)]),
    ("a callback's TimeoutSeconds", {"StartAt": "Callback", "States": {
        "Callback": {**callback_machine(TimeoutSeconds=5)["States"]["Callback"], "End": False, "Next": "After",
                     "Catch": CAUGHT}, **AFTER}},
     [("TaskTimedOut", 5), ("WaitStateEntered", 5), ("WaitStateExited", 15), ("ExecutionSucceeded", 15)]),
    ("a heartbeat deadline", {"StartAt": "Callback", "States": {
        "Callback": {**callback_machine(HeartbeatSeconds=7)["States"]["Callback"], "End": False, "Next": "After",
                     "Catch": CAUGHT}, **AFTER}},
     [("TaskTimedOut", 7), ("WaitStateEntered", 7), ("WaitStateExited", 17), ("ExecutionSucceeded", 17)]),
    ("the execution's TimeoutSeconds", {"TimeoutSeconds": 25, "StartAt": "A", "States": {
        "A": {"Type": "Wait", "Seconds": 10, "Next": "B"}, "B": {"Type": "Wait", "Seconds": 10, "Next": "C"},
        "C": {"Type": "Wait", "Seconds": 10, "End": True}}},
     [("WaitStateExited", 10), ("WaitStateExited", 20), ("ExecutionTimedOut", 25)]),
    ("Parallel branches", {"StartAt": "P", "States": {"P": {"Type": "Parallel", "Next": "After", "Branches": [
        {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 15, "End": True}}},
        {"StartAt": "V", "States": {"V": {"Type": "Wait", "Seconds": 5, "End": True}}}]}, **AFTER}},
     [("WaitStateExited", 5), ("WaitStateExited", 15), ("ParallelStateExited", 15), ("WaitStateExited", 25),
      ("ExecutionSucceeded", 25)]),
    ("Map iterations one at a time", {"StartAt": "M", "States": {"M": {
        "Type": "Map", "ItemsPath": "$.items", "MaxConcurrency": 1, "End": True,
        "ItemProcessor": {"StartAt": "W", "States": {"W": {"Type": "Wait", "SecondsPath": "$", "End": True}}}}}},
     [("MapIterationSucceeded", 3), ("MapIterationSucceeded", 4), ("MapIterationSucceeded", 6),
      ("ExecutionSucceeded", 6)]),
]


@pytest.mark.parametrize(("machine", "expected", "clock", "move"), [
    pytest.param(machine, expected, clock, move, id=f"{name}-{clock}-{move}")
    for name, machine, expected in DUE_MOMENTS
    for clock, move in [("manual", "advance"), ("manual", "set"), ("auto", "advance")]
    if not (clock == "auto" and name in RETRIES)])
def test_a_jump_fires_each_timer_at_its_own_due_time(serve: Callable[..., Server], clock: str, move: str,
                                                     machine: dict[str, Any], expected: list[tuple[str, int]]) -> None:
    server = serve(clock=clock)
    collect_tokens(server)  # no one answers: the callbacks time out

    def boom(event: Any, context: Any) -> Any:
        raise RuntimeError("boom")

    server.emulator.functions.register("boom", boom)
    execution = server.start(server.machine(machine), {"items": [3, 1, 2]}, settle=False)
    started = server.started(execution)
    answer = server.clock({"advance": 100} if move == "advance" else {"set": format_time(started + seconds(100))})
    assert answer.status == 200
    if move == "set":
        assert server.now() == started + seconds(100)
    kinds = {kind for kind, _ in expected}
    assert [(kind, at) for kind, at in server.history(execution) if kind in kinds] == [
        (kind, seconds(at)) for kind, at in expected]


# -- the clock's last day (issue 34, item 7) -------------------------------------------------------------

LAST_DAY = datetime(9999, 12, 31, tzinfo=timezone.utc)
FAR_DUE = [
    ("a Wait", wait(10), [("WaitStateExited", 10), ("ExecutionSucceeded", 10)]),
    ("a retry", {"StartAt": "F", "States": {"F": {"Type": "Parallel", "End": True, "Branches": [
        {"StartAt": "X", "States": {"X": {"Type": "Fail", "Error": "Boom"}}}],
        "Retry": [{"ErrorEquals": ["Boom"], "IntervalSeconds": 5, "MaxAttempts": 1}]}}},
     [("ParallelStateStarted", 0), ("ParallelStateStarted", 5), ("ExecutionFailed", 5)]),
    ("the execution's TimeoutSeconds", wait(3_600, TimeoutSeconds=30), [("ExecutionTimedOut", 30)]),
    ("a heartbeat deadline", callback_machine(HeartbeatSeconds=20), [("TaskTimedOut", 20), ("ExecutionFailed", 20)]),
    ("a callback's TimeoutSeconds", callback_machine(TimeoutSeconds=40), [("TaskTimedOut", 40), ("ExecutionFailed", 40)]),
]


@pytest.mark.parametrize(("machine", "expected"), [case[1:] for case in FAR_DUE], ids=[case[0] for case in FAR_DUE])
def test_timers_fire_on_the_last_day_of_year_9999(serve: Callable[..., Server], machine: dict[str, Any],
                                                  expected: list[tuple[str, int]]) -> None:
    server = serve(clock="manual")
    collect_tokens(server)
    assert server.clock({"set": format_time(LAST_DAY)}).status == 200
    execution = server.start(server.machine(machine))
    assert server.clock({"advance": 3_600}).status == 200
    kinds = {kind for kind, _ in expected}
    assert [(kind, at) for kind, at in server.history(execution) if kind in kinds] == [
        (kind, seconds(at)) for kind, at in expected]


@pytest.mark.parametrize("clock", ["manual", "auto"])
def test_a_delay_past_year_9999_never_ends_and_fails_nothing(serve: Callable[..., Server], clock: str) -> None:
    """No clock reaches it: the Wait stays, as would a Wait of years on AWS; no internal error."""
    server = serve(clock=clock)
    assert server.clock({"set": "9999-12-31T23:00:00Z"}).status == 200
    execution = server.start(server.machine(wait(99_999_999)))
    assert server.clock({"set": "9999-12-31T23:59:59.999Z"}).json()["now"] == "9999-12-31T23:59:59.999Z"
    assert server.status(execution) == "RUNNING"
    assert [kind for kind, _ in server.history(execution)] == ["ExecutionStarted", "WaitStateEntered"]
    answer = server.clock({"advance": 1})
    assert (answer.status, answer.json()) == (400, {"message": "advance of 1 seconds moves the clock past year 9999"})


# -- several heartbeats, then success (issue 28, rule 8) --------------------------------------------------

def _aws_client(server: Server, service: str) -> Any:
    return boto3.session.Session(aws_access_key_id="testing", aws_secret_access_key="testing",
                                 region_name="us-east-1").client(service, endpoint_url=server.url)


def _sqs_callback(server: Server) -> tuple[dict[str, Any], Callable[[], str]]:
    sqs = _aws_client(server, "sqs")
    queue = sqs.create_queue(QueueName="beats")["QueueUrl"]
    task = {"Resource": "arn:aws:states:::sqs:sendMessage.waitForTaskToken",
            "Parameters": {"QueueUrl": queue, "MessageBody": {"token.$": "$$.Task.Token"}}}
    return task, lambda: json.loads(sqs.receive_message(QueueUrl=queue)["Messages"][0]["Body"])["token"]


def _lambda_callback(server: Server) -> tuple[dict[str, Any], Callable[[], str]]:
    tokens = collect_tokens(server)
    return callback_machine()["States"]["Callback"], lambda: tokens[0]


def _activity(server: Server) -> tuple[dict[str, Any], Callable[[], str]]:
    activity = server.sfn.create_activity(name="beats")["activityArn"]
    return {"Resource": activity}, lambda: server.sfn.get_activity_task(activityArn=activity)["taskToken"]


@pytest.mark.parametrize("clock", ["manual", "auto", "real"])
@pytest.mark.parametrize("integration", [_sqs_callback, _lambda_callback, _activity],
                         ids=["sqs:sendMessage.waitForTaskToken", "lambda:invoke.waitForTaskToken", "activity"])
def test_heartbeats_move_the_deadline_until_success(serve: Callable[..., Server], clock: str,
                                                     integration: Callable[..., Any]) -> None:
    """Each SendTaskHeartbeat starts HeartbeatSecondsPath's 100 s again: four moves of 60 s (240 s
    in all, each under 100 s after a heartbeat) time nothing out; SendTaskSuccess then ends the task."""
    server = serve(clock=clock)
    fields, take_token = integration(server)
    task = {**fields, "Type": "Task", "HeartbeatSecondsPath": "$.beat", "End": True}
    execution = server.start(server.machine({"StartAt": "Callback", "States": {"Callback": task}}), {"beat": 100})
    token = take_token()
    for _ in range(4):
        assert server.clock({"advance": 60}).status == 200
        server.sfn.send_task_heartbeat(taskToken=token)
    server.sfn.send_task_success(taskToken=token, output='{"done": true}')
    server.settle()
    described = server.sfn.describe_execution(executionArn=execution)
    assert (described["status"], json.loads(described["output"])) == ("SUCCEEDED", {"done": True})
    assert not any(kind.endswith("TimedOut") for kind, _ in server.history(execution))
