"""SWF's whole-list decision rules, its fault messages and its history defaults, as the live service
answers them (captures published in other projects' suites: moto's, simpleflow's), over HTTP with
boto3's `swf` client; and a clock jump over several deadlines, on the manual clock."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Callable

import pytest
from botocore.exceptions import ClientError
from helpers.swf_workers import attributes, history

WF = {"name": "wf", "version": "1"}
WORK = {"name": "work", "version": "1"}
MARKER = {"decisionType": "RecordMarker", "recordMarkerDecisionAttributes": {"markerName": "m"}}


def _fault(call: Callable[..., Any], **params: Any) -> tuple[str, str]:
    with pytest.raises(ClientError) as raised:
        call(**params)
    error = raised.value.response["Error"]
    return error["Code"], error.get("Message", "")


def _start(swf: Any, domain: str, workflow_id: str = "w") -> str:
    return swf.start_workflow_execution(domain=domain, workflowId=workflow_id, workflowType=WF)["runId"]


def _decision_task(swf: Any, domain: str) -> dict[str, Any]:
    task = swf.poll_for_decision_task(domain=domain, taskList={"name": "decisions"})
    assert task["taskToken"], "no decision task"
    return task


def _schedule(activity_id: str = "a", **timeouts: str) -> dict[str, Any]:
    return {"decisionType": "ScheduleActivityTask", "scheduleActivityTaskDecisionAttributes": {
        "activityId": activity_id, "activityType": WORK, **timeouts}}


# -- a close decision is the last of its list ----------------------------------------------------------
CLOSE = {
    "CompleteWorkflowExecution": {"result": "r"},
    "FailWorkflowExecution": {"reason": "r"},
    "CancelWorkflowExecution": {"details": "d"},
    "ContinueAsNewWorkflowExecution": {"input": "i"},
}


def _close(decision_type: str) -> dict[str, Any]:
    member = decision_type[0].lower() + decision_type[1:] + "DecisionAttributes"
    return {"decisionType": decision_type, member: CLOSE[decision_type]}


@pytest.mark.parametrize("decisions", [
    *([_close(close), MARKER] for close in CLOSE),
    *([_close(close), _schedule()] for close in CLOSE),
    [MARKER, _close("CompleteWorkflowExecution"), _close("FailWorkflowExecution")],
    [_close("CancelWorkflowExecution"), _close("CancelWorkflowExecution")],
], ids=lambda decisions: "-then-".join(decision["decisionType"] for decision in decisions))
def test_a_close_decision_that_is_not_last_refuses_the_whole_list(swf: Any, domain: str,
                                                                  decisions: list[dict[str, Any]]) -> None:
    run_id = _start(swf, domain)
    task = _decision_task(swf, domain)
    before = history(swf, domain, "w", run_id)
    assert _fault(swf.respond_decision_task_completed, taskToken=task["taskToken"], decisions=decisions) == (
        "ValidationException", "Close must be last decision in list")
    assert history(swf, domain, "w", run_id) == before  # nothing of the list was applied
    # The decision task is still the decider's: it answers again, and the answer counts.
    swf.respond_decision_task_completed(taskToken=task["taskToken"], decisions=[MARKER, _close("CompleteWorkflowExecution")])
    events = history(swf, domain, "w", run_id)
    assert [event["eventType"] for event in events][-3:] == ["DecisionTaskCompleted", "MarkerRecorded",
                                                             "WorkflowExecutionCompleted"]


@pytest.mark.parametrize("close", list(CLOSE))
def test_a_close_decision_last_of_a_list_is_applied_after_the_others(swf: Any, domain: str, close: str) -> None:
    run_id = _start(swf, domain)
    task = _decision_task(swf, domain)
    swf.respond_decision_task_completed(taskToken=task["taskToken"], decisions=[MARKER, _close(close)])
    described = swf.describe_workflow_execution(domain=domain, execution={"workflowId": "w", "runId": run_id})
    assert described["executionInfo"]["executionStatus"] == "CLOSED"
    assert [event["eventType"] for event in history(swf, domain, "w", run_id)][4] == "MarkerRecorded"


# -- fault messages -----------------------------------------------------------------------------------------
def _stale_activity_token(swf: Any, domain: str) -> tuple[Callable[..., Any], dict[str, Any], str]:
    _start(swf, domain)
    swf.respond_decision_task_completed(taskToken=_decision_task(swf, domain)["taskToken"], decisions=[_schedule()])
    task = swf.poll_for_activity_task(domain=domain, taskList={"name": "work"})
    swf.respond_activity_task_completed(taskToken=task["taskToken"], result="done")
    # w's events: started 1, decision scheduled 2, started 3, completed 4, ActivityTaskScheduled 5.
    return swf.respond_activity_task_completed, {"taskToken": task["taskToken"]}, "Unknown activity, scheduledEventId = 5"


def _stale_activity_heartbeat(swf: Any, domain: str) -> tuple[Callable[..., Any], dict[str, Any], str]:
    _, params, message = _stale_activity_token(swf, domain)
    return swf.record_activity_task_heartbeat, params, message


def _stale_decision_token(swf: Any, domain: str) -> tuple[Callable[..., Any], dict[str, Any], str]:
    _start(swf, domain)
    token = _decision_task(swf, domain)["taskToken"]
    # An activity task waits for a worker, so the shared server's auto clock stays (the execution stays open).
    swf.respond_decision_task_completed(taskToken=token, decisions=[_schedule()])
    return swf.respond_decision_task_completed, {"taskToken": token}, "Unknown decision task, scheduledEventId = 2"


def _token_of_a_terminated_execution(swf: Any, domain: str) -> tuple[Callable[..., Any], dict[str, Any], str]:
    run_id = _start(swf, domain)
    token = _decision_task(swf, domain)["taskToken"]
    swf.terminate_workflow_execution(domain=domain, workflowId="w")
    return (swf.respond_decision_task_completed, {"taskToken": token},
            f"Unknown execution: WorkflowExecution=[workflowId=w, runId={run_id}]")


def _closed_execution_without_run(swf: Any, domain: str) -> tuple[Callable[..., Any], dict[str, Any], str]:
    _start(swf, domain)
    swf.terminate_workflow_execution(domain=domain, workflowId="w")
    return (swf.signal_workflow_execution, {"domain": domain, "workflowId": "w", "signalName": "s"},
            "Unknown execution, workflowId = w")


def _unknown_run(swf: Any, domain: str) -> tuple[Callable[..., Any], dict[str, Any], str]:
    return (swf.describe_workflow_execution, {"domain": domain, "execution": {"workflowId": "w", "runId": "wrong-run-id"}},
            "Unknown execution: WorkflowExecution=[workflowId=w, runId=wrong-run-id]")


def _unknown_workflow_to_cancel(swf: Any, domain: str) -> tuple[Callable[..., Any], dict[str, Any], str]:
    return (swf.request_cancel_workflow_execution, {"domain": domain, "workflowId": "nobody"},
            "Unknown execution, workflowId = nobody")


def _unknown_workflow_to_terminate(swf: Any, domain: str) -> tuple[Callable[..., Any], dict[str, Any], str]:
    return (swf.terminate_workflow_execution, {"domain": domain, "workflowId": "nobody"},
            "Unknown execution, workflowId = nobody")


def _delete_registered_workflow_type(swf: Any, domain: str) -> tuple[Callable[..., Any], dict[str, Any], str]:
    return swf.delete_workflow_type, {"domain": domain, "workflowType": WF}, "WorkflowType=[name=wf, version=1]"


def _delete_registered_activity_type(swf: Any, domain: str) -> tuple[Callable[..., Any], dict[str, Any], str]:
    return swf.delete_activity_type, {"domain": domain, "activityType": WORK}, "ActivityType=[name=work, version=1]"


def _corrupt_page_token(operation: str, *, in_domain: bool = True,
                        **params: Any) -> Callable[[Any, str], tuple[Callable[..., Any], dict[str, Any], str]]:
    """`operation` (in the test's domain unless `in_domain` is False) with a page token never handed out."""
    def case(swf: Any, domain: str) -> tuple[Callable[..., Any], dict[str, Any], str]:
        _start(swf, domain)
        scope = {"domain": domain} if in_domain else {}
        return getattr(swf, operation), {**scope, **params, "nextPageToken": "not-a-token"}, "Invalid token"
    case.__name__ = f"corrupt_page_token_of_{operation}"
    return case


def _history_page_token_of_no_decision_task(swf: Any, domain: str) -> tuple[Callable[..., Any], dict[str, Any], str]:
    run_id = _start(swf, domain)
    token = swf.get_workflow_execution_history(domain=domain, execution={"workflowId": "w", "runId": run_id},
                                               maximumPageSize=1)["nextPageToken"]
    return (swf.poll_for_decision_task, {"domain": domain, "taskList": {"name": "decisions"}, "nextPageToken": token},
            "Invalid token")


@pytest.mark.parametrize(("case", "code"), [
    (_stale_activity_token, "UnknownResourceFault"),
    (_stale_activity_heartbeat, "UnknownResourceFault"),
    (_stale_decision_token, "UnknownResourceFault"),
    (_token_of_a_terminated_execution, "UnknownResourceFault"),
    (_closed_execution_without_run, "UnknownResourceFault"),
    (_unknown_run, "UnknownResourceFault"),
    (_unknown_workflow_to_cancel, "UnknownResourceFault"),
    (_unknown_workflow_to_terminate, "UnknownResourceFault"),
    (_delete_registered_workflow_type, "TypeNotDeprecatedFault"),
    (_delete_registered_activity_type, "TypeNotDeprecatedFault"),
    (_corrupt_page_token("list_domains", in_domain=False, registrationStatus="REGISTERED"), "ValidationException"),
    (_corrupt_page_token("list_workflow_types", registrationStatus="REGISTERED"), "ValidationException"),
    (_corrupt_page_token("list_open_workflow_executions", startTimeFilter={"oldestDate": 0}), "ValidationException"),
    (_corrupt_page_token("poll_for_decision_task", taskList={"name": "decisions"}), "ValidationException"),
    (_history_page_token_of_no_decision_task, "ValidationException"),
], ids=lambda value: getattr(value, "__name__", value) if callable(value) else None)
def test_faults_carry_the_services_words(swf: Any, domain: str, case: Callable[..., Any], code: str) -> None:
    call, params, message = case(swf, domain)
    assert _fault(call, **params) == (code, message)
    assert "None" not in message


def test_a_corrupt_history_page_token_is_an_invalid_token(swf: Any, domain: str) -> None:
    run_id = _start(swf, domain)
    assert _fault(swf.get_workflow_execution_history, domain=domain, execution={"workflowId": "w", "runId": run_id},
                  nextPageToken="bm90IGpzb24") == ("ValidationException", "Invalid token")


# -- history defaults -------------------------------------------------------------------------------------
@pytest.mark.parametrize(("act", "event_type", "expected"), [
    (lambda swf, domain: None, "WorkflowExecutionStarted", {"parentInitiatedEventId": 0}),
    (lambda swf, domain: swf.signal_workflow_execution(domain=domain, workflowId="w", signalName="s"),
     "WorkflowExecutionSignaled", {"signalName": "s", "externalInitiatedEventId": 0}),
    (lambda swf, domain: swf.request_cancel_workflow_execution(domain=domain, workflowId="w"),
     "WorkflowExecutionCancelRequested", {"externalInitiatedEventId": 0}),
], ids=["root start", "signal from outside", "cancel request from outside"])
def test_an_event_id_that_names_no_event_is_zero(swf: Any, domain: str, act: Callable[[Any, str], None],
                                                 event_type: str, expected: dict[str, Any]) -> None:
    run_id = _start(swf, domain)
    act(swf, domain)
    event = next(event for event in history(swf, domain, "w", run_id) if event["eventType"] == event_type)
    assert expected.items() <= attributes(event).items()


# -- one clock move over several deadlines -------------------------------------------------------------------
def test_a_manual_advance_over_a_timeout_stamps_it_at_its_due_time(manual: Any) -> None:
    """30 minutes at once over a schedule-to-start timeout due at 5 minutes and a timer due at 10: each
    event carries its own instant, in the order they fell due. (Needs the engine to fire each timer at
    its due time when the clock jumps: branch `fidtime`.)"""
    swf, domain, clock = manual.swf, manual.domain, manual.emulator.clock
    run_id = _start(swf, domain)
    timer = {"decisionType": "StartTimer", "startTimerDecisionAttributes": {"timerId": "t", "startToFireTimeout": "600"}}
    swf.respond_decision_task_completed(taskToken=_decision_task(swf, domain)["taskToken"],
                                        decisions=[_schedule(scheduleToStartTimeout="300"), timer])
    decided = clock.now()
    clock.advance(1800)
    events = history(swf, domain, "w", run_id)
    later = [(event["eventType"], event["eventTimestamp"] - decided) for event in events[6:]]
    assert later == [("ActivityTaskTimedOut", timedelta(minutes=5)), ("DecisionTaskScheduled", timedelta(minutes=5)),
                     ("TimerFired", timedelta(minutes=10))]
    assert attributes(events[6])["timeoutType"] == "SCHEDULE_TO_START"


# -- every member the API reference requires ---------------------------------------------------------------
def _required_members() -> dict[str, tuple[str, ...]]:
    """Each `<type>EventAttributes` shape of botocore's `swf` model and the members it requires."""
    import botocore.session

    model = botocore.session.get_session().get_service_model("swf")
    event = model.shape_for("HistoryEvent")
    return {name: tuple(shape.required_members) for name, shape in event.members.items() if name.endswith("EventAttributes")}


def test_every_event_carries_the_members_its_shape_requires(manual: Any) -> None:
    """A run that records most event types, failures included, on the manual clock."""
    swf, domain, clock = manual.swf, manual.domain, manual.emulator.clock
    run_id = _start(swf, domain)
    timer = {"decisionType": "StartTimer", "startTimerDecisionAttributes": {"timerId": "t", "startToFireTimeout": "30"}}
    child = {"decisionType": "StartChildWorkflowExecution", "startChildWorkflowExecutionDecisionAttributes": {
        "workflowType": WF, "workflowId": "child"}}
    missing_type = {"decisionType": "StartChildWorkflowExecution", "startChildWorkflowExecutionDecisionAttributes": {
        "workflowType": {"name": "none", "version": "0"}, "workflowId": "never"}}
    failing = [
        {"decisionType": "CancelTimer", "cancelTimerDecisionAttributes": {"timerId": "unknown"}},
        {"decisionType": "RequestCancelActivityTask", "requestCancelActivityTaskDecisionAttributes": {"activityId": "unknown"}},
        {"decisionType": "SignalExternalWorkflowExecution", "signalExternalWorkflowExecutionDecisionAttributes": {
            "workflowId": "unknown", "signalName": "s"}},
        {"decisionType": "RequestCancelExternalWorkflowExecution",
         "requestCancelExternalWorkflowExecutionDecisionAttributes": {"workflowId": "unknown"}},
        {"decisionType": "ScheduleActivityTask", "scheduleActivityTaskDecisionAttributes": {
            "activityId": "x", "activityType": {"name": "none", "version": "0"}}},
    ]
    swf.respond_decision_task_completed(taskToken=_decision_task(swf, domain)["taskToken"], decisions=[
        _schedule("a"), _schedule("late", scheduleToStartTimeout="10"), timer, MARKER, child, missing_type, *failing])
    work = swf.poll_for_activity_task(domain=domain, taskList={"name": "work"})
    swf.respond_activity_task_completed(taskToken=work["taskToken"], result="done")
    swf.signal_workflow_execution(domain=domain, workflowId="w", signalName="s")
    clock.advance(60)
    swf.respond_decision_task_completed(taskToken=_decision_task(swf, domain)["taskToken"],
                                        decisions=[_close("CompleteWorkflowExecution")])
    required = _required_members()
    events = history(swf, domain, "w", run_id)
    seen = {event["eventType"] for event in events}
    assert {"ActivityTaskTimedOut", "TimerFired", "StartChildWorkflowExecutionFailed", "CancelTimerFailed",
            "ChildWorkflowExecutionStarted", "ScheduleActivityTaskFailed", "WorkflowExecutionSignaled"} <= seen
    for event in events:
        member = next(key for key in event if key.endswith("EventAttributes"))
        absent = [name for name in required[member] if name not in event[member]]
        assert not absent, f"{event['eventType']} lacks {absent}"
