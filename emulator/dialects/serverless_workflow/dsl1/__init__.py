"""Serverless Workflow DSL 1.0 (the specification's current release, now the Open Workflow
Specification) as a dialect.

Recognition: a JSON or YAML object whose `document.dsl` is a 1.x version text. The tag
`sfn-emulator:dialect` = `serverless-workflow-1.0` forces it. Its parser, interpreter and graph
are imported on first use, as the draft's are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from msgspec import Struct

from sfn_emulator.asl.validation import ERROR, Diagnostic

if TYPE_CHECKING:
    from sfn_emulator.dialects.serverless_workflow.dsl1.model import Workflow
    from sfn_emulator.engine.effects import Interpreter
    from sfn_emulator.engine.frame import Run
    from sfn_emulator.graphs.structure import Graph

NAME = "serverless-workflow-1.0"


class Dsl1Dialect(Struct, frozen=True):
    name: str = NAME

    @property
    def model(self) -> type:
        from sfn_emulator.dialects.serverless_workflow.dsl1.model import Workflow

        return Workflow

    def recognises(self, document: Any) -> bool:
        head = document.get("document") if isinstance(document, Mapping) and "States" not in document else None
        return isinstance(head, Mapping) and isinstance(head.get("dsl"), str) and head["dsl"].startswith("1.")

    def parse(self, text: str, *, state_machine_type: str) -> Workflow:
        from sfn_emulator.dialects.serverless_workflow.dsl1.parser import parse_workflow

        return parse_workflow(text)

    def validate(self, text: str, *, state_machine_type: str, severity: str, max_results: int) -> list[Diagnostic]:
        from sfn_emulator.dialects.serverless_workflow.dsl1.parser import validate_workflow

        diagnostics = validate_workflow(text, max_results=max_results)
        return diagnostics if severity != ERROR else [d for d in diagnostics if d.severity == ERROR]

    def run(self, run: Run) -> Interpreter:
        from sfn_emulator.dialects.serverless_workflow.dsl1.interpreter import run_workflow

        return run_workflow(run)

    def graph(self, definition: str) -> Graph:
        from sfn_emulator.dialects.serverless_workflow.dsl1.graph import workflow_graph

        return workflow_graph(definition)

    def mock_view(self, model: Workflow) -> Mapping[str, Any]:
        """Mock test cases name call and run tasks."""
        from sfn_emulator.dialects.serverless_workflow.dsl1.model import mockable_names

        return {"States": {name: {"Type": "Task"} for name in mockable_names(model)}}


DSL1 = Dsl1Dialect()
