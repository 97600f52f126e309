"""The scheduler: runs every interpreter on one engine thread, owns every timer, and routes effects.

`Engine` is the facade the control plane uses; it wires the parts in `sfn_emulator.engine.scheduling`
(timers, the auto clock's rule, fibers, callbacks, map runs, lifecycle) and routes each effect an
interpreter yields to the part that serves it, or to a task resource on a thread of its own.

Threads: the engine thread alone steps interpreters and fires timers; task resources run on a
daemon thread per call (a slow or hanging callable blocks nobody), and a call with a wall-time
bound (a Lambda function's timeout: `WallDeadline`) is settled by the engine when it passes, its
worker's late answer dropped, so no second thread waits on the first; API threads talk to the engine through a
command queue and the callbacks' lock-guarded tables (task tokens, activity queues). Executions
take turns (see `scheduling.fibers`): commands are served between turns, so StopExecution, close
and callbacks reach an execution however busy it is.

Time (see `sfn_emulator.clock.virtual_clock` and `scheduling.time_rule`): when nothing can run, the engine asks the
rule whether the clock jumps to the next timer, follows the wall clock or stands still. A move by hand
(`advance`, `set`) goes through every due moment: the engine steps the clock to each timer due on the
way once nothing can run at the current instant, so each fires at its own time (issue 28, rule 11).

Why one module of about 500 lines: `Engine` is the one interface every caller uses (the control
plane, Amazon SWF, the dialects' events, persistence, the console); most of its methods hand a call
to a part in `scheduling`, and the rest is the effect routing and the engine thread's loop, which
read best together with the threading rules above.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import math
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime
from functools import partial
from typing import Any, Callable, Protocol

from msgspec import Struct

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.clock.virtual_clock import Clock, after, wall_monotonic
from sfn_emulator.engine.effects import (
    AwaitCompletion,
    AwaitEvent,
    AwaitToken,
    Compute,
    Effect,
    FindActivityMock,
    Interpreter,
    Invoke,
    ProduceEvent,
    RunMapRun,
    ScheduleActivity,
    Sleep,
)
from sfn_emulator.engine.execution import Execution, MapRun
from sfn_emulator.engine.frame import Run
from sfn_emulator.engine.observers import EngineObserver, Observers
from sfn_emulator.engine.outstanding import Outstanding
from sfn_emulator.engine.scheduling.callbacks import ActivityTask, Callbacks
from sfn_emulator.engine.scheduling.event_waits import EventWaits
from sfn_emulator.engine.scheduling.fibers import Fiber, Fibers
from sfn_emulator.engine.scheduling.lifecycle import CompletionWait, Lifecycle, asl_only
from sfn_emulator.engine.scheduling.map_runs import MapRuns
from sfn_emulator.engine.scheduling.time_rule import AutoTime
from sfn_emulator.engine.scheduling.timers import Timer, Timers, new_timer
from sfn_emulator.process.randomness import Randomness
from sfn_emulator.resources.base import TaskResources
from sfn_emulator.resources.outcomes import (
    Failed,
    Pending,
    Succeeded,
    TaskOutcome,
    WallDeadline,
    WatchedJob,
    typed_answer,
)

__all__ = ["ActivityDirectory", "ActivityTask", "Engine", "EveryActivity", "InterpreterFor"]

InterpreterFor = Callable[[Execution], Callable[[Run], Interpreter]]
"""Which interpreter runs an execution (its dialect's); the runtime wires the dialects' choice in."""


class ActivityDirectory(Protocol):
    """Which activities exist, as the control plane knows them: asked when an execution schedules
    an activity task (on the engine thread)."""

    def exists_for(self, activity_arn: str, execution_arn: str) -> bool:
        """May the execution `execution_arn` use the activity `activity_arn`?"""
        ...


class EveryActivity:
    """The activity directory of an engine run without a control plane: every activity exists."""

    def exists_for(self, activity_arn: str, execution_arn: str) -> bool:
        return True

log = logging.getLogger(__name__)


def _computed(work: Callable[[], Any]) -> Any:
    """What a `Compute` effect's work returns, or its failure as the fiber's (never an exception that
    would end the thread and leave the fiber waiting)."""
    try:
        return work()
    except StatesError as error:
        return Failed(error)
    except Exception as fault:  # a bug of the evaluation: this execution fails, the engine goes on
        log.exception("expression evaluation failed")
        return Failed(StatesError(names.RUNTIME, f"sfn-emulator internal error: {type(fault).__name__}"))


class _Call(Struct, eq=False):
    """A task resource working, on a thread of its own, for a fiber."""

    fiber: Fiber
    settle: Callable[[_Call, TaskOutcome | Any], None]
    as_outcome: bool = False  # the fiber resumes with the TaskOutcome itself (an Invoke), failures included
    timer: Timer | None = None
    deadline: WallDeadline | None = None  # the call's bound in wall time (a Lambda function's timeout)
    wall_key: int | None = None  # its key among the engine's wall deadlines, once its worker has started
    settled: bool = False

    def cancel(self) -> None:
        self.settle(self, None)


class Engine:
    """Runs executions. Thread-safe entry points for the control plane; everything else is internal.

    Composed by constructor: what it needs from outside (task resources, the dialects' choice of
    interpreter, the activity directory, observers) is given here; the parts it builds get each
    other's bound methods, and the lifecycle reaches the fibers as their `Endings`."""

    def __init__(self, clock: Clock, resources: TaskResources | None = None, *, seed: int = 0,
                 skip_external_deadlines: bool = False, interpreter_for: InterpreterFor = asl_only,
                 activities: ActivityDirectory = EveryActivity(), observers: Iterable[EngineObserver] = ()) -> None:
        self.clock = clock
        self.resources = resources or TaskResources()
        # Ids the engine draws outside any execution (TestState's ephemeral execution), from the seed.
        self.ids = Randomness(f"{seed}:engine")
        self._activities = activities
        self._observers = Observers(observers)  # told of executions, map runs and rounds (`engine.observers`)
        self._cv = threading.Condition()
        self._commands: list[Callable[[], None]] = []
        self._calls: dict[int, _Call] = {}  # task resources at work, by id(call)
        # When the `WallDeadline` of each call passes, counted from its worker's start: a heap of (wall
        # instant, key), earliest first, and the calls not yet settled by key. Guarded by `_cv`.
        self._wall_dues: list[tuple[float, int]] = []
        self._bounded: dict[int, _Call] = {}
        self._wall_keys = itertools.count()
        self._move_held_since: float | None = None  # wall instant task resources began to hold a move by hand
        # Work of another service on the clock (`outside_call`) with its deadline, by key; guarded by `_cv`.
        self._outside_calls: dict[int, Timer | None] = {}
        self._starting = 0  # executions whose start instant is taken but that the engine has not taken up yet
        self._busy = False
        self._closed = False
        self._timers = Timers()
        self._fibers = Fibers(dispatch=self._dispatch)
        self._callbacks = Callbacks(self._cv, fibers=self._fibers, timers=self._timers, now=clock.now,
                                    post=self._post, closed=self._is_closed)
        self._lifecycle = Lifecycle(fibers=self._fibers, timers=self._timers, now=clock.now, seed=seed,
                                    began=self._observers.execution_started, closed=self._execution_closed,
                                    interpreter_for=interpreter_for)
        # The one cycle of the parts: the lifecycle resumes and cancels fibers; the fibers tell it how executions end.
        self._fibers.report_endings_to(self._lifecycle)
        self._map_runs = MapRuns(fibers=self._fibers, now=clock.now, start=self._lifecycle.start,
                                 abort=self._lifecycle.abort, began=self._observers.map_run_began,
                                 child_started=self._observers.map_run_child_started)
        self._events = EventWaits(fibers=self._fibers, timers=self._timers, now=clock.now)
        self._time = AutoTime(clock, self._timers, waiting_outside=self._waiting_outside,
                              has_timeout=self._lifecycle.has_timeout, skip_external_deadlines=skip_external_deadlines)
        clock.attach(self)
        self._thread = threading.Thread(target=self._loop, name="sfn-engine", daemon=True)
        self._thread.start()

    @property
    def skip_external_deadlines(self) -> bool:
        """Jump to deadlines someone outside races too (rule 3 of the auto clock off)."""
        return self._time.skip_external_deadlines

    @skip_external_deadlines.setter
    def skip_external_deadlines(self, skip: bool) -> None:
        self._time.skip_external_deadlines = skip

    def observe(self, observer: EngineObserver) -> None:
        """Tell `observer` of the engine's events from now on: for whoever composes the parts, once,
        when the observer is built after the engine it follows (the control plane, persistence)."""
        self._observers.add(observer)

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
        self._post(lambda: self._lifecycle.start(execution))

    def stop(self, execution: Execution, error: str | None = None, cause: str | None = None) -> None:
        """Abort a running execution (ExecutionAborted); returns once it is stopped."""
        self._call(lambda: self._lifecycle.abort(execution, error, cause))

    def clock_holders(self) -> list[str]:
        """The ARNs of the executions whose outside deadlines keep the auto clock from jumping
        (`AutoTime.clock_holders`), read on the engine thread."""
        holders: list[str] = []
        self._call(lambda: holders.extend(self._time.clock_holders()))
        return holders

    def stop_together(self, executions: list[Execution], error: str | None = None, cause: str | None = None) -> None:
        """Abort several executions at one moment: no timer fires and the clock does not move between
        them (stopped one by one, the end of the first could let the clock jump for the next)."""
        def abort_all() -> None:
            for execution in executions:
                self._lifecycle.abort(execution, error, cause)

        self._call(abort_all)

    def redrive(self, execution: Execution) -> None:
        """Run a failed, timed-out or aborted execution again from the state where it stopped."""
        self._call(lambda: self._lifecycle.redrive(execution))

    def update_map_run(self, map_run: MapRun, *, max_concurrency: int | None = None,
                       tolerated_failure_count: int | None = None,
                       tolerated_failure_percentage: float | None = None) -> None:
        """UpdateMapRun: change a map run's settings; a running one starts more children at once if
        its new MaxConcurrency allows, and judges its next failures by the new thresholds."""
        self._call(lambda: self._map_runs.update(map_run, max_concurrency, tolerated_failure_count,
                                                 tolerated_failure_percentage))

    def resume(self, execution: Execution, point: tuple[str, Any] | None,
               variables: dict[str, Any] | None = None, task_token: str | None = None) -> None:
        """Continue a RUNNING execution loaded from a store in the top-level state `point` names,
        from its recorded input, with the workflow variables it had then (None: from the start,
        as its history has no state yet); a Task there gives out `task_token` again."""
        self._post(lambda: self._lifecycle.resume(execution, point, variables or {}, task_token))

    def adopt(self, execution: Execution, point: tuple[str, Any]) -> None:
        """Take a closed execution loaded from a store, stopped in the top-level state `point`
        names, as redrivable from there (RedriveExecution)."""
        self._call(lambda: self._lifecycle.adopt(execution, point))

    def abandon(self, execution: Execution, cause: str) -> None:
        """Close a RUNNING execution loaded from a store that cannot go on, as aborted (returns once closed)."""
        self._call(lambda: self._lifecycle.abandon(execution, cause))

    def restart_point(self, execution_arn: str) -> tuple[str, Any] | None:
        """The top-level state the execution is in and the input it entered with (what `resume` and
        redrive re-enter), None before its first state."""
        return self._lifecycle.restart_point(execution_arn)

    def top_variables(self, execution_arn: str) -> dict[str, Any]:
        """A copy of the workflow variables of the execution's top level (as bound when its current
        top-level state was entered, or since)."""
        frame = self._lifecycle.top_frame(execution_arn)
        return dict(frame.variables.values) if frame is not None else {}

    def top_task_token(self, execution_arn: str) -> str | None:
        """The task token the Task the execution's top level is in gave out, if any."""
        frame = self._lifecycle.top_frame(execution_arn)
        return frame.task_token if frame is not None else None

    def barrier(self) -> None:
        """Return once every command posted before has been served and the round it made
        runnable has run to its end (its observers told `round_ended`): what an answered API call
        caused is then recorded."""
        if threading.current_thread() is self._thread or self._closed:
            return
        self._call(lambda: None)  # served after the earlier commands...
        self._call(lambda: None)  # ...and this one after the round they started

    def between_steps(self, command: Callable[[], None]) -> None:
        """Run `command` on the engine thread, where no execution changes while it runs, and wait for
        it: what it reads of an execution (status, history, where it stands) is one moment's. Run at
        once when the engine is closed (its executions stop where they are)."""
        if self._closed:
            command()
            return
        self._call(command)

    def run_detached(self, run: Run, gen: Interpreter, timeout: float | None = None) -> tuple[Any, StatesError | None]:
        """Run one interpreter outside any execution's lifecycle (TestState) and return its outcome."""
        done = threading.Event()
        outcome: list[tuple[Any, StatesError | None]] = []

        def finish(result: Any, error: StatesError | None) -> None:
            outcome.append((result, error))
            done.set()

        self._post(lambda: self._fibers.resume(Fiber(gen, run, on_done=finish)))
        if not done.wait(timeout):
            raise TimeoutError("the state did not finish in time")
        return outcome[0]

    def wait(self, execution: Execution, timeout: float | None = None) -> bool:
        """Block until `execution` finishes; False on timeout."""
        return execution.finished.wait(timeout)

    def check_task_token(self, token: str) -> None:
        """Raise the engine's error for a malformed, unknown or timed-out token; answer nothing."""
        self._callbacks.check(token)

    def send_task_success(self, token: str, output: Any) -> None:
        self._callbacks.answer(token, output, None)

    def send_task_failure(self, token: str, error: str | None, cause: str | None) -> None:
        self._callbacks.answer(token, None, StatesError(error, cause))

    def send_task_heartbeat(self, token: str) -> None:
        self._callbacks.heartbeat(token)

    def task_token_execution(self, token: str) -> str | None:
        """The ARN of the execution that issued `token`, None if no known task has it; lets the
        control plane keep answers within the caller's account and region."""
        return self._callbacks.token_execution(token)

    def poll_activity(self, activity_arn: str, worker_name: str | None, timeout_seconds: float) -> ActivityTask | None:
        """Take the oldest task queued for the activity, waiting up to `timeout_seconds` of wall time."""
        return self._callbacks.poll_activity(activity_arn, worker_name, timeout_seconds)

    def forget_activity(self, activity_arn: str) -> None:
        """Drop the queue of a deleted activity (tasks already scheduled stay until they time out)."""
        self._callbacks.forget_activity(activity_arn)

    def publish_events(self, events: list[dict[str, Any]]) -> list[list[str]]:
        """Deliver checked CloudEvents, in order, to the executions waiting for them; for each event,
        the ARNs of the executions that consumed it. An event nobody waits for is dropped."""
        consumed: list[list[str]] = []
        self._call(lambda: consumed.extend(self._events.deliver(event) for event in events))
        return consumed

    def produced_events(self, execution_arn: str) -> list[dict[str, Any]]:
        """The events an execution produced, in order."""
        produced: list[list[dict[str, Any]]] = []
        self._call(lambda: produced.append(self._events.produced_by(execution_arn)))
        return produced[0]

    def outstanding(self) -> Outstanding:
        """A snapshot of the tokens awaiting a callback, the activity tasks awaiting a worker and the
        next timer (read by the console; any thread)."""
        callbacks, tasks = self._callbacks.outstanding()
        return Outstanding(callbacks, tasks, self._timers.earliest_pending())

    def set_timer(self, due: datetime, fire: Callable[[], None], *, skippable: bool, passive: bool = False) -> Timer:
        """A timer set from any thread by another service on the clock (Amazon SWF, schedules): `fire`
        runs on the engine thread once the clock reaches `due`. `skippable=False` marks a deadline
        someone outside races (rule 3 of the auto clock), exactly as the engine's own activity
        timeouts; a `passive` timer never draws the auto clock to it (a schedule's next firing)."""
        timer = new_timer(due, fire, skippable=skippable, passive=passive)
        self._post(lambda: self._timers.add(timer))
        return timer

    def outside_call(self, deadline: Timer | None = None) -> Callable[[], None]:
        """Work of another service on the clock (SWF's Lambda functions) begins: until the returned
        function is called (once, from any thread), it counts as a task resource in flight (rule 1:
        time follows the wall clock meanwhile), ended at the latest by `deadline` (its timeout)."""
        key = object()
        with self._cv:
            self._outside_calls[id(key)] = deadline
            self.clock.release()

        def finished() -> None:
            with self._cv:
                self._outside_calls.pop(id(key), None)
                self._busy = True  # the loop looks at the clock again
                self._cv.notify_all()

        return finished

    def run_until_idle(self, timeout: float | None = None) -> bool:
        """Block until nothing can run: every execution is finished or waits for time or the world."""
        with self._cv:
            self._cv.notify_all()
            return self._cv.wait_for(self._is_idle, timeout)

    def wake(self) -> None:
        with self._cv:
            self._busy = True  # not idle until the loop has looked at the new time
            self._cv.notify_all()

    @property
    def running(self) -> bool:
        """Is the engine thread still running (False once `close` has stopped it)?"""
        return self._thread.is_alive()

    def close(self) -> None:
        with self._cv:
            self._closed = True
            self._cv.notify_all()
        self._thread.join(timeout=5)
        self.clock.detach(self)  # from now on moves by hand go straight to their destination
        with self._cv:
            self._cv.notify_all()

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
        if self._closed:
            raise RuntimeError("the engine is closed")
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
        while not done.wait(0.5):
            if not self._thread.is_alive():  # closed before it came to the command
                raise RuntimeError("the engine is closed")
        if failure:
            raise failure[0]

    def _is_closed(self) -> bool:
        return self._closed

    def _is_idle(self) -> bool:
        return (not self._busy and not self._commands and not self._calls and not self._outside_calls
                and not self.clock.moving)

    def _loop(self) -> None:
        while True:
            with self._cv:
                self._expire_wall_deadlines()
                while not self._commands and not self._fibers.runnable and not self._timers.is_due(self.clock.now()):
                    if self._closed:
                        return
                    if self._expire_wall_deadlines():
                        continue
                    if self.clock.moving:
                        held_for = self._move_held_for()
                        if held_for is None:
                            self.clock.step_towards(self._timers.next_wake())
                        else:
                            self._cv.wait(self._within_wall_deadlines(None if held_for == math.inf else held_for))
                        continue
                    if self._time.when_idle(self._timers.next_due(), in_flight=len(self._calls) + len(self._outside_calls),
                                            starting=self._starting, live=self._lifecycle.live):
                        continue
                    self._busy = False
                    self._cv.notify_all()
                    wake = self._timers.next_wake()
                    self._cv.wait(self._within_wall_deadlines(
                        self.clock.wall_seconds_until(wake) if wake is not None else None))
                if self._closed:  # however busy: executions stop where they are
                    return
                self._busy = True
                commands, self._commands = self._commands, []
            for command in commands:
                try:
                    command()
                except Exception:  # a failed command must not stop the engine
                    log.exception("engine command failed")
            self._timers.fire_due(self.clock.now())
            self._fibers.run_turns()
            if self._observers.listens_to_rounds():
                self._observers.round_ended()

    def _move_held_for(self) -> float | None:
        """A move by hand waits, at the instant it has reached, for the task resources at work: they
        take no clock time, so what they answer belongs to this instant (a retried Lambda fails here,
        and its next retry counts from here). None: step on. Else the wall seconds to wait before
        looking again: until they answer (None to `wait`), but no longer than the earliest of their
        TimeoutSeconds, counted in wall time as the auto clock counts it while they run, so a hung
        call ends at its deadline."""
        deadlines = [call.timer for call in self._calls.values()] + list(self._outside_calls.values())
        if not deadlines:
            self._move_held_since = None
            return None
        if None in deadlines:
            return math.inf
        now, wall = self.clock.now(), wall_monotonic()
        if self._move_held_since is None:
            self._move_held_since = wall
        deadline = min(timer.due for timer in deadlines if timer is not None)
        remaining = (deadline - now).total_seconds() - (wall - self._move_held_since)
        if remaining <= 0:
            self._move_held_since = None
            return None
        return remaining

    def _expire_wall_deadlines(self) -> bool:
        """Queue the settling of every call whose wall deadline has passed (held: `_cv`); True if any."""
        expired = False
        while self._wall_dues and self._wall_dues[0][0] <= wall_monotonic():
            call = self._bounded.pop(heapq.heappop(self._wall_dues)[1], None)
            if call is not None:  # else settled already
                self._commands.append(lambda call=call: self._settle_timed_out(call))  # type: ignore[misc]
                expired = True
        return expired

    def _within_wall_deadlines(self, seconds: float | None) -> float | None:
        """A wait of `seconds` (None: until woken), cut short at the earliest wall deadline of the calls at work."""
        if not self._wall_dues:
            return seconds
        remaining = max(0.0, self._wall_dues[0][0] - wall_monotonic())
        return remaining if seconds is None else min(seconds, remaining)

    def _settle_timed_out(self, call: _Call) -> None:
        if not call.settled and call.deadline is not None:
            self._settle(call, call.deadline.outcome())

    def _waiting_outside(self) -> list[str]:
        return [*self._callbacks.waiting_outside(), *self._events.waiting_outside()]

    def _execution_closed(self, execution: Execution) -> None:
        self._callbacks.forget_execution(execution.arn)
        self._events.forget_execution(execution.arn)
        self._map_runs.execution_closed(execution)
        self._observers.execution_finished(execution)

    # -- effects -------------------------------------------------------------------------------------
    def _dispatch(self, fiber: Fiber, effect: Effect) -> None:
        if isinstance(effect, Sleep):
            if effect.until <= self.clock.now():
                self._fibers.resume(fiber)
            else:
                fiber.waiting = self._timers.set(effect.until, lambda: self._fibers.resume(fiber), skippable=True)
        elif isinstance(effect, Invoke):
            self._invoke(fiber, effect)
        elif isinstance(effect, FindActivityMock):
            self._find_activity_mock(fiber, effect)
        elif isinstance(effect, Compute):
            self._call_on_thread(fiber, None, self.clock.now(), lambda: _computed(effect.work))
        elif isinstance(effect, AwaitToken):
            self._callbacks.await_token(fiber, effect)
        elif isinstance(effect, AwaitCompletion):
            self._await_completion(fiber, effect)
        elif isinstance(effect, ScheduleActivity):
            self._callbacks.schedule_activity(fiber, effect)
        elif isinstance(effect, RunMapRun):
            self._map_runs.run(fiber, effect)
        elif isinstance(effect, AwaitEvent):
            self._events.await_events(fiber, effect)
        elif isinstance(effect, ProduceEvent):
            self._events.produced(fiber.run.execution.arn, effect.event)
            self._fibers.resume(fiber, self._events.deliver(effect.event))
        else:
            self._fibers.resume(fiber, error=StatesError(names.RUNTIME, f"sfn-emulator internal error: unknown effect {effect!r}"))

    def _invoke(self, fiber: Fiber, effect: Invoke) -> None:
        request = effect.request
        bound = effect.call or (fiber.run.resources or self.resources).route(request)
        if effect.submitted is not None:  # submitted before a restart: only its job is followed again
            job = bound.follow(effect.submitted) if bound.follow is not None else None
            self._fibers.resume(fiber, Pending(effect.submitted, job))
            return
        if request.task_token:
            self._callbacks.register(request.task_token, fiber.run)
        self._call_on_thread(fiber, effect.timeout_seconds, self.clock.now(), bound.invoke, as_outcome=True,
                             deadline=bound.deadline)

    def _find_activity_mock(self, fiber: Fiber, effect: FindActivityMock) -> None:
        request = effect.request
        bound = (fiber.run.resources or self.resources).bind(request)
        if bound is not None and bound.answers_whole_task:
            self._fibers.resume(fiber, bound)
        elif not self._activities.exists_for(request.resource.arn, fiber.run.execution.arn):
            self._fibers.resume(fiber, error=StatesError(names.RUNTIME,
                                                         f"The activity {request.resource.arn} does not exist."))
        else:
            self._fibers.resume(fiber, None)

    def _call_on_thread(self, fiber: Fiber, timeout_seconds: float | None, counted_from: datetime,
                        answer: Callable[[], Any], *, as_outcome: bool = False,
                        deadline: WallDeadline | None = None) -> None:
        """Have `answer` (a resource at work) run on a thread of its own for `fiber`, which resumes with what
        it returns (its `Failed` outcome thrown in, unless `as_outcome`), or with States.Timeout when
        `timeout_seconds` from `counted_from` pass first, or with the `deadline`'s outcome when its wall
        seconds, counted from the moment the thread starts, pass first."""
        call = _Call(fiber, self._settle, as_outcome, deadline=deadline)
        fiber.waiting = call
        self._calls[id(call)] = call
        if timeout_seconds:
            call.timer = self._timers.set(after(counted_from, timeout_seconds),
                                          lambda: self._settle(call, Failed(StatesError(names.TIMEOUT))), skippable=False)
        self.clock.release()  # time follows the wall clock while a task resource works

        def work() -> None:
            if deadline is not None:
                with self._cv:  # the engine's wait is cut short at the new deadline
                    call.wall_key = next(self._wall_keys)
                    self._bounded[call.wall_key] = call
                    heapq.heappush(self._wall_dues, (wall_monotonic() + deadline.seconds, call.wall_key))
                    self._cv.notify_all()
            outcome = answer()
            self._post(lambda: self._settle(call, outcome))

        # One daemon thread per call, not a pool: a call that never returns (abandoned at its timeout)
        # then holds nothing another task needs, and no call keeps the process from exiting.
        try:
            threading.Thread(target=work, name="sfn-task", daemon=True).start()
        except RuntimeError as exc:  # the process can start no more threads: this task fails, the engine goes on
            self._settle(call, Failed(StatesError(names.TASK_FAILED, f"sfn-emulator cannot run the task now: {exc}")))

    def _settle(self, call: _Call, outcome: TaskOutcome | Any) -> None:
        """The call answered (or timed out, or was cancelled: `None`): the fiber resumes with its outcome
        (`as_outcome`), or with the result of a `Succeeded` one, or has a `Failed` one's failure thrown in."""
        if call.settled:
            return
        call.settled = True
        del self._calls[id(call)]
        if call.wall_key is not None:
            with self._cv:
                self._bounded.pop(call.wall_key, None)
        if call.timer:
            call.timer.cancel()
        if call.fiber.done:
            return
        if call.as_outcome:
            self._fibers.resume(call.fiber, outcome)
        elif isinstance(outcome, Failed):
            self._fibers.resume(call.fiber, error=outcome.error)
        else:
            self._fibers.resume(call.fiber, outcome.result if isinstance(outcome, Succeeded) else outcome)

    def _await_completion(self, fiber: Fiber, effect: AwaitCompletion) -> None:
        job = effect.pending.job
        if isinstance(job, WatchedJob):  # another service's job, followed by its resource
            self._call_on_thread(fiber, effect.timeout_seconds, effect.counted_from or self.clock.now(),
                                 lambda: typed_answer(effect.request, job.watch))
            return
        if job is None:
            self._fibers.resume(fiber, error=StatesError(names.RUNTIME, f"sfn-emulator cannot wait for the job of "
                                                                        f"'{effect.request.resource.arn}'"))
            return
        awaited = self._lifecycle.find(job.execution_arn)
        if awaited is None:
            self._fibers.resume(fiber, error=StatesError(names.RUNTIME, f"the job submitted by '{effect.request.resource.arn}' "
                                                                        "is not an execution of this emulator"))
            return
        stopped = effect.stopped_when_cancelled
        stop_awaited = partial(self._lifecycle.abort, awaited, *stopped) if stopped is not None else None
        waiter = CompletionWait(fiber, job.completed, stop_awaited=stop_awaited,
                                token=self._callbacks.find(effect.request.task_token))  # its own token answers it too
        fiber.waiting = waiter
        if waiter.token is not None and waiter.token.early is not None:
            self._answer_completion(waiter, *waiter.token.early)
            return
        if waiter.token is not None:
            waiter.token.answered = partial(self._answer_completion, waiter)
        if effect.timeout_seconds and not awaited.finished.is_set():
            started = effect.counted_from or self.clock.now()
            waiter.timeout = self._timers.set(after(started, effect.timeout_seconds),
                                              lambda: self._completion_timed_out(waiter), skippable=True)
        self._lifecycle.await_completion(waiter, awaited)

    def _completion_timed_out(self, waiter: CompletionWait) -> None:
        """The `.sync` task's TimeoutSeconds, which covers the whole job, passed first."""
        if not waiter.fiber.done and waiter.fiber.waiting is waiter:
            if waiter.token is not None:
                self._callbacks.close(waiter.token, keep_as_timed_out=True)
                waiter.token.timed_out = True
            self._fibers.resume(waiter.fiber, error=StatesError(names.TIMEOUT))

    def _answer_completion(self, waiter: CompletionWait, output: Any, error: StatesError | None) -> None:
        """A `.sync` task answered by SendTaskSuccess/SendTaskFailure with its token, before its job ended."""
        if not waiter.fiber.done and waiter.fiber.waiting is waiter:
            waiter.release()
            self._fibers.resume(waiter.fiber, output, error)
