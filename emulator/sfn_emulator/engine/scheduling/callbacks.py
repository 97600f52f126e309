"""Callbacks: task tokens (SendTaskSuccess/Failure/Heartbeat) and activity queues (GetActivityTask).

These are the only tables other threads touch: API threads look tokens up and take activity tasks
under the engine's lock (`cv`), and hand everything else to the engine thread as commands (`post`).
The rest runs on the engine thread. A wait counts against its execution in `waiting_outside` until
it is answered or ends: the clock rule keeps such an execution's deadlines in wall time.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable
from datetime import datetime
from typing import Any, Callable

from msgspec import Struct

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import HeartbeatTimedOut, StatesError
from sfn_emulator.clock.virtual_clock import after, wall_monotonic
from sfn_emulator.engine.effects import AwaitToken, ScheduleActivity
from sfn_emulator.engine.errors import InvalidTaskToken, TaskNotFound, TaskTimedOutError
from sfn_emulator.engine.frame import Run
from sfn_emulator.engine.outstanding import QueuedActivityTask, WaitingCallback
from sfn_emulator.engine.scheduling.fibers import Fiber, Fibers
from sfn_emulator.engine.scheduling.timers import Timer, Timers

MAX_TOKEN_LENGTH = 2048


class TokenWait(Struct, eq=False):
    """A task token given out: the answer may come before the interpreter awaits it."""

    token: str
    run: Run
    owner: Callbacks
    fiber: Fiber | None = None  # None until the interpreter awaits the token
    early: tuple[Any, StatesError | None] | None = None  # an answer that came before the await
    timeout: Timer | None = None
    heartbeat: Timer | None = None
    heartbeat_seconds: float | None = None
    timed_out: bool = False
    # Set while a `.sync` task waits for its job: SendTaskSuccess/Failure with its token answers it.
    answered: Callable[[Any, StatesError | None], None] | None = None

    def cancel(self) -> None:
        self.owner.close(self)


class ActivityTask(Struct, eq=False):
    """A task waiting in an activity's queue for GetActivityTask."""

    activity_arn: str
    token: str
    input: str
    fiber: Fiber
    taken: bool = False
    expired: bool = False
    owner: Callbacks | None = None

    def cancel(self) -> None:
        self.expired = True
        if self.owner is not None:
            self.owner.close_token(self.token)


