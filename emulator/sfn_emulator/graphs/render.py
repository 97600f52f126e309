"""Graphs as text: Mermaid flowcharts, Graphviz DOT, and HTML pages that draw the Mermaid text.

An `Overlay` colours a graph: an execution's path (states entered, with counts, the states it
failed in, the edges it took) or a test suite's coverage (covered and missed states and edges).
Parallel and Map states are boxes holding their branches or item processor, each with its own
start and end, as AWS's console draws them.

HTML pages need no network: Mermaid's JavaScript ships inside this package
(`static/mermaid.min.js`, see `static/README.md` for its version and licence) and is either
inlined (one self-contained file) or referenced beside the page (`script_src`).
"""

from __future__ import annotations

import html
import json
from typing import Iterable

from msgspec import Struct, field

from sfn_emulator.graphs.structure import CATCH, CHOICE, DEFAULT, END, RETRY, START, Edge, Graph

FORMATS = ("mermaid", "dot", "html")
MERMAID_SCRIPT = "mermaid.min.js"
_STYLES = {  # fill, stroke, text colour
    "visited": ("#d8f0dd", "#2e7d32", "#1b3d20"),
    "failed": ("#fbdada", "#c62828", "#5c1010"),
    "missed": ("#f4f4f4", "#9e9e9e", "#616161"),
}
_TAKEN_EDGE = "stroke:#2e7d32,stroke-width:3px"
_FAILED_EDGE = "stroke:#c62828,stroke-width:3px"


class Overlay(Struct, frozen=True):
    """What to colour: `visited` states (name -> times), `failed` states, `taken` edges; with
    `show_missed`, every state and edge not visited or taken is greyed out (coverage)."""

    visited: dict[str, int] = field(default_factory=dict)
    failed: frozenset[str] = frozenset()
    taken: frozenset[Edge] = frozenset()
    show_missed: bool = False

    def state_class(self, name: str) -> str | None:
        if name in self.failed:
            return "failed"
        if name in self.visited:
            return "visited"
        return "missed" if self.show_missed else None


def render(graph: Graph, format: str, *, overlay: Overlay | None = None, title: str = "",
           script_src: str | None = None, body: str = "") -> str:
    """The graph in `format` (mermaid, dot or html; `body` goes above an html page's drawing)."""
    if format == "mermaid":
        return mermaid(graph, overlay)
    if format == "dot":
        return dot(graph, overlay, title)
    if format == "html":
        return html_page(title or "State machine", mermaid(graph, overlay), body=body, script_src=script_src)
    raise ValueError(f"unknown graph format {format!r}: use one of {', '.join(FORMATS)}")


# ---------------------------------------------------------------------------------------- Mermaid

def mermaid(graph: Graph, overlay: Overlay | None = None) -> str:
    ids = _Ids(graph)
    owners = {cluster.owner for cluster in graph.clusters}
    lines = ["flowchart TD"]

    ends = {edge.cluster for edge in graph.edges if edge.kind == END}

    def scope(cluster: str | None, indent: str) -> None:
        lines.append(f'{indent}{ids.start(cluster)}(["Start"])')
        for node in (node for node in graph.nodes if node.cluster == cluster):
            label = _mermaid_text(_node_label(node.name, node.type, overlay))
            if node.name in owners:
                lines.append(f'{indent}subgraph {ids.node(node.name)}["{label}"]')
                lines.append(f"{indent}  direction TB")
                for inner in (c for c in graph.clusters if c.owner == node.name):
                    lines.append(f'{indent}  subgraph {ids.cluster(inner.id)}["{_mermaid_text(inner.label)}"]')
                    scope(inner.id, indent + "    ")
                    lines.append(f"{indent}  end")
                lines.append(f"{indent}end")
            else:
                lines.append(f'{indent}{ids.node(node.name)}["{label}"]')
        if cluster in ends:
            lines.append(f'{indent}{ids.end(cluster)}(["End"])')

    scope(None, "  ")
    link_styles: list[str] = []
    for number, edge in enumerate(graph.edges):
        source = ids.start(edge.cluster) if edge.source is None else ids.node(edge.source)
        target = ids.end(edge.cluster) if edge.target is None else ids.node(edge.target)
        label = _edge_label(edge)
        arrow = "-.->" if edge.kind in (CATCH, RETRY) else "-->"
        lines.append(f'  {source} {arrow}|"{_mermaid_text(label)}"| {target}' if label else f"  {source} {arrow} {target}")
        style = _edge_style(edge, overlay)
        if style:
            link_styles.append(f"  linkStyle {number} {style}")
    lines.extend(link_styles)
    if overlay is not None:
        for node in graph.nodes:
            css = overlay.state_class(node.name)
            if css:
                fill, stroke, color = _STYLES[css]
                lines.append(f"  style {ids.node(node.name)} fill:{fill},stroke:{stroke},color:{color}")
    return "\n".join(lines) + "\n"


