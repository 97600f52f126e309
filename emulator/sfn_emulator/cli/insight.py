"""`sfn-emulator graph` and `sfn-emulator coverage`: draw a definition or an execution's path, and
read a running emulator's workflow coverage.

- `graph DEFINITION [--format mermaid|dot|html] [--output FILE]` draws a definition file;
  `graph --endpoint URL --execution ARN` draws the definition that execution ran with its path
  (asked of that emulator's `/_emulator/graph`, which knows exactly which Choice rules it took).
- `coverage --endpoint URL [--json PATH] [--html DIR]` prints the coverage table of everything that
  emulator ran, and writes the JSON report or the HTML pages.
Exit codes: 0 done; 2 unreadable definition, unreachable endpoint or unknown execution.
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.parse
from pathlib import Path
from typing import Any

from sfn_emulator.cli.exits import EXIT_OK, unusable
from sfn_emulator.cli.http import EndpointError, request
from sfn_emulator.config import Settings
from sfn_emulator.protocol.definition_files import UnreadableDefinition



def add_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register `graph` and `coverage` on the `sfn-emulator` parser."""
    from sfn_emulator.graphs.render import FORMATS

    graph = commands.add_parser(
        "graph", help="draw a definition, or an execution's path, as Mermaid, DOT or HTML",
        description="Draw a state machine definition (JSON or YAML file, or - for standard input): every "
        "state, Parallel branches and Map processors as boxes, Choice rules labelled with their condition, "
        "Catch and Retry edges dashed. With --endpoint and --execution, draw the definition that execution "
        "ran on that emulator, with its path: states visited (and how often), where it failed, edges taken.",
    )
    graph.add_argument("definition", metavar="DEFINITION", nargs="?", help="ASL file (JSON or YAML), or -")
    graph.add_argument("--format", choices=FORMATS, default="mermaid", help="output format (default mermaid)")
    graph.add_argument("--endpoint", metavar="URL", help="a running emulator, for --execution")
    graph.add_argument("--execution", metavar="ARN", help="draw this execution's path (needs --endpoint)")
    graph.add_argument("--output", metavar="FILE", help="write to FILE instead of standard output")
    graph.set_defaults(handler=graph_command)

    coverage = commands.add_parser(
        "coverage", help="print or write the workflow coverage of a running emulator",
        description="Print which states, transitions, Choice rules, Catchers and Retriers the executions "
        "an emulator ran have covered, per state machine, and optionally write the JSON report or HTML pages.",
    )
    coverage.add_argument("--endpoint", metavar="URL", required=True, help="the emulator, e.g. http://127.0.0.1:8083")
    coverage.add_argument("--json", metavar="PATH", help="write the JSON report to PATH")
    coverage.add_argument("--html", metavar="DIR", help="write an HTML page per state machine, with its graph, to DIR")
    coverage.set_defaults(handler=coverage_command)


def graph_command(settings: Settings, arguments: argparse.Namespace) -> int:
    from sfn_emulator.dialects import graph_of, read_anchored
    from sfn_emulator.graphs import render
    from sfn_emulator.graphs.render import MERMAID_SCRIPT

    if arguments.execution:
        if arguments.definition or not arguments.endpoint:
            return unusable("--execution needs --endpoint, and no DEFINITION: the graph is of the definition "
                             "that execution ran")
        # A saved page loads Mermaid from beside it, a printed one from the server.
        script = MERMAID_SCRIPT if arguments.output else f"{arguments.endpoint.rstrip('/')}/_emulator/graph/{MERMAID_SCRIPT}"
        where = {"script": script} if arguments.format == "html" else {}
        query = urllib.parse.urlencode({"executionArn": arguments.execution, "format": arguments.format, **where})
        try:
            text = request(arguments.endpoint, f"/_emulator/graph?{query}").decode("utf-8")
        except EndpointError as error:
            return unusable(str(error))
    else:
        if not arguments.definition:
            return unusable("give a DEFINITION file, or --endpoint and --execution")
        try:
            title = Path(arguments.definition).name if arguments.definition != "-" else "definition"
            script = MERMAID_SCRIPT if arguments.output else None  # beside the file; printed pages inline it
            text = render(graph_of(read_anchored(arguments.definition)), arguments.format, title=title,
                          script_src=script)
        except (UnreadableDefinition, ValueError) as error:
            return unusable(f"cannot draw {arguments.definition}: {error}")
    _write(text, arguments.output)
    return EXIT_OK


def coverage_command(settings: Settings, arguments: argparse.Namespace) -> int:
    from sfn_emulator.coverage.report import table, write_html

    try:
        report: dict[str, Any] = json.loads(request(arguments.endpoint, "/_emulator/coverage"))
    except (EndpointError, ValueError) as error:
        return unusable(str(error))
    print(table(report), end="")
    if arguments.json:
        Path(arguments.json).write_text(json.dumps(report, indent=2), encoding="utf-8")
    if arguments.html:
        print(f"HTML coverage: {write_html(report, arguments.html)}")
    return EXIT_OK


def _write(text: str, output: str | None) -> None:
    """Print `text`, or write it to `output`, with Mermaid's script beside an html page that loads it."""
    if output:
        Path(output).write_text(text, encoding="utf-8")
        from sfn_emulator.graphs.render import MERMAID_SCRIPT, mermaid_script

        if f'src="{MERMAID_SCRIPT}"' in text:
            (Path(output).resolve().parent / MERMAID_SCRIPT).write_text(mermaid_script(), encoding="utf-8")
    else:
        sys.stdout.write(text)


