"""Reading a 0.6-0.8 draft document into the draft's model (`serverless_workflow.model`), which the
draft's interpreter runs: every problem collected, located by JSON pointer.

Read: `id`/`key`, `name`, `version`, `specVersion`, `start` (a name or `{stateName}`), `functions`
(`operation`, `type`; type `expression` is evaluated, the others are calls), `events` (with
`correlation`), `errors` (name and `code`), `retries`, `constants`, `timeouts`/`execTimeout`,
`dataInputSchema` (accepted), and the states `operation`, `event` (`onEvents`), `switch` (data or
event conditions, `defaultCondition`), `sleep`/`delay`, `parallel` (`allOf`/`atLeast`), `inject`,
`foreach`, `callback`, `subflow` (0.6); actions with `functionRef`, `subFlowRef`, `eventRef`;
`stateDataFilter`/`actionDataFilter`/`eventDataFilter`; `onErrors`; actions' `retryRef`;
`transition`/`end` (with the first of `produceEvents`); actions' `condition`; `timeouts`. Definitions kept in other
files (`functions: "file.json"`) cannot be read: a call to one fails when it runs, naming it.
Compensation (`compensatedBy`, `usedForCompensation`, `compensate`) and `continueAs` are accepted
and not performed.
"""

from __future__ import annotations

from typing import Any, Mapping

from msgspec import UNSET

from sfn_emulator.asl.validation import DUPLICATE_STATE_NAME, MISSING_TRANSITION_TARGET, Diagnostic
from sfn_emulator.dialects.serverless_workflow.reading import WorkflowReader
from sfn_emulator.dialects.serverless_workflow import model as m
from sfn_emulator.dialects.serverless_workflow.dsl1 import expressions as jq
from sfn_emulator.dialects.serverless_workflow.v0x.model import LaterDraftWorkflow
from sfn_emulator.dialects.serverless_workflow.v0x.expressions import (
    ErrorMatch,
    Jq,
    JqTemplate,
    PlacedResult,
    destination_path,
)

JSON = Any
STATE_TYPES = ("operation", "event", "switch", "sleep", "delay", "parallel", "inject", "foreach", "callback", "subflow")
_BODY_TYPE = {"sleep": m.DELAY, "delay": m.DELAY}
_COMPLETION = {"allOf": m.AND, "atLeast": m.N_OF_M, "and": m.AND, "xor": m.XOR, "n_of_m": m.N_OF_M}


def read_workflow(text: str, document: Any = UNSET) -> tuple[LaterDraftWorkflow | None, list[Diagnostic]]:
    return _Reader.read(text, document)


def _named(value: JSON) -> list[Mapping[str, JSON]]:
    """Inline definitions (a list of objects); definitions in another file (a URI) are not read."""
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


