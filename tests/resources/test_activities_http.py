"""Activities over HTTP: worker threads long-poll GetActivityTask, heartbeat, succeed, fail or let
the task time out, and the execution's history records it with AWS's Activity* events.

The server runs the `manual` clock in the timeout test (time moves only when the test moves it),
and `auto` elsewhere: an activity's deadlines arrive in wall time there, because a worker lives in
wall time; time never jumps past a deadline a worker is racing, not even for another execution's Wait.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pytest
from flow import Flow, Server, outcome, task

WORKER = "worker-1"


@pytest.fixture(scope="module")
def flow(start_server: Callable[..., Server]) -> Flow:
    return Flow(start_server())


@pytest.fixture(scope="module")
def manual_flow(start_server: Callable[..., Server]) -> Flow:
    return Flow(start_server(clock="manual"))


@pytest.fixture
def workers() -> Any:
    with ThreadPoolExecutor(max_workers=4, thread_name_prefix="activity-worker") as pool:
        yield pool


def activity(flow: Flow) -> str:
    return flow.sfn.create_activity(name=f"act-{uuid.uuid4().hex[:10]}")["activityArn"]


def work(flow: Flow, activity_arn: str, answer: Callable[[Any, dict[str, Any]], None]) -> Callable[[], dict[str, Any]]:
    """A worker: one long poll (the task may be scheduled after it began), then `answer(client, task)`."""

    def run() -> dict[str, Any]:
        client = Flow(flow.server).sfn  # its own client, as a separate worker process would have
        received = client.get_activity_task(activityArn=activity_arn, workerName=WORKER)
        answer(client, received)
        return received

    return run


def test_a_worker_that_long_polls_receives_the_input_heartbeats_and_succeeds(
        flow: Flow, workers: ThreadPoolExecutor) -> None:
    activity_arn = activity(flow)

    def succeed(client: Any, received: dict[str, Any]) -> None:
        client.send_task_heartbeat(taskToken=received["taskToken"])
        client.send_task_success(taskToken=received["taskToken"], output=json.dumps({"done": json.loads(received["input"])}))

    worker: Future[dict[str, Any]] = workers.submit(work(flow, activity_arn, succeed))
    execution = flow.start(flow.machine(task(activity_arn, HeartbeatSeconds=60, TimeoutSeconds=300)), {"order": 7})
    received = worker.result(timeout=30)
    flow.settle()

    assert json.loads(received["input"]) == {"order": 7}
    assert outcome(flow.describe(execution)) == {"status": "SUCCEEDED", "output": {"done": {"order": 7}}}
    events = flow.events(execution)
    assert [event["type"] for event in events] == [
        "ExecutionStarted", "TaskStateEntered", "ActivityScheduled", "ActivityStarted", "ActivitySucceeded",
        "TaskStateExited", "ExecutionSucceeded"]
    scheduled = events[2]["activityScheduledEventDetails"]
    assert scheduled == {"resource": activity_arn, "input": '{"order":7}', "inputDetails": {"truncated": False},
                         "timeoutInSeconds": 300, "heartbeatInSeconds": 60}
    assert events[3]["activityStartedEventDetails"] == {"workerName": WORKER}
    assert json.loads(events[4]["activitySucceededEventDetails"]["output"]) == {"done": {"order": 7}}


def test_a_worker_failure_fails_the_task_with_its_error_and_cause(flow: Flow, workers: ThreadPoolExecutor) -> None:
    activity_arn = activity(flow)

    def fail(client: Any, received: dict[str, Any]) -> None:
        client.send_task_failure(taskToken=received["taskToken"], error="OutOfStock", cause="no more widgets")

    worker = workers.submit(work(flow, activity_arn, fail))
    execution = flow.start(flow.machine(task(activity_arn)))
    worker.result(timeout=30)
    flow.settle()

    assert outcome(flow.describe(execution)) == {"status": "FAILED", "error": "OutOfStock", "cause": "no more widgets"}
    events = flow.events(execution)
    assert [event["type"] for event in events][-2:] == ["ActivityFailed", "ExecutionFailed"]
    assert events[-2]["activityFailedEventDetails"] == {"error": "OutOfStock", "cause": "no more widgets"}


def test_a_missed_heartbeat_times_the_activity_out_and_the_late_answer_is_refused(manual_flow: Flow) -> None:
    flow = manual_flow
    activity_arn = activity(flow)
    execution = flow.start(flow.machine(task(activity_arn, HeartbeatSeconds=10, TimeoutSeconds=600)))
    flow.settle()
    received = flow.sfn.get_activity_task(activityArn=activity_arn, workerName=WORKER)
    flow.settle()
    flow.server.emulator.clock.advance(9)
    flow.sfn.send_task_heartbeat(taskToken=received["taskToken"])  # a heartbeat restarts the 10 s
    flow.settle()
    flow.server.emulator.clock.advance(9)
    flow.settle()
    assert flow.describe(execution)["status"] == "RUNNING"
    flow.server.emulator.clock.advance(1)
    flow.settle()

    assert outcome(flow.describe(execution)) == {"status": "FAILED", "error": "States.Timeout"}
    assert flow.event_types(execution)[-2:] == ["ActivityTimedOut", "ExecutionFailed"]
    with pytest.raises(flow.sfn.exceptions.TaskTimedOut) as refused:
        flow.sfn.send_task_success(taskToken=received["taskToken"], output="{}")
    assert refused.value.response["Error"]["Message"] == "Task Timed Out: 'Provided task does not exist anymore'"


def test_another_executions_waits_do_not_eat_a_workers_time_before_its_heartbeat_deadline(flow: Flow) -> None:
    """Auto mode jumps over Waits; while a worker races a heartbeat deadline it must not, or the
    Waits of an unrelated execution would use up the worker's wall time and time the activity out."""
    activity_arn = activity(flow)
    worked = flow.start(flow.machine(task(activity_arn, HeartbeatSeconds=10)))
    received = flow.sfn.get_activity_task(activityArn=activity_arn, workerName=WORKER)
    flow.settle()
    waits = {"W0": {"Type": "Wait", "Seconds": 9, "Next": "W1"}, "W1": {"Type": "Wait", "Seconds": 9, "End": True}}
    waiting = flow.start(flow.machine({"StartAt": "W0", "States": waits}))
    flow.settle()
    assert "WaitStateExited" not in flow.event_types(waiting)  # a jump to 9 s would leave the worker 1 s
    flow.sfn.send_task_heartbeat(taskToken=received["taskToken"])
    flow.sfn.send_task_success(taskToken=received["taskToken"], output='"made it"')
    flow.settle()

    assert outcome(flow.describe(worked)) == {"status": "SUCCEEDED", "output": "made it"}
    assert outcome(flow.describe(waiting)) == {"status": "SUCCEEDED", "output": {}}


def test_concurrent_workers_each_take_one_task(flow: Flow, workers: ThreadPoolExecutor) -> None:
    activity_arn = activity(flow)
    machine = flow.machine(task(activity_arn))
    answered = threading.Barrier(3, timeout=30)

    def echo(client: Any, received: dict[str, Any]) -> None:
        answered.wait()  # all three hold a task at once: no task went to two workers
        client.send_task_success(taskToken=received["taskToken"], output=received["input"])

    polls = [workers.submit(work(flow, activity_arn, echo)) for _ in range(3)]
    executions = [flow.start(machine, {"n": n}) for n in range(3)]
    tokens = {poll.result(timeout=30)["taskToken"] for poll in polls}
    flow.settle()

    assert len(tokens) == 3
    assert [outcome(flow.describe(arn)) for arn in executions] == [
        {"status": "SUCCEEDED", "output": {"n": n}} for n in range(3)]
