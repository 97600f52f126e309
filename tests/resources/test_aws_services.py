"""AWS service integrations served by moto in-process: results, errors, and what lands in the services.

The table in fixtures/aws_services/integrations.json drives most of it; each case acts in an
account of its own, so cases never see each other's queues, tables or buckets.
"""

from __future__ import annotations

import itertools
import json
from datetime import datetime, timezone
from typing import Any

import pytest
from helpers.expectations import includes, matches
from helpers.paths import FIXTURES_ROOT

from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.parser import parse_definition
from sfn_emulator.clock.virtual_clock import Clock
from sfn_emulator.engine import Engine, Execution
from sfn_emulator.resources.aws.backends import MotoBackends
from sfn_emulator.resources.aws.sdk import (
    SdkServices,
    instant_text,
    pascal_case,
    sdk_v2_exception_name,
    sdk_v2_service_name,
    to_request,
    unsupported_field,
)
from sfn_emulator.resources.aws_services import AwsServiceIntegrations
from sfn_emulator.asl.task_targets import parse_resource
from sfn_emulator.resources.base import TaskRequest, TaskResources

FIXTURES = FIXTURES_ROOT / "aws_services"
CASES = json.loads((FIXTURES / "integrations.json").read_text())["cases"]
REGION = "us-east-1"
NOW = datetime(2024, 1, 1, tzinfo=timezone.utc)
WAIT_LIMIT_SECONDS = 10.0
_accounts = itertools.count(210_000_000_001)


@pytest.fixture(scope="module")
def integrations() -> AwsServiceIntegrations:
    return AwsServiceIntegrations(MotoBackends())


@pytest.fixture
def account() -> str:
    """A fresh account for each test: moto's backends are per account, so tests stay apart."""
    return str(next(_accounts))


def task_request(resource: str, payload: Any, account: str) -> TaskRequest:
    return TaskRequest(
        resource=parse_resource(resource), payload=payload,
        execution_arn=f"arn:aws:states:{REGION}:{account}:execution:Machine:run", state_machine_name="Machine",
        state_name="Task", account=account, region=REGION, now=NOW,
    )


def substitute(value: Any, account: str) -> Any:
    return json.loads(json.dumps(value).replace("${account}", account))


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_integration(case: dict[str, Any], integrations: AwsServiceIntegrations, account: str) -> None:
    case = substitute(case, account)
    for call in case.get("setup", []):
        client = integrations.backends.client(call["service"], account=account, region=REGION)
        getattr(client, call["op"])(**call["kwargs"])
    for step in case["steps"]:
        request = task_request(step["resource"], step["payload"], account)
        assert integrations.bind(request) is not None
        if "error" in step:
            with pytest.raises(StatesError) as failure:
                integrations.answer(request)
            assert failure.value.error == step["error"]
            assert matches(step["cause"], failure.value.cause), failure.value.cause
            continue
        result = integrations.answer(request)
        json.dumps(result)  # a task result is JSON
        if "result" in step:
            assert matches(step["result"], result), result
        if "result_keys" in step:
            assert sorted(result) == sorted(step["result_keys"])
        if "result_includes" in step:
            assert includes(step["result_includes"], result), result
        for excluded in step.get("result_excludes", []):  # a member's name, or a dotted path to a nested one
            *parents, name = excluded.split(".")
            assert name not in _member(result, parents), result
        if "first_message_body_includes" in step:
            body = json.loads(result["Messages"][0]["Body"])
            assert includes(step["first_message_body_includes"], body), body


def _member(value: dict[str, Any], path: list[str]) -> dict[str, Any]:
    for name in path:
        value = value[name]
    return value


@pytest.mark.parametrize("resource", [
    "arn:aws:states:::sqs:sendMessage.sync",  # no such pattern for SQS
    "arn:aws:states:::sqs:receiveMessage",  # not an optimized action: only aws-sdk:sqs has it
    "arn:aws:states:::lambda:invoke",  # Lambda functions are registered callables
    "arn:aws:states:::aws-sdk:sfn:startExecution",  # Step Functions is the emulator itself
    "arn:aws:states:::aws-sdk:s3:noSuchAction",
    "arn:aws:states:::aws-sdk:nosuchservice:doThings",
    "arn:aws:lambda:us-east-1:123456789012:function:f",
])
def test_requests_it_does_not_serve(resource: str, integrations: AwsServiceIntegrations) -> None:
    assert integrations.bind(task_request(resource, {}, "123456789012")) is None


def test_its_clients_reach_the_same_backends_as_other_backends_objects(account: str) -> None:
    """moto's state is process-wide: a user's MotoBackends sees what the integrations wrote."""
    writer = AwsServiceIntegrations(MotoBackends())
    writer.backends.client("s3", account=account, region=REGION).create_bucket(Bucket="shared")
    writer.answer(task_request("arn:aws:states:::aws-sdk:s3:putObject", {"Bucket": "shared", "Key": "k", "Body": [1]}, account))
    reader = MotoBackends().client("s3", account=account, region=REGION)
    assert reader.get_object(Bucket="shared", Key="k")["Body"].read() == b"[1]"


