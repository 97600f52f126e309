"""The console in a real browser: an emulator with a manual clock served over HTTP, boto3 on it, and
Playwright pages on Debian's Chromium. A failing test leaves a screenshot of its page under its
pytest tmp dir (the path is printed)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.browser import playwright_chromium
from helpers.clients import make_client
from helpers.console import Console

from sfn_emulator.config import Settings
from sfn_emulator.runtime import Emulator
from sfn_emulator.wire import HttpServer

@pytest.fixture(scope="module")
def console() -> Iterator[Console]:
    with Emulator(Settings(clock="manual")) as emulator:
        emulator.functions.register("hold", lambda event, context: None)
        server = HttpServer(emulator.app, "127.0.0.1", 0).start()
        try:
            yield Console(server.endpoint_url, emulator, make_client(server.endpoint_url))
        finally:
            server.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    with playwright_chromium() as chromium:
        yield chromium


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.stash[_CALL_FAILED] = report.failed


_CALL_FAILED = pytest.StashKey[bool]()


@pytest.fixture
def page(browser: Any, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    opened.set_default_timeout(20_000)
    try:
        yield opened
    finally:
        if request.node.stash.get(_CALL_FAILED, False):
            shot = tmp_path / "console-failure.png"
            opened.screenshot(path=str(shot), full_page=True)
            print(f"screenshot of the failing page: {shot}")
        context.close()
