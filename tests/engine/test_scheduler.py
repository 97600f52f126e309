"""The scheduler with its clock: time moved by hand, time skipped in auto mode but never past a
deadline someone outside could still meet, callbacks and activity workers from other threads,
stopping, and many executions side by side."""

from __future__ import annotations

import json
import threading
from datetime import timedelta
from typing import Any

import pytest
from engine_harness import DEFAULT_START, Harness, event_types

from sfn_emulator.clock.virtual_clock import parse_time
from sfn_emulator.engine import Execution

START = parse_time(DEFAULT_START)
ACTIVITY = "arn:aws:states:us-east-1:111111111111:activity:workers"
WAIT_FOR_TOKEN = "arn:aws:states:::lambda:invoke.waitForTaskToken"


def callback_task(**fields: Any) -> dict[str, Any]:
    """A machine of one callback task that hands its token to the function `ignore`."""
    task = {"Type": "Task", "Resource": WAIT_FOR_TOKEN, "End": True,
            "Parameters": {"FunctionName": "ignore", "Payload": {"TaskToken.$": "$$.Task.Token"}}, **fields}
    return {"StartAt": "Callback", "States": {"Callback": task}}


def token_of(execution: Execution) -> str:
    """The task token, as the TaskScheduled event's parameters show it."""
    scheduled = next(event for event in execution.history if event["type"] == "TaskScheduled")
    return json.loads(scheduled["taskScheduledEventDetails"]["parameters"])["Payload"]["TaskToken"]


def last_event(execution: Execution) -> str:
    return execution.history[-1]["type"]


# -- manual clock ------------------------------------------------------------------------------------

def test_manual_clock_moves_a_wait_only_when_advanced() -> None:
    machine = {"StartAt": "Wait", "States": {"Wait": {"Type": "Wait", "Seconds": 60, "Next": "Next"},
                                              "Next": {"Type": "Pass", "End": True}}}
    with Harness(mode="manual") as harness:
        execution = harness.start(machine, {"a": 1})
        harness.settle()
        assert event_types(execution) == ["ExecutionStarted", "WaitStateEntered"]

        harness.clock.advance(59)
        assert execution.is_running
        assert last_event(execution) == "WaitStateEntered"

        harness.clock.advance(1)
        harness.finish(execution)
    assert event_types(execution)[2:4] == ["WaitStateExited", "PassStateEntered"]
    assert execution.history[2]["timestamp"] == START + timedelta(seconds=60)
    assert execution.status == "SUCCEEDED"


def test_manual_clock_set_fires_every_timer_due_by_then_in_order() -> None:
    with Harness(mode="manual") as harness:
        executions = [harness.start({"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": seconds, "End": True}}})
                      for seconds in (30, 10, 20)]
        harness.settle()
        harness.clock.set(START + timedelta(minutes=1))
        for execution in executions:
            harness.finish(execution)
    ends = [execution.stop_date for execution in executions]
    assert ends == [START + timedelta(seconds=seconds) for seconds in (30, 10, 20)]  # each at its own due time
    exits = [execution.history[2]["timestamp"] for execution in executions]
    assert exits == ends
    assert harness.clock.now() == START + timedelta(minutes=1)


# -- auto clock and deadlines only the outside world can meet ---------------------------------------

def test_auto_mode_does_not_skip_to_a_callback_deadline() -> None:
    with Harness(mode="auto", functions={"ignore": "identity"}) as harness:
        execution = harness.start(callback_task(TimeoutSeconds=300))
        harness.settle()
        assert execution.is_running
        assert last_event(execution) == "TaskSubmitted"
        assert harness.clock.now() < START + timedelta(seconds=300)

        harness.engine.send_task_success(token_of(execution), {"answer": 42})
        harness.finish(execution)
    assert execution.status == "SUCCEEDED"
    assert json.loads(execution.output or "") == {"answer": 42}
    assert event_types(execution)[-3:] == ["TaskSucceeded", "TaskStateExited", "ExecutionSucceeded"]


def test_auto_mode_does_not_skip_to_the_execution_timeout_while_a_callback_is_pending() -> None:
    machine = dict(callback_task(), TimeoutSeconds=60)
    with Harness(mode="auto", functions={"ignore": "identity"}) as harness:
        execution = harness.start(machine)
        harness.settle()
        assert execution.is_running
        harness.engine.send_task_success(token_of(execution), "done")
        harness.finish(execution)
    assert execution.status == "SUCCEEDED"


def test_a_callback_deadline_fires_when_the_clock_reaches_it() -> None:
    with Harness(mode="manual", functions={"ignore": "identity"}) as harness:
        execution = harness.start(callback_task(TimeoutSeconds=300))
        harness.settle()
        harness.clock.advance(299)
        assert execution.is_running
        harness.clock.advance(1)
        harness.finish(execution)
    assert (execution.status, execution.error) == ("FAILED", "States.Timeout")
    assert execution.stop_date == START + timedelta(seconds=300)