def test_an_account_sees_only_its_own_resources(integrations: AwsServiceIntegrations, account: str) -> None:
    integrations.backends.client("sqs", account=account, region=REGION).create_queue(QueueName="private")
    other = str(int(account) + 500_000)
    listed = integrations.answer(task_request("arn:aws:states:::aws-sdk:sqs:listQueues", {}, other))
    assert "QueueUrls" not in listed


@pytest.mark.parametrize(("service", "operation", "parameters", "unsupported"), [
    ("ec2", "DescribeSnapshots", {"Filters": [{"Name": "status", "Values": ["completed"]}]}, None),
    ("ec2", "DescribeSnapshots", {"Filter": []}, "Filter"),
    ("ec2", "DescribeSnapshots", {"Filters": [{"Name": "status", "Value": "completed"}]}, None),  # bound as the SDK binds
    ("sqs", "SendMessage", {"QueueUrl": "q", "MessageBody": {"any": ["json"]}}, None),  # a string member takes any JSON
    ("sqs", "SendMessage", {"QueueUrl": "q", "MessageBody": "m", "MessageAttributes": {"free key": {}}}, None),
    ("dynamodb", "PutItem", {"TableName": "t", "Item": {"any attribute": {"S": "v"}}}, None),  # map keys are free
    ("dynamodb", "PutItem", {"TableName": "t", "Item": {"a": {"S": "v", "Q": "1"}}, "Items": []}, "Items"),
    ("dynamodb", "Query", {"TableName": "t", "KeyConditions": {"id": {"ComparisonOperator": "EQ"}},
                           "QueryFilter": {"n": {"ComparisonOperator": "EQ", "AttributeValueList": []}}}, None),
    ("stepfunctions", "StartExecution", {"StateMachineArn": "arn", "Input": "{}"}, None),  # PascalCase for camelCase
    ("stepfunctions", "StartExecution", {"stateMachineArn": "arn"}, "stateMachineArn"),
    ("bedrock-runtime", "Converse", {"ModelId": "m", "AdditionalModelRequestFields": {"anything": {"at": 1}}}, None),
])
def test_unsupported_field_is_one_no_member_takes(service: str, operation: str, parameters: dict[str, Any],
                                                   unsupported: str | None) -> None:
    """Docs, "Passing parameters to a service API": "The field Filter is not supported by Step Functions"
    for EC2's `Filters`: the request's own fields are judged; what a member holds is bound by `to_request`."""
    shape = SdkServices().model(service).operation_model(operation).input_shape
    assert unsupported_field(parameters, shape) == unsupported


def test_a_document_member_is_sent_as_it_is() -> None:
    """A `document` member (Bedrock's model-specific fields) takes any JSON: nothing of it is dropped."""
    shape = SdkServices().model("bedrock-runtime").operation_model("Converse").input_shape
    fields = {"top_k": 5, "nested": {"list": [1, {"x": None}]}}
    assert to_request({"ModelId": "m", "AdditionalModelRequestFields": fields}, shape) == {
        "modelId": "m", "additionalModelRequestFields": fields}


@pytest.mark.parametrize("attribute_names", [["All"], ["CreatedTimestamp", "LastModifiedTimestamp"]])
def test_queue_timestamps_are_whole_epoch_seconds(integrations: AwsServiceIntegrations, account: str,
                                                  attribute_names: list[str]) -> None:
    """SQS API reference, GetQueueAttributes: "the time when the queue was created in seconds (epoch time)"."""
    url = integrations.backends.client("sqs", account=account, region=REGION).create_queue(QueueName="q")["QueueUrl"]
    answer = integrations.answer(task_request("arn:aws:states:::aws-sdk:sqs:getQueueAttributes",
                                              {"QueueUrl": url, "AttributeNames": attribute_names}, account))
    stamps = {name: answer["Attributes"][name] for name in ("CreatedTimestamp", "LastModifiedTimestamp")}
    assert all(stamp.isdigit() for stamp in stamps.values()), stamps


# -- in an execution -----------------------------------------------------------------------------

def run(engine: Engine, definition: dict[str, Any], account: str, execution_input: Any = None) -> Execution:
    text = json.dumps(definition)
    execution = Execution(
        arn=f"arn:aws:states:{REGION}:{account}:execution:Machine:run", name="run",
        state_machine_arn=f"arn:aws:states:{REGION}:{account}:stateMachine:Machine", state_machine_name="Machine",
        machine=parse_definition(text), definition=text, input=json.dumps(execution_input or {}),
        start_date=NOW, account=account, region=REGION, role_arn=f"arn:aws:iam::{account}:role/r", type="STANDARD",
    )
    engine.start(execution)
    return execution


