"""Every intrinsic function, condition, parameter and pseudo parameter, written in short-form YAML as
templates write them and resolved by loading the template: each case is one Output, and what cannot
be resolved is reported with its file and line."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest

from sfn_emulator.config import Settings
from sfn_emulator.runtime import Emulator

ACCOUNT = "314159265358"
REGION = "eu-west-1"
STACK = "intrinsics"

RESOURCES = """\
AWSTemplateFormatVersion: '2010-09-09'
Parameters:
  Env: {Type: String, Default: dev, AllowedValues: [dev, prod]}
  Subnets: {Type: CommaDelimitedList, Default: "a,b,c"}
  Size: {Type: Number, Default: 3}
  Owner: {Type: String}
Conditions:
  IsProd: !Equals [!Ref Env, prod]
  IsDev: !Not [!Condition IsProd]
  DevOfSize3: !And [!Condition IsDev, !Equals [!Ref Size, 3]]
  ProdOrAlways: !Or [!Condition IsProd, !Equals [x, x]]
  ProdOnly: !Equals [!Ref Env, prod]
  LoopA: !Condition LoopB
  LoopB: !Condition LoopA
Mappings:
  Images: {eu-west-1: {Ami: ami-0eu}, us-east-1: {Ami: ami-0us}}
Resources:
  Flow:
    Type: AWS::StepFunctions::StateMachine
    Properties:
      DefinitionString: !Sub '{"StartAt": "P", "States": {"P": {"Type": "Pass", "Result": "${Queue.QueueName}", "End": true}}}'
      LoggingConfiguration:
        Level: ALL
        IncludeExecutionData: true
        Destinations: [{CloudWatchLogsLogGroup: {LogGroupArn: !GetAtt Logs.Arn}}]
      TracingConfiguration: {Enabled: true}
      Tags: [{Key: team, Value: !Ref Env}]
  Logs: {Type: AWS::Logs::LogGroup, Properties: {LogGroupName: /aws/vendedlogs/states/flow}}
  Queue: {Type: AWS::SQS::Queue, Properties: {QueueName: orders}}
  Fifo: {Type: AWS::SQS::Queue, Properties: {FifoQueue: true}}
  Topic: {Type: AWS::SNS::Topic, Properties: {TopicName: events}}
  Table:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: orders-table
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions: [{AttributeName: pk, AttributeType: S}, {AttributeName: status, AttributeType: S}]
      KeySchema: [{AttributeName: pk, KeyType: HASH}]
      GlobalSecondaryIndexes:
        - {IndexName: byStatus, KeySchema: [{AttributeName: status, KeyType: HASH}], Projection: {ProjectionType: ALL}}
      StreamSpecification: {StreamViewType: NEW_IMAGE}
  Bucket: {Type: AWS::S3::Bucket, Properties: {BucketName: order-files}}
  Bus: {Type: AWS::Events::EventBus, Properties: {Name: orders-bus}}
  Secret: {Type: AWS::SecretsManager::Secret, Properties: {Name: db-password, SecretString: s3cret}}
  Fn:
    Type: AWS::Lambda::Function
    Properties: {FunctionName: pricer, Runtime: python3.12, Handler: index.handler, Code: {ZipFile: "def handler(e, c): return e"}}
  ProdQueue: {Type: AWS::SQS::Queue, Condition: ProdOnly, Properties: {QueueName: prod-only}}
  Left:
    Type: AWS::SQS::Queue
    Properties: {RedrivePolicy: {deadLetterTargetArn: !GetAtt Right.Arn, maxReceiveCount: 2}}
  Right:
    Type: AWS::SQS::Queue
    Properties: {RedrivePolicy: {deadLetterTargetArn: !GetAtt Left.Arn, maxReceiveCount: 2}}
