"""Names the control-plane tests share: a fixed start instant, an account, a role, small definitions.

Kept out of conftest.py so test modules import them by a unique module name."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

from helpers.paths import FIXTURES_ROOT

from sfn_emulator.engine import Engine

FIXTURES = FIXTURES_ROOT / "service"
START = datetime(2024, 5, 1, 12, 0, tzinfo=timezone.utc)
ACCOUNT = "123456789012"
REGION = "us-east-1"
ROLE = "arn:aws:iam::123456789012:role/sfn-role"
PASS = json.dumps({"StartAt": "A", "States": {"A": {"Type": "Pass", "Result": {"greeting": "hello"}, "End": True}}})
PASS_OTHER = json.dumps({"StartAt": "A", "States": {"A": {"Type": "Pass", "Result": 2, "End": True}}})
WAIT = json.dumps({"StartAt": "Hold", "States": {"Hold": {"Type": "Wait", "Seconds": 3600, "End": True}}})
FAIL = json.dumps({"StartAt": "F", "States": {"F": {"Type": "Fail", "Error": "Boom", "Cause": "it broke"}}})


def fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text())


def machine_arn(name: str, region: str = REGION, account: str = ACCOUNT) -> str:
    return f"arn:aws:states:{region}:{account}:stateMachine:{name}"



def settle(engine: Engine) -> None:
    """Let every execution run as far as it can at the current time."""
    assert engine.run_until_idle(timeout=10)
