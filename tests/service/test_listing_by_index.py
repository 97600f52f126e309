"""ListExecutions reads one state machine's executions (or one map run's) from the store's index,
newest first, and pages through them by position: other machines' executions, and executions
started or forgotten between pages, never shift or repeat what a listing hands out."""

from __future__ import annotations

import pytest
from helpers.service_world import PASS, ROLE, settle

from sfn_emulator.service import StepFunctionsService
from sfn_emulator.service.errors import InvalidToken


def names(service: StepFunctionsService, machine_arn: str, page_size: int, **filters: object) -> list[list[str]]:
    pages, token = [], None
    while True:
        answer = service.list_executions(stateMachineArn=machine_arn, maxResults=page_size, **filters,
                                         **({"nextToken": token} if token else {}))
        pages.append([item["name"] for item in answer["executions"]])
        token = answer.get("nextToken")
        if token is None:
            return pages


@pytest.fixture
def two_machines(service: StepFunctionsService, engine) -> tuple[str, str]:
    first = service.create_state_machine(name="first", definition=PASS, roleArn=ROLE)["stateMachineArn"]
    second = service.create_state_machine(name="second", definition=PASS, roleArn=ROLE)["stateMachineArn"]
    for index in range(7):  # interleaved: each machine's executions are scattered through the store
        service.start_execution(stateMachineArn=first, name=f"first-{index}")
        service.start_execution(stateMachineArn=second, name=f"second-{index}")
    settle(engine)
    return first, second


@pytest.mark.parametrize("page_size", [1, 3, 7, 100])
def test_a_machine_lists_only_its_executions_newest_first(service: StepFunctionsService, two_machines: tuple[str, str],
                                                          page_size: int) -> None:
    first, _ = two_machines
    pages = names(service, first, page_size)
    assert [name for page in pages for name in page] == [f"first-{index}" for index in reversed(range(7))]
    assert all(len(page) == page_size for page in pages[:-1])


def test_executions_started_between_pages_do_not_shift_the_listing(service: StepFunctionsService, engine,
                                                                   two_machines: tuple[str, str]) -> None:
    first, _ = two_machines
    answer = service.list_executions(stateMachineArn=first, maxResults=3)
    service.start_execution(stateMachineArn=first, name="newer")
    settle(engine)
    rest = service.list_executions(stateMachineArn=first, maxResults=100, nextToken=answer["nextToken"])
    assert [item["name"] for item in answer["executions"] + rest["executions"]] == \
        [f"first-{index}" for index in reversed(range(7))]


def test_a_deleted_machine_takes_its_executions_out_of_the_index(service: StepFunctionsService,
                                                                 two_machines: tuple[str, str]) -> None:
    first, second = two_machines
    service.delete_state_machine(stateMachineArn=first)
    assert names(service, second, 100) == [[f"second-{index}" for index in reversed(range(7))]]
    again = service.create_state_machine(name="first", definition=PASS, roleArn=ROLE)["stateMachineArn"]
    assert names(service, again, 100) == [[]]


# Every paged listing, with what it needs: each makes two items, so a page of one has a next token.
LISTINGS = {
    "ListStateMachines": lambda service, world: service.list_state_machines(**world["page"]),
    "ListActivities": lambda service, world: service.list_activities(**world["page"]),
    "ListExecutions": lambda service, world: service.list_executions(stateMachineArn=world["machine"], **world["page"]),
    "GetExecutionHistory": lambda service, world: service.get_execution_history(executionArn=world["execution"],
                                                                                **world["page"]),
    "ListStateMachineVersions": lambda service, world: service.list_state_machine_versions(
        stateMachineArn=world["machine"], **world["page"]),
    "ListStateMachineAliases": lambda service, world: service.list_state_machine_aliases(
        stateMachineArn=world["machine"], **world["page"]),
}


@pytest.mark.parametrize("listing", LISTINGS.values(), ids=LISTINGS.keys())
@pytest.mark.parametrize("hours, accepted", [(24, True), (24.001, False)])
def test_a_next_token_expires_after_24_hours(service: StepFunctionsService, engine, clock, listing, hours: float,
                                             accepted: bool) -> None:
    """API reference, every List* operation: "Each pagination token expires after 24 hours. Using an
    expired pagination token will return an HTTP 400 InvalidToken error"."""
    machine = service.create_state_machine(name="m", definition=PASS, roleArn=ROLE, publish=True)["stateMachineArn"]
    service.create_state_machine(name="n", definition=PASS, roleArn=ROLE)
    service.update_state_machine(stateMachineArn=machine, roleArn=f"{ROLE}-2", publish=True)
    for name in ("a", "b"):
        service.create_activity(name=name)
        service.create_state_machine_alias(name=name, routingConfiguration=[
            {"stateMachineVersionArn": f"{machine}:1", "weight": 100}])
        execution = service.start_execution(stateMachineArn=machine, name=name)["executionArn"]
    settle(engine)
    world = {"machine": machine, "execution": execution, "page": {"maxResults": 1}}
    token = listing(service, world)["nextToken"]

    clock.advance(hours * 3600)
    world["page"]["nextToken"] = token
    if accepted:
        listing(service, world)  # the next page is answered
    else:
        with pytest.raises(InvalidToken, match="^Invalid Token: 'Invalid token'$"):
            listing(service, world)
