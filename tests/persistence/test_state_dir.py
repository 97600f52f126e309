"""The state directory in-process: what a restart keeps, how running executions go on (the rule in
`sfn_emulator.persistence.restore`), schema upgrades, and stores that are refused."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from helpers.clients import make_client
from helpers.paths import FIXTURES_ROOT

from sfn_emulator.config import Settings
from sfn_emulator.persistence import StoreError
from sfn_emulator.persistence.database import DATABASE_NAME
from sfn_emulator.persistence.migrations import SCHEMA_VERSION
from sfn_emulator.persistence.restore import INTERRUPTED_CAUSE
from sfn_emulator.runtime import Emulator

ROLE = "arn:aws:iam::123456789012:role/persist"
FIXTURES = FIXTURES_ROOT / "persistence"
CONSOLE_SCRIPT = Path(sys.executable).parent / "sfn-emulator"
START = datetime(2025, 1, 1, tzinfo=timezone.utc)
WAIT_BOUND = 60.0  # wall seconds a run_until_idle may take at most


@pytest.fixture
def reopen(tmp_path: Path) -> Iterator[Any]:
    """`reopen()`: an emulator on the test's state directory (manual clock), the previous one closed."""
    opened: list[Emulator] = []

    def open_again(**settings: Any) -> Emulator:
        if opened:
            opened[-1].close()
        emulator = Emulator(Settings(state_dir=tmp_path / "state", clock="manual", clock_start=START, **settings))
        opened.append(emulator)
        return emulator

    yield open_again
    opened[-1].close()


def machine(emulator: Emulator, definition: dict[str, Any], name: str = "m") -> str:
    return emulator.service.create_state_machine(name=name, definition=json.dumps(definition),
                                                 roleArn=ROLE)["stateMachineArn"]


def types(emulator: Emulator, execution_arn: str) -> list[str]:
    return [event["type"] for event in emulator.service.get_execution_history(executionArn=execution_arn,
                                                                                maxResults=1000)["events"]]


def status(emulator: Emulator, execution_arn: str) -> str:
    return str(emulator.service.describe_execution(executionArn=execution_arn)["status"])


def test_a_wait_counts_from_its_entry_across_a_restart(reopen: Any) -> None:
    emulator = reopen()
    arn = machine(emulator, {"StartAt": "Hold", "States": {"Hold": {"Type": "Wait", "Seconds": 100, "End": True}}})
    execution = emulator.service.start_execution(stateMachineArn=arn)["executionArn"]
    assert emulator.clock.run_until_idle(WAIT_BOUND)  # entered at the start instant
    emulator.clock.advance(60)
    emulator = reopen()
    assert emulator.clock.now() == datetime(2025, 1, 1, 0, 1, tzinfo=timezone.utc)  # where the clock stood
    assert emulator.clock.mode == "manual"
    emulator.clock.advance(39)
    assert status(emulator, execution) == "RUNNING"
    emulator.clock.advance(1)
    assert status(emulator, execution) == "SUCCEEDED"
    assert types(emulator, execution) == ["ExecutionStarted", "WaitStateEntered", "WaitStateExited",
                                          "ExecutionSucceeded"]


def test_a_running_execution_of_another_dialect_ends_aborted_after_a_restart(reopen: Any) -> None:
    emulator = reopen()
    delay = {"id": "delay", "name": "Delay", "states": [{"name": "Wait", "type": "delay", "start": {"kind": "default"},
                                                          "timeDelay": "PT15M", "end": {"kind": "default"}}]}
    arn = machine(emulator, delay)
    execution = emulator.service.start_execution(stateMachineArn=arn)["executionArn"]
    assert emulator.clock.run_until_idle(WAIT_BOUND)
    assert status(emulator, execution) == "RUNNING"
    emulator = reopen()
    assert emulator.clock.run_until_idle(WAIT_BOUND)
    described = emulator.service.describe_execution(executionArn=execution)
    assert (described["status"], described["error"]) == ("ABORTED", "States.Runtime")
    assert "cannot be resumed after a restart" in described["cause"]
    assert types(emulator, execution)[-1] == "ExecutionAborted"


