"""Runs a Serverless Workflow as a generator of the engine's effects, writing Step Functions'
history events (the mapping is in the package docstring).

State data flows as the draft says: a state's input is filtered by its `stateDataFilter.dataInputPath`,
action results, consumed events and error data are merged into it (through their filters), and its
output is filtered by `dataOutputPath`. Errors are `StatesError`s; a state's `retry` and `onError`
read them as the error object `{"name", "message"}`, under `error` and in `errors`, beside the data.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Callable

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.engine.cloudevents import EventMatch
from sfn_emulator.engine.effects import (
    TRANSITION,
    Aborted,
    AnswersWholeTask,
    AwaitCompletion,
    AwaitEvent,
    Fork,
    Interpreter,
    Invoke,
    ProduceEvent,
    Reschedule,
    Sleep,
)
from sfn_emulator.engine.frame import Frame, Run, to_json_text
from sfn_emulator.dialects.serverless_workflow import model as m
from sfn_emulator.dialects.serverless_workflow.expressions import merged
from sfn_emulator.dialects.functions import call_function
from sfn_emulator.resources.base import REQUEST_RESPONSE, SYNC2, ResourceArn, TaskRequest, parse_resource
from sfn_emulator.clock import format_time

JSON = Any
ENTERED = {m.EVENT: "Task", m.OPERATION: "Task", m.CALLBACK: "Task", m.SUBFLOW: "Task", m.SWITCH: "Choice",
           m.DELAY: "Wait", m.PARALLEL: "Parallel", m.FOREACH: "Map", m.INJECT: "Pass"}
"""The Step Functions state type whose …StateEntered/…StateExited events a state writes."""
_EVENTS_RESOURCE = "events"


@dataclass
class _Workflow:
    """One execution's view: the model, and the correlation values its consumed events fixed."""

    model: m.Workflow
    run: Run
    correlation: dict[str, JSON] = field(default_factory=dict)


def run_workflow(run: Run) -> Interpreter:
    """The whole execution: from the workflow data input to the output of its end state."""
    workflow = _Workflow(run.execution.machine, run)
    frame = Frame(run, prev_event_id=run.execution.history[-1]["id"] if run.execution.history else 0)
    data = run.execution_context["Input"]
    if not isinstance(data, dict):
        raise StatesError(names.RUNTIME, "The workflow data input must be a JSON object (the draft's Workflow Data Input)")
    name: str | None = workflow.model.start_at
    while name is not None:
        state = workflow.model.states[name]
        data, name = yield from _run_state(workflow, state, data, frame)
    return data


def _run_state(workflow: _Workflow, state: m.State, raw: JSON, frame: Frame) -> Interpreter:
    yield TRANSITION
    kind = ENTERED[state.type]
    frame.state_name, frame.entered_time, frame.retry_count = state.name, frame.run.now(), 0
    frame.entered_event_id = frame.emit(f"{kind}StateEntered", "stateEnteredEventDetails",
                                        {"name": state.name, "input": to_json_text(raw), "inputDetails": {"truncated": False}})
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
                _note_rule(frame, f"Retry[{retry_index}]")
                if delay > 0:
                    yield Sleep(frame.run.now() + timedelta(seconds=delay))
                continue
            handler_index = next((i for i, handler in enumerate(state.on_error) if handler.expression.holds(seen)), None)
            if handler_index is None:
                raise
            handler = state.on_error[handler_index]
            _note_rule(frame, f"Catch[{handler_index}]")
            error_data = _error_data(error)
            addition = handler.data_output_path.select(error_data) if handler.data_output_path else {"error": error_data["error"]}
            output, exit_ = merged(data, addition), handler.exit
            break
        except Aborted:
            if kind in ("Parallel", "Map", "Task"):
                frame.emit(f"{kind}StateAborted")
            raise
    next_name = yield from _leave(workflow, state, exit_, output, frame)
    return output, next_name


def _leave(workflow: _Workflow, state: m.State, exit_: m.Exit, output: JSON, frame: Frame) -> Interpreter:
    """Check the transition's restriction, produce its event, write the exit event; the next state's
    name (None at an end)."""
    if isinstance(exit_, m.Transition) and exit_.expression is not None and not exit_.expression.holds(output):
        raise StatesError(names.RUNTIME, f"The transition from '{state.name}' to '{exit_.next_state}' is restricted "
                                         "by its expression, which the state's output does not satisfy")
    if exit_.produce_event is not None:
        yield from _produce(workflow, exit_.produce_event, output, frame)
    frame.emit(f"{ENTERED[state.type]}StateExited", "stateExitedEventDetails",
               {"name": state.name, "output": to_json_text(output), "outputDetails": {"truncated": False}})
    if isinstance(exit_, m.Transition):
        return exit_.next_state
    return None


