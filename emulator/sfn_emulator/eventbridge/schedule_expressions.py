"""When a schedule fires, by the rules of EventBridge (rules with a ScheduleExpression) and EventBridge
Scheduler (schedules), on the emulator's clock:

- `rate(value unit)`: every `value` minutes, hours or days (a day is 24 hours, whatever daylight saving
  time does). A rule's rate first fires one period after the rule is created (EventBridge user guide,
  "Creating a rule that runs on a schedule"); a schedule's first fires at its StartDate, or at once when
  it has none (Scheduler user guide, "Schedule types": rate-based schedules).
- `cron(minutes hours day-of-month month day-of-week year)`: AWS's six-field cron, with `, - * / ? L W #`
  and day-of-week 1-7 (SUN-SAT) or names, read by pyawscron; the next minute that matches after the
  previous firing.
- `at(yyyy-mm-ddThh:mm:ss)`: once, at that time (Scheduler only).
- Rules run in UTC. A schedule's cron and at expressions are read in its ScheduleExpressionTimezone:
  a local time that daylight saving time skips is not fired, and one it repeats fires once (Scheduler
  user guide, "Daylight saving time"). StartDate and EndDate bound every firing.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import Protocol
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

_RATE = re.compile(r"rate\(\s*(\d+)\s+(minute|minutes|hour|hours|day|days)\s*\)\Z")
_CRON = re.compile(r"cron\((.*)\)\Z")
_AT = re.compile(r"at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)\Z")
_UNIT_SECONDS = {"minute": 60, "hour": 3600, "day": 86400}
_SEARCH_LIMIT = 1000  # candidate local times tried past skipped ones (a DST gap skips at most a few)


class InvalidScheduleExpression(ValueError):
    """An expression EventBridge would refuse; the message says why."""


class Schedule(Protocol):
    def next_after(self, moment: datetime) -> datetime | None:
        """The first firing strictly after `moment` (UTC), or None when there is none."""


class Rate:
    def __init__(self, period: timedelta, anchor: datetime, *, fires_at_anchor: bool) -> None:
        self.period = period
        self.anchor = anchor
        self.fires_at_anchor = fires_at_anchor

    def next_after(self, moment: datetime) -> datetime | None:
        if moment < self.anchor:
            return self.anchor if self.fires_at_anchor else self.anchor + self.period
        periods = (moment - self.anchor) // self.period + 1
        return self.anchor + self.period * periods


# Each field's range (EventBridge user guide, "Cron expressions"); names stand for their numbers.
_FIELD_RANGES = ((0, 59), (0, 23), (1, 31), (1, 12), (1, 7), (1970, 2199))
_NUMBER = re.compile(r"\d+")


def _check_cron(fields: str) -> None:
    """Refuse what EventBridge refuses and pyawscron would read anyway: a wrong field count, a number
    out of its field's range, and day-of-month and day-of-week both given (one must be `?`)."""
    parts = fields.split()
    if len(parts) != 6:
        raise InvalidScheduleExpression(f"Parameter ScheduleExpression is not valid: cron({fields}) needs 6 fields")
    for part, (low, high) in zip(parts, _FIELD_RANGES):
        for number in _NUMBER.findall(part.split("#")[0].split("/")[0]):
            if not low <= int(number) <= high:
                raise InvalidScheduleExpression(f"Parameter ScheduleExpression is not valid: cron({fields})")
    if (parts[2] == "?") == (parts[4] == "?"):
        raise InvalidScheduleExpression(f"Parameter ScheduleExpression is not valid: cron({fields}): one of "
                                        "day-of-month and day-of-week must be '?'")


class Cron:
    def __init__(self, fields: str, zone: ZoneInfo) -> None:
        from pyawscron import AWSCron

        _check_cron(fields)
        try:
            self._cron = AWSCron(fields)
        except Exception as problem:
            raise InvalidScheduleExpression(f"Parameter ScheduleExpression is not valid: cron({fields}): {problem}") from None
        self._zone = zone

    def next_after(self, moment: datetime) -> datetime | None:
        # pyawscron counts in a naive calendar: give it the zone's wall time, labelled UTC.
        wall = moment.astimezone(self._zone).replace(tzinfo=timezone.utc)
        for _ in range(_SEARCH_LIMIT):
            candidate = self._cron.occurrence(wall).next()
            if candidate is None:
                return None
            wall = candidate
            instant = _instant(candidate.replace(tzinfo=None), self._zone)
            if instant is not None and instant > moment:
                return instant
        return None


class At:
    def __init__(self, when: datetime | None) -> None:
        self.when = when

    def next_after(self, moment: datetime) -> datetime | None:
        return self.when if self.when is not None and self.when > moment else None


class Bounded:
    """A schedule fired only from `start` to `end`."""

    def __init__(self, schedule: Schedule, start: datetime | None, end: datetime | None) -> None:
        self.schedule, self.start, self.end = schedule, start, end

    def next_after(self, moment: datetime) -> datetime | None:
        if self.start is not None and moment < self.start:
            moment = self.start - timedelta(microseconds=1)
        due = self.schedule.next_after(moment)
        return None if due is None or (self.end is not None and due > self.end) else due


def _instant(wall: datetime, zone: ZoneInfo) -> datetime | None:
    """The UTC instant of a wall time in `zone` (its first, where DST repeats it); None where DST skips it."""
    instant = wall.replace(tzinfo=zone, fold=0).astimezone(timezone.utc)
    if instant.astimezone(zone).replace(tzinfo=None) != wall:
        return None
    return instant


def _zone(name: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        raise InvalidScheduleExpression(f"Invalid time zone: {name}") from None


def rule_schedule(expression: str, created: datetime) -> Schedule:
    """An EventBridge rule's schedule (UTC; a rate first fires one period after `created`)."""
    rate = _RATE.match(expression.strip())
    if rate:
        return Rate(_period(rate), created, fires_at_anchor=False)
    cron = _CRON.match(expression.strip())
    if cron:
        return Cron(cron.group(1).strip(), ZoneInfo("UTC"))
    raise InvalidScheduleExpression(f"Parameter ScheduleExpression is not valid: {expression}")


def scheduler_schedule(expression: str, created: datetime, *, zone: str | None = None,
                       start: datetime | None = None, end: datetime | None = None) -> Schedule:
    """An EventBridge Scheduler schedule (see the module docstring)."""
    text = expression.strip()
    local = _zone(zone)
    rate = _RATE.match(text)
    if rate:
        schedule: Schedule = Rate(_period(rate), start or created, fires_at_anchor=True)
    elif _CRON.match(text):
        schedule = Cron(_CRON.match(text).group(1).strip(), local)  # type: ignore[union-attr]
    elif _AT.match(text):
        wall = datetime.fromisoformat(_AT.match(text).group(1))  # type: ignore[union-attr]
        schedule = At(_instant(wall, local))
    else:
        raise InvalidScheduleExpression(f"Invalid Schedule Expression {expression}.")
    return Bounded(schedule, start, end)


def _period(rate: re.Match[str]) -> timedelta:
    value = int(rate.group(1))
    if value < 1:
        raise InvalidScheduleExpression("Parameter ScheduleExpression is not valid: the rate must be positive")
    return timedelta(seconds=value * _UNIT_SECONDS[rate.group(2).rstrip("s")])
