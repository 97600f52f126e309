"""PublishStateMachineVersion, ListStateMachineVersions, DeleteStateMachineVersion and the alias operations."""

from __future__ import annotations

import pytest
from helpers.service_world import PASS, PASS_OTHER, ROLE, machine_arn, settle

from sfn_emulator.service import StepFunctionsService
from sfn_emulator.service.errors import ConflictException, ResourceNotFound, StateMachineDoesNotExist, ValidationException

M = machine_arn("m")


@pytest.fixture
def two_versions(service: StepFunctionsService) -> StepFunctionsService:
    service.create_state_machine(name="m", definition=PASS, roleArn=ROLE, publish=True, versionDescription="first")
    service.update_state_machine(stateMachineArn=M, definition=PASS_OTHER, publish=True)
    return service


def test_publish_on_create_and_update_numbers_versions(service: StepFunctionsService) -> None:
    created = service.create_state_machine(name="m", definition=PASS, roleArn=ROLE, publish=True)
    assert created["stateMachineVersionArn"] == f"{M}:1"
    updated = service.update_state_machine(stateMachineArn=M, definition=PASS_OTHER, publish=True)
    assert updated["stateMachineVersionArn"] == f"{M}:2"
    unchanged = service.update_state_machine(stateMachineArn=M, definition=PASS_OTHER, publish=True)
    assert unchanged["stateMachineVersionArn"] == f"{M}:2"  # the revision already has a version


def test_a_version_describes_its_own_revision(two_versions: StepFunctionsService) -> None:
    first = two_versions.describe_state_machine(stateMachineArn=f"{M}:1")
    assert (first["stateMachineArn"], first["definition"], first["description"]) == (f"{M}:1", PASS, "first")
    assert "revisionId" not in first  # published before any update
    second = two_versions.describe_state_machine(stateMachineArn=f"{M}:2")
    assert second["definition"] == PASS_OTHER and second["revisionId"]
    with pytest.raises(StateMachineDoesNotExist, match=":m:3'$"):
        two_versions.describe_state_machine(stateMachineArn=f"{M}:3")


def test_publish_is_idempotent_and_checks_the_revision(service: StepFunctionsService) -> None:
    service.create_state_machine(name="m", definition=PASS, roleArn=ROLE)
    first = service.publish_state_machine_version(stateMachineArn=M, description="v1")
    assert service.publish_state_machine_version(stateMachineArn=M) == first
    revision = service.update_state_machine(stateMachineArn=M, definition=PASS_OTHER)["revisionId"]
    assert service.publish_state_machine_version(stateMachineArn=M, revisionId=revision)["stateMachineVersionArn"] == f"{M}:2"
    newer = service.update_state_machine(stateMachineArn=M, definition=PASS)["revisionId"]
    with pytest.raises(ConflictException) as refused:
        service.publish_state_machine_version(stateMachineArn=M, revisionId=revision)
    assert refused.value.message == (
        f"Failed to publish the State Machine version for revision {revision}. "
        f"The current State Machine revision is {newer}."
    )


def test_versions_are_listed_newest_first_and_numbers_are_never_reused(two_versions: StepFunctionsService) -> None:
    listed = two_versions.list_state_machine_versions(stateMachineArn=M)["stateMachineVersions"]
    assert [v["stateMachineVersionArn"] for v in listed] == [f"{M}:2", f"{M}:1"]
    page = two_versions.list_state_machine_versions(stateMachineArn=M, maxResults=1)
    assert len(page["stateMachineVersions"]) == 1 and page["nextToken"]
    assert two_versions.delete_state_machine_version(stateMachineVersionArn=f"{M}:2") == {}
    assert two_versions.delete_state_machine_version(stateMachineVersionArn=f"{M}:2") == {}  # idempotent
    two_versions.update_state_machine(stateMachineArn=M, definition=PASS)
    assert two_versions.publish_state_machine_version(stateMachineArn=M)["stateMachineVersionArn"] == f"{M}:3"


def test_alias_lifecycle(two_versions: StepFunctionsService, clock) -> None:
    routing = [{"stateMachineVersionArn": f"{M}:1", "weight": 100}]
    created = two_versions.create_state_machine_alias(name="live", routingConfiguration=routing, description="d")
    assert created["stateMachineAliasArn"] == f"{M}:live"
    assert two_versions.create_state_machine_alias(name="live", routingConfiguration=routing, description="d") == created
    described = two_versions.describe_state_machine_alias(stateMachineAliasArn=f"{M}:live")
    assert described == {"stateMachineAliasArn": f"{M}:live", "name": "live", "description": "d",
                         "routingConfiguration": routing, "creationDate": created["creationDate"],
                         "updateDate": created["creationDate"]}  # the creation date until updated (AWS)
    clock.advance(1)
    split = [{"stateMachineVersionArn": f"{M}:1", "weight": 50}, {"stateMachineVersionArn": f"{M}:2", "weight": 50}]
    assert two_versions.update_state_machine_alias(stateMachineAliasArn=f"{M}:live", routingConfiguration=split) == {
        "updateDate": clock.now()}
    assert two_versions.describe_state_machine_alias(stateMachineAliasArn=f"{M}:live")["routingConfiguration"] == split
    listed = two_versions.list_state_machine_aliases(stateMachineArn=M)["stateMachineAliases"]
    assert [a["stateMachineAliasArn"] for a in listed] == [f"{M}:live"]
    with pytest.raises(ConflictException, match=r"\[live\]$"):
        two_versions.delete_state_machine_version(stateMachineVersionArn=f"{M}:2")
    assert two_versions.delete_state_machine_alias(stateMachineAliasArn=f"{M}:live") == {}
    assert two_versions.delete_state_machine_alias(stateMachineAliasArn=f"{M}:live") == {}  # idempotent
    with pytest.raises(ResourceNotFound, match="^Request references a resource that does not exist.$"):
        two_versions.describe_state_machine_alias(stateMachineAliasArn=f"{M}:live")
    two_versions.delete_state_machine_version(stateMachineVersionArn=f"{M}:2")


