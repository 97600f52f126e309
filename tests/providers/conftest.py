"""Servers for the task-resource tests: each test module starts the real emulator over HTTP with the
settings it needs (a functions map, a mock configuration) and drives it with boto3.

- `start_server` (module): a factory; `start_server(functions=..., mock_config=...)` builds
  `sfn_emulator.runtime.Emulator` from those `Settings`, serves it with `sfn_emulator.wire.HttpServer` on a
  free loopback port, and closes it when the module ends.
- `Flow` (flow.py): a boto3 client plus the in-process engine, to wait for executions without
  sleeping.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flow import Server

from sfn_emulator.config import Settings


@pytest.fixture(scope="module")
def start_server() -> Iterator[Callable[..., Server]]:
    from sfn_emulator.runtime import Emulator
    from sfn_emulator.wire import HttpServer

    running: list[tuple[Emulator, HttpServer]] = []

    def start(**settings: Any) -> Server:
        emulator = Emulator(Settings(**settings))
        server = HttpServer(emulator.app, "127.0.0.1", 0).start()
        running.append((emulator, server))
        return Server(server.endpoint_url, emulator)

    yield start
    for emulator, server in reversed(running):
        server.stop()
        emulator.close()
