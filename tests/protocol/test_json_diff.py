"""Assertion messages show where two outputs differ, by JSON path (fixtures/json_diff/)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers.paths import FIXTURES_ROOT

from sfn_emulator import run_definition
from sfn_emulator.protocol.json_diff import MAX_LINES, describe_differences, json_differences, json_equal

CASES = json.loads((FIXTURES_ROOT / "json_diff" / "differences.json").read_text())
ECHO = {"StartAt": "Echo", "States": {"Echo": {"Type": "Pass", "End": True}}}


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_differences_are_listed_by_json_path(case: dict[str, Any]) -> None:
    assert json_differences(case["actual"], case["expected"]) == case["lines"]
    assert json_equal(case["actual"], case["expected"]) is not case["lines"]


def test_a_long_list_of_differences_is_cut_with_a_count() -> None:
    text = describe_differences(list(range(MAX_LINES + 7)), [])
    assert text.splitlines()[-1] == "  ... and 7 more difference(s)"
    assert len(text.splitlines()) == MAX_LINES + 1


def test_assert_output_names_the_one_field_that_differs_in_a_large_output() -> None:
    order = {"lines": [{"sku": f"sku-{index}", "quantity": 1} for index in range(200)], "status": "SHIPPED"}
    result = run_definition(ECHO, order)
    wanted = json.loads(json.dumps(order))
    wanted["lines"][150]["quantity"] = 2
    wanted["carrier"] = "ups"
    with pytest.raises(AssertionError) as raised:
        result.assert_output(wanted)
    message = str(raised.value)
    assert message.startswith("the execution succeeded with another output than expected:\n"
                              "  $.lines[150].quantity: expected 2, got 1\n"
                              "  $.carrier: missing (expected \"ups\")\n"
                              f"execution {result.execution_arn}: SUCCEEDED\n")
    assert result.assert_output(order) is result


def test_assert_output_on_a_failed_execution_says_it_failed() -> None:
    result = run_definition({"StartAt": "F", "States": {"F": {"Type": "Fail", "Error": "E"}}})
    with pytest.raises(AssertionError, match="expected the execution to succeed\n.*FAILED"):
        result.assert_output({})
