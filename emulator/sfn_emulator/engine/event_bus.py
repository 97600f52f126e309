"""The events bus as Python sees it (`Emulator.events`): publish CloudEvents to waiting executions
and read the events an execution produced. `POST /_emulator/events` and the pytest plugin's
`publish_event` answer the same way."""

from __future__ import annotations

from typing import Any

from sfn_emulator.engine.cloudevents import checked_events
from sfn_emulator.engine.scheduler import Engine


class EventBus:
    """CloudEvents in, to the executions waiting for them. Events published while nobody waits for
    them are not kept (a later wait does not see them)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def publish(self, events: dict[str, Any] | list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Deliver one CloudEvents 1.0 event or a list of them, in order; for each, `{"id": ...,
        "consumedBy": [execution ARN, ...]}`. Raises `InvalidEvent` (nothing delivered) when one is
        not a CloudEvents 1.0 event."""
        checked = checked_events(events)
        consumers = self._engine.publish_events(checked)
        return [{"id": event["id"], "consumedBy": arns} for event, arns in zip(checked, consumers)]

    def produced(self, execution_arn: str) -> list[dict[str, Any]]:
        """The events the execution produced, in order."""
        return self._engine.produced_events(execution_arn)
