"""Runs a Serverless Workflow as a generator of the engine's effects, writing Step Functions'
history events (the mapping is in the package docstring).

State data flows as the draft says: a state's input is filtered by its `stateDataFilter.dataInputPath`,
action results, consumed events and error data are merged into it (through their filters), and its
output is filtered by `dataOutputPath`. Errors are `StatesError`s; a state's `retry` and `onError`
read them as the error object `{"name", "message"}`, under `error` and in `errors`, beside the data.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.clock.virtual_clock import after
from sfn_emulator.dialects.serverless_workflow import model as m
from sfn_emulator.dialects.serverless_workflow.actions import run_action, run_actions, subflow
from sfn_emulator.dialects.serverless_workflow.events import await_events, produce, with_event
from sfn_emulator.dialects.serverless_workflow.expressions import merged
from sfn_emulator.dialects.serverless_workflow.workflow_run import WorkflowRun, note_rule
from sfn_emulator.engine.effects import ENTER_STATE, Aborted, Fork, Interpreter, Reschedule, Sleep
from sfn_emulator.engine.frame import Frame, Run, to_json_text
from sfn_emulator.engine.states.processing import map_iteration
from sfn_emulator.protocol.history_events import (
    map_state_started,
    map_state_succeeded,
    parallel_state_started,
    parallel_state_succeeded,
    state_aborted,
    state_entered,
    state_exited,
)

JSON = Any
ENTERED = {m.EVENT: "Task", m.OPERATION: "Task", m.CALLBACK: "Task", m.SUBFLOW: "Task", m.SWITCH: "Choice",
           m.DELAY: "Wait", m.PARALLEL: "Parallel", m.FOREACH: "Map", m.INJECT: "Pass"}
"""The Step Functions state type whose …StateEntered/…StateExited events a state writes."""


def run_workflow(run: Run) -> Interpreter:
    """The whole execution: from the workflow data input to the output of its end state."""
    data = run.execution_context["Input"]
    workflow = WorkflowRun(run.execution.machine, run, data)
    frame = Frame(run, prev_event_id=run.execution.history[-1]["id"] if run.execution.history else 0)
    if not isinstance(data, dict):
        raise StatesError(names.RUNTIME, "The workflow data input must be a JSON object (the draft's Workflow Data Input)")
    name: str | None = workflow.model.start_at
    while name is not None:
        state = workflow.model.states[name]
        data, name = yield from _run_state(workflow, state, data, frame)
    return data


def _run_state(workflow: WorkflowRun, state: m.State, raw: JSON, frame: Frame) -> Interpreter:
    yield ENTER_STATE
    kind = ENTERED[state.type]
    frame.state_name, frame.entered_time, frame.retry_count = state.name, frame.run.now(), 0
    frame.entered_event_id = frame.emit(state_entered(kind, state.name, to_json_text(raw)))
    if frame.interleave:
        yield Reschedule()
    data = _filtered(state.data_input_path, raw)
    attempts = [0] * len(state.retry)
    while True:
        try:
            data_after, exit_ = yield from _body(workflow, state, data, frame)
            output = _filtered(state.data_output_path, data_after)
            break
        except StatesError as error:
            seen = _with_error(data, error)
            retry_index = next((i for i, rule in enumerate(state.retry) if rule.expression.holds(seen)), None)
            if retry_index is not None and attempts[retry_index] < state.retry[retry_index].max_attempts:
                rule = state.retry[retry_index]
                delay = rule.interval_seconds + rule.multiplier_seconds * attempts[retry_index]
                attempts[retry_index] += 1
                frame.retry_count += 1
                note_rule(frame, f"Retry[{retry_index}]")
                if delay > 0:
                    yield Sleep(after(frame.run.now(), delay))
                continue
            handler_index = next((i for i, handler in enumerate(state.on_error) if handler.expression.holds(seen)), None)
            if handler_index is None:
                raise
            handler = state.on_error[handler_index]
            note_rule(frame, f"Catch[{handler_index}]")
            error_data = _error_data(error)
            addition = handler.data_output_path.select(error_data) if handler.data_output_path else {"error": error_data["error"]}
            output, exit_ = merged(data, addition), handler.exit
            break
        except Aborted:
            if kind in ("Parallel", "Map", "Task"):
                frame.emit(state_aborted(kind))
            raise
    next_name = yield from _leave(workflow, state, exit_, output, frame)
    return output, next_name


def _leave(workflow: WorkflowRun, state: m.State, exit_: m.Exit, output: JSON, frame: Frame) -> Interpreter:
    """Check the transition's restriction, produce its event, write the exit event; the next state's
    name (None at an end)."""
    if isinstance(exit_, m.Transition) and exit_.expression is not None and not exit_.expression.holds(output):
        raise StatesError(names.RUNTIME, f"The transition from '{state.name}' to '{exit_.next_state}' is restricted "
                                         "by its expression, which the state's output does not satisfy")
    if exit_.produce_event is not None:
        yield from produce(workflow, exit_.produce_event, output, frame)
    frame.emit(state_exited(ENTERED[state.type], state.name, to_json_text(output)))
    if isinstance(exit_, m.Transition):
        return exit_.next_state
    return None


def _body(workflow: WorkflowRun, state: m.State, data: JSON, frame: Frame) -> Interpreter:
    body = state.body
    match body:
        case m.OperationBody():
            return (yield from run_actions(workflow, body.actions, body.action_mode, data, frame)), state.exit
        case m.InjectBody():
            return merged(data, body.data), state.exit
        case m.DelayBody():
            yield Sleep(after(frame.run.now(), body.seconds))
            return data, state.exit
        case m.SwitchBody():
            return (yield from _switch(workflow, body, data, frame))
        case m.EventBody():
            return (yield from _event_state(workflow, body, data, frame)), state.exit
        case m.CallbackBody():
            yield from run_action(workflow, body.action, data, frame)
            received = yield from await_events(workflow, (body.event_ref,), False, body.timeout_seconds, frame)
            return with_event(data, received[0], body.data_output_path), state.exit
        case m.ParallelBody():
            return (yield from _parallel(workflow, state, body, data, frame)), state.exit
        case m.ForEachBody():
            return (yield from _foreach(workflow, state, body, data, frame)), state.exit
        case m.SubflowBody():
            result = yield from subflow(workflow, body.workflow_id, body.wait_for_completion, data, frame)
            return (merged(data, result) if body.wait_for_completion else data), state.exit
    raise StatesError(names.RUNTIME, f"sfn-emulator cannot run the state type '{state.type}'")


# -- switch and event states -----------------------------------------------------------------------
def _switch(workflow: WorkflowRun, body: m.SwitchBody, data: JSON, frame: Frame) -> Interpreter:
    if body.data_conditions:
        for index, condition in enumerate(body.data_conditions):
            if condition.condition.holds(data):
                note_rule(frame, f"Choices[{index}]")
                return data, condition.exit
        note_rule(frame, "Default")
        return data, body.default
    refs = tuple(condition.event_ref for condition in body.event_conditions)
    try:
        received = yield from await_events(workflow, refs, False, body.event_timeout_seconds, frame)
    except StatesError as error:
        if error.error != names.TIMEOUT:
            raise
        note_rule(frame, "Default")
        return data, body.default
    index, event = next(iter(received.items()))
    note_rule(frame, f"Choices[{index}]")
    condition = body.event_conditions[index]
    return with_event(data, event, condition.data_output_path), condition.exit


def _event_state(workflow: WorkflowRun, body: m.EventBody, data: JSON, frame: Frame) -> Interpreter:
    """Exclusive: the first event of any group runs that group's actions; otherwise every event of
    every group must arrive, then each group's actions run, in order."""
    refs = [(group, ref) for group in body.events_actions for ref in group.event_refs]
    received = yield from await_events(workflow, tuple(ref for _, ref in refs), not body.exclusive, body.timeout_seconds, frame)
    ran: list[m.EventActions] = []
    for index in sorted(received):
        group = refs[index][0]
        data = with_event(data, received[index], group.data_output_path)
        if group not in ran:
            ran.append(group)
    for group in ran:
        data = yield from run_actions(workflow, group.actions, group.action_mode, data, frame)
    return data


