"""SWF clients: over HTTP on the session's server (auto clock), and in-process on an emulator of
the test's own with a manual clock."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from helpers.swf_workers import new_domain, register_basics, swf_client

from sfn_emulator.config import Settings


@pytest.fixture
def swf(emulator_server: Any) -> Any:
    return swf_client(emulator_server.endpoint_url)


@pytest.fixture
def domain(swf: Any) -> str:
    """A registered domain of its own, with wf/1 and work/1."""
    name = new_domain()
    register_basics(swf, name)
    return name


@dataclass
class LocalSwf:
    emulator: Any
    swf: Any
    domain: str


@pytest.fixture
def manual() -> Iterator[LocalSwf]:
    """An in-process emulator whose clock moves only when the test moves it."""
    from sfn_emulator.inprocess import intercept
    from sfn_emulator.runtime import Emulator

    with Emulator(Settings(clock="manual")) as emulator, intercept(emulator):
        client = swf_client(None)
        name = new_domain()
        register_basics(client, name)
        yield LocalSwf(emulator, client, name)
