"""Stacks of every format, built for real (see fixtures/README.md), and an in-process emulator to load them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sfn_emulator.api import ExecutionRunner, in_process_runner
from sfn_emulator.config import Settings
from sfn_emulator.runtime import Emulator

FIXTURES = Path(__file__).parent / "fixtures"
SAM_STOCK_TRADER = FIXTURES / "sam-stock-trader" / "template.yaml"
CDK_ORDERS = FIXTURES / "cdk-orders" / "cdk.out"
CFN_MIXED = FIXTURES / "cfn-mixed" / "template.json"
SERVERLESS_INVOICES = FIXTURES / "serverless-invoices" / ".serverless"
TERRAFORM_STATE = FIXTURES / "terraform-orders" / "show-state.json"
TERRAFORM_PLAN = FIXTURES / "terraform-orders" / "show-plan.json"


@pytest.fixture
def emulator(request: pytest.FixtureRequest) -> Iterator[Emulator]:
    """An in-process emulator of its own (its own account, so moto's process-wide backends are not shared)."""
    account = f"{abs(hash(request.node.nodeid)) % 10**12:012d}"
    with Emulator(Settings(account=account)) as instance:
        yield instance


@pytest.fixture
def runner(emulator: Emulator) -> ExecutionRunner:
    return in_process_runner(emulator, role_arn=f"arn:aws:iam::{emulator.settings.account}:role/test")
