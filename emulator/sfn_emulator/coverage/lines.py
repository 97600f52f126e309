"""A coverage report as lines of a definition file, the shape line-based CI tools read (Cobertura,
SonarQube): each state is the line where its name opens its block in the file, covered when an
execution entered it; its branches are the coverage items that start at it (its transitions,
Choice rules, Catchers and Retriers), covered as the report says."""

from __future__ import annotations

import json
import re
from typing import Any

from msgspec import Struct

from sfn_emulator.coverage.model import edge_item
from sfn_emulator.dialects import graph_of


class StateLine(Struct, frozen=True):
    state: str
    line: int  # 1-based, in the definition's file
    covered: bool
    branches: int
    covered_branches: int


def pretty_definition(definition: str) -> str:
    """The text written for a definition that came from no file (a dict or JSON text in a test)."""
    try:
        return json.dumps(json.loads(definition), indent=2) + "\n"
    except ValueError:
        return definition if definition.endswith("\n") else definition + "\n"


def state_lines(machine: dict[str, Any], source_text: str) -> list[StateLine]:
    """Each state of a report's machine (`sfn_emulator.coverage.model`), placed in `source_text`."""
    graph = graph_of(machine["definition"])
    missed_states = set(machine["states"]["missed"])
    missed = {tuple(pair) for pair in machine["transitions"]["missed"]}
    missed |= {item for category in ("choiceRules", "catchers", "retriers") for item in machine[category]["missed"]}
    text_lines = source_text.splitlines()
    answer = []
    for node in graph.nodes:
        items: list[Any] = []
        for edge in graph.edges_from(node.name):
            pair = (edge.source, edge.target)
            if edge.is_transition and pair not in items:
                items.append(pair)
            named = edge_item(edge)
            if named is not None:
                items.append(named[1])
        answer.append(StateLine(node.name, _line_of(node.name, text_lines), node.name not in missed_states,
                                len(items), sum(1 for item in items if item not in missed)))
    return answer


def _line_of(state: str, lines: list[str]) -> int:
    """The line where `state` is a key opening a block (JSON `"Name": {`, YAML `Name:`); a state's
    name is unique in its machine, so the first such line is its own. Line 1 when none is found."""
    name = re.escape(state)
    patterns = (re.compile(rf'^\s*"{name}"\s*:\s*\{{?\s*$'), re.compile(rf"""^\s*(?:"{name}"|'{name}'|{name})\s*:\s*$"""),
                re.compile(rf'"{name}"\s*:\s*\{{'))
    for pattern in patterns:
        for number, text in enumerate(lines, start=1):
            if pattern.search(text):
                return number
    return 1