def test_heartbeats_keep_a_callback_alive() -> None:
    with Harness(mode="manual", functions={"ignore": "identity"}) as harness:
        execution = harness.start(callback_task(HeartbeatSeconds=10))
        harness.settle()
        token = token_of(execution)
        for _ in range(3):  # 24 s in all, never 10 s without a heartbeat
            harness.clock.advance(8)
            harness.engine.send_task_heartbeat(token)
            harness.settle()
        assert execution.is_running
        harness.engine.send_task_success(token, "alive")
        harness.finish(execution)
    assert execution.status == "SUCCEEDED"


def test_a_token_answered_by_the_payload_recorder_completes_the_task() -> None:
    seen: list[dict[str, Any]] = []
    with Harness(mode="auto") as harness:
        harness.functions.register("ignore", lambda event, context: seen.append(event) or {})
        execution = harness.start(callback_task())
        harness.settle()
        assert seen and execution.is_running
        harness.engine.send_task_failure(seen[0]["TaskToken"], "Rejected", "by the test")
        harness.finish(execution)
    assert (execution.status, execution.error, execution.cause) == ("FAILED", "Rejected", "by the test")


# -- activities ------------------------------------------------------------------------------------

def test_an_activity_worker_thread_completes_the_task() -> None:
    machine = {"StartAt": "Work", "States": {"Work": {"Type": "Task", "Resource": ACTIVITY, "TimeoutSeconds": 600, "End": True}}}
    taken: list[Any] = []
    with Harness(mode="auto", activities={ACTIVITY: "no_worker"}) as harness:
        def worker() -> None:
            task = harness.engine.poll_activity(ACTIVITY, "worker", 5)
            taken.append(task)
            if task is not None:
                harness.engine.send_task_success(task.token, {"echo": json.loads(task.input)})

        thread = threading.Thread(target=worker)
        thread.start()
        execution = harness.run(machine, {"job": 1})
        thread.join()
    assert taken and taken[0] is not None
    assert json.loads(execution.output or "") == {"echo": {"job": 1}}
    started = next(event for event in execution.history if event["type"] == "ActivityStarted")
    assert started["activityStartedEventDetails"] == {"workerName": "worker"}


def test_an_activity_deadline_is_not_skipped_in_auto_mode() -> None:
    machine = {"StartAt": "Work", "States": {"Work": {"Type": "Task", "Resource": ACTIVITY, "TimeoutSeconds": 60, "End": True}}}
    with Harness(mode="auto", activities={ACTIVITY: "no_worker"}) as harness:
        execution = harness.start(machine)
        harness.settle()
        assert execution.is_running
        task = harness.engine.poll_activity(ACTIVITY, "late-worker", 5)
        assert task is not None
        harness.engine.send_task_success(task.token, "in time")
        harness.finish(execution)
    assert json.loads(execution.output or "") == "in time"


# -- stopping ----------------------------------------------------------------------------------------

def test_stop_aborts_a_waiting_execution() -> None:
    machine = {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 3600, "End": True}}}
    with Harness(mode="manual") as harness:
        execution = harness.start(machine)
        harness.settle()
        harness.engine.stop(execution, "Cancelled", "by the test")
    assert (execution.status, execution.error, execution.cause) == ("ABORTED", "Cancelled", "by the test")
    assert event_types(execution) == ["ExecutionStarted", "WaitStateEntered", "ExecutionAborted"]
    assert execution.history[-1]["executionAbortedEventDetails"] == {"error": "Cancelled", "cause": "by the test"}
    assert execution.finished.is_set()


def test_stop_aborts_an_execution_whose_function_still_runs() -> None:
    machine = {"StartAt": "T", "States": {"T": {"Type": "Task", "Resource": "arn:aws:lambda:us-east-1:111111111111:function:slow", "End": True}}}
    running = threading.Event()
    with Harness(mode="auto") as harness:
        def slow(event: Any, context: Any) -> Any:
            running.set()
            harness.released.wait(5)
            return event

        harness.functions.register("slow", slow)
        execution = harness.start(machine)
        assert running.wait(5)
        harness.engine.stop(execution)
        harness.released.set()  # the function returns now; its late result must change nothing
        harness.settle()
    assert execution.status == "ABORTED"
    assert event_types(execution) == ["ExecutionStarted", "TaskStateEntered", "LambdaFunctionScheduled",
                                      "LambdaFunctionStarted", "ExecutionAborted"]
    assert execution.history[-1]["executionAbortedEventDetails"] == {}


