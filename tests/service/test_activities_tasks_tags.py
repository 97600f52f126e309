"""Activities, activity workers (GetActivityTask, SendTask*), and tags on state machines and activities."""

from __future__ import annotations

import json

import pytest
from helpers.service_world import ACCOUNT, PASS, ROLE, START, machine_arn, settle

from sfn_emulator.service import StepFunctionsService
from sfn_emulator.service.errors import (
    ActivityDoesNotExist,
    InvalidArn,
    InvalidName,
    InvalidOutput,
    InvalidToken,
    ResourceNotFound,
    TaskDoesNotExist,
    TooManyTags,
    ValidationException,
)

ACTIVITY = f"arn:aws:states:us-east-1:{ACCOUNT}:activity:work"


def worker_machine(service: StepFunctionsService) -> str:
    definition = {"StartAt": "Work", "States": {"Work": {"Type": "Task", "Resource": ACTIVITY, "End": True}}}
    return service.create_state_machine(name="worker", definition=json.dumps(definition), roleArn=ROLE)["stateMachineArn"]


def test_activity_lifecycle(service: StepFunctionsService, clock) -> None:
    created = service.create_activity(name="work", tags=[{"key": "team", "value": "a"}])
    assert created == {"activityArn": ACTIVITY, "creationDate": START}
    clock.advance(5)
    assert service.create_activity(name="work") == created  # idempotent by name
    assert service.describe_activity(activityArn=ACTIVITY) == {"activityArn": ACTIVITY, "name": "work",
                                                                "creationDate": START,
                                                                "encryptionConfiguration": {"type": "AWS_OWNED_KEY"}}
    service.create_activity(name="another")
    first = service.list_activities(maxResults=1)
    rest = service.list_activities(maxResults=1, nextToken=first["nextToken"])
    assert [a["name"] for a in first["activities"] + rest["activities"]] == ["another", "work"]
    assert service.delete_activity(activityArn=ACTIVITY) == {}
    assert service.delete_activity(activityArn=ACTIVITY) == {}  # idempotent
    with pytest.raises(ActivityDoesNotExist) as refused:
        service.describe_activity(activityArn=ACTIVITY)
    assert refused.value.message == f"Activity Does Not Exist: '{ACTIVITY}'"


def test_activity_refusals(service: StepFunctionsService) -> None:
    with pytest.raises(InvalidName, match="^Invalid Name: 'bad/name'$"):
        service.create_activity(name="bad/name")
    with pytest.raises(InvalidArn):
        service.get_activity_task(activityArn="not-an-arn")
    with pytest.raises(ActivityDoesNotExist):
        service.get_activity_task(activityArn=ACTIVITY)


def test_a_worker_takes_heartbeats_and_succeeds_a_task(service: StepFunctionsService, engine) -> None:
    service.create_activity(name="work")
    execution = service.start_execution(stateMachineArn=worker_machine(service), input='{"job": 1}')["executionArn"]
    settle(engine)
    task = service.get_activity_task(activityArn=ACTIVITY, workerName="w1")
    assert json.loads(task["input"]) == {"job": 1}
    assert service.send_task_heartbeat(taskToken=task["taskToken"]) == {}
    with pytest.raises(InvalidOutput):
        service.send_task_success(taskToken=task["taskToken"], output="{not json")
    assert service.send_task_success(taskToken=task["taskToken"], output='{"done": true}') == {}
    settle(engine)
    described = service.describe_execution(executionArn=execution)
    assert (described["status"], json.loads(described["output"])) == ("SUCCEEDED", {"done": True})
    with pytest.raises(TaskDoesNotExist):  # the task is closed
        service.send_task_success(taskToken=task["taskToken"], output="{}")