# -- parallel, foreach and subflow ---------------------------------------------------------------------
def _parallel(workflow: WorkflowRun, state: m.State, body: m.ParallelBody, data: JSON, frame: Frame) -> Interpreter:
    """Every branch gets the state data; `and` waits for all, `xor` for the first, `n_of_m` for `n`;
    the results of the branches that completed are merged in branch order."""
    frame.emit(parallel_state_started())
    needed = {m.AND: None, m.XOR: 1, m.N_OF_M: body.n}[body.completion_type]
    runners = [_branch_runner(workflow, branch, data, frame) for branch in body.branches]
    results = yield Fork(runners, interleave=True, needed=needed)
    frame.emit(parallel_state_succeeded())
    for result in results:
        if result is not None:
            data = merged(data, result)
    return data


def _branch_runner(workflow: WorkflowRun, branch: m.Branch, data: JSON, frame: Frame) -> Callable[[], Interpreter]:
    def branch_run() -> Interpreter:
        child = frame.child(interleave=True)
        child.state_name = frame.state_name
        if branch.workflow_id is not None:
            return (yield from subflow(workflow, branch.workflow_id, True, data, child))
        return (yield from run_actions(workflow, branch.actions, m.SEQUENTIAL, data, child))

    return branch_run


def _foreach(workflow: WorkflowRun, state: m.State, body: m.ForEachBody, data: JSON, frame: Frame) -> Interpreter:
    items = body.input_collection.evaluate(data)
    if not isinstance(items, list):
        raise StatesError(names.RUNTIME, f"The inputCollection of '{state.name}' selects {to_json_text(items)}, not an array")
    frame.emit(map_state_started(len(items)))
    runners = [_iteration_runner(workflow, state, body, data, index, item, frame) for index, item in enumerate(items)]
    results = yield Fork(runners, max_concurrency=body.max or 0)
    frame.emit(map_state_succeeded())
    if body.output_collection is None:
        return data
    existing = data.get(body.output_collection)
    return {**data, body.output_collection: (existing if isinstance(existing, list) else []) + results}


