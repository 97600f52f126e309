"""JSONPath as AWS (Jayway) evaluates it and the payload quota, over HTTP with boto3: indefinite
paths in several fields, a definition refused for a path Jayway cannot compile, and a state whose
output is over 262,144 UTF-8 bytes failing the execution with States.DataLimitExceeded."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError
from helpers.clients import run_and_read

ROLE = "arn:aws:iam::123456789012:role/paths-tests"



def run(sfn: Any, emulator_server: Any, definition: dict[str, Any], value: Any) -> tuple[dict[str, Any], list[dict]]:
    return run_and_read(sfn, emulator_server, definition, value, role_arn=ROLE)


def test_indefinite_paths_give_lists_and_definite_ones_values(sfn: Any, emulator_server: Any) -> None:
    definition = {"StartAt": "Pick", "States": {
        "Pick": {"Type": "Pass", "InputPath": "$.orders[?(@.price > 10)]",
                 "Parameters": {"ids.$": "$[*].id", "first.$": "$.[0].id", "none.$": "$[?(@.price > 100)]",
                                "deep.$": "$..sku"},
                 "Next": "Choose"},
        "Choose": {"Type": "Choice", "Choices": [{"Variable": "$.first", "StringEquals": "b", "Next": "Done"}],
                   "Default": "Wrong"},
        "Wrong": {"Type": "Fail"},
        "Done": {"Type": "Succeed"}}}
    orders = {"orders": [{"id": "a", "price": 5, "sku": "s1"}, {"id": "b", "price": 20, "sku": "s2"},
                         {"id": "c", "price": 12, "item": {"sku": "s3"}}]}

    described, _ = run(sfn, emulator_server, definition, orders)

    assert described["status"] == "SUCCEEDED", described
    assert json.loads(described["output"]) == {"ids": ["b", "c"], "first": "b", "none": [], "deep": ["s2", "s3"]}


@pytest.mark.parametrize("path", ["$.a[?(@.x = 1)]", "$[key]", "$[:]", "$.a[2:113667776004]"])
def test_a_path_jayway_cannot_compile_refuses_the_definition(sfn: Any, path: str) -> None:
    definition = {"StartAt": "P", "States": {"P": {"Type": "Pass", "InputPath": path, "End": True}}}
    with pytest.raises(ClientError) as raised:
        sfn.create_state_machine(name=f"m-{uuid.uuid4().hex[:12]}", definition=json.dumps(definition), roleArn=ROLE)
    assert raised.value.response["Error"]["Code"] == "InvalidDefinition"
    assert "/States/P/InputPath" in raised.value.response["Error"]["Message"]


def test_a_state_output_over_the_quota_fails_the_execution(sfn: Any, emulator_server: Any) -> None:
    definition = {"QueryLanguage": "JSONata", "StartAt": "Grow", "States": {
        "Grow": {"Type": "Pass", "Output": "{% $pad('', 262143, 'x') %}", "End": True}}}

    described, events = run(sfn, emulator_server, definition, {})

    assert (described["status"], described["error"]) == ("FAILED", "States.DataLimitExceeded")
    assert described["cause"] == ("The state/task 'Grow' returned a result with a size exceeding the maximum number "
                                  "of bytes service limit.")
    assert [event["type"] for event in events] == ["ExecutionStarted", "PassStateEntered", "ExecutionFailed"]
