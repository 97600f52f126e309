"""What an SM4C execution asks of the world, as the engine's effects: function calls through the
task-resource chain, subflows as nested executions, events through the emulator's events bus.

- `invokeFunction`: `dialects.functions.call_function` (shared with Serverless Workflow): a mock
  test case (the action's name, else the state's) ▸ a Python callable registered under the function's
  name ▸ one under its `operation` ▸ a clear error naming the function. The callable gets the
  evaluated `arguments` as its event. With `waitForCompletion` false (the document's default) the
  function still runs, and the action's result is null whatever it answers; a `timeout` reached
  (clock time) makes the result null too.
- `invokeSubflow`: a nested execution of the state machine named `subflowName` (same account and
  region), started as `states:startExecution.sync:2` starts one; the result is the child's output
  (null when not waiting, or when the `timeout` passes first). A subflow waited for is stopped
  when the wait is cancelled (a parallel no longer needs the child action, the parent stops).
- events: a transition's event definitions wait as `AwaitEvent` matches: the CloudEvent's `type` and
  `source` are compared only where the definition gives them, never with its name (SM4C's rule:
  `EventSubscription.FindGroupMatch` skips an event only when a defined `source` or `type` differs),
  and correlation attributes: a fixed `contextAttributeValue`, or the value the first matching event
  brought, bound for the rest of the execution; `sendEvent` publishes a CloudEvent
  (`ProduceEvent`) of the definition's `type` (else its name) and `source` (else the state machine's
  ARN), the `expression`'s value as `data` and `contextAttributes` as extension attributes.

A matched event reaches jq (`$value` of a group's `resultHandler`, the input of its `condition`) as
SM4C's own runtime presents events: `EventId`, `EventName`, `EventSource`, `EventType`, `Timestamp`,
`Data` and `ContextAttributes` (the extension attributes).
"""

from __future__ import annotations

from typing import Any

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.asl.task_targets import parse_resource
from sfn_emulator.clock.virtual_clock import format_time
from sfn_emulator.dialects.functions import call_function
from sfn_emulator.dialects.sm4c.model import EventDefinition, InvokeFunctionAction, InvokeSubflowAction
from sfn_emulator.engine.cloudevents import REQUIRED_ATTRIBUTES, EventMatch
from sfn_emulator.engine.effects import AwaitCompletion, AwaitEvent, Interpreter, Invoke, ProduceEvent
from sfn_emulator.engine.frame import Run
from sfn_emulator.protocol.partitions import partition_for
from sfn_emulator.resources.base import TaskRequest
from sfn_emulator.resources.outcomes import Pending, settled_result, unless_failed

JSON = Any
CANCELLED = "SM4C.Cancelled"  # an action cancelled because its parent no longer needs it ('xor', 'n_of_m', a failure)
_SUBFLOW_CANCELLED = "The invokeSubflow action that waited for this execution was cancelled."
_STANDARD_ATTRIBUTES = frozenset({*REQUIRED_ATTRIBUTES, "data", "data_base64", "datacontenttype", "dataschema",
                                  "subject", "time"})


class Host:
    def __init__(self, run: Run) -> None:
        self.run = run

    def invoke_function(self, action: InvokeFunctionAction, arguments: JSON, state_name: str, attempt: int) -> Interpreter:
        timeout = action.timeout if action.wait_for_completion else None
        try:
            result = yield from call_function(action.function.name, action.function.operation or None, arguments,
                                              run=self.run, state_name=action.name or state_name, attempt=attempt,
                                              timeout=timeout)
        except StatesError as error:
            if action.wait_for_completion and error.error != names.TIMEOUT:
                raise
            return None
        return result if action.wait_for_completion else None

    def subflow_resource(self, action: InvokeSubflowAction) -> str:
        """The `resource` a subflow is started as (and recorded under)."""
        return "startExecution.sync:2" if action.wait_for_completion else "startExecution"

    def invoke_subflow(self, action: InvokeSubflowAction, arguments: JSON, state_name: str) -> Interpreter:
        execution = self.run.execution
        partition = partition_for(execution.region)
        target = f"arn:{partition}:states:{execution.region}:{execution.account}:stateMachine:{action.subflow_name}"
        resource = parse_resource(f"arn:{partition}:states:::states:{self.subflow_resource(action)}")
        request = TaskRequest(
            resource=resource, payload={"StateMachineArn": target, "Input": arguments}, execution_arn=execution.arn,
            state_machine_name=execution.state_machine_name, state_name=action.name or state_name,
            account=execution.account, region=execution.region, now=self.run.now(), test_case=execution.test_case,
            seed=self.run.request_seed())
        started_at = self.run.now()
        outcome = unless_failed((yield Invoke(request)))
        if not action.wait_for_completion:
            return None
        if isinstance(outcome, Pending):
            try:
                result = yield AwaitCompletion(request, outcome, action.timeout, counted_from=started_at,
                                               stopped_when_cancelled=(CANCELLED, _SUBFLOW_CANCELLED))
            except StatesError as error:
                if error.error == names.TIMEOUT:
                    return None
                raise
        else:
            result = settled_result(outcome)
        return result.get("Output") if isinstance(result, dict) and "Output" in result else result

    def await_event(self, definitions: tuple[EventDefinition, ...], correlations: dict[str, JSON],
                    timeout_seconds: float | None) -> Interpreter:
        """The next event matching one of `definitions`: (its definition, its SM4C value)."""
        if timeout_seconds is not None and timeout_seconds <= 0:
            raise StatesError(names.TIMEOUT, "The transition's timeout passed.")
        matches = tuple(_match(definition, correlations) for definition in definitions)
        consumed = yield AwaitEvent(matches, all_of=False, timeout_seconds=timeout_seconds)
        index, event = next(iter(consumed.items()))
        definition = definitions[index]
        for correlation in definition.correlation:
            correlations.setdefault(correlation.attribute, event.get(correlation.attribute))
        return definition, event_value(definition, event)

    def cloud_event(self, definition: EventDefinition, data: JSON, attributes: JSON) -> dict[str, JSON]:
        event: dict[str, JSON] = {
            "specversion": "1.0", "id": self.run.randomness.uuid(),
            "source": definition.source or self.run.execution.state_machine_arn, "type": definition.type or definition.name,
            "time": format_time(self.run.now()), "datacontenttype": "application/json",
        }
        event.update({key: value for key, value in (attributes or {}).items() if key not in _STANDARD_ATTRIBUTES})
        event["data"] = data
        return event

    def send_event(self, event: dict[str, JSON]) -> Interpreter:
        """Publish `event`; resumes with the ARNs of the executions that consumed it."""
        return (yield ProduceEvent(event))


def _match(definition: EventDefinition, correlations: dict[str, JSON]) -> EventMatch:
    attributes = tuple((c.attribute, c.value if c.value is not None else correlations.get(c.attribute))
                       for c in definition.correlation)
    return EventMatch(definition.type, definition.source, attributes)


def event_value(definition: EventDefinition, event: dict[str, JSON]) -> dict[str, JSON]:
    return {
        "EventId": event.get("id"), "EventName": definition.name, "EventSource": event.get("source"),
        "EventType": event.get("type"), "Timestamp": event.get("time"), "Data": event.get("data"),
        "ContextAttributes": {key: value for key, value in event.items() if key not in _STANDARD_ATTRIBUTES},
    }
