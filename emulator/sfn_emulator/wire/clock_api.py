"""`/_emulator/clock`: read and move the virtual clock over HTTP, for tests in any language.

`GET` answers `{"now": "2024-01-01T00:00:00.000Z", "mode": "auto"}`, with `"heldBy": [executionArn, ...]`
while executions whose outsiders race a deadline keep the auto clock from jumping. `POST` takes a JSON object
with any of `mode`, `skipExternalDeadlines`, `set` and `advance`, applies them in that order and
answers like `GET` once every timer due by the new time has fired and the executions it woke have
run until they block again (the clock's `advance` and `set` wait for that). The whole body is
checked before anything is applied: a bad one changes nothing and gets a 400 `{"message": ...}`.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any, Protocol

from msgspec import Struct

from flask import Flask, Response, request

from sfn_emulator.clock.virtual_clock import MODES, Clock, format_time, parse_time

CLOCK_PATH = "/_emulator/clock"
_KEYS = ("mode", "skipExternalDeadlines", "set", "advance")


class DeadlineSkipping(Protocol):
    """The part of the engine that decides whether auto mode may skip deadlines outsiders race."""

    skip_external_deadlines: bool

    def wake(self) -> None: ...

    def run_until_idle(self, timeout: float | None = None) -> bool: ...

    def clock_holders(self) -> list[str]: ...


class BadClockRequest(ValueError):
    """A POST body the clock cannot apply; the message says what to change."""


class ClockChange(Struct, frozen=True):
    """A checked POST body: each field None when not asked for."""

    mode: str | None = None
    skip_external_deadlines: bool | None = None
    set: datetime | None = None
    advance: timedelta | None = None


def parse_clock_change(raw: bytes, now: datetime) -> ClockChange:
    """The change a POST body asks for, checked against the clock's current time `now`."""
    try:
        body = json.loads(raw, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as error:
        raise BadClockRequest(f"The request body is not valid JSON: {error}") from None
    if not isinstance(body, dict) or not body:
        raise BadClockRequest(f"The request body must be a JSON object with any of {_listed(_KEYS)}")
    unknown = [key for key in body if key not in _KEYS]
    if unknown:
        raise BadClockRequest(f"Unknown key {_listed(json.dumps(key) for key in unknown)} in the request body; "
                              f"allowed: {_listed(_KEYS)}")
    mode = body.get("mode")
    if mode is not None and mode not in MODES:
        raise BadClockRequest(f"mode must be one of {_listed(MODES)}, not {json.dumps(mode)}")
    skip = body.get("skipExternalDeadlines")
    if skip is not None and not isinstance(skip, bool):
        raise BadClockRequest(f"skipExternalDeadlines must be true or false, not {json.dumps(skip)}")
    moment = _moment(body["set"], now) if "set" in body else None
    delta = _delta(body["advance"]) if "advance" in body else None
    if delta is not None:
        try:
            max(moment or now, now) + delta
        except OverflowError:
            raise BadClockRequest(f"advance of {body['advance']} seconds moves the clock past year 9999") from None
    return ClockChange(mode, skip, moment, delta)


def _moment(value: Any, now: datetime) -> datetime:
    if not isinstance(value, str):
        raise BadClockRequest(f"set must be an ISO-8601 time string such as 2024-01-01T00:00:00Z, not {json.dumps(value)}")
    try:
        moment = parse_time(value)
    except ValueError:
        raise BadClockRequest(f"set: {json.dumps(value)} is not an ISO-8601 time such as 2024-01-01T00:00:00Z") from None
    if moment < now:
        raise BadClockRequest(f"The clock cannot be set backwards: {format_time(moment)} is before now, {format_time(now)}")
    return moment


def _delta(value: Any) -> timedelta:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise BadClockRequest(f"advance must be a number of seconds >= 0, not {json.dumps(value)}")
    try:
        return timedelta(seconds=value)
    except OverflowError:
        raise BadClockRequest(f"advance of {value} seconds moves the clock past year 9999") from None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _listed(names: Any) -> str:
    return ", ".join(names)


def apply_clock_change(change: ClockChange, clock: Clock, engine: DeadlineSkipping) -> None:
    """Apply a checked change: mode, deadline skipping, set, advance; each waits for the engine to settle."""
    if change.mode is not None:
        clock.mode = change.mode
    if change.skip_external_deadlines is not None:
        engine.skip_external_deadlines = change.skip_external_deadlines
        engine.wake()
        engine.run_until_idle()
    if change.set is not None:
        try:
            clock.set(change.set)
        except ValueError:
            # It was not in the past when checked: the clock has since passed it by itself (auto or
            # real mode) or through another request, which is what setting it would have done.
            clock.run_until_idle()
    if change.advance is not None:
        clock.advance(change.advance)


class ClockEndpoint:
    """GET and POST on `/_emulator/clock`."""

    def __init__(self, clock: Clock, engine: DeadlineSkipping) -> None:
        self._clock = clock
        self._engine = engine

    def __call__(self) -> Response:
        if request.method == "POST":
            try:
                change = parse_clock_change(request.get_data(cache=False), self._clock.now())
            except BadClockRequest as error:
                return _json({"message": str(error)}, status=400)
            apply_clock_change(change, self._clock, self._engine)
        answer: dict[str, Any] = {"now": format_time(self._clock.now()), "mode": self._clock.mode}
        holders = self._engine.clock_holders()
        if holders:
            answer["heldBy"] = holders
        return _json(answer)


def _json(body: dict[str, Any], status: int = 200) -> Response:
    return Response(json.dumps(body), status=status, content_type="application/json")


def mount_clock_api(app: Flask, clock: Clock, engine: DeadlineSkipping) -> None:
    """Serve `GET`/`POST /_emulator/clock` on `app`."""
    app.add_url_rule(CLOCK_PATH, "clock", ClockEndpoint(clock, engine), methods=["GET", "POST"],
                     provide_automatic_options=False)
