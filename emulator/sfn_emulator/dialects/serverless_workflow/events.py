"""Events in a workflow: waiting for consumed events (with correlation) and producing events, each
written as a task of the `events` resource, and event data merged into the state data."""

from __future__ import annotations

from typing import Any

from sfn_emulator.clock.virtual_clock import format_time
from sfn_emulator.dialects.serverless_workflow import model as m
from sfn_emulator.dialects.serverless_workflow.expressions import merged
from sfn_emulator.dialects.serverless_workflow.workflow_run import WorkflowRun
from sfn_emulator.dialects.task_events import AWAIT_EVENT_TASK, PRODUCE_EVENT_TASK
from sfn_emulator.engine.cloudevents import EventMatch
from sfn_emulator.engine.effects import AwaitEvent, Interpreter, ProduceEvent
from sfn_emulator.engine.frame import Frame, to_json_text
from sfn_emulator.engine.task_attempt import Attempt, task_attempt

JSON = Any


def await_events(workflow: WorkflowRun, refs: tuple[str, ...], all_of: bool, timeout: float | None,
           frame: Frame) -> Interpreter:
    """Wait for events by their definitions' names; {index in refs: event}. Written as a task of the
    `events` resource: TaskScheduled, TaskStarted, then TaskSucceeded (the events) or TaskTimedOut."""
    matches = tuple(event_match(workflow, ref) for ref in refs)

    def receive(attempt: Attempt) -> Interpreter:
        received = yield AwaitEvent(matches, all_of, timeout)
        for index, event in received.items():
            fix_correlation(workflow, refs[index], event)
        return received

    scheduled = AWAIT_EVENT_TASK.scheduled(frame.run.execution.region,
                                           to_json_text({"eventRefs": list(refs), "all": all_of}), timeout)
    return (yield from task_attempt(frame, AWAIT_EVENT_TASK, scheduled, receive, output_text=_consumed_text))


def _consumed_text(received: dict[int, JSON]) -> str:
    """The events a wait consumed, in the order of their definitions."""
    return to_json_text([received[index] for index in sorted(received)])


def event_match(workflow: WorkflowRun, ref: str) -> EventMatch:
    """What a consumed event definition accepts: its type and source, and its correlation rules (a
    value given, or the value an earlier event of this execution fixed, or just the attribute's presence)."""
    definition = workflow.model.events[ref]
    attributes, correlate = [], []
    for rule in definition.correlation:
        name = rule.context_attribute_name
        value = rule.context_attribute_value.evaluate(workflow.input) if rule.context_attribute_value is not None else None
        attributes.append((name, value if value is not None else workflow.correlation.get(name)))
        if value is None and name not in workflow.correlation:
            correlate.append(name)  # the first event of the wait fixes it for the others
    return EventMatch(definition.type, definition.source, tuple(attributes), tuple(correlate))


def fix_correlation(workflow: WorkflowRun, ref: str, event: dict[str, JSON]) -> None:
    for rule in workflow.model.events[ref].correlation:
        workflow.correlation.setdefault(rule.context_attribute_name, event.get(rule.context_attribute_name))


def with_event(data: JSON, event: dict[str, JSON], selector: Any) -> JSON:
    """The event merged into state data: its payload, or what the event data filter selects from
    the payload's members and the event's context attributes together."""
    payload = event.get("data")
    if selector is None:
        return merged(data, payload)
    visible = {**payload, **event} if isinstance(payload, dict) else dict(event)
    selected = selector.select(visible)
    return merged(data, selected) if selected is not None else data


def produce(workflow: WorkflowRun, produced: m.ProducedEvent, data: JSON, frame: Frame) -> Interpreter:
    """Publish a produced event: recorded as a task of the `events` resource, and delivered."""
    definition = workflow.model.events[produced.event_ref]
    run = frame.run
    payload = produced.data.evaluate(data) if produced.data is not None else data
    event: dict[str, JSON] = {
        "specversion": "1.0", "id": run.randomness.uuid(),
        "source": definition.source or run.execution.state_machine_arn, "type": definition.type,
        "time": format_time(run.now()), "datacontenttype": "application/json",
    }
    attributes = produced.context_attributes.evaluate(data) if produced.context_attributes is not None else {}
    if isinstance(attributes, dict):
        event.update({key: value for key, value in attributes.items() if key != "data"})
    event["data"] = payload
    yield from publish(event, frame)
    return event


def publish(event: dict[str, JSON], frame: Frame) -> Interpreter:
    """Deliver a produced CloudEvent, written as a task of the `events` resource (every workflow
    version writes it so); resumes with the ARNs of the executions that consumed it."""
    def deliver(attempt: Attempt) -> Interpreter:
        return (yield ProduceEvent(event))

    scheduled = PRODUCE_EVENT_TASK.scheduled(frame.run.execution.region, to_json_text(event))
    return (yield from task_attempt(frame, PRODUCE_EVENT_TASK, scheduled, deliver,
                                    output_text=lambda consumers: to_json_text({"consumedBy": consumers})))
