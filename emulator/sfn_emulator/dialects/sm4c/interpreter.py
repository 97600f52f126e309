"""Runs an SM4C model as a generator of the engine's effects, following the document's execution
algorithm step by step:

1. the start state is the one state with `start: true`;
2. entering a state: its `inputFilter`'s result, taken once, is what its actions and transition
   conditions read for the rest of the state; its enter action runs and `enterResultHandler`
   merges the result into the state machine's data (`$value`);
3. child states (a state's `states`) run next, from their start state, until one of them ends;
4. no transitions: the state machine ends with its data as output. Otherwise the transition is
   chosen: the one implicit transition; else the first `condition` transition whose jq condition
   holds; else the event transitions, the first whose every event group is matched (any one event
   of a group matches it, when the group's condition holds on that event; `resultHandler` merges it),
   while a single `timeout` transition fires when its time passes first;
5. the transition's action and `resultHandler`; a transition without `nextState` returns to step 4;
6. the exit action and `exitResultHandler`, then the next state (step 2).

An action failing runs the first of its `errorHandlers` whose `condition` holds on the error, in
the shape SM4C passes it (`error_value`): its `resultHandler` merges the error, then its retry
policy retries the action (delays on the clock), or the action's result is null. An unhandled error fails the
execution with that error. A child action that a parallel's completion (or a sibling's failure)
cancels ends its open tasks with `TaskFailed` (`SM4C.Cancelled`). When the document's `timeout`
passes, the engine stops the execution and runs `timeout.action` (`Run.on_timeout`) before it
ends the execution as timed out.

History (Step Functions' event shapes): a state is `TaskStateEntered`/`TaskStateExited`; every
action attempt is a task (`TaskScheduled` with its evaluated input as `parameters`, `TaskStarted`,
then `TaskSucceeded`, `TaskFailed` or `TaskTimedOut`) of the resource it calls: `function`/<name>
for invokeFunction, `states`/`startExecution[.sync:2]` for invokeSubflow, `events`/`produceEvent`
for sendEvent, else `sm4c`/<action type>; each wait for a transition's events is an
`events`/`awaitEvent` task (timed out when a timeout transition fires). The chosen transition is the
exit of its state and the entry of `nextState`; a transition without `nextState` shows as its action.
"""

from __future__ import annotations

