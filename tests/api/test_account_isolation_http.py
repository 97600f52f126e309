"""Accounts are walls, over HTTP with boto3 clients of two accounts (a 12-digit access key id
names the account): whatever ARN or task token account B sends, account A's resources are
neither seen nor changed. Other-account ARNs get IAM's AccessDeniedException, other-account (and
other-region) task tokens InvalidToken.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from botocore import xform_name
from botocore.exceptions import ClientError
from helpers.clients import make_client
from helpers.paths import FIXTURES_ROOT

ACCOUNT_A = "111100001111"
ACCOUNT_B = "222200002222"
ROLE = f"arn:aws:iam::{ACCOUNT_A}:role/r"
PASS = json.dumps({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})
FOREIGN_CALLS = json.loads((FIXTURES_ROOT / "accounts" / "foreign_arns.json").read_text())


def error_of(call: Any) -> tuple[str, str, int]:
    with pytest.raises(ClientError) as raised:
        call()
    response = raised.value.response
    return response["Error"]["Code"], response["Error"]["Message"], response["ResponseMetadata"]["HTTPStatusCode"]


@pytest.fixture
def a(emulator_server: Any) -> Any:
    return make_client(emulator_server.endpoint_url, access_key=ACCOUNT_A)


@pytest.fixture
def b(emulator_server: Any) -> Any:
    return make_client(emulator_server.endpoint_url, access_key=ACCOUNT_B)


@pytest.fixture
def resources_of_a(a: Any) -> dict[str, str]:
    """One of each resource in account A; an execution waits on A's activity."""
    suffix = uuid.uuid4().hex[:10]
    activity = a.create_activity(name=f"act-{suffix}", tags=[{"key": "team", "value": "a"}])["activityArn"]
    waits = json.dumps({"StartAt": "Work", "States": {"Work": {"Type": "Task", "Resource": activity, "End": True}}})
    created = a.create_state_machine(name=f"m-{suffix}", definition=waits, roleArn=ROLE, publish=True,
                                     tags=[{"key": "team", "value": "a"}])
    machine, version = created["stateMachineArn"], created["stateMachineVersionArn"]
    alias = a.create_state_machine_alias(
        name="prod", routingConfiguration=[{"stateMachineVersionArn": version, "weight": 100}])["stateMachineAliasArn"]
    execution = a.start_execution(stateMachineArn=machine)["executionArn"]
    map_run = machine.replace(":stateMachine:", ":mapRun:") + "/Map:" + str(uuid.uuid4())
    return {"machine": machine, "version": version, "alias": alias, "execution": execution,
            "activity": activity, "map_run": map_run, "pass_definition": PASS}


def filled(template: Any, values: dict[str, str]) -> Any:
    if isinstance(template, str):
        return values[template[1:-1]] if template.startswith("{") and template.endswith("}") else template
    if isinstance(template, list):
        return [filled(item, values) for item in template]
    if isinstance(template, dict):
        return {key: filled(item, values) for key, item in template.items()}
    return template


@pytest.mark.parametrize("case", FOREIGN_CALLS, ids=lambda case: f"{case['operation']}-{next(iter(case['params']))}")
def test_another_account_s_arn_is_access_denied_and_changes_nothing(case, a, b, resources_of_a):
    params = filled(case["params"], resources_of_a)
    method = getattr(b, xform_name(case["operation"]))
    code, message, status = error_of(lambda: method(**params))
    assert (code, status) == ("AccessDeniedException", 400)
    action = f"states:{case['operation']}"
    assert message.startswith(f"User: arn:aws:iam::{ACCOUNT_B}:root is not authorized to perform: {action} on resource: ")
    assert message.endswith(f"because no resource-based policy allows the {action} action")
    # account A still has all of it, unchanged
    assert a.describe_state_machine(stateMachineArn=resources_of_a["machine"])["status"] == "ACTIVE"
    assert a.describe_execution(executionArn=resources_of_a["execution"])["status"] == "RUNNING"
    assert a.describe_activity(activityArn=resources_of_a["activity"])["activityArn"] == resources_of_a["activity"]
    assert a.describe_state_machine_alias(stateMachineAliasArn=resources_of_a["alias"])["name"] == "prod"
    assert a.list_tags_for_resource(resourceArn=resources_of_a["machine"])["tags"] == [{"key": "team", "value": "a"}]
    assert a.list_tags_for_resource(resourceArn=resources_of_a["activity"])["tags"] == [{"key": "team", "value": "a"}]


