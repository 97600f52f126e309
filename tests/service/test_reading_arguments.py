"""ARNs, names, execution input and pagination tokens are read as AWS reads them (table-driven)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from helpers.service_world import START, fixture

from sfn_emulator.service import arns
from sfn_emulator.service.errors import InvalidArn, InvalidExecutionInput, InvalidName, InvalidToken, ValidationException
from sfn_emulator.service.json_input import read_execution_input
from sfn_emulator.service.names import check_alias_name, check_name
from sfn_emulator.service.pagination import paginate

NOW = START  # pagination tokens carry the clock's time they were handed out at

ARN_CASES = fixture("arns.json")["cases"]
NAMES = fixture("names.json")
INPUTS = fixture("execution_input.json")


@pytest.mark.parametrize("case", ARN_CASES, ids=lambda case: f"{case['reader']}:{case['arn']}")
def test_arn_is_read_as_aws_reads_it(case: dict) -> None:
    reader = getattr(arns, case["reader"])
    if "error" in case:
        with pytest.raises(InvalidArn) as refused:
            reader(case["arn"])
        assert refused.value.message == case["error"]
    else:
        reader(case["arn"])


def test_state_machine_arn_qualifiers_and_test_case_suffix() -> None:
    base = "arn:aws:states:us-east-1:123456789012:stateMachine:m"
    assert arns.state_machine(f"{base}:3").version == 3
    assert arns.state_machine(f"{base}:live").alias == "live"
    mocked = arns.state_machine(f"{base}#HappyPath", allow_test_case=True)
    assert (mocked.arn, mocked.base_arn, mocked.test_case, mocked.qualified) == (base, base, "HappyPath", False)
    # Only StartExecution and StartSyncExecution take a test case; elsewhere `#` is part of the name.
    assert arns.state_machine(f"{base}#HappyPath").name == "m#HappyPath"


@pytest.mark.parametrize("name", NAMES["valid"])
def test_valid_names(name: str) -> None:
    assert check_name(name) == name


@pytest.mark.parametrize("name", NAMES["invalid"])
def test_invalid_names(name: str) -> None:
    with pytest.raises(InvalidName) as refused:
        check_name(name)
    assert refused.value.message == f"Invalid Name: '{name}'"


@pytest.mark.parametrize("name", NAMES["alias_valid"])
def test_valid_alias_names(name: str) -> None:
    assert check_alias_name(name) == name


@pytest.mark.parametrize("case", NAMES["alias_invalid"], ids=lambda case: case["name"])
def test_invalid_alias_names(case: dict) -> None:
    with pytest.raises(ValidationException) as refused:
        check_alias_name(case["name"])
    assert refused.value.message == case["message"]


@pytest.mark.parametrize("text", INPUTS["accepted"])
def test_execution_input_accepted(text: str) -> None:
    read_execution_input(text)


@pytest.mark.parametrize("case", INPUTS["refused"], ids=lambda case: case["input"] or "<empty>")
def test_execution_input_refused_in_aws_words(case: dict) -> None:
    with pytest.raises(InvalidExecutionInput) as refused:
        read_execution_input(case["input"])
    assert refused.value.message == case["message"]


def test_pages_follow_each_other_and_survive_changes_between_pages() -> None:
    items = ["a", "b", "c", "d", "e"]
    first, token = paginate(items, lambda item: item, scope="letters", max_results=2, next_token=None, now=NOW)
    assert first == ["a", "b"] and token
    items.remove("c")  # removed between two pages
    second, token = paginate(items, lambda item: item, scope="letters", max_results=2, next_token=token, now=NOW)
    assert second == ["d", "e"] and token is None


def test_default_page_size_is_100() -> None:
    page, token = paginate(list(range(150)), lambda item: item, scope="numbers", max_results=0, next_token=None, now=NOW)
    assert len(page) == 100 and token


@pytest.mark.parametrize("token", ["bogus", "", "eyJ9", "W10="])
def test_bogus_tokens_are_refused(token: str) -> None:
    with pytest.raises(InvalidToken) as refused:
        paginate(["a"], lambda item: item, scope="letters", max_results=1, next_token=token, now=NOW)
    assert refused.value.message == "Invalid Token: 'Invalid token'"


@pytest.mark.parametrize("age, accepted", [
    (timedelta(hours=24), True), (timedelta(hours=24, seconds=1), False),
])
def test_a_token_expires_after_24_hours(age: timedelta, accepted: bool) -> None:
    """API reference, every List* operation: "Each pagination token expires after 24 hours"."""
    _, token = paginate(["a", "b"], lambda item: item, scope="letters", max_results=1, next_token=None, now=NOW)
    if accepted:
        assert paginate(["a", "b"], lambda item: item, scope="letters", max_results=1, next_token=token,
                        now=NOW + age)[0] == ["b"]
    else:
        with pytest.raises(InvalidToken, match="^Invalid Token: 'Invalid token'$"):
            paginate(["a", "b"], lambda item: item, scope="letters", max_results=1, next_token=token, now=NOW + age)


def test_a_token_of_another_listing_is_refused() -> None:
    _, token = paginate(["a", "b"], lambda item: item, scope="letters", max_results=1, next_token=None, now=NOW)
    with pytest.raises(InvalidToken):
        paginate(["a", "b"], lambda item: item, scope="other letters", max_results=1, next_token=token, now=NOW)
