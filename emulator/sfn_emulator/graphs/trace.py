"""What one execution did, read back from its history: the states it entered, the edges it took.

History events link to the previous event of their own line of control (`previousEventId`: the
top level, a Parallel branch or a Map iteration), so one forward pass in id order knows, for each
event, which state its line is in and which state it has just left: a `…StateEntered` after the
`…StateExited` of X took an edge out of X (after no exit, its scope's start), and the exit of a
state with `End: true` took its end. As AWS links them, a Parallel's or Map's own events after its
branches or iterations (`ParallelStateFailed`, `MapIterationStarted`, `MapStateExited`, ...) link
to the last event of a branch or iteration: they are taken back to the line of their state, and an
`EvaluationFailed` (linked where its state's entry links) to the line of the state it names.

Which edge out of X, and which Retriers retried, history does not always say: Choice rules may
share a `Next`, and a Parallel's or Map's failed attempts leave no error in its own events. The
interpreter notes the rules it applied beside the history (`Execution.rules_taken`: for each
`…StateEntered` event id, `Choices[i]`, `Default`, `Retry[i]`, `Catch[i]` in order), and the trace
follows those notes. For a history without them (read through the API), it applies the
interpreter's rules to what the history shows: an error in a failure event's details is pending in
its state; anything the state does next but exit is a retry by the first Retrier naming it; an
exit with an error pending was caught by the first Catcher naming it; a Choice state left for a
state several rules lead to counts as the first of them.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Iterable, Mapping, Sequence

from msgspec import Struct, field

from sfn_emulator.asl.errors import error_equals_matches
from sfn_emulator.graphs.structure import CATCH, CHOICE, DEFAULT, END, NEXT, RETRY, START, Edge, Graph
from sfn_emulator.protocol.history_events import (
    EVALUATION_FAILED,
    EVALUATION_FAILED_DETAILS,
    EXECUTION_FAILURES,
    PREVIOUS_EVENT_ID,
    branching_state_type,
    details_of,
    entered_state_type,
    exited_state_type,
)

JSON = Any
_NOTE = re.compile(r"(Choices|Retry|Catch)\[(\d+)\]|Default")
_NOTE_KINDS = {"Choices": CHOICE, "Retry": RETRY, "Catch": CATCH}


class ExecutionTrace(Struct):
    entered: Counter[str] = field(default_factory=Counter)  # state name -> times entered, in order of entry
    taken: Counter[Edge] = field(default_factory=Counter)  # edge of the graph -> times taken
    unfinished: list[str] = field(default_factory=list)  # entered, never exited, in order of entry
    failed: bool = False  # the execution failed, timed out or was aborted

    @property
    def failed_states(self) -> list[str]:
        """Where the execution stopped: the states it was still in when it failed."""
        return list(self.unfinished) if self.failed else []


class _Line(Struct, frozen=True):
    """Where one line of control is after an event."""

    inside: str | None = None  # the state it is in
    entry: int | None = None  # the id of the `…StateEntered` event of that visit (the key of its notes)
    left: str | None = None  # the state it has just left
    error: str | None = None  # an error pending in `inside`, or with which `left` was left
    exit_rule: str | None = None  # the noted rule with which `left` was left (Choices[i], Default, Catch[i])
    inside_type: str | None = None  # the type of the state it is in (Parallel, Map, ...)
    parent: _Line | None = None  # the line of the Parallel or Map this branch or iteration belongs to
    inside_type: str | None = None  # the type of the state it is in (Parallel, Map, ...)
    parent: _Line | None = None  # the line of the Parallel or Map this branch or iteration belongs to


def trace(graph: Graph, history: Iterable[Mapping[str, JSON]],
          rules_taken: Mapping[int, Sequence[str]] | None = None) -> ExecutionTrace:
    """The trace of one execution of `graph` from its history events (in any order) and, when
    known, the interpreter's notes of the rules it applied (`Execution.rules_taken`)."""
    tracer = Tracer(graph, rules_taken)
    tracer.follow(sorted(history, key=lambda event: event["id"]))
    return tracer.trace()


