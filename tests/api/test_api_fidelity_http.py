"""Control-plane rules that hold for every operation, over HTTP with boto3: the members AWS's error
shapes carry beside `message` (fixtures/api_fidelity/error_members.json), labelled state
machine ARNs, and the resource quotas (versions and aliases per state machine, state machines and
activities per account)."""

from __future__ import annotations

import json
import itertools
import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError
from helpers.clients import call, make_client
from helpers.paths import FIXTURES_ROOT

from sfn_emulator.service import quotas

ROLE = "arn:aws:iam::123456789012:role/sfn-role"
PASS = json.dumps({"StartAt": "A", "States": {"A": {"Type": "Pass", "End": True}}})
ERROR_MEMBERS = json.loads(
    (FIXTURES_ROOT / "api_fidelity" / "error_members.json").read_text())["cases"]


def _definition(result: int) -> str:
    return json.dumps({"StartAt": "A", "States": {"A": {"Type": "Pass", "Result": result, "End": True}}})


_ACCOUNTS = itertools.count(555_000_000_000)  # one account per test, the same on every run


@pytest.fixture
def account_sfn(emulator_server: Any) -> Any:
    """A client in an account of its own: counts and names start from nothing."""
    return make_client(emulator_server.endpoint_url, access_key=f"{next(_ACCOUNTS):012d}")


def refusal(sfn: Any, operation: str, **params: Any) -> dict[str, Any]:
    with pytest.raises(ClientError) as refused:
        call(sfn, operation, **params)
    return refused.value.response


def _world(sfn: Any) -> dict[str, Any]:
    """Resources the table's `{name}` placeholders name."""
    name = f"m{uuid.uuid4().hex[:10]}"
    machine = sfn.create_state_machine(name=name, definition=_definition(1), roleArn=ROLE,
                                       publish=True)["stateMachineArn"]
    version2 = sfn.update_state_machine(stateMachineArn=machine, definition=_definition(2),
                                        publish=True)["stateMachineVersionArn"]
    other = sfn.create_state_machine(name=f"{name}-other", definition=PASS, roleArn=ROLE, publish=True)
    alias = sfn.create_state_machine_alias(name="live", routingConfiguration=[
        {"stateMachineVersionArn": f"{machine}:1", "weight": 100}])["stateMachineAliasArn"]
    activity = sfn.create_activity(name=f"{name}-activity")["activityArn"]
    prefix = machine.rsplit(":stateMachine:", 1)[0]
    new_name = f"n{uuid.uuid4().hex[:10]}"
    return {
        "machine": machine, "version1": f"{machine}:1", "version2": version2, "alias": alias,
        "other_machine": other["stateMachineArn"], "other_version": other["stateMachineVersionArn"],
        "activity": activity, "labeled": f"{machine}/label",
        "missing_machine": f"{prefix}:stateMachine:{new_name}", "missing_alias": f"{machine}:missing",
        "missing_activity": f"{prefix}:activity:{new_name}", "missing_map_run": f"{prefix}:mapRun:{name}/map:0b1c",
        "new_name": new_name, "new_machine": f"{prefix}:stateMachine:{new_name}",
        "new_activity": f"{prefix}:activity:{new_name}", "definition": PASS,
        "fifty_one_tags": [{"key": f"k{index}", "value": "v"} for index in range(51)],
    }


def _filled(value: Any, world: dict[str, Any]) -> Any:
    if isinstance(value, str) and value.startswith("{") and value.endswith("}") and value[1:-1] in world:
        return world[value[1:-1]]
    if isinstance(value, dict):
        return {key: _filled(item, world) for key, item in value.items()}
    if isinstance(value, list):
        return [_filled(item, world) for item in value]
    return value


@pytest.mark.parametrize("case", ERROR_MEMBERS, ids=lambda case: f"{case['operation']}: {case['rule']}")
def test_errors_carry_the_members_of_their_shape(account_sfn: Any, case: dict[str, Any]) -> None:
    world = _world(account_sfn)

    answer = refusal(account_sfn, case["operation"], **_filled(case["params"], world))

    assert answer["Error"]["Code"] == case["error"]
    assert {key: answer.get(key) for key in case["members"]} == _filled(case["members"], world)


def test_describe_state_machine_reads_a_labelled_arn(account_sfn: Any) -> None:
    """The one operation that reads `NAME/LABEL`: a label the machine lacks is StateMachineDoesNotExist."""
    world = _world(account_sfn)
    assert refusal(account_sfn, "DescribeStateMachine", stateMachineArn=world["labeled"])["Error"]["Code"] == \
        "StateMachineDoesNotExist"


