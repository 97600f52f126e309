"""The web console driven in a real headless Chromium: what a developer sees and does at
`/_emulator/console/`, checked against what boto3 sees through the API. Pages must follow the
executions live: after the first load no test reloads a page or navigates away to see a change."""

from __future__ import annotations

import json
import re
import uuid
from datetime import timedelta
from typing import Any

import boto3
from helpers.console import Console
from playwright.sync_api import expect

from sfn_emulator.clock.virtual_clock import format_time
from sfn_emulator.graphs.render import _STYLES

# A loaded machine can take seconds to render a page; an assertion waits up to this bound, as actions do.
expect.set_options(timeout=20_000)

CALLBACK = {"StartAt": "Approve", "States": {
    "Approve": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke.waitForTaskToken",
                "Parameters": {"FunctionName": "hold", "Payload": {"token.$": "$$.Task.Token"}},
                "Next": "Approved"},
    "Approved": {"Type": "Pass", "End": True}}}
WAIT = {"StartAt": "Nap", "States": {
    "Nap": {"Type": "Wait", "Seconds": 3600, "Next": "Awake"},
    "Awake": {"Type": "Pass", "Result": {"rested": True}, "End": True}}}


def _unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def _open_execution(page: Any, console: Console, execution_arn: str) -> None:
    page.goto(f"{console.url}#/execution/{execution_arn}")
    expect(page.locator("#events")).to_be_visible()
    page.evaluate("window.loadedOnce = true")  # gone if the page reloads


def _still_the_same_page(page: Any) -> None:
    assert page.evaluate("window.loadedOnce") is True


def _node(page: Any, state: str) -> Any:
    """The graph's box for `state` (Mermaid labels nodes `Name (Type)`)."""
    return page.locator(".graph g.node", has_text=re.compile(rf"^{re.escape(state)} \("))


def _drawn_as(page: Any, state: str, overlay: str) -> None:
    """The state's box is filled in the graph's colour for `overlay` (path colours of sfn_emulator.graphs)."""
    fill = _STYLES[overlay][0].lstrip("#")
    expect(_node(page, state).locator(f'[style*="{fill}"]')).not_to_have_count(0)


def test_find_a_machine_created_with_boto3_and_see_its_definition_and_graph(page: Any, console: Console) -> None:
    name = _unique("listed")
    arn = console.machine(name, CALLBACK)
    page.goto(console.url)
    row = page.locator("#state-machines tr", has=page.get_by_role("link", name=name, exact=True))
    expect(row).to_contain_text("STANDARD")
    expect(row).to_contain_text("123456789012")
    expect(row).to_contain_text("us-east-1")
    row.get_by_role("link", name=name, exact=True).click()
    expect(page.locator("h1")).to_have_text(name)
    assert json.loads(page.locator("#definition").inner_text()) == CALLBACK
    expect(_node(page, "Approve")).to_be_visible()
    expect(_node(page, "Approved")).to_be_visible()
    assert arn in page.content()


def test_send_success_from_the_page_and_watch_the_execution_succeed(page: Any, console: Console) -> None:
    execution_arn = console.start(console.machine(_unique("callback"), CALLBACK), "waits-for-approval")
    _open_execution(page, console, execution_arn)
    expect(page.locator("#execution-status")).to_have_text("RUNNING")
    expect(page.locator("#path")).to_have_text("Approve")
    card = page.locator(f'.callback[data-execution="{execution_arn}"]')
    card.locator("textarea[name=output]").fill('{"approved": true}')
    card.get_by_role("button", name="Send success").click()
    expect(page.locator("#execution-status")).to_have_text("SUCCEEDED")
    expect(page.locator("#path")).to_have_text("Approve → Approved")
    _drawn_as(page, "Approved", "visited")
    assert json.loads(page.locator("#final-output").inner_text()) == {"approved": True}
    _still_the_same_page(page)
    described = console.sfn.describe_execution(executionArn=execution_arn)
    assert described["status"] == "SUCCEEDED" and json.loads(described["output"]) == {"approved": True}


