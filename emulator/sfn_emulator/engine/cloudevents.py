"""CloudEvents 1.0 in structured JSON mode: checking an event published to the emulator, and
matching it against what a waiting execution asked for.

An event is a JSON object whose context attributes sit at its top level beside `data`. The
required attributes (CloudEvents 1.0, "Required Attributes") are `specversion` (here "1.0"), `id`,
`source` and `type`, each a non-empty string. Extension attributes (correlation keys such as
`patientId`) are any other top-level member.
"""

from __future__ import annotations

from typing import Any, Mapping

from msgspec import Struct

REQUIRED_ATTRIBUTES = ("specversion", "id", "source", "type")
SPEC_VERSION = "1.0"


class InvalidEvent(ValueError):
    """An event that is not a CloudEvents 1.0 event; the message says what is wrong."""


def checked_event(event: Any, position: int | None = None) -> dict[str, Any]:
    """`event` when it is a well-formed CloudEvents 1.0 structured event, else InvalidEvent."""
    where = f"event {position}" if position is not None else "the event"
    if not isinstance(event, Mapping):
        raise InvalidEvent(f"{where} is not a JSON object: a CloudEvents 1.0 event in structured JSON mode is one")
    missing = [name for name in REQUIRED_ATTRIBUTES if not isinstance(event.get(name), str) or not event.get(name)]
    if missing:
        listed = ", ".join(f"'{name}'" for name in missing)
        raise InvalidEvent(f"{where} lacks the required CloudEvents attribute(s) {listed} (non-empty strings): "
                           f"every event needs {', '.join(REQUIRED_ATTRIBUTES)}")
    if event["specversion"] != SPEC_VERSION:
        raise InvalidEvent(f"{where} has specversion '{event['specversion']}'; this emulator takes CloudEvents "
                           f"'{SPEC_VERSION}'")
    return dict(event)


def checked_events(body: Any) -> list[dict[str, Any]]:
    """One event or a JSON array of events, each checked; InvalidEvent names the first bad one."""
    if isinstance(body, list):
        if not body:
            raise InvalidEvent("the array of events is empty")
        return [checked_event(event, index) for index, event in enumerate(body)]
    return [checked_event(body)]


class EventMatch(Struct, frozen=True):
    """What an execution waits for: an event of `type` and `source` (each when given) whose context
    attributes have the values in `attributes` (a value of None: the attribute only has to be there).
    `correlate`: attributes whose value must equal the one the events already consumed by the same
    wait carry (the event-wait table checks them: it knows those events)."""

    type: str | None
    source: str | None = None
    attributes: tuple[tuple[str, Any], ...] = ()
    correlate: tuple[str, ...] = ()

    def matches(self, event: Mapping[str, Any]) -> bool:
        if (self.type is not None and event.get("type") != self.type) or (
                self.source is not None and event.get("source") != self.source):
            return False
        for name, value in self.attributes:
            if name not in event or (value is not None and event[name] != value):
                return False
        return True