def _body(workflow: _Workflow, state: m.State, data: JSON, frame: Frame) -> Interpreter:
    body = state.body
    match body:
        case m.OperationBody():
            return (yield from _run_actions(workflow, body.actions, body.action_mode, data, frame)), state.exit
        case m.InjectBody():
            return merged(data, body.data), state.exit
        case m.DelayBody():
            yield Sleep(frame.run.now() + timedelta(seconds=body.seconds))
            return data, state.exit
        case m.SwitchBody():
            return (yield from _switch(workflow, body, data, frame))
        case m.EventBody():
            return (yield from _event_state(workflow, body, data, frame)), state.exit
        case m.CallbackBody():
            yield from _run_action(workflow, body.action, data, frame)
            received = yield from _await(workflow, (body.event_ref,), False, body.timeout_seconds, frame)
            return _with_event(data, received[0], body.data_output_path), state.exit
        case m.ParallelBody():
            return (yield from _parallel(workflow, state, body, data, frame)), state.exit
        case m.ForEachBody():
            return (yield from _foreach(workflow, state, body, data, frame)), state.exit
        case m.SubflowBody():
            result = yield from _subflow(workflow, body.workflow_id, body.wait_for_completion, data, frame)
            return (merged(data, result) if body.wait_for_completion else data), state.exit
    raise StatesError(names.RUNTIME, f"sfn-emulator cannot run the state type '{state.type}'")


# -- switch and event states -----------------------------------------------------------------------
def _switch(workflow: _Workflow, body: m.SwitchBody, data: JSON, frame: Frame) -> Interpreter:
    if body.data_conditions:
        for index, condition in enumerate(body.data_conditions):
            if condition.condition.holds(data):
                _note_rule(frame, f"Choices[{index}]")
                return data, condition.exit
        _note_rule(frame, "Default")
        return data, body.default
    refs = tuple(condition.event_ref for condition in body.event_conditions)
    try:
        received = yield from _await(workflow, refs, False, body.event_timeout_seconds, frame)
    except StatesError as error:
        if error.error != names.TIMEOUT:
            raise
        _note_rule(frame, "Default")
        return data, body.default
    index, event = next(iter(received.items()))
    _note_rule(frame, f"Choices[{index}]")
    condition = body.event_conditions[index]
    return _with_event(data, event, condition.data_output_path), condition.exit


def _event_state(workflow: _Workflow, body: m.EventBody, data: JSON, frame: Frame) -> Interpreter:
    """Exclusive: the first event of any group runs that group's actions; otherwise every event of
    every group must arrive, then each group's actions run, in order."""
    refs = [(group, ref) for group in body.events_actions for ref in group.event_refs]
    received = yield from _await(workflow, tuple(ref for _, ref in refs), not body.exclusive, body.timeout_seconds, frame)
    ran: list[m.EventActions] = []
    for index in sorted(received):
        group = refs[index][0]
        data = _with_event(data, received[index], group.data_output_path)
        if group not in ran:
            ran.append(group)
    for group in ran:
        data = yield from _run_actions(workflow, group.actions, group.action_mode, data, frame)
    return data


def _await(workflow: _Workflow, refs: tuple[str, ...], all_of: bool, timeout: float | None,
           frame: Frame) -> Interpreter:
    """Wait for events by their definitions' names; {index in refs: event}. Written as a task of the
    `events` resource: TaskScheduled, TaskStarted, then TaskSucceeded (the events) or TaskTimedOut."""
    ids = {"resourceType": _EVENTS_RESOURCE, "resource": "awaitEvent"}
    scheduled: dict[str, Any] = {**ids, "region": frame.run.execution.region,
                                 "parameters": to_json_text({"eventRefs": list(refs), "all": all_of})}
    if timeout is not None:
        scheduled["timeoutInSeconds"] = int(timeout)
    frame.emit("TaskScheduled", "taskScheduledEventDetails", scheduled)
    frame.emit("TaskStarted", "taskStartedEventDetails", dict(ids))
    matches = tuple(_match(workflow, ref) for ref in refs)
    try:
        received = yield AwaitEvent(matches, all_of, timeout)
    except StatesError as error:
        frame.emit("TaskTimedOut", "taskTimedOutEventDetails", {**ids, **_error_details(error)})
        raise
    for index, event in received.items():
        _fix_correlation(workflow, refs[index], event)
    consumed = [received[index] for index in sorted(received)]
    frame.emit("TaskSucceeded", "taskSucceededEventDetails",
               {**ids, "output": to_json_text(consumed), "outputDetails": {"truncated": False}})
    return received


