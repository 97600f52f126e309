"""The dialects' cases run each on an emulator of its own with a manual clock, over HTTP and in-process."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from helpers.dialect_driver import Driver

from sfn_emulator.config import Settings
from sfn_emulator.runtime import Emulator
from sfn_emulator.wire import HttpServer


@pytest.fixture(params=["http", "in-process"])
def driver(request: pytest.FixtureRequest) -> Iterator[Driver]:
    with Emulator(Settings(clock="manual")) as emulator:
        if request.param == "in-process":
            yield Driver(emulator, None)
            return
        server = HttpServer(emulator.app, "127.0.0.1", 0).start()
        try:
            yield Driver(emulator, server.endpoint_url)
        finally:
            server.stop()
