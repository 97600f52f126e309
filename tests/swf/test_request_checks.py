"""A request SWF refuses changes nothing: durations and task priorities that are not whole numbers
are a ValidationException before anything is recorded (the decision task's token still answers it),
a start with a bad priority starts nothing, and a timestamp that is not epoch seconds is a
SerializationException (400), never a 500. Over HTTP and in-process alike."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest
from helpers.swf_workers import close_open_executions, new_domain, register_basics

WF = {"name": "wf", "version": "1"}
WORK = {"name": "work", "version": "1"}


@pytest.fixture(params=["http", "in-process"])
def client(request: pytest.FixtureRequest) -> Any:
    """(an SWF client, a domain of the test's own with wf/1 and work/1)."""
    if request.param == "http":
        swf = request.getfixturevalue("swf")
        domain = new_domain()
        register_basics(swf, domain)
        yield swf, domain
        close_open_executions(swf, domain)
    else:
        manual = request.getfixturevalue("manual")
        yield manual.swf, manual.domain


def _history(swf: Any, domain: str, workflow_id: str, run_id: str) -> list[str]:
    events = swf.get_workflow_execution_history(domain=domain, execution={"workflowId": workflow_id, "runId": run_id})
    return [event["eventType"] for event in events["events"]]


# decision: (its attributes member, attributes with a number that is not one, the member's path)
BAD_DECISIONS = {
    "fractional-timeout": ("ScheduleActivityTask", {"activityType": WORK, "activityId": "a1", "startToCloseTimeout": "1.5"},
                           "scheduleActivityTaskDecisionAttributes.startToCloseTimeout", "a whole number of seconds or NONE"),
    "word-timer": ("StartTimer", {"timerId": "t1", "startToFireTimeout": "soon"},
                   "startTimerDecisionAttributes.startToFireTimeout", "a whole number of seconds"),
    "negative-heartbeat": ("ScheduleActivityTask", {"activityType": WORK, "activityId": "a1", "heartbeatTimeout": "-5"},
                           "scheduleActivityTaskDecisionAttributes.heartbeatTimeout", "a whole number of seconds or NONE"),
    "priority-word": ("ScheduleActivityTask", {"activityType": WORK, "activityId": "a1", "taskPriority": "high"},
                      "scheduleActivityTaskDecisionAttributes.taskPriority", "a whole number from -2147483648"),
}
MEMBERS = {"ScheduleActivityTask": "scheduleActivityTaskDecisionAttributes", "StartTimer": "startTimerDecisionAttributes"}


@pytest.mark.parametrize("case", sorted(BAD_DECISIONS))
def test_a_decision_with_a_number_that_is_not_one_is_refused_before_anything_is_recorded(case: str, client: Any) -> None:
    swf, domain = client
    decision_type, attributes, path, wanted = BAD_DECISIONS[case]
    run_id = swf.start_workflow_execution(domain=domain, workflowId="wf-1", workflowType=WF)["runId"]
    task = swf.poll_for_decision_task(domain=domain, taskList={"name": "decisions"})
    before = _history(swf, domain, "wf-1", run_id)
    good = {"decisionType": "RecordMarker", "recordMarkerDecisionAttributes": {"markerName": "first"}}
    with pytest.raises(swf.exceptions.ClientError) as refused:
        swf.respond_decision_task_completed(taskToken=task["taskToken"], decisions=[
            good, {"decisionType": decision_type, MEMBERS[decision_type]: attributes}])
    error = refused.value.response["Error"]
    assert error["Code"] == "ValidationException", error
    assert f"at 'decisions.2.member.{path}' failed to satisfy constraint: Member must be {wanted}" in error["Message"]
    assert _history(swf, domain, "wf-1", run_id) == before  # not even the good decision's marker
    swf.respond_decision_task_completed(taskToken=task["taskToken"], decisions=[  # the token still answers it
        {"decisionType": "ScheduleActivityTask", "scheduleActivityTaskDecisionAttributes": {"activityType": WORK,
                                                                                              "activityId": "a1"}}])
    assert _history(swf, domain, "wf-1", run_id)[-2:] == ["DecisionTaskCompleted", "ActivityTaskScheduled"]


@pytest.mark.parametrize("priority", ["high", "1.5", "2147483648", " 1"])
def test_a_start_with_a_bad_task_priority_starts_nothing(priority: str, client: Any) -> None:
    swf, domain = client
    with pytest.raises(swf.exceptions.ClientError) as refused:
        swf.start_workflow_execution(domain=domain, workflowId="wf-1", workflowType=WF, taskPriority=priority)
    assert refused.value.response["Error"]["Code"] == "ValidationException"
    assert refused.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    counted = swf.count_open_workflow_executions(domain=domain, startTimeFilter={"oldestDate": 0})
    assert counted["count"] == 0
    assert swf.start_workflow_execution(domain=domain, workflowId="wf-1", workflowType=WF, taskPriority="-7")["runId"]


@pytest.mark.parametrize(("oldest", "message"), [
    ("yesterday", "class java.lang.String can not be converted to an Date"),
    ({"at": 1}, "Start of structure or map found where not expected."),
    (1e300, "is not a date"),
])
def test_a_timestamp_that_is_not_epoch_seconds_is_a_serialization_exception(oldest: Any, message: str,
                                                                            emulator_server: Any) -> None:
    request = urllib.request.Request(
        emulator_server.endpoint_url, method="POST",
        data=json.dumps({"domain": new_domain(), "startTimeFilter": {"oldestDate": oldest}}).encode(),
        headers={"Content-Type": "application/x-amz-json-1.0",
                 "X-Amz-Target": "SimpleWorkflowService.CountOpenWorkflowExecutions",
                 "Authorization": "AWS4-HMAC-SHA256 Credential=testing/20240101/us-east-1/swf/aws4_request, "
                                  "SignedHeaders=host, Signature=0"})
    with pytest.raises(urllib.error.HTTPError) as answered:
        urllib.request.urlopen(request, timeout=60)
    assert answered.value.code == 400
    body = json.loads(answered.value.read())
    assert body["__type"].endswith("SerializationException") and message in body["message"], body