def _match(workflow: _Workflow, ref: str) -> EventMatch:
    """What a consumed event definition accepts: its type and source, and its correlation rules (a
    value given, or the value an earlier event of this execution fixed, or just the attribute's presence)."""
    definition = workflow.model.events[ref]
    attributes, correlate = [], []
    for rule in definition.correlation:
        name = rule.context_attribute_name
        value = rule.context_attribute_value.evaluate({}) if rule.context_attribute_value is not None else None
        attributes.append((name, value if value is not None else workflow.correlation.get(name)))
        if value is None and name not in workflow.correlation:
            correlate.append(name)  # the first event of the wait fixes it for the others
    return EventMatch(definition.type, definition.source, tuple(attributes), tuple(correlate))


def _fix_correlation(workflow: _Workflow, ref: str, event: dict[str, JSON]) -> None:
    for rule in workflow.model.events[ref].correlation:
        workflow.correlation.setdefault(rule.context_attribute_name, event.get(rule.context_attribute_name))


def _with_event(data: JSON, event: dict[str, JSON], selector: Any) -> JSON:
    """The event merged into state data: its payload, or what the event data filter selects from
    the payload's members and the event's context attributes together."""
    payload = event.get("data")
    if selector is None:
        return merged(data, payload)
    visible = {**payload, **event} if isinstance(payload, dict) else dict(event)
    selected = selector.select(visible)
    return merged(data, selected) if selected is not None else data


def _produce(workflow: _Workflow, produce: m.ProducedEvent, data: JSON, frame: Frame) -> Interpreter:
    """Publish a produced event: recorded as a task of the `events` resource, and delivered."""
    definition = workflow.model.events[produce.event_ref]
    run = frame.run
    payload = produce.data.evaluate(data) if produce.data is not None else data
    event: dict[str, JSON] = {
        "specversion": "1.0", "id": run.randomness.uuid(),
        "source": definition.source or run.execution.state_machine_arn, "type": definition.type,
        "time": format_time(run.now()), "datacontenttype": "application/json",
    }
    attributes = produce.context_attributes.evaluate(data) if produce.context_attributes is not None else {}
    if isinstance(attributes, dict):
        event.update({key: value for key, value in attributes.items() if key != "data"})
    event["data"] = payload
    ids = {"resourceType": _EVENTS_RESOURCE, "resource": "produceEvent"}
    frame.emit("TaskScheduled", "taskScheduledEventDetails",
               {**ids, "region": run.execution.region, "parameters": to_json_text(event)})
    frame.emit("TaskStarted", "taskStartedEventDetails", dict(ids))
    consumers = yield ProduceEvent(event)
    frame.emit("TaskSucceeded", "taskSucceededEventDetails",
               {**ids, "output": to_json_text({"consumedBy": consumers}), "outputDetails": {"truncated": False}})
    return event


# -- actions -----------------------------------------------------------------------------------------
def _run_actions(workflow: _Workflow, actions: tuple[m.Action, ...], mode: str, data: JSON, frame: Frame) -> Interpreter:
    """Each action's (filtered) result merged into the state data, in the actions' order."""
    if mode == m.PARALLEL_MODE and len(actions) > 1:
        runners = [_action_runner(workflow, action, data, frame) for action in actions]
        results = yield Fork(runners, interleave=True)
    else:
        results = []
        for action in actions:
            results.append((yield from _run_action(workflow, action, data, frame)))
            data = merged(data, results[-1])
    for result in results if mode == m.PARALLEL_MODE and len(actions) > 1 else ():
        data = merged(data, result)
    return data


