"""When time moves in auto mode: rules 1-4 of docs/clock.md, in one place.

1. While no execution is live (or starting), and while a task resource runs, time follows the
   wall clock.
2. When nothing can run and no task resource runs, time jumps to the next timer,
3. unless someone outside races a deadline (a callback, activity or heartbeat timeout, or the
   timeout of an execution that waits for them): then time follows the wall clock and nothing is
   jumped to, not even another execution's Wait. `skip_external_deadlines` turns this rule off.
4. Otherwise time stands still, so the engine's own work takes no time.
A `real` clock with scale 0 jumps like auto mode (it never reaches a timer by itself).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Callable

from sfn_emulator.clock.virtual_clock import Clock
from sfn_emulator.engine.scheduling.timers import Timers


class AutoTime:
    """Decides, each time the engine has nothing to run, whether the clock jumps, flows or stands."""

    def __init__(self, clock: Clock, timers: Timers, *, waiting_outside: Callable[[], Iterable[str]],
                 has_timeout: Callable[[str], bool], skip_external_deadlines: bool = False) -> None:
        self.clock = clock
        self.timers = timers
        self.skip_external_deadlines = skip_external_deadlines
        self._waiting_outside = waiting_outside  # executions waiting for a callback or an activity worker
        self._has_timeout = has_timeout  # does this execution have a TimeoutSeconds running?

    def when_idle(self, due: datetime | None, *, in_flight: int, starting: int, live: bool) -> bool:
        """Nothing can run: jump to `due` (the next timer) when the rules allow it and answer True
        (look again: the timer is due now); otherwise let time flow or hold it and answer False."""
        if due is not None and self._may_jump(in_flight):
            self.clock.jump_to(due)
            return True
        if self._needs_wall_time(in_flight=in_flight, starting=starting, live=live):
            self.clock.release()
        else:
            self.clock.hold()
        return False

    def _may_jump(self, in_flight: int) -> bool:
        mode = self.clock.mode
        if not (mode == "auto" or (mode == "real" and self.clock.scale == 0)) or in_flight:
            return False
        return self.skip_external_deadlines or not self.outside_deadline_pending()

    def _needs_wall_time(self, *, in_flight: int, starting: int, live: bool) -> bool:
        if self.clock.mode != "auto" or in_flight:
            return True
        if starting:
            return False
        if not live:
            return True
        return not self.skip_external_deadlines and self.outside_deadline_pending()

    def outside_deadline_pending(self) -> bool:
        """Is someone outside racing a deadline (rule 3)?"""
        if self.timers.outside_deadline_set():
            return True
        return any(self._has_timeout(arn) for arn in self._waiting_outside())

    def clock_holders(self) -> list[str]:
        """The executions that keep the clock from jumping by rule 3 (they wait for a callback or an
        activity worker while a deadline runs): what a test stuck in a Wait is told."""
        if self.skip_external_deadlines or not self.outside_deadline_pending():
            return []
        return list(self._waiting_outside())
