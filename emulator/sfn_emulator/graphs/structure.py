"""A state machine definition as a graph: states as nodes, every way out of a state as an edge.

Graphs, coverage and the console read this one structure, built from the definition's JSON (the
text the control plane keeps), so they show what the author wrote (Choice conditions as written,
`ErrorEquals` lists) rather than what the parser compiled. State names are unique across a whole
state machine (AWS refuses a duplicate, also inside branches), so a name identifies a node.

Edges:
- `next`: a state's `Next`; `default`: a Choice's `Default`; `choice`: one Choice rule's `Next`,
  labelled with its condition; `catch`: one Catcher's `Next`, labelled with its `ErrorEquals`;
  `retry`: a Retrier, drawn as a loop on its state; `end`: `End: true` (to the scope's end);
  `start`: the scope's `StartAt`. Parallel branches and Map processors are clusters inside their
  state, with their own start and end.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from msgspec import Struct

JSON = Any

NEXT, DEFAULT, CHOICE, CATCH, RETRY, END, START = "next", "default", "choice", "catch", "retry", "end", "start"
# The edges a test can take out of a state: what transition coverage counts.
TRANSITION_KINDS = frozenset({NEXT, DEFAULT, CHOICE, CATCH, END})

_COMPARISON_WORDS = (
    "StringEquals", "StringLessThan", "StringGreaterThan", "StringLessThanEquals", "StringGreaterThanEquals",
    "StringMatches", "NumericEquals", "NumericLessThan", "NumericGreaterThan", "NumericLessThanEquals",
    "NumericGreaterThanEquals", "BooleanEquals", "TimestampEquals", "TimestampLessThan", "TimestampGreaterThan",
    "TimestampLessThanEquals", "TimestampGreaterThanEquals", "IsNull", "IsPresent", "IsNumeric", "IsString",
    "IsBoolean", "IsTimestamp",
)


class Node(Struct, frozen=True):
    name: str
    type: str  # the ASL state type
    cluster: str | None  # the cluster (branch or processor) the state belongs to; None: the top level


class Edge(Struct, frozen=True):
    source: str | None  # None: the start of `cluster`
    target: str | None  # None: the end of `cluster`
    kind: str
    label: str = ""
    cluster: str | None = None  # the scope whose start or end an edge without source or target means
    index: int | None = None  # the rule, catcher or retrier's position in its list
    errors: tuple[str, ...] = ()  # a catcher's or retrier's ErrorEquals

    @property
    def is_transition(self) -> bool:
        return self.kind in TRANSITION_KINDS


class Cluster(Struct, frozen=True):
    id: str  # "<state>/<branch number>" for a Parallel branch, "<state>/processor" for a Map
    label: str
    owner: str  # the Parallel or Map state it belongs to
    parent: str | None  # the cluster the owner belongs to


class Graph(Struct, frozen=True):
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    clusters: tuple[Cluster, ...]

    def node(self, name: str) -> Node | None:
        return next((node for node in self.nodes if node.name == name), None)

    def edges_from(self, name: str) -> tuple[Edge, ...]:
        return tuple(edge for edge in self.edges if edge.source == name)


def graph_of(definition: Mapping[str, JSON] | str) -> Graph:
    """The graph of an ASL definition (a decoded object or its JSON text); ValueError if it is not
    a JSON object."""
    document = json.loads(definition) if isinstance(definition, str) else definition
    if not isinstance(document, Mapping):
        raise ValueError("a state machine definition is a JSON object")
    builder = _Builder()
    builder.scope(document, cluster=None)
    return Graph(tuple(builder.nodes), tuple(builder.edges), tuple(builder.clusters))


class _Builder:
    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self.edges: list[Edge] = []
        self.clusters: list[Cluster] = []

    def scope(self, machine: Mapping[str, JSON], cluster: str | None) -> None:
        states = machine.get("States") or {}
        if machine.get("StartAt") in states:
            self.edges.append(Edge(None, machine["StartAt"], START, cluster=cluster))
        for name, state in states.items():
            self.state(name, state if isinstance(state, Mapping) else {}, cluster)

    def state(self, name: str, state: Mapping[str, JSON], cluster: str | None) -> None:
        kind = str(state.get("Type", ""))
        self.nodes.append(Node(name, kind, cluster))
        for index, rule in enumerate(state.get("Choices") or ()):
            if isinstance(rule, Mapping) and "Next" in rule:
                self.edges.append(Edge(name, rule["Next"], CHOICE, condition_text(rule), cluster, index))
        if "Default" in state:
            self.edges.append(Edge(name, state["Default"], DEFAULT, "Default", cluster))
        if "Next" in state:
            self.edges.append(Edge(name, state["Next"], NEXT, cluster=cluster))
        if state.get("End") is True:
            self.edges.append(Edge(name, None, END, cluster=cluster))
        for index, retrier in enumerate(state.get("Retry") or ()):
            errors = _errors(retrier)
            self.edges.append(Edge(name, name, RETRY, ", ".join(errors), cluster, index, errors))
        for index, catcher in enumerate(state.get("Catch") or ()):
            if isinstance(catcher, Mapping) and "Next" in catcher:
                errors = _errors(catcher)
                self.edges.append(Edge(name, catcher["Next"], CATCH, ", ".join(errors), cluster, index, errors))
        for number, branch in enumerate(state.get("Branches") or (), start=1):
            self.nested(name, f"{name}/{number}", f"Branch {number}", branch, cluster)
        processor = state.get("ItemProcessor") or state.get("Iterator")
        if isinstance(processor, Mapping):
            self.nested(name, f"{name}/processor", "Item processor", processor, cluster)

    def nested(self, owner: str, cluster_id: str, label: str, machine: JSON, parent: str | None) -> None:
        if isinstance(machine, Mapping):
            self.clusters.append(Cluster(cluster_id, label, owner, parent))
            self.scope(machine, cluster_id)


def _errors(entry: JSON) -> tuple[str, ...]:
    errors = entry.get("ErrorEquals") if isinstance(entry, Mapping) else None
    return tuple(str(error) for error in errors) if isinstance(errors, list) else ()


def condition_text(rule: Mapping[str, JSON]) -> str:
    """A Choice rule's condition in words: `$.x NumericGreaterThan 3`, `And(...)`, a JSONata `{% %}`."""
    if "Condition" in rule:
        return str(rule["Condition"])
    for combinator in ("And", "Or"):
        if isinstance(rule.get(combinator), list):
            parts = [condition_text(part) for part in rule[combinator] if isinstance(part, Mapping)]
            return f"{combinator}({', '.join(parts)})"
    if isinstance(rule.get("Not"), Mapping):
        return f"Not({condition_text(rule['Not'])})"
    variable = rule.get("Variable", "")
    for word in _COMPARISON_WORDS:
        for key in (word, f"{word}Path"):
            if key in rule:
                return f"{variable} {key} {json.dumps(rule[key], ensure_ascii=False)}".strip()
    return str(variable)
