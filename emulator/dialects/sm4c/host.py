"""What an SM4C execution asks of the world, as the engine's effects: function calls through the
task-resource chain, subflows as nested executions, events through the emulator's events bus.

- `invokeFunction`: a task request for the Lambda function named by `functionName` (the state's
  name for mocks), so it resolves as any function does: a mock test case ▸ a registered Python
  callable (by function name) ▸ a clear error naming the function. The callable gets the evaluated
  `arguments` as its event. With `waitForCompletion` false (the document's default) the function
  still runs, its result and errors are not waited for: the action's result is null. A `timeout`
  reached (clock time) makes the result null too.
- `invokeSubflow`: a nested execution of the state machine named `subflowName` (same account and
  region), started as `states:startExecution.sync:2` starts one; the result is the child's output.
- events: a transition's event definitions wait as `AwaitEvent` matches (CloudEvent `type`, `source`
  when given, correlation attributes: a fixed `contextAttributeValue`, or the value the first
  matching event brought, bound for the rest of the execution); `sendEvent` publishes a CloudEvent
  (`ProduceEvent`) of the definition's `type` and `source`, the `expression`'s value as `data` and
  the `contextAttributes` as extension attributes.

A matched event reaches jq (`$value` of a group's `resultHandler`, the input of its `condition`) as
SM4C's own runtime presents events: `EventId`, `EventName`, `EventSource`, `EventType`, `Timestamp`,
`Data` and `ContextAttributes` (the extension attributes).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sfn_emulator.asl import errors as names
from sfn_emulator.asl.errors import StatesError
from sfn_emulator.dialects.sm4c.model import EventDefinition, InvokeFunctionAction, InvokeSubflowAction
from sfn_emulator.engine.cloudevents import REQUIRED_ATTRIBUTES, EventMatch
from sfn_emulator.engine.effects import AwaitCompletion, AwaitEvent, Interpreter, Invoke, ProduceEvent
from sfn_emulator.engine.frame import Run
from sfn_emulator.partitions import partition_for
from sfn_emulator.resources.base import TaskRequest, parse_resource

JSON = Any
DEFAULT_SOURCE = "sfn-emulator/sm4c"  # `source` of a sent event whose definition names none
_STANDARD_ATTRIBUTES = frozenset({*REQUIRED_ATTRIBUTES, "data", "datacontenttype", "dataschema", "subject", "time",
                                  "data_base64"})


class Host:
    def __init__(self, run: Run) -> None:
        self.run = run

    def _request(self, arn: str, payload: JSON, state_name: str, attempt: int = 0,
                 timeout: float | None = None) -> TaskRequest:
        execution = self.run.execution
        return TaskRequest(
            resource=parse_resource(arn), payload=payload, execution_arn=execution.arn,
            state_machine_name=execution.state_machine_name, state_name=state_name, account=execution.account,
            region=execution.region, attempt=attempt, timeout_seconds=timeout, now=self.run.now(),
            test_case=execution.test_case,
        )

    def _arn(self, service: str, resource: str) -> str:
        execution = self.run.execution
        return f"arn:{partition_for(execution.region)}:{service}:{execution.region}:{execution.account}:{resource}"

    def invoke_function(self, action: InvokeFunctionAction, arguments: JSON, state_name: str, attempt: int) -> Interpreter:
        request = self._request(self._arn("lambda", f"function:{action.function.name}"), arguments, state_name,
                                attempt, action.timeout if action.wait_for_completion else None)
        try:
            result = yield Invoke(request, request.timeout_seconds)
        except StatesError as error:
            if action.wait_for_completion and error.error != names.TIMEOUT:
                raise
            return None
        return result if action.wait_for_completion else None

    def invoke_subflow(self, action: InvokeSubflowAction, arguments: JSON, state_name: str) -> Interpreter:
        pattern = ".sync:2" if action.wait_for_completion else ""
        execution = self.run.execution
        arn = f"arn:{partition_for(execution.region)}:states:::states:startExecution{pattern}"
        payload = {"StateMachineArn": self._arn("states", f"stateMachine:{action.subflow_name}"), "Input": arguments}
        request = self._request(arn, payload, state_name, timeout=action.timeout if action.wait_for_completion else None)
        started_at = self.run.now()
        submitted = yield Invoke(request)
        if not action.wait_for_completion:
            return None
        try:
            finished = yield AwaitCompletion(request, submitted, request.timeout_seconds, counted_from=started_at)
        except StatesError as error:
            if error.error == names.TIMEOUT:
                return None
            raise
        return finished.get("Output") if isinstance(finished, dict) else finished

    def await_event(self, definitions: tuple[EventDefinition, ...], correlations: dict[str, JSON],
                    timeout_seconds: float | None) -> Interpreter:
        """The next event matching one of `definitions`: (its definition, its SM4C value)."""
        matches = tuple(self._match(definition, correlations) for definition in definitions)
        if timeout_seconds is not None and timeout_seconds <= 0:
            raise StatesError(names.TIMEOUT, "The transition's timeout passed.")
        consumed = yield AwaitEvent(matches, all_of=False, timeout_seconds=timeout_seconds)
        index, event = next(iter(consumed.items()))
        definition = definitions[index]
        for correlation in definition.correlation:
            correlations.setdefault(correlation.attribute, event.get(correlation.attribute))
        return definition, event_value(definition, event)

    @staticmethod
    def _match(definition: EventDefinition, correlations: dict[str, JSON]) -> EventMatch:
        attributes = tuple((c.attribute, c.value if c.value is not None else correlations.get(c.attribute))
                           for c in definition.correlation)
        return EventMatch(definition.type or "", definition.source, attributes)

    def send_event(self, definition: EventDefinition, data: JSON, attributes: JSON) -> Interpreter:
        event = {
            "specversion": "1.0", "id": self.run.randomness.uuid(), "source": definition.source or DEFAULT_SOURCE,
            "type": definition.type or definition.name, "time": self.run.now().isoformat().replace("+00:00", "Z"),
            "datacontenttype": "application/json", **(attributes or {}), "data": data,
        }
        yield ProduceEvent(event)


def event_value(definition: EventDefinition, event: dict[str, JSON]) -> dict[str, JSON]:
    return {
        "EventId": event.get("id"), "EventName": definition.name, "EventSource": event.get("source"),
        "EventType": event.get("type"), "Timestamp": event.get("time"), "Data": event.get("data"),
        "ContextAttributes": {key: value for key, value in event.items() if key not in _STANDARD_ATTRIBUTES},
    }
