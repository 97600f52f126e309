"""The record of one execution: what the control plane shows and what the engine updates."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any

from msgspec import UNSET, Struct, field

from sfn_emulator.asl.model import StateMachine
from sfn_emulator.protocol.history_events import EVENT_MEMBERS, ID, PREVIOUS_EVENT_ID, TIMESTAMP, TYPE

RUNNING = "RUNNING"
SUCCEEDED = "SUCCEEDED"
FAILED = "FAILED"
TIMED_OUT = "TIMED_OUT"
ABORTED = "ABORTED"
PENDING_REDRIVE = "PENDING_REDRIVE"
TERMINAL_STATUSES = frozenset({SUCCEEDED, FAILED, TIMED_OUT, ABORTED})

_ENDED = threading.Event()  # the `finished` of every execution that has ended
_ENDED.set()


# Details stored as a tuple of values beside a shared tuple of keys when every value is a string,
# number, boolean, null or AWS's `{"truncated": false}`: a small dict costs three times its tuple,
# and a finished execution keeps every event. `_KEYS` interns each key tuple seen (event types have
# a few shapes each).
_NOT_TRUNCATED = {"truncated": False}
_TRUNCATED_MARK = object()  # stands for `{"truncated": false}` among stored values
_SCALARS = (str, int, float, bool, type(None))
_KEYS: dict[tuple[str, ...], tuple[str, ...]] = {}


def _compact(details: dict[str, Any]) -> tuple[tuple[str, ...], tuple[Any, ...]] | None:
    values = []
    for value in details.values():
        if isinstance(value, _SCALARS):
            values.append(value)
        elif type(value) is dict and value == _NOT_TRUNCATED:
            values.append(_TRUNCATED_MARK)
        else:
            return None
    keys = tuple(details)
    return _KEYS.setdefault(keys, keys), tuple(values)


class HistoryEvent(Mapping[str, Any]):
    """One AWS history event, stored as a slotted record (a long history holds many: a dict per
    event costs twice the memory) and read as the mapping GetExecutionHistory answers with:
    `timestamp`, `type`, `id`, `previousEventId` and, when it has them, its details under their key.
    Flat details are kept as a tuple and given out as a new dict on each read."""

    __slots__ = ("timestamp", "type", "id", "previous_event_id", "details_key", "_details", "_detail_keys")

    def __init__(self, timestamp: datetime, type: str, id: int, previous_event_id: int,
                 details_key: str | None = None, details: dict[str, Any] | None = None) -> None:
        self.timestamp = timestamp
        self.type = sys.intern(type)  # a few dozen names, each often built anew (f"{state type}StateEntered"): one copy
        self.id = id
        self.previous_event_id = previous_event_id
        self.details_key = details_key
        compact = _compact(details) if details else None
        self._detail_keys: tuple[str, ...] | None = compact[0] if compact else None
        self._details: Any = compact[1] if compact else details

    @property
    def details(self) -> dict[str, Any] | None:
        if self._detail_keys is None:
            return self._details  # type: ignore[no-any-return]
        return {key: {"truncated": False} if value is _TRUNCATED_MARK else value
                for key, value in zip(self._detail_keys, self._details)}

    def __getitem__(self, key: str) -> Any:
        if key == TIMESTAMP:
            return self.timestamp
        if key == TYPE:
            return self.type
        if key == ID:
            return self.id
        if key == PREVIOUS_EVENT_ID:
            return self.previous_event_id
        if key == self.details_key and key is not None:
            return self.details
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        yield from EVENT_MEMBERS
        if self.details_key is not None:
            yield self.details_key

    def __len__(self) -> int:
        return 4 if self.details_key is None else 5

    def as_dict(self) -> dict[str, Any]:
        """The event as a new dict, as an API answer carries it."""
        event = {TIMESTAMP: self.timestamp, TYPE: self.type, ID: self.id, PREVIOUS_EVENT_ID: self.previous_event_id}
        if self.details_key is not None:
            event[self.details_key] = self.details
        return event

    def __repr__(self) -> str:
        return repr(self.as_dict())


class Execution(Struct, eq=False):
    """One run of a state machine. The control plane creates it; only the engine changes it after start."""

    arn: str
    name: str
    state_machine_arn: str  # the unqualified state machine ARN
    state_machine_name: str
    machine: StateMachine  # the parsed definition that runs
    definition: str  # the definition text that runs (DescribeStateMachineForExecution)
    input: str  # JSON text
    start_date: datetime
    account: str
    region: str
    role_arn: str
    type: str = "STANDARD"  # STANDARD | EXPRESS
    state_machine_version_arn: str | None = None
    state_machine_alias_arn: str | None = None
    trace_header: str | None = None
    test_case: str | None = None  # the mock test case named by `stateMachineArn#CASE`
    parent_execution_arn: str | None = None
    status: str = RUNNING
    stop_date: datetime | None = None
    output: str | None = None
    error: str | None = None
    cause: str | None = None
    redrive_count: int = 0
    redrive_date: datetime | None = None
    history: list[HistoryEvent] = field(default_factory=list)  # append-only: event N is history[N-1]
    # Beside the history, what AWS's events do not say: the rules each state visit applied, by the
    # id of its …StateEntered event: "Choices[i]", "Default", "Retry[i]", "Catch[i]", in order.
    # Graphs and coverage read it (`sfn_emulator.graphs.trace`).
    rules_taken: dict[int, list[str]] = field(default_factory=dict)
    finished: threading.Event = field(default_factory=threading.Event)
    # `input` decoded: by the control plane, which read the text to check it; else on first use
    decoded_input: Any = UNSET

    @property
    def is_running(self) -> bool:
        return self.status == RUNNING

    def input_value(self) -> Any:
        """The input's JSON value, decoded from `input` at most once."""
        if self.decoded_input is UNSET:
            self.decoded_input = json.loads(self.input)
        return self.decoded_input

    def mark_finished(self) -> None:
        """Wake whoever waits for the end, then hold the one shared set event: an event with its
        condition and lock costs about a kilobyte, kept for as long as the execution is."""
        self.finished.set()
        self.finished = _ENDED

    def mark_running(self) -> None:
        """Running again (redriven): a new event for the new end."""
        if self.finished.is_set():
            self.finished = threading.Event()


