"""`LAMBDA_ENDPOINT`, `SQS_ENDPOINT`, `DYNAMODB_ENDPOINT`, `STEP_FUNCTIONS_ENDPOINT`, ...: integrations sent to
real endpoints started here (moto's server and a second sfn-emulator, each in its own process, and an
HTTP server speaking Lambda's Invoke API), through an emulator served over HTTP and driven by boto3.

The answers and failures follow the rules of the moto-backed integrations: a failure has the same name
as the same call answered in-process."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from helpers.clients import TEST_REGION, make_client
from helpers.hostile_http import HostileServer
from helpers.real_endpoints import LambdaInvokeServer, emulator_process, free_port, moto_server_process

from sfn_emulator.config import Settings
from sfn_emulator.resources import remote_endpoints
from sfn_emulator.runtime import Emulator
from sfn_emulator.wire import HttpServer

ROLE = "arn:aws:iam::123456789012:role/sfn"
ACCOUNT = "123456789012"


def double(event: Any) -> Any:
    return {"n": event["n"] * 2}


def refuse(event: Any) -> Any:
    raise ValueError(f"cannot take {event}")


@pytest.fixture(scope="module")
def moto_url() -> Iterator[str]:
    with moto_server_process() as url:
        yield url


@pytest.fixture(scope="module")
def remote_sfn_url() -> Iterator[str]:
    with emulator_process() as url:
        yield url


@pytest.fixture(scope="module")
def lambda_server() -> Iterator[LambdaInvokeServer]:
    with LambdaInvokeServer({"double": double, "refuse": refuse}) as server:
        yield server


def serve(settings: Settings) -> Iterator[Any]:
    with Emulator(settings) as emulator:
        server = HttpServer(emulator.app, "127.0.0.1", 0).start()
        try:
            yield make_client(server.endpoint_url)
        finally:
            server.stop()


@pytest.fixture(scope="module")
def sfn(moto_url: str, remote_sfn_url: str, lambda_server: LambdaInvokeServer) -> Iterator[Any]:
    """An emulator whose Lambda, SQS, SNS, DynamoDB, S3 and Step Functions integrations go to the real endpoints."""
    yield from serve(Settings(port=0, lambda_endpoint=lambda_server.url, sqs_endpoint=moto_url, sns_endpoint=moto_url,
                              dynamodb_endpoint=moto_url, s3_endpoint=moto_url, eventbridge_endpoint=moto_url,
                              step_functions_endpoint=remote_sfn_url))


@pytest.fixture(scope="module")
def sfn_on_moto() -> Iterator[Any]:
    """An emulator with no endpoints: its integrations are answered by moto in-process."""
    yield from serve(Settings(port=0))


def remote(service: str, url: str) -> Any:
    return boto3.client(service, endpoint_url=url, region_name=TEST_REGION, aws_access_key_id="testing",
                        aws_secret_access_key="testing")


def run_task(sfn: Any, resource: str, parameters: Any, *, catch_all: bool = False) -> tuple[str, Any]:
    """Run a one-Task machine; (status, output) or, when the task failed, (FAILED, {error, cause})."""
    task: dict[str, Any] = {"Type": "Task", "Resource": resource, "End": True}
    if parameters is not None:
        task["Parameters"] = parameters
    definition = {"StartAt": "Call", "States": {"Call": task}}
    machine = sfn.create_state_machine(name=f"m-{uuid.uuid4().hex[:10]}", definition=json.dumps(definition),
                                       roleArn=ROLE)["stateMachineArn"]
    arn = sfn.start_execution(stateMachineArn=machine, input="{}")["executionArn"]
    described = finished(sfn, arn)
    if described["status"] == "SUCCEEDED":
        return "SUCCEEDED", json.loads(described["output"])
    return described["status"], {"error": described.get("error"), "cause": described.get("cause")}


def finished(sfn: Any, arn: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while True:  # polled with a bound
        described = sfn.describe_execution(executionArn=arn)
        if described["status"] != "RUNNING" or time.monotonic() > deadline:
            return described
        time.sleep(0.05)


# -- moto's server: SQS, DynamoDB, S3, SNS ---------------------------------------------------------------

def test_sqs_send_message_lands_in_the_endpoints_queue(sfn: Any, moto_url: str) -> None:
    queue = remote("sqs", moto_url).create_queue(QueueName=f"q-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    status, output = run_task(sfn, "arn:aws:states:::sqs:sendMessage", {"QueueUrl": queue, "MessageBody": "hello"})
    assert status == "SUCCEEDED"
    received = remote("sqs", moto_url).receive_message(QueueUrl=queue)["Messages"]
    assert [message["Body"] for message in received] == ["hello"]
    assert output["MessageId"] == received[0]["MessageId"]
    assert output["SdkHttpMetadata"]["HttpStatusCode"] == 200  # the optimized integration's shape


def test_dynamodb_put_item_lands_in_the_endpoints_table_and_aws_sdk_reads_it(sfn: Any, moto_url: str) -> None:
    table = f"t-{uuid.uuid4().hex[:8]}"
    remote("dynamodb", moto_url).create_table(
        TableName=table, KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST")
    item = {"id": {"S": "1"}, "total": {"N": "42"}}
    status, _ = run_task(sfn, "arn:aws:states:::dynamodb:putItem", {"TableName": table, "Item": item})
    assert status == "SUCCEEDED"
    assert remote("dynamodb", moto_url).get_item(TableName=table, Key={"id": {"S": "1"}})["Item"] == item
    status, output = run_task(sfn, "arn:aws:states:::aws-sdk:dynamodb:getItem",
                              {"TableName": table, "Key": {"id": {"S": "1"}}})
    assert (status, output) == ("SUCCEEDED", {"Item": item})


def test_aws_sdk_s3_put_object_lands_in_the_endpoints_bucket(sfn: Any, moto_url: str) -> None:
    bucket = f"b-{uuid.uuid4().hex[:8]}"
    remote("s3", moto_url).create_bucket(Bucket=bucket)
    status, _ = run_task(sfn, "arn:aws:states:::aws-sdk:s3:putObject", {"Bucket": bucket, "Key": "k", "Body": "text"})
    assert status == "SUCCEEDED"
    # a blob member takes the JSON text of the value given, as the SDK behind aws-sdk:* writes it
    assert remote("s3", moto_url).get_object(Bucket=bucket, Key="k")["Body"].read() == b'"text"'


def test_sns_publish_reaches_the_endpoints_topic(sfn: Any, moto_url: str) -> None:
    topic = remote("sns", moto_url).create_topic(Name=f"t-{uuid.uuid4().hex[:8]}")["TopicArn"]
    status, output = run_task(sfn, "arn:aws:states:::sns:publish", {"TopicArn": topic, "Message": "hi"})
    assert status == "SUCCEEDED" and output["MessageId"]


@pytest.mark.parametrize(("resource", "parameters"), [
    ("arn:aws:states:::sqs:sendMessage",
     {"QueueUrl": f"https://sqs.us-east-1.amazonaws.com/{ACCOUNT}/no-such-queue", "MessageBody": "x"}),
    ("arn:aws:states:::dynamodb:getItem", {"TableName": "no-such-table", "Key": {"id": {"S": "1"}}}),
    ("arn:aws:states:::aws-sdk:s3:getObject", {"Bucket": "no-such-bucket-here", "Key": "k"}),
])
def test_a_failure_has_the_name_the_in_process_integration_gives(sfn: Any, sfn_on_moto: Any, resource: str,
                                                                  parameters: Any) -> None:
    status, remote_failure = run_task(sfn, resource, parameters)
    _, local_failure = run_task(sfn_on_moto, resource, parameters)
    assert status == "FAILED"
    assert remote_failure["error"] == local_failure["error"]


def test_an_endpoint_nobody_listens_on_fails_the_task_as_a_client_exception() -> None:
    closed = f"http://127.0.0.1:{free_port()}"
    for sfn in serve(Settings(port=0, sqs_endpoint=closed)):
        status, failure = run_task(sfn, "arn:aws:states:::sqs:sendMessage",
                                   {"QueueUrl": f"{closed}/{ACCOUNT}/q", "MessageBody": "x"})
        assert (status, failure["error"]) == ("FAILED", "SQS.SdkClientException")
        assert closed in failure["cause"]


# -- Lambda's Invoke API -----------------------------------------------------------------------------

def test_a_function_arn_is_invoked_at_the_lambda_endpoint(sfn: Any, lambda_server: LambdaInvokeServer) -> None:
    definition_input = {"n": 21}
    status, output = run_task(sfn, f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:double", definition_input)
    assert (status, output) == ("SUCCEEDED", {"n": 42})
    assert ("double", {"n": 21}) in lambda_server.events


def test_lambda_invoke_answers_the_invoke_response(sfn: Any) -> None:
    status, output = run_task(sfn, "arn:aws:states:::lambda:invoke", {"FunctionName": "double", "Payload": {"n": 4}})
    assert status == "SUCCEEDED"
    assert (output["Payload"], output["StatusCode"], output["ExecutedVersion"]) == ({"n": 8}, 200, "$LATEST")


@pytest.mark.parametrize("resource", [f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:refuse",
                                      "arn:aws:states:::lambda:invoke"])
def test_a_function_error_is_named_by_its_error_type(sfn: Any, resource: str) -> None:
    parameters = {"FunctionName": "refuse", "Payload": {"n": 1}} if "states" in resource else {"n": 1}
    status, failure = run_task(sfn, resource, parameters)
    assert (status, failure["error"]) == ("FAILED", "ValueError")
    assert json.loads(failure["cause"])["errorMessage"].startswith("cannot take")


def test_an_unknown_function_is_lambdas_resource_not_found(sfn: Any) -> None:
    status, failure = run_task(sfn, "arn:aws:states:::lambda:invoke", {"FunctionName": "missing", "Payload": {}})
    assert (status, failure["error"]) == ("FAILED", "Lambda.ResourceNotFoundException")
    assert "(Service: AWSLambda; Status Code: 404; Error Code: ResourceNotFoundException;" in failure["cause"]


def test_a_registered_callable_comes_before_the_endpoint() -> None:
    # A callable registered for the function answers it, although the Lambda endpoint cannot be reached.
    with Emulator(Settings(lambda_endpoint="http://127.0.0.1:9")) as emulator:
        emulator.functions.register("double", lambda event, context: {"local": True})
        server = HttpServer(emulator.app, "127.0.0.1", 0).start()
        try:
            status, output = run_task(make_client(server.endpoint_url), "arn:aws:states:::lambda:invoke",
                                      {"FunctionName": "double", "Payload": {"n": 1}})
        finally:
            server.stop()
    assert (status, output["Payload"]) == ("SUCCEEDED", {"local": True})


# -- a second sfn-emulator: Step Functions -------------------------------------------------------------

@pytest.fixture(scope="module")
def child_machines(remote_sfn_url: str) -> dict[str, str]:
    remote_sfn = make_client(remote_sfn_url)
    machines = {
        "echo": {"StartAt": "P", "States": {"P": {"Type": "Pass", "Result": {"child": "done"}, "End": True}}},
        "fails": {"StartAt": "F", "States": {"F": {"Type": "Fail", "Error": "Child.Broke", "Cause": "on purpose"}}},
    }
    return {name: remote_sfn.create_state_machine(name=f"{name}-{uuid.uuid4().hex[:6]}", roleArn=ROLE,
                                                  definition=json.dumps(definition))["stateMachineArn"]
            for name, definition in machines.items()}


def test_start_execution_starts_the_child_on_the_endpoint(sfn: Any, remote_sfn_url: str,
                                                           child_machines: dict[str, str]) -> None:
    status, output = run_task(sfn, "arn:aws:states:::states:startExecution",
                              {"StateMachineArn": child_machines["echo"], "Input": {"a": 1}})
    assert status == "SUCCEEDED" and isinstance(output["StartDate"], int)
    child = finished(make_client(remote_sfn_url), output["ExecutionArn"])
    assert (child["status"], json.loads(child["input"])) == ("SUCCEEDED", {"a": 1})
    with pytest.raises(sfn.exceptions.ExecutionDoesNotExist):  # it ran there, not here
        sfn.describe_execution(executionArn=output["ExecutionArn"])


@pytest.mark.parametrize(("suffix", "child_output"), [(".sync:2", {"child": "done"}), (".sync", '{"child":"done"}')])
def test_sync_waits_for_the_remote_child(sfn: Any, child_machines: dict[str, str], suffix: str,
                                         child_output: Any) -> None:
    status, output = run_task(sfn, f"arn:aws:states:::states:startExecution{suffix}",
                              {"StateMachineArn": child_machines["echo"]})
    assert (status, output["Status"], output["Output"]) == ("SUCCEEDED", "SUCCEEDED", child_output)


def test_sync_of_a_failing_remote_child_fails_with_its_description(sfn: Any, child_machines: dict[str, str]) -> None:
    status, failure = run_task(sfn, "arn:aws:states:::states:startExecution.sync:2",
                               {"StateMachineArn": child_machines["fails"]})
    assert (status, failure["error"]) == ("FAILED", "States.TaskFailed")
    assert {key: json.loads(failure["cause"])[key] for key in ("Status", "Error", "Cause")} == {
        "Status": "FAILED", "Error": "Child.Broke", "Cause": "on purpose"}


def test_a_refused_start_is_named_as_the_in_process_one(sfn: Any, sfn_on_moto: Any) -> None:
    parameters = {"StateMachineArn": f"arn:aws:states:us-east-1:{ACCOUNT}:stateMachine:nowhere"}
    remote_failure = run_task(sfn, "arn:aws:states:::states:startExecution", parameters)[1]
    local_failure = run_task(sfn_on_moto, "arn:aws:states:::states:startExecution", parameters)[1]
    assert remote_failure["error"] == local_failure["error"] == "StepFunctions.StateMachineDoesNotExistException"


def test_aws_sdk_sfn_calls_the_endpoint(sfn: Any, child_machines: dict[str, str]) -> None:
    status, output = run_task(sfn, "arn:aws:states:::aws-sdk:sfn:describeStateMachine",
                              {"StateMachineArn": child_machines["echo"]})
    assert (status, output["StateMachineArn"]) == ("SUCCEEDED", child_machines["echo"])


# -- an endpoint that answers as an adversary would ------------------------------------------------------

@pytest.mark.parametrize("path", ["/forever", "/drip"], ids=["streams-forever", "drips"])
def test_an_endpoints_answer_is_read_within_its_size_and_deadline(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Over the size (6 MB) the task fails as an oversized result does; past the deadline for the whole
    call (900 s, 1 s here) as an endpoint that cannot be reached."""
    monkeypatch.setattr(remote_endpoints, "ANSWER_DEADLINE_SECONDS", 1.0)
    hostile = HostileServer(every_path=path)
    try:
        sfn = next(clients := serve(Settings(port=0, lambda_endpoint=hostile.url)))
        status, failure = run_task(sfn, f"arn:aws:lambda:{TEST_REGION}:123456789012:function:f", {})
        clients.close()
    finally:
        hostile.close()
    assert status == "FAILED"
    assert failure["error"] == ("States.DataLimitExceeded" if path == "/forever" else "Lambda.SdkClientException")
