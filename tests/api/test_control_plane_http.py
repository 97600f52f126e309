"""Every operation of the `stepfunctions` model over HTTP with boto3, and the error paths users hit.

Runs against the session server (`emulator_server`, clock `auto`): Pass machines finish at once;
an activity Task nobody works on keeps an execution RUNNING.
"""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import botocore.session
import pytest
from botocore.exceptions import ClientError
from helpers.clients import call

ROLE = "arn:aws:iam::123456789012:role/sfn-role"
PASS = json.dumps({"StartAt": "A", "States": {"A": {"Type": "Pass", "Result": {"ok": True}, "End": True}}})
PASS_OTHER = json.dumps({"StartAt": "A", "States": {"A": {"Type": "Pass", "Result": 2, "End": True}}})
FAIL = json.dumps({"StartAt": "F", "States": {"F": {"Type": "Fail", "Error": "Boom", "Cause": "broken"}}})


@pytest.fixture
def unique() -> str:
    return f"t{uuid.uuid4().hex[:10]}"


@pytest.fixture
def settle(emulator_server: Any) -> Any:
    return lambda: emulator_server.emulator.engine.run_until_idle(10)


def refused(sfn: Any, operation: str, **params: Any) -> tuple[str, str]:
    with pytest.raises(ClientError) as error:
        getattr(sfn, botocore.xform_name(operation))(**params)
    return error.value.response["Error"]["Code"], error.value.response["Error"]["Message"]


def activity_machine(sfn: Any, name: str) -> tuple[str, str]:
    activity = call(sfn, "CreateActivity", name=f"{name}-act")["activityArn"]
    definition = {"StartAt": "W", "States": {"W": {"Type": "Task", "Resource": activity, "End": True}}}
    machine = call(sfn, "CreateStateMachine", name=name, definition=json.dumps(definition), roleArn=ROLE)
    return activity, machine["stateMachineArn"]


def test_state_machine_lifecycle(sfn: Any, unique: str) -> None:
    created = call(sfn, "CreateStateMachine", name=unique, definition=PASS, roleArn=ROLE,
                   tags=[{"key": "team", "value": "a"}])
    arn = created["stateMachineArn"]
    assert call(sfn, "CreateStateMachine", name=unique, definition=PASS, roleArn=ROLE)["stateMachineArn"] == arn
    assert refused(sfn, "CreateStateMachine", name=unique, definition=PASS_OTHER, roleArn=ROLE) == (
        "StateMachineAlreadyExists", f"State Machine Already Exists: '{arn}'")
    described = call(sfn, "DescribeStateMachine", stateMachineArn=arn)
    assert (described["definition"], described["status"], described["creationDate"]) == (
        PASS, "ACTIVE", created["creationDate"])
    names = [m["name"] for m in call(sfn, "ListStateMachines")["stateMachines"]]
    assert unique in names and names == sorted(names)
    updated = call(sfn, "UpdateStateMachine", stateMachineArn=arn, definition=PASS_OTHER)
    assert call(sfn, "DescribeStateMachine", stateMachineArn=arn)["revisionId"] == updated["revisionId"]
    assert refused(sfn, "UpdateStateMachine", stateMachineArn=arn)[0] == "MissingRequiredParameter"
    call(sfn, "DeleteStateMachine", stateMachineArn=arn)
    assert refused(sfn, "DescribeStateMachine", stateMachineArn=arn)[0] == "StateMachineDoesNotExist"
    call(sfn, "DeleteStateMachine", stateMachineArn=arn)  # idempotent


def test_versions_aliases_and_routing(sfn: Any, unique: str, settle: Any) -> None:
    arn = call(sfn, "CreateStateMachine", name=unique, definition=PASS, roleArn=ROLE, publish=True,
               versionDescription="v1")["stateMachineArn"]
    call(sfn, "UpdateStateMachine", stateMachineArn=arn, definition=PASS_OTHER)
    published = call(sfn, "PublishStateMachineVersion", stateMachineArn=arn, description="v2")
    assert published["stateMachineVersionArn"] == f"{arn}:2"
    versions = call(sfn, "ListStateMachineVersions", stateMachineArn=arn)["stateMachineVersions"]
    assert [v["stateMachineVersionArn"] for v in versions] == [f"{arn}:2", f"{arn}:1"]
    routing = [{"stateMachineVersionArn": f"{arn}:1", "weight": 100}]
    alias = call(sfn, "CreateStateMachineAlias", name="live", routingConfiguration=routing)["stateMachineAliasArn"]
    assert alias == f"{arn}:live"
    assert call(sfn, "DescribeStateMachineAlias", stateMachineAliasArn=alias)["routingConfiguration"] == routing
    call(sfn, "UpdateStateMachineAlias", stateMachineAliasArn=alias, description="now described")
    assert [a["stateMachineAliasArn"] for a in call(sfn, "ListStateMachineAliases", stateMachineArn=arn)[
        "stateMachineAliases"]] == [alias]
    execution = call(sfn, "StartExecution", stateMachineArn=alias)["executionArn"]
    settle()
    described = call(sfn, "DescribeExecution", executionArn=execution)
    assert (described["stateMachineVersionArn"], described["stateMachineAliasArn"], described["output"]) == (
        f"{arn}:1", alias, '{"ok":true}')
    assert refused(sfn, "DeleteStateMachineVersion", stateMachineVersionArn=f"{arn}:1")[0] == "ConflictException"
    call(sfn, "DeleteStateMachineAlias", stateMachineAliasArn=alias)
    assert refused(sfn, "DescribeStateMachineAlias", stateMachineAliasArn=alias)[0] == "ResourceNotFound"
    call(sfn, "DeleteStateMachineVersion", stateMachineVersionArn=f"{arn}:1")
    assert refused(sfn, "PublishStateMachineVersion", stateMachineArn=arn, revisionId="stale")[0] == "ConflictException"
    assert refused(sfn, "CreateStateMachine", name=f"{unique}x", definition=PASS, roleArn=ROLE,
                   versionDescription="v") == ("ValidationException", "Version description can only be set when publish is true")


