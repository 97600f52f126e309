"""Snapshots over HTTP (`POST`/`PUT /_emulator/snapshot`) and through the CLI: a round trip gives
the same state, and a file that is not a loadable snapshot is refused clearly, changing nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.clients import make_client
from helpers.state_servers import post_json

from sfn_emulator.config import Settings
from sfn_emulator.persistence import snapshot

ROLE = "arn:aws:iam::123456789012:role/persist"
OTHER_ACCOUNT = "210987654321"
CONSOLE_SCRIPT = Path(sys.executable).parent / "sfn-emulator"
PASS = {"StartAt": "P", "States": {"P": {"Type": "Pass", "Result": {"n": 1}, "End": True}}}
FAIL = {"StartAt": "F", "States": {"F": {"Type": "Fail", "Error": "Boom", "Cause": "on purpose"}}}
WAITING = {"StartAt": "Hold", "States": {"Hold": {"Type": "Wait", "Seconds": 60, "Next": "Done"},
                                         "Done": {"Type": "Pass", "End": True}}}
DISTRIBUTED = {"StartAt": "Each", "States": {"Each": {
    "Type": "Map", "Label": "Items", "End": True,
    "ItemProcessor": {"ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"},
                      "StartAt": "Double", "States": {"Double": {"Type": "Pass", "End": True}}},
}}}


class Served:
    def __init__(self, emulator: Any, server: Any) -> None:
        self.emulator = emulator
        self.server = server
        self.url = server.endpoint_url
        self.sfn = make_client(self.url)

    def snapshot(self) -> bytes:
        status, body = post_json(f"{self.url}/_emulator/snapshot")
        assert status == 200, body
        return body

    def load(self, data: bytes) -> tuple[int, dict[str, Any]]:
        status, body = post_json(f"{self.url}/_emulator/snapshot", data, method="PUT")
        return status, json.loads(body)


@pytest.fixture
def serve() -> Iterator[Any]:
    """`serve(**settings)`: an emulator served on a free port; stopped after the test."""
    from sfn_emulator.runtime import Emulator
    from sfn_emulator.wire import HttpServer

    running: list[Served] = []

    def start(**settings: Any) -> Served:
        emulator = Emulator(Settings(clock="manual", **settings))
        served = Served(emulator, HttpServer(emulator.app, "127.0.0.1", 0).start())
        running.append(served)
        return served

    yield start
    for served in running:
        served.server.stop()
        served.emulator.close()


def seed(served: Served) -> dict[str, str]:
    """Every kind of record: versions, aliases, tags, activities, finished, failed and running
    executions, a map run, and resources of a second account."""
    sfn = served.sfn
    machine = sfn.create_state_machine(name="seeded", definition=json.dumps(PASS), roleArn=ROLE, publish=True,
                                       tags=[{"key": "team", "value": "core"}])["stateMachineArn"]
    sfn.update_state_machine(stateMachineArn=machine, definition=json.dumps(WAITING), publish=True,
                             versionDescription="waits")
    sfn.create_state_machine_alias(name="live", routingConfiguration=[
        {"stateMachineVersionArn": f"{machine}:1", "weight": 100}])
    failing = sfn.create_state_machine(name="failing", definition=json.dumps(FAIL), roleArn=ROLE)["stateMachineArn"]
    mapping = sfn.create_state_machine(name="mapping", definition=json.dumps(DISTRIBUTED), roleArn=ROLE)["stateMachineArn"]
    activity = sfn.create_activity(name="worker", tags=[{"key": "k", "value": "v"}])["activityArn"]
    done = sfn.start_execution(stateMachineArn=f"{machine}:1", name="done")["executionArn"]
    failed = sfn.start_execution(stateMachineArn=failing, name="failed")["executionArn"]
    mapped = sfn.start_execution(stateMachineArn=mapping, input=json.dumps([1, 2, 3]))["executionArn"]
    assert served.emulator.clock.run_until_idle(60)
    running = sfn.start_execution(stateMachineArn=machine, name="running")["executionArn"]
    other = make_client(served.url, access_key=OTHER_ACCOUNT)
    other.create_state_machine(name="elsewhere", definition=json.dumps(PASS), roleArn=ROLE)
    assert served.emulator.clock.run_until_idle(60)
    return {"machine": machine, "failing": failing, "mapping": mapping, "activity": activity, "done": done,
            "failed": failed, "mapped": mapped, "running": running}


def views(served: Served, arns: dict[str, str]) -> dict[str, Any]:
    """What a client sees of the seeded state."""
    sfn = served.sfn
    seen: dict[str, Any] = {
        "machines": sfn.list_state_machines()["stateMachines"],
        "described": [sfn.describe_state_machine(stateMachineArn=arns[k]) for k in ("machine", "failing", "mapping")],
        "versions": sfn.list_state_machine_versions(stateMachineArn=arns["machine"])["stateMachineVersions"],
        "aliases": sfn.list_state_machine_aliases(stateMachineArn=arns["machine"])["stateMachineAliases"],
        "tags": sfn.list_tags_for_resource(resourceArn=arns["machine"])["tags"],
        "activities": sfn.list_activities()["activities"],
        "activityTags": sfn.list_tags_for_resource(resourceArn=arns["activity"])["tags"],
        "mapRuns": sfn.list_map_runs(executionArn=arns["mapped"])["mapRuns"],
        "other": make_client(served.url, access_key=OTHER_ACCOUNT).list_state_machines()["stateMachines"],
    }
    for key in ("done", "failed", "mapped", "running"):
        seen[key] = (sfn.describe_execution(executionArn=arns[key]),
                     sfn.get_execution_history(executionArn=arns[key], maxResults=1000)["events"])
    return _without_metadata(seen)


def _without_metadata(value: Any) -> Any:
    """The answers without botocore's ResponseMetadata (request ids differ per call)."""
    if isinstance(value, dict):
        return {k: _without_metadata(v) for k, v in value.items() if k != "ResponseMetadata"}
    if isinstance(value, (list, tuple)):
        return [_without_metadata(v) for v in value]
    return value


