"""Fixtures for tests that talk to a real emulator over HTTP.

- `emulator_server` (session): the runtime `Emulator` served by waitress on a free loopback port,
  in a background thread; `.endpoint_url` and `.emulator`.
- `sfn` (function): a boto3 Step Functions client on it, configured as users should configure
  theirs (`inject_host_prefix=False`), with retries off so every answer is seen as sent.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest
from helpers.clients import make_client
from hypothesis import HealthCheck, settings

from sfn_emulator.config import Settings

if TYPE_CHECKING:
    from sfn_emulator.runtime import Emulator

# Property tests draw the same examples on every run and never time an example: the suite must give
# the same verdict on a loaded machine as on an idle one.
settings.register_profile("sfn-emulator", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("sfn-emulator")


@dataclass(frozen=True)
class RunningEmulator:
    endpoint_url: str
    emulator: Emulator


@pytest.fixture(scope="session")
def emulator_server() -> Iterator[RunningEmulator]:
    # Imported here so that tests which need no server do not load the engine.
    from sfn_emulator.runtime import Emulator
    from sfn_emulator.wire import HttpServer

    with Emulator(Settings()) as emulator:
        server = HttpServer(emulator.server_app, "127.0.0.1", 0).start()  # as `sfn-emulator serve` serves
        try:
            yield RunningEmulator(server.endpoint_url, emulator)
        finally:
            server.stop()


@pytest.fixture
def sfn(emulator_server: RunningEmulator) -> Any:
    return make_client(emulator_server.endpoint_url)


@pytest.fixture(scope="module")
def hostile_server() -> Iterator[Any]:
    """A local HTTP server answering as an adversary would (tests/helpers/hostile_http.py)."""
    from helpers.hostile_http import HostileServer

    server = HostileServer()
    yield server
    server.close()


@pytest.fixture(scope="module")
def other_origin_server() -> Iterator[Any]:
    """A second one: another origin (the same host, another port), for redirects that leave the first."""
    from helpers.hostile_http import HostileServer

    server = HostileServer()
    yield server
    server.close()