def test_workflow_variables_are_those_the_state_was_entered_with(reopen: Any) -> None:
    emulator = reopen()
    arn = machine(emulator, {"StartAt": "Set", "States": {
        "Set": {"Type": "Pass", "Assign": {"x": 42, "y": "kept"}, "Next": "Hold"},
        "Hold": {"Type": "Wait", "Seconds": 10, "Next": "Use"},
        "Use": {"Type": "Pass", "Parameters": {"x.$": "$x", "y.$": "$y"}, "End": True},
    }})
    execution = emulator.service.start_execution(stateMachineArn=arn)["executionArn"]
    assert emulator.clock.run_until_idle(WAIT_BOUND)
    emulator = reopen()
    emulator.clock.advance(10)
    described = emulator.service.describe_execution(executionArn=execution)
    assert (described["status"], json.loads(described["output"])) == ("SUCCEEDED", {"x": 42, "y": "kept"})


def test_the_execution_timeout_counts_from_the_start_across_a_restart(reopen: Any) -> None:
    emulator = reopen()
    arn = machine(emulator, {"TimeoutSeconds": 100, "StartAt": "Hold",
                             "States": {"Hold": {"Type": "Wait", "Seconds": 1000, "End": True}}})
    execution = emulator.service.start_execution(stateMachineArn=arn)["executionArn"]
    emulator.clock.advance(50)
    emulator = reopen()
    emulator.clock.advance(50)
    assert status(emulator, execution) == "TIMED_OUT"


def test_an_activity_a_worker_took_waits_on_for_its_token(reopen: Any) -> None:
    """The worker that took it before the restart answers it: nothing is scheduled or recorded again."""
    emulator = reopen()
    activity = emulator.service.create_activity(name="worker")["activityArn"]
    arn = machine(emulator, {"StartAt": "Work", "States": {"Work": {"Type": "Task", "Resource": activity, "End": True}}})
    execution = emulator.service.start_execution(stateMachineArn=arn, input='{"job": 7}')["executionArn"]
    taken = emulator.service.get_activity_task(activityArn=activity)
    assert emulator.clock.run_until_idle(WAIT_BOUND)
    before = types(emulator, execution)
    emulator = reopen()
    assert types(emulator, execution) == before == ["ExecutionStarted", "TaskStateEntered", "ActivityScheduled",
                                                    "ActivityStarted"]
    emulator.service.send_task_success(taskToken=taken["taskToken"], output='{"done": true}')
    assert emulator.clock.run_until_idle(WAIT_BOUND)
    described = emulator.service.describe_execution(executionArn=execution)
    assert (described["status"], described["output"]) == ("SUCCEEDED", '{"done":true}')
    assert types(emulator, execution) == [*before, "ActivitySucceeded", "TaskStateExited", "ExecutionSucceeded"]


def test_an_activity_no_worker_took_is_queued_again_with_the_token_it_gave_out(reopen: Any) -> None:
    emulator = reopen()
    activity = emulator.service.create_activity(name="worker")["activityArn"]
    arn = machine(emulator, {"StartAt": "Work", "States": {"Work": {"Type": "Task", "Resource": activity, "End": True}}})
    execution = emulator.service.start_execution(stateMachineArn=arn, input='{"job": 7}')["executionArn"]
    assert emulator.clock.run_until_idle(WAIT_BOUND)
    token = emulator.engine.top_task_token(execution)
    emulator = reopen()
    taken = emulator.service.get_activity_task(activityArn=activity)
    assert (taken["taskToken"], json.loads(taken["input"])) == (token, {"job": 7})
    emulator.service.send_task_success(taskToken=token, output='{"done": true}')
    assert emulator.clock.run_until_idle(WAIT_BOUND)
    assert types(emulator, execution) == ["ExecutionStarted", "TaskStateEntered", "ActivityScheduled",
                                          "ActivityStarted", "ActivitySucceeded", "TaskStateExited",
                                          "ExecutionSucceeded"]