class Callbacks:
    """Task tokens and activity tasks, with their timeouts and heartbeats."""

    def __init__(self, cv: threading.Condition, *, fibers: Fibers, timers: Timers, now: Callable[[], datetime],
                 post: Callable[[Callable[[], None]], None], closed: Callable[[], bool]) -> None:
        self._cv = cv
        self._fibers = fibers
        self._timers = timers
        self._now = now
        self._post = post
        self._closed = closed
        self._tokens: dict[str, TokenWait] = {}
        self._activities: dict[str, deque[ActivityTask]] = {}
        self._waits: dict[str, int] = {}  # execution ARN -> pending callback/activity waits

    # -- any thread ------------------------------------------------------------------------------
    def answer(self, token: str, output: Any, error: StatesError | None) -> None:
        """SendTaskSuccess / SendTaskFailure: raises AWS's error for a bad, unknown or timed-out token."""
        with self._cv:
            wait = self._lookup(token)
            self._post(lambda: self._deliver(wait, output, error))

    def check(self, token: str) -> None:
        """Raise AWS's error for a bad, unknown or timed-out token, answering nothing: the token is
        checked before anything else a request carries (its output)."""
        with self._cv:
            self._lookup(token)

    def heartbeat(self, token: str) -> None:
        """SendTaskHeartbeat: the heartbeat deadline starts again, counted from the heartbeat's arrival
        (not from when the engine thread takes it up: the clock may have moved in between)."""
        with self._cv:
            wait = self._lookup(token)
            received = self._now()
            self._post(lambda: self._beat(wait, received))

    def poll_activity(self, activity_arn: str, worker_name: str | None, timeout_seconds: float) -> ActivityTask | None:
        """Take the oldest task queued for the activity, waiting up to `timeout_seconds` of wall time."""
        with self._cv:
            deadline = None
            while True:
                queue = self._activities.get(activity_arn)
                while queue:
                    task = queue.popleft()
                    if not task.expired:
                        task.taken = True
                        self._post(lambda task=task: self._activity_taken(task, worker_name))
                        return task
                if self._closed():
                    return None
                now = wall_monotonic()  # a long poll is a network wait, not workflow time
                deadline = deadline if deadline is not None else now + timeout_seconds
                if now >= deadline:
                    return None
                self._cv.wait(deadline - now)

    def token_execution(self, token: str) -> str | None:
        """The ARN of the execution that issued `token`, None if no known task has it."""
        with self._cv:
            wait = self._tokens.get(token)
            return wait.run.execution.arn if wait is not None else None

    def outstanding(self) -> tuple[tuple[WaitingCallback, ...], tuple[QueuedActivityTask, ...]]:
        """The tokens awaiting a callback and the activity tasks awaiting a worker, as a snapshot."""
        with self._cv:
            waits = list(self._tokens.values())
            queues = [list(queue) for queue in self._activities.values()]
        callbacks = tuple(WaitingCallback(wait.token, wait.run.execution.arn) for wait in waits
                          if wait.fiber is not None and wait.fiber.waiting is wait and not wait.timed_out)
        tasks = tuple(QueuedActivityTask(task.activity_arn, task.fiber.run.execution.arn, task.input)
                      for queue in queues for task in queue if not (task.taken or task.expired or task.fiber.done))
        return callbacks, tasks

    def forget_activity(self, activity_arn: str) -> None:
        """Drop the queue of a deleted activity (tasks already scheduled stay until they time out)."""
        with self._cv:
            self._activities.pop(activity_arn, None)

    # -- the engine thread -----------------------------------------------------------------------
    def find(self, token: str | None) -> TokenWait | None:
        """The wait behind a token given out, if any."""
        with self._cv:
            return self._tokens.get(token) if token else None

    def register(self, token: str, run: Run) -> TokenWait:
        """The wait behind a token about to be given out (the same one if it exists already)."""
        with self._cv:
            wait = self._tokens.get(token)
            if wait is None:
                wait = self._tokens[token] = TokenWait(token, run, self)
            return wait

    def await_token(self, fiber: Fiber, effect: AwaitToken) -> None:
        wait = self.register(effect.token, fiber.run)
        wait.fiber = fiber
        fiber.waiting = wait
        if wait.early is not None:
            result, error = wait.early
            self.close(wait)
            self._fibers.resume(fiber, result, error)
            return
        self._count(fiber.run.execution.arn, +1)
        counted_from = effect.counted_from or self._now()
        if effect.timeout_seconds and wait.timeout is None:
            wait.timeout = self._timers.set(after(counted_from, effect.timeout_seconds),
                                            lambda: self._expired(wait, StatesError(names.TIMEOUT)),
                                            skippable=False)
        if effect.heartbeat_seconds:
            wait.heartbeat_seconds = effect.heartbeat_seconds
            if wait.heartbeat is None:
                self._beat(wait, effect.heartbeat_from or counted_from)  # from the task's start, as its timeout

    def schedule_activity(self, fiber: Fiber, effect: ScheduleActivity) -> None:
        task = ActivityTask(effect.activity_arn, effect.token, effect.input, fiber, owner=self)
        fiber.waiting = task
        wait = self.register(effect.token, fiber.run)
        if effect.timeout_seconds:
            wait.timeout = self._timers.set(after(self._now(), effect.timeout_seconds),
                                            lambda: self._activity_expired(task, wait), skippable=False)
        self._count(fiber.run.execution.arn, +1)
        with self._cv:
            self._activities.setdefault(effect.activity_arn, deque()).append(task)
            self._cv.notify_all()

    def close(self, wait: TokenWait, *, keep_as_timed_out: bool = False) -> None:
        """The wait is over: its timers stop, and (unless it timed out) its token is forgotten."""
        for timer in (wait.timeout, wait.heartbeat):
            if timer:
                timer.cancel()
        if wait.fiber is not None and wait.early is None:
            self._count(wait.run.execution.arn, -1)
        if not keep_as_timed_out:
            with self._cv:
                self._tokens.pop(wait.token, None)

    def close_token(self, token: str) -> None:
        wait = self._tokens.get(token)
        if wait:
            self.close(wait)

    def waiting_outside(self) -> Iterable[str]:
        """The executions waiting for a callback or an activity worker."""
        return [arn for arn, waits in self._waits.items() if waits]

    def forget_execution(self, arn: str) -> None:
        self._waits.pop(arn, None)

    # -- internals -------------------------------------------------------------------------------
    def _lookup(self, token: str) -> TokenWait:
        """Find the wait behind a token sent by a client (caller holds the lock)."""
        if not token or len(token) > MAX_TOKEN_LENGTH:
            raise InvalidTaskToken(f"Invalid Token: '{token}'")
        wait = self._tokens.get(token)
        if wait is None:
            if len(token) != 64 or any(ch not in "0123456789abcdef" for ch in token):
                raise InvalidTaskToken(f"Invalid Token: '{token}'")
            raise TaskNotFound("Task Token does not exist")
        if wait.timed_out:
            raise TaskTimedOutError("Task Timed Out")
        return wait

    def _count(self, arn: str, change: int) -> None:
        self._waits[arn] = max(0, self._waits.get(arn, 0) + change)

    def _deliver(self, wait: TokenWait, output: Any, error: StatesError | None) -> None:
        if wait.timed_out:
            return
        if wait.answered is not None:
            wait.answered(output, error)
            return
        fiber = wait.fiber
        if fiber is None or fiber.waiting is not wait:
            wait.early = (output, error)  # answered while the integration call is still running
            return
        self.close(wait)
        self._fibers.resume(fiber, output, error)

    def _beat(self, wait: TokenWait, since: datetime | None = None) -> None:
        """(Re)start the heartbeat deadline, `heartbeat_seconds` after `since` (default: now)."""
        if wait.heartbeat_seconds is None or wait.timed_out:
            return
        if wait.heartbeat:
            wait.heartbeat.cancel()
        wait.heartbeat = self._timers.set(after(since or self._now(), wait.heartbeat_seconds),
                                          # AWS reports a missed heartbeat as States.Timeout (recorded twice)
                                          lambda: self._expired(wait, HeartbeatTimedOut()), skippable=False)

    def _expired(self, wait: TokenWait, error: StatesError) -> None:
        if wait.timed_out:
            return
        wait.timed_out = True
        fiber = wait.fiber
        self.close(wait, keep_as_timed_out=True)
        if fiber is not None and not fiber.done:
            self._fibers.resume(fiber, error=error)

    def _activity_taken(self, task: ActivityTask, worker_name: str | None) -> None:
        self._count(task.fiber.run.execution.arn, -1)
        if not task.fiber.done and task.fiber.waiting is task:
            self._fibers.resume(task.fiber, worker_name)

    def _activity_expired(self, task: ActivityTask, wait: TokenWait) -> None:
        if task.taken:
            self._expired(wait, StatesError(names.TIMEOUT))
            return
        task.expired = True
        wait.timed_out = True
        self._count(task.fiber.run.execution.arn, -1)
        if not task.fiber.done:
            self._fibers.resume(task.fiber, error=StatesError(names.TIMEOUT))
