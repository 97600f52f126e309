"""Schedules of EventBridge rules and of EventBridge Scheduler fire on the emulator's clock: one move of
a manual clock over a week or a month fires each firing at its own time, and an idle auto clock never
runs ahead through a schedule. Over HTTP with boto3, against an emulator of the test's own."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

import pytest
from botocore.exceptions import ClientError
from helpers.eventbridge_cloud import START, Cloud

from sfn_emulator.config import Settings
from sfn_emulator.runtime import Emulator
from sfn_emulator.wire import HttpServer

PASS = {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}


class Served:
    def __init__(self, emulator: Emulator, cloud: Cloud) -> None:
        self.emulator = emulator
        self.cloud = cloud

    def advance(self, **delta: float) -> None:
        self.emulator.clock.advance(timedelta(**delta))
        assert self.emulator.clock.run_until_idle(60)

    def started(self, machine: str) -> list[tuple[datetime, dict[str, Any]]]:
        """(startDate, input) of each execution of the machine, in start order."""
        sfn = self.cloud.client("stepfunctions")
        runs = [sfn.describe_execution(executionArn=item["executionArn"])
                for item in sfn.list_executions(stateMachineArn=machine)["executions"]]
        return sorted(((run["startDate"], json.loads(run["input"])) for run in runs), key=lambda started: started[0])


@pytest.fixture
def served(new_cloud: Callable[[str], Cloud]) -> Iterator[Served]:
    with Emulator(Settings(clock="manual", clock_start=START)) as emulator:
        server = HttpServer(emulator.server_app, "127.0.0.1", 0).start()
        try:
            yield Served(emulator, new_cloud(server.endpoint_url))
        finally:
            server.stop()


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=timezone.utc)


def test_a_daily_rule_fires_seven_times_in_a_week_each_at_its_own_time(served: Served) -> None:
    cloud = served.cloud
    machine = cloud.machine("nightly", PASS)
    cloud.rule("nightly", [{"Arn": machine, "Input": '{"job": "nightly"}'}], ScheduleExpression="rate(1 day)")
    served.advance(days=7, hours=1)
    assert served.started(machine) == [(START + timedelta(days=day), {"job": "nightly"}) for day in range(1, 8)]


def test_a_cron_schedule_over_a_month_in_new_york(served: Served) -> None:
    """02:30 local every day: 07:30Z in winter, nothing on 10 March (the clocks skip 02:00-03:00),
    06:30Z from 11 March; 29 February is a day like any other."""
    cloud = served.cloud
    machine = cloud.machine("morning", PASS)
    cloud.client("scheduler").create_schedule(
        Name="morning", ScheduleExpression="cron(30 2 * * ? *)", ScheduleExpressionTimezone="America/New_York",
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={"Arn": machine, "RoleArn": cloud.role, "Input": '{"at": "<aws.scheduler.scheduled-time>"}'})
    served.advance(days=20)
    expected = [_utc(f"2024-02-{day:02}T07:30:00") for day in range(25, 30)] + \
               [_utc(f"2024-03-{day:02}T07:30:00") for day in range(1, 10)] + \
               [_utc(f"2024-03-{day:02}T06:30:00") for day in range(11, 16)]
    assert served.started(machine) == [(moment, {"at": moment.strftime("%Y-%m-%dT%H:%M:%SZ")}) for moment in expected]


def test_a_one_time_schedule_fires_once_and_deletes_itself(served: Served) -> None:
    cloud = served.cloud
    machine = cloud.machine("once", PASS)
    scheduler = cloud.client("scheduler")
    scheduler.create_schedule(Name="once", ScheduleExpression="at(2024-02-26T12:00:00)", ActionAfterCompletion="DELETE",
                              FlexibleTimeWindow={"Mode": "OFF"}, Target={"Arn": machine, "RoleArn": cloud.role})
    served.advance(days=3)
    assert served.started(machine) == [(_utc("2024-02-26T12:00:00"), {})]
    with pytest.raises(ClientError) as gone:
        scheduler.get_schedule(Name="once")
    assert gone.value.response["Error"]["Code"] == "ResourceNotFoundException"


def test_a_universal_start_execution_target_names_the_execution(served: Served) -> None:
    cloud = served.cloud
    machine = cloud.machine("universal", PASS)
    cloud.client("scheduler").create_schedule(
        Name="universal", ScheduleExpression="rate(12 hours)", FlexibleTimeWindow={"Mode": "OFF"},
        StartDate=_utc("2024-02-25T06:00:00"),
        Target={"Arn": "arn:aws:scheduler:::aws-sdk:sfn:startExecution", "RoleArn": cloud.role,
                "Input": json.dumps({"StateMachineArn": machine, "Input": '{"from": "scheduler"}'})})
    served.advance(hours=20)
    assert served.started(machine) == [(_utc("2024-02-25T06:00:00"), {"from": "scheduler"}),
                                       (_utc("2024-02-25T18:00:00"), {"from": "scheduler"})]


def test_a_disabled_then_deleted_rule_fires_no_more(served: Served) -> None:
    cloud = served.cloud
    machine = cloud.machine("hourly", PASS)
    cloud.rule("hourly", [{"Arn": machine}], ScheduleExpression="rate(1 hour)")
    served.advance(hours=2, minutes=30)
    events = cloud.client("events")
    events.disable_rule(Name="hourly")
    served.advance(hours=2)
    events.enable_rule(Name="hourly")
    events.remove_targets(Rule="hourly", Ids=["0"])
    events.delete_rule(Name="hourly")
    served.advance(hours=2)
    assert [moment for moment, _ in served.started(machine)] == [START + timedelta(hours=1), START + timedelta(hours=2)]


def test_an_idle_auto_clock_does_not_run_ahead_through_a_schedule(new_cloud: Callable[[str], Cloud]) -> None:
    with Emulator(Settings(clock="auto")) as emulator:
        server = HttpServer(emulator.server_app, "127.0.0.1", 0).start()
        try:
            cloud = new_cloud(server.endpoint_url)
            machine = cloud.machine("daily", PASS)
            before = emulator.clock.now()
            cloud.rule("daily", [{"Arn": machine}], ScheduleExpression="rate(1 day)")
            assert emulator.clock.run_until_idle(30)
            assert emulator.clock.now() - before < timedelta(hours=1)
            assert cloud.client("stepfunctions").list_executions(stateMachineArn=machine)["executions"] == []
            [firing] = emulator.eventbridge.targeting(machine)
            assert before + timedelta(days=1) <= firing["next"] <= emulator.clock.now() + timedelta(days=1)
        finally:
            server.stop()
