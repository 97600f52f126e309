"""Only a callable's own thread reads clock time: the test's threads, pytest and the server read real
time throughout, even while a callable runs under a clock set decades away.

Each test runs a slow callable; while it waits, a thread of the test's own polls `time.time()`,
`time.monotonic()` and `datetime.now()`. Run in-process (`run_definition`) and over HTTP with boto3.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from datetime import date, datetime, timezone
from typing import Any

import pytest
from helpers.clients import make_client

from sfn_emulator.api import run_definition
from sfn_emulator.config import Settings

CLOCK_START = datetime(2001, 2, 3, 4, 5, 6, tzinfo=timezone.utc)
SLOW = {"StartAt": "Slow", "States": {"Slow": {
    "Type": "Task", "Resource": "arn:aws:lambda:us-east-1:123456789012:function:slow", "End": True}}}
BOUND = 30  # seconds: how long a step may take before the test gives up (a liveness bound, never reached)
SANE = 3_600  # seconds: real readings taken during the test lie within this of the readings before it


def clock_readings() -> dict[str, Any]:
    """Every reading a callable (or a library it calls) may take of the time of day."""
    return {
        "datetime.now": datetime.now(timezone.utc).year,
        "datetime.now naive": datetime.now().year,
        "datetime.utcnow": datetime.utcnow().year,
        "date.today": date.today().year,
        "time.time": datetime.fromtimestamp(time.time(), timezone.utc).year,
        "time.time_ns": datetime.fromtimestamp(time.time_ns() / 1e9, timezone.utc).year,
        "time.gmtime": time.gmtime().tm_year,
        "time.localtime": time.localtime().tm_year,
        "time.strftime": int(time.strftime("%Y")),
    }


class SlowCallable:
    """A handler that records what it reads, then waits until the test's thread has polled."""

    def __init__(self) -> None:
        self.running = threading.Event()
        self.polled = threading.Event()
        self.inside: dict[str, Any] = {}
        self.own_thread_time: float | None = None

    def __call__(self, event: Any, context: Any) -> dict[str, Any]:
        self.inside = clock_readings()
        self.running.set()
        assert self.polled.wait(BOUND)

        def started_by_the_callable() -> None:
            self.own_thread_time = time.time()

        child = threading.Thread(target=started_by_the_callable)
        child.start()
        child.join(BOUND)
        return {"year": datetime.now(timezone.utc).year}


def poll_while_running(callable_: SlowCallable, polls: list[tuple[float, float, datetime]]) -> threading.Thread:
    def poll() -> None:
        if callable_.running.wait(BOUND):
            polls.extend((time.time(), time.monotonic(), datetime.now(timezone.utc)) for _ in range(200))
        callable_.polled.set()

    poller = threading.Thread(target=poll, name="test-poller")
    poller.start()
    return poller


def assert_isolated(callable_: SlowCallable, polls: list[tuple[float, float, datetime]], before: tuple[float, float]) -> None:
    wall_before, monotonic_before = before
    assert callable_.inside == {name: CLOCK_START.year for name in clock_readings()}
    assert polls, "the callable never ran"
    for wall, monotonic, now in polls:
        assert wall_before <= wall < wall_before + SANE
        assert monotonic_before <= monotonic < monotonic_before + SANE
        assert wall_before - 1 <= now.timestamp() < wall_before + SANE
    assert callable_.own_thread_time is not None and wall_before <= callable_.own_thread_time < wall_before + SANE
    assert wall_before <= time.time() < wall_before + SANE  # and nothing is left behind


@pytest.mark.parametrize("clock", ["auto", "manual", "real"])
def test_in_process_only_the_callable_reads_clock_time(clock: str) -> None:
    slow = SlowCallable()
    polls: list[tuple[float, float, datetime]] = []
    before = (time.time(), time.monotonic())
    poller = poll_while_running(slow, polls)
    result = run_definition(SLOW, {}, functions={"slow": slow}, timeout=BOUND,
                            settings=Settings(clock=clock, clock_start=CLOCK_START))
    poller.join(BOUND)
    result.assert_succeeded(output={"year": CLOCK_START.year})
    assert_isolated(slow, polls, before)


def test_over_http_only_the_callable_reads_clock_time() -> None:
    from sfn_emulator.runtime import Emulator
    from sfn_emulator.wire import HttpServer

    slow = SlowCallable()
    polls: list[tuple[float, float, datetime]] = []
    with Emulator(Settings(clock="manual", clock_start=CLOCK_START)) as emulator:
        emulator.functions.register("slow", slow)
        server = HttpServer(emulator.app, "127.0.0.1", 0).start()
        try:
            sfn = make_client(server.endpoint_url, access_key="123456789012")
            machine = sfn.create_state_machine(name="slow", definition=json.dumps(SLOW),
                                               roleArn="arn:aws:iam::123456789012:role/r")["stateMachineArn"]
            before = (time.time(), time.monotonic())
            poller = poll_while_running(slow, polls)
            execution = sfn.start_execution(stateMachineArn=machine)["executionArn"]
            poller.join(BOUND)
            assert emulator.engine.run_until_idle(BOUND)
            described = sfn.describe_execution(executionArn=execution)
        finally:
            server.stop()
    assert (described["status"], described["output"]) == ("SUCCEEDED", '{"year":2001}')
    assert_isolated(slow, polls, before)


def test_a_callable_reads_the_clock_it_was_started_under_and_no_other() -> None:
    """Two callables at once under different emulators' clocks each read their own."""
    years: dict[str, int] = {}
    both_running = threading.Barrier(2, timeout=BOUND)

    def reader(key: str) -> Callable[[Any, Any], Any]:
        def handler(event: Any, context: Any) -> Any:
            both_running.wait()
            years[key] = datetime.now(timezone.utc).year
            return years[key]
        return handler

    results: dict[str, Any] = {}

    def run(key: str, start: datetime) -> None:
        results[key] = run_definition(SLOW, {}, functions={"slow": reader(key)}, timeout=BOUND,
                                      settings=Settings(clock="manual", clock_start=start))

    runs = [threading.Thread(target=run, args=("early", CLOCK_START)),
            threading.Thread(target=run, args=("late", datetime(2099, 1, 1, tzinfo=timezone.utc)))]
    for thread in runs:
        thread.start()
    for thread in runs:
        thread.join(BOUND)
    assert years == {"early": 2001, "late": 2099}
    assert {key: result.output for key, result in results.items()} == {"early": 2001, "late": 2099}
