"""Real stacks (a SAM app, a synthesized CDK assembly, a plain CloudFormation template) loaded as they
are, and their machines run with their Python functions called for real: in-process and over HTTP."""

from __future__ import annotations

import json
import logging

import pytest
from helpers.stack_fixtures import CDK_ORDERS, CFN_MIXED, SAM_STOCK_TRADER, SERVERLESS_INVOICES, TERRAFORM_PLAN, TERRAFORM_STATE

from sfn_emulator.api import ExecutionRunner
from sfn_emulator.config import Settings
from sfn_emulator.runtime import Emulator


@pytest.mark.parametrize(("path", "machines"), [
    (SAM_STOCK_TRADER, {"StockTradingStateMachine": ("StockTradingStateMachine", "STANDARD")}),
    (CDK_ORDERS, {"OrderFlowA028A46E": ("OrderFlow", "STANDARD"), "RefundFlowFE67B7FA": ("RefundFlowFE67B7FA", "EXPRESS"),
                  "AuditFlow7EA94166": ("AuditFlow", "STANDARD")}),
    (CFN_MIXED, {"Flow": ("notify-then-bill", "STANDARD")}),
    (SERVERLESS_INVOICES, {"InvoiceDashflowDashdev": ("invoice-flow-dev", "STANDARD")}),
    (TERRAFORM_STATE, {"aws_sfn_state_machine.order_flow": ("tf-order-flow", "STANDARD")}),
], ids=["sam", "cdk", "cloudformation", "serverless", "terraform"])
def test_machines_are_named_by_their_name_property_else_their_logical_id(emulator: Emulator, path, machines) -> None:
    stack = emulator.load_stack(path)
    account = emulator.settings.account
    assert {key: (machine.name, machine.type) for key, machine in stack.state_machines.items()} == machines
    for machine in stack.state_machines.values():
        assert machine == f"arn:aws:states:us-east-1:{account}:stateMachine:{machine.name}"
        described = emulator.service.describe_state_machine(stateMachineArn=machine)
        assert described["type"] == machine.type


@pytest.mark.parametrize(("price", "side", "quantity"), [(30, "buy", "7"), (80, "sell", "2")])
def test_sam_stock_trader_runs_its_python_functions_and_records_the_trade(emulator: Emulator, runner: ExecutionRunner,
                                                                         price, side, quantity) -> None:
    stack = emulator.load_stack(SAM_STOCK_TRADER)
    result = runner.run(stack.state_machines["StockTradingStateMachine"], {"stock_price": price})
    result.assert_succeeded()
    assert result.visited_states == ["Check Stock Value", "Buy or Sell?", f"{side.capitalize()} Stock",
                                     "Record Transaction"]
    table = stack.resources["TransactionTable"].name
    dynamodb = emulator._moto_clients().client("dynamodb", account=emulator.settings.account, region="us-east-1")
    items = dynamodb.scan(TableName=table)["Items"]
    assert [(item["Type"]["S"], item["Price"]["N"], item["Quantity"]["N"]) for item in items] == [(side, str(price), quantity)]


def test_the_functions_of_a_stack_are_served_as_the_template_says(emulator: Emulator) -> None:
    sam, cdk, cfn = (emulator.load_stack(path) for path in (SAM_STOCK_TRADER, CDK_ORDERS, CFN_MIXED))
    served = {key: (function.runtime, function.handler, function.served_by)
              for stack in (sam, cdk, cfn) for key, function in stack.functions.items()}
    assert served == {
        "StockCheckerFunction": ("python3.12", "app.lambda_handler", "python"),
        "StockSellerFunction": ("python3.12", "app.lambda_handler", "python"),
        "StockBuyerFunction": ("python3.12", "app.lambda_handler", "python"),
        "Pricer59DBCCD5": ("python3.12", "app.handler", "python"),
        "Shipper2E385F7C": ("python3.12", "app.handler", "python"),
        "NotifyFunction": ("python3.12", "app.handler", "python"),
        "LegacyFunction": ("nodejs20.x", "index.handler", "none"),
    }
    timeouts = {key: emulator.functions.lookup(function, "us-east-1", emulator.settings.account)[0].timeout_seconds
                for stack in (sam, cdk, cfn) for key, function in stack.functions.items() if function.served_by == "python"}
    # SAM's Globals, CDK's Duration, and Lambda's default where the template gives none
    assert timeouts == {"StockCheckerFunction": 30, "StockSellerFunction": 30, "StockBuyerFunction": 30,
                        "Pricer59DBCCD5": 20, "Shipper2E385F7C": 20, "NotifyFunction": 3}


@pytest.mark.parametrize(("settings", "served_by"), [
    ({}, "none"),
    ({"lambda_endpoint": "http://127.0.0.1:9"}, "endpoint"),
], ids=["nothing", "lambda-endpoint"])
def test_a_function_of_another_runtime_is_served_by_the_endpoint_or_by_nothing(settings, served_by) -> None:
    with Emulator(Settings(account="210987654321", **settings)) as emulator:
        stack = emulator.load_stack(CFN_MIXED)
    assert stack.functions["LegacyFunction"].served_by == served_by


