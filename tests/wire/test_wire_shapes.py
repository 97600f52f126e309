"""Every successful answer of a realistic scenario has exactly the shape botocore's model declares.

The raw JSON bodies are checked (not boto3's parsed dicts, which hide nulls, extra members and
timestamp encodings), with `helpers.shapes.shape_problems`.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import botocore.session
import pytest
from helpers.shapes import shape_problems

MODEL = botocore.session.get_session().get_service_model("stepfunctions")
ROLE_ARN = "arn:aws:iam::123456789012:role/sfn-wire-test"
PASS = {"StartAt": "Greet", "States": {"Greet": {"Type": "Pass", "Result": {"hello": "world"}, "End": True}}}


class ShapeTap:
    """Collects the raw body of every successful response the client receives."""

    def __init__(self, client: Any) -> None:
        self.bodies: list[tuple[str, bytes]] = []
        client.meta.events.register("before-parse.sfn.*", self._record)

    def _record(self, operation_model: Any, response_dict: dict[str, Any], **_: Any) -> None:
        if response_dict["status_code"] == 200:
            self.bodies.append((operation_model.name, response_dict["body"]))

    def problems(self) -> list[str]:
        found = []
        for operation, body in self.bodies:
            output = MODEL.operation_model(operation).output_shape
            value = json.loads(body) if body else {}
            found += [f"{operation}: {problem}" for problem in shape_problems(output, value)]
        return found


@pytest.fixture
def tapped(sfn: Any) -> tuple[Any, ShapeTap]:
    return sfn, ShapeTap(sfn)


def activity_machine(activity_arn: str) -> str:
    return json.dumps({"StartAt": "Work", "States": {"Work": {"Type": "Task", "Resource": activity_arn, "End": True}}})


def test_a_scenario_through_every_kind_of_resource_answers_in_the_model_s_shapes(tapped):
    sfn, tap = tapped
    prefix = f"shapes-{uuid.uuid4().hex[:8]}"
    tags = [{"key": "team", "value": "wire"}]

    activity_arn = sfn.create_activity(name=f"{prefix}-activity", tags=tags)["activityArn"]
    sfn.describe_activity(activityArn=activity_arn)
    sfn.list_activities()

    machine = sfn.create_state_machine(
        name=f"{prefix}-machine", definition=activity_machine(activity_arn), roleArn=ROLE_ARN, tags=tags, publish=True
    )
    machine_arn = machine["stateMachineArn"]
    sfn.describe_state_machine(stateMachineArn=machine_arn)
    sfn.list_state_machines()
    sfn.update_state_machine(stateMachineArn=machine_arn, definition=activity_machine(activity_arn), publish=True,
                             versionDescription="second")
    sfn.list_state_machine_versions(stateMachineArn=machine_arn)
    alias_arn = sfn.create_state_machine_alias(
        name="live", routingConfiguration=[{"stateMachineVersionArn": machine["stateMachineVersionArn"], "weight": 100}]
    )["stateMachineAliasArn"]
    sfn.describe_state_machine_alias(stateMachineAliasArn=alias_arn)
    sfn.list_state_machine_aliases(stateMachineArn=machine_arn)

    worked = sfn.start_execution(stateMachineArn=machine_arn, name="worked", input=json.dumps({"n": 1}))["executionArn"]
    task = sfn.get_activity_task(activityArn=activity_arn, workerName="worker")
    sfn.send_task_heartbeat(taskToken=task["taskToken"])
    sfn.send_task_success(taskToken=task["taskToken"], output=json.dumps({"done": True}))
    sfn.describe_execution(executionArn=worked)
    sfn.describe_state_machine_for_execution(executionArn=worked)
    sfn.get_execution_history(executionArn=worked)
    sfn.list_executions(stateMachineArn=machine_arn)

    stopped = sfn.start_execution(stateMachineArn=machine_arn, name="stopped")["executionArn"]
    sfn.stop_execution(executionArn=stopped, error="Halt", cause="the test stops it")
    sfn.describe_execution(executionArn=stopped)

    sfn.tag_resource(resourceArn=machine_arn, tags=[{"key": "stage", "value": "test"}])
    sfn.list_tags_for_resource(resourceArn=machine_arn)
    sfn.untag_resource(resourceArn=machine_arn, tagKeys=["stage"])

    sfn.validate_state_machine_definition(definition=json.dumps(PASS))
    sfn.test_state(definition=json.dumps(PASS["States"]["Greet"]), roleArn=ROLE_ARN, input="{}")
    express_arn = sfn.create_state_machine(
        name=f"{prefix}-express", definition=json.dumps(PASS), roleArn=ROLE_ARN, type="EXPRESS"
    )["stateMachineArn"]
    sfn.start_sync_execution(stateMachineArn=express_arn, input="{}")

    sfn.delete_state_machine_alias(stateMachineAliasArn=alias_arn)
    sfn.delete_state_machine_version(stateMachineVersionArn=machine["stateMachineVersionArn"])
    sfn.delete_state_machine(stateMachineArn=express_arn)
    sfn.delete_state_machine(stateMachineArn=machine_arn)
    sfn.delete_activity(activityArn=activity_arn)

    assert len(tap.bodies) == 34  # one per call above: the tap saw them all
    assert tap.problems() == []
