"""SM4C documents (JSON or YAML text) into the compiled model, every problem reported at once.

Diagnostics take ValidateStateMachineDefinition's form (`Diagnostic`, located by JSON pointer into
the document, e.g. `/states/0/transitions/1/nextState`). Rules beyond the attribute tables, read
from the document's execution algorithm: exactly one start state (per parent, for child states);
state names unique in the document; a transition has at most one trigger kind (a condition, event
groups or a timeout: a transition with two never fires in the algorithm); a state has at most one
implicit transition and at most one timeout transition; every state is reachable from the start
state. A WARNING (`TRANSITION_NEVER_FIRES`) names each transition the algorithm can never reach:
every other transition of a state that has an implicit one (the implicit one is taken first,
wherever it stands), and, after a transition whose condition is the constant `true`, the later
conditional transitions and every event or timeout transition (conditions are tried in document
order, before any wait). References (functions, events, retry policies, next states, subflows by
name at run time) must name a definition of the document.
"""

from __future__ import annotations

from typing import Any, Callable

from msgspec import UNSET

from sfn_emulator.asl.validation import (
    DUPLICATE_STATE_NAME,
    ERROR,
    INVALID_JSON_DESCRIPTION,
    MISSING_TRANSITION_TARGET,
    WARNING,
    Diagnostic,
    InvalidDefinitionError,
)
from sfn_emulator.dialects.documents import read_document
from sfn_emulator.dialects.sm4c.expressions import unwrap
from sfn_emulator.dialects.sm4c.reading import DocumentReader
from sfn_emulator.dialects.sm4c.references import resolved
from sfn_emulator.dialects.sm4c.model import (
    Action,
    Correlation,
    DelayAction,
    ErrorHandler,
    EventDefinition,
    EventGroup,
    ExecutionTimeout,
    ForEachAction,
    FunctionDefinition,
    InjectDataAction,
    InvokeFunctionAction,
    InvokeSubflowAction,
    ParallelAction,
    RetryPolicy,
    SendEventAction,
    SequenceAction,
    Sm4cDocument,
    State,
    Transition,
)

JSON = Any
COMPLETION_TYPES = ("and", "xor", "n_of_m")
TRANSITION_NEVER_FIRES = "TRANSITION_NEVER_FIRES"


def _never_firing(transitions: tuple[Transition, ...]) -> list[tuple[Transition, Transition]]:
    """Each transition the algorithm never reaches, with the one always taken before it."""
    implicit = next((t for t in transitions if t.implicit), None)
    if implicit is not None:
        return [(t, implicit) for t in transitions if t.conditional or t.on_events or t.on_timeout]
    always = next((t for t in transitions if t.conditional and _constant_true(t)), None)
    if always is None:
        return []
    return [(t, always) for t in transitions
            if (t.conditional and t.index > always.index) or t.on_events or t.on_timeout]


def _constant_true(transition: Transition) -> bool:
    text = transition.condition.text if transition.condition is not None else ""
    return (unwrap(text) or text.strip()) == "true"


def parse_document(text: str, document: Any = UNSET) -> Sm4cDocument:
    """The compiled model, or InvalidDefinitionError naming every problem. `document`: the text's
    value when the caller has read it already."""
    machine, diagnostics = _parse(text, document)
    if machine is None or any(diagnostic.severity == ERROR for diagnostic in diagnostics):
        raise InvalidDefinitionError(diagnostics)
    return machine


def validate_document(text: str, document: Any = UNSET) -> list[Diagnostic]:
    return _parse(text, document)[1]


def _parse(text: str, document: Any) -> tuple[Sm4cDocument | None, list[Diagnostic]]:
    if document is UNSET:
        try:
            document = read_document(text)
        except ValueError as error:
            return None, [Diagnostic(ERROR, INVALID_JSON_DESCRIPTION, str(error))]
    parser = _Parser()
    machine = parser.machine(document, text)
    return machine, parser.diagnostics