def test_the_waiting_work_page_sends_a_failure_with_error_and_cause(page: Any, console: Console) -> None:
    execution_arn = console.start(console.machine(_unique("refused"), CALLBACK), "to-refuse")
    page.goto(f"{console.url}#/waiting")
    card = page.locator(f'.callback[data-execution="{execution_arn}"]')
    expect(card).to_contain_text("waits in Approve")
    card.get_by_role("button", name="Send heartbeat").click()
    expect(page.locator("#message")).to_have_text("Heartbeat sent")
    card.get_by_label("error").fill("Refused")
    card.get_by_label("cause").fill("not today")
    card.get_by_role("button", name="Send failure").click()
    expect(card).to_have_count(0)
    console.emulator.engine.run_until_idle()
    described = console.sfn.describe_execution(executionArn=execution_arn)
    assert (described["status"], described["error"], described["cause"]) == ("FAILED", "Refused", "not today")


def test_an_activity_task_is_taken_from_the_page_and_answered(page: Any, console: Console) -> None:
    activity_arn = console.sfn.create_activity(name=_unique("approval"))["activityArn"]
    definition = {"StartAt": "Review", "States": {"Review": {"Type": "Task", "Resource": activity_arn, "End": True}}}
    execution_arn = console.start(console.machine(_unique("activity"), definition), "reviewed", {"doc": 7})
    page.goto(f"{console.url}#/waiting")
    task = page.locator(f'.activity-task[data-activity="{activity_arn}"]')
    task.locator("summary").click()
    assert json.loads(task.locator("pre").inner_text()) == {"doc": 7}
    task.get_by_role("button", name="Take as worker").click()
    expect(task).to_have_count(0)
    card = page.locator(f'.callback[data-execution="{execution_arn}"]')
    card.locator("textarea[name=output]").fill('{"ok": 1}')
    card.get_by_role("button", name="Send success").click()
    expect(card).to_have_count(0)
    console.emulator.engine.run_until_idle()
    events = console.sfn.get_execution_history(executionArn=execution_arn)["events"]
    started = next(event for event in events if event["type"] == "ActivityStarted")
    assert started["activityStartedEventDetails"]["workerName"] == "sfn-emulator-console"
    assert console.sfn.describe_execution(executionArn=execution_arn)["status"] == "SUCCEEDED"


def test_advance_the_clock_from_the_page_past_a_wait(page: Any, console: Console) -> None:
    machine_arn = console.machine(_unique("napping"), WAIT)
    by_duration = console.start(machine_arn, "by-duration")
    to_timer = console.start(machine_arn, "to-next-timer")
    _open_execution(page, console, by_duration)
    expect(page.locator("#execution-status")).to_have_text("RUNNING")
    page.locator("#clock-seconds").fill("3599")
    page.get_by_role("button", name="Advance").click()
    expect(page.locator("#message")).to_have_text("Clock advanced by 3599 s")
    expect(page.locator("#execution-status")).to_have_text("RUNNING")
    page.locator("#clock-seconds").fill("1")
    page.get_by_role("button", name="Advance").click()
    expect(page.locator("#execution-status")).to_have_text("SUCCEEDED")
    expect(page.locator("#path")).to_have_text("Nap → Awake")
    expect(page.locator("#clock-now")).to_have_text(format_time(console.emulator.clock.now()))
    _still_the_same_page(page)

    _open_execution(page, console, to_timer)
    expect(page.locator("#execution-status")).to_have_text("SUCCEEDED")  # the same hour passed for it
    following = console.start(machine_arn, "after-the-hour")
    due = console.emulator.clock.now() + timedelta(hours=1)
    _open_execution(page, console, following)
    page.get_by_role("button", name="To next timer").click()
    expect(page.locator("#execution-status")).to_have_text("SUCCEEDED")
    expect(page.locator("#clock-now")).to_have_text(format_time(due))


def test_switch_the_clock_mode_from_the_page(page: Any, console: Console) -> None:
    page.goto(console.url)
    page.locator("#clock-mode").select_option("auto")
    expect(page.locator("#message")).to_have_text("Clock mode: auto")
    assert console.emulator.clock.mode == "auto"
    page.locator("#clock-mode").select_option("manual")
    expect(page.locator("#message")).to_have_text("Clock mode: manual")
    assert console.emulator.clock.mode == "manual"


