"""Calls that wait never starve the server: with 200 long polls open over HTTP (Step Functions'
GetActivityTask, SWF's PollForDecisionTask and PollForActivityTask), far more than the request
threads, the health check and the API still answer and an unrelated execution runs to its end.
(How fast they answer meanwhile is measured in benchmarks/, not asserted here.)"""

from __future__ import annotations

import json
import threading
import time
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.config import Config
from helpers.clients import TEST_REGION

from sfn_emulator.config import Settings
from sfn_emulator.runtime import Emulator
from sfn_emulator.wire import HttpServer
from sfn_emulator.wire.server import REQUEST_THREADS

POLLS_EACH = 70  # of each of the three long polls: 210 in all
ROLE = "arn:aws:iam::123456789012:role/sfn"
BOUND = 120.0  # wall seconds a loaded machine is given for what must happen


class Served:
    def __init__(self, emulator: Emulator, server: HttpServer) -> None:
        self.emulator, self.server = emulator, server

    def client(self, service: str) -> Any:
        return boto3.client(service, endpoint_url=self.server.endpoint_url, region_name=TEST_REGION,
                            aws_access_key_id="testing", aws_secret_access_key="testing",
                            config=Config(max_pool_connections=4 * POLLS_EACH, read_timeout=BOUND,
                                          retries={"total_max_attempts": 1}))


@pytest.fixture
def served() -> Iterator[Served]:
    """An emulator of its own: closing it ends the polls still open."""
    emulator = Emulator(Settings())
    server = HttpServer(emulator.server_app, "127.0.0.1", 0).start()
    try:
        yield Served(emulator, server)
    finally:
        emulator.close()
        server.stop()


def bounded_wait(condition: Any) -> None:
    end = time.monotonic() + BOUND
    while not condition():
        assert time.monotonic() < end, "the condition did not come true"
        time.sleep(0.02)


def test_long_polls_beyond_the_request_threads_leave_the_server_answering(served: Served) -> None:
    sfn, swf = served.client("stepfunctions"), served.client("swf")
    activity = sfn.create_activity(name=f"a-{uuid.uuid4().hex[:8]}")["activityArn"]
    domain = f"d-{uuid.uuid4().hex[:8]}"
    swf.register_domain(name=domain, workflowExecutionRetentionPeriodInDays="1")
    polls = ([lambda: sfn.get_activity_task(activityArn=activity)] * POLLS_EACH
             + [lambda: swf.poll_for_decision_task(domain=domain, taskList={"name": "deciders"})] * POLLS_EACH
             + [lambda: swf.poll_for_activity_task(domain=domain, taskList={"name": "workers"})] * POLLS_EACH)
    answers: list[Any] = []
    threads = [threading.Thread(target=lambda poll=poll: answers.append(poll()), daemon=True) for poll in polls]
    for thread in threads:
        thread.start()
    assert len(polls) > REQUEST_THREADS
    bounded_wait(lambda: served.server.dispatcher.waiting() == len(polls))  # every poll open, in its own lane

    with urllib.request.urlopen(served.server.endpoint_url + "/_emulator/health", timeout=BOUND) as health:
        assert health.status == 200
    assert activity in [listed["activityArn"] for listed in sfn.list_activities()["activities"]]
    machine = sfn.create_state_machine(name=f"m-{uuid.uuid4().hex[:8]}", roleArn=ROLE, definition=json.dumps(
        {"StartAt": "Done", "States": {"Done": {"Type": "Pass", "Result": "ran", "End": True}}}))["stateMachineArn"]
    execution = sfn.start_execution(stateMachineArn=machine)["executionArn"]
    bounded_wait(lambda: sfn.describe_execution(executionArn=execution)["status"] != "RUNNING")
    assert sfn.describe_execution(executionArn=execution)["output"] == '"ran"'
    assert served.server.dispatcher.waiting() == len(polls)  # the polls still wait, unharmed

    served.emulator.close()  # ends every open poll with an empty answer
    for thread in threads:
        thread.join(BOUND)
    assert len(answers) == len(polls)
    assert all(not answer.get("taskToken") for answer in answers)