def test_a_snapshot_loaded_elsewhere_is_the_same_state(serve: Any) -> None:
    original = serve()
    arns = seed(original)
    data = original.snapshot()
    copy = serve()
    status, answer = copy.load(data)
    assert status == 200, answer
    assert answer["loaded"]["resumed"] == 1  # the execution waiting in its Wait state
    assert views(copy, arns) == views(original, arns)
    again = snapshot.decode(copy.snapshot())
    first = snapshot.decode(data)
    assert {k: v for k, v in again.items() if k != "clock"} == {k: v for k, v in first.items() if k != "clock"}
    # The loaded running execution goes on where it stood.
    copy.emulator.clock.advance(60)
    assert copy.sfn.describe_execution(executionArn=arns["running"])["status"] == "SUCCEEDED"


def test_a_snapshot_replaces_everything_that_was_there(serve: Any) -> None:
    empty = serve().snapshot()
    served = serve()
    seed(served)
    status, answer = served.load(empty)
    assert status == 200, answer
    assert served.sfn.list_state_machines()["stateMachines"] == []
    assert served.sfn.list_activities()["activities"] == []


def _tampered(data: bytes) -> bytes:
    document = json.loads(data)
    document["state"]["stateMachines"][0]["name"] = "renamed"
    return json.dumps(document).encode()


def _newer(data: bytes) -> bytes:
    document = json.loads(data)
    document["version"] = snapshot.VERSION + 1
    return json.dumps(document).encode()