def _action_runner(workflow: _Workflow, action: m.Action, data: JSON, frame: Frame) -> Callable[[], Interpreter]:
    return lambda: _run_action(workflow, action, data, frame.child(interleave=True))


def _run_action(workflow: _Workflow, action: m.Action, data: JSON, frame: Frame) -> Interpreter:
    """What the action adds to the state data: its result, through `dataResultsPath`."""
    selected = action.data_input_path.select(data) if action.data_input_path is not None else None
    action_data = data if selected is None else selected
    if action.function_ref is not None:
        result = yield from _call_function(workflow, action, action_data, frame)
    else:
        assert action.event_ref is not None
        trigger = m.ProducedEvent(action.event_ref.trigger_event_ref, action.event_ref.data,
                                  action.event_ref.context_attributes)
        yield from _produce(workflow, trigger, action_data, frame)
        received = yield from _await(workflow, (action.event_ref.result_event_ref,), False, action.timeout_seconds, frame)
        result = received[0].get("data")
    if action.data_results_path is not None:
        selected = action.data_results_path.select(result)
        return selected if selected is not None else {}
    return result


def _call_function(workflow: _Workflow, action: m.Action, action_data: JSON, frame: Frame) -> Interpreter:
    """A function call through the task-resource chain: a mock test case (the action's name, else the
    state's), a callable registered under the function's name, then one under its `resource`."""
    assert action.function_ref is not None
    function = workflow.model.functions[action.function_ref.ref_name]
    payload = action.function_ref.parameters.evaluate(action_data) if action.function_ref.parameters is not None else action_data
    run = frame.run
    ids = {"resourceType": "function", "resource": function.name}
    scheduled: dict[str, Any] = {**ids, "region": run.execution.region, "parameters": to_json_text(payload)}
    if action.timeout_seconds is not None:
        scheduled["timeoutInSeconds"] = int(action.timeout_seconds)
    frame.emit("TaskScheduled", "taskScheduledEventDetails", scheduled)
    frame.emit("TaskStarted", "taskStartedEventDetails", dict(ids))
    try:
        result = yield from call_function(function.name, function.resource, payload, run=run,
                                          state_name=action.name or frame.state_name, attempt=frame.retry_count,
                                          timeout=action.timeout_seconds)
        text = to_json_text(result)
    except StatesError as error:
        kind = "TaskTimedOut" if error.error == names.TIMEOUT else "TaskFailed"
        frame.emit(kind, f"{kind[0].lower()}{kind[1:]}EventDetails", {**ids, **_error_details(error)})
        raise error from None
    frame.emit("TaskSucceeded", "taskSucceededEventDetails", {**ids, "output": text, "outputDetails": {"truncated": False}})
    return result


def _request(resource: ResourceArn, payload: JSON, name: str, run: Run, frame: Frame, timeout: float | None) -> TaskRequest:
    return TaskRequest(resource=resource, payload=payload, execution_arn=run.execution.arn,
                       state_machine_name=run.execution.state_machine_name, state_name=name,
                       account=run.execution.account, region=run.execution.region, attempt=frame.retry_count,
                       timeout_seconds=timeout, now=run.now(), test_case=run.execution.test_case)


# -- parallel, foreach and subflow ---------------------------------------------------------------------
def _parallel(workflow: _Workflow, state: m.State, body: m.ParallelBody, data: JSON, frame: Frame) -> Interpreter:
    """Every branch gets the state data; `and` waits for all, `xor` for the first, `n_of_m` for `n`;
    the results of the branches that completed are merged in branch order."""
    frame.emit("ParallelStateStarted")
    needed = {m.AND: None, m.XOR: 1, m.N_OF_M: body.n}[body.completion_type]
    runners = [_branch_runner(workflow, branch, data, frame) for branch in body.branches]
    results = yield Fork(runners, interleave=True, needed=needed)
    frame.emit("ParallelStateSucceeded")
    for result in results:
        if result is not None:
            data = merged(data, result)
    return data


def _branch_runner(workflow: _Workflow, branch: m.Branch, data: JSON, frame: Frame) -> Callable[[], Interpreter]:
    def branch_run() -> Interpreter:
        child = frame.child(interleave=True)
        child.state_name = frame.state_name
        if branch.workflow_id is not None:
            return (yield from _subflow(workflow, branch.workflow_id, True, data, child))
        return (yield from _run_actions(workflow, branch.actions, m.SEQUENTIAL, data, child))

    return branch_run