def test_a_function_given_a_mock_configuration_is_served_by_mock(tmp_path) -> None:
    mocks = tmp_path / "mocks.json"
    mocks.write_text(json.dumps({"StateMachines": {}, "MockedResponses": {}}))
    with Emulator(Settings(account="210987654322", mock_config=mocks)) as emulator:
        assert emulator.load_stack(CFN_MIXED).functions["LegacyFunction"].served_by == "mock"


def test_a_task_calling_a_function_nothing_serves_fails_as_aws_fails_a_missing_function(
        emulator: Emulator, runner: ExecutionRunner, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        stack = emulator.load_stack(CFN_MIXED)
    assert any("legacy-billing" in record.getMessage() and "nodejs20.x is not Python" in record.getMessage()
               for record in caplog.records)
    result = runner.run(stack.state_machines["Flow"], {"name": "Ada"})
    assert result.status == "FAILED"
    assert result.error == "Lambda.ResourceNotFoundException"
    assert "function:legacy-billing" in result.cause
    assert result.visited_states == ["Notify", "Bill"]


def test_each_function_sees_its_own_environment_and_layers_and_the_process_keeps_its_own(
        emulator: Emulator, runner: ExecutionRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CURRENCY", "USD")  # the process's own value: the function's wins inside its calls only
    stack = emulator.load_stack(CDK_ORDERS)
    pricer = emulator.functions.lookup(stack.functions["Pricer59DBCCD5"], "us-east-1", emulator.settings.account)[0]
    answer = pricer.handler({"orderId": "o-1", "items": [{"price": 4, "quantity": 3}]}, None)
    assert answer == {"orderId": "o-1", "total": 12, "currency": "EUR"}  # `money` comes from the layer
    import os

    assert os.environ["CURRENCY"] == "USD"
    queue_url = stack.resources["Shipments6E8A22F1"].url
    result = runner.run(stack.state_machines["RefundFlowFE67B7FA"], {"orderId": "o-1"}, type="EXPRESS")
    result.assert_succeeded()
    assert result.output == {"orderId": "o-1", "refunded": True, "queue": queue_url,
                             "function": stack.functions["Shipper2E385F7C"].name}


def test_the_stack_api_runs_with_the_returned_arn_and_finds_machines_by_name_or_logical_id(emulator: Emulator,
                                                                                           runner: ExecutionRunner) -> None:
    stack = emulator.load_stack(CFN_MIXED, {"Greeting": "Bonjour"})
    assert stack.state_machine("notify-then-bill") is stack.state_machine("Flow")
    with pytest.raises(KeyError, match="there are: Flow"):
        stack.state_machine("Nope")
    notify = emulator.functions.lookup(stack.functions["NotifyFunction"], "us-east-1", emulator.settings.account)[0]
    assert notify.handler({"name": "Ada"}, _Context())["message"] == "Bonjour, Ada"


class _Context:
    @staticmethod
    def get_remaining_time_in_millis() -> int:
        return 1000


def test_the_cdk_order_flow_over_http_saves_the_order_and_queues_the_shipment(sfn_emulator, sfn_client) -> None:
    stack = sfn_emulator.load_stack(CDK_ORDERS)
    execution = sfn_client.start_execution(stateMachineArn=stack.state_machines["OrderFlowA028A46E"],
                                           input=json.dumps({"orderId": "o-7", "items": [{"price": 5, "quantity": 2}]}))
    result = sfn_emulator.wait(execution["executionArn"])
    result.assert_succeeded()
    assert result.output["total"] == 10 and result.output["currency"] == "EUR"
    table = stack.resources["OrdersA9B65338"].name
    item = sfn_emulator.client("dynamodb").get_item(TableName=table, Key={"pk": {"S": "o-7"}, "sk": {"S": "ORDER"}})
    assert item["Item"]["total"] == {"N": "10"} and item["Item"]["status"] == {"S": "PRICED"}
    messages = sfn_emulator.client("sqs").receive_message(QueueUrl=stack.resources["Shipments6E8A22F1"].url)
    assert json.loads(messages["Messages"][0]["Body"])["orderId"] == "o-7"
    assert result.output["shipment"]["messageId"] == messages["Messages"][0]["MessageId"]
    refund = sfn_client.start_sync_execution(stateMachineArn=stack.state_machines["RefundFlowFE67B7FA"],
                                             input=json.dumps({"orderId": "o-7"}))
    assert refund["status"] == "SUCCEEDED"
    item = sfn_emulator.client("dynamodb").get_item(TableName=table, Key={"pk": {"S": "o-7"}, "sk": {"S": "ORDER"}})
    assert item["Item"]["status"] == {"S": "REFUNDED"}


def test_the_fixture_runs_a_loaded_machine_by_its_arn(sfn_emulator) -> None:
    stack = sfn_emulator.load_stack(SAM_STOCK_TRADER)
    result = sfn_emulator.run(stack.state_machines["StockTradingStateMachine"], {"stock_price": 50})
    result.assert_succeeded()
    assert result.visited_states[2] == "Buy Stock"


@pytest.mark.parametrize("path", [SERVERLESS_INVOICES, SERVERLESS_INVOICES.parent], ids=[".serverless", "service"])
def test_the_serverless_invoice_flow_runs_its_packaged_functions(emulator: Emulator, runner: ExecutionRunner, path) -> None:
    stack = emulator.load_stack(path)
    assert {key: (function.name, function.served_by) for key, function in stack.functions.items()} == {
        "RenderLambdaFunction": ("invoices-dev-render", "python"), "TotalLambdaFunction": ("invoices-dev-total", "python")}
    result = runner.run(stack.state_machines["InvoiceDashflowDashdev"],
                        {"items": [{"name": "tea", "price": 3}, {"name": "cake", "price": 4}]})
    result.assert_succeeded()
    assert result.output == {"invoice": "tea: 3\ncake: 4\ntotal: 7", "template": "plain",
                             "bucket": "invoices-dev-invoices"}
    sqs = emulator._moto_clients().client("sqs", account=emulator.settings.account, region="us-east-1")
    [message] = sqs.receive_message(QueueUrl=stack.resources["InvoiceQueue"].url)["Messages"]
    assert json.loads(message["Body"])["template"] == "plain"
    timeouts = {key: emulator.functions.lookup(function, "us-east-1", emulator.settings.account)[0].timeout_seconds
                for key, function in stack.functions.items()}
    assert timeouts == {"RenderLambdaFunction": 15, "TotalLambdaFunction": 20}


def test_a_terraform_state_runs_in_the_loading_account_with_its_zipped_function(sfn_emulator) -> None:
    stack = sfn_emulator.load_stack(TERRAFORM_STATE)
    assert stack.functions["aws_lambda_function.validate"] == \
        f"arn:aws:lambda:us-east-1:{sfn_emulator.account}:function:tf-validate"
    result = sfn_emulator.run(stack.state_machines["aws_sfn_state_machine.order_flow"], {"orderId": "o-3", "items": ["a"]})
    result.assert_succeeded()
    assert result.visited_states == ["Validate", "Save", "Ship", "Tell"]
    assert result.output == {"orderId": "o-3", "items": 1, "table": "tf-orders"}
    item = sfn_emulator.client("dynamodb").get_item(TableName="tf-orders", Key={"orderId": {"S": "o-3"}})["Item"]
    assert item["status"] == {"S": "VALID"}
    [message] = sfn_emulator.client("sqs").receive_message(QueueUrl=stack.resources["aws_sqs_queue.shipments"].url)["Messages"]
    assert json.loads(message["Body"])["orderId"] == "o-3"
    failed = sfn_emulator.run(stack.state_machines["aws_sfn_state_machine.order_flow"], {"orderId": "o-4", "items": []})
    assert (failed.status, failed.error) == ("FAILED", "ValueError")


def test_a_terraform_plan_names_what_is_known_only_after_apply(emulator: Emulator) -> None:
    stack = emulator.load_stack(TERRAFORM_PLAN)
    assert stack.state_machines == {}
    assert stack.functions["aws_lambda_function.validate"].served_by == "python"
    assert {key: [problem.what for problem in problems] for key, problems in stack.unresolved.items()} == {
        "aws_sfn_state_machine.order_flow": [
            "aws_sfn_state_machine.order_flow.role_arn is known only after apply: load `terraform show -json` of the state",
            "aws_sfn_state_machine.order_flow.definition is known only after apply: load `terraform show -json` of the "
            "state"]}
    assert {problem.where.line for problems in stack.unresolved.values() for problem in problems} == {None}


def test_a_cdk_nested_stack_is_loaded_and_its_outputs_reach_the_parent(emulator: Emulator, runner: ExecutionRunner) -> None:
    stack = emulator.load_stack(CDK_ORDERS)
    audit_queue = stack.resources["AuditLogA5B7094E"]
    assert audit_queue.stack == "OrdersStack-AuditNestedStackAuditNestedStackResourceF69BD105"
    assert stack.outputs["AuditQueueUrl"] == audit_queue.url  # Fn::GetAtt NestedStack.Outputs.X
    result = runner.run(stack.state_machines["AuditFlow7EA94166"], {"who": "ada", "did": "refund"})
    result.assert_succeeded()
    sqs = emulator._moto_clients().client("sqs", account=emulator.settings.account, region="us-east-1")
    [message] = sqs.receive_message(QueueUrl=audit_queue.url)["Messages"]
    assert json.loads(message["Body"]) == {"who": "ada", "did": "refund"}