def test_the_event_table_is_the_execution_history(page: Any, console: Console) -> None:
    failing = {"StartAt": "Try", "States": {
        "Try": {"Type": "Pass", "Result": {"n": 1}, "Next": "Decide"},
        "Decide": {"Type": "Choice", "Choices": [{"Variable": "$.n", "NumericEquals": 1, "Next": "Boom"}],
                   "Default": "Try"},
        "Boom": {"Type": "Fail", "Error": "Broken", "Cause": "on purpose"}}}
    execution_arn = console.start(console.machine(_unique("history"), failing), "fails")
    _open_execution(page, console, execution_arn)
    expect(page.locator("#execution-status")).to_have_text("FAILED")
    history = console.sfn.get_execution_history(executionArn=execution_arn)["events"]
    rows = page.locator("#events tbody tr")
    expect(rows).to_have_count(len(history))
    start = history[0]["timestamp"]
    shown = [row.locator("td").all_inner_texts()[:5] for row in rows.all()]
    expected = [[str(event["id"]), event["type"], _state_of(event, history),
                 format_time(event["timestamp"]), f"{(event['timestamp'] - start).total_seconds():.3f} s"]
                for event in history]
    assert shown == expected
    entered = next(row for row in rows.all() if row.locator("td").nth(1).inner_text() == "PassStateEntered")
    entered.locator("summary").click()
    assert '"n": 1' not in entered.locator("pre").inner_text()  # the state's input, before its Result
    assert "name: Try" in entered.locator("pre").inner_text()
    expect(page.locator("#final-error")).to_contain_text("Broken")
    expect(page.locator("#final-error")).to_contain_text("on purpose")
    _drawn_as(page, "Boom", "failed")


def _state_of(event: dict[str, Any], history: list[dict[str, Any]]) -> str:
    """The state an event belongs to, read from the history as a reader would: its own name, or the
    state its previous event was in (nothing after a state was exited)."""
    by_id = {e["id"]: e for e in history}
    current: dict[str, Any] | None = event
    first = True
    while current is not None:
        for key in ("stateEnteredEventDetails", "stateExitedEventDetails"):
            if key in current:
                return current[key]["name"] if first or key == "stateEnteredEventDetails" else ""
        first = False
        current = by_id.get(current.get("previousEventId", 0))
    return ""


def test_stop_and_redrive_from_the_execution_page(page: Any, console: Console) -> None:
    execution_arn = console.start(console.machine(_unique("stoppable"), CALLBACK), "stopped")
    _open_execution(page, console, execution_arn)
    expect(page.locator("#redrive")).to_be_disabled()
    page.get_by_role("button", name="Stop").click()
    expect(page.locator("#execution-status")).to_have_text("ABORTED")
    expect(page.locator("#stop")).to_be_disabled()
    page.get_by_role("button", name="Redrive").click()
    expect(page.locator("#execution-status")).to_have_text("RUNNING")
    assert console.sfn.describe_execution(executionArn=execution_arn)["redriveCount"] == 1
    expect(page.locator(f'.callback[data-execution="{execution_arn}"]')).to_have_count(1)


def test_the_executions_list_filters_searches_and_pages_newest_first(page: Any, console: Console) -> None:
    machine_arn = console.machine(_unique("many"), {"StartAt": "Done", "States": {"Done": {"Type": "Pass", "End": True}}})
    names = [f"run-{number:02d}" for number in range(30)]
    for name in names:
        console.start(machine_arn, name)
        console.emulator.clock.advance(1)  # distinct start times: newest first is well defined
    waiting_arn = console.start(console.machine(_unique("busy"), CALLBACK), "run-busy")
    page.goto(f"{console.url}#/executions?stateMachineArn={machine_arn}")
    expect(page.locator("#page")).to_have_text("Page 1 of 2 (30 executions)")
    first_page = page.locator("#executions tbody tr td:first-child")
    expect(first_page).to_have_text(names[::-1][:25])
    page.get_by_role("button", name="Older").click()
    expect(first_page).to_have_text(names[::-1][25:])
    page.get_by_role("button", name="all machines").click()
    # The list of every machine is drawn (its search field with it) before anything is typed there.
    expect(page.get_by_role("button", name="all machines")).to_have_count(0)
    search = page.locator("#name-search")
    search.press_sequentially("run-busy")  # the list follows the typing: no Enter, and the field keeps its focus
    expect(first_page).to_have_text(["run-busy"])
    expect(search).to_be_focused()
    search.fill("run-")
    page.locator("#status-filter").select_option("RUNNING")
    running = page.locator("#executions tbody tr")
    expect(running.filter(has_text="run-busy")).to_have_count(1)
    expect(running.filter(has_text="run-07")).to_have_count(0)
    running.get_by_role("link", name="run-busy").click()
    expect(page.locator("#execution-status")).to_have_text("RUNNING")
    assert waiting_arn in page.url or waiting_arn.replace(":", "%3A") in page.url


