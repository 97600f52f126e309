"""Definitions as graphs (Mermaid, DOT, HTML) and executions read back as paths over them."""

from sfn_emulator.graphs.render import FORMATS, Overlay, render
from sfn_emulator.graphs.structure import Graph, graph_of
from sfn_emulator.graphs.trace import ExecutionTrace, Tracer, trace

__all__ = ["FORMATS", "ExecutionTrace", "Graph", "Overlay", "Tracer", "graph_of", "render", "trace"]
