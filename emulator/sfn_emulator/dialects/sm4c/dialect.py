"""SM4C as a dialect of the emulator (registered in `sfn_emulator.dialects`).

Recognition (when the tag `sfn-emulator:dialect` does not name the dialect): a JSON or YAML object
without `States` whose `states` is a non-empty array of objects, none of them with a `type` (a
Serverless Workflow state always has one). So a document Serverless Workflow recognises (a state
with a `type`) never is SM4C's, nor is an ASL definition (`States`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from msgspec import UNSET, Struct

from sfn_emulator.asl.validation import ERROR, Diagnostic, InvalidDefinitionError

if TYPE_CHECKING:
    from sfn_emulator.dialects.sm4c.model import Sm4cDocument
    from sfn_emulator.engine.effects import Interpreter
    from sfn_emulator.engine.frame import Run
    from sfn_emulator.graphs.structure import Graph

NAME = "sm4c"


class Sm4cDialect(Struct, frozen=True):
    """Its parser, interpreter and graph are imported when first used: recognising a document needs
    none of them, and most emulators never run such a document."""

    name: str = NAME

    @property
    def model(self) -> type:
        from sfn_emulator.dialects.sm4c.model import Sm4cDocument

        return Sm4cDocument

    def recognises(self, document: Any) -> bool:
        if not isinstance(document, Mapping) or "States" in document:
            return False
        states = document.get("states")
        return isinstance(states, list) and bool(states) \
            and all(isinstance(state, Mapping) and "type" not in state for state in states)

    def parse(self, text: str, *, state_machine_type: str) -> Sm4cDocument:
        return self.parse_document(text, UNSET, state_machine_type=state_machine_type)

    def parse_document(self, text: str, document: Any, *, state_machine_type: str) -> Sm4cDocument:
        from sfn_emulator.dialects.sm4c.parser import parse_document

        return parse_document(text, document)

    def anchor(self, text: str, directory: Path) -> str:
        """The text with the definitions it names by file (relative to its own, in `directory`, or by
        `file://` URI) read in (see `references`); UnreadableDefinition when one cannot be read."""
        from sfn_emulator.protocol.definition_files import UnreadableDefinition
        from sfn_emulator.dialects.documents import load_document
        from sfn_emulator.dialects.sm4c.references import UnresolvableReference, anchor

        document = load_document(text)
        try:
            return json.dumps(document) if anchor(document, directory) else text
        except UnresolvableReference as error:
            raise UnreadableDefinition(str(error)) from None

    def validate(self, text: str, *, state_machine_type: str, severity: str, max_results: int) -> list[Diagnostic]:
        return self.validate_document(text, UNSET, state_machine_type=state_machine_type, severity=severity,
                                      max_results=max_results)

    def validate_document(self, text: str, document: Any, *, state_machine_type: str, severity: str,
                          max_results: int) -> list[Diagnostic]:
        from sfn_emulator.dialects.sm4c.parser import validate_document

        diagnostics = validate_document(text, document)
        wanted = [d for d in diagnostics if severity != ERROR or d.severity == ERROR]
        return wanted[:max_results]

    def run(self, run: Run) -> Interpreter:
        from sfn_emulator.dialects.sm4c.host import Host
        from sfn_emulator.dialects.sm4c.interpreter import run_document

        return run_document(run, Host(run))

    def mock_view(self, model: Sm4cDocument) -> Mapping[str, Any]:
        """Mock test cases name states and named actions."""
        return {"States": {name: {"Type": "Task"} for name in model.mockable_names()}}

    def graph(self, definition: str) -> Graph:
        from sfn_emulator.dialects.sm4c.graph import graph_of_model
        from sfn_emulator.dialects.sm4c.parser import parse_document

        try:
            return graph_of_model(parse_document(definition))
        except InvalidDefinitionError as error:
            raise ValueError(error.message) from None


SM4C_DIALECT = Sm4cDialect()