def test_child_executions_map_runs_and_coverage_are_linked(page: Any, console: Console) -> None:
    child_machine = console.machine(_unique("child"), {"StartAt": "Done", "States": {"Done": {"Type": "Pass", "End": True}}})
    parent = {"StartAt": "Nested", "States": {
        "Nested": {"Type": "Task", "Resource": "arn:aws:states:::states:startExecution.sync:2",
                   "Parameters": {"StateMachineArn": child_machine, "Input": {}}, "ResultPath": None, "Next": "Fan"},
        "Fan": {"Type": "Map", "ItemsPath": "$.items", "ItemProcessor": {
            "ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"},
            "StartAt": "Each", "States": {"Each": {"Type": "Pass", "End": True}}}, "End": True}}}
    parent_machine = console.machine(_unique("parent"), parent)
    execution_arn = console.start(parent_machine, "fans-out", {"items": [1, 2, 3]})
    console.emulator.engine.run_until_idle()
    _open_execution(page, console, execution_arn)
    expect(page.locator("#execution-status")).to_have_text("SUCCEEDED")
    page.locator("#children a").click()
    expect(page.locator("#path")).to_have_text("Done")
    expect(page.locator(".toolbar").get_by_role("link", name=child_machine.split(":")[-1])).to_be_visible()
    page.go_back()
    page.locator("#map-runs a").click()
    expect(page.locator("[data-page=map-run] tbody tr")).to_have_count(3)
    expect(page.locator("[data-page=map-run] tbody [data-status=SUCCEEDED]")).to_have_count(3)
    page.get_by_role("link", name=execution_arn.split(":")[-1]).click()
    page.locator(".toolbar").get_by_role("link", name=parent_machine.split(":")[-1]).click()
    coverage = page.locator("table.coverage tr", has_text="states")
    expect(coverage).to_contain_text("3 of 3")  # Nested, Fan and Each (the map's children count for it)


def test_a_machine_page_lists_its_recent_executions_and_the_rules_and_schedules_that_start_it(
        page: Any, console: Console) -> None:
    name = _unique("scheduled")
    machine_arn = console.machine(name, {"StartAt": "Done", "States": {"Done": {"Type": "Pass", "End": True}}})
    events = boto3.session.Session(aws_access_key_id="testing", aws_secret_access_key="testing").client(
        "events", endpoint_url=console.endpoint_url, region_name="us-east-1")
    events.put_rule(Name=f"{name}-hourly", ScheduleExpression="rate(1 hour)")
    events.put_targets(Rule=f"{name}-hourly", Targets=[{"Id": "m", "Arn": machine_arn}])
    events.put_rule(Name=f"{name}-on-order", EventPattern=json.dumps({"source": ["shop.orders"]}))
    events.put_targets(Rule=f"{name}-on-order", Targets=[{"Id": "m", "Arn": machine_arn}])
    console.emulator.clock.advance(3600)
    console.emulator.engine.run_until_idle()
    page.goto(f"{console.url}#/state-machine/{machine_arn}")
    expect(page.locator("#recent-executions tbody tr")).to_have_count(1)
    triggers = page.locator("#triggers tbody tr")
    expect(triggers).to_have_count(2)
    expect(triggers.filter(has_text=f"{name}-hourly")).to_contain_text("rate(1 hour)")
    expect(triggers.filter(has_text=f"{name}-on-order")).to_contain_text("shop.orders")
    page.locator("#recent-executions tbody tr a").click()
    expect(page.locator("#started-by")).to_contain_text(f"rule/{name}-hourly")
    events.remove_targets(Rule=f"{name}-hourly", Ids=["m"])
    events.delete_rule(Name=f"{name}-hourly")


def test_the_state_machines_list_filters_as_it_is_typed(page: Any, console: Console) -> None:
    wanted, other = _unique("needle"), _unique("haystack")
    for name in (wanted, other):
        console.machine(name, {"StartAt": "Done", "States": {"Done": {"Type": "Pass", "End": True}}})
    page.goto(console.url)
    search = page.locator("#machine-search")
    search.press_sequentially("needle")
    rows = page.locator("#state-machines tbody tr:visible")
    expect(rows.filter(has_text=wanted)).to_have_count(1)
    expect(rows.filter(has_text=other)).to_have_count(0)
    expect(search).to_be_focused()
