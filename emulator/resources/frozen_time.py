"""Python callables see the emulator's clock: `datetime.now()`, `time.time()` inside a Lambda
handler agree with the execution history.

freezegun's freezing is process-wide and costs about 10 ms to start (it patches every loaded
module), so one freezer is kept while at least one callable runs, starting at the clock's time
and ticking with the wall clock (as virtual time does while a task runs: auto mode never jumps
then). The clock, the control plane and the HTTP server are on freezegun's ignore list, so their
own time keeping stays real. freezegun decides by looking at the five innermost frames of a call,
so nothing that sits just below a handler's frames (the engine's worker closure, the thread pool)
may be on that list: the engine reads time only through the clock.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from datetime import datetime
from typing import Any, Callable, Iterator

IGNORED_MODULES = (
    "sfn_emulator.clock",
    "sfn_emulator.service",
    "sfn_emulator.wire",
    "sfn_emulator.runtime",
    "waitress",
    "werkzeug",
    "flask",
    "logging",
)


class ClockTime:
    """A reference-counted freezegun window at the clock's time."""

    def __init__(self, now: Callable[[], datetime]) -> None:
        self._now = now
        self._lock = threading.Lock()
        self._users = 0
        self._freezer: Any = None

    @contextmanager
    def frozen(self) -> Iterator[None]:
        with self._lock:
            if self._users == 0:
                from freezegun import freeze_time  # imported when a callable first runs, not at start-up

                self._freezer = freeze_time(self._now(), tick=True, ignore=list(IGNORED_MODULES))
                self._freezer.start()
            self._users += 1
        try:
            yield
        finally:
            with self._lock:
                self._users -= 1
                if self._users == 0:
                    self._freezer.stop()
                    self._freezer = None
