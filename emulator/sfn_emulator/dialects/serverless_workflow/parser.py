"""Parsing and validating a Serverless Workflow document: every problem is collected, located by
a JSON pointer into the document (`/states/2/transition/nextState`), in the diagnostics form of
ValidateStateMachineDefinition; CreateStateMachine refuses a document with any, as for ASL.

Checked: the draft's schema (required members, their types, enums), unique state, function and
event names, references (`nextState`, `refName`, `eventRef(s)`, trigger/result events), exactly one
start state, every state reachable from it, and each `{{ }}` expression compiles.

One reader class for the whole document (over 400 lines, on purpose): every check reads and writes
the same tables (the names of states, functions and events, the transition targets, the problem
list), which a split would pass around between modules.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from msgspec import UNSET

from sfn_emulator.asl.validation import MISSING_TRANSITION_TARGET, DUPLICATE_STATE_NAME, Diagnostic
from sfn_emulator.dialects.serverless_workflow.reading import WorkflowReader
from sfn_emulator.dialects.serverless_workflow import model as m
from sfn_emulator.dialects.serverless_workflow.durations import repeating_interval
from sfn_emulator.dialects.serverless_workflow.expressions import (
    ExpressionError,
    compile_condition,
    compile_selector,
    compile_template,
)

UNREACHABLE_STATE = "UNREACHABLE_STATE"
_ABSENT = object()


def read_workflow(text: str, document: Any = UNSET) -> tuple[m.Workflow | None, list[Diagnostic]]:
    return _Reader.read(text, document)


class _Reader(WorkflowReader[m.Workflow]):
    def __init__(self, document: Mapping[str, Any]) -> None:
        super().__init__(document)
        self.functions: dict[str, m.FunctionDefinition] = {}
        self.events: dict[str, m.EventDefinition] = {}
        self.state_names: set[str] = set()
        self.targets: list[tuple[str, str]] = []  # (nextState, where)
        self.edges: dict[str, set[str]] = {}

    # -- reporting -----------------------------------------------------------------------------
    def get(self, obj: Mapping[str, Any], key: str, where: str, kind: type | tuple[type, ...], *,
            required: bool = False, label: str = "") -> Any:
        value = obj.get(key, _ABSENT)
        if value is _ABSENT or value is None:
            if required:
                self.problem(f"The member '{key}' is required{label}", where)
            return None
        if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _kinds(kind)):
            self.problem(f"'{key}' must be {_kind_name(kind)}", f"{where}/{key}")
            return None
        return value

    def compiled(self, compile_: Callable[[Any], Any], value: Any, where: str) -> Any:
        if value is None:
            return None
        try:
            return compile_(value)
        except ExpressionError as error:
            self.problem(str(error), where)
            return None

    # -- the workflow --------------------------------------------------------------------------
    def workflow(self) -> m.Workflow | None:
        doc = self.document
        workflow_id = self.get(doc, "id", "", str, required=True, label=" in a workflow")
        name = self.get(doc, "name", "", str, required=True, label=" in a workflow")
        version = doc.get("version")
        for index, entry in enumerate(self.get(doc, "functions", "", list) or ()):
            self.function(entry, f"/functions/{index}")
        for index, entry in enumerate(self.get(doc, "events", "", list) or ()):
            self.event(entry, f"/events/{index}")
        raw_states = self.get(doc, "states", "", list, required=True, label=" in a workflow")
        if raw_states is not None and not raw_states:
            self.problem("A workflow has at least one state", "/states")
        raw_states = raw_states or []
        for index, entry in enumerate(raw_states):
            if isinstance(entry, Mapping) and isinstance(entry.get("name"), str):
                if entry["name"] in self.state_names:
                    self.problem(f"Duplicate state name '{entry['name']}'", f"/states/{index}/name", DUPLICATE_STATE_NAME)
                self.state_names.add(entry["name"])
        states: dict[str, m.State] = {}
        starts: list[str] = []
        for index, entry in enumerate(raw_states):
            state = self.state(entry, f"/states/{index}")
            if state is not None:
                states.setdefault(state.name, state)
                if entry.get("start") not in (None, False):
                    starts.append(state.name)
        for target, where in self.targets:
            if target not in self.state_names:
                self.problem(f"Missing 'nextState' target: {target}", where, MISSING_TRANSITION_TARGET)
        if raw_states and len(starts) != 1:
            self.problem("Exactly one state must be the start state ('start')"
                         + (f"; found {', '.join(starts)}" if starts else "; none is"), "/states")
        if len(starts) == 1:
            self.unreachable(starts[0], raw_states)
        timeout = None
        exec_timeout = self.get(doc, "execTimeout", "", Mapping)
        if exec_timeout is not None:
            timeout = self.duration(exec_timeout.get("duration", exec_timeout.get("interval")), "/execTimeout")
        if self.problems or workflow_id is None or name is None or len(starts) != 1:
            return None
        return m.Workflow(workflow_id, name, starts[0], states, dict(self.functions), dict(self.events),
                          str(version) if version is not None else None, timeout, dict(doc))

    def unreachable(self, start: str, raw_states: list[Any]) -> None:
        seen, pending = {start}, [start]
        while pending:
            for target in self.edges.get(pending.pop(), ()):
                if target not in seen:
                    seen.add(target)
                    pending.append(target)
        for index, entry in enumerate(raw_states):
            if isinstance(entry, Mapping) and entry.get("name") in self.state_names - seen:
                self.problem(f"State '{entry['name']}' is not reachable from the start state '{start}'",
                             f"/states/{index}", UNREACHABLE_STATE)

    def function(self, entry: Any, where: str) -> None:
        if not isinstance(entry, Mapping):
            self.problem("A function definition is an object", where)
            return
        name = self.get(entry, "name", where, str, required=True, label=" in a function definition")
        resource = self.get(entry, "resource", where, str, required=True, label=" in a function definition")
        kind = self.get(entry, "type", where, str)
        if name is not None and name in self.functions:
            self.problem(f"Duplicate function name '{name}'", f"{where}/name")
        if name is not None and resource is not None:
            self.functions.setdefault(name, m.FunctionDefinition(name, resource, kind))

    def event(self, entry: Any, where: str) -> None:
        if not isinstance(entry, Mapping):
            self.problem("An event definition is an object", where)
            return
        name = self.get(entry, "name", where, str, required=True, label=" in an event definition")
        kind = self.get(entry, "kind", where, str) or m.CONSUMED
        if kind not in (m.CONSUMED, m.PRODUCED):
            self.problem(f"'kind' must be 'consumed' or 'produced', not '{kind}'", f"{where}/kind")
        event_type = self.get(entry, "type", where, str, required=True, label=" in an event definition")
        source = self.get(entry, "source", where, str, required=kind == m.CONSUMED,
                          label=" in a consumed event definition")
        correlation: list[m.Correlation] = []
        for index, rule in enumerate(self.get(entry, "correlation", where, list) or ()):
            at = f"{where}/correlation/{index}"
            if not isinstance(rule, Mapping):
                self.problem("A correlation definition is an object", at)
                continue
            attribute = self.get(rule, "contextAttributeName", at, str, required=True)
            value = self.compiled(compile_template, rule.get("contextAttributeValue"), f"{at}/contextAttributeValue")
            if attribute is not None:
                correlation.append(m.Correlation(attribute, value))
        if name is not None and name in self.events:
            self.problem(f"Duplicate event name '{name}'", f"{where}/name")
        if name is not None and event_type is not None:
            self.events.setdefault(name, m.EventDefinition(name, event_type, source, kind, tuple(correlation)))

    # -- states --------------------------------------------------------------------------------
    def state(self, entry: Any, where: str) -> m.State | None:
        if not isinstance(entry, Mapping):
            self.problem("A state is an object", where)
            return None
        name = self.get(entry, "name", where, str, required=True, label=" in a state")
        kind = self.get(entry, "type", where, str, required=True, label=" in a state")
        if kind is not None and kind not in m.STATE_TYPES:
            self.problem(f"Unknown state type '{kind}'; the draft's types: {', '.join(m.STATE_TYPES)}", f"{where}/type")
            kind = None
        if name is None or kind is None:
            return None
        self.edges.setdefault(name, set())
        exit_ = None
        if kind != m.SWITCH:
            exit_ = self.exit(entry, where, name)
        body = getattr(self, f"_{kind}")(entry, where, name)
        data_filter = self.get(entry, "stateDataFilter", where, Mapping) or {}
        retries = tuple(r for index, raw in enumerate(self.get(entry, "retry", where, list) or ())
                        if (r := self.retry(raw, f"{where}/retry/{index}")) is not None)
        handlers = tuple(h for index, raw in enumerate(self.get(entry, "onError", where, list) or ())
                         if (h := self.handler(raw, f"{where}/onError/{index}", name)) is not None)
        return m.State(
            name, kind, exit_, body,
            self.selector(data_filter.get("dataInputPath"), f"{where}/stateDataFilter/dataInputPath"),
            self.selector(data_filter.get("dataOutputPath"), f"{where}/stateDataFilter/dataOutputPath"),
            retries, handlers,
        )

    def exit(self, entry: Mapping[str, Any], where: str, state: str, *, key: str = "transition",
             required: bool = True) -> m.Exit | None:
        transition, end = entry.get(key), entry.get("end")
        if transition is not None and end not in (None, False):
            self.problem(f"A state has either '{key}' or 'end', not both", where)
        if transition is not None:
            return self.transition(transition, f"{where}/{key}", state)
        if end not in (None, False):
            return self.end(end, f"{where}/end")
        if required:
            self.problem(f"The member '{key}' is required when 'end' is not defined", where)
        return None

    def transition(self, raw: Any, where: str, state: str) -> m.Transition | None:
        if isinstance(raw, str):
            raw = {"nextState": raw}
        if not isinstance(raw, Mapping):
            self.problem("A transition is an object with 'nextState'", where)
            return None
        target = self.get(raw, "nextState", where, str, required=True, label=" in a transition")
        expression = self.compiled(compile_condition, raw.get("expression"), f"{where}/expression")
        produce = self.produce(raw.get("produceEvent"), f"{where}/produceEvent")
        if target is None:
            return None
        self.targets.append((target, f"{where}/nextState"))
        self.edges.setdefault(state, set()).add(target)
        return m.Transition(target, expression, produce)

    def end(self, raw: Any, where: str) -> m.End | None:
        if raw is True:
            return m.End()
        if not isinstance(raw, Mapping):
            self.problem("'end' is an object with 'kind' (default, terminate or event)", where)
            return None
        kind = self.get(raw, "kind", where, str) or "default"
        if kind not in ("default", "terminate", "event"):
            self.problem(f"'kind' must be default, terminate or event, not '{kind}'", f"{where}/kind")
        produce = self.produce(raw.get("produceEvent"), f"{where}/produceEvent")
        if kind == "event" and produce is None:
            self.problem("An end of kind 'event' needs 'produceEvent'", where)
        return m.End(kind, produce)

    def produce(self, raw: Any, where: str) -> m.ProducedEvent | None:
        if raw is None:
            return None
        if not isinstance(raw, Mapping):
            self.problem("'produceEvent' is an object with 'eventRef'", where)
            return None
        ref = self.get(raw, "eventRef", where, str, required=True)
        self.event_reference(ref, f"{where}/eventRef", m.PRODUCED)
        return m.ProducedEvent(ref or "", self.compiled(compile_template, raw.get("data"), f"{where}/data"),
                               self.compiled(compile_template, raw.get("contextAttributes"), f"{where}/contextAttributes"))

    def event_reference(self, ref: str | None, where: str, kind: str) -> None:
        if ref is None:
            return
        definition = self.events.get(ref)
        if definition is None:
            self.problem(f"Unknown event '{ref}': no event definition has this name", where, MISSING_TRANSITION_TARGET)
        elif definition.kind != kind:
            self.problem(f"The event '{ref}' is defined as {definition.kind}, here it must be {kind}", where)

    def selector(self, raw: Any, where: str) -> Any:
        if raw is not None and not isinstance(raw, str):
            self.problem("A data filter path is a string holding a {{ }} JsonPath expression", where)
            return None
        return self.compiled(compile_selector, raw, where)

    def retry(self, raw: Any, where: str) -> m.Retry | None:
        if not isinstance(raw, Mapping):
            self.problem("A retry definition is an object", where)
            return None
        expression = self.compiled(compile_condition, self.get(raw, "expression", where, str, required=True),
                                   f"{where}/expression")
        repeats, interval = None, 0.0
        if raw.get("interval") is not None:
            repeats, interval = self.measured(raw["interval"], f"{where}/interval", repeating_interval) or (None, 0.0)
        multiplier = self.duration(raw.get("multiplier"), f"{where}/multiplier") or 0.0
        attempts = raw.get("maxAttempts", repeats if repeats is not None else 3)
        if isinstance(attempts, str) and attempts.isdigit():
            attempts = int(attempts)
        if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 0:
            self.problem("'maxAttempts' must be a non-negative integer", f"{where}/maxAttempts")
            return None
        return m.Retry(expression, interval, multiplier, attempts) if expression is not None else None

    def handler(self, raw: Any, where: str, state: str) -> m.ErrorHandler | None:
        if not isinstance(raw, Mapping):
            self.problem("An onError definition is an object", where)
            return None
        expression = self.compiled(compile_condition, self.get(raw, "expression", where, str, required=True),
                                   f"{where}/expression")
        exit_ = self.exit(raw, where, state)
        error_filter = self.get(raw, "errorDataFilter", where, Mapping) or {}
        selector = self.selector(error_filter.get("dataOutputPath"), f"{where}/errorDataFilter/dataOutputPath")
        return m.ErrorHandler(expression, exit_, selector) if expression is not None and exit_ is not None else None

    def actions(self, raw: Any, where: str, *, required: bool = True) -> tuple[m.Action, ...]:
        if raw is None:
            if required:
                self.problem("The member 'actions' is required", where)
            return ()
        if not isinstance(raw, list):
            self.problem("'actions' must be an array", f"{where}/actions")
            return ()
        return tuple(a for index, entry in enumerate(raw) if (a := self.action(entry, f"{where}/actions/{index}")) is not None)

    def action(self, raw: Any, where: str) -> m.Action | None:
        if not isinstance(raw, Mapping):
            self.problem("An action is an object", where)
            return None
        name = self.get(raw, "name", where, str)
        function_ref = event_ref = None
        raw_function = raw.get("functionRef")
        if isinstance(raw_function, str):
            raw_function = {"refName": raw_function}
        if isinstance(raw_function, Mapping):
            ref_name = self.get(raw_function, "refName", f"{where}/functionRef", str, required=True)
            if ref_name is not None and ref_name not in self.functions:
                self.problem(f"Unknown function '{ref_name}': no function definition has this name",
                             f"{where}/functionRef/refName", MISSING_TRANSITION_TARGET)
            function_ref = m.FunctionRef(ref_name or "", self.compiled(compile_template, raw_function.get("parameters"),
                                                                       f"{where}/functionRef/parameters"))
        raw_event = raw.get("eventRef")
        if isinstance(raw_event, Mapping):
            at = f"{where}/eventRef"
            trigger = self.get(raw_event, "triggerEventRef", at, str, required=True)
            result = self.get(raw_event, "resultEventRef", at, str, required=True)
            self.event_reference(trigger, f"{at}/triggerEventRef", m.PRODUCED)
            self.event_reference(result, f"{at}/resultEventRef", m.CONSUMED)
            event_ref = m.EventRef(trigger or "", result or "", self.compiled(compile_template, raw_event.get("data"), f"{at}/data"),
                                   self.compiled(compile_template, raw_event.get("contextAttributes"), f"{at}/contextAttributes"))
        if (function_ref is None) == (event_ref is None):
            self.problem("An action has either 'functionRef' or 'eventRef'", where)
            return None
        data_filter = self.get(raw, "actionDataFilter", where, Mapping) or {}
        return m.Action(name, function_ref, event_ref, self.duration(raw.get("timeout"), f"{where}/timeout"),
                        self.selector(data_filter.get("dataInputPath"), f"{where}/actionDataFilter/dataInputPath"),
                        self.selector(data_filter.get("dataResultsPath"), f"{where}/actionDataFilter/dataResultsPath"))

    def action_mode(self, entry: Mapping[str, Any], where: str) -> str:
        mode = self.get(entry, "actionMode", where, str) or m.SEQUENTIAL
        if mode not in (m.SEQUENTIAL, m.PARALLEL_MODE):
            self.problem(f"'actionMode' must be sequential or parallel, not '{mode}'", f"{where}/actionMode")
        return mode

    def event_filter(self, entry: Mapping[str, Any], where: str) -> Any:
        raw = self.get(entry, "eventDataFilter", where, Mapping) or {}
        # The draft's table names it dataOutputPath; its worked example writes dataInputPath.
        key = "dataOutputPath" if "dataOutputPath" in raw else "dataInputPath"
        return self.selector(raw.get(key), f"{where}/eventDataFilter/{key}")

    def workflow_reference(self, value: Any, where: str) -> None:
        if value is not None and value == self.document.get("id"):
            self.problem("A workflow cannot run itself ('workflowId' is this workflow's id)", where)

    # -- each state type's own members -----------------------------------------------------------
    def _event(self, entry: Mapping[str, Any], where: str, name: str) -> m.EventBody:
        groups = []
        for index, raw in enumerate(self.get(entry, "eventsActions", where, list, required=True) or ()):
            at = f"{where}/eventsActions/{index}"
            if not isinstance(raw, Mapping):
                self.problem("An eventsActions entry is an object", at)
                continue
            refs = self.get(raw, "eventRefs", at, list, required=True) or []
            for number, ref in enumerate(refs):
                self.event_reference(ref if isinstance(ref, str) else None, f"{at}/eventRefs/{number}", m.CONSUMED)
            groups.append(m.EventActions(tuple(ref for ref in refs if isinstance(ref, str)),
                                         self.actions(raw.get("actions", []), at, required=False),
                                         self.action_mode(raw, at), self.event_filter(raw, at)))
        exclusive = self.get(entry, "exclusive", where, bool)
        return m.EventBody(tuple(groups), exclusive is not False, self.duration(entry.get("timeout"), f"{where}/timeout"))

    def _operation(self, entry: Mapping[str, Any], where: str, name: str) -> m.OperationBody:
        return m.OperationBody(self.actions(entry.get("actions"), where), self.action_mode(entry, where))

    def _switch(self, entry: Mapping[str, Any], where: str, name: str) -> m.SwitchBody | None:
        data_raw, event_raw = entry.get("dataConditions"), entry.get("eventConditions")
        if (data_raw is None) == (event_raw is None):
            self.problem("A switch state has either 'dataConditions' or 'eventConditions'", where)
        data_conditions, event_conditions = [], []
        for index, raw in enumerate(data_raw if isinstance(data_raw, list) else ()):
            at = f"{where}/dataConditions/{index}"
            condition = self.compiled(compile_condition, self.get(raw, "condition", at, str, required=True)
                                      if isinstance(raw, Mapping) else None, f"{at}/condition")
            exit_ = self.exit(raw, at, name) if isinstance(raw, Mapping) else None
            if condition is not None and exit_ is not None:
                data_conditions.append(m.DataCondition(condition, exit_))
        for index, raw in enumerate(event_raw if isinstance(event_raw, list) else ()):
            at = f"{where}/eventConditions/{index}"
            if not isinstance(raw, Mapping):
                self.problem("An event condition is an object", at)
                continue
            ref = self.get(raw, "eventRef", at, str, required=True)
            self.event_reference(ref, f"{at}/eventRef", m.CONSUMED)
            exit_ = self.exit(raw, at, name)
            if ref is not None and exit_ is not None:
                event_conditions.append(m.EventCondition(ref, exit_, self.event_filter(raw, at)))
        timeout = self.duration(entry.get("eventTimeout"), f"{where}/eventTimeout")
        if event_raw is not None and timeout is None and entry.get("eventTimeout") is None:
            self.problem("A switch on events needs 'eventTimeout'", where)
        default = self.exit(entry, where, name, key="default")
        return m.SwitchBody(default, tuple(data_conditions), tuple(event_conditions), timeout) if default else None

    def _delay(self, entry: Mapping[str, Any], where: str, name: str) -> m.DelayBody | None:
        if entry.get("timeDelay") is None:
            self.problem("The member 'timeDelay' is required in a delay state", where)
            return None
        seconds = self.duration(entry["timeDelay"], f"{where}/timeDelay")
        return m.DelayBody(seconds) if seconds is not None else None

    def _parallel(self, entry: Mapping[str, Any], where: str, name: str) -> m.ParallelBody:
        branches = []
        for index, raw in enumerate(self.get(entry, "branches", where, list, required=True) or ()):
            at = f"{where}/branches/{index}"
            if not isinstance(raw, Mapping):
                self.problem("A branch is an object", at)
                continue
            branch_name = self.get(raw, "name", at, str, required=True) or f"Branch{index + 1}"
            workflow_id = self.get(raw, "workflowId", at, str)
            self.workflow_reference(workflow_id, f"{at}/workflowId")
            if (workflow_id is None) == (raw.get("actions") is None):
                self.problem("A branch has either 'actions' or 'workflowId'", at)
            branches.append(m.Branch(branch_name, self.actions(raw.get("actions"), at, required=False), workflow_id))
        completion = self.get(entry, "completionType", where, str) or m.AND
        if completion not in (m.AND, m.XOR, m.N_OF_M):
            self.problem(f"'completionType' must be and, xor or n_of_m, not '{completion}'", f"{where}/completionType")
        n = entry.get("n")
        if isinstance(n, str) and n.isdigit():
            n = int(n)
        if completion == m.N_OF_M and (isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= len(branches)):
            self.problem("'n' must be a number of branches (1 to the number of branches) for completionType n_of_m",
                         f"{where}/n")
        return m.ParallelBody(tuple(branches), completion, n if isinstance(n, int) else None)

    def _subflow(self, entry: Mapping[str, Any], where: str, name: str) -> m.SubflowBody:
        workflow_id = self.get(entry, "workflowId", where, str, required=True, label=" in a subflow state") or ""
        self.workflow_reference(workflow_id, f"{where}/workflowId")
        wait = self.get(entry, "waitForCompletion", where, bool)
        return m.SubflowBody(workflow_id, wait is not False)

    def _inject(self, entry: Mapping[str, Any], where: str, name: str) -> m.InjectBody:
        return m.InjectBody(self.get(entry, "data", where, Mapping) or {})

    def _foreach(self, entry: Mapping[str, Any], where: str, name: str) -> m.ForEachBody | None:
        collection = self.compiled(compile_template, self.get(entry, "inputCollection", where, str, required=True),
                                   f"{where}/inputCollection")
        param = self.get(entry, "iterationParam", where, str, required=True)
        output = self.get(entry, "outputCollection", where, str)
        if output is not None:
            selector = self.compiled(compile_selector, output, f"{where}/outputCollection")
            output = selector.query.member_name if selector is not None else None
            if selector is not None and output is None:
                self.problem("'outputCollection' must name a member of the state data, such as {{ $.results }}",
                             f"{where}/outputCollection")
        limit = entry.get("max")
        if isinstance(limit, str) and limit.isdigit():
            limit = int(limit)
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
            self.problem("'max' must be a positive integer", f"{where}/max")
            limit = None
        workflow_id = self.get(entry, "workflowId", where, str)
        self.workflow_reference(workflow_id, f"{where}/workflowId")
        if (workflow_id is None) == (entry.get("actions") is None):
            self.problem("A foreach state has either 'actions' or 'workflowId'", where)
        if collection is None or param is None:
            return None
        return m.ForEachBody(collection, param, output, limit, self.actions(entry.get("actions"), where, required=False),
                             workflow_id)

    def _callback(self, entry: Mapping[str, Any], where: str, name: str) -> m.CallbackBody | None:
        action = self.action(entry.get("action"), f"{where}/action") if "action" in entry else None
        if "action" not in entry:
            self.problem("The member 'action' is required in a callback state", where)
        ref = self.get(entry, "eventRef", where, str, required=True, label=" in a callback state")
        self.event_reference(ref, f"{where}/eventRef", m.CONSUMED)
        if entry.get("timeout") is None:
            self.problem("The member 'timeout' is required in a callback state", where)
        timeout = self.duration(entry.get("timeout"), f"{where}/timeout")
        if action is None or ref is None:
            return None
        return m.CallbackBody(action, ref, timeout, self.event_filter(entry, where))


def _kinds(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _kind_name(kind: type | tuple[type, ...]) -> str:
    words = {str: "a string", list: "an array", bool: "a boolean", int: "an integer", float: "a number"}
    return " or ".join(words.get(k, "an object") for k in _kinds(kind))
