"""Fixtures of the persistence tests: server processes with a state directory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.state_servers import ServerProcess, start_server


@pytest.fixture
def servers() -> Iterator[Any]:
    """`servers(state_dir, *args)` starts a server process; every one started is stopped after the test."""
    started: list[ServerProcess] = []

    def start(state_dir: Path, *args: str) -> ServerProcess:
        server = start_server(state_dir, *args)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
        if server.process.stdout is not None:
            server.process.stdout.close()