def test_executions_history_and_listing(sfn: Any, unique: str, settle: Any) -> None:
    arn = call(sfn, "CreateStateMachine", name=unique, definition=PASS, roleArn=ROLE)["stateMachineArn"]
    started = call(sfn, "StartExecution", stateMachineArn=arn, name="first", input='{"n": 1}')
    call(sfn, "StartExecution", stateMachineArn=arn, name="second", input="2")
    settle()
    assert call(sfn, "DescribeExecution", executionArn=started["executionArn"])["status"] == "SUCCEEDED"
    assert refused(sfn, "StartExecution", stateMachineArn=arn, name="first", input='{"n": 1}')[0] == (
        "ExecutionAlreadyExists")
    page = call(sfn, "ListExecutions", stateMachineArn=arn, maxResults=1)
    rest = call(sfn, "ListExecutions", stateMachineArn=arn, maxResults=1, nextToken=page["nextToken"])
    assert [e["name"] for e in page["executions"] + rest["executions"]] == ["second", "first"]
    events = call(sfn, "GetExecutionHistory", executionArn=started["executionArn"], reverseOrder=True)["events"]
    assert events[0]["type"] == "ExecutionSucceeded" and events[-1]["type"] == "ExecutionStarted"
    ran = call(sfn, "DescribeStateMachineForExecution", executionArn=started["executionArn"])
    assert ran["definition"] == PASS
    assert refused(sfn, "StartExecution", stateMachineArn=arn, input="{not json")[0] == "InvalidExecutionInput"
    assert refused(sfn, "StartExecution", stateMachineArn=arn, name="bad:name") == (
        "InvalidName", "Invalid Name: 'bad:name'")
    assert refused(sfn, "RedriveExecution", executionArn=started["executionArn"]) == (
        "ExecutionNotRedrivable", "Execution is SUCCEEDED and cannot be redriven")
    assert refused(sfn, "ListExecutions", stateMachineArn=arn, nextToken="bogus")[0] == "InvalidToken"


def test_express_machines_run_synchronously(sfn: Any, unique: str) -> None:
    arn = call(sfn, "CreateStateMachine", name=unique, definition=PASS, roleArn=ROLE, type="EXPRESS")["stateMachineArn"]
    answer = call(sfn, "StartSyncExecution", stateMachineArn=arn, input='{"x": 1}')
    assert (answer["status"], answer["output"], answer["billingDetails"]["billedDurationInMilliseconds"]) == (
        "SUCCEEDED", '{"ok":true}', 100)
    assert ":express:" in answer["executionArn"]
    assert refused(sfn, "DescribeExecution", executionArn=answer["executionArn"]) == (
        "InvalidArn", "Invalid Arn: 'Resource type not valid in this context: express'")
    assert refused(sfn, "ListExecutions", stateMachineArn=arn)[0] == "StateMachineTypeNotSupported"
    standard = call(sfn, "CreateStateMachine", name=f"{unique}s", definition=PASS, roleArn=ROLE)["stateMachineArn"]
    assert refused(sfn, "StartSyncExecution", stateMachineArn=standard) == (
        "StateMachineTypeNotSupported", "This operation is not supported by this type of state machine")


