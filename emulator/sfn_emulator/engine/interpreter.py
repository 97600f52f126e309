"""The interpreter: runs a parsed state machine as a generator of effects.

Data in, events out: it reads a `StateMachine` and an input, appends AWS history events through
its `Frame`, and yields an effect (`Sleep`, `Invoke`, `AwaitToken`, `ScheduleActivity`, `Fork`,
`Reschedule`) whenever it must wait for the world. It never sleeps, never reads the wall clock and
never touches a thread; the scheduler owns all of that.

Event sequences follow AWS's recorded histories: a retried state stays entered (no exit event
between attempts; Parallel and Map emit `...StateStarted` per attempt and `...StateFailed` once,
when the error leaves the state); a caught error exits the state; an uncaught one leaves it
without an exit event; `States.Runtime` is never retried nor caught.

This module enters and exits states, applies Retry and Catch, and hands each state's own work to
its family's module in `sfn_emulator.engine.states` (chosen by a `match` on the state union)."""

from __future__ import annotations

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.jsonata_expressions import QueryEvaluationError
from sfn_emulator.asl.limits import within_payload_limit
from sfn_emulator.asl.model import (
    JSON,
    BaseState,
    Catcher,
    ChoiceState,
    FailState,
    MapState,
    ParallelState,
    PassState,
    Retrier,
    StateMachine,
    SucceedState,
    TaskState,
    WaitState,
)
from sfn_emulator.asl.retrying import backoff_seconds
from sfn_emulator.clock.virtual_clock import after
from sfn_emulator.engine.effects import (
    ENTER_STATE,
    Aborted,
    Interpreter,
    Reschedule,
    Sleep,
)
from sfn_emulator.engine.frame import Frame, Run, to_json_text
from sfn_emulator.engine.states.distributed_map import run_distributed_map
from sfn_emulator.engine.states.flow import run_choice, run_fail, run_pass, run_succeed
from sfn_emulator.engine.states.map_inline import run_map
from sfn_emulator.engine.states.parallel import run_parallel
from sfn_emulator.engine.states.processing import BranchFailure, note_rule
from sfn_emulator.engine.states.tasks import run_task
from sfn_emulator.engine.states.waiting import run_wait
from sfn_emulator.protocol.history_events import (
    PREVIOUS_EVENT_ID,
    evaluation_failed,
    state_aborted,
    state_entered,
    state_exited,
    state_failed,
)

RUNTIME_PREFIX = "An error occurred while executing the state"
_PREFIXED = (names.RUNTIME, names.QUERY_EVALUATION_ERROR)


def run_execution(run: Run) -> Interpreter:
    """The whole execution: its definition from its input; returns the output. Its first state's
    ...StateEntered event links to no event (`previousEventId` 0), not to ExecutionStarted, as in
    every history AWS recorded (LocalStack's AWS-validated snapshots, e.g. its base scenarios)."""
    frame = Frame(run, prev_event_id=0)
    return (yield from run_machine(run.execution.machine, run.execution_context["Input"], frame))


def run_machine(machine: StateMachine, value: JSON, frame: Frame) -> Interpreter:
    """Run states from StartAt until one ends the machine; returns its output."""
    name: str | None = machine.start_at
    while name is not None:
        if not frame.nested:
            frame.run.restart_point = (name, value)
            frame.run.top_frame = frame
        value, name = yield from run_state(machine.states[name], value, frame)
    return value


def run_state(state: BaseState, state_input: JSON, frame: Frame) -> Interpreter:
    """Enter a state, run it with its Retry and Catch, exit it. Returns (output, next state name)."""
    yield ENTER_STATE
    frame.state_name = state.name
    frame.retry_count = 0
    frame.counts_retries = hasattr(state, "retry")
    frame.task_token = None
    if frame.resumed_entry is not None:  # a state entered before a restart (`persistence.restore`)
        (frame.entered_event_id, frame.entered_time), frame.resumed_entry = frame.resumed_entry, None
    else:
        frame.entered_time = frame.run.now()
        frame.entered_event_id = frame.emit(state_entered(state.type, state.name, frame.run.payload_text(state_input)))
    if frame.interleave:
        yield Reschedule()
    retry: tuple[Retrier, ...] = getattr(state, "retry", ())
    attempts = [0] * len(retry)
    while True:
        frame.assigned = None
        try:
            output, next_name = yield from run_attempt(state, state_input, frame)
            # the run's text: an output that is the state's input (Choice, Wait) is not serialised again
            output_text = within_payload_limit(output, state.name, frame.run.payload_text(output))
        except StatesError as raised:
            frame.assigned = None
            error = with_runtime_prefix(raised, frame)
            if isinstance(raised, QueryEvaluationError):
                _evaluation_failed(state, error, raised.location, frame)
            if error.error != names.RUNTIME:
                index = _matching(retry, error)
                if index is not None and attempts[index] < retry[index].max_attempts:
                    delay = _retry_delay(retry[index], attempts[index], frame.run)
                    attempts[index] += 1
                    frame.retry_count += 1
                    note_rule(frame, f"Retry[{index}]")
                    if delay > 0:
                        yield Sleep(after(frame.run.now(), delay))
                    continue
            if isinstance(raised, BranchFailure):
                frame.emit(state_failed(state.type))
            catcher = matching_catcher(state, error)
            if catcher is None:
                if frame.nested and isinstance(state, TaskState):
                    frame.emit(state_aborted(state.type), advance=False)  # as AWS records a Task failing inside a branch
                raise error from None
            note_rule(frame, f"Catch[{getattr(state, 'catch').index(catcher)}]")
            try:
                output = caught_output(state, catcher, state_input, error, frame)
                output_text = within_payload_limit(output, state.name, frame.run.payload_text(output))
            except StatesError as path_error:
                frame.assigned = None
                raised_error = with_runtime_prefix(path_error, frame)
                if isinstance(path_error, QueryEvaluationError):
                    _evaluation_failed(state, raised_error, path_error.location, frame)
                raise raised_error from None
            _exit(state, output, frame, output_text)
            return output, catcher.next
        except Aborted:
            if state.type in ABORTABLE:
                frame.emit(state_aborted(state.type))
            raise
        _exit(state, output, frame, output_text)  # (a Fail state never gets here: it raises)
        return output, next_name