def test_a_failed_execution_can_be_redriven_after_a_restart(reopen: Any) -> None:
    emulator = reopen()
    arn = machine(emulator, {"StartAt": "Go", "States": {
        "Go": {"Type": "Pass", "Next": "Stop"}, "Stop": {"Type": "Fail", "Error": "E"}}})
    execution = emulator.service.start_execution(stateMachineArn=arn)["executionArn"]
    assert emulator.clock.run_until_idle(WAIT_BOUND)
    emulator = reopen()
    emulator.service.redrive_execution(executionArn=execution)
    assert emulator.clock.run_until_idle(WAIT_BOUND)
    described = emulator.service.describe_execution(executionArn=execution)
    assert (described["status"], described["redriveCount"]) == ("FAILED", 1)
    assert types(emulator, execution)[-3:] == ["ExecutionRedriven", "FailStateEntered", "ExecutionFailed"]


def test_a_distributed_map_starts_a_new_run_and_the_interrupted_one_is_aborted(reopen: Any) -> None:
    emulator = reopen()
    arn = machine(emulator, {"StartAt": "Each", "States": {"Each": {
        "Type": "Map", "End": True,
        "ItemProcessor": {"ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"},
                          "StartAt": "Hold", "States": {"Hold": {"Type": "Wait", "Seconds": 10, "End": True}}},
    }}})
    execution = emulator.service.start_execution(stateMachineArn=arn, input="[1, 2]")["executionArn"]
    assert emulator.clock.run_until_idle(WAIT_BOUND)
    [interrupted] = emulator.service.list_map_runs(executionArn=execution)["mapRuns"]
    emulator = reopen()
    assert emulator.clock.run_until_idle(WAIT_BOUND)
    children = emulator.service.list_executions(mapRunArn=interrupted["mapRunArn"])["executions"]
    assert [child["status"] for child in children] == ["ABORTED", "ABORTED"]
    aborted = emulator.service.get_execution_history(executionArn=children[0]["executionArn"])["events"][-1]
    assert aborted["executionAbortedEventDetails"] == {"error": "States.Runtime", "cause": INTERRUPTED_CAUSE}
    emulator.clock.advance(10)
    assert status(emulator, execution) == "SUCCEEDED"
    runs = [run["mapRunArn"] for run in emulator.service.list_map_runs(executionArn=execution)["mapRuns"]]
    assert len(runs) == 2
    statuses = {run: emulator.service.describe_map_run(mapRunArn=run)["status"] for run in runs}
    assert statuses == {run: "ABORTED" if run == interrupted["mapRunArn"] else "SUCCEEDED" for run in runs}


def test_concurrent_writers_over_http_are_all_kept(reopen: Any) -> None:
    from sfn_emulator.wire import HttpServer

    emulator = reopen()
    server = HttpServer(emulator.app, "127.0.0.1", 0).start()
    quick = json.dumps({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})
    failures: list[BaseException] = []

    def writer(index: int) -> None:
        try:
            sfn = make_client(server.endpoint_url)
            arn = sfn.create_state_machine(name=f"m{index}", definition=quick, roleArn=ROLE)["stateMachineArn"]
            sfn.tag_resource(resourceArn=arn, tags=[{"key": "writer", "value": str(index)}])
            sfn.create_activity(name=f"a{index}")
            for run in range(5):
                sfn.start_execution(stateMachineArn=arn, name=f"run{run}")
        except BaseException as error:  # reported by the main thread
            failures.append(error)

    threads = [threading.Thread(target=writer, args=(index,)) for index in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT_BOUND)
    assert not failures
    assert emulator.clock.run_until_idle(WAIT_BOUND)
    server.stop()
    emulator = reopen()
    service = emulator.service
    assert sorted(m["name"] for m in service.list_state_machines()["stateMachines"]) == sorted(f"m{i}" for i in range(8))
    assert len(service.list_activities()["activities"]) == 8
    for machine_record in service.list_state_machines()["stateMachines"]:
        arn = machine_record["stateMachineArn"]
        assert service.list_tags_for_resource(resourceArn=arn)["tags"] == [{"key": "writer", "value": arn[-1]}]
        executions = service.list_executions(stateMachineArn=arn)["executions"]
        assert sorted(e["name"] for e in executions) == [f"run{run}" for run in range(5)]
        for listed in executions:
            assert types(emulator, listed["executionArn"]) == ["ExecutionStarted", "PassStateEntered",
                                                               "PassStateExited", "ExecutionSucceeded"]