def test_listings_show_only_the_caller_s_resources(a, b, resources_of_a):
    assert resources_of_a["machine"] not in [m["stateMachineArn"] for m in b.list_state_machines()["stateMachines"]]
    assert resources_of_a["activity"] not in [x["activityArn"] for x in b.list_activities()["activities"]]


def test_a_task_token_is_answered_only_from_its_own_account_and_region(a, b, resources_of_a, emulator_server):
    task = a.get_activity_task(activityArn=resources_of_a["activity"])
    token = task["taskToken"]
    a_elsewhere = make_client(emulator_server.endpoint_url, access_key=ACCOUNT_A, region="eu-west-1")
    for foreign in (b, a_elsewhere):
        for send in (lambda: foreign.send_task_success(taskToken=token, output="{}"),
                     lambda: foreign.send_task_failure(taskToken=token, error="Stolen"),
                     lambda: foreign.send_task_heartbeat(taskToken=token)):
            assert error_of(send) == ("InvalidToken", "Invalid Token: 'Invalid token'", 400)
    assert a.describe_execution(executionArn=resources_of_a["execution"])["status"] == "RUNNING"
    a.send_task_success(taskToken=token, output='{"by": "a"}')
    waiter_rounds = 0
    while a.describe_execution(executionArn=resources_of_a["execution"])["status"] == "RUNNING" and waiter_rounds < 500:
        emulator_server.emulator.engine.run_until_idle(timeout=0.1)
        waiter_rounds += 1
    described = a.describe_execution(executionArn=resources_of_a["execution"])
    assert (described["status"], described["output"]) == ("SUCCEEDED", '{"by":"a"}')


def test_a_nested_execution_cannot_start_another_account_s_machine(a, b, emulator_server):
    suffix = uuid.uuid4().hex[:10]
    target = b.create_state_machine(name=f"target-{suffix}", definition=PASS, roleArn=ROLE)["stateMachineArn"]
    parent_definition = json.dumps({"StartAt": "Start", "States": {"Start": {
        "Type": "Task", "Resource": "arn:aws:states:::states:startExecution",
        "Parameters": {"StateMachineArn": target}, "End": True}}})
    parent = a.create_state_machine(name=f"parent-{suffix}", definition=parent_definition, roleArn=ROLE)["stateMachineArn"]
    execution = a.start_execution(stateMachineArn=parent)["executionArn"]
    emulator_server.emulator.engine.run_until_idle(timeout=10)
    described = a.describe_execution(executionArn=execution)
    assert described["status"] == "FAILED"
    assert described["error"] == "StepFunctions.AccessDeniedException"
    assert b.list_executions(stateMachineArn=target)["executions"] == []



def test_an_execution_cannot_schedule_another_account_s_activity(a, b, emulator_server):
    suffix = uuid.uuid4().hex[:10]
    activity_of_b = b.create_activity(name=f"act-{suffix}")["activityArn"]
    definition = json.dumps({"StartAt": "Work", "States": {"Work": {"Type": "Task", "Resource": activity_of_b, "End": True}}})
    machine = a.create_state_machine(name=f"uses-b-{suffix}", definition=definition, roleArn=ROLE)["stateMachineArn"]
    execution = a.start_execution(stateMachineArn=machine)["executionArn"]
    emulator_server.emulator.engine.run_until_idle(timeout=10)
    described = a.describe_execution(executionArn=execution)
    assert (described["status"], described["error"]) == ("FAILED", "States.Runtime")
    assert f"The activity {activity_of_b} does not exist." in described["cause"]
