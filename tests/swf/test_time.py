"""SWF's time runs on the emulator's clock: timers, every timeout and the long polls' 60 s.

With the manual clock nothing moves until the test advances it, so every timestamp is exact; with
the auto clock (the shared server) a timer of a day or a year fires at once, at its exact instant,
unless someone outside races a deadline (an open decision or activity task)."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from helpers.swf_workers import Decider, attributes, history

WF = {"name": "wf", "version": "1"}
DAY = 86400


def _start(swf: Any, domain: str, workflow_id: str = "w", **settings: Any) -> str:
    return swf.start_workflow_execution(domain=domain, workflowId=workflow_id, workflowType=WF, **settings)["runId"]


def _decide(swf: Any, domain: str, decisions: list[dict[str, Any]], task_list: str = "decisions") -> dict[str, Any]:
    task = swf.poll_for_decision_task(domain=domain, taskList={"name": task_list})
    assert task["taskToken"], "no decision task"
    swf.respond_decision_task_completed(taskToken=task["taskToken"], decisions=decisions)
    return task


def _events(swf: Any, domain: str, run_id: str, workflow_id: str = "w") -> list[dict[str, Any]]:
    return history(swf, domain, workflow_id, run_id)


def _of_type(events: list[dict[str, Any]], event_type: str) -> dict[str, Any]:
    return next(event for event in events if event["eventType"] == event_type)


def _timer(seconds: int, timer_id: str = "t") -> dict[str, Any]:
    return {"decisionType": "StartTimer", "startTimerDecisionAttributes": {"timerId": timer_id, "startToFireTimeout": str(seconds)}}


@pytest.mark.parametrize("seconds", [DAY, 364 * DAY], ids=["a day", "a year (364 days, within the execution's year)"])
def test_a_timer_fires_when_the_manual_clock_reaches_it(manual: Any, seconds: int) -> None:
    swf, domain, clock = manual.swf, manual.domain, manual.emulator.clock
    run_id = _start(swf, domain)
    _decide(swf, domain, [_timer(seconds)])
    started = clock.now()
    clock.advance(seconds - 1)
    assert [event["eventType"] for event in _events(swf, domain, run_id)][-1] == "TimerStarted"
    clock.advance(1)
    events = _events(swf, domain, run_id)
    fired = _of_type(events, "TimerFired")
    assert fired["eventTimestamp"] == started + timedelta(seconds=seconds)
    assert attributes(fired) == {"timerId": "t", "startedEventId": _of_type(events, "TimerStarted")["eventId"]}
    assert events[-1]["eventType"] == "DecisionTaskScheduled" and events[-1]["eventTimestamp"] == fired["eventTimestamp"]


@pytest.mark.parametrize("seconds", [DAY, 365 * DAY - 60], ids=["a day", "a year"])
def test_the_auto_clock_jumps_to_a_timer_when_no_task_is_open(swf: Any, domain: str, seconds: int) -> None:
    """A decider over HTTP: the timer's whole span passes at once, to the millisecond."""

    def decide(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if events[-3]["eventType"] == "TimerFired":
            return [{"decisionType": "CompleteWorkflowExecution"}]
        return [_timer(seconds)]

    run_id = _start(swf, domain)
    decider = Decider(swf, domain, decide, max_polls=10)
    decider.start()
    assert decider.closed.wait(30), "the decider never closed the execution"
    decider.finish()
    events = _events(swf, domain, run_id)
    started, fired = _of_type(events, "TimerStarted"), _of_type(events, "TimerFired")
    assert fired["eventTimestamp"] - started["eventTimestamp"] == timedelta(seconds=seconds)


def test_the_auto_clock_does_not_jump_while_a_decision_task_waits_for_a_decider(swf: Any, domain: str, emulator_server: Any) -> None:
    waiting = _start(swf, domain, "waiting", taskList={"name": "nobody-polls"})
    timed = _start(swf, domain, "timed")
    _decide(swf, domain, [_timer(DAY)])
    assert emulator_server.emulator.clock.run_until_idle(10)
    assert "TimerFired" not in [event["eventType"] for event in _events(swf, domain, timed, "timed")]
    swf.terminate_workflow_execution(domain=domain, workflowId="waiting", runId=waiting)
    # Now the day passes at once. A poll waiting across the jump ends empty (its 60 s are over, as a
    # poll on AWS ends long before a day's timer fires): the decider polls again, as deciders do.
    for _ in range(3):
        task = swf.poll_for_decision_task(domain=domain, taskList={"name": "decisions"})
        if task["taskToken"]:
            break
    assert "TimerFired" in [event["eventType"] for event in task["events"]]


def _schedule(swf: Any, domain: str, **timeouts: str) -> None:
    _decide(swf, domain, [{"decisionType": "ScheduleActivityTask", "scheduleActivityTaskDecisionAttributes": {
        "activityType": {"name": "work", "version": "1"}, "activityId": "a", **timeouts}}])


def test_a_missed_heartbeat_times_the_activity_out(manual: Any) -> None:
    swf, domain, clock = manual.swf, manual.domain, manual.emulator.clock
    run_id = _start(swf, domain)
    _schedule(swf, domain, heartbeatTimeout="10")
    task = swf.poll_for_activity_task(domain=domain, taskList={"name": "work"})
    clock.advance(9)
    assert swf.record_activity_task_heartbeat(taskToken=task["taskToken"], details="half")["cancelRequested"] is False
    clock.advance(9)  # 18 s after the start, 9 after the heartbeat: still on time
    assert "ActivityTaskTimedOut" not in [event["eventType"] for event in _events(swf, domain, run_id)]
    beat = clock.now() - timedelta(seconds=9)
    clock.advance(1)
    events = _events(swf, domain, run_id)
    timed_out = _of_type(events, "ActivityTaskTimedOut")
    assert timed_out["eventTimestamp"] == beat + timedelta(seconds=10)
    assert attributes(timed_out) == {"timeoutType": "HEARTBEAT", "details": "half",
                                     "scheduledEventId": _of_type(events, "ActivityTaskScheduled")["eventId"],
                                     "startedEventId": _of_type(events, "ActivityTaskStarted")["eventId"]}
    with pytest.raises(swf.exceptions.UnknownResourceFault):
        swf.respond_activity_task_completed(taskToken=task["taskToken"], result="late")


@pytest.mark.parametrize(("timeouts", "take", "timeout_type", "after"), [
    ({"scheduleToStartTimeout": "5"}, False, "SCHEDULE_TO_START", 5),
    ({"scheduleToCloseTimeout": "7"}, False, "SCHEDULE_TO_CLOSE", 7),
    ({"scheduleToCloseTimeout": "7"}, True, "SCHEDULE_TO_CLOSE", 7),
    ({"startToCloseTimeout": "3"}, True, "START_TO_CLOSE", 3),
])
def test_activity_timeouts(manual: Any, timeouts: dict[str, str], take: bool, timeout_type: str, after: int) -> None:
    swf, domain, clock = manual.swf, manual.domain, manual.emulator.clock
    run_id = _start(swf, domain)
    _schedule(swf, domain, **timeouts)
    scheduled_at = clock.now()
    if take:
        swf.poll_for_activity_task(domain=domain, taskList={"name": "work"})
    clock.advance(after)
    events = _events(swf, domain, run_id)
    timed_out = _of_type(events, "ActivityTaskTimedOut")
    assert (attributes(timed_out)["timeoutType"], timed_out["eventTimestamp"]) == (timeout_type, scheduled_at + timedelta(seconds=after))
    assert attributes(timed_out)["startedEventId"] == (_of_type(events, "ActivityTaskStarted")["eventId"] if take else 0)
    assert events[-1]["eventType"] == "DecisionTaskScheduled"


def test_a_decision_task_not_completed_in_time_times_out_and_is_scheduled_again(manual: Any) -> None:
    swf, domain, clock = manual.swf, manual.domain, manual.emulator.clock
    run_id = _start(swf, domain, taskStartToCloseTimeout="30")
    task = swf.poll_for_decision_task(domain=domain, taskList={"name": "decisions"})
    clock.advance(30)
    events = _events(swf, domain, run_id)
    assert [event["eventType"] for event in events[-2:]] == ["DecisionTaskTimedOut", "DecisionTaskScheduled"]
    assert attributes(events[-2]) == {"timeoutType": "START_TO_CLOSE", "scheduledEventId": 2, "startedEventId": 3}
    with pytest.raises(swf.exceptions.UnknownResourceFault):
        swf.respond_decision_task_completed(taskToken=task["taskToken"], decisions=[])
    again = swf.poll_for_decision_task(domain=domain, taskList={"name": "decisions"})
    assert again["previousStartedEventId"] == 3 and again["startedEventId"] == 6


@pytest.mark.parametrize(("policy", "child_event", "child_status"), [
    ("TERMINATE", "WorkflowExecutionTerminated", "CLOSED"),
    ("REQUEST_CANCEL", "WorkflowExecutionCancelRequested", "OPEN"),
    ("ABANDON", "DecisionTaskScheduled", "OPEN"),
])
def test_the_child_policy_applies_when_the_parent_times_out(manual: Any, policy: str, child_event: str, child_status: str) -> None:
    swf, domain, clock = manual.swf, manual.domain, manual.emulator.clock
    run_id = _start(swf, domain, executionStartToCloseTimeout="100", childPolicy=policy)
    _decide(swf, domain, [{"decisionType": "StartChildWorkflowExecution", "startChildWorkflowExecutionDecisionAttributes": {
        "workflowId": "child", "workflowType": WF, "taskList": {"name": "children"}}}])
    start = _events(swf, domain, run_id)[0]["eventTimestamp"]
    clock.advance(100)
    parent_events = _events(swf, domain, run_id)
    assert parent_events[-1]["eventType"] == "WorkflowExecutionTimedOut"
    assert attributes(parent_events[-1]) == {"timeoutType": "START_TO_CLOSE", "childPolicy": policy}
    assert parent_events[-1]["eventTimestamp"] == start + timedelta(seconds=100)
    child = swf.describe_workflow_execution(domain=domain, execution={
        "workflowId": "child", "runId": attributes(_of_type(parent_events, "ChildWorkflowExecutionStarted"))["workflowExecution"]["runId"]})
    child_events = history(swf, domain, "child", child["executionInfo"]["execution"]["runId"])
    assert child_events[-1]["eventType"] == child_event and child["executionInfo"]["executionStatus"] == child_status
    if policy != "ABANDON":
        assert attributes(child_events[-1])["cause"] == "CHILD_POLICY_APPLIED"


def test_a_long_poll_answers_empty_after_60_seconds_of_clock_time(manual: Any) -> None:
    swf, domain, clock = manual.swf, manual.domain, manual.emulator.clock
    answers: list[dict[str, Any]] = []
    poller = threading.Thread(target=lambda: answers.append(
        swf.poll_for_activity_task(domain=domain, taskList={"name": "idle"})), daemon=True)
    poller.start()
    for _ in range(1000):  # until the poll is waiting (bounded; each look waits for the emulator)
        if manual.emulator.swf.tasks.waiting():
            break
        poller.join(0.01)
    clock.advance(60)
    poller.join(30)  # far below the 60 s of wall time a poll may also take: the clock ended it
    assert answers and answers[0]["taskToken"] == "" and answers[0]["startedEventId"] == 0


def test_a_long_poll_answers_as_soon_as_work_arrives(manual: Any) -> None:
    swf, domain = manual.swf, manual.domain
    answers: list[dict[str, Any]] = []
    poller = threading.Thread(target=lambda: answers.append(
        swf.poll_for_decision_task(domain=domain, taskList={"name": "decisions"})), daemon=True)
    poller.start()
    run_id = _start(swf, domain)
    poller.join(30)
    assert answers and answers[0]["workflowExecution"]["runId"] == run_id


def test_a_worker_hears_of_a_cancel_request_from_its_heartbeat(manual: Any) -> None:
    swf, domain = manual.swf, manual.domain
    run_id = _start(swf, domain)
    _schedule(swf, domain)
    task = swf.poll_for_activity_task(domain=domain, taskList={"name": "work"})
    assert swf.record_activity_task_heartbeat(taskToken=task["taskToken"])["cancelRequested"] is False
    swf.signal_workflow_execution(domain=domain, workflowId="w", signalName="stop it")  # a decision task for the decider
    _decide(swf, domain, [{"decisionType": "RequestCancelActivityTask", "requestCancelActivityTaskDecisionAttributes": {"activityId": "a"}}])
    assert swf.record_activity_task_heartbeat(taskToken=task["taskToken"])["cancelRequested"] is True
    swf.respond_activity_task_canceled(taskToken=task["taskToken"], details="stopped")
    events = _events(swf, domain, run_id)
    canceled = _of_type(events, "ActivityTaskCanceled")
    assert attributes(canceled) == {"details": "stopped", "scheduledEventId": _of_type(events, "ActivityTaskScheduled")["eventId"],
                                    "startedEventId": _of_type(events, "ActivityTaskStarted")["eventId"],
                                    "latestCancelRequestedEventId": _of_type(events, "ActivityTaskCancelRequested")["eventId"]}
    assert events[-1]["eventType"] == "DecisionTaskScheduled"


def test_one_advance_fires_each_timer_and_timeout_at_its_own_time(manual: Any) -> None:
    """A manual advance of 30 minutes over timers at 5 and 10 minutes, an activity's
    schedule-to-start timeout at 7 and the execution's timeout at 20: each event carries its own
    instant, in order, never the advance's target (issue 28, rule 11)."""
    swf, domain, clock = manual.swf, manual.domain, manual.emulator.clock
    run_id = _start(swf, domain, executionStartToCloseTimeout="1200")
    started = clock.now()
    activity = {"decisionType": "ScheduleActivityTask", "scheduleActivityTaskDecisionAttributes": {
        "activityType": {"name": "work", "version": "1"}, "activityId": "a", "scheduleToStartTimeout": "420"}}
    _decide(swf, domain, [_timer(300, "five"), _timer(600, "ten"), activity])
    clock.advance(1800)
    moments = [(event["eventType"], event["eventTimestamp"] - started) for event in _events(swf, domain, run_id)
               if event["eventType"] in ("TimerFired", "ActivityTaskTimedOut", "WorkflowExecutionTimedOut")]
    assert moments == [("TimerFired", timedelta(minutes=5)), ("ActivityTaskTimedOut", timedelta(minutes=7)),
                       ("TimerFired", timedelta(minutes=10)), ("WorkflowExecutionTimedOut", timedelta(minutes=20))]
    assert clock.now() == started + timedelta(minutes=30)
