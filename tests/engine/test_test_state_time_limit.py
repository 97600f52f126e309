"""TestState's time limit: "If the execution of a state exceeds this duration, it fails with the
States.Timeout error." (API reference, TestState) -- an answer, not a server error."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

import pytest

from sfn_emulator.asl.parser import parse_single_state
from sfn_emulator.config import Settings
from sfn_emulator.engine.single_state import run_single_state
from sfn_emulator.runtime import Emulator

LIMIT_SECONDS = 0.2  # the limit given to the attempt; the function below never returns within it


@pytest.fixture
def emulator() -> Iterator[Emulator]:
    released = threading.Event()
    with Emulator(Settings()) as instance:
        instance.functions.register("stuck", lambda event, context: released.wait() and "released")
        yield instance
        released.set()


def test_a_state_running_past_the_limit_fails_with_states_timeout(emulator: Emulator) -> None:
    state = parse_single_state(json.dumps({"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
                                           "Parameters": {"FunctionName": "stuck"}, "End": True}))
    answer = run_single_state(emulator.engine, state, "{}", {}, role_arn="arn:aws:iam::123456789012:role/r",
                            account="123456789012", region="us-east-1", timeout=LIMIT_SECONDS)
    assert answer == {"status": "FAILED", "error": "States.Timeout"}
