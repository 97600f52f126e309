"""Definitions as graphs, table-driven (fixtures/graphs/structures.json), and the Mermaid and
DOT texts checked structurally: every state drawn once with its label, every edge drawn between
the right two nodes."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from helpers.paths import FIXTURES_ROOT

from sfn_emulator.graphs import graph_of, render

CASES = json.loads((FIXTURES_ROOT / "graphs" / "structures.json").read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_the_graph_has_every_state_and_every_way_out(case: dict[str, Any]) -> None:
    graph = graph_of(case["definition"])
    assert [[node.name, node.type, node.cluster] for node in graph.nodes] == case["nodes"]
    assert sorted(_edge_rows(graph), key=str) == sorted(case["edges"], key=str)


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_mermaid_draws_every_state_and_edge(case: dict[str, Any]) -> None:
    graph = graph_of(case["definition"])
    text = render(graph, "mermaid")
    assert text.startswith("flowchart TD\n")
    ids = {match[1]: match[0] for match in re.findall(r'^\s*(s\d+)(?:\["|\[")(.+?) \(\w+\)"\]$', text, re.M)}
    ids.update({label: ident for ident, label in re.findall(r'^\s*subgraph (s\d+)\["(.+?) \(\w+\)"\]$', text, re.M)})
    assert set(ids) == {node.name for node in graph.nodes}
    drawn = re.findall(r"^\s+(\w+) (?:-->|-\.->)(?:\|\"[^\n]*\"\|)? (\w+)$", text, re.M)
    for edge in graph.edges:
        source = ids[edge.source] if edge.source else None
        target = ids[edge.target] if edge.target else None
        assert any((source is None and a.endswith("start") or a == source) and
                   (target is None and b.endswith("finish") or b == target) for a, b in drawn), edge


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_dot_draws_every_state_and_edge(case: dict[str, Any]) -> None:
    graph = graph_of(case["definition"])
    text = render(graph, "dot")
    labels = dict(re.findall(r'^\s*(s\d+) \[label="(.+?) \(\w+\)"', text, re.M))
    assert sorted(labels.values()) == sorted(node.name for node in graph.nodes)
    ids = {name: ident for ident, name in labels.items()}
    drawn = re.findall(r"^  (\w+) -> (\w+)", text, re.M)
    for edge in graph.edges:
        if edge.source and edge.target:
            assert (ids[edge.source], ids[edge.target]) in drawn, edge


def test_labels_with_quotes_and_markup_stay_inside_their_node() -> None:
    definition = {"StartAt": 'Say "hi" <b>', "States": {'Say "hi" <b>': {"Type": "Pass", "End": True}}}
    text = render(graph_of(definition), "mermaid")
    assert 's0["Say #quot;hi#quot; #lt;b#gt; (Pass)"]' in text
    assert '"hi"' not in text


def test_a_definition_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(ValueError, match="JSON object"):
        graph_of("[1, 2]")


def _edge_rows(graph: Any) -> list[list[Any]]:
    return [[edge.source, edge.target, edge.kind, edge.label, edge.index] for edge in graph.edges]
