"""Parsing Retry and Catch: retriers, catchers and their ErrorEquals."""

from __future__ import annotations

from sfn_emulator.asl.model import JSONATA, Catcher, Retrier
from sfn_emulator.asl.parsing.expressions import ExpressionFields
from sfn_emulator.asl.parsing.field_reading import TableFields
from sfn_emulator.asl.parsing.recording import DiagnosticRecorder
from sfn_emulator.asl.parsing.rules import ALL_ERRORS, EMPTY, expected_type
from sfn_emulator.asl.validation import Scope, Transition


class ErrorHandlingFields:
    """Retriers and catchers of Task, Parallel and Map states."""

    def __init__(self, recorder: DiagnosticRecorder, expressions: ExpressionFields, table_fields: TableFields) -> None:
        self.recorder = recorder
        self.expressions = expressions
        self.table_fields = table_fields

    def retriers(self, value: dict, location: str) -> tuple[Retrier, ...]:
        definitions = self.recorder.typed(value, "Retry", "ARRAY", location)
        if not isinstance(definitions, list):
            return ()
        retriers = []
        for index, definition in enumerate(definitions):
            here = f"{location}/Retry[{index}]"
            if not isinstance(definition, dict):
                self.recorder.error(expected_type("OBJECT"), here)
                continue
            self.table_fields.refuse_unknown("Retrier", definition, here)
            error_equals = self.error_equals(definition, here, last=index == len(definitions) - 1)
            # the fields given; Retrier's defaults are ASL's for the others
            retriers.append(Retrier(error_equals=error_equals, **self.table_fields.read("Retrier", definition, here)))
        return tuple(retriers)

    def catchers(self, name: str, value: dict, location: str, scope: Scope) -> tuple[Catcher, ...]:
        definitions = self.recorder.typed(value, "Catch", "ARRAY", location)
        if not isinstance(definitions, list):
            return ()
        catchers = []
        for index, definition in enumerate(definitions):
            here = f"{location}/Catch[{index}]"
            if not isinstance(definition, dict):
                self.recorder.error(expected_type("OBJECT"), here)
                continue
            jsonata = self.recorder.language == JSONATA
            self.table_fields.refuse_unknown("Catcher", definition, here)
            assign = self.expressions.assign(definition, here)
            output = self.expressions.jsonata_template(definition, "Output", here) if jsonata else None
            error_equals = self.error_equals(definition, here, last=index == len(definitions) - 1)
            next_state = self.recorder.typed(definition, "Next", "STRING", here)
            if "Next" not in definition:
                self.recorder.error("These fields are required: [Next]", here)
            elif isinstance(next_state, str):
                scope.transitions.append(Transition(name, next_state, f"{here}/Next"))
            result_path = self.expressions.result_path(definition, here)
            comment = self.recorder.typed(definition, "Comment", "STRING", here)
            if isinstance(next_state, str):
                catchers.append(Catcher(
                    error_equals=error_equals, next=next_state, result_path=result_path, assign=assign,
                    output=output, comment=comment,
                ))
        return tuple(catchers)

    def error_equals(self, definition: dict, location: str, *, last: bool) -> tuple[str, ...]:
        """A retrier's or catcher's ErrorEquals: non-empty names; States.ALL alone, in the last one."""
        if "ErrorEquals" not in definition:
            self.recorder.error("These fields are required: [ErrorEquals]", location)
            return ()
        names = self.recorder.typed(definition, "ErrorEquals", "ARRAY", location)
        if not isinstance(names, list):
            return ()
        here = f"{location}/ErrorEquals"
        if not names:
            self.recorder.error(EMPTY, here)
        for index, item in enumerate(names):
            if not isinstance(item, str):
                self.recorder.error(expected_type("STRING"), f"{here}[{index}]")
        if ALL_ERRORS in names and len(names) > 1:
            self.recorder.error(f"'{ALL_ERRORS}' must appear alone in the field 'ErrorEquals'", here)
        if ALL_ERRORS in names and not last:
            self.recorder.error(f"A retrier or catcher whose 'ErrorEquals' contains '{ALL_ERRORS}' must be the last one", here)
        return tuple(item for item in names if isinstance(item, str))
