"""The parser of a whole definition, a Parallel branch or a Map item processor: one pass that builds
the model and records every diagnostic on the way."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from sfn_emulator.asl.model import JSONPATH, State, StateMachine
from sfn_emulator.asl.parsing.expressions import ExpressionFields
from sfn_emulator.asl.parsing.field_reading import TableFields
from sfn_emulator.asl.parsing.field_table import FIELDS, STATE_MACHINE, FieldTable
from sfn_emulator.asl.parsing.recording import DiagnosticRecorder
from sfn_emulator.asl.parsing.rules import EMPTY, EXPRESS, expected_type, listed
from sfn_emulator.asl.parsing.states import StateFields
from sfn_emulator.asl.state_names import state_name_problem
from sfn_emulator.asl.validation import (
    DUPLICATE_STATE_NAME,
    Diagnostic,
    Scope,
    check_transitions,
    duplicate_keys,
)


class Parser:
    """One pass over a definition: builds the model and records every diagnostic on the way.

    Each `state`/`machine` method returns None when it found an error in its part (the
    diagnostics say why); the caller keeps going so that every problem gets reported. The readers
    of one pass share one `DiagnosticRecorder`; `table` says which fields exist and how each is read.
    """

    def __init__(self, state_machine_type: str, table: FieldTable = FIELDS) -> None:
        self.recorder = DiagnosticRecorder(express=state_machine_type == EXPRESS)
        self.table_fields = TableFields(table, self.recorder, ExpressionFields(self.recorder))
        self.states = StateFields(self.recorder, self.table_fields, self.machine)
        self.state_names: set[str] = set()  # of the whole machine, branches and item processors included

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return self.recorder.diagnostics

    def machine(self, value: Any, location: str, *, kind: str, query_language: str) -> StateMachine | None:
        """A whole definition (`kind` STATE_MACHINE), a Parallel branch (BRANCH) or a Map item processor
        (ITEM_PROCESSOR): the table's owners of their fields."""
        recorder = self.recorder
        errors_before = recorder.error_count()
        here = location or "/"
        if not isinstance(value, dict):
            recorder.error(expected_type("OBJECT"), here)
            return None
        missing = [name for name in ("States", "StartAt") if name not in value]
        if missing:
            recorder.error(f"These fields are required: {listed(missing)}", here)
        recorder.unknown_fields(value, self.table_fields.table.fields_of(kind, JSONPATH), here)

        start_at = recorder.typed(value, "StartAt", "STRING", location)
        if kind == STATE_MACHINE:
            query_language = self.states.query_language(value, location, inherited=None) or JSONPATH
            recorder.machine_language = query_language
        table_fields = self.table_fields.read(kind, value, location)

        states = recorder.typed(value, "States", "OBJECT", location)
        scope = Scope(location, start_at if isinstance(start_at, str) else None)
        parsed: dict[str, State] = {}
        if isinstance(states, dict):
            if not states:
                recorder.error(EMPTY, f"{location}/States")
            for name in duplicate_keys(states):
                recorder.error(f"Duplicate State name: {name}", f"{location}/States/{name}", DUPLICATE_STATE_NAME)
            for name, definition in states.items():
                state_location = f"{location}/States/{name}"
                self.register_name(name, state_location)
                scope.states.append(name)
                state = self.states.state(name, definition, state_location, scope, query_language)
                if state is not None:
                    parsed[name] = state
            recorder.diagnostics.extend(check_transitions(scope, top_level=kind == STATE_MACHINE))

        if recorder.error_count() > errors_before or not isinstance(start_at, str):
            return None
        return StateMachine(
            start_at=start_at,
            states=MappingProxyType(parsed),  # read-only: the model is immutable all the way down
            query_language=query_language,
            raw=value,
            **table_fields,
        )

    def register_name(self, name: str, location: str) -> None:
        """State names are unique in the whole machine, branches and item processors included."""
        if (problem := state_name_problem(name, location)) is not None:
            self.recorder.diagnostics.append(problem)
        if name in self.state_names:
            self.recorder.error(f"Duplicate State name: {name}", location, DUPLICATE_STATE_NAME)
        self.state_names.add(name)
