"""An SM4C document as the emulator's graph (`graphs.structure.Graph`), for graphs, coverage and
the console: each state a node (child states in a cluster of their parent), each transition with a
`nextState` a `next` edge labelled with its trigger (condition, events or timeout), a state without
transitions an `end` edge. A transition without `nextState` stays in its state and draws no edge."""

from __future__ import annotations

from sfn_emulator.dialects.sm4c.model import Sm4cDocument, State, Transition
from sfn_emulator.graphs.structure import END, NEXT, START, Cluster, Edge, Graph, Node

NODE_TYPE = "Task"  # how drawings style an SM4C state: it runs actions


def graph_of_model(machine: Sm4cDocument) -> Graph:
    nodes: list[Node] = []
    edges: list[Edge] = []
    clusters: list[Cluster] = []
    _scope(machine.states, None, None, nodes, edges, clusters)
    return Graph(tuple(nodes), tuple(edges), tuple(clusters))


def _scope(states: tuple[State, ...], cluster: str | None, parent: str | None, nodes: list[Node], edges: list[Edge],
           clusters: list[Cluster]) -> None:
    start = next((state for state in states if state.start), None)
    if start is not None:
        edges.append(Edge(None, start.name, START, cluster=cluster))
    for state in states:
        nodes.append(Node(state.name, NODE_TYPE, cluster))
        for transition in state.transitions:
            if transition.next_state is not None:
                edges.append(Edge(state.name, transition.next_state, NEXT, trigger_label(transition), cluster=cluster,
                                  index=transition.index))
        if not state.transitions:
            edges.append(Edge(state.name, None, END, cluster=cluster))
        if state.states:
            child_cluster = f"{state.name}/states"
            clusters.append(Cluster(child_cluster, "child states", state.name, cluster))
            _scope(state.states, child_cluster, state.name, nodes, edges, clusters)


def trigger_label(transition: Transition) -> str:
    """The condition as written, `on` the events (`|`: any of a group, `&`: every group), or `after`
    the timeout; an implicit transition has no label."""
    if transition.condition is not None:
        return transition.condition.text
    if transition.event_groups:
        return "on " + " & ".join(" | ".join(event.name for event in group.events) for group in transition.event_groups)
    if transition.timeout is not None:
        return f"after {transition.timeout:g}s"
    return ""
