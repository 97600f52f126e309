"""An in-process control plane over a real engine whose clock moves only when a test moves it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from emulator.clock import Clock
from emulator.engine import Engine
from emulator.service import StepFunctionsService

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "service"
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


@pytest.fixture
def clock() -> Clock:
    return Clock(mode="manual", start=START)


@pytest.fixture
def engine(clock: Clock) -> Iterator[Engine]:
    engine = Engine(clock)
    yield engine
    engine.close()


@pytest.fixture
def service(engine: Engine) -> StepFunctionsService:
    return StepFunctionsService(engine, default_account=ACCOUNT, default_region=REGION)


def settle(engine: Engine) -> None:
    """Let every execution run as far as it can at the current time."""
    assert engine.run_until_idle(timeout=10)
