"""The compiled model of a Serverless Workflow document (the draft's definitions, as frozen records).
Expressions are compiled once (`expressions`); durations are seconds."""

from __future__ import annotations

from typing import Any, Mapping

from msgspec import Struct, field

from sfn_emulator.dialects.serverless_workflow.expressions import Condition, Selector, Template

JSON = Any

EVENT, OPERATION, SWITCH, DELAY, PARALLEL, SUBFLOW, INJECT, FOREACH, CALLBACK = (
    "event", "operation", "switch", "delay", "parallel", "subflow", "inject", "foreach", "callback")
STATE_TYPES = (EVENT, OPERATION, SWITCH, DELAY, PARALLEL, SUBFLOW, INJECT, FOREACH, CALLBACK)
CONSUMED, PRODUCED = "consumed", "produced"
AND, XOR, N_OF_M = "and", "xor", "n_of_m"
SEQUENTIAL, PARALLEL_MODE = "sequential", "parallel"


class FunctionDefinition(Struct, frozen=True):
    name: str
    resource: str
    type: str | None = None
    expression: Template | None = None  # 0.6-0.8 functions of type `expression`: evaluated, not called


class Correlation(Struct, frozen=True):
    context_attribute_name: str
    context_attribute_value: Template | None = None


class EventDefinition(Struct, frozen=True):
    name: str
    type: str
    source: str | None = None
    kind: str = CONSUMED
    correlation: tuple[Correlation, ...] = ()


class ProducedEvent(Struct, frozen=True):
    """An event to produce: a transition's or end's `produceEvent`, an action's `triggerEventRef`."""

    event_ref: str
    data: Template | None = None  # a string: an expression on the state data; an object: the payload
    context_attributes: Template | None = None


class FunctionRef(Struct, frozen=True):
    ref_name: str
    parameters: Template | None = None


class EventRef(Struct, frozen=True):
    trigger_event_ref: str
    result_event_ref: str
    data: Template | None = None
    context_attributes: Template | None = None


class Action(Struct, frozen=True):
    name: str | None
    function_ref: FunctionRef | None = None
    event_ref: EventRef | None = None
    timeout_seconds: float | None = None
    data_input_path: Selector | None = None  # actionDataFilter
    data_results_path: Selector | None = None
    subflow_ref: str | None = None  # 0.7-0.8 `subFlowRef`: a sub-workflow run as the action
    subflow_waits: bool = True
    condition: Condition | None = None  # 0.8: the action runs only when it holds on the state data


class Transition(Struct, frozen=True):
    next_state: str
    expression: Condition | None = None
    produce_event: ProducedEvent | None = None


class End(Struct, frozen=True):
    kind: str = "default"  # default | terminate | event
    produce_event: ProducedEvent | None = None


Exit = Transition | End  # where a state goes once it is done


class Retry(Struct, frozen=True):
    expression: Condition
    interval_seconds: float = 0.0
    multiplier_seconds: float = 0.0
    max_attempts: int = 3


class ErrorHandler(Struct, frozen=True):
    expression: Condition
    exit: Exit
    data_output_path: Selector | None = None  # errorDataFilter


class EventActions(Struct, frozen=True):
    event_refs: tuple[str, ...]
    actions: tuple[Action, ...]
    action_mode: str = SEQUENTIAL
    data_output_path: Selector | None = None  # eventDataFilter


class DataCondition(Struct, frozen=True):
    condition: Condition
    exit: Exit


class EventCondition(Struct, frozen=True):
    event_ref: str
    exit: Exit
    data_output_path: Selector | None = None


class Branch(Struct, frozen=True):
    name: str
    actions: tuple[Action, ...] = ()
    workflow_id: str | None = None


class State(Struct, frozen=True):
    """What every state has; `body` holds its type's own fields."""

    name: str
    type: str
    exit: Exit | None  # None for a switch (its conditions and default say where to go)
    body: Any
    data_input_path: Selector | None = None  # stateDataFilter
    data_output_path: Selector | None = None
    retry: tuple[Retry, ...] = ()
    on_error: tuple[ErrorHandler, ...] = ()


class EventBody(Struct, frozen=True):
    events_actions: tuple[EventActions, ...]
    exclusive: bool = True
    timeout_seconds: float | None = None


class OperationBody(Struct, frozen=True):
    actions: tuple[Action, ...]
    action_mode: str = SEQUENTIAL


class SwitchBody(Struct, frozen=True):
    default: Exit
    data_conditions: tuple[DataCondition, ...] = ()
    event_conditions: tuple[EventCondition, ...] = ()
    event_timeout_seconds: float | None = None


class DelayBody(Struct, frozen=True):
    seconds: float


class ParallelBody(Struct, frozen=True):
    branches: tuple[Branch, ...]
    completion_type: str = AND
    n: int | None = None


class SubflowBody(Struct, frozen=True):
    workflow_id: str
    wait_for_completion: bool = True


class InjectBody(Struct, frozen=True):
    data: JSON = field(default_factory=dict)


class ForEachBody(Struct, frozen=True):
    input_collection: Template
    iteration_param: str
    output_collection: str | None = None  # the state data member `{{ $.results }}` names
    max: int | None = None
    actions: tuple[Action, ...] = ()
    workflow_id: str | None = None


class CallbackBody(Struct, frozen=True):
    action: Action
    event_ref: str
    timeout_seconds: float | None = None
    data_output_path: Selector | None = None


class Workflow(Struct, frozen=True):
    """A parsed workflow. `timeout_seconds` is the execution's timeout (`execTimeout`), which the
    engine sets as it does an ASL machine's TimeoutSeconds."""

    id: str
    name: str
    start_at: str
    states: Mapping[str, State]
    functions: Mapping[str, FunctionDefinition]
    events: Mapping[str, EventDefinition]
    version: str | None = None
    timeout_seconds: float | None = None
    raw: Mapping[str, JSON] = field(default_factory=dict)


def mockable_names(workflow: Workflow) -> list[str]:
    """The names a mock test case may answer: states that run actions or subflows, and named actions."""
    names: list[str] = []
    for state in workflow.states.values():
        body = state.body
        actions: tuple[Action, ...] = ()
        if isinstance(body, (OperationBody, ForEachBody)):
            actions = body.actions
        elif isinstance(body, EventBody):
            actions = tuple(action for group in body.events_actions for action in group.actions)
        elif isinstance(body, CallbackBody):
            actions = (body.action,)
        elif isinstance(body, ParallelBody):
            actions = tuple(action for branch in body.branches for action in branch.actions)
        if actions or isinstance(body, (SubflowBody, ParallelBody, ForEachBody)):
            names.append(state.name)
        names += [action.name for action in actions if action.name]
    return names