@pytest.fixture
def engine(integrations: AwsServiceIntegrations) -> Any:
    engine = Engine(Clock("auto", start=NOW), TaskResources([integrations]))
    yield engine
    engine.close()


def test_a_service_error_can_be_caught_by_its_name(engine: Engine, account: str) -> None:
    definition = {"StartAt": "Send", "States": {
        "Send": {"Type": "Task", "Resource": "arn:aws:states:::sqs:sendMessage",
                 "Parameters": {"QueueUrl": f"https://sqs.us-east-1.amazonaws.com/{account}/missing", "MessageBody": "x"},
                 "Catch": [{"ErrorEquals": ["SQS.QueueDoesNotExistException"], "Next": "Caught"}], "End": True},
        "Caught": {"Type": "Pass", "End": True}}}
    execution = run(engine, definition, account)
    assert engine.wait(execution, WAIT_LIMIT_SECONDS)
    assert execution.status == "SUCCEEDED"
    assert json.loads(execution.output)["Error"] == "SQS.QueueDoesNotExistException"
    assert [event["type"] for event in execution.history][2:5] == ["TaskScheduled", "TaskStarted", "TaskFailed"]


def test_wait_for_task_token_sends_then_waits_for_the_token(engine: Engine, integrations: AwsServiceIntegrations,
                                                            account: str) -> None:
    sqs = integrations.backends.client("sqs", account=account, region=REGION)
    queue_url = sqs.create_queue(QueueName="callbacks")["QueueUrl"]
    definition = {"StartAt": "Ask", "States": {"Ask": {
        "Type": "Task", "Resource": "arn:aws:states:::sqs:sendMessage.waitForTaskToken",
        "Parameters": {"QueueUrl": queue_url, "MessageBody": {"Token.$": "$$.Task.Token"}}, "End": True}}}
    execution = run(engine, definition, account)
    assert engine.run_until_idle(WAIT_LIMIT_SECONDS)
    assert execution.status == "RUNNING"
    token = json.loads(sqs.receive_message(QueueUrl=queue_url)["Messages"][0]["Body"])["Token"]
    engine.send_task_success(token, {"answer": 42})
    assert engine.wait(execution, WAIT_LIMIT_SECONDS)
    assert json.loads(execution.output) == {"answer": 42}
    assert "TaskSubmitted" in [event["type"] for event in execution.history]


# -- the SDK's names and value forms -----------------------------------------------------------------

@pytest.mark.parametrize(("model_name", "sdk_name"), [
    ("DynamoDB", "DynamoDb"), ("Secrets Manager", "SecretsManager"), ("SFN", "Sfn"), ("S3", "S3"), ("SQS", "Sqs"),
    ("EventBridge", "EventBridge"), ("CloudWatch Logs", "CloudWatchLogs"), ("ACM PCA", "AcmPca"),
    ("Elastic Load Balancing v2", "ElasticLoadBalancingV2"), ("KMSInvalidStateException", "KmsInvalidStateException"),
])
def test_pascal_case_follows_the_java_sdk(model_name: str, sdk_name: str) -> None:
    assert pascal_case(model_name) == sdk_name


@pytest.mark.parametrize(("shape", "exception"), [
    ("NoSuchKey", "NoSuchKeyException"), ("ResourceNotFoundException", "ResourceNotFoundException"),
    ("BucketAlreadyExists", "BucketAlreadyExistsException"), ("InternalServerFault", "InternalServerException"),
])
def test_sdk_v2_exception_names(shape: str, exception: str) -> None:
    assert sdk_v2_exception_name(shape) == exception


@pytest.mark.parametrize(("botocore_name", "sdk_name", "arn_name"), [
    ("dynamodb", "DynamoDb", "dynamodb"), ("stepfunctions", "Sfn", "sfn"), ("events", "EventBridge", "eventbridge"),
    ("logs", "CloudWatchLogs", "cloudwatchlogs"), ("secretsmanager", "SecretsManager", "secretsmanager"),
])
def test_service_names(botocore_name: str, sdk_name: str, arn_name: str) -> None:
    services = SdkServices()
    assert sdk_v2_service_name(services.model(botocore_name)) == sdk_name
    assert services.botocore_name(arn_name) == botocore_name


@pytest.mark.parametrize(("moment", "text"), [
    (datetime(2024, 5, 6, 7, 8, 9, tzinfo=timezone.utc), "2024-05-06T07:08:09Z"),
    (datetime(2024, 5, 6, 7, 8, 9, 120000, tzinfo=timezone.utc), "2024-05-06T07:08:09.120Z"),
    (datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=timezone.utc), "2024-05-06T07:08:09.123456Z"),
])
def test_timestamps_are_written_as_java_instants(moment: datetime, text: str) -> None:
    assert instant_text(moment) == text
