"""Standard executions put "Step Functions Execution Status Change" events on their account's default
bus (developer guide, "EventBridge (CloudWatch Events) for Step Functions execution status changes"):
a rule on `aws.states` delivers each to an SQS queue, read back with boto3 over HTTP."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import pytest
from helpers.eventbridge_cloud import Cloud

DETAIL_KEYS = {"executionArn", "stateMachineArn", "name", "status", "startDate", "stopDate", "input", "inputDetails",
               "output", "outputDetails", "error", "cause", "redriveCount", "redriveDate", "redriveStatus",
               "redriveStatusReason"}
PASS = {"StartAt": "P", "States": {"P": {"Type": "Pass", "Result": {"done": True}, "End": True}}}
FAIL = {"StartAt": "F", "States": {"F": {"Type": "Fail", "Error": "Oops", "Cause": "it broke"}}}
SLOW = {"StartAt": "W", "TimeoutSeconds": 60, "States": {"W": {"Type": "Wait", "Seconds": 3600, "End": True}}}


def _listening(cloud: Cloud, pattern: dict[str, Any] | None = None) -> str:
    url, arn = cloud.queue("status-changes")
    cloud.rule("status-changes", [{"Arn": arn}],
               EventPattern=json.dumps(pattern or {"source": ["aws.states"],
                                                   "detail-type": ["Step Functions Execution Status Change"]}))
    return url


def _run(cloud: Cloud, emulator_server: Any, machine: str, value: Any = None) -> dict[str, Any]:
    sfn = cloud.client("stepfunctions")
    arn = sfn.start_execution(stateMachineArn=machine, input=json.dumps(value or {}))["executionArn"]
    assert emulator_server.emulator.clock.run_until_idle(30)
    return sfn.describe_execution(executionArn=arn)


def _millis(moment: datetime | None) -> int | None:
    return None if moment is None else round(moment.timestamp() * 1000)


def _iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.mark.parametrize("definition, status, error, cause", [
    (PASS, "SUCCEEDED", None, None),
    (FAIL, "FAILED", "Oops", "it broke"),
    (SLOW, "TIMED_OUT", None, None),
])
def test_an_execution_puts_its_start_and_its_end(cloud: Cloud, emulator_server: Any, definition: dict[str, Any],
                                                 status: str, error: str | None, cause: str | None) -> None:
    queue = _listening(cloud)
    described = _run(cloud, emulator_server, cloud.machine("watched", definition), {"order": 7})
    events = [message["Body"] for message in cloud.messages(queue)]
    assert [event["detail"]["status"] for event in events] == ["RUNNING", status]
    started, ended = events
    for event, moment in ((started, described["startDate"]), (ended, described["stopDate"])):
        assert {key: event[key] for key in ("source", "detail-type", "account", "region", "resources", "time")} == {
            "source": "aws.states", "detail-type": "Step Functions Execution Status Change", "account": cloud.account,
            "region": "us-east-1", "resources": [described["executionArn"]], "time": _iso(moment)}
        assert set(event["detail"]) == DETAIL_KEYS
    assert started["detail"] == {
        "executionArn": described["executionArn"], "stateMachineArn": described["stateMachineArn"],
        "name": described["name"], "status": "RUNNING", "startDate": _millis(described["startDate"]), "stopDate": None,
        "input": '{"order": 7}', "inputDetails": {"included": True}, "output": None, "outputDetails": None,
        "error": None, "cause": None, "redriveCount": 0, "redriveDate": None, "redriveStatus": "NOT_REDRIVABLE",
        "redriveStatusReason": "Execution is RUNNING and cannot be redriven"}
    output = described.get("output")
    assert {key: ended["detail"][key] for key in ("stopDate", "output", "outputDetails", "error", "cause")} == {
        "stopDate": _millis(described["stopDate"]), "output": output,
        "outputDetails": {"included": True} if output is not None else None, "error": error, "cause": cause}
    assert ended["detail"]["redriveStatus"] == ("NOT_REDRIVABLE" if status == "SUCCEEDED" else "REDRIVABLE")


def test_a_stopped_execution_puts_aborted(cloud: Cloud, emulator_server: Any) -> None:
    queue = _listening(cloud)
    sfn = cloud.client("stepfunctions")
    activity = sfn.create_activity(name="never-polled")["activityArn"]
    machine = cloud.machine("waits", {"StartAt": "A", "States": {"A": {"Type": "Task", "Resource": activity, "End": True}}})
    arn = sfn.start_execution(stateMachineArn=machine)["executionArn"]
    assert emulator_server.emulator.clock.run_until_idle(30)
    sfn.stop_execution(executionArn=arn, error="Halt", cause="by hand")
    statuses = [(m["Body"]["detail"]["status"], m["Body"]["detail"]["error"], m["Body"]["detail"]["cause"])
                for m in cloud.messages(queue)]
    assert statuses == [("RUNNING", None, None), ("ABORTED", "Halt", "by hand")]


def test_a_redrive_puts_pending_redrive_then_running(cloud: Cloud, emulator_server: Any) -> None:
    queue = _listening(cloud)
    described = _run(cloud, emulator_server, cloud.machine("fails", FAIL))
    cloud.messages(queue)
    sfn = cloud.client("stepfunctions")
    sfn.redrive_execution(executionArn=described["executionArn"])
    assert emulator_server.emulator.clock.run_until_idle(30)
    redriven = sfn.describe_execution(executionArn=described["executionArn"])
    details = [message["Body"]["detail"] for message in cloud.messages(queue)]
    assert [(detail["status"], detail["redriveCount"]) for detail in details] == [
        ("PENDING_REDRIVE", 1), ("RUNNING", 1), ("FAILED", 1)]
    assert {detail["redriveDate"] for detail in details} == {_millis(redriven["redriveDate"])}


def test_express_executions_put_nothing(cloud: Cloud, emulator_server: Any) -> None:
    queue = _listening(cloud)
    machine = cloud.machine("express", PASS, type="EXPRESS")
    sfn = cloud.client("stepfunctions")
    sfn.start_execution(stateMachineArn=machine, input="{}")
    assert sfn.start_sync_execution(stateMachineArn=machine, input="{}")["status"] == "SUCCEEDED"
    assert emulator_server.emulator.clock.run_until_idle(30)
    assert cloud.messages(queue) == []


def test_a_rule_that_matches_nothing_delivers_nothing(cloud: Cloud, emulator_server: Any) -> None:
    queue = _listening(cloud, {"source": ["aws.states"], "detail": {"status": ["ABORTED"]}})
    _run(cloud, emulator_server, cloud.machine("succeeds", PASS))
    assert cloud.messages(queue) == []


def test_input_and_output_past_the_payload_quota_are_left_out(cloud: Cloud, emulator_server: Any) -> None:
    queue = _listening(cloud, {"source": ["aws.states"], "detail": {"status": ["SUCCEEDED"]}})
    big = "x" * 200_000
    echo = {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}
    _run(cloud, emulator_server, cloud.machine("echo", echo), {"a": big})
    detail = cloud.messages(queue)[0]["Body"]["detail"]
    assert (detail["input"], detail["inputDetails"], detail["output"], detail["outputDetails"]) == (
        None, {"included": False}, json.dumps({"a": big}, separators=(",", ":")), {"included": True})
