"""What the Serverless Workflow versions' dialects share: each names the modules of its parser,
model, interpreter and graph, imported when first used (recognising a document needs none of them,
and most emulators never run such a workflow); each version says how it recognises its documents."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any, Mapping

from msgspec import UNSET, Struct

from sfn_emulator.asl.validation import ERROR, Diagnostic, InvalidDefinitionError

if TYPE_CHECKING:
    from sfn_emulator.engine.effects import Interpreter
    from sfn_emulator.engine.frame import Run
    from sfn_emulator.graphs.structure import Graph

_DRAFT = "sfn_emulator.dialects.serverless_workflow"


class LazyWorkflowDialect(Struct, frozen=True):
    name: str
    parser: str  # a module with read_workflow(text, document) -> (model or None, every problem)
    model_module: str  # the module of the model class (and of mockable_names, unless `mockable` says)
    model_class: str = "Workflow"
    interpreter: str = f"{_DRAFT}.interpreter"  # a module with run_workflow(run)
    grapher: str = f"{_DRAFT}.graph"  # a module with workflow_graph(definition)
    mockable: str | None = None  # the module of mockable_names(model), when not model_module

    @property
    def model(self) -> type:
        return getattr(import_module(self.model_module), self.model_class)

    def recognises(self, document: Any) -> bool:
        raise NotImplementedError

    def parse(self, text: str, *, state_machine_type: str) -> Any:
        return self.parse_document(text, UNSET, state_machine_type=state_machine_type)

    def parse_document(self, text: str, document: Any, *, state_machine_type: str) -> Any:
        workflow, problems = import_module(self.parser).read_workflow(text, document)
        if workflow is None or problems:
            raise InvalidDefinitionError(problems)
        return workflow

    def validate(self, text: str, *, state_machine_type: str, severity: str, max_results: int) -> list[Diagnostic]:
        return self.validate_document(text, UNSET, state_machine_type=state_machine_type, severity=severity,
                                      max_results=max_results)

    def validate_document(self, text: str, document: Any, *, state_machine_type: str, severity: str,
                          max_results: int) -> list[Diagnostic]:
        diagnostics = import_module(self.parser).read_workflow(text, document)[1][:max_results]
        return diagnostics if severity != ERROR else [d for d in diagnostics if d.severity == ERROR]

    def run(self, run: Run) -> Interpreter:
        return import_module(self.interpreter).run_workflow(run)

    def graph(self, definition: str) -> Graph:
        return import_module(self.grapher).workflow_graph(definition)

    def mock_view(self, model: Any) -> Mapping[str, Any]:
        """Mock test cases name what the version's `mockable_names` lists (states and actions, tasks)."""
        names = import_module(self.mockable or self.model_module).mockable_names(model)
        return {"States": {name: {"Type": "Task"} for name in names}}
