"""JSONPath as AWS (Jayway) evaluates it and the payload quota, over HTTP with boto3: indefinite
paths in several fields, a definition refused for a path Jayway cannot compile, and a state whose
output is over 262,144 UTF-8 bytes failing the execution with States.DataLimitExceeded."""

from __future__ import annotations

import json
import uuid
from typing import Any, Iterator

import pytest
from botocore.exceptions import ClientError
from helpers.clients import make_client, run_and_read
from helpers.paths import FIXTURES_ROOT

ROLE = "arn:aws:iam::123456789012:role/paths-tests"
RUNTIME_CAUSES = json.loads((FIXTURES_ROOT / "paths" / "runtime_causes.json")
                            .read_text(encoding="utf-8"))["cases"]
ACCOUNT = "111111111111"  # the account of the table's Lambda function ARN
ECHO = f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:echo"


@pytest.fixture
def sfn_with_echo(emulator_server: Any) -> Iterator[Any]:
    """A client in the table's account, with its Lambda function `echo` (it returns its input)."""
    emulator_server.emulator.functions.register(ECHO, lambda event, context: event)
    try:
        yield make_client(emulator_server.endpoint_url, access_key=ACCOUNT)
    finally:
        emulator_server.emulator.functions.unregister(ECHO)



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


@pytest.mark.parametrize("case", RUNTIME_CAUSES, ids=[case["name"] for case in RUNTIME_CAUSES])
def test_a_path_that_cannot_be_read_fails_with_the_fields_cause(sfn_with_echo: Any, emulator_server: Any,
                                                                 case: dict[str, Any]) -> None:
    """fixtures/paths/runtime_causes.json, as DescribeExecution and the history report it."""
    described, events = run(sfn_with_echo, emulator_server, case["definition"], case["input"])

    assert (described["status"], described.get("error"), described.get("cause")) == (
        "FAILED", case["error"], case["cause"])
    assert events[-1]["type"] == "ExecutionFailed"
    assert events[-1]["executionFailedEventDetails"] == {"error": case["error"], "cause": case["cause"]}


CREDENTIALS = {  # a role built from the input, in each query language
    "JSONPath": {"Parameters": {"FunctionName": ECHO, "Payload": {}},
                 "Credentials": {"RoleArn.$": "States.Format('arn:aws:iam::{}:role/{}', $.account, $.role)"}},
    "JSONata": {"QueryLanguage": "JSONata", "Arguments": {"FunctionName": ECHO, "Payload": {}},
                "Credentials": {"RoleArn": "{% 'arn:aws:iam::' & $states.input.account & ':role/' & $states.input.role %}"}},
}


@pytest.mark.parametrize("language", sorted(CREDENTIALS))
@pytest.mark.parametrize(("resource", "scheduled"), [
    (ECHO, "lambdaFunctionScheduledEventDetails"),
    ("arn:aws:states:::lambda:invoke", "taskScheduledEventDetails"),
])
def test_a_tasks_credentials_are_evaluated_and_recorded(sfn_with_echo: Any, emulator_server: Any, resource: str,
                                                         scheduled: str, language: str) -> None:
    """`Credentials.RoleArn` is evaluated like a Parameters (Arguments) field, here from the input,
    and the scheduled event records the role as `taskCredentials` (botocore's model has the field)."""
    definition = {"StartAt": "Call", "States": {"Call": {
        "Type": "Task", "Resource": resource, **CREDENTIALS[language], "End": True}}}

    described, events = run(sfn_with_echo, emulator_server, definition, {"account": "222222222222", "role": "cross"})

    assert described["status"] == "SUCCEEDED", described
    details = next(event[scheduled] for event in events if scheduled in event)
    assert details["taskCredentials"] == {"roleArn": "arn:aws:iam::222222222222:role/cross"}


@pytest.mark.parametrize("language", ["JSONPath", "JSONata"])
def test_parameters_over_the_quota_fail_the_task_before_it_is_scheduled(sfn_with_echo: Any, emulator_server: Any,
                                                                        language: str) -> None:
    """What Parameters (Arguments) make is measured before the request is sent: the Task fails with
    "provided parameters", and no TaskScheduled event is written."""
    request = ({"Parameters": {"FunctionName": ECHO, "Payload": {"first.$": "$.text", "second.$": "$.text"}}}
               if language == "JSONPath" else
               {"QueryLanguage": "JSONata",
                "Arguments": {"FunctionName": ECHO, "Payload": "{% [$states.input.text, $states.input.text] %}"}})
    definition = {"StartAt": "Call", "States": {"Call": {
        "Type": "Task", "Resource": "arn:aws:states:::lambda:invoke", **request, "End": True}}}

    described, events = run(sfn_with_echo, emulator_server, definition, {"text": "x" * 140_000})

    assert (described["status"], described["error"], described["cause"]) == (
        "FAILED", "States.DataLimitExceeded",
        "The state/task 'Call' provided parameters with a size exceeding the maximum number of bytes service limit.")
    assert [event["type"] for event in events] == ["ExecutionStarted", "TaskStateEntered", "ExecutionFailed"]
