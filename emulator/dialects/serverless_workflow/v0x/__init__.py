"""The Serverless Workflow drafts 0.6, 0.7 and 0.8 as a dialect: read into the draft's model and run
by the draft's interpreter (`serverless_workflow.interpreter`), with jq expressions and 0.8's data
filters (`v0x.expressions`).

Recognition: a JSON or YAML object without ASL's `States`, with a `states` array, and a
`specVersion` of 0.x (0.7, 0.8), or a top-level `start`, or no state marking itself as the start (0.6
has no `specVersion`; the draft of the design documents marks its start state with `start`). The tag `sfn-emulator:dialect` =
`serverless-workflow-0.x` forces it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from msgspec import Struct

from sfn_emulator.asl.validation import ERROR, Diagnostic

if TYPE_CHECKING:
    from sfn_emulator.dialects.serverless_workflow.model import Workflow
    from sfn_emulator.engine.effects import Interpreter
    from sfn_emulator.engine.frame import Run
    from sfn_emulator.graphs.structure import Graph

NAME = "serverless-workflow-0.x"


def is_later_draft(document: Any) -> bool:
    """A 0.6-0.8 document (see the module docstring)."""
    if not isinstance(document, Mapping) or "States" in document or not isinstance(document.get("states"), list):
        return False
    version = document.get("specVersion")
    if (isinstance(version, str) and version.startswith("0.")) or "start" in document:
        return True
    return not any(isinstance(state, Mapping) and "start" in state for state in document["states"])


class LaterDraftsDialect(Struct, frozen=True):
    name: str = NAME

    @property
    def model(self) -> type:
        from sfn_emulator.dialects.serverless_workflow.v0x.model import LaterDraftWorkflow

        return LaterDraftWorkflow

    def recognises(self, document: Any) -> bool:
        return is_later_draft(document)

    def parse(self, text: str, *, state_machine_type: str) -> Workflow:
        from sfn_emulator.dialects.serverless_workflow.v0x.parser import parse_workflow

        return parse_workflow(text)

    def validate(self, text: str, *, state_machine_type: str, severity: str, max_results: int) -> list[Diagnostic]:
        from sfn_emulator.dialects.serverless_workflow.v0x.parser import validate_workflow

        diagnostics = validate_workflow(text, max_results=max_results)
        return diagnostics if severity != ERROR else [d for d in diagnostics if d.severity == ERROR]

    def run(self, run: Run) -> Interpreter:
        from sfn_emulator.dialects.serverless_workflow.interpreter import run_workflow

        return run_workflow(run)

    def graph(self, definition: str) -> Graph:
        from sfn_emulator.dialects.serverless_workflow.graph import workflow_graph

        return workflow_graph(definition)

    def mock_view(self, model: Workflow) -> Mapping[str, Any]:
        from sfn_emulator.dialects.serverless_workflow.model import mockable_names

        return {"States": {name: {"Type": "Task"} for name in mockable_names(model)}}


LATER_DRAFTS = LaterDraftsDialect()
