"""A DSL 1.0 workflow's top-level tasks as the graph coverage, graphs and the console read: nodes
typed as the Step Functions state whose events they write, `next` edges by flow directive (the
following task by default), a switch's cases as `choice` edges labelled with their `when`."""

from __future__ import annotations

from typing import Any, Mapping

from sfn_emulator.dialects.documents import load_document
from sfn_emulator.dialects.serverless_workflow.dsl1.model import CONTINUE, END, EXIT, task_kind
from sfn_emulator.graphs.structure import CHOICE, DEFAULT, END as END_EDGE, NEXT, START, Edge, Graph, Node

_TYPES = {"call": "Task", "run": "Task", "emit": "Task", "listen": "Task", "switch": "Choice", "wait": "Wait",
          "fork": "Parallel", "for": "Map", "set": "Pass", "do": "Pass", "try": "Pass", "raise": "Pass"}


def workflow_graph(definition: str) -> Graph:
    document = load_document(definition)
    tasks = document.get("do") if isinstance(document, Mapping) else None
    if not isinstance(tasks, list):
        raise ValueError("a DSL 1.0 workflow is an object with a 'do' list of tasks")
    entries = [next(iter(entry.items())) for entry in tasks if isinstance(entry, Mapping) and len(entry) == 1]
    names = [str(name) for name, _ in entries]
    nodes = tuple(Node(name, _TYPES.get(task_kind(spec) or "", "Pass") if isinstance(spec, Mapping) else "Pass", None)
                  for name, spec in zip(names, (spec for _, spec in entries)))
    edges: list[Edge] = [Edge(None, names[0], START)] if names else []
    for index, (name, spec) in enumerate(zip(names, (spec for _, spec in entries))):
        following = names[index + 1] if index + 1 < len(names) else None
        spec = spec if isinstance(spec, Mapping) else {}
        for number, case in enumerate(spec.get("switch") or ()):
            if isinstance(case, Mapping) and len(case) == 1 and isinstance(next(iter(case.values())), Mapping):
                body = next(iter(case.values()))
                kind, label = (CHOICE, str(body["when"])) if "when" in body else (DEFAULT, "Default")
                edges.append(_edge(name, body.get("then"), following, kind, label, number))
        if not spec.get("switch") or spec.get("then") is not None:
            edges.append(_edge(name, spec.get("then"), following, NEXT, None, None))
    return Graph(nodes, tuple(edges), ())


def _edge(name: str, then: Any, following: str | None, kind: str, label: str | None, index: int | None) -> Edge:
    target = following if then in (None, CONTINUE) else None if then in (END, EXIT) else str(then)
    if target is None:
        return Edge(name, None, END_EDGE, label, None, index)
    return Edge(name, target, kind, label, None, index)
