"""Every decision type of the `Decision` reference and every way it fails, table-driven from
fixtures/swf/decisions.json: each case answers the first decision task of an execution with
its decisions and names the events recorded after DecisionTaskCompleted (attributes given are
compared; "$completed" is DecisionTaskCompleted's id, "$completed+N" the id N events later)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers.paths import FIXTURES_ROOT
from helpers.swf_workers import assert_shaped_as_the_api_reference_says, attributes

CASES = json.loads((FIXTURES_ROOT / "swf" / "decisions.json").read_text())


def _resolve(value: Any, completed: int) -> Any:
    if isinstance(value, str) and value.startswith("$completed"):
        return completed + int(value.partition("+")[2] or 0)
    if isinstance(value, dict):
        return {key: _resolve(item, completed) for key, item in value.items()}
    return value


def test_every_decision_type_has_a_case() -> None:
    from botocore.session import get_session

    decision_types = set(get_session().get_service_model("swf").shape_for("DecisionType").enum)
    assert decision_types <= {decision["decisionType"] for case in CASES for decision in case["decisions"]}


def test_every_decision_failure_cause_that_a_decider_can_cause_has_a_case() -> None:
    """Causes that need account limits, rates or IAM (..._LIMIT_EXCEEDED, ..._RATE_EXCEEDED,
    OPERATION_NOT_PERMITTED, LAMBDA_SERVICE_NOT_AVAILABLE_IN_REGION) cannot happen locally."""
    from botocore.session import get_session

    model = get_session().get_service_model("swf")
    unreachable = ("LIMIT_EXCEEDED", "RATE_EXCEEDED", "OPERATION_NOT_PERMITTED", "NOT_AVAILABLE_IN_REGION")
    causes = {cause for name in model.shape_names if name.endswith("FailedCause") and name != "StartLambdaFunctionFailedCause"
              for cause in model.shape_for(name).enum if not cause.endswith(unreachable)}
    covered = {event["attributes"].get("cause") for case in CASES for event in case["expect"]}
    # ID_ALREADY_IN_USE (ScheduleLambdaFunction's) needs a function still running: see test_lambda_functions.
    # DEFAULT_HEARTBEAT_TIMEOUT_UNDEFINED: unlike the other three timeouts, the API reference does not make
    # ScheduleActivityTask's heartbeatTimeout fail without a default; no heartbeat timeout is kept then.
    assert causes - covered == {"ID_ALREADY_IN_USE", "DEFAULT_HEARTBEAT_TIMEOUT_UNDEFINED"}


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_decision(manual: Any, case: dict[str, Any]) -> None:
    swf, domain = manual.swf, manual.domain
    for call in case.get("setup", []):
        getattr(swf, call["op"])(domain=domain, **call["params"])
    run_id = swf.start_workflow_execution(domain=domain, workflowId="wf-1", workflowType={"name": "wf", "version": "1"})["runId"]
    task = swf.poll_for_decision_task(domain=domain, taskList={"name": "decisions"})
    assert task["workflowExecution"] == {"workflowId": "wf-1", "runId": run_id}
    if case.get("signalDuringTask"):
        swf.signal_workflow_execution(domain=domain, workflowId="wf-1", signalName="news")
    swf.respond_decision_task_completed(taskToken=task["taskToken"], decisions=case["decisions"])

    events = swf.get_workflow_execution_history(domain=domain, execution={"workflowId": "wf-1", "runId": run_id})["events"]
    assert_shaped_as_the_api_reference_says(events)
    completed = next(event["eventId"] for event in events if event["eventType"] == "DecisionTaskCompleted")
    after = events[completed:]
    assert [event["eventType"] for event in after] == [expected["eventType"] for expected in case["expect"]]
    for event, expected in zip(after, case["expect"]):
        wanted = _resolve(expected["attributes"], completed)
        assert {key: attributes(event).get(key) for key in wanted} == wanted, event
    info = swf.describe_workflow_execution(domain=domain, execution={"workflowId": "wf-1", "runId": run_id})["executionInfo"]
    assert info["executionStatus"] == case["status"]
    assert info.get("closeStatus") == case.get("closeStatus")


def test_a_decision_without_its_attributes_is_refused_as_coral_refuses_it(manual: Any) -> None:
    swf, domain = manual.swf, manual.domain
    swf.start_workflow_execution(domain=domain, workflowId="wf-1", workflowType={"name": "wf", "version": "1"})
    task = swf.poll_for_decision_task(domain=domain, taskList={"name": "decisions"})
    with pytest.raises(swf.exceptions.ClientError) as refused:
        swf.respond_decision_task_completed(taskToken=task["taskToken"], decisions=[
            {"decisionType": "RecordMarker"}, {"decisionType": "StartTimer"}])
    error = refused.value.response["Error"]
    assert error["Code"] == "ValidationException"
    assert error["Message"] == (
        "2 validation errors detected: Value null at 'decisions.1.member.recordMarkerDecisionAttributes' failed to "
        "satisfy constraint: Member must not be null; Value null at 'decisions.2.member.startTimerDecisionAttributes' "
        "failed to satisfy constraint: Member must not be null")
