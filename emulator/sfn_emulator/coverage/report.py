"""Coverage reports for people: a terminal table, a Markdown summary (for a CI job's summary page), and
HTML pages with each machine's graph coloured by what was covered (green) and missed (grey), an
index linking them."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from sfn_emulator.coverage.model import CATEGORIES, edge_item, percent
from sfn_emulator.graphs.render import MERMAID_SCRIPT, Overlay, html_page, mermaid, mermaid_script
from sfn_emulator.dialects import graph_of
from sfn_emulator.graphs.structure import Edge, Graph

_HEADINGS = {"states": "states", "transitions": "transitions", "choiceRules": "choice rules",
             "catchers": "catchers", "retriers": "retriers"}


def table(report: dict[str, Any]) -> str:
    """`machine  states  transitions  choice rules  catchers  retriers` as covered/total (percent)."""
    rows = [["state machine", *(_HEADINGS[category] for category in CATEGORIES)]]
    for machine in report.get("stateMachines", []):
        rows.append([_machine_label(machine, report), *(_cell(machine[c]["covered"], machine[c]["total"]) for c in CATEGORIES)])
    totals = report.get("totals", {})
    if totals:
        rows.append(["TOTAL", *(_cell(totals[c]["covered"], totals[c]["total"]) for c in CATEGORIES)])
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(width) if column == 0 else cell.rjust(width)
                       for column, (cell, width) in enumerate(zip(row, widths))).rstrip() for row in rows]
    lines.insert(1, "-" * len(lines[0]))
    missed = [_missed_lines(machine, report) for machine in report.get("stateMachines", [])]
    return "\n".join(lines + [line for block in missed for line in block]) + "\n"


def markdown(report: dict[str, Any]) -> str:
    """The table as GitHub-flavoured Markdown, with a total row and the misses listed per machine."""
    machines = report.get("stateMachines", [])
    lines = ["## Step Functions workflow coverage", ""]
    if not machines:
        return "\n".join(lines + ["No state machine was executed.", ""])
    lines += ["| state machine | " + " | ".join(_HEADINGS[c] for c in CATEGORIES) + " |",
              "|---|" + "---:|" * len(CATEGORIES)]
    for machine in machines:
        cells = (_cell(machine[c]["covered"], machine[c]["total"]) for c in CATEGORIES)
        lines.append(f"| {_markdown_text(_machine_label(machine, report))} | " + " | ".join(cells) + " |")
    totals = report["totals"]
    lines.append("| **total** | " + " | ".join(f"**{_cell(totals[c]['covered'], totals[c]['total'])}**"
                                                 for c in CATEGORIES) + " |")
    missed = [(machine, c) for machine in machines for c in CATEGORIES if machine[c]["missed"]]
    if missed:
        lines += ["", "Missed:", ""]
        lines += [f"- {_markdown_text(_machine_label(machine, report))}, {_HEADINGS[c]}: "
                  + ", ".join(f"`{_item_text(item)}`" for item in machine[c]["missed"]) for machine, c in missed]
    return "\n".join(lines) + "\n"


def _markdown_text(text: str) -> str:
    return text.replace("|", "\\|")


def _cell(covered: int, total: int) -> str:
    return f"{covered}/{total} ({percent(covered, total):.0f}%)" if total else "-"


def _machine_label(machine: dict[str, Any], report: dict[str, Any]) -> str:
    same_name = [m for m in report.get("stateMachines", []) if m["name"] == machine["name"]]
    return machine["name"] + (f" [{machine.get('definitionId', '')}]" if len(same_name) > 1 else "")


def _missed_lines(machine: dict[str, Any], report: dict[str, Any]) -> list[str]:
    lines = []
    for category in CATEGORIES:
        missed = machine[category]["missed"]
        if missed:
            lines.append(f"  {_machine_label(machine, report)}: missed {_HEADINGS[category]}: "
                         + ", ".join(_item_text(item) for item in missed))
    return ["", *lines] if lines else []


def _item_text(item: Any) -> str:
    if isinstance(item, list):
        return f"{item[0]} → {item[1] if item[1] is not None else '(end)'}"
    return str(item)


def write_html(report: dict[str, Any], directory: str | Path) -> Path:
    """An index page and one page per machine in `directory`; returns the index's path. Mermaid's
    script is written beside them once, so the pages render offline."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MERMAID_SCRIPT).write_text(mermaid_script(), encoding="utf-8")
    rows = []
    for number, machine in enumerate(report.get("stateMachines", []), start=1):
        page = f"machine-{number}.html"
        label = _machine_label(machine, report)
        (folder / page).write_text(_machine_page(machine, label), encoding="utf-8")
        cells = "".join(f"<td>{html.escape(_cell(machine[c]['covered'], machine[c]['total']))}</td>" for c in CATEGORIES)
        rows.append(f'<tr><td><a href="{page}">{html.escape(label)}</a></td>{cells}</tr>')
    totals = report.get("totals")
    if totals:
        cells = "".join(f"<th>{html.escape(_cell(totals[c]['covered'], totals[c]['total']))}</th>" for c in CATEGORIES)
        rows.append(f"<tr><th>total</th>{cells}</tr>")
    head = "".join(f"<th>{_HEADINGS[c]}</th>" for c in CATEGORIES)
    index = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Workflow coverage</title>
<style>body{{font-family:system-ui,sans-serif;margin:1.5rem}} td,th{{border:1px solid #ccc;padding:.25rem .5rem}}
table{{border-collapse:collapse}}</style></head><body><h1>Workflow coverage</h1>
<table><tr><th>state machine</th>{head}</tr>{''.join(rows)}</table></body></html>
"""
    (folder / "index.html").write_text(index, encoding="utf-8")
    return folder / "index.html"


def _machine_page(machine: dict[str, Any], label: str) -> str:
    graph = graph_of(machine["definition"]) if machine.get("definition") else None
    missed_list = "".join(
        f"<li>{_HEADINGS[c]}: {html.escape(', '.join(_item_text(item) for item in machine[c]['missed']))}</li>"
        for c in CATEGORIES if machine[c]["missed"])
    summary = "".join(f"<li>{_HEADINGS[c]}: {html.escape(_cell(machine[c]['covered'], machine[c]['total']))}</li>"
                      for c in CATEGORIES)
    body = f'<p><a href="index.html">All state machines</a></p><ul>{summary}</ul>' + (
        f"<h2>Missed</h2><ul>{missed_list}</ul>" if missed_list else "<p>Everything covered.</p>")
    text = mermaid(graph, _coverage_overlay(graph, machine)) if graph is not None else "flowchart TD\n"
    return html_page(f"Coverage: {label}", text, body=body, script_src=MERMAID_SCRIPT)


def _coverage_overlay(graph: Graph, machine: dict[str, Any]) -> Overlay:
    missed_states = set(machine["states"]["missed"])
    missed_pairs = {tuple(pair) for pair in machine["transitions"]["missed"]}
    missed_named = {item for c in ("choiceRules", "catchers", "retriers") for item in machine[c]["missed"]}
    taken = frozenset(edge for edge in graph.edges if _edge_covered(edge, missed_pairs, missed_named))
    visited = {node.name: 1 for node in graph.nodes if node.name not in missed_states}
    return Overlay(visited=visited, taken=taken, show_missed=True)


def _edge_covered(edge: Edge, missed_pairs: set[tuple[Any, ...]], missed_named: set[str]) -> bool:
    named = edge_item(edge)
    if named is not None and named[1] in missed_named:
        return False
    if edge.is_transition:
        return (edge.source, edge.target) not in missed_pairs
    return named is not None  # a Retrier that retried; start edges are not measured