class MapRun(Struct, eq=False):
    """A Distributed Map state's run: its items run as child executions with histories of their own."""

    arn: str
    execution_arn: str  # the parent execution
    state_machine_arn: str  # `...:stateMachine:PARENT/LABEL`: what the child executions run
    start_date: datetime
    max_concurrency: int
    tolerated_failure_percentage: float
    tolerated_failure_count: int
    status: str = RUNNING  # RUNNING | SUCCEEDED | FAILED | ABORTED
    stop_date: datetime | None = None
    total_items: int = 0  # child executions to run: one per item, or one per batch under an ItemBatcher
    results_written: int = 0  # child executions a ResultWriter wrote to S3
    executions: list[Execution] = field(default_factory=list)
    redrive_count: int = 0
    batch_sizes: list[int] = field(default_factory=list)  # items in each child's batch; empty: one item each

    def item_weight(self, index: int) -> int:
        """How many items child execution `index` processes: its batch's size under an ItemBatcher, else one."""
        return self.batch_sizes[index] if index < len(self.batch_sizes) else 1

    def counts(self, *, items: bool = False) -> dict[str, int]:
        """DescribeMapRun's `executionCounts` (one per child execution) or, with `items`, its `itemCounts`:
        the same tallies weighted by how many items each child execution processes."""
        def weight(index: int) -> int:
            return self.item_weight(index) if items else 1

        by_status = {status: 0 for status in (RUNNING, SUCCEEDED, FAILED, TIMED_OUT, ABORTED)}
        for index, child in enumerate(self.executions):
            by_status[child.status] = by_status.get(child.status, 0) + weight(index)
        total = sum(weight(index) for index in range(self.total_items))
        started = sum(weight(index) for index in range(len(self.executions)))
        return {
            "pending": total - started,
            "running": by_status[RUNNING],
            "succeeded": by_status[SUCCEEDED],
            "failed": by_status[FAILED],
            "timedOut": by_status[TIMED_OUT],
            "aborted": by_status[ABORTED],
            "total": total,
            "resultsWritten": sum(weight(index) for index in range(self.results_written)),
            "failuresNotRedrivable": 0,
            "pendingRedrive": 0,
        }