Outputs:
"""

# (output name, the value as written, what it resolves to)
RESOLVED = [
    ("RefParameter", "!Ref Env", "dev"),
    ("RefListParameter", "!Join ['+', !Ref Subnets]", "a+b+c"),
    ("RefNumberParameter", "!Ref Size", "3"),
    ("AccountId", "!Ref AWS::AccountId", ACCOUNT),
    ("Region", "!Ref AWS::Region", REGION),
    ("Partition", "!Ref AWS::Partition", "aws"),
    ("StackName", "!Ref AWS::StackName", STACK),
    ("URLSuffix", "!Ref AWS::URLSuffix", "amazonaws.com"),
    ("NoValue", "!Join [',', [a, !If [IsProd, b, !Ref AWS::NoValue], c]]", "a,c"),
    ("RefQueue", "!Ref Queue", f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT}/orders"),
    ("QueueArn", "!GetAtt Queue.Arn", f"arn:aws:sqs:{REGION}:{ACCOUNT}:orders"),
    ("QueueName", "!GetAtt [Queue, QueueName]", "orders"),
    ("QueueUrl", "!GetAtt Queue.QueueUrl", f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT}/orders"),
    ("RefTopic", "!Ref Topic", f"arn:aws:sns:{REGION}:{ACCOUNT}:events"),
    ("TopicName", "!GetAtt Topic.TopicName", "events"),
    ("TopicArn", "!GetAtt Topic.TopicArn", f"arn:aws:sns:{REGION}:{ACCOUNT}:events"),
    ("RefTable", "!Ref Table", "orders-table"),
    ("TableArn", "!GetAtt Table.Arn", f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/orders-table"),
    ("RefBucket", "!Ref Bucket", "order-files"),
    ("BucketArn", "!GetAtt Bucket.Arn", "arn:aws:s3:::order-files"),
    ("RefBus", "!Ref Bus", "orders-bus"),
    ("BusArn", "!GetAtt Bus.Arn", f"arn:aws:events:{REGION}:{ACCOUNT}:event-bus/orders-bus"),
    ("RefFunction", "!Ref Fn", "pricer"),
    ("FunctionArn", "!GetAtt Fn.Arn", f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:pricer"),
    ("RefMachine", "!Ref Flow", f"arn:aws:states:{REGION}:{ACCOUNT}:stateMachine:Flow"),
    ("MachineName", "!GetAtt Flow.Name", "Flow"),
    ("Sub", "!Sub '${AWS::Region}/${Queue.QueueName}/${!Literal}'", f"{REGION}/orders/${{Literal}}"),
    ("SubWithVariables", "!Sub ['${Word}-${Env}', {Word: !Select [1, !Ref Subnets]}]", "b-dev"),
    ("Join", "!Join [':', [x, !Ref Env, !GetAtt Topic.TopicName]]", "x:dev:events"),
    ("Select", "!Select [2, [p, q, r]]", "r"),
    ("Split", "!Select [1, !Split ['/', 'a/b/c']]", "b"),
    ("IfTrue", "!If [IsDev, on-path, off-path]", "on-path"),
    ("IfFalse", "!If [IsProd, on-path, off-path]", "off-path"),
    ("And", "!If [DevOfSize3, on-path, off-path]", "on-path"),
    ("Or", "!If [ProdOrAlways, on-path, off-path]", "on-path"),
    ("FindInMap", "!FindInMap [Images, !Ref AWS::Region, Ami]", "ami-0eu"),
    ("ImportValue", "!ImportValue shared-queue-name", "shared-queue"),
    ("Base64", "!Base64 'hello, world'", base64.b64encode(b"hello, world").decode()),
    ("GetAZs", "!Select [0, !GetAZs '']", f"{REGION}a"),
    ("LongForm", "{'Fn::Join': ['', [{'Ref': 'Env'}, {'Fn::GetAtt': ['Queue', 'QueueName']}]]}", "devorders"),
]

# (output name, the value as written, what the report says)
UNRESOLVED = [
    ("UnknownRef", "!Ref Nope", "Ref Nope: no parameter or resource of that name"),
    ("UnknownResource", "!GetAtt Ghost.Arn", "Fn::GetAtt Ghost.Arn: no resource Ghost"),
    ("UnknownAttribute", "!GetAtt Queue.Colour", "does not know the attribute Colour of AWS::SQS::Queue"),
    ("UnknownIntrinsic", "{'Fn::Frobnicate': [1]}", "unknown intrinsic function Fn::Frobnicate"),
    ("UnknownExport", "!ImportValue nobody-exports-this", "Fn::ImportValue nobody-exports-this: no loaded stack exports it"),
    ("MissingMapping", "!FindInMap [Images, ap-south-1, Ami]", "Fn::FindInMap: Mappings has no Images.ap-south-1.Ami"),
    ("SelectOutOfRange", "!Select [5, [a, b]]", "Fn::Select: index 5 is out of the list's 2 items"),
    ("ParameterWithoutValue", "!Ref Owner", "parameter Owner has no value: give it with --stack-parameter Owner=VALUE"),
    ("UnknownCondition", "!If [Nowhere, a, b]", "condition 'Nowhere' is not defined in Conditions"),
    ("CircularCondition", "!If [LoopA, a, b]", "circular reference between conditions: LoopA -> LoopB -> LoopA"),
    ("Macro", "{'Fn::Transform': {Name: 'AWS::Include'}}", "the macro AWS::Include (Fn::Transform) runs only in CloudFormation"),
    ("CircularResources", "!GetAtt Left.Arn", "circular reference: Left -> Right -> Left"),
    ("ResourceOfFalseCondition", "!Ref ProdQueue", "ProdQueue is not created: its condition ProdOnly is not true"),
    ("SubOfUnknown", "!Sub '${Missing}'", "Ref Missing: no parameter or resource of that name"),
]

EXPORTING = """\
Resources:
  Shared: {Type: AWS::SQS::Queue, Properties: {QueueName: shared-queue}}
  ExportingFlow:
    Type: AWS::StepFunctions::StateMachine
    Properties: {Definition: {StartAt: P, States: {P: {Type: Pass, End: true}}}}
