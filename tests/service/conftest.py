"""An in-process control plane over a real engine whose clock moves only when a test moves it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from helpers.service_world import ACCOUNT, REGION, START

from sfn_emulator.clock.virtual_clock import Clock
from sfn_emulator.engine import Engine
from sfn_emulator.service import StepFunctionsService


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
