"""Event waits: executions waiting for CloudEvents published to the emulator (`AwaitEvent`), the
table `POST /_emulator/events` answers, like the task tokens of `callbacks`.

A wait lists the events it needs (`EventMatch`es) and whether any one of them ends it or all of
them must arrive. Each published event goes to every wait that still needs an event it matches (an
event serves each wait once, at most one of its matches); a wait that has what it needs resumes its
fiber with the events it consumed, by match index. An event nobody waits for is not kept. A wait
counts as "waiting outside" for the auto clock's rule 3: its timeout is a deadline someone outside
can meet, as a callback's is. Everything here runs on the engine thread.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any, Callable

from msgspec import Struct, field

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.clock.virtual_clock import after
from sfn_emulator.engine.effects import AwaitEvent
from sfn_emulator.engine.scheduling.fibers import Fiber, Fibers
from sfn_emulator.engine.scheduling.timers import Timer, Timers


class EventWait(Struct, eq=False):
    """One fiber waiting for events."""

    fiber: Fiber
    effect: AwaitEvent
    owner: EventWaits
    received: dict[int, dict[str, Any]] = field(default_factory=dict)  # match index -> event consumed
    correlated: dict[str, Any] = field(default_factory=dict)  # correlation attribute -> value its events fixed
    timeout: Timer | None = None

    def cancel(self) -> None:
        self.owner.close(self)

    @property
    def satisfied(self) -> bool:
        if self.effect.all_of:
            return len(self.received) == len(self.effect.matches)
        return bool(self.received)


class EventWaits:
    """Every event wait, in the order they began; and the events each execution produced."""

    def __init__(self, *, fibers: Fibers, timers: Timers, now: Callable[[], datetime]) -> None:
        self._fibers = fibers
        self._timers = timers
        self._now = now
        self._waits: list[EventWait] = []
        self._produced: dict[str, list[dict[str, Any]]] = {}  # execution ARN -> events it produced

    def await_events(self, fiber: Fiber, effect: AwaitEvent) -> None:
        wait = EventWait(fiber, effect, self)
        fiber.waiting = wait
        self._waits.append(wait)
        if effect.timeout_seconds is not None:
            wait.timeout = self._timers.set(after(self._now(), effect.timeout_seconds),
                                            lambda: self._timed_out(wait), skippable=False)

    def deliver(self, event: dict[str, Any]) -> list[str]:
        """Hand `event` to every wait that needs it; the ARNs of the executions that consumed it."""
        consumers: list[str] = []
        for wait in list(self._waits):
            index = next((number for number, match in enumerate(wait.effect.matches)
                          if number not in wait.received and match.matches(event)
                          and all(event.get(name) == wait.correlated[name] for name in match.correlate
                                  if name in wait.correlated)), None)
            if index is None or wait.fiber.done:
                continue
            wait.received[index] = event
            for name in wait.effect.matches[index].correlate:
                wait.correlated.setdefault(name, event.get(name))
            arn = wait.fiber.run.execution.arn
            if arn not in consumers:
                consumers.append(arn)
            if wait.satisfied:
                self.close(wait)
                self._fibers.resume(wait.fiber, dict(wait.received))
        return consumers

    def produced(self, execution_arn: str, event: dict[str, Any]) -> None:
        self._produced.setdefault(execution_arn, []).append(event)

    def produced_by(self, execution_arn: str) -> list[dict[str, Any]]:
        return list(self._produced.get(execution_arn, ()))

    def close(self, wait: EventWait) -> None:
        if wait.timeout:
            wait.timeout.cancel()
        if wait in self._waits:
            self._waits.remove(wait)

    def waiting_outside(self) -> Iterable[str]:
        """The executions waiting for an event."""
        return [wait.fiber.run.execution.arn for wait in self._waits if not wait.fiber.done]

    def forget_execution(self, arn: str) -> None:
        for wait in [wait for wait in self._waits if wait.fiber.run.execution.arn == arn]:
            self.close(wait)

    def _timed_out(self, wait: EventWait) -> None:
        if wait not in self._waits:
            return
        self.close(wait)
        if not wait.fiber.done:
            self._fibers.resume(wait.fiber, error=StatesError(names.TIMEOUT, "no awaited event arrived in time"))
