"""The stacks of tests/stacks/fixtures, built for real by the tools of each format (see its README)."""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "stacks" / "fixtures"
SAM_STOCK_TRADER = FIXTURES / "sam-stock-trader" / "template.yaml"
CDK_ORDERS = FIXTURES / "cdk-orders" / "cdk.out"
CFN_MIXED = FIXTURES / "cfn-mixed" / "template.json"
SERVERLESS_INVOICES = FIXTURES / "serverless-invoices" / ".serverless"
TERRAFORM_STATE = FIXTURES / "terraform-orders" / "show-state.json"
TERRAFORM_PLAN = FIXTURES / "terraform-orders" / "show-plan.json"
