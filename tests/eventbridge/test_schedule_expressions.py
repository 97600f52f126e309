"""When schedules fire: rules' and EventBridge Scheduler's expressions, table-driven (the table names
its sources), and the expressions EventBridge refuses."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

import pytest
from helpers.paths import FIXTURES_ROOT

from sfn_emulator.eventbridge.schedule_expressions import (
    InvalidScheduleExpression,
    rule_schedule,
    scheduler_schedule,
)

CASES = json.loads((FIXTURES_ROOT / "eventbridge" / "schedule_expressions.json").read_text())["cases"]


def _moment(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text.replace("Z", "+00:00")) if text else None


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_firings(case: dict[str, Any]) -> None:
    created = _moment(case["after"])
    assert created is not None
    if case["kind"] == "rule":
        schedule = rule_schedule(case["expression"], created)
    else:
        schedule = scheduler_schedule(case["expression"], created, zone=case.get("zone"),
                                      start=_moment(case.get("start")), end=_moment(case.get("end")))
    firings: list[str] = []
    moment = created - timedelta(microseconds=1)
    for _ in range(len(case["fires"]) + 1):
        due = schedule.next_after(moment)
        if due is None:
            break
        firings.append(due.strftime("%Y-%m-%dT%H:%M:%SZ"))
        moment = due
    assert firings[:len(case["fires"])] == case["fires"]
    if not case["fires"]:
        assert firings == []


@pytest.mark.parametrize("expression", ["rate(0 days)", "rate(1 week)", "rate(5)", "every day", "cron(0 9 * *)",
                                        "cron(61 9 * * ? *)", "at(2024-01-01)"])
def test_an_expression_eventbridge_refuses_is_not_scheduled(expression: str) -> None:
    created = datetime.fromisoformat("2024-01-01T00:00:00+00:00")
    with pytest.raises(InvalidScheduleExpression):
        if expression.startswith("at("):
            scheduler_schedule(expression, created)
        else:
            rule_schedule(expression, created)


def test_an_unknown_time_zone_is_refused() -> None:
    with pytest.raises(InvalidScheduleExpression, match="Invalid time zone"):
        scheduler_schedule("cron(0 9 * * ? *)", datetime.fromisoformat("2024-01-01T00:00:00+00:00"), zone="Mars/Olympus")