def test_stop_and_redrive(sfn: Any, unique: str, settle: Any) -> None:
    _, arn = activity_machine(sfn, unique)
    running = call(sfn, "StartExecution", stateMachineArn=arn, name="r", input='{"k": 1}')
    assert call(sfn, "StartExecution", stateMachineArn=arn, name="r", input='{"k": 1}') == running  # idempotent
    settle()
    call(sfn, "StopExecution", executionArn=running["executionArn"], error="Halt", cause="test")
    described = call(sfn, "DescribeExecution", executionArn=running["executionArn"])
    assert (described["status"], described["error"], described["redriveStatus"]) == ("ABORTED", "Halt", "REDRIVABLE")
    redriven = call(sfn, "RedriveExecution", executionArn=running["executionArn"])
    assert call(sfn, "DescribeExecution", executionArn=running["executionArn"])["redriveDate"] == redriven["redriveDate"]
    call(sfn, "DeleteStateMachine", stateMachineArn=arn)
    assert call(sfn, "DescribeStateMachine", stateMachineArn=arn)["status"] == "DELETING"
    assert refused(sfn, "StartExecution", stateMachineArn=arn)[0] == "StateMachineDeleting"
    call(sfn, "StopExecution", executionArn=running["executionArn"])


def test_activities_and_workers(sfn: Any, unique: str, settle: Any) -> None:
    activity, arn = activity_machine(sfn, unique)
    assert call(sfn, "DescribeActivity", activityArn=activity)["name"] == f"{unique}-act"
    assert activity in [a["activityArn"] for a in call(sfn, "ListActivities")["activities"]]
    first = call(sfn, "StartExecution", stateMachineArn=arn, input='{"job": 1}')["executionArn"]
    second = call(sfn, "StartExecution", stateMachineArn=arn, input='{"job": 2}')["executionArn"]
    settle()
    task = call(sfn, "GetActivityTask", activityArn=activity, workerName="w")
    other = call(sfn, "GetActivityTask", activityArn=activity)
    call(sfn, "SendTaskHeartbeat", taskToken=task["taskToken"])
    call(sfn, "SendTaskSuccess", taskToken=task["taskToken"], output='{"done": 1}')
    call(sfn, "SendTaskFailure", taskToken=other["taskToken"], error="Gave.Up")
    settle()
    statuses = {call(sfn, "DescribeExecution", executionArn=e)["status"] for e in (first, second)}
    assert statuses == {"SUCCEEDED", "FAILED"}
    assert refused(sfn, "SendTaskHeartbeat", taskToken="FakeTaskToken") == ("InvalidToken", "Invalid Token: 'Invalid token'")
    call(sfn, "DeleteActivity", activityArn=activity)
    assert refused(sfn, "DescribeActivity", activityArn=activity)[0] == "ActivityDoesNotExist"


def test_tags(sfn: Any, unique: str) -> None:
    arn = call(sfn, "CreateStateMachine", name=unique, definition=PASS, roleArn=ROLE)["stateMachineArn"]
    call(sfn, "TagResource", resourceArn=arn, tags=[{"key": "a", "value": "1"}, {"key": "b", "value": "2"}])
    call(sfn, "UntagResource", resourceArn=arn, tagKeys=["a"])
    assert call(sfn, "ListTagsForResource", resourceArn=arn)["tags"] == [{"key": "b", "value": "2"}]
    assert refused(sfn, "TagResource", resourceArn=f"{arn}-ghost", tags=[{"key": "k", "value": "v"}]) == (
        "ResourceNotFound", f"Resource not found: '{arn}-ghost'")
    assert refused(sfn, "TagResource", resourceArn=arn, tags=[{"key": f"k{i}", "value": ""} for i in range(50)])[0] == (
        "TooManyTags")


def test_definitions_and_test_state(sfn: Any) -> None:
    assert call(sfn, "ValidateStateMachineDefinition", definition=PASS)["result"] == "OK"
    broken = call(sfn, "ValidateStateMachineDefinition", definition=json.dumps({"StartAt": "X", "States": {}}))
    assert broken["result"] == "FAIL" and broken["diagnostics"]
    answer = call(sfn, "TestState", definition=json.dumps({"Type": "Pass", "Result": 1, "ResultPath": "$.r", "End": True}),
                  roleArn=ROLE, input='{"a": 1}')
    assert (answer["status"], json.loads(answer["output"])) == ("SUCCEEDED", {"a": 1, "r": 1})


def test_map_runs(sfn: Any, unique: str, settle: Any) -> None:
    arn = call(sfn, "CreateStateMachine", name=unique, definition=PASS, roleArn=ROLE)["stateMachineArn"]
    execution = call(sfn, "StartExecution", stateMachineArn=arn)["executionArn"]
    settle()
    assert call(sfn, "ListMapRuns", executionArn=execution)["mapRuns"] == []
    map_run = arn.replace(":stateMachine:", ":mapRun:") + f"/Fanout:{uuid.uuid4()}"
    assert refused(sfn, "DescribeMapRun", mapRunArn=map_run)[0] == "ResourceNotFound"
    assert refused(sfn, "UpdateMapRun", mapRunArn=map_run, maxConcurrency=2)[0] == "ResourceNotFound"


def test_every_operation_is_exercised() -> None:
    """The tests of this module call each of the model's operations at least once."""
    model = botocore.session.get_session().get_service_model("stepfunctions")
    called = set(re.findall(r'(?:call|refused)\(sfn, "(\w+)"', Path(__file__).read_text()))
    assert set(model.operation_names) - called == set()
