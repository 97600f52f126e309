"""An in-process control plane over a real engine whose clock moves only when a test moves it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from helpers.service_world import ACCOUNT, REGION, START

from sfn_emulator.clock.virtual_clock import Clock
from sfn_emulator.engine import Engine
from sfn_emulator.service import StepFunctionsService
from sfn_emulator.service.activities import RegisteredActivities
from sfn_emulator.service.registry import Registry


@pytest.fixture
def clock() -> Clock:
    return Clock(mode="manual", start=START)


@pytest.fixture
def registry(clock: Clock) -> Registry:
    return Registry(clock.now, default_account=ACCOUNT, default_region=REGION)


@pytest.fixture
def engine(clock: Clock, registry: Registry) -> Iterator[Engine]:
    engine = Engine(clock, activities=RegisteredActivities(registry))
    yield engine
    engine.close()


@pytest.fixture
def service(engine: Engine, registry: Registry) -> StepFunctionsService:
    return StepFunctionsService(engine, registry)
