"""Recording diagnostics, and reading plain (non-expression) fields: types, ranges, enumerations."""

from __future__ import annotations

from typing import Any

from sfn_emulator.asl.model import JSONPATH
from sfn_emulator.asl.parsing.rules import JSON_TYPES, ABSENT, listed, expected_type
from sfn_emulator.asl.validation import ERROR, SCHEMA_VALIDATION_FAILED, WARNING, Diagnostic


class DiagnosticRecorder:
    """The diagnostics of one parse, the query language in force, and the checks of plain fields that
    record into them. Every reader of one parse shares one recorder, given to its constructor."""

    def __init__(self, *, express: bool) -> None:
        self.diagnostics: list[Diagnostic] = []
        self.express = express  # an EXPRESS state machine
        self.machine_language = JSONPATH  # what states, nested ones included, inherit
        self.language = JSONPATH  # of the state being built

    # -- recording ------------------------------------------------------------------------------

    def error(self, message: str, location: str | None, code: str = SCHEMA_VALIDATION_FAILED) -> None:
        self.diagnostics.append(Diagnostic(ERROR, code, message, location))

    def first_error(self, message: str, location: str) -> None:
        """An error unless one is reported at `location` already (a JSONata expression AWS refuses there,
        which a value check would otherwise report a second time as a plain value of the wrong kind)."""
        if not any(diagnostic.location == location for diagnostic in self.diagnostics):
            self.error(message, location)

    def warning(self, code: str, message: str, location: str | None) -> None:
        self.diagnostics.append(Diagnostic(WARNING, code, message, location))

    def error_count(self) -> int:
        return sum(1 for diagnostic in self.diagnostics if diagnostic.severity == ERROR)

    # -- plain fields ---------------------------------------------------------------------------

    def unknown_fields(self, value: dict, allowed: frozenset[str] | set[str], location: str) -> None:
        for field in value:
            if field not in allowed:
                self.error(f"Field '{field}' is not supported", location)

    def typed(self, value: dict, field: str, json_type: str, location: str) -> Any:
        """The field's value if it has the JSON type, else None (with a diagnostic when present)."""
        item = value.get(field, ABSENT)
        if item is ABSENT:
            return None
        if not JSON_TYPES[json_type](item):
            self.first_error(expected_type(json_type), f"{location}/{field}")
            return None
        return item

    def in_range(
        self, item: Any, field: str, location: str, minimum: float | None, maximum: float | None
    ) -> bool:
        """Whether `item` is within the bounds given (none: any); else AWS's text for the bound it breaks."""
        if minimum is not None and item < minimum:
            self.error(f"The value for the field '{field}' must be greater than or equal to {minimum}", f"{location}/{field}")
            return False
        if maximum is not None and item > maximum:
            self.error(f"The value for the field '{field}' must be less than or equal to {maximum}", f"{location}/{field}")
            return False
        return True

    def enum(self, value: dict, field: str, allowed: tuple[str, ...], location: str) -> str | None:
        item = self.typed(value, field, "STRING", location)
        if item is not None and item not in allowed:
            self.error(f"The field '{field}' should have one of these values: {listed(allowed)}", f"{location}/{field}")
            return None
        return item

    def at_most_one(self, value: dict, state_type: str, fields: tuple[str, str], location: str) -> None:
        if all(field in value for field in fields):
            first, second = fields
            self.error(f"A {state_type} state cannot include both field '{first}' and '{second}'", location or "/")
