"""A recorded execution history, read from whatever shape it was saved in and checked before use.

Accepted: GetExecutionHistory's answer as boto3 returns it (`{"events": [...]}`, timestamps as
datetimes), as `aws stepfunctions get-execution-history` prints it (timestamps as ISO 8601 text or
epoch seconds), several pages of either (a JSON list of pages, or the pages' JSON documents one
after another in a file), or a bare list of events. Pages are joined and events ordered by id only
when their ids say so unambiguously; anything a replay cannot trust is a `HistoryError` naming it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sfn_emulator.asl.arns import split_arn
from sfn_emulator.clock.virtual_clock import parse_time
from sfn_emulator.protocol.history_events import (
    EXECUTION_ENDS,
    EXECUTION_STARTED,
    EXECUTION_STARTED_DETAILS,
    PREVIOUS_EVENT_ID,
    is_details_key,
)

_ACCOUNT = re.compile(r"\d{12}")


class HistoryError(ValueError):
    """A history that cannot be replayed: unreadable, truncated, out of order or without its data."""


def read_history_file(path: str | Path) -> list[dict[str, Any]]:
    """The events of the history saved in `path` (see the module docstring for the shapes)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise HistoryError(f"cannot read the history file {path}: {exc}") from None
    return history_events(json_documents(text, str(path)))


def history_events(history: Any) -> list[dict[str, Any]]:
    """The events of `history` (a GetExecutionHistory answer, a list of pages or of events, or an
    iterable of those), joined, with datetimes as timestamps, checked: ids from 1 without a gap,
    each `previousEventId` pointing backwards, ExecutionStarted first."""
    events = [_event(raw, position) for position, raw in enumerate(_raw_events(history))]
    if not events:
        raise HistoryError("the history holds no events")
    return _checked(events)


def recorded_account_and_region(events: Sequence[Mapping[str, Any]]) -> tuple[str | None, str | None]:
    """The account and region the recording ran in, as far as its ARNs tell (the role's account, a
    Lambda function's or a Task's region); None for what none tells."""
    account = region = None
    role = split_arn(str((events[0].get(EXECUTION_STARTED_DETAILS) or {}).get("roleArn", "")))
    if role is not None and _ACCOUNT.fullmatch(role.account):
        account = role.account
    for event in events:
        for key, details in event.items():
            if not is_details_key(key) or not isinstance(details, Mapping):
                continue
            if isinstance(details.get("region"), str) and details["region"]:
                return account, details["region"]
            arn = split_arn(str(details.get("resource", "")))
            if arn is not None and arn.region:
                return account or (arn.account if _ACCOUNT.fullmatch(arn.account) else None), arn.region
    return account, region


def json_documents(text: str, source: str) -> list[Any]:
    """Every JSON document in `text`: one, or several one after another (pages as the AWS CLI prints them)."""
    decoder = json.JSONDecoder()
    documents, position = [], 0
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position == len(text):
            break
        try:
            document, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError as exc:
            raise HistoryError(f"the history file {source} is not JSON (it may be truncated): {exc}") from None
        documents.append(document)
    if not documents:
        raise HistoryError(f"the history file {source} is empty")
    return documents


def _raw_events(history: Any) -> Iterable[Any]:
    if isinstance(history, Mapping):
        if "events" not in history:
            if "type" in history and "id" in history:
                return [history]
            raise HistoryError("a history page must have 'events' (GetExecutionHistory's answer)")
        if not isinstance(history["events"], Sequence):
            raise HistoryError("'events' of a history page must be a list")
        return list(history["events"])
    if isinstance(history, Sequence) and not isinstance(history, (str, bytes)):
        return [event for part in history for event in _raw_events(part)]
    raise HistoryError(f"a history must be GetExecutionHistory's answer or a list of its pages or events, "
                       f"not {type(history).__name__}")


def _event(raw: Any, position: int) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise HistoryError(f"event #{position + 1} of the history is not an object")
    for key, kind in (("id", int), ("type", str)):
        if not isinstance(raw.get(key), kind) or isinstance(raw.get(key), bool):
            raise HistoryError(f"event #{position + 1} of the history has no {key!r}")
    event = dict(raw)
    for key, details in raw.items():
        if is_details_key(key) and not isinstance(details, Mapping):
            raise HistoryError(f"event {raw['id']}'s {key} is not an object")
    event["timestamp"] = _timestamp(raw.get("timestamp"), raw["id"])
    event.setdefault(PREVIOUS_EVENT_ID, 0)
    return event


def _timestamp(value: Any, event_id: int) -> datetime:
    """A timestamp as boto3 gives it (datetime), the AWS CLI prints it (ISO text) or the wire sends it (epoch seconds)."""
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(value, timezone.utc)
        except (OverflowError, OSError, ValueError):
            raise HistoryError(f"event {event_id}'s timestamp {value!r} is not a time") from None
    if isinstance(value, str):
        try:
            return parse_time(value)
        except ValueError:
            try:
                moment = datetime.fromisoformat(value)
            except ValueError:
                raise HistoryError(f"event {event_id}'s timestamp {value!r} is not a time") from None
            return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)
    raise HistoryError(f"event {event_id} has no timestamp")


def _checked(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    ids = [event["id"] for event in events]
    if ids == sorted(ids, reverse=True) and len(ids) > 1:  # fetched with reverseOrder=true
        events.reverse()
        ids.reverse()
    if ids != sorted(ids) or len(set(ids)) != len(ids):
        first = next(index for index in range(1, len(ids)) if ids[index] <= ids[index - 1])
        raise HistoryError(f"the history's events are out of order: event {ids[first]} comes after event "
                           f"{ids[first - 1]} (give the pages in the order GetExecutionHistory returned them)")
    if ids[0] != 1 or events[0]["type"] != EXECUTION_STARTED:
        raise HistoryError(f"the history is truncated: it starts with event {ids[0]} ({events[0]['type']}), "
                           "not with event 1 (ExecutionStarted): give every page")
    missing = next((expected for expected, found in enumerate(ids, 1) if expected != found), None)
    if missing is not None:
        raise HistoryError(f"the history is truncated: event {missing} is missing (give every page)")
    for event in events:
        previous = event[PREVIOUS_EVENT_ID]
        if not isinstance(previous, int) or previous >= event["id"] or previous < 0:
            raise HistoryError(f"event {event['id']} ({event['type']}) points to event {previous!r} as its previous "
                               "event, which is not an earlier one: the history is corrupted")
    if not any(event["type"] in EXECUTION_ENDS for event in events):
        last = events[-1]
        raise HistoryError(f"the history is truncated: it ends with event {last['id']} ({last['type']}) before the "
                           f"execution ended ({', '.join(EXECUTION_ENDS)}); give every page of a finished execution")
    if "input" not in (events[0].get(EXECUTION_STARTED_DETAILS) or {}):
        raise HistoryError("the history holds no execution data (ExecutionStarted has no input): fetch it with "
                           "includeExecutionData=true, the default")
    return events