Outputs:
  SharedName: {Value: !GetAtt Shared.QueueName, Export: {Name: shared-queue-name}}
"""


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory):
    directory = tmp_path_factory.mktemp("stacks")
    exporting = directory / "exporting" / "template.yaml"
    exporting.parent.mkdir()
    exporting.write_text(EXPORTING)
    template = directory / STACK / "template.yaml"
    template.parent.mkdir()
    outputs = "".join(f"  {name}:\n    Value: {value}\n" for name, value, _ in RESOLVED + UNRESOLVED)
    template.write_text(RESOURCES + outputs)
    with Emulator(Settings(account=ACCOUNT, region=REGION)) as emulator:
        emulator.load_stack(exporting)
        yield template, emulator.load_stack(template), emulator


@pytest.mark.parametrize(("name", "written", "expected"), RESOLVED, ids=[case[0] for case in RESOLVED])
def test_an_intrinsic_resolves_as_cloudformation_resolves_it(loaded, name, written, expected) -> None:
    _, stack, _ = loaded
    assert stack.outputs[name] == expected
    assert f"Outputs.{name}" not in stack.unresolved


@pytest.mark.parametrize(("name", "written", "what"), UNRESOLVED, ids=[case[0] for case in UNRESOLVED])
def test_what_cannot_be_resolved_is_reported_where_it_was_written(loaded, name, written, what) -> None:
    template, stack, _ = loaded
    problems = [problem for problems in stack.unresolved.values() for problem in problems if what in problem.what]
    assert problems, f"nothing reported {what!r}: {stack.unresolved}"
    lines = template.read_text().splitlines()
    output_line = lines.index(f"  {name}:") + 1
    problem = next((problem for problem in problems if problem.where.path.startswith(f"Outputs.{name}")), problems[0])
    assert problem.where.file == str(template)
    assert problem.where.line is not None
    if problem.where.path.startswith(f"Outputs.{name}"):
        assert output_line <= problem.where.line <= output_line + 1
    else:  # reported where the resource or condition itself was written
        assert re.search(r"\b(Left|Right|LoopA|LoopB|ProdQueue|Owner)\b", lines[problem.where.line - 1])
    assert isinstance(stack.outputs[name], str) and stack.outputs[name].startswith("<unresolved")


def test_resources_are_made_in_moto_with_the_names_definitions_use(loaded) -> None:
    _, stack, _ = loaded
    made = {key: (resource.type, resource.name) for key, resource in stack.resources.items()}
    assert made["Queue"] == ("AWS::SQS::Queue", "orders")
    assert made["Fifo"][1].startswith(f"{STACK}-Fifo-") and made["Fifo"][1].endswith(".fifo")
    assert made["Table"] == ("AWS::DynamoDB::Table", "orders-table")
    assert made["Secret"][1] == "db-password" and re.fullmatch(
        rf"arn:aws:secretsmanager:{REGION}:{ACCOUNT}:secret:db-password-\w{{6}}", stack.resources["Secret"].arn)
    assert {"Topic", "Bucket", "Bus"} <= set(made)
    assert "ProdQueue" not in made
    assert list(stack.state_machines) == ["Flow"]


def test_a_table_has_its_keys_indexes_and_stream(loaded) -> None:
    _, stack, _ = loaded
    from sfn_emulator.resources.aws.backends import MotoBackends

    table = MotoBackends().client("dynamodb", account=ACCOUNT, region=REGION).describe_table(TableName="orders-table")["Table"]
    assert table["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"}]
    assert [index["IndexName"] for index in table["GlobalSecondaryIndexes"]] == ["byStatus"]
    assert table["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}


def test_a_parameter_given_on_loading_overrides_its_default_and_flips_conditions(tmp_path: Path) -> None:
    template = tmp_path / "params" / "template.yaml"
    template.parent.mkdir()
    template.write_text(RESOURCES.split("Resources:")[0] + EXPORTING.replace("shared-queue", "q") +
                        "  Chosen: {Value: !If [IsProd, prod-path, dev-path]}\n"
                        "  Stage: {Value: !Ref Env}\n")
    with Emulator(Settings(account="271828182845")) as emulator:
        stack = emulator.load_stack(template, {"Env": "prod", "Owner": "ops"})
        refused = emulator.load_stack(template, {"params.Env": "qa", "Owner": "ops"})
    assert (stack.outputs["Chosen"], stack.outputs["Stage"]) == ("prod-path", "prod")
    assert [problem.what for problem in refused.unresolved["Parameters.Env"]] == [
        "parameter Env: 'qa' is not one of its AllowedValues dev, prod"]


def test_a_machine_keeps_its_logging_tracing_and_tags(loaded) -> None:
    _, stack, emulator = loaded
    from sfn_emulator.resources.aws.backends import MotoBackends

    machine = stack.state_machines["Flow"]
    described = emulator.service.describe_state_machine(stateMachineArn=machine)
    assert described["loggingConfiguration"] == {
        "level": "ALL", "includeExecutionData": True,
        "destinations": [{"cloudWatchLogsLogGroup": {
            "logGroupArn": f"arn:aws:logs:{REGION}:{ACCOUNT}:log-group:/aws/vendedlogs/states/flow:*"}}]}
    assert described["tracingConfiguration"] == {"enabled": True}
    assert emulator.service.list_tags_for_resource(resourceArn=machine)["tags"] == [{"key": "team", "value": "dev"}]
    groups = MotoBackends().client("logs", account=ACCOUNT, region=REGION).describe_log_groups()["logGroups"]
    assert "/aws/vendedlogs/states/flow" in [group["logGroupName"] for group in groups]


def test_a_resource_whose_condition_is_false_is_not_made_and_unresolved_only_where_referred_to(tmp_path: Path) -> None:
    template = tmp_path / "alarms" / "template.yaml"
    template.parent.mkdir()
    template.write_text("Parameters:\n  Env: {Type: String, Default: dev}\nConditions:\n  IsProd: !Equals [!Ref Env, prod]\n"
                        "Resources:\n  Pager: {Type: AWS::SNS::Topic, Condition: IsProd, Properties: {TopicName: pager}}\n"
                        + EXPORTING.split("Resources:\n")[1].split("Outputs:")[0])
    with Emulator(Settings(account="161803398874")) as emulator:
        development = emulator.load_stack(template)
        production = emulator.load_stack(template, {"Env": "prod"})
    assert (development.unresolved, list(development.resources)) == ({}, ["Shared"])
    assert production.resources["Pager"].name == "pager"