def test_errors_without_other_members_answer_only_a_message(account_sfn: Any) -> None:
    answer = refusal(account_sfn, "DescribeStateMachine", stateMachineArn=_world(account_sfn)["missing_machine"])
    assert "reason" not in answer and "resourceName" not in answer


# ---------------------------------------------------------------- quotas


@pytest.fixture
def small_quotas(monkeypatch: pytest.MonkeyPatch) -> None:
    """Quotas of 2 (the server runs in this process), so that reaching them takes a few calls."""
    for quota in ("MAX_STATE_MACHINES", "MAX_ACTIVITIES", "MAX_VERSIONS", "MAX_ALIASES"):
        monkeypatch.setattr(quotas, quota, 2)


def _publish_two(sfn: Any, machine: str) -> None:
    for result in (1, 2):
        sfn.update_state_machine(stateMachineArn=machine, definition=_definition(result), publish=True)


def _new_machine(sfn: Any) -> str:
    return sfn.create_state_machine(name=f"m{uuid.uuid4().hex[:10]}", definition=PASS, roleArn=ROLE)["stateMachineArn"]


@pytest.mark.usefixtures("small_quotas")
@pytest.mark.parametrize("publish", [
    lambda sfn, machine: sfn.publish_state_machine_version(stateMachineArn=machine),
    lambda sfn, machine: sfn.update_state_machine(stateMachineArn=machine, roleArn=f"{ROLE}-2", publish=True),
], ids=["PublishStateMachineVersion", "UpdateStateMachine with publish"])
def test_a_version_past_the_quota_is_refused_and_changes_nothing(account_sfn: Any, publish: Any) -> None:
    machine = _new_machine(account_sfn)
    _publish_two(account_sfn, machine)
    account_sfn.update_state_machine(stateMachineArn=machine, definition=_definition(3))
    before = call(account_sfn, "DescribeStateMachine", stateMachineArn=machine)

    with pytest.raises(ClientError) as refused:
        publish(account_sfn, machine)

    assert refused.value.response["Error"]["Code"] == "ServiceQuotaExceededException"
    assert call(account_sfn, "DescribeStateMachine", stateMachineArn=machine) == before
    assert len(account_sfn.list_state_machine_versions(stateMachineArn=machine)["stateMachineVersions"]) == 2


@pytest.mark.usefixtures("small_quotas")
def test_the_version_quota_counts_versions_kept_and_spares_a_revision_already_published(account_sfn: Any) -> None:
    machine = _new_machine(account_sfn)
    _publish_two(account_sfn, machine)

    # the current revision has its version: publishing it again answers that version
    assert account_sfn.publish_state_machine_version(stateMachineArn=machine)["stateMachineVersionArn"] == f"{machine}:2"
    account_sfn.delete_state_machine_version(stateMachineVersionArn=f"{machine}:1")
    account_sfn.update_state_machine(stateMachineArn=machine, definition=_definition(3))
    assert account_sfn.publish_state_machine_version(stateMachineArn=machine)["stateMachineVersionArn"] == f"{machine}:3"


@pytest.mark.usefixtures("small_quotas")
def test_an_alias_past_the_quota_is_refused_but_a_repeat_is_answered(account_sfn: Any) -> None:
    machine = _new_machine(account_sfn)
    _publish_two(account_sfn, machine)
    routing = [{"stateMachineVersionArn": f"{machine}:1", "weight": 100}]
    for name in ("a1", "a2"):
        account_sfn.create_state_machine_alias(name=name, routingConfiguration=routing)

    with pytest.raises(ClientError) as refused:
        account_sfn.create_state_machine_alias(name="a3", routingConfiguration=routing)

    assert refused.value.response["Error"]["Code"] == "ServiceQuotaExceededException"
    assert account_sfn.create_state_machine_alias(name="a2", routingConfiguration=routing)["stateMachineAliasArn"] \
        == f"{machine}:a2"


@pytest.mark.usefixtures("small_quotas")
@pytest.mark.parametrize("create, code", [
    (lambda sfn, name: sfn.create_state_machine(name=name, definition=PASS, roleArn=ROLE),
     "StateMachineLimitExceeded"),
    (lambda sfn, name: sfn.create_activity(name=name), "ActivityLimitExceeded"),
], ids=["state machines", "activities"])
def test_an_account_holds_a_bounded_number_of_machines_and_activities(account_sfn: Any, create: Any,
                                                                      code: str) -> None:
    create(account_sfn, "first")
    create(account_sfn, "second")

    with pytest.raises(ClientError) as refused:
        create(account_sfn, "third")

    assert refused.value.response["Error"]["Code"] == code
    create(account_sfn, "second")  # an idempotent repeat makes nothing new