def test_a_worker_fails_a_task(service: StepFunctionsService, engine) -> None:
    service.create_activity(name="work")
    execution = service.start_execution(stateMachineArn=worker_machine(service))["executionArn"]
    settle(engine)
    task = service.get_activity_task(activityArn=ACTIVITY)
    assert service.send_task_failure(taskToken=task["taskToken"], error="Worker.Gave.Up", cause="tired") == {}
    settle(engine)
    described = service.describe_execution(executionArn=execution)
    assert (described["status"], described["error"], described["cause"]) == ("FAILED", "Worker.Gave.Up", "tired")


@pytest.mark.parametrize("operation", ["send_task_heartbeat", "send_task_failure"])
def test_bogus_task_tokens_are_invalid(service: StepFunctionsService, operation: str) -> None:
    with pytest.raises(InvalidToken, match="^Invalid Token: 'Invalid token'$"):
        getattr(service, operation)(taskToken="FakeTaskToken")


UNKNOWN_TOKEN = "0" * 64  # well formed, issued by no task


@pytest.mark.parametrize(("token", "refused"), [
    ("FakeTaskToken", InvalidToken), ("", InvalidToken), ("x" * 2049, InvalidToken), (UNKNOWN_TOKEN, TaskDoesNotExist),
], ids=["malformed", "empty", "too long", "unknown"])
@pytest.mark.parametrize("output", ["{not json", "", '{"a": 1}'])
def test_the_token_is_checked_before_the_output(service: StepFunctionsService, token: str, refused: type,
                                                output: str) -> None:
    """AWS answers a bad token before it looks at the output (issue 28, rule 7)."""
    with pytest.raises(refused):
        service.send_task_success(taskToken=token, output=output)


def test_tags_on_state_machines_and_activities(service: StepFunctionsService) -> None:
    machine = service.create_state_machine(name="m", definition=PASS, roleArn=ROLE,
                                           tags=[{"key": "team", "value": "a"}])["stateMachineArn"]
    service.create_activity(name="work")
    for arn in (machine, ACTIVITY):
        service.tag_resource(resourceArn=arn, tags=[{"key": "env", "value": "dev"}, {"key": "team", "value": "b"}])
        service.untag_resource(resourceArn=arn, tagKeys=["env", "absent"])
    assert service.list_tags_for_resource(resourceArn=machine) == {"tags": [{"key": "team", "value": "b"}]}
    assert service.list_tags_for_resource(resourceArn=ACTIVITY) == {"tags": [{"key": "team", "value": "b"}]}
    with pytest.raises(TooManyTags):
        service.tag_resource(resourceArn=machine, tags=[{"key": f"k{i}", "value": ""} for i in range(50)])
    assert len(service.list_tags_for_resource(resourceArn=machine)["tags"]) == 1  # nothing was added


def test_tag_refusals(service: StepFunctionsService) -> None:
    service.create_state_machine(name="m", definition=PASS, roleArn=ROLE, publish=True)
    for arn in (machine_arn("ghost"), machine_arn("m") + ":1"):  # versions carry no tags (AWS)
        with pytest.raises(ResourceNotFound) as refused:
            service.tag_resource(resourceArn=arn, tags=[{"key": "k", "value": "v"}])
        assert refused.value.message == f"Resource not found: '{arn}'"
    with pytest.raises(InvalidArn):
        service.list_tags_for_resource(resourceArn="not-an-arn")


def test_a_tag_needs_a_key_and_its_value_defaults_to_empty(service: StepFunctionsService) -> None:
    with pytest.raises(ValidationException) as refused:
        service.create_activity(name="work", tags=[{"value": "v"}, {}])
    assert refused.value.message == (
        "2 validation errors detected: "
        "Value null at 'tags.1.member.key' failed to satisfy constraint: Member must not be null; "
        "Value null at 'tags.2.member.key' failed to satisfy constraint: Member must not be null"
    )
    service.create_activity(name="work", tags=[{"key": "team"}])
    assert service.list_tags_for_resource(resourceArn=ACTIVITY) == {"tags": [{"key": "team", "value": ""}]}