class _Reader(WorkflowReader[LaterDraftWorkflow]):
    def __init__(self, document: Mapping[str, Any]) -> None:
        super().__init__(document)
        self.constants = dict(document.get("constants") or {}) if isinstance(document.get("constants"), Mapping) else {}
        self.errors = {str(e.get("name")): str(e.get("code", e.get("name"))) for e in _named(document.get("errors"))}
        self.retries = {str(r.get("name")): r for r in _named(document.get("retries"))}
        self.external_functions = isinstance(document.get("functions"), str)
        self.external_events = isinstance(document.get("events"), str)
        self.functions: dict[str, m.FunctionDefinition] = {}
        self.events: dict[str, m.EventDefinition] = {}
        self.targets: list[tuple[str, str]] = []

    # -- expressions ------------------------------------------------------------------------------
    def jq(self, text: JSON, where: str) -> Jq | None:
        if not isinstance(text, str):
            if text is not None:
                self.problem("An expression is a string: '${ jq }'", where)
            return None
        try:
            jq.check(text, ("CONST", "SECRETS"))
        except jq.ExpressionSyntaxError as error:
            self.problem(f"The expression '{text}' does not compile: {error}", where)
            return None
        return Jq(text, self.constants)

    def template(self, value: JSON, where: str) -> JqTemplate | None:
        if value is None:
            return None
        for text in jq.expressions_in(value):
            self.jq(text, where)
        return JqTemplate(value, self.constants)

    # -- the document ----------------------------------------------------------------------------
    def workflow(self) -> LaterDraftWorkflow | None:
        doc = self.document
        identity = doc.get("id", doc.get("key"))
        if not isinstance(identity, str):
            self.problem("The workflow needs an 'id' (or a 'key')", "/id")
        for index, function in enumerate(_named(doc.get("functions"))):
            self.function(function, f"/functions/{index}")
        for index, event in enumerate(_named(doc.get("events"))):
            self.event(event, f"/events/{index}")
        states_value = doc.get("states")
        if not isinstance(states_value, list) or not states_value:
            self.problem("'states' is a non-empty array of states", "/states")
            return None
        states: dict[str, m.State] = {}
        for index, raw in enumerate(states_value):
            state = self.state(raw, f"/states/{index}") if isinstance(raw, Mapping) else None
            if state is None:
                continue
            if state.name in states:
                self.problem(f"Duplicate state name '{state.name}'", f"/states/{index}/name", DUPLICATE_STATE_NAME)
            states[state.name] = state
        start = doc.get("start")
        start_at = start.get("stateName") if isinstance(start, Mapping) else start
        if start_at is None and states:
            start_at = next(iter(states))  # 0.8: without `start`, the first state
        if start_at not in states:
            self.problem(f"'start' names no state: '{start_at}'", "/start", MISSING_TRANSITION_TARGET)
        for target, where in self.targets:
            if target not in states:
                self.problem(f"No state named '{target}'", where, MISSING_TRANSITION_TARGET)
        timeouts = doc.get("timeouts") if isinstance(doc.get("timeouts"), Mapping) else {}
        exec_timeout = timeouts.get("workflowExecTimeout", doc.get("execTimeout"))
        limit = exec_timeout.get("duration") if isinstance(exec_timeout, Mapping) else exec_timeout
        timeout = self.duration(limit, "/timeouts/workflowExecTimeout") if limit not in (None, "unlimited") else None
        if self.problems or not isinstance(identity, str) or start_at not in states:
            return None
        return LaterDraftWorkflow(identity, str(doc.get("name", identity)), str(start_at), states, self.functions, self.events,
                          str(doc["version"]) if doc.get("version") is not None else None, timeout, dict(doc))

    def function(self, raw: Mapping[str, JSON], where: str) -> None:
        name, operation = raw.get("name"), raw.get("operation", raw.get("resource"))
        if not isinstance(name, str) or not isinstance(operation, str):
            self.problem("A function needs a 'name' and an 'operation'", where)
            return
        kind = raw.get("type", "rest")
        expression = self.template(operation, f"{where}/operation") if kind == "expression" else None
        if kind == "expression" and jq.unwrap(operation) is None:
            expression = self.template("${ " + operation + " }", f"{where}/operation")
        self.functions[name] = m.FunctionDefinition(name, operation, str(kind), expression)

    def event(self, raw: Mapping[str, JSON], where: str) -> None:
        name, kind = raw.get("name"), raw.get("kind", m.CONSUMED)
        if not isinstance(name, str) or not isinstance(raw.get("type"), str):
            self.problem("An event needs a 'name' and a 'type'", where)
            return
        correlation = tuple(m.Correlation(str(rule.get("contextAttributeName")),
                                          self.template(rule.get("contextAttributeValue"), f"{where}/correlation/{i}"))
                            for i, rule in enumerate(_named(raw.get("correlation"))))
        self.events[name] = m.EventDefinition(name, raw["type"], raw.get("source"), str(kind), correlation)

    # -- states ----------------------------------------------------------------------------------
    def state(self, raw: Mapping[str, JSON], where: str) -> m.State | None:
        name, kind = raw.get("name"), raw.get("type")
        if not isinstance(name, str):
            self.problem("A state needs a 'name'", f"{where}/name")
            return None
        if kind not in STATE_TYPES:
            self.problem(f"Unknown state type '{kind}' (one of {', '.join(STATE_TYPES)})", f"{where}/type")
            return None
        body = getattr(self, f"body_{kind}")(raw, where)
        filters = raw.get("stateDataFilter") if isinstance(raw.get("stateDataFilter"), Mapping) else {}
        exit_ = None if kind == "switch" else self.exit(raw, where)
        on_error = tuple(self.on_error(handler, f"{where}/onErrors/{i}") for i, handler in enumerate(_named(raw.get("onErrors"))))
        return m.State(name, _BODY_TYPE.get(kind, kind), exit_, body,
                       self.jq(filters.get("input", filters.get("dataInputPath")), f"{where}/stateDataFilter/input"),
                       self.jq(filters.get("output", filters.get("dataOutputPath")), f"{where}/stateDataFilter/output"),
                       self.retries_of(raw, where), on_error)

    def exit(self, raw: Mapping[str, JSON], where: str) -> m.Exit:
        transition, end = raw.get("transition"), raw.get("end")
        if transition is not None:
            target = transition.get("nextState") if isinstance(transition, Mapping) else transition
            if not isinstance(target, str):
                self.problem("A transition names the next state", f"{where}/transition")
                return m.End()
            self.targets.append((target, f"{where}/transition"))
            produced = transition.get("produceEvents") if isinstance(transition, Mapping) else None
            return m.Transition(target, None, self.produced(produced, f"{where}/transition/produceEvents"))
        if end in (None, False):
            self.problem("A state needs a 'transition' or an 'end'", where, MISSING_TRANSITION_TARGET)
            return m.End()
        produced = end.get("produceEvents") if isinstance(end, Mapping) else None
        terminate = isinstance(end, Mapping) and end.get("terminate") is True
        return m.End("terminate" if terminate else "default", self.produced(produced, f"{where}/end/produceEvents"))

    def produced(self, value: JSON, where: str) -> m.ProducedEvent | None:
        entries = _named(value)
        if not entries:
            return None
        first = entries[0]
        ref = first.get("eventRef")
        if ref not in self.events and not self.external_events:
            self.problem(f"No event named '{ref}'", f"{where}/0/eventRef")
            return None
        return m.ProducedEvent(str(ref), self.template(first.get("data"), f"{where}/0/data"),
                               self.template(first.get("contextAttributes"), f"{where}/0/contextAttributes"))

    def on_error(self, raw: Mapping[str, JSON], where: str) -> m.ErrorHandler:
        refs = raw.get("errorRefs") or ([raw["errorRef"]] if "errorRef" in raw else [raw.get("error")])
        codes = tuple(self.errors.get(str(ref), str(ref)) for ref in refs if ref is not None)
        return m.ErrorHandler(ErrorMatch(codes, any="*" in codes), self.exit(raw, where))

    def retries_of(self, raw: Mapping[str, JSON], where: str) -> tuple[m.Retry, ...]:
        """The retry policies the state's actions name (`retryRef`), on their `retryableErrors`
        (0.8, with `autoRetries`) or every error but their `nonRetryableErrors`."""
        rules: list[m.Retry] = []
        for action in self.all_actions(raw):
            name = action.get("retryRef")
            if name is None:
                continue
            policy = self.retries.get(str(name))
            if policy is None:
                self.problem(f"No retry named '{name}'", f"{where}/actions")
                continue
            retryable = tuple(self.errors.get(str(e), str(e)) for e in action.get("retryableErrors") or ())
            excluded = tuple(self.errors.get(str(e), str(e)) for e in action.get("nonRetryableErrors") or ())
            delay = self.duration(policy.get("delay"), f"{where}/retries") or 0.0
            increment = self.duration(policy.get("increment"), f"{where}/retries") or 0.0
            attempts = int(policy.get("maxAttempts", 3))
            rules.append(m.Retry(ErrorMatch(retryable, any=not retryable, excluded=excluded), delay, increment,
                                 attempts))
        return tuple(rules)

    def all_actions(self, raw: Mapping[str, JSON]) -> list[Mapping[str, JSON]]:
        actions = _named(raw.get("actions"))
        actions += [a for group in _named(raw.get("onEvents") or raw.get("eventsActions")) for a in _named(group.get("actions"))]
        actions += [a for branch in _named(raw.get("branches")) for a in _named(branch.get("actions"))]
        return actions + ([raw["action"]] if isinstance(raw.get("action"), Mapping) else [])

    # -- actions -----------------------------------------------------------------------------------
    def actions(self, value: JSON, where: str) -> tuple[m.Action, ...]:
        return tuple(self.action(raw, f"{where}/{i}") for i, raw in enumerate(_named(value)))

    def action(self, raw: Mapping[str, JSON], where: str) -> m.Action:
        filters = raw.get("actionDataFilter") if isinstance(raw.get("actionDataFilter"), Mapping) else {}
        from_state = self.jq(filters.get("fromStateData"), f"{where}/actionDataFilter/fromStateData")
        results = self.placed(filters.get("results"), filters.get("toStateData"), filters.get("useResults", True),
                              f"{where}/actionDataFilter", False)
        name = raw.get("name") if isinstance(raw.get("name"), str) else None
        timeout = self.duration(raw.get("timeout"), f"{where}/timeout")
        condition = self.jq(raw.get("condition"), f"{where}/condition")
        if "functionRef" in raw:
            ref = raw["functionRef"]
            ref_name = ref.get("refName") if isinstance(ref, Mapping) else ref
            if ref_name not in self.functions and not self.external_functions:
                self.problem(f"No function named '{ref_name}'", f"{where}/functionRef", MISSING_TRANSITION_TARGET)
            arguments = ref.get("arguments", ref.get("parameters")) if isinstance(ref, Mapping) else None
            function_ref = m.FunctionRef(str(ref_name), self.template(arguments, f"{where}/functionRef/arguments"))
            return m.Action(name, function_ref, None, timeout, from_state, results, condition=condition)
        if "subFlowRef" in raw:
            ref = raw["subFlowRef"]
            workflow_id = ref.get("workflowId") if isinstance(ref, Mapping) else ref
            waits = not (isinstance(ref, Mapping) and ref.get("invoke") == "async")
            return m.Action(name, None, None, timeout, from_state, results, str(workflow_id), waits, condition)
        if "eventRef" in raw and isinstance(raw["eventRef"], Mapping):
            ref = raw["eventRef"]
            for key in ("triggerEventRef", "resultEventRef"):
                if ref.get(key) not in self.events and not self.external_events:
                    self.problem(f"No event named '{ref.get(key)}'", f"{where}/eventRef/{key}", MISSING_TRANSITION_TARGET)
            event_ref = m.EventRef(str(ref.get("triggerEventRef")), str(ref.get("resultEventRef")),
                                   self.template(ref.get("data"), f"{where}/eventRef/data"),
                                   self.template(ref.get("contextAttributes"), f"{where}/eventRef/contextAttributes"))
            timeout = self.duration(ref.get("resultEventTimeout"), f"{where}/eventRef/resultEventTimeout") or timeout
            return m.Action(name, None, event_ref, timeout, from_state, results, condition=condition)
        self.problem("An action needs a 'functionRef', a 'subFlowRef' or an 'eventRef'", where)
        return m.Action(name, m.FunctionRef(""))

    def placed(self, selection: JSON, destination: JSON, use: JSON, where: str, of_event: bool) -> PlacedResult | None:
        if selection is None and destination is None and use is not False and not of_event:
            return None
        path = None
        if destination is not None:
            path = destination_path(destination) if isinstance(destination, str) else None
            if path is None:
                self.problem("'toStateData' names a member of the state data: '${ .a.b }'", f"{where}/toStateData")
        return PlacedResult(self.jq(selection, f"{where}/results"), path, use is not False, of_event)

    def event_filter(self, raw: Mapping[str, JSON], where: str) -> PlacedResult | None:
        found = raw.get("eventDataFilter")
        if not isinstance(found, Mapping):
            return None
        return self.placed(found.get("data"), found.get("toStateData"), found.get("useData", True),
                           f"{where}/eventDataFilter", True)

    def event_names(self, refs: JSON, where: str) -> tuple[str, ...]:
        names = tuple(str(ref) for ref in refs or ())
        for ref in names:
            if ref not in self.events and not self.external_events:
                self.problem(f"No event named '{ref}'", where, MISSING_TRANSITION_TARGET)
        return names

    def timeout_of(self, raw: Mapping[str, JSON], key: str, where: str) -> float | None:
        timeouts = raw.get("timeouts") if isinstance(raw.get("timeouts"), Mapping) else {}
        return self.duration(timeouts.get(key, raw.get("timeout")), f"{where}/timeouts/{key}")

    # -- state bodies ------------------------------------------------------------------------------
    def body_operation(self, raw: Mapping[str, JSON], where: str) -> m.OperationBody:
        return m.OperationBody(self.actions(raw.get("actions"), f"{where}/actions"), str(raw.get("actionMode", m.SEQUENTIAL)))

    def body_event(self, raw: Mapping[str, JSON], where: str) -> m.EventBody:
        key = "onEvents" if "onEvents" in raw else "eventsActions"
        groups = tuple(m.EventActions(self.event_names(group.get("eventRefs"), f"{where}/{key}/{i}/eventRefs"),
                                      self.actions(group.get("actions"), f"{where}/{key}/{i}/actions"),
                                      str(group.get("actionMode", m.SEQUENTIAL)), self.event_filter(group, f"{where}/{key}/{i}"))
                       for i, group in enumerate(_named(raw.get(key))))
        return m.EventBody(groups, bool(raw.get("exclusive", True)), self.timeout_of(raw, "eventTimeout", where))

    def body_switch(self, raw: Mapping[str, JSON], where: str) -> m.SwitchBody:
        default = raw.get("defaultCondition", raw.get("default"))
        default_exit = self.exit(default, f"{where}/defaultCondition") if isinstance(default, Mapping) else m.End()
        data = tuple(m.DataCondition(self.jq(c.get("condition"), f"{where}/dataConditions/{i}/condition")
                                     or Jq("false"), self.exit(c, f"{where}/dataConditions/{i}"))
                     for i, c in enumerate(_named(raw.get("dataConditions"))))
        events = tuple(m.EventCondition(self.event_names([c.get("eventRef")], f"{where}/eventConditions/{i}/eventRef")[0],
                                        self.exit(c, f"{where}/eventConditions/{i}"), self.event_filter(c, f"{where}/eventConditions/{i}"))
                       for i, c in enumerate(_named(raw.get("eventConditions"))))
        return m.SwitchBody(default_exit, data, events, self.timeout_of(raw, "eventTimeout", where))

    def body_sleep(self, raw: Mapping[str, JSON], where: str) -> m.DelayBody:
        return m.DelayBody(self.duration(raw.get("duration"), f"{where}/duration") or 0.0)

    def body_delay(self, raw: Mapping[str, JSON], where: str) -> m.DelayBody:
        return m.DelayBody(self.duration(raw.get("timeDelay"), f"{where}/timeDelay") or 0.0)

    def body_parallel(self, raw: Mapping[str, JSON], where: str) -> m.ParallelBody:
        branches = tuple(m.Branch(str(b.get("name", i)), self.actions(b.get("actions"), f"{where}/branches/{i}/actions"),
                                  b.get("workflowId"))
                         for i, b in enumerate(_named(raw.get("branches"))))
        completion = _COMPLETION.get(str(raw.get("completionType", "allOf")), m.AND)
        count = raw.get("numCompleted", raw.get("n"))
        return m.ParallelBody(branches, completion, int(count) if count is not None else None)

    def body_inject(self, raw: Mapping[str, JSON], where: str) -> m.InjectBody:
        return m.InjectBody(raw.get("data") or {})

    def body_foreach(self, raw: Mapping[str, JSON], where: str) -> m.ForEachBody:
        collection = self.template(raw.get("inputCollection"), f"{where}/inputCollection") or JqTemplate([])
        output = raw.get("outputCollection")
        path = destination_path(output) if isinstance(output, str) else None
        if output is not None and (path is None or "." in path.lstrip(".")):
            self.problem("'outputCollection' names a member of the state data: '${ .results }'", f"{where}/outputCollection")
        limit = raw.get("batchSize", raw.get("max"))
        parameter = raw.get("iterationParam", "item")
        parameter = (destination_path(parameter) or parameter).lstrip(".") if isinstance(parameter, str) else "item"
        return m.ForEachBody(collection, parameter, path.lstrip(".") if path else None,
                             int(limit) if limit is not None else None, self.actions(raw.get("actions"), f"{where}/actions"),
                             raw.get("workflowId"))

    def body_callback(self, raw: Mapping[str, JSON], where: str) -> m.CallbackBody:
        action = self.action(raw["action"], f"{where}/action") if isinstance(raw.get("action"), Mapping) else m.Action(None)
        ref = self.event_names([raw.get("eventRef")], f"{where}/eventRef")[0]
        return m.CallbackBody(action, ref, self.timeout_of(raw, "eventTimeout", where), self.event_filter(raw, where))

    def body_subflow(self, raw: Mapping[str, JSON], where: str) -> m.SubflowBody:
        return m.SubflowBody(str(raw.get("workflowId")), bool(raw.get("waitForCompletion", True)))
