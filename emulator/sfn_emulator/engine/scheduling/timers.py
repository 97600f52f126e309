"""Timers: heaps ordered by (due, sequence), so timers due at the same instant fire in the order
they were set. A timer is cancelled by marking it; the heap drops it when it reaches the top. A timer
due `NEVER` (a delay past the clock's last instant) stays pending: no clock reaches it, nothing jumps to it.

A passive timer (a schedule's next firing) fires like any other once time reaches it, but never
draws the auto clock to it: otherwise a daily schedule would carry an idle clock forward for ever."""

from __future__ import annotations

import heapq
import itertools
import logging
from datetime import datetime, timedelta
from typing import Callable

from msgspec import Struct

from sfn_emulator.clock.virtual_clock import NEVER

log = logging.getLogger(__name__)


class Timer(Struct, eq=False):
    due: datetime
    fire: Callable[[], None]
    skippable: bool  # False for a deadline someone outside races (see `time_rule`)
    passive: bool = False  # reached only when time moves for another reason (see the module docstring)
    cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True


def new_timer(due: datetime, fire: Callable[[], None], *, skippable: bool, passive: bool = False) -> Timer:
    """A timer not yet in any heap; the clock counts whole milliseconds, so a deadline between two
    falls due at the later one."""
    if due.microsecond % 1000 and due != NEVER:
        due = due.replace(microsecond=due.microsecond - due.microsecond % 1000) + timedelta(milliseconds=1)
    return Timer(due, fire, skippable, passive)


class Timers:
    """Every timer of the engine: Waits, retry intervals, task, heartbeat and execution timeouts."""

    def __init__(self) -> None:
        self._heap: list[tuple[datetime, int, Timer]] = []
        self._passive: list[tuple[datetime, int, Timer]] = []
        self._sequence = itertools.count()
        self._outside_deadlines: set[Timer] = set()  # the timers set with skippable=False, until they fire

    def set(self, due: datetime, fire: Callable[[], None], *, skippable: bool) -> Timer:
        """A timer that calls `fire` once the clock reaches `due`."""
        return self.add(new_timer(due, fire, skippable=skippable))

    def add(self, timer: Timer) -> Timer:
        """Put a timer made by `new_timer` in the heap (the engine thread's call)."""
        heapq.heappush(self._passive if timer.passive else self._heap, (timer.due, next(self._sequence), timer))
        if not timer.skippable:
            self._outside_deadlines.add(timer)
        return timer

    def next_due(self) -> datetime | None:
        """When the next timer that may draw the auto clock falls due (passive ones never do); None
        when none ever will."""
        timer = _top(self._heap)
        return timer.due if timer and timer.due != NEVER else None

    def next_wake(self) -> datetime | None:
        """When the next timer of any kind falls due (a move by hand steps through passive ones too,
        and the engine waits for them while time flows); None when none ever will."""
        timer = self._next()
        return timer.due if timer and timer.due != NEVER else None

    def earliest_pending(self) -> datetime | None:
        """When the earliest timer not cancelled falls due, of those that may draw the clock (the
        console's "next timer"; a schedule's is reached by moving the clock); safe from any thread
        (reads a copy)."""
        return min((due for due, _, timer in list(self._heap) if not timer.cancelled and due != NEVER), default=None)

    def is_due(self, now: datetime) -> bool:
        timer = self._next()
        return timer is not None and timer.due <= now

    def fire_due(self, now: datetime) -> None:
        """Fire every timer due by `now`, in (due, sequence) order."""
        while True:
            timer = self._next()
            if timer is None or timer.due > now:
                return
            heapq.heappop(self._passive if timer.passive else self._heap)
            self._outside_deadlines.discard(timer)
            try:
                timer.fire()
            except Exception:  # one timer's failure must not stop the others
                log.exception("timer failed")

    def outside_deadline_set(self) -> bool:
        """Is a timer set with skippable=False still pending?"""
        self._outside_deadlines = {timer for timer in self._outside_deadlines if not timer.cancelled}
        return bool(self._outside_deadlines)

    def _next(self) -> Timer | None:
        """The earliest timer of either heap (the active one first at equal instants and sequence)."""
        active, passive = _top(self._heap), _top(self._passive)
        if active is None or passive is None:
            return active or passive
        return passive if (self._passive[0][:2]) < (self._heap[0][:2]) else active


def _top(heap: list[tuple[datetime, int, Timer]]) -> Timer | None:
    """The first timer of `heap` not cancelled (the cancelled ones above it are dropped)."""
    while heap and heap[0][2].cancelled:
        heapq.heappop(heap)
    return heap[0][2] if heap else None
