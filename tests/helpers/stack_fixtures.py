"""The stacks of fixtures/stacks, built for real by the tools of each format (see its README)."""

from __future__ import annotations

from helpers.paths import FIXTURES_ROOT

FIXTURES = FIXTURES_ROOT / "stacks"
SAM_STOCK_TRADER = FIXTURES / "sam-stock-trader" / "template.yaml"
CDK_ORDERS = FIXTURES / "cdk-orders" / "cdk.out"
CFN_MIXED = FIXTURES / "cfn-mixed" / "template.json"
SERVERLESS_INVOICES = FIXTURES / "serverless-invoices" / ".serverless"
TERRAFORM_STATE = FIXTURES / "terraform-orders" / "show-state.json"
TERRAFORM_PLAN = FIXTURES / "terraform-orders" / "show-plan.json"
