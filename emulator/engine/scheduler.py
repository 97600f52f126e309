"""The scheduler: runs every interpreter on one engine thread, owns every timer, and routes effects.

Threads: the engine thread alone steps interpreters and fires timers; task resources run on a
daemon thread per call (a slow or hanging callable blocks nobody); API threads talk to the engine through a
command queue and a few lock-guarded tables (task tokens, activity queues).

Time (see `sfn_emulator.clock`): timers sit in a heap ordered by (due, sequence), so timers due at the
same instant fire in the order they were set. In ``auto`` mode, when nothing is runnable and no
task resource is running, the engine jumps the clock to the next timer, unless someone outside
(a callback sender, an activity worker) is racing a deadline: a callback, activity or heartbeat
timeout, or the timeout of an execution that waits for them. Those actors live in wall time, so
while such a deadline is pending no timer is jumped to, not even another execution's Wait (a jump
would move time under their feet); the deadline arrives in wall time or when the clock is
advanced. With ``skip_external_deadlines`` every timer is jumped to. Otherwise the auto clock
stands still: it follows the wall clock only while a task resource runs or while a deadline
someone outside races is pending, so the engine's own work takes no virtual time and every
timestamp is reproducible (after a jump it stands still at the timer's due time).
"""

from __future__ import annotations

import heapq
import itertools
import json
import logging
import random
import threading
import uuid
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Callable

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.clock import Clock, wall_monotonic
from sfn_emulator.engine.effects import (
    Aborted,
    AnswersWholeTask,
    AwaitCompletion,
    AwaitToken,
    CheckActivity,
    Effect,
    Fork,
    Interpreter,
    Invoke,
    Reschedule,
    RunMapRun,
    ScheduleActivity,
    Sleep,
)
from sfn_emulator.engine.errors import InvalidTaskToken, NotRedrivable, TaskNotFound, TaskTimedOutError
from sfn_emulator.engine.execution import ABORTED, FAILED, RUNNING, SUCCEEDED, TIMED_OUT, Execution, MapRun
from sfn_emulator.engine.frame import Frame, Run, to_json_text
from sfn_emulator.engine.interpreter import run_execution, run_machine
from sfn_emulator.engine.outstanding import Outstanding, QueuedActivityTask, WaitingCallback
from sfn_emulator.resources.base import SyncResource, TaskResources

log = logging.getLogger(__name__)

STEPS_BEFORE_YIELD = 5000  # a fiber that never blocks still lets commands and timers through


@dataclass(eq=False)
class Timer:
    due: datetime
    fire: Callable[[], None]
    skippable: bool  # False for a deadline someone outside races (see `_outside_deadline_pending`)
    cancelled: bool = False


@dataclass(eq=False)
class Join:
    """A Fork in progress: the parent fiber waits for its children."""

    parent: Fiber
    factories: list[Callable[[], Interpreter]]
    max_concurrency: int
    interleave: bool
    results: list[Any]
    running: dict[Fiber, int] = field(default_factory=dict)
    next_index: int = 0
    remaining: int = 0
    failed: bool = False


@dataclass(eq=False)
class Fiber:
    """One running interpreter: an execution's top level, a Parallel branch or a Map iteration."""

    gen: Interpreter
    run: Run
    join: Join | None = None  # the Fork this fiber is a child of
    on_done: Callable[[Any, StatesError | None], None] | None = None  # instead of closing an execution
    waiting: Any = None  # what it is blocked on: Timer, _Call, _TokenWait, _ActivityTask, Join
    done: bool = False


@dataclass(eq=False)
class _Call:
    fiber: Fiber
    timer: Timer | None = None
    settled: bool = False


@dataclass(eq=False)
class _TokenWait:
    token: str
    run: Run
    fiber: Fiber | None = None  # None until the interpreter awaits the token
    early: tuple[Any, StatesError | None] | None = None  # an answer that came before the await
    timeout: Timer | None = None
    heartbeat: Timer | None = None
    heartbeat_seconds: float | None = None
    timed_out: bool = False


@dataclass(eq=False)
class _CompletionWait:
    fiber: Fiber
    result_of: Callable[[Execution], Any]


@dataclass(eq=False)
class _MapRunProgress:
    fiber: Fiber
    effect: RunMapRun
    results: list[Any]
    next_index: int = 0
    running: int = 0
    finished: int = 0
    failed: int = 0
    closed: bool = False


@dataclass(eq=False)
class ActivityTask:
    """A task waiting in an activity's queue for GetActivityTask."""

    activity_arn: str
    token: str
    input: str
    fiber: Fiber
    taken: bool = False
    expired: bool = False


