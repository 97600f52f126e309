"""Typed reads of an SM4C document's attributes, each problem recorded as a diagnostic (in
ValidateStateMachineDefinition's form, located by JSON pointer) rather than raised, so that one
pass reports every problem of a document."""

from __future__ import annotations

from sfn_emulator.asl.validation import ERROR, SCHEMA_VALIDATION_FAILED, Diagnostic
from sfn_emulator.dialects.sm4c.expressions import ExpressionSyntaxError, JqExpression, Template, compile_expression, compile_template
from sfn_emulator.dialects.sm4c.timespans import parse_timespan


class DocumentReader:
    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []

    def error(self, message: str, location: str | None, code: str = SCHEMA_VALIDATION_FAILED) -> None:
        self.diagnostics.append(Diagnostic(ERROR, code, message, location or None))

    # -- typed reads -------------------------------------------------------------------------------
    def string(self, value: dict, key: str, location: str, *, required: bool = False) -> str | None:
        item = value.get(key)
        if item is None:
            if required:
                self.error(f"These fields are required: [{key}]", location)
            return None
        if not isinstance(item, str) or not item:
            self.error(f"Field '{key}' must be a non-empty string", f"{location}/{key}")
            return None
        return item

    def number(self, value: dict, key: str, location: str, *, integer: bool = False, minimum: float = 0) -> float | None:
        item = value.get(key)
        if item is None:
            return None
        valid = isinstance(item, int) if integer else isinstance(item, (int, float))
        if isinstance(item, bool) or not valid or item < minimum:
            kind = "an integer" if integer else "a number"
            self.error(f"Field '{key}' must be {kind} of at least {minimum:g}", f"{location}/{key}")
            return None
        return item

    def boolean(self, value: dict, key: str, location: str, default: bool) -> bool:
        item = value.get(key, default)
        if not isinstance(item, bool):
            self.error(f"Field '{key}' must be a boolean", f"{location}/{key}")
            return default
        return item

    def timespan(self, value: dict, key: str, location: str, *, required: bool = False) -> float | None:
        text = self.string(value, key, location, required=required)
        if text is None:
            return None
        seconds = parse_timespan(text)
        if seconds is None:
            self.error(f"Field '{key}' is not a timespan ('hh:mm:ss' or an ISO 8601 duration): '{text}'", f"{location}/{key}")
        return seconds

    def expression(self, value: dict, key: str, location: str, *, required: bool = False) -> JqExpression | None:
        text = self.string(value, key, location, required=required)
        if text is None:
            return None
        try:
            return compile_expression(text)
        except ExpressionSyntaxError as error:
            self.error(f"The jq expression '{text}' is invalid: {error}", f"{location}/{key}")
            return None

    def template(self, value: dict, key: str, location: str, *, strings_only: bool = False) -> Template:
        item = value.get(key, {})
        if not isinstance(item, dict) or (strings_only and not all(isinstance(entry, str) for entry in item.values())):
            kind = "strings" if strings_only else "values"
            self.error(f"Field '{key}' must be an object of {kind}", f"{location}/{key}")
            return Template({})
        try:
            return compile_template(item)
        except ExpressionSyntaxError as error:
            self.error(f"A jq expression in '{key}' is invalid: {error}", f"{location}/{key}")
            return Template({})

    def objects(self, value: dict, key: str, location: str, *, required: bool = False) -> list[tuple[dict, str]]:
        items = value.get(key)
        if items is None:
            if required:
                self.error(f"These fields are required: [{key}]", location)
            return []
        if not isinstance(items, list):
            self.error(f"Field '{key}' must be an array", f"{location}/{key}")
            return []
        found = []
        for index, item in enumerate(items):
            if isinstance(item, dict):
                found.append((item, f"{location}/{key}/{index}"))
            else:
                self.error(f"Field '{key}' must hold objects", f"{location}/{key}/{index}")
        return found