# ---------------------------------------------------------------- includedData


@pytest.mark.parametrize("describe, definition", [
    (lambda sfn, world: call(sfn, "DescribeStateMachine", stateMachineArn=world["machine"], **world["included"]),
     _definition(2)),  # the current revision
    (lambda sfn, world: call(sfn, "DescribeStateMachine", stateMachineArn=world["version1"], **world["included"]),
     _definition(1)),
    (lambda sfn, world: call(sfn, "DescribeStateMachineForExecution", executionArn=world["execution"],
                             **world["included"]), _definition(1)),  # the execution ran version 1
], ids=["DescribeStateMachine", "DescribeStateMachine of a version", "DescribeStateMachineForExecution"])
@pytest.mark.parametrize("included_data, shows_definition", [
    (None, True), ("ALL_DATA", True), ("METADATA_ONLY", False),
])
def test_metadata_only_describes_a_machine_without_its_definition(
        account_sfn: Any, describe: Any, definition: str, included_data: str | None, shows_definition: bool) -> None:
    """API reference, DescribeStateMachine: "If called with includedData = METADATA_ONLY, the returned
    definition will be {}" (what a caller who may not decrypt the definition asks for); the rest stays."""
    world = _world(account_sfn)
    world["execution"] = account_sfn.start_execution(stateMachineArn=world["version1"])["executionArn"]
    world["included"] = {} if included_data is None else {"includedData": included_data}

    described = describe(account_sfn, world)

    assert described["definition"] == (definition if shows_definition else "{}")
    assert described["roleArn"] == ROLE and described["name"] == world["machine"].rsplit(":", 1)[1]


def test_metadata_only_does_not_apply_to_a_labelled_arn(account_sfn: Any) -> None:
    """API reference, DescribeStateMachine: for a labelled ARN AWS decrypts the whole definition to find
    the Distributed Map's, so `includedData = METADATA_ONLY` does not apply."""
    processor = {"ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"}, "StartAt": "Done",
                 "States": {"Done": {"Type": "Pass", "End": True}}}
    definition = json.dumps({"StartAt": "Fan", "States": {"Fan": {"Type": "Map", "ItemProcessor": processor,
                                                                    "End": True}}})
    machine = account_sfn.create_state_machine(name=f"m{uuid.uuid4().hex[:10]}", definition=definition,
                                               roleArn=ROLE)["stateMachineArn"]

    described = account_sfn.describe_state_machine(stateMachineArn=f"{machine}/Fan", includedData="METADATA_ONLY")

    assert (described["label"], described["definition"]) == ("Fan", definition)


# ---------------------------------------------------------------- listings


def test_aliases_are_listed_newest_first_and_by_the_version_they_route_to(account_sfn: Any) -> None:
    """API reference, ListStateMachineAliases: "Results are sorted by time, with the most recently
    created aliases listed first"; given a version ARN, the aliases of that version."""
    world = _world(account_sfn)  # `live` routes to version 1
    machine, version1, version2 = world["machine"], world["version1"], world["version2"]
    account_sfn.create_state_machine_alias(name="both", routingConfiguration=[
        {"stateMachineVersionArn": version1, "weight": 10}, {"stateMachineVersionArn": version2, "weight": 90}])
    account_sfn.create_state_machine_alias(name="next", routingConfiguration=[
        {"stateMachineVersionArn": version2, "weight": 100}])

    def listed(arn: str, **params: Any) -> tuple[list[str], str | None]:
        answer = account_sfn.list_state_machine_aliases(stateMachineArn=arn, **params)
        return [alias["stateMachineAliasArn"].rsplit(":", 1)[1] for alias in answer["stateMachineAliases"]], \
            answer.get("nextToken")

    assert listed(machine) == (["next", "both", "live"], None)
    assert listed(version1) == (["both", "live"], None)
    assert listed(version2) == (["next", "both"], None)
    first, token = listed(machine, maxResults=2)
    assert first == ["next", "both"] and listed(machine, maxResults=2, nextToken=token) == (["live"], None)
    missing_version = f"{machine}:9"
    assert refusal(account_sfn, "ListStateMachineAliases", stateMachineArn=missing_version)["Error"]["Code"] == \
        "StateMachineDoesNotExist"
