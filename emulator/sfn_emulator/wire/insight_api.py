"""`/_emulator/graph` and `/_emulator/coverage`: what the emulator ran, drawn and measured.

- `GET /_emulator/graph?stateMachineArn=ARN[&executionArn=ARN]&format=mermaid|dot|html` draws a
  state machine (any ARN DescribeStateMachine takes: versions and aliases too), or with
  `executionArn` the definition that execution ran with its path overlaid (states visited, with
  counts, the states it failed in, the edges it took). `executionArn` alone is enough.
  An html page shows an execution's status, error and cause above the drawing, and loads Mermaid
  from `GET /_emulator/graph/mermaid.min.js` (or from `script`, e.g. a copy beside a saved page),
  so each page is a few kilobytes.
- `GET /_emulator/coverage` answers the coverage JSON of every execution this emulator finished
  (`sfn_emulator.coverage.model` describes it).
ARNs carry their account and region; unknown ones answer 404 with the API's error code.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Flask, Response, request

from sfn_emulator.asl.arns import split_arn
from sfn_emulator.coverage import CoverageRecorder
from sfn_emulator.dialects import graph_of
from sfn_emulator.engine.execution import Execution
from sfn_emulator.graphs import FORMATS, ExecutionTrace, Graph, Overlay, render, trace
from sfn_emulator.graphs.render import MERMAID_SCRIPT, execution_summary, mermaid_script
from sfn_emulator.service import StepFunctionsService
from sfn_emulator.service.errors import ApiError

GRAPH_PATH = "/_emulator/graph"
MERMAID_PATH = f"{GRAPH_PATH}/{MERMAID_SCRIPT}"
COVERAGE_PATH = "/_emulator/coverage"
_CONTENT_TYPES = {"mermaid": "text/plain; charset=utf-8", "dot": "text/vnd.graphviz; charset=utf-8",
                  "html": "text/html; charset=utf-8"}


def mount_insight_api(app: Flask, service: StepFunctionsService, coverage: CoverageRecorder) -> None:
    @app.get(GRAPH_PATH)
    def graph() -> Response:
        arguments = request.args
        graph_format = arguments.get("format", "mermaid")
        if graph_format not in FORMATS:
            return _message(400, f"format must be one of {', '.join(FORMATS)}, not {graph_format!r}")
        machine_arn, execution_arn = arguments.get("stateMachineArn"), arguments.get("executionArn")
        if not machine_arn and not execution_arn:
            return _message(400, "Give stateMachineArn, executionArn or both")
        script = arguments.get("script", MERMAID_PATH)
        try:
            text = execution_graph(service, execution_arn, graph_format, script) if execution_arn else \
                machine_graph(service, machine_arn or "", graph_format, script)
        except ApiError as error:
            return _message(404 if error.code.endswith("DoesNotExist") else 400, error.message, error.code)
        return Response(text, content_type=_CONTENT_TYPES[graph_format])

    @app.get(MERMAID_PATH)
    def mermaid_library() -> Response:
        answer = Response(mermaid_script(), content_type="text/javascript; charset=utf-8")
        answer.cache_control.max_age = 86400  # the package's copy: the same until the emulator is upgraded
        return answer

    @app.get(COVERAGE_PATH)
    def coverage_report() -> Response:
        return Response(json.dumps(coverage.json()), content_type="application/json")


def machine_graph(service: StepFunctionsService, machine_arn: str, graph_format: str, script: str = MERMAID_PATH) -> str:
    account, region = _account_and_region(machine_arn)
    described = service.handle("DescribeStateMachine", {"stateMachineArn": machine_arn}, account=account, region=region)
    return render(graph_of(described["definition"]), graph_format, title=described["name"], script_src=script)


def execution_graph(service: StepFunctionsService, execution_arn: str, graph_format: str,
                    script: str = MERMAID_PATH) -> str:
    execution = service.execution_record(execution_arn)
    graph = graph_of(execution.definition)
    return drawn_path(execution, graph, trace(graph, list(execution.history), execution.rules_taken), graph_format,
                      script)


def drawn_path(execution: Execution, graph: Graph, path: ExecutionTrace, graph_format: str,
               script: str = MERMAID_PATH) -> str:
    """The execution's graph with the path it took drawn over it."""
    overlay = Overlay(visited=dict(path.entered), failed=frozenset(path.failed_states), taken=frozenset(path.taken))
    return render(graph, graph_format, overlay=overlay, title=f"{execution.state_machine_name}: {execution.name}",
                  script_src=script, body=execution_summary(execution.status, execution.error, execution.cause))


def _account_and_region(arn: str) -> tuple[str | None, str | None]:
    fields = split_arn(arn)
    return (fields.account, fields.region) if fields is not None else (None, None)


def _message(status: int, message: str, code: str | None = None) -> Response:
    body: dict[str, Any] = {"message": message}
    if code:
        body["code"] = code
    return Response(json.dumps(body), status=status, content_type="application/json")
