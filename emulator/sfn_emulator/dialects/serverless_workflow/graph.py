"""A workflow as the graph coverage, graphs and the console read (`graphs.structure.Graph`).

Nodes are states, typed as the Step Functions state whose events they write; edges: the start,
each `transition` (`next`), a switch's conditions (`choice`, labelled with the condition) and its
`default`, each `onError` (`catch`, labelled with its expression), each `retry` (a loop), and
`end`. A switch condition or error handler ending the workflow is an `end` edge.
"""

from __future__ import annotations

from typing import Any, Mapping

from sfn_emulator.dialects.documents import load_document
from sfn_emulator.graphs.structure import CATCH, CHOICE, DEFAULT, END, NEXT, RETRY, START, Edge, Graph, Node

ENTERED_TYPES = {"event": "Task", "operation": "Task", "callback": "Task", "subflow": "Task", "switch": "Choice",
                 "delay": "Wait", "sleep": "Wait", "parallel": "Parallel", "foreach": "Map", "inject": "Pass"}


def workflow_graph(definition: str) -> Graph:
    document = load_document(definition)
    if not isinstance(document, Mapping) or not isinstance(document.get("states"), list):
        raise ValueError("a Serverless Workflow document is an object with a 'states' array")
    nodes: list[Node] = []
    edges: list[Edge] = []
    start = document.get("start")  # 0.6-0.8: the start state is named at the top
    start = start.get("stateName") if isinstance(start, Mapping) else start
    for state in document["states"]:
        if not isinstance(state, Mapping) or not isinstance(state.get("name"), str):
            continue
        name = state["name"]
        kind = state.get("type")
        nodes.append(Node(name, ENTERED_TYPES.get(kind, str(kind)), None))
        if state.get("start") not in (None, False) or name == start:
            edges.append(Edge(None, name, START))
        for index, condition in enumerate(state.get("dataConditions") or state.get("eventConditions") or ()):
            if isinstance(condition, Mapping):
                label = str(condition.get("condition") or condition.get("eventRef") or "")
                edges.append(_exit_edge(name, condition, CHOICE, label, index))
        default = state.get("default", state.get("defaultCondition"))
        if isinstance(default, (Mapping, str)):
            edges.append(Edge(name, _target(default.get("transition", default) if isinstance(default, Mapping) else default),
                              DEFAULT, "Default"))
        if state.get("transition") is not None:
            edges.append(Edge(name, _target(state["transition"]), NEXT))
        if state.get("end") not in (None, False):
            edges.append(Edge(name, None, END))
        for index, retry in enumerate(state.get("retry") or ()):
            label = str(retry.get("expression", "")) if isinstance(retry, Mapping) else ""
            edges.append(Edge(name, name, RETRY, label, None, index, (label,)))
        for index, handler in enumerate(state.get("onError") or ()):
            if isinstance(handler, Mapping):
                edges.append(_exit_edge(name, handler, CATCH, str(handler.get("expression", "")), index))
    return Graph(tuple(nodes), tuple(edges), ())


def _exit_edge(name: str, entry: Mapping[str, Any], kind: str, label: str, index: int) -> Edge:
    target = _target(entry["transition"]) if entry.get("transition") is not None else None
    errors = (label,) if kind == CATCH else ()
    return Edge(name, target, kind, label, None, index, errors)


def _target(transition: Any) -> str | None:
    if isinstance(transition, str):
        return transition
    if isinstance(transition, Mapping) and isinstance(transition.get("transition"), (Mapping, str)):
        return _target(transition["transition"])  # 0.6-0.8: a condition's transition
    return transition.get("nextState") if isinstance(transition, Mapping) else None
