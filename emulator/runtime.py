"""Assembles a running emulator from its settings: clock, engine, control plane and HTTP app.

`Emulator` is the whole emulator in-process; the CLI, the test fixtures and the pytest plugin build
one, and serve its `.app` with `emulator.wire.HttpServer` when they need HTTP.
"""

from __future__ import annotations

from types import TracebackType

from flask import Flask

from emulator.clock import Clock
from emulator.config import Settings
from emulator.engine import Engine
from emulator.service import StepFunctionsService
from emulator.wire import create_app


class Emulator:
    """One emulated Step Functions endpoint: `.clock`, `.engine`, `.service` and the WSGI `.app`."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.clock = Clock(mode=settings.clock, start=settings.clock_start, scale=settings.wait_time_scale)
        self.engine = Engine(self.clock)
        self.service = StepFunctionsService(
            self.engine, default_account=settings.account, default_region=settings.region
        )
        self.app: Flask = create_app(self.service, default_account=settings.account, default_region=settings.region)

    def close(self) -> None:
        """Stop the engine's thread; running executions stop where they are."""
        self.engine.close()

    def __enter__(self) -> Emulator:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()