class Tracer:
    """A trace taken in id order, a few events at a time: a growing history (a running execution's)
    is read once per event. A visit's notes grow until it ends (a retry is noted when it happens), so
    they are read when the visit exits, and those of visits still open when the trace is asked for."""

    def __init__(self, graph: Graph, rules_taken: Mapping[int, Sequence[str]] | None = None) -> None:
        self._graph = graph
        self._rules_taken = rules_taken
        self._result = ExecutionTrace()
        self._lines: dict[int, _Line] = {}
        self._open_entries: dict[str, int] = {}  # state name -> id of its latest entry not yet exited
        self._open_visits: dict[int, str] = {}  # entry event id -> state, for every visit not yet exited
        self.events_followed = 0

    def follow(self, events: Iterable[Mapping[str, JSON]]) -> None:
        """Take in the next events, in id order."""
        for event in events:
            self._lines[event["id"]] = self._step(self._owning_line(event), event)
            self.events_followed += 1

    def _owning_line(self, event: Mapping[str, JSON]) -> _Line:
        """The line an event belongs to: the one its `previousEventId` names; for a Parallel's or Map's
        own event linked into a branch or iteration, the line of that Parallel or Map; for an
        `EvaluationFailed`, the line of the state it names."""
        kind: str = event["type"]
        if kind == EVALUATION_FAILED:
            state = (event.get(EVALUATION_FAILED_DETAILS) or {}).get("state")
            if state in self._open_entries:
                return self._lines.get(self._open_entries[state], _Line())
        line = self._lines.get(event.get(PREVIOUS_EVENT_ID) or 0, _Line())
        owner = branching_state_type(kind)
        while owner is not None and line.parent is not None and line.inside_type != owner:
            line = line.parent
        return line

    def trace(self) -> ExecutionTrace:
        """The trace of the events followed so far."""
        taken = Counter(self._result.taken)
        for entry, name in self._open_visits.items():
            taken.update(self._retriers(name, entry))
        return ExecutionTrace(entered=Counter(self._result.entered), taken=taken,
                              unfinished=sorted(self._open_entries, key=self._open_entries.__getitem__),
                              failed=self._result.failed)

    def _notes(self, entry: int | None) -> tuple[str, ...] | None:
        if self._rules_taken is None:
            return None
        return tuple(self._rules_taken.get(entry, ())) if entry is not None else ()

    def _retriers(self, name: str, entry: int) -> list[Edge]:
        """The Retriers a visit's notes say it applied."""
        noted = (_noted_edge(self._graph, name, note, RETRY) for note in self._notes(entry) or ())
        return [edge for edge in noted if edge is not None]

    def _step(self, line: _Line, event: Mapping[str, JSON]) -> _Line:
        graph, result = self._graph, self._result
        kind: str = event["type"]
        details = details_of(event) or {}
        entered_type = entered_state_type(kind)
        if entered_type is not None:
            name = details.get("name", "")
            result.entered[name] += 1
            self._open_entries[name] = event["id"]
            self._open_visits[event["id"]] = name
            edge = _edge_into(graph, line, name)
            if edge is not None:
                result.taken[edge] += 1
            parent = line if line.inside_type in ("Parallel", "Map") else line.parent  # a branch's or iteration's start
            return _Line(inside=name, entry=event["id"], inside_type=entered_type, parent=parent)
        if exited_state_type(kind) is not None:
            name = details.get("name", "")
            self._open_entries.pop(name, None)
            notes = self._notes(line.entry)
            if line.entry is not None and self._open_visits.pop(line.entry, None) is not None:
                result.taken.update(self._retriers(name, line.entry))
            exit_rule = next((note for note in reversed(notes or ()) if not note.startswith("Retry")), None)
            caught = line.error is not None or (exit_rule or "").startswith("Catch")
            if not caught:
                end = next((edge for edge in graph.edges_from(name) if edge.kind == END), None)
                if end is not None:
                    result.taken[end] += 1
            return _Line(left=name, error=line.error, exit_rule=exit_rule, parent=line.parent)
        if kind in EXECUTION_FAILURES:
            result.failed = True
            return line
        if line.inside is None or self._rules_taken is not None:  # between states, or the notes say it all
            return line
        if "error" in details and (kind.endswith("Failed") or kind.endswith("TimedOut")):
            return _Line(inside=line.inside, entry=line.entry, error=details.get("error"), inside_type=line.inside_type,
                         parent=line.parent)
        if line.error is not None:
            retrier = _first_matching(graph.edges_from(line.inside), RETRY, line.error)
            if retrier is not None:
                result.taken[retrier] += 1
            return _Line(inside=line.inside, entry=line.entry, inside_type=line.inside_type, parent=line.parent)
        return line


def _edge_into(graph: Graph, line: _Line, target: str) -> Edge | None:
    if line.left is None:
        return next((edge for edge in graph.edges if edge.kind == START and edge.target == target), None)
    if line.exit_rule is not None:
        noted = _noted_edge(graph, line.left, line.exit_rule, None)
        if noted is not None:
            return noted
    out = [edge for edge in graph.edges_from(line.left) if edge.target == target]
    if line.error is not None:
        return _first_matching(out, CATCH, line.error)
    return next((edge for edge in out if edge.kind in (CHOICE, DEFAULT)), None) or \
        next((edge for edge in out if edge.kind == NEXT), None)


def _noted_edge(graph: Graph, state: str, note: str, only: str | None) -> Edge | None:
    """The edge of `state` a note names (`Choices[1]`, `Default`, `Retry[0]`, `Catch[2]`)."""
    match = _NOTE.fullmatch(note)
    if match is None:
        return None
    kind = DEFAULT if match.group(1) is None else _NOTE_KINDS[match.group(1)]
    index = None if match.group(2) is None else int(match.group(2))
    if only is not None and kind != only:
        return None
    return next((edge for edge in graph.edges_from(state) if edge.kind == kind and edge.index == index), None)


def _first_matching(edges: Iterable[Edge], kind: str, error: str | None) -> Edge | None:
    """The first Retrier or Catcher (by its place in the state's list) whose ErrorEquals names `error`."""
    for edge in sorted((edge for edge in edges if edge.kind == kind), key=lambda edge: edge.index or 0):
        if error_equals_matches(edge.errors, error):
            return edge
    return None
