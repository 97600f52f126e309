"""GetExecutionHistory pages by position in the append-only history, in both orders.

Whatever the page size, paging hands out every event exactly once, in id order (or reverse id
order), also while the execution keeps appending events between pages; tokens stay opaque and
are refused by any other listing.
"""

from __future__ import annotations

import base64
import json

import pytest
from helpers.service_world import ROLE, machine_arn, settle

from sfn_emulator.service import StepFunctionsService
from sfn_emulator.service.errors import InvalidToken
from sfn_emulator.service.pagination import Reversed

MAP_ITEMS = 40
MAP = json.dumps({"StartAt": "M", "States": {"M": {
    "Type": "Map", "ItemProcessor": {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}, "End": True}}})
TWO_WAITS = json.dumps({"StartAt": "W1", "States": {
    "W1": {"Type": "Wait", "Seconds": 10, "Next": "W2"}, "W2": {"Type": "Wait", "Seconds": 10, "End": True}}})


def all_pages(service: StepFunctionsService, arn: str, token: str | None = None,
              **params: object) -> list[list[int]]:
    pages = []
    while True:
        answer = service.get_execution_history(executionArn=arn, **params, **({"nextToken": token} if token else {}))
        pages.append([event["id"] for event in answer["events"]])
        token = answer.get("nextToken")
        if token is None:
            return pages


@pytest.fixture
def map_execution(service: StepFunctionsService, engine) -> str:
    machine = service.create_state_machine(name="map", definition=MAP, roleArn=ROLE)["stateMachineArn"]
    arn = service.start_execution(stateMachineArn=machine, input=json.dumps(list(range(MAP_ITEMS))))["executionArn"]
    settle(engine)
    return arn


@pytest.mark.parametrize("page_size", [1, 2, 7, 100, 1000])
@pytest.mark.parametrize("reverse", [False, True])
def test_pages_hand_out_every_event_once_in_order(service: StepFunctionsService, map_execution: str,
                                                  page_size: int, reverse: bool) -> None:
    whole = [event["id"] for event in service.get_execution_history(executionArn=map_execution,
                                                                     maxResults=1000)["events"]]
    assert whole == list(range(1, len(whole) + 1)) and len(whole) > 4 * MAP_ITEMS
    pages = all_pages(service, map_execution, maxResults=page_size, reverseOrder=reverse)
    assert [event_id for page in pages for event_id in page] == (whole[::-1] if reverse else whole)
    assert all(len(page) == page_size for page in pages[:-1]) and 0 < len(pages[-1]) <= page_size


@pytest.mark.parametrize("reverse", [False, True])
def test_paging_a_running_execution_takes_in_what_it_appends(service: StepFunctionsService, engine, clock,
                                                            reverse: bool) -> None:
    machine = service.create_state_machine(name="waits", definition=TWO_WAITS, roleArn=ROLE)["stateMachineArn"]
    arn = service.start_execution(stateMachineArn=machine, name="w")["executionArn"]
    settle(engine)
    first = service.get_execution_history(executionArn=arn, maxResults=1, reverseOrder=reverse)
    for _ in ("W1", "W2"):
        clock.advance(10)
        settle(engine)
    rest = all_pages(service, arn, maxResults=1, reverseOrder=reverse, token=first["nextToken"])
    handed_out = [event["id"] for event in first["events"]] + [event_id for page in rest for event_id in page]
    # Forward, the next page starts after the last event handed out and reaches the new ones;
    # in reverse, it goes on from there towards the first event, as the listing began.
    assert handed_out == ([1, 2, 3, 4, 5, 6] if not reverse else [2, 1])


def forged(token: str, after: object) -> str:
    payload = json.loads(base64.urlsafe_b64decode(token.encode()))
    return base64.urlsafe_b64encode(json.dumps({**payload, "after": after}).encode()).decode()


@pytest.mark.parametrize("token", ["bogus", "", "eyJ9"])
def test_a_token_that_does_not_decode_is_refused(service: StepFunctionsService, map_execution: str,
                                                 token: str) -> None:
    with pytest.raises(InvalidToken):
        service.get_execution_history(executionArn=map_execution, nextToken=token or "=")


def test_a_token_of_another_listing_or_kind_is_refused(service: StepFunctionsService, map_execution: str,
                                                      engine) -> None:
    token = service.get_execution_history(executionArn=map_execution, maxResults=2)["nextToken"]
    with pytest.raises(InvalidToken):
        service.get_execution_history(executionArn=map_execution, maxResults=2, reverseOrder=True, nextToken=token)
    with pytest.raises(InvalidToken):
        service.get_execution_history(executionArn=map_execution, nextToken=forged(token, "not an id"))
    other = service.start_execution(stateMachineArn=machine_arn("map"), input="[]")["executionArn"]
    settle(engine)
    with pytest.raises(InvalidToken):
        service.get_execution_history(executionArn=other, nextToken=token)


def test_reversed_is_a_newest_first_view_of_the_list_as_it_was() -> None:
    items = [1, 2, 3]
    view = Reversed(items)
    items.append(4)
    assert list(view) == [3, 2, 1] and len(view) == 3
    assert (view[0], view[-1], view[1:]) == (3, 1, [2, 1])
    with pytest.raises(IndexError):
        view[3]
