"""In-process mode: the application's own boto3 clients (no endpoint_url) reach the emulator, with no
server and no socket: the fastest way to test code that starts executions."""

from pathlib import Path

import boto3
import pytest

import checkout
from sfn_emulator.config import Settings
from sfn_emulator.inprocess import intercept
from sfn_emulator.runtime import Emulator

CHECKOUT = Path(__file__).parent / "fixtures" / "Checkout.asl.json"
ORDER = {"orderId": "o-3", "card": "4242"}


def test_the_application_starts_a_checkout(sfn_emulator_inprocess):
    sfn_emulator_inprocess.register("charge-card", checkout.charge_card)
    machine_arn = sfn_emulator_inprocess.create_state_machine("fixtures/Checkout.asl.json")
    execution_arn = checkout.start_checkout(machine_arn, ORDER)
    sfn_emulator_inprocess.wait(execution_arn).assert_succeeded()


def test_without_the_plugin(monkeypatch: pytest.MonkeyPatch):
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                        "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)
    with Emulator(Settings()) as local, intercept(local):
        local.functions.register("charge-card", checkout.charge_card)
        sfn = boto3.client("stepfunctions")
        machine = sfn.create_state_machine(name="Checkout", definition=CHECKOUT.read_text(),
                                           roleArn="arn:aws:iam::123456789012:role/checkout")
        execution_arn = checkout.start_checkout(machine["stateMachineArn"], ORDER)
        local.clock.run_until_idle()
        assert sfn.describe_execution(executionArn=execution_arn)["status"] == "SUCCEEDED"