@pytest.mark.parametrize(("routing", "message"), [
    ([{"stateMachineVersionArn": M, "weight": 100}],
     f"Routing configuration must contain state machine version ARNs. Received: [{M}]"),
    ([{"stateMachineVersionArn": f"{M}:1", "weight": 50}, {"stateMachineVersionArn": f"{M}:1", "weight": 50}],
     f"Routing configuration must contain distinct state machine version ARNs. Received: [{M}:1, {M}:1]"),
    ([{"stateMachineVersionArn": f"{M}:1", "weight": 70}, {"stateMachineVersionArn": f"{M}:2", "weight": 29}],
     "Sum of routing configuration weights must equal 100. Received: [70, 29]"),
    ([{"stateMachineVersionArn": f"{M}:9", "weight": 100}],
     f"Routing configuration must contain state machine version ARNs. Received: [{M}:9]"),
])
def test_alias_routing_is_checked_in_aws_words(two_versions: StepFunctionsService, routing, message) -> None:
    with pytest.raises(ValidationException) as refused:
        two_versions.create_state_machine_alias(name="live", routingConfiguration=routing)
    assert refused.value.message == message


def test_an_alias_name_is_not_reused_for_another_routing(two_versions: StepFunctionsService) -> None:
    two_versions.create_state_machine_alias(name="live", routingConfiguration=[
        {"stateMachineVersionArn": f"{M}:1", "weight": 100}])
    with pytest.raises(ConflictException, match="different routing configuration already exists"):
        two_versions.create_state_machine_alias(name="live", routingConfiguration=[
            {"stateMachineVersionArn": f"{M}:2", "weight": 100}])


def test_executions_through_versions_and_aliases_record_them(two_versions: StepFunctionsService, engine) -> None:
    two_versions.create_state_machine_alias(name="live", routingConfiguration=[
        {"stateMachineVersionArn": f"{M}:1", "weight": 100}])
    via_alias = two_versions.start_execution(stateMachineArn=f"{M}:live", name="a")["executionArn"]
    via_version = two_versions.start_execution(stateMachineArn=f"{M}:2", name="v")["executionArn"]
    two_versions.start_execution(stateMachineArn=M, name="latest")
    settle(engine)
    alias_run = two_versions.describe_execution(executionArn=via_alias)
    assert (alias_run["stateMachineArn"], alias_run["stateMachineVersionArn"], alias_run["stateMachineAliasArn"]) == (
        M, f"{M}:1", f"{M}:live")
    assert alias_run["output"] == '{"greeting":"hello"}'  # version 1 ran PASS
    version_run = two_versions.describe_execution(executionArn=via_version)
    assert version_run["stateMachineVersionArn"] == f"{M}:2" and "stateMachineAliasArn" not in version_run
    ran = two_versions.describe_state_machine_for_execution(executionArn=via_version)
    assert (ran["stateMachineArn"], ran["definition"]) == (M, PASS_OTHER)

    def names(arn: str) -> list[str]:
        return [e["name"] for e in two_versions.list_executions(stateMachineArn=arn)["executions"]]

    assert names(M) == ["latest", "v", "a"]
    assert names(f"{M}:2") == ["v"]
    assert names(f"{M}:live") == ["a"]


def test_weighted_routing_uses_both_versions_reproducibly(two_versions: StepFunctionsService, engine) -> None:
    two_versions.create_state_machine_alias(name="split", routingConfiguration=[
        {"stateMachineVersionArn": f"{M}:1", "weight": 30}, {"stateMachineVersionArn": f"{M}:2", "weight": 70}])
    arns = [two_versions.start_execution(stateMachineArn=f"{M}:split")["executionArn"] for _ in range(40)]
    settle(engine)
    versions = [two_versions.describe_execution(executionArn=arn)["stateMachineVersionArn"] for arn in arns]
    assert {f"{M}:1", f"{M}:2"} == set(versions)
    assert versions.count(f"{M}:2") > versions.count(f"{M}:1")