def test_a_deleted_state_machine_and_a_reset_stay_gone(reopen: Any) -> None:
    emulator = reopen()
    kept = machine(emulator, {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}, "kept")
    gone = machine(emulator, {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}, "gone")
    emulator.service.start_execution(stateMachineArn=gone)
    assert emulator.clock.run_until_idle(WAIT_BOUND)
    emulator.service.delete_state_machine(stateMachineArn=gone)
    emulator = reopen()
    assert [m["stateMachineArn"] for m in emulator.service.list_state_machines()["stateMachines"]] == [kept]
    emulator.reset()
    emulator = reopen()
    assert emulator.service.list_state_machines()["stateMachines"] == []


def test_a_version_1_database_is_upgraded(tmp_path: Path) -> None:
    state_dir = tmp_path / "state"
    state_dir.mkdir()
    with sqlite3.connect(state_dir / DATABASE_NAME) as legacy:
        legacy.executescript((FIXTURES / "v1.sql").read_text())
    with Emulator(Settings(state_dir=state_dir)) as emulator:
        assert (emulator.clock.mode, emulator.clock.now()) == ("manual", datetime(2024, 1, 1, 0, 1, 30, tzinfo=timezone.utc))
        [listed] = emulator.service.list_state_machines()["stateMachines"]
        assert listed["name"] == "legacy"
        [execution] = emulator.service.list_executions(stateMachineArn=listed["stateMachineArn"])["executions"]
        described = emulator.service.describe_execution(executionArn=execution["executionArn"])
        assert (described["status"], described["output"]) == ("SUCCEEDED", '"world"')
        assert len(types(emulator, execution["executionArn"])) == 4
    with sqlite3.connect(state_dir / DATABASE_NAME) as upgraded:
        assert upgraded.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
        assert upgraded.execute("SELECT key FROM meta").fetchall() == [("clock",)]
        assert upgraded.execute("SELECT count(*) FROM map_runs").fetchone()[0] == 0
        assert upgraded.execute("SELECT count(*) FROM moto_journal").fetchone()[0] == 0


def test_a_database_of_a_newer_schema_is_refused(tmp_path: Path) -> None:
    state_dir = tmp_path / "state"
    Emulator(Settings(state_dir=state_dir)).close()
    with sqlite3.connect(state_dir / DATABASE_NAME) as newer:
        newer.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match=f"schema version {SCHEMA_VERSION + 1} is newer than this sfn-emulator's "
                                         f"\\({SCHEMA_VERSION}\\); upgrade sfn-emulator to use it"):
        Emulator(Settings(state_dir=state_dir))
    served = subprocess.run([str(CONSOLE_SCRIPT), "serve", "--port", "0", "--state-dir", str(state_dir)],
                            capture_output=True, text=True, timeout=120)
    assert served.returncode == 2
    assert f"schema version {SCHEMA_VERSION + 1} is newer" in served.stderr


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    state_dir = tmp_path / "state"
    state_dir.mkdir()
    (state_dir / DATABASE_NAME).write_bytes(b"this is not SQLite" * 100)
    with pytest.raises(StoreError, match="is not a usable sfn-emulator state database"):
        Emulator(Settings(state_dir=state_dir))


def test_a_database_with_a_malformed_record_is_refused(reopen: Any, tmp_path: Path) -> None:
    emulator = reopen()
    machine(emulator, {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})
    emulator.close()
    with sqlite3.connect(tmp_path / "state" / DATABASE_NAME) as database:
        database.execute("UPDATE state_machines SET body = '{\"arn\": 1'")
    with pytest.raises(StoreError, match="cannot load the state in .*sfn-emulator.sqlite3: "):
        Emulator(Settings(state_dir=tmp_path / "state"))


def test_without_a_state_directory_nothing_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with Emulator(Settings(clock="manual")) as emulator:
        machine(emulator, {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})
        assert emulator.state is None
    assert list(tmp_path.iterdir()) == []


def _serve(state_dir: Path) -> subprocess.CompletedProcess[str]:
    """`sfn-emulator serve` on the directory, expected to refuse it (and so to end)."""
    return subprocess.run([str(CONSOLE_SCRIPT), "serve", "--port", "0", "--state-dir", str(state_dir)],
                          capture_output=True, text=True, timeout=120)