_MERMAID_ENTITIES = str.maketrans({"#": "#35;", '"': "#quot;", "<": "#lt;", ">": "#gt;",
                                   # Mermaid reads these anywhere in its text, labels included: `%%{init...}%%`
                                   # directives (which would reconfigure the renderer), `%%` comments and
                                   # markdown strings opened by a backtick
                                   "%": "#37;", "`": "#96;"})


def _mermaid_text(text: str) -> str:
    """Text inside a quoted Mermaid label: quotes, markup and Mermaid's own syntax as entity codes, one line."""
    return " ".join(text.translate(_MERMAID_ENTITIES).split())


# -------------------------------------------------------------------------------------------- DOT

def dot(graph: Graph, overlay: Overlay | None = None, title: str = "") -> str:
    ids = _Ids(graph)
    owners = {cluster.owner for cluster in graph.clusters}
    ends = {edge.cluster for edge in graph.edges if edge.kind == END}
    lines = ["digraph StateMachine {", "  compound=true;", '  node [shape=box, style="rounded,filled", fillcolor=white];']
    if title:
        lines.append(f"  label={_dot_text(title)}; labelloc=t;")

    def node_line(name: str, kind: str, indent: str) -> str:
        attributes = [f"label={_dot_text(_node_label(name, kind, overlay))}"]
        css = overlay.state_class(name) if overlay else None
        if css:
            fill, stroke, color = _STYLES[css]
            attributes += [f'fillcolor="{fill}"', f'color="{stroke}"', f'fontcolor="{color}"']
        return f"{indent}{ids.node(name)} [{', '.join(attributes)}];"

    def scope(cluster: str | None, indent: str) -> None:
        lines.append(f'{indent}{ids.start(cluster)} [label="Start", shape=oval];')
        for node in (node for node in graph.nodes if node.cluster == cluster):
            if node.name in owners:
                lines.append(f"{indent}subgraph cluster_{ids.node(node.name)} {{")
                lines.append(f"{indent}  label={_dot_text(node.type)}; style=rounded;")
                lines.append(node_line(node.name, node.type, indent + "  "))
                for inner in (c for c in graph.clusters if c.owner == node.name):
                    lines.append(f"{indent}  subgraph cluster_{ids.cluster(inner.id)} {{")
                    lines.append(f"{indent}    label={_dot_text(inner.label)}; style=dashed;")
                    scope(inner.id, indent + "    ")
                    lines.append(f"{indent}  }}")
                    lines.append(f'{indent}  {ids.node(node.name)} -> {ids.start(inner.id)} [style=dotted, arrowhead=none];')
                lines.append(f"{indent}}}")
            else:
                lines.append(node_line(node.name, node.type, indent))
        if cluster in ends:
            lines.append(f'{indent}{ids.end(cluster)} [label="End", shape=oval];')

    scope(None, "  ")
    for edge in graph.edges:
        source = ids.start(edge.cluster) if edge.source is None else ids.node(edge.source)
        target = ids.end(edge.cluster) if edge.target is None else ids.node(edge.target)
        attributes = [f"label={_dot_text(_edge_label(edge))}"] if _edge_label(edge) else []
        if edge.kind in (CATCH, RETRY):
            attributes.append("style=dashed")
        style = _edge_style(edge, overlay)
        if style:
            attributes.append(f'color="{style.split("stroke:")[1].split(",")[0]}", penwidth=3')
        lines.append(f"  {source} -> {target}" + (f" [{', '.join(attributes)}]" if attributes else "") + ";")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _dot_text(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


# ------------------------------------------------------------------------------------------- HTML

def html_page(title: str, mermaid_text: str, *, body: str = "", script_src: str | None = None) -> str:
    """A page that draws `mermaid_text`; Mermaid inlined unless `script_src` names a file beside it."""
    if script_src is None:
        script = f"<script>{mermaid_script()}</script>"
    else:
        script = f'<script src="{html.escape(script_src)}"></script>'
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body{{font-family:system-ui,sans-serif;margin:1.5rem;color:#222}} pre.mermaid{{background:#fff}}
table{{border-collapse:collapse}} td,th{{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}}</style>
</head><body>
<h1>{html.escape(title)}</h1>
{body}
<pre class="mermaid">
{html.escape(mermaid_text)}</pre>
{script}
<script>mermaid.initialize({{startOnLoad: true, securityLevel: "strict"}});</script>
</body></html>
"""


def execution_summary(status: str, error: str | None, cause: str | None) -> str:
    """An execution's status, and its error and cause when it has them, as HTML above its drawing."""
    rows = [("status", status), ("error", error), ("cause", cause)]
    cells = "".join(f"<tr><th>{name}</th><td>{html.escape(value)}</td></tr>" for name, value in rows if value)
    return f'<table class="execution">{cells}</table>'


def mermaid_script() -> str:
    """Mermaid's JavaScript, as shipped inside this package."""
    from importlib import resources  # (with tempfile and zipfile: only when a page is drawn)

    return resources.files("sfn_emulator.graphs").joinpath("static", MERMAID_SCRIPT).read_text(encoding="utf-8")


# ----------------------------------------------------------------------------------------- shared

class _Ids:
    """Identifiers that any renderer accepts, whatever characters a state name holds."""

    def __init__(self, graph: Graph) -> None:
        self._nodes = {node.name: f"s{number}" for number, node in enumerate(graph.nodes)}
        self._clusters = {cluster.id: f"c{number}" for number, cluster in enumerate(graph.clusters)}

    def node(self, name: str) -> str:
        return self._nodes.get(name, "unknown")

    def cluster(self, cluster_id: str) -> str:
        return self._clusters[cluster_id]

    def start(self, cluster: str | None) -> str:
        return "start" if cluster is None else f"{self._clusters[cluster]}_start"

    def end(self, cluster: str | None) -> str:
        # not "end": a Mermaid keyword
        return "finish" if cluster is None else f"{self._clusters[cluster]}_finish"


def _node_label(name: str, kind: str, overlay: Overlay | None) -> str:
    count = overlay.visited.get(name, 0) if overlay else 0
    return f"{name} ({kind})" + (f" ×{count}" if count > 1 else "")


def _edge_label(edge: Edge) -> str:
    if edge.kind == CHOICE:
        return _shorten(edge.label)
    if edge.kind == DEFAULT:
        return "Default"
    if edge.kind == CATCH:
        return f"Catch: {_shorten(edge.label)}"
    if edge.kind == RETRY:
        return f"Retry: {_shorten(edge.label)}"
    return _shorten(edge.label)  # a workflow dialect's transition, labelled with its trigger


def _edge_style(edge: Edge, overlay: Overlay | None) -> str | None:
    if overlay is None or edge not in overlay.taken:
        return None
    if edge.kind in (START, END) or edge.target is None:
        return _TAKEN_EDGE
    return _FAILED_EDGE if edge.kind == CATCH else _TAKEN_EDGE


def _shorten(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def path_text(visited: Iterable[str], failed: Iterable[str]) -> str:
    """An execution's path in one line: `A → B → C ✗` (✗ after the states it failed in)."""
    failed = set(failed)
    return " → ".join(f"{name} ✗" if name in failed else name for name in visited)
