"""What one execution did, read back from its history: the states it entered, the edges it took.

History events link to the previous event of their own line of control (`previousEventId`: the
top level, a Parallel branch or a Map iteration), so one forward pass in id order knows, for each
event, which state its line is in, which state it just left and whether an error is pending there:
- `…StateEntered` after `…StateExited` of X took an edge out of X: a Catcher's if an error was
  pending (the first Catcher whose `ErrorEquals` names it, as the interpreter chooses), a Choice
  rule or Default for a Choice state, else `Next`; after no exit it is the scope's start.
- `…StateExited` of a state with `End: true` and no pending error took its `End`.
- a failure event (`TaskFailed`, `LambdaFunctionTimedOut`, `MapStateFailed`, …: an `error` in its
  details) makes the error pending in its state; anything the state does next but exit is a
  retry, by the first Retrier whose `ErrorEquals` names the error.
Where several Choice rules lead to the same state, history alone cannot tell which one matched:
the interpreter notes the rule it chose beside the history (`Execution.choice_rules`: the
ChoiceStateEntered event id -> rule index, -1 for Default), and the trace reads that note.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from sfn_emulator.asl.errors import error_equals_matches
from sfn_emulator.graphs.structure import CATCH, CHOICE, DEFAULT, END, NEXT, RETRY, START, Edge, Graph

JSON = Any

_TERMINAL_FAILURES = ("ExecutionFailed", "ExecutionTimedOut", "ExecutionAborted")


@dataclass(slots=True)
class ExecutionTrace:
    entered: Counter[str] = field(default_factory=Counter)  # state name -> times entered
    taken: Counter[Edge] = field(default_factory=Counter)  # edge of the graph -> times taken
    unfinished: list[str] = field(default_factory=list)  # entered, never exited, in order of entry
    failed: bool = False  # the execution failed, timed out or was aborted

    @property
    def failed_states(self) -> list[str]:
        """Where the execution stopped: the states it was still in when it failed."""
        return list(self.unfinished) if self.failed else []

    @property
    def visited_states(self) -> list[str]:
        return list(self.entered)


@dataclass(slots=True)
class _Line:
    """Where one line of control is after an event."""

    inside: str | None = None  # the state it is in
    entered_id: int = 0  # the event that entered it
    left: str | None = None  # the state it has just left
    error: str | None = None  # an error pending in `inside`, or with which `left` was left
    choice_rule: int | None = None  # the rule with which a Choice state was left


def trace(graph: Graph, history: Iterable[Mapping[str, JSON]],
          choice_rules: Mapping[int, int] | None = None) -> ExecutionTrace:
    """The trace of one execution of `graph` from its history events (in any order) and the
    interpreter's note of the Choice rules it chose (`Execution.choice_rules`)."""
    result = ExecutionTrace()
    lines: dict[int, _Line] = {0: _Line()}
    open_entries: dict[str, int] = {}
    for event in sorted(history, key=lambda event: event["id"]):
        line = lines.get(event.get("previousEventId") or 0, _Line())
        lines[event["id"]] = _step(graph, result, line, event, open_entries, choice_rules or {})
    result.unfinished = sorted(open_entries, key=open_entries.__getitem__)
    return result


def _step(graph: Graph, result: ExecutionTrace, line: _Line, event: Mapping[str, JSON],
          open_entries: dict[str, int], choice_rules: Mapping[int, int]) -> _Line:
    kind: str = event["type"]
    details = next((value for key, value in event.items() if key.endswith("EventDetails")), None) or {}
    if kind.endswith("StateEntered"):
        name = details.get("name", "")
        result.entered[name] += 1
        open_entries[name] = event["id"]
        edge = _edge_into(graph, line, name)
        if edge is not None:
            result.taken[edge] += 1
        return _Line(inside=name, entered_id=event["id"])
    if kind.endswith("StateExited"):
        name = details.get("name", "")
        open_entries.pop(name, None)
        rule = choice_rules.get(line.entered_id)
        if line.error is None:
            end = next((edge for edge in graph.edges_from(name) if edge.kind == END), None)
            if end is not None:
                result.taken[end] += 1
        return _Line(left=name, error=line.error, choice_rule=rule)
    if kind in _TERMINAL_FAILURES:
        result.failed = True
        return line
    if line.inside is None:
        return line
    if "error" in details and (kind.endswith("Failed") or kind.endswith("TimedOut")):
        return _Line(inside=line.inside, entered_id=line.entered_id, error=details.get("error"))
    if line.error is not None:
        retrier = _first_matching(graph.edges_from(line.inside), RETRY, line.error)
        if retrier is not None:
            result.taken[retrier] += 1
        return _Line(inside=line.inside, entered_id=line.entered_id)
    return line


def _edge_into(graph: Graph, line: _Line, target: str) -> Edge | None:
    if line.left is None:
        return next((edge for edge in graph.edges if edge.kind == START and edge.target == target), None)
    out = [edge for edge in graph.edges_from(line.left) if edge.target == target]
    if line.error is not None:
        return _first_matching(out, CATCH, line.error)
    choices = [edge for edge in out if edge.kind in (CHOICE, DEFAULT)]
    if line.choice_rule is not None:
        chosen = next((edge for edge in choices if _rule_index(edge) == line.choice_rule), None)
        if chosen is not None:
            return chosen
    if choices:
        return choices[0]
    return next((edge for edge in out if edge.kind == NEXT), None)


def _rule_index(edge: Edge) -> int:
    return -1 if edge.kind == DEFAULT else edge.index if edge.index is not None else -2


def _first_matching(edges: Iterable[Edge], kind: str, error: str | None) -> Edge | None:
    """The first Retrier or Catcher (by its place in the state's list) whose ErrorEquals names `error`."""
    for edge in sorted((edge for edge in edges if edge.kind == kind), key=lambda edge: edge.index or 0):
        if error_equals_matches(edge.errors, error):
            return edge
    return None
