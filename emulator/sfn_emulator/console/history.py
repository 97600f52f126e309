"""What the console reads from executions' histories, digested once per event.

A history only grows (event N is `history[N-1]`), so each execution's digest is kept between reads
and brought up to date with the events added since: the waiting-work page, polled every second,
costs its tokens and the new events, not tokens times histories, and an execution's page costs the
events it shows, however long its history. Digests are kept for the executions read most recently.
"""

from __future__ import annotations

import json
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from sfn_emulator.dialects import graph_of
from sfn_emulator.engine.execution import Execution, HistoryEvent
from sfn_emulator.engine.states.tasks import TASK_TOKEN_PATTERN
from sfn_emulator.graphs import ExecutionTrace, Graph, Tracer
from sfn_emulator.protocol.history_events import branching_state_type, entered_state_type, exited_state_type, is_state_event

KEPT_DIGESTS = 4096  # executions whose digest is kept (the least recently read go first)
_TOKEN = re.compile(TASK_TOKEN_PATTERN)


def _json_object(text: Any) -> dict[str, Any]:
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


class HistoryDigest:
    """One execution's history as the console reads it: the state each event belongs to (the one its
    branch last entered, following `previousEventId`; a Parallel's or Map's own events, which AWS
    links to the last event of a branch or iteration, to the latest such state still open), the
    states entered in order, the state of the
    last event naming each task token, the executions its `states:startExecution` tasks started, and
    (once asked for) the path it took over its graph."""

    def __init__(self) -> None:
        self._graph: Graph | None = None
        self._tracer: Tracer | None = None
        self.states: list[str | None] = []  # the state of event id N at [N-1]
        self.entered: list[str] = []
        self.children: list[str] = []
        self.last_state: str | None = None  # of the last event in a state
        self._tokens: dict[str, str | None] = {}
        self._inherited: list[str | None] = []  # what an event's successors inherit: None after a state's exit
        self._open: list[tuple[str, str]] = []  # (state type, name) entered and not yet exited, in order
        self._last_event: HistoryEvent | None = None

    def continues(self, history: Sequence[HistoryEvent]) -> bool:
        """Whether `history` is the one digested so far (not another execution's of the same ARN)."""
        read = len(self.states)
        return len(history) >= read and (read == 0 or history[read - 1] is self._last_event)

    def digest(self, history: Sequence[HistoryEvent]) -> None:
        """Take in the events added since the last call."""
        for event in history[len(self.states):]:
            details = event.details if event.details_key else None
            named = details.get("name") if is_state_event(event.type) and details else None
            state = self._state_of(event, named)
            self.states.append(state)
            self._inherited.append(None if exited_state_type(event.type) is not None else state)
            if entered_state_type(event.type) is not None and named is not None:
                self.entered.append(named)
            if state is not None:
                self.last_state = state
            if details:
                for token in _TOKEN.findall(json.dumps(details, default=str)):
                    self._tokens[token] = state
                self._note_child(details)
            self._last_event = event

    def _state_of(self, event: HistoryEvent, named: str | None) -> str | None:
        kind = event.type
        owner = branching_state_type(kind)
        previous = event.previous_event_id
        if named is not None:
            state: str | None = named
        elif owner is not None:
            state = next((name for type_, name in reversed(self._open) if type_ == owner), None)
        else:
            state = self._inherited[previous - 1] if 0 < previous <= len(self._inherited) else None
        entered, exited = entered_state_type(kind), exited_state_type(kind)
        if entered is not None and state is not None:
            self._open.append((entered, state))
        elif exited is not None and (exited, state) in self._open:
            del self._open[len(self._open) - 1 - self._open[::-1].index((exited, state))]
        return state

    def _note_child(self, details: dict[str, Any]) -> None:
        """A child execution, from the `ExecutionArn` in the output of a TaskSubmitted or TaskSucceeded
        event of a `states:startExecution` task."""
        if details.get("resourceType") == "states" and str(details.get("resource", "")).startswith("startExecution"):
            child = _json_object(details.get("output")).get("ExecutionArn")
            if isinstance(child, str) and child not in self.children:
                self.children.append(child)

    def path(self, execution: Execution) -> tuple[Graph, ExecutionTrace]:
        """The execution's graph, and the path over it of the events digested so far."""
        if self._tracer is None:
            self._graph = graph_of(execution.definition)
            self._tracer = Tracer(self._graph, execution.rules_taken)
        self._tracer.follow(execution.history[self._tracer.events_followed:len(self.states)])
        return self._graph, self._tracer.trace()

    def state_awaiting(self, token: str) -> str | None:
        """The state awaiting `token`: that of the last event naming it (the parameters that handed it
        out), else the state of the last event in one (an activity task a worker took)."""
        return self._tokens[token] if token in self._tokens else self.last_state


class HistoryDigests:
    """Digests by execution, brought up to date on each read; safe on the server's request threads."""

    def __init__(self) -> None:
        self._digests: OrderedDict[str, HistoryDigest] = OrderedDict()
        self._lock = threading.Lock()

    def of(self, execution: Execution) -> HistoryDigest:
        """The execution's digest, up to date."""
        with self._lock:
            digest = self._digests.pop(execution.arn, None)
            history = execution.history
            if digest is None or not digest.continues(history):
                digest = HistoryDigest()
            digest.digest(history)
            self._digests[execution.arn] = digest
            while len(self._digests) > KEPT_DIGESTS:
                self._digests.popitem(last=False)
            return digest

    def path(self, execution: Execution) -> tuple[Graph, ExecutionTrace]:
        """The execution's graph and the path it took so far, followed from the last read on."""
        digest = self.of(execution)
        with self._lock:
            return digest.path(execution)
