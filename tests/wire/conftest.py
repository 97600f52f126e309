"""A real HTTP server whose control plane is a scripted double, to test the wire layer alone."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from sfn_emulator.wire import HttpServer
from sfn_emulator.wire import create_app

DEFAULT_ACCOUNT = "123456789012"
DEFAULT_REGION = "us-east-1"


@dataclass
class Call:
    operation: str
    params: dict[str, Any]
    account: str
    region: str


@dataclass
class ScriptedService:
    """Answers `results[operation]` (default `{}`), or raises `failures[operation]`; records each call."""

    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    failures: dict[str, Exception] = field(default_factory=dict)
    calls: list[Call] = field(default_factory=list)

    def handle(self, operation: str, params: dict[str, Any], *, account: str, region: str) -> dict[str, Any]:
        self.calls.append(Call(operation, params, account, region))
        if operation in self.failures:
            raise self.failures[operation]
        return self.results.get(operation, {})

    @property
    def last(self) -> Call:
        return self.calls[-1]


@dataclass(frozen=True)
class WireServer:
    endpoint_url: str
    service: ScriptedService
    default_account: str = DEFAULT_ACCOUNT
    default_region: str = DEFAULT_REGION


@pytest.fixture(scope="module")
def _wire_server() -> Iterator[WireServer]:
    service = ScriptedService()
    app = create_app(service, default_account=DEFAULT_ACCOUNT, default_region=DEFAULT_REGION)
    server = HttpServer(app, "127.0.0.1", 0, threads=4).start()
    try:
        yield WireServer(server.endpoint_url, service)
    finally:
        server.stop()


@pytest.fixture
def wire_server(_wire_server: WireServer) -> WireServer:
    """The shared wire server, with its service's script and call log cleared for this test."""
    service = _wire_server.service
    service.results.clear()
    service.failures.clear()
    service.calls.clear()
    return _wire_server
