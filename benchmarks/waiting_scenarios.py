"""The API while many calls wait: DescribeExecution requests per second, and the health check's round
trip, with 1,000 GetActivityTask long polls open on the same server (each holds its connection for up
to 60 s). The figure is what one client gets meanwhile; the notes say how many polls were still open
when the attempt ended (a server whose polls answer at once has none open, and its figure is then
that of an idle server)."""

from __future__ import annotations

import threading
import time
import urllib.request
import uuid
from typing import Any

import boto3
from botocore.config import Config

from scenarios import PASS_ONLY, Client, Measurement, Profile, Scenario, create_machine, run_once

OPEN_POLLS = 1000
OPENING_BUDGET = 60.0  # seconds for every poll to reach the server


class _Polls:
    """OPEN_POLLS GetActivityTask calls, each on a thread and a connection of its own."""

    def __init__(self, client: Client, activity_arn: str) -> None:
        poller = boto3.client("stepfunctions", endpoint_url=client.meta.endpoint_url, region_name="us-east-1",
                              aws_access_key_id="test", aws_secret_access_key="test",
                              config=Config(max_pool_connections=OPEN_POLLS, read_timeout=120,
                                            retries={"total_max_attempts": 1}))
        self.sent = 0
        self._lock = threading.Lock()
        self.threads = [threading.Thread(target=self._poll, args=(poller, activity_arn), daemon=True)
                        for _ in range(OPEN_POLLS)]
        for thread in self.threads:
            thread.start()

    def _poll(self, poller: Any, activity_arn: str) -> None:
        with self._lock:
            self.sent += 1
        try:
            poller.get_activity_task(activityArn=activity_arn, workerName="idle")
        except Exception:  # the server went away at the end of the scenario
            pass

    def open(self) -> int:
        return sum(thread.is_alive() for thread in self.threads)


def _prepare(client: Client, profile: Profile) -> str:
    execution = run_once(client, create_machine(client, PASS_ONLY), {}, profile.execution_budget)
    activity_arn = client.create_activity(name=f"bench-{uuid.uuid4().hex[:12]}")["activityArn"]
    polls = _Polls(client, activity_arn)
    deadline = time.perf_counter() + OPENING_BUDGET
    while polls.sent < OPEN_POLLS and time.perf_counter() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)  # let the last requests reach the server
    _OPEN[execution.arn] = polls
    return execution.arn


_OPEN: dict[str, _Polls] = {}


def _attempt(client: Client, execution_arn: str, profile: Profile) -> Measurement:
    polls = _OPEN[execution_arn]
    health_url = client.meta.endpoint_url + "/_emulator/health"
    began = time.perf_counter()
    try:
        with urllib.request.urlopen(health_url, timeout=120) as answer:
            answer.read()
        health = f"health {1000 * (time.perf_counter() - began):.1f} ms"
    except OSError as error:  # a server without the emulator's health check
        health = f"no health check ({type(error).__name__})"
    began = time.perf_counter()
    for _ in range(profile.api_requests):
        client.describe_execution(executionArn=execution_arn)
    rate = profile.api_requests / (time.perf_counter() - began)
    return Measurement(rate, note=f"{polls.open()} of {OPEN_POLLS} polls open; {health}")


WAITING_SCENARIOS = [
    Scenario(f"DescribeExecution with {OPEN_POLLS:,} GetActivityTask long polls open", "/s", _prepare, _attempt),
]
