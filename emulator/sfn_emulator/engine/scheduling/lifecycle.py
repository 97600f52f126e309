"""The lifecycle of executions: start, succeed, fail, time out, abort (StopExecution), redrive and
the end at AWS's history quota. It writes the Execution* events through each run's history writer
(the interpreters write the rest through the same writer), keeps each execution's top-level fiber
and run, and wakes `.sync` tasks waiting for an execution."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

from msgspec import Struct

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.model import StateMachine
from sfn_emulator.clock.virtual_clock import after
from sfn_emulator.engine.effects import Interpreter
from sfn_emulator.engine.errors import NotRedrivable
from sfn_emulator.engine.execution import ABORTED, FAILED, RUNNING, SUCCEEDED, TIMED_OUT, Execution, HistoryEvent
from sfn_emulator.engine.frame import Frame, Run, to_json_text
from sfn_emulator.engine.interpreter import run_execution, run_machine
from sfn_emulator.engine.run_time_limit import run_time_limit_seconds
from sfn_emulator.engine.scheduling.callbacks import TokenWait
from sfn_emulator.engine.scheduling.fibers import Fiber, Fibers
from sfn_emulator.engine.scheduling.history_writer import HISTORY_LIMIT_CAUSE, MAX_HISTORY_EVENTS
from sfn_emulator.engine.scheduling.timers import Timer, Timers
from sfn_emulator.engine.variables import Variables
from sfn_emulator.protocol.history_events import (
    TASK_ATTEMPT_ENDS,
    TASK_ATTEMPT_STARTS,
    entered_state_type,
    execution_aborted,
    execution_failed,
    execution_redriven,
    execution_started,
    execution_succeeded,
    execution_timed_out,
    is_state_event,
    state_name_of,
)


def _open_entry(history: list[HistoryEvent], state_name: str) -> tuple[int, datetime] | None:
    """(id, time) of the …StateEntered event of `state_name`'s current visit, if the history has it:
    its last entry, when no …StateExited of it follows (else the stop came before it was entered)."""
    for event in reversed(history):
        if is_state_event(event.type) and state_name_of(event) == state_name:
            return (event.id, event.timestamp) if entered_state_type(event.type) is not None else None
    return None


def resumed_attempt(history: list[HistoryEvent], entered_event_id: int) -> dict[str, HistoryEvent] | None:
    """The events of the Task attempt under way in the state entered at `entered_event_id`, by type
    (TaskScheduled, TaskStarted, TaskSubmitted, ActivityScheduled, ActivityStarted, ...); None when
    no attempt is under way (none began, or the last one ended, as before a retry)."""
    attempt: dict[str, HistoryEvent] | None = None
    for event in history:
        if event.id <= entered_event_id:
            continue
        if event.type in TASK_ATTEMPT_STARTS:
            attempt = {}
        if attempt is not None:
            attempt[event.type] = event
            if event.type in TASK_ATTEMPT_ENDS:
                attempt = None
    return attempt


def asl_only(execution: Execution) -> Callable[[Run], Interpreter]:
    """Which interpreter runs an execution when no dialects are composed in: ASL's."""
    return run_execution


class CompletionWait(Struct, eq=False):
    """A `.sync` task waiting for an execution of this emulator to end (or for its own task token
    to be answered, or for its TimeoutSeconds)."""

    fiber: Fiber
    result_of: Callable[[Execution], Any]
    timeout: Timer | None = None
    token: TokenWait | None = None  # the task's token, which answers it too
    stop_awaited: Callable[[], None] | None = None  # stops the awaited execution when the fiber is cancelled

    def release(self) -> None:
        """Let go of the timeout and the token; the ended execution then finds the fiber done."""
        if self.timeout:
            self.timeout.cancel()
        if self.token is not None:
            self.token.cancel()

    def cancel(self) -> None:
        """The waiting fiber is cancelled: release, and stop the awaited execution when asked to."""
        self.release()
        if self.stop_awaited is not None:
            self.stop_awaited()


