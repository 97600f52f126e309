"""A real server process killed with SIGKILL in the middle of a burst of StartExecution calls from
several HTTP threads, then started again on the same state directory: every execution whose start
was acknowledged is there, with a consistent history, and the running ones finish."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from helpers.state_servers import post_json
from helpers.clients import make_client

ROLE = "arn:aws:iam::123456789012:role/persist"
QUICK = {"StartAt": "Done", "States": {"Done": {"Type": "Pass", "Result": {"quick": True}, "End": True}}}
WAITING = {"StartAt": "Hold", "States": {
    "Hold": {"Type": "Wait", "Seconds": 3600, "Next": "Done"},
    "Done": {"Type": "Pass", "End": True},
}}
THREADS = 4
KILL_AFTER = 40  # acknowledged starts before the kill; the threads are still sending then
WAIT_BOUND = 120.0  # wall seconds any one wait of the test may take at most (never a timing assumption)

QUICK_HISTORY = ["ExecutionStarted", "PassStateEntered", "PassStateExited", "ExecutionSucceeded"]
WAITING_HISTORY = ["ExecutionStarted", "WaitStateEntered", "WaitStateExited", "PassStateEntered", "PassStateExited",
                   "ExecutionSucceeded"]


def _burst(sfn: Any, machines: list[str], acknowledged: list[tuple[str, str]], enough: threading.Event,
           lock: threading.Lock) -> None:
    """Start executions until the server goes away, keeping each acknowledged one."""
    for index in range(10_000):
        machine = machines[index % 2]
        try:
            arn = sfn.start_execution(stateMachineArn=machine, input=json.dumps({"n": index}))["executionArn"]
        except Exception:  # the server was killed: the burst ends
            return
        with lock:
            acknowledged.append((machine, arn))
            if len(acknowledged) >= KILL_AFTER:
                enough.set()


def _assert_consistent(events: list[dict[str, Any]]) -> None:
    """Event ids run 1..n without gaps, each previousEventId points backwards."""
    assert [event["id"] for event in events] == list(range(1, len(events) + 1))
    assert all(0 <= event["previousEventId"] < event["id"] for event in events)


def test_nothing_acknowledged_is_lost_and_running_executions_finish(servers: Any, tmp_path: Path) -> None:
    state_dir = tmp_path / "state"
    first = servers(state_dir, "--clock", "manual")
    sfn = make_client(first.endpoint_url)
    quick = sfn.create_state_machine(name="quick", definition=json.dumps(QUICK), roleArn=ROLE)["stateMachineArn"]
    waiting = sfn.create_state_machine(name="waiting", definition=json.dumps(WAITING), roleArn=ROLE,
                                       publish=True, versionDescription="v1")["stateMachineArn"]
    sfn.tag_resource(resourceArn=waiting, tags=[{"key": "team", "value": "core"}])
    activity = sfn.create_activity(name="worker")["activityArn"]

    acknowledged: list[tuple[str, str]] = []
    enough, lock = threading.Event(), threading.Lock()
    threads = [threading.Thread(target=_burst, args=(make_client(first.endpoint_url), [quick, waiting], acknowledged,
                                                        enough, lock)) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    assert enough.wait(WAIT_BOUND), "the burst never reached the kill point"
    first.kill()
    for thread in threads:
        thread.join(WAIT_BOUND)
    assert len(acknowledged) >= KILL_AFTER

    second = servers(state_dir)
    sfn = make_client(second.endpoint_url)
    assert sfn.describe_activity(activityArn=activity)["name"] == "worker"
    assert sfn.list_tags_for_resource(resourceArn=waiting)["tags"] == [{"key": "team", "value": "core"}]
    assert [v["stateMachineVersionArn"] for v in sfn.list_state_machine_versions(stateMachineArn=waiting)["stateMachineVersions"]] == [f"{waiting}:1"]
    listed = {e["executionArn"] for machine in (quick, waiting)
              for e in sfn.list_executions(stateMachineArn=machine, maxResults=1000)["executions"]}
    assert {arn for _, arn in acknowledged} <= listed
    for _, arn in acknowledged:
        _assert_consistent(sfn.get_execution_history(executionArn=arn, maxResults=1000)["events"])

    # Time moves past every Wait: each acknowledged execution ends, its history as if never interrupted.
    status, _ = post_json(f"{second.endpoint_url}/_emulator/clock", json.dumps({"advance": 3600}).encode())
    assert status == 200
    for machine, arn in acknowledged:
        described = sfn.describe_execution(executionArn=arn)
        assert described["status"] == "SUCCEEDED", arn
        events = sfn.get_execution_history(executionArn=arn, maxResults=1000)["events"]
        assert [event["type"] for event in events] == (QUICK_HISTORY if machine == quick else WAITING_HISTORY)
        _assert_consistent(events)
