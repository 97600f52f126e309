"""Task lists: the decision and activity tasks waiting for a poller, and the long polls waiting for
them. A poll answers as soon as a task arrives, or after 60 s of clock time with nothing; while the
clock stands still (manual mode), after 60 s of wall time at most, as AWS's own poll would. Polls
wait on events, set when work arrives or the clock moves: nothing sleeps in a loop. At most 1,000
polls wait on one task list at a time (AWS's quota, "Maximum pollers per task list"): one more is
refused with LimitExceededFault."""

from __future__ import annotations

import threading
from typing import Any, Callable, Hashable, TypeVar

from sfn_emulator.clock.virtual_clock import Clock, after, wall_monotonic
from sfn_emulator.swf.faults import LimitExceededFault

POLL_SECONDS = 60.0
POLLERS_PER_TASK_LIST = 1000
Answer = TypeVar("Answer")


class TaskLists:
    """Queues keyed by (account, region, domain, kind, task list); `lock` guards them (the
    service's lock), `_waiters_lock` only the set of waiting polls (a leaf: nothing else is taken
    while it is held, so the clock may wake polls from any thread)."""

    def __init__(self, clock: Clock, lock: threading.RLock) -> None:
        self._clock = clock
        self._lock = lock
        self._queues: dict[Hashable, list[tuple[int, int, Any]]] = {}  # (-priority, sequence, task)
        self._sequence = 0
        self._waiters: dict[Hashable, set[threading.Event]] = {}
        self._waiters_lock = threading.Lock()
        self._closed = False
        clock.watch(self.wake_all)

    def offer(self, key: Hashable, task: Any, priority: str | None) -> None:
        """A task is ready for a poller of `key` (the caller holds the lock)."""
        self._sequence += 1
        self._queues.setdefault(key, []).append((-int(priority or 0), self._sequence, task))
        self._wake(key)

    def withdraw(self, key: Hashable, task: Any) -> None:
        queue = self._queues.get(key)
        if queue:
            queue[:] = [entry for entry in queue if entry[2] is not task]

    def count(self, key: Hashable) -> int:
        return len(self._queues.get(key, ()))

    def poll(self, key: Hashable, take: Callable[[Any], Answer | None]) -> Answer | None:
        """The first task of `key` that `take` accepts (highest priority, then oldest), waiting for
        one as a long poll does; None when the poll ends empty."""
        deadline = after(self._clock.now(), POLL_SECONDS)
        wall_end = wall_monotonic() + POLL_SECONDS
        while True:
            event = threading.Event()
            with self._lock:
                queue = self._queues.get(key)
                while queue:
                    queue.sort(key=lambda entry: entry[:2])
                    _, _, task = queue.pop(0)
                    answer = take(task)
                    if answer is not None:
                        return answer
                if self._closed or self._clock.now() >= deadline or wall_monotonic() >= wall_end:
                    return None
                with self._waiters_lock:
                    waiting = self._waiters.setdefault(key, set())
                    if len(waiting) >= POLLERS_PER_TASK_LIST:
                        raise LimitExceededFault(f"The task list already has {POLLERS_PER_TASK_LIST} pollers waiting.")
                    waiting.add(event)
            try:
                wall_left = wall_end - wall_monotonic()
                until_deadline = self._clock.wall_seconds_until(deadline)
                event.wait(wall_left if until_deadline is None else min(wall_left, until_deadline))
            finally:
                with self._waiters_lock:
                    self._waiters.get(key, set()).discard(event)

    def waiting(self) -> int:
        """How many polls wait now (a test that must know its poll began asks this)."""
        with self._waiters_lock:
            return sum(len(waiting) for waiting in self._waiters.values())

    def close(self) -> None:
        """The service closes: every poll under way ends now, empty, and none waits from now on."""
        self._closed = True
        self.wake_all()

    def wake_all(self) -> None:
        """Time moved (or the service closes): every poll looks at its deadline again."""
        with self._waiters_lock:
            events = [event for waiting in self._waiters.values() for event in waiting]
        for event in events:
            event.set()

    def _wake(self, key: Hashable) -> None:
        with self._waiters_lock:
            events = list(self._waiters.get(key, ()))
        for event in events:
            event.set()