class _Parser(DocumentReader):
    def __init__(self) -> None:
        super().__init__()
        self.functions: dict[str, FunctionDefinition] = {}
        self.events: dict[str, EventDefinition] = {}
        self.retries: dict[str, RetryPolicy] = {}
        self.state_locations: dict[str, str] = {}
        self.targets: list[tuple[str, str, str]] = []  # (from, to, location)

    # -- the document ------------------------------------------------------------------------------
    def machine(self, document: JSON, text: str) -> Sm4cDocument | None:
        if not isinstance(document, dict):
            self.error("An SM4C document must be an object", None)
            return None
        name = self.string(document, "name", "", required=True)
        if isinstance(document.get("version"), (int, float)) and not isinstance(document.get("version"), bool):
            document = {**document, "version": str(document["version"])}  # YAML reads `version: 1.0` as a number
        version = self.string(document, "version", "", required=True)
        self.string(document, "description", "")
        document = resolved(document, self.error)  # definitions given by URI, read in
        for item, location in self.objects(document, "functions", ""):
            function = self.function(item, location)
            if function is not None:
                self.unique(self.functions, function.name, function, "function", location)
        for item, location in self.objects(document, "events", ""):
            event = self.event(item, location)
            if event is not None:
                self.unique(self.events, event.name, event, "event", location)
        for item, location in self.objects(document, "retries", ""):
            policy = self.retry_policy(item, location)
            if policy is not None:
                self.unique(self.retries, policy.name, policy, "retry policy", location)
        timeout = self.execution_timeout(document.get("timeout"), "/timeout")
        states = self.state_list(document, "", parent=None)
        by_name: dict[str, State] = {}
        _index(states, by_name)
        self.check_targets(by_name)
        if states and not self.diagnostics:
            self.check_reachable(states)
        if name is None or version is None or not states:
            return None
        return Sm4cDocument(
            name, version, document.get("id") if isinstance(document.get("id"), str) else None,
            document.get("description") if isinstance(document.get("description"), str) else None,
            timeout, tuple(self.events.values()), tuple(self.functions.values()), tuple(self.retries.values()),
            states, by_name, text,
        )

    def unique(self, table: dict, name: str, item: Any, kind: str, location: str) -> None:
        if name in table:
            self.error(f"Duplicate {kind} name '{name}'", f"{location}/name")
        table[name] = item

    def function(self, value: dict, location: str) -> FunctionDefinition | None:
        name = self.string(value, "name", location, required=True)
        operation = self.string(value, "operation", location)
        kind = value.get("type", "rest")
        if kind not in ("rest", "expression", "rpc"):
            self.error("Field 'type' must be one of [rest, expression, rpc]", f"{location}/type")
        return FunctionDefinition(name, operation or "", kind) if name else None

    def event(self, value: dict, location: str) -> EventDefinition | None:
        name = self.string(value, "name", location, required=True)
        source = self.string(value, "source", location)
        kind = self.string(value, "type", location)
        correlation = []
        for item, where in self.objects(value, "correlation", location):
            attribute = self.string(item, "contextAttributeName", where, required=True)
            if attribute:
                correlation.append(Correlation(attribute, self.string(item, "contextAttributeValue", where)))
        return EventDefinition(name, source, kind, tuple(correlation)) if name else None

    def retry_policy(self, value: dict, location: str) -> RetryPolicy | None:
        name = self.string(value, "name", location, required=True)
        if "maxAttempts" not in value:
            self.error("These fields are required: [maxAttempts]", location)
        attempts = self.number(value, "maxAttempts", location, integer=True)
        jitter = value.get("jitter")
        fraction = seconds = None
        if isinstance(jitter, str):
            seconds = self.timespan(value, "jitter", location)
        elif jitter is not None:
            fraction = self.number(value, "jitter", location)
        if name is None or attempts is None:
            return None
        return RetryPolicy(
            name, int(attempts), self.timespan(value, "delay", location) or 0.0, self.timespan(value, "maxDelay", location),
            self.timespan(value, "increment", location), self.number(value, "multiplier", location), fraction, seconds,
        )

    def execution_timeout(self, value: JSON, location: str) -> ExecutionTimeout | None:
        if value is None:
            return None
        if not isinstance(value, dict):
            self.error("Field 'timeout' must be an object", location)
            return None
        duration = self.timespan(value, "duration", location, required=True)
        action = self.action(value["action"], f"{location}/action") if "action" in value else None
        return ExecutionTimeout(duration, action) if duration is not None else None

    # -- states ------------------------------------------------------------------------------------
    def state_list(self, value: dict, location: str, parent: str | None) -> tuple[State, ...]:
        items = self.objects(value, "states", location, required=parent is None)
        if parent is None and "states" in value and not items and isinstance(value["states"], list):
            self.error("Field 'states' must hold at least one state", f"{location}/states")
        states = tuple(state for item, where in items if (state := self.state(item, where)) is not None)
        if items:
            starts = [state.name for state in states if state.start]
            if len(starts) != 1:
                owner = f"state '{parent}'" if parent else "the state machine"
                self.error(f"Exactly one state of {owner} must have 'start': true (found {len(starts)})",
                           f"{location}/states")
        return states

    def state(self, value: dict, location: str) -> State | None:
        name = self.string(value, "name", location, required=True)
        if name is not None:
            if name in self.state_locations:
                self.error(f"Duplicate State name: {name}", f"{location}/name", DUPLICATE_STATE_NAME)
            self.state_locations.setdefault(name, location)
        transitions = tuple(
            self.transition(item, where, index, name or "")
            for index, (item, where) in enumerate(self.objects(value, "transitions", location))
        )
        self.check_transition_kinds(transitions, location)
        state = State(
            name or "", self.boolean(value, "start", location, False), transitions,
            self.expression(value, "inputFilter", location),
            self.optional_action(value, "enterAction", location), self.expression(value, "enterResultHandler", location),
            self.optional_action(value, "exitAction", location), self.expression(value, "exitResultHandler", location),
            self.state_list(value, location, parent=name) if "states" in value else (),
        )
        return state if name is not None else None

    def check_transition_kinds(self, transitions: tuple[Transition, ...], location: str) -> None:
        for transition in transitions:
            triggers = sum((transition.condition is not None, bool(transition.event_groups), transition.timeout is not None))
            if triggers > 1:
                self.error("A transition has one trigger at most: a condition, eventGroups or a timeout",
                           f"{location}/transitions/{transition.index}")
        if sum(transition.implicit for transition in transitions) > 1:
            self.error("A state has one implicit transition at most (no condition, eventGroups or timeout)",
                       f"{location}/transitions")
        if sum(transition.on_timeout for transition in transitions) > 1:
            self.error("A state has one timeout transition at most", f"{location}/transitions")
        for transition, shadow in _never_firing(transitions):
            self.diagnostics.append(Diagnostic(
                WARNING, TRANSITION_NEVER_FIRES,
                f"This transition never fires: transition {shadow.index} of the state is always taken first",
                f"{location}/transitions/{transition.index}"))

    def transition(self, value: dict, location: str, index: int, source: str) -> Transition:
        next_state = self.string(value, "nextState", location)
        if next_state is not None:
            self.targets.append((source, next_state, f"{location}/nextState"))
        groups = []
        for item, where in self.objects(value, "eventGroups", location):
            names = item.get("events")
            if not isinstance(names, list) or not names or not all(isinstance(entry, str) for entry in names):
                self.error("Field 'events' must be a non-empty array of event names", f"{where}/events")
                names = []
            events = []
            for position, event_name in enumerate(names):
                if event_name in self.events:
                    events.append(self.events[event_name])
                else:
                    self.error(f"No event definition named '{event_name}'", f"{where}/events/{position}")
            groups.append(EventGroup(tuple(events), self.expression(item, "condition", where),
                                     self.expression(item, "resultHandler", where)))
        return Transition(
            index, next_state, self.expression(value, "condition", location), tuple(groups),
            self.timespan(value, "timeout", location), self.optional_action(value, "action", location),
            self.expression(value, "resultHandler", location),
        )

    def check_targets(self, by_name: dict[str, State]) -> None:
        for _source, target, location in self.targets:
            if target not in by_name:
                self.error(f"Missing 'nextState' target: {target}", location, MISSING_TRANSITION_TARGET)

    def check_reachable(self, states: tuple[State, ...]) -> None:
        """Every state is reachable from its scope's start state (child states within their parent)."""
        reached: set[str] = set()
        siblings = {state.name: state for state in states}
        pending = [state.name for state in states if state.start]
        while pending:
            name = pending.pop()
            if name in reached or name not in siblings:
                continue
            reached.add(name)
            pending.extend(t.next_state for t in siblings[name].transitions if t.next_state)
        for state in states:
            if state.name not in reached:
                self.error(f'State "{state.name}" is not reachable.', self.state_locations.get(state.name),
                           MISSING_TRANSITION_TARGET)
            if state.states:
                self.check_reachable(state.states)

    # -- actions -----------------------------------------------------------------------------------
    def optional_action(self, value: dict, key: str, location: str) -> Action | None:
        return self.action(value[key], f"{location}/{key}") if key in value else None

    def action(self, value: JSON, location: str) -> Action | None:
        if not isinstance(value, dict):
            self.error("An action must be an object", location)
            return None
        kind = value.get("type")
        build = _ACTION_PARSERS.get(kind.lower()) if isinstance(kind, str) else None
        if build is None:
            self.error(f"Field 'type' must be one of [{', '.join(_ACTION_NAMES)}]", f"{location}/type")
            return None
        name = self.string(value, "name", location)
        handlers = tuple(self.error_handler(item, where) for item, where in self.objects(value, "errorHandlers", location))
        return build(self, value, location, name, handlers)

    def error_handler(self, value: dict, location: str) -> ErrorHandler:
        policy_name = self.string(value, "retryPolicy", location)
        policy = self.retries.get(policy_name) if policy_name else None
        if policy_name and policy is None:
            self.error(f"No retry policy named '{policy_name}'", f"{location}/retryPolicy")
        return ErrorHandler(self.expression(value, "condition", location), self.expression(value, "resultHandler", location),
                            policy)

    def child_actions(self, value: dict, location: str) -> tuple[Action, ...]:
        items = value.get("actions")
        if not isinstance(items, list) or not items:
            self.error("Field 'actions' must be a non-empty array of actions", f"{location}/actions")
            return ()
        return tuple(action for index, item in enumerate(items)
                     if (action := self.action(item, f"{location}/actions/{index}")) is not None)

    def delay(self, value: dict, location: str, name: str | None, handlers: tuple) -> Action | None:
        timeout = self.timespan(value, "timeout", location, required=True)
        return DelayAction(name, handlers, timeout) if timeout is not None else None

    def inject(self, value: dict, location: str, name: str | None, handlers: tuple) -> Action | None:
        expression = self.expression(value, "expression", location, required=True)
        return InjectDataAction(name, handlers, expression) if expression is not None else None

    def invoke_function(self, value: dict, location: str, name: str | None, handlers: tuple) -> Action | None:
        function_name = self.string(value, "functionName", location, required=True)
        function = self.functions.get(function_name) if function_name else None
        if function_name and function is None:
            self.error(f"No function definition named '{function_name}'", f"{location}/functionName")
        arguments = self.template(value, "arguments", location)
        wait = self.boolean(value, "waitForCompletion", location, False)
        timeout = self.timespan(value, "timeout", location)
        return InvokeFunctionAction(name, handlers, function, arguments, wait, timeout) if function else None

    def invoke_subflow(self, value: dict, location: str, name: str | None, handlers: tuple) -> Action | None:
        subflow = self.string(value, "subflowName", location, required=True)
        arguments = self.template(value, "arguments", location)
        wait = self.boolean(value, "waitForCompletion", location, False)
        timeout = self.timespan(value, "timeout", location)
        return InvokeSubflowAction(name, handlers, subflow, arguments, wait, timeout) if subflow else None

    def send_event(self, value: dict, location: str, name: str | None, handlers: tuple) -> Action | None:
        event_name = self.string(value, "event", location, required=True)
        event = self.events.get(event_name) if event_name else None
        if event_name and event is None:
            self.error(f"No event definition named '{event_name}'", f"{location}/event")
        expression = self.expression(value, "expression", location)
        attributes = self.template(value, "contextAttributes", location, strings_only=True)
        return SendEventAction(name, handlers, event, expression, attributes) if event else None

    def foreach(self, value: dict, location: str, name: str | None, handlers: tuple) -> Action | None:
        selector = self.expression(value, "input", location, required=True)
        if "action" not in value:
            self.error("These fields are required: [action]", location)
        child = self.optional_action(value, "action", location)
        parallel = self.number(value, "maxParallel", location, integer=True, minimum=1)
        if selector is None or child is None:
            return None
        return ForEachAction(name, handlers, selector, child, int(parallel or 1))

    def parallel(self, value: dict, location: str, name: str | None, handlers: tuple) -> Action | None:
        actions = self.child_actions(value, location)
        completion = value.get("completionType", "and")
        if completion not in COMPLETION_TYPES:
            self.error(f"Field 'completionType' must be one of [{', '.join(COMPLETION_TYPES)}]", f"{location}/completionType")
            completion = "and"
        n = self.number(value, "n", location, integer=True, minimum=1)
        if completion == "n_of_m" and n is None:
            self.error("Field 'n' is required when 'completionType' is 'n_of_m'", location)
        if n is not None and actions and n > len(actions):
            self.error(f"Field 'n' ({n}) exceeds the number of actions ({len(actions)})", f"{location}/n")
        count = {"and": len(actions), "xor": 1}.get(completion, int(n or len(actions)))
        return ParallelAction(name, handlers, actions, completion, min(count, len(actions))) if actions else None

    def sequence(self, value: dict, location: str, name: str | None, handlers: tuple) -> Action | None:
        actions = self.child_actions(value, location)
        return SequenceAction(name, handlers, actions) if actions else None


_ACTION_PARSERS: dict[str, Callable[..., Action | None]] = {
    "delay": _Parser.delay, "foreach": _Parser.foreach, "injectdata": _Parser.inject,
    "invokefunction": _Parser.invoke_function, "invokesubflow": _Parser.invoke_subflow, "parallel": _Parser.parallel,
    "sendevent": _Parser.send_event, "sequence": _Parser.sequence,
}
_ACTION_NAMES = ("delay", "foreach", "injectData", "invokeFunction", "invokeSubflow", "parallel", "sendEvent", "sequence")


def _index(states: tuple[State, ...], by_name: dict[str, State]) -> None:
    for state in states:
        by_name.setdefault(state.name, state)
        _index(state.states, by_name)