def _foreach(workflow: _Workflow, state: m.State, body: m.ForEachBody, data: JSON, frame: Frame) -> Interpreter:
    items = body.input_collection.evaluate(data)
    if not isinstance(items, list):
        raise StatesError(names.RUNTIME, f"The inputCollection of '{state.name}' selects {to_json_text(items)}, not an array")
    frame.emit("MapStateStarted", "mapStateStartedEventDetails", {"length": len(items)})
    runners = [_iteration_runner(workflow, state, body, data, index, item, frame) for index, item in enumerate(items)]
    results = yield Fork(runners, max_concurrency=body.max or 0)
    frame.emit("MapStateSucceeded")
    if body.output_collection is None:
        return data
    from sfn_emulator.dialects.serverless_workflow.expressions import compile_selector

    name = compile_selector(body.output_collection).query.member_name or "results"
    existing = data.get(name) if isinstance(data, dict) else None
    return {**data, name: (existing if isinstance(existing, list) else []) + results}


def _iteration_runner(workflow: _Workflow, state: m.State, body: m.ForEachBody, data: JSON, index: int, item: JSON,
                      frame: Frame) -> Callable[[], Interpreter]:
    def iteration() -> Interpreter:
        child = frame.child(map_item=(index, item))
        child.state_name = state.name
        ids = {"name": state.name, "index": index}
        child.emit("MapIterationStarted", "mapIterationStartedEventDetails", ids)
        iteration_data = {**data, body.iteration_param: item}
        try:
            if body.workflow_id is not None:
                output = yield from _subflow(workflow, body.workflow_id, True, iteration_data, child)
            else:
                output = yield from _run_actions(workflow, body.actions, m.SEQUENTIAL, iteration_data, child)
        except StatesError:
            child.emit("MapIterationFailed", "mapIterationFailedEventDetails", ids)
            raise
        except Aborted:
            child.emit("MapIterationAborted", "mapIterationAbortedEventDetails", ids)
            raise
        child.emit("MapIterationSucceeded", "mapIterationSucceededEventDetails", ids)
        return output

    return iteration


def _subflow(workflow: _Workflow, workflow_id: str, wait: bool, data: JSON, frame: Frame) -> Interpreter:
    """A nested execution of the state machine named `workflow_id` in the execution's account and
    region, through Step Functions' own `startExecution` integration (`.sync:2` when waiting);
    resumes with the sub-workflow's output (or the StartExecution answer when not waiting)."""
    run = frame.run
    execution = run.execution
    partition = execution.arn.split(":")[1]
    target = f"arn:{partition}:states:{execution.region}:{execution.account}:stateMachine:{workflow_id}"
    resource = parse_resource(f"arn:{partition}:states:::states:startExecution" + (".sync:2" if wait else ""))
    payload = {"StateMachineArn": target, "Input": data}
    request = _request(resource, payload, frame.state_name, run, frame, None)
    ids = {"resourceType": resource.resource_type, "resource": resource.resource}
    frame.emit("TaskScheduled", "taskScheduledEventDetails",
               {**ids, "region": execution.region, "parameters": to_json_text(payload)})
    frame.emit("TaskStarted", "taskStartedEventDetails", dict(ids))
    try:
        settled = wait and (yield AnswersWholeTask(request))
        result = yield Invoke(request)
        if resource.pattern == SYNC2 and not settled:
            frame.emit("TaskSubmitted", "taskSubmittedEventDetails",
                       {**ids, "output": to_json_text(result), "outputDetails": {"truncated": False}})
            result = yield AwaitCompletion(request, result)
    except StatesError as error:
        frame.emit("TaskFailed", "taskFailedEventDetails", {**ids, **_error_details(error)})
        raise
    frame.emit("TaskSucceeded", "taskSucceededEventDetails",
               {**ids, "output": to_json_text(result), "outputDetails": {"truncated": False}})
    if resource.pattern == REQUEST_RESPONSE:
        return result
    output = result.get("Output") if isinstance(result, dict) else None
    return output if output is not None else result


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


def _error_details(error: StatesError) -> dict[str, str]:
    return {key: value for key, value in (("error", error.error), ("cause", error.cause)) if value is not None}


def _note_rule(frame: Frame, rule: str) -> None:
    frame.run.execution.rules_taken.setdefault(frame.entered_event_id, []).append(rule)
