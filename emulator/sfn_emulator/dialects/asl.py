"""The Amazon States Language as a dialect: the parser, interpreter and graph the emulator always had.

Recognition: a JSON object with a `States` member. ASL is also the fallback for whatever no other
dialect recognises, so a broken definition gets ASL's own diagnostics.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from msgspec import Struct

from sfn_emulator.asl.model import StateMachine
from sfn_emulator.asl.parser import parse_definition, validate_definition
from sfn_emulator.asl.validation import Diagnostic
from sfn_emulator.engine.effects import Interpreter
from sfn_emulator.engine.frame import Run
from sfn_emulator.engine.interpreter import run_execution

if TYPE_CHECKING:
    from sfn_emulator.graphs.structure import Graph


class AslDialect(Struct, frozen=True):
    name: str = "asl"
    model: type = StateMachine

    def recognises(self, document: Any) -> bool:
        return isinstance(document, Mapping) and "States" in document

    def parse(self, text: str, *, state_machine_type: str) -> StateMachine:
        return parse_definition(text, state_machine_type=state_machine_type)

    def parse_document(self, text: str, document: Any, *, state_machine_type: str) -> StateMachine:
        return parse_definition(text, state_machine_type=state_machine_type, document=document)

    def validate(self, text: str, *, state_machine_type: str, severity: str, max_results: int) -> list[Diagnostic]:
        return validate_definition(text, state_machine_type=state_machine_type, severity=severity,
                                   max_results=max_results)

    def validate_document(self, text: str, document: Any, *, state_machine_type: str, severity: str,
                          max_results: int) -> list[Diagnostic]:
        return validate_definition(text, state_machine_type=state_machine_type, severity=severity,
                                   max_results=max_results, document=document)

    def run(self, run: Run) -> Interpreter:
        return run_execution(run)

    def graph(self, definition: str) -> Graph:
        from sfn_emulator.graphs.structure import graph_of  # imported on the first graph asked for

        return graph_of(definition)

    def mock_view(self, model: StateMachine) -> Mapping[str, Any]:
        return model.raw


ASL_DIALECT = AslDialect()
