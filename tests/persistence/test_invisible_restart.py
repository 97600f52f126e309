"""An invisible restart: a real server killed with SIGKILL while executions wait for someone outside (a
callback's task token, an activity a worker took, a `.sync` child execution), then started again on
its state directory. Each goes on waiting in the same state with the same history: no event is added,
no message is sent again, no child started again, and the old token still answers it."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import boto3
from botocore.config import Config
from helpers.clients import TEST_REGION, make_client
from helpers.state_servers import post_json

ACCOUNT = "123456789012"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/persist"
POLL_BOUND = 600  # polls at most for an execution to reach a point (each one a request; no timing assumed)


def _sqs(url: str) -> Any:
    return boto3.client("sqs", endpoint_url=url, region_name=TEST_REGION, aws_access_key_id="testing",
                        aws_secret_access_key="testing", config=Config(retries={"max_attempts": 0}))


def _types(sfn: Any, arn: str) -> list[dict[str, Any]]:
    return sfn.get_execution_history(executionArn=arn, maxResults=1000)["events"]


def _reached(sfn: Any, arn: str, event_type: str) -> list[dict[str, Any]]:
    for _ in range(POLL_BOUND):
        events = _types(sfn, arn)
        if events and events[-1]["type"] == event_type:
            return events
        time.sleep(0.05)  # between polls only: the bound is a count of polls
    raise AssertionError(f"{arn} never reached {event_type}: {[e['type'] for e in _types(sfn, arn)]}")


def _finished(sfn: Any, arn: str) -> dict[str, Any]:
    for _ in range(POLL_BOUND):
        described = sfn.describe_execution(executionArn=arn)
        if described["status"] != "RUNNING":
            return described
        time.sleep(0.05)
    raise AssertionError(f"{arn} still running")


def _token_in(events: list[dict[str, Any]]) -> str:
    parameters = json.loads(next(e for e in events if e["type"] == "TaskScheduled")["taskScheduledEventDetails"]["parameters"])
    return str(parameters["MessageBody"]["token"])


def test_executions_waiting_on_the_outside_wait_on_across_a_sigkill(servers: Any, tmp_path: Path) -> None:
    state_dir = tmp_path / "state"
    first = servers(state_dir, "--clock", "manual")
    sfn, sqs = make_client(first.endpoint_url), _sqs(first.endpoint_url)
    queue = sqs.create_queue(QueueName="callbacks")["QueueUrl"]
    callback = sfn.create_state_machine(name="callback", roleArn=ROLE, definition=json.dumps({
        "StartAt": "Ask", "States": {"Ask": {
            "Type": "Task", "Resource": "arn:aws:states:::sqs:sendMessage.waitForTaskToken", "End": True,
            "Parameters": {"QueueUrl": queue, "MessageBody": {"token.$": "$$.Task.Token"}}}}}))["stateMachineArn"]
    activity = sfn.create_activity(name="worker")["activityArn"]
    working = sfn.create_state_machine(name="working", roleArn=ROLE, definition=json.dumps({
        "StartAt": "Work", "States": {"Work": {"Type": "Task", "Resource": activity, "End": True}}}))["stateMachineArn"]
    child = sfn.create_state_machine(name="child", roleArn=ROLE, definition=json.dumps({
        "StartAt": "Hold", "States": {"Hold": {"Type": "Wait", "Seconds": 3600, "End": True}}}))["stateMachineArn"]
    parent = sfn.create_state_machine(name="parent", roleArn=ROLE, definition=json.dumps({
        "StartAt": "Run", "States": {"Run": {
            "Type": "Task", "Resource": "arn:aws:states:::states:startExecution.sync:2", "End": True,
            "Parameters": {"StateMachineArn": child, "Input": {"n": 1}}}}}))["stateMachineArn"]

    asking = sfn.start_execution(stateMachineArn=callback)["executionArn"]
    asked = _reached(sfn, asking, "TaskSubmitted")
    token = _token_in(asked)
    worked = sfn.start_execution(stateMachineArn=working, input='{"job": 1}')["executionArn"]
    task = sfn.get_activity_task(activityArn=activity, workerName="w1")
    assert json.loads(task["input"]) == {"job": 1}
    work = _reached(sfn, worked, "ActivityStarted")
    running = sfn.start_execution(stateMachineArn=parent)["executionArn"]
    run = _reached(sfn, running, "TaskSubmitted")
    for answerable in (token, task["taskToken"]):  # answered once the engine's round is recorded
        sfn.send_task_heartbeat(taskToken=answerable)
    sfn.tag_resource(resourceArn=parent, tags=[{"key": "k", "value": "v"}])
    first.kill()

    second = servers(state_dir)
    sfn, sqs = make_client(second.endpoint_url), _sqs(second.endpoint_url)
    assert _types(sfn, asking) == asked and _types(sfn, worked) == work and _types(sfn, running) == run
    messages = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10, VisibilityTimeout=0).get("Messages", [])
    assert [json.loads(m["Body"])["token"] for m in messages] == [token]  # sent once, before the kill
    assert len(sfn.list_executions(stateMachineArn=child)["executions"]) == 1  # the child was not started again

    sfn.send_task_success(taskToken=token, output='{"answered": true}')
    sfn.send_task_success(taskToken=task["taskToken"], output='{"worked": true}')
    assert json.loads(_finished(sfn, asking)["output"]) == {"answered": True}
    assert json.loads(_finished(sfn, worked)["output"]) == {"worked": True}
    assert [e["type"] for e in _types(sfn, asking)][len(asked):] == ["TaskSucceeded", "TaskStateExited", "ExecutionSucceeded"]
    assert [e["type"] for e in _types(sfn, worked)][len(work):] == ["ActivitySucceeded", "TaskStateExited",
                                                                    "ExecutionSucceeded"]
    status, _ = post_json(f"{second.endpoint_url}/_emulator/clock", json.dumps({"advance": 3600}).encode())
    assert status == 200
    assert _finished(sfn, running)["status"] == "SUCCEEDED"
    assert [e["type"] for e in _types(sfn, running)][len(run):] == ["TaskSucceeded", "TaskStateExited", "ExecutionSucceeded"]