# (table, SQL of the damage, what the refusal says): records an API would never write
DAMAGED_RECORDS = {
    "clock-mode": ("meta", "UPDATE meta SET value = json_set(value, '$.mode', 'bogus') WHERE key = 'clock'",
                   "clock.mode: 'bogus' is not one of auto, manual, real"),
    "clock-time": ("meta", "UPDATE meta SET value = json_set(value, '$.time', 'soon') WHERE key = 'clock'",
                   "clock.time: expected a time"),
    "machine-name": ("state_machines", "UPDATE state_machines SET body = json_set(body, '$.name', 'a/b')",
                     "name: Invalid Name: 'a/b'"),
    "execution-status": ("executions", "UPDATE executions SET progress = json_set(progress, '$.status', 'PAUSED')",
                         "status: 'PAUSED' is not one of"),
}


@pytest.mark.parametrize("damage", sorted(DAMAGED_RECORDS))
def test_a_record_the_api_would_refuse_stops_the_start_naming_it(damage: str, reopen: Any, tmp_path: Path) -> None:
    """Before: a clock mode 'bogus' was stored, and every later start ended in a traceback (exit 1)."""
    emulator = reopen()
    arn = machine(emulator, {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})
    emulator.service.start_execution(stateMachineArn=arn)
    assert emulator.engine.run_until_idle(timeout=WAIT_BOUND)
    emulator.close()
    _, sql, message = DAMAGED_RECORDS[damage]
    with sqlite3.connect(tmp_path / "state" / DATABASE_NAME) as database:
        assert database.execute(sql).rowcount == 1
    database.close()
    with pytest.raises(StoreError, match="cannot load the state in .*: a record is not valid: .*" + re.escape(message)):
        Emulator(Settings(state_dir=tmp_path / "state"))
    served = _serve(tmp_path / "state")
    assert served.returncode == 2 and message in served.stderr and "Traceback" not in served.stderr, served.stderr


def test_a_second_server_on_a_state_directory_is_refused(tmp_path: Path, servers: Any) -> None:
    first = servers(tmp_path / "state")
    served = _serve(tmp_path / "state")
    assert served.returncode == 2
    assert (f"the state directory {tmp_path / 'state'} is in use by another sfn-emulator "
            f"(process {first.process.pid})") in served.stderr
    with pytest.raises(StoreError, match="is in use by another sfn-emulator"):
        Emulator(Settings(state_dir=tmp_path / "state"))
    first.kill()  # a SIGKILL frees it: the lock goes with the process
    Emulator(Settings(state_dir=tmp_path / "state")).close()


def test_an_emulator_of_the_same_process_is_refused_until_the_first_is_closed(tmp_path: Path) -> None:
    first = Emulator(Settings(state_dir=tmp_path / "state"))
    with pytest.raises(StoreError, match="is in use by another sfn-emulator"):
        Emulator(Settings(state_dir=tmp_path / "state"))
    first.close()
    Emulator(Settings(state_dir=tmp_path / "state")).close()


@pytest.mark.parametrize(("damage", "message"), [
    ("zero-byte-database", "is empty (zero bytes), so it holds no sfn-emulator state"),
    ("garbage-wal", "-wal is not an SQLite write-ahead log"),
    ("short-wal", "-wal is not an SQLite write-ahead log"),
])
def test_files_sqlite_would_read_as_nothing_are_refused(damage: str, message: str, reopen: Any, tmp_path: Path) -> None:
    emulator = reopen()
    machine(emulator, {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})
    emulator.close()
    database = tmp_path / "state" / DATABASE_NAME
    if damage == "zero-byte-database":
        database.write_bytes(b"")
    else:
        database.with_name(DATABASE_NAME + "-wal").write_bytes(b"garbage " * 100 if damage == "garbage-wal" else b"\x37\x7f")
    with pytest.raises(StoreError, match=re.escape(message)):
        Emulator(Settings(state_dir=tmp_path / "state"))
    served = _serve(tmp_path / "state")
    assert served.returncode == 2 and message in served.stderr, served.stderr
