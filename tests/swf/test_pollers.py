"""AWS's quota on idle pollers: at most 1,000 polls wait on one task list (a few here); one more is
refused with LimitExceededFault, over HTTP, while other task lists still take polls."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError
from helpers.swf_workers import swf_client

from sfn_emulator.config import Settings
from sfn_emulator.runtime import Emulator
from sfn_emulator.swf import tasks
from sfn_emulator.wire import HttpServer

BOUND = 120.0  # wall seconds a loaded machine is given


@pytest.fixture
def served() -> Iterator[tuple[Emulator, str]]:
    """An emulator of its own: closing it ends the polls still open."""
    emulator = Emulator(Settings())
    server = HttpServer(emulator.server_app, "127.0.0.1", 0).start()
    try:
        yield emulator, server.endpoint_url
    finally:
        emulator.close()
        server.stop()


@pytest.mark.parametrize("operation", ["poll_for_decision_task", "poll_for_activity_task"])
def test_one_poller_over_the_quota_is_refused(served: tuple[Emulator, str], operation: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tasks, "POLLERS_PER_TASK_LIST", 3)
    emulator, url = served
    swf = swf_client(url, read_timeout=BOUND)
    domain = f"d-{uuid.uuid4().hex[:8]}"
    swf.register_domain(name=domain, workflowExecutionRetentionPeriodInDays="1")
    poll = getattr(swf, operation)
    answers: list[Any] = []
    threads = [threading.Thread(target=lambda: answers.append(poll(domain=domain, taskList={"name": "full"})),
                                daemon=True) for _ in range(3)]
    for thread in threads:
        thread.start()
    end = time.monotonic() + BOUND
    while emulator.swf.tasks.waiting() < 3:
        assert time.monotonic() < end, "the polls did not begin"
        time.sleep(0.02)

    with pytest.raises(ClientError) as refused:
        poll(domain=domain, taskList={"name": "full"})
    assert refused.value.response["Error"]["Code"] == "LimitExceededFault"

    other = threading.Thread(target=lambda: answers.append(poll(domain=domain, taskList={"name": "other"})),
                             daemon=True)
    other.start()
    while emulator.swf.tasks.waiting() < 4:  # another task list still takes a poll
        assert time.monotonic() < end, "the poll of another task list did not begin"
        time.sleep(0.02)
    emulator.close()
    for thread in [*threads, other]:
        thread.join(BOUND)
    assert len(answers) == 4 and not any(answer["taskToken"] for answer in answers)
