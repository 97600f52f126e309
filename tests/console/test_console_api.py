"""The console's JSON API over HTTP: what its pages read (every account and region, versions and
aliases, coverage, child executions and map runs, waiting work) and the requests it refuses
(fixtures/console/refusals.json)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid
from typing import Any

import pytest
from helpers.clients import make_client
from helpers.console import ROLE, Console
from helpers.paths import FIXTURES_ROOT

REFUSALS = json.loads((FIXTURES_ROOT / "console" / "refusals.json").read_text())["cases"]
CALLBACK = {"StartAt": "Hold", "States": {"Hold": {
    "Type": "Task", "Resource": "arn:aws:states:::lambda:invoke.waitForTaskToken",
    "Parameters": {"FunctionName": "hold", "Payload": {"token.$": "$$.Task.Token"}}, "End": True}}}
PASS = {"StartAt": "Done", "States": {"Done": {"Type": "Pass", "End": True}}}


def _request(console: Console, method: str, path: str, body: bytes | None = None) -> tuple[int, Any]:
    request = urllib.request.Request(console.url + path, data=body, method=method,
                                     headers={"Content-Type": "application/json"} if body is not None else {})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def _get(console: Console, path: str) -> Any:
    status, body = _request(console, "GET", path)
    assert status == 200, body
    return body


def _post(console: Console, action: str, body: dict[str, Any]) -> Any:
    status, answer = _request(console, "POST", "api/" + action, json.dumps(body).encode())
    assert status == 200, answer
    return answer


def _unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="module")
def running_execution(console: Console) -> str:
    return console.start(console.machine(_unique("held"), CALLBACK), "held")


@pytest.mark.parametrize("case", REFUSALS, ids=[case["name"] for case in REFUSALS])
def test_refusals(console: Console, running_execution: str, case: dict[str, Any]) -> None:
    path = case["path"].replace("{execution}", running_execution)
    body = case.get("raw_body", json.dumps(case["body"]).replace("{execution}", running_execution)
                    if "body" in case else None)
    status, answer = _request(console, case["method"], path, body.encode() if body is not None else None)
    assert status == case["status"], answer
    if "code" in case:
        assert answer["code"] == case["code"]
    assert case.get("message_contains", "") in answer["message"]


def test_state_machines_of_every_account_and_region_are_listed(console: Console) -> None:
    elsewhere = make_client(console.endpoint_url, region="eu-west-1", access_key="111111111111")
    name = _unique("elsewhere")
    arn = elsewhere.create_state_machine(name=name, definition=json.dumps(PASS), roleArn=ROLE, publish=True)["stateMachineArn"]
    version = elsewhere.list_state_machine_versions(stateMachineArn=arn)["stateMachineVersions"][0]["stateMachineVersionArn"]
    alias = elsewhere.create_state_machine_alias(name="live", routingConfiguration=[
        {"stateMachineVersionArn": version, "weight": 100}])["stateMachineAliasArn"]
    here = console.machine(_unique("here"), PASS)
    listed = {m["stateMachineArn"]: m for m in _get(console, "api/state-machines")["stateMachines"]}
    assert {key: listed[arn][key] for key in ("name", "type", "account", "region", "versions", "aliases")} == \
        {"name": name, "type": "STANDARD", "account": "111111111111", "region": "eu-west-1",
         "versions": [version], "aliases": [alias]}
    assert (listed[here]["account"], listed[here]["region"]) == ("123456789012", "us-east-1")

    machine = _get(console, f"api/state-machine?arn={arn}")
    assert json.loads(machine["stateMachine"]["definition"]) == PASS
    assert [v["stateMachineVersionArn"] for v in machine["versions"]] == [version]
    assert [a["stateMachineAliasArn"] for a in machine["aliases"]] == [alias]
    assert machine["graph"].startswith("flowchart")

    execution_arn = elsewhere.start_execution(stateMachineArn=alias, name="via-alias")["executionArn"]
    console.emulator.engine.run_until_idle()
    shown = _get(console, f"api/executions?name=via-alias&stateMachineArn={arn}")["executions"]
    assert [(e["executionArn"], e["status"]) for e in shown] == [(execution_arn, "SUCCEEDED")]
    covered = _get(console, f"api/state-machine?arn={arn}")["coverage"]
    assert [(c["name"], c["states"]["covered"], c["states"]["total"]) for c in covered] == [(name, 1, 1)]


def test_an_execution_links_its_child_executions_and_map_runs(console: Console) -> None:
    child_arn = console.machine(_unique("child"), PASS)
    parent = {"StartAt": "Nested", "States": {
        "Nested": {"Type": "Task", "Resource": "arn:aws:states:::states:startExecution.sync:2",
                   "Parameters": {"StateMachineArn": child_arn, "Input": {}}, "ResultPath": None, "Next": "Fan"},
        "Fan": {"Type": "Map", "ItemsPath": "$.items", "ItemProcessor": {
            "ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"},
            "StartAt": "Each", "States": {"Each": {"Type": "Pass", "End": True}}}, "End": True}}}
    execution_arn = console.start(console.machine(_unique("parent"), parent), "fans-out", {"items": [1, 2]})
    console.emulator.engine.run_until_idle()
    page = _get(console, f"api/execution?arn={execution_arn}")
    assert page["execution"]["status"] == "SUCCEEDED", (page["execution"].get("error"), page["execution"].get("cause"))
    assert [c["stateMachineArn"] for c in page["children"]] == [child_arn]
    [map_run] = page["mapRuns"]
    run = _get(console, f"api/map-run?arn={map_run['mapRunArn']}")
    assert run["mapRun"]["executionArn"] == execution_arn
    assert sorted(e["status"] for e in run["executions"]) == ["SUCCEEDED", "SUCCEEDED"]
    assert page["callbacks"] == []


def test_waiting_work_lists_callbacks_and_activity_tasks_until_answered(console: Console, running_execution: str) -> None:
    activity_arn = console.sfn.create_activity(name=_unique("queue"))["activityArn"]
    definition = {"StartAt": "Work", "States": {"Work": {"Type": "Task", "Resource": activity_arn, "End": True}}}
    queued = console.start(console.machine(_unique("worker"), definition), "queued", {"job": 1})
    waiting = _get(console, "api/waiting")
    assert {"taskToken": _token_of(console, running_execution), "executionArn": running_execution,
            "stateName": "Hold"} in waiting["callbacks"]
    assert {"activityArn": activity_arn, "executionArn": queued, "input": '{\n  "job": 1\n}'} in waiting["activityTasks"]

    taken = _post(console, "take-activity-task", {"activityArn": activity_arn})
    assert json.loads(taken["input"]) == {"job": 1}
    console.emulator.engine.run_until_idle()  # the worker's task resumes the execution on the engine thread
    waiting = _get(console, "api/waiting")
    assert all(task["executionArn"] != queued for task in waiting["activityTasks"])
    assert {"taskToken": taken["taskToken"], "executionArn": queued, "stateName": "Work"} in waiting["callbacks"]
    _post(console, "send-task-success", {"taskToken": taken["taskToken"], "output": '{"done": true}'})
    console.emulator.engine.run_until_idle()
    assert all(c["executionArn"] != queued for c in _get(console, "api/waiting")["callbacks"])
    assert console.sfn.describe_execution(executionArn=queued)["output"] == '{"done":true}'


def _token_of(console: Console, execution_arn: str) -> str:
    events = console.sfn.get_execution_history(executionArn=execution_arn)["events"]
    scheduled = next(event for event in events if event["type"] == "TaskScheduled")
    return json.loads(scheduled["taskScheduledEventDetails"]["parameters"])["Payload"]["token"]


def test_the_page_and_its_files_are_served_from_the_package(console: Console) -> None:
    for name, content_type, marker in [("", "text/html", "<title>sfn-emulator console</title>"),
                                       ("console.js", "text/javascript", "POLL_MS"),
                                       ("console.css", "text/css", "#clock"),
                                       ("mermaid.min.js", "text/javascript", "mermaid")]:
        with urllib.request.urlopen(console.url + name, timeout=30) as answer:
            assert answer.headers["Content-Type"].startswith(content_type)
            assert marker in answer.read().decode()
    with urllib.request.urlopen(console.url.rstrip("/"), timeout=30) as answer:  # redirected
        assert answer.url == console.url


def test_each_waiting_token_names_the_state_that_handed_it_out(console: Console) -> None:
    def waits(state: str) -> dict[str, Any]:
        return {"StartAt": state, "States": {state: {**CALLBACK["States"]["Hold"]}}}

    branches = {"StartAt": "Both", "States": {"Both": {"Type": "Parallel", "End": True, "Branches": [
        waits("Left"), waits("Right")]}}}
    execution_arn = console.start(console.machine(_unique("branches"), branches), "two-tokens")
    events = console.sfn.get_execution_history(executionArn=execution_arn)["events"]
    scheduled = [event for event in events if event["type"] == "TaskScheduled"]
    expected = {json.loads(event["taskScheduledEventDetails"]["parameters"])["Payload"]["token"]:
                _state_of_scheduled(events, event) for event in scheduled}
    shown = {c["taskToken"]: c["stateName"] for c in _get(console, "api/waiting")["callbacks"]
             if c["executionArn"] == execution_arn}
    assert shown == expected and sorted(shown.values()) == ["Left", "Right"]


def _state_of_scheduled(events: list[dict[str, Any]], scheduled: dict[str, Any]) -> str:
    by_id = {event["id"]: event for event in events}
    entered = by_id[scheduled["previousEventId"]]
    return entered["stateEnteredEventDetails"]["name"]


def _loop(times: int) -> dict[str, Any]:
    """A machine that goes round a Pass and a Choice `times` times: three events a turn."""
    return {"QueryLanguage": "JSONata", "StartAt": "Count", "States": {
        "Count": {"Type": "Pass", "Output": {"n": "{% $states.input.n + 1 %}"}, "Next": "Again"},
        "Again": {"Type": "Choice", "Default": "Done", "Choices": [
            {"Condition": f"{{% $states.input.n < {times} %}}", "Next": "Count"}]},
        "Done": {"Type": "Succeed"}}}


@pytest.fixture(scope="module")
def long_execution(console: Console) -> str:
    return console.start(console.machine(_unique("loop"), _loop(150)), "long", {"n": 0})


def test_an_execution_page_reads_no_events_and_names_its_last_states(console: Console, long_execution: str) -> None:
    page = _get(console, f"api/execution?arn={long_execution}")
    history = console.sfn.get_execution_history(executionArn=long_execution, maxResults=1000)["events"]
    entered = [event["stateEnteredEventDetails"]["name"] for event in history if "stateEnteredEventDetails" in event]
    assert "events" not in page
    assert page["eventCount"] == len(history) > 400
    assert (page["path"], page["pathLength"]) == (entered[-50:], len(entered))


@pytest.mark.parametrize(("after", "limit"), [(0, 100), (100, 100), (0, 1), (440, 1000), (10_000, 5)])
def test_events_are_read_a_page_at_a_time_by_event_id(console: Console, long_execution: str, after: int,
                                                       limit: int) -> None:
    history = console.sfn.get_execution_history(executionArn=long_execution, maxResults=1000)["events"]
    read = _get(console, f"api/events?arn={long_execution}&after={after}&limit={limit}")
    assert read["eventCount"] == len(history)
    assert [(row["id"], row["type"]) for row in read["events"]] == \
        [(event["id"], event["type"]) for event in history[after:after + limit]]


def test_each_event_row_names_the_state_it_belongs_to(console: Console, long_execution: str) -> None:
    rows = _get(console, f"api/events?arn={long_execution}&after=0&limit=7")["events"]
    assert [(row["type"], row["state"]) for row in rows] == [
        ("ExecutionStarted", None), ("PassStateEntered", "Count"), ("PassStateExited", "Count"),
        ("ChoiceStateEntered", "Again"), ("ChoiceStateExited", "Again"), ("PassStateEntered", "Count"),
        ("PassStateExited", "Count")]


@pytest.mark.parametrize(("query", "status", "says"), [
    ("after=0&limit=0", 400, "limit must be a whole number from 1 to 1000"),
    ("after=0&limit=1001", 400, "limit must be a whole number from 1 to 1000"),
    ("after=-1", 400, "after must be a whole number"),
    ("after=x", 400, "after must be a whole number"),
])
def test_an_events_read_out_of_bounds_is_refused(console: Console, long_execution: str, query: str, status: int,
                                                 says: str) -> None:
    answer_status, answer = _request(console, "GET", f"api/events?arn={long_execution}&{query}")
    assert answer_status == status and says in answer["message"]


def test_the_events_of_an_unknown_execution_are_not_found(console: Console, long_execution: str) -> None:
    status, answer = _request(console, "GET", f"api/events?arn={long_execution}-gone")
    assert (status, answer["code"]) == (404, "ExecutionDoesNotExist")


def test_a_token_handed_out_after_a_first_read_is_found_in_the_new_events(console: Console) -> None:
    hold = {key: value for key, value in CALLBACK["States"]["Hold"].items() if key != "End"}
    twice = {"StartAt": "First", "States": {"First": {**hold, "Next": "Second"}, "Second": {**hold, "End": True}}}
    execution_arn = console.start(console.machine(_unique("twice"), twice), "two-in-a-row")

    def waiting_in() -> list[str]:
        return [c["stateName"] for c in _get(console, "api/waiting")["callbacks"] if c["executionArn"] == execution_arn]

    assert waiting_in() == ["First"]
    console.sfn.send_task_success(taskToken=_token_of(console, execution_arn), output="{}")
    console.emulator.engine.run_until_idle()
    assert waiting_in() == ["Second"]


FRAMED_PATHS = ["", "console.js", "api/state-machines", "api/waiting", "no-such-file", "../health",
                "../graph?stateMachineArn=arn:aws:states:us-east-1:123456789012:stateMachine:none&format=html",
                "../coverage", "../../moto-api/data.json"]


@pytest.mark.parametrize("path", FRAMED_PATHS)
def test_no_answer_may_be_framed(console: Console, path: str) -> None:
    request = urllib.request.Request(console.url + path)
    try:
        answer = urllib.request.urlopen(request, timeout=30)
    except urllib.error.HTTPError as error:
        answer = error
    with answer:
        assert answer.headers["X-Frame-Options"] == "DENY"
        assert answer.headers["Content-Security-Policy"] == "frame-ancestors 'none'"


def test_the_event_table_gives_a_parallel_s_and_a_map_s_own_events_to_their_state() -> None:
    """AWS links ParallelStateFailed, MapIterationStarted and MapStateExited to the last event of a
    branch or iteration (AWS's recorded histories); the table still names the Parallel or Map."""
    from datetime import datetime, timezone

    from sfn_emulator.engine.execution import HistoryEvent
    from sfn_emulator.console.history import HistoryDigest

    start = datetime(2024, 1, 1, tzinfo=timezone.utc)

    def event(id_: int, previous: int, kind: str, name: str | None = None) -> HistoryEvent:
        key = "stateEnteredEventDetails" if kind.endswith("Entered") else "stateExitedEventDetails"
        return HistoryEvent(start, kind, id_, previous, key if name is not None else None,
                            {"name": name} if name is not None else None)

    history = [event(1, 0, "ExecutionStarted"), event(2, 0, "ParallelStateEntered", "P"),
               event(3, 2, "ParallelStateStarted"), event(4, 3, "FailStateEntered", "F"),
               event(5, 4, "ParallelStateFailed"), event(6, 5, "ParallelStateExited", "P"),
               event(7, 6, "MapStateEntered", "M"), event(8, 7, "MapStateStarted"), event(9, 8, "MapIterationStarted"),
               event(10, 9, "PassStateEntered", "Item"), event(11, 10, "PassStateExited", "Item"),
               event(12, 11, "MapIterationSucceeded"), event(13, 11, "MapIterationStarted"),
               event(14, 13, "PassStateEntered", "Item"), event(15, 14, "PassStateExited", "Item"),
               event(16, 15, "MapIterationSucceeded"), event(17, 16, "MapStateSucceeded"),
               event(18, 16, "MapStateExited", "M"), event(19, 18, "ExecutionSucceeded")]
    digest = HistoryDigest()
    digest.digest(history)
    assert digest.states == [
        None, "P", "P", "F", "P", "P", "M", "M", "M", "Item", "Item", "M", "M", "Item", "Item", "M", "M", "M", None]