import json
import random
from functools import partial
from typing import TYPE_CHECKING, Any, Callable

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.clock.virtual_clock import after
from sfn_emulator.dialects.sm4c.model import (
    Action,
    BaseAction,
    DelayAction,
    ForEachAction,
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
from sfn_emulator.dialects.sm4c.expressions import JqExpression
from sfn_emulator.dialects.task_events import AWAIT_EVENT_TASK, PRODUCE_EVENT_TASK, function_task
from sfn_emulator.engine.effects import ENTER_STATE, Compute, Fork, Interpreter, Sleep
from sfn_emulator.engine.frame import Frame, Run, to_json_text
from sfn_emulator.engine.task_attempt import task_attempt
from sfn_emulator.protocol.history_events import TaskEvents, state_entered, state_exited

from sfn_emulator.dialects.sm4c.host import CANCELLED

if TYPE_CHECKING:
    from sfn_emulator.dialects.sm4c.host import Host

JSON = Any
RESOURCE_TYPE = "sm4c"
STATE_TYPE = "Task"  # the Step Functions state type a state is written as
NO_TRANSITION = "SM4C.NoTransition"
UNFILTERED = object()  # a state without an inputFilter: its actions and conditions read the live data
CANCELLED_CAUSE = "The action was cancelled: its parent action no longer needs its result."


def run_document(run: Run, host: Host) -> Interpreter:
    """The whole execution: returns the state machine's data when it ends."""
    machine: Sm4cDocument = run.execution.machine
    frame = Frame(run, prev_event_id=run.execution.history[-1]["id"] if run.execution.history else 0)
    instance = Instance(machine, run, host, run.execution_context["Input"])
    if machine.timeout is not None and machine.timeout.action is not None:
        action = machine.timeout.action
        run.on_timeout = lambda: instance.timeout_action(action)
    yield from instance.run_states(machine.start, frame)
    return instance.data


class Instance:
    """One execution's state machine data and the algorithm over it."""

    def __init__(self, machine: Sm4cDocument, run: Run, host: Host, data: JSON) -> None:
        self.machine = machine
        self.run = run
        self.host = host
        self.data = data
        self.correlations: dict[str, JSON] = {}  # correlation attributes bound by the first event
        self.completions = 0  # children of hierarchical actions finished so far, for 'xor' and 'n_of_m'
        self.state = machine.start  # the state the execution is in

    def timeout_action(self, action: Action) -> Interpreter:
        """The document's `timeout.action`: when the execution's timeout passes, the execution
        stops where it is and this action runs on its data, immediately before the execution ends
        (timed out, as any execution whose timeout passes). Its result has no handler to merge it."""
        frame = Frame(self.run, prev_event_id=self.run.execution.history[-1]["id"])
        frame.state_name = self.state.name
        yield from self.perform(action, self.data, self.state, frame)

    # -- states -----------------------------------------------------------------------------------
    def run_states(self, state: State, frame: Frame) -> Interpreter:
        """From `state` until a state without transitions ends this scope."""
        current: State | None = state
        while current is not None:
            current = yield from self.run_state(current, frame)

    def run_state(self, state: State, frame: Frame) -> Interpreter:
        """Steps 2 to 6 for one state; returns the next state, or None when the scope ends."""
        yield ENTER_STATE
        frame.state_name = state.name
        frame.entered_time = self.run.now()
        self.state = state
        frame.emit(state_entered(STATE_TYPE, state.name, to_json_text(self.data)))
        filtered = (yield from evaluated(state.input_filter, self.data)) if state.input_filter is not None \
            else UNFILTERED
        if state.enter_action is not None:
            result = yield from self.perform(state.enter_action, self.view(filtered), state, frame)
            yield from self.merge(state.enter_result_handler, result)
        if state.start_child is not None:
            yield from self.run_states(state.start_child, frame)
            frame.state_name = state.name
            self.state = state
        if not state.transitions:
            self.exited(state, frame)
            return None
        while True:
            transition = yield from self.choose(state, self.view(filtered), frame)
            if transition.action is not None:
                result = yield from self.perform(transition.action, self.view(filtered), state, frame)
                yield from self.merge(transition.result_handler, result)
            if transition.next_state is not None:
                break
        if state.exit_action is not None:
            result = yield from self.perform(state.exit_action, self.view(filtered), state, frame)
            yield from self.merge(state.exit_result_handler, result)
        self.exited(state, frame)
        return self.machine.states_by_name[transition.next_state]

    def exited(self, state: State, frame: Frame) -> None:
        frame.emit(state_exited(STATE_TYPE, state.name, to_json_text(self.data)))

    def view(self, filtered: JSON) -> JSON:
        """What a state's actions and conditions read (step 2): its `inputFilter`'s result, taken once
        as the state is entered, for the rest of the state; else the data as it is now."""
        return self.data if filtered is UNFILTERED else filtered

    def merge(self, handler: JqExpression | None, value: JSON) -> Interpreter:
        if handler is not None:
            self.data = yield from evaluated(handler, self.data, value)

    # -- transitions ------------------------------------------------------------------------------
    def choose(self, state: State, data: JSON, frame: Frame) -> Interpreter:
        """Step 4: the transition that fires (waiting for events or a timeout when it must);
        conditions read `data`, the state's view of the data."""
        transitions = state.transitions
        implicit = next((t for t in transitions if t.implicit), None)
        if implicit is not None:
            return implicit
        for transition in transitions:
            if transition.conditional and (yield from holds(transition.condition, data)):
                return transition
        on_events = [t for t in transitions if t.on_events]
        on_timeout = next((t for t in transitions if t.on_timeout), None)
        if not on_events and on_timeout is None:
            raise StatesError(NO_TRANSITION, f"No transition of state '{state.name}' can fire: no condition holds "
                                             "and none waits for events or a timeout.")
        if not on_events:
            yield Sleep(after(self.run.now(), on_timeout.timeout))
            return on_timeout
        return (yield from self.await_events(on_events, on_timeout, frame))

    def await_events(self, on_events: list[Transition], on_timeout: Transition | None, frame: Frame) -> Interpreter:
        deadline = after(self.run.now(), on_timeout.timeout) if on_timeout is not None else None
        matched: dict[tuple[int, int], JSON] = {}  # (transition index, group index) -> the event value
        while True:
            wanted = [(t.index, g, definition) for t in on_events for g, group in enumerate(t.event_groups)
                      if (t.index, g) not in matched for definition in group.events]
            remaining = (deadline - self.run.now()).total_seconds() if deadline is not None else None
            definitions = tuple(dict.fromkeys(definition for _, _, definition in wanted))
            scheduled = AWAIT_EVENT_TASK.scheduled(
                self.run.execution.region,
                to_json_text({"eventRefs": [definition.name for definition in definitions], "all": False}),
                max(remaining, 0) if remaining is not None else None)
            try:
                definition, value = yield from task_attempt(
                    frame, AWAIT_EVENT_TASK, scheduled,
                    lambda _attempt: self.host.await_event(definitions, self.correlations, remaining),
                    output_text=lambda received: to_json_text(received[1]))
            except StatesError as error:
                if error.error == names.TIMEOUT and on_timeout is not None:
                    return on_timeout
                raise
            for transition_index, group_index, candidate in wanted:
                if candidate != definition:
                    continue
                group = next(t for t in on_events if t.index == transition_index).event_groups[group_index]
                if group.condition is None or (yield from holds(group.condition, value)):
                    matched.setdefault((transition_index, group_index), value)
            for transition in on_events:
                if all((transition.index, g) in matched for g in range(len(transition.event_groups))):
                    for g, group in enumerate(transition.event_groups):
                        yield from self.merge(group.result_handler, matched[(transition.index, g)])
                    return transition

    # -- actions ----------------------------------------------------------------------------------
    def perform(self, action: Action, data: JSON, state: State, frame: Frame) -> Interpreter:
        """An action with its error handlers and retry policies; returns its result."""
        attempt = 0
        while True:
            try:
                return (yield from self.recorded(action, data, state, frame, attempt))
            except StatesError as error:
                failure = error_value(error)
                handler = None
                for candidate in action.error_handlers:
                    if candidate.condition is None or (yield from holds(candidate.condition, failure)):
                        handler = candidate
                        break
                if handler is None:
                    raise
                yield from self.merge(handler.result_handler, failure)
                if handler.retry_policy is None:
                    return None
                if attempt >= handler.retry_policy.max_attempts:
                    raise
                attempt += 1
                delay = retry_delay(handler.retry_policy, attempt, self.run.random)
                if delay > 0:
                    yield Sleep(after(self.run.now(), delay))

    def recorded(self, action: Action, data: JSON, state: State, frame: Frame, attempt: int) -> Interpreter:
        """One attempt of an action, between its task events."""
        events = self.task_events(action)
        given = yield from self.action_input(action, data)
        return (yield from task_attempt(frame, events, events.scheduled(self.run.execution.region, to_json_text(given)),
                                        lambda _attempt: self.execute(action, data, given, state, frame, attempt),
                                        cancelled_as=StatesError(CANCELLED, CANCELLED_CAUSE)))

    def task_events(self, action: Action) -> TaskEvents:
        """How an action is recorded: as the resource it calls where it calls one (a function, a
        nested execution, the events bus), else as a task of the `sm4c` resource named by its type."""
        match action:
            case InvokeFunctionAction():
                return function_task(action.function.name)
            case InvokeSubflowAction():
                return TaskEvents("states", self.host.subflow_resource(action))
            case SendEventAction():
                return PRODUCE_EVENT_TASK
        return TaskEvents(RESOURCE_TYPE, action.kind)

    def action_input(self, action: Action, data: JSON) -> Interpreter:
        """What an action is given, as its `TaskScheduled` shows it."""
        match action:
            case InvokeFunctionAction() | InvokeSubflowAction():
                return (yield Compute(partial(action.arguments.evaluate, data)))
            case SendEventAction():
                body = (yield from evaluated(action.expression, data)) if action.expression is not None else None
                attributes = yield Compute(partial(action.context_attributes.evaluate, data))
                return self.host.cloud_event(action.event, body, attributes)
            case DelayAction():
                return {"timeout": action.timeout}
            case ForEachAction():
                return (yield from evaluated(action.input, data))
        return None

    def execute(self, action: Action, data: JSON, given: JSON, state: State, frame: Frame, attempt: int) -> Interpreter:
        match action:
            case InjectDataAction():
                return (yield from evaluated(action.expression, data))
            case DelayAction():
                yield Sleep(after(self.run.now(), action.timeout))
                return None
            case InvokeFunctionAction():
                return (yield from self.host.invoke_function(action, given, state.name, attempt))
            case InvokeSubflowAction():
                return (yield from self.host.invoke_subflow(action, given, state.name))
            case SendEventAction():
                yield from self.host.send_event(given)
                return None
            case ForEachAction():
                return (yield from self.foreach(action, given, state, frame))
            case ParallelAction():
                return (yield from self.parallel(action, data, state, frame))
            case SequenceAction():
                results: dict[str, JSON] = {}
                for index, child in enumerate(action.actions):
                    results[_key(child, index)] = yield from self.perform(child, data, state, frame)
                return results
        raise AssertionError(f"unknown action {action!r}")

    def foreach(self, action: ForEachAction, items: JSON, state: State, frame: Frame) -> Interpreter:
        if not isinstance(items, list):
            raise StatesError(names.QUERY_EVALUATION_ERROR,
                              f"The foreach input '{action.input.text}' selected {to_json_text(items)}, not an array.")
        children = [self.child(action.action, item, state, frame) for item in items]
        results = yield Fork(children, max_concurrency=action.max_parallel)
        return [result for _order, result in results]

    def parallel(self, action: ParallelAction, data: JSON, state: State, frame: Frame) -> Interpreter:
        """Every child runs; the output holds the first `n` to complete (all for 'and', one for 'xor')."""
        children = [self.child(child, data, state, frame) for child in action.actions]
        needed = action.n if action.n < len(children) else None
        results = yield Fork(children, interleave=True, needed=needed)
        finished = [index for index, result in enumerate(results) if result is not None]  # the cancelled are None
        return {_key(action.actions[index], index): results[index][1] for index in finished}

    def child(self, action: Action, data: JSON, state: State, frame: Frame) -> Callable[[], Interpreter]:
        """A child action on a branch of its own: resumes with (completion order, result)."""
        def branch() -> Interpreter:
            child_frame = frame.child(interleave=True)
            child_frame.state_name = state.name
            result = yield from self.perform(action, data, state, child_frame)
            self.completions += 1
            return self.completions, result
        return branch


def evaluated(expression: JqExpression, data: JSON, value: JSON = None) -> Interpreter:
    """An expression's value, evaluated off the engine's thread (`Compute`): a jq program that runs
    to its time limit delays only its own execution."""
    return (yield Compute(partial(expression.evaluate, data, value)))


def holds(condition: JqExpression, data: JSON) -> Interpreter:
    """A condition's truth, evaluated off the engine's thread (see `evaluated`)."""
    return (yield Compute(partial(condition.holds, data)))


# The members Newtonsoft.Json writes for a .NET exception (its `ISerializable` data), in that order.
_EXCEPTION_MEMBERS = ("ClassName", "Message", "Data", "InnerException", "HelpURL", "StackTraceString",
                      "RemoteStackTraceString", "RemoteStackIndex", "ExceptionMethod", "HResult", "Source",
                      "WatsonBuckets")
_COR_E_EXCEPTION = -2146233088  # the HResult of a plain System.Exception


def error_value(error: StatesError) -> dict[str, JSON]:
    """The error as SM4C hands it to error handlers: its runtime catches the action's exception and
    passes `JObject.FromObject(ex)` (`ActionExtensions.ExecuteAsync`), the exception serialized by
    Newtonsoft.Json. The error's name stands for the exception's class, its cause for the message
    (a function's failure, reported as Lambda reports one, gives its `errorMessage` and `stackTrace`);
    what only a .NET exception has (inner exception, help link, ...) is null."""
    value: dict[str, JSON] = dict.fromkeys(_EXCEPTION_MEMBERS)
    value.update(ClassName=error.error, Message=error.cause, RemoteStackIndex=0, HResult=_COR_E_EXCEPTION)
    try:
        reported = json.loads(error.cause or "")
    except ValueError:
        reported = None
    if isinstance(reported, dict) and isinstance(reported.get("errorMessage"), str):
        value["Message"] = reported["errorMessage"]
        trace = reported.get("stackTrace")
        if isinstance(trace, list) and all(isinstance(line, str) for line in trace):
            value["StackTraceString"] = "".join(trace)
    return value


def _key(action: BaseAction, index: int) -> str:
    """A hierarchical action's output names each child by its name, else by its index."""
    return action.name if action.name else str(index)


def retry_delay(policy: RetryPolicy, attempt: int, randomness: random.Random) -> float:
    """The delay before retry `attempt` (1, 2, ...): `delay`, grown by `increment` or `multiplier`
    per retry, jittered (a fraction of the delay or a fixed span, either way), capped at `maxDelay`."""
    delay = policy.delay
    if policy.increment is not None:
        delay += policy.increment * (attempt - 1)
    elif policy.multiplier is not None:
        delay *= policy.multiplier ** (attempt - 1)
    spread = policy.jitter * delay if policy.jitter is not None else policy.jitter_seconds
    if spread:
        delay += randomness.uniform(-spread, spread)
    if policy.max_delay is not None:
        delay = min(delay, policy.max_delay)
    return max(delay, 0.0)