def _iteration_runner(workflow: WorkflowRun, state: m.State, body: m.ForEachBody, data: JSON, index: int, item: JSON,
                      frame: Frame) -> Callable[[], Interpreter]:
    def iteration() -> Interpreter:
        child = frame.child(map_item=(index, item))
        child.state_name = state.name
        iteration_data = {**data, body.iteration_param: item}
        if body.workflow_id is not None:
            work = subflow(workflow, body.workflow_id, True, iteration_data, child)
        else:
            work = _iteration_result(workflow, body.actions, iteration_data, child)
        return (yield from map_iteration(child, state.name, index, work))

    return iteration


def _iteration_result(workflow: WorkflowRun, actions: tuple[m.Action, ...], data: JSON, frame: Frame) -> Interpreter:
    """What `outputCollection` gathers of one iteration: its data with each action's result merged
    in (the draft's example: one confirmation per order); a result that is not an object cannot be
    merged, so it is the iteration's result itself rather than being lost."""
    result: JSON = data
    for action in actions:
        outcome = yield from run_action(workflow, action, data, frame)
        data = merged(data, outcome)
        result = data if isinstance(outcome, dict) else outcome
    return result


# -- helpers -----------------------------------------------------------------------------------------
def _filtered(selector: Any, data: JSON) -> JSON:
    if selector is None:
        return data
    selected = selector.select(data)
    return data if selected is None else selected


def _error_data(error: StatesError) -> dict[str, JSON]:
    """The draft's error object: `name` the error, `message` its cause (a callable's `errorMessage`)."""
    message = error.cause or ""
    try:
        reported = json.loads(message)
    except ValueError:
        reported = None
    if isinstance(reported, dict) and isinstance(reported.get("errorMessage"), str):
        message = reported["errorMessage"]
    details = {"name": error.error, "message": message}
    return {"error": details, "errors": [details]}


def _with_error(data: JSON, error: StatesError) -> JSON:
    return {**data, **_error_data(error)} if isinstance(data, dict) else _error_data(error)
