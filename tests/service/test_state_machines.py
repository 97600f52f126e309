"""CreateStateMachine, DescribeStateMachine, UpdateStateMachine, DeleteStateMachine, ListStateMachines."""

from __future__ import annotations

import json

import pytest
from helpers.service_world import ACCOUNT, PASS, PASS_OTHER, ROLE, START, WAIT, machine_arn, settle

from sfn_emulator.service import StepFunctionsService
from sfn_emulator.service.errors import (
    InvalidArn,
    InvalidDefinition,
    InvalidLoggingConfiguration,
    InvalidName,
    InvalidToken,
    MissingRequiredParameter,
    StateMachineAlreadyExists,
    StateMachineDeleting,
    StateMachineDoesNotExist,
    TooManyTags,
    ValidationException,
)

LOG_GROUP = "arn:aws:logs:us-east-1:123456789012:log-group:sfn:*"


def test_create_then_describe_echoes_the_definition_and_aws_defaults(service: StepFunctionsService) -> None:
    created = service.create_state_machine(name="m", definition=PASS, roleArn=ROLE)
    assert created == {"stateMachineArn": machine_arn("m"), "creationDate": START}
    assert service.describe_state_machine(stateMachineArn=machine_arn("m")) == {
        "stateMachineArn": machine_arn("m"),
        "name": "m",
        "status": "ACTIVE",
        "definition": PASS,  # exactly as given, not re-serialised
        "roleArn": ROLE,
        "type": "STANDARD",
        "creationDate": START,
        "loggingConfiguration": {"level": "OFF", "includeExecutionData": False},
        "tracingConfiguration": {"enabled": False},
        "encryptionConfiguration": {"type": "AWS_OWNED_KEY"},  # AWS owns the key unless told otherwise
    }


def test_logging_and_tracing_configuration_are_echoed(service: StepFunctionsService) -> None:
    logging = {"level": "ALL", "destinations": [{"cloudWatchLogsLogGroup": {"logGroupArn": LOG_GROUP}}]}
    service.create_state_machine(name="m", definition=PASS, roleArn=ROLE, type="EXPRESS",
                                 loggingConfiguration=logging, tracingConfiguration={"enabled": True})
    described = service.describe_state_machine(stateMachineArn=machine_arn("m"))
    assert described["type"] == "EXPRESS"
    assert described["loggingConfiguration"] == {**logging, "includeExecutionData": False}
    assert described["tracingConfiguration"] == {"enabled": True}


@pytest.mark.parametrize("logging", [
    {"level": "ERROR"},
    {"level": "ALL", "destinations": [{"cloudWatchLogsLogGroup": {"logGroupArn": LOG_GROUP}}] * 2},
])
def test_logging_needs_exactly_one_destination(service: StepFunctionsService, logging: dict) -> None:
    with pytest.raises(InvalidLoggingConfiguration, match="Must specify exactly one Log Destination"):
        service.create_state_machine(name="m", definition=PASS, roleArn=ROLE, loggingConfiguration=logging)


def test_identical_create_is_idempotent_even_with_another_role(service: StepFunctionsService, clock) -> None:
    first = service.create_state_machine(name="m", definition=PASS, roleArn=ROLE, tags=[{"key": "k", "value": "1"}])
    clock.advance(60)
    again = service.create_state_machine(name="m", definition=PASS, roleArn="arn:aws:iam::123456789012:role/other")
    assert again == first
    assert service.describe_state_machine(stateMachineArn=machine_arn("m"))["roleArn"] == ROLE


@pytest.mark.parametrize("difference", [
    {"definition": PASS_OTHER},
    {"type": "EXPRESS"},
    {"tracingConfiguration": {"enabled": True}},
    {"publish": True},
])
def test_create_with_a_taken_name_and_any_other_difference_fails(service: StepFunctionsService, difference) -> None:
    service.create_state_machine(name="m", definition=PASS, roleArn=ROLE)
    with pytest.raises(StateMachineAlreadyExists) as refused:
        service.create_state_machine(**{"name": "m", "definition": PASS, "roleArn": ROLE, **difference})
    assert refused.value.message == f"State Machine Already Exists: '{machine_arn('m')}'"


def test_create_checks_names_roles_definitions_and_tags(service: StepFunctionsService) -> None:
    with pytest.raises(InvalidName):
        service.create_state_machine(name="bad name", definition=PASS, roleArn=ROLE)
    with pytest.raises(InvalidArn):
        service.create_state_machine(name="m", definition=PASS, roleArn="not-a-role")
    with pytest.raises(InvalidDefinition, match="^Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED"):
        service.create_state_machine(name="m", definition=json.dumps({"StartAt": "A"}), roleArn=ROLE)
    with pytest.raises(TooManyTags):
        service.create_state_machine(name="m", definition=PASS, roleArn=ROLE,
                                     tags=[{"key": f"k{i}", "value": ""} for i in range(51)])
    with pytest.raises(ValidationException, match="^Version description can only be set when publish is true$"):
        service.create_state_machine(name="m", definition=PASS, roleArn=ROLE, versionDescription="v")
    assert service.list_state_machines() == {"stateMachines": []}


