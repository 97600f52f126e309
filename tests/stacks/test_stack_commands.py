"""The command line with stacks: `stack show` (its JSON document and exit codes), `run` and `validate`
with `--stack --state-machine`, and `serve --stack` answering boto3 over HTTP (SFN_EMULATOR_STACKS too)."""

from __future__ import annotations

import json
import os

import boto3
import pytest
from botocore.config import Config
from helpers.stack_fixtures import CDK_ORDERS, CFN_MIXED, SAM_STOCK_TRADER
from helpers.real_endpoints import emulator_process

from sfn_emulator.api import ExecutionRunner
from sfn_emulator.cli.main import main
from sfn_emulator_plugins.pytest_emulator import RemoteClock


def test_stack_show_prints_machines_functions_resources_and_nothing_unresolved(capsys) -> None:
    assert main(["stack", "show", str(SAM_STOCK_TRADER), "--account", "111122223333"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert set(shown) == {"state_machines", "functions", "resources", "unresolved", "outputs"}
    assert shown["state_machines"]["StockTradingStateMachine"] == {
        "arn": "arn:aws:states:us-east-1:111122223333:stateMachine:StockTradingStateMachine",
        "name": "StockTradingStateMachine", "type": "STANDARD", "stack": "sam-stock-trader",
        "definition_source": str(SAM_STOCK_TRADER.parent / "statemachine" / "stock_trader.asl.json"),
    }
    assert {key: function["served_by"] for key, function in shown["functions"].items()} == {
        "StockCheckerFunction": "python", "StockSellerFunction": "python", "StockBuyerFunction": "python"}
    assert shown["resources"]["TransactionTable"]["type"] == "AWS::DynamoDB::Table"
    assert shown["unresolved"] == []
    assert shown["outputs"]["StockTradingStateMachineArn"] == shown["state_machines"]["StockTradingStateMachine"]["arn"]


def test_stack_show_exits_1_and_names_file_and_line_of_what_is_unresolved(tmp_path, capsys) -> None:
    template = tmp_path / "template.yaml"
    template.write_text("Parameters:\n  Stage: {Type: String}\nResources:\n  Flow:\n"
                        "    Type: AWS::StepFunctions::StateMachine\n    Properties:\n"
                        "      StateMachineName: !Sub 'flow-${Stage}'\n"
                        "      Definition: {StartAt: P, States: {P: {Type: Pass, End: true}}}\n")
    assert main(["stack", "show", str(template)]) == 1
    shown = json.loads(capsys.readouterr().out)
    assert shown["unresolved"] == [{"logical_id": "Parameters.Stage", "file": str(template), "line": 2,
                                    "path": "Parameters.Stage",
                                    "what": "parameter Stage has no value: give it with --stack-parameter Stage=VALUE"}]
    assert main(["stack", "show", str(template), "--stack-parameter", "Stage=prod"]) == 0
    assert json.loads(capsys.readouterr().out)["state_machines"]["Flow"]["name"] == "flow-prod"


@pytest.mark.parametrize(("arguments", "exit_code", "printed"), [
    (["run", "--stack", str(SAM_STOCK_TRADER), "--state-machine", "StockTradingStateMachine",
      "--input", '{"stock_price": 90}'], 0, "Sell Stock"),
    (["run", "--stack", str(CFN_MIXED), "--state-machine", "notify-then-bill", "--input", '{"name": "Ada"}'],
     1, "Lambda.ResourceNotFoundException"),
    (["run", "--stack", str(CFN_MIXED), "--state-machine", "Nope"], 2, "no state machine 'Nope' in the stack"),
    (["run", "--stack", str(CFN_MIXED)], 2, "--stack needs --state-machine"),
    (["run", str(CFN_MIXED), "--stack", str(CFN_MIXED), "--state-machine", "Flow"], 2, "not both"),
    (["validate", "--stack", str(CDK_ORDERS), "--state-machine", "OrderFlow"], 0, "OrderFlow: valid"),
    (["validate", "--stack", str(CDK_ORDERS), "--state-machine", "RefundFlowFE67B7FA"], 0, "valid"),
    (["validate"], 2, "give a DEFINITION file"),
], ids=["run-sam", "run-missing-function", "run-unknown-machine", "run-without-machine", "run-both",
        "validate-cdk-by-name", "validate-cdk-by-logical-id", "validate-nothing"])
def test_run_and_validate_take_a_stack_and_a_state_machine(capsys, arguments, exit_code, printed) -> None:
    assert main(arguments) == exit_code
    captured = capsys.readouterr()
    assert printed in captured.out + captured.err


def test_serve_loads_every_stack_and_answers_boto3_over_http() -> None:
    paths = os.pathsep.join([str(SAM_STOCK_TRADER), str(CDK_ORDERS), str(CFN_MIXED)])
    environment_before = os.environ.get("SFN_EMULATOR_STACKS")
    os.environ["SFN_EMULATOR_STACKS"] = paths
    try:
        with emulator_process("--stack-parameter", "Greeting=Hej") as url:
            sfn = boto3.client("stepfunctions", endpoint_url=url, region_name="us-east-1", aws_access_key_id="test",
                               aws_secret_access_key="test", config=Config(inject_host_prefix=False))
            names = sorted(machine["name"] for machine in sfn.list_state_machines()["stateMachines"])
            assert names == ["AuditFlow", "OrderFlow", "RefundFlowFE67B7FA", "StockTradingStateMachine", "notify-then-bill"]
            arn = next(machine["stateMachineArn"] for machine in sfn.list_state_machines()["stateMachines"]
                       if machine["name"] == "StockTradingStateMachine")
            execution = sfn.start_execution(stateMachineArn=arn, input='{"stock_price": 10}')
            runner = ExecutionRunner(sfn, RemoteClock(url), role_arn="arn:aws:iam::123456789012:role/test")
            runner.wait(execution["executionArn"]).assert_succeeded()
            dynamodb = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1", aws_access_key_id="test",
                                    aws_secret_access_key="test")
            table = next(name for name in dynamodb.list_tables()["TableNames"] if "TransactionTable" in name)
            assert dynamodb.scan(TableName=table)["Items"][0]["Type"] == {"S": "buy"}
    finally:
        if environment_before is None:
            os.environ.pop("SFN_EMULATOR_STACKS", None)
        else:
            os.environ["SFN_EMULATOR_STACKS"] = environment_before
