"""The console in headless Chromium where it is big or attacked: no page of another origin can show it
in a frame, a graph too large to draw leaves the rest of its page working, and a long history is
shown a page of events at a time."""

from __future__ import annotations

import http.server
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from helpers.console import Console
from playwright.sync_api import expect

expect.set_options(timeout=20_000)

STATES_IN_A_CHAIN = 520  # more transitions than Mermaid draws (500)


def _unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def _chain(length: int) -> dict[str, Any]:
    """Pass states one after another: `length` + 1 transitions with the start."""
    names = [f"Step{index}" for index in range(length)]
    states = {name: {"Type": "Pass", **({"Next": names[i + 1]} if i + 1 < length else {"End": True})}
              for i, name in enumerate(names)}
    return {"StartAt": names[0], "States": states}


class _FramingPage(http.server.BaseHTTPRequestHandler):
    """A page of another origin (another port) that shows a URL in a frame, sending no Referer: the
    console's own requests from inside the frame would then come from the console's origin."""

    framed_url = ""

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        body = (f'<!DOCTYPE html><html><body><h1 id="bait">Win a prize</h1>'
                f'<iframe id="framed" src="{self.framed_url}" referrerpolicy="no-referrer" '
                f'width="1200" height="700"></iframe></body></html>').encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def framing_site(console: Console) -> Iterator[str]:
    """A local web server of another origin whose page frames the console."""
    handler = type("FramingPage", (_FramingPage,), {"framed_url": console.url})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://localhost:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_a_page_of_another_origin_cannot_show_the_console_in_a_frame(page: Any, console: Console,
                                                                       framing_site: str) -> None:
    execution_arn = console.start(console.machine(_unique("framed"), {"StartAt": "Nap", "States": {
        "Nap": {"Type": "Wait", "Seconds": 3600, "End": True}}}), "not-to-be-stopped")
    clock_before = console.emulator.clock.now()
    page.goto(framing_site, wait_until="load")  # the load event waits for the frame's own
    expect(page.locator("#bait")).to_be_visible()
    framed = page.frame_locator("#framed")
    expect(framed.locator("#clock-now")).to_have_count(0)
    expect(framed.locator("button")).to_have_count(0)
    page.locator("#framed").click(position={"x": 600, "y": 60})  # where the clock's buttons would be
    page.locator("#framed").click(position={"x": 100, "y": 200})
    console.emulator.engine.run_until_idle()
    assert console.sfn.describe_execution(executionArn=execution_arn)["status"] == "RUNNING"
    assert console.emulator.clock.now() == clock_before


def test_the_console_itself_still_opens_outside_a_frame(page: Any, console: Console) -> None:
    page.goto(console.url)
    expect(page.locator("#clock-now")).not_to_have_text("…")


@pytest.fixture(scope="module")
def long_chain(console: Console) -> tuple[str, str]:
    machine_arn = console.machine(_unique("chain"), _chain(STATES_IN_A_CHAIN))
    return machine_arn, console.start(machine_arn, "through-the-chain")


def test_a_machine_too_large_to_draw_leaves_its_page_usable(page: Any, console: Console,
                                                            long_chain: tuple[str, str]) -> None:
    machine_arn, _ = long_chain
    page.goto(f"{console.url}#/state-machine/{machine_arn}")
    problem = page.locator(".graph .graph-problem")
    expect(problem).to_contain_text("This graph cannot be drawn here")
    expect(problem.get_by_role("link", name="DOT")).to_have_attribute("href", f"../graph?stateMachineArn="
                                                                      f"{machine_arn.replace(':', '%3A')}&format=dot")
    expect(page.locator("#definition")).to_contain_text('"Step519"')
    page.get_by_role("link", name="Executions", exact=True).first.click()
    expect(page.locator("#executions")).to_contain_text("through-the-chain")


def test_a_long_history_is_shown_a_page_of_events_at_a_time(page: Any, console: Console,
                                                             long_chain: tuple[str, str]) -> None:
    _, execution_arn = long_chain
    pages = console.sfn.get_paginator("get_execution_history").paginate(executionArn=execution_arn)
    history = [event for answer in pages for event in answer["events"]]
    page.goto(f"{console.url}#/execution/{execution_arn}")
    expect(page.locator("#execution-status")).to_have_text("SUCCEEDED")
    expect(page.locator(".graph .graph-problem")).to_be_visible()
    rows = page.locator("#events tbody tr")
    expect(rows).to_have_count(100)
    expect(page.locator("#events-page")).to_have_text(f"Events 1–100 of {len(history)} (page 1 of 11)")
    page.locator("#events-next").click()
    expect(page.locator("#events-page")).to_contain_text("Events 101–200")
    expect(rows.first).to_have_attribute("data-event-id", "101")
    page.locator("#events-last").click()
    expect(rows.last).to_have_attribute("data-event-id", str(len(history)))
    expect(rows.last).to_contain_text("ExecutionSucceeded")
    expect(page.locator("#path")).to_contain_text(f"… {STATES_IN_A_CHAIN - 50} earlier → Step470 → Step471")
    expect(page.locator("#path")).to_contain_text("Step519")