def test_update_changes_the_revision_only_when_something_changes(service: StepFunctionsService, clock) -> None:
    service.create_state_machine(name="m", definition=PASS, roleArn=ROLE)
    assert "revisionId" not in service.describe_state_machine(stateMachineArn=machine_arn("m"))
    clock.advance(5)
    updated = service.update_state_machine(stateMachineArn=machine_arn("m"), definition=PASS_OTHER)
    revision = updated["revisionId"]
    assert updated["updateDate"] == clock.now()
    described = service.describe_state_machine(stateMachineArn=machine_arn("m"))
    assert (described["definition"], described["revisionId"]) == (PASS_OTHER, revision)
    unchanged = service.update_state_machine(stateMachineArn=machine_arn("m"), definition=PASS_OTHER)
    assert unchanged["revisionId"] == revision
    role = service.update_state_machine(stateMachineArn=machine_arn("m"), roleArn="arn:aws:iam::1:role/new")
    assert role["revisionId"] != revision


def test_update_refusals(service: StepFunctionsService) -> None:
    service.create_state_machine(name="m", definition=PASS, roleArn=ROLE)
    with pytest.raises(MissingRequiredParameter) as refused:
        service.update_state_machine(stateMachineArn=machine_arn("m"))
    assert refused.value.message == (
        "Either the definition, the role ARN, the LoggingConfiguration, or the TracingConfiguration must be specified"
    )
    with pytest.raises(InvalidDefinition):
        service.update_state_machine(stateMachineArn=machine_arn("m"), definition="{")
    with pytest.raises(StateMachineDoesNotExist, match=":m:2'$"):  # a version ARN names no machine to update
        service.update_state_machine(stateMachineArn=machine_arn("m") + ":2", definition=PASS)
    with pytest.raises(StateMachineDoesNotExist):
        service.update_state_machine(stateMachineArn=machine_arn("ghost"), definition=PASS)


def test_describe_refusals(service: StepFunctionsService) -> None:
    with pytest.raises(StateMachineDoesNotExist) as refused:
        service.describe_state_machine(stateMachineArn=machine_arn("ghost"))
    assert refused.value.message == f"State Machine Does Not Exist: '{machine_arn('ghost')}'"
    with pytest.raises(InvalidArn, match="Resource type not valid in this context: activity"):
        service.describe_state_machine(stateMachineArn=f"arn:aws:states:us-east-1:{ACCOUNT}:activity:a")


def test_delete_is_immediate_without_running_executions_and_idempotent(service: StepFunctionsService) -> None:
    service.create_state_machine(name="m", definition=PASS, roleArn=ROLE)
    assert service.delete_state_machine(stateMachineArn=machine_arn("m")) == {}
    with pytest.raises(StateMachineDoesNotExist):
        service.describe_state_machine(stateMachineArn=machine_arn("m"))
    assert service.delete_state_machine(stateMachineArn=machine_arn("m")) == {}
    with pytest.raises(ValidationException):
        service.delete_state_machine(stateMachineArn=machine_arn("m") + ":1")


def test_delete_while_executions_run_leaves_the_machine_deleting_until_they_end(service, engine, clock) -> None:
    service.create_state_machine(name="w", definition=WAIT, roleArn=ROLE)
    service.start_execution(stateMachineArn=machine_arn("w"), name="running")
    settle(engine)
    service.delete_state_machine(stateMachineArn=machine_arn("w"))
    assert service.describe_state_machine(stateMachineArn=machine_arn("w"))["status"] == "DELETING"
    assert service.list_state_machines() == {"stateMachines": []}
    with pytest.raises(StateMachineDeleting):
        service.start_execution(stateMachineArn=machine_arn("w"))
    with pytest.raises(StateMachineDeleting):
        service.create_state_machine(name="w", definition=WAIT, roleArn=ROLE)
    clock.advance(3600)
    settle(engine)
    with pytest.raises(StateMachineDoesNotExist):
        service.describe_state_machine(stateMachineArn=machine_arn("w"))
    service.create_state_machine(name="w", definition=WAIT, roleArn=ROLE)  # the name is free again


def test_list_is_sorted_by_name_and_paged(service: StepFunctionsService) -> None:
    for name in ["c", "a", "b"]:
        service.create_state_machine(name=name, definition=PASS, roleArn=ROLE)
    first = service.list_state_machines(maxResults=2)
    assert [item["name"] for item in first["stateMachines"]] == ["a", "b"]
    assert set(first["stateMachines"][0]) == {"stateMachineArn", "name", "type", "creationDate"}
    second = service.list_state_machines(maxResults=2, nextToken=first["nextToken"])
    assert [item["name"] for item in second["stateMachines"]] == ["c"] and "nextToken" not in second
    with pytest.raises(InvalidToken):
        service.list_state_machines(nextToken="bogus")


def test_accounts_and_regions_are_isolated(service: StepFunctionsService) -> None:
    service.create_state_machine(name="m", definition=PASS, roleArn=ROLE, account="111111111111", region="eu-west-1")
    assert service.list_state_machines() == {"stateMachines": []}
    listed = service.list_state_machines(account="111111111111", region="eu-west-1")["stateMachines"]
    assert [item["stateMachineArn"] for item in listed] == [machine_arn("m", "eu-west-1", "111111111111")]


def test_handle_dispatches_botocore_operation_names(service: StepFunctionsService) -> None:
    answer = service.handle("CreateStateMachine", {"name": "m", "definition": PASS, "roleArn": ROLE},
                            account="222222222222", region="us-west-2")
    assert answer["stateMachineArn"] == machine_arn("m", "us-west-2", "222222222222")
