"""The application under test: a Lambda handler the state machine calls, and code that starts checkouts."""

from __future__ import annotations

import json
from typing import Any

import boto3


class CardDeclined(Exception):
    """Raised by the handler; Step Functions sees the error name "CardDeclined"."""


def charge_card(event: dict[str, Any], context: Any) -> dict[str, str]:
    """The `charge-card` Lambda function."""
    if event["card"] == "0000":
        raise CardDeclined(f"card ending {event['card']} was declined")
    return {"chargeId": f"ch-{event['orderId']}"}


def start_checkout(state_machine_arn: str, order: dict[str, Any]) -> str:
    """Application code: starts a checkout with its own boto3 client (no endpoint_url: AWS in production)."""
    client = boto3.client("stepfunctions")
    return client.start_execution(stateMachineArn=state_machine_arn, input=json.dumps(order))["executionArn"]
