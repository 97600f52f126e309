"""Actions: function calls through the task-resource chain, event-driven actions, and sub-workflows
run as nested executions; each result filtered and merged into the state data."""

from __future__ import annotations

import json
from typing import Any, Callable

from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.task_targets import REQUEST_RESPONSE, parse_resource
from sfn_emulator.dialects.functions import call_function as shared_call_function
from sfn_emulator.dialects.serverless_workflow import model as m
from sfn_emulator.dialects.serverless_workflow.events import await_events, produce
from sfn_emulator.dialects.serverless_workflow.expressions import merged
from sfn_emulator.dialects.serverless_workflow.workflow_run import WorkflowRun, task_request
from sfn_emulator.dialects.task_events import function_task
from sfn_emulator.engine.effects import AwaitCompletion, Fork, Interpreter, Invoke
from sfn_emulator.engine.frame import Frame, to_json_text
from sfn_emulator.engine.task_attempt import Attempt, task_attempt
from sfn_emulator.protocol.history_events import TaskEvents
from sfn_emulator.resources.outcomes import Pending, settled_result, unless_failed

# A subflow waited for ends with the workflow waiting for it (the specification's `onParentComplete`
# default, "terminate"): a stopped or failed parent stops the subflow it waits for, and so down a chain.
_PARENT_ENDED = ("SubflowTerminated", "The workflow that started this subflow and waited for it has ended.")

JSON = Any


def run_actions(workflow: WorkflowRun, actions: tuple[m.Action, ...], mode: str, data: JSON, frame: Frame) -> Interpreter:
    """Each action's (filtered) result merged into the state data, in the actions' order."""
    if mode == m.PARALLEL_MODE and len(actions) > 1:
        runners = [action_runner(workflow, action, data, frame) for action in actions]
        results = yield Fork(runners, interleave=True)
    else:
        results = []
        for action in actions:
            results.append((yield from run_action(workflow, action, data, frame)))
            data = merged(data, results[-1])
    for result in results if mode == m.PARALLEL_MODE and len(actions) > 1 else ():
        data = merged(data, result)
    return data


def action_runner(workflow: WorkflowRun, action: m.Action, data: JSON, frame: Frame) -> Callable[[], Interpreter]:
    def action_run() -> Interpreter:
        child = frame.child(interleave=True)
        child.state_name = frame.state_name  # an unnamed action's mock is its state's
        return (yield from run_action(workflow, action, data, child))

    return action_run


def run_action(workflow: WorkflowRun, action: m.Action, data: JSON, frame: Frame) -> Interpreter:
    """What the action adds to the state data: its result, through `dataResultsPath` (nothing when
    its `condition` does not hold)."""
    if action.condition is not None and not action.condition.holds(data):
        return {}
    selected = action.data_input_path.select(data) if action.data_input_path is not None else None
    action_data = data if selected is None else selected
    if action.function_ref is not None:
        result = yield from call_function(workflow, action, action_data, frame)
    elif action.subflow_ref is not None:
        result = yield from subflow(workflow, action.subflow_ref, action.subflow_waits, action_data, frame)
        result = result if action.subflow_waits else {}
    else:
        assert action.event_ref is not None
        trigger = m.ProducedEvent(action.event_ref.trigger_event_ref, action.event_ref.data,
                                  action.event_ref.context_attributes)
        yield from produce(workflow, trigger, action_data, frame)
        received = yield from await_events(workflow, (action.event_ref.result_event_ref,), False, action.timeout_seconds, frame)
        result = received[0].get("data")
    if action.data_results_path is not None:
        selected = action.data_results_path.select(result)
        return selected if selected is not None else {}
    return result


def call_function(workflow: WorkflowRun, action: m.Action, action_data: JSON, frame: Frame) -> Interpreter:
    """A function call through the task-resource chain: a mock test case (the action's name, else the
    state's), a callable registered under the function's name, then one under its `resource`."""
    assert action.function_ref is not None
    function = workflow.model.functions[action.function_ref.ref_name]
    payload = action.function_ref.parameters.evaluate(action_data) if action.function_ref.parameters is not None else action_data
    if function.expression is not None:
        return function.expression.evaluate(payload)
    run = frame.run
    events = function_task(function.name)
    scheduled = events.scheduled(run.execution.region, to_json_text(payload), action.timeout_seconds)
    return (yield from task_attempt(frame, events, scheduled, lambda _attempt: shared_call_function(
        function.name, function.resource, payload, run=run, state_name=action.name or frame.state_name,
        attempt=frame.retry_count, timeout=action.timeout_seconds)))


def subflow(workflow: WorkflowRun, workflow_id: str, wait: bool, data: JSON, frame: Frame) -> Interpreter:
    """A nested execution of the state machine named `workflow_id` in the execution's account and
    region, through Step Functions' own `startExecution` integration (`.sync:2` when waiting);
    resumes with the sub-workflow's output (or the StartExecution answer when not waiting)."""
    run = frame.run
    execution = run.execution
    partition = execution.arn.split(":")[1]
    target = f"arn:{partition}:states:{execution.region}:{execution.account}:stateMachine:{workflow_id}"
    resource = parse_resource(f"arn:{partition}:states:::states:startExecution" + (".sync:2" if wait else ""))
    payload = {"StateMachineArn": target, "Input": data}
    request = task_request(resource, payload, frame.state_name, run, frame, None)
    events = TaskEvents(resource.resource_type, resource.resource)

    def start(attempt: Attempt) -> Interpreter:
        outcome = unless_failed((yield Invoke(request)))
        if isinstance(outcome, Pending):
            attempt.submitted(outcome.submitted)
            return (yield AwaitCompletion(request, outcome, stopped_when_cancelled=_PARENT_ENDED))
        return settled_result(outcome)

    try:
        result = yield from task_attempt(frame, events, events.scheduled(execution.region, to_json_text(payload)), start)
    except StatesError as error:
        raise sub_workflow_error(error) from None
    if resource.pattern == REQUEST_RESPONSE:
        return result
    output = result.get("Output") if isinstance(result, dict) else None
    return output if output is not None else result


def sub_workflow_error(error: StatesError) -> StatesError:
    """The sub-workflow's own error and cause, which the nested execution's failure carries (as
    DescribeExecution's `Error` and `Cause`): the draft propagates the called workflow's exception."""
    try:
        described = json.loads(error.cause or "")
    except ValueError:
        return error
    if isinstance(described, dict) and isinstance(described.get("Error"), str):
        return StatesError(described["Error"], described.get("Cause"))
    return error
