"""Coverage of one state machine definition, and the JSON report of many.

Items, named as the definition's JSON would locate them:
- states: each state name, Parallel branches and Map processors included;
- transitions: each distinct (from, to) a definition allows (`Next`, `Default`, each Choice rule's
  and each Catcher's `Next`), `to` null for `End: true`;
- choiceRules: `State.Choices[i]` and `State.Default`;
- catchers: `State.Catch[i]`; retriers: `State.Retry[i]`.

The JSON report (`GET /_emulator/coverage`, `--sfn-coverage-json`) is
`{"stateMachines": [{"name", "definitionId", "definition", "states": {"total", "covered", "missed": [...]},
"transitions": {..., "missed": [[from, to], ...]}, "choiceRules", "catchers", "retriers"}],
"totals": {"states": {"total", "covered", "percent"}, ...}}`. `definitionId` tells apart
definitions that share a name (the same content in another account, region or partition is the same
definition: see `recorder.definition_id`); reports merge by (name, definitionId), so per-worker
reports of a pytest-xdist run add up (an item is missed only where every report missed it). The
pytest plugin adds `"source"`, the file a definition was read from, where it knows it.
"""

from __future__ import annotations

from typing import Any, Iterable

from msgspec import Struct, field

from sfn_emulator.graphs.structure import CATCH, CHOICE, DEFAULT, RETRY, Edge, Graph
from sfn_emulator.graphs.trace import ExecutionTrace

CATEGORIES = ("states", "transitions", "choiceRules", "catchers", "retriers")
Item = Any  # a state name, a (from, to) pair, or a rule/catcher/retrier name


def edge_item(edge: Edge) -> tuple[str, Item] | None:
    """The coverage item an edge stands for: (category, item), or None for start edges."""
    if edge.kind == CHOICE:
        return "choiceRules", f"{edge.source}.Choices[{edge.index}]"
    if edge.kind == DEFAULT:
        return "choiceRules", f"{edge.source}.Default"
    if edge.kind == CATCH:
        return "catchers", f"{edge.source}.Catch[{edge.index}]"
    if edge.kind == RETRY:
        return "retriers", f"{edge.source}.Retry[{edge.index}]"
    return None


class MachineCoverage(Struct):
    """The items of one definition and those covered so far."""

    name: str
    definition_id: str
    items: dict[str, list[Item]]  # category -> every item, in definition order
    definition: str  # the definition's JSON text, for drawing the coverage
    graph: Graph
    covered: dict[str, set[Item]] = field(default_factory=lambda: {category: set() for category in CATEGORIES})

    @classmethod
    def of(cls, name: str, definition: str, definition_id: str, graph: Graph) -> MachineCoverage:
        items: dict[str, list[Item]] = {category: [] for category in CATEGORIES}
        items["states"] = [node.name for node in graph.nodes]
        for edge in graph.edges:
            if edge.is_transition:
                pair = (edge.source, edge.target)
                if pair not in items["transitions"]:
                    items["transitions"].append(pair)
            named = edge_item(edge)
            if named is not None:
                items[named[0]].append(named[1])
        return cls(name, definition_id, items, definition, graph)

    def add(self, trace: ExecutionTrace) -> None:
        self.covered["states"].update(name for name in trace.entered if name in self.items["states"])
        for edge in trace.taken:
            if edge.is_transition:
                self.covered["transitions"].add((edge.source, edge.target))
            named = edge_item(edge)
            if named is not None:
                self.covered[named[0]].add(named[1])

    def missed(self, category: str) -> list[Item]:
        return [item for item in self.items[category] if item not in self.covered[category]]

    def to_json(self) -> dict[str, Any]:
        answer: dict[str, Any] = {"name": self.name, "definitionId": self.definition_id, "definition": self.definition}
        for category in CATEGORIES:
            missed = self.missed(category)
            answer[category] = {
                "total": len(self.items[category]),
                "covered": len(self.items[category]) - len(missed),
                "missed": [list(item) if isinstance(item, tuple) else item for item in missed],
            }
        return answer


class CoverageReport(Struct):
    machines: list[MachineCoverage]

    def to_json(self) -> dict[str, Any]:
        machines = [machine.to_json() for machine in sorted(self.machines, key=lambda m: (m.name, m.definition_id))]
        return {"stateMachines": machines, "totals": totals(machines)}


def percent(covered: int, total: int) -> float:
    """Coverage as a percentage with one decimal; nothing to cover counts as fully covered."""
    return round(100.0 * covered / total, 1) if total else 100.0


def totals(machines: Iterable[dict[str, Any]]) -> dict[str, Any]:
    machines = list(machines)
    answer = {}
    for category in CATEGORIES:
        total = sum(machine[category]["total"] for machine in machines)
        covered = sum(machine[category]["covered"] for machine in machines)
        answer[category] = {"total": total, "covered": covered, "percent": percent(covered, total)}
    return answer


def merge_reports(reports: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """One JSON report from several (pytest-xdist workers, several servers): per (name,
    definitionId), an item is missed only if every report that saw the definition missed it."""
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for report in reports:
        for machine in report.get("stateMachines", []):
            key = (machine["name"], machine.get("definitionId", ""))
            if key not in merged:
                merged[key] = {k: (dict(v) if isinstance(v, dict) else v) for k, v in machine.items()}
                continue
            into = merged[key]
            if machine.get("source") and not into.get("source"):
                into["source"] = machine["source"]
            for category in CATEGORIES:
                theirs = {_hashable(item) for item in machine[category]["missed"]}
                missed = [item for item in into[category]["missed"] if _hashable(item) in theirs]
                into[category] = {"total": into[category]["total"],
                                  "covered": into[category]["total"] - len(missed), "missed": missed}
    machines = [merged[key] for key in sorted(merged)]
    return {"stateMachines": machines, "totals": totals(machines)}


def _hashable(item: Item) -> Item:
    return tuple(item) if isinstance(item, list) else item
