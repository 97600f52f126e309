"""SWF clients: over HTTP on the session's server (auto clock), and in-process on an emulator of
the test's own with a manual clock."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from helpers.swf_workers import close_open_executions, new_domain, register_basics, swf_client

from sfn_emulator.config import Settings


@pytest.fixture
def swf(emulator_server: Any) -> Any:
    return swf_client(emulator_server.endpoint_url)


@pytest.fixture
def domain(swf: Any) -> Iterator[str]:
    """A registered domain of its own, with wf/1 and work/1; what stays open is terminated at the end."""
    name = new_domain()
    register_basics(swf, name)
    yield name
    close_open_executions(swf, name)


@dataclass
class LocalSwf:
    emulator: Any
    swf: Any
    domain: str


@pytest.fixture(scope="module")
def manual_emulator() -> Iterator[tuple[Any, Any]]:
    """An in-process emulator whose clock moves only when a test moves it, and an SWF client with
    no endpoint that it answers."""
    from sfn_emulator.inprocess import intercept
    from sfn_emulator.runtime import Emulator

    with Emulator(Settings(clock="manual")) as emulator, intercept(emulator):
        yield emulator, swf_client(None)


@pytest.fixture
def manual(manual_emulator: tuple[Any, Any]) -> LocalSwf:
    """The manual emulator, an in-process client and a domain of the test's own."""
    emulator, client = manual_emulator
    name = new_domain()
    register_basics(client, name)
    return LocalSwf(emulator, client, name)
