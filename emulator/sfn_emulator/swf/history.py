"""An execution's history as the API reference shapes it: each event has `eventId` (from 1),
`eventTimestamp`, `eventType` and one `<eventType>EventAttributes` member (first letter lower case)."""

from __future__ import annotations

from datetime import datetime
from typing import Any


class History:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def add(self, event_type: str, timestamp: datetime, **attributes: Any) -> int:
        """Record an event; attributes given as None are left out. Answers the new event's id."""
        event_id = len(self.events) + 1
        key = event_type[0].lower() + event_type[1:] + "EventAttributes"
        self.events.append({"eventTimestamp": timestamp, "eventType": event_type, "eventId": event_id,
                            key: {name: value for name, value in attributes.items() if value is not None}})
        return event_id

    def timestamp(self, event_id: int) -> datetime:
        """When the event `event_id` happened: the instant a timeout it starts counts from."""
        return self.events[event_id - 1]["eventTimestamp"]

    @property
    def last_id(self) -> int:
        return len(self.events)