# -- many executions ------------------------------------------------------------------------------

def test_many_executions_finish_independently() -> None:
    machine = {"StartAt": "W", "States": {"W": {"Type": "Wait", "SecondsPath": "$.seconds", "Next": "P"},
                                          "P": {"Type": "Pass", "Parameters": {"waited.$": "$.seconds"}, "End": True}}}
    with Harness(mode="manual") as harness:
        executions = [harness.start(machine, {"seconds": seconds}) for seconds in range(1, 41)]
        harness.settle()
        for second in range(1, 41):
            harness.clock.advance(1)
            assert [execution.is_running for execution in executions] == [seconds > second for seconds in range(1, 41)]
    for seconds, execution in enumerate(executions, start=1):
        assert json.loads(execution.output or "") == {"waited": seconds}
        assert execution.stop_date == START + timedelta(seconds=seconds)


def test_a_raising_callable_fails_only_its_own_execution() -> None:
    def task(function: str) -> dict[str, Any]:
        resource = f"arn:aws:lambda:us-east-1:111111111111:function:{function}"
        return {"StartAt": "T", "States": {"T": {"Type": "Task", "Resource": resource, "End": True}}}

    with Harness(mode="auto", functions={"boom": "raise_exception", "echo": "identity"}) as harness:
        executions = [harness.start(task("boom" if index % 3 == 0 else "echo"), {"i": index}) for index in range(12)]
        for execution in executions:
            harness.finish(execution)
    for index, execution in enumerate(executions):
        if index % 3 == 0:
            assert (execution.status, execution.error) == ("FAILED", "Exception")
        else:
            assert (execution.status, json.loads(execution.output or "")) == ("SUCCEEDED", {"i": index})


# -- deadlines between milliseconds ---------------------------------------------------------------

def test_auto_mode_reaches_a_deadline_between_milliseconds_in_one_jump() -> None:
    machine = {"StartAt": "W", "States": {"W": {"Type": "Wait", "TimestampPath": "$.until", "End": True}}}
    with Harness(mode="auto") as harness:
        jumps: list[Any] = []
        jump_to = harness.clock.jump_to
        harness.clock.jump_to = lambda moment: (jumps.append(moment), jump_to(moment))  # type: ignore[method-assign]
        execution = harness.start(machine, {"until": "2024-01-01T00:00:10.000001Z"})
        finished = harness.engine.wait(execution, 1)
    assert finished
    assert len(jumps) == 1


def test_a_task_no_thread_can_be_started_for_fails_and_the_engine_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each task call runs on a thread of its own; a process that can start no more fails that task only."""
    machine = {"StartAt": "T", "States": {"T": {"Type": "Task", "End": True,
                                                "Resource": "arn:aws:lambda:us-east-1:111111111111:function:echo"}}}
    start_thread = threading.Thread.start

    def refuse_task_threads(thread: threading.Thread) -> None:
        if thread.name == "sfn-task":
            raise RuntimeError("can't start new thread")
        start_thread(thread)

    with Harness(mode="auto") as harness:
        harness.functions.register("echo", lambda event, context: event)
        monkeypatch.setattr(threading.Thread, "start", refuse_task_threads)
        refused = harness.finish(harness.start(machine, {"n": 1}))
        monkeypatch.undo()
        served = harness.finish(harness.start(machine, {"n": 2}))
    assert (refused.status, refused.error, refused.cause) == (
        "FAILED", "States.TaskFailed", "sfn-emulator cannot run the task now: can't start new thread")
    assert (served.status, served.output) == ("SUCCEEDED", '{"n":2}')


def test_the_end_of_an_execution_is_awaitable_again_after_a_redrive() -> None:
    """A waiter wakes when the execution ends; a redriven execution is awaited anew until its new end,
    while every other ended execution stays ended."""
    wait_then_fail = {"StartAt": "Hold", "States": {
        "Hold": {"Type": "Wait", "Seconds": 10, "Next": "Boom"},
        "Boom": {"Type": "Fail", "Error": "Boom"}}}
    with Harness(mode="manual") as harness:
        ended = harness.run({"StartAt": "Done", "States": {"Done": {"Type": "Succeed"}}})
        execution = harness.start(wait_then_fail)
        harness.settle()
        assert not harness.engine.wait(execution, 0)
        harness.engine.stop(execution)
        harness.settle()
        assert harness.engine.wait(execution, 0) and execution.status == "ABORTED"
        harness.engine.redrive(execution)  # back into the Wait
        harness.settle()
        assert not harness.engine.wait(execution, 0) and execution.status == "RUNNING"
        assert harness.engine.wait(ended, 0)
        harness.clock.advance(10)
        harness.settle()
        assert harness.engine.wait(execution, 0) and execution.status == "FAILED"