class Lifecycle:
    """Every execution the engine runs, from start to end. `began` hears of each execution that starts
    or is redriven (RUNNING from then on), `closed` of each that ends."""

    def __init__(self, *, fibers: Fibers, timers: Timers, now: Callable[[], datetime], seed: int,
                 began: Callable[[Execution], None], closed: Callable[[Execution], None],
                 interpreter_for: Callable[[Execution], Callable[[Run], Interpreter]]) -> None:
        self._fibers = fibers
        self._timers = timers
        self._now = now
        self._seed = seed
        self._began = began
        self._closed = closed
        self._interpreter_for = interpreter_for  # the execution's dialect's interpreter
        self._executions: dict[str, Execution] = {}  # every execution started, for `.sync` waits
        self._roots: dict[str, Fiber] = {}  # execution ARN -> top-level fiber
        self._runs: dict[str, Run] = {}  # execution ARN -> its run, kept after failure for redrive
        self._timeouts: dict[str, Timer] = {}  # execution ARN -> its TimeoutSeconds
        self._completion_waits: dict[str, list[CompletionWait]] = {}

    @property
    def live(self) -> bool:
        """Is any execution running?"""
        return bool(self._roots)

    def has_timeout(self, arn: str) -> bool:
        return arn in self._timeouts

    def find(self, arn: str | None) -> Execution | None:
        return self._executions.get(arn) if arn else None

    def start(self, execution: Execution) -> None:
        self._executions[execution.arn] = execution
        run = self._new_run(execution)
        run.history.append(execution_started(execution.input, execution.role_arn, execution.state_machine_alias_arn,
                                             execution.state_machine_version_arn), timestamp=execution.start_date)
        self._began(execution)
        self._launch(run, self._interpreter_for(execution)(run))

    def ended(self, fiber: Fiber, result: Any, error: StatesError | None) -> None:
        """The execution's top-level fiber returned or raised."""
        if error is None:
            text = to_json_text(result)
            fiber.run.history.append(execution_succeeded(text))
            self._close(fiber.run.execution, SUCCEEDED, output=text)
        else:
            self._fail(fiber.run, error)

    def history_full(self, fiber: Fiber) -> None:
        """The history reached AWS's quota: the execution fails as AWS records it, whatever it was doing."""
        error = StatesError(names.RUNTIME, HISTORY_LIMIT_CAUSE)
        if fiber.on_done is not None:
            fiber.done = True
            fiber.on_done(None, error)
            return
        execution = fiber.run.execution
        if execution.status != RUNNING:
            return
        root = self._roots.get(execution.arn)
        if root is not None:
            self._fibers.cancel(root, aborting=False)
        self._fail(fiber.run, error)

    def abort(self, execution: Execution, error: str | None = None, cause: str | None = None) -> None:
        if execution.status != RUNNING:
            return
        root = self._roots.get(execution.arn)
        if root is not None:
            self._fibers.cancel(root, aborting=False)
        # linked to no event (previousEventId 0), as AWS recorded a StopExecution (LocalStack's test_stop_execution)
        self._runs[execution.arn].history.append(execution_aborted(error, cause), 0)
        self._close(execution, ABORTED, error=error, cause=cause)

    def redrive(self, execution: Execution) -> None:
        previous = self._runs.get(execution.arn)
        point = previous.restart_point if previous else None
        if point is None:
            raise NotRedrivable(f"Execution {execution.arn} has no state to redrive from")
        if len(execution.history) >= MAX_HISTORY_EVENTS:
            raise NotRedrivable("Execution history event limit exceeded")
        execution.redrive_count += 1
        execution.redrive_date = self._now()
        execution.status, execution.stop_date = RUNNING, None
        execution.output = execution.error = execution.cause = None
        execution.mark_running()
        run = self._new_run(execution)
        run.history.append(execution_redriven(execution.redrive_count))
        self._began(execution)
        state_name, state_input = point
        frame = Frame(run, run.execution.history[-1].id)
        machine = execution.machine
        restart = type(machine)(start_at=state_name, states=machine.states, query_language=machine.query_language)
        self._launch(run, run_machine(restart, state_input, frame))

    def resume(self, execution: Execution, point: tuple[str, Any] | None, variables: dict[str, Any],
               task_token: str | None) -> None:
        """Continue an execution a store loaded (see `sfn_emulator.persistence.restore`): its
        history goes on from its last event, in the top-level state it was in, from the input that
        state was entered with (its …StateEntered event is not written again when the history has
        it). Its ids are drawn afresh (seeded by where the history stood), so nothing it makes now
        takes the name of something it made before the stop."""
        self._executions[execution.arn] = execution
        if not execution.history:
            self.start(execution)
            return
        if not isinstance(execution.machine, StateMachine):  # only ASL records where it stood
            self.abandon(execution, "The execution was running when the emulator stopped; executions of "
                                    "this definition language cannot be resumed after a restart.")
            return
        run = Run(execution, self._now,
                  f"{self._seed}:{execution.arn}:{execution.redrive_count}:resumed:{len(execution.history)}")
        frame = Frame(run, run.execution.history[-1].id, variables=Variables(values=variables))
        machine = execution.machine
        if point is None:
            self._launch(run, run_machine(machine, run.execution_context["Input"], frame))
            return
        state_name, state_input = point
        frame.resumed_entry = _open_entry(execution.history, state_name)
        frame.resumed_token = task_token
        if frame.resumed_entry is not None:
            frame.resumed_attempt = resumed_attempt(execution.history, frame.resumed_entry[0])
        restart = type(machine)(start_at=state_name, states=machine.states, query_language=machine.query_language)
        self._launch(run, run_machine(restart, state_input, frame))

    def adopt(self, execution: Execution, point: tuple[str, Any]) -> None:
        """Know a closed execution a store loaded, with the state it stopped in, so it can be redriven."""
        self._executions[execution.arn] = execution
        run = self._new_run(execution)
        run.restart_point = point
        self._runs[execution.arn] = run

    def abandon(self, execution: Execution, cause: str) -> None:
        """End a RUNNING execution a store loaded that cannot go on by itself (a map run's child:
        its parent's Map state starts a new run), as aborted with `cause`."""
        self._executions[execution.arn] = execution
        self._runs[execution.arn] = Run(execution, self._now)
        self.abort(execution, names.RUNTIME, cause)

    def restart_point(self, arn: str) -> tuple[str, Any] | None:
        run = self._runs.get(arn)
        return run.restart_point if run is not None else None

    def top_frame(self, arn: str) -> Frame | None:
        run = self._runs.get(arn)
        return run.top_frame if run is not None else None

    def await_completion(self, waiter: CompletionWait, awaited: Execution) -> None:
        """Resume the waiter's fiber with its result once `awaited` has ended."""
        waiter.fiber.waiting = waiter
        if awaited.finished.is_set():
            self._complete(waiter, awaited)
        else:
            self._completion_waits.setdefault(awaited.arn, []).append(waiter)

    # -- internals -------------------------------------------------------------------------------
    def _new_run(self, execution: Execution) -> Run:
        return Run(execution, self._now, f"{self._seed}:{execution.arn}:{execution.redrive_count}")

    def _launch(self, run: Run, gen: Interpreter) -> None:
        execution = run.execution
        fiber = Fiber(gen, run)
        self._roots[execution.arn] = fiber
        self._runs[execution.arn] = run
        timeout = run_time_limit_seconds(execution)
        if timeout:
            due = after(execution.start_date, timeout)
            self._timeouts[execution.arn] = self._timers.set(due, lambda: self._time_out(run), skippable=True)
        self._fibers.resume(fiber)

    def _fail(self, run: Run, error: StatesError) -> None:
        run.history.append(execution_failed(error.error, error.cause))
        self._close(run.execution, FAILED, error=error.error, cause=error.cause)

    def _time_out(self, run: Run) -> None:
        execution = run.execution
        if execution.status != RUNNING:
            return
        self._fibers.cancel(self._roots[execution.arn], aborting=False)
        if run.on_timeout is not None:  # the definition's own timeout action runs first
            fiber = Fiber(run.on_timeout(), run, on_done=lambda _result, _error: self._timed_out(run))
            self._roots[execution.arn] = fiber
            self._fibers.resume(fiber)
            return
        self._timed_out(run)

    def _timed_out(self, run: Run) -> None:
        if run.execution.status != RUNNING:
            return
        run.history.append(execution_timed_out())
        self._close(run.execution, TIMED_OUT)

    def _close(self, execution: Execution, status: str, *, output: str | None = None,
               error: str | None = None, cause: str | None = None) -> None:
        execution.status = status
        execution.output, execution.error, execution.cause = output, error, cause
        execution.stop_date = self._now()
        self._roots.pop(execution.arn, None)
        timer = self._timeouts.pop(execution.arn, None)
        if timer:
            timer.cancel()
        if status == SUCCEEDED:
            self._runs.pop(execution.arn, None)
        execution.mark_finished()
        for waiter in self._completion_waits.pop(execution.arn, []):
            self._complete(waiter, execution)
        self._closed(execution)

    def _complete(self, waiter: CompletionWait, child: Execution) -> None:
        if waiter.fiber.done or waiter.fiber.waiting is not waiter:
            return
        waiter.release()
        try:
            self._fibers.resume(waiter.fiber, waiter.result_of(child))
        except StatesError as error:
            self._fibers.resume(waiter.fiber, error=error)