class Engine:
    """Runs executions. Thread-safe entry points for the control plane; everything else is internal."""

    def __init__(self, clock: Clock, resources: TaskResources | None = None, *, seed: int = 0,
                 skip_external_deadlines: bool = False) -> None:
        self.clock = clock
        self.resources = resources or TaskResources()
        self.skip_external_deadlines = skip_external_deadlines
        self.activity_exists: Callable[[str], bool] = lambda arn: True
        self.on_finished: list[Callable[[Execution], None]] = []
        self.on_map_run: list[Callable[[MapRun], None]] = []  # a Distributed Map run begins
        self.on_child_execution: list[Callable[[Execution, MapRun], None]] = []  # one of its items starts
        self._seed = seed
        self._cv = threading.Condition()
        self._commands: list[Callable[[], None]] = []
        self._ready: deque[tuple[Fiber, Any, BaseException | None]] = deque()
        self._timers: list[tuple[datetime, int, Timer]] = []
        self._sequence = itertools.count()
        self._in_flight = 0
        self._starting = 0  # executions whose start instant is taken but that the engine has not taken up yet
        self._busy = False
        self._closed = False
        self._roots: dict[str, Fiber] = {}  # execution ARN -> top-level fiber
        self._runs: dict[str, Run] = {}  # execution ARN -> its run, kept after failure for redrive
        self._execution_timers: dict[str, Timer] = {}
        self._outside_deadlines: set[Timer] = set()  # the timers set with skippable=False, until they fire
        self._external_waits: dict[str, int] = {}  # execution ARN -> pending callback/activity waits
        self._tokens: dict[str, _TokenWait] = {}
        self._executions: dict[str, Execution] = {}  # every execution started, for `.sync` waits
        self._completion_waits: dict[str, list[_CompletionWait]] = {}
        self._map_children: dict[str, tuple[_MapRunProgress, int]] = {}  # child execution ARN -> (run, item)
        self._activities: dict[str, deque[ActivityTask]] = {}
        clock.attach(self)
        self._thread = threading.Thread(target=self._loop, name="sfn-engine", daemon=True)
        self._thread.start()

    # == entry points (any thread) ==================================================================
    @contextmanager
    def starting(self) -> Iterator[datetime]:
        """The instant an execution started within the block begins at. In auto mode time stands
        still from that instant until the engine has taken the execution up (`start` inside the
        block), so its first events share its startDate exactly."""
        with self._cv:
            self._starting += 1
            if self.clock.mode == "auto":
                self.clock.hold()
            instant = self.clock.now()
        try:
            yield instant
        finally:
            with self._cv:
                self._starting -= 1
                self._cv.notify_all()

    def start(self, execution: Execution) -> None:
        """Begin running `execution` (status RUNNING, start_date set by the caller)."""
        self._post(lambda: self._start(execution))

    def stop(self, execution: Execution, error: str | None = None, cause: str | None = None) -> None:
        """Abort a running execution (ExecutionAborted); returns once it is stopped."""
        self._call(lambda: self._abort(execution, error, cause))

    def redrive(self, execution: Execution) -> None:
        """Run a failed, timed-out or aborted execution again from the state where it stopped."""
        self._call(lambda: self._redrive(execution))

    def run_detached(self, run: Run, gen: Interpreter, timeout: float | None = None) -> tuple[Any, StatesError | None]:
        """Run one interpreter outside any execution's lifecycle (TestState) and return its outcome."""
        done = threading.Event()
        outcome: list[tuple[Any, StatesError | None]] = []

        def finish(result: Any, error: StatesError | None) -> None:
            outcome.append((result, error))
            done.set()

        self._post(lambda: self._resume(Fiber(gen, run, on_done=finish)))
        if not done.wait(timeout):
            raise TimeoutError("the state did not finish in time")
        return outcome[0]

    def wait(self, execution: Execution, timeout: float | None = None) -> bool:
        """Block until `execution` finishes; False on timeout."""
        return execution.finished.wait(timeout)

    def send_task_success(self, token: str, output: Any) -> None:
        self._answer(token, output, None)

    def send_task_failure(self, token: str, error: str | None, cause: str | None) -> None:
        self._answer(token, None, StatesError(error, cause))

    def send_task_heartbeat(self, token: str) -> None:
        with self._cv:
            wait = self._token_wait(token)
            self._commands.append(lambda: self._heartbeat(wait))
            self._cv.notify_all()

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
                        self._commands.append(lambda task=task: self._activity_taken(task, worker_name))
                        self._cv.notify_all()
                        return task
                if self._closed:
                    return None
                now = wall_monotonic()  # a long poll is a network wait, not workflow time
                deadline = deadline if deadline is not None else now + timeout_seconds
                if now >= deadline:
                    return None
                self._cv.wait(deadline - now)

    def forget_activity(self, activity_arn: str) -> None:
        """Drop the queue of a deleted activity (tasks already scheduled stay until they time out)."""
        with self._cv:
            self._activities.pop(activity_arn, None)

    def outstanding(self) -> Outstanding:
        """A snapshot of the tokens awaiting a callback, the activity tasks awaiting a worker and the
        next timer (read by the console; any thread)."""
        with self._cv:
            waits = list(self._tokens.values())
            queues = [list(queue) for queue in self._activities.values()]
            timers = list(self._timers)
        callbacks = tuple(WaitingCallback(wait.token, wait.run.execution.arn) for wait in waits
                          if wait.fiber is not None and wait.fiber.waiting is wait and not wait.timed_out)
        tasks = tuple(QueuedActivityTask(task.activity_arn, task.fiber.run.execution.arn, task.input)
                      for queue in queues for task in queue
                      if not (task.taken or task.expired or task.fiber.done))
        next_timer = min((due for due, _, timer in timers if not timer.cancelled), default=None)
        return Outstanding(callbacks, tasks, next_timer)

    def run_until_idle(self, timeout: float | None = None) -> bool:
        """Block until nothing can run: every execution is finished or waits for time or the world."""
        with self._cv:
            self._cv.notify_all()
            return self._cv.wait_for(self._is_idle, timeout)

    def wake(self) -> None:
        with self._cv:
            self._busy = True  # not idle until the loop has looked at the new time
            self._cv.notify_all()

    def close(self) -> None:
        with self._cv:
            self._closed = True
            self._cv.notify_all()
        self._thread.join(timeout=5)

    # == the engine thread =========================================================================
    def _post(self, command: Callable[[], None]) -> None:
        with self._cv:
            self._commands.append(command)
            self._busy = True
            self._cv.notify_all()

    def _call(self, command: Callable[[], None]) -> None:
        """Run `command` on the engine thread and wait for it (re-raising what it raised)."""
        if threading.current_thread() is self._thread:
            command()
            return
        done = threading.Event()
        failure: list[BaseException] = []

        def wrapped() -> None:
            try:
                command()
            except BaseException as exc:  # handed back to the caller's thread
                failure.append(exc)
            finally:
                done.set()

        self._post(wrapped)
        done.wait()
        if failure:
            raise failure[0]

    def _is_idle(self) -> bool:
        return not self._busy and not self._commands and self._in_flight == 0

    def _loop(self) -> None:
        while True:
            with self._cv:
                while not self._commands and not self._ready and not self._timer_due():
                    if self._closed:
                        return
                    due = self._next_due()
                    if due is not None and self._may_jump():
                        self.clock.jump_to(due)
                        continue
                    if self._needs_wall_time():
                        self.clock.release()
                    else:
                        self.clock.hold()
                    self._busy = False
                    self._cv.notify_all()
                    self._cv.wait(self.clock.wall_seconds_until(due) if due is not None else None)
                self._busy = True
                commands, self._commands = self._commands, []
            for command in commands:
                try:
                    command()
                except Exception:  # a failed command must not stop the engine
                    log.exception("engine command failed")
            self._fire_due_timers()
            self._run_ready()

    def _run_ready(self) -> None:
        steps = 0
        while self._ready and steps < STEPS_BEFORE_YIELD:
            fiber, value, error = self._ready.popleft()
            if not fiber.done:
                self._step(fiber, value, error)
            steps += 1

    def _step(self, fiber: Fiber, value: Any, error: BaseException | None) -> None:
        fiber.waiting = None
        try:
            effect = fiber.gen.throw(error) if error is not None else fiber.gen.send(value)
        except StopIteration as stop:
            self._finished(fiber, stop.value, None)
        except StatesError as failure:
            self._finished(fiber, None, failure)
        except Exception as exc:  # an emulator bug: fail this execution only, and say so
            log.exception("interpreter error in %s", fiber.run.execution.arn)
            self._finished(fiber, None, StatesError(names.RUNTIME, f"sfn-emulator internal error: {type(exc).__name__}: {exc}"))
        else:
            self._dispatch(fiber, effect)

    def _resume(self, fiber: Fiber, value: Any = None, error: BaseException | None = None) -> None:
        self._ready.append((fiber, value, error))

    # -- effects -------------------------------------------------------------------------------------
    def _dispatch(self, fiber: Fiber, effect: Effect) -> None:
        if isinstance(effect, Reschedule):
            self._resume(fiber)
        elif isinstance(effect, Sleep):
            if effect.until <= self.clock.now():
                self._resume(fiber)
            else:
                fiber.waiting = self._set_timer(effect.until, lambda: self._resume(fiber), skippable=True)
        elif isinstance(effect, AnswersWholeTask):
            try:
                resource = (fiber.run.resources or self.resources).find(effect.request)
            except StatesError:
                self._resume(fiber, False)
            else:
                self._resume(fiber, bool(getattr(resource, "settles_task", False)))
        elif isinstance(effect, Invoke):
            self._invoke(fiber, effect)
        elif isinstance(effect, AwaitToken):
            self._await_token(fiber, effect)
        elif isinstance(effect, AwaitCompletion):
            self._await_completion(fiber, effect)
        elif isinstance(effect, CheckActivity):
            if self.activity_exists(effect.activity_arn):
                self._resume(fiber)
            else:
                self._resume(fiber, error=StatesError(names.RUNTIME, f"The activity {effect.activity_arn} does not exist."))
        elif isinstance(effect, ScheduleActivity):
            self._schedule_activity(fiber, effect)
        elif isinstance(effect, Fork):
            self._fork(fiber, effect)
        elif isinstance(effect, RunMapRun):
            self._run_map_run(fiber, effect)
        else:
            self._resume(fiber, error=StatesError(names.RUNTIME, f"sfn-emulator internal error: unknown effect {effect!r}"))

    def _invoke(self, fiber: Fiber, effect: Invoke) -> None:
        request = effect.request
        if request.task_token:
            self._register_token(request.task_token, fiber.run)
        try:
            resource = (fiber.run.resources or self.resources).find(request)
        except StatesError as error:
            self._resume(fiber, error=error)
            return
        call = _Call(fiber)
        fiber.waiting = call
        self._in_flight += 1
        if effect.timeout_seconds:
            call.timer = self._set_timer(self.clock.now() + timedelta(seconds=effect.timeout_seconds),
                                         lambda: self._settle(call, None, StatesError(names.TIMEOUT)), skippable=False)
        self.clock.release()  # time follows the wall clock while a task resource works

        def work() -> None:
            try:
                result, error = resource.invoke(request), None
            except StatesError as failure:
                result, error = None, failure
            except Exception as exc:  # a resource's own bug fails the task, not the engine
                log.exception("task resource failed for %s", request.resource.arn)
                result, error = None, StatesError(names.TASK_FAILED, f"{type(exc).__name__}: {exc}")
            self._post(lambda: self._settle(call, result, error))

        # One daemon thread per call, not a pool: a call that never returns (abandoned at its timeout)
        # then holds nothing another task needs, and no call keeps the process from exiting.
        try:
            threading.Thread(target=work, name="sfn-task", daemon=True).start()
        except RuntimeError as exc:  # the process can start no more threads: this task fails, the engine goes on
            self._settle(call, None, StatesError(names.TASK_FAILED, f"sfn-emulator cannot run the task now: {exc}"))

    def _settle(self, call: _Call, result: Any, error: StatesError | None) -> None:
        if call.settled:
            return
        call.settled = True
        self._in_flight -= 1
        if call.timer:
            call.timer.cancelled = True
        if not call.fiber.done:
            self._resume(call.fiber, result, error)

    def _register_token(self, token: str, run: Run) -> _TokenWait:
        with self._cv:
            wait = self._tokens.get(token)
            if wait is None:
                wait = self._tokens[token] = _TokenWait(token, run)
            return wait

    def _await_token(self, fiber: Fiber, effect: AwaitToken) -> None:
        wait = self._register_token(effect.token, fiber.run)
        wait.fiber = fiber
        fiber.waiting = wait
        if wait.early is not None:
            result, error = wait.early
            self._close_token(wait)
            self._resume(fiber, result, error)
            return
        self._external_waits[fiber.run.execution.arn] = self._external_waits.get(fiber.run.execution.arn, 0) + 1
        counted_from = effect.counted_from or self.clock.now()
        if effect.timeout_seconds and wait.timeout is None:
            wait.timeout = self._set_timer(counted_from + timedelta(seconds=effect.timeout_seconds),
                                           lambda: self._token_expired(wait, names.TIMEOUT), skippable=False)
        if effect.heartbeat_seconds:
            wait.heartbeat_seconds = effect.heartbeat_seconds
            if wait.heartbeat is None:
                self._heartbeat(wait)

    def _heartbeat(self, wait: _TokenWait) -> None:
        if wait.heartbeat_seconds is None or wait.timed_out:
            return
        if wait.heartbeat:
            wait.heartbeat.cancelled = True
        wait.heartbeat = self._set_timer(self.clock.now() + timedelta(seconds=wait.heartbeat_seconds),
                                         # AWS reports a missed heartbeat as States.Timeout (recorded twice)
                                         lambda: self._token_expired(wait, names.TIMEOUT), skippable=False)

    def _token_expired(self, wait: _TokenWait, error: str) -> None:
        if wait.timed_out:
            return
        wait.timed_out = True
        fiber = wait.fiber
        self._close_token(wait, keep_as_timed_out=True)
        if fiber is not None and not fiber.done:
            self._resume(fiber, error=StatesError(error))

    def _close_token(self, wait: _TokenWait, *, keep_as_timed_out: bool = False) -> None:
        for timer in (wait.timeout, wait.heartbeat):
            if timer:
                timer.cancelled = True
        if wait.fiber is not None and wait.early is None:
            arn = wait.run.execution.arn
            self._external_waits[arn] = max(0, self._external_waits.get(arn, 0) - 1)
        if not keep_as_timed_out:
            with self._cv:
                self._tokens.pop(wait.token, None)

    def _token_wait(self, token: str) -> _TokenWait:
        """Find the wait behind a token sent by a client (caller holds the lock)."""
        if not token or len(token) > 2048:
            raise InvalidTaskToken(f"Invalid Token: '{token}'")
        wait = self._tokens.get(token)
        if wait is None:
            if len(token) != 64 or any(ch not in "0123456789abcdef" for ch in token):
                raise InvalidTaskToken(f"Invalid Token: '{token}'")
            raise TaskNotFound("Task Token does not exist")
        if wait.timed_out:
            raise TaskTimedOutError("Task Timed Out")
        return wait

    def _answer(self, token: str, output: Any, error: StatesError | None) -> None:
        with self._cv:
            wait = self._token_wait(token)
            self._commands.append(lambda: self._deliver(wait, output, error))
            self._busy = True
            self._cv.notify_all()

    def _deliver(self, wait: _TokenWait, output: Any, error: StatesError | None) -> None:
        if wait.timed_out:
            return
        fiber = wait.fiber
        if fiber is None or fiber.waiting is not wait:
            wait.early = (output, error)  # answered while the integration call is still running
            return
        self._close_token(wait)
        self._resume(fiber, output, error)

    def _await_completion(self, fiber: Fiber, effect: AwaitCompletion) -> None:
        try:
            resource = (fiber.run.resources or self.resources).find(effect.request)
        except StatesError as error:
            self._resume(fiber, error=error)
            return
        if not isinstance(resource, SyncResource):
            self._resume(fiber, error=StatesError(names.RUNTIME, f"sfn-emulator cannot wait for the job of "
                                                                 f"'{effect.request.resource.arn}'"))
            return
        awaited = self._executions.get(resource.awaited_execution(effect.submitted))
        if awaited is None:
            self._resume(fiber, error=StatesError(names.RUNTIME, f"the job submitted by '{effect.request.resource.arn}' "
                                                                 "is not an execution of this emulator"))
            return
        waiter = _CompletionWait(fiber, lambda child: resource.completed(effect.request, child))
        fiber.waiting = waiter
        if awaited.finished.is_set():
            self._complete(waiter, awaited)
        else:
            self._completion_waits.setdefault(awaited.arn, []).append(waiter)

    def _complete(self, waiter: _CompletionWait, child: Execution) -> None:
        if waiter.fiber.done or waiter.fiber.waiting is not waiter:
            return
        try:
            self._resume(waiter.fiber, waiter.result_of(child))
        except StatesError as error:
            self._resume(waiter.fiber, error=error)

    def _schedule_activity(self, fiber: Fiber, effect: ScheduleActivity) -> None:
        task = ActivityTask(effect.activity_arn, effect.token, effect.input, fiber)
        fiber.waiting = task
        wait = self._register_token(effect.token, fiber.run)
        if effect.timeout_seconds:
            wait.timeout = self._set_timer(self.clock.now() + timedelta(seconds=effect.timeout_seconds),
                                           lambda: self._activity_expired(task, wait), skippable=False)
        self._external_waits[fiber.run.execution.arn] = self._external_waits.get(fiber.run.execution.arn, 0) + 1
        with self._cv:
            self._activities.setdefault(effect.activity_arn, deque()).append(task)
            self._cv.notify_all()

    def _activity_taken(self, task: ActivityTask, worker_name: str | None) -> None:
        arn = task.fiber.run.execution.arn
        self._external_waits[arn] = max(0, self._external_waits.get(arn, 0) - 1)
        if not task.fiber.done and task.fiber.waiting is task:
            self._resume(task.fiber, worker_name)

    def _activity_expired(self, task: ActivityTask, wait: _TokenWait) -> None:
        if task.taken:
            self._token_expired(wait, names.TIMEOUT)
            return
        task.expired = True
        wait.timed_out = True
        arn = task.fiber.run.execution.arn
        self._external_waits[arn] = max(0, self._external_waits.get(arn, 0) - 1)
        if not task.fiber.done:
            self._resume(task.fiber, error=StatesError(names.TIMEOUT))

    def _fork(self, fiber: Fiber, effect: Fork) -> None:
        join = Join(fiber, list(effect.children), effect.max_concurrency, effect.interleave,
                    results=[None] * len(effect.children), remaining=len(effect.children))
        fiber.waiting = join
        if not join.factories:
            self._resume(fiber, [])
            return
        limit = join.max_concurrency or len(join.factories)
        while join.next_index < min(limit, len(join.factories)):
            self._start_child(join)

    def _start_child(self, join: Join) -> None:
        index = join.next_index
        join.next_index += 1
        parent = join.parent
        child = Fiber(join.factories[index](), parent.run, join=join)
        join.running[child] = index
        self._resume(child)

    def _run_map_run(self, fiber: Fiber, effect: RunMapRun) -> None:
        progress = _MapRunProgress(fiber, effect, results=[None] * len(effect.inputs))
        fiber.waiting = progress
        self._notify(self.on_map_run, effect.map_run)
        if not effect.inputs:
            self._close_map_run(progress, SUCCEEDED)
            self._resume(fiber, [])
            return
        limit = effect.map_run.max_concurrency or len(effect.inputs)
        while progress.next_index < min(limit, len(effect.inputs)):
            self._start_map_child(progress)

    def _start_map_child(self, progress: _MapRunProgress) -> None:
        index = progress.next_index
        progress.next_index += 1
        progress.running += 1
        effect, parent = progress.effect, progress.fiber.run.execution
        name = str(uuid.uuid4())
        child = Execution(
            arn=f"arn:aws:states:{parent.region}:{parent.account}:execution:"
                f"{effect.map_run.state_machine_arn.rsplit(':', 1)[-1]}:{name}",
            name=name, state_machine_arn=effect.map_run.state_machine_arn,
            state_machine_name=effect.map_run.state_machine_arn.rsplit(":", 1)[-1],
            machine=effect.processor, definition=parent.definition, input=to_json_text(effect.inputs[index]),
            start_date=self.clock.now(), account=parent.account, region=parent.region, role_arn=parent.role_arn,
            type=effect.execution_type, parent_execution_arn=parent.arn,
        )
        effect.map_run.executions.append(child)
        self._map_children[child.arn] = (progress, index)
        self._notify(self.on_child_execution, child, effect.map_run)
        self._start(child)

    def _map_child_finished(self, child: Execution) -> None:
        progress, index = self._map_children.pop(child.arn)
        if progress.closed:
            return
        progress.running -= 1
        progress.finished += 1
        effect = progress.effect
        if child.status == SUCCEEDED:
            progress.results[index] = json.loads(child.output or "null")
        else:
            progress.failed += 1
            if self._beyond_tolerance(progress):
                self._close_map_run(progress, FAILED)
                self._resume(progress.fiber, error=StatesError(
                    names.EXCEED_TOLERATED_FAILURE_THRESHOLD, "The specified tolerance threshold was exceeded"))
                return
        if progress.next_index < len(effect.inputs):
            self._start_map_child(progress)
        elif progress.finished == len(effect.inputs):
            self._close_map_run(progress, SUCCEEDED)
            self._resume(progress.fiber, progress.results)

    @staticmethod
    def _beyond_tolerance(progress: _MapRunProgress) -> bool:
        effect = progress.effect
        count, percentage = effect.tolerated_failure_count, effect.tolerated_failure_percentage
        if count is None and percentage is None:
            return True
        if count is not None and progress.failed > count:
            return True
        return percentage is not None and progress.failed * 100 / len(effect.inputs) > percentage

    def _close_map_run(self, progress: _MapRunProgress, status: str) -> None:
        """End the map run; children still running are aborted (the parent no longer waits for them)."""
        progress.closed = True
        map_run = progress.effect.map_run
        map_run.status, map_run.stop_date = status, self.clock.now()
        for child in map_run.executions:
            if child.status == RUNNING:
                self._abort(child, None, None)

    def _notify(self, listeners: list[Callable[..., None]], *subjects: Any) -> None:
        for listener in listeners:
            try:
                listener(*subjects)
            except Exception:  # a listener's bug must not stop the engine
                log.exception("engine listener failed")

    def _finished(self, fiber: Fiber, result: Any, error: StatesError | None) -> None:
        fiber.done = True
        join = fiber.join
        if fiber.on_done is not None:
            fiber.on_done(result, error)
            return
        if join is None:
            if error is None:
                self._succeed_execution(fiber.run, result)
            else:
                self._fail_execution(fiber.run, error)
            return
        index = join.running.pop(fiber, None)
        if join.failed or index is None:
            return
        if error is not None:
            join.failed = True
            for sibling in list(join.running):
                self._cancel(sibling, aborting=True)
            join.running.clear()
            self._resume(join.parent, error=error)
            return
        join.results[index] = result
        join.remaining -= 1
        if join.next_index < len(join.factories):
            self._start_child(join)
        elif join.remaining == 0:
            self._resume(join.parent, join.results)

    def _cancel(self, fiber: Fiber, *, aborting: bool) -> None:
        """Stop a fiber and everything below it; `aborting` emits AWS's ...Aborted events on the way."""
        if fiber.done:
            return
        fiber.done = True
        waiting = fiber.waiting
        if isinstance(waiting, Join):
            waiting.failed = True
            for child in list(waiting.running):
                self._cancel(child, aborting=aborting)
            waiting.running.clear()
        elif isinstance(waiting, Timer):
            waiting.cancelled = True
        elif isinstance(waiting, _Call):
            self._settle(waiting, None, None)
        elif isinstance(waiting, _TokenWait):
            self._close_token(waiting)
        elif isinstance(waiting, _MapRunProgress):
            self._close_map_run(waiting, ABORTED)
        elif isinstance(waiting, ActivityTask):
            waiting.expired = True
            wait = self._tokens.get(waiting.token)
            if wait:
                self._close_token(wait)
        try:
            if aborting:
                fiber.gen.throw(Aborted())
        except (Aborted, StopIteration, StatesError):
            pass
        except Exception:  # aborting must finish whatever the generator does
            log.exception("error while aborting %s", fiber.run.execution.arn)
        fiber.gen.close()

    # -- executions --------------------------------------------------------------------------------
    def _start(self, execution: Execution) -> None:
        self._executions[execution.arn] = execution
        run = self._new_run(execution)
        details: dict[str, Any] = {"input": execution.input, "inputDetails": {"truncated": False},
                                   "roleArn": execution.role_arn}
        if execution.state_machine_alias_arn:
            details["stateMachineAliasArn"] = execution.state_machine_alias_arn
        if execution.state_machine_version_arn:
            details["stateMachineVersionArn"] = execution.state_machine_version_arn
        run.emit(None, "ExecutionStarted", "executionStartedEventDetails", details, timestamp=execution.start_date)
        self._launch(run, run_execution(run))

    def _new_run(self, execution: Execution) -> Run:
        return Run(execution, self.clock.now, random.Random(f"{self._seed}:{execution.arn}:{execution.redrive_count}"))

    def _launch(self, run: Run, gen: Interpreter) -> None:
        execution = run.execution
        fiber = Fiber(gen, run)
        self._roots[execution.arn] = fiber
        self._runs[execution.arn] = run
        timeout = execution.machine.timeout_seconds
        if timeout:
            due = execution.start_date + timedelta(seconds=timeout)
            self._execution_timers[execution.arn] = self._set_timer(due, lambda: self._time_out(run), skippable=True)
        self._resume(fiber)

    def _succeed_execution(self, run: Run, output: Any) -> None:
        text = to_json_text(output)
        run.emit(None, "ExecutionSucceeded", "executionSucceededEventDetails",
                 {"output": text, "outputDetails": {"truncated": False}})
        self._close_execution(run.execution, SUCCEEDED, output=text)

    def _fail_execution(self, run: Run, error: StatesError) -> None:
        details = {key: value for key, value in (("error", error.error), ("cause", error.cause)) if value is not None}
        run.emit(None, "ExecutionFailed", "executionFailedEventDetails", details)
        self._close_execution(run.execution, FAILED, error=error.error, cause=error.cause)

    def _time_out(self, run: Run) -> None:
        execution = run.execution
        if execution.status != RUNNING:
            return
        self._cancel(self._roots[execution.arn], aborting=False)
        run.emit(None, "ExecutionTimedOut", "executionTimedOutEventDetails", {})
        self._close_execution(execution, TIMED_OUT)

    def _abort(self, execution: Execution, error: str | None, cause: str | None) -> None:
        if execution.status != RUNNING:
            return
        root = self._roots.get(execution.arn)
        if root is not None:
            self._cancel(root, aborting=False)
        details = {key: value for key, value in (("error", error), ("cause", cause)) if value is not None}
        self._runs[execution.arn].emit(None, "ExecutionAborted", "executionAbortedEventDetails", details)
        self._close_execution(execution, ABORTED, error=error, cause=cause)

    def _redrive(self, execution: Execution) -> None:
        previous = self._runs.get(execution.arn)
        point = previous.restart_point if previous else None
        if point is None:
            raise NotRedrivable(f"Execution {execution.arn} has no state to redrive from")
        execution.redrive_count += 1
        execution.redrive_date = self.clock.now()
        execution.status, execution.stop_date = RUNNING, None
        execution.output = execution.error = execution.cause = None
        execution.finished.clear()
        run = self._new_run(execution)
        run.emit(None, "ExecutionRedriven", "executionRedrivenEventDetails", {"redriveCount": execution.redrive_count})
        state_name, state_input = point
        frame = Frame(run, run.execution.history[-1]["id"])
        machine = execution.machine
        restart = type(machine)(start_at=state_name, states=machine.states, query_language=machine.query_language)
        self._launch(run, run_machine(restart, state_input, frame))

    def _close_execution(self, execution: Execution, status: str, *, output: str | None = None,
                         error: str | None = None, cause: str | None = None) -> None:
        execution.status = status
        execution.output, execution.error, execution.cause = output, error, cause
        execution.stop_date = self.clock.now()
        self._roots.pop(execution.arn, None)
        self._external_waits.pop(execution.arn, None)
        timer = self._execution_timers.pop(execution.arn, None)
        if timer:
            timer.cancelled = True
        if status == SUCCEEDED:
            self._runs.pop(execution.arn, None)
        execution.finished.set()
        for waiter in self._completion_waits.pop(execution.arn, []):
            self._complete(waiter, execution)
        if execution.arn in self._map_children:
            self._map_child_finished(execution)
        self._notify(self.on_finished, execution)

    # -- timers ------------------------------------------------------------------------------------
    def _set_timer(self, due: datetime, fire: Callable[[], None], *, skippable: bool) -> Timer:
        # The clock counts whole milliseconds: a deadline between two falls due at the later one.
        if due.microsecond % 1000:
            due = due.replace(microsecond=due.microsecond - due.microsecond % 1000) + timedelta(milliseconds=1)
        timer = Timer(due, fire, skippable)
        heapq.heappush(self._timers, (due, next(self._sequence), timer))
        if not skippable:
            self._outside_deadlines.add(timer)
        return timer

    def _next_timer(self) -> Timer | None:
        while self._timers and self._timers[0][2].cancelled:
            heapq.heappop(self._timers)
        return self._timers[0][2] if self._timers else None

    def _next_due(self) -> datetime | None:
        timer = self._next_timer()
        return timer.due if timer else None

    def _timer_due(self) -> bool:
        timer = self._next_timer()
        return timer is not None and timer.due <= self.clock.now()

    def _may_jump(self) -> bool:
        mode = self.clock.mode
        if not (mode == "auto" or (mode == "real" and self.clock.scale == 0)) or self._in_flight:
            return False
        timer = self._next_timer()
        if timer is None:
            return False
        return self.skip_external_deadlines or not self._outside_deadline_pending()

    def _needs_wall_time(self) -> bool:
        """Must time follow the wall clock while the engine is idle? In auto mode: while no execution
        is live or starting (an idle emulator keeps up with the wall clock), while a task resource
        runs, or while someone outside races a deadline (which then arrives in wall time)."""
        if self.clock.mode != "auto" or self._in_flight:
            return True
        if self._starting:
            return False
        if not self._roots:
            return True
        return not self.skip_external_deadlines and self._outside_deadline_pending()

    def _outside_deadline_pending(self) -> bool:
        """Is someone outside racing a deadline: a callback, activity or heartbeat timeout, or the
        timeout of an execution that waits for a callback or an activity worker?"""
        self._outside_deadlines = {timer for timer in self._outside_deadlines if not timer.cancelled}
        if self._outside_deadlines:
            return True
        return any(waits and arn in self._execution_timers for arn, waits in self._external_waits.items())

    def _fire_due_timers(self) -> None:
        now = self.clock.now()
        while True:
            timer = self._next_timer()
            if timer is None or timer.due > now:
                return
            heapq.heappop(self._timers)
            self._outside_deadlines.discard(timer)
            try:
                timer.fire()
            except Exception:  # one timer's failure must not stop the others
                log.exception("timer failed")

