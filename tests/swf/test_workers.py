"""Deciders and activity workers written as SWF users write them (boto3 poll loops on threads),
against the server over HTTP and in-process: activities, child workflows, ContinueAsNew, signals
between executions and Lambda functions from the functions map."""

from __future__ import annotations

import json
from datetime import timedelta
import threading
from typing import Any

import pytest
from helpers.swf_workers import (
    Decider,
    Worker,
    assert_shaped_as_the_api_reference_says,
    attributes,
    close_open_executions,
    history,
    new_domain,
    register_basics,
    swf_client,
)

WF = {"name": "wf", "version": "1"}


def _types(events: list[dict[str, Any]]) -> list[str]:
    return [event["eventType"] for event in events]


def _last(events: list[dict[str, Any]], event_type: str) -> dict[str, Any]:
    return attributes(next(event for event in reversed(events) if event["eventType"] == event_type))


def _order_decider(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Runs two activities one after the other, then completes with their results."""
    done = [attributes(event)["result"] for event in events if event["eventType"] == "ActivityTaskCompleted"]
    if len(done) == 2:
        return [{"decisionType": "CompleteWorkflowExecution", "completeWorkflowExecutionDecisionAttributes": {"result": "+".join(done)}}]
    start_input = attributes(events[0]).get("input", "")
    return [{"decisionType": "ScheduleActivityTask", "scheduleActivityTaskDecisionAttributes": {
        "activityType": {"name": "work", "version": "1"}, "activityId": f"step-{len(done)}", "input": f"{start_input}{len(done)}"}}]


@pytest.fixture(params=["http", "in-process"])
def client_and_domain(request: pytest.FixtureRequest, emulator_server: Any) -> Any:
    if request.param == "http":
        swf = swf_client(emulator_server.endpoint_url)
        domain = new_domain()
        register_basics(swf, domain)
        yield swf, domain
        close_open_executions(swf, domain)
        return
    _, swf = request.getfixturevalue("manual_emulator")
    domain = new_domain()
    register_basics(swf, domain)
    yield swf, domain


def test_a_decider_and_a_worker_run_a_workflow(client_and_domain: Any) -> None:
    swf, domain = client_and_domain
    run_id = swf.start_workflow_execution(domain=domain, workflowId="order", workflowType=WF, input="x")["runId"]
    decider = Decider(swf, domain, _order_decider)
    worker = Worker(swf, domain, lambda task: task["input"].upper(), tasks=2)
    decider.start(), worker.start()
    assert decider.closed.wait(60)
    decider.finish(), worker.finish()
    events = history(swf, domain, "order", run_id)
    assert _last(events, "WorkflowExecutionCompleted")["result"] == "X0+X1"
    assert _types(events).count("ActivityTaskStarted") == 2
    assert_shaped_as_the_api_reference_says(events)
    for event in events:  # ids count up from 1 and every reference points backwards
        for key, value in attributes(event).items():
            if key.endswith("EventId") and value:
                assert 0 < value < event["eventId"], event


def test_a_child_workflow_reports_to_its_parent(client_and_domain: Any) -> None:
    swf, domain = client_and_domain

    def decide(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        started = attributes(events[0])
        if "parentWorkflowExecution" in started:  # the child
            return [{"decisionType": "CompleteWorkflowExecution", "completeWorkflowExecutionDecisionAttributes": {"result": "from child"}}]
        if "ChildWorkflowExecutionCompleted" in _types(events):
            return [{"decisionType": "CompleteWorkflowExecution", "completeWorkflowExecutionDecisionAttributes": {
                "result": _last(events, "ChildWorkflowExecutionCompleted")["result"]}}]
        if "StartChildWorkflowExecutionInitiated" in _types(events):
            return []
        return [{"decisionType": "StartChildWorkflowExecution", "startChildWorkflowExecutionDecisionAttributes": {
            "workflowId": "kid", "workflowType": WF}}]

    run_id = swf.start_workflow_execution(domain=domain, workflowId="parent", workflowType=WF)["runId"]
    decider = Decider(swf, domain, decide, until="parent")  # it closes the child first, then the parent
    decider.start()
    assert decider.closed.wait(60)
    decider.finish()
    events = history(swf, domain, "parent", run_id)
    assert _last(events, "WorkflowExecutionCompleted")["result"] == "from child"
    completed = _last(events, "ChildWorkflowExecutionCompleted")
    assert completed["initiatedEventId"] == _types(events).index("StartChildWorkflowExecutionInitiated") + 1
    assert completed["startedEventId"] == _types(events).index("ChildWorkflowExecutionStarted") + 1
    child_events = history(swf, domain, "kid", completed["workflowExecution"]["runId"])
    assert_shaped_as_the_api_reference_says(events + child_events)
    assert attributes(child_events[0])["parentWorkflowExecution"] == {"workflowId": "parent", "runId": run_id}


def test_continue_as_new_starts_a_new_run_of_the_same_workflow_id(client_and_domain: Any) -> None:
    swf, domain = client_and_domain

    def decide(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        count = int(attributes(events[0]).get("input", "0"))
        if count == 2:
            return [{"decisionType": "CompleteWorkflowExecution", "completeWorkflowExecutionDecisionAttributes": {"result": "third run"}}]
        return [{"decisionType": "ContinueAsNewWorkflowExecution", "continueAsNewWorkflowExecutionDecisionAttributes": {
            "input": str(count + 1)}}]

    first = swf.start_workflow_execution(domain=domain, workflowId="loop", workflowType=WF, input="0")["runId"]
    runs = [first]
    for _ in range(3):
        decider = Decider(swf, domain, decide, max_polls=5)
        decider.start()
        assert decider.closed.wait(30)
        decider.finish()
        closing = history(swf, domain, "loop", runs[-1])[-1]
        if closing["eventType"] == "WorkflowExecutionCompleted":
            break
        new_run = attributes(closing)["newExecutionRunId"]
        assert attributes(history(swf, domain, "loop", new_run)[0])["continuedExecutionRunId"] == runs[-1]
        runs.append(new_run)
    assert len(runs) == 3
    closed = swf.list_closed_workflow_executions(domain=domain, startTimeFilter={"oldestDate": 0},
                                                 closeStatusFilter={"status": "CONTINUED_AS_NEW"})["executionInfos"]
    assert sorted(info["execution"]["runId"] for info in closed) == sorted(runs[:2])


def test_schedule_lambda_function_runs_the_registered_callable(emulator_server: Any) -> None:
    functions = emulator_server.emulator.functions
    name = f"double-{new_domain()}"
    functions.register(name, lambda event, context: {"doubled": event["n"] * 2})
    functions.register(f"{name}-broken", lambda event, context: 1 / 0)
    swf = swf_client(emulator_server.endpoint_url)
    domain = new_domain()
    register_basics(swf, domain)

    def decide(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        types = _types(events)
        if "LambdaFunctionCompleted" in types and "LambdaFunctionFailed" in types:
            return [{"decisionType": "CompleteWorkflowExecution", "completeWorkflowExecutionDecisionAttributes": {
                "result": _last(events, "LambdaFunctionCompleted")["result"]}}]
        if "LambdaFunctionScheduled" in types:
            return []
        return [{"decisionType": "ScheduleLambdaFunction", "scheduleLambdaFunctionDecisionAttributes": {
                    "id": "ok", "name": name, "input": json.dumps({"n": 21})}},
                {"decisionType": "ScheduleLambdaFunction", "scheduleLambdaFunctionDecisionAttributes": {
                    "id": "bad", "name": f"{name}-broken", "startToCloseTimeout": "60"}}]

    run_id = swf.start_workflow_execution(domain=domain, workflowId="fn", workflowType=WF)["runId"]
    decider = Decider(swf, domain, decide)
    decider.start()
    assert decider.closed.wait(60)
    decider.finish()
    events = history(swf, domain, "fn", run_id)
    assert json.loads(_last(events, "WorkflowExecutionCompleted")["result"]) == {"doubled": 42}
    failed = _last(events, "LambdaFunctionFailed")
    assert failed["reason"] == "ZeroDivisionError" and json.loads(failed["details"])["errorType"] == "ZeroDivisionError"
    scheduled = [attributes(event) for event in events if event["eventType"] == "LambdaFunctionScheduled"]
    assert [(item["id"], item["startToCloseTimeout"]) for item in scheduled] == [("ok", "300"), ("bad", "60")]


def test_a_lambda_function_times_out_on_the_clock_and_its_id_is_in_use_meanwhile(manual: Any) -> None:
    swf, domain, clock = manual.swf, manual.domain, manual.emulator.clock
    release = threading.Event()
    name = f"slow-{domain}"
    manual.emulator.functions.register(name, lambda event, context: release.wait(30) and "late")
    run_id = swf.start_workflow_execution(domain=domain, workflowId="fn", workflowType=WF)["runId"]
    schedule = {"decisionType": "ScheduleLambdaFunction", "scheduleLambdaFunctionDecisionAttributes": {
        "id": "slow", "name": name, "startToCloseTimeout": "5"}}
    task = swf.poll_for_decision_task(domain=domain, taskList={"name": "decisions"})
    swf.respond_decision_task_completed(taskToken=task["taskToken"], decisions=[schedule, schedule])
    # `advance` returns once nothing runs, so only after the function returns: move time on a thread,
    # and let the function go once its timeout has been recorded (a decision task follows it).
    mover = threading.Thread(target=clock.advance, args=(5,), daemon=True)
    mover.start()
    try:
        # The failed second decision asks the decider first; a decider answering it with nothing
        # gets the decision task that follows the timeout (a bounded number of polls).
        for _ in range(5):
            after_timeout = swf.poll_for_decision_task(domain=domain, taskList={"name": "decisions"})
            if "LambdaFunctionTimedOut" in _types(after_timeout["events"]):
                break
            swf.respond_decision_task_completed(taskToken=after_timeout["taskToken"], decisions=[])
    finally:
        release.set()
        mover.join(30)
    assert "LambdaFunctionTimedOut" in _types(after_timeout["events"])
    events = history(swf, domain, "fn", run_id)
    assert _last(events, "ScheduleLambdaFunctionFailed")["cause"] == "ID_ALREADY_IN_USE"
    timed_out = next(event for event in events if event["eventType"] == "LambdaFunctionTimedOut")
    assert attributes(timed_out)["timeoutType"] == "START_TO_CLOSE"
    assert timed_out["eventTimestamp"] == _last_event(events, "LambdaFunctionStarted")["eventTimestamp"] + timedelta(seconds=5)


def _last_event(events: list[dict[str, Any]], event_type: str) -> dict[str, Any]:
    return next(event for event in reversed(events) if event["eventType"] == event_type)
