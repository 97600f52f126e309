"""The compiled model of an SM4C document: immutable records, expressions compiled once.

Field names are the snake_case of the document's attributes. Actions are a union of records
dispatched with `match`; hierarchical actions (foreach, parallel, sequence) hold their children.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from sfn_emulator.dialects.sm4c.expressions import JqExpression, Template

JSON = Any


class RetryPolicy(Struct, frozen=True):
    """Delays in seconds; `max_attempts` retries after the first try (0: none)."""

    name: str
    max_attempts: int
    delay: float = 0.0
    max_delay: float | None = None
    increment: float | None = None
    multiplier: float | None = None
    jitter: float | None = None  # a fraction of the delay
    jitter_seconds: float | None = None  # a fixed span


class ErrorHandler(Struct, frozen=True):
    condition: JqExpression | None
    result_handler: JqExpression | None
    retry_policy: RetryPolicy | None


class BaseAction(Struct, frozen=True):
    name: str | None
    error_handlers: tuple[ErrorHandler, ...]

    @property
    def kind(self) -> str:
        return ACTION_KINDS[type(self)]


class DelayAction(BaseAction, frozen=True):
    timeout: float


class InjectDataAction(BaseAction, frozen=True):
    expression: JqExpression


class InvokeFunctionAction(BaseAction, frozen=True):
    function: FunctionDefinition
    arguments: Template
    wait_for_completion: bool
    timeout: float | None


class InvokeSubflowAction(BaseAction, frozen=True):
    subflow_name: str
    arguments: Template
    wait_for_completion: bool
    timeout: float | None


class SendEventAction(BaseAction, frozen=True):
    event: EventDefinition
    expression: JqExpression | None
    context_attributes: Template


class ForEachAction(BaseAction, frozen=True):
    input: JqExpression
    action: Action
    max_parallel: int


class ParallelAction(BaseAction, frozen=True):
    actions: tuple[Action, ...]
    completion_type: str  # "and", "xor", "n_of_m"
    n: int


class SequenceAction(BaseAction, frozen=True):
    actions: tuple[Action, ...]


Action = DelayAction | InjectDataAction | InvokeFunctionAction | InvokeSubflowAction | SendEventAction | ForEachAction \
    | ParallelAction | SequenceAction

ACTION_KINDS: dict[type, str] = {
    DelayAction: "delay", ForEachAction: "foreach", InjectDataAction: "injectData",
    InvokeFunctionAction: "invokeFunction", InvokeSubflowAction: "invokeSubflow", ParallelAction: "parallel",
    SendEventAction: "sendEvent", SequenceAction: "sequence",
}


class FunctionDefinition(Struct, frozen=True):
    name: str
    operation: str
    type: str = "rest"


class Correlation(Struct, frozen=True):
    attribute: str
    value: str | None  # None: the first matching event's value binds the execution


class EventDefinition(Struct, frozen=True):
    name: str
    source: str | None
    type: str | None
    correlation: tuple[Correlation, ...] = ()


class EventGroup(Struct, frozen=True):
    events: tuple[EventDefinition, ...]
    condition: JqExpression | None
    result_handler: JqExpression | None


class Transition(Struct, frozen=True):
    index: int
    next_state: str | None
    condition: JqExpression | None
    event_groups: tuple[EventGroup, ...]
    timeout: float | None
    action: Action | None
    result_handler: JqExpression | None

    @property
    def implicit(self) -> bool:
        return self.condition is None and not self.event_groups and self.timeout is None

    @property
    def conditional(self) -> bool:
        return self.condition is not None and not self.event_groups and self.timeout is None

    @property
    def on_events(self) -> bool:
        return bool(self.event_groups) and self.condition is None and self.timeout is None

    @property
    def on_timeout(self) -> bool:
        return self.timeout is not None and self.condition is None and not self.event_groups


class State(Struct, frozen=True):
    name: str
    start: bool
    transitions: tuple[Transition, ...]
    input_filter: JqExpression | None
    enter_action: Action | None
    enter_result_handler: JqExpression | None
    exit_action: Action | None
    exit_result_handler: JqExpression | None
    states: tuple[State, ...] = ()  # child states, run between the enter action and the transitions

    @property
    def start_child(self) -> State | None:
        return next((state for state in self.states if state.start), None)


class ExecutionTimeout(Struct, frozen=True):
    duration: float
    action: Action | None


class Sm4cDocument(Struct, frozen=True):
    """A whole document. `states_by_name` covers child states too (names are unique in a document)."""

    name: str
    version: str
    id: str | None
    description: str | None
    timeout: ExecutionTimeout | None
    events: tuple[EventDefinition, ...]
    functions: tuple[FunctionDefinition, ...]
    retries: tuple[RetryPolicy, ...]
    states: tuple[State, ...]
    states_by_name: dict[str, State]
    text: str

    def mockable_names(self) -> list[str]:
        """What a mock test case may answer: any state or named action (each can call a function)."""
        names: dict[str, None] = {}
        for state in self.states_by_name.values():
            names[state.name] = None
            names.update((action.name, None) for action in _actions_of(state) if action.name)
        return list(names)

    @property
    def timeout_seconds(self) -> float | None:
        """The execution's timeout, which the engine keeps (the document's `timeout.duration`)."""
        return self.timeout.duration if self.timeout is not None else None

    @property
    def start(self) -> State:
        return next(state for state in self.states if state.start)


def _actions_of(state: State) -> list[BaseAction]:
    """Every action of a state, children of hierarchical actions included."""
    pending: list[Action | None] = [state.enter_action, state.exit_action, *(t.action for t in state.transitions)]
    found: list[BaseAction] = []
    while pending:
        action = pending.pop()
        if action is None:
            continue
        found.append(action)
        if isinstance(action, ForEachAction):
            pending.append(action.action)
        elif isinstance(action, (ParallelAction, SequenceAction)):
            pending.extend(action.actions)
    return found