def run_attempt(state: BaseState, state_input: JSON, frame: Frame) -> Interpreter:
    """One attempt at a state's work, without Retry or Catch. Returns (output, next state name)."""
    match state:
        case PassState():
            return run_pass(state, state_input, frame)
        case ChoiceState():
            return run_choice(state, state_input, frame)
        case SucceedState():
            return run_succeed(state, state_input, frame)
        case FailState():
            return run_fail(state, state_input, frame)
        case WaitState():
            return (yield from run_wait(state, state_input, frame))
        case TaskState():
            return (yield from run_task(state, state_input, frame))
        case ParallelState():
            return (yield from run_parallel(state, state_input, frame, run_machine))
        case MapState(processor_mode="DISTRIBUTED"):
            return (yield from run_distributed_map(state, state_input, frame))
        case MapState():
            return (yield from run_map(state, state_input, frame, run_machine))
    raise TypeError(f"not a state: {state!r}")


def caught_output(state: BaseState, catcher: Catcher, state_input: JSON, error: StatesError, frame: Frame) -> JSON:
    """The state's output when `catcher` caught `error` (by its query language: `state.io`); its Assign
    is bound when the state exits."""
    return state.io.caught_output(state_input, error_output(error), catcher, frame)


def error_output(error: StatesError) -> dict[str, JSON]:
    """What a Catcher passes on: {"Error", "Cause"} (Cause only when there is one, or when there is
    no error name either: AWS then passes both as null). A timeout has no cause in the history, but
    its error output has an empty one (recorded: a caught `lambda:invoke` TimeoutSeconds gives
    {"Error": "States.Timeout", "Cause": ""})."""
    output: dict[str, JSON] = {"Error": error.error}
    if error.cause is not None or error.error is None:
        output["Cause"] = error.cause
    elif error.error == names.TIMEOUT:
        output["Cause"] = ""
    return output


def matching_retrier(state: BaseState, error: StatesError) -> Retrier | None:
    retry: tuple[Retrier, ...] = getattr(state, "retry", ())
    index = _matching(retry, error) if error.error != names.RUNTIME else None
    return retry[index] if index is not None else None


def matching_catcher(state: BaseState, error: StatesError) -> Catcher | None:
    catch: tuple[Catcher, ...] = getattr(state, "catch", ())
    index = _matching(catch, error) if error.error != names.RUNTIME else None
    return catch[index] if index is not None else None


def _exit(state: BaseState, output: JSON, frame: Frame, output_text: str | None = None) -> None:
    """Leave the state: bind what its Assign evaluated to (AWS lists it in the exit event)."""
    assigned = None
    if frame.assigned is not None:
        frame.variables.assign(frame.assigned)
        assigned = {name: to_json_text(value) for name, value in frame.assigned.items()}
        frame.assigned = None
    frame.emit(state_exited(state.type, state.name, frame.run.payload_text(output, known=output_text), assigned))


def _evaluation_failed(state: BaseState, error: StatesError, location: str | None, frame: Frame) -> None:
    """AWS records a JSONata failure as an EvaluationFailed event; a Map or Parallel state then fails."""
    # Linked as AWS's recordings link it: a Wait's to its WaitStateEntered (5 cases), a Pass's or
    # Map's to where its ...StateEntered links (7 cases); no other state's is on record.
    entered = frame.run.execution.history[frame.entered_event_id - 1] if frame.entered_event_id else None
    frame.emit(evaluation_failed(error.error, error.cause, state.name, location),
               previous=entered[PREVIOUS_EVENT_ID] if entered is not None and state.type != "Wait" else None)
    if state.type in ("Map", "Parallel"):
        frame.emit(state_failed(state.type))


def with_runtime_prefix(error: StatesError, frame: Frame) -> StatesError:
    """States.Runtime and States.QueryEvaluationError causes name the failing state and its entered
    event, as AWS's do."""
    if error.error in _PREFIXED and not (error.cause or "").startswith(RUNTIME_PREFIX):
        return StatesError(error.error, f"{RUNTIME_PREFIX} '{frame.state_name}' (entered at the event id "
                                          f"#{frame.entered_event_id}). {error.cause or ''}".rstrip())
    return error


def _matching(rules: tuple[Retrier, ...] | tuple[Catcher, ...], error: StatesError) -> int | None:
    heartbeat = isinstance(error, names.HeartbeatTimedOut)
    return next((index for index, rule in enumerate(rules)
                 if names.error_equals_matches(rule.error_equals, error.error, heartbeat=heartbeat)), None)


def _retry_delay(retrier: Retrier, attempt: int, run: Run) -> float:
    delay = backoff_seconds(retrier, attempt)
    if retrier.jitter_strategy == "FULL":
        delay = run.random.uniform(0, delay)
    return delay


ABORTABLE = ("Task", "Wait", "Parallel", "Map")  # the states whose work an abort interrupts