@pytest.mark.parametrize(("damage", "message"), [
    (lambda data: data[: len(data) // 2], "not valid JSON"),
    (_tampered, "corrupted: its state does not match its sha256 digest"),
    (_newer, f"format version {snapshot.VERSION + 1} is newer than this sfn-emulator's ({snapshot.VERSION})"),
    (lambda data: b'{"format": "something-else"}', 'a JSON object with "format": "sfn-emulator-snapshot"'),
    (lambda data: b"[1, 2]", "not a snapshot"),
], ids=["truncated", "tampered", "newer-version", "other-format", "not-an-object"])
def test_a_file_that_is_not_a_loadable_snapshot_is_refused_and_changes_nothing(serve: Any, damage: Any,
                                                                            message: str) -> None:
    served = serve()
    arns = seed(served)
    data = served.snapshot()
    before = views(served, arns)
    status, answer = served.load(damage(data))
    assert status == 400
    assert answer["message"].startswith("Snapshot refused: ") and message in answer["message"]
    assert views(served, arns) == before


def test_a_snapshot_with_a_definition_that_no_longer_parses_is_refused(serve: Any) -> None:
    served = serve()
    seed(served)
    state = snapshot.decode(served.snapshot())
    state["stateMachines"][0]["current"]["definition"] = '{"StartAt": "Nowhere", "States": {}}'
    status, answer = served.load(snapshot.encode(state))
    assert status == 400 and "a stored definition is not valid" in answer["message"]


def _execution(state: dict[str, Any], status: str) -> dict[str, Any]:
    return next(e for e in state["executions"] if e["progress"]["status"] == status)


# A field of every kind of record given a value the API would never write: (damage, the message's end).
MALFORMED: dict[str, tuple[Any, str]] = {
    "clock-mode": (lambda s: s["clock"].update(mode="bogus"), "clock.mode: 'bogus' is not one of auto, manual, real"),
    "clock-time": (lambda s: s["clock"].update(time="tomorrow"), "clock.time: expected a time"),
    "clock-missing-mode": (lambda s: s["clock"].pop("mode"), "clock.mode: None is not one of"),
    "activity-date": (lambda s: s["activities"][0].update(creationDate="yesterday"), "creationDate: expected a time"),
    "activity-name": (lambda s: s["activities"][0].update(name="a b"), "name: Invalid Name: 'a b'"),
    "machine-type": (lambda s: s["stateMachines"][0].update(type="FAST"), "type: 'FAST' is not one of EXPRESS, STANDARD"),
    "machine-status": (lambda s: s["stateMachines"][0].update(status="GONE"), "status: 'GONE' is not one of"),
    "machine-tags": (lambda s: s["stateMachines"][0].update(tags={"team": 1}), "tags: expected tags"),
    "machine-arn": (lambda s: s["stateMachines"][0].update(arn="arn:aws:s3:::bucket"), "is not a Step Functions"),
    "machine-next-version": (lambda s: s["stateMachines"][0].update(nextVersion=-1), "nextVersion: expected a whole number"),
    "execution-status": (lambda s: _execution(s, "SUCCEEDED")["progress"].update(status="DONE"),
                         "status: 'DONE' is not one of"),
    "execution-redrives": (lambda s: _execution(s, "FAILED")["progress"].update(redriveCount="2"),
                           "redriveCount: expected a whole number"),
    "execution-input": (lambda s: _execution(s, "SUCCEEDED")["start"].update(input={"n": 1}), "input: expected a string"),
    "event-id": (lambda s: _execution(s, "SUCCEEDED")["events"][0].update(id="1"), "event id: expected a whole number"),
    "map-run-status": (lambda s: s["mapRuns"][0].update(status="HALTED"), "status: 'HALTED' is not one of"),
}


@pytest.mark.parametrize("field", sorted(MALFORMED))
def test_a_snapshot_with_a_field_the_api_would_refuse_is_refused_and_changes_nothing(
        field: str, serve: Any, tmp_path: Path) -> None:
    """Refused before anything changes: the resources in memory and in the state directory stay."""
    served = serve(state_dir=tmp_path / "state")
    arns = seed(served)
    damage, message = MALFORMED[field]
    state = snapshot.decode(served.snapshot())
    damage(state)
    before = views(served, arns)
    status, answer = served.load(snapshot.encode(state))
    assert status == 400, answer
    assert answer["message"].startswith("Snapshot refused: a record is not valid: ") and message in answer["message"]
    assert views(served, arns) == before
    served.server.stop()
    served.emulator.close()
    assert views(serve(state_dir=tmp_path / "state"), arns) == before


def test_the_cli_saves_and_loads_snapshots(serve: Any, tmp_path: Path) -> None:
    original, copy = serve(), serve()
    arns = seed(original)
    file = tmp_path / "seeded.json"

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(CONSOLE_SCRIPT), "snapshot", *args], capture_output=True, text=True, timeout=120)

    saved = cli("save", str(file), "--endpoint", original.url)
    assert saved.returncode == 0, saved.stderr
    loaded = cli("load", str(file), "--endpoint", copy.url)
    assert loaded.returncode == 0, loaded.stderr
    assert "4 state machines, 1 activity, 7 executions, 1 resumed" in loaded.stderr  # 3 are map run children
    assert views(copy, arns) == views(original, arns)

    file.write_bytes(file.read_bytes()[:100])
    refused = cli("load", str(file), "--endpoint", copy.url)
    assert refused.returncode == 2
    assert "Snapshot refused: not a snapshot: the file is not valid JSON" in refused.stderr
    missing = cli("load", str(tmp_path / "missing.json"), "--endpoint", copy.url)
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_an_imported_snapshot_is_kept_by_the_state_directory(serve: Any, tmp_path: Path) -> None:
    original = serve()
    arns = seed(original)
    data = original.snapshot()
    persistent = serve(state_dir=tmp_path / "state")
    assert persistent.load(data)[0] == 200
    expected = views(persistent, arns)
    persistent.server.stop()
    persistent.emulator.close()
    reopened = serve(state_dir=tmp_path / "state")
    assert views(reopened, arns) == expected
